"""Pairing moves, module counts and BOM totals of bom/build.py pinned by hand (mutation survivors, lines ≥ 990).

Catalog figures as in tests/bom/test_odd_ports.py: a QM9700 leaf has 32 OSFP cages of 2 × 400G ports; at 10–20 m a
NIC link takes a twin SR4 (MMA4Z00-NS) at the leaf, a single-port SR4 (MMA4Z00-NS400) at the NIC and an MPO-12
multimode trunk; at 100 m (past SR4's 50 m) a leaf–spine link takes a twin DR4 (OSFP-800G-2xDR4) at both ends and
an MPO-12 OS2 trunk. A NIC link moved onto the leaf's DR4 gets a single-port DR4 (MMS4X00-NS400) at the NIC and an
OS2 trunk of its own length.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np

import bom.build as build
from bom.build import BomPolicy, CageUse, Roles, build_bom, cage_checks, count_links, find_switch
from bom.catalog import DEFAULT_PARTS
from bom.link_table import LinkTable
from bom.links import Link
from bom.media import EndSpec, PartChooser
from bom.parts import FIBRE_MEDIA, CableMedia
from tests.bom.test_odd_ports import _chooser, _grouped_ends

BY_SKU = {p.sku: p for p in DEFAULT_PARTS}


def _nic(node: int, leaf: int, length_m: int) -> Link:
    return Link(
        "compute", "node–leaf", f"cn{node:05d}", "ib0", "nic", f"leaf{leaf:04d}", "p1", "compute_switch", 400.0,
        length_m, 2,
    )  # fmt: skip


def _up(leaf: int, spine: int, port: int = 1) -> Link:
    return Link(
        "compute", "leaf–spine", f"leaf{leaf:04d}", f"up{port}", "compute_switch", f"spine{spine:04d}", f"d{leaf}",
        "compute_switch", 400.0, 100, 2,
    )  # fmt: skip


def _two_leaves() -> list[Link]:
    """leaf0001: one 10 m NIC link (SR4) and one 100 m uplink (DR4); leaf0002 the same with a 20 m NIC link."""
    return [_nic(1, 1, 10), _up(1, 1), _nic(2, 2, 20), _up(2, 1)]


def _modules(counts) -> dict[str, int]:
    out: Counter = Counter()
    for (_plane, _group, sku), (_part, qty, _why) in counts.modules.items():
        out[sku] += qty
    return dict(out)


def _cables(counts) -> dict[str, int]:
    return {sku: entry[1] for by_sku in counts.cables.values() for sku, entry in by_sku.items()}


def test_a_class_whose_only_link_moves_is_gone_and_two_moves_keep_their_own_parts():
    """Each leaf holds 1 SR4 + 1 DR4 port: two odd twin kinds, 2 cages for 2 ports. Its NIC link moves onto DR4
    (leaf: 2 DR4 ports = ⌈2 ÷ 2⌉ = 1 cage). Both NIC classes (10 m, 20 m) lose their only link, so no class of SR4
    is left: no MMA4Z00-NS, no MMA4Z00-NS400, no multimode trunk — not even a line of 0. The two moves are two
    variants (their trunks differ: MPO12-OS2-10M, MPO12-OS2-20M), each with its own parts.
    Modules: twin DR4 = leaf0001 1 + leaf0002 1 + spine0001 (2 DR4 ports: 1) = 3; MMS4X00-NS400 = 2 NIC ends."""
    counts = count_links(LinkTable.from_links(_two_leaves()), _chooser())
    assert _modules(counts) == {"OSFP-800G-2xDR4": 3, "MMS4X00-NS400": 2}
    assert _cables(counts) == {"MPO12-OS2-10M": 1, "MPO12-OS2-20M": 1, "MPO12-OS2-100M": 2}
    leaf = counts.cages[("compute", "compute_switch")]
    assert (leaf.ports, leaf.cages) == (2, 1)


def _check_paired(t: LinkTable, chooser: PartChooser, moved_links: int) -> list:
    """As tests/bom/test_odd_ports.py's consistency test: _paired's classes, links per class, parts and grouped ends
    (class, switch, NIC cage, rack) equal those of the regrouped table _apply_moves makes. Returns _paired's parts."""
    g, parts, _width, moves = build._classes_and_parts(t, chooser)
    assert len(moves) == moved_links
    classes, counts, new_parts, ends, width = build._counted_classes(t, chooser)
    moved, variant, forced = build._apply_moves(t, moves)
    _speeds, speed_code = np.unique(moved.speed_gbps, return_inverse=True)
    ref_classes, inverse, ref_counts = build._link_classes(moved, speed_code.reshape(-1), variant)
    assert classes.tolist() == ref_classes.tolist() and counts.tolist() == ref_counts.tolist()
    base = {tuple(row[:7]): k for k, row in enumerate(g.classes.tolist())}
    assert new_parts == [
        forced[row[-1] - 1] if row[-1] else parts[base[tuple(row[:7])]] for row in ref_classes.tolist()
    ]
    reference = {end: build._group_end(moved, inverse, end, width) for end in ("a", "z")}
    assert _grouped_ends(ends) == _grouped_ends(reference)
    return [(p, row[-1]) for p, row in zip(new_parts, classes.tolist(), strict=True)]


