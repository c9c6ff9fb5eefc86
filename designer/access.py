"""Who may see or change a design. Anyone else gets 404 — never 403 — so existence leaks nothing.

A signed-in user may open their own designs, those shared with them and the demos.
"""

from __future__ import annotations

from django.http import Http404

from designer.models import Design, DesignRevision


def visible_design(user, pk: int) -> Design:
    try:
        return Design.objects.readable_by(user).get(pk=pk)
    except Design.DoesNotExist:
        raise Http404("no such design") from None


def owned_design(user, pk: int, *, include_deleted: bool = False) -> Design:
    qs = Design.objects.owned_by(user)
    if not include_deleted:
        qs = qs.alive()
    try:
        return qs.get(pk=pk)
    except Design.DoesNotExist:
        raise Http404("no such design") from None


def visible_revision(user, revision_id: int) -> DesignRevision:
    try:
        rev = DesignRevision.objects.select_related("design").get(pk=revision_id)
    except DesignRevision.DoesNotExist:
        raise Http404("no such revision") from None
    if not Design.objects.readable_by(user).filter(pk=rev.design_id).exists():
        raise Http404("no such revision")
    return rev
