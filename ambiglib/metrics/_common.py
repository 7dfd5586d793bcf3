"""What every metric shares: the working frame of runs, condition checks, ratios and interval columns."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ambiglib.errors import AmbiglibError
from ambiglib.runset import RunSet
from ambiglib.stats import bootstrap_totals, percentile_ci, wilson_ci_clustered
from ambiglib.stats._ratio_intervals import LINEARIZED, linearized_ci

CONDITIONS = ("spec", "ask_tool", "policy", "protocol")


FAILED = ("invalid", "timeout")


class MetricError(AmbiglibError, ValueError):
    """The runs cannot give the metric asked for (mixed conditions, unknown blockers, ...)."""


def _text(column: pd.Series, inferred: Any) -> Any:
    """A text column as ``_work`` holds it: what pandas makes of its values as Python objects. Where pandas
    infers its string dtype (pandas 3; ``inferred`` is what it infers for text), an Arrow string column is
    cast to that dtype directly: the same column, without a Python object per value and the inference back
    (slow on a large log: docs/performance.md)."""
    if isinstance(inferred, pd.StringDtype) and isinstance(column.dtype, pd.ArrowDtype) \
            and pa.types.is_string(column.dtype.pyarrow_dtype):
        return column.astype(inferred).array
    return column.astype(object).to_numpy()


def _kept(rs: RunSet, key: tuple, compute: Callable[[], Any], *, share: bool = True) -> Any:
    """``compute()``, worked out once per run set while its frames are unchanged (:meth:`RunSet.memo`; with
    ``share``, a report's next notebook, loading the same snapshot in the same kernel, finds it too). Each frame
    or series in it is given as a new object over the same data, so a caller that adds or sets a column changes
    its own copy (pandas copies on write); lists are copied likewise."""
    return _fresh(rs.memo(key, compute, share=share))


def _fresh(value: Any) -> Any:
    if isinstance(value, (pd.DataFrame, pd.Series)):
        return value.copy(deep=False)
    if isinstance(value, tuple):
        return tuple(_fresh(v) for v in value)
    if isinstance(value, dict):
        return {k: _fresh(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_fresh(v) for v in value]
    return value


def _work(rs: RunSet) -> pd.DataFrame:
    """The runs as plain numpy/object columns, with the per-run counts metrics need (once per run set)."""
    return _kept(rs, ("work",), lambda: _working_frame(rs), share=False)  # a copy of the runs: not kept for long


def text_dtype() -> Any:
    """The dtype pandas gives a column of Python strings and None (``str`` in pandas 3, ``object`` before): the
    type of every text column of the working frame."""
    return pd.DataFrame({"x": np.array(["a", None], dtype=object)})["x"].dtype


def _working_frame(rs: RunSet) -> pd.DataFrame:
    r = rs.runs
    status = r["status"].astype(object).to_numpy()
    score = r["score"].to_numpy(dtype=float, na_value=np.nan)
    failed = np.isin(status, FAILED)
    inferred = text_dtype()
    out = pd.DataFrame({c: _text(r[c], inferred) for c in
                        ("run_id", "benchmark", "suite", "task_id", "variant_id", "model", "spec", "policy",
                         "protocol", "status", "category")})
    # the log of a run of several loaded together (null for a log loaded alone, or a run set built without it)
    out["log"] = _text(r["log"], inferred) if "log" in r.columns else np.full(len(r), None, dtype=object)
    out["ask_tool"] = r["ask_tool"].to_numpy(dtype=bool, na_value=False)
    out["trial"] = r["trial"].to_numpy(dtype=np.int64)
    # invalid and timeout runs score 0 (Ambig-DS §5.1), even where the harness left it null
    out["score"] = np.where(failed & np.isnan(score), 0.0, score)
    # null where the benchmark does not say (Ambig-DS runs have scores, not verdicts): such a run is
    # no trial of pass@k, never a failure
    out["passed"] = r["passed"].to_numpy(dtype=float, na_value=np.nan)
    out["n_questions"] = r["n_questions"].to_numpy(dtype=np.int64)
    out["error"] = status == "error"
    return out


def _isin(column: pd.Series, values: Any) -> pd.Series:
    """``column.isin(values)``. A text column held in Arrow is matched in Arrow against the text values:
    pandas makes an Arrow scalar of each value first, which is slow for the run ids of a large log's judge
    votes, matched a dozen times in a notebook. Null matches null, as in pandas; values that are not all text
    take pandas' way."""
    if _text_in_arrow(column):
        mine = column.array.__arrow_array__()
        try:
            if isinstance(values, pd.Series) and _text_in_arrow(values):
                wanted = values.array.__arrow_array__().combine_chunks().cast(mine.type)
            else:
                wanted = pa.array(list(values), type=mine.type, from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            return column.isin(values)
        hit = pc.is_in(mine, value_set=wanted)  # skip_nulls=False: a null value matches a null
        return pd.Series(np.asarray(hit, dtype=bool), index=column.index)
    return column.isin(values)


def _text_in_arrow(column: pd.Series) -> bool:
    """Whether a column is text held in Arrow (pandas' ``str`` dtype or an Arrow string dtype)."""
    return isinstance(column.array, pd.arrays.ArrowStringArray) or (
        isinstance(column.dtype, pd.ArrowDtype)
        and (pa.types.is_string(column.dtype.pyarrow_dtype) or pa.types.is_large_string(column.dtype.pyarrow_dtype)))


def _check_by(work: pd.DataFrame, by: Sequence[str], fn: str) -> list[str]:
    by = [by] if isinstance(by, str) else list(by)
    unknown = [c for c in by if c not in work.columns]
    if unknown:
        raise MetricError(f"{fn}: by= names unknown column(s) {unknown}; runs have {list(work.columns)}")
    return by


def _single_condition(work: pd.DataFrame, by: list[str], free: Sequence[str], fn: str) -> None:
    """Refuse groups that mix a condition the caller neither fixed nor grouped by."""
    for col in free:
        if col in by or len(work) == 0:
            continue
        n = work.groupby(by, sort=True, dropna=False)[col].nunique(dropna=False) if by else \
            pd.Series([work[col].nunique(dropna=False)])
        mixed = n[n > 1]
        if len(mixed):
            key = mixed.index[0]
            key = key if isinstance(key, tuple) else (key,)
            where = ", ".join(f"{b}={v!r}" for b, v in zip(by, key)) if by else "all runs"
            values = sorted(map(str, work.loc[(work[by] == list(key)).all(axis=1) if by else slice(None), col]
                                .unique()))
            raise MetricError(
                f"{fn}: the group ({where}) mixes {col} values {values}; add {col!r} to by= or filter"
                f" the runs first (e.g. rs.filter({col}=...))"
            )


def _ratio(num: Any, den: Any, empty: float = np.nan) -> Any:
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), empty)


