"""GPU power capping: throughput against the power cap, and the best cap under a fixed budget.

Seed chapter (seed-figures.md P2), H100 SXM5: capping at 500 W (≈71 % of the 700 W TDP)
keeps ≈85–90 % of GEMM throughput (we use the middle, 87.5 %); at 400 W (≈57 %) ≈70 %.
The curve is a monotone cubic (PCHIP) through those points and (0.3, 0.35), (1, 1): it
passes through the published points exactly and never bends backwards. Other models use
the same curve in fractions of their own TDP (an assumption, stated in the output).

The planner asks: with a fixed facility budget, how many GPUs at which cap give the most
total throughput? Each GPU costs (cap + host share) × PUE of facility power.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.interpolate import PchipInterpolator

from power import PowerInputError

H100_CAP_POINTS: tuple[tuple[float, float], ...] = (
    (0.30, 0.35),  # below ~40 % clocks collapse; a floor for the curve's shape, not a published point
    (400 / 700, 0.70),  # seed P2
    (500 / 700, 0.875),  # seed P2: 85–90 %
    (1.00, 1.00),
)
CAP_STEP_FRAC = 0.01  # the planner's grid of caps, 40 % … 100 % of TDP


def throughput_curve() -> PchipInterpolator:
    """The curve through the H100 points above (read when called, so a changed point is seen)."""
    x, y = zip(*H100_CAP_POINTS, strict=True)
    return PchipInterpolator(np.array(x), np.array(y), extrapolate=False)


def relative_throughput(cap_frac: np.ndarray | float) -> np.ndarray:
    cap = np.clip(np.asarray(cap_frac, dtype=float), H100_CAP_POINTS[0][0], 1.0)
    return throughput_curve()(cap)


@dataclass(frozen=True)
class CapPoint:
    cap_frac: float
    cap_w: float
    gpu_count: int
    relative_throughput_per_gpu: float
    total_throughput_gpu_equiv: float


@dataclass(frozen=True)
class CappingPlan:
    budget_kw: float
    tdp_w: float
    host_w_per_gpu: float
    pue: float
    points: tuple[CapPoint, ...]
    best: CapPoint
    full_power: CapPoint
    derivations: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        def p(c: CapPoint) -> dict[str, Any]:
            return {
                "cap_frac": round(c.cap_frac, 4),
                "cap_w": round(c.cap_w, 1),
                "gpu_count": c.gpu_count,
                "relative_throughput_per_gpu": round(c.relative_throughput_per_gpu, 4),
                "total_throughput_gpu_equiv": round(c.total_throughput_gpu_equiv, 1),
            }

        return {
            "budget_kw": self.budget_kw,
            "tdp_w": self.tdp_w,
            "host_w_per_gpu": self.host_w_per_gpu,
            "pue": self.pue,
            "points": [p(c) for c in self.points],
            "best": p(self.best),
            "full_power": p(self.full_power),
            "derivations": dict(self.derivations),
        }


def plan_capping(
    budget_kw: float,
    tdp_w: float,
    *,
    host_w_per_gpu: float,
    pue: float,
) -> CappingPlan:
    """Every cap from 40 % to 100 % of TDP in steps of 1 %: GPUs the budget holds at that cap, × the curve."""
    errors = {}
    if not budget_kw > 0:
        errors["capping_budget_kw"] = f"must be positive, got {budget_kw}"
    if not tdp_w > 0:
        errors["gpu_tdp_w"] = f"must be positive, got {tdp_w}"
    if host_w_per_gpu < 0:
        errors["host_overhead_w"] = f"must be ≥ 0, got {host_w_per_gpu}"
    if pue < 1:
        errors["pue"] = f"cannot be below 1, got {pue}"
    if errors:
        raise PowerInputError(errors)
    caps = np.round(np.arange(0.40, 1.0 + 1e-9, CAP_STEP_FRAC), 4)
    per_gpu_kw = (caps * tdp_w + host_w_per_gpu) * pue / 1000
    counts = np.floor(budget_kw / per_gpu_kw + 1e-9).astype(int)
    rel = relative_throughput(caps)
    total = counts * rel
    points = tuple(
        CapPoint(float(c), float(c * tdp_w), int(n), float(r), float(t))
        for c, n, r, t in zip(caps, counts, rel, total, strict=True)
    )
    best = max(points, key=lambda p: (p.total_throughput_gpu_equiv, p.cap_frac))
    full = points[-1]
    gain = (
        f"{best.total_throughput_gpu_equiv / full.total_throughput_gpu_equiv - 1:+.1%}"
        if full.total_throughput_gpu_equiv
        else "no gain figure, the budget holds no GPU at full power"
    )
    d = {
        "per_gpu_kw": f"(cap × {tdp_w:g} W + {host_w_per_gpu:g} W host share) × PUE {pue:g}",
        "best": (
            f"{budget_kw:,.0f} kW ÷ (({best.cap_w:,.0f} + {host_w_per_gpu:g}) W × {pue:g}) = "
            f"{best.gpu_count:,} GPUs at {best.cap_frac:.0%} TDP × {best.relative_throughput_per_gpu:.3f} = "
            f"{best.total_throughput_gpu_equiv:,.0f} full-power GPU equivalents, "
            f"vs {full.gpu_count:,} GPUs at full power: {gain}"
        ),
        "curve": "monotone cubic through (57 %, 0.70), (71 %, 0.875), (100 %, 1.0) — seed P2 for H100; "
        "other models assumed to follow the same curve in fractions of TDP",
    }
    return CappingPlan(budget_kw, tdp_w, host_w_per_gpu, pue, points, best, full, d)
