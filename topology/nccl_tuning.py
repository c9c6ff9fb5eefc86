"""NCCL's tuning constants, as NCCL v2.30.7-1 ships them — one place, each cited to file, line and symbol.

Every number here is copied from the named NCCL source (github.com/NVIDIA/nccl, tag v2.30.7-1);
nothing is fitted. :mod:`topology.collectives` composes them the way ``ncclTopoTuneModel`` and
``ncclTopoGetAlgoTime`` (src/graph/tuning.cc:243, :630) and ``topoGetAlgoInfo`` (src/enqueue.cc:2028) do.

Index order follows NCCL: algorithms Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT;
protocols LL, LL128, Simple; compute-capability classes Volta, Ampere, Hopper, Blackwell;
node-count classes 1 node, 2 nodes, ≥ 3 nodes (tuning.cc ``index2 = nNodes <= 2 ? nNodes - 1 : 2``).
"""

from __future__ import annotations

ALGOS = ("tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat")
PROTOS = ("LL", "LL128", "Simple")
ARCHES = ("volta", "ampere", "hopper", "blackwell")  # NCCL_*_COMPCAP_IDX 0..3

# src/graph/tuning.cc:149 ncclTunerConstantsDefaults.baseLatencies [µs]
BASE_LATENCY_US = {
    "tree": (6.8, 14.0, 8.4),
    "ring": (6.6, 14.0, 8.4),
    "collnet_direct": (0.0, 0.0, 0.0),
    "collnet_chain": (0.0, 0.0, 0.0),
    "nvls": (0.0, 0.0, 0.0),
    "nvls_tree": (0.0, 0.0, 0.0),
    "pat": (8.0, 8.0, 8.0),
}
# src/graph/tuning.cc:156 ncclTunerConstantsDefaults.hwLatencies [µs], NVLINK and NET rows (PCI is not modelled)
NVLINK_LATENCY_US = {
    "tree": (0.6, 1.25, 4.0),
    "ring": (0.6, 1.9, 3.4),
    "collnet_direct": (0.0, 0.0, 3.7),
    "collnet_chain": (0.0, 0.0, 2.8),
    "nvls": (0.0, 0.0, 25.0),
    "nvls_tree": (0.0, 0.0, 25.0),
    "pat": (0.0, 0.0, 4.0),
}
NET_LATENCY_US = {
    "tree": (5.0, 8.5, 14.0),
    "ring": (2.7, 4.0, 14.0),
    "collnet_direct": (0.0, 0.0, 31.0),
    "collnet_chain": (0.0, 0.0, 30.0),
    "nvls": (0.0, 0.0, 18.0),
    "nvls_tree": (0.0, 0.0, 20.9),
    "pat": (0.0, 0.0, 14.0),
}
# src/graph/tuning.cc:177 llMaxBws [GB/s]: row = GPU class on one node, Intel host (row 0) between nodes
LL_MAX_BW = {
    "volta": (39.0, 39.0, 20.4),
    "ampere": (87.7, 22.5, 19.0),
    "hopper": (141.0, 45.0, 35.0),
    "blackwell": (2 * 141.0, 2 * 45.0, 2 * 35.0),
}
LL_MAX_BW_INTEL_HOST = (39.0, 39.0, 20.4)  # tuning.cc:179 llMaxBws[0]: multi-node, x86 Intel host
# per-channel caps [GB/s] by node-count class: src/graph/tuning.cc:184 perChMaxRingLL128Bws, :191
# perChMaxTreeLL128Bws, :198 perChMaxTreeBws, :205 perChMaxNVLSTreeBws (read at tuning.cc:273-276)
PER_CH_MAX_RING_LL128 = {
    "volta": (20.0, 20.0, 20.0),
    "ampere": (20.0, 20.0, 20.0),
    "hopper": (36.7, 36.7, 36.7),
    "blackwell": (40.0, 40.0, 40.0),
}
PER_CH_MAX_TREE_LL128 = {
    "volta": (20.0, 20.0, 20.0),
    "ampere": (20.0, 20.0, 20.0),
    "hopper": (36.7, 36.7, 29.0),
    "blackwell": (55.6, 31.67, 20.0),
}
PER_CH_MAX_TREE = {
    "volta": (26.5, 18.5, 10.0),
    "ampere": (24.0, 23.6, 17.8),
    "hopper": (38.7, 41.4, 36.0),
    "blackwell": (70.0, 42.8, 24.0),
}
PER_CH_MAX_NVLS_TREE = {
    "volta": (26.5, 18.5, 10.0),
    "ampere": (24.0, 23.6, 17.8),
    "hopper": (0.0, 57.7, 45.5),
    "blackwell": (0.0, 96.0, 80.0),
}
# src/graph/tuning.cc:139 nvlsEfficiency (NVLS needs Hopper or newer: 0 below)
NVLS_EFFICIENCY = {"volta": 0.0, "ampere": 0.0, "hopper": 0.85, "blackwell": 0.74}
# src/graph/tuning.cc:623 treeCorrectionFactor[protocol][log2(bytes >> 6)], 64 B … 512 MiB (24 powers of two;
# Tree reads 23)
TREE_CORRECTION = {
    "LL": (1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.7, 0.7, 0.7, 0.7, 0.6, 0.5, 0.4, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.0, 1.0,
           1.0, 1.0),
    "LL128": (1.0, 1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.8, 0.8, 0.7, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.8, 0.9, 0.9, 0.9, 0.9,
              1.0, 1.0, 1.0),
    "Simple": (0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.8, 0.7, 0.6, 0.6, 0.5, 0.5, 0.5, 0.5, 0.6, 0.7, 0.8, 0.7, 0.7, 0.8,
               0.9, 0.9, 0.9),
}  # fmt: skip
NET_OVERHEAD_US = 1.0  # src/graph/tuning.cc:228 getNetOverhead(): x86 Intel (and non-x86) hosts; ×3 for Simple
# src/graph/tuning.cc:649 (ncclTopoGetAlgoTime): multi-node Ring/Simple all-reduce latency
# × (minCompCap < 80 ? 1.9 : 1.4), the ring's plateau
RING_PLATEAU = {"volta": 1.9, "ampere": 1.4, "hopper": 1.4, "blackwell": 1.4}
PAT_BW_FACTOR = 0.75  # src/graph/tuning.cc:337: PAT busBw ×0.75
COLLNET_ARITY_US = 0.4  # src/graph/tuning.cc:420-421: CollNetDirect arity serialisation latency per local rank
# src/graph/topo.h:20-24 SM70/SM80/SM90/SM100_NVLINK_BW, per-link NVLink bandwidth NCCL assumes [GB/s]
NVLINK_LINK_GBYTE_S = {"volta": 20.0, "ampere": 20.0, "hopper": 20.6, "blackwell": 40.1}
# src/graph/search.cc:1051 speedArrayIntra / :1057 sm90SpeedArrayIntra / :1063 sm100SpeedArrayIntra [GB/s per channel]
SPEED_ARRAY_INTRA = {
    "volta": (40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0),
    "ampere": (40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0),
    "hopper": (60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0),
    "blackwell": (90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0),
}
MAX_CHANNELS = 32  # ring/tree graphs: MAXCHANNELS / 2 (src/include/device.h:91 MAXCHANNELS 64)
NVLS_MAX_ARITY = 32  # src/include/device.h:213 NCCL_MAX_NVLS_ARITY; src/graph/search.cc:1127 NVLS channels ≤ it
# src/transport/nvls.cc:155-157 NVLS_NCHANNELS_SM90 / _SM100 (multi-node) / _SM100_NVL (one node), chosen at :211
NVLS_CHANNELS = {"hopper": (16, 16), "blackwell": (24, 32)}  # (one node, several nodes)
# NVLS chunking (src/enqueue.cc:285 calcCollChunking; src/transport/nvls.cc:160 NCCL_NVLS_CHUNKSIZE 128 KiB):
# NVLS starts at 128 KiB (32 KiB across nodes when its Simple bandwidth is < 150 GB/s) and halves to
# 64/32/16 KiB while bytes < 64/8/2 × (channels × heads) × chunk; NVLS-tree starts at 128 KiB and
# drops to 64/32 KiB while bytes < 4/1 × (channels × heads) × chunk.
NVLS_CHUNK_BYTES = 128 * 1024
NVLS_MULTI_NODE_SLOW_CHUNK_BYTES = 32 * 1024
NVLS_SLOW_BUSBW_GBYTE_S = 150.0
NVLS_CHUNK_STEPS = ((64, 65536), (8, 32768), (2, 16384))  # (× concurrent ops × chunk, new chunk)
NVLS_TREE_CHUNK_BYTES = 128 * 1024
NVLS_TREE_CHUNK_STEPS = ((4, 65536), (1, 32768))
# The model's own (not NCCL's): a pipeline of NCCL_STEPS / 2 = 4 chunks in flight per NVLS channel-head
# (src/include/device.h:26 NCCL_STEPS 8) is filled before data flows at busBw: + 4 × chunk ÷ (busBw ÷ ops).
NVLS_PIPELINE_CHUNKS = 4
# src/include/comm.h:49-51 thread thresholds [bytes per thread] and src/include/device.h:95/97/114 thread counts
THREAD_THRESHOLD = {"LL": 8, "LL128": 8, "Simple": 64}
MAX_THREADS = {"LL": 512, "LL128": 640, "Simple": 512}


def node_class(nodes: int) -> int:
    """src/graph/tuning.cc:267 ``index2``: 0 for one node, 1 for two, 2 for more."""
    return 0 if nodes <= 1 else (1 if nodes == 2 else 2)


def tree_correction_limit(algorithm: str, arch: str) -> int:
    """src/graph/tuning.cc:640-645 (ncclTopoGetAlgoTime): an all-reduce's bw × TREE_CORRECTION[proto][log2(bytes >> 6)]
    while that index is below
    the returned limit — Tree: 23; NVLS Tree on Blackwell (minCompCap ≥ 100) with an x86 host: 24; else 0 (none)."""
    if algorithm == "tree":
        return 23
    return 24 if algorithm == "nvls_tree" and arch == "blackwell" else 0
