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

Jobs carry hours (floats); the simulator converts them to whole seconds once, at its boundary, by one rule
(scheduling/simulator.py: round half to even of hours × 3,600, a positive run time at least 1 s).
"""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scheduling import SchedulerInputError

SLA_CLASSES = ("critical", "queued", "best_effort")
DURATIONS = ("log_uniform", "uniform", "exponential")
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
    share_pct_given: float | None = field(default=None, compare=False)  # the share as typed (written back as is)

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
MAX_JOBS = 5_000_000  # jobs one run may make (≈ 200 MB of job arrays and simulator state)
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


def check_profile(profile: Profile, cluster_gpus: int | None, where: str = "") -> None:
    """Field errors for a profile that cannot run: shares not 100 %, a class larger than the cluster…
    (``cluster_gpus`` None: the classes on their own, before a cluster is known; ``where`` names the
    cluster in the message, e.g. " (its batch partition gpu-large)")."""
    errors: dict[str, str] = {}
    total = sum(c.share for c in profile.classes)
    names = [c.name for c in profile.classes]
    dup = next((x for x in names if names.count(x) > 1), None)
    if not profile.classes:
        errors["classes"] = "give at least one job class"
    elif dup is not None:
        errors["classes"] = f"two classes are named {dup!r}"
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
        elif cluster_gpus is not None and c.max_gpus > cluster_gpus:
            errors[f"{key}.max_gpus"] = (
                f"{c.name}: {c.max_gpus:,} GPUs is larger than the {cluster_gpus:,}-GPU cluster{where}"
            )
        if c.granularity_gpus < 1 or c.min_gpus % c.granularity_gpus:
            errors[f"{key}.granularity_gpus"] = "a whole number ≥ 1 that divides the minimum GPU count"
        if not 0 < c.min_hours <= c.max_hours:
            errors[f"{key}.min_hours"] = f"0 < min ≤ max hours, got {c.min_hours}–{c.max_hours}"
        if not 0 <= c.comm_fraction < 1:
            errors[f"{key}.comm_fraction"] = f"a share of a step from 0 to below 1, got {c.comm_fraction:g}"
        if c.duration not in ("log_uniform", "uniform", "exponential"):
            errors[f"{key}.duration"] = "log_uniform, uniform or exponential"
    if errors:
        raise SchedulerInputError(errors)


def arrival_rates_per_h(profile: Profile, cluster_gpus: int, load: float) -> np.ndarray:
    """λ_c = ρ × C × share_c ÷ (E[GPUs_c] × E[hours_c]) for each class, in jobs per hour."""
    return np.array([load * cluster_gpus * c.share / (c.mean_gpus() * c.mean_hours()) for c in profile.classes])


def arrival_rates_from_jobs_per_h(profile: Profile, jobs_per_day: float) -> np.ndarray:
    """Jobs per day split so each class still gets its share of the GPU-hours:
    λ_c = (N ÷ 24) × (share_c ÷ E[GPU-h]_c) ÷ Σ_k (share_k ÷ E[GPU-h]_k)."""
    w = np.array([c.share / (c.mean_gpus() * c.mean_hours()) for c in profile.classes])
    return jobs_per_day / DAY_H * w / w.sum()


def offered_load(profile: Profile, cluster_gpus: int, jobs_per_day: float) -> float:
    """The offered load ρ that ``jobs_per_day`` puts on ``cluster_gpus`` (Σ λ_c E[GPU-h]_c ÷ C)."""
    lam = arrival_rates_from_jobs_per_h(profile, jobs_per_day)
    return float(sum(x * c.mean_gpus() * c.mean_hours() for x, c in zip(lam, profile.classes))
                 / cluster_gpus)  # fmt: skip


def _rates_per_h(profile: Profile, cluster_gpus: int, load: float, jobs_per_day: float | None) -> np.ndarray:
    """λ_c of every class [jobs/h] at offered ``load``, or for ``jobs_per_day`` (checked against 200 %)."""
    if jobs_per_day is not None:
        if not (isinstance(jobs_per_day, int | float) and 0 < jobs_per_day <= 1e6):
            raise SchedulerInputError({"jobs_per_day": f"above 0 and at most 1,000,000, got {jobs_per_day!r}"})
        load = offered_load(profile, cluster_gpus, jobs_per_day)
        if load > 2:
            raise SchedulerInputError({"jobs_per_day": f"{jobs_per_day:g} jobs a day offer {load:.0%} of the "
                                                       f"{cluster_gpus:,} GPUs; at most 200 %"})  # fmt: skip
    if not 0 < load <= 2:
        raise SchedulerInputError({"load": f"offered load above 0 and at most 2 (200 %), got {load}"})
    return arrival_rates_per_h(profile, cluster_gpus, load)


def expected_job_count(
    profile: Profile, *, cluster_gpus: int, load: float, horizon_h: float, jobs_per_day: float | None = None
) -> float:
    """The number of jobs :func:`generate_jobs` makes on average: Σ_c λ_c × horizon (the Poisson mean; an
    actual draw differs by about its square root). Computed from the profile alone, nothing is drawn; every
    refusal of generate_jobs (profile, load, jobs per day, horizon, MAX_JOBS) is raised here first."""
    check_profile(profile, cluster_gpus)
    rates = _rates_per_h(profile, cluster_gpus, load, jobs_per_day)
    if not 0 < horizon_h <= 10 * 365 * DAY_H:
        raise SchedulerInputError({"horizon_h": "above 0 and at most 10 years"})
    expected = float(rates.sum()) * horizon_h
    if expected > MAX_JOBS:
        raise SchedulerInputError({"horizon_h": f"about {expected:,.0f} jobs in {horizon_h / DAY_H:,.0f} days "
                                                f"(the expected count); a run makes at most {MAX_JOBS:,} "
                                                f"(simulate fewer days)"})  # fmt: skip
    return expected


def generate_jobs(
    profile: Profile, *, cluster_gpus: int, load: float, horizon_h: float, seed: int,
    jobs_per_day: float | None = None,
) -> Jobs:  # fmt: skip
    """Poisson arrivals per class over [0, horizon), sizes and durations drawn as the module says; at
    offered ``load``, or ``jobs_per_day`` when given (the load is then what they offer).

    The expected count is checked against MAX_JOBS before anything is drawn (:func:`expected_job_count`),
    and the drawn count again before each class's arrays are made: a draw above the limit stops here."""
    expected_job_count(profile, cluster_gpus=cluster_gpus, load=load, horizon_h=horizon_h, jobs_per_day=jobs_per_day)
    rates = _rates_per_h(profile, cluster_gpus, load, jobs_per_day)
    rng = np.random.default_rng(seed)
    parts = []
    drawn = 0
    for i, (c, lam) in enumerate(zip(profile.classes, rates)):
        n = rng.poisson(lam * horizon_h)
        drawn += int(n)
        if drawn > MAX_JOBS:  # the expected count was under the limit, this draw is over it: stop before its arrays
            expected = float(rates.sum()) * horizon_h
            raise SchedulerInputError({"horizon_h": f"{drawn:,} jobs drawn (expected {expected:,.0f}); a run makes "
                                                    f"at most {MAX_JOBS:,} (simulate fewer days)"})  # fmt: skip
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


