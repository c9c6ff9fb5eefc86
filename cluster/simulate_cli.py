"""`cluster-designer simulate FILE.yaml [--days D] [--load-pct L] [--policy easy|fifo] [--seed N] [--afr-pct A]
[--repair-h H] [--restart-h H] [--preempt] [--a2a-fraction F] [--trace F.csv [--trace-format ours|acme]]
[--carbon-profile …] [--inference-demand …] [--fabric-afr-pct KIND=PCT,… | --no-fabric-failures]
[--fabric-repair-h KIND=H,…] [--fabric-failures F.yaml] [--format json|table]`:
a design's workload (its ``workload:`` section; the seed's Table 14-24 when it gives no classes) on its Slurm
batch nodes (cluster/simulation.py, scheduling/simulator.py), pure — no Django.

The design gives the nodes (the batch partition's), GPUs per node and the leaf-group size placement
packs into (the Slurm leaves of topology.conf: a scalable unit's rail leaves, or one leaf). An option
overrides the workload field it names and is validated with the file, as if the file said so."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from cluster.cli import evaluate_file
from cluster.simulation import no_fabric_rates, parse_fabric_rates, simulate_design
from cluster.validate import RequirementsError
from cluster.workload import profile_of
from cluster.yaml_input import YamlInputError, load_yaml
from scheduling import SchedulerInputError
from scheduling.failures import FABRIC_KINDS
from scheduling.simulator import POLICIES
from scheduling.workload import classes_text


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cluster-designer simulate",
        description="Simulate a design's workload (its workload: section) on its batch nodes.",
    )
    p.add_argument("file", type=Path, help="requirements file (YAML or JSON)")
    p.add_argument("--days", type=float, help="simulated days (workload.days; default 365)")
    p.add_argument(
        "--load-pct",
        type=float,
        help="offered load, busy GPU-hours ÷ capacity [%%], e.g. 85 (workload.offered_load_pct)",
    )
    p.add_argument("--policy", choices=POLICIES, help="workload.policy (default easy)")
    p.add_argument("--seed", type=int, help="workload.seed (default 1)")
    p.add_argument("--afr-pct", type=float, help="GPU failures: annualised failure rate per GPU [%%], e.g. 2 (seed S6: "
                   "1–5 %%; workload.afr_pct; default 0 = none)")  # fmt: skip
    refuse_fraction_flags(p)
    p.add_argument("--repair-h", type=float, help="hours a failed node is out of service (workload.repair_h; 24)")
    p.add_argument("--restart-h", type=float, help="hours to restart a job from its checkpoint (workload.restart_h)")
    p.add_argument("--preempt", action="store_true", default=None,
                   help="critical jobs preempt lower classes (§14.8.1; easy only; workload.preempt)")  # fmt: skip
    p.add_argument("--trace", type=Path, help="replay this job trace (CSV) instead of the generated workload")
    p.add_argument(
        "--trace-format",
        choices=["ours", "acme"],
        default="ours",
        help="ours: submit_h,gpus,hours,class[,tenant,sla]; acme: AcmeTrace's trace_seren.csv layout",
    )
    p.add_argument("--carbon-profile", help="carbon-aware deferral: 24 hourly grid intensities [g CO₂/kWh], commas "
                   "(workload.carbon_hourly_g_per_kwh)")  # fmt: skip
    p.add_argument("--carbon-threshold", type=float, help="a deferrable job starts at or below this (default 200)")
    p.add_argument("--max-defer-h", type=float, help="… or once it has waited this long (default 24)")
    p.add_argument("--defer-classes", help="classes that may wait (default: every class but the critical ones)")
    p.add_argument("--inference-demand", help="tidal sharing: 24 hourly inference GPU counts, commas (§14.5.6; "
                   "workload.inference_demand_gpus)")  # fmt: skip
    p.add_argument("--a2a-fraction", type=float,
                   help="share of every class's step in all-to-all (MoE); jobs spread over leaf groups then run "
                   "slower on a tapered fabric, by the collective model (sets every class's comm_fraction)",
                   )  # fmt: skip
    p.add_argument("--fabric-afr-pct", help="fabric part AFRs [%% per part per year], KIND=PCT with commas, KIND "
                   f"one of {', '.join(FABRIC_KINDS)}; a kind not named keeps its cited default (on by default: "
                   "scheduling/failures.py fabric_defaults)")  # fmt: skip
    p.add_argument("--fabric-repair-h", help="fabric part repair times [h], KIND=H with commas (default: "
                   "workload.repair_h)")  # fmt: skip
    p.add_argument("--fabric-failures", type=Path, help="a YAML file: KIND: PCT or KIND: {afr_pct: …, repair_h: …}")
    p.add_argument("--no-fabric-failures", action="store_true", help="GPU failures only (every fabric AFR 0)")
    p.add_argument("--format", choices=["json", "table"], default="table")
    return p


def _pairs(text: str, flag: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in text.split(","):
        kind, sep, value = item.partition("=")
        try:
            out[kind.strip()] = float(value) if sep else None
        except ValueError:
            out[kind.strip()] = value.strip()
        if not sep:
            raise SchedulerInputError({flag: f"KIND=NUMBER pairs separated by commas, got {text!r}"})
    return out


def fabric_rates(args: argparse.Namespace, repair_h: float) -> dict[str, dict[str, float]]:
    """The run's fabric rates: the cited defaults, a YAML file's, then the flags' (validated on each key)."""
    if args.no_fabric_failures:
        return no_fabric_rates(repair_h)
    raw: dict[str, Any] = {}
    if args.fabric_failures is not None:
        try:
            loaded = load_yaml(args.fabric_failures.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, YamlInputError, ValueError) as exc:
            raise SchedulerInputError({"--fabric-failures": f"cannot read {args.fabric_failures}: {exc}"}) from None
        if not isinstance(loaded, dict):
            raise SchedulerInputError({"--fabric-failures": "a mapping of part kind → AFR [%] or {afr_pct, repair_h}"})
        raw = {k: dict(v) if isinstance(v, dict) else {"afr_pct": v} for k, v in loaded.items()}
    for flag, field in (("fabric_afr_pct", "afr_pct"), ("fabric_repair_h", "repair_h")):
        text = getattr(args, flag)
        if text:
            for kind, value in _pairs(text, "--" + flag.replace("_", "-")).items():
                raw.setdefault(kind, {})[field] = value
    return parse_fabric_rates(raw, repair_h)


