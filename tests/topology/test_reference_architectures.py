"""Goldens from NVIDIA's published DGX SuperPOD reference architectures: switch and cable counts
per scalable-unit (SU) count, for every SU count each document tabulates.

Each test names the document and table. The engine is given only what an architect would type
(nodes, NICs, NIC speed, the switch's radix and port speed, the SU size, and — where the RA
shares its spines across all rails — ``rail_groups=1``); the counts must come out as published.
"""

from __future__ import annotations

import pytest

from topology import FabricRequest, Topology, plan_fabric
from topology.graph import verify_plan

B200_RA = "DGX SuperPOD B200 RA, 'DGX SuperPOD Architecture', table 'Compute fabric component count'"
"""docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200/latest/dgx-superpod-architecture.html
DGX B200: 8 × ConnectX-7 400G NDR per node, QM9700 (64 × 400G), SU = 32 nodes, spines shared by all rails."""

# SU, nodes, leaf, spine, core, node–leaf, leaf–spine, spine–core cables
B200_TABLE = [
    (2, 64, 16, 8, 0, 512, 512, 0),
    (4, 128, 32, 16, 0, 1024, 1024, 0),
    (8, 256, 64, 32, 0, 2048, 2048, 0),
    (16, 512, 128, 128, 64, 4096, 4096, 4096),
    (32, 1024, 256, 256, 128, 8192, 8192, 8192),
    (64, 2048, 512, 512, 256, 16384, 16384, 16384),
]


def _counts(plan) -> tuple[int, ...]:
    names = [t.name for t in plan.tiers]
    count = {t.name: t.switch_count for t in plan.tiers}
    up = {t.name: t.uplink_count for t in plan.tiers}
    return (
        count["leaf"],
        count.get("spine", 0),
        count.get("core", 0),
        plan.endpoint_link_count,
        up["leaf"],
        up.get("spine", 0) if "core" in names else 0,
    )


@pytest.mark.parametrize(("sus", "nodes", "leaf", "spine", "core", "node_leaf", "leaf_spine", "spine_core"), B200_TABLE)
def test_dgx_superpod_b200(sus, nodes, leaf, spine, core, node_leaf, leaf_spine, spine_core):
    """B200_RA, one row per SU count."""
    plan = plan_fabric(
        FabricRequest(
            topology=Topology.RAIL_OPTIMIZED,
            node_count=nodes,
            nics_per_node=8,
            nic_gbps=400,
            switch_radix=64,
            switch_port_gbps=400,
            scalable_unit_nodes=32,
            rail_groups=1,
        )
    )
    assert _counts(plan) == (leaf, spine, core, node_leaf, leaf_spine, spine_core)
    assert verify_plan(plan).ok


B300_XDR_RA = "DGX SuperPOD B300 Quantum-X800 InfiniBand RA (RA-11339-001), Table 3"
"""docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300-xdr/latest/dgx-superpod-architecture.html
DGX B300: 8 × ConnectX-8 at 800G XDR per node, Q3400 (144 × 800G), SU = 72 nodes (one leaf per rail
per SU: 72 down, 72 up).

The 18-SU row prints 9,216 GPUs, but 1,296 nodes × 8 GPUs = 10,368, which is also the row's
node–leaf cable count: the GPU cell is a misprint and the test uses the node count."""

B300_XDR_TABLE = [
    (1, 72, 8, 4, 576, 576),
    (2, 144, 16, 8, 1152, 1152),
    # 4 SUs: 32 leaves × 72 uplinks; a 144-port spine takes 4 links from each of 32 leaves → 72 ÷ 4 = 18
    # spines (not 2,304 ÷ 144 = 16: the uplinks must spread evenly, so the spine count divides 72)
    (4, 288, 32, 18, 2304, 2304),
    (8, 576, 64, 36, 4608, 4608),
    (18, 1296, 144, 72, 10368, 10368),
]


@pytest.mark.parametrize(("sus", "nodes", "leaf", "spine", "node_leaf", "leaf_spine"), B300_XDR_TABLE)
def test_dgx_superpod_b300_quantum_x800(sus, nodes, leaf, spine, node_leaf, leaf_spine):
    """B300_XDR_RA, one row per SU count."""
    plan = plan_fabric(
        FabricRequest(
            topology=Topology.RAIL_OPTIMIZED,
            node_count=nodes,
            nics_per_node=8,
            nic_gbps=800,
            switch_radix=144,
            switch_port_gbps=800,
            scalable_unit_nodes=72,
        )
    )
    assert _counts(plan) == (leaf, spine, 0, node_leaf, leaf_spine, 0)
    assert plan.extras["rail_groups"] == 1  # the automatic choice is the RA's shared spines
    assert verify_plan(plan).ok


B300_SPECTRUM_RA = "DGX SuperPOD B300 Spectrum-4 Ethernet RA, Table 3 'Larger DGX SuperPOD component counts'"
"""docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300/latest/dgx-superpod-architecture.html
and network-fabrics.html: "twin-planar design … each GPU has 2 × 400GbE connectivity through two
different planes"; SU = 64 nodes, rail-aligned; Spectrum-4 SN5600 (64 × 800G = 128 × 400G).

The RA counts cables; each of its node–leaf and leaf–spine cables is an 800G twin-port link that
carries one 400G port of each of the two planes (node side: one 800G port per GPU, so 512 cables
per SU for 512 GPUs). The engine counts 400G plane links, so its link counts are 2 × the cables:
per SU and plane, 8 rails × 64 nodes = 512 links."""

