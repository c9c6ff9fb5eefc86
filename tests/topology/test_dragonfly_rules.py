"""Dragonfly+ sizing with a global taper, by hand (Shpiner et al. 2017; seed §14.1.2).

16-port 400G routers, one 400G NIC per node. A leaf at 1:1 takes 8 endpoints down and 8 links up. A spine at
the 2:1 global taper may take down at most twice what it sends up: 10 down + 6 up (11 down would need 5.5 up);
so a group holds at most 10 leaves, and each spine uses ⌈10 ÷ 2⌉ = 5 of its 6 free ports as global links.
"""

from __future__ import annotations

import pytest

from topology import FabricRequest, FabricRequestError, Topology, plan_fabric
from topology.graph import verify_plan


def _plan(node_count: int, **kw):
    kw = {"global_oversubscription": 2.0, **kw}
    return plan_fabric(
        FabricRequest(topology=Topology.DRAGONFLY_PLUS, node_count=node_count, nics_per_node=1, switch_radix=16, **kw)
    )


def test_three_groups_at_a_2_to_1_global_taper():
    """Groups of 10 leaves × 8 = 80 endpoints; each leaf sends 1 link to each of 8 spines (⌊10/10⌋ = 1 per
    spine); a spine: 10 down, 5 global. 200 endpoints → ⌈200/80⌉ = 3 groups; at most 8 × 5 + 1 = 41 groups
    (3,280 endpoints). A group's 40 global ports give ⌊40 ÷ 2⌋ = 20 links to each other group: 3 pairs × 20 =
    60 global links; 30 leaves × 8 = 240 leaf–spine links; 300 switch links."""
    p = _plan(200)
    x = p.extras
    assert (x["group_count"], x["leaves_per_group"], x["spines_per_group"]) == (3, 10, 8)
    assert (x["global_links_per_group_pair"], x["global_link_count"], x["max_group_count"]) == (20, 60, 41)
    assert x["global_oversubscription_ratio"] == 2.0 and p.max_endpoint_count == 3280
    leaf, spine = p.tiers
    assert (leaf.switch_count, leaf.uplink_count, leaf.up_ports_used_total) == (30, 240, 240)
    assert (spine.switch_count, spine.down_ports_per_switch, spine.up_ports_per_switch) == (24, 10, 5)
    assert (spine.down_ports_used_total, spine.up_ports_used_total, spine.uplink_count) == (240, 120, 60)
    assert spine.oversubscription == 2.0
    assert p.switch_link_count == 300
    assert spine.derivation.endswith(
        "each spine 10 down, 5 global ports; a group's 40 global ports give ⌊40 ÷ 2⌋ = 20 link(s) to each other "
        "group (40 used)"
    )
    assert p.derivations["global_link_count"].startswith("3 × 2 ÷ 2 group pairs × 20 = 60")
    assert p.derivations["switch_link_count"] == "240 leaf–spine + 60 global = 300"
    assert p.derivations["max_endpoint_count"] == "8 spines × 5 global ports + 1 = 41 groups × 80 endpoints = 3,280"
    assert verify_plan(p).ok


def test_fewer_leaves_per_group_double_the_links_to_each_spine():
    """5 leaves per group: each leaf sends ⌊10/5⌋ = 2 links to each of 8/2 = 4 spines; a spine still 5 × 2 = 10
    down, 5 global. Groups of 40 → 5 groups; at most 4 × 5 + 1 = 21; ⌊20 ÷ 4⌋ = 5 links per pair, 10 pairs
    × 5 = 50 global links; 25 leaves × 8 = 200 leaf–spine links."""
    p = _plan(200, leaves_per_group=5)
    x = p.extras
    assert (x["group_count"], x["spines_per_group"], x["global_links_per_group_pair"]) == (5, 4, 5)
    assert (x["global_link_count"], x["max_group_count"], p.switch_link_count) == (50, 21, 250)
    assert p.tiers[1].derivation.startswith("4 spines per group (8 leaf uplinks ÷ 2 per spine) × 5 group(s) = 20")
    assert verify_plan(p).ok


def test_a_group_takes_at_most_what_a_spine_reaches():
    assert _plan(200, leaves_per_group=10).extras["leaves_per_group"] == 10
    with pytest.raises(FabricRequestError) as exc:
        _plan(200, leaves_per_group=11)
    assert exc.value.errors == {
        "leaves_per_group": "a 16-port spine at 2:1 global taper takes at most 10 leaves down; got 11"
    }


def test_the_largest_fabric_and_one_endpoint_more():
    assert _plan(3280).extras["group_count"] == 41  # 41 × 80, every global port used once per pair
    with pytest.raises(FabricRequestError) as exc:
        _plan(3281)
    assert exc.value.errors == {
        "node_count": "3,281 endpoints need 42 groups of 80, but 8 spines × 5 global ports reach at most 41 groups "
        "(3,280 endpoints); use a larger radix or more global taper"
    }


def test_one_group_has_no_global_links():
    """60 endpoints fit one group: no pairs, no global links; the spines' global ports stay free. Sized to the
    need (issue #34): the group takes ⌈60 ÷ 8⌉ = 8 leaves (not the 10 a spine could take), ⌈60 ÷ 8⌉ = 8
    endpoints a leaf and 8 uplinks at 1:1, one to each of 8 spines (⌊10 ÷ 8⌋ = 1 link a spine); a spine has
    8 down and ⌈8 ÷ 2⌉ = 4 global ports, 8 × 4 = 32 in the group. Links: 8 leaves × 8 = 64 (before: 80)."""
    p = _plan(60)
    assert (p.extras["global_link_count"], p.extras["global_links_per_group_pair"]) == (0, 0)
    assert p.tiers[1].derivation.endswith("each spine 8 down, 4 global ports; one group: its 32 global ports stay free")
    assert p.tiers[0].derivation.startswith("groups of 8 leaves × 8 endpoints = 64; ⌈60 ÷ 64⌉ = 1 group(s)")
    assert p.switch_link_count == 64 and verify_plan(p).ok


def test_two_groups_take_every_global_port_between_them():
    """100 endpoints → 2 groups: the one pair takes all ⌊40 ÷ 1⌋ = 40 global ports of each group."""
    p = _plan(100)
    assert (p.extras["global_links_per_group_pair"], p.extras["global_link_count"]) == (40, 40)
    assert p.switch_link_count == 20 * 8 + 40 and verify_plan(p).ok
    assert "a group's 40 global ports give ⌊40 ÷ 1⌋ = 40 link(s) to each other group (40 used)" in p.tiers[1].derivation


def test_a_taper_that_does_not_divide():
    """2.5:1 and 7 leaves per group: a spine may take 11 down (11 ≤ 2.5 × 5); each leaf sends ⌊11/7⌋ = 1 link to
    each spine, so a spine has 7 down and ⌈7 ÷ 2.5⌉ = 3 global ports: 7/3 = 2.333333:1 at six places."""
    p = _plan(100, leaves_per_group=7, global_oversubscription=2.5)
    assert p.tiers[1].oversubscription == 7 / 3
    assert p.extras["global_oversubscription_ratio"] == 2.333333
