"""Network-aware run times (scheduling/network.py): a job spread over leaf groups of a tapered fabric
pays its all-to-all share at the tapered bandwidth; inside one group, or on a non-blocking fabric, not."""

from __future__ import annotations

import numpy as np
import pytest

from scheduling import SchedulerInputError
from scheduling.network import check_network, job_spread_factors, spread_factor
from scheduling.simulator import report, simulate
from scheduling.workload import JobClass, Jobs, Profile
from topology import nccl_tuning as T

FABRIC = {"gpus_per_node": 8, "node_count": 64, "nvlink_gbyte_s": 370.8, "nics_per_node": 8, "nic_gbps": 400.0,
          "oversubscription": 3.0, "pods": 8, "rail_optimized": False}  # fmt: skip
S = 256 * 2**20


def test_spread_factor_by_hand():
    """4 nodes × 8 GPUs (n = 32) in groups of 2 nodes → 2 groups, taper max(1, 3 × 1/2) = 1.5. Pairwise
    all-to-all of S = 256 MiB per GPU (collectives.md): bandwidth term max(S·(4−1)/4 ÷ 48 GB/s,
    S·7/32 ÷ 370.8 GB/s) = 4,194.3 µs inside, × 1.5 = 6,291.5 µs across; latency = the network ring hop
    + 31 × 1 µs post overhead. With 40 % of the step in all-to-all: 0.6 + 0.4 × t_across ÷ t_inside."""
    lat = T.NET_LATENCY_US["ring"][2] + 31 * T.NET_OVERHEAD_US
    t_in = lat + S * 3 / 4 / 48_000.0
    t_out = lat + S * 3 / 4 / 48_000.0 * 1.5
    assert spread_factor(FABRIC, 4, 2, 0.4, S) == pytest.approx(0.6 + 0.4 * t_out / t_in, rel=1e-9)
    assert spread_factor({**FABRIC, "oversubscription": 1.0}, 4, 2, 0.4, S) == pytest.approx(1.0)
    assert spread_factor(FABRIC, 4, 2, 0.0, S) == 1.0  # no all-to-all: no slowdown
    # more groups spanned → closer to the full taper o = 3: (P − 1)/P → 1
    assert spread_factor(FABRIC, 16, 2, 0.4, S) > spread_factor(FABRIC, 4, 2, 0.4, S)


def test_a_job_spread_over_groups_runs_longer_in_the_simulation():
    """4 nodes in 2 groups of 2: a 3-node MoE job cannot fit in one group and always pays its factor; a
    2-node job that finds one group free does not. Time is whole seconds: the 3-node job's wall is 36,000 s ×
    1.1980347 = 43,129.25 → 43,129 s (round half to even), 7,129 s of it waiting on the network, on 3 nodes."""
    profile = Profile((JobClass("moe", 1.0, 16, 24, 8, 1.0, 10.0, comm_fraction=0.4),))
    jobs = Jobs(np.array([0.0, 20.0]), np.array([24, 16]), np.array([10.0, 10.0]), np.zeros(2, np.int64),
                np.ones(2, np.int64))  # fmt: skip
    factors = job_spread_factors(jobs, profile, FABRIC, gpus_per_node=8, leaf_nodes=2)
    res = simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=100.0, leaf_nodes=2, spread=factors)
    assert factors[0] > 1.0
    assert res.end_h[0] == 43_129 / 3600 == round(36_000 * factors[0]) / 3600
    assert res.end_h[1] == pytest.approx(30.0)  # one group: no taper
    rep = report(res, jobs, ["moe"])
    assert rep["failures"]["network_wait_node_h"] == 7_129 * 3 / 3600
    assert rep["failures"]["network_wait_node_h"] == pytest.approx(10.0 * (factors[0] - 1) * 3, abs=3 / 3600)


def test_bad_network_inputs_name_the_field():
    jobs = Jobs(np.array([0.0]), np.array([16]), np.array([1.0]), np.zeros(1, np.int64), np.ones(1, np.int64))
    for cls, field in ((JobClass("x", 1.0, 8, 16, 8, 1, 2, comm_fraction=1.0), "classes.0.comm_fraction"),
                       (JobClass("x", 1.0, 8, 16, 8, 1, 2, a2a_bytes=0), "classes.0.a2a_bytes")):  # fmt: skip
        with pytest.raises(SchedulerInputError) as exc:
            job_spread_factors(jobs, Profile((cls,)), FABRIC, gpus_per_node=8, leaf_nodes=2)
        assert field in exc.value.errors


def _a2a_us(nodes: int, taper: float, g: int = 8, nic_mbyte_us: float = 48_000.0) -> float:
    """Pairwise all-to-all by hand (collectives.md): network ring hop + (n − 1) × 1 µs post overhead, then the
    bytes that leave the node, S(nodes − 1)/nodes, over one NIC's 48 GB/s (400 Gb/s × 0.96) ÷ the taper (the
    NVLink term S(g − 1)/n ÷ 370.8 GB/s is the smaller one for every case here)."""
    n = nodes * g
    return T.NET_LATENCY_US["ring"][2] + (n - 1) * T.NET_OVERHEAD_US + S * (nodes - 1) / nodes / nic_mbyte_us * taper


@pytest.mark.parametrize(
    ("nodes", "leaf_nodes", "groups"),
    [
        (5, 2, 3),  # ⌈5/2⌉ = 3 groups: taper 3 × 2/3 = 2
        (6, 2, 3),  # ⌈6/2⌉ = 3 exactly
        (2, 2, 2),  # fits one group, but a spread job spans at least two: taper 3 × 1/2 = 1.5
        (2, 1, 2),
        (9, 2, 5),  # taper 3 × 4/5 = 2.4
    ],
)
def test_a_spread_job_spans_the_fewest_groups_that_hold_it_and_at_least_two(nodes, leaf_nodes, groups):
    taper = max(1.0, 3.0 * (groups - 1) / groups)
    want = 0.6 + 0.4 * _a2a_us(nodes, taper) / _a2a_us(nodes, 1.0)
    assert spread_factor(FABRIC, nodes, leaf_nodes, 0.4, S) == pytest.approx(want, rel=1e-9)


