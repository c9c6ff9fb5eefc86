"""Workload generation's bounds and distributions (scheduling/workload.py), each worked by hand.

A one-class profile of 1-GPU, 1-hour jobs keeps the arithmetic visible: on C GPUs at offered load ρ the
arrival rate is λ = ρ × C × 1 ÷ (1 GPU × 1 h) = ρC jobs an hour."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scheduling import SchedulerInputError
from scheduling.workload import JobClass, Profile, generate_jobs, parse_classes

ONE = Profile((JobClass("one", 1.0, 1, 1, 1, 1.0, 1.0, "queued"),))


def _refused(**kw) -> dict[str, str]:
    with pytest.raises(SchedulerInputError) as exc:
        generate_jobs(**{"seed": 1, **kw})
    return exc.value.errors


def test_mean_hours_per_duration_law():
    """Log-uniform on [a, b]: (b − a) ÷ ln(b/a) (1 to e h: e − 1), and a when a = b; uniform and exponential:
    (a + b) ÷ 2."""
    assert JobClass("x", 1, 1, 1, 1, 1.0, math.e, "queued").mean_hours() == pytest.approx(math.e - 1)
    assert JobClass("x", 1, 1, 1, 1, 5.0, 5.0, "queued").mean_hours() == 5.0
    assert JobClass("x", 1, 1, 1, 1, 1.0, 3.0, "queued", duration="uniform").mean_hours() == 2.0
    assert JobClass("x", 1, 1, 1, 1, 1.0, 3.0, "queued", duration="exponential").mean_hours() == 2.0


def test_too_many_jobs_is_refused_with_the_count():
    """1,000 GPUs at load 1: 1,000 jobs an hour; 5,000.001 h → 5,000,001 jobs, one over the 5,000,000 a run may
    make (5,000.001 h = 208 days)."""
    assert _refused(profile=ONE, cluster_gpus=1000, load=1.0, horizon_h=5000.001) == {
        "horizon_h": "about 5,000,001 jobs in 208 days (the expected count); a run makes at most 5,000,000 "
        "(simulate fewer days)"
    }


def test_jobs_per_day_bounds():
    """Jobs a day: above 0, at most 10⁶, a number. 10⁶ a day of 1-GPU hours (41,667 an hour) on 25,000 GPUs is
    load 1.67: accepted, ≈ 41,667 jobs in an hour. On 1 GPU, 48 a day is load 2 (accepted), 48.001 is not."""
    say = "above 0 and at most 1,000,000, got "
    for bad, shown in ((0, "0"), (1e6 + 1, "1000001.0"), ("5", "'5'")):
        assert _refused(profile=ONE, cluster_gpus=25_000, load=1.0, horizon_h=1.0, jobs_per_day=bad) == {
            "jobs_per_day": say + shown
        }
    jobs = generate_jobs(ONE, cluster_gpus=25_000, load=1.0, horizon_h=1.0, seed=1, jobs_per_day=1e6)
    assert abs(len(jobs) - 41_667) < 5 * math.sqrt(41_667)  # Poisson: within 5 σ
    assert len(generate_jobs(ONE, cluster_gpus=1, load=1.0, horizon_h=24.0, seed=1, jobs_per_day=48)) > 0
    assert len(generate_jobs(ONE, cluster_gpus=1, load=1.0, horizon_h=24.0, seed=1, jobs_per_day=0.5)) >= 0
    assert _refused(profile=ONE, cluster_gpus=1, load=1.0, horizon_h=24.0, jobs_per_day=48.001) == {
        "jobs_per_day": "48.001 jobs a day offer 200% of the 1 GPUs; at most 200 %"
    }


def test_load_and_horizon_bounds():
    """Load in (0, 2]; horizon in (0, 10 years = 87,600 h]. At load 0.001 on 1 GPU a 10-year run is ≈ 88 jobs."""
    for load in (0.5, 2.0):
        generate_jobs(ONE, cluster_gpus=10, load=load, horizon_h=10.0, seed=1)
    for load in (0.0, 2.01):
        assert _refused(profile=ONE, cluster_gpus=10, load=load, horizon_h=10.0) == {
            "load": f"offered load above 0 and at most 2 (200 %), got {load}"
        }
    for horizon in (0.5, 87_600.0):
        generate_jobs(ONE, cluster_gpus=1, load=0.001, horizon_h=horizon, seed=1)
    for horizon in (0.0, 87_600.1):
        assert _refused(profile=ONE, cluster_gpus=1, load=0.001, horizon_h=horizon) == {
            "horizon_h": "above 0 and at most 10 years"
        }


def test_submissions_cover_the_whole_horizon():
    """1,000 jobs an hour for 10 h: submit times sorted in [0, 10), the first within the first minutes."""
    jobs = generate_jobs(ONE, cluster_gpus=1000, load=1.0, horizon_h=10.0, seed=2)
    assert np.all(np.diff(jobs.submit_h) >= 0)
    assert 0 <= jobs.submit_h[0] < 0.01 and 9.99 < jobs.submit_h[-1] < 10


def test_duration_laws_are_sampled_as_named():
    """≈ 10,000 jobs each: uniform on [1, 3] h has mean 2; log-uniform 2 ÷ ln 3 = 1.820 (σ of the mean ≈ 0.006)."""
    for duration, mean in (("uniform", 2.0), ("log_uniform", 2 / math.log(3))):
        c = JobClass("x", 1.0, 1, 1, 1, 1.0, 3.0, "queued", duration=duration)
        jobs = generate_jobs(Profile((c,)), cluster_gpus=2000, load=1.0, horizon_h=10.0, seed=3)
        assert len(jobs) > 9000
        assert jobs.hours.mean() == pytest.approx(mean, abs=0.03)
        assert jobs.hours.min() >= 1.0 and jobs.hours.max() <= 3.0


def test_at_most_64_classes():
    line = "c{i},{share},1,1,1,1,1,queued"
    assert len(parse_classes("\n".join(line.format(i=i, share=100 / 64) for i in range(64)))) == 64
    with pytest.raises(SchedulerInputError) as exc:
        parse_classes("\n".join(line.format(i=i, share=100 / 65) for i in range(65)))
    assert exc.value.errors == {"classes": "65 classes; at most 64"}
