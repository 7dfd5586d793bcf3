"""What the log holds: its composition and coverage, blocker statistics, the variant distribution and
ambiguity classes, ask_user calls per trial, power analysis and selector accuracy (HIL-Bench Table 3; LHAW
Tables 2 and 18, Figure 4; Ambig-DS Table 10)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ambiglib import metrics
from ambiglib.metrics._common import _clustered_wilson_columns, _work
from ambiglib.runset import RunSet
from ambiglib.stats import wilcoxon_power
from ambiglib.tables._common import _per_benchmark, as_table, explain_empty
from ambiglib.tables._shapes import SHAPES

__all__ = ["blocker_stats", "ambiguity_classes", "variant_distribution", "coverage", "selector_accuracy",
           "composition", "power_analysis", "calls_per_trial"]


@as_table
def blocker_stats(rs: RunSet) -> pd.DataFrame:
    """Tabulate the registered blockers per suite, in the style of HIL-Bench Table 3.

    Applies to every benchmark with task records that register blockers.

    Returns
    -------
    pandas.DataFrame
        ``benchmark, statistic``, one column per suite and ``Total``; the statistics: tasks, average and total blockers,
        tasks with each number of blockers, then for each blocker ``type`` its count
        and its share of the suite's blockers (%); one column per suite and ``Total``.
        Values are unrounded; rounding is for rendering.

    References
    ----------
    HIL-Bench Appendix E, Table 3 (dataset statistics). The public registries use
    their own type names (SQL: question / business info / schema; SWE: missing
    parameters / contradictory requirements / ambiguous requirements), not the
    paper's three categories (harness-formats §5, item 24).
    """
    out = _per_benchmark(rs, SHAPES["blockers"], lambda sub, conv: _blocker_stats(sub), columns=["statistic", "Total"])
    return explain_empty(out, {c: "a suite of another benchmark: each benchmark's rows fill its own suites' columns"
                               for c in out.columns if c not in ("benchmark", "statistic", "Total")})


def _blocker_stats(rs: RunSet) -> pd.DataFrame:
    tasks, blockers = rs.tasks, rs.blockers
    suites = sorted(tasks["suite"].astype(str).unique())
    columns = {}
    for suite in [*suites, "Total"]:
        t = tasks if suite == "Total" else tasks[tasks["suite"] == suite]
        b = blockers if suite == "Total" else blockers[blockers["suite"] == suite]
        col: dict[str, float] = {
            "Tasks": len(t),
            "Avg. blockers / task": float(t["n_blockers"].mean()) if len(t) else float("nan"),
            "Total blockers": int(t["n_blockers"].sum()),
        }
        for n, count in t["n_blockers"].value_counts().sort_index().items():
            col[f"Tasks with {n} blocker{'s' if n != 1 else ''}"] = int(count)
        types = b["type"].astype(object).fillna("(no type)").value_counts()
        for name, count in types.sort_index().items():
            col[f"{name}"] = int(count)
            col[f"{name} (%)"] = 100 * count / len(b)
        columns[suite] = col
    order = list(dict.fromkeys(k for col in columns.values() for k in col))
    head = ["Tasks", "Avg. blockers / task", "Total blockers"]
    counts = sorted((k for k in order if k.startswith("Tasks with ")), key=lambda k: int(k.split()[2]))  # 2 before 10
    types = sorted(k for k in order if k not in head and k not in counts)
    # a suite without tasks of some blocker count or type has none of them: 0, not a missing value
    out = pd.DataFrame(columns).reindex([*head, *counts, *types]).fillna(0)
    return out.rename_axis("statistic").reset_index()


@as_table
def ambiguity_classes(rs: RunSet) -> pd.DataFrame:
    """Classify each variant by its no-tool trials' terminal states (LHAW Definition 3.1).

    Returns
    -------
    pandas.DataFrame
        :func:`ambiglib.metrics.ambiguity_classes` with a leading ``benchmark`` column, for every
        benchmark with no-tool runs on ambiguous variants that record checkpoints.
    """
    return _per_benchmark(rs, SHAPES["terminal_states"], lambda sub, conv: metrics.ambiguity_classes(sub),
                          columns=["suite", "model", "variant_id", "n_trials", "n_successes", "n_terminal_states",
                                   "ambiguity_class"])


@as_table
def variant_distribution(rs: RunSet) -> pd.DataFrame:
    """Tabulate the benchmark's variants per suite: unique tasks, ambiguity classes and information dimensions (LHAW Figure 3).

    Dimensions are counted per removed segment, as LHAW does (a variant with two segments of
    different dimensions counts under both). Built from the task records of ambiguous variants.

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, n_variants, n_tasks``, a count per ambiguity class (``outcome-critical,
        divergent, benign, new-task``) and per dimension (``goal, constraint, input, context`` and any
        other), and ``n_dimension_instances``, for every benchmark whose task records name an ambiguity
        class or dimensions.
    """
    return _per_benchmark(rs, SHAPES["ambiguity_class"], lambda sub, conv: _variant_distribution(sub),
                          columns=["suite", "n_variants", "n_tasks"])


def _variant_distribution(rs: RunSet) -> pd.DataFrame:
    tasks = rs.tasks[(rs.tasks["variant_id"].astype(object) != rs.tasks["task_id"].astype(object))
                     | rs.tasks["ambiguity_class"].notna()]
    suite = tasks["suite"].astype(object)
    out = pd.DataFrame({"n_variants": tasks.groupby(suite)["variant_id"].nunique(),
                        "n_tasks": tasks.groupby(suite)["task_id"].nunique()})
    classes = pd.crosstab(suite, tasks["ambiguity_class"].astype(object))
    classes = classes.reindex(columns=["outcome-critical", "divergent", "benign", "new-task"], fill_value=0)
    dims = [(s, str(d)) for s, ds in zip(suite, tasks["dimensions"]) if isinstance(ds, (list, tuple, np.ndarray))
            for d in ds]
    known = ["goal", "constraint", "input", "context"]
    counts = pd.DataFrame(dims, columns=["suite", "dimension"]).value_counts().unstack(fill_value=0) \
        if dims else pd.DataFrame(index=out.index)
    counts = counts.reindex(columns=known + sorted(set(counts.columns) - set(known)), fill_value=0)
    out = out.join(classes).join(counts).fillna(0)
    out["n_dimension_instances"] = counts.sum(axis=1).reindex(out.index).fillna(0)
    out = out.astype(int)
    out.index.name = "suite"
    return out.reset_index()


@as_table
def coverage(rs: RunSet) -> pd.DataFrame:
    """Count every cell's runs, the tasks missing from it, and its excluded error runs.

    A cell is (benchmark, suite, model, spec, ask_tool, policy, protocol); a task is
    missing from a cell when another cell of the same benchmark and suite has it.

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, spec, ask_tool, policy, protocol, n_runs, n_tasks,
        n_missing_tasks, n_error, n_invalid, n_timeout, trials_per_task``.
    """
    runs = rs.runs.astype({c: object for c in ("benchmark", "suite", "model", "spec", "policy", "protocol",
                                                "variant_id", "status")})
    cell = ["benchmark", "suite", "model", "spec", "ask_tool", "policy", "protocol"]
    universe = runs.groupby(["benchmark", "suite"])["variant_id"].nunique()
    g = runs.groupby(cell, observed=True)
    out = pd.DataFrame({
        "n_runs": g.size(), "n_tasks": g["variant_id"].nunique(),
        "n_error": g["status"].apply(lambda s: int((s == "error").sum())),
        "n_invalid": g["status"].apply(lambda s: int((s == "invalid").sum())),
        "n_timeout": g["status"].apply(lambda s: int((s == "timeout").sum())),
    }).reset_index()
    out["n_missing_tasks"] = [universe[(b, s)] - n for b, s, n in zip(out["benchmark"], out["suite"], out["n_tasks"])]
    out["trials_per_task"] = out["n_runs"] / out["n_tasks"]
    return out[[*cell, "n_runs", "n_tasks", "n_missing_tasks", "n_error", "n_invalid", "n_timeout", "trials_per_task"]]


@as_table
def selector_accuracy(picks: pd.DataFrame | None, *, confidence: float = 0.95) -> pd.DataFrame:
    """Tabulate each inferability selector's accuracy with a Wilson interval (Ambig-DS Table 7).

    Parameters
    ----------
    picks : pandas.DataFrame or None
        The harness's ``inferability_audit.csv``: one row per (task, selector) with
        ``correct`` (0/1). It is not part of any run log; None gives an empty table whose
        note says so.

    Returns
    -------
    pandas.DataFrame
        ``selector, n, accuracy, accuracy_ci_low, accuracy_ci_high, ci_level, ci_method``; chance is 0.5. The
        interval is Wilson's (Ambig-DS Table 7), over tasks where a selector picked a task more than once.
    """
    if picks is None:
        out = pd.DataFrame(columns=["selector", "n", "accuracy", "accuracy_ci_low", "accuracy_ci_high"])
        out.attrs["note"] = ("no selector audit given (it is not in the run log: set the parameter selector_audit to"
                             " the Ambig-DS harness's inferability_audit.csv)")
        return out
    missing = [c for c in ("task", "selector", "correct") if c not in picks.columns]
    if missing:
        raise ValueError(f"selector_accuracy needs columns task, selector, correct (missing {missing})")
    g = picks.groupby("selector")["correct"]
    out = pd.DataFrame({"n": g.size(), "k": g.sum()}).reset_index()
    out["accuracy"] = out["k"] / out["n"]
    # a task picked more than once by a selector is one cluster: plain Wilson when each task is picked once
    per_task = picks.groupby(["selector", "task"], sort=False)["correct"].agg(k="sum", n="size").reset_index()
    out = _clustered_wilson_columns(out, ["selector"], "accuracy", per_task, "k", "n", confidence)
    return out.drop(columns="k")


@as_table
def composition(rs: RunSet) -> pd.DataFrame:
    """Tabulate what the run log holds per benchmark and suite: tasks, instances, models, runs (Ambig-DS Table 5 style).

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, n_tasks, n_instances`` (task × specification variants run),
        ``n_models, n_runs``.
    """
    runs = rs.runs.astype({c: object for c in ("benchmark", "suite", "task_id", "variant_id", "spec", "model")})
    if len(runs) == 0:
        out = pd.DataFrame(columns=["benchmark", "suite", "n_tasks", "n_instances", "n_models", "n_runs"])
        out.attrs["note"] = "no runs in this selection"
        return out
    g = runs.groupby(["benchmark", "suite"])
    return pd.DataFrame({
        "n_tasks": g["task_id"].nunique(),
        "n_instances": g.apply(lambda f: f[["variant_id", "spec"]].drop_duplicates().shape[0], include_groups=False),
        "n_models": g["model"].nunique(), "n_runs": g.size()}).reset_index()


@as_table
def power_analysis(rs: RunSet, *, deltas=(0.02, 0.05, 0.10), n_tasks=(20, 30, 51, 61, 100), alpha: float = 0.05,
                   n_sim: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Estimate how many tasks a one-sided Wilcoxon test needs to detect a drop of Δ under ambiguity.

    The spread of per-task differences (S_full − S_ambig) is taken from each benchmark's
    tasks scored both ways without the ask tool (pooled over its models and suites).

    Returns
    -------
    pandas.DataFrame
        ``benchmark, delta, sd, n_tasks, power``, for every benchmark with scored no-tool runs on
        both specifications of the same tasks.
    """
    out = _per_benchmark(rs, SHAPES["full_and_ambiguous"],
                         lambda sub, conv: _power_analysis(sub, deltas, n_tasks, alpha, n_sim, seed),
                         columns=["delta", "sd", "n_tasks", "power"])
    if len(out):
        grid = (f"the grid: drops Δ of {', '.join(f'{d:g}' for d in deltas)} (score points) × {', '.join(map(str, n_tasks))}"
                " tasks (51 and 61 are Ambig-DS's Objective and Target tracks); sd: the spread of this log's per-task"
                " differences (0.25 with fewer than two); each power the share of"
                f" {n_sim:,} simulated experiments (normal differences) with one-sided p < {alpha:g}. Power can dip"
                " as tasks are added: by simulation noise (about ±2·sqrt(p(1 − p)/n_sim)) and because scipy's"
                " Wilcoxon test is exact up to 50 tasks and a normal approximation above")
        out.attrs["note"] = f"{out.attrs['note']}; {grid}" if out.attrs.get("note") else grid
    return out


