"""Design search: the cheapest designs that meet the requirements, across topology families (pure: no Django).

A search starts from a base design (flat requirements, as a revision stores them) and a spec:

- ``vary``: requirement fields (flat names, :data:`VARY_AXES`) → the values each may take; the candidates are
  the full grid of those values (mixed radix: candidate *i* is one combination, the last axis fastest), so a
  chunk of candidates is an index range and a worker needs nothing but the spec and two numbers;
- ``constraints`` (:data:`CONSTRAINTS`): bounds every kept candidate meets;
- ``objectives`` (:data:`OBJECTIVES`): the ranking order (first objective first, the next breaks ties);
- ``allreduce_bytes``: the message size at which the collective model prices an all-reduce.

Each candidate runs through the pipeline (:func:`cluster.pipeline.plan_cluster`) on its counts-only path (the
BOM counted per link class, no per-cable record): fabric, BOM quantities and prices, power, racks, TCO; then the
collective model's all-reduce at the chosen size. Its figures are the ones a saved revision shows
(``ClusterPlan.summary``), so a candidate saved as a revision evaluates to the same numbers.

What the search guarantees: it is **exhaustive over the stated grid**. The only candidates not planned are
duplicates — an axis that does not apply to the candidate's family (rail groups on a fat-tree) leaves the design
unchanged, so only its first value is planned and the others are counted as ``duplicate`` (a proof: the
requirements the pipeline receives are identical). No cost bound prunes anything, so no feasible design on the
grid is missed. Refusals are the engines' own field errors, counted by field.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np

from bom.plan import Catalog
from cluster.collectives import collective_fabric
from cluster.pareto import pareto_front
from cluster.pipeline import ClusterPlan, plan_cluster
from cluster.requirements import FIELD_BY_FLAT
from cluster.search_workload import apply_target, finalists, p95_wait_h, parse_target
from cluster.validate import RequirementsError, parse_field, validate_flat
from topology import Topology
from topology.collectives import Collective, Fabric, collective_cost
from topology.sweep import parse_size_bytes
from topology.switches import SWITCH_MODELS

MAX_CANDIDATES = 20_000
"""Candidates a search may have (the grid's size, duplicates included), checked from the spec before any work.
At the 16k demo's ≈ 46 candidates/s per worker, 20,000 is ≈ 7 worker-minutes."""
MAX_VALUES = 64  # values per varied axis
DEFAULT_ALLREDUCE_BYTES = 2**28  # 256 MiB: a gradient bucket's order of magnitude

RAIL, FAT, DFP, TORUS = (t.value for t in (Topology.RAIL_OPTIMIZED, Topology.FAT_TREE, Topology.DRAGONFLY_PLUS,
                                           Topology.TORUS_3D))  # fmt: skip
SWITCHED = frozenset({RAIL, FAT, DFP})
CLOS = frozenset({RAIL, FAT})
VARY_AXES: dict[str, frozenset[str]] = {
    "topology": frozenset({RAIL, FAT, DFP, TORUS}),
    "rail_groups": frozenset({RAIL}),
    "nic_planes": frozenset({RAIL}),
    "scalable_unit_nodes": frozenset({RAIL}),
    "tiers": CLOS,
    "pod_nodes": CLOS,
    "agg_oversubscription": CLOS,
    "leaves_per_group": frozenset({DFP}),
    "global_oversubscription": frozenset({DFP}),
    "switch_model": SWITCHED,
    "spine_switch_model": SWITCHED,
    "core_switch_model": CLOS,
    "oversubscription": CLOS,
    "torus_dims": frozenset({TORUS}),
    "torus_link_gbps": frozenset({TORUS}),
    "bom_media": frozenset({RAIL, FAT, DFP, TORUS}),
    "cooling_type": frozenset({RAIL, FAT, DFP, TORUS}),
}
"""A varied requirement field → the topology families it changes (on others it is a duplicate, not planned)."""

# constraint → (the figure it bounds, "min" = at least / "max" = at most, the figure's scale from the value typed)
CONSTRAINTS: dict[str, tuple[str, str, float]] = {
    "min_bisection_tbyte_s": ("bisection_tbyte_s", "min", 1.0),
    "max_oversubscription": ("oversubscription_ratio", "max", 1.0),
    "max_facility_mw": ("facility_kw", "max", 1000.0),
    "max_capex_usd": ("capex_usd", "max", 1.0),
    "max_rack_count": ("rack_count", "max", 1.0),
    "max_cable_m": ("longest_cable_m", "max", 1.0),
    "min_allreduce_busbw_gbyte_s": ("allreduce_busbw_gbyte_s", "min", 1.0),
    "max_allreduce_time_us": ("allreduce_time_us", "max", 1.0),
}
OBJECTIVES: dict[str, str] = {
    "capex_usd": "min",
    "tco_usd": "min",
    "facility_kw": "min",
    "allreduce_time_us": "min",
    "bisection_tbyte_s_per_musd": "max",
    "bisection_tbyte_s": "max",
}
FRONTS: dict[str, tuple[tuple[str, str], ...]] = {
    "cost_bisection_power": (("capex_usd", "min"), ("bisection_tbyte_s", "max"), ("facility_kw", "min")),
    "cost_allreduce": (("capex_usd", "min"), ("allreduce_time_us", "min")),
}
MONEY = ("capex_usd", "tco_usd", "network_usd")


SPEC_KEYS = frozenset({"vary", "constraints", "objectives", "allreduce_bytes", "keep_given_network", "workload_target"})
GIVEN_NETWORK = ("network_capex_usd", "network_power_kw")
"""A base design may fix its network CapEx and power "as given" (the seed's chapter figures); a search prices
each candidate's network from its own BOM instead — the point of comparing fabrics — unless the spec says
``keep_given_network: true``. A saved candidate stores the fields cleared, so it evaluates to the same figures."""


class SearchSpecError(ValueError):
    """A refused search spec; ``errors`` maps the spec's field (``vary.rail_groups``) to messages."""

    def __init__(self, errors: dict[str, list[str]]):
        self.errors = errors
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items()))


