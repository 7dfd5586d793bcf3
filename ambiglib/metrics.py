"""Every number the three papers report, defined once.

Each function is pure: it takes a :class:`~ambiglib.RunSet`, returns a new tidy
DataFrame with one row per group (group columns first) and never mutates its
input. Defaults follow the papers' text, checked against their printed numbers;
named variants reproduce what the released harnesses compute instead
(``docs/metrics.md`` lists both, with sources).

Conventions shared by all metrics:

* Runs with status ``error`` (harness failures) are excluded and counted in
  ``n_excluded``; ``invalid`` and ``timeout`` runs score 0 and stay in every
  denominator (Ambig-DS §5.1).
* A condition column (``spec``, ``ask_tool``, ``policy``, ``protocol``) that a
  metric does not fix and ``by`` does not name must be constant within each
  group: a group that mixes, say, two ask policies is an error that says so,
  never a silent pool. Where a metric compares runs with and without the ask tool,
  ``policy`` splits only the with-tool runs (the no-tool runs have no policy to
  vary).
* ``ci=True`` adds ``<stat>_ci_low`` and ``<stat>_ci_high``: Wilson intervals for
  simple proportions, and for pooled ratios a bootstrap that resamples tasks
  (``task_id``, all trials and variants of a task together) and recomputes the
  pooled ratio (runlog-v1 B.9).
"""

from __future__ import annotations

from typing import Any, Callable, Literal, Mapping, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .runset import RunSet, _arrow_of
from .schema import DEFAULT_POLICY
from .stats import bootstrap_totals, majority_vote, paired_bootstrap_ci, paired_wilcoxon, percentile_ci, wilson_ci

__all__ = [
    "ask_f1",
    "majority_labels",
    "ask_calibration",
    "calib_score",
    "value_of_information",
    "pass_at_k",
    "ambiguity_classes",
    "performance",
    "category_shares",
    "conditional_scores",
    "label_shares",
    "flag_shares",
]

CONDITIONS = ("spec", "ask_tool", "policy", "protocol")
FAILED = ("invalid", "timeout")


class MetricError(ValueError):
    """The runs cannot give the metric asked for (mixed conditions, unknown blockers, ...)."""


# ----------------------------------------------------------------------------- shared plumbing


def _text(column: pd.Series, inferred: Any) -> Any:
    """A text column as ``_work`` holds it: what pandas makes of its values as Python objects. Where pandas
    infers its string dtype (pandas 3; ``inferred`` is what it infers for text), an Arrow string column is
    cast to that dtype directly: the same column, without a Python object per value and the inference back
    (~0.5 s a column at 500,000 runs)."""
    if isinstance(inferred, pd.StringDtype) and isinstance(column.dtype, pd.ArrowDtype) \
            and pa.types.is_string(column.dtype.pyarrow_dtype):
        return column.astype(inferred).array
    return column.astype(object).to_numpy()


def _work(rs: RunSet) -> pd.DataFrame:
    """The runs as plain numpy/object columns, with the per-run counts metrics need."""
    r = rs.runs
    status = r["status"].astype(object).to_numpy()
    score = r["score"].to_numpy(dtype=float, na_value=np.nan)
    failed = np.isin(status, FAILED)
    inferred = pd.DataFrame({"x": np.array(["a", None], dtype=object)})["x"].dtype  # what pandas makes of text
    out = pd.DataFrame({c: _text(r[c], inferred) for c in
                        ("run_id", "benchmark", "suite", "task_id", "variant_id", "model", "spec", "policy",
                         "protocol", "status", "category")})
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
    pandas makes an Arrow scalar of each value first (3 s for the run ids of a large log's judge votes,
    matched a dozen times in a notebook). Null matches null, as in pandas; values that are not all text
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


def _ratio(num, den, empty: float = np.nan):
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), empty)


def _f1(p, r):
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
    for n, members in by_size.items():
        totals = bootstrap_totals(np.hstack([m for _, m in members]), n_boot, seed)  # (n_boot, len(cols) * len(members))
        for j, (key, _) in enumerate(members):
            block = totals[:, j * len(cols):(j + 1) * len(cols)]
            values = stat({c: block[:, i] for i, c in enumerate(cols)})
            row = dict(zip(keys, key if isinstance(key, tuple) else (key,)))
            for name, samples in values.items():
                low, high = percentile_ci(np.asarray(samples, dtype=float), confidence)
                row[f"{name}_ci_low"], row[f"{name}_ci_high"] = float(low), float(high)
            rows.append(row)
    return pd.DataFrame(rows)


def _order(out: pd.DataFrame, by: list[str], columns: Sequence[str]) -> pd.DataFrame:
    ordered = [*by, *columns]
    extra = [c for c in out.columns if c not in ordered]
    return out[[*ordered, *extra]].sort_values(by).reset_index(drop=True) if by else out[[*ordered, *extra]]


def _with_ci(out: pd.DataFrame, by: list[str], ci: pd.DataFrame, stats_: Sequence[str]) -> pd.DataFrame:
    if len(ci) == 0:  # no group had a run to resample: every interval is null
        ci = pd.DataFrame({c: pd.Series(dtype=out[c].dtype) for c in by} |
                          {f"{n}_ci_{e}": pd.Series(dtype=float) for n in stats_ for e in ("low", "high")})
    merged = out.merge(ci, on=by, how="left") if by else pd.concat([out, ci.reindex(out.index)], axis=1)
    cols = list(out.columns)
    for name in stats_:
        i = cols.index(name) + 1
        cols[i:i] = [f"{name}_ci_low", f"{name}_ci_high"]
    return merged[cols]


def _wilson_columns(out: pd.DataFrame, name: str, k: str, n: str, confidence: float) -> pd.DataFrame:
    low, high = wilson_ci(out[k].to_numpy(float), out[n].to_numpy(float), confidence)
    cols = list(out.columns)
    i = cols.index(name) + 1
    out = out.assign(**{f"{name}_ci_low": np.atleast_1d(low), f"{name}_ci_high": np.atleast_1d(high)})
    return out[[*cols[:i], f"{name}_ci_low", f"{name}_ci_high", *cols[i:]]]


def _excluded(work: pd.DataFrame, by: list[str]) -> pd.Series:
    if not by:
        return pd.Series({(): int(work["error"].sum())})
    return work.groupby(by, sort=True, dropna=False)["error"].sum().astype(int)


# ----------------------------------------------------------------------------- Ask-F1


def _per_run_asks(rs: RunSet, runs: pd.DataFrame) -> pd.DataFrame:
    """Per run: relevant questions and distinct registered blockers addressed."""
    q = rs.questions
    q = q[_isin(q["run_id"], runs["run_id"])]
    rel = q[q["relevant"].to_numpy(dtype=bool, na_value=False)]
    n_rel = rel.groupby("run_id", observed=True).size()
    n_disc = rel.groupby("run_id", observed=True)["blocker_id"].nunique()
    out = runs[["run_id"]].copy()
    out["n_relevant"] = out["run_id"].map(n_rel).fillna(0).astype(int).to_numpy()
    out["n_discovered"] = out["run_id"].map(n_disc).fillna(0).astype(int).to_numpy()
    return out, rel


