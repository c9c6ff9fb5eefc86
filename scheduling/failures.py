"""GPU failures in the queue simulation: failure stream, checkpoint interval, lost work (pure).

- **Failures.** Each GPU fails as a Poisson process whose annualised failure rate is ``afr`` (seed
  S6: 1–5 % per GPU per year): rate λ_gpu = −ln(1 − AFR) per year (the AFR is the probability of at
  least one failure in a year), so a node of g GPUs fails at g·λ_gpu, and the whole cluster of N
  nodes at N·g·λ_gpu — one merged Poisson stream with each failure on a uniformly drawn node
  (superposition of independent Poisson processes). A failed node is out of service for
  ``repair_h`` and returns to the pool.
- **Checkpoints.** A job on k nodes fails at rate k·g·λ_gpu (its MTBF M = 1 ÷ that); it writes a
  checkpoint of ``checkpoint_write_h`` (δ) every τ hours of work, τ from Daly's first-order optimum
  (J. T. Daly, "A higher order estimate of the optimum checkpoint interval for restart dumps",
  FGCS 22, 2006, eq. 37 first order; Young 1974 without the −δ): τ = √(2 δ M) − δ when δ < M/2,
  else τ = M. Its wall time is its work × (1 + δ/τ).
- **A failure during a job** kills it: the work since its last completed checkpoint is lost, every
  node of the job but the failed one returns to the pool, and the job joins the queue again (its
  original submit time and priority) with the work not yet checkpointed, plus ``restart_h`` of wall
  time when it starts again (reading the checkpoint back).

- **Fabric failures** (issue #37): each part class of the compute fabric (:class:`PartClass`: leaf switches,
  spine switches, NICs, the optics and cables of the node links and of the switch–switch links) fails as a
  Poisson process at its own annualised failure rate per part, λ = −ln(1 − AFR) per year, over the parts the
  design has. What one failure does depends on where the part sits (its ``per``): a part of a *node*
  (its NIC, the optics and cable of its link to its leaf) interrupts the job on that node and takes the node
  out for the part's repair time; a part of a *group* (a leaf switch: every node of its leaf group — a
  scalable unit's rail leaf reaches every node of the unit) interrupts every job with a node in the group
  and takes all of them out for the leaf's repair time; a part of the *fabric* (a spine, an uplink's optic or
  cable on a 1:1 fabric) removes bandwidth only — 1/S of the bisection for S spines — and kills no job: it is
  counted, not simulated as an outage. Defaults (:data:`FABRIC_DEFAULTS`) carry their sources.

The model is in hours; the simulator turns its times (failure times, repair, restart, τ) into whole seconds
by its one rule, and each wall time = ⌊work × stretch⌉ seconds (scheduling/simulator.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from scheduling import SchedulerInputError

HOURS_PER_YEAR = 365.25 * 24


PER = ("node", "group", "fabric")  # where a part sits: what one failure of it takes out


@dataclass(frozen=True)
class PartClass:
    """One class of fabric parts: ``count`` parts per node, per leaf group, or in the whole fabric (``per``),
    each failing at ``afr`` per year (0 ≤ afr < 1), out of service for ``repair_h``."""

    name: str
    per: str
    count: float  # parts per node / per group / in the fabric (a mean: 64 leaves over 8 groups is 8 per group)
    afr: float
    repair_h: float = 24.0

    def rate_per_h(self) -> float:
        """λ of one part = −ln(1 − AFR) ÷ hours per year."""
        return -math.log1p(-self.afr) / HOURS_PER_YEAR

    def check(self, errors: dict[str, str]) -> None:
        key = f"fabric.{self.name}"
        if self.per not in PER:
            errors[f"{key}.per"] = f"one of {', '.join(PER)}; got {self.per!r}"
        checks = (
            ("count", lambda v: v >= 0, "parts, a finite number ≥ 0"),
            ("afr", lambda v: 0 <= v < 1, "an annualised failure rate per part from 0 to below 1 (0.02 for 2 %)"),
            ("repair_h", lambda v: 0 < v <= 24 * 365, "hours out of service, above 0 and at most a year"),
        )
        for name, ok, why in checks:
            v = getattr(self, name)
            number = not isinstance(v, bool) and isinstance(v, int | float) and math.isfinite(v)
            if not number or not ok(v):
                errors[f"{key}.{name}"] = f"{why}; got {v!r}"


@dataclass(frozen=True)
class FailureModel:
    afr: float  # annualised failure rate per GPU, 0 ≤ afr < 1
    repair_h: float = 24.0  # a failed node's time out of service
    checkpoint_write_h: float = 60.0 / 3600  # δ: the storage plane's checkpoint window (60 s by default)
    restart_h: float = 0.25  # wall time to restart from a checkpoint
    seed: int = 1
    fabric: tuple[PartClass, ...] = ()  # fabric part classes (none: GPU failures only, as before issue #37)
    group_nodes: int = 0  # nodes per leaf group (a job's groups for its checkpoint interval; 0: one group)

    def __post_init__(self) -> None:
        errors = {}
        checks = (
            ("afr", lambda v: 0 <= v < 1, "an annualised failure rate per GPU from 0 to below 1 (e.g. 0.02 for 2 %)"),
            ("repair_h", lambda v: 0 < v <= 24 * 365, "hours out of service, above 0 and at most a year"),
            ("checkpoint_write_h", lambda v: 0 < v <= 24, "hours to write a checkpoint, above 0, ≤ 24"),
            ("restart_h", lambda v: 0 <= v <= 24, "hours to restart from a checkpoint, 0 to 24"),
        )
        for name, ok, why in checks:
            v = getattr(self, name)
            number = not isinstance(v, bool) and isinstance(v, int | float) and math.isfinite(v)
            if not number or not ok(v):  # the type first: a string is refused, never compared
                errors[f"failures.{name}"] = f"{why}; got {v!r}"
        for part in self.fabric:
            part.check(errors)
        if errors:
            raise SchedulerInputError(errors)

    def fabric_rate_per_h(self, per: str) -> float:
        """Σ count × λ over the classes that sit on one ``per`` (node or group): failures per hour of one."""
        return sum(p.count * p.rate_per_h() for p in self.fabric if p.per == per)

    def job_rate_per_h(self, nodes: int, gpus_per_node: int) -> float:
        """Interruptions per hour of a job on ``nodes`` nodes: its GPUs, its nodes' parts, and the leaves of the
        ⌈nodes ÷ group size⌉ groups it spans at best (placement packs into as few groups as it can)."""
        rate = nodes * self.node_rate_per_h(gpus_per_node)
        if self.fabric:
            groups = -(-nodes // self.group_nodes) if self.group_nodes else 1
            rate += nodes * self.fabric_rate_per_h("node") + groups * self.fabric_rate_per_h("group")
        return rate

    def gpu_rate_per_h(self) -> float:
        """λ_gpu = −ln(1 − AFR) ÷ hours per year."""
        return -math.log1p(-self.afr) / HOURS_PER_YEAR

    def node_rate_per_h(self, gpus_per_node: int) -> float:
        return gpus_per_node * self.gpu_rate_per_h()

    def interval_h(self, nodes: int, gpus_per_node: int) -> float:
        """Daly's checkpoint interval τ for a job on ``nodes`` nodes (∞ without failures)."""
        rate = self.job_rate_per_h(nodes, gpus_per_node)
        if rate <= 0:
            return math.inf
        return daly_interval_h(self.checkpoint_write_h, 1 / rate)

    def stretch(self, nodes: int, gpus_per_node: int) -> float:
        """Wall time per hour of work: 1 + δ/τ (1 without failures: no checkpoints are needed)."""
        tau = self.interval_h(nodes, gpus_per_node)
        return 1.0 if math.isinf(tau) else 1.0 + self.checkpoint_write_h / tau


