"""The partition plan's limits, texts and Kubernetes quotas on the seed's split, by hand (seed §14.8.5: 250
nodes of 8 H100, Slurm gpu[001-200] = 1,600 GPUs, Kubernetes gpu[201-250] = 400 GPUs, four tenants of 25 %)."""

from __future__ import annotations

import pytest
import yaml

from cluster.requirements import Scheduler
from cluster.validate import validate
from scheduling import SchedulerInputError
from scheduling.kubernetes import kueue_and_volcano, split_by_share
from scheduling.partitions import parse_tenants, plan_partitions
from scheduling.slurm_conf import sacctmgr_script
from tests.conftest import EXAMPLES

MIG = {"mig_node_count": 10, "mig_demand": "1g.10gb=28, 2g.20gb=6, 3g.40gb=4"}


def _plan(**changes):
    seed = validate(yaml.safe_load((EXAMPLES / "seed-2000-gpu.yaml").read_text())).scheduler
    return plan_partitions(
        Scheduler(**{**seed.__dict__, **changes}), node_count=250, gpus_per_node=8, gpu_model="H100-SXM5"
    )


def _refusal(**changes) -> dict[str, str]:
    with pytest.raises(SchedulerInputError) as exc:
        _plan(**changes)
    return exc.value.errors


def test_seed_texts_and_counts():
    p = _plan()
    d = p.to_dict()
    assert (d["slurm_gpu_count"], d["kubernetes_node_count"], d["kubernetes_gpu_count"]) == (1600, 50, 400)
    batch, inter = p.partitions
    assert batch.derivation == (
        "nodes gpu001–gpu200: the 200 Slurm nodes; whole nodes per job (OverSubscribe=EXCLUSIVE, seed §14.8.5)"
    )
    assert inter.derivation == (
        "the last 50 Slurm nodes gpu151–gpu200, also in the batch partition (as the seed's gpu[151-200] inside "
        "gpu[001-200])"
    )
    assert (batch.default, inter.default) == (True, False)  # Default=YES on the batch partition only
    assert p.derivations["kubernetes_node_count"] == (
        "the last 50 nodes gpu201–gpu250 (400 GPUs), outside slurm.conf: Kubernetes runs them"
    )
    assert d["mig"] is None and p.mig_nodes.count == 0


def test_carved_out_interactive_partition_says_so():
    """Without overlap the batch partition is the 200 Slurm nodes less the last 50: gpu001–gpu150."""
    batch, inter = _plan(interactive_overlaps_batch=False).partitions
    assert batch.derivation == (
        "nodes gpu001–gpu150: the 200 Slurm nodes less the 50 interactive ones; whole nodes per job "
        "(OverSubscribe=EXCLUSIVE, seed §14.8.5)"
    )
    assert inter.derivation == "the last 50 Slurm nodes gpu151–gpu200, carved out of the batch partition"


def test_mig_derivation_counts_every_instance():
    """10 MIG nodes × 38 instances (4 GPUs × 7 1g + 2 × 3 2g + 2 × 2 3g) = 380."""
    text = _plan(**MIG).derivations["mig"]
    assert text.startswith("the first 10 Kubernetes nodes, each 4 × (7×1g.10gb) + 2 × (3×2g.20gb) + 2 × (2×3g.40gb)")
    assert text.endswith("; 380 MIG instances in all")


def test_limits_are_inclusive():
    """Every limit admits its own value: 200 interactive nodes overlapping the 200 Slurm nodes, 199 carved out of
    them (the batch partition keeps one), a default time equal to the limit, a GPU cap of all 1,600 Slurm GPUs."""
    assert _plan(interactive_node_count=200).partitions[1].nodes.count == 200
    assert _plan(interactive_node_count=199, interactive_overlaps_batch=False).partitions[0].nodes.count == 1
    assert _plan(batch_default_time_h=336, interactive_default_time_h=12).partitions[1].default_time_h == 12
    assert _plan(production_max_gpus_per_user=1600, dev_max_gpus_per_user=1600).qos[1].max_gpus_per_user == 1600
    assert _refusal(dev_max_gpus_per_user=1601) == {
        "dev_max_gpus_per_user": "1,601 GPUs per user is more than Slurm's 1,600 GPUs (200 nodes × 8); "
        "allowed: 1 to 1,600"
    }
    assert _refusal(interactive_default_time_h=13) == {
        "interactive_default_time_h": "the default time (13 h) is longer than the partition's limit (12 h)"
    }


