"""The canonical run log: its contract (version 1), and its files — JSON Lines, Parquet, a partitioned store, the
report's snapshot — each read back exactly as written, and written whole or not at all.

The contract is ``docs/runlog-v1.md``'s: :data:`RUN_FIELDS` and :data:`TASK_FIELDS` name every field, its type and
rule; :func:`validate_record` checks one record and names the field that breaks a rule; :func:`runlog_schema` is the
same contract as JSON Schema. A whole log is read with :func:`ambiglib.load`; these are the pieces it is made of.
"""

from __future__ import annotations

from typing import Any

from ambiglib import _moved
from ambiglib.runlog._filters import Filters
from ambiglib.runlog._frames import COLUMNS, build_tables, run_id_of
from ambiglib.runlog._inflation import MAX_INFLATED, max_inflated
from ambiglib.runlog._json_schema import runlog_schema, schema_text
from ambiglib.runlog._jsonl import JSONL_SUFFIXES, MAX_FILE_BYTES, MAX_RECORD_BYTES, read_file, write_jsonl
from ambiglib.runlog._memory import c_allocator
from ambiglib.runlog._parquet import (
    is_parquet_runlog,
    is_parquet_store,
    read_parquet_tables,
    read_store_tables,
    write_parquet,
    write_store,
)
from ambiglib.runlog._schema import (
    FRAMES,
    RUN_FIELDS,
    RUN_KEY,
    RUNLOG_VERSION,
    TASK_FIELDS,
    TASK_KEY,
    Field,
    RecordError,
    validate_record,
)
from ambiglib.runlog._snapshot import SNAPSHOT_FILE, is_snapshot, read_snapshot, write_snapshot
from ambiglib.runlog._validity import table_is_valid

__all__ = [
    "RUNLOG_VERSION", "FRAMES", "RUN_FIELDS", "TASK_FIELDS", "RUN_KEY", "TASK_KEY", "Field", "RecordError",
    "validate_record", "table_is_valid", "runlog_schema", "schema_text", "COLUMNS", "build_tables", "run_id_of",
    "Filters", "JSONL_SUFFIXES", "MAX_RECORD_BYTES", "MAX_FILE_BYTES", "read_file", "write_jsonl",
    "is_parquet_runlog", "is_parquet_store", "read_parquet_tables", "read_store_tables", "write_parquet",
    "write_store", "SNAPSHOT_FILE", "is_snapshot", "read_snapshot", "write_snapshot", "MAX_INFLATED",
    "max_inflated", "c_allocator",
]


def __getattr__(name: str) -> Any:
    """A name ``ambiglib.runlog`` had as a module (its JSON Lines reading), with a warning."""
    return _moved.attribute(__name__, name, "ambiglib.runlog._jsonl")
