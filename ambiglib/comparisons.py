"""Is agent A better than agent B? Paired comparisons of a metric between two models, two ask policies, or
with and without the tool.

Every comparison is paired by task. A metric is computed for each side over the tasks where *both*
sides have a value of it (a task where a side asked nothing has no precision; one run fewer than k
times has no pass@k): the values, the interval and the test use those tasks and no others, and
``n_pairs`` counts them. The difference is side a − side b, in the order the sides are given.

* **Interval**, labelled in every row (``ci_level``, ``ci_method``): for a mean of per-task values with equal
  weights (mean score, pass@k, ask rate, the gains from the tool in a balanced design), the t-interval of the
  per-task differences; for a pooled ratio (Ask-F1, precision, recall, CalibScore, gain per question), the same
  t-interval linearized (:func:`ambiglib.ratio_intervals.linearized_ci`: the delta method over per-task sums). Both cover
  0.93-0.96 from 8 tasks, where a percentile task bootstrap covered 0.88-0.92 (``bench/coverage.py``;
  ``interval="bootstrap"`` still gives it). Where every task's difference is the same, a difference of values
  on [0, 1] is widened to the share of tasks that could differ unseen (Wilson's bound for 0 of n), never a point.
* **Test**, fitted to the outcome (Dietterich 1998; Miller 2024, "Adding Error Bars to Evals"): the mid-p
  McNemar test for pass/fail outcomes with one trial per task and side (Fagerland et al. 2013: the exact test,
  ``test="mcnemar"``, rejects far less often than its level at 10-20 tasks); otherwise a paired sign-flip
  permutation test of the same difference the interval is about (each task's sides swapped), exact up to 20
  tasks, else from random flips, as many as the family's size needs for the adjustment to reach 0.05
  (:func:`flips_for`), its Monte-Carlo error in ``p_mc_se``.
  ``test="wilcoxon"`` gives the Wilcoxon signed-rank test on the per-task values, as Ambig-DS reports. Each
  row names its test; ``n_differing`` counts the tasks whose swap moves the statistic (the metric's own
  inputs differ), and below 10 the note says the test has little power. Where the interval and the test
  decide differently, ``ci_vs_test`` says so and why.
* The p-values are adjusted within a **family** (``family``, column ``family``): by default each benchmark's rows
  of one of the four questions, so that a benchmark's verdict does not change with the other benchmarks in the
  log (``family="metric"`` narrower, ``"benchmark"`` or ``"all"`` wider). By Holm (``p_holm``, the default), which
  bounds the chance of any false difference in the family (the family-wise error rate), or by Benjamini–Hochberg
  (``correction="fdr_bh"``, ``p_fdr_bh``), which bounds the expected share of false differences among those it
  finds (the false discovery rate), and the note says so. ``p_smallest`` is the smallest p the row's test could
  give with its tasks that differ, ``p_smallest_adjusted`` that adjusted as its family's best case: at or above
  the level, the row cannot be significant whatever the outcomes (more tasks would tell). Effect sizes on the per-task values: the matched-pairs
  rank-biserial correlation (``rbc``, Kerby 2014) and the probability of improvement (``prob_improvement``,
  rliable: within each task the chance that a run of a beats a run of b, averaged over tasks).
* ``rerun_sd`` (mean score): how far the difference would move if both sides were run again on these tasks
  with as many trials (the standard deviation of that change, as ``metrics.rerun_sd`` is for one agent), from
  the spread between a task's own trials (Miller 2024, §3). It leaves out the sampling of tasks, which the
  interval includes; it shrinks as tasks are added; no verdict rests on it.

Nothing is pooled across a condition the comparison does not name: comparing models holds the ask policy
fixed (one comparison per policy), comparing policies holds the model fixed, and comparing with and
without the tool pairs each with-tool policy with the no-tool runs it was run against
(:func:`ambiglib.tables.value_of_information`'s rule).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Literal

import numpy as np
import pandas as pd

from .errors import ArgumentError
from .metrics._common import CONDITIONS, _ratio, _single_condition, _work
from .metrics.asking import _ask_f1_parts, _calibration_parts, _per_unit_pass, _without_stray, _without_unattributed
from .metrics.information import VOI_BASE_COLUMNS, VOI_VARIANT_COLUMNS, _voi_parts, _voi_task_sums, per_run_question
from .metrics.labels import _question_scores
from .ratio_intervals import LINEARIZED, linearized_ci
from .runset import RunSet
from .shapes import Conventions, conventions_for
from .significance import PairedTest, mcnemar_exact, mcnemar_midp, paired_permutation
from .stats import _adjusted, bootstrap_totals, check_n_boot, percentile_ci, sps
from .tables._common import ConventionsArg, _per_tool_policy, as_table, explain_empty

__all__ = ["paired_comparison", "model_comparison", "COMPARABLE", "TESTS", "CORRECTIONS", "rank_biserial",
           "prob_improvement", "describe_condition", "flips_for", "count_pairs", "per_task"]

#: the metrics paired_comparison compares: name → what it is
COMPARABLE: dict[str, str] = {
    "mean_score": "mean score per task (solve runs in the condition; invalid and timeout score 0)",
    "pass_at_k": "pass@k per task (the benchmark's estimator: HIL-Bench first k, else unbiased)",
    "ask_rate": "share of runs with the ask tool that asked at least one question, on ambiguous tasks (condition"
                " ambiguous+tool, the default) or on fully specified ones (full+tool: over-asking); under Ambig-DS's"
                " conventions its ask-only runs, as CalibScore",
    "questions_per_run": "questions a run asks with the tool on ambiguous tasks (solve runs)",
    "judge_score": "the judges' mean numeric score of single questions (labels with q_index; a question's calls and"
                   " judges averaged first), over judged questions of solve runs with the tool on ambiguous tasks",
    "ask_f1": "Ask-F1 from pooled precision and recall (ask-tool runs on ambiguous tasks; an agent that asks"
              " nothing has recall 0 and Ask-F1 0)",
    "precision": "question precision (relevant questions / questions), over tasks where both sides asked: without"
                 " a question precision is undefined",
    "recall": "blocker recall (blockers addressed / registered blockers)",
    "calib_score": "CalibScore of the ask-tool runs on full and ambiguous tasks (from the two pooled ask rates)",
    "gain_per_question": "score gain with the tool (pp) per question a with-tool run asks (gain ÷ questions per"
                         " run), over tasks where both asked; LHAW's Gain/Q (gain ÷ all questions) is in its"
                         " value_of_information table",
    "score_gain_pp": "mean-score gain with the tool, pp",
    "pass_gain_pp": "pass@k gain with the tool, pp",
}
#: how the p-values are adjusted over a table's rows: statsmodels' ``multipletests`` method → (its name, what
#: rows whose adjusted p, column ``p_<method>``, is below a level then mean)
CORRECTIONS: dict[str, tuple[str, str]] = {
    "holm": ("Holm", "the chance that any row below a level is a false difference (the family-wise error rate) is"
                     " at most that level, however the tests depend on each other"),
    "fdr_bh": ("Benjamini–Hochberg", "the expected share of false differences among the rows below a level (the"
                                     " false discovery rate) is at most that level, for tests independent or"
                                     " positively dependent; the chance of any false difference is not bounded, as"
                                     " Holm's is (correction='holm')"),
}
#: the alternatives a test can take: ``greater`` tests side a > side b
Alternative = Literal["two-sided", "greater", "less"]
#: the tests a comparison can use: ``auto`` picks mid-p McNemar or the permutation test by the outcome
TESTS = ("auto", "mcnemar", "mcnemar-midp", "permutation", "wilcoxon")
#: below this many tasks whose sides differ, a test has little power (the note says so)
FEW_DIFFERING = 10
#: below this many tasks a percentile bootstrap interval covers less than it says (``bench/coverage.py``)
FEW_FOR_BOOTSTRAP = 50
#: how the interval of a difference of means of per-task values is made
T_OF_DIFFERENCES = "t-interval of the per-task differences"
#: how a difference's interval can be made (``interval=``): ``t``, the t-interval of the per-task differences or,
#: for a pooled ratio, its linearized form (:func:`ambiglib.ratio_intervals.linearized_ci`); ``bootstrap``, the percentile
#: task bootstrap (``n_boot`` draws), which covers less than its level below about 50 tasks
INTERVALS = ("t", "bootstrap")
_VOI = {"gain_per_question": "score_gain_pp", "score_gain_pp": "score_gain_pp", "pass_gain_pp": "pass_gain_pp"}
_SIDES = ("model", "policy", "ask_tool", "log")
#: what each comparison holds fixed (one comparison per value), the agent keys other than its sides: ``log`` (logs
#: loaded together, :mod:`ambiglib.log_labels`) pairs one model and policy's runs across the logs by task
_FIXED = {"model": ["policy"], "policy": ["model"], "ask_tool": ["model", "policy"], "log": ["model", "policy"]}
#: metrics whose runs are chosen by ``condition`` (the others fix their own); ask_rate's condition keeps the tool
CONDITIONED = ("mean_score", "pass_at_k", "ask_rate")
#: metrics compared with and without the ask tool (``between="ask_tool"``)
SCORED = ("mean_score", "pass_at_k")
#: which of the four questions each metric answers: a Holm family is one benchmark's metrics of one question
QUESTION_OF = {"ask_rate": "asking", "calib_score": "asking", "questions_per_run": "question_quality",
               "judge_score": "question_quality",
               "precision": "question_quality", "recall": "question_quality", "ask_f1": "question_quality",
               "mean_score": "payoff", "pass_at_k": "payoff", "score_gain_pp": "payoff", "pass_gain_pp": "payoff",
               "gain_per_question": "payoff"}
#: each metric's name in a sentence
METRIC_NAMES = {"mean_score": "mean score", "pass_at_k": "pass@k", "ask_rate": "ask rate", "questions_per_run":
                "questions per run", "judge_score": "judge score", "ask_f1": "Ask-F1", "precision": "precision", "recall": "recall",
                "calib_score": "CalibScore", "gain_per_question": "gain per question (pp)",
                "score_gain_pp": "gain from asking (pp)", "pass_gain_pp": "pass@k gain from asking (pp)"}


def metric_name(metric: str, condition: tuple[str, bool] | None = None) -> str:
    """A metric's name in a sentence, with its condition where the metric takes one ("ask rate on fully specified
    tasks", "mean score, ambiguous without the tool")."""
    name = METRIC_NAMES.get(metric, metric)
    if metric == "ask_rate" and condition is not None:
        return f"{name} on {'fully specified' if condition[0] == 'full' else 'ambiguous'} tasks"
    if metric in ("mean_score", "pass_at_k") and condition is not None and condition != ("ambiguous", True):
        spec = "fully specified" if condition[0] == "full" else "ambiguous"
        return f"{name}, {spec} {'with' if condition[1] else 'without'} the tool"
    return name


