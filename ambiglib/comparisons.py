"""Is agent A better than agent B? Paired comparisons of a metric between two models, two ask policies, or
with and without the tool.

Every comparison is paired by task. A metric is computed for each side over the tasks where *both*
sides have a value of it (a task where a side asked nothing has no precision; one run fewer than k
times has no pass@k): the values, the interval and the test use those tasks and no others, and
``n_pairs`` counts them. The difference is side a − side b, in the order the sides are given.

* **Interval**, labelled in every row (``ci_level``, ``ci_method``): for a mean of per-task values with equal
  weights (mean score, pass@k, the gains from the tool in a balanced design), the t-interval of the per-task
  differences, which covers at 12 tasks where a percentile bootstrap does not (``bench/coverage.py``); for a
  pooled ratio (Ask-F1, precision, recall, CalibScore, gain per question), a percentile bootstrap that
  resamples those tasks (the same draws for both sides) and recomputes the metric as it pools.
* **Test**, fitted to the outcome (Dietterich 1998; Miller 2024, "Adding Error Bars to Evals"): the exact
  McNemar test for pass/fail outcomes with one trial per task and side (``test="mcnemar-midp"``: its mid-p
  form, Fagerland et al. 2013); otherwise a paired sign-flip permutation test of the same difference the
  interval is about (each task's sides swapped), exact up to 20 tasks, else from random flips, as many as the
  table's size needs for the adjustment to reach 0.05 (:func:`flips_for`), its Monte-Carlo error in ``p_mc_se``.
  ``test="wilcoxon"`` gives the Wilcoxon signed-rank test on the per-task values, as Ambig-DS reports. Each
  row names its test; ``n_differing`` counts the tasks whose swap moves the statistic (the metric's own
  inputs differ), and below 10 the note says the test has little power. Where the interval and the test
  decide differently, ``ci_vs_test`` says so and why.
* The p-values are adjusted over every row of the output: by Holm (``p_holm``, the default), which bounds the
  chance of any false difference in the table (the family-wise error rate), or by Benjamini–Hochberg
  (``correction="fdr_bh"``, ``p_fdr_bh``), which bounds the expected share of false differences among those it
  finds (the false discovery rate), and the note says so. Effect sizes on the per-task values: the matched-pairs
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

from dataclasses import dataclass, field
from itertools import combinations
from typing import Callable, Literal, Mapping

import numpy as np
import pandas as pd

from .metrics._common import CONDITIONS, _ratio, _single_condition, _work
from .errors import ArgumentError
from .metrics.asking import _ask_f1_parts, _calibration_parts, _per_unit_pass, _without_stray, _without_unattributed
from .metrics.information import VOI_BASE_COLUMNS, VOI_VARIANT_COLUMNS, _voi_parts, _voi_task_sums, per_run_question
from .runset import RunSet
from .shapes import Conventions, conventions_for
from .significance import PairedTest, mcnemar_exact, mcnemar_midp, paired_permutation
from .stats import _adjusted, bootstrap_totals, check_n_boot, percentile_ci, sps, t_interval
from .tables._common import ConventionsArg, _per_tool_policy, as_table, explain_empty

__all__ = ["paired_comparison", "model_comparison", "COMPARABLE", "TESTS", "CORRECTIONS", "rank_biserial",
           "prob_improvement", "describe_condition", "flips_for", "count_pairs", "per_task"]

#: the metrics paired_comparison compares: name → what it is
COMPARABLE: dict[str, str] = {
    "mean_score": "mean score per task (solve runs in the condition; invalid and timeout score 0)",
    "pass_at_k": "pass@k per task (the benchmark's estimator: HIL-Bench first k, else unbiased)",
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
#: the tests a comparison can use: ``auto`` picks exact McNemar or the permutation test by the outcome
TESTS = ("auto", "mcnemar", "mcnemar-midp", "permutation", "wilcoxon")
#: below this many tasks whose sides differ, a test has little power (the note says so)
FEW_DIFFERING = 10
#: below this many tasks a percentile bootstrap interval covers less than it says (``bench/coverage.py``)
FEW_FOR_BOOTSTRAP = 50
_VOI = {"gain_per_question": "score_gain_pp", "score_gain_pp": "score_gain_pp", "pass_gain_pp": "pass_gain_pp"}
_SIDES = ("model", "policy", "ask_tool", "log")
#: what each comparison holds fixed (one comparison per value), the agent keys other than its sides: ``log`` (logs
#: loaded together, :mod:`ambiglib.log_labels`) pairs one model and policy's runs across the logs by task
_FIXED = {"model": ["policy"], "policy": ["model"], "ask_tool": ["model", "policy"], "log": ["model", "policy"]}
#: metrics whose runs are chosen by ``condition`` (the others fix their own)
CONDITIONED = ("mean_score", "pass_at_k")
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


def _ran(work: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    return work[[*keys, "task_id"]].drop_duplicates()


def _task_sums(rs: RunSet, metric: str, keys: list[str], k: int, conv: Conventions) -> _Sums:
    if metric == "mean_score":
        scope = _work(rs)
        scope = scope[scope["protocol"] == "solve"]
        work = scope[~scope["error"]].dropna(subset=["score"])
        g = work.groupby([*keys, "task_id"], sort=True)["score"]
        per = pd.DataFrame({"score_mean": g.mean(), "n_trials": g.size(), "score_var": g.var(ddof=1)}).reset_index()
        per["n"] = 1.0
        return _Sums(per, ["score_mean", "n"], lambda t: _ratio(t["score_mean"], t["n"]), lambda t: t["n"] > 0,
                     "no scored run", "n_trials", ("n",), _ran(scope, keys),
                     work[[*keys, "task_id", "score"]].rename(columns={"score": "value"}), "score_var")
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
                     f"fewer than k = {k} trials", "n_trials", ("pk_n",), _ran(scope, keys))
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
                         "no question asked", ran=ran)
        return _Sums(per, additive, lambda t: stat(t)[metric], lambda t: t["b_recall"] > 0, "no registered blocker",
                     ran=ran)
    if metric == "calib_score":
        tool = rs.filter(protocol=conv.calibration_protocol)
        runs, additive, stat, _, _ = _calibration_parts(tool, keys)
        per = runs.groupby([*keys, "task_id"], sort=True)[additive].sum().reset_index()
        scope = _work(tool)
        # CalibScore is a harmonic mean of the two pooled rates: a task counts with a run of either spec, and the
        # pooled statistic needs runs of both (a design whose clear and ambiguous tasks differ is one such)
        sums = _Sums(per, additive, lambda t: stat(t)["calib_score"], lambda t: (t["is_amb"] + t["is_full"]) > 0,
                     "no ask-tool run", ran=_ran(scope[scope["ask_tool"]], keys))
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
        return _Sums(per, cols, stat, defined, why, weights=weights, ran=ran)
    raise ValueError(f"paired_comparison: metric must be one of {sorted(COMPARABLE)} (got {metric!r})")


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
                      correction: str = "holm") -> pd.DataFrame:
    """Compare a metric between every pair of models, of ask policies, or with and without the tool, paired by task.

    Parameters
    ----------
    rs : RunSet
    metric : str, default "mean_score"
        One of :data:`COMPARABLE`: ``mean_score``, ``pass_at_k``, ``ask_f1``, ``precision``,
        ``recall``, ``calib_score``, ``gain_per_question``, ``score_gain_pp``, ``pass_gain_pp``.
    between : {"model", "policy", "ask_tool"}, default "model"
        What differs between the two sides. ``ask_tool`` compares runs with the tool (side a)
        against runs without it (side b) on the same ambiguous tasks (``mean_score`` and
        ``pass_at_k`` only), one comparison per with-tool policy.
    condition : (spec, ask_tool) or None, default ("ambiguous", True)
        The runs ``mean_score`` and ``pass_at_k`` compare; the other metrics fix their own runs
        (the ``condition`` column says which), and giving another condition for them is an error.
    a, b : optional
        Only this pair, in this order: ``difference`` is a − b. Without them, every pair (sorted; with
        and without the tool: with first).
    k : int, default 3
    test : {"auto", "mcnemar", "mcnemar-midp", "permutation", "wilcoxon"}, default "auto"
        ``auto``: the exact McNemar test where every task's value on both sides is one pass/fail trial,
        else the paired permutation test. ``mcnemar-midp``: McNemar's mid-p form (less conservative with
        few discordant tasks). ``wilcoxon``: the Wilcoxon signed-rank test on the per-task values
        (``zero_method="wilcox"``), as Ambig-DS reports.
    alternative : {"two-sided", "greater", "less"}
        ``greater`` tests side a > side b.
    n_boot, seed, confidence
        The interval's level; a pooled ratio's task bootstrap: replicate r draws the paired tasks (sorted by
        ``task_id``) as ``np.random.default_rng(seed).integers(0, n, size=(n_boot, n))[r]``, and both sides
        are recomputed on the same draw. ``seed`` also seeds a permutation test's random flips. 1 −
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
        Monte-Carlo standard error of a p-value from random flips), ``p_holm`` (Holm over every row; with
        ``correction="fdr_bh"``, ``p_fdr_bh`` in its place, Benjamini–Hochberg, and the note says what it bounds),
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
    out, retests, notes = compared(rs, metric=metric, between=between, condition=condition, a=a, b=b, k=k,
                                   test=test, alternative=alternative, n_boot=n_boot, seed=seed,
                                   confidence=confidence, conventions=conventions, pool_suites=pool_suites)
    notes = settle(out, retests, 1 - confidence, correction) + notes
    if len(out) == 0 and not notes:
        notes.append(_nothing_to_compare(rs, between))
    if notes:
        out.attrs["note"] = "; ".join(notes)
    return out


