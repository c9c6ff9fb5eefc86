"""The 4-SU SuperPOD-like design's racks against NVIDIA's DGX SuperPOD H100 reference architecture.

RA-11333-001 V11 (2023-09-22), "DGX SuperPOD Architecture", Figure 2 "Complete single SU rack layout" and Figure 3
"Management rack configuration"; Appendix A, Table 7 "Major components of the 4 SU, 127-node DGX SuperPOD":
Racks 38; Rack PDUs 96 (PX3-5878I2R) + 12 (PX3-5747V). With 4 DGX H100 a rack (⌈127 ÷ 4⌉ = 32 compute racks),
96 = 32 × 3 compute-rack PDUs and 12 = 6 × 2: six other racks — one network rack per SU (Figure 2: the SU's
eight compute racks stand four on each side of it) = 4, and 2 for the spines and the management rack (Figure 3:
switches, management servers, storage arrays, UFM appliances). The RA's racks carry bare switches cabled point to
point (Table 8 lists cables and transceivers, no patch panels). The floor plan lays a fabric built of scalable
units the same way (bom/layout.py su_row_racks): one SU a row with its network rack, bare switches, the spine row
packed by switch height, the infrastructure row's switches in the management rack when it has room — and so
plans the RA's 38 racks from those rules, not from a count.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from bom.elevation import SWITCH_ROLES
from bom.layout import panels_for
from bom.plan import Catalog, floor_plan, floor_sheets, plane_links, switch_counts
from cluster.pipeline import plan_cluster
from cluster.requests import bom_request
from cluster.validate import validate

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CATALOG = Catalog.built_in()
RA_RACKS = {"compute": 32, "SU network (leaf)": 4, "spine and management": 2}  # Table 7 PDUs + Figures 2–3


@pytest.fixture(scope="module")
def superpod():
    r = validate(yaml.safe_load((EXAMPLES / "superpod-4su-h100.yaml").read_text()))
    plan = plan_cluster(r, CATALOG)
    req = bom_request(r)
    rows, elev = floor_sheets(req, plan.fabric, plan.storage, plan.management, CATALOG)
    return r, plan, req, rows, elev


def test_the_ra_counts_38_racks_from_its_own_pdus():
    assert sum(RA_RACKS.values()) == 38
    assert RA_RACKS["compute"] * 3 == 96 and (38 - RA_RACKS["compute"]) * 2 == 12


def test_the_superpod_racks_by_role_against_the_ra(superpod):
    """By hand, from the RA's rules. Compute: ⌊41 kW ÷ 10.2 kW⌋ = 4 DGX H100 a rack, ⌈127 ÷ 4⌉ = 32 (RA: 32).
    Rows: an SU of 32 nodes ÷ 4 a rack = 8 racks, one SU a row (≤ the 10 asked) → 4 SU rows, then the
    infrastructure row. Leaves and ToRs by their first endpoint's row: 32 compute leaves (8 rails × 4 SUs), 9
    storage leaves and 18 management ToRs = 59. The storage plane has 127 × 2 + 8 × 2 = 270 ports on 32-down
    leaves: ⌈270 ÷ 32⌉ = 9 leaves, spread evenly ⌈270 ÷ 9⌉ = 30 a leaf (sized to the need), so leaf i starts at
    port 30i = node 15i's first storage NIC: rows 0, 0, 0, 1, 1, 2, 2, 3, 3 (a row is 32 nodes). SU rows 8 + 3 + 4
    = 15, 8 + 2 + 4 = 14 three times; the infrastructure row holds 2 management ToRs. Bare 1U switches: ⌊42U ÷ 1U⌋
    = 42 a rack, so one network rack an SU row: 4 (RA: one per SU). The infrastructure row's 2 switches stand in
    its one rack beside 8 storage servers × 2U + 9 management and login servers × 1U = 25U → 27U ≤ 42U. Spine
    row: 16 compute spines and 5 storage spines (9 leaves × 30 up = 5 spines × 6 links: the fewest, ⌈9 × 30 ÷
    64⌉ = 5) of 1U and 2 management spines of 2U, bare: 16 + 5 + 2 × 2 = 25U ≤ 42U → 1 rack. Storage and
    management: 8 storage servers (16 a rack) leave room for ⌊(1 − 8 ÷ 16) × 27⌋ = 13 management servers, so the 9
    stand there → 1.
    32 + 4 + 1 + 1 = 38 = RA Table 7; the RA's "2 for the spines and the management rack" are the last two."""
    _, plan, _, _, elev = superpod
    racks = plan.power.racks
    assert racks.by_role() == [
        ("compute", 32),
        ("network: leaves and ToRs", 4),
        ("network: spine and core", 1),
        ("storage and management", 1),
        ("management", 0),
    ]
    assert racks.rack_count == sum(RA_RACKS.values()) == 38
    assert racks.compute_rack_count == RA_RACKS["compute"]
    assert racks.leaf_rack_count == RA_RACKS["SU network (leaf)"]
    assert racks.spine_rack_count + racks.storage_rack_count == RA_RACKS["spine and management"]
    assert racks.derivations["racks_by_role"] == (
        "32 compute + 4 network: leaves and ToRs + 1 network: spine and core + 1 storage and management = 38"
    )
    assert racks.derivations["compute_rack_count"] == "⌈127 ÷ 4⌉ = 32 compute racks in 4 rows of up to 8"
    assert racks.derivations["infra_switches"].startswith(
        "the infrastructure row's switches: in the last rack: 8 storage × 2U + 9 management × 1U = 25U"
    )
    assert "+ 2 switches × (1U" in racks.derivations["infra_switches"]
    assert (
        "(21 × 1U, 2 × 2U): the largest k whose every k switches fit 42U: 23" in racks.derivations["network_rack_fill"]
    )
    assert (
        "⌈15 ÷ 42⌉ + ⌈14 ÷ 42⌉ + ⌈14 ÷ 42⌉ + ⌈14 ÷ 42⌉ = 4 end-of-row racks" in racks.derivations["network_rack_fill"]
    )
    # the elevations: SU network racks of 15, 14, 14, 14 bare switches, one spine rack of 25U, the management rack
    # with 2
    network = sorted((r.name, r.used_u) for r in elev.racks if r.kind == "network")
    assert network == [("R01-09", 15), ("R02-09", 14), ("R03-09", 14), ("R04-09", 14), ("RN-01", 25)]
    server = [r for r in elev.racks if r.kind == "server"]
    assert [(r.name, r.used_u) for r in server] == [("R05-01", 27)]
    assert sum(1 for p in server[0].placements if p.kind == "switch") == 2
    kinds = {p.kind for r in elev.racks for p in r.placements}
    assert "patch panel" not in kinds and "cable manager" not in kinds  # point to point, as RA Table 8


