"""Issue #10: every device in a rack at a U position, and a cut sheet whose ends say where they are."""

from __future__ import annotations

import csv
import io
import zipfile
from collections import Counter

import pytest

from bom.cells import safe_text
from bom.elevation import Heights, elevations, racks_csv
from bom.links import Link
from bom.netbox import netbox_files, netbox_zip
from bom.plan import Catalog, floor_sheets
from cluster.pipeline import plan_cluster
from cluster.requests import bom_request
from cluster.validate import validate_flat

CATALOG = Catalog.built_in()


def _floor(values: dict):
    r = validate_flat(values)
    plan = plan_cluster(r, CATALOG)
    rows, elev = floor_sheets(bom_request(r), plan.fabric, plan.storage, plan.management, CATALOG)
    return plan, rows, elev


@pytest.fixture(scope="module")
def small():
    return _floor({"gpu_count": 64})


def test_a_compute_rack_by_hand(small):
    """64 H100 GPUs = 8 nodes of 8U (the default node, 8 × 700 W + 4.6 kW host = 10.2 kW), 4 a rack:
    min(⌊41 kW ÷ 10.2 kW⌋ = 4, ⌊42U ÷ 8U⌋ = 5). Bottom up: cn00001 at U1, cn00002 U9, cn00003 U17,
    cn00004 U25 (4 × 8U = 32U); compute racks hold nodes and PDUs only. PDUs: A + B feeds ×
    ⌈4 × 10.2 = 40.8 kW ÷ 17.3 kW⌉ = 3 per feed = 6, zero-U. The management ToR of the first 8 servers stands
    in row 01's end-of-row rack R01-11, after the row's 8 compute leaves and 1 storage leaf: from the top, the
    rack's patch panels, then its switches in name order, each over its cable manager."""
    plan, _, elev = small
    assert plan.power.racks.nodes_per_rack == 4
    assert plan.power.racks.compute_rack_kw == pytest.approx(40.8)
    rack = next(r for r in elev.racks if r.name == "R01-01")
    assert rack.kind == "compute" and rack.power_kw == pytest.approx(40.8)
    units = {p.device: (p.u, p.height_u) for p in rack.placements if p.height_u}
    assert units == {"cn00001": (1, 8), "cn00002": (9, 8), "cn00003": (17, 8), "cn00004": (25, 8)}
    assert sum(1 for p in rack.placements if p.kind == "PDU") == 6
    eor = next(r for r in elev.racks if r.name == "R01-11")
    switches = [p.device for p in sorted(eor.placements, key=lambda p: -p.u) if p.kind == "switch"]
    assert switches == [*(f"leaf{i:04d}" for i in range(1, 9)), "mtor001", "sleaf0001"]  # name order
    assert [p.kind for p in sorted(eor.placements, key=lambda p: p.u) if p.height_u][:2] == ["cable manager", "switch"]


def test_every_cut_sheet_end_is_where_the_elevation_puts_its_device(small):
    _, rows, elev = small
    where = {(rack.name, p.device): p for rack in elev.racks for p in rack.placements}
    for row in rows:
        for end in ("a", "z"):
            p = where[(row[f"{end}_rack"], row[f"{end}_device"])]
            assert row[f"{end}_u"] == p.u and row[f"{end}_row"] == row[f"{end}_rack"][1:].split("-")[0]


