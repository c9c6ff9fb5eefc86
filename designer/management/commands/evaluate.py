"""`python manage.py evaluate FILE.yaml [--format json|table]` — compute a design from the shell."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from designer.render import result_table
from designer.requirements import RequirementsError
from designer.services import evaluate, load_requirements_file


class Command(BaseCommand):
    help = "Evaluate a requirements file (YAML) and print the computed design."

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path, help="requirements file (YAML or JSON)")
        parser.add_argument("--format", choices=["json", "table"], default="table")
        parser.add_argument("--verify", action="store_true", help="also rebuild the fabric as a graph and check it")

    def handle(self, *args, file: Path, format: str, verify: bool, **options):
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
        if format == "json":
            self.stdout.write(json.dumps(result, indent=2, ensure_ascii=False))
        else:
            self.stdout.write(result_table(result))