def test_kubernetes_taking_every_node_names_the_allowed_range():
    assert _refusal(kubernetes_node_count=250) == {
        "kubernetes_node_count": "250 Kubernetes nodes leave none of the 250 compute nodes for Slurm; allowed: 0 to 249"
    }


def test_a_share_of_one_percent_or_less_is_a_share():
    assert [str(t.share_pct) for t in parse_tenants("a:1,b:99")] == ["1", "99"]
    assert [str(t.share_pct) for t in parse_tenants("a:0.5,b:99.5")] == ["0.5", "99.5"]


def test_preemptible_qos_line():
    """partitions.py: preemptible is Priority 100 (a tenth of dev's 1000) with no limits of its own, and its
    source note says why it is requeued (seed §14.3.3)."""
    line = next(x for x in sacctmgr_script(_plan(), title="Seed").splitlines() if " qos preemptible " in x)
    assert line == (
        "sacctmgr -i add qos preemptible Priority=100  # seed §14.3.3: requeued (from its checkpoint) when "
        "production or dev needs the GPUs"
    )


def test_largest_remainder_goes_to_the_largest_fraction():
    """7 GPUs at 10 % / 90 %: 0.7 and 6.3 floor to 0 and 6; the one left goes to the larger fraction (0.7): 1 / 6."""
    assert split_by_share(_plan(tenants="x:10,y:90"), 7) == {"x": 1, "y": 6}


def _docs(p):
    return list(yaml.safe_load_all(kueue_and_volcano(p, title="T", scalable_units=False)))


def test_mig_quotas_and_borrowing_limits():
    """MIG on the first 10 of the 50 Kubernetes nodes: 280 1g, 60 2g and 40 3g instances, a quarter each per
    tenant (70 / 15 / 10), each borrowing up to the rest (210 / 45 / 30); whole GPUs: 40 nodes × 8 = 320, 80 each."""
    cqs = [d for d in _docs(_plan(**MIG)) if d["kind"] == "ClusterQueue"]
    assert len(cqs) == 4
    for cq in cqs:
        full, mig = cq["spec"]["resourceGroups"]
        assert full["flavors"][0]["resources"] == [
            {"name": "nvidia.com/gpu", "nominalQuota": 80, "borrowingLimit": 240}
        ]
        assert mig["flavors"][0]["resources"] == [
            {"name": "nvidia.com/mig-1g.10gb", "nominalQuota": 70, "borrowingLimit": 210},
            {"name": "nvidia.com/mig-2g.20gb", "nominalQuota": 15, "borrowingLimit": 45},
            {"name": "nvidia.com/mig-3g.40gb", "nominalQuota": 10, "borrowingLimit": 30},
        ]


def test_manifest_head_and_key_order():
    """The head counts the Kubernetes GPUs (50 × 8 = 400) and the quotas (a quarter each); objects keep the
    order a reader expects (spec: namespaceSelector, cohort, resourceGroups, preemption), not alphabetical."""
    text = kueue_and_volcano(_plan(), title="T", scalable_units=False)
    assert text.splitlines()[0] == (
        "# Kubernetes — T: gpu[201-250] (400 GPUs). Kueue quotas by tenant share (nlp 100, cv 100, recsys 100, "
        "inference 100 GPUs), one cohort to borrow idle quota; Volcano queues for the same tenants (use one of the "
        "two schedulers)."
    )
    cq = text[text.index("kind: ClusterQueue") :]
    assert (
        cq.index("namespaceSelector:") < cq.index("cohort: gpu") < cq.index("resourceGroups:") < cq.index("preemption:")
    )


def test_volcano_queue_weights_are_whole_and_at_least_one():
    """Volcano's proportion plugin takes an integer weight ≥ 1: 0.5 % → 1, 99.5 % → 99; queues are reclaimable
    and capped at the 400 whole Kubernetes GPUs."""
    queues = [d for d in _docs(_plan(tenants="a:0.5,b:99.5")) if d["kind"] == "Queue"]
    assert [q["spec"] for q in queues] == [
        {"weight": 1, "reclaimable": True, "capability": {"nvidia.com/gpu": 400}},
        {"weight": 99, "reclaimable": True, "capability": {"nvidia.com/gpu": 400}},
    ]
