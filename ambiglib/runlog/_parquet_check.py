"""A Parquet run log meets the same contract as JSON Lines.

The five frames read from a ``RunSet.to_parquet`` folder are turned back into the
records they hold (one per row of ``runs.parquet`` and ``tasks.parquet``, with their
questions, labels and blockers nested), and those records go through the same two
validators as a JSON Lines file: :func:`ambiglib.runlog.table_is_valid` for the whole
table at once and, when it says no, :func:`ambiglib.runlog.validate_record` row by
row, whose messages name ``runs.parquet:<row>`` and the field. The run set built from
the records must then equal the stored frames in every derived column (``run_id``,
``n_questions``, ``q_index``, ``relevant``, ...): a frame edited by hand or damaged
on disk is an error, never a silently different log.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ambiglib.errors import FormatError, LoadError
from ambiglib.runlog._jsonl import FRAMES, TRANSCRIPT_AT, FileRead, _strict_loads, read_records
from ambiglib.runlog._schema import (
    BLOCKER_TYPE,
    FILE_SCHEMA,
    INPUT_SCHEMA,
    LABEL_TYPE,
    QUESTION_TYPE,
    RUN_KEY,
    TASK_KEY,
    RecordError,
    meta_text,
)
from ambiglib.runlog._validity import Flat, _no_repeats, one_array, table_is_valid, take_rising

__all__ = ["check_tables"]


@lru_cache(maxsize=1)
def _expected() -> dict[str, pa.Schema]:
    """The Arrow schema of each frame, as ``RunSet.to_parquet`` writes it."""
    from ambiglib.runset import build_runset

    empty, _ = build_runset([FileRead("<empty>", FILE_SCHEMA.empty_table())])
    return {name: pa.Schema.from_pandas(getattr(empty, name), preserve_index=False).remove_metadata()
            for name in FRAMES}


#: columns run log 1.1, 1.2 and 1.3 added (``docs/runlog.md``), by a column only their frame has: questions' ``parts``
#: and labels' ``q_index`` (1.1), runs' ``log`` (1.2) and ``transcript_at`` (1.3)
_ADDED_SINCE_1_0 = {"in_scope": ("parts",), "facet": ("q_index",), "n_questions": ("log", "transcript_at")}


def _conform(table: pa.Table, schema: pa.Schema, file: str, where: Callable[[int], str] | None = None) -> pa.Table:
    """The frame's columns, in order, each of exactly the contract's type (a float32 score was rounded on the
    way: refused, not cast), with valid UTF-8 text and a ``source`` in every row; else a FormatError."""
    for frame_has, names in _ADDED_SINCE_1_0.items():  # a copy written before the version that added it: all null
        for name in names:
            if frame_has in schema.names and name not in table.schema.names:
                table = table.append_column(schema.field(name), pa.nulls(table.num_rows, schema.field(name).type))
    names = table.schema.names
    missing = [n for n in schema.names if n not in names]
    extra = [n for n in names if n not in schema.names]
    if missing or extra:
        parts = ([f"missing column(s) {', '.join(missing)}"] if missing else []) + (
            [f"unknown column(s) {', '.join(extra)}"] if extra else [])
        raise FormatError(f"{file}: {'; '.join(parts)}; this frame has {', '.join(schema.names)}")
    where = where or (lambda row: f"{file}:{row + 1}")
    columns = []
    for f in schema:
        col = table.column(f.name)
        if not col.type.equals(f.type):
            raise FormatError(f"{file}: column '{f.name}' must be {f.type} (got {col.type})")
        if pa.types.is_string(f.type):
            _valid_text(col, f.name, where)
        if f.name == "source" and col.null_count:
            row = int(np.flatnonzero(pc.is_null(col).to_numpy(zero_copy_only=False))[0])
            raise FormatError(f"{where(row)}: column 'source' is null; every record keeps the file and line it was"
                              " read from")
        columns.append(col)
    return pa.Table.from_arrays(columns, schema=schema)


def _valid_text(col: pa.ChunkedArray, name: str, where: Callable[[int], str]) -> None:
    """Every value of a text column valid UTF-8 (Arrow does not check it when reading Parquet)."""
    start = 0
    for chunk in col.chunks:
        try:
            chunk.validate(full=True)
        except pa.ArrowInvalid as exc:
            found = re.search(r"string index (\d+)", str(exc))
            row = start + (int(found.group(1)) if found else 0)
            raise FormatError(f"{where(row)}: column '{name}' is not valid UTF-8 text") from None
        start += len(chunk)


def _parent_rows(key: pa.ChunkedArray | pa.Array, parents: pa.Array, where: Callable[[int], str],
                 what: str, parent_file: str, expected: np.ndarray | None = None) -> np.ndarray:
    """Row of the parent frame each child row belongs to; a child without one (or without a key) is an error.

    Children are stored in runs of one parent (all of a run's questions together), so
    only the first key of each run is looked up. ``expected``: with parent keys known to be unique, the parent
    rows whose children the frame should hold, in order (those the stored counts give children); when the
    runs' first keys are exactly those parents' keys, that is the answer, and no key is looked up.
    """
    n = len(key)  # chunked as read: made one array, 1,000,000 questions' run ids were copied
    if n == 0:  # no child: nothing to look up (a hash of every parent key was built for it)
        return np.zeros(0, dtype=np.int64)
    if key.null_count:
        row = int(np.flatnonzero(pc.is_null(key).to_numpy(zero_copy_only=False))[0])
        raise FormatError(f"{where(row)}: {what} is null ({key.null_count} such row{'s' if key.null_count > 1 else ''})")
    if n > 1:
        change = pc.not_equal(key.slice(1), key.slice(0, n - 1)).to_numpy(zero_copy_only=False)
        starts = np.concatenate(([0], np.flatnonzero(change) + 1))
        heads = take_rising(key, starts)
        lengths = np.diff(np.append(starts, n))
        if expected is not None and len(expected) == len(starts) and \
                pc.all(pc.equal(heads, parents.take(pa.array(expected, pa.int64())))).as_py():
            return np.repeat(expected.astype(np.int64), lengths)
        group_idx = pc.index_in(heads, value_set=parents)
        if group_idx.null_count == 0:
            return np.repeat(group_idx.to_numpy(zero_copy_only=False).astype(np.int64), lengths)
    idx = pc.index_in(key, value_set=parents)
    if idx.null_count:
        row = int(np.flatnonzero(~pc.is_valid(idx).to_numpy(zero_copy_only=False))[0])
        shown = key[row].as_py()
        shown = repr(tuple(shown.split("\x1f"))) if "\x1f" in shown else repr(shown)
        raise FormatError(f"{where(row)}: {what} {shown} names no row of {parent_file}"
                          f" ({idx.null_count} such row{'s' if idx.null_count > 1 else ''})")
    return cast(np.ndarray, idx.to_numpy(zero_copy_only=False).astype(np.int64))


def _items(values: pa.Table, struct: pa.DataType, columns: dict[str, str], order: np.ndarray | None) -> pa.Table:
    """Child rows, taken in ``order`` (None: as they are), as the fields of a record's list item (a record's
    ``blockers`` say ``id`` where the frame says ``blocker_id``): a list column's items, flat."""
    taken = values if order is None else values.take(pa.array(order, pa.int64()))
    return pa.table({f.name: taken.column(columns.get(f.name, f.name)).cast(f.type) for f in struct})


