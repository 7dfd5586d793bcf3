"""What an engine reads of a store: each frame's Parquet files, its partition columns, and the columns and
types the queries use (partition values are text in every engine, as they were written)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

import pyarrow.parquet as pq

from ambiglib.errors import FormatError
from ambiglib.runlog import is_parquet_store

#: per frame, the columns the queries read and their SQL types (``_row``: the row's place in its frame)
COLUMNS: dict[str, dict[str, str]] = {
    "runs": {"run_id": "STRING", "benchmark": "STRING", "suite": "STRING", "task_id": "STRING",
             "variant_id": "STRING", "model": "STRING", "spec": "STRING", "ask_tool": "BOOLEAN",
             "policy": "STRING", "protocol": "STRING", "trial": "BIGINT", "log": "STRING", "status": "STRING",
             "score": "DOUBLE", "passed": "BOOLEAN", "category": "STRING", "n_questions": "BIGINT",
             "_row": "BIGINT"},
    "questions": {"run_id": "STRING", "q_index": "BIGINT", "blocker_id": "STRING", "relevant": "BOOLEAN",
                  "attributed": "BOOLEAN", "_row": "BIGINT"},
    "tasks": {"benchmark": "STRING", "suite": "STRING", "task_id": "STRING", "variant_id": "STRING",
              "n_blockers": "BIGINT", "_row": "BIGINT"},
    "blockers": {"benchmark": "STRING", "suite": "STRING", "task_id": "STRING", "variant_id": "STRING",
                 "blocker_id": "STRING", "_row": "BIGINT"},
}


@dataclass(frozen=True)
class Part:
    """One Parquet file of a frame and the partition values its folders give (decoded, as written)."""

    file: Path
    values: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Frame:
    """A frame of the store: its name, its files, and which of its columns live in folder names."""

    name: str
    parts: tuple[Part, ...]
    partitions: tuple[str, ...]

    @property
    def columns(self) -> dict[str, str]:
        """The columns the queries read, with their SQL types."""
        return COLUMNS[self.name]


def frames_of(store: Path) -> dict[str, Frame]:
    """The four frames the metrics read, from a store written by ``RunSet.to_parquet(partition_by=...)``; a
    folder that is no such store is a FormatError naming it. Files are listed by us, inside the store (a link
    that leads out of it is refused), never found by an engine's glob."""
    if not is_parquet_store(store):
        raise FormatError(f"{store}: not a partitioned Parquet store (RunSet.to_parquet(path, partition_by=...) or"
                          " `ambiglib convert --partition-by` writes one); an engine reads only a store")
    root = store.resolve()
    out = {}
    for name in COLUMNS:
        folder = store / name
        try:
            schema = pq.read_schema(folder / "_common_metadata")
        except (OSError, ValueError) as exc:
            raise FormatError(f"{folder / '_common_metadata'}: cannot be read ({exc}); the store is damaged:"
                              " write it again") from None
        parts, partitions = [], None
        for file in sorted(folder.rglob("*.parquet")):
            rel = file.relative_to(folder)
            if any(p.startswith((".", "_")) for p in rel.parts):
                continue
            if root not in file.resolve().parents:
                raise FormatError(f"{file}: leads out of the store {store}; refused")
            values = tuple((k, unquote(v, errors="strict")) for k, _, v in (p.partition("=") for p in rel.parts[:-1]))
            keys = tuple(k for k, _ in values)
            if partitions is None:
                partitions = keys
            elif keys != partitions:
                raise FormatError(f"{file}: partitioned by {list(keys)} where the store's other files are"
                                  f" partitioned by {list(partitions)}; write the store again")
            parts.append(Part(file, values))
        missing = [c for c in COLUMNS[name] if c != "_row" and c not in schema.names]
        if missing:
            raise FormatError(f"{folder}: the frame has no column(s) {missing}; it is not a run log's {name}")
        out[name] = Frame(name, tuple(parts), tuple(partitions or ()))
    return out
