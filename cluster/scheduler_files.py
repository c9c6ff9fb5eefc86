"""The scheduler files of a design: Slurm's slurm.conf, topology.conf (tree and block forms),
gres.conf, cgroup.conf and a sacctmgr script, from typed requirements and the fabric plan (pure)."""

from __future__ import annotations

import io
import zipfile
from typing import Any

from bom.export import checks_text
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


README = """Slurm files of a design: slurm.conf, topology.conf (tree; topology-block.conf is the block form, Slurm
23.11 and later), gres.conf, cgroup.conf and sacctmgr.sh (accounts, QoS and fair share; run it once slurmdbd is
up). Copy the .conf files to /etc/slurm on the controller and every node.
"""


def slurm_readme(checks: list[dict[str, Any]]) -> str:
    """The zip's README: what the files are, then the design's one list of checks (cluster.pipeline)."""
    head = "\nChecks of the design (the same list as its page, the xlsx Checks sheet and bom.csv):\n"
    return README + head + checks_text(checks)


def slurm_zip(files: dict[str, str], folder: str, checks: list[dict[str, Any]] | None = None) -> bytes:
    """The files in one zip under ``folder/`` (sacctmgr.sh executable); with ``checks`` (the design's one list), a
    README.txt after them that lists them."""
    if checks is not None:
        files = {**files, "README.txt": slurm_readme(checks)}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in files.items():
            info = zipfile.ZipInfo(f"{folder}/{name}", date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if name.endswith(".sh") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, text)
    return buf.getvalue()