def _lists(children: dict[str, Flat], n_parents: int, nest: bool) -> dict[str, pa.Array]:
    """Each list column of the records: its items nested into one list per parent row, or (``nest`` False)
    all null, the items then given to the validator flat (copying 1,000,000 questions to nest them cost
    more memory than the frame read)."""
    lists = {}
    for name, (items, parent) in children.items():
        if not nest:
            lists[name] = pa.nulls(n_parents, INPUT_SCHEMA.field(name).type)
            continue
        struct = INPUT_SCHEMA.field(name).type.value_type
        values = pa.StructArray.from_arrays([one_array(c) for c in items.columns], fields=list(struct))
        offsets = np.concatenate(([0], np.cumsum(np.bincount(parent, minlength=n_parents)))).astype(np.int32)
        lists[name] = pa.ListArray.from_arrays(pa.array(offsets), values)
    return lists


def _task_key(table: pa.Table) -> pa.ChunkedArray:
    return pc.binary_join_element_wise(*(pc.cast(table.column(c), pa.string())
                                         for c in ("benchmark", "suite", "variant_id")), "\x1f")


def _records_table(source: pa.Table, nested: dict[str, pa.Array], record: str | None) -> pa.Table:
    """An INPUT_SCHEMA table (the shape the JSON reader gives) of one frame's records."""
    n = source.num_rows
    columns = []
    for f in INPUT_SCHEMA:
        if f.name == "record":
            columns.append(pa.array([record] * n, pa.string()))
        elif f.name in nested:
            columns.append(nested[f.name])
        elif f.name in source.schema.names:
            columns.append(source.column(f.name).cast(f.type))
        else:
            columns.append(pa.nulls(n, f.type))
    return pa.Table.from_arrays(columns, schema=INPUT_SCHEMA)


