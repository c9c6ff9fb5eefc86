"""Large exports as background jobs (`make bench`; issue #32 item 2), the goals beside them.

1. At the limit (EXPORT_INLINE_MAX_LINKS; the 2,000-GPU design, 5,710 links): each heavy export in the
   request (bom.xlsx, netbox.zip, cabling.csv, racks.csv, elevations.svg) — goal < 1 s each.
2. Above it (102,400 GPUs, 415k links): the request's answer (202 and the job) — goal < 1 s — and a
   second request reusing the same job.
3. The request for an export of the 102,400-GPU design (issue #38 item 3): p50 and p99 of TRIES requests, the
   page's (302 to the job page) and the API's (202 and the job), each creating and queueing the job afresh
   (the job deleted between tries) — goal p99 < 1 s.
4. The job at 102,400 GPUs, one fresh worker process per format (`run_export`): its wall and CPU time
   (time.process_time of run_export: planning, floor plan, writing, compressing, storing), the file's size and
   what the database keeps, and the process's peak resident memory (ru_maxrss, the whole process: Python,
   Django, the floor plan and the file) — the bound the README states; then the file streamed back through
   the download URL (time, and that it is whole). bom.xlsx at this size leaves the 388,512-row cut sheet to
   cabling.xlsx / cabling.csv (bom.export.WORKBOOK_CUT_SHEET_MAX_ROWS): goal < FULL_WORKBOOK_CPU_GOAL_S of CPU.

    DEBUG=1 .venv/bin/python benchmarks/exports.py [bom.xlsx netbox.zip …]   (the jobs at 102,400 GPUs: all six)

The goals are asserted: a request < ANSWER_GOAL_S (p99 for the 102,400-GPU design), a job's peak < PEAK_BOUND_MB,
the full workbook's CPU < FULL_WORKBOOK_CPU_GOAL_S.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "designer.settings")
os.environ.setdefault("SECRET_KEY", "bench")
os.environ.setdefault("VAR_DIR", tempfile.mkdtemp(prefix="designer-bench-exports-"))

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.cache import cache  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from designer import export_jobs  # noqa: E402
from designer.models import ExportJob  # noqa: E402
from designer.requirements import validate_flat  # noqa: E402
from designer.services import create_design, evaluate_flat  # noqa: E402

HEAVY = export_jobs.HEAVY_EXPORTS
ANSWER_GOAL_S = 1.0  # a request, inline at the limit or the 202 above it
PEAK_BOUND_MB = 1400  # a job's worker process at 102,400 GPUs (measured 950–1,070 MB, README)
FULL_WORKBOOK_CPU_GOAL_S = 10.0  # bom.xlsx of 102,400 GPUs, the job's CPU (issue #38 item 3; was 43 s wall)
TRIES = 20  # requests per p50/p99
AT_LIMIT = {"gpu_count": 2000}
LARGE = {
    "gpu_count": 102400,
    "switch_model": "SN5600-400G",
    "switch_radix": 128,
    "switch_port_gbps": 400,
    "storage_node_count": 200,
    "storage_switch_radix": 64,
    "storage_switch_port_gbps": 400,
}


def _design(user, overrides: dict):
    ev = evaluate_flat(validate_flat(overrides))
    return create_design(user, ev.requirements, ev), ev.result["bom"]["link_count"]


def _worker(job_id: int) -> None:
    """One job in this (fresh) process: what a Celery worker's task does, its time and peak memory."""
    t0, c0 = time.perf_counter(), time.process_time()
    outcome = export_jobs.run_export(job_id)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"outcome": outcome, "seconds": seconds, "cpu_s": cpu, "peak_mb": peak_mb}))


