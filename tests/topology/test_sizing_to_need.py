"""Issue #34 item 1, "sizing to the need": leaves buy the uplinks their *used* down ports need.

Every golden is derived by hand in its docstring; the property test checks that the same bisection costs the
same switches and links whatever the scalable unit (SU) size.
"""

from __future__ import annotations

import collections
import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from topology import FabricRequest, Topology, plan_fabric
from topology.graph import fabric_edges, verify_plan
from topology.sizing import port_split

R = Topology.RAIL_OPTIMIZED


def _gb200(**kw) -> FabricRequest:
    return FabricRequest(
        topology=R,
        node_count=144,
        nics_per_node=4,
        nic_gbps=800,
        switch_radix=144,
        switch_port_gbps=800,
        scalable_unit_nodes=18,
        **kw,
    )


def test_gb200_nvl72_leaf_spine_links_equal_the_endpoints_at_one_to_one():
    """576 GPUs = 144 trays × 4 × 800G NICs = 576 endpoints on 4 rails; Q3400 144 × 800G at 1:1 splits
    72 down + 72 up. An SU of 18 trays is smaller than 72 down ports, so a leaf takes ⌊72 ÷ 18⌋ = 4 SUs of its
    rail (72 nodes): 144 ÷ 72 = 2 leaves per rail × 4 rails = 8 leaves, each 72 used down and
    ⌈72 × 800 ÷ 800⌉ = 72 up → 8 × 72 = 576 leaf–spine links (= the 576 endpoints at 1:1). Spines: a 144-port
    spine takes ⌊144 ÷ 8⌋ = 18 links per leaf (18 divides 72) → 72 ÷ 18 = 4 spines of 8 × 18 = 144 ports.
    (Before: 32 leaves × 72 uplinks = 2,304 links and 18 spines for 18 used down ports a leaf.)"""
    p = plan_fabric(_gb200())
    assert [(t.name, t.switch_count, t.down_ports_per_switch, t.up_ports_per_switch) for t in p.tiers] == [
        ("leaf", 8, 72, 72),
        ("spine", 4, 144, 0),
    ]
    assert p.switch_link_count == 576
    assert p.bisection_gbps == 576 * 800 / 2
    assert p.extras["scalable_unit_nodes"] == 18 and p.extras["leaf_block_nodes"] == 72
    assert "SUs of 18 nodes share leaves: a leaf takes 4 SUs of its rail" in p.tiers[0].derivation
    assert verify_plan(p).ok


def test_gb200_uplinks_for_the_full_leaf_is_an_explicit_option():
    """uplinks_for_full_leaf: one SU per leaf (18 used down) but the split's 72 uplinks each, as before:
    ⌈144 ÷ 18⌉ = 8 SUs × 4 rails = 32 leaves × 72 = 2,304 links; a spine takes ⌊144 ÷ 32⌋ = 4 links a leaf
    (4 divides 72) → 72 ÷ 4 = 18 spines; each leaf keeps 72 − 18 = 54 free down ports with uplinks."""
    p = plan_fabric(_gb200(uplinks_for_full_leaf=True))
    assert [(t.name, t.switch_count) for t in p.tiers] == [("leaf", 32), ("spine", 18)]
    assert p.switch_link_count == 2304
    assert "54 free down port(s) each already have their uplinks" in p.tiers[0].derivation
    assert verify_plan(p).ok


def test_1024_gpu_h100_needs_the_same_switches_at_su_8_16_32():
    """128 nodes × 8 × 400G rails on QM9700 (64 × 400G, 32 down + 32 up at 1:1). SU 8: a leaf takes
    ⌊32 ÷ 8⌋ = 4 SUs; SU 16: 2 SUs; SU 32: 1 SU — every leaf holds 32 nodes of its rail: 128 ÷ 32 = 4 leaves
    per rail × 8 = 32 leaves × 32 up = 1,024 links (= 1,024 endpoints at 1:1); ⌊64 ÷ 32⌋ = 2 links a leaf →
    32 ÷ 2 = 16 spines. (Before: SU 8 → 128 leaves, 64 spines, 4,096 links.)"""
    for su in (8, 16, 32):
        p = plan_fabric(FabricRequest(topology=R, node_count=128, scalable_unit_nodes=su))
        assert [(t.name, t.switch_count) for t in p.tiers] == [("leaf", 32), ("spine", 16)], su
        assert p.switch_link_count == 1024
        assert p.extras["scalable_unit_nodes"] == su


def test_an_su_larger_than_the_leaf_spreads_evenly_and_buys_uplinks_for_its_nodes():
    """SU of 40 nodes on 64-port leaves (32 down): ⌈40 ÷ 32⌉ = 2 leaves per SU and rail, ⌈40 ÷ 2⌉ = 20 nodes
    each → 20 down used, 20 up, 64 − 40 = 24 free ports a leaf. 80 nodes = 2 SUs × 2 leaves × 8 rails
    = 32 leaves × 20 = 640 links = 640 endpoints at 1:1; ⌊64 ÷ 32⌋ = 2 links a leaf, 20 ÷ 2 = 10 spines."""
    p = plan_fabric(FabricRequest(topology=R, node_count=80, scalable_unit_nodes=40))
    leaf = p.tiers[0]
    assert (leaf.switch_count, leaf.down_ports_per_switch, leaf.up_ports_per_switch) == (32, 20, 20)
    assert p.tiers[1].switch_count == 10 and p.switch_link_count == 640
    assert "24 free port(s) per leaf, 768 in all, are growth headroom" in leaf.derivation
    assert verify_plan(p).ok


