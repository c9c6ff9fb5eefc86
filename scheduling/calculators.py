"""The tenancy, MIG and RoCE calculators behind one door (pure): ``run(name, inputs) -> result``.

Inputs come from a form (strings) or the API (JSON); both go through the same parsing, and every
refusal is a :class:`SchedulerInputError` keyed by the input's name. Text inputs use small
notations a person can type: ``gpu=9, cpu=18`` (amounts), one user per line ``A: gpu=1, cpu=4,
weight=1``, one account per line ``nlp/llm 40`` (path and raw shares).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from scheduling import SchedulerInputError
from scheduling.mig import MIG_PROFILES, plan_mig
from scheduling.roce import roce_tuning
from scheduling.roce import to_dict as roce_to_dict
from scheduling.tenancy import (
    Account,
    cost_allocation,
    drf_allocation,
    error_budget,
    fair_tree_shares,
    fraction_text,
    packing_efficiency,
)

MAX_TEXT = 20_000
MAX_ITEMS = 200
MAX_USERS = 50


@dataclass(frozen=True)
class Input:
    name: str
    label: str
    kind: str  # "int" | "decimal" | "real" | "text" | "choice"
    default: Any
    choices: tuple[str, ...] = ()
    json_types: tuple[str, ...] = ("string",)  # a text input's JSON types in the API (a notation or its object)

    def schema(self) -> dict[str, Any]:
        """The input's JSON schema in the API."""
        if self.kind == "int":
            return {"type": "integer"}
        if self.kind in ("decimal", "real"):
            return {"type": "number"}
        if self.kind == "choice":
            return {"type": "string", "enum": list(self.choices)}
        if len(self.json_types) == 1:
            return {"type": self.json_types[0]}
        return {"oneOf": [{"type": t} for t in self.json_types]}

    def json_type_ok(self, value: Any) -> bool:
        if isinstance(value, bool):
            return False
        if self.kind == "int":
            return isinstance(value, int) or (isinstance(value, Decimal) and value == value.to_integral_value())
        if self.kind in ("decimal", "real"):
            return isinstance(value, int | float | Decimal)
        if self.kind == "choice":
            return isinstance(value, str)
        kinds = {"string": str, "object": Mapping, "array": list}
        return any(isinstance(value, kinds[t]) for t in self.json_types)


def request_schema(name: str) -> dict[str, Any]:
    """The API body of one calculator: its inputs, each optional (the defaults are the seed's figures)."""
    calc = CALCULATORS[name]
    return {
        "type": "object",
        "properties": {i.name: {**i.schema(), "description": i.label} for i in calc.inputs},
        "additionalProperties": False,
    }


def json_type_errors(name: str, body: Any) -> dict[str, str]:
    """Malformed API bodies (400): not an object, an unknown input, a value of the wrong JSON type."""
    if not isinstance(body, Mapping):
        return {"body": "a JSON object of the calculator's inputs"}
    calc = CALCULATORS[name]
    inputs = {i.name: i for i in calc.inputs}
    errors = {}
    for k, v in body.items():
        if k not in inputs:
            errors[k] = f"unknown input; {calc.name} takes {', '.join(sorted(inputs))}"
        elif not inputs[k].json_type_ok(v):
            errors[k] = f"must be {inputs[k].schema().get('type') or ' or '.join(inputs[k].json_types)}"
    return errors


def _number(kind: str, name: str, raw: Any) -> Any:
    if isinstance(raw, bool) or raw is None or (isinstance(raw, str) and not raw.strip()):
        raise SchedulerInputError({name: "required"})
    text = str(raw).strip()
    if kind == "int":
        if not re.fullmatch(r"[+-]?[0-9]{1,12}", text):  # (a float's text has a '.' or an exponent: refused)
            raise SchedulerInputError({name: f"a whole number, got {raw!r}"})
        return int(text)
    if not re.fullmatch(r"[+-]?([0-9]{1,15}(\.[0-9]{0,9})?|\.[0-9]{1,9})([eE][+-]?[0-9]{1,3})?", text):
        raise SchedulerInputError({name: f"a number, got {raw!r}"})
    value = Decimal(text)
    if not value.is_finite():
        raise SchedulerInputError({name: f"a finite number, got {raw!r}"})
    return value if kind == "decimal" else float(value)