def daly_interval_h(write_h: float, mtbf_h: float) -> float:
    """τ = √(2 δ M) − δ for δ < M/2, else M (Daly 2006, first order)."""
    if write_h >= mtbf_h / 2:
        return mtbf_h
    return math.sqrt(2 * write_h * mtbf_h) - write_h


def failure_stream(model: FailureModel, node_count: int, gpus_per_node: int, horizon_h: float):
    """(times [h], nodes) of every node failure in [0, horizon), in time order, deterministic for the seed."""
    rate = node_count * model.node_rate_per_h(gpus_per_node)
    if rate <= 0:
        return np.empty(0), np.empty(0, dtype=np.int64)
    rng = np.random.default_rng(model.seed)
    n = rng.poisson(rate * horizon_h)
    times = np.sort(rng.uniform(0, horizon_h, n))
    nodes = rng.integers(0, node_count, n)
    return times, nodes


def fabric_stream(model: FailureModel, node_count: int, group_count: int, horizon_h: float):
    """(times [h], class index, target) of every fabric part failure in [0, horizon), in time order: a class of
    ``per`` node fails at count × node_count × λ, its target a uniformly drawn node; of ``per`` group at
    count × group_count × λ, a drawn group; of the fabric at count × λ (target −1: bandwidth only). Drawn from
    its own generator (seeded by [seed, 37]), so the GPU stream of :func:`failure_stream` is the same draw with
    or without fabric classes; deterministic for the seed."""
    rng = np.random.default_rng([model.seed, 37])
    times, classes, targets = [], [], []
    for c, part in enumerate(model.fabric):
        units = {"node": node_count, "group": group_count, "fabric": 1}[part.per]
        rate = part.count * units * part.rate_per_h()
        n = int(rng.poisson(rate * horizon_h)) if rate > 0 else 0
        times.append(rng.uniform(0, horizon_h, n))
        classes.append(np.full(n, c, dtype=np.int64))
        targets.append(rng.integers(0, units, n) if part.per != "fabric" else np.full(n, -1, dtype=np.int64))
    if not times:
        return np.empty(0), np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    t, c, x = np.concatenate(times), np.concatenate(classes), np.concatenate(targets)
    order = np.lexsort((c, t))  # by time, then class: a stable, seed-determined order
    return t[order], c[order], x[order]


