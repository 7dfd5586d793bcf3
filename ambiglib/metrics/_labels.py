"""What the judges said: framing categories and the scores within them, majority labels, label and flag shares."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np
import pandas as pd

from ambiglib.agreement import majority_vote
from ambiglib.metrics._common import (
    CONDITIONS,
    FAILED,
    MetricError,
    _check_by,
    _clustered_wilson_columns,
    _excluded,
    _isin,
    _kept,
    _ratio,
    _single_condition,
    _work,
)
from ambiglib.runset import RunSet

__all__ = ["category_shares", "conditional_scores", "majority_labels", "label_shares", "flag_shares"]


CATEGORY_ORDER = ("intended", "alternative", "degenerate", "invalid", "timeout")


#: statuses left out of judge-label shares: no substantive trace to judge (Ambig-DS C.5). Ambig-DS Table 10's
#: target Gemini 3.1 Pro row (trace 42/46/12 %, answer 0/56/44 %) fits only 50 judged runs of 51 at half-up
#: rounding: every run but the one timeout, the two invalid runs (Table 2) included.
UNSUBSTANTIVE = ("timeout", "error")


_CATEGORY_BY = ("suite", "model", "spec", "ask_tool", "policy")


#: how a tied majority is reported or broken (:func:`ambiglib.agreement.majority_vote`'s ``ties``)
_Ties = Literal["null", "alphabetical", "confidence"]


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
            confidence: float, runs: pd.DataFrame, total: str = "n_runs") -> pd.DataFrame:
    """``by…, <column>, n, share, <total>``: counts on the grid, shares of each group's total; with ``ci``, Wilson
    intervals over tasks (``runs``, one row per run with its ``task_id`` and ``column``: the trials of a task are
    one cluster)."""
    out = grid.merge(counts, on=[*by, column], how="left")
    out["n"] = out["n"].fillna(0).astype(int)
    out[total] = out.groupby(by, sort=False)["n"].transform("sum") if by else out["n"].sum()
    out["share"] = _ratio(out["n"], out[total])
    out = out[[*by, column, "n", "share", total]]
    if ci:
        task_n = runs.groupby([*by, "task_id"], sort=False, dropna=False).size().rename("tn").reset_index()
        task_k = runs.groupby([*by, column, "task_id"], sort=False, dropna=False).size().rename("tk").reset_index()
        per_task = (grid.merge(task_n, on=by) if by else grid.merge(task_n, how="cross")) \
            .merge(task_k, on=[*by, column, "task_id"], how="left")
        per_task["tk"] = per_task["tk"].fillna(0)
        out = _clustered_wilson_columns(out, [*by, column], "share", per_task, "tk", "tn", confidence)
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
        ``by…, category, n, share, n_runs`` (+ with ``ci``, ``share_ci_low/high``: Wilson over tasks, a task's
        trials one cluster; plain Wilson with one run a task; and ``ci_level, ci_method``).

    References
    ----------
    Ambig-DS Tables 2 and 3; runlog-v1 B.7.
    """
    runs, by, _ = _categorised(rs, by, "category_shares")
    counts = runs.groupby([*by, "category"], sort=False).size().rename("n").reset_index()
    return _shares(_category_frame(runs, by), counts, by, "category", ci, confidence, runs)


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


def _run_labels(rs: RunSet, facets: Sequence[str], ties: _Ties) -> pd.DataFrame:
    """Each run's majority label per facet (once per run set and arguments)."""
    # kept with the run set, not shared: a run's boxed ids and labels, large beside the time they take
    return _kept(rs, ("run labels", tuple(facets), ties), lambda: _run_labels_of(rs, facets, ties), share=False)


def _run_labels_of(rs: RunSet, facets: Sequence[str], ties: _Ties) -> pd.DataFrame:
    labels = rs.labels[rs.labels["facet"].isin(list(facets))]
    about = labels["q_index"].notna().to_numpy(dtype=bool)
    if about.any():  # a vote over a run's labels would pool the scores of its different questions
        raise MetricError(f"facet {labels['facet'][about].iloc[0]!r} judges single questions (labels with"
                          " 'q_index'): its labels are not a run's, and a majority over them would pool different"
                          " questions; see ambiglib.answers.question_quality's judge_score")
    frame = labels[["run_id", "facet", "label", "judge", "call"]].astype(object)
    if ties == "confidence":
        frame = frame.assign(confidence=_vote_confidences(rs, frame))
    return majority_vote(frame[["run_id", "facet", "label", "call", *(["confidence"] if ties == "confidence" else [])]],
                         by=("run_id", "facet"), ties=ties)


