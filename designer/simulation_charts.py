"""Plotly figures of simulation runs, from their stored result JSON: node use and queue over time, the
wait CDF of every class, placement locality, the partition split's effect, the capacity curve with the
TCO of each size, and several runs compared."""

from __future__ import annotations

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
    """p95 wait of the target class and utilization vs size, the target line, TCO in the hover and a 3rd trace."""
    t = result["inputs"]["target"]
    rows = [r for r in result["rows"] if "report" in r]
    sizes = [r["size"] for r in rows]
    waits = []
    for r in rows:
        c = next(c for c in r["report"]["classes"] if c["name"] == t["job_class"])
        waits.append(c["wait_h_p95"] or 0)
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_trace(
        go.Scatter(
            x=sizes,
            y=waits,
            name=f"{t['job_class']} p95 wait",
            mode="lines+markers",
            line={"color": PALETTE[0]},
            marker={"symbol": ["star" if r["size"] == result["answer_size"] else "circle" for r in rows], "size": 12},
            customdata=[[float(r["tco_usd"]) / 1e6, float(r["cost_per_gpu_hour_usd"])] for r in rows],
            hovertemplate="%{x:,} GPUs: p95 %{y:,.1f} h; TCO $%{customdata[0]:,.1f} M, $%{customdata[1]:.3f}/GPU-h"
            "<extra></extra>",
        ),
        secondary_y=False,
    )
    fig.add_trace(
        go.Scatter(
            x=sizes,
            y=[100 * r["report"]["utilization_frac"] for r in rows],
            name="utilization",
            mode="lines+markers",
            line={"color": PALETTE[1], "dash": "dash"},
        ),
        secondary_y=True,
    )
    fig.add_trace(
        go.Bar(
            x=sizes,
            y=[float(r["tco_usd"]) / 1e6 for r in rows],
            name="5-year TCO [$M]",
            marker_color="rgba(179,92,0,0.18)",
            yaxis="y3",
            width=[0.35 * _step(sizes)] * len(sizes),
            text=[
                f"TCO ${float(r['tco_usd']) / 1e6:,.1f} M<br>${float(r['cost_per_gpu_hour_usd']):.3f}/GPU-h"
                for r in rows
            ],
            textposition="inside",
            insidetextanchor="start",
            textfont={"color": "#6b3a00"},
        )
    )
    fig.add_hline(
        y=t["p95_wait_h"],
        line_dash="dot",
        line_color=PALETTE[4],
        annotation_text=f"target ≤ {t['p95_wait_h']:g} h",
        secondary_y=False,
    )
    fig.update_layout(
        title=f"Capacity: {t['job_class']} p95 wait and utilization vs size (★ the answer)",
        height=460,
        margin=MARGIN,
        legend={"orientation": "h", "y": -0.2},
        barmode="overlay",
        yaxis3={"overlaying": "y", "side": "right", "showgrid": False, "visible": False},
    )
    fig.update_xaxes(title_text="GPUs in the design")
    fig.update_yaxes(title_text="p95 wait [h]", secondary_y=False, rangemode="tozero")
    fig.update_yaxes(title_text="utilization [%]", secondary_y=True, range=[0, 100], dtick=20, showgrid=False)
    return {"capacity": _fig(fig)}


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
