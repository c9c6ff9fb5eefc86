"""The calculators page (/tools/) and its API (POST /api/v1/tools/{name}/): scheduling.calculators on a form
or a JSON body, refusals as field errors."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.decorators import api_view, parser_classes
from rest_framework.response import Response

from designer.api.parsers import DecimalJSONParser
from designer.labels import key_label, shown
from scheduling import SchedulerInputError
from scheduling.calculators import CALCULATORS, json_type_errors, request_schema, run


@require_GET
def tools(request: HttpRequest) -> HttpResponse:
    """Every calculator with its form; ``?calc=name&…`` runs one and shows its result under its form."""
    chosen = request.GET.get("calc", "")
    if chosen and chosen not in CALCULATORS:
        raise Http404("no such calculator")
    cards = []
    for calc in CALCULATORS.values():
        values = (
            {i.name: request.GET.get(i.name, str(i.default)) for i in calc.inputs}
            if chosen == calc.name
            else {i.name: str(i.default) for i in calc.inputs}
        )
        result, errors = None, {}
        if chosen == calc.name:
            try:
                result = run(calc.name, values)
            except SchedulerInputError as exc:
                errors = exc.errors
        rows = _rows(result) if result else []
        card = {"calc": calc, "values": values, "result": result, "rows": rows, "errors": errors}
        cards.append({**card, "open": chosen == calc.name})
    return render(request, "designer/tools.html", {"cards": cards, "chosen": chosen})


HIDDEN = {"mig_parted", "snippet", "derivations", "checks", "derivation"}


def _show(value, key: str = "") -> str:
    """A figure as text in its key's unit (designer/labels.py); dicts and lists item by item."""
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_show(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "; ".join(_show(v) for v in value)
    return shown(key, value)


def _rows(result: dict) -> list[tuple[str, str, str]]:
    """(label, value, derivation) per figure of a result, the derivation beside the figure it explains."""
    why = result.get("derivations", {})
    rows = [(key_label(k), _show(v, k), why.get(k, "")) for k, v in result.items() if k not in HIDDEN]
    if "derivation" in result:
        rows.append(("how", "", result["derivation"]))
    if "groups" in result:  # MIG: one row per group of GPUs
        groups = []
        for g in result["groups"]:
            gpus = g["gpus"]
            span = f"GPU {gpus[0]}" if len(gpus) == 1 else f"GPUs {gpus[0]}–{gpus[-1]}"
            groups.append((span, " + ".join(f"{n} × {p}" for p, n in g["layout"].items()) or "MIG off", ""))
        rows = groups + [r for r in rows if r[0] != "groups"]
    if "shares" in result:  # Fair Tree: one row per account
        rows = [(k, f"{v:.6g}", result["derivations"][k]) for k, v in result["shares"].items()]
    return rows


def _api_view(name: str):
    """POST /api/v1/tools/<name>/: 400 for a malformed body (JSON types, unknown inputs), 422 when the
    calculator refuses well-formed inputs, with field errors under 'errors'."""
    calc = CALCULATORS[name]

    @extend_schema(
        operation_id=f"tools_{name.replace('-', '_')}",
        request={"application/json": request_schema(name)},
        responses={
            200: OpenApiTypes.OBJECT,
            400: OpenApiResponse(OpenApiTypes.OBJECT, description="malformed: field errors under 'errors'"),
            422: OpenApiResponse(OpenApiTypes.OBJECT, description="refused by the calculator: field errors"),
        },
        description=f"{calc.title} ({calc.source}). Omitted inputs take the seed's figures.",
    )
    @api_view(["POST"])
    @parser_classes([DecimalJSONParser])
    def view(request):
        bad = json_type_errors(name, request.data)
        if bad:
            return Response({"errors": {k: [v] for k, v in bad.items()}}, status=400)
        try:
            return Response(run(name, request.data))
        except SchedulerInputError as exc:
            return Response({"errors": {k: [v] for k, v in exc.errors.items()}}, status=422)

    view.__name__ = view.__qualname__ = f"tool_{name.replace('-', '_')}"
    return view


TOOL_API_VIEWS = {name: _api_view(name) for name in CALCULATORS}