def _amounts(name: str, text: Any) -> dict[str, str]:
    """``gpu=9, cpu=18`` (or a JSON object) → {resource: amount as text}."""
    if isinstance(text, Mapping):
        items = list(text.items())
    elif isinstance(text, str):
        items = []
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, sep, value = part.partition("=")
            if not sep or not re.fullmatch(r"[A-Za-z0-9][\w.\-]{0,40}", key.strip()):
                raise SchedulerInputError({name: f"write name=amount pairs separated by commas; {part!r} is not one"})
            items.append((key.strip(), value.strip()))
    else:
        raise SchedulerInputError({name: "name=amount pairs, or an object of amounts"})
    if len(items) > MAX_ITEMS:
        raise SchedulerInputError({name: f"at most {MAX_ITEMS} entries"})
    out = {}
    for key, value in items:
        out[str(key)] = str(_number("real", f"{name}.{key}", value))
    return out


def _drf(v: Mapping[str, Any]) -> dict[str, Any]:
    capacity = _amounts("capacity", v.get("capacity", ""))
    users_raw = v.get("users", "")
    users = []
    if isinstance(users_raw, str):
        for line in filter(None, (ln.strip() for ln in users_raw.splitlines())):
            uname, sep, rest = line.partition(":")
            if not sep or not uname.strip():
                raise SchedulerInputError({"users": f"one user a line, 'name: gpu=1, cpu=4[, weight=2]'; not {line!r}"})
            demand = _amounts(f"users.{uname.strip()}", rest)
            weight = demand.pop("weight", "1")
            users.append((uname.strip(), demand, weight))
    elif isinstance(users_raw, list):
        for u in users_raw:
            if not isinstance(u, Mapping) or "name" not in u:
                raise SchedulerInputError({"users": "a list of {name, demand, weight}"})
            users.append((str(u["name"]), _amounts(f"users.{u['name']}", u.get("demand", {})), u.get("weight", 1)))
    else:
        raise SchedulerInputError({"users": "one user a line, or a list of {name, demand, weight}"})
    if len(users) > MAX_USERS:
        raise SchedulerInputError({"users": f"at most {MAX_USERS} users"})
    r = drf_allocation(capacity, users)
    return {
        "tasks": r.tasks,
        "dominant_share": {k: fraction_text(s) for k, s in r.dominant_share.items()},
        "dominant_resource": r.dominant_resource,
        "left": {res: fraction_text(x) for res, x in zip(r.resources, r.left, strict=True)},
        "derivation": r.derivation,
    }


def _fair_tree(v: Mapping[str, Any]) -> dict[str, Any]:
    raw = v.get("accounts", "")
    pairs: list[tuple[str, str]] = []
    if isinstance(raw, Mapping):
        pairs = [(str(k), str(x)) for k, x in raw.items()]
    elif isinstance(raw, str):
        for line in filter(None, (ln.strip() for ln in raw.splitlines())):
            parts = line.split()
            if len(parts) != 2:
                raise SchedulerInputError({"accounts": f"one account a line, 'path shares' (nlp/llm 40); not {line!r}"})
            pairs.append((parts[0], parts[1]))
    else:
        raise SchedulerInputError({"accounts": "one account a line, or an object of path → raw shares"})
    if not pairs or len(pairs) > MAX_ITEMS:
        raise SchedulerInputError({"accounts": f"1 to {MAX_ITEMS} accounts"})
    tree: dict[str, Any] = {}
    for path, shares in pairs:
        if not re.fullmatch(r"[A-Za-z0-9_\-]+(/[A-Za-z0-9_\-]+)*", path):
            raise SchedulerInputError({"accounts": f"{path!r}: an account path is names joined by '/'"})
        node = tree
        names = path.split("/")
        for name in names[:-1]:
            if name not in node:
                raise SchedulerInputError({"accounts": f"{path!r}: list its parent {name!r} first"})
            node = node[name][1]
        if names[-1] in node:
            raise SchedulerInputError({"accounts": f"{path!r} is listed twice"})
        node[names[-1]] = (_number("decimal", f"accounts.{path}", shares), {})

    def build(name: str, shares: Decimal, kids: dict) -> Account:
        return Account(name, shares, tuple(build(k, s, c) for k, (s, c) in kids.items()))

    root = build("root", Decimal(1), tree)
    out = fair_tree_shares(root)
    return {
        "shares": {k.removeprefix("root/"): float(s) for k, (s, _) in out.items() if k != "root"},
        "derivations": {k.removeprefix("root/"): d for k, (_, d) in out.items() if k != "root"},
    }


