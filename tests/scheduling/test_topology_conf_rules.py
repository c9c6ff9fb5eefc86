"""topology.conf (tree and block forms) and the Kubernetes node labels of small fabrics, written out by hand.

Each design is small enough to draw: the switch names are the cut sheet's (leaf0001…, in cabling order), the
Kubernetes nodes are the last ``kubernetes_node_count`` (scheduling/partitions.py), and Slurm puts each node
under one leaf (slurm.conf(5) / topology.conf(5), tree plugin)."""

from __future__ import annotations

from cluster.pipeline import plan_cluster
from cluster.scheduler_files import kubernetes_files, slurm_files
from cluster.validate import validate
from scheduling.slurm_topology import slurm_topology

H100 = "nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3"
L = "fabric.cluster-designer.io"


def _plan(nodes: int, fabric: dict, k8s: int):
    r = validate(
        {"node_count": nodes, "gpus_per_node": 8, "compute_fabric": fabric, "scheduler": {"kubernetes_node_count": k8s}}
    )
    return r, plan_cluster(r)


def _files(nodes: int, fabric: dict, k8s: int) -> tuple[dict[str, str], dict[str, str]]:
    r, p = _plan(nodes, fabric, k8s)
    return slurm_files(r, p.fabric, p.scheduler), kubernetes_files(r, p.fabric, p.scheduler)


def _label(node: str, pod: str, leaf: str, su: str = "") -> str:
    return (
        f"kubectl label --overwrite node {node} {H100} {L}/pod={pod} "
        + (f"{L}/su={su} " if su else "")
        + f"{L}/leaf-group={leaf} {L}/gpu-mode=full"
    )


HEAD = [
    "# topology.conf — Untitled cluster",
    "# TopologyPlugin=topology/tree (slurm.conf); generated from the fabric plan",
]
BLOCK_HEAD = [
    "# topology.conf (block form) — Untitled cluster",
    "# TopologyPlugin=topology/block: Slurm 23.11 and later",
]
TWO_RAILS = {
    "topology": "rail_optimized",
    "nics_per_node": 2,
    "scalable_unit_nodes": 4,
    "switch_radix": 8,
    "switch_model": "",
}  # 2 rails, scalable units of 4 nodes on 8-port switches: 4 down + 4 up, so each SU has its own rail leaves (on
# 64-port leaves, 32 down, SUs of 4 would share leaves 8 a leaf — issue #34 — and the SUs would not be leaf groups)
K4 = {
    "topology": "fat_tree",
    "nics_per_node": 1,
    "switch_radix": 4,
    "switch_model": "",
    "tiers": 3,
}  # the k = 4 fat-tree
LABEL_HEAD = ["#!/bin/sh", "# node labels — Untitled cluster: the fabric locality Kueue's Topology reads", "set -e"]


def test_two_rail_scalable_units_become_leaf_groups():
    """8 nodes × 2 rails, scalable units of 4 nodes: SU 1 = gpu001–004 on leaf0001 (rail 1) and leaf0002 (rail 2),
    SU 2 = gpu005–008 on leaf0003/0004; 2 spines, each cabled to all 4 leaves. Each node has a port on both of its
    SU's leaves, so each SU is one Slurm leaf group: lg001 = leaf[0001-0002], lg002 = leaf[0003-0004]. Kubernetes
    takes the last 2 nodes (gpu007–008), so lg002 lists gpu005–006 only; every switch still serves a Slurm node.
    Two equal-sized blocks? No: 4 and 2 nodes, so BlockSizes is left to Slurm."""
    slurm, kube = _files(8, TWO_RAILS, 2)
    assert slurm["topology.conf"].splitlines() == [
        *HEAD,
        "# leaf: 4 of the plan's 4 switches",
        "# spine: 2 of the plan's 2 switches",
        "# each Slurm leaf lg… is one scalable unit's rail leaves (2 per group), which serve the same nodes",
        "# gpu[007-008] run Kubernetes and are not in slurm.conf",
        "# lg001: leaf[0001-0002]",
        "SwitchName=lg001 Nodes=gpu[001-004]",
        "# lg002: leaf[0003-0004]",
        "SwitchName=lg002 Nodes=gpu[005-006]",
        "SwitchName=spine0001 Switches=lg[001-002]",
        "SwitchName=spine0002 Switches=lg[001-002]",
    ]
    assert slurm["topology-block.conf"].splitlines() == [
        *BLOCK_HEAD,
        "BlockName=block001 Nodes=gpu[001-004]  # leaf[0001-0002]",
        "BlockName=block002 Nodes=gpu[005-006]  # leaf[0003-0004]",
        "# blocks of unequal node counts (a partly filled last unit): BlockSizes left to Slurm's default",
    ]
    assert kube["label-nodes.sh"].splitlines() == [
        *LABEL_HEAD,
        _label("gpu007", "pod01", "lg002", "su02"),
        _label("gpu008", "pod01", "lg002", "su02"),
    ]
    assert f"nodeLabel: {L}/su" in kube["kubernetes.yaml"]  # the Topology has a scalable-unit level


