"""bom/build.py: part choice, switch roles, row grouping, link counting and cage use, pinned where the mutation
run (`make mutation MODULES=bom/build.py`) found them unpinned. Every expected figure is derived by hand in the
test's docstring or comments."""

from __future__ import annotations

from decimal import Decimal

import numpy as np

from bom import build
from bom.build import (
    CHOOSERS,
    MAX_CHOOSERS,
    Bom,
    BomLine,
    BomPolicy,
    Purchase,
    Roles,
    count_links,
    find_switch,
    part_chooser,
    role_needs,
    serves,
)
from bom.catalog import DEFAULT_PARTS
from bom.link_table import _COLUMNS, LinkTable
from bom.links import Link
from bom.media import EndSpec, PartChooser
from bom.parts import PartKind, PartSpec, PortGroup

BY_SKU = {p.sku: p for p in DEFAULT_PARTS}


def _part(sku: str, kind: PartKind = PartKind.SWITCH, **kw) -> PartSpec:
    kw.setdefault("vendor", "V")
    kw.setdefault("description", sku)
    kw.setdefault("unit_price_usd", Decimal("100"))
    return PartSpec(sku=sku, kind=kind, price_source="test", **kw)


def _line(sku: str, qty: int, price: str, assumed: bool) -> BomLine:
    return BomLine("compute", "x", sku, sku, qty, Decimal(price), "", "", assumed, PartKind.SWITCH)


# --- purchase and assumption share ------------------------------------------------------------------------------


def test_the_manufacturer_is_the_catalogs_maker_or_else_its_vendor():
    """A row with a maker names the maker; a row from before the field (maker "") names its vendor."""
    assert Purchase.of(_part("A", manufacturer="Maker", vendor="Shop")).manufacturer == "Maker"
    assert Purchase.of(_part("B", manufacturer="", vendor="Shop")).manufacturer == "Shop"


def test_the_assumption_share_is_the_assumed_dollars_over_the_total():
    """$300 assumed (3 × $100) of $300 + $600 quoted (2 × $300) + $0 quoted = $900: a third, 33.3%; one line is
    quoted with a price (the $0 quoted line and the assumed line do not count): "1 line(s)"."""
    bom = Bom(
        lines=(_line("A", 3, "100", True), _line("B", 2, "300", False), _line("C", 4, "0", False)),
        checks=(),
        link_count=0,
        link_end_count=0,
        media_counts={},
    )
    share, why = bom.assumption_share()
    assert share == 300 / 900
    assert why.startswith("$300.00 of $900.00 is priced from planning figures = 33.3%; 1 line(s) priced")
    d = bom.to_dict()
    assert d["assumption_share"] == 0.333333  # 1/3 rounded to 6 places
    assert d["assumption_share_derivation"] == why


def test_an_empty_bom_has_no_assumption_share():
    """No dollars at all: the share is 0 (not 100%, nothing is assumed), and no line is quoted."""
    bom = Bom(lines=(_line("A", 1, "0", True),), checks=(), link_count=0, link_end_count=0, media_counts={})
    share, why = bom.assumption_share()
    assert share == 0.0
    assert "= 0.0%; 0 line(s)" in why


def test_two_quoted_lines_count_two():
    """Two quoted lines with a price and one assumed: "2 line(s)" (one each, not two each)."""
    bom = Bom(
        lines=(_line("A", 1, "10", False), _line("B", 1, "10", False), _line("C", 1, "10", True)),
        checks=(),
        link_count=0,
        link_end_count=0,
        media_counts={},
    )
    assert "; 2 line(s) priced" in bom.assumption_share()[1]


# --- switch roles -----------------------------------------------------------------------------------------------


def test_a_role_needs_its_ports_and_only_the_uplinks_it_asks_for():
    """48 × 25G and no uplinks: one group; 1 uplink at 100G: a second group of 1 × 100G; 8 uplinks with no speed
    given: 8 ports at 0G (any speed serves)."""
    assert role_needs(48, 25) == (PortGroup(48, 25.0),)
    assert role_needs(48, 25, 1, 100) == (PortGroup(48, 25.0), PortGroup(1, 100.0))
    assert role_needs(48, 25, 8) == (PortGroup(48, 25.0), PortGroup(8, 0.0))


