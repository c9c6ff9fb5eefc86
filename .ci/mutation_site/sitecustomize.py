"""`make mutation`: a Python process started by a mutant's test runs the mutant too.

The fast path (.ci/mutation_fork.py) changes a module in memory, in a forked child; a test that starts a Python
subprocess (``cluster-designer simulate`` …) would import the pristine file. The child puts this directory first on the
PYTHONPATH of every process it starts and names the mutant in MUTATION_MUTANT (``module.name=/path/of/the/mutated
source``): Python imports this ``sitecustomize`` at start-up, and the named module is then compiled from the mutated
source under its own file name (``__file__``, its package and data files unchanged) — as if the mutant were on disk.
Without MUTATION_MUTANT this does nothing."""

from __future__ import annotations

import os
import sys


def _install(spec: str) -> None:
    import importlib.abc
    import importlib.machinery

    name, _, mutated = spec.partition("=")

    class Loader(importlib.machinery.SourceFileLoader):
        def get_code(self, fullname):  # the mutated source, never the pristine file's cached bytecode
            with open(mutated, "rb") as f:
                return compile(f.read(), self.path, "exec", dont_inherit=True)

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path=None, target=None):
            if fullname != name:
                return None
            found = importlib.machinery.PathFinder.find_spec(fullname, path)
            if found is not None and found.origin and found.origin.endswith(".py"):
                found.loader = Loader(fullname, found.origin)
            return found

    sys.meta_path.insert(0, Finder())


if os.environ.get("MUTATION_MUTANT"):
    _install(os.environ["MUTATION_MUTANT"])
