"""The BOM diff by part number as an xlsx sheet: live Δ formulas and totals with their cached values (pure)."""

from __future__ import annotations

import io
import tempfile
from collections.abc import Sequence
from decimal import Decimal

from xlsxwriter.utility import xl_col_to_name

from bom.diff import DiffRow, diff_summary


def diff_xlsx(rows: Sequence[DiffRow], labels: Sequence[str], *, title: str = "BOM diff by part number") -> bytes:
    """One sheet: per part number each BOM's quantity, spares and extended cost, then for each BOM after the
    first its Δ quantity and Δ cost (formulas on the cells to their left) and status; a totals row of SUMs."""
    import xlsxwriter

    n = len(labels)
    if rows and len(rows[0].totals) != n:
        raise ValueError(f"labels: one per compared BOM ({len(rows[0].totals)}), got {n}")
    buf = io.BytesIO()
    wb = xlsxwriter.Workbook(
        buf, {"constant_memory": True, "tmpdir": tempfile.gettempdir(), "strings_to_formulas": False}
    )
    head = wb.add_format({"bold": True, "bg_color": "#EEF1F6", "border": 1, "text_wrap": True})
    money = wb.add_format({"num_format": "$#,##0.00"})
    money_bold = wb.add_format({"num_format": "$#,##0.00", "bold": True})
    qty = wb.add_format({"num_format": "#,##0"})
    ws = wb.add_worksheet("BOM diff")
    ws.write_string(0, 0, f"{title}: {labels[0]} (base) against {', '.join(labels[1:])}", wb.add_format({"bold": True}))
    headers = ["Part number", "Manufacturer", "Description"]
    for label in labels:
        headers += [f"{label} qty", f"{label} spares", f"{label} extended"]
    for label in labels[1:]:
        headers += [f"Δ qty {label}", f"Δ cost {label}", f"Status {label}"]
    headers += [f"Lines in {label}" for label in labels]
    for c, h in enumerate(headers):
        ws.write_string(2, c, h, head)

    def col(j: int, k: int) -> str:  # BOM j's quantity (k=0), spares (1) or cost (2) column letter
        return xl_col_to_name(3 + 3 * j + k)

    delta_at = 3 + 3 * n
    first = 4  # 1-based sheet row of the first part
    for r, row in enumerate(rows, start=3):
        sheet_row = r + 1
        ws.write_string(r, 0, row.sku)
        ws.write_string(r, 1, row.manufacturer)
        ws.write_string(r, 2, row.description)
        for j, t in enumerate(row.totals):
            ws.write_number(r, 3 + 3 * j, t.quantity, qty)
            ws.write_number(r, 4 + 3 * j, t.spares, qty)
            ws.write_number(r, 5 + 3 * j, float(t.cost_usd), money)
        for j in range(1, n):
            c = delta_at + 3 * (j - 1)
            ws.write_formula(r, c, f"={col(j, 0)}{sheet_row}-{col(0, 0)}{sheet_row}", qty, row.quantity_delta(j))
            ws.write_formula(
                r, c + 1, f"={col(j, 2)}{sheet_row}-{col(0, 2)}{sheet_row}", money, float(row.cost_delta_usd(j))
            )
            ws.write_string(r, c + 2, row.status(j))
        for j, t in enumerate(row.totals):
            ws.write_string(r, delta_at + 3 * (n - 1) + j, t.derivation)
    last = total_r = len(rows) + 3  # the 1-based row of the last part = the 0-based row of the totals
    ws.write_string(total_r, 0, "Total", wb.add_format({"bold": True}))
    for j in range(n):
        cost = sum((row.totals[j].cost_usd for row in rows), Decimal("0"))
        ws.write_formula(total_r, 5 + 3 * j, f"=SUM({col(j, 2)}{first}:{col(j, 2)}{last})", money_bold, float(cost))
    for j in range(1, n):
        c = delta_at + 3 * (j - 1) + 1
        letter = xl_col_to_name(c)
        delta = diff_summary(rows, j)["cost_delta_usd"]
        ws.write_formula(total_r, c, f"=SUM({letter}{first}:{letter}{last})", money_bold, float(delta))
    ws.freeze_panes(3, 1)
    ws.set_column(0, 1, 18)
    ws.set_column(2, 2, 44)
    ws.set_column(3, delta_at + 3 * (n - 1) - 1, 14)
    ws.set_column(delta_at + 3 * (n - 1), delta_at + 4 * n, 24)
    wb.close()
    return buf.getvalue()