def test_the_pairing_counts_equal_those_of_the_table_the_moves_make_with_two_variants():
    """The two-leaf fabric: two variants, and classes all of whose rows moved (see _check_paired). The moved NIC
    links' classes (variant > 0) carry their own trunks: variant v takes the v-th parts moved."""
    parts = _check_paired(LinkTable.from_links(_two_leaves()), _chooser(), 2)
    assert sorted(p.cable.sku for p, v in parts if v) == ["MPO12-OS2-10M", "MPO12-OS2-20M"]


def test_a_moved_link_keeps_no_nic_cage_at_its_switch_ends_where_nic_cages_are_twin():
    """Twin-port NIC cages (the NIC ends grouped by cage, nic // 2): node cn00001's ib1 (port id 1, cage 0) to
    leaf0003 at 10 m (twin SR4 both ends); leaf0001 has a 30 m SR4 uplink to spine0001 and a 100 m DR4 uplink to
    spine0002 — one odd port of each kind — so the 30 m link moves onto DR4 (spine0001's one port: 1 cage either way).
    The moved link joins two switches: no NIC at either end (−1), so its groups have no cage (−1), as the regrouped
    table says. Modules: twin SR4 = NIC cage 0 (1) + leaf0003 (1) = 2; twin DR4 = leaf0001 (2 ports: 1) + spine0001
    (1) + spine0002 (1) = 3."""
    nic = Link("compute", "node–leaf", "cn00001", "ib1", "nic", "leaf0003", "p1", "compute_switch", 400.0, 10, 2)
    short = Link(
        "compute", "leaf–spine", "leaf0001", "u1", "compute_switch", "spine0001", "d1", "compute_switch", 400.0, 30, 2
    )
    t, chooser = LinkTable.from_links([nic, short, _up(1, 2, 4)]), _twin_nic_chooser()
    parts = _check_paired(t, chooser, 1)
    assert [p.cable.sku for p, v in parts if v] == ["MPO12-OS2-30M"]
    counts = count_links(t, chooser)
    assert _modules(counts) == {"MMA4Z00-NS": 2, "OSFP-800G-2xDR4": 3}
    assert _cables(counts) == {"MPO12-10M": 1, "MPO12-OS2-30M": 1, "MPO12-OS2-100M": 1}


def test_a_row_all_of_whose_links_move_takes_the_first_variant_and_the_second_gets_a_row():
    """_apply_moves on a grouped row of 2 identical links both moved, onto two different parts (variants 1 and 2,
    numbered as first moved): the row keeps 1 link as variant 1 and a new row of 1 link is variant 2 — 2 links in
    all, one of each variant, as two per-link records would be."""
    t, chooser = LinkTable.from_links(_two_leaves()), _chooser()
    _g, _parts, _width, moves = build._classes_and_parts(t, chooser)
    (_r1, p1), (_r2, p2) = moves
    assert p1.cable.sku != p2.cable.sku  # two variants
    row = replace(LinkTable.from_links([_nic(1, 1, 10)]), weight=np.array([2], dtype=np.int64))
    table, variant, listed = build._apply_moves(row, [(0, p1), (0, p2)])
    assert listed == [p1, p2]
    assert table.weight.tolist() == [1, 1] and variant.tolist() == [1, 2]


def _twin_nic_chooser() -> PartChooser:
    qm = BY_SKU["QM9700"]
    ends = {
        ("compute", "compute_switch"): EndSpec(qm.ports_per_cage, "", qm.lane_gbps, qm.form_factor),
        ("compute", "nic"): EndSpec(2, "OSFP", 100.0),  # twin-port NIC cages
    }
    return PartChooser(DEFAULT_PARTS, media_policy="by_reach", ends=ends)