def test_only_a_switch_serves_and_never_an_infiniband_one_on_the_management_network():
    """A NIC with 64 × 400G ports serves no switch role; an InfiniBand QM9700 (64 × 400G) serves a compute leaf's
    32 × 400G but not a management ToR's; a switch whose extra port groups do not parse serves nothing."""
    nic = _part("NIC64", PartKind.NIC, port_count=64, port_gbps=400.0)
    assert not serves(nic, role_needs(32, 400))
    qm = BY_SKU["QM9700"]
    assert qm.infiniband
    assert serves(qm, role_needs(32, 400), "compute_switch")
    assert not serves(qm, role_needs(32, 400), "mgmt_tor")
    bad = _part("BAD", port_count=64, port_gbps=400.0, extra_port_groups="eight by 100")
    assert not serves(bad, role_needs(32, 400))


def test_the_named_switch_is_the_first_catalog_row_of_that_name():
    """Two rows named "SW" both serve 32 × 100G: the named choice is the first row (its $100 price), not the last."""
    first = _part("SW", port_count=64, port_gbps=100.0, unit_price_usd=Decimal("100"))
    second = _part("SW", port_count=64, port_gbps=100.0, unit_price_usd=Decimal("200"))
    assert find_switch([first, second], name="SW", radix=32, port_gbps=100.0) is first


def test_a_missing_switch_is_a_placeholder_named_by_its_ports_and_uplinks():
    """Nothing in the catalog: SWITCH-48x25G, with 1 uplink at 100G SWITCH-48x25G+1x100G, with 8 uplinks of no
    speed SWITCH-48x25G+8x0G."""
    assert find_switch([], radix=48, port_gbps=25.0).sku == "SWITCH-48x25G"
    assert find_switch([], radix=48, port_gbps=25.0, uplinks=1, uplink_gbps=100.0).sku == "SWITCH-48x25G+1x100G"
    assert find_switch([], radix=48, port_gbps=25.0, uplinks=8).sku == "SWITCH-48x25G+8x0G"


# --- one chooser per catalog, media policy and link ends ---------------------------------------------------------


def _roles() -> Roles:
    qm, sn = BY_SKU["QM9700"], BY_SKU["SN4600C"]
    nic = next(p for p in DEFAULT_PARTS if p.kind == PartKind.NIC)
    return Roles(qm, qm, sn, sn, nic, nic, nic)


def test_designs_with_the_same_catalog_share_one_chooser_and_at_most_32_are_kept():
    """The same catalog tuple, policy and roles: the same chooser object, twice; another tuple of the same parts:
    a chooser of its own. 40 catalogs: the 32 newest kept (MAX_CHOOSERS = 32)."""
    roles, policy = _roles(), BomPolicy()
    CHOOSERS.clear()
    try:
        catalog = tuple(list(DEFAULT_PARTS))
        one = part_chooser(catalog, roles, policy)
        assert part_chooser(catalog, roles, policy) is one
        other = tuple(list(DEFAULT_PARTS))
        assert part_chooser(other, roles, policy) is not one
        assert part_chooser(catalog, roles, policy) is one  # the first still kept
        keep = [tuple(list(DEFAULT_PARTS)) for _ in range(40)]
        for c in keep:
            part_chooser(c, roles, policy)
        assert MAX_CHOOSERS == 32
        assert len(CHOOSERS) == 32
        assert all(found[0] is c for found, c in zip(CHOOSERS.values(), keep[-32:], strict=True))
    finally:
        CHOOSERS.clear()


# --- cage use: ports, cages and modules of a role's busiest switch -----------------------------------------------


