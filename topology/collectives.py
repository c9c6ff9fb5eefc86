"""Cost of NCCL collectives on a design: time, algbw and busbw, algorithm and protocol.

Sources (shared/reference/collectives.md): NVIDIA/nccl ``src/graph/tuning.cc`` (v2.23–2.30)
for the latency tables, their composition, protocol efficiencies and NCCL's pick-the-fastest
selection; NVIDIA/nccl-tests ``doc/PERFORMANCE.md`` for algbw/busbw; Thakur, Rabenseifner &
Gropp (2005) and Patarasuk & Yuan (2009) for the α-β forms; the hierarchical all-reduce and
in-network (SHARP) forms as collectives.md gives them.

Everything is vectorised with numpy: pass arrays (they broadcast) and get arrays back.
``scalar_cost`` is the same model written point by point in plain Python: the test oracle.

Engineering assumptions (returned by :func:`assumptions` so the UI can show them):
- bandwidths are the effective ones NCCL's topology search settles on (H100 NVLink
  18 × 20.6 = 370.8 GB/s per GPU, A100 240; a 400G NIC ≈ 48 GB/s — 96 % of line rate);
- a multi-node ring/tree is limited by min(NVLink, the node's NICs); rings follow the
  topology, so oversubscription above a pod does not slow them;
- all-to-all across P pods/groups sees B_nic ÷ max(1, o·(P−1)/P); rail-optimized with PXN
  uses max(S(N−g)/N ÷ B_nic, S(g−1)/N ÷ B_nvl);
- a 3D torus runs a bidirectional ring per dimension, the message shrinking by k after each;
- NVLS needs NVSwitch (Hopper or newer) and more than one GPU per node; CollNet needs SHARP
  switches (InfiniBand); PAT runs with one GPU per node.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

import numpy as np


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

# tuning.cc latency tables [µs]: (base, NVLink hw, NET hw) per protocol (LL, LL128, Simple); None = not allowed
_NAN = float("nan")
LATENCY_US: dict[Algorithm, dict[str, tuple[float, float, float]]] = {
    Algorithm.TREE: {"base": (6.8, 14.0, 8.4), "nvl": (0.6, 1.25, 4.0), "net": (5.0, 8.5, 14.0)},
    Algorithm.RING: {"base": (6.6, 14.0, 8.4), "nvl": (0.6, 1.9, 3.4), "net": (2.7, 4.0, 14.0)},
    Algorithm.COLLNET_DIRECT: {"base": (0, 0, 0), "nvl": (_NAN, _NAN, 3.7), "net": (_NAN, _NAN, 31.0)},
    Algorithm.COLLNET_CHAIN: {"base": (0, 0, 0), "nvl": (_NAN, _NAN, 2.8), "net": (_NAN, _NAN, 30.0)},
    Algorithm.NVLS: {"base": (0, 0, 0), "nvl": (_NAN, _NAN, 25.0), "net": (_NAN, _NAN, 18.0)},
    Algorithm.NVLS_TREE: {"base": (0, 0, 0), "nvl": (_NAN, _NAN, 25.0), "net": (_NAN, _NAN, 20.9)},
    Algorithm.PAT: {"base": (8.0, 8.0, 8.0), "nvl": (_NAN, _NAN, 4.0), "net": (_NAN, _NAN, 14.0)},
}
# Protocol bandwidth efficiency (tuning.cc: Ring LL ×0.5, LL128 ×0.92; Tree ×0.92 before protocol caps)
PROTO_EFF = {Protocol.LL: 0.5, Protocol.LL128: 0.92, Protocol.SIMPLE: 1.0}
NET_OVERHEAD_US = 1.0  # per network step, ×3 for Simple; 0 on one node
NVLS_EFF = 0.85  # NVLS efficiency on the NVLink side (Hopper)
TREE_EFF = 0.92
NIC_EFF = 0.96  # a 400G NIC ≈ 48 GB/s, 200G ≈ 24 GB/s
SWITCH_LATENCY_US = 1.0  # per switch level, in-network reduction (α_switch)


@dataclass(frozen=True)
class GpuGeneration:
    name: str
    nvlink_gbyte_s: float  # effective per-GPU NVLink bandwidth, one direction [GB/s]
    nvls: bool  # NVLink SHARP (NVSwitch multicast)
    nvlink_domain_gpus: int | None = None  # GPUs in one NVLink domain when larger than a node (NVL72)


GPU_GENERATIONS: dict[str, GpuGeneration] = {
    "A100": GpuGeneration("A100", 240.0, False),
    "H100": GpuGeneration("H100", 370.8, True),
    "H200": GpuGeneration("H200", 370.8, True),
    "B200": GpuGeneration("B200", 741.6, True),  # NVLink 5: twice Hopper's per-GPU bandwidth (assumption)
    "GB200": GpuGeneration("GB200", 741.6, True, nvlink_domain_gpus=72),
    "B300": GpuGeneration("B300", 741.6, True),  # Blackwell Ultra: NVLink 5 as B200
    "GB300": GpuGeneration("GB300", 741.6, True, nvlink_domain_gpus=72),
}
GPU_MODEL_GENERATION = {
    "A100-SXM4-80GB": "A100",
    "H100-SXM5": "H100",
    "H200-SXM": "H200",
    "B200": "B200",
    "GB200": "GB200",
    "B300": "B300",
    "GB300": "GB300",
    "MI300X": "H100",
    "TPU-v4": "A100",
}


def nic_gbyte_s(nic_gbps: float) -> float:
    """Effective NIC bandwidth [GB/s]: 96 % of the line rate ÷ 8 (400G → 48 GB/s)."""
    return nic_gbps / 8 * NIC_EFF


def bus_factor(collective: Collective, n):
    """nccl-tests: busbw = algbw × factor."""
    n = np.asarray(n, dtype=float)
    if collective == Collective.ALL_REDUCE:
        return 2 * (n - 1) / n
    if collective in (Collective.ALL_GATHER, Collective.REDUCE_SCATTER, Collective.ALL_TO_ALL):
        return (n - 1) / n
    return np.ones_like(n)


@dataclass(frozen=True)
class Fabric:
    """What a collective sees of a design (arrays broadcast against each other)."""

    gpus_per_node: np.ndarray | int
    node_count: np.ndarray | int
    nvlink_gbyte_s: np.ndarray | float
    nics_per_node: np.ndarray | int
    nic_gbps: np.ndarray | float
    nvls: bool = True
    sharp: bool = False  # SHARP-capable (InfiniBand) switches for CollNet
    oversubscription: np.ndarray | float = 1.0  # taper above a pod / between groups
    pods: np.ndarray | int = 1  # pods (fat-tree), groups (Dragonfly+)
    rail_optimized: bool = False
    torus_dims: tuple[int, int, int] | None = None
    torus_link_gbps: float = 400.0
    switch_radix: int = 64


def _arr(x) -> np.ndarray:
    return np.asarray(x, dtype=float)


def _lat(alg: Algorithm, proto_i: int, kind: str) -> float:
    return LATENCY_US[alg][kind][proto_i]


@dataclass(frozen=True)
class _Ctx:
    """The arrays every algorithm's time needs, broadcast once."""

    s: np.ndarray  # message size [bytes]
    g: np.ndarray  # GPUs per node (NVLink domain)
    nodes: np.ndarray
    n: np.ndarray  # GPUs
    b_nvl: np.ndarray  # NVLink per GPU [GB/s]
    nic: np.ndarray  # one NIC [GB/s]
    node_net: np.ndarray  # a node's NICs together [GB/s]
    multi: np.ndarray  # more than one node
    ring_bw: np.ndarray  # ring/tree bandwidth per GPU: NVLink inside a node, the node's NICs between nodes
    log2_nodes: np.ndarray
    shape: tuple[int, ...]
    fabric: Fabric