@pytest.mark.parametrize(
    "values",
    [
        {"gpu_count": 64},
        {"gpu_count": 512, "topology": "fat_tree"},
        {"gpu_count": 1024, "scalable_unit_nodes": 32},
        {"gpu_count": 2000},
        {"gpu_count": 4096, "topology": "fat_tree", "oversubscription": 2, "storage_node_count": 40},
        {"gpu_count": 1000, "ufm_server_count": 2, "login_node_count": 30},
        {"gpu_count": 576, "gpu_model": "GB200"},  # 48U NVL72 racks: trays, NVLink switch trays, shelves
        {"gpu_count": 4608, "gpu_model": "GB200"},  # a 3-tier storage fabric: its cores after its spines
    ],
)
def test_racks_hold_their_devices_without_overlap_and_panels_match_the_bom(values):
    plan, _, elev = _floor(values)
    for rack in elev.racks:
        used = Counter()
        for p in rack.placements:
            for u in range(p.u, p.u + p.height_u):
                used[u] += 1
        assert all(n == 1 for n in used.values()), rack.name  # no U holds two devices
        if not rack.overflow_u:
            assert all(1 <= u <= rack.rack_u for u in used), rack.name
    racks = plan.power.racks  # the rack plan (BOM rack line, PDUs, power) counts the racks drawn
    assert elev.overflows == []  # every default design's racks hold their devices
    assert [r.name for r in elev.racks if r.over_budget] == []  # and stay within the rack power budget
    assert all(r.power_kw <= racks.compute_rack_kw + 1e-9 for r in elev.racks if r.kind == "compute")
    kinds = Counter(rack.kind for rack in elev.racks)
    assert len(elev.racks) == racks.rack_count
    assert kinds["compute"] == racks.compute_rack_count and kinds["network"] == racks.network_rack_count
    assert kinds["server"] == racks.storage_rack_count + racks.mgmt_rack_count
    devices = Counter(p.device for rack in elev.racks for p in rack.placements)
    assert all(n == 1 for n in devices.values())  # each device in one place
    infra = {ln.category: ln.quantity for ln in plan.bom.lines if ln.plane == "infrastructure" and not ln.spare}
    panels = sum(1 for rack in elev.racks for p in rack.placements if p.kind == "patch panel")
    managers = sum(1 for rack in elev.racks for p in rack.placements if p.kind == "cable manager")
    # the live BOM (numpy table) and the drawn racks agree (none of either in a point-to-point layout: the BOM
    # then has no such line, bom/accessories.py)
    assert panels == infra.get("patch panel", 0)
    assert managers == infra.get("cable manager", 0)
    switches = sum(1 for rack in elev.racks for p in rack.placements if p.kind == "switch")
    assert switches == sum(ln.quantity for ln in plan.bom.lines if ln.category.startswith("switch") and not ln.spare)


def _link(a: str, a_role: str, a_rack, z: str, z_role: str, z_rack) -> Link:
    return Link("compute", "x", a, "p1", a_role, z, "p1", z_role, 400.0, 3, 0, a_rack, z_rack)


def test_a_rack_that_cannot_hold_its_devices_is_reported_not_squeezed():
    """A 10U rack with two 4U nodes (8U) and one 1U switch + 1U cable manager (2U) holds 10U exactly; a
    third node makes 14U: the check names the rack and its need, and the devices are numbered past U10."""
    heights = Heights(
        rack_u=10, node_u=4, storage_u=2, mgmt_u=1, switch_u={"mgmt_tor": 1}, switch_sku={"mgmt_tor": "T"}
    )
    fits = [_link(f"cn{i:05d}", "nic", (0, 0), "mtor001", "mgmt_tor", (0, 0)) for i in (1, 2)]
    elev = elevations(fits, [False] * 2, heights)
    assert elev.checks() == [] and elev.racks[0].used_u == 10
    assert {p.device: p.u for p in elev.racks[0].placements if p.height_u} == {
        "cn00001": 1,
        "cn00002": 5,
        "mtor001-cm": 9,
        "mtor001": 10,
    }
    over = [*fits, _link("cn00003", "nic", (0, 0), "mtor001", "mgmt_tor", (0, 0))]
    elev = elevations(over, [False] * 3, heights)
    (check,) = elev.checks()
    assert check["ok"] is False and "R01-01 needs 14U" in check["message"]
    assert max(p.top_u for p in elev.racks[0].placements) == 14


def test_netbox_set_is_complete_and_consistent(small):
    _, rows, elev = small
    files = netbox_files(elev, rows, site="Test site", vendors={p.sku: p.vendor for p in CATALOG.parts})
    read = {name: list(csv.DictReader(io.StringIO(text))) for name, text in files.items()}
    assert list(files) == [
        "1-sites.csv",
        "2-manufacturers.csv",
        "3-device-roles.csv",
        "4-device-types.csv",
        "5-racks.csv",
        "6-devices.csv",
        "7-interfaces.csv",
        "8-cables.csv",
    ]
    devices = {d["name"]: d for d in read["6-devices.csv"]}
    racks = {r["name"] for r in read["5-racks.csv"]}
    types = {t["model"] for t in read["4-device-types.csv"]}
    roles = {r["name"] for r in read["3-device-roles.csv"]}
    assert all(d["rack"] in racks and d["device_type"] in types and d["role"] in roles for d in devices.values())
    assert devices["cn00001"]["position"] == "1" and devices["cn00001"]["face"] == "front"
    assert devices["leaf0001"]["manufacturer"] == "NVIDIA"
    interfaces = {(i["device"], i["name"]) for i in read["7-interfaces.csv"]}
    assert len(read["8-cables.csv"]) == len(rows)
    for cable in read["8-cables.csv"]:
        for side in ("a", "b"):
            assert (cable[f"side_{side}_device"], cable[f"side_{side}_name"]) in interfaces
            assert cable[f"side_{side}_type"] == "dcim.interface"
        assert cable["type"] in {"dac-passive", "dac-active", "aoc", "mmf-om4", "smf-os2", "cat6"}
    assert {c["type"] for c in read["8-cables.csv"] if c["label"].startswith("M-")} >= {"cat6"}  # BMC copper
    with zipfile.ZipFile(io.BytesIO(netbox_zip(files))) as z:
        assert set(z.namelist()) == {"README.txt", *files}


