"""Intervals of a proportion and of a mean: Wilson's score interval (Ambig-DS Appendix C.2, Table 7), its
task-clustered form for trials that share a task, and the t interval of paired differences."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ambiglib._lazy import OnFirstUse

#: scipy.stats, imported at the first interval that needs it (``ambiglib._lazy``)
sps = OnFirstUse("scipy.stats")


def _check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1 (got {confidence!r})")


def wilson_ci(k, n, confidence: float = 0.95):
    """Return the Wilson score interval of a proportion k/n.

    Parameters
    ----------
    k, n : int or array-like
        Successes and trials (arrays are broadcast).
    confidence : float, default 0.95

    Returns
    -------
    (low, high)
        Floats, or arrays for array input; NaN where ``n == 0``.

    References
    ----------
    Ambig-DS Table 7 gives Wilson intervals (30/51 → [45.2%, 71.2%]). Computed by
    ``statsmodels.stats.proportion.proportion_confint(method="wilson")``, with its ends set to exactly 0 at
    k = 0 and 1 at k = n, where statsmodels gives them up to rounding.
    """
    _check_confidence(confidence)
    k_arr = np.asarray(k, dtype=float)
    n_arr = np.asarray(n, dtype=float)
    if np.any(k_arr < 0) or np.any(k_arr > n_arr):
        raise ValueError(f"wilson_ci needs 0 <= k <= n (got k={k!r}, n={n!r})")
    from statsmodels.stats.proportion import proportion_confint

    with np.errstate(invalid="ignore", divide="ignore"):  # n = 0: NaN, set below
        low, high = proportion_confint(k_arr, n_arr, alpha=1 - confidence, method="wilson")
    low, high = _exact_ends(k_arr, n_arr, low, high)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def _exact_ends(k: np.ndarray, n: np.ndarray, low, high) -> tuple[np.ndarray, np.ndarray]:
    """A Wilson interval's ends exactly 0 at k = 0 and 1 at k = n, where the formula gives them up to rounding;
    NaN where n = 0."""
    low = np.where(k <= 0, 0.0, low)
    high = np.where(k >= n, 1.0, high)
    return np.where(n > 0, low, np.nan), np.where(n > 0, high, np.nan)


def _wilson(k: np.ndarray, n: np.ndarray, z) -> tuple[np.ndarray, np.ndarray]:
    """The Wilson interval of k/n at critical value ``z`` (broadcast), for :func:`wilson_ci_clustered`.

    Kept beside statsmodels' ``proportion_confint``, which takes a level and uses the normal's critical value:
    the clustered interval needs t's on G − 1 degrees of freedom, one per group. Passing the level 2·Φ(−t)
    instead fails where that underflows (t on 1 degree of freedom at 99% is 63.7: a level of 0, and NaN for the
    interval); elsewhere the two agree to 1e-12 (tested)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1 + z**2 / n
        centre = (p + z**2 / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / denom
    return _exact_ends(k, n, np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1))


class ClusteredWilson(NamedTuple):
    """Outcome of :func:`wilson_ci_clustered`: the interval and the effective number of runs behind it."""

    low: np.ndarray
    high: np.ndarray
    n_eff: np.ndarray  # runs / design effect: the independent runs the clustered runs are worth
    n_runs: np.ndarray
    n_clusters: np.ndarray


def wilson_ci_clustered(k, n, group=None, *, confidence: float = 0.95) -> ClusteredWilson:
    """Return the Wilson interval of a proportion whose runs come in clusters (the trials of a task).

    The trials of one task are not independent: an agent that always asks on some tasks and never on the
    others gives a Wilson interval over its runs as narrow as if every run were a new task. Here the
    proportion's variance is the cluster-robust one (the ratio estimator's, with G/(G − 1)), the design
    effect is that variance over the binomial one, and the Wilson interval is taken at the effective
    sample size runs / design effect (Kish 1965; Korn and Graubard 1998 use the same effective size for
    survey proportions), with the critical value of t on G − 1 degrees of freedom in place of z, as is usual for
    a cluster-robust variance from few clusters (Cameron and Miller 2015, "A practitioner's guide to
    cluster-robust inference", J. Human Resources 50:317). Where every cluster holds one run it is the plain
    Wilson interval. Where the proportion is 0 or 1 no variance is seen, and each cluster counts once (every
    cluster alike).

    Parameters
    ----------
    k, n : array-like
        Per cluster (task): successes and runs.
    group : array-like of int, optional
        Which group (0 .. G − 1) each cluster belongs to; one interval per group. None: one group.
    confidence : float, default 0.95

    Returns
    -------
    ClusteredWilson
        ``low, high, n_eff, n_runs, n_clusters``, arrays with one value per group; NaN where a group has no run.
    """
    _check_confidence(confidence)
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    if np.any(k < 0) or np.any(k > n):
        raise ValueError("wilson_ci_clustered needs 0 <= k <= n in every cluster")
    code = np.zeros(len(k), dtype=np.int64) if group is None else np.asarray(group, dtype=np.int64)
    size = int(code.max()) + 1 if len(code) else (0 if group is not None else 1)
    total = lambda v: np.bincount(code, weights=v, minlength=size)  # noqa: E731
    big_k, big_n = total(k), total(n)
    clusters = np.bincount(code[n > 0], minlength=size).astype(float)
    one_run_each = total((n > 1).astype(float)) == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        p = big_k / big_n
        # sum over clusters of (k_i - p n_i)^2, from sums of k^2, k n, n^2 (one pass, every group at once)
        resid = total(k * k) - 2 * p * total(k * n) + p * p * total(n * n)
        v_cluster = clusters / (clusters - 1) * np.maximum(resid, 0) / big_n**2
        n_eff = p * (1 - p) / v_cluster
    n_eff = np.where(one_run_each, big_n, n_eff)
    n_eff = np.where((p <= 0) | (p >= 1) | (clusters < 2), np.where(one_run_each, big_n, clusters), n_eff)
    n_eff = np.where(np.isnan(n_eff) | (n_eff > big_n), big_n, n_eff)  # no spread between tasks: at most the runs
    # with clusters, the critical value of t with G − 1 degrees of freedom: the cluster-robust variance is too small
    # from few clusters (Cameron and Miller 2015), and z under-covered shares of questions at 8-12 tasks
    z = np.where(one_run_each | (clusters < 2), sps.norm.ppf(0.5 + confidence / 2),
                 sps.t.ppf(0.5 + confidence / 2, np.maximum(clusters - 1, 1)))
    low, high = _wilson(np.where(big_n > 0, p * n_eff, 0.0), n_eff, z)
    return ClusteredWilson(np.atleast_1d(low), np.atleast_1d(high), np.where(big_n > 0, n_eff, np.nan), big_n,
                           clusters)


def t_interval(d, confidence: float = 0.95, axis: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """Return the t-interval of the mean of ``d`` (per-task differences) along ``axis``: the mean ± t(n − 1) · sd
    / √n, the interval ``scipy.stats.ttest_1samp(d).confidence_interval(confidence)`` gives (without its warning
    where every difference is the same: the interval is then that value). NaN below two values."""
    _check_confidence(confidence)
    d = np.moveaxis(np.asarray(d, dtype=float), axis, -1)
    n = d.shape[-1]
    if n < 2:
        nan = np.full(d.shape[:-1], np.nan)
        return nan, nan
    mean = d.mean(axis=-1)
    half = sps.t.ppf(0.5 + confidence / 2, n - 1) * d.std(axis=-1, ddof=1) / np.sqrt(n)
    return mean - half, mean + half
