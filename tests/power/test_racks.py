"""Rack plan: nodes per rack, rack counts, infrastructure racks and refusals — hand-worked cases."""

from __future__ import annotations

import pytest

from power import PowerInputError
from power.racks import plan_racks
from tests.power.conftest import rack_request


def test_the_seed_floor_of_75_racks():
    """Seed §14.8 (D14): 250 DGX-class nodes of 10.2 kW, 8U, 41 kW racks of 42U → min(⌊41 ÷ 10.2⌋ = 4,
    ⌊42 ÷ 8⌋ = 5) = 4 per rack → ⌈250 ÷ 4⌉ = 63 compute racks in ⌈63 ÷ 10⌉ = 7 rows; 40 spine switches ÷ 16
    per rack → 3 spine racks + 7 end-of-row racks = 10 network racks; 8 storage servers (2.5 kW, 2U: 16 per
    rack) → 1; 9 management/login (1.5 kW, 1U: ⌊41 ÷ 1.5⌋ = 27) → 1; 63 + 12 = 75 racks, the chapter's count."""
    plan = plan_racks(
        rack_request(
            node_count=250,
            node_kw=10.2,
            node_u=8,
            rack_budget_kw=41,
            rack_u=42,
            upper_switch_count=40,
            storage_node_count=8,
            storage_node_kw=2.5,
            storage_node_u=2,
            mgmt_node_count=9,
            mgmt_node_kw=1.5,
            mgmt_node_u=1,
        )
    )
    assert (plan.nodes_per_rack, plan.compute_rack_count, plan.compute_row_count) == (4, 63, 7)
    assert (plan.network_rack_count, plan.storage_rack_count, plan.mgmt_rack_count, plan.rack_count) == (10, 1, 1, 75)
    assert plan.compute_rack_kw == pytest.approx(40.8)
    d = plan.derivations
    assert d["nodes_per_rack"] == "min(⌊41 kW ÷ 10.2 kW⌋ = 4, ⌊42U ÷ 8U⌋ = 5) = 4 — limited by power; 32U used"
    assert d["compute_rack_kw"] == "4 × 10.2 kW = 40.8 kW per full compute rack"
    assert d["rack_count"] == "63 compute + 12 infrastructure = 75"
    assert d["storage_rack_count"] == "⌈8 ÷ 16 per rack⌉ = 1" and d["mgmt_rack_count"] == "⌈9 ÷ 27 per rack⌉ = 1"


def test_rack_units_limit_and_ties():
    """10U nodes in a 42U rack: ⌊42 ÷ 10⌋ = 4 (not 4.2) → 21 nodes need 6 racks. A tie (51 kW ÷ 10.2 = 5 =
    ⌊42 ÷ 8⌋) is named for power. 21 storage servers of 4U: ⌊42 ÷ 4⌋ = 10 per rack → 3 racks."""
    tall = plan_racks(rack_request(node_count=21, node_kw=5, node_u=10, rack_budget_kw=60, rack_u=42))
    assert (tall.nodes_per_rack, tall.compute_rack_count) == (4, 6)
    assert "limited by rack units; 40U used" in tall.derivations["nodes_per_rack"]
    tie = plan_racks(rack_request(node_count=5, node_kw=10.2, node_u=8, rack_budget_kw=51, rack_u=42))
    assert "= 5 — limited by power" in tie.derivations["nodes_per_rack"]
    storage = plan_racks(
        rack_request(node_count=1, node_kw=1, node_u=1, storage_node_count=21, storage_node_kw=0.5, storage_node_u=4)
    )
    assert storage.storage_rack_count == 3
    none = plan_racks(rack_request(node_count=1, node_kw=1, node_u=1))
    assert (none.storage_rack_count, none.mgmt_rack_count) == (0, 0)
    assert none.derivations["storage_rack_count"] == none.derivations["mgmt_rack_count"] == "none"


def test_boundaries_are_allowed_and_beyond_them_refused():
    assert (
        plan_racks(rack_request(node_count=3, node_kw=10, node_u=42, rack_budget_kw=10, rack_u=42)).nodes_per_rack == 1
    )
    for kw, field in (
        ({"rack_budget_kw": 9.9}, "rack_budget_kw"),
        ({"rack_u": 41}, "rack_u"),
        ({"node_kw": 0}, "node_kw"),
        ({"storage_node_kw": 0}, "storage_node_kw"),
        ({"node_count": 0}, "node_count"),
        ({"racks_per_row": 0}, "racks_per_row"),
    ):
        args = {"node_count": 3, "node_kw": 10, "node_u": 42, "rack_budget_kw": 10, "rack_u": 42, **kw}
        with pytest.raises(PowerInputError) as exc:
            plan_racks(rack_request(**args))
        assert field in exc.value.errors, kw


