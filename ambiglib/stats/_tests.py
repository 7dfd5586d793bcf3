"""Paired tests and their families: the one-sided Wilcoxon signed-rank test of paired scores (Ambig-DS §5.1,
Appendix C.8) with its power by simulation, and the adjustment of a family's p-values (Holm, and the others
statsmodels offers)."""

from __future__ import annotations

from typing import Literal, NamedTuple

import numpy as np

from ambiglib._lazy import OnFirstUse

#: scipy.stats, imported at the first test that needs it (``ambiglib._lazy``)
sps = OnFirstUse("scipy.stats")


class WilcoxonResult(NamedTuple):
    """Outcome of :func:`paired_wilcoxon`."""

    statistic: float
    p_value: float
    n: int  # pairs with a non-zero difference (zero_method="wilcox" drops the zeros)


def paired_wilcoxon(x, y, *, alternative: Literal["greater", "less", "two-sided"] = "greater",
                    zero_method: str = "wilcox") -> WilcoxonResult:
    """Test whether paired scores x exceed y (Wilcoxon signed-rank on x − y).

    Parameters
    ----------
    x, y : array-like
        Paired per-task scores, same length.
    alternative : {"greater", "less", "two-sided"}, default "greater"
        Ambig-DS tests one-sided Full > Ambig. and Ask > Ambig.
    zero_method : str, default "wilcox"
        As in :func:`scipy.stats.wilcoxon`; "wilcox" drops zero differences.

    Returns
    -------
    WilcoxonResult
        ``statistic``, ``p_value`` and ``n`` (non-zero differences). Both are NaN
        when there are no pairs or every difference is zero, where the Ambig-DS
        harness reports nothing.

    References
    ----------
    Ambig-DS §5.1; the harness calls ``scipy.stats.wilcoxon(a - b,
    alternative="greater", zero_method="wilcox")`` (``step_6_aggregate.py``).
    """
    d = np.asarray(x, dtype=float) - np.asarray(y, dtype=float)
    if d.ndim != 1:
        raise ValueError(f"paired_wilcoxon needs 1-D x and y (got shape {d.shape})")
    n = int(np.count_nonzero(d)) if zero_method == "wilcox" else len(d)
    if len(d) == 0 or not np.any(d):
        return WilcoxonResult(np.nan, np.nan, n)
    res = sps.wilcoxon(d, alternative=alternative, zero_method=zero_method)
    return WilcoxonResult(float(res.statistic), float(res.pvalue), n)


#: the most bootstrap replicates (n_boot) any function, notebook or command takes: 10x the 10,000 that give
#: a 95% interval's ends to about ±0.2 percentile points; more only costs time (a report, hours)


def holm(pvalues) -> np.ndarray:
    """Return Holm–Bonferroni adjusted p-values (NaNs stay NaN and are not counted).

    References
    ----------
    Holm (1979); equals ``statsmodels.stats.multitest.multipletests(method="holm")`` over the p-values that
    are not NaN (:func:`_adjusted` says why it is not called).
    """
    return _adjusted(pvalues, "holm")


def _adjusted(pvalues, method: str) -> np.ndarray:
    """p-values adjusted over their family as ``statsmodels.stats.multitest.multipletests(method=method)``
    adjusts them ("holm", "fdr_bh", ...); a NaN stays NaN and is left out of the family, where statsmodels would
    sort it in."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if np.any((p[ok] < 0) | (p[ok] > 1)):
        raise ValueError("p-values must lie in [0, 1]")
    q = p[ok]
    m = len(q)
    if m == 0:
        return out
    if method == "holm":
        # kept: statsmodels' Holm runs a full garbage collection (gc.collect) on every call, and this is the same
        # step-down arithmetic without it (tests/test_library_statistics.py checks them equal)
        order = np.argsort(q, kind="mergesort")
        result = np.empty(m)
        result[order] = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * q[order]))
        out[ok] = result
        return out
    from statsmodels.stats.multitest import multipletests

    out[ok] = multipletests(q, method=method)[1]
    return out


def wilcoxon_power(delta: float, sd: float, n_tasks, *, alpha: float = 0.05, n_sim: int = 2000,
                   seed: int = 0) -> np.ndarray:
    """Estimate the power of a one-sided paired Wilcoxon test to detect a mean difference.

    Per-task differences are drawn from a normal distribution with mean ``delta`` and
    standard deviation ``sd`` (take it from a pilot run's paired differences); power is
    the share of ``n_sim`` simulated experiments with p < ``alpha``.

    Parameters
    ----------
    delta : float
        The mean paired difference to detect (e.g. S_full − S_ambig).
    sd : float
        Standard deviation of the per-task differences.
    n_tasks : int or sequence of int
        Number of paired tasks.

    Returns
    -------
    numpy.ndarray
        Power for each ``n_tasks``.
    """
    rng = np.random.default_rng(seed)
    sizes = np.atleast_1d(n_tasks).astype(int)
    power = []
    for n in sizes:
        d = rng.normal(delta, sd, size=(n_sim, n))
        p = sps.wilcoxon(d, alternative="greater", zero_method="wilcox", axis=1).pvalue
        power.append(float(np.mean(p < alpha)))
    return np.asarray(power)



#: Public names that moved out of this module, and their new home. Each still works for at least one minor version,
#: with a DeprecationWarning naming where it went (CHANGELOG.md: the policy, and each name under "Deprecated").