def compared(rs: RunSet, *, metric: str, between: str, condition, a, b, k: int, test: str, alternative: Alternative,
             n_boot: int, seed: int, confidence: float, conventions, pool_suites: bool
             ) -> tuple[pd.DataFrame, list, list[str]]:
    """:func:`paired_comparison`'s rows before the adjustment, with the means to draw more flips for each row's test
    (``retests``: per row, ``(retest(flips), flips drawn, tasks)`` or None) and its notes. A caller that adjusts
    several comparisons together (:func:`ambiglib.headline.agent_comparison`) concatenates them and calls
    :func:`settle` once over the whole family."""
    if between not in _SIDES:
        raise ValueError(f"paired_comparison: between must be one of {list(_SIDES)} (got {between!r})")
    if metric not in COMPARABLE:
        raise ValueError(f"paired_comparison: metric must be one of {sorted(COMPARABLE)} (got {metric!r})")
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(f"paired_comparison: alternative must be 'two-sided', 'greater' or 'less' (got {alternative!r})")
    if test not in TESTS:
        raise ValueError(f"paired_comparison: test must be one of {list(TESTS)} (got {test!r})")
    if between == "ask_tool" and metric not in CONDITIONED:
        raise ValueError(f"paired_comparison: with and without the tool compares mean_score or pass_at_k ({metric}"
                         " already compares the two; compare it between models or policies)")
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
                            head, metric, where, why, order)
        rows += new
        retests += again
    side_a, side_b = f"{between}_a", f"{between}_b"
    out = pd.DataFrame(rows, columns=["benchmark", "suite", *fixed, side_a, side_b, *_COLUMNS])
    notes = _collapsed(why) + design
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


