"""Issue #34 item 2: a twin-port cage holds one module, so a switch never splits a cage between two module kinds —
its odd port is paired onto the longer-reach module, and that link is then single-mode end to end.

Hand derivation (catalog figures: bom/data/catalog.toml, from the NVIDIA product specifications cited there):
- QM9700 leaf: 32 OSFP cages of 2 × 400G ports (MMA4Z00-NS twin SR4, 50 m multimode; MMS4X00-NM twin DR4, 500 m
  single-mode — catalog sku OSFP-800G-2xDR4);
- the leaf has 3 NIC links of 10 m (SR4 reaches: twin SR4 at the leaf, single-port SR4 MMA4Z00-NS400 at the NIC,
  an MPO-12 multimode trunk) and 3 spine links of 100 m (past SR4's 50 m: twin DR4 both ends, MPO-12 OS2 trunk);
- as chosen link by link: ⌈3 ÷ 2⌉ + ⌈3 ÷ 2⌉ = 2 + 2 = 4 modules in 4 cages for 6 ports, where ⌈6 ÷ 2⌉ = 3 cages do;
- paired: one 10 m NIC link moves onto the twin DR4 (a NIC end is preferred: its single-port cage changes alone):
  leaf SR4 ports 2 → 1 module, DR4 ports 3 + 1 = 4 → 2 modules: 3 modules = 3 cages;
- that link's NIC end becomes the single-port DR4 MMS4X00-NS400 (100 m, MPO-12 APC, 8 fibres: it mates the twin
  DR4) and its trunk the 10 m single-mode MPO-12 OS2 (MPO12-OS2-10M); the other two NIC links keep MMA4Z00-NS400;
- the spine's 3 DR4 ports stay as they were: ⌈3 ÷ 2⌉ = 2 twin DR4 — one kind alone, nothing to pair.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from bom.build import count_links, link_parts
from bom.catalog import DEFAULT_PARTS
from bom.link_table import LinkTable
from bom.links import Link
from bom.media import EndSpec, PartChooser

QM9700 = next(p for p in DEFAULT_PARTS if p.sku == "QM9700")


def _chooser() -> PartChooser:
    ends = {
        ("compute", "compute_switch"): EndSpec(QM9700.ports_per_cage, "", QM9700.lane_gbps, QM9700.form_factor),
        ("compute", "nic"): EndSpec(1, "OSFP", 100.0),
    }
    return PartChooser(DEFAULT_PARTS, media_policy="by_reach", ends=ends)


def _links() -> list[Link]:
    nic = [
        Link("compute", "node–leaf", f"cn{i:05d}", "ib0", "nic", "leaf0001", f"osfp{i}", "compute_switch", 400.0, 10, 2)
        for i in (1, 2, 3)
    ]
    up = [
        Link(
            "compute",
            "leaf–spine",
            "leaf0001",
            f"up{i}",
            "compute_switch",
            "spine0001",
            f"d{i}",
            "compute_switch",
            400.0,
            100,
            2,
        )
        for i in (1, 2, 3)
    ]
    return nic + up


def test_link_by_link_the_leaf_would_buy_four_modules_for_six_ports():
    chooser = _chooser()
    parts = [chooser.parts(ln) for ln in _links()]
    assert [p.z_module.sku for p in parts[:3]] == ["MMA4Z00-NS"] * 3  # twin SR4 at the leaf
    assert [p.a_module.sku for p in parts[3:]] == ["OSFP-800G-2xDR4"] * 3  # twin DR4 at the leaf
    assert -(-3 // 2) + -(-3 // 2) == 4 > -(-6 // 2) == 3


def test_the_odd_port_goes_onto_the_longer_reach_module_and_the_link_turns_single_mode():
    chooser = _chooser()
    counts = count_links(LinkTable.from_links(_links()), chooser)
    modules = {sku: qty for (_plane, _group, sku), (_part, qty, _why) in counts.modules.items()}
    assert modules == {
        "MMA4Z00-NS": 1,  # leaf: 2 SR4 ports in one cage
        "OSFP-800G-2xDR4": 2 + 2,  # leaf: 1 + 3 DR4 ports in 2 cages; spine: 3 DR4 ports in 2 cages
        "MMA4Z00-NS400": 2,  # the two NIC links left on SR4
        "MMS4X00-NS400": 1,  # the moved link's NIC end: single-port DR4
    }
    leaf = counts.cages[("compute", "compute_switch")]
    assert (leaf.ports, leaf.cages) == (6, 3)  # the busiest switch: the leaf, 6 ports in ⌈6 ÷ 2⌉ = 3 cages
    cables = {sku: entry[1] for by_sku in counts.cables.values() for sku, entry in by_sku.items()}
    assert cables == {"MPO12-10M": 2, "MPO12-OS2-10M": 1, "MPO12-OS2-100M": 3}


def test_the_cut_sheet_names_the_module_and_trunk_the_moved_link_gets():
    parts = link_parts(_links(), _chooser())
    nic = [(p.a_module.sku, p.cable.sku, p.z_module.sku) for p in parts[:3]]
    # one of the three identical 10 m NIC links moves (ties broken by NIC port: the first); the rest stay multimode
    assert sorted(nic) == [
        ("MMA4Z00-NS400", "MPO12-10M", "MMA4Z00-NS"),
        ("MMA4Z00-NS400", "MPO12-10M", "MMA4Z00-NS"),
        ("MMS4X00-NS400", "MPO12-OS2-10M", "OSFP-800G-2xDR4"),
    ]
    assert all(p.a_module.sku == p.z_module.sku == "OSFP-800G-2xDR4" for p in parts[3:])


def test_a_grouped_row_gives_up_one_link_as_per_link_records_do():
    """The live table groups identical links (a weight): leaf0001 ↔ spine0001 × 3 at 30 m (twin SR4 both ends) and
    leaf0001 ↔ spine0002 × 1 at 100 m (twin DR4). The leaf holds 3 SR4 and 1 DR4 ports (2 + 1 = 3 cages for 4
    ports); one of the three 30 m links moves onto DR4 — spine0001 then holds 2 SR4 + 1 DR4 ports, ⌈2 ÷ 2⌉ + ⌈1 ÷ 2⌉
    = 2 cages, as ⌈3 ÷ 2⌉ = 2 before — so the leaf buys 1 SR4 + 1 DR4, spine0001 1 SR4 + 1 DR4, spine0002 1 DR4;
    the grouped row is split (2 links stay, 1 moves) and counts as the four records do."""
    chooser = _chooser()
    short = Link(
        "compute", "leaf–spine", "leaf0001", "u1", "compute_switch", "spine0001", "d1", "compute_switch", 400.0, 30, 2
    )
    long = Link(
        "compute", "leaf–spine", "leaf0001", "u4", "compute_switch", "spine0002", "d1", "compute_switch", 400.0, 100, 2
    )
    per_link = count_links(LinkTable.from_links([short, short, short, long]), chooser)
    grouped = LinkTable.from_links([short, long])
    live = count_links(replace(grouped, weight=np.array([3, 1], dtype=np.int64)), chooser)
    for counts in (per_link, live):
        modules = {sku: qty for (_plane, _group, sku), (_part, qty, _why) in counts.modules.items()}
        assert modules == {"MMA4Z00-NS": 1 + 1, "OSFP-800G-2xDR4": 1 + 1 + 1}
        cables = {sku: entry[1] for by_sku in counts.cables.values() for sku, entry in by_sku.items()}
        assert cables == {"MPO12-30M": 2, "MPO12-OS2-30M": 1, "MPO12-OS2-100M": 1}
        assert counts.cages[("compute", "compute_switch")].cages == 2


def _grouped_ends(ends) -> dict:
    """(end, class, device, NIC cage, rack) → links (groups that coincide summed; a rack is read at a switch only)."""
    out: dict = {}
    for end, e in ends.items():
        cols = (e.cls.tolist(), e.dev.tolist(), e.cage.tolist(), e.rack.tolist(), e.weight.tolist())
        for cls, dev, cage, rack, n in zip(*cols, strict=True):
            key = (end, cls, dev, cage, rack if dev >= 0 else None)
            out[key] = out.get(key, 0) + n
    return out


def _paired_cases():
    from bom.plan import Catalog, chooser_for, floor_plan, link_table
    from cluster.pipeline import plan_planes
    from cluster.requests import bom_request, resolve
    from cluster.validate import validate

    short = Link(
        "compute", "leaf–spine", "leaf0001", "u1", "compute_switch", "spine0001", "d1", "compute_switch", 400.0, 30, 2
    )
    long = Link(
        "compute", "leaf–spine", "leaf0001", "u4", "compute_switch", "spine0002", "d1", "compute_switch", 400.0, 100, 2
    )
    grouped = LinkTable.from_links([short, long])
    yield replace(grouped, weight=np.array([3, 1], dtype=np.int64)), _chooser()  # a row gives up one of 3 links
    yield LinkTable.from_links(_links()), _chooser()
    r = resolve(validate({"gpu_count": 8192, "gpu_model": "H100-SXM5"}))  # 4 links moved on the live table
    p, req, catalog = plan_planes(r), bom_request(r), Catalog.built_in()
    layout = floor_plan(req, p.fabric, p.storage, p.management, catalog).layout
    yield link_table(p.fabric, p.storage, p.management, req.shape, layout), chooser_for(req, catalog)


def test_the_counts_after_pairing_are_those_of_the_table_the_moves_make():
    """count_links counts a pairing from the table's own grouping, less the moved links plus the moved ones
    (bom.build._paired): the same classes, links per class, parts and grouped ends as grouping the table
    _apply_moves makes (each moved link a row of its class and variant)."""
    import bom.build as build

    for t, chooser in _paired_cases():
        g, parts, _width, moves = build._classes_and_parts(t, chooser)
        assert moves
        classes, counts, new_parts, ends, width = build._counted_classes(t, chooser)
        moved, variant, forced = build._apply_moves(t, moves)
        _speeds, speed_code = np.unique(moved.speed_gbps, return_inverse=True)
        ref_classes, inverse, ref_counts = build._link_classes(moved, speed_code.reshape(-1), variant)
        assert classes.tolist() == ref_classes.tolist() and counts.tolist() == ref_counts.tolist()
        assert new_parts == [forced[row[-1] - 1] if row[-1] else parts[_base(g, row)] for row in ref_classes.tolist()]
        reference = {end: build._group_end(moved, inverse, end, width) for end in ("a", "z")}
        assert _grouped_ends(ends) == _grouped_ends(reference)


def _base(g, row) -> int:
    """The table's own class of a class row (its variant dropped)."""
    return next(k for k, base in enumerate(g.classes.tolist()) if base[:7] == row[:7])


