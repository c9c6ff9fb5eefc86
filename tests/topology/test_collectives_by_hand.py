"""Every (algorithm, protocol) the collective model offers, timed by hand from NCCL v2.30.7-1's tables.

Each row derives one time t = latency + bytes ÷ (1000 × algbw) [µs, B, GB/s] with the constants of
src/graph/tuning.cc (copied in topology/nccl_tuning.py) and the graph estimates stated in
topology.collectives.ASSUMPTIONS; both the vectorised model and the scalar oracle must give it.

The fabrics:
- H: one DGX H100 — 8 GPUs, NVLink 18 × 20.6 = 370.8 GB/s. The search settles on 60 GB/s channels (the fastest
  Hopper speed ≤ 370.8), ⌊370.8 ÷ 60⌋ = 6 of them: 360 GB/s, doubled to 12 channels.
- M: 4 such nodes, 8 × 400G NICs (400 ÷ 8 × 0.96 = 48 GB/s each, 384 a node): ring busBw min(360, 384) = 360,
  channels 2 × 8 NICs = 16, node class 2 (≥ 3 nodes), log2 4 = 2, n = 32 ranks.
"""

from __future__ import annotations

import math

import pytest

from topology.collective_inputs import Fabric
from topology.collectives import (
    Algorithm,
    Collective,
    Protocol,
    algorithm_times_us,
    bandwidths_gbyte_s,
    calibrated_us,
    scalar_cost,
)

H = {"gpus_per_node": 8, "node_count": 1, "nvlink_gbyte_s": 370.8, "nics_per_node": 8, "nic_gbps": 400.0}
M = {**H, "node_count": 4}
NVLS_H = {**H, "nvls": True}
NVLS_H_BUS = 8 * 370.8 / 9 * 0.85 * 7 / 8 * 2  # 490.28 GB/s: 8 heads × bwIntra × efficiency × 7/8 × 2
NVLS_H_AG_BUS = 8 * 370.8 / 9 * 0.85 * 7 / 8 * 7 / 8  # 214.4975 GB/s: all-gather, × (ppn − 1)/ppn instead of × 2
SHARP_M = {**M, "nvls": True, "sharp": True}
AMPERE_M = {"gpus_per_node": 8, "node_count": 4, "nvlink_gbyte_s": 240.0, "nics_per_node": 8, "nic_gbps": 200.0,
            "sharp": True, "arch": "ampere"}  # fmt: skip
VOLTA_M = {"gpus_per_node": 8, "node_count": 4, "nvlink_gbyte_s": 120.0, "nics_per_node": 4, "nic_gbps": 100.0,
           "arch": "volta"}  # fmt: skip
BLACKWELL_M = {"gpus_per_node": 8, "node_count": 4, "nvlink_gbyte_s": 721.8, "nics_per_node": 8, "nic_gbps": 800.0,
               "nvls": True, "arch": "blackwell"}  # fmt: skip
ONE_GPU_NODES = {"gpus_per_node": 1, "node_count": 8, "nvlink_gbyte_s": 370.8, "nics_per_node": 1, "nic_gbps": 400.0}
TORUS = {"gpus_per_node": 1, "node_count": 64, "nvlink_gbyte_s": 100.0, "nics_per_node": 1, "nic_gbps": 400.0,
         "torus_dims": (4, 4, 4), "arch": "ici"}  # fmt: skip
KiB, MiB, GiB = 2**10, 2**20, 2**30

R, T_, NV, NVT = Algorithm.RING, Algorithm.TREE, Algorithm.NVLS, Algorithm.NVLS_TREE
LL, LL128, S = Protocol.LL, Protocol.LL128, Protocol.SIMPLE


def _time_us(collective, size, fabric: dict, alg, proto) -> float:
    vec = algorithm_times_us(collective, size, Fabric(**fabric), algorithms=(alg,), protocols=(proto,))[(alg, proto)]
    oracle = scalar_cost(collective, size, fabric, algorithms=(alg,), protocols=(proto,))["time_us"]
    assert float(vec) == pytest.approx(oracle, rel=1e-12)
    return oracle


