"""The five frames built from checked records, as Arrow tables: their columns, run ids, the runs' questions and
labels and the tasks' blockers flattened, defaults filled in, repeated run and task keys rejected (naming both
places). :func:`ambiglib.runset.build_runset` makes a RunSet of them."""

from __future__ import annotations

import json
import os
from typing import Any, cast

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ambiglib.errors import LoadError
from ambiglib.runlog._jsonl import FileRead
from ambiglib.runlog._schema import (
    DEFAULT_CALL,
    DEFAULT_JUDGE,
    DEFAULT_POLICY,
    DEFAULT_PROTOCOL,
    DEFAULT_STATUS,
    DEFAULT_TRIAL,
    FILE_SCHEMA,
    IN_RECORD,
    RUN_KEY,
    TASK_KEY,
)

__all__ = ["COLUMNS", "build_tables", "with_log", "run_id_of"]


#: The columns of each frame, in order.
COLUMNS: dict[str, tuple[str, ...]] = {
    "runs": (
        "run_id", "benchmark", "suite", "task_id", "variant_id", "model", "spec", "ask_tool",
        "policy", "protocol", "trial", "log", "status", "score", "passed", "checkpoints", "category",
        "n_questions", "n_labels", "cost_usd", "tokens_in", "tokens_out", "steps", "duration_s",
        "meta", "source", "transcript_at",
    ),
    "questions": (
        "run_id", "q_index", "text", "blocker_id", "relevant", "response", "step", "in_scope", "attributed",
        "parts",
    ),
    "labels": ("run_id", "facet", "judge", "call", "label", "q_index"),
    "tasks": (
        "benchmark", "suite", "task_id", "variant_id", "n_blockers", "ambiguity_class",
        "dimensions", "strategy", "meta", "source",
    ),
    "blockers": ("benchmark", "suite", "task_id", "variant_id", "blocker_id", "type", "subtype"),
}


_WHOLE_CHECKPOINTS = pa.list_(pa.struct([("result", pa.int64()), ("total", pa.int64())]))


def _frame(table: pa.Table) -> pd.DataFrame:
    if "checkpoints" in table.column_names:
        table = table.set_column(table.column_names.index("checkpoints"), "checkpoints",
                                 _whole_checkpoints(table.column("checkpoints")))
    return table.to_pandas(types_mapper=pd.ArrowDtype, ignore_metadata=True)


def _whole_checkpoints(col: pa.ChunkedArray) -> pa.ChunkedArray:
    """Checkpoint points as integers when every one is a whole number (TheAgentCompany's are: ``2``, not ``2.0``);
    the log's numbers otherwise. The runlog allows any number, so the stored type stays a float."""
    if not pa.types.is_list(col.type) or col.type.value_type == _WHOLE_CHECKPOINTS.value_type:
        return col
    flat = pc.list_flatten(col)
    for field in ("result", "total"):
        values = pc.struct_field(flat, field)
        if values.null_count or pc.any(pc.or_(pc.not_equal(values, pc.floor(values)),
                                              pc.greater(values, 2.0 ** 53))).as_py():
            return col
    return col.cast(_WHOLE_CHECKPOINTS)


def _coalesce(arr: pa.ChunkedArray, default: object) -> pa.ChunkedArray:
    return pc.fill_null(arr, pa.scalar(default, arr.type)) if arr.null_count else arr


def _escape(arr: pa.ChunkedArray) -> pa.ChunkedArray:
    arr = pc.cast(arr, pa.string())
    if not _may_hold(arr, b"%|"):
        return arr
    return pc.replace_substring(pc.replace_substring(arr, "%", "%25"), "|", "%7C")


def _may_hold(arr: pa.ChunkedArray | pa.Array, chars: bytes) -> bool:
    """Whether a text column's bytes hold any of ``chars`` (one byte each): its data buffers are scanned
    whole, a few times faster than a substring search row by row. A sliced chunk's buffer can hold bytes
    outside its rows: those can only say True where the rows hold none, never the other way."""
    chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
    for chunk in chunks:
        data = chunk.buffers()[2]
        if data is None or not data.size:
            continue
        values = np.frombuffer(data, dtype=np.uint8)
        if any(bool((values == c).any()) for c in chars):
            return True
    return False


