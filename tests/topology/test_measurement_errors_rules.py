"""The error table's arithmetic (topology/measurements.py) on rows made by hand."""

from __future__ import annotations

import math

import pytest

from topology.measurements import Comparison, class_errors

MIB = 2**20


def _row(size_bytes: int, measured: float, model: float, unit: str = "GB/s busbw") -> Comparison:
    return Comparison("src", "sys", "all_reduce", size_bytes, measured, model, unit, "ring")


def test_ratio_is_a_speed_for_bandwidths_and_times():
    """Model ÷ measured for a bandwidth (model 120 vs 100 GB/s: 1.2, optimistic); measured ÷ model for a time
    (model 10 µs vs measured 12 µs: also 1.2, optimistic)."""
    assert _row(MIB, 100.0, 120.0).ratio == pytest.approx(1.2)
    assert _row(MIB, 12.0, 10.0, "µs").ratio == pytest.approx(1.2)


def test_class_errors_by_hand():
    """Classes split at 1 MiB and 64 MiB (a size at a boundary belongs to the class above). < 1 MiB: ratios 2 and
    ½ → |log| both ln 2: GM |error| = 2 − 1 = 100 %, bias e^0 − 1 = 0, worst 100 %. 1–64 MiB: 1.1 and 1.21 →
    GM |error| = √(1.1 × 1.21) − 1 = 15.4 %, bias the same (both optimistic), worst 21 %. ≥ 64 MiB: one row at
    exactly 64 MiB, ratio 0.9: error 1/0.9 − 1 = 11.1 %, bias −10 %, worst 11.1 %."""
    rows = [
        _row(MIB - 1, 100, 200),
        _row(8, 100, 50),
        _row(MIB, 100, 110),
        _row(64 * MIB - 1, 100, 121),
        _row(64 * MIB, 100, 90),
    ]
    small, mid, large = class_errors(rows)
    assert (small["size_class"], small["rows"]) == ("< 1 MiB", 2)
    assert small["error_frac"] == pytest.approx(1.0) and small["bias_frac"] == pytest.approx(0.0, abs=1e-12)
    assert small["worst_frac"] == pytest.approx(1.0)
    assert (mid["size_class"], mid["rows"]) == ("1 MiB – 64 MiB", 2)
    assert mid["error_frac"] == pytest.approx(math.sqrt(1.1 * 1.21) - 1)
    assert mid["bias_frac"] == pytest.approx(math.sqrt(1.1 * 1.21) - 1) and mid["worst_frac"] == pytest.approx(0.21)
    assert (large["size_class"], large["rows"]) == ("≥ 64 MiB", 1)
    assert large["error_frac"] == pytest.approx(1 / 0.9 - 1) and large["bias_frac"] == pytest.approx(-0.1)
    assert large["worst_frac"] == pytest.approx(1 / 0.9 - 1)
    assert class_errors([_row(8, 1, 1)])[0]["size_class"] == "< 1 MiB"  # an empty class is left out