# The profile as text (a requirements field) and as a list of mappings (files and the API): one class
# per line, comma-separated, positional; the last three columns may be left out.
CLASS_COLUMNS = ("name", "share_pct", "min_gpus", "max_gpus", "granularity_gpus", "min_hours", "max_hours", "sla",
                 "tenant", "comm_fraction", "duration")  # fmt: skip
REQUIRED_COLUMNS = 8
MAX_CLASSES = 64
_DEFAULTS = {"tenant": "", "comm_fraction": 0.0, "duration": "log_uniform"}
# a name or tenant is one cell of one line: no comma or double quote (CSV), no control or line-separator character
_BAD_NAME = re.compile('[,"\x00-\x1f\x7f-\x9f\u2028\u2029]')


def _class_of(row: dict[str, Any], where: str) -> JobClass:
    """One class from a mapping of the column names; SchedulerInputError with ``where`` in the message."""
    unknown = [k for k in row if k not in CLASS_COLUMNS]
    missing = [k for k in CLASS_COLUMNS[:REQUIRED_COLUMNS] if k not in row or row[k] in (None, "")]
    if unknown:
        raise SchedulerInputError({"classes": f"{where}: unknown column {unknown[0]!r}; a class has "
                                              f"{', '.join(CLASS_COLUMNS)}"})  # fmt: skip
    if missing:
        raise SchedulerInputError({"classes": f"{where}: missing {', '.join(missing)}"})
    name = str(row["name"]).strip()
    if not name or len(name) > 60 or _BAD_NAME.search(name) or name.startswith("#"):
        raise SchedulerInputError({"classes": f"{where}: a name of 1 to 60 characters, no commas, quotes "
                                              "or control characters, not starting with # (a comment)"})  # fmt: skip
    tenant = str(row.get("tenant") or "").strip()
    if len(tenant) > 60 or _BAD_NAME.search(tenant):
        raise SchedulerInputError({"classes": f"{where} ({name}): a tenant of at most 60 characters, no commas, "
                                              "quotes or control characters"})  # fmt: skip
    values: dict[str, Any] = {}
    for key, kind in (("share_pct", float), ("min_gpus", int), ("max_gpus", int), ("granularity_gpus", int),
                      ("min_hours", float), ("max_hours", float), ("comm_fraction", float)):  # fmt: skip
        raw = row.get(key, _DEFAULTS.get(key))
        values[key] = _number_of(raw, kind, f"{where} ({name}): {key}")
    sla = str(row["sla"]).strip()
    duration = str(row.get("duration") or _DEFAULTS["duration"]).strip()
    if sla not in SLA_CLASSES:
        raise SchedulerInputError({"classes": f"{where} ({name}): sla is one of {', '.join(SLA_CLASSES)}, got {sla!r}"})
    if duration not in DURATIONS:
        raise SchedulerInputError({"classes": f"{where} ({name}): duration is one of {', '.join(DURATIONS)}, "
                                              f"got {duration!r}"})  # fmt: skip
    return JobClass(
        name, values["share_pct"] / 100, values["min_gpus"], values["max_gpus"], values["granularity_gpus"],
        values["min_hours"], values["max_hours"], sla, tenant, duration,
        values["comm_fraction"], share_pct_given=values["share_pct"],
    )  # fmt: skip