def _table_of(flat: dict):
    from bom.plan import Catalog, chooser_for, floor_plan, link_table
    from cluster.pipeline import plan_planes
    from cluster.requests import bom_request, resolve
    from cluster.validate import validate_flat

    r = resolve(validate_flat(flat))
    p, req, catalog = plan_planes(r), bom_request(r), Catalog.built_in()
    layout = floor_plan(req, p.fabric, p.storage, p.management, catalog).layout
    return link_table(p.fabric, p.storage, p.management, req.shape, layout), chooser_for(req, catalog)


def test_a_frontier_ranked_at_once_picks_what_each_switch_ranked_alone_picks():
    """The pairing search ranks a hop's whole frontier in one numpy pass (_OddPorts._end_steps); each entry's picks
    — rank, key, row, far switch, class, end; the best, and the onward step to each far switch — equal those of
    that switch ranked alone, with and without links already used by the path (every switch with twin-port
    modules, every pair of twin kinds, in the cases above). That ranking itself is pinned by the hand tests above
    and, before this batching, was checked byte for byte on 58 designs' live BOMs."""
    from collections import Counter

    import bom.build as build

    checked = 0
    from benchmarks.bench_search import SCALES  # its 102,400-GPU SN5600 design: 218 switches to pair

    for t, chooser in [*_paired_cases(), _table_of(SCALES[102_400])]:
        g, parts, width, _moves = build._classes_and_parts(t, chooser)
        state = build._OddPorts.of(t, g, parts, width)
        entries = []
        for s in np.flatnonzero(state.ports.any(axis=1)).tolist():  # every switch with twin-port modules, not only
            # those the search starts from
            kinds = sorted(state.twins)
            order, devs = state.order["a"]
            some_row = int(order[np.searchsorted(devs, s)]) if s in devs else 0
            for short in kinds:
                for long in kinds:
                    if short != long:
                        entries.append((s, short, state.twins[long], Counter()))
                        entries.append((s, short, state.twins[long], Counter({some_row: 1})))
        alone = []
        for e in entries:
            state.to_nic.clear()  # ranked afresh, not remembered (see the test below for the memory)
            alone.append(state._best_steps([e], chooser)[0][0])
        state.to_nic.clear()
        assert state._best_steps(entries, chooser)[0] == alone
        entries = entries[:200]  # onward: each entry's least key to each far switch, batched as alone
        together = state._end_steps(entries, chooser, onward=True)
        assert together == {
            i: found for i, e in enumerate(entries) for found in [state._end_steps([e], chooser, True).get(0)] if found
        }
        checked += sum(a is not None for a in alone)
    assert checked > 0


