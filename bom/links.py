"""Every cable of the three planes, end to end: device, port, speed, length.

The compute fabric comes link by link from its explicit graph (topology/graph.py), so the
cut sheet and the BOM count exactly what the plan wires. Ports are numbered in the order
links are laid; names are stable for a given design.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from bom.layout import RackLayout, index_in_row
from topology.clos import rail_leaf_spans
from topology.graph import fabric_edges
from topology.management_plane import ManagementPlan
from topology.spec import ClosWiring, FabricPlan, Topology
from topology.storage_plane import StoragePlan


class Link(NamedTuple):
    plane: str
    segment: str
    a_device: str
    a_port: str
    a_role: str  # "nic", "bmc", "ufm" or the switch role (compute_switch, storage_switch, mgmt_tor, mgmt_spine)
    z_device: str
    z_port: str
    z_role: str
    speed_gbps: float
    length_m: int
    rack_distance: int
    a_rack: tuple[int, int] = (0, 0)  # (row, column) of the floor plan (bom/layout.py); row −1 is the spine row
    z_rack: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class ClusterShape:
    node_count: int
    nics_per_node: int
    gpus_per_node: int
    storage_nics_per_node: int
    storage_nic_gbps: float
    storage_node_count: int
    storage_node_nics: int
    storage_node_nic_gbps: float
    mgmt_node_count: int
    login_node_count: int
    mgmt_nodes_per_tor: int
    mgmt_tor_access_gbps: float
    mgmt_tor_uplinks: int
    mgmt_uplink_gbps: float
    ufm_server_count: int = 0
    ufm_ports_per_server: int = 1
    ufm_gbps: float = 0.0
    device_count: int = 0  # other fabric-attached devices (e.g. storage gateways on the compute fabric)
    device_ports: int = 2
    nic_planes: int = 1  # each compute NIC used as this many ports on separate planes
    compute_tier_roles: tuple[str, ...] = ("compute_switch", "compute_switch", "compute_switch")
    """The switch role of each compute tier (leaf, spine, core): a tier with a model of its own has a role of
    its own, so its modules are counted by its own cages."""

    @property
    def fabric_ports_per_node(self) -> int:
        """Compute-fabric ports of one node: NICs × planes."""
        return self.nics_per_node * self.nic_planes

    def nic_port_index(self, port_in_node):
        """A node's fabric port (plane-major, as the fabric numbers them) → its port number on the node,
        NIC-major (NIC × planes + plane), so the planes of one NIC sit side by side in its cage (``ibN``)."""
        nic = port_in_node % self.nics_per_node
        plane = port_in_node // self.nics_per_node
        return nic * self.nic_planes + plane

    @property
    def ufm_port_count(self) -> int:
        return self.ufm_server_count * self.ufm_ports_per_server

    @property
    def attached_port_count(self) -> int:
        return self.ufm_port_count + self.device_count * self.device_ports

    def attached_ports(self) -> list[tuple[str, str, str, int, int]]:
        """(role, name prefix, segment, device index, port) of every fabric-attached port, in leaf order."""
        out = [("ufm", "ufm", "UFM–leaf", *divmod(k, self.ufm_ports_per_server)) for k in range(self.ufm_port_count)]
        out += [
            ("device", "fad", "device–leaf", *divmod(k, self.device_ports))
            for k in range(self.device_count * self.device_ports)
        ]
        return out


class _Ports:
    def __init__(self) -> None:
        self.next: dict[str, int] = {}

    def take(self, device: str) -> str:
        n = self.next.get(device, 0)
        self.next[device] = n + 1
        return f"p{n + 1}"


def _name(prefix: str, i: int, width: int = 4) -> str:
    return f"{prefix}{i + 1:0{width}d}"


def _link(layout: RackLayout, plane: str, segment: str, a: tuple, z: tuple, gbps: float) -> Link:
    """A cable between (device, port, role, position) ends; length and rack distance from the floor plan."""
    (a_dev, a_port, a_role, a_pos), (z_dev, z_port, z_role, z_pos) = a, z
    return Link(
        plane,
        segment,
        a_dev,
        a_port,
        a_role,
        z_dev,
        z_port,
        z_role,
        gbps,
        layout.cable_length_m(a_pos, z_pos),
        layout.rack_distance(a_pos, z_pos),
        a_pos,
        z_pos,
    )


class FabricManagerPortsError(ValueError):
    """The leaves have fewer free down ports than the fabric-management servers need."""


def fabric_manager_leaves(plan: FabricPlan, e, ports_needed: int) -> np.ndarray:
    """The leaf (edge-list node id) each fabric-management port plugs into.

    Free leaf down ports are used in leaf order, one port per leaf per round, so the servers
    spread over leaves (and rails) for redundancy — in a rail-optimized fabric with a partial
    scalable unit these are the ports of its empty node slot, as in NVIDIA's SuperPOD designs."""
    if ports_needed == 0:
        return np.zeros(0, dtype=np.int64)
    n = e.endpoint_count
    leaves = np.nonzero(e.node_tier == 0)[0]
    used = np.bincount(e.v[e.u < n], weights=e.links[e.u < n], minlength=e.node_count)[leaves].astype(np.int64)
    free = plan.tiers[0].down_ports_per_switch - used
    if int(free.sum()) < ports_needed:
        raise FabricManagerPortsError(
            f"{ports_needed} fabric-management and attached-device port(s) need free leaf down ports; the leaves have "
            f"{int(free.sum())} — leave a node slot free (fewer nodes) or fewer servers"
        )
    out: list[int] = []
    round_ = 0
    while len(out) < ports_needed:
        for leaf, f in zip(leaves.tolist(), free.tolist(), strict=True):
            if f > round_ and len(out) < ports_needed:
                out.append(leaf)
        round_ += 1
    return np.array(out, dtype=np.int64)