def _chooser(switch: str, media: str, nic_ppm: int = 1, **more: EndSpec) -> PartChooser:
    p = BY_SKU[switch]
    ends = {
        ("compute", "compute_switch"): EndSpec(p.ports_per_cage, "", p.lane_gbps, p.form_factor),
        ("compute", "compute_spine_switch"): EndSpec(p.ports_per_cage, "", p.lane_gbps, p.form_factor),
        ("compute", "nic"): EndSpec(nic_ppm, "OSFP", 100.0),
        **{tuple(k.split(":")): v for k, v in more.items()},
    }
    return PartChooser(DEFAULT_PARTS, media_policy=media, ends=ends)


def _nic_links(n: int, gbps: float = 400.0, length_m: int = 10) -> list[Link]:
    """n nodes' first NIC port to leaf0001 (node first, the leaf at the z end)."""
    return [
        Link("compute", "node–leaf", f"cn{i:05d}", "ib0", "nic", "leaf0001", f"p{i}", "compute_switch", gbps, length_m,
             0)
        for i in range(1, n + 1)
    ]  # fmt: skip


def _cages(links: list[Link], chooser: PartChooser):
    return count_links(LinkTable.from_links(links), chooser).cages


def test_a_cables_end_fills_a_cage_but_is_no_module():
    """3 NIC links on a QM9700 leaf (twin-port cages) at 10 m, by reach: AOC cables, one cable end a port. 3 ports
    in ⌈3 ÷ 2⌉ = 2 cages, and no transceiver bought at the switch: modules 0, module ports 0."""
    c = _chooser("QM9700", "by_reach")
    assert {p.cable.sku for p in build.link_parts(_nic_links(3), c)} == {"AOC-400G-10M"}
    use = _cages(_nic_links(3), c)[("compute", "compute_switch")]
    assert (use.switch_count, use.ports, use.cages, use.modules, use.module_ports) == (1, 3, 2, 0, 0)


def test_twin_port_modules_take_whole_cages():
    """The same 3 links all optical: the leaf's twin-port MMA4Z00-NS (2 ports a module) — 3 ports need ⌈3 ÷ 2⌉ = 2
    modules in 2 cages (not 1.5), serving 3 ports."""
    use = _cages(_nic_links(3), _chooser("QM9700", "all_optics"))[("compute", "compute_switch")]
    assert (use.ports, use.cages, use.modules, use.module_ports) == (3, 2, 2, 3)


def test_single_port_modules_are_modules_too():
    """3 × 800G NIC links on an SN5600 (one port a cage), all optical: single-port SR8s, 3 modules in 3 cages
    serving 3 ports."""
    use = _cages(_nic_links(3, 800.0), _chooser("SN5600", "all_optics"))[("compute", "compute_switch")]
    assert (use.ports, use.cages, use.modules, use.module_ports) == (3, 3, 3, 3)


def test_each_end_counts_under_its_own_switch_role():
    """leaf0001 (compute_switch, the a end) to spine0001 and spine0002 (compute_spine_switch, the z end), 2 links
    each, by reach at 2 m: the leaf role has one switch of 4 ports, the spine role two switches of 2 ports each."""
    links = [
        Link("compute", "leaf–spine", "leaf0001", f"u{i}{j}", "compute_switch", f"spine000{i}", f"d{j}",
             "compute_spine_switch", 400.0, 2, 0)
        for i in (1, 2)
        for j in (1, 2)
    ]  # fmt: skip
    cages = _cages(links, _chooser("QM9700", "by_reach"))
    leaf, spine = cages[("compute", "compute_switch")], cages[("compute", "compute_spine_switch")]
    assert (leaf.switch_count, leaf.ports) == (1, 4)
    assert (spine.switch_count, spine.ports) == (2, 2)


# --- twin-port NIC cages -----------------------------------------------------------------------------------------


def _modules(links: list[Link], chooser: PartChooser) -> dict[str, int]:
    counts = count_links(LinkTable.from_links(links), chooser)
    return {sku: qty for (_plane, _group, sku), (_part, qty, _why) in counts.modules.items()}


