"""How far a compressed input may inflate: one bound for every compressed file ambiglib reads (a ``.jsonl.gz`` log,
an Inspect ``.eval`` log's members, the pages of a Parquet file), set by one variable, ``AMBIGLIB_MAX_INFLATED``.

A small file can hold a great deal: gzip inflates up to about 1,000 times, Zstandard and Parquet's encodings
further. Bounding only the compressed size (and each record) let a 490 KB ``.jsonl.gz`` take 11-24 s and 1.3 GB
to read. So by default a file may inflate to :data:`RATIO` times its compressed size, never less than
:data:`FLOOR` (a small log is never refused for compressing well) and never more than :data:`MAX_INFLATED`. Real
logs compress 2 to 61 times (``docs/performance.md``); the ratio leaves them three times that. A size given in
``AMBIGLIB_MAX_INFLATED`` (bytes, or with K, M, G, T) replaces the whole rule: every file may inflate to it.
"""

from __future__ import annotations

import gzip
import os
import re
import struct
from typing import Any, BinaryIO

from ambiglib.errors import FormatError

__all__ = ["RATIO", "FLOOR", "MAX_INFLATED", "ENV", "max_inflated", "refusal", "Bounded", "open_gzip", "check_parquet"]

#: what a compressed file may inflate to, as a multiple of its compressed size (unless AMBIGLIB_MAX_INFLATED is set)
RATIO = 200
#: what any compressed file may inflate to, however small
FLOOR = 64 << 20
#: what no compressed file inflates past by default, however large
MAX_INFLATED = 16 << 30
#: the variable that sets the bound
ENV = "AMBIGLIB_MAX_INFLATED"
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def _setting() -> int | None:
    """The size ``AMBIGLIB_MAX_INFLATED`` gives, or None when it is not set."""
    text = os.environ.get(ENV, "").strip()
    if not text:
        return None
    m = re.fullmatch(r"(\d{1,15})\s*([KMGT]?)(?:i?B)?", text, re.IGNORECASE)
    if not m:
        raise FormatError(f"environment variable {ENV}: expected a size such as 32G or 34359738368 (bytes),"
                          f" found {text[:40]!r}")
    return int(m.group(1)) * _UNITS[m.group(2).upper()]


def max_inflated(compressed: int | None = None) -> int:
    """The most a file of ``compressed`` bytes may inflate to: ``AMBIGLIB_MAX_INFLATED`` when set, else
    :data:`RATIO` times ``compressed`` within [:data:`FLOOR`, :data:`MAX_INFLATED`] (``MAX_INFLATED`` when the
    compressed size is not known)."""
    set_ = _setting()
    if set_ is not None:
        return set_
    if compressed is None:
        return MAX_INFLATED
    return min(MAX_INFLATED, max(FLOOR, RATIO * compressed))


def refusal(compressed: int | None, limit: int) -> str:
    """What a refusal says after what was found: the bound, where it comes from, and how to raise it."""
    if _setting() is not None:
        rule = f"{ENV}"
    elif compressed is None or limit in (FLOOR, MAX_INFLATED):
        rule = (f"{RATIO} times its compressed size, at least {FLOOR:,} and at most {MAX_INFLATED:,} bytes;"
                f" {ENV} sets it")
    else:
        rule = f"{RATIO} times its {compressed:,} compressed bytes; {ENV} sets it"
    return (f"ambiglib reads up to {limit:,} bytes of one compressed file ({rule}). If the file is genuine, raise the"
            f" limit: {ENV}=64G (or any size) in the environment")