def _context(size_bytes, fabric: Fabric) -> _Ctx:
    s, g, nodes = _arr(size_bytes), _arr(fabric.gpus_per_node), _arr(fabric.node_count)
    n = g * nodes
    b_nvl = _arr(fabric.nvlink_gbyte_s)
    nic = nic_gbyte_s(_arr(fabric.nic_gbps))
    node_net = _arr(fabric.nics_per_node) * nic
    multi = nodes > 1
    ring_bw = np.where(multi, np.minimum(b_nvl, node_net), b_nvl)
    shape = np.broadcast_shapes(s.shape, n.shape, ring_bw.shape)
    log2_nodes = np.floor(np.log2(np.maximum(nodes, 1)))
    return _Ctx(s, g, nodes, n, b_nvl, nic, node_net, multi, ring_bw, log2_nodes, shape, fabric)


def _ring_us(c: _Ctx, collective: Collective, proto: Protocol, pi: int, eff: float):
    intra = _lat(Algorithm.RING, pi, "nvl")
    net_over = np.where(c.multi, NET_OVERHEAD_US * (3 if proto == Protocol.SIMPLE else 1), 0.0)
    base, inter = _lat(Algorithm.RING, pi, "base"), _lat(Algorithm.RING, pi, "net")
    n, nodes = c.n, c.nodes
    if collective == Collective.ALL_REDUCE:
        steps, net_steps = 2 * (n - 1), 2 * (nodes - 1)
        algbw = c.ring_bw * eff * n / (2 * (n - 1))
    elif collective in (Collective.ALL_GATHER, Collective.REDUCE_SCATTER):
        steps, net_steps = n - 1, nodes - 1
        algbw = c.ring_bw * eff * n / (n - 1)  # S is the total buffer
    else:  # broadcast: a pipelined chain
        steps, net_steps = n - 1, nodes - 1
        algbw = c.ring_bw * eff
    lat = base + (steps - net_steps) * np.maximum(intra, net_over) + net_steps * inter
    return lat + c.s / (1000 * algbw)


