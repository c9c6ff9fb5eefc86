"""Reading and matching a supplier's quote (bom/quote_import.py): columns by the names suppliers use, every bad
value by row and column, matched by part number then alias, the rest listed."""

from __future__ import annotations

import io
from datetime import date
from decimal import Decimal

import pytest
import xlsxwriter

from bom.quote_import import QuoteFileError, match_lines, parse_quote, read_rows

HEADER = ["MPN", "Description", "Qty", "Unit Price", "Currency", "Discount %", "Lead time (weeks)", "Valid until"]


def xlsx(rows: list[list[object]]) -> bytes:
    buf = io.BytesIO()
    wb = xlsxwriter.Workbook(buf, {"in_memory": True})
    ws = wb.add_worksheet("Quote")
    for r, row in enumerate(rows):
        for c, v in enumerate(row):
            ws.write(r, c, v)
    wb.close()
    return buf.getvalue()


def test_an_xlsx_quote_read_and_matched_by_part_number_and_alias():
    data = xlsx(
        [
            HEADER,
            ["MQM9790-NS2F", "Quantum-2 switch", 12, 30150.5, "USD", 8, 10, "2027-01-31"],
            ["fs-q400-sr4", "their SKU for our SR4 optic", 400, 410, "usd", "", "6 weeks", ""],
            ["UNKNOWN-1", "not in the catalog", 1, 99, "", "", "", ""],
        ]
    )
    lines, errors = parse_quote(read_rows(data, "q.xlsx"), "USD")
    assert errors == []
    first = lines[0]
    assert (first.row, first.unit_price, first.quantity, first.discount_pct, first.lead_time_weeks) == (
        2, Decimal("30150.50"), 12, Decimal("8.00"), 10
    )  # fmt: skip
    assert first.valid_until == date(2027, 1, 31) and lines[1].lead_time_weeks == 6 and lines[1].currency == "USD"
    m = match_lines(lines, ["MQM9790-NS2F", "OSFP-400G-SR4"], {"FS-Q400-SR4": "OSFP-400G-SR4"})
    assert [(x.sku, x.how) for x in m.matched] == [
        ("MQM9790-NS2F", "part number"),
        ("OSFP-400G-SR4", "alias fs-q400-sr4 → OSFP-400G-SR4"),
    ]
    assert [u.part_number for u in m.unmatched] == ["UNKNOWN-1"]


def test_every_bad_value_by_row_and_column_at_once():
    rows = [
        ["Part Number", "Unit price", "Qty", "Currency", "Discount", "Lead time", "Validity"],
        ["A-1", "abc", "2.5", "USD", "120", "x", "31/01/2027"],
        ["", "10", "", "EUR", "", "", ""],
        ["B-2", "1,250.00", "3", "", "5%", "", ""],
        ["b-2", "1200", "3", "", "", "", ""],
    ]
    text = "\n".join(",".join(f'"{c}"' for c in r) for r in rows).encode()
    lines, errors = parse_quote(read_rows(text, "quote.csv"), "USD")
    assert [str(e) for e in errors] == [
        "row 2, unit_price: 'abc' is not a number",
        "row 2, discount_pct: 120.00 is not a percentage from 0 to 100",
        "row 2, quantity: '2.5' is not a whole number",
        "row 2, lead_time_weeks: 'x' is not a whole number",
        "row 2, valid_until: '31/01/2027' is not a date (YYYY-MM-DD)",
        "row 3, part_number: empty",
        "row 3, currency: quoted in EUR; the price book is in USD — convert the quote or apply it to a book in "
        "that currency",
        "row 5, part_number: b-2 is quoted again (first on row 4); one price per part",
    ]
    assert [(x.part_number, x.unit_price, x.discount_pct) for x in lines] == [
        ("B-2", Decimal("1250.00"), Decimal("5.00"))
    ]


@pytest.mark.parametrize(
    ("data", "name", "why"),
    [
        (b"Item,Cost\nA,1\n", "q.csv", "no column for unit_price"),
        (b"\xff\xfe junk", "q.csv", "not UTF-8"),
        (b"PK\x03\x04 not really a zip", "q.xlsx", "not a readable xlsx"),
        (b"", "q.csv", "the file is empty"),
        (b"x", "q.pdf", "an .xlsx or .csv file"),
    ],
)
def test_a_file_that_cannot_be_read_is_one_clear_error(data, name, why):
    with pytest.raises(QuoteFileError, match=why):
        parse_quote(read_rows(data, name), "USD")
