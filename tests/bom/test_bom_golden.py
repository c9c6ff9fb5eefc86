"""Golden BOM counts for published designs, and the seed chapter's Table 14-25 (D7) line by line."""

from __future__ import annotations

from decimal import Decimal

import pytest
import yaml

from bom.parts import PartKind
from bom.reconcile import SEED_D7_TOTAL_USD, reconcile, reference_total_usd
from designer.services import evaluate
from tests.conftest import EXAMPLES

pytestmark = pytest.mark.django_db


def design(name: str, **bom):
    data = yaml.safe_load((EXAMPLES / name).read_text())
    data["bom"] = {**data.get("bom", {}), **bom}
    return evaluate(data)


def test_2000_gpu_all_optics_counts():
    ev = design("seed-2000-gpu.yaml", media="all_optics")
    b = ev.bom
    assert b.quantity("QM9700") == 96
    assert b.quantity("CX7-NDR-OSFP") == 2000
    # per link END: one single-port module per NIC, twin-port modules per two switch ports
    assert b.quantity("MMA4Z00-NS400") == 2000
    assert b.quantity("MMA4Z00-NS") == 3048  # per rail 7 × ⌈64/2⌉ + ⌈58/2⌉ = 253, × 8 = 2,024; + 32 × 32 = 1,024
    fibre = sum(ln.quantity for ln in b.lines if ln.plane == "compute" and ln.sku.startswith("MPO12-") and not ln.spare)
    assert fibre == 4048  # one fibre per link
    assert ev.fabric.link_end_count == 8096 == 2000 + 2 * 3048
    # the module lines say where they go: 2,000 NIC-leaf + 64 leaves × 32 up = 2,048 leaf-spine = 4,048 optical
    # links; switch ports 2,000 + 2 × 2,048 = 6,096 on 64 leaves + 32 spines, ÷ 2 per twin-port module = 3,048
    per_end = ". Per link end, not per link: 4,048 optical links have 8,096 ends"
    per_end += " (the seed chapter counts one module per link)"
    (twin,) = [ln for ln in b.lines if ln.sku == "MMA4Z00-NS" and not ln.spare]
    assert twin.derivation == (
        "6,096 optical switch ports on 96 compute switches ÷ 2 ports per module "
        "(rounded up per switch and link class: one module a cage) = 3,048" + per_end
    )
    (single,) = [ln for ln in b.lines if ln.sku == "MMA4Z00-NS400" and not ln.spare]
    assert single.derivation == "2,000 NIC ends of optical links × 1 module = 2,000" + per_end
    # storage: 250 compute nodes × 2 + 8 storage servers × 2 = 516 single-port NIC ends; management: 267 servers ×
    # one 25G port, the same on the ToR side, + 34 ToRs × 2 uplinks = 335 optical links
    (storage,) = [ln for ln in b.lines if ln.plane == "storage" and ln.kind == PartKind.TRANSCEIVER and not ln.spare]
    assert storage.derivation.startswith("516 NIC ends of optical links × 1 module = 516; ")
    (mgmt,) = [ln for ln in b.lines if ln.sku == "SFP28-25G-SR" and not ln.spare]
    assert mgmt.derivation == (
        "267 NIC ends of optical links × 1 module = 267; 267 optical switch ports on 34 management ToRs × 1 module "
        "= 267. Per link end, not per link: 335 optical links have 670 ends (the seed chapter counts one module per "
        "link)"
    )
    # the management spine by the ports its role needs, 48 × 100G: the 64 × 100G SN4600C, never the chapter's
    # 7280SR3-48YC8 (48 × 25G + 8 × 100G, as its data sheet and description say)
    assert b.quantity("7050SX3-48YC8") == 34 and b.quantity("SN4600C") == 2 and b.quantity("7280SR3-48YC8") == 0
    assert b.quantity("SFP28-25G-SR") == 2 * 267  # server end + ToR end
    assert b.quantity("QSFP28-100G-SR4", plane="management") == 2 * 68
    assert sum(ln.quantity for ln in b.lines if ln.sku.startswith("CAT6") and not ln.spare) == 267  # BMC


