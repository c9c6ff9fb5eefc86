"""`make mutation`: mutation testing of the pure calculation packages with cosmic-ray.

For every module in MODULES, cosmic-ray changes one operator at a time in a scratch copy of the
working tree (``var/mutation/work-N``), runs the tests that module answers to, and records whether
the tests failed (killed) or passed (survived). Two modules run at once (this machine has 2 cores).

The operators kept are the ones that turn a right formula into a plausibly wrong one — one
replacement per site, as mutmut does — rather than every operator into every other (cosmic-ray's
default makes ~11 mutants per ``+``): + ↔ −, × ↔ ÷, // → /, boundary shifts (< ↔ ≤, > ↔ ≥),
== ↔ !=, and ↔ or, True ↔ False, not removed, a unary minus dropped, a number ±1, a loop run zero
times, break ↔ continue. Lines marked ``# pragma: no mutate`` are skipped (messages, logging).

Writes ``var/mutation/report.md``: the kill ratio per module and every survivor with its line.
Not part of CI (it takes tens of minutes); run it before calling a calculation issue resolved.

    python .ci/mutation.py                      # every module
    python .ci/mutation.py topology/clos.py     # some modules
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "var" / "mutation"
PY = sys.executable
WORKERS = 2
TIMEOUT_S = 240

# module → the tests that pin it (selection keeps one mutant's run to a few seconds)
T = "tests/topology"
MODULES: dict[str, list[str]] = {
    "topology/sizing.py": [T, "tests/cluster/test_pipeline.py"],
    "topology/clos.py": [T],
    "topology/fat_tree.py": [T],
    "topology/rail_optimized.py": [T, "tests/cluster/test_scale_defaults.py", "tests/cluster/test_per_tier_pods.py"],
    "topology/bisection.py": [T],
    "topology/graph.py": [T],
    "topology/dragonfly_plus.py": [T],
    "topology/torus.py": [T],
    "topology/storage_plane.py": [T, "tests/cluster", "tests/bom"],
    "topology/management_plane.py": [T, "tests/cluster", "tests/bom"],
    "topology/collectives.py": [T, "tests/sweeps"],
    "topology/collective_inputs.py": [T],
    "topology/measurements.py": [T],
    "topology/sweep.py": [T, "tests/sweeps"],
    "topology/nccl_logs.py": [T, "tests/designer/test_calibrations.py"],
    "topology/calibration.py": [T, "tests/designer/test_calibrations.py"],
    "cluster/calibrate.py": [T, "tests/designer/test_calibrations.py"],
    "power/facility.py": ["tests/power"],
    "power/racks.py": ["tests/power", "tests/bom/test_part_table.py"],
    "power/cooling.py": ["tests/power"],
    "power/tco.py": ["tests/power"],
    "power/carbon.py": ["tests/power"],
    "power/capping.py": ["tests/power"],
    "power/rack_systems.py": ["tests/power"],
    "bom/build.py": ["tests/bom"],
    "bom/media.py": ["tests/bom"],
    "bom/layout.py": ["tests/bom"],
    "bom/accessories.py": ["tests/bom"],
    "cluster/pipeline.py": ["tests/cluster", "tests/bom/test_part_table.py"],
    "cluster/requests.py": ["tests/cluster", "tests/bom/test_part_table.py"],
    "scheduling/hostlist.py": ["tests/scheduling"],
    "scheduling/partitions.py": ["tests/scheduling"],
    "scheduling/slurm_conf.py": ["tests/scheduling"],
    "scheduling/slurm_topology.py": ["tests/scheduling"],
    "scheduling/kubernetes.py": ["tests/scheduling"],
    "scheduling/tenancy.py": ["tests/scheduling"],
    "scheduling/mig.py": ["tests/scheduling"],
    "scheduling/roce.py": ["tests/scheduling"],
    "scheduling/workload.py": ["tests/scheduling"],
    "scheduling/simulator.py": ["tests/scheduling"],
    "scheduling/failures.py": ["tests/scheduling"],
    "cluster/workload.py": [
        "tests/scheduling",
        "tests/designer/test_simulations.py",
        "tests/designer/test_field_errors.py",
    ],
    "cluster/simulation.py": ["tests/scheduling", "tests/designer/test_simulations.py"],
}

KEEP = (
    r"ReplaceBinaryOperator_(Add_Sub|Sub_Add|Mul_Div|Div_Mul|FloorDiv_Div|Pow_Mul|Mod_FloorDiv)",
    r"ReplaceComparisonOperator_(Lt_LtE|LtE_Lt|Gt_GtE|GtE_Gt|Eq_NotEq|NotEq_Eq|Is_IsNot|IsNot_Is|In_NotIn|NotIn_In)",
    r"ReplaceUnaryOperator_(USub_UAdd|Delete_Not)",
    r"Replace(TrueWithFalse|FalseWithTrue|AndWithOr|OrWithAnd|BreakWithContinue|ContinueWithBreak)",
    r"NumberReplacer",
    r"ZeroIterationForLoop",
)
EXCLUDE = rf"^(?!core/({'|'.join(KEEP)})$)"


def _config(module: str, tests: list[str], line_map: Path) -> str:
    # one mutant runs only the tests that executed its line (.ci/mutant_tests.py); the module's whole
    # selection is the fallback for lines run at import time
    command = f"{PY} {ROOT / '.ci' / 'mutant_tests.py'} {module} {line_map} {ROOT} " + " ".join(tests)
    return f"""[cosmic-ray]
