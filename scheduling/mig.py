"""MIG planner (seed S7): per-GPU layouts from a demand per profile, placements as NVIDIA allows (pure).

A GPU instance occupies memory slices ``start … start + size − 1`` of 8 (NVML
``nvmlGpuInstancePlacement_t``: start and size in memory slices); two instances on one GPU may not
share a slice. Their compute slices then add up to at most 7 without a check of their own: every shape
takes at least as many memory slices as compute slices, and the only placements that reach slice 7 (1g
with double memory at 6, 3g at 4, 7g) take more memory than compute, so 8 memory slices hold at most 7
compute slices (tests/scheduling/test_mig_layouts.py pins both premises and the conclusion).

Placements per profile, the same on A100-80GB, H100-80GB, H200 and B200 (NVIDIA MIG User Guide,
"Supported MIG Profiles", and ``nvidia-smi mig -lgipp``): 1g: starts 0–6, 1 slice;
1g (double memory): 0, 2, 4, 6, 2 slices; 2g: 0, 2, 4, 2 slices; 3g: 0, 4, 4 slices; 4g: 0, 4 slices; 7g: 0, all 8.

The seed's H100 list (1g.10gb ×7, 2g.20gb ×3, 3g.40gb ×2, 4g.40gb ×1, 7g.80gb ×1) follows from these
placements. Its example command ``nvidia-smi mig -cgi 9,14,14,19`` cannot be placed on one H100:
3g + 2g + 2g + 1g need 4 + 2 + 2 + 1 = 9 memory slices and 8 compute slices; and its comments swap
profile ids (on H100 id 9 is 3g.40gb and 19 is 1g.10gb).

The plan chooses, for the node's GPUs, layouts that satisfy the most instances (integer programme,
scipy ``milp``); among those, the fewest instances beyond the demand, then the fewest GPUs with
mixed profiles (a GPU of one profile is simpler to run: nvidia-mig-parted's ``all-1g.10gb`` style).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import yaml

from scheduling import SchedulerInputError

# placements: (memory-slice size, allowed starts); a shape's compute slices are the number before its "g"
_SHAPES = {
    "1g": (1, (0, 1, 2, 3, 4, 5, 6)),
    "1g2": (2, (0, 2, 4, 6)),
    "2g": (2, (0, 2, 4)),
    "3g": (4, (0, 4)),
    "4g": (4, (0,)),
    "7g": (8, (0,)),
}
# profile names per GPU model: shape → name (memory per slice differs by model)
_SHAPE_ORDER = ("1g", "1g2", "2g", "3g", "4g", "7g")


def _names(*names: str) -> dict[str, str]:
    return dict(zip(_SHAPE_ORDER, names, strict=True))


MIG_PROFILES: dict[str, dict[str, str]] = {
    "A100-SXM4-80GB": _names("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"),
    "H100-SXM5": _names("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"),
    "H200-SXM": _names("1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"),
    "B200": _names("1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb"),
}


@dataclass(frozen=True)
class MigGroup:
    gpus: tuple[int, ...]  # GPU indices in the node
    layout: dict[str, int]  # profile → instances per GPU


@dataclass(frozen=True)
class MigPlan:
    gpu_model: str
    gpu_count: int
    demand: dict[str, int]
    satisfied: dict[str, int]
    groups: tuple[MigGroup, ...]
    derivation: str

    @property
    def instance_count(self) -> int:
        return sum(len(g.gpus) * sum(g.layout.values()) for g in self.groups)

    def mig_parted(self, name: str = "cluster-designer") -> str:
        """An nvidia-mig-parted config (``version: v1``, ``mig-configs``) for one node."""
        entries = [
            {"devices": list(g.gpus), "mig-enabled": bool(g.layout), "mig-devices": dict(g.layout)} for g in self.groups
        ]
        config = {"version": "v1", "mig-configs": {name: entries}}
        return yaml.safe_dump(config, sort_keys=False, default_flow_style=None)


@cache
def layouts() -> tuple[dict[str, int], ...]:
    """Every distinct multiset of shapes that fits one GPU (all placements tried), the empty one included.
    Computed on first use, not at import."""
    found: set[tuple[int, ...]] = set()
    shapes = list(_SHAPES)

    def walk(used: int, counts: list[int], from_shape: int) -> None:
        found.add(tuple(counts))
        for i in range(from_shape, len(shapes)):
            size, starts = _SHAPES[shapes[i]]
            for s in starts:
                mask = ((1 << size) - 1) << s
                if not used & mask:
                    counts[i] += 1
                    walk(used | mask, counts, i)
                    counts[i] -= 1

    walk(0, [0] * len(shapes), 0)
    return tuple(dict(zip(shapes, c, strict=True)) for c in sorted(found))


def plan_mig(gpu_model: str, gpu_count: int, demand: dict[str, int]) -> MigPlan:
    """Layouts for ``gpu_count`` GPUs of one node meeting ``demand`` (profile name → instances)."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    names = MIG_PROFILES.get(gpu_model)
    if names is None:
        raise SchedulerInputError(
            {"gpu_model": f"MIG profiles are known for {', '.join(MIG_PROFILES)}; {gpu_model} is not one of them"}
        )
    shape_of = {v: k for k, v in names.items()}
    errors = {}
    if not 1 <= gpu_count <= 16:
        errors["gpu_count"] = f"GPUs per node: 1 to 16, got {gpu_count}"
    for p, n in demand.items():
        if p not in shape_of:
            errors[f"demand.{p}"] = f"not a {gpu_model} MIG profile; choose from {', '.join(names.values())}"
        elif not isinstance(n, int) or isinstance(n, bool) or n < 0:
            errors[f"demand.{p}"] = f"a whole number of instances ≥ 0, got {n!r}"
    if not any(v for v in demand.values() if isinstance(v, int)):
        errors.setdefault("demand", "ask for at least one instance")
    if errors:
        raise SchedulerInputError(errors)
    shapes = list(_SHAPES)
    want = np.array([demand.get(names[s], 0) for s in shapes], dtype=float)
    every = layouts()
    cap = np.array([[lay[s] for s in shapes] for lay in every], dtype=float)  # layouts × shapes
    mixed = np.array([sum(1 for v in lay.values() if v) > 1 for lay in every], dtype=float)
    n_l, n_s = len(every), len(shapes)
    # variables: x (GPUs per layout), y (satisfied instances per shape); minimised, in strict order of weight:
    # −10⁶ a satisfied instance, +10³ a carved one (≤ 16 GPUs × 7 = 112: 1.1 × 10⁵ < 10⁶), +1 a mixed GPU (≤ 16)
    c = np.concatenate([mixed + 1e3 * cap.sum(axis=1), np.full(n_s, -1e6)])
    a_gpus = np.concatenate([np.ones(n_l), np.zeros(n_s)])[None, :]
    a_sat = np.hstack([-cap.T, np.eye(n_s)])  # y ≤ what the chosen layouts carve
    cons = [LinearConstraint(a_gpus, gpu_count, gpu_count), LinearConstraint(a_sat, -np.inf, 0)]
    bounds = Bounds(np.zeros(n_l + n_s), np.concatenate([np.full(n_l, gpu_count), want]))
    res = milp(c, constraints=cons, bounds=bounds, integrality=np.ones(n_l + n_s))
    if not res.success:  # pragma: no cover - the programme is always feasible (all GPUs empty)
        raise SchedulerInputError({"demand": f"no layout found ({res.message})"})
    x = np.round(res.x[:n_l]).astype(int)
    y = np.round(res.x[n_l : n_l + n_s]).astype(int)
    groups = [(int(x[i]), {names[s]: int(every[i][s]) for s in shapes if every[i][s]}) for i in np.flatnonzero(x)]
    groups.sort(key=lambda g: min((_rank(shape_of, p) for p in g[1]), default=len(_SHAPES)))  # small profiles first
    renumbered, gpu = [], 0
    for count, layout in groups:
        renumbered.append(MigGroup(tuple(range(gpu, gpu + count)), layout))
        gpu += count
    satisfied = {names[s]: int(y[k]) for k, s in enumerate(shapes) if want[k]}
    short = {p: n - satisfied[p] for p, n in demand.items() if n and n > satisfied[p]}  # asked for: in satisfied
    if short:
        raise SchedulerInputError(
            {
                "demand": f"{gpu_count} × {gpu_model} cannot hold it: short by "
                + ", ".join(f"{n} × {p}" for p, n in short.items())
                + f"; at most {', '.join(f'{v} × {p}' for p, v in satisfied.items())} together"
            }
        )
    parts = [f"{len(g.gpus)} × ({' + '.join(f'{v}×{p}' for p, v in g.layout.items()) or 'no MIG'})" for g in renumbered]
    plan = MigPlan(gpu_model, gpu_count, dict(demand), satisfied, tuple(renumbered), "")
    return MigPlan(
        gpu_model,
        gpu_count,
        dict(demand),
        satisfied,
        tuple(renumbered),
        " + ".join(parts) + f" = {plan.instance_count} instances on {gpu_count} GPUs "
        "(most instances asked for, then fewest beyond the demand, then fewest mixed GPUs)",
    )


def _rank(shape_of: dict[str, str], profile: str) -> int:
    return list(_SHAPES).index(shape_of[profile])
