"""Plain part records the pure builders work with (the Django catalog converts to these)."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import NamedTuple


class PartKind(enum.StrEnum):
    SWITCH = "switch"
    NIC = "nic"
    TRANSCEIVER = "transceiver"
    CABLE = "cable"
    NODE = "node"
    STORAGE_NODE = "storage_node"
    APPLIANCE = "appliance"  # fabric-management (UFM) servers
    ACCESSORY = "accessory"  # racks, PDUs, patch panels, cable managers
    SCALE_UP = "scale_up"  # NVLink switch trays and spines of rack-scale systems (part of the rack)


class CableMedia(enum.StrEnum):
    DAC = "dac"  # passive copper, in-rack
    ACC = "acc"  # active copper (ACC/AEC), neighbour rack
    AOC = "aoc"  # active optical cable, ends built in
    FIBRE_MPO = "fibre_mpo"  # MPO-12 OM4 multimode trunk for SR4/SR8 optics
    FIBRE_LC = "fibre_lc"  # LC duplex OM4 for SR optics (25G/100G)
    FIBRE_MPO_SM = "fibre_mpo_sm"  # MPO-12 OS2 single-mode trunk for DR4/DR8 optics
    FIBRE_LC_SM = "fibre_lc_sm"  # duplex OS2 (LC, or CS at a twin-port QSFP-DD) for DR/FR/LR optics
    COPPER_RJ45 = "copper_rj45"  # Cat6 for 1GbE BMC


FIBRE_MEDIA = (CableMedia.FIBRE_MPO, CableMedia.FIBRE_LC, CableMedia.FIBRE_MPO_SM, CableMedia.FIBRE_LC_SM)


class Connector(enum.StrEnum):
    """The optical connector of one port of a module, and the connector at each end of a trunk or cord: a trunk
    mates with a module's port only when both name the same connector (an APC end never mates a UPC one)."""

    MPO12_APC = "MPO-12 APC"  # NVIDIA NDR/XDR SR4 and DR4 ports, single-mode DR4 (8 of 12 fibres lit)
    MPO12_UPC = "MPO-12 UPC"  # generic QSFP28/QSFP56 SR4 (8 of 12 fibres lit)
    MPO16_APC = "MPO-16 APC"  # 400G/800G SR8 and DR8: 16 fibres, one connector
    LC_DUPLEX = "LC duplex"  # FR/LR/DR (single lambda) and 25G SR: 2 fibres
    CS_DUPLEX = "CS duplex"  # a twin-port QSFP-DD's two duplex ports (2 × 200G-FR4): two LC duplex do not fit its face
    RJ45 = "RJ45"  # 1000BASE-T


class PortGroup(NamedTuple):
    """Ports of one speed on a switch: 48 × 25G access ports, 8 × 100G uplinks."""

    count: int
    gbps: float

    def __str__(self) -> str:
        return f"{self.count} × {self.gbps:g}G"


# one group: a count ≥ 1, x (or ×), a speed > 0, G — spaces (only) around each; ASCII classes, so the same text is
# a JSON Schema (ECMA-262) pattern: the catalog API states it (designer/api/catalog.py) and enforces it
_COUNT = r"0*[1-9][0-9]*"
_SPEED = r"(?:0*[1-9][0-9]*(?:\.[0-9]+)?|0+\.[0-9]*[1-9][0-9]*)"
_ONE_GROUP = rf" *{_COUNT} *[xX×] *{_SPEED} *[gG] *"
PORT_GROUPS_PATTERN = rf"^{_ONE_GROUP}(?:\+{_ONE_GROUP})*$"
_GROUP = re.compile(r" *([0-9]+) *[xX×] *([0-9]+(?:\.[0-9]+)?) *[gG] *")


def parse_port_groups(text: str) -> tuple[PortGroup, ...]:
    """'8x100G' or '8 × 100G + 4 × 400G' → port groups; '' → none. Raises ValueError on anything else (any
    character but those, spaces included — a tab or a line break is refused, as the API's pattern refuses it)."""
    if text == "" or text.strip(" ") == "":
        return ()
    groups = []
    for item in text.split("+"):
        m = _GROUP.fullmatch(item)
        if m is None or int(m.group(1)) < 1 or float(m.group(2)) <= 0:
            raise ValueError(f"port groups are 'count x speedG' joined by '+', e.g. 8x100G; got {text!r}")
        groups.append(PortGroup(int(m.group(1)), float(m.group(2))))
    return tuple(groups)


def ports_at_least(groups: tuple[PortGroup, ...], gbps: float) -> int:
    """Ports of ``groups`` that run at ``gbps`` or faster."""
    return sum(g.count for g in groups if g.gbps >= gbps - 1e-9)


