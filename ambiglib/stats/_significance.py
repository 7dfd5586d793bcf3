"""Paired tests fitted to the outcome: the exact (or mid-p) McNemar test for pass/fail outcomes, and a sign-flip
permutation test for any statistic of per-task values (the Wilcoxon signed-rank test is
:func:`ambiglib.stats.paired_wilcoxon`).

References
----------
Dietterich (1998), *Approximate statistical tests for comparing supervised classification learning
algorithms*; Miller (2024), *Adding Error Bars to Evals*, arXiv 2411.00640.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, NamedTuple

import numpy as np

from ambiglib.stats._intervals import sps

__all__ = ["PairedTest", "mcnemar_exact", "mcnemar_midp", "paired_permutation", "EXACT_FLIPS"]



class PairedTest(NamedTuple):
    """Outcome of :func:`mcnemar_exact`, :func:`mcnemar_midp` and :func:`paired_permutation`."""

    test: str  # the test's name, as a table row shows it
    statistic: float
    p_value: float
    n_differing: int  # discordant pairs (McNemar), or tasks whose swap alone moves the statistic (permutation)
    n_flips: int = 0  # random sign-flip patterns drawn (0: the test is exact)
    mc_se: float = float("nan")  # the Monte-Carlo standard error of p_value (random flips only)


def _discordant(x, y) -> tuple[np.ndarray, np.ndarray, int, int]:
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if not (np.isin(x, (0, 1)).all() and np.isin(y, (0, 1)).all()):
        raise ValueError("McNemar's test needs 0/1 outcomes")
    return x, y, int(((x == 1) & (y == 0)).sum()), int(((x == 0) & (y == 1)).sum())


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
    classification learning algorithms*, which recommends it for one test set. It is conservative with few
    discordant pairs (its false-positive rate at 12-20 tasks is well below the nominal level:
    ``bench/coverage.py``); :func:`mcnemar_midp` is the usual remedy.
    """
    x, y, b, c = _discordant(x, y)
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


def mcnemar_midp(x, y, *, alternative: Literal["two-sided", "greater", "less"] = "two-sided") -> PairedTest:
    """Test paired pass/fail outcomes with the mid-p McNemar test: the exact test's p-value less half the
    probability of the observed count, which holds its level far more closely with few discordant pairs.

    Two-sided: 2 · (P(X ≤ min(b, c)) − P(X = min(b, c)) / 2) for X ~ Binomial(b + c, 1/2), at most 1;
    one-sided (``greater``): P(X ≥ b) − P(X = b) / 2. ``statistic`` as :func:`mcnemar_exact`.

    References
    ----------
    Fagerland, Lydersen and Laake (2013), *The McNemar test for binary matched-pairs data: mid-p and asymptotic
    are better than exact conditional*, BMC Medical Research Methodology 13:91.
    """
    _, _, b, c = _discordant(x, y)
    name = f"mid-p McNemar ({b} vs {c} discordant)"
    n = b + c
    if n == 0:
        return PairedTest(name, float("nan"), float("nan"), 0)
    if alternative == "two-sided":
        low = min(b, c)
        p = 2 * (sps.binom.cdf(low, n, 0.5) - 0.5 * sps.binom.pmf(low, n, 0.5))
        return PairedTest(name, float(low), float(min(1.0, p)), n)
    count = b if alternative == "greater" else c
    p = sps.binom.sf(count - 1, n, 0.5) - 0.5 * sps.binom.pmf(count, n, 0.5)
    return PairedTest(name, float(b), float(p), n)