def test_the_superpod_bom_buys_no_panels_and_every_other_design_keeps_them(superpod):
    _, plan, _, _, _ = superpod
    assert not [ln for ln in plan.bom.lines if ln.category in ("patch panel", "cable manager")]
    r = validate(yaml.safe_load((EXAMPLES / "seed-2000-gpu.yaml").read_text()))
    seed = plan_cluster(r, CATALOG)
    assert {ln.category for ln in seed.bom.lines} >= {"patch panel", "cable manager"}


def test_the_ras_six_non_compute_racks_cannot_hold_this_designs_network_with_its_panels(superpod):
    """Why the RA's layout is bare: with the house's structured cabling (every switch its U + 1U cable manager,
    every optical trunk end a 24th of a 1U panel) the servers and switches need more than the six racks, whatever
    the packing: Σ ÷ 42U racks > 6."""
    r, plan, req, _, _ = superpod
    switches = sum(n for *_, n, _ in switch_counts(plan.fabric, plan.storage, plan.management))
    assert switches == 32 + 16 + 9 + 5 + 18 + 2 == 82
    links = list(plane_links(req, plan.fabric, plan.storage, plan.management, CATALOG))
    from bom.plan import chooser_for

    chooser = chooser_for(req, CATALOG)
    trunk_ends = 2 * sum(
        1 for ln in links if ln.a_role in SWITCH_ROLES and ln.z_role in SWITCH_ROLES and chooser.parts(ln).optical
    )
    switch_u = 2 * switches + 2  # 1U switches and the two 2U management spines, each with a 1U cable manager
    server_u = 8 * r.power.storage_node_u + 9 * r.power.mgmt_node_u
    needed_u = switch_u + panels_for(trunk_ends) + server_u
    assert needed_u > 6 * r.power.rack_u


def test_every_switch_stands_once_and_no_rack_is_over_its_units_or_power(superpod):
    _, plan, _, _, elev = superpod
    placed = Counter(p.device for rack in elev.racks for p in rack.placements if p.kind == "switch")
    assert set(placed.values()) == {1}
    assert sum(placed.values()) == 82
    assert elev.overflows == [] and not [rack for rack in elev.racks if rack.over_budget]
    assert len(elev.racks) == plan.power.racks.rack_count


def test_cable_lengths_are_positive_and_bought_parts_reach(superpod):
    _, plan, _, rows, _ = superpod
    assert all(row["length_m"] >= 1 for row in rows)
    reach = [c for c in plan.bom.checks if not c["ok"] and "reach" in c["message"]]
    assert reach == []


@pytest.mark.parametrize("example", ["seed-2000-gpu.yaml", "b300-spectrum-twin-plane-8su.yaml"])
def test_sharing_rows_or_the_storage_rack_never_plans_more_racks(example):
    import dataclasses

    r = validate(yaml.safe_load((EXAMPLES / example).read_text()))
    plan = plan_cluster(r, CATALOG)
    req = bom_request(r)
    apart = dataclasses.replace(req, layout=dataclasses.replace(req.layout, management_in_storage_racks=False))
    alone = floor_plan(apart, plan.fabric, plan.storage, plan.management, CATALOG).racks
    assert plan.power.racks.rack_count <= alone.rack_count
    paired = dataclasses.replace(req, layout=dataclasses.replace(req.layout, rows_per_network_group=2))
    assert floor_plan(paired, plan.fabric, plan.storage, plan.management, CATALOG).racks.rack_count <= alone.rack_count
    assert sum(n for _, n in plan.power.racks.by_role()) == plan.power.racks.rack_count
