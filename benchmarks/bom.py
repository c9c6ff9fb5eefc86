"""BOM build + xlsx export time for 2k, 16k and 100k GPU designs (`make bench`)."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "designer.settings")
os.environ.setdefault("SECRET_KEY", "bench")
os.environ.setdefault("VAR_DIR", tempfile.mkdtemp(prefix="designer-bench-"))

import django

django.setup()

from bom.export import bom_xlsx  # noqa: E402
from bom.plan import floor_sheets  # noqa: E402
from designer.requirements import validate_flat  # noqa: E402
from designer.services import current_catalog, evaluate_flat  # noqa: E402

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


def main() -> None:
    print(
        f"{'GPUs':>8}{'links':>10}{'lines':>7}{'racks':>7}{'plan+BOM s':>12}{'cut sheet+racks s':>19}{'xlsx s':>9}"
        f"{'xlsx MB':>9}"
    )
    for gpus, overrides in SCALES.items():
        r = validate_flat(overrides)
        t0 = time.perf_counter()
        ev = evaluate_flat(r)
        t1 = time.perf_counter()
        cabling, elev = floor_sheets(ev.typed, ev.fabric, ev.storage, ev.management, current_catalog())
        t_floor = time.perf_counter()
        data = bom_xlsx(ev.result["bom"], design_name=f"bench {gpus}", cabling=cabling, elevations=elev)
        t2 = time.perf_counter()
        print(
            f"{gpus:>8,}{ev.bom.link_count:>10,}{len(ev.bom.lines):>7}{len(elev.racks):>7}{t1 - t0:>12.2f}"
            f"{t_floor - t1:>19.2f}{t2 - t_floor:>9.2f}"
            f"{len(data) / 1e6:>9.1f}"
        )


if __name__ == "__main__":
    main()
