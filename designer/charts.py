"""Plotly figures built from stored result JSON (so old revisions draw the same way).

Diagrams aggregate repeated units: a tier is drawn as at most ``MAX_BOXES`` boxes, each
labelled with how many switches it stands for; links between tiers are labelled with
their count and speed. That stays readable at 2,000 and at 16,000 GPUs. A label every box
of a row shares is said once beside the row; box labels sit on a white ground, apart.

Line charts with more than ``PANEL_SERIES`` lines become small multiples (each panel its own
legend, no colour twice in it) with a selector (plotly updatemenus), never recycled colours
or a "first 8 of 30" cut.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import plotly.graph_objects as go

MAX_BOXES = 8
COLORS = {"endpoint": "#7a8aa6", "leaf": "#2457c5", "spine": "#0f8a6a", "core": "#b35c00", "tor": "#2457c5"}


def _fig_json(fig: go.Figure) -> dict[str, Any]:
    return fig.to_plotly_json()


def _split(count: int, boxes: int) -> list[int]:
    base, extra = divmod(count, boxes)
    return [base + (1 if i < extra else 0) for i in range(boxes)]


NOMINAL_WIDTH_PX = 700  # the narrowest plot area a diagram is read at (page width less the margins)
CHAR_EM = 0.6  # a character's mean width in font sizes (Open Sans, digits and lower case)


def text_width_px(text: str, size: float) -> float:
    """The estimated width of a label's longest line (lines split at <br>)."""
    return max(len(line) for line in text.split("<br>")) * CHAR_EM * size


def _box_texts(row: dict[str, Any], labels: list[str]) -> tuple[list[str], int, str]:
    """(text on each box, its font size, the row's caption beside the y axis). A label every box shares
    (a Dragonfly+ row is "1 group: 32 spines" eight times) is said once, in the caption; other labels stay
    on their boxes, wrapped at ": " and shrunk until neighbours keep a gap, else the caption counts them
    (two kinds) or the hover has them."""
    caption = f"<b>{row['label']}</b> ({row['count']:,})"
    if len(labels) == 1:
        return labels, 12, caption
    counts = dict.fromkeys(labels, 0)
    for lab in labels:
        counts[lab] += 1
    if len(counts) == 1:
        return [""] * len(labels), 12, f"{caption}<br>each box: {labels[0]}"
    wrapped = [lab.replace(": ", ":<br>") for lab in labels]
    room = NOMINAL_WIDTH_PX / len(labels) - 12  # a 12-pixel gap between neighbours
    for size in (12, 11, 10, 9):
        if max(text_width_px(t, size) for t in wrapped) <= room:
            return wrapped, size, caption
    if len(counts) == 2:
        kinds = [f"{n} box{'es' if n > 1 else ''}: {lab}" for lab, n in counts.items()]
        return [""] * len(labels), 12, caption + "<br>" + "<br>".join(kinds)
    return [""] * len(labels), 12, caption + "<br>(hover a box for its share)"


