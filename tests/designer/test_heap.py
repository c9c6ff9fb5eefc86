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
        assert heap.YOUNG_COLLECTION_ALLOCATIONS > 700
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
