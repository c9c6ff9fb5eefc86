"""Plotly figures built from stored result JSON (so old revisions draw the same way).

Diagrams aggregate repeated units: a tier is drawn as at most ``MAX_BOXES`` boxes, each
labelled with how many switches it stands for; links between tiers are labelled with
their count and speed. That stays readable at 2,000 and at 16,000 GPUs.
"""

from __future__ import annotations

import math
from typing import Any

import plotly.graph_objects as go

MAX_BOXES = 8
COLORS = {"endpoint": "#7a8aa6", "leaf": "#2457c5", "spine": "#0f8a6a", "core": "#b35c00", "tor": "#2457c5"}


def _fig_json(fig: go.Figure) -> dict[str, Any]:
    return fig.to_plotly_json()


def _split(count: int, boxes: int) -> list[int]:
    base, extra = divmod(count, boxes)
    return [base + (1 if i < extra else 0) for i in range(boxes)]


def layered_diagram(
    rows: list[dict[str, Any]], links: list[dict[str, Any]], title: str, height: int = 420
) -> dict[str, Any]:
    """rows: {label, count, kind, unit, boxes?}; links: {lower, upper, count, gbps, note?}."""
    fig = go.Figure()
    positions: list[list[float]] = []
    for y, row in enumerate(rows):
        n_boxes = row.get("boxes") or min(max(row["count"], 1), MAX_BOXES)
        sizes = row.get("sizes") or _split(row["count"], n_boxes)
        xs = [(i + 0.5) / n_boxes for i in range(n_boxes)]
        positions.append(xs)
        labels = row.get("labels") or [
            f"{s:,} {row['unit']}" if s != 1 else f"1 {row['unit'].rstrip('s')}" for s in sizes
        ]
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=[y] * n_boxes,
                mode="markers+text",
                marker={"symbol": "square", "size": 34, "color": COLORS.get(row["kind"], "#555")},
                text=labels,
                textposition="bottom center" if y == 0 else "top center",
                hovertext=[f"{row['label']}: {lab}" for lab in labels],
                hoverinfo="text",
                name=f"{row['label']} ({row['count']:,})",
            )
        )
    for link in links:
        lo, hi = link["lower"], link["upper"]
        xs, ys = _wiring(positions[lo], positions[hi], lo, hi, link.get("pattern", "all"))
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines",
                line={"width": 0.6, "color": "#aab3c2"},
                hoverinfo="skip",
                showlegend=False,
            )
        )
        text = f"{link['count']:,} links × {link['gbps']:g}G"
        if link.get("note"):
            text += f" — {link['note']}"
        fig.add_annotation(
            x=1.02,
            y=(lo + hi) / 2 + (0.35 if lo == hi else 0),
            text=text,
            showarrow=False,
            xanchor="left",
            font={"size": 12, "color": "#1d2330"},
        )
    fig.update_layout(
        title=title,
        height=height,
        margin={"l": 20, "r": 230, "t": 50, "b": 40},
        xaxis={"visible": False, "range": [-0.05, 1.05]},
        yaxis={
            "visible": False,
            "range": [-0.7, len(rows) - 0.3 + (0.4 if any(k["lower"] == k["upper"] for k in links) else 0)],
        },
        plot_bgcolor="white",
        legend={"orientation": "h", "y": -0.08},
        dragmode="pan",
    )
    return _fig_json(fig)


def _wiring(lower: list[float], upper: list[float], lo: int, hi: int, pattern: str):
    """Line segments between two rows of boxes: every box to every box ("all"), box i to box i
    ("aligned": pods or groups wired inside themselves), or arcs between every pair of boxes of
    one row ("arcs": Dragonfly+ global links between groups)."""
    xs: list[float | None] = []
    ys: list[float | None] = []
    if pattern == "arcs":
        for i, xa in enumerate(lower):
            for xb in lower[i + 1 :]:
                xs += [xa, (xa + xb) / 2, xb, None]
                ys += [lo, lo + 0.35, lo, None]
        return xs, ys
    pairs = (
        list(zip(lower, upper, strict=True))
        if pattern == "aligned" and len(lower) == len(upper)
        else [(a, b) for a in lower for b in upper]
    )
    for xa, xb in pairs:
        xs += [xa, xb, None]
        ys += [lo, hi, None]
    return xs, ys


