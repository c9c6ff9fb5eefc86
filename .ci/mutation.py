"""`make mutation`: mutation testing of the pure calculation packages with cosmic-ray.

cosmic-ray lists the mutants of every module in MODULES — one operator changed at one place — and keeps
the verdicts in its session database (``var/mutation/<module>.sqlite``; ``cosmic-ray dump`` reads it). The
operators kept are the ones that turn a right formula into a plausibly wrong one — one replacement per
site, as mutmut does — rather than every operator into every other (cosmic-ray's default makes ~11
mutants per ``+``): + ↔ −, × ↔ ÷, // → /, boundary shifts (< ↔ ≤, > ↔ ≥), == ↔ !=, and ↔ or,
True ↔ False, not removed, a unary minus dropped, a number ±1, a loop run zero times, break ↔ continue.
Lines marked ``# pragma: no mutate`` are skipped (messages, logging), and so are decorator arguments.

How a mutant is run (the verdict is the same as cosmic-ray's own executor would give; only faster):

1. *Coverage map.* The modules' test selections (MODULES) run once on the pristine code recording which test
   executed which line (``var/mutation/<module>.lines.json``; the project's ``functools.cache`` memos are
   emptied before each test by .ci/mutation_coverage.py, so every caller of a cached function is recorded). A
   mutant runs only the tests of its module's selection that executed its statement (a module-level
   assignment: those that executed a line reading a name it binds, in any module; a class body: those that
   read the class's name or ran its methods) — those that already
   killed a mutant of the module first, then quickest first — stopping at the first failure. A statement
   inside a function that no test executes cannot change any test's outcome: its mutant is reported as a
   survivor "not reached", without a run.
2. *Fast path* (.ci/mutation_fork.py): one pytest session collects the suite once and forks a child per
   mutant that swaps the mutated function's code into the live function, or re-runs a mutated
   module-level statement (a constant, a class body, a default) against the live names — no interpreter
   start, no Django set-up, no collection per mutant.
   A Python process a test starts (``cluster-designer simulate``) runs the mutant too: the child hands every
   subprocess .ci/mutation_site (its sitecustomize.py compiles the module from the mutated source).
3. *Slow path:* a scratch copy of the tree (``var/mutation/work-N``) with the mutant written to disk and a
   fresh pytest process — for what the fast path cannot change in memory (imports, functions already
   called at import or collection).

Writes ``var/mutation/report.md``: the kill ratio per module and every survivor with its line and why it is
accepted — an equivalent mutant or a known gap, from ``.ci/mutation_accepted.yaml`` (module → entries of
``source`` (text of the survivor's line), optional ``operator`` (a prefix of its name) and ``why``); a survivor
no entry explains is marked **unexplained**, and an entry that explains no survivor of its module is listed
as stale.
Not part of CI; run it before calling a calculation issue resolved.

Why not mutmut 3 (issue #33.5; measured with mutmut 3.8.1, the same test selections, README "Mutation testing"):
it runs a fresh pytest session per mutant, so a module whose tests reach a Django page pays the session and its
test database for every mutant (power/tco.py: 373 s against 87 s here); its forked children share one SQLite
test database (26 false kills on power/tco.py until a plugin gave each its own); its operators cannot be chosen
(2.6–2.8× the mutants, most of the extra survivors derivation text); and it mutates only the bodies of
undecorated functions (576 of the 4,595 formula sites of MODULES — constants, tables, dataclass defaults,
properties, cached functions — are out of its reach).

    python .ci/mutation.py                      # every module
    python .ci/mutation.py topology/clos.py     # some modules
    MUTATION_REUSE_MAP=1 python .ci/mutation.py …   # keep the last coverage map (tests unchanged since)
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from mutation_readers import assigned, assigned_by, class_at, class_names, module_names, read_at_import, read_lines

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "var" / "mutation"
PY = sys.executable
WORKERS = 2
TIMEOUT_S = 240

# module → the tests that pin it (selection keeps one mutant's run to a few seconds)
T = "tests/topology"
# the BOM builders' figures are pinned by the pure BOM tests; the pages and exports that print them (the Django
# client's xlsx, csv, procurement and catalogue views: 55 s of the 98 s of tests/bom) check formats, and a survivor
# would run them all
BOM = [
    "tests/bom/test_bom_golden.py",
    "tests/bom/test_build_rules.py",
    "tests/bom/test_media_rules.py",
    "tests/bom/test_layout_rules.py",
    "tests/bom/test_accessories_rules.py",
    "tests/bom/test_link_table.py",
    "tests/bom/test_part_table.py",
    "tests/bom/test_elevation.py",
    "tests/bom/test_odd_ports.py",  # the odd-port pairing and its search (bom/build.py pair_odd_ports)
    "tests/bom/test_cages.py",  # cages per switch and the live count against per-cable records
    "tests/bom/test_nvl72_rack.py",
    "tests/bom/test_layout_hall.py",
    "tests/bom/test_build_kills_choose.py",  # survivors of bom/build.py killed by hand-derived cases (2026-12-06)
    "tests/bom/test_build_kills_pairing.py",
    "tests/bom/test_build_kills_count.py",
    "tests/bom/test_nic_runs.py",  # the live table's runs of NIC links counted as a row a link (bom/link_table.py)
    "tests/bom/test_leaf_positions_memo.py",
    "tests/bom/test_leaf_span_runs.py",  # a rail Clos's NIC runs and leaf positions from its spans (bom/link_table.py)
    "tests/bom/test_per_rack.py",  # bom/layout.py per_rack against the function end by end
    "tests/bom/test_bom_memo_key.py",  # the live BOM's memo key: the rack plan less its hall (bom/plan.py)
]
MODULES: dict[str, list[str]] = {
    "topology/sizing.py": [T, "tests/cluster/test_pipeline.py"],
    "topology/clos.py": [T],
    "topology/fat_tree.py": [T],
    "topology/rail_optimized.py": [T, "tests/cluster/test_scale_defaults.py", "tests/cluster/test_per_tier_pods.py"],
    "topology/bisection.py": [T],
    "topology/graph.py": [T],
    "topology/dragonfly_plus.py": [T],
    "topology/torus.py": [T],
    "topology/storage_plane.py": [T, "tests/cluster", *BOM],
    "topology/management_plane.py": [T, "tests/cluster", *BOM],
    "topology/collectives.py": [T],  # (the sweep tests time out in forked children; the formulas are pinned in T)
    "topology/collective_inputs.py": [T],
    "topology/measurements.py": [T],
    "topology/sweep.py": [T, "tests/sweeps"],
    "topology/nccl_logs.py": [T, "tests/designer/test_calibrations.py"],
    "topology/calibration.py": [T, "tests/designer/test_calibrations.py"],
    "cluster/calibrate.py": [T, "tests/designer/test_calibrations.py", "tests/cluster/test_calibrate_rules.py"],
    "power/facility.py": ["tests/power"],
    "power/racks.py": ["tests/power", "tests/bom/test_part_table.py"],
    "power/cooling.py": ["tests/power"],
    "power/tco.py": ["tests/power"],
    "power/carbon.py": ["tests/power"],
    "power/capping.py": ["tests/power"],
    "power/rack_systems.py": ["tests/power"],
    "power/platforms.py": ["tests/power"],
    "power/plan.py": ["tests/power", "tests/cluster"],
    "bom/build.py": BOM,
    "bom/link_table.py": BOM,
    "bom/media.py": BOM,
    "bom/layout.py": BOM,
    "bom/accessories.py": BOM,
    "bom/cells.py": BOM,
    "designer/heap.py": ["tests/designer/test_heap.py"],  # the web process's heap: frozen, young GC spaced, reserved
    "designer/api/cycles.py": ["tests/designer/test_response_cycles.py"],  # a rendered response freed by refcount
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
    "scheduling/calculators.py": ["tests/scheduling", "tests/cluster/test_pipeline.py"],
    "scheduling/capacity.py": ["tests/scheduling"],
    "scheduling/carbon.py": ["tests/scheduling"],
    "scheduling/network.py": ["tests/scheduling"],
    "scheduling/trace.py": ["tests/scheduling"],
    "scheduling/tidal.py": ["tests/scheduling"],
    "cluster/workload.py": [
        "tests/scheduling",
        "tests/cluster/test_workload_batch.py",
        "tests/designer/test_simulations.py",
        "tests/designer/test_field_errors.py",
    ],
    # the designer's simulation tests time out in the forked children (a Django client per mutant): the pure
    # rules are pinned by the design-simulation tests, which call cluster.simulation directly
    "cluster/simulation.py": [
        "tests/scheduling/test_design_simulation.py",
        "tests/scheduling/test_design_simulation_rules.py",
    ],
}

# Real programs run by the suite (LibreOffice recalculating a workbook: 10–80 s a test; slurmctld reading the
# Slurm files): integration checks of a file format, not of a formula — the figures they read are pinned by
# the fast tests beside them. A survivor would run them all (minutes a mutant), so mutants do not.
NOT_FOR_MUTANTS = (
    "tests/bom/test_xlsx_libreoffice.py",
    "tests/bom/test_xlsx_libreoffice_examples.py",
    "tests/bom/test_diff.py::test_libreoffice_recalculates_the_diff",
    "tests/scheduling/test_slurmctld.py",
)

KEEP = (
    r"ReplaceBinaryOperator_(Add_Sub|Sub_Add|Mul_Div|Div_Mul|FloorDiv_Div|Pow_Mul|Mod_FloorDiv)",
    r"ReplaceComparisonOperator_(Lt_LtE|LtE_Lt|Gt_GtE|GtE_Gt|Eq_NotEq|NotEq_Eq|Is_IsNot|IsNot_Is|In_NotIn|NotIn_In)",
    r"ReplaceUnaryOperator_(USub_UAdd|Delete_Not)",
    r"Replace(TrueWithFalse|FalseWithTrue|AndWithOr|OrWithAnd|BreakWithContinue|ContinueWithBreak)",
    r"NumberReplacer",
    r"ZeroIterationForLoop",
)
EXCLUDE = rf"^(?!core/({'|'.join(KEEP)})$)"


# the project's packages: the coverage map records which test executed which line of each
PACKAGES = ("bom", "cluster", "designer", "power", "scheduling", "topology")


def _copy_tree(dest: Path) -> None:
    if dest.exists():
        shutil.rmtree(dest)
    ignore = shutil.ignore_patterns(".venv", "var", ".git", "__pycache__", "*.pyc", "node_modules")
    shutil.copytree(ROOT, dest, ignore=ignore)


def _name(module: str) -> str:
    return module.replace("/", "_").removesuffix(".py")


def coverage_maps(modules: list[str]) -> None:
    """Run the modules' test selections (MODULES; no services, no browser, nothing in NOT_FOR_MUTANTS) once on
    a pristine copy, recording which test executed which line of every module:
    ``var/mutation/<module>.lines.json``. One run serves every module (a mutant only ever runs tests of its
    module's selection). The test files are shared out over WORKERS pytest processes (each its own coverage
    data and test database), largest first onto the least loaded."""
    work = OUT / "work-coverage"
    _copy_tree(work)
    packages = PACKAGES  # every package: a module's names are read in others (``from m import NAME``)
    try:
        selection = sorted({t for m in modules for t in MODULES[m]})
        shards = _shards(_test_files(selection), WORKERS, _file_seconds())
        skip = [f"--deselect={t}" if "::" in t else f"--ignore={t}" for t in NOT_FOR_MUTANTS]
        runs = []
        for n, files in enumerate(shards):
            data_file, junit = OUT / f"suite.coverage.{n}", OUT / f"suite.junit.{n}.xml"
            data_file.unlink(missing_ok=True)
            cmd = [PY, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "mutation_coverage"]
            cmd += ["-m", "not services and not browser", *(f"--cov={work / p}" for p in packages)]
            cmd += ["--cov-context=test", "--cov-report=", f"--junitxml={junit}", *skip, *files]
            setup_file = OUT / f"suite.setup.{n}.json"  # each file's longest test set-up (.ci/mutation_coverage.py)
            env = {**os.environ, "COVERAGE_FILE": str(data_file), "MUTATION_SETUP_FILE": str(setup_file),
                   "PYTHONPATH": os.pathsep.join([str(ROOT / ".ci"), os.environ.get("PYTHONPATH", "")])}  # fmt: skip
            runs.append((subprocess.Popen(cmd, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT),
                         data_file, junit))  # fmt: skip
        failed = [(proc.communicate()[0], proc.returncode) for proc, _, _ in runs]
        for output, code in failed:
            if code != 0:
                sys.stderr.write(output.decode(errors="replace")[-4000:])
                raise SystemExit(f"the coverage map's pytest run failed on the pristine code (exit {code})")
        from coverage import CoverageData

        seconds: dict[str, float] = {}
        setup_s: dict[str, float] = {}  # test file → its longest set-up (shared fixtures), for the time limits
        by_module: dict[str, dict[str, set[str]]] = {module: {} for module in modules}
        for n, (_, data_file, junit) in enumerate(runs):
            seconds |= _test_seconds(junit)
            setup_s |= json.loads((OUT / f"suite.setup.{n}.json").read_text())
            data = CoverageData(basename=str(data_file))
            data.read()
            for module in modules:
                for line, contexts in data.contexts_by_lineno(str(work / module)).items():
                    tests = {c.split("|")[0].split("[")[0] for c in contexts if c}
                    if tests:
                        by_module[module].setdefault(str(line), set()).update(tests)
        datas = [CoverageData(basename=str(data_file)) for _, data_file, _ in runs]
        for data in datas:
            data.read()
        for module, by_line in by_module.items():
            lines = {line: sorted(tests) for line, tests in by_line.items()}
            found = _readers(module, datas, work, seconds)
            (OUT / f"{_name(module)}.lines.json").write_text(
                json.dumps({"lines": lines, "seconds": seconds, "setup_s": setup_s, "readers": found})
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _readers(module: str, datas: list, work: Path, seconds: dict[str, float]) -> dict[str, list[str]]:
    """Each module-level name of the module (an assignment's, a class's) → the tests of its selection that read
    it at run time (.ci/mutation_readers.py): those that executed a line reading it in any project module, and
    every test of a test file that names it. A name read at import time anywhere (line 0: a constant built from
    it, a subclass, an instance made at import) is left out: its mutants run the module's whole selection."""
    module_name = module.removesuffix(".py").replace("/", ".")
    own = (ROOT / module).read_text()
    names = module_names(own) | class_names(own)  # a class: the tests that make or use it (its body's mutants)
    found: dict[str, set[str]] = {n: set() for n in names}
    if not names:
        return {}
    # read at import in the module itself, following the functions its top-level statements call (as the fast path)
    at_import = {n for st in ast.parse(own).body if read_at_import(own, st.lineno) for n in assigned_by(st)}
    for data in datas:
        for path in data.measured_files():
            rel = Path(path).relative_to(work).as_posix() if Path(path).is_relative_to(work) else None
            if rel is None or not rel.endswith(".py"):
                continue
            source = Path(path).read_text()
            if rel != module and module_name not in source and module_name.rpartition(".")[2] not in source:
                continue
            reads = read_lines(source, module_name, names, own=rel == module)
            if not reads:
                continue
            by_line = data.contexts_by_lineno(path)
            for name, at in reads.items():
                if 0 in at:
                    at_import.add(name)
                for line in at:
                    found[name] |= {c.split("|")[0].split("[")[0] for c in by_line.get(line, []) if c}
    prefix = tuple(MODULES[module])
    for test_file in _test_files(MODULES[module]):
        text = (ROOT / test_file).read_text()
        if module_name not in text and module_name.rpartition(".")[2] not in text:
            continue
        named = [n for n in names if re.search(rf"\b{re.escape(n)}\b", text)]
        for test in seconds:
            if test.startswith(test_file + "::") and test.startswith(prefix):
                for n in named:
                    found[n].add(test)
    return {n: sorted(t) for n, t in found.items() if n not in at_import}