def test_no_factor_without_groups_or_a_second_node():
    """A leaf group of 0 nodes (no leaf tier known) or a one-node job: nothing crosses the tier above the leaves."""
    assert spread_factor(FABRIC, 4, 0, 0.4, S) == 1.0
    assert spread_factor(FABRIC, 4, -1, 0.4, S) == 1.0
    assert spread_factor(FABRIC, 1, 1, 0.4, S) == 1.0
    assert spread_factor(FABRIC, 0, 1, 0.4, S) == 1.0


def test_network_inputs_at_their_edges():
    """comm_fraction is a share from 0 (allowed) to below 1; a2a_bytes any finite number above 0. Each error is
    keyed by the class's own index."""
    ok = JobClass("ok", 1.0, 8, 16, 8, 1, 2, comm_fraction=0.0, a2a_bytes=1.0)
    check_network(Profile((ok, JobClass("hi", 1.0, 8, 16, 8, 1, 2, comm_fraction=0.999))))
    bad = {
        "classes.1.comm_fraction": JobClass("neg", 1.0, 8, 16, 8, 1, 2, comm_fraction=-0.01),
        "classes.1.a2a_bytes": JobClass("inf", 1.0, 8, 16, 8, 1, 2, a2a_bytes=float("inf")),
    }
    for key, cls in bad.items():
        with pytest.raises(SchedulerInputError) as exc:
            check_network(Profile((ok, cls)))
        assert set(exc.value.errors) == {key}
    with pytest.raises(SchedulerInputError) as exc:
        check_network(Profile((JobClass("nan", 1.0, 8, 16, 8, 1, 2, a2a_bytes=float("nan")),)))
    assert set(exc.value.errors) == {"classes.0.a2a_bytes"}


def test_factors_per_job_count_nodes_and_nvlink_domains():
    """Each job gets the factor of its (class, node count); a class with no all-to-all gets 1.

    8-GPU nodes, groups of 2 nodes: a 24-GPU MoE job is 3 nodes in 2 groups (taper 1.5), a 16-GPU one 2 nodes
    in 2 groups — but it would fit one group, so the scheduler pays it only when it spreads; the factor is still
    the 2-group one. A 1-node job: 1. The dense class (no all-to-all): 1 at any size.

    NVL72 (the collective fabric's node is a 72-GPU NVLink domain, the scheduler's a 4-GPU tray): a 144-GPU job
    is 36 trays = 2 domains; groups of 18 trays = 1 domain; 100 GPUs (25 trays) also need 2 domains; 72 GPUs
    one domain — inside NVLink, no factor. Groups of 27 trays hold 1 whole domain (⌊27 × 4 / 72⌋)."""
    moe = JobClass("moe", 1.0, 8, 24, 8, 1.0, 10.0, comm_fraction=0.4, a2a_bytes=S)
    dense = JobClass("dense", 1.0, 8, 24, 8, 1.0, 10.0)
    profile = Profile((moe, dense))
    gpus = np.array([24, 16, 8, 24, 16, 12])
    cls = np.array([0, 0, 0, 1, 1, 0])
    jobs = Jobs(np.zeros(6), gpus, np.ones(6), cls, np.ones(6, np.int64))
    got = job_spread_factors(jobs, profile, FABRIC, gpus_per_node=8, leaf_nodes=2)
    f3 = 0.6 + 0.4 * _a2a_us(3, 1.5) / _a2a_us(3, 1.0)
    f2 = 0.6 + 0.4 * _a2a_us(2, 1.5) / _a2a_us(2, 1.0)
    assert got.tolist() == pytest.approx([f3, f2, 1.0, 1.0, 1.0, f2], rel=1e-9)  # 12 GPUs: ⌈12/8⌉ = 2 nodes

    nvl = {**FABRIC, "gpus_per_node": 72, "nics_per_node": 72}
    gpus = np.array([144, 100, 72, 4])
    jobs = Jobs(np.zeros(4), gpus, np.ones(4), np.zeros(4, np.int64), np.ones(4, np.int64))
    got = job_spread_factors(jobs, Profile((moe,)), nvl, gpus_per_node=4, leaf_nodes=18)
    two_domains = 0.6 + 0.4 * _a2a_us(2, 1.5, g=72) / _a2a_us(2, 1.0, g=72)
    assert got.tolist() == pytest.approx([two_domains, two_domains, 1.0, 1.0], rel=1e-9)
    # a leaf group of 9 trays is half a domain: the group is taken as one domain (a 144-GPU job still spans 2)
    got = job_spread_factors(jobs, Profile((moe,)), nvl, gpus_per_node=4, leaf_nodes=9)
    assert got.tolist()[0] == pytest.approx(two_domains, rel=1e-9)
    # groups of 27 trays = 1.5 domains hold 1 whole domain: a 216-GPU job (3 domains) spans 3 groups, taper 2
    jobs = Jobs(np.zeros(1), np.array([216]), np.ones(1), np.zeros(1, np.int64), np.ones(1, np.int64))
    got = job_spread_factors(jobs, Profile((moe,)), nvl, gpus_per_node=4, leaf_nodes=27)
    assert got.tolist() == pytest.approx([0.6 + 0.4 * _a2a_us(3, 2.0, g=72) / _a2a_us(3, 1.0, g=72)], rel=1e-9)
