"""Calibrating the collective model to a cluster's own nccl-tests results.

Three parameters, carried by the Fabric (topology.collective_inputs) and applied to every
(algorithm, protocol) pair *before* NCCL's choice (topology.collectives.calibrated_us):

    t' = latency_offset_us [+ simple_latency_offset_us for the Simple protocol] + t ÷ bw_efficiency

- ``bw_efficiency`` — the share of the model's bandwidth the cluster reaches (≤ 1 when links,
  PCIe or the NIC stack fall short of the nominal rate; > 1 where the model is pessimistic);
- ``latency_offset_us`` — per-call time the model does not see: launch, host and proxy
  overheads, a network stack slower to start than InfiniBand verbs;
- ``simple_latency_offset_us`` — extra start-up of the Simple protocol, whose large chunks
  ride the network stack (GPUDirect-TCPX clusters show a second plateau of ~0.7 ms from
  16 MiB to 1 GiB that the LL protocols do not have).

Because the offsets differ by protocol, the calibrated model may pick another protocol than
the bare one, as NCCL would on that cluster. The fit is bounded least squares on log(time)
(scipy.optimize.least_squares, trust-region reflective), so 8 B rows weigh as much as 8 GiB.
The latency term is stretched by 1/e as well — a simplification, stated in the assumptions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from topology.collective_inputs import CALIBRATION_BOUNDS, check_calibration

BOUNDS = CALIBRATION_BOUNDS
PARAMETERS = tuple(BOUNDS)
MAX_FIT_ERROR = 0.35  # GM |calibrated/measured − 1| above this: the log is not of this design
MIN_ROWS = 3
MAX_EVALUATIONS = 400


class CalibrationError(ValueError):
    def __init__(self, field_name: str, message: str):
        self.field = field_name
        super().__init__(message)


@dataclass(frozen=True)
class Calibration:
    bw_efficiency: float = 1.0
    latency_offset_us: float = 0.0
    simple_latency_offset_us: float = 0.0

    def __post_init__(self) -> None:
        try:
            check_calibration(self.bw_efficiency, self.latency_offset_us, self.simple_latency_offset_us)
        except ValueError as exc:
            raise CalibrationError(str(exc).partition(":")[0], str(exc)) from None

    def derivation(self) -> str:
        return (
            f"t = {self.latency_offset_us:.4g} µs (+ {self.simple_latency_offset_us:.4g} µs on Simple) "
            f"+ t_model ÷ {self.bw_efficiency:.4g}, per algorithm and protocol, before NCCL's choice"
        )

    def to_dict(self) -> dict[str, float]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> Calibration:
        unknown = sorted(set(d) - set(BOUNDS))
        if unknown:
            raise CalibrationError(unknown[0], f"unknown calibration parameter {unknown[0]!r}")
        return cls(**d)


IDENTITY = Calibration()


@dataclass(frozen=True)
class Fit:
    calibration: Calibration
    error_before: float  # GM |t_model/t_measured − 1|
    error_after: float
    evaluations: int
    message: str


def gm_error(predicted, measured) -> float:
    """Geometric-mean error in the symmetric sense: exp(mean |log(p/m)|) − 1."""
    r = np.log(np.asarray(predicted, dtype=float) / np.asarray(measured, dtype=float))
    return float(np.expm1(np.mean(np.abs(r))))


def fit_calibration(measured_time_us, model_time_us: Callable[[Calibration], np.ndarray]) -> Fit:
    """Bounded least squares of log(t_calibrated) − log(t_measured); CalibrationError when it fails.

    ``model_time_us(calibration)`` evaluates the model at the log's sizes under a calibration."""
    from scipy.optimize import least_squares

    meas = np.asarray(measured_time_us, dtype=float)
    bare = np.asarray(model_time_us(IDENTITY), dtype=float)
    usable = np.isfinite(bare) & (bare > 0) & np.isfinite(meas) & (meas > 0)
    if usable.sum() < MIN_ROWS:
        raise CalibrationError("log", f"{int(usable.sum())} usable rows; a calibration needs at least {MIN_ROWS}")
    (e_lo, e_hi), (a_lo, a_hi), (s_lo, s_hi) = BOUNDS.values()
    a_lo = max(a_lo, -0.5 * float(bare[usable].min()))  # every calibrated time stays > 0

    def residuals(x: np.ndarray) -> np.ndarray:
        t = np.asarray(model_time_us(Calibration(*map(float, x))), dtype=float)[usable]
        return np.log(np.maximum(t, 1e-9)) - np.log(meas[usable])

    start = np.array([1.0, float(np.clip(np.min(meas[usable] - bare[usable]), a_lo, a_hi)), 0.0])
    res = least_squares(
        residuals,
        start,
        bounds=(np.array([e_lo, a_lo, s_lo]), np.array([e_hi, a_hi, s_hi])),
        method="trf",
        loss="soft_l1",  # robust: one odd row (a noisy size, a protocol switch) does not drag the fit
        f_scale=0.2,  # residuals are log-ratios: ≈ 20 % is where soft-L1 stops counting them fully
        max_nfev=MAX_EVALUATIONS,
        x_scale="jac",  # a ratio and two µs offsets: each scaled by its own Jacobian column
        diff_step=1e-3,
    )
    cal = Calibration(*map(float, res.x))
    if not res.success:
        raise CalibrationError("log", f"the fit did not converge in {res.nfev} evaluations ({res.message})")
    e, a, _ = res.x
    if e <= e_lo * 1.001 or e >= e_hi * 0.999 or a >= a_hi * 0.999:
        raise CalibrationError(
            "log",
            f"the fit does not converge inside the bounds ({cal.derivation()}); "
            "the log cannot come from this design's fabric",
        )
    after = gm_error(np.asarray(model_time_us(cal))[usable], meas[usable])
    if after > MAX_FIT_ERROR:
        raise CalibrationError(
            "log",
            f"the fit does not converge to the log: still {after:.0%} off (GM) after fitting "
            f"(limit {MAX_FIT_ERROR:.0%}); the log's curve does not have the model's shape for this design",
        )
    return Fit(cal, gm_error(bare[usable], meas[usable]), after, int(res.nfev), str(res.message))
