"""Impossible requests raise one clear error naming the field."""

from __future__ import annotations

import pytest

from topology import FabricRequest, FabricRequestError, Topology, plan_fabric
from topology.switches import switch_model


def errors_of(**kw) -> dict[str, str]:
    kw.setdefault("topology", Topology.FAT_TREE)
    kw.setdefault("node_count", 10)
    with pytest.raises(FabricRequestError) as exc:
        plan_fabric(FabricRequest(**kw))
    return exc.value.errors


@pytest.mark.parametrize(
    ("kw", "field", "text"),
    [
        ({"node_count": 0}, "node_count", "at least 1"),
        ({"node_count": -5}, "node_count", "at least 1"),
        ({"node_count": 2.5}, "node_count", "whole number"),
        ({"nics_per_node": 0}, "nics_per_node", "at least 1"),
        ({"nic_gbps": -400}, "nic_gbps", "positive"),
        ({"switch_radix": 0}, "switch_radix", "at least 1"),
        ({"switch_radix": 1}, "switch_radix", "at least 2 ports"),
        ({"oversubscription": 0.5}, "oversubscription", "≥ 1"),
        ({"agg_oversubscription": 0}, "agg_oversubscription", "≥ 1"),
        ({"global_oversubscription": float("nan")}, "global_oversubscription", "≥ 1"),
        ({"tiers": 4}, "tiers", "1, 2 or 3"),
        ({"topology": "hypercube"}, "topology", "rail_optimized"),
        ({"nic_gbps": 800, "switch_port_gbps": 400}, "nic_gbps", "faster than the 400G"),
        ({"node_count": 300, "tiers": 2}, "node_count", "2-tier"),
        ({"node_count": 100, "tiers": 1}, "node_count", "one 64-port switch"),
        ({"node_count": 9000, "tiers": 3}, "node_count", "65,536"),
        ({"node_count": 10**6}, "node_count", "3-tier maximum"),
        ({"torus_dims": (2, 2)}, "torus_dims", "three whole numbers"),
        ({"scalable_unit_nodes": 0}, "scalable_unit_nodes", "at least 1"),
    ],
)
def test_refusal_names_the_field(kw, field, text):
    errors = errors_of(**kw)
    assert field in errors
    assert text in errors[field]


def test_torus_dims_must_multiply_to_chip_count():
    errors = errors_of(topology=Topology.TORUS_3D, node_count=100, torus_dims=(4, 4, 4))
    assert "64 chips" in errors["torus_dims"]


def test_dragonfly_too_many_groups():
    errors = errors_of(topology=Topology.DRAGONFLY_PLUS, node_count=2000, nics_per_node=8, switch_radix=8)
    assert "groups" in errors["node_count"]


def test_dragonfly_group_too_large_for_spine():
    errors = errors_of(topology=Topology.DRAGONFLY_PLUS, leaves_per_group=40)
    assert "at most 32 leaves" in errors["leaves_per_group"]


def test_rail_su_too_large_for_a_pod():
    errors = errors_of(
        topology=Topology.RAIL_OPTIMIZED,
        node_count=3000,
        nics_per_node=8,
        scalable_unit_nodes=200,
        tiers=3,
        rail_groups=1,
    )
    assert "scalable_unit_nodes" in errors


def test_rail_groups_must_divide_the_rails():
    errors = errors_of(topology=Topology.RAIL_OPTIMIZED, nics_per_node=8, rail_groups=3)
    assert "rail_groups" in errors and "choose one of 1, 2, 4, 8" in errors["rail_groups"]


def test_rail_groups_and_planes_only_on_rail_optimized():
    errors = errors_of(topology=Topology.FAT_TREE, rail_groups=2, nic_planes=2)
    assert "rail-optimized" in errors["rail_groups"] and "rail-optimized" in errors["nic_planes"]


def test_nic_planes_choices():
    errors = errors_of(topology=Topology.RAIL_OPTIMIZED, nic_planes=3)
    assert errors["nic_planes"] == "must be one of 1, 2, 4, got 3"


def test_an_800g_nic_on_400g_ports_names_planes():
    errors = errors_of(topology=Topology.RAIL_OPTIMIZED, nic_gbps=800, switch_port_gbps=400)
    assert "800G NIC port is faster than the 400G switch ports" in errors["nic_gbps"]
    assert "nic_planes" in errors["nic_gbps"]


def test_unknown_switch_model():
    with pytest.raises(FabricRequestError) as exc:
        switch_model("QM9999")
    assert "QM9700" in exc.value.errors["switch_model"]


def test_several_bad_fields_reported_together():
    with pytest.raises(FabricRequestError) as exc:
        FabricRequest(topology=Topology.FAT_TREE, node_count=0, nic_gbps=0, oversubscription=0.2)
    assert set(exc.value.errors) == {"node_count", "nic_gbps", "oversubscription"}
