"""The NetBox import set's rules that a real NetBox enforced (tests/bom/test_netbox_roundtrip.py found them)."""

from __future__ import annotations

import csv
import io

from bom.netbox import netbox_files
from bom.plan import Catalog, floor_sheets
from cluster.pipeline import plan_cluster
from cluster.requests import bom_request
from cluster.validate import validate_flat


def test_one_manufacturer_per_slug():
    """NetBox 4.7 refused the seed design's 2-manufacturers.csv: "Record 4 slug: Manufacturer with this Slug
    already exists" — the catalog's vendor "generic" beside the "Generic" of a part it does not list. Every
    manufacturer column now names one manufacturer per slug, the same in the devices and device types."""
    r = validate_flat({"gpu_count": 64})
    catalog = Catalog.built_in()
    plan = plan_cluster(r, catalog)
    rows, elev = floor_sheets(bom_request(r), plan.fabric, plan.storage, plan.management, catalog)
    skus = sorted({p.sku for rack in elev.racks for p in rack.placements})
    vendors = {skus[0]: "generic", skus[1]: "GENERIC"}  # skus[2:]: unknown → "Generic"
    files = netbox_files(elev, rows, site="Site", vendors=vendors)
    read = {name: list(csv.DictReader(io.StringIO(text))) for name, text in files.items()}
    makers = [m["name"] for m in read["2-manufacturers.csv"]]
    assert makers == ["GENERIC"] and [m["slug"] for m in read["2-manufacturers.csv"]] == ["generic"]
    assert {t["manufacturer"] for t in read["4-device-types.csv"]} == {"GENERIC"}
    assert {d["manufacturer"] for d in read["6-devices.csv"]} == {"GENERIC"}
