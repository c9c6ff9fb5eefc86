"""Published nccl-tests measurements as goldens (tests/topology/data/nccl_measurements.csv, source per row).

Nothing in the model is fitted to these rows: its constants are NCCL v2.30.7-1's (topology/nccl_tuning.py)
and its graph estimates are stated in topology.collectives.ASSUMPTIONS. The table is printed (pytest -s, and
`make bench`); the bounds below are the issue's goal for ≥ 64 MiB (≤ 10 %) and, for the smaller classes, the
error the bare model reaches today — a ceiling a wrong formula breaks (the model carries a per-platform host
enqueue + launch floor and a per-network-class efficiency, each row naming its class, but not the ring
pipeline's ramp; ASSUMPTIONS). The calibrated model, each row predicted from
its curve's other rows (topology.measurements.held_out), meets the goal in every class.
"""

from __future__ import annotations

import csv

import pytest

from topology.measurements import DATA, class_errors, compare, held_out, measured_time_us, report


def test_every_row_cites_a_public_source():
    with DATA.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) >= 80
    assert all(r["source"].startswith("https://github.com/") for r in rows)
    assert {r["collective"] for r in rows} == {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"}
    assert {r["arch"] for r in rows} == {"ampere", "hopper", "blackwell"}
    assert {r["node_count"] for r in rows} >= {"1", "2", "6"}


def test_error_per_size_class(capsys):
    rows = compare()
    with capsys.disabled():
        print("\n" + report(rows))
    errors = {c["size_class"]: c["error_frac"] for c in class_errors(rows)}
    # ceilings just above what the model reaches (5.2 %, 22.7 %, 17.1 % with NVLS bounded by the NVLink share,
    # the host floor and the network classes; before them 6.4 %, 23.4 %, 84.1 %; the goals are 10 % and
    # 20 %): a change that makes any class worse fails here
    assert errors["≥ 64 MiB"] <= 0.06
    assert errors["1 MiB – 64 MiB"] <= 0.24
    assert errors["< 1 MiB"] <= 0.18


def test_nvls_chunk_pipeline_follows_the_h200_curve():
    """Azure ND H200 v5 (8 × H200, NCCL 2.20.5), all_reduce busbw, 4 MiB … 8 GiB: the NVLS rows within 10 %
    each (before the pipeline fill they were up to 45 % high at 8–16 MiB)."""
    rows = [r for r in compare() if "H200" in r.system and r.algorithm == "nvls/Simple"]
    assert len(rows) >= 10
    worst = max(abs(r.model / r.measured - 1) for r in rows)
    assert worst <= 0.10, worst


@pytest.fixture(scope="module")
def held_out_rows():
    return held_out()


def test_calibrated_error_per_size_class_on_held_out_rows(held_out_rows, capsys):
    """The issue's goal (≤ 10 % on ≥ 64 MiB, ≤ 20 % below) for the model as a user runs it — calibrated on
    their cluster's log — with no row in the fit that predicts it: each row of a curve is predicted by
    fit_calibration on the curve's *other* rows (leave-one-out). The bare model misses a host/launch time
    per call (+5 µs GB200 … +25 µs A100 VM, ASSUMPTIONS) that only a calibration can know."""
    with capsys.disabled():
        print("\nheld out (calibrated on the other rows of each curve):\n" + report(held_out_rows))
    errors = {c["size_class"]: c for c in class_errors(held_out_rows)}
    assert errors["≥ 64 MiB"]["error_frac"] <= 0.10
    assert errors["1 MiB – 64 MiB"]["error_frac"] <= 0.20
    assert errors["< 1 MiB"]["error_frac"] <= 0.20
    assert sum(c["rows"] for c in errors.values()) == len(compare())  # nothing dropped


def test_every_curve_long_enough_is_calibrated_on_all_its_other_rows(held_out_rows):
    """The three Azure curves have 24 sizes each (1 KiB … 8 GiB): every row's calibration saw 23 rows; the
    maintainers' single figures have no curve to fit and stay bare."""
    calibrated = [r for r in held_out_rows if "cal. on" in r.algorithm]
    assert len(calibrated) == 3 * 24
    assert all("cal. on 23:" in r.algorithm for r in calibrated)
    systems = {r.system.split(" (")[0] for r in calibrated}
    assert systems == {"Azure ND H200 v5", "Azure ND A100 v4", "Azure ND GB200 v6"}
    assert all("bare:" in r.algorithm for r in held_out_rows if r not in calibrated)


def test_a_row_does_not_predict_itself(tmp_path):
    """Leakage check: multiplying one row's measured busbw by 10 leaves that row's held-out figure unchanged
    and moves the others' (they were fitted on it) — those above the cloud VM's 30 µs host floor (below it a
    call takes the host's time whatever the fit)."""
    with DATA.open(encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["system"].startswith("Azure ND H200")][::3]  # 8 sizes
    assert len(rows) == 8

    def write(path, rows):
        with path.open("w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        return path

    before = held_out(write(tmp_path / "a.csv", rows))
    skewed = [dict(r) for r in rows]
    skewed[4]["busbw_gbyte_s"] = str(float(skewed[4]["busbw_gbyte_s"]) * 10)
    after = held_out(write(tmp_path / "b.csv", skewed))
    assert after[4].model == pytest.approx(before[4].model, rel=1e-12)
    assert after[4].measured == pytest.approx(before[4].measured * 10)
    pairs = enumerate(zip(after, before, strict=True))
    others = [(a, b) for k, (a, b) in pairs if k != 4 and a.size_bytes >= 2**20]
    assert len(others) >= 3
    assert all(a.model != pytest.approx(b.model, rel=1e-6) for a, b in others)


def test_measured_time_of_a_busbw_row():
    """Azure H200, all_reduce 1 GiB at 467.58 GB/s busbw on 8 GPUs: algbw = 467.58 ÷ (2·7/8) = 267.19 GB/s,
    t = 1,073,741,824 B ÷ 267.19 GB/s = 4,018.6 µs (nccl-tests PERFORMANCE.md: busbw = algbw · 2(n−1)/n)."""
    row = {"time_us": "", "gpus_per_node": "8", "node_count": "1", "collective": "all_reduce",
           "size_bytes": "1073741824", "busbw_gbyte_s": "467.58"}  # fmt: skip
    assert measured_time_us(row) == pytest.approx(4018.6, abs=0.1)
    assert measured_time_us({**row, "time_us": "46.3"}) == 46.3


@pytest.mark.parametrize(
    ("system", "expected", "rel"),
    [
        # 8 heads × 370.8/9 × 0.85 × 7/8 × 2 = 490.3 busBw; at 8 GiB the chunk pipeline's fill leaves 487.7
        ("8 x H100 NVLS all-reduce peak", 480.0, 0.02),
        ("DGX A100 over 8 x 200G IB Ring", 192.0, 0.01),  # 8 NICs × 24 GB/s
        ("8 x H100 all-gather 16 GB", 360.0, 0.01),  # 6 channels × 60 GB/s, doubled to 12 × 30
    ],
)
def test_peaks_the_maintainers_quote(system, expected, rel):
    """Hand derivations in the comments; the model's busbw within 1–2 % of the maintainer's figure."""
    row = next(r for r in compare() if r.system.startswith(system))
    assert row.model == pytest.approx(expected, rel=rel)


def test_design_the_model_does_not_cover_is_refused_not_a_500():
    """A TPU-v4 (ICI) design on a switched fabric has no torus: the summary says why instead of raising."""
    import dataclasses

    from cluster.collectives import collectives_summary
    from cluster.requirements import Requirements

    r = Requirements()
    r = dataclasses.replace(r, cluster=dataclasses.replace(r.cluster, gpu_model="TPU-v4", gpus_per_node=1, gpu_count=8))
    out = collectives_summary(r)
    assert out["rows"] == [] and out["refused"].startswith("torus_dims: an ICI fabric is a torus")


KNOWN_MISSES = DATA.parent / "nccl_known_misses.csv"


def test_known_misses_are_reported_not_hidden(capsys):
    """One AWS EFA run the model does not reach yet (tests/topology/data/nccl_known_misses.csv, cited per row), kept
    out of the bounded set above and printed with its errors so the gap stays in sight — 2 × p4de (EFA v1,
    4 × 100G EFA):

    - small messages: the EFA class's network step is the 20 µs aws-ofi-nccl's tuner gives NCCL, which meets EFA v2
      (2 × p5, in the bounded set: 65 µs modelled at 1 KiB against 69 measured); EFA v1's plugin reports 75 µs
      (aws-ofi-nccl src/platform-aws.cpp), so p4de at 1 KiB models 65 µs against 165 measured;
    - nccl-tests' busbw at 1–2 GiB (76.9 GB/s) is above the 50 GB/s line rate — the 2-node tree effect
      (NVIDIA/nccl-tests#22) the model's ring and tree (≈ 33 GB/s) do not produce.
    When the model learns either, move the rows into the bounded set."""
    rows = compare(KNOWN_MISSES)
    with capsys.disabled():
        print("\nknown misses (not bounded):\n" + report(rows))
    assert len(rows) == 4 and all("p4de" in r.system and "EFA" in r.system for r in rows)
    small = [r for r in rows if r.size_bytes <= 1024]
    assert small and all(r.model < r.measured for r in small)  # the EFA v1 latency: the direction is pinned


def test_an_efa_v2_run_is_in_the_bounded_set():
    """2 × p5.48xlarge (8 × H100, 32 × 100G EFA), aws-samples/awsome-distributed-training nccl-tests README: the
    1 KiB all-reduce is the tree/LL latency with a 20 µs EFA network step (aws-ofi-nccl's tuner figure), within
    10 %; 1 GiB and 16 GiB within 7 % (EFA at 67 % of line rate, NVLS-tree)."""
    rows = [r for r in compare() if "p5.48xlarge" in r.system]
    assert len(rows) == 4
    by_size = {r.size_bytes: r for r in rows}
    assert by_size[1024].model == pytest.approx(by_size[1024].measured, rel=0.10)
    assert all(by_size[s].model == pytest.approx(by_size[s].measured, rel=0.07) for s in (2**30, 2**34))
