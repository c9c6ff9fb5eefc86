"""The tenancy calculators' edges and texts (scheduling/tenancy.py), each case worked by hand."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from scheduling import SchedulerInputError
from scheduling.tenancy import (
    MAX_DRF_TASKS,
    Account,
    cost_allocation,
    drf_allocation,
    error_budget,
    fair_tree_shares,
    packing_efficiency,
)

D = Decimal


def _refused(fn, *args, **kwargs) -> dict[str, str]:
    with pytest.raises(SchedulerInputError) as exc:
        fn(*args, **kwargs)
    return exc.value.errors


# --- DRF ---------------------------------------------------------------------------------------------------------


def test_drf_work_bound_is_inclusive():
    """1-GPU tasks on 10,000 GPUs: exactly the bound, filled; 10,001 GPUs: refused before any work."""
    assert MAX_DRF_TASKS == 10_000
    assert drf_allocation({"gpu": 10_000}, [("A", {"gpu": 1}, 1)]).tasks == {"A": 10_000}
    assert _refused(drf_allocation, {"gpu": 10_001}, [("A", {"gpu": 1}, 1)]) == {
        "capacity": "up to 10,001 tasks fit, more than 10,000: scale the units"
    }


def test_drf_edges_of_valid_input():
    """A capacity of 1 (or ½) is a capacity; a resource a user does not name is a demand of 0 (⟨1 GPU, 0 CPU⟩ on
    3 GPUs + 1 CPU: 3 tasks, the CPU untouched); a fractional demand is a demand."""
    assert drf_allocation({"gpu": 1}, [("A", {"gpu": 1}, 1)]).tasks == {"A": 1}
    assert drf_allocation({"gpu": "0.5"}, [("A", {"gpu": "0.25"}, 1)]).tasks == {"A": 2}
    r = drf_allocation({"gpu": 3, "cpu": 1}, [("A", {"gpu": 1}, 1)])
    assert (r.tasks, r.left) == ({"A": 3}, (Fraction(0), Fraction(1)))


@pytest.mark.parametrize("demand", [{"gpu": 0}, {"gpu": -1}, {"gpu": 1, "cpu": -1}, {}])
def test_drf_refuses_an_empty_or_negative_task(demand):
    assert _refused(drf_allocation, {"gpu": 8, "cpu": 8}, [("A", demand, 1)]) == {
        "users.A": "a task must need some of at least one resource, and no negative amount"
    }


def test_drf_reports_every_bad_user():
    """One user's unknown resource does not hide the next user's bad weight."""
    errors = _refused(drf_allocation, {"gpu": 8}, [("A", {"tpu": 1}, 1), ("B", {"gpu": 1}, 0)])
    assert set(errors) == {"users.A", "users.B.weight"}


def test_drf_a_user_whose_task_never_fits_gets_nothing():
    """A needs 20 GPUs of 9: no task, dominant share 0; B (1 GPU) takes all 9."""
    r = drf_allocation({"gpu": 9}, [("A", {"gpu": 20}, 1), ("B", {"gpu": 1}, 1)])
    assert r.tasks == {"A": 0, "B": 9}
    assert r.dominant_share == {"A": Fraction(0), "B": Fraction(1)}


def test_drf_goes_on_after_one_user_is_done():
    """10 GPUs + 10 CPUs; A ⟨6 GPU⟩ (share 6/10 a task), B ⟨1 CPU⟩. A first (tie to the first): 6/10; B climbs to
    6/10 (6 tasks); on the tie A goes next and its second task needs 12 GPUs > 10: A is done, but B goes on to
    all 10 CPUs. A 1, B 10."""
    r = drf_allocation({"gpu": 10, "cpu": 10}, [("A", {"gpu": 6}, 1), ("B", {"cpu": 1}, 1)])
    assert r.tasks == {"A": 1, "B": 10}
    assert r.left == (Fraction(4), Fraction(0))


def test_drf_dominant_resource_is_the_largest_share_of_capacity():
    """⟨2 GPU, 1 CPU⟩ on 10 GPUs + 1 CPU: 2/10 of the GPUs, all of the CPU: the CPU dominates (the larger
    amount, 2 GPUs, is the smaller share)."""
    r = drf_allocation({"gpu": 10, "cpu": 1}, [("A", {"gpu": 2, "cpu": 1}, 1)])
    assert r.dominant_resource == {"A": "cpu"} and r.tasks == {"A": 1}


def test_drf_derivation_text_names_weights_only_where_set():
    users = [("A", {"gpu": 1}, 1), ("B", {"gpu": 1}, 3)]
    assert drf_allocation({"gpu": 10}, users).derivation == (
        "progressive filling (DRF, Ghodsi et al. 2011): the lowest dominant share ÷ weight gets its next task while "
        "it fits; A: 3 × ⟨1 gpu⟩, dominant gpu 3/10; B: 7 × ⟨1 gpu⟩, dominant gpu 7/10 (weight 3); left: 0 gpu"
    )
    plain = drf_allocation({"gpu": 10}, [(n, d, 1) for n, d, _ in users]).derivation
    assert plain == (
        "progressive filling (DRF, Ghodsi et al. 2011): the lowest dominant share gets its next task while it fits; "
        "A: 5 × ⟨1 gpu⟩, dominant gpu 1/2; B: 5 × ⟨1 gpu⟩, dominant gpu 1/2; left: 0 gpu"
    )


# --- Fair tree, packing, error budget, cost -----------------------------------------------------------------------


def test_fair_tree_raw_shares_must_be_positive():
    """½ a raw share is a share (½ ÷ 1½ = 1/3); 0 is refused, naming the account's path."""
    tree = Account("r", D(1), (Account("a", D("0.5")), Account("b", D(1))))
    assert fair_tree_shares(tree)["r/a"][0] == Fraction(1, 3)
    assert _refused(fair_tree_shares, Account("r", D(1), (Account("a", D(0)), Account("b", D(1))))) == {
        "accounts.r/a": "raw shares must be above 0"
    }


