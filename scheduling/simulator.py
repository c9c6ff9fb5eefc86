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

GPU failures (scheduling/failures.py, optional): node failures from a per-GPU annualised failure
rate kill the job on the node (work since its last Daly-interval checkpoint is lost), the node is
out of service while it is repaired, the job queues again; jobs write checkpoints, which stretches
their wall time by 1 + δ/τ. Node-hours then split busy + idle + down = capacity, and busy splits
into productive + lost + checkpoint writes + restarts, segment by segment.

Reported over the window [0, horizon): utilization (busy node-hours ÷ capacity), queue waits per
class (p50/p95/p99 of the jobs that started), the time-average queue length integrated event by event
(Little's law L = λ W holds on every run: the test checks it), GPU-hours busy + idle = capacity.
"""

from __future__ import annotations

import bisect
import dataclasses
import heapq
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scheduling import SchedulerInputError
from scheduling.carbon import CarbonPolicy
from scheduling.failures import FailureModel, failure_stream, work_checkpointed
from scheduling.tidal import TidalPolicy
from scheduling.workload import PRIORITY, Jobs

POLICIES = ("fifo", "easy")
PRIORITY_PREEMPTS = PRIORITY["critical"]  # the class that preempts (§14.8.1); lower classes are preempted


class _Pool:
    """Free nodes per leaf group (one group of all nodes without groups), each a heap: the lowest-numbered
    free nodes of a group come out first; a group's and a pod's free counts are kept beside them.

    Groups are ``leaf_nodes`` consecutive nodes, or ``groups`` (the group of every node, from the
    fabric plan); ``pods`` is the pod of every group (one pod when not given)."""

    def __init__(self, n_nodes: int, leaf_nodes: int, groups: list[int] | None = None, pods: list[int] | None = None):
        size = leaf_nodes or n_nodes or 1
        self.group_of = list(groups) if groups is not None else [x // size for x in range(n_nodes)]
        n_groups = max(self.group_of, default=-1) + 1
        self.heaps: list[list[int]] = [[] for _ in range(n_groups)]
        for x, g in enumerate(self.group_of):
            self.heaps[g].append(x)  # ascending: already a heap
        self.count = [len(h) for h in self.heaps]
        self.pod_of = list(pods) if pods is not None else [0] * n_groups
        self.pod_free = [0] * (max(self.pod_of, default=0) + 1)
        for g, c in enumerate(self.count):
            self.pod_free[self.pod_of[g]] += c
        self.free_count = n_nodes

    def take(self, k: int) -> list[int]:
        """k nodes: the group with the fewest free nodes that holds them all (best fit); else the pod with
        the fewest free nodes that holds them, its fullest groups first; else the fullest groups first —
        so a job spans as few groups, and pods, as it can."""
        fits = [g for g, c in enumerate(self.count) if c >= k]
        if fits:
            order = [min(fits, key=lambda g: (self.count[g], g))]
        else:
            pods = [p for p, c in enumerate(self.pod_free) if c >= k]
            pod = min(pods, key=lambda p: (self.pod_free[p], p)) if pods and len(self.pod_free) > 1 else None
            groups = (
                range(len(self.count)) if pod is None else [g for g in range(len(self.count)) if self.pod_of[g] == pod]
            )
            order = sorted(groups, key=lambda g: (-self.count[g], g))
        out: list[int] = []
        for g in order:
            heap = self.heaps[g]
            before = len(out)
            while heap and len(out) < k:
                out.append(heapq.heappop(heap))
            self.count[g] = len(heap)
            self.pod_free[self.pod_of[g]] -= len(out) - before
            if len(out) == k:
                break  # all k taken
        self.free_count -= k
        return out

    def give(self, nodes: list[int]) -> None:
        for x in nodes:
            g = self.group_of[x]
            heapq.heappush(self.heaps[g], x)
            self.count[g] += 1
            self.pod_free[self.pod_of[g]] += 1
        self.free_count += len(nodes)

    def remove(self, x: int) -> None:
        """Take one free node out of service (a failure while idle)."""
        g = self.group_of[x]
        heap = self.heaps[g]
        heap.remove(x)
        heapq.heapify(heap)
        self.count[g] -= 1
        self.pod_free[self.pod_of[g]] -= 1
        self.free_count -= 1

    def spans(self, nodes: list[int]) -> tuple[bool, bool]:
        """(the nodes span several leaf groups, several pods)."""
        groups = {self.group_of[x] for x in nodes}
        return len(groups) > 1, len({self.pod_of[g] for g in groups}) > 1


@dataclass
class _State:
    pool: _Pool
    running: list[tuple[float, int]] = field(default_factory=list)  # heap of (end, job); stale if ≠ end_of
    nodes_of: dict[int, list[int]] = field(default_factory=dict)
    end_of: dict[int, float] = field(default_factory=dict)
    crossing: dict[int, tuple[int, int]] = field(default_factory=dict)  # job → (nodes across groups, across pods)
    spine_nodes: int = 0  # nodes of running jobs that span leaf groups (their traffic crosses the spine)
    core_nodes: int = 0  # … that span pods (it crosses the core)

    def release(self, j: int) -> list[int]:
        """A job's nodes, no longer running (the crossing counts follow)."""
        spine, core = self.crossing.pop(j, (0, 0))
        self.spine_nodes -= spine
        self.core_nodes -= core
        return self.nodes_of.pop(j)

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
    queue_h: np.ndarray | None = None  # each job's total time in the queue inside the window
    failures: dict[str, float] | None = None  # failure accounting (node-hours), when failures are modelled
    restarts: np.ndarray | None = None
    preempted: np.ndarray | None = None
    segments: list[list] | None = None  # when recorded: [job, nodes, start, end] per run (end NaN: at the horizon)
    outages: list[tuple[float, float, int]] | None = None  # when failures are modelled: (down, back, node)
    inference_spans: list[tuple[float, float, int]] | None = None  # tidal sharing: (from, to, node)
    timeline: dict[str, Any] | None = None  # node counts per time bin (simulate's timeline_bins)
    in_one_pod: np.ndarray | None = None  # bool: the job's nodes inside one pod
    spine_node_h: float = 0.0  # node-hours of runs spanning leaf groups (traffic through the spine)
    core_node_h: float = 0.0  # node-hours of runs spanning pods (through the core)
    idle_waiting_node_h: float = 0.0  # idle node-hours while jobs wait (fragmentation)

    @property
    def capacity_node_h(self) -> float:
        return self.node_count * self.horizon_h


def _nodes_needed(gpus: np.ndarray, gpus_per_node: int) -> np.ndarray:
    return -(-gpus // gpus_per_node)


def _shadow(state: _State, need: int) -> tuple[float, int]:
    """(the time the head's ``need`` nodes are free, nodes spare at that time beyond its need).

    Spare nodes count every job that ends *at* the shadow time, not only those up to the one that
    makes the head fit (Mu'alem & Feitelson 2001: the extra nodes are those free at the shadow time)."""
    free, shadow = state.free_count, math.inf
    for end, job in sorted(state.running):
        if state.end_of.get(job) != end:
            continue  # a job a failure killed: its entry is stale
        if end > shadow:
            break  # sorted: every later end is past the shadow too
        free += len(state.nodes_of[job])
        if free >= need:
            shadow = end
    if shadow == math.inf:
        return math.inf, 0  # nodes out of service: the head waits for repairs, backfill fills what is free
    return shadow, free - need


class _Sim:
    """One run's mutable state: free nodes, the running heap, the sorted queue and the per-job records."""

    def __init__(self, jobs: Jobs, node_count: int, need: np.ndarray, policy: str, leaf_nodes: int, record: bool,
                 groups: list[int] | None = None, pods: list[int] | None = None):  # fmt: skip
        n = len(jobs)
        self.jobs, self.policy, self.leaf_nodes = jobs, policy, leaf_nodes
        # Python lists: the loop indexes one job at a time, where numpy scalars cost ~10× a list item
        self.need, self.hours = need.tolist(), jobs.hours.tolist()
        self.gpus_per_node = 0  # set by simulate
        self.submit, self.priority = jobs.submit_h.tolist(), jobs.priority.tolist()
        self.state = _State(_Pool(node_count, leaf_nodes, groups, pods))
        self.grouped = bool(leaf_nodes) or groups is not None
        self.queue: list[tuple[Any, int]] = []  # sorted (key, job)
        self.start = [math.nan] * n
        self.end = [math.nan] * n
        self.one_group = [False] * n
        self.one_pod = [False] * n
        self.allocations: list[tuple[int, np.ndarray]] | None = [] if record else None
        self.segments: list[list] = []  # recorded runs: [job, nodes, start, end] (a job restarted has several)
        self.open_segment: dict[int, int] = {}
        self.faults: _Faults | None = None
        self.preempt = False
        self.spread: list[float] | None = None  # run-time factor when a job spans leaf groups (network.py)
        self.carbon: CarbonPolicy | None = None
        self.deferrable: list[bool] = []
        self.last_end = [math.nan] * n
        self.wall = self.hours  # wall time a job needs if it starts now (with failures: _Faults keeps it)
        self.queued_at = [math.nan] * n
        self.queue_h = [0.0] * n  # total time in the queue (several stints when failures requeue a job)

    def key(self, j: int) -> tuple:
        if self.policy == "fifo":
            return (self.submit[j], j)
        return (-self.priority[j], self.submit[j], j)

    def begin(self, j: int, t: float) -> None:
        state = self.state
        self.queue_h[j] += t - self.queued_at[j]
        self.queued_at[j] = math.nan
        nodes = state.pool.take(self.need[j])
        state.nodes_of[j] = nodes
        spans, across_pods = state.pool.spans(nodes) if self.grouped else (False, False)
        if spans:
            state.crossing[j] = (len(nodes), len(nodes) if across_pods else 0)
            state.spine_nodes += len(nodes)
            state.core_nodes += len(nodes) if across_pods else 0
        factor = self.spread[j] if self.spread is not None and spans else 1.0
        wall = self.hours[j] * factor if self.faults is None else self.faults.begin(j, t, nodes, factor)
        end = t + wall
        self.last_end[j] = end
        state.end_of[j] = end
        heapq.heappush(state.running, (end, j))
        if math.isnan(self.start[j]):
            self.start[j] = t
            self.one_group[j] = self.grouped and not spans
            self.one_pod[j] = self.grouped and not across_pods
        if self.allocations is not None:
            self.allocations.append((j, np.array(nodes)))
            self.open_segment[j] = len(self.segments)
            self.segments.append([j, list(nodes), t, math.nan])

    def finish_until(self, t: float) -> None:
        state = self.state
        while state.running and state.running[0][0] <= t:
            end, j = heapq.heappop(state.running)
            if state.end_of.get(j) != end:
                continue  # killed by a failure before this end
            del state.end_of[j]
            self.end[j] = end
            self.close_segment(j, end)
            if self.faults is not None:
                self.faults.close(j, end, failed=False)
            state.pool.give(state.release(j))

    def schedule(self, t: float) -> None:
        if self.carbon is None:
            return self._schedule(t)
        held = [e for e in self.queue if self.held(e[1], t)]  # carbon-aware: not there for now
        if held:
            keep = set(id(e) for e in held)
            self.queue[:] = [e for e in self.queue if id(e) not in keep]
        self._schedule(t)
        for e in held:
            bisect.insort(self.queue, e)

    def held(self, j: int, t: float) -> bool:
        c = self.carbon
        # the same expression as the deadline next_release wakes at: t < submit + limit (no rounding gap)
        return bool(self.deferrable[j]) and not c.clean_now(t) and t < self.submit[j] + c.max_defer_h

    def next_release(self, t: float) -> float:
        """With held jobs: the next hour boundary or deferral deadline, when one may start."""
        if self.carbon is None:
            return math.inf
        deadlines = [self.submit[j] + self.carbon.max_defer_h for _, j in self.queue if self.held(j, t)]
        if not deadlines:
            return math.inf
        return max(min(math.floor(t) + 1.0, min(deadlines)), math.nextafter(t, math.inf))  # always ahead of t

    def _schedule(self, t: float) -> None:
        queue, state, need, wall = self.queue, self.state, self.need, self.wall
        while queue and need[queue[0][1]] <= state.free_count:
            self.begin(queue.pop(0)[1], t)
        if self.policy == "fifo" or not queue:
            return
        if self.preempt and self.preempt_for(queue[0][1], t):
            self.begin(queue.pop(0)[1], t)
            while queue and need[queue[0][1]] <= state.free_count:
                self.begin(queue.pop(0)[1], t)
            if not queue:
                return
        shadow, extra = _shadow(state, need[queue[0][1]])
        k = 1
        while k < len(queue) and state.free_count:
            j = queue[k][1]
            if need[j] <= state.free_count and (t + wall[j] <= shadow or need[j] <= extra):
                if t + wall[j] > shadow:
                    extra -= need[j]
                queue.pop(k)
                self.begin(j, t)
            else:
                k += 1

    def preempt_for(self, head: int, t: float) -> bool:
        """Preemption (§14.8.1: critical jobs preempt): free nodes for a head of the critical class by
        requeueing running jobs of lower classes — lowest class first, then the most recently started —
        only when that frees enough. A preempted job checkpoints on the signal (Slurm PreemptMode=REQUEUE
        with a grace time: its work is kept, the write counted as instantaneous beside multi-day jobs) and
        pays the restart time when it runs again."""
        state, prio = self.state, self.priority
        if prio[head] < PRIORITY_PREEMPTS:
            return False
        victims = sorted((j for j in state.end_of if prio[j] < prio[head]), key=lambda j: (prio[j], -self.seg_start(j)))
        free, chosen = state.free_count, []
        for j in victims:
            if free >= self.need[head]:
                break  # enough is free
            chosen.append(j)
            free += len(state.nodes_of[j])
        if free < self.need[head]:
            return False
        for j in chosen:
            self.faults.requeue(j, t, failed_node=None)
        return True

    def seg_start(self, j: int) -> float:
        return self.faults.seg[j][0]

    def close_segment(self, j: int, t: float) -> None:
        if self.allocations is not None:
            self.segments[self.open_segment.pop(j)][3] = t

    def enqueue(self, j: int, t: float) -> None:
        bisect.insort(self.queue, (self.key(j), j))
        self.queued_at[j] = t


class _Faults:
    """Failures, repairs, checkpoints and the node-hour books of one run (scheduling/failures.py)."""

    def __init__(self, sim: _Sim, model: FailureModel, node_count: int, gpus_per_node: int, horizon_h: float):
        self.sim, self.model, self.horizon = sim, model, horizon_h
        need = sim.need
        self.tau = [model.interval_h(k, gpus_per_node) for k in need]
        self.stretch = [model.stretch(k, gpus_per_node) for k in need]
        self.work_left = list(sim.hours)  # hours of work not yet safe in a checkpoint (or done)
        sim.wall = [h * st * self.spread_of(j) for j, (h, st) in enumerate(zip(sim.hours, self.stretch, strict=True))]
        self.seg: dict[int, tuple[float, float]] = {}  # running job → (segment start, restart hours in it)
        self.restarts = [0] * len(need)
        times, nodes = failure_stream(model, node_count, gpus_per_node, horizon_h)
        self.fail_t, self.fail_node, self.next_fail = times.tolist(), nodes.tolist(), 0
        self.repairs: list[tuple[float, int]] = []  # heap of (back in service, node)
        self.down: set[int] = set()
        self.job_on: dict[int, int] = {}
        self.books = {"productive": 0.0, "lost": 0.0, "checkpoint": 0.0, "restart": 0.0, "network_wait": 0.0}
        self.counts = {"failures": 0, "failures_killing_a_job": 0, "failures_on_a_node_already_down": 0,
                       "preemptions": 0}  # fmt: skip
        self.preempted = [0] * len(need)
        self.outages: list[tuple[float, float, int]] = []
        self.tidal: TidalPolicy | None = None
        self.reserved: set[int] = set()  # nodes inference holds this hour (tidal sharing)
        self.reserved_since: dict[int, float] = {}
        self.inference_spans: list[tuple[float, float, int]] = []  # (from, to, node) held by inference
        self.unserved_node_h = 0.0

    def begin(self, j: int, t: float, nodes: list[int], factor: float) -> float:
        restart = self.model.restart_h if self.restarts[j] else 0.0
        self.seg[j] = (t, restart, factor)
        for x in nodes:
            self.job_on[x] = j
        return restart + self.work_left[j] * self.stretch[j] * factor

    def close(self, j: int, t: float, failed: bool) -> None:
        """Book a segment [start, t) of job j (t ≤ horizon) into productive / lost / checkpoint / restart."""
        start, restart, factor = self.seg.pop(j)
        k = self.sim.need[j]
        wall = max(0.0, min(t, self.horizon) - start)
        in_restart = min(restart, wall)
        work = (wall - in_restart) / (self.stretch[j] * factor)  # hours of work at the job's own pace
        saved = work_checkpointed(work, self.tau[j]) if failed else work
        b = self.books
        b["restart"] += in_restart * k
        b["checkpoint"] += work * (self.stretch[j] - 1) * factor * k
        b["network_wait"] += work * (factor - 1) * k
        b["productive"] += saved * k
        b["lost"] += (work - saved) * k
        self.work_left[j] = max(0.0, self.work_left[j] - saved)
        for x in self.sim.state.nodes_of.get(j, []):
            self.job_on.pop(x, None)

    def requeue(self, j: int, t: float, failed_node: int | None) -> None:
        """Stop job j at t — killed by a failure of ``failed_node`` (work since its checkpoint lost) or
        preempted (None: it checkpoints on the signal) — free its nodes but the failed one, queue it again."""
        sim, state = self.sim, self.sim.state
        self.close(j, t, failed=failed_node is not None)
        sim.close_segment(j, t)
        del state.end_of[j]
        nodes = state.release(j)
        state.pool.give([y for y in nodes if y != failed_node])
        self.restarts[j] += 1
        if failed_node is None:
            self.counts["preemptions"] += 1
            self.preempted[j] += 1
        sim.wall[j] = self.model.restart_h + self.work_left[j] * self.stretch[j] * self.spread_of(j)
        sim.last_end[j] = math.nan
        sim.enqueue(j, t)

    def spread_of(self, j: int) -> float:
        return self.sim.spread[j] if self.sim.spread is not None else 1.0

    def next_time(self, t: float) -> float:
        nf = self.fail_t[self.next_fail] if self.next_fail < len(self.fail_t) else math.inf
        return min(nf, self.repairs[0][0] if self.repairs else math.inf, self.next_tide(t))

    def tide(self, t: float) -> None:
        """At an hour boundary, inference takes the nodes its demand needs this hour — free ones first, then
        by preempting best-effort training (most recently started first) — or gives back what it no longer needs."""
        sim, state = self.sim, self.sim.state
        want = self.tidal.nodes_at(t, sim.gpus_per_node)
        if want < len(self.reserved):
            back = sorted(self.reserved)[want - len(self.reserved) :]
            self.reserved.difference_update(back)
            self.inference_spans.extend((self.reserved_since.pop(x), t, x) for x in back)
            state.pool.give(back)
            return
        short = want - len(self.reserved)
        victims = sorted((j for j in state.end_of if sim.priority[j] == PRIORITY["best_effort"]),
                         key=lambda j: -self.seg[j][0])  # fmt: skip
        while state.free_count < short and victims:
            self.requeue(victims.pop(0), t, failed_node=None)
        take = min(short, state.free_count)
        if take:
            nodes = state.pool.take(take)
            self.reserved.update(nodes)
            self.reserved_since.update(dict.fromkeys(nodes, t))

    def next_tide(self, t: float) -> float:
        return math.floor(t) + 1.0 if self.tidal is not None else math.inf

    def handle_until(self, t: float) -> None:
        """Repairs, then failures, up to t."""
        pool = self.sim.state.pool
        while self.repairs and self.repairs[0][0] <= t:
            _, x = heapq.heappop(self.repairs)
            self.down.discard(x)
            pool.give([x])
        while self.next_fail < len(self.fail_t) and self.fail_t[self.next_fail] <= t:
            tf, x = self.fail_t[self.next_fail], self.fail_node[self.next_fail]
            self.next_fail += 1
            self.fail(tf, x)

    def fail(self, t: float, x: int) -> None:
        state = self.sim.state
        self.counts["failures"] += 1
        if x in self.down:
            self.counts["failures_on_a_node_already_down"] += 1
            return
        j = self.job_on.get(x)
        if x in self.reserved:  # an inference node: it leaves the reservation (the next hour takes another)
            self.reserved.remove(x)
            self.inference_spans.append((self.reserved_since.pop(x), t, x))
        elif j is None:
            state.pool.remove(x)
        else:
            self.counts["failures_killing_a_job"] += 1
            self.requeue(j, t, failed_node=x)
        self.down.add(x)
        heapq.heappush(self.repairs, (t + self.model.repair_h, x))
        self.outages.append((t, t + self.model.repair_h, x))

    def finish(self) -> dict[str, float]:
        for j in list(self.seg):  # segments still running at the horizon
            self.close(j, self.horizon, failed=False)
        return {**{f"{k}_node_h": v for k, v in self.books.items()}, **{k: float(v) for k, v in self.counts.items()}}


class _Timeline:
    """Time-averaged busy, queued, down and inference-held nodes per bin of [0, horizon), exact: every
    constant stretch between two events is split over the bins it covers."""

    def __init__(self, bins: int, horizon_h: float):
        self.width_h = horizon_h / bins
        self.sums = np.zeros((4, bins))

    def add(self, t0: float, t1: float, busy: float, queue: float, down: float, held: float) -> None:
        w, values = self.width_h, (busy, queue, down, held)
        b = int(t0 // w)
        while t0 < t1 and b < self.sums.shape[1]:
            edge = min(t1, (b + 1) * w)
            for k in range(4):
                self.sums[k, b] += values[k] * (edge - t0)
            t0, b = edge, b + 1

    def to_dict(self) -> dict[str, list[float]]:
        m = self.sums / self.width_h
        return {"bin_h": self.width_h, "busy_nodes": m[0].tolist(), "queued_jobs": m[1].tolist(),
                "down_nodes": m[2].tolist(), "inference_nodes": m[3].tolist()}  # fmt: skip


PROGRESS_EVERY = 4096  # loop turns between two progress reports


class _Integrals:
    """Node counts integrated over time, event by event (they are constant between two events)."""

    def __init__(self, sim: _Sim, node_count: int, gpus_per_node: int, timeline: _Timeline | None):
        self.sim, self.node_count, self.gpus_per_node, self.timeline = sim, node_count, gpus_per_node, timeline
        self.queue = self.busy = self.down = self.inference = self.spine = self.core = self.idle_waiting = 0.0

    def add(self, t0: float, t1: float) -> None:
        sim, dt = self.sim, t1 - t0
        faults, state = sim.faults, sim.state
        down = len(faults.down) if faults is not None else 0
        held = len(faults.reserved) if faults is not None else 0
        if faults is not None and faults.tidal is not None:
            faults.unserved_node_h += max(0, faults.tidal.nodes_at(t0, self.gpus_per_node) - held) * dt
        busy = self.node_count - state.pool.free_count - down - held
        waiting = len(sim.queue)
        self.queue += waiting * dt
        self.down += down * dt
        self.inference += held * dt
        self.busy += busy * dt
        self.spine += state.spine_nodes * dt
        self.core += state.core_nodes * dt
        if waiting:
            self.idle_waiting += state.pool.free_count * dt  # fragmentation: idle nodes while jobs wait
        if self.timeline is not None:
            self.timeline.add(t0, t1, busy, waiting, down, held)


def simulate(
    jobs: Jobs,
    *,
    node_count: int,
    gpus_per_node: int,
    horizon_h: float,
    policy: str = "easy",
    leaf_nodes: int = 0,
    record: bool = False,
    failures: FailureModel | None = None,
    preempt: bool = False,
    restart_h: float = 0.25,
    spread: np.ndarray | None = None,
    carbon: CarbonPolicy | None = None,
    deferrable: np.ndarray | None = None,
    tidal: TidalPolicy | None = None,
    timeline_bins: int = 0,
    progress: Callable[[float], None] | None = None,
    groups: list[int] | None = None,
    pods: list[int] | None = None,
) -> SimResult:
    """Run the queue of ``jobs`` on ``node_count`` nodes until ``horizon_h`` (with GPU failures if given;
    with ``preempt``, critical jobs preempt lower classes, who restart in ``restart_h``). ``timeline_bins``:
    node counts over time in that many bins; ``progress(fraction of the horizon)`` every few thousand events;
    ``groups``: the leaf group of every node and ``pods`` the pod of every group (the fabric plan's
    hierarchy), instead of groups of ``leaf_nodes`` consecutive nodes in one pod."""
    if policy not in POLICIES:
        raise SchedulerInputError({"policy": f"one of {', '.join(POLICIES)}"})
    if preempt and policy != "easy":
        raise SchedulerInputError({"preempt": "preemption orders the queue by class: use the easy policy"})
    if (preempt or spread is not None or tidal is not None) and failures is None:
        failures = FailureModel(afr=0.0, restart_h=restart_h)  # the node-hour books and restarts; no failures
    need = _nodes_needed(jobs.gpus, gpus_per_node)
    if need.size and need.max() > node_count:
        raise SchedulerInputError({"classes": f"a job of {int(jobs.gpus.max()):,} GPUs needs more than the "
                                              f"{node_count:,} nodes"})  # fmt: skip
    if groups is not None and len(groups) != node_count:
        raise SchedulerInputError({"groups": f"a leaf group for each of the {node_count:,} nodes"})
    sim = _Sim(jobs, node_count, need, policy, leaf_nodes, record, groups, pods)
    _configure(sim, jobs, gpus_per_node, horizon_h, failures, preempt, spread, carbon, deferrable, tidal)
    faults = sim.faults
    state, queue, submit, n = sim.state, sim.queue, sim.submit, len(jobs)
    timeline = _Timeline(timeline_bins, horizon_h) if timeline_bins else None
    books = _Integrals(sim, node_count, gpus_per_node, timeline)
    t_prev, i, turns = 0.0, 0, 0
    while True:
        turns += 1
        if progress is not None and turns % PROGRESS_EVERY == 0:
            progress(t_prev / horizon_h)
        t_next = min(submit[i] if i < n else math.inf, state.running[0][0] if state.running else math.inf)
        if faults is not None:
            t_next = min(t_next, faults.next_time(t_prev))
        if sim.carbon is not None:
            t_next = min(t_next, sim.next_release(t_prev))
        books.add(t_prev, min(t_next, horizon_h))
        if t_next >= horizon_h:
            break
        t_prev = t = t_next
        sim.finish_until(t)
        if faults is not None:
            faults.handle_until(t)
            if faults.tidal is not None and t == math.floor(t):
                faults.tide(t)
        while i < n and submit[i] <= t:
            sim.enqueue(i, submit[i])
            i += 1
        sim.schedule(t)
    for _, j in queue:  # still waiting at the horizon
        sim.queue_h[j] += horizon_h - sim.queued_at[j]
    res = _result(sim, node_count, gpus_per_node, horizon_h, policy, need, books.queue, books.busy, books.down,
                  books.inference)  # fmt: skip
    return dataclasses.replace(
        res, timeline=timeline.to_dict() if timeline is not None else None, in_one_pod=np.array(sim.one_pod),
        spine_node_h=books.spine, core_node_h=books.core, idle_waiting_node_h=books.idle_waiting,
    )  # fmt: skip


def _configure(sim: _Sim, jobs: Jobs, gpus_per_node, horizon_h, failures, preempt, spread, carbon, deferrable,
               tidal) -> None:  # fmt: skip
    """Switch on what the run models: spread run times, failures/preemption books, tidal sharing, carbon."""
    sim.gpus_per_node = gpus_per_node
    if spread is not None:  # backfill plans with the slower, spread run time (it may not fit in one group):
        sim.spread = [float(x) for x in spread]  # _Faults (always made with spread) sets the walls from it
    node_count = sim.state.pool.free_count
    sim.faults = _Faults(sim, failures, node_count, gpus_per_node, horizon_h) if failures else None
    sim.preempt = preempt
    if tidal is not None:
        sim.faults.tidal = tidal
        sim.faults.tide(0.0)  # hour 0's reservation
    if carbon is not None:
        sim.carbon = carbon
        flags = deferrable if deferrable is not None else np.zeros(len(jobs), dtype=bool)
        sim.deferrable = [bool(x) for x in flags]


def _result(sim: _Sim, node_count, gpus_per_node, horizon_h, policy, need, q_int, busy_int, down_int,
            inference_int) -> SimResult:  # fmt: skip
    faults, record = sim.faults, sim.allocations is not None
    books = None
    if faults is not None:
        books = {**faults.finish(), "down_node_h": down_int}
        if faults.tidal is not None:
            books |= {"inference_node_h": inference_int, "inference_unserved_node_h": faults.unserved_node_h}
    start = np.array(sim.start)
    return SimResult(
        node_count, gpus_per_node, horizon_h, policy, start, np.array(sim.last_end), need,
        np.array(sim.one_group), q_int, busy_int, sim.allocations, np.array(sim.queue_h), books,
        np.array(faults.restarts) if faults is not None else None,
        np.array(faults.preempted) if faults is not None else None,
        sim.segments if record else None,
        faults.outages if faults is not None else None,
        (faults.inference_spans + [(t0, horizon_h, x) for x, t0 in faults.reserved_since.items()])
        if faults is not None else None,
    )  # fmt: skip


def report(result: SimResult, jobs: Jobs, class_names: list[str]) -> dict[str, Any]:
    """Utilization, waits per class, Little's law terms and the node-hour balance, with derivations."""
    t_end = result.horizon_h
    arrived = jobs.submit_h < t_end
    started = ~np.isnan(result.start_h) & (result.start_h < t_end)
    busy_node_h = result.busy_integral_node_h
    waited_h = result.queue_h  # time in the queue inside the window, every stint
    lam = float(arrived.sum()) / t_end
    w_window = float(waited_h[arrived].mean()) if arrived.any() else 0.0
    classes = [_class_row(result, jobs, c, name, arrived, started) for c, name in enumerate(class_names)]
    util = busy_node_h / result.capacity_node_h
    down = result.failures["down_node_h"] if result.failures else 0.0
    inference = result.failures.get("inference_node_h", 0.0) if result.failures else 0.0
    out = {
        "policy": result.policy,
        "utilization_frac": util,
        "busy_node_h": busy_node_h,
        "idle_node_h": result.capacity_node_h - busy_node_h - down - inference,
        "down_node_h": down,
        "inference_node_h": inference,
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
    if result.failures:
        out["failures"] = _failure_rows(result)
        out["derivations"]["goodput_frac"] = out["failures"]["derivation"]
    _placement_rows(result, out)
    return out


def _placement_rows(result: SimResult, out: dict[str, Any]) -> None:
    """Fragmentation and the GPU-hours that cross the spine and the core, with their derivations."""
    g = result.gpus_per_node
    frag = result.idle_waiting_node_h
    out["idle_waiting_gpu_h"] = frag * g
    out["spine_gpu_h"] = result.spine_node_h * g
    out["core_gpu_h"] = result.core_node_h * g
    busy = result.busy_integral_node_h
    out["derivations"]["idle_waiting_gpu_h"] = (
        f"∫ idle nodes dt while a job waits = {frag:,.0f} node-h × {g} GPUs = {frag * g:,.0f} GPU-h "
        f"({frag / result.capacity_node_h:.1%} of the capacity): idle, yet not enough, or not the right nodes, "
        "for the job at the head"
    )
    out["derivations"]["spine_gpu_h"] = (
        f"{result.spine_node_h:,.0f} of {busy:,.0f} busy node-hours ({result.spine_node_h / busy if busy else 0:.1%}) "
        f"ran on jobs spanning leaf groups (their traffic crosses the spine), {result.core_node_h:,.0f} on jobs "
        "spanning pods (it crosses the core)"
    )


def _class_row(result: SimResult, jobs: Jobs, c: int, name: str, arrived, started) -> dict[str, Any]:
    mine = (jobs.cls == c) & arrived
    waits = (result.start_h - jobs.submit_h)[mine & started]  # until the first start
    multi = mine & started & (result.nodes > 1)
    row = {
        "name": name,
        "jobs": int(mine.sum()),
        "started": int((mine & started).sum()),
        "waiting_at_end": int((mine & ~started).sum()),
        "wait_h_p50": _pct(waits, 50),
        "wait_h_p95": _pct(waits, 95),
        "wait_h_p99": _pct(waits, 99),
        "wait_h_mean": float(waits.mean()) if waits.size else None,
        "one_group_frac": float(result.in_one_group[multi].mean()) if multi.any() else None,
        "one_pod_frac": float(result.in_one_pod[multi].mean())
        if multi.any() and result.in_one_pod is not None
        else None,
        **_stretch(result, jobs, mine),
    }
    if result.restarts is not None:
        row["restarts"] = int(result.restarts[mine].sum())
    if result.preempted is not None:
        row["preemptions"] = int(result.preempted[mine].sum())
    return row


def _stretch(result: SimResult, jobs: Jobs, mine: np.ndarray) -> dict[str, Any]:
    """Job-completion-time stretch of the class's completed jobs: (end − submit) ÷ run time alone."""
    done = mine & ~np.isnan(result.end_h) & (result.end_h <= result.horizon_h)
    x = (result.end_h[done] - jobs.submit_h[done]) / jobs.hours[done]
    return {"completed": int(done.sum()), "stretch_mean": float(x.mean()) if x.size else None,
            "stretch_p95": _pct(x, 95)}  # fmt: skip


def _failure_rows(result: SimResult) -> dict[str, Any]:
    f = result.failures or {}
    cap = result.capacity_node_h
    good = f["productive_node_h"] / cap
    return {
        **f,
        "goodput_frac": good,
        "derivation": f"{f['productive_node_h']:,.0f} productive node-hours (busy {result.busy_integral_node_h:,.0f} − "
        f"lost {f['lost_node_h']:,.0f} − checkpoint writes {f['checkpoint_node_h']:,.0f} − restarts "
        f"{f['restart_node_h']:,.0f} − waiting on a tapered network {f['network_wait_node_h']:,.0f}) ÷ {cap:,.0f} "
        f"= {good:.1%}; {f['failures']:.0f} node failures, "
        f"{f['failures_killing_a_job']:.0f} of them killing a job; {f['down_node_h']:,.0f} node-hours in repair",
    }


def _pct(x: np.ndarray, q: float) -> float | None:
    return float(np.percentile(x, q)) if x.size else None