def _check_meta(meta: pa.ChunkedArray) -> list[tuple[int, str]]:
    """Rows whose ``meta`` is not the JSON text of an object: (row, message).

    The check is a function of the text alone, so each distinct text is parsed once (a log repeats a
    harness's bookkeeping across its runs) and its verdict given to every row that holds it."""
    if meta.null_count == len(meta):
        return []
    encoded = pc.dictionary_encode(one_array(meta))
    verdicts = {}
    for code, text in enumerate(encoded.dictionary.to_pylist()):
        try:
            value = _strict_loads(text)
            if not isinstance(value, dict):
                raise RecordError("meta", f"field 'meta' must be the JSON text of an object (got {text[:40]!r})")
            meta_text(value)
        except RecordError as exc:
            verdicts[code] = exc.message
        except ValueError as exc:
            verdicts[code] = f"field 'meta' is not valid JSON ({exc})"
    if not verdicts:
        return []
    codes = encoded.indices.to_numpy(zero_copy_only=False)
    valid = encoded.indices.is_valid().to_numpy(zero_copy_only=False)
    rows = np.flatnonzero(valid & np.isin(codes, np.fromiter(verdicts, dtype=np.int64)))
    return [(int(i), verdicts[int(codes[i])]) for i in rows]


def _read(source: pa.Table, children: dict[str, Flat], meta: pa.ChunkedArray, file: str, record: str,
          flat: bool = True) -> FileRead:
    """Validate one frame's records (``source`` and its ``children``'s items in list columns) as a JSON
    Lines file's would be: fast, or row by row. ``flat``: the fast check takes the children flat and the
    records it returns leave their lists null (the valid frames need nothing more); row by row, and with
    ``flat`` False, they are nested."""
    records = _records_table(source, _lists(children, source.num_rows, nest=not flat), record)
    n = records.num_rows
    bad_meta = _check_meta(meta)
    valid = not bad_meta and table_is_valid(records, children if flat else None)
    if not valid and flat:  # read row by row: the records whole
        records = _records_table(source, _lists(children, n, nest=True), record)
    full = records.append_column("meta", meta if n else pa.array([], pa.string()))
    full = full.append_column("_line", pa.array(np.arange(1, n + 1, dtype=np.int64)))
    # where each run's conversation is: the reader's own locator (parquet_log._with_own_locators), kept
    located = source.column("transcript_at") if "transcript_at" in source.column_names else None
    full = full.append_column("transcript_at", located if located is not None and n
                              else pa.nulls(n, pa.string()))
    if valid:
        n_task = n if record == "task" else 0
        return FileRead(file, full, [], n - n_task, n_task, "arrow")
    objects: list[Any] = []
    meta_msgs = dict(bad_meta)
    for i, row in enumerate(records.to_pylist()):
        row = {k: v for k, v in row.items() if v is not None}
        text = meta[i].as_py() if n else None
        if text is not None and i not in meta_msgs:
            row["meta"] = json.loads(text)
        at = located[i].as_py() if located is not None and n else None
        if at is not None:
            row[TRANSCRIPT_AT] = json.loads(at)
        objects.append(row)
    read = read_records(objects, file, lines=range(1, n + 1))
    rejected = {e.line for e in read.errors}
    for i, message in bad_meta:
        if i + 1 not in rejected:
            read.reject(i + 1, "meta", message, "schema", record)
    if bad_meta:
        keep = pc.invert(pc.is_in(read.table.column("_line"), pa.array([i + 1 for i, _ in bad_meta])))
        read.table = read.table.filter(keep)
        read.errors.sort(key=lambda e: e.line or 0)
    return read


