"""Storage plane rules by hand: the JSON's precision, inclusive limits, the mesh's port budget, the derivation texts.

Every figure is derived in the test's docstring from the request, not read from the code's output.
"""

from __future__ import annotations

import pytest

from topology.spec import FabricRequestError
from topology.storage_plane import StorageRequest, plan_storage

from .test_planes import SEED_STORAGE


def storage(**kw):
    return plan_storage(StorageRequest(**{**SEED_STORAGE, **kw}))


ODD = dict(
    compute_node_count=3, gpu_count=24, storage_nics_per_node=1, storage_nic_gbps=25.4327, storage_node_count=3,
    drives_per_node=7, drive_tb=1.23456, raid_data_drives=5, raid_parity_drives=1, storage_node_nics=1,
    storage_node_nic_gbps=77.7777, switch_count=1, model_params_billion=7.1234567, checkpoint_shard_mb=None,
    checkpoint_window_s=7, dataloader_read_gbyte_s_per_gpu=0.0123457,
)  # fmt: skip


def test_every_figure_of_an_odd_design_to_three_decimals():
    """raw 3 × 7 × 1.23456 = 25.92576 → 25.926; RAID 5+1: × 5/6 = 21.6048 → 21.605; weights 7.1234567 × 2 =
    14.2469134 → 14.247; checkpoint (no shard) 7.1234567 × 14 = 99.7283938 → 99.728 GB; ÷ 7 s = 14.2469134 →
    14.247 GB/s; compute side 3 × 1 × 25.4327G ÷ 8 = 9.5372625, storage side 3 × 1 × 77.7777G ÷ 8 = 29.1666375 →
    burst min = 9.537; NICs 29.167, reads 29.167; need 0.0123457 × 24 = 0.2962968 → 0.296 GB/s.
    Bandwidth nodes: ⌈max(0.296, 14.2469) ÷ 9.7222125⌉ = ⌈1.465⌉ = 2; one switch: 1 × (32 − 0) = 32 ≥ 3 + 3 = 6."""
    d = storage(**ODD).to_dict()
    assert (d["raw_tb"], d["usable_tb"], d["weights_gbyte"], d["checkpoint_gbyte"]) == (
        25.926, 21.605, 14.247, 99.728,
    )  # fmt: skip
    assert (d["checkpoint_write_gbyte_s"], d["checkpoint_burst_gbyte_s"], d["read_need_gbyte_s"]) == (
        14.247, 9.537, 0.296,
    )  # fmt: skip
    assert (d["storage_nic_gbyte_s"], d["storage_read_gbyte_s"]) == (29.167, 29.167)
    assert (d["storage_nodes_for_bandwidth"], d["storage_nodes_for_capacity"], d["access_port_count"]) == (2, 0, 6)
    assert (d["switch_count"], d["switch_layout"], d["fabric"]) == (1, "full_mesh", None)
    assert d["derivations"]["switch_count"] == (
        "1 switches as given, full mesh: 1 × (32 − 0 mesh ports) = 32 access ports ≥ 6; 0 mesh links"
    )
    assert d["derivations"]["usable_tb"] == "25.93 TB × 5/6 (RAID 5+1) = 21.60 TB before file-system overhead"
    assert d["checks"] == [
        {"ok": True, "field": "storage_node_count", "message": "3 storage nodes for bandwidth: 2 needed"}
    ]


def test_checkpoint_figures_with_and_without_a_shard():
    """Seed shards 274 MB × 2,000 GPUs ÷ 1,000 = 548 GB = 548 ÷ 70 = 7.83 bytes per parameter (between the weights'
    2 and mixed-precision Adam's 2 + 4 + 4 + 4 = 14); without a shard 70B × 14 = 980 GB."""
    sharded = storage()
    assert sharded.checkpoint_gbyte == pytest.approx(548.0, abs=1e-9)
    assert sharded.derivations["checkpoint_gbyte"] == (
        "274 MB shard per GPU × 2,000 GPUs = 548.0 GB (= 7.83 bytes per parameter: more than the weights alone at 2, "
        "less than full mixed-precision Adam state at 14)"
    )
    whole = storage(checkpoint_shard_mb=None)
    assert whole.checkpoint_gbyte == pytest.approx(980.0, abs=1e-9)
    assert whole.derivations["checkpoint_gbyte"] == ("70B parameters × 14 bytes (weights + optimizer state) = 980.0 GB")


def test_one_switch_holds_exactly_its_ports():
    """One 32-port switch (no mesh): 8 compute × 2 + 8 storage × 2 = 32 ports fit exactly; 9 compute nodes need 34,
    refused with the budget 1 × (32 − 0) = 32."""
    exact = storage(compute_node_count=8, switch_count=1)
    assert (exact.switch_count, exact.access_port_count, exact.switch_layout) == (1, 32, "full_mesh")
    with pytest.raises(FabricRequestError) as exc:
        storage(compute_node_count=9, switch_count=1)
    assert exc.value.errors["switch_count"].startswith(
        "1 × 32-port switches in a full mesh (1 link(s) per pair) offer at most 1 × (32 − 0) = 32 access ports; "
        "the design needs 34 (18 compute + 16 storage)"
    )