def test_2000_gpu_by_reach_counts():
    """Media by reach on the seed design, derived by hand from the floor plan (bom/layout.py, bom/plan.py).

    Floor plan: 4 DGX per 40 kW rack (10 kW each), 10 racks a row; each row's leaves stand in end-of-row
    network racks (columns 10, 11, …), 12 a rack — the largest k with k × (1U QM9700 + 1U cable manager) +
    ⌈k × 32 uplink trunks ÷ 24⌉ panels ≤ 42U (12: 24 + 16 = 40U; 13: 26 + 18 = 44U) — the row's compute
    leaves first, then its storage leaves; spines in a network row in front (row −1); storage servers
    16 a rack, then management and login servers 26 a rack, in an infrastructure row behind the compute rows.
    250 nodes → 63 compute racks → rows 0–5 full, row 6 with racks 60–62 (columns 0–2). A leaf belongs to
    the row of its first node: an 8-rail SU of 32 nodes has 8 leaves, so rows 0 and 4 (where SUs 1 + 2 and
    6 + 7 begin) hold 16 compute leaves + 4 storage leaves = 20: leaves 1–12 / 41–52 in column 10, leaves
    13–16 / 53–56 (rails 4–7 of SU 2 / SU 7) and the 4 storage leaves in column 11.

    Compute (400G): only the rack next to column 10 (column 9, 0.6 m + 3 m slack → 5 m) takes active
    copper: rows 0–5 × 4 nodes × 8 rails = 192, less rows 0 and 4, whose column-9 nodes (36–39 in SU 2,
    196–199 in SU 7) reach rails 4–7 two racks away (optics): 192 − 2 × 4 × 4 = **160 ACC-400G-5M**. The
    other 2,000 − 160 = 1,840 node links and the 2,048 leaf–spine links (other row) are optics.
    Switch-side twin-port modules: all optics would be 3,048 (per rail 7 × ⌈64/2⌉ + ⌈58/2⌉ = 253, × 8
    = 2,024, + 32 spines × 32 = 1,024). The ACC ends of one row and rail are 4 ports of one leaf: two whole
    cages, so 4 rows × 8 rails × 2 + 2 rows × 4 rails × 2 = 80 fewer modules: **2,968**.

    Storage (100G, seed: 250 × 2 + 8 × 2 = 516 endpoints on 32-port switches at 2:1): a leaf takes
    ⌊32 × 2/3⌋ = 21 down, 11 up (1.91:1); ⌈516 ÷ 21⌉ = 25 leaves, 25 × 11 = 275 uplinks, one to each
    of 11 spines → **36 storage switches**, 516 + 275 = 791 links. The column-9 nodes' storage links
    are 5 m active optical (no 100G ACC in the catalog) where their storage leaf is in column 10: rows 1–3
    and 5, 4 × 4 × 2 = **32 AOC** (rows 0 and 4 have theirs in column 11); 791 − 32 = 759 optics.

    Management (25G, 8 servers a ToR; 267 servers = 250 compute + 8 storage + 5 management + 4 login → 34
    ToRs, 2 uplinks each to 2 spines): a ToR stands in its first server's row, in the end-of-row racks after
    that row's compute and storage leaves (compute racks hold nodes only). Only a server in column 9 with its
    ToR in column 10 would be one rack away; the column-9 nodes 40r + 36 … 39 belong to the row's last ToR,
    which comes after ≥ 11 leaves and so stands in column 11 or beyond. Every server–ToR link is optical:
    **267 LC links**, 2 × 267 SFP28 SR modules; + 34 × 2 = 68 uplinks (other row) = 335 optics, no DAC or
    AOC; **267 BMC copper** links follow the same servers.
    Optics in all: 1,840 + 2,048 + 759 + 335 = **4,982**; AOC: the 32 storage links.
    """
    b = design("seed-2000-gpu.yaml").bom
    assert b.quantity("ACC-400G-5M") == 160
    assert b.quantity("MMA4Z00-NS400") == 2000 - 160
    assert b.quantity("MMA4Z00-NS") == 3048 - 80
    assert b.quantity("AOC-100G-5M", plane="storage") == 32
    mgmt = [ln for ln in b.lines if ln.plane == "management" and not ln.spare]
    mgmt_lc = sum(ln.quantity for ln in mgmt if ln.sku.startswith("LC-OM4"))
    assert mgmt_lc == 267 and b.quantity("SFP28-25G-SR") == 2 * 267
    assert b.media_counts == {"optics": 1840 + 2048 + 759 + 335, "acc": 160, "aoc": 32, "copper_rj45": 267}
    assert b.quantity_by_kind(PartKind.SWITCH) == 96 + (25 + 11) + (34 + 2)


def test_superpod_4su_counts():
    b = design("superpod-4su-h100.yaml", media="all_optics").bom
    assert b.quantity("QM9700") == 48
    assert b.quantity("CX7-NDR-OSFP") == 1016
    assert b.quantity("MMA4Z00-NS400") == 1016
    assert b.quantity("MMA4Z00-NS") == 8 * 4 * 32 + 16 * 32  # 1,536
    fibre = sum(ln.quantity for ln in b.lines if ln.plane == "compute" and ln.sku.startswith("MPO12-") and not ln.spare)
    assert fibre == 1016 + 1024


