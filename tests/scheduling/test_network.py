"""Network-aware run times (scheduling/network.py): a job spread over leaf groups of a tapered fabric
pays its all-to-all share at the tapered bandwidth; inside one group, or on a non-blocking fabric, not."""

from __future__ import annotations

import numpy as np
import pytest

from scheduling import SchedulerInputError
from scheduling.network import job_spread_factors, spread_factor
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
    2-node job that finds one group free does not."""
    profile = Profile((JobClass("moe", 1.0, 16, 24, 8, 1.0, 10.0, comm_fraction=0.4),))
    jobs = Jobs(np.array([0.0, 20.0]), np.array([24, 16]), np.array([10.0, 10.0]), np.zeros(2, np.int64),
                np.ones(2, np.int64))  # fmt: skip
    factors = job_spread_factors(jobs, profile, FABRIC, gpus_per_node=8, leaf_nodes=2)
    res = simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=100.0, leaf_nodes=2, spread=factors)
    assert factors[0] > 1.0
    assert res.end_h[0] == pytest.approx(10.0 * factors[0])
    assert res.end_h[1] == pytest.approx(30.0)  # one group: no taper
    rep = report(res, jobs, ["moe"])
    assert rep["failures"]["network_wait_node_h"] == pytest.approx(10.0 * (factors[0] - 1) * 3)


def test_bad_network_inputs_name_the_field():
    jobs = Jobs(np.array([0.0]), np.array([16]), np.array([1.0]), np.zeros(1, np.int64), np.ones(1, np.int64))
    for cls, field in ((JobClass("x", 1.0, 8, 16, 8, 1, 2, comm_fraction=1.0), "classes.0.comm_fraction"),
                       (JobClass("x", 1.0, 8, 16, 8, 1, 2, a2a_bytes=0), "classes.0.a2a_bytes")):  # fmt: skip
        with pytest.raises(SchedulerInputError) as exc:
            job_spread_factors(jobs, Profile((cls,)), FABRIC, gpus_per_node=8, leaf_nodes=2)
        assert field in exc.value.errors
