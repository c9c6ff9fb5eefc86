"""Pareto fronts of a design search (pure: no Django).

A point *dominates* another when it is at least as good on every objective and strictly better on one
(Deb, *Multi-Objective Optimization Using Evolutionary Algorithms*, 2001, def. 2.5). Each objective has a sense:
``"min"`` (CapEx, kW, all-reduce time) or ``"max"`` (bisection, bisection per dollar).

The front is found by sorting on the first objective and keeping every point no kept point dominates — exact
(every point on the returned front is non-dominated, every non-dominated point is returned), O(n · f) for a
front of f points; a search keeps at most a few thousand feasible candidates.

>>> pareto_front([(1.0, 5.0), (2.0, 6.0), (2.0, 4.0), (3.0, 7.0)], ("min", "max"))
[0, 1, 3]
"""

from __future__ import annotations

from collections.abc import Sequence

SENSES = ("min", "max")


def _keyed(point: Sequence[float], senses: Sequence[str]) -> tuple[float, ...]:
    """The point with every objective turned into one to minimise."""
    return tuple(-float(v) if s == "max" else float(v) for v, s in zip(point, senses, strict=True))


def dominates(a: Sequence[float], b: Sequence[float], senses: Sequence[str]) -> bool:
    """Is ``a`` at least as good as ``b`` on every objective and strictly better on one?"""
    ka, kb = _keyed(a, senses), _keyed(b, senses)
    return all(x <= y for x, y in zip(ka, kb, strict=True)) and any(x < y for x, y in zip(ka, kb, strict=True))


def pareto_front(points: Sequence[Sequence[float]], senses: Sequence[str]) -> list[int]:
    """Indices (ascending) of the non-dominated points. Equal points are all kept (none dominates the other)."""
    if any(s not in SENSES for s in senses):
        raise ValueError(f"an objective's sense is min or max, got {list(senses)}")
    keyed = [_keyed(p, senses) for p in points]
    order = sorted(range(len(points)), key=lambda i: keyed[i])
    front: list[int] = []
    for i in order:  # sorted lexicographically: no later point dominates an earlier one
        k = keyed[i]
        if not any(all(x <= y for x, y in zip(keyed[j], k)) and keyed[j] != k for j in front):
            front.append(i)
    return sorted(front)
