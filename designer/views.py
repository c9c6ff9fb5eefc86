"""Server-rendered pages. Views fetch, check access and hand over; computing is services' job."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.decorators import login_required
from django.db import connection
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from bom.diff import diff_summary
from bom.export import WORKBOOK_CUT_SHEET_MAX_ROWS
from designer import charts
from designer.access import owned_design, visible_design, visible_revision
from designer.compare import bom_diff_rows, comparison_rows, oldest_first, summary_rows
from designer.export_jobs import download_response, job_progress, needs_job, readable_job, request_export, shared_job
from designer.forms import RequirementsForm, ShareForm, SignupForm, TokenForm
from designer.ids import parse_id
from designer.models import DEMO_USERNAME, ApiToken, Design, DesignRevision
from designer.presets import PRESETS, preset_values
from designer.services import changed_fields, clone_design, create_design, revise

SORTS = {
    "updated": "-updated_at",
    "-updated": "updated_at",
    "name": "head_name",
    "-name": "-head_name",
    "gpus": "head_gpu_count",
    "-gpus": "-head_gpu_count",
}


def home(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("design-list")
    demos = (
        Design.objects.alive()
        .filter(owner__username=DEMO_USERNAME, share_token__isnull=False)
        .with_head()
        .order_by("head_name")
    )
    return render(request, "designer/landing.html", {"demos": demos})


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}. Start from a preset.")
        return redirect("design-new")
    return render(request, "registration/signup.html", {"form": form})


@login_required
def design_list(request: HttpRequest) -> HttpResponse:
    sort = request.GET.get("sort", "updated")
    q = request.GET.get("q", "").strip()
    designs = Design.objects.visible_to(request.user).with_head().select_related("owner")
    if q:
        designs = designs.filter(Q(head_name__icontains=q) | Q(head_topology__icontains=q))
    designs = designs.order_by(SORTS.get(sort, "-updated_at"), "-pk")
    demos = Design.objects.demos().exclude(owner=request.user).with_head().order_by("head_name")
    context = {"designs": designs, "demos": demos, "q": q, "sort": sort, "sorts": SORTS}
    return render(request, "designer/design_list.html", context)


@login_required
def trash(request: HttpRequest) -> HttpResponse:
    designs = Design.objects.owned_by(request.user).filter(deleted_at__isnull=False).with_head()
    return render(request, "designer/trash.html", {"designs": designs})


def _form_page(request, form, *, design=None, title: str):
    return render(
        request,
        "designer/design_form.html",
        {
            "form": form,
            "design": design,
            "title": title,
            "presets": PRESETS,
            "preset_values": preset_values(),
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
def design_new(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        form = RequirementsForm(request.POST)
        if form.is_valid():
            design = create_design(request.user, form.cleaned_data, form.evaluation)
            messages.success(request, "Design saved as revision 1.")
            return redirect("design-detail", pk=design.pk)
        return _form_page(request, form, title="New design")
    preset = PRESETS.get(request.GET.get("preset", ""))
    form = RequirementsForm(initial=preset["values"] if preset else None)
    return _form_page(request, form, title="New design")


@login_required
@require_http_methods(["GET", "POST"])
def design_edit(request: HttpRequest, pk: int) -> HttpResponse:
    design = owned_design(request.user, pk)
    head = design.head
    if request.method == "POST":
        form = RequirementsForm(request.POST)
        if form.is_valid():
            rev, created = revise(
                design,
                request.user,
                form.cleaned_data,
                form.evaluation,
                message=request.POST.get("message", ""),
            )
            if created:
                messages.success(request, f"Saved revision {rev.number}.")
            else:
                messages.info(request, f"Nothing changed, so no new revision: this is still r{rev.number}.")
            return redirect("design-detail", pk=design.pk)
        return _form_page(request, form, design=design, title=f"Edit {head.name}")
    form = RequirementsForm(initial=head.requirements())
    return _form_page(request, form, design=design, title=f"Edit {head.name}")


def revision_charts(revision: DesignRevision) -> dict:
    """The plotly figures of a revision. Revisions never change, so each process builds them once."""
    from django.core.cache import cache

    key = f"charts:{revision.pk}:{revision.created_at.timestamp()}"
    found = cache.get(key)
    if found is None:
        r = revision.results
        found = {
            "compute": charts.compute_diagram(r),
            "rail": charts.rail_view(r),
            "storage": charts.storage_diagram(r),
            "management": charts.management_diagram(r),
            "power": charts.power_chart(r),
            "tco": charts.tco_chart(r),
            "capping": charts.capping_chart(r),
        }
        cache.set(key, found, 3600)
    return found


def _detail_context(design: Design, revision: DesignRevision, *, shared_view: bool = False) -> dict:
    from designer.services import revision_checks

    r = revision.results
    checks = revision_checks(revision)
    return {
        "design": design,
        "revision": revision,
        "result": r,
        "checks": checks,  # the one list (cluster.pipeline.checks_of), as every export shows it
        "failing_count": sum(not c["ok"] for c in checks),
        "fabric": r["compute_fabric"],
        "storage": r["storage"],
        "management": r["management"],
        "charts": revision_charts(revision),
        "shared_view": shared_view,
        "export_in_background": needs_job(revision, "bom.xlsx"),
        "export_inline_max_links": settings.EXPORT_INLINE_MAX_LINKS,
        "cut_sheet_max_rows": WORKBOOK_CUT_SHEET_MAX_ROWS,  # above it bom.xlsx leaves the cut sheet to cabling.xlsx
        "is_latest": revision.number == design.revisions.order_by("-number").values_list("number", flat=True)[0],
        "hall_svg": _hall_drawing(r),
        "plane_cards": plane_cost_cards(r.get("bom") or {}),
    }


PLANE_LABELS = {"nvlink": "NVLink"}  # a plane's name as written, not str.title()'s "Nvlink"


def plane_cost_cards(bom: dict) -> list[dict[str, str]]:
    """One cost card a plane: its label, its subtotal, and for a plane whose every line is priced inside another
    (an NVL72 rack's NVLink trays and spines, $0 each: "included in the rack-scale system"), what it holds and where
    its cost is, in place of a bare "$0"."""
    cards = []
    for plane, total in (bom.get("totals_usd") or {}).items():
        label = PLANE_LABELS.get(plane, plane.capitalize())
        lines = [line for line in bom.get("lines", []) if line["plane"] == plane]
        included = [line for line in lines if str(line.get("price_source", "")).startswith("included in")]
        if Decimal(total) == 0 and lines and len(included) == len(lines):
            held = " + ".join(f"{line['quantity']:,} × {line['category']}" for line in lines)
            where = "; ".join(dict.fromkeys(line["price_source"] for line in lines))
            cards.append({"label": label, "value": "in the rack price", "detail": f"{held}: {where}"})
        else:
            cards.append({"label": label, "value": f"${Decimal(total):,.0f}", "detail": ""})
    return cards


def _hall_drawing(result: dict) -> str:
    """The hall plan (bom/hall_svg.py escapes every text) of a result that stores its hall; "" for older ones."""
    from django.utils.safestring import mark_safe

    from bom.hall_svg import hall_svg

    return mark_safe(hall_svg(((result.get("power") or {}).get("racks") or {}).get("hall")))


@login_required
def design_detail(request: HttpRequest, pk: int, number: int | None = None) -> HttpResponse:
    design = visible_design(request.user, pk)
    revisions = design.revisions.all()
    revision = get_object_or_404(revisions, number=number) if number else revisions.order_by("-number").first()
    ctx = _detail_context(design, revision)
    ctx["can_edit"] = design.can_edit(request.user)
    ctx["sweeps"] = design.sweeps.filter(owner=request.user)[:20]
    ctx["calibrations"] = design.calibrations.filter(owner=request.user)[:20]
    ctx["simulations"] = design.simulations.filter(owner=request.user)[:10]
    return render(request, "designer/design_detail.html", ctx)


def shared_detail(request: HttpRequest, token: str) -> HttpResponse:
    design = Design.objects.alive().filter(share_token=token).first()
    if design is None:
        raise Http404("no such design")
    revision = design.revisions.order_by("-number").first()
    ctx = _detail_context(design, revision, shared_view=True)
    ctx["can_edit"] = design.can_edit(request.user)
    return render(request, "designer/design_detail.html", ctx)


def export_response(revision, fmt: str, *, show_author: bool = True) -> HttpResponse:
    """A BOM or cabling-plan download (pages, shared links and the API all use this)."""
    from designer.services import EXPORT_FORMATS, export_bom

    if fmt not in EXPORT_FORMATS:
        raise Http404("no such export")
    if fmt == "cabling.csv":  # ≈ 389k rows at 100k GPUs: streamed, the header at once
        from django.http import StreamingHttpResponse

        from designer.services import cabling_stream

        chunks, filename = cabling_stream(revision)
        resp = StreamingHttpResponse((c.encode() for c in chunks), content_type="text/csv")
        resp["Content-Disposition"] = f'attachment; filename="{filename}"'
        return resp
    content, ctype, filename = export_bom(revision, fmt, show_author=show_author)
    resp = HttpResponse(content, content_type=ctype)
    disposition = "inline" if fmt == "elevations.svg" else "attachment"  # the drawing opens in the browser
    resp["Content-Disposition"] = f'{disposition}; filename="{filename}"'
    return resp


@login_required
def design_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    design = visible_design(request.user, pk)
    number = request.GET.get("revision", "")
    n = parse_id(number)
    if number and n is None:
        raise Http404("no such revision")
    revision = get_object_or_404(design.revisions, number=n) if n else design.head
    if needs_job(revision, fmt):  # too large to build in a request: a background job, its page follows it
        job = request_export(revision, fmt, show_author=True, user=request.user)
        return redirect("export-job-download" if job.status == "done" else "export-job", pk=job.pk)
    return export_response(revision, fmt)


def shared_export(request: HttpRequest, token: str, fmt: str) -> HttpResponse:
    design = Design.objects.alive().filter(share_token=token).first()
    if design is None:
        raise Http404("no such design")
    if needs_job(design.head, fmt):
        job = request_export(design.head, fmt, show_author=False, user=request.user)
        name = "shared-export-job-download" if job.status == "done" else "shared-export-job"
        return redirect(name, token=token, pk=job.pk)
    return export_response(design.head, fmt, show_author=False)  # anonymous readers do not learn user names


def _export_job_page(request: HttpRequest, job, urls: dict) -> HttpResponse:
    revision = job.revision
    ctx = {"job": job, "revision": revision, "progress": job_progress(job), **urls}
    ctx["limit"] = settings.EXPORT_INLINE_MAX_LINKS
    ctx["ttl_h"] = settings.EXPORT_JOB_TTL_S / 3600
    ctx["without_cut_sheet"] = job.fmt == "bom.xlsx" and job.size_links > WORKBOOK_CUT_SHEET_MAX_ROWS
    ctx["cut_sheet_max_rows"] = WORKBOOK_CUT_SHEET_MAX_ROWS
    return render(request, "designer/export_job.html", ctx)


@login_required
def export_job(request: HttpRequest, pk: int) -> HttpResponse:
    """A background export's page: its progress (polled), then the download."""
    job = readable_job(request.user, pk)
    return _export_job_page(
        request,
        job,
        {
            "progress_url": reverse("export-job-progress", args=[pk]),
            "download_url": reverse("export-job-download", args=[pk]),
            "design_url": reverse("revision-detail", args=[job.revision.design_id, job.revision.number]),
            "cut_sheet_url": reverse("design-export", args=[job.revision.design_id, "cabling.xlsx"])
            + f"?revision={job.revision.number}",
        },
    )


@login_required
def export_job_progress(request: HttpRequest, pk: int) -> JsonResponse:
    return JsonResponse(job_progress(readable_job(request.user, pk)))


@login_required
def export_job_download(request: HttpRequest, pk: int) -> HttpResponse:
    job = readable_job(request.user, pk)
    if job.status != "done":
        return redirect("export-job", pk=pk)
    return download_response(job)


def shared_export_job(request: HttpRequest, token: str, pk: int) -> HttpResponse:
    job = shared_job(token, pk)
    return _export_job_page(
        request,
        job,
        {
            "progress_url": reverse("shared-export-job-progress", args=[token, pk]),
            "download_url": reverse("shared-export-job-download", args=[token, pk]),
            "design_url": reverse("shared-detail", args=[token]),
            "cut_sheet_url": reverse("shared-export", args=[token, "cabling.xlsx"]),
        },
    )


def shared_export_job_progress(request: HttpRequest, token: str, pk: int) -> JsonResponse:
    return JsonResponse(job_progress(shared_job(token, pk)))


def shared_export_job_download(request: HttpRequest, token: str, pk: int) -> HttpResponse:
    job = shared_job(token, pk)
    if job.status != "done":
        return redirect("shared-export-job", token=token, pk=pk)
    return download_response(job)


@login_required
def design_history(request: HttpRequest, pk: int) -> HttpResponse:
    design = visible_design(request.user, pk)
    revisions = list(design.revisions.select_related("author").order_by("number"))
    rows = []
    for before, rev in zip([None, *revisions], revisions, strict=False):
        changes = changed_fields(before.requirements(), rev.requirements()) if before else []
        rows.append((rev, changes, before is None))
    return render(
        request,
        "designer/history.html",
        {"design": design, "rows": rows[::-1], "can_edit": design.can_edit(request.user)},
    )


@login_required
@require_POST
def design_clone(request: HttpRequest, pk: int) -> HttpResponse:
    source = visible_design(request.user, pk)
    copy = clone_design(source, request.user)
    messages.success(request, "Cloned. This copy is yours to change.")
    return redirect("design-detail", pk=copy.pk)


@login_required
@require_http_methods(["GET", "POST"])
def design_delete(request: HttpRequest, pk: int) -> HttpResponse:
    design = owned_design(request.user, pk)
    if request.method == "POST":
        Design.objects.filter(pk=design.pk).update(deleted_at=timezone.now())
        messages.success(request, f"Moved “{design.head.name}” to the trash. You can restore it there.")
        return redirect("design-list")
    return render(request, "designer/confirm_delete.html", {"design": design})


@login_required
@require_POST
def design_restore(request: HttpRequest, pk: int) -> HttpResponse:
    design = owned_design(request.user, pk, include_deleted=True)
    Design.objects.filter(pk=design.pk).update(deleted_at=None)
    messages.success(request, "Restored.")
    return redirect("design-detail", pk=design.pk)


@login_required
@require_http_methods(["GET", "POST"])
def design_share(request: HttpRequest, pk: int) -> HttpResponse:
    design = owned_design(request.user, pk)
    action = request.POST.get("action") if request.method == "POST" else None
    # only adding a user reads the form: the link and remove buttons send no user name
    adding = request.method == "POST" and action not in ("link-on", "link-off", "remove")
    form = ShareForm(request.POST if adding else None)
    if request.method == "POST":
        if action == "link-on":
            design.enable_link_sharing()
        elif action == "link-off":
            Design.objects.filter(pk=design.pk).update(share_token=None)
        elif action == "remove":
            design.shared_with.remove(*get_user_model().objects.filter(pk=parse_id(request.POST.get("user_id")) or 0))
        elif form.is_valid():
            user = get_user_model().objects.filter(username=form.cleaned_data["username"]).first()
            if user is None:
                form.add_error("username", "no user with that name")
            elif user == request.user:
                form.add_error("username", "you own this design already")
            else:
                design.shared_with.add(user)
                messages.success(request, f"Shared read-only with {user.username}.")
                return redirect("design-share", pk=design.pk)
        if not form.errors:
            return redirect("design-share", pk=design.pk)
    design.refresh_from_db()
    link = request.build_absolute_uri(f"/s/{design.share_token}/") if design.share_token else None
    return render(request, "designer/share.html", {"design": design, "form": form, "link": link})


def _compared(request: HttpRequest) -> list[DesignRevision] | None:
    """2–4 revisions (?r=<revision id>) or designs' latest revisions (?d=<design id>), oldest first; None when
    the count is off. An id that is not a number, or not the user's to read, is a 404."""
    revisions: list[DesignRevision] = []
    for rid in request.GET.getlist("r"):
        if parse_id(rid) is None:
            raise Http404("no such revision")
        revisions.append(visible_revision(request.user, parse_id(rid)))
    for did in request.GET.getlist("d"):
        if parse_id(did) is None:
            raise Http404("no such design")
        revisions.append(visible_design(request.user, parse_id(did)).revisions.order_by("-number").first())
    return oldest_first(revisions) if 2 <= len(revisions) <= 4 else None


@login_required
def compare(request: HttpRequest) -> HttpResponse:
    """Compare 2–4 revisions (?r=<revision id>) or designs' latest revisions (?d=<design id>)."""
    revisions = _compared(request)
    if revisions is None:
        messages.error(request, "Pick between 2 and 4 designs or revisions to compare.")
        return redirect("design-list")
    rows = comparison_rows(revisions)
    columns = [(f"#{i + 1} r{r.number}", r.results) for i, r in enumerate(revisions)]
    diff, _ = bom_diff_rows(revisions)
    return render(
        request,
        "designer/compare.html",
        {
            "revisions": revisions,
            "summary": summary_rows(revisions),
            "inputs": [row for row in rows if row.section == "input" and row.differs],
            "rows": rows,
            "chart": charts.compare_chart(columns),
            "diff_count": sum(1 for row in rows if row.differs),
            "bom_diff": [_diff_view(row) for row in diff if row.differs],
            "bom_diff_same": sum(1 for row in diff if not row.differs),
            "bom_diff_summary": [diff_summary(diff, i) for i in range(1, len(revisions))],
            "bom_diff_query": request.GET.urlencode(),
        },
    )


def _diff_view(row) -> dict:
    """A BOM-diff row as the template shows it: per column quantity, cost and, after the first, deltas."""
    cells = []
    for i, t in enumerate(row.totals):
        status = row.status(i) if i else ""
        cells.append({"t": t, "status": status, "dq": row.quantity_delta(i), "dc": row.cost_delta_usd(i)})
    return {"row": row, "cells": cells, "differs": row.differs}


@login_required
def compare_bom_diff(request: HttpRequest) -> HttpResponse:
    """The BOM diff by part number of the compared revisions as xlsx (live Δ formulas, cached values)."""
    revisions = _compared(request)
    if revisions is None:
        return HttpResponse("compare 2 to 4 revisions (r=) or designs (d=)", status=400, content_type="text/plain")
    return bom_diff_response(revisions)


def bom_diff_response(revisions: list[DesignRevision]) -> HttpResponse:
    from bom.diff_export import diff_xlsx

    diff, labels = bom_diff_rows(revisions)
    names = "; ".join(f"{label} = {r.name} r{r.number}" for label, r in zip(labels, revisions, strict=True))
    data = diff_xlsx(diff, labels, title=f"BOM diff by part number ({names})")
    resp = HttpResponse(data, content_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    resp["Content-Disposition"] = 'attachment; filename="bom-diff.xlsx"'
    return resp


@login_required
@require_http_methods(["GET", "POST"])
def tokens(request: HttpRequest) -> HttpResponse:
    form = TokenForm(request.POST or None)
    new_key = None
    if request.method == "POST":
        if request.POST.get("action") == "revoke":
            ApiToken.objects.filter(user=request.user, pk=parse_id(request.POST.get("token_id")) or 0).update(
                revoked_at=timezone.now()
            )
            return redirect("tokens")
        if form.is_valid():
            _token, new_key = ApiToken.issue(
                request.user,
                form.cleaned_data["name"],
                timezone.now() + timedelta(days=form.cleaned_data["expires_in_days"]),
                read_only=form.cleaned_data["read_only"],
            )
            form = TokenForm()
    response = render(
        request,
        "designer/tokens.html",
        {"form": form, "tokens": request.user.api_tokens.all(), "new_key": new_key},
    )
    response["Cache-Control"] = "no-store"  # a new key is shown once: no cache may keep the page
    return response


@require_GET
def health(request: HttpRequest) -> JsonResponse:
    """Database and worker liveness. ``?worker=1``: staff send a ping task (waits ≤ 5 s, answer kept
    30 s); anyone else gets the last kept answer — an anonymous request never sends a task."""
    status: dict[str, object] = {}
    try:
        with connection.cursor() as cur:
            cur.execute("SELECT 1")
        status["database"] = "ok"
    except Exception as exc:
        status["database"] = f"error: {exc}"
    if request.GET.get("worker"):
        from django.core.cache import cache

        from designer.tasks import ping

        if request.user.is_staff:
            try:
                status["worker"] = ping.delay().get(timeout=5)
            except Exception as exc:
                status["worker"] = f"no answer: {type(exc).__name__}"
            cache.set("health:worker", status["worker"], 30)
        elif cache.get("health:worker") is not None:
            status["worker"] = cache.get("health:worker")
    ok = status.get("database") == "ok" and status.get("worker", "pong") == "pong"
    return JsonResponse(status, status=200 if ok else 503)


def not_found(request: HttpRequest, exception=None) -> HttpResponse:
    """404: JSON under /api/ (as every other API answer), the site's page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found."}, status=404)
    from django.views.defaults import page_not_found

    return page_not_found(request, exception)