def p50_p99(times: list[float]) -> tuple[float, float]:
    """The median and the 99th percentile by nearest rank (of 20 tries: the slowest)."""
    ordered = sorted(times)
    return statistics.median(ordered), ordered[max(0, -(-99 * len(ordered) // 100) - 1)]


def request_times(client: Client, design, fmt: str = "bom.xlsx") -> list[tuple[str, int, float, float]]:
    """(route, status, p50, p99) of asking for ``fmt`` of a design large enough for a job: each try creates the
    job and queues it (the real enqueue: one message on the broker), then the job is deleted for the next."""
    out = []
    for route, url, expect in (
        ("page", f"/designs/{design.pk}/export/{fmt}", 302),
        ("api", f"/api/v1/designs/{design.pk}/{fmt}", 202),
    ):
        times, status = [], 0
        for _ in range(TRIES):
            t0 = time.perf_counter()
            status = client.get(url).status_code
            times.append(time.perf_counter() - t0)
            assert status == expect and ExportJob.objects.count() == 1, (route, status)
            ExportJob.objects.all().delete()
        out.append((route, status, *p50_p99(times)))
    return out


def main(formats: tuple[str, ...]) -> None:
    call_command("migrate", verbosity=0)
    real_enqueue = export_jobs.enqueue
    user, _ = get_user_model().objects.get_or_create(username="bench")
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    limit = settings.EXPORT_INLINE_MAX_LINKS
    small, links = _design(user, AT_LIMIT)
    print(f"at the limit: {links:,} links (EXPORT_INLINE_MAX_LINKS {limit:,}); the request builds it (goal < 1 s)")
    for fmt in HEAVY:
        client.get(f"/api/v1/designs/{small.pk}/{fmt}")  # warm: imports, templates
        cache.clear()  # built again, not the per-process memo of small exports
        t0 = time.perf_counter()
        resp = client.get(f"/api/v1/designs/{small.pk}/{fmt}")
        size = sum(len(c) for c in resp.streaming_content) if resp.streaming else len(resp.content)
        seconds = time.perf_counter() - t0
        print(f"  {fmt:<16}{resp.status_code:>5}{seconds:>8.2f} s{size / 1e6:>8.2f} MB")
        assert resp.status_code == 200 and seconds < ANSWER_GOAL_S, (fmt, resp.status_code, seconds)
    t0 = time.perf_counter()
    large, links = _design(user, LARGE)
    print(f"\n102,400 GPUs: {links:,} links (planned and saved in {time.perf_counter() - t0:.1f} s)")
    export_jobs.enqueue = real_enqueue
    print(f"  the request for bom.xlsx, {TRIES} tries each (goal p99 < {ANSWER_GOAL_S:g} s)")
    slow = []
    for route, status, p50, p99 in request_times(client, large):
        print(f"  {route:<16}{status:>7}  p50 {p50:.3f} s  p99 {p99:.3f} s")
        slow += [route] if p99 >= ANSWER_GOAL_S else []
    assert not slow, slow
    export_jobs.enqueue = lambda job_id: None  # from here on this script is the worker
    cols = f"{'answer':>7}{'s':>7}{'again':>7}{'job s':>8}{'CPU s':>7}{'peak MB':>9}{'MB':>8}{'kept MB':>9}{'get s':>7}"
    print(f"  {'format':<16}{cols}")
    for fmt in formats:
        t0 = time.perf_counter()
        first = client.get(f"/api/v1/designs/{large.pk}/{fmt}")
        t_answer = time.perf_counter() - t0
        again = client.get(f"/api/v1/designs/{large.pk}/{fmt}")
        job_id = first.json()["id"]
        reused = "same" if again.status_code == 202 and again.json()["id"] == job_id else "NEW"
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": os.environ["DJANGO_SETTINGS_MODULE"]}
        out = subprocess.run(
            [sys.executable, __file__, "--job", str(job_id)], env=env, capture_output=True, text=True, check=True
        )
        run = json.loads(out.stdout.strip().splitlines()[-1])
        job = ExportJob.objects.get(pk=job_id)
        t0 = time.perf_counter()
        got = sum(len(c) for c in client.get(f"/api/v1/exports/{job_id}/download").streaming_content)
        t_get = time.perf_counter() - t0
        assert run["outcome"] == "done" and got == job.size_bytes, (run, got, job.size_bytes)
        assert first.status_code == 202 and t_answer < ANSWER_GOAL_S and reused == "same", (fmt, t_answer)
        print(
            f"  {fmt:<16}{first.status_code:>7}{t_answer:>7.2f}{reused:>7}{run['seconds']:>8.1f}{run['cpu_s']:>7.1f}"
            f"{run['peak_mb']:>9.0f}{job.size_bytes / 1e6:>8.1f}{job.stored_bytes / 1e6:>9.1f}{t_get:>7.2f}"
        )
        assert run["peak_mb"] < PEAK_BOUND_MB, (fmt, run["peak_mb"])
        assert fmt != "bom.xlsx" or run["cpu_s"] < FULL_WORKBOOK_CPU_GOAL_S, (fmt, run["cpu_s"])


if __name__ == "__main__":
    if sys.argv[1:2] == ["--job"]:
        _worker(int(sys.argv[2]))
    else:
        main(tuple(sys.argv[1:]) or HEAVY)
