"""The checks ``ambiglib.load`` makes of a store's rows, as queries an engine runs: each row in its place once, every
question and label of a run that is there, every blocker of a task that is there, one row per run key, and the
columns a load derives from the records (the run id from its keys, a run's question and label counts, a question's
index, relevance and attribution, a task's blocker count) as the records give them. A store that fails one is
refused with the load's own words, naming the part file and its row, before any metric is computed: the numbers of
a damaged store are never given.

The load also checks every record against the run-log contract field by field (:func:`ambiglib.runlog.validate_record`):
so does :mod:`ambiglib.engines._fields`, for every scalar field and the rules between a record's fields, and the
record it finds first is worded by that same validator. Not checked here: the contents of ``meta`` (JSON text no
metric reads), ``checkpoints`` and a task's ``dimensions`` (lists no query reads; the footers check their types).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from ambiglib.engines._fields import check_fields
from ambiglib.engines._frames import Frame
from ambiglib.errors import FormatError
from ambiglib.runlog._schema import DEFAULT_CALL, DEFAULT_JUDGE, DEFAULT_POLICY, DEFAULT_PROTOCOL, DEFAULT_TRIAL

_ADVICE = " (write Parquet run logs with RunSet.to_parquet)"


def _esc(column: str) -> str:
    """A key part as a run id holds it: ``%`` and ``|`` escaped (``runlog._frames._escape``)."""
    return f"replace(replace(CAST({column} AS STRING), '%', '%25'), '|', '%7C')"


#: the run id a run's keys give (``runlog._frames._run_ids``): null where a key is null, ``|log`` where it has one
RUN_ID = ("(" + " || '|' || ".join([
    _esc("benchmark"), _esc("suite"), _esc("variant_id"), _esc("model"), _esc("spec"),
    "(CASE WHEN ask_tool THEN 'tool' WHEN NOT ask_tool THEN 'notool' END)", _esc("policy"), _esc("protocol"),
    "CAST(trial AS STRING)"]) + f") || (CASE WHEN log IS NULL THEN '' ELSE '|' || {_esc('log')} END)")


class StoreChecks:
    """Runs the checks in the order a load makes them; ``query`` gives an engine's rows as dictionaries."""

    def __init__(self, store: Path, frames: Mapping[str, Frame], query: Callable[[str], list[dict[str, Any]]],
                 names: Mapping[str, str] | None):
        self.store, self.frames, self.query, self.names = store, frames, query, names or {}

    def _t(self, frame: str) -> str:
        return self.names.get(frame, frame)

    def where(self, frame: str, row: int) -> str:
        """``part-file:line`` of the frame's row ``row`` (its ``_row``), found by reading the parts' ``_row`` column
        (only when a check fails)."""
        for part in self.frames[frame].parts:
            rows = pq.read_table(part.file, columns=["_row"]).column("_row").to_pylist()
            if row in rows:
                return f"{part.file}:{rows.index(row) + 1}"
        return f"{self.store / frame}: row {row + 1}"

    def run(self) -> None:
        for frame in ("runs", "questions", "labels", "tasks", "blockers"):
            self._places(frame)
        self._parents("questions", "run_id")
        self._parents("labels", "run_id")
        self._blocker_parents()
        check_fields(self.where, self._t, self.query)  # (the records, as a load checks them before it links them)
        self._unique_runs()
        self._derived()

    def _first(self, sql: str) -> dict[str, Any] | None:
        rows = self.query(sql)
        return rows[0] if rows and rows[0].get("n") else None

    def _places(self, frame: str) -> None:
        """Each row's place in its frame once, inside the frame (``runlog._parquet._check_places``)."""
        total = self.frames[frame].rows
        row = self._first(f"SELECT COUNT(*) AS n, COUNT(DISTINCT _row) AS d, MIN(_row) AS lo, MAX(_row) AS hi"
                          f" FROM {self._t(frame)}") or {"n": 0}
        folder = self.store / frame
        if row["n"] and (row["lo"] < 0 or row["hi"] >= total):
            raise FormatError(f"{folder}: column '_row' holds {row['lo'] if row['lo'] < 0 else row['hi']}, outside"
                              f" the frame's {total:,} rows")
        if row["n"] and row["d"] != row["n"]:
            raise FormatError(f"{folder}: a row is in the store twice (column '_row' repeats)")
        if row["n"] != total:
            raise FormatError(f"{folder}: {row['n']:,} rows read where the store holds {total:,}")

    def _parents(self, frame: str, key: str) -> None:
        """Every question and label of a run that is in the store, and none without a run id."""
        row = self._first(f"SELECT COUNT(*) AS n, min_by(c._row, c._row) AS at FROM {self._t(frame)} c"
                          f" WHERE c.{key} IS NULL")
        if row:
            raise FormatError(f"{self.where(frame, row['at'])}: {key} is null ({row['n']} such"
                              f" row{'s' if row['n'] > 1 else ''})")
        self._orphans(frame, "runs", [key], key)

    def _blocker_parents(self) -> None:
        """Every blocker of a task that is in the store."""
        self._orphans("blockers", "tasks", ["benchmark", "suite", "variant_id"], "task (benchmark, suite, variant_id)")

    def _orphans(self, frame: str, parent: str, keys: list[str], what: str) -> None:
        """The first row of ``frame`` whose ``keys`` name no row of ``parent``, in the load's words
        (``runlog._parquet_check._parent_rows``): one key shown as its value, several as a tuple."""
        firsts = ", ".join(f"min_by(c.{k}, c._row) AS {k}" for k in keys)
        on = " AND ".join(f"p.{k} = c.{k}" for k in keys)
        row = self._first(f"SELECT COUNT(*) AS n, min_by(c._row, c._row) AS at, {firsts} FROM {self._t(frame)} c"
                          f" LEFT JOIN (SELECT DISTINCT {', '.join(keys)} FROM {self._t(parent)}) p ON {on}"
                          f" WHERE p.{keys[0]} IS NULL")
        if row:
            shown = row[keys[0]] if len(keys) == 1 else tuple(row[k] for k in keys)
            raise FormatError(f"{self.where(frame, row['at'])}: {what} {shown!r} names no row of"
                              f" {self.store / parent} ({row['n']} such row{'s' if row['n'] > 1 else ''})")

    def _unique_runs(self) -> None:
        """One row per run id: a repeated run would be counted twice."""
        row = self._first(f"SELECT COUNT(*) AS n, min_by(run_id, _row) AS run_id, min_by(first, _row) AS first,"
                          f" MIN(_row) AS second FROM (SELECT run_id, _row, MIN(_row) OVER (PARTITION BY run_id) AS first,"
                          f" ROW_NUMBER() OVER (PARTITION BY run_id ORDER BY _row) AS k FROM {self._t('runs')}) d"
                          " WHERE k > 1")
        if row:
            raise FormatError(f"{self.where('runs', row['second'])}: duplicate run (run_id {row['run_id']!r}): first"
                              f" seen at {self.where('runs', row['first'])} ({row['n']} such run id(s))")

    def _mismatch(self, frame: str, column: str, stored: str, rebuilt: str, order: str, source: str) -> None:
        """The first row (in the records' order, ``order``) whose ``stored`` value is not the ``rebuilt`` one, in
        the load's words (``runlog._parquet_check._mismatch``: equal, or both null)."""
        differs = f"({stored}) IS DISTINCT FROM ({rebuilt})"
        row = self._first(f"SELECT COUNT(*) AS n, min_by(_row, {order}) AS at, min_by(a, {order}) AS a,"
                          f" min_by(b, {order}) AS b FROM (SELECT *, ({stored}) AS a, ({rebuilt}) AS b FROM {source}) s"
                          f" WHERE {differs}")
        if row:
            raise FormatError(f"{self.where(frame, row['at'])}: column '{column}' is {row['a']!r} but the records"
                              f" give {row['b']!r}{_ADVICE}")

    def _derived(self) -> None:
        runs, questions, labels = self._t("runs"), self._t("questions"), self._t("labels")
        counts = (f"(SELECT r.*, COALESCE(q.n, 0) AS n_q, COALESCE(l.n, 0) AS n_l FROM {runs} r"
                  f" LEFT JOIN (SELECT run_id, COUNT(*) AS n FROM {questions} GROUP BY run_id) q ON q.run_id = r.run_id"
                  f" LEFT JOIN (SELECT run_id, COUNT(*) AS n FROM {labels} GROUP BY run_id) l ON l.run_id = r.run_id)")
        for column, rebuilt in (("run_id", RUN_ID), ("variant_id", "COALESCE(variant_id, task_id)"),
                                ("policy", f"COALESCE(policy, '{DEFAULT_POLICY}')"),
                                ("protocol", f"COALESCE(protocol, '{DEFAULT_PROTOCOL}')"),
                                ("trial", f"COALESCE(trial, {DEFAULT_TRIAL})"),
                                ("n_questions", "n_q"), ("n_labels", "n_l")):
            self._mismatch("runs", column, column, rebuilt, "_row", counts)
        # a run's questions in the order of their stored index (the records' order), the run's own first
        ranked = (f"(SELECT q.*, r._row AS run_row, ROW_NUMBER() OVER (PARTITION BY q.run_id ORDER BY q.q_index, q._row)"
                  f" - 1 AS rank FROM {questions} q JOIN {runs} r ON r.run_id = q.run_id)")
        order = "run_row * 1000000000 + rank"  # a run's questions are far fewer than 10^9
        attributed = "COALESCE(attributed, true)"
        for column, rebuilt in (("q_index", "rank"),
                                ("relevant", f"CASE WHEN {attributed} THEN blocker_id IS NOT NULL END"),
                                ("attributed", attributed)):
            self._mismatch("questions", column, column, rebuilt, order, ranked)
        for column, rebuilt in (("judge", f"COALESCE(judge, '{DEFAULT_JUDGE}')"),
                                ("call", f"COALESCE(call, {DEFAULT_CALL})")):
            self._mismatch("labels", column, column, rebuilt, "_row", f"(SELECT * FROM {labels})")
        tasks = (f"(SELECT t.*, COALESCE(b.n, 0) AS n_b FROM {self._t('tasks')} t LEFT JOIN"
                 f" (SELECT benchmark, suite, variant_id, COUNT(*) AS n FROM {self._t('blockers')}"
                 " GROUP BY benchmark, suite, variant_id) b"
                 " ON b.benchmark = t.benchmark AND b.suite = t.suite AND b.variant_id = t.variant_id)")
        self._mismatch("tasks", "variant_id", "variant_id", "COALESCE(variant_id, task_id)", "_row", tasks)
        self._mismatch("tasks", "n_blockers", "n_blockers", "n_b", "_row", tasks)
