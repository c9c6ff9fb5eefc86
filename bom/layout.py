"""Where boxes stand, and so how long each cable is.

A simple, stated floor plan (every assumption is a field here and appears in derivations):
compute racks hold ``nodes_per_rack`` nodes, ``racks_per_row`` racks to a row, rows
``row_pitch_m`` apart; each row's network racks stand at its end and hold the leaves (compute and
storage) and management ToRs of that row, as a DGX SuperPOD's network rack serves the compute racks
of its own scalable unit (NVIDIA RA-11333-001, Figure 2). ``rows_per_network_group`` > 1 lets
adjacent rows share the network racks at the end of the group's first row (fewer racks, but a node
of a later row is a row pitch further from its leaf, which can cost its copper reach: on the seed
2,000-GPU design a pair of rows turns 96 of 160 5 m ACC cables into optics), so it is not the
default; the media rules buy what reaches (bom/media.py); spine and core
switches stand in a network row in front of row 0; storage servers fill infrastructure rows
behind the compute rows, and the management, login and fabric-management servers fill the room
the last storage rack leaves before racks of their own (power/racks.py room_after; RA Figure 3).
A cable runs along the rows and across the aisles, plus ``slack_m`` for the vertical runs
and service loops at both ends, and is bought in the next standard length.

The hall (:func:`hall_layout`): while every run of the one block above (the spine row in front, the rows
behind it) stays within ``max_run_m``, that block is the hall. Past it, the rows are laid out as a hall of
row blocks side by side across cross aisles ``aisle_m`` wide, the spine row folded into spine rows of the
same width that fill the middle blocks, the other rows in their order as one snake round them
(:func:`hall_slots`); the depth is the one whose longest rack-to-spine run is shortest. ``max_run_m``
(default 100 m: the channel length of structured cabling within a hall, TIA-942-B / ISO/IEC 11801, and the
reach of 400G and NDR multimode optics on OM4, IEEE 802.3cm 400GBASE-SR4.2 / SR8 100 m) is a check on every
link class (:func:`reach_checks`): a run past it fails, naming its class and the fix. A design too large for
one hall within it is split into halls side by side (at most ``MAX_HALLS``), the rows and the spine-row racks
dealt out in order (not by pod: on the default 100,000-GPU design about half the leaf–spine links then run
between halls), and a run between halls is held to ``between_halls_max_run_m`` (default 500 m: single-mode
400GBASE-DR4, IEEE 802.3bs).

A fabric built of scalable units is laid out as NVIDIA's DGX SuperPOD reference lays it (:func:`su_row_racks`):
one SU a row with its one network rack, bare switches cabled point to point (``point_to_point``: no patch
panels, no cable managers), the spine row packed by switch height (:func:`bare_switches_per_rack`) and the
infrastructure row's switches in its management rack when it has room.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from power.racks import room_after

STANDARD_LENGTHS_M = (1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500)


@dataclass(frozen=True)
class RackLayout:
    nodes_per_rack: int = 4
    racks_per_row: int = 10
    rack_width_m: float = 0.6
    row_pitch_m: float = 2.4
    slack_m: float = 3.0
    switches_per_network_rack: int = 16  # spine row (see :func:`switches_per_rack`)
    leaves_per_network_rack: int = 16  # end-of-row network racks
    storage_per_rack: int = 8  # storage servers in an infrastructure rack (the rack plan's figure)
    servers_per_rack: int = 8  # management, login, fabric-management servers, attached devices
    rows_per_network_group: int = 1  # adjacent rows whose leaves share one group of network racks (1: each row its own)
    management_in_storage_racks: bool = True  # management servers fill the last storage rack's room first
    max_run_m: float = 100.0  # the longest cable run the hall allows (module docstring): a longer one fails a check
    aisle_m: float = 1.2  # cross aisle between two blocks of rows (hall_layout)
    # the hall (hall_layout): () — one block, the spine row in front of row 0; else the (block, depth) slot of each
    # spine row (the first ``spine_rows``) and then of rows 0, 1, …, each slot ``slot_racks`` racks wide
    hall_slots: tuple[tuple[int, int], ...] = ()
    spine_rows: int = 0
    slot_racks: int = 0
    hall_starts: tuple[int, ...] = ()  # first block of each hall after the first (several halls: hall_layout)
    between_halls_max_run_m: float = 500.0  # a run between two halls: single-mode fibre (module docstring)
    # the DGX SuperPOD's cabling (su_row_racks): switches bare, point-to-point fibre — no patch panels, no cable
    # managers — and the infrastructure row's switches in its last rack (column ``infra_switch_col``) when it has room
    point_to_point: bool = False
    infra_row: int = -1
    infra_switch_col: int = -1

    def __post_init__(self) -> None:
        for name in (
            "rows_per_network_group",
            "nodes_per_rack",
            "racks_per_row",
            "switches_per_network_rack",
            "leaves_per_network_rack",
            "storage_per_rack",
            "servers_per_rack",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        for name in ("rack_width_m", "row_pitch_m", "max_run_m"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive")
        if self.slack_m < 0:
            raise ValueError("slack_m must be ≥ 0")
        if self.aisle_m < 0 or self.between_halls_max_run_m <= 0:
            raise ValueError("aisle_m must be ≥ 0 and between_halls_max_run_m positive")

    # positions are (row, column); a row group's network racks are columns ``racks_per_row``, +1, … of its first row
    def node_position(self, node: int) -> tuple[int, int]:
        rack = node // self.nodes_per_rack
        row = rack // self.racks_per_row
        return row, rack - row * self.racks_per_row  # rack mod racks_per_row: numpy's % of an array is 3× its //

    def compute_rows(self, node_count: int) -> int:
        return max(1, -(-node_count // (self.nodes_per_rack * self.racks_per_row)))  # ⌈⌈n ÷ a⌉ ÷ b⌉ = ⌈n ÷ ab⌉

    def network_row(self, row):
        """The row whose end holds the network racks of ``row``'s group: the group's first row (ints or arrays)."""
        return row - row % self.rows_per_network_group

    def row_network_rack(self, row: int) -> tuple[int, int]:
        return self.network_row(row), self.racks_per_row

    def leaf_rack(self, row, index_in_row):
        """End-of-row network racks of a row group (``row`` is its network row, :meth:`network_row`): the group's
        leaves fill columns ``racks_per_row``, +1, … in turn, ``leaves_per_network_rack`` a rack — but the
        infrastructure row's stand in its last rack when the floor plan found room there (``infra_switch_col``)."""
        col = self.racks_per_row + index_in_row // self.leaves_per_network_rack
        if self.infra_switch_col < 0:
            return row, col
        return row, np.where(np.asarray(row) == self.infra_row, self.infra_switch_col, col)

    def storage_position(self, infra_row: int, index):
        """Storage servers from the first infrastructure row on, ``storage_per_rack`` a rack (ints or arrays)."""
        rack = index // self.storage_per_rack
        row = rack // self.racks_per_row
        return infra_row + row, rack - row * self.racks_per_row  # the rack mod racks_per_row (see node_position)

    def server_position(self, infra_row: int, storage_count: int, index):
        """Management, login and fabric-management servers and attached devices: the first ``room_after`` of
        them in the last storage rack's free room, the rest in racks after the storage racks (ints or arrays).
        The room is under ``servers_per_rack``, so ``(index − room) // servers_per_rack`` is −1 for those."""
        shared = room_after(storage_count, self.storage_per_rack, self.servers_per_rack)
        shared = shared if self.management_in_storage_racks else 0
        rack = -(-storage_count // self.storage_per_rack) + (index - shared) // self.servers_per_rack
        return infra_row + rack // self.racks_per_row, rack % self.racks_per_row

    def spine_row_rack(self, index: int) -> tuple[int, int]:
        """Network row in front of row 0 (row −1), switches packed ``switches_per_network_rack`` a rack."""
        return -1, index // self.switches_per_network_rack

    def position_m(self, row, col):
        """(x, y) on the hall floor [m] of rack (row, column) — ints or numpy arrays. One block: x along the row,
        y from the spine row (row −1) back; a hall of blocks: the slot's block and depth (``hall_slots``)."""
        if not self.hall_slots:
            return np.asarray(col) * self.rack_width_m, (np.asarray(row) + 1) * self.row_pitch_m
        row, col = np.asarray(row), np.asarray(col)
        width = self.slot_racks
        spine = row < 0
        slot = np.where(spine, col // width, self.spine_rows + row)
        in_slot = np.where(spine, col % width, col)
        slots = self._slot_array
        last = len(slots) - 1
        beyond = np.maximum(slot - last, 0)  # a row past the planned ones: deeper in the last slot's block
        block, depth = slots[np.minimum(slot, last), 0], slots[np.minimum(slot, last), 1] + beyond
        return block * self.block_pitch_m + in_slot * self.rack_width_m, depth * self.row_pitch_m

    @cached_property
    def _slot_array(self) -> np.ndarray:
        """``hall_slots`` as a (slots, 2) array, read-only, made once a layout (not a field: no part of its repr, its
        equality or the memos' keys) — :meth:`position_m` reads it on every call, ≈ 20 a 100k-GPU live evaluate, and
        a hall of a few hundred slots took ≈ 40 µs to convert each time."""
        slots = np.asarray(self.hall_slots, dtype=np.int64)
        slots.flags.writeable = False
        return slots

    @property
    def block_pitch_m(self) -> float:
        """A block of rows and its cross aisle: slot racks × rack width + aisle."""
        return self.slot_racks * self.rack_width_m + self.aisle_m

    def hall_of(self, row, col):
        """The hall (0, 1, …) rack (row, column) stands in — ints or numpy arrays (one hall: 0)."""
        if not self.hall_starts:
            return np.zeros(np.shape(row), dtype=np.int64)
        block = (self.position_m(row, col)[0] + self.aisle_m / 2) // self.block_pitch_m
        return np.searchsorted(np.asarray(self.hall_starts), block, side="right")

    def distances_m(self, ar, ac, zr, zc):
        """Run along the rows and across the aisles between racks (ar, ac) and (zr, zc) [m], numpy in and out."""
        ax, ay = self.position_m(ar, ac)
        zx, zy = self.position_m(zr, zc)
        return np.abs(ax - zx) + np.abs(ay - zy)

    def distance_m(self, a: tuple[int, int], b: tuple[int, int]) -> float:
        if not self.hall_slots:
            return abs(a[0] - b[0]) * self.row_pitch_m + abs(a[1] - b[1]) * self.rack_width_m
        (ax, ay), (zx, zy) = self._point_m(*a), self._point_m(*b)
        return abs(ax - zx) + abs(ay - zy)

    def point_m(self, row: int, col: int) -> tuple[float, float]:
        """:meth:`position_m` of one rack in plain Python (the same arithmetic, the same floats)."""
        if not self.hall_slots:
            return int(col) * self.rack_width_m, (int(row) + 1) * self.row_pitch_m
        return self._point_m(row, col)

    def _point_m(self, row: int, col: int) -> tuple[float, float]:
        """:meth:`position_m` of one rack in plain Python (the same arithmetic, the same floats): the cut sheet
        asks it twice per cable, and numpy's per-call cost on scalars was 45 s of a 100k-GPU floor plan (and the
        hall map's rows 20 ms of a live 100k evaluate)."""
        row, col = int(row), int(col)
        width = self.slot_racks
        slot, in_slot = (col // width, col % width) if row < 0 else (self.spine_rows + row, col)
        last = len(self.hall_slots) - 1
        block, depth = self.hall_slots[min(slot, last)]
        x = block * self.block_pitch_m + in_slot * self.rack_width_m
        return x, (depth + max(slot - last, 0)) * self.row_pitch_m

    def cable_length_m(self, a: tuple[int, int], b: tuple[int, int]) -> int:
        return standard_length_m(self.distance_m(a, b) + self.slack_m)

    @staticmethod
    def rack_distance(a: tuple[int, int], b: tuple[int, int]) -> int:
        """0 same rack, 1 next rack in the same row, 2 anything further."""
        if a == b:
            return 0
        if a[0] == b[0] and abs(a[1] - b[1]) == 1:
            return 1
        return 2


# --- racks as the DGX SuperPOD reference lays them out ----------------------------------------------------------


def su_row_racks(su_nodes: int | None, nodes_per_rack: int, racks_per_row: int) -> int | None:
    """Compute racks of one scalable unit when a row can be exactly one SU, else None. NVIDIA DGX SuperPOD H100 RA
    (RA-11333-001), Figure 2 "Complete single SU rack layout": an SU's 32 DGX H100 stand 4 a rack in 8 compute racks
    around the SU's one network rack, which holds that SU's leaves (rail-optimized: 8 compute leaves an SU) and
    its management switches; Figure 3: the spines and the management rack's servers, storage and UFM appliances
    stand apart; Table 8 lists point-to-point cables and transceivers, no patch panels. So a fabric built of SUs
    is laid one SU a row, ⌈SU nodes ÷ nodes a rack⌉ racks, when that divides evenly and is no longer than the
    rows asked for (``racks_per_row``)."""
    if not su_nodes or su_nodes % nodes_per_rack:
        return None
    racks = su_nodes // nodes_per_rack
    return racks if racks <= racks_per_row else None


def bare_switches_per_rack(rack_u: int, heights_u: list[int]) -> int:
    """Switches a rack of bare switches holds (point-to-point fibre: no panels, no cable managers), filled in order
    ``heights_u`` k at a time: the largest k whose every run of k (the 1st–kth, (k+1)th–2kth, …) sums to ≤ rack U
    — at least 1."""
    best = 1
    for k in range(1, min(len(heights_u), rack_u // max(1, min(heights_u, default=1))) + 1):
        if all(sum(heights_u[i : i + k]) <= rack_u for i in range(0, len(heights_u), k)):
            best = k
    return best


# --- the hall: one block while it holds, else blocks of rows round central spine rows --------------------------


def one_block_run_m(layout: RackLayout, row_count: int, row_racks: int, spine_racks: int) -> float:
    """The longest run of one block [m]: from the last row's far end to the spine row's far end,
    rows × row pitch + (widest row or spine row − 1) × rack width, + slack."""
    widest = max(row_racks, spine_racks, 1)
    return row_count * layout.row_pitch_m + (widest - 1) * layout.rack_width_m + layout.slack_m


def hall_slots(left: int, middle: int, right: int, depth: int, spine_rows: int, row_count: int):
    """The (block, depth) slot of each spine row and then of each row, in a hall of ``left`` + ``middle`` + ``right``
    blocks of ``depth`` rows: the spine rows fill the middle blocks behind their front row; the rows run in order
    as one snake — up and down the left blocks, ending at the front, across the front of the middle blocks, then
    up and down the right blocks — so consecutive rows (a leaf or ToR serving two rows, the storage rows after the
    last compute row) always stand side by side or a block apart."""
    spine = [(left + m, d) for d in range(1, depth) for m in range(middle)][:spine_rows]
    rows: list[tuple[int, int]] = []
    for b in range(left):  # the last left block ends at the front (depth 0)
        down = (left - 1 - b) % 2 == 0
        rows += [(b, d) for d in (range(depth - 1, -1, -1) if down else range(depth))]
    rows += [(left + m, 0) for m in range(middle)]
    for i in range(right):
        b = left + middle + i
        rows += [(b, d) for d in (range(depth) if i % 2 == 0 else range(depth - 1, -1, -1))]
    return spine + rows[:row_count]


def _hall_shape(spine_rows: int, row_count: int, depth: int) -> tuple[int, int, int]:
    """(left, middle, right) blocks of a hall ``depth`` rows deep: ⌈spine rows ÷ (depth − 1)⌉ middle blocks, the
    rows left over after their front slots split between the sides, the left side taking the odd block."""
    middle = -(-spine_rows // (depth - 1)) if spine_rows else 0
    side = -(-max(0, row_count - middle) // depth)
    return -(-side // 2), middle, side // 2


def _worst_to_spine_m(slots, spine, spine_rows: int, slot_racks: int, layout: RackLayout) -> float:
    """The longest run from a switch of any slot (a row's network racks: columns ``racks_per_row`` on; a spine row's
    racks) to any rack of a spine slot (of any slot when there are no spine rows) [m]: the farthest ends of the
    two spans along x + |Δ depth|, + slack. ``slots``: (block, depth) of every slot (:func:`hall_slots`, ``spine``
    None: its first ``spine_rows`` are the spine rows) or of those that decide it (:func:`_end_slots`, ``spine``
    flags which are spine rows)."""
    s = np.asarray(slots, dtype=float).reshape(-1, 2)
    is_spine = np.arange(len(s)) < spine_rows if spine is None else np.asarray(spine, dtype=bool)
    w = layout.rack_width_m
    x0 = s[:, 0] * (slot_racks * w + layout.aisle_m)
    first = np.where(is_spine, 0, min(layout.racks_per_row, slot_racks - 1)) * w + x0  # where its switches start
    last = x0 + (slot_racks - 1) * w
    y = s[:, 1] * layout.row_pitch_m
    t = is_spine if spine_rows else slice(None)
    t_first, t_last = (x0 if spine_rows else first)[t], last[t]
    dx = np.maximum(np.abs(last[:, None] - t_first[None, :]), np.abs(t_last[None, :] - first[:, None]))
    return float((dx + np.abs(y[:, None] - y[None, t])).max()) + layout.slack_m


def hall_layout(layout: RackLayout, row_count: int, row_racks: int, spine_racks: int) -> tuple[RackLayout, str]:
    """The hall of ``row_count`` rows (compute, then storage and management) up to ``row_racks`` racks wide (their
    network racks included) and ``spine_racks`` spine-row racks, with its derivation (module docstring)."""
    one = one_block_run_m(layout, row_count, row_racks, spine_racks)
    if one <= layout.max_run_m + 1e-9:
        return replace(layout, hall_slots=(), spine_rows=0, slot_racks=0), (
            f"one block: the spine row in front of {row_count} rows of up to {row_racks} racks; longest run "
            f"{row_count} × {layout.row_pitch_m:g} m + ({max(row_racks, spine_racks, 1)} − 1) × "
            f"{layout.rack_width_m:g} m + {layout.slack_m:g} m slack = {one:,.1f} m ≤ {layout.max_run_m:g} m"
        )
    width = max(row_racks, 1)
    spine_rows = -(-spine_racks // width)
    for halls in range(1, MAX_HALLS + 1):
        rows, spines = -(-row_count // halls), -(-spine_rows // halls)
        run, depth = _best_depth(layout, spines, rows, width)
        if run <= layout.max_run_m + 1e-9:
            break
    slots, starts, _ = _halls(halls, depth, spine_rows, row_count)
    hall = replace(layout, hall_slots=slots, spine_rows=spine_rows, slot_racks=width, hall_starts=starts)
    left, middle, right = _hall_shape(spines, rows, depth)
    verdict = "≤" if run <= layout.max_run_m + 1e-9 else ">"
    split = (
        f"{halls} halls side by side, a block's width apart, each of ⌈{row_count} rows ÷ {halls}⌉ = {rows} rows "
        f"and ⌈{spine_rows} spine rows ÷ {halls}⌉ = {spines}, in order (links between halls run single-mode fibre, "
        f"up to {layout.between_halls_max_run_m:g} m), each"
        if halls > 1
        else "a hall of"
    )
    return hall, (
        f"one block would run {one:,.1f} m > {layout.max_run_m:g} m, so {split} {left + middle + right} blocks of "
        f"up to {depth} rows side by side, each {width} racks × {layout.rack_width_m:g} m + a {layout.aisle_m:g} m "
        f"aisle wide: ⌈{spine_racks} spine-row racks ÷ {width}⌉ = {spine_rows} spine rows"
        f"{_middle_blocks_text(halls, spine_rows, spines, depth, middle)}; the rows run in order as one snake "
        f"through {_count(left, 'block')} on the left, {_front_text(middle)} and {_count(right, 'block')} on the "
        f"right; longest switch-to-spine run {run:,.1f} m {verdict} {layout.max_run_m:g} m (the depth with the "
        f"shortest)"
    )


def _count(n: int, noun: str) -> str:
    """ "1 block", "2 blocks", "0 blocks"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _middle_blocks_text(halls: int, spine_rows: int, spines: int, depth: int, middle: int) -> str:
    """Where a hall's spine rows stand: ", 6 in each hall's ⌈6 ÷ (4 − 1)⌉ = 2 middle blocks behind their front
    row" (one hall: "in the hall's"); every slot of a middle block but its front one holds a spine row."""
    if not spine_rows:
        return " (no middle blocks)"
    up_to = "up to " if spine_rows % halls else ""  # ⌈spine rows ÷ halls⌉ a hall, the last one holding the rest
    where = f"{up_to}{spines} in each hall's" if halls > 1 else "in the hall's"
    its = "its" if middle == 1 else "their"
    return f", {where} ⌈{spines} ÷ ({depth} − 1)⌉ = {_count(middle, 'middle block')} behind {its} front row"


def _front_text(middle: int) -> str:
    if not middle:
        return "no middle block"
    return "the middle block's front row" if middle == 1 else "the middle blocks' front row"


MAX_HALLS = 16


def _best_depth(layout: RackLayout, spine_rows: int, row_count: int, width: int) -> tuple[float, int]:
    """(longest switch-to-spine run [m], depth) of the depth whose hall of these rows runs shortest (depths from 2 up
    to :func:`_deepest`; the shallowest of equals): every depth's run at once (:func:`_runs_by_depth`) where the
    hall has spine rows, else depth by depth from the end slots (:func:`_end_slots`)."""
    depths = range(2, min(row_count + spine_rows, _deepest(layout)) + 2)
    if spine_rows:
        runs = _runs_by_depth(layout, spine_rows, row_count, width, np.arange(depths.start, depths.stop))
        at = int(np.argmin(runs))  # the first least: the shallowest, as min() over (run, depth) picks
        return float(runs[at]), depths[at]
    return min(
        (_worst_to_spine_m(*_end_slots(*_hall_shape(spine_rows, row_count, d), d, spine_rows, row_count),
                           spine_rows, width, layout), d)
        for d in depths
    )  # fmt: skip


def _runs_by_depth(layout: RackLayout, spine_rows: int, row_count: int, width: int, depth: np.ndarray) -> np.ndarray:
    """:func:`_worst_to_spine_m` of the end slots (:func:`_end_slots`) of the hall of ``spine_rows`` (> 0) spine
    rows and ``row_count`` rows at each depth in ``depth``, all depths in one numpy pass: the same slots, the same
    float operations on them, the same maxima. Per depth: ⌈spine rows ÷ (depth − 1)⌉ middle blocks (their spine
    rows at depths 1 … n, n = ⌈(spine rows − m) ÷ middle⌉ in middle block m) and the snake's blocks — left,
    the middle blocks' front rows, right — each taking min(its capacity, the rows left) rows from one end."""
    middle = -(-spine_rows // (depth - 1))
    side = -(-np.maximum(0, row_count - middle) // depth)
    left, right = -(-side // 2), side // 2
    # the snake's blocks, depth by depth: k-th block of its depth's left + middle + right
    blocks = left + middle + right
    of = np.repeat(np.arange(depth.size), blocks)
    k = np.arange(of.size) - np.repeat(np.cumsum(blocks) - blocks, blocks)
    d, lf, md = depth[of], left[of], middle[of]
    is_left, is_front = k < lf, (k >= lf) & (k < lf + md)
    cap = np.where(is_front, 1, d)
    before = np.where(is_left, k * d, np.where(is_front, lf * d + (k - lf), lf * d + md + (k - lf - md) * d))
    taken = np.clip(row_count - before, 0, cap)
    down = np.where(is_left, (lf - 1 - k) % 2 == 0, ~is_front & ((k - lf - md) % 2 == 1))
    lo, hi = np.where(down, d - taken, 0), np.where(down, d - 1, taken - 1)
    # the middle blocks' spine rows, depth by depth
    s_of = np.repeat(np.arange(depth.size), middle)
    m = np.arange(s_of.size) - np.repeat(np.cumsum(middle) - middle, middle)
    n = -(-(spine_rows - m) // middle[s_of])
    ends_of = [of[taken > 0], of[(taken > 0) & (hi != lo)], s_of, s_of[n > 1]]
    block = [k[taken > 0], k[(taken > 0) & (hi != lo)], left[s_of] + m, (left[s_of] + m)[n > 1]]
    row = [lo[taken > 0], hi[(taken > 0) & (hi != lo)], np.ones(s_of.size, dtype=np.int64), n[n > 1]]
    spine = np.repeat([False, False, True, True], [x.size for x in ends_of])
    of, block, row = (np.concatenate(x) for x in (ends_of, block, row))
    w = layout.rack_width_m
    x0 = block.astype(float) * (width * w + layout.aisle_m)
    first = np.where(spine, 0, min(layout.racks_per_row, width - 1)) * w + x0
    last = x0 + (width - 1) * w
    y = row.astype(float) * layout.row_pitch_m
    # each depth's spine ends as its targets, padded to the most any depth has (a padded target counts −inf)
    t = np.flatnonzero(spine)
    t = t[np.argsort(of[t], kind="stable")]  # depth by depth
    t_of = of[t]
    t_at = np.arange(t.size) - np.searchsorted(t_of, t_of)  # each spine end's place among its depth's
    pad = np.zeros((depth.size, int(t_at.max()) + 1), dtype=bool)
    pad[t_of, t_at] = True
    t_first, t_last, t_y = (np.zeros(pad.shape) for _ in range(3))
    t_first[t_of, t_at], t_last[t_of, t_at], t_y[t_of, t_at] = x0[t], last[t], y[t]
    tf, tl, ty = t_first[of], t_last[of], t_y[of]
    dx = np.maximum(np.abs(last[:, None] - tf), np.abs(tl - first[:, None]))
    run = np.where(pad[of], dx + np.abs(y[:, None] - ty), -np.inf).max(axis=1)
    worst = np.full(depth.size, -np.inf)
    np.maximum.at(worst, of, run)
    return worst + layout.slack_m


def _end_slots(
    left: int, middle: int, right: int, depth: int, spine_rows: int, row_count: int
) -> tuple[list[tuple[int, int]], list[bool]]:
    """The slots of :func:`hall_slots` that :func:`_worst_to_spine_m` needs, worked out per block without the slots
    themselves: of each block's spine rows and of its other rows, the shallowest and the deepest — (slots as
    (block, depth) rows, spine slots first; the spine ones' flags). A slot's run to a target, and a target's from a
    slot, grows with |Δ depth| alone within one such group (their spans along x are the same), and float
    subtraction is monotone: the longest run is the same to the bit as from every slot."""
    ends: list[tuple[int, int, int, bool]] = []  # (block, shallowest, deepest, spine)
    filled = min(spine_rows, (depth - 1) * middle)  # spine rows fill the middle blocks depth by depth from depth 1
    for m in range(middle):
        n = len(range(m, filled, middle))
        if n:
            ends.append((left + m, 1, n, True))
    left_over = row_count
    runs = [(b, (left - 1 - b) % 2 == 0, depth) for b in range(left)]  # (block, descending, rows): the snake
    runs += [(left + m, False, 1) for m in range(middle)]  # the middle blocks' front rows
    runs += [(left + middle + i, i % 2 == 1, depth) for i in range(right)]
    for block, down, rows in runs:  # cut after row_count rows
        n = min(rows, left_over)
        if n <= 0:
            break
        left_over -= n
        ends.append((block, depth - n, depth - 1, False) if down else (block, 0, n - 1, False))
    picked = [(b, d, sp) for b, lo, hi, sp in ends for d in ((lo,) if lo == hi else (lo, hi))]
    return [(b, d) for b, d, _ in picked], [sp for *_, sp in picked]


def _deepest(layout: RackLayout) -> int:
    """No hall deeper than ⌈max run ÷ row pitch⌉ + 1 rows is worth trying: its front-to-back run alone is past it."""
    return math.ceil(layout.max_run_m / layout.row_pitch_m) + 1


def _halls(halls: int, depth: int, spine_rows: int, row_count: int):
    """Every slot of ``halls`` halls side by side (spine rows and rows dealt out in order, ⌈n ÷ halls⌉ a hall),
    a block's width between them: (slots: all spine rows, then all rows), the first block of each later hall,
    the blocks in all."""
    spines, rows = -(-spine_rows // halls), -(-row_count // halls)
    spine_slots: list[tuple[int, int]] = []
    row_slots: list[tuple[int, int]] = []
    starts: list[int] = []
    block = 0
    for h in range(halls):
        s, r = max(0, min(spines, spine_rows - h * spines)), max(0, min(rows, row_count - h * rows))
        if h:
            starts.append(block)
        left, middle, right = _hall_shape(s, r, depth)
        here = hall_slots(left, middle, right, depth, s, r)
        spine_slots += [(block + b, d) for b, d in here[:s]]
        row_slots += [(block + b, d) for b, d in here[s:]]
        block += left + middle + right + 1
    return tuple(spine_slots + row_slots), tuple(starts), block


def hall_map(
    layout: RackLayout,
    compute_racks: int,
    infra_racks: int,
    network_by_row: dict[int, int],
    spine_racks: int,
    derivation: str = "",
) -> dict:
    """The hall as plain data for the drawing (bom/hall_svg.py) and the stored result: every row with its floor
    position [m] (its first rack's corner, RackLayout.position_m) and its racks by role, in floor order."""
    per_row = layout.racks_per_row
    compute_rows = -(-compute_racks // per_row)
    infra_rows = -(-infra_racks // per_row)
    # (name, row, first column, racks by role): the rows, then the spine row's blocks — one pass, no list a row
    # more than its own (a 100k-GPU floor has ≈ 320 rows, and this runs on every keystroke that changes the fabric)
    names: list[str] = []
    racks: list[list[list]] = []
    network_role = "network: leaves and ToRs"
    for r in range(max(compute_rows + infra_rows, max(network_by_row, default=-1) + 1)):
        if r < compute_rows:
            role, n = "compute", min(per_row, compute_racks - r * per_row)
        else:
            role, n = "storage and management", max(0, min(per_row, infra_racks - (r - compute_rows) * per_row))
        network = network_by_row.get(r, 0)
        names.append(row_name(r))
        own = [[role, int(n)]] if n else []
        if network:
            own.append([network_role, int(network)])
        racks.append(own)
    at_row, at_col = list(range(len(names))), [0] * len(names)
    width = layout.slot_racks if layout.hall_slots else max(spine_racks, 1)
    for j in range(-(-spine_racks // width)):
        names.append(f"N{j + 1}" if layout.hall_slots else "N")
        racks.append([["network: spine and core", int(min(width, spine_racks - j * width))]])
        at_row.append(-1)
        at_col.append(j * width)
    # every row's corner at once (position_m: point_m's arithmetic and floats, on arrays), rounded as one by one
    at = np.array(at_row, dtype=np.int64), np.array(at_col, dtype=np.int64)
    xs, ys = (np.broadcast_to(v, len(names)).astype(float).tolist() for v in layout.position_m(*at))
    rows = [
        {"name": name, "x_m": round(x, 3), "y_m": round(y, 3), "racks": own}
        for name, x, y, own in zip(names, xs, ys, racks, strict=True)
    ]
    return {
        "rack_width_m": layout.rack_width_m,
        "row_pitch_m": layout.row_pitch_m,
        "max_run_m": layout.max_run_m,
        "blocks": 1 + max((b for b, _ in layout.hall_slots), default=0),
        "halls": 1 + len(layout.hall_starts),
        "derivation": derivation,
        "rows": rows,
    }


def reach_checks(classes, max_run_m: float, between_halls_max_run_m: float | None = None) -> list[dict]:
    """One failing check per link class with runs past the limit: ``classes`` are (plane, segment, bought
    lengths [m], links each, between halls (bool)) as numpy arrays; a run within a hall is held to ``max_run_m``,
    one between halls to ``between_halls_max_run_m``. The fix named: a denser hall, pods or halls of their own,
    or fibre rated for the run with the limit raised."""
    out = []
    for plane, segment, lengths, weight, between in classes:
        limit = np.where(between, between_halls_max_run_m or max_run_m, max_run_m)
        over = lengths > limit + 1e-9
        if not over.any():
            continue
        n, longest, total = int(weight[over].sum()), int(lengths[over].max()), int(weight.sum())
        where = (
            f"{max_run_m:g} m within a hall"
            if not between[over].any()
            else f"{between_halls_max_run_m:g} m between halls"
            if between[over].all()
            else f"{max_run_m:g} m within a hall or {between_halls_max_run_m:g} m between halls"
        )
        out.append(
            {
                "ok": False,
                "field": "racks_per_row",
                "name": "cable reach",
                "message": f"{plane} {segment}: {n:,} of {total:,} links run past {where} (longest {longest} m "
                "bought) — fix: more nodes per rack or fewer racks per row for a denser hall, split the design "
                "into pods or halls of their own, or plan single-mode fibre and a longer limit for this class",
            }
        )
    return out


def standard_length_m(needed_m: float) -> int:
    i = bisect.bisect_left(STANDARD_LENGTHS_M, needed_m - 1e-9)
    if i >= len(STANDARD_LENGTHS_M):
        return math.ceil(needed_m)
    return STANDARD_LENGTHS_M[i]


# --- racks as keys and names (the elevations, the cut sheet, per-rack patch panels) -------------

PANEL_PORTS = 24
"""MPO ports of one 1U fibre patch panel: every switch-to-switch optical trunk lands on a panel
port at each end, in the rack where that end's switch stands (bom/accessories.py)."""

_COLUMN_BITS = 24
_COLUMN_RADIX = 1 << _COLUMN_BITS


def per_rack(fn, row: np.ndarray, col: np.ndarray) -> tuple[np.ndarray, ...]:
    """``fn(row, column)`` — numpy in, a tuple of arrays of the same shape out (RackLayout.position_m, or a hall in a
    1-tuple) — over many racks' (row, column), worked out once per rack of the box they span and looked up: a few
    thousand racks stand for ≈ 300k link ends (the same values: the same arithmetic on each rack). The spine row
    (row −1, the widest: its racks run across the blocks) is a box of its own, so a box stays the size of the
    floor's racks, not rows × the spine row's width; a box with over twice as many racks as it is asked for is
    worked out rack by rack instead. Ends all in the spine row or all behind it (a chunk of NIC links) are one box,
    picked out of nothing."""
    row, col = np.asarray(row, dtype=np.int64), np.asarray(col, dtype=np.int64)
    if not row.size:
        return tuple(np.asarray(v) for v in fn(row, col))
    spine = row < 0
    in_spine = int(np.count_nonzero(spine))
    if in_spine in (0, row.size):
        return tuple(_per_rack_box(fn, row, col))
    out: list[np.ndarray] | None = None
    for pick in (spine, ~spine):
        values = _per_rack_box(fn, row[pick], col[pick])
        if out is None:
            out = [np.empty(row.shape, dtype=v.dtype) for v in values]
        for whole, v in zip(out, values, strict=True):
            whole[pick] = v
    assert out is not None
    return tuple(out)


def _per_rack_box(fn, r: np.ndarray, c: np.ndarray) -> list[np.ndarray]:
    """:func:`per_rack` over one box of racks (``r`` not empty)."""
    r0, c0 = int(r.min()), int(c.min())
    rows, cols = int(r.max()) - r0 + 1, int(c.max()) - c0 + 1
    if rows * cols > 2 * r.size:
        return [np.broadcast_to(v, r.shape) for v in fn(r, c)]
    grid_r, grid_c = np.divmod(np.arange(rows * cols, dtype=np.int64), cols)
    at = (r - r0) * cols + (c - c0)
    return [np.broadcast_to(v, grid_r.shape)[at] for v in fn(grid_r + r0, grid_c + c0)]


def rack_key(row, col):
    """One integer per rack (works on ints and numpy arrays): rows from −1 (the spine row) up."""
    return (row + 1) * _COLUMN_RADIX + col


def rack_of_key(key: int) -> tuple[int, int]:
    row, col = divmod(int(key), _COLUMN_RADIX)
    return row - 1, col


def rack_of_key_arrays(keys):
    """:func:`rack_of_key` over a numpy array of keys: (rows, columns)."""
    keys = np.asarray(keys, dtype=np.int64)  # a power-of-two radix: a shift and a mask are divmod's floor and rest
    return (keys >> _COLUMN_BITS) - 1, keys & (_COLUMN_RADIX - 1)


def row_name(row: int) -> str:
    """The spine row in front is "N" (network); compute and infrastructure rows count from 1."""
    return "N" if row < 0 else f"{row + 1:02d}"


def rack_name(position: tuple[int, int]) -> str:
    """``R03-11``: row 03, rack 11 of that row (racks count from 1); ``RN-02`` in the spine row."""
    row, col = position
    return f"R{row_name(row)}-{col + 1:02d}"


def panels_for(trunk_ends: int) -> int:
    """Patch panels a rack needs for the trunk ends landing in it: ⌈ends ÷ PANEL_PORTS⌉."""
    return -(-int(trunk_ends) // PANEL_PORTS)


def switches_per_rack(rack_u: int, switch_u: int, trunk_ports: int) -> int:
    """Switches a network rack holds, each with its 1U cable manager and the patch panels of its trunks:
    the largest k with k × (switch U + 1) + ⌈k × trunk ports ÷ 24⌉ ≤ rack U — at least 1 (a switch that
    cannot fit with its panels is reported by the elevations, not hidden)."""
    k = 1
    while (k + 1) * (switch_u + 1) + panels_for((k + 1) * trunk_ports) <= rack_u:
        k += 1
    return k


def index_in_row(rows, offsets=None):
    """For items given in order with their row: each one's index among the items of its row (+ the row's
    offset, e.g. the compute leaves already in that row's network racks). numpy in, numpy out."""
    import numpy as np

    rows = np.asarray(rows, dtype=np.int64)
    order = np.argsort(rows, kind="stable")
    ordered = rows[order]
    within = np.arange(rows.size) - np.searchsorted(ordered, ordered, side="left")
    out = np.empty(rows.size, dtype=np.int64)
    out[order] = within
    if offsets:
        keys = np.fromiter(offsets, dtype=np.int64, count=len(offsets))
        low = min(int(keys.min()), int(rows.min()) if rows.size else 0)
        table = np.zeros(max(int(keys.max()), int(rows.max()) if rows.size else 0) - low + 1, dtype=np.int64)
        table[keys - low] = np.fromiter(offsets.values(), dtype=np.int64, count=len(offsets))
        out += table[rows - low]  # each row's offset (0 where none): looked up, not a dict lookup an item
    return out