def ask_f1(rs: RunSet, *, by: Sequence[str] = ("suite", "model"),
           precision: Literal["relevant", "distinct"] = "relevant",
           recall: Literal["all_runs", "asking_runs"] = "all_runs",
           pooling: Literal["micro", "macro"] = "micro", ci: bool = False, n_boot: int = 10_000,
           seed: int = 0, confidence: float = 0.95) -> pd.DataFrame:
    """Compute question precision, blocker recall and Ask-F1.

    Only runs on ambiguous tasks with the ask tool enter.

    Parameters
    ----------
    rs : RunSet
    by : sequence of str, default ("suite", "model")
    precision : {"relevant", "distinct"}, default "relevant"
        ``relevant``: relevant questions / questions (HIL-Bench eq. 1).
        ``distinct``: distinct blockers addressed / questions (the released
        harness's ``compute_hil_metrics``); lower whenever a blocker is asked twice.
    recall : {"all_runs", "asking_runs"}, default "all_runs"
        ``all_runs``: blockers addressed / registered blockers over every run,
        so silent guessing lowers recall (the paper's framing). ``asking_runs``:
        only runs with at least one question (the harness's headline).
    pooling : {"micro", "macro"}, default "micro"
        ``micro`` pools counts over the group's runs, then P, R and F1 from the
        pooled ratios (HIL-Bench Table 1: F1 is the harmonic mean of pooled P and
        R). ``macro`` averages per-run values: precision over asking runs, recall
        and F1 over the recall set, a silent run counting F1 = 0.
    ci : bool, default False
        Add task-bootstrap intervals for precision, recall and ask_f1.
    n_boot, seed, confidence
        Bootstrap replicates, seed and interval level.

    Returns
    -------
    pandas.DataFrame
        ``by…, n_runs, n_questions, n_relevant, n_blockers, n_discovered,
        precision, recall, ask_f1, n_excluded``: ``n_blockers`` is the registered
        blockers of the recall set's runs; ``n_discovered`` the distinct registered
        blockers addressed, summed over runs. Precision with no questions is 0, as
        in the harness; ``n_questions`` tells the reader.

    Raises
    ------
    MetricError
        A run in the recall set has no task record (its blockers are unknown), a
        question names a blocker its task does not register, or a group mixes
        conditions.

    References
    ----------
    HIL-Bench §3.5, eq. 1, Table 1; harness: ``compute_hil_metrics``,
    ``run_hil_bench.py:summarize_rows`` (harness-formats §4.5).
    """
    if precision not in ("relevant", "distinct"):
        raise ValueError(f"precision must be 'relevant' or 'distinct' (got {precision!r})")
    if recall not in ("all_runs", "asking_runs"):
        raise ValueError(f"recall must be 'all_runs' or 'asking_runs' (got {recall!r})")
    if pooling not in ("micro", "macro"):
        raise ValueError(f"pooling must be 'micro' or 'macro' (got {pooling!r})")
    runs, additive, stat, excluded, by = _ask_f1_parts(rs, by, precision, recall, pooling)
    if by:
        totals = runs.groupby(by, sort=True, dropna=False)[additive].sum()
        totals["n_runs"] = runs.groupby(by, sort=True, dropna=False).size()
        totals = totals.reindex(excluded.index, fill_value=0)
    else:
        totals = pd.DataFrame([runs[additive].sum()]).assign(n_runs=len(runs))
    values = stat({c: totals[c].to_numpy(float) for c in additive})
    out = pd.DataFrame({
        "n_runs": totals["n_runs"].to_numpy(int), "n_questions": totals["n_questions"].to_numpy(int),
        "n_relevant": totals["n_relevant"].to_numpy(int), "n_blockers": totals["b_recall"].to_numpy(int),
        "n_discovered": totals["n_discovered"].to_numpy(int), **values,
        "n_excluded": excluded.reindex(totals.index).to_numpy(int) if by else [int(excluded.iloc[0])],
    })
    if by:
        out = pd.concat([totals.index.to_frame(index=False), out], axis=1)
    out = _order(out, by, ["n_runs", "n_questions", "n_relevant", "n_blockers", "n_discovered",
                           "precision", "recall", "ask_f1"])
    if ci:
        sums = runs.groupby([*by, "task_id"], sort=True, dropna=False)[additive].sum().reset_index()
        cis = _cluster_ci(sums, by, "task_id", stat, n_boot, seed, confidence)
        out = _with_ci(out, by, cis, ["precision", "recall", "ask_f1"])
    return out


