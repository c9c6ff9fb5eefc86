"""Issue #16: the partition plan and the Slurm files, pure (no Django, no slurmctld)."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from cluster.pipeline import plan_cluster
from cluster.requirements import Requirements, Scheduler
from cluster.scheduler_files import SLURM_FILES, slurm_files, slurm_zip
from cluster.validate import RequirementsError, validate
from scheduling import SchedulerInputError
from scheduling.hostlist import compress, expand
from scheduling.partitions import parse_tenants, plan_partitions
from scheduling.slurm_conf import slurm_time
from scheduling.slurm_topology import slurm_topology
from tests.conftest import EXAMPLES


@given(st.lists(st.integers(1, 3000), min_size=1, max_size=60, unique=True), st.sampled_from(["gpu", "leaf", "n"]))
@settings(max_examples=200, deadline=None)
def test_hostlist_round_trip(numbers, prefix):
    names = [f"{prefix}{n:04d}" for n in sorted(numbers)]
    assert expand(compress(names)) == names


def test_hostlist_by_hand():
    assert compress([f"gpu{i:03d}" for i in range(1, 201)]) == "gpu[001-200]"
    assert compress(["gpu001", "gpu003", "gpu004", "gpu010"]) == "gpu[001,003-004,010]"
    assert compress(["leaf0001"]) == "leaf0001"
    assert compress(["lg001", "lg002", "spine0001"]) == "lg[001-002],spine0001"
    assert expand("gpu[151-153]") == ["gpu151", "gpu152", "gpu153"]
    # names without a number stand as they are, and the names after them are still compressed (the Dragonfly+
    # tree's "global"; mutation survivors: the no-number marker and the loop's continue)
    assert compress(["global"]) == "global"
    assert compress(["login", "gpu001", "gpu002"]) == "login,gpu[001-002]"


def test_slurm_time():
    assert slurm_time(336) == "14-00:00:00"  # the seed's gpu-large MaxTime
    assert (slurm_time(12), slurm_time(2), slurm_time(24), slurm_time(30)) == (
        "12:00:00", "02:00:00", "1-00:00:00", "1-06:00:00",
    )  # fmt: skip


def _seed():
    r = validate(yaml.safe_load((EXAMPLES / "seed-2000-gpu.yaml").read_text()))
    return r, plan_cluster(r)


def test_seed_partition_plan():
    """Seed §14.8.5: 250 nodes, Slurm 200 (1,600 GPUs) + Kubernetes 50 (400 GPUs); gpu-large gpu[001-200]
    14 days exclusive, gpu-interactive gpu[151-200] 12 h shared, inside gpu-large."""
    _r, p = _seed()
    s = p.scheduler
    assert (s.hostlist(s.slurm), s.slurm_gpu_count) == ("gpu[001-200]", 1600)
    assert (s.hostlist(s.kubernetes), s.kubernetes.count * 8) == ("gpu[201-250]", 400)
    big, inter = s.partitions
    assert (big.name, s.hostlist(big.nodes), big.max_time_h, big.exclusive, big.default) == (
        "gpu-large", "gpu[001-200]", 336, True, True,
    )  # fmt: skip
    assert (inter.name, s.hostlist(inter.nodes), inter.max_time_h, inter.default_time_h, inter.exclusive) == (
        "gpu-interactive", "gpu[151-200]", 12, 2, False,
    )  # fmt: skip
    assert (
        s.derivations["slurm_node_count"]
        == "250 compute nodes − 50 for Kubernetes = 200 Slurm nodes × 8 GPUs = 1,600 GPUs"
    )
    result = p.result()["scheduler"]
    assert result["partitions"][1]["gpu_count"] == 400 and result["gres"] == "gpu:H100:8"


def test_carved_out_interactive_partition():
    r, _ = _seed()
    s = Scheduler(**{**r.scheduler.__dict__, "interactive_overlaps_batch": False})
    plan = plan_partitions(s, node_count=250, gpus_per_node=8, gpu_model="H100-SXM5")
    big, inter = plan.partitions
    assert (plan.hostlist(big.nodes), plan.hostlist(inter.nodes)) == ("gpu[001-150]", "gpu[151-200]")


def test_slurm_conf_lines_from_the_seed():
    r, p = _seed()
    files = slurm_files(r, p.fabric, p.scheduler)
    conf = files["slurm.conf"].splitlines()
    assert (
        "NodeName=gpu[001-200] CPUs=256 Sockets=2 CoresPerSocket=64 ThreadsPerCore=2 RealMemory=515000 "
        "Gres=gpu:H100:8 Feature=H100 State=UNKNOWN"
    ) in conf  # seed §14.3.2, CPUs = 2 × 64 × 2
    assert (
        "PartitionName=gpu-large Nodes=gpu[001-200] Default=YES MaxTime=14-00:00:00 DefaultTime=1-00:00:00 "
        "State=UP OverSubscribe=EXCLUSIVE"
    ) in conf
    # bf_window is minutes: the longest limit, 336 h = 20,160 min (the seed's 86400 would be 60 days)
    assert "SchedulerParameters=bf_window=20160,bf_resolution=60,bf_continue" in conf
    assert [c for c in conf if c.startswith("SlurmctldHost")] == ["SlurmctldHost=mn001", "SlurmctldHost=mn002"]
    sacct = files["sacctmgr.sh"]
    assert (
        "sacctmgr -i add qos production Priority=10000 MaxWall=90-00:00:00 MaxJobsPU=10 GrpSubmitJobs=100 "
        "MaxTRESPerUser=gres/gpu=1024"
    ) in sacct  # seed §14.8.5, verbatim limits
    assert (
        "add qos dev Priority=1000 MaxWall=7-00:00:00 MaxJobsPU=30 GrpSubmitJobs=500 MaxTRESPerUser=gres/gpu=128"
        in sacct
    )
    assert sacct.count("Fairshare=2500") == 4
    gres = files["gres.conf"].splitlines()
    # 8 GPUs over 2 × 64 = 128 cores: 16 cores each (Cores= counts cores, not the 256 hardware threads)
    assert gres[-1] == "NodeName=gpu[001-200] Name=gpu Type=H100 File=/dev/nvidia7 Cores=112-127"
    assert list(files) == list(SLURM_FILES)
    import io
    import zipfile

    z = zipfile.ZipFile(io.BytesIO(slurm_zip(files, "seed-slurm")))
    assert z.namelist() == [f"seed-slurm/{n}" for n in SLURM_FILES]
    assert z.read("seed-slurm/slurm.conf").decode() == files["slurm.conf"]


def test_seed_without_kubernetes_lists_every_switch_of_the_plan():
    """All 250 nodes on Slurm: 8 Slurm leaves (SUs of 32 nodes, the 8th of 26) of 8 rail leaves = 64 leaves
    (seed D1), 32 spines (D2), each spine over all 8 groups."""
    data = yaml.safe_load((EXAMPLES / "seed-2000-gpu.yaml").read_text())
    data["scheduler"].update(kubernetes_node_count=0, interactive_node_count=50)
    r = validate(data)
    p = plan_cluster(r)
    topo = slurm_topology(p.fabric, p.scheduler)
    assert topo.physical_counts == topo.plan_counts == {"leaf": 64, "spine": 32}
    assert len(topo.level(0)) == 8 and [len(s.nodes) for s in topo.level(0)][-1] == 26
    assert all(s.switches == tuple(f"lg{i:03d}" for i in range(1, 9)) for s in topo.level(1))


def test_topology_trees_by_fabric():
    """Tree per fabric kind: a 2:1-tapered fat-tree whose leaves split nodes, Dragonfly+ with its global
    switch, a 3D torus with none."""
    for name, expect in (("fat-tree-2048-1p5to1.yaml", "straddle"), ("dragonfly-plus-8k.yaml", "global")):
        r = validate(yaml.safe_load((EXAMPLES / name).read_text()))
        p = plan_cluster(r)
        topo = slurm_topology(p.fabric, p.scheduler)
        assert topo.physical_counts == topo.plan_counts  # every switch of the plan, once
        nodes = [n for s in topo.level(0) for n in s.nodes]
        assert sorted(nodes) == p.scheduler.names(p.scheduler.slurm)  # each node under exactly one leaf
        text = slurm_files(r, p.fabric, p.scheduler)
        if expect == "straddle":
            # 256 nodes × 8 ports over leaves of 38 down ports: node k holds ports 8k…8k+7, leaf j starts at 38j;
            # a node straddles where 38j mod 8 = 6j mod 8 ≠ 0, i.e. j not a multiple of 4: of the 53 inner
            # boundaries (j = 1…53) 13 are multiples of 4, so 40 nodes have ports on two leaves
            assert "40 Slurm nodes have ports on two leaves" in text["topology.conf"]
        else:
            assert topo.dragonfly and text["topology.conf"].rstrip().endswith(
                "SwitchName=global Switches=spine[0001-0256]"
            )
            assert "TopologyParam=Dragonfly" in text["slurm.conf"]
    r = validate(yaml.safe_load((EXAMPLES / "torus-tpu-v4-4096.yaml").read_text()))
    p = plan_cluster(r)
    assert slurm_topology(p.fabric, p.scheduler) is None
    files = slurm_files(r, p.fabric, p.scheduler)
    assert "TopologyPlugin" not in files["slurm.conf"].replace("# no TopologyPlugin", "")
    assert "cannot describe it" in files["topology.conf"]


def test_block_form_per_scalable_unit():
    """DGX SuperPOD 4 SU (RA-11333 Table 4): 127 DGX in 4 SUs of 32 slots, so the blocks are 32, 32, 32 and
    31 nodes: unequal, BlockSizes left to Slurm. The seed with 26 Kubernetes nodes
    leaves 224 = 7 × 32 Slurm nodes: 7 equal blocks, sizes 1, 2 and 4 blocks = 32, 64, 128 nodes."""
    r = validate(yaml.safe_load((EXAMPLES / "superpod-4su-h100.yaml").read_text()))
    p = plan_cluster(r)
    block = slurm_files(r, p.fabric, p.scheduler)["topology-block.conf"].splitlines()
    blocks = [b for b in block if b.startswith("BlockName=")]
    assert len(blocks) == 4 and blocks[-1].startswith("BlockName=block004 Nodes=gpu[097-127]")
    assert block[-1].startswith("# blocks of unequal node counts")
    data = yaml.safe_load((EXAMPLES / "seed-2000-gpu.yaml").read_text())
    data["scheduler"]["kubernetes_node_count"] = 26
    data["scheduler"]["interactive_node_count"] = 24
    r = validate(data)
    p = plan_cluster(r)
    block = slurm_files(r, p.fabric, p.scheduler)["topology-block.conf"].splitlines()
    assert sum(b.startswith("BlockName=") for b in block) == 7
    assert block[-1] == "BlockSizes=32,64,128"


@pytest.mark.parametrize(
    ("changes", "field", "says"),
    [
        ({"kubernetes_node_count": 250}, "sched_kubernetes_node_count", "leave none of the 250"),
        ({"kubernetes_node_count": 50, "interactive_node_count": 201}, "sched_interactive_node_count", "at most 200"),
        (
            {"interactive_node_count": 250, "interactive_overlaps_batch": False},
            "sched_interactive_node_count",
            "at least one (no overlap)",
        ),
        ({"batch_default_time_h": 400}, "sched_batch_default_time_h", "longer than the partition's limit (336 h)"),
        ({"production_max_gpus_per_user": 2001}, "sched_production_max_gpus_per_user", "more than Slurm's 2,000 GPUs"),
        ({"tenants": "a:50,b:40"}, "sched_tenants", "add up to 90 %, not 100 %"),
        ({"tenants": "a:50,a:50"}, "sched_tenants", "'a' is listed twice"),
        (
            {"interactive_node_count": 5, "interactive_partition": "gpu-large"},
            "sched_interactive_partition",
            "different names",
        ),
    ],
)
def test_refusals_name_the_field(changes, field, says):
    base = Requirements().scheduler.__dict__
    r = Requirements(scheduler=Scheduler(**{**base, **changes}))
    with pytest.raises(RequirementsError) as exc:
        plan_cluster(r)
    assert set(exc.value.errors) == {field}, exc.value.errors
    assert says in exc.value.errors[field][0]
    assert exc.value.unprocessable


def test_tenant_shares_exact():
    assert [str(t.share_pct) for t in parse_tenants("nlp:12.5,cv:37.5,rec:50")] == ["12.5", "37.5", "50"]
    with pytest.raises(SchedulerInputError, match="above 0"):
        parse_tenants("a:0,b:100")


def test_kubernetes_manifests_load_and_quotas_add_up():
    """Seed split: 50 Kubernetes nodes × 8 = 400 GPUs; tenants 40/35/25 % → 160/140/100 GPUs. Every object
    names its API version; quotas sum to the Kubernetes GPUs; nodes carry the leaf group topology.conf uses."""
    from cluster.scheduler_files import kubernetes_files
    from scheduling.kubernetes import quotas

    data = yaml.safe_load((EXAMPLES / "seed-2000-gpu.yaml").read_text())
    data["scheduler"]["tenants"] = "nlp:40,cv:35,inference:25"
    r = validate(data)
    p = plan_cluster(r)
    files = kubernetes_files(r, p.fabric, p.scheduler)
    docs = list(yaml.safe_load_all(files["kubernetes.yaml"]))
    kinds = [(d["apiVersion"], d["kind"]) for d in docs]
    assert kinds.count(("v1", "Namespace")) == 3 and kinds.count(("kueue.x-k8s.io/v1beta1", "ClusterQueue")) == 3
    assert ("kueue.x-k8s.io/v1alpha1", "Topology") in kinds and ("kueue.x-k8s.io/v1beta1", "ResourceFlavor") in kinds
    assert kinds.count(("scheduling.volcano.sh/v1beta1", "Queue")) == 3
    cqs = {d["metadata"]["name"]: d for d in docs if d["kind"] == "ClusterQueue"}
    res = {n: cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0] for n, cq in cqs.items()}
    assert {n: x["nominalQuota"] for n, x in res.items()} == {"nlp": 160, "cv": 140, "inference": 100}
    assert all(x["nominalQuota"] + x["borrowingLimit"] == 400 for x in res.values())
    assert {cq["spec"]["cohort"] for cq in cqs.values()} == {"gpu"}
    lqs = [d for d in docs if d["kind"] == "LocalQueue"]
    assert {(q["metadata"]["namespace"], q["spec"]["clusterQueue"]) for q in lqs} == {
        ("team-nlp", "nlp"), ("team-cv", "cv"), ("team-inference", "inference"),
    }  # fmt: skip
    topo = next(d for d in docs if d["kind"] == "Topology")
    levels = [x["nodeLabel"].rsplit("/", 1)[-1] for x in topo["spec"]["levels"]]
    assert levels == ["pod", "su", "leaf-group", "hostname"]
    labels = files["label-nodes.sh"].splitlines()[3:]
    assert len(labels) == 50 and labels[0].startswith("kubectl label --overwrite node gpu201 ")
    # gpu201–gpu224 share SU 7's rail leaves with Slurm's gpu193–gpu200 (lg007); gpu225–gpu250 are SU 8 (lg008)
    assert "leaf-group=lg007" in labels[23] and "leaf-group=lg008" in labels[24]
    assert "/su=su07 " in labels[23] and "/su=su08 " in labels[24]  # SUs of 32 nodes: gpu224 in SU 7, gpu225 in 8
    # largest remainder on 25 × 8 = 200 GPUs: 66.66 / 66.66 / 66.68 floor to 66 each (198); the 2 left go to the
    # largest remainders, c (.68) then a (.66, first of the tie): 67 / 66 / 67
    data["scheduler"].update(kubernetes_node_count=25, interactive_node_count=0, tenants="a:33.33,b:33.33,c:33.34")
    p = plan_cluster(validate(data))
    q = quotas(p.scheduler)
    assert sum(q.values()) == 200 and q == {"a": 67, "b": 66, "c": 67}


def test_no_kubernetes_nodes_no_queues():
    from cluster.scheduler_files import kubernetes_files

    r = Requirements()
    p = plan_cluster(r)
    files = kubernetes_files(r, p.fabric, p.scheduler)
    assert files["kubernetes.yaml"].startswith("# Kubernetes") and "kind:" not in files["kubernetes.yaml"]


def test_mig_nodes_in_the_kubernetes_share():
    """The seed's 50 Kubernetes nodes with S7's split on the first 10: 40 × 8 = 320 whole GPUs and, per MIG node,
    4 × 7 1g.10gb + 2 × 3 2g.20gb + 2 × 2 3g.40gb (38 instances) → 280 / 60 / 40 instances on 10 nodes; each split
    over 4 equal tenants by largest remainder (70 each of 1g; 60 / 4 = 15 of 2g; 40 / 4 = 10 of 3g)."""
    from cluster.scheduler_files import kubernetes_files

    data = yaml.safe_load((EXAMPLES / "seed-2000-gpu.yaml").read_text())
    data["scheduler"].update(mig_node_count=10, mig_demand="1g.10gb=28, 2g.20gb=6, 3g.40gb=4")
    r = validate(data)
    p = plan_cluster(r)
    assert p.scheduler.hostlist(p.scheduler.mig_nodes) == "gpu[201-210]"
    assert p.result()["scheduler"]["mig"]["instances_per_node"] == 38
    files = kubernetes_files(r, p.fabric, p.scheduler)
    docs = list(yaml.safe_load_all(files["kubernetes.yaml"]))
    cm = next(d for d in docs if d["kind"] == "ConfigMap")
    parted = yaml.safe_load(cm["data"]["config.yaml"])
    assert parted["mig-configs"]["cluster-designer"][0] == {
        "devices": [0, 1, 2, 3], "mig-enabled": True, "mig-devices": {"1g.10gb": 7},
    }  # fmt: skip
    flavors = {d["metadata"]["name"]: d["spec"]["nodeLabels"] for d in docs if d["kind"] == "ResourceFlavor"}
    assert flavors["gpu-mig"] == {"fabric.cluster-designer.io/gpu-mode": "mig"}
    cq = next(d for d in docs if d["kind"] == "ClusterQueue" and d["metadata"]["name"] == "nlp")
    full, mig = cq["spec"]["resourceGroups"]
    assert full["flavors"][0]["resources"][0]["nominalQuota"] == 80  # 320 ÷ 4
    quota = {x["name"]: x["nominalQuota"] for x in mig["flavors"][0]["resources"]}
    assert quota == {"nvidia.com/mig-1g.10gb": 70, "nvidia.com/mig-2g.20gb": 15, "nvidia.com/mig-3g.40gb": 10}
    labels = files["label-nodes.sh"].splitlines()[3:]
    assert "nvidia.com/mig.config=cluster-designer" in labels[9] and "gpu-mode=full" in labels[10]


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"mig_node_count": 51}, "at most the 50 planned"),
        ({"mig_node_count": 2}, "say which MIG instances"),
        ({"mig_node_count": 2, "mig_demand": "1g.10gb=57"}, "short by 1 × 1g.10gb"),
        ({"mig_node_count": 2, "mig_demand": "5g.50gb=1"}, "not a H100-SXM5 MIG profile"),
    ],
)
def test_mig_refusals_on_the_design(changes, says):
    data = yaml.safe_load((EXAMPLES / "seed-2000-gpu.yaml").read_text())
    data["scheduler"].update(changes)
    with pytest.raises(RequirementsError) as exc:
        plan_cluster(validate(data))
    ((field, messages),) = exc.value.errors.items()
    assert field in ("sched_mig_node_count", "sched_mig_demand") and says in messages[0]