def test_rack_scale_racks():
    """18 trays × 6.467 kW + 9 × 400 W = 120.006 kW per NVL72 rack; a budget of exactly that holds it, 120.0
    does not; 36 trays → 2 racks; the rack is 18 × 1U + 30U of switch trays and power shelves = 48U."""
    args = dict(
        node_count=36,
        node_kw=6.467,
        node_u=1,
        trays_per_rack=18,
        rack_fixed_w=3600,
        rack_fixed_u=30,
        system_name="GB200 NVL72",
    )
    plan = plan_racks(rack_request(**args, rack_budget_kw=120.006))
    assert (plan.nodes_per_rack, plan.compute_rack_count) == (18, 2)
    assert plan.compute_rack_kw == pytest.approx(120.006)
    assert "in its own 48U rack" in plan.derivations["nodes_per_rack"]
    assert (
        plan.derivations["compute_rack_kw"]
        == "18 × 6.467 kW + 3.6 kW NVLink switch trays = 120.0 kW per full compute rack"
    )
    with pytest.raises(PowerInputError) as exc:
        plan_racks(rack_request(**args, rack_budget_kw=120.0))
    assert (
        "draws 120.0 kW (18 compute trays × 6.467 kW + 3.6 kW of NVLink switch trays)"
        in exc.value.errors["rack_budget_kw"]
    )


def test_servers_per_rack_by_power_by_units_and_at_least_one():
    """min(⌊budget ÷ kW⌋, ⌊rack U ÷ U⌋), at least 1: 0.5 kW 1U servers in a 10 kW 42U rack → min(20, 42) = 20;
    a 0 W server is bounded by U alone (⌊42 ÷ 2⌋ = 21); a 50 kW server in a 40 kW rack still gets a rack (1);
    2.5 kW 2U in 40 kW: min(16, 21) = 16."""
    from power.racks import servers_per_rack

    assert servers_per_rack(0.5, 1, 10.0, 42) == 20
    assert servers_per_rack(0.0, 2, 40.0, 42) == 21
    assert servers_per_rack(50.0, 1, 40.0, 42) == 1
    assert servers_per_rack(2.5, 2, 40.0, 42) == 16


def test_the_json_reports_rack_power_to_the_watt():
    """3 nodes of 10.23456 kW in a 40 kW rack: 30.70368 kW → 30.704 in the JSON."""
    plan = plan_racks(rack_request(node_count=3, node_kw=10.23456, node_u=8))
    assert plan.to_dict()["compute_rack_kw"] == 30.704


def test_network_racks_say_where_the_leaf_racks_come_from():
    """Without a floor plan one end-of-row leaf rack per row; with one, the floor plan's count (3 here) —
    plus ⌈20 spine switches ÷ 16⌉ = 2 spine racks."""
    alone = plan_racks(rack_request(node_count=10, node_kw=10, node_u=8, upper_switch_count=20))
    assert alone.derivations["network_rack_count"] == (
        "1 end-of-row leaf racks (one per row) + ⌈20 spine/core switches ÷ 16 a rack⌉ = 2 → 3"
    )
    planned = plan_racks(rack_request(node_count=10, node_kw=10, node_u=8, upper_switch_count=20, leaf_rack_count=3))
    assert planned.network_rack_count == 5
    assert (
        "3 end-of-row leaf racks (the floor plan: the leaves and ToRs of each row share network racks, filled by "
        "rack units)" in (planned.derivations["network_rack_count"])
    )
    paired = plan_racks(rack_request(node_count=10, node_kw=10, node_u=8, leaf_rack_count=3, rows_per_network_group=2))
    assert "of each 2 adjacent rows share network racks" in paired.derivations["network_rack_count"]


