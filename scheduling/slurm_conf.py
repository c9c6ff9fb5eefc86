"""slurm.conf, gres.conf, cgroup.conf and a sacctmgr script from the partition plan (pure).

Written for Slurm 22.05 and later (the release Debian 12 ships; a test starts the real
slurmctld on them). Sources, per line group:

- node line and GRES: seed §14.3.2 (``GresTypes=gpu``, ``NodeName=… CPUs Sockets CoresPerSocket
  ThreadsPerCore RealMemory Gres=gpu:H100:8``; gres.conf one line per GPU device with its cores);
  ``TaskPlugin=task/affinity,task/cgroup``; slurm.conf(5), gres.conf(5).
- backfill: seed §14.3.3 writes ``bf_window=86400`` for "one day ahead", but slurm.conf(5) gives
  ``bf_window`` in **minutes** (default 1440 = one day): 86,400 would look 60 days ahead. Here it
  is the longest partition time limit in minutes, as slurm.conf(5) advises (a shorter window
  cannot reserve for the longest jobs); ``bf_resolution=60`` is in seconds, as the seed has it.
- fair share and QoS: seed §14.3.3 (``PriorityType=priority/multifactor``,
  ``PriorityWeightFairshare=5000``, ``PriorityWeightQOS=1000``, ``PriorityDecayHalfLife=24:00:00``;
  Fair Tree is the default algorithm since Slurm 19.05, so no ``FAIR_TREE`` flag) and §14.8.5
  (``sacctmgr add qos production Priority=10000 MaxWall=90-00:00:00 MaxJobsPU=10 GrpSubmitJobs=100
  MaxTRESPerUser=gres/gpu=1024``; dev 1000 / 7 days / 30 / 500 / 128); preemption by QoS with
  requeue (§14.3.3: requeue + checkpoints, not suspend — a suspended job keeps its GPU memory).
- partitions: seed §14.8.5 (``OverSubscribe=EXCLUSIVE`` for batch training, ``NO`` interactive).
"""

from __future__ import annotations

import re

from scheduling.partitions import PartitionPlan
from scheduling.quoting import comment_text
from scheduling.slurm_topology import SlurmTopology


def slurm_time(hours: int) -> str:
    """Hours as Slurm writes a time limit: ``14-00:00:00``, ``12:00:00``, ``1-06:00:00``."""
    days, h = divmod(hours, 24)
    return f"{days}-{h:02d}:00:00" if days else f"{h:02d}:00:00"


def cluster_name(title: str) -> str:
    """A ClusterName Slurm accepts (lower case, letters/digits/_; at most 40)."""
    slug = re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_")[:40]
    return slug or "cluster"


def slurm_conf(
    parts: PartitionPlan,
    topo: SlurmTopology | None,
    *,
    title: str,
    sockets: int,
    cores_per_socket: int,
    threads_per_core: int,
    memory_mb: int,
    controllers: tuple[str, ...],
) -> str:
    title = comment_text(title)  # user text: one comment line
    cpus = sockets * cores_per_socket * threads_per_core
    longest_min = max(p.max_time_h for p in parts.partitions) * 60
    ctl = controllers or ("slurmctld",)
    lines = [
        f"# slurm.conf — {title}",
        "# generated from the design's partition plan; Slurm 22.05 or later",
        f"ClusterName={cluster_name(title)}",
        *(f"SlurmctldHost={h}" for h in ctl),  # primary, then backups (the caller picks how many)
        "AuthType=auth/munge",
        "SlurmUser=slurm",
        "StateSaveLocation=/var/spool/slurmctld",
        "SlurmdSpoolDir=/var/spool/slurmd",
        "ProctrackType=proctrack/cgroup",
        "TaskPlugin=task/affinity,task/cgroup",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core_Memory",
        "GresTypes=gpu",
    ]
    if topo is not None:
        lines.append("TopologyPlugin=topology/tree")
        if topo.dragonfly:
            lines.append("TopologyParam=Dragonfly")
    else:
        lines.append("# no TopologyPlugin: a 3D torus has no switch tree for Slurm (see topology.conf)")
    lines += [
        "SchedulerType=sched/backfill",
        f"# bf_window in minutes = the longest time limit ({longest_min // 60} h); the seed's 86400 would be 60 days",
        f"SchedulerParameters=bf_window={longest_min},bf_resolution=60,bf_continue",
        "PriorityType=priority/multifactor",
        "PriorityDecayHalfLife=1-00:00:00",
        "PriorityWeightFairshare=5000",
        "PriorityWeightQOS=1000",
        "PreemptType=preempt/qos",
        "PreemptMode=REQUEUE",
        "JobRequeue=1",
        "AccountingStorageType=accounting_storage/slurmdbd",
        f"AccountingStorageHost={ctl[0]}",
        "AccountingStorageEnforce=associations,limits,qos",
        "AccountingStorageTRES=gres/gpu",
        "JobAcctGatherType=jobacct_gather/cgroup",
        f"# {parts.hostlist(parts.slurm)}: the cut sheet's compute nodes in the same order "
        f"(cn{parts.slurm.first:05d} … cn{parts.slurm.last:05d})",
        f"NodeName={parts.hostlist(parts.slurm)} CPUs={cpus} Sockets={sockets} CoresPerSocket={cores_per_socket} "
        f"ThreadsPerCore={threads_per_core} RealMemory={memory_mb} Gres=gpu:{parts.gres_type}:{parts.gpus_per_node} "
        f"Feature={parts.gres_type} State=UNKNOWN",
    ]
    if parts.kubernetes.count:
        lines.append(f"# {parts.hostlist(parts.kubernetes)} run Kubernetes: not Slurm nodes")
    for p in parts.partitions:
        lines.append(
            f"PartitionName={p.name} Nodes={parts.hostlist(p.nodes)} Default={'YES' if p.default else 'NO'} "
            f"MaxTime={slurm_time(p.max_time_h)} DefaultTime={slurm_time(p.default_time_h)} State=UP "
            f"OverSubscribe={'EXCLUSIVE' if p.exclusive else 'NO'}"
        )
    return "\n".join([*lines, ""])


