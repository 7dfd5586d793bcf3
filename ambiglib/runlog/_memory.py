"""Which allocator Arrow's memory comes from while a log read from JSON becomes frames.

Arrow allocates from mimalloc by default. JSON parsed by Python (every importer) frees into the C library's heap,
and Arrow's own JSON reader runs in threads whose freed blocks mimalloc keeps per thread: either way the pages
freed are not those Arrow allocates next, and a load's peak holds both. Allocated from the C library, the records
and the frames reuse those pages: loads of JSON Lines and of Inspect logs peak lower, in the same time
(``bench/load.py``; docs/performance.md). Parquet folders and stores keep Arrow's default: their peak is within
the 2x goal with it, and a store reads slower from the C library's allocator.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pyarrow as pa

__all__ = ["c_allocator"]

_lock = threading.Lock()
_depth = 0
_before: pa.MemoryPool | None = None


@contextmanager
def c_allocator() -> Iterator[None]:
    """Arrow's default allocator is the C library's while this runs (nested and in threads: until the last
    leaves), then whatever it was before."""
    global _depth, _before
    with _lock:
        if _depth == 0:
            _before = pa.default_memory_pool()
            pa.set_memory_pool(pa.system_memory_pool())
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                pa.set_memory_pool(_before)
                _before = None
