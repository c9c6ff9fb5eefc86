"""Issue #16: the MIG planner (S7) and the RoCE tuning sheet (S8), goldens by hand from seed-figures.md."""

from __future__ import annotations

import pytest
import yaml

from scheduling import SchedulerInputError
from scheduling.mig import layouts, plan_mig
from scheduling.roce import roce_tuning


def test_s7_seed_split_is_reproduced():
    """S7: 28 × 1g.10gb, 6 × 2g.20gb, 4 × 3g.40gb on 8 H100 → 4 × (7 × 1g) + 2 × (3 × 2g) + 2 × (2 × 3g) = 38."""
    p = plan_mig("H100-SXM5", 8, {"1g.10gb": 28, "2g.20gb": 6, "3g.40gb": 4})
    assert [(g.gpus, g.layout) for g in p.groups] == [
        ((0, 1, 2, 3), {"1g.10gb": 7}),
        ((4, 5), {"2g.20gb": 3}),
        ((6, 7), {"3g.40gb": 2}),
    ]
    assert p.instance_count == 38 and p.satisfied == {"1g.10gb": 28, "2g.20gb": 6, "3g.40gb": 4}
    text = p.mig_parted()
    assert text.startswith("version: v1\nmig-configs:\n  cluster-designer:\n")  # mig-parted's key order, unsorted
    cfg = yaml.safe_load(text)
    assert cfg["version"] == "v1"
    entries = cfg["mig-configs"]["cluster-designer"]
    assert entries[0] == {"devices": [0, 1, 2, 3], "mig-enabled": True, "mig-devices": {"1g.10gb": 7}}


def test_s7_per_gpu_maxima_follow_from_the_placements():
    """S7's list: 1g.10gb ×7, 2g.20gb ×3, 3g.40gb ×2, 4g.40gb ×1, 7g.80gb ×1 on one H100 (8 memory slices:
    1g one slice at starts 0–6; 2g two at 0/2/4; 3g four at 0/4; 4g four at 0; 7g all eight)."""
    most = {s: max(lay[s] for lay in layouts()) for s in ("1g", "2g", "3g", "4g", "7g")}
    assert most == {"1g": 7, "2g": 3, "3g": 2, "4g": 1, "7g": 1}
    assert {"1g": 0, "1g2": 0, "2g": 0, "3g": 1, "4g": 1, "7g": 0} in layouts()  # 4g at 0 + 3g at 4
    # the seed's `nvidia-smi mig -cgi 9,14,14,19` (3g + 2g + 2g + 1g) needs 9 memory slices: no layout
    assert not any(lay["3g"] >= 1 and lay["2g"] >= 2 and lay["1g"] >= 1 for lay in layouts())


def test_mig_refusals():
    with pytest.raises(SchedulerInputError) as e:
        plan_mig("H100-SXM5", 8, {"1g.10gb": 57})  # 8 × 7 = 56 at most
    assert "short by 1 × 1g.10gb; at most 56 × 1g.10gb" in e.value.errors["demand"]
    with pytest.raises(SchedulerInputError) as e:
        plan_mig("H100-SXM5", 8, {"2g.40gb": 1})
    assert "not a H100-SXM5 MIG profile" in e.value.errors["demand.2g.40gb"]
    with pytest.raises(SchedulerInputError) as e:
        plan_mig("MI300X", 8, {"1g.10gb": 1})
    assert "gpu_model" in e.value.errors
    with pytest.raises(SchedulerInputError):
        plan_mig("H100-SXM5", 8, {"1g.10gb": 0})