def test_a_twin_port_nic_cage_holds_its_own_module_at_either_end():
    """Twin-port NIC cages (2 ports a cage), all optical at 400G: leaf0001 — spine0001 (1 link) and two nodes on
    port ib0 only (one port of each node's first cage). Switch ends: the leaf's 3 ports ⌈3 ÷ 2⌉ = 2 twin modules, the
    spine's 1 port 1; NIC ends: one cage per node, 1 module each = 2 (not ⌈2 ÷ 2⌉ = 1 shared by two nodes): 5
    MMA4Z00-NS. The same with the node at the a end, and with the segments and roles coded in another order."""
    c = _chooser("QM9700", "all_optics", nic_ppm=2)
    up = Link("compute", "leaf–spine", "leaf0001", "u1", "compute_switch", "spine0001", "d1", "compute_switch",
              400.0, 10, 0)  # fmt: skip
    z_nic = [ln._replace(a_device=ln.z_device, a_port=ln.z_port, a_role=ln.z_role, z_device=ln.a_device,
                         z_port=ln.a_port, z_role=ln.a_role) for ln in _nic_links(2)]  # fmt: skip
    assert _modules([up, *z_nic], c) == {"MMA4Z00-NS": 2 + 1 + 2}
    assert _modules([up, *_nic_links(2)], c) == {"MMA4Z00-NS": 2 + 1 + 2}
    # the spine as its own role first: roles compute_switch 0, compute_spine_switch 1, nic 2; segments leaf–spine 0,
    # node–leaf 1 (no segment's code is the NIC's role code): the same 5
    spine_up = up._replace(z_role="compute_spine_switch")
    assert _modules([spine_up, *_nic_links(2)], c) == {"MMA4Z00-NS": 2 + 1 + 2}


# --- a switch's trunk ends by rack -------------------------------------------------------------------------------


def test_a_switchs_trunk_ends_land_in_the_rack_each_link_names():
    """Two optical trunks leaf0001 — spine0001 (all optics), the leaf's end recorded in rack (0, 1) for one and
    (0, 2) for the other, the spine's in (−1, 0): one trunk end in each leaf rack, 2 in the spine's rack (keys by
    bom.layout.rack_key). Three NIC links from nodes in rack (0, 0) to the leaf are no trunks: they add no end to
    any rack, the leaf's rack (0, 2) included."""
    from bom.layout import rack_key

    links = [
        Link("compute", "leaf–spine", "leaf0001", f"u{i}", "compute_switch", "spine0001", f"d{i}", "compute_switch",
             400.0, 10, 1, (0, i), (-1, 0))
        for i in (1, 2)
    ]  # fmt: skip
    counts = count_links(LinkTable.from_links(links), _chooser("QM9700", "all_optics"))
    assert counts.trunks == 2
    assert counts.trunk_ends == {rack_key(0, 1): 1, rack_key(0, 2): 1, rack_key(-1, 0): 2}
    counts = count_links(LinkTable.from_links(links + _nic_links(3)), _chooser("QM9700", "all_optics"))
    assert counts.trunks == 2
    assert counts.trunk_ends == {rack_key(0, 1): 1, rack_key(0, 2): 1, rack_key(-1, 0): 2}


# --- a frozen link table keeps its grouping ---------------------------------------------------------------------


def test_a_frozen_table_keeps_its_grouping_and_a_writable_one_does_not():
    """A table whose arrays cannot change is grouped once (the same grouping object twice); a table built from
    links (writable arrays) is grouped afresh each time, so a change to it is never counted from a stale grouping."""
    t = LinkTable.from_links(_nic_links(3))
    assert build._Grouped.of(t) is not build._Grouped.of(t)
    for v in t.__dict__.values():
        if isinstance(v, np.ndarray):
            v.flags.writeable = False
    assert build._Grouped.of(t) is build._Grouped.of(t)