@dataclass(frozen=True)
class SearchSpec:
    base: dict[str, Any]  # flat requirements of the base design (validated)
    vary: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    constraints: tuple[tuple[str, float], ...] = ()
    objectives: tuple[str, ...] = ("capex_usd",)
    allreduce_bytes: int = DEFAULT_ALLREDUCE_BYTES
    workload_target: tuple[str, float, int] | None = None  # (job class, p95 wait [h], finalists)

    @property
    def candidate_count(self) -> int:
        return math.prod(len(values) for _, values in self.vary)

    def combo(self, index: int) -> dict[str, Any]:
        """Candidate ``index``'s varied values (mixed radix, the last axis fastest)."""
        out: dict[str, Any] = {}
        for name, values in reversed(self.vary):
            index, k = divmod(index, len(values))
            out[name] = values[k]
        return dict(reversed(out.items()))

    def positions(self, index: int) -> dict[str, int]:
        out: dict[str, int] = {}
        for name, values in reversed(self.vary):
            index, out[name] = divmod(index, len(values))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "vary": {k: list(v) for k, v in self.vary},
            "constraints": dict(self.constraints),
            "objectives": list(self.objectives),
            "allreduce_bytes": self.allreduce_bytes,
            **({"workload_target": dict(zip(("job_class", "p95_wait_h", "finalists"), self.workload_target,
                                            strict=True))} if self.workload_target else {}),
        }  # fmt: skip


# --- the spec, validated ---------------------------------------------------------------------------------------


def _vary_axis(name: str, values: Any, errors: dict[str, list[str]]) -> tuple[Any, ...] | None:
    key = f"vary.{name}"
    if name not in VARY_AXES:
        errors[key] = [f"cannot vary {name!r}; choose from {', '.join(VARY_AXES)}"]
        return None
    if not isinstance(values, list | tuple) or not values:
        errors[key] = ["give a non-empty list of values"]
        return None
    if len(values) > MAX_VALUES:
        errors[key] = [f"{len(values)} values; an axis takes at most {MAX_VALUES}"]
        return None
    out = []
    for raw in values:
        try:
            value = parse_field(FIELD_BY_FLAT[name], raw)
        except ValueError as exc:
            errors.setdefault(key, []).append(f"{raw!r}: {exc}")
            continue
        if value not in out:  # a value given twice is one candidate, not two
            out.append(value)
    return tuple(out) if key not in errors else None


def _number(raw: Any) -> float | None:
    if isinstance(raw, bool) or not isinstance(raw, int | float | str | Decimal):
        return None
    try:
        x = float(raw)
    except ValueError:
        return None
    return x if math.isfinite(x) and x >= 0 else None