def test_a_mesh_with_two_links_per_pair():
    """4 switches, 2 links per pair: (4 − 1) × 2 = 6 mesh ports a switch, 4 × (32 − 6) = 104 access ports for
    20 × 2 + 16 = 56; 4 × 3 ÷ 2 pairs × 2 = 12 mesh links."""
    plan = storage(compute_node_count=20, switch_count=4, mesh_links_per_pair=2)
    assert plan.derivations["switch_count"] == (
        "4 switches as given, full mesh: 4 × (32 − 6 mesh ports) = 104 access ports ≥ 56; 12 mesh links"
    )
    assert plan.mesh_links_per_pair == 2


@pytest.mark.parametrize(("switches", "budget"), [(33, "33 × (32 − 32) = 0"), (40, "40 × (32 − 39) = 0")])
def test_a_mesh_that_takes_every_port_offers_none(switches, budget):
    """33 switches meshed use 32 ports each for the mesh: nothing left; 40 would need 39 > 32 (shown as 0)."""
    with pytest.raises(FabricRequestError) as exc:
        storage(compute_node_count=1, storage_node_count=1, switch_count=switches)
    assert f"offer at most {budget} access ports" in exc.value.errors["switch_count"]


def test_capacity_target_at_an_exact_multiple_of_a_node():
    """Usable per node: 24 × 15.36 TB × 8/10 = 294.912 TB. 589.824 TB = 2 nodes exactly (not 3); 589.825 needs 3;
    2,359.296 = 8 nodes, the seed's 8 suffice; 2,359.297 needs 9 and the check fails."""
    assert storage(required_usable_tb=589.824).storage_nodes_for_capacity == 2
    assert storage(required_usable_tb=589.825).storage_nodes_for_capacity == 3
    enough = storage(required_usable_tb=2359.296)
    assert enough.derivations["storage_nodes_for_capacity"] == "⌈2359.3 TB ÷ 294.9 TB usable per node⌉ = 8"
    assert {"ok": True, "field": "storage_node_count", "message": "8 storage nodes for capacity: 8 needed"} in (
        enough.checks
    )
    short = storage(required_usable_tb=2359.297)
    assert {"ok": False, "field": "storage_node_count", "message": "8 storage nodes for capacity: 9 needed"} in (
        short.checks
    )
    assert storage().derivations["storage_nodes_for_capacity"] == "no capacity target given"


def test_bandwidth_nodes_at_an_exact_multiple():
    """Seed storage node: 2 × min(200, 100)G ÷ 8 = 25 GB/s. Reads 0.25 GB/s × 2,000 GPUs = 500 GB/s = 20 nodes
    exactly (the seed's 8 fall short); 0 GB/s of reads leaves the checkpoint write 548 ÷ 60 = 9.13 → 1 node."""
    plan = storage(dataloader_read_gbyte_s_per_gpu=0.25)
    assert plan.storage_nodes_for_bandwidth == 20
    assert {"ok": False, "field": "storage_node_count", "message": "8 storage nodes for bandwidth: 20 needed"} in (
        plan.checks
    )
    idle = storage(dataloader_read_gbyte_s_per_gpu=0.0)
    assert (idle.read_need_gbyte_s, idle.storage_nodes_for_bandwidth) == (0.0, 1)


@pytest.mark.parametrize(
    ("nic", "text"),
    [
        (200, " — the 200GbE storage NICs negotiate down to the 100G switch ports, halving what the NICs could give"),
        (400, " — the storage NICs negotiate down to the 100G switch ports"),
    ],
)
def test_a_throttled_storage_nic_says_by_how_much(nic, text):
    """200GbE on 100G ports is exactly half; 400GbE is a quarter — not "halving"."""
    plan = storage(storage_node_nic_gbps=nic)
    assert plan.derivations["storage_read_gbyte_s"] == f"8 × 2 × 100G links ÷ 8 = 200 GB/s{text}"
    assert {"ok": False, "field": "storage_switch_port_gbps",
            "message": f"{nic}GbE storage NICs run at 100G on these switch ports; choose switch ports of at least "
                       f"{nic}G"} in plan.checks  # fmt: skip
    assert "negotiate" not in storage(storage_node_nic_gbps=100).derivations["storage_read_gbyte_s"]


def test_compute_storage_nics_faster_than_the_ports_are_flagged():
    """2 × 200G compute storage NICs on 100G ports run at 100G; 100G NICs are not flagged."""
    plan = storage(storage_nic_gbps=200)
    assert {"ok": False, "field": "storage_switch_port_gbps", "message": "compute storage NICs (200G) run at 100G"} in (
        plan.checks
    )
    assert not any("compute storage NICs" in c["message"] for c in storage().checks)