def _run_ids(runs: pa.Table) -> pa.ChunkedArray:
    """``benchmark|suite|variant_id|model|spec|tool-or-notool|policy|protocol|trial``, then ``|log`` for a run
    that names its log (:func:`with_log`): a run of a log loaded alone keeps the id it always had, and one of two
    logs loaded together differs from its twin in the other log. Ids stay one to one with keys: every ``|``
    inside a value is escaped, so an id of ten parts is never one of nine."""
    parts = []
    for name in RUN_KEY:
        if name == "log":
            continue
        col = runs.column(name)
        if name == "ask_tool":
            col = pc.if_else(col, "tool", "notool")
        parts.append(_escape(col))
    ids = pc.binary_join_element_wise(*parts, "|")
    log = runs.column("log")
    return ids if log.null_count == len(log) else with_log(ids, log)


def run_id_of(record: dict[str, Any]) -> str | None:
    """The run id a canonical run record is loaded with (as a log loaded alone gives it), by :func:`_run_ids`
    itself; None when its key fields are not of their types. What tells a record read again (a transcript's) from
    the one loaded."""
    row: dict[str, Any] = {k: record.get(k) for k in RUN_KEY}
    if row["variant_id"] is None:
        row["variant_id"] = record.get("task_id")
    for name, default in (("policy", DEFAULT_POLICY), ("protocol", DEFAULT_PROTOCOL), ("trial", DEFAULT_TRIAL)):
        if row[name] is None:
            row[name] = default
    row["log"] = None
    types = {"ask_tool": pa.bool_(), "trial": pa.int64()}
    try:
        table = pa.table({k: pa.array([v], types.get(k, pa.string())) for k, v in row.items()})
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        return None
    return cast("str | None", _run_ids(table)[0].as_py())


def with_log(ids: pa.ChunkedArray | pa.Array, log: pa.ChunkedArray | pa.Array | str) -> pa.ChunkedArray:
    """Run ids (as a log loaded alone gives them) with each run's log appended, ``...|trial|log`` (escaped as
    every part is); an id whose log is null is left as it is."""
    if isinstance(log, str):
        log = pa.array([log] * len(ids), pa.string())
    log = pa.chunked_array([log]) if isinstance(log, pa.Array) else log
    ids = pa.chunked_array([ids]) if isinstance(ids, pa.Array) else ids
    joined = pc.binary_join_element_wise(ids, _escape(log), "|")  # null where the log is
    return pc.coalesce(joined, ids)


def _is_task(table: pa.Table) -> pa.ChunkedArray:
    return pc.fill_null(pc.equal(table.column("record"), "task"), False)


def _duplicates(frame: pd.DataFrame, key: tuple[str, ...], sources: pd.Series, what: str,
                record: str) -> tuple[np.ndarray, list[LoadError]]:
    """Flag later repeats of a key; the error names the line of the first."""
    dup = frame.duplicated(list(key), keep="first").to_numpy()
    errors: list[LoadError] = []
    if not dup.any():
        return dup, errors
    first = frame.groupby(list(key), sort=False, dropna=False).cumcount().to_numpy() == 0
    firsts = frame[first].assign(_src=sources[first].to_numpy())
    first_src = dict(zip(map(tuple, firsts[list(key)].astype(object).to_numpy()), firsts["_src"]))
    for i in np.flatnonzero(dup):
        values = tuple(frame.iloc[i][list(key)].astype(object))
        shown = ", ".join(  # (a run of a log loaded alone names no log: the key is shown as it always was)
            f"{k}={('true' if v else 'false') if isinstance(v, (bool, np.bool_)) else repr(v)}"
            for k, v in zip(key, values) if not (k == "log" and pd.isna(v))
        )
        src = str(sources.iloc[i])
        file, _, line = src.rpartition(":")
        errors.append(LoadError(
            file, int(line), None,
            f"{src}: duplicate {what} ({shown}): first seen at {first_src[values]}",
            "schema", record,  # type: ignore[arg-type]
        ))
    return dup, errors


def build_tables(reads: list[FileRead]) -> tuple[dict[str, pa.Table], list[LoadError]]:
    """The five frames, as Arrow tables, of the records read from files; repeated keys rejected."""
    tables, _, errors = _build_tables(reads)
    return tables, errors