def _test_files(selection: list[str]) -> list[str]:
    """The test files of a selection of files and folders (NOT_FOR_MUTANTS files left out)."""
    files: set[str] = set()
    for entry in selection:
        path = ROOT / entry
        found = sorted(path.rglob("test_*.py")) if path.is_dir() else [path]
        files.update(str(f.relative_to(ROOT)) for f in found)
    return sorted(f for f in files if f not in NOT_FOR_MUTANTS)


def _file_seconds() -> dict[str, float]:
    """Seconds per test file in the last coverage map, if there is one (every map holds every test's)."""
    known: dict[str, float] = {}
    for old in OUT.glob("*.lines.json"):
        for test, s in json.loads(old.read_text()).get("seconds", {}).items():
            known[test.split("::")[0]] = known.get(test.split("::")[0], 0.0) + s
        break
    return known


def _shards(files: list[str], count: int, known: dict[str, float]) -> list[list[str]]:
    """The files in ``count`` shares of about equal work: by ``known`` seconds per file (the last map's) where
    known, else by size; largest first, each onto the share with the least so far (empty shares dropped)."""
    weight = {f: known[f] if f in known else (ROOT / f).stat().st_size / 2000 for f in files}  # ~2 kB a second
    shares: list[list[str]] = [[] for _ in range(count)]
    load = [0.0] * count
    for f in sorted(files, key=lambda f: (-weight[f], f)):
        n = load.index(min(load))
        shares[n].append(f)
        load[n] += weight[f]
    return [sorted(s) for s in shares if s]


