"""The hall as one SVG plan view: every row where the floor plan stands it, its racks by role (pure: no Django).

Drawn from the stored hall (bom/layout.py :func:`~bom.layout.hall_map`, kept in the result's racks): x along the
rows, y from the front of the hall back, to scale, with a 10 m scale bar, the legend and the hall's derivation.
A row is drawn as one bar per role, a rack wide per rack; hover a bar for its row, role and rack count. Text is
escaped; nothing from the user becomes markup.
"""

from __future__ import annotations

import textwrap
from html import escape
from typing import Any

COLORS = {
    "compute": "#c8e6c9",
    "network: leaves and ToRs": "#bbdefb",
    "network: spine and core": "#64b5f6",
    "storage and management": "#ffe0b2",
}
MARGIN_PX = 48
TOP_PX = 96
MAX_WIDTH_PX = 1100
MAX_PX_PER_M = 40.0
RACK_DEPTH_M = 1.2  # a rack's footprint front to back (the drawing's bar height, at most half the row pitch)


def _extent_m(hall: dict[str, Any]) -> tuple[float, float]:
    width = max((r["x_m"] + sum(n for _, n in r["racks"]) * hall["rack_width_m"] for r in hall["rows"]), default=1.0)
    depth = max((r["y_m"] for r in hall["rows"]), default=0.0) + hall["row_pitch_m"]
    return max(width, 1.0), depth


def hall_svg(hall: dict[str, Any] | None) -> str:
    """The plan view of ``hall`` (a result's ``power.racks.hall``); "" when the result has none (saved before)."""
    if not hall or not hall.get("rows"):
        return ""
    width_m, depth_m = _extent_m(hall)
    scale = min(MAX_PX_PER_M, (MAX_WIDTH_PX - 2 * MARGIN_PX) / width_m)
    notes = textwrap.wrap(str(hall.get("derivation", "")), 150)
    width = int(2 * MARGIN_PX + width_m * scale)
    width = max(width, 640)
    height = int(TOP_PX + depth_m * scale + 60 + 14 * len(notes))
    racks = sum(n for r in hall["rows"] for _, n in r["racks"])
    halls = f"{hall['halls']} halls" if hall.get("halls", 1) > 1 else "one hall"
    title = f"Hall plan: {racks:,} racks in {len(hall['rows']):,} rows, {halls}"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'font-family="system-ui, sans-serif" font-size="10" role="img" aria-label="{escape(title)}">',
        f'<rect width="{width}" height="{height}" fill="#fff"/>',
        f'<text x="{MARGIN_PX}" y="22" font-size="14" font-weight="600">{escape(title)}</text>',
        f'<text x="{MARGIN_PX}" y="40" fill="#455a64">'
        + escape(f"{width_m:,.1f} m × {depth_m:,.1f} m to scale; every run past {hall['max_run_m']:g} m fails a check")
        + "</text>",
    ]
    out += _legend(MARGIN_PX, 58)
    out += _scale_bar(MARGIN_PX, TOP_PX - 12, scale)
    bar_m = min(RACK_DEPTH_M, hall["row_pitch_m"] / 2)
    for row in hall["rows"]:
        out += _row(row, hall["rack_width_m"], bar_m, scale)
    y = TOP_PX + depth_m * scale + 30
    for i, line in enumerate(notes):
        out.append(f'<text x="{MARGIN_PX}" y="{y + 14 * i:.0f}" fill="#455a64">{escape(line)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def _row(row: dict[str, Any], rack_w_m: float, bar_m: float, scale: float) -> list[str]:
    x = MARGIN_PX + row["x_m"] * scale
    y = TOP_PX + row["y_m"] * scale
    out = [f'<g class="row" data-row="{escape(str(row["name"]))}">']
    if scale * bar_m >= 8:
        out.append(f'<text x="{x - 3:.1f}" y="{y + bar_m * scale * 0.75:.1f}" text-anchor="end" font-size="8" '
                   f'fill="#607d8b">{escape(str(row["name"]))}</text>')  # fmt: skip
    for role, n in row["racks"]:
        w = n * rack_w_m * scale
        tip = f"row {row['name']}: {n} {role} rack{'s' if n != 1 else ''}"
        out.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{bar_m * scale:.1f}" '
            f'fill="{COLORS.get(role, "#eeeeee")}" stroke="#546e7a" stroke-width="0.5">'
            f"<title>{escape(tip)}</title></rect>"
        )
        x += w
    out.append("</g>")
    return out


def _legend(x: float, y: float) -> list[str]:
    out = []
    for role, color in COLORS.items():
        out.append(f'<rect x="{x:.0f}" y="{y - 9:.0f}" width="12" height="10" fill="{color}" stroke="#546e7a"/>')
        out.append(f'<text x="{x + 16:.0f}" y="{y:.0f}">{escape(role)}</text>')
        x += 26 + 6 * len(role)
    return out


def _scale_bar(x: float, y: float, scale: float) -> list[str]:
    w = 10 * scale
    return [
        f'<line x1="{x:.0f}" y1="{y:.0f}" x2="{x + w:.1f}" y2="{y:.0f}" stroke="#263238" stroke-width="2"/>',
        f'<text x="{x + w + 6:.1f}" y="{y + 4:.0f}">10 m</text>',
    ]