def _plural(name: str) -> str:
    return {"leaf": "leaves"}.get(name, name + "s")


def _grouped(row: dict[str, Any], groups: int, what: str) -> None:
    """Boxes of a row by pod or group: ``n pod(s): m leaves``."""
    boxes = min(groups, MAX_BOXES)
    row["boxes"] = boxes
    row["labels"] = [
        f"{s} {what}{'s' if s > 1 else ''}: {s * row['count'] // groups:,} {_plural(row['label'])}"
        for s in _split(groups, boxes)
    ]


def _copies(row: dict[str, Any], extras: dict[str, Any]) -> None:
    """Boxes of a row by rail group (× plane): each group has its own leaves, spines and cores."""
    groups, planes = extras.get("rail_groups", 1), extras.get("nic_planes", 1)
    per_group = extras.get("rails_per_group", 1)
    names = []
    for p in range(planes):
        for g in range(groups):
            rails = f"rail {g * per_group}" + (f"–{(g + 1) * per_group - 1}" if per_group > 1 else "")
            names.append((f"plane {p}, " if planes > 1 else "") + rails)
    copies = len(names)
    boxes = min(copies, MAX_BOXES)
    shown = _split(copies, boxes)
    per = row["count"] // copies
    row["boxes"] = boxes
    row["labels"] = [
        (names[sum(shown[:j])] if s == 1 else f"{s} groups") + f": {per * s:,} {_plural(row['label'])}"
        for j, s in enumerate(shown)
    ]


def compute_diagram(result: dict[str, Any]) -> dict[str, Any]:
    f = result["compute_fabric"]
    c = result["cluster"]
    if f["topology"] == "torus_3d":
        return torus_diagram(f)
    rows: list[dict[str, Any]] = [
        {
            "label": "endpoints",
            "count": f["endpoint_count"],
            "kind": "endpoint",
            "unit": "NICs",
            "boxes": 1,
            "labels": [
                f"{f['endpoint_count']:,} NICs in {c['node_count']:,} nodes"
                + (f" + {f['fabric_manager_port_count']} UFM ports" if f.get("fabric_manager_port_count") else "")
                + (f" + {f['attached_device_port_count']} device ports" if f.get("attached_device_port_count") else "")
            ],
        },
    ]
    rails = f["extras"].get("rail_count")
    pods = f["extras"].get("pod_count", 1)
    copies = f["extras"].get("rail_groups", 1) * f["extras"].get("nic_planes", 1)
    for t in f["tiers"]:
        row = {"label": t["name"], "count": t["switch_count"], "kind": t["name"], "unit": f"{t['name']}s"}
        if copies > 1:
            _copies(row, f["extras"])
        elif t["name"] == "leaf" and rails and rails > 1:
            per = t["switch_count"] // rails
            boxes = min(rails, MAX_BOXES)
            shown = _split(rails, boxes)
            row["boxes"] = boxes
            row["labels"] = [
                (f"rail {sum(shown[:j])}" + (f"–{sum(shown[: j + 1]) - 1}" if s > 1 else "") + f": {per * s} leaves")
                for j, s in enumerate(shown)
            ]
        if f["topology"] == "dragonfly_plus":
            _grouped(row, f["extras"]["group_count"], "group")
        elif pods > 1 and t["name"] in ("leaf", "spine"):
            _grouped(row, pods, "pod")
        rows.append(row)
    # link counts between consecutive rows: endpoint links, then each tier's uplinks
    links = [{"lower": 0, "upper": 1, "count": f["endpoint_link_count"], "gbps": f["endpoint_gbps"]}]
    grouped = f["topology"] == "dragonfly_plus" or pods > 1
    for i, t in enumerate(f["tiers"][:-1]):
        link = {"lower": i + 1, "upper": i + 2, "count": t["uplink_count"], "gbps": t["uplink_gbps"]}
        if copies > 1:  # every tier stays inside its rail group / plane
            link.update(
                pattern="aligned",
                note="inside each " + ("plane" if copies == f["extras"].get("nic_planes") else "rail group"),
            )
        elif grouped and i == 0:  # leaf → spine stays inside its pod or group
            link.update(pattern="aligned", note="inside each " + ("group" if pods == 1 else "pod"))
        links.append(link)
    if f["topology"] == "dragonfly_plus":
        x = f["extras"]
        spine_row = len(rows) - 1
        links.append(
            {
                "lower": spine_row,
                "upper": spine_row,
                "count": x["global_link_count"],
                "gbps": f["tiers"][-1]["port_gbps"],
                "pattern": "arcs",
                "note": f"global: {x['global_links_per_group_pair']:,} per group pair",
            }
        )
    title = (
        f"Compute fabric — {f['topology'].replace('_', ' ')}, {f['switch_count']:,} switches, "
        f"bisection {f['bisection_tbyte_s']:,.2f} TB/s"
    )
    return layered_diagram(rows, links, title)