def test_switches_per_network_rack_by_hand():
    """k × (switch U + 1U cable manager) + ⌈k × trunk ports ÷ 24⌉ patch panels ≤ rack U."""
    from bom.layout import switches_per_rack

    assert switches_per_rack(42, 1, 64) == 9  # 18 + 24 = 42; 10 → 20 + 27 = 47
    assert switches_per_rack(42, 1, 32) == 12  # 24 + 16 = 40; 13 → 26 + 18 = 44
    assert switches_per_rack(48, 1, 64) == 10  # 20 + 27 = 47; 11 → 22 + 30 = 52
    assert switches_per_rack(42, 2, 64) == 7  # 21 + 19 = 40; 8 → 24 + 22 = 46
    assert switches_per_rack(42, 1, 0) == 21  # no trunks: switch + cable manager, 2U each
    assert switches_per_rack(42, 28, 576) == 1  # a 576-port chassis cannot fit with its panels: still 1 a rack


def test_a_chassis_that_cannot_fit_with_its_panels_is_reported():
    """4,096 GPUs on Arista 7816R3 chassis (28U, 576 ports), 2 tiers: the 288/288 split needs ⌈4,096 ÷ 288⌉ = 15
    leaves; 512 nodes spread evenly are ⌈512 ÷ 15⌉ = 35 nodes = 280 down ports a leaf, and 280 uplinks at 1:1
    (= 8 spines × 35 links: the fewest spines, ⌈15 × 280 ÷ 576⌉ = 8, and 35 ≤ ⌊576 ÷ 15⌋ = 38), so 8 spines of
    15 × 35 = 525 down. A spine needs 28U + 1U cable manager + ⌈525 ÷ 24⌉ = 22 panels = 51U of 42U: all 8 spine
    racks overflow, in the drawings and — before any cut sheet is built — in the BOM's checks. A leaf needs
    28 + 1 + ⌈280 ÷ 24⌉ = 41U and fits."""
    plan, _, elev = _floor({"gpu_count": 4096, "topology": "fat_tree", "switch_model": "7816R3"})
    assert [(t.switch_count, t.down_ports_per_switch) for t in plan.fabric.tiers] == [(15, 280), (8, 525)]
    assert sorted((r.name, r.used_u) for r in elev.overflows) == [(f"RN-{i:02d}", 51) for i in range(1, 9)]
    (check,) = elev.checks()
    assert check["ok"] is False and "8 rack(s) hold more than 42U: RN-01 needs 51U" in check["message"]
    live = [c for c in plan.bom.checks if c["field"] == "rack_u"]
    assert len(live) == 1 and not live[0]["ok"] and "51U" in live[0]["message"]


def test_a_gb200_nvl72_rack_by_hand():
    """GB200 NVL72 (power/rack_systems.py): a 48U rack = 18 compute trays × 1U + 9 NVLink switch trays × 1U +
    21U of power shelves, NIC/management and cable management. Bottom up: trays U1–18, switch trays U19–27;
    the rack's management gear from the top: one patch panel (U48) for the ToR uplinks, then each ToR over its
    cable manager; the infrastructure block takes what that gear leaves of the 21U (at least 8U)."""
    _, _, elev = _floor({"gpu_count": 576, "gpu_model": "GB200"})
    for rack in (r for r in elev.racks if r.kind == "compute"):
        assert rack.rack_u == 48 and rack.used_u == 48
        by_kind = Counter(p.kind for p in rack.placements if p.height_u)
        assert by_kind["GPU node"] == 18 and by_kind["NVLink switch tray"] == 9
        trays = sorted(p.u for p in rack.placements if p.kind == "GPU node")
        assert trays == list(range(1, 19))
        assert sorted(p.u for p in rack.placements if p.kind == "NVLink switch tray") == list(range(19, 28))
        (block,) = [p for p in rack.placements if p.kind == "rack infrastructure"]
        gear = sum(p.height_u for p in rack.placements if p.kind in {"switch", "cable manager", "patch panel"})
        assert block.u == 28 and block.height_u == 21 - gear and block.height_u >= 8


