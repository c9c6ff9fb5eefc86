"""The default catalog and price book, with the provenance of every price and of every part.

The catalog is data: bom/data/catalog.toml (versioned by its ``catalog_version``), read once here. Each part
names its maker, the maker's orderable part number where one is published, and the page that says so (URL and
date read); a part kept generic says why. The price-book loader (bom/models.py load_default_catalog) turns
these parts into database rows.

"seed Table 14-25/14-26" prices come from the source chapter; everything marked as an assumption is a round
planning figure, not a quote — edit the price book before buying.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from bom.catalog_file import CatalogFile, read_catalog
from bom.parts import PartKind, PartSpec

SEED = "seed chapter Table 14-25 (network BOM)"
SEED_TCO = "seed chapter Table 14-26 (TCO)"
ASSUMED = "planning assumption (no public list price); replace with a quote"
INCLUDED_IN_RACK = "included in the rack-scale system (priced with its compute trays)"
# the {NAME}s a row's price_source may use
PROVENANCE = {"SEED": SEED, "SEED_TCO": SEED_TCO, "ASSUMED": ASSUMED, "INCLUDED_IN_RACK": INCLUDED_IN_RACK}

CATALOG_FILE = Path(__file__).resolve().parent / "data" / "catalog.toml"


@cache
def built_in() -> CatalogFile:
    """The built-in catalog file, read (and checked) once."""
    return read_catalog(CATALOG_FILE, PROVENANCE)


CATALOG_VERSION: int = built_in().version
DEFAULT_PRICE_BOOK: dict = built_in().price_book
DEFAULT_PARTS: tuple[PartSpec, ...] = built_in().parts
# each default switch's cages: (form factor, electrical lane rate [Gbit/s]), as its row declares them
SWITCH_CAGES: dict[str, tuple[str, float]] = {
    p.sku: (p.form_factor, p.lane_gbps) for p in DEFAULT_PARTS if p.kind == PartKind.SWITCH
}
