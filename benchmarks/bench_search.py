"""Design search speed (`make bench`): candidates per second per worker, and a full search end to end.

1. Candidates/s of one worker (this process, cluster.search.evaluate_range: the pipeline's counts-only path,
   the figures, the all-reduce) at 2k, 16k and 100k GPUs, over a grid of families, oversubscriptions and media,
   with the share refused (a refusal stops at the fabric planner, so it is cheaper than a planned candidate).
2. The 16k demo (examples/fat-tree-16k-3tier.yaml) searched over ≥ 2,000 candidates end to end on Celery: a
   fresh database (embedded defaults: SQLite + the filesystem broker), N real worker processes (default 2), from
   "create" to the report stored; candidates/s overall and per worker.

    python benchmarks/bench_search.py            # both
    python benchmarks/bench_search.py rate       # 1 only
    python benchmarks/bench_search.py e2e 2      # 2 only, with 2 workers
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bom.plan import Catalog  # noqa: E402
from cluster.search import evaluate_range, parse_spec  # noqa: E402
from cluster.validate import load_requirements_file, validate, validate_flat  # noqa: E402

SCALES = {  # the same designs as benchmarks/bom.py
    2_000: {"gpu_count": 2000},
    16_384: {"gpu_count": 16384, "storage_node_count": 48, "storage_switch_radix": 64, "storage_switch_port_gbps": 400},
    102_400: {"gpu_count": 102400, "switch_model": "SN5600-400G", "switch_radix": 128, "switch_port_gbps": 400,
              "storage_node_count": 200, "storage_switch_radix": 64, "storage_switch_port_gbps": 400},
}  # fmt: skip
RATE_SPEC = {
    "vary": {
        "topology": ["rail_optimized", "fat_tree", "dragonfly_plus"],
        "oversubscription": [1, 2],
        "bom_media": ["by_reach", "all_optics"],
    }
}
CANDIDATES_PER_SCALE = {2_000: 12, 16_384: 12, 102_400: 6}  # planned candidates timed (every one distinct)
E2E_SPEC = {
    "vary": {
        "topology": ["rail_optimized", "fat_tree"],
        "oversubscription": [1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 5, 6, 8],
        "agg_oversubscription": [1, 2],
        "tiers": [2, 3],
        "bom_media": ["by_reach", "all_optics"],
        "cooling_type": ["air", "air_containment", "direct_to_chip", "immersion"],
        "switch_model": ["QM9700", "SN5600-400G", "7816R3"],
    },
    "constraints": {"min_bisection_tbyte_s": 100},
    "objectives": ["capex_usd", "facility_kw"],
}  # 2 × 12 × 2 × 2 × 2 × 4 × 3 = 2,304 candidates, every axis applies to both Clos families: none duplicate


def rate() -> None:
    catalog = Catalog.built_in()
    print(f"{'GPUs':>8}{'candidates':>12}{'refused':>9}{'s':>8}{'candidates/s':>14}  (one worker, counts-only path)")
    for gpus, flat in SCALES.items():
        spec = parse_spec(validate_flat(flat).flat(), RATE_SPEC)
        evaluate_range(spec, 0, 1, catalog)  # warm: imports and caches
        rows, t0 = [], time.perf_counter()
        for i in range(spec.candidate_count):
            row = evaluate_range(spec, i, i + 1, catalog)[0]
            if row["s"] != "duplicate":
                rows.append(row)
            if len(rows) >= CANDIDATES_PER_SCALE[gpus]:
                break
        seconds = time.perf_counter() - t0
        refused = sum(r["s"] == "refused" for r in rows)
        print(f"{gpus:>8,}{len(rows):>12}{refused:>9}{seconds:>8.2f}{len(rows) / seconds:>14.1f}")


def environment() -> dict[str, str]:
    var = tempfile.mkdtemp(prefix="bench-search-")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "designer.settings", "SECRET_KEY": "bench", "DEBUG": "0",
           "VAR_DIR": var, "SEARCH_CHUNK_CANDIDATES": "25"}  # fmt: skip
    for key in ("DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND"):
        env.pop(key, None)
    return env


def start_workers(env: dict[str, str], n: int) -> list[subprocess.Popen]:
    cmd = [sys.executable, "-m", "celery", "-A", "designer", "worker", "--concurrency", "1", "--loglevel", "WARNING"]
    return [
        subprocess.Popen(
            [*cmd, "--hostname", f"search{i}@%h"],
            cwd=ROOT,
            env=env,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for i in range(n)
    ]


def e2e(workers: int) -> None:
    """Runs in a child process with its own settings (see main)."""
    env = environment()
    os.environ.update(env)
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from designer.searches import create_search, search_progress
    from designer.services import create_design, evaluate_flat

    call_command("migrate", verbosity=0)
    user, _ = get_user_model().objects.get_or_create(username="bench")
    base = validate(load_requirements_file(ROOT / "examples" / "fat-tree-16k-3tier.yaml"))
    design = create_design(user, base, evaluate_flat(base))
    procs = start_workers(env, workers)
    try:
        time.sleep(3)  # the workers start (not timed)
        t0 = time.perf_counter()
        search = create_search(user, design.head, E2E_SPEC)
        while (p := search_progress(search))["status"] in ("pending", "running"):
            time.sleep(0.5)
        wall = time.perf_counter() - t0
    finally:
        for proc in procs:
            os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            proc.wait(timeout=30)
        shutil.rmtree(env["VAR_DIR"], ignore_errors=True)
    search.refresh_from_db()
    stored = sum(len(bytes(b or b"")) for b in search.chunks.values_list("rows", flat=True))
    print(f"stored rows: {stored:,} bytes = {stored / search.total_candidates:.0f} bytes a candidate (zlib JSON)")
    c = search.report["counts"]
    print(
        f"16k demo search: {search.total_candidates:,} candidates ({c['feasible']:,} feasible, {c['excluded']:,} "
        f"excluded, {c['refused']:,} refused, {c['duplicate']:,} duplicate), {workers} worker(s): {wall:.1f} s "
        f"from create to report = {search.total_candidates / wall:.1f} candidates/s, "
        f"{search.total_candidates / wall / workers:.1f} per worker; status {p['status']}; best: "
        f"{search.report['best']['combo'] if search.report['best'] else None}"
    )


def main(argv: list[str]) -> None:
    what = argv[0] if argv else "all"
    if what in ("all", "rate"):
        rate()
    if what in ("all", "e2e"):
        workers = int(argv[1]) if len(argv) > 1 else 2
        if what == "all":  # a fresh interpreter: Django set up on its own database
            subprocess.run([sys.executable, __file__, "e2e", str(workers)], check=True, cwd=ROOT)
        else:
            e2e(workers)


if __name__ == "__main__":
    main(sys.argv[1:])