def _f1(p: Any, r: Any) -> Any:
    p, r = np.asarray(p, dtype=float), np.asarray(r, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(p + r > 0, 2 * p * r / np.where(p + r > 0, p + r, 1), np.where(np.isnan(p + r), np.nan, 0.0))


def _cluster_ci(sums: pd.DataFrame, keys: list[str], cluster: str,
                stat: Callable[[Mapping[str, np.ndarray]], Mapping[str, np.ndarray]],
                n_boot: int, seed: int, confidence: float) -> pd.DataFrame:
    """Bootstrap statistics of additive per-cluster sums, group by group.

    ``sums`` has one row per (group keys…, cluster) and additive columns; ``stat``
    maps replicate totals (column → array) to named statistics. Groups with the
    same number of clusters share one set of resamples and one matrix product.
    """
    cols = [c for c in sums.columns if c not in (*keys, cluster)]
    groups = list(sums.groupby(keys, sort=True, dropna=False)) if keys else [((), sums)]
    by_size: dict[int, list] = {}
    for key, g in groups:
        g = g.sort_values(cluster)
        by_size.setdefault(len(g), []).append((key, g[cols].to_numpy(dtype=float)))
    rows = []
    for members in by_size.values():
        totals = bootstrap_totals(np.hstack([m for _, m in members]), n_boot, seed)  # (n_boot, len(cols) * len(members))
        for j, (key, _) in enumerate(members):
            block = totals[:, j * len(cols):(j + 1) * len(cols)]
            values = stat({c: block[:, i] for i, c in enumerate(cols)})
            row = dict(zip(keys, key if isinstance(key, tuple) else (key,)))
            for name, samples in values.items():
                low, high = percentile_ci(np.asarray(samples, dtype=float), confidence)
                row[f"{name}_ci_low"], row[f"{name}_ci_high"] = float(low), float(high)
            rows.append(row)
    out = pd.DataFrame(rows)
    out.attrs["ci_method"] = bootstrap_method(n_boot)
    return out


def _linearized_ci(sums: pd.DataFrame, keys: list[str], cluster: str,
                   stat: Callable[[Mapping[str, np.ndarray]], Mapping[str, np.ndarray]], confidence: float,
                   bounded: Mapping[str, float | None] | None = None,
                   floor: Mapping[str, float | None] | None = None) -> pd.DataFrame:
    """:func:`_cluster_ci`'s columns, each statistic's interval the linearized t-interval over clusters
    (:func:`ambiglib.stats.linearized_ci`) in place of a percentile bootstrap: at 8-12 tasks it covers near its level
    where the bootstrap did not (``bench/coverage.py``). ``bounded``: statistic → its scale where it is a
    difference of values on [0, 1] (100 for percentage points): where every task gives the same value, the interval
    is then ± the share of tasks that could differ unseen, else missing. ``floor``: statistic → the least value it
    can take (0 for a count)."""
    cols = [c for c in sums.columns if c not in (*keys, cluster)]
    groups = list(sums.groupby(keys, sort=True, dropna=False)) if keys else [((), sums)]
    rows = []
    for key, g in groups:
        values = g[cols].to_numpy(dtype=float)
        names = list(stat({c: values.sum(axis=0)[i:i + 1] for i, c in enumerate(cols)}))
        row = dict(zip(keys, key if isinstance(key, tuple) else (key,)))
        for name in names:
            def one(totals: np.ndarray, name: str = name) -> np.ndarray:
                return np.asarray(stat({c: totals[..., i] for i, c in enumerate(cols)})[name], dtype=float)

            ci = linearized_ci(values, one, confidence, bounded=(bounded or {}).get(name), floor=(floor or {}).get(name))
            row[f"{name}_ci_low"], row[f"{name}_ci_high"] = ci.low, ci.high
        rows.append(row)
    out = pd.DataFrame(rows)
    out.attrs["ci_method"] = LINEARIZED
    return out


def bootstrap_method(n_boot: int) -> str:
    """How a task bootstrap's interval is made, in the words every table's ``ci_method`` uses."""
    return f"task bootstrap (percentile, {n_boot:,} draws)"


#: how a rate's interval is made where tasks repeat (:func:`ambiglib.stats.wilson_ci_clustered`)
WILSON_OVER_TASKS = "Wilson over tasks (the count ÷ the task-clustered design effect; plain Wilson with one run a task)"
#: how the interval of a harmonic mean of two rates (Ask-F1, CalibScore) is made (:func:`_bounds_of_two_rates`)
BOUNDS_OF_TWO_RATES = ("bounds from its two rates' Wilson intervals over tasks, each at half the error (Bonferroni;"
                       " the score rises with both): it covers at least its level")


def label_intervals(out: pd.DataFrame, confidence: float, methods: Mapping[str, str]) -> pd.DataFrame:
    """``out`` with ``ci_level`` and ``ci_method``: how the interval of each statistic (``methods``: statistic →
    method) is made, said once for the statistics that share a method. A table that already says how some of its
    intervals are made keeps that, the new ones added."""
    have = dict(out.attrs.get("ci_methods") or {})
    have.update(methods)
    by_method: dict[str, list[str]] = {}
    for stat, method in have.items():
        by_method.setdefault(method, []).append(stat)
    text = next(iter(by_method)) if len(by_method) == 1 else \
        "; ".join(f"{', '.join(stats)}: {method}" for method, stats in by_method.items())
    out = out.drop(columns=["ci_level", "ci_method"], errors="ignore").assign(ci_level=confidence, ci_method=text)
    out.attrs["ci_methods"] = have
    return out


def _mean_over_units_ci(out: pd.DataFrame, units: pd.DataFrame, by: list[str], name: str, n_boot: int, seed: int,
                        confidence: float) -> pd.DataFrame:
    """``out`` with ``<name>_ci_low`` and ``<name>_ci_high``: the mean of ``units[name]`` over the units (variants)
    that have one, bootstrapped by resampling tasks (``units["task_id"]``, all of a task's variants together)."""
    units = units.assign(_v=units[name].fillna(0.0), _n=units[name].notna().astype(float))
    sums = units.groupby([*by, "task_id"], sort=True, dropna=False)[["_v", "_n"]].sum().reset_index()
    stat = lambda t: {name: _ratio(t["_v"], t["_n"])}  # noqa: E731
    return _with_ci(out, by, _cluster_ci(sums, by, "task_id", stat, n_boot, seed, confidence), [name], confidence)


def _order(out: pd.DataFrame, by: list[str], columns: Sequence[str]) -> pd.DataFrame:
    ordered = [*by, *columns]
    extra = [c for c in out.columns if c not in ordered]
    return out[[*ordered, *extra]].sort_values(by).reset_index(drop=True) if by else out[[*ordered, *extra]]


def _with_ci(out: pd.DataFrame, by: list[str], ci: pd.DataFrame, stats_: Sequence[str],
             confidence: float | None = None) -> pd.DataFrame:
    """``out`` with each statistic's ``_ci_low`` and ``_ci_high`` from ``ci`` (:func:`_cluster_ci`) beside it and,
    with ``confidence``, labelled (:func:`label_intervals`)."""
    method = ci.attrs.get("ci_method")
    if len(ci) == 0:  # no group had a run to resample: every interval is null
        ci = pd.DataFrame({c: pd.Series(dtype=out[c].dtype) for c in by} |
                          {f"{n}_ci_{e}": pd.Series(dtype=float) for n in stats_ for e in ("low", "high")})
    merged = out.merge(ci, on=by, how="left") if by else pd.concat([out, ci.reindex(out.index)], axis=1)
    cols = list(out.columns)
    for name in stats_:
        i = cols.index(name) + 1
        cols[i:i] = [f"{name}_ci_low", f"{name}_ci_high"]
    merged = merged[cols]
    merged.attrs = dict(out.attrs)
    if confidence is not None and method is not None:
        merged = label_intervals(merged, confidence, {name: method for name in stats_})
    return merged


def _clustered_wilson(out: pd.DataFrame, by: list[str], per_task: pd.DataFrame, k: str, n: str,
                      confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``out`` (its groups of ``by``), the Wilson interval of the share ``k`` / ``n`` over tasks
    (:func:`ambiglib.stats.wilson_ci_clustered`: a task's trials are one cluster); ``per_task`` has one row per
    (by…, task) with its counts. NaN for a group with nothing counted."""
    if by:
        codes = per_task.groupby(by, sort=False, dropna=False).ngroup().to_numpy(np.int64)
        found = per_task[by].drop_duplicates().astype(object).reset_index(drop=True)  # in the order of the codes
    else:
        codes, found = np.zeros(len(per_task), dtype=np.int64), None
    ci = wilson_ci_clustered(per_task[k].to_numpy(float), per_task[n].to_numpy(float), codes,
                             confidence=confidence)
    if not by:
        return np.repeat(ci.low[:1], len(out)), np.repeat(ci.high[:1], len(out))
    found["_low"], found["_high"] = ci.low[:len(found)], ci.high[:len(found)]
    merged = out[by].astype(object).merge(found, on=by, how="left")
    return merged["_low"].to_numpy(float), merged["_high"].to_numpy(float)


def _clustered_wilson_columns(out: pd.DataFrame, by: list[str], name: str, per_task: pd.DataFrame, k: str, n: str,
                              confidence: float) -> pd.DataFrame:
    """``out`` with ``<name>_ci_low`` and ``<name>_ci_high`` beside ``name``: :func:`_clustered_wilson` of the
    share ``k`` / ``n``, labelled."""
    low, high = _clustered_wilson(out, by, per_task, k, n, confidence)
    return label_intervals(_beside(out, name, low, high), confidence, {name: WILSON_OVER_TASKS})


def _beside(out: pd.DataFrame, name: str, low, high) -> pd.DataFrame:
    """``out`` with ``<name>_ci_low`` and ``<name>_ci_high`` just after ``name``."""
    cols = list(out.columns)
    i = cols.index(name) + 1
    out = out.assign(**{f"{name}_ci_low": low, f"{name}_ci_high": high})
    return out[[*cols[:i], f"{name}_ci_low", f"{name}_ci_high", *cols[i:]]]


def _bounds_of_two_rates(first: tuple[np.ndarray, np.ndarray], second: tuple[np.ndarray, np.ndarray],
                         combine: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The interval of a score that rises with each of two rates (F1 of precision and recall; CalibScore of the ask
    rate on ambiguous tasks and 1 − that on full ones): ``combine`` of the two lower ends and of the two upper
    ends. With each rate's interval at 1 − α/2, both cover together with probability at least 1 − α (Bonferroni),
    and then so does this interval: a percentile bootstrap of such a score covered 0.87-0.93 from 8 to 50 tasks,
    and gave a point (1.00 to 1.00) for a perfect agent (``bench/coverage.py``). A rate that is undefined (no
    question: no precision) may be anything from 0 to 1."""
    (lo1, hi1), (lo2, hi2) = first, second
    low = combine(np.where(np.isnan(lo1), 0.0, lo1), np.where(np.isnan(lo2), 0.0, lo2))
    high = combine(np.where(np.isnan(hi1), 1.0, hi1), np.where(np.isnan(hi2), 1.0, hi2))
    return low, high


def _excluded(work: pd.DataFrame, by: list[str]) -> pd.Series:
    if not by:
        return pd.Series({(): int(work["error"].sum())})
    return work.groupby(by, sort=True, dropna=False)["error"].sum().astype(int)