def layered_diagram(
    rows: list[dict[str, Any]], links: list[dict[str, Any]], title: str, height: int = 420
) -> dict[str, Any]:
    """rows: {label, count, kind, unit, boxes?}; links: {lower, upper, count, gbps, note?}. Each row is
    named on the y axis; no label sits on a wire (see _box_texts), link notes wrap in the right margin."""
    fig = go.Figure()
    positions: list[list[float]] = []
    captions: list[str] = []
    for y, row in enumerate(rows):
        n_boxes = row.get("boxes") or min(max(row["count"], 1), MAX_BOXES)
        sizes = row.get("sizes") or _split(row["count"], n_boxes)
        xs = [(i + 0.5) / n_boxes for i in range(n_boxes)]
        positions.append(xs)
        labels = row.get("labels") or [
            f"{s:,} {row['unit']}" if s != 1 else f"1 {row['unit'].rstrip('s')}" for s in sizes
        ]
        texts, size, caption = _box_texts(row, labels)
        captions.append(caption)
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=[y] * n_boxes,
                mode="markers",
                marker={"symbol": "square", "size": 34, "color": COLORS.get(row["kind"], "#555")},
                hovertext=[f"{row['label']}: {lab}" for lab in labels],
                hoverinfo="text",
                name=f"{row['label']} ({row['count']:,})",
            )
        )
        for x, text in zip(xs, texts, strict=True):
            if text:  # on a white ground, so the wires it crosses do not run through it
                fig.add_annotation(x=x, y=y, text=text, name="box", showarrow=False, yshift=-20 if y == 0 else 20,
                                   yanchor="top" if y == 0 else "bottom", font={"size": size, "color": "#1d2330"},
                                   bgcolor="rgba(255,255,255,0.9)")  # fmt: skip
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
            text += f"<br>{link['note']}"
        fig.add_annotation(
            x=1.02,
            y=(lo + hi) / 2 + (0.35 if lo == hi else 0),
            text=text,
            name="link",
            showarrow=False,
            xanchor="left",
            align="left",
            font={"size": 12, "color": "#1d2330"},
        )
    fig.update_layout(
        title=title,
        height=height,
        margin={"l": 190, "r": 230, "t": 50, "b": 40},
        xaxis={"visible": False, "range": [-0.05, 1.05]},
        yaxis={
            "range": [-0.7, len(rows) - 0.3 + (0.4 if any(k["lower"] == k["upper"] for k in links) else 0)],
            "tickvals": list(range(len(rows))),
            "ticktext": captions,
            "showgrid": False,
            "zeroline": False,
            "tickfont": {"size": 11},
            "fixedrange": True,
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
    # every SU the same size: one colour, and a colour bar would only span ±0.5 round it — say the value instead
    equal = min(su_nodes) == max(su_nodes)
    every = f"; all equal: {su_nodes[0]:,} nodes a cell" if equal else ""
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=[f"SU {s}" for s in range(su_count)],
            y=_rail_names(rails, f["extras"].get("nic_planes", 1)),
            text=text,
            texttemplate="%{text}" if su_count * rails <= 400 else None,
            colorscale="Blues",
            colorbar={"title": "nodes"},
            showscale=not equal,
            zmin=0 if equal else None,  # one mid-blue for the one value
            zmax=2 * su_nodes[0] if equal else None,
            hovertemplate="%{y}, %{x}: %{text}<extra></extra>",
        )
    )
    fig.update_layout(
        title=f"Rail view — NIC r of every node lands on its SU's rail-r leaf ({rails} rails × {su_count} SUs{every})",
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
        margin={"l": 70, "r": 80, "t": 50, "b": 40},
        legend={"orientation": "h", "y": -0.2},
    )
    fig.update_yaxes(title_text="per GPU [× full power]", secondary_y=False)
    # the right axis ticks on its own round steps (plotly.js otherwise syncs it to the left axis's grid, ticking
    # at 598.8, 631.8, …); no second grid, the left axis's lines stay the only ones
    fig.update_yaxes(title_text="total [GPU-equivalents]", tickmode="auto", nticks=6, tickformat=",d",
                     showgrid=False, secondary_y=True)  # fmt: skip
    return _fig_json(fig)


PANEL_SERIES = 10  # the most lines one panel draws: each its own colour
PANELS_PER_VIEW = 6  # small multiples per view; more variants than 60 page through the selector
SERIES_COLORS = (  # Tableau 10: ten colours told apart, also in print
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#595959",
)  # fmt: skip


@dataclass(frozen=True)
class Line:
    """One line of a panelled chart: ``pair`` is what the selector picks (collective · algorithm),
    ``group`` the line's name inside its panel (a variant); the same group keeps its colour in every view."""

    pair: str
    group: str
    x: list[float]
    y: list[float]
    text: list[str] | None = None
    panel: str = ""  # a shared value (e.g. "2:1") that keeps the group's panel together, when it fits one


