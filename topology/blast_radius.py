"""Failure blast radius on the explicit fabric graph: what one failed switch or link takes away, and the spread of
bisection left after k random switch failures (pure: no Django).

The bisection is the max-flow from the first half of the endpoints to the second (topology/graph.py: each endpoint
injects at its NIC speed, every link full duplex). A failure removes every arc of the failed switch (or of one
cable); endpoints whose only cable went to it are cut off and inject nothing. The flow network is built once as a
sparse matrix; each failure only zeroes the capacities of its arcs in a copy of the data array and runs scipy's
Dinic max-flow again — no graph is rebuilt per case or per sample.

Single failures are evaluated for every switch (``exhaustive``) or once per *structural class* — switches of the
same tier with the same ports to each tier and the same endpoints of each half — and the class's figure given to
all its members (``by_class``); tests check both agree on small fabrics. The k-failure Monte Carlo draws k distinct
switches uniformly (numpy's seeded generator), and reports the mean bisection left with a 95 % confidence interval
(normal approximation of the sample mean: mean ± 1.96 · s / √n).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from topology.graph import FabricEdges, _integer_capacities, fabric_edges
from topology.spec import FabricPlan

Z_95 = 1.959963984540054  # the two-sided 95 % quantile of the standard normal


@dataclass(frozen=True)
class FlowNetwork:
    """The bisection max-flow problem as a CSR matrix, with each stored arc's ends for cheap failures."""

    g: FabricEdges
    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray  # int32 capacities in ``unit_gbps``
    row: np.ndarray  # the row (tail) of each stored arc
    unit_gbps: float
    source: int
    sink: int

    @classmethod
    def of(cls, g: FabricEdges) -> FlowNetwork:
        from scipy.sparse import csr_matrix

        n = g.node_count + 2
        src, dst = g.node_count, g.node_count + 1
        a, b = g.endpoint_halves()
        cap = g.capacity_gbps
        rows = np.concatenate([g.u, g.v, np.full(a.size, src), b])
        cols = np.concatenate([g.v, g.u, a, np.full(b.size, dst)])
        caps = np.concatenate([cap, cap, np.full(a.size, g.injection_gbps), np.full(b.size, g.injection_gbps)])
        scaled, unit = _integer_capacities(caps)
        m = csr_matrix((scaled, (rows, cols)), shape=(n, n))
        m.sum_duplicates()
        row = np.repeat(np.arange(n, dtype=np.int64), np.diff(m.indptr))
        return cls(g, m.indptr, m.indices, m.data.astype(np.int32), row, unit, src, dst)

    def max_flow_gbps(self, data: np.ndarray | None = None) -> float:
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import maximum_flow

        n = self.g.node_count + 2
        m = csr_matrix((self.data if data is None else data, self.indices, self.indptr), shape=(n, n))
        return float(maximum_flow(m, self.source, self.sink, method="dinic").flow_value) * self.unit_gbps

    def without_nodes(self, nodes: np.ndarray) -> np.ndarray:
        """The capacities with every arc into or out of ``nodes`` at zero."""
        dead = np.zeros(self.g.node_count + 2, dtype=bool)
        dead[nodes] = True
        out = self.data.copy()
        out[dead[self.row] | dead[self.indices]] = 0
        return out

    def without_link(self, u: int, v: int, links: int = 1) -> np.ndarray:
        """The capacities with one of the parallel cables between ``u`` and ``v`` gone (both directions)."""
        out = self.data.copy()
        per_link = self.data[(self.row == u) & (self.indices == v)]
        if per_link.size == 0:
            raise ValueError(f"no link between nodes {u} and {v}")
        gone = int(per_link[0]) // max(1, links)
        for x, y in ((u, v), (v, u)):
            out[(self.row == x) & (self.indices == y)] -= gone
        return out


@dataclass(frozen=True)
class SwitchFailure:
    tier: str
    switch: int  # the switch's number within its tier (0-based, as index_in_tier)
    members: int  # switches of its class (1 when evaluated one by one)
    bisection_left_gbps: float
    bisection_lost_frac: float
    endpoints_cut_off: int
    nodes_degraded: int  # nodes that lost at least one NIC port
    largest_intact_group_nodes: int  # the largest leaf group (scalable unit) with no NIC on the failed switch
    derivation: str


@dataclass(frozen=True)
class MonteCarlo:
    k: int
    samples: int
    seed: int
    mean_left_gbps: float
    ci95_gbps: tuple[float, float]
    quantiles_gbps: dict[str, float]
    derivation: str
    left_gbps: np.ndarray = field(repr=False)


def _endpoint_degree(g: FabricEdges) -> np.ndarray:
    deg = np.zeros(g.node_count, dtype=np.int64)
    ep = np.zeros(g.node_count, dtype=bool)
    ep[g.endpoint_nodes] = True
    np.add.at(deg, g.u[ep[g.u]], g.links[ep[g.u]])
    np.add.at(deg, g.v[ep[g.v]], g.links[ep[g.v]])
    return deg


def _signature(g: FabricEdges, half_a: np.ndarray, node: int) -> tuple:
    """A switch's structural class: tier, links to each tier, and endpoints of each half on it."""
    mask = (g.u == node) | (g.v == node)
    other = np.where(g.u[mask] == node, g.v[mask], g.u[mask])
    links = g.links[mask]
    tiers = g.node_tier[other]
    per_tier = tuple(int(links[tiers == t].sum()) for t in range(-1, len(g.tier_names)))
    eps = other[tiers == -1]
    in_a = int(half_a[eps].sum()) if eps.size else 0
    return (int(g.node_tier[node]), per_tier, in_a, int(eps.size) - in_a)


