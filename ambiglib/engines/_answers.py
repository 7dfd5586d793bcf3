"""What the four answers and the paired comparisons read of a store, counted where it lies: which conditions were
run (one row per benchmark, suite, agent, condition and status, with its runs), the task counts behind the
intervals' coverage warnings, and the per-task sums a comparison pairs. Every frame here has a row per task or
per condition, never per run: its size does not grow with the epochs.

:class:`StoreView` is a store's runs under :meth:`RunSet.filter`'s criteria, as :mod:`ambiglib.comparisons`
and :mod:`ambiglib.answers` take them in place of a loaded run set.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ambiglib.engines._sql import _columns, _named, calibration_sql, work_runs
from ambiglib.errors import ArgumentError
from ambiglib.metrics._asking import CALIBRATION_SUMS
from ambiglib.metrics._common import _single_condition
from ambiglib.metrics._pooling import canonical

if TYPE_CHECKING:
    from ambiglib.engines._store import StoreMetrics
    from ambiglib.runset import RunSet

#: the columns of a store's cells, what a view filters by (each a runs column of the same name)
CELL = ("benchmark", "suite", "model", "policy", "protocol", "spec", "ask_tool", "status", "log")

#: the comparison metrics a store's per-task sums are computed for, and the runs each reads (before error runs
#: are left out): the ask rates and CalibScore, with the tool
ON_STORE = ("calib_score", "ask_rate")


def cells_sql(names: Mapping[str, str] | None = None) -> str:
    """Each distinct (benchmark, suite, model, policy, protocol, spec, ask tool, status, log) of the runs with how
    many runs it has (``ask_tool`` null as false, as the metrics read it)."""
    keys = ", ".join(CELL)
    return (f"SELECT {keys}, COUNT(*) AS n_runs FROM (SELECT {', '.join(c for c in CELL if c != 'ask_tool')},"
            f" COALESCE(ask_tool, false) AS ask_tool FROM {{runs}}) r GROUP BY {keys}").replace(
        "{runs}", (names or {}).get("runs", "runs"))


def designs_sql(names: Mapping[str, str] | None = None) -> str:
    """Per benchmark, spec (``any_spec``: either), ask tool, model and policy, among the runs without error: how
    many tasks and runs (the design a coverage warning reads)."""
    w = work_runs("units", names)
    cols = "benchmark, ask_tool, model, policy"
    return (f"SELECT {cols}, spec, false AS any_spec, COUNT(DISTINCT task_id) AS tasks, COUNT(*) AS runs FROM {w} w"
            f" WHERE NOT error GROUP BY {cols}, spec UNION ALL"
            f" SELECT {cols}, '' AS spec, true AS any_spec, COUNT(DISTINCT task_id) AS tasks, COUNT(*) AS runs"
            f" FROM {w} w WHERE NOT error GROUP BY {cols}")


def tool_tasks_sql(names: Mapping[str, str] | None = None) -> str:
    """The distinct (benchmark, protocol, spec, task) of the runs with the ask tool and without error."""
    return (f"SELECT DISTINCT benchmark, protocol, spec, task_id FROM {work_runs('ask_calibration', names)} w"
            " WHERE NOT error")


def tool_pairs_sql(names: Mapping[str, str] | None = None) -> str:
    """The benchmarks with a variant run with and without the ask tool, ambiguous, solve, without error."""
    return (f"SELECT DISTINCT benchmark FROM (SELECT benchmark, variant_id FROM {work_runs('units', names)} w"
            " WHERE NOT error AND spec = 'ambiguous' AND protocol = 'solve' GROUP BY benchmark, variant_id"
            " HAVING MAX(CASE WHEN ask_tool THEN 1 ELSE 0 END) = 1 AND MIN(CASE WHEN ask_tool THEN 1 ELSE 0 END) = 0)"
            " v")


def blocker_benchmarks_sql(names: Mapping[str, str] | None = None) -> str:
    """The benchmarks with a registered blocker."""
    return _named("SELECT DISTINCT benchmark FROM {blockers}", names)


def asked_sql(by: Sequence[str], names: Mapping[str, str] | None = None) -> str:
    """Per (``by``, task, asked or not), how many runs with the ask tool and without error: the ask rate's per-task
    sums, and its runs' values for the probability of improvement, as counts."""
    keys = _columns(list(dict.fromkeys([*by, "task_id"])))
    asked = "CAST(CASE WHEN n_questions > 0 THEN 1 ELSE 0 END AS DOUBLE)"  # (a bare 1.0 is a decimal in both)
    return (f"SELECT {keys}, {asked} AS value, COUNT(*) AS n FROM {work_runs('ask_calibration', names)} w"
            f" WHERE NOT error GROUP BY {keys}, {asked}")


