"""The live path counts links by class; exports build a record per cable. Both must give the same BOM."""

from __future__ import annotations

from collections import Counter

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bom.link_table import NO_DEVICE, LinkTable, plane_link_table
from bom.plan import Catalog, floor_plan, network_bom, plane_links
from cluster.pipeline import plan_cluster, plan_planes
from cluster.requests import bom_request, resolve
from cluster.validate import RequirementsError, validate_flat


def rows(t: LinkTable) -> Counter:
    """The multiset of links: plane, segment, roles, switch names, speed, length, rack distance."""
    out: Counter = Counter()
    for i in range(t.plane.size):
        dev = tuple(t.devices[d] if d != NO_DEVICE else "" for d in (int(t.a_dev[i]), int(t.z_dev[i])))
        key = (
            t.planes[t.plane[i]],
            t.segments[t.segment[i]],
            t.roles[t.a_role[i]],
            t.roles[t.z_role[i]],
            *dev,
            float(t.speed_gbps[i]),
            int(t.length_m[i]),
            int(t.rack_distance[i]),
        )
        out[key] += int(t.weight[i])
    return out


def assert_one_rack_a_switch(t: LinkTable) -> None:
    """What LinkTable.one_rack_a_switch claims (bom.build's grouping of ends then checks no row): each switch's
    ends, at either end of its rows, in one rack."""
    racks: dict[int, set[int]] = {}
    for dev, rack in ((t.a_dev, t.a_rack), (t.z_dev, t.z_rack)):
        for d, r in zip(dev.tolist(), rack.tolist(), strict=True):
            if d != NO_DEVICE:
                racks.setdefault(d, set()).add(r)
    assert racks and all(len(v) == 1 for v in racks.values())


def test_a_100k_two_hall_table_has_each_switch_in_one_rack():
    """The 102,400-GPU default on its two-hall floor: its table of runs and its table of a row a link."""
    from benchmarks.bom import SCALES
    from bom.plan import link_table

    r = resolve(validate_flat(SCALES[102_400]))
    p, req = plan_planes(r), bom_request(r)
    layout = floor_plan(req, p.fabric, p.storage, p.management, Catalog.built_in()).layout
    assert layout.hall_starts  # two halls
    t = link_table(p.fabric, p.storage, p.management, req.shape, layout)
    for table in (t, t.unmerged()):
        assert table.one_rack_a_switch
        assert_one_rack_a_switch(table)


designs = st.fixed_dictionaries(
    {
        "topology": st.sampled_from(["rail_optimized", "fat_tree", "dragonfly_plus", "torus_3d"]),
        "nodes": st.integers(2, 160),
        "gpus_per_node": st.sampled_from([4, 8]),
        "oversubscription": st.sampled_from([1, 1.5, 2, 3]),
        "switch_model": st.sampled_from(["QM9700", "QM8700", "SN5600-400G"]),
        "nodes_per_rack": st.integers(1, 8),
        "racks_per_row": st.integers(1, 12),
        "bom_media": st.sampled_from(["by_reach", "all_optics"]),
        "storage_switch_count": st.sampled_from([None, None, 2, 4]),
        "mgmt_nodes_per_tor": st.integers(2, 16),
        "ufm_server_count": st.sampled_from([0, 0, 1, 2]),
        "nic_cage": st.sampled_from(["osfp_single", "osfp_twin"]),
    }
)


def requirements(d: dict):
    nodes = d.pop("nodes")
    speed = {"QM9700": 400, "QM8700": 200, "SN5600-400G": 400}[d["switch_model"]]
    flat = {**d, "gpu_count": nodes * d["gpus_per_node"], "nic_gbps": speed}
    if d["topology"] == "rail_optimized":
        flat["scalable_unit_nodes"] = min(nodes, 8)
    if flat["storage_switch_count"] is not None and nodes > 100:
        flat["storage_switch_count"] = None  # a small full mesh cannot take more access ports
    if flat["storage_switch_count"] is not None:
        flat["storage_switch_radix"] = 64
    return validate_flat(flat)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(designs)
def test_link_classes_equal_per_link_records_and_give_the_same_bom(d):
    try:
        r = resolve(requirements(dict(d)))
        p = plan_planes(r)
        plan_cluster(r)  # a refusal (too many fabric managers, no part reaches) is tested where it is made
    except RequirementsError:
        return
    req = bom_request(r)
    layout = floor_plan(req, p.fabric, p.storage, p.management, Catalog.built_in()).layout
    fast = plane_link_table(p.fabric, p.storage, p.management, req.shape, layout)
    slow = LinkTable.from_links(plane_links(req, p.fabric, p.storage, p.management))  # what the live path took,
    cut = network_bom(req, p.fabric, p.storage, p.management, Catalog.built_in(), cables=True)  # the cut sheet takes

    assert rows(fast) == rows(slow)
    assert fast.one_rack_a_switch and not slow.one_rack_a_switch
    assert_one_rack_a_switch(fast)
    catalog = Catalog.built_in()
    live = network_bom(req, p.fabric, p.storage, p.management, catalog)
    assert [(ln.plane, ln.sku, ln.quantity, ln.spare) for ln in live.lines] == [
        (ln.plane, ln.sku, ln.quantity, ln.spare) for ln in cut.lines
    ]
    assert live.total_usd() == cut.total_usd() and live.link_count == cut.link_count == slow.link_count