class _Renamed(argparse.Action):
    """A flag of the old fraction convention: refused with the flag that replaced it (percent, as the file)."""

    def __call__(self, parser, namespace, values, option_string=None):
        new = {"--afr": "--afr-pct", "--load": "--load-pct"}[option_string or ""]
        parser.error(
            f"{option_string} took a fraction; rates are percent everywhere now, as in the file "
            f"(workload.{'afr_pct' if new == '--afr-pct' else 'offered_load_pct'}): use {new}, e.g. "
            f"{new} {float(values) * 100:g} for {option_string} {values}"
            if _is_number(values)
            else f"{option_string} is now {new} (percent, as in the file)"
        )


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def refuse_fraction_flags(p: argparse.ArgumentParser, names: tuple[str, ...] = ("--afr", "--load")) -> None:
    """The flags that took fractions before the percent convention: hidden, and refused with the new name."""
    for name in names:
        p.add_argument(name, action=_Renamed, help=argparse.SUPPRESS, dest=f"_renamed_{name[2:]}")


# option → the workload field it sets, and how its value is written there
OPTIONS = {
    "days": ("days", None), "load_pct": ("offered_load_pct", None), "policy": ("policy", None),
    "seed": ("seed", None), "afr_pct": ("afr_pct", None), "repair_h": ("repair_h", None),
    "restart_h": ("restart_h", None), "preempt": ("preempt", None), "carbon_profile": ("carbon_hourly_g_per_kwh", None),
    "carbon_threshold": ("carbon_threshold_g_per_kwh", None), "max_defer_h": ("carbon_max_defer_h", None),
    "inference_demand": ("inference_demand_gpus", None),
}  # fmt: skip
FLAG_OF = {f"workload.{field}": "--" + opt.replace("_", "-") for opt, (field, _) in OPTIONS.items()}


