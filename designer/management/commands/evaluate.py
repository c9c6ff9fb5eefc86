"""`python manage.py evaluate FILE.yaml [--format json|table]` — compute a design from the shell."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from designer.render import result_table
from designer.requirements import RequirementsError
from designer.services import evaluate, load_requirements_file, tco_sheet


class Command(BaseCommand):
    help = "Evaluate a requirements file (YAML) and print the computed design."

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path, help="requirements file (YAML or JSON)")
        parser.add_argument("--format", choices=["json", "table"], default="table")
        parser.add_argument("--verify", action="store_true", help="also rebuild the fabric as a graph and check it")
        parser.add_argument("--xlsx", type=Path, help="also write the BOM workbook (with cabling plan) here")
        parser.add_argument("--reconcile", choices=["seed-d7"], help="compare the BOM with a published one")

    def handle(
        self,
        *args,
        file: Path,
        format: str,
        verify: bool,
        xlsx: Path | None = None,
        reconcile: str | None = None,
        **options,
    ):
        try:
            ev = evaluate(load_requirements_file(file))
        except RequirementsError as exc:
            lines = [f"{file}: invalid requirements"]
            lines += [f"  {field}: {' '.join(msgs)}" for field, msgs in exc.errors.items()]
            raise CommandError("\n".join(lines)) from None
        result = ev.result
        if verify:
            from topology.graph import verify_plan

            v = verify_plan(ev.fabric)
            result["compute_fabric"]["verification"] = {
                "ok": v.ok,
                "link_count": v.link_count,
                "switch_count": v.switch_count,
                "bisection_max_flow_gbps": v.bisection_max_flow_gbps,
                "problems": list(v.problems),
            }
        if reconcile:
            from bom.reconcile import SEED_D7, reference_total_usd
            from bom.reconcile import reconcile as reconcile_bom

            rows = reconcile_bom(ev.bom, SEED_D7)
            result["bom"]["reconciliation"] = {
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
                    for r in rows
                ],
            }
        if xlsx:
            from bom.export import bom_xlsx
            from designer.services import cabling_plan

            cabling = cabling_plan(ev.requirements, ev.fabric, ev.storage, ev.management)
            xlsx.write_bytes(
                bom_xlsx(
                    result["bom"],
                    design_name=ev.requirements["name"],
                    design_notes=ev.requirements.get("notes", ""),
                    cabling=cabling,
                    extra_sheets=tco_sheet(result),
                )
            )
            self.stderr.write(f"wrote {xlsx}")
        if format == "json":
            self.stdout.write(json.dumps(result, indent=2, ensure_ascii=False))
        else:
            self.stdout.write(result_table(result))
