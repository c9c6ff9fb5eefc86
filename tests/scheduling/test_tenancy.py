"""Issue #16: the seed's tenancy calculators S1–S5 (scheduling/tenancy.py), goldens from seed-figures.md."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from scheduling import SchedulerInputError
from scheduling.tenancy import (
    Account,
    cost_allocation,
    drf_allocation,
    error_budget,
    fair_tree_shares,
    packing_efficiency,
)


def test_s1_drf_seed_example():
    """S1: ⟨9 GPU, 18 CPU⟩; A ⟨1 GPU, 4 CPU⟩, B ⟨3 GPU, 1 CPU⟩. By hand (ties to the first user):
    A 4/18, B 3/9, A 8/18, B 6/9, A 12/18 = 2/3; then A needs a GPU and none is left (3 + 6 = 9), B too.
    A 3 tasks (3 GPU, 12 CPU), B 2 (6 GPU, 2 CPU): both dominant shares 2/3, 18 − 14 = 4 CPUs left."""
    r = drf_allocation({"gpu": 9, "cpu": 18}, [("A", {"gpu": 1, "cpu": 4}, 1), ("B", {"gpu": 3, "cpu": 1}, 1)])
    assert r.tasks == {"A": 3, "B": 2}
    assert r.dominant_share == {"A": Fraction(2, 3), "B": Fraction(2, 3)}
    assert r.dominant_resource == {"A": "cpu", "B": "gpu"}
    assert r.left == (Fraction(0), Fraction(4))
    assert "left: 0 gpu, 4 cpu" in r.derivation


def test_weighted_drf():
    """10 GPUs, A and B need 1 GPU a task, B weighted 3. The lowest share ÷ weight goes next (ties to A), by
    hand as (A, B) tasks: (1,0) (1,1) (1,2) (1,3) — A 1/10 ties B 3/30 → A (2,3) — (2,4) (2,5) (2,6) — A 2/10
    ties B 6/30 → A (3,6) — B (3,7): 10 GPUs in use. A 3, B 7; without weights 5 and 5."""
    users = [("A", {"gpu": 1}, 1), ("B", {"gpu": 1}, 3)]
    assert drf_allocation({"gpu": 10}, users).tasks == {"A": 3, "B": 7}
    assert drf_allocation({"gpu": 10}, [(n, d, 1) for n, d, _ in users]).tasks == {"A": 5, "B": 5}
    assert "÷ weight" in drf_allocation({"gpu": 10}, users).derivation


def test_drf_refusals():
    with pytest.raises(SchedulerInputError) as e:
        drf_allocation({"gpu": 0}, [("A", {"gpu": 1}, 1)])
    assert "capacity.gpu" in e.value.errors
    with pytest.raises(SchedulerInputError) as e:
        drf_allocation({"gpu": 8}, [("A", {"tpu": 1}, 1)])
    assert "does not name" in e.value.errors["users.A"]
    with pytest.raises(SchedulerInputError) as e:
        drf_allocation({"gpu": 8}, [("A", {"gpu": 1}, 0)])
    assert "users.A.weight" in e.value.errors
    # the work bound is what fits together (the LP relaxation), not each resource alone: a vast CPU pool
    # beside 100 GPUs is 100 tasks, not 333,333
    many = [(f"u{i}", {"gpu": 1, "cpu": 3}, 1) for i in range(10)]
    assert sum(drf_allocation({"gpu": 100, "cpu": 10**6}, many).tasks.values()) == 100
    with pytest.raises(SchedulerInputError, match="tasks fit"):
        drf_allocation({"gpu": 10**9}, [("A", {"gpu": 1}, 1)])


def test_s2_fair_tree_two_equal_siblings_halve_each_level():
    """S2: with two equal siblings per level, depth d gets F / 2^d."""
    one = Decimal(1)
    a2 = Account("a2", one, (Account("a3", one), Account("b3", one)))
    tree = Account("root", one, (Account("a1", one, (a2, Account("b2", one))), Account("b1", one)))
    shares = fair_tree_shares(tree)
    assert shares["root/a1"][0] == Fraction(1, 2)
    assert shares["root/a1/a2"][0] == Fraction(1, 4)
    assert shares["root/a1/a2/a3"][0] == Fraction(1, 8)


def test_s2_is_a_special_case():
    """Three equal siblings give F/3 per level, and raw shares 40/35/25 split by their ratio."""
    tree = Account("root", Decimal(1), tuple(Account(n, Decimal(s)) for n, s in (("nlp", 40), ("cv", 35), ("rec", 25))))
    shares = fair_tree_shares(tree)
    assert shares["root/nlp"][0] == Fraction(40, 100) and shares["root/rec"][0] == Fraction(1, 4)
    assert shares["root/cv"][1] == "35 ÷ 100 (siblings' raw shares) × 1 (parent) = 7/20"
    three = fair_tree_shares(Account("r", Decimal(1), tuple(Account(f"x{i}", Decimal(1)) for i in range(3))))
    assert three["r/x0"][0] == Fraction(1, 3)


def test_s3_packing_efficiency():
    eff, repack, why = packing_efficiency(31, 64)  # 48.4 %: below half
    assert (eff, repack) == (Fraction(31, 64), True) and "repack" in why
    assert packing_efficiency(32, 64)[1] is False  # exactly 50 % is not below 50 %
    with pytest.raises(SchedulerInputError):
        packing_efficiency(65, 64)


def test_s4_error_budget():
    """S4: 99.9 % over 30 days → 0.001 × 30 × 1,440 = 43.2 min; 2 % errors ÷ 0.1 % = burn 20;
    page threshold 2 % of the budget in 1 h = 0.02 × 720 ÷ 1 = 14.4 → page."""
    b = error_budget(Decimal("99.9"), Decimal(30), Decimal(2))
    assert (b.budget_min, b.burn_rate, b.page_threshold, b.page) == (
        Decimal("43.2"),
        Decimal(20),
        Decimal("14.4"),
        True,
    )
    assert error_budget(Decimal("99.9"), Decimal(30), Decimal("1.4")).page is False  # burn 14 < 14.4
    with pytest.raises(SchedulerInputError) as e:
        error_budget(Decimal(100), Decimal(30), Decimal(2))
    assert "slo_pct" in e.value.errors


def test_s5_cost_allocation():
    total, why = cost_allocation(Decimal(12800), Decimal(8), Decimal(1024000), Decimal("0.05"))
    assert total == Decimal("153600.00")  # 102,400 + 51,200
    assert why.endswith("→ $153,600.00")
    with pytest.raises(SchedulerInputError):
        cost_allocation(Decimal(-1), Decimal(8), Decimal(0), Decimal(0))
