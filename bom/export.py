"""Spreadsheets procurement can use: xlsx with live formulas, and csv (pure: no Django).

One row iterator (:func:`bom_rows`) feeds every format. In xlsx the extended price is a
formula (quantity × unit price), subtotals and the grand total are formulas too, each
written with its computed value so readers that do not recalculate still see numbers;
editing a price in the sheet re-totals it. Text that came from a user is always written
as a string — never as a formula — and in csv a leading = + - @ is neutralised.
"""

from __future__ import annotations

import csv
import io
import tempfile
import textwrap
from collections.abc import Iterable, Iterator
from decimal import Decimal
from typing import Any

from bom.cells import safe_text
from bom.links import Link

# the columns a purchase order is cut from: the maker and the maker's orderable part number (mfr_part_number, ""
# where the catalog gives none), and the catalog's own part number (sku), which quotes and price books name
BOM_COLUMNS = (
    "line_id",
    "plane",
    "category",
    "manufacturer",
    "mfr_part_number",
    "sku",
    "description",
    "quantity",
    "unit_of_measure",
    "currency",
    "list_price_usd",
    "discount_pct",
    "unit_price_usd",
    "extended_price_usd",
    "spare",
    "price_source",
    "price_date",
    "price_is_assumption",
    "lead_time_weeks",
    "quote_reference",
    "derivation",
)
# a line stored before these columns existed: what it implies (list = net, no discount, one each)
_LINE_DEFAULTS = {
    "line_id": "",
    "manufacturer": "",
    "mfr_part_number": "",
    "unit_of_measure": "each",
    "currency": "USD",
    "discount_pct": "0.00",
    "price_date": "",
    "lead_time_weeks": None,
    "quote_reference": "",
}
CABLING_COLUMNS = (
    "label",
    "plane",
    "segment",
    "a_row",
    "a_rack",
    "a_u",
    "a_device",
    "a_port",
    "a_module",
    "z_row",
    "z_rack",
    "z_u",
    "z_device",
    "z_port",
    "z_module",
    "speed_gbps",
    "length_m",
    "cable",
)
PLANE_TITLES = {
    "compute": "Compute",
    "storage": "Storage",
    "management": "Management",
    "infrastructure": "Infrastructure",
}


class Formula(str):
    """A cell formula the program wrote (never user text); only these become xlsx formulas.

    ``value`` is the result written with it, so readers that do not recalculate (previewers,
    pandas, openpyxl ``data_only``) see the figure, not 0. ``{NETWORK}`` in the text is replaced
    by a reference to the workbook's network subtotals (so editing a price flows into the TCO)."""

    value: Any = None

    def __new__(cls, text: str, value: Any = None):
        obj = super().__new__(cls, text)
        obj.value = value
        return obj