def _vote_confidences(rs: RunSet, frame: pd.DataFrame) -> list[float | None]:
    """Each judge call's own confidence, where an importer kept it (``meta.judge_confidence[judge][call]``)."""
    from ambiglib.runset import shared_metas

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
        ``by…, label, n, share, n_runs`` (+ with ``ci``, Wilson intervals over tasks and ``ci_level,
        ci_method``).

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
    return _shares(_grid(runs, by, "label", seen), counts, by, "label", ci, confidence, runs)


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
        ``by…, category, n, share, n_trials`` (+ with ``ci``, Wilson intervals over tasks and ``ci_level,
        ci_method``).

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
    rows, per_task = [], []
    for name, fs in categories.items():
        hit = set(votes.loc[votes["facet"].isin(list(fs)) & votes["_yes"], "run_id"])
        t = trials.assign(_hit=_isin(trials["run_id"], hit).astype(int))
        g = t.groupby(by, sort=True) if by else t.assign(_all=0).groupby("_all")
        part = pd.DataFrame({"n": g["_hit"].sum(), "n_trials": g.size()}).reset_index()
        rows.append(part.assign(category=name))
        if ci:  # each task's hits and trials: a task's trials are one cluster of the interval
            tasks = t.groupby([*by, "task_id"], sort=False).agg(tk=("_hit", "sum"), tn=("_hit", "size"))
            per_task.append(tasks.reset_index().assign(category=name))
    out = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=[*by, "category", "n", "n_trials"])
    out["share"] = _ratio(out["n"], out["n_trials"])
    out = out[[*by, "category", "n", "share", "n_trials"]]
    if ci:
        tasks = pd.concat(per_task, ignore_index=True) if per_task else \
            pd.DataFrame(columns=[*by, "task_id", "tk", "tn", "category"])
        out = _clustered_wilson_columns(out, [*by, "category"], "share", tasks, "tk", "tn", confidence)
    return out.reset_index(drop=True)


#: why a log has no judge score of single questions
NO_QUESTION_SCORES = ("no judge scores of single questions in this log: add labels with 'q_index' (a judge's score of"
                      " one question, docs/runlog.md) to rank questions where no blockers are registered")


def _question_scores(labels: pd.DataFrame, work: pd.DataFrame, keys: Sequence[str]
                     ) -> tuple[pd.DataFrame | None, pd.DataFrame | None, str]:
    """The judges' numeric scores of single questions (labels with ``q_index``, run log 1.1) of the runs of
    ``work``, summed per (``keys``…, task): ``judged_sum`` (each judged question's score, its calls and judges
    averaged first) and ``judged`` (how many questions were judged), and the judged labels with the runs' ``keys``
    (which judges scored whom); or why there are none: no such labels, or labels that are not one numeric facet.
    The judge score of the opening and of a comparison both pool these sums."""
    keys = list(keys)
    lab = labels[labels["q_index"].notna().to_numpy(dtype=bool) & _isin(labels["run_id"], work["run_id"])]
    if len(lab) == 0:
        return None, None, NO_QUESTION_SCORES
    facets = sorted(set(lab["facet"].astype(str)))
    value = pd.to_numeric(lab["label"].astype(object), errors="coerce")
    if len(facets) > 1 or value.isna().any():
        return None, None, (f"the judges' labels of questions are not one numeric score ({', '.join(facets[:3])}):"
                            " the mean needs one facet of numbers; see the labels notebook")
    per_q = lab.assign(value=value.to_numpy(float)).groupby(["run_id", "q_index"], sort=False)["value"].mean()
    per_run = per_q.groupby(level=0).agg(judged_sum="sum", judged="count")
    runs = work[["run_id", *keys, "task_id"]].merge(per_run, left_on="run_id", right_index=True, how="inner")
    sums = runs.groupby([*keys, "task_id"], sort=True)[["judged_sum", "judged"]].sum().reset_index()
    return sums, lab.merge(work[["run_id", *keys]], on="run_id"), ""
