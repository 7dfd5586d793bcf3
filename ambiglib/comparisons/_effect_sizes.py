"""Effect sizes on the per-task values: the matched-pairs rank-biserial correlation (``rbc``, Kerby 2014) and
the probability of improvement (``prob_improvement``, rliable: within each task the chance that a run of a beats a
run of b, averaged over tasks)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ambiglib.stats._intervals import sps


def rank_biserial(x, y) -> float:
    """The matched-pairs rank-biserial correlation of x − y: (R+ − R−) / (R+ + R−) over the
    non-zero differences' ranks (Kerby 2014; pingouin's ``RBC``). NaN with no non-zero difference."""
    d = np.asarray(x, dtype=float) - np.asarray(y, dtype=float)
    d = d[d != 0]
    if len(d) == 0:
        return float("nan")
    r = sps.rankdata(np.abs(d))
    return float((r[d > 0].sum() - r[d < 0].sum()) / r.sum())


def prob_improvement(a: pd.DataFrame, b: pd.DataFrame) -> float:
    """The probability of improvement of a over b: within each task, the share of (run of a, run of b) pairs where
    a's value is higher, ties counting one half; averaged over the tasks (Agarwal et al. 2021, rliable's
    ``probability_of_improvement``). Paired by task, unlike the common-language effect size over all pairs.

    ``a``, ``b``: one row per run (or one per task) with columns ``task_id`` and ``value``, or one per task and
    value with how many runs had it (``n``: an engine's counts); the tasks of both. NaN with no shared task. The
    runs are counted by (task, value) first and the tasks averaged in their sorted order, so that runs and their
    counts give the same bits.

    Each of a's values is placed among b's of its task by a binary search (b's runs below it, and equal), never by
    pairing every value of a with every value of b: with continuous scores that is a row per pair of runs."""
    a, b = _counted(a), _counted(b)
    tasks = pd.Index(a["task_id"].unique()).intersection(pd.Index(b["task_id"].unique())).sort_values()
    if len(tasks) == 0:
        return float("nan")
    ta = tasks.get_indexer(a["task_id"]).astype(np.int64)  # (−1: a task the other side did not run)
    tb = tasks.get_indexer(b["task_id"]).astype(np.int64)
    va, vb = a["value"].to_numpy(float)[ta >= 0], b["value"].to_numpy(float)[tb >= 0]
    na, nb = a["n"].to_numpy(float)[ta >= 0], b["n"].to_numpy(float)[tb >= 0]
    ta, tb = ta[ta >= 0], tb[tb >= 0]
    # (task, value) as one sortable integer: the task's place, then the value's rank among all the values
    values = np.unique(np.concatenate([va, vb]))
    width = len(values) + 1
    ka, kb = ta * width + np.searchsorted(values, va), tb * width + np.searchsorted(values, vb)
    order = np.argsort(kb, kind="stable")
    kb, nb_sorted = kb[order], nb[order]
    below = np.concatenate([[0.0], np.cumsum(nb_sorted)])  # b's runs before each place (counts: exact sums)
    first, low = np.searchsorted(kb, ta * width, "left"), np.searchsorted(kb, ka, "left")
    high = np.searchsorted(kb, ka, "right")
    less, equal = below[low] - below[first], below[high] - below[low]
    win = np.bincount(ta, na * (less + 0.5 * equal), len(tasks))  # (halves times counts: exact sums)
    pairs = np.bincount(ta, na, len(tasks)) * np.bincount(tb, nb, len(tasks))
    return float(pd.Series(win / pairs).mean())


def _counted(runs: pd.DataFrame) -> pd.DataFrame:
    """``task_id, value, n``: how many of ``runs`` had each value in each task (its own ``n`` where it has one)."""
    if "n" in runs.columns:
        return runs[["task_id", "value", "n"]].groupby(["task_id", "value"], sort=True, as_index=False)["n"].sum()
    return runs.groupby(["task_id", "value"], sort=True, as_index=False).size().rename(columns={"size": "n"})