@st.composite
def _same_bisection(draw):
    """A rail design and a second SU size with the same leaf fill: SU dividing, or a multiple of, the down ports."""
    nic, port = draw(st.sampled_from([(400.0, 400.0), (200.0, 400.0), (800.0, 800.0)]))
    radix = draw(st.sampled_from([8, 16, 32, 64, 144]))
    ratio = draw(st.sampled_from([1.0, 2.0, 3.0]))
    down = port_split(radix, nic, port, ratio).down
    sus = sorted({d for d in range(1, down + 1) if down % d == 0} | {down * 2, down * 3})
    su_a, su_b = draw(st.sampled_from(sus)), draw(st.sampled_from(sus))
    unit = math.lcm(su_a, su_b, down)
    nodes = unit * draw(st.integers(1, 3))
    rails = draw(st.sampled_from([1, 2, 4, 8]))
    base = {"nic_gbps": nic, "switch_port_gbps": port, "switch_radix": radix, "oversubscription": ratio}
    return base, rails, nodes, su_a, su_b, down


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_same_bisection())
def test_the_same_bisection_costs_the_same_whatever_the_su(case):
    """At equal ratio and endpoints, leaf–spine links = leaves × ⌈down × B_nic ÷ (ratio × B_port)⌉ = endpoints ×
    taper (every leaf full), and the switch counts do not depend on the SU size."""
    base, rails, nodes, su_a, su_b, down = case
    plans = [
        plan_fabric(FabricRequest(topology=R, node_count=nodes, nics_per_node=rails, scalable_unit_nodes=su, **base))
        for su in (su_a, su_b)
    ]
    a, b = plans
    assert a.tiers[0].switch_count == b.tiers[0].switch_count
    assert a.tiers[0].uplink_count == b.tiers[0].uplink_count
    if len(a.tiers) == len(b.tiers) == 2:  # (3 tiers: pods hold whole SUs, so the pod shapes may differ)
        assert [t.switch_count for t in a.tiers] == [t.switch_count for t in b.tiers]
        assert a.switch_link_count == b.switch_link_count and a.bisection_gbps == b.bisection_gbps
    up = math.ceil(down * base["nic_gbps"] / (base["oversubscription"] * base["switch_port_gbps"]) - 1e-9)
    leaves = nodes // down * rails
    assert a.tiers[0].switch_count == leaves
    assert a.tiers[0].uplink_count == leaves * up  # = endpoints × B_nic ÷ (ratio × B_port), rounded per leaf
    # the taper is met and no leaf has a whole uplink more than its ratio needs
    need_gbps = nodes * rails * base["nic_gbps"] / base["oversubscription"]
    assert (
        need_gbps <= a.tiers[0].uplink_count * base["switch_port_gbps"] < need_gbps + leaves * base["switch_port_gbps"]
    )


def test_the_16k_default_storage_fabric_is_minimal():
    """The 16k preset's storage plane: 2,048 compute × 2 + 48 storage servers × 2 = 4,192 access ports of 200G on
    64 × 200G switches at 1:1 (32 down + 32 up): ⌈4,192 ÷ 32⌉ = 131 full leaves > 64, so 3 tiers, pods of 32
    leaves: 4 full pods × 32 spines = 128 spines (32 down, 32 up), and a last pod of 131 − 128 = 3 leaves whose
    spines take m links a leaf, m the largest divisor of 32 with m × (3 + ⌈3 ÷ 1⌉) ≤ 64 → m = 8, 32 ÷ 8 = 4 spines
    (24 down, 24 up) — not 32 spines of 3 leaves each as before: 132 spines (the port bound is
    ⌈131 × 32 × 2 ÷ 64⌉ = 131). Cores: 32 groups; the fewest c with 4 × ⌈32 ÷ c⌉ + ⌈3 ÷ c⌉ ≤ 64 is 3 (44 + 1 = 45;
    c = 2 gives 66), 96 cores — ⌈(4 × 32 + 3) ÷ 64⌉ = 3 a group is the least a group can have. Before: 160
    spines and 128 cores at 40 of 64 ports."""
    p = plan_fabric(
        FabricRequest(
            topology=Topology.FAT_TREE, node_count=4192, nics_per_node=1, nic_gbps=200, switch_port_gbps=200, tiers=3
        )
    )
    leaf, spine, core = p.tiers
    assert (leaf.switch_count, spine.switch_count, core.switch_count) == (131, 132, 96)
    assert core.down_ports_per_switch == 45
    w = p.wiring
    assert (w.tail_aggs, w.tail_leaf_to_agg_links, w.tail_agg_up_per_group) == (4, 8, 3)
    # no spine serves fewer leaves than it could: a full pod's spines take all 32 of their down ports, a tail
    # spine takes every leaf of its pod (3), and no divisor m of 32 larger than 8 fits m × 6 ports in 64
    e = fabric_edges(p)
    spine_ids = np.flatnonzero(e.node_tier == 1)
    use = e.port_use()[spine_ids]
    assert sorted(collections.Counter(use.tolist()).items()) == [(48, 4), (64, 128)]
    assert verify_plan(p).ok