module-path = "{module}"
timeout = {TIMEOUT_S}.0
excluded-modules = []
test-command = "{command}"

[cosmic-ray.distributor]
name = "local"

[cosmic-ray.filters.operators-filter]
exclude-operators = ['{EXCLUDE}']
"""


def _copy_tree(dest: Path) -> None:
    if dest.exists():
        shutil.rmtree(dest)
    ignore = shutil.ignore_patterns(".venv", "var", ".git", "__pycache__", "*.pyc", "node_modules")
    shutil.copytree(ROOT, dest, ignore=ignore)


def _skip_decorators(session: Path, source: list[str]) -> None:
    """Decorator arguments (``@dataclass(frozen=True)``) change no figure: their mutants are equivalent."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    with use_db(str(session), WorkDB.Mode.open) as db:
        for item in list(db.pending_work_items):
            line = item.mutations[0].start_pos[0]
            if line <= len(source) and source[line - 1].lstrip().startswith("@"):
                db.set_result(item.job_id, WorkResult(output="decorator", worker_outcome=WorkerOutcome.SKIPPED))


def coverage_maps(modules: list[str]) -> None:
    """Run the whole suite (no services, no browser) once on a pristine copy, recording which test executed
    which line of every module: ``var/mutation/<module>.lines.json``. One run serves every module."""
    work = OUT / "work-coverage"
    _copy_tree(work)
    data_file = OUT / "suite.coverage"
    data_file.unlink(missing_ok=True)
    junit = OUT / "suite.junit.xml"
    packages = sorted({Path(m).parts[0] for m in modules})
    cmd = [PY, "-m", "pytest", "-q", "-p", "no:randomly", "-m", "not services and not browser"]
    cmd += [f"--cov={work / p}" for p in packages] + ["--cov-context=test", "--cov-report=", f"--junitxml={junit}"]
    env = {**os.environ, "COVERAGE_FILE": str(data_file)}
    try:
        subprocess.run([*cmd, "tests"], cwd=work, env=env, check=True, capture_output=True)
        from coverage import CoverageData

        data = CoverageData(basename=str(data_file))
        data.read()
        seconds = _test_seconds(junit)
        for module in modules:
            by_line: dict[str, list[str]] = {}
            for line, contexts in data.contexts_by_lineno(str(work / module)).items():
                tests = sorted({c.split("|")[0].split("[")[0] for c in contexts if c})
                if tests:
                    by_line[str(line)] = tests
            (OUT / f"{_name(module)}.lines.json").write_text(json.dumps({"lines": by_line, "seconds": seconds}))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _name(module: str) -> str:
    return module.replace("/", "_").removesuffix(".py")


def _test_seconds(junit: Path) -> dict[str, float]:
    """Seconds per test function (parameters summed), so a mutant runs its quickest covering tests first."""
    import xml.etree.ElementTree as ET

    seconds: dict[str, float] = {}
    for case in ET.parse(junit).iter("testcase"):
        node = case.get("classname", "").replace(".", "/") + ".py::" + case.get("name", "").split("[")[0]
        seconds[node] = seconds.get(node, 0.0) + float(case.get("time", 0) or 0)
    return seconds