def test_s8_roce_thresholds():
    """S8 at 400 Gbit/s (50 B/ns), 4 µs base RTT: Kmin = 50 B/ns × 4,000 ns = 200,000 B, Kmax 400,000 B. With
    a 100 MB buffer over 64 ports (1,562,500 B a port), 30 m cables and 1 µs response: headroom =
    2 × 4,096 + 64 + 2 × 30 × 5 × 50 (15,000) + 1,000 × 50 (50,000) = 73,256 B; XOFF 1,562,500 − 73,256 =
    1,489,244 B (the seed's 1–2 MB), XON 1,489,244 − 8,192 = 1,481,052 B; ECN max below XOFF."""
    t = roce_tuning(link_gbps=400, cable_m=30, switch_buffer_mb=100, switch_ports=64)
    assert (t.ecn_kmin_bytes, t.ecn_kmax_bytes) == (200_000, 400_000)
    assert (t.headroom_bytes, t.xoff_bytes, t.xon_bytes) == (73_256, 1_489_244, 1_481_052)
    assert t.ethernet_mtu_min_bytes == 4162 and t.nccl_ib_tc == 106
    assert all(ok for ok, _ in t.checks)
    snippet = yaml.safe_load(t.snippet())["roce"]
    assert snippet["dscp"] == {"data": 26, "cnp": 48} and snippet["pfc"]["xoff_bytes"] == 1_489_244


def test_s8_warns_when_ecn_is_not_below_xoff():
    # 12.8 MB over 64 ports = 200,000 B a port; less the headroom XOFF falls under Kmax 400,000 B
    t = roce_tuning(link_gbps=400, cable_m=30, switch_buffer_mb=12.8, switch_ports=64)
    ecn, fits = t.checks
    assert not ecn[0] and "is not below PFC XOFF" in ecn[1]
    assert fits[0]  # 200,000 B still holds the 73,256 B headroom
    with pytest.raises(SchedulerInputError) as e:
        roce_tuning(link_gbps=400, cable_m=30, switch_buffer_mb=100, switch_ports=64, mtu_bytes=9000)
    assert "mtu_bytes" in e.value.errors


def test_roce_sheet_of_the_roce_design():
    """The Llama-3-style RoCE example: SN5600-400G leaves (128 × 400G), the longest compute cable 100 m (the hall
    plan keeps every run within a hall ≤ 100 m, bom/layout.py). Headroom = 2 × 4,096 + 64 + 2 × 100 × 5 × 50
    (50,000) + 1,000 × 50 (50,000) = 108,256 B. With a 64 MB buffer: 64,000,000 ÷ 128 = 500,000 B a port, XOFF
    391,744 B — still below ECN Kmax 400,000 B, so the sheet says PFC would pause first. No buffer given: no XOFF,
    and it says so. The example gives Spectrum-4's 160 MB: 1,250,000 B a port, XOFF 1,141,744 B, above Kmax — both
    checks pass."""
    from cluster.pipeline import plan_cluster
    from cluster.validate import validate
    from tests.conftest import EXAMPLES

    data = yaml.safe_load((EXAMPLES / "roce-24k-pods-1to7.yaml").read_text())
    roce = plan_cluster(validate(data)).result()["roce"]
    assert roce["headroom_bytes"] == 108_256 and roce["xoff_bytes"] == 1_141_744
    assert all(c["ok"] for c in roce["checks"])
    data["scheduler"]["roce_switch_buffer_mb"] = None
    roce = plan_cluster(validate(data)).result()["roce"]
    assert roce["headroom_bytes"] == 108_256 and roce["xoff_bytes"] is None
    assert "switch buffer not given" in roce["checks"][0]["message"]
    data.setdefault("scheduler", {})["roce_switch_buffer_mb"] = 64
    roce = plan_cluster(validate(data)).result()["roce"]
    assert roce["xoff_bytes"] == 391_744 and not roce["checks"][0]["ok"]
    assert "the longest compute cable 100 m" in roce["derivations"]["inputs"]
    seed = yaml.safe_load((EXAMPLES / "seed-2000-gpu.yaml").read_text())
    assert plan_cluster(validate(seed)).result()["roce"] is None  # InfiniBand: no RoCE sheet


