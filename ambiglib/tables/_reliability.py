"""Is the agent reliable: pass@1, pass@k, pass^k, the flip share and the rerun spread per agent and condition
(τ-bench's pass^k, Yao et al. 2024; Miller 2024 §3; ``docs/metrics.md``)."""

from __future__ import annotations

import pandas as pd

from ambiglib import metrics
from ambiglib.metrics._common import bootstrap_method, label_intervals
from ambiglib.runset import RunSet
from ambiglib.tables._common import ConventionsArg, _per_benchmark, as_table, explain_empty
from ambiglib.tables._shapes import SHAPES, Conventions

__all__ = ["reliability"]

_BY = ("suite", "model", "policy", "spec", "ask_tool")


@as_table
def reliability(rs: RunSet, *, k: int = 3, ci: bool = False, n_boot: int = 10_000, seed: int = 0,
                conventions: ConventionsArg = None) -> pd.DataFrame:
    """Tabulate how reliably each agent passes: pass@1, pass@k (any of k trials), pass^k (all k trials), the
    flip share (the share of tasks whose verdict flips across its identical trials: its consistency) and the
    rerun spread (how far a second run of the agent would move its pass@1), per condition.

    Applies to every benchmark with solve runs that have a pass/fail outcome; pass@k and pass^k need k trials
    with a verdict on a task, the flip share and the rerun spread two. pass@k follows the benchmark's
    conventions (HIL-Bench's "any of the first k").

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, policy, spec, ask_tool, n_tasks, pass_at_1, n_tasks_k, pass_at_k, pass_hat_k,
        n_tasks_repeated, flip_share, rerun_sd`` (+ intervals with ``ci``: task bootstrap): ``n_tasks`` counts
        tasks (variants) with a verdict, ``n_tasks_k`` those with at least k trials, ``n_tasks_repeated`` those
        with at least two; ``rerun_sd`` is :func:`ambiglib.metrics.rerun_sd` over them.
    """
    def build(sub: RunSet, conv: Conventions) -> pd.DataFrame:
        sub = sub.filter(protocol="solve")
        keys = list(_BY)
        bare = ["n_excluded", "ci_level", "ci_method"]  # the intervals are labelled once, below
        one = metrics.pass_at_k(sub, k=1, by=_BY, ci=ci, n_boot=n_boot, seed=seed) \
            .drop(columns=bare, errors="ignore")
        one = one.rename(columns={c: c.replace("pass_at_k", "pass_at_1") for c in one.columns})
        any_k = metrics.pass_at_k(sub, k=k, by=_BY, estimator=conv.pass_estimator, ci=ci, n_boot=n_boot, seed=seed) \
            .drop(columns=bare, errors="ignore").rename(columns={"n_tasks": "n_tasks_k"})
        all_k = metrics.pass_hat_k(sub, k=k, by=_BY, ci=ci, n_boot=n_boot, seed=seed) \
            .drop(columns=[*bare, "n_tasks"], errors="ignore")
        flips = metrics.flip_share(sub, by=_BY, ci=ci, n_boot=n_boot, seed=seed) \
            .drop(columns=[*bare, "n_flipping"], errors="ignore").rename(columns={"n_tasks": "n_tasks_repeated"})
        spread = metrics.rerun_sd(sub, by=_BY)[[*keys, "rerun_sd"]]
        out = one.merge(any_k, on=keys).merge(all_k, on=keys).merge(flips, on=keys).merge(spread, on=keys)
        out = out[out["n_tasks"] > 0].reset_index(drop=True)  # a condition without a verdict is not a row
        if ci:
            out = label_intervals(out, 0.95, {s: bootstrap_method(n_boot) for s in
                                              ("pass_at_1", "pass_at_k", "pass_hat_k", "flip_share")})
        fewer = (f"fewer than k = {k} trials with a verdict on every task of this agent: set k lower (--k) or run"
                 " more trials")
        explain_empty(out, {c: fewer for c in out.columns if c.startswith(("pass_at_k", "pass_hat_k"))}, gap=True)
        once = "every task of this agent was tried once: the flip share and the rerun spread need two trials of a task"
        explain_empty(out, {c: once for c in out.columns if c.startswith(("flip_share", "rerun_sd"))}, gap=True)
        return out

    out = _per_benchmark(rs, SHAPES["pass_outcomes"], build, conventions=conventions,
                         columns=[*_BY, "n_tasks", "pass_at_1", "n_tasks_k", "pass_at_k", "pass_hat_k",
                                  "n_tasks_repeated", "flip_share", "rerun_sd"])
    if len(out):  # said wherever the table shows, not only in the notebook's prose
        out.attrs["note"] = "; ".join(n for n in (out.attrs.get("note"), READING) if n)
    return out


#: how the table is to be read, under it wherever it shows
READING = ("flip_share is the share of tasks whose trials disagree, a property of the agent like pass^k (it depends"
           " on its per-task pass rates, grows with the trials and does not shrink with tasks);"
           " rerun_sd is how far a second run with as many trials would move pass_at_1 (from within-task variation"
           " alone, not the sampling of tasks); neither says whether two agents differ: the paired comparison"
           " does")
