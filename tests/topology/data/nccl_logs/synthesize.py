"""Writes the synthetic fixture h100-1x8-all_gather-synthetic.txt (run from the repository root).

SYNTHETIC, said so in the file itself: no public all_gather log of a whole 8-GPU H100 node
with in-place and out-of-place columns was found, so this one is the collective model's own
curve under a known calibration (bw_efficiency 0.8, latency_offset_us 9, simple offset 15)
with 3 % seeded log-normal noise, printed in nccl-tests' layout (src/util.cu, v2.19.6) behind
mpirun's "[1,0]<stdout>:" prefixes. The calibration test must recover those parameters.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))

from topology.collectives import Collective, Fabric, collective_cost

TRUTH = {"bw_efficiency": 0.8, "latency_offset_us": 9.0, "simple_latency_offset_us": 15.0}
FABRIC = {"gpus_per_node": 8, "node_count": 1, "nvlink_gbyte_s": 370.8, "nics_per_node": 8, "nic_gbps": 400.0,
          "nvls": True, "arch": "hopper"}  # fmt: skip


def main() -> None:
    sizes = np.array([2**k for k in range(6, 34)], dtype=float)  # 64 B … 8 GiB (-b 64 -e 8G -f 2)
    cost = collective_cost(Collective.ALL_GATHER, sizes, Fabric(**FABRIC, **TRUTH))
    rng = np.random.default_rng(20261202)
    p = "[1,0]<stdout>:"
    lines = [
        "# SYNTHETIC nccl-tests log made by tests/topology/data/nccl_logs/synthesize.py from the collective model,",
        f"# calibration {TRUTH}, 3 % noise — not a measurement.",
        f"{p}# nccl-tests version 2.17.6 nccl-headers=22809 nccl-library=22809",
        f"{p}# Collective test starting: all_gather_perf_mpi",
        f"{p}# nThread 1 nGpus 1 minBytes 64 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 "
        "agg iters: 1 validation: 1 graph: 0",
        f"{p}#",
        f"{p}# Using devices",
    ]
    for r in range(8):
        gpu = f"device {r:2d} [0000:{r:02x}:00] NVIDIA H100 80GB HBM3"
        lines.append(f"{p}#  Rank {r:2d} Group  0 Pid {4100 + r:6d} on   node-a {gpu}")
    lines += [
        f"{p}#",
        f"{p}#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",  # noqa: E501
        f"{p}#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)",  # noqa: E501
    ]
    for i, s in enumerate(sizes):
        halves = []
        for _ in range(2):
            t = float(cost.time_us[i]) * float(np.exp(rng.normal(0, 0.03)))
            alg = s / 1e3 / t
            halves.append(f"{t:9.2f}  {alg:6.2f}  {alg * 7 / 8:6.2f}      0")
        lines.append(f"{p}{int(s):12d}  {int(s) // 4 // 8:12d}     float    none      -1 {halves[0]} {halves[1]}")
    lines += [f"{p}# Out of bounds values : 0 OK", f"{p}# Avg bus bandwidth    : 0", f"{p}#"]
    out = Path(__file__).with_name("h100-1x8-all_gather-synthetic.txt")
    out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
