"""Plotly figures of simulation runs, from their stored result JSON: node use and queue over time, the
wait CDF of every class, placement locality, the partition split's effect, the capacity curve with the
TCO of each size, and several runs compared."""

from __future__ import annotations

import html
import itertools
from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

PALETTE = ("#2457c5", "#0f8a6a", "#b35c00", "#7a3db8", "#b8325a", "#5a7a00", "#00798c", "#6b4f2a")
MARGIN = {"l": 70, "r": 70, "t": 60, "b": 50}


def _fig(fig: go.Figure) -> dict[str, Any]:
    return fig.to_plotly_json()


def timeline_chart(result: dict[str, Any]) -> dict[str, Any] | None:
    tl = result.get("timeline")
    if not tl:
        return None
    nodes = result["inputs"]["nodes"]
    days = [(i + 0.5) * tl["bin_h"] / 24 for i in range(len(tl["busy_nodes"]))]
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    for key, name, color in (
        ("busy_nodes", "training (busy)", PALETTE[0]),
        ("inference_nodes", "inference (tidal)", PALETTE[2]),
        ("down_nodes", "in repair", PALETTE[4]),
    ):
        ys = [100 * v / nodes for v in tl[key]]
        if key != "busy_nodes" and not any(ys):
            continue
        fig.add_trace(
            go.Scatter(
                x=days,
                y=ys,
                name=name,
                stackgroup="nodes",
                line={"color": color},
                hovertemplate="day %{x:.1f}: %{y:.1f} % of the nodes<extra></extra>",
            ),
            secondary_y=False,
        )
    fig.add_trace(
        go.Scatter(
            x=days,
            y=tl["queued_jobs"],
            name="jobs waiting",
            line={"color": "#222", "dash": "dot"},
            hovertemplate="day %{x:.1f}: %{y:.1f} jobs waiting<extra></extra>",
        ),
        secondary_y=True,
    )
    fig.update_layout(
        title=f"Node use and queue over time ({tl['bin_h']:.3g}-hour averages, {nodes:,} nodes)",
        height=420,
        margin=MARGIN,
        legend={"orientation": "h", "y": -0.2},
    )
    fig.update_xaxes(title_text="day")
    fig.update_yaxes(title_text="% of the batch nodes", range=[0, 100], secondary_y=False)
    fig.update_yaxes(title_text="jobs waiting (mean)", secondary_y=True, rangemode="tozero")
    return _fig(fig)


def cdf_chart(result: dict[str, Any], title: str = "Queue wait distribution per class") -> dict[str, Any]:
    fig = go.Figure()
    for i, c in enumerate(result.get("wait_cdf", [])):
        if not c["wait_h"]:
            continue
        fig.add_trace(
            go.Scatter(
                x=c["wait_h"],
                y=c["percentiles"],
                name=f"{c['name']} ({c['jobs']:,} started)",
                line={"color": PALETTE[i % len(PALETTE)], "shape": "hv"},
                hovertemplate="%{y}% waited ≤ %{x:,.1f} h<extra></extra>",
            )
        )
    fig.update_layout(
        title=title,
        xaxis_title="wait from submit to first start [h]",
        yaxis_title="% of the class's started jobs",
        height=420,
        margin=MARGIN,
        legend={"orientation": "h", "y": -0.2},
    )
    return _fig(fig)


def locality_chart(result: dict[str, Any]) -> dict[str, Any] | None:
    rows = [c for c in result["classes"] if c.get("one_group_frac") is not None]
    per_node = result["inputs"]["gpus"] // max(1, result["inputs"]["nodes"])
    if not rows or not result["inputs"].get("leaf_group_nodes"):
        return None
    fig = go.Figure(
        go.Bar(
            x=[c["name"] for c in rows],
            y=[100 * c["one_group_frac"] for c in rows],
            marker_color=PALETTE[1],
            hovertemplate="%{x}: %{y:.0f} % of its multi-node jobs inside one leaf group<extra></extra>",
        )
    )
    fig.update_layout(
        title=f"Placement locality: multi-node jobs inside one leaf group of {result['inputs']['leaf_group_nodes']} "
        f"nodes<br><sub>a job larger than a group ({result['inputs']['leaf_group_nodes'] * per_node:,} GPUs) always "
        "spans groups</sub>",
        yaxis={"title": "% of the class's multi-node jobs", "range": [0, 100]},
        height=360,
        margin=MARGIN,
    )
    return _fig(fig)


