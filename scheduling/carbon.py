"""Carbon-aware deferral (§14.7.5): deferrable jobs wait for a cleaner grid hour, up to a limit (pure).

The grid's carbon intensity is an hourly profile of 24 values [g CO₂/kWh] repeating every day (hour 0 =
the simulation's start). A job of a deferrable class may start only in an hour whose intensity is at
most ``threshold_g_per_kwh``, or once it has waited ``max_defer_h`` — then it starts as any job. A
held job does not hold the queue: the scheduler treats the jobs behind it as if it were not there.

Emissions of a run [s, e) on G GPUs: G × ``kw_per_gpu`` × ∫ intensity dt (the profile is piecewise
constant per hour), ``kw_per_gpu`` the facility power per GPU of the design (IT × PUE ÷ GPUs, from
the pipeline), so a deferral shows up as tonnes of CO₂ saved against hours of wait added.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from scheduling import SchedulerInputError


def _num(v) -> bool:
    return not isinstance(v, bool) and isinstance(v, int | float) and math.isfinite(v)


@dataclass(frozen=True)
class CarbonPolicy:
    intensity_g_per_kwh: tuple[float, ...]  # 24 hourly values, repeating daily
    threshold_g_per_kwh: float
    max_defer_h: float
    kw_per_gpu: float

    def __post_init__(self) -> None:
        errors = {}
        v = self.intensity_g_per_kwh
        if len(v) != 24 or any(not isinstance(x, int | float) or not math.isfinite(x) or x < 0 for x in v):
            errors["carbon.intensity_g_per_kwh"] = f"24 hourly values ≥ 0 [g CO₂/kWh], got {len(v)} values"
        if not (_num(self.threshold_g_per_kwh) and self.threshold_g_per_kwh >= 0):
            errors["carbon.threshold_g_per_kwh"] = f"g CO₂/kWh ≥ 0, got {self.threshold_g_per_kwh!r}"
        if not (_num(self.max_defer_h) and 0 <= self.max_defer_h <= 24 * 30):
            errors["carbon.max_defer_h"] = f"hours from 0 to 720, got {self.max_defer_h!r}"
        if not (_num(self.kw_per_gpu) and 0 < self.kw_per_gpu <= 10):
            errors["carbon.kw_per_gpu"] = f"kW per GPU above 0 and at most 10, got {self.kw_per_gpu!r}"
        if errors:
            raise SchedulerInputError(errors)

    def intensity_at(self, t_h: float) -> float:
        return float(self.intensity_g_per_kwh[math.floor(t_h) % 24])

    def clean_now(self, t_h: float) -> bool:
        return self.intensity_at(t_h) <= self.threshold_g_per_kwh

    def gram_hours_per_kwh(self, start_h: np.ndarray, end_h: np.ndarray) -> np.ndarray:
        """∫ intensity dt over each [start, end) [g·h/kWh], exactly for the hourly step profile."""
        prof = np.asarray(self.intensity_g_per_kwh, dtype=float)
        cum = np.concatenate([[0.0], np.cumsum(prof)])  # ∫ over [0, h) for whole hours of one day
        day = cum[-1]

        def integral_to(t: np.ndarray) -> np.ndarray:
            days, rest = np.divmod(t, 24.0)
            whole = np.floor(rest).astype(int)
            return days * day + cum[whole] + (rest - whole) * prof[np.minimum(whole, 23)]

        return integral_to(end_h) - integral_to(start_h)


def emissions_t(policy: CarbonPolicy, gpus: np.ndarray, start_h: np.ndarray, end_h: np.ndarray) -> np.ndarray:
    """t CO₂ per job run [start, end): GPUs × kW per GPU × ∫ intensity dt ÷ 10⁶ (g → t)."""
    return gpus * policy.kw_per_gpu * policy.gram_hours_per_kwh(start_h, end_h) / 1e6


def _run_tonnes(policy: CarbonPolicy, gpus: np.ndarray, segments: list, horizon_h: float):
    """(t CO₂, job) of each recorded run [job, nodes, start, end] inside the window (end NaN: still running)."""
    job = np.array([sg[0] for sg in segments], dtype=np.int64)
    start = np.array([sg[2] for sg in segments], dtype=float)
    end = np.array([sg[3] for sg in segments], dtype=float)
    end = np.where(np.isnan(end), horizon_h, np.minimum(end, horizon_h))
    return emissions_t(policy, gpus[job], start, end), job


def carbon_effect(policy: CarbonPolicy, jobs, deferrable: np.ndarray, baseline, res, horizon_h: float) -> dict:
    """t CO₂ of every run inside the window, with deferral (``res``) and without (``baseline``, the same jobs),
    and the mean queue time it added to the deferrable jobs. Both runs must be recorded (their segments)."""

    def tonnes(r) -> tuple[float, float]:
        if not r.segments:
            return 0.0, 0.0
        t, job = _run_tonnes(policy, jobs.gpus, r.segments, horizon_h)
        return float(t.sum()), float(t[deferrable[job]].sum())

    (b_all, b_def), (c_all, c_def) = tonnes(baseline), tonnes(res)
    added = float(res.queue_h[deferrable].mean() - baseline.queue_h[deferrable].mean()) if deferrable.any() else 0.0
    n = int(deferrable.sum())
    return {
        "t_co2": c_all, "t_co2_without_deferral": b_all, "saved_t_co2": b_all - c_all,
        "deferrable_jobs": n, "deferrable_t_co2": c_def, "deferrable_t_co2_without_deferral": b_def,
        "wait_added_h_mean": added, "kw_per_gpu": policy.kw_per_gpu,
        "derivation": f"{b_all:,.3f} t CO₂ without deferral − {c_all:,.3f} t with it = {b_all - c_all:,.3f} t saved; "
        f"{n:,} deferrable jobs wait {added:+.1f} h more on average ({policy.kw_per_gpu:.3f} kW per GPU at the "
        f"facility, threshold {policy.threshold_g_per_kwh:g} g/kWh, at most {policy.max_defer_h:g} h)",
    }  # fmt: skip
