"""Design search pages: start one from a design, progress (polled), cancel, re-run, results (Pareto charts, the
ranked table, equal-budget and equal-power views, refusals by reason), save a candidate as a revision, open 2–4
candidates in the compare page, and the rows as csv/json."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from cluster.requirements import COOLING_CHOICES, MEDIA_CHOICES, TOPOLOGY_CHOICES, Requirements
from cluster.search import CONSTRAINTS, OBJECTIVES, VARY_AXES
from cluster.search_cli import rows_csv
from cluster.workload import profile_of
from designer.access import visible_design
from designer.search_charts import FAMILY_LABELS, search_charts
from designer.search_models import DesignSearch
from designer.searches import (
    SearchSpecError,
    all_rows,
    cancel_search,
    create_search,
    rerun_search,
    save_candidate,
    search_progress,
    spec_of,
)
from topology.switches import SWITCH_MODELS

CHOICE_AXES = {
    "topology": TOPOLOGY_CHOICES,
    "bom_media": MEDIA_CHOICES,
    "cooling_type": COOLING_CHOICES[1:],
}
TEXT_AXES = [a for a in VARY_AXES if a not in CHOICE_AXES and a != "switch_model"]
CONSTRAINT_HELP = {
    "min_bisection_tbyte_s": "minimum bisection [TB/s]",
    "max_oversubscription": "maximum end-to-end oversubscription r:1",
    "max_facility_mw": "maximum facility power [MW]",
    "max_capex_usd": "maximum CapEx [$]",
    "max_rack_count": "maximum racks",
    "max_cable_m": "maximum cable run [m]",
    "min_allreduce_busbw_gbyte_s": "minimum all-reduce bus bandwidth [GB/s] at the message size",
    "max_allreduce_time_us": "maximum all-reduce time [µs] at the message size",
}


# how the page names the objectives (cluster/search.py OBJECTIVES) and the ranking's tie-break ("index")
OBJECTIVE_LABELS = {
    "capex_usd": "CapEx (lowest first)",
    "tco_usd": "5-year TCO (lowest first)",
    "facility_kw": "facility power (lowest first)",
    "allreduce_time_us": "all-reduce time (shortest first)",
    "bisection_tbyte_s_per_musd": "bisection per $M (highest first)",
    "bisection_tbyte_s": "bisection (highest first)",
}
DECIDED_LABELS = {
    "capex_usd": "CapEx",
    "tco_usd": "TCO",
    "facility_kw": "facility kW",
    "allreduce_time_us": "all-reduce",
    "bisection_tbyte_s_per_musd": "bisection per $M",
    "bisection_tbyte_s": "bisection",
    "index": "tie",
}


def owned_search(user, pk: int) -> DesignSearch:
    try:
        return DesignSearch.objects.get(pk=pk, owner=user)
    except DesignSearch.DoesNotExist:
        raise Http404("no such search") from None


def spec_from_form(post) -> dict[str, Any]:
    vary: dict[str, list[str]] = {}
    for axis in VARY_AXES:
        if axis in CHOICE_AXES or axis == "switch_model":
            values = post.getlist(f"vary_{axis}")
        else:
            values = [v.strip() for v in post.get(f"vary_{axis}", "").split(",") if v.strip()]
        if values:
            vary[axis] = values
    constraints = {k: post.get(k, "").strip() for k in CONSTRAINTS if post.get(k, "").strip()}
    objectives = [o for o in (post.get("objective_1"), post.get("objective_2")) if o]
    target = {}
    if post.get("target_p95_wait_h", "").strip():
        target = {"job_class": post.get("target_job_class", ""), "p95_wait_h": post.get("target_p95_wait_h").strip()}
    return {
        "workload_target": target,
        "vary": vary,
        "constraints": constraints,
        "objectives": objectives or ["capex_usd"],
        "allreduce_bytes": post.get("allreduce_bytes", "").strip() or "256 MiB",
    }


def switch_choices(design) -> list[tuple[str, str]]:
    """Switch models whose ports take the design's NIC speed (per plane)."""
    flat = design.head.requirements()
    need = float(flat["nic_gbps"]) / max(1, int(flat.get("nic_planes") or 1))
    return [(n, f"{n} ({m.radix} × {m.port_gbps:g}G)") for n, m in SWITCH_MODELS.items() if m.port_gbps >= need]


@login_required
@require_http_methods(["GET", "POST"])
def search_new(request: HttpRequest, pk: int) -> HttpResponse:
    design = visible_design(request.user, pk)
    errors: dict[str, list[str]] = {}
    if request.method == "POST":
        try:
            search = create_search(request.user, design.head, spec_from_form(request.POST),
                                   name=request.POST.get("name", "").strip()[:200])  # fmt: skip
        except SearchSpecError as exc:
            errors = exc.errors
        else:
            messages.success(request, f"Search started: {search.total_candidates:,} candidates.")
            return redirect("search-detail", pk=search.pk)
    choice_axes = [(a, CHOICE_AXES[a], request.POST.getlist(f"vary_{a}"), errors.get(f"vary.{a}")) for a in CHOICE_AXES]
    choice_axes.append(("switch_model", switch_choices(design), request.POST.getlist("vary_switch_model"),
                        errors.get("vary.switch_model")))  # fmt: skip
    ctx = {
        "design": design,
        "errors": errors,
        "post": request.POST,
        "choice_axes": choice_axes,
        "text_axes": [(a, request.POST.get(f"vary_{a}", ""), errors.get(f"vary.{a}")) for a in TEXT_AXES],
        "constraints": [
            (k, CONSTRAINT_HELP[k], request.POST.get(k, ""), errors.get(f"constraints.{k}")) for k in CONSTRAINTS
        ],
        "objectives": list(OBJECTIVES),
        "job_classes": [
            c.name for c in profile_of(Requirements.from_flat(design.head.requirements()).workload).classes
        ],
        "target_errors": {k: v for k, v in errors.items() if k.startswith("workload_target")},
        "other_errors": {
            k: v for k, v in errors.items() if not k.startswith(("vary.", "constraints.", "workload_target"))
        },
    }
    return render(request, "designer/search_new.html", ctx)