def _tree_us(c: _Ctx, collective: Collective, pi: int, eff: float):
    intra = _lat(Algorithm.TREE, pi, "nvl")
    base, inter = _lat(Algorithm.TREE, pi, "base"), _lat(Algorithm.TREE, pi, "net")
    hops = (c.g - 1) * intra + c.log2_nodes * inter
    lat = base + (2 * hops if collective == Collective.ALL_REDUCE else hops)
    busbw = c.ring_bw * TREE_EFF * eff
    algbw = busbw * (0.5 if collective == Collective.ALL_REDUCE else 1.0)
    return lat + c.s / (1000 * algbw)


def _nvls_us(c: _Ctx, alg: Algorithm, pi: int):
    nvl_lat, inter = _lat(alg, pi, "nvl"), _lat(alg, pi, "net")
    nvls_bw = c.b_nvl * NVLS_EFF  # each GPU sends S once, the switch reduces, receives S once
    if alg == Algorithm.NVLS:
        lat = nvl_lat + np.where(c.multi, inter, 0.0)
        algbw = np.where(c.multi, np.minimum(nvls_bw, c.node_net / 2), nvls_bw)
        ok = c.g > 1
    else:
        lat = nvl_lat + 2 * c.log2_nodes * inter
        algbw = np.minimum(nvls_bw, c.node_net * TREE_EFF / 2)
        ok = (c.g > 1) & c.multi
    return np.where(ok, lat + c.s / (1000 * algbw), np.inf)


def _collnet_us(c: _Ctx, alg: Algorithm, pi: int):
    nvl_lat, inter = _lat(alg, pi, "nvl"), _lat(alg, pi, "net")
    levels = np.ceil(np.log(np.maximum(c.nodes, 2)) / np.log(max(c.fabric.switch_radix / 2, 2)))
    lat = (
        (2 * (c.g - 1) * nvl_lat if alg == Algorithm.COLLNET_CHAIN else nvl_lat)
        + inter
        + 2 * levels * SWITCH_LATENCY_US
    )
    # in-network reduction: each node sends and receives S once through its NICs
    intra_bw = np.where(c.g > 1, c.b_nvl * c.g / (2 * np.maximum(c.g - 1, 1)), np.inf)
    algbw = np.minimum(intra_bw, c.node_net)
    return np.where(c.multi, lat + c.s / (1000 * algbw), np.inf)