def settle(out: pd.DataFrame, retests: list, alpha: float = 0.05, correction: str = "holm") -> list[str]:
    """Finish comparison rows as one family: draw more random flips where a row's p-value may be significant
    (:func:`flips_for`, the family being every row of ``out``), adjust over every row by ``correction``
    (:data:`CORRECTIONS`: ``p_holm`` or ``p_fdr_bh``), set the interval beside the test (``ci_vs_test``), say
    why each empty cell is empty. Changes ``out`` in place; returns the notes, which name a correction other
    than Holm and what it bounds."""
    _check_correction(correction)
    adjusted, (name, meaning) = f"p_{correction}", CORRECTIONS[correction]
    notes: list[str] = []
    m = int(out["p_value"].notna().sum())  # the adjustment's family: the rows with a p-value
    capped: list[tuple[int, int]] = []
    for i, again in enumerate(retests):
        if again is None:
            continue
        retest, flips, n = again
        p, se = out["p_value"].iat[i], out["p_mc_se"].iat[i]
        if not np.isfinite(p) or p > alpha + 3 * (se if np.isfinite(se) else 0):
            continue
        need = flips_for(m, alpha, p)
        allowed = max(FIRST_FLIPS, FLIP_BUDGET // max(n, 1))
        if allowed < need:
            capped.append((n, allowed))
        if min(need, allowed) > flips:
            result = retest(min(need, allowed))
            out.iloc[i, [out.columns.get_loc(c) for c in ("test", "p_value", "p_mc_se")]] = \
                [result.test, result.p_value, result.mc_se]
    out.insert(out.columns.get_loc("p_mc_se") + 1, adjusted, _adjusted(out["p_value"].to_numpy(dtype=float),
                                                                         correction))
    out.insert(out.columns.get_loc(adjusted) + 1, "ci_vs_test", _ci_vs_test(out, alpha))
    if correction != "holm":  # the column's name says Holm; any other adjustment is said in words
        notes.append(f"{adjusted}: {name} over the {m} rows with a p-value: {meaning}")
    if capped:
        n, flips = max(capped)
        notes.append(f"{len(capped)} test(s) over as many as {n:,} tasks drew {flips:,} random sign flips (the most"
                     f" one test draws in its time): the smallest two-sided p they can give is {2 / (flips + 1):.1g},"
                     f" which {name} over {m} rows makes {'' if correction == 'holm' else 'at most '}"
                     f"{min(1.0, 2 * m / (flips + 1)):.2g}")
    random_ = out["p_mc_se"].notna().to_numpy()
    near = random_ & (np.abs(out["p_value"].to_numpy(float) - alpha) <= 2 * out["p_mc_se"].to_numpy(float))
    if near.any():
        notes.append(f"{int(near.sum())} p-value(s) from random flips lie within two Monte-Carlo standard errors"
                     f" (p_mc_se) of {alpha:g}: which side of it they fall on is not settled")
    few = out[out["n_differing"] < FEW_DIFFERING]
    if len(few):
        notes.append(f"{len(few)} of {len(out)} comparison(s) rest on fewer than {FEW_DIFFERING} tasks whose sides"
                     f" differ (as few as {int(few['n_differing'].min())}): their tests have little power, and a"
                     " p-value above 0.05 there is no evidence that the sides are alike")
    small = out[out["ci_method"].astype(str).str.startswith("task bootstrap") & (out["n_pairs"] < FEW_FOR_BOOTSTRAP)]
    if len(small):
        notes.append(f"{len(small)} interval(s) are a percentile task bootstrap over fewer than {FEW_FOR_BOOTSTRAP}"
                     f" tasks (as few as {int(small['n_pairs'].min())}): there it covers less than its level"
                     " (docs/metrics.md, 'How well the intervals cover'); the test is the firmer guide")
    left = int(out["n_tasks_left_out"].sum()) if len(out) else 0
    if left:
        notes.append(f"{left} task(s) both sides ran were left out of {int((out['n_tasks_left_out'] > 0).sum())}"
                     " comparison(s) (n_tasks_left_out): a side's runs there all errored or had no score")
    explain_empty(out, {c: "no task's sides differ (n_differing 0): nothing to test or rank; the difference is 0"
                        for c in ("statistic", "p_value", adjusted, "rbc")})
    explain_empty(out, {"p_mc_se": "an exact test (every flip pattern, or McNemar's or Wilcoxon's exact p): no"
                                   " Monte-Carlo error",
                        "ci_vs_test": f"the interval and the test decide alike at the {alpha:g} level (it excludes 0"
                                      " where p is below it), or a one-sided test or a missing value leaves nothing"
                                      " to set side by side",
                        "rerun_sd": "the rerun spread is for mean_score, from tasks each side ran at least twice:"
                                    " run each task two or more times",
                        "difference_ci_low": "no interval: one task, or no bootstrap draw with a value",
                        "difference_ci_high": "no interval: one task, or no bootstrap draw with a value"})
    return notes


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
    return fixed + ["log"] if named.any() and between != "log" else fixed


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
           metric: str, where: str, why: list[str | tuple[str, str]], order: list | None = None
           ) -> tuple[list[dict], list]:
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
        if sums.weights and equal_weights and len(x) >= 2:  # the metric is the mean of its per-task values
            low, high = (float(v) for v in t_interval(x - y, confidence))
            method = "t-interval of the per-task differences"
        else:
            both = bootstrap_totals(np.hstack([A, B]), n_boot, seed)  # both sides under the same draws
            diff = stat_of(both[:, :A.shape[1]]) - stat_of(both[:, A.shape[1]:])
            ends = percentile_ci(diff, confidence) if np.isfinite(diff).any() else (np.nan, np.nan)
            low, high = float(ends[0]), float(ends[1])
            method = f"task bootstrap (percentile, {n_boot:,} draws)"
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
        return (mcnemar_midp if test == "mcnemar-midp" else mcnemar_exact)(x, y, alternative=alternative)
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
    elif metric in CONDITIONED and condition is not None:
        spec, tool = condition
        ok = rs.runs[rs.runs["status"] != "error"]
        here = ok[(ok["spec"] == spec) & (ok["ask_tool"] == tool) & (ok["protocol"] == "solve")]
        if len(here) == 0:
            present = sorted({describe_condition(metric, "model", (s, bool(t)))
                              for s, t in zip(ok["spec"], ok["ask_tool"])})
            return (f"no solve runs on {describe_condition(metric, between, condition)} in this log (it has: "
                    f"{'; '.join(present) or 'none'}); choose one with --condition")
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
    values = sorted(map(str, set(rs.runs[between].astype(object))))
    if len(values) < 2:
        return f"only one {between} in this log ({', '.join(values)}): a comparison needs two"
    return f"no two {between} values with runs on the same tasks in this log"
