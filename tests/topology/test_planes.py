"""Storage and management planes against the seed chapter (seed-figures.md D5, D6, D8–D10)."""

from __future__ import annotations

import pytest

from topology.management_plane import ManagementRequest, plan_management
from topology.spec import FabricRequestError
from topology.storage_plane import StorageRequest, plan_storage

SEED_STORAGE = dict(
    compute_node_count=250,
    gpu_count=2000,
    storage_nics_per_node=2,
    storage_nic_gbps=100,
    storage_node_count=8,
    drives_per_node=24,
    drive_tb=15.36,
    raid_data_drives=8,
    raid_parity_drives=2,
    storage_node_nics=2,
    storage_node_nic_gbps=200,
    switch_radix=32,
    switch_port_gbps=100,
    oversubscription=1.0,
    switch_count=None,  # sized from the bandwidth
    model_params_billion=70,
    weights_bytes_per_param=2,
    checkpoint_bytes_per_param=14.0,  # Adam, mixed precision (topology.storage_plane)
    checkpoint_shard_mb=274,
    checkpoint_window_s=60,
    dataloader_read_gbyte_s_per_gpu=0.1,
    required_usable_tb=None,
)


def test_d5_management_plane():
    plan = plan_management(
        management_request(compute_node_count=250, storage_node_count=8, mgmt_node_count=5, login_node_count=4)
    )
    assert plan.server_count == 267
    assert plan.tor_count == 34
    assert plan.spine_count == 2
    assert plan.tor_uplink_count == 68
    assert plan.spine_ports_used_max == 34 <= 48
    assert plan.bmc_port_count == 267
    assert "⌈267 ÷ 8 servers per ToR⌉ = 34" in plan.derivations["tor_count"]


def test_d8_capacity_and_read_bandwidth():
    plan = plan_storage(StorageRequest(**SEED_STORAGE))
    assert plan.raw_tb == pytest.approx(8 * 24 * 15.36) == pytest.approx(2949.12)
    assert plan.usable_tb == pytest.approx(2949.12 * 0.8)  # ~2.36 PB; the chapter says ~2.3
    assert plan.storage_nic_gbyte_s == pytest.approx(400)  # 8 × 2 × 200GbE
    # on the chapter's 100G storage switches the 200GbE NICs negotiate down
    assert plan.storage_read_gbyte_s == pytest.approx(200)
    assert any(not c["ok"] and "run at 100G" in c["message"] for c in plan.checks)


def test_d9_checkpoint_burst():
    plan = plan_storage(StorageRequest(**SEED_STORAGE))
    assert plan.checkpoint_gbyte == pytest.approx(548.0)
    assert plan.checkpoint_write_gbyte_s == pytest.approx(548 / 60)  # ~9 GB/s
    assert plan.checkpoint_burst_gbyte_s > 10 * plan.checkpoint_write_gbyte_s
    assert "7.83 bytes per parameter" in plan.derivations["checkpoint_gbyte"]


def test_d10_weights():
    plan = plan_storage(StorageRequest(**SEED_STORAGE))
    assert plan.weights_gbyte == pytest.approx(140.0)
    full = plan_storage(StorageRequest(**{**SEED_STORAGE, "checkpoint_shard_mb": None}))
    assert full.checkpoint_gbyte == pytest.approx(70 * 14)


def test_d6_chapter_storage_switches_cannot_serve_the_ports():
    """The chapter's 4 × 32-port switches, fully meshed, give 116 ports for 516 NIC ports."""
    with pytest.raises(FabricRequestError) as exc:
        plan_storage(StorageRequest(**{**SEED_STORAGE, "switch_count": 4}))
    msg = exc.value.errors["switch_count"]
    assert "4 × (32 − 3) = 116" in msg and "516" in msg
    sized = plan_storage(StorageRequest(**SEED_STORAGE))
    assert sized.access_port_count == 516
    assert sized.switch_layout == "three_tier"
    two_to_one = plan_storage(StorageRequest(**{**SEED_STORAGE, "oversubscription": 2}))
    assert two_to_one.switch_layout == "leaf_spine"
    assert two_to_one.switch_count == 25 + 11
    small = plan_storage(StorageRequest(**{**SEED_STORAGE, "compute_node_count": 20, "switch_count": 4}))
    assert small.switch_layout == "full_mesh"


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        ({"nodes_per_tor": 30}, "nodes_per_tor"),
        ({"tor_uplinks": 9}, "tor_uplinks"),
        ({"compute_node_count": 0}, "compute_node_count"),
        ({"uplink_gbps": 0}, "uplink_gbps"),
    ],
)
def test_management_refusals(kw, field):
    base = {"compute_node_count": 250}
    with pytest.raises(FabricRequestError) as exc:
        plan_management(management_request(**{**base, **kw}))
    assert field in exc.value.errors


def test_storage_refusals():
    with pytest.raises(FabricRequestError) as exc:
        plan_storage(StorageRequest(**{**SEED_STORAGE, "raid_data_drives": 30}))
    assert "raid_data_drives" in exc.value.errors


def management_request(**kw) -> ManagementRequest:
    """The seed's management plane (D5) for what a case does not set: 8 storage, 5 management and 4 login servers;
    8 servers a ToR with 2 ports each (25GbE + BMC) of 48 access ports at 25G; 2 of 8 uplink ports at 100G; 48-port
    spines, at least 2."""
    seed = dict(storage_node_count=8, mgmt_node_count=5, login_node_count=4, nodes_per_tor=8, ports_per_node=2,
                tor_access_ports=48, tor_access_gbps=25.0, tor_uplinks=2, tor_uplink_ports=8, uplink_gbps=100.0,
                spine_ports=48, min_spines=2)  # fmt: skip
    return ManagementRequest(**{**seed, **kw})


