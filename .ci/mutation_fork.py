"""`make mutation`'s fast executor: one pytest session, one fork per mutant (a pytest plugin).

Starting Python, Django, numpy and the suite's collection costs ~10 s — more than most mutants' tests.
This plugin pays it once: pytest collects the whole suite (``-p mutation_fork``), runs one database test
(the session's test database is then built), and then, instead of running the suite, for each mutant
forks the process, puts the mutated function's code into the live function (``func.__code__``, so every
reference to it — imports elsewhere, registries, bound methods — runs the mutant), and runs only the
tests that executed the mutated statement (earlier killers first, then quickest first; stopping at the first
failure). The child's exit status is the verdict: 1 killed, 0 survived; a child over its time limit is killed
(a timeout).

A mutant can be run this way only when its effect comes through a call made after the fork. It is sent back to
the slow path (a scratch copy of the tree with the mutant on disk and a fresh pytest process, .ci/mutation.py)
when its function was called before the fork (at import or collection: a value computed then would not see the
mutant — every call before the fork is recorded by a profile hook), when it is an import, when it assigns a
name that is read at import (a default, a class body, another constant — of its own module or of another that
imported the name), when it is in a class whose instances were made before the fork (they keep the pristine
defaults), or when the live function cannot be found. Any other mutant outside a function body (a constant, a
class body, a default: evaluated at import) is run here by re-running its module-level statement against the
live names and copying the result into the live objects (`_apply`). A Python process a test starts imports the
module afresh: the child hooks every subprocess so that it compiles the module from the mutated source
(`_hook_subprocesses`, .ci/mutation_site/sitecustomize.py), and its verdict holds for those tests too.

Environment: MUTATION_JOBS (json file: the mutants), MUTATION_RESULTS (jsonl file, one verdict a line),
MUTATION_WORKERS (children at a time, default 2), MUTATION_WARMUP (the database test run first).
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import types
from collections import deque
from pathlib import Path

import pytest
from mutation_readers import assigned, class_at, read_at_import, read_lines, statement_at

_JOBS = os.environ.get("MUTATION_JOBS", "")
_TARGETS: set[str] = set(json.loads(Path(_JOBS).read_text())["files"]) if _JOBS else set()
_CALLED_BEFORE_FORK: set[tuple[str, str]] = set()
WARM_UP = "tests/designer/test_database.py::test_every_migration_is_applied"


def _profile(frame, event, arg):  # sys.setprofile's signature
    if event == "call":
        code = frame.f_code
        if code.co_filename in _TARGETS:
            _CALLED_BEFORE_FORK.add((code.co_filename, code.co_qualname))
        elif code.co_name == "__init__" and code.co_filename == "<string>":  # a dataclass's generated __init__
            cls = type(frame.f_locals.get("self"))
            source = getattr(sys.modules.get(cls.__module__), "__file__", None)
            if source in _TARGETS:  # an instance made before the fork keeps the pristine defaults
                _CALLED_BEFORE_FORK.add((source, f"{cls.__qualname__}.__init__"))


if _TARGETS:  # from the plugin's import on: conftest imports, collection, the warm-up test
    sys.setprofile(_profile)
    threading.setprofile(_profile)


def pytest_configure(config: pytest.Config) -> None:
    if not _TARGETS:
        return
    try:  # mutants must not leave failing examples in the project's hypothesis database
        from hypothesis import settings

        settings.register_profile("mutation", database=None, print_blob=False)
        settings.load_profile("mutation")
    except ImportError:
        pass


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool | None:
    if not _TARGETS or session.config.option.collectonly:
        return None
    spec = json.loads(Path(_JOBS).read_text())
    by_test: dict[str, list[pytest.Item]] = {}
    for item in session.items:
        by_test.setdefault(item.nodeid.split("[")[0], []).append(item)
    anchor = _warm_up(session, by_test)
    sys.setprofile(None)
    threading.setprofile(None)
    session.config._tmp_path_factory.getbasetemp()  # one base for every child (children must not race to make it)
    db_file = _close_database()
    out = open(os.environ["MUTATION_RESULTS"], "a", buffering=1)  # noqa: SIM115 — closed below
    try:
        limits = (spec.get("seconds", {}), spec.get("setup_s", {}))
        _run_all(spec["jobs"], by_test, anchor, db_file, out, limits)
    finally:
        out.close()
    return True


def _warm_up(session: pytest.Session, by_test: dict[str, list[pytest.Item]]) -> pytest.Item:
    """Run one database test in the parent: the session's test database is then built once, for all children.
    Returns the anchor item: a test's teardown up to it leaves the session (and its database) set up."""
    from _pytest.runner import runtestprotocol

    warm = by_test[os.environ.get("MUTATION_WARMUP", WARM_UP)]
    anchor = next(i for i in session.items if i.path.parent != warm[0].path.parent)
    reports = runtestprotocol(warm[0], log=False, nextitem=anchor)
    if any(r.failed for r in reports):
        raise pytest.UsageError(f"the warm-up test {warm[0].nodeid} failed on the pristine code")
    return anchor


