"""Slurm's topology.conf from the fabric plan's explicit wiring (topology.graph), pure.

**Tree form** (``TopologyPlugin=topology/tree``, every Slurm release): each line names a switch
and its children (``SwitchName=leaf0001 Nodes=gpu[001-032]``, ``SwitchName=spine0001
Switches=leaf[0001-0064]``). Slurm places a job under the lowest switch that holds all its nodes.

- Leaves: a node whose fabric ports all land on one leaf (a fat-tree) sits under that leaf, named
  as in the cut sheet (``leaf0001``). A rail-optimized node has one port on each rail's leaf, so the
  eight rail leaves of a scalable unit serve the very same nodes; Slurm wants each node under one
  leaf (slurmctld 22.05 warns "Multiple leaf switches contain nodes" otherwise), so those leaves
  become one Slurm leaf, a *leaf group* (``lg001``), whose comment names its physical leaves — the
  placement a job should follow is "inside one scalable unit's rail leaves".
- Spines and cores are the plan's switches one for one, each listing the Slurm leaves (or spines)
  it is cabled to; a switch with several parents is what a folded Clos is, and Slurm reads it.
- Dragonfly+: leaves under their group's spines, and one ``global`` switch over every spine
  standing for the global links (no such box exists; without a common top Slurm would never
  let a job span two groups); slurm.conf sets ``TopologyParam=Dragonfly``.
- A 3D torus has no switches: Slurm's tree cannot describe it (topology/3d_torus was for Cray
  systems), so no tree is written.

Nodes that Kubernetes runs are not in slurm.conf and are left out; a leaf left with no Slurm
node is left out too (said in the header).

**Block form** (``TopologyPlugin=topology/block``, Slurm 23.11 and later; Debian 12's 22.05 does
not read it): one ``BlockName`` per scalable unit / leaf group with its nodes, ``BlockSizes`` the
powers of two of blocks a job may span.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from scheduling.hostlist import compress
from scheduling.partitions import NodeRange, PartitionPlan
from scheduling.quoting import comment_text
from topology.graph import fabric_edges
from topology.spec import ClosWiring, FabricPlan, Topology


@dataclass(frozen=True)
class SlurmSwitch:
    name: str
    level: int
    nodes: tuple[str, ...]  # Slurm node names (leaves)
    switches: tuple[str, ...]  # child switch names (above the leaves)
    members: tuple[str, ...]  # the physical switches a Slurm leaf stands for (one, or a leaf group's rails)

    def line(self) -> str:
        children = f"Nodes={compress(self.nodes)}" if self.nodes else f"Switches={compress(self.switches)}"
        return f"SwitchName={self.name} {children}"


@dataclass(frozen=True)
class SlurmTopology:
    switches: tuple[SlurmSwitch, ...]
    physical_counts: dict[str, int]  # tier name → switches of the plan in this file
    plan_counts: dict[str, int]  # tier name → switches of the plan
    dragonfly: bool
    note: str

    def level(self, n: int) -> list[SlurmSwitch]:
        return [s for s in self.switches if s.level == n]


def _slurm_leaves(leaf_of_endpoint: np.ndarray, per_node: int, slurm_names: list[str], phys):
    """(Slurm leaves, physical leaf id → its Slurm leaf names, nodes with ports on several leaves).

    Nodes whose fabric ports land on the same set of leaves share a Slurm leaf when those sets do not
    overlap (one leaf of a fat-tree; a scalable unit's rail leaves). Where a node's ports straddle two
    leaves whose other nodes differ (a leaf's down ports not a multiple of the node's ports), each node
    goes under the leaf with most of its ports, the first on a tie."""
    keys = [
        np.unique(leaf_of_endpoint[k * per_node : (k + 1) * per_node], return_counts=True)
        for k in range(len(slurm_names))
    ]
    groups: dict[tuple[int, ...], list[str]] = {}
    for (ids, _), name in zip(keys, slurm_names):  # keys: one per name
        groups.setdefault(tuple(ids.tolist()), []).append(name)
    owner: dict[int, tuple[int, ...]] = {}
    disjoint = all(owner.setdefault(x, key) == key for key in groups for x in key)
    straddling: set[str] = set()
    if not disjoint:
        groups = {}
        for (ids, counts), name in zip(keys, slurm_names):
            if ids.size > 1:
                straddling.add(name)
            groups.setdefault((int(ids[np.argmax(counts)]),), []).append(name)
    grouped = any(len(k) > 1 for k in groups)
    leaves: list[SlurmSwitch] = []
    slurm_leaf_of: dict[int, list[str]] = {}
    for g, (key, members) in enumerate(groups.items()):
        name = f"lg{g + 1:03d}" if grouped else phys(key[0])
        leaves.append(SlurmSwitch(name, 0, tuple(members), (), tuple(phys(x) for x in key)))
        for x in key:
            slurm_leaf_of.setdefault(x, []).append(name)
    return leaves, slurm_leaf_of, straddling


def _fabric_leaves(plan: FabricPlan, node_count: int, all_names: list[str]):
    """The edge list, its switch namer and the Slurm leaves over *every* node (so a leaf group keeps its
    number whether Slurm or Kubernetes runs its nodes)."""
    e = fabric_edges(plan)
    n_end = e.endpoint_count
    per_node = n_end // node_count
    index = e.index_in_tier()
    phys = lambda x: f"{e.tier_names[e.node_tier[x]]}{index[x] + 1:04d}"  # noqa: E731  the cut sheet's names
    down = e.u < n_end
    leaf_of_endpoint = np.empty(n_end, dtype=np.int64)
    leaf_of_endpoint[e.u[down]] = e.v[down]
    leaves, slurm_leaf_of, straddling = _slurm_leaves(leaf_of_endpoint, per_node, all_names, phys)
    return e, down, phys, leaves, slurm_leaf_of, straddling


def slurm_topology(plan: FabricPlan, parts: PartitionPlan) -> SlurmTopology | None:
    """The Slurm tree of a switched fabric (None for a 3D torus)."""
    if plan.topology == Topology.TORUS_3D:
        return None
    all_names = parts.names(NodeRange(1, parts.node_count))
    e, down, phys, every_leaf, slurm_leaf_of, straddlers = _fabric_leaves(plan, parts.node_count, all_names)
    tier_names = e.tier_names
    slurm_set = set(parts.names(parts.slurm))
    leaves = []
    for leaf in every_leaf:
        mine = tuple(n for n in leaf.nodes if n in slurm_set)
        if mine:
            leaves.append(replace(leaf, nodes=mine))
    straddling = len(straddlers & slurm_set)
    upper: list[SlurmSwitch] = []
    children: dict[int, list[str]] = {}
    # switch-to-switch links between tiers; Dragonfly+'s global links join spines of one tier, and the "global"
    # switch below stands for them
    between = ~down & (e.node_tier[e.u] != e.node_tier[e.v])
    for u, v in zip(e.u[between].tolist(), e.v[between].tolist()):
        lo, hi = (u, v) if e.node_tier[u] < e.node_tier[v] else (v, u)
        names = slurm_leaf_of.get(lo, []) if e.node_tier[lo] == 0 else [phys(lo)]
        kids = children.setdefault(hi, [])
        kids.extend(n for n in names if n not in kids)
    live = set(s.name for s in leaves)
    for t in range(len(tier_names)):  # a leaf is nobody's parent: children holds upper ends only
        for x in np.flatnonzero(e.node_tier == t).tolist():
            kids = [k for k in children.get(x, []) if k in live]
            if kids:
                upper.append(SlurmSwitch(phys(x), t, (), tuple(kids), (phys(x),)))
                live.add(phys(x))
    dragonfly = plan.topology == Topology.DRAGONFLY_PLUS
    if dragonfly:
        spines = tuple(s.name for s in upper if s.level == 1)
        upper.append(SlurmSwitch("global", 2, (), spines, ()))
    plan_counts = {t.name: t.switch_count for t in plan.tiers}
    physical: dict[str, int] = {}
    for s in (*leaves, *upper):
        if s.members:
            physical[tier_names[s.level]] = physical.get(tier_names[s.level], 0) + len(s.members)
    if any(len(s.members) > 1 for s in leaves):
        note = (
            f"each Slurm leaf lg… is one scalable unit's rail leaves ({len(leaves[0].members)} per group), "
            "which serve the same nodes"
        )
    elif straddling:
        note = (
            f"one Slurm leaf per leaf switch; {straddling:,} Slurm nodes have ports on two leaves and are listed under "
            "the leaf holding most of their ports (Slurm puts a node under one leaf)"
        )
    else:
        note = "one Slurm leaf per leaf switch"
    return SlurmTopology(tuple(leaves + upper), physical, plan_counts, dragonfly, note)


def topology_conf(topo: SlurmTopology | None, parts: PartitionPlan, *, title: str) -> str:
    """The tree form of topology.conf, with a header of switch counts per tier against the plan."""
    title = comment_text(title)  # user text: one comment line
    head = [f"# topology.conf — {title}", "# TopologyPlugin=topology/tree (slurm.conf); generated from the fabric plan"]
    if topo is None:
        return "\n".join([*head, "# a 3D torus has no switches: Slurm's tree plugin cannot describe it", ""])
    for tier, count in topo.plan_counts.items():
        here = topo.physical_counts.get(tier, 0)
        extra = "" if here == count else f" ({count - here:,} serve Kubernetes nodes only and are left out)"
        head.append(f"# {tier}: {here:,} of the plan's {count:,} switches{extra}")
    head.append(f"# {topo.note}")
    if parts.kubernetes.count:
        head.append(f"# {parts.hostlist(parts.kubernetes)} run Kubernetes and are not in slurm.conf")
    lines = []
    for s in topo.switches:
        if s.level == 0 and (len(s.members) > 1 or s.members[0] != s.name):
            lines.append(f"# {s.name}: {compress(s.members)}")
        if s.name == "global":
            lines.append("# global: the Dragonfly+ global links between groups (not a switch)")
        lines.append(s.line())
    return "\n".join([*head, *lines, ""])


def block_conf(topo: SlurmTopology | None, parts: PartitionPlan, *, title: str) -> str:
    """The block form (Slurm ≥ 23.11): one base block per Slurm leaf; ``BlockSizes`` in nodes, the base block
    size times the powers of two that fit (a job spans 1, 2, 4 … whole blocks)."""
    title = comment_text(title)  # user text: one comment line
    head = [f"# topology.conf (block form) — {title}", "# TopologyPlugin=topology/block: Slurm 23.11 and later"]
    if topo is None:
        return "\n".join([*head, "# a 3D torus has no switches: no blocks", ""])
    blocks = topo.level(0)
    lines = [
        f"BlockName=block{i + 1:03d} Nodes={compress(b.nodes)}  # {compress(b.members)}" for i, b in enumerate(blocks)
    ]
    sizes_in_nodes = {len(b.nodes) for b in blocks}
    if len(sizes_in_nodes) == 1:
        base = sizes_in_nodes.pop()
        sizes = [base << i for i in range(len(blocks).bit_length())]  # 2^i ≤ blocks for i < bit_length
        tail = f"BlockSizes={','.join(map(str, sizes))}"
    else:
        tail = "# blocks of unequal node counts (a partly filled last unit): BlockSizes left to Slurm's default"
    return "\n".join([*head, *lines, tail, ""])


@dataclass(frozen=True)
class NodeLocality:
    """Where one node sits in the fabric: its leaf (or leaf group) and its pod (the spines its leaves reach)."""

    node: str
    leaf: str
    pod: str
    su: str = ""  # the scalable unit of a rail-optimized fabric ("" for a fabric without SUs)


def node_localities(plan: FabricPlan, parts: PartitionPlan, names: list[str]) -> list[NodeLocality]:
    """Leaf group and pod of each of ``names``, numbered as in topology.conf.

    Pods: leaf groups whose leaves reach the same spines (one pod in a 2-tier fabric, a pod per spine
    group in 3 tiers, a group in Dragonfly+). A 3D torus: every node its own leaf, one pod."""
    if plan.topology == Topology.TORUS_3D:
        return [NodeLocality(n, n, "pod01") for n in names]
    all_names = parts.names(NodeRange(1, parts.node_count))
    e, down, phys, leaves, _, _ = _fabric_leaves(plan, parts.node_count, all_names)
    up = ~down & ((e.node_tier[e.u] == 0) | (e.node_tier[e.v] == 0))
    spines_of: dict[str, set[int]] = {}
    for u, v in zip(e.u[up].tolist(), e.v[up].tolist()):
        leaf, spine = (u, v) if e.node_tier[u] == 0 else (v, u)
        spines_of.setdefault(phys(leaf), set()).add(spine)
    w = plan.wiring
    su_nodes = w.su_nodes if isinstance(w, ClosWiring) else 0
    index = {n: k for k, n in enumerate(all_names)}
    pods: dict[frozenset[int], str] = {}
    where: dict[str, NodeLocality] = {}
    for leaf in leaves:
        key = frozenset(x for m in leaf.members for x in spines_of.get(m, ()))
        pod = pods.setdefault(key, f"pod{len(pods) + 1:02d}")
        for n in leaf.nodes:
            su = f"su{(index[n] + w.reserved_slots) // su_nodes + 1:02d}" if su_nodes else ""
            where[n] = NodeLocality(n, leaf.name, pod, su)
    return [where[n] for n in names]
