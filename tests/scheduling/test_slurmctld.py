"""Issue #16: the generated Slurm files read by the real slurmctld (Debian 12's Slurm 22.05).

slurmctld runs in the foreground on loopback with the design's slurm.conf, topology.conf, gres.conf
and cgroup.conf. The test's copy changes only what a laptop needs: state and log paths under
tmp_path, free ports, the controller on 127.0.0.1, ``NodeAddr=127.0.0.1`` on the node line (or
slurmctld resolves every node name, ~10 s each), ``auth/none`` instead of munge (no key to set up)
and no slurmdbd (accounting lines dropped). Every switch, node range and partition must be as
planned: ``scontrol show topology`` against the fabric plan's switch counts, ``scontrol show
partition`` and ``sinfo`` against the partition plan. Nodes stay down (no slurmd).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time

import pytest
import yaml

from cluster.pipeline import plan_cluster
from cluster.scheduler_files import slurm_files
from cluster.validate import validate
from scheduling.hostlist import expand
from tests.conftest import EXAMPLES

SLURMCTLD = shutil.which("slurmctld") or ("/usr/sbin/slurmctld" if os.path.exists("/usr/sbin/slurmctld") else None)


def _need_slurm() -> None:
    if SLURMCTLD and shutil.which("scontrol"):
        return
    if os.environ.get("CI"):
        pytest.fail("slurmctld/scontrol are not installed: CI needs them (.ci/ensure-slurm)")
    pytest.skip("slurmctld is not installed (under CI this fails instead)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _test_copy(conf: str, d, ctl_port: int, node_port: int) -> str:
    out, host_done = [], False
    for line in conf.splitlines():
        key = line.split("=", 1)[0]
        if key == "SlurmctldHost":
            if not host_done:
                out.append("SlurmctldHost=localhost(127.0.0.1)")
                host_done = True
        elif key == "AuthType":
            out += ["AuthType=auth/none", "CredType=cred/none"]
        elif key.startswith("AccountingStorage"):
            continue
        elif key == "StateSaveLocation":
            out.append(f"StateSaveLocation={d}/state")
        elif key == "SlurmdSpoolDir":
            out.append(f"SlurmdSpoolDir={d}/spool")
        elif key == "SlurmUser":
            out.append("SlurmUser=root" if os.geteuid() == 0 else f"SlurmUser={os.environ.get('USER', 'root')}")
        elif key == "NodeName":
            out.append(line + " NodeAddr=127.0.0.1 NodeHostname=localhost")
        else:
            out.append(line)
    out += [f"SlurmctldPidFile={d}/slurmctld.pid", f"SlurmctldPort={ctl_port}", f"SlurmdPort={node_port}"]
    out += [f"SlurmctldLogFile={d}/slurmctld.log", "MailProg=/bin/true"]
    return "\n".join(out) + "\n"


def _run_slurmctld(files: dict[str, str], d):
    (d / "state").mkdir()
    (d / "spool").mkdir()
    for name in ("topology.conf", "gres.conf", "cgroup.conf"):
        (d / name).write_text(files[name])
    conf = d / "slurm.conf"
    conf.write_text(_test_copy(files["slurm.conf"], d, _free_port(), _free_port()))
    env = {**os.environ, "SLURM_CONF": str(conf)}
    proc = subprocess.Popen(
        [SLURMCTLD, "-D", "-i", "-f", str(conf)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"slurmctld exited {proc.returncode}:\n{proc.stdout.read().decode()[-4000:]}")
        ping = subprocess.run(["scontrol", "ping"], env=env, capture_output=True, text=True, timeout=20)
        if "UP" in ping.stdout:
            return proc, env
        time.sleep(0.5)
    proc.kill()
    pytest.fail("slurmctld did not answer within 60 s")


def _scontrol(env, *args) -> str:
    return subprocess.run(["scontrol", *args], env=env, capture_output=True, text=True, timeout=60, check=True).stdout


def _topology(env) -> list[dict[str, str]]:
    out = []
    for line in _scontrol(env, "show", "topology").splitlines():
        if line.startswith("SwitchName="):
            out.append(dict(item.split("=", 1) for item in line.split()))
    return out


def _plan(name: str, **scheduler):
    data = yaml.safe_load((EXAMPLES / name).read_text())
    data["scheduler"] = {**data.get("scheduler", {}), **scheduler}
    r = validate(data)
    plan = plan_cluster(r)
    return r, plan, slurm_files(r, plan.fabric, plan.scheduler)


def _check_against_plan(plan, switches, env, log: str) -> None:
    parts = plan.scheduler
    # partitions and node ranges as planned
    for p in parts.partitions:
        text = _scontrol(env, "show", "partition", p.name)
        assert f"Nodes={parts.hostlist(p.nodes)}" in text, text
        assert f"TotalNodes={p.nodes.count} " in text, text
    sinfo = subprocess.run(
        ["sinfo", "-h", "-o", "%R %D %N"], env=env, capture_output=True, text=True, timeout=60, check=True
    ).stdout.split("\n")
    rows = {line.split()[0]: line.split()[1:] for line in sinfo if line.strip()}
    assert set(rows) == {p.name for p in parts.partitions}
    for p in parts.partitions:
        assert int(rows[p.name][0]) == p.nodes.count and rows[p.name][1] == parts.hostlist(p.nodes)
    # every Slurm node under exactly one leaf, and nothing Slurm warns about in the topology
    leaves = [s for s in switches if s["Level"] == "0"]
    seen = [n for s in leaves for n in expand(s["Nodes"])]
    assert sorted(seen) == parts.names(parts.slurm)
    assert "Multiple leaf switches" not in log and "topology" not in log.lower().replace("topology/tree", "")


def test_seed_design_reads_into_slurmctld(tmp_path):
    """Seed §14.8.5 split: 200 Slurm nodes (gpu[001-200]), 50 Kubernetes nodes; gpu-large over all 200,
    gpu-interactive over gpu[151-200]. Rail-optimized, 8 rails × 8 leaves + 32 spines (seed D1–D2): the
    Slurm leaves are the SUs' rail-leaf groups of 32 nodes (⌈200 ÷ 32⌉ = 7, the 7th holds gpu[193-200]);
    the 8th group serves Kubernetes nodes only, so 56 of the 64 leaves and all 32 spines are in the file."""
    _need_slurm()
    _r, plan, files = _plan("seed-2000-gpu.yaml")
    proc, env = _run_slurmctld(files, tmp_path)
    try:
        switches = _topology(env)
        log = (tmp_path / "slurmctld.log").read_text()
        _check_against_plan(plan, switches, env, log)
        leaves = [s for s in switches if s["Level"] == "0"]
        spines = [s for s in switches if s["Level"] == "1"]
        assert len(leaves) == 7 and len(spines) == 32 and len(switches) == 39
        assert [s["Nodes"] for s in leaves][-1] == "gpu[193-200]"
        assert all(s["Switches"] == "lg[001-007]" and s["Nodes"] == "gpu[001-200]" for s in spines)
        assert "# leaf: 56 of the plan's 64 switches (8 serve Kubernetes nodes only" in files["topology.conf"]
        text = _scontrol(env, "show", "partition", "gpu-large")
        assert "MaxTime=14-00:00:00" in text and "OverSubscribe=EXCLUSIVE" in text and "Default=YES" in text
        text = _scontrol(env, "show", "partition", "gpu-interactive")
        assert "Nodes=gpu[151-200]" in text and "MaxTime=12:00:00" in text and "DefaultTime=02:00:00" in text
        node = _scontrol(env, "show", "node", "gpu001")
        assert "Gres=gpu:H100:8" in node and "RealMemory=515000" in node and "CPUTot=256" in node
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_three_tier_fat_tree_has_the_plans_switch_counts(tmp_path):
    """16,384 H100 on a 3-tier 1:1 fat-tree of QM9700 (examples/fat-tree-16k-3tier.yaml): k = 64, so
    leaves 2,048 nodes × 8 ports ÷ 32 down = 512, pod spines 512, cores 512 × 32 up ÷ 64 = 256 (k³/4 layout,
    seed F2). Every Slurm node of the 2,048 is under one leaf of 4 nodes; the file lists the plan's switches
    one for one: 512 / 512 / 256."""
    _need_slurm()
    _r, plan, files = _plan("fat-tree-16k-3tier.yaml")
    assert {t.name: t.switch_count for t in plan.fabric.tiers} == {"leaf": 512, "spine": 512, "core": 256}
    proc, env = _run_slurmctld(files, tmp_path)
    try:
        switches = _topology(env)
        by_level = {lvl: [s for s in switches if s["Level"] == lvl] for lvl in ("0", "1", "2")}
        assert [len(by_level[lvl]) for lvl in ("0", "1", "2")] == [512, 512, 256]
        assert all(len(expand(s["Nodes"])) == 4 for s in by_level["0"])
        assert all(s["Nodes"] == "gpu[0001-2048]" for s in by_level["2"])  # every core reaches every node
        _check_against_plan(plan, switches, env, (tmp_path / "slurmctld.log").read_text())
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_dragonfly_plus_reads_with_its_global_switch(tmp_path):
    """Dragonfly+ (examples/dragonfly-plus-8k.yaml): 256 leaves under their groups' 256 spines and one
    `global` switch over every spine (the global links), read with TopologyParam=Dragonfly."""
    _need_slurm()
    _r, plan, files = _plan("dragonfly-plus-8k.yaml")
    assert "TopologyParam=Dragonfly" in files["slurm.conf"]
    proc, env = _run_slurmctld(files, tmp_path)
    try:
        switches = _topology(env)
        levels = [sum(s["Level"] == str(i) for s in switches) for i in range(3)]
        assert levels == [256, 256, 1]
        top = next(s for s in switches if s["SwitchName"] == "global")
        assert top["Switches"] == "spine[0001-0256]" and len(expand(top["Nodes"])) == plan.scheduler.slurm.count
        _check_against_plan(plan, switches, env, (tmp_path / "slurmctld.log").read_text())
    finally:
        proc.terminate()
        proc.wait(timeout=30)
