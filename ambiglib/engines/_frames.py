"""What an engine reads of a store: each frame's Parquet files, its partition columns, and the columns and
types the queries use (partition values are text in every engine, as they were written)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from ambiglib.errors import FormatError
from ambiglib.runlog import is_parquet_store
from ambiglib.runlog._parquet import store_parts

#: per frame, the columns the queries read and their SQL types (``_row``: the row's place in its frame): every
#: scalar field of the contract (:mod:`ambiglib.engines._fields` checks them all), not its objects and lists
COLUMNS: dict[str, dict[str, str]] = {
    "runs": {"run_id": "STRING", "benchmark": "STRING", "suite": "STRING", "task_id": "STRING",
             "variant_id": "STRING", "model": "STRING", "spec": "STRING", "ask_tool": "BOOLEAN",
             "policy": "STRING", "protocol": "STRING", "trial": "BIGINT", "log": "STRING", "status": "STRING",
             "score": "DOUBLE", "passed": "BOOLEAN", "category": "STRING", "n_questions": "BIGINT",
             "n_labels": "BIGINT", "cost_usd": "DOUBLE", "tokens_in": "DOUBLE", "tokens_out": "DOUBLE",
             "steps": "DOUBLE", "duration_s": "DOUBLE", "meta": "STRING", "_row": "BIGINT"},
    "questions": {"run_id": "STRING", "q_index": "BIGINT", "text": "STRING", "blocker_id": "STRING",
                  "relevant": "BOOLEAN", "response": "STRING", "step": "BIGINT", "in_scope": "BOOLEAN",
                  "attributed": "BOOLEAN", "parts": "BIGINT", "_row": "BIGINT"},
    "labels": {"run_id": "STRING", "facet": "STRING", "judge": "STRING", "call": "BIGINT", "label": "STRING",
               "q_index": "BIGINT", "_row": "BIGINT"},
    "tasks": {"benchmark": "STRING", "suite": "STRING", "task_id": "STRING", "variant_id": "STRING",
              "n_blockers": "BIGINT", "ambiguity_class": "STRING", "strategy": "STRING", "_row": "BIGINT"},
    "blockers": {"benchmark": "STRING", "suite": "STRING", "task_id": "STRING", "variant_id": "STRING",
                 "blocker_id": "STRING", "type": "STRING", "subtype": "STRING", "_row": "BIGINT"},
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
    rows: int

    @property
    def columns(self) -> dict[str, str]:
        """The columns the queries read, with their SQL types."""
        return COLUMNS[self.name]


def frames_of(store: Path) -> dict[str, Frame]:
    """The four frames the metrics read, from a store written by ``RunSet.to_parquet(path, partition_by=...)``,
    after the checks ``ambiglib.load`` makes before it reads a row (:func:`~ambiglib.runlog._parquet.store_parts`:
    one write, every listed part there and no other file, each part's rows, write id and column types; the same
    messages). A folder that is no store is a FormatError naming it."""
    if not is_parquet_store(store):
        raise FormatError(f"{store}: not a partitioned Parquet store (RunSet.to_parquet(path, partition_by=...) or"
                          " `ambiglib convert --partition-by` writes one); an engine reads only a store")
    out = {}
    for name, (files, partitions, rows) in store_parts(store).items():
        if name not in COLUMNS:
            continue
        folder = store / name
        parts = []
        for file in files:  # hive folder names, percent-encoded by the writer: decoded here, as text
            segments = file.relative_to(folder).parts[:-1]
            values = tuple((k, unquote(v, errors="strict")) for k, _, v in (p.partition("=") for p in segments))
            if tuple(k for k, _ in values) != partitions:
                raise FormatError(f"{file}: in folders {list(segments)} where the store is partitioned by"
                                  f" {list(partitions)}; write the store again")
            parts.append(Part(file, values))
        out[name] = Frame(name, tuple(parts), partitions, rows)
    return out