CASES = [
    # --- Ring all-reduce on M: nsteps 2(n−1) = 62, algbw = busBw × 32/62; 6 of the 62 steps cross the network
    # (2 × (4 − 1)), the other 56 cost max(NVLink hop, the multi-node post overhead 1 µs, ×3 on Simple).
    # LL: busBw min(Intel host llMaxBw 20.4, 360 × 0.5) = 20.4; 6.6 + 56 × max(0.6, 1) + 6 × 2.7 = 78.8 µs
    ("ring LL", "all_reduce", KiB, M, R, LL, 6.6 + 56 * 1.0 + 6 * 2.7 + KiB / (1000 * 20.4 * 32 / 62)),
    # LL128: min(360 × 0.92, 16 ch × 36.7) = 331.2; 14 + 56 × max(1.9, 1) + 6 × 4.0 = 144.4 µs
    ("ring LL128", "all_reduce", KiB, M, R, LL128, 14.0 + 56 * 1.9 + 6 * 4.0 + KiB / (1000 * 331.2 * 32 / 62)),
    # Simple: 360; 8.4 + 56 × max(3.4, 3 × 1) + 6 × 14 = 282.8 µs; 1 KiB ÷ (16 ch × 32 ranks) = 2 B < 64: no plateau
    ("ring Simple", "all_reduce", KiB, M, R, S, 8.4 + 56 * 3.4 + 6 * 14.0 + KiB / (1000 * 360 * 32 / 62)),
    # 32 KiB ÷ 512 = 64 B per channel and rank: the ×1.4 plateau starts exactly here, not one byte earlier
    ("ring plateau", "all_reduce", 32 * KiB, M, R, S, 282.8 * 1.4 + 32 * KiB / (1000 * 360 * 32 / 62)),
    ("ring no plateau", "all_reduce", 32 * KiB - 1, M, R, S, 282.8 + (32 * KiB - 1) / (1000 * 360 * 32 / 62)),
    # Volta (SM70) rings plateau at ×1.9 (tuning.cc: minCompCap < 80 ? 1.9 : 1.4): 4 nodes of 8 V100 (120 GB/s
    # NVLink: 3 × 40 GB/s channels), 4 × 100G NICs (12 GB/s each, 48 a node): busBw min(120, 48) = 48, 8 channels;
    # the same 282.8 µs of steps (the latency tables are not per generation) × 1.9
    ("volta plateau", "all_reduce", MiB, VOLTA_M, R, S, 282.8 * 1.9 + MiB / (1000 * 48 * 32 / 62)),
    # NVLink of exactly 60 GB/s carries one 60 GB/s channel (the search takes a speed ≤ the link): 60 GB/s,
    # 2 channels; one node: 8.4 + 14 steps × 3.4 = 56 µs
    ("nvlink = a speed", "all_reduce", MiB, {**H, "nvlink_gbyte_s": 60.0}, R, S, 56.0 + MiB / (1000 * 60 * 8 / 14)),
    # the LL128 channel cap binds on Blackwell: B200 (721.8 GB/s: 8 × 90 = 720, 16 channels) →
    # min(720 × 0.92 = 662.4, 16 × 40) = 640; one node: 14 + 14 × 1.9 = 40.6 µs
    ("B200 ring LL128", "all_reduce", MiB, {**H, "nvlink_gbyte_s": 721.8, "arch": "blackwell"}, R, LL128,
     14.0 + 14 * 1.9 + MiB / (1000 * 640 * 8 / 14)),
    # 4 nodes with 8 × 800G (96 GB/s each): busBw min(720, 768) = 720, 2 × 8 NICs = 16 channels → 640 again
    ("B200 ring LL128 4 nodes", "all_reduce", MiB, {**BLACKWELL_M, "nvls": False, "nic_gbps": 800.0}, R, LL128,
     144.4 + MiB / (1000 * 640 * 32 / 62)),
    # --- Tree all-reduce on M: busBw min(360 × 0.92, 16 × 36.0) = 331.2, algbw = busBw ÷ 2; latency
    # base + 2 × ((g − 1) × NVLink tree + log2(nodes) × net tree). 1 MiB = 2^14 chunks of 64 B: correction [14].
    # LL: min(331.2 ÷ 3.8, 20.4) = 20.4; 6.8 + 2 × (7 × 0.6 + 2 × 5.0) = 35.2 µs; LL[14] = 0.5
    ("tree LL", "all_reduce", MiB, M, T_, LL, 6.8 + 2 * (7 * 0.6 + 2 * 5.0) + MiB / (1000 * 10.2 * 0.5)),
    # LL128: 331.2 × 120/128 = 310.5 (< 16 × 29.0); 14 + 2 × (7 × 1.25 + 2 × 8.5) = 65.5 µs; LL128[14] = 0.6
    ("tree LL128", "all_reduce", MiB, M, T_, LL128, 14.0 + 2 * (7 * 1.25 + 2 * 8.5) + MiB / (1000 * 155.25 * 0.6)),
    # Simple: 8.4 + 2 × (7 × 4.0 + 2 × 14) = 120.4 µs; Simple[14] = 0.5
    ("tree Simple", "all_reduce", MiB, M, T_, S, 8.4 + 2 * (7 * 4.0 + 2 * 14.0) + MiB / (1000 * 165.6 * 0.5)),
    # the correction's edges: under one 64-byte chunk none; 1 chunk → [0] = 0.9; 2^23 − 1 chunks → [22] = 0.9;
    # 2^23 chunks (512 MiB) are past the table: none
    ("tree 32 B", "all_reduce", 32, M, T_, S, 120.4 + 32 / (1000 * 165.6)),
    ("tree 64 B", "all_reduce", 64, M, T_, S, 120.4 + 64 / (1000 * 165.6 * 0.9)),
    ("tree 512 MiB − 64", "all_reduce", 512 * MiB - 64, M, T_, S, 120.4 + (512 * MiB - 64) / (1000 * 165.6 * 0.9)),
    ("tree 512 MiB", "all_reduce", 512 * MiB, M, T_, S, 120.4 + 512 * MiB / (1000 * 165.6)),
    # --- Tree on one node H: 12 channels, the GPU's own llMaxBw row, the one-node LL128 factor 7/9, no network hops
    # LL: min(331.2 ÷ 3.8, 141) = 87.16; 6.8 + 2 × 7 × 0.6 = 15.2 µs
    ("tree H LL", "all_reduce", MiB, H, T_, LL, 6.8 + 2 * 7 * 0.6 + MiB / (1000 * 331.2 / 3.8 / 2 * 0.5)),
    # LL128: 331.2 × 7/9 = 257.6 (< 12 × 36.7); 14 + 2 × 7 × 1.25 = 31.5 µs
    ("tree H LL128", "all_reduce", MiB, H, T_, LL128, 14.0 + 2 * 7 * 1.25 + MiB / (1000 * 331.2 * 7 / 9 / 2 * 0.6)),
    # --- NVLS on H: 8 heads, bwIntra = 370.8 ÷ (8 + 1) = 41.2 (search.cc: every channel once, its head twice);
    # one node, no bwInter cap: per channel 41.2 × 0.85 × 7/8 × 2 = 61.285 → busBw 490.28, algbw 490.28 × 8/14;
    # latency 25 µs + the pipeline fill 4 × chunk × (16 ch × 8 heads) ÷ (1000 × busBw).
    # 4 MiB: 128 KiB → 64 KiB (< 64 × 128 × 128 KiB) → 32 KiB (< 8 × 128 × 64 KiB) → 16 KiB (< 2 × 128 × 32 KiB)
    ("nvls 4 MiB", "all_reduce", 4 * MiB, NVLS_H, NV, S,
     25 + 4 * 16 * KiB * 128 / (1000 * NVLS_H_BUS) + 4 * MiB / (1000 * NVLS_H_BUS * 8 / 14)),
    # 1 GiB is not under 64 × 128 × 128 KiB = 1 GiB: the chunk stays 128 KiB
    ("nvls 1 GiB", "all_reduce", GiB, NVLS_H, NV, S,
     25 + 4 * 128 * KiB * 128 / (1000 * NVLS_H_BUS) + GiB / (1000 * NVLS_H_BUS * 8 / 14)),
    # 2 GPUs: 2 heads, bwIntra 370.8 ÷ 3 = 123.6, per channel 123.6 × 0.85 × 1/2 × 2 = 105.06 → busBw 210.12 = algbw;
    # 16 × 2 = 32 ops, 4 MiB: 128 → 64 (< 64 × 32 × 128 KiB) → 32 KiB (< 8 × 32 × 64 KiB), not under 2 × 32 × 32 KiB
    ("nvls 2 GPUs", "all_reduce", 4 * MiB, {**NVLS_H, "gpus_per_node": 2, "nics_per_node": 2}, NV, S,
     25 + 4 * 32 * KiB * 32 / (1000 * 210.12) + 4 * MiB / (1000 * 210.12)),
    # 1 GiB on the same pair: not under 64 × 32 × 128 KiB, so the one-node chunk stays 128 KiB (the 32 KiB chunk of
    # a slow busBw is a multi-node rule)
    ("nvls 2 GPUs 1 GiB", "all_reduce", GiB, {**NVLS_H, "gpus_per_node": 2, "nics_per_node": 2}, NV, S,
     25 + 4 * 128 * KiB * 32 / (1000 * 210.12) + GiB / (1000 * 210.12)),
    # all-gather: per channel 41.2 × 0.85 × 7/8 × 7/8 = 26.8122: busBw 8 × 26.8122 = 214.4975 = algbw
    ("nvls all-gather", "all_gather", 4 * MiB, NVLS_H, NV, S,
     25 + 4 * 16 * KiB * 128 / (1000 * NVLS_H_AG_BUS) + 4 * MiB / (1000 * NVLS_H_AG_BUS)),
    # Blackwell (B200: 18 × 40.1 = 721.8 GB/s, NVLS efficiency 0.74): bwIntra 721.8 ÷ 9 = 80.2, per channel
    # 80.2 × 0.74 × 7/8 × 2 = 103.8590 → busBw 830.872; 24 NVLS channels on one node: 192 ops;
    # 4 MiB: 128 → 64 (< 64 × 192 × 128 KiB) → 32 (< 8 × 192 × 64 KiB) → 16 KiB (< 2 × 192 × 32 KiB)
    ("nvls B200", "all_reduce", 4 * MiB, {**NVLS_H, "nvlink_gbyte_s": 721.8, "arch": "blackwell"}, NV, S,
     25 + 4 * 16 * KiB * 192 / (1000 * 830.872) + 4 * MiB / (1000 * 830.872 * 8 / 14)),
    # --- NVLS across M (SHARP): heads min(8, 8 NICs); per channel min(89.25, NIC 48) = 48 → busBw 384 (≥ 150:
    # the 128 KiB chunk rules); latency 25 + the NVLS network 18 µs
    ("nvls M", "all_reduce", 4 * MiB, SHARP_M, NV, S,
     43 + 4 * 16 * KiB * 128 / (1000 * 384) + 4 * MiB / (1000 * 384 * 32 / 62)),
    # 2 NICs: 2 heads, per channel min(60 × 0.85 × 1/2 × 2 = 51, 48) → busBw 96 < 150: the slow 32 KiB chunk,
    # 16 × 2 = 32 ops; 4 MiB is not under 2 × 32 × 32 KiB: 32 KiB stays
    ("nvls M 2 NICs", "all_reduce", 4 * MiB, {**SHARP_M, "nics_per_node": 2}, NV, S,
     43 + 4 * 32 * KiB * 32 / (1000 * 96) + 4 * MiB / (1000 * 96 * 32 / 62)),
    # --- NVLS tree on M: per channel min(89.25, 48, Hopper NVLS-tree cap 45.5) → 364; 25 + 2 × 2 × 20.9 = 108.6 µs;
    # tree chunk 128 KiB → 64 KiB (< 4 × 128 × 128 KiB) → 32 KiB (< 1 × 128 × 64 KiB)
    ("nvls tree M", "all_reduce", 4 * MiB, SHARP_M, NVT, S,
     108.6 + 4 * 32 * KiB * 128 / (1000 * 364) + 4 * MiB / (1000 * 364 * 32 / 62)),
    # on 2 nodes the network side doubles (96): min(89.25, 96, cap 57.7) → 461.6; 25 + 2 × 1 × 20.9 = 66.8 µs
    ("nvls tree 2 nodes", "all_reduce", 4 * MiB, {**SHARP_M, "node_count": 2}, NVT, S,
     66.8 + 4 * 32 * KiB * 128 / (1000 * 461.6) + 4 * MiB / (1000 * 461.6 * 16 / 30)),
    # Blackwell NVLS tree takes the tree correction too (tuning.cc: NVLS_TREE, minCompCap ≥ 100, x86 host), up to
    # index 23: 4 × 8 B200, 8 × 800G NICs (96 GB/s): per channel min(116.55, 90, Blackwell cap 80) → busBw 640,
    # algbw 640 × 32/62; 25 + 2 × 2 × 20.9 = 108.6 µs; 32 × 8 = 256 ops.
    # 4 MiB: chunk 128 → 64 (< 4 × 256 × 128 KiB) → 32 KiB (< 256 × 64 KiB), a head's share 16 KiB; 2^16 chunks of
    # 64 B: Simple[16] = 0.7
    ("nvls tree B200 4 MiB", "all_reduce", 4 * MiB, BLACKWELL_M, NVT, S,
     108.6 + 4 * 16 * KiB * 256 / (1000 * 640) + 4 * MiB / (1000 * 640 * 32 / 62 * 0.7)),
    # 512 MiB: 2^23 chunks → Simple[23] = 0.9 (Tree would stop at 22); 1 GiB: 2^24, past the table
    ("nvls tree B200 512 MiB", "all_reduce", 512 * MiB, BLACKWELL_M, NVT, S,
     108.6 + 4 * 128 * KiB * 256 / (1000 * 640) + 512 * MiB / (1000 * 640 * 32 / 62 * 0.9)),
    ("nvls tree B200 1 GiB", "all_reduce", GiB, BLACKWELL_M, NVT, S,
     108.6 + 4 * 128 * KiB * 256 / (1000 * 640) + GiB / (1000 * 640 * 32 / 62)),
    # --- CollNet (SHARP) on M: Direct busBw 360 ÷ (g/NICs = 1) × 0.85 (Hopper) = 306, algbw 153;
    # latency 2 × (3.7 + 7 × 0.4 arity) + 31 = 44 µs
    ("collnet direct", "all_reduce", 1e9, SHARP_M, Algorithm.COLLNET_DIRECT, S, 44 + 1e9 / (1000 * 153)),
    # 4 NICs: g/NICs = 2 → 2 − (2 − 1)/2 = 1.5: 360 ÷ 1.5 × 0.85 = 204, algbw 102
    ("collnet direct 4 NICs", "all_reduce", 1e9, {**SHARP_M, "nics_per_node": 4}, Algorithm.COLLNET_DIRECT, S,
     44 + 1e9 / (1000 * 102)),
    # Ampere: 240 GB/s NVLink (6 × 40), no Hopper factor: 240 → algbw 120
    # 2 GPUs and 2 NICs a node: min(1, g − 1) = 1 NVLink hop, 1 × 0.4 arity: 2 × (3.7 + 0.4) + 31 = 39.2 µs
    ("collnet direct 2 GPUs", "all_reduce", 1e9, {**SHARP_M, "gpus_per_node": 2, "nics_per_node": 2},
     Algorithm.COLLNET_DIRECT, S, 39.2 + 1e9 / (1000 * 153)),
    ("collnet direct A100", "all_reduce", 1e9, AMPERE_M, Algorithm.COLLNET_DIRECT, S, 44 + 1e9 / (1000 * 120)),
    # Chain: busBw 360, algbw 180; latency 2 × 7 × 2.8 + 30 = 69.2 µs
    ("collnet chain", "all_reduce", 1e9, SHARP_M, Algorithm.COLLNET_CHAIN, S, 69.2 + 1e9 / (1000 * 180)),
    # --- PAT, one GPU on each of 8 nodes: busBw min(360, 48) × 0.75 = 36, no algbw conversion;
    # 8 + log2 8 × (14 ÷ 3.5) + 8 ranks × 2.8 = 42.4 µs
    ("pat", "all_gather", MiB, ONE_GPU_NODES, Algorithm.PAT, S, 42.4 + MiB / (1000 * 36)),
    # --- Broadcast (ring only): nsteps = n, algbw = busBw; a hop per step, Simple at Tree's network latency
    ("broadcast Simple", "broadcast", MiB, M, R, S, 8.4 + 32 * 14.0 + MiB / (1000 * 360)),
    ("broadcast LL", "broadcast", MiB, M, R, LL, 6.6 + 32 * 2.7 + MiB / (1000 * 20.4)),
    ("broadcast one node", "broadcast", MiB, H, R, S, 8.4 + 8 * 4.0 + MiB / (1000 * 360)),
    # --- Two-level all-reduce (collectives.md): 2(g−1)α_nvl + 2(g−1)/g · S/B_nvl + 2(N−1)α_net + 2(N−1)/N · (S/g)/B_nic
    ("hierarchical", "all_reduce", 1e9, M, Algorithm.HIERARCHICAL, S,
     2 * 7 * 3.4 + 2 * 7 / 8 * 1e9 / (1000 * 370.8) + 2 * 3 * 14.0 + 2 * 3 / 4 * (1e9 / 8) / (1000 * 48.0)),
    # --- All-to-all: one hop + (n − 1) × 1 µs posts; max(S(nodes−1)/nodes ÷ NIC share, S(g−1)/n ÷ NVLink)
    ("all-to-all M", "all_to_all", 1e9, M, Algorithm.PAIRWISE, S, 14 + 31 * 1.0 + 1e9 * 3 / 4 / 48 / 1000),
    # 3:1 above 4 pods: each NIC sees 48 ÷ max(1, 3 × 3/4 = 2.25)
    ("all-to-all 3:1", "all_to_all", 1e9, {**M, "oversubscription": 3.0, "pods": 4}, Algorithm.PAIRWISE, S,
     14 + 31 * 1.0 + 1e9 * 3 / 4 / (48 / 2.25) / 1000),
    # NVLink of 10 GB/s: the NVLink share binds, S × 7/32 ÷ 10 > S × 3/4 ÷ 48
    ("all-to-all NVLink-bound", "all_to_all", 1e9, {**M, "nvlink_gbyte_s": 10.0}, Algorithm.PAIRWISE, S,
     14 + 31 * 1.0 + 1e9 * 7 / 32 / 10 / 1000),
    ("all-to-all one node", "all_to_all", 1e9, H, Algorithm.PAIRWISE, S, 3.4 + 7 * 1.0 + 1e9 * 7 / 8 / 370.8 / 1000),
    # torus 4×4×4 of 48 GB/s links: bisection 2 × 64/4 × 48 = 1,536 GB/s, injection 2 × 3 × 48 = 288;
    # max(S × 63/64 ÷ 288, 64 S/4 ÷ 1,536)
    ("all-to-all torus", "all_to_all", 1e9, TORUS, Algorithm.PAIRWISE, S,
     14 + 63 * 1.0 + max(1e9 * 63 / 64 / 288, 64 * 1e9 / 4 / 1536) / 1000),
    # a ring of 3 (1 × 1 × 3): bisection 2 × 3/3 × 48 = 96 GB/s, injection 2 × 1 × 48 = 96; the bisection term
    # 3S/4 ÷ 96 is above the injection term S × 2/3 ÷ 96 (on every torus: the injection bound never binds)
    ("all-to-all ring of 3", "all_to_all", 1e9, {**TORUS, "node_count": 3, "torus_dims": (1, 1, 3)},
     Algorithm.PAIRWISE, S, 14 + 2 * 1.0 + 3 * 1e9 / 4 / 96 / 1000),
    # --- torus all-reduce: per dimension of 4, 2 passes × (3 α + 3/4 × remaining ÷ (2 × link)), the message ÷ 4
    ("torus Simple", "all_reduce", 1e9, TORUS, R, S,
     sum(2 * (3 * 14.0 + 0.75 * r / (1000 * 2 * 48)) for r in (1e9, 2.5e8, 6.25e7))),
    ("torus LL", "all_reduce", 1e9, TORUS, R, LL,  # LL: links at half rate, α 2.7
     sum(2 * (3 * 2.7 + 0.75 * r / (1000 * 2 * 24)) for r in (1e9, 2.5e8, 6.25e7))),
    ("torus LL128", "all_reduce", 1e9, TORUS, R, LL128,  # LL128: ×0.92, α 4.0
     sum(2 * (3 * 4.0 + 0.75 * r / (1000 * 2 * 48 * 0.92)) for r in (1e9, 2.5e8, 6.25e7))),
    # broadcast: ⌊k/2⌋ hops per dimension, the message once over both directions
    ("torus broadcast", "broadcast", 1e9, TORUS, R, S, 3 * 2 * 14.0 + 1e9 / (1000 * 2 * 48)),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "coll", "size", "fabric", "alg", "proto", "expected"), CASES, ids=[c[0] for c in CASES]
)
def test_time_by_hand(name, coll, size, fabric, alg, proto, expected):
    assert _time_us(coll, size, fabric, alg, proto) == pytest.approx(expected, rel=1e-12)