def _ask_f1_parts(rs: RunSet, by: Sequence[str], precision: str, recall: str, pooling: str):
    """ask_f1's runs with their additive columns, the columns, the statistic of summed columns,
    the excluded error runs per group, and ``by`` checked."""
    fn = "ask_f1"
    work = _work(rs)
    by = _check_by(work, by, fn)
    scope = work[(work["spec"] == "ambiguous") & work["ask_tool"]]
    _single_condition(scope, by, ("policy", "protocol"), fn)
    excluded = _excluded(scope, by)
    runs = scope[~scope["error"]].copy()

    per_run, rel = _per_run_asks(rs, runs)
    runs["n_relevant"] = per_run["n_relevant"].to_numpy()
    tasks = rs.tasks[["benchmark", "suite", "variant_id", "n_blockers"]].astype(
        {"benchmark": object, "suite": object, "variant_id": object})
    runs = runs.merge(tasks.astype({"n_blockers": float}), on=["benchmark", "suite", "variant_id"], how="left")
    in_recall = np.ones(len(runs), bool) if recall == "all_runs" else runs["n_questions"].to_numpy() > 0
    unknown = runs[in_recall & runs["n_blockers"].isna()]
    if len(unknown):
        first = unknown.iloc[0]
        n_tasks = unknown[["benchmark", "suite", "variant_id"]].drop_duplicates().shape[0]
        raise MetricError(
            f"{fn}: no task record for (benchmark={first['benchmark']!r}, suite={first['suite']!r},"
            f" variant_id={first['variant_id']!r})"
            + (f" and {n_tasks - 1} more task(s)" if n_tasks > 1 else "")
            + f"; recall needs each task's registered blockers (run {first['run_id']!r}). Load the task"
            " records (e.g. the HIL-Bench blocker registries) or filter those runs out"
        )
    # a relevant question must name a blocker its task registers
    if len(rel):
        reg = rs.blockers[["benchmark", "suite", "variant_id", "blocker_id"]].astype(object)
        named = rel[["run_id", "q_index", "blocker_id"]].astype(object).merge(
            runs[["run_id", "benchmark", "suite", "variant_id", "n_blockers"]], on="run_id")
        named = named[named["n_blockers"].notna()]
        check = named.merge(reg.assign(_registered=True), how="left",
                            on=["benchmark", "suite", "variant_id", "blocker_id"])
        stray = check[check["_registered"].isna()]
        if len(stray):
            s = stray.iloc[0]
            raise MetricError(
                f"{fn}: run {s['run_id']!r} question {s['q_index']} names blocker {s['blocker_id']!r}, which"
                f" task (benchmark={s['benchmark']!r}, suite={s['suite']!r}, variant_id={s['variant_id']!r})"
                f" does not register ({len(stray)} such question(s))"
            )
    runs["n_discovered"] = runs["run_id"].map(per_run.set_index("run_id")["n_discovered"]).to_numpy()
    runs["n_blockers"] = runs["n_blockers"].fillna(0)
    runs["in_recall"] = in_recall
    runs["asking"] = runs["n_questions"] > 0
    num_p = "n_relevant" if precision == "relevant" else "n_discovered"

    # per-run values for macro pooling
    runs["p_run"] = _ratio(runs[num_p], runs["n_questions"], 0.0)
    runs["r_run"] = _ratio(runs["n_discovered"], runs["n_blockers"], 0.0)
    runs["f_run"] = _f1(runs["p_run"], runs["r_run"])
    runs["b_recall"] = np.where(in_recall, runs["n_blockers"], 0)
    runs["d_recall"] = np.where(in_recall, runs["n_discovered"], 0)
    runs["p_sum"] = np.where(runs["asking"], runs["p_run"], 0.0)
    runs["r_sum"] = np.where(in_recall, runs["r_run"], 0.0)
    runs["f_sum"] = np.where(in_recall, runs["f_run"], 0.0)

    def stat(t: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        if pooling == "micro":
            p = _ratio(t[num_p], t["n_questions"], 0.0)
            r = _ratio(t["d_recall"], t["b_recall"], 0.0)
            out = {"precision": p, "recall": r, "ask_f1": _f1(p, r)}
        else:
            out = {"precision": _ratio(t["p_sum"], t["asking"], 0.0), "recall": _ratio(t["r_sum"], t["in_recall"], 0.0),
                   "ask_f1": _ratio(t["f_sum"], t["in_recall"], 0.0)}
        # the harness's 0 for "no questions" is about runs that could have asked; a group
        # with no (non-error) run at all has no value, not 0
        none = np.asarray(t["n_scored"], dtype=float) == 0
        return {k: np.where(none, np.nan, v) for k, v in out.items()}

    additive = ["n_questions", "n_relevant", "n_discovered", "b_recall", "d_recall", "asking", "in_recall",
                "p_sum", "r_sum", "f_sum", "n_scored"]
    runs["n_scored"] = 1
    runs[["asking", "in_recall"]] = runs[["asking", "in_recall"]].astype(int)
    return runs, additive, stat, excluded, by


# ----------------------------------------------------------------------------- ask rates


def calib_score(ask_on_ambiguous, ask_on_full):
    """Return CalibScore: the harmonic mean of ask-on-ambiguous and 1 − ask-on-full (0 when both are 0).

    References
    ----------
    Ambig-DS Table 13 (e.g. 100/33 → 0.80, 70/0 → 0.82, 95/95 → 0.10).
    """
    return _f1(ask_on_ambiguous, 1 - np.asarray(ask_on_full, dtype=float))


def ask_calibration(rs: RunSet, *, by: Sequence[str] = ("suite", "model", "policy"), ci: bool = False,
                    n_boot: int = 10_000, seed: int = 0, confidence: float = 0.95) -> pd.DataFrame:
    """Compute ask rates on ambiguous and on fully specified tasks, and CalibScore.

    A run asked when it has at least one question. Only runs with the ask tool enter.

    Returns
    -------
    pandas.DataFrame
        ``by…, n_ambiguous, n_full, ask_on_ambiguous, ask_on_full, calib_score,
        n_excluded``. A rate with no runs is null. With ``ci=True``: Wilson
        intervals for the two rates, a task bootstrap for ``calib_score``.

    References
    ----------
    Ambig-DS §4.3 and Appendix E.2, Table 13; runlog-v1 B.2. No released code
    computes these (harness-formats §4.3). Ambig-DS Table 13 uses the ask-only runs:
    filter ``protocol="ask_only"`` (a group mixing protocols is refused).
    """
    runs, additive, stat, excluded, by = _calibration_parts(rs, by)
    totals = runs.groupby(by, sort=True, dropna=False)[additive].sum().reindex(excluded.index, fill_value=0) \
        if by else pd.DataFrame([runs[additive].sum()])
    a = _ratio(totals["asked_amb"], totals["is_amb"])
    f = _ratio(totals["asked_full"], totals["is_full"])
    out = pd.DataFrame({
        "n_ambiguous": totals["is_amb"].to_numpy(int), "n_full": totals["is_full"].to_numpy(int),
        "ask_on_ambiguous": a, "ask_on_full": f, "calib_score": calib_score(a, f),
        "n_excluded": excluded.reindex(totals.index).to_numpy(int) if by else [int(excluded.iloc[0])],
        "_k_amb": totals["asked_amb"].to_numpy(int), "_k_full": totals["asked_full"].to_numpy(int),
    })
    if by:
        out = pd.concat([totals.index.to_frame(index=False), out], axis=1)
    out = _order(out, by, ["n_ambiguous", "n_full", "ask_on_ambiguous", "ask_on_full", "calib_score"])
    if ci:
        out = _wilson_columns(out, "ask_on_ambiguous", "_k_amb", "n_ambiguous", confidence)
        out = _wilson_columns(out, "ask_on_full", "_k_full", "n_full", confidence)
        sums = runs.groupby([*by, "task_id"], sort=True, dropna=False)[additive].sum().reset_index()
        only = lambda t: {"calib_score": stat(t)["calib_score"]}  # the rates have Wilson intervals
        out = _with_ci(out, by, _cluster_ci(sums, by, "task_id", only, n_boot, seed, confidence), ["calib_score"])
    return out.drop(columns=["_k_amb", "_k_full"])


def _calibration_parts(rs: RunSet, by: Sequence[str]):
    """ask_calibration's runs with additive columns, the columns, the statistic, the excluded runs, ``by``."""
    fn = "ask_calibration"
    work = _work(rs)
    by = _check_by(work, by, fn)
    scope = work[work["ask_tool"]]
    _single_condition(scope, by, ("policy", "protocol"), fn)
    excluded = _excluded(scope, by)
    runs = scope[~scope["error"]].copy()
    runs["asked"] = (runs["n_questions"] > 0).astype(int)
    runs["is_amb"] = (runs["spec"] == "ambiguous").astype(int)
    runs["is_full"] = 1 - runs["is_amb"]
    runs["asked_amb"] = runs["asked"] * runs["is_amb"]
    runs["asked_full"] = runs["asked"] * runs["is_full"]
    additive = ["is_amb", "is_full", "asked_amb", "asked_full"]

    def stat(t):
        a, f = _ratio(t["asked_amb"], t["is_amb"]), _ratio(t["asked_full"], t["is_full"])
        return {"calib_score": calib_score(a, f), "ask_on_ambiguous": a, "ask_on_full": f}

    return runs, additive, stat, excluded, by


# ----------------------------------------------------------------------------- pass@k


def _pass_at_k_unbiased(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """1 − C(n−c, k)/C(n, k) per unit (Chen et al. 2021), computed as a stable product.

    Units share a few (n, c) pairs (n is a handful of trials): each distinct pair is computed once."""
    n, c = np.asarray(n, dtype=np.int64), np.asarray(c, dtype=np.int64)
    if len(n) == 0:
        return np.empty(0)
    span = int(c.max()) - int(c.min()) + 1
    _, first, inverse = np.unique(n * span + (c - c.min()), return_index=True, return_inverse=True)
    values = np.array([1.0 if ni - ci_ < k else 1.0 - np.prod(1.0 - k / np.arange(ni - ci_ + 1, ni + 1))
                       for ni, ci_ in zip(n[first], c[first])])
    return values[inverse.reshape(-1)]


def _per_unit_pass(runs: pd.DataFrame, unit: list[str], k: int, estimator: str) -> pd.DataFrame:
    """Per unit (a variant under one condition): trials, successes, pass@k (NaN if < k trials)."""
    if estimator == "first_k":
        known = runs[runs["passed"].notna()].sort_values([*unit, "trial"])
        first = known.groupby(unit, sort=False, dropna=False).head(k)
        g = first.groupby(unit, sort=True, dropna=False)
        out = pd.DataFrame({"n": runs.groupby(unit, sort=True, dropna=False)["passed"].count(),
                            "c": g["passed"].sum(), "first": g["passed"].max()})
        out[["c"]] = out[["c"]].fillna(0)
        out["pass_at_k"] = np.where(out["n"] >= k, out["first"], np.nan)
        return out.drop(columns="first").reset_index()
    g = runs.groupby(unit, sort=True, dropna=False)
    out = pd.DataFrame({"n": g["passed"].count(), "c": g["passed"].sum()})
    n, c = out["n"].to_numpy(int), out["c"].to_numpy(int)
    out["pass_at_k"] = np.where(n >= k, _pass_at_k_unbiased(n, c, k), np.nan)
    return out.reset_index()


def pass_at_k(rs: RunSet, *, k: int, by: Sequence[str] = ("suite", "model"),
              estimator: Literal["unbiased", "first_k"] = "unbiased", ci: bool = False, n_boot: int = 10_000,
              seed: int = 0, confidence: float = 0.95) -> pd.DataFrame:
    """Compute pass@k per task (variant), averaged over tasks.

    Parameters
    ----------
    k : int
    by : sequence of str, default ("suite", "model")
        The conditions (``spec``, ``ask_tool``, ``policy``, ``protocol``) must be
        constant within a group or named here.
    estimator : {"unbiased", "first_k"}, default "unbiased"
        ``unbiased``: 1 − C(n−c, k)/C(n, k) with n trials and c successes (Chen et
        al. 2021). ``first_k``: any success among the first k trials in trial
        order (the HIL-Bench harness's ``summarize_rows``).
    ci : bool, default False
        Add ``pass_at_k_ci_low`` and ``pass_at_k_ci_high``: a bootstrap that resamples tasks
        (``task_id``, all its variants together) and recomputes the mean over variants.
    n_boot, seed, confidence
        Bootstrap replicates, seed and interval level.

    Returns
    -------
    pandas.DataFrame
        ``by…, n_tasks, pass_at_k, n_excluded``: ``n_tasks`` counts variants with
        at least k non-error trials (the others are left out, as the HIL-Bench
        harness drops them); ``n_excluded`` counts error runs.

    References
    ----------
    runlog-v1 B.4; HIL-Bench §4.1 (pass@3); LHAW Table 3 (pass@3).
    """
    fn = "pass_at_k"
    if estimator not in ("unbiased", "first_k"):
        raise ValueError(f"estimator must be 'unbiased' or 'first_k' (got {estimator!r})")
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer (got {k!r})")
    work = _work(rs)
    by = _check_by(work, by, fn)
    _single_condition(work, by, CONDITIONS, fn)
    excluded = _excluded(work, by)
    runs = work[~work["error"]]
    units = _per_unit_pass(runs, [*by, "benchmark", "variant_id"], k, estimator)
    g = units.groupby(by, sort=True, dropna=False) if by else units.assign(_all=0).groupby("_all")
    out = pd.DataFrame({"n_tasks": g["pass_at_k"].count(), "pass_at_k": g["pass_at_k"].mean()})
    if by:
        out = out.reindex(excluded.index)
        out["n_tasks"] = out["n_tasks"].fillna(0).astype(int)
        out = out.reset_index()
    else:
        out = out.reset_index(drop=True)
    out["n_excluded"] = excluded.to_numpy(int)
    out = _order(out, by, ["n_tasks", "pass_at_k"])
    if ci:
        task_of = runs.drop_duplicates(["benchmark", "variant_id"]).set_index(["benchmark", "variant_id"])["task_id"]
        units["task_id"] = [task_of.get((b, v)) for b, v in zip(units["benchmark"], units["variant_id"])]
        units["pk_n"] = units["pass_at_k"].notna().astype(float)
        units["pk"] = units["pass_at_k"].fillna(0.0)
        sums = units.groupby([*by, "task_id"], sort=True, dropna=False)[["pk", "pk_n"]].sum().reset_index()
        stat = lambda t: {"pass_at_k": _ratio(t["pk"], t["pk_n"])}  # noqa: E731
        out = _with_ci(out, by, _cluster_ci(sums, by, "task_id", stat, n_boot, seed, confidence), ["pass_at_k"])
    return out


# ----------------------------------------------------------------------------- value of information


def _tool_split(work: pd.DataFrame, by: list[str], fn: str) -> tuple[list[str], pd.DataFrame, pd.DataFrame]:
    """Split solve runs into no-tool and with-tool; ``policy`` in by splits only the latter, unless
    the no-tool runs carry policies of their own (then see ``_for_policies``)."""
    base_by = [c for c in by if c != "policy"]
    solve = work[work["protocol"] == "solve"]
    tool, no_tool = solve[solve["ask_tool"]], solve[~solve["ask_tool"]]
    _single_condition(tool, by, ("policy",), fn)
    if "policy" not in by:
        _single_condition(no_tool, base_by, ("policy",), fn)
    return base_by, no_tool, tool


def _for_policies(runs: pd.DataFrame, tool: pd.DataFrame, base_by: list[str]) -> pd.DataFrame:
    """The no-tool runs each with-tool policy is compared against: the runs of that policy
    where it has any (LHAW Table 10: each prompting strategy also runs without the tool),
    else the runs of the default policy, shared by every policy (LHAW Table 14: the personas)."""
    keys = [*base_by, "policy"]
    policies = tool[keys].drop_duplicates()
    own = runs.merge(policies, on=keys)
    rest = policies.merge(own[keys].drop_duplicates(), on=keys, how="left", indicator=True)
    rest = rest[rest["_merge"] == "left_only"].drop(columns="_merge")
    shared = runs[runs["policy"] == DEFAULT_POLICY].drop(columns="policy")
    shared = shared.merge(rest, on=base_by) if base_by else shared.merge(rest, how="cross")
    return pd.concat([own, shared[runs.columns]], ignore_index=True)


def value_of_information(rs: RunSet, *, by: Sequence[str] = ("suite", "model"), k: int = 3, paired: bool = True,
                         ci: bool = False, n_boot: int = 10_000, seed: int = 0,
                         confidence: float = 0.95) -> pd.DataFrame:
    """Compute what the ask tool buys: pass@k and mean score with and without it, and gain per question.

    Parameters
    ----------
    paired : bool, default True
        True: scores with and without the tool are compared on the same variants,
        those with at least one non-error trial in both conditions (at least k for
        pass@k). False: each condition is scored over the variants that have results
        in it, as LHAW's tables do (its TheAgentCompany denominators differ between
        the two conditions when runs fail: Table 10, ReAct outcome-critical 2/38
        without the tool, 7/40 with it). The two agree when no run failed.

    With ``policy`` in ``by``, a policy's no-tool runs are those carrying that
    policy (LHAW Table 10's prompting strategies each run without the tool too);
    a policy without such runs is compared against the no-tool runs that have no
    policy (Table 14's personas share them). The same holds for the fully
    specified baseline runs.

    Returns
    -------
    pandas.DataFrame
        ``by…, base_pass_at_k, base_mean_score`` (fully specified, no tool; null
        when there are no such runs), ``pass_at_k, pass_at_k_with_tool,
        pass_gain_pp`` (pass@k over variants, unbiased estimator), ``mean_score,
        mean_score_with_tool, score_gain_pp`` (mean over trials), ``ask_rate``
        (with-tool trials that asked), ``variant_ask_rate`` (variants with at least
        one asking trial, of all the variants compared: with ``paired=False`` those with
        results in either condition, so a variant whose with-tool runs all failed counts
        as not asking), ``avg_per_traj`` (questions per asking trial),
        ``n_questions`` (in with-tool trials), ``pass_gain_pp_per_question,
        score_gain_pp_per_question`` (gain in percentage points / n_questions; null
        with no questions), then ``n_variants`` (variants compared), ``n_trials,
        n_trials_with_tool, n_excluded``.

    References
    ----------
    LHAW §4.2, Table 3 (its "Ask %" is ``variant_ask_rate``: runlog-v1 B.3) and
    Table 14 (Gain%/Q = Ckpt gain / Qs: 23.3/186 → 0.13).
    """
    parts = _voi_parts(rs, by, k, paired)
    by, base_by, tool, pairs, b, excluded, stat = (parts[n] for n in ("by", "base_by", "tool", "pairs", "b", "excluded",
                                                                      "stat"))
    variant_cols, base_cols = VOI_VARIANT_COLUMNS, VOI_BASE_COLUMNS
    groups_index = pd.concat([pairs[by], tool[by]]).drop_duplicates().sort_values(by) if by else None
    vt = pairs.groupby(by, sort=True, dropna=False)[variant_cols].sum() if by else \
        pd.DataFrame([pairs[variant_cols].sum()])
    if by:
        vt = vt.reindex(pd.MultiIndex.from_frame(groups_index) if len(by) > 1 else
                        pd.Index(groups_index[by[0]]), fill_value=0).reset_index()
        bt = b.groupby(by, sort=True, dropna=False)[base_cols].sum().reset_index()
        totals = vt.merge(bt, on=by, how="left")
    else:
        totals = pd.concat([vt, pd.DataFrame([b[base_cols].sum()])], axis=1)
    totals[base_cols] = totals[base_cols].fillna(0)
    values = stat({c: totals[c].to_numpy(float) for c in [*variant_cols, *base_cols]})
    out = pd.DataFrame(values)
    out["n_questions"] = totals["t_questions"].to_numpy(int)
    out["n_variants"] = totals["v"].to_numpy(int)
    out["n_trials"] = totals["a_n_scored"].to_numpy(int)
    out["n_trials_with_tool"] = totals["t_n_scored"].to_numpy(int)
    if by:
        out = pd.concat([totals[by].reset_index(drop=True), out], axis=1)
        ex = excluded.rename("n_excluded").reset_index() if base_by else None
        out = out.merge(ex, on=base_by, how="left") if base_by else out.assign(n_excluded=int(excluded.iloc[0]))
    else:
        out["n_excluded"] = int(excluded.iloc[0])
    out["n_excluded"] = out["n_excluded"].fillna(0).astype(int)
    columns = ["base_pass_at_k", "base_mean_score", "pass_at_k", "pass_at_k_with_tool", "pass_gain_pp",
               "mean_score", "mean_score_with_tool", "score_gain_pp", "ask_rate", "variant_ask_rate",
               "avg_per_traj", "n_questions", "pass_gain_pp_per_question", "score_gain_pp_per_question"]
    out = _order(out, by, columns)
    if ci:
        cis = _cluster_ci(_voi_task_sums(parts), by, "task_id", stat, n_boot, seed, confidence)
        out = _with_ci(out, by, cis, [c for c in columns if c != "n_questions"])
    return out


VOI_VARIANT_COLUMNS = ["pk_na", "pk_a", "pk_nt", "pk_t", "a_score_sum", "a_n_scored", "t_score_sum", "t_n_scored",
                       "t_asking", "t_questions", "v", "v_asked"]
VOI_BASE_COLUMNS = ["b_pk_n", "b_pk", "b_score_sum", "b_n_scored"]


def _voi_task_sums(parts: dict) -> pd.DataFrame:
    """Per (by…, task): its variants' sums under each group, and its base (full-spec) sums."""
    by, pairs, b = parts["by"], parts["pairs"], parts["b"]
    variant_cols, base_cols = VOI_VARIANT_COLUMNS, VOI_BASE_COLUMNS
    vs = pairs.groupby([*by, "task_id"], sort=True, dropna=False)[variant_cols].sum().reset_index()
    bs = b.groupby([*by, "task_id"], sort=True, dropna=False)[base_cols].sum().reset_index()
    sums = vs.merge(bs, on=[*by, "task_id"], how="outer")
    if "policy" in by:  # base tasks without any variant pair still belong to each policy group
        sums = sums.dropna(subset=["policy"])
    sums[[*variant_cols, *base_cols]] = sums[[*variant_cols, *base_cols]].fillna(0)
    return sums


def _voi_parts(rs: RunSet, by: Sequence[str], k: int, paired: bool) -> dict:
    """value_of_information's per-variant sums (``pairs``, base ``b``), its statistic and groups."""
    fn = "value_of_information"
    work = _work(rs)
    by = _check_by(work, by, fn)
    base_by, no_tool, tool = _tool_split(work, by, fn)
    excluded = _excluded(pd.concat([no_tool, tool]), base_by)
    no_tool, tool = no_tool[~no_tool["error"]], tool[~tool["error"]]
    full = no_tool[no_tool["spec"] == "full"]
    amb = no_tool[no_tool["spec"] == "ambiguous"]
    tool = tool[tool["spec"] == "ambiguous"]
    vkey = ["benchmark", "task_id", "variant_id"]

    def per_variant(runs: pd.DataFrame, keys: list[str], prefix: str) -> pd.DataFrame:
        units = _per_unit_pass(runs, [*keys, *vkey], k, "unbiased")
        g = runs.assign(_asking=(runs["n_questions"] > 0).astype(int)).groupby([*keys, *vkey], sort=True,
                                                                                dropna=False)
        extra = pd.DataFrame({"score_sum": g["score"].sum(), "n_scored": g["score"].count(),
                              "asking": g["_asking"].sum(), "questions": g["n_questions"].sum()}).reset_index()
        units = units.merge(extra, on=[*keys, *vkey])
        return units.rename(columns={c: f"{prefix}{c}" for c in units.columns if c not in (*keys, *vkey)})

    if "policy" in by:
        amb, full = _for_policies(amb, tool, base_by), _for_policies(full, tool, base_by)
    a = per_variant(amb, by, "a_")
    t = per_variant(tool, by, "t_")
    pairs = t.merge(a, on=[*by, *vkey], how="inner" if paired else "outer")
    for side in ("a_", "t_"):
        pairs[f"{side}n_scored"] = pairs[f"{side}n_scored"].fillna(0)
    if paired:
        pairs = pairs[(pairs["a_n_scored"] > 0) & (pairs["t_n_scored"] > 0)].copy()
        both_k = pairs["a_pass_at_k"].notna() & pairs["t_pass_at_k"].notna()
        has_a = has_t = both_k
    else:
        has_a, has_t = pairs["a_pass_at_k"].notna(), pairs["t_pass_at_k"].notna()
    pairs["pk_na"], pairs["pk_nt"] = has_a.astype(int), has_t.astype(int)
    pairs["pk_a"] = np.where(has_a, pairs["a_pass_at_k"], 0.0)
    pairs["pk_t"] = np.where(has_t, pairs["t_pass_at_k"], 0.0)
    pairs[["a_score_sum", "t_score_sum", "t_asking", "t_questions"]] = \
        pairs[["a_score_sum", "t_score_sum", "t_asking", "t_questions"]].fillna(0)
    pairs["v"] = 1
    pairs["v_asked"] = (pairs["t_asking"] > 0).astype(int)
    b = per_variant(full, by, "b_")
    b["b_pk_n"] = b["b_pass_at_k"].notna().astype(int)
    b["b_pk"] = b["b_pass_at_k"].fillna(0.0)

    def stat(s):
        pa_, pt = _ratio(s["pk_a"], s["pk_na"]), _ratio(s["pk_t"], s["pk_nt"])
        ma, mt = _ratio(s["a_score_sum"], s["a_n_scored"]), _ratio(s["t_score_sum"], s["t_n_scored"])
        pass_gain, score_gain = 100 * (pt - pa_), 100 * (mt - ma)
        out = {
            "base_pass_at_k": _ratio(s["b_pk"], s["b_pk_n"]), "base_mean_score": _ratio(s["b_score_sum"], s["b_n_scored"]),
            "pass_at_k": pa_, "pass_at_k_with_tool": pt, "pass_gain_pp": pass_gain,
            "mean_score": ma, "mean_score_with_tool": mt, "score_gain_pp": score_gain,
            "ask_rate": _ratio(s["t_asking"], s["t_n_scored"]), "variant_ask_rate": _ratio(s["v_asked"], s["v"]),
            "avg_per_traj": _ratio(s["t_questions"], s["t_asking"]),
            "pass_gain_pp_per_question": _ratio(pass_gain, s["t_questions"]),
            "score_gain_pp_per_question": _ratio(score_gain, s["t_questions"]),
        }
        return out

    return {"by": by, "base_by": base_by, "tool": tool, "pairs": pairs, "b": b, "excluded": excluded, "stat": stat}


# ----------------------------------------------------------------------------- LHAW ambiguity classes


def _as_bool(label: object) -> bool | None:
    text = str(label).strip().lower()
    if text in ("true", "yes", "1"):
        return True
    if text in ("false", "no", "0"):
        return False
    return None


def ambiguity_classes(rs: RunSet) -> pd.DataFrame:
    """Classify each variant by its trials without the ask tool (LHAW Definition 3.1).

    Per (suite, model, variant): c = successful trials, S = distinct terminal
    states (the tuple of checkpoint results; ``passed`` when a run has no
    checkpoints). c = 0 and |S| > 1 → outcome-critical; c > 0 and |S| > 1 →
    divergent; c > 0 and |S| = 1 → benign; c = 0 and |S| = 1 → new-task, unless the
    majority of the variant's ``new_task`` judge labels is false, which makes it
    outcome-critical.

    Returns
    -------
    pandas.DataFrame
        ``suite, model, variant_id, n_trials, n_successes, n_terminal_states,
        ambiguity_class``.

    References
    ----------
    LHAW Definition 3.1; runlog-v1 B.5.
    """
    work = _work(rs)
    runs = work[(work["spec"] == "ambiguous") & ~work["ask_tool"] & ~work["error"]
                & (work["protocol"] == "solve")]
    # each run's checkpoints, by its row in rs.runs (``_work`` keeps the rows in order, numbered from 0),
    # made Python values in one conversion rather than one lookup and one conversion per run
    checkpoints = rs.runs["checkpoints"].iloc[runs.index.to_numpy()]
    arrow = _arrow_of(checkpoints)
    cps = arrow.to_pylist() if arrow is not None else checkpoints.tolist()
    states = []
    for cp, passed in zip(cps, runs["passed"]):
        if isinstance(cp, (list, np.ndarray)) and len(cp):
            states.append(tuple(float(c["result"]) for c in cp))
        else:
            states.append(("passed", None if passed != passed else bool(passed)))
    runs = runs.assign(_state=states)
    keys = ["suite", "model", "variant_id"]
    g = runs.groupby(keys, sort=True)
    out = pd.DataFrame({"n_trials": g.size(), "n_successes": g["passed"].sum().astype(int),
                        "n_terminal_states": g["_state"].nunique()}).reset_index()
    c, s = out["n_successes"].to_numpy(), out["n_terminal_states"].to_numpy()
    klass = np.select([(c == 0) & (s > 1), (c > 0) & (s > 1), (c > 0) & (s == 1)],
                      ["outcome-critical", "divergent", "benign"], "new-task").astype(object)
    labels = rs.labels[rs.labels["facet"] == "new_task"]
    if len(labels):
        lab = labels[["run_id", "label"]].astype(object).merge(work[["run_id", *keys]], on="run_id")
        lab["_bool"] = lab["label"].map(_as_bool)
        votes = lab.dropna(subset=["_bool"]).groupby(keys)["_bool"].agg(["sum", "count"])
        not_new = votes[votes["sum"] * 2 < votes["count"]].index  # a strict majority says "not a new task"
        is_not_new = pd.MultiIndex.from_frame(out[keys]).isin(not_new)
        klass = np.where((klass == "new-task") & is_not_new, "outcome-critical", klass)
    out["ambiguity_class"] = klass
    return out


# ----------------------------------------------------------------------------- Ambig-DS performance


def performance(rs: RunSet, *, by: Sequence[str] = ("suite", "model"), n_boot: int = 10_000,
                seed: int = 0) -> pd.DataFrame:
    """Compute S_full, S_ambig, S_ask, the two deltas with paired CIs and one-sided Wilcoxon tests.

    Conditions: Full = (full, no tool), Ambig. = (ambiguous, no tool), Ask =
    (ambiguous, tool), solve runs only. Per task, a condition's score is the mean
    of its non-error runs (invalid and timeout at 0; a run with status ok and no
    score is left out). All statistics use the tasks that have a score in all
    three conditions, so Δ_ambig = S_ambig − S_full and Δ_ask = S_ask − S_ambig
    exactly.

    Returns
    -------
    pandas.DataFrame
        ``by…, n_tasks, s_full, s_ambig, s_ask, delta_ambig, delta_ambig_ci_low,
        delta_ambig_ci_high, p_full_gt_ambig, delta_ask, delta_ask_ci_low,
        delta_ask_ci_high, p_ask_gt_ambig, n_excluded`` (error runs).

    References
    ----------
    Ambig-DS §5.1, Tables 1 and 12, Appendix C.8–C.9; the target-track harness
    ``step_6_aggregate.py`` (harness-formats §4.2): the paired bootstrap uses seed
    ``seed`` for Δ_ambig and ``seed + 1`` for Δ_ask (0 and 1 in the harness).
    """
    fn = "performance"
    work = _work(rs)
    by = _check_by(work, by, fn)
    base_by, no_tool, tool = _tool_split(work, by, fn)
    excluded = _excluded(pd.concat([no_tool, tool]), base_by)
    cond = {"full": no_tool[no_tool["spec"] == "full"], "ambig": no_tool[no_tool["spec"] == "ambiguous"],
            "ask": tool[tool["spec"] == "ambiguous"]}
    per_task = {}
    for name, runs in cond.items():
        keys = by if name == "ask" else base_by
        runs = runs[~runs["error"]].dropna(subset=["score"])
        per_task[name] = runs.groupby([*keys, "task_id"], sort=True, dropna=False)["score"].mean() \
            .rename(name).reset_index()
    paired = per_task["ask"].merge(per_task["ambig"], on=[*base_by, "task_id"]) \
        .merge(per_task["full"], on=[*base_by, "task_id"]).sort_values([*by, "task_id"])
    rows = []
    groups = list(paired.groupby(by, sort=True, dropna=False)) if by else [((), paired)]
    for key, g in groups:
        full, ambig, ask = (g[c].to_numpy(float) for c in ("full", "ambig", "ask"))
        row = dict(zip(by, key if isinstance(key, tuple) else (key,)))
        row.update(n_tasks=len(g), s_full=full.mean(), s_ambig=ambig.mean(), s_ask=ask.mean(),
                   _d_ambig=ambig - full, _d_ask=ask - ambig,
                   p_full_gt_ambig=paired_wilcoxon(full, ambig).p_value,
                   p_ask_gt_ambig=paired_wilcoxon(ask, ambig).p_value)
        rows.append(row)
    # bootstrap all groups with the same task count in one pass each (identical draws per seed)
    by_n: dict[int, list[int]] = {}
    for i, row in enumerate(rows):
        by_n.setdefault(row["n_tasks"], []).append(i)
    for members in by_n.values():
        d_ambig = np.vstack([rows[i]["_d_ambig"] for i in members])
        d_ask = np.vstack([rows[i]["_d_ask"] for i in members])
        zeros = np.zeros_like(d_ambig)
        lo_a, hi_a = paired_bootstrap_ci(d_ambig, zeros, n_boot=n_boot, seed=seed)
        lo_k, hi_k = paired_bootstrap_ci(d_ask, zeros, n_boot=n_boot, seed=seed + 1)
        for j, i in enumerate(members):
            rows[i].update(delta_ambig_ci_low=lo_a[j], delta_ambig_ci_high=hi_a[j],
                           delta_ask_ci_low=lo_k[j], delta_ask_ci_high=hi_k[j])
    columns = ["n_tasks", "s_full", "s_ambig", "s_ask", "delta_ambig", "delta_ambig_ci_low", "delta_ambig_ci_high",
               "p_full_gt_ambig", "delta_ask", "delta_ask_ci_low", "delta_ask_ci_high", "p_ask_gt_ambig"]
    out = pd.DataFrame(rows, columns=[*by, *columns, "_d_ambig", "_d_ask"])
    out["delta_ambig"] = out["s_ambig"] - out["s_full"]
    out["delta_ask"] = out["s_ask"] - out["s_ambig"]
    # groups with runs but no fully paired task still get a row, with n_tasks = 0
    all_groups = pd.concat([c[by] for c in cond.values() if set(by) <= set(c.columns)]).drop_duplicates() \
        if by else None
    out = out.drop(columns=["_d_ambig", "_d_ask"])
    if by:
        present = [g for g in all_groups.itertuples(index=False)
                   if "policy" not in by or pd.notna(getattr(g, "policy", None))]
        out = pd.DataFrame(present, columns=by).merge(out, on=by, how="left")
        out["n_tasks"] = out["n_tasks"].fillna(0).astype(int)
        ex = excluded.rename("n_excluded").reset_index() if base_by else None
        out = out.merge(ex, on=base_by, how="left") if base_by else out.assign(n_excluded=int(excluded.iloc[0]))
    else:
        out["n_excluded"] = int(excluded.iloc[0])
    out["n_excluded"] = out["n_excluded"].fillna(0).astype(int)
    return _order(out, by, columns)


# ----------------------------------------------------------------------------- categories and labels


CATEGORY_ORDER = ("intended", "alternative", "degenerate", "invalid", "timeout")
#: statuses left out of judge-label shares: no substantive trace to judge (Ambig-DS C.5). Ambig-DS Table 10's
#: target Gemini 3.1 Pro row (trace 42/46/12 %, answer 0/56/44 %) fits only 50 judged runs of 51 at half-up
#: rounding: every run but the one timeout, the two invalid runs (Table 2) included.
UNSUBSTANTIVE = ("timeout", "error")
_CATEGORY_BY = ("suite", "model", "spec", "ask_tool", "policy")


def _categorised(rs: RunSet, by: Sequence[str], fn: str) -> tuple[pd.DataFrame, list[str], pd.Series]:
    work = _work(rs)
    by = _check_by(work, by, fn)
    scope = work[work["protocol"] == "solve"]
    _single_condition(scope, by, CONDITIONS, fn)
    excluded = _excluded(scope, by)
    runs = scope[~scope["error"]].copy()
    # a failed run without a category is its failure; an unjudged ok run is 'unlabelled'
    status_cat = np.where(np.isin(runs["status"], FAILED), runs["status"], "unlabelled")
    runs["category"] = runs["category"].where(runs["category"].notna(), status_cat)
    return runs, by, excluded


def _grid(runs: pd.DataFrame, by: list[str], column: str, values: list) -> pd.DataFrame:
    """Every group × every value, so that a value absent from a cell shows as n = 0."""
    groups = runs[by].drop_duplicates().sort_values(by) if by else pd.DataFrame(index=[0])
    return groups.merge(pd.DataFrame({column: pd.Series(values, dtype=object)}), how="cross")


def _category_frame(runs: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    present = set(runs["category"].unique())  # the distinct values, not a Python object per run
    seen = list(dict.fromkeys([*[c for c in CATEGORY_ORDER if c in present],
                               *sorted(present - set(CATEGORY_ORDER))]))
    return _grid(runs, by, "category", seen)


def _shares(grid: pd.DataFrame, counts: pd.DataFrame, by: list[str], column: str, ci: bool,
            confidence: float) -> pd.DataFrame:
    """``by…, <column>, n, share, n_runs``: counts on the grid, shares of each group's total."""
    out = grid.merge(counts, on=[*by, column], how="left")
    out["n"] = out["n"].fillna(0).astype(int)
    out["n_runs"] = out.groupby(by, sort=False)["n"].transform("sum") if by else out["n"].sum()
    out["share"] = _ratio(out["n"], out["n_runs"])
    out = out[[*by, column, "n", "share", "n_runs"]]
    if ci:
        out = _wilson_columns(out, "share", "n", "n_runs", confidence)
    return out.reset_index(drop=True)


def category_shares(rs: RunSet, *, by: Sequence[str] = _CATEGORY_BY, ci: bool = False,
                    confidence: float = 0.95) -> pd.DataFrame:
    """Compute the share of runs in each framing category per cell.

    A run's category is its ``category`` field (after any human override); an
    ``invalid`` or ``timeout`` run without one takes its status, an ``ok`` run
    without one is ``unlabelled``. Every category seen anywhere appears in every
    cell (n = 0 where absent). Shares are over all non-error solve runs of the cell.

    Returns
    -------
    pandas.DataFrame
        ``by…, category, n, share, n_runs`` (+ Wilson ``share_ci_low/high`` with ``ci``).

    References
    ----------
    Ambig-DS Tables 2 and 3; runlog-v1 B.7.
    """
    runs, by, _ = _categorised(rs, by, "category_shares")
    counts = runs.groupby([*by, "category"], sort=False).size().rename("n").reset_index()
    return _shares(_category_frame(runs, by), counts, by, "category", ci, confidence)


def conditional_scores(rs: RunSet, *, by: Sequence[str] = _CATEGORY_BY) -> pd.DataFrame:
    """Compute the mean score of the runs in each framing category per cell.

    Invalid and timeout runs score 0, so the category-weighted sum of conditional
    means equals the cell's mean score.

    Returns
    -------
    pandas.DataFrame
        ``by…, category, n, mean_score`` (null where a category has no scored run).

    References
    ----------
    Ambig-DS Table 11; runlog-v1 B.7.
    """
    runs, by, _ = _categorised(rs, by, "conditional_scores")
    grid = _category_frame(runs, by)
    g = runs.groupby([*by, "category"], sort=False)
    stats_ = pd.DataFrame({"n": g.size(), "mean_score": g["score"].mean()}).reset_index()
    out = grid.merge(stats_, on=[*by, "category"], how="left")
    out["n"] = out["n"].fillna(0).astype(int)
    return out[[*by, "category", "n", "mean_score"]].reset_index(drop=True)


def _run_labels(rs: RunSet, facets: Sequence[str], ties: str) -> pd.DataFrame:
    labels = rs.labels[rs.labels["facet"].isin(list(facets))]
    frame = labels[["run_id", "facet", "label", "judge", "call"]].astype(object)
    if ties == "confidence":
        frame = frame.assign(confidence=_vote_confidences(rs, frame))
    return majority_vote(frame[["run_id", "facet", "label", "call", *(["confidence"] if ties == "confidence" else [])]],
                         by=("run_id", "facet"), ties=ties)


def _vote_confidences(rs: RunSet, frame: pd.DataFrame) -> list[float | None]:
    """Each judge call's own confidence, where an importer kept it (``meta.judge_confidence[judge][call]``)."""
    from .runset import shared_metas

    confidence = {run_id: m.get("judge_confidence") or {} for run_id, m in zip(rs.runs["run_id"], shared_metas(rs.runs))}
    return [(confidence.get(run_id, {}).get(str(judge)) or {}).get(str(call))
            for run_id, judge, call in zip(frame["run_id"], frame["judge"], frame["call"])]


def majority_labels(rs: RunSet, *, facet: str, ties: Literal["null", "alphabetical", "confidence"] = "null"
                    ) -> pd.DataFrame:
    """Each run's majority label of one facet over its judge calls.

    ``ties="null"`` (the default) reports a tie as a null label with ``is_tie``;
    ``ties="confidence"`` applies the Ambig-DS judge audit's own rule (``step_4_judge_audit.py``):
    the tied label with the highest mean vote confidence wins, of equal means the first voted.

    Returns
    -------
    pandas.DataFrame
        ``run_id, facet, label, n_votes, n_top, is_tie``.
    """
    return _run_labels(rs, [facet], ties)


def label_shares(rs: RunSet, *, facet: str, by: Sequence[str] = ("suite", "model"),
                 ties: Literal["null", "alphabetical", "confidence"] = "null", ci: bool = False,
                 confidence: float = 0.95) -> pd.DataFrame:
    """Compute the share of runs with each judged label of one facet.

    Each run's label is the majority over its calls for ``facet`` (all judges);
    shares are over the substantive runs judged on that facet: every status but
    ``timeout`` and ``error`` (Ambig-DS C.5: "after dropping API errors, timeouts,
    and empty traces"; an ``invalid`` run has a trace and is judged). With
    ``ties="null"`` a run whose calls tie counts under a null label, reported
    rather than broken; ``ties="confidence"`` breaks it as the Ambig-DS judge audit does
    (:func:`majority_labels`).

    Returns
    -------
    pandas.DataFrame
        ``by…, label, n, share, n_runs`` (+ Wilson intervals with ``ci``).

    References
    ----------
    Ambig-DS Tables 10, 14, 15; HIL-Bench Tables 4–6; runlog-v1 B.8.
    """
    fn = "label_shares"
    work = _work(rs)
    by = _check_by(work, by, fn)
    votes = _run_labels(rs, [facet], ties)
    runs = work[~work["status"].isin(UNSUBSTANTIVE) & _isin(work["run_id"], votes["run_id"])]
    _single_condition(runs, by, CONDITIONS, fn)
    runs = runs.merge(votes[["run_id", "label"]], on="run_id")
    keys = [*by, "label"]
    counts = runs.groupby(keys, sort=True, dropna=False).size().rename("n").reset_index()
    seen = sorted(set(counts["label"].dropna()))
    if counts["label"].isna().any():
        seen.append(None)
    return _shares(_grid(runs, by, "label", seen), counts, by, "label", ci, confidence)


def flag_shares(rs: RunSet, *, categories: Mapping[str, Sequence[str]], by: Sequence[str] = ("model",),
                yes: Sequence[str] = ("YES",), ci: bool = False, confidence: float = 0.95) -> pd.DataFrame:
    """Compute the share of asking trials that fall in each failure category.

    A trial counts in a category when the majority label of any of the
    category's flag facets is in ``yes``. The denominator is the trials with at least
    one question (and the ask tool), status not ``error``, that carry a label of any of
    the flag facets: a trial the judge never saw is left out, not counted as unflagged
    (a judge's flags on trials without questions, e.g. missed critical segments, stay out).

    Parameters
    ----------
    categories : mapping of str to sequence of str
        Category name → the flag facets that make it (e.g. ``{"Question Quality":
        ["lhaw.flag_compound_questions", "lhaw.flag_vague_questions"]}``).

    Returns
    -------
    pandas.DataFrame
        ``by…, category, n, share, n_trials``.

    References
    ----------
    LHAW Table 4 and Table 17; runlog-v1 B.8.
    """
    fn = "flag_shares"
    work = _work(rs)
    by = _check_by(work, by, fn)
    facets = sorted({f for fs in categories.values() for f in fs})
    votes = _run_labels(rs, facets, "null")
    # asking trials the judge looked at: a trial never judged on these flags is unknown, not unflagged
    judged = _isin(work["run_id"], votes["run_id"])
    trials = work[work["ask_tool"] & (work["n_questions"] > 0) & ~work["error"] & judged]
    _single_condition(trials, by, CONDITIONS, fn)
    votes["_yes"] = votes["label"].isin(list(yes))
    rows = []
    for name, fs in categories.items():
        hit = set(votes.loc[votes["facet"].isin(list(fs)) & votes["_yes"], "run_id"])
        t = trials.assign(_hit=_isin(trials["run_id"], hit).astype(int))
        g = t.groupby(by, sort=True) if by else t.assign(_all=0).groupby("_all")
        part = pd.DataFrame({"n": g["_hit"].sum(), "n_trials": g.size()}).reset_index()
        rows.append(part.assign(category=name))
    out = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=[*by, "category", "n", "n_trials"])
    out["share"] = _ratio(out["n"], out["n_trials"])
    out = out[[*by, "category", "n", "share", "n_trials"]]
    if ci:
        out = _wilson_columns(out, "share", "n", "n_trials", confidence)
    return out.reset_index(drop=True)
