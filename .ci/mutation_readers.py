"""`make mutation`: which lines read a module-level name at run time (stdlib only; used by .ci/mutation.py and
.ci/mutation_fork.py).

A mutant of a module-level assignment (``MAX_TEXT = 20_000``, a table of defaults) changes what every reader of
the name sees. Its tests are the ones that executed a line reading one of the names it binds — in its own module
(``len(v) > MAX_TEXT``), in a module that imported the name (``from scheduling.calculators import CALCULATORS``
then ``CALCULATORS[name]``) or the module (``calculators.MAX_TEXT``) — and every test of a test file that names
it; not the whole selection of its module (for scheduling/calculators.py's defaults table: the 60 s of
tests/scheduling for each survivor). A name read at import time (``read_at_import`` in its own module, line 0 of
``read_lines`` in another) keeps the whole selection, and the fast path sends its mutants to the slow path; a read
this cannot see (``getattr(module, "NAME")``) would leave a mutant a survivor, never a false kill. A class is
such a name too: a mutant of its body (a field default, a class constant) reaches the tests that make or use it."""

from __future__ import annotations

import ast


def statement_at(tree: ast.Module, line: int) -> ast.stmt | None:
    """The top-level statement that holds ``line``."""
    return next((st for st in tree.body if st.lineno <= line <= (st.end_lineno or st.lineno)), None)


def assigned(source: str, line: int) -> set[str]:
    """The names the top-level assignment holding ``line`` binds (none for any other statement)."""
    return assigned_by(statement_at(ast.parse(source), line))


def module_names(source: str) -> set[str]:
    """Every name a top-level assignment of the module binds."""
    return {n for st in ast.parse(source).body for n in assigned_by(st)}


def class_names(source: str) -> set[str]:
    """Every top-level class of the module."""
    return {st.name for st in ast.parse(source).body if isinstance(st, ast.ClassDef)}


def class_at(source: str, line: int) -> ast.ClassDef | None:
    """The top-level class statement that holds ``line``, if one does."""
    statement = statement_at(ast.parse(source), line)
    return statement if isinstance(statement, ast.ClassDef) else None


def assigned_by(st: ast.stmt | None) -> set[str]:
    """The names an assignment statement binds (none for any other statement)."""
    if not isinstance(st, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        return set()
    targets = getattr(st, "targets", [getattr(st, "target", None)])
    return {n.id for t in targets if t is not None for n in ast.walk(t) if isinstance(n, ast.Name)}


def read_at_import(source: str, line: int) -> bool:
    """Whether a name the statement at ``line`` assigns is read while the module is imported — in a default,
    a decorator, a class body, another top-level statement (``B = A * 2``, ``def f(x=A)``) or the body of a
    module function a top-level statement calls (``LAYOUTS = _layouts()`` reading ``_SHAPES``, as mig.py once
    did). Such values were computed from the pristine name; re-running only the statement would not reach
    them, so the mutant goes to the slow path (the fast path may err towards survival, never towards a kill —
    and should not err at all where it can be helped)."""
    names = assigned(source, line)
    if not names:
        return False
    tree = ast.parse(source)
    target = statement_at(tree, line)
    defs = {st.name: st for st in tree.body if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef))}
    called: set[str] = set()  # module functions called at import (``LAYOUTS = _layouts()``): their bodies run too
    eager: list[ast.AST] = [st for st in tree.body if st is not target]
    while eager:
        node = eager.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            eager.extend([*node.decorator_list, *node.args.defaults, *(d for d in node.args.kw_defaults if d)])
            continue
        name = node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) else None
        if name in defs and name not in called:
            called.add(name)
            eager.extend(defs[name].body)
        if isinstance(node, ast.Lambda):
            eager.extend([*node.args.defaults, *(d for d in node.args.kw_defaults if d)])
            continue
        if isinstance(node, ast.Name) and node.id in names and isinstance(node.ctx, ast.Load):
            return True
        eager.extend(ast.iter_child_nodes(node))
    return False


def read_lines(source: str, module_name: str, names: set[str], own: bool) -> dict[str, set[int]]:
    """name → the lines where this source reads it: the line of the read and the first line of the innermost
    statement holding it (a coverage tracer records one or the other of a multi-line statement). ``own``: the
    source is the module itself (bare names); otherwise reads through ``from module import name [as alias]``
    and through the module (``import a.b as m`` / ``from a import b`` then ``m.name``). A read at import time
    (outside a function body: a constant, a default, a class body) is line 0: no test records it, and what it
    built reaches tests this cannot follow — the caller then runs the module's whole selection. Annotations are
    not reads: they refer to an object (or are strings, postponed), no value is built from it there."""
    tree = ast.parse(source)
    package, _, last = module_name.rpartition(".")
    alias: dict[str, str] = {n: n for n in names} if own else {}  # local name → the module's name
    modules: set[str] = set()  # local names bound to the module itself
    if not own:
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == module_name:
                alias |= {a.asname or a.name: a.name for a in node.names if a.name in names}
            elif isinstance(node, ast.ImportFrom) and node.module == package:
                modules |= {a.asname or a.name for a in node.names if a.name == last}
            elif isinstance(node, ast.Import):
                modules |= {a.asname for a in node.names if a.name == module_name and a.asname}
    out: dict[str, set[int]] = {}

    def visit(node: ast.AST, stmt_line: int, runtime: bool = False) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for part in [*getattr(node, "decorator_list", []), node.args]:
                visit(part, stmt_line, runtime)  # defaults and decorators: evaluated where the def is
            body = node.body if isinstance(node.body, list) else [node.body]
            for st in body:
                visit(st, st.lineno if isinstance(st, ast.stmt) else stmt_line, True)
            return
        if isinstance(node, ast.stmt):
            stmt_line = node.lineno
        if isinstance(node, ast.arg):
            return  # an annotation: a reference to the object (or a string, with postponed annotations), no value built
        if isinstance(node, ast.AnnAssign):
            for part in (node.target, node.value):
                if part is not None:
                    visit(part, stmt_line, runtime)
            return
        name = None
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in alias:
            name = alias[node.id]
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in names
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
        ):
            name = node.attr
        if name is not None:
            out.setdefault(name, set()).update({node.lineno, stmt_line} if runtime else {0})
        for child in ast.iter_child_nodes(node):
            visit(child, stmt_line, runtime)

    visit(tree, 0)
    return out
