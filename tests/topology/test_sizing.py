"""The aggregate sizing formulas and the per-switch port split, pinned by hand-worked cases."""

from __future__ import annotations

import pytest

from topology.sizing import (
    largest_divisor_at_most,
    min_uplink_bandwidth_gbps,
    port_split,
    ports_for_bandwidth,
)
from topology.spec import FabricRequestError


def test_b_min_refuses_less_than_one_to_one():
    with pytest.raises(FabricRequestError):
        min_uplink_bandwidth_gbps(100, 400, 0.5)
    assert min_uplink_bandwidth_gbps(100, 400, 1) == 40_000  # 1:1 is allowed: 100 × 400 ÷ 1


def test_ports_for_an_exact_bandwidth_are_not_rounded_up_past_it():
    """16,384 × 400G at 1:1 = 6,553,600 Gbit/s ÷ 400 = 16,384 ports exactly; with 20 % headroom
    16,384 × 1.2 = 19,660.8 → 19,661. A whole 100 ports × 1.2 = 120 exactly stays 120."""
    budget = ports_for_bandwidth(6_553_600, 400)
    assert (budget.port_count, budget.port_count_with_headroom) == (16_384, 19_661)
    assert "rounding down" not in budget.derivation  # nothing to round
    assert ports_for_bandwidth(40_000, 400).port_count_with_headroom == 120


def test_rounding_note_and_headroom_in_the_derivation():
    """Seed F6: 546,133.3 Gbit/s ÷ 400 = 1,365.33 → 1,366; rounding down would leave 546,133.3 − 1,365 × 400
    = 133 Gbit/s short; 1,366 × 1.2 = 1,639.2 → 1,640."""
    budget = ports_for_bandwidth(2048 * 400 / 1.5, 400)
    assert "rounding down to 1,365 would fall short of the bandwidth by 133 Gbit/s" in budget.derivation
    assert "with 20% headroom ⌈1,366 × 1.2⌉ = 1,640 ports" in budget.derivation


def test_ports_for_bandwidth_refusals_and_limits():
    with pytest.raises(FabricRequestError):
        ports_for_bandwidth(1000, 0)
    assert ports_for_bandwidth(1000, 1).port_count == 1000  # a 1G port is a port
    with pytest.raises(FabricRequestError):
        ports_for_bandwidth(1000, 100, headroom_frac=-0.1)
    no_headroom = ports_for_bandwidth(1000, 100, headroom_frac=0)
    assert no_headroom.port_count == no_headroom.port_count_with_headroom == 10


@pytest.mark.parametrize(
    ("radix", "down_gbps", "up_gbps", "ratio", "down", "up"),
    [
        (64, 400, 400, 1, 32, 32),  # the classic k/2 + k/2
        (64, 400, 400, 3, 48, 16),  # 48 × 400 ÷ (16 × 400) = 3:1
        (4, 100, 100, 3, 3, 1),  # the largest down count: radix − 1 down, a single uplink
        (2, 100, 100, 1, 1, 1),  # the smallest switch: one down, one up
        (64, 400, 800, 1, 42, 21),  # 42 × 400 = 21 × 800; 43 down would need ⌈21.5⌉ = 22 up → 65 ports
    ],
)
def test_port_split(radix, down_gbps, up_gbps, ratio, down, up):
    split = port_split(radix, down_gbps, up_gbps, ratio)
    assert (split.down, split.up) == (down, up)
    assert split.oversubscription <= ratio


@pytest.mark.parametrize(("n", "limit", "best"), [(7, 3, 1), (12, 12, 12), (32, 5, 4), (72, 4, 4), (28, 16, 14)])
def test_largest_divisor_at_most(n, limit, best):
    assert largest_divisor_at_most(n, limit) == best
