"""Discrete-event simulation of a GPU cluster's batch queue (pure, deterministic for its inputs).

Resources are whole nodes (the seed's batch partition is ``OverSubscribe=EXCLUSIVE``: a job takes
⌈GPUs ÷ GPUs per node⌉ nodes, all or nothing — gang scheduling). Events are job arrivals and
completions; at each event time completions free their nodes first, arrivals join the queue, then
the policy starts what it can:

- ``fifo``: strictly in submit order; the head blocks everything behind it (head-of-line blocking).
- ``easy``: the queue in priority order (critical, queued, best-effort; then submit time); jobs start
  while the head fits; when it does not, the head gets a reservation at the *shadow time* (when enough
  running jobs will have ended) and a later job may start now only if it fits now and either ends
  by the shadow time or uses only the nodes the head will not need then (EASY backfill, Lifka 1995;
  Mu'alem & Feitelson, IEEE TPDS 2001, §2). Runtimes are known exactly here (perfect estimates).

Placement: the lowest-numbered free nodes or, with ``leaf_nodes`` (nodes per leaf group / scalable
unit), a job that fits in one group goes to the group with the fewest free nodes that holds it (best
fit); a larger one takes the groups with the most free nodes first, spanning as few as it can.
Locality is reported as the share of multi-node jobs inside one group.

Reported over the window [0, horizon): utilization (busy node-hours ÷ capacity), queue waits per
class (p50/p95/p99 of the jobs that started), the time-average queue length integrated event by event
(Little's law L = λ W holds on every run: the test checks it), GPU-hours busy + idle = capacity.
"""

from __future__ import annotations

import bisect
import heapq
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scheduling import SchedulerInputError
from scheduling.workload import Jobs

POLICIES = ("fifo", "easy")


