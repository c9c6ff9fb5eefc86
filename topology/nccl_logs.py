"""Reading the stdout of nccl-tests (all_reduce_perf and its siblings).

The format is nccl-tests' own (NVIDIA/nccl-tests, src/util.cu writeBenchmarkLinePreamble and
writeBenchmarkLineBody, v2.19.6): one line per message size,

    size  count  type  redop  root   time algbw busbw #wrong   time algbw busbw #wrong
                                     └──── out-of-place ────┘   └───── in-place ─────┘

(``#wrong`` is ``N/A`` without validation; before nccl-tests 2.10 there is no root column;
with trace replay only the in-place half is printed). Above the table: ``# nccl-tests version
…``, ``# Collective test starting: all_reduce_perf`` (newer versions), ``# nThread 1 nGpus 8
minBytes … maxBytes … step: 2(factor) …`` and one ``#  Rank  r Group g Pid p on host device d
[bus] NAME`` line per rank; below it ``# Avg bus bandwidth : x``. mpirun's ``[1,0]<stdout>:``
prefixes and the indentation of pasted code blocks are stripped.

Errors are :class:`LogError` with the field they belong to (``log`` for the text, ``collective``
when the log is of another collective than declared) and the line number where one applies.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field

from topology.collectives import Collective

MAX_LOG_CHARS = 2_000_000  # a full -b 8 -e 16G -f 1.01 log is ~300 kB
PERF_BINARIES = {
    "all_reduce_perf": Collective.ALL_REDUCE,
    "all_gather_perf": Collective.ALL_GATHER,
    "reduce_scatter_perf": Collective.REDUCE_SCATTER,
    "alltoall_perf": Collective.ALL_TO_ALL,
    "broadcast_perf": Collective.BROADCAST,
}
OTHER_BINARIES = ("reduce_perf", "sendrecv_perf", "scatter_perf", "gather_perf", "hypercube_perf", "alltoallv_perf")
REDUCING = {Collective.ALL_REDUCE, Collective.REDUCE_SCATTER}
_PREFIX = re.compile(r"^\s*(?:\[[0-9,]+\]<std(?:out|err)>:)?\s*")
_NUM = r"[0-9.]+(?:[eE][+-]?[0-9]+)?"
_RANK = re.compile(r"#\s*Rank\s+[0-9]+\s+Group\s+[0-9]+\s+Pid\s+[0-9]+\s+on\s+(\S+)\s+device\s+\S+\s+\[[^]]*\]\s+(.+)")


class LogError(ValueError):
    def __init__(self, field_name: str, message: str, line: int | None = None):
        self.field = field_name
        self.line = line
        super().__init__(f"line {line}: {message}" if line else message)


@dataclass(frozen=True)
class LogRow:
    line: int
    size_bytes: int
    count: int
    dtype: str
    redop: str
    root: int
    out_of_place: tuple[float, float, float] | None  # time_us, algbw_gbyte_s, busbw_gbyte_s
    in_place: tuple[float, float, float] | None


@dataclass(frozen=True)
class NcclTestsLog:
    rows: tuple[LogRow, ...]
    collective: Collective | None  # from "# Collective test starting", when printed
    binary: str | None
    version: str | None
    ranks: int | None  # "#  Rank" lines
    gpu_names: tuple[str, ...]
    hosts: tuple[str, ...]
    header: dict[str, str] = field(default_factory=dict)
    avg_busbw_gbyte_s: float | None = None

    def measured(self, column: str = "out_of_place") -> list[tuple[int, float, float, float]]:
        """(size_bytes, time_us, algbw, busbw) per row from one column: out_of_place, in_place or best."""
        out = []
        for r in self.rows:
            halves = [h for h in (r.out_of_place, r.in_place) if h is not None]
            pick = {"out_of_place": r.out_of_place, "in_place": r.in_place}.get(column)
            if column == "best":
                pick = min(halves, key=lambda h: h[0]) if halves else None
            if pick is None:
                raise LogError("column", f"the log has no {column.replace('_', '-')} results (row of {r.size_bytes} B)")
            out.append((r.size_bytes, *pick))
        return out


def _half(fields: list[str]) -> tuple[float, float, float]:
    t, alg, bus = (float(x) for x in fields[:3])
    if fields[3] != "N/A" and not re.fullmatch(r"[0-9.eE+-]+", fields[3]):
        raise ValueError(fields[3])
    return t, alg, bus


def _row(line_no: int, text: str) -> LogRow | None:
    """A result line, None for anything that is not one (comments, NCCL INFO lines, blank).

    Told apart by field count: 13 = size count type redop root + out-of-place + in-place;
    12 = the same without root (nccl-tests before root was printed); 9 and 8 = in-place only."""
    if not text or not text[0].isdigit():
        return None
    f = text.split()
    layout = {13: (True, 2), 12: (False, 2), 9: (True, 1), 8: (False, 1)}.get(len(f))
    try:
        if layout is None:
            raise ValueError(len(f))
        has_root, halves = layout
        body = f[5:] if has_root else f[4:]
        parts = [_half(body[k * 4 : k * 4 + 4]) for k in range(halves)]
        size, count, root = int(f[0]), int(f[1]), int(f[4]) if has_root else -1
    except ValueError:
        raise LogError(
            "log",
            "expected 'size count type redop [root]' then 'time algbw busbw #wrong' for out-of-place and "
            f"in-place; got {text[:120]!r}",
            line_no,
        ) from None
    if any(not all(map(math.isfinite, h)) or h[0] <= 0 or h[1] < 0 for h in parts):
        raise LogError("log", f"times must be > 0 and bandwidths ≥ 0; got {text[:120]!r}", line_no)
    out, inp = (parts[0], parts[1]) if halves == 2 else (None, parts[0])
    return LogRow(line_no, size, count, f[2], f[3], root, out, inp)


def _header_fields(text: str) -> dict[str, str]:
    """'# nThread 1 nGpus 8 minBytes 8 maxBytes 1024 step: 2(factor) warmup iters: 5 …' → a dict."""
    body = text.lstrip("#").strip()
    pairs = re.findall(r"([A-Za-z][A-Za-z ]*?):?\s+(-?[0-9][0-9.]*(?:\([a-z]+\))?)", body)
    return {k.strip(): v for k, v in pairs}


def parse_nccl_tests(text: str) -> NcclTestsLog:
    """Parse one nccl-tests run; LogError (field "log") for anything that is not one."""
    if not isinstance(text, str) or not text.strip():
        raise LogError("log", "the log is empty: paste or upload the stdout of all_reduce_perf (or a sibling)")
    if len(text) > MAX_LOG_CHARS:
        raise LogError("log", f"{len(text):,} characters; a log may have {MAX_LOG_CHARS:,}")
    rows: list[LogRow] = []
    binary = version = None
    header: dict[str, str] = {}
    ranks, gpus, hosts, avg = 0, [], [], None
    for i, raw in enumerate(text.splitlines(), start=1):
        line = _PREFIX.sub("", raw.rstrip())
        if m := re.match(r"#\s*Collective test starting:\s*(\S+)", line):
            if binary is not None:
                raise LogError("log", "two nccl-tests runs in one log; upload them one at a time", i)
            binary = m.group(1).removesuffix("_mpi")
        elif m := re.match(r"#\s*nccl-tests version\s+(\S+)", line):
            version = m.group(1)
        elif re.match(r"#\s*nThread\s", line):
            if header:
                raise LogError("log", "two nccl-tests runs in one log; upload them one at a time", i)
            header = _header_fields(line)
        elif m := _RANK.match(line):
            ranks += 1
            hosts.append(m.group(1))
            gpus.append(m.group(2).strip())
        elif m := re.match(rf"#\s*Avg bus bandwidth\s*:\s*({_NUM})", line):
            avg = float(m.group(1))
        elif (row := _row(i, line)) is not None:
            rows.append(row)
    return _checked(rows, binary, version, ranks, gpus, hosts, header, avg)


def _checked(rows, binary, version, ranks, gpus, hosts, header, avg) -> NcclTestsLog:
    if not rows:
        raise LogError(
            "log",
            "no result rows: expected lines like '  1048576  262144  float  sum  -1  52.1  20.13  35.23  0 …' "
            "under the '#  size  count  type  redop  root  time  algbw  busbw' header of nccl-tests",
        )
    if binary in OTHER_BINARIES:
        raise LogError("collective", f"the log is of {binary}, which the collective model does not cover")
    if binary is not None and binary not in PERF_BINARIES:
        raise LogError("log", f"unknown nccl-tests binary {binary!r}")
    for a, b in itertools.pairwise(rows):
        if b.size_bytes <= a.size_bytes:
            raise LogError(
                "log", f"sizes must increase (nccl-tests -b/-e/-f): {b.size_bytes} after {a.size_bytes}", b.line
            )
    if len({r.redop for r in rows}) > 1 or len({r.dtype for r in rows}) > 1:
        raise LogError("log", "rows of different data types or reduction ops: two runs mixed in one log")
    return NcclTestsLog(
        rows=tuple(rows),
        collective=PERF_BINARIES.get(binary) if binary else None,
        binary=binary,
        version=version,
        ranks=ranks or None,
        gpu_names=tuple(dict.fromkeys(gpus)),
        hosts=tuple(dict.fromkeys(hosts)),
        header=header,
        avg_busbw_gbyte_s=avg,
    )


def bus_ratio(collective: Collective, n: int) -> float:
    """nccl-tests' busbw ÷ algbw (doc/PERFORMANCE.md): 2(n−1)/n all-reduce, (n−1)/n gathers, 1 broadcast."""
    if collective == Collective.ALL_REDUCE:
        return 2 * (n - 1) / n
    if collective == Collective.BROADCAST:
        return 1.0
    return (n - 1) / n


