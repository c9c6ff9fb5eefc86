"""BOM diff by manufacturer part number across 2–4 BOMs (pure: no Django).

A buyer comparing two designs or revisions asks what to order more or less of, and what it costs:
each part number's lines are summed per BOM (installed + spares, every plane), then each BOM after
the first is set against the first — ``added`` (not in the first), ``removed`` (not in this one),
``changed`` (quantity or cost differ) or ``same``. Quantities are whole units; money is Decimal.
Every row names the lines it sums (line ids), so an auditor can find them in each BOM.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

ADDED, REMOVED, CHANGED, SAME = "added", "removed", "changed", "same"


@dataclass(frozen=True)
class PartTotal:
    """One part number in one BOM: quantity (spares included), of which spares, extended net cost."""

    quantity: int
    spares: int
    cost_usd: Decimal
    line_ids: tuple[str, ...]

    @property
    def derivation(self) -> str:
        return " + ".join(self.line_ids) if self.line_ids else "not in this BOM"


NONE = PartTotal(0, 0, Decimal("0"), ())


@dataclass(frozen=True)
class DiffRow:
    sku: str
    manufacturer: str
    description: str
    totals: tuple[PartTotal, ...]  # one per BOM, first = the base

    def status(self, i: int) -> str:
        """BOM ``i`` against the first."""
        base, this = self.totals[0], self.totals[i]
        if not base.line_ids and this.line_ids:
            return ADDED
        if base.line_ids and not this.line_ids:
            return REMOVED
        return SAME if (base.quantity, base.cost_usd) == (this.quantity, this.cost_usd) else CHANGED

    def quantity_delta(self, i: int) -> int:
        return self.totals[i].quantity - self.totals[0].quantity

    def cost_delta_usd(self, i: int) -> Decimal:
        return self.totals[i].cost_usd - self.totals[0].cost_usd

    @property
    def differs(self) -> bool:
        return any(self.status(i) != SAME for i in range(1, len(self.totals)))


def part_totals(bom: dict[str, Any]) -> dict[str, tuple[PartTotal, str, str]]:
    """sku → (its total in this BOM, manufacturer, description), in the BOM's line order."""
    out: dict[str, tuple[PartTotal, str, str]] = {}
    for line in bom["lines"]:
        sku = line["sku"]
        prev = out.get(sku, (NONE, line.get("manufacturer", ""), line["description"]))[0]
        qty = int(line["quantity"])
        total = PartTotal(
            prev.quantity + qty,
            prev.spares + (qty if line.get("spare") else 0),
            prev.cost_usd + Decimal(line["extended_price_usd"]),
            (*prev.line_ids, line.get("line_id") or f"{line['plane']}/{line['category']}"),
        )
        out[sku] = (total, line.get("manufacturer", ""), line["description"])
    return out


def bom_diff(boms: Sequence[dict[str, Any]]) -> list[DiffRow]:
    """Rows by part number, in order of first appearance (the base BOM's order, then each later BOM's new parts).

    Conserves money: Σ rows' cost in BOM i = BOM i's total (checked by the tests)."""
    if not 2 <= len(boms) <= 4:
        raise ValueError(f"boms: compare 2 to 4 BOMs, got {len(boms)}")
    per_bom = [part_totals(b) for b in boms]
    skus = list(dict.fromkeys(sku for totals in per_bom for sku in totals))
    rows = []
    for sku in skus:
        _, manufacturer, description = next(t[sku] for t in per_bom if sku in t)
        rows.append(DiffRow(sku, manufacturer, description, tuple(t[sku][0] if sku in t else NONE for t in per_bom)))
    return rows


def diff_summary(rows: Sequence[DiffRow], i: int) -> dict[str, Any]:
    """Counts by status and the cost change of BOM ``i`` against the first."""
    counts = {s: 0 for s in (ADDED, REMOVED, CHANGED, SAME)}
    for row in rows:
        counts[row.status(i)] += 1
    return {**counts, "cost_delta_usd": sum((row.cost_delta_usd(i) for row in rows), Decimal("0"))}
