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


def _policy() -> CarbonPolicy:
    """Threshold 200 g/kWh, at most 20 h of deferral, 1 kW per GPU (made in each test, not at import: `make
    mutation` can then run CarbonPolicy's checks in memory)."""
    return CarbonPolicy(PROFILE, threshold_g_per_kwh=200.0, max_defer_h=20.0, kw_per_gpu=1.0)


def _jobs(submit, gpus, hours, prio=None):
    n = len(submit)
    return Jobs(np.array(submit, float), np.array(gpus, np.int64), np.array(hours, float), np.zeros(n, np.int64),
                np.array(prio or [1] * n, np.int64))  # fmt: skip


def test_emissions_integrate_the_hourly_profile_by_hand():
    """8 GPUs × 1 kW from 9:30 to 11:30: 0.5 h × 500 + 1.5 h × 100 = 400 g·h/kWh → 8 × 400 g = 3.2 kg;
    a whole day: 6 × 100 + 18 × 500 = 9,600 g·h/kWh; from hour 33.5 (day 2, 9:30) the same as 9.5."""
    t = emissions_t(_policy(), np.array([8, 1, 8]), np.array([9.5, 0.0, 33.5]), np.array([11.5, 24.0, 35.5]))
    assert t.tolist() == pytest.approx([8 * 400 / 1e6, 9600 / 1e6, 8 * 400 / 1e6])


