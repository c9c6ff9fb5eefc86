"""`make mutation`'s own machinery (.ci/mutation.py, .ci/mutation_fork.py): where a mutant lies, and that a
mutant applied in memory is what the code then runs — a wrong patch would turn survivors into kills."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import sys
import textwrap
import types
from pathlib import Path

import pytest

CI = Path(__file__).resolve().parent.parent / ".ci"
sys.path.insert(0, str(CI))  # mutation_fork imports mutation_readers


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"_ci_{name}", CI / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


mutation = _load("mutation")
fork = _load("mutation_fork")

SOURCE = textwrap.dedent(
    """
    from dataclasses import dataclass

    RATES = {"air": 1.5}
    LIMIT = 3


    @dataclass(frozen=True)
    class Load:
        count: int
        frac: float = 1.0

        def total(self, scale=2):
            if self.count > LIMIT:
                return self.count * scale
            return self.count


    def price(x, factor=10):
        return x * factor * RATES["air"]
    """
).lstrip()


def test_scopes_place_a_mutant_in_its_function_signature_or_module():
    scopes = mutation.Scopes(SOURCE)
    lines = SOURCE.splitlines()
    body = lines.index("        if self.count > LIMIT:") + 1
    assert scopes.function(body, body) == "Load.total"
    assert scopes.statement(body, body) == range(body, body + 2)  # the if statement, not the whole method
    sig = lines.index("    def total(self, scale=2):") + 1
    assert scopes.function(sig, sig) is None and scopes.signature(sig) == range(sig + 1, sig + 4)
    const = lines.index('RATES = {"air": 1.5}') + 1
    assert scopes.function(const, const) is None and scopes.signature(const) is None


@pytest.fixture
def toy(tmp_path):
    path = tmp_path / "toy_mod.py"
    path.write_text(SOURCE)
    module = types.ModuleType("toy_mod")
    module.__file__ = str(path)
    sys.modules["toy_mod"] = module
    exec(compile(SOURCE, str(path), "exec"), module.__dict__)
    importer = types.ModuleType("toy_importer")  # `from toy_mod import LIMIT, price`
    importer.LIMIT, importer.price = module.LIMIT, module.price
    sys.modules["toy_importer"] = importer
    yield module, importer, path
    del sys.modules["toy_mod"], sys.modules["toy_importer"]


def _patch(module, path, old: str, new: str):
    mutated = SOURCE.replace(old, new)
    line = next(i for i, text in enumerate(mutated.splitlines(), 1) if new.strip() in text)
    return mutated, line


def test_a_module_constant_reaches_the_module_and_its_importers(toy):
    module, importer, path = toy
    mutated, line = _patch(module, path, "LIMIT = 3", "LIMIT = 4")
    fork._apply(("statement", module, fork._statement_code(mutated, line, str(path))))
    assert module.LIMIT == importer.LIMIT == 4
    assert module.Load(4).total() == 4  # 4 > 4 is false now: the live method reads the new constant


def test_a_dict_constant_is_changed_in_place(toy):
    module, importer, path = toy
    rates = module.RATES
    mutated, line = _patch(module, path, '"air": 1.5', '"air": 2.5')
    fork._apply(("statement", module, fork._statement_code(mutated, line, str(path))))
    assert rates is module.RATES and rates == {"air": 2.5}
    assert importer.price(1) == 25.0  # the imported function sees it


def test_defaults_of_a_function_a_method_and_a_dataclass_field(toy):
    module, importer, path = toy
    mutated, line = _patch(module, path, "def price(x, factor=10):", "def price(x, factor=11):")
    fork._apply(("statement", module, fork._statement_code(mutated, line, str(path))))
    assert importer.price(1) == 16.5
    load_class = module.Load
    mutated, line = _patch(module, path, "frac: float = 1.0", "frac: float = 2.0")
    fork._apply(("statement", module, fork._statement_code(mutated, line, str(path))))
    assert module.Load is load_class and module.Load(1).frac == 2.0
    assert dataclasses.fields(module.Load)[1].default == 2.0
    mutated, line = _patch(module, path, "def total(self, scale=2):", "def total(self, scale=3):")
    fork._apply(("statement", module, fork._statement_code(mutated, line, str(path))))
    assert load_class(5).total() == 15


def test_a_function_body_is_swapped_into_the_live_function(toy):
    module, importer, path = toy
    mutated = SOURCE.replace("return x * factor", "return x / factor")
    code = fork._find_code(compile(mutated, str(path), "exec"), "price")
    funcs = fork._live_functions(module, "price", str(path))
    assert funcs == [module.price]
    fork._apply(("function", funcs[0], code))
    assert importer.price(10) == 1.5
    method = fork._live_functions(module, "Load.total", str(path))
    assert method == [module.Load.total]


def test_a_constant_read_at_import_goes_to_the_slow_path():
    """topology/sizing.py's DEFAULT_PORT_HEADROOM_FRAC is a function's default: re-running only its statement
    left the default at 0.20, so its mutants survived on the fast path although the tests pin 20 % headroom.
    Names read at import (defaults, decorators, class bodies, other constants) send the mutant to the slow
    path; names read only inside function bodies stay on the fast path (they are looked up at call time)."""
    src = textwrap.dedent(
        """
        A = 1
        B = A * 2
        C = 3
        D = 4
        E = 5


        def f(x=C):
            return E


        class K:
            y = D

            def m(self):
                return E
        """
    )
    line = {name: n for n, text in enumerate(src.splitlines(), 1) for name in "ABCDE" if text.startswith(f"{name} =")}
    assert [fork.read_at_import(src, line[name]) for name in "ABCDE"] == [True, False, True, True, False]
    sizing = (CI.parent / "topology" / "sizing.py").read_text()
    headroom = next(n for n, t in enumerate(sizing.splitlines(), 1) if t.startswith("DEFAULT_PORT_HEADROOM_FRAC"))
    assert fork.read_at_import(sizing, headroom)


def test_a_class_with_instances_made_before_the_fork_goes_to_the_slow_path(tmp_path):
    """power/facility.py's ItLoad: a test module's ONE_MW = ItLoad(...) is made at collection, so a mutated
    field default never reaches it in memory (its mutants survived the fast path though a test pins the
    zero defaults). The profile hook records a dataclass's generated __init__ by the instance's class."""
    src = textwrap.dedent(
        """
        from dataclasses import dataclass


        @dataclass
        class Made:
            n: int = 0


        @dataclass
        class NotMade:
            n: int = 0
        """
    )
    path = tmp_path / "made_mod.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("made_mod", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["made_mod"] = module
    spec.loader.exec_module(module)
    before = set(fork._CALLED_BEFORE_FORK)
    fork._TARGETS.add(str(path))
    try:
        sys.setprofile(fork._profile)
        module.Made()
        sys.setprofile(None)
        assert (str(path), "Made.__init__") in fork._CALLED_BEFORE_FORK
        assert not any(q.startswith("NotMade.") for _, q in fork._CALLED_BEFORE_FORK)
        assert fork.class_at(src, src.splitlines().index("    n: int = 0") + 1).name == "Made"
    finally:
        sys.setprofile(None)
        fork._TARGETS.discard(str(path))
        fork._CALLED_BEFORE_FORK.clear()
        fork._CALLED_BEFORE_FORK.update(before)
        del sys.modules["made_mod"]


def test_a_constant_read_by_a_function_called_at_import_goes_to_the_slow_path():
    """scheduling/mig.py's _SHAPES is read by _layouts(), which LAYOUTS = _layouts() calls at import: re-running
    the mutated _SHAPES left LAYOUTS as built from the pristine shapes, so 28 of its mutants survived the fast
    path though the tests pin 7 × 1g per GPU. A function's body counts as read at import when a top-level
    statement calls it (transitively); a function nobody calls at import stays on the fast path."""
    src = textwrap.dedent(
        """
        S = {"1g": 1}
        T = 2
        U = 3


        def helper():
            return T


        def build():
            return dict(S, n=helper())


        def later():
            return U


        LAYOUTS = build()
        """
    )
    line = {name: n for n, text in enumerate(src.splitlines(), 1) for name in "STU" if text.startswith(f"{name} =")}
    assert [fork.read_at_import(src, line[name]) for name in "STU"] == [True, True, False]
    mig = (CI.parent / "scheduling" / "mig.py").read_text()
    shapes = next(n for n, t in enumerate(mig.splitlines(), 1) if t.startswith("_SHAPES"))
    assert not fork.read_at_import(mig, shapes)  # since mig's layouts() is built on first use, not at import


def test_a_module_no_test_imported_yet_is_imported_for_the_fast_path(tmp_path, monkeypatch):
    """topology/dragonfly_plus.py is imported inside plan_fabric, on a test's first Dragonfly+ request: when the
    mutants are prepared (after collection) it is not in sys.modules yet, and all 75 of its mutants went to
    the slow path (a fresh pytest process each) for want of a live function. _prepare imports it, pristine."""
    path = tmp_path / "lazy_mod.py"
    path.write_text("def twice(x):\n    return x * 2\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "lazy_mod", raising=False)
    job = {"file": str(path), "module_name": "lazy_mod", "qualname": "twice", "line": 2, "tests": ["t::a"],
           "operator": "core/ReplaceBinaryOperator_Mul_Div", "occurrence": 0}  # fmt: skip
    try:
        verdict = fork._prepare(job, {"t::a": ["item"]})
        assert "lazy_mod" in sys.modules
        (kind, live, code), items, (name, mutated) = verdict
        assert kind == "function" and live is sys.modules["lazy_mod"].twice and items == ["item"]
        assert name == "lazy_mod" and "return x / 2" in mutated  # for the processes its tests start
        fork._apply((kind, live, code))
        assert sys.modules["lazy_mod"].twice(8) == 4.0  # x / 2: the mutant runs in the live function
    finally:
        sys.modules.pop("lazy_mod", None)


def test_the_report_explains_each_survivor_or_marks_it_and_lists_stale_entries(tmp_path):
    """A survivor is explained by the first entry whose source text lies in its line and whose operator (if
    given) prefixes its own; one no entry explains is marked unexplained; an entry that explains nothing is
    listed as stale; a module under 85 % is flagged."""
    accepted_file = tmp_path / "accepted.yaml"
    accepted_file.write_text(
        textwrap.dedent(
            """
            m.py:
              - source: "if a >= b"
                operator: ReplaceComparisonOperator_GtE
                why: equivalent at a == b (both branches give a)
              - source: "x = 3"
                why: a default no caller leaves
              - source: "gone = 1"
                why: no longer there
            """
        )
    )
    accepted = mutation.load_accepted(accepted_file)
    survived = [
        {"line": 3, "operator": "ReplaceComparisonOperator_GtE_Gt", "occurrence": 0, "source": "if a >= b:",
         "unreached": False},
        {"line": 3, "operator": "NumberReplacer", "occurrence": 1, "source": "if a >= b:", "unreached": False},
        {"line": 9, "operator": "NumberReplacer", "occurrence": 0, "source": "x = 3", "unreached": True},
    ]  # fmt: skip
    result = {"module": "m.py", "killed": 7, "survived": survived, "incompetent": 0, "pending": 0, "unreached": 1}
    result |= {"total": 10, "ratio": 0.7}
    text = mutation.report([result], None, accepted)
    assert "`if a >= b:` — equivalent at a == b (both branches give a)" in text
    assert "#1: `if a >= b:` — **unexplained**" in text  # the entry names another operator
    assert "(not reached): `x = 3` — a default no caller leaves" in text
    assert "| `m.py` | 10 | 7 | 3 | 1 | 2 | 0 |  | 70.0% **below the goal** |" in text
    assert "Unexplained survivors: 1." in text
    assert "- `m.py`: `gone = 1`" in text.split("## Stale entries")[1]
    bad = tmp_path / "bad.yaml"
    bad.write_text("m.py:\n  - source: x\n")
    with pytest.raises(SystemExit, match="needs a source and a why"):
        mutation.load_accepted(bad)


def test_the_coverage_map_shares_test_files_out_by_their_work():
    """Largest first onto the least loaded share: 9, 5, 4, 3 s over two shares → {9}, {5, 4} then 3 onto 9's
    (9 vs 9: the first least) — 12 s and 9 s; no file twice, none lost, an empty share dropped."""
    files = ["tests/a.py", "tests/b.py", "tests/c.py", "tests/d.py"]
    seconds = {"tests/a.py": 9.0, "tests/b.py": 5.0, "tests/c.py": 4.0, "tests/d.py": 3.0}
    shares = mutation._shards(files, 2, seconds)
    assert shares == [["tests/a.py", "tests/d.py"], ["tests/b.py", "tests/c.py"]]
    assert mutation._shards(files[:1], 2, seconds) == [["tests/a.py"]]


def test_tests_that_killed_before_run_first_and_the_rest_keep_their_order():
    """A kill ends the child at its first failing test: the tests that killed mutants of the module already go
    first (most kills first), every other test after them in the order given (quickest first). Only the order
    changes — the same items, each once."""
    item = types.SimpleNamespace
    items = [item(nodeid=n) for n in ("t::quick", "t::pins[a]", "t::pins[b]", "t::slow", "t::often")]
    assert fork.killers_first(items, {}) == items
    ordered = fork.killers_first(items, {"t::pins": 1, "t::often": 3})
    assert [i.nodeid for i in ordered] == ["t::often", "t::pins[a]", "t::pins[b]", "t::quick", "t::slow"]


def test_the_coverage_map_empties_the_project_caches_before_each_test(tmp_path, monkeypatch):
    """A cached function's body runs for the first test that calls it only: the coverage map would record no other
    test on its lines (scheduling.mig.layouts()). The map's plugin empties the memos of the tree's functions
    before each test — and leaves alone those of modules outside the tree."""
    cov = _load("mutation_coverage")
    (tmp_path / "memo_mod.py").write_text(
        "from functools import cache\nCALLS = []\n\n@cache\ndef table():\n    CALLS.append(1)\n    return 42\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "memo_mod", raising=False)
    import memo_mod

    memo_mod.table(), memo_mod.table()
    assert memo_mod.CALLS == [1]
    monkeypatch.setattr(cov, "_ROOT", str(tmp_path.parent / "elsewhere") + "/")
    cov.clear_project_caches()
    memo_mod.table()
    assert memo_mod.CALLS == [1]  # not in the tree: kept
    monkeypatch.setattr(cov, "_ROOT", str(tmp_path) + "/")
    assert cov.clear_project_caches() >= 1
    memo_mod.table()
    assert memo_mod.CALLS == [1, 1]


def test_a_constant_another_module_read_at_import_goes_to_the_slow_path(tmp_path, monkeypatch):
    """bom/link_table.py once built ``_STD = np.array(STANDARD_LENGTHS_M)`` at import: a mutant of bom/layout.py's
    table re-run in memory left _STD pristine, and a test comparing the two "killed" a mutant the code on disk
    would pass. A name another module reads at import (a constant, a default, a class body) goes slow; one it reads
    inside a function only does not."""
    pkg = tmp_path / "xmod"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "table.py").write_text("LENGTHS = (1, 2, 3)\nWIDTH = 4\nDEPTH = 5\n")
    (pkg / "user.py").write_text(
        "from xmod.table import DEPTH, LENGTHS, WIDTH\nTOP = max(LENGTHS)\n\ndef f(w=WIDTH):\n    return w + DEPTH\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    for name in ("xmod", "xmod.table", "xmod.user"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    import xmod.user  # noqa: F401

    monkeypatch.setattr(fork, "_SOURCES", {})
    source = (pkg / "table.py").read_text()
    assert fork.assigned(source, 1) == {"LENGTHS"}
    assert fork._read_at_import_elsewhere("xmod.table", {"LENGTHS"})  # TOP = max(LENGTHS)
    assert fork._read_at_import_elsewhere("xmod.table", {"WIDTH"})  # a default
    assert not fork._read_at_import_elsewhere("xmod.table", {"DEPTH"})  # read when f runs
    # a virtualenv inside the tree (.venv: compiled modules, other encodings) is not the project's
    assert fork._project_source(str(tmp_path / "xmod" / "user.py"))
    assert not fork._project_source(str(tmp_path / ".venv" / "lib" / "site-packages" / "np" / "core.py"))
    assert not fork._project_source(str(tmp_path / "xmod" / "_speedups.cpython-311-x86_64-linux-gnu.so"))
    assert not fork._project_source(str(tmp_path / "tests" / "test_x.py"))


def test_readers_of_a_module_level_name_are_found_through_every_import():
    """A constant's mutant runs the tests that read it: the lines reading it in its own module (bare name), in a
    module that imported it under another name, and through the module object; the first line of a multi-line
    statement counts too (a tracer may record either). A local of the same name elsewhere is no read."""
    from mutation_readers import assigned, module_names, read_lines

    own = "LIMIT = 3\nTABLE: dict = {}\n\n\ndef f(x):\n    return (x >\n            LIMIT)\n"
    assert module_names(own) == {"LIMIT", "TABLE"} and assigned(own, 2) == {"TABLE"} and assigned(own, 5) == set()
    assert read_lines(own, "pkg.mod", {"LIMIT", "TABLE"}, own=True) == {"LIMIT": {6, 7}}
    # a read at import — another constant, a def's default — is line 0 (the caller runs everything); a lambda's
    # default inside a function body is read when the body runs (line 14)
    eager = own + "\n\nDOUBLE = LIMIT * 2\n\n\ndef g(y=TABLE):\n    return lambda z=LIMIT: z\n"
    assert read_lines(eager, "pkg.mod", {"LIMIT", "TABLE"}, own=True) == {"LIMIT": {0, 6, 7, 14}, "TABLE": {0}}
    other = textwrap.dedent(
        """
        from pkg.mod import LIMIT as CAP
        from pkg import mod
        import pkg.mod as m2


        def g(LIMIT):
            return LIMIT + CAP


        def h():
            return mod.TABLE, m2.LIMIT, other.TABLE
        """
    )
    assert read_lines(other, "pkg.mod", {"LIMIT", "TABLE"}, own=False) == {"LIMIT": {8, 12}, "TABLE": {12}}


def test_the_coverage_plugin_records_each_files_longest_set_up(tmp_path):
    """A module-scoped fixture is set up for the first test of its file that runs; the plugin keeps the file's
    longest set-up, so a mutant's child whose first test of that file is another one gets that time on top of
    its limit (else a 0.01 s test paying a 5 s fixture was a false timeout)."""
    import json
    import os
    import subprocess

    (tmp_path / "test_slow_fixture.py").write_text(
        textwrap.dedent(
            """
            import time

            import pytest


            @pytest.fixture(scope="module")
            def slow():
                time.sleep(0.3)


            def test_a(slow):
                pass


            def test_b(slow):
                pass
            """
        )
    )
    out = tmp_path / "setup.json"
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env |= {"MUTATION_SETUP_FILE": str(out), "PYTHONPATH": str(CI)}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-p", "no:django", "-p"]
    done = subprocess.run(
        [*cmd, "mutation_coverage", "test_slow_fixture.py"], cwd=tmp_path, env=env, capture_output=True
    )
    assert done.returncode == 0, done.stdout[-2000:]
    setup = json.loads(out.read_text())
    assert list(setup) == ["test_slow_fixture.py"] and 0.3 <= setup["test_slow_fixture.py"] < 5


def test_a_class_is_read_where_it_is_made_or_subclassed_not_where_it_is_annotated():
    """A class body's mutants (a field default, a class constant) reach the tests that make or use the class: its
    name read at run time. A subclass or an instance made at import is a read at import (line 0: the whole
    selection runs); an annotation only refers to the class — no value is built from its body there."""
    from mutation_readers import class_at, class_names, read_lines

    own = textwrap.dedent(
        """
        @dataclass
        class Load:
            n: int = 0


        class Heavy(Load):
            pass


        def make(k: Heavy | None = None) -> Load:
            return Load(1)
        """
    ).lstrip()
    assert class_names(own) == {"Load", "Heavy"} and class_at(own, 3).name == "Load" and class_at(own, 10) is None
    assert read_lines(own, "pkg.mod", {"Load", "Heavy"}, own=True) == {"Load": {0, 11}}
    other = "from pkg.mod import Load\n\n\n@dataclass\nclass Plan:\n    load: Load\n    spare: Load | None = None\n"
    assert read_lines(other, "pkg.mod", {"Load"}, own=False) == {}


def test_a_class_bodys_mutants_run_the_tests_that_make_or_use_the_class(tmp_path, monkeypatch):
    """plan_jobs: a field default's mutant runs the readers of its class and the tests that ran its methods — not
    the module's whole selection (simulator.py's result fields: 259 tests, 30 s a survivor); sent to the slow path
    it runs the whole selection, the tests that killed most of the module's mutants first. A class read at
    import (no readers entry: here Base, as if subclassed somewhere) keeps the whole selection."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    source = textwrap.dedent(
        """
        from dataclasses import dataclass


        @dataclass
        class Load:
            n: int = 0

            def double(self):
                return self.n * 2


        @dataclass
        class Base:
            k: int = 0
        """
    ).lstrip()
    (tmp_path / "pkg" / "mod.py").write_text(source)
    lines = source.splitlines()
    field, method = lines.index("    n: int = 0") + 1, lines.index("        return self.n * 2") + 1
    out = tmp_path / "var"
    out.mkdir()
    tests = ["tests/test_a.py::test_make", "tests/test_a.py::test_double", "tests/test_b.py::test_other"]
    (out / "pkg_mod.lines.json").write_text(
        json.dumps(
            {
                "lines": {str(method): ["tests/test_a.py::test_double"]},
                "seconds": dict.fromkeys(tests, 0.1),
                "readers": {"Load": ["tests/test_a.py::test_make"]},  # Base: subclassed at import somewhere
            }
        )
    )
    monkeypatch.setattr(mutation, "ROOT", tmp_path)
    monkeypatch.setattr(mutation, "OUT", out)
    monkeypatch.setattr(mutation, "MODULES", {"pkg/mod.py": ["tests"]})
    jobs = mutation.plan_jobs("pkg/mod.py", mutation.init_session("pkg/mod.py"))
    default = next(j for j in jobs if j["line"] == field)
    assert default["qualname"] is None and default["whole_if_slow"]
    assert set(default["tests"]) == {"tests/test_a.py::test_make", "tests/test_a.py::test_double"}
    base = next(j for j in jobs if j["line"] == lines.index("    k: int = 0") + 1)
    assert set(base["tests"]) == set(tests) and not base["whole_if_slow"]
    # the slow path runs the whole selection as test ids, the fast path's killers of the module first (pytest -x)
    killed = {"id": "pkg/mod.py:other", "outcome": "killed", "killed_by": "tests/test_b.py::test_other"}
    slow = mutation.slow_jobs([default], {default["id"]: {"outcome": "slow"}, killed["id"]: killed})
    assert slow[0]["selection"] == ["tests/test_b.py::test_other", "tests/test_a.py::test_double",
                                    "tests/test_a.py::test_make"]  # fmt: skip


