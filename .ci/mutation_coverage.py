"""`make mutation`'s coverage map: a pytest plugin (``-p mutation_coverage``) that empties the project's
``functools.cache`` / ``lru_cache`` memos before every test, and writes the longest set-up of any test of each
test file to ``MUTATION_SETUP_FILE`` (a module's shared fixture is set up for its first test, and in a mutant's
child the first test of the file to run is not the one the map timed: its time limit adds the file's set-up).

The map records which test executed which line; a mutant then runs only those tests. A cached function's body
runs once per process — for the first test that calls it — so without this every later caller would be left
out of its lines' tests (``scheduling.mig.layouts()``: one test recorded on the placement walk, and a mutant
there "survived" on that test alone while the layout tests that kill it were never run)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

_ROOT = os.getcwd() + os.sep


def clear_project_caches() -> int:
    """Empty every memo of a function defined in this tree (outside tests/); returns how many."""
    cleared = 0
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None) or ""
        top = path[len(_ROOT) :].split(os.sep)[0] if path.startswith(_ROOT) else ""
        if not top or top == "tests" or top.startswith(".") or "site-packages" in path:
            continue  # outside the tree, its tests, or a virtualenv inside it (.venv)
        for value in list(vars(module).values()):
            if callable(getattr(value, "cache_clear", None)) and getattr(value, "__module__", None) == module.__name__:
                value.cache_clear()
                cleared += 1
    return cleared


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    clear_project_caches()


_SETUP_S: dict[str, float] = {}  # test file → its longest test set-up [s]


@pytest.hookimpl
def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "setup":
        key = report.nodeid.split("::")[0]
        _SETUP_S[key] = max(_SETUP_S.get(key, 0.0), report.duration)


def pytest_sessionfinish(session: pytest.Session) -> None:
    if out := os.environ.get("MUTATION_SETUP_FILE"):
        Path(out).write_text(json.dumps(_SETUP_S))
