"""Per-task sums of each metric: what a comparison pairs. Each metric is pooled from additive per-task sums
(:class:`_Sums`), so that a side's value, the interval and the test are computed from the same sums."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ambiglib.comparisons._comparable import _VOI, COMPARABLE
from ambiglib.engines._answers import ON_STORE, StoreView
from ambiglib.engines._store import NotPooled
from ambiglib.metrics._asking import (
    CALIBRATION_SUMS,
    _ask_f1_parts,
    _calibration_parts,
    _per_unit_pass,
    _without_stray,
    _without_unattributed,
    ask_f1_stat,
    calibration_stat,
    no_task_message,
)
from ambiglib.metrics._common import CONDITIONS, MetricError, _ratio, _single_condition, _work
from ambiglib.metrics._information import (
    VOI_BASE_COLUMNS,
    VOI_VARIANT_COLUMNS,
    _voi_parts,
    _voi_task_sums,
    per_run_question,
    scores_by,
)
from ambiglib.metrics._labels import _question_scores
from ambiglib.metrics._pooling import ASK_F1_SUMS
from ambiglib.runset import RunSet
from ambiglib.tables._shapes import Conventions


@dataclass
class _Sums:
    """Per (keys…, task_id): the additive sums a metric pools (``cols``), the metric of summed columns
    (``stat``), which tasks have a value (``defined``, of one task's sums) and, for McNemar, the trials
    behind each task's value (``trials``). ``weights``: the columns that weigh a task in the pooled metric; where
    each is the same on every task of a side, the metric is the mean of its per-task values (a t-interval
    applies). ``ran``: the (keys…, task_id) with any run in the metric's scope, errors and unscored runs
    included. ``runs``: (keys…, task_id, value) per run, or per value a task with how many runs had it (``n``),
    where a run has a value of its own (the probability of improvement compares runs within a task). ``spread``:
    the per-task column of the within-task variance of a run's value (its trials in ``trials``), for the rerun
    spread. ``design``: what the reader must know of how the metric pairs (said in the note)."""

    per: pd.DataFrame
    cols: list[str]
    stat: Callable[[Mapping[str, np.ndarray]], np.ndarray]
    defined: Callable[[Mapping[str, np.ndarray]], np.ndarray]
    undefined: str  # why a task has no value, for "nothing to compare"
    trials: str | None = None
    weights: tuple[str, ...] = ()
    ran: pd.DataFrame | None = None
    runs: pd.DataFrame | None = None
    spread: str | None = None
    design: list[str] = field(default_factory=list)
    #: how one side's own value gets its interval: ``("share", k, n)`` Wilson over tasks of the share k / n;
    #: ``("two rates", (k1, n1), (k2, n2), combine)`` the bounds of two shares' intervals (Ask-F1, CalibScore);
    #: ``("linearized", scale[, floor])`` the linearized t-interval (:func:`ambiglib.stats.linearized_ci`),
    #: ``scale`` its bound where it is a difference of values on [0, 1] (None: unbounded), ``floor`` the least value
    #: the metric takes (0 for a count)
    own: tuple = ("linearized", None)
    #: a difference of two sides' values: its scale where both are on [0, 1] (1, or 100 for percentage points)
    #: for the interval where no task differs; None where the values are unbounded (counts, gains per question)
    bounded: float | None = 1.0


def _ran(work: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    return work[[*keys, "task_id"]].drop_duplicates()


def _task_sums(rs: RunSet | StoreView, metric: str, keys: list[str], k: int, conv: Conventions) -> _Sums:
    """``metric``'s per-task sums over ``rs``, per ``keys`` and task: one branch per metric (the gains from the
    tool in :func:`_voi_sums`, the judges' scores in :func:`_judge_sums`; a store's, :func:`_store_sums`)."""
    if metric == "ask_rate":  # (the runs: _scopes keeps the condition's spec, with the tool)
        tool = rs.filter(protocol=conv.calibration_protocol, ask_tool=True)
        counts = _value_counts(tool, keys, "asked")
        per = counts.assign(asked=counts["value"] * counts["n"], n=counts["n"].astype(float)) \
            .groupby([*keys, "task_id"], sort=True)[["asked", "n"]].sum().reset_index()
        per["n_trials"] = per["n"]
        return _Sums(per, ["asked", "n"], lambda t: _ratio(t["asked"], t["n"]), lambda t: t["n"] > 0,
                     "no run with the ask tool", "n_trials", ("n",), _ran_of(tool, keys), counts,
                     own=("share", "asked", "n"))
    if metric == "questions_per_run":
        amb = rs.filter(protocol="solve", spec="ambiguous", ask_tool=True)
        counts = _value_counts(amb, keys, "questions")
        counts["value"] = counts["value"].astype(float)
        per = counts.assign(n_questions=counts["value"] * counts["n"], n=counts["n"].astype(float)) \
            .groupby([*keys, "task_id"], sort=True)[["n_questions", "n"]].sum().reset_index()
        return _Sums(per, ["n_questions", "n"], lambda t: _ratio(t["n_questions"], t["n"]), lambda t: t["n"] > 0,
                     "no run with the ask tool", None, ("n",), _ran_of(amb, keys), counts, bounded=None,
                     own=("linearized", None, 0.0))
    if isinstance(rs, StoreView):
        return _store_sums(rs, metric, keys, k, conv)
    if metric == "mean_score":
        scope = _work(rs)
        scope = scope[scope["protocol"] == "solve"]
        work = scope[~scope["error"]].dropna(subset=["score"])
        return _mean_score_sums(scores_by(work, [*keys, "task_id"]), keys, _ran(scope, keys),
                                work[[*keys, "task_id", "score"]].rename(columns={"score": "value"}))
    if metric == "pass_at_k":
        scope = _work(rs)
        scope = scope[scope["protocol"] == "solve"]
        work = scope[~scope["error"]]
        _single_condition(work, keys, CONDITIONS, "paired_comparison")
        units = _per_unit_pass(work, [*keys, "task_id", "variant_id"], k, conv.pass_estimator)
        units["pk_n"] = units["pass_at_k"].notna().astype(float)
        units["pk"] = units["pass_at_k"].fillna(0.0)
        per = units.groupby([*keys, "task_id"], sort=True)[["pk", "pk_n", "n"]].sum().reset_index()
        per = per.rename(columns={"n": "n_trials"})
        return _Sums(per, ["pk", "pk_n"], lambda t: _ratio(t["pk"], t["pk_n"]), lambda t: t["pk_n"] > 0,
                     f"fewer than k = {k} trials", "n_trials", ("pk_n",), _ran(scope, keys), own=("share", "pk", "pk_n"))
    if metric == "judge_score":
        return _judge_sums(rs, keys)
    if metric in ("ask_f1", "precision", "recall"):
        # a group whose questions the log does not attribute to blockers has no Ask-F1: it is left out (and said),
        # and so is a group with a question naming a blocker its task lacks
        kept, _, _ = _ask_f1_kept(rs.filter(protocol="solve"), keys)
        assert isinstance(kept, RunSet)
        runs, _, stat, _, _ = _ask_f1_parts(kept, keys, "relevant", "all_runs", "micro")
        # the micro parts alone: what an engine gives too (the macro parts are not read by this statistic)
        per = runs.groupby([*keys, "task_id"], sort=True)[list(ASK_F1_SUMS)].sum().reset_index()
        scope = _work(kept)
        ran = _ran(scope[(scope["spec"] == "ambiguous") & scope["ask_tool"]], keys)
        return _ask_f1_sums(per, list(ASK_F1_SUMS), stat, metric, ran)
    if metric == "calib_score":
        tool = rs.filter(protocol=conv.calibration_protocol)
        runs, additive, _, _, _ = _calibration_parts(tool, keys)
        per = runs.groupby([*keys, "task_id"], sort=True)[additive].sum().reset_index()
        scope = _work(tool)
        return _calibration_sums(per, _ran(scope[scope["ask_tool"]], keys), keys)
    if metric in _VOI:
        return _voi_sums(rs, metric, keys, k)
    raise ValueError(f"paired_comparison: metric must be one of {sorted(COMPARABLE)} (got {metric!r})")


def _value_counts(rs: RunSet | StoreView, keys: list[str], what: str) -> pd.DataFrame:
    """Per (``keys``, task, ``value``), how many of ``rs``'s runs without error had the value (``n``): whether a run
    asked (``what="asked"``, 1.0 or 0.0) or how many questions it asked (``"questions"``). ``rs`` is already the
    runs it is of (with the tool; for questions, on ambiguous tasks); a store's engine counts them."""
    if isinstance(rs, StoreView):
        return rs.asked(keys) if what == "asked" else rs.question_counts(keys)
    work = _work(rs)
    work = work[~work["error"]]
    value = (work["n_questions"] > 0).astype(float) if what == "asked" else work["n_questions"]
    return work[[*keys, "task_id"]].assign(value=value.to_numpy()).groupby([*keys, "task_id", "value"], sort=True) \
        .size().rename("n").reset_index()


