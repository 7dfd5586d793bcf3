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

#: the comparison metrics a store's per-task sums are computed for: the ask rates and CalibScore, questions per run,
#: precision, recall and Ask-F1
ON_STORE = ("calib_score", "ask_rate", "questions_per_run", "ask_f1", "precision", "recall", "mean_score",
            "score_gain_pp", "pass_gain_pp", "gain_per_question")


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
    """The distinct (``by``, task) of the runs, errors included: the tasks a side ran (a view keeps those of its
    runs: with the tool, of a spec, ...)."""
    keys = _columns(list(dict.fromkeys([*by, "task_id"])))
    return f"SELECT DISTINCT {keys} FROM {work_runs('units', names)} w"


def scores_sql(by: Sequence[str], names: Mapping[str, str] | None = None) -> str:
    """Per (``by``, task), of the runs without error that have a score (``invalid`` and ``timeout`` without one
    score 0): the questions they asked and the list of their scores, in any order (each list is added up here, in
    one order: :func:`ambiglib.metrics._information.score_moments`)."""
    keys = _columns(list(dict.fromkeys([*by, "task_id"])))
    return (f"SELECT {keys}, CAST(SUM(n_questions) AS BIGINT) AS questions, array_agg(score) AS scores"
            f" FROM {work_runs('units', names)} w WHERE NOT error AND score IS NOT NULL GROUP BY {keys}")


#: a run's columns a view filters by, as the queries below give them (``ask_tool`` null as false)
_RUN_CELL = ("r.benchmark, r.suite, r.model, r.policy, r.protocol, r.spec, COALESCE(r.ask_tool, false) AS ask_tool")


def question_counts_sql(by: Sequence[str], names: Mapping[str, str] | None = None) -> str:
    """Per (``by``, task, ``value``: how many questions a run asked), how many runs with the ask tool on ambiguous
    tasks, without error (``n``): questions per run, its share asking, and its runs' values, as counts."""
    keys = _columns(list(dict.fromkeys([*by, "task_id"])))
    return (f"SELECT {keys}, n_questions AS value, COUNT(*) AS n FROM {work_runs('ask_f1', names)} w"
            f" WHERE NOT error GROUP BY {keys}, n_questions")


def unattributed_runs_sql(names: Mapping[str, str] | None = None) -> str:
    """The distinct cells (and status) of the runs with a question the log does not attribute to a blocker."""
    return _named(f"SELECT DISTINCT {_RUN_CELL}, r.status FROM {{questions}} q JOIN {{runs}} r ON r.run_id = q.run_id"
                  " WHERE q.attributed = false", names)


def strays_sql(names: Mapping[str, str] | None = None) -> str:
    """Each relevant question of a run with the ask tool on an ambiguous task, without error, naming a blocker its
    task (which has a record) does not register, with its run's cell and its place among the questions."""
    return _named(
        f"SELECT {_RUN_CELL}, q.run_id, q.q_index, q.blocker_id, r.variant_id, q._row AS q_row"
        " FROM {questions} q JOIN {runs} r ON r.run_id = q.run_id"
        " JOIN {tasks} t ON t.benchmark = r.benchmark AND t.suite = r.suite AND t.variant_id = r.variant_id"
        " LEFT JOIN {blockers} b ON b.benchmark = r.benchmark AND b.suite = r.suite"
        "  AND b.variant_id = r.variant_id AND b.blocker_id = q.blocker_id"
        " WHERE q.relevant AND COALESCE(r.ask_tool, false) AND r.spec = 'ambiguous' AND r.status <> 'error'"
        " AND t.n_blockers IS NOT NULL AND b.blocker_id IS NULL", names)