def bom_rows(bom: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for line in bom["lines"]:
        yield {k: _field(line, k) for k in BOM_COLUMNS}


def _field(line: dict[str, Any], key: str) -> Any:
    if key in line:
        return line[key]
    if key == "list_price_usd":
        return line["unit_price_usd"]
    return _LINE_DEFAULTS[key]


def failing_checks(bom: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in bom.get("checks", []) if not c["ok"]]


def _failing(checks: list[dict[str, Any]] | None, bom: dict[str, Any]) -> list[dict[str, Any]]:
    """The failing entries of the design's one list (cluster.pipeline.ClusterPlan.checks) when the caller gives
    it, else the BOM's own checks (a BOM on its own)."""
    return failing_checks(bom) if checks is None else [c for c in checks if not c["ok"]]


def _where(check: dict[str, Any]) -> str:
    return f"{check['section']}: {check['field']}" if check.get("section") else str(check["field"])


def checks_text(checks: list[dict[str, Any]]) -> str:
    """The one list as plain text (the NetBox and Slurm zips' README): the count line, then every check."""
    bad = sum(not c["ok"] for c in checks)
    head = f"{bad} check(s) fail of {len(checks)}" + (": review them before building from these files" if bad else "")
    lines = [head]
    for c in checks:
        mark = "FAIL" if not c["ok"] else "info" if c.get("info") else "ok"
        lines.append(f"  [{mark}] {c.get('section', '')} · {c.get('name', c['field'])} ({c['field']}): {c['message']}")
    return "\n".join(lines) + "\n"


def bom_csv(bom: dict[str, Any], checks: list[dict[str, Any]] | None = None) -> str:
    """The BOM as csv; failing checks come first, as comment lines a reader cannot miss (their count first), and a
    BOM whose checks pass starts with its header. ``checks``: the design's one list (every section's); without it,
    the BOM's own."""
    buf = io.StringIO()
    failing = _failing(checks, bom)
    if checks is not None and failing:  # a green BOM starts with its header row, as every csv reader expects
        buf.write(f"# {len(failing)} check(s) fail of {len(checks)}\n")
    for check in failing:
        buf.write(f"# CHECK FAILED ({_where(check)}): {safe_text(check['message'])}\n")
    w = csv.writer(buf)
    w.writerow(BOM_COLUMNS)
    for row in bom_rows(bom):
        w.writerow([safe_text(row[c]) for c in BOM_COLUMNS])
    total = [""] * len(BOM_COLUMNS)
    total[0], total[BOM_COLUMNS.index("extended_price_usd")] = "total", bom["total_usd"]
    w.writerow(total)
    return buf.getvalue()


SWITCH_ROLES = (
    "compute_switch",
    "compute_spine_switch",
    "compute_core_switch",
    "storage_switch",
    "mgmt_tor",
    "mgmt_spine",
)


def cabling_rows(
    links: Iterable[Link], parts_of=None, *, parts: list | None = None, positions: dict | None = None
) -> list[dict[str, Any]]:
    """The cut sheet: one row per cable, A-end ↔ Z-end, with the cable and each end's module.

    ``parts_of(link)`` is the BOM's own chooser (bom.media.PartChooser.parts), so the cut sheet
    names the parts the BOM buys. Switch ports are numbered so the ports a twin-port module
    serves share its cage (osfp1/1–osfp1/2 = cage 1); a module's SKU is written once, on the first
    port of its cage, so summing the sheet per SKU gives the BOM quantity. (388,512 rows at 102,400 GPUs: each
    end's port and module are kept in lists by link, and the per-part and per-port work is memoised.)"""
    links = list(links)
    parts = parts if parts is not None else [parts_of(link) for link in links]
    where = positions or {}
    a_ports, z_ports = _switch_ports(links, parts)
    a_modules, z_modules = _module_cells(links, parts, a_ports, z_ports)
    prefix = {"compute": "C", "storage": "S", "management": "M"}
    nowhere = ("", "", "")
    media: dict[int, str] = {}
    rows = []
    append = rows.append
    for i, (link, p, a_port, z_port, a_module, z_module) in enumerate(
        zip(links, parts, a_ports, z_ports, a_modules, z_modules, strict=True)
    ):
        a_row, a_rack, a_u = where.get(link.a_device) or nowhere
        z_row, z_rack, z_u = where.get(link.z_device) or nowhere
        cable = p.cable
        cable_media = media.get(id(cable))
        if cable_media is None:
            cable_media = media[id(cable)] = str(cable.media)
        append(
            {
                "label": f"{prefix.get(link.plane, 'X')}-{i + 1:06d}",
                "plane": link.plane,
                "segment": link.segment,
                "a_row": a_row,
                "a_rack": a_rack,
                "a_u": a_u,
                "a_device": link.a_device,
                "a_port": a_port if a_port is not None else link.a_port,
                "a_module": a_module,
                "z_row": z_row,
                "z_rack": z_rack,
                "z_u": z_u,
                "z_device": link.z_device,
                "z_port": z_port if z_port is not None else link.z_port,
                "z_module": z_module,
                "speed_gbps": link.speed_gbps,
                "length_m": link.length_m,
                "cable": cable.sku,
                "cable_media": cable_media,
            }
        )
    return rows


def _switch_ports(links: list[Link], parts: list) -> tuple[list[str | None], list[str | None]]:
    """Per switch, its ports by the part that fills their cage (a module, or a copper/AOC cable's end), each part's
    ports consecutive from a fresh cage, twin-port modules first: a cage's ports are never split between two
    parts. A switch with twin-port modules names its ports by cage and port ("osfp12/2": cage 12, second port);
    others "p7". Returned by link, for the A and the Z end: None where that end is not a switch's."""
    by_device: dict[str, list[tuple[int, str, int, int, int, str]]] = {}
    fills: dict[tuple[int, int], tuple[int, str, int, str]] = {}  # (module, cable) ids → what fills the cage

    def fill(module, cable) -> tuple[int, str, int, str]:
        key = (id(module), id(cable))
        found = fills.get(key)
        if found is None:
            ppm = max(module.ports_per_module, 1) if module is not None else 1
            form = (module.form_factor or "cage").lower() if module is not None else ""
            found = fills[key] = (0 if ppm > 1 else 1, (module or cable).sku, ppm, form)
        return found

    for i, (link, p) in enumerate(zip(links, parts, strict=True)):
        if link.a_role in SWITCH_ROLES:
            first, filler, ppm, form = fill(p.a_module, p.cable)
            by_device.setdefault(link.a_device, []).append((first, filler, i, 0, ppm, form))
        if link.z_role in SWITCH_ROLES:
            first, filler, ppm, form = fill(p.z_module, p.cable)
            by_device.setdefault(link.z_device, []).append((first, filler, i, 1, ppm, form))
    out: tuple[list[str | None], list[str | None]] = ([None] * len(links), [None] * len(links))
    names: dict[tuple[str, int, int], str] = {}
    for ends in by_device.values():
        ends.sort(key=lambda e: (e[0], e[1], e[2]))  # twin-port first, by filler, by link (A before Z: stable)
        width = max(e[4] for e in ends)  # the cage's ports: a twin-port module says the cages are twin
        form = next((e[5] for e in ends if e[4] == width and e[5]), "cage")
        port, last = 0, None
        for _, filler, i, end, _ppm, _ in ends:
            if filler != last and port % width:
                port += width - port % width  # another part starts in a fresh cage
            last = filler
            name = names.get((form, width, port))
            if name is None:
                name = f"{form}{port // width + 1}/{port % width + 1}" if width > 1 else f"p{port + 1}"
                names[(form, width, port)] = name
            out[end][i] = name
            port += 1
    return out


def _cage_of(port: str, ppm: int, at_switch: bool) -> int:
    """The cage of a port: "osfp12/2" → 11 (from 0); "p7" → (7 − 1) ÷ ppm; a NIC's "ib5" → 5 ÷ ppm."""
    if "/" in port:
        return int("".join(ch for ch in port.split("/")[0] if ch.isdigit()) or 1) - 1
    index = int("".join(ch for ch in port if ch.isdigit()) or 0)
    return (index - 1) // ppm if at_switch else index // ppm


def _module_cells(
    links: list[Link], parts: list, a_ports: list[str | None], z_ports: list[str | None]
) -> tuple[list[str], list[str]]:
    """The module SKU on the first port of each cage; "(shared)" on the other ports a module serves ("" where the
    end has no module); by link, for the A and the Z end."""
    seen: set[tuple[str, str, int]] = set()
    a_out, z_out = [""] * len(links), [""] * len(links)
    cages: dict[tuple[str, int, bool], int] = {}  # _cage_of, memoised: a few hundred port names in all

    def cell(device: str, role: str, module, port: str) -> str:
        ppm = max(module.ports_per_module, 1)
        if ppm == 1:
            return module.sku
        at = role in SWITCH_ROLES
        cage = cages.get((port, ppm, at))
        if cage is None:
            cage = cages[(port, ppm, at)] = _cage_of(port, ppm, at)
        key = (device, module.sku, cage)
        if key in seen:
            return "(shared)"
        seen.add(key)
        return module.sku

    for i, (link, p, a_port, z_port) in enumerate(zip(links, parts, a_ports, z_ports, strict=True)):
        if p.a_module is not None:
            a_out[i] = cell(link.a_device, link.a_role, p.a_module, a_port or link.a_port)
        if p.z_module is not None:
            z_out[i] = cell(link.z_device, link.z_role, p.z_module, z_port or link.z_port)
    return a_out, z_out


def cabling_csv(rows: Iterable[dict[str, Any]]) -> str:
    return "".join(cabling_csv_chunks(lambda: rows))


def cabling_csv_chunks(make_rows, chunk_rows: int = 5000) -> Iterator[str]:
    """The cut sheet as csv text in chunks: the header first, before ``make_rows()`` plans anything, so a
    streamed download starts at once; then the rows, ``chunk_rows`` at a time."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(CABLING_COLUMNS)
    yield buf.getvalue()
    buf.seek(0)
    buf.truncate()
    for i, row in enumerate(make_rows(), start=1):
        w.writerow([safe_text(row.get(c, "")) for c in CABLING_COLUMNS])
        if i % chunk_rows == 0:
            yield buf.getvalue()
            buf.seek(0)
            buf.truncate()
    if buf.tell():
        yield buf.getvalue()


def _workbook_options() -> dict[str, Any]:
    """Constant memory (rows flushed to a temporary file as written); user text is never a formula, URL or number."""
    return {
        "constant_memory": True,
        "tmpdir": tempfile.gettempdir(),
        "strings_to_formulas": False,
        "strings_to_urls": False,
        "strings_to_numbers": False,
    }


def bom_xlsx(
    bom: dict[str, Any],
    *,
    design_name: str,
    design_notes: str = "",
    revision: str = "",
    cabling: Iterable[dict[str, Any]] | None = (),
    extra_sheets: Iterable[tuple[str, list[str], Iterable[list[Any]]]] = (),
    elevations=None,
    contents: str = "",
    checks: list[dict[str, Any]] | None = None,
) -> bytes:
    """The workbook: Summary, one sheet per plane, Cabling plan, Price book provenance. Written in XlsxWriter's
    constant-memory mode (each row flushed as the next begins: 1.0 GB peak at 100k GPUs, not 2.3 GB).
    ``contents``: a line on the Summary saying what this workbook leaves out. ``checks``: the design's one list
    (cluster.pipeline; with what the drawn racks add, cluster.pipeline.with_drawn_racks): the Checks sheet lists
    its failing entries, the Summary all of them; without it, the BOM's own and the drawn racks'."""
    import xlsxwriter

    buf = io.BytesIO()
    wb = xlsxwriter.Workbook(buf, _workbook_options())
    fmt = _formats(wb)
    failing = _failing(checks, bom)
    if checks is None and elevations is not None and not any(c["field"] == "rack_u" for c in failing):
        failing += elevations.checks()
    if failing:
        _checks_sheet(wb, fmt, failing, total=None if checks is None else len(checks))
    summary = wb.add_worksheet("Summary")  # filled once the subtotals exist
    planes = list(dict.fromkeys(line["plane"] for line in bom["lines"]))
    subtotals = {plane: _plane_sheet(wb, fmt, plane, bom["lines"]) for plane in planes}
    about = (design_name, revision, design_notes, contents)
    _summary_sheet(summary, fmt, bom, subtotals, about, bom.get("checks", []) if checks is None else checks)
    if not failing:
        summary.activate()
    if cabling is not None:  # None: a workbook without the cut sheet (bom-only.xlsx)
        _cabling_sheet(wb, fmt, cabling)
    if elevations is not None:
        from bom.elevation_sheets import rack_type_sheets, racks_sheet

        racks_sheet(wb, fmt, elevations)
        rack_type_sheets(wb, fmt, elevations)
    _price_book_sheet(wb, fmt, bom)
    network = "+".join(ref for plane, (ref, _t) in subtotals.items() if plane != "infrastructure") or "0"
    for title, headers, rows in extra_sheets:
        _extra_sheet(wb, fmt, title, headers, rows, {"{NETWORK}": network})
    wb.close()
    return buf.getvalue()


CHECKS_COL_WIDTHS_CHARS = (24, 72, 12, 20)  # Field, message (wrapped), Section, Check: 128 characters in all


ROW_HEIGHT_PT = 15  # one line of 11 pt Calibri, the sheets' default row height


def checks_row_height_pt(message: str) -> int:
    """A Checks row tall enough for its wrapped message: lines × 15 pt, the lines counted by wrapping at the message
    column's width in characters (a width counts '0' digits, wider than the average letter, so this never falls
    short). E.g. 170 characters in a 72-character column: 3 lines × 15 pt = 45 pt."""
    lines = len(textwrap.wrap(message, width=CHECKS_COL_WIDTHS_CHARS[1])) or 1
    return lines * ROW_HEIGHT_PT


def _checks_sheet(wb, fmt, checks: list[dict[str, Any]], total: int | None = None) -> None:
    """First sheet when a check fails: a banner, then each failing check, the field to change and its section.
    Printed as exported: landscape, one page wide (as many tall as it takes), the header row on every page, the
    banner merged across the four columns and the message column wrapped, so no text is cut at a cell edge."""
    ws = wb.add_worksheet("Checks")
    of = f" of {total}" if total is not None else ""
    last_col = len(CHECKS_COL_WIDTHS_CHARS) - 1
    banner = f"{len(checks)} check(s) fail{of}: review them before ordering from this BOM"
    ws.merge_range(0, 0, 0, last_col, banner, fmt["banner"])
    for c, head in enumerate(("Field", "What fails and what to change", "Section", "Check")):
        ws.write_string(2, c, head, fmt["head"])
    for i, check in enumerate(checks, start=3):
        message = str(check["message"])
        ws.set_row(i, checks_row_height_pt(message))  # readers (LibreOffice) do not grow a wrapped row themselves
        ws.write_string(i, 0, str(check["field"]), fmt["top"])
        ws.write_string(i, 1, message, fmt["top_wrap"])
        ws.write_string(i, 2, str(check.get("section", "bom")), fmt["top"])
        ws.write_string(i, 3, str(check.get("name", "")), fmt["top"])
    for c, width_chars in enumerate(CHECKS_COL_WIDTHS_CHARS):
        ws.set_column(c, c, width_chars)
    ws.set_landscape()
    ws.fit_to_pages(1, 0)  # one page wide, any number tall
    ws.repeat_rows(2)  # the header row on every printed page
    ws.activate()


def _formats(wb) -> dict[str, Any]:
    return {
        "bold": wb.add_format({"bold": True}),
        "banner": wb.add_format({"bold": True, "font_color": "#FFFFFF", "bg_color": "#B00020", "font_size": 13}),
        "head": wb.add_format({"bold": True, "bg_color": "#EEF1F6", "border": 1}),
        "money": wb.add_format({"num_format": "$#,##0.00"}),
        "money_bold": wb.add_format({"num_format": "$#,##0.00", "bold": True}),
        "pct": wb.add_format({"num_format": "0.0%"}),
        "qty": wb.add_format({"num_format": "#,##0"}),
        "wrap": wb.add_format({"text_wrap": False, "font_color": "#5B6475"}),
        "top": wb.add_format({"valign": "top"}),
        "top_wrap": wb.add_format({"valign": "top", "text_wrap": True}),
    }


PLANE_HEADERS = (
    "Line",
    "Manufacturer",
    "Mfr part number",
    "Part number",
    "Description",
    "Category",
    "Quantity",
    "Unit",
    "Currency",
    "List price",
    "Discount %",
    "Net unit price",
    "Extended net",
    "Spare",
    "Price source",
    "Price date",
    "Assumption",
    "Lead time (weeks)",
    "Quote",
    "Derivation",
)


def col_letter(index: int) -> str:
    """The spreadsheet letter of a 0-based column: 0 → A, 25 → Z, 26 → AA."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