def _ran_of(rs: RunSet | StoreView, keys: list[str]) -> pd.DataFrame:
    """The (``keys``, task) ``rs`` has any run of, errors included."""
    return rs.ran(keys) if isinstance(rs, StoreView) else _ran(_work(rs), keys)


def _store_sums(view: StoreView, metric: str, keys: list[str], k: int, conv: Conventions) -> _Sums:
    """``metric``'s per-task sums over a store, computed by its engine: the same frames as the loaded run set's
    branch of :func:`_task_sums` gives."""
    tool = view.filter(protocol=conv.calibration_protocol, ask_tool=True)
    if metric == "calib_score":
        return _calibration_sums(*tool.calibration_sums(keys), keys)
    if metric == "mean_score":
        solve = view.filter(protocol="solve")
        moments, values = solve.scores(keys, values=True)
        return _mean_score_sums(moments, keys, solve.ran(keys), values)
    if metric in _VOI:
        return _voi_sums(view, metric, keys, k)
    if metric in ("ask_f1", "precision", "recall"):
        kept, _, _ = _ask_f1_kept(view.filter(protocol="solve"), keys)
        assert isinstance(kept, StoreView)
        _unrecorded(kept, "ask_f1")
        _, per = kept.ask_f1_sums(keys)
        ran = kept.filter(spec="ambiguous", ask_tool=True).ran(keys)
        return _ask_f1_sums(per, list(ASK_F1_SUMS), ask_f1_stat, metric, ran)
    raise _not_on_store(metric)


