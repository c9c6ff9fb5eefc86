"""Speed figures (`make bench`). Not tests: they print numbers, they assert nothing.

1. Fabric plan time for 1k / 16k / 100k GPUs per topology.
2. Graph verification (build + max-flow bisection) for 2k / 8k / 16k endpoints:
   scipy's Dinic against plain networkx, networkx only where it finishes in budget.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from topology import FabricRequest, Topology, plan_fabric
from topology.graph import max_flow_bisection_gbps, max_flow_bisection_networkx_gbps, verify_plan

NETWORKX_BUDGET_S = 120.0


def timed(fn, repeat: int = 5) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def request(topology: Topology, gpus: int) -> FabricRequest:
    common = {"topology": topology, "node_count": gpus // 8, "nics_per_node": 8}
    if topology == Topology.TORUS_3D:
        return FabricRequest(topology=topology, node_count=gpus // 4, chips_per_node=4)
    # 128 × 400G (an 800G switch split in two) reaches 100k GPUs in 3 tiers at 1:1
    return FabricRequest(**common, switch_radix=128, switch_port_gbps=400)


def bench_plans() -> list[dict]:
    rows = []
    for topology in Topology:
        for gpus in (1024, 16384, 102400):
            seconds, plan = timed(lambda t=topology, g=gpus: plan_fabric(request(t, g)))
            rows.append(
                {
                    "topology": topology.value,
                    "gpus": gpus,
                    "plan_ms": seconds * 1000,
                    "switches": plan.switch_count,
                    "links": plan.link_count,
                    "tiers": plan.tier_count,
                }
            )
    return rows


def bench_verification() -> list[dict]:
    rows = []
    networkx_ok = True
    for endpoints in (2048, 8192, 16384):
        plan = plan_fabric(FabricRequest(topology=Topology.RAIL_OPTIMIZED, node_count=endpoints // 8, nics_per_node=8))
        verify_s, v = timed(lambda p=plan: verify_plan(p), repeat=3)
        flow_s, flow = timed(lambda p=plan: max_flow_bisection_gbps(p), repeat=3)
        row = {
            "endpoints": endpoints,
            "tiers": plan.tier_count,
            "verify_s": verify_s,
            "scipy_maxflow_s": flow_s,
            "ok": v.ok,
            "bisection_gbps": flow,
        }
        if networkx_ok:
            t0 = time.perf_counter()
            nx_flow = max_flow_bisection_networkx_gbps(plan)
            nx_s = time.perf_counter() - t0
            row["networkx_maxflow_s"] = nx_s
            row["networkx_agrees"] = abs(nx_flow - flow) < 1e-6
            networkx_ok = nx_s < NETWORKX_BUDGET_S / 4
        rows.append(row)
    return rows


def main() -> None:
    plans = bench_plans()
    print("Fabric plan time (median of 5)")
    print(f"{'topology':<16}{'GPUs':>8}{'tiers':>7}{'switches':>10}{'links':>10}{'plan ms':>10}")
    for r in plans:
        print(
            f"{r['topology']:<16}{r['gpus']:>8,}{r['tiers']:>7}{r['switches']:>10,}{r['links']:>10,}"
            f"{r['plan_ms']:>10.2f}"
        )
    ver = bench_verification()
    print("\nGraph verification, rail-optimized (median of 3)")
    print(f"{'endpoints':>10}{'tiers':>7}{'verify s':>10}{'scipy s':>10}{'networkx s':>12}{'speed-up':>10}")
    for r in ver:
        nx_s = r.get("networkx_maxflow_s")
        nx_txt = f"{nx_s:>12.2f}" if nx_s is not None else f"{'(skipped)':>12}"
        ratio = f"{nx_s / r['scipy_maxflow_s']:>9.0f}×" if nx_s is not None else f"{'':>10}"
        print(f"{r['endpoints']:>10,}{r['tiers']:>7}{r['verify_s']:>10.3f}{r['scipy_maxflow_s']:>10.3f}{nx_txt}{ratio}")
    out = Path(__file__).resolve().parent.parent / "var" / "bench-topology.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"plans": plans, "verification": ver}, indent=2))
    print(f"\nwritten to {out}")


if __name__ == "__main__":
    main()
