"""A NetBox import set: the design's racks, devices (rack + U position) and cables (pure: no Django).

One CSV per NetBox object type, in the order NetBox needs them to exist, with the column names
of NetBox's bulk-import forms (netbox/dcim/forms/bulk_import.py, NetBox v4.1 to v4.7: SiteImportForm,
ManufacturerImportForm, DeviceRoleImportForm, DeviceTypeImportForm, RackImportForm,
DeviceImportForm, InterfaceImportForm, CableImportForm) and the cable types of
``CableTypeChoices`` (netbox/dcim/choices.py). Import them in the numbered order (Import on each
object list, "CSV"), or with netbox-docker's initializers. Cables and devices are "planned".
The seed design's set is imported into NetBox 4.7.3 and read back by the services suite.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Iterable, Mapping
from typing import Any

from bom.elevation import Elevations
from bom.export import checks_text, safe_text

CABLE_TYPES = {  # bom.parts.CableMedia → NetBox CableTypeChoices
    "dac": "dac-passive",
    "acc": "dac-active",
    "aoc": "aoc",
    "fibre_mpo": "mmf-om4",
    "fibre_lc": "mmf-om4",
    "fibre_mpo_sm": "smf-os2",
    "fibre_lc_sm": "smf-os2",
    "copper_rj45": "cat6",
}
ROLE_COLORS = {  # NetBox wants a 6-digit hex colour per device role
    "GPU node": "4caf50",
    "switch": "2196f3",
    "patch panel": "9e9e9e",
    "cable manager": "607d8b",
    "PDU": "f44336",
}


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:100] or "item"


def _csv(header: list[str], rows: Iterable[list[Any]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)  # RFC 4180 line ends: a field holding \r or \n is quoted (scheduling/quoting.py)
    w.writerow(header)
    for row in rows:
        w.writerow([safe_text(v) for v in row])
    return buf.getvalue()


def netbox_files(
    elev: Elevations, cabling: Iterable[Mapping[str, Any]], *, site: str, vendors: Mapping[str, str]
) -> dict[str, str]:
    """File name → CSV text. ``vendors``: part number → manufacturer (unknown parts: "Generic")."""
    site_slug = slug(site)
    placements = [(rack, p) for rack in elev.racks for p in rack.placements]
    maker = _manufacturers({p.sku for _, p in placements}, vendors)
    types = sorted({(maker[p.sku], p.sku, p.height_u) for _, p in placements})
    roles = sorted({p.kind for _, p in placements})
    cables = list(cabling)
    interfaces = sorted(
        {(c[f"{end}_device"], c[f"{end}_port"]) for c in cables for end in ("a", "z")}, key=lambda x: (x[0], x[1])
    )
    return {
        "1-sites.csv": _csv(["name", "slug", "status"], [[site, site_slug, "planned"]]),
        "2-manufacturers.csv": _csv(["name", "slug"], [[m, slug(m)] for m in sorted({t[0] for t in types})]),
        "3-device-roles.csv": _csv(
            ["name", "slug", "color"], [[role, slug(role), ROLE_COLORS.get(role, "795548")] for role in roles]
        ),
        "4-device-types.csv": _csv(
            ["manufacturer", "model", "slug", "part_number", "u_height", "is_full_depth"],
            [[m, sku, slug(f"{m}-{sku}-{u}u"), sku, u, "true" if u else "false"] for m, sku, u in types],
        ),
        "5-racks.csv": _csv(
            ["site", "name", "status", "width", "u_height", "comments"],
            [
                [site, r.name, "planned", 19, r.rack_u, f"{r.kind} rack, row {r.name[1:].split('-')[0]}"]
                for r in elev.racks
            ],
        ),
        "6-devices.csv": _csv(
            ["name", "role", "manufacturer", "device_type", "site", "rack", "position", "face", "status"],
            [
                [
                    p.device,
                    p.kind,
                    maker[p.sku],
                    p.sku,
                    site,
                    rack.name,
                    p.u or "",
                    "front" if p.u else "",
                    "planned",
                ]
                for rack, p in placements
            ],
        ),
        "7-interfaces.csv": _csv(["device", "name", "type"], [[d, port, "other"] for d, port in interfaces]),
        "8-cables.csv": _cables_csv(cables),
    }


def _manufacturers(skus: set[str], vendors: Mapping[str, str]) -> dict[str, str]:
    """Part number → manufacturer name, one name per slug: NetBox refuses a second manufacturer whose slug is
    taken ("Manufacturer with this Slug already exists"), e.g. the catalog's "generic" beside the "Generic" of
    parts it does not list."""
    named = {sku: vendors.get(sku) or "Generic" for sku in skus}
    canonical: dict[str, str] = {}
    for name in sorted(set(named.values())):
        canonical.setdefault(slug(name), name)
    return {sku: canonical[slug(name)] for sku, name in named.items()}


CABLE_HEADERS = [
    "side_a_device",
    "side_a_type",
    "side_a_name",
    "side_b_device",
    "side_b_type",
    "side_b_name",
    "type",
    "status",
    "label",
    "length",
    "length_unit",
    "description",
]


def _cables_csv(cables: list[Mapping[str, Any]]) -> str:
    return _csv(
        CABLE_HEADERS,
        [
            [
                c["a_device"],
                "dcim.interface",
                c["a_port"],
                c["z_device"],
                "dcim.interface",
                c["z_port"],
                CABLE_TYPES.get(c.get("cable_media", ""), ""),
                "planned",
                c["label"],
                c["length_m"],
                "m",
                f"{c['cable']}; {c['segment']}",
            ]
            for c in cables
        ],
    )


def netbox_zip(files: Mapping[str, str], checks: list[dict[str, Any]] | None = None) -> bytes:
    """The files in one zip with a README: how to import them, then the design's one list of checks (the same
    list as its page and its other exports, cluster.pipeline) when given."""
    readme = (__doc__ or "").strip() + "\n"
    if checks is not None:
        readme += "\nChecks of the design (the same list as its page, the xlsx Checks sheet and bom.csv):\n"
        readme += checks_text(checks)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("README.txt", readme)
        for name, text in files.items():
            z.writestr(name, text)
    return buf.getvalue()