# --- what is not run, and what is counted ------------------------------------------------------------------


def test_one_rank_communicates_nothing():
    assert scalar_cost("all_reduce", 1e6, {**H, "gpus_per_node": 1}) == {
        "time_us": 0.0, "algbw_gbyte_s": 0.0, "busbw_gbyte_s": 0.0, "algorithm": "local", "protocol": "none",
    }  # fmt: skip


def test_no_algorithm_that_runs_gives_no_bandwidth():
    out = scalar_cost("all_to_all", 1e6, M, algorithms=(Algorithm.RING,))
    assert out == {"time_us": math.inf, "algbw_gbyte_s": 0.0, "busbw_gbyte_s": 0.0, "algorithm": "none",
                   "protocol": "none"}  # fmt: skip
    for alg, proto in ((T_, S), (NV, S), (Algorithm.PAT, S)):  # broadcast runs on Ring only
        assert math.isinf(_time_us("broadcast", 1e6, SHARP_M, alg, proto))
    assert math.isinf(_time_us("all_reduce", 1e6, SHARP_M, Algorithm.COLLNET_DIRECT, LL))  # Simple only
    not_run = [
        ("all_reduce", {**M, "nvls": True}, NV),  # NVLS across nodes needs SHARP (CollNet)
        ("all_reduce", NVLS_H, NVT),  # NVLS tree is off on one node
        ("all_gather", SHARP_M, NV),  # NVLS all-gather across nodes needs a CollNet plugin
        ("all_reduce", {**SHARP_M, "node_count": 1}, Algorithm.COLLNET_DIRECT),  # CollNet: between nodes
        ("all_reduce", {**SHARP_M, "node_count": 1}, Algorithm.COLLNET_CHAIN),
        ("all_reduce", {**ONE_GPU_NODES, "sharp": True}, Algorithm.COLLNET_DIRECT),  # Direct needs NVSwitch
        ("all_gather", M, Algorithm.PAT),  # PAT: one GPU per node
        ("all_gather", M, Algorithm.HIERARCHICAL),  # the two-level form is an all-reduce
    ]
    for coll, fabric, alg in not_run:
        assert math.isinf(_time_us(coll, 1e6, fabric, alg, S)), (coll, alg)
    assert math.isinf(_time_us("all_reduce", 1e6, M, Algorithm.HIERARCHICAL, LL))  # and Simple