def _test_seconds(junit: Path) -> dict[str, float]:
    """Seconds per test function (parameters summed), so a mutant runs its quickest covering tests first."""
    import xml.etree.ElementTree as ET

    seconds: dict[str, float] = {}
    for case in ET.parse(junit).iter("testcase"):
        node = case.get("classname", "").replace(".", "/") + ".py::" + case.get("name", "").split("[")[0]
        seconds[node] = seconds.get(node, 0.0) + float(case.get("time", 0) or 0)
    return seconds


def init_session(module: str) -> Path:
    """cosmic-ray's session database of the module's mutants, the filtered operators and pragmas removed."""
    name = _name(module)
    cfg = OUT / f"{name}.toml"
    session = OUT / f"{name}.sqlite"
    cfg.write_text(
        f'[cosmic-ray]\nmodule-path = "{module}"\ntimeout = {TIMEOUT_S}.0\nexcluded-modules = []\n'
        f'test-command = "(run by .ci/mutation.py)"\n\n[cosmic-ray.distributor]\nname = "local"\n\n'
        f"[cosmic-ray.filters.operators-filter]\nexclude-operators = ['{EXCLUDE}']\n"
    )
    session.unlink(missing_ok=True)
    bin_dir = Path(PY).parent
    for cmd in (
        [bin_dir / "cosmic-ray", "init", cfg, session],
        [bin_dir / "cr-filter-operators", session, cfg],
        [bin_dir / "cr-filter-pragma", session],
    ):
        subprocess.run([str(c) for c in cmd], cwd=ROOT, check=True, capture_output=True)
    _skip_decorators(session, (ROOT / module).read_text().splitlines())
    return session


