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

Time is exact: every event time is a whole number of seconds (Python ints), so two jobs that end in the
same second end at the same time and EASY backfill sees the tie as a tie. Inputs arrive in hours (the
workload generator, traces, the design pipeline) and are converted once, here, at the boundary, by one
rule (:func:`seconds`): x hours → round-half-to-even(x × 3,600) seconds; a positive duration is at
least 1 s; a negative, NaN or infinite time is refused (SchedulerInputError), never clamped. A factor
times a duration inside (checkpoint stretch × spread, work done ÷ that factor) is rounded once by the
same rule; tide and carbon hours are multiples of 3,600 s; failure, repair and restart times, the
checkpoint interval, the horizon and the timeline bins are whole seconds too (bins are split exactly,
in rational arithmetic). Every reported figure keeps its unit (hours, node-hours): seconds ÷ 3,600 at
output. A trace in whole seconds and the same trace in hours (÷ 3,600) give the same starts.

Reported over the window [0, horizon): utilization (busy node-hours ÷ capacity), queue waits per
class (p50/p95/p99 of the jobs that started), the time-average queue length integrated event by event
(Little's law L = λ W holds on every run: the test checks it), GPU-hours busy + idle = capacity.
"""

from __future__ import annotations

import bisect
import dataclasses
import heapq
import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scheduling import SchedulerInputError
from scheduling.carbon import CarbonPolicy
from scheduling.failures import FailureModel, fabric_stream, failure_stream
from scheduling.tidal import TidalPolicy
from scheduling.workload import PRIORITY, Jobs

POLICIES = ("fifo", "easy")
PRIORITY_PREEMPTS = PRIORITY["critical"]  # the class that preempts (§14.8.1); lower classes are preempted
HOUR_S = 3600  # seconds per hour: event times are whole seconds, reported figures hours


def seconds(x_s: float) -> int:
    """THE rounding rule: a time or duration in (fractional) seconds → whole seconds, round half to even.

    Used for every input (hours × 3,600) and for every duration a factor scales inside the simulator, so
    there is one rule (numpy's ``rint`` rounds arrays the same way: half to even)."""
    return round(x_s)


def hours_to_s(hours: float, field: str, *, duration: bool = False) -> int:
    """An input time (≥ 0) or duration (> 0 when ``duration``; ≥ 0 otherwise) in hours → whole seconds by
    :func:`seconds`; a positive duration is at least 1 s. Negative, NaN or infinite: refused on ``field``."""
    number = not isinstance(hours, bool) and isinstance(hours, numbers.Real) and math.isfinite(hours)
    if not number or hours < 0:
        raise SchedulerInputError({field: f"hours, a finite number ≥ 0; got {hours!r}"})
    s = seconds(hours * HOUR_S)
    return max(1, s) if duration and hours > 0 else s


def job_seconds(jobs: Jobs) -> tuple[np.ndarray, np.ndarray]:
    """(submit times, run times) of ``jobs`` in whole seconds (int64), by the rule of :func:`seconds`: submit
    ≥ 0, run time > 0 (at least 1 s); anything else — negative, zero run time, NaN, ∞ — is refused."""
    submit = np.asarray(jobs.submit_h, dtype=float)
    hours = np.asarray(jobs.hours, dtype=float)
    errors = {}
    bad = ~np.isfinite(submit) | (submit < 0)
    if bad.any():
        k = int(np.argmax(bad))
        errors["jobs.submit_h"] = f"hours after the start, finite and ≥ 0; job {k} has {submit[k]!r}"
    bad = ~np.isfinite(hours) | (hours <= 0)
    if bad.any():
        k = int(np.argmax(bad))
        errors["jobs.hours"] = f"run time in hours, finite and > 0; job {k} has {hours[k]!r}"
    if errors:
        raise SchedulerInputError(errors)
    submit_s = np.rint(submit * HOUR_S).astype(np.int64)  # rint: half to even, as seconds()
    run_s = np.maximum(np.rint(hours * HOUR_S), 1).astype(np.int64)  # a positive run time is at least 1 s
    return submit_s, run_s


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
    running: list[tuple[int, int]] = field(default_factory=list)  # heap of (end [s], job); stale if ≠ end_of
    nodes_of: dict[int, list[int]] = field(default_factory=dict)
    end_of: dict[int, int] = field(default_factory=dict)
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
    horizon_s: int = 0  # the window in whole seconds (horizon_h = horizon_s ÷ 3,600)
    submit_s: np.ndarray | None = None  # the submit times the run used [whole s] (the rule of seconds())
    run_s: np.ndarray | None = None  # the run times it used [whole s]
    fabric: dict[str, dict[str, float]] | None = None  # with fabric part classes: the books per cause (gpu, each class)

    @property
    def capacity_node_h(self) -> float:
        return self.node_count * self.horizon_h


def _nodes_needed(gpus: np.ndarray, gpus_per_node: int) -> np.ndarray:
    return -(-gpus // gpus_per_node)


def _shadow(state: _State, need: int) -> tuple[int | float, int]:
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
                 groups: list[int] | None = None, pods: list[int] | None = None,
                 times: tuple[np.ndarray, np.ndarray] | None = None):  # fmt: skip
        n = len(jobs)
        self.jobs, self.policy, self.leaf_nodes = jobs, policy, leaf_nodes
        submit_s, run_s = times if times is not None else job_seconds(jobs)
        # Python lists of ints (whole seconds): the loop indexes one job at a time, where numpy scalars cost ~10×
        self.need, self.run_s = need.tolist(), run_s.tolist()  # each job's run time [whole s]
        self.gpus_per_node = 0  # set by simulate
        self.submit, self.priority = submit_s.tolist(), jobs.priority.tolist()
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
        self.max_defer_s = 0  # carbon: the deferral limit in whole seconds
        self.deferrable: list[bool] = []
        self.last_end = [math.nan] * n
        self.wall = self.run_s  # wall time a job needs if it starts now (with failures: _Faults keeps it)
        self.queued_at = [math.nan] * n
        self.queue_s = [0] * n  # total time in the queue [whole s] (several stints when failures requeue a job)

    def key(self, j: int) -> tuple:
        if self.policy == "fifo":
            return (self.submit[j], j)
        return (-self.priority[j], self.submit[j], j)

    def begin(self, j: int, t: int) -> None:
        state = self.state
        self.queue_s[j] += t - self.queued_at[j]
        self.queued_at[j] = math.nan
        nodes = state.pool.take(self.need[j])
        state.nodes_of[j] = nodes
        spans, across_pods = state.pool.spans(nodes) if self.grouped else (False, False)
        if spans:
            state.crossing[j] = (len(nodes), len(nodes) if across_pods else 0)
            state.spine_nodes += len(nodes)
            state.core_nodes += len(nodes) if across_pods else 0
        factor = self.spread[j] if self.spread is not None and spans else 1.0
        wall = self.run_s[j] if self.faults is None else self.faults.begin(j, t, nodes, factor)  # whole seconds
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

    def finish_until(self, t: int) -> None:
        state = self.state
        while state.running and state.running[0][0] <= t:
            end, j = heapq.heappop(state.running)
            if state.end_of.get(j) != end:
                continue  # killed by a failure before this end
            del state.end_of[j]
            self.end[j] = end
            self.close_segment(j, end)
            if self.faults is not None:
                self.faults.close(j, end, failed=False, done=True)
            state.pool.give(state.release(j))

    def schedule(self, t: int) -> None:
        if self.carbon is None:
            return self._schedule(t)
        held = [e for e in self.queue if self.held(e[1], t)]  # carbon-aware: not there for now
        if held:
            keep = set(id(e) for e in held)
            self.queue[:] = [e for e in self.queue if id(e) not in keep]
        self._schedule(t)
        for e in held:
            bisect.insort(self.queue, e)

    def held(self, j: int, t: int) -> bool:
        # the same expression as the deadline next_release wakes at: t < submit + limit (whole seconds)
        deadline = self.submit[j] + self.max_defer_s
        return bool(self.deferrable[j]) and not self.carbon.clean_now(t // HOUR_S) and t < deadline

    def next_release(self, t: int) -> int | float:
        """With held jobs: the next hour boundary or deferral deadline, when one may start."""
        if self.carbon is None:
            return math.inf
        deadlines = [self.submit[j] + self.max_defer_s for _, j in self.queue if self.held(j, t)]
        if not deadlines:
            return math.inf
        return max(min((t // HOUR_S + 1) * HOUR_S, min(deadlines)), t + 1)  # always ahead of t

    def _schedule(self, t: int) -> None:
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

    def preempt_for(self, head: int, t: int) -> bool:
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

    def seg_start(self, j: int) -> int:
        return self.faults.seg[j][0]

    def close_segment(self, j: int, t: int) -> None:
        if self.allocations is not None:
            self.segments[self.open_segment.pop(j)][3] = t

    def enqueue(self, j: int, t: int) -> None:
        bisect.insort(self.queue, (self.key(j), j))
        self.queued_at[j] = t


class _Faults:
    """Failures, repairs, checkpoints and the node-hour books of one run (scheduling/failures.py), all in whole
    seconds: wall time = restart + ⌊work left × stretch × spread⌉ (one rounding, :func:`seconds`); a segment cut
    short did ⌊run ÷ (stretch × spread)⌉ seconds of work; the books are node-seconds (ints), hours at output."""

    def __init__(self, sim: _Sim, model: FailureModel, node_count: int, gpus_per_node: int, horizon_s: int):
        self.sim, self.model, self.horizon = sim, model, horizon_s
        need = sim.need
        self.tau = [_interval_s(model.interval_h(k, gpus_per_node)) for k in need]  # whole seconds, or ∞
        self.stretch = [model.stretch(k, gpus_per_node) for k in need]
        self.restart_s = hours_to_s(model.restart_h, "failures.restart_h", duration=True)
        self.repair_s = hours_to_s(model.repair_h, "failures.repair_h", duration=True)
        self.work_left = list(sim.run_s)  # seconds of work not yet safe in a checkpoint (or done)
        sim.wall = [self.wall_of(j, w, self.spread_of(j)) for j, w in enumerate(self.work_left)]
        self.seg: dict[int, tuple[int, int, float]] = {}  # running job → (segment start, restart in it, spread)
        self.restarts = [0] * len(need)
        times, nodes = failure_stream(model, node_count, gpus_per_node, horizon_s / HOUR_S)
        # failure times in whole seconds by the rule (sorted stays sorted: the rounding is monotone)
        self.fail_t = np.rint(np.asarray(times, dtype=float) * HOUR_S).astype(np.int64).tolist()
        self.fail_node, self.next_fail = np.asarray(nodes).tolist(), 0
        self.repairs: list[tuple[int, int]] = []  # heap of (back in service, node); stale if ≠ down_until
        self.down: set[int] = set()
        self.down_until: dict[int, int] = {}
        self._fabric_init(model, node_count, horizon_s)
        self.job_on: dict[int, int] = {}
        self.books = {"productive": 0, "lost": 0, "checkpoint": 0, "restart": 0, "network_wait": 0}  # node-s
        self.counts = {"failures": 0, "failures_killing_a_job": 0, "failures_on_a_node_already_down": 0,
                       "preemptions": 0}  # fmt: skip
        self.preempted = [0] * len(need)
        self.outages: list[tuple[int, int, int]] = []
        self.tidal: TidalPolicy | None = None
        self.reserved: set[int] = set()  # nodes inference holds this hour (tidal sharing)
        self.reserved_since: dict[int, int] = {}
        self.inference_spans: list[tuple[int, int, int]] = []  # (from, to, node) held by inference
        self.unserved_node_s = 0

    def _fabric_init(self, model: FailureModel, node_count: int, horizon_s: int) -> None:
        """The fabric failure stream (scheduling/failures.py fabric_stream) in whole seconds, the nodes of every
        leaf group, and the books by cause: ``gpu``, each fabric class by name, ``preemption``."""
        group_of = self.sim.state.pool.group_of
        self.group_nodes: list[list[int]] = [[] for _ in range(max(group_of, default=-1) + 1)]
        for x, g in enumerate(group_of):
            self.group_nodes[g].append(x)
        times, classes, targets = fabric_stream(model, node_count, len(self.group_nodes), horizon_s / HOUR_S)
        self.fab_t = np.rint(np.asarray(times, dtype=float) * HOUR_S).astype(np.int64).tolist()
        self.fab_c, self.fab_x, self.next_fab = classes.tolist(), targets.tolist(), 0
        self.fab_repair_s = [hours_to_s(c.repair_h, f"fabric.{c.name}.repair_h", duration=True) for c in model.fabric]
        self.cause_of: list[str] = ["gpu"] * len(self.sim.need)  # what stopped each job last (its restart's cause)
        self.by_cause: dict[str, dict[str, int]] = {}
        for name in ("gpu", *(c.name for c in model.fabric)):
            self.by_cause[name] = {"events": 0, "jobs_interrupted": 0, "nodes_taken_out": 0, "lost": 0,
                                   "restart": 0, "down": 0}  # fmt: skip
        self.down_cause: dict[int, str] = {}

    def wall_of(self, j: int, work_s: int, factor: float) -> int:
        """Wall seconds for ``work_s`` seconds of work at the job's pace: ⌊work × stretch × spread⌉ (one rounding)."""
        return seconds(work_s * (self.stretch[j] * factor))

    def begin(self, j: int, t: int, nodes: list[int], factor: float) -> int:
        restart = self.restart_s if self.restarts[j] else 0
        self.seg[j] = (t, restart, factor)
        for x in nodes:
            self.job_on[x] = j
        return restart + self.wall_of(j, self.work_left[j], factor)

    def close(self, j: int, t: int, failed: str | bool, done: bool = False) -> None:
        """Book a segment [start, t) of job j (t ≤ horizon) into productive / lost / checkpoint / restart / network
        wait, in node-seconds that add up to the segment's exactly. ``done``: the job ran to its end (all its work);
        ``failed``: the cause that killed it (``gpu`` or a fabric class; its lost work is booked to it), or False."""
        start, restart, factor = self.seg.pop(j)
        k = self.sim.need[j]
        wall = max(0, min(t, self.horizon) - start)
        in_restart = min(restart, wall)
        run = wall - in_restart  # wall seconds at the job's pace (stretch × spread)
        pace = self.stretch[j] * factor
        work = self.work_left[j] if done else min(self.work_left[j], seconds(run / pace))
        tau = self.tau[j]
        saved = (work // tau) * tau if failed and tau != math.inf else work  # the last completed checkpoint
        over = run - work  # checkpoint writes + waiting on the network, split as (stretch − 1) × spread : spread − 1
        ckpt = seconds(over * (self.stretch[j] - 1) * factor / (pace - 1)) if over and pace != 1 else 0
        b = self.books
        b["restart"] += in_restart * k
        b["checkpoint"] += ckpt * k
        b["network_wait"] += (over - ckpt) * k
        b["productive"] += saved * k
        b["lost"] += (work - saved) * k
        if failed:
            self.by_cause[failed]["lost"] += (work - saved) * k
        if in_restart and self.cause_of[j] in self.by_cause:
            self.by_cause[self.cause_of[j]]["restart"] += in_restart * k
        self.work_left[j] -= saved
        for x in self.sim.state.nodes_of.get(j, []):
            self.job_on.pop(x, None)

    def requeue(
        self, j: int, t: int, failed_node: int | None, *, out: frozenset[int] = frozenset(), cause: str = "gpu"
    ) -> None:
        """Stop job j at t — killed by a failure of ``failed_node`` (or of the nodes ``out``: a leaf failure;
        work since its checkpoint lost, booked to ``cause``) or preempted (neither: it checkpoints on the
        signal) — free its nodes but the failed ones, queue it again."""
        sim, state = self.sim, self.sim.state
        killed = failed_node is not None or bool(out)
        self.close(j, t, failed=cause if killed else False)
        self.cause_of[j] = cause if killed else "preemption"
        sim.close_segment(j, t)
        del state.end_of[j]
        nodes = state.release(j)
        state.pool.give([y for y in nodes if y != failed_node and y not in out])
        self.restarts[j] += 1
        if not killed:
            self.counts["preemptions"] += 1
            self.preempted[j] += 1
        sim.wall[j] = self.restart_s + self.wall_of(j, self.work_left[j], self.spread_of(j))
        sim.last_end[j] = math.nan
        sim.enqueue(j, t)

    def spread_of(self, j: int) -> float:
        return self.sim.spread[j] if self.sim.spread is not None else 1.0

    def next_time(self, t: int) -> int | float:
        nf = self.fail_t[self.next_fail] if self.next_fail < len(self.fail_t) else math.inf
        nb = self.fab_t[self.next_fab] if self.next_fab < len(self.fab_t) else math.inf
        return min(nf, nb, self.repairs[0][0] if self.repairs else math.inf, self.next_tide(t))

    def tide(self, t: int) -> None:
        """At an hour boundary, inference takes the nodes its demand needs this hour — free ones first, then
        by preempting best-effort training (most recently started first) — or gives back what it no longer needs."""
        sim, state = self.sim, self.sim.state
        want = self.tidal.nodes_at(t // HOUR_S, sim.gpus_per_node)
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

    def next_tide(self, t: int) -> int | float:
        return (t // HOUR_S + 1) * HOUR_S if self.tidal is not None else math.inf

    def handle_until(self, t: int) -> None:
        """Repairs, then failures, up to t."""
        pool = self.sim.state.pool
        while self.repairs and self.repairs[0][0] <= t:
            back, x = heapq.heappop(self.repairs)
            if self.down_until.get(x) != back:
                continue  # a later outage (a leaf failure over a node already down) keeps it out longer
            del self.down_until[x]
            self.down.discard(x)
            pool.give([x])
        fail_t, fab_t = self.fail_t, self.fab_t
        while True:  # GPU and fabric failures up to t, in time order (a GPU failure first on a tie)
            tf = fail_t[self.next_fail] if self.next_fail < len(fail_t) else math.inf
            tb = fab_t[self.next_fab] if self.next_fab < len(fab_t) else math.inf
            if min(tf, tb) > t:
                break
            if tf <= tb:
                x = self.fail_node[self.next_fail]
                self.next_fail += 1
                self.fail(tf, x)
            else:
                c, x = self.fab_c[self.next_fab], self.fab_x[self.next_fab]
                self.next_fab += 1
                self.fabric_fail(tb, c, x)

    def fail(self, t: int, x: int) -> None:
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
        self.down_until[x] = t + self.repair_s
        heapq.heappush(self.repairs, (t + self.repair_s, x))
        self.outages.append((t, t + self.repair_s, x))
        self.by_cause["gpu"]["down"] += min(t + self.repair_s, self.horizon) - t

    def fabric_fail(self, t: int, c: int, target: int) -> None:
        """A fabric part of class c fails at t: a node's part takes its node out (its job interrupted), a leaf
        its whole group (every job with a node there), each for the class's repair time; a fabric part (a
        spine, an uplink's optic or cable) only removes bandwidth: counted, nothing stops."""
        part = self.model.fabric[c]
        book = self.by_cause[part.name]
        book["events"] += 1
        if part.per == "fabric":
            return
        nodes = self.group_nodes[target] if part.per == "group" else [target]
        out, back = frozenset(nodes), t + self.fab_repair_s[c]
        busy = {x for x in nodes if x in self.job_on}  # their jobs' nodes leave the pool with the requeue
        jobs = sorted({self.job_on[x] for x in busy})
        for j in jobs:
            self.requeue(j, t, None, out=out, cause=part.name)
        book["jobs_interrupted"] += len(jobs)
        state = self.sim.state
        for x in nodes:
            book["nodes_taken_out"] += 1
            if x in self.down:  # already out: it stays out until the later of the two repairs
                if back > self.down_until[x]:
                    self.outages.append((self.down_until[x], back, x))
                    book["down"] += max(0, min(back, self.horizon) - self.down_until[x])
                    self.down_until[x] = back
                    heapq.heappush(self.repairs, (back, x))
                continue
            if x in self.reserved:  # an inference node leaves the reservation (the next hour takes another)
                self.reserved.remove(x)
                self.inference_spans.append((self.reserved_since.pop(x), t, x))
            elif x not in busy:
                state.pool.remove(x)
            self.down.add(x)
            self.down_until[x] = back
            heapq.heappush(self.repairs, (back, x))
            self.outages.append((t, back, x))
            book["down"] += min(back, self.horizon) - t

    def finish(self) -> dict[str, float]:
        for j in list(self.seg):  # segments still running at the horizon
            self.close(j, self.horizon, failed=False)
        return {**{f"{k}_node_h": v / HOUR_S for k, v in self.books.items()},
                **{k: float(v) for k, v in self.counts.items()}}  # fmt: skip

    def fabric_books(self) -> dict[str, dict[str, float]] | None:
        """Per cause (``gpu`` and each fabric class): failures, jobs interrupted, nodes taken out, and the
        node-hours lost (work since the last checkpoint), spent restarting and down (to the horizon)."""
        if not self.model.fabric:
            return None
        out = {}
        for name, b in self.by_cause.items():
            out[name] = {"events": float(b["events"]), "jobs_interrupted": float(b["jobs_interrupted"]),
                         "nodes_taken_out": float(b["nodes_taken_out"]), "lost_node_h": b["lost"] / HOUR_S,
                         "restart_node_h": b["restart"] / HOUR_S, "down_node_h": b["down"] / HOUR_S}  # fmt: skip
        out["gpu"]["events"] = float(self.counts["failures"])
        out["gpu"]["jobs_interrupted"] = float(self.counts["failures_killing_a_job"])
        return out


def _interval_s(tau_h: float) -> int | float:
    """A checkpoint interval in whole seconds by the rule (at least 1 s), ∞ (no failures) as it is."""
    return math.inf if math.isinf(tau_h) else max(1, seconds(tau_h * HOUR_S))


class _Timeline:
    """Time-averaged busy, queued, down and inference-held nodes per bin of [0, horizon), exact: every
    constant stretch between two events is split over the bins it covers. Bin b is [b H ÷ B, (b + 1) H ÷ B)
    of a horizon of H seconds in B bins; times are kept × B, so every bin edge is a whole number."""

    def __init__(self, bins: int, horizon_s: int):
        self.bins, self.horizon_s = bins, horizon_s
        self.sums = [[0] * bins for _ in range(4)]  # node-seconds × B (ints: exact)

    def add(self, t0: int, t1: int, busy: int, queue: int, down: int, held: int) -> None:
        scale, width, values = self.bins, self.horizon_s, (busy, queue, down, held)
        u0, u1 = t0 * scale, t1 * scale  # the bin of a time u (× B) is u // H
        b = u0 // width
        while u0 < u1 and b < self.bins:
            edge = min(u1, (b + 1) * width)
            for k in range(4):
                self.sums[k][b] += values[k] * (edge - u0)
            u0, b = edge, b + 1

    def to_dict(self) -> dict[str, list[float]]:
        m = [[x / self.horizon_s for x in row] for row in self.sums]  # ÷ (B × the bin width H ÷ B)
        return {"bin_h": self.horizon_s / HOUR_S / self.bins, "busy_nodes": m[0], "queued_jobs": m[1],
                "down_nodes": m[2], "inference_nodes": m[3]}  # fmt: skip


PROGRESS_EVERY = 4096  # loop turns between two progress reports


class _Integrals:
    """Node counts integrated over time, event by event (they are constant between two events), in node-seconds."""

    def __init__(self, sim: _Sim, node_count: int, gpus_per_node: int, timeline: _Timeline | None):
        self.sim, self.node_count, self.gpus_per_node, self.timeline = sim, node_count, gpus_per_node, timeline
        self.queue = self.busy = self.down = self.inference = self.spine = self.core = self.idle_waiting = 0

    def add(self, t0: int, t1: int) -> None:
        sim, dt = self.sim, t1 - t0
        faults, state = sim.faults, sim.state
        down = len(faults.down) if faults is not None else 0
        held = len(faults.reserved) if faults is not None else 0
        if faults is not None and faults.tidal is not None:
            faults.unserved_node_s += max(0, faults.tidal.nodes_at(t0 // HOUR_S, self.gpus_per_node) - held) * dt
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


def _checked(jobs: Jobs, node_count: int, gpus_per_node: int, horizon_h: float, policy: str, preempt: bool,
             groups: list[int] | None, spread: np.ndarray | None = None) -> tuple[int, np.ndarray]:  # fmt: skip
    """(the horizon in whole seconds, nodes each job needs), or the field errors of a run that cannot start."""
    if policy not in POLICIES:
        raise SchedulerInputError({"policy": f"one of {', '.join(POLICIES)}"})
    if preempt and policy != "easy":
        raise SchedulerInputError({"preempt": "preemption orders the queue by class: use the easy policy"})
    horizon_s = hours_to_s(horizon_h, "horizon_h")
    if horizon_s < 1:
        raise SchedulerInputError({"horizon_h": f"hours, at least one second; got {horizon_h!r}"})
    need = _nodes_needed(jobs.gpus, gpus_per_node)
    if need.size and need.max() > node_count:
        raise SchedulerInputError({"classes": f"a job of {int(jobs.gpus.max()):,} GPUs needs more than the "
                                              f"{node_count:,} nodes"})  # fmt: skip
    if groups is not None and len(groups) != node_count:
        raise SchedulerInputError({"groups": f"a leaf group for each of the {node_count:,} nodes"})
    if spread is not None:
        factors = np.asarray(spread, dtype=float)
        if factors.shape != (len(jobs),) or not (np.isfinite(factors) & (factors >= 1)).all():
            raise SchedulerInputError({"spread": f"a run-time factor ≥ 1 for each of the {len(jobs):,} jobs"})
    return horizon_s, need


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
    hierarchy), instead of groups of ``leaf_nodes`` consecutive nodes in one pod.

    Every time given in hours (the jobs' submit and run times, the horizon, the failure model's, the carbon
    limit) is converted here to whole seconds by the module's one rule (:func:`seconds`); results are hours."""
    horizon_s, need = _checked(jobs, node_count, gpus_per_node, horizon_h, policy, preempt, groups, spread)
    if (preempt or spread is not None or tidal is not None) and failures is None:
        failures = FailureModel(afr=0.0, restart_h=restart_h)  # the node-hour books and restarts; no failures
    times = job_seconds(jobs)
    sim = _Sim(jobs, node_count, need, policy, leaf_nodes, record, groups, pods, times)
    _configure(sim, jobs, gpus_per_node, horizon_s, failures, preempt, spread, carbon, deferrable, tidal)
    faults = sim.faults
    state, queue, submit, n = sim.state, sim.queue, sim.submit, len(jobs)
    timeline = _Timeline(timeline_bins, horizon_s) if timeline_bins else None
    books = _Integrals(sim, node_count, gpus_per_node, timeline)
    t_prev, i, turns = 0, 0, 0
    while True:
        turns += 1
        if progress is not None and turns % PROGRESS_EVERY == 0:
            progress(t_prev / horizon_s)
        t_next = min(submit[i] if i < n else math.inf, state.running[0][0] if state.running else math.inf)
        if faults is not None:
            t_next = min(t_next, faults.next_time(t_prev))
        if sim.carbon is not None:
            t_next = min(t_next, sim.next_release(t_prev))
        books.add(t_prev, min(t_next, horizon_s))
        if t_next >= horizon_s:
            break
        t_prev = t = t_next
        sim.finish_until(t)
        if faults is not None:
            faults.handle_until(t)
            if faults.tidal is not None and t % HOUR_S == 0:
                faults.tide(t)
        while i < n and submit[i] <= t:
            sim.enqueue(i, submit[i])
            i += 1
        sim.schedule(t)
    for _, j in queue:  # still waiting at the horizon
        sim.queue_s[j] += horizon_s - sim.queued_at[j]
    res = _result(sim, node_count, gpus_per_node, horizon_s, policy, need, books)
    return dataclasses.replace(
        res, timeline=timeline.to_dict() if timeline is not None else None, in_one_pod=np.array(sim.one_pod),
        spine_node_h=books.spine / HOUR_S, core_node_h=books.core / HOUR_S,
        idle_waiting_node_h=books.idle_waiting / HOUR_S, horizon_s=horizon_s, submit_s=times[0], run_s=times[1],
        fabric=faults.fabric_books() if faults is not None else None,
    )  # fmt: skip


def _configure(sim: _Sim, jobs: Jobs, gpus_per_node, horizon_s, failures, preempt, spread, carbon, deferrable,
               tidal) -> None:  # fmt: skip
    """Switch on what the run models: spread run times, failures/preemption books, tidal sharing, carbon."""
    sim.gpus_per_node = gpus_per_node
    if spread is not None:  # backfill plans with the slower, spread run time (it may not fit in one group):
        sim.spread = [float(x) for x in spread]  # _Faults (always made with spread) sets the walls from it
    node_count = sim.state.pool.free_count
    sim.faults = _Faults(sim, failures, node_count, gpus_per_node, horizon_s) if failures else None
    sim.preempt = preempt
    if tidal is not None:
        sim.faults.tidal = tidal
        sim.faults.tide(0)  # hour 0's reservation
    if carbon is not None:
        sim.carbon = carbon
        sim.max_defer_s = hours_to_s(carbon.max_defer_h, "carbon.max_defer_h")
        flags = deferrable if deferrable is not None else np.zeros(len(jobs), dtype=bool)
        sim.deferrable = [bool(x) for x in flags]


def _hours(values: list) -> np.ndarray:
    """Whole seconds (NaN: none) → hours, for the result."""
    return np.array(values, dtype=float) / HOUR_S


def _result(sim: _Sim, node_count, gpus_per_node, horizon_s, policy, need, ints: _Integrals) -> SimResult:
    faults, record = sim.faults, sim.allocations is not None
    books = None
    if faults is not None:
        books = {**faults.finish(), "down_node_h": ints.down / HOUR_S}
        if faults.tidal is not None:
            books |= {"inference_node_h": ints.inference / HOUR_S,
                      "inference_unserved_node_h": faults.unserved_node_s / HOUR_S}  # fmt: skip
    segments = None
    if record:
        segments = [[j, nodes, a / HOUR_S, b / HOUR_S] for j, nodes, a, b in sim.segments]
    horizon_h = horizon_s / HOUR_S
    return SimResult(
        node_count, gpus_per_node, horizon_h, policy, _hours(sim.start), _hours(sim.last_end), need,
        np.array(sim.one_group), ints.queue / HOUR_S, ints.busy / HOUR_S, sim.allocations, _hours(sim.queue_s), books,
        np.array(faults.restarts) if faults is not None else None,
        np.array(faults.preempted) if faults is not None else None,
        segments,
        [(a / HOUR_S, b / HOUR_S, x) for a, b, x in faults.outages] if faults is not None else None,
        [(a / HOUR_S, b / HOUR_S, x)
         for a, b, x in faults.inference_spans + [(t0, horizon_s, x) for x, t0 in faults.reserved_since.items()]]
        if faults is not None else None,
    )  # fmt: skip


def report(result: SimResult, jobs: Jobs, class_names: list[str]) -> dict[str, Any]:
    """Utilization, waits per class, Little's law terms and the node-hour balance, with derivations."""
    t_end = result.horizon_h
    arrived = submit_hours(result, jobs) < t_end
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
    if result.fabric is not None:
        out["fabric_failures"] = _fabric_rows(result)
        out["derivations"]["fabric_share"] = out["fabric_failures"]["derivation"]
    _placement_rows(result, out)
    return out


def submit_hours(result: SimResult, jobs: Jobs) -> np.ndarray:
    """The submit times the run used (whole seconds, in hours): waits and arrivals are measured against them."""
    return result.submit_s / HOUR_S if result.submit_s is not None else jobs.submit_h


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
    waits = (result.start_h - submit_hours(result, jobs))[mine & started]  # until the first start
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
    run_h = result.run_s / HOUR_S if result.run_s is not None else jobs.hours
    x = (result.end_h[done] - submit_hours(result, jobs)[done]) / run_h[done]
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


def _fabric_rows(result: SimResult) -> dict[str, Any]:
    """Failures by cause — the GPUs and each fabric part class — and the share of the failure cost (node-hours
    lost + restarting + down) that came from the fabric; goodput already counts all of it."""
    rows, books = [], result.fabric or {}
    for name, b in books.items():
        cost = b["lost_node_h"] + b["restart_node_h"] + b["down_node_h"]
        rows.append({"cause": name, **b, "cost_node_h": cost})
    total = sum(r["cost_node_h"] for r in rows)
    fabric = sum(r["cost_node_h"] for r in rows if r["cause"] != "gpu")
    share = fabric / total if total else 0.0
    interrupted = sum(r["jobs_interrupted"] for r in rows)
    fabric_int = sum(r["jobs_interrupted"] for r in rows if r["cause"] != "gpu")
    cap = result.capacity_node_h
    parts = "; ".join(
        f"{r['cause']}: {r['events']:.0f} failures, {r['jobs_interrupted']:.0f} jobs interrupted, "
        f"{r['lost_node_h']:,.0f} lost + {r['restart_node_h']:,.0f} restarting + {r['down_node_h']:,.0f} down node-h"
        for r in rows
    )
    return {
        "causes": rows,
        "cost_node_h": total,
        "fabric_cost_node_h": fabric,
        "fabric_share_frac": share,
        "jobs_interrupted": interrupted,
        "fabric_jobs_interrupted": fabric_int,
        "fabric_goodput_loss_frac": fabric / cap if cap else 0.0,
        "derivation": f"failure cost = lost + restarting + down node-hours by cause ({parts}); the fabric's share "
        f"= {fabric:,.0f} ÷ {total:,.0f} = {share:.1%}, {fabric / cap if cap else 0:.2%} of the {cap:,.0f} "
        f"node-hours of capacity; {fabric_int:.0f} of {interrupted:.0f} interruptions came from the fabric. A spine, "
        "or an uplink's optic or cable, removes bandwidth only (1/S of the bisection for S spines, on a 1:1 fabric "
        "until it is repaired): counted, no job stops",
    }


def _pct(x: np.ndarray, q: float) -> float | None:
    return float(np.percentile(x, q)) if x.size else None