def test_bandwidths_of_timed_points():
    """nccl-tests: algbw = bytes ÷ time; busbw × 2(n−1)/n for all-reduce. One rank or no time: 0."""
    algbw, busbw = bandwidths_gbyte_s(
        Collective.ALL_REDUCE, [1e6] * 5, [8, 1, 8, 8, 8], [10.0, 5.0, math.inf, 0.5, 0.0]
    )
    assert algbw.tolist() == [100.0, 0.0, 0.0, 2000.0, 0.0]  # 1e6 B ÷ 0.5 µs = 2,000 GB/s; no time: nothing
    assert busbw.tolist() == [175.0, 0.0, 0.0, 3500.0, 0.0]


def test_a_fabric_below_one_gigabyte_a_second_still_runs():
    """Two one-GPU nodes on 8 Gbit/s NICs: 8 ÷ 8 × 0.96 = 0.96 GB/s, ring all-reduce algbw = 0.96 × 2/2 = 0.96 —
    slow, but a ring runs: 1 MB takes more than 1e6 ÷ (1000 × 0.96) = 1,041.7 µs, and the oracle agrees."""
    slow = {"gpus_per_node": 1, "node_count": 2, "nvlink_gbyte_s": 370.8, "nics_per_node": 1, "nic_gbps": 8.0}
    out = scalar_cost("all_reduce", 1e6, slow, algorithms=(R,), protocols=(S,))
    assert out["algorithm"] == "ring" and out["algbw_gbyte_s"] == pytest.approx(1e6 / (1000 * out["time_us"]))
    assert out["time_us"] > 1e6 / (1000 * 0.96)
    assert _time_us("all_reduce", 1e6, slow, R, S) == out["time_us"]