def _build_tables(reads: list[FileRead], *, let_go: bool = False
                  ) -> tuple[dict[str, pa.Table], dict[str, np.ndarray], list[LoadError]]:
    """:func:`build_tables`, and the run row of each question and label row.

    Repeated keys are found over all reads first; then each read's records become their rows of the five frames
    before the next read's do. With ``let_go`` each read's table is let go once they have (``read.table`` is
    left empty), so that a load does not hold its records twice, as records and as frames, while the frames are
    built (docs/performance.md)."""
    kept = [read for read in reads if read.table.num_rows]
    parts: list[Any] = [_split(read) for read in kept] or [_split(FileRead("<empty>", FILE_SCHEMA.empty_table()))]
    errors: list[LoadError] = []
    for which, key, what, record in ((0, RUN_KEY, "run key", "run"), (1, TASK_KEY, "task record", "task")):
        keys = pa.concat_tables([p[which].select([*key, "source"]) for p in parts])
        dup, dup_errors = _duplicates(_frame(keys.select(list(key))), key, _frame(keys.select(["source"]))["source"],
                                      what, record)
        del keys
        if dup.any():
            starts = np.cumsum([0, *(p[which].num_rows for p in parts)])
            for i, part in enumerate(parts):
                part[which] = part[which].filter(pa.array(~dup[starts[i]:starts[i + 1]]))
            errors += dup_errors
    pieces, n_runs = [], 0
    for i, (runs, tasks) in enumerate(parts):
        parts[i] = None  # this read's runs and tasks are held by the loop alone, and let go with its frame rows
        pieces.append(_assemble(runs, tasks, n_runs))
        n_runs += runs.num_rows
        del runs, tasks
        if let_go and i < len(kept):
            kept[i].table = kept[i].table.slice(0, 0)
    tables = {name: pa.concat_tables([p[0][name] for p in pieces]) for name in COLUMNS}
    links = {name: np.concatenate([p[1][name] for p in pieces]) for name in ("questions", "labels")}
    return tables, links, errors


def _split(read: FileRead) -> list[pa.Table]:
    """One read's runs and tasks, defaults filled in and sources named."""
    table = read.table
    if read.n_task_records:
        is_task = _is_task(table)
        runs, tasks = table.filter(pc.invert(is_task)), table.filter(is_task)
    else:  # the common case, a file of runs: no copy
        runs, tasks = table, table.slice(0, 0)
    runs = runs.set_column(
        runs.schema.get_field_index("variant_id"), "variant_id",
        pc.coalesce(runs.column("variant_id"), runs.column("task_id")),
    )
    for name, default in (("policy", DEFAULT_POLICY), ("protocol", DEFAULT_PROTOCOL),
                          ("trial", DEFAULT_TRIAL), ("status", DEFAULT_STATUS)):
        i = runs.schema.get_field_index(name)
        runs = runs.set_column(i, name, _coalesce(runs.column(name), default))
    tasks = tasks.set_column(
        tasks.schema.get_field_index("variant_id"), "variant_id",
        pc.coalesce(tasks.column("variant_id"), tasks.column("task_id")),
    )
    if read.sources is None:
        runs = _in_record_located(runs, read.file, read.stamp)
        return [t.append_column("source", _sources(read.file, t.column("_line"))) for t in (runs, tasks)]
    # a read of several files: each record's own (runlog.read_small_files)
    files = pc.cast(read.sources, pa.string())
    if read.n_task_records:
        files = [files.filter(pc.invert(is_task)), files.filter(is_task)]
    else:
        files = [files, files.slice(0, 0)]
    return [t.append_column("source", _sources(f, t.column("_line"))) for t, f in zip((runs, tasks), files)]


def _in_record_located(runs: pa.Table, file: str, stamp: dict[str, int] | None = None) -> pa.Table:
    """``transcript_at`` of the records that hold their own transcript: the file (as an absolute path, read again
    from any folder), its size and modification time as loaded (``stamp``: a file changed since is not read) and
    the line."""
    if "transcript_at" not in runs.column_names:  # records read from a frame that keeps no locators
        return runs.append_column("transcript_at", pa.nulls(runs.num_rows, pa.string()))
    at = runs.column("transcript_at")
    if at.null_count == len(at):
        return runs
    # the reader's own: '{"offset": N, "reader": "runlog"}' (runlog._in_record), or without the offset
    mine = pc.fill_null(pc.or_(pc.starts_with(at, '{"offset": '), pc.equal(at, IN_RECORD)), False)
    if not pc.any(mine).as_py():
        return runs
    stamped = "".join(f'"{k}": {int(v)}, ' for k, v in sorted((stamp or {}).items()))
    head = '{"file": ' + json.dumps(os.path.abspath(file), ensure_ascii=False) + ', ' + stamped + '"line": '
    located = pc.binary_join_element_wise(head, pc.cast(runs.column("_line"), pa.string()), ", ",
                                          pc.utf8_slice_codeunits(at, 1), "")  # the file, the line, then the rest
    fixed = pc.if_else(mine, located, at)
    return runs.set_column(runs.column_names.index("transcript_at"), "transcript_at", fixed)


