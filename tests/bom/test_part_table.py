"""One part table: the cut sheet names exactly the parts the BOM buys, and every part reaches its link."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from bom.media import NoPartReaches
from bom.parts import FIBRE_MEDIA, PartKind
from bom.plan import Catalog, chooser_for, cut_sheet, plane_links
from cluster.pipeline import plan_cluster
from cluster.requests import bom_request
from cluster.validate import RequirementsError, validate, validate_flat
from designer.presets import preset_values
from tests.conftest import EXAMPLES

CATALOG = Catalog.built_in()
PARTS = {p.sku: p for p in CATALOG.parts}


DESIGNS = [p.stem for p in sorted(EXAMPLES.glob("*.yaml"))] + [f"preset-{key}" for key in preset_values()]


def design(name: str):
    """An example or preset, validated when its test runs (not at collection: `make mutation` forks after it)."""
    if name.startswith("preset-"):
        values = preset_values()[name.removeprefix("preset-")]
        return validate_flat({k: v for k, v in values.items() if k != "_set"})
    return validate(yaml.safe_load((EXAMPLES / f"{name}.yaml").read_text()))


def sheet_counts(rows) -> Counter:
    counts: Counter = Counter()
    for row in rows:
        counts[row["cable"]] += 1
        for cell in (row["a_module"], row["z_module"]):
            if cell and cell != "(shared)":
                counts[cell] += 1
    return counts


@pytest.mark.parametrize("name", DESIGNS)
def test_cut_sheet_sums_per_sku_equal_the_bom_and_every_part_reaches(name):
    r = design(name)
    plan = plan_cluster(r, CATALOG)
    rows = cut_sheet(bom_request(r), plan.fabric, plan.storage, plan.management, CATALOG)
    bom: Counter = Counter()
    for ln in plan.bom.lines:
        if not ln.spare and ln.kind in (PartKind.CABLE, PartKind.TRANSCEIVER):
            bom[ln.sku] += ln.quantity
    assert sheet_counts(rows) == bom
    for row in rows:
        cable = PARTS[row["cable"]]
        assert cable.length_m >= row["length_m"], row
        for cell in (row["a_module"], row["z_module"]):
            if cell and cell != "(shared)":
                module = PARTS[cell]
                assert module.reach_m >= row["length_m"], row
                if cable.media in FIBRE_MEDIA:
                    assert module.media == cable.media, row  # the module takes the fibre it is cabled with


def test_superpod_4su_twin_port_cages_all_optics():
    """NVIDIA DGX SuperPOD H100 reference architecture (RA-11333-001), Table 4 "Compute fabric
    component count", 4 SUs: 127 nodes, 32 leaf + 16 spine QM9700 = 48, 1,016 node–leaf cables
    (1,020 with the 4 UFM ports, not modelled here) and 1,024 spine–leaf cables.

    Modules by hand (all optics, one module per link end, QM9700 cages twin-port):
    - leaves: SUs 2–4 use 32 down + 32 up = 64 ports → 32 modules; SU 1 (31 nodes) uses 63 → ⌈63 ÷ 2⌉ = 32;
      32 leaves × 32 = 1,024; spines: 16 × 64 ports ÷ 2 = 512; switch side 1,536;
    - nodes: the DGX H100 holds its 8 ConnectX-7 ports in 4 twin-port OSFP cages (RA Figure 4, "a
      two-port transceiver"): 127 × 4 = 508 twin-port modules, where single-port cages take 1,016.
    """
    data = yaml.safe_load((EXAMPLES / "superpod-4su-h100.yaml").read_text())
    data["bom"] = {"media": "all_optics"}
    data["compute_fabric"]["nic_cage"] = "osfp_twin"
    b = plan_cluster(validate(data), CATALOG).bom
    assert b.quantity("QM9700") == 48
    compute_cables = sum(
        ln.quantity for ln in b.lines if ln.plane == "compute" and ln.kind == PartKind.CABLE and not ln.spare
    )
    assert compute_cables == 1016 + 1024
    assert b.quantity("MMA4Z00-NS") == 32 * 32 + 16 * 32 + 127 * 4  # switch side 1,536 + node side 508
    single = plan_cluster(validate({**data, "compute_fabric": {**data["compute_fabric"], "nic_cage": "osfp_single"}}))
    assert single.bom.quantity("MMA4Z00-NS400") == 1016 and single.bom.quantity("MMA4Z00-NS") == 1536


def test_a_16k_fat_tree_on_the_default_floor_plan_buys_single_mode_for_long_runs():
    # rows of 20 racks: the hall (bom/layout.py hall_layout) still has leaf–spine runs of 70 m, past multimode's 50 m
    r = validate_flat({"gpu_count": 16384, "topology": "fat_tree", "tiers": 3, "racks_per_row": 20})
    plan = plan_cluster(r, CATALOG)
    rows = cut_sheet(bom_request(r), plan.fabric, plan.storage, plan.management, CATALOG)
    long_runs = [row for row in rows if row["length_m"] > 50 and row["plane"] == "compute"]
    assert long_runs, "the default floor plan has runs beyond multimode reach at 16k GPUs"
    assert {PARTS[row["cable"]].media for row in long_runs} == {"fibre_mpo_sm"}
    assert plan.bom.quantity("OSFP-800G-2xDR4") > 0
    assert not [c for c in plan.bom.checks if not c["ok"] and "reach" in c["message"]]


def test_no_part_that_reaches_refuses_the_design_on_the_floor_plan_field():
    no_sm = Catalog(tuple(p for p in CATALOG.parts if "sm" not in p.media), CATALOG.price_book)
    r = validate_flat({"gpu_count": 16384, "topology": "fat_tree", "tiers": 3, "racks_per_row": 20})
    with pytest.raises(RequirementsError) as exc:
        plan_cluster(r, no_sm)
    message = exc.value.errors["racks_per_row"][0]
    assert "compute" in message and " m at 400G" in message and "racks per row" in message


def test_unknown_cage_type_is_a_field_error():
    with pytest.raises(RequirementsError) as exc:
        validate({"gpu_count": 64, "compute_fabric": {"nic_cage": "sfp"}})
    assert "not a valid choice" in exc.value.errors["compute_fabric.nic_cage"][0]


def test_no_part_reaches_names_the_link_class():
    err = NoPartReaches("compute", "leaf–spine", 180, 400.0, "no transceiver and fibre in the catalog reach that far")
    assert str(err).startswith("compute leaf–spine links of 180 m at 400G")


def test_node_price_with_nics_does_not_buy_them_again():
    with_nics = plan_cluster(validate_flat({"gpu_count": 2000}), CATALOG).bom
    without = plan_cluster(validate_flat({"gpu_count": 2000, "node_price_includes_nics": False}), CATALOG).bom
    nic = next(ln for ln in with_nics.lines if ln.sku == "CX7-NDR-OSFP")
    assert nic.quantity == 2000 and nic.unit_price_usd == 0 and "included in the compute node price" in nic.derivation
    assert without.total_usd() - with_nics.total_usd() == 2000 * PARTS["CX7-NDR-OSFP"].unit_price_usd


def test_bmc_copper_into_sfp28_tors_gets_1000base_t_modules():
    b = plan_cluster(validate(yaml.safe_load(Path(EXAMPLES / "seed-2000-gpu.yaml").read_text())), CATALOG).bom
    cat6 = sum(ln.quantity for ln in b.lines if ln.sku.startswith("CAT6") and not ln.spare)
    assert cat6 == 267 and b.quantity("SFP-1G-T") == 267  # one per BMC link at the ToR end


@pytest.mark.django_db
def test_form_and_api_refuse_a_design_no_catalog_part_reaches(client, django_user_model):
    from bom.models import Part
    from tests.designer.conftest import form_data

    Part.objects.filter(media__in=["fibre_mpo_sm", "fibre_lc_sm"]).delete()
    Part.objects.filter(sku__in=["OSFP-800G-2xDR4", "MMS4X00-NS400", "QSFP112-400G-DR4"]).delete()
    client.force_login(django_user_model.objects.create_user("zoe", password="pw-zoe-123"))
    big = {"gpu_count": "16384", "topology": "fat_tree", "tiers": "3", "racks_per_row": "20"}  # 70 m leaf–spine
    r = client.post("/api/v1/evaluate/?layout=flat", big, content_type="application/json")
    # well-formed values the planner refuses: 422 (a malformed value would be 400)
    assert r.status_code == 422 and "links of" in r.json()["errors"]["racks_per_row"][0]
    r = client.post(
        "/api/v1/evaluate/",
        {
            "requirements": {
                "gpu_count": 16384,
                "compute_fabric": {"topology": "fat_tree", "tiers": 3},
                "bom": {"racks_per_row": 20},
            }
        },
        content_type="application/json",
    )
    assert r.status_code == 422 and "racks per row" in r.json()["errors"]["bom.racks_per_row"][0]
    page = client.post("/designs/new/", form_data(**big, scalable_unit_nodes=""))
    assert "no transceiver and fibre in the catalog reach that far" in " ".join(
        page.context["form"].errors["racks_per_row"]
    )


@pytest.mark.parametrize("key", ["defaults", *preset_values()])
def test_defaults_and_presets_pass_their_own_checks(key):
    """A default or preset design shows no failing check (growth headroom is information until a target is set)."""
    values = {"gpu_count": 2000} if key == "defaults" else preset_values()[key]
    res = plan_cluster(validate_flat({k: v for k, v in values.items() if k != "_set"}), CATALOG).result()
    failing = [
        c["message"]
        for checks in (res["bom"]["checks"], res["storage"].get("checks", []), res["management"].get("checks", []))
        for c in checks
        if not c["ok"]
    ]
    assert failing == []
    assert any(c.get("info") and "free ports" in c["message"] for c in res["bom"]["checks"])


def test_a_headroom_target_makes_it_a_check_that_says_what_to_change():
    res = plan_cluster(validate_flat({"gpu_count": 2000, "growth_headroom_pct": 20}), CATALOG).result()
    failing = [c for c in res["bom"]["checks"] if not c["ok"]]
    assert failing and "lower the target" in failing[0]["message"]


def test_superpod_ufm_servers_take_the_empty_node_slot_and_come_as_lines_of_their_own():
    """RA-11333-001 Table 4 (4 SUs): "Compute and UFM" cables 1,020 = 1,016 node + 4 UFM (Table 7: 4 UFM
    appliances); the 127th node's empty slot in one SU leaves one free port on each of its 8 rail leaves,
    so the 4 UFM ports need no extra leaf and no extra switch-side module (each leaf: 63 + 1 = 64 ports
    → 32 twin-port modules, as before)."""
    data = yaml.safe_load((EXAMPLES / "superpod-4su-h100.yaml").read_text())
    data["bom"] = {"media": "all_optics"}
    data["compute_fabric"].update(nic_cage="osfp_twin", ufm_server_count=4)
    r = validate(data)
    plan = plan_cluster(r, CATALOG)
    b = plan.bom
    lines = {(ln.category, ln.sku): ln.quantity for ln in b.lines if ln.plane == "compute" and not ln.spare}
    assert b.quantity("QM9700") == 48
    assert lines[("fabric manager", "UFM-APPLIANCE-3.1")] == 4
    assert lines[("transceiver (fabric manager)", "MMA4Z00-NS400")] == 4  # single-port module at each UFM port
    assert sum(q for (cat, _), q in lines.items() if cat == "cable (fabric manager)") == 4
    node_and_ufm = sum(q for (cat, _), q in lines.items() if cat.startswith("cable")) - 1024
    assert node_and_ufm == 1020
    assert b.quantity("MMA4Z00-NS") == 1536 + 508  # unchanged: the UFM ports fill free halves of leaf cages
    rows = cut_sheet(bom_request(r), plan.fabric, plan.storage, plan.management, CATALOG)
    ufm_rows = [row for row in rows if row["segment"] == "UFM–leaf"]
    assert len(ufm_rows) == 4 and len({row["z_device"] for row in ufm_rows}) == 4  # spread over 4 rail leaves


def test_more_fabric_managers_than_free_leaf_ports_is_a_field_error():
    with pytest.raises(RequirementsError) as exc:
        plan_cluster(validate_flat({"gpu_count": 1024, "scalable_unit_nodes": 32, "ufm_server_count": 2}), CATALOG)
    assert "free leaf down ports" in exc.value.errors["ufm_server_count"][0]


def test_racks_pdus_panels_and_cable_managers_by_rule():
    """Seed 2,000-GPU design by hand: 63 compute racks at 40 kW (4 × 10 kW nodes) + 24 infrastructure racks
    = 87, where the seed (D14) counts 12 infrastructure racks = 75 by taking 16 switches to a network rack and
    one leaf rack per row (tests/power/test_seed_power.py reproduces that under its assumptions). A rack also
    holds each switch's 1U cable manager and the patch panels of the trunks landing there (this BOM's own
    rules), and then 16 QM9700 spines need 16 × 2U + ⌈16 × 64 ÷ 24⌉ = 43 panels = 75U of 42U. So: spine row
    packed for its tallest switch, the 2U SN4600C management spine: 7 a rack (7 × 3U + ⌈7 × 64 ÷ 24⌉ = 19 →
    40U; 8 would take 46U), ⌈45 upper switches ÷ 7⌉ = 7 racks; end-of-row racks 12 switches each (12 × 2 +
    ⌈12 × 32 ÷ 24⌉ = 16 → 40U), a row's compute leaves, then its storage leaves, then the management ToRs whose
    first server is in the row (compute racks hold nodes only): a 40-node row takes 5 ToRs of 8 servers; per
    row 16 + 4 + 5 = 25, 8 + 4 + 5 = 17 (×3), 25, 8 + 3 + 5 = 16, then the 10-node row 1 storage leaf + 2 ToRs
    = 3 and the infrastructure row 1 + 2 = 3; each row its own network racks (RackLayout.rows_per_network_group
    1): ⌈25 ÷ 12⌉ + 3 × ⌈17 ÷ 12⌉ + ⌈25 ÷ 12⌉ + ⌈16 ÷ 12⌉ + 1 + 1 = 3 + 6 + 3 + 2 + 1 + 1 = 16; storage
    ⌈8 ÷ 16⌉ = 1, whose room ⌊(1 − 8 ÷ 16) × 26⌋ = 13 takes the 9 management and login servers (RA-11333-001
    Figure 3: management servers beside the storage) → 7 + 16 + 1 = 24.
    PDUs: 63 × 2 feeds × ⌈40 ÷ 17.3⌉ = 378, + 24 × 2 = 48 → 426;
    cable managers: one per switch (96 + 36 + 36 = 168); patch panels per rack, ⌈trunk ends there ÷ 24⌉:
    the spine row's first rack holds compute spines 1–7, every one of their 64 QM9700 ports a trunk to a
    leaf (2 tiers, 64 leaves × 32 uplinks = 32 spines × 64), so 7 × 64 = 448 ends → 19 panels; the whole
    count is Σ over racks of the trunk ends counted again from the per-link records of the cut sheet."""
    r = validate(yaml.safe_load((EXAMPLES / "seed-2000-gpu.yaml").read_text()))
    seed = plan_cluster(r, CATALOG)
    b = seed.bom
    infra = {ln.category: ln for ln in b.lines if ln.plane == "infrastructure"}
    assert infra["rack"].quantity == 87 and infra["rack"].sku == "RACK-42U-600x1200"
    assert seed.power.racks.network_rack_count == 23
    assert infra["pdu"].quantity == 426 and "⌈40.0 kW ÷ 17.3 kW⌉" in infra["pdu"].derivation
    assert infra["cable manager"].quantity == 168
    ends: Counter = Counter()
    switch_roles = {"compute_switch", "storage_switch", "mgmt_tor", "mgmt_spine"}
    req = bom_request(r)  # resolved as the pipeline resolves it
    chooser = chooser_for(req, CATALOG)
    for link in plane_links(req, seed.fabric, seed.storage, seed.management):
        if link.a_role in switch_roles and link.z_role in switch_roles and chooser.parts(link).optical:
            ends[link.a_rack] += 1
            ends[link.z_rack] += 1
    assert ends[(-1, 0)] == ends[(-1, 1)] == 7 * 64
    assert sum(ends.values()) == 2 * b.trunk_count
    assert infra["patch panel"].quantity == sum(-(-n // 24) for n in ends.values())
    assert "Σ ⌈ends in the rack ÷ 24 MPO ports per 1U panel⌉" in infra["patch panel"].derivation
    # in the TCO, racks and PDUs are facility works: the network line leaves them out
    plan = plan_cluster(validate_flat({"gpu_count": 2000}), CATALOG)
    network = next(c for c in plan.power.tco.capex if c.name == "Network")
    assert network.amount_usd == plan.bom.total_usd() - plan.bom.total_usd("infrastructure")


def test_storage_gateways_on_the_compute_fabric_take_leaf_ports_and_are_cabled():
    """2,000 GPUs on 64 leaves of 32 down ports = 2,048 ports for 2,000 NICs: 48 free. Four gateways × 2
    ports = 8 of them: 8 cables and 8 gateway-side modules as lines of their own, in the cut sheet."""
    r = validate_flat({"gpu_count": 2000, "attached_device_count": 4, "bom_media": "all_optics"})
    plan = plan_cluster(r, CATALOG)
    lines = {ln.category: ln.quantity for ln in plan.bom.lines if ln.plane == "compute" and not ln.spare}
    assert lines["cable (fabric-attached devices)"] == 8
    assert lines["transceiver (fabric-attached devices)"] == 8
    rows = cut_sheet(bom_request(r), plan.fabric, plan.storage, plan.management, CATALOG)
    assert sum(1 for row in rows if row["segment"] == "device–leaf") == 8
    too_many = validate_flat({"gpu_count": 2000, "attached_device_count": 25})  # 50 ports > 48 free
    with pytest.raises(RequirementsError) as exc:
        plan_cluster(too_many, CATALOG)
    assert "50 fabric-management and attached-device port(s)" in exc.value.errors["attached_device_count"][0]


def test_the_floor_plan_and_the_rack_plan_put_the_same_nodes_in_a_rack():
    """Defaults: a node is 8 × 700 W + 4,600 W = 10.2 kW; the rack budget left empty is air cooling's 41 kW
    (NVIDIA's air-cooled DGX H100 racks: 4 × 10.2 = 40.8 kW), which holds ⌊41 ÷ 10.2⌋ = 4 — the cable
    lengths (floor plan) and the rack count, PDUs and racks (rack plan) all use 4. A 40 kW budget holds 3."""
    plan = plan_cluster(validate_flat({"gpu_count": 2000}), CATALOG)
    assert plan.power.racks.nodes_per_rack == 4
    assert plan.power.racks.compute_rack_count == 63  # ⌈250 ÷ 4⌉
    assert plan.result()["power"]["derivations"]["rack_budget_kw"].startswith("left empty: the air limit of 41 kW")
    assert not [c for c in plan.result()["bom"]["checks"] if c["field"] == "nodes_per_rack"]
    forced = plan_cluster(validate_flat({"gpu_count": 2000, "nodes_per_rack": 4, "rack_budget_kw": 40}), CATALOG)
    check = next(c for c in forced.result()["bom"]["checks"] if c["field"] == "nodes_per_rack")
    assert not check["ok"] and "puts 4 nodes in a rack" in check["message"] and "hold 3" in check["message"]


def test_storage_servers_left_empty_follow_what_the_bandwidth_needs():
    """32,768 GPUs: data loaders read 0.1 GB/s each = 3,276.8 GB/s; a server gives 2 × 200 Gbit/s ÷ 8 = 50 GB/s
    → ⌈3,276.8 ÷ 50⌉ = 66 servers (8 would fail the bandwidth check, as the old default did)."""
    plan = plan_cluster(validate_flat({"gpu_count": 32768}), CATALOG)
    res = plan.result()
    assert plan.requirements.storage.node_count == 66 == res["storage"]["storage_node_count"]
    assert "66" in res["storage"]["derivations"]["storage_node_count"]
    assert all(c["ok"] for c in res["storage"]["checks"])
    assert plan.inputs.storage.node_count is None  # what a revision stores: still "choose for me"
    small = plan_cluster(validate_flat({"gpu_count": 2000}), CATALOG)
    assert small.requirements.storage.node_count == 8  # at least the seed's 8


def test_a_reserved_slot_in_the_first_su_takes_the_ufm_servers():
    """RA-11333 (DGX SuperPOD H100): 127 nodes in 4 SUs of 32 slots, the free slot for the UFM appliances.
    Reserving 1 slot at the start of SU 1 puts 31 nodes there (node i in slot i + 1), so SU 1's 8 rail
    leaves (leaf0001–leaf0008) each have one free down port, and the 4 UFM ports land on 4 of them."""
    data = {
        "gpu_model": "H100-SXM5",
        "node_count": 127,
        "compute_fabric": {"scalable_unit_nodes": 32, "reserved_node_slots": 1, "ufm_server_count": 4},
    }
    r = validate(data)
    plan = plan_cluster(r, CATALOG)
    assert [(t.name, t.switch_count) for t in plan.fabric.tiers] == [("leaf", 32), ("spine", 16)]
    rows = cut_sheet(bom_request(r), plan.fabric, plan.storage, plan.management, CATALOG)
    ufm = [row for row in rows if row["segment"] == "UFM–leaf"]
    assert len(ufm) == 4
    assert {row["z_device"] for row in ufm} <= {f"leaf{i:04d}" for i in range(1, 9)}
    with pytest.raises(RequirementsError) as exc:
        plan_cluster(validate({**data, "compute_fabric": {"scalable_unit_nodes": 32, "reserved_node_slots": 32}}))
    assert "reserve at most 31" in exc.value.errors["reserved_node_slots"][0]
