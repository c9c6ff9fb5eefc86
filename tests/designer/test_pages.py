from __future__ import annotations

import pytest


@pytest.mark.django_db
def test_home_lists_the_example_designs(client):
    r = client.get("/")
    assert r.status_code == 200
    body = r.content.decode()
    assert "Seed 2,000-GPU H100 cluster" in body
    assert "TPU-v4-like 3D torus" in body
    assert "/examples/seed-2000-gpu/" in body


@pytest.mark.django_db
def test_example_page_shows_derivations(client):
    r = client.get("/examples/seed-2000-gpu/")
    assert r.status_code == 200
    body = r.content.decode()
    assert "How each figure was derived" in body
    assert "50.00 TB/s" in body


@pytest.mark.django_db
def test_unknown_example_is_404(client):
    assert client.get("/examples/nope/").status_code == 404


@pytest.mark.django_db
def test_health_reports_database(client):
    r = client.get("/health/")
    assert r.status_code == 200
    assert r.json() == {"database": "ok"}