def test_the_drawing_has_one_rack_per_type_and_every_device(small):
    import xml.etree.ElementTree as ET

    from bom.elevation_svg import elevations_svg

    _, _, elev = small
    root = ET.fromstring(elevations_svg(elev))
    ns = {"s": "http://www.w3.org/2000/svg"}
    groups = root.findall("s:g", ns)
    types = elev.rack_types()
    assert len(groups) == len(types)
    for group, (example, members) in zip(groups, types, strict=True):
        titles = [t.text for t in group.iter("{http://www.w3.org/2000/svg}title")]
        drawn = [p for p in example.placements if p.height_u]
        assert len(titles) == len(drawn)  # one rectangle per device that takes rack units
        assert all(any(f": {p.device} (" in t for t in titles) for p in drawn)
        assert f"× {len(members)}" in "".join(group.itertext())


def test_the_drawing_is_served_inline_to_its_owner_only(alice, bob):
    from django.test import Client

    from tests.designer.conftest import make_design

    design = make_design(alice)
    c = Client()
    c.force_login(alice)
    r = c.get(f"/designs/{design.pk}/export/elevations.svg")
    assert r.status_code == 200 and r["Content-Type"] == "image/svg+xml"
    assert r["Content-Disposition"].startswith("inline") and b"<svg" in r.content
    assert 'id="elevation-drawing"' in c.get(f"/designs/{design.pk}/").content.decode()
    other = Client()
    other.force_login(bob)
    assert other.get(f"/designs/{design.pk}/export/elevations.svg").status_code == 404


def test_a_rack_over_its_power_budget_is_reported():
    """Two 4U nodes of 10 kW and a 0.5 kW switch in a 20 kW rack: 20.5 kW — the check names the rack."""
    heights = Heights(
        rack_u=42,
        node_u=4,
        storage_u=2,
        mgmt_u=1,
        switch_u={"mgmt_tor": 1},
        switch_sku={"mgmt_tor": "T"},
        rack_budget_kw=20,
        node_w=10_000,
        switch_w={"mgmt_tor": 500},
    )
    links = [_link(f"cn{i:05d}", "nic", (0, 0), "mtor001", "mgmt_tor", (0, 0)) for i in (1, 2)]
    elev = elevations(links, [False, False], heights)
    assert elev.racks[0].power_kw == pytest.approx(20.5)
    (check,) = elev.checks()
    assert check["field"] == "rack_budget_kw" and "R01-01 draws 20.5 kW" in check["message"]
    fits = elevations(links[:1], [False], heights)
    assert fits.checks() == [] and fits.racks[0].power_kw == pytest.approx(10.5)


def test_the_racks_csv_quotes_a_cell_a_spreadsheet_would_run():
    """A part number typed into the catalogue as a formula (CSV injection, OWASP: a cell starting with =, +, −, @,
    tab or CR) is written with a leading apostrophe, so a spreadsheet shows it as text: "=1+2" → "'=1+2". Numbers
    (a U of −1 is no text) and harmless text stay as they are."""
    heights = Heights(
        rack_u=10, node_u=4, storage_u=2, mgmt_u=1, switch_u={"mgmt_tor": 1}, switch_sku={"mgmt_tor": "=1+2"}
    )
    elev = elevations([_link("cn00001", "nic", (0, 0), "mtor001", "mgmt_tor", (0, 0))], [False], heights)
    rows = list(csv.reader(io.StringIO(racks_csv(elev))))
    tor = next(r for r in rows if r[5] == "mtor001")
    assert tor[7] == "'=1+2"
    assert [safe_text(v) for v in ("+1", "-1", "@SUM(A1)", "\tx", "\rx", "cn00001", -1, None)] == [
        "'+1",
        "'-1",
        "'@SUM(A1)",
        "'\tx",
        "'\rx",
        "cn00001",
        -1,
        None,
    ]