def _table(search: DesignSearch) -> list[dict[str, Any]]:
    rows = []
    for r in (search.report or {}).get("ranking", []):
        f = r["f"]
        rows.append({**r, "capex_musd": float(f["capex_usd"]) / 1e6, "tco_musd": float(f["tco_usd"]) / 1e6,
                     "family": FAMILY_LABELS.get(f["topology"], f["topology"]),
                     "decided": DECIDED_LABELS.get(r.get("decided_by") or "", r.get("decided_by") or ""),
                     "combo_text": ", ".join(f"{k}={v}" for k, v in r["combo"].items() if k != "topology")
                     or "—"})  # fmt: skip
    return rows


def _equal(entries: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """The equal-budget or equal-power rows with each family's name as the ranked table shows it."""
    return [{**e, "family": FAMILY_LABELS.get(e.get("topology"), e.get("topology"))} for e in entries or []]


@login_required
def search_detail(request: HttpRequest, pk: int) -> HttpResponse:
    search = owned_search(request.user, pk)
    progress = search_progress(search)
    search.refresh_from_db()
    report = search.report or {}
    ctx = {
        "search": search,
        "progress": progress,
        "report": report,
        "table": _table(search),
        "ranked_by": ", then ".join(OBJECTIVE_LABELS.get(o, o) for o in report.get("spec", {}).get("objectives", [])),
        "equal_budget": _equal(report.get("equal_budget")),
        "equal_power": _equal(report.get("equal_power")),
        "charts": search_charts(report) if report else {},
        "family_labels": FAMILY_LABELS,
        "spec_json": json.dumps(search.spec, indent=1),
    }
    return render(request, "designer/search_detail.html", ctx)


@login_required
def search_progress_json(request: HttpRequest, pk: int) -> JsonResponse:
    return JsonResponse(search_progress(owned_search(request.user, pk)))


@login_required
@require_POST
def search_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    cancel_search(owned_search(request.user, pk))
    return redirect("search-detail", pk=pk)


@login_required
@require_POST
def search_rerun(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        new = rerun_search(owned_search(request.user, pk), request.user)
    except SearchSpecError as exc:
        messages.error(request, str(exc))
        return redirect("search-detail", pk=pk)
    return redirect("search-detail", pk=new.pk)


def _indices(request: HttpRequest) -> list[int] | None:
    raw = [v.strip() for v in request.POST.getlist("candidate") if v.strip()]
    if not all(v.isascii() and v.isdigit() and len(v) < 7 for v in raw):
        return None
    return list(dict.fromkeys(int(v) for v in raw))


def _saved(search: DesignSearch, index: int, user):
    """The revision this candidate was saved as before (by its message), else a new one."""
    message = f"search {search.pk}, candidate {index}"
    earlier = search.design.revisions.filter(message=message).order_by("-number").first() if search.design else None
    return earlier or save_candidate(search, index, user, message)


@login_required
@require_POST
def search_save(request: HttpRequest, pk: int) -> HttpResponse:
    """One candidate → a new revision of the design; then its page."""
    search = owned_search(request.user, pk)
    picked = _indices(request)
    if not picked or len(picked) != 1:
        messages.error(request, "candidate: pick one candidate to save")
        return redirect("search-detail", pk=pk)
    try:
        rev = _saved(search, picked[0], request.user)
    except SearchSpecError as exc:
        messages.error(request, str(exc))
        return redirect("search-detail", pk=pk)
    messages.success(request, f"Saved candidate {picked[0]} as revision r{rev.number}.")
    return redirect("revision-detail", pk=rev.design_id, number=rev.number)


@login_required
@require_POST
def search_compare(request: HttpRequest, pk: int) -> HttpResponse:
    """2–4 candidates in the compare page (each saved as a revision once, so the page can open it)."""
    search = owned_search(request.user, pk)
    picked = _indices(request)
    if picked is None or not 2 <= len(picked) <= 4:
        messages.error(request, "candidate: pick between 2 and 4 candidates to compare")
        return redirect("search-detail", pk=pk)
    try:
        revs = [_saved(search, i, request.user) for i in picked]
    except SearchSpecError as exc:
        messages.error(request, str(exc))
        return redirect("search-detail", pk=pk)
    return redirect(reverse("compare") + "?" + "&".join(f"r={r.pk}" for r in revs))


@login_required
def search_download(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    """Every candidate's row (csv, one column per varied field) or the report (json)."""
    search = owned_search(request.user, pk)
    if fmt == "csv":
        resp = HttpResponse(rows_csv(spec_of(search), all_rows(search)), content_type="text/csv")
    elif fmt == "json":
        resp = HttpResponse(json.dumps(search.report or {}, default=str), content_type="application/json")
    else:
        raise Http404("no such format")
    resp["Content-Disposition"] = f'attachment; filename="search-{search.pk}.{fmt}"'
    return resp
