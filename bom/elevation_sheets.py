"""The rack elevations in the xlsx: a Racks sheet (every rack, every device, its U) and one
drawing sheet per rack type (pure: no Django; xlsxwriter)."""

from __future__ import annotations

from typing import Any

from bom.elevation import Elevations, Rack, elevation_rows

RACKS_HEADERS = ["Row", "Rack", "Rack kind", "U (lowest)", "Height (U)", "Device", "Kind", "Part number"]
MAX_TYPE_SHEETS = 40
KIND_COLORS = {
    "GPU node": "#C8E6C9",
    "switch": "#BBDEFB",
    "patch panel": "#E0E0E0",
    "cable manager": "#ECEFF1",
    "storage server": "#FFE0B2",
    "management server": "#F8BBD0",
    "login node": "#F8BBD0",
}


def racks_sheet(wb, fmt: dict[str, Any], elev: Elevations) -> None:
    ws = wb.add_worksheet("Racks")
    for c, h in enumerate(RACKS_HEADERS):
        ws.write_string(0, c, h, fmt["head"])
    for r, row in enumerate(elevation_rows(elev), start=1):
        for c, v in enumerate(row):
            if isinstance(v, int):
                ws.write_number(r, c, v)
            else:
                ws.write_string(r, c, str(v))
    ws.freeze_panes(1, 0)
    ws.set_column(0, 4, 10)
    ws.set_column(5, 7, 22)


def rack_type_sheets(wb, fmt: dict[str, Any], elev: Elevations) -> None:
    """One sheet per rack look: the drawing of an example rack (top U first) and which racks look so."""
    types = elev.rack_types()
    kinds = {kind: wb.add_format({"bg_color": color, "border": 1}) for kind, color in KIND_COLORS.items()}
    kinds[""] = wb.add_format({"border": 1})  # one format per kind for the whole workbook, reused by every drawing
    for i, (example, members) in enumerate(types[:MAX_TYPE_SHEETS], start=1):
        ws = wb.add_worksheet(f"Rack type {i}")
        names = ", ".join(r.name for r in members[:60]) + (f" … ({len(members)} in all)" if len(members) > 60 else "")
        ws.write_string(0, 0, f"{example.kind} rack × {len(members)}: {names}", fmt["head"])
        ws.write_string(1, 0, _usage(example))
        ws.write_string(3, 0, "U", fmt["head"])
        ws.write_string(3, 1, f"Device (as in {example.name})", fmt["head"])
        ws.write_string(3, 2, "Kind", fmt["head"])
        ws.write_string(3, 3, "Part number", fmt["head"])
        _draw(ws, kinds, example, first_row=4)
        ws.set_column(0, 0, 6)
        ws.set_column(1, 3, 26)
    if len(types) > MAX_TYPE_SHEETS:
        ws = wb.add_worksheet("Rack types (more)")
        ws.write_string(0, 0, f"{len(types) - MAX_TYPE_SHEETS} more rack types: see the Racks sheet", fmt["head"])


def _usage(rack: Rack) -> str:
    zero_u = sum(1 for p in rack.placements if not p.height_u)
    state = f"OVERFLOW by {rack.overflow_u}U" if rack.overflow_u else f"{rack.rack_u - rack.used_u}U free"
    return f"{rack.used_u}U of {rack.rack_u}U used — {state}; {zero_u} zero-U PDUs at the rear"


def _draw(ws, formats: dict[str, Any], rack: Rack, first_row: int) -> None:
    top = max([rack.rack_u, *(p.top_u for p in rack.placements if p.height_u)])
    by_u = {u: p for p in rack.placements if p.height_u for u in range(p.u, p.top_u + 1)}
    for offset, u in enumerate(range(top, 0, -1)):
        row = first_row + offset
        ws.write_number(row, 0, u)
        p = by_u.get(u)
        if p is None:
            continue
        cell = formats.get(p.kind, formats[""])
        label = p.device if u == p.top_u else "〃"
        ws.write_string(row, 1, label, cell)
        ws.write_string(row, 2, p.kind, cell)
        ws.write_string(row, 3, p.sku, cell)
    pdus = [p for p in rack.placements if not p.height_u]
    if pdus:
        row = first_row + top + 1
        ws.write_string(row, 0, "0U")
        ws.write_string(row, 1, ", ".join(p.device for p in pdus))
        ws.write_string(row, 2, "PDU (rear, vertical)")
        ws.write_string(row, 3, pdus[0].sku)
