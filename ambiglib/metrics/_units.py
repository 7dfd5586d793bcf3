"""Per task, how many of its variants had n trials with a verdict and c passes: what pass@k, pass^k, the flip
share and the rerun spread pool (:mod:`ambiglib.metrics._pooling`), worked out from a loaded run set."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ambiglib.metrics._common import CONDITIONS, _check_by, _excluded, _single_condition, _work
from ambiglib.runset import RunSet


def groups_of(excluded: pd.Series, by: list[str]) -> pd.DataFrame:
    """The groups a metric lists (``by…, n_excluded``) from its error runs per group (:func:`_excluded`)."""
    if not by:
        return pd.DataFrame({"n_excluded": [int(excluded.iloc[0])]})
    return excluded.rename("n_excluded").astype("int64").reset_index()


def unit_sums(rs: RunSet, by: Sequence[str], fn: str) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """``(groups, per_task, by)``: every group with its error runs, and per (group, task, n, c) the number of
    variants (``n_units``) with n trials with a verdict (``passed`` not null, status not ``error``) and c passes.
    A variant's task is that of its first such trial."""
    work = _work(rs)
    by = _check_by(work, by, fn)
    _single_condition(work, by, CONDITIONS, fn)
    groups = groups_of(_excluded(work, by), by)
    runs = work[~work["error"] & work["passed"].notna()]
    unit = list(dict.fromkeys([*by, "benchmark", "variant_id"]))
    g = runs.groupby(unit, sort=True, dropna=False)
    units = pd.DataFrame({"n": g["passed"].count(), "c": g["passed"].sum().astype("int64")})
    if "task_id" not in unit:
        units["task_id"] = g["task_id"].first()
    units = units.reset_index()
    keys = list(dict.fromkeys([*by, "task_id", "n", "c"]))
    per_task = units.groupby(keys, sort=True, dropna=False).size().rename("n_units").reset_index()
    return groups, per_task, by