def torus_diagram(f: dict[str, Any]) -> dict[str, Any]:
    dims = f["extras"]["torus_dims"]
    n = math.prod(dims)
    shown = dims if n <= 4096 else [min(d, 8) for d in dims]
    xs, ys, zs = [], [], []
    for x in range(shown[0]):
        for y in range(shown[1]):
            for z in range(shown[2]):
                xs.append(x)
                ys.append(y)
                zs.append(z)
    fig = go.Figure(
        go.Scatter3d(
            x=xs,
            y=ys,
            z=zs,
            mode="markers",
            marker={"size": 3, "color": zs, "colorscale": "Blues"},
            hoverinfo="x+y+z",
            name="chips",
        )
    )
    note = "" if shown == dims else f" (showing an {shown[0]}×{shown[1]}×{shown[2]} corner)"
    fig.update_layout(
        title=(
            f"3D torus {dims[0]}×{dims[1]}×{dims[2]}{note}: {f['extras']['links_per_chip']} links per chip, "
            f"diameter {f['extras']['diameter_hops']} hops, bisection {f['bisection_tbyte_s']:,.2f} TB/s"
        ),
        height=460,
        margin={"l": 0, "r": 0, "t": 50, "b": 0},
    )
    return _fig_json(fig)


def _rail_names(rails: int, planes: int) -> list[str]:
    if planes <= 1:
        return [f"rail {r}" for r in range(rails)]
    per = rails // planes
    return [f"plane {r // per} · rail {r % per}" for r in range(rails)]


def rail_view(result: dict[str, Any]) -> dict[str, Any] | None:
    """Rails × scalable units: which leaf group takes which nodes' NIC r."""
    f = result["compute_fabric"]
    if f["topology"] != "rail_optimized":
        return None
    rails = f["extras"]["rail_count"]
    su = f["extras"]["scalable_unit_nodes"] or result["cluster"]["node_count"]
    nodes = result["cluster"]["node_count"]
    leaf_down = f["tiers"][0]["down_ports_per_switch"]
    su_count = math.ceil(nodes / su)
    su_nodes = [min(su, nodes - s * su) for s in range(su_count)]
    z = [[n for n in su_nodes] for _ in range(rails)]
    text = [[f"{math.ceil(n / leaf_down)} leaf/{n} nodes" for n in su_nodes] for _ in range(rails)]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=[f"SU {s}" for s in range(su_count)],
            y=_rail_names(rails, f["extras"].get("nic_planes", 1)),
            text=text,
            texttemplate="%{text}" if su_count * rails <= 400 else None,
            colorscale="Blues",
            colorbar={"title": "nodes"},
            hovertemplate="%{y}, %{x}: %{text}<extra></extra>",
        )
    )
    fig.update_layout(
        title=f"Rail view — NIC r of every node lands on its SU's rail-r leaf ({rails} rails × {su_count} SUs)",
        height=max(260, 34 * rails + 120),
        margin={"l": 70, "r": 20, "t": 50, "b": 40},
    )
    return _fig_json(fig)