def _close_database() -> str | None:
    try:
        from django.db import connections
    except ImportError:
        return None
    name = connections["default"].settings_dict.get("NAME")
    connections.close_all()  # no connection may cross a fork
    vendor = connections["default"].vendor
    return str(name) if vendor == "sqlite" and name and Path(str(name)).exists() else None


def _run_all(jobs: list[dict], by_test, anchor, db_file: str | None, out, limits: tuple[dict, dict]) -> None:
    workers = int(os.environ.get("MUTATION_WORKERS", "2"))
    queue = deque(jobs)
    running: dict[int, tuple[dict, float, float]] = {}
    killers: dict[str, dict[str, int]] = {}  # module → test → mutants of it that test killed
    scratch = Path(tempfile.mkdtemp(prefix="mutation-"))  # per child: <pid>.sqlite3, .broker/, .py, .killer
    try:
        while queue or running:
            while queue and len(running) < workers:
                job = queue.popleft()
                verdict = _prepare(job, by_test)
                if isinstance(verdict, str):
                    out.write(json.dumps({"id": job["id"], "outcome": verdict, "seconds": 0.0}) + "\n")
                    continue
                patch, items, mutant = verdict
                items = killers_first(items, killers.get(job["module"], {}))
                pid = _fork(patch, items, anchor, db_file, limits, scratch, mutant)
                running[pid] = (job, time.monotonic(), time.monotonic() + job["timeout_s"])
            pid, status = os.waitpid(-1, os.WNOHANG) if running else (0, 0)
            now = time.monotonic()
            if pid == 0:
                for child, (job, started, deadline) in list(running.items()):
                    if now > deadline:
                        _kill(child)
                        os.waitpid(child, 0)
                        del running[child]
                        _clean(scratch, child)
                        row = {"id": job["id"], "outcome": "timeout", "seconds": now - started}
                        out.write(json.dumps(row) + "\n")
                time.sleep(0.005)
                continue
            if pid not in running:
                continue  # a grandchild reaped by accident: not ours
            job, started, _ = running.pop(pid)
            _kill(pid)  # what the child's tests started and left running (a subprocess past the child's time limit)
            code = os.waitstatus_to_exitcode(status)
            outcome = {0: "survived", 1: "killed", 4: "timeout"}.get(code, "error")
            row = {"id": job["id"], "outcome": outcome, "exit": code, "seconds": now - started}
            killer = scratch / f"{pid}.killer"
            if outcome == "killed" and killer.exists():
                row["killed_by"] = test = killer.read_text()
                tally = killers.setdefault(job["module"], {})
                tally[test] = tally.get(test, 0) + 1
            _clean(scratch, pid)
            out.write(json.dumps(row) + "\n")
    finally:
        for child in running:
            _kill(child)
        shutil.rmtree(scratch, ignore_errors=True)


def _clean(scratch: Path, pid: int) -> None:
    """A child's files — its database copy, broker folders, mutated source, verdict — also when it was killed."""
    for path in scratch.glob(f"{pid}.*"):
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def killers_first(items: list, tally: dict[str, int]) -> list:
    """The tests that already killed a mutant of this module first (most kills first), the rest after in
    their order (quickest first). A kill ends the child at its first failing test, and the tests that pin a
    module's numbers are few: a mutant of a helper every test reaches otherwise runs many passing tests first
    (test prioritisation by earlier kills, as mutation tools do). The order changes no verdict, only its cost."""
    if not tally:
        return items
    rank = {id(item): n for n, item in enumerate(items)}
    return sorted(items, key=lambda i: (-tally.get(i.nodeid.split("[")[0], 0), rank[id(i)]))


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


