"""Workload profiles and the jobs they generate (pure, deterministic for a seed).

A profile is a set of job classes, each with its share of the offered GPU-hours, a GPU-count range
and granularity, a duration range and an SLA class. Offered load ρ (busy GPU-hours ÷ capacity)
sets the arrival rates: class c arrives as a Poisson stream of rate

    λ_c = ρ × C × share_c ÷ E[GPUs_c × hours_c]      [jobs per hour]

with C the cluster's GPUs, GPUs and hours drawn independently (so E[GPUs × hours] = E[GPUs] × E[hours]).
GPU counts are uniform over the multiples of the granularity in the range; durations log-uniform
over the range (a 1–90-day class has as many 1–3-day jobs as 30–90-day ones, as real traces show
more short jobs than long), unless a class asks for exponential durations (queueing checks).

The seed's Table 14-24 (§14.8.1): large-model pretraining 40 % at 512–1,024 GPUs for 7–90 days,
fine-tuning 30 % at 64–256 GPUs for 1–14 days, small-model training 20 % at 8–64 GPUs for 1–7 days,
hyper-parameter search 10 % at 32–128 GPUs for 1–3 days; the SLA tiers of §14.8.1: critical jobs
preempt, regular jobs queue, inference takes idle GPUs. The chapter does not say which classes are
critical: the preset marks pretraining critical and the rest queued (a stated assumption).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from scheduling import SchedulerInputError

SLA_CLASSES = ("critical", "queued", "best_effort")
PRIORITY = {"critical": 2, "queued": 1, "best_effort": 0}


@dataclass(frozen=True)
class JobClass:
    name: str
    share: float  # of the offered GPU-hours, 0–1
    min_gpus: int
    max_gpus: int
    granularity_gpus: int
    min_hours: float
    max_hours: float
    sla: str = "queued"
    tenant: str = ""
    duration: str = "log_uniform"  # or "exponential" (mean = (min + max) / 2) or "uniform"
    comm_fraction: float = 0.0  # share of a step in all-to-all on a non-blocking fabric (scheduling/network.py)
    a2a_bytes: float = 256 * 2**20  # bytes each GPU sends per all-to-all

    def gpu_choices(self) -> np.ndarray:
        return np.arange(self.min_gpus, self.max_gpus + 1, self.granularity_gpus)

    def mean_gpus(self) -> float:
        return float(self.gpu_choices().mean())

    def mean_hours(self) -> float:
        lo, hi = self.min_hours, self.max_hours
        if self.duration == "log_uniform" and hi > lo:
            return (hi - lo) / math.log(hi / lo)
        return (lo + hi) / 2


@dataclass(frozen=True)
class Profile:
    classes: tuple[JobClass, ...]
    name: str = ""


DAY_H = 24.0
SEED_TABLE_14_24 = Profile(
    (
        JobClass("pretraining", 0.40, 512, 1024, 64, 7 * DAY_H, 90 * DAY_H, "critical"),
        JobClass("fine-tuning", 0.30, 64, 256, 8, 1 * DAY_H, 14 * DAY_H, "queued"),
        JobClass("small-model", 0.20, 8, 64, 8, 1 * DAY_H, 7 * DAY_H, "queued"),
        JobClass("hyper-parameter search", 0.10, 32, 128, 8, 1 * DAY_H, 3 * DAY_H, "queued"),
    ),
    "seed Table 14-24",
)


@dataclass(frozen=True)
class Jobs:
    """Generated jobs in submit order: arrays of equal length."""

    submit_h: np.ndarray
    gpus: np.ndarray
    hours: np.ndarray
    cls: np.ndarray  # index into the profile's classes
    priority: np.ndarray

    def __len__(self) -> int:
        return int(self.submit_h.size)


def check_profile(profile: Profile, cluster_gpus: int, gpus_per_node: int) -> None:
    """Field errors for a profile that cannot run: shares not 100 %, a class larger than the cluster…"""
    errors: dict[str, str] = {}
    total = sum(c.share for c in profile.classes)
    if not profile.classes:
        errors["classes"] = "give at least one job class"
    elif abs(total - 1) > 1e-9:
        errors["classes"] = f"the shares add up to {total * 100:.4g} %, not 100 %"
    for i, c in enumerate(profile.classes):
        key = f"classes.{i}"
        if c.sla not in SLA_CLASSES:
            errors[f"{key}.sla"] = f"one of {', '.join(SLA_CLASSES)}"
        if not 0 < c.share <= 1:
            errors[f"{key}.share"] = "above 0 and at most 100 %"
        if not 1 <= c.min_gpus <= c.max_gpus:
            errors[f"{key}.min_gpus"] = f"1 ≤ min ≤ max GPUs, got {c.min_gpus}–{c.max_gpus}"
        elif c.max_gpus > cluster_gpus:
            errors[f"{key}.max_gpus"] = f"{c.max_gpus:,} GPUs is larger than the {cluster_gpus:,}-GPU cluster"
        if c.granularity_gpus < 1 or c.min_gpus % c.granularity_gpus:
            errors[f"{key}.granularity_gpus"] = "a whole number ≥ 1 that divides the minimum GPU count"
        if not 0 < c.min_hours <= c.max_hours:
            errors[f"{key}.min_hours"] = f"0 < min ≤ max hours, got {c.min_hours}–{c.max_hours}"
        if c.duration not in ("log_uniform", "uniform", "exponential"):
            errors[f"{key}.duration"] = "log_uniform, uniform or exponential"
    if errors:
        raise SchedulerInputError(errors)


def arrival_rates_per_h(profile: Profile, cluster_gpus: int, load: float) -> np.ndarray:
    """λ_c = ρ × C × share_c ÷ (E[GPUs_c] × E[hours_c]) for each class, in jobs per hour."""
    return np.array([load * cluster_gpus * c.share / (c.mean_gpus() * c.mean_hours()) for c in profile.classes])


def generate_jobs(
    profile: Profile, *, cluster_gpus: int, gpus_per_node: int, load: float, horizon_h: float, seed: int
) -> Jobs:
    """Poisson arrivals per class over [0, horizon), sizes and durations drawn as the module says."""
    check_profile(profile, cluster_gpus, gpus_per_node)
    if not 0 < load <= 2:
        raise SchedulerInputError({"load": f"offered load above 0 and at most 2 (200 %), got {load}"})
    if not 0 < horizon_h <= 10 * 365 * DAY_H:
        raise SchedulerInputError({"horizon_h": "above 0 and at most 10 years"})
    rng = np.random.default_rng(seed)
    parts = []
    for i, (c, lam) in enumerate(zip(profile.classes, arrival_rates_per_h(profile, cluster_gpus, load), strict=True)):
        n = rng.poisson(lam * horizon_h)
        submit = np.sort(rng.uniform(0, horizon_h, n))  # Poisson: n uniform points given the count
        gpus = rng.choice(c.gpu_choices(), n)
        if c.duration == "exponential":
            hours = rng.exponential(c.mean_hours(), n)
        elif c.duration == "uniform":
            hours = rng.uniform(c.min_hours, c.max_hours, n)
        else:
            hours = np.exp(rng.uniform(math.log(c.min_hours), math.log(c.max_hours), n))
        parts.append((submit, gpus, hours, np.full(n, i), np.full(n, PRIORITY[c.sla])))
    cat = [np.concatenate([p[k] for p in parts]) for k in range(5)]
    order = np.argsort(cat[0], kind="stable")
    submit_h, gpus, hours, cls, priority = (a[order] for a in cat)
    return Jobs(submit_h, gpus.astype(np.int64), hours, cls.astype(np.int64), priority.astype(np.int64))