def test_management_limits_are_inclusive_and_the_refusal_says_what_fits():
    """24 servers × 2 ports = 48 = the ToR's access ports: allowed; 25 × 2 = 50 > 48 refused, at most 48 ÷ 2 = 24;
    8 of 8 uplink ports used: allowed; one compute node is a plane. ToR ratio: 24 × 25G ÷ 8 × 100G = 0.75:1 → 0.75;
    3 × 25G ÷ 7 × 100G = 0.107142857 → 0.107143 in the JSON."""
    full = plan_management(management_request(compute_node_count=1, nodes_per_tor=24, tor_uplinks=8))
    assert full.to_dict()["tor_oversubscription_ratio"] == 0.75
    with pytest.raises(FabricRequestError) as exc:
        plan_management(management_request(compute_node_count=250, nodes_per_tor=25))
    assert exc.value.errors["nodes_per_tor"].endswith("access ports; at most 24 servers per ToR")
    odd = plan_management(management_request(compute_node_count=10, nodes_per_tor=3, tor_uplinks=7))
    assert odd.to_dict()["tor_oversubscription_ratio"] == 0.107143
    with pytest.raises(FabricRequestError) as exc:
        plan_management(management_request(compute_node_count=10, storage_node_count=-1, spine_ports=0))
    assert set(exc.value.errors) == {"storage_node_count", "spine_ports"}


def test_a_small_management_plane_by_hand():
    """10 compute servers, no storage, management or login (zero is allowed): ⌈10 ÷ 3⌉ = 4 ToRs × 7 uplinks = 28
    uplinks → max(2, ⌈28 ÷ 48⌉) = 2 spines, the busiest with ⌈28 ÷ 2⌉ = 14 ports; 4 + 2 = 6 switches; 10 × 2 = 20
    access ports; the ToR: 3 × 25G down ÷ 7 × 100G up = 0.107:1."""
    plan = plan_management(management_request(compute_node_count=10, storage_node_count=0, mgmt_node_count=0,
                                              login_node_count=0, nodes_per_tor=3, tor_uplinks=7))  # fmt: skip
    d = plan.to_dict()
    assert (d["server_count"], d["tor_count"], d["spine_count"], d["switch_count"]) == (10, 4, 2, 6)
    assert (d["tor_uplink_count"], d["spine_ports_used_max"], d["access_port_count"], d["bmc_port_count"]) == (
        28, 14, 20, 10,
    )  # fmt: skip
    assert d["derivations"]["access_port_count"] == "10 servers × 2 ports (management + BMC) = 20"
    assert d["derivations"]["tor_oversubscription_ratio"] == "3 × 25G down ÷ 7 × 100G up = 0.107:1"
    with pytest.raises(FabricRequestError) as exc:
        plan_management(management_request(compute_node_count=250, nodes_per_tor=25))
    assert exc.value.errors["nodes_per_tor"] == (
        "25 servers × 2 ports = 50 exceed the ToR's 48 access ports; at most 24 servers per ToR"
    )


def test_storage_figures_by_hand():
    """4 compute nodes × 2 × 100G = 800 Gbit/s = 100 GB/s against 8 storage nodes × 2 × min(200G NIC, 100G port)
    = 200 GB/s: the burst is the compute side's 100 GB/s. Seed shards: 274 MB × 2,000 GPUs = 548 GB exactly.
    Raw 8 × 24 × 15.36123 TB = 2,949.35616 TB → 2,949.356; RAID 8+2 usable × 0.8 = 2,359.484928 → 2,359.485;
    reads 2,000 GPUs × 0.1234567 GB/s = 246.9134 → 246.913."""
    plan = plan_storage(StorageRequest(**{**SEED_STORAGE, "compute_node_count": 4, "drive_tb": 15.36123,
                                          "dataloader_read_gbyte_s_per_gpu": 0.1234567}))  # fmt: skip
    d = plan.to_dict()
    assert d["checkpoint_burst_gbyte_s"] == 100.0
    assert (
        "min(compute side 4 × 2 × 100G = 100 GB/s, storage side 200 GB/s) = 100 GB/s offered"
        in (plan.derivations["checkpoint_burst_gbyte_s"])
    )
    assert d["checkpoint_gbyte"] == 548.0
    assert (d["raw_tb"], d["usable_tb"], d["read_need_gbyte_s"]) == (2949.356, 2359.485, 246.913)


def test_storage_edge_values_that_are_allowed():
    """RAID 8+0 (no parity) keeps all 8/8 of the raw capacity; a 0.5 MB shard is small but positive."""
    no_parity = plan_storage(StorageRequest(**{**SEED_STORAGE, "raid_parity_drives": 0}))
    assert no_parity.usable_tb == pytest.approx(no_parity.raw_tb)
    tiny = plan_storage(StorageRequest(**{**SEED_STORAGE, "checkpoint_shard_mb": 0.5}))
    assert tiny.checkpoint_gbyte == pytest.approx(0.5 * 2000 / 1000)
    with pytest.raises(FabricRequestError) as exc:
        plan_storage(StorageRequest(**{**SEED_STORAGE, "raid_parity_drives": -1, "checkpoint_shard_mb": 0}))
    assert set(exc.value.errors) == {"raid_parity_drives", "checkpoint_shard_mb"}
