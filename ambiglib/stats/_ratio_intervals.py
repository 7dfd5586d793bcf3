"""The interval of a metric pooled from per-task sums (a ratio of sums: Ask-F1, a gain per question, a difference
of two agents' pooled values): the t-interval over tasks with the delta method's standard error, which holds its
level from 8 tasks where a percentile task bootstrap does not (``bench/coverage.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ambiglib.stats._intervals import _check_confidence, sps

__all__ = ["Linearized", "linearized_ci", "LINEARIZED"]


class Linearized(NamedTuple):
    """Outcome of :func:`linearized_ci`."""

    estimate: float
    low: float
    high: float
    se: float  # the standard error from the tasks' linearized values (0: no spread between tasks)
    n: int  # tasks


#: how :func:`linearized_ci`'s interval is made, in the words a table's ``ci_method`` uses
LINEARIZED = ("t-interval over tasks, linearized (the metric's delta-method standard error from per-task sums,"
              " t on tasks − 1 degrees of freedom)")


def linearized_ci(sums: npt.ArrayLike, stat: Callable[[np.ndarray], np.ndarray], confidence: float = 0.95, *,
                  bounded: float | None = None, floor: float | None = None) -> Linearized:
    """Return the t-interval over tasks of a metric pooled from per-task sums, its standard error by linearization.

    The metric is ``stat(totals)`` of the column totals of ``sums`` (one row per task: a ratio of sums such as
    Ask-F1, a gain per question, a difference of two agents' pooled values). Its standard error is that of the mean
    of the tasks' linearized values z_i = ∇g(s̄)·(s_i − s̄), g(m) = stat(n·m), the gradient by central differences:
    the delta method for a function of means, whose variance from independent tasks is cluster-robust by
    construction (a task's trials are inside its sums). The interval is the estimate ± t(n − 1) · se.

    At 8-12 tasks it covers 0.93-0.96 for a difference of Ask-F1 and a gain per question where the percentile task
    bootstrap covered 0.88-0.92 (``bench/coverage.py``): the bootstrap's spread is too narrow by about √((n − 1)/n)
    and its t is a z.

    ``bounded``: the metric's scale where it is a difference of two values on [0, 1] (1; 100 for percentage points).
    Where no task differs from another (se 0), the interval is the estimate ± ``bounded`` times the Wilson upper
    bound of 0 tasks of n seen to differ (t²/(n + t²)): the difference cannot exceed the share of tasks that
    differ, and n alike tasks do not show that none would. Without ``bounded`` it is then NaN: n tasks alike give
    no spread to make an interval from. With ``bounded`` the interval is kept within ± ``bounded``; ``floor``: the
    least value the metric can take (0 for questions per run), below which the interval does not go. "No spread" is
    a standard error below 10⁻⁷ of the estimate's size: the gradient by differences leaves noise of about 10⁻¹⁰ where
    every task gives the same value, which is no spread, not a tiny interval.

    References
    ----------
    Cochran (1977), *Sampling Techniques*, §6.4 (the ratio estimator's variance); Cameron and Miller (2015) on t
    critical values from few clusters; Miller (2024), *Adding Error Bars to Evals*, on clustering by task.
    """
    _check_confidence(confidence)
    sums = np.asarray(sums, dtype=float)
    if sums.ndim == 1:
        sums = sums[:, None]
    n = len(sums)
    if n == 0:
        return Linearized(float("nan"), float("nan"), float("nan"), float("nan"), 0)
    mean = sums.mean(axis=0)

    def g(m: np.ndarray) -> np.ndarray:
        return np.asarray(stat(m * n), dtype=float)

    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = float(g(mean))
        if n < 2 or not np.isfinite(estimate):
            return Linearized(estimate, float("nan"), float("nan"), float("nan"), n)
        steps = 1e-6 * np.maximum(np.abs(mean), 1e-3)
        shifts = np.diag(steps)
        grad = (g(mean + shifts) - g(mean - shifts)) / (2 * steps)  # every column's derivative, one call each way
    if not np.isfinite(grad).all():
        return Linearized(estimate, float("nan"), float("nan"), float("nan"), n)
    z = (sums - mean) @ grad
    se = float(z.std(ddof=1) / np.sqrt(n))
    t = float(sps.t.ppf(0.5 + confidence / 2, n - 1))
    if se <= 1e-7 * max(1.0, abs(estimate)):
        if bounded is None:
            return Linearized(estimate, float("nan"), float("nan"), 0.0, n)
        half = bounded * t * t / (n + t * t)
        return Linearized(estimate, max(-bounded, estimate - half), min(bounded, estimate + half), 0.0, n)
    low, high = estimate - t * se, estimate + t * se
    if bounded is not None:  # a difference of two values on [0, bounded] lies within ± bounded
        low, high = max(-bounded, low), min(bounded, high)
    if floor is not None:
        low = max(floor, low)
    return Linearized(estimate, low, high, se, n)