def check_collective(log: NcclTestsLog, declared: Collective, ranks: int) -> None:
    """The log is of the declared collective on `ranks` GPUs, by every sign the log carries."""
    declared = Collective(declared)
    if log.collective is not None and log.collective != declared:
        raise LogError("collective", f"the log is of {log.binary} ({log.collective.value}), declared {declared.value}")
    redop = log.rows[0].redop
    if declared in REDUCING and redop == "none":
        raise LogError("collective", f"{declared.value} reduces, but the log's rows have redop 'none' (a gather?)")
    if declared not in REDUCING and declared != Collective.BROADCAST and redop not in ("none",):
        raise LogError("collective", f"{declared.value} does not reduce, but the log's rows have redop {redop!r}")
    if ranks < 2:
        return
    big = max(log.rows, key=lambda r: r.size_bytes)
    half = big.out_of_place or big.in_place
    if half is None or half[1] < 1.0:  # two printed decimals: too coarse below 1 GB/s
        return
    ratio, expected = half[2] / half[1], bus_ratio(declared, ranks)
    if abs(ratio - expected) > 0.02 * expected + 0.01:
        raise LogError(
            "collective",
            f"busbw ÷ algbw is {ratio:.3f} in the log (at {big.size_bytes:,} B) but {expected:.3f} for "
            f"{declared.value} on {ranks} GPUs: the log is of another collective or another GPU count",
            big.line,
        )
