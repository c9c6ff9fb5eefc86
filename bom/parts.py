"""Plain part records the pure builders work with (the Django catalog converts to these)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from decimal import Decimal


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
    FIBRE_LC_SM = "fibre_lc_sm"  # LC duplex OS2 for DR/FR/LR optics
    COPPER_RJ45 = "copper_rj45"  # Cat6 for 1GbE BMC


FIBRE_MEDIA = (CableMedia.FIBRE_MPO, CableMedia.FIBRE_LC, CableMedia.FIBRE_MPO_SM, CableMedia.FIBRE_LC_SM)


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

    @property
    def label(self) -> str:
        return f"{self.vendor} {self.sku}".strip()