def _prepare(job: dict, by_test):
    """The patch to make, the tests to run — or why the job cannot run here."""
    from cosmic_ray.mutating import mutate_code
    from cosmic_ray.plugins import get_operator

    source = Path(job["file"]).read_text()
    mutated = mutate_code(source, get_operator(job["operator"])(), job["occurrence"])
    if mutated is None:
        return "no-mutation"
    try:
        module_code = compile(mutated, job["file"], "exec")
    except SyntaxError:
        return "incompetent"
    module = sys.modules.get(job["module_name"])
    if module is None:  # imported lazily (inside a function) and not yet by any test: import it, pristine, here
        try:
            module = importlib.import_module(job["module_name"])
        except Exception:  # a module that cannot be imported here goes to the slow path
            return "slow"
    if job["qualname"]:
        if (job["file"], job["qualname"]) in _CALLED_BEFORE_FORK:
            return "slow"
        code = _find_code(module_code, job["qualname"])
        funcs = _live_functions(module, job["qualname"], job["file"])
        if code is None or len(funcs) != 1 or len(code.co_freevars) != len(funcs[0].__closure__ or ()):
            return "slow"
        patch = ("function", funcs[0], code)
    else:
        statement = _statement_code(mutated, job["line"], job["file"])
        if statement is None or module is None or read_at_import(source, job["line"]):
            return "slow"
        if _read_at_import_elsewhere(job["module_name"], assigned(source, job["line"])):
            return "slow"  # another module built a value of it at its import (``_STD = np.array(LENGTHS)``)
        made = class_at(source, job["line"])
        if made and any(f == job["file"] and q.startswith(made.name + ".") for f, q in _CALLED_BEFORE_FORK):
            return "slow"  # instances of the class were made before the fork, with the pristine defaults
        patch = ("statement", module, statement)
    items = [i for test in job["tests"] for i in by_test.get(test, [])]
    return (patch, items, (job["module_name"], mutated)) if items else "untested"


def _statement_code(mutated: str, line: int, filename: str):
    """The compiled module-level statement of the mutated source that holds the line (not an import)."""
    statement = statement_at(ast.parse(mutated), line)
    if statement is None or isinstance(statement, (ast.Import, ast.ImportFrom)):
        return None
    return compile(ast.Module(body=[statement], type_ignores=[]), filename, "exec")


_SOURCES: dict[str, str] = {}  # path → text of the project modules read so far


def _read_at_import_elsewhere(module_name: str, names: set[str]) -> bool:
    """Whether another module of the project (loaded now, outside tests/) read one of these names of
    ``module_name`` while it was imported — in a constant, a default, a decorator or a class body
    (``_STD = np.array(STANDARD_LENGTHS_M)`` in bom/link_table.py; read_lines' line 0). That value was built from
    the pristine name: re-running the statement here would leave it, and a test comparing the two would see a
    mutant where the code on disk would be consistent (a false kill)."""
    if not names:
        return False
    last = module_name.rpartition(".")[2]
    for other in list(sys.modules.values()):
        path = getattr(other, "__file__", None) or ""
        if not _project_source(path) or other.__name__ == module_name:
            continue
        if path not in _SOURCES:
            try:
                _SOURCES[path] = Path(path).read_text()
            except (OSError, UnicodeDecodeError):
                _SOURCES[path] = ""
        source = _SOURCES[path]
        if last not in source:  # (neither the module nor an import from it can be named without its last part)
            continue
        try:
            reads = read_lines(source, module_name, names, own=False)
        except SyntaxError:
            continue
        if any(0 in lines for lines in reads.values()):
            return True
    return False


def _project_source(path: str) -> bool:
    """A .py file of the project's own tree: under the working directory, not its tests, not a virtualenv."""
    root = os.getcwd() + os.sep
    if not path.endswith(".py") or not path.startswith(root):
        return False
    top = path[len(root) :].split(os.sep)[0]
    return top != "tests" and not top.startswith(".") and "site-packages" not in path


def _apply(patch) -> None:
    kind, target, code = patch
    if kind == "function":
        target.__code__ = code
        return
    namespace = dict(vars(target))  # the statement runs against the live names (classes, helpers)
    exec(code, namespace)  # the mutated statement, in a child that exits afterwards
    for name, new in namespace.items():
        old = vars(target).get(name, _MISSING)
        if old is not _MISSING and old is not new:
            _replace(target, name, old, new)


_MISSING = object()


