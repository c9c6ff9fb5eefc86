"""Odd-port pairing (bom/build.py pair_odd_ports, _OddPorts): the search's hops, its ranking and its bookkeeping,
pinned on small hand-built fabrics of QM9700 switches (32 OSFP cages of 2 × 400G ports).

Catalogue figures used by hand (bom/data/catalog.toml, as tests/bom/test_odd_ports.py derives them): a switch ↔
switch link of 30 m takes the twin SR4 MMA4Z00-NS at both ends (multimode, 50 m reach) and an MPO-12 multimode trunk;
one of 100 m takes the twin DR4 OSFP-800G-2xDR4 at both ends (500 m) and an MPO-12 OS2 trunk. A link moved onto the
twin DR4 is DR4 at both ends and takes the single-mode trunk of its length (MPO12-OS2-<length>M). A switch's cages
for a kind: ⌈ports ÷ 2⌉.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

import bom.build as build
from bom.link_table import LinkTable
from bom.links import Link
from tests.bom.test_odd_ports import _chooser

SR4, DR4 = "MMA4Z00-NS", "OSFP-800G-2xDR4"


def _sw(a: str, z: str, length: int, port: str = "p", segment: str = "leaf–spine") -> Link:
    """A switch ↔ switch link (both ends compute_switch) of ``length`` metres."""
    return Link("compute", segment, a, f"{port}-{z}", "compute_switch", z, f"{port}-{a}", "compute_switch",
                400.0, length, 2)  # fmt: skip


def _pair(links: list[Link], weights: list[int] | None = None):
    """The moves pair_odd_ports makes on the table of ``links``: [(a, z, length, a module, z module)], and the table."""
    t = LinkTable.from_links(links)
    if weights is not None:
        from dataclasses import replace

        t = replace(t, weight=np.array(weights, dtype=np.int64))
    chooser = _chooser()
    g, parts, width, _moves = build._classes_and_parts(t, chooser)
    moves = build.pair_odd_ports(t, chooser, g, parts, width)
    name = lambda d: t.devices[d] if d >= 0 else "-"  # noqa: E731
    return [
        (name(t.a_dev[r]), name(t.z_dev[r]), int(t.length_m[r]), p.a_module.sku, p.z_module.sku) for r, p in moves
    ], t


def _modules(links: list[Link], weights: list[int] | None = None) -> dict[str, int]:
    t = LinkTable.from_links(links)
    if weights is not None:
        from dataclasses import replace

        t = replace(t, weight=np.array(weights, dtype=np.int64))
    counts = build.count_links(t, _chooser())
    out: Counter = Counter()
    for (_plane, _group, sku), (_part, qty, _why) in counts.modules.items():
        out[sku] += qty
    return dict(out)


def _chain(k: int) -> list[Link]:
    """leaf0001 holds one 30 m link to s01 and one 100 m link to sink: one odd SR4 and one odd DR4 port (2 cages
    for 2 ports). s01 … s<k> are chained by 30 m links (s<i> ↔ s<i+1>); every s<i> but the last also has two 100 m
    links to sink. So s<i> (i < k) holds 2 SR4 + 2 DR4 ports (1 + 1 = 2 cages): a link moved from SR4 onto DR4 there
    makes 1 SR4 + 3 DR4 = 1 + 2 = 3 cages (a cage more: the path goes on, through its other 30 m link, the only one
    left); s<k> holds 1 SR4 port: moved, 0 SR4 + 1 DR4 = 1 cage as before — the path ends there. The only path
    from leaf0001 therefore changes exactly k links: leaf0001–s01, s01–s02, …, s<k-1>–s<k>."""
    links = [_sw("leaf0001", "s01", 30), _sw("leaf0001", "sink", 100)]
    for i in range(1, k):
        links.append(_sw(f"s{i:02d}", f"s{i + 1:02d}", 30))
        links += [_sw(f"s{i:02d}", "sink", 100, "x"), _sw(f"s{i:02d}", "sink", 100, "y")]
    return links


def test_a_path_of_eight_links_is_the_longest_the_search_follows():
    """MAX_HOPS = 8: a chain needing 8 changed links is paired (each of its 8 links turns DR4 at both ends); one
    needing 9 is left as it is (no move at all)."""
    moves, _t = _pair(_chain(8))
    expected = [("leaf0001", "s01", 30, DR4, DR4)] + [(f"s{i:02d}", f"s{i + 1:02d}", 30, DR4, DR4) for i in range(1, 8)]
    assert moves == expected  # in path order: the leaf's own link first
    assert _pair(_chain(9))[0] == []


def test_a_far_switch_whose_cages_shrink_beats_a_longer_link_to_one_whose_cages_stay():
    """leaf0001: 30 m links to sa (40 m), sb (30 m), sc (20 m) — 3 SR4 ports — and one 100 m link to sink (1 DR4):
    2 + 1 = 3 cages for 4 ports. sa and sc hold that one SR4 port only: moved onto DR4, 0 SR4 + 1 DR4 = 1 cage as
    before (rank 2, cages stay). sb holds 1 SR4 + 1 DR4 (its 100 m link to sink2): moved, 0 + 2 DR4 = 1 cage for 2
    (rank 1, cages shrink) — so the leaf's link to sb moves though sa's is longer, and it mends sb too (no second
    move). Modules: leaf 2 SR4 + 2 DR4 = 1 + 1; sa, sc 1 SR4 each; sb 2 DR4 = 1; sink, sink2 1 DR4 each:
    SR4 1 + 2 = 3, DR4 1 + 1 + 1 + 1 = 4."""
    links = [
        _sw("leaf0001", "sa", 40),
        _sw("leaf0001", "sb", 30),
        _sw("leaf0001", "sc", 20),
        _sw("leaf0001", "sink", 100),
        _sw("sb", "sink2", 100),
    ]
    assert _pair(links)[0] == [("leaf0001", "sb", 30, DR4, DR4)]
    assert _modules(links) == {SR4: 3, DR4: 4}


def test_among_equal_ranks_the_longest_link_moves():
    """leaf0001: 30 m-class links (SR4) of 20, 40 and 30 m to sa, sc, sd, each far switch holding that one SR4
    port (rank 2 each: 1 cage before and after), and one 100 m link to sink: the longest, leaf0001–sc (40 m), moves
    — though sa comes first by name."""
    links = [
        _sw("leaf0001", "sa", 20),
        _sw("leaf0001", "sc", 40),
        _sw("leaf0001", "sd", 30),
        _sw("leaf0001", "sink", 100),
    ]
    assert _pair(links)[0] == [("leaf0001", "sc", 40, DR4, DR4)]


def _tied() -> list[Link]:
    """x: three 30 m links — to a1 (x at the a end), from a2 (x at the z end), to a3 — and one 100 m link to sink:
    3 SR4 + 1 DR4 ports. a1 and a2 each hold 2 DR4 ports (two 100 m links a1–a2) and that 1 SR4 port; a3 the SR4
    port alone: moved onto DR4, a1 and a2 hold 0 SR4 + 3 DR4 = 2 cages as 1 + 1 before, a3 1 as before: all rank 2,
    all 30 m. The devices are numbered as they first appear: a1 0, a2 1, x 2."""
    return [
        _sw("a1", "a2", 100, "u"),
        _sw("a1", "a2", 100, "v"),
        _sw("x", "a1", 30),
        _sw("a2", "x", 30),
        _sw("x", "a3", 30),
        _sw("x", "sink", 100),
    ]


def test_equal_links_go_by_the_far_switchs_name():
    """Ranks and lengths equal: the far switch first by name moves — a1 (before a2, a3), though x is the far end
    of a2's link (a lesser tie-break than the name)."""
    assert _pair(_tied())[0] == [("x", "a1", 30, DR4, DR4)]


