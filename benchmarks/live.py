"""Live evaluate (the API the form calls while typing) at 2k / 16k / 100k GPUs (`make bench`).

Times `POST /api/v1/evaluate/?layout=flat` through Django's test client (validation, the
whole pipeline with the BOM counted by link class, JSON) — p50 and p95 over repeated calls —
and checks that the live BOM has the same quantities as the full build from per-cable records.
Goal (issue #11): p95 < 100 ms at 16k GPUs and < 500 ms at 100k.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "designer.settings")
os.environ.setdefault("SECRET_KEY", "bench")
os.environ.setdefault("DEBUG", "1")
os.environ.setdefault("VAR_DIR", tempfile.mkdtemp(prefix="designer-bench-"))

import django

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from benchmarks.bom import SCALES  # noqa: E402
from bom.plan import network_bom  # noqa: E402
from cluster.requests import bom_request  # noqa: E402
from designer.services import current_catalog, evaluate_flat  # noqa: E402

REPEAT = {2_000: 30, 16_384: 20, 102_400: 8}


def main() -> None:
    call_command("migrate", verbosity=0)
    user, _ = get_user_model().objects.get_or_create(username="bench")
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    print(f"{'GPUs':>8}{'p50 ms':>9}{'p95 ms':>9}{'full build s':>14}  same quantities")
    for gpus, overrides in SCALES.items():
        body = json.dumps(overrides)
        times = []
        for _ in range(REPEAT[gpus]):
            t0 = time.perf_counter()
            r = client.post("/api/v1/evaluate/?layout=flat", body, content_type="application/json")
            times.append(time.perf_counter() - t0)
            assert r.status_code == 200, r.content[:300]
        times.sort()
        p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
        ev = evaluate_flat(overrides)
        t0 = time.perf_counter()
        full = network_bom(bom_request(ev.typed), ev.fabric, ev.storage, ev.management, current_catalog(), cables=True)
        full_s = time.perf_counter() - t0
        same = [(ln.sku, ln.quantity) for ln in full.lines] == [(ln.sku, ln.quantity) for ln in ev.bom.lines]
        print(f"{gpus:>8,}{statistics.median(times) * 1e3:>9.1f}{p95 * 1e3:>9.1f}{full_s:>14.2f}  {same}")


if __name__ == "__main__":
    main()
