"""The scheduler files of a design: Slurm's slurm.conf, topology.conf (tree and block forms),
gres.conf, cgroup.conf and a sacctmgr script, from typed requirements and the fabric plan (pure)."""

from __future__ import annotations

import io
import zipfile

from cluster.requirements import Requirements
from scheduling.kubernetes import kueue_and_volcano, label_script
from scheduling.partitions import PartitionPlan
from scheduling.slurm_conf import cgroup_conf, gres_conf, sacctmgr_script, slurm_conf
from scheduling.slurm_topology import block_conf, node_localities, slurm_topology, topology_conf
from topology.spec import FabricPlan

SLURM_FILES = ("slurm.conf", "topology.conf", "topology-block.conf", "gres.conf", "cgroup.conf", "sacctmgr.sh")
KUBERNETES_FILES = ("kubernetes.yaml", "label-nodes.sh")


def controllers(r: Requirements) -> tuple[str, ...]:
    """slurmctld (and its backup) on the first management servers, named as in the cut sheet (mn001, mn002)."""
    count = min(2, r.management.node_count)
    return tuple(f"mn{i + 1:03d}" for i in range(count)) or ("slurmctld",)


def slurm_files(r: Requirements, fabric: FabricPlan, parts: PartitionPlan) -> dict[str, str]:
    """File name → text, in :data:`SLURM_FILES` order."""
    s, title = r.scheduler, r.cluster.name
    topo = slurm_topology(fabric, parts)
    return {
        "slurm.conf": slurm_conf(
            parts,
            topo,
            title=title,
            sockets=s.cpu_socket_count,
            cores_per_socket=s.cores_per_socket,
            threads_per_core=s.threads_per_core,
            memory_mb=s.memory_mb,
            controllers=controllers(r),
        ),
        "topology.conf": topology_conf(topo, parts, title=title),
        "topology-block.conf": block_conf(topo, parts, title=title),
        "gres.conf": gres_conf(parts, sockets=s.cpu_socket_count, cores_per_socket=s.cores_per_socket),
        "cgroup.conf": cgroup_conf(),
        "sacctmgr.sh": sacctmgr_script(parts, title=title),
    }


def kubernetes_files(r: Requirements, fabric: FabricPlan, parts: PartitionPlan) -> dict[str, str]:
    """The Kueue/Volcano manifests and the node-label script of the Kubernetes nodes."""
    where = node_localities(fabric, parts, parts.names(parts.kubernetes)) if parts.kubernetes.count else []
    return {
        "kubernetes.yaml": kueue_and_volcano(parts, title=r.cluster.name, scalable_units=any(x.su for x in where)),
        "label-nodes.sh": label_script(parts, where, title=r.cluster.name),
    }


def slurm_zip(files: dict[str, str], folder: str) -> bytes:
    """The files in one zip under ``folder/`` (sacctmgr.sh executable)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in files.items():
            info = zipfile.ZipInfo(f"{folder}/{name}", date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if name.endswith(".sh") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, text)
    return buf.getvalue()
