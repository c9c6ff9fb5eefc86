"""Issue #38.1 orderable parts: the built-in catalog is data (bom/data/catalog.toml), and every part in it says
who makes it, the maker's orderable part number where one is published, and where that is published.

Read from the file itself (not from bom.catalog's cached copy), so a bad edit of the data fails here by name.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from bom.catalog import CATALOG_FILE, CATALOG_VERSION, DEFAULT_PARTS, PROVENANCE
from bom.catalog_file import CatalogDataError, Family, generic_where_named, read_catalog, source_problems
from bom.parts import CableMedia, PartKind, PartSpec

TODAY = date.today()


@pytest.fixture(scope="module")
def catalog():
    return read_catalog(CATALOG_FILE, PROVENANCE)


def test_file_is_the_catalog(catalog):
    assert catalog.version == CATALOG_VERSION >= 1
    assert catalog.parts == DEFAULT_PARTS and len(catalog.parts) == 169 + 12  # + the 2FR4 QSFP-DD and 11 CS cords


def test_every_part_has_a_source_url_and_date(catalog):
    for part in catalog.parts:
        assert re.fullmatch(r"https?://[^\s/]+\.[^\s/]+/\S*", part.source_url), part.sku
        assert date.fromisoformat(part.source_date) <= TODAY, part.sku


def test_no_generic_part_where_its_role_has_a_named_maker(catalog):
    """Issue #38 Must show: no part with manufacturer "generic" where the part's role has a named manufacturer in
    the catalog's sources — another part of the role names its maker, or a [[family]] row (a maker's family and
    the page that offers it in that role) covers it. A generic_reason does not excuse one."""
    assert generic_where_named(catalog.parts, catalog.families) == []
    assert source_problems(catalog.parts) == []
    kinds_named = {p.kind for p in catalog.parts if p.manufacturer != "generic"}
    assert kinds_named >= {PartKind.SWITCH, PartKind.NIC, PartKind.TRANSCEIVER, PartKind.CABLE}


def test_part_numbers_are_unique(catalog):
    numbers = [p.mfr_part_number.casefold() for p in catalog.parts if p.mfr_part_number]
    assert len(numbers) == len(set(numbers)) >= 15


def test_switches_and_nics_name_their_maker(catalog):
    """The fabric's switches and NICs are never generic: they are what a plan is bought around."""
    for part in catalog.parts:
        if part.kind in (PartKind.SWITCH, PartKind.NIC):
            assert part.manufacturer in ("NVIDIA", "Arista"), part.sku