def ufm_position(layout: RackLayout, shape: ClusterShape, index: int, role: str = "ufm") -> tuple[int, int]:
    """Fabric-management servers and other attached devices stand with the management servers."""
    first = shape.mgmt_node_count + shape.login_node_count
    if role != "ufm":
        first += shape.ufm_server_count
    infra_row = layout.compute_rows(shape.node_count)
    row, col = layout.server_position(infra_row, shape.storage_node_count, first + index)
    return int(row), int(col)


def _tier_indices(e) -> tuple[dict[int, int], dict[int, int]]:
    """Each switch's number within its tier, and how many switches each tier has."""
    index = e.index_in_tier()
    counts = np.bincount(e.node_tier[e.endpoint_count :], minlength=len(e.tier_names))
    return dict(enumerate(index.tolist())), {t: int(c) for t, c in enumerate(counts.tolist()) if c}


def leaf_positions(e, first_rows, layout: RackLayout, offsets: dict[int, int] | None = None):
    """Row and column of every leaf (tier 0, by node id) of an edge list: the network row (the row group's
    first row, RackLayout.network_row) of its first endpoint's row (``first_rows[endpoint]``, or
    ``first_rows(endpoints)`` — a function asked for the leaves' first endpoints only; a leaf with none stands in
    row 0), the group's end-of-row network racks filled in leaf order after ``offsets[row]`` leaves already there.
    Returns (leaf ids, rows, columns)."""
    n = e.endpoint_count
    leaves = np.nonzero(e.node_tier == 0)[0]
    leaves = leaves[leaves >= n]
    down = e.u < n
    v, u = e.v[down], e.u[down]
    first = np.full(e.node_count, v.size, dtype=np.int64)  # each leaf's first down link (v.size: none) …
    np.minimum.at(first, v, np.arange(v.size, dtype=np.int64))  # … counted, not sorted (np.unique's return_index)
    cabled = np.flatnonzero(first < v.size)
    row_of = np.zeros(e.node_count, dtype=np.int64)
    ends = u[first[cabled]]
    row_of[cabled] = first_rows(ends) if callable(first_rows) else first_rows[ends]
    rows = layout.network_row(row_of[leaves])
    return leaves, *layout.leaf_rack(rows, index_in_row(rows, offsets))