def _replace(module, name: str, old, new) -> None:
    """Make the live module (and every module that imported the name) see the mutated value."""
    if isinstance(old, types.FunctionType) and isinstance(new, types.FunctionType):
        _copy_function(old, new)
    elif isinstance(old, type) and isinstance(new, type):
        _copy_class(old, new)
    elif type(old) is type(new) and isinstance(old, dict):
        old.clear()
        old.update(new)
    elif type(old) is type(new) and isinstance(old, list):
        old[:] = new
    elif type(old) is type(new) and isinstance(old, set):
        old.clear()
        old.update(new)
    else:
        for other in list(sys.modules.values()):
            if getattr(other, name, None) is old and other is not module:
                with contextlib.suppress(AttributeError, TypeError):
                    setattr(other, name, new)
        setattr(module, name, new)


def _copy_function(old, new) -> None:
    if len(new.__code__.co_freevars) == len(old.__closure__ or ()):
        old.__code__ = new.__code__
    old.__defaults__ = new.__defaults__
    old.__kwdefaults__ = new.__kwdefaults__


def _copy_class(old: type, new: type) -> None:
    """A class statement run again: its methods, defaults and dataclass field defaults into the live class."""
    for attr, value in vars(new).items():
        if attr in ("__dict__", "__weakref__", "__doc__", "__module__", "__qualname__"):
            continue
        current = vars(old).get(attr, _MISSING)
        if isinstance(current, types.FunctionType) and isinstance(value, types.FunctionType):
            _copy_function(current, value)
        elif isinstance(current, (staticmethod, classmethod)) and type(value) is type(current):
            _copy_function(current.__func__, value.__func__)
        elif isinstance(current, property) and isinstance(value, property):
            for part in ("fget", "fset", "fdel"):
                if getattr(current, part) and getattr(value, part):
                    _copy_function(getattr(current, part), getattr(value, part))
        elif attr == "__dataclass_fields__":
            for field_name, field in value.items():
                if field_name in current:
                    current[field_name].default = field.default
                    current[field_name].default_factory = field.default_factory
        elif isinstance(value, (int, float, str, bytes, tuple, frozenset, bool, type(None))):
            with contextlib.suppress(AttributeError, TypeError):
                setattr(old, attr, value)


def _find_code(code, qualname: str):
    stack = [code]
    while stack:
        c = stack.pop()
        if getattr(c, "co_qualname", None) == qualname and c is not code:
            return c
        stack.extend(k for k in c.co_consts if hasattr(k, "co_code"))
    return None


def _live_functions(module, qualname: str, filename: str) -> list:
    """Every live function object with this qualified name defined in the file (unwrapping decorators)."""
    if module is None:
        return []
    found, seen, stack = [], set(), list(vars(module).values())
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, (staticmethod, classmethod)):
            stack.append(obj.__func__)
        elif isinstance(obj, property):
            stack.extend(f for f in (obj.fget, obj.fset, obj.fdel) if f)
        elif isinstance(obj, type) and obj.__module__ == module.__name__:
            stack.extend(vars(obj).values())
        elif callable(obj) and hasattr(obj, "__wrapped__"):
            stack.append(obj.__wrapped__)
        if hasattr(obj, "__code__") and obj.__code__.co_filename == filename and obj.__qualname__ == qualname:
            found.append(obj)
    return found


def _fork(patch, items, anchor, db_file: str | None, limits: tuple[dict, dict], scratch: Path, mutant) -> int:
    pid = os.fork()
    if pid:
        return pid
    status = 3
    try:
        os.setpgid(0, 0)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        _apply(patch)
        _hook_subprocesses(*mutant, scratch / f"{os.getpid()}.py")
        if db_file:
            _private_database(db_file, scratch / f"{os.getpid()}.sqlite3")
        _private_broker(scratch / f"{os.getpid()}.broker")
        status, killer = _run_items(items, anchor, *limits)
        if killer:
            (scratch / f"{os.getpid()}.killer").write_text(killer)
    except BaseException:  # any failure of the child is reported by its status
        status = 3
    finally:
        os._exit(status)  # (the parent removes the child's files, also after a kill)


SITE = Path(__file__).resolve().parent / "mutation_site"  # its sitecustomize.py loads the mutant in a subprocess