def ran_sql(by: Sequence[str], names: Mapping[str, str] | None = None) -> str:
    """The distinct (``by``, task) of the runs with the ask tool, errors included: the tasks a side ran."""
    keys = _columns(list(dict.fromkeys([*by, "task_id"])))
    return f"SELECT DISTINCT {keys} FROM {work_runs('ask_calibration', names)} w"


class StoreView:
    """A store's runs under :meth:`ambiglib.RunSet.filter`'s criteria (a value or a list of values per column of
    :data:`CELL`; None does not filter), as the answers and paired comparisons read them: each frame it gives is
    the store's, computed once per handle, with the view's rows."""

    def __init__(self, store: StoreMetrics, criteria: Mapping[str, Any] | None = None):
        self.store = store
        self.criteria = {c: v for c, v in (criteria or {}).items() if v is not None}
        unknown = [c for c in self.criteria if c not in CELL]
        if unknown:
            raise ArgumentError(f"filter over a store: {unknown[0]!r} is not a column the answers filter a store by;"
                                f" they filter by {list(CELL)}")

    def __repr__(self) -> str:
        return f"StoreView({self.store!r}, {self.criteria!r})"

    def filter(self, **criteria: Any) -> StoreView:
        """The view with ``criteria`` added (each narrows the runs further, as a RunSet's filter of a filter)."""
        merged = dict(self.criteria)
        for column, value in criteria.items():
            if value is None:
                continue
            if column in merged:  # a filter of a filter keeps the runs both keep
                old, new = (set(v) if isinstance(v, (list, tuple, set, frozenset)) else {v}
                            for v in (merged[column], value))
                value = sorted(old & new, key=str)
            merged[column] = value
        return StoreView(self.store, merged)

    def memo(self, key: Any, compute: Any, still: Any = None, *, share: bool = False) -> Any:
        """``compute()``, kept with the store's handle under the view's criteria and ``key``."""
        return self.store.memo(("view", tuple(sorted((c, repr(v)) for c, v in self.criteria.items())), key), compute)

    def _rows(self, frame: pd.DataFrame, only: Sequence[str] | None = None) -> pd.DataFrame:
        """The rows of ``frame`` the view keeps: by every criterion (``only``: by these alone)."""
        keep = np.ones(len(frame), dtype=bool)
        for column, value in self.criteria.items():
            if only is not None and column not in only:
                continue
            if column not in frame.columns:  # a guard: every frame a view filters has the criteria's columns
                raise ValueError(f"{column!r} is not a column of this store frame ({list(frame.columns)})")
            values = list(value) if isinstance(value, (list, tuple, set, frozenset)) else [value]
            keep &= frame[column].isin(values).to_numpy(dtype=bool, na_value=False)
        return frame[keep].reset_index(drop=True)

    def _frame(self, name: str, sql: str, only: Sequence[str] | None = None) -> pd.DataFrame:
        return self._rows(self.store.memo(("frame", name), lambda: self.store.engine.query(sql)), only)

    def cells(self) -> pd.DataFrame:
        """:data:`CELL` and ``n_runs``: each distinct condition of the view's runs, with its runs."""
        return self._frame("cells", cells_sql(self.store.names))

    def benchmarks(self) -> list[str]:
        """The view's benchmarks, sorted."""
        return sorted(set(self.cells()["benchmark"].astype(object)))

    def designs(self) -> pd.DataFrame:
        """:func:`designs_sql`'s rows of the view's benchmarks (the other criteria do not apply to them)."""
        return self._frame("designs", designs_sql(self.store.names), ("benchmark",))

    def tool_tasks(self) -> pd.DataFrame:
        """:func:`tool_tasks_sql`'s rows of the view (by benchmark and protocol)."""
        return self._frame("tool tasks", tool_tasks_sql(self.store.names), ("benchmark", "protocol"))

    def has_blockers(self) -> bool:
        """Whether a task of the view's benchmarks registers a blocker."""
        return len(self._frame("blocker benchmarks", blocker_benchmarks_sql(self.store.names), ("benchmark",))) > 0

    def has_tool_pairs(self) -> bool:
        """Whether a variant of the view's benchmarks was run with and without the ask tool (ambiguous, solve)."""
        return len(self._frame("tool pairs", tool_pairs_sql(self.store.names), ("benchmark",))) > 0

    def _keyed(self, name: str, by: Sequence[str], sql: Any, filters: Sequence[str]) -> pd.DataFrame:
        """A per-task frame the engine groups by ``filters`` and ``by`` (``sql(columns)``), with the view's rows
        (each criterion must be one of ``filters``), in ``by``'s order."""
        columns = list(dict.fromkeys([*filters, *by]))
        frame = self.store.memo((name, tuple(columns)), lambda: _compact(self.store.engine.query(sql(columns)),
                                                                         columns))
        return canonical(self._rows(frame), list(by), ["task_id"])

    def calibration_sums(self, by: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
        """CalibScore's per (``by``, task) sums of the view's runs with the tool, without error (``is_amb, is_full,
        asked_amb, asked_full``: both specs, pooled), and the (``by``, task) with any run with the tool, errors
        included."""
        names = self.store.names
        ran = self._keyed("ran", by, lambda c: ran_sql(c, names), _SPECS_POOLED)
        # a group mixing ask policies or protocols it neither fixes nor groups by is refused, as ask_calibration
        # refuses it over its runs with the tool (errors included: the same distinct values)
        _single_condition(canonical(ran, list(dict.fromkeys([*by, "policy", "protocol"]))), list(by),
                          ("policy", "protocol"), "ask_calibration")
        per = self._keyed("calibration", by, lambda c: calibration_sql(c, names), _SPECS_POOLED)
        sums = list(CALIBRATION_SUMS)
        per = per.groupby([*by, "task_id"], sort=True, as_index=False)[sums].sum()
        return per[[*by, "task_id", *sums]], ran[[*by, "task_id"]].drop_duplicates().reset_index(drop=True)

    def asked(self, by: Sequence[str]) -> pd.DataFrame:
        """Per (``by``, task, ``value``: asked 1.0 or not 0.0), how many of the view's runs with the tool and without
        error (``n``)."""
        names = self.store.names
        counts = self._keyed("asked", by, lambda c: asked_sql(c, names), _BY_SPEC)
        # (the runs of several protocols, where the view fixes none, are counted together, as the ask rate pools them)
        return counts.groupby([*by, "task_id", "value"], sort=True, as_index=False)["n"].sum()

    def ran(self, by: Sequence[str]) -> pd.DataFrame:
        """The (``by``, task) with any of the view's runs with the tool (of its spec, where it names one), errors
        included."""
        names = self.store.names
        ran = self._keyed("ran by spec", by, lambda c: ran_sql(c, names), _BY_SPEC)
        return ran[[*by, "task_id"]].drop_duplicates().reset_index(drop=True)


def _compact(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """``frame`` with its group columns of few values as categories, as it is kept for every view that reads it (a
    row per task and agent: 1.4 M rows at the simulator's 10,000×); :func:`canonical` gives each view's rows their
    types back."""
    return frame.astype({c: "category" for c in columns if c in frame.columns and frame[c].dtype != bool})


#: the columns a view's per-task frames are grouped by (to keep the view's rows): with the specs pooled (CalibScore
#: pools both) or apart (an ask rate is of one spec)
_SPECS_POOLED = ("benchmark", "suite", "model", "policy", "protocol", "ask_tool")
_BY_SPEC = (*_SPECS_POOLED, "spec")


def viewed(rs: RunSet | StoreMetrics | StoreView) -> RunSet | StoreView:
    """A store's handle as the view of all its runs; a run set or a view as it is."""
    from ambiglib.engines._store import StoreMetrics

    return StoreView(rs) if isinstance(rs, StoreMetrics) else rs
