"""Is the agent reliable: pass@1, pass@k, pass^k and the noise floor per agent and condition, on the tasks it
was tried on more than once (τ-bench's pass^k, Yao et al. 2024; ``docs/metrics.md``)."""

from __future__ import annotations

import pandas as pd

from .. import metrics
from ..runset import RunSet
from ..shapes import SHAPES, Conventions
from ._common import ConventionsArg, _per_benchmark, explain_empty

__all__ = ["reliability"]

_BY = ("suite", "model", "policy", "spec", "ask_tool")


def reliability(rs: RunSet, *, k: int = 3, ci: bool = False, n_boot: int = 10_000, seed: int = 0,
                conventions: ConventionsArg = None) -> pd.DataFrame:
    """Tabulate how reliably each agent passes: pass@1, pass@k (any of k trials), pass^k (all k trials) and the
    noise floor (the share of tasks whose verdict flips across its identical trials), per condition.

    Applies to every benchmark with solve runs that have a pass/fail outcome; pass@k and pass^k need k trials
    with a verdict on a task, the noise floor two. pass@k follows the benchmark's conventions (HIL-Bench's
    "any of the first k").

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, policy, spec, ask_tool, n_tasks, pass_at_1, n_tasks_k, pass_at_k, pass_hat_k,
        n_tasks_repeated, noise_floor`` (+ intervals with ``ci``: task bootstrap): ``n_tasks`` counts tasks
        (variants) with a verdict, ``n_tasks_k`` those with at least k trials, ``n_tasks_repeated`` those with at
        least two.
    """
    kw = {"ci": ci, "n_boot": n_boot, "seed": seed}

    def build(sub: RunSet, conv: Conventions) -> pd.DataFrame:
        sub = sub.filter(protocol="solve")
        keys = list(_BY)
        one = metrics.pass_at_k(sub, k=1, by=_BY, **kw).drop(columns="n_excluded")
        one = one.rename(columns={c: c.replace("pass_at_k", "pass_at_1") for c in one.columns})
        any_k = metrics.pass_at_k(sub, k=k, by=_BY, estimator=conv.pass_estimator, **kw) \
            .drop(columns="n_excluded").rename(columns={"n_tasks": "n_tasks_k"})
        all_k = metrics.pass_hat_k(sub, k=k, by=_BY, **kw).drop(columns=["n_excluded", "n_tasks"])
        floor = metrics.noise_floor(sub, by=_BY, **kw).drop(columns=["n_excluded", "n_flipping"]) \
            .rename(columns={"n_tasks": "n_tasks_repeated"})
        out = one.merge(any_k, on=keys).merge(all_k, on=keys).merge(floor, on=keys)
        out = out[out["n_tasks"] > 0].reset_index(drop=True)  # a condition without a verdict is not a row
        fewer = (f"fewer than k = {k} trials with a verdict on every task of this agent: set k lower (--k) or run"
                 " more trials")
        explain_empty(out, {c: fewer for c in out.columns if c.startswith(("pass_at_k", "pass_hat_k"))}, gap=True)
        once = "every task of this agent was tried once: the noise floor needs two trials of a task"
        explain_empty(out, {c: once for c in out.columns if c.startswith("noise_floor")}, gap=True)
        return out

    return _per_benchmark(rs, SHAPES["pass_outcomes"], build, conventions=conventions,
                          columns=[*_BY, "n_tasks", "pass_at_1", "n_tasks_k", "pass_at_k", "pass_hat_k",
                                   "n_tasks_repeated", "noise_floor"])
