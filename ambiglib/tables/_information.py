"""Was asking worth it: value of information and Gain/Q, performance (S_full, S_ambig, S_ask), and the
gain by segments removed, dimension, ambiguity class, persona, prompting strategy and benchmark (LHAW
Tables 3-15; Ambig-DS Tables 2-4)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from ambiglib import metrics
from ambiglib.metrics._asking import _pass_at_k_unbiased
from ambiglib.runset import RunSet
from ambiglib.tables._common import (
    ConventionsArg,
    _own_agents,
    _per_benchmark,
    _per_tool_policy,
    as_table,
    explain_empty,
)
from ambiglib.tables._shapes import SHAPES, Conventions, Shape

__all__ = ["performance", "value_of_information", "by_ambiguity_class", "by_dimension", "segments_removed",
           "generality", "prompting_strategies", "removal_strategies", "personas"]


@as_table
def performance(rs: RunSet, *, n_boot: int = 10_000, seed: int = 0) -> pd.DataFrame:
    """Tabulate S_full, S_ambig, S_ask and both deltas with CIs and p-values (Ambig-DS Tables 1 and 12).

    Applies to every benchmark with scored solve runs in all three conditions on the same tasks.

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, n_tasks, s_full, s_ambig, s_ask, delta_ambig, delta_ambig_ci_low,
        delta_ambig_ci_high, p_full_gt_ambig, delta_ask, delta_ask_ci_low, delta_ask_ci_high,
        p_ask_gt_ambig, n_excluded`` (scores as fractions).
    """
    def build(sub: RunSet, conv: Conventions) -> pd.DataFrame:
        parts = [metrics.performance(runs, n_boot=n_boot, seed=seed).assign(policy=policy)
                 for policy, runs in _per_tool_policy(sub.filter(protocol="solve"))]
        out = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
        if len(out) == 0:
            return out
        out = out[["suite", "model", "policy", *[c for c in out.columns if c not in ("suite", "model", "policy")]]]
        none = "this agent has no task with scored runs in all three conditions (n_tasks 0): add the missing condition"
        equal = ("every task's two scores are equal: the one-sided Wilcoxon test has nothing to rank (the Ambig-DS"
                 " harness reports none either)")
        zero = out["n_tasks"].to_numpy() == 0
        for c in out.columns[out.isna().any()]:
            nan = out[c].isna().to_numpy()
            untested = str(c).startswith("p_") and (nan & ~zero).any()
            why = "; ".join(([none] if (nan & zero).any() else []) + ([equal] if untested else []))
            explain_empty(out, {c: why}, gap=bool((nan & zero).any()))
        return out

    return _per_benchmark(rs, SHAPES["three_conditions"], build,
                          columns=["suite", "model", "policy", "n_tasks", "s_full", "s_ambig", "s_ask"])


@as_table
def value_of_information(rs: RunSet, *, k: int = 3, paired: bool | None = None, ci: bool = False,
                         n_boot: int = 10_000, seed: int = 0, conventions: ConventionsArg = None) -> pd.DataFrame:
    """Tabulate baseline, Ask %, Avg/Traj, and pass@k and checkpoint score with their gains per question (LHAW Table 3).

    One row per benchmark, suite, model and persona or strategy (``policy``) of the with-tool
    runs, for every benchmark with runs with and without the ask tool on the same ambiguous
    variants. Under LHAW's conventions, like every LHAW table here, each condition is scored
    over the variants with results in it (``paired=False``, as LHAW prints:
    ``metrics.value_of_information``); otherwise over the variants with results in both
    (``paired=True``). ``paired`` given explicitly applies to every benchmark.

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, policy, base_pass_at_k, base_mean_score, variant_ask_pct`` (share of
        variants with an asking trial: the rate LHAW prints as "Ask %"), ``avg_per_traj, pass_at_k,
        pass_gain_pp, pass_gain_pp_per_question, mean_score, score_gain_pp, score_gain_pp_per_question``
        (scores without the tool, as printed, with the gain), ``mean_score_with_tool`` (what Figure 4
        plots), ``n_variants``. Each column is defined once in docs/metrics.md.
    """
    cols = ["suite", "model", "policy", "base_pass_at_k", "base_mean_score", "variant_ask_pct", "avg_per_traj",
            "pass_at_k", "pass_gain_pp", "pass_gain_pp_per_question", "mean_score", "score_gain_pp",
            "score_gain_pp_per_question", "mean_score_with_tool", "n_variants"]

    def build(sub: RunSet, paired_: bool) -> pd.DataFrame:
        voi = metrics.value_of_information(sub, by=("suite", "model", "policy"), k=k, paired=paired_,
                                           ci=ci, n_boot=n_boot, seed=seed)
        voi["variant_ask_pct"] = 100 * voi["variant_ask_rate"]
        extra = [c for c in voi.columns if c.endswith(("_ci_low", "_ci_high"))] if ci else []
        return voi[cols + extra]

    return _voi(rs, SHAPES["tool_pairs"], build, paired, conventions, cols)


def _paired(paired: bool | None, conv: Conventions) -> bool:
    return conv.voi_paired if paired is None else bool(paired)


def _voi(rs: RunSet, shape: Shape, build: Callable[[RunSet, bool], pd.DataFrame], paired: bool | None,
         conventions: ConventionsArg, columns: Sequence[str]) -> pd.DataFrame:
    """An LHAW-shaped table: ``build(runs of one benchmark, paired)`` for each benchmark with ``shape``."""
    return _per_benchmark(rs, shape, lambda sub, conv: build(sub, _paired(paired, conv)), conventions=conventions,
                          columns=columns)


def _voi_by_group(rs: RunSet, groups: pd.DataFrame, column: str, *, k: int = 3,
                  paired: bool = True) -> pd.DataFrame:
    """value_of_information per value of ``column`` (a property of LHAW variants), with each
    group's fully specified runs on its variants' original tasks as the baseline."""
    rows = []
    for value, group in groups.groupby(column, sort=True):
        keep = sorted(set(group["variant_id"]) | set(group["task_id"]))  # full runs: variant_id == task_id
        sub = rs.filter(variant_id=keep)
        if len(sub.runs) == 0:
            continue
        voi = metrics.value_of_information(sub, by=("suite", "model", "policy"), k=k, paired=paired)
        rows.append(voi.assign(**{column: value}))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()


@as_table
def by_ambiguity_class(rs: RunSet, *, k: int = 3, paired: bool | None = None,
                       conventions: ConventionsArg = None) -> pd.DataFrame:
    """Tabulate pass@k on the original tasks, without the tool and with it, per ambiguity class (LHAW Tables 7–9, 12).

    Each variant's class is its task record's ``ambiguity_class``; "Base" is pass@k of
    the fully specified runs on the class's original tasks.

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, policy, ambiguity_class, n_variants, base_pass_at_k, pass_at_k``
        (LHAW "Under."), ``pass_at_k_with_tool`` ("+User"), ``pass_gain_pp, mean_score,
        score_gain_pp, variant_ask_pct, avg_per_traj``, for every benchmark with task records giving an
        ambiguity class and runs with and without the tool on the same variants.
    """
    cols = ["suite", "model", "policy", "ambiguity_class", "n_variants", "base_pass_at_k", "pass_at_k",
            "pass_at_k_with_tool", "pass_gain_pp", "mean_score", "score_gain_pp", "variant_ask_pct", "avg_per_traj"]
    return _voi(rs, SHAPES["tool_pairs"] & SHAPES["ambiguity_class"],
                lambda sub, paired_: _by_ambiguity_class(sub, cols, k, paired_), paired, conventions, cols)


def _by_ambiguity_class(lhaw: RunSet, cols: list[str], k: int, paired: bool) -> pd.DataFrame:
    groups = lhaw.tasks[["suite", "task_id", "variant_id", "ambiguity_class"]].astype(object).dropna()
    out = _voi_by_group(lhaw, groups, "ambiguity_class", k=k, paired=paired)
    if len(out) == 0:
        return pd.DataFrame(columns=cols)
    out["variant_ask_pct"] = 100 * out["variant_ask_rate"]
    order = {c: i for i, c in enumerate(("outcome-critical", "divergent", "benign", "new-task"))}
    return out[cols].sort_values(["suite", "model", "policy", "ambiguity_class"],
                                 key=lambda s: s.map(order) if s.name == "ambiguity_class" else s).reset_index(drop=True)


@as_table
def by_dimension(rs: RunSet, *, k: int = 3, paired: bool | None = None,
                 conventions: ConventionsArg = None) -> pd.DataFrame:
    """Tabulate pass@k and checkpoint score, without and with the tool, per information dimension (LHAW Tables 5 and 6).

    A variant counts under each dimension of its removed segments (as LHAW counts
    multi-segment removals); ``dimension="all"`` is every variant.

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, policy, dimension, n_variants, base_pass_at_k, base_mean_score,
        pass_at_k, pass_gain_pp, mean_score, score_gain_pp``, for every benchmark with task records
        naming dimensions and runs with and without the tool on the same variants.
    """
    cols = ["suite", "model", "policy", "dimension", "n_variants", "base_pass_at_k", "base_mean_score", "pass_at_k",
            "pass_gain_pp", "mean_score", "score_gain_pp"]
    return _voi(rs, SHAPES["tool_pairs"] & SHAPES["dimensions"], lambda sub, p: _by_dimension(sub, cols, k, p),
                paired, conventions, cols)


def _by_dimension(lhaw: RunSet, cols: list[str], k: int, paired: bool) -> pd.DataFrame:
    tasks = lhaw.tasks[["suite", "task_id", "variant_id", "dimensions"]]
    rows = [{"suite": str(t.suite), "task_id": str(t.task_id), "variant_id": str(t.variant_id), "dimension": "all"}
            for t in tasks.itertuples()]
    rows += [{"suite": str(t.suite), "task_id": str(t.task_id), "variant_id": str(t.variant_id), "dimension": str(d)}
             for t in tasks.itertuples() if isinstance(t.dimensions, (list, tuple, np.ndarray)) for d in t.dimensions]
    out = _voi_by_group(lhaw, pd.DataFrame(rows, columns=["suite", "task_id", "variant_id", "dimension"]), "dimension", k=k,
                        paired=paired)
    if len(out) == 0:
        return pd.DataFrame(columns=cols)
    order = {d: i for i, d in enumerate(("all", "goal", "constraint", "input", "context"))}
    return out[cols].sort_values(["suite", "model", "policy", "dimension"],
                                 key=lambda s: s.map(lambda d: order.get(d, 9)) if s.name == "dimension" else s) \
        .reset_index(drop=True)


@as_table
def segments_removed(rs: RunSet, *, k: int = 3, paired: bool | None = None,
                     conventions: ConventionsArg = None) -> pd.DataFrame:
    """Tabulate pass@k without and with the tool by the number of removed segments (LHAW Table 2).

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, policy, segments, n_variants, base_pass_at_k, pass_at_k, pass_gain_pp``,
        for every benchmark whose task records register blockers (LHAW: the removed segments) and
        with runs with and without the tool on the same variants.
    """
    cols = ["suite", "model", "policy", "segments", "n_variants", "base_pass_at_k", "pass_at_k", "pass_gain_pp"]
    return _voi(rs, SHAPES["tool_pairs"] & SHAPES["blockers"], lambda sub, p: _segments_removed(sub, cols, k, p),
                paired, conventions, cols)


def _segments_removed(lhaw: RunSet, cols: list[str], k: int, paired: bool) -> pd.DataFrame:
    groups = lhaw.tasks[["suite", "task_id", "variant_id", "n_blockers"]].astype({"suite": object, "task_id": object,
                                                                                   "variant_id": object})
    groups = groups.assign(segments=groups["n_blockers"].astype(int))
    out = _voi_by_group(lhaw, groups, "segments", k=k, paired=paired)
    return out[cols].sort_values(["suite", "model", "policy", "segments"]).reset_index(drop=True) if len(out) else \
        pd.DataFrame(columns=cols)


@as_table
def generality(rs: RunSet, *, k: int = 3, paired: bool | None = None, conventions: ConventionsArg = None) -> pd.DataFrame:
    """Average pass@k over models per benchmark: original tasks, underspecified, with the tool (LHAW Table 13).

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, n_models, base_pass_at_k, pass_at_k, pass_at_k_with_tool`` (model
        averages), for every benchmark with runs with and without the tool on the same variants.
    """
    def build(sub: RunSet, paired_: bool) -> pd.DataFrame:
        voi = _own_agents(metrics.value_of_information(sub, by=("suite", "model", "policy"), k=k, paired=paired_))
        g = voi.groupby("suite")
        return pd.DataFrame({"n_models": g["model"].nunique(), "base_pass_at_k": g["base_pass_at_k"].mean(),
                             "pass_at_k": g["pass_at_k"].mean(),
                             "pass_at_k_with_tool": g["pass_at_k_with_tool"].mean()}).reset_index()

    return _voi(rs, SHAPES["tool_pairs"], build, paired, conventions,
                ["suite", "n_models", "base_pass_at_k", "pass_at_k", "pass_at_k_with_tool"])


@as_table
def prompting_strategies(rs: RunSet, *, k: int = 3, paired: bool | None = None,
                         conventions: ConventionsArg = None) -> pd.DataFrame:
    """Tabulate pass@k, checkpoint score, %Ask (of trials) and Avg/Traj per agent strategy and class (LHAW Table 10).

    The strategy is the run's ``policy`` (the default agent is ``default``), on the runs without
    the tool too, so that each strategy's gain is over its own no-tool runs;
    ``ambiguity_class="overall"`` is every variant.

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, ambiguity_class, policy, n_variants, pass_at_k, pass_gain_pp, mean_score,
        score_gain_pp, trial_ask_pct`` (share of with-tool trials that asked, as Table 10 says), ``avg_per_traj``;
        for every benchmark with runs with and without the tool on the same variants and with-tool runs
        under more than one strategy (``policy``; its task records' ambiguity classes, if any, add rows per
        class).
    """
    cols = ["suite", "model", "ambiguity_class", "policy", "n_variants", "pass_at_k", "pass_gain_pp", "mean_score",
            "score_gain_pp", "trial_ask_pct", "avg_per_traj"]
    return _voi(rs, SHAPES["tool_pairs"] & SHAPES["policies"], lambda sub, p: _prompting_strategies(sub, cols, k, p),
                paired, conventions, cols)


def _prompting_strategies(lhaw: RunSet, cols: list[str], k: int, paired: bool) -> pd.DataFrame:
    tasks = lhaw.tasks[["suite", "task_id", "variant_id", "ambiguity_class"]].astype(object)
    groups = pd.concat([tasks.assign(ambiguity_class="overall"), tasks.dropna(subset=["ambiguity_class"])])
    out = _voi_by_group(lhaw, groups, "ambiguity_class", k=k, paired=paired)
    if len(out) == 0:
        return pd.DataFrame(columns=cols)
    out["trial_ask_pct"] = 100 * out["ask_rate"]
    order = {c: i for i, c in enumerate(("overall", "outcome-critical", "divergent", "benign", "new-task"))}
    return out[cols].sort_values(["suite", "model", "ambiguity_class", "policy"],
                                 key=lambda s: s.map(order) if s.name == "ambiguity_class" else s).reset_index(drop=True)


@as_table
def removal_strategies(rs: RunSet, *, k: int = 3) -> pd.DataFrame:
    """Tabulate, per removal strategy, pass@k without the tool and how many variants fall in each
    ambiguity class by their trials' terminal states (LHAW Table 11).

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, strategy, n_variants, pass_at_k``, then a count per class
        (outcome-critical, divergent, benign, new-task), for every benchmark with task records
        naming a removal strategy and no-tool runs with checkpoint terminal states.
    """
    return _per_benchmark(rs, SHAPES["terminal_states"] & SHAPES["strategy"],
                          lambda sub, conv: _removal_strategies(sub, k),
                          columns=["suite", "model", "strategy", "n_variants", "pass_at_k"])


def _removal_strategies(lhaw: RunSet, k: int) -> pd.DataFrame:
    strategy = lhaw.tasks[["variant_id", "strategy"]].astype(object).dropna().set_index("variant_id")["strategy"]
    classes = metrics.ambiguity_classes(lhaw)
    classes["strategy"] = classes["variant_id"].astype(object).map(strategy)
    classes = classes.dropna(subset=["strategy"])
    if len(classes) == 0:
        return pd.DataFrame(columns=["suite", "model", "strategy", "n_variants", "pass_at_k"])
    n, c = classes["n_trials"].to_numpy(int), classes["n_successes"].to_numpy(int)
    classes["pass_at_k"] = [_pass_at_k_unbiased(np.array([a]), np.array([b]), k)[0] if a >= k else np.nan
                            for a, b in zip(n, c)]
    counts = classes.pivot_table(index=["suite", "model", "strategy"], columns="ambiguity_class", values="n_trials",
                                 aggfunc="count", fill_value=0)
    counts = counts.reindex(columns=["outcome-critical", "divergent", "benign", "new-task"], fill_value=0)
    g = classes.groupby(["suite", "model", "strategy"])
    out = pd.DataFrame({"n_variants": g.size(), "pass_at_k": g["pass_at_k"].mean()}).join(counts)
    out.columns = [str(c) for c in out.columns]
    return out.reset_index()


@as_table
def personas(rs: RunSet, *, k: int = 3, paired: bool | None = None, conventions: ConventionsArg = None) -> pd.DataFrame:
    """Tabulate checkpoint score, questions and gain per question for each user persona (LHAW Table 14).

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, policy, mean_score`` (without the tool, shared by every persona),
        ``score_gain_pp, n_questions, score_gain_pp_per_question``, for every benchmark with runs
        with and without the tool on the same variants and with-tool runs under more than one persona
        (``policy``).
    """
    cols = ["suite", "model", "policy", "mean_score", "score_gain_pp", "n_questions", "score_gain_pp_per_question"]
    return _voi(rs, SHAPES["tool_pairs"] & SHAPES["policies"],
                lambda sub, p: metrics.value_of_information(sub, by=("suite", "model", "policy"), k=k, paired=p)[cols],
                paired, conventions, cols)
