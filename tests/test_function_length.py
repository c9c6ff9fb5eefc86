"""No function over ~80 lines in the pure packages (issue #11): short enough to read in one screen.

Enforced on topology/, bom/, power/, cluster/ (the pipeline) and scheduling/.
"""

from __future__ import annotations

import ast

from tests.conftest import ROOT

MAX_LINES = 80
PACKAGES = ("topology", "bom", "power", "cluster", "scheduling")
STILL_LONG: dict[tuple[str, str], int] = {}  # none left; a new entry needs a reason in review


def long_functions() -> dict[tuple[str, str], int]:
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    n = node.end_lineno - node.lineno + 1
                    if n > MAX_LINES:
                        out[(str(path.relative_to(ROOT)), node.name)] = n
    return out


def test_no_new_long_functions_and_the_listed_ones_do_not_grow():
    found = long_functions()
    new = {k: n for k, n in found.items() if k not in STILL_LONG}
    assert not new, f"functions over {MAX_LINES} lines: {new}"
    grown = {k: (STILL_LONG[k], n) for k, n in found.items() if k in STILL_LONG and n > STILL_LONG[k]}
    assert not grown, f"listed long functions grew (was, now): {grown}"
