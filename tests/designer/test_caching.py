"""Revisions never change: their exports and charts are built once per process and catalog."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import override_settings

from bom.models import PriceBook

pytestmark = pytest.mark.django_db
LOCMEM = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "test-caching"}}


@override_settings(CACHES=LOCMEM)
def test_an_export_is_built_once_and_rebuilt_when_a_price_changes(alice_design, monkeypatch):
    from designer import services

    cache.clear()
    built = []
    real = services._export_bom
    monkeypatch.setattr(services, "_export_bom", lambda *a, **k: built.append(1) or real(*a, **k))
    first = services.export_bom(alice_design.head, "bom.csv")
    assert services.export_bom(alice_design.head, "bom.csv") == first and len(built) == 1
    price = PriceBook.current().prices.get(part__sku="QM9700")
    price.discount_pct = 10
    price.save()  # the cut sheet's cheapest-part choice depends on prices: a new catalog is a new key
    services.export_bom(alice_design.head, "bom.csv")
    assert len(built) == 2
