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


def _csv_row(**changes) -> dict:
    row = {"source": "s", "system": "x", "arch": "hopper", "gpus_per_node": "8", "node_count": "2",
           "nvlink_gbyte_s": "370.8", "nics_per_node": "8", "nic_gbps": "400", "nvls": "1", "sharp": "0",
           "rail_optimized": "1", "collective": "all_reduce", "algorithm": "auto", "size_bytes": "1048576",
           "busbw_gbyte_s": "100", "time_us": ""}  # fmt: skip
    return {**row, **changes}


def test_a_data_row_reads_its_flags_and_its_time():
    """Flags are "1" or "0" per column; a row without a time has it from its busbw: all-reduce on 2 × 8 = 16 ranks
    moves 2 × 15/16 of 1 MiB per rank, at 100 GB/s busbw: 1,048,576 × 1.875 ÷ 100 ÷ 1,000 = 19.66 µs."""
    from topology.measurements import _fabric, measured_time_us

    f = _fabric(_csv_row())
    assert (f.nvls, f.sharp, f.rail_optimized, f.node_count, f.gpus_per_node) == (True, False, True, 2, 8)
    g = _fabric(_csv_row(nvls="0", sharp="1", rail_optimized="0"))
    assert (g.nvls, g.sharp, g.rail_optimized) == (False, True, False)
    assert measured_time_us(_csv_row()) == pytest.approx(1_048_576 * 1.875 / 100 / 1000)
    assert measured_time_us(_csv_row(time_us="12.5")) == 12.5


def test_the_report_lists_every_row_then_the_classes():
    """report(): a header, one line per row (system, collective, size, measured, model, unit, pick), a blank line,
    the class header and one line per size class."""
    from topology.measurements import report

    lines = report([_row(8, 100, 200), _row(64 * MIB, 100, 90)]).splitlines()
    assert len(lines) == 1 + 2 + 1 + 1 + 2
    assert lines[1].split()[:4] == ["sys", "all_reduce", "8", "100.00"] and lines[1].endswith("ring")
    assert lines[3] == "" and lines[4].startswith("size class")
    assert lines[5].startswith("< 1 MiB") and "100.0%" in lines[5] and lines[6].startswith("≥ 64 MiB")
