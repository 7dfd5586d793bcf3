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
    counts give the same bits."""
    a, b = _counted(a), _counted(b)
    both = a.merge(b, on="task_id", suffixes=("_a", "_b"))
    if len(both) == 0:
        return float("nan")
    va, vb = both["value_a"].to_numpy(float), both["value_b"].to_numpy(float)
    pairs = both["n_a"].to_numpy(float) * both["n_b"].to_numpy(float)
    win = np.where(va > vb, 1.0, np.where(va == vb, 0.5, 0.0)) * pairs  # (halves times counts: exact sums)
    per = pd.DataFrame({"win": win, "pairs": pairs}).groupby(both["task_id"].to_numpy(), sort=True).sum()
    return float((per["win"] / per["pairs"]).mean())


def _counted(runs: pd.DataFrame) -> pd.DataFrame:
    """``task_id, value, n``: how many of ``runs`` had each value in each task (its own ``n`` where it has one)."""
    if "n" in runs.columns:
        return runs[["task_id", "value", "n"]].groupby(["task_id", "value"], sort=True, as_index=False)["n"].sum()
    return runs.groupby(["task_id", "value"], sort=True, as_index=False).size().rename(columns={"size": "n"})