def test_remembered_steps_to_nics_change_no_pairing(monkeypatch):
    """_OddPorts.to_nic keeps a switch's best step of rank 0 (to a NIC) until a move touches the switch, so a path's
    frontier that reaches the same leaf again ranks nothing twice. It is only a shortcut: forgotten before every
    ranking, the search moves the same links in the same order — and on the 102,400-GPU design it saves ranking."""
    import bom.build as build
    from benchmarks.bench_search import SCALES

    ranked = {"kept": 0, "forgotten": 0}
    real_best, real_end = build._OddPorts._best_steps, build._OddPorts._end_steps
    mode = ["kept"]

    def counting(self, entries, chooser, onward):
        ranked[mode[0]] += len(entries)
        return real_end(self, entries, chooser, onward)

    def forgetful(self, entries, chooser, prepare=False):
        self.to_nic.clear()
        return real_best(self, entries, chooser, prepare)

    monkeypatch.setattr(build._OddPorts, "_end_steps", counting)
    for t, chooser in [*_paired_cases(), _table_of(SCALES[102_400])]:
        g, parts, width, _ = build._classes_and_parts(t, chooser)
        mode[0] = "kept"
        kept = build.pair_odd_ports(t, chooser, g, parts, width)
        mode[0] = "forgotten"
        with monkeypatch.context() as m:
            m.setattr(build._OddPorts, "_best_steps", forgetful)
            assert build.pair_odd_ports(t, chooser, g, parts, width) == kept
    assert ranked["kept"] < ranked["forgotten"] / 2, ranked