def _hook_subprocesses(module_name: str, mutated: str, source_file: Path) -> None:
    """Every process the child's tests start runs the mutant too (``cluster-designer simulate``, a CLI test): the mutant
    source is written out, and every Popen — whatever environment the test hands it (``env=…`` with its own
    PYTHONPATH too) — gets MUTATION_MUTANT naming it and .ci/mutation_site first on its PYTHONPATH
    (sitecustomize.py there compiles the module from it)."""
    import subprocess

    source_file.write_text(mutated)
    hook = {"MUTATION_MUTANT": f"{module_name}={source_file}"}

    def with_hook(env):
        env = dict(os.environ if env is None else env)
        paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != str(SITE)]
        return {**env, **hook, "PYTHONPATH": os.pathsep.join([str(SITE), *paths])}

    os.environ.update(with_hook(None))  # os.system, multiprocessing's spawn: the process environment
    popen_init = subprocess.Popen.__init__

    def __init__(self, args, *rest, **kwargs):
        if len(rest) >= 10:  # env passed by position (Popen(args, bufsize, …, cwd, env))
            rest = (*rest[:9], with_hook(rest[9]), *rest[10:])
        else:
            kwargs["env"] = with_hook(kwargs.get("env"))
        popen_init(self, args, *rest, **kwargs)

    subprocess.Popen.__init__ = __init__


def _private_broker(folder: Path) -> None:
    """Each child its own folders of kombu's filesystem broker (the embedded default): two children running a
    real worker at once (tests/sweeps) took each other's chunks, which their own databases do not hold, and each
    waited for its own sweep until its time limit (sweep.py's equivalent mutants read as timeouts)."""
    if "celery" not in sys.modules:
        return
    from celery import _state

    apps = [a for a in list(_state._apps) if "data_folder_in" in (a.conf.broker_transport_options or {})]
    try:
        from django.conf import settings

        options = dict(getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", None) or {})
    except Exception:  # no Django, or not configured
        settings, options = None, {}
    moved: dict[str, str] = {}  # a folder of the parent → the child's (data_folder_in and _out are one folder)

    def private(opts: dict) -> dict:
        out = dict(opts)
        for key, value in opts.items():
            if key.endswith("_folder") or key.startswith("data_folder_"):
                moved.setdefault(str(value), str(folder / f"{len(moved)}"))
                Path(moved[str(value)]).mkdir(parents=True, exist_ok=True)
                out[key] = moved[str(value)]
        return out

    for app in apps:
        app.conf.broker_transport_options = private(app.conf.broker_transport_options)
        app._after_fork()  # celery's own reset after a fork: no pooled connection of the parent's folders lingers
    if settings is not None and "data_folder_in" in options:
        settings.CELERY_BROKER_TRANSPORT_OPTIONS = private(options)


def _private_database(db_file: str, copy: Path) -> None:
    """Each child writes to its own copy of the test database (two children must not share a SQLite file)."""
    from django.db import connections

    shutil.copyfile(db_file, copy)
    connections["default"].settings_dict["NAME"] = str(copy)


def _run_items(
    items: list[pytest.Item], anchor: pytest.Item, limits_s: dict[str, float], setup_s: dict[str, float]
) -> tuple[int, str]:
    """(1, the test) at the first failing test, (0, "") when all pass; a test over 3 s + 5 × its pristine time
    (per parameter set; pristine = timed in the coverage map, under the tracer, so already slower than here) +
    its file's longest set-up (a shared fixture is set up for whichever test of the file runs first here) ends
    the child as a timeout (status 4: a mutant that loops or crawls does not run on — the simulator's looping
    mutants waited out 5 s + 10 × before, 46 of them)."""
    from _pytest.runner import runtestprotocol

    signal.signal(signal.SIGALRM, lambda *_: os._exit(4))
    params: dict[str, int] = {}
    for item in items:
        params[item.nodeid.split("[")[0]] = params.get(item.nodeid.split("[")[0], 0) + 1
    for index, item in enumerate(items):
        nextitem = items[index + 1] if index + 1 < len(items) else anchor
        test = item.nodeid.split("[")[0]
        limit_s = 3.0 + 5.0 * limits_s.get(test, 6.0) / params[test] + setup_s.get(test.split("::")[0], 0.0)
        signal.setitimer(signal.ITIMER_REAL, limit_s)
        reports = runtestprotocol(item, log=False, nextitem=nextitem)
        signal.setitimer(signal.ITIMER_REAL, 0)
        if any(r.failed for r in reports):
            return 1, test
    return 0, ""
