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

The model is in hours; the simulator turns its times (failure times, repair, restart, τ) into whole seconds
by its one rule, and each wall time = ⌊work × stretch⌉ seconds (scheduling/simulator.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from scheduling import SchedulerInputError

HOURS_PER_YEAR = 365.25 * 24


@dataclass(frozen=True)
class FailureModel:
    afr: float  # annualised failure rate per GPU, 0 ≤ afr < 1
    repair_h: float = 24.0  # a failed node's time out of service
    checkpoint_write_h: float = 60.0 / 3600  # δ: the storage plane's checkpoint window (60 s by default)
    restart_h: float = 0.25  # wall time to restart from a checkpoint
    seed: int = 1

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
        if errors:
            raise SchedulerInputError(errors)

    def gpu_rate_per_h(self) -> float:
        """λ_gpu = −ln(1 − AFR) ÷ hours per year."""
        return -math.log1p(-self.afr) / HOURS_PER_YEAR

    def node_rate_per_h(self, gpus_per_node: int) -> float:
        return gpus_per_node * self.gpu_rate_per_h()

    def interval_h(self, nodes: int, gpus_per_node: int) -> float:
        """Daly's checkpoint interval τ for a job on ``nodes`` nodes (∞ without failures)."""
        rate = nodes * self.node_rate_per_h(gpus_per_node)
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


def work_checkpointed(work_done_h: float, tau_h: float) -> float:
    """Work safe in the last completed checkpoint: ⌊work ÷ τ⌋ × τ (all of it when τ is ∞: no failures)."""
    if math.isinf(tau_h):
        return work_done_h
    return math.floor(work_done_h / tau_h + 1e-12) * tau_h
