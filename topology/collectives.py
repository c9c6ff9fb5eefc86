"""Cost of NCCL collectives on a design: time, algbw and busbw, algorithm and protocol.

The model is NCCL's own (NVIDIA/nccl tag v2.30.7-1): ``ncclTopoTuneModel`` in src/graph/tuning.cc:243
gives, for every (collective, algorithm, protocol), which are enabled, a bandwidth and a latency;
``ncclTopoGetAlgoTime`` turns them into a time (tree correction factors, the ring plateau) and NCCL
runs the fastest. The constants live in :mod:`topology.nccl_tuning`. What NCCL learns from its
topology search (src/graph/search.cc:1051-1067 speed arrays, :1160) — channels and per-channel bandwidth — is
estimated from the design as :data:`ASSUMPTIONS` says. nccl-tests ``doc/PERFORMANCE.md`` defines algbw and busbw.

All-to-all (NCCL's grouped point-to-point, not in tuning.cc) and the 3D torus (ICI-style rings per
dimension) are this project's α-β forms, after Thakur, Rabenseifner & Gropp (2005); the hierarchical
all-reduce is offered for comparison only (collectives.md).

Everything is vectorised with numpy: pass arrays (they broadcast) and get arrays back.
:func:`scalar_cost` is the same model written point by point in plain Python: the test oracle.
Bad arguments raise ``ValueError`` naming the argument (:mod:`topology.collective_inputs`).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

import numpy as np

from topology import nccl_tuning as T
from topology.collective_inputs import (  # noqa: F401 (re-exported: the model's public inputs)
    GPU_GENERATIONS,
    GPU_MODEL_GENERATION,
    NIC_EFF,
    Fabric,
    GpuGeneration,
    check_sizes,
    generation_for,
    nic_gbyte_s,
)


class Collective(enum.StrEnum):
    ALL_REDUCE = "all_reduce"
    ALL_GATHER = "all_gather"
    REDUCE_SCATTER = "reduce_scatter"
    ALL_TO_ALL = "all_to_all"
    BROADCAST = "broadcast"


class Algorithm(enum.StrEnum):
    RING = "ring"
    TREE = "tree"
    NVLS = "nvls"
    NVLS_TREE = "nvls_tree"
    COLLNET_DIRECT = "collnet_direct"
    COLLNET_CHAIN = "collnet_chain"
    PAT = "pat"
    HIERARCHICAL = "hierarchical"  # 2-level all-reduce; not one of NCCL's, offered for comparison
    PAIRWISE = "pairwise"  # all-to-all


class Protocol(enum.StrEnum):
    LL = "LL"
    LL128 = "LL128"
    SIMPLE = "Simple"


PROTOCOLS = (Protocol.LL, Protocol.LL128, Protocol.SIMPLE)
NCCL_ALGORITHMS = (
    Algorithm.RING,
    Algorithm.TREE,
    Algorithm.NVLS,
    Algorithm.NVLS_TREE,
    Algorithm.COLLNET_DIRECT,
    Algorithm.COLLNET_CHAIN,
    Algorithm.PAT,
)


def bus_factor(collective: Collective, n):
    """nccl-tests: busbw = algbw × factor."""
    n = np.asarray(n, dtype=float)
    if collective == Collective.ALL_REDUCE:
        return 2 * (n - 1) / n
    if collective in (Collective.ALL_GATHER, Collective.REDUCE_SCATTER, Collective.ALL_TO_ALL):
        return (n - 1) / n
    return np.ones_like(n)


def _arr(x) -> np.ndarray:
    return np.asarray(x, dtype=float)


def bandwidths_gbyte_s(collective: Collective, size_bytes, n_ranks, time_us) -> tuple[np.ndarray, np.ndarray]:
    """(algbw, busbw) in GB/s of a timed collective: algbw = bytes ÷ time, busbw = algbw × bus_factor
    (nccl-tests doc/PERFORMANCE.md); 0 where nothing was timed (one rank, or no algorithm can run).
    The one place both are formed: the model's results and the sweep's stored times (topology/sweep.py)
    give the same bits."""
    t = _arr(time_us)
    s, n = np.broadcast_to(_arr(size_bytes), t.shape), np.broadcast_to(_arr(n_ranks), t.shape)
    ok = np.isfinite(t) & (n >= 2) & (t > 0)
    algbw = np.where(ok, s / (1000 * np.where(ok, t, 1.0)), 0.0)
    return algbw, algbw * bus_factor(collective, n)


@dataclass(frozen=True)
class _Ctx:
    """The arrays every algorithm's time needs, broadcast once (see :data:`ASSUMPTIONS` for the graph)."""

    s: np.ndarray  # message size [bytes]
    g: np.ndarray  # GPUs per node (NVLink domain) = NCCL's ppn
    nodes: np.ndarray
    n: np.ndarray  # ranks
    multi: np.ndarray  # more than one node
    cls: np.ndarray  # src/graph/tuning.cc:267 index2: 0 one node, 1 two nodes, 2 more
    log2_nodes: np.ndarray  # log2i(nNodes)
    b_nvl: np.ndarray  # NVLink per GPU [GB/s]
    nic: np.ndarray  # one NIC [GB/s]
    node_net: np.ndarray  # a node's NICs together [GB/s]
    speed: np.ndarray  # per-channel speed the intra-node search settles on [GB/s]
    intra_bw: np.ndarray  # ring/tree graph bandwidth on one node: channels × speed [GB/s]
    ring_bw: np.ndarray  # the ring/tree graph's busBw: intra_bw, or the NICs when fewer [GB/s]
    channels: np.ndarray  # ring/tree channels
    shape: tuple[int, ...]
    fabric: Fabric


def _search_speed(b_nvl: np.ndarray, arch: str) -> np.ndarray:
    """src/graph/search.cc:1051/1057/1063: the fastest speed of the arch's intra-node array that one NVLink port
    carries."""
    speeds = T.SPEED_ARRAY_INTRA[arch if arch in T.SPEED_ARRAY_INTRA else "hopper"]
    out = np.full(b_nvl.shape, speeds[-1])
    for sp in reversed(speeds):
        out = np.where(sp <= b_nvl, sp, out)
    return out