def storage_diagram(result: dict[str, Any]) -> dict[str, Any]:
    s = result["storage"]
    rows = [
        {
            "label": "NIC ports",
            "count": s["access_port_count"],
            "kind": "endpoint",
            "unit": "ports",
            "boxes": 1,
            "labels": [f"{s['access_port_count']:,} compute + storage NIC ports"],
        }
    ]
    links = []
    if s["fabric"]:
        fab = s["fabric"]
        for t in fab["tiers"]:
            rows.append(
                {
                    "label": f"storage {t['name']}",
                    "count": t["switch_count"],
                    "kind": t["name"],
                    "unit": f"{t['name']}s",
                }
            )
        links.append({"lower": 0, "upper": 1, "count": fab["endpoint_link_count"], "gbps": fab["endpoint_gbps"]})
        for i, t in enumerate(fab["tiers"][:-1]):
            links.append({"lower": i + 1, "upper": i + 2, "count": t["uplink_count"], "gbps": t["uplink_gbps"]})
    else:
        rows.append({"label": "storage switch", "count": s["switch_count"], "kind": "leaf", "unit": "switches"})
        links.append({"lower": 0, "upper": 1, "count": s["access_port_count"], "gbps": 0, "note": "full mesh"})
    return layered_diagram(
        rows,
        links,
        f"Storage plane — {s['switch_count']} switches, {s['usable_tb'] / 1000:,.2f} PB usable",
        height=360,
    )


def management_diagram(result: dict[str, Any]) -> dict[str, Any]:
    m = result["management"]
    rows = [
        {
            "label": "servers",
            "count": m["server_count"],
            "kind": "endpoint",
            "unit": "servers",
            "boxes": 1,
            "labels": [f"{m['server_count']:,} servers (+ {m['bmc_port_count']:,} BMC ports)"],
        },
        {"label": "management ToR", "count": m["tor_count"], "kind": "tor", "unit": "ToRs"},
        {"label": "management spine", "count": m["spine_count"], "kind": "spine", "unit": "spines"},
    ]
    links = [
        {"lower": 0, "upper": 1, "count": m["access_port_count"], "gbps": 25, "note": "management + BMC"},
        {"lower": 1, "upper": 2, "count": m["tor_uplink_count"], "gbps": 100},
    ]
    return layered_diagram(
        rows, links, f"Management plane — {m['tor_count']} ToRs, {m['spine_count']} spines", height=340
    )


HEADLINE = (
    ("compute_switch_count", "Compute switches"),
    ("compute_link_count", "Compute links"),
    ("compute_bisection_tbyte_s", "Bisection [TB/s]"),
    ("storage_switch_count", "Storage switches"),
    ("storage_usable_tb", "Usable storage [TB]"),
    ("management_switch_count", "Management switches"),
)


def compare_chart(columns: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """Headline figures of 2–4 designs side by side, one small bar chart per figure."""
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=2, cols=3, subplot_titles=[label for _, label in HEADLINE], vertical_spacing=0.18)
    for i, (key, _label) in enumerate(HEADLINE):
        fig.add_trace(
            go.Bar(
                x=[name for name, _ in columns],
                y=[r.get("summary", {}).get(key, 0) for _, r in columns],
                marker_color=["#2457c5", "#0f8a6a", "#b35c00", "#7a3db8"][: len(columns)],
                showlegend=False,
            ),
            row=i // 3 + 1,
            col=i % 3 + 1,
        )
    fig.update_layout(height=520, margin={"l": 40, "r": 20, "t": 60, "b": 40})
    return _fig_json(fig)


