"""What tells a part of a log read again after the load (a run's transcript) from the part the load read: the
file's size and modification time, and the SHA-256 of the record's line."""

from __future__ import annotations

import hashlib
import os

__all__ = ["file_stamp", "line_digest"]


def line_digest(raw: bytes) -> str:
    """The SHA-256 of a record's line, its ``\\n`` aside: what tells, when a transcript is read again, that the line
    at its offset is the record loaded (``ambiglib.transcripts``)."""
    return hashlib.sha256(raw[:-1] if raw.endswith(b"\n") else raw).hexdigest()


def file_stamp(st: os.stat_result) -> dict[str, int]:
    """A file's size and modification time, as a load records them for a part of the file read later."""
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}