class _Pool:
    """Free nodes per leaf group (one group of all nodes without groups), each a heap: the lowest-numbered
    free nodes of a group come out first; a group's free count is kept beside it."""

    def __init__(self, n_nodes: int, leaf_nodes: int):
        size = leaf_nodes or n_nodes
        self.size = size
        self.heaps = [list(range(g * size, min((g + 1) * size, n_nodes))) for g in range(-(-n_nodes // size))]
        self.count = [len(h) for h in self.heaps]
        self.free_count = n_nodes

    def take(self, k: int) -> list[int]:
        """k nodes: the group with the fewest free nodes that holds them all (best fit), else the fullest
        groups first, so a job spans as few groups as it can."""
        fits = [g for g, c in enumerate(self.count) if c >= k]
        if fits:
            order = [min(fits, key=lambda g: (self.count[g], g))]
        else:
            order = sorted(range(len(self.count)), key=lambda g: (-self.count[g], g))
        out: list[int] = []
        for g in order:
            heap = self.heaps[g]
            while heap and len(out) < k:
                out.append(heapq.heappop(heap))
            self.count[g] = len(heap)
            if len(out) == k:
                break
        self.free_count -= k
        return out

    def give(self, nodes: list[int]) -> None:
        for x in nodes:
            g = x // self.size
            heapq.heappush(self.heaps[g], x)
            self.count[g] += 1
        self.free_count += len(nodes)


@dataclass
class _State:
    pool: _Pool
    running: list[tuple[float, int]] = field(default_factory=list)  # heap of (end, job)
    nodes_of: dict[int, list[int]] = field(default_factory=dict)

    @property
    def free_count(self) -> int:
        return self.pool.free_count


@dataclass(frozen=True)
class SimResult:
    node_count: int
    gpus_per_node: int
    horizon_h: float
    policy: str
    start_h: np.ndarray  # NaN: not started by the horizon
    end_h: np.ndarray
    nodes: np.ndarray  # nodes per job
    in_one_group: np.ndarray  # bool: the job's nodes inside one leaf group
    queue_integral_h: float  # ∫ queue length dt over the window, integrated event by event
    busy_integral_node_h: float  # ∫ busy nodes dt over the window, integrated event by event
    allocations: list[tuple[int, np.ndarray]] | None  # (job, its nodes), when recorded

    @property
    def capacity_node_h(self) -> float:
        return self.node_count * self.horizon_h


def _nodes_needed(gpus: np.ndarray, gpus_per_node: int) -> np.ndarray:
    return -(-gpus // gpus_per_node)


def _shadow(state: _State, need: int) -> tuple[float, int]:
    """(the time the head's ``need`` nodes are free, nodes spare at that time beyond its need)."""
    free = state.free_count
    for end, job in sorted(state.running):
        free += len(state.nodes_of[job])
        if free >= need:
            return end, free - need
    return math.inf, 0  # pragma: no cover - a job larger than the cluster is refused before


class _Sim:
    """One run's mutable state: free nodes, the running heap, the sorted queue and the per-job records."""

    def __init__(self, jobs: Jobs, node_count: int, need: np.ndarray, policy: str, leaf_nodes: int, record: bool):
        n = len(jobs)
        self.jobs, self.policy, self.leaf_nodes = jobs, policy, leaf_nodes
        # Python lists: the loop indexes one job at a time, where numpy scalars cost ~10× a list item
        self.need, self.hours = need.tolist(), jobs.hours.tolist()
        self.submit, self.priority = jobs.submit_h.tolist(), jobs.priority.tolist()
        self.state = _State(_Pool(node_count, leaf_nodes))
        self.queue: list[tuple[Any, int]] = []  # sorted (key, job)
        self.start = [math.nan] * n
        self.one_group = [False] * n
        self.allocations: list[tuple[int, np.ndarray]] | None = [] if record else None

    def key(self, j: int) -> tuple:
        if self.policy == "fifo":
            return (self.submit[j], j)
        return (-self.priority[j], self.submit[j], j)

    def begin(self, j: int, t: float) -> None:
        state, leaf = self.state, self.leaf_nodes
        nodes = state.pool.take(self.need[j])
        state.nodes_of[j] = nodes
        heapq.heappush(state.running, (t + self.hours[j], j))
        lo, hi = min(nodes), max(nodes)
        self.start[j] = t
        self.one_group[j] = bool(leaf) and lo // leaf == hi // leaf
        if self.allocations is not None:
            self.allocations.append((j, np.array(nodes)))

    def finish_until(self, t: float) -> None:
        state = self.state
        while state.running and state.running[0][0] <= t:
            _, j = heapq.heappop(state.running)
            state.pool.give(state.nodes_of.pop(j))

    def schedule(self, t: float) -> None:
        queue, state, need, hours = self.queue, self.state, self.need, self.hours
        while queue and need[queue[0][1]] <= state.free_count:
            self.begin(queue.pop(0)[1], t)
        if self.policy == "fifo" or not queue:
            return
        shadow, extra = _shadow(state, need[queue[0][1]])
        k = 1
        while k < len(queue) and state.free_count:
            j = queue[k][1]
            if need[j] <= state.free_count and (t + hours[j] <= shadow or need[j] <= extra):
                if t + hours[j] > shadow:
                    extra -= need[j]
                queue.pop(k)
                self.begin(j, t)
            else:
                k += 1


def simulate(
    jobs: Jobs,
    *,
    node_count: int,
    gpus_per_node: int,
    horizon_h: float,
    policy: str = "easy",
    leaf_nodes: int = 0,
    record: bool = False,
) -> SimResult:
    """Run the queue of ``jobs`` on ``node_count`` nodes until ``horizon_h``."""
    if policy not in POLICIES:
        raise SchedulerInputError({"policy": f"one of {', '.join(POLICIES)}"})
    need = _nodes_needed(jobs.gpus, gpus_per_node)
    if need.size and need.max() > node_count:
        raise SchedulerInputError({"classes": f"a job of {int(jobs.gpus.max()):,} GPUs needs more than the "
                                              f"{node_count:,} nodes"})  # fmt: skip
    sim = _Sim(jobs, node_count, need, policy, leaf_nodes, record)
    state, queue, submit, n = sim.state, sim.queue, sim.submit, len(jobs)
    q_int = busy_int = 0.0
    t_prev, i = 0.0, 0
    while True:
        t_next = min(submit[i] if i < n else math.inf, state.running[0][0] if state.running else math.inf)
        until = min(t_next, horizon_h)
        q_int += len(queue) * (until - t_prev)  # the queue and the busy nodes are constant between events
        busy_int += (node_count - state.pool.free_count) * (until - t_prev)
        if t_next >= horizon_h:
            break
        t_prev = t = t_next
        sim.finish_until(t)
        while i < n and submit[i] <= t:
            bisect.insort(queue, (sim.key(i), i))
            i += 1
        sim.schedule(t)
    start = np.array(sim.start)
    return SimResult(
        node_count, gpus_per_node, horizon_h, policy, start, start + jobs.hours, need,
        np.array(sim.one_group), q_int, busy_int, sim.allocations,
    )  # fmt: skip


def report(result: SimResult, jobs: Jobs, class_names: list[str]) -> dict[str, Any]:
    """Utilization, waits per class, Little's law terms and the node-hour balance, with derivations."""
    t_end = result.horizon_h
    arrived = jobs.submit_h < t_end
    started = ~np.isnan(result.start_h) & (result.start_h < t_end)
    run_h = np.clip(np.minimum(result.end_h, t_end) - result.start_h, 0, None)
    busy_node_h = float(np.sum(np.where(started, run_h * result.nodes, 0.0)))
    waited_h = np.where(started, result.start_h, t_end) - jobs.submit_h  # time in the queue inside the window
    lam = float(arrived.sum()) / t_end
    w_window = float(waited_h[arrived].mean()) if arrived.any() else 0.0
    classes = []
    for c, name in enumerate(class_names):
        mine = (jobs.cls == c) & arrived
        waits = (result.start_h - jobs.submit_h)[mine & started]
        multi = mine & started & (result.nodes > 1)
        classes.append(
            {
                "name": name,
                "jobs": int(mine.sum()),
                "started": int((mine & started).sum()),
                "waiting_at_end": int((mine & ~started).sum()),
                "wait_h_p50": _pct(waits, 50),
                "wait_h_p95": _pct(waits, 95),
                "wait_h_p99": _pct(waits, 99),
                "wait_h_mean": float(waits.mean()) if waits.size else None,
                "one_group_frac": float(result.in_one_group[multi].mean()) if multi.any() else None,
            }
        )
    util = busy_node_h / result.capacity_node_h
    return {
        "policy": result.policy,
        "utilization_frac": util,
        "busy_node_h": busy_node_h,
        "idle_node_h": result.capacity_node_h - busy_node_h,
        "capacity_node_h": result.capacity_node_h,
        "classes": classes,
        "little": {
            "queue_length_mean": result.queue_integral_h / t_end,
            "arrival_rate_per_h": lam,
            "wait_h_mean": w_window,
        },
        "derivations": {
            "utilization_frac": f"{busy_node_h:,.0f} busy node-hours ÷ ({result.node_count:,} nodes × "
            f"{t_end:,.0f} h) = {util:.1%}",
            "little": f"L = ∫ queue dt ÷ T = {result.queue_integral_h / t_end:.4g} jobs; λ W = "
            f"{lam:.4g}/h × {w_window:.4g} h = {lam * w_window:.4g} (time in the queue within the window)",
        },
    }


def _pct(x: np.ndarray, q: float) -> float | None:
    return float(np.percentile(x, q)) if x.size else None
