"""Published nccl-tests measurements as goldens (tests/topology/data/nccl_measurements.csv, source per row).

Nothing in the model is fitted to these rows: its constants are NCCL v2.30.7-1's (topology/nccl_tuning.py)
and its graph estimates are stated in topology.collectives.ASSUMPTIONS. The table is printed (pytest -s, and
`make bench`); the bounds below are the issue's goal for ≥ 64 MiB (≤ 10 %) and, for the smaller classes, the
error the model reaches today — a ceiling a wrong formula breaks, not a goal met (the note of issue #13 says
which part of the ramp is missing).
"""

from __future__ import annotations

import csv

import pytest

from topology.measurements import DATA, class_errors, compare, report


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
    # ceilings just above what the model reaches (6.4 %, 23.4 %, 84.1 % with the NVLS chunk pipeline; the
    # issue's goals are 10 % and 20 %): a change that makes any class worse fails here
    assert errors["≥ 64 MiB"] <= 0.07
    assert errors["1 MiB – 64 MiB"] <= 0.25
    assert errors["< 1 MiB"] <= 0.86


def test_nvls_chunk_pipeline_follows_the_h200_curve():
    """Azure ND H200 v5 (8 × H200, NCCL 2.20.5), all_reduce busbw, 4 MiB … 8 GiB: the NVLS rows within 10 %
    each (before the pipeline fill they were up to 45 % high at 8–16 MiB)."""
    rows = [r for r in compare() if "H200" in r.system and r.algorithm == "nvls/Simple"]
    assert len(rows) >= 10
    worst = max(abs(r.model / r.measured - 1) for r in rows)
    assert worst <= 0.10, worst


@pytest.mark.parametrize(
    ("system", "expected"),
    [
        ("8 x H100 NVLS all-reduce peak", 480.0),  # 8 heads × 60 GB/s (sm90SpeedArrayIntra[0])
        ("DGX A100 over 8 x 200G IB Ring", 192.0),  # 8 NICs × 24 GB/s
        ("8 x H100 all-gather 16 GB", 360.0),  # 6 channels × 60 GB/s, doubled to 12 × 30
    ],
)
def test_peaks_the_maintainers_quote(system, expected):
    """Hand derivations in the comments; the model's busbw within 1 % of the maintainer's figure."""
    row = next(r for r in compare() if r.system.startswith(system))
    assert row.model == pytest.approx(expected, rel=0.01)


def test_design_the_model_does_not_cover_is_refused_not_a_500():
    """A TPU-v4 (ICI) design on a switched fabric has no torus: the summary says why instead of raising."""
    import dataclasses

    from cluster.collectives import collectives_summary
    from cluster.requirements import Requirements

    r = Requirements()
    r = dataclasses.replace(r, cluster=dataclasses.replace(r.cluster, gpu_model="TPU-v4", gpus_per_node=1, gpu_count=8))
    out = collectives_summary(r)
    assert out["rows"] == [] and out["refused"].startswith("torus_dims: an ICI fabric is a torus")