def test_management_servers_fill_the_last_storage_rack_first_and_every_rack_is_listed_by_role():
    """8 storage servers (2.5 kW, 2U: min(⌊40 ÷ 2.5⌋ = 16, ⌊42 ÷ 2⌋ = 21) = 16 a rack) fill half a rack; 9
    management servers (1.5 kW, 1U: min(⌊40 ÷ 1.5⌋ = 26, 42) = 26 a rack) take ⌊(1 − 8 ÷ 16) × 26⌋ = 13 of its
    room: all 9 stand there (8 × 2U + 9 × 1U = 25U, 8 × 2.5 + 9 × 1.5 = 33.5 kW of 40). 20 more need
    ⌈(20 − 13) ÷ 26⌉ = 1 rack of their own. Full storage racks leave no room (16 servers: 1 rack + 1)."""
    args = dict(node_count=10, node_kw=10, node_u=8, storage_node_count=8, leaf_rack_count=1, upper_switch_count=1)
    shared = plan_racks(rack_request(**args, mgmt_node_count=9, management_in_storage_racks=True))
    assert (shared.storage_rack_count, shared.mgmt_rack_count, shared.mgmt_in_storage_rack) == (1, 0, 9)
    assert shared.derivations["storage_rack_count"] == (
        "⌈8 ÷ 16 per rack⌉ = 1; its last rack, 8 of 16, leaves room for ⌊(1 − 8 ÷ 16) × 26⌋ = 13 management "
        "servers: 9 stand there"
    )
    assert shared.derivations["mgmt_rack_count"] == "none: all 9 in the last storage rack"
    # ⌈10 ÷ 4⌉ = 3 compute, 1 leaf, ⌈1 ÷ 16⌉ = 1 spine, 1 storage and management = 6
    assert shared.by_role() == [
        ("compute", 3),
        ("network: leaves and ToRs", 1),
        ("network: spine and core", 1),
        ("storage and management", 1),
        ("management", 0),
    ]
    assert shared.derivations["racks_by_role"] == (
        "3 compute + 1 network: leaves and ToRs + 1 network: spine and core + 1 storage and management = 6"
    )
    assert sum(n for _, n in shared.by_role()) == shared.rack_count == 6
    more = plan_racks(rack_request(**args, mgmt_node_count=20, management_in_storage_racks=True))
    assert (more.mgmt_in_storage_rack, more.mgmt_rack_count) == (13, 1)
    assert more.derivations["mgmt_rack_count"] == "20 − 13 in the last storage rack = ⌈7 ÷ 26 per rack⌉ = 1"
    full = plan_racks(
        rack_request(**{**args, "storage_node_count": 16}, mgmt_node_count=9, management_in_storage_racks=True)
    )
    assert (full.storage_rack_count, full.mgmt_rack_count, full.mgmt_in_storage_rack) == (1, 1, 0)
    apart = plan_racks(rack_request(**args, mgmt_node_count=9))  # the seed chapter's rule: racks of their own
    assert (apart.storage_rack_count, apart.mgmt_rack_count) == (1, 1)


def test_a_rack_scale_budget_counts_the_switch_trays_in_kilowatts():
    """18 × 6.467 kW + 3,600 W ÷ 1,000 = 120.006 kW: a 120.003 kW budget is short by 3 W and refused (a slip
    in the W → kW conversion, 3,600 ÷ 1,001 = 3.5964, would let it pass)."""
    args = dict(node_count=18, node_kw=6.467, node_u=1, trays_per_rack=18, rack_fixed_w=3600, rack_fixed_u=30)
    with pytest.raises(PowerInputError) as exc:
        plan_racks(rack_request(**args, system_name="GB200 NVL72", rack_budget_kw=120.003))
    assert "draws 120.0 kW" in exc.value.errors["rack_budget_kw"]


def test_a_budget_of_exactly_k_loads_holds_k_despite_binary_floating_point():
    """12.6 kW of 4.2 kW servers is 3 (``12.6 // 4.2`` is 2.0 in binary floating point: one server, and for
    compute nodes one node a rack, silently lost); 2.4 kW of 0.8 kW nodes is 3; 40.8 kW of 10.2 kW DGX is 4.
    Found by a make-mutation survivor (// → / inside int() was 'equivalent' only because both were wrong)."""
    from power.racks import nodes_per_rack, servers_per_rack, whole_fit

    assert (whole_fit(12.6, 4.2), whole_fit(2.4, 0.8), whole_fit(40.8, 10.2), whole_fit(1.0, 0.1)) == (3, 3, 4, 10)
    assert whole_fit(12.5, 4.2) == 2
    assert servers_per_rack(4.2, 1, 12.6, 42) == 3
    assert nodes_per_rack(0.8, 1, 2.4, 42) == 3
    plan = plan_racks(rack_request(node_count=6, node_kw=0.8, node_u=1, rack_budget_kw=2.4))
    assert (plan.nodes_per_rack, plan.compute_rack_count) == (3, 2)
    assert plan.derivations["nodes_per_rack"].startswith("min(⌊2.4 kW ÷ 0.8 kW⌋ = 3, ⌊42U ÷ 1U⌋ = 42) = 3")