def _power_analysis(rs: RunSet, deltas, n_tasks, alpha: float, n_sim: int, seed: int) -> pd.DataFrame:
    work = _work(rs.filter(protocol="solve"))
    work = work[~work["error"] & ~work["ask_tool"]].dropna(subset=["score"])
    per = work.groupby(["suite", "model", "task_id", "spec"])["score"].mean().unstack("spec")
    diffs = (per["full"] - per["ambiguous"]).dropna() if {"full", "ambiguous"} <= set(per.columns) else pd.Series([])
    sd = float(diffs.std(ddof=1)) if len(diffs) > 1 else 0.25
    rows = []
    for delta in deltas:
        power = wilcoxon_power(delta, sd, list(n_tasks), alpha=alpha, n_sim=n_sim, seed=seed)
        rows += [{"delta": delta, "sd": sd, "n_tasks": n, "power": p} for n, p in zip(n_tasks, power)]
    return pd.DataFrame(rows)


@as_table
def calls_per_trial(rs: RunSet) -> pd.DataFrame:
    """Tabulate ask_user calls per with-tool trial by ambiguity class and persona or strategy (LHAW Figure 6).

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, ambiguity_class, policy, n_trials, calls_per_trial``, for every
        benchmark with task records giving an ambiguity class and ask-tool runs on ambiguous variants.
    """
    return _per_benchmark(rs, SHAPES["tool_pairs"] & SHAPES["ambiguity_class"], lambda sub, conv: _calls_per_trial(sub),
                          columns=["suite", "model", "ambiguity_class", "policy", "n_trials", "calls_per_trial"])


def _calls_per_trial(rs: RunSet) -> pd.DataFrame:
    lhaw = rs.filter(ask_tool=True, spec="ambiguous")
    runs = lhaw.runs[lhaw.runs["status"] != "error"]
    klass = lhaw.tasks.astype({"variant_id": object}).set_index("variant_id")["ambiguity_class"].astype(object)
    work = pd.DataFrame({"suite": runs["suite"].astype(str).to_numpy(), "model": runs["model"].astype(str).to_numpy(),
                         "ambiguity_class": runs["variant_id"].astype(object).map(klass).to_numpy(),
                         "policy": runs["policy"].astype(str).to_numpy(), "q": runs["n_questions"].astype(int).to_numpy()})
    work = work.dropna(subset=["ambiguity_class"])
    g = work.groupby(["suite", "model", "ambiguity_class", "policy"])
    return pd.DataFrame({"n_trials": g.size(), "calls_per_trial": g["q"].mean()}).reset_index()
