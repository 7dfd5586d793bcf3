"""The pooled metrics of a store computed by an engine: the per-task sums as SQL (:mod:`ambiglib.engines._sql`),
run by DuckDB or a Spark session, pooled on this machine (:mod:`ambiglib.metrics._pooling`), with the refusals a
loaded run set's metric makes, as queries."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from ambiglib.engines import _contents, _sql
from ambiglib.engines._checks import StoreChecks
from ambiglib.engines._duckdb import DuckDBEngine
from ambiglib.engines._frames import frames_of
from ambiglib.errors import ArgumentError
from ambiglib.metrics import CONDITIONS, MetricError
from ambiglib.metrics._asking import (
    check_ask_f1_options,
    no_task_message,
    precision_count,
    stray_text,
    unattributed_message,
)
from ambiglib.metrics._common import _check_by, _single_condition
from ambiglib.metrics._information import score_sums, voi_parts_from, voi_table
from ambiglib.metrics._pooling import (
    BY_TYPES,
    ask_f1_table,
    calibration_table,
    canonical,
    flip_share_table,
    mean_over_units_table,
    rerun_sd_table,
)
from ambiglib.runset import summary_keys, summary_table

#: the metrics an engine computes, and the ones it refuses with why (they need every run, not per-task sums)
POOLED = ("ask_calibration", "ask_f1", "pass_at_k", "pass_hat_k", "flip_share", "rerun_sd", "value_of_information")
NOT_POOLED = {
    "majority_labels": "a majority label needs every judge's vote of a question and the tie rules",
    "category_shares": "its shares come from majority labels, which need every judge's vote",
    "label_shares": "its shares come from majority labels, which need every judge's vote",
    "flag_shares": "its shares come from majority labels, which need every judge's vote",
    "conditional_scores": "it needs each run's majority label beside its score",
    "performance": "its paired Wilcoxon tests and paired bootstrap need each task's three scores, from the runs",
    "ambiguity_classes": "it reads each task's outcome with and without ambiguity, variant by variant",
    "paired_comparison": "a comparison is not one of the handle's metrics: ambiglib.comparisons.paired_comparison(handle,"
                         " ...) compares the ask rates and CalibScore over the engine; the other metrics' pairs need"
                         " the runs",
    "harness_summary": "a harness's own summary and bootstrap recompute from its runs as the harness ordered them",
}

#: what an engine cannot compute exactly from per-task sums, by option
_NOT_POOLED_OPTIONS = {
    ("ask_f1", "pooling", "macro"): "macro pooling averages per-run ratios, which per-task integer sums do not"
                                    " give exactly",
    ("pass_at_k", "estimator", "first_k"): "the first-k estimator needs each variant's trials in trial order",
}

#: the engines a store's metrics are computed by
Engine = Literal["duckdb", "spark"]


class NotPooled(MetricError):
    """The metric (or this option of it) needs the whole runs, not per-task sums: computed on a loaded run set
    only."""


def _refuse(metric: str, why: str) -> NotPooled:
    return NotPooled(f"{metric} is not computed on an engine: {why}. Load the runs (ambiglib.load, with filters="
                     " to read part of the store) and call ambiglib.metrics." + metric)


class StoreMetrics:
    """The pooled metrics of a partitioned Parquet store, each computed as per-task sums by an engine and pooled
    here: the same table, to the last bit, as ``ambiglib.metrics.<metric>(ambiglib.load(store))``, and the same
    refusals (a group mixing conditions, a question naming an unregistered blocker, a task with no record).

    ``engine``: ``"duckdb"`` (embedded, the default) or ``"spark"`` with ``spark=`` a ``SparkSession`` you
    made (ambiglib never makes one). ``memory_limit`` and ``threads`` are DuckDB's own settings."""

    def __init__(self, store: str | os.PathLike[str], engine: Engine = "duckdb", *, spark: Any = None,
                 memory_limit: str | None = None, threads: int | None = None):
        if engine not in ("duckdb", "spark"):
            raise ArgumentError(f"engine must be 'duckdb' or 'spark' (got {engine!r})")
        if (spark is None) == (engine == "spark"):
            raise ArgumentError("engine='spark' takes spark= a SparkSession you made (and only it does)"
                                if spark is None else "spark= is for engine='spark'")
        self.store = Path(store)
        self._frames = frames = frames_of(self.store)
        self._totals: dict[str, int] | None = None  # (the store does not change under an open handle)
        self._memo: dict[Any, Any] = {}
        self._sizes: dict[Any, int] = {}
        if engine == "duckdb":
            self.engine: Any = DuckDBEngine(frames, memory_limit=memory_limit, threads=threads)
        else:
            from ambiglib.engines._spark import SparkEngine

            self.engine = SparkEngine(spark, frames)
        self.names = getattr(self.engine, "names", None)
        try:  # the checks a load makes of the rows, as queries: a damaged store's numbers are never given
            StoreChecks(self.store, frames, self.engine.rows, self.names).run()
        except BaseException:
            self.engine.close()  # a refused store leaves no connection or view behind
            raise

    def close(self) -> None:
        """Let the engine go: DuckDB's connection and spill folder, or the temporary views made in the Spark
        session (the session itself is yours)."""
        self.engine.close()

    def __enter__(self) -> StoreMetrics:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"StoreMetrics({str(self.store)!r}, engine={self.engine.name!r})"

    def memo(self, key: Any, compute: Callable[[], Any], still: Any = None, *, share: bool = False) -> Any:
        """``compute()``, kept with the handle under ``key`` (the store does not change under an open handle): what
        the answers and comparisons ask of it twice is computed once, as :meth:`ambiglib.RunSet.memo` keeps it. The
        large values (per-task frames, a row per task and agent) are kept up to :data:`KEPT_BYTES` together, the
        least recently used let go first: an answer's frames are not kept while the next answer makes its own (the
        four answers of the simulator's 10,000x store in one process, docs/performance.md)."""
        if key in self._memo:
            value = self._memo.pop(key)
            self._memo[key] = value  # (the most recently used last)
            return value
        value = self._memo[key] = compute()
        self._sizes[key] = _nbytes(value)
        large = [k for k in self._memo if self._sizes.get(k, 0) >= _LARGE]
        while large and sum(self._sizes[k] for k in large) > KEPT_BYTES:
            gone = large.pop(0)
            del self._memo[gone], self._sizes[gone]
        return value

    def __getattr__(self, name: str) -> Any:
        if name in NOT_POOLED:
            raise _refuse(name, NOT_POOLED[name])
        raise AttributeError(f"{type(self).__name__} has no metric {name!r}; it computes {list(POOLED)}")

    def _by(self, by: Sequence[str], fn: str) -> list[str]:
        return _check_by(pd.DataFrame(columns=list(BY_TYPES)), by, fn)

    def _groups(self, metric: str, by: list[str], free: Sequence[str], fn: str) -> pd.DataFrame:
        """The groups the metric lists, after refusing a group that mixes a condition (the same message as on
        a loaded run set)."""
        pairs = self.engine.query(_sql.conditions_sql(metric, by, free, self.names))
        _single_condition(canonical(pairs, list(dict.fromkeys([*by, *free]))), by, free, fn)
        return self.engine.query(_sql.groups_sql(metric, by, self.names))

    def sums(self, metric: str, *, by: Sequence[str], recall: str = "all_runs") -> tuple[pd.DataFrame, pd.DataFrame]:
        """``(groups, per_task)``: what the engine gives the pooling step for ``metric`` (the unit metrics share
        one per-task table of variants by (n, c)), after its refusals."""
        _pooled(metric)
        if metric == "value_of_information":
            raise ArgumentError("value_of_information's sums are per-variant rows with their lists of scores, not"
                                " per task: StoreMetrics.value_of_information computes it; sums_sql gives its SQL")
        by = self._by(by, metric)
        groups = self._groups(metric, by, _FREE.get(metric, CONDITIONS), metric)
        if metric == "ask_calibration":
            return groups, self.engine.query(_sql.calibration_sql(by, self.names))
        if metric == "ask_f1":
            self._ask_f1_checks(recall)
            return groups, self.engine.query(_sql.ask_f1_sql(by, recall, self.names))
        return groups, self.engine.query(_sql.units_sql(by, self.names))

    def _ask_f1_checks(self, recall: str) -> None:
        """ask_f1's refusals, in the order a loaded run set's metric makes them."""
        fn = "ask_f1"
        row = self.engine.query(_sql.unattributed_sql(self.names)).iloc[0]
        if int(row["n"]):
            raise MetricError(unattributed_message(fn, int(row["n"]), int(row["n_runs"]), row["run_id"],
                                                   int(row["q_index"])))
        row = self.engine.query(_sql.no_task_sql(recall, self.names)).iloc[0]
        if int(row["n_tasks"]):
            raise MetricError(no_task_message(fn, row, int(row["n_tasks"])))
        row = self.engine.query(_sql.stray_sql(self.names)).iloc[0]
        if int(row["n"]):
            raise MetricError(f"{fn}: {stray_text({**row, 'q_index': int(row['q_index'])}, int(row['n']))}")

    # ------------------------------------------------------------------ the metrics, as ambiglib.metrics names them

    def ask_calibration(self, *, by: Sequence[str] = ("suite", "model", "policy"), ci: bool = False,
                        confidence: float = 0.95) -> pd.DataFrame:
        """:func:`ambiglib.metrics.ask_calibration` over the store."""
        return pool("ask_calibration", *self.sums("ask_calibration", by=by), by=by, ci=ci, confidence=confidence)

    def ask_f1(self, *, by: Sequence[str] = ("suite", "model"), precision: Literal["relevant", "distinct"] = "relevant",
               recall: Literal["all_runs", "asking_runs"] = "all_runs", pooling: Literal["micro", "macro"] = "micro",
               ci: bool = False, confidence: float = 0.95) -> pd.DataFrame:
        """:func:`ambiglib.metrics.ask_f1` over the store (micro pooling: macro is refused)."""
        check_ask_f1_options(precision, recall, pooling)
        if pooling == "macro":
            raise _refuse("ask_f1", f"pooling='macro': {_NOT_POOLED_OPTIONS[('ask_f1', 'pooling', 'macro')]}")
        return pool("ask_f1", *self.sums("ask_f1", by=by, recall=recall), by=by, precision=precision, ci=ci,
                    confidence=confidence)

    def pass_at_k(self, *, k: int, by: Sequence[str] = ("suite", "model"),
                  estimator: Literal["unbiased", "first_k"] = "unbiased", ci: bool = False, n_boot: int = 10_000,
                  seed: int = 0, confidence: float = 0.95) -> pd.DataFrame:
        """:func:`ambiglib.metrics.pass_at_k` over the store (the unbiased estimator: first-k is refused)."""
        if estimator not in ("unbiased", "first_k"):
            raise ValueError(f"estimator must be 'unbiased' or 'first_k' (got {estimator!r})")
        if estimator == "first_k":
            raise _refuse("pass_at_k", f"estimator='first_k': {_NOT_POOLED_OPTIONS[('pass_at_k', 'estimator', 'first_k')]}")
        _check_k(k)
        return pool("pass_at_k", *self.sums("pass_at_k", by=by), by=by, k=k, ci=ci, n_boot=n_boot, seed=seed,
                    confidence=confidence)

    def pass_hat_k(self, *, k: int, by: Sequence[str] = ("suite", "model"), ci: bool = False, n_boot: int = 10_000,
                   seed: int = 0, confidence: float = 0.95) -> pd.DataFrame:
        """:func:`ambiglib.metrics.pass_hat_k` over the store."""
        _check_k(k)
        return pool("pass_hat_k", *self.sums("pass_hat_k", by=by), by=by, k=k, ci=ci, n_boot=n_boot, seed=seed,
                    confidence=confidence)

    def flip_share(self, *, by: Sequence[str] = ("suite", "model"), ci: bool = False, n_boot: int = 10_000,
                   seed: int = 0, confidence: float = 0.95) -> pd.DataFrame:
        """:func:`ambiglib.metrics.flip_share` over the store."""
        return pool("flip_share", *self.sums("flip_share", by=by), by=by, ci=ci, n_boot=n_boot, seed=seed,
                    confidence=confidence)

    def value_of_information(self, *, by: Sequence[str] = ("suite", "model"), k: int = 3, paired: bool = True,
                             ci: bool = False, n_boot: int = 10_000, seed: int = 0,
                             confidence: float = 0.95) -> pd.DataFrame:
        """:func:`ambiglib.metrics.value_of_information` over the store: the engine gives per-variant sums and each
        variant's list of scores; the score sums, the pairing of variants, the policies' no-tool runs and the pooling
        are this machine's."""
        groups, variants = self._voi_sums(by)
        return pool("value_of_information", groups, variants, by=by, k=k, paired=paired, ci=ci, n_boot=n_boot,
                    seed=seed, confidence=confidence)

    def _voi_sums(self, by: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
        """value_of_information's groups (without ``policy``) and per-variant sums (each variant's scores summed
        here, from the engine's list of them), after the refusals a loaded run set's makes (a group mixing ask
        policies it neither names nor pairs)."""
        groups = self._voi_groups(by)
        return groups, with_score_sums(self.engine.arrow(_sql.voi_variants_sql(self._by(by, "value_of_information"),
                                                                               self.names)))

    def _voi_part(self, by: Sequence[str], part: int) -> Any:
        """value_of_information's per-variant rows of the ``part``-th benchmark (from 1, in the engine's order of
        their names) as the engine gives them: an Arrow table, each variant's scores a list."""
        return self.engine.arrow(_sql.voi_variants_sql(self._by(by, "value_of_information"), self.names, part))

    def _voi_groups(self, by: Sequence[str]) -> pd.DataFrame:
        """value_of_information's groups (without ``policy``, each with its error runs), after the refusals a
        loaded run set's makes."""
        fn = "value_of_information"
        by = self._by(by, fn)
        base_by = [c for c in by if c != "policy"]
        tool = self.engine.query(_sql.conditions_sql("voi_tool", by, ("policy",), self.names))
        _single_condition(canonical(tool, list(dict.fromkeys([*by, "policy"]))), by, ("policy",), fn)
        if "policy" not in by:
            no_tool = self.engine.query(_sql.conditions_sql("voi_no_tool", base_by, ("policy",), self.names))
            _single_condition(canonical(no_tool, [*base_by, "policy"]), base_by, ("policy",), fn)
        return self.engine.query(_sql.groups_sql(fn, base_by, self.names))

    def rerun_sd(self, *, by: Sequence[str] = ("suite", "model")) -> pd.DataFrame:
        """:func:`ambiglib.metrics.rerun_sd` over the store."""
        return pool("rerun_sd", *self.sums("rerun_sd", by=by), by=by)

    # ------------------------------------------------------------------ what the store holds, as a load counts it

    def summary(self) -> pd.DataFrame:
        """:meth:`ambiglib.RunSet.summary` over the store: runs, variants, statuses, asking runs, questions and the
        mean score per benchmark, suite, model and condition (the engine counts; the means are added up here)."""
        by = summary_keys(self.totals()["n_logged"] > 0)
        return summary_table(self.engine.query(_contents.summary_sql(by, self.names)),
                             self.engine.query(_contents.summary_scores_sql(by, self.names)), by)

    def totals(self) -> dict[str, int]:
        """What the store holds as a whole, as a load of it counts it: ``n_runs, n_error, n_logged`` (runs with a
        log label), ``n_models, n_benchmarks, tasks_run`` (distinct benchmark, suite and task among the runs), and
        the rows of ``questions, labels, tasks, blockers`` (from the parts' footers, checked when the store was
        opened)."""
        if self._totals is None:  # one scan of the runs, shared by summary() and the pages that print the totals
            row = self.engine.rows(_contents.totals_sql(self.names))[0]
            self._totals = {k: int(v) for k, v in row.items()} | {
                name: self._frames[name].rows if name in self._frames else 0
                for name in ("questions", "labels", "tasks", "blockers")}
        return dict(self._totals)

    def inspect_metas(self) -> list[tuple[dict[str, Any], str, int]]:
        """``(meta, model, runs)`` for each distinct meta naming Inspect AI's mapping: what the warnings on how
        Inspect logs were mapped read (``ambiglib.importers._inspect_logs.mapping_warnings_of``)."""
        import json

        rows = self.engine.rows(_contents.inspect_metas_sql(self.names))
        return [(json.loads(r["meta"]), str(r["model"]), int(r["n"])) for r in rows]


#: bytes of large values (:data:`_LARGE` and up) :meth:`StoreMetrics.memo` keeps together
KEPT_BYTES = 160 << 20
_LARGE = 1 << 20


def _nbytes(value: Any) -> int:
    """About how many bytes ``value`` holds: a frame's columns, an Arrow table's buffers, and those of the frames
    and tables in a tuple, list or dict (0 for anything else: small)."""
    import pyarrow as pa

    if isinstance(value, pd.DataFrame):
        return int(value.memory_usage(index=True, deep=False).sum())
    if isinstance(value, (pa.Table, pa.Array, pa.ChunkedArray)):
        return int(value.nbytes)
    if isinstance(value, dict):
        return sum(_nbytes(v) for v in value.values())
    if isinstance(value, (tuple, list)):
        return sum(_nbytes(v) for v in value)
    return 0


def _check_k(k: Any) -> None:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer (got {k!r})")


def _pooled(metric: str) -> None:
    """Refuse a metric an engine does not compute: why, for one that needs the whole runs."""
    if metric in NOT_POOLED:
        raise _refuse(metric, NOT_POOLED[metric])
    if metric not in POOLED:
        raise ArgumentError(f"no pooled metric {metric!r}; an engine computes {list(POOLED)}")


#: the conditions each metric neither fixes nor may mix within a group, unless ``by`` names them
_FREE = {"ask_calibration": ("policy", "protocol"), "ask_f1": ("policy", "protocol")}


def pool(metric: str, groups: pd.DataFrame, per_task: Any, *, by: Sequence[str], k: int | None = None,
         precision: Literal["relevant", "distinct"] = "relevant", paired: bool = True, ci: bool = False,
         n_boot: int = 10_000, seed: int = 0, confidence: float = 0.95) -> pd.DataFrame:
    """``metric``'s table from the frames :func:`sums_sql`'s ``groups`` and ``per_task`` queries return, run by
    any engine: the pooling step of every path (``k`` for pass@k, pass^k and the value of information;
    ``precision`` for ask_f1; for the value of information, ``per_task`` is its ``variants`` query's rows, as a
    frame or an Arrow table, with their lists of scores)."""
    _pooled(metric)
    by = _check_by(pd.DataFrame(columns=list(BY_TYPES)), by, metric)
    if metric in ("pass_at_k", "pass_hat_k"):
        _check_k(k)
    if metric == "ask_calibration":
        return calibration_table(groups, per_task, by, ci=ci, confidence=confidence)
    if metric == "value_of_information":
        if not isinstance(per_task, pd.DataFrame) or "score_sum" not in per_task.columns:
            per_task = with_score_sums(per_task)
        base_by = [c for c in by if c != "policy"]
        groups = canonical(groups, base_by)
        excluded = groups.set_index(base_by)["n_excluded"] if base_by else groups["n_excluded"]
        return voi_table(voi_parts_from(by, excluded, per_task, 3 if k is None else k, paired), ci=ci,
                         n_boot=n_boot, seed=seed, confidence=confidence)
    if metric == "ask_f1":
        check_ask_f1_options(precision, "all_runs", "micro")
        return ask_f1_table(groups, per_task, by, precision=precision_count(precision), ci=ci, confidence=confidence)
    if metric in ("pass_at_k", "pass_hat_k"):
        assert k is not None
        return mean_over_units_table(groups, per_task, by, metric, metric, k, ci=ci, n_boot=n_boot, seed=seed,
                                     confidence=confidence)
    if metric == "flip_share":
        return flip_share_table(groups, per_task, by, ci=ci, n_boot=n_boot, seed=seed, confidence=confidence)
    return rerun_sd_table(groups, per_task, by)


def with_score_sums(variants: Any) -> pd.DataFrame:
    """value_of_information's per-variant rows (an Arrow table, or a frame, with a ``scores`` list a row) as the
    pooling step takes them: each variant's ``score_sum`` added up here (:func:`score_sums`), its list dropped."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    table = variants if isinstance(variants, pa.Table) else pa.Table.from_pandas(variants, preserve_index=False)
    lists = table.column("scores").combine_chunks()
    if pa.types.is_null(lists.type):  # (no row, or no score in any: Spark gives no type)
        lists = pa.array([None] * len(lists), pa.list_(pa.float64()))
    lengths = pc.fill_null(pc.list_value_length(lists), 0).to_numpy(zero_copy_only=False)
    values = pc.cast(pc.list_flatten(lists), pa.float64()).to_numpy(zero_copy_only=False)
    frame = table.drop_columns(["scores"]).to_pandas(use_threads=False)  # (in this thread: DuckDBEngine.query)
    frame["score_sum"] = score_sums(np.repeat(np.arange(len(lengths)), lengths), values, len(frame))
    return frame


def sums_sql(metric: str, *, by: Sequence[str] = ("suite", "model"), recall: str = "all_runs") -> dict[str, str]:
    """The SQL an engine runs for ``metric``: ``groups`` (every group with its error runs), ``conditions`` (the
    distinct conditions per group, to refuse one that mixes them), ``per_task`` (the sums the pooling step
    takes) and, for ask_f1, its three refusals. Each reads tables named ``runs``, ``questions``, ``tasks`` and
    ``blockers``: register a store's frames under those names (partition columns as text) in any SQL engine."""
    _pooled(metric)
    by = _check_by(pd.DataFrame(columns=list(BY_TYPES)), by, metric)
    if metric == "value_of_information":
        base_by = [c for c in by if c != "policy"]
        return {"groups": _sql.groups_sql(metric, base_by),
                "conditions": _sql.conditions_sql("voi_tool", by, ("policy",)),
                **({"conditions_without_tool": _sql.conditions_sql("voi_no_tool", base_by, ("policy",))}
                   if "policy" not in by else {}),
                "variants": _sql.voi_variants_sql(by)}
    out = {"groups": _sql.groups_sql(metric, by),
           "conditions": _sql.conditions_sql(metric, by, _FREE.get(metric, CONDITIONS))}
    if metric == "ask_calibration":
        out["per_task"] = _sql.calibration_sql(by)
    elif metric == "ask_f1":
        out |= {"unattributed": _sql.unattributed_sql(), "no_task": _sql.no_task_sql(recall),
                "stray": _sql.stray_sql(), "per_task": _sql.ask_f1_sql(by, recall)}
    else:
        out["per_task"] = _sql.units_sql(by)
    return out