#: the metrics whose values are percentage points (a difference of two is too); the rest are on 0-1 or counts
IN_PP = ("score_gain_pp", "pass_gain_pp", "gain_per_question")
#: each metric's unit, as a table's ``unit`` column says it: percentage points, a share or score on 0-1, or its own
UNITS = {**{m: "pp" for m in IN_PP}, "questions_per_run": "questions", "judge_score": "the judges' scale"}


def unit_of(metric: str) -> str:
    """A metric's unit in words: "pp", "0-1", "questions" or "the judges' scale"."""
    return UNITS.get(metric, "0-1")


#: the families a comparison's p-values can be adjusted over (``family=``), narrowest first: each benchmark's rows
#: of one metric, of one of the four questions (the default: each benchmark's conclusion on a question stands
#: alone), of the benchmark, or every row of the table
FAMILIES = ("metric", "question", "benchmark", "all")
#: why a difference has no interval
NO_INTERVAL = ("no interval: one task, or every task alike for a metric without bounds (no spread to make one from),"
               " or (interval='bootstrap') no bootstrap draw with a value")
_FAMILY_WORDS = {"metric": "benchmark and metric", "question": "benchmark and question", "benchmark": "benchmark"}
#: random sign flips a permutation test draws first; rows that may be significant draw more (:func:`flips_for`)
FIRST_FLIPS = 9_999
#: the most flips × tasks one test draws, to bound a test's time: past it, the note says what it limits
FLIP_BUDGET = 2_000_000_000


def rank_biserial(x, y) -> float:
    """The matched-pairs rank-biserial correlation of x − y: (R+ − R−) / (R+ + R−) over the
    non-zero differences' ranks (Kerby 2014; pingouin's ``RBC``). NaN with no non-zero difference."""
    d = np.asarray(x, dtype=float) - np.asarray(y, dtype=float)
    d = d[d != 0]
    if len(d) == 0:
        return float("nan")
    r = sps.rankdata(np.abs(d))
    return float((r[d > 0].sum() - r[d < 0].sum()) / r.sum())


def prob_improvement(a: pd.DataFrame, b: pd.DataFrame) -> float:
    """The probability of improvement of a over b: within each task, the share of (run of a, run of b) pairs where
    a's value is higher, ties counting one half; averaged over the tasks (Agarwal et al. 2021, rliable's
    ``probability_of_improvement``). Paired by task, unlike the common-language effect size over all pairs.

    ``a``, ``b``: one row per run (or one per task) with columns ``task_id`` and ``value``; the tasks of both.
    NaN with no shared task."""
    a, b = a[["task_id", "value"]], b[["task_id", "value"]]
    both = a.merge(b, on="task_id", suffixes=("_a", "_b"))
    if len(both) == 0:
        return float("nan")
    va, vb = both["value_a"].to_numpy(float), both["value_b"].to_numpy(float)
    win = np.where(va > vb, 1.0, np.where(va == vb, 0.5, 0.0))
    return float(pd.Series(win).groupby(both["task_id"].to_numpy(), sort=False).mean().mean())


