"""Every link of the three planes as numpy columns — the BOM's counting input.

:func:`plane_link_table` builds the table from the plans without a Python object per cable
(the live path: figures while typing); :meth:`LinkTable.from_links` builds it from the
per-link records of bom/links.py (the cut sheet). Both place boxes with the same floor plan
(bom/layout.py) and give the same rows up to order and grouping — a property test checks
that — so the live BOM and the exported BOM agree.

Device names are kept only for switch ends (the BOM rounds twin-port modules per switch);
NIC and BMC ends are counted, not named.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from bom.layout import STANDARD_LENGTHS_M, RackLayout, per_rack, rack_key
from bom.links import (
    ClusterShape,
    Link,
    compute_leaf_positions,
    eor_offsets,
    fabric_manager_leaves,
    rail_spans,
    storage_leaf_positions,
    tor_positions,
    ufm_position,
)
from topology.graph import fabric_edges
from topology.management_plane import ManagementPlan
from topology.spec import FabricPlan, Topology
from topology.storage_plane import StoragePlan

NO_DEVICE = -1
NON_SWITCH_ROLES = ("nic", "bmc", "ufm", "device")  # ends that are counted, not named


class _Codes:
    """Strings ↔ small integers, in first-seen order."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.index: dict[str, int] = {}

    def code(self, name: str) -> int:
        i = self.index.get(name)
        if i is None:
            i = self.index[name] = len(self.names)
            self.names.append(name)
        return i

    def codes(self, names: Sequence[str]) -> np.ndarray:
        """:meth:`code` of each name; names all new and distinct (a plane's switches) coded in one go."""
        start, index = len(self.names), self.index
        if index.keys().isdisjoint(names):
            index.update(zip(names, range(start, start + len(names)), strict=True))
            if len(index) == start + len(names):  # all distinct: coded in order, as one by one
                self.names.extend(names)
                return np.arange(start, start + len(names), dtype=np.int64)
            for n in names:  # a name twice: undone, then one by one
                index.pop(n, None)
        return np.array([self.code(n) for n in names], dtype=np.int64)


@dataclass(frozen=True)
class LinkTable:
    """One row per link, or per group of links (``weight``): identical links, or a run of a switch's links to
    NICs (:func:`nic_runs`, ``unmerged`` then gives the table a row a link)."""

    planes: tuple[str, ...]
    segments: tuple[str, ...]
    roles: tuple[str, ...]
    devices: tuple[str, ...]
    plane: np.ndarray
    segment: np.ndarray
    a_role: np.ndarray
    z_role: np.ndarray
    a_dev: np.ndarray
    z_dev: np.ndarray
    a_nic: np.ndarray  # compute NIC ends: node × 64 + NIC index (for twin-port cages), else −1
    z_nic: np.ndarray
    speed_gbps: np.ndarray
    length_m: np.ndarray
    rack_distance: np.ndarray
    a_rack: np.ndarray  # bom.layout.rack_key of each end's rack
    z_rack: np.ndarray
    weight: np.ndarray
    unmerged: Callable[[], LinkTable] | None = field(default=None, compare=False, repr=False)
    # every switch's ends in one rack each, by construction (plane_link_table: a switch's rack is worked out once,
    # from its floor position): bom.build's grouping of ends then need not check it row by row
    one_rack_a_switch: bool = field(default=False, compare=False, repr=False)

    @property
    def link_count(self) -> int:
        return int(self.weight.sum())

    @classmethod
    def from_links(cls, links: Iterable[Link]) -> LinkTable:
        b = _Builder()
        for ln in links:
            b.add_one(ln)
        return b.table()


MAX_NICS_PER_NODE = 256  # the requirement's limit (64 NICs × 4 planes): a NIC port id is node × 256 + port index


def nic_port_id(plane: str, segment: str, role: str, device: str, port: str) -> int:
    """A compute node's NIC port as a number (twin-port cages pair ports 2i and 2i+1), else −1."""
    if plane != "compute" or role != "nic" or not segment.startswith("node–"):
        return NO_DEVICE
    return (int(device[2:]) - 1) * MAX_NICS_PER_NODE + int(port[2:])


