"""The price of the fabric growth option (issue #34 item 1, "sizing to the need").

A leaf buys the uplinks its *used* down ports need unless ``uplinks_for_full_leaf`` asks for the whole port split
(growth onto the free ports without recabling). Whichever the design chose, the other one is planned here with
the same requirements and priced by the same BOM builder, so the page can show what growth headroom costs.
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from typing import Any

from bom.build import Bom
from bom.links import FabricManagerPortsError
from bom.plan import Catalog, network_bom
from topology import FabricPlan, FabricRequest, FabricRequestError, Topology, plan_fabric
from topology.management_plane import ManagementPlan
from topology.storage_plane import StoragePlan


def _counts(plan: FabricPlan) -> dict[str, int]:
    return {t.name: t.switch_count for t in plan.tiers}


def growth_option(
    freq: FabricRequest,
    fabric: FabricPlan,
    storage: StoragePlan,
    mgmt: ManagementPlan,
    bom: Bom,
    breq: Any,
    catalog: Catalog,
) -> dict[str, Any] | None:
    """The design against its alternative: switches, switch links and BOM dollars of each, with the difference.

    None for a torus (no leaves). The alternative is planned on the same requirements with
    ``uplinks_for_full_leaf`` flipped; when it does not fit (more spines than the tier can take, or no free leaf
    port left for the fabric-management servers) that is said."""
    if fabric.topology == Topology.TORUS_3D:
        return None
    full = freq.uplinks_for_full_leaf
    alt_req = dataclasses.replace(freq, uplinks_for_full_leaf=not full)
    chosen = "uplinks for the whole leaf split" if full else "uplinks for the used down ports"
    other = "uplinks for the used down ports" if full else "uplinks for the whole leaf split (growth)"
    try:
        alt = plan_fabric(alt_req)
    except FabricRequestError as exc:
        return {"option": other, "fits": False, "derivation": f"{other}: " + "; ".join(exc.errors.values())}
    same = _counts(alt) == _counts(fabric) and alt.switch_link_count == fabric.switch_link_count
    try:
        alt_bom = bom if same else network_bom(breq, alt, storage, mgmt, catalog)  # nothing to grow: no second BOM
    except FabricManagerPortsError as exc:  # the whole split, one SU a leaf block, can leave no free leaf port
        return {"option": other, "fits": False, "derivation": f"{other}: {exc}"}
    sized, grown = (alt, fabric) if full else (fabric, alt)
    sized_usd, grown_usd = (alt_bom.total_usd(), bom.total_usd()) if full else (bom.total_usd(), alt_bom.total_usd())
    extra_usd: Decimal = grown_usd - sized_usd
    sized_counts, grown_counts = _counts(sized), _counts(grown)
    extra_switches = {k: grown_counts.get(k, 0) - sized_counts.get(k, 0) for k in grown_counts}
    extra_links = grown.switch_link_count - sized.switch_link_count
    words = ", ".join(f"{v:+,} {k}" for k, v in extra_switches.items())
    return {
        "design": chosen,
        "option": other,
        "fits": True,
        "extra_switch_count": extra_switches,
        "extra_switch_link_count": extra_links,
        "sized_network_usd": str(sized_usd),
        "growth_network_usd": str(grown_usd),
        "extra_usd": str(extra_usd),
        "derivation": (
            f"uplinks for the whole leaf split instead of the used down ports: {words} switches, "
            f"{extra_links:+,} switch links ({sized.switch_link_count:,} → {grown.switch_link_count:,}); network BOM "
            f"${sized_usd:,.2f} → ${grown_usd:,.2f} = {signed_usd(extra_usd)} for the growth headroom "
            f"(the same requirements, the same catalog; this design has {chosen})"
        ),
    }


def signed_usd(amount: Decimal) -> str:
    """A signed dollar amount, the sign before the dollar: "+$13,202,905.00", "−$1,200.50", "$0.00"."""
    if not amount:
        return "$0.00"
    return f"{'+' if amount > 0 else '−'}${abs(amount):,.2f}"
