"""The live BOM's memo (bom.plan.network_bom) is keyed by the rack plan less its hall: the hall — where each row
stands, for the drawing — is never read by the BOM, so a BOM made with a hall that refuses every read is the same
BOM, and two rack plans that differ in their hall only are one entry."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bom.plan import BOMS, Catalog, floor_plan, network_bom
from cluster.pipeline import plan_planes
from cluster.requests import bom_request, resolve
from cluster.validate import validate_flat


class _Unreadable(dict):
    """A hall that fails the test on any read."""

    def _refuse(self, *_args, **_kwargs):
        raise AssertionError("the BOM read the rack plan's hall")

    __getitem__ = get = items = keys = values = __iter__ = __len__ = __bool__ = __contains__ = _refuse


def _design(gpus: int):
    r = resolve(validate_flat({"gpu_count": gpus}))
    p = plan_planes(r)
    req = bom_request(r)
    catalog = Catalog.built_in()
    return req, p, catalog, floor_plan(req, p.fabric, p.storage, p.management, catalog)


def _lines(bom) -> list[tuple]:
    return [(ln.plane, ln.sku, ln.quantity, ln.derivation) for ln in bom.lines]


@pytest.mark.parametrize("cables", [False, True], ids=["by link class", "per cable"])
def test_the_bom_never_reads_the_hall(cables):
    req, p, catalog, floor = _design(2048)
    assert floor.racks.hall  # the real one: rows to draw
    BOMS.clear()
    real = network_bom(req, p.fabric, p.storage, p.management, catalog, cables=cables, floor=floor)
    BOMS.clear()
    blind = replace(floor, racks=replace(floor.racks, hall=_Unreadable()))
    unread = network_bom(req, p.fabric, p.storage, p.management, catalog, cables=cables, floor=blind)
    assert _lines(unread) == _lines(real) and unread.total_usd() == real.total_usd()


def test_rack_plans_that_differ_in_their_hall_only_are_one_entry():
    req, p, catalog, floor = _design(2048)
    BOMS.clear()
    first = network_bom(req, p.fabric, p.storage, p.management, catalog, floor=floor)
    hits = BOMS.hits
    other = replace(floor, racks=replace(floor.racks, hall={"rows": []}))
    again = network_bom(req, p.fabric, p.storage, p.management, catalog, floor=other)
    assert BOMS.hits == hits + 1 and _lines(again) == _lines(first)
    changed = replace(floor, racks=replace(floor.racks, compute_rack_count=floor.racks.compute_rack_count + 1))
    network_bom(req, p.fabric, p.storage, p.management, catalog, floor=changed)
    assert BOMS.hits == hits + 1  # any other field of the rack plan is still the key's