def test_calibration_identity_and_its_neighbours():
    """e = 1 and no offset: t itself; e = 2: t ÷ 2; an offset of exactly 1 µs: t + 1."""
    f = Fabric(**H)
    assert calibrated_us(100.0, f, S) == 100.0
    assert calibrated_us(100.0, Fabric(**H, bw_efficiency=2.0), S) == 50.0
    assert calibrated_us(100.0, Fabric(**H, latency_offset_us=1.0), LL) == 101.0
    assert calibrated_us(100.0, Fabric(**H, latency_offset_us=-1.0), LL) == 99.0
    # e = 2 and −100 µs: 100 ÷ 2 = 50, the offset held at half of it: 50 − 25 = 25
    assert calibrated_us(100.0, Fabric(**H, bw_efficiency=2.0, latency_offset_us=-100.0), LL) == 25.0
    assert calibrated_us(100.0, Fabric(**H, simple_latency_offset_us=1.0), LL) == 100.0  # Simple's own offset
    assert calibrated_us(100.0, Fabric(**H, simple_latency_offset_us=1.0), S) == 101.0


def test_one_pod_has_no_taper():
    """All-to-all leaves the pod only when there are pods: a fabric of one pod (the default) at 3:1 sends nothing
    across the tapered layer, so it takes what the same fabric at 1:1 takes; with 4 pods, 3/4 of the bytes cross
    it: taper max(1, 3 × 3/4) = 2.25 (the 4-pod case above)."""
    untapered = _time_us("all_to_all", 1e9, M, Algorithm.PAIRWISE, S)
    assert _time_us("all_to_all", 1e9, {**M, "oversubscription": 3.0}, Algorithm.PAIRWISE, S) == untapered
    four_pods = {**M, "oversubscription": 3.0, "pods": 4}
    assert _time_us("all_to_all", 1e9, four_pods, Algorithm.PAIRWISE, S) == pytest.approx(
        14 + 31 * 1.0 + 1e9 * 3 / 4 / (48 / 2.25) / 1000, rel=1e-12
    )


def test_a_fabric_given_pods_but_no_taper_is_non_blocking():
    """Fabric's oversubscription defaults to 1:1: 4 nodes in 4 pods with no taper given run the pairwise
    all-to-all as fast as with 1.0 said outright, and faster than at 2:1 (taper 2 × 3/4 = 1.5 on the traffic
    that leaves a pod)."""
    from topology.collectives import collective_cost

    size = 1 << 28

    def a2a_us(**taper) -> float:
        return float(collective_cost(Collective.ALL_TO_ALL, size, Fabric(**M, pods=4, **taper)).time_us)

    assert a2a_us() == a2a_us(oversubscription=1.0) < a2a_us(oversubscription=2.0)