def _error_budget(v: Mapping[str, Any]) -> dict[str, Any]:
    b = error_budget(
        _number("decimal", "slo_pct", v.get("slo_pct")),
        _number("decimal", "window_days", v.get("window_days")),
        _number("decimal", "error_rate_pct", v.get("error_rate_pct")),
        _number("decimal", "alert_window_h", v.get("alert_window_h")),
        _number("decimal", "budget_spent_pct", v.get("budget_spent_pct")),
    )
    return {
        "budget_min": str(b.budget_min),
        "burn_rate": str(b.burn_rate),
        "page_threshold": str(b.page_threshold),
        "page": b.page,
        "derivation": b.derivation,
    }


def _cost(v: Mapping[str, Any]) -> dict[str, Any]:
    total, why = cost_allocation(*(_number("decimal", k, v.get(k)) for k in COST_INPUTS))
    return {"total_usd": str(total), "derivation": why}


COST_INPUTS = ("gpu_hours", "usd_per_gpu_hour", "storage_gb_hours", "usd_per_gb_hour")


def _packing(v: Mapping[str, Any]) -> dict[str, Any]:
    eff, repack, why = packing_efficiency(
        _number("int", "allocated_gpu_slots", v.get("allocated_gpu_slots")),
        _number("int", "total_gpu_slots", v.get("total_gpu_slots")),
    )
    return {"efficiency_frac": float(eff), "repack": repack, "derivation": why}


def _mig(v: Mapping[str, Any]) -> dict[str, Any]:
    model = str(v.get("gpu_model", ""))
    demand_raw = _amounts("demand", v.get("demand", ""))
    demand = {}
    for p, n in demand_raw.items():
        x = float(n)
        if not x.is_integer():
            raise SchedulerInputError({f"demand.{p}": f"a whole number of instances, got {n}"})
        demand[p] = int(x)
    p = plan_mig(model, _number("int", "gpu_count", v.get("gpu_count")), demand)
    return {
        "groups": [{"gpus": list(g.gpus), "layout": g.layout} for g in p.groups],
        "instance_count": p.instance_count,
        "satisfied": p.satisfied,
        "mig_parted": p.mig_parted(),
        "derivation": p.derivation,
    }


def _roce(v: Mapping[str, Any]) -> dict[str, Any]:
    t = roce_tuning(
        link_gbps=_number("real", "link_gbps", v.get("link_gbps")),
        cable_m=_number("real", "cable_m", v.get("cable_m")),
        switch_buffer_mb=_number("real", "switch_buffer_mb", v.get("switch_buffer_mb")),
        switch_ports=_number("int", "switch_ports", v.get("switch_ports")),
        lossless_priorities=_number("int", "lossless_priorities", v.get("lossless_priorities")),
        mtu_bytes=_number("int", "mtu_bytes", v.get("mtu_bytes")),
        base_rtt_us=_number("real", "base_rtt_us", v.get("base_rtt_us")),
        response_ns=_number("real", "response_ns", v.get("response_ns")),
    )
    return roce_to_dict(t)


@dataclass(frozen=True)
class Calculator:
    name: str
    title: str
    source: str
    inputs: tuple[Input, ...]
    run: Callable[[Mapping[str, Any]], dict[str, Any]]


