"""The vectorised validator: whether every row of a freshly read table meets the run-log contract, at once.

A file the Arrow reader parsed is checked here with Arrow compute, column by column; a False answer says
nothing about which row is bad, and the caller reads the file again with the reference validator
(:func:`ambiglib.runlog.validate_record`), whose messages name the line, the field, what was expected and
what was found. Both validators take and refuse exactly the same records.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ambiglib.runlog._schema import (
    DEFAULT_CALL,
    DEFAULT_JUDGE,
    INPUT_SCHEMA,
    NESTED,
    RECORD_KINDS,
    RUN_FIELDS,
    RUN_ONLY,
    TASK_FIELDS,
    TASK_ONLY,
    Field,
)

__all__ = ["table_is_valid", "one_array", "take_rising"]


def one_array(col: pa.ChunkedArray | pa.Array) -> pa.Array:
    """A column as one array: its only chunk as it is (``combine_chunks`` copies even one chunk), else the
    chunks concatenated."""
    if isinstance(col, pa.ChunkedArray):
        return col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()
    return col


def take_rising(col: pa.ChunkedArray | pa.Array, rows: np.ndarray) -> pa.Array:
    """``col``'s values at ``rows`` (rising), chunk by chunk: ``take`` on a chunked column concatenates its
    chunks first, a joined copy of the column (docs/performance.md)."""
    if isinstance(col, pa.Array) or col.num_chunks <= 1:
        return one_array(col).take(pa.array(rows, pa.int64()))
    bounds = np.cumsum([0] + [len(c) for c in col.chunks])
    cuts = np.searchsorted(rows, bounds)
    parts = [chunk.take(pa.array(rows[cuts[i]:cuts[i + 1]] - bounds[i], pa.int64()))
             for i, chunk in enumerate(col.chunks) if cuts[i + 1] > cuts[i]]
    return pa.concat_arrays(parts) if parts else pa.array([], col.type)


def _nonempty(arr: pa.Array) -> pa.Array:
    """null-or-non-empty, as a boolean array without nulls."""
    return pc.fill_null(pc.greater(pc.binary_length(arr), 0), True)


def _in_enum(arr: pa.Array, values: tuple[str, ...]) -> pa.Array:
    return pc.or_(pc.is_null(arr), pc.is_in(arr, value_set=pa.array(values)))


def _range_ok(arr: pa.Array, lo: float | None, hi: float | None) -> pa.Array:
    ok = pc.is_valid(arr)
    if pa.types.is_floating(arr.type):
        ok = pc.and_(ok, pc.is_finite(arr))
    if lo is not None:
        ok = pc.and_(ok, pc.greater_equal(arr, lo))
    if hi is not None:
        ok = pc.and_(ok, pc.less_equal(arr, hi))
    return pc.or_(pc.is_null(arr), pc.fill_null(ok, False))


def _scalar_ok(arr: pa.Array, f: Field) -> pa.Array:
    """Per-element check of a scalar field (nulls pass; requiredness is checked apart)."""
    if f.kind == "str":
        ok = _nonempty(arr)
        return pc.and_(ok, _in_enum(arr, f.enum)) if f.enum else ok
    if f.kind == "text":  # not blank; utf8_is_space agrees with str.isspace on every code point
        blank = pc.or_(pc.equal(pc.binary_length(arr), 0), pc.utf8_is_space(arr))
        return pc.invert(pc.fill_null(blank, False))
    if f.kind in ("int", "number"):
        return _range_ok(arr, f.minimum, f.maximum)
    return pa.array(np.ones(len(arr), dtype=bool))


def _all(mask: pa.Array) -> bool:
    return len(mask) == 0 or bool(pc.all(mask).as_py())


#: A list column's items given flat: a table of the item's fields (one row per item, in list order) and each
#: item's row of the checked table (rising). What a frame of child rows already is, without nesting it.
Flat = tuple[pa.Table, np.ndarray]


def _nested_ok(lists: pa.ChunkedArray, item: str, given: Flat | None = None
               ) -> tuple[bool, pa.ChunkedArray | pa.Table, np.ndarray, np.ndarray]:
    """Check every element of a list column (or its items ``given`` flat); return (ok, flat values, parent
    row index, items per row)."""
    if given is not None:
        flat, parents = given
        lengths = np.bincount(parents, minlength=len(lists))
    else:
        flat = pc.list_flatten(lists)
        lengths = pc.fill_null(pc.list_value_length(lists), 0).to_numpy()
        parents = np.repeat(np.arange(len(lengths)), lengths)
    if len(flat) == 0:
        return True, flat, parents, lengths
    if given is None and flat.null_count:
        return False, flat, parents, lengths
    if item == "str":
        return _all(_nonempty(flat)), flat, parents, lengths
    for f in NESTED[item]:
        values = _field(flat, f.name)
        if f.required and values.null_count:
            return False, flat, parents, lengths
        if not _all(_scalar_ok(values, f)):
            return False, flat, parents, lengths
    return True, flat, parents, lengths


def _field(flat: pa.ChunkedArray | pa.Table, name: str) -> pa.ChunkedArray | pa.Array:
    """One field of every item, flattened from a list column or given as a column."""
    return flat.column(name) if isinstance(flat, pa.Table) else pc.struct_field(flat, name)


def _no_repeats(parents: np.ndarray, *columns: pa.ChunkedArray) -> bool:
    """No two rows alike in ``parents`` and every column (nulls alike, as pandas' ``duplicated`` has them).

    Each column becomes integer codes (its distinct values, null one of them) and the codes one integer per
    row, mixed-radix; the rows are distinct when those integers are. Keys too wide for 63 bits are compared
    by pandas."""
    if len(parents) < 2:
        return True
    key = parents.astype(np.int64, copy=True)
    radix = int(parents.max()) + 1
    for col in columns:  # folded in one column at a time, chunk by chunk: no copy of a column, or of its codes
        encoded = pc.dictionary_encode(col, null_encoding="encode")  # chunks share one dictionary
        chunks = encoded.chunks if isinstance(encoded, pa.ChunkedArray) else [encoded]
        n = max([len(c.dictionary) for c in chunks] + [1])  # (the same dictionary, or one growing chunk by chunk)
        radix *= n
        if radix >= 2 ** 62:
            break
        start = 0
        for chunk in chunks:
            part = key[start:start + len(chunk)]
            part *= n
            part += chunk.indices.to_numpy(zero_copy_only=False)
            start += len(chunk)
    else:
        if bool((key[1:] > key[:-1]).all()):  # rising keys differ: codes follow first appearance, so a log
            return True  # whose rows keep one order (a run's labels facet by facet) needs no hash
        return len(pc.unique(pa.array(key))) == len(key)
    frame = {"p": parents}
    for i, col in enumerate(columns):
        frame[f"c{i}"] = col.to_numpy(zero_copy_only=False)
    import pandas as pd  # local: schema stays importable without pandas' start-up cost

    return not pd.DataFrame(frame).duplicated().any()


# complexity over 15 (noqa: C901 below): one check per rule of docs/runlog.md
def table_is_valid(table: pa.Table, children: dict[str, Flat] | None = None) -> bool:  # noqa: C901
    """Tell whether every row of a freshly read table meets the contract.

    The table must have :data:`INPUT_SCHEMA`'s columns, possibly followed by an
    inferred ``meta`` column. A False answer says nothing about which row is bad:
    the caller re-reads the file with :func:`validate_record` to find out.
    ``children``: the items of the list columns ``questions``, ``labels`` or ``blockers`` given flat
    (:data:`Flat`; the table's own column is then not read), as a Parquet copy's frames hold them.
    """
    children = children or {}
    expected = INPUT_SCHEMA
    extra = [n for n in table.schema.names if n not in expected.names]
    if extra not in ([], ["meta"]):
        return False
    for name in expected.names:
        # exactly the expected type: an inferred extra field inside a struct changes it
        if not table.schema.field(name).type.equals(expected.field(name).type):
            return False
    if "meta" in table.schema.names:
        meta_type = table.schema.field("meta").type  # null: every meta in the file is null
        if not (pa.types.is_struct(meta_type) or pa.types.is_null(meta_type)):
            return False
    if table.num_rows == 0:
        return True
    col = {name: table.column(name) for name in expected.names}  # chunked: no copies
    record = col["record"]
    if not _all(_in_enum(record, RECORD_KINDS)):
        return False
    is_task = pc.fill_null(pc.equal(record, "task"), False)
    is_run = pc.invert(is_task)
    n_task = int(pc.sum(is_task).as_py() or 0)

    def present(name: str) -> pa.Array:
        return pc.is_valid(col[name])

    for kind, rows, fields, foreign in (
        ("run", is_run, RUN_FIELDS, TASK_ONLY),
        ("task", is_task, TASK_FIELDS, RUN_ONLY),
    ):
        if kind == "task" and n_task == 0:
            continue
        for name in foreign:
            if name not in col:  # a transcript: never parsed by Arrow
                continue
            if not _all(pc.or_(pc.invert(rows), pc.invert(present(name)))):
                return False
        for f in fields:
            if f.name in ("meta", "transcript"):  # a line with a transcript never reaches Arrow (unknown to it)
                continue
            arr = col[f.name]
            if f.required and not _all(pc.or_(pc.invert(rows), present(f.name))):
                return False
            if f.kind != "list" and not _all(_scalar_ok(arr, f)):
                return False
    # lists, checked over all rows: the foreign-field rule already keeps them to their kind
    ok, _, _, _ = _nested_ok(col["checkpoints"], "checkpoint")
    if not ok:
        return False
    checkpoints = pc.list_flatten(col["checkpoints"])
    if len(checkpoints) and not _all(
        pc.less_equal(pc.struct_field(checkpoints, "result"), pc.struct_field(checkpoints, "total"))
    ):
        return False
    ok, questions, _, per_run = _nested_ok(col["questions"], "question", children.get("questions"))
    if not ok:
        return False
    if len(questions) and not _all(pc.invert(pc.and_(
            pc.equal(pc.fill_null(_field(questions, "attributed"), True), False),
            pc.is_valid(_field(questions, "blocker_id"))))):
        return False
    asked = pa.array(per_run > 0)
    if not _all(pc.invert(pc.and_(asked, pc.equal(pc.fill_null(col["ask_tool"], True), False)))):
        return False
    ok, labels, parents, _ = _nested_ok(col["labels"], "label", children.get("labels"))
    if not ok:
        return False
    if len(labels):
        q_index = _field(labels, "q_index")
        if q_index.null_count < len(q_index):  # a label about a question: that question is in its run
            if not _all(pc.fill_null(pc.less(q_index, pa.array(per_run[parents])), True)):
                return False
    if not _no_repeats(
        parents,
        _field(labels, "facet"),
        pc.fill_null(_field(labels, "judge"), DEFAULT_JUDGE),
        pc.fill_null(_field(labels, "call"), DEFAULT_CALL),
        pc.fill_null(_field(labels, "q_index"), -1),
    ):
        return False
    ok, blockers, parents, _ = _nested_ok(col["blockers"], "blocker", children.get("blockers"))
    if not ok or not _no_repeats(parents, _field(blockers, "id")):
        return False
    ok, _, _, _ = _nested_ok(col["dimensions"], "str")
    return ok
