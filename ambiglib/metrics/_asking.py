"""Did the agent ask well: Ask-F1 with its precision and recall, ask rates and CalibScore, and pass@k."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from ambiglib.metrics._common import (
    CONDITIONS,
    MetricError,
    _check_by,
    _cluster_ci,
    _excluded,
    _f1,
    _isin,
    _kept,
    _mean_over_units_ci,
    _order,
    _ratio,
    _single_condition,
    _with_ci,
    _work,
)
from ambiglib.metrics._pooling import (
    ASK_F1_SUMS,
    ask_f1_table,
    calib_score,
    calibration_table,
    mean_over_units_table,
    micro_ask_f1,
    pass_at_k_of,
)
from ambiglib.metrics._units import groups_of, unit_sums
from ambiglib.runset import RunSet

__all__ = ["ask_f1", "calib_score", "ask_calibration", "pass_at_k"]

#: what ``_ask_f1_parts`` and ``_calibration_parts`` give: runs, additive columns, statistic, excluded runs, ``by``
_Parts = tuple[pd.DataFrame, list[str], Callable[[Mapping[str, np.ndarray]], dict[str, np.ndarray]], pd.Series,
               list[str]]


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


def _unattributed(rs: RunSet, runs: pd.DataFrame) -> pd.DataFrame:
    """The questions of ``runs`` the log does not attribute to a blocker (``attributed`` false)."""
    q = rs.questions
    # the few unattributed questions first, then their runs: matching every question's run id cost more
    q = q[~q["attributed"].to_numpy(dtype=bool, na_value=True)]
    return q[_isin(q["run_id"], runs["run_id"])] if len(q) else q


def _without_unattributed(rs: RunSet, by: Sequence[str]) -> tuple[RunSet, list[tuple[str, ...]]]:
    """``rs`` without the groups of ``by`` that hold a question the log does not attribute to a blocker (Ask-F1
    refuses them), and those groups' keys."""
    unattributed = set(_unattributed(rs, rs.runs)["run_id"].astype(str))
    if not unattributed:
        return rs, []
    runs = rs.runs
    keys = list(map(tuple, runs[list(by)].astype(str).to_numpy()))
    refused = {k for k, r in zip(keys, runs["run_id"].astype(str)) if r in unattributed}
    keep = np.array([k not in refused for k in keys], dtype=bool)
    return rs.with_runs(keep), sorted(refused)