def split_chart(result: dict[str, Any]) -> dict[str, Any] | None:
    s = result.get("split")
    if not s:
        return None
    names = [r["name"] for r in s["classes"]]
    fig = go.Figure()
    for key, label, color in (
        ("split_wait_h_p95", f"batch partition ({s['batch_nodes']:,} nodes)", PALETTE[0]),
        ("pooled_wait_h_p95", f"every node pooled ({s['design_nodes']:,})", PALETTE[1]),
    ):
        fig.add_trace(go.Bar(name=label, x=names, y=[r[key] or 0 for r in s["classes"]], marker_color=color))
    fig.update_layout(
        title="The partition split's effect: p95 wait per class",
        barmode="group",
        yaxis_title="p95 wait [h]",
        height=360,
        margin=MARGIN,
    )
    return _fig(fig)


def simulation_charts(result: dict[str, Any]) -> dict[str, Any]:
    return {
        "timeline": timeline_chart(result),
        "cdf": cdf_chart(result),
        "locality": locality_chart(result),
        "split": split_chart(result),
    }


def capacity_charts(result: dict[str, Any]) -> dict[str, Any]:
    """Two panels on one size axis. Top: the target class's p95 wait (left axis) and utilization (right
    axis), the target as a dotted line and the answer as a ★ marker of its own. Bottom: the 5-year TCO of
    each size as bars on their own labelled axis. Every name is in the legend or a title, none on a curve."""
    t = result["inputs"]["target"]
    rows = [r for r in result["rows"] if "report" in r]
    sizes = [r["size"] for r in rows]
    waits = [_class_p95(r, t["job_class"]) for r in rows]
    # waits far above the target squash the target's neighbourhood: a log axis, a zero drawn at its floor
    log = max(waits, default=0) > 20 * t["p95_wait_h"] > 0
    floor = t["p95_wait_h"] / 100
    drawn = [max(w, floor) for w in waits] if log else waits
    tco_m = [float(r["tco_usd"]) / 1e6 for r in rows]
    per_h = [float(r["cost_per_gpu_hour_usd"]) for r in rows]
    answer = result.get("answer_size")
    job = html.escape(t["job_class"])  # a class name is the user's: plotly reads <b>, <a> in text
    fig = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        row_heights=[0.64, 0.36],
        vertical_spacing=0.08,
        specs=[[{"secondary_y": True}], [{"secondary_y": False}]],
    )
    fig.add_trace(
        go.Scatter(
            x=sizes,
            y=drawn,
            name=f"{job} p95 wait",
            mode="lines+markers",
            line={"color": PALETTE[0]},
            marker={"size": 8},
            customdata=[[m, h, w] for m, h, w in zip(tco_m, per_h, waits, strict=True)],
            hovertemplate="%{x:,} GPUs: p95 %{customdata[2]:,.1f} h; "
            "TCO $%{customdata[0]:,.1f} M, $%{customdata[1]:.3f}/GPU-h<extra></extra>",
        ),
        row=1,
        col=1,
        secondary_y=False,
    )
    fig.add_trace(
        go.Scatter(
            x=sizes,
            y=[100 * r["report"]["utilization_frac"] for r in rows],
            name="utilization (right axis)",
            mode="lines+markers",
            line={"color": PALETTE[1], "dash": "dash"},
            hovertemplate="%{x:,} GPUs: %{y:.1f} % utilized<extra></extra>",
        ),
        row=1,
        col=1,
        secondary_y=True,
    )
    span = [min(sizes), max(sizes)] if sizes else [0, 1]
    fig.add_trace(
        go.Scatter(
            x=span,
            y=[t["p95_wait_h"]] * 2,
            name=f"target: p95 ≤ {t['p95_wait_h']:g} h",
            mode="lines",
            line={"color": PALETTE[4], "dash": "dot"},
            hoverinfo="skip",
        ),
        row=1,
        col=1,
        secondary_y=False,
    )
    if answer in sizes:
        _answer_star(fig, answer, drawn[sizes.index(answer)], waits[sizes.index(answer)])
    _tco_bars(fig, sizes, tco_m, per_h, answer)
    star = " (★ the answer)" if answer in sizes else " (no size meets the target)"
    fig.update_layout(
        title=f"Capacity: {job} p95 wait, utilization and TCO vs size{star}",
        height=560,
        margin=MARGIN,
        legend={"orientation": "h", "y": -0.14},
        bargap=0.3,
    )
    _capacity_axes(fig, log, floor, max(tco_m, default=1), [*drawn, t["p95_wait_h"]])
    fig.update_xaxes(tickvals=sizes)  # the candidate sizes, not round numbers between them
    return {"capacity": _fig(fig)}