def leaves_per_row(rows: np.ndarray) -> dict[int, int]:
    values, counts = np.unique(np.asarray(rows, dtype=np.int64), return_counts=True)
    return dict(zip(values.tolist(), counts.tolist(), strict=True))


def compute_leaf_positions(plan: FabricPlan, shape: ClusterShape, layout: RackLayout, e=None):
    """(leaf ids, rows, columns) of the compute fabric's leaves; none for a torus."""
    e = e if e is not None else fabric_edges(plan)
    if plan.topology == Topology.TORUS_3D:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    per_node = shape.fabric_ports_per_node

    def node_rows(endpoints: np.ndarray) -> np.ndarray:
        return np.asarray(layout.node_position(endpoints // per_node)[0], dtype=np.int64)

    def positions() -> tuple:
        first = span_first_nodes(plan, e, per_node)
        if first is None:
            return leaf_positions(e, node_rows, layout)
        leaves = np.arange(e.endpoint_count, e.endpoint_count + first.size, dtype=np.int64)
        rows = layout.network_row(np.asarray(layout.node_position(first)[0], dtype=np.int64))
        return leaves, *layout.leaf_rack(rows, index_in_row(rows, None))

    return _remembered(e, ("compute", per_node, _grid(layout)), positions)


def span_first_nodes(plan: FabricPlan, e, per_node: int) -> np.ndarray | None:
    """Each leaf's first node (leaves by id), as :func:`leaf_positions` finds it from the edge list's first link to
    each leaf, read from the spans instead (:func:`rail_spans`: leaf i of copy k takes nodes ``[lo[i], hi[i])``, its
    first link the one of node ``lo[i]``) — no pass over the ≈ 100k links to NICs; None where there are no spans."""
    spans = rail_spans(plan, e, per_node)
    return None if spans is None else np.tile(spans[1], spans[3])


def rail_spans(plan: FabricPlan, e, per_node: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int] | None:
    """A rail-optimized Clos's leaves as edge list ``e`` numbers them: (rail, lo, hi) of one copy's leaves
    (topology.clos.rail_leaf_spans: leaf i takes rail ``rail[i]`` of nodes ``[lo[i], hi[i])``) and the copies (rail
    groups × NIC planes), whose leaves follow one another from node id ``e.endpoint_count`` on. None where the fabric
    is not such a Clos (a node's ports are not rails × copies), or a leaf has no node (the spans skip it)."""
    w = plan.wiring
    if not isinstance(w, ClosWiring) or w.rails * w.copies != per_node:
        return None
    spans, n = rail_leaf_spans(w), e.endpoint_count
    if spans is None or n != w.endpoint_count * w.copies:
        return None
    leaves = spans[2].size * w.copies
    if e.node_tier[n : n + leaves + 1].tolist().count(0) != leaves:
        return None
    return spans[1], spans[2], spans[3], w.copies


def _grid(layout: RackLayout) -> RackLayout:
    """The layout less its hall: a rack's (row, column) — all that leaf positions are — is the same in a hall of
    blocks (the hall only places rows and columns on the floor, RackLayout.position_m)."""
    return replace(layout, hall_slots=(), spine_rows=0, slot_racks=0, hall_starts=()) if layout.hall_slots else layout


def _remembered(e, key: tuple, make) -> tuple:
    """``make()``'s leaf positions of edge list ``e``, remembered by its identity (kept alive beside them:
    topology.graph remembers edge lists too) and ``key``, read-only: the floor plan and the link table ask for the
    same, once with the hall and once without."""
    found = _LEAVES.get((id(e), key))
    if found is None or found[0] is not e:
        positions = make()
        for a in positions:
            a.flags.writeable = False
        _LEAVES[(id(e), key)] = found = (e, positions)
        while len(_LEAVES) > 8:
            del _LEAVES[next(iter(_LEAVES))]
    return found[1]


_LEAVES: dict[tuple, tuple] = {}  # the last few fabrics' leaf positions (_remembered)


def storage_access_rows(shape: ClusterShape, layout: RackLayout) -> np.ndarray:
    """The row of every storage-fabric endpoint: compute nodes' storage NICs, then storage servers' NICs."""
    nodes = np.arange(shape.node_count * shape.storage_nics_per_node) // max(shape.storage_nics_per_node, 1)
    servers = np.arange(shape.storage_node_count * shape.storage_node_nics) // max(shape.storage_node_nics, 1)
    infra_row = layout.compute_rows(shape.node_count)
    return np.concatenate(
        [np.asarray(layout.node_position(nodes)[0]), np.asarray(layout.storage_position(infra_row, servers)[0])]
    ).astype(np.int64)


def storage_leaf_positions(plan: StoragePlan, shape: ClusterShape, layout: RackLayout, compute_rows: np.ndarray):
    """(leaf ids, rows, columns) of the storage leaves, after the compute leaves of each row; a switch mesh
    (no fabric) stands in the first infrastructure row's network racks."""
    offsets = leaves_per_row(compute_rows)
    if plan.fabric is None:
        infra_row = layout.network_row(layout.compute_rows(shape.node_count))
        rows = np.full(plan.switch_count, infra_row, dtype=np.int64)
        return np.arange(plan.switch_count), *layout.leaf_rack(rows, index_in_row(rows, offsets))
    e = fabric_edges(plan.fabric)
    counts = (shape.node_count, shape.storage_nics_per_node, shape.storage_node_count, shape.storage_node_nics)
    key = ("storage", counts, _grid(layout), tuple(sorted(offsets.items())))
    return _remembered(e, key, lambda: leaf_positions(e, storage_access_rows(shape, layout), layout, offsets))


def compute_links(plan: FabricPlan, shape: ClusterShape, layout: RackLayout) -> Iterator[Link]:
    e = fabric_edges(plan)
    ports = _Ports()
    n = e.endpoint_count
    names = ("endpoint", *e.tier_names)
    tier_of = e.node_tier
    tier_index, counters = _tier_indices(e)
    torus = plan.topology == Topology.TORUS_3D
    per_node = shape.gpus_per_node if torus else shape.fabric_ports_per_node

    def endpoint_name(x: int) -> tuple[str, str, tuple[int, int]]:
        node = x // per_node
        port = f"ici{x % per_node}" if torus else f"ib{shape.nic_port_index(x % per_node)}"
        return _name("cn", node, 5), port, layout.node_position(node)

    ids, rows, cols = compute_leaf_positions(plan, shape, layout, e)
    leaf_pos = dict(zip(ids.tolist(), zip(rows.tolist(), cols.tolist(), strict=True), strict=True))

    def switch_pos(x: int) -> tuple[int, int]:
        t = int(tier_of[x])
        if t == 0:
            return leaf_pos[x]
        offset = sum(c for tt, c in counters.items() if 0 < tt < t)
        return layout.spine_row_rack(offset + tier_index[x])

    def switch_name(x: int) -> str:
        return _name(names[int(tier_of[x]) + 1], tier_index[x])

    for u, v, mult, gbps in zip(e.u.tolist(), e.v.tolist(), e.links.tolist(), e.gbps_per_link.tolist(), strict=True):
        for _ in range(mult):
            if torus:
                a_dev, a_port0, a_pos = endpoint_name(u)
                z_dev, z_port0, z_pos = endpoint_name(v)
                yield _link(
                    layout,
                    "compute",
                    "chip–chip",
                    (a_dev, f"{a_port0}.{ports.take(a_dev)}", "nic", a_pos),
                    (z_dev, f"{z_port0}.{ports.take(z_dev)}", "nic", z_pos),
                    gbps,
                )
            elif u < n:
                a_dev, a_port, a_pos = endpoint_name(u)
                z_pos = switch_pos(v)
                z_dev = switch_name(v)
                yield _link(
                    layout,
                    "compute",
                    f"node–{names[int(tier_of[v]) + 1]}",
                    (a_dev, a_port, "nic", a_pos),
                    (z_dev, ports.take(z_dev), shape.compute_tier_roles[int(tier_of[v])], z_pos),
                    gbps,
                )
            else:
                a_pos, z_pos = switch_pos(u), switch_pos(v)
                a_dev, z_dev = switch_name(u), switch_name(v)
                seg = f"{names[int(tier_of[u]) + 1]}–{names[int(tier_of[v]) + 1]}"
                yield _link(
                    layout,
                    "compute",
                    seg,
                    (a_dev, ports.take(a_dev), shape.compute_tier_roles[int(tier_of[u])], a_pos),
                    (z_dev, ports.take(z_dev), shape.compute_tier_roles[int(tier_of[v])], z_pos),
                    gbps,
                )
    if shape.attached_port_count and not torus:
        yield from _attached_links(plan, e, shape, layout, ports, switch_name, switch_pos)


def _attached_links(plan, e, shape: ClusterShape, layout: RackLayout, ports: _Ports, switch_name, switch_pos):
    """UFM servers and other fabric-attached devices into free leaf ports (fabric_manager_leaves)."""
    leaves = fabric_manager_leaves(plan, e, shape.attached_port_count).tolist()
    for leaf, (role, prefix, segment, index, port) in zip(leaves, shape.attached_ports(), strict=True):
        z_dev = switch_name(leaf)
        yield _link(
            layout,
            "compute",
            segment,
            (_name(prefix, index, 2), f"ib{port}", role, ufm_position(layout, shape, index, role)),
            (z_dev, ports.take(z_dev), "compute_switch", switch_pos(leaf)),
            shape.ufm_gbps,
        )


def _ints(position) -> tuple[int, int]:
    return int(position[0]), int(position[1])


def _storage_mesh_links(plan: StoragePlan, layout: RackLayout, access, ports: _Ports, racks) -> Iterator[Link]:
    """A fixed storage switch count: a full mesh, in the infrastructure row's network racks (``racks[i]``)."""
    switches = plan.switch_count
    per_switch = math.ceil(len(access) / switches)
    for i, (dev, port, pos, gbps) in enumerate(access):
        sw = _name("sleaf", i // per_switch)
        yield _link(
            layout,
            "storage",
            "server–switch",
            (dev, port, "nic", pos),
            (sw, ports.take(sw), "storage_switch", racks[i // per_switch]),
            gbps,
        )
    for i in range(switches):  # the mesh itself: every pair of switches
        for j in range(i + 1, switches):
            a, b = _name("sleaf", i), _name("sleaf", j)
            for _ in range(plan.mesh_links_per_pair):
                yield _link(
                    layout,
                    "storage",
                    "switch–switch mesh",
                    (a, ports.take(a), "storage_switch", racks[i]),
                    (b, ports.take(b), "storage_switch", racks[j]),
                    _storage_port_gbps(plan),
                )


def storage_links(
    plan: StoragePlan,
    shape: ClusterShape,
    layout: RackLayout,
    spine_offset: int = 0,
    compute_leaf_rows: np.ndarray | None = None,
) -> Iterator[Link]:
    ports = _Ports()
    infra_row = layout.compute_rows(shape.node_count)
    compute_speed = min(shape.storage_nic_gbps, _storage_port_gbps(plan))
    storage_speed = min(shape.storage_node_nic_gbps, _storage_port_gbps(plan))
    access: list[tuple[str, str, tuple[int, int], float]] = []
    for node in range(shape.node_count):
        for s in range(shape.storage_nics_per_node):
            access.append((_name("cn", node, 5), f"st{s}", layout.node_position(node), compute_speed))
    for i in range(shape.storage_node_count):
        row, col = layout.storage_position(infra_row, i)
        pos = (row, col)
        for s in range(shape.storage_node_nics):
            access.append((_name("sn", i, 3), f"p{s}", pos, storage_speed))
    rows = compute_leaf_rows if compute_leaf_rows is not None else np.zeros(0, dtype=np.int64)
    ids, leaf_rows, leaf_cols = storage_leaf_positions(plan, shape, layout, rows)
    leaf_pos = dict(zip(ids.tolist(), zip(leaf_rows.tolist(), leaf_cols.tolist(), strict=True), strict=True))
    if plan.fabric is None:
        yield from _storage_mesh_links(plan, layout, access, ports, [leaf_pos[i] for i in range(plan.switch_count)])
        return
    e = fabric_edges(plan.fabric)
    n = e.endpoint_count
    names = ("endpoint", *e.tier_names)
    tier_index, counts = _tier_indices(e)

    def pos_of(x: int) -> tuple[int, int]:
        t = int(e.node_tier[x])
        if t == 0:
            return leaf_pos[x]
        below = sum(c for tt, c in counts.items() if 0 < tt < t)  # a core comes after every storage spine
        return layout.spine_row_rack(spine_offset + below + tier_index[x])  # beside the compute spines

    def name_of(x: int) -> str:
        return _name("s" + names[int(e.node_tier[x]) + 1], tier_index[x])

    for u, v, mult in zip(e.u.tolist(), e.v.tolist(), e.links.tolist(), strict=True):
        for _ in range(mult):
            if u < n:
                dev, port, pos, gbps = access[u]
                z_dev, z_pos = name_of(v), pos_of(v)
                yield _link(
                    layout,
                    "storage",
                    "server–leaf",
                    (dev, port, "nic", pos),
                    (z_dev, ports.take(z_dev), "storage_switch", z_pos),
                    gbps,
                )
            else:
                a_dev, z_dev = name_of(u), name_of(v)
                a_pos, z_pos = pos_of(u), pos_of(v)
                yield _link(
                    layout,
                    "storage",
                    "switch–switch",
                    (a_dev, ports.take(a_dev), "storage_switch", a_pos),
                    (z_dev, ports.take(z_dev), "storage_switch", z_pos),
                    _storage_port_gbps(plan),
                )


def _storage_port_gbps(plan: StoragePlan) -> float:
    return plan.switch_port_gbps


def mgmt_server_rows(shape: ClusterShape, layout: RackLayout) -> np.ndarray:
    """The row of every management-plane server, in order: compute nodes, storage, management, login servers."""
    infra_row = layout.compute_rows(shape.node_count)
    storage = shape.storage_node_count
    others = np.arange(shape.mgmt_node_count + shape.login_node_count)
    return np.concatenate(
        [
            np.asarray(layout.node_position(np.arange(shape.node_count))[0]),
            np.asarray(layout.storage_position(infra_row, np.arange(storage))[0]),
            np.asarray(layout.server_position(infra_row, storage, others)[0]),
        ]
    ).astype(np.int64)


def tor_positions(plan: ManagementPlan, shape: ClusterShape, layout: RackLayout, offsets: dict[int, int]):
    """Management ToRs stand in the end-of-row network racks of their first server's row group, after that
    group's compute and storage leaves (``offsets``): compute racks hold nodes and PDUs only, as in NVIDIA's
    SuperPOD."""
    rows_all = mgmt_server_rows(shape, layout)
    if plan.tor_count == 0 or rows_all.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    first = np.minimum(np.arange(plan.tor_count) * shape.mgmt_nodes_per_tor, rows_all.size - 1)
    rows = layout.network_row(rows_all[first])
    return layout.leaf_rack(rows, index_in_row(rows, offsets))


def eor_offsets(compute: FabricPlan, storage: StoragePlan, shape: ClusterShape, layout: RackLayout) -> dict[int, int]:
    """Per row, the compute and storage leaves already in its end-of-row racks (ToRs come after them)."""
    compute_rows = compute_leaf_positions(compute, shape, layout)[1]
    storage_rows = storage_leaf_positions(storage, shape, layout, compute_rows)[1]
    return leaves_per_row(np.concatenate([compute_rows, np.asarray(storage_rows, dtype=np.int64)]))


def management_links(
    plan: ManagementPlan,
    shape: ClusterShape,
    layout: RackLayout,
    spine_offset: int = 0,
    offsets: dict[int, int] | None = None,
) -> Iterator[Link]:
    ports = _Ports()
    infra_row = layout.compute_rows(shape.node_count)
    servers: list[tuple[str, tuple[int, int]]] = [
        (_name("cn", i, 5), layout.node_position(i)) for i in range(shape.node_count)
    ]
    storage = shape.storage_node_count
    servers += [(_name("sn", i, 3), _ints(layout.storage_position(infra_row, i))) for i in range(storage)]
    servers += [
        (_name("mn", i, 3), _ints(layout.server_position(infra_row, storage, i))) for i in range(shape.mgmt_node_count)
    ]
    extra = shape.mgmt_node_count
    servers += [
        (_name("ln", i, 3), _ints(layout.server_position(infra_row, storage, extra + i)))
        for i in range(shape.login_node_count)
    ]
    per_tor = shape.mgmt_nodes_per_tor
    tor_r, tor_c = tor_positions(plan, shape, layout, offsets or {})
    tor_pos = list(zip(tor_r.tolist(), tor_c.tolist(), strict=True))
    for i, (dev, pos) in enumerate(servers):
        t = i // per_tor
        tor = _name("mtor", t, 3)
        yield _link(
            layout,
            "management",
            "server–ToR",
            (dev, "mgmt0", "nic", pos),
            (tor, ports.take(tor), "mgmt_tor", tor_pos[t]),
            shape.mgmt_tor_access_gbps,
        )
        yield _link(
            layout,
            "management",
            "BMC–ToR",
            (dev, "bmc", "bmc", pos),
            (tor, ports.take(tor), "mgmt_tor", tor_pos[t]),
            1.0,
        )
    for t in range(plan.tor_count):
        tor = _name("mtor", t, 3)
        for k in range(shape.mgmt_tor_uplinks):
            s = (t * shape.mgmt_tor_uplinks + k) % plan.spine_count
            spine = _name("mspine", s, 2)
            spine_pos = layout.spine_row_rack(spine_offset + s)
            yield _link(
                layout,
                "management",
                "ToR–spine",
                (tor, f"up{k + 1}", "mgmt_tor", tor_pos[t]),
                (spine, ports.take(spine), "mgmt_spine", spine_pos),
                shape.mgmt_uplink_gbps,
            )


def all_links(
    compute: FabricPlan, storage: StoragePlan, management: ManagementPlan, shape: ClusterShape, layout: RackLayout
) -> Iterator[Link]:
    compute_upper = sum(t.switch_count for t in compute.tiers[1:])
    storage_upper = sum(t.switch_count for t in storage.fabric.tiers[1:]) if storage.fabric else 0
    yield from compute_links(compute, shape, layout)
    leaf_rows = compute_leaf_positions(compute, shape, layout)[1]
    yield from storage_links(storage, shape, layout, spine_offset=compute_upper, compute_leaf_rows=leaf_rows)
    yield from management_links(
        management,
        shape,
        layout,
        spine_offset=compute_upper + storage_upper,
        offsets=eor_offsets(compute, storage, shape, layout),
    )
