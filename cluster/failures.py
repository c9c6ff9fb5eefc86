"""What a failure costs, for a whole design (pure: no Django): every single switch failure by structural class, and
the bisection left after k random switch failures (topology/blast_radius.py), with the design's own nodes and leaf
groups — a rail-optimized fabric's scalable units, a fat-tree's leaves.

``cluster-designer failures FILE.yaml [--k 4] [--samples 1000] [--seed 1] [--format table|json]`` prints it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from cluster.pipeline import ClusterPlan
from topology.blast_radius import FlowNetwork, monte_carlo, single_switch_failures
from topology.clos import endpoint_leaf_ids
from topology.graph import fabric_edges
from topology.spec import ClosWiring, FabricPlan

MAX_K = 64
MAX_SAMPLES = 100_000


class FailureInputError(ValueError):
    def __init__(self, errors: dict[str, str]):
        self.errors = errors
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))


def check_inputs(k: int, samples: int, switch_count: int) -> None:
    errors = {}
    if not 1 <= k <= min(MAX_K, switch_count):
        errors["k"] = f"{k} failures: from 1 to {min(MAX_K, switch_count)} (the fabric has {switch_count} switches)"
    if not 2 <= samples <= MAX_SAMPLES:
        errors["samples"] = f"{samples:,} samples: from 2 to {MAX_SAMPLES:,}"
    if errors:
        raise FailureInputError(errors)


def nodes_and_groups(fabric: FabricPlan, node_count: int) -> tuple[np.ndarray, np.ndarray, str]:
    """Each endpoint's node, each node's leaf group, and what a group is."""
    n = fabric.endpoint_count
    per = max(1, n // max(1, node_count))
    nodes_of = np.arange(n) // per
    nodes = int(nodes_of.max()) + 1
    w = fabric.wiring
    if isinstance(w, ClosWiring) and w.su_nodes:
        return nodes_of, (np.arange(nodes) + w.reserved_slots) // w.su_nodes, f"scalable unit of {w.su_nodes} nodes"
    if isinstance(w, ClosWiring) and w.copies == 1:
        return nodes_of, endpoint_leaf_ids(w)[np.arange(nodes) * per], "leaf"
    return nodes_of, np.zeros(nodes, dtype=np.int64), "the whole fabric"


def failure_report(plan: ClusterPlan, k: int = 4, samples: int = 1_000, seed: int = 1) -> dict[str, Any]:
    fabric = plan.fabric
    g = fabric_edges(fabric)
    switches = int((g.node_tier >= 0).sum())
    check_inputs(k, samples, switches)
    nodes_of, group_of, group_word = nodes_and_groups(fabric, plan.requirements.cluster.node_count)
    whole, singles = single_switch_failures(fabric, nodes_of=nodes_of, group_of=group_of, by_class=True)
    classes: dict[tuple, dict[str, Any]] = {}
    for f in singles:
        key = (f.tier, f.bisection_left_gbps, f.endpoints_cut_off, f.nodes_degraded, f.largest_intact_group_nodes)
        row = classes.setdefault(key, {"tier": f.tier, "switches": 0, "bisection_left_gbps": f.bisection_left_gbps,
                                       "bisection_lost_frac": f.bisection_lost_frac, "nic_ports_cut_off":
                                       f.endpoints_cut_off, "nodes_degraded": f.nodes_degraded,
                                       "largest_intact_group_nodes": f.largest_intact_group_nodes,
                                       "example": f.derivation})  # fmt: skip
        row["switches"] += 1
    mc = monte_carlo(fabric, k=k, samples=samples, seed=seed)
    counts, edges = np.histogram(mc.left_gbps, bins=min(30, max(5, len(np.unique(mc.left_gbps)))))
    return {
        "bisection_gbps": whole,
        "switch_count": switches,
        "leaf_group": group_word,
        "single_failures": sorted(classes.values(), key=lambda r: (r["tier"], r["bisection_left_gbps"])),
        "monte_carlo": {
            "k": k,
            "samples": samples,
            "seed": seed,
            "mean_left_gbps": mc.mean_left_gbps,
            "ci95_gbps": list(mc.ci95_gbps),
            "quantiles_gbps": mc.quantiles_gbps,
            "mean_lost_frac": 1 - mc.mean_left_gbps / whole if whole else 0.0,
            "histogram": {"counts": counts.tolist(), "edges_gbps": edges.tolist()},
            "derivation": mc.derivation,
        },
        "derivation": (
            f"max-flow from the first half of the {g.endpoint_count:,} endpoints to the second on the explicit graph "
            f"= {whole:,.0f} Gbit/s; each of the {switches:,} switches removed in turn (one max-flow per structural "
            "class); NIC ports cut off are those whose only cable went to the failed switch; a node is degraded when "
            f"it loses a NIC port; the largest intact group is the largest {group_word} with no port on the switch"
        ),
    }


def estimated_s(fabric: FabricPlan, samples: int) -> float:
    """The Monte Carlo's time from one max-flow measured on this fabric (the request budget's check)."""
    net = FlowNetwork.of(fabric_edges(fabric))
    t = time.perf_counter()
    net.max_flow_gbps()
    return (time.perf_counter() - t) * samples


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cluster-designer failures", description=(
        "What a failed switch costs: bisection left, NIC ports cut off, nodes degraded, per switch class; and the "
        "bisection left after k random switch failures (Monte Carlo, seeded)."))  # fmt: skip
    p.add_argument("file", type=Path, help="requirements file (YAML or JSON)")
    p.add_argument("--k", type=int, default=4, help=f"simultaneous switch failures (1–{MAX_K}; default 4)")
    p.add_argument("--samples", type=int, default=1000, help=f"Monte Carlo samples (2–{MAX_SAMPLES:,}; 1,000)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--format", choices=["table", "json"], default="table")
    return p


def _table(out: dict[str, Any]) -> str:
    lines = [f"bisection {out['bisection_gbps']:,.0f} Gbit/s, {out['switch_count']:,} switches; {out['derivation']}",
             f"{'tier':<8}{'switches':>9}{'left Gbit/s':>14}{'lost':>8}{'NIC ports cut':>14}{'nodes hit':>10}"
             f"{'largest intact':>16}"]  # fmt: skip
    for r in out["single_failures"]:
        lines.append(
            f"{r['tier']:<8}{r['switches']:>9,}{r['bisection_left_gbps']:>14,.0f}{r['bisection_lost_frac']:>8.2%}"
            f"{r['nic_ports_cut_off']:>14,}{r['nodes_degraded']:>10,}{r['largest_intact_group_nodes']:>16,}"
        )
    lines.append(f"k = {out['monte_carlo']['k']}: {out['monte_carlo']['derivation']}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    from cluster.cli import evaluate_file
    from cluster.validate import RequirementsError

    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    args = parser().parse_args(argv)
    try:
        out = failure_report(evaluate_file(args.file), k=args.k, samples=args.samples, seed=args.seed)
    except RequirementsError as exc:
        stderr.write(
            f"{args.file}: invalid requirements\n" + "".join(f"  {k}: {' '.join(v)}\n" for k, v in exc.errors.items())
        )
        return 1
    except FailureInputError as exc:
        stderr.write("".join(f"--{k}: {v}\n" for k, v in exc.errors.items()))
        return 1
    stdout.write(json.dumps(out, indent=2) + "\n" if args.format == "json" else _table(out))
    return 0
