"""Which package may import which, and no import circles: the contracts of .importlinter (import-linter, on
grimp's import graph) and a module-level cycle check per package. Imports inside functions count (grimp reads
every import statement); so do TYPE_CHECKING-only ones (there are none).

Lowest first: topology, power, scheduling, bom — the engines, pure — then cluster (the typed requirements →
requests → plans), then designer (Django). An engine never imports cluster or designer; cluster never imports
designer; no exception (the parts catalog's REST API lives in designer/api/catalog.py, beside the helpers it
is built on, though its models are the bom Django app's).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("topology", "power", "bom", "scheduling", "cluster", "designer")
ENGINES = ("topology", "power", "scheduling", "bom")
# package → the packages of ours it may import (the engine → engine directions are the ones there are)
ALLOWED = {
    "topology": set(),
    "power": set(),
    "scheduling": {"topology"},
    "bom": {"power", "topology"},
    "cluster": {"topology", "power", "scheduling", "bom"},
    "designer": {"topology", "power", "scheduling", "bom", "cluster"},
}
EXCEPTIONS: set[tuple[str, str]] = set()  # (module, package it may import besides): none


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    """import-linter (its command line, in a fresh interpreter) on the packages under ``root``, with ``root``'s
    .importlinter; no cache left behind."""
    return subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()",
         "--no-cache", "--config", str(root / ".importlinter")],
        cwd=root,
        env={"PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip


def graph_of() -> grimp.ImportGraph:
    return grimp.build_graph(*PACKAGES, cache_dir=None)


def package_imports(graph: grimp.ImportGraph) -> dict[str, set[str]]:
    """package → the other packages of ours its modules import directly (the listed exceptions left out)."""
    out: dict[str, set[str]] = {p: set() for p in PACKAGES}
    for module in graph.modules:
        top = module.split(".")[0]
        for imported in graph.find_modules_directly_imported_by(module):
            other = imported.split(".")[0]
            if other != top and (module, other) not in EXCEPTIONS:
                out[top].add(other)
    return out


def upward_imports(graph: grimp.ImportGraph) -> list[str]:
    """Every direct import of a package not in its ALLOWED row, with its line."""
    bad = []
    for module in sorted(graph.modules):
        top = module.split(".")[0]
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            other = imported.split(".")[0]
            if other == top or other in ALLOWED[top] or (module, other) in EXCEPTIONS:
                continue
            for d in graph.get_import_details(importer=module, imported=imported):
                bad.append(f"{module}:{d['line_number']} imports {imported} ({top} may not import {other})")
    return bad


def module_cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Import circles between the modules of one package, each with the imports that close it."""
    g = nx.DiGraph()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            if imported.split(".")[0] == module.split(".")[0]:
                g.add_edge(module, imported)
    circles = []
    for component in nx.strongly_connected_components(g):
        if len(component) > 1:
            circles.append(
                [
                    f"{a}:{d['line_number']} imports {b}"
                    for a in sorted(component)
                    for b in sorted(component & set(g.successors(a)))
                    for d in graph.get_import_details(importer=a, imported=b)
                ]
            )
    return circles


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return graph_of()


def test_the_import_contracts_are_kept():
    run = lint_imports(ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


def test_every_package_imports_only_what_its_layer_allows(graph):
    assert upward_imports(graph) == []


def test_the_allowed_engine_directions_are_the_ones_there_are_and_acyclic(graph):
    """The table names no engine → engine direction that is not there (so a new one is a decision)."""
    actual = package_imports(graph)
    for engine in ENGINES:
        assert actual[engine] == ALLOWED[engine], engine
    assert nx.is_directed_acyclic_graph(nx.DiGraph([(a, b) for a, to in ALLOWED.items() for b in to]))


def test_no_import_circles_between_the_modules_of_a_package(graph):
    assert module_cycles(graph) == []


# --- the checks can fail: an upward import and a circle added, to the files and to the graph ---------------


@pytest.fixture(scope="module")
def broken(tmp_path_factory) -> Path:
    """A copy of the packages where power/racks.py imports cluster.requirements and topology/bisection.py
    imports topology.graph (which imports it)."""
    root = tmp_path_factory.mktemp("layers")
    for package in PACKAGES:
        shutil.copytree(ROOT / package, root / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / ".importlinter", root / ".importlinter")
    for path, line in (
        ("power/racks.py", "import cluster.requirements"),
        ("topology/bisection.py", "import topology.graph"),
    ):
        with (root / path).open("a") as f:
            f.write(f"\n{line}  # noqa\n")
    return root


def test_an_upward_import_breaks_the_contracts(broken):
    run = lint_imports(broken)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "power imports no other package of ours BROKEN" in run.stdout
    assert "power.racks -> cluster.requirements" in run.stdout
    assert "no import cycles within the engines and cluster BROKEN" in run.stdout


def test_an_upward_import_and_a_circle_are_found():
    graph = graph_of()
    graph.add_import(importer="power.racks", imported="cluster.requirements", line_number=1, line_contents="x")
    graph.add_import(importer="topology.bisection", imported="topology.graph", line_number=2, line_contents="y")
    assert upward_imports(graph) == ["power.racks:1 imports cluster.requirements (power may not import cluster)"]
    assert [line for circle in module_cycles(graph) for line in circle if line.startswith("topology.bisection")] == [
        "topology.bisection:2 imports topology.graph"
    ]
    with pytest.raises(AssertionError):
        test_the_allowed_engine_directions_are_the_ones_there_are_and_acyclic(graph)
