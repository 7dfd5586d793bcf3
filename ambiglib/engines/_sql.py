"""The per-task sums of every pooled metric, and the queries behind its refusals, as SQL text.

One text serves every engine: it reads four tables named ``runs``, ``questions``, ``tasks`` and ``blockers``
(the store's frames, partition columns as text), and uses only SQL that DuckDB and Spark SQL both take
(``CASE``, ``COALESCE``, ``count(DISTINCT ...)``, ``min_by``, ``array_agg(...) FILTER (WHERE ...)``,
``GROUP BY``, left joins). Group columns are
checked against a fixed list before they are written into a query, and no value from a log or a caller is
ever written into one: a query holds only our own names and literals.

The rules a metric applies to runs are written here once for the engines, as :mod:`ambiglib.metrics` applies
them to a loaded run set: a run with status ``error`` is left out and counted in ``n_excluded``; a null
``ask_tool`` is false; a null ``relevant`` is not relevant; a null ``attributed`` is attributed; a run asked when
``n_questions`` > 0; a variant's task is that of its first trial with a verdict (``_row``, the order of the log).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ambiglib.metrics._pooling import BY_TYPES

#: the store's frames the queries read, by the name they use (the metrics' read the first four)
TABLES = ("runs", "questions", "tasks", "blockers", "labels")

#: the runs each metric counts, before error runs are left out (ask_f1 and ask_calibration: with the ask tool)
_SCOPES = {
    "ask_calibration": "COALESCE(ask_tool, false)",
    "ask_f1": "COALESCE(ask_tool, false) AND spec = 'ambiguous'",
    "units": "true",
    "value_of_information": "protocol = 'solve'",
    "voi_tool": "protocol = 'solve' AND COALESCE(ask_tool, false)",
    "voi_no_tool": "protocol = 'solve' AND NOT COALESCE(ask_tool, false)",
}
_NOT_ERROR = "COALESCE(status, '') <> 'error'"


def scope_of(metric: str) -> str:
    """The runs a metric counts (error runs included: they are counted as excluded)."""
    return _SCOPES["units" if metric in UNIT_METRICS else metric]


#: the metrics that pool per-task counts of variants by (n trials with a verdict, c passes)
UNIT_METRICS = ("pass_at_k", "pass_hat_k", "flip_share", "rerun_sd")


def _columns(by: Sequence[str], prefix: str = "") -> str:
    """``by`` as a select list (each name one of :data:`BY_TYPES`, checked by the caller)."""
    for c in by:
        if c not in BY_TYPES:  # never reached through the handle, which checks by= first: a guard, not a message
            raise ValueError(f"not a column a metric groups by: {c!r}")
    return ", ".join(f"{prefix}{c}" for c in by)


def _work_column(c: str) -> str:
    """A group column as the metrics see it: ``ask_tool`` null as false, ``error`` from the status."""
    if c == "ask_tool":
        return "COALESCE(ask_tool, false) AS ask_tool"
    if c == "error":
        return "(status = 'error') AS error"
    if c == "score":  # invalid and timeout runs score 0 (Ambig-DS §5.1), even where the harness left it null
        return "CASE WHEN status IN ('invalid', 'timeout') AND score IS NULL THEN 0.0 ELSE score END AS score"
    if c == "passed":
        return "CAST(passed AS DOUBLE) AS passed"
    return c


def _named(sql: str, names: Mapping[str, str] | None) -> str:
    """``sql`` with its tables under other names (a Spark session's temporary views, say)."""
    for table in TABLES:
        sql = sql.replace("{" + table + "}", (names or {}).get(table, table))
    return sql


def work_runs(metric: str, names: Mapping[str, str] | None = None) -> str:
    """The runs a metric counts with the columns it reads, as a subquery (``w``)."""
    cols = ", ".join(dict.fromkeys([*(_work_column(c) for c in BY_TYPES), "_row"]))
    return _named(f"(SELECT {cols} FROM {{runs}} WHERE {scope_of(metric)})", names)


def groups_sql(metric: str, by: Sequence[str], names: Mapping[str, str] | None = None) -> str:
    """Every group the metric lists (``by…, n_excluded``), with its error runs."""
    group = f" GROUP BY {_columns(by)}" if by else ""
    select = f"{_columns(by)}, " if by else ""
    return (f"SELECT {select}COALESCE(CAST(SUM(CASE WHEN error THEN 1 ELSE 0 END) AS BIGINT), 0) AS n_excluded"
            f" FROM {work_runs(metric, names)} w{group}")


def conditions_sql(metric: str, by: Sequence[str], free: Sequence[str], names: Mapping[str, str] | None = None
                   ) -> str:
    """The distinct (group, conditions) pairs of the metric's runs: a group with two values of a condition it
    neither fixes nor groups by mixes them."""
    cols = list(dict.fromkeys([*by, *free]))
    return f"SELECT DISTINCT {_columns(cols)} FROM {work_runs(metric, names)} w"


def calibration_sql(by: Sequence[str], names: Mapping[str, str] | None = None) -> str:
    """ask_calibration's per-task sums: runs on ambiguous and on other tasks, and how many of each asked."""
    keys = _columns(list(dict.fromkeys([*by, "task_id"])))
    amb = "spec = 'ambiguous'"
    return (f"SELECT {keys},"
            f" CAST(SUM(CASE WHEN {amb} THEN 1 ELSE 0 END) AS BIGINT) AS is_amb,"
            f" CAST(SUM(CASE WHEN {amb} THEN 0 ELSE 1 END) AS BIGINT) AS is_full,"
            f" CAST(SUM(CASE WHEN {amb} AND n_questions > 0 THEN 1 ELSE 0 END) AS BIGINT) AS asked_amb,"
            f" CAST(SUM(CASE WHEN ({amb}) IS NOT TRUE AND n_questions > 0 THEN 1 ELSE 0 END) AS BIGINT) AS asked_full"
            f" FROM {work_runs('ask_calibration', names)} w WHERE NOT error GROUP BY {keys}")


def _ask_runs(recall: str, names: Mapping[str, str] | None) -> str:
    """ask_f1's non-error runs, each with its relevant questions, distinct blockers addressed, its task's
    registered blockers (null: no task record) and whether it is in the recall set."""
    in_recall = "true" if recall == "all_runs" else "w.n_questions > 0"
    by = ", ".join(f"w.{c}" for c in BY_TYPES)
    return _named(
        f"(SELECT {by}, w._row, COALESCE(a.n_relevant, 0) AS n_relevant,"
        f" COALESCE(a.n_discovered, 0) AS n_discovered, t.n_blockers AS n_blockers, {in_recall} AS in_recall"
        f" FROM {work_runs('ask_f1', names)} w"
        " LEFT JOIN (SELECT run_id, COUNT(*) AS n_relevant, COUNT(DISTINCT blocker_id) AS n_discovered"
        "  FROM {questions} WHERE relevant GROUP BY run_id) a ON a.run_id = w.run_id"
        " LEFT JOIN {tasks} t ON t.benchmark = w.benchmark AND t.suite = w.suite AND t.variant_id = w.variant_id"
        " WHERE NOT w.error)", names)


def ask_f1_sql(by: Sequence[str], recall: str, names: Mapping[str, str] | None = None) -> str:
    """ask_f1's per-task sums (micro pooling)."""
    keys = _columns(list(dict.fromkeys([*by, "task_id"])))
    return (f"SELECT {keys}, COUNT(*) AS n_scored, CAST(SUM(n_questions) AS BIGINT) AS n_questions,"
            " CAST(SUM(n_relevant) AS BIGINT) AS n_relevant, CAST(SUM(n_discovered) AS BIGINT) AS n_discovered,"
            " CAST(SUM(CASE WHEN in_recall THEN COALESCE(n_blockers, 0) ELSE 0 END) AS BIGINT) AS b_recall,"
            " CAST(SUM(CASE WHEN in_recall THEN n_discovered ELSE 0 END) AS BIGINT) AS d_recall,"
            " CAST(SUM(CASE WHEN n_questions > 0 THEN 1 ELSE 0 END) AS BIGINT) AS asking,"
            " CAST(SUM(CASE WHEN in_recall THEN 1 ELSE 0 END) AS BIGINT) AS in_recall"
            f" FROM {_ask_runs(recall, names)} r GROUP BY {keys}")


def unattributed_sql(names: Mapping[str, str] | None = None) -> str:
    """ask_f1's questions the log does not attribute to a blocker: how many, of how many runs, and the first."""
    return _named(
        "SELECT COUNT(*) AS n, COUNT(DISTINCT q.run_id) AS n_runs, min_by(q.run_id, q._row) AS run_id,"
        " min_by(q.q_index, q._row) AS q_index"
        f" FROM {{questions}} q JOIN {work_runs('ask_f1', names)} w ON w.run_id = q.run_id"
        " WHERE NOT w.error AND q.attributed = false", names)


def no_task_sql(recall: str, names: Mapping[str, str] | None = None) -> str:
    """ask_f1's runs in the recall set whose task has no record (or no blocker count): how many tasks, and the
    first run."""
    runs = f"{_ask_runs(recall, names)} r WHERE in_recall AND n_blockers IS NULL"
    return ("SELECT (SELECT COUNT(*) FROM (SELECT DISTINCT benchmark, suite, variant_id"
            f" FROM {runs}) d) AS n_tasks,"
            " min_by(run_id, _row) AS run_id, min_by(benchmark, _row) AS benchmark, min_by(suite, _row) AS suite,"
            f" min_by(variant_id, _row) AS variant_id FROM {runs}")


def stray_sql(names: Mapping[str, str] | None = None) -> str:
    """ask_f1's relevant questions that name a blocker their task (which has a record) does not register: how
    many, and the first in the log's order."""
    first = ", ".join(f"min_by(s.{c}, s.q_row) AS {c}"
                      for c in ("run_id", "q_index", "blocker_id", "benchmark", "suite", "variant_id"))
    return _named(
        f"SELECT COUNT(*) AS n, {first} FROM ("
        "SELECT q.run_id, q.q_index, q.blocker_id, q._row AS q_row, r.benchmark, r.suite, r.variant_id"
        f" FROM {{questions}} q JOIN {_ask_runs('all_runs', names)} r ON r.run_id = q.run_id"
        " LEFT JOIN {blockers} b ON b.benchmark = r.benchmark AND b.suite = r.suite"
        "  AND b.variant_id = r.variant_id AND b.blocker_id = q.blocker_id"
        " WHERE q.relevant AND r.n_blockers IS NOT NULL AND b.blocker_id IS NULL) s", names)


def units_sql(by: Sequence[str], names: Mapping[str, str] | None = None) -> str:
    """Per (group, task, n, c): how many variants had n trials with a verdict and c passes (pass@k, pass^k, the
    flip share, the rerun spread)."""
    unit = list(dict.fromkeys([*by, "benchmark", "variant_id"]))
    task = "" if "task_id" in unit else ", min_by(task_id, _row) AS task_id"
    keys = _columns(list(dict.fromkeys([*by, "task_id"])))
    return (f"SELECT {keys}, n, c, COUNT(*) AS n_units FROM ("
            f"SELECT {_columns(unit)}{task}, COUNT(*) AS n, CAST(SUM(CASE WHEN passed = 1 THEN 1 ELSE 0 END) AS BIGINT) AS c"
            f" FROM {work_runs('units', names)} w WHERE NOT error AND passed IS NOT NULL GROUP BY {_columns(unit)}"
            f") u GROUP BY {keys}, n, c")


#: value_of_information's three conditions of a solve run: ambiguous without the tool, with it, fully specified
_VOI_COND = ("CASE WHEN spec = 'ambiguous' AND ask_tool THEN 'tool' WHEN spec = 'ambiguous' AND NOT ask_tool"
             " THEN 'amb' WHEN spec = 'full' AND NOT ask_tool THEN 'full' END")


def _voi_runs(by: Sequence[str], names: Mapping[str, str] | None, part: int | None = None) -> tuple[str, str]:
    keys = _columns(list(dict.fromkeys([*by, "benchmark", "task_id", "variant_id"])))
    # the part-th benchmark alone, by its rank among the runs' benchmarks in the engine's order (a benchmark's name,
    # text from the log, is never written into the SQL)
    only = "" if part is None else _named(
        " AND benchmark IN (SELECT benchmark FROM (SELECT benchmark, DENSE_RANK() OVER (ORDER BY benchmark) AS part"
        f" FROM (SELECT DISTINCT benchmark FROM {{runs}}) d) p WHERE part = {int(part)})", names)
    runs = (f"(SELECT * FROM (SELECT *, {_VOI_COND} AS cond FROM {work_runs('value_of_information', names)} w0"
            f" WHERE NOT error) w1 WHERE cond IS NOT NULL{only}) w")
    return keys, runs


def voi_variants_sql(by: Sequence[str], names: Mapping[str, str] | None = None, part: int | None = None) -> str:
    """value_of_information's per-variant sums under each condition: trials with a verdict, passes, scored trials,
    asking trials, questions, and the list of its trials' scores (``scores``, in any order: a variant's score sum is
    added up on this machine, in one order, by :func:`ambiglib.metrics._information.score_sums`; an engine's own sum
    of floats could differ in the last bit). ``part``: of the part-th benchmark alone (from 1, in the engine's
    order of their names), so that a store is paired a benchmark at a time."""
    keys, runs = _voi_runs(by, names, part)
    return (f"SELECT {keys}, cond, COUNT(passed) AS n, CAST(SUM(CASE WHEN passed = 1 THEN 1 ELSE 0 END) AS BIGINT) AS c,"
            " COUNT(score) AS n_scored, CAST(SUM(CASE WHEN n_questions > 0 THEN 1 ELSE 0 END) AS BIGINT) AS asking,"
            " CAST(SUM(n_questions) AS BIGINT) AS questions,"
            f" array_agg(score) FILTER (WHERE score IS NOT NULL) AS scores FROM {runs} GROUP BY {keys}, cond")
