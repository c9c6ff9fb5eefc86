"""Job traces to replay instead of a generated workload (pure): our CSV layout, and AcmeTrace's.

Our layout (a header row, any column order, extra columns ignored):

    submit_h   hours after the trace starts the job was submitted (≥ 0)
    gpus       GPUs the job asks for (a whole number ≥ 1)
    hours      its run time (> 0)
    class      its job class (any text; classes are numbered in order of first appearance)
    tenant     optional: the account it is charged to
    sla        optional: critical, queued (the default) or best_effort

AcmeTrace (Shanghai AI Lab's LLM clusters Seren and Kalos, March–August 2023; NSDI '24,
"Characterization of Large Language Model Development in the Datacenter"; github.com/InternLM/AcmeTrace,
data/job_trace/trace_seren.csv): job_id, user, node_num, gpu_num, cpu_num, type, state, submit_time,
start_time, end_time, duration [s], queue [s], gpu_time. :func:`acme_to_rows` keeps GPU jobs
(gpu_num ≥ 1) with a positive duration, of every end state (a failed or cancelled job held its
GPUs for its duration too), submit_h from the first submit, class = type, tenant = user; a
``Pretrain`` job is critical, the rest queued (a stated assumption: the trace has no SLA).

Times are hours here; the simulator turns them into whole seconds once, at its boundary (round half to
even of hours × 3,600, a positive run time at least 1 s: scheduling/simulator.py). AcmeTrace's whole seconds
are written to six decimals of an hour (3.6 ms), so every one of them comes back exactly.

Errors are SchedulerInputError keyed ``trace`` (the file) or ``trace.row N.column`` (one value).
"""

from __future__ import annotations

import csv
import io
import math
from datetime import datetime

import numpy as np

from scheduling import SchedulerInputError
from scheduling.quoting import csv_writer
from scheduling.workload import PRIORITY, SLA_CLASSES, Jobs

REQUIRED = ("submit_h", "gpus", "hours", "class")
MAX_ROWS = 2_000_000
MAX_TRACE_BYTES = 200 * 2**20
ACME_COLUMNS = ("user", "gpu_num", "type", "state", "submit_time", "duration")
ACME_CRITICAL_TYPES = ("Pretrain",)
MAX_ERRORS = 20


def _reader(text: str) -> csv.DictReader:
    if not isinstance(text, str) or not text.strip():
        raise SchedulerInputError({"trace": "the trace is empty: a header row, then one job per row"})
    if len(text) > MAX_TRACE_BYTES:
        raise SchedulerInputError({"trace": f"{len(text):,} characters; a trace may have {MAX_TRACE_BYTES:,}"})
    return csv.DictReader(io.StringIO(text))


def _need_columns(reader: csv.DictReader, required: tuple[str, ...]) -> None:
    have = [c.strip() for c in (reader.fieldnames or [])]
    missing = [c for c in required if c not in have]
    if missing:
        raise SchedulerInputError(
            {"trace": f"missing column(s) {', '.join(missing)}; the header has {', '.join(have) or 'nothing'}"}
        )


def _number(raw: str | None, whole: bool = False) -> float | None:
    try:
        x = float((raw or "").strip())
    except ValueError:
        return None
    if not math.isfinite(x) or (whole and not x.is_integer()):
        return None
    return x