# Goldens: the maker's orderable numbers, each as read on the page cited.
NUMBERS = {
    # https://docs.nvidia.com/dgx-superpod-reference-architecture-dgx-h100.pdf (RA-11333-001 V11): "The storage
    # fabric uses MQM9700-NS2F switches"
    "QM9700": ("NVIDIA", "MQM9700-NS2F"),
    # https://docs.nvidia.com/networking/display/800GMMA4Z00NS/Overview: "MMA4Z00-NS 800Gb/s Twin-port OSFP,
    # 2x400Gb/s Multimode 2xSR4, 50m"
    "MMA4Z00-NS": ("NVIDIA", "MMA4Z00-NS"),
    # https://docs.nvidia.com/networking/display/mms4x00nm800g500m/application+overview: "MMS4X00-NM 800Gbps"
    # twin-port, switch to switch "at reaches from 100 to 500 meters"
    "OSFP-800G-2xDR4": ("NVIDIA", "MMS4X00-NM"),
    # https://docs.nvidia.com/networking/display/connectx7firmwarev28441036/Known+Issues: "ConnectX-7
    # MCX75310AAS-NEAT and MCX75310AAC-NEAT OPNs"
    "CX7-NDR-OSFP": ("NVIDIA", "MCX75310AAS-NEAT"),
    # https://docs.nvidia.com/networking/display/mms4x50nm800g2kmpub/application+overview: "MMS4X50-NM 800Gbps
    # Twin-port OSFP 2xFR4, 2x400Gbs Single Mode, 2km"
    "OSFP-800G-2xFR4": ("NVIDIA", "MMS4X50-NM"),
    # https://github.com/netbox-community/devicetype-library (device-types/Arista/DCS-7050CX3-32S-F.yaml, citing
    # Arista's 7050X3 data sheet): part_number DCS-7050CX3-32S-F
    "7050CX3-32S": ("Arista", "DCS-7050CX3-32S-F"),
    # https://github.com/netbox-community/devicetype-library (device-types/Nvidia/Q3400-RA.yaml, citing NVIDIA's
    # Quantum-X800 product page and XDR switch manual): part_number 920-9B36F-00RX-8S0
    "Q3400": ("NVIDIA", "920-9B36F-00RX-8S0"),
    # https://github.com/dell/omnia (README, supported devices): "NVIDIA MQM8700-HS2F Quantum HDR InfiniBand Switch
    # 40 QSFP56"
    "QM8700": ("NVIDIA", "MQM8700-HS2F"),
    # https://www.colfaxdirect.com/store/pc/viewPrd.asp?idproduct=4135: "MSN4700-WS2FC, NVIDIA Mellanox Spectrum-3
    # Based 32-Port Ethernet L3 Data Center Switch, 32 x 400Gb QSFP-DD"
    "SN4700-200G": ("NVIDIA", "MSN4700-WS2FC"),
    # https://docs.nvidia.com/networking/display/connectx8supernic/supported+interfaces (ConnectX-8 SuperNIC user
    # manual): "C8180 SuperNICs • 900-9X81E-00EX-ST0 • 900-9X81E-00EX-DT0"; the C8180 is the one-OSFP-cage card
    # (XDR 800Gb/s or 2 × 400GbE, ConnectX-8 firmware release notes)
    "CX8-800G": ("NVIDIA", "900-9X81E-00EX-ST0"),
    # Issue #38: the optics that were generic, now the host maker's number.
    # https://docs.nvidia.com/networking/display/800g200gpam4list (XDR 200G-PAM4 part-number list): "IHS transceivers
    # or copper cables are only used in air-cooled switches (Q3400, Q3200)"; the IHS 1.6T twin-port 2 × 800G DR4
    # (MPO-12/APC, 500 m) is MMS4A00, ordering number 980-9IAH1-00XM00 (NVIDIA product page 9iahx00xmosfptcvr1600, as
    # tabulated in public inventories of NVIDIA's LinkX pages; the same 980- number in a vendor's Business Wire notice)
    "OSFP-1.6T-2xDR4": ("NVIDIA", "980-9IAH1-00XM00"),
    # same list: "RHS devices are used in ConnectX-8 cages"; the RHS single-port 800G DR4 (1 × MPO-12/APC, 500 m)
    # is MMS4A20, ordering number 980-9IAT0-00XM00 (NVIDIA page 9iat0mosfp800sprhs; a server maker's configurator
    # lists "Transceiver 800G XDR OSFP SM Solo … NVIDIA 980-9IAT0-00XM00")
    "OSFP-800G-DR4": ("NVIDIA", "980-9IAT0-00XM00"),
    # NVIDIA's product specification "MMS4X00-NM16 NVIDIA Ethernet 800Gbps OSFP … finned transceiver, OSFP,
    # 1xMPO16, 1310nm SMF, up to 500m" (docs.nvidia.com PDF, the source_url): ordering number 980-9I30J-F4NM00
    "OSFP-800G-DR8": ("NVIDIA", "MMS4X00-NM16"),
    # NVIDIA's QSFP112 single-port DR4 (product page mms1x00ns400, ordering number 980-9I068-00NM00); reach from
    # https://docs.nvidia.com/networking/display/mms4x00nm800g500m/application+overview: the twin-port "can also link
    # to single port 400G OSFP or QSFP112 form-factor transceivers … but only up to their 100-meter maximum reach"
    "QSFP112-400G-DR4": ("NVIDIA", "MMS1X00-NS400"),
    # NVIDIA's product specification mms1w50hmspec: 200Gb/s QSFP56 FR4, 1310 nm, single mode, duplex LC, 2 km
    "QSFP56-200G-FR4": ("NVIDIA", "MMS1W50-HM"),
    # https://github.com/CumulusNetworks/docs (NVIDIA's Cumulus Linux 5.10 docs, Switch-Port-Attributes.md):
    # "100GBASE-DR1 modules, such as NVIDIA MMS1V70-CM, include internal RS FEC processing"
    "QSFP28-100G-DR": ("NVIDIA", "MMS1V70-CM"),
    # https://github.com/Qumulo/docs/blob/b98164007641d0af6c9ac81c6a77e545f1c84b8e/nics-transceivers-cables.md:
    # "100 Gbps LR4 | MMA1L10-CR | Mellanox QSFP28 Long-Range Transceiver", "100 Gbps SR4 | MMA1B00-C100D | Mellanox
    # QSFP28 Short-Range Transceiver", "25 Gbps LR | MMA2L20-AR | Mellanox SFP28 Long-Range Transceiver"
    "QSFP28-100G-LR4": ("NVIDIA", "MMA1L10-CR"),
    "QSFP28-100G-SR4": ("NVIDIA", "MMA1B00-C100D"),
    "SFP28-25G-LR": ("NVIDIA", "MMA2L20-AR"),
    # https://docs.nvidia.com/networking/display/mma2p00asspec/data+rate+control: "MMA2P00-AS 25GbE SFP28 MMF
    # Transceiver Product Specifications … a 25.78Gbps nominal rate"
    "SFP28-25G-SR": ("NVIDIA", "MMA2P00-AS"),
    # Issue #38, catalog 4: https://github.com/netbox-community/devicetype-library/blob/
    # b39e0ff727d833dd863e3de605cad29e1883b59a/rack-types/APC/AR3300.yaml: "manufacturer: APC", "model: AR3300",
    # "description: NetShelter SX, Server Rack Enclosure, 42U, Black, 1991H x 600W x 1200D mm", "form_factor:
    # 4-post-cabinet"
    "RACK-42U-600x1200": ("APC", "AR3300"),
}