def _pat_us(c: _Ctx, pi: int):
    lat = _lat(Algorithm.PAT, pi, "base") + np.log2(np.maximum(c.n, 2)) * _lat(Algorithm.PAT, pi, "net")
    algbw = c.node_net * c.n / (c.n - 1)
    return np.where((c.g == 1) & c.multi, lat + c.s / (1000 * algbw), np.inf)


def _hierarchical_us(c: _Ctx, pi: int):
    a_nvl, a_net = _lat(Algorithm.RING, pi, "nvl"), _lat(Algorithm.RING, pi, "net")
    g, nodes, s = c.g, c.nodes, c.s
    per_gpu_nic = c.node_net / g
    return (
        2 * (g - 1) * a_nvl
        + 2 * (g - 1) / g * s / (1000 * c.b_nvl)
        + 2 * (nodes - 1) * a_net
        + 2 * (nodes - 1) / nodes * (s / g) / (1000 * per_gpu_nic)
    )


def _pair_us(c: _Ctx, collective: Collective, alg: Algorithm, proto: Protocol):
    """One (algorithm, protocol) pair's time [µs], +inf where NCCL would not run it."""
    pi, eff = PROTOCOLS.index(proto), PROTO_EFF[proto]
    simple = proto == Protocol.SIMPLE
    if collective == Collective.ALL_TO_ALL:
        if alg != Algorithm.PAIRWISE or not simple:
            return np.inf
        return _all_to_all_us(c.s, c.g, c.nodes, c.n, c.b_nvl, c.nic, c.node_net, c.fabric)
    if alg == Algorithm.PAIRWISE:
        return np.inf
    if c.fabric.torus_dims is not None:
        return _torus_us(collective, c.s, c.fabric, eff, pi) if alg == Algorithm.RING else np.inf
    all_reduce = collective == Collective.ALL_REDUCE
    if alg == Algorithm.RING:
        return _ring_us(c, collective, proto, pi, eff)
    if alg == Algorithm.TREE and collective in (Collective.ALL_REDUCE, Collective.BROADCAST):
        return _tree_us(c, collective, pi, eff)
    if alg in (Algorithm.NVLS, Algorithm.NVLS_TREE) and all_reduce:
        return _nvls_us(c, alg, pi) if c.fabric.nvls and simple else np.inf
    if alg in (Algorithm.COLLNET_DIRECT, Algorithm.COLLNET_CHAIN) and all_reduce:
        return _collnet_us(c, alg, pi) if c.fabric.sharp and simple else np.inf
    if alg == Algorithm.PAT and collective in (Collective.ALL_GATHER, Collective.REDUCE_SCATTER):
        return _pat_us(c, pi) if simple else np.inf
    if alg == Algorithm.HIERARCHICAL and all_reduce and simple:
        return _hierarchical_us(c, pi)
    return np.inf


def algorithm_times_us(
    collective: Collective, size_bytes, fabric: Fabric, algorithms=NCCL_ALGORITHMS, protocols=PROTOCOLS
) -> dict[tuple[Algorithm, Protocol], np.ndarray]:
    """Time [µs] of every allowed (algorithm, protocol); disallowed pairs are +inf."""
    c = _context(size_bytes, fabric)
    return {
        (alg, proto): np.broadcast_to(_pair_us(c, collective, alg, proto), c.shape).astype(float)
        for alg in algorithms
        for proto in protocols
    }


