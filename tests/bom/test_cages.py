"""Issue #34 item 2: ports, cages and modules as they are built.

Figures from the data sheets (bom/catalog.py SWITCH_CAGES, OPTICS; topology/switches.py):
- NVIDIA Quantum-X800 Q3400: 144 × 800G XDR ports in 72 OSFP cages (115.2 Tb/s = 144 × 800G), 200G SerDes lanes:
  a cage takes one 1.6T twin-port module (2 × 800G);
- NVIDIA QM9700: 32 OSFP cages = 64 × NDR 400G, twin-port 2 × 400G modules (MMA4Z00-NS: "two, 4-channel
  MPO-12/APC optical connectors", NVIDIA product specification);
- NVIDIA SN5600: 64 × 800GbE OSFP, 51.2 Tb/s = 64 × 800G — one 800G port a cage (a 1.6T module would need
  102.4 Tb/s), or 2 × 400G (SN5600-400G);
- SR8 (8 lanes × a fibre pair) = 16 fibres on one MPO-16 (IEEE 802.3cm 400GBASE-SR8 MDI); DR4 = 4 × 2 = 8 fibres on
  MPO-12 APC; FR4/LR4/DR = an LC duplex pair;
- management spine: SN4600C, 64 × 100GbE QSFP28 (NVIDIA SN4000 series); the 7280SR3-48YC8 is 48 × 25G + 8 × 100G.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bom.build import ROLE_NAMES, CageUse, Roles, cage_checks
from bom.catalog import DEFAULT_PARTS, SWITCH_CAGES
from bom.elevation import SWITCH_ROLES
from bom.links import Link
from bom.media import EndSpec, PartChooser, mates, takes
from bom.parts import FIBRE_MEDIA, CableMedia, Connector, PartKind
from bom.plan import Catalog, bom_roles, chooser_for, plane_links
from cluster.pipeline import plan_cluster, plan_planes
from cluster.requests import bom_request, resolve
from cluster.validate import RequirementsError, validate_flat
from designer.presets import PRESETS
from topology.switches import SWITCH_MODELS

BY_SKU = {p.sku: p for p in DEFAULT_PARTS}


def test_the_engine_and_the_catalog_build_each_switch_the_same():
    """Every switch both lists know: the same ports, port speed, cage form, ports per cage and lanes."""
    both = sorted(set(SWITCH_MODELS) & {p.sku for p in DEFAULT_PARTS if p.kind == PartKind.SWITCH})
    assert {"Q3400", "QM9700", "SN5600", "SN5600-400G", "SN4600C"} <= set(both)
    for name in both:
        m, p = SWITCH_MODELS[name], BY_SKU[name]
        assert (m.radix, m.port_gbps) == (p.port_count, p.port_gbps), name
        assert (m.cage_form, m.ports_per_cage, m.lane_gbps) == (p.form_factor, p.ports_per_cage, p.lane_gbps), name
        assert m.cage_count == -(-p.port_count // p.ports_per_cage), name
    q = BY_SKU["Q3400"]
    assert (q.cage_count, q.ports_per_cage, q.lane_gbps, q.radix) == (72, 2, 200.0, 144)  # 144 ÷ 2 = 72
    assert (BY_SKU["QM9700"].cage_count, BY_SKU["SN5600"].cage_count, BY_SKU["SN5600-400G"].cage_count) == (32, 64, 64)
    assert BY_SKU["SN5600"].ports_per_cage == 1  # 64 × 800G = 51.2 Tb/s: one 800G port a cage
    assert BY_SKU["7050SX3-48YC8"].cage_count == 48 + 8  # 48 SFP28 + 8 QSFP28 uplink cages
    assert set(SWITCH_CAGES) <= {p.sku for p in DEFAULT_PARTS}


def test_the_engines_management_spine_is_a_100g_switch():
    """The engine no longer lists the 7280SR3-48YC8 as a 48 × 100G spine; its 100G spine is the SN4600C."""
    assert "7280SR3-48YC8" not in SWITCH_MODELS
    spine = SWITCH_MODELS["SN4600C"]
    assert (spine.radix, spine.port_gbps, spine.cage_form, spine.ethernet) == (64, 100.0, "QSFP28", True)


def test_every_optic_and_fibre_declares_its_fibres_and_connector():
    """SR8 → 16 fibres on MPO-16; DR4 (and the NDR SR4/DR4 twin-ports) → 8 on MPO-12 APC; FR4/LR4/DR → LC duplex;
    copper and AOC cables are one part with their ends built in (no connector)."""
    for p in DEFAULT_PARTS:
        if p.kind == PartKind.TRANSCEIVER:
            assert p.connector and p.lane_gbps, p.sku
            assert p.fibre_count or p.connector == Connector.RJ45, p.sku
        if p.kind == PartKind.CABLE and p.media in FIBRE_MEDIA:
            assert p.connector and p.fibre_count >= 2, p.sku
        if p.kind == PartKind.CABLE and p.media in (CableMedia.DAC, CableMedia.ACC, CableMedia.AOC):
            assert not p.connector and not p.fibre_count, p.sku
    for sku in ("OSFP-800G-SR8", "OSFP-800G-DR8"):
        assert (BY_SKU[sku].fibre_count, BY_SKU[sku].connector) == (16, Connector.MPO16_APC)
    for sku in ("OSFP-1.6T-2xDR4", "OSFP-800G-DR4", "MMS4X00-NS400", "OSFP-800G-2xDR4", "MMA4Z00-NS"):
        assert (BY_SKU[sku].fibre_count, BY_SKU[sku].connector) == (8, Connector.MPO12_APC)
    assert (BY_SKU["OSFP-400G-FR4"].fibre_count, BY_SKU["OSFP-400G-FR4"].connector) == (2, Connector.LC_DUPLEX)
    assert (BY_SKU["MPO16-10M"].fibre_count, BY_SKU["MPO12-OS2-10M"].connector) == (16, Connector.MPO12_APC)
    # an SR8's 16 fibres never go on an MPO-12 trunk; a DR4's 8 fit an MPO-12 APC trunk, never a UPC one
    assert not takes(BY_SKU["MPO12-10M"], BY_SKU["OSFP-800G-SR8"]) and takes(
        BY_SKU["MPO16-10M"], BY_SKU["OSFP-800G-SR8"]
    )
    assert takes(BY_SKU["MPO12-OS2-10M"], BY_SKU["OSFP-800G-DR4"])
    assert not takes(BY_SKU["MPO12-UPC-10M"], BY_SKU["MMA4Z00-NS400"])
    assert mates(BY_SKU["OSFP-1.6T-2xDR4"], BY_SKU["OSFP-800G-DR4"])
    assert not mates(BY_SKU["OSFP-1.6T-2xDR4"], BY_SKU["OSFP-800G-DR8"])  # MPO-12 vs MPO-16


def _link(a_role: str, z_role: str, gbps: float, length_m: int = 15) -> Link:
    return Link("compute", "leaf–spine", "a", "p1", a_role, "z", "p1", z_role, gbps, length_m, 2)


def _ends(switch_sku: str) -> dict:
    p = BY_SKU[switch_sku]
    return {("compute", "compute_switch"): EndSpec(p.ports_per_cage, "", p.lane_gbps)}


def test_a_twin_port_cage_gets_a_twin_port_module_even_when_singles_are_cheaper():
    """Q3400 ↔ Q3400 at 15 m: two 800G SR8 singles ($1,500 a port) are cheaper than a 1.6T 2 × DR4 ($3,400 ÷ 2 =
    $1,700 a port), but two single-port modules cannot share one cage: the 1.6T twin-port on both ends, on an MPO-12
    APC OS2 trunk (8 fibres a port of 12)."""
    chooser = PartChooser(DEFAULT_PARTS, media_policy="all_optics", ends=_ends("Q3400"))
    parts = chooser.parts(_link("compute_switch", "compute_switch", 800.0))
    assert (parts.a_module.sku, parts.z_module.sku) == ("OSFP-1.6T-2xDR4", "OSFP-1.6T-2xDR4")
    assert parts.cable.sku == "MPO12-OS2-15M" and parts.cable.connector == Connector.MPO12_APC


def test_a_single_port_800g_cage_takes_sr8_on_an_mpo16_trunk():
    """SN5600 ↔ SN5600 at 15 m, 800G: one port a cage, so a single-port module; the cheapest that reaches is the SR8
    ($1,500 + $1,500 + $150 MPO-16 trunk), whose 16 fibres need an MPO-16 trunk, not the MPO-12 the issue saw."""
    chooser = PartChooser(DEFAULT_PARTS, media_policy="all_optics", ends=_ends("SN5600"))
    parts = chooser.parts(_link("compute_switch", "compute_switch", 800.0))
    assert (parts.a_module.sku, parts.z_module.sku, parts.cable.sku) == ("OSFP-800G-SR8", "OSFP-800G-SR8", "MPO16-15M")
    assert parts.cable.fibre_count == parts.a_module.fibre_count == 16


# --- the GB200 preset -------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gb200():
    r = resolve(validate_flat(PRESETS["gb200-nvl72"]["values"]))
    p = plan_planes(r)
    req = bom_request(r)
    links = list(plane_links(req, p.fabric, p.storage, p.management))
    chooser = chooser_for(req, Catalog.built_in())
    return plan_cluster(r, Catalog.built_in()), links, [chooser.parts(ln) for ln in links]


def test_the_gb200_bom_buys_twin_port_modules_on_the_q3400s_and_singles_on_the_trays(gb200):
    """Derived from the plan's own links (per switch, ⌈optical ports ÷ 2⌉): the Q3400s get 1.6T twin-port 2 × DR4
    only, one per cage; the ConnectX-8 trays one 800G DR4 per NIC port (144 trays × 4 NICs = 576, by hand); no 800G
    SR8 anywhere (the issue's 5,760); every compute trunk is the MPO-12 APC single-mode trunk both modules take."""
    plan, links, parts = gb200
    bom = plan.bom
    ports: Counter = Counter()
    for ln, lp in zip(links, parts, strict=True):
        if ln.plane != "compute" or not lp.optical:
            continue
        for dev, role, module in ((ln.a_device, ln.a_role, lp.a_module), (ln.z_device, ln.z_role, lp.z_module)):
            if role in SWITCH_ROLES:
                assert module.sku == "OSFP-1.6T-2xDR4"
                ports[dev] += 1
            else:
                assert module.sku == "OSFP-800G-DR4"
        assert lp.cable.connector == Connector.MPO12_APC and lp.cable.fibre_count >= 8 == lp.a_module.fibre_count
        assert lp.cable.media == CableMedia.FIBRE_MPO_SM
    assert bom.quantity("OSFP-1.6T-2xDR4", "compute") == sum(math.ceil(n / 2) for n in ports.values())
    assert bom.quantity("OSFP-800G-DR4", "compute") == 144 * 4 == 576
    assert bom.quantity("OSFP-800G-SR8") == 0
    q3400 = BY_SKU["Q3400"]
    assert all(math.ceil(n / 2) <= q3400.cage_count and n <= q3400.radix for n in ports.values())
    # by hand for the design as sized now (topology/rail_optimized.py: leaves shared by 4 SUs of a rail, uplinks for
    # the used down ports): 8 leaves of 72 tray ports + 72 uplinks and 4 spines of 144 ports → every Q3400 full,
    # 144 ports in 72 cages; (8 × 144 + 4 × 144) ÷ 2 = 864 modules — the figure above comes from the links,
    # whatever the fabric sizing becomes; the plan (32 leaves, 18 spines) gave 32 × (9 + 36) + 18 × 64 = 2,592
    if len(ports) == 12:  # 8 leaves + 4 spines
        assert bom.quantity("OSFP-1.6T-2xDR4", "compute") == (8 * 144 + 4 * 144) // 2 == 864
    twin = next(ln for ln in bom.lines if ln.sku == "OSFP-1.6T-2xDR4" and not ln.spare)
    assert "÷ 2 ports per module (rounded up per switch and link class: one module a cage)" in twin.derivation
    cages = [c for c in plan.checks() if c["field"] == "cages"]
    assert cages and all(c["ok"] for c in cages)
    assert any("Q3400: 72 OSFP cages" in c["message"] for c in cages)


def test_the_cage_check_fails_loudly_when_the_catalog_has_no_twin_port_module():
    """Without the 1.6T twin-port module the Q3400 ends fall back to single-port modules, one a cage: a spine with
    128 cabled ports would need 128 cages of its 72 — the BOM cannot be installed, and the check says so."""
    catalog = Catalog(tuple(p for p in DEFAULT_PARTS if p.sku != "OSFP-1.6T-2xDR4"), Catalog.built_in().price_book)
    plan = plan_cluster(validate_flat(PRESETS["gb200-nvl72"]["values"]), catalog)
    failed = [c for c in plan.checks() if c["field"] == "cages" and not c["ok"]]
    assert failed, "single-port modules in twin-port cages must fail the cage check"
    assert "the BOM cannot be installed" in failed[0]["message"] and "Q3400" in failed[0]["message"]


def test_cage_check_arithmetic_by_hand():
    """A QM9700 (32 cages, 64 ports): 64 ports in 32 cages passes; 33 cages or 65 ports fail."""
    roles = Roles(*(BY_SKU[s] for s in ("QM9700", "SN4700-200G", "7050SX3-48YC8", "SN4600C", "CX7-NDR-OSFP",
                                         "CX6DX-100G", "CX7-200G")))  # fmt: skip
    ok = cage_checks({("compute", "compute_switch"): CageUse(4, 64, 32, 128, 256)}, roles)
    assert ok[0]["ok"] and ROLE_NAMES["compute_switch"] in ok[0]["message"]
    for use in (CageUse(4, 64, 33, 132, 256), CageUse(4, 65, 32, 128, 256)):
        (check,) = cage_checks({("compute", "compute_switch"): use}, roles)
        assert not check["ok"] and "cannot be installed" in check["message"]


# --- modules ≤ cages on random designs --------------------------------------------------------------------------

designs = st.fixed_dictionaries(
    {
        "topology": st.sampled_from(["rail_optimized", "fat_tree"]),
        "nodes": st.integers(2, 72),
        "gpus_per_node": st.sampled_from([4, 8]),
        "oversubscription": st.sampled_from([1, 2]),
        "switch_model": st.sampled_from(["QM9700", "Q3400", "SN5600", "SN5600-400G", "QM8700"]),
        "nodes_per_rack": st.integers(1, 8),
        "racks_per_row": st.integers(1, 12),
        "bom_media": st.sampled_from(["by_reach", "all_optics"]),
        "nic_cage": st.sampled_from(["osfp_single", "osfp_twin"]),
    }
)
SPEEDS = {"QM9700": 400, "QM8700": 200, "SN5600-400G": 400, "SN5600": 800, "Q3400": 800}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(designs)
def test_modules_never_outnumber_cages_on_any_switch(d):
    """Counted from the cut sheet's per-link records (not the BOM's numpy path), on every switch: a module is as wide
    as the cage wherever the catalog has one that wide; Σ over the parts that fill its cages ⌈ports ÷ ports per
    module⌉ cages; its cabled ports ≤ its radix. Where that sum fits the cages the BOM's cage check passes, and
    where it does not (odd leftovers of several link classes on a full twin-port switch: a cage is never split
    between two parts) the check fails — never a BOM with more modules than cages and a green check."""
    d = dict(d)
    nodes = d.pop("nodes")
    flat = {**d, "gpu_count": nodes * d["gpus_per_node"], "nic_gbps": SPEEDS[d["switch_model"]]}
    if d["topology"] == "rail_optimized":
        flat["scalable_unit_nodes"] = min(nodes, 8)
    try:
        r = resolve(validate_flat(flat))
        plan = plan_cluster(r)
    except RequirementsError:
        return
    p, req, catalog = plan_planes(r), bom_request(r), Catalog.built_in()
    roles = bom_roles(req.roles, catalog.parts)
    chooser = chooser_for(req, catalog)
    fill: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for ln in plane_links(req, p.fabric, p.storage, p.management):
        lp = chooser.parts(ln)
        for dev, role, module in ((ln.a_device, ln.a_role, lp.a_module), (ln.z_device, ln.z_role, lp.z_module)):
            if role in SWITCH_ROLES:
                cage = roles.switch(role).ports_per_cage
                if module is not None:
                    assert module.ports_per_cage == cage or not _has_width(ln, cage), (module.sku, cage)
                width = module.ports_per_cage if module is not None else cage
                fill[(ln.plane, role, dev)][(module or lp.cable).sku, width] += 1
    fits: dict[tuple[str, str], bool] = defaultdict(lambda: True)
    for (plane, role, dev), classes in fill.items():
        part = roles.switch(role)
        assert sum(classes.values()) <= part.radix, (dev, part.sku)
        cages = sum(math.ceil(n / width) for (_, width), n in classes.items())
        odd = sum(1 for (_, width), n in classes.items() if width > 1 and n % width)
        if odd <= 1:  # at most one part leaves a half-used cage: it always fits
            assert cages <= part.cage_count, (dev, part.sku, dict(classes))
        fits[(plane, role)] &= cages <= part.cage_count
    checks = {c["message"].split(" (")[0]: c["ok"] for c in plan.checks() if c["field"] == "cages"}
    for (plane, role), ok in fits.items():
        assert checks[f"{plane} {ROLE_NAMES[role]}"] == ok


def _has_width(link: Link, width: int) -> bool:
    """Whether the default catalog has a module ``width`` ports wide at the link's speed that reaches it."""
    return any(
        p.kind == PartKind.TRANSCEIVER
        and p.ports_per_module == width
        and p.port_gbps == link.speed_gbps
        and p.reach_m >= link.length_m
        for p in DEFAULT_PARTS
    )


def test_the_gb200_cut_sheet_names_each_q3400_port_by_its_cage(gb200):
    """The cut sheet names a Q3400 port "osfpN/1" or "osfpN/2": N ≤ 72 cages, both ports of a cage on one 1.6T
    module (its SKU on the cage's first port, "(shared)" on the second), and the module cells sum to the BOM."""
    from bom.plan import cut_sheet

    plan, _, _ = gb200
    r = resolve(validate_flat(PRESETS["gb200-nvl72"]["values"]))
    p = plan_planes(r)
    rows = cut_sheet(bom_request(r), p.fabric, p.storage, p.management, Catalog.built_in())
    cages: dict[tuple[str, int], set] = defaultdict(set)
    for row in rows:
        for end in ("a", "z"):
            port, device = row[f"{end}_port"], row[f"{end}_device"]
            if row["plane"] == "compute" and not device.startswith("cn"):
                head, slot = port.split("/")
                assert head.startswith("osfp") and slot in ("1", "2"), port
                assert 1 <= int(head[4:]) <= 72
                cages[(device, int(head[4:]))].add(row[f"{end}_module"])
    assert all(cells <= {"OSFP-1.6T-2xDR4", "(shared)"} and "OSFP-1.6T-2xDR4" in cells for cells in cages.values())
    sheet = Counter(row[f"{e}_module"] for row in rows for e in ("a", "z") if row["plane"] == "compute")
    assert sheet["OSFP-1.6T-2xDR4"] == plan.bom.quantity("OSFP-1.6T-2xDR4", "compute") == len(cages)


def test_the_sn4700_kit_runs_both_speeds_and_straight_qsfp_cables_stay_out_of_twin_cages():
    """The SN4700-200G's split QSFP-DD cage takes one SR8 kit for two ports, at 200G or 100G (its breakout says
    "2x100G"); a straight 200G QSFP56 DAC in the rack would leave the cage's other port dead, so a storage link into
    it is optical — while a QM9700's OSFP cage takes the catalog's OSFP 400G copper (a twin-port splitter end)."""
    kit = BY_SKU["QDD-400G-SR8-2x200G"]
    assert kit.runs_at(200.0) and kit.runs_at(100.0) and not kit.runs_at(400.0)
    sn4700 = BY_SKU["SN4700-200G"]
    ends = {("storage", "storage_switch"): EndSpec(2, "", sn4700.lane_gbps, sn4700.form_factor)}
    chooser = PartChooser(DEFAULT_PARTS, media_policy="by_reach", ends=ends)
    in_rack = Link("storage", "switch–switch", "a", "p1", "storage_switch", "z", "p1", "storage_switch", 200.0, 3, 0)
    parts = chooser.parts(in_rack)
    assert parts.optical and parts.a_module.sku == parts.z_module.sku == "QDD-400G-SR8-2x200G"
    assert parts.cable.sku == "MPO12-UPC-3M"  # each harness leg an MPO-12 UPC, 8 of 12 fibres
    qm = BY_SKU["QM9700"]
    ends = {("compute", "compute_switch"): EndSpec(2, "", qm.lane_gbps, qm.form_factor)}
    chooser = PartChooser(DEFAULT_PARTS, media_policy="by_reach", ends=ends)
    assert chooser.parts(_link("compute_switch", "compute_switch", 400.0, 3)._replace(rack_distance=0)).cable.sku == (
        "DAC-400G-3M"
    )


@pytest.mark.django_db
def test_the_stored_catalog_declares_cages_fibres_and_connectors():
    """Migration 0010 stores what the built-in catalog declares: the planning catalog read from the database
    (catalog_specs) chooses the same parts for a Q3400 link, and an edited row keeps its edit."""
    import importlib

    from django.apps import apps

    from bom.models import Part, catalog_specs

    specs = {p.sku: p for p in catalog_specs()}
    for sku in ("Q3400", "SN4700-200G", "OSFP-1.6T-2xDR4", "OSFP-800G-SR8", "MPO16-10M", "MPO12-OS2-10M", "CX8-800G"):
        fields = ("fibre_count", "connector", "lane_gbps", "form_factor", "ports_per_module")
        assert [getattr(specs[sku], f) for f in fields] == [getattr(BY_SKU[sku], f) for f in fields], sku
    chooser = PartChooser(specs.values(), media_policy="all_optics", ends=_ends("Q3400"))
    assert chooser.parts(_link("compute_switch", "compute_switch", 800.0)).a_module.sku == "OSFP-1.6T-2xDR4"
    migration = importlib.import_module("bom.migrations.0010_cages_fibres_connectors")
    Part.objects.filter(sku="OSFP-800G-SR8").update(fibre_count=0, connector="")  # as 0009 left it
    Part.objects.filter(sku="OSFP-800G-DR8").update(connector=Connector.MPO12_APC)  # a user's edit
    Part.objects.filter(sku="SN4700-200G").update(ports_per_module=1, form_factor="")
    migration.declare_parts(apps, None)
    sr8 = Part.objects.get(sku="OSFP-800G-SR8")
    assert (sr8.fibre_count, sr8.connector) == (16, Connector.MPO16_APC)
    assert Part.objects.get(sku="OSFP-800G-DR8").connector == Connector.MPO12_APC  # edited: not ours to change
    sn = Part.objects.get(sku="SN4700-200G")
    assert (sn.ports_per_module, sn.form_factor) == (2, "QSFP-DD")


def test_every_built_in_description_fits_the_catalog_column():
    """bom.Part.description is a varchar(300): PostgreSQL refuses a longer one where SQLite would store it."""
    from bom.catalog import DEFAULT_PARTS

    too_long = [(p.sku, len(p.description)) for p in DEFAULT_PARTS if len(p.description) > 300]
    assert not too_long