def _constraints(raw: Any, errors: dict[str, list[str]]) -> tuple[tuple[str, float], ...]:
    if not isinstance(raw, Mapping):
        errors["constraints"] = ['constraints map a bound to a number, e.g. {"max_capex_usd": 2e8}']
        return ()
    out = []
    for name, value in raw.items():
        if value in (None, ""):
            continue
        if name not in CONSTRAINTS:
            errors[f"constraints.{name}"] = [f"unknown constraint; choose from {', '.join(CONSTRAINTS)}"]
            continue
        x = _number(value)
        if x is None:
            errors[f"constraints.{name}"] = [f"{value!r} is not a finite number ≥ 0"]
            continue
        out.append((name, x))
    return tuple(out)


def _objectives(raw: Any, errors: dict[str, list[str]]) -> tuple[str, ...]:
    names = [raw] if isinstance(raw, str) else raw
    if not isinstance(names, list | tuple) or not names:
        errors["objectives"] = [f"give one or more of {', '.join(OBJECTIVES)}"]
        return ()
    bad = [n for n in names if n not in OBJECTIVES]
    if bad:
        errors["objectives"] = [f"unknown objective {bad[0]!r}; choose from {', '.join(OBJECTIVES)}"]
        return ()
    return tuple(dict.fromkeys(names))


def parse_spec(base: Mapping[str, Any], raw: Any, *, limit: int = MAX_CANDIDATES) -> SearchSpec:
    """A search spec checked field by field (``vary.<field>``, ``constraints.<name>``, ``objectives``,
    ``allreduce_bytes``); the candidate count is computed from the spec alone and refused above ``limit``."""
    if not isinstance(raw, Mapping):
        raise SearchSpecError({"non_field_errors": ["a search spec is a mapping"]})
    errors: dict[str, list[str]] = {}
    unknown = set(raw) - SPEC_KEYS
    for name in sorted(unknown):
        errors[name] = [f"unknown key; a spec has {', '.join(sorted(SPEC_KEYS))}"]
    keep = raw.get("keep_given_network", False)
    if not isinstance(keep, bool):
        errors["keep_given_network"] = ["true or false"]
    vary_raw = raw.get("vary") or {}
    if not isinstance(vary_raw, Mapping):
        errors["vary"] = ["vary maps a requirement field to a list of values"]
        vary_raw = {}
    vary = [(name, _vary_axis(name, values, errors)) for name, values in vary_raw.items()]
    constraints = _constraints(raw.get("constraints") or {}, errors)
    objectives = _objectives(raw.get("objectives") or ["capex_usd"], errors)
    size = parse_size_bytes(raw.get("allreduce_bytes", DEFAULT_ALLREDUCE_BYTES))
    if size is None or not 1 <= size <= 2**40:
        errors["allreduce_bytes"] = ["a message size of 1 B … 1 TiB: bytes, or 256M / 256 MiB (binary), 256MB"]
    target = parse_target(raw.get("workload_target"), base, errors)
    if errors:
        raise SearchSpecError(errors)
    base = {**base, **({} if keep else {k: None for k in GIVEN_NETWORK})}
    spec = SearchSpec(dict(base), tuple((n, v) for n, v in vary if v), constraints, objectives, int(size or 0), target)
    count = spec.candidate_count
    if count > limit:
        sizes = " × ".join(f"{len(v)} {k}" for k, v in spec.vary)
        raise SearchSpecError(
            {"vary": [f"{count:,} candidates ({sizes}) is more than the {limit:,} a search may evaluate "
                      "(SEARCH_MAX_CANDIDATES): fewer values"]}
        )  # fmt: skip
    return spec


# --- one candidate ---------------------------------------------------------------------------------------------


def family_of(spec: SearchSpec, combo: Mapping[str, Any]) -> str:
    return str(combo.get("topology", spec.base.get("topology")))


def applied_combo(spec: SearchSpec, index: int) -> dict[str, Any]:
    """Candidate ``index``'s varied values that change its design (those of its family's axes)."""
    combo = spec.combo(index)
    family = family_of(spec, combo)
    return {k: v for k, v in combo.items() if family in VARY_AXES[k]}