def _all_to_all_us(s, g, nodes, n, b_nvl, nic, node_net, fabric: Fabric):
    """Pairwise all-to-all: (n−1) steps of α plus the bandwidth term (S = total a rank sends)."""
    alpha = np.where(nodes > 1, LATENCY_US[Algorithm.RING]["net"][2], LATENCY_US[Algorithm.RING]["nvl"][2])
    lat = (n - 1) * alpha
    if fabric.torus_dims is not None:
        dims = fabric.torus_dims
        chips = math.prod(dims)
        link = fabric.torus_link_gbps / 8 * NIC_EFF
        bis = 2 * chips / max(dims) * link  # GB/s across the cut, one direction
        inj = 2 * sum(1 for k in dims if k > 1) * link
        return lat + np.maximum(s * (n - 1) / n / inj, (n * s / 4) / bis) / 1000
    per_gpu_nic = node_net / g
    pods = _arr(fabric.pods)
    taper = np.maximum(1.0, _arr(fabric.oversubscription) * (pods - 1) / np.maximum(pods, 1))
    b_eff = per_gpu_nic / taper
    inter = s * (nodes - 1) / nodes * 1.0  # the part of S that leaves the node
    if fabric.rail_optimized:
        # PXN: cross-node traffic first hops over NVLink to the GPU on the right rail
        t_bw = np.maximum(s * (n - g) / n / b_eff, s * (g - 1) / n / b_nvl)
    else:
        t_bw = np.maximum(inter / b_eff, s * (g - 1) / n / b_nvl)
    t_bw = np.where(nodes > 1, t_bw, s * (n - 1) / n / b_nvl)
    return lat + t_bw / 1000


def _torus_us(collective: Collective, s, fabric: Fabric, eff: float, pi: int):
    """Bidirectional ring per dimension; the message shrinks by k after each dimension."""
    dims = [k for k in fabric.torus_dims if k > 1]
    link = fabric.torus_link_gbps / 8 * NIC_EFF * eff
    alpha = LATENCY_US[Algorithm.RING]["net"][pi]
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
    ok = np.isfinite(t) & ~single
    algbw = np.where(ok, s / (1000 * np.where(ok, t, 1.0)), 0.0)
    busbw = algbw * bus_factor(collective, n)
    names_a = np.array([k[0].value for k in keys])
    names_p = np.array([k[1].value for k in keys])
    algo = np.where(single, "local", np.where(ok, names_a[best], "none"))
    proto = np.where(single, "none", np.where(ok, names_p[best], "none"))
    return CollectiveCost(t, algbw, busbw, algo, proto)


# --- the scalar oracle -----------------------------------------------------------------------


def scalar_cost(collective: str, size_bytes: float, f: dict, algorithms=None, protocols=PROTOCOLS) -> dict:
    """One point, plain Python, the same formulas: the oracle the vectorised model is tested against."""
    coll = Collective(collective)
    if algorithms is None:
        algorithms = (Algorithm.PAIRWISE,) if coll == Collective.ALL_TO_ALL else NCCL_ALGORITHMS
    g, nodes = float(f["gpus_per_node"]), float(f["node_count"])
    n = g * nodes
    if n < 2:
        return {"time_us": 0.0, "algbw_gbyte_s": 0.0, "busbw_gbyte_s": 0.0, "algorithm": "local", "protocol": "none"}
    b_nvl = float(f["nvlink_gbyte_s"])
    node_net = f["nics_per_node"] * f["nic_gbps"] / 8 * NIC_EFF
    multi = nodes > 1
    env = {"g": g, "nodes": nodes, "n": n, "b_nvl": b_nvl, "node_net": node_net, "multi": multi}
    env["ring_bw"] = min(b_nvl, node_net) if multi else b_nvl
    best = (math.inf, "none", "none")
    for alg in algorithms:
        for proto in protocols:
            t = _scalar_pair_us(coll, alg, proto, size_bytes, f, env)
            if t < best[0]:
                best = (t, alg.value, proto.value)
    t, alg, proto = best
    algbw = size_bytes / (1000 * t) if math.isfinite(t) else 0.0
    factor = {Collective.ALL_REDUCE: 2 * (n - 1) / n}.get(coll, (n - 1) / n if coll != Collective.BROADCAST else 1.0)
    return {"time_us": t, "algbw_gbyte_s": algbw, "busbw_gbyte_s": algbw * factor, "algorithm": alg, "protocol": proto}


def _scalar_pair_us(coll: Collective, alg: Algorithm, proto: Protocol, size: float, f: dict, env: dict) -> float:
    if coll == Collective.ALL_TO_ALL:
        if alg == Algorithm.PAIRWISE and proto == Protocol.SIMPLE:
            return _scalar_all_to_all_us(size, f, env)
        return math.inf
    if alg == Algorithm.PAIRWISE:
        return math.inf
    if f.get("torus_dims"):
        return _scalar_torus_us(coll, size, f, proto) if alg == Algorithm.RING else math.inf
    return _scalar_switched_us(coll, alg, proto, size, f, env)