def _context(size_bytes, fabric: Fabric) -> _Ctx:
    s, g, nodes = _arr(size_bytes), _arr(fabric.gpus_per_node), _arr(fabric.node_count)
    n = g * nodes
    b_nvl = _arr(fabric.nvlink_gbyte_s)
    nic = nic_gbyte_s(_arr(fabric.nic_gbps), fabric.nic_efficiency)
    nics = _arr(fabric.nics_per_node)
    node_net = nics * nic
    multi = nodes > 1
    speed = _search_speed(b_nvl, fabric.arch)
    per_port = np.floor(b_nvl / speed)
    intra_bw = np.where(b_nvl >= speed, per_port * speed, b_nvl)
    ring_bw = np.where(multi, np.minimum(intra_bw, node_net), intra_bw)
    # ≥ 2 channels also when no NVLink port carries the slowest speed (per_port 0)
    channels = np.clip(np.where(multi, 2 * nics, 2 * per_port), 2, T.MAX_CHANNELS)
    cls = np.where(nodes <= 1, 0, np.where(nodes == 2, 1, 2))
    log2_nodes = np.floor(np.log2(nodes))  # nodes ≥ 1 (check_fabric)
    shape = np.broadcast_shapes(s.shape, n.shape, ring_bw.shape)
    return _Ctx(s, g, nodes, n, multi, cls, log2_nodes, b_nvl, nic, node_net, speed, intra_bw, ring_bw,
                channels, shape, fabric)  # fmt: skip


def _by_class(table: dict, arch: str, cls: np.ndarray) -> np.ndarray:
    return np.take(np.asarray(table[arch]), cls.astype(int))


def _ll_max_bw(c: _Ctx) -> np.ndarray:
    """src/graph/tuning.cc:272 llMaxBw: the GPU's row on one node, the (Intel) host's row between nodes."""
    own = _by_class(T.LL_MAX_BW, c.fabric.arch, c.cls)
    host = np.take(np.asarray(T.LL_MAX_BW_INTEL_HOST), c.cls.astype(int))
    return np.where(c.multi, host, own)


def _inter_lat(c: _Ctx, alg: str, pi: int) -> np.ndarray:
    """tuning.cc:386-391: with one GPU per node latencies are fully exposed, so the Tree network latency; plus the
    net plugin's latency (graph->latencyInter), twice for Simple (the flush)."""
    plugin = c.fabric.net_latency_us * (2 if pi == 2 else 1)
    return np.where(c.g == 1, T.NET_LATENCY_US["tree"][pi], T.NET_LATENCY_US[alg][pi]) + plugin


def _steps(collective: Collective, n):
    if collective == Collective.ALL_REDUCE:
        return 2 * (n - 1)
    if collective in (Collective.ALL_GATHER, Collective.REDUCE_SCATTER):
        return n - 1
    return n


def _ring(c: _Ctx, collective: Collective, pi: int):
    """Ring: busBw with the LL/LL128 caps, → algbw by nRanks/nsteps; latency per step."""
    bus = c.ring_bw
    if pi == 0:
        bus = np.minimum(_ll_max_bw(c), bus * 0.5)
    elif pi == 1:
        bus = np.minimum(bus * 0.92, c.channels * _by_class(T.PER_CH_MAX_RING_LL128, c.fabric.arch, c.cls))
    nsteps = _steps(collective, c.n)
    algbw = bus * c.n / nsteps
    base = T.BASE_LATENCY_US["ring"][pi]
    if collective == Collective.BROADCAST:  # not sameChannels: a chunk latency per step, Simple at Tree's
        hw_alg = "tree" if pi == 2 else "ring"
        hop = np.where(c.multi, T.NET_LATENCY_US[hw_alg][pi], T.NVLINK_LATENCY_US[hw_alg][pi])
        return algbw, base + nsteps * hop
    overhead = np.where(c.multi, T.NET_OVERHEAD_US * (3 if pi == 2 else 1), 0.0)
    intra = np.maximum(T.NVLINK_LATENCY_US["ring"][pi], overhead)
    inter_steps = np.where(c.multi, 2 * (c.nodes - 1) if collective == Collective.ALL_REDUCE else c.nodes - 1, 0)
    return algbw, base + (nsteps - inter_steps) * intra + inter_steps * _inter_lat(c, "ring", pi)


def _tree(c: _Ctx, pi: int):
    """Tree all-reduce: ×0.92 and the per-channel cap, then LL ÷3.8 / LL128 factors; algbw = busBw/2."""
    arch = c.fabric.arch
    bus = np.minimum(c.ring_bw * 0.92, c.channels * _by_class(T.PER_CH_MAX_TREE, arch, c.cls))
    if pi == 0:
        bus = np.minimum(bus / 3.8, _ll_max_bw(c))
    elif pi == 1:
        factor = np.where(c.multi, 120.0 / 128.0, 7.0 / 9.0)
        bus = np.minimum(bus * factor, c.channels * _by_class(T.PER_CH_MAX_TREE_LL128, arch, c.cls))
    hops = (c.g - 1) * T.NVLINK_LATENCY_US["tree"][pi] + c.log2_nodes * _inter_lat(c, "tree", pi)
    return bus * 0.5, T.BASE_LATENCY_US["tree"][pi] + 2 * hops


def _nvls_graph(c: _Ctx):
    """The NVLS graph (src/graph/search.cc:1127): one head per GPU (≤ 32, NCCL_MAX_NVLS_ARITY) on one node, per NIC
    between nodes — a channel each;
    bwIntra the share of a GPU's NVLink that every channel takes once and its head twice; bwInter the NIC's."""
    heads = np.where(c.multi, np.minimum(c.g, np.minimum(_arr(c.fabric.nics_per_node), T.NVLS_MAX_ARITY)),
                     np.minimum(c.g, T.NVLS_MAX_ARITY))  # fmt: skip
    bw_inter = np.where(c.multi, np.minimum(c.nic, c.speed), np.inf)  # one node: no network side
    return heads, nvls_bw_intra_gbyte_s(c.b_nvl, heads), bw_inter