# every plane sheet column by its header, so a column inserted above moves the formulas' references with it
(LINE_COL, MAKER_COL, MFR_PN_COL, PN_COL, DESC_COL, CAT_COL, QTY_COL, UNIT_COL, CUR_COL, LIST_COL, DISCOUNT_COL,
 NET_COL, EXT_COL, SPARE_COL, SOURCE_COL, DATE_COL, ASSUMED_COL, LEAD_COL, QUOTE_COL, DERIVATION_COL,
 ) = range(len(PLANE_HEADERS))  # fmt: skip
QTY, LIST, DISCOUNT, NET, EXT = (col_letter(c) for c in (QTY_COL, LIST_COL, DISCOUNT_COL, NET_COL, EXT_COL))


def _plane_sheet(wb, fmt: dict[str, Any], plane: str, lines: list[dict[str, Any]]) -> tuple[str, Decimal]:
    """One plane's lines with live formulas — net = ROUND(list × (1 − discount), 2), extended = quantity × net —
    and its subtotal; returns (subtotal cell, subtotal)."""
    ws = wb.add_worksheet(PLANE_TITLES.get(plane, plane.title())[:31])
    for c, h in enumerate(PLANE_HEADERS):
        ws.write_string(0, c, h, fmt["head"])
    r = 1
    total = Decimal("0")
    for line in lines:
        if line["plane"] != plane:
            continue
        unit = Decimal(line["unit_price_usd"])
        ext = Decimal(line["extended_price_usd"])
        total += ext
        lead = _field(line, "lead_time_weeks")
        row = r + 1
        texts = {
            LINE_COL: _field(line, "line_id"),
            MAKER_COL: _field(line, "manufacturer"),
            MFR_PN_COL: _field(line, "mfr_part_number"),
            PN_COL: line["sku"],
            DESC_COL: line["description"],
            CAT_COL: line["category"],
            UNIT_COL: _field(line, "unit_of_measure"),
            CUR_COL: _field(line, "currency"),
            SPARE_COL: "yes" if line["spare"] else "",
            DATE_COL: _field(line, "price_date"),
            ASSUMED_COL: "yes" if line["price_is_assumption"] else "no",
            QUOTE_COL: _field(line, "quote_reference"),
        }
        for c, text in texts.items():
            ws.write_string(r, c, text)
        ws.write_number(r, QTY_COL, line["quantity"], fmt["qty"])
        ws.write_number(r, LIST_COL, float(Decimal(_field(line, "list_price_usd"))), fmt["money"])
        ws.write_number(r, DISCOUNT_COL, float(Decimal(_field(line, "discount_pct"))))
        ws.write_formula(r, NET_COL, f"=ROUND({LIST}{row}*(1-{DISCOUNT}{row}/100),2)", fmt["money"], float(unit))
        ws.write_formula(r, EXT_COL, f"={QTY}{row}*{NET}{row}", fmt["money"], float(ext))
        ws.write_string(r, SOURCE_COL, line["price_source"], fmt["wrap"])
        if lead is not None:
            ws.write_number(r, LEAD_COL, lead)
        ws.write_string(r, DERIVATION_COL, line["derivation"], fmt["wrap"])
        r += 1
    ws.write_string(r, NET_COL, "Subtotal", fmt["bold"])
    ws.write_formula(r, EXT_COL, f"=SUM({EXT}2:{EXT}{r})", fmt["money_bold"], float(total))
    ws.freeze_panes(1, PN_COL + 1)  # line, maker and both part numbers stay in view
    ws.autofilter(0, 0, r - 1, len(PLANE_HEADERS) - 1)
    widths = (
        (LINE_COL, LINE_COL, 9), (MAKER_COL, MAKER_COL, 12), (MFR_PN_COL, PN_COL, 20), (DESC_COL, DESC_COL, 48),
        (CAT_COL, CAT_COL, 14), (QTY_COL, CUR_COL, 9), (LIST_COL, EXT_COL, 15), (SOURCE_COL, SOURCE_COL, 60),
        (DATE_COL, QUOTE_COL, 12), (DERIVATION_COL, DERIVATION_COL, 60),
    )  # fmt: skip
    for first, last, width in widths:
        ws.set_column(first, last, width)
    return f"'{ws.get_name()}'!{EXT}{r + 1}", total


