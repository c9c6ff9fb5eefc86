"""bom.plan.Recent's budget: entries dropped oldest first past it, except the newest — a design at the request limit
(a link table of ≈ 460k rows against a 300k-row budget) keeps its one table for its next keystroke."""

from __future__ import annotations

from bom.plan import Recent


def test_the_newest_entry_stays_past_the_budget_and_the_oldest_go_first():
    memo = Recent(entries=4, budget=10)
    memo.put("a", None, "A", cost=4)
    memo.put("b", None, "B", cost=4)
    assert list(memo.items) == ["a", "b"]
    memo.put("c", None, "C", cost=4)  # 12 > 10: the oldest goes
    assert list(memo.items) == ["b", "c"]
    memo.put("big", None, "BIG", cost=50)  # past the budget alone: kept alone
    assert list(memo.items) == ["big"] and memo.get("big", None) == "BIG"
    memo.put("d", None, "D", cost=1)  # the big one is now the oldest: it goes
    assert list(memo.items) == ["d"]
    for k in "efgh":
        memo.put(k, None, k, cost=1)
    assert list(memo.items) == ["e", "f", "g", "h"]  # at most ``entries``
    memo.put(None, None, "never", cost=1)  # an inexact key is never cached
    assert list(memo.items) == ["e", "f", "g", "h"]
