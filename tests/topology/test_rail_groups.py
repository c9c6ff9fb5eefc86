"""Rail groups and NIC planes: the figures and the derivation text an architect audits.

Hand derivations in each test; the published-table goldens are in test_reference_architectures.py.
"""

from __future__ import annotations

import pytest

from topology import FabricRequest, FabricRequestError, Topology, plan_fabric

R = Topology.RAIL_OPTIMIZED


def test_twin_plane_figures_and_derivations():
    """512 nodes × 8 × 800G NICs as 2 × 400G planes on 128-port 400G switches: per plane 8 rails × 512 nodes
    = 4,096 endpoints, SU = 64 nodes (64 down + 64 up) → 8 leaves per rail, 64 leaves and 4,096 uplinks per
    plane, 32 spines; × 2 planes = 128 leaves, 64 spines, 8,192 switch links; bisection 2 × 2,048 × 400G
    = 1,638,400 Gbit/s (= 8,192 × 400G ÷ 2)."""
    p = plan_fabric(
        FabricRequest(topology=R, node_count=512, nic_gbps=800, nic_planes=2, switch_radix=128, switch_port_gbps=400)
    )
    assert p.extras == {
        "oversubscription_end_to_end_ratio": 1.0,
        "rail_count": 16,
        "rail_groups": 1,
        "rails_per_group": 8,
        "nic_planes": 2,
        "scalable_unit_nodes": 64,
        "leaf_block_nodes": 64,  # the SU is the leaf's 64 down ports: one SU per leaf
        "leaves_per_rail": 8,
    }
    d = p.derivations
    assert d["rail_count"] == "one rail per NIC port: 8 NICs per node × 2 planes = 16 rails"
    assert d["endpoint_count"] == "512 nodes × 8 NICs × 2 planes = 8,192 endpoints"
    assert d["nic_planes"].startswith("each 800G NIC is used as 2 ports of 400G, one per plane")
    assert d["switch_link_count"] == "4,096 per copy × 1 rail group(s) × 2 plane(s) = 8,192"
    assert d["bisection_gbps"].startswith("2 disjoint copies (1 rail group(s) × 2 plane(s))")
    assert d["bisection_gbps"].endswith("= 1,638,400 Gbit/s")
    assert d["max_endpoint_count"].startswith("2 × (2 tiers: a 128-port spine reaches 128 leaves")
    assert d["tier_count"] == "2 tier(s) — the fewest that fit"
    assert p.tiers[0].derivation.endswith("× 1 rail group(s) × 2 plane(s) = 128 leaf switches")
    assert p.endpoint_link_count == 8192 and p.switch_link_count == 8192 and p.max_endpoint_count == 16_384


def test_automatic_groups_say_why():
    """512 nodes, 8 rails, 64-port switches: shared spines need 128 leaves on 64-port spines (refused), 2 groups
    of 4 rails have 64 leaves each: each leaf's 32 uplinks go 1 per spine → 32 spines per group, 64 in all."""
    p = plan_fabric(FabricRequest(topology=R, node_count=512, scalable_unit_nodes=32))
    why = p.derivations["rail_groups"]
    assert why.startswith("automatic: 2 group(s), the fewest that fit in 2 tiers (1 group(s) in 2 tiers: 4,096")
    assert "each group has 4 rail(s) and its own spines" in why
    assert p.derivations["switch_link_count"] == "2,048 per copy × 2 rail groups = 4,096"
    assert p.tiers[1].derivation.endswith("× 2 rail groups = 64 spine switches")
    assert p.extras["leaves_per_rail"] == 16 and p.extras["rail_count"] == 8


def test_several_refusals_are_summarised():
    """100,000 endpoints on 64-port switches: 5 rejected tries (1, 2, 4, 8 groups in 2 tiers, then 1 in 3 tiers)
    before 2 groups fit in 3 tiers; the derivation counts them and names the last."""
    p = plan_fabric(FabricRequest(topology=R, node_count=12_500))
    assert (
        "the fewest that fit in 3 tiers (5 smaller options refused, last: 1 group(s) in 3 tiers"
        in (p.derivations["rail_groups"])
    )


def test_shared_spines_and_explicit_groups():
    shared = plan_fabric(FabricRequest(topology=R, node_count=128, scalable_unit_nodes=32))
    assert shared.derivations["rail_groups"] == "automatic: 1 group(s) — the spines shared by all rails fit in 2 tiers"
    assert "each group has" not in shared.derivations["rail_groups"]
    assert "switch_link_count" in shared.derivations and "per copy" not in shared.derivations["switch_link_count"]
    explicit = plan_fabric(FabricRequest(topology=R, node_count=128, scalable_unit_nodes=32, rail_groups=2))
    assert explicit.derivations["rail_groups"].startswith("2 rail group(s) as requested; each group has 4 rail(s)")
    assert explicit.derivations["tier_count"] == "2 tier(s) — the fewest that fit"


