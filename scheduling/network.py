"""Network-aware job run times: a job spread over several leaf groups runs slower on a tapered fabric.

A job class says what share of a training step is all-to-all communication when the job sits on a
non-blocking fabric (``comm_fraction``; e.g. 0.3 for expert-parallel MoE) and how many bytes each GPU
sends per all-to-all (``a2a_bytes``). Its ``hours`` are its run time placed inside one leaf group.
When the scheduler spreads it over P groups, the all-to-all crosses the tier above the leaves, whose
oversubscription o the collective model (topology/collectives.py, pairwise all-to-all) turns into a
per-NIC bandwidth ÷ max(1, o·(P−1)/P). The job's run time becomes

    hours × ((1 − f) + f × t_a2a(P groups, o) ÷ t_a2a(one group, non-blocking))

with t from the collective model at the job's own GPU count. Ring all-reduce follows the topology
and is not slowed by the taper in the model, so only the all-to-all share counts. A job larger than
one group always spans ⌈nodes ÷ group⌉ groups and always pays its factor.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from scheduling import SchedulerInputError
from scheduling.workload import Jobs, Profile
from topology.collectives import Collective, Fabric, collective_cost


def check_network(profile: Profile) -> None:
    errors = {}
    for i, c in enumerate(profile.classes):
        if not 0 <= c.comm_fraction < 1:
            errors[f"classes.{i}.comm_fraction"] = f"a share of the step from 0 to below 1, got {c.comm_fraction}"
        if not c.a2a_bytes > 0 or not math.isfinite(c.a2a_bytes):
            errors[f"classes.{i}.a2a_bytes"] = f"bytes per GPU per all-to-all, above 0, got {c.a2a_bytes}"
    if errors:
        raise SchedulerInputError(errors)


def spread_factor(fabric: dict[str, Any], nodes: int, leaf_nodes: int, comm_fraction: float, a2a_bytes: float) -> float:
    """Run-time factor of a job on ``nodes`` nodes spread over the fewest groups of ``leaf_nodes`` that hold it
    (at least two), against the same job inside one non-blocking group."""
    if comm_fraction == 0 or leaf_nodes <= 0 or nodes < 2:
        return 1.0
    groups = max(2, -(-nodes // leaf_nodes))
    base = {**fabric, "node_count": nodes}  # the collective fabric's nodes are the scheduler's (or NVLink domains)
    inside = Fabric.from_dict({**base, "oversubscription": 1.0, "pods": 1})
    across = Fabric.from_dict({**base, "pods": groups})
    t_in = float(collective_cost(Collective.ALL_TO_ALL, a2a_bytes, inside).time_us)
    t_out = float(collective_cost(Collective.ALL_TO_ALL, a2a_bytes, across).time_us)
    return (1 - comm_fraction) + comm_fraction * t_out / t_in


def job_spread_factors(jobs: Jobs, profile: Profile, fabric: dict[str, Any], gpus_per_node: int, leaf_nodes: int):
    """Each job's factor when spread over groups (1 for classes without all-to-all), one model call per
    (class, node count)."""
    check_network(profile)
    nodes = -(-jobs.gpus // gpus_per_node)
    out = np.ones(len(jobs))
    per_domain = int(fabric["gpus_per_node"])
    for key in {(int(c), int(k)) for c, k in zip(jobs.cls, nodes, strict=True)}:
        c, k = key
        cls = profile.classes[c]
        domains = max(1, -(-k * gpus_per_node // per_domain))  # NVL72 racks are one NVLink domain each
        group = max(1, leaf_nodes * gpus_per_node // per_domain)
        # (a one-node job, or one inside one NVLink domain, is a single node to spread_factor: factor 1)
        out[(jobs.cls == c) & (nodes == k)] = spread_factor(fabric, domains, group, cls.comm_fraction, cls.a2a_bytes)
    return out
