"""The web process's long-lived heap, frozen out of the garbage collector after its first request.

A web process holds ≈ 190,000 objects that live as long as it does: modules, classes, functions, Django's models,
URL resolvers and templates, numpy's and plotly's own. CPython's full (generation-2) collection re-scans every one
of them each time it runs — 50–90 ms on the 2-core benchmark machine — and it runs whenever enough new objects
have survived, i.e. inside some request picked at random: a 100k-GPU live evaluate that takes ≈ 120 ms then takes
≈ 210 ms, and that tail is the p95 (`benchmarks/live.py`). :func:`gc.freeze` moves everything alive into a
permanent generation that collections skip (the CPython documentation's use for it: a process whose
long-lived objects are created up front), so a full collection scans only what requests have left alive since.

It runs once per process (a gunicorn worker forked from its master freezes its own heap), after the process's
first response, when the lazily imported views, serializers and engines are loaded; what was garbage by then is
collected first. Objects frozen stay for the process's life — they are the ones that would anyway. Off with
``GC_FREEZE_AFTER_FIRST_REQUEST=0``.

With the heap frozen, the youngest generation is collected every :data:`YOUNG_COLLECTION_ALLOCATIONS` net
allocations instead of CPython's 700 (the older two keep their 10 each): a 100k-GPU live evaluate allocates
≈ 3,000 objects net and ran ≈ 4.5 young collections and one full collection in forty; with 10,000, ≈ 0.25 young
and none in forty — ≈ 1.1 → 0.7 ms of collection a call, and no 10 ms full collection inside a request now and
then (measured in-process, 40 calls; `benchmarks/live.py`). What a young collection frees stays a little longer:
at most 10,000 objects' worth, next to the ≈ 300 MB such a request holds.
"""

from __future__ import annotations

import gc
import os
import threading

YOUNG_COLLECTION_ALLOCATIONS = 10_000  # generation 0's threshold once the heap is frozen (CPython's default: 700)
_lock = threading.Lock()
_frozen_in: int | None = None  # the pid whose heap was frozen (a forked worker starts with its parent's)


def freeze_once(**_signal) -> bool:
    """Collect, then freeze the heap and space the young collections out, once per process (a ``request_finished``
    receiver); True when it froze now."""
    global _frozen_in
    if _frozen_in == os.getpid():
        return False
    with _lock:
        if _frozen_in == os.getpid():
            return False
        _frozen_in = os.getpid()
        gc.collect()
        gc.freeze()
        _young, older, oldest = gc.get_threshold()
        gc.set_threshold(max(_young, YOUNG_COLLECTION_ALLOCATIONS), older, oldest)
        return True
