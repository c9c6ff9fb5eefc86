"""Plotly figures of a finished design search (the house style of designer/charts.py): every feasible candidate
faint, the Pareto front drawn over it; each point carries its candidate index (customdata) so a click selects it
(static/designer/search.js)."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

FAMILY_LABELS = {
    "rail_optimized": "Rail-optimized",
    "fat_tree": "Fat-tree",
    "dragonfly_plus": "Dragonfly+",
    "torus_3d": "3D torus",
}


def _scatter(pts: list[list[Any]], y: int, name: str, front: bool, kw_range: tuple[float, float]) -> go.Scatter:
    """pts rows: [index, CapEx $, bisection TB/s, facility kW, all-reduce µs]; y: the column on the y axis.
    ``kw_range``: the colour scale's ends, every feasible candidate's facility kW, the same on both charts (a scale
    over the front's points alone spans a few kW, or none, and gives one power two colours)."""
    return go.Scatter(
        x=[p[1] / 1e6 for p in pts],
        y=[p[y] for p in pts],
        customdata=[[p[0], p[3]] for p in pts],
        mode="markers+lines" if front else "markers",
        name=name,
        marker={
            "size": 11 if front else 6,
            "color": [p[3] for p in pts],
            "colorscale": "Viridis",
            "cmin": kw_range[0],
            "cmax": kw_range[1],
            "showscale": front,
            "colorbar": {"title": "facility kW", "tickformat": ",.0f"},
            # the candidates off the front: smaller and lighter, outlined so a pale (high-kW) one still shows
            "line": {"width": 1.5 if front else 1, "color": "#222" if front else "#8a93a6"},
            "opacity": 1.0 if front else 0.6,
        },
        line={"color": "#444", "width": 1, "dash": "dot"},
        hovertemplate="candidate %{customdata[0]}<br>CapEx $%{x:,.2f}M<br>%{y:,.4g}<br>%{customdata[1]:,.0f} kW"
        "<extra></extra>",
    )


def _front_figure(points: list[list[Any]], front: list[int], y: int, title: str, ytitle: str) -> dict[str, Any]:
    on = set(front)
    shown = [p for p in points if p[y] is not None]
    pts_front = sorted((p for p in shown if p[0] in on), key=lambda p: p[1])
    kws = [float(p[3]) for p in points if p[3] is not None]
    lo, hi = (min(kws), max(kws)) if kws else (0.0, 1.0)
    kw_range = (lo, hi) if hi > lo else (lo - 1.0, hi + 1.0)
    fig = go.Figure()
    fig.add_trace(_scatter([p for p in shown if p[0] not in on], y, "feasible candidates", False, kw_range))
    fig.add_trace(_scatter(pts_front, y, "Pareto front", True, kw_range))
    fig.update_layout(
        title=title,
        xaxis={"title": "CapEx [$M]"},
        yaxis={"title": ytitle, **({"type": "log"} if y == 4 else {})},
        height=520,
        clickmode="event",
        legend={"orientation": "h", "y": -0.2},
    )
    return fig.to_plotly_json()


def search_charts(report: dict[str, Any]) -> dict[str, Any]:
    """The two fronts of the issue: cost vs bisection (colour: facility kW) and cost vs all-reduce time."""
    points = report.get("points") or []
    if not points:
        return {}
    from designer.charts import bytes_label

    size = report["spec"]["allreduce_bytes"]
    return {
        "front": _front_figure(
            points,
            report["fronts"]["cost_bisection_power"],
            2,
            "CapEx vs bisection (colour: facility kW); front over CapEx, bisection and power",
            "bisection [TB/s]",
        ),
        "allreduce": _front_figure(
            points,
            report["fronts"]["cost_allreduce"],
            4,
            f"CapEx vs all-reduce time at {bytes_label(int(size))} (collective model)",
            "all-reduce time [µs]",
        ),
    }
