"""Queue simulator speed (`make bench`, issue #15): scheduling/simulator.py beside the plain reference
loop (scheduling/reference.py) on the same jobs in the same run.

- the seed's Table 14-24 on the 2,000-GPU design (250 nodes of 8) at 85 % offered load, 30 days and a year;
- single-GPU jobs at 90 % load (the Erlang-C case) on 16,384 GPUs, 100k and 1M jobs (FIFO).
Goals (issue #15): 30 days on 2,000 GPUs < 1 s; 1M jobs on 16k GPUs < 60 s; ≥ 10× the reference.
Events/s counts the jobs' arrivals and ends inside the window per second of simulator time (issue #33: time is
whole seconds, ints, and must not make the loop meaningfully slower than float hours were).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scheduling.failures import FailureModel  # noqa: E402
from scheduling.reference import reference_starts  # noqa: E402
from scheduling.simulator import simulate  # noqa: E402
from scheduling.workload import SEED_TABLE_14_24, JobClass, Profile, generate_jobs  # noqa: E402


def _time(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def case(label: str, profile, *, gpus: int, per_node: int, load: float, hours: float, policy: str, ref: bool,
         failures=None) -> None:  # fmt: skip
    jobs = generate_jobs(profile, cluster_gpus=gpus, load=load, horizon_h=hours, seed=1)
    nodes = gpus // per_node
    out = []
    ours = _time(lambda: out.append(simulate(jobs, node_count=nodes, gpus_per_node=per_node, horizon_h=hours,
                                             policy=policy, failures=failures)))  # fmt: skip
    res = out[0]
    events = int((jobs.submit_h < res.horizon_h).sum() + (res.end_h <= res.horizon_h).sum())
    line = f"{label:<46} {len(jobs):>9,} jobs  simulator {ours:8.3f} s {events / ours:>11,.0f} events/s"
    if ref:
        need = (-(-jobs.gpus // per_node)).tolist()
        args = (jobs.submit_h.tolist(), need, jobs.hours.tolist(), jobs.priority.tolist())
        base = _time(lambda: reference_starts(*args, node_count=nodes, horizon_h=hours, policy=policy))
        line += f"  reference {base:8.3f} s  ({base / ours:5.1f}×)"
    print(line, flush=True)


def main() -> None:
    print("queue simulator (scheduling/simulator.py) vs the plain reference loop, same jobs, same run")
    for policy in ("fifo", "easy"):
        for days in (30, 365):
            case(f"seed Table 14-24, 2,000 GPUs, {days} d, {policy}", SEED_TABLE_14_24, gpus=2000, per_node=8,
                 load=0.85, hours=days * 24.0, policy=policy, ref=True)  # fmt: skip
    case("seed Table 14-24, 2,000 GPUs, 365 d, easy, AFR 5 %", SEED_TABLE_14_24, gpus=2000, per_node=8, load=0.85,
         hours=365 * 24.0, policy="easy", ref=False, failures=FailureModel(afr=0.05))  # fmt: skip
    single = Profile((JobClass("x", 1.0, 1, 1, 1, 1.0, 1.0, duration="exponential"),))
    # the reference rescans every running job at each event: beside it, a case it can finish (1,024 GPUs)
    case("1-GPU jobs, 1,024 GPUs, 20k jobs, fifo", single, gpus=1024, per_node=1, load=0.9,
         hours=20_000 / (0.9 * 1024), policy="fifo", ref=True)  # fmt: skip
    # 16,384 GPUs at 90 %: λ = 14,746 jobs/h → 100k jobs ≈ 6.8 h, 1M jobs ≈ 68 h
    for n in (100_000, 1_000_000):
        case(f"1-GPU jobs, 16,384 GPUs, {n:,} jobs, fifo", single, gpus=16384, per_node=1, load=0.9,
             hours=n / (0.9 * 16384), policy="fifo", ref=False)  # fmt: skip


if __name__ == "__main__":
    main()