def nvls_bw_intra_gbyte_s(nvlink_gbyte_s, heads):
    """NCCL v2.30.7-1 src/graph/search.cc:410-442 ncclTopoSearchTryNvls: each NVLS channel takes bwIntra on every
    GPU's NVSwitch link and 2 × bwIntra on its head's (ncclTopoFollowPath mult ``d0 == g ? 2 : 1``), so with one
    channel per head each link carries (heads + 1) × bwIntra: bwIntra = NVLink per GPU ÷ (heads + 1).
    NCCL rounds this down to its speed array (search.cc:1057) for its own estimate; measured NVLS runs at the
    link share itself (8 × H800: 215 GB/s busbw, nccl#1374; 5–7 × H100: 420/440/460, nccl#1455)."""
    return _arr(nvlink_gbyte_s) / (_arr(heads) + 1)


def _nvls(c: _Ctx, collective: Collective, alg: str):
    """NVLS / NVLSTree (tuning.cc:307-323): per channel min(bwIntra × efficiency × (nCh−1)/nCh × 2,
    bwInter [×2 for NVLS-tree on ≤ 2 nodes], NVLS-tree's per-channel cap); busBw = channels × that."""
    heads, bw_intra, bw_inter = _nvls_graph(c)
    eff = T.NVLS_EFFICIENCY[c.fabric.arch]
    intra = bw_intra * eff * (heads - 1) / np.maximum(heads, 1)
    intra = intra * (2.0 if collective == Collective.ALL_REDUCE else (c.g - 1) / c.g)
    inter = np.where((c.nodes <= 2) & (alg == "nvls_tree"), 2 * bw_inter, bw_inter)
    per_ch = np.minimum(intra, inter)
    if alg == "nvls_tree":
        per_ch = np.minimum(per_ch, _by_class(T.PER_CH_MAX_NVLS_TREE, c.fabric.arch, c.cls))
    bus = heads * per_ch
    algbw = bus * c.n / _steps(collective, c.n) if collective == Collective.ALL_REDUCE else bus
    inter_lat = _inter_lat(c, alg, 2)
    if alg == "nvls":
        lat = T.NVLINK_LATENCY_US["nvls"][2] + np.where(c.multi, inter_lat, 0.0)
    else:
        lat = T.NVLINK_LATENCY_US["nvls_tree"][2] + 2 * c.log2_nodes * inter_lat
    lat = lat + _nvls_pipeline_us(c, alg, heads, bus)
    return np.where(heads >= 2, algbw, 0.0), lat


def _nvls_pipeline_us(c: _Ctx, alg: str, heads: np.ndarray, bus: np.ndarray) -> np.ndarray:
    """The fill of NVLS's chunk pipeline: NVLS_PIPELINE_CHUNKS × chunk ÷ (busBw ÷ (channels × heads)),
    the chunk by src/enqueue.cc:285 calcCollChunking's rules for the size and never more than a head's share of the
    message."""
    nch = T.NVLS_CHANNELS[c.fabric.arch]  # NVLS runs on Hopper and Blackwell only (check_fabric)
    ops = np.where(c.multi, nch[1], nch[0]) * heads
    if alg == "nvls":
        slow = c.multi & (bus < T.NVLS_SLOW_BUSBW_GBYTE_S)
        chunk = np.where(slow, float(T.NVLS_MULTI_NODE_SLOW_CHUNK_BYTES), float(T.NVLS_CHUNK_BYTES))
        steps = T.NVLS_CHUNK_STEPS
    else:
        chunk, steps = np.full(c.shape, float(T.NVLS_TREE_CHUNK_BYTES)), T.NVLS_TREE_CHUNK_STEPS
    for times, smaller in steps:
        chunk = np.where((c.s < times * ops * chunk) & (chunk > smaller), float(smaller), chunk)
    chunk = np.minimum(chunk, c.s / ops)
    with np.errstate(divide="ignore", invalid="ignore"):  # busBw 0: the pair does not run (+inf in any case)
        return T.NVLS_PIPELINE_CHUNKS * chunk * ops / (1000 * bus)


def _collnet(c: _Ctx, alg: str):
    """CollNet (SHARP) all-reduce, Simple: graph bwIntra; Direct divides by the GPU/NIC ratio, ×0.85 on Hopper+."""
    nics = _arr(c.fabric.nics_per_node)
    bus = c.intra_bw
    intra_lat = T.NVLINK_LATENCY_US[alg][2]
    inter_lat = _inter_lat(c, alg, 2)
    if alg == "collnet_direct":
        factor = c.g / nics
        factor = factor - (factor - 1) / 2
        bus = bus / factor * (0.85 if c.fabric.arch in ("hopper", "blackwell") else 1.0)
        lat = 2 * (np.minimum(1, c.g - 1) * intra_lat + (c.g - 1) * T.COLLNET_ARITY_US) + inter_lat
    else:
        lat = 2 * (c.g - 1) * intra_lat + inter_lat
    return bus * 0.5, lat


def _pat(c: _Ctx):
    """PAT all-gather / reduce-scatter (one GPU per node): busBw ×0.75, no algbw conversion."""
    lat = T.BASE_LATENCY_US["pat"][2] + c.log2_nodes * (_inter_lat(c, "pat", 2) / 3.5) + c.n * 2.8
    return c.ring_bw * T.PAT_BW_FACTOR, lat


def _tree_correction(s: np.ndarray, pi: int, limit: int) -> np.ndarray:
    """ncclTopoGetAlgoTime: bandwidth × treeCorrectionFactor[proto][log2(bytes >> 6)] while that index < limit."""
    chunks = np.floor(s / 64)
    k = np.floor(np.log2(np.maximum(chunks, 1)))
    table = np.asarray(T.TREE_CORRECTION[T.PROTOS[pi]])
    return np.where((chunks >= 1) & (k < limit), np.take(table, np.clip(k, 0, limit - 1).astype(int)), 1.0)