def power_chart(result: dict[str, Any]) -> dict[str, Any] | None:
    """Stacked IT power by part, plus the facility overhead the PUE adds."""
    p = result.get("power")
    if not p:
        return None
    f = p["facility"]
    parts = [
        ("Compute", f["compute_kw"]),
        ("Storage", f["storage_kw"]),
        ("Management", f["mgmt_kw"]),
        ("Network", f["network_kw"]),
        ("Cooling & losses (PUE)", f["facility_kw"] - f["it_kw"]),
    ]
    fig = go.Figure()
    for name, kw in parts:
        fig.add_trace(
            go.Bar(name=name, x=["Facility power"], y=[kw], hovertemplate=f"{name}: %{{y:,.1f}} kW<extra></extra>")
        )
    fig.update_layout(
        barmode="stack",
        title=f"Power: IT {f['it_kw']:,.0f} kW, facility {f['facility_kw']:,.0f} kW (PUE {f['pue']:g})",
        yaxis_title="kW",
        height=380,
        margin={"l": 60, "r": 20, "t": 50, "b": 40},
    )
    return _fig_json(fig)


def tco_chart(result: dict[str, Any]) -> dict[str, Any] | None:
    """Cumulative cost by year, stacked: CapEx lines in year 0, then each OpEx line per year."""
    p = result.get("power")
    if not p:
        return None
    t = p["tco"]
    years = list(range(0, t["years"] + 1))
    fig = go.Figure()
    for c in t["capex"]:
        fig.add_trace(go.Bar(name=f"CapEx: {c['name']}", x=years, y=[float(c["amount_usd"])] * len(years)))
    for o in t["opex_per_year"]:
        fig.add_trace(go.Bar(name=f"OpEx: {o['name']}", x=years, y=[float(o["amount_usd"]) * y for y in years]))
    fig.update_layout(
        barmode="stack",
        title=f"Cumulative cost of ownership — ${float(t['total_usd']):,.0f} over "
        f"{t['years']} years (${float(t['cost_per_gpu_hour_usd']):.2f}/GPU-hour)",
        xaxis_title="year",
        yaxis_title="USD",
        height=440,
        margin={"l": 70, "r": 20, "t": 50, "b": 40},
    )
    return _fig_json(fig)


def capping_chart(result: dict[str, Any]) -> dict[str, Any] | None:
    p = result.get("power")
    if not p:
        return None
    c = p["capping"]
    caps = [pt["cap_frac"] * 100 for pt in c["points"]]
    from plotly.subplots import make_subplots

    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_trace(
        go.Scatter(
            x=caps, y=[pt["relative_throughput_per_gpu"] for pt in c["points"]], name="throughput per GPU (relative)"
        ),
        secondary_y=False,
    )
    fig.add_trace(
        go.Scatter(
            x=caps,
            y=[pt["total_throughput_gpu_equiv"] for pt in c["points"]],
            name=f"total throughput under {c['budget_kw']:,.0f} kW (GPU-equivalents)",
        ),
        secondary_y=True,
    )
    best = c["best"]
    fig.add_trace(
        go.Scatter(
            x=[best["cap_frac"] * 100],
            y=[best["total_throughput_gpu_equiv"]],
            mode="markers+text",
            marker={"size": 12, "color": "#b35c00"},
            text=[f"best: {best['cap_frac']:.0%} TDP, {best['gpu_count']:,} GPUs"],
            textposition="bottom center",
            name="best cap",
        ),
        secondary_y=True,
    )
    fig.update_layout(
        title="Power capping: per-GPU throughput and total throughput under a fixed budget",
        xaxis_title="power cap [% of TDP]",
        height=420,
        margin={"l": 60, "r": 60, "t": 50, "b": 40},
        legend={"orientation": "h", "y": -0.2},
    )
    return _fig_json(fig)