class _Builder:
    """Collects column chunks (numpy) or single links, interning the strings."""

    def __init__(self, merge: bool = False) -> None:
        self.merge = merge  # a switch's links to NICs as runs (:func:`nic_runs`), not a row a link
        self.planes, self.segments, self.roles, self.devices = _Codes(), _Codes(), _Codes(), _Codes()
        self.cols: dict[str, list[np.ndarray]] = {k: [] for k in _COLUMNS}
        self.rows: list[tuple] = []

    def dev(self, role: str, name: str) -> int:
        return NO_DEVICE if role in NON_SWITCH_ROLES else self.devices.code(name)

    def add_one(self, ln: Link) -> None:
        self.rows.append(
            (
                self.planes.code(ln.plane),
                self.segments.code(ln.segment),
                self.roles.code(ln.a_role),
                self.roles.code(ln.z_role),
                self.dev(ln.a_role, ln.a_device),
                self.dev(ln.z_role, ln.z_device),
                nic_port_id(ln.plane, ln.segment, ln.a_role, ln.a_device, ln.a_port),
                nic_port_id(ln.plane, ln.segment, ln.z_role, ln.z_device, ln.z_port),
                ln.speed_gbps,
                ln.length_m,
                ln.rack_distance,
                rack_key(*ln.a_rack),
                rack_key(*ln.z_rack),
                1,
            )
        )

    def add(self, plane: str, segment: np.ndarray, segment_names: Sequence[str], **cols: np.ndarray) -> None:
        """A chunk of links of one plane; ``segment`` indexes ``segment_names``; roles as strings per chunk."""
        n = len(segment)

        def const(value: int) -> np.ndarray:  # a chunk's one value, a view: table() copies it once (concatenate)
            return np.broadcast_to(np.int64(value), (n,))

        seg_codes = np.array([self.segments.code(s) for s in segment_names], dtype=np.int64)
        self.cols["plane"].append(const(self.planes.code(plane)))
        self.cols["segment"].append(seg_codes[segment] if n else np.zeros(0, dtype=np.int64))
        for end in ("a_role", "z_role"):
            self.cols[end].append(const(self.roles.code(cols.pop(end))))
        for end in ("a_nic", "z_nic"):
            self.cols[end].append(np.asarray(cols.pop(end)) if end in cols else const(NO_DEVICE))
        for name, values in cols.items():
            self.cols[name].append(np.asarray(values))

    def device_codes(self, names: Sequence[str]) -> np.ndarray:
        return self.devices.codes(names)

    def table(self, unmerged: Callable[[], LinkTable] | None = None, one_rack_a_switch: bool = False) -> LinkTable:
        if self.rows:
            arr = list(zip(*self.rows, strict=True))
            for name, values in zip(_COLUMNS, arr, strict=True):
                self.cols[name].append(np.asarray(values))
        cat = {
            k: np.concatenate(v).astype(_DTYPES[k], copy=False) if v else np.zeros(0, dtype=_DTYPES[k])
            for k, v in self.cols.items()
        }
        return LinkTable(
            tuple(self.planes.names),
            tuple(self.segments.names),
            tuple(self.roles.names),
            tuple(self.devices.names),
            **cat,
            unmerged=unmerged,
            one_rack_a_switch=one_rack_a_switch,
        )


_COLUMNS = (
    "plane",
    "segment",
    "a_role",
    "z_role",
    "a_dev",
    "z_dev",
    "a_nic",
    "z_nic",
    "speed_gbps",
    "length_m",
    "rack_distance",
    "a_rack",
    "z_rack",
    "weight",
)
_DTYPES = {k: (np.float64 if k == "speed_gbps" else np.int64) for k in _COLUMNS}


# --- the floor plan, vectorised (the same arithmetic as bom/layout.py) ----------------------------


