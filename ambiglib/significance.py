"""Paired tests fitted to the outcome: the exact McNemar test for pass/fail outcomes, and a sign-flip
permutation test for any statistic of per-task values (the Wilcoxon signed-rank test is
:func:`ambiglib.stats.paired_wilcoxon`).

References
----------
Dietterich (1998), *Approximate statistical tests for comparing supervised classification learning
algorithms*; Miller (2024), *Adding Error Bars to Evals*, arXiv 2411.00640.
"""

from __future__ import annotations

from typing import Callable, Literal, NamedTuple

import numpy as np

from .stats import sps

__all__ = ["PairedTest", "mcnemar_exact", "paired_permutation"]



class PairedTest(NamedTuple):
    """Outcome of :func:`mcnemar_exact` and :func:`paired_permutation`."""

    test: str  # the test's name, as a table row shows it
    statistic: float
    p_value: float
    n_differing: int  # discordant pairs (McNemar), or pairs whose values differ (permutation)


def mcnemar_exact(x, y, *, alternative: Literal["two-sided", "greater", "less"] = "two-sided") -> PairedTest:
    """Test paired pass/fail outcomes with the exact McNemar test.

    Only the discordant pairs count: ``b`` pairs where x passed and y failed, ``c`` the reverse;
    under the null each is x's with probability 1/2.

    ``x``, ``y``: one 0/1 outcome per task for each side; ``alternative="greater"``: x passes more often.

    Returns
    -------
    PairedTest
        Two-sided, ``statistic`` is min(b, c) and ``p_value`` that of
        ``statsmodels.stats.contingency_tables.mcnemar(table, exact=True)``; one-sided, ``statistic``
        is b and ``p_value`` the binomial test of b of b + c (``scipy.stats.binomtest``).

    References
    ----------
    McNemar (1947); Dietterich (1998), *Approximate statistical tests for comparing supervised
    classification learning algorithms*, which recommends it for one test set.
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if not (np.isin(x, (0, 1)).all() and np.isin(y, (0, 1)).all()):
        raise ValueError("mcnemar_exact needs 0/1 outcomes")
    b, c = int(((x == 1) & (y == 0)).sum()), int(((x == 0) & (y == 1)).sum())
    name = f"exact McNemar ({b} vs {c} discordant)"
    if b + c == 0:
        return PairedTest(name, float("nan"), float("nan"), 0)
    if alternative == "two-sided":
        from statsmodels.stats.contingency_tables import mcnemar

        n11, n00 = int(((x == 1) & (y == 1)).sum()), int(((x == 0) & (y == 0)).sum())
        res = mcnemar([[n11, b], [c, n00]], exact=True)
        return PairedTest(name, float(res.statistic), float(res.pvalue), b + c)
    res = sps.binomtest(b, b + c, 0.5, alternative=alternative)
    return PairedTest(name, float(b), float(res.pvalue), b + c)


def paired_permutation(a, b, statistic: Callable[[np.ndarray], np.ndarray], *,
                       alternative: Literal["two-sided", "greater", "less"] = "two-sided", n_resamples: int = 9999,
                       seed: int = 0) -> PairedTest:
    """Test a paired difference by flipping the sides of each task (a sign-flip permutation test).

    Parameters
    ----------
    a, b : array-like, (n,) or (n, m)
        Each task's values (or additive sums) on side a and side b, row i of both the same task.
    statistic : callable
        The metric of summed rows: ``statistic(totals)`` with ``totals`` of shape (..., m) gives
        (...,) values. The test statistic is ``statistic(a.sum()) - statistic(b.sum())``: for a mean
        of one value per task, the mean difference.
    alternative, n_resamples, seed
        As in :func:`scipy.stats.permutation_test`, which computes the test: exactly (all 2^n
        flips) when 2^n <= ``n_resamples``, else from ``n_resamples`` random flips.

    Returns ``statistic`` (the observed difference) and ``n_differing`` (the tasks whose rows differ).

    References
    ----------
    Fisher (1935); Good (2005); scipy's ``permutation_test(..., permutation_type="samples")``.
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    a2, b2 = (a[:, None], b[:, None]) if a.ndim == 1 else (a, b)
    n = len(a2)
    differing = int((a2 != b2).any(axis=1).sum())
    rows = np.vstack([a2, b2])

    def diff(ia, ib, axis=-1):  # task i's rows are rows[ia[i]] and rows[ib[i]]; a flip swaps the two
        ia, ib = np.asarray(ia, dtype=np.int64), np.asarray(ib, dtype=np.int64)
        ta, tb = rows[ia].sum(axis=-2), rows[ib].sum(axis=-2)
        sa = np.asarray(statistic(ta if a.ndim > 1 else ta[..., 0]), dtype=float)
        sb = np.asarray(statistic(tb if a.ndim > 1 else tb[..., 0]), dtype=float)
        return sa - sb

    observed = float(diff(np.arange(n), np.arange(n, 2 * n)))
    exact = 2 ** n <= n_resamples
    name = f"paired permutation ({'exact, ' if exact else ''}{2 ** n if exact else n_resamples:,} sign flips)"
    if differing == 0 or not np.isfinite(observed):
        return PairedTest(name, observed, float("nan"), differing)
    if n == 1:  # two flips, the observed and its mirror (scipy wants two or more pairs)
        p = 1.0 if alternative == "two-sided" else (0.5 if (observed > 0) == (alternative == "greater") else 1.0)
        return PairedTest(name, observed, p, differing)
    res = sps.permutation_test((np.arange(n), np.arange(n, 2 * n)), diff, permutation_type="samples",
                               vectorized=True, n_resamples=n_resamples, alternative=alternative, rng=seed)
    return PairedTest(name, observed, float(res.pvalue), differing)
