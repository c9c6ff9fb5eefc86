"""Carbon-aware deferral (scheduling/carbon.py): a deferrable job waits for an hour under the threshold (or
its deadline); held jobs do not block the queue; emissions integrate the hourly profile exactly."""

from __future__ import annotations

import numpy as np
import pytest

from scheduling import SchedulerInputError
from scheduling.carbon import CarbonPolicy, emissions_t
from scheduling.simulator import simulate
from scheduling.workload import Jobs

# dirty (500 g/kWh) except hours 10–15 (100 g/kWh): a solar midday, repeating daily
PROFILE = tuple(100.0 if 10 <= h < 16 else 500.0 for h in range(24))
POLICY = CarbonPolicy(PROFILE, threshold_g_per_kwh=200.0, max_defer_h=20.0, kw_per_gpu=1.0)


def _jobs(submit, gpus, hours, prio=None):
    n = len(submit)
    return Jobs(np.array(submit, float), np.array(gpus, np.int64), np.array(hours, float), np.zeros(n, np.int64),
                np.array(prio or [1] * n, np.int64))  # fmt: skip


def test_emissions_integrate_the_hourly_profile_by_hand():
    """8 GPUs × 1 kW from 9:30 to 11:30: 0.5 h × 500 + 1.5 h × 100 = 400 g·h/kWh → 8 × 400 g = 3.2 kg;
    a whole day: 6 × 100 + 18 × 500 = 9,600 g·h/kWh; from hour 33.5 (day 2, 9:30) the same as 9.5."""
    t = emissions_t(POLICY, np.array([8, 1, 8]), np.array([9.5, 0.0, 33.5]), np.array([11.5, 24.0, 35.5]))
    assert t.tolist() == pytest.approx([8 * 400 / 1e6, 9600 / 1e6, 8 * 400 / 1e6])


def test_a_deferrable_job_waits_for_the_clean_hours_and_others_pass_it():
    """Submitted at 2:00 (dirty): the deferrable job starts at 10:00; a regular job submitted at 3:00 starts at
    once on the free node (the held job does not hold the queue). A deferrable job submitted at 20:00 with a
    5 h limit starts at its deadline, 1:00 next day, though that hour is dirty."""
    jobs = _jobs([2.0, 3.0, 20.0], [8, 8, 8], [2.0, 1.0, 1.0])
    res = simulate(jobs, node_count=2, gpus_per_node=8, horizon_h=100.0, carbon=POLICY,
                   deferrable=np.array([True, False, False]))  # fmt: skip
    assert res.start_h.tolist() == [10.0, 3.0, 20.0]
    short = CarbonPolicy(PROFILE, 200.0, 5.0, 1.0)
    res2 = simulate(jobs, node_count=2, gpus_per_node=8, horizon_h=100.0, carbon=short,
                    deferrable=np.array([False, False, True]))  # fmt: skip
    assert res2.start_h.tolist() == [2.0, 3.0, 25.0]
    plain = simulate(jobs, node_count=2, gpus_per_node=8, horizon_h=100.0)
    saved = emissions_t(POLICY, jobs.gpus, plain.start_h, plain.end_h) - emissions_t(
        POLICY, jobs.gpus, res.start_h, res.end_h
    )
    assert saved[0] == pytest.approx(8 * 2 * (500 - 100) / 1e6) and saved[1] == saved[2] == 0


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"intensity_g_per_kwh": (1.0,) * 23}, "carbon.intensity_g_per_kwh"),
     ({"intensity_g_per_kwh": (-1.0,) * 24}, "carbon.intensity_g_per_kwh"),
     ({"threshold_g_per_kwh": float("nan")}, "carbon.threshold_g_per_kwh"),
     ({"max_defer_h": 1e6}, "carbon.max_defer_h"), ({"kw_per_gpu": 0.0}, "carbon.kw_per_gpu"),
     ({"kw_per_gpu": "1"}, "carbon.kw_per_gpu"), ({"threshold_g_per_kwh": None}, "carbon.threshold_g_per_kwh")],
)  # fmt: skip
def test_bad_carbon_inputs_name_the_field(kwargs, field):
    base = {"intensity_g_per_kwh": PROFILE, "threshold_g_per_kwh": 200.0, "max_defer_h": 20.0, "kw_per_gpu": 1.0}
    with pytest.raises(SchedulerInputError) as exc:
        CarbonPolicy(**{**base, **kwargs})
    assert field in exc.value.errors
