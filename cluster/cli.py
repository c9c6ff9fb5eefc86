"""`cluster-designer evaluate FILE.yaml` (also `python -m cluster evaluate`): compute a design from the shell.

Pure: no database, no Django settings, no SECRET_KEY. Prices come from the built-in catalog
(bom/catalog.py); saved designs and edited price books are the web app's (`cluster-designer design`).
Exit status 0 on success, 1 when the requirements are refused (one line per field), 2 on
bad usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from cluster.all_errors import beside_nested
from cluster.pipeline import ClusterPlan, plan_cluster
from cluster.render import result_table
from cluster.validate import RequirementsError, load_requirements_file, validate


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cluster-designer evaluate", description="Evaluate a requirements file (YAML or JSON)."
    )
    p.add_argument("file", type=Path, help="requirements file (YAML or JSON)")
    p.add_argument("--format", choices=["json", "table"], default="table")
    p.add_argument("--verify", action="store_true", help="also rebuild the fabric as a graph and check it")
    p.add_argument("--xlsx", type=Path, help="also write the BOM workbook (with cabling plan) here")
    p.add_argument("--reconcile", choices=["seed-d7"], help="compare the BOM with a published one")
    p.add_argument(
        "--scheduler",
        type=Path,
        help="also write the scheduler files (slurm.conf, topology.conf, topology-block.conf, gres.conf, cgroup.conf, "
        "sacctmgr.sh, kubernetes.yaml, label-nodes.sh) into this folder",
    )
    return p


def evaluate_file(path: Path, overrides: dict[str, dict[str, Any]] | None = None) -> ClusterPlan:
    """Read, validate (errors under dotted paths) and plan one requirements file; ``overrides``: section →
    field → value laid over the file's (a CLI option), validated as if the file said so."""
    data = load_requirements_file(path)
    if overrides and isinstance(data, dict):
        for section, values in overrides.items():
            if isinstance(data.get(section), dict):
                data[section] = {**data[section], **values}
            elif section not in data or data[section] is None:
                data[section] = dict(values)
    try:
        r = validate(data)
    except RequirementsError as exc:  # every field's error at once: the engine's on the fields that parsed too
        raise beside_nested(exc, data, plan_cluster) from None
    try:
        return plan_cluster(r)
    except RequirementsError as exc:
        raise RequirementsError(exc.nested(), exc.unprocessable) from None


def verification(plan: ClusterPlan) -> dict[str, Any]:
    from topology.graph import verify_plan

    v = verify_plan(plan.fabric)
    return {
        "ok": v.ok,
        "link_count": v.link_count,
        "switch_count": v.switch_count,
        "bisection_max_flow_gbps": v.bisection_max_flow_gbps,
        "problems": list(v.problems),
    }


def reconciliation(plan: ClusterPlan) -> dict[str, Any]:
    from bom.reconcile import SEED_D7, reconcile, reference_total_usd

    return {
        "reference": "seed chapter Table 14-25",
        "reference_total_usd": str(reference_total_usd(SEED_D7)),
        "rows": [
            {
                "item": r.reference.item,
                "reference_quantity": r.reference.quantity,
                "reference_subtotal_usd": str(r.reference.subtotal_usd),
                "our_quantity": r.our_quantity,
                "our_subtotal_usd": str(r.our_subtotal_usd),
                "note": r.reference.note,
            }
            for r in reconcile(plan.bom, SEED_D7)
        ],
    }


def write_xlsx(plan: ClusterPlan, result: dict[str, Any], path: Path) -> None:
    from bom.export import bom_xlsx, tco_sheet
    from bom.plan import Catalog, cut_sheet
    from cluster.requests import bom_request

    r = plan.requirements
    cabling = cut_sheet(bom_request(r), plan.fabric, plan.storage, plan.management, Catalog.built_in())
    path.write_bytes(
        bom_xlsx(
            result["bom"],
            design_name=r.cluster.name,
            design_notes=r.cluster.notes,
            cabling=cabling,
            extra_sheets=tco_sheet(result),
            checks=result["checks"],  # the plan's one list (ClusterPlan.checks), as the web exports show it
        )
    )


def main(argv: list[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    args = parser().parse_args(argv)
    try:
        plan = evaluate_file(args.file)
    except RequirementsError as exc:
        stderr.write(f"{args.file}: invalid requirements\n")
        stderr.writelines(f"  {field}: {' '.join(msgs)}\n" for field, msgs in exc.errors.items())
        return 1
    result = plan.result()
    if args.verify:
        result["compute_fabric"]["verification"] = verification(plan)
    if args.reconcile:
        result["bom"]["reconciliation"] = reconciliation(plan)
    if args.xlsx:
        write_xlsx(plan, result, args.xlsx)
        stderr.write(f"wrote {args.xlsx}\n")
    if args.scheduler:
        from cluster.scheduler_files import kubernetes_files, slurm_files

        args.scheduler.mkdir(parents=True, exist_ok=True)
        files = slurm_files(plan.requirements, plan.fabric, plan.scheduler)
        files.update(kubernetes_files(plan.requirements, plan.fabric, plan.scheduler))
        for name, text in files.items():
            (args.scheduler / name).write_text(text)
        stderr.write(f"wrote {len(files)} scheduler files into {args.scheduler}\n")
    text = json.dumps(result, indent=2, ensure_ascii=False) if args.format == "json" else result_table(result)
    stdout.write(text + "\n")
    return 0
