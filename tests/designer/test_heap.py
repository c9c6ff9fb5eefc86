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