def unrecorded_sql(names: Mapping[str, str] | None = None) -> str:
    """Per cell and task (benchmark, suite, variant), the runs with the ask tool on an ambiguous task, without
    error, whose task has no record (or no blocker count): the first by its place in the log, and its run id."""
    return _named(
        f"SELECT {_RUN_CELL}, r.variant_id, MIN(r._row) AS first_row, min_by(r.run_id, r._row) AS run_id"
        " FROM {runs} r LEFT JOIN {tasks} t ON t.benchmark = r.benchmark AND t.suite = r.suite"
        " AND t.variant_id = r.variant_id"
        " WHERE COALESCE(r.ask_tool, false) AND r.spec = 'ambiguous' AND r.status <> 'error'"
        " AND t.n_blockers IS NULL"
        " GROUP BY r.benchmark, r.suite, r.model, r.policy, r.protocol, r.spec, COALESCE(r.ask_tool, false),"
        " r.variant_id", names)


def question_scores_sql(names: Mapping[str, str] | None = None) -> str:
    """The distinct cells of the runs (without error) a judge's label scores a single question of."""
    return _named(f"SELECT DISTINCT {_RUN_CELL} FROM {{labels}} l JOIN {{runs}} r ON r.run_id = l.run_id"
                  " WHERE l.q_index IS NOT NULL AND r.status <> 'error'", names)


