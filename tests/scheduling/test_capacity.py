"""The capacity answer (scheduling/capacity.py, cluster-designer capacity): every candidate run on the same jobs,
the smallest that meets the target picked, sizes that cannot run the workload said so."""

from __future__ import annotations

import json
import subprocess

import pytest

from scheduling import SchedulerInputError
from scheduling.capacity import Target, search
from tests.cluster.test_console import cluster_designer
from tests.conftest import EXAMPLES, ROOT


def _rep(p95, waiting=0, util=0.8):
    return {"utilization_frac": util, "classes": [{"name": "a", "wait_h_p95": p95, "waiting_at_end": waiting}]}


def test_search_picks_the_smallest_size_that_meets_the_target():
    reports = {8: {"error": "too small"}, 16: {"report": _rep(50)}, 24: {"report": _rep(20)},
               32: {"report": _rep(5, util=0.4)}}  # fmt: skip
    out = search([32, 8, 24, 16], lambda s: reports[s], Target("a", 24, 0.5))
    assert [r["size"] for r in out["rows"]] == [8, 16, 24, 32]
    assert [r["meets"] for r in out["rows"]] == [False, False, True, False]  # 32: utilization 40 % < 50 %
    assert out["answer_size"] == 24 and "24 is the smallest" in out["answer"]
    assert out["rows"][0]["why"] == "too small"


def test_jobs_still_waiting_fail_the_target_even_with_a_small_p95():
    """A p95 of the jobs that started hides those that never did."""
    met, why = Target("a", 24).check(_rep(1.0, waiting=3))
    assert not met and "still waiting" in why
    assert Target("a", 24).check(_rep(None, waiting=0))[0]  # no job of the class arrived: nothing waited
    out = search([8], lambda s: {"report": _rep(100)}, Target("a", 24))
    assert out["answer_size"] is None and "no candidate meets" in out["answer"]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"p95_wait_h": -1}, "target.p95_wait_h"),
        ({"p95_wait_h": float("nan")}, "target.p95_wait_h"),
        ({"p95_wait_h": 1, "min_utilization": 1.0}, "target.min_utilization"),
    ],
)
def test_bad_targets_name_the_field(kwargs, field):
    with pytest.raises(SchedulerInputError) as exc:
        Target("a", **kwargs)
    assert field in exc.value.errors


def test_capacity_cli_on_the_seed_design():
    """The seed workload made for the seed design's 1,600 batch GPUs, replayed on 1,600–3,200 GPUs: more GPUs
    → shorter fine-tuning waits and lower utilization; the TCO grows with size while the cost per GPU-hour
    falls (the fixed plant spreads over more GPUs); the answer is the smallest size under the target."""
    cmd = [cluster_designer(), "capacity", str(EXAMPLES / "seed-2000-gpu.yaml"), "--class", "fine-tuning",
           "--p95-wait-h", "100", "--gpus", "2000,2400,2800,3200", "--days", "120", "--format", "json"]  # fmt: skip
    out = json.loads(subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout)
    rows = out["rows"]
    utils = [r["report"]["utilization_frac"] for r in rows]
    assert utils == sorted(utils, reverse=True)
    tco = [float(r["tco_usd"]) for r in rows]
    per_h = [float(r["cost_per_gpu_hour_usd"]) for r in rows]
    assert tco == sorted(tco) and per_h == sorted(per_h, reverse=True)
    met = [r["size"] for r in rows if r["meets"]]
    assert out["answer_size"] == (met[0] if met else None)
    waits = [next(c for c in r["report"]["classes"] if c["name"] == "fine-tuning")["wait_h_p95"] or 0 for r in rows]
    assert waits[-1] <= waits[0]
    bad = subprocess.run([*cmd[:-2], "--gpus", "2001"], cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 1 and "--gpus: 1 to 24 GPU counts, each a whole number of 8-GPU nodes" in bad.stderr


def test_target_check_at_its_edges():
    """p95 exactly at the target meets it; a hair above does not; a p95 under the target with jobs waiting at the
    end does not; with no p95 but jobs waiting, not either; utilization exactly at the floor meets it, below not;
    a class not in the report cannot meet it. The why names the figures."""
    t = Target("a", 24, 0.5)
    assert t.check(_rep(24.0, util=0.5)) == (True, "a p95 wait 24.0 h ≤ 24 h")
    assert t.check(_rep(24.01)) == (False, "a p95 wait 24.0 h > 24 h")
    assert t.check(_rep(None, waiting=2)) == (False, "2 a job(s) still waiting at the end")
    assert t.check(_rep(30.0, waiting=2)) == (False, "a p95 wait 30.0 h > 24 h")  # the p95 already fails it
    assert t.check(_rep(24.0, waiting=1)) == (False, "1 a job(s) still waiting at the end")
    assert t.check(_rep(1.0, util=0.499)) == (False, "utilization 49.9% < 50%")
    assert t.check(_rep(None)) == (True, "a p95 wait 0.0 h ≤ 24 h")  # no job of the class arrived
    assert Target("b", 24).check(_rep(1.0)) == (False, "no class 'b'")


def test_target_edges_accepted():
    """A target of 0 h and a utilization floor of 0 are allowed; just below 1 too; a negative floor and a text
    wait are refused, both at once if both are wrong."""
    Target("a", 0, 0.0)
    Target("a", 0.0, 0.999)
    with pytest.raises(SchedulerInputError) as exc:
        Target("a", "24", -0.1)  # type: ignore[arg-type]
    assert set(exc.value.errors) == {"target.p95_wait_h", "target.min_utilization"}
    with pytest.raises(SchedulerInputError) as exc:
        Target("a", float("inf"))
    assert set(exc.value.errors) == {"target.p95_wait_h"}


def test_search_refuses_bad_sizes_and_says_why_none_meets():
    """No sizes, a size of 0 or a fraction: refused. Repeated sizes run once. When none meets, the answer quotes
    the largest size's reason."""
    for sizes in ([], [0, 8], [8, 1.5]):
        with pytest.raises(SchedulerInputError) as exc:
            search(sizes, lambda s: {"report": _rep(1)}, Target("a", 24))
        assert set(exc.value.errors) == {"sizes"}
    runs = []
    out = search([1, 16, 1], lambda s: runs.append(s) or {"report": _rep(30 if s == 16 else 100)}, Target("a", 24))
    assert runs == [1, 16]
    assert out["answer"] == "no candidate meets the target; the largest, 16: a p95 wait 30.0 h > 24 h"
    out = search([1, 2], lambda s: {"report": _rep(1)}, Target("a", 24))
    assert (
        out["answer_size"] == 1
        and out["answer"] == "1 is the smallest candidate that meets the target (a p95 wait 1.0 h ≤ 24 h)"
    )