def _sources(file: str | pa.Array, lines: pa.ChunkedArray) -> pa.ChunkedArray:
    """``file:line`` of each record (``file``: the read's, or each record's)."""
    return pc.binary_join_element_wise(file, pc.cast(lines, pa.string()), ":")


def _flatten(lists: pa.ChunkedArray) -> tuple[pa.ChunkedArray, np.ndarray, np.ndarray]:
    """Flatten a list column: values, parent row of each value, position within its list."""
    values = pc.list_flatten(lists)
    lengths = pc.fill_null(pc.list_value_length(lists), 0).to_numpy().astype(np.int64)
    parents = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    starts = np.cumsum(lengths) - lengths
    position = np.arange(len(parents), dtype=np.int64) - np.repeat(starts, lengths)
    return values, parents, position


def _assemble(runs: pa.Table, tasks: pa.Table, first_run: int) -> tuple[dict[str, pa.Table], dict[str, np.ndarray]]:
    """The five frames' rows of these runs and tasks, and the run row each question and label row was read from
    (runs numbered from ``first_run``)."""
    n = runs.num_rows
    run_id = _run_ids(runs) if n else pa.chunked_array([], pa.string())
    n_questions = pc.fill_null(pc.list_value_length(runs.column("questions")), 0)
    n_labels = pc.fill_null(pc.list_value_length(runs.column("labels")), 0)
    run_cols = {
        "run_id": run_id, "n_questions": pc.cast(n_questions, pa.int64()),
        "n_labels": pc.cast(n_labels, pa.int64()),
    }
    runs_out = pa.table({c: run_cols[c] if c in run_cols else runs.column(c)
                         for c in COLUMNS["runs"]})

    q, q_parents, position = _flatten(runs.column("questions"))
    blocker_id = pc.struct_field(q, "blocker_id")
    # a question the log does not attribute to a blocker: whether it was relevant is unknown (null), not false
    attributed = pc.fill_null(pc.struct_field(q, "attributed"), True)
    questions = pa.table({
        "run_id": run_id.take(pa.array(q_parents)),
        "q_index": pa.array(position),
        "text": pc.struct_field(q, "text"),
        "blocker_id": blocker_id,
        "relevant": pc.if_else(attributed, pc.is_valid(blocker_id), pa.scalar(None, pa.bool_())),
        "response": pc.struct_field(q, "response"),
        "step": pc.struct_field(q, "step"),
        "in_scope": pc.struct_field(q, "in_scope"),
        "attributed": attributed,
        "parts": pc.struct_field(q, "parts"),
    })
    lab, l_parents, _ = _flatten(runs.column("labels"))
    labels = pa.table({
        "run_id": run_id.take(pa.array(l_parents)),
        "facet": pc.struct_field(lab, "facet"),
        "judge": pc.fill_null(pc.struct_field(lab, "judge"), DEFAULT_JUDGE),
        "call": pc.fill_null(pc.struct_field(lab, "call"), DEFAULT_CALL),
        "label": pc.struct_field(lab, "label"),
        "q_index": pc.struct_field(lab, "q_index"),
    })

    n_blockers = pc.cast(pc.fill_null(pc.list_value_length(tasks.column("blockers")), 0), pa.int64())
    tasks_out = pa.table({
        c: n_blockers if c == "n_blockers" else tasks.column(c) for c in COLUMNS["tasks"]
    })
    b, parents, _ = _flatten(tasks.column("blockers"))
    take = pa.array(parents)
    blockers = pa.table({
        "benchmark": tasks.column("benchmark").take(take),
        "suite": tasks.column("suite").take(take),
        "task_id": tasks.column("task_id").take(take),
        "variant_id": tasks.column("variant_id").take(take),
        "blocker_id": pc.struct_field(b, "id"),
        "type": pc.struct_field(b, "type"),
        "subtype": pc.struct_field(b, "subtype"),
    })
    return ({"runs": runs_out, "questions": questions, "labels": labels, "tasks": tasks_out, "blockers": blockers},
            {"questions": q_parents + first_run, "labels": l_parents + first_run})