B300_SPECTRUM_TABLE = [
    (1, 64, 16, 8, 512, 512),
    (2, 128, 32, 16, 1024, 1024),
    (4, 256, 64, 32, 2048, 2048),
    (8, 512, 128, 64, 4096, 4096),
    (16, 1024, 256, 128, 8192, 8192),
]


@pytest.mark.parametrize(("sus", "nodes", "leaf", "spine", "node_leaf", "leaf_spine"), B300_SPECTRUM_TABLE)
def test_dgx_superpod_b300_spectrum_twin_planes(sus, nodes, leaf, spine, node_leaf, leaf_spine):
    """B300_SPECTRUM_RA, one row per SU count: 800G NICs as 2 × 400G planes on 128-port 400G switches."""
    plan = plan_fabric(
        FabricRequest(
            topology=Topology.RAIL_OPTIMIZED,
            node_count=nodes,
            nics_per_node=8,
            nic_gbps=800,
            nic_planes=2,
            switch_radix=128,
            switch_port_gbps=400,
        )
    )
    assert plan.extras["scalable_unit_nodes"] == 64  # a 128-port leaf at 1:1 takes 64 nodes: the RA's SU
    assert _counts(plan) == (leaf, spine, 0, 2 * node_leaf, 2 * leaf_spine, 0)
    assert plan.bisection_gbps == nodes * 8 * 800 / 2  # non-blocking: N·B/2 over both planes
    assert verify_plan(plan).ok


def test_sixteen_b200_sus_with_automatic_rail_groups_stay_two_tier():
    """The same 16 SUs (512 nodes) as the B200 RA's 3-tier row, with rail groups left automatic: 128 leaves
    cannot share 64-port spines (2 tiers reach 64 leaves), 2 groups of 4 rails still have 64 leaves each →
    2 groups × 32 spines (each leaf sends 1 link to each of 32 spines of its group), no core: 128 + 64 = 192
    switches against the RA's 320, same 1:1 bisection (4,096 × 400G ÷ 2)."""
    plan = plan_fabric(
        FabricRequest(
            topology=Topology.RAIL_OPTIMIZED,
            node_count=512,
            nics_per_node=8,
            nic_gbps=400,
            switch_radix=64,
            switch_port_gbps=400,
            scalable_unit_nodes=32,
        )
    )
    assert plan.extras["rail_groups"] == 2
    assert [(t.name, t.switch_count) for t in plan.tiers] == [("leaf", 128), ("spine", 64)]
    assert plan.bisection_gbps == 4096 * 400 / 2
    assert "2 group(s), the fewest that fit in 2 tiers" in plan.derivations["rail_groups"]
    assert verify_plan(plan).ok


H100_RA = "DGX SuperPOD H100 RA (RA-11333-001), 'Network Fabrics', Table 4 'Compute fabric component count'"
"""docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-h100/latest/network-fabrics.html
DGX H100: 8 × ConnectX-7 400G NDR per node, QM9700, SU = 32 node slots of which the RA fills 31, 63, 95, 127
(one slot per SU … the last slot of the fabric takes the UFM appliances; the fabric is built for full SUs,
"including leaf switches and leaf-spine cables"). 'Compute and UFM' cables = node NICs + 4 UFM ports."""

# SU, nodes, leaf, spine, compute-and-UFM cables, spine–leaf cables
H100_TABLE = [
    (1, 31, 8, 4, 252, 256),
    (2, 63, 16, 8, 508, 512),
    # 3 SUs: 24 leaves × 32 uplinks; a 64-port spine takes ⌊64 ÷ 24⌋ = 2 links per leaf → 32 ÷ 2 = 16 spines
    (3, 95, 24, 16, 764, 768),
    (4, 127, 32, 16, 1020, 1024),
]


@pytest.mark.parametrize(("sus", "nodes", "leaf", "spine", "compute_ufm", "spine_leaf"), H100_TABLE)
def test_dgx_superpod_h100(sus, nodes, leaf, spine, compute_ufm, spine_leaf):
    """H100_RA, one row per SU count, through the whole pipeline with the RA's 4 UFM appliances."""
    from cluster.pipeline import plan_cluster
    from cluster.validate import validate

    plan = plan_cluster(
        validate(
            {
                "gpu_model": "H100-SXM5",
                "node_count": nodes,
                "gpus_per_node": 8,
                "compute_fabric": {"switch_model": "QM9700", "scalable_unit_nodes": 32, "ufm_server_count": 4},
            }
        )
    )
    result = plan.result()["compute_fabric"]
    assert [(t["name"], t["switch_count"]) for t in result["tiers"]] == [("leaf", leaf), ("spine", spine)]
    assert result["endpoint_link_count"] + result["fabric_manager_port_count"] == compute_ufm
    assert result["switch_link_count"] == spine_leaf
    assert verify_plan(plan.fabric).ok