def test_equal_links_to_one_switch_go_by_segment_name():
    """x: two 30 m links to a1, one in segment "aaa" (x at the a end), one in "leaf–spine" (a1 at the a end, so x's
    far end is a — a lesser tie-break), one to a3 (named after a1) and one 100 m link to sink: 3 SR4 + 1 DR4.
    a1: 2 SR4 ports and 1 DR4 (to sink2): moved, 1 SR4 + 2 DR4 = 1 + 1 = 2 cages as before (rank 2 for both).
    "aaa" sorts before "leaf–spine": that link moves."""
    links = [
        _sw("x", "a1", 30, segment="aaa"),
        _sw("a1", "x", 30),
        _sw("x", "a3", 30),
        _sw("x", "sink", 100),
        _sw("a1", "sink2", 100),
    ]
    moves, _t = _pair(links)
    assert moves == [("x", "a1", 30, DR4, DR4)]


def _second_search(f_extra: Link) -> list[Link]:
    """Two switches to pair, leaf0001 then m (name order): leaf0001 holds 1 SR4 port (30 m to f) and 1 DR4 (to sink);
    m holds 3 SR4 ports — 45 m to f, 40 m to h, 20 m to k — and 1 DR4 (to sink). h and k hold that one SR4 port
    only. f holds those two SR4 ports and ``f_extra``. leaf0001's one candidate is its link to f; m then ranks f
    with f's ports as leaf0001's move left them (one SR4 port off, one DR4 port on)."""
    return [
        _sw("leaf0001", "f", 30),
        _sw("leaf0001", "sink", 100),
        _sw("m", "f", 45),
        _sw("m", "h", 40),
        _sw("m", "k", 20),
        _sw("m", "sink", 100),
        f_extra,
    ]