def _views(lines: list[Line]) -> list[tuple[str, list[list[Line]]]]:
    """(selector label, panels of ≤ PANEL_SERIES lines). Up to PANEL_SERIES lines in all: one panel, no selector;
    else one view per pair (× page of PANELS_PER_VIEW panels), the pair's groups split evenly over its panels."""
    if len(lines) <= PANEL_SERIES:
        return [("", [lines])]
    groups = list(dict.fromkeys(line.group for line in lines))
    blocks = _blocks(groups, {line.group: line.panel for line in lines})
    pages = [blocks[i : i + PANELS_PER_VIEW] for i in range(0, len(blocks), PANELS_PER_VIEW)]
    by = {(line.pair, line.group): line for line in lines}
    views = []
    for pair in dict.fromkeys(line.pair for line in lines):
        for page in pages:
            panels = [[by[(pair, g)] for g in block if (pair, g) in by] for block in page]
            first, last = groups.index(page[0][0]) + 1, groups.index(page[-1][-1]) + 1
            label = pair + (f" — variants {first}–{last}" if len(pages) > 1 else "")
            views.append((label, panels))
    return views


def _blocks(groups: list[str], panel_of: dict[str, str]) -> list[list[str]]:
    """Groups into panels: by their shared panel value when every panel fits, else split evenly in order."""
    values = list(dict.fromkeys(panel_of[g] for g in groups))
    by_value = [[g for g in groups if panel_of[g] == v] for v in values]
    if all(values) and max(len(b) for b in by_value) <= PANEL_SERIES:
        return by_value
    blocks, at = [], 0
    for size in _split(len(groups), math.ceil(len(groups) / PANEL_SERIES)):
        blocks.append(groups[at : at + size])
        at += size
    return blocks


def panelled_chart(
    lines: list[Line], title: str, axes: tuple[str, str], hovertemplate: str, *, log: tuple[bool, bool] = (True, False)
) -> dict[str, Any]:
    """Small multiples of ≤ PANEL_SERIES lines, stacked, each with its own legend and distinct colours;
    a selector (plotly updatemenus) switches views when there are more lines than one panel holds."""
    from plotly.subplots import make_subplots

    views = _views(lines)
    n_rows = max(len(panels) for _, panels in views)
    fig = make_subplots(rows=n_rows, cols=1, vertical_spacing=0.18 / n_rows if n_rows > 1 else 0.0)
    owner: list[int] = []  # the view of each trace
    titles: list[list[str]] = []
    for v, (label, panels) in enumerate(views):
        titles.append([])
        for r, panel in enumerate(panels):
            titles[v].append(_with_coincide_note(_panel_title(label, panel, len(panels)), panel))
            for k, line in enumerate(panel):
                full = " · ".join(x for x in (line.pair, line.group) if x)
                name = line.group if label else full
                fig.add_trace(
                    go.Scatter(
                        x=line.x,
                        y=line.y,
                        text=line.text,
                        mode="lines+markers",
                        name=name,
                        line={"color": SERIES_COLORS[k % len(SERIES_COLORS)]},
                        legend=_legend_key(r),
                        visible=v == 0,
                        hovertemplate=f"{full}<br>{hovertemplate}<extra></extra>",
                    ),
                    row=r + 1,
                    col=1,
                )
                owner.append(v)
    for r in range(n_rows):
        domain = fig.layout[f"yaxis{r + 1 if r else ''}"].domain
        key = _legend_key(r)
        fig.update_layout(
            {
                key: {
                    "x": 1.02,
                    "xanchor": "left",
                    "y": domain[1],
                    "yanchor": "top",
                    "title": {"text": titles[0][r] if r < len(titles[0]) else ""},
                    "font": {"size": 11},
                }
            }
        )
    fig.update_xaxes(
        type="log" if log[0] else "linear", **(log_ticks(x for ln in lines for x in ln.x) if log[0] else {})
    )
    fig.update_xaxes(title_text=axes[0], row=n_rows, col=1)
    fig.update_yaxes(type="log" if log[1] else "linear", title_text=axes[1],
                     **(log_ticks(y for ln in lines for y in ln.y) if log[1] else {}))  # fmt: skip
    fig.update_layout(title=title, height=120 + 340 * n_rows, margin={"l": 70, "r": 260, "t": 110, "b": 60})
    if len(views) > 1:
        fig.update_layout(updatemenus=[_selector([label for label, _ in views], titles, owner, n_rows)])
    return _fig_json(fig)