def candidate_flat(spec: SearchSpec, index: int) -> dict[str, Any] | None:
    """The flat requirements of candidate ``index``, or None when it duplicates another (an axis that does not
    apply to its family at other than its first value)."""
    combo, at = spec.combo(index), spec.positions(index)
    family = family_of(spec, combo)
    if any(family not in VARY_AXES[k] and at[k] for k in combo):
        return None
    flat = dict(spec.base)
    flat.update({k: v for k, v in combo.items() if family in VARY_AXES[k]})
    model = SWITCH_MODELS.get(str(flat.get("switch_model") or ""))
    if model is not None and "switch_model" in combo:  # the model's radix and speed, as the form fills them
        flat["switch_radix"], flat["switch_port_gbps"] = model.radix, float(model.port_gbps)
    return flat


@dataclass(frozen=True)
class _CatalogLengths:
    catalog: Catalog
    length_m: dict[str, float] = field(default_factory=dict)

    @classmethod
    def of(cls, catalog: Catalog) -> _CatalogLengths:
        return cls(catalog, {p.sku: float(p.length_m) for p in catalog.parts})


def allreduce_figures(plan: ClusterPlan, size_bytes: int) -> tuple[float | None, float | None, str]:
    """The collective model's all-reduce at ``size_bytes`` on this design: time [µs], bus bandwidth [GB/s]."""
    try:
        fabric, _ = collective_fabric(plan.requirements, plan=plan.fabric)
        cost = collective_cost(Collective.ALL_REDUCE, np.array([float(size_bytes)]), Fabric.from_dict(fabric))
    except ValueError as exc:
        return None, None, f"the collective model does not cover this design: {exc}"
    t, bw = float(cost.time_us[0]), float(cost.busbw_gbyte_s[0])
    if not math.isfinite(t):
        return None, None, "the collective model gives no finite time"
    return t, bw, f"all-reduce of {size_bytes:,} B: {cost.algorithm[0]}/{cost.protocol[0]} (topology/collectives.py)"


def plan_figures(plan: ClusterPlan, size_bytes: int, lengths: dict[str, float]) -> dict[str, Any]:
    """A planned design's figures, as its saved revision reports them (``summary``) and the search's own."""
    s = plan.summary({"total_usd": str(plan.bom.total_usd())}, plan.power.to_dict())  # all summary reads of the BOM
    fab = plan.fabric
    cables = [lengths.get(ln.sku, 0.0) for ln in plan.bom.lines if ln.plane == "compute" and ln.category == "cable"]
    t_us, busbw, _ = allreduce_figures(plan, size_bytes)
    return figures_of(s, fab, cables, t_us, busbw)


def figures_of(s: dict, fab, cables: list[float], t_us: float | None, busbw: float | None) -> dict[str, Any]:
    """The search's figures from a design's summary ``s``, its compute fabric, compute cable lengths [m] and its
    all-reduce (time [µs], bus bandwidth [GB/s])."""
    capex = Decimal(s["capex_usd"])
    bisection = float(s["compute_bisection_tbyte_s"])
    oversub = fab.extras.get("oversubscription_end_to_end_ratio")
    return {
        "topology": fab.topology.value,
        "tier_count": fab.tier_count,
        "compute_switch_count": s["compute_switch_count"],
        "compute_link_count": s["compute_link_count"],
        "switch_count": s["switch_count"],
        "capex_usd": str(s["capex_usd"]),
        "tco_usd": str(s["tco_usd"]),
        "network_usd": str(s["network_total_usd"]),
        "facility_kw": float(s["facility_kw"]),
        "it_kw": float(s["it_kw"]),
        "rack_count": int(s["rack_count"]),
        "bisection_tbyte_s": bisection,
        "bisection_tbyte_s_per_musd": bisection / float(capex / 1_000_000) if capex > 0 else 0.0,
        "oversubscription_ratio": None if oversub is None else float(oversub),
        "longest_cable_m": max(cables, default=0.0),
        "allreduce_time_us": None if t_us is None else round(t_us, 3),
        "allreduce_busbw_gbyte_s": None if busbw is None else round(busbw, 3),
    }


def violations(spec: SearchSpec, figures: Mapping[str, Any]) -> list[str]:
    """The constraints a candidate breaks, each with its figure and bound (empty: it meets them all)."""
    out = []
    for name, bound in spec.constraints:
        key, sense, scale = CONSTRAINTS[name]
        value = figures.get(key)
        if value is None:
            if key != "oversubscription_ratio":  # a torus has no taper: judged by its bisection
                out.append(f"{name}: the design has no {key} (the collective model does not cover it)")
            continue
        x = float(value)
        limit = bound * scale
        if (sense == "min" and x < limit) or (sense == "max" and x > limit):
            out.append(f"{name}: {key} {x:,.6g} {'<' if sense == 'min' else '>'} {limit:,.6g}")
    return out


