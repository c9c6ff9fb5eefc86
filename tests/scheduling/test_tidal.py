"""Tidal sharing (scheduling/tidal.py): inference takes nodes at its hourly peak — free ones, then best-effort
training by preemption, never queued or critical jobs — and gives them back; node-hours balance."""

from __future__ import annotations

import numpy as np
import pytest

from scheduling import SchedulerInputError
from scheduling.simulator import report, simulate
from scheduling.tidal import TidalPolicy
from scheduling.workload import Jobs


def _peak() -> TidalPolicy:
    """2 nodes of 8 GPUs at 10:00–12:00 (made in each test, not at import: see tests/scheduling/test_carbon.py)."""
    return TidalPolicy(tuple(16.0 if h in (10, 11) else 0.0 for h in range(24)))


def _one(prio: int):
    return Jobs(np.array([0.0]), np.array([32]), np.array([20.0]), np.zeros(1, np.int64), np.array([prio]))


def test_inference_preempts_best_effort_training_at_its_peak_by_hand():
    """4 nodes; a best-effort job on all 4 from 0 for 20 h. At 10:00 inference wants 2 nodes: none free, so the
    job is preempted (checkpoint on the signal, 10 h of work kept); it needs all 4 nodes, so it waits until
    inference gives them back at 12:00, restarts (0.5 h) and ends at 12 + 0.5 + 10 = 22.5."""
    jobs = _one(0)
    res = simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=30.0, tidal=_peak(), restart_h=0.5)
    assert res.end_h[0] == pytest.approx(22.5) and res.preempted.tolist() == [1]
    f = res.failures
    assert f["inference_node_h"] == pytest.approx(2 * 2) and f["inference_unserved_node_h"] == 0
    rep = report(res, jobs, ["be"])
    assert rep["busy_node_h"] == pytest.approx(4 * (10 + 0.5 + 10))
    assert rep["busy_node_h"] + f["inference_node_h"] + rep["idle_node_h"] + rep["down_node_h"] == pytest.approx(
        4 * 30.0
    )


def test_queued_training_is_never_taken_and_inference_goes_unserved():
    """The same job in the queued class: inference finds no free node and may not preempt: 2 nodes × 2 h unserved."""
    res = simulate(_one(1), node_count=4, gpus_per_node=8, horizon_h=30.0, tidal=_peak())
    assert res.end_h[0] == pytest.approx(20.0) and res.preempted.tolist() == [0]
    assert res.failures["inference_node_h"] == 0 and res.failures["inference_unserved_node_h"] == pytest.approx(4.0)


def test_free_nodes_go_first_and_come_back():
    """A 2-node job leaves 2 nodes free: inference takes those, nothing is preempted; a job arriving at 10:30 for 2
    nodes waits until 12:00."""
    jobs = Jobs(np.array([0.0, 10.5]), np.array([16, 16]), np.array([20.0, 1.0]), np.zeros(2, np.int64),
                np.array([0, 1]))  # fmt: skip
    res = simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=30.0, tidal=_peak())
    assert res.preempted.tolist() == [0, 0] and res.start_h.tolist() == [0.0, 12.0]


def test_bad_demand_names_the_field():
    with pytest.raises(SchedulerInputError) as exc:
        TidalPolicy((1.0,) * 23)
    assert "tidal.demand_gpus" in exc.value.errors


def test_demand_by_the_hour_in_whole_nodes():
    """9 GPUs need 2 nodes of 8 (⌈9/8⌉), 8 need 1, 0 none; hour 23 has its own value and hour 24 is hour 0 again
    (the curve repeats daily)."""
    demand = tuple(9.0 if h == 23 else 8.0 if h == 0 else 0.0 for h in range(24))
    p = TidalPolicy(demand)
    assert [p.nodes_at(t, 8) for t in (23.5, 24.0, 47.9, 0.5, 1.0)] == [2, 1, 2, 1, 0]


def test_bad_demand_curves_are_refused():
    for demand in ((0.0,) * 23, (0.0,) * 23 + (-1.0,), (0.0,) * 23 + (float("inf"),), (0.0,) * 23 + ("8",)):
        with pytest.raises(SchedulerInputError) as exc:
            TidalPolicy(demand)  # type: ignore[arg-type]
        assert set(exc.value.errors) == {"tidal.demand_gpus"}
    TidalPolicy((0,) * 24)  # whole numbers and zeros are a curve
