"""bom/build.py's small rules by hand: spares, growth headroom, catalog look-ups, price-list net prices, policy limits.

Each figure is derived in the docstring; a buyer reads these lines and checks as they are.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from bom.build import (
    Bom,
    BomLine,
    BomPolicy,
    Purchase,
    Roles,
    _catalog_and_headroom_checks,
    _headroom_check,
    _module_why,
    _spare_lines,
    _switch_and_nic_lines,
    find_nic,
    find_switch,
)
from bom.parts import CableMedia, PartKind, PartSpec


def part(sku: str, kind: PartKind, price: str = "100", **kw) -> PartSpec:
    return PartSpec(sku, kind, "Vendor", f"{sku} part", Decimal(price), "price book", False, **kw)


def line(qty: int, kind: PartKind = PartKind.CABLE, sku: str = "C1", source: str = "price book") -> BomLine:
    return BomLine("compute", "cable", sku, "a cable", qty, Decimal("10"), "links", source, False, kind)


@pytest.mark.parametrize(("qty", "pct", "spares"), [(100, "2", 2), (101, "2", 3), (1, "2", 1), (50, "0", 0)])
def test_spares_are_rounded_up_per_line(qty, pct, spares):
    """⌈100 × 2 %⌉ = 2 exactly; ⌈101 × 2 %⌉ = ⌈2.02⌉ = 3; one cable at 2 % still buys a spare; 0 % buys none."""
    policy = BomPolicy(spares_pct={PartKind.CABLE: Decimal(pct)})
    out = _spare_lines([line(qty)], policy)
    assert sum(s.quantity for s in out) == spares
    if spares:
        (s,) = out
        assert s.spare and s.power_w == 0.0 and s.derivation == f"spares: ⌈{qty:,} × {pct}%⌉ = {spares:,}"
    assert _spare_lines([line(qty, PartKind.SWITCH)], policy) == []  # no percentage for switches: none


@pytest.mark.parametrize(
    ("used", "free", "need", "ok"), [(100, 20, 20, True), (100, 19, 20, False), (101, 20, 21, False)]
)
def test_growth_headroom_target(used, free, need, ok):
    """20 % of 100 used ports = 20: 20 free pass, 19 fail; 20 % of 101 = ⌈20.2⌉ = 21, so 20 free fail."""
    c = _headroom_check("compute", "leaf", used, free, Decimal("20"))
    assert c["ok"] is ok and "info" not in c
    assert c["message"].startswith(
        f"compute leaf: {free:,} free ports vs 20% growth headroom of {used:,} used = {need}"
    )
    assert c["message"].endswith("or add switches") is (not ok)


def test_growth_headroom_without_a_target_is_information():
    """No target: free ÷ used as a share, 512 of 2,048 = 25 %; nothing used: a dash, not a division by zero."""
    c = _headroom_check("compute", "spine", 2048, 512, None)
    assert (c["ok"], c["info"]) == (True, True)
    assert c["message"].startswith("compute spine: 512 free ports (25 % of the 2,048 used) for growth;")
    assert "(— of the 0 used)" in _headroom_check("storage", "leaf", 0, 8, None)["message"]
    assert "1 free ports (33 % of the 3 used)" in _headroom_check("storage", "leaf", 3, 1, None)["message"]  # 33.3
    assert "2 free ports (67 % of the 3 used)" in _headroom_check("storage", "leaf", 3, 2, None)["message"]  # 66.7


def test_missing_parts_and_a_foreign_price_book_are_failed_checks():
    lines = [line(1, sku="NIC-800G", source="no catalog part: add one and a price"), line(2)]
    checks = _catalog_and_headroom_checks(lines, {}, BomPolicy())
    assert checks == [
        {"ok": False, "field": "catalog", "message": "compute: no catalog part for NIC-800G; priced at $0 until one "
                                                     "is added"},
    ]  # fmt: skip
    eur = BomLine("compute", "nic", "N", "n", 1, Decimal("1"), "", "book", False, PartKind.NIC,
                  purchase=Purchase(currency="EUR"))  # fmt: skip
    (check,) = _catalog_and_headroom_checks([eur], {}, BomPolicy())
    assert check["field"] == "price_book" and check["message"].startswith("the price book is in EUR, but the totals")
    assert check["ok"] is False  # a failed check, not information


def test_find_switch_prefers_the_named_model_of_the_right_shape():
    """Two 64 × 400G switches: the named one wins; a name of another shape falls back to the first that fits;
    no 128 × 800G part: a $0 placeholder that says what it stands for."""
    a = part("SW-A", PartKind.SWITCH, port_count=64, port_gbps=400.0)
    b = part("SW-B", PartKind.SWITCH, port_count=64, port_gbps=400.0)
    c = part("SW-C", PartKind.SWITCH, port_count=32, port_gbps=400.0)
    assert find_switch([a, b, c], name="SW-B", radix=64, port_gbps=400.0) is b
    assert find_switch([a, b, c], name="SW-C", radix=64, port_gbps=400.0) is a
    assert find_switch([a, b, c], radix=32, port_gbps=400.0) is c
    ph = find_switch([a, b, c], radix=128, port_gbps=800.0)
    assert (ph.sku, ph.description, ph.port_count, ph.port_gbps, ph.unit_price_usd) == (
        "SWITCH-128x800G", "switch with 128 × 800G ports", 128, 800.0, Decimal("0"),
    )  # fmt: skip
    assert ph.price_source.startswith("no catalog part") and ph.price_is_assumption


def test_find_nic_takes_the_exact_speed_and_the_asked_form():
    """400G OSFP and 400G QSFP112 in the book: the form asked for wins, else the first; an 800G NIC is not bought
    for a 200G design (a placeholder says 200G)."""
    osfp = part("N-OSFP", PartKind.NIC, port_count=1, port_gbps=400.0, form_factor="OSFP")
    qsfp = part("N-QSFP", PartKind.NIC, port_count=1, port_gbps=400.0, form_factor="QSFP112")
    fast = part("N-800", PartKind.NIC, port_count=1, port_gbps=800.0, form_factor="OSFP")
    switch = part("SW", PartKind.SWITCH, port_count=64, port_gbps=400.0, form_factor="OSFP")
    assert find_nic([switch, osfp], 400.0, "OSFP") is osfp  # a 400G switch port is not a NIC
    assert find_nic([osfp, qsfp, fast], 400.0, "QSFP112") is qsfp
    assert find_nic([osfp, qsfp, fast], 400.0, "OSFP") is osfp
    assert find_nic([osfp, qsfp, fast], 400.0, "CX") is osfp
    ph = find_nic([osfp, qsfp, fast], 200.0)
    assert (ph.sku, ph.description, ph.port_gbps, ph.port_count) == ("NIC-200G", "200G NIC", 200.0, 1)


@pytest.mark.parametrize(("pct", "ok"), [("0", True), ("100", True), ("-0.01", False), ("100.01", False)])
def test_spares_percentages_from_0_to_100(pct, ok):
    if ok:
        BomPolicy(spares_pct={PartKind.CABLE: Decimal(pct)})
    else:
        with pytest.raises(ValueError, match="must be 0–100 %"):
            BomPolicy(spares_pct={PartKind.CABLE: Decimal(pct)})


def test_list_price_and_discount_are_kept_only_when_they_give_the_net_price():
    """$1,000 list at 25 % off = $750.00 net: kept. A line priced otherwise ($0, a NIC in the node price) keeps
    list = net and no discount, so list × (1 − discount) is always the net price."""
    listed = part("P", PartKind.SWITCH, "750", list_price_usd=Decimal("1000"), discount_pct=Decimal("25"))
    assert (Purchase.of(listed).list_price_usd, Purchase.of(listed).discount_pct) == (Decimal("1000"), Decimal("25"))
    free = part("P", PartKind.NIC, "0", list_price_usd=Decimal("1000"), discount_pct=Decimal("25"))
    assert (Purchase.of(free).list_price_usd, Purchase.of(free).discount_pct) == (Decimal("0"), Decimal("0"))
    rounded = part("P", PartKind.CABLE, "66.67", list_price_usd=Decimal("100"), discount_pct=Decimal("33.333"))
    assert Purchase.of(rounded).list_price_usd == Decimal("100")  # 100 × 66.667 % = 66.667 → $66.67 (half up)


def module(ppm: int = 1, media: str = "") -> PartSpec:
    return part("M", PartKind.TRANSCEIVER, ports_per_module=ppm, media=media)


def test_module_derivations_name_who_holds_them():
    """The 'why' of each transceiver line: BMC copper SFPs, fabric-management and attached devices one a port, NIC
    cages (twin-port: one per cage), switch ports ÷ ports per module (2: rounded up per switch) or × 1."""
    assert _module_why(module(), "bmc", 267, 34, 267) == (
        "267 BMC links into SFP ports of management ToRs × 1 1000BASE-T SFP = 267"
    )
    rj45 = module(media=CableMedia.COPPER_RJ45)
    assert _module_why(rj45, "mgmt_tor", 3, 1, 3).startswith("3 BMC links into SFP ports")
    assert _module_why(module(), "ufm", 4, 4, 4) == "4 fabric-management server ports × 1 module = 4"
    assert _module_why(module(), "device", 2, 2, 2) == "2 fabric-attached device ports × 1 module = 2"
    assert _module_why(module(2), "nic", 2000, 1000, 1000) == (
        "2,000 NIC ports in twin-port cages: one module per cage with an optical port = 1,000"
    )
    assert _module_why(module(), "nic", 1840, 1840, 1840) == "1,840 NIC ends of optical links × 1 module = 1,840"
    assert _module_why(module(2), "compute_switch", 5936, 96, 2968) == (
        "5,936 optical switch ports on 96 compute switches ÷ 2 ports per module "
        "(rounded up per switch and link class: one module a cage) = 2,968"
    )
    assert (
        _module_why(module(), "mgmt_tor", 68, 34, 68) == "68 optical switch ports on 34 management ToRs × 1 module = 68"
    )
    assert _module_why(module(0), "mgmt_spine", 68, 2, 68).endswith("on 2 management spines × 1 module = 68")


def test_switches_and_nics_of_none_are_not_lines():
    """A role with 0 switches (no spine on one tier) or 0 NICs buys nothing; 1 is a line of 1."""
    sw = part("SW", PartKind.SWITCH, port_count=64, port_gbps=400.0)
    nic = part("NIC", PartKind.NIC, port_count=1, port_gbps=400.0)
    roles = Roles(sw, sw, sw, sw, nic, nic, nic)
    lines, checks = _switch_and_nic_lines(
        [("compute", "compute_spine_switch", "spine", 0, "none"), ("compute", "compute_switch", "leaf", 1, "one")],
        {"compute": [(nic, 0, "none"), (nic, 1, "one")]},
        roles,
    )
    assert [(ln.category, ln.quantity) for ln in lines] == [("switch (leaf)", 1), ("nic", 1)] and checks == []


def test_a_switch_not_in_the_catalog_is_a_failed_check_at_0_usd():
    """No 128 × 800G switch in the book: the line stands at $0 and a check names the shape to add."""
    nic = part("NIC", PartKind.NIC, port_count=1, port_gbps=400.0)
    missing = find_switch([], radix=128, port_gbps=800.0)
    lines, checks = _switch_and_nic_lines([("compute", "compute_switch", "leaf", 4, "why")], {}, Roles(
        missing, missing, missing, missing, nic, nic, nic))  # fmt: skip
    assert [(ln.sku, ln.quantity, ln.unit_price_usd) for ln in lines] == [("SWITCH-128x800G", 4, Decimal("0"))]
    assert checks == [{"ok": False, "field": "catalog",
                       "message": "compute leaf: no catalog switch with 128 × 800G ports; priced at $0 until one is "
                                  "added"}]  # fmt: skip


def test_quantity_by_kind_counts_one_kind_without_spares():
    lines = (line(10), line(3, kind=PartKind.TRANSCEIVER), line(1), BomLine("storage", "cable", "C", "c", 5,
             Decimal("1"), "", "book", False, PartKind.CABLE), _spare_lines([line(100)], BomPolicy())[0])  # fmt: skip
    bom = Bom(lines, (), 0, 0, {})
    assert bom.quantity_by_kind(PartKind.CABLE) == 16
    assert bom.quantity_by_kind(PartKind.CABLE, plane="compute") == 11
    assert bom.quantity_by_kind(PartKind.TRANSCEIVER) == 3


def test_bom_lines_run_plane_by_plane_parts_before_spares():
    """The seed design's BOM: compute, storage, management, infrastructure; in each, what the design needs, then
    spares; switches, NICs, fabric devices, transceivers, cables, racks, PDUs, patch panels."""
    import yaml

    from cluster.pipeline import plan_cluster
    from cluster.validate import validate
    from tests.conftest import EXAMPLES

    planes = ("compute", "storage", "management", "infrastructure")  # the order a buyer reads, stated here
    categories = ("switch", "nic", "fabric", "transceiver", "cable", "rack", "pdu", "patch")
    lines = plan_cluster(validate(yaml.safe_load((EXAMPLES / "seed-2000-gpu.yaml").read_text()))).bom.lines
    keys = [(planes.index(ln.plane), ln.spare, categories.index(ln.category.split()[0])) for ln in lines]
    assert keys == sorted(keys)
    assert list(dict.fromkeys(ln.plane for ln in lines))[:3] == ["compute", "storage", "management"]
    compute = [(ln.spare, ln.category.split()[0]) for ln in lines if ln.plane == "compute"]
    assert compute[:3] == [(False, "switch"), (False, "switch"), (False, "nic")] and compute[-1][0] is True


def test_group_rows_groups_exactly_the_equal_rows():
    """group_rows keys each row by a mixed-radix number (radix = column max + 1): rows share a group iff every
    column is equal — the same partition as np.unique(axis=0). (0, 0), (1, 2), (2, 1), (1, 2) → three groups; a
    radix of max − 1 would give (1, 2) and (2, 1) the same key (1 × 1 + 2 = 2 × 1 + 1 = 3)."""
    import numpy as np

    from bom.build import group_rows

    a, b = np.array([0, 1, 2, 1]), np.array([0, 2, 1, 2])
    first, inverse = group_rows([a, b])
    assert len(first) == 3 and inverse[1] == inverse[3] and len({inverse[0], inverse[1], inverse[2]}) == 3
    rng = np.random.default_rng(7)
    for _ in range(50):
        cols = [rng.integers(0, rng.integers(1, 6), size=40) for _ in range(3)]
        first, inv = group_rows(cols)
        _, index, expected = np.unique(np.stack(cols, axis=1), axis=0, return_index=True, return_inverse=True)
        same = inv[:, None] == inv[None, :]
        assert (same == (expected.reshape(-1)[:, None] == expected.reshape(-1)[None, :])).all()
        # the groups in the rows' order (first column most significant), each with its first row: np.unique's own
        assert inv.tolist() == expected.reshape(-1).tolist() and first.tolist() == index.tolist()
    zeros = np.zeros(5, dtype=np.int64)  # no column adds to the key: one group, from row 0
    first, inv = group_rows([zeros, zeros])
    assert first.tolist() == [0] and inv.tolist() == [0] * 5


def test_unique_codes_is_np_unique_with_its_inverse():
    """unique_codes counts small-range integers and picks out a few float values instead of sorting; it must give
    np.unique's answer exactly. By hand: [5, 3, 5, 9] → values [3, 5, 9], codes [1, 0, 1, 2] (counted: 9 − 3 + 1
    = 7 slots); speeds [400.0, 800.0, 400.0] → [400, 800], [0, 1, 0]. Then ranges that take each way (negative,
    one value, wide enough to sort, 17 distinct floats > FEW_VALUES, NaN) against np.unique."""
    import numpy as np

    from bom.build import FEW_VALUES, unique_codes

    values, codes = unique_codes(np.array([5, 3, 5, 9], dtype=np.int64))
    assert values.tolist() == [3, 5, 9] and codes.tolist() == [1, 0, 1, 2] and values.dtype == np.int64
    values, codes = unique_codes(np.array([400.0, 800.0, 400.0]))
    assert values.tolist() == [400.0, 800.0] and codes.tolist() == [0, 1, 0]
    rng = np.random.default_rng(11)
    cases = [
        np.array([], dtype=np.int64),
        np.array([7, 7, 7]),
        rng.integers(-50, 50, size=300),
        rng.integers(0, 2**40, size=300),  # a span far beyond 32 × size: sorted
        np.array([0, 2**60, 0], dtype=np.int64),
        rng.choice([100.0, 200.0, 400.0, 800.0], size=500),
        rng.choice(np.arange(FEW_VALUES + 1, dtype=float), size=500),  # one value too many: sorted
        np.array([1.0, np.nan, 1.0]),
        np.array([-0.0, 0.0, 3.5]),
    ]
    for a in cases:
        got_values, got_codes = unique_codes(a)
        want_values, want_codes = np.unique(a, return_inverse=True)
        assert np.array_equal(got_values, want_values, equal_nan=True), a
        assert got_codes.tolist() == want_codes.reshape(-1).tolist(), a
        assert got_values.dtype == want_values.dtype


def test_the_bom_as_a_buyer_reads_it_line_ids_plane_totals_and_list_prices():
    """Compute: 10 × $10.00 + 3 × $2.50 = $107.50; storage: 5 × $1.00 = $5.00; all $112.50. Line ids run per plane
    from its first three letters: COM-001, COM-002, STO-001. A line without a list price quotes its net price as
    the list price ($10.00); one with a list of $1,000 quotes that."""
    listed = Purchase(list_price_usd=Decimal("1000"), discount_pct=Decimal("25"))
    lines = (
        line(10),
        BomLine("compute", "cable", "C2", "c", 3, Decimal("2.50"), "", "book", False, PartKind.CABLE, purchase=listed),
        BomLine("storage", "cable", "C3", "c", 5, Decimal("1"), "", "book", False, PartKind.CABLE),
    )
    bom = Bom(lines, (), 0, 0, {})
    assert bom.total_usd("compute") == Decimal("107.50") and bom.total_usd("storage") == Decimal("5.00")
    out = bom.to_dict()
    assert [ln["line_id"] for ln in out["lines"]] == ["COM-001", "COM-002", "STO-001"]
    assert out["totals_usd"] == {"compute": "107.50", "storage": "5.00"} and out["total_usd"] == "112.50"
    assert [ln["list_price_usd"] for ln in out["lines"]] == ["10.00", "1000.00", "1.00"]


def test_link_classes_are_np_uniques_rows_in_its_order():
    """_link_classes codes (plane, segment, roles) densely before grouping (counted, not sorted): its classes must be
    np.unique(axis=0)'s rows of the eight columns, in that order, each row's class its inverse — on random tables
    whose raw key space (planes × segments × roles² × speeds × lengths × distances) is far past counting."""
    import numpy as np

    from bom.build import _link_classes
    from bom.link_table import LinkTable

    rng = np.random.default_rng(11)
    for _ in range(20):
        n = int(rng.integers(1, 400))
        highs = {"plane": 3, "segment": 19, "a_role": 9, "z_role": 9, "length_m": 900, "rack_distance": 3}
        col = {name: rng.integers(0, high, n) for name, high in highs.items()}
        speed_code = rng.integers(0, 6, n)
        t = LinkTable(
            ("a", "b", "c"), tuple(f"s{i}" for i in range(19)), tuple(f"r{i}" for i in range(9)), (), **col,
            a_dev=np.full(n, -1), z_dev=np.full(n, -1), a_nic=np.full(n, -1), z_nic=np.full(n, -1),
            speed_gbps=speed_code * 100.0, a_rack=np.zeros(n, dtype=np.int64), z_rack=np.zeros(n, dtype=np.int64),
            weight=rng.integers(1, 4, n),
        )  # fmt: skip
        variant = rng.integers(0, 3, n)
        classes, inverse, counts = _link_classes(t, speed_code, variant)
        stacked = np.stack([col["plane"], col["segment"], col["a_role"], col["z_role"], speed_code, col["length_m"],
                            col["rack_distance"], variant], axis=1)  # fmt: skip
        expected, expected_inverse = np.unique(stacked, axis=0, return_inverse=True)
        assert np.array_equal(classes, expected) and np.array_equal(inverse, expected_inverse.reshape(-1))
        assert np.array_equal(counts, np.bincount(inverse, weights=t.weight).astype(np.int64))