class StoreView:
    """A store's runs under :meth:`ambiglib.RunSet.filter`'s criteria (a value or a list of values per column of
    :data:`CELL`; None does not filter), as the answers and paired comparisons read them: each frame it gives is
    the store's, computed once per handle, with the view's rows."""

    def __init__(self, store: StoreMetrics, criteria: Mapping[str, Any] | None = None,
                 without: tuple[tuple[tuple[str, ...], frozenset[tuple[str, ...]]], ...] = ()):
        self.store = store
        self.criteria = {c: v for c, v in (criteria or {}).items() if v is not None}
        #: the groups left out (as ``RunSet.with_runs`` leaves a loaded run set's out): per group columns, their
        #: values as text
        self.without = without
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
        return StoreView(self.store, merged, self.without)

    def leaving_out(self, by: Sequence[str], keys: Sequence[tuple[str, ...]]) -> StoreView:
        """The view without the runs whose ``by`` values (as text) are one of ``keys``."""
        if not keys:
            return self
        return StoreView(self.store, self.criteria, (*self.without, (tuple(by), frozenset(keys))))

    def memo(self, key: Any, compute: Any, still: Any = None, *, share: bool = False) -> Any:
        """``compute()``, kept with the store's handle under the view's criteria and ``key``."""
        return self.store.memo(("view", tuple(sorted((c, repr(v)) for c, v in self.criteria.items())),
                                repr(self.without), key), compute)

    def _rows(self, frame: pd.DataFrame, only: Sequence[str] | None = None) -> pd.DataFrame:
        """The rows of ``frame`` the view keeps: by every criterion (``only``: by these alone)."""
        return frame[self._mask(frame, only)].reset_index(drop=True)

    def _mask(self, frame: pd.DataFrame, only: Sequence[str] | None = None) -> np.ndarray:
        """Which rows of ``frame`` the view keeps (:meth:`_rows`)."""
        keep = np.ones(len(frame), dtype=bool)
        for column, value in self.criteria.items():
            if only is not None and column not in only:
                continue
            if column not in frame.columns:  # a guard: every frame a view filters has the criteria's columns
                raise ValueError(f"{column!r} is not a column of this store frame ({list(frame.columns)})")
            values = list(value) if isinstance(value, (list, tuple, set, frozenset)) else [value]
            keep &= frame[column].isin(values).to_numpy(dtype=bool, na_value=False)
        for by, keys in self.without if only is None else ():
            if keep.any():
                keep &= ~_in_keys(frame, by, keys)
        return keep

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

    def _keyed(self, name: str, by: Sequence[str], sql: Any, filters: Sequence[str],
               keys: Sequence[str] = ("task_id",)) -> pd.DataFrame:
        """A per-task frame the engine groups by ``filters`` and ``by`` (``sql(columns)``), with the view's rows
        (each criterion must be one of ``filters``), in the order of ``by`` and ``keys``."""
        columns = list(dict.fromkeys([*filters, *by]))
        frame = self.store.memo((name, tuple(columns)), lambda: _as_frame(self.store.engine.arrow(sql(columns)),
                                                                          columns))
        return canonical(_texts(self._rows(frame), columns), list(by), list(keys))

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

    # ------------------------------------------------------------------ the scores, for the payoff and its parts

    def scores(self, by: Sequence[str], values: bool = False) -> Any:
        """Per (``by``, task) of the view's runs without error that have a score: ``score_sum, n, score_ssd``
        (:func:`ambiglib.metrics._information.score_moments`, from the engine's lists of scores: the loaded log's
        bits) and ``questions``; with ``values``, also how many runs had each score a task (``value, n``)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        from ambiglib.metrics._information import score_moments

        names = self.store.names
        columns = list(dict.fromkeys([*_BY_SPEC, *by]))

        def fetch() -> tuple[Any, pd.DataFrame]:
            table = self.store.engine.arrow(scores_sql(columns, names))
            return table.select(["scores"]), _as_frame(table.drop_columns(["scores"]), columns)

        table, keys = self.store.memo(("scores", tuple(columns)), fetch)
        keep = self._mask(keys)
        mine = _texts(keys[keep].reset_index(drop=True), columns)  # (in the table's order: lists match by place)
        types = canonical(mine.head(0), list(by)).dtypes
        g = mine.astype({c: types[c] for c in by}).groupby([*by, "task_id"], sort=True, observed=True)
        codes = g.ngroup().to_numpy()
        out = g.size().reset_index()[[*by, "task_id"]]
        lists = table.column("scores").filter(pa.array(keep)).combine_chunks()
        parents = pc.list_parent_indices(lists).to_numpy(zero_copy_only=False)
        scores = pc.cast(pc.list_flatten(lists), "double").to_numpy(zero_copy_only=False)
        # (a row with a null key is in no group, as a groupby leaves it out)
        grouped, scored = codes >= 0, codes[parents] >= 0
        group, value = codes[parents][scored], scores[scored]
        sums, counts, ssd = score_moments(group, value, len(out))
        out = out.assign(score_sum=sums, n=counts, score_ssd=ssd,
                         questions=np.bincount(codes[grouped], mine["questions"].to_numpy(np.int64)[grouped],
                                               len(out)).astype(np.int64))
        if not values:
            return out
        # how many runs had each score a task: (group, score) pairs counted by sorting, not by a frame a run; the
        # group columns as categories (a row a task and score: millions at 10,000x)
        order = np.lexsort((value, group))
        group, value = group[order], value[order]
        first = np.ones(len(group), dtype=bool)
        first[1:] = (group[1:] != group[:-1]) | (value[1:] != value[:-1])
        starts = np.flatnonzero(first)
        counts = np.diff(np.append(starts, len(group))).astype(np.int64)
        keys = out[[*by, "task_id"]].astype("category").iloc[group[starts]].reset_index(drop=True)
        return out, keys.assign(value=value[starts], n=counts)

    def voi_parts(self, by: Sequence[str], k: int, paired: bool) -> Any:
        """The value of information's parts (:func:`ambiglib.metrics._information.voi_parts_from`) of the view's
        benchmark, by ``by``, as far as its per-task sums need them (its pairs and base summed per task): paired
        here from the store's per-variant sums of that benchmark alone (one query: 0.7 M rows of the simulator's
        1.7 M at 10,000×). Not kept with the handle: a row per task and agent (150 MB at 10,000×) is computed
        again where it is asked for again, the groups and refusals (:meth:`StoreMetrics._voi_groups`) once."""
        from ambiglib.engines._store import with_score_sums
        from ambiglib.metrics._information import VOI_BASE_COLUMNS, VOI_VARIANT_COLUMNS, voi_parts_from

        wanted = set(self.criteria) - {"benchmark"}
        if wanted - {"protocol"} or self.without or isinstance(self.criteria.get("benchmark", []), list):
            # (a guard: the payoff and the gains read one benchmark's solve runs)
            raise ValueError(f"the value of information's parts are one benchmark's; this view filters {self.criteria}")
        bench = self.criteria["benchmark"]
        full = ["benchmark", *[c for c in by if c != "benchmark"]]
        base = [c for c in full if c != "policy"]
        excluded = self.store.memo(("voi groups", tuple(full)),
                                   lambda: self.store._voi_groups(full).set_index(base)["n_excluded"])
        # the benchmark's rank among the store's, in the engine's order of their names (their bytes' order, as
        # Python orders str): its part of the query (no name from a log is written into the SQL)
        everyone = sorted(StoreView(self.store).benchmarks(), key=lambda b: str(b).encode())
        part = everyone.index(bench) + 1 if bench in everyone else 0  # (0: no part, no row)

        def variants() -> pd.DataFrame:
            # (the engine's rows let go once summed: the pairing holds their frame alone)
            table = self.store._voi_part(full, part)
            # (no row: no variant of it paired here, its parts are those of none, the same paired or not)
            if table.num_rows:
                found = table.column("benchmark").unique().to_pylist()
                if found != [bench]:  # (a guard: the engine ranks the names as Python orders them)
                    raise ValueError(f"the store's benchmark {part} is {found}, not {bench!r}")
            return with_score_sums(table)

        got = voi_parts_from(full, excluded, variants(), k, paired)
        keys = [c for c in by if c != "benchmark"]
        # (a row per task, not per variant: what _voi_task_sums makes of them, summed alike)
        return {"by": list(by), "base_by": [c for c in by if c != "policy"], "stat": got["stat"],
                "pairs": _per_task(got["pairs"], keys, VOI_VARIANT_COLUMNS),
                "b": _per_task(got["b"], keys, VOI_BASE_COLUMNS)}

    # ------------------------------------------------------------------ the questions, for Ask-F1 and its parts

    def question_counts(self, by: Sequence[str]) -> pd.DataFrame:
        """Per (``by``, task, ``value``: questions a run asked), how many of the view's runs with the tool on
        ambiguous tasks, without error (``n``)."""
        names = self.store.names
        counts = self._keyed("question counts", by, lambda c: question_counts_sql(c, names), _BY_SPEC)
        return counts.groupby([*by, "task_id", "value"], sort=True, as_index=False)["n"].sum()

    def unattributed_keys(self, by: Sequence[str]) -> list[tuple[str, ...]]:
        """The ``by`` values (as text) of the view's runs with a question the log does not attribute to a blocker,
        sorted: the groups Ask-F1 leaves out (``_without_unattributed``'s)."""
        found = self._frame("unattributed", unattributed_runs_sql(self.store.names))
        return sorted(set(map(tuple, found[list(by)].astype(str).to_numpy().tolist())))

    def stray_keys(self, by: Sequence[str]) -> list[tuple[tuple[str, ...], str]]:
        """The ``by`` values of the view's groups with a question naming a blocker its task does not register, each
        with its first such question in words (``_without_stray``'s)."""
        from ambiglib.metrics._asking import stray_text

        found = self._frame("strays", strays_sql(self.store.names)).sort_values("q_row", kind="stable")
        out = []
        for key, rows in found.groupby(list(by), sort=True, observed=True):
            key = key if isinstance(key, tuple) else (key,)
            out.append((tuple(map(str, key)), stray_text(rows.iloc[0], len(rows))))
        return sorted(out)

    def unrecorded(self) -> pd.DataFrame:
        """The view's runs with the tool on ambiguous tasks, without error, whose task has no record: per cell and
        task, the first (``first_row``, ``run_id``)."""
        return self._frame("unrecorded", unrecorded_sql(self.store.names))

    def ask_f1_sums(self, by: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Ask-F1's groups (``by``, ``n_excluded``: its error runs) and per-task sums (micro pooling, every run in
        the recall set) over the view's runs with the tool on ambiguous tasks."""
        from ambiglib.engines._sql import ask_f1_sql, groups_sql
        from ambiglib.metrics._pooling import ASK_F1_SUMS

        names = self.store.names
        per = self._keyed("ask_f1", by, lambda c: ask_f1_sql(c, "all_runs", names), _BY_SPEC)
        per = per.groupby([*by, "task_id"], sort=True, as_index=False)[list(ASK_F1_SUMS)].sum()
        groups = self._keyed("ask_f1 groups", by, lambda c: groups_sql("ask_f1", c, names), _BY_SPEC, ())
        groups = groups.groupby(list(by), sort=True, as_index=False, observed=True)["n_excluded"].sum()
        return groups, per

    def has_question_scores(self) -> bool:
        """Whether a judge's label scores a single question of the view's runs without error."""
        return len(self._frame("question scores", question_scores_sql(self.store.names))) > 0


def _per_task(frame: pd.DataFrame, keys: Sequence[str], columns: Sequence[str]) -> pd.DataFrame:
    """``columns`` of ``frame`` summed per (``keys``, task), as
    :func:`ambiglib.metrics._information._voi_task_sums` sums them."""
    return frame.groupby([*keys, "task_id"], sort=True, dropna=False)[list(columns)].sum().reset_index()


def _in_keys(frame: pd.DataFrame, by: Sequence[str], keys: frozenset[tuple[str, ...]]) -> np.ndarray:
    """Whether each row's values of ``by``, as text, are one of ``keys``."""
    rows = pd.MultiIndex.from_frame(frame[list(by)].astype(str)) if by else pd.Index([()] * len(frame))
    return np.asarray(rows.isin(list(keys)), dtype=bool)


def _compact(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """``frame`` with its group columns of few values as categories, as it is kept for every view that reads it (a
    row per task and agent: 1.4 M rows at the simulator's 10,000×); :func:`canonical` gives each view's rows their
    types back."""
    return frame.astype({c: "category" for c in columns if c in frame.columns and frame[c].dtype != bool})


def _as_frame(table: Any, columns: Sequence[str]) -> pd.DataFrame:
    """An engine's Arrow table as a frame to keep: every text column a category straight from Arrow (no string a
    row: 2.3 M rows of eight text columns at the simulator's 10,000×), the group columns ``columns`` too
    (:func:`_compact`); :func:`_texts` gives a view's rows their other text columns back (a task's id)."""
    return _compact(table.to_pandas(strings_to_categorical=True, use_threads=False), columns)  # (DuckDBEngine.query)


def _texts(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """``frame`` with its categories other than the group columns ``columns`` (a task's id) as text again, as the
    runs give them: sorted and grouped as text, not in their categories' order."""
    from ambiglib.metrics._common import text_dtype

    back = {c: text_dtype() for c in frame.columns
            if c not in columns and isinstance(frame[c].dtype, pd.CategoricalDtype)}
    return frame.astype(back) if back else frame


#: the columns a view's per-task frames are grouped by (to keep the view's rows): with the specs pooled (CalibScore
#: pools both) or apart (an ask rate is of one spec)
_SPECS_POOLED = ("benchmark", "suite", "model", "policy", "protocol", "ask_tool")
_BY_SPEC = (*_SPECS_POOLED, "spec")


def viewed(rs: RunSet | StoreMetrics | StoreView) -> RunSet | StoreView:
    """A store's handle as the view of all its runs; a run set or a view as it is."""
    from ambiglib.engines._store import StoreMetrics

    return StoreView(rs) if isinstance(rs, StoreMetrics) else rs
