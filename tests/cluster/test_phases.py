"""Issue #37 item 1, phased build-out: a 2 → 4 → 8 SU rail-optimized DGX H100 fabric derived by hand.

The design (the SuperPOD-like preset at its end size): 8-GPU nodes with 8 × 400G NICs (8 rails), QM9700 leaves and
spines (64 × 400G), 1:1, scalable units of 32 nodes; 8 SU = 256 nodes = 2,048 GPUs.

Leaves (seed §14.1.3, DGX SuperPOD H100 RA): a 64-port leaf at 1:1 splits 32 down / 32 up; an SU of 32 nodes fills
the 32 down ports of one leaf per rail → 8 leaves an SU: 2 SU = 16, 4 SU = 32, 8 SU = 64 leaves, each with 32
uplinks. Spines (2 tiers): L leaves each send m links to every spine, m = the largest divisor of the 32 uplinks
with L × m ≤ 64 spine ports, S = 32 ÷ m spines:
    8 SU: L = 64 → m = 1 → S = 32;   4 SU: L = 32 → m = 2 → S = 16;   2 SU: L = 16 → m = 4 → S = 8.

End-state core: the 32 spines of 8 SU on day 1, each leaf wired as in the final fabric (1 link to every spine).
Spine ports 32 × 64 = 2,048; cabled: day 1 16 × 32 = 512 → 1,536 dark; 4 SU 32 × 32 = 1,024 → 1,024 dark; 8 SU
2,048 → 0. Leaves are full (32 nodes + 32 uplinks): 0 dark. Every cable of a phase is a cable of the next.

Cheapest day 1: 8 → 16 → 32 spines. The cut sheet lays each leaf's uplinks spine by spine (leaf i's uplink q,
q = 0…31, is port p(33 + q)) and numbers a spine's ports leaf by leaf, so with m links a spine, uplink q of leaf i
goes to spine ⌊q ÷ m⌋ + 1, port m·i + q mod m + 1. A cable keeps its far end from m = 4 to m = 2 only when
⌊q/4⌋ = ⌊q/2⌋ (q = 0, 1) and 4i + q = 2i + q (i = 0): 2 of 16 × 32 = 512 stay → 510 re-patched; from m = 2 to
m = 1 only q = 0 of i = 0 stays → 32 × 32 − 1 = 1,023 re-patched. The fewest moves (cables that must leave a
leaf–spine pair): 16 leaves × 8 spines × (4 − 2) = 256, then 32 × 16 × (2 − 1) = 512.

Day-1 price: the same leaves, nodes, cables and optics (512 leaf–spine cables either way); the end-state core buys
32 − 8 = 24 more QM9700 at the catalog's $65,000 (seed Table 14-25) = $1,560,000; the spine row's racks hold the
24 1U switches, so no other line differs.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest

from bom.links import compute_links
from bom.plan import Catalog, floor_plan
from cluster.phases import (
    PhaseInputError,
    cable_ends,
    end_name,
    parse_phases,
    phase_exports,
    phase_report,
)
from cluster.pipeline import plan_cluster
from cluster.requests import bom_request
from cluster.validate import validate_flat
from designer.presets import preset_values
from tests.cluster.test_console import cluster_designer

PHASES = ["day 1:2026-01-01:2", "grow:2027-01-01:4", "full:2028-01-01:8"]


def _design(**over: Any):
    values = {k: v for k, v in preset_values()["superpod-4su"].items() if k != "_set"}
    values.update({"gpu_count": 2048, "wl_classes": "", **over})
    return plan_cluster(validate_flat(values))


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    return phase_report(_design(), parse_phases(PHASES))


def test_end_state_core_buys_32_spines_on_day_1_and_moves_no_cable(report):
    s = report["strategies"]["end_state"]
    assert [p["switches"] for p in s["phases"]] == [
        {"leaf": 16, "spine": 32},
        {"leaf": 32, "spine": 32},
        {"leaf": 64, "spine": 32},
    ]
    spine_dark = [next(d for d in p["dark_ports"] if d["tier"] == "spine")["ports_dark"] for p in s["phases"]]
    assert spine_dark == [1536, 1024, 0]
    assert all(next(d for d in p["dark_ports"] if d["tier"] == "leaf")["ports_dark"] == 0 for p in s["phases"])
    assert [p["repatch_count"] for p in s["phases"]] == [0, 0, 0] and s["repatch_count"] == 0
    assert all(p["repatches"] == [] for p in s["phases"])
    spine = next(t for t in s["built_for_final"] if t["tier"] == "spine")
    assert (spine["day1_count"], spine["final_count"]) == (32, 32) and "dark on day 1" in spine["why"]
    # what each phase adds: 2 SU = 64 nodes × 8 NICs = 512 node cables + 16 leaves × 32 uplinks = 512
    assert [p["new_cable_count"] for p in s["phases"]] == [1024, 1024, 2048]
    bought = {(ln["category"], ln["sku"]): ln["quantity"] for ln in s["phases"][1]["bought"] if not ln["spare"]}
    assert bought[("switch (leaf)", "QM9700")] == 16 and ("switch (spine)", "QM9700") not in bought


def test_cheapest_day_1_restripes_the_leaf_uplinks(report):
    s = report["strategies"]["cheapest"]
    assert [p["switches"]["spine"] for p in s["phases"]] == [8, 16, 32]
    assert all(d["ports_dark"] == 0 for p in s["phases"] for d in p["dark_ports"])
    assert [p["repatch_count"] for p in s["phases"]] == [0, 510, 1023]
    assert [p["repatch_min_moves"] for p in s["phases"]] == [0, 256, 512]
    # leaf0001's third uplink (q = 2): spine ⌊2/4⌋ + 1 = 1, port 4·0 + 2 + 1 = 3 → spine ⌊2/2⌋ + 1 = 2, port 1
    assert s["phases"][1]["repatches"][0] == {
        "a_device": "leaf0001",
        "a_port": "p35",
        "old_z_device": "spine0001",
        "old_z_port": "p3",
        "new_z_device": "spine0002",
        "new_z_port": "p1",
    }


def test_the_end_state_core_costs_24_spines_more_on_day_1(report):
    qm9700 = next(p for p in Catalog.built_in().parts if p.sku == "QM9700")
    assert qm9700.unit_price_usd == Decimal("65000")  # the figure the docstring's derivation uses
    assert Decimal(report["extra_day1_usd"]) == 24 * Decimal("65000") == Decimal("1560000")
    assert report["extra_day1_lines"] == [
        {
            "plane": "compute",
            "category": "switch (spine)",
            "sku": "QM9700",
            "spare": False,
            "quantity": 24,
            "unit_price_usd": "65000.00",
            "extended_price_usd": "1560000.00",
        }
    ]
    e, c = report["strategies"]["end_state"]["phases"][0], report["strategies"]["cheapest"]["phases"][0]
    assert Decimal(e["cost_usd"]) - Decimal(c["cost_usd"]) == Decimal("1560000.00")
    assert "= +$1,560,000.00 (+24 QM9700 (switch (spine)) × $65,000.00)" in report["derivation"]


def test_present_value_discounts_each_phase_from_day_1():
    """8 %/year, phases one and two years (365 and 730 days) after day 1: PV = cost ÷ 1.08 and cost ÷ 1.08²."""
    out = phase_report(_design(discount_rate_pct=8), parse_phases(PHASES))
    for s in out["strategies"].values():
        costs = [Decimal(p["cost_usd"]) for p in s["phases"]]
        pvs = [Decimal(p["present_value_usd"]) for p in s["phases"]]
        cent = Decimal("0.01")
        assert pvs[0] == costs[0]
        assert pvs[1] == (costs[1] / Decimal("1.08")).quantize(cent, ROUND_HALF_UP)
        assert pvs[2] == (costs[2] / Decimal("1.1664")).quantize(cent, ROUND_HALF_UP)
        assert Decimal(s["present_value_usd"]) == sum(pvs)
        assert "(730 days ÷ 365)" in s["phases"][2]["present_value_derivation"]


@pytest.mark.parametrize(
    "over",
    [
        {},
        {"rail_groups": 2},
        {"nic_gbps": 800, "nic_planes": 2, "ufm_server_count": 2, "reserved_node_slots": 1, "gpu_count": 504},
    ],
)
def test_cable_ends_name_the_cut_sheets_ports(over):
    """The numpy cable identities are the cut sheet's (bom/links.py compute_links), end for end, in order — with
    rail groups and NIC planes (copies of the fabric) too; fabric-manager cables come last and are not compared."""
    plan = _design(**{"gpu_count": 512, **over})
    r = plan.requirements
    breq = bom_request(r)
    layout = floor_plan(breq, plan.fabric, plan.storage, plan.management, Catalog.built_in()).layout
    links = list(compute_links(plan.fabric, breq.shape, layout))
    ends = cable_ends(plan.fabric, r.compute_fabric.nics_per_node)
    named = [(*end_name(a, ends), *end_name(z, ends)) for a, z in zip(ends.a.tolist(), ends.z.tolist(), strict=True)]
    assert named == [(ln.a_device, ln.a_port, ln.z_device, ln.z_port) for ln in links[: len(named)]]
    assert len(links) - len(named) == over.get("ufm_server_count", 0)  # one port a server


def test_phase_exports_list_the_new_and_repatched_cables():
    plan, phases = _design(), parse_phases(PHASES)
    bom, sheet = phase_exports(plan, phases, "cheapest", 1)
    compute = [r for r in sheet if r["plane"] == "compute"]
    assert sum(r["change"] == "re-patch" for r in compute) == 510
    # new: 2 SU × 32 nodes × 8 NICs = 512 node cables + the 16 new leaves × 32 uplinks = 512
    assert sum(r["change"] == "new" for r in compute) == 1024
    assert bom.quantity("QM9700", "compute") == 16 + 8  # 16 leaves and 8 spines
    bom, sheet = phase_exports(plan, phases, "end_state", 1)
    assert all(r["change"] == "new" for r in sheet)
    assert sum(r["plane"] == "compute" for r in sheet) == 1024 and bom.quantity("QM9700", "compute") == 16


@pytest.mark.parametrize(
    "phases, message",
    [
        (["a:2026-01-01:4", "b:2027-01-01:2"], "phase 2 (b): 512 GPUs is not more than phase 1's 1,024"),
        (["a:2026-01-01:2", "b:2025-01-01:4"], "phase 2 (b): 2025-01-01 is not after phase 1's 2026-01-01"),
        (["a:2026-13-01:2"], "phase 1 (a): '2026-13-01' is not a date (YYYY-MM-DD)"),
        (["a:2026-01-01:16"], "phase 1 (a): 16 SU = 4,096 GPUs, beyond the design's 2,048 GPUs"),
        (["a:2026-01-01:100 GPUs"], "phase 1 (a): 100 GPUs is not a positive multiple of 8 GPUs a node"),
        (["a:2026-01-01:two"], "phase 1 (a): 'two' is not a size (4, 4 SU or 512 GPUs)"),
    ],
)
def test_bad_phases_are_refused_on_the_field(phases, message):
    with pytest.raises(PhaseInputError) as exc:
        phase_report(_design(), parse_phases(phases))
    assert message in exc.value.errors["phases"]


def test_the_cli_prints_both_strategies_and_refuses_bad_phases(tmp_path):
    path = tmp_path / "d.json"
    values = {k: v for k, v in preset_values()["superpod-4su"].items() if k != "_set"}
    path.write_text(json.dumps(validate_flat({**values, "gpu_count": 2048, "wl_classes": ""}).nested(), default=str))
    cmd = [cluster_designer(), "phases", str(path), *(f"--phase={p}" for p in PHASES), "--format", "json"]
    out = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    assert out["strategies"]["cheapest"]["repatch_count"] == 510 + 1023 and out["extra_day1_usd"] == "1560000.00"
    csv_out = subprocess.run([*cmd[:-1], "csv"], capture_output=True, text=True, check=True).stdout
    assert csv_out.startswith("strategy,phase,date,gpu_count,plane") and "end_state,day 1,2026-01-01" in csv_out
    bad = subprocess.run([*cmd[:3], "--phase", "a:2026-01-01:9"], capture_output=True, text=True)
    assert bad.returncode == 1 and "--phase: phase 1 (a): 9 SU = 2,304 GPUs, beyond" in bad.stderr


def test_a_fat_tree_takes_phases_in_gpus_not_sus():
    values = {k: v for k, v in preset_values()["h100-8x400g"].items() if k != "_set"}
    plan = plan_cluster(validate_flat({**values, "topology": "fat_tree", "gpu_count": 1024, "wl_classes": ""}))
    with pytest.raises(PhaseInputError) as exc:
        phase_report(plan, parse_phases(["a:2026-01-01:2"]))
    assert "has no scalable units — give GPUs" in exc.value.errors["phases"]
    out = phase_report(plan, [*parse_phases(["a, 2026-01-01, 512 GPUs", "b, 2026-06-01, 1024 GPUs"])])
    assert out["strategies"]["end_state"]["repatch_count"] == 0
    assert dt.date.fromisoformat(out["phases"][1]["date"]) == dt.date(2026, 6, 1)
