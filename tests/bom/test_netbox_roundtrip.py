"""Issue #37 item 3: the seed design's NetBox import set, imported into a real NetBox and read back.

`make test-netbox` runs .ci/netbox-up first: NetBox (the version pinned there) from PyPI in var/netbox-venv,
a clean database, a superuser and an API token, served on $NETBOX_URL. This test stores the seed design
(examples/seed-2000-gpu.yaml) as a revision, downloads its netbox.zip the way the export does
(designer.services.export_bom), and imports each CSV in the numbered order through NetBox's own bulk-import
form (/dcim/<objects>/import/, logged in through the login form) — the page an operator pastes the CSV into.
Then it reads NetBox back over its REST API: the version (/api/status/), the site, every rack, every device
with its rack and U, every interface and every cable with both terminations, and compares them with the
design's floor plan (designer.services.revision_floor) row by row. Phases (a delta import) do not exist yet.

`make test-services` (so .ci/run, CI) starts NetBox and runs it with the whole suite; `make test-netbox` runs it
alone. Without $NETBOX_URL (a plain `pytest`, `make test`, `make test-services NETBOX=0`) it is skipped, saying so.
"""

from __future__ import annotations

import csv
import html
import io
import json
import os
import re
import time
import urllib.parse
import urllib.request
import zipfile
from http.cookiejar import CookieJar
from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLES, ROOT

pytestmark = [pytest.mark.services, pytest.mark.django_db]

NETBOX_ROOT = Path(os.environ.get("NETBOX_ROOT", ROOT / "var" / "netbox"))
PINNED = re.search(r"^NETBOX_VERSION=(\S+)", (ROOT / ".ci" / "netbox-up").read_text(), re.M).group(1)
IMPORT_PATHS = {  # the numbered files → NetBox's bulk-import views (netbox/dcim/urls.py)
    "1-sites.csv": "/dcim/sites/import/",
    "2-manufacturers.csv": "/dcim/manufacturers/import/",
    "3-device-roles.csv": "/dcim/device-roles/import/",
    "4-device-types.csv": "/dcim/device-types/import/",
    "5-racks.csv": "/dcim/racks/import/",
    "6-devices.csv": "/dcim/devices/import/",
    "7-interfaces.csv": "/dcim/interfaces/import/",
    "8-cables.csv": "/dcim/cables/import/",
}
CHUNK_ROWS = 1000  # one bulk import is one transaction: chunks keep each request a few seconds long