def _scalar_all_to_all_us(size: float, f: dict, env: dict) -> float:
    g, nodes, n, b_nvl, multi = env["g"], env["nodes"], env["n"], env["b_nvl"], env["multi"]
    lat = (n - 1) * LATENCY_US[Algorithm.RING]["net" if multi else "nvl"][2]
    if f.get("torus_dims"):
        dims = f["torus_dims"]
        link = f["torus_link_gbps"] / 8 * NIC_EFF
        bis = 2 * math.prod(dims) / max(dims) * link
        inj = 2 * sum(1 for k in dims if k > 1) * link
        return lat + max(size * (n - 1) / n / inj, (n * size / 4) / bis) / 1000
    if not multi:
        return lat + size * (n - 1) / n / b_nvl / 1000
    pods = f.get("pods", 1)
    taper = max(1.0, f.get("oversubscription", 1.0) * (pods - 1) / max(pods, 1))
    b_eff = env["node_net"] / g / taper
    if f.get("rail_optimized"):
        tb = max(size * (n - g) / n / b_eff, size * (g - 1) / n / b_nvl)
    else:
        tb = max(size * (nodes - 1) / nodes / b_eff, size * (g - 1) / n / b_nvl)
    return lat + tb / 1000


def _scalar_torus_us(coll: Collective, size: float, f: dict, proto: Protocol) -> float:
    pi = PROTOCOLS.index(proto)
    dims = [k for k in f["torus_dims"] if k > 1]
    link = f["torus_link_gbps"] / 8 * NIC_EFF * PROTO_EFF[proto]
    alpha = LATENCY_US[Algorithm.RING]["net"][pi]
    t, rem = 0.0, size
    if coll == Collective.ALL_REDUCE:
        for k in dims:
            t += 2 * ((k - 1) * alpha + (k - 1) / k * rem / (1000 * 2 * link))
            rem /= k
        return t
    if coll in (Collective.ALL_GATHER, Collective.REDUCE_SCATTER):
        for k in dims:
            t += (k - 1) * alpha + (k - 1) / k * rem / (1000 * 2 * link)
            rem /= k
        return t
    return sum((k // 2) * alpha for k in dims) + size / (1000 * 2 * link)


def _scalar_switched_us(coll: Collective, alg: Algorithm, proto: Protocol, size: float, f: dict, env: dict) -> float:
    pi, eff, simple = PROTOCOLS.index(proto), PROTO_EFF[proto], proto == Protocol.SIMPLE
    g, nodes, n, b_nvl, node_net, multi = (env[k] for k in ("g", "nodes", "n", "b_nvl", "node_net", "multi"))
    ring_bw, all_reduce = env["ring_bw"], coll == Collective.ALL_REDUCE
    intra = LATENCY_US[Algorithm.RING if alg == Algorithm.RING else Algorithm.TREE]["nvl"][pi]
    lat_of = LATENCY_US[alg]
    if alg == Algorithm.RING:
        net_over = (NET_OVERHEAD_US * (3 if simple else 1)) if multi else 0.0
        if all_reduce:
            steps, nsteps, algbw = 2 * (n - 1), 2 * (nodes - 1), ring_bw * eff * n / (2 * (n - 1))
        elif coll in (Collective.ALL_GATHER, Collective.REDUCE_SCATTER):
            steps, nsteps, algbw = n - 1, nodes - 1, ring_bw * eff * n / (n - 1)
        else:
            steps, nsteps, algbw = n - 1, nodes - 1, ring_bw * eff
        lat = lat_of["base"][pi] + (steps - nsteps) * max(intra, net_over) + nsteps * lat_of["net"][pi]
        return lat + size / (1000 * algbw)
    if alg == Algorithm.TREE and coll in (Collective.ALL_REDUCE, Collective.BROADCAST):
        hops = (g - 1) * intra + math.floor(math.log2(max(nodes, 1))) * lat_of["net"][pi]
        lat = lat_of["base"][pi] + (2 * hops if all_reduce else hops)
        return lat + size / (1000 * ring_bw * TREE_EFF * eff * (0.5 if all_reduce else 1.0))
    if alg in (Algorithm.NVLS, Algorithm.NVLS_TREE) and all_reduce:
        if not (f.get("nvls", True) and simple and g > 1) or (alg == Algorithm.NVLS_TREE and not multi):
            return math.inf
        nvls_bw = b_nvl * NVLS_EFF
        if alg == Algorithm.NVLS:
            lat = lat_of["nvl"][pi] + (lat_of["net"][pi] if multi else 0.0)
            return lat + size / (1000 * (min(nvls_bw, node_net / 2) if multi else nvls_bw))
        lat = lat_of["nvl"][pi] + 2 * math.floor(math.log2(nodes)) * lat_of["net"][pi]
        return lat + size / (1000 * min(nvls_bw, node_net * TREE_EFF / 2))
    if alg in (Algorithm.COLLNET_DIRECT, Algorithm.COLLNET_CHAIN) and all_reduce:
        if not (f.get("sharp") and simple and multi):
            return math.inf
        nvl_lat = lat_of["nvl"][pi]
        levels = math.ceil(math.log(max(nodes, 2)) / math.log(max(f.get("switch_radix", 64) / 2, 2)))
        chain = 2 * (g - 1) * nvl_lat if alg == Algorithm.COLLNET_CHAIN else nvl_lat
        lat = chain + lat_of["net"][pi] + 2 * levels * SWITCH_LATENCY_US
        intra_bw = b_nvl * g / (2 * max(g - 1, 1)) if g > 1 else math.inf
        return lat + size / (1000 * min(intra_bw, node_net))
    if alg == Algorithm.PAT and coll in (Collective.ALL_GATHER, Collective.REDUCE_SCATTER):
        if not (simple and g == 1 and multi):
            return math.inf
        lat = lat_of["base"][pi] + math.log2(max(n, 2)) * lat_of["net"][pi]
        return lat + size / (1000 * node_net * n / (n - 1))
    if alg == Algorithm.HIERARCHICAL and all_reduce and simple:
        a_nvl, a_net = LATENCY_US[Algorithm.RING]["nvl"][pi], LATENCY_US[Algorithm.RING]["net"][pi]
        return (
            2 * (g - 1) * a_nvl
            + 2 * (g - 1) / g * size / (1000 * b_nvl)
            + 2 * (nodes - 1) * a_net
            + 2 * (nodes - 1) / nodes * (size / g) / (1000 * node_net / g)
        )
    return math.inf


ASSUMPTIONS: tuple[str, ...] = (
    "Bandwidths are the effective ones NCCL's topology search settles on: H100 NVLink 18 × 20.6 = 370.8 GB/s "
    "per GPU, A100 240 GB/s, B200/GB200 741.6 GB/s (assumed twice Hopper); a NIC gives 96 % of its line rate "
    "(400G ≈ 48 GB/s).",
    "A multi-node ring or tree is limited by min(NVLink, the node's NICs together).",
    "Rings follow the topology, so oversubscription above a pod does not slow ring, tree or NVLS.",
    "All-to-all across P pods or groups sees B_nic ÷ max(1, o·(P−1)/P); rail-optimized fabrics use PXN: "
    "max(S(N−g)/N ÷ B_nic, S(g−1)/N ÷ B_nvl).",
    "A 3D torus runs a bidirectional ring per dimension, the message shrinking by k after each.",
    "NVLS needs NVSwitch (Hopper or newer) and more than one GPU per node, at 85 % of NVLink; CollNet needs "
    "SHARP-capable InfiniBand switches; PAT runs with one GPU per node.",
    "Latencies are NCCL's tuning.cc tables; NCCL picks the fastest allowed (algorithm, protocol).",
)


def assumptions() -> list[str]:
    """The model's stated assumptions, for display next to results."""
    return list(ASSUMPTIONS)