def _sweep_subset(sweep, shown: set[int], largest: int, coll0: str, req0: str, heat_rows: int) -> dict[str, Any]:
    """One streamed pass over the stored chunks, keeping only what the charts draw."""
    import numpy as np

    from designer.sweeps import iter_results

    keep: dict[str, list[Any]] = {k: [] for k in ("fi", "coll", "req", "size", "busbw", "time", "alg")}
    for res in iter_results(sweep):
        fi = res.fabric_index
        mask = np.isin(fi, list(shown)) | (res.size_bytes == largest)
        mask |= (res.collective == coll0) & (res.requested == req0) & (fi < heat_rows)
        for k, col in zip(keep, ("fabric_index", "collective", "requested", "size_bytes", "busbw_gbyte_s",
                                 "time_us", "algorithm"), strict=True):  # fmt: skip
            keep[k].extend(getattr(res, col)[mask].tolist())
    return keep


def _variant_names(sweep) -> tuple[list[str], list[str]]:
    """Each variant's name as asked (64 nodes · 4:1), falling back to the built label; varied keys."""
    from designer.sweeps import variant_label

    labels = list(sweep.fabric_labels)
    if sweep.variants and sweep.variants[0]:
        return [variant_label(v) for v in sweep.variants], list(sweep.variants[0])
    return labels, []


def sweep_charts(sweep, max_series: int = 24, max_fabrics: int = 8, heat_rows: int = 64) -> dict[str, Any]:
    """busbw and time vs message size; busbw vs GPU count; a heatmap over variant × size.

    Series are keyed by variant (every varied parameter), collective and requested algorithm,
    so no two variants share a line; names show the values as asked."""
    grid = sweep.grid
    names, varied = _variant_names(sweep)
    largest, coll0, req0 = max(grid["sizes_bytes"]), grid["collectives"][0], grid["algorithms"][0]
    shown = set(range(min(len(grid["fabrics"]), max_fabrics)))
    data = _sweep_subset(sweep, shown, largest, coll0, req0, heat_rows)
    rows = list(zip(*(data[k] for k in ("fi", "coll", "req", "size", "busbw", "time", "alg")), strict=True))
    series: dict[tuple[int, str, str], list[tuple[int, float, float, str]]] = {}
    for fi, coll, req, size, busbw, t, alg in sorted(rows, key=lambda r: (r[0], r[1], r[2], r[3])):
        if fi in shown and math.isfinite(t):  # an algorithm that cannot run this collective draws nothing
            series.setdefault((fi, coll, req), []).append((size, busbw, t, alg))
    bw, tm = go.Figure(), go.Figure()
    for (fi, coll, req), pts in list(series.items())[:max_series]:
        name = f"{coll} · {req} · {names[fi] if fi < len(names) else fi}"
        xs = [p[0] for p in pts]
        bw.add_trace(
            go.Scatter(
                x=xs,
                y=[p[1] for p in pts],
                mode="lines+markers",
                name=name,
                text=[p[3] for p in pts],
                hovertemplate="%{x:.3s}B: %{y:.1f} GB/s (%{text})",
            )
        )
        tm.add_trace(go.Scatter(x=xs, y=[p[2] for p in pts], mode="lines+markers", name=name))
    note = f" (first {len(shown)} of {len(grid['fabrics'])} variants)" if len(shown) < len(grid["fabrics"]) else ""
    for fig, title, yaxis in (
        (bw, "Bus bandwidth vs message size (nccl-tests convention)", {"title": "busbw [GB/s]"}),
        (tm, "Time vs message size", {"type": "log", "title": "time [µs]"}),
    ):
        fig.update_layout(
            title=title + note,
            xaxis={"type": "log", "title": "message size [bytes]"},
            yaxis=yaxis,
            height=680,
            legend={"orientation": "h", "y": -0.25},
        )
    out = {"busbw": _fig_json(bw), "time": _fig_json(tm)}
    gpus = [f["gpus_per_node"] * f["node_count"] for f in grid["fabrics"]]
    if len(set(gpus)) > 1:
        out["gpus"] = _gpus_chart(sweep, rows, gpus, varied, largest)
    out["heatmap"] = _heatmap(grid, rows, names, coll0, req0, heat_rows)
    return out


