"""BOM build and exports at 2k, 16k and 100k GPUs (`make bench`), issue #10's targets beside them.

Per scale: plan + BOM; the cut sheet and rack elevations (one floor plan); the full xlsx (planes,
cut sheet, racks, drawings, TCO) and — in the same run — plain XlsxWriter in constant-memory mode
writing the same number of string and number cells (rows of 18), the goal being ≤ 1.5× that
baseline; the BOM-only workbook through the download URL (goal < 2 s at 100k); the streamed cut sheet
(cabling.csv) through the download URL: time to its first byte (goal < 1 s) and to its last.
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "designer.settings")
os.environ.setdefault("SECRET_KEY", "bench")
os.environ.setdefault("VAR_DIR", tempfile.mkdtemp(prefix="designer-bench-"))

import django

django.setup()

import xlsxwriter  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402
from xlsxwriter.worksheet import Worksheet  # noqa: E402

from bom.export import bom_xlsx, tco_sheet  # noqa: E402
from bom.plan import floor_sheets  # noqa: E402
from cluster.requests import bom_request  # noqa: E402
from designer.requirements import validate_flat  # noqa: E402
from designer.services import create_design, current_catalog, evaluate_flat  # noqa: E402

SCALES = {
    2_000: {"gpu_count": 2000},
    16_384: {"gpu_count": 16384, "storage_node_count": 48, "storage_switch_radix": 64, "storage_switch_port_gbps": 400},
    102_400: {
        "gpu_count": 102400,
        "switch_model": "SN5600-400G",
        "switch_radix": 128,
        "switch_port_gbps": 400,
        "storage_node_count": 200,
        "storage_switch_radix": 64,
        "storage_switch_port_gbps": 400,
    },
}
CELLS = Counter()  # cells the app's workbook writes, by kind (counted in the timed run: it only slows the app)


def _counting(kind: str, method):
    def wrapped(self, *args, **kwargs):
        CELLS[kind] += 1
        return method(self, *args, **kwargs)

    return wrapped


for _kind, _name in (("string", "write_string"), ("number", "write_number"), ("formula", "write_formula")):
    setattr(Worksheet, _name, _counting(_kind, getattr(Worksheet, _name)))


def baseline_seconds(strings: int, numbers: int, formulas: int) -> float:
    """Plain XlsxWriter, constant-memory mode: the same count of cells in rows of 18, nothing else."""
    t0 = time.perf_counter()
    wb = xlsxwriter.Workbook(io.BytesIO(), {"constant_memory": True, "tmpdir": tempfile.gettempdir()})
    ws = wb.add_worksheet()
    kinds = ["s"] * strings + ["n"] * numbers + ["f"] * formulas
    for i, kind in enumerate(kinds):
        r, c = divmod(i, 18)
        if kind == "s":
            ws.write_string(r, c, f"sw-r{r % 90}-{c:02d}")
        elif kind == "n":
            ws.write_number(r, c, r * 0.5)
        else:
            ws.write_formula(r, c, f"=A{r + 1}*2", None, 1.0)
    wb.close()
    return time.perf_counter() - t0


def main() -> None:
    call_command("migrate", verbosity=0)
    user, _ = get_user_model().objects.get_or_create(username="bench")
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    head = (
        f"{'GPUs':>8}{'links':>9}{'racks':>7}{'plan s':>8}{'floor s':>9}{'xlsx s':>8}{'cells':>11}{'base s':>8}"
        f"{'ratio':>7}{'MB':>6}{'bom-only s':>12}{'csv 1st byte s':>16}{'csv all s':>11}"
    )
    print(head)
    for gpus, overrides in SCALES.items():
        r = validate_flat(overrides)
        t0 = time.perf_counter()
        ev = evaluate_flat(r)
        t_plan = time.perf_counter() - t0
        t0 = time.perf_counter()
        cabling, elev = floor_sheets(bom_request(ev.typed), ev.fabric, ev.storage, ev.management, current_catalog())
        t_floor = time.perf_counter() - t0
        CELLS.clear()
        t0 = time.perf_counter()
        data = bom_xlsx(
            ev.result["bom"],
            design_name=f"bench {gpus}",
            cabling=cabling,
            elevations=elev,
            extra_sheets=tco_sheet(ev.result),
        )
        t_xlsx = time.perf_counter() - t0
        cells = sum(CELLS.values())
        t_base = baseline_seconds(CELLS["string"], CELLS["number"], CELLS["formula"])
        design = create_design(user, ev.requirements, ev)
        t0 = time.perf_counter()
        brief = client.get(f"/designs/{design.pk}/export/bom-only.xlsx")
        t_brief = time.perf_counter() - t0
        assert brief.status_code == 200, brief.status_code
        t0 = time.perf_counter()
        resp = client.get(f"/designs/{design.pk}/export/cabling.csv")
        stream = iter(resp.streaming_content)
        next(stream)
        t_first = time.perf_counter() - t0
        lines = sum(chunk.count(b"\n") for chunk in stream)
        t_csv = time.perf_counter() - t0
        assert lines == ev.bom.link_count, (lines, ev.bom.link_count)  # the header came in the first chunk
        print(
            f"{gpus:>8,}{ev.bom.link_count:>9,}{len(elev.racks):>7}{t_plan:>8.2f}{t_floor:>9.2f}{t_xlsx:>8.2f}"
            f"{cells:>11,}{t_base:>8.2f}{t_xlsx / t_base:>7.2f}{len(data) / 1e6:>6.1f}{t_brief:>12.2f}"
            f"{t_first:>16.3f}{t_csv:>11.2f}"
        )


if __name__ == "__main__":
    main()