def groups_serve(groups: tuple[PortGroup, ...], needs: tuple[PortGroup, ...]) -> bool:
    """Whether ports of ``groups`` can be given to every need, a port to one need, each at the need's speed or
    faster. A port fast enough for a faster need is fast enough for a slower one, so it is enough that for every
    speed s the needs at s or faster are no more than the ports at s or faster (Hall's condition on nested sets)."""
    needs = tuple(n for n in needs if n.count > 0)
    return all(sum(n.count for n in needs if n.gbps >= s.gbps - 1e-9) <= ports_at_least(groups, s.gbps) for s in needs)


@dataclass(frozen=True)
class PartSpec:
    sku: str
    kind: PartKind
    vendor: str
    description: str
    unit_price_usd: Decimal
    price_source: str
    price_is_assumption: bool = True
    list_price_usd: Decimal | None = None
    discount_pct: Decimal = Decimal("0")
    port_count: int = 0
    port_gbps: float = 0.0
    ports_per_module: int = 1
    reach_m: float = 0.0
    length_m: float = 0.0
    media: str = ""
    form_factor: str = ""
    power_w: float = 0.0
    rack_units: int = 0
    breakout: str = ""
    currency: str = "USD"
    price_date: str = ""  # the price book's effective date (ISO)
    lead_time_weeks: int | None = None
    quote_reference: str = ""  # set when a supplier's quote prices the part
    extra_port_groups: str = ""  # a switch's ports besides port_count × port_gbps, e.g. "8x100G" (a ToR's uplinks)
    # transceiver: fibres one port's link lights and the connector of each port; cable: fibres it carries and the
    # connector at its ends (0 / "": not declared — a catalog row from before the fields, matched as before)
    fibre_count: int = 0
    connector: str = ""
    # switch / NIC: the electrical lane rate of its cages; transceiver: of its host side (XDR 200G, NDR 100G)
    lane_gbps: float = 0.0
    # who makes it and where that is published (bom/data/catalog.toml): the maker ("generic" where the design
    # fixes no maker), its orderable part number ("" where none is given), the page read and when, and why a part
    # is generic or has no part number
    manufacturer: str = ""
    mfr_part_number: str = ""
    source_url: str = ""
    source_date: str = ""  # ISO date the source was read
    generic_reason: str = ""

    @property
    def label(self) -> str:
        return f"{self.vendor} {self.sku}".strip()

    @property
    def port_groups(self) -> tuple[PortGroup, ...]:
        """Every port group the part really has: its main ports (port_count × port_gbps), then the extra groups."""
        main = (PortGroup(self.port_count, float(self.port_gbps)),) if self.port_count else ()
        return main + parse_port_groups(self.extra_port_groups)

    @property
    def ports_label(self) -> str:
        """'48 × 25G + 8 × 100G'."""
        return " + ".join(str(g) for g in self.port_groups) or "no ports"

    def runs_at(self, gbps: float) -> bool:
        """A transceiver's ports run at ``gbps``: its own speed, or one its ``breakout`` names ("2x100G")."""
        if abs(self.port_gbps - gbps) < 1e-9:
            return True
        try:
            return any(abs(g.gbps - gbps) < 1e-9 for g in parse_port_groups(self.breakout))
        except ValueError:
            return False

    @property
    def ports_per_cage(self) -> int:
        """A switch's (or NIC's) ports per cage of its main group; a transceiver's ports per module."""
        return max(self.ports_per_module, 1)

    @property
    def cage_count(self) -> int:
        """The cages a switch has: ⌈main ports ÷ ports per cage⌉ (72 OSFP cages for 144 × 800G twin-port), plus one
        per port of its extra groups (a ToR's 8 QSFP28 uplinks)."""
        extra = sum(g.count for g in parse_port_groups(self.extra_port_groups))
        return -(-self.port_count // self.ports_per_cage) + extra

    @property
    def radix(self) -> int:
        """Every port the part has, in all its groups."""
        return sum(g.count for g in self.port_groups)

    @property
    def cages_label(self) -> str:
        """'72 OSFP cages × 2 ports (lanes 200G)'."""
        form = f" {self.form_factor}" if self.form_factor else ""
        lanes = f", {self.lane_gbps:g}G lanes" if self.lane_gbps else ""
        return f"{self.cage_count:,}{form} cages, {self.ports_per_cage} port(s) per main cage{lanes}"

    @property
    def infiniband(self) -> bool:
        """An InfiniBand switch, as its description says (the catalog has no protocol column): never an Ethernet
        role's part (management, storage)."""
        return "infiniband" in self.description.lower()