COUNTS = ("compute_node_count", "gpu_count", "storage_nics_per_node", "storage_node_count", "drives_per_node",
          "raid_data_drives", "storage_node_nics", "switch_radix", "mesh_links_per_pair", "switch_count")  # fmt: skip


@pytest.mark.parametrize("name", COUNTS)
def test_every_count_is_at_least_one(name):
    """0 is refused on the field; 1 is a plane (one drive needs RAID 1+0, one compute node one storage NIC)."""
    with pytest.raises(FabricRequestError) as exc:
        storage(**{name: 0})
    assert exc.value.errors[name] == "must be at least 1, got 0"
    one = {name: 1}
    if name in ("drives_per_node", "raid_data_drives"):
        one.update(drives_per_node=1, raid_data_drives=1, raid_parity_drives=0)
    if name in ("switch_radix", "mesh_links_per_pair", "switch_count"):
        one.update(compute_node_count=1, storage_node_count=1, switch_count=1, switch_radix=max(4, one.get(name, 4)))
        one[name] = 1 if name != "switch_radix" else 4
    storage(**one)


def test_reads_may_be_zero_but_not_negative():
    with pytest.raises(FabricRequestError) as exc:
        storage(dataloader_read_gbyte_s_per_gpu=-0.01)
    assert exc.value.errors == {"dataloader_read_gbyte_s_per_gpu": "must be ≥ 0"}


def test_a_raid_group_may_take_every_drive_but_no_more():
    """RAID 8+2 needs 10 drives: 10 a node is allowed, 9 refused on raid_data_drives."""
    assert storage(drives_per_node=10).raw_tb == pytest.approx(8 * 10 * 15.36)
    with pytest.raises(FabricRequestError) as exc:
        storage(drives_per_node=9)
    assert exc.value.errors == {
        "raid_data_drives": "a RAID group of 8+2 needs 10 drives, more than the 9 per node",
    }


POSITIVE = ("storage_nic_gbps", "drive_tb", "storage_node_nic_gbps", "switch_port_gbps", "model_params_billion",
            "weights_bytes_per_param", "checkpoint_bytes_per_param", "checkpoint_window_s")  # fmt: skip


@pytest.mark.parametrize("name", POSITIVE)
def test_every_rate_size_and_window_is_positive(name):
    with pytest.raises(FabricRequestError) as exc:
        storage(**{name: 0})
    assert exc.value.errors == {name: "must be positive, got 0"}


@pytest.mark.parametrize(("ratio", "ok"), [(0.99, False), (1.0, True), (1.5, True)])
def test_oversubscription_from_one(ratio, ok):
    if ok:
        storage(oversubscription=ratio)
    else:
        with pytest.raises(FabricRequestError) as exc:
            storage(oversubscription=ratio)
        assert exc.value.errors == {"oversubscription": "must be ≥ 1, got 0.99"}


def test_capacities_read_in_terabytes_and_petabytes():
    """Below 1,000 TB two decimals; from 1,000 TB one decimal and the petabytes: seed raw 8 × 24 × 15.36 =
    2,949.12 TB → "2,949.1 TB (2.95 PB)"; 1 node × 24 × 41.6666 = 999.9984 TB → "1,000.00 TB" (still below)."""
    assert storage().derivations["raw_tb"] == "8 nodes × 24 drives × 15.36 TB = 2,949.1 TB (2.95 PB)"
    one = storage(storage_node_count=1, drive_tb=41.6666)
    assert one.derivations["raw_tb"] == "1 nodes × 24 drives × 41.6666 TB = 1,000.00 TB"


def test_storage_switches_that_cannot_be_built_are_refused_on_the_radix():
    """516 access ports on 4-port switches: even 3 tiers reach 4³ ÷ 4 = 16 endpoints."""
    with pytest.raises(FabricRequestError) as exc:
        storage(switch_radix=4)
    assert exc.value.errors["switch_radix"].startswith("storage switches: ")


def test_exactly_a_petabyte_reads_in_petabytes_and_small_positive_inputs_are_allowed():
    """1 node × 25 drives × 40 TB = 1,000 TB → "1,000.0 TB (1.00 PB)". Half a terabyte drives, a 0.5B-parameter
    model at 0.5 bytes and a 0.5 s window are small but positive: allowed."""
    assert storage(storage_node_count=1, drives_per_node=25, drive_tb=40).derivations["raw_tb"] == (
        "1 nodes × 25 drives × 40 TB = 1,000.0 TB (1.00 PB)"
    )
    small = storage(drive_tb=0.5, model_params_billion=0.5, weights_bytes_per_param=0.5, checkpoint_window_s=0.5)
    assert small.weights_gbyte == pytest.approx(0.25)


def test_petabytes_to_two_decimals():
    """9,999 TB = 9.999 PB → "10.00 PB" (÷ 1,000, not 999 or 1,001)."""
    assert storage(storage_node_count=1, drives_per_node=10, drive_tb=999.9).derivations["raw_tb"] == (
        "1 nodes × 10 drives × 999.9 TB = 9,999.0 TB (10.00 PB)"
    )
