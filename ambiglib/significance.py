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
        Exactly (all 2^n flip patterns, enumerated by :func:`scipy.stats.permutation_test`) when
        2^n <= ``n_resamples``; else from ``n_resamples`` random patterns (a coin per task, ``seed``), the
        p-value counted as scipy counts it, (k + 1) / (n_resamples + 1).

    Returns ``statistic`` (the observed difference) and ``n_differing`` (the tasks whose rows differ).

    References
    ----------
    Fisher (1935); Good (2005); scipy's ``permutation_test(..., permutation_type="samples")``.
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    a2, b2 = (a[:, None], b[:, None]) if a.ndim == 1 else (a, b)
    n = len(a2)
    differing = int((a2 != b2).any(axis=1).sum())
    change, total_a, total_b = b2 - a2, a2.sum(axis=0), b2.sum(axis=0)

    def of_flips(flipped: np.ndarray) -> np.ndarray:
        # a flip of task i swaps its sides, moving b_i − a_i from one side's total to the other's: the totals of
        # every flip pattern (a row of 0/1) are one matrix product
        moved = flipped @ change
        ta, tb = total_a + moved, total_b - moved
        sa = np.asarray(statistic(ta if a.ndim > 1 else ta[..., 0]), dtype=float)
        sb = np.asarray(statistic(tb if a.ndim > 1 else tb[..., 0]), dtype=float)
        return sa - sb

    def diff(ia, ib, axis=-1):  # scipy's form: task i's sides are indices i (a) and n + i (b)
        return of_flips((np.asarray(ia) >= n).astype(float))

    observed = float(of_flips(np.zeros(n)))
    exact = 2 ** n <= n_resamples
    name = f"paired permutation ({'exact, ' if exact else ''}{2 ** n if exact else n_resamples:,} sign flips)"
    if differing == 0 or not np.isfinite(observed):
        return PairedTest(name, observed, float("nan"), differing)
    if n == 1:  # two flips, the observed and its mirror (scipy wants two or more pairs)
        p = 1.0 if alternative == "two-sided" else (0.5 if (observed > 0) == (alternative == "greater") else 1.0)
        return PairedTest(name, observed, p, differing)
    if exact:  # every flip pattern: scipy enumerates them
        res = sps.permutation_test((np.arange(n), np.arange(n, 2 * n)), diff, permutation_type="samples",
                                   vectorized=True, n_resamples=n_resamples, alternative=alternative, rng=seed)
        return PairedTest(name, observed, float(res.pvalue), differing)
    # random flip patterns, counted as scipy counts them ((k + 1) / (n_resamples + 1), ties within 100 ulps):
    # scipy draws each pattern as a permutation of 2n indices, 10x the time of a coin per task on 28,000 tasks
    rng = np.random.default_rng(seed)
    null = np.empty(n_resamples)
    batch = max(1, (1 << 22) // max(1, n))  # a batch of patterns (batch x n) stays near 32 MB
    for start in range(0, n_resamples, batch):
        stop = min(start + batch, n_resamples)
        bits = rng.integers(0, 256, size=(stop - start, (n + 7) // 8), dtype=np.uint8)  # a coin a bit
        null[start:stop] = of_flips(np.unpackbits(bits, axis=1, count=n).astype(float))
    gamma = abs(observed) * 100 * np.finfo(float).eps
    less = (np.count_nonzero(null <= observed + gamma) + 1) / (n_resamples + 1)
    greater = (np.count_nonzero(null >= observed - gamma) + 1) / (n_resamples + 1)
    p = {"less": less, "greater": greater, "two-sided": min(1.0, 2 * min(less, greater))}[alternative]
    return PairedTest(name, observed, float(p), differing)