def _summary_sheet(summary, fmt, bom, subtotals, about: tuple[str, str, str, str], checks: list) -> None:
    for row, (label, text) in enumerate(zip(("Design", "Revision", "Notes", "Contents"), about, strict=True)):
        if label == "Contents" and not text:
            continue
        summary.write_string(row, 0, label, fmt["bold"])
        summary.write_string(row, 1, text)  # user text: always a string, never a formula
    summary.write_string(4, 0, "Plane", fmt["head"])
    summary.write_string(4, 1, "Subtotal (USD)", fmt["head"])
    row = 5
    grand = Decimal("0")
    for plane, (ref, total) in subtotals.items():
        grand += total
        summary.write_string(row, 0, PLANE_TITLES.get(plane, plane))
        summary.write_formula(row, 1, f"={ref}", fmt["money"], float(total))
        row += 1
    summary.write_string(row, 0, "BOM total", fmt["bold"])
    summary.write_formula(row, 1, f"=SUM(B6:B{row})", fmt["money_bold"], float(grand))
    if "assumption_usd" in bom:  # the dollars not yet from a quote, and their share of the total (a live formula)
        assumed = Decimal(bom["assumption_usd"])
        summary.write_string(row + 1, 0, "Of which assumed", fmt["bold"])
        summary.write_number(row + 1, 1, float(assumed), fmt["money"])
        summary.write_string(row + 1, 2, bom.get("assumption_share_derivation", ""))
        summary.write_string(row + 2, 0, "Share assumed", fmt["bold"])
        share = float(assumed / grand) if grand else 0.0
        summary.write_formula(row + 2, 1, f"=IF(B{row + 1}=0,0,B{row + 2}/B{row + 1})", fmt["pct"], share)
        row += 2
    summary.write_string(row + 2, 0, "Links", fmt["bold"])
    summary.write_number(row + 2, 1, bom["link_count"], fmt["qty"])
    summary.write_string(row + 3, 0, "Link ends", fmt["bold"])
    summary.write_number(row + 3, 1, bom["link_end_count"], fmt["qty"])
    for i, check in enumerate(checks):
        summary.write_string(row + 5 + i, 0, "OK" if check["ok"] else "CHECK")
        where = f"{check['section']} · {check['name']}: " if check.get("section") else ""
        summary.write_string(row + 5 + i, 1, where + check["message"])
    summary.set_column(0, 0, 18)
    summary.set_column(1, 1, 60)
    summary.freeze_panes(5, 0)


