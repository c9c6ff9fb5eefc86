"""A plain reference queue simulator (FIFO and EASY backfill, whole nodes): lists and loops, no numpy,
no placement — the oracle the tests hold scheduling/simulator.py to on small cases, and the speed
baseline of ``make bench``. Start times depend only on node counts, so they must agree exactly."""

from __future__ import annotations

import math


def reference_starts(
    submit_h: list[float],
    nodes: list[int],
    hours: list[float],
    priority: list[int],
    *,
    node_count: int,
    horizon_h: float,
    policy: str,
) -> list[float | None]:
    n = len(submit_h)
    start: list[float | None] = [None] * n
    running: list[tuple[float, int]] = []  # (end, nodes)
    waiting: list[int] = []
    free, nxt = node_count, 0
    while True:
        t = min(submit_h[nxt] if nxt < n else math.inf, min((e for e, _ in running), default=math.inf))
        if t >= horizon_h or t == math.inf:
            return start
        free += sum(k for e, k in running if e <= t)
        running = [(e, k) for e, k in running if e > t]
        while nxt < n and submit_h[nxt] <= t:
            waiting.append(nxt)
            nxt += 1
        if policy == "fifo":
            waiting.sort(key=lambda j: (submit_h[j], j))
        else:
            waiting.sort(key=lambda j: (-priority[j], submit_h[j], j))
        while waiting and nodes[waiting[0]] <= free:
            j = waiting.pop(0)
            start[j], free = t, free - nodes[j]
            running.append((t + hours[j], nodes[j]))
        if policy == "fifo" or not waiting:
            continue
        head_need, avail, shadow, extra = nodes[waiting[0]], free, math.inf, 0
        for e, k in sorted(running):
            if e > shadow:
                break
            avail += k  # every job ending at the shadow time frees its nodes then
            if avail >= head_need:
                shadow, extra = e, avail - head_need
        for j in list(waiting[1:]):
            if nodes[j] <= free and (t + hours[j] <= shadow or nodes[j] <= extra):
                if t + hours[j] > shadow:
                    extra -= nodes[j]
                waiting.remove(j)
                start[j], free = t, free - nodes[j]
                running.append((t + hours[j], nodes[j]))