#: The columns of each frame that loading derives from the records rather than copies from them:
#: a stored frame must agree with its records on these (the rest are the records' own values).
DERIVED = {
    "runs": ("run_id", "variant_id", "policy", "protocol", "trial", "status", "n_questions", "n_labels"),
    "questions": ("run_id", "q_index", "relevant", "attributed"),
    "labels": ("run_id", "judge", "call"),
    "tasks": ("variant_id", "n_blockers"),
    "blockers": ("task_id",),
}


def _take(column: pa.ChunkedArray, rows: np.ndarray | None) -> pa.ChunkedArray:
    return column if rows is None else column.take(pa.array(rows, pa.int64()))


def _mismatch(name: str, stored: pa.Table, rebuilt: pa.Table, rows: np.ndarray | None, file: str,
              where: Callable[[int], str]) -> str | None:
    """The first derived cell where a stored frame differs from the one its records give.

    ``rows`` are the stored rows matching the rebuilt ones, in order (None: all, as stored).
    """
    n = stored.num_rows if rows is None else len(rows)
    if n != rebuilt.num_rows:
        return (f"{file}: {n} rows belong to the valid records, which give {rebuilt.num_rows}"
                " (write Parquet run logs with RunSet.to_parquet)")
    for column in DERIVED[name]:
        a = _take(stored.column(column), rows)
        b = rebuilt.column(column).cast(a.type)
        ok = _alike(a, b)
        if pc.all(ok).as_py() is False:  # (None for no rows)
            i = int(np.flatnonzero(~ok.to_numpy())[0])
            row = i if rows is None else int(rows[i])
            return (f"{where(row)}: column '{column}' is {a[i].as_py()!r} but the records"
                    f" give {b[i].as_py()!r} (write Parquet run logs with RunSet.to_parquet)")
    return None