def test_a_deferrable_job_waits_for_the_clean_hours_and_others_pass_it():
    """Submitted at 2:00 (dirty): the deferrable job starts at 10:00; a regular job submitted at 3:00 starts at
    once on the free node (the held job does not hold the queue). A deferrable job submitted at 20:00 with a
    5 h limit starts at its deadline, 1:00 next day, though that hour is dirty."""
    jobs = _jobs([2.0, 3.0, 20.0], [8, 8, 8], [2.0, 1.0, 1.0])
    res = simulate(jobs, node_count=2, gpus_per_node=8, horizon_h=100.0, carbon=_policy(),
                   deferrable=np.array([True, False, False]))  # fmt: skip
    assert res.start_h.tolist() == [10.0, 3.0, 20.0]
    short = CarbonPolicy(PROFILE, 200.0, 5.0, 1.0)
    res2 = simulate(jobs, node_count=2, gpus_per_node=8, horizon_h=100.0, carbon=short,
                    deferrable=np.array([False, False, True]))  # fmt: skip
    assert res2.start_h.tolist() == [2.0, 3.0, 25.0]
    plain = simulate(jobs, node_count=2, gpus_per_node=8, horizon_h=100.0)
    saved = emissions_t(_policy(), jobs.gpus, plain.start_h, plain.end_h) - emissions_t(
        _policy(), jobs.gpus, res.start_h, res.end_h
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


def test_the_last_hour_of_the_day_and_the_next_day():
    """Hour 23 has its own value and hour 24 is hour 0 again: with 23:00–24:00 at 50 g/kWh and the rest at
    100 g/kWh, 23:30 to 24:30 integrates 0.5 × 50 + 0.5 × 100 = 75 g·h/kWh, 23:00 to 23:45 0.75 × 50 = 37.5;
    23:30 is clean under a 60 g threshold, 24:30 is not, 47.5 h (23:30 of day 2) is again."""
    prof = tuple(50.0 if h == 23 else 100.0 for h in range(24))
    p = CarbonPolicy(prof, threshold_g_per_kwh=60.0, max_defer_h=0.0, kw_per_gpu=1.0)
    assert p.gram_hours_per_kwh(np.array([23.5, 23.0]), np.array([24.5, 23.75])).tolist() == [75.0, 37.5]
    assert [p.intensity_at(t) for t in (23.5, 24.5, 47.5, 0.0)] == [50.0, 100.0, 50.0, 100.0]
    assert [p.clean_now(t) for t in (23.5, 24.5, 47.5)] == [True, False, True]
    assert CarbonPolicy(prof, 50.0, 0.0, 1.0).clean_now(23.0)  # at the threshold is clean


def test_a_float_edge_below_zero_stays_in_the_last_hour():
    """divmod(−1e-20, 24) is (−1, 24.0) in floating point: the hour index 24 is clamped to hour 23's value, so the
    integral from −1e-20 to 0 is ~0, not an index error."""
    assert _policy().gram_hours_per_kwh(np.array([-1e-20]), np.array([0.0])).tolist() == pytest.approx([0.0])


def test_intensity_profiles_at_their_edges():
    """A zero hour (hydro at night) is a profile; a negative value, a text and NaN are not."""
    CarbonPolicy((0.0,) * 24, 0.0, 0.0, 1.0)
    for bad in (-1.0, "1", float("nan")):
        with pytest.raises(SchedulerInputError) as exc:
            CarbonPolicy((0.0,) * 23 + (bad,), 0.0, 0.0, 1.0)
        assert set(exc.value.errors) == {"carbon.intensity_g_per_kwh"}


def test_wait_added_is_with_deferral_minus_without():
    """The deferrable jobs' mean queue time with deferral minus without: jobs 0 and 2 deferrable, waits (2, 6) h
    without (mean 4 h) and (10, 6) h with (mean 8 h) → +4.0 h; the regular job's 50 h wait is not counted."""
    from types import SimpleNamespace

    from scheduling.carbon import carbon_effect

    jobs = _jobs([0.0, 0.0, 0.0], [8, 8, 8], [1.0, 1.0, 1.0])
    base = SimpleNamespace(segments=[], queue_h=np.array([2.0, 50.0, 6.0]))
    held = SimpleNamespace(segments=[], queue_h=np.array([10.0, 0.0, 6.0]))
    out = carbon_effect(_policy(), jobs, np.array([True, False, True]), base, held, 100.0)
    assert out["wait_added_h_mean"] == 4.0 and out["deferrable_jobs"] == 2


def test_policy_edges_accepted():
    """A threshold of 0, no deferral (0 h) up to 30 days (720 h), 10 kW per GPU at most: all allowed; 720.5 h,
    10.5 kW, a negative threshold and a flag for a number refused."""
    CarbonPolicy(PROFILE, 0, 0, 10)
    CarbonPolicy(PROFILE, 0.0, 720.0, 0.001)
    for kw, field in (({"max_defer_h": 720.5}, "max_defer_h"), ({"kw_per_gpu": 10.5}, "kw_per_gpu"),
                      ({"threshold_g_per_kwh": -1.0}, "threshold_g_per_kwh"), ({"max_defer_h": -0.5}, "max_defer_h"),
                      ({"max_defer_h": True}, "max_defer_h")):  # fmt: skip
        with pytest.raises(SchedulerInputError) as exc:
            CarbonPolicy(**{"intensity_g_per_kwh": PROFILE, "threshold_g_per_kwh": 200.0, "max_defer_h": 20.0,
                            "kw_per_gpu": 1.0, **kw})  # fmt: skip
        assert set(exc.value.errors) == {f"carbon.{field}"}


def test_carbon_effect_by_hand():
    """The deferral test's jobs on 2 nodes, the first one deferrable: without deferral it runs 2:00–4:00 at
    500 g/kWh = 8 GPU × 2 h × 500 = 8 kg; held to 10:00 it runs 10:00–12:00 at 100 g/kWh = 1.6 kg. The regular
    8-GPU 1 h job from 3:00 (1 h × 500 × 8 = 4 kg) and the one from 20:00 (4 kg) are the same in both. Totals:
    16 kg without, 9.6 kg with, 6.4 kg saved; the deferrable job waits 8 h instead of 0 (+8.0 h). A window ending
    at 20.5 h cuts the 20:00 job's run to half an hour (2 kg): 14 kg without, 7.6 kg with. No deferrable job: no
    wait added; no recorded run: 0 t."""
    from scheduling.carbon import carbon_effect

    jobs = _jobs([2.0, 3.0, 20.0], [8, 8, 8], [2.0, 1.0, 1.0])
    deferrable = np.array([True, False, False])
    base = simulate(jobs, node_count=2, gpus_per_node=8, horizon_h=100.0, record=True)
    held = simulate(jobs, node_count=2, gpus_per_node=8, horizon_h=100.0, carbon=_policy(), deferrable=deferrable,
                    record=True)  # fmt: skip
    out = carbon_effect(_policy(), jobs, deferrable, base, held, horizon_h=100.0)
    assert out["t_co2_without_deferral"] == pytest.approx(0.016) and out["t_co2"] == pytest.approx(0.0096)
    assert out["saved_t_co2"] == pytest.approx(0.0064)
    assert out["deferrable_t_co2"] == pytest.approx(0.0016) and out["deferrable_t_co2_without_deferral"] == 0.008
    assert out["deferrable_jobs"] == 1 and out["wait_added_h_mean"] == pytest.approx(8.0)
    assert out["derivation"].startswith("0.016 t CO₂ without deferral − 0.010 t with it = 0.006 t saved; 1 deferrable")
    assert "wait +8.0 h more on average (1.000 kW per GPU" in out["derivation"]
    cut = carbon_effect(_policy(), jobs, deferrable, base, held, horizon_h=20.5)
    assert (cut["t_co2_without_deferral"], cut["t_co2"]) == pytest.approx((0.014, 0.0076))
    none = carbon_effect(_policy(), jobs, np.zeros(3, bool), base, base, horizon_h=100.0)
    assert (none["deferrable_jobs"], none["wait_added_h_mean"], none["saved_t_co2"]) == (0, 0.0, 0.0)
    empty = base.__class__(**{**base.__dict__, "segments": []})
    out = carbon_effect(_policy(), jobs, deferrable, empty, empty, 100.0)
    assert [out[k] for k in ("t_co2", "t_co2_without_deferral", "deferrable_t_co2")] == [0.0, 0.0, 0.0]
    assert out["deferrable_t_co2_without_deferral"] == 0.0