def test_device_name_ranks_are_kept_for_the_same_names_only(monkeypatch):
    """_Grouped.name_rank: each device's place in name order ('leaf0002' < 'leaf0010' < 'spine0001'), read-only;
    kept for the next table with the same names (the same array), made afresh for other names."""
    monkeypatch.setattr(build, "_NAME_RANKS", {})
    names = ("spine0001", "leaf0010", "leaf0002")

    def table(devices):
        t = LinkTable.from_links(_nic_links(1))
        return LinkTable(t.planes, t.segments, t.roles, devices, **{k: getattr(t, k) for k in _COLUMNS})

    first = build._Grouped(table(names)).name_rank(table(names))
    assert first.tolist() == [2, 1, 0] and not first.flags.writeable
    assert build._Grouped(table(tuple(names))).name_rank(table(tuple(names))) is first
    other = ("leaf0002", "leaf0010", "spine0001")
    assert build._Grouped(table(other)).name_rank(table(other)).tolist() == [0, 1, 2]


# --- the cut sheet after odd ports are paired --------------------------------------------------------------------


def test_each_moved_link_gets_the_parts_of_its_own_move():
    """Two QM9700 leaves, each with 3 twin-SR4 NIC links (leaf0001's 10 m, leaf0002's 20 m) and 3 twin-DR4 uplinks
    of 100 m (as tests/bom/test_odd_ports.py, twice): each leaf has 3 + 3 odd ports of two kinds, so one NIC link of
    each leaf moves onto a DR4 (ties broken by NIC port: the first) and turns single mode — leaf0001's on a 10 m
    MPO12-OS2 trunk, leaf0002's on a 20 m one; the other NIC links stay on multimode MPO12 of their length."""
    qm = BY_SKU["QM9700"]
    ends = {
        ("compute", "compute_switch"): EndSpec(qm.ports_per_cage, "", qm.lane_gbps, qm.form_factor),
        ("compute", "nic"): EndSpec(1, "OSFP", 100.0),
    }
    chooser = PartChooser(DEFAULT_PARTS, media_policy="by_reach", ends=ends)
    links = []
    for leaf, length in ((1, 10), (2, 20)):
        links += [
            Link("compute", "node–leaf", f"cn{leaf}{i:04d}", "ib0", "nic", f"leaf000{leaf}", f"osfp{i}",
                 "compute_switch", 400.0, length, 2)
            for i in (1, 2, 3)
        ]  # fmt: skip
        links += [
            Link("compute", "leaf–spine", f"leaf000{leaf}", f"up{i}", "compute_switch", "spine0001", f"d{leaf}{i}",
                 "compute_switch", 400.0, 100, 2)
            for i in (1, 2, 3)
        ]  # fmt: skip
    cables = [p.cable.sku for p in build.link_parts(links, chooser)]
    assert cables[:3] == ["MPO12-OS2-10M", "MPO12-10M", "MPO12-10M"]
    assert cables[6:9] == ["MPO12-OS2-20M", "MPO12-20M", "MPO12-20M"]
    assert cables[3:6] == cables[9:] == ["MPO12-OS2-100M"] * 3


# --- guards: a huge key space, a cage that declares no ports -----------------------------------------------------


def test_rows_with_a_huge_key_space_are_grouped_by_sorting():
    """Keys up to 2⁶⁰ (three rows, two distinct): groups in ascending key order — key 0 (rows 0 and 2) then 2⁶⁰ (row
    1): first rows (0, 1), groups (0, 1, 0). A table of counts 2⁶⁰ long cannot be made: the rows must be sorted."""
    first, group = build.group_rows([np.array([0, 2**60, 0], dtype=np.int64)])
    assert first.tolist() == [0, 1]
    assert group.tolist() == [0, 1, 0]