def node_positions(layout: RackLayout, node: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return layout.node_position(node)  # its arithmetic works on arrays: one formula


def cable_lengths_m(layout: RackLayout, ar, ac, zr, zc, xy: tuple | None = None) -> np.ndarray:
    """RackLayout.cable_length_m over arrays: distance + slack, bought in the next standard length. ``xy``: both
    ends' floor positions (ax, ay, zx, zy), where the caller has them (a switch's, worked out once a switch)."""
    if xy is None:
        ends = np.broadcast_arrays(*(np.asarray(x, dtype=np.int64) for x in (ar, ac, zr, zc)))
        needed = _distances_m(layout, *ends)
    else:
        needed = np.abs(xy[0] - xy[2]) + np.abs(xy[1] - xy[3])
    needed = np.asarray(needed + layout.slack_m, dtype=float)
    per_metre, top = _PER_METRE, _PER_METRE.size - 2
    whole = np.clip(np.ceil(needed - 1e-9), 0, top + 1).astype(np.int64)
    out = per_metre[whole]
    beyond = whole > top
    if beyond.any():
        out[beyond] = np.ceil(needed[beyond])
    return out


def _per_metre() -> np.ndarray:
    """The standard length bought for a run of ⌈needed⌉ = 0, 1, … metres up to the longest, then 0 (past it).
    standard_length_m's first length ≥ needed − 1e-9 is, lengths being whole metres, the first ≥ ⌈needed − 1e-9⌉:
    looked up in this table a metre a row (a gather, not a binary search a link); past the longest, ⌈needed⌉."""
    lengths = np.array(STANDARD_LENGTHS_M, dtype=np.int64)  # the one table, bom/layout.py (16 entries, whole metres)
    table = np.append(lengths[np.searchsorted(lengths, np.arange(int(lengths[-1]) + 1), side="left")], 0)
    table.flags.writeable = False
    return table


_PER_METRE = _per_metre()


def _distances_m(layout: RackLayout, ar, ac, zr, zc) -> np.ndarray:
    """RackLayout.distances_m with each end's positions worked out once per rack (bom.layout.per_rack)."""
    ax, ay = per_rack(layout.position_m, ar, ac)
    zx, zy = per_rack(layout.position_m, zr, zc)
    return np.abs(ax - zx) + np.abs(ay - zy)


def rack_distances(ar, ac, zr, zc) -> np.ndarray:
    """RackLayout.rack_distance over arrays: 0 same rack, 1 next rack in the row, 2 further."""
    same_row = ar == zr
    return np.where(same_row & (ac == zc), 0, np.where(same_row & (np.abs(ac - zc) == 1), 1, 2))


def rack_distances_of_keys(a_key: np.ndarray, z_key: np.ndarray) -> np.ndarray:
    """:func:`rack_distances` from both ends' rack keys (bom.layout.rack_key: (row + 1) × 2²⁴ + column): keys one
    apart are next racks of one row — racks of two rows are ≥ 2²⁴ − the columns' span apart, and no row holds
    anywhere near 2²⁴ racks — so two gathers a link (a switch's key worked out once), not four."""
    gap = np.abs(a_key - z_key)
    return np.where(gap == 0, 0, np.where(gap == 1, 1, 2))


def _tier_index(node_tier: np.ndarray, first: int) -> tuple[np.ndarray, dict[int, int]]:
    """Each switch's number within its tier (by node id), and the switch count per tier."""
    index = np.zeros(node_tier.size, dtype=np.int64)
    counts: dict[int, int] = {}
    tiers = node_tier[first:]
    for t in np.unique(tiers).tolist():
        ids = np.nonzero(tiers == t)[0] + first
        index[ids] = np.arange(ids.size)
        counts[int(t)] = int(ids.size)
    return index, counts


def switch_names(prefixes: Sequence[str], tier: np.ndarray, index: np.ndarray) -> list[str]:
    """The name of each switch: its tier's prefix and its number in the tier from 1, four digits at least. Where the
    switches come tier by tier, each tier's in number order (as an edge list numbers them, :func:`_tier_index`),
    the names are slices of each prefix's names made once (:data:`_NAMES`: the live form names the same switches on
    every keystroke); else one by one."""
    if tier.size and (np.diff(tier) >= 0).all():
        starts = np.flatnonzero(np.diff(tier, prepend=-1))
        counts = np.diff(np.append(starts, tier.size))
        if np.array_equal(index, np.arange(tier.size) - np.repeat(starts, counts)):
            out: list[str] = []
            for t, n in zip(tier[starts].tolist(), counts.tolist(), strict=True):
                out += numbered(prefixes[t], n)
            return out
    return [f"{prefixes[t]}{i + 1:04d}" for t, i in zip(tier.tolist(), index.tolist(), strict=True)]


def numbered(prefix: str, count: int, width: int = 4) -> list[str]:
    """``prefix`` and 1 … ``count``, ``width`` digits at least: a slice of the names made so far (:data:`_NAMES`)."""
    made = _NAMES.setdefault((prefix, width), [])
    made.extend(f"{prefix}{i + 1:0{width}d}" for i in range(len(made), count))
    return made[:count]


_NAMES: dict[tuple[str, int], list[str]] = {}  # (prefix, width) → names 1, 2, … as far as asked (numbered)


# --- the planes -----------------------------------------------------------------------------------


def compute_table(b: _Builder, plan: FabricPlan, shape: ClusterShape, layout: RackLayout) -> None:
    """bom.links.compute_links, as columns."""
    e = fabric_edges(plan)
    n, u, v = e.endpoint_count, e.u, e.v
    torus = plan.topology == Topology.TORUS_3D
    per_node = shape.gpus_per_node if torus else shape.fabric_ports_per_node
    if torus:
        ar, ac = node_positions(layout, u // per_node)
        zr, zc = node_positions(layout, v // per_node)
        _add(
            b,
            layout,
            "compute",
            np.zeros(u.size, dtype=np.int64),
            ["chip–chip"],
            ("nic", "nic"),
            (ar, ac, zr, zc),
            np.full(u.size, NO_DEVICE),
            np.full(u.size, NO_DEVICE),
            e.gbps_per_link,
            e.links,
        )
        return
    tier = e.node_tier
    index, counts = _tier_index(tier, n)
    sw_r, sw_c = _switch_positions(layout, e, index, counts, compute_leaf_positions(plan, shape, layout, e))
    names = e.tier_names
    sw_dev = np.full(tier.size, NO_DEVICE, dtype=np.int64)
    sw_dev[n:] = b.device_codes(switch_names(names, tier[n:], index[n:]))
    up = _links_to_nics(b, plan, e, shape, layout, per_node, (sw_r, sw_c, sw_dev))  # the rows left: switch–switch
    k = len(names)
    roles = shape.compute_tier_roles
    sw_x, sw_y = np.zeros(tier.size), np.zeros(tier.size)  # each switch's floor position and rack, once a switch
    sw_x[n:], sw_y[n:] = per_rack(layout.position_m, sw_r[n:], sw_c[n:])
    sw_key = rack_key(sw_r, sw_c)
    pair = tier[u[up]] * k + tier[v[up]]  # switch–switch links, by (lower tier, upper tier)
    codes = np.flatnonzero(np.bincount(pair, minlength=k * k)).tolist()  # ascending: (lower, upper) in order
    for code in codes:
        lower, upper = divmod(code, k)
        pick = up if len(codes) == 1 else up[pair == code]
        uu, uv = u[pick], v[pick]
        _add(
            b,
            layout,
            "compute",
            np.full(pick.size, code, dtype=np.int64),
            [f"{x}–{y}" for x in names for y in names],
            (roles[lower], roles[upper]),
            None,
            sw_dev[uu],
            sw_dev[uv],
            e.gbps_per_link[pick],
            e.links[pick],
            xy=(sw_x[uu], sw_y[uu], sw_x[uv], sw_y[uv]),
            keys=(sw_key[uu], sw_key[uv]),
        )
    _fabric_manager_rows(b, plan, e, shape, layout, sw_r, sw_c, sw_dev)


def _fabric_manager_rows(b, plan, e, shape: ClusterShape, layout: RackLayout, sw_r, sw_c, sw_dev) -> None:
    """UFM servers and other fabric-attached devices into free leaf ports (bom.links.fabric_manager_leaves)."""
    if not shape.attached_port_count:
        return
    leaves = fabric_manager_leaves(plan, e, shape.attached_port_count)
    ports = shape.attached_ports()
    for role, segment in (("ufm", "UFM–leaf"), ("device", "device–leaf")):
        pick = np.array([i for i, p in enumerate(ports) if p[0] == role], dtype=np.int64)
        if not pick.size:
            continue
        pos = np.array([ufm_position(layout, shape, ports[i][3], role) for i in pick.tolist()], dtype=np.int64)
        lv = leaves[pick]
        _add(
            b,
            layout,
            "compute",
            np.zeros(lv.size, dtype=np.int64),
            [segment],
            (role, "compute_switch"),
            (pos[:, 0], pos[:, 1], sw_r[lv], sw_c[lv]),
            np.full(lv.size, NO_DEVICE),
            sw_dev[lv],
            shape.ufm_gbps,
            1,
        )


def _links_to_nics(b: _Builder, plan: FabricPlan, e, shape: ClusterShape, layout: RackLayout, per_node: int, sw):
    """The compute fabric's links to NICs into ``b`` (as runs where it merges: :func:`leaf_span_runs`, else
    :func:`nic_runs`); returns the edge list's other rows, its links between switches."""
    n, u, v, tier, names = e.endpoint_count, e.u, e.v, e.node_tier, e.tier_names
    sw_r, sw_c, sw_dev = sw
    runs = leaf_span_runs(plan, e, per_node, sw_dev, layout.nodes_per_rack) if b.merge else None
    if runs is not None:  # the runs from each leaf's span of nodes
        rows, weight, up = runs
    else:
        down = u < n
        rows, up = np.flatnonzero(down), np.flatnonzero(~down)
        weight = e.links[rows]
    du, dv = u[rows], v[rows]
    node = du // per_node
    port = du - node * per_node  # du mod per_node (see node_positions)
    ar, ac = node_positions(layout, node)
    _add(
        b,
        layout,
        "compute",
        tier[dv],
        [f"node–{t}" for t in names],
        ("nic", shape.compute_tier_roles[0]),
        (ar, ac, sw_r[dv], sw_c[dv]),
        np.full(du.size, NO_DEVICE),
        sw_dev[dv],
        e.gbps_per_link[rows],
        weight,
        merge=runs is None,
        a_nic=node * MAX_NICS_PER_NODE + shape.nic_port_index(np.arange(per_node))[port],  # a node's ports: a lookup
    )
    return up


def leaf_span_runs(plan: FabricPlan, e, per_node: int, sw_dev: np.ndarray, nodes_per_rack: int):
    """:func:`nic_runs` of a rail-optimized Clos's links to NICs without a row a link: (each run's first row, its
    links, the edge list's other rows), or None where the fabric is not such a Clos (then the caller makes a row a
    link and runs them).

    In one copy of the wiring (topology.graph.clos_edges; a rail group or NIC plane is a copy) a leaf takes one
    rail's port of a span of nodes, ``[lo, hi)`` (bom.links.rail_spans, in the leaves' order), and the
    copy's first rows are its links to NICs in endpoint order, node × rails + rail; copy k's rows follow copy k − 1's
    and its leaves theirs. Along a leaf its links differ in the NIC end's rack only — the segment, the speed and the
    leaf's rack are the leaf's, the NIC port ascends with the node — and a node's rack is node ÷ nodes a rack
    (bom.layout.RackLayout.node_position): a leaf's runs are its span cut at multiples of ``nodes_per_rack``, a link
    a node. Leaves come in device order (their codes ascend with their ids), so the runs come in the order nic_runs
    sorts them: the same rows and links (tested against it, column for column)."""
    spans = rail_spans(plan, e, per_node)
    if spans is None:
        return None
    rail, lo, hi, copies = spans
    n, leaves = e.endpoint_count, lo.size * copies
    if e.u.size % copies or (np.diff(sw_dev[n : n + leaves]) <= 0).any():
        return None  # copies of unequal rows, or leaves not in device order
    first_rack, last_rack = lo // nodes_per_rack, (hi - 1) // nodes_per_rack
    count = last_rack - first_rack + 1  # racks a leaf's span touches: its runs
    leaf = np.repeat(np.arange(lo.size, dtype=np.int64), count)
    rack = np.arange(leaf.size, dtype=np.int64) - np.repeat(np.cumsum(count) - count, count) + first_rack[leaf]
    start = np.maximum(rack * nodes_per_rack, lo[leaf])
    end = np.minimum(rack * nodes_per_rack + nodes_per_rack, hi[leaf])
    per_copy = e.u.size // copies  # rows of a copy: its links to NICs, then between its switches
    copy_first = (np.arange(copies, dtype=np.int64) * per_copy)[:, None]
    first = (copy_first + (start * (per_node // copies) + rail[leaf])).ravel()  # node × rails + rail
    others = (copy_first + np.arange(n // copies, per_copy, dtype=np.int64)).ravel()
    return first, np.tile(end - start, copies), others


def _switch_positions(layout: RackLayout, e, index: np.ndarray, counts: dict[int, int], leaf_at: tuple):
    """Leaves in the network rack of the row of their first node (``leaf_at``: bom.links.compute_leaf_positions);
    upper tiers packed in the spine row."""
    tier = e.node_tier
    leaves, leaf_rows, leaf_cols = leaf_at
    offset = np.zeros(tier.size, dtype=np.int64)
    for t in counts:
        offset[tier == t] = sum(c for tt, c in counts.items() if 0 < tt < t)
    rows = np.full(tier.size, -1, dtype=np.int64)
    cols = (offset + index) // layout.switches_per_network_rack
    rows[leaves], cols[leaves] = leaf_rows, leaf_cols
    return rows, cols


# fmt: off
def _add(
    b, layout, plane, segment, segment_names, roles, pos, a_dev, z_dev, speed, weight, xy=None, merge=True, keys=None,
    figures=None, **nic,
) -> None:
    # fmt: on
    """A chunk of links (their ends' racks ``pos``, devices, speed, links each): cable lengths, rack distances and
    rack keys worked out; a switch's links to NICs as runs (:func:`nic_runs`) where the builder merges and the
    caller has not (``merge``). Links between switches may come with both ends' floor positions ``xy`` and rack
    keys ``keys`` (each switch's worked out once) instead of ``pos`` (None); links between the same racks as another
    chunk's with its :func:`rack_figures` (``figures``: not worked out twice)."""
    if merge and b.merge and (roles[0] in NON_SWITCH_ROLES) != (roles[1] in NON_SWITCH_ROLES):
        columns = np.broadcast_arrays(*(np.asarray(x) for x in (segment, *pos, a_dev, z_dev, speed, weight)))
        nic_col = next(iter(nic.values()), None)
        nic_at_a = roles[0] in NON_SWITCH_ROLES
        switch = columns[6] if nic_at_a else columns[5]
        # alike: segment, the NIC end's rack, speed — the switch end's rack is the switch's one rack (the table
        # claims it: LinkTable.one_rack_a_switch), the same along any run of its links
        same = [columns[0], *(columns[1:3] if nic_at_a else columns[3:5]), columns[7]]
        first, weight = nic_runs(switch, same, np.asarray(columns[8], dtype=np.int64), nic_col)
        segment, *pos, a_dev, z_dev, speed = (c[first] for c in columns[:8])
        nic = {k: np.asarray(v)[first] for k, v in nic.items()}
    if keys is not None:  # links between switches: both ends' positions and racks a switch's
        length_m, rack_distance = cable_lengths_m(layout, None, None, None, None, xy), rack_distances_of_keys(*keys)
        a_rack, z_rack = keys
    else:
        length_m, rack_distance, a_rack, z_rack = figures if figures is not None else rack_figures(layout, pos, xy)
    shape = np.shape(segment)
    b.add(
        plane,
        np.asarray(segment, dtype=np.int64),
        segment_names,
        a_role=roles[0],
        z_role=roles[1],
        a_dev=np.asarray(a_dev, dtype=np.int64),
        z_dev=np.asarray(z_dev, dtype=np.int64),
        speed_gbps=np.broadcast_to(np.asarray(speed, dtype=float), shape),
        length_m=length_m,
        rack_distance=rack_distance,
        a_rack=np.broadcast_to(a_rack, shape),
        z_rack=np.broadcast_to(z_rack, shape),
        weight=np.broadcast_to(np.asarray(weight, dtype=np.int64), shape),
        **nic,
    )


def rack_figures(layout: RackLayout, pos: tuple, xy=None) -> tuple[np.ndarray, ...]:
    """(bought lengths, rack distances, a ends' rack keys, z ends' rack keys) of links between racks ``pos`` (ar, ac,
    zr, zc) — what :func:`_add` works out of the racks."""
    ar, ac, zr, zc = pos
    length_m, rack_distance = cable_lengths_m(layout, ar, ac, zr, zc, xy), rack_distances(ar, ac, zr, zc)
    a_rack = np.asarray(rack_key(np.asarray(ar), np.asarray(ac)), dtype=np.int64)
    z_rack = np.asarray(rack_key(np.asarray(zr), np.asarray(zc)), dtype=np.int64)
    return length_m, rack_distance, a_rack, z_rack


def nic_runs(switch: np.ndarray, same: list[np.ndarray], weight: np.ndarray, nic: np.ndarray | None):
    """A chunk of links between a switch and NIC (or BMC, device) ends as runs: (each run's first row, its links).

    A run is links of one switch, one after another in the order of their NIC ports (:func:`nic_port_id`; ports
    of no number: as generated), alike in every column of ``same`` (segment, the NIC end's rack, speed; a
    switch stands in one rack) — alike in all the BOM reads but the NIC port: one row of the run's links, the
    first's port. The runs of a switch stay in its ports' order, so a link taken off a run is the one the cut
    sheet's records give first (bom.build.pair_odd_ports ranks a switch's links by length, then port): the same
    counts from either. Two links of one NIC cage are never one row where the count needs them apart: a table of
    runs is counted link by link where a twin-port NIC cage is bought (bom.build._counted_table)."""
    n = switch.size
    if n < 2:
        return np.arange(n), weight
    small = int(switch.max()) - NO_DEVICE < 65_535  # a 16-bit key: numpy's stable sort is a radix sort
    by_switch = (switch - NO_DEVICE).astype(np.uint16) if small else switch
    order = np.argsort(by_switch, kind="stable")
    s_switch = switch[order]
    if nic is not None:
        s_nic = nic[order]
        if (np.diff(s_nic)[s_switch[1:] == s_switch[:-1]] < 0).any():  # a node's planes' ports out of port order
            order = np.lexsort((nic, switch))
            s_switch = switch[order]
    start = np.ones(n, dtype=bool)
    start[1:] = s_switch[1:] != s_switch[:-1]
    for col in same:
        if col.min() == col.max():  # one value in the chunk (a segment, a speed): no run ends at it — not gathered
            continue
        c = col[order]
        start[1:] |= c[1:] != c[:-1]
    at = np.flatnonzero(start)
    return order[at], np.add.reduceat(weight[order], at)


def _storage_access(plan: StoragePlan, shape: ClusterShape, layout: RackLayout):
    """(row, column, speed) of every storage-fabric endpoint: compute-node storage NICs, then servers."""
    port = plan.switch_port_gbps
    nodes = np.arange(shape.node_count * shape.storage_nics_per_node) // shape.storage_nics_per_node
    cr, cc = node_positions(layout, nodes)
    servers = np.arange(shape.storage_node_count * shape.storage_node_nics) // shape.storage_node_nics
    sr, sc = layout.storage_position(layout.compute_rows(shape.node_count), servers)
    speed = np.concatenate(
        [np.full(cr.size, min(shape.storage_nic_gbps, port)), np.full(sr.size, min(shape.storage_node_nic_gbps, port))]
    )
    return np.concatenate([cr, sr]), np.concatenate([cc, sc]), speed


def storage_table(
    b: _Builder, plan: StoragePlan, shape: ClusterShape, layout: RackLayout, spine_offset: int, leaf_rows: np.ndarray
) -> None:
    """bom.links.storage_links, as columns; ``leaf_rows``: the rows of the compute leaves (they fill first)."""
    row, col, speed = _storage_access(plan, shape, layout)
    none = np.full(row.size, NO_DEVICE)
    ids, leaf_r, leaf_c = storage_leaf_positions(plan, shape, layout, leaf_rows)
    if plan.fabric is None:
        _storage_mesh(b, plan, layout, leaf_r, leaf_c, row, col, speed)
        return
    e = fabric_edges(plan.fabric)
    n, tier, u, v = e.endpoint_count, e.node_tier, e.u, e.v
    index, counts = _tier_index(tier, n)
    down = u < n
    below = np.zeros(tier.size, dtype=np.int64)
    for t in counts:
        below[tier == t] = sum(c for tt, c in counts.items() if 0 < tt < t)
    sw_r = np.full(tier.size, -1, dtype=np.int64)
    sw_c = (spine_offset + below + index) // layout.switches_per_network_rack
    sw_r[ids], sw_c[ids] = leaf_r, leaf_c
    sw_dev = np.full(tier.size, NO_DEVICE, dtype=np.int64)
    sw_dev[n:] = b.device_codes(switch_names([f"s{name}" for name in e.tier_names], tier[n:], index[n:]))
    du, dv = u[down], v[down]
    zeros = np.zeros(du.size, dtype=np.int64)
    _add(
        b,
        layout,
        "storage",
        zeros,
        ["server–leaf"],
        ("nic", "storage_switch"),
        (row[du], col[du], sw_r[dv], sw_c[dv]),
        none[du],
        sw_dev[dv],
        speed[du],
        e.links[down],
    )
    uu, uv = u[~down], v[~down]
    _add(
        b,
        layout,
        "storage",
        np.zeros(uu.size, dtype=np.int64),
        ["switch–switch"],
        ("storage_switch", "storage_switch"),
        (sw_r[uu], sw_c[uu], sw_r[uv], sw_c[uv]),
        sw_dev[uu],
        sw_dev[uv],
        plan.switch_port_gbps,
        e.links[~down],
    )


def _storage_mesh(b: _Builder, plan: StoragePlan, layout: RackLayout, sw_r, sw_c, row, col, speed) -> None:
    """A fixed switch count: access links, then every pair of switches (switch i stands at sw_r[i], sw_c[i])."""
    switches = plan.switch_count
    per_switch = -(-row.size // switches)
    rack_r = sw_r[np.arange(row.size) // per_switch]
    rack_c = sw_c[np.arange(row.size) // per_switch]
    names = b.device_codes([f"sleaf{i + 1:04d}" for i in range(switches)])
    _add(
        b,
        layout,
        "storage",
        np.zeros(row.size, dtype=np.int64),
        ["server–switch"],
        ("nic", "storage_switch"),
        (row, col, rack_r, rack_c),
        np.full(row.size, NO_DEVICE),
        names[np.arange(row.size) // per_switch],
        speed,
        1,
    )
    i, j = np.triu_indices(switches, k=1)
    _add(
        b,
        layout,
        "storage",
        np.zeros(i.size, dtype=np.int64),
        ["switch–switch mesh"],
        ("storage_switch", "storage_switch"),
        (sw_r[i], sw_c[i], sw_r[j], sw_c[j]),
        names[i],
        names[j],
        plan.switch_port_gbps,
        plan.mesh_links_per_pair,
    )


def management_table(
    b: _Builder, plan: ManagementPlan, shape: ClusterShape, layout: RackLayout, spine_offset: int, offsets
):
    """bom.links.management_links, as columns."""
    infra_row = layout.compute_rows(shape.node_count)
    cr, cc = node_positions(layout, np.arange(shape.node_count))
    storage = shape.storage_node_count
    sr, sc = layout.storage_position(infra_row, np.arange(storage))
    mr, mc = layout.server_position(infra_row, storage, np.arange(shape.mgmt_node_count + shape.login_node_count))
    row, col = np.concatenate([cr, sr, mr]).astype(np.int64), np.concatenate([cc, sc, mc]).astype(np.int64)
    tor = np.arange(row.size) // shape.mgmt_nodes_per_tor
    tor_r, tor_c = tor_positions(plan, shape, layout, offsets)
    tor_dev = b.device_codes(numbered("mtor", plan.tor_count, 3))
    pos, dev, weight = (row, col, tor_r[tor], tor_c[tor]), tor_dev[tor], np.ones(row.size, dtype=np.int64)
    if b.merge:  # a server's NIC and its BMC go to the same ToR: one set of runs (nic_runs) for both
        first, weight = nic_runs(dev, list(pos), weight, None)
        pos, dev = tuple(x[first] for x in pos), dev[first]
    none, zeros = np.full(dev.size, NO_DEVICE), np.zeros(dev.size, dtype=np.int64)
    figures = rack_figures(layout, pos)  # a server's NIC and its BMC: the same racks, the same runs
    for segment, role, gbps in (("server–ToR", "nic", shape.mgmt_tor_access_gbps), ("BMC–ToR", "bmc", 1.0)):
        _add(
            b, layout, "management", zeros, [segment], (role, "mgmt_tor"), pos, none, dev, gbps, weight, merge=False,
            figures=figures,
        )  # fmt: skip
    t = np.repeat(np.arange(plan.tor_count), shape.mgmt_tor_uplinks)
    k = np.tile(np.arange(shape.mgmt_tor_uplinks), plan.tor_count)
    s = (t * shape.mgmt_tor_uplinks + k) % plan.spine_count
    spine_dev = b.device_codes([f"mspine{i + 1:02d}" for i in range(plan.spine_count)])
    sr = np.full(s.size, -1)
    sc = (spine_offset + s) // layout.switches_per_network_rack
    _add(
        b,
        layout,
        "management",
        np.zeros(s.size, dtype=np.int64),
        ["ToR–spine"],
        ("mgmt_tor", "mgmt_spine"),
        (tor_r[t], tor_c[t], sr, sc),
        tor_dev[t],
        spine_dev[s],
        shape.mgmt_uplink_gbps,
        1,
    )


def plane_link_table(
    compute: FabricPlan,
    storage: StoragePlan,
    management: ManagementPlan,
    shape: ClusterShape,
    layout: RackLayout,
    *,
    merge: bool = True,
    unmerged: Callable[[], LinkTable] | None = None,
) -> LinkTable:
    """The links of all three planes as columns, without a record per cable (see bom.links.all_links); ``merge``:
    a switch's links to NICs as runs (:func:`nic_runs`: at 100k GPUs, 180k rows instead of 299k), else a row a
    link — which the table of runs gives (:attr:`LinkTable.unmerged`: ``unmerged``, by default this function
    again; bom.plan.link_table passes its own memo, so both tables count against its budget)."""
    compute_upper = sum(t.switch_count for t in compute.tiers[1:])
    storage_upper = sum(t.switch_count for t in storage.fabric.tiers[1:]) if storage.fabric else 0
    b = _Builder(merge)
    compute_table(b, compute, shape, layout)
    leaf_rows = compute_leaf_positions(compute, shape, layout)[1]
    storage_table(b, storage, shape, layout, spine_offset=compute_upper, leaf_rows=leaf_rows)
    offsets = eor_offsets(compute, storage, shape, layout)
    management_table(b, management, shape, layout, spine_offset=compute_upper + storage_upper, offsets=offsets)
    if not merge:
        return b.table(one_rack_a_switch=True)
    if unmerged is None:

        def unmerged() -> LinkTable:
            return plane_link_table(compute, storage, management, shape, layout, merge=False)

    return b.table(unmerged=unmerged, one_rack_a_switch=True)