#: Up to this many sign-flip patterns (2^20: 20 tasks) a permutation test enumerates them all: exact, and faster
#: than scipy's own enumeration.
EXACT_FLIPS = 1 << 20


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
        Exactly (all 2^n flip patterns) when 2^n is at most :data:`EXACT_FLIPS` or ``n_resamples``, counted as
        :func:`scipy.stats.permutation_test` counts an exact null; else from ``n_resamples`` random patterns (a
        coin per task, ``seed``), the p-value counted as scipy counts it, (k + 1) / (n_resamples + 1), so that it
        is never below 1 / (n_resamples + 1) (two-sided: twice that): a caller that adjusts for many tests draws
        enough (``comparisons``).

    Returns ``statistic`` (the observed difference), ``n_differing`` (the tasks whose swap alone moves the
    statistic: the tasks whose metric inputs differ, not any column), ``n_flips`` (random patterns drawn; 0 when
    exact) and ``mc_se`` (the Monte-Carlo standard error of the p-value).

    References
    ----------
    Fisher (1935); Good (2005); scipy's ``permutation_test(..., permutation_type="samples")``.
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    a2, b2 = (a[:, None], b[:, None]) if a.ndim == 1 else (a, b)
    n = len(a2)
    change, total_a, total_b = b2 - a2, a2.sum(axis=0), b2.sum(axis=0)

    def of_moved(moved: np.ndarray) -> np.ndarray:
        # a flip of task i swaps its sides, moving b_i − a_i from one side's total to the other's
        ta, tb = total_a + moved, total_b - moved
        sa = np.asarray(statistic(ta if a.ndim > 1 else ta[..., 0]), dtype=float)
        sb = np.asarray(statistic(tb if a.ndim > 1 else tb[..., 0]), dtype=float)
        return sa - sb

    def of_flips(flipped: np.ndarray) -> np.ndarray:  # the totals of every flip pattern (a row of 0/1): one product
        return of_moved(flipped @ change)

    observed = float(of_moved(np.zeros(change.shape[1])))
    gamma = abs(observed) * 100 * np.finfo(float).eps  # ties within 100 ulps, as scipy counts them
    alone = of_moved(change) if n else np.empty(0)  # each task swapped alone
    differing = int(np.count_nonzero(~(np.abs(alone - observed) <= gamma))) if np.isfinite(observed) else \
        int((a2 != b2).any(axis=1).sum())
    exact = n <= 62 and 2 ** n <= max(EXACT_FLIPS, n_resamples)
    name = f"paired permutation ({'exact, ' if exact else ''}{2 ** n if exact else n_resamples:,} sign flips)"
    if differing == 0 or not np.isfinite(observed):
        return PairedTest(name, observed, float("nan"), differing, 0 if exact else n_resamples)
    if exact:
        null = np.empty(2 ** n)
        batch = max(1, (1 << 22) // max(1, n))
        shifts = np.arange(n, dtype=np.uint64)
        for start in range(0, 2 ** n, batch):
            codes = np.arange(start, min(start + batch, 2 ** n), dtype=np.uint64)
            null[start:start + len(codes)] = of_flips(((codes[:, None] >> shifts) & np.uint64(1)).astype(float))
        less = np.count_nonzero(null <= observed + gamma) / len(null)
        greater = np.count_nonzero(null >= observed - gamma) / len(null)
        p = {"less": less, "greater": greater, "two-sided": min(1.0, 2 * min(less, greater))}[alternative]
        return PairedTest(name, observed, float(p), differing)
    # random flip patterns: a coin per task, much faster than scipy's permutation of 2n indices for each
    rng = np.random.default_rng(seed)
    null = np.empty(n_resamples)
    batch = max(1, (1 << 22) // max(1, n))  # a batch of patterns (batch x n) stays near 32 MB
    for start in range(0, n_resamples, batch):
        stop = min(start + batch, n_resamples)
        bits = rng.integers(0, 256, size=(stop - start, (n + 7) // 8), dtype=np.uint8)  # a coin a bit
        null[start:stop] = of_flips(np.unpackbits(bits, axis=1, count=n).astype(float))
    less = (np.count_nonzero(null <= observed + gamma) + 1) / (n_resamples + 1)
    greater = (np.count_nonzero(null >= observed - gamma) + 1) / (n_resamples + 1)
    p = {"less": less, "greater": greater, "two-sided": min(1.0, 2 * min(less, greater))}[alternative]
    one = min(less, greater) if alternative == "two-sided" else p
    se = np.sqrt(one * (1 - one) / n_resamples) * (2 if alternative == "two-sided" else 1)
    return PairedTest(name, observed, float(p), differing, n_resamples, float(se))
