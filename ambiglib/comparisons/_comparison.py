"""The comparison table: :func:`paired_comparison` (and :func:`model_comparison`, its models-only form), its
rows before the adjustment (:func:`compared`, which :mod:`ambiglib.ranking` adjusts with its own) and each pair's
row: values, interval, test and effect sizes."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from ambiglib.comparisons._comparable import COMPARABLE, CONDITIONED, SCORED, describe_condition
from ambiglib.comparisons._effect_sizes import prob_improvement, rank_biserial
from ambiglib.comparisons._family import _check_correction, _check_family, settle
from ambiglib.comparisons._intervals import INTERVALS, _difference_ci, _rerun_sd
from ambiglib.comparisons._pairing import (
    _SIDES,
    _collapsed,
    _fixed,
    _groups,
    _nothing_to_compare,
    _on_store,
    _one_model_a_log,
    _ordered_pairs,
    _side_order,
    _sides,
    _where,
)
from ambiglib.comparisons._sums import _ask_f1_kept, _Sums
from ambiglib.comparisons._tests import TESTS, Alternative, _mcnemar_applies, _test
from ambiglib.engines._answers import StoreView, viewed
from ambiglib.engines._store import StoreMetrics
from ambiglib.errors import ArgumentError
from ambiglib.runset import RunSet
from ambiglib.stats import check_n_boot
from ambiglib.stats._significance import paired_permutation
from ambiglib.tables._common import ConventionsArg, as_table

#: a comparison's columns after the benchmark, suite, fixed columns and the two sides
_COLUMNS = ["metric", "condition", "n_tasks", "n_tasks_left_out", "n_pairs", "value_a", "value_b", "difference",
            "difference_ci_low", "difference_ci_high", "ci_level", "ci_method", "test", "n_differing", "statistic",
            "alternative", "p_value", "p_mc_se", "rbc", "prob_improvement", "rerun_sd"]


@as_table
def paired_comparison(rs: RunSet | StoreMetrics | StoreView, *, metric: str = "mean_score", between: str = "model",
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
        Benchmark → paper whose conventions it follows (:mod:`ambiglib.tables._shapes`); sets the
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
    rs = viewed(rs)
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


def compared(rs: RunSet | StoreView, *, metric: str, between: str, condition, a, b, k: int, test: str, alternative: Alternative,
             n_boot: int, seed: int, confidence: float, conventions, pool_suites: bool, interval: str = "t",
             on_block: Callable[[dict, pd.DataFrame, _Sums, str], None] | None = None
             ) -> tuple[pd.DataFrame, list, list[str]]:
    """:func:`paired_comparison`'s rows before the adjustment, with the means to draw more flips for each row's test
    (``retests``: per row, ``(retest(flips), flips drawn, tasks)`` or None) and its notes. A caller that adjusts
    several comparisons together (:func:`ambiglib.ranking.rankings`) concatenates them and calls :func:`settle`
    once over them all. ``on_block``: called with each block's ``(head, per-task sums, sums, condition in words)``
    once its pairs are compared, for a caller that ranks the sides on the same sums (as they come: a block is let
    go before the next is made)."""
    _check_arguments(metric, between, condition, a, b, test, alternative, interval, seed)
    _on_store(rs, metric, between)
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
        if on_block is not None:  # a caller ranking the sides (ambiglib.ranking) takes each block's per-task sums too
            on_block(head, block, sums, where)
    side_a, side_b = f"{between}_a", f"{between}_b"
    out = pd.DataFrame(rows, columns=["benchmark", "suite", *fixed, side_a, side_b, *_COLUMNS])
    notes = _collapsed(why) + design
    versions = _one_model_a_log(rs) if between == "log" and isinstance(rs, RunSet) else None
    if versions and len(out):
        notes.append(f"each log holds one model ({versions}): its runs are paired across the logs as one agent's"
                     " versions")
    if metric in ("ask_f1", "precision", "recall"):
        _, refused, strays = _ask_f1_kept(rs.filter(protocol="solve"), ["benchmark", "suite", between])
        if refused:
            notes.append(f"left out: {', '.join(' '.join(k) for k in refused)} (questions not attributed to a"
                         f" blocker: no {metric})")
        for key, text in strays:
            notes.append(f"left out: {' '.join(key)} (no {metric}: its {text})")
    return out, retests, notes


def _check_arguments(metric: str, between: str, condition, a, b, test: str, alternative: str, interval: str,
                     seed: int) -> None:
    """Refuse, before any work, an argument of :func:`compared` it cannot take, naming it and what it takes."""
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
        low, high, method = _difference_ci(A, B, x, y, stat_of, sums, equal_weights, interval, n_boot, seed,
                                           confidence)
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
