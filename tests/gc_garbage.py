"""What a piece of code leaves to CPython's cyclic collector: the objects only a collection would free."""

from __future__ import annotations

import gc
from collections.abc import Callable
from contextlib import contextmanager


@contextmanager
def cyclic_garbage() -> Callable[[], list]:
    """Inside: no collection runs; after it, ``found()`` is every object the code inside left in reference cycles
    (what ``gc.collect`` would have freed), kept for inspection."""
    found: list = []
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield lambda: found
    finally:
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            found.extend(gc.garbage)
            gc.garbage.clear()
        finally:
            gc.set_debug(0)
            if was_enabled:
                gc.enable()