def log_ticks(values) -> dict[str, Any]:
    """tickvals/ticktext for a log axis over ``values``: every decade, and 2 and 5 between them when the range spans
    four decades or fewer, each labelled in full ("2k", "5,000"). Plotly's own log ticks label the steps between
    decades with a bare digit ("2", "5" for 2,000 and 5,000) that a reader takes for the value, and call 10⁹ "1B",
    which on a bytes axis reads as one byte."""
    pos = [float(v) for v in values if v is not None and math.isfinite(v) and v > 0]
    if not pos:
        return {}
    lo, hi = min(pos), max(pos)
    first, last = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    steps = (1,) if last - first > 4 else (1, 2, 5)
    ticks = [m * 10.0**e for e in range(first, last + 1) for m in steps]
    ticks = [t for t in ticks if lo / 1.6 <= t <= hi * 1.6] or [lo, hi]
    return {"tickvals": ticks, "ticktext": [_tick_label(t) for t in ticks]}


def _tick_label(v: float) -> str:
    for size, unit in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e4, "k")):
        if v >= size:
            return f"{v / (size if unit != 'k' else 1e3):g}{unit}"
    return f"{v:,.0f}" if v >= 1 else f"{v:g}"


def _with_coincide_note(title: str, panel: list[Line]) -> str:
    """A panel's legend title, saying when some of its lines coincide (drawn one over another, they look like
    fewer lines than the legend lists)."""
    curves: list[Line] = []  # one line per set of lines that a reader cannot tell apart (within 2 % everywhere)
    for line in panel:
        if not any(_alike(line, c) for c in curves):
            curves.append(line)
    if len(panel) < 2 or len(curves) == len(panel):
        return title
    note = (
        f"all {len(panel)} lines coincide"
        if len(curves) == 1
        else f"{len(panel)} lines, {len(curves)} distinct: some coincide"
    )
    return f"{title}<br><i>{note}</i>" if title else f"<i>{note}</i>"


def _alike(a: Line, b: Line) -> bool:
    if list(a.x) != list(b.x):
        return False
    return all(abs(p - q) <= 0.02 * max(abs(p), abs(q)) + 1e-9 for p, q in zip(a.y, b.y, strict=True))


def _legend_key(row: int) -> str:
    return "legend" if row == 0 else f"legend{row + 1}"


def _selector(labels: list[str], titles: list[list[str]], owner: list[int], n_rows: int) -> dict[str, Any]:
    """A dropdown whose button v shows view v's traces and its panels' legend titles."""
    buttons = [
        {
            "label": label,
            "method": "update",
            "args": [
                {"visible": [o == v for o in owner]},
                {f"{_legend_key(r)}.title.text": (t[r] if r < len(t) else "") for r in range(n_rows)},
            ],
        }
        for v, (label, t) in enumerate(zip(labels, titles, strict=True))
    ]
    return {"buttons": buttons, "x": 0, "xanchor": "left", "y": 1.0, "yanchor": "bottom", "pad": {"b": 10},
            "showactive": True, "active": 0}  # fmt: skip


def _panel_title(label: str, panel: list[Line], panels: int) -> str:
    """A panel's legend title: the selector's pair, then what its lines share, or its first … last line."""
    head = label.split(" — ")[0]
    if panels <= 1 or not panel:
        return head
    shared = {line.panel for line in panel}
    if len(shared) == 1 and panel[0].panel:
        return f"{head}<br>variants at {panel[0].panel}"
    return f"{head}<br>{panel[0].group} … {panel[-1].group}" if len(panel) > 1 else f"{head}<br>{panel[0].group}"