CABLING_TITLES = (
    "Label",
    "Plane",
    "Segment",
    "A row",
    "A rack",
    "A U",
    "A device",
    "A port",
    "A module",
    "Z row",
    "Z rack",
    "Z U",
    "Z device",
    "Z port",
    "Z module",
    "Speed (Gbit/s)",
    "Length (m)",
    "Cable / fibre",
)


# The workbook carries the per-cable cut sheet up to this many cables; above it the cut sheet is its own export
# (cabling.xlsx, cabling.csv) and the Summary's "Contents" line says so. XlsxWriter writes ~4.5 µs a cell: the
# 388,512-cable sheet of 102,400 GPUs (7 M cells) was 30 of the workbook's 40 s; 20,000 cables are ~1.5 s.
WORKBOOK_CUT_SHEET_MAX_ROWS = 20_000


def workbook_cut_sheet(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]] | None, str]:
    """(the cut sheet the full workbook carries, or None; the Summary's "Contents" line saying where it is)."""
    if len(rows) <= WORKBOOK_CUT_SHEET_MAX_ROWS:
        return rows, ""
    return None, (
        f"Everything but the per-cable cut sheet: its {len(rows):,} cables (more than the "
        f"{WORKBOOK_CUT_SHEET_MAX_ROWS:,} this workbook carries) are their own export, cabling.xlsx or cabling.csv"
    )