def test_a_subprocess_a_mutants_test_starts_runs_the_mutant(tmp_path, monkeypatch):
    """A test that starts Python (``cluster-designer simulate``, CLI tests) would import the pristine file and pass on
    any mutant: a survivor then re-ran such tests in a fresh pytest process with the mutant on disk (the slow path,
    ~10 s a run). The child hooks every Popen instead — also one handed its own env and PYTHONPATH
    (tests/cluster/test_pipeline.py's bare environment) — and the module is compiled from the mutated source under
    its own file name; a process not hooked imports the file on disk."""
    import subprocess

    pkg = tmp_path / "hookpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "mod.py").write_text("def twice(x):\n    return x * 2\n")
    code = "import hookpkg.mod as m; print(m.twice(8), m.__file__)"
    bare = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(tmp_path)}

    def run_in_child() -> str:
        pid = os.fork()
        if pid == 0:  # as a mutant's child: hooked, then the test's own subprocess
            status = 1
            try:
                fork._hook_subprocesses("hookpkg.mod", "def twice(x):\n    return x / 2\n", tmp_path / "m.py")
                done = subprocess.run([sys.executable, "-c", code], env=bare, capture_output=True, text=True)
                (tmp_path / "out").write_text(done.stdout + done.stderr)
                status = 0
            finally:
                os._exit(status)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        return (tmp_path / "out").read_text()

    assert run_in_child().split() == ["4.0", str(pkg / "mod.py")]
    pristine = subprocess.run([sys.executable, "-c", code], env=bare, capture_output=True, text=True, check=True)
    assert pristine.stdout.split()[0] == "16"  # the parent (this process) is not hooked
    assert "MUTATION_MUTANT" not in os.environ