def work_checkpointed(work_done_h: float, tau_h: float) -> float:
    """Work safe in the last completed checkpoint: ⌊work ÷ τ⌋ × τ (all of it when τ is ∞: no failures)."""
    if math.isinf(tau_h):
        return work_done_h
    return math.floor(work_done_h / tau_h + 1e-12) * tau_h


# --- fabric part classes: the cited defaults (issue #37) ---------------------------------------------------------
# Llama 3 (Dubey et al., "The Llama 3 Herd of Models", arXiv 2407.21783, 2024), §3.3.4 Table 5: 419 unexpected
# interruptions in a 54-day snapshot of the 405B pre-training on 16,384 H100s, among them "Network Switch/Cable"
# 35 (8.4 %) and "NIC" 7 (1.7 %). §3.3.1: one 400 Gb/s RoCE NIC per GPU (16,384 NICs, one node link each), and a
# rack of 16 GPUs (two 8-GPU servers) under one ToR switch: 16,384 ÷ 16 = 1,024 ToRs.
LLAMA3_DAYS = 54
LLAMA3_NICS = 16_384
LLAMA3_TORS = 16_384 // 16
LLAMA3_NIC_INTERRUPTIONS = 7
LLAMA3_SWITCH_CABLE_INTERRUPTIONS = 35
# Gill, Jain, Nagappan, "Understanding Network Failures in Data Centers: Measurement, Analysis, and Implications",
# SIGCOMM 2011, key finding (2) and §4 (failure probability per device type over the one-year study): ToRs ≈ 5 %,
# aggregation switches ≈ 10 %. Cross-check: Singh et al., "Surviving switch failures in cloud datacenters", ACM CCR
# 51(2), 2021: a 2 % chance of a switch failure within 3 months in production ⇒ 1 − 0.98⁴ = 7.8 % a year.
GILL_TOR_AFR = 0.05
GILL_AGG_AFR = 0.10
NODE_LINK_PARTS = 3  # a node link's parts: 2 transceivers (NIC side, leaf side) and 1 cable


def _afr(rate_per_year: float) -> float:
    return 1 - math.exp(-rate_per_year)


def fabric_defaults() -> dict[str, dict]:
    """Each part kind's default AFR [% per part per year], rounded to 0.01 %, with its derivation and source."""
    years = LLAMA3_DAYS / 365.25
    nic = LLAMA3_NIC_INTERRUPTIONS / (LLAMA3_NICS * years)
    tor_expected = LLAMA3_TORS * -math.log1p(-GILL_TOR_AFR) * years
    link = (LLAMA3_SWITCH_CABLE_INTERRUPTIONS - tor_expected) / (LLAMA3_NICS * years)
    part = link / NODE_LINK_PARTS
    gill = "Gill, Jain, Nagappan, SIGCOMM 2011, key finding (2) and §4"
    llama = "Llama 3 (arXiv 2407.21783), Table 5 and §3.3.1"
    return {
        "leaf": {"afr_pct": round(GILL_TOR_AFR * 100, 2), "source": f"{gill}: ToR switches ≈ 5 % a year "
                 "(Singh et al., ACM CCR 51(2) 2021: 2 % in 3 months ⇒ 7.8 % a year)"},
        "spine": {"afr_pct": round(GILL_AGG_AFR * 100, 2), "source": f"{gill}: aggregation switches ≈ 10 % a year"},
        "nic": {"afr_pct": round(_afr(nic) * 100, 2), "source": f"{llama}: {LLAMA3_NIC_INTERRUPTIONS} NIC "
                f"interruptions in {LLAMA3_DAYS} days on {LLAMA3_NICS:,} NICs: λ = {LLAMA3_NIC_INTERRUPTIONS} ÷ "
                f"({LLAMA3_NICS:,} × {LLAMA3_DAYS}/365.25 yr) = {nic:.5f}/yr ⇒ AFR 1 − e^−λ = {_afr(nic):.3%}"},
        **{kind: {"afr_pct": round(_afr(part) * 100, 2), "source": f"{llama}: {LLAMA3_SWITCH_CABLE_INTERRUPTIONS}"
                  f" switch/cable interruptions in {LLAMA3_DAYS} days, less the {tor_expected:.2f} expected of its "
                  f"{LLAMA3_TORS:,} ToRs at Gill's 5 % (1,024 × −ln 0.95 × {LLAMA3_DAYS}/365.25), over its "
                  f"{LLAMA3_NICS:,} node links: λ = {link:.5f}/yr per link, spread evenly over its "
                  f"{NODE_LINK_PARTS} parts (2 optics, 1 cable: the table does not split them — an assumption) ⇒ "
                  f"{part:.5f}/yr ⇒ AFR {_afr(part):.3%}"}
           for kind in ("optic", "cable")},
    }  # fmt: skip


FABRIC_KINDS = ("leaf", "spine", "nic", "optic", "cable")
FABRIC_REPAIR_SOURCE = (
    "no published repair time per part class was found in these sources: a part's repair time defaults to the "
    "design's node repair time (workload.repair_h, 24 h: a next-day swap); give a site's own figure"
)