def _nccl_pair(c: _Ctx, collective: Collective, alg: Algorithm, pi: int):
    """(algbw, latency) of one NCCL (algorithm, protocol) as src/graph/tuning.cc:292-337 enables it; algbw 0 = not
    run."""
    f, simple, zero = c.fabric, pi == 2, np.zeros(c.shape)
    ag_rs = collective in (Collective.ALL_GATHER, Collective.REDUCE_SCATTER)
    if collective == Collective.BROADCAST and alg != Algorithm.RING:
        return zero, zero
    if ag_rs and alg not in (Algorithm.PAT, Algorithm.RING, Algorithm.NVLS):  # CollNet AG/RS needs a plugin
        return zero, zero
    if collective == Collective.ALL_REDUCE and alg == Algorithm.PAT:
        return zero, zero
    if not simple and alg not in (Algorithm.RING, Algorithm.TREE):  # NVLS, CollNet and PAT are Simple only
        return zero, zero
    if alg == Algorithm.RING:
        return _ring(c, collective, pi)
    if alg == Algorithm.TREE:
        return _tree(c, pi)
    if alg in (Algorithm.NVLS, Algorithm.NVLS_TREE):
        if not f.nvls:
            return zero, zero
        bw, lat = _nvls(c, collective, alg.value)
        # NVLS Tree is off on one node; multi-node NVLS needs CollNet (SHARP), and AG/RS across nodes its plugin
        ok = c.multi if alg == Algorithm.NVLS_TREE else (~c.multi | (f.sharp and not ag_rs))
        return np.where(ok, bw, 0.0), lat
    if alg in (Algorithm.COLLNET_DIRECT, Algorithm.COLLNET_CHAIN):
        if not f.sharp:
            return zero, zero
        bw, lat = _collnet(c, alg.value)
        ok = c.multi & ((c.g > 1) if alg == Algorithm.COLLNET_DIRECT else True)  # Direct needs NVSwitch
        return np.where(ok, bw, 0.0), lat
    bw, lat = _pat(c)  # PAT: one GPU per node only
    return np.where(c.g == 1, bw, 0.0), lat


def _nccl_time_us(c: _Ctx, collective: Collective, alg: Algorithm, pi: int) -> np.ndarray:
    """ncclTopoGetAlgoTime: latency (× the ring plateau) + bytes ÷ (1000 × bw × the tree correction)."""
    algbw, lat = _nccl_pair(c, collective, alg, pi)
    limit = T.tree_correction_limit(alg.value, c.fabric.arch)  # x86 hosts (ASSUMPTIONS)
    if limit and collective == Collective.ALL_REDUCE:
        algbw = algbw * _tree_correction(c.s, pi, limit)
    if alg == Algorithm.RING and pi == 2 and collective == Collective.ALL_REDUCE:
        plateau = c.multi & (c.s / (c.channels * c.n) >= 64)
        lat = lat * np.where(plateau, T.RING_PLATEAU[c.fabric.arch], 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):  # algbw 0 (not run) is masked
        return np.where(algbw > 0, lat + c.s / (1000 * algbw), np.inf)


def _hierarchical_us(c: _Ctx) -> np.ndarray:
    """Two-level all-reduce (collectives.md), Ring Simple latencies: for comparison, NCCL does not run it."""
    a_nvl, a_net = T.NVLINK_LATENCY_US["ring"][2], T.NET_LATENCY_US["ring"][2]
    g, nodes, s = c.g, c.nodes, c.s
    return (
        2 * (g - 1) * a_nvl
        + 2 * (g - 1) / g * s / (1000 * c.b_nvl)
        + 2 * (nodes - 1) * a_net
        + 2 * (nodes - 1) / nodes * (s / g) / (1000 * c.node_net / g)
    )


def _pair_us(c: _Ctx, collective: Collective, alg: Algorithm, proto: Protocol):
    """One (algorithm, protocol) pair's time [µs], +inf where NCCL would not run it."""
    pi = PROTOCOLS.index(proto)
    simple = proto == Protocol.SIMPLE
    if collective == Collective.ALL_TO_ALL:
        if alg != Algorithm.PAIRWISE or not simple:
            return np.inf
        return _all_to_all_us(c)
    if alg == Algorithm.PAIRWISE:
        return np.inf
    if c.fabric.torus_dims is not None:
        return _torus_us(collective, c.s, c.fabric, pi) if alg == Algorithm.RING else np.inf
    if alg == Algorithm.HIERARCHICAL:
        return _hierarchical_us(c) if collective == Collective.ALL_REDUCE and simple else np.inf
    return _nccl_time_us(c, collective, alg, pi)


def algorithm_times_us(
    collective: Collective, size_bytes, fabric: Fabric, algorithms=NCCL_ALGORITHMS, protocols=PROTOCOLS
) -> dict[tuple[Algorithm, Protocol], np.ndarray]:
    """Time [µs] of every allowed (algorithm, protocol); disallowed pairs are +inf."""
    c = _context(check_sizes(size_bytes), fabric)
    return {
        (alg, proto): host_floor_us(
            calibrated_us(
                np.broadcast_to(_pair_us(c, Collective(collective), alg, proto), c.shape).astype(float), fabric, proto
            ),
            fabric,
        )
        for alg in algorithms
        for proto in protocols
    }


def host_floor_us(t, fabric: Fabric):
    """A call as nccl-tests times it: its iterations are launched back to back and waited for once, so a call
    takes the longer of the GPU's time and the host's enqueue + launch (Fabric.host_overhead_us; NCCL v2.30.7-1
    src/enqueue.cc:3124 ncclEnqueueCheck → ncclLaunchKernel runs on the host for every call). ∞ stays ∞; 0 = none."""
    h = fabric.host_overhead_us
    return t if h == 0.0 else np.maximum(t, h)


def calibrated_us(t, fabric: Fabric, proto: Protocol):
    """A pair's time under the fabric's calibration (topology/calibration.py), before NCCL's choice:
    t' = latency_offset_us [+ simple_latency_offset_us for Simple] + t ÷ bw_efficiency; ∞ stays ∞.
    A negative offset removes at most half of the pair's own time (t' ≥ t ÷ 2e, the floor the fit keeps
    on the sizes it sees): applied to a smaller fabric or message than the log's, it would otherwise give
    a time ≤ 0 (a −5 µs calibration on a 1-byte all-to-all of 2 GPUs: −0.6 µs).
    The identity (1, 0, 0) returns t itself, so the bare model is bit-for-bit unchanged."""
    e, a = (
        fabric.bw_efficiency,
        fabric.latency_offset_us + (fabric.simple_latency_offset_us if proto == Protocol.SIMPLE else 0.0),
    )
    if e == 1.0 and a == 0.0:
        return t
    return t / e + np.maximum(a, -0.5 * t / e)  # inf stays inf