def _skip_decorators(session: Path, source: list[str]) -> None:
    """Decorator arguments (``@dataclass(frozen=True)``) change no figure: their mutants are equivalent."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    with use_db(str(session), WorkDB.Mode.open) as db:
        for item in list(db.pending_work_items):
            line = item.mutations[0].start_pos[0]
            if line <= len(source) and source[line - 1].lstrip().startswith("@"):
                db.set_result(item.job_id, WorkResult(output="decorator", worker_outcome=WorkerOutcome.SKIPPED))


class Scopes:
    """Where a position of a module lies: its function (outermost, by qualified name) and its statement."""

    def __init__(self, source: str) -> None:
        self.functions: list[tuple[int, int, int, str]] = []  # (def line, first body line, last line, qualname)
        self.statements: list[tuple[int, int]] = []
        self._walk(ast.parse(source), "", inside=False)

    def _walk(self, node: ast.AST, prefix: str, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                self.statements.append((child.lineno, child.end_lineno or child.lineno))
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and not inside:
                qualname = prefix + child.name
                end = child.end_lineno or child.lineno
                self.functions.append((child.lineno, child.body[0].lineno, end, qualname))
                self._walk(child, qualname + ".<locals>.", inside=True)
            elif isinstance(child, ast.ClassDef) and not inside:
                self._walk(child, prefix + child.name + ".", inside=False)
            else:
                self._walk(child, prefix, inside)

    def function(self, first: int, last: int) -> str | None:
        """The function whose body holds lines first…last (None: module level, a class body, a signature)."""
        for _, begin, end, qualname in self.functions:
            if begin <= first and last <= end:
                return qualname
        return None

    def signature(self, line: int) -> range | None:
        """The body lines of the function whose signature (its defaults) holds the line, if one does."""
        for start, begin, end, _ in self.functions:
            if start <= line < begin:
                return range(begin, end + 1)
        return None

    def statement(self, first: int, last: int) -> range:
        """The lines of the innermost statement holding lines first…last."""
        spans = [(b, e) for b, e in self.statements if b <= first and last <= e]
        begin, end = min(spans, key=lambda s: s[1] - s[0]) if spans else (first, last)
        return range(begin, end + 1)


def plan_jobs(module: str, session: Path) -> list[dict]:
    """Every pending mutant of the module with its function, covering tests (quickest first) and time limit.

    A mutant inside a function body runs the tests that executed its statement; one in a signature (a
    default) the tests that executed the function's body; one in a module-level assignment (a constant, a
    table: run at import, so no test is recorded on it) the tests that read a name it binds at run time
    (``readers``, .ci/mutation_readers.py); one in a class body the tests that read the class's name at run time
    or ran its methods; any other module-level statement the module's whole test selection. Always
    within the module's own selection (MODULES): the tests that pin it, not every page, export and
    LibreOffice recalculation that happens to reach it (a survivor would run them all: minutes a mutant)."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    recorded = json.loads((OUT / f"{_name(module)}.lines.json").read_text())
    by_line, seconds, readers = recorded["lines"], recorded["seconds"], recorded.get("readers", {})
    source = (ROOT / module).read_text()
    lines = source.splitlines()
    scopes = Scopes(source)
    fallback = _selection(module, seconds)
    jobs = []
    with use_db(str(session), WorkDB.Mode.open) as db:
        for item in db.pending_work_items:
            mutation = item.mutations[0]
            (first, col), last = mutation.start_pos, mutation.end_pos[0]
            qualname = scopes.function(first, last)
            body = scopes.signature(first) if qualname is None else None
            if body is not None and "BinaryOperator" in mutation.operator_name and lines[first - 1][col] in "*/":
                # the `*` / `/` markers of a parameter list, not an arithmetic operator
                db.set_result(item.job_id, WorkResult(output="signature marker", worker_outcome=WorkerOutcome.SKIPPED))
                continue
            span = scopes.statement(first, last) if qualname else body
            names = assigned(source, first) if span is None else set()
            made = class_at(source, first) if span is None else None
            whole_if_slow = False
            if span is not None:
                tests = {t for line in span for t in by_line.get(str(line), [])}
            elif names and all(n in readers for n in names):
                tests = {t for n in names for t in readers[n]}  # an assignment: the tests that read its names
            elif made is not None and made.name in readers:
                # a class body (a field default, a class constant): the tests that make or use the class, and
                # those that ran its methods (``self.LIMIT``). Sent to the slow path (an instance made before
                # the fork), it runs the whole selection: a value built then reaches tests this cannot name.
                own = range(made.lineno, (made.end_lineno or made.lineno) + 1)
                tests = set(readers[made.name]) | {t for line in own for t in by_line.get(str(line), [])}
                whole_if_slow = True
            else:
                tests = set(fallback)  # a class read at import, another statement: the whole selection
            tests &= set(fallback)  # the module's own tests (MODULES): not every page or export that reaches it
            ordered = sorted(tests, key=lambda t: (seconds.get(t, 60.0), t))
            budget_s = sum(seconds.get(t, 60.0) for t in ordered)
            jobs.append(
                {
                    "id": f"{module}:{item.job_id}",
                    "job_id": item.job_id,
                    "module": module,
                    "module_name": module.removesuffix(".py").replace("/", "."),
                    "file": str(ROOT / module),
                    "qualname": qualname,
                    "operator": mutation.operator_name,
                    "occurrence": mutation.occurrence,
                    "line": first,
                    "tests": ordered,
                    "whole_if_slow": whole_if_slow,
                    "timeout_s": 30.0 + 2 * budget_s,  # a mutant that loops; a survivor runs its whole selection
                }
            )
    return jobs


