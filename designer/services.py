"""Persistence and exports around the pure pipeline (no formulas here).

Every caller — the form, the API and the CLI — validates with cluster.validate and computes
with cluster.pipeline.plan_cluster; this module adds what needs Django: the catalog priced
from the current price book, saved revisions, and the export downloads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bom.export import tco_sheet
from bom.plan import Catalog
from cluster.all_errors import beside_flat, beside_nested
from cluster.pipeline import ClusterPlan, Planes, plan_cluster, plan_planes, plan_scheduler
from cluster.requests import bom_request, resolve
from cluster.requirements import Requirements
from cluster.scheduler_files import KUBERNETES_FILES, SLURM_FILES
from cluster.validate import RequirementsError, load_requirements_file, validate, validate_flat
from topology import FabricPlan

__all__ = ["Evaluation", "evaluate", "evaluate_flat", "load_requirements_file", "tco_sheet"]


@dataclass(frozen=True)
class Evaluation:
    """A computed design: the typed plan, its stored JSON and the flat requirements it came from."""

    plan: ClusterPlan
    result: dict[str, Any]

    @property
    def typed(self) -> Requirements:
        return self.plan.requirements

    @property
    def requirements(self) -> dict[str, Any]:
        """As the user gave them (a revision keeps "empty = choose for me" empty)."""
        return (self.plan.inputs or self.plan.requirements).flat()

    @property
    def fabric(self) -> FabricPlan:
        return self.plan.fabric

    @property
    def storage(self):
        return self.plan.storage

    @property
    def management(self):
        return self.plan.management

    @property
    def bom(self):
        return self.plan.bom


def evaluate_requirements(r: Requirements) -> Evaluation:
    """Plan within the per-request budget (settings.MAX_REQUEST_GPUS): a larger design is refused
    before any work, with what to do instead (the CLI, which has no budget)."""
    from django.conf import settings

    budget = settings.MAX_REQUEST_GPUS
    if r.cluster.gpu_count > budget:
        raise RequirementsError(
            {
                "gpu_count": [
                    f"{r.cluster.gpu_count:,} GPUs is more than the {budget:,} a request may plan (about 1.5 s and "
                    f"0.5 GB at the limit); evaluate it with `cluster-designer evaluate FILE.yaml`, which has no budget"
                ]
            },
            unprocessable=True,
        )
    servers = {
        "storage_node_count": r.storage.node_count or 0,
        "mgmt_node_count": r.management.node_count,
        "login_node_count": r.management.login_node_count,
    }
    limit = settings.MAX_REQUEST_SERVERS
    if sum(servers.values()) > limit:  # each is a management port, a ToR share and a rack slot to lay out
        field = max(servers, key=servers.get)
        raise RequirementsError(
            {field: [f"{sum(servers.values()):,} storage, management and login servers is more than the {limit:,} a "
                     "request may plan; evaluate it with `cluster-designer evaluate FILE.yaml`, which has no budget"]},
            unprocessable=True,
        )  # fmt: skip
    plan = plan_cluster(r, current_catalog())
    return Evaluation(plan, plan.result())


def evaluate_flat(flat: dict[str, Any]) -> Evaluation:
    """Flat (form-named) values → validated → computed; errors under the flat names — every field's at once
    (cluster/all_errors.py: the engine's refusals of the fields that parsed join the refused values)."""
    if isinstance(flat, Requirements):
        return evaluate_requirements(flat)
    try:
        r = validate_flat(flat)
    except RequirementsError as exc:
        raise beside_flat(exc, flat, evaluate_requirements) from None
    return evaluate_requirements(r)


def evaluate(data: Any, strict: bool = False) -> Evaluation:
    """Nested (file/API) requirements → validated → computed; errors keep the nested paths.
    ``strict``: JSON types as the API schema states them."""
    try:
        r = validate(data, strict=strict)
    except RequirementsError as exc:
        raise beside_nested(exc, data, evaluate_requirements, strict) from None
    try:
        return evaluate_requirements(r)
    except RequirementsError as exc:
        raise RequirementsError(exc.nested(), exc.unprocessable) from None


def current_catalog() -> Catalog:
    """The catalog priced from the current price book; the built-in defaults before migrations. The database's write
    token (bom.models.CatalogWrites: its triggers change it on every write to the catalog's tables) is read every
    time; where it is the one the kept catalog was read under, that catalog is the answer — the same object, which
    the pipeline's memos know by identity (bom.plan.same_catalog then compares no text). Else the rows are read
    (bom.models.catalog_rows), and rows equal to the last ones read still give the kept catalog."""
    from django.db import DatabaseError

    from bom.models import CatalogWrites, PriceBook, catalog_rows, specs_of_rows

    try:
        token = CatalogWrites.token_now()  # before the rows: rows read after it are as new as it, or newer
        last = _LAST_CATALOG.get("last")  # one (token, rows, catalog), swapped whole: a thread never mixes two
        if token is not None and last is not None and last[0] == token:
            return last[2]
        book = PriceBook.current()
        if book is not None:
            rows = catalog_rows(book)
            if last is not None and last[1] == rows:  # every value equal (a JSON field's lists too): no hash needed
                catalog = last[2]
            else:
                catalog = Catalog(tuple(specs_of_rows(rows)), book.info())
            _LAST_CATALOG["last"] = (token, rows, catalog)
            return catalog
    except DatabaseError:
        pass
    return Catalog.built_in()


_LAST_CATALOG: dict = {}  # "last": the write token and catalog rows last read, the catalog made of them


def requirements_of(revision) -> Requirements:
    """A stored revision's requirements, typed (stored values were validated when saved), with the
    "empty = choose for me" fields resolved as the pipeline resolves them."""
    return resolve(Requirements.from_flat(revision.requirements()))


# --- saved designs ------------------------------------------------------------------------


def changed_fields(old: dict[str, Any], new: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """(field path, old, new) for every requirement that differs between two flat requirement sets."""
    from cluster.requirements import FIELDS

    a, b = Requirements.from_flat(old).flat(), Requirements.from_flat(new).flat()
    return [(f.path, a[f.flat], b[f.flat]) for f in FIELDS if a[f.flat] != b[f.flat]]


def revise(design, user, requirements, evaluation: Evaluation, message: str = ""):
    """(revision, created): a new revision when the requirements changed, else the head as it is."""
    head = design.head
    flat = requirements.flat() if isinstance(requirements, Requirements) else requirements
    if head is not None and not changed_fields(head.requirements(), flat):
        return head, False
    return save_revision(design, user, flat, evaluation, message), True


def save_revision(design, user, requirements: dict[str, Any], evaluation: Evaluation, message: str = ""):
    """Append an immutable revision (inputs + results + derivations) to a design."""
    from django.db import transaction
    from django.db.models import Max
    from django.utils import timezone

    from designer.models import REQUIREMENT_FIELDS, Design, DesignRevision

    if isinstance(requirements, Requirements):
        requirements = requirements.flat()
    with transaction.atomic():
        Design.objects.select_for_update().filter(pk=design.pk).first()
        last = design.revisions.aggregate(n=Max("number"))["n"] or 0
        rev = DesignRevision(
            design=design,
            number=last + 1,
            author=user,
            results=evaluation.result,
            message=message[:200],
            **{name: requirements[name] for name in REQUIREMENT_FIELDS},
        )
        rev.save(force_insert=True)
        Design.objects.filter(pk=design.pk).update(updated_at=timezone.now())
    return rev


def create_design(user, requirements: dict[str, Any], evaluation: Evaluation, message: str = "created"):
    from designer.models import Design

    design = Design.objects.create(owner=user)
    save_revision(design, user, requirements, evaluation, message)
    return design


def clone_design(design, user):
    """A new design owned by ``user`` starting from the source's latest revision."""
    head = design.head
    requirements = head.requirements()
    requirements["name"] = f"{head.name} (copy)"[:200]
    evaluation = evaluate_flat(requirements)
    return create_design(user, requirements, evaluation, message=f"cloned from design {design.pk} r{head.number}")


# --- exports ---------------------------------------------------------------------------------


EXPORT_FORMATS = (
    "bom.xlsx",
    "bom-only.xlsx",
    "bom.csv",
    "bom.json",
    "cabling.csv",
    "cabling.xlsx",
    "racks.csv",
    "netbox.zip",
    "elevations.svg",
    "slurm.zip",
    *SLURM_FILES,
    *KUBERNETES_FILES,
    "roce.yaml",
)
XLSX_MEDIA = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
EXPORT_MEDIA_TYPES = (XLSX_MEDIA, "text/csv", "application/json", "application/zip", "image/svg+xml", "text/plain")


def revision_slurm_files(revision) -> dict[str, str]:
    """A revision's Slurm files (cluster.scheduler_files), from its stored inputs re-planned."""
    from cluster.scheduler_files import slurm_files

    r = requirements_of(revision)
    return slurm_files(r, plan_planes(r).fabric, plan_scheduler(r))


def cabling_plan(r: Requirements, planes: Planes | ClusterPlan, catalog: Catalog | None = None):
    """Cut-sheet rows, one per cable, with the parts the BOM buys for it (bom.plan.cut_sheet)."""
    from bom.plan import cut_sheet

    return cut_sheet(bom_request(r), planes.fabric, planes.storage, planes.management, catalog or current_catalog())


def revision_checks(revision) -> list[dict[str, Any]]:
    """A revision's one list of checks (cluster.pipeline.checks_of): what its page, the API and every export show."""
    from cluster.pipeline import checks_of

    return checks_of(revision.results)


def drawn_checks(revision, elev) -> list[dict[str, Any]]:
    """The one list as an export that draws every rack shows it (cluster.pipeline.with_drawn_racks)."""
    from cluster.pipeline import with_drawn_racks

    return with_drawn_racks(revision_checks(revision), elev.checks())


def stored_bom(revision) -> dict[str, Any]:
    """The BOM saved with a revision (recomputed only for a revision saved before BOMs existed)."""
    return revision.results.get("bom") or evaluate_requirements(requirements_of(revision)).result["bom"]


def revision_cabling(revision, catalog: Catalog | None = None):
    """A revision's cut sheet: the planes re-planned, the parts chosen from ``catalog`` (nothing re-priced)."""
    return revision_floor(revision, catalog)[0]


def revision_floor(revision, catalog: Catalog | None = None):
    """A revision's positioned cut sheet and rack elevations (bom.plan.floor_sheets)."""
    from bom.plan import floor_sheets

    r = requirements_of(revision)
    planes = plan_planes(r)
    return floor_sheets(bom_request(r), planes.fabric, planes.storage, planes.management, catalog or current_catalog())


def cabling_stream(revision, catalog: Catalog | None = None):
    """(csv text chunks, filename) of a revision's cut sheet: the header before any planning (bom.export)."""
    from bom.export import cabling_csv_chunks

    catalog = catalog or current_catalog()
    return cabling_csv_chunks(lambda: revision_cabling(revision, catalog)), f"{_export_base(revision)}-cabling.csv"


def _export_base(revision) -> str:
    import re

    slug = re.sub(r"[^A-Za-z0-9]+", "-", revision.name).strip("-")[:60] or "design"
    return f"{slug}-r{revision.number}"


EXPORT_CACHE_MAX_BYTES = 2_000_000
BOM_ONLY_CONTENTS = (
    "BOM, TCO and price book only: the cut sheet, the rack elevations and their per-rack unit and power checks "
    "are in the full workbook (bom.xlsx; a large design's cut sheet is its own export) and in cabling.xlsx, "
    "cabling.csv and racks.csv"
)


def export_bom(revision, fmt: str, *, show_author: bool = True) -> tuple[bytes, str, str]:
    """An export of a revision, built once per process for the same catalog (revisions never change)."""
    from django.core.cache import cache

    catalog = current_catalog()
    stamp = catalog_stamp(catalog)
    key = f"export:{revision.pk}:{revision.created_at.timestamp()}:{fmt}:{int(show_author)}:{stamp}"
    found = cache.get(key)
    if found is None:
        found = _export_bom(revision, fmt, catalog, show_author=show_author)
        if len(found[0]) <= EXPORT_CACHE_MAX_BYTES:
            cache.set(key, found, 3600)
    return found


def _export_bom(
    revision, fmt: str, catalog: Catalog, *, show_author: bool = True, progress=None
) -> tuple[bytes, str, str]:
    """(content, content type, filename) for every export format but the streamed cabling.csv.
    ``progress(stage, fraction)``: told when the floor plan starts and when the file is being written."""
    import json

    from bom.export import bom_csv, bom_xlsx, cabling_csv, workbook_cut_sheet

    base = _export_base(revision)
    if fmt == "slurm.zip":
        from cluster.scheduler_files import slurm_zip

        files, checks = revision_slurm_files(revision), revision_checks(revision)
        return slurm_zip(files, f"{base}-slurm", checks=checks), "application/zip", f"{base}-slurm.zip"
    if fmt in SLURM_FILES:
        return revision_slurm_files(revision)[fmt].encode(), "text/plain; charset=utf-8", f"{base}-{fmt}"
    if fmt in KUBERNETES_FILES:
        from cluster.scheduler_files import kubernetes_files

        r = requirements_of(revision)
        text = kubernetes_files(r, plan_planes(r).fabric, plan_scheduler(r))[fmt]
        return text.encode(), "text/plain; charset=utf-8", f"{base}-{fmt}"
    if fmt == "roce.yaml":
        roce = revision.results.get("roce") or evaluate_requirements(requirements_of(revision)).result.get("roce")
        text = roce["snippet"] if roce else "# not a RoCE design: its compute switches are not Ethernet\n"
        return text.encode(), "text/plain; charset=utf-8", f"{base}-roce.yaml"
    if fmt == "bom.json":  # its "checks": the design's one list, as bom.csv and the xlsx carry them
        body = {**stored_bom(revision), "checks": revision_checks(revision)}
        return json.dumps(body, indent=2).encode(), "application/json", f"{base}-bom.json"
    if fmt == "bom.csv":  # the BOM alone: no cut sheet to build
        return bom_csv(stored_bom(revision), checks=revision_checks(revision)).encode(), "text/csv", f"{base}-bom.csv"
    if fmt == "cabling.csv":
        return cabling_csv(_floor(revision, catalog, progress)[0]).encode(), "text/csv", f"{base}-cabling.csv"
    if fmt == "cabling.xlsx":  # the cut sheet's own workbook (bom.xlsx leaves it out above WORKBOOK_CUT_SHEET_MAX_ROWS)
        from bom.export import cabling_xlsx

        rows = _floor(revision, catalog, progress)[0]
        about = _revision_line(revision, show_author)
        return cabling_xlsx(rows, design_name=revision.name, revision=about), XLSX_MEDIA, f"{base}-cabling.xlsx"
    if fmt == "racks.csv":
        from bom.elevation import racks_csv

        return racks_csv(_floor(revision, catalog, progress)[1]).encode(), "text/csv", f"{base}-racks.csv"
    if fmt == "elevations.svg":
        from bom.elevation_svg import elevations_svg

        svg = elevations_svg(_floor(revision, catalog, progress)[1])
        return svg.encode(), "image/svg+xml", f"{base}-elevations.svg"
    if fmt == "netbox.zip":
        from bom.netbox import netbox_files, netbox_zip

        rows, elev = _floor(revision, catalog, progress)
        vendors = {p.sku: p.vendor for p in catalog.parts}
        files = netbox_files(elev, rows, site=f"{revision.name} r{revision.number}", vendors=vendors)
        return netbox_zip(files, checks=drawn_checks(revision, elev)), "application/zip", f"{base}-netbox.zip"
    if fmt in ("bom.xlsx", "bom-only.xlsx"):
        full = fmt == "bom.xlsx"  # bom-only: the priced lines, Summary, TCO and price book — no floor plan to build
        rows, elev = _floor(revision, catalog, progress) if full else (None, None)
        rows, contents = workbook_cut_sheet(rows) if full else (None, BOM_ONLY_CONTENTS)  # large: cabling.xlsx
        data = bom_xlsx(
            stored_bom(revision),
            design_name=revision.name,
            design_notes=revision.notes,
            revision=_revision_line(revision, show_author),
            cabling=rows,
            extra_sheets=tco_sheet(revision.results),
            elevations=elev,
            contents=contents,
            checks=drawn_checks(revision, elev) if elev is not None else revision_checks(revision),
        )
        return data, XLSX_MEDIA, f"{base}-{fmt}"
    raise ValueError(f"unknown export {fmt!r}")


def _revision_line(revision, show_author: bool) -> str:
    by = f" by {revision.author.username}" if show_author else ""
    return f"r{revision.number}{by}, {revision.created_at:%Y-%m-%d %H:%M}"


def _floor(revision, catalog: Catalog, progress=None):
    """revision_floor, telling ``progress`` (an export job's) when the floor plan starts and is done."""
    if progress:
        progress("floor plan", 0.05)
    floor = revision_floor(revision, catalog)
    if progress:
        progress("writing the file", 0.5)
    return floor


def catalog_stamp(catalog: Catalog) -> str:
    """A short fingerprint of a catalog's parts and price book: an export built from another is another export."""
    import hashlib

    return hashlib.sha1(repr((catalog.parts, catalog.price_book)).encode()).hexdigest()[:16]
