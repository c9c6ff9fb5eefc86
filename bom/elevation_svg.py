"""Rack elevations as one SVG drawing: a column per rack type, U by U (pure: no Django).

Each column draws one example rack of a type (every rack that looks the same: same kinds of device,
parts, U positions), front view, U1 at the bottom, with how many racks share it and which. Text is
escaped; nothing from the user becomes markup.
"""

from __future__ import annotations

from html import escape

from bom.elevation import Elevations, Rack

U_PX = 14
RACK_W = 250
GAP = 70
TOP = 86
COLORS = {
    "GPU node": "#c8e6c9",
    "switch": "#bbdefb",
    "patch panel": "#e0e0e0",
    "cable manager": "#eceff1",
    "storage server": "#ffe0b2",
    "management server": "#f8bbd0",
    "login node": "#f8bbd0",
    "fabric-management server": "#d1c4e9",
    "fabric-attached device": "#d1c4e9",
    "NVLink switch tray": "#b2dfdb",
    "rack infrastructure": "#fff9c4",
}
MAX_TYPES = 40


def elevations_svg(elev: Elevations) -> str:
    types = elev.rack_types()[:MAX_TYPES]
    tallest = max([1, *(max(r.rack_u, r.used_u) for r, _ in types)])
    width = max(1, len(types)) * (RACK_W + GAP) + GAP
    height = TOP + tallest * U_PX + 90
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        'font-family="system-ui, sans-serif" font-size="10" role="img" aria-label="Rack elevations">',
        f'<rect width="{width}" height="{height}" fill="#fff"/>',
    ]
    for i, (example, members) in enumerate(types):
        parts += _rack(example, members, GAP + i * (RACK_W + GAP), tallest)
    if len(elev.rack_types()) > MAX_TYPES:
        more = len(elev.rack_types()) - MAX_TYPES
        parts.append(f'<text x="{GAP}" y="{height - 10}">{more} more rack types: see the Racks sheet</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _rack(rack: Rack, members: list[Rack], x: int, tallest: int) -> list[str]:
    drawn_u = max(rack.rack_u, rack.used_u)
    base = TOP + tallest * U_PX  # y of the bottom of U1
    names = ", ".join(r.name for r in members[:4]) + (" …" if len(members) > 4 else "")
    over = rack.overflow_u
    out = [
        f'<g class="rack" data-kind="{escape(rack.kind)}">',
        f'<text x="{x}" y="{TOP - 52}" font-size="13" font-weight="600">'
        f"{escape(rack.kind)} rack × {len(members)}</text>",
        f'<text x="{x}" y="{TOP - 36}">{escape(names)}</text>',
        f'<text x="{x}" y="{TOP - 20}" fill="{"#c62828" if over else "#455a64"}">'
        + escape(
            f"{rack.used_u}U of {rack.rack_u}U"
            + (f" — {over}U too many" if over else f", {rack.rack_u - rack.used_u}U free")
        )
        + "</text>",
        f'<rect x="{x}" y="{base - rack.rack_u * U_PX}" width="{RACK_W}" height="{rack.rack_u * U_PX}" '
        f'fill="#fafafa" stroke="{"#c62828" if over else "#37474f"}" stroke-width="2"/>',
    ]
    for u in range(1, drawn_u + 1):
        if u % 5 == 0 or u == 1:
            out.append(f'<text x="{x - 6}" y="{base - (u - 1) * U_PX - 3}" text-anchor="end" fill="#90a4ae">{u}</text>')
    for p in rack.placements:
        if not p.height_u:
            continue
        y = base - p.top_u * U_PX
        h = p.height_u * U_PX
        label = f"{p.device} · {p.sku}" if p.height_u > 1 or p.kind in ("switch", "GPU node") else p.kind
        out.append(
            f'<rect x="{x + 2}" y="{y + 1}" width="{RACK_W - 4}" height="{h - 2}" rx="2" '
            f'fill="{COLORS.get(p.kind, "#eeeeee")}" stroke="#78909c" stroke-width="0.5">'
            f"<title>{escape(f'U{p.u}–U{p.top_u}: {p.device} ({p.kind}, {p.sku})')}</title></rect>"
        )
        out.append(f'<text x="{x + 8}" y="{y + min(h, 2 * U_PX) / 2 + 4}">{escape(label[:44])}</text>')
    pdus = [p for p in rack.placements if not p.height_u]
    if pdus:
        out.append(
            f'<text x="{x}" y="{base + 18}" fill="#455a64">'
            f"{escape(f'{len(pdus)} zero-U PDUs at the rear ({pdus[0].sku})')}</text>"
        )
    out.append("</g>")
    return out