def fast_path(jobs: list[dict]) -> dict[str, dict]:
    """Run the jobs in one forking pytest session (.ci/mutation_fork.py); their verdicts by job id."""
    spec = OUT / "jobs.json"
    results = OUT / "fast.jsonl"
    recorded = json.loads((OUT / f"{_name(jobs[0]['module'])}.lines.json").read_text()) if jobs else {}
    seconds, setup_s = recorded.get("seconds", {}), recorded.get("setup_s", {})
    spec.write_text(
        json.dumps({"files": sorted({j["file"] for j in jobs}), "jobs": jobs, "seconds": seconds, "setup_s": setup_s})
    )
    results.unlink(missing_ok=True)
    env = {
        **os.environ,
        "MUTATION_JOBS": str(spec),
        "MUTATION_RESULTS": str(results),
        "MUTATION_WORKERS": str(WORKERS),
        "PYTHONPATH": os.pathsep.join([str(ROOT / ".ci"), os.environ.get("PYTHONPATH", "")]),
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
    }
    cmd = [PY, "-m", "pytest", "-q", "-s", "-p", "no:randomly", "-p", "mutation_fork"]
    cmd += ["-m", "not services and not browser", "tests"]
    if jobs:
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        if done.returncode not in (0, 5):
            sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
            raise SystemExit(f"the fast path's pytest session failed (exit {done.returncode})")
    verdicts = {}
    if results.exists():
        for line in results.read_text().splitlines():
            row = json.loads(line)
            verdicts[row["id"]] = row
    return verdicts