def test_live_path_and_cut_sheet_agree_on_free_leaf_ports_for_fabric_managers():
    d = {
        "topology": "rail_optimized",
        "nodes": 152,
        "gpus_per_node": 4,
        "oversubscription": 1,
        "switch_model": "QM9700",
        "nodes_per_rack": 1,
        "racks_per_row": 1,
        "bom_media": "by_reach",
        "storage_switch_count": None,
        "mgmt_nodes_per_tor": 2,
        "ufm_server_count": 1,
        "nic_cage": "osfp_single",
    }
    """152 nodes of 4 rails in SUs of 8 on QM9700 at 1:1 (32 down / 32 up): sized to the need, a leaf takes 4 SUs
    (32 nodes), so per rail ⌈152 ÷ 32⌉ = 5 leaves and the last has 152 − 4 × 32 = 24 nodes: 8 free down ports on
    each rail's last leaf, 32 in all, one of them for the UFM server — in the live path and the cut sheet alike.
    The growth option (the whole split, one SU of 8 per leaf: 19 full leaves a rail) has no free port: it was
    the growth option's second BOM that raised (found by hypothesis, 2026-12-05); it now says it does not fit."""
    r = resolve(requirements(d))
    p = plan_planes(r)
    plan = plan_cluster(r)  # the live path accepts it …
    links = list(plane_links(bom_request(r), p.fabric, p.storage, p.management))  # … the cut sheet too
    assert sum(1 for x in links if x.a_role == "ufm") == 1
    growth = plan.growth
    assert growth["fits"] is False and "need free leaf down ports; the leaves have 0" in growth["derivation"]


def test_every_cut_sheet_cable_is_one_bom_cable():
    """Counted per cable from the cut sheet: the seed design's cable lines sum to its link count (4,048 + planes)."""
    r = resolve(validate_flat({"gpu_count": 2000}))
    p = plan_planes(r)
    req = bom_request(r)
    bom = network_bom(req, p.fabric, p.storage, p.management, Catalog.built_in())
    links = list(plane_links(req, p.fabric, p.storage, p.management))
    cables = sum(ln.quantity for ln in bom.lines if ln.category == "cable" and not ln.spare)
    assert cables == len(links) == bom.link_count
    assert sum(1 for ln in links if ln.plane == "compute") == 4048  # seed D4


def test_switch_names_are_tier_prefix_and_number_from_one():
    """By hand: leaves 1–3 and spines 1–2 → leaf0001 … spine0002; switches out of tier order are named one by one by
    the same rule; a tier past 9,999 switches takes five digits (x10001); a smaller fabric asked next is named from
    the same names, not those of the larger one beyond its count."""
    import numpy as np

    from bom.link_table import switch_names

    tier, index = np.array([0, 0, 0, 1, 1]), np.array([0, 1, 2, 0, 1])
    assert switch_names(["leaf", "spine"], tier, index) == [
        "leaf0001",
        "leaf0002",
        "leaf0003",
        "spine0001",
        "spine0002",
    ]
    assert switch_names(["leaf", "spine"], np.array([1, 0, 0]), np.array([0, 1, 0])) == [
        "spine0001",
        "leaf0002",
        "leaf0001",
    ]
    big = switch_names(["x"], np.zeros(10_001, dtype=np.int64), np.arange(10_001))
    assert big[0] == "x0001" and big[9_998] == "x9999" and big[-1] == "x10001" and len(big) == 10_001
    assert switch_names(["x"], np.zeros(2, dtype=np.int64), np.arange(2)) == ["x0001", "x0002"]


def test_rack_distances_from_rack_keys_are_those_from_rows_and_columns():
    """Links between switches take their rack distance from both ends' rack keys (bom.layout.rack_key): 0 the same
    rack, 1 racks one apart in a row, 2 else — as from rows and columns, over every pair of racks in rows −1 (the
    spine row) to 2 and columns 0 to 40, among them row ends next to the next row's first rack (keys 2²⁴ − 40 apart)."""
    from bom.layout import rack_key
    from bom.link_table import rack_distances, rack_distances_of_keys

    rows, cols = np.meshgrid(np.arange(-1, 3), np.arange(41), indexing="ij")
    r, c = rows.ravel(), cols.ravel()
    ar, zr = np.repeat(r, r.size), np.tile(r, r.size)
    ac, zc = np.repeat(c, c.size), np.tile(c, c.size)
    got = rack_distances_of_keys(rack_key(ar, ac), rack_key(zr, zc))
    assert np.array_equal(got, rack_distances(ar, ac, zr, zc))
    assert sorted(np.unique(got).tolist()) == [0, 1, 2]
    assert got[(ar == 0) & (ac == 3) & (zr == 0) & (zc == 4)].tolist() == [1]
    assert got[(ar == 0) & (ac == 40) & (zr == 1) & (zc == 0)].tolist() == [2]
