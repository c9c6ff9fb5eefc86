"""Line-by-line comparison of a BOM with a published one (the seed chapter's Table 14-25).

The reference is the chapter's own table (seed-figures.md D7); each row says which of our
SKUs it corresponds to, so quantities and totals can be set side by side and the
differences explained rather than hidden.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from bom.build import Bom


@dataclass(frozen=True)
class ReferenceLine:
    item: str
    quantity: int
    unit_price_usd: Decimal
    plane: str
    skus: tuple[str, ...]  # our SKUs that this line buys ("MPO12-" prefix matches every length)
    note: str

    @property
    def subtotal_usd(self) -> Decimal:
        return self.unit_price_usd * self.quantity


SEED_D7: tuple[ReferenceLine, ...] = (
    ReferenceLine(
        "IB switch QM9700 (64-port NDR)",
        96,
        Decimal(65000),
        "compute",
        ("QM9700",),
        "same count: 64 leaves + 32 spines",
    ),
    ReferenceLine(
        "Mgmt ToR Arista 7050SX3", 34, Decimal(12000), "management", ("7050SX3-48YC8",), "same count: ⌈267 servers ÷ 8⌉"
    ),
    ReferenceLine("Mgmt spine Arista 7280SR3", 2, Decimal(45000), "management", ("7280SR3-48YC8",), "same count"),
    ReferenceLine(
        "Storage switch Arista 7050CX3",
        4,
        Decimal(18000),
        "storage",
        ("7050CX3-32S",),
        "4 × 32 ports cannot take 250 × 2 + 8 × 2 = 516 storage NIC ports; we size a leaf–spine",
    ),
    ReferenceLine(
        "IB optical module NDR OSFP",
        4048,
        Decimal(800),
        "compute",
        ("MMA4Z00-NS400", "MMA4Z00-NS"),
        "the chapter buys one module per link; a link has two ends — one single-port module at "
        "each NIC and a twin-port 2 × 400G module per two switch ports",
    ),
    ReferenceLine(
        "IB fibre NDR MPO-12 20 m",
        4048,
        Decimal(150),
        "compute",
        ("MPO12-",),
        "one fibre per link, as the chapter counts; lengths follow the floor plan",
    ),
    ReferenceLine(
        "Ethernet module 25/100GbE SFP",
        680,
        Decimal(200),
        "management",
        ("SFP28-25G-SR", "QSFP28-100G-SR4"),
        "the chapter counts 34 full ToRs × (8 servers + 2 uplinks) × 2 ends = 680; 267 servers fill them unevenly",
    ),
)
SEED_D7_TOTAL_USD = Decimal(10_791_600)


@dataclass(frozen=True)
class ReconciledLine:
    reference: ReferenceLine
    our_quantity: int
    our_subtotal_usd: Decimal

    @property
    def quantity_delta(self) -> int:
        return self.our_quantity - self.reference.quantity


def reconcile(bom: Bom, reference: tuple[ReferenceLine, ...] = SEED_D7) -> list[ReconciledLine]:
    out = []
    for ref in reference:
        matched = [
            ln
            for ln in bom.lines
            if ln.plane == ref.plane
            and not ln.spare
            and any(ln.sku == s or (s.endswith("-") and ln.sku.startswith(s)) for s in ref.skus)
        ]
        out.append(
            ReconciledLine(
                ref, sum(ln.quantity for ln in matched), sum((ln.extended_price_usd for ln in matched), Decimal("0"))
            )
        )
    return out


def reference_total_usd(reference: tuple[ReferenceLine, ...] = SEED_D7) -> Decimal:
    return sum((r.subtotal_usd for r in reference), Decimal("0"))