def test_first_steps_ranked_before_any_move_are_those_each_switch_ranks_alone():
    """pair_odd_ports ranks every defective switch's first steps in one pass before it moves anything
    (_OddPorts.rank_first_steps) and remembers those of rank 0 (to a NIC). Each remembered step is the one that
    switch's pairing ranks alone, afresh (that the pairing is the same with nothing remembered: the test above)."""
    from collections import Counter

    import bom.build as build
    from benchmarks.bench_search import SCALES

    remembered = 0
    for t, chooser in [*_paired_cases(), _table_of(SCALES[102_400])]:
        g, parts, width, _ = build._classes_and_parts(t, chooser)
        state = build._OddPorts.of(t, g, parts, width)
        state.rank_first_steps(state.defective, chooser)
        kept = {(s, kind, sku): hit for s, hits in state.to_nic.items() for (kind, sku), hit in hits.items()}
        for (s, kind, sku), steps in kept.items():
            hit = steps.first(state.left, Counter())
            state.to_nic.clear()
            assert state._best_steps([(s, kind, state.twins[sku], Counter())], chooser)[0] == [hit]
        remembered += len(kept)
    assert remembered >= 50  # the 102,400-GPU design alone: 50 leaves pair onto a NIC link


def test_the_pairing_leaves_no_reference_cycle():
    """The search's state (per-switch memories, the ranked rows a hop's onward steps are picked from) is freed as
    soon as the pairing returns, by reference counting: no part of it is garbage that only a full collection frees
    (a function kept on the state that closes over the state was such a cycle — the live form's 100k-GPU p95 paid
    for the full collections that swept it)."""
    import gc

    import bom.build as build

    for t, chooser in _paired_cases():
        g, parts, width, _ = build._classes_and_parts(t, chooser)
        gc.collect()
        gc.disable()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            assert build.pair_odd_ports(t, chooser, g, parts, width)  # moves links: the search ran
            gc.collect()
            left = [o for o in gc.garbage if isinstance(o, (build._OddPorts, build._NicSteps))]
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()
        assert left == []


