"""nccl-tests logs: parsing (topology/nccl_logs.py) and calibration (topology/calibration.py, cluster/calibrate.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cluster.calibrate import CalibrationInputError, calibrate
from cluster.validate import validate
from topology.calibration import Calibration, CalibrationError
from topology.collectives import Collective
from topology.nccl_logs import LogError, check_collective, parse_nccl_tests

LOGS = Path(__file__).parent / "data" / "nccl_logs"
A3 = (LOGS / "a3mega-h100-2x8-all_reduce.txt").read_text()  # lessizzmore/create-a3mega-ztan-fork@02dd8f4
SYNTH = (LOGS / "h100-1x8-all_gather-synthetic.txt").read_text()
# a GCP A3 Mega-like design: H100, 8 × 200G NICs per node, rail-optimized Ethernet (no SHARP)
A3_DESIGN = validate(
    {
        "gpu_count": 2048,
        "compute_fabric": {"nic_gbps": 200, "switch_model": "SN5600-400G", "topology": "rail_optimized"},
    }
)
H100_NODE = validate({"gpu_count": 1024})


def test_a_real_two_node_log_parses():
    log = parse_nccl_tests(A3)
    assert len(log.rows) == 31 and log.ranks == 16
    assert log.hosts == ("ztan-mig-235z", "ztan-mig-gq73") and log.gpu_names == ("NVIDIA H100 80GB HBM3",)
    assert log.header["minBytes"] == "8" and log.header["maxBytes"] == "8589934592" and log.avg_busbw_gbyte_s == 70.742
    row = next(r for r in log.rows if r.size_bytes == 2147483648)
    assert row.out_of_place == (12646.0, 169.81, 318.40) and row.in_place == (12641.0, 169.88, 318.52)
    assert row.redop == "sum" and row.root == -1 and row.count == 536870912
    best = dict((s, t) for s, t, _, _ in log.measured("best"))
    assert best[8] == 123.5 and best[2147483648] == 12641.0  # the faster of the two columns


def test_prefixes_versions_markers_and_layouts():
    log = parse_nccl_tests(SYNTH)
    assert log.collective == Collective.ALL_GATHER and log.binary == "all_gather_perf" and log.version == "2.17.6"
    assert log.ranks == 8 and len(log.rows) == 28
    legacy = "     1024   256  float  sum   21.50  0.05  0.08  0e+00   21.10  0.05  0.09  0e+00\n"  # no root column
    assert parse_nccl_tests(legacy).rows[0].out_of_place == (21.5, 0.05, 0.08)
    replay = "  1024   256  float  sum  -1   21.10  0.05  0.09  N/A\n"  # in-place only
    r = parse_nccl_tests(replay).rows[0]
    assert r.out_of_place is None and r.in_place == (21.1, 0.05, 0.09)
    with pytest.raises(LogError, match="no out-of-place") as exc:
        parse_nccl_tests(replay).measured("out_of_place")
    assert exc.value.field == "column"


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        ("", "log", "empty"),
        ("# nThread 1 nGpus 8\n# Avg bus bandwidth : 1\n", "log", "no result rows"),
        ("  1024  256  float  sum  -1  21.5  0.05\n", "log", "line 1"),
        ("#\n  1024  256  float  sum  -1  abc  0.05  0.08  0  21.1  0.05  0.09  0\n", "log", "line 2"),
        ("  1024  256 float sum -1 0 0.05 0.08 0 21.1 0.05 0.09 0\n", "log", "times must be > 0"),
        ("  2048  512 float sum -1 21 0.1 0.1 0 21 0.1 0.1 0\n  1024  256 float sum -1 21 0.1 0.1 0 21 0.1 0.1 0\n",
         "log", "sizes must increase"),
        ("# Collective test starting: sendrecv_perf\n  1024 256 float sum -1 21 0.1 0.1 0 21 0.1 0.1 0\n",
         "collective", "sendrecv_perf"),
        (A3 + A3, "log", "two nccl-tests runs"),
        ("x" * 2_000_001, "log", "characters"),
    ],
)  # fmt: skip
def test_malformed_logs_are_refused_with_the_line(text, field, words):
    with pytest.raises(LogError, match=words) as exc:
        parse_nccl_tests(text)
    assert exc.value.field == field


@pytest.mark.parametrize(
    ("text", "declared", "ranks", "words"),
    [
        (SYNTH, "all_reduce", 8, "all_gather_perf"),  # the marker says so
        (A3, "all_gather", 16, "redop 'sum'"),  # a reducing log declared as a gather
        (SYNTH.replace("# Collective test starting: all_gather_perf_mpi", "#"), "reduce_scatter", 8, "redop 'none'"),
        # no marker, no redop clue: busbw/algbw = 2(n−1)/n = 1.875 says all-reduce on 16, not 15/16 (all-gather)
        (A3.replace(" sum ", " none "), "all_to_all", 16, "busbw ÷ algbw is 1.875"),
        (A3, "all_reduce", 32, "another GPU count"),  # 2·31/32 = 1.9375 ≠ 1.875
    ],
)
def test_a_log_of_another_collective_than_declared_is_refused(text, declared, ranks, words):
    with pytest.raises(LogError, match=words) as exc:
        check_collective(parse_nccl_tests(text), Collective(declared), ranks)
    assert exc.value.field == "collective"


def test_calibration_recovers_the_parameters_a_synthetic_log_was_made_with():
    """synthesize.py wrote the log from the model with (0.8, 9 µs, 15 µs) and 3 % noise."""
    out = calibrate(H100_NODE, SYNTH, "all_gather", column="out_of_place")
    p = out["parameters"]
    assert p["bw_efficiency"] == pytest.approx(0.8, rel=0.05)
    assert p["latency_offset_us"] == pytest.approx(9.0, abs=2.0)
    assert out["error_after"] < 0.04 < out["error_before"]  # down to the noise
    assert out["fabric"]["node_count"] == 1 and out["fabric"]["gpus_per_node"] == 8
    assert out["provenance"]["ranks"] == 8 and out["provenance"]["binary"] == "all_gather_perf"
    assert len(out["provenance"]["sha256"]) == 64


def test_calibration_to_a_real_tcpx_log():
    """Two A3 Mega nodes over GPUDirect-TCPXO: ~123 µs at 8 B (model ≈ 25 µs on InfiniBand-class
    latencies, so the offset must be ≈ 100 µs), 338.8 GB/s busbw at 8 GiB (model 383 → e ≤ ~0.9)."""
    out = calibrate(A3_DESIGN, A3, "all_reduce", column="out_of_place")
    p = out["parameters"]
    assert 85 <= p["latency_offset_us"] <= 125
    assert 0.5 <= p["bw_efficiency"] <= 0.95
    assert out["error_before"] > 1.0 and out["error_after"] < 0.20
    assert out["fabric"]["node_count"] == 2  # the design evaluated at the log's 16 GPUs, not its 2,048
    small = out["rows"][0]
    assert small["size_bytes"] == 8 and abs(small["calibrated_time_us"] / small["measured_time_us"] - 1) < 0.15


@pytest.mark.parametrize(
    ("design", "text", "collective", "kwargs", "field", "words"),
    [
        (A3_DESIGN, A3, "all_gather", {}, "collective", "redop"),
        (A3_DESIGN, A3, "gossip", {}, "collective", "one of"),
        (A3_DESIGN, A3, "all_reduce", {"column": "median"}, "column", "one of"),
        (A3_DESIGN, A3, "all_reduce", {"gpus": 8}, "gpus", "16 ranks"),
        (validate({"gpu_count": 2048, "gpu_model": "A100-SXM4-80GB"}), A3, "all_reduce", {}, "log", "H100"),
        (A3_DESIGN, "\n".join(line for line in A3.splitlines() if "Rank" not in line), "all_reduce", {}, "gpus",
         "give the GPU count"),
        (A3_DESIGN, "\n".join(line for line in A3.splitlines() if "Rank" not in line), "all_reduce", {"gpus": 12},
         "log", "12 ranks do not fill whole 8-GPU nodes"),
        (validate({"gpu_count": 2048, "gpus_per_node": 4, "gpu_model": "H100-SXM5"}), A3.replace("Rank 15", "Rank 15"),
         "all_reduce", {"gpus": 16}, None, None),
    ],
)  # fmt: skip
def test_calibration_input_errors_name_the_field(design, text, collective, kwargs, field, words):
    if field is None:  # 16 ranks on 4-GPU nodes: 4 whole nodes, accepted
        assert calibrate(design, text, collective, **kwargs)["fabric"]["node_count"] == 4
        return
    with pytest.raises(CalibrationInputError) as exc:
        calibrate(design, text, collective, **kwargs)
    assert list(exc.value.errors) == [field] and words in exc.value.errors[field][0]


def test_a_calibration_that_does_not_converge_is_refused():
    """A log 20× faster than the fabric could carry: e would need to leave its bounds."""
    fast = []
    for line in A3.splitlines():
        f = line.split()
        if f and f[0].isdigit():
            t = float(f[5]) / 20
            line = f"{f[0]} {f[1]} float sum -1 {t:.2f} {f[6]} {f[7]} 0 {t:.2f} {f[10]} {f[11]} 0"
        fast.append(line)
    with pytest.raises(CalibrationInputError) as exc:
        calibrate(A3_DESIGN, "\n".join(fast), "all_reduce")
    assert "does not converge" in exc.value.errors["log"][0]
    # a curve that gets faster as messages grow has no calibration either
    backwards = [ln for ln in A3.splitlines() if not (ln.split() and ln.split()[0].isdigit())]
    t = 50_000.0
    for k in range(3, 34):
        backwards.append(f"{2**k} {2**k // 4} float sum -1 {t:.1f} 0.00 0.00 0 {t:.1f} 0.00 0.00 0")
        t /= 1.3
    with pytest.raises(CalibrationInputError, match="does not converge"):
        calibrate(A3_DESIGN, "\n".join(backwards), "all_reduce")


@pytest.mark.parametrize(
    "params",
    [{"bw_efficiency": 0}, {"bw_efficiency": 9}, {"latency_offset_us": float("nan")}, {"simple_latency_offset_us": -1},
     {"bw_efficiency": True}, {"speed": 1}],
)  # fmt: skip
def test_calibration_parameters_are_bounded(params):
    with pytest.raises(CalibrationError):
        Calibration.from_dict(params)


def test_every_row_layout_and_value_check():
    legacy_in_place = parse_nccl_tests("  1024  256  float  sum  21.10  0.05  0.09  N/A\n").rows[0]  # 8 fields
    assert legacy_in_place.out_of_place is None and legacy_in_place.in_place == (21.1, 0.05, 0.09)
    assert legacy_in_place.root == -1 and legacy_in_place.count == 256
    rooted = parse_nccl_tests("  4096  1024  float  none  0  30.0  0.14  0.14  0  29.0  0.14  0.14  0\n").rows[0]
    assert rooted.root == 0 and rooted.redop == "none" and rooted.out_of_place == (30.0, 0.14, 0.14)
    assert rooted.in_place == (29.0, 0.14, 0.14) and rooted.size_bytes == 4096
    for bad in (
        "  1024 256 float sum -1 21.5 0.05 0.08 abc 21.1 0.05 0.09 0\n",  # #wrong neither a count nor N/A
        "  1024 256 float sum -1 21.5 -0.05 0.08 0 21.1 0.05 0.09 0\n",  # negative bandwidth
        "  1024 256 float sum -1 inf 0.05 0.08 0 21.1 0.05 0.09 0\n",  # infinite time
        "  1024 256 float sum -1 21.5 0.05 0.08 0 21.1 0.05 0.09 0 7\n",  # 14 fields
    ):
        with pytest.raises(LogError) as exc:
            parse_nccl_tests(bad)
        assert exc.value.line == 1 and exc.value.field == "log"


def test_duplicate_sizes_mixed_types_and_the_size_limit():
    row = "  1024  256  float  sum  -1  21.5  0.05  0.08  0  21.1  0.05  0.09  0\n"
    with pytest.raises(LogError, match="sizes must increase"):
        parse_nccl_tests(row + row)
    with pytest.raises(LogError, match="different data types"):
        parse_nccl_tests(row + row.replace("1024  256  float", "2048  256  half"))
    padded = row + "#" * (2_000_000 - len(row) - 1) + "\n"
    assert len(padded) == 2_000_000 and len(parse_nccl_tests(padded).rows) == 1  # at the limit: read


def test_collective_checks_that_do_not_apply_are_skipped():
    """One rank: nothing to compare. Largest row under 1 GB/s: two printed decimals are too coarse to tell.
    Broadcast: busbw = algbw. The ratio test allows 2 % + 0.01 of print rounding."""
    tiny = parse_nccl_tests("  1024  256  float  sum  -1  21.5  0.05  0.08  0  21.1  0.05  0.09  0\n")
    check_collective(tiny, Collective.ALL_REDUCE, 1)
    check_collective(tiny, Collective.ALL_REDUCE, 64)  # 0.05 GB/s: not checked
    bcast = parse_nccl_tests("  8388608  2097152  float  none  0  100.0  83.89  83.89  0  99.0  84.74  84.74  0\n")
    check_collective(bcast, Collective.BROADCAST, 16)
    with pytest.raises(LogError, match=r"busbw ÷ algbw is 1\.000"):
        check_collective(bcast, Collective.ALL_GATHER, 16)  # would be 15/16 = 0.9375
    near = parse_nccl_tests("  8388608  2097152  float  sum  -1  100.0  80.00  141.50  0  99.0  80.00  141.50  0\n")
    check_collective(near, Collective.ALL_REDUCE, 8)  # 1.769 vs 1.75: within 2 % + 0.01
    far = parse_nccl_tests("  8388608  2097152  float  sum  -1  100.0  80.00  145.00  0  99.0  80.00  145.00  0\n")
    with pytest.raises(LogError, match="another collective or another GPU count"):
        check_collective(far, Collective.ALL_REDUCE, 8)  # 1.8125: 3.6 % off