def _selection(module: str, seconds: dict[str, float]) -> list[str]:
    """The module's whole test selection (MODULES) as test ids: every test of it the coverage map ran."""
    prefixes = tuple(MODULES[module])
    return [t for t in seconds if t.startswith(prefixes) and not t.startswith(NOT_FOR_MUTANTS)]


def slow_jobs(jobs: list[dict], verdicts: dict[str, dict]) -> list[dict]:
    """The jobs the fast path could not decide, for the slow path: each with its tests in the order a kill comes
    soonest (pytest -x stops there) — the tests that killed most of the module's mutants on the fast path
    first, then quickest first — and its whole selection so (not its folders in file order) where it needs it."""
    tally: dict[str, dict[str, int]] = {}  # module → test → mutants of it the test killed on the fast path
    for verdict in verdicts.values():
        if verdict.get("killed_by"):
            kills = tally.setdefault(verdict["id"].rpartition(":")[0], {})
            kills[verdict["killed_by"]] = kills.get(verdict["killed_by"], 0) + 1
    seconds: dict[str, dict[str, float]] = {}
    slow = []
    for job in jobs:
        verdict = verdicts.get(job["id"], {"outcome": "slow"})["outcome"]
        if verdict not in ("slow", "error"):
            continue
        module = job["module"]
        if module not in seconds:
            seconds[module] = json.loads((OUT / f"{_name(module)}.lines.json").read_text())["seconds"]
        whole = job.get("whole_if_slow") or not job["tests"]
        tests = _selection(module, seconds[module]) if whole else job["tests"]
        kills = tally.get(module, {})
        ordered = sorted(tests, key=lambda t: (-kills.get(t, 0), seconds[module].get(t, 60.0), t))
        slow.append({**job, "selection": ordered})
    return slow


def slow_path(jobs: list[dict]) -> dict[str, dict]:
    """Run each job in a scratch copy of the tree with the mutant on disk and a fresh pytest process."""
    (OUT / "slow.jsonl").unlink(missing_ok=True)
    if not jobs:
        return {}
    slots = [OUT / f"work-{n}" for n in range(WORKERS)]
    for slot in slots:
        _copy_tree(slot)
    try:
        with ThreadPoolExecutor(WORKERS) as pool:
            parts = list(pool.map(lambda n: _run_slow(jobs[n::WORKERS], slots[n]), range(WORKERS)))
    finally:
        for slot in slots:
            shutil.rmtree(slot, ignore_errors=True)
    return {k: v for part in parts for k, v in part.items()}