def test_packing_efficiency_edges():
    """One slot is a cluster (1 of 1 = 100 %); 0 allocated is 0 %; every slot allocated is allowed; −1 is not."""
    assert packing_efficiency(1, 1)[:2] == (Fraction(1), False)
    assert packing_efficiency(0, 64)[2] == "0 allocated ÷ 64 slots = 0.0%; below 50 %: repack (seed S3)"
    assert packing_efficiency(64, 64)[0] == 1
    assert _refused(packing_efficiency, 0, 0) == {"total_gpu_slots": "must be at least 1"}
    assert _refused(packing_efficiency, -1, 64) == {"allocated_gpu_slots": "must be 0 to 64"}


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"slo_pct": D(0)}, "slo_pct"),
        ({"slo_pct": D(100)}, "slo_pct"),
        ({"window_days": D(0)}, "window_days"),
        ({"alert_window_h": D(0)}, "alert_window_h"),
        ({"error_rate_pct": D("-0.1")}, "error_rate_pct"),
        ({"error_rate_pct": D("100.1")}, "error_rate_pct"),
        ({"budget_spent_pct": D(0)}, "budget_spent_pct"),
        ({"budget_spent_pct": D("100.5")}, "budget_spent_pct"),
    ],
)
def test_error_budget_refuses_past_each_bound(kwargs, field):
    args = {"slo_pct": D("99.9"), "window_days": D(30), "error_rate_pct": D(2), **kwargs}
    assert set(_refused(error_budget, **args)) == {field}


def test_error_budget_accepts_each_bound():
    """SLO ½ % and 99½ %; windows of ½ day and ½ hour; error rates of 0, ½ and 100 %; a budget share of ½ % and
    100 % — all inside the bounds."""
    for kwargs in (
        {"slo_pct": D("0.5")},
        {"slo_pct": D("99.5")},
        {"window_days": D("0.5"), "alert_window_h": D("0.5")},
        {"error_rate_pct": D(0)},
        {"error_rate_pct": D("0.5")},
        {"error_rate_pct": D(100)},
        {"budget_spent_pct": D("0.5")},
        {"budget_spent_pct": D(100)},
    ):
        error_budget(**{"slo_pct": D("99.9"), "window_days": D(30), "error_rate_pct": D(2), **kwargs})


def test_error_budget_six_hour_window_pages_at_equality():
    """SRE Workbook's second window: 5 % of a 30-day budget in 6 h → 0.05 × 720 h ÷ 6 h = 6. An error rate of
    0.6 % against 0.1 % allowed burns at 6 = the threshold: page (≥)."""
    b = error_budget(D("99.9"), D(30), D("0.6"), alert_window_h=D(6), budget_spent_pct=D(5))
    assert (b.burn_rate, b.page_threshold, b.page) == (D(6), D(6), True)
    assert b.derivation == (
        "budget = (1 − 99.9 %) × 30 d × 1,440 min = 43.2 min; burn = 0.6 % ÷ 0.1 % = 6; page at 5 % of the budget "
        "in 6 h = 0.05 × 720 h ÷ 6 h = 6 → page"
    )
    assert error_budget(D("99.9"), D(30), D("0.59"), alert_window_h=D(6), budget_spent_pct=D(5)).page is False


def test_cost_allocation_of_nothing_is_zero():
    assert cost_allocation(D(0), D(0), D(0), D(0)) == (D(0), "0 GPU-h × $0 = $0 + 0 GB-h × $0 = $0 → $0")


def test_drf_work_bound_counts_whole_tasks_only():
    """A ⟨1 GPU⟩ and B ⟨2 GPU⟩ on 10,000 GPUs: at most 10,000 tasks fit (all A's). The bound is over task counts
    of 0 or more: a negative B would make room for 10,002 A's, which no schedule can run."""
    r = drf_allocation({"gpu": 10_000}, [("A", {"gpu": 1}, 1), ("B", {"gpu": 2}, 1)])
    assert r.tasks["A"] + 2 * r.tasks["B"] == 10_000