@pytest.mark.parametrize("sku", sorted(NUMBERS))
def test_orderable_part_numbers(catalog, sku):
    part = next(p for p in catalog.parts if p.sku == sku)
    assert (part.manufacturer, part.mfr_part_number) == NUMBERS[sku]


def test_the_single_port_dr4_reaches_what_its_data_sheet_says(catalog):
    """MMS4X00-NS400's product specification: "can link to the 400G OSFP MMS4X00-NS400 transceiver up to
    100-meters" (docs.nvidia.com/networking/display/mms4x00ns400/overview); the QM97xx manual lists it as
    980-9I31N-00NM00 (100m). The catalog said 500 m (a DR4's IEEE reach), which NVIDIA's module does not give."""
    part = next(p for p in catalog.parts if p.sku == "MMS4X00-NS400")
    assert part.reach_m == 100 and "100 m" in part.description and "500 m" not in part.description


def test_the_qsfp112_dr4_reaches_what_nvidia_says(catalog):
    """Issue #38: named MMS1X00-NS400, the QSFP112 DR4 takes NVIDIA's single-port reach: the MMS4X00-NM application
    overview links single-port OSFP or QSFP112 transceivers "only up to their 100-meter maximum reach". It said
    500 m (a DR4's IEEE reach) while generic."""
    part = next(p for p in catalog.parts if p.sku == "QSFP112-400G-DR4")
    assert part.reach_m == 100 and "100 m" in part.description and "500 m" not in part.description


def _broken_copy(tmp_path: Path, old: str, new: str) -> Path:
    text = CATALOG_FILE.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "catalog.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def test_a_part_missing_its_source_is_refused_by_name(tmp_path):
    url = 'source_url = "https://docs.nvidia.com/networking/display/800GMMA4Z00NS/Overview"\n'
    with pytest.raises(CatalogDataError, match=r"part 22 \('MMA4Z00-NS'\): field 'source_url' is missing"):
        read_catalog(_broken_copy(tmp_path, url, ""), PROVENANCE)


def test_the_validator_names_the_part_without_a_source():
    parts = [replace(p, source_url="") if p.sku == "QM9700" else p for p in DEFAULT_PARTS]
    assert source_problems(parts) == ["QM9700: source_url must be an http(s) address, got ''"]