def run_module(module: str, slot: int) -> dict:
    try:
        return _run_module(module, slot)
    finally:
        shutil.rmtree(OUT / f"work-{slot}", ignore_errors=True)


def _run_module(module: str, slot: int) -> dict:
    work = OUT / f"work-{slot}"
    _copy_tree(work)
    name = _name(module)
    cfg = OUT / f"{name}.toml"
    session = OUT / f"{name}.sqlite"
    cfg.write_text(_config(module, MODULES[module], OUT / f"{name}.lines.json"))
    session.unlink(missing_ok=True)
    bin_dir = Path(PY).parent
    started = time.monotonic()
    for cmd in (
        [bin_dir / "cosmic-ray", "init", cfg, session],
        [bin_dir / "cr-filter-operators", session, cfg],
        [bin_dir / "cr-filter-pragma", session],
    ):
        subprocess.run([str(c) for c in cmd], cwd=work, check=True, capture_output=True)
    _skip_decorators(session, (ROOT / module).read_text().splitlines())
    subprocess.run(
        [str(bin_dir / "cosmic-ray"), "exec", str(cfg), str(session)], cwd=work, check=True, capture_output=True
    )
    elapsed = time.monotonic() - started
    dump = subprocess.run(
        [str(bin_dir / "cosmic-ray"), "dump", str(session)], capture_output=True, text=True, check=True
    ).stdout
    source = (ROOT / module).read_text().splitlines()
    killed, survived, timeouts = 0, [], 0
    for row in dump.splitlines():
        item, result = json.loads(row)
        if not result or result.get("worker_outcome") != "normal":
            continue  # skipped (filtered operator or pragma) or not run
        mutation = item["mutations"][0]
        if result["test_outcome"] == "killed":
            killed += 1
        elif result["test_outcome"] == "survived":
            line = mutation["start_pos"][0]
            survived.append(
                {
                    "line": line,
                    "operator": mutation["operator_name"].removeprefix("core/"),
                    "occurrence": mutation["occurrence"],
                    "source": source[line - 1].strip() if line <= len(source) else "",
                }
            )
        else:
            timeouts += 1
    total = killed + len(survived)
    return {
        "module": module,
        "killed": killed,
        "survived": survived,
        "incompetent": timeouts,
        "total": total,
        "ratio": killed / total if total else 1.0,
        "minutes": elapsed / 60,
    }


def report(results: list[dict]) -> str:
    lines = [
        "# Mutation testing report",
        "",
        "Produced by `make mutation` (.ci/mutation.py, cosmic-ray). A mutant is *killed* when its module's",
        "tests fail on it. Survivors are listed below each module with the line they changed.",
        "",
        "| module | mutants | killed | survived | kill ratio | minutes |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| `{r['module']}` | {r['total']} | {r['killed']} | {len(r['survived'])} | "
            f"{r['ratio']:.1%} | {r['minutes']:.1f} |"
        )
    killed = sum(r["killed"] for r in results)
    total = sum(r["total"] for r in results)
    lines.append(f"| **all** | {total} | {killed} | {total - killed} | {killed / max(total, 1):.1%} | |")
    for r in results:
        if not r["survived"]:
            continue
        lines += ["", f"## Survivors in `{r['module']}`", ""]
        for s in sorted(r["survived"], key=lambda s: s["line"]):
            lines.append(f"- line {s['line']} `{s['operator']}` #{s['occurrence']}: `{s['source']}`")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    modules = argv or list(MODULES)
    unknown = [m for m in modules if m not in MODULES]
    if unknown:
        print(f"unknown module(s): {', '.join(unknown)}; known: {', '.join(MODULES)}", file=sys.stderr)
        return 2
    OUT.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    coverage_maps(modules)
    print(f"coverage map of the suite: {(time.monotonic() - started) / 60:.1f} min", flush=True)
    results: list[dict] = []
    with ThreadPoolExecutor(WORKERS) as pool:
        futures = [pool.submit(run_module, m, i) for i, m in enumerate(modules)]
        for f in futures:
            r = f.result()
            results.append(r)
            print(
                f"{r['module']}: {r['killed']}/{r['total']} killed ({r['ratio']:.1%}) in {r['minutes']:.1f} min",
                flush=True,
            )
    (OUT / "report.md").write_text(report(results))
    print(f"report: {OUT / 'report.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
