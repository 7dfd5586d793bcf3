"""Several logs of one benchmark loaded as one run set, each run labelled with the log it came from.

The commonest comparison is of one agent before and after a change (a new prompt, a new model version): two
log folders that name the same models. Loaded together (``ambiglib.load({"before": "old/", "after":
"new/"})``), each run keeps its log's label in the ``log`` column, which is part of the run key and ends the
run's id (``...|solve|1|after``), so that a run of one log never collides with its twin in the other, and
``comparisons.paired_comparison(rs, between="log")`` pairs them by task. The tasks and their blockers are the
benchmark's, shared by the logs: one described alike in both is loaded once (:func:`ambiglib.loading._load._merge`).
``ambiglib.load`` of a mapping reads each log and labels its runs here.
"""

from __future__ import annotations

import numpy as np

from ambiglib.errors import ArgumentError, LoadError
from ambiglib.runset import RunSet

__all__ = ["check_label", "labelled", "FORBIDDEN"]

#: What a log's label may not hold: ``|`` separates the parts of a run id and ``%`` escapes them, ``=`` separates
#: a label from its path on the command line (``--runs after=new/``). Control characters are refused too.
FORBIDDEN = "|%="


def check_label(label: object, where: str = "load") -> str:
    """``label`` when it can name a log: a non-empty string, without spaces around it, :data:`FORBIDDEN`
    characters or control characters; else an :class:`~ambiglib.errors.ArgumentError` naming it and why."""
    if not isinstance(label, str):
        raise ArgumentError(f"{where}: log label {label!r} must be a string (got {type(label).__name__})")
    if not label.strip():
        raise ArgumentError(f"{where}: log label {label!r} must be a non-empty string (it names the log in each of"
                            " its runs' run_id)")
    if label != label.strip():
        raise ArgumentError(f"{where}: log label {label!r} must not begin or end with a space")
    bad = next((c for c in label if c in FORBIDDEN or not c.isprintable()), None)
    if bad is not None:
        raise ArgumentError(f"{where}: log label {label!r} holds {bad!r}, which a label may not: the label ends each"
                            " of its runs' run_id, whose parts '|' separates and '%' escapes, and '=' separates a"
                            " label from its path on the command line (LABEL=PATH); use letters, digits, spaces or"
                            " other punctuation")
    return label


def labelled(rs: RunSet, label: str) -> tuple[RunSet, list[LoadError]]:
    """The run set with each run in log ``label``: its ``log`` set and ``|label`` appended to its ``run_id``
    (and to its questions' and labels'), as :func:`ambiglib.runlog._frames._run_ids` builds it from a record naming
    its log. A run whose record names another log is rejected (its error names the record, the log it names
    and the label): which log it belongs to cannot be told."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    from ambiglib.runlog._frames import with_log

    errors: list[LoadError] = []
    runs = rs.runs
    named = runs["log"].notna().to_numpy(dtype=bool)
    if named.any():
        other = named & (runs["log"].astype(object) != label).to_numpy(dtype=bool, na_value=False)
        for row in np.flatnonzero(other):
            source = str(runs["source"].iat[row])
            file, _, line = source.rpartition(":")
            errors.append(LoadError(file or source, int(line) if line.isdigit() else None, "log",
                                    f"{source}: field 'log' is {runs['log'].iat[row]!r}, but this log is loaded as"
                                    f" {label!r} (a run loaded under a label is in that log: drop the field, or"
                                    " load its file under the label it names)", "schema", "run"))
        if other.any():
            rs = rs.with_runs(~other)
            runs = rs.runs
            named = runs["log"].notna().to_numpy(dtype=bool)

    def ids_of(column: pd.Series) -> pa.ChunkedArray:
        values = column.array.__arrow_array__() if isinstance(column.dtype, pd.ArrowDtype) else \
            pa.array(column.astype(object), pa.string(), from_pandas=True)
        return values if isinstance(values, pa.ChunkedArray) else pa.chunked_array([values])

    def as_column(values: pa.ChunkedArray, frame: pd.DataFrame) -> pd.Series:
        return pd.Series(pd.arrays.ArrowExtensionArray(values), index=frame.index)

    run_ids = ids_of(runs["run_id"])
    # a run already in this log (its record names it) has its id; every other gains the label
    new_ids = with_log(run_ids, label) if not named.any() else \
        pc.if_else(pa.array(named), run_ids, with_log(run_ids, label))
    log = pa.chunked_array([pa.array([label] * len(runs), pa.string())])
    frames: dict[str, pd.DataFrame] = {"runs": runs.assign(run_id=as_column(new_ids, runs), log=as_column(log, runs))}
    kept_ids = set(runs["run_id"][named].astype(object)) if named.any() else set()
    for name in ("questions", "labels"):
        frame = getattr(rs, name)
        ids = ids_of(frame["run_id"])
        if kept_ids:
            mine = frame["run_id"].isin(list(kept_ids)).to_numpy(dtype=bool, na_value=False)
            ids = pc.if_else(pa.array(mine), ids, with_log(ids, label))
        else:
            ids = with_log(ids, label)
        frames[name] = frame.assign(run_id=as_column(ids, frame))
    out = RunSet(tasks=rs.tasks, blockers=rs.blockers, skipped=dict(rs.skipped), **frames)
    for name in ("questions", "labels"):  # each question's and label's run is the row it was
        pos = rs.run_positions(name)
        if pos is not None:
            out.keep_run_positions(name, pos)
    return out, errors
