"""Job traces (scheduling/trace.py): our CSV layout with field errors per row, and the AcmeTrace converter,
tested on a seven-row file written in AcmeTrace's published trace_seren.csv layout (made for the test:
github.com/InternLM/AcmeTrace README, 'Job Trace' schema)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scheduling import SchedulerInputError
from scheduling.simulator import report, simulate
from scheduling.trace import acme_to_rows, check_fits, parse_trace

ACME = (Path(__file__).parent / "data" / "acme-seren-layout-sample.csv").read_text()


def test_our_layout_replays_in_submit_order():
    text = (
        "class,gpus,hours,submit_h,tenant,sla\n"
        "big,16,10,5,lab-a,critical\nsmall,8,1.5,0,lab-b,\nbig,16,2,1,lab-a,critical\n"
    )
    jobs, classes, tenants = parse_trace(text)
    assert classes == ["big", "small"] and tenants == ["lab-a", "lab-b"]
    assert jobs.submit_h.tolist() == [0.0, 1.0, 5.0] and jobs.gpus.tolist() == [8, 16, 16]
    assert jobs.cls.tolist() == [1, 0, 0] and jobs.priority.tolist() == [1, 2, 2]
    res = simulate(jobs, node_count=2, gpus_per_node=8, horizon_h=50.0)
    assert res.start_h.tolist() == [0.0, 1.5, 5.0]  # 2 nodes: the 16-GPU job waits for the 8-GPU one
    assert report(res, jobs, classes)["classes"][0]["jobs"] == 2


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        ("", "trace", "empty"),
        ("gpus,hours\n8,1\n", "trace", "missing column(s) submit_h, class"),
        ("submit_h,gpus,hours,class\n0,8,-2,x\n", "trace.row 1.hours", "> 0"),
        ("submit_h,gpus,hours,class\n0,8,1,x\n1,2.5,1,x\n", "trace.row 2.gpus", "whole number"),
        ("submit_h,gpus,hours,class\n-1,8,1,x\n", "trace.row 1.submit_h", "≥ 0"),
        ("submit_h,gpus,hours,class\n0,8,1,\n", "trace.row 1.class", "class name"),
        ("submit_h,gpus,hours,class,sla\n0,8,1,x,urgent\n", "trace.row 1.sla", "critical, queued"),
        ("submit_h,gpus,hours,class\n0,8,nan,x\n", "trace.row 1.hours", "> 0"),
        ("submit_h,gpus,hours,class\n", "trace", "no jobs"),
    ],
)
def test_bad_traces_are_field_errors(text, key, words):
    with pytest.raises(SchedulerInputError) as exc:
        parse_trace(text)
    assert key in exc.value.errors and words in exc.value.errors[key]


def test_acme_layout_converts():
    """7 rows: the CPU-only job (gpu_num 0) and the 0-second cancelled one are dropped; submit hours count
    from the first submit (00:00 +08:00); a Pretrain job is critical; durations are seconds."""
    jobs, classes, tenants = parse_trace(acme_to_rows(ACME))
    assert len(jobs) == 5
    assert jobs.submit_h.tolist() == [0.0, 0.5, 1.0, 2.0, 3.0]
    assert jobs.hours.tolist() == pytest.approx([10.0, 1.0, 0.5, 0.1, 4.0])
    assert jobs.gpus.tolist() == [8, 8, 16, 1, 32]
    assert classes == ["Pretrain", "Eval", "SFT", "Debug"] and "u0002" in tenants
    assert jobs.priority.tolist() == [2, 1, 1, 1, 2]
    with pytest.raises(SchedulerInputError) as exc:
        check_fits(jobs, 16)
    assert "32 GPUs" in exc.value.errors["trace"]


def test_bad_acme_rows_name_the_column():
    broken = ACME.replace("2023-03-01 02:00:00+08:00", "yesterday").replace(",360,1,360.0", ",-5,1,360.0")
    with pytest.raises(SchedulerInputError) as exc:
        acme_to_rows(broken)
    assert set(exc.value.errors) == {"trace.row 5.submit_time", "trace.row 5.duration"}
    with pytest.raises(SchedulerInputError, match="missing column"):
        acme_to_rows("job_id,gpu_num\n1,8\n")