def test_a_scalable_unit_run_by_kubernetes_is_left_out_and_counted():
    """The same fabric with Kubernetes on gpu005–008 (all of SU 2): lg002's two leaves serve no Slurm node, so
    the header says 2 of the 4 leaves and why; the spines list lg001 alone (one block of 4 nodes: BlockSizes=4)."""
    slurm, _ = _files(8, TWO_RAILS, 4)
    assert slurm["topology.conf"].splitlines() == [
        *HEAD,
        "# leaf: 2 of the plan's 4 switches (2 serve Kubernetes nodes only and are left out)",
        "# spine: 2 of the plan's 2 switches",
        "# each Slurm leaf lg… is one scalable unit's rail leaves (2 per group), which serve the same nodes",
        "# gpu[005-008] run Kubernetes and are not in slurm.conf",
        "# lg001: leaf[0001-0002]",
        "SwitchName=lg001 Nodes=gpu[001-004]",
        "SwitchName=spine0001 Switches=lg001",
        "SwitchName=spine0002 Switches=lg001",
    ]
    assert slurm["topology-block.conf"].splitlines()[-1] == "BlockSizes=4"


def test_reserved_slots_shift_the_scalable_units():
    """2 reserved slots at the start of SU 1 (clos.py: node i sits in slot i + 2), SUs of 4 slots: SU 1 holds
    gpu001–002 (slots 2–3), SU 2 gpu003–006 (slots 4–7), SU 3 gpu007–008 (slots 8–9). Kubernetes runs gpu006–008:
    gpu006 is in SU 2 (lg002), gpu007–008 in SU 3 (lg003, whose 2 leaves then serve no Slurm node)."""
    slurm, kube = _files(8, {**TWO_RAILS, "reserved_node_slots": 2}, 3)
    lines = slurm["topology.conf"].splitlines()
    assert lines[2] == "# leaf: 4 of the plan's 6 switches (2 serve Kubernetes nodes only and are left out)"
    assert [x for x in lines if x.startswith("SwitchName=lg")] == [
        "SwitchName=lg001 Nodes=gpu[001-002]",
        "SwitchName=lg002 Nodes=gpu[003-005]",
    ]
    assert kube["label-nodes.sh"].splitlines()[3:] == [
        _label("gpu006", "pod01", "lg002", "su02"),
        _label("gpu007", "pod01", "lg003", "su03"),
        _label("gpu008", "pod01", "lg003", "su03"),
    ]


def test_one_leaf_fat_tree_names_the_switch_itself():
    """8 nodes × 1 NIC on one 8-port leaf: a one-tier fabric. The Slurm leaf is the switch (leaf0001, no comment
    line naming its members); one block of the 6 Slurm nodes (BlockSizes=6). A fat-tree has no scalable units:
    no su label, and the Kueue Topology goes pod → leaf group → host."""
    slurm, kube = _files(8, {"topology": "fat_tree", "nics_per_node": 1, "switch_radix": 8, "switch_model": ""}, 2)
    assert slurm["topology.conf"].splitlines() == [
        *HEAD,
        "# leaf: 1 of the plan's 1 switches",
        "# one Slurm leaf per leaf switch",
        "# gpu[007-008] run Kubernetes and are not in slurm.conf",
        "SwitchName=leaf0001 Nodes=gpu[001-006]",
    ]
    assert slurm["topology-block.conf"].splitlines()[2:] == [
        "BlockName=block001 Nodes=gpu[001-006]  # leaf0001",
        "BlockSizes=6",
    ]
    assert kube["label-nodes.sh"].splitlines()[3:] == [
        _label("gpu007", "pod01", "leaf0001"),
        _label("gpu008", "pod01", "leaf0001"),
    ]
    assert f"{L}/su" not in kube["kubernetes.yaml"]


