"""The seed chapter's tenancy calculators (§14.3.3, §14.6, §14.7), pure, each with its derivation.

- :func:`drf_allocation` — Dominant Resource Fairness by progressive filling (Ghodsi et al., "Dominant
  Resource Fairness: Fair Allocation of Multiple Resource Types", NSDI 2011, §4 and Algorithm 1): the
  user with the lowest dominant share (÷ its weight, for weighted DRF) gets its next task while it
  fits; a user whose next task no longer fits is done. Seed S1: 9 GPUs + 18 CPUs, A ⟨1 GPU, 4 CPU⟩,
  B ⟨3 GPU, 1 CPU⟩ → A 3 tasks, B 2, both dominant shares 2/3, 4 CPUs left.
- :func:`fair_tree_shares` — Slurm's account shares (sshare "Norm Shares"): an account's raw shares ÷
  its siblings' sum × its parent's share. Seed S2 says an account at depth d gets F / 2^d of the
  root's F; that is the case of two equal siblings at every level, not a rule: three equal siblings
  give F / 3^d, and unequal raw shares split by their ratio (the tests show both).
- :func:`packing_efficiency` — seed S3: allocated GPU slots ÷ total; below 50 % the seed says repack.
- :func:`error_budget` — seed S4 and the Google SRE Workbook, "Alerting on SLOs" (multiwindow
  burn-rate alerts): budget = (1 − SLO) × window; burn rate = error rate ÷ (1 − SLO); the page
  threshold is the budget share allowed to burn in the alert window × window ÷ alert window
  (2 % of 30 days in 1 h → 0.02 × 720 h ÷ 1 h = 14.4).
- :func:`cost_allocation` — seed S5: GPU-hours × $/GPU-h + GB-hours × $/GB-h (Decimal).
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from scheduling import SchedulerInputError

MAX_DRF_TASKS = 10_000  # progressive filling gives one task per step: bounded work, checked before it starts


@dataclass(frozen=True)
class DrfUser:
    name: str
    demand: tuple[Fraction, ...]  # per task, per resource
    weight: Fraction


@dataclass(frozen=True)
class DrfResult:
    resources: tuple[str, ...]
    tasks: dict[str, int]
    dominant_share: dict[str, Fraction]
    dominant_resource: dict[str, str]
    used: tuple[Fraction, ...]
    left: tuple[Fraction, ...]
    derivation: str


def _frac(x, field: str) -> Fraction:
    try:
        f = Fraction(str(x))
    except (ValueError, ZeroDivisionError):
        raise SchedulerInputError({field: f"must be a number, got {x!r}"}) from None
    return f


def drf_allocation(
    capacity: Mapping[str, float | int | str],
    users: Sequence[tuple[str, Mapping[str, float | int | str], float | int | str]],
) -> DrfResult:
    """DRF on ``capacity`` (resource → amount) for ``users``: (name, per-task demand, weight)."""
    resources = tuple(capacity)
    cap = tuple(_frac(capacity[r], f"capacity.{r}") for r in resources)
    errors: dict[str, str] = {}
    if not resources:
        errors["capacity"] = "name at least one resource and its amount"
    for r, c in zip(resources, cap):
        if c <= 0:
            errors[f"capacity.{r}"] = f"must be above 0, got {c}"
    parsed: list[DrfUser] = []
    for name, demand, weight in users:
        unknown = set(demand) - set(resources)
        if unknown:
            errors[f"users.{name}"] = f"asks for {', '.join(sorted(unknown))}, which the capacity does not name"
            continue
        d = tuple(_frac(demand.get(r, 0), f"users.{name}.{r}") for r in resources)
        w = _frac(weight, f"users.{name}.weight")
        if any(x < 0 for x in d) or not any(x > 0 for x in d):
            errors[f"users.{name}"] = "a task must need some of at least one resource, and no negative amount"
        elif w <= 0:
            errors[f"users.{name}.weight"] = f"must be above 0, got {w}"
        else:
            parsed.append(DrfUser(name, d, w))
    if not users:
        errors["users"] = "name at least one user and its per-task demand"
    if len({u[0] for u in users}) != len(users):
        errors["users"] = "each user once"
    if errors:
        raise SchedulerInputError(errors)
    most = _most_tasks(cap, parsed)
    if most > MAX_DRF_TASKS:
        raise SchedulerInputError(
            {"capacity": f"up to {most:,} tasks fit, more than {MAX_DRF_TASKS:,}: scale the units"}
        )
    used = [Fraction(0)] * len(resources)
    tasks = {u.name: 0 for u in parsed}
    share = {u.name: Fraction(0) for u in parsed}
    heap = [(Fraction(0), k) for k in range(len(parsed))]  # (dominant share ÷ weight, user order): ties to the first
    while heap:
        _, k = heapq.heappop(heap)
        u = parsed[k]
        if any(used[i] + u.demand[i] > cap[i] for i in range(len(resources))):
            continue  # its next task no longer fits: done
        used = [used[i] + u.demand[i] for i in range(len(resources))]
        tasks[u.name] += 1
        share[u.name] = max(tasks[u.name] * u.demand[i] / cap[i] for i in range(len(resources)))
        heapq.heappush(heap, (share[u.name] / u.weight, k))
    dominant = {u.name: resources[max(range(len(resources)), key=lambda i: u.demand[i] / cap[i])] for u in parsed}
    left = tuple(c - x for c, x in zip(cap, used))
    parts = [
        f"{u.name}: {tasks[u.name]} × ⟨{_vector(u.demand, resources)}⟩"
        f", dominant {dominant[u.name]} {fraction_text(share[u.name])}"
        + (f" (weight {fraction_text(u.weight)})" if u.weight != 1 else "")
        for u in parsed
    ]
    derivation = (
        "progressive filling (DRF, Ghodsi et al. 2011): the lowest dominant share"
        + (" ÷ weight" if any(u.weight != 1 for u in parsed) else "")
        + " gets its next task while it fits; "
        + "; ".join(parts)
        + "; left: "
        + ", ".join(f"{fraction_text(x)} {r}" for x, r in zip(left, resources))
    )
    return DrfResult(resources, tasks, share, dominant, tuple(used), left, derivation)


def _most_tasks(cap: Sequence[Fraction], users: Sequence[DrfUser]) -> int:
    """An upper bound on the tasks that fit together, so the filling's steps are known before it starts:
    the linear relaxation max Σ x_u with Σ_u demand_ur x_u ≤ capacity_r (scipy linprog)."""
    from scipy.optimize import linprog

    a = [[float(u.demand[i]) for u in users] for i in range(len(cap))]
    res = linprog([-1.0] * len(users), A_ub=a, b_ub=[float(c) for c in cap], bounds=(0, None), method="highs")
    # x = 0 is feasible and every user needs some of a resource of finite capacity: always solved
    assert res.status == 0, res.message
    return int(-res.fun + 1e-6)


def _vector(amounts: Sequence[Fraction], resources: Sequence[str]) -> str:
    return ", ".join(f"{fraction_text(a)} {r}" for a, r in zip(amounts, resources))


def fraction_text(x: Fraction) -> str:
    """2/3, or 4 for a whole number."""
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


@dataclass(frozen=True)
class Account:
    name: str
    raw_shares: Decimal
    children: tuple[Account, ...] = ()


def fair_tree_shares(root: Account, root_share: Fraction = Fraction(1)) -> dict[str, tuple[Fraction, str]]:
    """Account path → (normalised share, derivation): raw ÷ siblings' sum × the parent's share."""
    out: dict[str, tuple[Fraction, str]] = {root.name: (root_share, f"the root holds F = {fraction_text(root_share)}")}

    def walk(node: Account, path: str, share: Fraction) -> None:
        total = sum((Fraction(c.raw_shares) for c in node.children), Fraction(0))
        for c in node.children:
            if c.raw_shares <= 0:
                raise SchedulerInputError({f"accounts.{path}/{c.name}": "raw shares must be above 0"})
            mine = Fraction(c.raw_shares) / total * share
            out[f"{path}/{c.name}"] = (
                mine,
                f"{c.raw_shares} ÷ {total} (siblings' raw shares) × {fraction_text(share)} (parent) "
                f"= {fraction_text(mine)}",
            )
            walk(c, f"{path}/{c.name}", mine)

    walk(root, root.name, root_share)
    return out


def packing_efficiency(allocated_gpu_slots: int, total_gpu_slots: int) -> tuple[Fraction, bool, str]:
    """(allocated ÷ total, repack?, derivation); seed S3 repacks below 50 %."""
    if total_gpu_slots < 1:
        raise SchedulerInputError({"total_gpu_slots": "must be at least 1"})
    if not 0 <= allocated_gpu_slots <= total_gpu_slots:
        raise SchedulerInputError({"allocated_gpu_slots": f"must be 0 to {total_gpu_slots:,}"})
    eff = Fraction(allocated_gpu_slots, total_gpu_slots)
    repack = eff < Fraction(1, 2)
    return (
        eff,
        repack,
        f"{allocated_gpu_slots:,} allocated ÷ {total_gpu_slots:,} slots = {float(eff):.1%}"
        + ("; below 50 %: repack (seed S3)" if repack else "; at or above 50 %: leave as is (seed S3)"),
    )


@dataclass(frozen=True)
class ErrorBudget:
    budget_min: Decimal
    burn_rate: Decimal
    page_threshold: Decimal
    page: bool
    derivation: str


def error_budget(
    slo_pct: Decimal,
    window_days: Decimal,
    error_rate_pct: Decimal,
    alert_window_h: Decimal = Decimal(1),
    budget_spent_pct: Decimal = Decimal(2),
) -> ErrorBudget:
    """Seed S4: SLO 99.9 % over 30 days → 43.2 min; 2 % errors against 0.1 % allowed → burn 20; page ≥ 14.4."""
    errors = {}
    if not Decimal(0) < slo_pct < Decimal(100):
        errors["slo_pct"] = "must be between 0 and 100 (exclusive)"
    for name, v in (("window_days", window_days), ("alert_window_h", alert_window_h)):
        if v <= 0:
            errors[name] = "must be above 0"
    if not Decimal(0) <= error_rate_pct <= Decimal(100):
        errors["error_rate_pct"] = "must be 0 to 100"
    if not Decimal(0) < budget_spent_pct <= Decimal(100):
        errors["budget_spent_pct"] = "must be above 0 and at most 100"
    if errors:
        raise SchedulerInputError(errors)
    allowed = (Decimal(100) - slo_pct) / 100
    budget_min = allowed * window_days * 24 * 60
    burn = (error_rate_pct / 100) / allowed
    window_h = window_days * 24
    threshold = budget_spent_pct / 100 * window_h / alert_window_h
    budget_min, burn, threshold = _plain(budget_min), _plain(burn), _plain(threshold)
    return ErrorBudget(
        budget_min,
        burn,
        threshold,
        burn >= threshold,
        f"budget = (1 − {slo_pct} %) × {window_days} d × 1,440 min = {budget_min} min; "
        f"burn = {error_rate_pct} % ÷ {_plain(allowed * 100)} % = {burn}; page at "
        f"{budget_spent_pct} % of the budget in {alert_window_h} h = {_plain(budget_spent_pct / 100)} × "
        f"{_plain(window_h)} h ÷ {alert_window_h} h = {threshold} → {'page' if burn >= threshold else 'no page'}",
    )


def _plain(x: Decimal) -> Decimal:
    """Trailing zeros dropped, never an exponent (20, not 2E+1)."""
    n = x.normalize()
    return Decimal(int(n)) if n == n.to_integral_value() else n


def cost_allocation(
    gpu_hours: Decimal, usd_per_gpu_hour: Decimal, storage_gb_hours: Decimal, usd_per_gb_hour: Decimal
) -> tuple[Decimal, str]:
    """Seed S5: 12,800 GPU-h × $8 + 1,024,000 GB-h × $0.05 = $153,600."""
    errors = {
        k: "must be 0 or more"
        for k, v in (
            ("gpu_hours", gpu_hours),
            ("usd_per_gpu_hour", usd_per_gpu_hour),
            ("storage_gb_hours", storage_gb_hours),
            ("usd_per_gb_hour", usd_per_gb_hour),
        )
        if v < 0
    }
    if errors:
        raise SchedulerInputError(errors)
    gpu, disk = gpu_hours * usd_per_gpu_hour, storage_gb_hours * usd_per_gb_hour
    total = gpu + disk
    return total, (
        f"{gpu_hours:,} GPU-h × ${usd_per_gpu_hour} = ${gpu:,} + {storage_gb_hours:,} GB-h × ${usd_per_gb_hour} "
        f"= ${disk:,} → ${total:,}"
    )
