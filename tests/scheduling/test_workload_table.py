"""The seed chapter's Table 14-24 as the default workload, and the class rules at their edges."""

from __future__ import annotations

import dataclasses

import pytest

from scheduling import SchedulerInputError
from scheduling.workload import DAY_H, SEED_TABLE_14_24, JobClass, Profile, _pct_of, check_profile, parse_classes

# Seed chapter §14.8.1, 表14-24 训练负载画像 (quoted): 大模型预训练 40% 512-1024 GPU 7-90天 · 大模型微调 30% 64-256 GPU
# 1-14天 · 中小模型训练 20% 8-64 GPU 1-7天 · 超参数搜索/Ablation 10% 32-128 GPU 1-3天; SLA: 关键训练作业 优先级最高
# (the pre-training runs), 常规训练作业 允许排队等待 (the rest).
TABLE_14_24 = [
    ("pretraining", 0.40, 512, 1024, 7, 90, "critical"),
    ("fine-tuning", 0.30, 64, 256, 1, 14, "queued"),
    ("small-model", 0.20, 8, 64, 1, 7, "queued"),
    ("hyper-parameter search", 0.10, 32, 128, 1, 3, "queued"),
]


def test_the_default_workload_is_table_14_24():
    got = [
        (c.name, c.share, c.min_gpus, c.max_gpus, c.min_hours / DAY_H, c.max_hours / DAY_H, c.sla)
        for c in SEED_TABLE_14_24.classes
    ]
    assert got == TABLE_14_24
    assert DAY_H == 24.0
    # not in the table, the model's choice: jobs come in whole 8-GPU nodes, pre-training in 64-GPU blocks
    assert [c.granularity_gpus for c in SEED_TABLE_14_24.classes] == [64, 8, 8, 8]
    check_profile(SEED_TABLE_14_24, None)  # shares add up to 100 %


def _one(**changes) -> Profile:
    return Profile((dataclasses.replace(JobClass("a", 1.0, 8, 16, 8, 1.0, 3.0), **changes),))


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"min_hours": 0.0}, "classes.0.min_hours"),
        ({"min_hours": 4.0}, "classes.0.min_hours"),  # above the maximum
        ({"comm_fraction": -0.1}, "classes.0.comm_fraction"),
        ({"comm_fraction": 1.0}, "classes.0.comm_fraction"),  # a step that is all communication never ends
        ({"min_gpus": 0, "granularity_gpus": 1}, "classes.0.min_gpus"),  # a job of no GPU
        ({"granularity_gpus": 0}, "classes.0.granularity_gpus"),  # refused, not a division by zero
        ({"granularity_gpus": 3}, "classes.0.granularity_gpus"),  # 3 does not divide 8
    ],
)
def test_class_values_refused_at_their_edges(changes, field):
    with pytest.raises(SchedulerInputError) as exc:
        check_profile(_one(**changes), None)
    assert list(exc.value.errors) == [field]


@pytest.mark.parametrize("changes", [{"min_hours": 0.5}, {"min_hours": 3.0}, {"comm_fraction": 0.0},
                                     {"comm_fraction": 0.99}])  # fmt: skip
def test_class_values_kept_at_their_edges(changes):
    check_profile(_one(**changes), None)


def test_a_mapping_without_a_required_column_is_refused():
    row = {"name": "a", "share_pct": 100, "min_gpus": 8, "granularity_gpus": 8, "min_hours": 1, "max_hours": 2,
           "sla": "queued"}  # fmt: skip
    with pytest.raises(SchedulerInputError) as exc:
        parse_classes([row])
    assert exc.value.errors == {"classes": "class 1: missing max_gpus"}
    with pytest.raises(SchedulerInputError) as exc:
        parse_classes([{**row, "max_gpus": ""}])
    assert exc.value.errors == {"classes": "class 1: missing max_gpus"}


def test_names_up_to_60_characters_and_lines_counted_from_1():
    ok = "x" * 60
    assert parse_classes(f"{ok},100,8,16,8,1,3,queued")[0].name == ok
    with pytest.raises(SchedulerInputError) as exc:
        parse_classes("a,50,8,16,8,1,3,queued\n" + "x" * 61 + ",50,8,16,8,1,3,queued")
    assert exc.value.errors["classes"].startswith("line 2: a name of 1 to 60 characters")


def test_a_share_reads_back_as_the_shortest_percentage():
    """0.4 × 100 = 40.00000000000001 in binary floating point: shown as 40; 0.07 → 7; a share with no short
    form keeps its digits and still reads back exactly."""
    assert _pct_of(0.4) == 40 and str(_pct_of(0.4)) == "40.0"
    assert _pct_of(0.07) == 7
    odd = 0.1 + 0.2  # 0.30000000000000004
    assert _pct_of(odd) / 100 == odd and _pct_of(odd) != 30


def test_the_first_unknown_column_is_named():
    row = {"name": "a", "share_pct": 100, "min_gpus": 8, "max_gpus": 8, "granularity_gpus": 8, "min_hours": 1,
           "max_hours": 2, "sla": "queued", "colour": "red", "size": 3}  # fmt: skip
    with pytest.raises(SchedulerInputError) as exc:
        parse_classes([row])
    assert exc.value.errors["classes"].startswith("class 1: unknown column 'colour'; a class has name, share_pct")


def test_shares_above_0_and_at_most_100_percent_and_names_once():
    """A class's share lies in (0, 1]: 0 and −0.5 are refused, and so is 1.5 (besides the total); a profile with
    the same name twice is refused even when the shares add up."""
    for share in (0.0, -0.5, 1.5):
        with pytest.raises(SchedulerInputError) as exc:
            check_profile(_one(share=share), None)
        assert "classes.0.share" in exc.value.errors
    twice = Profile((JobClass("a", 0.5, 8, 16, 8, 1.0, 3.0), JobClass("a", 0.5, 8, 16, 8, 1.0, 3.0)))
    with pytest.raises(SchedulerInputError) as exc:
        check_profile(twice, None)
    assert exc.value.errors == {"classes": "two classes are named 'a'"}


def test_tenants_up_to_60_characters():
    assert parse_classes("a,100,8,16,8,1,3,queued," + "t" * 60)[0].tenant == "t" * 60
    with pytest.raises(SchedulerInputError) as exc:
        parse_classes("a,100,8,16,8,1,3,queued," + "t" * 61)
    assert "a tenant of at most 60 characters" in exc.value.errors["classes"]


def test_comment_and_blank_lines_are_skipped_and_lines_keep_their_numbers():
    """Text classes: a line starting with # (after spaces) and a blank line are not classes; line numbers in
    errors still count them (the bad class is on line 4)."""
    text = "# name, share %, …\n\n  # indented comment\na,100,8,16,8,1,3,queued"
    (only,) = parse_classes(text)
    assert only.name == "a"
    with pytest.raises(SchedulerInputError) as exc:
        parse_classes(text.replace("queued", "queued,x,0,bad,9"))
    assert exc.value.errors["classes"].startswith("line 4: 12 values")
