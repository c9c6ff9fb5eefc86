"""slurm.conf, gres.conf and sacctmgr details by hand (slurm.conf(5), gres.conf(5), sacctmgr(1)); seed design."""

from __future__ import annotations

import pytest
import yaml

from cluster.pipeline import plan_cluster
from cluster.validate import validate
from scheduling.slurm_conf import cluster_name, gres_conf, sacctmgr_script, slurm_conf
from tests.conftest import EXAMPLES


@pytest.fixture(scope="module")
def parts():
    r = validate(yaml.safe_load((EXAMPLES / "seed-2000-gpu.yaml").read_text()))
    return plan_cluster(r).scheduler


@pytest.mark.parametrize(
    ("title", "name"),
    [
        ("My Cluster #1", "my_cluster_1"),
        ("!!!", "cluster"),  # nothing Slurm accepts is left: a name is still needed
        ("A" * 50, "a" * 40),  # at most 40 characters
        ("--x--", "x"),
    ],
)
def test_cluster_name(title, name):
    assert cluster_name(title) == name


def _conf(parts, controllers):
    return slurm_conf(parts, None, title="Seed", sockets=2, cores_per_socket=64, threads_per_core=2,
                      memory_mb=2_000_000, controllers=controllers).splitlines()  # fmt: skip


def test_every_controller_given_is_a_slurmctld_host_and_the_first_keeps_accounting(parts):
    """The caller picks the controllers (cluster/scheduler_files.py: the first two management servers); slurm.conf
    lists each in order and points accounting at the primary. None given: the host named slurmctld."""
    conf = _conf(parts, ("mn001", "mn002", "mn003"))
    assert [c for c in conf if c.startswith("SlurmctldHost")] == [
        "SlurmctldHost=mn001", "SlurmctldHost=mn002", "SlurmctldHost=mn003",
    ]  # fmt: skip
    assert "AccountingStorageHost=mn001" in conf
    alone = _conf(parts, ())
    assert [c for c in alone if c.startswith(("SlurmctldHost", "AccountingStorageHost"))] == [
        "SlurmctldHost=slurmctld", "AccountingStorageHost=slurmctld",
    ]  # fmt: skip


def test_backfill_window_says_its_hours(parts):
    """The seed's longest limit is gpu-large's 14 days = 336 h = 20,160 min."""
    conf = _conf(parts, ("mn001",))
    assert "# bf_window in minutes = the longest time limit (336 h); the seed's 86400 would be 60 days" in conf
    assert "# no TopologyPlugin: a 3D torus has no switch tree for Slurm (see topology.conf)" in conf
    assert "CPUs=256 Sockets=2 CoresPerSocket=64 ThreadsPerCore=2 RealMemory=2000000" in " ".join(conf)


def test_one_core_per_gpu_is_a_single_core_not_a_range(parts):
    """8 GPUs on 1 socket × 8 cores: GPU i gets core i (Cores=3, not 3-3); on 1 × 16 cores GPU 7 gets 14-15."""
    eight = gres_conf(parts, sockets=1, cores_per_socket=8).splitlines()
    assert [line.rsplit("Cores=", 1)[1] for line in eight[2:]] == [str(i) for i in range(8)]
    assert eight[1] == "# GPU i → its 1/8 of the 8 cores"
    sixteen = gres_conf(parts, sockets=1, cores_per_socket=16).splitlines()
    assert sixteen[-1].endswith("File=/dev/nvidia7 Cores=14-15")


def test_preemption_is_set_on_the_qos_that_preempt(parts):
    """Seed §14.3.3: production and dev jobs requeue preemptible ones; preemptible preempts nothing."""
    lines = sacctmgr_script(parts, title="Seed").splitlines()
    assert [x for x in lines if "modify qos" in x] == [
        "sacctmgr -i modify qos production set Preempt=preemptible PreemptMode=requeue",
        "sacctmgr -i modify qos dev set Preempt=preemptible PreemptMode=requeue",
    ]
    assert lines[3] == "sacctmgr -i add cluster seed"