def test_each_child_gets_its_own_broker_folders(tmp_path, settings):
    """Two children running a real worker at once (tests/sweeps) shared kombu's filesystem broker folders: one
    child's worker took the other's chunks, and both waited for their sweeps until the time limit — sweep.py's
    equivalent mutants read as timeouts. The child re-points every app's folders (and Django's setting) to its own,
    the in and out folder staying one folder."""
    from celery import Celery, _state

    shared = tmp_path / "shared"
    app = Celery("mutation-tool-test", set_as_current=False)
    app.conf.broker_transport_options = {"data_folder_in": str(shared / "q"), "data_folder_out": str(shared / "q"),
                                         "processed_folder": str(shared / "p"), "polling_interval": 0.02}  # fmt: skip
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = dict(app.conf.broker_transport_options)
    others = {a: a.conf.broker_transport_options for a in list(_state._apps) if a is not app}
    try:
        fork._private_broker(tmp_path / "child")
        got = app.conf.broker_transport_options
        assert got["data_folder_in"] == got["data_folder_out"] != str(shared / "q")
        assert Path(got["data_folder_in"]).is_dir() and Path(got["processed_folder"]).is_dir()
        assert Path(got["data_folder_in"]).is_relative_to(tmp_path / "child")
        assert got["processed_folder"] != got["data_folder_in"] and got["polling_interval"] == 0.02
        assert settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"] == got["data_folder_in"]
    finally:
        for other, options in others.items():  # the suite's own app: back to the session's folders
            other.conf.broker_transport_options = options
            other._after_fork()