def _stray(rs: RunSet, rel: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """The relevant questions ``rel`` that name a blocker their task does not register (``run_id, q_index,
    blocker_id, benchmark, suite, variant_id``), of the ``runs`` whose task has a record (``n_blockers`` set)."""
    if len(rel) == 0:
        return rel.iloc[:0]
    reg = rs.blockers[["benchmark", "suite", "variant_id", "blocker_id"]].astype(object)
    named = rel[["run_id", "q_index", "blocker_id"]].astype(object).merge(runs, on="run_id")
    named = named[named["n_blockers"].notna()]
    check = named.merge(reg.assign(_registered=True), how="left", on=["benchmark", "suite", "variant_id", "blocker_id"])
    return check[check["_registered"].isna()]


def _stray_text(stray: pd.DataFrame) -> str:
    """The first of ``stray`` questions (:func:`_stray`) in words, with how many there are."""
    return stray_text(stray.iloc[0], len(stray))


def stray_text(s: Mapping[str, Any], n: int) -> str:
    """A question naming a blocker its task does not register (``run_id, q_index, blocker_id, benchmark, suite,
    variant_id``) in words, with how many such questions there are."""
    return (f"run {s['run_id']!r} question {s['q_index']} names blocker {s['blocker_id']!r}, which task"
            f" (benchmark={s['benchmark']!r}, suite={s['suite']!r}, variant_id={s['variant_id']!r}) does not register"
            f" ({n} such question(s))")


def unattributed_message(fn: str, n: int, n_runs: int, run_id: Any, q_index: Any) -> str:
    """Why Ask-F1 refuses questions the log does not attribute to a blocker (``n`` of ``n_runs`` runs; the first
    is ``run_id``'s question ``q_index``)."""
    return (f"{fn}: {n} question(s) of {n_runs} run(s) are not attributed to"
            f" a blocker (first: run {run_id!r} question {q_index}): the log does not say which"
            " blocker each one asked about, so precision and recall are unknown. Attribute them (an Inspect log: the"
            " ask tool's JSON answer field 'blocker', or a scorer's metadata 'asked_blockers'; docs/importers.md)"
            " or filter those runs out")


def no_task_message(fn: str, first: Mapping[str, Any], n_tasks: int) -> str:
    """Why recall is unknown: ``first`` (``run_id, benchmark, suite, variant_id``) is a run whose task has no
    record, one of ``n_tasks`` such tasks."""
    return (f"{fn}: no task record for (benchmark={first['benchmark']!r}, suite={first['suite']!r},"
            f" variant_id={first['variant_id']!r})"
            + (f" and {n_tasks - 1} more task(s)" if n_tasks > 1 else "")
            + f"; recall needs each task's registered blockers (run {first['run_id']!r}). Load the task"
            " records (e.g. the HIL-Bench blocker registries) or filter those runs out")


def _without_stray(rs: RunSet, by: Sequence[str]) -> tuple[RunSet, list[tuple[tuple[str, ...], str]]]:
    """``rs`` without the groups of ``by`` that hold a question naming a blocker its task does not register (Ask-F1
    refuses them: which blocker was asked about is wrong or missing), and those groups' keys, each with its first
    such question in words. The tables leave those groups' precision, recall and Ask-F1 empty, naming them, and
    keep every other group's."""
    runs = rs.runs
    scope = ((runs["spec"] == "ambiguous").to_numpy(dtype=bool, na_value=False)
             & runs["ask_tool"].to_numpy(dtype=bool, na_value=False)
             & (runs["status"] != "error").to_numpy(dtype=bool, na_value=True))
    if not scope.any() or len(rs.questions) == 0:
        return rs, []
    q = rs.questions
    rel = q[q["relevant"].to_numpy(dtype=bool, na_value=False) & _isin(q["run_id"], runs["run_id"][scope])]
    if len(rel) == 0:
        return rs, []
    tasks = rs.tasks[["benchmark", "suite", "variant_id", "n_blockers"]].astype(
        {"benchmark": object, "suite": object, "variant_id": object, "n_blockers": float})
    where = ["run_id", "benchmark", "suite", "variant_id"]
    stray = _stray(rs, rel, runs[where][scope].astype(object).merge(tasks, on=where[1:], how="left"))
    if len(stray) == 0:
        return rs, []
    keys = list(map(tuple, runs[list(by)].astype(str).to_numpy()))
    key_of = dict(zip(runs["run_id"].astype(str), keys))
    refused: dict[tuple[str, ...], str] = {}
    for key, rows in stray.groupby(stray["run_id"].astype(str).map(key_of), sort=True):
        refused[key] = _stray_text(rows)
    keep = np.array([k not in refused for k in keys], dtype=bool)
    return rs.with_runs(keep), sorted(refused.items())


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
        Add intervals for precision, recall and ask_f1 (see Returns).
    n_boot, seed, confidence
        Bootstrap replicates, seed and interval level.

    Returns
    -------
    pandas.DataFrame
        ``by…, n_runs, n_questions, n_relevant, n_blockers, n_discovered,
        precision, recall, ask_f1, n_excluded``: ``n_blockers`` is the registered
        blockers of the recall set's runs; ``n_discovered`` the distinct registered
        blockers addressed, summed over runs. Precision with no questions is null
        (undefined; the harness writes 0), recall and Ask-F1 are then 0: the same
        rule as the opening's table and ``paired_comparison``. With ``ci`` (``ci_level, ci_method`` say how):
        micro pooling, Wilson intervals over tasks for precision (a share of questions) and recall (a share of
        blockers), and for Ask-F1 the bounds their intervals at half the error each give it (it rises with both:
        it covers at least the level, where a task bootstrap covered 0.87-0.93 from 8 to 50 tasks); macro
        pooling, task-bootstrap intervals.

    Raises
    ------
    MetricError
        A run in the recall set has no task record (its blockers are unknown), a
        question names a blocker its task does not register, a question is not
        attributed to a blocker at all (``attributed`` false: the log does not
        say), or a group mixes conditions.

    References
    ----------
    HIL-Bench §3.5, eq. 1, Table 1; harness: ``compute_hil_metrics``,
    ``run_hil_bench.py:summarize_rows`` (harness-formats §4.5).
    """
    check_ask_f1_options(precision, recall, pooling)
    runs, additive, stat, excluded, by = _ask_f1_parts(rs, by, precision, recall, pooling)
    if pooling == "micro":  # pooled counts: per-task sums, then pooled (the same two steps as an engine's)
        per_task = runs.groupby([*by, "task_id"], sort=True, dropna=False)[list(ASK_F1_SUMS)].sum().reset_index()
        return ask_f1_table(groups_of(excluded, by), per_task, by, precision=precision_count(precision), ci=ci,
                            confidence=confidence)
    # macro pooling: means of per-run values
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
    if ci:  # means of per-run values: resample tasks
        sums = runs.groupby([*by, "task_id"], sort=True, dropna=False)[additive].sum().reset_index()
        cis = _cluster_ci(sums, by, "task_id", stat, n_boot, seed, confidence)
        return _with_ci(out, by, cis, ["precision", "recall", "ask_f1"], confidence)
    return out


def check_ask_f1_options(precision: str, recall: str, pooling: str) -> None:
    """Refuse an ask_f1 option that names no variant (the same words on a loaded run set and an engine)."""
    if precision not in ("relevant", "distinct"):
        raise ValueError(f"precision must be 'relevant' or 'distinct' (got {precision!r})")
    if recall not in ("all_runs", "asking_runs"):
        raise ValueError(f"recall must be 'all_runs' or 'asking_runs' (got {recall!r})")
    if pooling not in ("micro", "macro"):
        raise ValueError(f"pooling must be 'micro' or 'macro' (got {pooling!r})")


def precision_count(precision: str) -> str:
    """The per-run count precision divides by the questions: relevant questions, or distinct blockers addressed."""
    return "n_relevant" if precision == "relevant" else "n_discovered"


def _ask_f1_parts(rs: RunSet, by: Sequence[str], precision: str, recall: str, pooling: str) -> _Parts:
    """ask_f1's runs with their additive columns, the columns, the statistic of summed columns,
    the excluded error runs per group, and ``by`` checked (once per run set and arguments)."""
    return _kept(rs, ("ask-f1 parts", tuple(by), precision, recall, pooling),
                 lambda: _ask_f1_parts_of(rs, by, precision, recall, pooling))


def _ask_f1_parts_of(rs: RunSet, by: Sequence[str], precision: str, recall: str, pooling: str) -> _Parts:
    fn = "ask_f1"
    work = _work(rs)
    by = _check_by(work, by, fn)
    scope = work[(work["spec"] == "ambiguous") & work["ask_tool"]]
    _single_condition(scope, by, ("policy", "protocol"), fn)
    excluded = _excluded(scope, by)
    runs = scope[~scope["error"]].copy()

    unattributed = _unattributed(rs, runs)
    if len(unattributed):
        first = unattributed.iloc[0]
        raise MetricError(unattributed_message(fn, len(unattributed), unattributed["run_id"].nunique(),
                                               first["run_id"], first["q_index"]))
    per_run, rel = _per_run_asks(rs, runs)
    runs["n_relevant"] = per_run["n_relevant"].to_numpy()
    tasks = rs.tasks[["benchmark", "suite", "variant_id", "n_blockers"]].astype(
        {"benchmark": object, "suite": object, "variant_id": object})
    runs = runs.merge(tasks.astype({"n_blockers": float}), on=["benchmark", "suite", "variant_id"], how="left")
    in_recall = np.ones(len(runs), bool) if recall == "all_runs" else runs["n_questions"].to_numpy() > 0
    unknown = runs[in_recall & runs["n_blockers"].isna()]
    if len(unknown):
        n_tasks = unknown[["benchmark", "suite", "variant_id"]].drop_duplicates().shape[0]
        raise MetricError(no_task_message(fn, unknown.iloc[0], n_tasks))
    # a relevant question must name a blocker its task registers
    stray = _stray(rs, rel, runs[["run_id", "benchmark", "suite", "variant_id", "n_blockers"]])
    if len(stray):
        raise MetricError(f"{fn}: {_stray_text(stray)}")
    runs["n_discovered"] = runs["run_id"].map(per_run.set_index("run_id")["n_discovered"]).to_numpy()
    runs["n_blockers"] = runs["n_blockers"].fillna(0)
    runs["in_recall"] = in_recall
    runs["asking"] = runs["n_questions"] > 0
    num_p = precision_count(precision)

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
            return ask_f1_stat(t, num_p)
        out = {"precision": _ratio(t["p_sum"], t["asking"]), "recall": _ratio(t["r_sum"], t["in_recall"], 0.0),
               "ask_f1": _ratio(t["f_sum"], t["in_recall"], 0.0)}
        none = np.asarray(t["n_scored"], dtype=float) == 0  # (as ask_f1_stat says)
        return {k: np.where(none, np.nan, v) for k, v in out.items()}

    additive = ["n_questions", "n_relevant", "n_discovered", "b_recall", "d_recall", "asking", "in_recall",
                "p_sum", "r_sum", "f_sum", "n_scored"]
    runs["n_scored"] = 1
    runs[["asking", "in_recall"]] = runs[["asking", "in_recall"]].astype(int)
    # what the callers group and sum, alone: the parts are kept with the run set (and shared by a report's kernel)
    return runs[list(dict.fromkeys([*by, "task_id", *additive]))], additive, stat, excluded, by


def ask_calibration(rs: RunSet, *, by: Sequence[str] = ("suite", "model", "policy"), ci: bool = False,
                    n_boot: int = 10_000, seed: int = 0, confidence: float = 0.95) -> pd.DataFrame:
    """Compute ask rates on ambiguous and on fully specified tasks, and CalibScore.

    A run asked when it has at least one question. Only runs with the ask tool enter.

    Returns
    -------
    pandas.DataFrame
        ``by…, n_ambiguous, n_full, ask_on_ambiguous, ask_on_full, calib_score,
        n_excluded``. A rate with no runs is null. With ``ci=True``: Wilson
        intervals over tasks for the two rates (:func:`ambiglib.stats.wilson_ci_clustered`: a task's trials
        are one cluster; plain Wilson with one run a task); for ``calib_score``, the bounds the two rates'
        intervals at half the error each give it (it rises with one and falls with the other: at least the
        level, where a task bootstrap covered less at few tasks and gave a point for a perfect agent); and
        ``ci_level, ci_method`` saying so. CalibScore is the harmonic mean of the two pooled rates, so the
        fully specified and the ambiguous runs may be on different tasks.

    References
    ----------
    Ambig-DS §5.1 ("Ask behavior"), Table 13 (CalibScore, in its header) and Appendix E.2; runlog-v1 B.2. No released code
    computes these (harness-formats §4.3). Ambig-DS Table 13 uses the ask-only runs:
    filter ``protocol="ask_only"`` (a group mixing protocols is refused).
    """
    runs, additive, stat, excluded, by = _calibration_parts(rs, by)
    per_task = runs.groupby([*by, "task_id"], sort=True, dropna=False)[additive].sum().reset_index()
    return calibration_table(groups_of(excluded, by), per_task, by, ci=ci, confidence=confidence)


def _calibration_parts(rs: RunSet, by: Sequence[str]) -> _Parts:
    """ask_calibration's runs with additive columns, the columns, the statistic, the excluded runs, ``by`` (once per
    run set and ``by``)."""
    return _kept(rs, ("calibration parts", tuple(by)), lambda: _calibration_parts_of(rs, by))


def _calibration_parts_of(rs: RunSet, by: Sequence[str]) -> _Parts:
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
    additive = list(CALIBRATION_SUMS)
    # what the callers group and sum, alone: the parts are kept with the run set (and shared by a report's kernel)
    return runs[list(dict.fromkeys([*by, "task_id", *additive]))], additive, calibration_stat, excluded, by


#: ask_calibration's additive per-run (and per-task) columns
CALIBRATION_SUMS = ("is_amb", "is_full", "asked_amb", "asked_full")


def calibration_stat(t: Mapping[str, Any]) -> dict[str, Any]:
    """CalibScore and its two ask rates from sums of :data:`CALIBRATION_SUMS` (arrays: one value per row)."""
    a, f = _ratio(t["asked_amb"], t["is_amb"]), _ratio(t["asked_full"], t["is_full"])
    return {"calib_score": calib_score(a, f), "ask_on_ambiguous": a, "ask_on_full": f}


def ask_f1_stat(t: Mapping[str, Any], precision_count: str = "n_relevant") -> dict[str, np.ndarray]:
    """Precision, recall and Ask-F1 of summed per-run counts, micro pooling. One rule everywhere (docs/metrics.md):
    without a question precision is undefined (null); recall is then 0, and so is Ask-F1, the harmonic mean with a
    recall of 0 (the harness's precision of 0 gives the same F1). The harness's 0 for "no questions" is about runs
    that could have asked: a group with no (non-error) run at all has no value, not 0."""
    none = np.asarray(t["n_scored"], dtype=float) == 0
    return {k: np.where(none, np.nan, v) for k, v in micro_ask_f1(t, precision_count).items()}


def _pass_at_k_unbiased(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """1 − C(n−c, k)/C(n, k) per unit (Chen et al. 2021; :func:`~ambiglib.metrics._pooling.pass_at_k_of`, whose
    NaN for n < k callers replace)."""
    n = np.asarray(n, dtype=np.int64)
    return np.where(n >= k, pass_at_k_of(n, c, k), 1.0)


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
    if estimator == "unbiased":  # per-task counts of variants by (n, c), then pooled (as an engine's)
        groups, per_task, by = unit_sums(rs, by, fn)
        return mean_over_units_table(groups, per_task, by, "pass_at_k", "pass_at_k", k, ci=ci, n_boot=n_boot,
                                     seed=seed, confidence=confidence)
    work = _work(rs)
    by = _check_by(work, by, fn)
    _single_condition(work, by, CONDITIONS, fn)
    excluded = _excluded(work, by)
    runs = work[~work["error"]]
    units = _per_unit_pass(runs, list(dict.fromkeys([*by, "benchmark", "variant_id"])), k, estimator)
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
        # each unit's task: the first run's of its variant (one merge, not a lookup per unit)
        task_of = runs[["benchmark", "variant_id", "task_id"]].drop_duplicates(["benchmark", "variant_id"])
        units = units.drop(columns="task_id", errors="ignore").merge(
            task_of, on=["benchmark", "variant_id"], how="left", validate="many_to_one")
        out = _mean_over_units_ci(out, units, by, "pass_at_k", n_boot, seed, confidence)
    return out
