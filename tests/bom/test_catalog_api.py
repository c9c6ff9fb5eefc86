from __future__ import annotations

from django.test import Client

from bom.models import Part, PriceBook


def test_catalog_loaded_on_first_run(db):
    assert Part.objects.filter(sku="QM9700").exists()
    book = PriceBook.current()
    assert book is not None and book.prices.count() == Part.objects.count()


def test_everyone_reads_only_staff_writes(alice, django_user_model):
    c = Client()
    c.force_login(alice)
    page = c.get("/api/v1/parts/?limit=500").json()
    assert page["count"] == len(page["results"]) > 50  # paginated: the whole catalog in one 500-row page
    assert any(p["sku"] == "QM9700" for p in page["results"])
    assert len(c.get("/api/v1/parts/").json()["results"]) == 50  # default page
    too_many = c.get("/api/v1/parts/?limit=100000")  # a field error, never a silent clamp to 500
    assert too_many.status_code == 400 and "from 1 to 500" in too_many.json()["errors"]["limit"][0]
    for query in ("limit=0", "offset=-1", "offset=null", "offset=1&offset=2", "limit=²"):
        bad = c.get(f"/api/v1/parts/?{query}")
        assert bad.status_code == 400 and set(bad.json()["errors"]) <= {"limit", "offset"}, query
    book = PriceBook.current()
    prices = c.get(f"/api/v1/price-books/{book.pk}/prices/?limit=500").json()["results"]
    assert any(p["sku"] == "QM9700" and p["list_price_usd"] == "65000.00" for p in prices)
    new = {"sku": "TEST-SW", "kind": "switch", "description": "test", "port_count": 32, "port_gbps": 400}
    assert c.post("/api/v1/parts/", new, content_type="application/json").status_code == 403
    staff = django_user_model.objects.create_user("ops", password="x-very-long-1", is_staff=True)
    s = Client()
    s.force_login(staff)
    assert s.post("/api/v1/parts/", new, content_type="application/json").status_code == 201
    bad = s.post("/api/v1/parts/", {**new, "sku": "X2", "port_gbps": -1}, content_type="application/json")
    assert bad.status_code == 400 and "port_gbps" in bad.json()["errors"]
    r = s.post(f"/api/v1/price-books/{book.pk}/new-version/", {"note": "Q1 quotes"}, content_type="application/json")
    assert r.status_code == 201 and r.json()["version"] == 2
    assert PriceBook.objects.get(pk=r.json()["id"]).prices.count() == book.prices.count()


def test_discounted_price_reprices_new_designs(alice):
    from designer.services import current_catalog

    book = PriceBook.current()
    p = book.prices.get(part__sku="QM9700")
    p.discount_pct = 10
    p.save()
    catalog = current_catalog()
    info = catalog.price_book
    qm = next(x for x in catalog.parts if x.sku == "QM9700")
    assert str(qm.unit_price_usd) == "58500.00" and "less 10" in qm.price_source
    assert info["version"] == book.version