def parse_trace(text: str) -> tuple[Jobs, list[str], list[str]]:
    """Our layout → (jobs in submit order, class names, tenants); every bad value is a field error."""
    reader = _reader(text)
    _need_columns(reader, REQUIRED)
    rows, errors = [], {}
    for n, row in enumerate(reader, start=1):
        if n > MAX_ROWS:
            raise SchedulerInputError({"trace": f"more than {MAX_ROWS:,} jobs"})
        row = {k.strip(): v for k, v in row.items() if k is not None}
        submit, gpus, hours = _number(row.get("submit_h")), _number(row.get("gpus"), True), _number(row.get("hours"))
        sla = (row.get("sla") or "queued").strip()
        for name, ok, why in (
            ("submit_h", submit is not None and submit >= 0, "hours after the start, a number ≥ 0"),
            ("gpus", gpus is not None and gpus >= 1, "a whole number of GPUs ≥ 1"),
            ("hours", hours is not None and hours > 0, "the run time in hours, a number > 0"),
            ("class", bool((row.get("class") or "").strip()), "a job class name"),
            ("sla", sla in SLA_CLASSES, f"one of {', '.join(SLA_CLASSES)}"),
        ):
            if not ok and len(errors) < MAX_ERRORS:
                errors[f"trace.row {n}.{name}"] = f"{why}; got {row.get(name)!r}"
        rows.append((submit, gpus, hours, (row.get("class") or "").strip(), (row.get("tenant") or "").strip(), sla))
    if errors:
        raise SchedulerInputError(errors)
    if not rows:
        raise SchedulerInputError({"trace": "no jobs: a header row, then one job per row"})
    return _jobs(rows)


def _jobs(rows: list[tuple]) -> tuple[Jobs, list[str], list[str]]:
    classes = list(dict.fromkeys(r[3] for r in rows))
    tenants = list(dict.fromkeys(r[4] for r in rows if r[4]))
    cls_of = {c: i for i, c in enumerate(classes)}
    submit = np.array([r[0] for r in rows], dtype=float)
    order = np.argsort(submit, kind="stable")
    jobs = Jobs(
        submit[order],
        np.array([int(r[1]) for r in rows], dtype=np.int64)[order],
        np.array([r[2] for r in rows], dtype=float)[order],
        np.array([cls_of[r[3]] for r in rows], dtype=np.int64)[order],
        np.array([PRIORITY[r[5]] for r in rows], dtype=np.int64)[order],
    )
    return jobs, classes, tenants


def _when(raw: str) -> datetime | None:
    try:
        return datetime.fromisoformat((raw or "").strip())
    except ValueError:
        return None


def acme_to_rows(text: str) -> str:
    """An AcmeTrace job-trace CSV → our layout (CSV text), as the module says."""
    reader = _reader(text)
    _need_columns(reader, ACME_COLUMNS)
    parsed, errors = [], {}
    for n, row in enumerate(reader, start=1):
        gpus, duration, when = (
            _number(row.get("gpu_num"), True),
            _number(row.get("duration")),
            _when(row["submit_time"]),
        )
        for name, ok, why in (
            ("gpu_num", gpus is not None and gpus >= 0, "a whole number of GPUs ≥ 0"),
            ("duration", duration is not None and duration >= 0, "seconds ≥ 0"),
            ("submit_time", when is not None and when.tzinfo is not None, "an ISO time with its zone"),
        ):
            if not ok and len(errors) < MAX_ERRORS:
                errors[f"trace.row {n}.{name}"] = f"{why}; got {row.get(name)!r}"
        if gpus and duration and when is not None:
            parsed.append((when, int(gpus), duration / 3600, row["type"].strip() or "Other", row["user"].strip()))
    if errors:
        raise SchedulerInputError(errors)
    if not parsed:
        raise SchedulerInputError({"trace": "no GPU job with a positive duration in the trace"})
    t0 = min(p[0] for p in parsed)
    out = io.StringIO()
    w = csv_writer(out)  # a class or user name with a line break stays one field
    w.writerow(("submit_h", "gpus", "hours", "class", "tenant", "sla"))
    for when, gpus, hours, typ, user in sorted(parsed, key=lambda p: p[0]):
        sla = "critical" if typ in ACME_CRITICAL_TYPES else "queued"
        w.writerow((f"{(when - t0).total_seconds() / 3600:.6f}", gpus, f"{hours:.6f}", typ, user, sla))
    return out.getvalue()


def check_fits(jobs: Jobs, cluster_gpus: int) -> None:
    if len(jobs) and int(jobs.gpus.max()) > cluster_gpus:
        k = int(np.argmax(jobs.gpus))
        raise SchedulerInputError(
            {"trace": f"a job of {int(jobs.gpus[k]):,} GPUs (submitted at {jobs.submit_h[k]:.2f} h) is larger "
                      f"than the {cluster_gpus:,} GPUs of the partition"}
        )  # fmt: skip