def test_the_validator_catches_each_rule():
    by_sku = {p.sku: p for p in DEFAULT_PARTS}
    bad = [
        replace(by_sku["QM8700"], source_date="2999-01-01"),
        replace(by_sku["MPO12-70M"], generic_reason=""),
        replace(by_sku["QM9700"], mfr_part_number="MMA4Z00-NS"),
        replace(by_sku["MMA4Z00-NS"]),
        replace(by_sku["SN5600"], generic_reason=""),
    ]
    assert source_problems(bad) == [
        "QM8700: source_date 2999-01-01 is in the future",
        "MPO12-70M: generic but no generic_reason says why",
        "SN5600: without a mfr_part_number but no generic_reason says why",
        "MMA4Z00-NS: mfr_part_number 'MMA4Z00-NS' is also QM9700's",
    ]


def _family(**overrides) -> Family:
    values = dict(
        manufacturer="NVIDIA",
        name="MFP7E10",
        kind=PartKind.CABLE,
        match=(("connector", "MPO-12 APC"), ("media", CableMedia.FIBRE_MPO)),
        lengths_m=(3, 5),
        source_url="https://docs.nvidia.com/x",
        source_date="2026-12-06",
        quote="MFP7E10-N003 … 3m",
    )
    return Family(**{**values, **overrides})  # fmt: skip


def _trunk(length_m: float, manufacturer: str = "generic", **more) -> PartSpec:
    return PartSpec(sku=f"MPO-{length_m:g}M", kind=PartKind.CABLE, vendor="", description="trunk",
                    unit_price_usd=Decimal(1), price_source="", media=CableMedia.FIBRE_MPO, connector="MPO-12 APC",
                    length_m=length_m, manufacturer=manufacturer, generic_reason="any vendor", **more)  # fmt: skip


def test_a_generic_part_in_a_role_a_maker_fills_is_named_even_with_a_reason():
    family = _family()
    assert generic_where_named([_trunk(3), _trunk(7)], [family]) == [
        "MPO-3M: generic, but NVIDIA's MFP7E10 family is offered in its role (https://docs.nvidia.com/x)"
    ]  # 7 m: not a length the family is offered in
    assert generic_where_named([_trunk(3, "NVIDIA"), _trunk(7)], [family]) == []
    assert generic_where_named([_trunk(7), _trunk(7, "Corning")]) == [
        "MPO-7M: generic, but a part of the same role names its maker: Corning (MPO-7M)"
    ]
    assert generic_where_named([_trunk(7), _trunk(5, "Corning")]) == []  # another length is another role
    assert generic_where_named([_trunk(3)], [_family(match=(("connector", "MPO-12 UPC"),))]) == []
    assert generic_where_named([_trunk(3)], [_family(lengths_m=())]) != []  # no lengths: every length


