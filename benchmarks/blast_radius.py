"""Failure blast radius at scale (issue #37, `make bench`): every single switch failure and 1,000 samples of k = 4
random switch failures on the 16,384-GPU default design (H100, 8 × 400G, rail-optimized), with scipy's Dinic
max-flow on a flow network built once (topology/blast_radius.py).

Prints: the fabric (switches, links), one max-flow, all single failures one by one and by structural class (with
the class count and whether the two agree), and the Monte Carlo (time, mean, 95 % CI).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cluster.pipeline import plan_planes
from cluster.requests import resolve
from cluster.validate import validate
from topology.blast_radius import FlowNetwork, monte_carlo, single_switch_failures
from topology.graph import fabric_edges


def main(gpus: int = 16_384, samples: int = 1_000, k: int = 4) -> None:
    plan = plan_planes(resolve(validate({"gpu_count": gpus}))).fabric
    g = fabric_edges(plan)
    print(f"blast radius at {gpus:,} GPUs: {', '.join(f'{t.switch_count:,} {t.name}' for t in plan.tiers)}; "
          f"{g.link_count:,} links")  # fmt: skip
    net = FlowNetwork.of(g)
    t = time.perf_counter()
    whole = net.max_flow_gbps()
    print(f"  one max-flow: {time.perf_counter() - t:.3f} s ({whole:,.0f} Gbit/s)")
    t = time.perf_counter()
    _, classed = single_switch_failures(plan, by_class=True)
    by_class_s = time.perf_counter() - t
    classes = len({(f.tier, f.bisection_left_gbps, f.members) for f in classed})
    t = time.perf_counter()
    _, each = single_switch_failures(plan, by_class=False)
    each_s = time.perf_counter() - t
    same = [f.bisection_left_gbps for f in each] == [f.bisection_left_gbps for f in classed]
    worst = min(each, key=lambda f: f.bisection_left_gbps)
    print(f"  all {len(each):,} single switch failures: one by one {each_s:.1f} s; by class ({classes} classes) "
          f"{by_class_s:.2f} s; agree: {same}; worst: {worst.derivation}")  # fmt: skip
    t = time.perf_counter()
    mc = monte_carlo(plan, k=k, samples=samples, seed=1)
    print(f"  Monte Carlo k={k}, {samples:,} samples: {time.perf_counter() - t:.1f} s; {mc.derivation}")


if __name__ == "__main__":
    main()