def single_switch_failures(
    plan: FabricPlan, *, nodes_of: np.ndarray | None = None, group_of: np.ndarray | None = None, by_class: bool = True
) -> tuple[float, list[SwitchFailure]]:
    """The intact bisection and, for every switch, what its failure leaves.

    ``nodes_of``: each endpoint's node (default: endpoints are their own nodes); ``group_of``: each node's leaf
    group (scalable unit), for the largest intact group. ``by_class``: one max-flow per structural class."""
    g = fabric_edges(plan)
    net = FlowNetwork.of(g)
    whole = net.max_flow_gbps()
    nodes_of = np.arange(g.endpoint_count) if nodes_of is None else np.asarray(nodes_of)
    group_of = np.zeros(int(nodes_of.max()) + 1, dtype=np.int64) if group_of is None else np.asarray(group_of)
    half_a = np.zeros(g.node_count, dtype=bool)
    half_a[g.endpoint_halves()[0]] = True
    ep_index = np.full(g.node_count, -1, dtype=np.int64)
    ep_index[g.endpoint_nodes] = np.arange(g.endpoint_count)
    ep_deg = _endpoint_degree(g)
    in_tier = g.index_in_tier()
    switches = np.flatnonzero(g.node_tier >= 0)
    cache: dict[tuple, float] = {}
    counts: dict[tuple, int] = {}
    sigs = {}
    if by_class:
        for s in switches.tolist():
            sig = _signature(g, half_a, s)
            sigs[s] = sig
            counts[sig] = counts.get(sig, 0) + 1
    out = []
    for s in switches.tolist():
        key = sigs.get(s, ("one", s))
        if key not in cache:
            cache[key] = net.max_flow_gbps(net.without_nodes(np.array([s])))
        left = cache[key]
        mask = (g.u == s) | (g.v == s)
        other = np.where(g.u[mask] == s, g.v[mask], g.u[mask])
        eps = other[g.node_tier[other] == -1]
        eps_links = g.links[mask][g.node_tier[other] == -1]
        cut = eps[eps_links >= ep_deg[eps]]
        hit_nodes = np.unique(nodes_of[ep_index[eps]]) if eps.size else np.zeros(0, dtype=np.int64)
        groups, sizes = np.unique(group_of, return_counts=True)
        hit_groups = np.unique(group_of[hit_nodes]) if hit_nodes.size else np.zeros(0, dtype=np.int64)
        intact = sizes[~np.isin(groups, hit_groups)]
        tier = g.tier_names[int(g.node_tier[s])]
        lost = 1 - left / whole if whole else 0.0
        same = f"; one of {counts[key]} switches of its class (same tier, ports and halves)" if by_class else ""
        out.append(
            SwitchFailure(
                tier=tier,
                switch=int(in_tier[s]),
                members=counts.get(key, 1),
                bisection_left_gbps=left,
                bisection_lost_frac=lost,
                endpoints_cut_off=int(cut.size),
                nodes_degraded=int(hit_nodes.size),
                largest_intact_group_nodes=int(intact.max()) if intact.size else 0,
                derivation=f"{tier} {int(in_tier[s]) + 1} fails: max-flow {whole:,.0f} → {left:,.0f} Gbit/s "
                f"({lost:.2%} of the bisection lost); {eps.size} NIC port(s) on it, {cut.size} cut off (no other "
                f"cable), {hit_nodes.size} node(s) degraded" + same,
            )
        )
    return whole, out


def monte_carlo(plan: FabricPlan, k: int, samples: int, seed: int = 1) -> MonteCarlo:
    """Bisection left after k distinct random switch failures, ``samples`` times (seeded)."""
    if k < 1 or samples < 2:
        raise ValueError(f"k ≥ 1 and at least 2 samples, got k={k}, samples={samples}")
    g = fabric_edges(plan)
    switches = np.flatnonzero(g.node_tier >= 0)
    if k > switches.size:
        raise ValueError(f"k={k} failures of {switches.size} switches")
    net = FlowNetwork.of(g)
    rng = np.random.default_rng(seed)
    left = np.empty(samples)
    for i in range(samples):
        failed = rng.choice(switches, size=k, replace=False)
        left[i] = net.max_flow_gbps(net.without_nodes(failed))
    mean = float(left.mean())
    half = Z_95 * float(left.std(ddof=1)) / math.sqrt(samples)
    q = {f"p{p}": float(np.percentile(left, p)) for p in (1, 5, 50, 95)}
    return MonteCarlo(
        k=k,
        samples=samples,
        seed=seed,
        mean_left_gbps=mean,
        ci95_gbps=(mean - half, mean + half),
        quantiles_gbps=q,
        derivation=(
            f"{samples:,} draws of {k} distinct switches of {switches.size:,} (numpy default_rng({seed})); mean "
            f"bisection left {mean:,.0f} Gbit/s, 95 % CI ± {half:,.0f} (1.96 · s / √n); p5 {q['p5']:,.0f}, "
            f"p50 {q['p50']:,.0f}"
        ),
        left_gbps=left,
    )