def evaluate_candidate(spec: SearchSpec, index: int, catalog: Catalog | None = None,
                       lengths: dict[str, float] | None = None) -> dict[str, Any]:  # fmt: skip
    """One candidate as a compact row: ``i`` index, ``s`` status (feasible / excluded / refused / duplicate),
    ``f`` figures, ``why`` (the broken constraints, or the engine's field errors)."""
    catalog = catalog or Catalog.built_in()
    flat = candidate_flat(spec, index)
    if flat is None:
        return {"i": index, "s": "duplicate"}
    return evaluate_flat(spec, flat, catalog, lengths, index)


def evaluate_flat(spec: SearchSpec, flat: dict[str, Any], catalog: Catalog,
                  lengths: dict[str, float] | None = None, index: int = -1) -> dict[str, Any]:  # fmt: skip
    lengths = lengths if lengths is not None else _CatalogLengths.of(catalog).length_m
    try:
        plan = plan_cluster(validate_flat(flat), catalog, collectives=False)  # the figures never read that table
    except RequirementsError as exc:
        return {"i": index, "s": "refused", "why": {k: " ".join(v) for k, v in exc.errors.items()}}
    figures = plan_figures(plan, spec.allreduce_bytes, lengths)
    broken = violations(spec, figures)
    return {"i": index, "s": "excluded" if broken else "feasible", "f": figures, **({"why": broken} if broken else {})}


def evaluate_range(spec: SearchSpec, start: int, stop: int, catalog: Catalog | None = None,
                   progress: Callable[[int], None] | None = None) -> list[dict[str, Any]]:  # fmt: skip
    """Candidates [start, stop) in index order (a chunk)."""
    catalog = catalog or Catalog.built_in()
    lengths = _CatalogLengths.of(catalog).length_m
    out = []
    for i in range(start, min(stop, spec.candidate_count)):
        out.append(evaluate_candidate(spec, i, catalog, lengths))
        if progress is not None:
            progress(i + 1 - start)
    return out


def chunks(count: int, size: int) -> list[tuple[int, int]]:
    return [(a, min(a + size, count)) for a in range(0, count, size)]


# --- the report ------------------------------------------------------------------------------------------------


def objective_value(row: Mapping[str, Any], name: str) -> float:
    """A row's objective as a number to minimise (a missing figure is the worst)."""
    value = row["f"].get(name)
    if value is None:
        return math.inf
    x = float(value)
    return -x if OBJECTIVES.get(name, "min") == "max" else x


def ranked(rows: Iterable[dict[str, Any]], objectives: tuple[str, ...]) -> list[dict[str, Any]]:
    """Feasible rows best first: by the first objective, ties by the next, then by index (stable)."""
    keep = [r for r in rows if r["s"] == "feasible"]
    return sorted(keep, key=lambda r: (*(objective_value(r, o) for o in objectives), r["i"]))


def decided_by(a: Mapping[str, Any], b: Mapping[str, Any] | None, objectives: tuple[str, ...]) -> str:
    """The first objective on which ``a`` beats the next-ranked ``b`` ("" for the last, "index" for a tie)."""
    if b is None:
        return ""
    for o in objectives:
        if objective_value(a, o) != objective_value(b, o):
            return o
    return "index"


def fronts(rows: list[dict[str, Any]]) -> dict[str, list[int]]:
    """Each front of :data:`FRONTS` over the feasible rows with every figure it needs: candidate indices."""
    out = {}
    for name, axes in FRONTS.items():
        pts = [r for r in rows if r["s"] == "feasible" and all(r["f"].get(k) is not None for k, _ in axes)]
        idx = pareto_front([[float(r["f"][k]) for k, _ in axes] for r in pts], [s for _, s in axes])
        out[name] = [pts[i]["i"] for i in idx]
    return out