def cabling_xlsx(rows: Iterable[dict[str, Any]], *, design_name: str = "", revision: str = "") -> bytes:
    """The cut sheet as its own workbook: the "Cabling plan" sheet of :func:`bom_xlsx`, the same cells, and a second
    sheet naming the design. Constant-memory mode: each row is flushed as the next begins."""
    import xlsxwriter

    buf = io.BytesIO()
    wb = xlsxwriter.Workbook(buf, _workbook_options())
    fmt = _formats(wb)
    _cabling_sheet(wb, fmt, rows)
    about = wb.add_worksheet("About")
    about.write_string(0, 0, "Design", fmt["bold"])
    about.write_string(0, 1, design_name)  # user text: always a string, never a formula
    about.write_string(1, 0, "Revision", fmt["bold"])
    about.write_string(1, 1, revision)
    about.write_string(2, 0, "Contents", fmt["bold"])
    about.write_string(2, 1, "The cut sheet: one row per cable; the BOM, racks and TCO are in bom.xlsx")
    about.set_column(0, 0, 12)
    about.set_column(1, 1, 80)
    wb.close()
    return buf.getvalue()


def _cabling_sheet(wb, fmt, cabling: Iterable[dict[str, Any]]) -> None:
    cab = wb.add_worksheet("Cabling plan")
    for c, h in enumerate(CABLING_TITLES):
        cab.write_string(0, c, h, fmt["head"])
    r = 1
    for rec in cabling:
        for c, key in enumerate(CABLING_COLUMNS):
            v = rec.get(key, "")
            if isinstance(v, int | float):
                cab.write_number(r, c, v)
            else:
                cab.write_string(r, c, str(v))
        r += 1
    cab.freeze_panes(1, 0)
    last = len(CABLING_COLUMNS) - 1
    cab.set_column(0, last - 1, 12)
    cab.set_column(last, last, 24)