def test_an_accessorys_role_is_its_sku_prefix():
    racks = [replace(_trunk(0), sku="RACK-42U", kind=PartKind.ACCESSORY, manufacturer="APC"),
             replace(_trunk(0), sku="RACK-48U", kind=PartKind.ACCESSORY)]  # fmt: skip
    assert generic_where_named(racks) == [
        "RACK-48U: generic, but a part of the same role names its maker: APC (RACK-42U)"
    ]
    assert generic_where_named([racks[1], replace(racks[0], sku="PDU-1")]) == []


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ('name = "MFP7E10"', r"family \d+ \('no name'\): field 'name' is missing"),
        ('kind = "cable"', r"field 'kind' is missing"),
        ('match = { colour = "aqua" }', r"match field 'colour' is not a part field"),
        ('match = { media = "string" }', r"match: field 'media': ValueError\(\"'string' is not a valid CableMedia"),
        ('match = { port_gbps = "400" }', r"field 'port_gbps' must be int"),
        ("lengths_m = [3, -5]", r"'lengths_m' must be a list of lengths > 0"),
        ('source_url = "docs.nvidia.com"', r"family MFP7E10: source_url must be an http\(s\) address"),
        ('match = { media = "dac", port_gbps = 1600 }', r"family MFP7E10: no catalog part is of its role"),
        ('note = "x"', r"unknown field 'note'"),
    ],
)
def test_a_bad_family_row_is_refused_by_name(tmp_path, row, message):
    good = {
        "manufacturer": 'manufacturer = "NVIDIA"', "name": 'name = "MFP7E10"', "kind": 'kind = "cable"',
        "match": 'match = { media = "fibre_mpo", connector = "MPO-12 APC" }', "lengths_m": "lengths_m = [3]",
        "source_url": 'source_url = "https://docs.nvidia.com/x"', "source_date": 'source_date = "2026-12-06"',
        "quote": 'quote = "MFP7E10-N003"',
    }  # fmt: skip
    key = row.split(" =")[0]
    lines = [line for k, line in good.items() if k != key] + ([] if key in ("name", "kind") else [row])
    path = tmp_path / "catalog.toml"
    path.write_text(CATALOG_FILE.read_text(encoding="utf-8") + "\n[[family]]\n" + "\n".join(lines) + "\n")
    with pytest.raises(CatalogDataError, match=message):
        read_catalog(path, PROVENANCE)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('unit_price_usd = "65000"', "unit_price_usd = 65000", r"part 3 \('QM9700'\): field 'unit_price_usd'"),
        ('kind = "switch"', 'kind = "router"', r"part 3 \('QM9700'\): field 'kind'"),
        ("port_count = 64", 'port_count = "64"', r"part 3 \('QM9700'\): field 'port_count' must be int"),
        ("port_count = 64", "port_count = 64\nports = 2", r"part 3 \('QM9700'\): unknown field 'ports'"),
        ('source_date = "2026-12-05"', 'source_date = "5 Dec 2026"', r"NVL5-SWITCH-TRAY: source_date must be an ISO"),
        ("catalog_version = 5", "catalog_version = 0", r"catalog_version must be a whole number"),
        ('price_source = "{SEED}"', 'price_source = "{NOPE}"', r"part 3 \('QM9700'\): field 'price_source'"),
    ],
)
def test_a_malformed_file_is_refused_naming_row_and_field(tmp_path, old, new, message):
    with pytest.raises(CatalogDataError, match=message):
        read_catalog(_broken_copy(tmp_path, old, new), PROVENANCE)


def test_the_file_ships_in_the_package():
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8")
    assert '"bom" = ["data/*.toml"]' in pyproject
    assert CATALOG_FILE.parent.name == "data" and CATALOG_FILE.parent.parent.name == "bom"


def test_the_purchase_line_names_the_maker_and_its_number():
    from bom.build import Purchase

    by_sku = {p.sku: p for p in DEFAULT_PARTS}
    assert (Purchase.of(by_sku["MMA4Z00-NS"]).manufacturer, Purchase.of(by_sku["MMA4Z00-NS"]).mfr_part_number) == (
        "NVIDIA",
        "MMA4Z00-NS",
    )
    qsfp112 = Purchase.of(by_sku["QSFP112-400G-SR4"])  # the catalog's vendor is "generic"; NVIDIA makes it
    assert (qsfp112.manufacturer, qsfp112.mfr_part_number) == ("NVIDIA", "MMA1Z00-NS400-T")
    old_row = replace(by_sku["QM9700"], manufacturer="", mfr_part_number="")  # a row from before the fields
    assert (Purchase.of(old_row).manufacturer, Purchase.of(old_row).mfr_part_number) == ("NVIDIA", "")


def test_a_quote_line_matches_by_the_makers_part_number():
    from decimal import Decimal

    from bom.quote_import import QuoteLine, match_lines

    def line(number: str) -> QuoteLine:
        return QuoteLine(2, number, Decimal("1"), 1, "USD", Decimal("0"), None, None)

    skus = [p.sku for p in DEFAULT_PARTS]
    numbers = {p.mfr_part_number: p.sku for p in DEFAULT_PARTS if p.mfr_part_number}
    got = match_lines([line("mqm9700-ns2f"), line("QM9700"), line("XYZ")], skus, {}, part_numbers=numbers)
    assert [(m.sku, m.how) for m in got.matched] == [
        ("QM9700", "manufacturer part number mqm9700-ns2f → QM9700"),
        ("QM9700", "part number"),
    ]
    assert [u.part_number for u in got.unmatched] == ["XYZ"]
    assert match_lines([line("MQM9700-NS2F")], skus, {}).matched == ()  # without the numbers: unmatched