def _same_moves_with_it_off(monkeypatch, owner, name: str, watched) -> None:
    """A shortcut of the pairing search changes no move: on the paired cases and the 102,400-GPU design, the links
    moved with ``owner.name`` replaced by ``watched(chooser)`` (the shortcut, watched) equal those with it off (a
    function of the same arguments giving None)."""
    import bom.build as build
    from benchmarks.bench_search import SCALES

    for t, chooser in [*_paired_cases(), _table_of(SCALES[102_400])]:
        g, parts, width, _ = build._classes_and_parts(t, chooser)
        with monkeypatch.context() as m:
            m.setattr(owner, name, watched(chooser))
            moves = build.pair_odd_ports(t, chooser, g, parts, width)
        with monkeypatch.context() as m:
            m.setattr(owner, name, lambda *_args: None)
            assert build.pair_odd_ports(t, chooser, g, parts, width) == moves


def test_a_frontier_whose_least_path_ends_at_a_remembered_nic_link_ranks_nothing_else(monkeypatch):
    """_OddPorts._least_to_nic: where the frontier's entry with the least keys has a remembered rank-0 step, that
    step ends the path (rank 0 is the least rank; no two entries' keys tie) without ranking the other entries. Only
    a shortcut: with it off, every entry ranked, the search moves the same links in the same order; on the
    102,400-GPU design (a spine's frontier: ≈ 68 leaves) it is taken."""
    import bom.build as build

    taken = []
    real = build._OddPorts._least_to_nic

    def counting(self, frontier):
        found = real(self, frontier)
        taken.append(found is not None)
        return found

    _same_moves_with_it_off(monkeypatch, build._OddPorts, "_least_to_nic", lambda _chooser: counting)
    assert sum(taken) >= 50


def test_a_frontier_whose_least_entry_ranks_a_nic_step_alone_ranks_nothing_else(monkeypatch):
    """_OddPorts._least_ranked: where the frontier's entry with the least keys has no remembered step, it is ranked
    alone; a best of rank 0 ends the path (rank 0 is the least rank; no two entries' keys tie) without ranking the
    other entries — the step the whole frontier's ranking picks, checked at each hit. Only a shortcut: with it off,
    the search moves the same links in the same order; at 102,400 GPUs it is taken ≥ 5 times (a spine's frontier:
    ≈ 35 leaves ranked as one) where the far switches are not ranked ahead (_OddPorts._look_ahead off: it remembers
    most of these leaves' steps before the search, and _least_to_nic takes them)."""
    import bom.build as build

    monkeypatch.setattr(build._OddPorts, "_look_ahead", lambda *_args: None)
    taken = []
    real = build._OddPorts._least_ranked

    def checked(chooser):
        def least_ranked(self, frontier, chooser_):
            found = real(self, frontier, chooser_)
            if found is not None:
                useds = [build._used(path) for _keys, path, *_ in frontier]
                entries = [(dev, kind, module, u) for (_k, _p, dev, kind, module), u in zip(frontier, useds)]
                bests, _onward, _least = self._best_steps(entries, chooser)
                done = [((b[0], *f[0], b[1]), i) for i, (f, b) in enumerate(zip(frontier, bests)) if b]
                i = min(done)[1]
                assert found[-1][:4] == self._step(bests[i], frontier[i][4])[:4]
            taken.append(found is not None)
            return found

        return least_ranked

    _same_moves_with_it_off(monkeypatch, build._OddPorts, "_least_ranked", checked)
    assert sum(taken) >= 5