def _price_book_sheet(wb, fmt, bom: dict[str, Any]) -> None:
    prov = wb.add_worksheet("Price book")
    book = bom.get("price_book") or {}
    prov.write_string(0, 0, "Price book", fmt["bold"])
    prov.write_string(
        0,
        1,
        f"{book.get('name', '')} v{book.get('version', '')} ({book.get('currency', 'USD')}, "
        f"{book.get('effective_date', '')})",
    )
    prov.write_string(1, 0, "Note", fmt["bold"])
    prov.write_string(1, 1, str(book.get("note", "")))
    for c, h in enumerate(["SKU", "Description", "Unit price (USD)", "Source", "Assumption"]):
        prov.write_string(3, c, h, fmt["head"])
    seen: set[str] = set()
    r = 4
    for line in bom["lines"]:
        if line["sku"] in seen:
            continue
        seen.add(line["sku"])
        prov.write_string(r, 0, line["sku"])
        prov.write_string(r, 1, line["description"])
        prov.write_number(r, 2, float(Decimal(line["unit_price_usd"])), fmt["money"])
        prov.write_string(r, 3, line["price_source"])
        prov.write_string(r, 4, "yes" if line["price_is_assumption"] else "no")
        r += 1
    prov.freeze_panes(4, 0)
    prov.set_column(0, 0, 20)
    prov.set_column(1, 1, 50)
    prov.set_column(3, 3, 60)


