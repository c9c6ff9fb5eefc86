"""The batch partition a design's workload runs on (cluster/workload.py), on the k = 4 fat-tree drawn by hand:
16 nodes, leaves of 2 nodes, pods of 2 leaves (Al-Fares et al. 2008), Kubernetes on the last 4 nodes (pod 4)."""

from __future__ import annotations

import pytest

from cluster.pipeline import plan_cluster
from cluster.validate import RequirementsError, validate
from cluster.workload import batch_of

FABRIC = {"topology": "fat_tree", "nics_per_node": 1, "switch_radix": 4, "switch_model": "", "tiers": 3}


def _design(**workload):
    data = {"node_count": 16, "gpus_per_node": 8, "compute_fabric": FABRIC, "scheduler": {"kubernetes_node_count": 4}}
    if workload:
        data["workload"] = workload
    return plan_cluster(validate(data))


def test_batch_hierarchy_of_the_k4_fat_tree():
    """Batch = the 12 Slurm nodes gpu001–012 on leaves 1–6 (2 nodes each) in pods 1–3; the design's 16 nodes are
    8 leaves in 4 pods. Placement hands simulate() the leaf of every node and the pod of every leaf."""
    b = batch_of(_design())
    assert (b.partition, b.node_count, b.gpus, b.leaf_nodes, b.design_nodes) == ("gpu-large", 12, 96, 2, 16)
    assert b.hierarchy == ((0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5), (0, 0, 1, 1, 2, 2), 3) and b.pod_count == 3
    assert b.placement() == {
        "leaf_nodes": 2,
        "groups": [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5],
        "pods": [0, 0, 1, 1, 2, 2],
    }
    pooled = b.placement(pooled=True)
    assert pooled["pods"] == [0, 0, 1, 1, 2, 2, 3, 3] and pooled["groups"][-1] == 7


def test_a_class_larger_than_the_batch_partition_refuses_the_design():
    """96 batch GPUs: a class of up to 128 GPUs cannot run there — a 422-style refusal on the classes field."""
    with pytest.raises(RequirementsError) as exc:
        _design(classes="big,100,8,128,8,1,2,queued")
    assert exc.value.unprocessable
    assert exc.value.errors == {
        "wl_classes": [
            "class 1: max_gpus big: 128 GPUs is larger than the 96-GPU cluster (its batch partition gpu-large)"
        ]
    }