def _panel_values(sweep, varied: list[str]) -> list[str]:
    """Each variant's value of the varied parameter that splits the variants into the fewest panels of
    ≤ PANEL_SERIES (10 node counts × 3 ratios: a panel per ratio), or "" when none does."""
    from designer.sweeps import variant_label

    variants = sweep.variants or []
    best: tuple[int, str] | None = None
    for k in varied:
        values = [v[k] for v in variants]
        distinct = list(dict.fromkeys(values))
        if len(distinct) > 1 and max(values.count(d) for d in distinct) <= PANEL_SERIES:
            best = min(best or (len(distinct), k), (len(distinct), k))
    return [variant_label({best[1]: v[best[1]]}) for v in variants] if best else [""] * len(variants)


DRAWN_POINTS = 150_000  # per chart: every variant always; collective · algorithm pairs while they fit


def _drawn_pairs(grid: dict[str, Any]) -> list[tuple[str, str]]:
    """The (collective, algorithm) pairs drawn: all, or the first that keep every variant's lines within
    DRAWN_POINTS (a 20 M-point sweep would not load, nor draw); the CSV has the rest."""
    pairs = [(c, a) for c in grid["collectives"] for a in grid["algorithms"]]
    per_pair = max(1, len(grid["fabrics"]) * len(grid["sizes_bytes"]))
    return pairs[: max(1, DRAWN_POINTS // per_pair)]


def _sweep_rows(sweep, pairs: list[tuple[str, str]]) -> list[tuple[int, str, str, int, float, float, str]]:
    """The stored points of the drawn pairs, and every pair's largest size (the GPU-count chart), as
    (variant, collective, algorithm asked, size, busbw, time, algorithm run); one chunk in memory at a time."""
    import numpy as np

    from designer.sweeps import iter_results

    largest = max(sweep.grid["sizes_bytes"])
    cols = ("fabric_index", "collective", "requested", "size_bytes", "busbw_gbyte_s", "time_us", "algorithm")
    rows: list[tuple[int, str, str, int, float, float, str]] = []
    for res in iter_results(sweep):
        mask = res.size_bytes == largest
        for coll, req in pairs:
            mask = mask | ((res.collective == coll) & (res.requested == req))
        rows.extend(zip(*(np.asarray(getattr(res, col))[mask].tolist() for col in cols), strict=True))
    return rows


def _variant_names(sweep) -> tuple[list[str], list[str]]:
    """Each variant's name as asked (64 nodes · 4:1), falling back to the built label; varied keys."""
    from designer.sweeps import variant_label

    labels = list(sweep.fabric_labels)
    if sweep.variants and sweep.variants[0]:
        return [variant_label(v) for v in sweep.variants], list(sweep.variants[0])
    return labels, []


def sweep_charts(sweep, heat_rows: int = 64) -> dict[str, Any]:
    """busbw and time vs message size; busbw vs GPU count; a heatmap over variant × size.

    Every variant is drawn: one line per variant, at most PANEL_SERIES to a panel (small multiples), and
    a selector for the collective · algorithm asked; names show the values as asked."""
    grid = sweep.grid
    names, varied = _variant_names(sweep)
    largest, coll0, req0 = max(grid["sizes_bytes"]), grid["collectives"][0], grid["algorithms"][0]
    pairs = _drawn_pairs(grid)
    rows = sorted(_sweep_rows(sweep, pairs), key=lambda r: (r[0], r[1], r[2], r[3]))
    series: dict[tuple[int, str, str], list[tuple[int, float, float, str]]] = {}
    for fi, coll, req, size, busbw, t, alg in rows:
        if math.isfinite(t) and (coll, req) in pairs:  # an algorithm that cannot run a collective draws nothing
            series.setdefault((fi, coll, req), []).append((size, busbw, t, alg))
    order = sorted(series, key=lambda k: (grid["collectives"].index(k[1]), grid["algorithms"].index(k[2]), k[0]))
    panels = _panel_values(sweep, varied)
    n_pairs = len(grid["collectives"]) * len(grid["algorithms"])
    more = "" if len(pairs) == n_pairs else f" (every variant; {len(pairs)} of {n_pairs} collective · algorithm pairs)"
    out: dict[str, Any] = {}
    for key, title, col, y_title, unit in (
        ("busbw", "Bus bandwidth vs message size (nccl-tests convention)", 1, "busbw [GB/s]", "%{y:.1f} GB/s"),
        ("time", "Time vs message size", 2, "time [µs]", "%{y:.4g} µs"),
    ):
        lines = [
            Line(
                f"{coll} · {req}",
                names[fi] if fi < len(names) else str(fi),
                [p[0] for p in series[(fi, coll, req)]],
                [p[col] for p in series[(fi, coll, req)]],
                [p[3] for p in series[(fi, coll, req)]],
                panels[fi] if fi < len(panels) else "",
            )
            for fi, coll, req in order
        ]
        out[key] = panelled_chart(
            lines,
            title + more,
            ("message size [bytes]", y_title),
            f"%{{x:.3s}}B: {unit} (%{{text}})",
            log=(True, key == "time"),
        )
    gpus = [f["gpus_per_node"] * f["node_count"] for f in grid["fabrics"]]
    if len(set(gpus)) > 1:
        out["gpus"] = _gpus_chart(sweep, rows, gpus, varied, largest)
    coll0, req0 = _most_varied_pair(rows, pairs, largest) or (coll0, req0)
    out["heatmap"] = _heatmap(grid, rows, names, coll0, req0, heat_rows)
    return out


def _gpus_chart(sweep, rows, gpus: list[int], varied: list[str], largest: int) -> dict[str, Any]:
    """busbw vs GPU count at the largest size: one line per (collective, algorithm, other varied values)."""
    from designer.sweeps import variant_label

    others = [k for k in varied if k != "node_count"]
    by: dict[tuple[str, str, str], list[tuple[int, float]]] = {}
    for fi, coll, req, size, busbw, _t, _alg in rows:
        if size == largest and busbw > 0:
            rest = variant_label({k: sweep.variants[fi][k] for k in others}) if others else ""
            by.setdefault((coll, req, rest), []).append((gpus[fi], busbw))
    lines = [
        Line(f"{coll} · {req}", rest or "every variant", [p[0] for p in sorted(pts)], [p[1] for p in sorted(pts)])
        for (coll, req, rest), pts in by.items()
    ]
    return panelled_chart(
        lines, f"busbw vs GPU count at {bytes_label(largest)}", ("GPUs", "busbw [GB/s]"), "%{x:,} GPUs: %{y:.1f} GB/s"
    )


def bytes_label(n: int) -> str:
    """A message size as a reader counts it: 512 MiB (536,870,912 B); a size that is no whole KiB in bytes."""
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift:,} {unit} ({n:,} B)"
    return f"{n:,} B"


def _most_varied_pair(rows, pairs: list[tuple[str, str]], largest: int) -> tuple[str, str] | None:
    """The drawn (collective, algorithm) whose busbw at the largest size differs most between variants (max ÷ min):
    a heatmap whose rows are all alike tells a reader nothing."""
    by: dict[tuple[str, str], list[float]] = {}
    for _fi, coll, req, size, busbw, _t, _alg in rows:
        if size == largest and busbw > 0 and (coll, req) in pairs:
            by.setdefault((coll, req), []).append(busbw)
    spread = {k: max(v) / min(v) for k, v in by.items() if v}
    return max(pairs, key=lambda k: (spread.get(k, 0.0), -pairs.index(k))) if spread else None


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
        title=f"{coll0} ({req0}) busbw over message size × design variant{more}"
        + (
            "<br><sub>the collective · algorithm whose busbw differs most between the variants</sub>"
            if len(_drawn_pairs(grid)) > 1
            else ""
        ),
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
