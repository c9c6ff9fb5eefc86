"""Server-rendered pages. Views only fetch and hand over; computing is services' job."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.db import connection
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from designer.services import RequirementsError, evaluate, evaluate_examples, load_requirements_file

EXAMPLES_DIR = Path(settings.BASE_DIR) / "examples"


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    rows = []
    for filename, ev in evaluate_examples(EXAMPLES_DIR):
        slug = filename.removesuffix(".yaml")
        if isinstance(ev, RequirementsError):
            rows.append({"slug": slug, "error": str(ev)})
        else:
            rows.append({"slug": slug, "result": ev.result})
    return render(request, "designer/home.html", {"rows": rows})


@require_GET
def example_detail(request: HttpRequest, slug: str) -> HttpResponse:
    path = EXAMPLES_DIR / f"{slug}.yaml"
    if not path.is_file():
        raise Http404("no such example")
    try:
        ev = evaluate(load_requirements_file(path))
    except RequirementsError as exc:
        return render(request, "designer/example.html", {"slug": slug, "errors": exc.errors}, status=422)
    fabric = ev.result["compute_fabric"]
    return render(
        request,
        "designer/example.html",
        {"slug": slug, "result": ev.result, "fabric": fabric, "source": path.read_text(encoding="utf-8")},
    )


@require_GET
def health(request: HttpRequest) -> JsonResponse:
    """Database and worker liveness; ``?worker=1`` also sends a ping task (waits ≤ 5 s)."""
    status: dict[str, object] = {}
    try:
        with connection.cursor() as cur:
            cur.execute("SELECT 1")
        status["database"] = "ok"
    except Exception as exc:
        status["database"] = f"error: {exc}"
    if request.GET.get("worker"):
        from designer.tasks import ping

        try:
            status["worker"] = ping.delay().get(timeout=5)
        except Exception as exc:
            status["worker"] = f"no answer: {type(exc).__name__}"
    ok = status.get("database") == "ok" and status.get("worker", "pong") == "pong"
    return JsonResponse(status, status=200 if ok else 503)