class Bounded:
    """A decompressing stream (gzip) that stops with a FormatError naming ``display`` once more than ``limit``
    bytes have come out of it: the bound is checked as the file is read, so a bomb costs no more than the bound."""

    def __init__(self, fh: Any, display: object, compressed: int | None, limit: int | None = None):
        self._fh, self._display, self._compressed = fh, display, compressed
        self.limit = max_inflated(compressed) if limit is None else limit
        self.inflated = 0

    def _count(self, data: bytes, passed: int = 0) -> bytes:
        self.inflated += len(data) + passed
        if self.inflated > self.limit:
            source = f" from {self._compressed:,} compressed" if self._compressed is not None else ""
            raise FormatError(f"{self._display}: inflates to more than {self.limit:,} bytes{source}; "
                              + refusal(self._compressed, self.limit))
        return data

    def _most(self, size: int | None) -> int:
        """A read's size, never past the bound and one byte: the count trips before the stream can say more (a
        gzip member's end checks its length; a forged one would be named instead of the bound)."""
        room = max(self.limit - self.inflated, 0) + 1
        return room if size is None or size < 0 else min(size, room)

    def read(self, size: int = -1) -> bytes:
        return self._count(self._fh.read(self._most(size)))

    def readline(self, size: int = -1) -> bytes:
        return self._count(self._fh.readline(self._most(size)))

    def seek(self, offset: int, whence: int = 0) -> int:
        """Seek forward from the start (what a gzip stream can do): the bytes passed over count as read."""
        if whence != 0:
            raise ValueError("a bounded stream seeks from its start only")
        self._count(b"", max(0, offset - self.inflated))  # refused before inflating past the bound
        return int(self._fh.seek(offset))

    def tell(self) -> int:
        return int(self._fh.tell())

    def readable(self) -> bool:
        return True

    def __enter__(self) -> Bounded:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._fh.close()

    @property
    def closed(self) -> bool:
        return bool(self._fh.closed)


def open_gzip(raw: BinaryIO, display: object) -> Bounded:
    """A gzip file open for reading (``raw``: the compressed file, seekable), bounded by :func:`max_inflated` of its
    size and counted as it is read. When its trailer (the last member's size, modulo 4 GiB) says it inflates past
    the bound, it is first inflated up to the bound without being kept: an honest bomb is refused before any of it
    is parsed, and a damaged file (whose last bytes are no trailer) still fails as damaged."""
    compressed = os.fstat(raw.fileno()).st_size
    limit = max_inflated(compressed)
    if compressed >= 18:  # the smallest gzip member: a 10-byte header, an empty deflate block, the 8-byte trailer
        raw.seek(compressed - 4)
        (recorded,) = struct.unpack("<I", raw.read(4))
        raw.seek(0)
        if recorded > limit:
            seen = 0
            with gzip.GzipFile(fileobj=raw, mode="rb") as probe:  # (closing it leaves ``raw`` open)
                while seen <= limit and (piece := probe.read(min(1 << 20, limit + 1 - seen))):
                    seen += len(piece)
            if seen > limit:
                raise FormatError(f"{display}: inflates to more than {limit:,} bytes (its gzip trailer records"
                                  f" {recorded:,}; from {compressed:,} compressed); " + refusal(compressed, limit))
            raw.seek(0)
    return Bounded(gzip.GzipFile(fileobj=raw, mode="rb"), display, compressed, limit)


#: the bytes of one value of each Parquet physical type, decoded (a BYTE_ARRAY: its 4-byte offset, at least)
_WIDTH = {"BOOLEAN": 1, "INT32": 4, "INT64": 8, "INT96": 12, "FLOAT": 4, "DOUBLE": 8, "BYTE_ARRAY": 4}


def check_parquet(metadata: Any, display: object, compressed: int) -> None:
    """Refuse a Parquet file whose pages would decode past the bound, from its footer alone (``metadata``:
    ``pyarrow.parquet.FileMetaData``; ``compressed``: the file's size), before any page is read.

    Each row group counts at least the larger of what its footer says its columns inflate to
    (``total_byte_size``) and its rows at their columns' decoded width (run-length and dictionary encodings
    inflate too: a million equal integers take a few bytes). Read from the row groups and the schema, never from
    a column chunk's own metadata: pyarrow decodes a chunk's statistics as it builds it, and a damaged footer's
    then aborted the process (an exception its binding does not catch; found by the fuzzer). A FormatError names
    the file and the bound."""
    limit = max_inflated(compressed)
    schema = metadata.schema
    per_row = sum(_WIDTH.get(str(schema.column(j).physical_type), 1) for j in range(len(schema)))
    total = 0
    for i in range(metadata.num_row_groups):
        group = metadata.row_group(i)
        total += max(int(group.total_byte_size), int(group.num_rows) * per_row)
        if total > limit:
            break
    if total > limit:
        raise FormatError(f"{display}: its pages decode to at least {total:,} bytes (as its footer records them,"
                          f" from {compressed:,} bytes in the file); " + refusal(compressed, limit))
