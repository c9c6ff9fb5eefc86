"""The phases page (#37.1): a design's phased build-out under both strategies (cluster/phases.py) — what each phase
buys, the ports left dark, the compute cables re-patched — with the cost chart and each phase's BOM and cut-sheet
deltas as csv and xlsx. Anyone who may see the design sees the page; only its owner changes the phases."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import plotly.graph_objects as go
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_http_methods

from bom.export import bom_csv, bom_xlsx
from bom.phase_export import cut_sheet_delta_csv, cut_sheet_delta_xlsx
from cluster.phases import (
    MAX_PHASES,
    STRATEGIES,
    STRATEGY_TITLES,
    PhaseInputError,
    parse_phases,
    phase_exports,
    phase_report,
    phases_text,
)
from cluster.requirements import Requirements
from cluster.validate import RequirementsError
from designer.access import owned_design, visible_design
from designer.models import Design
from designer.services import evaluate_requirements

EXAMPLE = "day 1, 2026-01-15, 2 SU\ngrowth, 2026-09-01, 4 SU\nfull, 2027-06-01, 8 SU"
EXPORTS = {
    "bom.csv": "text/csv",
    "bom.xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "cut-sheet.csv": "text/csv",
    "cut-sheet.xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}


def _plan(design: Design):
    """The head revision and its plan; the phases are planned from the inputs as the user gave them."""
    revision = design.revisions.order_by("-number").first()
    if revision is None:
        raise Http404("no revision")
    return revision, evaluate_requirements(Requirements.from_flat(revision.requirements())).plan


def _chart(report: dict[str, Any]) -> dict[str, Any]:
    """Cost per phase stacked by BOM category, the two strategies side by side (a two-level x axis)."""
    strategies = report["strategies"]
    cats = list(dict.fromkeys(c for s in strategies.values() for p in s["phases"] for c in p["cost_by_category_usd"]))
    short = {"end_state": "end-state core", "cheapest": "cheapest day 1"}
    x = [[short[s] for s in strategies for _ in strategies[s]["phases"]],
         [p["name"] for s in strategies.values() for p in s["phases"]]]  # fmt: skip
    fig = go.Figure()
    for cat in cats:
        y = [float(Decimal(p["cost_by_category_usd"].get(cat, "0"))) / 1e6 for s in strategies.values()
             for p in s["phases"]]  # fmt: skip
        fig.add_trace(go.Bar(x=x, y=y, name=cat, hovertemplate=f"{cat}: $%{{y:.3f}}M<extra></extra>"))
    fig.update_layout(
        barmode="stack", title="Bought in each phase, by BOM category — both strategies", height=420,
        yaxis_title="bought in the phase [$M]", margin={"t": 60}, legend={"orientation": "h", "y": -0.25},
    )  # fmt: skip
    return {"phases": fig.to_plotly_json()}


def _stored(design: Design) -> tuple[list, str]:
    try:
        phases = parse_phases(design.phases or [])
    except PhaseInputError:
        return [], ""
    return phases, phases_text(design.phases or [])


@require_http_methods(["GET", "POST"])
def design_phases(request: HttpRequest, pk: int) -> HttpResponse:
    design = visible_design(request.user, pk)
    revision, plan = _plan(design)
    errors: dict[str, str] = {}
    phases, text = _stored(design)
    if request.method == "POST":
        design = owned_design(request.user, pk)  # only the owner changes the phases (anyone else: 404)
        text = request.POST.get("phases", "")[:4000]
        try:
            phases = parse_phases(text.splitlines())
            phase_report(plan, phases)  # refused here, on the field, before it is stored
        except PhaseInputError as exc:
            errors = exc.errors
        else:
            design.phases = [p.to_dict() for p in phases]
            design.updated_at = timezone.now()
            design.save(update_fields=["phases", "updated_at"])
            return redirect("design-phases", pk=design.pk)
    report = None
    if phases and not errors:
        try:
            report = phase_report(plan, phases)
        except PhaseInputError as exc:  # stored phases the design no longer takes (it was edited since)
            errors = exc.errors
    context = {
        "design": design, "revision": revision, "report": report, "errors": errors, "text": text or "",
        "example": EXAMPLE, "max_phases": MAX_PHASES, "can_edit": design.can_edit(request.user),
        "charts": _chart(report) if report else None, "titles": STRATEGY_TITLES, "exports": list(EXPORTS),
    }  # fmt: skip
    return render(request, "designer/phases.html", context)


@require_GET
def design_phase_export(request: HttpRequest, pk: int, strategy: str, phase: int, what: str) -> HttpResponse:
    """One phase's BOM delta or cut-sheet delta (``phase`` from 1), csv or xlsx."""
    design = visible_design(request.user, pk)
    if what not in EXPORTS or strategy not in STRATEGIES:
        raise Http404("no such export")
    revision, plan = _plan(design)
    phases, _ = _stored(design)
    if not 1 <= phase <= len(phases):
        raise Http404("no such phase")
    try:
        bom, sheet = phase_exports(plan, phases, strategy, phase - 1)
    except (PhaseInputError, RequirementsError):
        raise Http404("the stored phases no longer fit the design: open the phases page") from None
    name = f"{revision.name} r{revision.number} — {phases[phase - 1].name} ({STRATEGY_TITLES[strategy]})"
    if what == "bom.csv":
        content: str | bytes = bom_csv(bom.to_dict())
    elif what == "bom.xlsx":
        only = "the parts bought in this phase only (the BOM delta against earlier phases)"
        content = bom_xlsx(bom.to_dict(), design_name=name, revision=f"r{revision.number}", cabling=None, contents=only)
    elif what == "cut-sheet.csv":
        content = cut_sheet_delta_csv(sheet)
    else:
        content = cut_sheet_delta_xlsx(sheet, title=f"Cut-sheet delta: {name}")
    resp = HttpResponse(content, content_type=EXPORTS[what])
    stem = slugify(f"{revision.name}-{phases[phase - 1].name}-{strategy}") or "phase"
    resp["Content-Disposition"] = f'attachment; filename="{stem}-{what}"'
    return resp