CALCULATORS: dict[str, Calculator] = {
    c.name: c
    for c in (
        Calculator("drf", "Dominant Resource Fairness", "seed S1; Ghodsi et al., NSDI 2011", (
            Input("capacity", "Capacity (name=amount, …)", "text", "gpu=9, cpu=18", (), ("string", "object")),
            Input("users", "Users, one a line (name: resource=amount, …, weight=w)", "text",
                  "A: gpu=1, cpu=4\nB: gpu=3, cpu=1", (), ("string", "array")),
        ), _drf),
        Calculator("fair-tree", "Fair Tree shares", "seed S2; Slurm sshare Norm Shares", (
            Input("accounts", "Accounts, one a line (path raw-shares)", "text",
                  "a 1\nb 1\na/a1 1\na/a2 1\na/a1/x 1\na/a1/y 1", (), ("string", "object")),
        ), _fair_tree),
        Calculator("packing", "Packing efficiency", "seed S3", (
            Input("allocated_gpu_slots", "Allocated GPU slots", "int", 31),
            Input("total_gpu_slots", "Total GPU slots", "int", 64),
        ), _packing),
        Calculator("error-budget", "SLO error budget and burn rate", "seed S4; Google SRE Workbook, Alerting on SLOs", (
            Input("slo_pct", "SLO [%]", "decimal", "99.9"),
            Input("window_days", "SLO window [days]", "decimal", "30"),
            Input("error_rate_pct", "Error rate in the alert window [%]", "decimal", "2"),
            Input("alert_window_h", "Alert window [h]", "decimal", "1"),
            Input("budget_spent_pct", "Budget share that pages when burnt in the alert window [%]", "decimal", "2"),
        ), _error_budget),
        Calculator("cost", "Cost allocation", "seed S5", (
            Input("gpu_hours", "GPU-hours", "decimal", "12800"),
            Input("usd_per_gpu_hour", "$ per GPU-hour", "decimal", "8"),
            Input("storage_gb_hours", "Storage GB-hours", "decimal", "1024000"),
            Input("usd_per_gb_hour", "$ per GB-hour", "decimal", "0.05"),
        ), _cost),
        Calculator("mig", "MIG planner", "seed S7; NVIDIA MIG User Guide", (
            Input("gpu_model", "GPU model", "choice", "H100-SXM5", tuple(MIG_PROFILES)),
            Input("gpu_count", "GPUs in the node", "int", 8),
            Input("demand", "Instances wanted (profile=count, …)", "text", "1g.10gb=28, 2g.20gb=6, 3g.40gb=4", (),
                  ("string", "object")),
        ), _mig),
        Calculator("roce", "RoCE tuning sheet", "seed S8; IEEE 802.1Qbb Annex N; DCQCN (SIGCOMM 2015)", (
            Input("link_gbps", "Link speed [Gbit/s]", "real", 400),
            Input("cable_m", "Longest cable [m]", "real", 30),
            Input("switch_buffer_mb", "Switch packet buffer [MB]", "real", 100),
            Input("switch_ports", "Switch ports", "int", 64),
            Input("lossless_priorities", "Lossless priorities", "int", 1),
            Input("mtu_bytes", "RoCE MTU [B]", "int", 4096),
            Input("base_rtt_us", "Fabric base RTT [µs]", "real", 4),
            Input("response_ns", "PFC response time [ns]", "real", 1000),
        ), _roce),
    )
}  # fmt: skip


def run(name: str, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """The named calculator on ``inputs``; refusals as SchedulerInputError keyed by input name."""
    calc = CALCULATORS.get(name)
    if calc is None:
        raise SchedulerInputError({"calculator": f"one of {', '.join(CALCULATORS)}"})
    known = {i.name for i in calc.inputs}
    unknown = [k for k in inputs if k not in known]
    if unknown:
        raise SchedulerInputError({k: f"unknown input; {calc.name} takes {', '.join(sorted(known))}" for k in unknown})
    for k, v in inputs.items():
        if isinstance(v, str) and len(v) > MAX_TEXT:
            raise SchedulerInputError({k: f"at most {MAX_TEXT:,} characters"})
    values = {i.name: inputs.get(i.name, i.default) for i in calc.inputs}
    try:
        return calc.run(values)
    except (InvalidOperation, OverflowError, ValueError) as exc:
        if isinstance(exc, SchedulerInputError):
            raise
        raise SchedulerInputError({"inputs": f"not a number this calculator can use ({exc})"}) from None


__all__ = ["CALCULATORS", "run"]