def _mean_score_sums(moments: pd.DataFrame, keys: list[str], ran: pd.DataFrame, values: pd.DataFrame) -> _Sums:
    """The mean score's sums from each task's score moments (:func:`ambiglib.metrics._information.scores_by`): its
    mean, trials and variance a task (the within-task spread of a run's score, for the rerun spread)."""
    n = moments["n"].to_numpy(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        per = moments[[*keys, "task_id"]].assign(score_mean=moments["score_sum"].to_numpy(float) / n, n_trials=n,
                                                 score_var=np.where(n > 1, moments["score_ssd"].to_numpy(float)
                                                                    / (n - 1), np.nan), n=1.0)
    return _Sums(per, ["score_mean", "n"], lambda t: _ratio(t["score_mean"], t["n"]), lambda t: t["n"] > 0,
                 "no scored run", "n_trials", ("n",), ran, values, "score_var", own=("share", "score_mean", "n"))


def _ask_f1_kept(rs: RunSet | StoreView, keys: list[str]) -> tuple[RunSet | StoreView, list, list]:
    """``rs`` without the groups of ``keys`` Ask-F1 leaves out: those with a question the log does not attribute to
    a blocker, then those with a question naming a blocker its task does not register; and those groups (the
    second with its first such question in words)."""
    if isinstance(rs, StoreView):
        refused = rs.unattributed_keys(keys)
        kept = rs.leaving_out(keys, refused)
        strays = kept.stray_keys(keys)
        return kept.leaving_out(keys, [k for k, _ in strays]), refused, strays
    kept_rs, refused = _without_unattributed(rs, keys)
    kept_rs, strays = _without_stray(kept_rs, keys)
    return kept_rs, refused, strays


def _unrecorded(view: StoreView, fn: str) -> None:
    """Refuse, as Ask-F1 over a loaded run set does, runs (with the tool, ambiguous, not in error) whose task has no
    record: the first in the log's order, and how many such tasks."""
    found = view.unrecorded()
    if len(found):
        first = found.sort_values("first_row", kind="stable").iloc[0]
        n_tasks = len(found[["benchmark", "suite", "variant_id"]].drop_duplicates())
        raise MetricError(no_task_message(fn, first, n_tasks))


def _ask_f1_sums(per: pd.DataFrame, additive: list[str], stat, metric: str, ran: pd.DataFrame) -> _Sums:
    """Precision's, recall's or Ask-F1's sums, from the per-task sums of its parts."""
    if metric == "precision":  # no question, no precision (the harness's 0 is for Ask-F1's sake)
        return _Sums(per, additive, lambda t: stat(t)[metric], lambda t: t["n_questions"] > 0,
                     "no question asked", ran=ran, own=("share", "n_relevant", "n_questions"))
    own = ("share", "d_recall", "b_recall") if metric == "recall" else \
        ("two rates", lambda t: ((t["n_relevant"], t["n_questions"]), (t["d_recall"], t["b_recall"])))
    return _Sums(per, additive, lambda t: stat(t)[metric], lambda t: t["b_recall"] > 0, "no registered blocker",
                 ran=ran, own=own)


def _calibration_sums(per: pd.DataFrame, ran: pd.DataFrame, keys: list[str]) -> _Sums:
    """CalibScore's sums from its per-task counts (:data:`CALIBRATION_SUMS`). CalibScore is a harmonic mean of the
    two pooled rates: a task counts with a run of either spec, and the pooled statistic needs runs of both (a design
    whose clear and ambiguous tasks differ is one such, said in ``design``)."""
    sums = _Sums(per, list(CALIBRATION_SUMS), lambda t: calibration_stat(t)["calib_score"],
                 lambda t: (t["is_amb"] + t["is_full"]) > 0, "no ask-tool run", ran=ran,
                 own=("two rates", lambda t: ((t["asked_amb"], t["is_amb"]),
                                              (t["is_full"] - t["asked_full"], t["is_full"]))))
    both = per.groupby([*keys, "task_id"], sort=False)[["is_amb", "is_full"]].sum()
    if len(both) and not ((both["is_amb"] > 0) & (both["is_full"] > 0)).any():
        sums.design.append("calib_score: no task was run both fully specified and ambiguous (the clear and the"
                           " ambiguous tasks are different tasks): each side's two ask rates come from different"
                           " tasks, paired by task across the sides but not across the specs")
    return sums


def _not_on_store(metric: str) -> NotPooled:
    why = (" (a judge score averages each question's labels)" if metric == "judge_score" else "")
    return NotPooled(f"{metric} is not compared over an engine yet{why}: over a store, the comparisons and rankings"
                     f" compute {', '.join(ON_STORE)}. Load the runs (ambiglib.load, with filters= to read part of the"
                     " store) to compare on " + metric)


def _voi_parts_of(sub: RunSet | StoreView, by: list[str], k: int, paired: bool, whole: bool = False) -> Any:
    """The value of information's parts (per variant, paired by the conventions) of ``sub``'s solve runs, by
    ``by`` (``whole``: of ``sub`` as it is; else of every ask tool's runs): over a store, from its engine's
    per-variant sums of the view's benchmark (:meth:`StoreView.voi_parts`)."""
    if isinstance(sub, StoreView):
        return sub.voi_parts(by, k, paired)
    return _voi_parts(sub if whole else sub.filter(ask_tool=None), by, k, paired)


def _judge_sums(rs: RunSet, keys: list[str]) -> _Sums:
    """Per task, the judges' scores of single questions (:func:`ambiglib.metrics._labels._question_scores`, as the
    opening's judge score pools them): the sum of each judged question's score and how many were judged."""
    amb = rs.filter(protocol="solve", spec="ambiguous", ask_tool=True)
    scope = _work(amb)
    work = scope[~scope["error"]]
    per, judged, _ = _question_scores(amb.labels, work, keys)
    sums = _Sums(pd.DataFrame(columns=[*keys, "task_id", "judged_sum", "judged"]) if per is None else per,
                 ["judged_sum", "judged"], lambda t: _ratio(t["judged_sum"], t["judged"]), lambda t: t["judged"] > 0,
                 "no judged question", None, (), _ran(scope, keys), None, bounded=None, own=("linearized", None))
    if judged is None:  # (why: the opening's judge score says it)
        return sums
    judges = judged.groupby(keys[-1], sort=True)["judge"].agg(lambda j: ", ".join(sorted(set(map(str, j)))))
    if judges.nunique() > 1:
        named = "; ".join(dict.fromkeys(judges))
        sums.design.append(f"judge_score: the sides' questions were scored by different judges ({named}): one judge's"
                           " 4 is not another's, so their difference mixes the agents with the judges")
    return sums


def _voi_sums(rs: RunSet | StoreView, metric: str, keys: list[str], k: int) -> _Sums:
    """Per task, the sums of a gain from the tool (:func:`ambiglib.metrics._information._voi_task_sums`: each
    variant's runs with the tool against the no-tool runs of its base) for ``metric``, one of :data:`_VOI`."""
    parts = _voi_parts_of(rs, keys, k, True, whole=True)
    per = _voi_task_sums(parts)
    cols = [*VOI_VARIANT_COLUMNS, *VOI_BASE_COLUMNS]
    if isinstance(rs, StoreView):
        ran = rs.filter(protocol="solve", spec="ambiguous", ask_tool=True).ran(keys)
    else:
        scope = _work(rs)
        ran = _ran(scope[(scope["protocol"] == "solve") & (scope["spec"] == "ambiguous") & scope["ask_tool"]], keys)
    weights: tuple[str, ...]
    if metric == "pass_gain_pp":
        defined, why, weights = (lambda t: (t["pk_na"] > 0) & (t["pk_nt"] > 0)), \
            f"fewer than k = {k} trials on a side", ("pk_na", "pk_nt")
    elif metric == "gain_per_question":
        defined, why, weights = (lambda t: (t["a_n_scored"] > 0) & (t["t_questions"] > 0)), "no question asked", ()
    else:
        defined, why, weights = (lambda t: (t["a_n_scored"] > 0) & (t["t_n_scored"] > 0)), \
            "no scored run on a side", ("a_n_scored", "t_n_scored")
    if metric == "gain_per_question":
        def stat(t):
            return per_run_question(parts["stat"](t)["score_gain_pp"], t["t_questions"], t["t_n_scored"])
    else:
        def stat(t):
            return parts["stat"](t)[_VOI[metric]]
    scale = None if metric == "gain_per_question" else 100.0
    return _Sums(per, cols, stat, defined, why, weights=weights, ran=ran, own=("linearized", scale),
                 bounded=scale)
