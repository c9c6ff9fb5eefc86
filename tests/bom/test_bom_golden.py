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
    assert b.quantity("7050SX3-48YC8") == 34 and b.quantity("7280SR3-48YC8") == 2
    assert b.quantity("SFP28-25G-SR") == 2 * 267  # server end + ToR end
    assert b.quantity("QSFP28-100G-SR4", plane="management") == 2 * 68
    assert sum(ln.quantity for ln in b.lines if ln.sku.startswith("CAT6") and not ln.spare) == 267  # BMC


def test_2000_gpu_by_reach_counts():
    b = design("seed-2000-gpu.yaml").bom
    # nodes in the rack next to the row's network rack use active copper; the rest optics
    assert b.quantity("ACC-400G-5M") == 192
    assert b.quantity("MMA4Z00-NS400") == 2000 - 192
    assert b.quantity("MMA4Z00-NS") == 2952
    assert b.media_counts == {"optics": 4673, "acc": 192, "aoc": 179, "dac": 130, "copper_rj45": 267}
    assert b.quantity_by_kind(PartKind.SWITCH) == 96 + 36 + 36


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
        ("Mgmt spine Arista 7280SR3", 2),
        ("IB fibre NDR MPO-12 20 m", 4048),
    ):
        assert rows[item].our_quantity == qty == rows[item].reference.quantity
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
    from topology.storage_plane import StorageRequest, plan_storage

    plan = plan_storage(StorageRequest(compute_node_count=20, gpu_count=160, switch_count=4))
    shape = ClusterShape(20, 8, 8, 2, 100.0, 8, 2, 200.0, 5, 4, 8, 25.0, 2, 100.0)
    links = list(storage_links(plan, shape, RackLayout()))
    mesh = [ln for ln in links if ln.segment == "switch–switch mesh"]
    assert len(mesh) == 4 * 3 // 2  # one link per pair
    assert len(links) == 20 * 2 + 8 * 2 + 6
    assert all(ln.rack_distance == 0 for ln in mesh)