def _all_to_all_us(c: _Ctx) -> np.ndarray:
    """Pairwise all-to-all (S = total a rank sends): one posted send/recv per peer, then the bandwidth term.

    Latency: the Simple ring hop (NVLink or network) + (n − 1) × NCCL's 1 µs network post overhead;
    bandwidth: the share of S that leaves the node over the NICs (PXN on rail-optimized fabrics), tapered."""
    s, g, nodes, n, fabric = c.s, c.g, c.nodes, c.n, c.fabric
    hop = np.where(nodes > 1, T.NET_LATENCY_US["ring"][2], T.NVLINK_LATENCY_US["ring"][2])
    lat = hop + (n - 1) * T.NET_OVERHEAD_US
    if fabric.torus_dims is not None:
        dims = fabric.torus_dims
        link = fabric.torus_link_gbps / 8 * NIC_EFF
        bis = 2 * float(np.prod(dims)) / max(dims) * link  # GB/s across the cut, one direction
        inj = 2 * sum(1 for k in dims if k > 1) * link
        return lat + np.maximum(s * (n - 1) / n / inj, (n * s / 4) / bis) / 1000
    pods = _arr(fabric.pods)
    taper = np.maximum(1.0, _arr(fabric.oversubscription) * (pods - 1) / pods)
    b_eff = c.node_net / g / taper
    # a GPU's bytes to other nodes, S(N − g)/N = S(nodes − 1)/nodes, over its share of the node's NICs; on a
    # rail-optimized fabric PXN first hops them over NVLink to the GPU on the right rail — the same bytes
    # (one node: nothing leaves it, and S(g − 1)/n = S(n − 1)/n crosses NVLink)
    t_bw = np.maximum(s * (nodes - 1) / nodes / b_eff, s * (g - 1) / n / c.b_nvl)
    return lat + t_bw / 1000


