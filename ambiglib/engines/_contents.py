"""What a store holds, counted where it lies: ``RunSet.summary``'s cells, the totals a summary prints and the run
metas its warnings on Inspect AI's mapping read, as SQL over the tables :mod:`ambiglib.engines._sql` names."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ambiglib.engines._sql import _NOT_ERROR, _columns, _named, _work_column


def summary_sql(by: Sequence[str], names: Mapping[str, str] | None = None) -> str:
    """``RunSet.summary``'s integer counts per cell (``by``: :func:`ambiglib.runset.summary_keys`): runs, variants,
    runs by status, runs asking, questions."""
    keys = _columns(by)
    status = "".join(f" CAST(SUM(CASE WHEN status = '{s}' THEN 1 ELSE 0 END) AS BIGINT) AS n_{s},"
                     for s in ("ok", "invalid", "timeout", "error"))
    return _named(f"SELECT {keys}, COUNT(*) AS n_runs, COUNT(DISTINCT variant_id) AS n_tasks,{status}"
                  " CAST(SUM(CASE WHEN n_questions > 0 THEN 1 ELSE 0 END) AS BIGINT) AS n_asked,"
                  f" CAST(COALESCE(SUM(n_questions), 0) AS BIGINT) AS n_questions FROM {{runs}} GROUP BY {keys}", names)


def summary_scores_sql(by: Sequence[str], names: Mapping[str, str] | None = None) -> str:
    """Per cell and score, how many runs not in error scored it (``invalid`` and ``timeout`` runs without a score
    score 0): the mean score is added up from these on this machine."""
    keys = _columns(by)
    return _named(f"SELECT {keys}, score, COUNT(*) AS count FROM (SELECT {keys}, {_work_column('score')}"
                  f" FROM {{runs}} WHERE {_NOT_ERROR}) s WHERE score IS NOT NULL GROUP BY {keys}, score", names)


def totals_sql(names: Mapping[str, str] | None = None) -> str:
    """What a summary says of the runs as a whole: how many, in error, with a log label, the tasks run (benchmark,
    suite, task), the models and the benchmarks."""
    return _named("SELECT COUNT(*) AS n_runs, CAST(COALESCE(SUM(CASE WHEN status = 'error' THEN 1 ELSE 0 END), 0)"
                  " AS BIGINT) AS n_error, COUNT(log) AS n_logged, COUNT(DISTINCT model) AS n_models,"
                  " COUNT(DISTINCT benchmark) AS n_benchmarks,"
                  " (SELECT COUNT(*) FROM (SELECT DISTINCT benchmark, suite, task_id FROM {runs}) t) AS tasks_run"
                  " FROM {runs}", names)


def inspect_metas_sql(names: Mapping[str, str] | None = None) -> str:
    """The runs' distinct (meta, model) whose meta names Inspect AI's mapping, with how many runs have each: what
    the summary's warnings on the mapping read (every other meta holds nothing they look at)."""
    return _named("SELECT meta, model, COUNT(*) AS n FROM {runs} WHERE meta LIKE '%\"inspect\"%'"
                  " GROUP BY meta, model", names)