def test_a_later_search_sees_the_ports_an_earlier_move_took_off():
    """f starts with 2 SR4 + 1 DR4 ports (its extra link: 100 m to sink2): leaf0001's link moves onto DR4 — f
    1 + 2 = 2 cages, 1 + 1 before (rank 2, the path ends). f now holds 1 SR4 + 2 DR4; m's 45 m link to it moved
    leaves 0 SR4 + 3 DR4 = 2 cages as before (rank 2), as for h and k: the longest, m–f, moves. (Had f kept its SR4
    port — 2 SR4 + 2 DR4 — that move would make 1 + 2 = 3 cages, a cage more, and m's 40 m link to h would move.)"""
    moves, _t = _pair(_second_search(_sw("f", "sink2", 100)))
    assert moves == [("leaf0001", "f", 30, DR4, DR4), ("m", "f", 45, DR4, DR4)]


def test_a_later_search_sees_the_ports_an_earlier_move_put_on():
    """f starts with 3 SR4 ports (its extra link: 30 m to g, g holding that port alone) and no DR4: leaf0001's link
    moves — f 2 SR4 + 1 DR4 = 2 cages as ⌈3 ÷ 2⌉ = 2 before (rank 2). m's 45 m link to f moved then leaves 1 SR4 +
    2 DR4 = 2 cages (rank 2): the longest moves, m–f. (Had f not gained the DR4 port — 2 SR4 + 0 DR4, or 2 + 2 —
    that move would add a cage, and m's 40 m link to h would move.)"""
    moves, _t = _pair(_second_search(_sw("f", "g", 30)))
    assert moves == [("leaf0001", "f", 30, DR4, DR4), ("m", "f", 45, DR4, DR4)]


def _two_hops(t1_dr4: bool) -> list[Link]:
    """leaf0001: SR4 links to r3 (20 m), r1 (30 m), r2 (40 m) — rows in that order — and one DR4 link to sink.
    Each r<i> holds 2 SR4 ports (from leaf0001, and 30 m-class to t<i>: r1–t1 20 m, r2–t2 30 m, r3–t3 45 m) and
    2 DR4 (two 100 m links to sink): a link moved onto DR4 there makes 1 + 2 = 3 cages for 1 + 1 = 2 (rank 3), so
    no path ends at the first hop and every r<i> is reached, each by its one link. t<i> holds its SR4 port alone
    (moved: 1 cage as before, rank 2) — t1 also 1 DR4 port (to sink) where ``t1_dr4``: then moving r1–t1 leaves
    t1 0 + 2 DR4 = 1 cage for 1 + 1 (rank 1)."""
    links = [_sw("leaf0001", "r3", 20), _sw("leaf0001", "r1", 30), _sw("leaf0001", "r2", 40)]
    links += [_sw("leaf0001", "sink", 100), _sw("r1", "t1", 20), _sw("r2", "t2", 30), _sw("r3", "t3", 45)]
    for r in ("r1", "r2", "r3"):
        links += [_sw(r, "sink", 100, "x"), _sw(r, "sink", 100, "y")]
    if t1_dr4:
        links.append(_sw("t1", "sink", 100))
    return links


