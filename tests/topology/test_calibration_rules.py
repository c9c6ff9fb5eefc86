"""The calibration fit (topology/calibration.py) on a model small enough to write down: t = base ÷ e + offset
(+ the Simple offset on the rows that run Simple), so the parameters a log was made with are known."""

from __future__ import annotations

import numpy as np
import pytest

from topology.calibration import IDENTITY, Calibration, CalibrationError, fit_calibration

BASE = np.array([0.2, 0.5, 2.0, 8.0, 30.0, 120.0, 480.0, 1920.0])
SIMPLE = np.array([False] * 4 + [True] * 4)  # the large sizes run Simple


def model(cal: Calibration, base=BASE) -> np.ndarray:
    return base / cal.bw_efficiency + cal.latency_offset_us + cal.simple_latency_offset_us * SIMPLE[: len(base)]


def test_a_log_made_with_known_parameters_gives_them_back():
    """Made with e = 0.8, +5 µs, +10 µs on Simple: the fit returns them (to 0.1 %), the error after is ≈ 0, and
    the error before is the bare model's GM |log(t_model ÷ t_measured)| over the 8 rows."""
    truth = Calibration(0.8, 5.0, 10.0)
    measured = model(truth)
    fit = fit_calibration(measured, model)
    got = fit.calibration
    assert (got.bw_efficiency, got.latency_offset_us, got.simple_latency_offset_us) == (
        pytest.approx(0.8, rel=1e-3), pytest.approx(5.0, rel=1e-3), pytest.approx(10.0, rel=1e-3),
    )  # fmt: skip
    assert fit.error_after == pytest.approx(0.0, abs=1e-4)
    assert fit.error_before == pytest.approx(float(np.expm1(np.mean(np.abs(np.log(BASE / measured))))), rel=1e-9)


def test_rows_the_model_or_the_log_cannot_time_are_left_out():
    """A row the model gives 0 or ∞ for, or the log 0 for, does not count: of 5 rows 3 are usable — enough; rows
    under 1 µs count (only 0 does not). Made with e = 1, +0.5 µs: 0.25 + 0.5 = 0.75, 2.5, 8.5 µs — given back. With
    2 usable rows there is nothing to fit."""
    base = np.array([0.25, 2.0, 8.0, 0.0, np.inf])

    def small(cal):
        return base / cal.bw_efficiency + cal.latency_offset_us

    fit = fit_calibration(np.array([0.75, 2.5, 8.5, 1.0, 1.0]), small)
    assert fit.error_after == pytest.approx(0.0, abs=1e-4)
    assert fit.calibration.latency_offset_us == pytest.approx(0.5, rel=1e-3)
    with pytest.raises(CalibrationError, match=r"^2 usable rows; a calibration needs at least 3$"):
        fit_calibration(np.array([0.75, 0.0, 8.5, 1.0, 1.0]), small)


def test_a_log_of_another_shape_is_refused():
    """Measured times flat at 100 µs against a model that grows 10⁴-fold: no e and offsets bring it within 35 %."""
    with pytest.raises(CalibrationError) as exc:
        fit_calibration(np.full(8, 100.0), model)
    assert exc.value.field == "log" and "does not converge" in str(exc.value)


def test_parameter_errors_name_their_field():
    """A bad value is refused on its own parameter; unknown names are refused by the first in sorted order."""
    with pytest.raises(CalibrationError) as exc:
        Calibration(bw_efficiency=5.0)
    assert exc.value.field == "bw_efficiency"
    with pytest.raises(CalibrationError) as exc:
        Calibration.from_dict({"zeta": 1.0, "alpha": 2.0})
    assert (exc.value.field, str(exc.value)) == ("alpha", "unknown calibration parameter 'alpha'")
    assert IDENTITY.derivation() == (
        "t = 0 µs (+ 0 µs on Simple) + t_model ÷ 1, per algorithm and protocol, before NCCL's choice"
    )


def test_a_fit_near_but_inside_a_bound_is_kept():
    """Made with e = 0.08 (the bound is 0.05) or an offset of 9,000 µs (the bound is 10,000): both come back — only a
    fit that ends on a bound (within 0.1 %) is refused."""
    low = fit_calibration(model(Calibration(0.08, 5.0, 10.0)), model)
    assert low.calibration.bw_efficiency == pytest.approx(0.08, rel=1e-3) and low.error_after < 1e-3
    high = fit_calibration(model(Calibration(1.0, 9_000.0, 10.0)), model)  # e is loosely held beside 9 ms
    assert high.calibration.latency_offset_us == pytest.approx(9_000.0, rel=1e-3) and high.error_after < 1e-3


def test_one_odd_row_does_not_drag_the_fit():
    """Made with e = 0.8, +5 µs, +10 µs on Simple, then one row (the 120 µs one) measured 3× slower — a noisy
    size. The soft-L1 loss counts log-ratios beyond ≈ 20 % less than fully: e stays within 10 % of 0.8 (plain
    least squares on the log-ratios drags it to ≈ 0.65)."""
    measured = model(Calibration(0.8, 5.0, 10.0))
    measured[5] *= 3
    got = fit_calibration(measured, model).calibration
    assert got.bw_efficiency == pytest.approx(0.8, rel=0.10)
    assert got.latency_offset_us == pytest.approx(5.0, abs=1.0)


def test_sub_microsecond_times_are_fitted_as_they_are():
    """A fabric a thousand times faster, e = 0.8 and no offsets: 0.25 ns … 2.4 µs, seven of the eight rows under
    a microsecond; they are fitted, not floored."""
    fast = BASE / 1000

    def fast_model(cal):
        return model(cal, base=fast)

    measured = fast_model(Calibration(0.8, 0.0, 0.0))
    assert measured[0] == pytest.approx(0.00025) and measured[-1] == pytest.approx(2.4)
    fit = fit_calibration(measured, fast_model)
    assert fit.calibration.bw_efficiency == pytest.approx(0.8, rel=1e-3) and fit.error_after < 1e-3
