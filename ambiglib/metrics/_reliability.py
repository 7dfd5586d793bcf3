"""Is the agent reliable: pass^k (every one of k trials passes), the flip share (how often identical trials of
one agent disagree on a task) and the rerun spread (how far running the agent again moves its pass rate).

The τ-bench family reports pass^k beside pass@k: an agent that solves a task once in four tries is not one a
user can rely on. The flip share says the same of the agent in another way: it is the agent's consistency,
never a yardstick for a difference between agents (it does not shrink as tasks are added, and it grows with
the trials). How far two runs of one agent move its pass rate is the rerun spread, which shrinks with tasks
(Miller 2024, §3); whether two agents differ is what the paired, task-clustered interval and test of
:mod:`ambiglib.comparisons` say (``docs/metrics.md``, "pass^k", "Flip share and rerun spread").
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ambiglib.metrics._pooling import flip_share_table, mean_over_units_table, rerun_sd_table
from ambiglib.metrics._units import unit_sums
from ambiglib.runset import RunSet

__all__ = ["pass_hat_k", "flip_share", "rerun_sd"]


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
    groups, per_task, by = unit_sums(rs, by, "pass_hat_k")
    return mean_over_units_table(groups, per_task, by, "pass_hat_k", "pass_hat_k", k, ci=ci, n_boot=n_boot,
                                 seed=seed, confidence=confidence)


def flip_share(rs: RunSet, *, by: Sequence[str] = ("suite", "model"), ci: bool = False, n_boot: int = 10_000,
               seed: int = 0, confidence: float = 0.95) -> pd.DataFrame:
    """Compute the flip share: the share of tasks (variants) whose verdict changes across an agent's identical
    trials (some pass, some fail).

    It describes the agent's consistency, as pass^k does. It is no measure of how far two runs of the agent
    move its pass rate, and so no yardstick for a difference between agents: an agent right on a task with
    probability p flips there with probability 1 − p^K − (1 − p)^K over K trials, a share that grows with the
    trials and does not shrink as tasks are added, while the spread of the pass rate between two runs falls as
    1/√tasks (:func:`rerun_sd`). A task tried once cannot show a flip and is not counted.

    Parameters
    ----------
    by : sequence of str, default ("suite", "model")
    ci : bool, default False
        Add ``flip_share_ci_low`` and ``flip_share_ci_high``: a task bootstrap (all variants of a task together).

    Returns
    -------
    pandas.DataFrame
        ``by…, n_tasks, n_flipping, flip_share, n_excluded``: ``n_tasks`` counts variants with at least two
        trials with a verdict, ``n_flipping`` those among them with both a pass and a fail.

    References
    ----------
    Yao et al. 2024, τ-bench (arXiv 2406.12045), on inconsistent trials; tau2-bench issue 540 (two runs of one
    agent several points apart).
    """
    groups, per_task, by = unit_sums(rs, by, "flip_share")
    return flip_share_table(groups, per_task, by, ci=ci, n_boot=n_boot, seed=seed, confidence=confidence)


def rerun_sd(rs: RunSet, *, by: Sequence[str] = ("suite", "model")) -> pd.DataFrame:
    """Compute the rerun spread: the standard deviation of the difference between the pass rates (pass@1) of two
    runs of one agent on the same tasks with as many trials each.

    A variant tried K times with c passes has the unbiased within-task variance s² = c(K − c) / (K(K − 1)) of
    one trial's verdict; its pass rate over K trials varies by s² / K from run to run, and the pass rate over
    n variants by Σ s² / K / n². Two runs differ by √2 times that: √(2 Σ s²/K) / n, which for one trial a task
    is Miller's √(Σ 2 p(1 − p)) / n. It shrinks as tasks are added; it is the agent's own noise, not a test of a
    difference between agents (:mod:`ambiglib.comparisons`).

    Returns
    -------
    pandas.DataFrame
        ``by…, n_tasks, rerun_sd, rerun_sd_one_trial, n_excluded``: over the ``n_tasks`` variants with at least
        two trials with a verdict; ``rerun_sd_one_trial`` is the spread between two runs of one trial a task.

    References
    ----------
    Miller 2024, "Adding Error Bars to Evals" (arXiv 2411.00640), §3: the within-task part of the variance,
    E[σ²]/(nK) for K trials.
    """
    groups, per_task, by = unit_sums(rs, by, "rerun_sd")
    return rerun_sd_table(groups, per_task, by)