def _number_of(raw: Any, kind: type, where: str) -> Any:
    if isinstance(raw, bool):
        raw = None
    try:
        x = float(raw)
    except (TypeError, ValueError):
        raise SchedulerInputError({"classes": f"{where}: a number, got {raw!r}"}) from None
    if not math.isfinite(x) or (kind is int and not x.is_integer()):
        raise SchedulerInputError({"classes": f"{where}: a {'whole ' if kind is int else ''}number, got {raw!r}"})
    return int(x) if kind is int else x


def parse_classes(data: str | list) -> tuple[JobClass, ...]:
    """Classes from the text layout (one per line, ``#`` comments) or a list of mappings; each class is
    checked on its own here (shares and sizes against the cluster: :func:`check_profile`)."""
    if isinstance(data, list):
        rows = data
        if any(not isinstance(r, dict) for r in rows):
            raise SchedulerInputError({"classes": "a list of mappings, one per class"})
        where = [f"class {i + 1}" for i in range(len(rows))]
    elif isinstance(data, str):
        lines = [(n, ln) for n, ln in enumerate(data.splitlines(), 1) if ln.strip() and not ln.lstrip().startswith("#")]
        rows, where = [], []
        for n, ln in lines:
            cells = [c.strip() for c in next(csv.reader([ln]))]
            if not REQUIRED_COLUMNS <= len(cells) <= len(CLASS_COLUMNS):
                raise SchedulerInputError({"classes": f"line {n}: {len(cells)} values; a class has "
                                                      f"{REQUIRED_COLUMNS} to {len(CLASS_COLUMNS)}: "
                                                      f"{', '.join(CLASS_COLUMNS)}"})  # fmt: skip
            rows.append({k: v for k, v in zip(CLASS_COLUMNS, cells, strict=False) if v != "" or k == "tenant"})
            where.append(f"line {n}")
    else:
        raise SchedulerInputError({"classes": "text, one class per line, or a list of mappings"})
    if len(rows) > MAX_CLASSES:
        raise SchedulerInputError({"classes": f"{len(rows)} classes; at most {MAX_CLASSES}"})
    return tuple(_class_of(r, w) for r, w in zip(rows, where, strict=True))


def class_dict(c: JobClass) -> dict[str, Any]:
    share = c.share_pct_given if c.share_pct_given is not None else _pct_of(c.share)
    return {
        "name": c.name, "share_pct": _whole(share), "min_gpus": c.min_gpus, "max_gpus": c.max_gpus,
        "granularity_gpus": c.granularity_gpus, "min_hours": _whole(c.min_hours), "max_hours": _whole(c.max_hours),
        "sla": c.sla, "tenant": c.tenant, "comm_fraction": _whole(c.comm_fraction), "duration": c.duration,
    }  # fmt: skip


def _whole(x: float) -> float | int:
    """12.0 → 12 for files a person reads; any other value exactly as it is."""
    return int(x) if math.isfinite(x) and x == int(x) and abs(x) < 2**53 else x


def _pct_of(share: float) -> float:
    """The shortest percentage that reads back as exactly this share (0.4 → 40, not 40.00000000000001)."""
    x = share * 100
    for places in range(17):
        r = round(x, places)
        if r / 100 == share:
            return r
    return x


def classes_text(classes: tuple[JobClass, ...] | list[dict[str, Any]]) -> str:
    """The text layout; trailing columns at their defaults are left out."""
    lines = []
    for c in classes:
        d = class_dict(c) if isinstance(c, JobClass) else class_dict(_class_of(c, "class"))
        cells = [str(d[k]) for k in CLASS_COLUMNS]
        defaults = {"tenant": "", "comm_fraction": "0", "duration": "log_uniform"}
        while len(cells) > REQUIRED_COLUMNS and cells[-1] == defaults[CLASS_COLUMNS[len(cells) - 1]]:
            cells.pop()  # a trailing column at its default (tenant "0" is a tenant, not a default)
        lines.append(", ".join(cells))
    return "\n".join(lines)