def flips_for(m: int, alpha: float, p: float = 0.0) -> int:
    """The random sign flips a permutation test needs in a table of ``m`` rows adjusted by Holm or
    Benjamini–Hochberg (either makes the smallest p at most ``m`` times itself): enough that the smallest p it can
    give (2 / (flips + 1), two-sided) times ``m`` is a tenth of ``alpha``, and that a p-value near ``alpha`` has a
    Monte-Carlo standard error below ``alpha`` / 20; a multiple of 10,000, less one."""
    family = int(np.ceil(20 * m / alpha))
    q = min(max(p / 2, 0.0), 0.5)
    near = int(np.ceil(4 * q * (1 - q) * (20 / alpha) ** 2))
    need = max(FIRST_FLIPS + 1, family, near)
    return int(-(-need // 10_000) * 10_000 - 1)


def describe_condition(metric: str, between: str, condition: tuple[str, bool] | None = ("ambiguous", True),
                       conv: Conventions | None = None) -> str:
    """The runs a comparison of ``metric`` uses, in words ("ambiguous tasks with the ask tool")."""
    if between == "ask_tool" or metric in _VOI:
        return "ambiguous tasks, with the ask tool (a) vs without (b)" if between == "ask_tool" else \
            "ambiguous tasks, with the ask tool vs without"
    if metric == "ask_rate":
        only = conv.calibration_protocol if conv is not None else None
        spec = "every" if condition is None else "fully specified" if condition[0] == "full" else condition[0]
        return f"{spec} tasks with the ask tool" + (f" ({only} runs)" if only else "")
    if metric in CONDITIONED:
        if condition is None:
            return "every solve run"
        spec, tool = condition
        return f"{'fully specified' if spec == 'full' else spec} tasks {'with' if tool else 'without'} the ask tool"
    if metric == "calib_score":
        only = conv.calibration_protocol if conv is not None else None
        return "runs with the ask tool on ambiguous and fully specified tasks" + (f" ({only} runs)" if only else "")
    return "ambiguous tasks with the ask tool"


# ----------------------------------------------------------------------------- per-task sums of each metric


@dataclass
class _Sums:
    """Per (keys…, task_id): the additive sums a metric pools (``cols``), the metric of summed columns
    (``stat``), which tasks have a value (``defined``, of one task's sums) and, for McNemar, the trials
    behind each task's value (``trials``). ``weights``: the columns that weigh a task in the pooled metric; where
    each is the same on every task of a side, the metric is the mean of its per-task values (a t-interval
    applies). ``ran``: the (keys…, task_id) with any run in the metric's scope, errors and unscored runs
    included. ``runs``: (keys…, task_id, value) per run, where a run has a value of its own (the probability of
    improvement compares runs within a task). ``spread``: the per-task column of the within-task variance of a
    run's value (its trials in ``trials``), for the rerun spread. ``design``: what the reader must know of how
    the metric pairs (said in the note)."""

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
    #: ``("linearized", scale[, floor])`` the linearized t-interval (:func:`ambiglib.ratio_intervals.linearized_ci`),
    #: ``scale`` its bound where it is a difference of values on [0, 1] (None: unbounded), ``floor`` the least value
    #: the metric takes (0 for a count)
    own: tuple = ("linearized", None)
    #: a difference of two sides' values: its scale where both are on [0, 1] (1, or 100 for percentage points)
    #: for the interval where no task differs; None where the values are unbounded (counts, gains per question)
    bounded: float | None = 1.0


def _ran(work: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    return work[[*keys, "task_id"]].drop_duplicates()


# complexity over 15 (noqa: C901 below): one branch per metric's per-task sums
def _task_sums(rs: RunSet, metric: str, keys: list[str], k: int, conv: Conventions) -> _Sums:  # noqa: C901
    if metric == "mean_score":
        scope = _work(rs)
        scope = scope[scope["protocol"] == "solve"]
        work = scope[~scope["error"]].dropna(subset=["score"])
        g = work.groupby([*keys, "task_id"], sort=True)["score"]
        per = pd.DataFrame({"score_mean": g.mean(), "n_trials": g.size(), "score_var": g.var(ddof=1)}).reset_index()
        per["n"] = 1.0
        return _Sums(per, ["score_mean", "n"], lambda t: _ratio(t["score_mean"], t["n"]), lambda t: t["n"] > 0,
                     "no scored run", "n_trials", ("n",), _ran(scope, keys),
                     work[[*keys, "task_id", "score"]].rename(columns={"score": "value"}), "score_var",
                     own=("share", "score_mean", "n"))
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
    if metric == "ask_rate":  # (the runs: _scopes keeps the condition's spec, with the tool)
        tool = rs.filter(protocol=conv.calibration_protocol)
        scope = _work(tool)
        scope = scope[scope["ask_tool"]]
        work = scope[~scope["error"]]
        asked = (work["n_questions"] > 0).astype(float)
        g = work.assign(asked=asked, n=1.0).groupby([*keys, "task_id"], sort=True)
        per = g[["asked", "n"]].sum().reset_index()
        per["n_trials"] = per["n"]
        values = work[[*keys, "task_id"]].assign(value=asked.to_numpy())
        return _Sums(per, ["asked", "n"], lambda t: _ratio(t["asked"], t["n"]), lambda t: t["n"] > 0,
                     "no run with the ask tool", "n_trials", ("n",), _ran(scope, keys), values,
                     own=("share", "asked", "n"))
    if metric == "questions_per_run":
        scope = _work(rs.filter(protocol="solve", spec="ambiguous", ask_tool=True))
        work = scope[~scope["error"]]
        per = work.assign(n=1.0).groupby([*keys, "task_id"], sort=True)[["n_questions", "n"]].sum().reset_index()
        per["n_questions"] = per["n_questions"].astype(float)
        values = work[[*keys, "task_id"]].assign(value=work["n_questions"].to_numpy(float))
        return _Sums(per, ["n_questions", "n"], lambda t: _ratio(t["n_questions"], t["n"]), lambda t: t["n"] > 0,
                     "no run with the ask tool", None, ("n",), _ran(scope, keys), values, bounded=None,
                     own=("linearized", None, 0.0))
    if metric == "judge_score":
        return _judge_sums(rs, keys)
    if metric in ("ask_f1", "precision", "recall"):
        # a group whose questions the log does not attribute to blockers has no Ask-F1: it is left out (and said)
        kept, _ = _without_unattributed(rs.filter(protocol="solve"), keys)
        kept, _ = _without_stray(kept, keys)  # and a group with a question naming a blocker its task lacks
        runs, additive, stat, _, _ = _ask_f1_parts(kept, keys, "relevant", "all_runs", "micro")
        per = runs.groupby([*keys, "task_id"], sort=True)[additive].sum().reset_index()
        scope = _work(kept)
        ran = _ran(scope[(scope["spec"] == "ambiguous") & scope["ask_tool"]], keys)
        if metric == "precision":  # no question, no precision (the harness's 0 is for Ask-F1's sake)
            return _Sums(per, additive, lambda t: stat(t)[metric], lambda t: t["n_questions"] > 0,
                         "no question asked", ran=ran, own=("share", "n_relevant", "n_questions"))
        own = ("share", "d_recall", "b_recall") if metric == "recall" else \
            ("two rates", lambda t: ((t["n_relevant"], t["n_questions"]), (t["d_recall"], t["b_recall"])))
        return _Sums(per, additive, lambda t: stat(t)[metric], lambda t: t["b_recall"] > 0, "no registered blocker",
                     ran=ran, own=own)
    if metric == "calib_score":
        tool = rs.filter(protocol=conv.calibration_protocol)
        runs, additive, stat, _, _ = _calibration_parts(tool, keys)
        per = runs.groupby([*keys, "task_id"], sort=True)[additive].sum().reset_index()
        scope = _work(tool)
        # CalibScore is a harmonic mean of the two pooled rates: a task counts with a run of either spec, and the
        # pooled statistic needs runs of both (a design whose clear and ambiguous tasks differ is one such)
        sums = _Sums(per, additive, lambda t: stat(t)["calib_score"], lambda t: (t["is_amb"] + t["is_full"]) > 0,
                     "no ask-tool run", ran=_ran(scope[scope["ask_tool"]], keys),
                     own=("two rates", lambda t: ((t["asked_amb"], t["is_amb"]),
                                                  (t["is_full"] - t["asked_full"], t["is_full"]))))
        both = per.groupby([*keys, "task_id"], sort=False)[["is_amb", "is_full"]].sum()
        if len(both) and not ((both["is_amb"] > 0) & (both["is_full"] > 0)).any():
            sums.design.append("calib_score: no task was run both fully specified and ambiguous (the clear and the"
                               " ambiguous tasks are different tasks): each side's two ask rates come from different"
                               " tasks, paired by task across the sides but not across the specs")
        return sums
    if metric in _VOI:
        parts = _voi_parts(rs, keys, k, True)
        per = _voi_task_sums(parts)
        cols = [*VOI_VARIANT_COLUMNS, *VOI_BASE_COLUMNS]
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
    raise ValueError(f"paired_comparison: metric must be one of {sorted(COMPARABLE)} (got {metric!r})")


def _judge_sums(rs: RunSet, keys: list[str]) -> _Sums:
    """Per task, the judges' scores of single questions (:func:`ambiglib.metrics.labels._question_scores`, as the
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


# ----------------------------------------------------------------------------- the comparison


#: a comparison's columns after the benchmark, suite, fixed columns and the two sides
_COLUMNS = ["metric", "condition", "n_tasks", "n_tasks_left_out", "n_pairs", "value_a", "value_b", "difference",
            "difference_ci_low", "difference_ci_high", "ci_level", "ci_method", "test", "n_differing", "statistic",
            "alternative", "p_value", "p_mc_se", "rbc", "prob_improvement", "rerun_sd"]


@as_table
def paired_comparison(rs: RunSet, *, metric: str = "mean_score", between: str = "model",
                      condition: tuple[str, bool] | None = ("ambiguous", True), a: object = None, b: object = None,
                      k: int = 3, test: str = "auto",
                      alternative: Alternative = "two-sided", n_boot: int = 10_000,
                      seed: int = 0, confidence: float = 0.95,
                      conventions: Mapping[str, str] | None = None, pool_suites: bool = False,
                      correction: str = "holm", family: str = "question", interval: str = "t") -> pd.DataFrame:
    """Compare a metric between every pair of models, of ask policies, or with and without the tool, paired by task.

    Parameters
    ----------
    rs : RunSet
    metric : str, default "mean_score"
        One of :data:`COMPARABLE`: ``mean_score``, ``pass_at_k``, ``ask_rate``, ``questions_per_run``,
        ``ask_f1``, ``precision``, ``recall``, ``calib_score``, ``gain_per_question``, ``score_gain_pp``,
        ``pass_gain_pp``.
    between : {"model", "policy", "ask_tool"}, default "model"
        What differs between the two sides. ``ask_tool`` compares runs with the tool (side a)
        against runs without it (side b) on the same ambiguous tasks (``mean_score`` and
        ``pass_at_k`` only), one comparison per with-tool policy.
    condition : (spec, ask_tool) or None, default ("ambiguous", True)
        The runs ``mean_score`` and ``pass_at_k`` compare; for ``ask_rate``, the spec of the runs with the tool
        (``("ambiguous", True)``: asking when it should; ``("full", True)``: over-asking). The other metrics fix
        their own runs (the ``condition`` column says which), and giving another condition for them is an error.
    a, b : optional
        Only this pair, in this order: ``difference`` is a − b. Without them, every pair (sorted; with
        and without the tool: with first).
    k : int, default 3
    test : {"auto", "mcnemar", "mcnemar-midp", "permutation", "wilcoxon"}, default "auto"
        ``auto``: the mid-p McNemar test where every task's value on both sides is one pass/fail trial,
        else the paired permutation test. ``mcnemar``: the exact (conditional) McNemar test, conservative with
        few discordant tasks; ``mcnemar-midp``: its mid-p form. ``wilcoxon``: the Wilcoxon signed-rank test on the per-task values
        (``zero_method="wilcox"``), as Ambig-DS reports.
    alternative : {"two-sided", "greater", "less"}
        ``greater`` tests side a > side b.
    n_boot, seed, confidence
        The interval's level; with ``interval="bootstrap"``, the task bootstrap: replicate r draws the paired
        tasks (sorted by ``task_id``) as ``np.random.default_rng(seed).integers(0, n, size=(n_boot, n))[r]``, and
        both sides are recomputed on the same draw. ``seed`` also seeds a permutation test's random flips. 1 −
        ``confidence`` is the level at which the interval and the test are set side by side (``ci_vs_test``)
        and for which a permutation test draws enough flips.
    conventions : mapping, optional
        Benchmark → paper whose conventions it follows (:mod:`ambiglib.shapes`); sets the
        pass@k estimator and the calibration runs.
    pool_suites : bool, default False
        One comparison per benchmark over all its suites (``suite`` then lists them): tasks are paired
        within their suite, and the bootstrap and the test run over the tasks of every suite together.
    correction : {"holm", "fdr_bh"}, default "holm"
        How the p-values are adjusted over every row (:data:`CORRECTIONS`, statsmodels' ``multipletests``):
        ``holm`` (``p_holm``) bounds the family-wise error rate, the chance of any false difference in the
        table; ``fdr_bh``, Benjamini–Hochberg (``p_fdr_bh``), bounds the false discovery rate, the expected
        share of false differences among the rows below the level, and finds more where many rows differ.
    family : {"question", "metric", "benchmark", "all"}, default "question"
        The rows adjusted together (:data:`FAMILIES`, :func:`family_of`): each benchmark's rows of one of the four
        questions (one metric's rows, with one metric compared), or all of a benchmark's, or every row.
    interval : {"t", "bootstrap"}, default "t"
        :data:`INTERVALS`: the t-interval (linearized for a pooled ratio), or the percentile task bootstrap.

    Returns
    -------
    pandas.DataFrame
        One row per benchmark, suite, the fixed columns (``policy`` when comparing models,
        ``model`` when comparing policies or tool use) and pair with a value on both sides:
        ``<between>_a, <between>_b, metric, condition`` (the runs compared, in words), ``n_tasks``
        (tasks with a usable run on both sides: not an error, scored where the metric needs a score),
        ``n_tasks_left_out`` (tasks both sides ran that have no usable run on a side: their runs errored or
        were not scored), ``n_pairs`` (of ``n_tasks``, those where both sides have a value: the values,
        interval and test use these), ``value_a, value_b, difference`` (a − b), ``difference_ci_low,
        difference_ci_high, ci_level, ci_method`` (the interval, its level and how it was made), ``test``
        (its name, with its flips), ``n_differing`` (tasks whose swap alone moves the statistic: discordant
        pairs for McNemar, non-zero differences for Wilcoxon), ``statistic`` (McNemar's min(b, c), the
        permutation test's observed difference, Wilcoxon's W), ``alternative, p_value, p_mc_se`` (the
        Monte-Carlo standard error of a p-value from random flips), ``p_holm`` (Holm within the row's family; with
        ``correction="fdr_bh"``, ``p_fdr_bh`` in its place, Benjamini–Hochberg, and the note says what it bounds),
        ``family, family_size`` (the family's label and its rows with a p-value), ``p_smallest,
        p_smallest_adjusted`` (the smallest p the test could give, and that adjusted as its family's best case),
        ``ci_vs_test`` (where the interval and the test decide differently, which and why), the effect sizes
        ``rbc, prob_improvement``, and ``rerun_sd`` (mean_score: the standard deviation of the change in the
        difference if both sides ran these tasks again with as many trials, from each task's own trials). A
        pair with no task valued on both sides gives no row; the note says why.

    Raises
    ------
    MetricError
        From the metric (e.g. a task without its blocker record, for Ask-F1).
    ValueError
        An unknown metric, ``between``, ``test``, ``alternative`` or ``correction``; a ``condition`` for a
        metric that fixes its own runs.

    References
    ----------
    Dietterich (1998); Miller (2024), arXiv 2411.00640, §paired; Fagerland et al. (2013); Agarwal et al. (2021),
    rliable; Holm (1979); Benjamini and Hochberg (1995); docs/metrics.md, "Paired comparisons".
    """
    _check_correction(correction)  # before any work
    _check_family(family)
    out, retests, notes = compared(rs, metric=metric, between=between, condition=condition, a=a, b=b, k=k,
                                   test=test, alternative=alternative, n_boot=n_boot, seed=seed,
                                   confidence=confidence, conventions=conventions, pool_suites=pool_suites,
                                   interval=interval)
    notes = settle(out, retests, 1 - confidence, correction, family=family) + notes
    if len(out) == 0 and not notes:
        notes.append(_nothing_to_compare(rs, between))
    if notes:
        out.attrs["note"] = "; ".join(notes)
    return out


# complexity over 15 (noqa: C901 below): one branch per metric and side kind
def compared(rs: RunSet, *, metric: str, between: str, condition, a, b, k: int, test: str, alternative: Alternative,  # noqa: C901
             n_boot: int, seed: int, confidence: float, conventions, pool_suites: bool, interval: str = "t",
             blocks: list | None = None) -> tuple[pd.DataFrame, list, list[str]]:
    """:func:`paired_comparison`'s rows before the adjustment, with the means to draw more flips for each row's test
    (``retests``: per row, ``(retest(flips), flips drawn, tasks)`` or None) and its notes. A caller that adjusts
    several comparisons together (:func:`ambiglib.ranking.rankings`) concatenates them and calls :func:`settle`
    once over them all. ``blocks``: a list that gets each block's ``(head, per-task sums, sums, condition in
    words)``, for a caller that ranks the sides on the same sums."""
    if between not in _SIDES:
        raise ValueError(f"paired_comparison: between must be one of {list(_SIDES)} (got {between!r})")
    if metric not in COMPARABLE:
        raise ValueError(f"paired_comparison: metric must be one of {sorted(COMPARABLE)} (got {metric!r})")
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(f"paired_comparison: alternative must be 'two-sided', 'greater' or 'less' (got {alternative!r})")
    if test not in TESTS:
        raise ValueError(f"paired_comparison: test must be one of {list(TESTS)} (got {test!r})")
    if interval not in INTERVALS:
        raise ValueError(f"paired_comparison: interval must be one of {list(INTERVALS)} (got {interval!r})")
    if between == "ask_tool" and metric not in SCORED:
        raise ValueError(f"paired_comparison: with and without the tool compares mean_score or pass_at_k ({metric}"
                         " already compares the two; compare it between models or policies)")
    if metric == "ask_rate" and condition is not None and not condition[1]:
        raise ArgumentError(f"paired_comparison: ask_rate is the share of runs with the ask tool that asked: its"
                            f" condition keeps the tool (ambiguous+tool or full+tool; got {condition[0]} without it)")
    if metric not in CONDITIONED and condition not in (None, ("ambiguous", True)):
        raise ValueError(f"paired_comparison: {metric} compares {describe_condition(metric, between)}: it fixes its"
                         " own runs, so a condition applies only to mean_score and pass_at_k")
    if (a is None) != (b is None):
        raise ValueError("paired_comparison: give both a and b (or neither: every pair)")
    if a is not None and a == b:
        raise ArgumentError(f"paired_comparison: a and b are both {a!r}: a side compared with itself differs by 0"
                            " on every task; give two different sides")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ArgumentError(f"paired_comparison: seed must be an integer from 0 (got {seed!r}): it seeds numpy's"
                            " random generator, which takes no negative seed")
    check_n_boot(n_boot)  # refused up front, whether or not a row's interval is a bootstrap
    fixed, order = _fixed(rs, between), _side_order(rs, between)
    rows: list[dict] = []
    retests: list = []
    why: list[str | tuple[str, str]] = []
    design: list[str] = []
    for head, block, ran, values, sums, where in _groups(rs, metric, between, condition, k, conventions,
                                                         pool_suites, fixed, why, design):
        new, again = _pairs(block, ran, values, between, sums, (a, b), n_boot, seed, confidence, alternative, test,
                            head, metric, where, why, order, interval)
        rows += new
        retests += again
        if blocks is not None:  # a caller ranking the sides (ambiglib.ranking) takes each block's per-task sums too
            blocks.append((head, block, sums, where))
    side_a, side_b = f"{between}_a", f"{between}_b"
    out = pd.DataFrame(rows, columns=["benchmark", "suite", *fixed, side_a, side_b, *_COLUMNS])
    notes = _collapsed(why) + design
    versions = _one_model_a_log(rs) if between == "log" else None
    if versions and len(out):
        notes.append(f"each log holds one model ({versions}): its runs are paired across the logs as one agent's"
                     " versions")
    if metric in ("ask_f1", "precision", "recall"):
        kept, refused = _without_unattributed(rs.filter(protocol="solve"), ["benchmark", "suite", between])
        if refused:
            notes.append(f"left out: {', '.join(' '.join(k) for k in refused)} (questions not attributed to a"
                         f" blocker: no {metric})")
        for key, text in _without_stray(kept, ["benchmark", "suite", between])[1]:
            notes.append(f"left out: {' '.join(key)} (no {metric}: its {text})")
    return out, retests, notes


def _groups(rs: RunSet, metric: str, between: str, condition, k: int, conventions, pool_suites: bool,
            fixed: list[str], why: list, design: list[str]):
    """The blocks a comparison pairs sides within: per benchmark, scope (with and without the tool: per with-tool
    policy), suite and fixed columns, ``(head, per-task sums, runs each side ran, run values, sums, condition in
    words)``; what a benchmark lacks goes to ``why``, what its design means to ``design``."""
    benches = sorted(set(rs.runs["benchmark"].astype(object)))
    for bench in benches:
        sub, conv = rs.filter(benchmark=bench), conventions_for(bench, conventions)
        where = describe_condition(metric, between, condition, conv)
        lacks = _lacks(sub, metric, between, condition)
        if lacks:
            why.append(f"{bench}: {lacks}" if len(benches) > 1 else lacks)
            continue
        for label, runs in _scopes(sub, metric, between, condition):
            keys = ["suite", *[c for c in fixed if c != "policy" or between != "ask_tool"], between]
            sums = _task_sums(runs, metric, keys, k, conv)
            if len(sums.per) == 0:
                continue
            design += [f"{bench}: {d}" if len(benches) > 1 else d for d in sums.design if d not in design]

            suites = ", ".join(sorted(map(str, sums.per["suite"].unique())))

            def as_per(frame: pd.DataFrame | None, label=label, suites: str = suites) -> pd.DataFrame | None:
                if frame is None:
                    return None
                frame = frame.assign(policy=label) if between == "ask_tool" else frame
                if pool_suites:  # a task is a task of its suite; the comparison spans them all
                    frame = frame.assign(task_id=frame["suite"].astype(str) + " / " + frame["task_id"].astype(str),
                                         suite=suites)
                return frame

            per, ran, values = as_per(sums.per), as_per(sums.ran), as_per(sums.runs)
            assert per is not None  # (sums.per is a frame)
            group_keys = ["suite", *fixed]
            for key, block in per.groupby(group_keys, sort=True):
                head = {"benchmark": bench, **dict(zip(group_keys, key))}
                yield (head, block, _of_group(ran, group_keys, key), _of_group(values, group_keys, key), sums,
                       where)


def _of_group(frame: pd.DataFrame | None, keys: list[str], key: tuple) -> pd.DataFrame | None:
    if frame is None:
        return None
    mask = np.ones(len(frame), bool)
    for column, value in zip(keys, key):
        mask &= (frame[column] == value).to_numpy()
    return frame[mask]


def _check_correction(correction: object) -> None:
    if correction not in CORRECTIONS:
        raise ValueError(f"paired_comparison: correction must be one of {list(CORRECTIONS)} (got {correction!r})")


def _check_family(family: object) -> None:
    if family not in FAMILIES:
        raise ValueError(f"paired_comparison: family must be one of {list(FAMILIES)} (got {family!r})")


#: the four questions' short names, for a family's label
QUESTION_WORDS = {"asking": "does it ask when it should", "question_quality": "are its questions good",
                  "payoff": "does asking pay off"}


def family_of(out: pd.DataFrame, family: str = "question") -> np.ndarray:
    """Each comparison row's family (``family``: :data:`FAMILIES`), as its label: "hil-bench · are its questions
    good" (per benchmark and question), "hil-bench · ask_f1" (per benchmark and metric), "hil-bench", or "the
    whole table". The p-values are adjusted within a family, so that a benchmark's verdict on a question does not
    change with the other benchmarks or questions a log holds."""
    _check_family(family)
    n = len(out)
    if family == "all":
        return np.full(n, "the whole table", dtype=object)
    bench = out["benchmark"].astype(str).to_numpy(dtype=object)
    if family == "benchmark":
        return bench
    metric = out["metric"].astype(str).to_numpy(dtype=object)
    part = metric if family == "metric" else \
        np.array([QUESTION_WORDS.get(QUESTION_OF.get(m, ""), m) for m in metric], dtype=object)
    return np.array([f"{b} · {p}" for b, p in zip(bench, part)], dtype=object)


def smallest_p(test: str, n_differing: int, alternative: str, n_tasks: int) -> float:
    """The smallest p-value ``test`` could give with ``n_differing`` tasks (or discordant pairs) whose sides differ,
    whatever those tasks' outcomes: exact McNemar 2 · 0.5^d two-sided, its mid-p form 0.5^d; a sign-flip
    permutation test or Wilcoxon's exact test 2 / 2^d (the other tasks' flips leave the statistic where it is),
    and from random flips never below 2 / (flips + 1) with as many flips as one test may draw (:data:`FLIP_BUDGET`).
    One-sided, half of each. NaN where nothing differs (no test)."""
    if not n_differing or n_differing <= 0:
        return float("nan")
    d = int(n_differing)
    two = alternative == "two-sided"
    if test.startswith("exact McNemar"):
        p = 2.0 ** (1 - d) if two else 2.0 ** -d
    elif test.startswith("mid-p McNemar"):
        p = 2.0 ** -d if two else 2.0 ** (-d - 1)
    else:
        p = 2.0 ** (1 - d) if two else 2.0 ** -d
        if test.startswith("paired permutation") and "exact" not in test:
            flips = max(FIRST_FLIPS, FLIP_BUDGET // max(n_tasks, 1))
            p = max(p, (2.0 if two else 1.0) / (flips + 1))
    return float(min(1.0, p))


# complexity over 15 (noqa: C901 below): each way a row's test and interval can end
def settle(out: pd.DataFrame, retests: list, alpha: float = 0.05, correction: str = "holm",  # noqa: C901
           family: str = "question") -> list[str]:
    """Finish comparison rows, their p-values adjusted within each family (``family``, :func:`family_of`: by
    default each benchmark's rows of one of the four questions): draw more random flips where a row's p-value may
    be significant (:func:`flips_for`, for its family's size), adjust within each family by ``correction``
    (:data:`CORRECTIONS`: ``p_holm`` or ``p_fdr_bh``), give each row the smallest p its test could reach
    (``p_smallest``) and that adjusted as the best case of its family (``p_smallest_adjusted``: at or above the
    level, the row cannot be significant, whatever the outcomes), set the interval beside the test
    (``ci_vs_test``) and say why each empty cell is empty. Changes ``out`` in place (adding ``family`` and
    ``family_size``); returns the notes, which name the families and a correction other than Holm."""
    _check_correction(correction)
    adjusted, (name, meaning) = f"p_{correction}", CORRECTIONS[correction]
    notes: list[str] = []
    families = family_of(out, family) if len(out) else np.empty(0, dtype=object)
    tested = out["p_value"].notna().to_numpy() if len(out) else np.empty(0, bool)
    size = pd.Series(tested).groupby(families).transform("sum").to_numpy(int) if len(out) else np.empty(0, int)
    capped: list[tuple[int, int]] = []
    for i, again in enumerate(retests):
        if again is None:
            continue
        retest, flips, n = again
        p, se = out["p_value"].iat[i], out["p_mc_se"].iat[i]
        if not np.isfinite(p) or p > alpha + 3 * (se if np.isfinite(se) else 0):
            continue
        need = flips_for(int(size[i]), alpha, p)
        allowed = max(FIRST_FLIPS, FLIP_BUDGET // max(n, 1))
        if allowed < need:
            capped.append((n, allowed))
        if min(need, allowed) > flips:
            result = retest(min(need, allowed))
            out.iloc[i, [out.columns.get_loc(c) for c in ("test", "p_value", "p_mc_se")]] = \
                [result.test, result.p_value, result.mc_se]
    p_values = out["p_value"].to_numpy(dtype=float)
    smallest = np.array([smallest_p(str(t), d, str(alt), int(n)) if np.isfinite(p) else np.nan
                         for t, d, alt, n, p in zip(out["test"], out["n_differing"], out["alternative"],
                                                    out["n_pairs"], p_values)], dtype=float)
    adj, best = np.full(len(out), np.nan), np.full(len(out), np.nan)
    for label in dict.fromkeys(families):
        rows = families == label
        adj[rows] = _adjusted(p_values[rows], correction)
        best[rows] = _adjusted(smallest[rows], correction)
    at = out.columns.get_loc("p_mc_se") + 1
    out.insert(at, adjusted, adj)
    out.insert(at + 1, "family", families)
    out.insert(at + 2, "family_size", size)
    out.insert(at + 3, "p_smallest", smallest)
    out.insert(at + 4, "p_smallest_adjusted", best)
    out.insert(out.columns.get_loc("p_smallest_adjusted") + 1, "ci_vs_test", _ci_vs_test(out, alpha))
    if len(out):
        sizes = pd.Series(size, index=families).groupby(level=0, sort=False).first()
        listed = "; ".join(f"{label} ({n})" for label, n in sizes.items())
        notes.append(f"{adjusted}: {name} within each family of rows"
                     f" ({'every row' if family == 'all' else 'per ' + _FAMILY_WORDS[family]}), its size the rows"
                     f" with a p-value: {listed}" + ("" if correction == "holm" else f"; {meaning}"))
        cannot = tested & (best >= alpha)
        if cannot.any():
            notes.append(f"{int(cannot.sum())} comparison(s) cannot reach {adjusted} < {alpha:g} whatever their"
                         " tasks' outcomes: the smallest p their test can give with the tasks that differ"
                         " (p_smallest), adjusted as the best case of their family (p_smallest_adjusted), is not"
                         " below it; more tasks would tell")
    if capped:
        n, flips = max(capped)
        notes.append(f"{len(capped)} test(s) over as many as {n:,} tasks drew {flips:,} random sign flips (the most"
                     f" one test draws in its time): the smallest two-sided p they can give is {2 / (flips + 1):.1g}"
                     " (p_smallest)")
    random_ = out["p_mc_se"].notna().to_numpy()
    near = random_ & (np.abs(out["p_value"].to_numpy(float) - alpha) <= 2 * out["p_mc_se"].to_numpy(float))
    if near.any():
        notes.append(f"{int(near.sum())} p-value(s) from random flips lie within two Monte-Carlo standard errors"
                     f" (p_mc_se) of {alpha:g}: which side of it they fall on is not settled")
    few = out[(out["n_differing"] < FEW_DIFFERING) & ~(best >= alpha)]
    if len(few):
        notes.append(f"{len(few)} of {len(out)} comparison(s) rest on fewer than {FEW_DIFFERING} tasks whose sides"
                     f" differ (as few as {int(few['n_differing'].min())}): their tests have little power, and a"
                     " p-value above 0.05 there is no evidence that the sides are alike")
    small = out[out["ci_method"].astype(str).str.startswith("task bootstrap") & (out["n_pairs"] < FEW_FOR_BOOTSTRAP)]
    if len(small):
        notes.append(f"{len(small)} interval(s) are a percentile task bootstrap over fewer than {FEW_FOR_BOOTSTRAP}"
                     f" tasks (as few as {int(small['n_pairs'].min())}): there it covers less than its level"
                     " (docs/metrics.md, 'How well the intervals cover'); the test is the firmer guide")
    warned = _coverage_warnings(out)
    if warned:
        notes.append("; ".join(warned))
    if len(out) and (out["family_size"] > 1).any():
        notes.append(f"each interval is unadjusted ({100 * (1 - alpha):g}% for its row alone); a verdict rests on"
                     f" {adjusted} within its family, and each row's own interval as well")
    left = int(out["n_tasks_left_out"].sum()) if len(out) else 0
    if left:
        notes.append(f"{left} task(s) both sides ran were left out of {int((out['n_tasks_left_out'] > 0).sum())}"
                     " comparison(s) (n_tasks_left_out): a side's runs there all errored or had no score")
    explain_empty(out, {c: "no task's sides differ (n_differing 0): nothing to test or rank; the difference is 0"
                        for c in ("statistic", "p_value", adjusted, "rbc", "p_smallest", "p_smallest_adjusted")})
    explain_empty(out, {"p_mc_se": "an exact test (every flip pattern, or McNemar's or Wilcoxon's exact p): no"
                                   " Monte-Carlo error",
                        "ci_vs_test": f"the interval and the test decide alike at the {alpha:g} level (it excludes 0"
                                      " where p is below it), or a one-sided test or a missing value leaves nothing"
                                      " to set side by side",
                        "rerun_sd": "the rerun spread is for mean_score, from tasks each side ran at least twice:"
                                    " run each task two or more times",
                        "difference_ci_low": NO_INTERVAL, "difference_ci_high": NO_INTERVAL})
    return notes


#: each metric's difference as :mod:`ambiglib.interval_coverage` names its measured interval
_DIFFERENCE_COVERAGE = {"mean_score": "difference of mean score (with the tool)", "ask_rate": "difference of ask rate",
                        "score_gain_pp": "difference of gain from asking (pp)", "ask_f1": "difference of Ask-F1",
                        "calib_score": "difference of CalibScore",
                        "gain_per_question": "difference of gain ÷ questions per run (pp)"}


def _coverage_warnings(out: pd.DataFrame) -> list[str]:
    """Where a row's t-interval (or its linearized form) covered less than 95% at its design in simulation
    (:mod:`ambiglib.interval_coverage`), or its design is below the smallest measured: one note per metric."""
    from .interval_coverage import warning

    said: dict[str, str] = {}
    if len(out) == 0:
        return []
    t_rows = ~out["ci_method"].astype(str).str.startswith("task bootstrap")
    for r in out[t_rows].itertuples(index=False):
        name = _DIFFERENCE_COVERAGE.get(str(r.metric))
        if name is None or name in said:
            continue
        text = warning(name, float(r.n_pairs), 1.0 if str(r.test).startswith(("mid-p McNemar", "exact McNemar")) else
                       3.0, str(r.benchmark))
        if text:
            said[name] = text
    return list(said.values())


def _ci_vs_test(out: pd.DataFrame, alpha: float) -> list:
    """Per row: where the interval and the test decide differently at level ``alpha``, which and why (else None)."""
    texts: list = []
    for r in out.itertuples(index=False):
        p, low, high = r.p_value, r.difference_ci_low, r.difference_ci_high
        if r.alternative != "two-sided" or not (np.isfinite(p) and np.isfinite(low) and np.isfinite(high)):
            texts.append(None)
            continue
        excludes, rejects = low > 0 or high < 0, p < alpha
        if excludes == rejects:
            texts.append(None)
            continue
        if str(r.test).startswith("exact McNemar"):
            why = f"exact McNemar is conservative with {r.n_differing} discordant tasks (test='mcnemar-midp' less so)"
        elif str(r.ci_method).startswith("task bootstrap") and r.n_pairs < FEW_FOR_BOOTSTRAP:
            why = f"a percentile bootstrap is too narrow at {r.n_pairs} tasks"
        elif str(r.ci_method).startswith("t-interval"):
            why = "the t-interval leans on near-normal per-task differences, the test does not"
        else:
            why = "the two approximate the same question differently"
        head = (f"the interval excludes 0 but the test does not reject (p = {p:.3g})" if excludes else
                f"the test rejects (p = {p:.3g}) but the interval includes 0")
        texts.append(f"{head}: {why}; neither alone is a verdict")
    return texts


@as_table
def model_comparison(rs: RunSet, *, condition: tuple[str, bool] = ("ambiguous", True), n_boot: int = 10_000,
                     seed: int = 0, metric: str = "mean_score", conventions: ConventionsArg = None,
                     correction: str = "holm") -> pd.DataFrame:
    """Compare every pair of models on the tasks both ran: paired differences, CIs, tests, adjusted p (Holm's, or
    Benjamini–Hochberg's with ``correction="fdr_bh"``).

    Per benchmark, suite and ask policy (two policies of one model are never pooled: each is
    compared with the other models' runs under the same policy), each task's score is the
    mean of its non-error solve runs in ``condition`` (invalid and timeout at 0); the
    difference is model_a − model_b over the shared tasks. Any other metric of
    :func:`paired_comparison` with ``metric=``.

    Returns
    -------
    pandas.DataFrame
        :func:`paired_comparison` with ``between="model"``.
    """
    return paired_comparison(rs, metric=metric, between="model", condition=condition if metric in CONDITIONED
                             else ("ambiguous", True), n_boot=n_boot, seed=seed, conventions=conventions,
                             correction=correction)


def count_pairs(rs: RunSet, *, metric: str = "mean_score", between: str = "model",
                condition: tuple[str, bool] | None = ("ambiguous", True)) -> tuple[int, int, str]:
    """How many pairs :func:`paired_comparison` without ``a`` and ``b`` would compare at most, before it computes
    any: ``(pairs, sides, where)``, ``sides`` the most sides of one comparison group (a benchmark, suite and the
    fixed columns) and ``where`` that group in words. Counted from the runs in the metric's scope (not errors); a
    pair that shares no task gives no row, so the table may have fewer."""
    runs = rs.runs[(rs.runs["status"] != "error").to_numpy(dtype=bool, na_value=True)]
    spec, tool = runs["spec"].astype(object).to_numpy(), runs["ask_tool"].to_numpy(dtype=bool, na_value=False)
    if between == "ask_tool":  # one pair a with-tool policy: it has no more than that
        keep = spec == "ambiguous"
    elif metric in CONDITIONED and condition is not None:
        keep = (spec == condition[0]) & (tool == condition[1])
    elif metric == "calib_score":
        keep = tool
    else:
        keep = (spec == "ambiguous") & tool
    groups = ["benchmark", "suite", *[c for c in _fixed(rs, between) if c != "policy" or between != "ask_tool"]]
    side = "policy" if between == "ask_tool" else between
    n = runs[keep][[*groups, side]].astype(str).drop_duplicates().groupby(groups, sort=True).size()
    if len(n) == 0:
        return 0, 0, "no runs"
    if between == "ask_tool":
        return int(n.sum()), 2, " ".join(n.idxmax())
    return int((n * (n - 1) // 2).sum()), int(n.max()), " ".join(n.idxmax())


def _scopes(rs: RunSet, metric: str, between: str, condition):
    """The runs each comparison draws from: (label, runs)."""
    if between == "ask_tool":
        amb = rs.filter(spec="ambiguous", protocol="solve")
        yield from _per_tool_policy(amb)
        return
    if metric in CONDITIONED and condition is not None:
        spec, tool = condition
        rs = rs.filter(spec=spec, ask_tool=tool)
    yield None, rs


def _fixed(rs: RunSet, between: str) -> list[str]:
    """The columns a comparison ``between`` holds fixed: :data:`_FIXED`, and ``log`` too in a run set of several
    logs (two models are compared within each log, never pooled across them). A run set where some runs name a
    log and others do not is an ArgumentError: which log the others belong to cannot be told."""
    fixed = list(_FIXED[between])
    named = rs.runs["log"].notna().to_numpy(dtype=bool) if "log" in rs.runs else np.zeros(0, bool)
    if named.any() and not named.all():
        raise ArgumentError(f"paired_comparison: {int((~named).sum()):,} runs name no log and {int(named.sum()):,}"
                            f" do (logs {', '.join(map(repr, _side_order(rs, 'log') or []))}): which log the others belong"
                            f" to cannot be told; load every log by label (ambiglib.load({{label: path, ...}}))")
    if between == "log" and _one_model_a_log(rs) is not None:  # a new version of one agent: its logs are paired
        fixed.remove("model")
    return fixed + ["log"] if named.any() and between != "log" else fixed


def _one_model_a_log(rs: RunSet) -> str | None:
    """Where each log holds one model and no two logs the same (the same agent as ``mockllm/v1`` before and
    ``mockllm/v2`` after), the logs' models in words ("before: mockllm/v1; after: mockllm/v2"): a comparison of
    the logs pairs them as one agent's versions rather than finding no model in two logs. Else None."""
    if "log" not in rs.runs or not rs.runs["log"].notna().all():
        return None
    runs = _log_models(rs)
    if runs["log"].nunique() < 2 or runs["log"].duplicated().any() or runs["model"].duplicated().any():
        return None
    return "; ".join(f"{log}: {model}" for log, model in zip(runs["log"], runs["model"]))


def _log_models(rs: RunSet) -> pd.DataFrame:
    """Each (log, model) pair of the runs once, as text: kept with the run set (a comparison of logs reads it for
    each pair, and its refusal again)."""
    return rs.memo(("log-models",), lambda: rs.runs[["log", "model"]].astype(str).drop_duplicates())


def _side_order(rs: RunSet, between: str) -> list | None:
    """The logs in the order they were loaded (each one's first run), for ``between="log"``; else None."""
    if between != "log" or "log" not in rs.runs:
        return None
    return list(dict.fromkeys(rs.runs["log"].dropna().astype(object)))


def _ordered_pairs(values: list, wanted: tuple, between: str, order: list | None = None) -> list[tuple]:
    """The pairs (a, b) to compare: ``wanted`` alone when given; else every two sides, sorted (with the tool
    first); logs (``order``, as loaded) each later one as a against each earlier one, so that a − b is
    after − before."""
    if wanted[0] is not None:
        a, b = wanted
        return [(a, b)] if a in values and b in values else []
    if order is not None:
        sides = [v for v in order if v in values]
        return [(later, earlier) for i, earlier in enumerate(sides) for later in sides[i + 1:]]
    sides = sorted(values, key=lambda v: (not v) if between == "ask_tool" else str(v))
    return list(combinations(sides, 2))


def _pairs(block: pd.DataFrame, ran: pd.DataFrame | None, values: pd.DataFrame | None, between: str, sums: _Sums,
           wanted: tuple, n_boot: int, seed: int, confidence: float, alternative: Alternative, test: str, fixed: dict,
           metric: str, where: str, why: list[str | tuple[str, str]], order: list | None = None,
           interval: str = "t") -> tuple[list[dict], list]:
    rows, retests = [], []
    cols = sums.cols

    def stat_of(totals: np.ndarray) -> np.ndarray:
        return np.asarray(sums.stat({c: totals[..., i] for i, c in enumerate(cols)}), float)

    for a, b in _ordered_pairs(list(block[between].unique()), wanted, between, order):
        ta, tb, shared = _sides(block, between, a, b)
        ran_both = shared if ran is None else pd.Index(ran.loc[ran[between] == a, "task_id"].unique()) \
            .intersection(pd.Index(ran.loc[ran[between] == b, "task_id"].unique()))
        if len(shared) == 0:
            why.append(f"{_where(fixed)}: {a} and {b} share no task")
            continue
        ta, tb = ta.loc[shared], tb.loc[shared]
        valued = np.asarray(sums.defined(ta[cols]), bool) & np.asarray(sums.defined(tb[cols]), bool)
        if not valued.any():
            hint = ""
            if sums.trials is not None and metric == "pass_at_k":
                fewest = int(min(ta[sums.trials].min(), tb[sums.trials].min()))
                hint = f"; as few as {fewest} trial{'s' if fewest != 1 else ''}: set k to {fewest} (--k {fewest})"
            why.append((f"no {metric} on both sides of any shared task ({sums.undefined} on a side{hint})",
                        f"{_where(fixed)}: {a} vs {b}, {len(shared)} shared task(s)"))
            continue
        A, B = ta[cols].to_numpy(float)[valued], tb[cols].to_numpy(float)[valued]
        tasks = shared[valued]
        va, vb = float(stat_of(A.sum(axis=0))), float(stat_of(B.sum(axis=0)))
        x, y = stat_of(A), stat_of(B)  # per-task values
        equal_weights = all(np.ptp(t[w].to_numpy(float)[valued]) == 0 for w in sums.weights for t in (ta, tb))
        if interval == "bootstrap":
            both = bootstrap_totals(np.hstack([A, B]), n_boot, seed)  # both sides under the same draws
            diff = stat_of(both[:, :A.shape[1]]) - stat_of(both[:, A.shape[1]:])
            ends = percentile_ci(diff, confidence) if np.isfinite(diff).any() else (np.nan, np.nan)
            low, high = float(ends[0]), float(ends[1])
            method = f"task bootstrap (percentile, {n_boot:,} draws)"
        else:
            if sums.weights and equal_weights:  # the metric is the mean of its per-task values: their t-interval
                d = x - y
                ci = linearized_ci(np.c_[d, np.ones(len(d))], lambda t: t[..., 0] / t[..., 1], confidence,
                                   bounded=sums.bounded)
                method = T_OF_DIFFERENCES
            else:  # a pooled ratio: the difference of the two sides' pooled values, linearized
                def difference(t: np.ndarray, w: int = A.shape[1]) -> np.ndarray:
                    return stat_of(t[..., :w]) - stat_of(t[..., w:])

                ci = linearized_ci(np.hstack([A, B]), difference, confidence, bounded=sums.bounded)
                method = LINEARIZED
            low, high = ci.low, ci.high
            if ci.se == 0 and np.isfinite(low):  # no spread: ± the share of tasks that could differ unseen
                method += f"; every task alike: ± the Wilson bound of 0 of {len(x)} tasks differing"
        one_trial = sums.trials is not None and (ta[sums.trials].to_numpy()[valued] == 1).all() \
            and (tb[sums.trials].to_numpy()[valued] == 1).all()
        if test in ("mcnemar", "mcnemar-midp"):
            _mcnemar_applies(test, ((a, ta, x), (b, tb, y)), valued, sums.trials, f"{_where(fixed)}: {a} vs {b}")
        result = _test(A, B, x, y, stat_of, test, one_trial, alternative, seed)
        retests.append(None if not result.n_flips else
                       (lambda flips, A=A, B=B: paired_permutation(A, B, stat_of, alternative=alternative,
                                                                   n_resamples=flips, seed=seed),
                        result.n_flips, len(x)))
        if values is not None:  # the runs of the valued tasks (a join: isin over text is slow at 28,000 tasks)
            valued_tasks = pd.DataFrame({"task_id": tasks})
            side = values[between].to_numpy()
            improvement = prob_improvement(values[side == a].merge(valued_tasks, on="task_id"),
                                           values[side == b].merge(valued_tasks, on="task_id"))
        else:
            improvement = prob_improvement(pd.DataFrame({"task_id": tasks, "value": x}),
                                           pd.DataFrame({"task_id": tasks, "value": y}))
        rows.append({**fixed, f"{between}_a": a, f"{between}_b": b, "metric": metric, "condition": where,
                     "n_tasks": len(shared), "n_tasks_left_out": len(ran_both.difference(shared)),
                     "n_pairs": int(valued.sum()), "value_a": va, "value_b": vb, "difference": va - vb,
                     "difference_ci_low": float(low), "difference_ci_high": float(high), "ci_level": confidence,
                     "ci_method": method, "test": result.test, "n_differing": result.n_differing,
                     "statistic": result.statistic, "alternative": alternative, "p_value": result.p_value,
                     "p_mc_se": result.mc_se, "rbc": rank_biserial(x, y), "prob_improvement": improvement,
                     "rerun_sd": _rerun_sd(sums, ta, tb, valued)})
    return rows, retests


def _sides(block: pd.DataFrame, between: str, a, b) -> tuple[pd.DataFrame, pd.DataFrame, pd.Index]:
    """Each side's per-task sums, by task, and the tasks both sides have (sorted)."""
    ta = block[block[between] == a].set_index("task_id")
    tb = block[block[between] == b].set_index("task_id")
    return ta, tb, ta.index.intersection(tb.index).sort_values()  # index operations: no Python object per task


@as_table
def per_task(rs: RunSet, *, metric: str = "mean_score", between: str = "model",
             condition: tuple[str, bool] | None = ("ambiguous", True), a: object = None, b: object = None, k: int = 3,
             conventions: Mapping[str, str] | None = None, pool_suites: bool = False) -> pd.DataFrame:
    """Tabulate a paired comparison task by task: which tasks make the difference.

    The same pairs, blocks and per-task values as :func:`paired_comparison` (its arguments mean the same): one row
    per task valued on both sides, ``value_a, value_b, difference`` (a − b) and ``changed``: for pass/fail values
    (every value 0 or 1) ``a`` or ``b`` where only that side passed, else the side whose value is higher; ``=``
    for a tie. Sorted by the size of the difference, largest first, within each comparison. A metric that is a
    mean of its per-task values (``mean_score``) has the comparison's difference as the mean of ``difference``;
    a pooled ratio (Ask-F1, pass@k over unequal trials) weighs its tasks, so the mean of the rows differs from it.
    """
    if between not in _SIDES:
        raise ValueError(f"per_task: between must be one of {list(_SIDES)} (got {between!r})")
    if metric not in COMPARABLE:
        raise ValueError(f"per_task: metric must be one of {sorted(COMPARABLE)} (got {metric!r})")
    if (a is None) != (b is None):
        raise ValueError("per_task: give both a and b (or neither: every pair)")
    fixed, order = _fixed(rs, between), _side_order(rs, between)
    rows: list[pd.DataFrame] = []
    why: list = []
    for head, block, _, _, sums, _ in _groups(rs, metric, between, condition, k, conventions, pool_suites, fixed,
                                              why, []):
        for side_a, side_b in _ordered_pairs(list(block[between].unique()), (a, b), between, order):
            ta, tb, shared = _sides(block, between, side_a, side_b)
            ta, tb = ta.loc[shared], tb.loc[shared]
            valued = np.asarray(sums.defined(ta[sums.cols]), bool) & np.asarray(sums.defined(tb[sums.cols]), bool)
            if not valued.any():
                continue
            x = np.asarray(sums.stat({c: ta[c].to_numpy(float)[valued] for c in sums.cols}), float)
            y = np.asarray(sums.stat({c: tb[c].to_numpy(float)[valued] for c in sums.cols}), float)
            binary = np.isin(np.concatenate([x, y]), (0.0, 1.0)).all()
            changed = np.where(x > y, "a", np.where(x < y, "b", "="))
            frame = pd.DataFrame({**head, f"{between}_a": side_a, f"{between}_b": side_b, "task_id": shared[valued],
                                  "value_a": x, "value_b": y, "difference": x - y, "changed": changed,
                                  "pass_fail": binary})
            rank = np.argsort(-np.abs(frame["difference"].to_numpy()), kind="stable")
            rows.append(frame.iloc[rank])
    columns = ["benchmark", "suite", *fixed, f"{between}_a", f"{between}_b", "task_id", "value_a", "value_b",
               "difference", "changed", "pass_fail"]
    out = pd.concat(rows, ignore_index=True)[columns] if rows else pd.DataFrame(columns=columns)
    notes = _collapsed(why)
    if len(out) == 0 and not notes:
        notes.append(_nothing_to_compare(rs, between))
    if notes:
        out.attrs["note"] = "; ".join(notes)
    return out


def _rerun_sd(sums: _Sums, ta: pd.DataFrame, tb: pd.DataFrame, valued: np.ndarray) -> float:
    """How far the difference would move if both sides were run again on these tasks with as many trials: the
    standard deviation of the change, √(2 (Σ s²_a,i / K_a,i + Σ s²_b,i / K_b,i)) / n, s² a task's variance over its
    trials (Miller 2024, §3); as :func:`ambiglib.metrics.rerun_sd` is for one agent's pass rate. Null unless every
    task has two trials or more on each side."""
    if sums.spread is None:
        return float("nan")
    n = int(valued.sum())
    total = 0.0
    for t in (ta, tb):
        var = t[sums.spread].to_numpy(float)[valued]
        trials = t[sums.trials].to_numpy(float)[valued]
        if not np.isfinite(var).all() or (trials < 2).any():
            return float("nan")
        total += float((var / trials).sum())
    return float(np.sqrt(2 * total) / n)


def _mcnemar_applies(test: str, sides: tuple, valued: np.ndarray, trials: str | None, pair: str) -> None:
    """Raise ArgumentError naming the pair and its first task that is not one pass/fail trial a side, which
    McNemar's test needs; return when every valued task is. ``sides``: (name, per-task sums, values) of a and b."""
    for side, t, values in sides:
        n = t[trials].to_numpy()[valued] if trials is not None else np.full(len(values), 2)
        many = np.flatnonzero(n != 1)
        if len(many):
            i = many[0]
            what = (f"{int(n[i])} trials on task {t.index[valued][i]} for {side} ({len(many)} of {len(values)}"
                    " tasks have more than one)" if trials is not None else
                    "a metric pooled over each task's runs and questions, not one pass/fail outcome")
            raise ArgumentError(f"paired_comparison: test={test!r} needs one pass/fail trial per task and side, and"
                                f" {pair} has {what}: use test='permutation' (or 'auto', which picks it)")
        odd = np.flatnonzero(~np.isin(values, (0, 1)))
        if len(odd):
            i = odd[0]
            raise ArgumentError(f"paired_comparison: test={test!r} needs one pass/fail trial per task and side, and"
                                f" {pair} has {values[i]:g} on task {t.index[valued][i]} for {side}, not 0 or 1"
                                f" ({len(odd)} of {len(values)} tasks): use test='permutation' (or 'auto', which"
                                " picks it)")


def _test(A: np.ndarray, B: np.ndarray, x: np.ndarray, y: np.ndarray, stat_of: Callable, test: str,
          one_trial: bool, alternative: Alternative, seed: int) -> PairedTest:
    binary = one_trial and np.isin(x, (0, 1)).all() and np.isin(y, (0, 1)).all()
    if test in ("mcnemar", "mcnemar-midp") or (test == "auto" and binary):
        if not binary:  # (_mcnemar_applies has named the pair and the task)
            raise ArgumentError(f"paired_comparison: test={test!r} needs one pass/fail trial per task and side"
                                " (use test='permutation')")
        # auto: the mid-p form, which holds its level far more closely than the exact test with few discordant
        # tasks (Fagerland et al. 2013; bench/coverage.py)
        return (mcnemar_exact if test == "mcnemar" else mcnemar_midp)(x, y, alternative=alternative)
    if test == "wilcoxon":
        d = x - y
        n = int(np.count_nonzero(d))
        name = "Wilcoxon signed-rank (zero_method='wilcox')"
        if n == 0:
            return PairedTest(name, float("nan"), float("nan"), 0)
        res = sps.wilcoxon(x, y, alternative=alternative, zero_method="wilcox")
        return PairedTest(name, float(res.statistic), float(res.pvalue), n)
    return paired_permutation(A, B, stat_of, alternative=alternative, n_resamples=FIRST_FLIPS, seed=seed)


def _collapsed(why: list[str | tuple[str, str]]) -> list[str]:
    """The reasons pairs were not compared, one note per reason: a reason shared by many pairs (every pair of
    four models under four policies) is said once, with how many pairs and the first of them."""
    notes: list[str] = []
    pairs: dict[str, list[str]] = {}
    for w in why:
        if isinstance(w, str):
            notes.append(w)
        else:
            pairs.setdefault(w[0], []).append(w[1])
    for reason, which in pairs.items():
        notes.append(f"{which[0]}: {reason}" if len(which) == 1 else
                     f"{len(which)} pairs: {reason} (first: {which[0]}; last: {which[-1]})")
    return notes


def _where(fixed: dict) -> str:
    return " ".join(str(v) for v in fixed.values())


def _lacks(rs: RunSet, metric: str, between: str, condition) -> str | None:
    """What one benchmark's runs lack for the comparison, and what to add (None when they have it)."""
    from .shapes import SHAPES, applicable

    if between == "ask_tool" or metric in _VOI:
        if not applicable(rs, SHAPES["tool_pairs"]):
            return (f"{metric} compares runs with and without the ask tool on the same ambiguous tasks, and this log"
                    " has no runs without the tool on the ambiguous tasks that have runs with it: add them (a"
                    " no-tool condition)")
    elif metric == "ask_rate":
        ok = rs.runs[(rs.runs["status"] != "error").to_numpy(dtype=bool, na_value=True)
                     & rs.runs["ask_tool"].to_numpy(dtype=bool, na_value=False)]
        if condition is not None:
            ok = ok[(ok["spec"] == condition[0]).to_numpy(dtype=bool, na_value=False)]
        if len(ok) == 0:
            return (f"ask_rate needs runs with the ask tool on {describe_condition(metric, between, condition)}: add"
                    " that condition (or choose the other with --condition full+tool or ambiguous+tool)")
    elif metric in CONDITIONED and condition is not None:
        spec, tool = condition
        ok = rs.runs[rs.runs["status"] != "error"]
        here = ok[(ok["spec"] == spec) & (ok["ask_tool"] == tool) & (ok["protocol"] == "solve")]
        if len(here) == 0:
            present = sorted({describe_condition(metric, "model", (s, bool(t)))
                              for s, t in zip(ok["spec"], ok["ask_tool"])})
            return (f"no solve runs on {describe_condition(metric, between, condition)} in this log (it has: "
                    f"{'; '.join(present) or 'none'}); choose one with --condition")
    elif metric == "judge_score" and not (rs.labels["q_index"].notna().any() if len(rs.labels) else False):
        return ("judge_score needs the judges' scores of single questions: add labels with 'q_index' (a judge's"
                " score of one question, docs/runlog.md)")
    elif metric == "calib_score" and not applicable(rs, SHAPES["calibration"]):
        return f"calib_score needs {SHAPES['calibration'].needs}: {SHAPES['calibration'].fix}"
    elif metric in ("ask_f1", "precision", "recall") and not applicable(rs, SHAPES["blockers_and_tool"]):
        return f"{metric} needs {SHAPES['blockers_and_tool'].needs}: {SHAPES['blockers_and_tool'].fix}"
    return None


def _nothing_to_compare(rs: RunSet, between: str) -> str:
    """Why a comparison has no row when no benchmark said why: too few sides."""
    if len(rs.runs) == 0:
        return "the run log has no runs"
    if between == "log" and rs.runs["log"].isna().all():
        return ("its runs name no log: between='log' compares logs loaded together, ambiglib.load({'before': PATH,"
                " 'after': PATH}) (ambiglib compare --runs before=PATH --runs after=PATH --between log)")
    if between == "log":  # each log's agents: two logs of different models share no agent to pair
        runs = _log_models(rs)
        models = runs.groupby("log", sort=False)["model"].agg(lambda m: ", ".join(sorted(m)))
        per_log = runs.groupby("model")["log"].nunique()
        if len(models) > 1 and (per_log < 2).all():
            return (f"the logs share no model ({'; '.join(f'{log}: {m}' for log, m in models.items())}):"
                    " between='log' pairs one model's runs across the logs, task by task")
    values = sorted(map(str, set(rs.runs[between].astype(object))))
    if len(values) < 2:
        return f"only one {between} in this log ({', '.join(values)}): a comparison needs two"
    return f"no two {between} values with runs on the same tasks in this log"