def test_three_tier_k4_fat_tree_pods_and_cores():
    """The k = 4 fat-tree (Al-Fares et al. 2008): 16 hosts, 4 pods of 2 edge (leaf) + 2 aggregation (spine)
    switches, 4 cores; spine 1 of each pod goes to cores 1–2, spine 2 to cores 3–4. Kubernetes runs the last 4
    nodes = pod 4 (leaves 7–8, spines 7–8), which leave the file; the cores stay. Six blocks of 2 nodes: a job may
    span 1, 2 or 4 blocks (8 > 6): BlockSizes=2,4,8."""
    slurm, kube = _files(16, K4, 4)
    assert slurm["topology.conf"].splitlines() == [
        *HEAD,
        "# leaf: 6 of the plan's 8 switches (2 serve Kubernetes nodes only and are left out)",
        "# spine: 6 of the plan's 8 switches (2 serve Kubernetes nodes only and are left out)",
        "# core: 4 of the plan's 4 switches",
        "# one Slurm leaf per leaf switch",
        "# gpu[013-016] run Kubernetes and are not in slurm.conf",
        *(f"SwitchName=leaf{j:04d} Nodes=gpu[{2 * j - 1:03d}-{2 * j:03d}]" for j in range(1, 7)),
        *(
            f"SwitchName=spine{s:04d} Switches=leaf[{2 * p - 1:04d}-{2 * p:04d}]"
            for p in (1, 2, 3)
            for s in (2 * p - 1, 2 * p)
        ),
        "SwitchName=core0001 Switches=spine[0001,0003,0005]",
        "SwitchName=core0002 Switches=spine[0001,0003,0005]",
        "SwitchName=core0003 Switches=spine[0002,0004,0006]",
        "SwitchName=core0004 Switches=spine[0002,0004,0006]",
    ]
    assert slurm["topology-block.conf"].splitlines()[-1] == "BlockSizes=2,4,8"
    assert kube["label-nodes.sh"].splitlines()[3:] == [
        _label("gpu013", "pod04", "leaf0007"),
        _label("gpu014", "pod04", "leaf0007"),
        _label("gpu015", "pod04", "leaf0008"),
        _label("gpu016", "pod04", "leaf0008"),
    ]


def test_eight_equal_blocks_may_all_be_spanned():
    """8 leaves of 2 nodes, all Slurm (k = 4 fat-tree, no Kubernetes): 8 = 2³ blocks, so a job may span 1, 2, 4
    or all 8 blocks: BlockSizes=2,4,8,16."""
    slurm, _ = _files(16, K4, 0)
    assert slurm["topology-block.conf"].splitlines()[-1] == "BlockSizes=2,4,8,16"


def test_small_dragonfly_plus_has_a_global_top_and_groups_as_pods():
    """16 nodes, 8-port switches, 2 leaves per group: each leaf takes 4 nodes, so 4 leaves in 2 groups of 2
    leaves + 2 spines. Each group's spines list its own leaves; the global links become one 'global' switch over
    every spine (with its comment line, and on no other line). Kubernetes runs gpu015–016 in group 2 = pod02; a
    Dragonfly+ has no scalable units (no su label)."""
    fabric = {"topology": "dragonfly_plus", "nics_per_node": 1, "switch_radix": 8, "switch_model": ""}
    fabric["leaves_per_group"] = 2
    slurm, kube = _files(16, fabric, 2)
    _, p = _plan(16, fabric, 2)
    topo = slurm_topology(p.fabric, p.scheduler)
    assert [[s.name for s in topo.level(n)] for n in (1, 2)] == [[f"spine{i:04d}" for i in range(1, 5)], ["global"]]
    assert slurm["topology.conf"].splitlines()[2:] == [
        "# leaf: 4 of the plan's 4 switches",
        "# spine: 4 of the plan's 4 switches",
        "# one Slurm leaf per leaf switch",
        "# gpu[015-016] run Kubernetes and are not in slurm.conf",
        "SwitchName=leaf0001 Nodes=gpu[001-004]",
        "SwitchName=leaf0002 Nodes=gpu[005-008]",
        "SwitchName=leaf0003 Nodes=gpu[009-012]",
        "SwitchName=leaf0004 Nodes=gpu[013-014]",
        "SwitchName=spine0001 Switches=leaf[0001-0002]",
        "SwitchName=spine0002 Switches=leaf[0001-0002]",
        "SwitchName=spine0003 Switches=leaf[0003-0004]",
        "SwitchName=spine0004 Switches=leaf[0003-0004]",
        "# global: the Dragonfly+ global links between groups (not a switch)",
        "SwitchName=global Switches=spine[0001-0004]",
    ]
    assert kube["label-nodes.sh"].splitlines()[3:] == [
        _label("gpu015", "pod02", "leaf0004"),
        _label("gpu016", "pod02", "leaf0004"),
    ]