def test_of_two_hop_paths_the_best_last_step_wins_before_the_first_steps_key():
    """Paths of two links each: leaf0001–r<i>, r<i>–t<i>. Only the one through r1 ends at a switch whose cages
    shrink (t1, rank 1; the others rank 2), so it moves though its links are shorter (30 m and 20 m against 40 m
    and 45 m ones) — and it mends t1 (1 SR4 + 1 DR4 odd before) too: no second path."""
    moves, _t = _pair(_two_hops(t1_dr4=True))
    assert moves == [("leaf0001", "r1", 30, DR4, DR4), ("r1", "t1", 20, DR4, DR4)]


def test_of_two_hop_paths_of_equal_last_rank_the_first_steps_key_wins():
    """All three paths end at rank 2: the first steps' keys decide — leaf0001–r2, the longest (40 m) — before the
    last steps' (r3–t3 is the longest last link, 45 m; leaf0001–r3 the first row)."""
    moves, _t = _pair(_two_hops(t1_dr4=False))
    assert moves == [("leaf0001", "r2", 40, DR4, DR4), ("r2", "t2", 30, DR4, DR4)]


def test_a_link_to_a_twin_port_nic_cage_does_not_move():
    """NICs with twin-port OSFP cages (EndSpec(2, "OSFP")): a NIC link moved onto DR4 would put two module kinds in
    one NIC cage, so it cannot move. leaf0001: two 10 m NIC links and a 30 m link to x (3 SR4 ports), one 100 m link
    to sink (1 DR4): the NIC links are the shorter, but only leaf0001–x can move (x holds that SR4 port alone:
    rank 2)."""
    from bom.catalog import DEFAULT_PARTS
    from bom.media import EndSpec, PartChooser
    from tests.bom.test_odd_ports import QM9700

    ends = {
        ("compute", "compute_switch"): EndSpec(QM9700.ports_per_cage, "", QM9700.lane_gbps, QM9700.form_factor),
        ("compute", "nic"): EndSpec(2, "OSFP", 100.0),
    }
    chooser = PartChooser(DEFAULT_PARTS, media_policy="by_reach", ends=ends)
    nics = [
        Link("compute", "node–leaf", f"cn{i:05d}", "ib0", "nic", "leaf0001", f"osfp{i}", "compute_switch", 400.0, 10, 2)
        for i in (1, 2)
    ]
    t = LinkTable.from_links([*nics, _sw("leaf0001", "x", 30), _sw("leaf0001", "sink", 100)])
    assert chooser.parts(nics[0]).a_module.sku == SR4  # the NIC end: the twin SR4 too (a twin-port cage)
    g, parts, width, _moves = build._classes_and_parts(t, chooser)
    moves = build.pair_odd_ports(t, chooser, g, parts, width)
    assert [(r, p.a_module.sku, p.z_module.sku) for r, p in moves] == [(2, DR4, DR4)]  # row 2: leaf0001–x


def test_a_switch_reached_from_two_frontier_switches_is_reached_by_the_best_path():
    """leaf0001: SR4 links to r1 (30 m), r2 (40 m), r3 (20 m) and one DR4 link to sink. Each r<i> holds 2 SR4 ports
    (from leaf0001, and 30 m to h) and 2 DR4 (to sink): moved, a cage more (rank 3). h holds 4 SR4 ports (from r1,
    r2, r3, and 30 m to q), no DR4: moved, 3 + 1 = 2 + 1 = 3 cages for 2 (rank 3) — reached at the second hop from
    all three r<i>, by the path whose first step is best: leaf0001–r2, the longest. q holds its SR4 port alone
    (rank 2): the path ends there, three links: leaf0001–r2, r2–h, h–q."""
    links = [_sw("leaf0001", "r1", 30), _sw("leaf0001", "r2", 40), _sw("leaf0001", "r3", 20)]
    links += [_sw("leaf0001", "sink", 100), _sw("h", "q", 30)]
    for r in ("r1", "r2", "r3"):
        links += [_sw(r, "h", 30), _sw(r, "sink", 100, "x"), _sw(r, "sink", 100, "y")]
    moves, _t = _pair(links)
    assert moves == [("leaf0001", "r2", 40, DR4, DR4), ("r2", "h", 30, DR4, DR4), ("h", "q", 30, DR4, DR4)]