def test_the_database_rows_carry_the_sources(alice):
    """The loader fills the new columns; the catalog API and the planning specs carry them."""
    from django.test import Client

    from bom.models import Part, catalog_specs

    row = Part.objects.get(sku="QM9700")
    assert (row.manufacturer, row.mfr_part_number, row.source_date.isoformat()) == (
        "NVIDIA",
        "MQM9700-NS2F",
        "2026-12-05",
    )
    spec = next(s for s in catalog_specs() if s.sku == "QM9700")
    assert (spec.mfr_part_number, spec.source_date) == ("MQM9700-NS2F", "2026-12-05")
    c = Client()
    c.force_login(alice)
    parts = c.get("/api/v1/parts/?limit=500").json()["results"]
    got = next(p for p in parts if p["sku"] == "QM9700")
    assert got["mfr_part_number"] == "MQM9700-NS2F" and got["source_url"].startswith("https://docs.nvidia.com/")


def test_the_migration_fills_blanks_and_keeps_user_edits(db):
    """0012's data step: a built-in row gets its maker and source where the field is blank, never over an edit."""
    import importlib

    from django.apps import apps

    from bom.models import Part

    step = importlib.import_module("bom.migrations.0012_part_manufacturer_sources").fill_sources
    Part.objects.filter(sku="QM9700").update(manufacturer="", mfr_part_number="MY-OWN-PN", source_url="")
    Part.objects.filter(sku="MMA4Z00-NS").update(manufacturer="", mfr_part_number="", source_date=None)
    step(apps, None)
    qm, mma = Part.objects.get(sku="QM9700"), Part.objects.get(sku="MMA4Z00-NS")
    assert (qm.manufacturer, qm.mfr_part_number, qm.source_url) == (
        "NVIDIA",
        "MY-OWN-PN",
        "https://docs.nvidia.com/dgx-superpod-reference-architecture-dgx-h100.pdf",
    )
    assert (mma.manufacturer, mma.mfr_part_number, str(mma.source_date)) == ("NVIDIA", "MMA4Z00-NS", "2026-12-05")


def test_the_catalog_5_migration_names_makers_of_rows_still_generic(db):
    """0014's data step: a database made from catalog ≤ 3 still has the rack, PDU and LinkX rows generic (0012
    fills blanks only); they gain the catalog's maker, number and source — unless a user set a maker or number."""
    import importlib

    from django.apps import apps

    from bom.models import Part

    step = importlib.import_module("bom.migrations.0014_catalog_5_makers").name_makers
    old = dict(manufacturer="generic", vendor="generic", mfr_part_number="", generic_reason="any cabling vendor")
    Part.objects.filter(sku__in=["RACK-48U-600x1200", "MPO12-3M", "MPO12-70M"]).update(**old)
    Part.objects.filter(sku="AOC-100G-5M").update(**{**old, "manufacturer": "FS"})  # a user's choice of maker
    Part.objects.filter(sku="DAC-100G-1M").update(**{**old, "mfr_part_number": "MY-OWN-PN"})
    step(apps, None)
    rows = {p.sku: p for p in Part.objects.filter(sku__in=["RACK-48U-600x1200", "MPO12-3M", "MPO12-70M",
                                                           "AOC-100G-5M", "DAC-100G-1M"])}  # fmt: skip
    rack, mpo, long_mpo = rows["RACK-48U-600x1200"], rows["MPO12-3M"], rows["MPO12-70M"]
    assert (rack.manufacturer, rack.vendor, rack.mfr_part_number) == ("Conteg", "Conteg", "Ri7-48-60/120")
    assert "netbox-community/devicetype-library" in rack.source_url and rack.generic_reason == ""
    assert (mpo.manufacturer, mpo.vendor) == ("NVIDIA", "NVIDIA") and "MFP7E10" in mpo.generic_reason
    assert long_mpo.manufacturer == "generic" and "up to 50m" in long_mpo.generic_reason  # still generic: refreshed
    assert rows["AOC-100G-5M"].manufacturer == "FS" and rows["DAC-100G-1M"].mfr_part_number == "MY-OWN-PN"
    assert rows["DAC-100G-1M"].manufacturer == "generic"