def test_nothing_fits_names_the_groups_tried_only_when_automatic():
    with pytest.raises(FabricRequestError) as auto:
        plan_fabric(FabricRequest(topology=R, node_count=5000, switch_radix=8))
    # automatic: 1, 2, 4, 8 groups tried; with 8 (one rail each) 5,000 endpoints still need 313 pods of 16
    # (8-port pod spine: 4 leaves × 4 nodes) against the 8 pods an 8-port core reaches
    assert auto.value.errors["node_count"].startswith("5,000 endpoints need 313 pods")
    assert auto.value.errors["node_count"].endswith("(also with up to 8 rail groups)")
    with pytest.raises(FabricRequestError) as fixed:
        plan_fabric(FabricRequest(topology=R, node_count=5000, switch_radix=8, rail_groups=1))
    # one group: an SU is already one leaf per rail (8), more than the 4 leaves a pod spine takes:
    # "smaller SUs" cannot help, more rail groups can
    message = fixed.value.errors["rail_groups"]
    assert "one leaf for each of its 8 rails, more than the 4 leaves" in message and "at least 2 rail groups" in message
    assert "also with up to" not in message


def test_the_refusal_says_more_groups_were_tried_only_when_they_were():
    """Automatic groups with the tier count fixed: 1, 2, 4, 8 groups were tried in 2 tiers, and the refusal says
    so; one NIC a node has one rail, so one group only — no "(also with up to 1 rail groups)"; 2 NICs: 1 and 2."""
    for nics, suffix in ((8, " (also with up to 8 rail groups)"), (2, " (also with up to 2 rail groups)"), (1, "")):
        for tiers in (2, None):
            with pytest.raises(FabricRequestError) as exc:
                plan_fabric(
                    FabricRequest(topology=R, node_count=5000, nics_per_node=nics, switch_radix=16, tiers=tiers)
                )
            message = exc.value.errors["node_count"]
            assert message.endswith("larger radix or more oversubscription" + suffix) or message.endswith(
                "use 3 tiers or a larger radix" + suffix
            ), (nics, tiers, message)


def test_rail_only_one_tier():
    """tiers = 1: one 64-port switch per rail takes 64 nodes → 8 leaves of 64 down, no uplinks; only traffic on
    the same rail crosses: halves of 256 endpoints, each rail's leaf carries 32 × 400G → 8 × 32 × 400G."""
    p = plan_fabric(FabricRequest(topology=R, node_count=64, tiers=1))
    assert [(t.name, t.switch_count, t.down_ports_per_switch, t.up_ports_per_switch) for t in p.tiers] == [
        ("leaf", 8, 64, 0)
    ]
    assert p.bisection_gbps == 8 * 32 * 400
    assert p.derivations["tier_count"] == "1 tier(s) as requested"
    with pytest.raises(FabricRequestError) as exc:
        plan_fabric(FabricRequest(topology=R, node_count=65, tiers=1))
    assert "65 nodes do not fit on one 64-port leaf per rail" in exc.value.errors["node_count"]


def test_pods_force_three_tiers():
    """64 nodes fit 2 tiers, but pods of 32 nodes ask for a core: 8 rails × 2 SUs → 2 pods."""
    p = plan_fabric(FabricRequest(topology=R, node_count=64, scalable_unit_nodes=32, pod_nodes=32))
    assert p.tier_count == 3 and p.extras["pod_count"] == 2


def test_single_plane_derivations_and_reserved_slots():
    """One plane: 8 rails, '512 nodes × 8 NICs = 4,096 endpoints', no plane text. Reserved slots: up to SU − 1
    (31 of 32) leave a node in the first SU; 32 would empty it."""
    p = plan_fabric(FabricRequest(topology=R, node_count=512, scalable_unit_nodes=32))
    assert p.derivations["rail_count"] == "one rail per NIC port: 8 NICs per node → 8 rails"
    assert p.derivations["endpoint_count"] == "512 nodes × 8 NICs = 4,096 endpoints"
    assert "nic_planes" not in p.derivations
    ok = plan_fabric(FabricRequest(topology=R, node_count=100, scalable_unit_nodes=32, reserved_node_slots=31))
    assert ok.tiers[0].switch_count == 8 * 5  # slots 31 … 130 span 5 SUs: ⌈131 ÷ 32⌉ = 5 leaves per rail
    with pytest.raises(FabricRequestError) as exc:
        plan_fabric(FabricRequest(topology=R, node_count=100, scalable_unit_nodes=32, reserved_node_slots=32))
    assert exc.value.errors["reserved_node_slots"].endswith("reserve at most 31")


def test_the_groups_derivation_quotes_the_refused_options_of_two_nics_but_not_of_one():
    """16-port switches (8 down, 8 up): 2 NICs × 128 nodes = 256 endpoints need 2 × ⌈128 ÷ 8⌉ = 32 leaves, more than
    the 16 a 2-tier spine takes — refused with one group; two groups (one rail each: 16 leaves) fit, and the
    derivation says which option was refused. One NIC, 200 nodes: 25 leaves > 16 in 2 tiers, so 3 tiers; there is
    no other group count to refuse, so none is quoted."""
    two = plan_fabric(FabricRequest(topology=R, node_count=128, nics_per_node=2, switch_radix=16))
    assert two.extras["rail_groups"] == 2
    assert two.derivations["rail_groups"].startswith(
        "automatic: 2 group(s), the fewest that fit in 2 tiers (1 group(s) in 2 tiers: 256 endpoints need 32 leaves"
    )
    one = plan_fabric(FabricRequest(topology=R, node_count=200, nics_per_node=1, switch_radix=16))
    assert len(one.tiers) == 3
    assert one.derivations["rail_groups"] == "automatic: 1 group(s) — the spines shared by all rails fit in 3 tiers"
