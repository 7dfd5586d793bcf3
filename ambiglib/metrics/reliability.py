"""Is the agent reliable: pass^k (every one of k trials passes) and the noise floor (how often identical trials
of one agent disagree on a task).

The τ-bench family reports pass^k beside pass@k: an agent that solves a task once in four tries is not one a
user can rely on. The noise floor is what a single comparison of two agents cannot see: two runs of the same
agent differ on a share of tasks, and a difference between agents smaller than that share may be noise
(``docs/metrics.md``, "pass^k" and "Noise floor", with sources).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from ..runset import RunSet
from ._common import (CONDITIONS, _check_by, _excluded, _mean_over_units_ci, _order, _ratio, _single_condition,
                      _work)

__all__ = ["pass_hat_k", "noise_floor"]


def _pass_hat_k_unbiased(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """C(c, k)/C(n, k) per unit: the chance that k trials drawn without replacement from the n all passed,
    computed as the product of (c − i)/(n − i) for i < k (0 when c < k)."""
    n, c = np.asarray(n, dtype=np.int64), np.asarray(c, dtype=np.int64)
    out = np.ones(len(n))
    for i in range(k):
        with np.errstate(invalid="ignore", divide="ignore"):
            out *= np.where(n - i > 0, np.clip(c - i, 0, None) / np.where(n - i > 0, n - i, 1), 0.0)
    return out


def _units(rs: RunSet, by: Sequence[str], fn: str) -> tuple[pd.DataFrame, list[str], pd.Series]:
    """Per unit (a variant under one condition, within each group): its task, trials with a verdict, passes;
    the group columns, and the error runs left out per group."""
    work = _work(rs)
    by = _check_by(work, by, fn)
    _single_condition(work, by, CONDITIONS, fn)
    excluded = _excluded(work, by)
    runs = work[~work["error"] & work["passed"].notna()]
    g = runs.groupby(list(dict.fromkeys([*by, "benchmark", "variant_id"])), sort=True, dropna=False)
    units = pd.DataFrame({"n": g["passed"].count(), "c": g["passed"].sum(), "task_id": g["task_id"].first()})
    return units.reset_index(), by, excluded


def _per_group(units: pd.DataFrame, by: list[str], excluded: pd.Series, **columns: tuple[str, str]) -> pd.DataFrame:
    """The units aggregated per group (``columns``: pandas' named aggregation), one row for every group that has
    runs, the error runs' count last."""
    if by:
        out = units.groupby(by, sort=True, dropna=False).agg(**columns).reindex(excluded.index).reset_index()
    else:
        out = units.assign(_all=0).groupby("_all").agg(**columns).reset_index(drop=True)
    out["n_excluded"] = excluded.to_numpy(int)
    return out


def pass_hat_k(rs: RunSet, *, k: int, by: Sequence[str] = ("suite", "model"), ci: bool = False,
               n_boot: int = 10_000, seed: int = 0, confidence: float = 0.95) -> pd.DataFrame:
    """Compute pass^k per task (variant): the chance that k of its trials, drawn without replacement, all pass;
    averaged over tasks.

    Parameters
    ----------
    k : int
    by : sequence of str, default ("suite", "model")
        The conditions (``spec``, ``ask_tool``, ``policy``, ``protocol``) must be constant within a group or
        named here.
    ci : bool, default False
        Add ``pass_hat_k_ci_low`` and ``pass_hat_k_ci_high``: a bootstrap that resamples tasks (``task_id``, all
        its variants together) and recomputes the mean over variants.
    n_boot, seed, confidence
        Bootstrap replicates, seed and interval level.

    Returns
    -------
    pandas.DataFrame
        ``by…, n_tasks, pass_hat_k, n_excluded``: the unbiased estimator C(c, k)/C(n, k) for a variant with n
        trials with a verdict (``passed`` not null, status not ``error``) and c passes; a variant with fewer
        than k such trials has none and is not counted in ``n_tasks``; ``n_excluded`` counts error runs.
        With n = k for every task it is the share of tasks passed in every trial, as τ-bench computes it.

    References
    ----------
    Yao et al. 2024, τ-bench (arXiv 2406.12045), pass^k; τ-bench's ``run.py`` computes ``comb(c, k) / comb(n, k)``
    with n the trials run per task.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer (got {k!r})")
    units, by, excluded = _units(rs, by, "pass_hat_k")
    n, c = units["n"].to_numpy(int), units["c"].to_numpy(int)
    units["pass_hat_k"] = np.where(n >= k, _pass_hat_k_unbiased(n, c, k), np.nan)
    out = _per_group(units, by, excluded, n_tasks=("pass_hat_k", "count"), pass_hat_k=("pass_hat_k", "mean"))
    out["n_tasks"] = out["n_tasks"].fillna(0).astype(int)
    out = _order(out, by, ["n_tasks", "pass_hat_k"])
    return _mean_over_units_ci(out, units, by, "pass_hat_k", n_boot, seed, confidence) if ci else out


def noise_floor(rs: RunSet, *, by: Sequence[str] = ("suite", "model"), ci: bool = False, n_boot: int = 10_000,
                seed: int = 0, confidence: float = 0.95) -> pd.DataFrame:
    """Compute the noise floor: the share of tasks (variants) whose verdict changes across an agent's identical
    trials (some pass, some fail).

    A task tried once cannot show it and is not counted. Two single runs of an agent that is right on a task
    with probability p disagree there with probability 2p(1 − p), so this share bounds from below how far two
    such runs move a pass rate: a difference between agents no larger than it is no evidence on its own.

    Parameters
    ----------
    by : sequence of str, default ("suite", "model")
    ci : bool, default False
        Add ``noise_floor_ci_low`` and ``noise_floor_ci_high``: a task bootstrap (all variants of a task
        together).

    Returns
    -------
    pandas.DataFrame
        ``by…, n_tasks, n_flipping, noise_floor, n_excluded``: ``n_tasks`` counts variants with at least two
        trials with a verdict, ``n_flipping`` those among them with both a pass and a fail.

    References
    ----------
    tau2-bench issue 540 (two runs of one agent several points apart); Miller 2024, "Adding Error Bars to
    Evals" (arXiv 2411.00640), on the variance an agent's resampled answers add.
    """
    units, by, excluded = _units(rs, by, "noise_floor")
    units = units[units["n"] >= 2].copy()
    units["noise_floor"] = ((units["c"] > 0) & (units["c"] < units["n"])).astype(float)  # 1: this task flips
    out = _per_group(units, by, excluded, n_tasks=("noise_floor", "count"), n_flipping=("noise_floor", "sum"))
    out[["n_tasks", "n_flipping"]] = out[["n_tasks", "n_flipping"]].fillna(0).astype(int)
    out["noise_floor"] = _ratio(out["n_flipping"].to_numpy(float), out["n_tasks"].to_numpy(float))
    out = _order(out, by, ["n_tasks", "n_flipping", "noise_floor"])
    return _mean_over_units_ci(out, units, by, "noise_floor", n_boot, seed, confidence) if ci else out