class NetBox:
    """A browser session (login form, CSRF cookie) for the import pages and an API token for the REST reads."""

    def __init__(self, url: str, token: str, username: str, password: str):
        self.url = url.rstrip("/")
        self.token = token
        self.cookies = CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies), _NoRedirect())
        self.get_page("/login/")
        status, body = self.post_form("/login/", {"username": username, "password": password, "next": "/"})
        assert status == 302, f"NetBox refused the login ({status}): {_errors(body)}"

    def _csrf(self) -> str:
        return next(c.value for c in self.cookies if c.name == "csrftoken")

    def get_page(self, path: str) -> str:
        with self.opener.open(self.url + path, timeout=60) as resp:
            return resp.read().decode()

    def post_form(self, path: str, fields: dict[str, str]) -> tuple[int, str]:
        data = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": self._csrf()}).encode()
        req = urllib.request.Request(self.url + path, data=data, headers={"Referer": self.url + path})
        try:
            with self.opener.open(req, timeout=1800) as resp:
                return resp.status, resp.read().decode()
        except urllib.error.HTTPError as exc:  # the 302 of a successful import, or an error page
            return exc.code, exc.read().decode(errors="replace")

    def bulk_import(self, path: str, csv_text: str) -> None:
        """One CSV through the import form; NetBox answers a redirect when every record was saved."""
        header, *rows = csv_text.splitlines(keepends=True)
        for start in range(0, max(len(rows), 1), CHUNK_ROWS):
            self.get_page(path)  # as the browser does: the form sets the CSRF cookie
            chunk = header + "".join(rows[start : start + CHUNK_ROWS])
            fields = {"import_method": "direct", "data": chunk, "format": "csv", "csv_delimiter": ","}
            status, body = self.post_form(path, fields)
            assert status == 302, f"{path} rows {start + 1}–{start + CHUNK_ROWS} refused ({status}): {_errors(body)}"

    def api(self, path: str, **params) -> dict:
        query = urllib.parse.urlencode(params)
        req = urllib.request.Request(
            f"{self.url}{path}?{query}", headers={"Authorization": self.token, "Accept": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=600) as resp:
            return json.load(resp)

    def every(self, path: str, fields: str) -> list[dict]:
        """Every object of a list endpoint, only the named fields (NetBox's ?fields=; MAX_PAGE_SIZE = 0 → limit=0)."""
        body = self.api(path, limit=0, fields=fields)
        assert body["next"] is None and len(body["results"]) == body["count"]
        return body["results"]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def _errors(page: str) -> str:
    """The form's error messages from an import page (NetBox renders them as 'Record N field: message')."""
    found = re.findall(r"Record \d+[^<]*", page) or re.findall(r'role="alert">([^<]+)<', page)
    return html.unescape(" | ".join(" ".join(m.split()) for m in found[:10])) or page[:2000]


@pytest.fixture(scope="module")
def netbox() -> NetBox:
    url = os.environ.get("NETBOX_URL")
    if not url:
        pytest.skip("no NetBox: `make test-netbox` starts one (.ci/netbox-up) and sets NETBOX_URL")
    username, password = (NETBOX_ROOT / "admin-login").read_text().split()
    return NetBox(url, (NETBOX_ROOT / "api-token").read_text().strip(), username, password)


def _seed_revision():
    from django.contrib.auth import get_user_model

    from cluster.validate import validate
    from designer.services import create_design, evaluate

    data = yaml.safe_load((EXAMPLES / "seed-2000-gpu.yaml").read_text())
    user = get_user_model().objects.create_user("netbox-roundtrip")
    return create_design(user, validate(data), evaluate(data)).head


def test_the_seed_design_round_trips_through_netbox(netbox):
    from designer.services import export_bom, revision_floor

    revision = _seed_revision()
    body, _, _ = export_bom(revision, "netbox.zip")
    with zipfile.ZipFile(io.BytesIO(body)) as z:
        files = {name: z.read(name).decode() for name in IMPORT_PATHS}
    rows, elev = revision_floor(revision)
    timings = {}
    for name, path in IMPORT_PATHS.items():  # the documented order: each file's references exist before it
        start = time.perf_counter()
        netbox.bulk_import(path, files[name])
        timings[name] = time.perf_counter() - start

    start = time.perf_counter()
    status = netbox.api("/api/status/")
    site = f"{revision.name} r{revision.number}"
    sites = netbox.every("/api/dcim/sites/", "name,status")
    racks = netbox.every("/api/dcim/racks/", "name,u_height,site")
    devices = netbox.every("/api/dcim/devices/", "name,rack,position,face,status")
    interfaces = netbox.every("/api/dcim/interfaces/", "name,device")
    cables = netbox.every("/api/dcim/cables/", "label,type,status,a_terminations,b_terminations")
    timings["read-back"] = time.perf_counter() - start
    print(f"\nNetBox {status['netbox-version']}: " + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items()))

    assert status["netbox-version"] == PINNED
    assert [(s["name"], s["status"]["value"]) for s in sites] == [(site, "planned")]
    # racks: every rack of the floor plan, its height, at the site
    assert sorted((r["name"], r["u_height"], r["site"]["name"]) for r in racks) == sorted(
        (r.name, r.rack_u, site) for r in elev.racks
    )
    # devices: every placement, in its rack at its U (a 0U device — a PDU — has no position)
    planned_devices = sorted(
        (p.device, rack.name, float(p.u) if p.u else None) for rack in elev.racks for p in rack.placements
    )
    read_devices = sorted(
        (d["name"], d["rack"]["name"], float(d["position"]) if d["position"] is not None else None) for d in devices
    )
    assert len(read_devices) == len(planned_devices)
    assert read_devices[:: len(read_devices) // 5][:5] == planned_devices[:: len(planned_devices) // 5][:5]
    assert read_devices == planned_devices
    # interfaces: both ends of every cable
    planned_ifaces = sorted({(c[f"{end}_device"], c[f"{end}_port"]) for c in rows for end in ("a", "z")})
    assert sorted((i["device"]["name"], i["name"]) for i in interfaces) == planned_ifaces
    # cables: one per cut-sheet row, by label, with both terminations
    planned_cables = sorted((c["label"], (c["a_device"], c["a_port"]), (c["z_device"], c["z_port"])) for c in rows)
    read_cables = sorted((c["label"], _end(c["a_terminations"]), _end(c["b_terminations"])) for c in cables)
    assert len(read_cables) == len(planned_cables)
    assert read_cables[:: len(read_cables) // 5][:5] == planned_cables[:: len(planned_cables) // 5][:5]
    assert read_cables == planned_cables
    assert {c["status"]["value"] for c in cables} == {"planned"}
    assert {d["status"]["value"] for d in devices} == {"planned"}
    assert [len(list(csv.reader(io.StringIO(files[n])))) - 1 for n in ("5-racks.csv", "6-devices.csv")] == [
        len(racks),
        len(devices),
    ]


def _end(terminations: list[dict]) -> tuple[str, str]:
    """One cable end: (device, interface) of its single termination."""
    (t,) = terminations
    assert t["object_type"] == "dcim.interface"
    return t["object"]["device"]["name"], t["object"]["name"]
