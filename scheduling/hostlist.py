"""Slurm hostlist expressions: ``gpu[001-200]`` ↔ the names it stands for.

Slurm reads node and switch lists in this form (slurm.conf(5) "NodeName", topology.conf(5)
"Nodes=tux[0-3,12,18-20]"); the compression below keeps each name's zero padding, so a range
only joins names of one width and one prefix.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_NAME = re.compile(r"^(.*?)(\d+)$")


def node_names(prefix: str, first: int, count: int, width: int) -> list[str]:
    """``count`` names from number ``first`` on, zero-padded to ``width`` digits."""
    return [f"{prefix}{i:0{width}d}" for i in range(first, first + count)]


def range_hostlist(prefix: str, first: int, count: int, width: int) -> str:
    """``compress(node_names(prefix, first, count, width))`` without making the names: one bracketed range per
    name width (past ``width`` digits a number is as wide as it is). A prefix the name pattern would not give back
    (it ends in a digit, or holds a line break) takes the general way."""
    if count <= 0:
        return compress(node_names(prefix, first, count, width))
    head = _NAME.match(f"{prefix}{first:0{width}d}")
    if first < 0 or head is None or head.group(1) != prefix:
        return compress(node_names(prefix, first, count, width))
    out, lo, last = [], first, first + count - 1
    while lo <= last:
        w = max(width, len(str(lo)))
        hi = min(last, 10**w - 1)
        out.append(f"{prefix}{lo:0{w}d}" if lo == hi else f"{prefix}[{lo:0{w}d}-{hi:0{w}d}]")
        lo = hi + 1
    return ",".join(out)


def name_width(total: int) -> int:
    """Digits in a node number: at least 3 (gpu001, as the seed writes them), more past 999."""
    return max(3, len(str(total)))


def compress(names: Iterable[str]) -> str:
    """The shortest comma-joined hostlist of ``names`` in their order (runs of one prefix and width).

    >>> compress(["gpu001", "gpu002", "gpu003", "gpu007"])
    'gpu[001-003,007]'
    >>> compress(["leaf1", "leaf2", "spine1"])
    'leaf[1-2],spine1'
    """
    groups: list[tuple[str, int | None, list[tuple[int, int]]]] = []  # (prefix, width or None, [(lo, hi)])
    for name in names:
        m = _NAME.match(name)
        if m is None:
            groups.append((name, None, []))  # no number: the name stands as it is
            continue
        prefix, digits = m.group(1), m.group(2)
        width, n = len(digits), int(digits)
        if groups and groups[-1][0] == prefix and groups[-1][1] == width:  # a name without digits has width None
            ranges = groups[-1][2]
            if ranges[-1][1] + 1 == n:
                ranges[-1] = (ranges[-1][0], n)
            else:
                ranges.append((n, n))
        else:
            groups.append((prefix, width, [(n, n)]))
    out = []
    for prefix, width, ranges in groups:
        parts = [f"{lo:0{width}d}" if lo == hi else f"{lo:0{width}d}-{hi:0{width}d}" for lo, hi in ranges]
        body = ",".join(parts)
        single = len(parts) == 1 and "-" not in body  # one number: no brackets
        out.append(prefix if width is None else f"{prefix}{body}" if single else f"{prefix}[{body}]")
    return ",".join(out)


def expand(expr: str) -> list[str]:
    """Every name of a hostlist expression (the inverse of :func:`compress`, for tests and checks).

    >>> expand("gpu[001-003,007],login1")
    ['gpu001', 'gpu002', 'gpu003', 'gpu007', 'login1']
    """
    out: list[str] = []
    for part in re.findall(r"[^,\[]+(?:\[[^\]]*\])?", expr):
        m = re.fullmatch(r"(.*)\[([^\]]*)\]", part)
        if m is None:
            out.append(part)
            continue
        prefix = m.group(1)
        for item in m.group(2).split(","):
            lo, _, hi = item.partition("-")
            width = len(lo)
            out.extend(f"{prefix}{i:0{width}d}" for i in range(int(lo), int(hi or lo) + 1))
    return out