def _alike(a: pa.Array | pa.ChunkedArray, b: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """Cell by cell: equal, or both null."""
    return pc.or_(pc.fill_null(pc.equal(a, b), False), pc.and_(pc.is_null(a), pc.is_null(b)))


def _same(a: pa.Array | pa.ChunkedArray, b: pa.Array | pa.ChunkedArray) -> bool:
    """Every cell :func:`_alike` (``_mismatch``'s rule)."""
    ok = _alike(a, b)
    return len(ok) == 0 or bool(pc.all(ok).as_py())


def _derived_agree(t: dict[str, pa.Table], q_parent: np.ndarray, q_taken: np.ndarray | None,
                   l_parent: np.ndarray, b_parent: np.ndarray, unique_ids: bool, ids_are_keys: bool) -> bool:
    """Whether every derived column (:data:`DERIVED`) of the stored frames is what loading would derive from
    their records, and no run or task key repeats, worked out from the columns without building the frames
    again (``build_tables`` takes time and a second copy of the log). False at any doubt: the caller
    then builds them and names the first cell that differs, as before.

    The frames' records are their own rows, so most derived columns are a fill of the stored one (a stored
    null is the only way to differ); the counts are the children each parent row was linked to; a question's
    and a label's ``run_id`` is its run's (``_parent_rows`` matched them), so it agrees once the runs' do
    (``ids_are_keys``: :func:`_ids_from_keys`)."""
    runs, q, lab, tasks, blk = (t[n] for n in FRAMES)
    for table, columns in ((runs, ("variant_id", "policy", "protocol", "trial", "status")),
                           (q, ("attributed",)), (lab, ("judge", "call")), (tasks, ("variant_id",))):
        if any(table.column(c).null_count for c in columns):  # a default or the task_id would be filled in
            return False
    counts = ((runs, "n_questions", q_parent, runs.num_rows), (runs, "n_labels", l_parent, runs.num_rows),
              (tasks, "n_blockers", b_parent, tasks.num_rows))
    for table, column, parent, n in counts:
        if not np.array_equal(table.column(column).to_numpy(), np.bincount(parent, minlength=n)):
            return False
    # a question's place in its run, in q_index order (``q_taken`` None: stored in that order, nothing to take)
    ordered = q_parent if q_taken is None else q_parent[q_taken]
    place = np.arange(len(ordered))
    place -= np.searchsorted(ordered, ordered, side="left")
    q_index = q.column("q_index").to_numpy()
    if not np.array_equal(q_index if q_taken is None else q_index[q_taken], place):
        return False
    del place, q_index
    attributed = q.column("attributed")
    relevant = pc.if_else(attributed, pc.is_valid(q.column("blocker_id")), pa.scalar(None, pa.bool_()))
    if not _same(q.column("relevant"), relevant):
        return False
    if not _same(blk.column("task_id"), one_array(tasks.column("task_id")).take(pa.array(b_parent, pa.int64()))):
        return False
    if runs.num_rows and not (unique_ids and ids_are_keys):  # ids are keys joined, escaped: one per key
        return False
    return tasks.num_rows <= 1 or _no_repeats(np.zeros(tasks.num_rows, dtype=np.int64),
                                              *(tasks.column(c) for c in TASK_KEY))


def _ids_from_keys(runs: pa.Table, run_ids: pa.Array) -> bool:
    """Whether every stored run id is the one loading builds from its run's key (the key's values as a record
    holds them, none of the defaults to fill in). Building an id is one-to-one, so the ids then repeat exactly
    where the keys do, and hashing the keys' integer codes takes far less memory than hashing the ids
    (docs/performance.md)."""
    from ambiglib.runlog._frames import _run_ids

    if not runs.num_rows or any(runs.column(c).null_count for c in ("variant_id", "policy", "protocol", "trial")):
        return False
    keys = pa.table({c: runs.column(c).cast(INPUT_SCHEMA.field(c).type) for c in RUN_KEY})
    return _same(run_ids, _run_ids(keys))


def _in_order(order: np.ndarray) -> np.ndarray | None:
    """None when an ordering is the identity (nothing to take), else the ordering."""
    return None if bool((order == np.arange(len(order))).all()) else order


Locate = Callable[[str, int], "tuple[str, int | None]"]


def check_tables(tables: dict[str, pa.Table], folder: Path,
                 locate: Locate | None = None) -> tuple[Any, list[LoadError]]:
    """Check a Parquet run log's frames against the contract; return the RunSet and rejected rows.

    ``locate(frame, row)`` gives the file and 1-based row a frame's row was read from, for a store of
    part files (:class:`ambiglib.runlog._parquet.StoreRows`); messages then name it, not ``<frame>.parquet``."""
    if locate is None:
        return _check_tables(tables, folder)
    files = {name: str(folder / f"{name}.parquet") for name in FRAMES}  # what the checks write, replaced here
    pattern = re.compile("|".join(rf"(?P<{n}>{re.escape(f)})(?::(?P<{n}_row>\d+))?" for n, f in files.items()))

    def place(match: re.Match[str]) -> str:
        name = next(n for n in files if match.group(n))
        row = match.group(f"{name}_row")
        if row is None:
            return str(folder / name)
        file, line = locate(name, int(row) - 1)
        return f"{file}:{line if line is not None else '?'}"

    try:
        runset, errors = _check_tables(tables, folder)
    except FormatError as exc:
        raise FormatError(pattern.sub(place, str(exc))) from None
    moved = []
    for e in errors:
        name = next((n for n, f in files.items() if e.file == f), None)
        file, line = locate(name, e.line - 1) if name is not None and e.line else (e.file, e.line)
        moved.append(LoadError(file, line, e.field, pattern.sub(place, e.message), e.kind, e.record))
    return runset, moved


def _check_tables(tables: dict[str, pa.Table], folder: Path) -> tuple[Any, list[LoadError]]:
    from ambiglib.runlog._frames import build_tables

    files = {name: str(folder / f"{name}.parquet") for name in FRAMES}

    def at(name: str) -> Callable[[int], str]:
        return lambda row: f"{files[name]}:{row + 1}"

    expected = _expected()
    t = {name: _conform(tables[name], expected[name], files[name]) for name in FRAMES}
    runs, tasks = t["runs"], t["tasks"]
    run_ids = one_array(runs.column("run_id"))

    q, lab, blk = t["questions"], t["labels"], t["blockers"]
    # with every run id once, a run's children are found from the stored counts (checked below), not looked up
    ids_are_keys = _ids_from_keys(runs, run_ids)
    if ids_are_keys:  # then ids repeat where keys do: found from integer codes, without hashing every id
        unique = run_ids.null_count == 0 and _no_repeats(np.zeros(len(run_ids), dtype=np.int64),
                                                         *(runs.column(c) for c in RUN_KEY))
    else:
        unique = run_ids.null_count == 0 and len(pc.unique(run_ids)) == len(run_ids)

    def having(column: str) -> np.ndarray | None:
        return np.flatnonzero(runs.column(column).to_numpy() > 0) if unique else None

    q_parent = _parent_rows(q.column("run_id"), run_ids, at("questions"), "run_id", files["runs"],
                            having("n_questions"))
    q_order = np.lexsort((q.column("q_index").to_numpy(), q_parent))
    l_parent = _parent_rows(lab.column("run_id"), run_ids, at("labels"), "run_id", files["runs"],
                            having("n_labels"))
    l_order = np.argsort(l_parent, kind="stable")
    b_parent = _parent_rows(_task_key(blk), one_array(_task_key(tasks)), at("blockers"),
                            "task (benchmark, suite, variant_id)", files["tasks"])
    b_order = np.argsort(b_parent, kind="stable")

    # every row kept: the stored frames in their stored order, the children in their parents' (None: as stored)
    all_rows = {"runs": None, "tasks": None, "questions": _in_order(q_order), "labels": _in_order(l_order),
                "blockers": _in_order(b_order)}

    def children(name: str, parent: np.ndarray, struct: pa.DataType, columns: dict[str, str]) -> Flat:
        taken = all_rows[name]
        return _items(t[name], struct, columns, taken), parent if taken is None else parent[taken]

    run_children = {"questions": children("questions", q_parent, QUESTION_TYPE, {}),
                    "labels": children("labels", l_parent, LABEL_TYPE, {})}
    task_children = {"blockers": children("blockers", b_parent, BLOCKER_TYPE, {"id": "blocker_id"})}
    # what linking the children let go, and then what checking the records let go, back to the system: the
    # default allocator (mimalloc) keeps freed pages, and each step's would be a step on the last's peak
    pa.default_memory_pool().release_unused()
    run_read = _read(runs, run_children, runs.column("meta"), files["runs"], "run")
    pa.default_memory_pool().release_unused()
    task_read = _read(tasks, task_children, tasks.column("meta"), files["tasks"], "task")
    if not run_read.errors and not task_read.errors and _derived_agree(
            t, q_parent, all_rows["questions"], l_parent, b_parent, unique, ids_are_keys):
        # every record valid and every derived column as the records give it
        return _stored_frames(t, all_rows), []
    if run_read.engine == "arrow":  # valid records, read flat: nested, to build the frames they give
        run_read = _read(runs, run_children, runs.column("meta"), files["runs"], "run", flat=False)
    if task_read.engine == "arrow":
        task_read = _read(tasks, task_children, tasks.column("meta"), files["tasks"], "task", flat=False)
    rebuilt, dup_errors = build_tables([task_read, run_read])
    errors = sorted(task_read.errors, key=lambda e: e.line or 0) + run_read.errors + dup_errors

    if not errors:  # every row kept, against the rebuilt frames
        rows = all_rows
    else:  # the stored rows of the records that were kept
        dup_lines = {e.line for e in dup_errors if e.record == "run"}
        kept_runs = np.array([r - 1 for r in run_read.table.column("_line").to_numpy() if r not in dup_lines],
                             dtype=np.int64)
        kept_tasks = task_read.table.column("_line").to_numpy() - 1
        keep_run = np.zeros(runs.num_rows, dtype=bool)
        keep_run[kept_runs] = True
        keep_task = np.zeros(tasks.num_rows, dtype=bool)
        keep_task[kept_tasks] = True
        rows = {"runs": kept_runs, "tasks": kept_tasks, "questions": q_order[keep_run[q_parent[q_order]]],
                "labels": l_order[keep_run[l_parent[l_order]]], "blockers": b_order[keep_task[b_parent[b_order]]]}
    for name in FRAMES:
        problem = _mismatch(name, t[name], rebuilt[name], rows[name], files[name], at(name))
        if problem:
            raise FormatError(problem)
    return _stored_frames(t, rows), errors


def _stored_frames(t: dict[str, pa.Table], rows: dict[str, np.ndarray | None]) -> Any:
    """The RunSet of the stored frames' ``rows`` (None: all, as stored)."""
    from ambiglib.runlog._frames import _frame
    from ambiglib.runset import RunSet

    return RunSet(**{name: _frame(t[name] if rows[name] is None else t[name].take(pa.array(rows[name], pa.int64())))
                     for name in FRAMES})