def workload_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The workload fields the options set (validated with the file, as if it said so)."""
    out: dict[str, Any] = {}
    for opt, (field, scale) in OPTIONS.items():
        value = getattr(args, opt, None)
        if value is not None:
            out[field] = scale(value) if scale else value
    if args.load_pct is not None:
        out["arrival"] = "load"
    return out


def run(path: Path, args: argparse.Namespace) -> dict[str, Any]:
    plan = evaluate_file(path, {"workload": workload_overrides(args)})
    w = plan.requirements.workload
    if args.a2a_fraction is not None:
        if not 0 <= args.a2a_fraction < 1:
            raise SchedulerInputError(
                {"a2a_fraction": f"a share of the step from 0 to below 1, got {args.a2a_fraction}"}
            )
        classes = profile_of(w).classes
        w = dataclasses.replace(w, classes=classes_text(
            tuple(dataclasses.replace(c, comm_fraction=args.a2a_fraction) for c in classes)))  # fmt: skip
    trace = _read_trace(args.trace) if args.trace is not None else None
    defer = None if args.defer_classes is None else [x.strip() for x in args.defer_classes.split(",") if x.strip()]
    fabric = fabric_rates(args, w.repair_h)
    return simulate_design(plan, workload=w, trace_text=trace, trace_format=args.trace_format, split=False,
                           defer_classes=defer, fabric=fabric)  # fmt: skip


def _read_trace(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SchedulerInputError({"trace": f"cannot read {path}: {exc}"}) from None


def _load_text(i: dict[str, Any]) -> str:
    return "replayed" if i["offered_load_frac"] is None else f"at {i['offered_load_frac']:.0%} offered"


def _tidal_line(out: dict[str, Any]) -> str:
    f = out["failures"]
    return (
        f"tidal sharing: inference held {f['inference_node_h']:,.0f} node-hours, {f['inference_unserved_node_h']:,.0f} "
        f"unserved; {f['preemptions']:.0f} best-effort preemptions; node-hours: training {out['busy_node_h']:,.0f} + "
        f"inference {out['inference_node_h']:,.0f} + idle {out['idle_node_h']:,.0f} + down {out['down_node_h']:,.0f}"
    )


def _books_line(out: dict[str, Any]) -> str:
    i, f = out["inputs"], out["failures"]
    return (
        f"failures (AFR {i['afr']:.1%} per GPU), preemption {'on' if i['preempt'] else 'off'} "
        f"({f['preemptions']:.0f} preemptions), all-to-all {i['a2a_fraction']:.0%} of a step (spread jobs up to "
        f"×{i['spread_factor_max']:.3f}): {out['derivations']['goodput_frac']}"
    )


def _table(out: dict[str, Any]) -> str:
    i = out["inputs"]
    lines = [
        f"{i['design']}: {i['partition']} ({i['nodes']:,} nodes, {i['gpus']:,} GPUs), {i['profile']}, "
        f"{i['days']:g} days {_load_text(i)}, {out['policy']}, seed {i['seed']}: "
        f"{i['jobs']:,} jobs",
        f"utilization: {out['derivations']['utilization_frac']}",
        f"Little's law: {out['derivations']['little']}",
        f"fragmentation: {out['derivations']['idle_waiting_gpu_h']}",
        f"placement: {out['derivations']['spine_gpu_h']}",
        *([_books_line(out)] if "failures" in out else []),
        *([f"fabric failures: {out['derivations']['fabric_share']}"] if "fabric_failures" in out else []),
        *([f"carbon-aware deferral: {out['carbon']['derivation']}"] if "carbon" in out else []),
        *([_tidal_line(out)] if out.get("failures", {}).get("inference_node_h") is not None else []),
        f"{'class':<24}{'jobs':>7}{'waiting':>9}{'wait p50 h':>12}{'p95 h':>10}{'p99 h':>10}{'in 1 group':>12}",
    ]
    show = lambda x, f="{:.1f}": "—" if x is None else f.format(x)  # noqa: E731
    for c in out["classes"]:
        lines.append(
            f"{c['name']:<24}{c['jobs']:>7,}{c['waiting_at_end']:>9,}{show(c['wait_h_p50']):>12}"
            f"{show(c['wait_h_p95']):>10}{show(c['wait_h_p99']):>10}{show(c['one_group_frac'], '{:.0%}'):>12}"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    args = parser().parse_args(argv)
    names = {**FLAG_OF, "a2a_fraction": "--a2a-fraction", "carbon.classes": "--defer-classes"}
    try:
        out = run(args.file, args)
    except RequirementsError as exc:
        stderr.write(f"{args.file}: invalid requirements\n")
        stderr.writelines(f"  {_named(field, names, args)}: {' '.join(msgs)}\n" for field, msgs in exc.errors.items())
        return 1
    except SchedulerInputError as exc:
        stderr.write(f"{args.file}: the simulation is refused\n")
        stderr.writelines(f"  {_named(k, names, args)}: {v}\n" for k, v in exc.errors.items())
        return 1
    stdout.write(json.dumps(out, indent=2) + "\n" if args.format == "json" else _table(out))
    return 0


def _named(field: str, names: dict[str, str], args: argparse.Namespace) -> str:
    """An error on a field an option set is shown under the option (and the field)."""
    flag = names.get(field)
    if flag is None:
        return field
    opt = flag[2:].replace("-", "_")
    given = opt in ("a2a_fraction",) or field == "carbon.classes" or getattr(args, opt, None) is not None
    return f"{flag} ({field})" if given and field.startswith("workload.") else (flag if given else field)