def test_spares_lines():
    b = design("seed-2000-gpu.yaml", media="all_optics", spares_transceiver_pct=5).bom
    assert b.quantity("MMA4Z00-NS", spares=True) - b.quantity("MMA4Z00-NS") == 153  # ⌈3,048 × 5 %⌉


def test_d7_seed_table_line_by_line():
    assert reference_total_usd() == SEED_D7_TOTAL_USD == Decimal("10791600")
    b = design("seed-2000-gpu.yaml", media="all_optics").bom
    rows = {r.reference.item: r for r in reconcile(b)}
    for item, qty in (
        ("IB switch QM9700 (64-port NDR)", 96),
        ("Mgmt ToR Arista 7050SX3", 34),
        ("IB fibre NDR MPO-12 20 m", 4048),
    ):
        assert rows[item].our_quantity == qty == rows[item].reference.quantity
    # the chapter's 48 × 100GbE management spine is a 48 × 25G + 8 × 100G part: we buy 2 SN4600C instead
    spine = rows["Mgmt spine Arista 7280SR3"]
    assert spine.reference.quantity == 2 and spine.our_quantity == 0 and b.quantity("SN4600C") == 2
    assert rows["IB switch QM9700 (64-port NDR)"].our_subtotal_usd == Decimal("6240000")
    # per end, not per link: 1,000 more modules, and twin-port ones on the switches
    modules = rows["IB optical module NDR OSFP"]
    assert modules.our_quantity == 5048 and modules.quantity_delta == 1000
    assert modules.our_subtotal_usd == 2000 * 800 + 3048 * 1400
    assert modules.our_subtotal_usd - modules.reference.subtotal_usd == Decimal("2628800")
    sfp = rows["Ethernet module 25/100GbE SFP"]
    assert sfp.our_quantity == 670 and sfp.reference.quantity == 680
    storage = rows["Storage switch Arista 7050CX3"]
    assert storage.reference.quantity == 4 and storage.our_quantity == 36


def test_catalog_prices_carry_provenance():
    b = design("seed-2000-gpu.yaml").bom
    qm = next(ln for ln in b.lines if ln.sku == "QM9700")
    assert qm.unit_price_usd == Decimal("65000") and "Table 14-25" in qm.price_source and not qm.price_is_assumption
    twin = next(ln for ln in b.lines if ln.sku == "MMA4Z00-NS")
    assert twin.price_is_assumption and "assumption" in twin.price_source


def test_full_mesh_storage_switches_are_cabled_to_each_other():
    from bom.layout import RackLayout
    from bom.links import ClusterShape, storage_links
    from tests.topology.test_planes import SEED_STORAGE
    from topology.storage_plane import StorageRequest, plan_storage

    plan = plan_storage(
        StorageRequest(**{**SEED_STORAGE, "compute_node_count": 20, "gpu_count": 160, "switch_count": 4})
    )
    shape = ClusterShape(20, 8, 8, 2, 100.0, 8, 2, 200.0, 5, 4, 8, 25.0, 2, 100.0)
    links = list(storage_links(plan, shape, RackLayout()))
    mesh = [ln for ln in links if ln.segment == "switch–switch mesh"]
    assert len(mesh) == 4 * 3 // 2  # one link per pair
    assert len(links) == 20 * 2 + 8 * 2 + 6
    assert all(ln.rack_distance == 0 for ln in mesh)


def test_link_ends_and_the_per_end_note_on_optical_modules_only():
    """Seed design, all optics: 2,000 node links + 2,048 leaf–spine links = 4,048 compute links; with the
    storage and management planes' links the BOM counts every link's two ends. The 'per link end' note (the
    chapter counts one module per link) belongs on the optical module lines, not on the BMC's 1000BASE-T SFPs."""
    b = design("seed-2000-gpu.yaml", media="all_optics").bom
    assert b.link_end_count == 2 * b.link_count and b.link_count >= 4048
    optical = [ln for ln in b.lines if ln.sku == "MMA4Z00-NS400" and not ln.spare]
    assert optical and all("Per link end, not per link" in ln.derivation for ln in optical)
    bmc = [ln for ln in b.lines if ln.category.startswith("transceiver") and "1000BASE-T" in ln.description]
    assert bmc and not any("Per link end" in ln.derivation for ln in bmc)