def _gpus_chart(sweep, rows, gpus: list[int], varied: list[str], largest: int) -> str:
    """busbw vs GPU count at the largest size: one line per (collective, algorithm, other varied values)."""
    from designer.sweeps import variant_label

    others = [k for k in varied if k != "node_count"]
    by: dict[tuple[str, str, str], list[tuple[int, float]]] = {}
    for fi, coll, req, size, busbw, _t, _alg in rows:
        if size == largest and busbw > 0:
            rest = variant_label({k: sweep.variants[fi][k] for k in others}) if others else ""
            by.setdefault((coll, req, rest), []).append((gpus[fi], busbw))
    fig = go.Figure()
    for (coll, req, rest), pts in by.items():
        pts.sort()
        name = " · ".join(x for x in (coll, req, rest) if x)
        fig.add_trace(go.Scatter(x=[p[0] for p in pts], y=[p[1] for p in pts], mode="markers+lines", name=name))
    fig.update_layout(
        title=f"busbw vs GPU count at {largest:,} bytes",
        xaxis={"type": "log", "title": "GPUs"},
        yaxis_title="busbw [GB/s]",
        height=480,
        legend={"orientation": "h", "y": -0.25},
    )
    return _fig_json(fig)


def _heatmap(grid, rows, names: list[str], coll0: str, req0: str, heat_rows: int) -> str:
    sizes = grid["sizes_bytes"]
    n = min(len(grid["fabrics"]), heat_rows)
    z: list[list[float | None]] = [[None] * len(sizes) for _ in range(n)]
    col = {s: i for i, s in enumerate(sizes)}
    for fi, coll, req, size, busbw, _t, _alg in rows:
        if coll == coll0 and req == req0 and fi < n:
            z[fi][col[size]] = busbw if busbw > 0 else None
    heat = go.Figure(
        go.Heatmap(
            z=z, x=[f"{s:,}" for s in sizes], y=names[:n], colorscale="Viridis", colorbar={"title": "busbw GB/s"}
        )
    )
    more = f" (first {n} of {len(grid['fabrics'])} variants)" if n < len(grid["fabrics"]) else ""
    heat.update_layout(
        title=f"{coll0} ({req0}) busbw over message size × design variant{more}",
        height=max(300, 40 * n + 150),
        xaxis_title="message size [bytes]",
        margin={"l": 260},
    )
    return _fig_json(heat)


def calibration_chart(result: dict[str, Any]) -> dict[str, Any]:
    """Measured vs model vs calibrated, busbw and time over message size, on one page."""
    rows = result["rows"]
    xs = [r["size_bytes"] for r in rows]
    out = {}
    for key, field, title, ytype in (
        ("busbw", "busbw_gbyte_s", "busbw vs message size: the log, the bare model, the calibrated model", "linear"),
        ("time", "time_us", "time vs message size", "log"),
    ):
        fig = go.Figure()
        fig.add_trace(go.Scatter(x=xs, y=[r[f"measured_{field}"] for r in rows], mode="markers", name="measured (log)",
                                 marker={"size": 8, "color": "#222"}))  # fmt: skip
        fig.add_trace(go.Scatter(x=xs, y=[r[f"model_{field}"] for r in rows], mode="lines", name="model (bare)",
                                 line={"dash": "dash", "color": "#888"}, text=[r["model_choice"] for r in rows],
                                 hovertemplate="%{x:.3s}B: %{y:.4g} (%{text})"))  # fmt: skip
        fig.add_trace(go.Scatter(x=xs, y=[r[f"calibrated_{field}"] for r in rows], mode="lines+markers",
                                 name="model (calibrated)", line={"color": "#b35c00"},
                                 text=[r["calibrated_choice"] for r in rows],
                                 hovertemplate="%{x:.3s}B: %{y:.4g} (%{text})"))  # fmt: skip
        unit = "busbw [GB/s]" if key == "busbw" else "time [µs]"
        fig.update_layout(title=title, xaxis={"type": "log", "title": "message size [bytes]"},
                          yaxis={"type": ytype, "title": unit}, height=460,
                          legend={"orientation": "h", "y": -0.2})  # fmt: skip
        out[key] = _fig_json(fig)
    return out