def test_a_single_switch_frontier_goes_on_through_its_least_step_alone(monkeypatch):
    """_OddPorts._through_least: a defective spine's steps all go on (rank 3) to ≈ 68 leaves; the frontier they would
    make has, as its least keys, the leaf its least step reaches — where that leaf has a remembered rank-0 step the
    path is those two steps, with no frontier made. Only a shortcut: with it off (the frontier made, then
    _least_to_nic or a ranking), the same links move in the same order; at 102,400 GPUs it is taken ≥ 50 times."""
    import bom.build as build

    taken = []
    real = build._OddPorts._through_least

    def counting(self, entry, least, seen, chooser):
        found = real(self, entry, least, seen, chooser)
        taken.append(found is not None)
        return found

    _same_moves_with_it_off(monkeypatch, build._OddPorts, "_through_least", lambda _chooser: counting)
    assert sum(taken) >= 50


def test_far_switches_ranked_ahead_change_no_move_and_save_passes(monkeypatch):
    """_OddPorts._look_ahead: the far switches one hop ahead of the first steps that do not end have their steps to
    NICs ranked in one pass before any move. Only remembered: with it off, the same links move in the same order
    — on the paired cases and the 102,400-GPU design, where it remembers 9 leaves' steps and the search's passes
    over rows (`_end_steps`) fall by as many, less the one pass it makes (12 → 4)."""
    import bom.build as build
    from benchmarks.bench_search import SCALES

    remembered, passes = [], {"ahead": 0, "off": 0}
    real_ahead, real_end = build._OddPorts._look_ahead, build._OddPorts._end_steps
    mode = ["ahead"]

    def counting_passes(self, entries, chooser, onward):
        passes[mode[0]] += 1
        return real_end(self, entries, chooser, onward)

    def watched(_chooser):
        def look_ahead(self, entries, best, least, chooser):
            before = {(d, k) for d, kept in self.to_nic.items() for k in kept}
            ahead = set()  # the far switches of the least steps of the entries with no end, not yet remembered
            for i, (_s, _kind, module, _used) in enumerate(entries):
                if best[i] is None and least.get(i) is not None:
                    _r, _k, _row, _f, far, far_module, new = self._step(least[i], module)
                    ahead.add((far, (far_module.sku, new.sku)))
            real_ahead(self, entries, best, least, chooser)
            after = {(d, k) for d, kept in self.to_nic.items() for k in kept}
            assert after - before == ahead - before  # those, each with a step to a NIC, and no other
            remembered.append(len(after - before))

        return look_ahead

    t, chooser = _table_of(SCALES[102_400])
    g, parts, width, _ = build._classes_and_parts(t, chooser)
    monkeypatch.setattr(build._OddPorts, "_end_steps", counting_passes)
    with monkeypatch.context() as m:
        m.setattr(build._OddPorts, "_look_ahead", watched(chooser))
        moves = build.pair_odd_ports(t, chooser, g, parts, width)
    mode[0] = "off"
    with monkeypatch.context() as m:
        m.setattr(build._OddPorts, "_look_ahead", lambda *_args: None)
        assert build.pair_odd_ports(t, chooser, g, parts, width) == moves
    assert remembered[-1] >= 5
    assert passes["ahead"] <= passes["off"] - remembered[-1] + 1, (passes, remembered)
    _same_moves_with_it_off(monkeypatch, build._OddPorts, "_look_ahead", watched)


def test_first_steps_prepared_before_any_move_rank_as_the_table_does(monkeypatch):
    """_Prepared: a switch's first-step candidates, ranked before any move, keep what no move changes; at the switch's
    turn only the far switches' port counts and the links left are read again. Only a shortcut: with it off (every
    turn ranked from the table), the same links move in the same order; at 102,400 GPUs the ≈ 80 defective spines'
    turns take it, and each prepared pick equals the table's own ranking of that entry at that moment."""
    import bom.build as build

    taken = []
    real = build._Prepared.steps

    def checked(chooser):
        def steps(self, state):
            found = real(self, state)
            dev, kind, module = next(k for k, v in state.prepared.items() if v is self)
            best, _onward, _nic, least, _prep = state._end_steps([(dev, kind, state.twins[module], {})], chooser, None)
            assert found[0] == (best.get(0) or [None])[0] and found[1] == (least().get(0) or [None])[0]
            taken.append(found[0] is None or found[0][0] != 0)
            return found

        return steps

    _same_moves_with_it_off(monkeypatch, build._Prepared, "steps", checked)
    assert sum(taken) >= 50