@pytest.mark.parametrize(
    ("layout", "fits"),
    [
        # NVIDIA MIG User Guide, "Supported MIG Profiles" (A100/H100 80GB placements, memory slices start:size):
        # 1g {0..6}:1, 1g.20gb {0,2,4,6}:2, 2g {0,2,4}:2, 3g {0,4}:4, 4g {0}:4, 7g {0}:8; compute slices ≤ 7
        ({"1g2": 4}, True),  # 0,2,4,6: all 8 memory slices, 4 compute
        ({"1g2": 3, "1g": 1}, True),  # 1g2 at 0,2,4 + 1g at 6
        ({"1g2": 1, "1g": 6}, True),  # 1g2 at 6 (slices 6–7) + 1g at 0–5: 7 compute slices
        ({"1g2": 2, "1g": 4}, True),  # 1g2 at 0 and 6 + 1g at 2–5 (or at 4, 6 + 1g at 0–3)
        ({"1g2": 2, "1g": 5}, False),  # 2 × 2 + 5 = 9 memory slices
        ({"1g2": 1, "1g": 7}, False),  # 8 compute slices
        ({"3g": 1, "2g": 1, "1g": 2}, True),  # 2g at 0, 1g at 2 and 3, 3g at 4: 7 compute slices
        ({"4g": 1, "2g": 1, "1g": 1}, True),  # 4g at 0, 2g at 4, 1g at 6
        ({"4g": 1, "1g": 3}, True),  # 4g at 0, 1g at 4–6
        ({"4g": 1, "1g": 4}, False),  # 8 compute slices
        ({"3g": 2, "1g": 1}, False),  # two 3g take all 8 memory slices
        ({"3g": 1, "1g2": 2}, True),  # 1g2 at 0 and 2, 3g at 4
        ({"2g": 3, "1g": 1}, True),  # 2g at 0, 2, 4 + 1g at 6: 7 compute
        ({"2g": 3, "1g2": 1}, True),  # 1g2 at 6 (slices 6–7): 7 compute
        ({"7g": 1, "1g": 1}, False),  # 7g takes the whole GPU
    ],
)
def test_layouts_follow_nvidias_placements(layout, fits):
    full = {"1g": 0, "1g2": 0, "2g": 0, "3g": 0, "4g": 0, "7g": 0, **layout}
    assert (full in layouts()) is fits


def test_mig_prefers_whole_gpus_of_one_profile_and_nothing_beyond_the_demand():
    """7 × 1g.10gb + 3 × 2g.20gb on 2 H100s: one GPU of each (not two mixed ones); 1 × 1g.10gb on one GPU
    carves one instance, not seven. A100-80GB names the same shapes."""
    p = plan_mig("H100-SXM5", 2, {"1g.10gb": 7, "2g.20gb": 3})
    assert [(g.gpus, g.layout) for g in p.groups] == [((0,), {"1g.10gb": 7}), ((1,), {"2g.20gb": 3})]
    one = plan_mig("A100-SXM4-80GB", 1, {"1g.10gb": 1})
    assert [(g.gpus, g.layout) for g in one.groups] == [((0,), {"1g.10gb": 1})] and one.instance_count == 1
    assert one.derivation.startswith("1 × (1×1g.10gb) = 1 instances on 1 GPUs")


@pytest.mark.parametrize(("gpus", "ok"), [(0, False), (1, True), (16, True), (17, False)])
def test_mig_gpus_per_node_from_1_to_16(gpus, ok):
    if ok:
        assert plan_mig("H100-SXM5", gpus, {"1g.10gb": 1}).gpu_count == gpus
    else:
        with pytest.raises(SchedulerInputError) as e:
            plan_mig("H100-SXM5", gpus, {"1g.10gb": 1})
        assert e.value.errors["gpu_count"] == f"GPUs per node: 1 to 16, got {gpus}"


@pytest.mark.parametrize("n", [-1, 1.5, True, "2"])
def test_mig_demand_is_a_whole_number(n):
    with pytest.raises(SchedulerInputError) as e:
        plan_mig("H100-SXM5", 8, {"1g.10gb": n, "2g.20gb": 1})
    assert e.value.errors["demand.1g.10gb"] == f"a whole number of instances ≥ 0, got {n!r}"
    assert plan_mig("H100-SXM5", 8, {"1g.10gb": 0, "2g.20gb": 1}).satisfied == {"2g.20gb": 1}
