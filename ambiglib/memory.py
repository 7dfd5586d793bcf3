"""Which allocator Arrow's memory comes from while a log read from JSON becomes frames.

Arrow allocates from mimalloc by default. JSON parsed by Python (every importer) frees into the C library's heap,
and Arrow's own JSON reader runs in threads whose freed blocks mimalloc keeps per thread: either way the pages
freed are not those Arrow allocates next, and a load's peak holds both. Allocated from the C library, the records
and the frames reuse those pages. ``bench/load.py``, peak memory against the frames' Arrow size: JSON Lines,
1,000,000 runs, 1.62-2.06x (12 processes) -> 1.41x; 100,000 runs x 10 questions, 1.59-1.73x -> 1.22x; Inspect
logs of 100,800 runs, over inspect-ai's imports, 2.75x -> 1.65x (with the frames built read by read). The loads
take the same time. Parquet folders and stores keep Arrow's default: they are within 2x with it, and a store
reads ~25% slower from the C library's allocator (0.79 -> 1.01 s at 516,000 runs).
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

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