def test_ranks_of_all_rows_at_once_are_each_rows_own_by_hand():
    """_OddPorts._ranks works the far switches' cage changes out for all candidate rows at once; each row's rank is
    what the rule gives it alone: −1 where the class cannot move onto the module (or its far end is a twin-port NIC
    cage), 0 where the far end is a NIC or device, else by how the far switch's cages change when one port leaves
    its old module kind and joins the new one — n ports of a kind w ports a module wide take ⌈n ÷ w⌉ cages (a
    single-port kind: no column, n read as 0) — 1 where they shrink, 2 where they stay, 3 where they grow. Every
    row with a switch at either end, onto each twin-port kind, before and after some links were moved."""
    import math

    import bom.build as build
    from benchmarks.bench_search import SCALES

    def cages(state, dev, module, change):
        if module is None:
            return 0
        w = max(module.ports_per_module, 1)
        col = state.kind_col.get(module.sku) if w > 1 else None
        n = int(state.ports[dev, col]) if col is not None else 0
        return math.ceil((n + change) / w) - math.ceil(n / w)

    def by_hand(state, t, r, side, module, chooser):
        move = state._class_move(int(state.inverse[r]), r, "az"[side], module, chooser)
        if move is None:
            return -1
        _forced, far_module, new, twin = move
        far = int(t.z_dev[r] if side == 0 else t.a_dev[r])
        if far == build.NO_DEVICE:
            return -1 if twin else 0
        grows = cages(state, far, far_module, -1) + cages(state, far, new, 1)
        return 1 if grows < 0 else 2 if grows == 0 else 3

    checked = set()
    for t, chooser in [*_paired_cases(), _table_of(SCALES[102_400])]:
        g, parts, width, _ = build._classes_and_parts(t, chooser)
        state = build._OddPorts.of(t, g, parts, width)
        for moved in (False, True, "no module"):
            if moved is True:  # some pairings made: odd and even counts change on the switches they touch
                for s in state.defective[::3]:
                    state.best_path(s, chooser)
            if moved == "no module":  # a far switch end with no module (a copper or AOC end): no cage change there
                for key, move in list(state.moves.items())[::2]:
                    if move is not None:
                        state.moves[key] = (move[0], None, move[2], move[3])
            modules = [state.twins[k] for k in sorted(state.twins)]
            rows, side = [], []
            for s, dev in ((0, t.a_dev), (1, t.z_dev)):
                at = np.flatnonzero(dev != build.NO_DEVICE)[::7]
                rows.append(at)
                side.append(np.full(at.size, s, dtype=np.int64))
            rows, side = np.concatenate(rows), np.concatenate(side)
            mod_of = np.arange(rows.size, dtype=np.int64) % len(modules)
            far = np.where(side == 0, t.z_dev[rows], t.a_dev[rows])
            got = state._ranks(rows, state.inverse[rows], far, side, mod_of, modules, chooser).tolist()
            want = [
                by_hand(state, t, int(r), int(sd), modules[int(m)], chooser)
                for r, sd, m in zip(rows.tolist(), side.tolist(), mod_of.tolist(), strict=True)
            ]
            assert got == want
            checked.update(want)
    assert checked >= {-1, 0, 1, 2, 3}  # every rank met


def test_no_row_gives_up_more_links_than_it_has():
    """Each move takes one link off its row (_OddPorts._move: the links left), so no row is moved more often than it
    has links — on the 102,400-GPU design, where many spines' paths run through the same leaves and their NIC links,
    and in the hand cases."""
    from collections import Counter

    import bom.build as build
    from benchmarks.bench_search import SCALES

    many = 0
    for t, chooser in [*_paired_cases(), _table_of(SCALES[102_400])]:
        g, parts, width, _ = build._classes_and_parts(t, chooser)
        moved = Counter(r for r, _parts in build.pair_odd_ports(t, chooser, g, parts, width))
        assert all(n <= int(t.weight[r]) for r, n in moved.items())
        many += len(moved)
    assert many >= 200
