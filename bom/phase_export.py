"""A phase's cut-sheet delta (cluster/phases.py) as csv and xlsx (pure: no Django): the cut sheet's columns after
what changed — ``new`` or ``re-patch`` — and the far end a re-patched cable was on. User text (device names carry
the design's own words only through the cut sheet) is written as strings, never formulas; csv cells are quoted
for spreadsheets (bom/cells.py safe_text)."""

from __future__ import annotations

import csv
import io
import tempfile
from collections.abc import Iterable
from typing import Any

from bom.cells import safe_text
from bom.export import CABLING_COLUMNS

CHANGE_COLUMNS = ("change", "was_z_device", "was_z_port")
DELTA_COLUMNS = (*CHANGE_COLUMNS, *CABLING_COLUMNS)


def cut_sheet_delta_csv(rows: Iterable[dict[str, Any]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(DELTA_COLUMNS)
    for row in rows:
        w.writerow([safe_text(row.get(c, "")) for c in DELTA_COLUMNS])
    return buf.getvalue()


def cut_sheet_delta_xlsx(rows: Iterable[dict[str, Any]], *, title: str) -> bytes:
    """One sheet of the changed cables; ``title`` (the design and phase) on the first row."""
    import xlsxwriter

    buf = io.BytesIO()
    wb = xlsxwriter.Workbook(buf, {"constant_memory": True, "tmpdir": tempfile.gettempdir(),
                                   "strings_to_formulas": False, "strings_to_urls": False,
                                   "strings_to_numbers": False})  # fmt: skip
    head = wb.add_format({"bold": True, "bg_color": "#EEF1F6", "border": 1})
    ws = wb.add_worksheet("Cut-sheet delta")
    ws.write_string(0, 0, str(title), wb.add_format({"bold": True}))
    for c, h in enumerate(DELTA_COLUMNS):
        ws.write_string(1, c, h, head)
    for r, row in enumerate(rows, start=2):
        for c, key in enumerate(DELTA_COLUMNS):
            v = row.get(key, "")
            if isinstance(v, int | float) and not isinstance(v, bool):
                ws.write_number(r, c, v)
            else:
                ws.write_string(r, c, str(v))
    ws.freeze_panes(2, 0)
    ws.set_column(0, len(DELTA_COLUMNS) - 1, 13)
    wb.close()
    return buf.getvalue()
