"""designer/heap.py: a web process's long-lived heap leaves the collector's scans after its first response."""

from __future__ import annotations

import gc
import os

import designer.heap as heap


def test_the_first_response_freezes_the_heap_once_per_process(client, monkeypatch):
    frozen = []
    real_freeze = gc.freeze

    def counting_freeze():
        frozen.append(gc.get_freeze_count())
        real_freeze()

    monkeypatch.setattr(heap, "_frozen_in", None)  # a process that has answered nothing yet
    monkeypatch.setattr(gc, "freeze", counting_freeze)
    assert client.get("/accounts/login/").status_code == 200
    assert len(frozen) == 1 and gc.get_freeze_count() > 0  # the first response froze what was alive
    assert client.get("/accounts/login/").status_code == 200
    assert len(frozen) == 1  # … and the next one freezes nothing again
    assert heap.freeze_once() is False

    monkeypatch.setattr(os, "getpid", lambda: -1)  # a gunicorn worker forked after the freeze: its own heap
    assert heap.freeze_once() is True and len(frozen) == 2
    assert heap.freeze_once() is False


def test_garbage_of_the_first_request_is_collected_not_frozen(monkeypatch):
    """What was garbage when the heap froze (a reference cycle no one holds) is collected first, not kept forever."""
    import weakref

    class Node:
        pass

    a, b = Node(), Node()
    a.other, b.other = b, a  # a cycle: only the collector frees it
    gone = weakref.ref(a)
    del a, b
    monkeypatch.setattr(heap, "_frozen_in", None)
    assert heap.freeze_once() is True
    assert gone() is None


def test_the_freeze_spaces_young_collections_out(monkeypatch):
    """After the freeze the youngest generation is collected every YOUNG_COLLECTION_ALLOCATIONS allocations (not
    CPython's 700); the older generations keep their thresholds."""
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        monkeypatch.setattr(heap, "_frozen_in", None)
        assert heap.freeze_once() is True
        assert gc.get_threshold() == (heap.YOUNG_COLLECTION_ALLOCATIONS, 10, 10)
        assert heap.YOUNG_COLLECTION_ALLOCATIONS == 10_000  # the figure designer/heap.py and the README measured
    finally:
        gc.set_threshold(*before)


_TOUCH_ARRAYS = """
import ctypes, resource, sys
import numpy as np
import designer.heap as heap


class MallInfo2(ctypes.Structure):  # glibc's struct mallinfo2 (malloc.h), ten size_t
    _fields_ = [(f, ctypes.c_size_t) for f in "arena ordblks smblks hblks hblkhd usm fsm uord fordblks keep".split()]


libc = ctypes.CDLL(None)
libc.mallinfo2.restype = MallInfo2
if sys.argv[1] == "reserve":
    assert heap.reserve_heap(64 * 2**20)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
base = libc.mallinfo2().hblkhd
mapped = 0
for _ in range(5):
    column = np.ones(2 * 2**20)  # 16 MiB, every page written: the size of a large request's columns, and more
    mapped = max(mapped, libc.mallinfo2().hblkhd - base)  # more bytes in blocks mapped on their own
    del column
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
print(faults, mapped, libc.mallinfo2().fordblks)
"""


