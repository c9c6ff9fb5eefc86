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

At the same moment the process **reserves its working heap** (:func:`reserve_heap`, ``HEAP_RESERVE_MB``, glibc
only): a 100k-GPU live evaluate builds ≈ 150 MB of numpy columns, most of them above glibc's initial 128 KiB
mmap threshold, so the first few such requests of a process take every page fresh from the kernel — ≈ 15,000 page
faults and ≈ 30 ms of system time in the first, ≈ 10,000 in the second, tailing off over ten — and glibc hands
freed memory back above its trim threshold, to be faulted in again later. The reserve fixes the mmap threshold at
:data:`MMAP_THRESHOLD_BYTES` (arrays below it come from the heap and return to it), keeps freed memory up to
twice the reserve, and touches the reserve once, so those requests find their pages resident (measured in-process,
40 cold 100k calls: the first call 94 → 82 ms, ≈ 12,000 → ≈ 50 faults; `benchmarks/live.py`). The cost is memory:
the worker's resident size starts ≈ ``HEAP_RESERVE_MB`` higher — what one 100k request would anyway leave it at.
"""

from __future__ import annotations

import ctypes
import gc
import os
import threading

from django.conf import settings

YOUNG_COLLECTION_ALLOCATIONS = 10_000  # generation 0's threshold once the heap is frozen (CPython's default: 700)
MMAP_THRESHOLD_BYTES = 32 * 2**20  # glibc's largest allowed on 64-bit (mallopt(3): DEFAULT_MMAP_THRESHOLD_MAX)
_PIECE_BYTES = 8 * 2**20  # the reserve is touched in pieces below the mmap threshold, so they come from the heap
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # mallopt(3)'s parameter numbers (glibc malloc.h)
_INT_MAX = 2**31 - 1
_lock = threading.Lock()
_frozen_in: int | None = None  # the pid whose heap was frozen (a forked worker starts with its parent's)


def glibc():
    """The process's C library where it is glibc (mallopt's parameter numbers are glibc's), its calls typed; else
    None."""
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018 — glibc's own symbol
    except (OSError, AttributeError):
        return None
    libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, (ctypes.c_size_t,)
    libc.free.restype, libc.free.argtypes = None, (ctypes.c_void_p,)
    libc.memset.restype, libc.memset.argtypes = ctypes.c_void_p, (ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t)
    libc.mallopt.restype, libc.mallopt.argtypes = ctypes.c_int, (ctypes.c_int, ctypes.c_int)
    return libc


def reserve_heap(size_bytes: int, libc=None) -> bool:
    """Fix glibc's mmap threshold, keep up to twice ``size_bytes`` of freed heap, and touch ``size_bytes`` of heap
    once (pieces allocated, written, freed last first: they coalesce into the heap's free top, which is then kept).
    False, with nothing changed, where ``size_bytes`` is not positive or the C library is not glibc; ``libc``: the
    library to call (default :func:`glibc`)."""
    if size_bytes <= 0:
        return False
    libc = libc or glibc()
    if libc is None:
        return False
    if not (
        libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
        and libc.mallopt(_M_TRIM_THRESHOLD, min(2 * size_bytes, _INT_MAX))  # mallopt takes a C int
    ):
        return False
    pieces = []
    for _ in range(-(-size_bytes // _PIECE_BYTES)):
        piece = libc.malloc(_PIECE_BYTES)
        if not piece:
            break
        libc.memset(piece, 0, _PIECE_BYTES)
        pieces.append(piece)
    for piece in reversed(pieces):
        libc.free(piece)
    return bool(pieces)


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
        reserve_heap(settings.HEAP_RESERVE_MB * 2**20)
        return True
