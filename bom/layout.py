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
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

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
        for name in ("rack_width_m", "row_pitch_m"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive")
        if self.slack_m < 0:
            raise ValueError("slack_m must be ≥ 0")

    # positions are (row, column); a row group's network racks are columns ``racks_per_row``, +1, … of its first row
    def node_position(self, node: int) -> tuple[int, int]:
        rack = node // self.nodes_per_rack
        return rack // self.racks_per_row, rack % self.racks_per_row

    def compute_rows(self, node_count: int) -> int:
        return max(1, -(-node_count // (self.nodes_per_rack * self.racks_per_row)))  # ⌈⌈n ÷ a⌉ ÷ b⌉ = ⌈n ÷ ab⌉

    def network_row(self, row):
        """The row whose end holds the network racks of ``row``'s group: the group's first row (ints or arrays)."""
        return row - row % self.rows_per_network_group

    def row_network_rack(self, row: int) -> tuple[int, int]:
        return self.network_row(row), self.racks_per_row

    def leaf_rack(self, row, index_in_row):
        """End-of-row network racks of a row group (``row`` is its network row, :meth:`network_row`): the group's
        leaves fill columns ``racks_per_row``, +1, … in turn, ``leaves_per_network_rack`` a rack."""
        return row, self.racks_per_row + index_in_row // self.leaves_per_network_rack

    def storage_position(self, infra_row: int, index):
        """Storage servers from the first infrastructure row on, ``storage_per_rack`` a rack (ints or arrays)."""
        rack = index // self.storage_per_rack
        return infra_row + rack // self.racks_per_row, rack % self.racks_per_row

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

    def distance_m(self, a: tuple[int, int], b: tuple[int, int]) -> float:
        return abs(a[0] - b[0]) * self.row_pitch_m + abs(a[1] - b[1]) * self.rack_width_m

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


def standard_length_m(needed_m: float) -> int:
    i = bisect.bisect_left(STANDARD_LENGTHS_M, needed_m - 1e-9)
    if i >= len(STANDARD_LENGTHS_M):
        return math.ceil(needed_m)
    return STANDARD_LENGTHS_M[i]


# --- racks as keys and names (the elevations, the cut sheet, per-rack patch panels) -------------

PANEL_PORTS = 24
"""MPO ports of one 1U fibre patch panel: every switch-to-switch optical trunk lands on a panel
port at each end, in the rack where that end's switch stands (bom/accessories.py)."""

_COLUMN_RADIX = 1 << 24


def rack_key(row, col):
    """One integer per rack (works on ints and numpy arrays): rows from −1 (the spine row) up."""
    return (row + 1) * _COLUMN_RADIX + col


def rack_of_key(key: int) -> tuple[int, int]:
    row, col = divmod(int(key), _COLUMN_RADIX)
    return row - 1, col


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
        out += np.array([offsets.get(int(r), 0) for r in rows.tolist()], dtype=np.int64)
    return out