def test_a_nic_end_without_a_port_id_is_not_lumped_into_cage_0():
    """Twin-port NIC cages: node cn00001's port ib0 is NIC port id 0 (node 1 → (1 − 1) × 256 + 0), in cage 0 // 2 =
    0; a NIC link on a segment that is not a node's (gateway–leaf) has no port id (−1) and is counted lumped. Each
    holds one port at 10 m: a twin SR4 MMA4Z00-NS at each NIC end — ⌈1 ÷ 2⌉ for cage 0 + ⌈1 ÷ 2⌉ lumped = 2 — and
    the leaf's 2 SR4 ports take ⌈2 ÷ 2⌉ = 1: 3 twin SR4 in all (cage 0 and the lumped ends are not one cage)."""
    nic = Link("compute", "node–leaf", "cn00001", "ib0", "nic", "leaf0001", "p1", "compute_switch", 400.0, 10, 2)
    gw = Link("compute", "gateway–leaf", "gw0001", "ib0", "nic", "leaf0001", "p2", "compute_switch", 400.0, 10, 2)
    t = LinkTable.from_links([nic, gw])
    assert t.a_nic.tolist() == [0, -1]
    assert _modules(count_links(t, _twin_nic_chooser())) == {"MMA4Z00-NS": 2 + 1}


def _roles(compute_switch) -> Roles:
    return Roles(
        compute_switch, BY_SKU["SN4700-200G"], BY_SKU["7050SX3-48YC8"], BY_SKU["SN4600C"], BY_SKU["CX7-NDR-OSFP"],
        BY_SKU["CX6DX-100G"], BY_SKU["CX7-200G"], compute_spine_switch=BY_SKU["QM9700"],
    )  # fmt: skip


def test_a_bom_counts_two_ends_a_link():
    """build_bom on the two-leaf fabric: 4 links (2 NIC links, 2 uplinks), 2 × 4 = 8 link ends."""
    bom = build_bom(
        switches=[], nic_counts={}, links=_two_leaves(), roles=_roles(BY_SKU["QM9700"]), chooser=_chooser(),
        policy=BomPolicy(),
    )  # fmt: skip
    assert (bom.link_count, bom.link_end_count) == (4, 8)


def test_a_switch_missing_from_the_catalog_skips_only_its_own_cage_check():
    """The leaf role has no catalog switch (its catalog check fails instead): no cage check for it, but the spine
    role after it still gets its own — 10 ports in 5 cages of the QM9700's 32 cages and radix 64: ok."""
    missing = find_switch([], radix=128, port_gbps=800.0)
    assert missing.vendor == "(not in catalog)"
    cages = {
        ("compute", "compute_switch"): CageUse(2, 10, 5, 10, 20),
        ("compute", "compute_spine_switch"): CageUse(1, 10, 5, 10, 20),
    }
    (check,) = cage_checks(cages, _roles(missing))
    assert check["ok"] and "QM9700" in check["message"]


def test_only_fibre_modules_outside_a_group_get_the_per_end_note():
    """The "per link end, not per link" note is for the fabric's own optical modules: not for a copper RJ45 SFP
    (1000BASE-T, no fibre) nor for the modules of a group (fabric-management servers), whose notes stay their own."""
    c = build._Counts()
    sfp, sr4 = BY_SKU["SFP-1G-T"], BY_SKU["QSFP28-100G-SR4"]
    assert sfp.media not in FIBRE_MEDIA and sr4.media in FIBRE_MEDIA and sfp.media == CableMedia.COPPER_RJ45
    c.modules[("management", "", sfp.sku)] = [sfp, 4, ["4 BMC links"]]
    c.modules[("management", build.FABRIC_MANAGER, sr4.sku)] = [sr4, 2, ["2 fabric-management server ports"]]
    c.modules[("management", "", sr4.sku)] = [sr4, 6, ["6 optical switch ports"]]
    notes = {(ln.sku, ln.category): ln.derivation for ln in build._transceiver_lines(c)}
    assert notes[(sfp.sku, "transceiver")] == "4 BMC links"
    assert notes[(sr4.sku, f"transceiver ({build.FABRIC_MANAGER})")] == "2 fabric-management server ports"
    assert notes[(sr4.sku, "transceiver")].startswith("6 optical switch ports. Per link end, not per link: 0 optical")