def _torus_us(collective: Collective, s, fabric: Fabric, pi: int):
    """Bidirectional ring per dimension; the message shrinks by k after each dimension."""
    dims = fabric.torus_dims  # a dimension of 1 adds no step: (1 − 1) hops, ⌊1/2⌋ = 0
    eff = (0.5, 0.92, 1.0)[pi]  # src/graph/tuning.cc:327 Ring LL ×0.5, :329 LL128 ×0.92
    link = fabric.torus_link_gbps / 8 * NIC_EFF * eff
    alpha = T.NET_LATENCY_US["ring"][pi]
    t = np.zeros_like(s)
    if collective == Collective.ALL_REDUCE:
        remaining = s
        for k in dims:  # reduce-scatter down the dimensions, then all-gather back up: 2 passes
            t = t + 2 * ((k - 1) * alpha + (k - 1) / k * remaining / (1000 * 2 * link))
            remaining = remaining / k
    elif collective in (Collective.ALL_GATHER, Collective.REDUCE_SCATTER):
        remaining = s
        for k in dims:
            t = t + (k - 1) * alpha + (k - 1) / k * remaining / (1000 * 2 * link)
            remaining = remaining / k
    else:  # broadcast along each dimension in turn, pipelined
        for k in dims:
            t = t + (k // 2) * alpha
        t = t + s / (1000 * 2 * link)
    return t


@dataclass(frozen=True)
class CollectiveCost:
    time_us: np.ndarray
    algbw_gbyte_s: np.ndarray
    busbw_gbyte_s: np.ndarray
    algorithm: np.ndarray  # str
    protocol: np.ndarray  # str


def collective_cost(
    collective: Collective, size_bytes, fabric: Fabric, algorithms=None, protocols=PROTOCOLS
) -> CollectiveCost:
    """NCCL-style: evaluate every allowed (algorithm, protocol) and keep the fastest."""
    collective = Collective(collective)
    if algorithms is None:
        algorithms = (Algorithm.PAIRWISE,) if collective == Collective.ALL_TO_ALL else NCCL_ALGORITHMS
    with np.errstate(divide="ignore", invalid="ignore"):  # single-rank points are masked below
        times = algorithm_times_us(collective, size_bytes, fabric, algorithms, protocols)
    keys = list(times)
    stack = np.stack([times[k] for k in keys])
    best = np.argmin(stack, axis=0)
    t = np.take_along_axis(stack, best[None, ...], axis=0)[0]
    s = np.broadcast_to(_arr(size_bytes), t.shape)
    n = np.broadcast_to(_arr(fabric.gpus_per_node) * _arr(fabric.node_count), t.shape)
    single = n < 2  # one rank: nothing to communicate
    t = np.where(single, 0.0, t)
    algbw, busbw = bandwidths_gbyte_s(collective, s, n, t)
    names_a = np.array([k[0].value for k in keys])
    names_p = np.array([k[1].value for k in keys])
    found = np.isfinite(t)
    algo = np.where(single, "local", np.where(found, names_a[best], "none"))
    proto = np.where(single, "none", np.where(found, names_p[best], "none"))
    return CollectiveCost(t, algbw, busbw, algo, proto)


# --- the scalar oracle -----------------------------------------------------------------------


def scalar_cost(collective: str, size_bytes: float, f: dict, algorithms=None, protocols=PROTOCOLS) -> dict:
    """One point, plain Python, the same rules: the oracle the vectorised model is tested against."""
    coll = Collective(collective)
    fab = Fabric.from_dict(f)  # the same checks as the vectorised path
    size = float(check_sizes(size_bytes))
    if algorithms is None:
        algorithms = (Algorithm.PAIRWISE,) if coll == Collective.ALL_TO_ALL else NCCL_ALGORITHMS
    g, nodes = float(fab.gpus_per_node), float(fab.node_count)
    n = g * nodes
    if n < 2:
        return {"time_us": 0.0, "algbw_gbyte_s": 0.0, "busbw_gbyte_s": 0.0, "algorithm": "local", "protocol": "none"}
    env = _scalar_env(fab, size)
    best = (math.inf, "none", "none")
    for alg in algorithms:
        for proto in protocols:
            t = calibrated_us(_scalar_pair_us(coll, alg, PROTOCOLS.index(proto), size, fab, env), fab, Protocol(proto))
            t = max(t, fab.host_overhead_us)
            if t < best[0]:
                best = (t, alg.value, proto.value)
    t, alg, proto = best
    algbw = size / (1000 * t) if math.isfinite(t) and t > 0 else 0.0
    factor = {Collective.ALL_REDUCE: 2 * (n - 1) / n}.get(coll, (n - 1) / n if coll != Collective.BROADCAST else 1.0)
    return {"time_us": t, "algbw_gbyte_s": algbw, "busbw_gbyte_s": algbw * factor, "algorithm": alg, "protocol": proto}


def _scalar_env(fab: Fabric, size: float) -> dict:
    g, nodes, nics = float(fab.gpus_per_node), float(fab.node_count), float(fab.nics_per_node)
    b_nvl, nic = float(fab.nvlink_gbyte_s), float(fab.nic_gbps) / 8 * fab.nic_efficiency
    speeds = T.SPEED_ARRAY_INTRA[fab.arch if fab.arch in T.SPEED_ARRAY_INTRA else "hopper"]
    speed = next((sp for sp in speeds if sp <= b_nvl), speeds[-1])
    per_port = math.floor(b_nvl / speed)
    intra_bw = per_port * speed if b_nvl >= speed else b_nvl
    multi = nodes > 1
    ring_bw = min(intra_bw, nics * nic) if multi else intra_bw
    channels = min(max(2 * nics if multi else 2 * per_port, 2), T.MAX_CHANNELS)
    cls = T.node_class(int(nodes))
    ll_max = T.LL_MAX_BW_INTEL_HOST[cls] if multi else T.LL_MAX_BW[fab.arch][cls] if fab.arch in T.LL_MAX_BW else 0
    return {"g": g, "nodes": nodes, "n": g * nodes, "nics": nics, "b_nvl": b_nvl, "nic": nic, "speed": speed,
            "intra_bw": intra_bw, "ring_bw": ring_bw, "channels": channels, "cls": cls, "multi": multi,
            "log2_nodes": math.floor(math.log2(nodes)), "ll_max": ll_max, "size": size}  # fmt: skip


def _scalar_pair_us(coll: Collective, alg: Algorithm, pi: int, size: float, fab: Fabric, e: dict) -> float:
    simple = pi == 2
    if coll == Collective.ALL_TO_ALL:
        return _scalar_all_to_all_us(size, fab, e) if alg == Algorithm.PAIRWISE and simple else math.inf
    if alg == Algorithm.PAIRWISE:
        return math.inf
    if fab.torus_dims is not None:
        return _scalar_torus_us(coll, size, fab, pi) if alg == Algorithm.RING else math.inf
    if alg == Algorithm.HIERARCHICAL:
        if coll != Collective.ALL_REDUCE or not simple:
            return math.inf
        g, nodes, a_nvl, a_net = e["g"], e["nodes"], T.NVLINK_LATENCY_US["ring"][2], T.NET_LATENCY_US["ring"][2]
        return (2 * (g - 1) * a_nvl + 2 * (g - 1) / g * size / (1000 * e["b_nvl"]) + 2 * (nodes - 1) * a_net
                + 2 * (nodes - 1) / nodes * (size / g) / (1000 * e["nics"] * e["nic"] / g))  # fmt: skip
    bw, lat = _scalar_nccl(coll, alg, pi, fab, e)
    if bw <= 0:
        return math.inf
    limit = T.tree_correction_limit(alg.value, fab.arch)
    if limit and coll == Collective.ALL_REDUCE and size >= 64:
        k = int(math.log2(int(size) >> 6))  # size ≥ 64: at least one 64-byte chunk
        if k < limit:
            bw *= T.TREE_CORRECTION[T.PROTOS[pi]][k]
    plateau = alg == Algorithm.RING and simple and coll == Collective.ALL_REDUCE and e["multi"]
    if plateau and size / (e["channels"] * e["n"]) >= 64:
        lat *= T.RING_PLATEAU[fab.arch]
    return lat + size / (1000 * bw)


def _scalar_enabled(coll: Collective, alg: Algorithm, pi: int, fab: Fabric, e: dict) -> bool:
    ag_rs = coll in (Collective.ALL_GATHER, Collective.REDUCE_SCATTER)
    if coll == Collective.BROADCAST and alg != Algorithm.RING:
        return False
    if ag_rs and alg not in (Algorithm.PAT, Algorithm.RING, Algorithm.NVLS):
        return False
    if coll == Collective.ALL_REDUCE and alg == Algorithm.PAT:
        return False
    if alg not in (Algorithm.RING, Algorithm.TREE) and pi != 2:
        return False
    if alg == Algorithm.NVLS:
        return fab.nvls and (not e["multi"] or (fab.sharp and not ag_rs))
    if alg == Algorithm.NVLS_TREE:
        return fab.nvls and e["multi"]
    if alg == Algorithm.COLLNET_DIRECT:
        return fab.sharp and e["multi"] and e["g"] > 1
    if alg == Algorithm.COLLNET_CHAIN:
        return fab.sharp and e["multi"]
    if alg == Algorithm.PAT:
        return e["g"] == 1
    return True


def _scalar_nccl(coll: Collective, alg: Algorithm, pi: int, fab: Fabric, e: dict) -> tuple[float, float]:
    """src/graph/tuning.cc:630 ncclTopoGetAlgoTime for one point: (algbw, latency); (0, 0) when NCCL does not run it."""
    if not _scalar_enabled(coll, alg, pi, fab, e):
        return 0.0, 0.0
    arch, cls, g, n, nodes, multi = fab.arch, e["cls"], e["g"], e["n"], e["nodes"], e["multi"]
    inter_lat = T.NET_LATENCY_US["tree" if g == 1 else alg.value][pi] + fab.net_latency_us * (2 if pi == 2 else 1)
    nsteps = 2 * (n - 1) if coll == Collective.ALL_REDUCE else (n - 1 if coll != Collective.BROADCAST else n)
    if alg == Algorithm.RING:
        bus = e["ring_bw"]
        if pi == 0:
            bus = min(e["ll_max"], bus * 0.5)
        elif pi == 1:
            bus = min(bus * 0.92, e["channels"] * T.PER_CH_MAX_RING_LL128[arch][cls])
        base = T.BASE_LATENCY_US["ring"][pi]
        if coll == Collective.BROADCAST:
            hw = "tree" if pi == 2 else "ring"
            hop = (T.NET_LATENCY_US if multi else T.NVLINK_LATENCY_US)[hw][pi]
            return bus * n / nsteps, base + nsteps * hop
        intra = max(T.NVLINK_LATENCY_US["ring"][pi], (T.NET_OVERHEAD_US * (3 if pi == 2 else 1)) if multi else 0.0)
        inter_steps = (2 * (nodes - 1) if coll == Collective.ALL_REDUCE else nodes - 1) if multi else 0
        return bus * n / nsteps, base + (nsteps - inter_steps) * intra + inter_steps * inter_lat
    if alg == Algorithm.TREE:
        bus = min(e["ring_bw"] * 0.92, e["channels"] * T.PER_CH_MAX_TREE[arch][cls])
        if pi == 0:
            bus = min(bus / 3.8, e["ll_max"])
        elif pi == 1:
            bus = min(bus * (120.0 / 128.0 if multi else 7.0 / 9.0), e["channels"] * T.PER_CH_MAX_TREE_LL128[arch][cls])
        hops = (g - 1) * T.NVLINK_LATENCY_US["tree"][pi] + e["log2_nodes"] * inter_lat
        return bus * 0.5, T.BASE_LATENCY_US["tree"][pi] + 2 * hops
    if alg in (Algorithm.NVLS, Algorithm.NVLS_TREE):
        return _scalar_nvls(coll, alg, fab, e, inter_lat, nsteps)
    if alg == Algorithm.COLLNET_DIRECT:
        factor = g / e["nics"]
        factor -= (factor - 1) / 2
        bus = e["intra_bw"] / factor * (0.85 if arch in ("hopper", "blackwell") else 1.0)
        lat = 2 * (min(1, g - 1) * T.NVLINK_LATENCY_US[alg.value][2] + (g - 1) * T.COLLNET_ARITY_US) + inter_lat
        return bus * 0.5, lat
    if alg == Algorithm.COLLNET_CHAIN:
        return e["intra_bw"] * 0.5, 2 * (g - 1) * T.NVLINK_LATENCY_US[alg.value][2] + inter_lat
    lat = T.BASE_LATENCY_US["pat"][2] + e["log2_nodes"] * (inter_lat / 3.5) + n * 2.8
    return e["ring_bw"] * T.PAT_BW_FACTOR, lat


def _scalar_nvls(coll: Collective, alg: Algorithm, fab: Fabric, e: dict, inter_lat: float, nsteps: float):
    g, nodes, multi = e["g"], e["nodes"], e["multi"]
    heads = min(g, e["nics"], T.NVLS_MAX_ARITY) if multi else min(g, T.NVLS_MAX_ARITY)
    if heads < 2:
        return 0.0, 0.0
    bw_inter = min(e["nic"], e["speed"]) if multi else math.inf
    intra = e["b_nvl"] / (heads + 1) * T.NVLS_EFFICIENCY[fab.arch] * (heads - 1) / heads
    intra *= 2.0 if coll == Collective.ALL_REDUCE else (g - 1) / g
    inter = bw_inter * (2 if (nodes <= 2 and alg == Algorithm.NVLS_TREE) else 1)
    per_ch = min(intra, inter)
    if alg == Algorithm.NVLS_TREE:
        per_ch = min(per_ch, T.PER_CH_MAX_NVLS_TREE[fab.arch][e["cls"]])
    bus = heads * per_ch
    algbw = bus * e["n"] / nsteps if coll == Collective.ALL_REDUCE else bus
    # the chunk pipeline's fill (see _nvls_pipeline_us), point by point
    ops = T.NVLS_CHANNELS[fab.arch][1 if multi else 0] * heads
    size = e["size"]
    if alg == Algorithm.NVLS:
        chunk = T.NVLS_MULTI_NODE_SLOW_CHUNK_BYTES if multi and bus < T.NVLS_SLOW_BUSBW_GBYTE_S else T.NVLS_CHUNK_BYTES
        steps = T.NVLS_CHUNK_STEPS
    else:
        chunk, steps = T.NVLS_TREE_CHUNK_BYTES, T.NVLS_TREE_CHUNK_STEPS
    for times, smaller in steps:
        if size < times * ops * chunk and chunk > smaller:
            chunk = smaller
    fill = T.NVLS_PIPELINE_CHUNKS * min(chunk, size / ops) * ops / (1000 * bus)  # bus > 0: two heads or more
    if alg == Algorithm.NVLS:
        return algbw, T.NVLINK_LATENCY_US["nvls"][2] + (inter_lat if multi else 0.0) + fill
    return algbw, T.NVLINK_LATENCY_US["nvls_tree"][2] + 2 * e["log2_nodes"] * inter_lat + fill


def _scalar_all_to_all_us(size: float, fab: Fabric, e: dict) -> float:
    g, nodes, n, b_nvl, multi = e["g"], e["nodes"], e["n"], e["b_nvl"], e["multi"]
    lat = (T.NET_LATENCY_US if multi else T.NVLINK_LATENCY_US)["ring"][2] + (n - 1) * T.NET_OVERHEAD_US
    if fab.torus_dims is not None:
        dims = fab.torus_dims
        link = fab.torus_link_gbps / 8 * NIC_EFF
        bis = 2 * math.prod(dims) / max(dims) * link
        inj = 2 * sum(1 for k in dims if k > 1) * link
        return lat + max(size * (n - 1) / n / inj, (n * size / 4) / bis) / 1000
    pods = float(fab.pods)
    taper = max(1.0, float(fab.oversubscription) * (pods - 1) / pods)
    b_eff = e["nics"] * e["nic"] / g / taper
    tb = max(size * (nodes - 1) / nodes / b_eff, size * (g - 1) / n / b_nvl)  # PXN or not: the same bytes
    return lat + tb / 1000


def _scalar_torus_us(coll: Collective, size: float, fab: Fabric, pi: int) -> float:
    dims = fab.torus_dims
    link = fab.torus_link_gbps / 8 * NIC_EFF * (0.5, 0.92, 1.0)[pi]
    alpha = T.NET_LATENCY_US["ring"][pi]
    t, rem = 0.0, size
    if coll == Collective.BROADCAST:
        return sum((k // 2) * alpha for k in dims) + size / (1000 * 2 * link)
    passes = 2 if coll == Collective.ALL_REDUCE else 1
    for k in dims:
        t += passes * ((k - 1) * alpha + (k - 1) / k * rem / (1000 * 2 * link))
        rem /= k
    return t


ASSUMPTIONS: tuple[str, ...] = (
    "Selection, bandwidths and latencies follow NCCL v2.30.7-1 (src/graph/tuning.cc:243 ncclTopoTuneModel and "
    "ncclTopoGetAlgoTime): every enabled (algorithm, protocol) is timed and the fastest runs; protocol caps, "
    "LL/LL128 factors, tree correction factors and the ring plateau are NCCL's, per GPU generation.",
    "NVLink per GPU is what NCCL counts (src/graph/topo.h:20-24): A100 12 × 20 = 240 GB/s, H100/H200 18 × 20.6 = "
    "370.8 GB/s, Blackwell 18 × 40.1 = 721.8 GB/s (an H800's 8 links: 164.8 GB/s); a NIC gives its network "
    "class's share of the line rate: InfiniBand and RoCE with adaptive routing 96 % (400G ≈ 48 GB/s), RoCE on "
    "ECMP 80 %, GPUDirect-TCPX 84 %, AWS EFA 67 % (collective_inputs.NETWORK_CLASSES, each cited).",
    "Topology search (src/graph/search.cc:1051-1067), estimated: channels run at the fastest speed of the generation's "
    "intra-node speed array that one NVLink port carries (Hopper 60, Blackwell 90, Ampere 40 GB/s), as many as "
    "fit (H100: 6 × 60 = 360 GB/s), doubled by ncclTopoDupChannels; between nodes a ring is also limited by "
    "the node's NICs together (DGX A100: 8 × 24 = 192 GB/s).",
    "NVLS (search.cc:410-442, tuning.cc:307-323): a channel per head — one per GPU (≤ 32, device.h:213 "
    "NCCL_MAX_NVLS_ARITY) on one node, on every "
    "GPU count ≥ 2 (src/transport/nvls.cc:264), one per NIC across nodes; each channel takes bwIntra on every GPU's "
    "NVSwitch link and twice on its head's, so bwIntra = NVLink per GPU ÷ (heads + 1), and busBw = heads × bwIntra "
    "× 0.85 (Hopper; Blackwell 0.74) × (heads − 1)/heads × 2: H100 4/5/6/7/8 GPUs 378/420/450/473/490 GB/s, "
    "H800 (8 links) 218, B200 831. NCCL rounds bwIntra down to its speed array and, on one node, caps it at the "
    "search's bwInter for its own estimate; measured NVLS runs at the unrounded share (nccl#1455, #1374), so the "
    "model does not round or cap on one node; across nodes bwInter is the NIC's.",
    "Hosts are x86 Intel (1 µs network post overhead, Intel llMaxBw row); LL128 is enabled (NVLink inside a "
    "node, GPUDirect NICs); CollNet needs SHARP-capable InfiniBand switches, CollNet Direct NVSwitch; "
    "multi-node NVLS needs CollNet; CollNet/NVLS all-gather and reduce-scatter across nodes need a CollNet "
    "plugin that is assumed absent; PAT runs with one GPU per node.",
    "Rings follow the topology, so oversubscription above a pod does not slow ring, tree or NVLS.",
    "All-to-all (grouped point-to-point, outside tuning.cc): one Simple hop latency + (n − 1) × 1 µs post "
    "overhead; across P pods or groups each NIC sees B_nic ÷ max(1, o·(P−1)/P); t = max(S(N−g)/N ÷ B_nic, "
    "S(g−1)/N ÷ B_nvl) — on rail-optimized fabrics PXN first hops the cross-node bytes over NVLink to the GPU "
    "on the right rail, the same bytes over the same NICs.",
    "A 3D torus runs a bidirectional ring per dimension, the message shrinking by k after each.",
    "NVLS and NVLS-tree fill a chunk pipeline before data flows at busBw: + 4 (NCCL_STEPS ÷ 2, the model's "
    "choice) × chunk ÷ (busBw ÷ (NVLS channels × heads)), the chunk by src/enqueue.cc:285's size rules (128 KiB "
    "down to 16 KiB), at most a head's share of the message (H200: 2 MiB–8 GiB within 8 % of Azure's curve).",
    "Not modelled: NCCL's per-size channel and thread reduction and the ring and tree pipelines, so "
    "mid-size ring messages (≈ 1–64 MiB) come out faster than measured (see the golden-measurement table); "
    "PCIe-only nodes; non-NVIDIA GPUs (MI300X runs RCCL) are refused.",
    "NCCL's latencies are the GPU's; nccl-tests launches its iterations back to back and waits once, so a call "
    "takes the longer of the GPU's time and the host's enqueue + kernel launch (host_overhead_us, per platform "
    "class: DGX/HGX bare metal 6 µs, cloud VM 30 µs, Grace-hosted rack 15.5 µs; collective_inputs.PLATFORM_CLASSES, "
    "each cited). It depends on the CPU, driver, NCCL release and virtualisation (Azure's A100 VM with NCCL 2.18 "
    "sits at ≈ 45 µs); a calibration from the cluster's own log carries the rest (latency_offset_us). Not "
    "modelled: a network's own small-message latency (GPUDirect-TCPXO: ≈ 123 µs at 1 KB on 2 nodes).",
    "A calibration (fitted to the cluster's own nccl-tests log, topology/calibration.py) maps every "
    "(algorithm, protocol) time before NCCL's choice: t' = latency_offset_us (+ simple_latency_offset_us on "
    "Simple) + t ÷ bw_efficiency; the latency term is stretched by 1/e too; a negative offset removes at most half "
    "of a pair's time (t' ≥ t ÷ 2e). Without one, the bare model.",
)


def assumptions() -> list[str]:
    """The model's stated assumptions, for display next to results."""
    return list(ASSUMPTIONS)
