"""Statistics: intervals, paired tests, bootstraps, multiple comparisons (judges' agreement: ``agreement``).

The metric is separate from its uncertainty: :func:`cluster_bootstrap` takes any
statistic written against bootstrap *weights*, so one matrix product evaluates it
on all replicates at once. Resampling is by cluster (task): every trial of a task
enters or leaves a replicate together.

References
----------
Ambig-DS §5.1 and Appendix C.8–C.9 (Wilcoxon, paired bootstrap); Appendix C.2,
Table 7 (Wilson intervals).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal, NamedTuple

import numpy as np
import pandas as pd

from ambiglib._lazy import OnFirstUse

__all__ = [
    "wilson_ci",
    "wilson_ci_clustered",
    "ClusteredWilson",
    "t_interval",
    "paired_wilcoxon",
    "WilcoxonResult",
    "paired_bootstrap_ci",
    "bootstrap_counts",
    "bootstrap_blocks",
    "bootstrap_totals",
    "cluster_bootstrap",
    "percentile_ci",
    "holm",
    "wilcoxon_power",
]

#: scipy.stats, imported at the first test or interval that needs it (``ambiglib._lazy``)
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
MAX_N_BOOT = 100_000


def check_n_boot(n_boot: Any, name: str = "n_boot") -> None:
    """Refuse a replicate count outside 1 .. MAX_N_BOOT before any work starts (ArgumentError naming it)."""
    from ambiglib.errors import ArgumentError

    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or not 1 <= n_boot <= MAX_N_BOOT:
        raise ArgumentError(f"{name} must be a whole number from 1 to {MAX_N_BOOT:,} (got {n_boot!r}): more"
                            " replicates change an interval's ends by less than its rounding and cost hours")


def bootstrap_counts(n: int, n_boot: int, seed: int | np.random.Generator = 0) -> np.ndarray:
    """Return how often each of ``n`` units is drawn in each of ``n_boot`` resamples.

    The draws are exactly ``np.random.default_rng(seed).integers(0, n, size=(n_boot, n))``,
    the Ambig-DS harness's resampling, tallied per unit: row ``b`` of the result
    weights unit ``i`` by the number of times replicate ``b`` drew it. A statistic
    that is a weighted sum or mean of per-unit values is then one matrix product.

    Returns
    -------
    numpy.ndarray
        ``(n_boot, n)`` float64 counts; each row sums to ``n``.
    """
    check_n_boot(n_boot)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    if n == 0:
        return np.zeros((n_boot, 0))
    if n >= _TALLY_BY_ROW:
        # a row's tally stays in the cache, which is faster than one tally of the block (the same numbers:
        # integers are drawn from the same 32 bits whatever their dtype)
        idx = rng.integers(0, n, size=(n_boot, n), dtype=np.int64)
        out = np.empty((n_boot, n))
        for b in range(n_boot):
            out[b] = np.bincount(idx[b], minlength=n)
        return out
    # int32 draws are the same numbers as int64 ones below 2**31 (numpy draws either from 32 bits), and faster
    small = n_boot * n < 2**31
    idx = rng.integers(0, n, size=(n_boot, n), dtype=np.int32 if n < 2**31 else np.int64)
    if not small:
        idx = idx.astype(np.int64)
    idx += (np.arange(n_boot, dtype=idx.dtype) * n)[:, None]  # in place: row b's draws land in block b
    return np.bincount(idx.ravel(), minlength=n_boot * n).reshape(n_boot, n).astype(np.float64)


#: From this many units on, :func:`bootstrap_counts` tallies each replicate alone: below it, one
#: tally of all replicates is faster (one call instead of thousands); above it, a row's tally
#: stays in the cache (the two break even near this size: docs/performance.md)
_TALLY_BY_ROW = 1024


#: Draws per block of replicates (:func:`bootstrap_blocks`): a block's counts (32 MB) stay near the
#: cache, where one (n_boot, n) count matrix of a large log's tasks would take gigabytes.
BOOTSTRAP_BLOCK = 1 << 22


def bootstrap_blocks(n: int, n_boot: int, seed: int | np.random.Generator = 0
                     ) -> Iterator[tuple[slice, np.ndarray]]:
    """Yield ``(rows, counts)``: :func:`bootstrap_counts`'s matrix a block of replicates at a time.

    ``counts`` is rows ``rows`` of ``bootstrap_counts(n, n_boot, seed)``, the same draws (the
    random stream goes on from block to block); a block holds about ``BOOTSTRAP_BLOCK`` draws,
    so memory stays flat however many units there are. When one block holds every replicate
    (every log of the papers' size), it is the whole matrix, and a product over it is the
    product over :func:`bootstrap_counts` exactly. On a large log, blocks are also much faster than
    one matrix (docs/performance.md).
    """
    check_n_boot(n_boot)  # now, not at the first block: a caller allocates (n_boot, ...) before iterating
    return _blocks(n, n_boot, seed)


def _blocks(n: int, n_boot: int, seed: int | np.random.Generator) -> Iterator[tuple[slice, np.ndarray]]:
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    block = max(1, BOOTSTRAP_BLOCK // max(n, 1))
    for start in range(0, n_boot, block):
        stop = min(start + block, n_boot)
        yield slice(start, stop), bootstrap_counts(n, stop - start, rng)


def bootstrap_totals(values, n_boot: int, seed: int | np.random.Generator = 0) -> np.ndarray:
    """Return ``bootstrap_counts(n, n_boot, seed) @ values`` (each replicate's totals of per-unit
    values, ``values`` being ``(n,)`` or ``(n, k)``), computed block by block (:func:`bootstrap_blocks`).

    With a whole-number seed, the counts of large resamplings are kept (:data:`KEPT_COUNTS_BYTES`): a report
    bootstraps many statistics over the same number of tasks with the same seed, hence the same draws."""
    values = np.asarray(values, dtype=float)
    blocks = bootstrap_blocks(values.shape[0], n_boot, seed)  # n_boot checked here, before the allocation
    out = np.empty((n_boot, *values.shape[1:]))
    for rows, counts in _kept(values.shape[0], n_boot, seed, blocks):
        out[rows] = counts @ values
    return out


#: Bytes of resampling counts kept between calls of :func:`bootstrap_totals` (one byte a count); past it, the
#: least recently used are let go. Drawing and tallying is most of a large bootstrap's time; the product over
#: kept counts, the rest.
KEPT_COUNTS_BYTES = 192 << 20
#: Resamplings of fewer units are drawn again: their draws cost less than keeping them.
_KEEP_FROM_UNITS = 1024
_KEPT: dict[tuple[int, int, int], list[tuple[slice, np.ndarray]]] = {}


def _kept(n: int, n_boot: int, seed: int | np.random.Generator,
          blocks: Iterator[tuple[slice, np.ndarray]]) -> Iterator[tuple[slice, np.ndarray]]:
    """``blocks``, or the same counts kept from an earlier call with the same ``(n, n_boot, seed)``."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or n < _KEEP_FROM_UNITS \
            or n * n_boot > KEPT_COUNTS_BYTES // 2:
        yield from blocks
        return
    key = (n, n_boot, int(seed))
    hit = _KEPT.pop(key, None)
    if hit is not None:
        _KEPT[key] = hit  # the most recent last
        for rows, small in hit:
            yield rows, small.astype(np.float64)
        return
    kept: list[tuple[slice, np.ndarray]] | None = []
    for rows, counts in blocks:
        if kept is not None:
            if counts.max(initial=0) <= 255:  # a unit drawn 256 times in one replicate: keep nothing
                kept.append((rows, counts.astype(np.uint8)))
            else:
                kept = None
        yield rows, counts
    if kept is not None:
        _KEPT[key] = kept
        while sum(c.nbytes for blocks_ in _KEPT.values() for _, c in blocks_) > KEPT_COUNTS_BYTES:
            _KEPT.pop(next(iter(_KEPT)))


def percentile_ci(samples: np.ndarray, confidence: float = 0.95, axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Return the percentile interval of bootstrap replicates along ``axis`` (NaNs ignored)."""
    _check_confidence(confidence)
    alpha = 1 - confidence
    q = [alpha / 2, 1 - alpha / 2]
    if not np.isnan(samples).any():  # the common case; nanquantile is several times slower
        low, high = np.quantile(samples, q, axis=axis)
        return low, high
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN slice gives NaN, as it should
        low, high = np.nanquantile(samples, q, axis=axis)
    return low, high


def paired_bootstrap_ci(x, y, *, n_boot: int = 10_000, seed: int = 0, confidence: float = 0.95):
    """Return the percentile bootstrap interval of the mean paired difference mean(x − y).

    Tasks are resampled with replacement. With 2-D input (cells × tasks) every
    cell is bootstrapped with the same task resamples, in one matrix product.

    Parameters
    ----------
    x, y : array-like
        Paired per-task values; 1-D, or 2-D with one row per cell.
    n_boot : int, default 10_000
    seed : int, default 0
    confidence : float, default 0.95

    Returns
    -------
    (low, high)
        Floats for 1-D input, arrays (one per cell) for 2-D; NaN when there are no tasks.

    References
    ----------
    Ambig-DS Appendix C.9. The draws and the interval are those of the harness's
    ``_paired_bootstrap_ci``: ``rng.integers(0, n, (n_boot, n))`` from
    ``default_rng(seed)`` and ``np.quantile(samples, [0.025, 0.975])``; the harness
    uses seed 0 for Δ_ambig and seed 1 for Δ_ask.
    """
    d = np.asarray(x, dtype=float) - np.asarray(y, dtype=float)
    one = d.ndim == 1
    d = np.atleast_2d(d)
    n = d.shape[1]
    if n == 0:
        nan = np.full(d.shape[0], np.nan)
        return (float("nan"), float("nan")) if one else (nan, nan)
    blocks = bootstrap_blocks(n, n_boot, seed)  # n_boot checked here, before the allocation
    samples = np.empty((d.shape[0], n_boot))  # each cell's replicates contiguous for the quantiles
    for rows, weights in blocks:
        samples[:, rows] = d @ weights.T
    samples /= n
    low, high = percentile_ci(samples, confidence, axis=1)
    return (float(low[0]), float(high[0])) if one else (low, high)


def cluster_bootstrap(frame: pd.DataFrame, statistic: Callable[[pd.DataFrame, np.ndarray], np.ndarray], *,
                      cluster: str | Sequence[str] = "task_id", n_boot: int = 10_000, seed: int = 0,
                      confidence: float = 0.95) -> pd.DataFrame:
    """Bootstrap a statistic by resampling clusters (tasks), all of a cluster's rows together.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per observation (e.g. per run).
    statistic : callable ``(frame, weights) -> array``
        Computes the statistic under row weights: ``weights`` is ``(m, len(frame))``
        and the result has ``m`` values (or ``(m, k)`` for ``k`` statistics). Row
        weights are the number of times each row's cluster was drawn; the point
        estimate is the statistic under weights of one. A pooled ratio is
        ``lambda f, w: (w @ f["num"].to_numpy()) / (w @ f["den"].to_numpy())``.
    cluster : str or sequence of str, default "task_id"
        Column(s) naming the resampling unit. Clusters are sorted, so the result
        does not depend on row order.
    n_boot : int, default 10_000
    seed : int, default 0
    confidence : float, default 0.95

    Returns
    -------
    pandas.DataFrame
        One row per statistic: ``stat`` (0..k−1), ``estimate``, ``ci_low``,
        ``ci_high``, ``n_clusters``, ``n_boot``.

    References
    ----------
    runlog-v1 B.9: pooled ratios such as Ask-F1 and Gain/Q get a bootstrap that
    resamples tasks and recomputes the pooled ratio.
    """
    cols = [cluster] if isinstance(cluster, str) else list(cluster)
    missing = [c for c in cols if c not in frame.columns]
    if missing:
        raise ValueError(f"cluster column(s) {missing} not in frame (columns: {list(frame.columns)})")
    keys = pd.MultiIndex.from_frame(frame[cols].astype(object))
    uniques = keys.unique().sort_values()
    codes = uniques.get_indexer(keys)
    n_clusters = len(uniques)
    counts = bootstrap_counts(n_clusters, n_boot, seed)  # (n_boot, n_clusters)
    row_weights = counts[:, codes]  # (n_boot, n_rows)
    estimate = np.atleast_1d(np.asarray(statistic(frame, np.ones((1, len(frame))))))
    estimate = estimate.reshape(1, -1)[0] if estimate.ndim > 1 else estimate
    samples = np.asarray(statistic(frame, row_weights), dtype=float)
    samples = samples.reshape(n_boot, -1)
    low, high = percentile_ci(samples, confidence)
    return pd.DataFrame({
        "stat": np.arange(samples.shape[1]), "estimate": estimate.astype(float), "ci_low": low, "ci_high": high,
        "n_clusters": n_clusters, "n_boot": n_boot,
    })


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
_MOVED = {"fleiss_kappa": "ambiglib.agreement", "cohen_kappa": "ambiglib.agreement",
         "majority_vote": "ambiglib.agreement"}
#: The first version without the old names
_MOVED_UNTIL = "0.3.0"


def __getattr__(name: str) -> Any:
    """An old name of ``_MOVED``: the function from its new home, with a DeprecationWarning that names it."""
    if name in _MOVED:
        from ambiglib import agreement

        warnings.warn(f"ambiglib.stats.{name} is deprecated: it is {_MOVED[name]}.{name}; the old name goes in"
                      f" ambiglib {_MOVED_UNTIL}", DeprecationWarning, stacklevel=2)
        return getattr(agreement, name)
    raise AttributeError(f"module 'ambiglib.stats' has no attribute {name!r}")