def gres_conf(parts: PartitionPlan, *, sockets: int, cores_per_socket: int) -> str:
    """One line per GPU device, each bound to the cores of its share of the sockets (seed §14.3.2 binds
    GPU i to cores 32i…32i+31 of 256 CPUs, i.e. of the hardware threads: Cores= counts cores, not
    threads, so 2 × 64 cores give each of 8 GPUs 16 cores)."""
    cores = sockets * cores_per_socket
    g = parts.gpus_per_node
    lines = [f"# gres.conf — {parts.hostlist(parts.slurm)}", "# GPU i → its 1/" + f"{g} of the {cores} cores"]
    for i in range(g):
        lo, hi = i * cores // g, (i + 1) * cores // g - 1
        span = f"{lo}-{hi}" if hi > lo else f"{lo}"
        lines.append(
            f"NodeName={parts.hostlist(parts.slurm)} Name=gpu Type={parts.gres_type} File=/dev/nvidia{i} Cores={span}"
        )
    return "\n".join([*lines, ""])


def cgroup_conf() -> str:
    """Confine jobs to the cores, memory and GPUs they were given (cgroup.conf(5))."""
    return "\n".join(
        [
            "# cgroup.conf — jobs see only the cores, memory and GPU devices Slurm gave them",
            "ConstrainCores=yes",
            "ConstrainRAMSpace=yes",
            "ConstrainDevices=yes",
            "",
        ]
    )


def sacctmgr_script(parts: PartitionPlan, *, title: str) -> str:
    """Accounts per tenant (fair share = its %), the QoS tiers with their limits and preemption."""
    name, title = cluster_name(title), comment_text(title)
    lines = ["#!/bin/sh", f"# accounts, QoS and limits — {title}", "set -e", f"sacctmgr -i add cluster {name}"]
    for q in parts.qos:
        limits = [f"Priority={q.priority}"]
        if q.max_wall_days:
            limits.append(f"MaxWall={q.max_wall_days}-00:00:00")
        if q.max_jobs_per_user:
            limits.append(f"MaxJobsPU={q.max_jobs_per_user}")
        if q.max_submit_jobs:
            limits.append(f"GrpSubmitJobs={q.max_submit_jobs}")
        if q.max_gpus_per_user:
            limits.append(f"MaxTRESPerUser=gres/gpu={q.max_gpus_per_user}")
        lines.append(f"sacctmgr -i add qos {q.name} {' '.join(limits)}  # {q.source}")
    for q in parts.qos:
        if q.preempts:
            lines.append(f"sacctmgr -i modify qos {q.name} set Preempt={','.join(q.preempts)} PreemptMode=requeue")
    qos_names = ",".join(q.name for q in parts.qos)
    for t in parts.tenants:
        share = int(t.share_pct * 100)  # Fairshare is a whole number: hundredths of a percent keep 12.5 % exact
        lines.append(
            f"sacctmgr -i add account {t.name} Cluster={name} Fairshare={share} QOS={qos_names} DefaultQOS=dev"
            f"  # {t.share_pct} % of the cluster"
        )
    return "\n".join([*lines, ""])
