"""The task bootstrap: resampling counts drawn in blocks (and kept for the next statistic over the same tasks and
seed), totals over them, percentile intervals, the paired bootstrap (Ambig-DS Appendix C.9), and
:func:`cluster_bootstrap`, which evaluates any statistic written against bootstrap *weights* on every replicate at
once. Resampling is by cluster (task): every trial of a task enters or leaves a replicate together."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ambiglib.stats._intervals import _check_confidence

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
