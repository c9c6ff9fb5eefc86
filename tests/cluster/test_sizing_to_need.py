"""Issue #34 item 1 through the whole pipeline: the same bisection costs the same whatever the scalable unit, the
presets are sized to their nodes, and the growth option (uplinks for the whole leaf split) is priced."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from cluster.pipeline import plan_cluster
from cluster.validate import RequirementsError, validate, validate_flat
from designer.presets import preset_values


def _preset(key: str, **over: Any) -> dict[str, Any]:
    values = {k: v for k, v in preset_values()[key].items() if k != "_set"}
    values.update(over)
    return values


def test_1024_h100_costs_the_same_at_su_8_16_32():
    """128 nodes × 8 rails, QM9700 at 1:1: at SU 8, 16 and 32 every leaf holds 32 nodes of its rail (a leaf block
    of 4, 2 or 1 SUs): 32 leaves, 16 spines, 1,024 leaf–spine links (tests/topology/test_sizing_to_need.py), and
    the floor plan stands one 32-node leaf block a row whatever the SU, so the BOM is the same to ±1 % (in fact to
    the cent). Before: $22.4M at SU 8, $13.0M at 16, $8.4M at 32."""
    totals = []
    for su in (8, 16, 32):
        plan = plan_cluster(validate_flat(_preset("h100-8x400g", gpu_count=1024, scalable_unit_nodes=su)))
        assert [(t.name, t.switch_count) for t in plan.fabric.tiers] == [("leaf", 32), ("spine", 16)]
        totals.append(plan.bom.total_usd())
    assert max(totals) <= min(totals) * Decimal("1.01")


def test_gb200_preset_buys_576_leaf_spine_links_and_prices_the_growth_option():
    """GB200 NVL72 preset: 144 trays × 4 × 800G on Q3400 (72 down + 72 up): a leaf takes ⌊72 ÷ 18⌋ = 4 SUs of 18
    trays → 2 leaves a rail × 4 = 8 leaves × 72 up = 576 leaf–spine links at 1:1, 4 spines. The growth option
    (one SU a leaf, 72 uplinks each) has 32 leaves and 18 spines: +24 leaves, +14 spines, 2,304 − 576 = +1,728
    links, priced by the same BOM builder."""
    plan = plan_cluster(validate_flat(_preset("gb200-nvl72")))
    leaf, spine = plan.fabric.tiers
    assert (leaf.switch_count, leaf.uplink_count, spine.switch_count) == (8, 576, 4)
    growth = plan.result()["compute_fabric"]["growth_option"]
    assert growth["extra_switch_count"] == {"leaf": 24, "spine": 14}
    assert growth["extra_switch_link_count"] == 1728
    assert Decimal(growth["extra_usd"]) > 0
    assert Decimal(growth["growth_network_usd"]) - Decimal(growth["sized_network_usd"]) == Decimal(growth["extra_usd"])
    assert Decimal(growth["sized_network_usd"]) == plan.bom.total_usd()
    assert "+24 leaf, +14 spine switches, +1,728 switch links (576 → 2,304)" in growth["derivation"]
    # the sign before the dollar: "= +$13,202,905.00", never "= $+13,202,905.00"
    assert f"= +${Decimal(growth['extra_usd']):,.2f} for the growth headroom" in growth["derivation"]
    assert "$+" not in growth["derivation"]

    grown = plan_cluster(validate_flat(_preset("gb200-nvl72", uplinks_for_full_leaf=True)))
    assert [(t.name, t.switch_count) for t in grown.fabric.tiers] == [("leaf", 32), ("spine", 18)]
    assert grown.bom.total_usd() == Decimal(growth["growth_network_usd"])


def test_the_16k_preset_storage_plane_has_no_spare_spines():
    """16k preset storage: 2,048 × 2 + 48 × 2 = 4,192 ports of 200G → 131 leaves, 4 full pods × 32 spines + 4 spines
    for the last pod's 3 leaves = 132 spines, 32 groups × 3 = 96 cores (tests/topology/test_sizing_to_need.py
    derives each figure); before: 160 spines and 128 cores."""
    plan = plan_cluster(validate_flat(_preset("fat-tree-16k")))
    assert plan.storage.access_port_count == 4192
    assert [(t.name, t.switch_count) for t in plan.storage.fabric.tiers] == [
        ("leaf", 131),
        ("spine", 132),
        ("core", 96),
    ]
    assert plan.storage.switch_count == 359


def test_the_growth_option_is_a_yes_or_no_field():
    r = validate({"gpu_count": 16, "compute_fabric": {"uplinks_for_full_leaf": True}})
    assert r.compute_fabric.uplinks_for_full_leaf is True
    assert validate({"gpu_count": 16}).compute_fabric.uplinks_for_full_leaf is False
    with pytest.raises(RequirementsError) as exc:
        validate({"gpu_count": 16, "compute_fabric": {"uplinks_for_full_leaf": "maybe"}})
    assert exc.value.errors["compute_fabric.uplinks_for_full_leaf"] == ["'maybe' is not yes or no; use true or false"]