def test_a_cage_that_declares_no_ports_counts_one_port_a_cage():
    """A hand-made switch end of 0 ports per cage (the BOM's own ends never are: PartSpec.ports_per_cage is at
    least 1) with 3 AOC links at 10 m: ⌈3 ÷ max(0, 1)⌉ = 3 cages, never a division by 0, and a cable end is no
    module: modules 0, module ports 0."""
    q = BY_SKU["QM9700"]
    ends = {
        ("compute", "compute_switch"): EndSpec(0, "", q.lane_gbps, q.form_factor),
        ("compute", "nic"): EndSpec(1, "OSFP", 100.0),
    }
    use = _cages(_nic_links(3), PartChooser(DEFAULT_PARTS, media_policy="by_reach", ends=ends))
    assert use[("compute", "compute_switch")] == build.CageUse(1, 3, 3, 0, 0)


def test_nic_cages_of_two_widths_each_count_their_own_modules():
    """Hand-made ends with NIC cages of two widths: compute nodes' NICs in 3-port cages (a 3-port clone of the twin
    SR4, "TEST-3xSR4") and a fabric-management server's in 2-port cages, all optical at 400G to a QM9700 leaf.
    cn00001 cables ports ib2 and ib3: ib0–ib2 share cage 0 and ib3–ib5 cage 1, so 2 three-port modules (not
    ⌈2 ÷ 3⌉ = 1, nor ib2, ib3 read as one 2-port cage); the UFM's one port takes one twin module; the leaf's 3 ports
    ⌈3 ÷ 2⌉ = 2 twin modules."""
    from dataclasses import replace

    q = BY_SKU["QM9700"]
    tri = replace(BY_SKU["MMA4Z00-NS"], sku="TEST-3xSR4", ports_per_module=3)
    ends = {
        ("compute", "compute_switch"): EndSpec(q.ports_per_cage, "", q.lane_gbps, q.form_factor),
        ("compute", "nic"): EndSpec(3, "OSFP", 100.0),
        ("compute", "ufm"): EndSpec(2, "OSFP", 100.0),
    }
    chooser = PartChooser([*DEFAULT_PARTS, tri], media_policy="all_optics", ends=ends)
    links = [
        Link("compute", "node–leaf", "cn00001", f"ib{i}", "nic", "leaf0001", f"p{i}", "compute_switch", 400.0, 10, 0)
        for i in (2, 3)
    ]
    links.append(Link("compute", "UFM–leaf", "ufm0001", "ib0", "ufm", "leaf0001", "p9", "compute_switch", 400.0, 10, 0))
    counts = count_links(LinkTable.from_links(links), chooser)
    modules = {(group, sku): qty for (_plane, group, sku), (_part, qty, _why) in counts.modules.items()}
    assert modules == {("", "TEST-3xSR4"): 2, ("", "MMA4Z00-NS"): 2, ("fabric manager", "MMA4Z00-NS"): 1}


def test_a_module_that_declares_no_ports_serves_one():
    """A hand-made 0-ports-per-module clone of the SR8 ("TEST-SR8-0") in an SN5600's hand-made 0-port cages, 3 × 800G
    NIC links all optical: a module that declares no ports reads as one port a module (as PartSpec.ports_per_cage
    and the module count read it): 3 modules in 3 cages serving 3 ports, at the switch — not 0 modules."""
    from dataclasses import replace

    p = BY_SKU["SN5600"]
    zero = replace(BY_SKU["OSFP-800G-SR8"], sku="TEST-SR8-0", ports_per_module=0)
    ends = {
        ("compute", "compute_switch"): EndSpec(0, "", p.lane_gbps, p.form_factor),
        ("compute", "nic"): EndSpec(1, "OSFP", 100.0),
    }
    chooser = PartChooser([*DEFAULT_PARTS, zero], media_policy="all_optics", ends=ends)
    counts = count_links(LinkTable.from_links(_nic_links(3, 800.0)), chooser)
    assert {sku: qty for (_plane, _group, sku), (_part, qty, _why) in counts.modules.items()} == {
        "OSFP-800G-SR8": 3,  # the NIC ends
        "TEST-SR8-0": 3,  # the switch's
    }
    assert counts.cages[("compute", "compute_switch")] == build.CageUse(1, 3, 3, 3, 3)
