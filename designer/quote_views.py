"""Supplier quotes in (#38.2): upload a quote against a price book (staff, as every catalog write), see which lines
matched which part, and re-price a design from the current book as a new revision, compared with the old."""

from __future__ import annotations

from datetime import date

from django import forms
from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from bom.models import PriceBook, Quote
from bom.quote_import import MAX_QUOTE_BYTES
from bom.quotes import QuoteRefused, apply_quote
from designer.access import visible_design


class QuoteForm(forms.Form):
    price_book = forms.ModelChoiceField(queryset=PriceBook.objects.filter(is_active=True), help_text=(
        "The quote is applied to a new version of this book; the old version keeps pricing old revisions"))  # fmt: skip
    supplier = forms.CharField(max_length=100)
    reference = forms.CharField(max_length=60, help_text="The supplier's quote number")
    quoted_on = forms.DateField(initial=date.today, help_text="YYYY-MM-DD")
    file = forms.FileField(help_text=(
        "xlsx or csv, first row the column names: part number (MPN/SKU), unit price; optional quantity, currency, "
        f"discount %, lead time (weeks), valid until; at most {MAX_QUOTE_BYTES // 2**20} MiB"))  # fmt: skip


@staff_member_required
@require_http_methods(["GET", "POST"])
def quote_new(request: HttpRequest) -> HttpResponse:
    form = QuoteForm(request.POST or None, request.FILES or None, initial={"price_book": PriceBook.current()})
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        if upload.size > MAX_QUOTE_BYTES:
            form.add_error("file", f"{upload.size:,} bytes is more than the {MAX_QUOTE_BYTES:,} a quote file may have")
        else:
            try:
                applied = apply_quote(
                    form.cleaned_data["price_book"],
                    upload.read(),
                    upload.name or "",
                    supplier=form.cleaned_data["supplier"],
                    reference=form.cleaned_data["reference"],
                    quoted_on=form.cleaned_data["quoted_on"],
                    user=request.user,
                )
            except QuoteRefused as exc:
                for field, msgs in exc.errors.items():
                    for m in msgs:
                        form.add_error(field if field in form.fields else None, m)
            else:
                m = applied.match
                messages.success(request, f"{applied.book}: {len(m.matched)} line(s) applied, "
                                          f"{len(m.unmatched)} unmatched")  # fmt: skip
                return redirect("quote-detail", pk=applied.quote.pk)
    return render(request, "designer/quote_new.html", {"form": form})


@staff_member_required
def quote_detail(request: HttpRequest, pk: int) -> HttpResponse:
    quote = get_object_or_404(Quote.objects.select_related("price_book"), pk=pk)
    return render(request, "designer/quote_detail.html", {"quote": quote, "report": quote.report or {}})


@login_required
@require_POST
def design_reprice(request: HttpRequest, pk: int) -> HttpResponse:
    """The design's head re-evaluated on the current price book as a new revision; the two open in compare."""
    from cluster.requirements import Requirements
    from designer.services import evaluate_requirements, save_revision

    design = visible_design(request.user, pk)
    if not design.can_edit(request.user):
        messages.error(request, "Only the owner can add a revision; duplicate the design to re-price it.")
        return redirect("design-detail", pk=pk)
    head = design.revisions.order_by("-number").first()
    book = PriceBook.current()
    requirements = Requirements.from_flat(head.requirements())  # as saved: "empty = choose for me" stays empty
    evaluation = evaluate_requirements(requirements)
    new = save_revision(design, request.user, requirements, evaluation,
                        f"re-priced from {book or 'the built-in catalog'}")  # fmt: skip
    return redirect(f"{reverse('compare')}?r={head.pk}&r={new.pk}")
