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


HEAD = "submit_h,gpus,hours,class\n"


def test_values_at_their_edges():
    """submit_h 0 and 1 GPU are allowed; 0 hours and 0 GPUs are not; infinity is no number; header names and
    values may carry spaces; a row longer than the header keeps its named columns; with no sla column every job
    is queued (priority 1)."""
    jobs, classes, tenants = parse_trace(" submit_h , gpus ,hours,class\n0, 1 ,0.5, x ,surplus\n")
    assert tenants == []  # no tenant column: no tenant named ""
    assert jobs.submit_h.tolist() == [0.0] and jobs.gpus.tolist() == [1] and jobs.hours.tolist() == [0.5]
    assert classes == ["x"] and jobs.priority.tolist() == [1]
    for row, key in (("0,0,1,x", "gpus"), ("0,8,0,x", "hours"), ("inf,8,1,x", "submit_h"), ("0,8,inf,x", "hours")):
        with pytest.raises(SchedulerInputError) as exc:
            parse_trace(HEAD + row + "\n")
        assert set(exc.value.errors) == {f"trace.row 1.{key}"}


def test_at_most_twenty_errors_are_listed():
    """30 rows with a bad hours value each: the first 20 (rows 1–20) are named, the rest not."""
    with pytest.raises(SchedulerInputError) as exc:
        parse_trace(HEAD + "0,8,-1,x\n" * 30)
    assert sorted(exc.value.errors, key=lambda k: int(k.split()[1].split(".")[0])) == [
        f"trace.row {n}.hours" for n in range(1, 21)
    ]


def test_the_missing_column_message_shows_the_header():
    with pytest.raises(SchedulerInputError) as exc:
        parse_trace("gpus, hours\n8,1\n")
    assert exc.value.errors["trace"] == "missing column(s) submit_h, class; the header has gpus, hours"


def test_trace_size_and_row_limits(monkeypatch):
    """The size limit is 200 MiB = 209,715,200 characters; with the limits patched small, a trace exactly at a
    limit is read and one past it refused."""
    with pytest.raises(SchedulerInputError) as exc:
        parse_trace(HEAD + "x" * (200 * 2**20))
    assert exc.value.errors["trace"] == "209,715,226 characters; a trace may have 209,715,200"
    text = HEAD + "0,8,1,x\n1,8,1,x\n"
    monkeypatch.setattr("scheduling.trace.MAX_TRACE_BYTES", len(text))
    monkeypatch.setattr("scheduling.trace.MAX_ROWS", 2)
    assert len(parse_trace(text)[0]) == 2
    with pytest.raises(SchedulerInputError, match="characters; a trace may have"):
        parse_trace(text + " ")
    monkeypatch.setattr("scheduling.trace.MAX_TRACE_BYTES", 10**6)
    with pytest.raises(SchedulerInputError) as exc:
        parse_trace(text + "2,8,1,x\n")
    assert exc.value.errors["trace"] == "more than 2 jobs"


def test_not_text_is_an_empty_trace():
    with pytest.raises(SchedulerInputError, match="empty"):
        parse_trace(b"submit_h,gpus,hours,class\n0,8,1,x\n")  # type: ignore[arg-type]


def test_acme_rows_at_their_edges():
    """A time without its zone is refused; an empty type becomes 'Other'; rows out of time order come out sorted
    with submit_h from the earliest (a 90-minute gap = 1.5 h, written to six decimals); every row refused
    (gpu_num 0) leaves no job."""
    head = "user,gpu_num,type,state,submit_time,duration\n"
    with pytest.raises(SchedulerInputError) as exc:
        acme_to_rows(head + "u1,8,SFT,COMPLETED,2023-03-01 00:00:00,60\n")
    assert set(exc.value.errors) == {"trace.row 1.submit_time"}
    out = acme_to_rows(
        head + "u1,8,,COMPLETED,2023-03-01 01:30:00+00:00,5400\nu2,1,Pretrain,FAILED,2023-03-01 00:00:00+00:00,36\n"
    )
    assert out.splitlines() == [
        "submit_h,gpus,hours,class,tenant,sla",
        "0.000000,1,0.010000,Pretrain,u2,critical",
        "1.500000,8,1.500000,Other,u1,queued",
    ]
    with pytest.raises(SchedulerInputError) as exc:
        acme_to_rows(head + "u1,-1,SFT,COMPLETED,2023-03-01 00:00:00+00:00,60\n")
    assert set(exc.value.errors) == {"trace.row 1.gpu_num"}
    for row, key in (("u1,2.5,SFT,COMPLETED,2023-03-01 00:00:00+00:00,60", "gpu_num"),
                     ("u1,8,SFT,COMPLETED,2023-03-01 00:00:00+00:00,-0.5", "duration")):  # fmt: skip
        with pytest.raises(SchedulerInputError) as exc:
            acme_to_rows(head + row + "\n")
        assert set(exc.value.errors) == {f"trace.row 1.{key}"}
    with pytest.raises(SchedulerInputError) as exc:
        acme_to_rows(head + "u1,8,SFT,COMPLETED,2023-03-01 00:00:00+00:00,-1\n" * 30)
    assert len(exc.value.errors) == 20 and "trace.row 20.duration" in exc.value.errors
    with pytest.raises(SchedulerInputError, match="no GPU job"):
        acme_to_rows(head + "u1,0,SFT,COMPLETED,2023-03-01 00:00:00+00:00,60\n")


def test_a_job_as_large_as_the_partition_fits():
    jobs, _, _ = parse_trace(HEAD + "0,8,1,x\n2.5,16,1,x\n")
    check_fits(jobs, 16)
    with pytest.raises(SchedulerInputError) as exc:
        check_fits(jobs, 15)
    assert (
        exc.value.errors["trace"]
        == "a job of 16 GPUs (submitted at 2.50 h) is larger than the 15 GPUs of the partition"
    )
    empty = jobs.__class__(*(a[:0] for a in (jobs.submit_h, jobs.gpus, jobs.hours, jobs.cls, jobs.priority)))
    check_fits(empty, 1)