def refusal_counts(rows: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Refused candidates by the engine's field (``gpu_count``…), and excluded ones by the constraint broken:
    a count and the first message as an example."""
    out: dict[str, dict[str, Any]] = {}
    for r in rows:
        if r["s"] == "refused":
            reasons = [(f"field:{k}", f"{k}: {m}") for k, m in r["why"].items()]
        elif r["s"] == "excluded":
            reasons = [(f"constraint:{w.partition(':')[0]}", w) for w in r["why"]]
        else:
            continue
        for key, example in reasons:
            entry = out.setdefault(key, {"count": 0, "example": example})
            entry["count"] += 1
    return dict(sorted(out.items(), key=lambda kv: -kv[1]["count"]))


def equal_view(rows: list[dict[str, Any]], key: str, bound: float | None) -> list[dict[str, Any]]:
    """Per family, among feasible candidates with ``key`` ≤ ``bound`` (the base design's budget or power): the
    best bisection and the best all-reduce time reached, and by which candidate."""
    if bound is None:
        return []
    out = []
    families = sorted({r["f"]["topology"] for r in rows if r["s"] == "feasible"})
    for fam in families:
        within = [r for r in rows if r["s"] == "feasible" and r["f"]["topology"] == fam and float(r["f"][key]) <= bound]
        best_bis = max(within, key=lambda r: (r["f"]["bisection_tbyte_s"], -r["i"]), default=None)
        timed = [r for r in within if r["f"]["allreduce_time_us"] is not None]
        best_ar = min(timed, key=lambda r: (r["f"]["allreduce_time_us"], r["i"]), default=None)
        out.append({
            "topology": fam,
            "candidates_within": len(within),
            "best_bisection_tbyte_s": best_bis and best_bis["f"]["bisection_tbyte_s"],
            "best_bisection_candidate": best_bis and best_bis["i"],
            "best_allreduce_time_us": best_ar and best_ar["f"]["allreduce_time_us"],
            "best_allreduce_candidate": best_ar and best_ar["i"],
            "p95_wait_h": None,  # the queue simulator runs on finalists only (not in this search yet)
        })  # fmt: skip
    return out


def report(
    spec: SearchSpec,
    rows: list[dict[str, Any]],
    base_row: dict[str, Any],
    top: int = 100,
    catalog: Catalog | None = None,
) -> dict[str, Any]:
    """Everything a results page shows, from the rows (every candidate's compact row) and the base design's."""
    status = {s: 0 for s in ("feasible", "excluded", "refused", "duplicate")}
    for r in rows:
        status[r["s"]] += 1
    best = ranked(rows, spec.objectives)
    table = []
    for n, r in enumerate(best[:top]):
        nxt = best[n + 1] if n + 1 < len(best) else None
        table.append(
            {
                **r,
                "rank": n + 1,
                "combo": applied_combo(spec, r["i"]),
                "decided_by": decided_by(r, nxt, spec.objectives),
            }
        )
    base_f = base_row.get("f")
    out = {
        "spec": spec.to_dict(),
        "candidate_count": spec.candidate_count,
        "counts": status,
        "guarantee": "exhaustive over the stated grid: every candidate planned except duplicates (an axis that does "
        "not apply to the family changes nothing); no bound prunes a feasible design",
        "base": base_row,
        "ranking": table,
        "best": table[0] if table else None,
        "fronts": fronts(rows),
        "refusals": refusal_counts(rows),
        "equal_budget": equal_view(rows, "capex_usd", float(base_f["capex_usd"]) if base_f else None),
        "equal_power": equal_view(rows, "facility_kw", float(base_f["facility_kw"]) if base_f else None),
    }
    if spec.workload_target is not None:  # the queue simulator on the finalists only
        job_class = spec.workload_target[0]
        picked = finalists(out, spec.workload_target[2])
        waits = {i: p95_wait_h(candidate_flat(spec, i) or {}, job_class, catalog or Catalog.built_in()) for i in picked}
        apply_target(out, waits, spec.workload_target)
    return out


Progress = Callable[[int, int, int], None]


def run_search(
    spec: SearchSpec, catalog: Catalog | None = None, progress: Progress | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The whole search in this process: (report, every row). ``progress(done, total, feasible)``."""
    catalog = catalog or Catalog.built_in()
    lengths = _CatalogLengths.of(catalog).length_m
    rows: list[dict[str, Any]] = []
    feasible = 0
    total = spec.candidate_count
    for i in range(total):
        row = evaluate_candidate(spec, i, catalog, lengths)
        feasible += row["s"] == "feasible"
        rows.append(row)
        if progress is not None:
            progress(i + 1, total, feasible)
    base_row = evaluate_flat(spec, dict(spec.base), catalog, lengths)
    return report(spec, rows, base_row, catalog=catalog), rows