def _touch_arrays(mode: str) -> tuple[int, int, int]:
    """In a fresh process: page faults while five 16 MiB arrays are made and dropped, the most bytes glibc held in
    blocks mapped on their own meanwhile, and the free bytes its heap keeps after."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(heap.__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", _TOUCH_ARRAYS, mode], cwd=root, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    faults, mapped, free = map(int, out.stdout.split())
    return faults, mapped, free


def test_the_reserved_heap_serves_large_arrays_without_page_faults():
    """Without the reserve glibc maps the first 16 MiB array on its own (its initial mmap threshold is 128 KiB) and
    its pages are faulted in; with 64 MiB reserved every array comes from heap pages already resident (at most a
    few stray faults, for numpy's own bookkeeping), and the heap keeps the reserve free after."""
    import ctypes

    try:
        ctypes.CDLL(None).mallinfo2  # noqa: B018 — glibc ≥ 2.33
    except AttributeError:
        import pytest

        pytest.skip("the reserve is glibc's (mallopt)")
    faults, mapped, _free = _touch_arrays("none")
    assert mapped >= 16 * 2**20 and faults > 100
    faults, mapped, free = _touch_arrays("reserve")
    assert mapped == 0 and faults < 50
    assert free >= 64 * 2**20


def test_the_freeze_reserves_the_configured_heap(monkeypatch, settings):
    asked = []
    monkeypatch.setattr(heap, "reserve_heap", lambda size_bytes: asked.append(size_bytes) or True)
    monkeypatch.setattr(heap, "_frozen_in", None)
    settings.HEAP_RESERVE_MB = 7
    before = gc.get_threshold()
    try:
        assert heap.freeze_once() is True
    finally:
        gc.set_threshold(*before)
    assert asked == [7 * 2**20]


def test_no_reserve_when_it_is_off():
    assert heap.reserve_heap(0) is False


class _RecordingLibc:
    """A C library that records what :func:`heap.reserve_heap` asks of it; ``mallopt_ok``: what mallopt answers,
    ``mallocs``: how many mallocs succeed before one returns NULL."""

    def __init__(self, mallopt_ok: int = 1, mallocs: int = 1_000) -> None:
        self.calls: list[tuple] = []
        self.mallopt_ok, self.mallocs = mallopt_ok, mallocs

    def mallopt(self, param: int, value: int) -> int:
        self.calls.append(("mallopt", param, value))
        return self.mallopt_ok

    def malloc(self, size: int) -> int | None:
        self.calls.append(("malloc", size))
        self.mallocs -= 1
        return None if self.mallocs < 0 else 0x1000 * (len(self.calls) + 1)

    def memset(self, address: int, value: int, size: int) -> None:
        self.calls.append(("memset", address, value, size))

    def free(self, address: int) -> None:
        self.calls.append(("free", address))


MIB = 2**20


def test_the_reserve_fixes_the_thresholds_then_touches_and_frees_its_pieces():
    """glibc's parameter numbers (malloc.h: M_TRIM_THRESHOLD −1, M_MMAP_THRESHOLD −3), the mmap threshold at 32 MiB
    (mallopt(3)'s largest on 64-bit), freed memory kept up to twice the reserve; 20 MiB in ⌈20 ÷ 8⌉ = 3 pieces of
    8 MiB, each written once, freed last first."""
    libc = _RecordingLibc()
    assert heap.reserve_heap(20 * MIB, libc) is True
    mallocs = [c for c in libc.calls if c[0] == "malloc"]
    addresses = [0x1000 * (i + 1) for i, c in enumerate(libc.calls, start=1) if c[0] == "malloc"]
    assert libc.calls[:2] == [("mallopt", -3, 32 * MIB), ("mallopt", -1, 40 * MIB)]
    assert mallocs == [("malloc", 8 * MIB)] * 3
    assert [c for c in libc.calls if c[0] == "memset"] == [("memset", a, 0, 8 * MIB) for a in addresses]
    assert libc.calls[-3:] == [("free", a) for a in reversed(addresses)]
    assert len(libc.calls) == 2 + 3 + 3 + 3


def test_a_reserve_of_one_byte_is_one_piece_and_a_huge_one_keeps_at_most_a_c_int():
    libc = _RecordingLibc()
    assert heap.reserve_heap(1, libc) is True
    assert [c[0] for c in libc.calls] == ["mallopt", "mallopt", "malloc", "memset", "free"]
    assert libc.calls[1] == ("mallopt", -1, 2)
    libc = _RecordingLibc()
    assert heap.reserve_heap(8 * MIB + 1, libc) is True
    assert sum(c[0] == "malloc" for c in libc.calls) == 2
    libc = _RecordingLibc(mallocs=0)  # mallopt accepts, but the first malloc fails: nothing reserved
    assert heap.reserve_heap(2**40, libc) is False
    assert libc.calls == [("mallopt", -3, 32 * MIB), ("mallopt", -1, 2**31 - 1), ("malloc", 8 * MIB)]


def test_the_reserve_stops_at_the_first_failed_malloc_and_frees_what_it_took():
    libc = _RecordingLibc(mallocs=2)
    assert heap.reserve_heap(80 * MIB, libc) is True
    kinds = [c[0] for c in libc.calls]
    assert kinds == ["mallopt", "mallopt", "malloc", "memset", "malloc", "memset", "malloc", "free", "free"]


def test_nothing_is_asked_of_the_library_for_no_reserve_or_a_refused_threshold():
    libc = _RecordingLibc()
    assert heap.reserve_heap(0, libc) is False and heap.reserve_heap(-1, libc) is False
    assert libc.calls == []
    refusing = _RecordingLibc(mallopt_ok=0)
    assert heap.reserve_heap(16 * MIB, refusing) is False
    assert refusing.calls == [("mallopt", -3, 32 * MIB)]  # the first refusal stops it


def test_the_c_library_is_glibc_or_none():
    import ctypes

    libc = heap.glibc()
    try:
        ctypes.CDLL(None).gnu_get_libc_version  # noqa: B018
    except AttributeError:
        assert libc is None
    else:
        assert libc is not None and libc.mallopt.restype is ctypes.c_int


def test_no_reserve_without_glibc(monkeypatch):
    monkeypatch.setattr(heap, "glibc", lambda: None)  # musl, or a C library ctypes cannot open
    assert heap.reserve_heap(MIB) is False


def test_a_thread_that_froze_first_wins(monkeypatch):
    """Two threads answer their first responses at once: the one that takes the lock second finds the heap frozen
    (the check is made again under the lock) and freezes nothing."""

    class OtherThreadFrozeWhileWeWaited:
        def __enter__(self):
            heap._frozen_in = os.getpid()

        def __exit__(self, *exc):
            return False

    frozen = []
    monkeypatch.setattr(heap, "_frozen_in", None)
    monkeypatch.setattr(heap, "_lock", OtherThreadFrozeWhileWeWaited())
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(1))
    assert heap.freeze_once() is False and frozen == []
