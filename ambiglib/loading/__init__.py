"""``ambiglib.load``: the readers asked which claims a path (:func:`find_logs`, one walk of a folder), each log read
by its reader, several logs merged (:func:`merge`) and labelled, and everything checked in one place."""

from __future__ import annotations

from typing import Any

from ambiglib import _moved
from ambiglib.loading._discovery import Found, find_logs
from ambiglib.loading._load import load
from ambiglib.loading._merging import Origin, merge

__all__ = ["load", "find_logs", "Found", "merge", "Origin"]


def __getattr__(name: str) -> Any:
    """``LAYOUTS`` and ``Layout``, moved to ``ambiglib.importers`` (``READERS``, ``Reader``), and the other names
    ``ambiglib.loading`` had as a module, each with a warning."""
    return _moved.attribute(__name__, name, "ambiglib.loading._load")