def _answer_star(fig: go.Figure, answer: int, drawn: float, wait: float) -> None:
    """The answer as a ★ marker trace of its own, above the wait curve, named in the legend."""
    fig.add_trace(
        go.Scatter(
            x=[answer],
            y=[drawn],
            name=f"★ the answer: {answer:,} GPUs",
            mode="markers",
            marker={"symbol": "star", "size": 20, "color": "#f2b400", "line": {"color": "#6b4f00", "width": 1}},
            hovertemplate=f"the answer: {answer:,} GPUs, p95 {wait:,.1f} h<extra></extra>",
        ),
        row=1,
        col=1,
        secondary_y=False,
    )


def _tco_bars(fig: go.Figure, sizes: list[int], tco_m: list[float], per_h: list[float], answer: int | None) -> None:
    """The 5-year TCO of each size in the lower panel, level labels above the bars up to ten of them."""
    fig.add_trace(
        go.Bar(
            x=sizes,
            y=tco_m,
            name="5-year TCO",
            marker_color=[PALETTE[2] if s == answer else "rgba(179,92,0,0.35)" for s in sizes],
            width=[0.5 * _step(sizes)] * len(sizes),
            customdata=per_h,
            text=[f"${m:,.1f} M" for m in tco_m] if len(sizes) <= 10 else None,
            textposition="outside",
            textangle=0,
            cliponaxis=False,
            hovertemplate="%{x:,} GPUs: TCO $%{y:,.1f} M, $%{customdata:.3f}/GPU-h<extra></extra>",
        ),
        row=2,
        col=1,
    )


def _capacity_axes(fig: go.Figure, log: bool, floor: float, tco_top: float, waits_h: list[float]) -> None:
    """``waits_h``: the wait values drawn on the top panel's left axis (the target's line among them); a log axis
    is ticked by designer.charts.log_ticks, each step labelled in full ("5,000", not plotly's bare "5")."""
    from designer.charts import log_ticks

    fig.update_xaxes(title_text="GPUs in the design", tickformat=",", row=2, col=1)
    if log:
        fig.update_yaxes(title_text=f"p95 wait [h, log; 0 at {floor:g}]", type="log", **log_ticks(waits_h),
                         row=1, col=1, secondary_y=False)  # fmt: skip
    else:
        fig.update_yaxes(title_text="p95 wait [h]", rangemode="tozero", row=1, col=1, secondary_y=False)
    fig.update_yaxes(
        title_text="utilization [%]", range=[0, 100], dtick=20, showgrid=False, row=1, col=1, secondary_y=True
    )
    fig.update_yaxes(title_text="5-year TCO [$M]", rangemode="tozero", range=[0, 1.2 * tco_top],
                     row=2, col=1)  # fmt: skip


def _class_p95(row: dict[str, Any], job_class: str) -> float:
    c = next(c for c in row["report"]["classes"] if c["name"] == job_class)
    return c["wait_h_p95"] or 0


def _step(sizes: list[int]) -> float:
    """The smallest gap between candidate sizes (a bar's width is a share of it)."""
    gaps = [b - a for a, b in itertools.pairwise(sizes) if b > a]
    return float(min(gaps)) if gaps else max(1.0, sizes[0] * 0.2 if sizes else 1.0)


def run_label(run) -> str:
    rev = f" r{run.revision.number}" if run.revision else ""
    design = run.design.head.name if run.design else "(deleted design)"
    return f"#{run.pk} {design}{rev}"


def compare_simulation_charts(runs: list) -> dict[str, Any]:
    """p95 wait per class, one bar group per class and a bar per run; every run's wait CDFs overlaid."""
    bars, cdf = go.Figure(), go.Figure()
    for i, run in enumerate(runs):
        res, label, color = run.result, run_label(run), PALETTE[i % len(PALETTE)]
        bars.add_trace(
            go.Bar(
                name=label,
                x=[c["name"] for c in res["classes"]],
                y=[c["wait_h_p95"] or 0 for c in res["classes"]],
                marker_color=color,
            )
        )
        for k, c in enumerate(res.get("wait_cdf", [])):
            if c["wait_h"]:
                cdf.add_trace(
                    go.Scatter(
                        x=c["wait_h"],
                        y=c["percentiles"],
                        name=f"{label} · {c['name']}",
                        line={"color": color, "dash": ("solid", "dash", "dot", "dashdot")[k % 4], "shape": "hv"},
                    )
                )
    bars.update_layout(
        title="p95 queue wait per class", barmode="group", yaxis_title="p95 wait [h]", height=380, margin=MARGIN
    )
    cdf.update_layout(
        title="Wait distributions (line style = class, colour = run)",
        height=460,
        margin=MARGIN,
        xaxis_title="wait [h]",
        yaxis_title="% of started jobs",
        legend={"orientation": "h", "y": -0.25},
    )
    return {"compare_waits": _fig(bars), "compare_cdf": _fig(cdf)}
