"""The interval of a difference, labelled in every row (``ci_level``, ``ci_method``), and the rerun spread beside it.

For a mean of per-task values with equal weights (mean score, pass@k, ask rate, the gains from the tool in a
balanced design), the t-interval of the per-task differences; for a pooled ratio (Ask-F1, precision, recall,
CalibScore, gain per question), the same t-interval linearized (:func:`ambiglib.stats.linearized_ci`: the
delta method over per-task sums). Both cover 0.93-0.96 from 8 tasks, where a percentile task bootstrap covered
0.88-0.92 (``bench/coverage.py``; ``interval="bootstrap"`` still gives it). Where every task's difference is the
same, a difference of values on [0, 1] is widened to the share of tasks that could differ unseen (Wilson's bound
for 0 of n), never a point. Where the interval and the test decide differently, ``ci_vs_test`` says so and why.

``rerun_sd`` (mean score): how far the difference would move if both sides were run again on these tasks with as
many trials (the standard deviation of that change, as ``metrics.rerun_sd`` is for one agent), from the spread
between a task's own trials (Miller 2024, §3). It leaves out the sampling of tasks, which the interval includes; it
shrinks as tasks are added; no verdict rests on it."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from ambiglib.comparisons._sums import _Sums
from ambiglib.stats import bootstrap_totals, percentile_ci
from ambiglib.stats._ratio_intervals import LINEARIZED, linearized_ci

#: below this many tasks a percentile bootstrap interval covers less than it says (``bench/coverage.py``)
FEW_FOR_BOOTSTRAP = 50
#: how the interval of a difference of means of per-task values is made
T_OF_DIFFERENCES = "t-interval of the per-task differences"
#: how a difference's interval can be made (``interval=``): ``t``, the t-interval of the per-task differences or,
#: for a pooled ratio, its linearized form (:func:`ambiglib.stats.linearized_ci`); ``bootstrap``, the percentile
#: task bootstrap (``n_boot`` draws), which covers less than its level below about 50 tasks
INTERVALS = ("t", "bootstrap")
#: why a difference has no interval
NO_INTERVAL = ("no interval: one task, or every task alike for a metric without bounds (no spread to make one from),"
               " or (interval='bootstrap') no bootstrap draw with a value")
#: each metric's difference as :mod:`ambiglib.stats._coverage` names its measured interval
_DIFFERENCE_COVERAGE = {"mean_score": "difference of mean score (with the tool)", "ask_rate": "difference of ask rate",
                        "score_gain_pp": "difference of gain from asking (pp)", "ask_f1": "difference of Ask-F1",
                        "calib_score": "difference of CalibScore",
                        "gain_per_question": "difference of gain ÷ questions per run (pp)"}


def _coverage_warnings(out: pd.DataFrame) -> list[str]:
    """Where a row's t-interval (or its linearized form) covered less than 95% at its design in simulation
    (:mod:`ambiglib.stats._coverage`), or its design is below the smallest measured: one note per metric."""
    from ambiglib.stats._coverage import warning

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


def _difference_ci(A: np.ndarray, B: np.ndarray, x: np.ndarray, y: np.ndarray,
                   stat_of: Callable[[np.ndarray], np.ndarray], sums: _Sums, equal_weights: bool, interval: str,
                   n_boot: int, seed: int, confidence: float) -> tuple[float, float, str]:
    """The interval of side a − side b and how it was made (``ci_method``), from the two sides' per-task sums ``A``
    and ``B`` (their per-task values ``x`` and ``y``): the percentile task bootstrap (``interval="bootstrap"``),
    else the t-interval of the per-task differences where the metric is the mean of its per-task values (its
    weights equal), or the linearized t-interval of the pooled difference; widened where every task is alike."""
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
    return low, high, method


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
