"""The failure page (#37.2): what one failed switch costs, class by class, and the bisection left after k random
switch failures — computed in the request only when it fits the request budget (the Monte Carlo's time is
estimated from one max-flow on this fabric first); beyond it the page says so and gives the CLI command."""

from __future__ import annotations

import itertools

import plotly.graph_objects as go
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from cluster.failures import MAX_K, MAX_SAMPLES, FailureInputError, estimated_s, failure_report
from designer.access import visible_design
from designer.services import evaluate_requirements, requirements_of


def _int(raw: str | None, name: str, default: int, errors: dict[str, str]) -> int:
    if raw in (None, ""):
        return default
    if not (raw.isascii() and raw.isdigit() and len(raw) < 10):
        errors[name] = f"{raw!r} is not a whole number"
        return default
    return int(raw)


@require_GET
def design_failures(request: HttpRequest, pk: int, number: int | None = None) -> HttpResponse:
    design = visible_design(request.user, pk)
    revisions = design.revisions.all()
    revision = get_object_or_404(revisions, number=number) if number else revisions.order_by("-number").first()
    errors: dict[str, str] = {}
    k = _int(request.GET.get("k"), "k", 4, errors)
    samples = _int(request.GET.get("samples"), "samples", 500, errors)
    seed = _int(request.GET.get("seed"), "seed", 1, errors)
    plan = evaluate_requirements(requirements_of(revision)).plan
    report = chart = None
    cli = f"cluster-designer failures FILE.yaml --k {k} --samples {samples} --seed {seed}"
    if not errors:
        budget = settings.FAILURE_REQUEST_MS / 1000
        need = estimated_s(plan.fabric, samples)
        if need > budget:
            per = need / samples
            errors["samples"] = (
                f"{samples:,} samples take about {need:.1f} s on this fabric ({per * 1000:.1f} ms each), more than "
                f"the {budget:g} s a page may compute: ask for at most {int(budget / per):,} here, or run `{cli}` "
                "on the design's requirements file"
            )
    if not errors:
        try:
            report = failure_report(plan, k=k, samples=samples, seed=seed)
        except FailureInputError as exc:
            errors.update(exc.errors)
    if report:
        h = report["monte_carlo"]["histogram"]
        edges = h["edges_gbps"]
        mids = [(a + b) / 2 / 1000 for a, b in itertools.pairwise(edges)]
        fig = go.Figure(go.Bar(x=mids, y=h["counts"], marker_color="#2457c5", name="samples"))
        fig.add_vline(x=report["bisection_gbps"] / 1000, line_dash="dash", annotation_text="intact",
                      annotation_position="top left")  # fmt: skip
        fig.update_layout(
            title=f"Bisection left after {k} random switch failures ({samples:,} samples, seed {seed})",
            xaxis_title="bisection left [Tbit/s]", yaxis_title="samples", height=360, margin={"t": 60},
            showlegend=False,
        )  # fmt: skip
        chart = {"failures": fig.to_plotly_json()}
    return render(
        request,
        "designer/failures.html",
        {"design": design, "revision": revision, "report": report, "errors": errors, "charts": chart,
         "k": k, "samples": samples, "seed": seed, "max_k": MAX_K, "max_samples": MAX_SAMPLES, "cli": cli},
    )  # fmt: skip