def _run_slow(jobs: list[dict], work: Path) -> dict[str, dict]:
    from cosmic_ray.mutating import mutate_code
    from cosmic_ray.plugins import get_operator

    verdicts = {}
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    for job in jobs:
        target = work / job["module"]
        pristine = (ROOT / job["module"]).read_text()
        mutated = mutate_code(pristine, get_operator(job["operator"])(), job["occurrence"])
        if mutated is None:
            verdicts[job["id"]] = {"outcome": "no-mutation", "seconds": 0.0}
            continue
        target.write_text(mutated)
        started = time.monotonic()
        cmd = [PY, "-m", "pytest", "-x", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"]
        cmd += ["-m", "not services and not browser", *job["selection"]]
        try:
            limit_s = max(TIMEOUT_S, 2 * job["timeout_s"])
            code = subprocess.run(cmd, cwd=work, env=env, capture_output=True, timeout=limit_s).returncode
            outcome = "survived" if code in (0, 5) else "killed"
        except subprocess.TimeoutExpired:
            outcome = "timeout"
        finally:
            target.write_text(pristine)
        verdicts[job["id"]] = {"id": job["id"], "outcome": outcome, "seconds": time.monotonic() - started, "slow": True}
        with (OUT / "slow.jsonl").open("a") as log:
            log.write(json.dumps(verdicts[job["id"]]) + "\n")
    return verdicts


OUTCOMES = {  # verdict → (cosmic-ray's worker outcome, test outcome)
    "killed": ("normal", "killed"),
    "survived": ("normal", "survived"),
    "untested": ("normal", "survived"),
    "timeout": ("normal", "incompetent"),
    "incompetent": ("normal", "incompetent"),
    "no-mutation": ("no-test", None),
}


def record(module: str, session: Path, jobs: list[dict], verdicts: dict[str, dict]) -> dict:
    """Store the verdicts in cosmic-ray's session database and summarise the module."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

    source = (ROOT / module).read_text().splitlines()
    summary = {"module": module, "killed": 0, "survived": [], "incompetent": 0}
    summary |= {"fast": 0, "slow": 0, "unreached": 0, "pending": 0}
    with use_db(str(session), WorkDB.Mode.open) as db:
        for job in jobs:
            verdict = verdicts.get(job["id"])
            if verdict is None:  # a run stopped before this mutant (`--report` on a partial run)
                summary["pending"] += 1
                continue
            worker, test = OUTCOMES[verdict["outcome"]]
            note = "not reached: no test executes this statement" if verdict["outcome"] == "untested" else ""
            db.set_result(
                job["job_id"],
                WorkResult(
                    worker_outcome=WorkerOutcome(worker),
                    test_outcome=TestOutcome(test) if test else None,
                    output=note or verdict["outcome"],
                ),
            )
            if test is None:
                continue
            summary["slow" if verdict.get("slow") else "fast"] += 1
            if test == "killed":
                summary["killed"] += 1
            elif test == "survived":
                summary["unreached"] += verdict["outcome"] == "untested"
                line = job["line"]
                summary["survived"].append(
                    {
                        "line": line,
                        "operator": job["operator"].removeprefix("core/"),
                        "occurrence": job["occurrence"],
                        "source": source[line - 1].strip() if line <= len(source) else "",
                        "unreached": verdict["outcome"] == "untested",
                    }
                )
            else:
                summary["incompetent"] += 1
    total = summary["killed"] + len(summary["survived"])
    return summary | {"total": total, "ratio": summary["killed"] / total if total else 1.0}


ACCEPTED = ROOT / ".ci" / "mutation_accepted.yaml"
GOAL = 0.85  # kill ratio asked of every module (issue #17)


def load_accepted(path: Path = ACCEPTED) -> dict[str, list[dict]]:
    """The accepted survivors: module → entries (``source``, optional ``operator``, ``why``)."""
    import yaml

    if not path.exists():
        return {}
    data = yaml.safe_load(path.read_text()) or {}
    for module, entries in data.items():
        for entry in entries:
            if not entry.get("source") or not entry.get("why"):
                raise SystemExit(f"{path.name}: every entry of {module} needs a source and a why: {entry!r}")
    return data


def explain(survivor: dict, entries: list[dict]) -> dict | None:
    """The first entry whose source text lies in the survivor's line (and whose operator, if given, prefixes
    the survivor's operator)."""
    for entry in entries:
        operator = entry.get("operator") or ""
        if entry["source"] in survivor["source"] and survivor["operator"].startswith(operator):
            return entry
    return None


def report(results: list[dict], minutes: dict[str, float] | None, accepted: dict[str, list[dict]] | None = None) -> str:
    timing = (
        f"Time: coverage map {minutes['map']:.1f} min, fast path {minutes['fast']:.1f} min, "
        f"slow path {minutes['slow']:.1f} min, in all {minutes['all']:.1f} min."
        if minutes
        else "A partial report (`--report`) of a run that was stopped or is still going."
    )
    lines = [
        "# Mutation testing report",
        "",
        "Produced by `make mutation` (.ci/mutation.py, cosmic-ray's mutants). A mutant is *killed* when the tests",
        "that execute its statement fail on it; *not reached* survivors change a statement no test executes.",
        "Timeouts (a mutant that loops) are neither killed nor survived and are left out of the ratio.",
        timing,
        "",
        f"Every module is asked for a kill ratio of at least {GOAL:.0%}; every survivor is explained in",
        "`.ci/mutation_accepted.yaml` (an equivalent mutant, or a gap accepted and why) or marked **unexplained**.",
        "",
        "| module | mutants | killed | survived | of which not reached | explained | timeouts | not run yet "
        "| kill ratio |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    accepted = accepted or {}
    why = {r["module"]: [explain(s, accepted.get(r["module"], [])) for s in r["survived"]] for r in results}
    for r in results:
        below = " **below the goal**" if r["ratio"] < GOAL and not r["pending"] else ""
        explained = sum(e is not None for e in why[r["module"]])
        lines.append(
            f"| `{r['module']}` | {r['total']} | {r['killed']} | {len(r['survived'])} | {r['unreached']} | "
            f"{explained} | {r['incompetent']} | {r['pending'] or ''} | "
            f"{r['ratio']:.1%}{' (partial)' if r['pending'] else ''}{below} |"
        )
    killed = sum(r["killed"] for r in results)
    total = sum(r["total"] for r in results)
    unexplained = sum(e is None for es in why.values() for e in es)
    lines.append(f"| **all** | {total} | {killed} | {total - killed} | | {total - killed - unexplained} | | | "
                 f"{killed / max(total, 1):.1%} |")  # fmt: skip
    lines += ["", f"Unexplained survivors: {unexplained}."]
    for r in results:
        if not r["survived"]:
            continue
        lines += ["", f"## Survivors in `{r['module']}`", ""]
        pairs = sorted(zip(r["survived"], why[r["module"]], strict=True), key=lambda p: p[0]["line"])
        for s, entry in pairs:
            mark = " (not reached)" if s["unreached"] else ""
            note = f" — {entry['why'].strip()}" if entry else " — **unexplained**"
            lines.append(f"- line {s['line']} `{s['operator']}` #{s['occurrence']}{mark}: `{s['source']}`{note}")
    stale = [
        (r["module"], e["source"])
        for r in results
        if not r["pending"]
        for e in accepted.get(r["module"], [])
        if not any(x is e for x in why[r["module"]])
    ]
    if stale:
        lines += ["", "## Stale entries of `.ci/mutation_accepted.yaml` (they explain no survivor now)", ""]
        lines += [f"- `{m}`: `{src}`" for m, src in stale]
    return "\n".join(lines) + "\n"


def partial_report() -> int:
    """`--report`: the report of what a run (stopped or still going) has decided so far."""
    jobs: dict[str, list[dict]] = {}
    for job in json.loads((OUT / "jobs.json").read_text())["jobs"]:
        jobs.setdefault(job["module"], []).append(job)
    verdicts: dict[str, dict] = {}
    pending = {"slow", "error"}
    for name in ("fast.jsonl", "slow.jsonl"):
        if (OUT / name).exists():
            for line in (OUT / name).read_text().splitlines():
                row = json.loads(line)
                before = verdicts.get(row["id"], {"outcome": "slow"})["outcome"]
                if name == "fast.jsonl" or row["outcome"] != "survived" or before in pending:
                    verdicts[row["id"]] = row  # a slow kill overrides a fast survivor; a slow survivor a deferral
    decided = {k: v for k, v in verdicts.items() if v["outcome"] not in pending}
    results = [record(m, OUT / f"{_name(m)}.sqlite", js, decided) for m, js in jobs.items()]
    finished = OUT / "minutes.json"  # a finished run's timing: `--report` then re-explains its survivors
    minutes = json.loads(finished.read_text()) if finished.exists() and not any(r["pending"] for r in results) else None
    (OUT / "report.md").write_text(report(results, minutes, load_accepted()))
    print(f"report: {OUT / 'report.md'} (partial: {len(decided)} of {sum(map(len, jobs.values()))} decided)")
    return 0


def main(argv: list[str]) -> int:
    if argv == ["--report"]:
        return partial_report()
    modules = argv or list(MODULES)
    unknown = [m for m in modules if m not in MODULES]
    if unknown:
        print(f"unknown module(s): {', '.join(unknown)}; known: {', '.join(MODULES)}", file=sys.stderr)
        return 2
    load_accepted()  # a malformed file fails now, not after the run
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "minutes.json").unlink(missing_ok=True)
    started = time.monotonic()
    reuse = os.environ.get("MUTATION_REUSE_MAP") and all((OUT / f"{_name(m)}.lines.json").exists() for m in modules)
    if not reuse:
        coverage_maps(modules)
    minutes = {"map": (time.monotonic() - started) / 60}
    print(f"coverage map of the selections: {minutes['map']:.1f} min", flush=True)
    sessions = {m: init_session(m) for m in modules}
    jobs = {m: plan_jobs(m, sessions[m]) for m in modules}
    every = [j for m in modules for j in jobs[m]]
    print(f"{len(every)} mutants in {len(modules)} modules", flush=True)
    mark = time.monotonic()
    verdicts = fast_path(every)
    minutes["fast"] = (time.monotonic() - mark) / 60
    print(f"fast path: {len(verdicts)} verdicts in {minutes['fast']:.1f} min", flush=True)
    mark = time.monotonic()
    slow = slow_jobs(every, verdicts)
    print(f"slow path: {len(slow)} mutants", flush=True)
    verdicts |= slow_path(slow)
    minutes["slow"] = (time.monotonic() - mark) / 60
    minutes["all"] = (time.monotonic() - started) / 60
    results = [record(m, sessions[m], jobs[m], verdicts) for m in modules]
    for r in results:
        print(f"{r['module']}: {r['killed']}/{r['total']} killed ({r['ratio']:.1%})", flush=True)
    (OUT / "report.md").write_text(report(results, minutes, load_accepted()))
    (OUT / "minutes.json").write_text(json.dumps(minutes))
    print(f"report: {OUT / 'report.md'} ({minutes['all']:.1f} min)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