def _extra_sheet(wb, fmt, title: str, headers: list[str], rows: Iterable[list[Any]], refs: dict[str, str]) -> None:
    ws = wb.add_worksheet(title[:31])
    for c, h in enumerate(headers):
        ws.write_string(0, c, h, fmt["head"])
    for r, values in enumerate(rows, start=1):
        for c, v in enumerate(values):
            if isinstance(v, Formula):
                text = str(v)
                for key, ref in refs.items():
                    text = text.replace(key, ref)
                cached = float(v.value) if v.value is not None else 0
                ws.write_formula(r, c, text, fmt["money"] if v.value is not None else None, cached)
            elif isinstance(v, int | float | Decimal) and not isinstance(v, bool):
                ws.write_number(r, c, float(v))
            else:
                ws.write_string(r, c, str(v))
    ws.freeze_panes(1, 0)


def tco_sheet(results: dict[str, Any]) -> list[tuple[str, list[str], list[list[Any]]]]:
    """The TCO as a sheet with live formulas and their values: edit a CapEx or OpEx line (or a BOM
    price, when the network line is the BOM's) and the totals follow."""
    power = results.get("power")
    if not power:
        return []
    t = power["tco"]
    rows: list[list[Any]] = []
    for c in t["capex"]:
        amount = Decimal(c["amount_usd"])
        from_bom = c["name"] == "Network" and c["derivation"].startswith("the BOM")
        rows.append(["CapEx", c["name"], Formula("={NETWORK}", amount) if from_bom else amount, c["derivation"]])
    first_opex = len(rows) + 2
    for c in t["opex_per_year"]:
        rows.append(["OpEx per year", c["name"], Decimal(c["amount_usd"]), c["derivation"]])
    n_cap, n_all = len(t["capex"]), len(rows)
    capex, opex = Decimal(t["capex_usd"]), Decimal(t["opex_usd_per_year"])
    rows.append(["Total", "CapEx", Formula(f"=SUM(C2:C{n_cap + 1})", capex), ""])
    rows.append(["Total", "OpEx per year", Formula(f"=SUM(C{first_opex}:C{n_all + 1})", opex), ""])
    rows.append(["Total", "Years", t["years"], ""])
    r_cap, r_opex, r_years = n_all + 2, n_all + 3, n_all + 4
    total = Formula(f"=C{r_cap}+C{r_years}*C{r_opex}", Decimal(t["total_usd"]))
    rows.append(["Total", f"{t['years']}-year total", total, t["derivations"]["total_usd"]])
    return [("TCO", ["Section", "Line", "USD", "Derivation"], rows)]
