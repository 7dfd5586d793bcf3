"""Paper-shaped tables, built only from the frames, ``metrics`` and ``stats``.

Each function returns a DataFrame laid out like the printed table it reproduces;
the table is named in the docstring.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from typing import Callable, Mapping, Sequence

from .comparisons import paired_comparison
from .harness import harness_anomalies, harness_summary
from .runset import RunSet
from .schema import DEFAULT_POLICY
from .shapes import SHAPES, Conventions, Shape, applicable_parts, conventions_for, label_prefix, labels_of

__all__ = ["harness_summary", "harness_anomalies", "blocker_stats", "performance", "framing_categories", "conditional_scores", "recognition_audit",
           "ask_calibration", "judgment_gap", "questions_per_task", "value_of_information", "by_ambiguity_class",
           "personas", "convention_audit", "coverage", "model_comparison", "ask_diagnostics", "by_dimension",
           "segments_removed", "generality", "prompting_strategies", "removal_strategies", "ask_failure_modes",
           "failure_modes", "leaderboard", "selector_accuracy", "judge_reliability", "composition", "power_analysis",
           "calls_per_trial", "ambiguity_classes", "paired_comparison", "pass_rates", "failure_mode_shift",
           "ask_failure_flags", "variant_distribution"]

#: ``conventions=`` of every table: benchmark name → the paper whose conventions it follows
#: (``"hil-bench"``, ``"ambig-ds"``, ``"lhaw"`` or ``"neutral"``); see :mod:`ambiglib.shapes`.
ConventionsArg = Mapping[str, str] | None


def _per_benchmark(rs: RunSet, shape: Shape, build: Callable[[RunSet, Conventions], pd.DataFrame], *,
                   conventions: ConventionsArg = None, columns: Sequence[str] = ()) -> pd.DataFrame:
    """``build`` on each benchmark of ``rs`` that has ``shape``, with a leading ``benchmark`` column.

    With no such benchmark the table is empty (``columns``) and ``attrs["note"]`` says what the
    log lacks ("no runs with registered blockers and the ask tool in this log").
    """
    parts = []
    for bench, sub in applicable_parts(rs, shape):
        out = build(sub, conventions_for(bench, conventions))
        if len(out):
            out = out.drop(columns="benchmark", errors="ignore")
            out.insert(0, "benchmark", bench)
            parts.append(out)
    if parts:
        return pd.concat(parts, ignore_index=True)
    out = pd.DataFrame(columns=["benchmark", *[c for c in columns if c != "benchmark"]])
    out.attrs["note"] = shape.note
    return out



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
    return _per_benchmark(rs, SHAPES["blockers"], lambda sub, conv: _blocker_stats(sub),
                          columns=["statistic", "Total"])


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
            col[f"Tasks with {n} blockers"] = int(count)
        types = b["type"].astype(object).fillna("(no type)").value_counts()
        for name, count in types.sort_index().items():
            col[f"{name}"] = int(count)
            col[f"{name} (%)"] = 100 * count / len(b)
        columns[suite] = col
    order = list(dict.fromkeys(k for col in columns.values() for k in col))
    head = ["Tasks", "Avg. blockers / task", "Total blockers"]
    counts = sorted(k for k in order if k.startswith("Tasks with "))
    types = sorted(k for k in order if k not in head and k not in counts)
    out = pd.DataFrame(columns).reindex([*head, *counts, *types])
    return out.rename_axis("statistic").reset_index()


# ============================================================================= shared


def _condition(spec: str, ask_tool: bool) -> str:
    return {("full", False): "Full", ("ambiguous", False): "Ambig.", ("ambiguous", True): "Ask",
            ("full", True): "Full + ask"}[(spec, bool(ask_tool))]


def _wide(frame: pd.DataFrame, index: list[str], column: str, value: str, order: list | None = None) -> pd.DataFrame:
    wide = frame.pivot(index=index, columns=column, values=value)
    if order:
        wide = wide.reindex(columns=[c for c in order if c in wide.columns] +
                            [c for c in wide.columns if c not in order])
    wide.columns = [str(c) for c in wide.columns]
    return wide.reset_index()


# ============================================================================= Ambig-DS


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
    from . import metrics

    def build(sub: RunSet, conv: Conventions) -> pd.DataFrame:
        parts = [metrics.performance(runs, n_boot=n_boot, seed=seed).assign(policy=policy)
                 for policy, runs in _per_tool_policy(sub.filter(protocol="solve"))]
        out = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
        return out[["suite", "model", "policy", *[c for c in out.columns if c not in ("suite", "model", "policy")]]] \
            if len(out) else out

    return _per_benchmark(rs, SHAPES["three_conditions"], build,
                          columns=["suite", "model", "policy", "n_tasks", "s_full", "s_ambig", "s_ask"])


def _per_tool_policy(rs: RunSet):
    """(policy, runs) per ask policy of the with-tool runs: that policy's with-tool runs with the
    no-tool runs of the same policy where there are any (LHAW's prompting strategies also run
    without the tool), else with the no-tool runs of the default policy (LHAW's personas share
    them; HIL-Bench and Ambig-DS have only those)."""
    runs = rs.runs
    tool = runs["ask_tool"].to_numpy(dtype=bool, na_value=False)
    policy = runs["policy"].astype(object).to_numpy()
    model = runs["model"].astype(object).to_numpy()
    no_tool_policies = set(policy[~tool])
    for p in sorted(set(policy[tool])):
        base = p if p in no_tool_policies else DEFAULT_POLICY
        ran = np.isin(model, sorted(set(model[tool & (policy == p)])))  # only the models run with this policy
        keep = ran & ((tool & (policy == p)) | (~tool & (policy == base)))
        yield p, rs._with_run_ids_of(keep)


def framing_categories(rs: RunSet) -> pd.DataFrame:
    """Tabulate the share of runs in each framing category per model and condition (Ambig-DS Tables 2 and 3).

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, condition, n_runs``, then one column per category (share of
        the cell's runs): intended, alternative, degenerate, invalid, timeout, and any other.
        Every benchmark whose solve runs carry a ``category`` gets rows.
    """
    return _per_benchmark(rs, SHAPES["categories"], lambda sub, conv: _framing(sub),
                          columns=["suite", "model", "condition", "n_runs"])


def _policy_condition(spec: str, ask_tool: bool, policy: str) -> str:
    return _condition(spec, ask_tool) + ("" if policy in ("default", "permissive") else f" ({policy})")


def _framing(rs: RunSet) -> pd.DataFrame:
    from . import metrics

    shares = metrics.category_shares(rs.filter(protocol="solve"), by=("suite", "model", "spec", "ask_tool", "policy"))
    shares["condition"] = list(map(_policy_condition, shares["spec"], shares["ask_tool"], shares["policy"]))
    wide = _wide(shares, ["suite", "model", "condition", "n_runs"], "category", "share",
                 list(metrics.CATEGORY_ORDER))
    return wide.sort_values(["suite", "model", "condition"]).reset_index(drop=True)


def conditional_scores(rs: RunSet) -> pd.DataFrame:
    """Tabulate the mean score of the runs in each framing category (Ambig-DS Table 11).

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, condition, full_mean`` (the model's mean score on the fully
        specified tasks without the tool, Table 11's "Full mean": per task, then over tasks; null
        without such runs), then the mean score per category (null where no run), for every
        benchmark whose solve runs carry a ``category``.
    """
    from . import metrics

    def build(sub: RunSet, conv: Conventions) -> pd.DataFrame:
        solve = sub.filter(protocol="solve")
        cond = metrics.conditional_scores(solve, by=("suite", "model", "spec", "ask_tool", "policy"))
        cond["condition"] = list(map(_policy_condition, cond["spec"], cond["ask_tool"], cond["policy"]))
        wide = _wide(cond, ["suite", "model", "condition"], "category", "mean_score", list(metrics.CATEGORY_ORDER))
        full = metrics._work(solve.filter(spec="full", ask_tool=False))
        full = full[~full["error"]].dropna(subset=["score"])
        full_mean = full.groupby(["suite", "model", "task_id"])["score"].mean().groupby(["suite", "model"]).mean()
        wide.insert(3, "full_mean", wide.join(full_mean.rename("full_mean"), on=["suite", "model"])["full_mean"])
        return wide.sort_values(["suite", "model", "condition"]).reset_index(drop=True)

    return _per_benchmark(rs, SHAPES["categories"], build, columns=["suite", "model", "condition", "full_mean"])


def recognition_audit(rs: RunSet, *, facet: str = "trace") -> pd.DataFrame:
    """Tabulate the judges' majority labels of one facet per model and condition (Ambig-DS Table 10).

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, condition, n_runs``, then one column per label (share of
        judged ``ok`` runs); a ``tie`` column counts runs whose calls tied. Every benchmark
        whose solve runs have labels of ``facet`` gets rows.
    """
    from . import metrics

    def build(sub: RunSet, conv: Conventions) -> pd.DataFrame:
        solve = sub.filter(protocol="solve")
        if not (solve.labels["facet"].astype(object) == facet).any():
            return pd.DataFrame()
        shares = metrics.label_shares(solve, facet=facet, by=("suite", "model", "spec", "ask_tool", "policy"))
        shares["label"] = shares["label"].fillna("tie")
        shares["condition"] = list(map(_policy_condition, shares["spec"], shares["ask_tool"], shares["policy"]))
        wide = _wide(shares, ["suite", "model", "condition", "n_runs"], "label", "share")
        return wide.sort_values(["suite", "model", "condition"]).reset_index(drop=True)

    return _per_benchmark(rs, labels_of(facet), build, columns=["suite", "model", "condition", "n_runs"])


def ask_calibration(rs: RunSet, *, ci: bool = False, n_boot: int = 10_000, seed: int = 0,
                    conventions: ConventionsArg = None) -> pd.DataFrame:
    """Tabulate ask rates and CalibScore per model and ask policy on the ask-only runs (Ambig-DS Table 13).

    Applies to every benchmark with ask-tool runs on both fully specified and ambiguous tasks;
    under Ambig-DS's conventions only its ask-only runs count, otherwise each protocol is a row.

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, policy, protocol, n_ambiguous, n_full, ask_on_ambiguous, ask_on_full,
        calib_score`` (+ intervals with ``ci``), rates as fractions.
    """
    from . import metrics

    def build(sub: RunSet, conv: Conventions) -> pd.DataFrame:
        sub = sub.filter(protocol=conv.calibration_protocol)
        return metrics.ask_calibration(sub, by=("suite", "model", "policy", "protocol"), ci=ci, n_boot=n_boot,
                                       seed=seed).drop(columns="n_excluded")

    return _per_benchmark(rs, SHAPES["calibration"], build, conventions=conventions,
                          columns=["suite", "model", "policy", "protocol", "n_ambiguous", "n_full", "ask_on_ambiguous",
                                   "ask_on_full", "calib_score"])


# ============================================================================= HIL-Bench


def judgment_gap(rs: RunSet, *, k: int = 3, ci: bool = False, n_boot: int = 10_000, seed: int = 0,
                 conventions: ConventionsArg = None) -> pd.DataFrame:
    """Tabulate pass@k with full information and with the ask tool, the gap, and Ask-F1 (HIL-Bench Table 1).

    Applies to every benchmark with registered blockers and ask-tool solve runs; one row per
    ask policy of the with-tool runs (the full-information runs, without the tool, are
    shared by every policy).

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, policy, pass_at_k_full_info, pass_at_k_no_tool, pass_at_k_with_tool,
        gap_pp, recall, precision, ask_f1`` (+ intervals with ``ci``); ``pass_at_k_no_tool`` is the
        ambiguous task without the tool (HIL-Bench Figure 1A's "No Tool", Tables 4–6's "baseline"),
        null where there are no such runs. pass@k is HIL-Bench's "any of the first k" under its
        conventions, the unbiased estimator otherwise.
    """
    from . import metrics

    def build(sub: RunSet, conv: Conventions) -> pd.DataFrame:
        sub = sub.filter(protocol="solve")
        out = _three_pass_rates(sub, k, conv.pass_estimator, ("suite", "model"))
        f1 = metrics.ask_f1(sub, by=("suite", "model", "policy"), ci=ci, n_boot=n_boot, seed=seed)
        out = out.merge(f1[["suite", "model", "policy"]], on=["suite", "model", "policy"], how="outer")
        out["policy"] = out["policy"].fillna("–")  # full-information runs of a model never run with the tool
        out["gap_pp"] = 100 * (out["pass_at_k_with_tool"] - out["pass_at_k_full_info"])
        keep = [c for c in f1.columns if c.startswith(("recall", "precision", "ask_f1"))]
        return out.merge(f1[["suite", "model", "policy", *keep]], on=["suite", "model", "policy"], how="left") \
            .sort_values(["suite", "model", "policy"]).reset_index(drop=True)

    return _per_benchmark(rs, SHAPES["blockers_and_tool"], build, conventions=conventions,
                          columns=["suite", "model", "policy", "pass_at_k_full_info", "pass_at_k_no_tool",
                                   "pass_at_k_with_tool", "gap_pp", "recall", "precision", "ask_f1"])


PASS_RATE_COLUMNS = ["pass_at_k_full_info", "pass_at_k_no_tool", "pass_at_k_with_tool"]


def _three_pass_rates(sub: RunSet, k: int, estimator: str, by: tuple[str, ...]) -> pd.DataFrame:
    """pass@k with full information, on the ambiguous task without the tool and with it, per ``by`` and the
    with-tool runs' policy. The full-information runs are shared by every policy; a policy without no-tool
    runs of its own shares the default policy's (LHAW Table 10's strategies each have their own). A model
    with no with-tool runs gets one row, policy "–"."""
    keys, by = [*by, "policy"], list(by)

    def cell(spec: str, ask_tool: bool, group: list[str], name: str) -> pd.DataFrame:
        rates = _pass_by_policy(sub.filter(spec=spec, ask_tool=ask_tool), k, estimator, tuple(group))
        return rates[[*group, "pass_at_k"]].rename(columns={"pass_at_k": name})

    out = cell("ambiguous", True, keys, "pass_at_k_with_tool")
    no_tool = cell("ambiguous", False, keys, "pass_at_k_no_tool")
    shared = no_tool[no_tool["policy"] == DEFAULT_POLICY].drop(columns="policy")
    full = cell("full", False, by, "pass_at_k_full_info")
    out = out.merge(no_tool, on=keys, how="left").merge(full, on=by, how="left")
    out["pass_at_k_no_tool"] = out["pass_at_k_no_tool"].fillna(out[by].merge(shared, on=by, how="left")["pass_at_k_no_tool"])
    # a model that never ran with the tool: one row of its conditions without it
    rest = full.merge(shared, on=by, how="outer")
    rest = rest[~rest.set_index(by).index.isin(out.set_index(by).index)]
    out = pd.concat([out, rest], ignore_index=True)
    out["policy"] = out["policy"].fillna("–")
    return out[[*keys, *PASS_RATE_COLUMNS]]


def pass_rates(rs: RunSet, *, k: int = 3, conventions: ConventionsArg = None) -> pd.DataFrame:
    """Tabulate pass@k with full information, without the ask tool and with it, per model (HIL-Bench Figure 1A).

    ``scope="combined"`` pools every suite's tasks (HIL-Bench's SWE and SQL), then one row per
    suite. Applies to every benchmark with pass/fail solve runs.

    Returns
    -------
    pandas.DataFrame
        ``benchmark, model, policy, scope, pass_at_k_full_info, pass_at_k_no_tool, pass_at_k_with_tool``
        (null where a condition has no runs); pass@k is HIL-Bench's "any of the first k" under its
        conventions, the unbiased estimator otherwise.

    References
    ----------
    HIL-Bench Figure 1A (its with-tool bars are Table 8's combined P@3).
    """
    def build(sub: RunSet, conv: Conventions) -> pd.DataFrame:
        sub = sub.filter(protocol="solve")
        combined = _three_pass_rates(sub, k, conv.pass_estimator, ("model",)).assign(scope="combined")
        per_suite = _three_pass_rates(sub, k, conv.pass_estimator, ("suite", "model"))
        out = pd.concat([combined, per_suite.rename(columns={"suite": "scope"})], ignore_index=True)
        order = {"combined": 0}
        return out[["model", "policy", "scope", *PASS_RATE_COLUMNS]].sort_values(
            ["model", "policy", "scope"], key=lambda c: c.map(lambda v: order.get(v, 1)) if c.name == "scope" else c
        ).reset_index(drop=True)

    return _per_benchmark(rs, SHAPES["pass_outcomes"], build, conventions=conventions,
                          columns=["model", "policy", "scope", *PASS_RATE_COLUMNS])


def _pass_by_policy(rs: RunSet, k: int, estimator: str, by: tuple[str, ...]) -> pd.DataFrame:
    from . import metrics

    if len(rs.runs) == 0:
        return pd.DataFrame(columns=[*by, "pass_at_k"])
    return metrics.pass_at_k(rs, k=k, by=by, estimator=estimator)


def questions_per_task(rs: RunSet) -> pd.DataFrame:
    """Tabulate how many questions each model asks per task, and how many are relevant (HIL-Bench Table 7).

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, policy, n_runs, share_asking, questions_per_run, relevant_per_run,
        questions_per_asking_run, max_questions`` over ask-tool runs on ambiguous tasks, for every
        benchmark with registered blockers and such runs.
    """
    return _per_benchmark(rs, SHAPES["blockers_and_tool"], lambda sub, conv: _questions_per_task(sub.filter(protocol="solve")),
                          columns=["suite", "model", "policy", "n_runs", "share_asking", "questions_per_run",
                                   "relevant_per_run", "questions_per_asking_run", "max_questions"])


def _questions_per_task(rs: RunSet) -> pd.DataFrame:
    hil = rs.filter(spec="ambiguous", ask_tool=True)
    runs = hil.runs[hil.runs["status"] != "error"]
    rel = hil.questions[hil.questions["relevant"].astype(bool)].groupby("run_id").size()
    work = pd.DataFrame({"suite": runs["suite"].astype(str), "model": runs["model"].astype(str),
                         "policy": runs["policy"].astype(str), "q": runs["n_questions"].astype(int),
                         "rel": runs["run_id"].map(rel).fillna(0).astype(int)})
    g = work.groupby(["suite", "model", "policy"])
    out = pd.DataFrame({
        "n_runs": g.size(), "share_asking": g["q"].apply(lambda s: (s > 0).mean()),
        "questions_per_run": g["q"].mean(), "relevant_per_run": g["rel"].mean(),
        "questions_per_asking_run": g["q"].apply(lambda s: s[s > 0].mean() if (s > 0).any() else float("nan")),
        "max_questions": g["q"].max(),
    })
    return out.reset_index()


# ============================================================================= LHAW


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
        ``benchmark, suite, model, policy, base_pass_at_k, base_mean_score, ask_pct`` (the variant-level rate the
        paper prints), ``avg_per_traj, pass_at_k, pass_gain_pp, pass_gain_pp_per_question,
        mean_score, score_gain_pp, score_gain_pp_per_question`` (scores without the tool, as
        printed, with the gain), ``n_variants``.
    """
    from . import metrics

    cols = ["suite", "model", "policy", "base_pass_at_k", "base_mean_score", "ask_pct", "avg_per_traj", "pass_at_k",
            "pass_gain_pp", "pass_gain_pp_per_question", "mean_score", "score_gain_pp", "score_gain_pp_per_question",
            "n_variants"]

    def build(sub: RunSet, paired_: bool) -> pd.DataFrame:
        voi = metrics.value_of_information(sub, by=("suite", "model", "policy"), k=k, paired=paired_,
                                           ci=ci, n_boot=n_boot, seed=seed)
        voi["ask_pct"] = 100 * voi["variant_ask_rate"]
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


def _voi_by_group(rs: RunSet, groups: "pd.DataFrame", column: str, *, k: int = 3,
                  paired: bool = True) -> pd.DataFrame:
    """value_of_information per value of ``column`` (a property of LHAW variants), with each
    group's fully specified runs on its variants' original tasks as the baseline."""
    from . import metrics

    rows = []
    for value, group in groups.groupby(column, sort=True):
        keep = sorted(set(group["variant_id"]) | set(group["task_id"]))  # full runs: variant_id == task_id
        sub = rs.filter(variant_id=keep)
        if len(sub.runs) == 0:
            continue
        voi = metrics.value_of_information(sub, by=("suite", "model", "policy"), k=k, paired=paired)
        rows.append(voi.assign(**{column: value}))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()


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
        score_gain_pp, ask_pct, avg_per_traj``, for every benchmark with task records giving an
        ambiguity class and runs with and without the tool on the same variants.
    """
    cols = ["suite", "model", "policy", "ambiguity_class", "n_variants", "base_pass_at_k", "pass_at_k",
            "pass_at_k_with_tool", "pass_gain_pp", "mean_score", "score_gain_pp", "ask_pct", "avg_per_traj"]
    return _voi(rs, SHAPES["tool_pairs"] & SHAPES["ambiguity_class"],
                lambda sub, paired_: _by_ambiguity_class(sub, cols, k, paired_), paired, conventions, cols)


def _by_ambiguity_class(lhaw: RunSet, cols: list[str], k: int, paired: bool) -> pd.DataFrame:
    groups = lhaw.tasks[["suite", "task_id", "variant_id", "ambiguity_class"]].astype(object).dropna()
    out = _voi_by_group(lhaw, groups, "ambiguity_class", k=k, paired=paired)
    if len(out) == 0:
        return pd.DataFrame(columns=cols)
    out["ask_pct"] = 100 * out["variant_ask_rate"]
    order = {c: i for i, c in enumerate(("outcome-critical", "divergent", "benign", "new-task"))}
    return out[cols].sort_values(["suite", "model", "policy", "ambiguity_class"],
                                 key=lambda s: s.map(order) if s.name == "ambiguity_class" else s).reset_index(drop=True)


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


OWN_AGENT = ("default", "original")  # each model's own agent: no persona or strategy (LHAW's "Original")


def _own_agents(frame: pd.DataFrame, policies: "tuple[str, ...] | None" = OWN_AGENT) -> pd.DataFrame:
    """The rows of each model's own agent, as LHAW's cross-model tables and figures show (Table 13,
    Figure 4); all rows when there are none of them, or with ``policies=None``."""
    if policies is None or "policy" not in frame or not frame["policy"].isin(policies).any():
        return frame
    return frame[frame["policy"].isin(policies)]


def generality(rs: RunSet, *, k: int = 3, paired: bool | None = None, conventions: ConventionsArg = None) -> pd.DataFrame:
    """Average pass@k over models per benchmark: original tasks, underspecified, with the tool (LHAW Table 13).

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, n_models, base_pass_at_k, pass_at_k, pass_at_k_with_tool`` (model
        averages), for every benchmark with runs with and without the tool on the same variants.
    """
    from . import metrics

    def build(sub: RunSet, paired_: bool) -> pd.DataFrame:
        voi = _own_agents(metrics.value_of_information(sub, by=("suite", "model", "policy"), k=k, paired=paired_))
        g = voi.groupby("suite")
        return pd.DataFrame({"n_models": g["model"].nunique(), "base_pass_at_k": g["base_pass_at_k"].mean(),
                             "pass_at_k": g["pass_at_k"].mean(),
                             "pass_at_k_with_tool": g["pass_at_k_with_tool"].mean()}).reset_index()

    return _voi(rs, SHAPES["tool_pairs"], build, paired, conventions,
                ["suite", "n_models", "base_pass_at_k", "pass_at_k", "pass_at_k_with_tool"])


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
        score_gain_pp, ask_pct`` (share of with-tool trials that asked, as Table 10 says), ``avg_per_traj``;
        for every benchmark with runs with and without the tool on the same variants (its task
        records' ambiguity classes, if any, add rows per class).
    """
    cols = ["suite", "model", "ambiguity_class", "policy", "n_variants", "pass_at_k", "pass_gain_pp", "mean_score",
            "score_gain_pp", "ask_pct", "avg_per_traj"]
    return _voi(rs, SHAPES["tool_pairs"], lambda sub, p: _prompting_strategies(sub, cols, k, p), paired, conventions,
                cols)


def _prompting_strategies(lhaw: RunSet, cols: list[str], k: int, paired: bool) -> pd.DataFrame:
    tasks = lhaw.tasks[["suite", "task_id", "variant_id", "ambiguity_class"]].astype(object)
    groups = pd.concat([tasks.assign(ambiguity_class="overall"), tasks.dropna(subset=["ambiguity_class"])])
    out = _voi_by_group(lhaw, groups, "ambiguity_class", k=k, paired=paired)
    if len(out) == 0:
        return pd.DataFrame(columns=cols)
    out["ask_pct"] = 100 * out["ask_rate"]
    order = {c: i for i, c in enumerate(("overall", "outcome-critical", "divergent", "benign", "new-task"))}
    return out[cols].sort_values(["suite", "model", "ambiguity_class", "policy"],
                                 key=lambda s: s.map(order) if s.name == "ambiguity_class" else s).reset_index(drop=True)


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
    from . import metrics

    strategy = lhaw.tasks[["variant_id", "strategy"]].astype(object).dropna().set_index("variant_id")["strategy"]
    classes = metrics.ambiguity_classes(lhaw)
    classes["strategy"] = classes["variant_id"].astype(object).map(strategy)
    classes = classes.dropna(subset=["strategy"])
    if len(classes) == 0:
        return pd.DataFrame(columns=["suite", "model", "strategy", "n_variants", "pass_at_k"])
    n, c = classes["n_trials"].to_numpy(int), classes["n_successes"].to_numpy(int)
    classes["pass_at_k"] = [metrics._pass_at_k_unbiased(np.array([a]), np.array([b]), k)[0] if a >= k else np.nan
                            for a, b in zip(n, c)]
    counts = classes.pivot_table(index=["suite", "model", "strategy"], columns="ambiguity_class", values="n_trials",
                                 aggfunc="count", fill_value=0)
    counts = counts.reindex(columns=["outcome-critical", "divergent", "benign", "new-task"], fill_value=0)
    g = classes.groupby(["suite", "model", "strategy"])
    out = pd.DataFrame({"n_variants": g.size(), "pass_at_k": g["pass_at_k"].mean()}).join(counts)
    out.columns = [str(c) for c in out.columns]
    return out.reset_index()


def ambiguity_classes(rs: RunSet) -> pd.DataFrame:
    """Classify each variant by its no-tool trials' terminal states (LHAW Definition 3.1).

    Returns
    -------
    pandas.DataFrame
        :func:`ambiglib.metrics.ambiguity_classes` with a leading ``benchmark`` column, for every
        benchmark with no-tool runs on ambiguous variants that record checkpoints.
    """
    from . import metrics

    return _per_benchmark(rs, SHAPES["terminal_states"], lambda sub, conv: metrics.ambiguity_classes(sub),
                          columns=["suite", "model", "variant_id", "n_trials", "n_successes", "n_terminal_states",
                                   "ambiguity_class"])


#: LHAW Table 4's categories; a trial's flag facets are named ``lhaw.<category>.<flag>`` (docs/metrics.md)
LHAW_FAILURE_CATEGORIES = ("question_quality", "question_targeting", "information_integration", "over_clarification",
                           "under_clarification", "timing_strategy", "response_misinterpretation")


def ask_failure_modes(rs: RunSet, *, failed_only: bool = False) -> pd.DataFrame:
    """Tabulate the share of asking trials flagged in each failure category (LHAW Table 4; Table 17 with ``failed_only``).

    A trial counts in a category when any of its flags ``lhaw.<category>.<flag>`` is ``YES``
    (majority of its calls); the denominator is the trials with at least one question
    (and, with ``failed_only``, that did not pass).

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, policy, n_trials``, then one column per category (share of trials),
        for every benchmark with judge labels named ``lhaw.<category>.<flag>``; only groups with judged
        asking trials get a row.
    """
    return _per_benchmark(rs, LHAW_FLAGS, lambda sub, conv: _ask_failure_modes(sub, failed_only),
                          columns=["suite", "model", "policy", "n_trials"])


LHAW_FLAGS = label_prefix("lhaw.", "judge labels of LHAW's ask_user failure flags (facets lhaw.<category>.<flag>)")


def _ask_failure_modes(lhaw: RunSet, failed_only: bool) -> pd.DataFrame:
    from . import metrics

    if failed_only:
        lhaw = lhaw.filter(passed=False)
    facets = sorted(set(lhaw.labels["facet"].astype(str).unique()))
    categories = {c: [f for f in facets if f.startswith(f"lhaw.{c}.")] for c in LHAW_FAILURE_CATEGORIES}
    categories = {c: fs for c, fs in categories.items() if fs}
    if not categories:
        return pd.DataFrame(columns=["suite", "model", "policy", "n_trials"])
    shares = metrics.flag_shares(lhaw, categories=categories, by=("suite", "model", "policy"))
    wide = shares.pivot(index=["suite", "model", "policy", "n_trials"], columns="category", values="share")
    wide = wide.reindex(columns=[c for c in LHAW_FAILURE_CATEGORIES if c in wide.columns])
    wide.columns = [str(c) for c in wide.columns]
    return wide.reset_index()


def ask_failure_flags(rs: RunSet, *, by: str = "ambiguity_class", failed_only: bool = False) -> pd.DataFrame:
    """Tabulate the share of asking trials flagged with each ask_user failure flag, per ambiguity class (LHAW Figure 5).

    Every flag of every category (``lhaw.<category>.<flag>``), majority label ``YES``; the denominator
    is the trials with at least one question (and, with ``failed_only``, that did not pass), per
    model, policy and the variant's ``ambiguity_class`` (``by=None``: all classes together).

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, policy, ambiguity_class, category, flag, n, share, n_trials``: one
        row per flag, for every benchmark with judge labels named ``lhaw.<category>.<flag>``.
    """
    if by not in ("ambiguity_class", None):
        raise ValueError(f"by must be 'ambiguity_class' or None (got {by!r})")
    cols = ["suite", "model", "policy", "ambiguity_class", "category", "flag", "n", "share", "n_trials"]
    return _per_benchmark(rs, LHAW_FLAGS, lambda sub, conv: _ask_failure_flags(sub, by, failed_only), columns=cols)


def _ask_failure_flags(lhaw: RunSet, by: str | None, failed_only: bool) -> pd.DataFrame:
    from . import metrics

    if failed_only:
        lhaw = lhaw.filter(passed=False)
    facets = sorted(f for f in set(lhaw.labels["facet"].astype(str).unique())
                    if f.startswith("lhaw.") and f.count(".") == 2)
    if not facets:
        return pd.DataFrame()
    parts = []
    classes = lhaw.tasks[["variant_id", "ambiguity_class"]].astype(object).dropna()
    groups = [("all", lhaw)] if by is None else [
        (name, lhaw.filter(variant_id=sorted(set(g["variant_id"])))) for name, g in classes.groupby("ambiguity_class")]
    for name, sub in groups:
        shares = metrics.flag_shares(sub, categories={f: [f] for f in facets}, by=("suite", "model", "policy"))
        parts.append(shares.assign(ambiguity_class=name))
    out = pd.concat(parts, ignore_index=True).rename(columns={"category": "facet"})
    out["category"] = out["facet"].str.split(".").str[1]
    out["flag"] = out["facet"].str.split(".").str[2]
    order = {c: i for i, c in enumerate(("outcome-critical", "divergent", "benign", "new-task", "all"))}
    out = out[out["n_trials"] > 0]
    return out[["suite", "model", "policy", "ambiguity_class", "category", "flag", "n", "share", "n_trials"]].sort_values(
        ["suite", "model", "policy", "ambiguity_class", "category", "flag"],
        key=lambda c: c.map(lambda v: order.get(v, 9)) if c.name == "ambiguity_class" else c).reset_index(drop=True)


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


# ============================================================================= HIL-Bench failure modes and leaderboard


def failure_modes(rs: RunSet, *, dimension: str = "tool_use", suite: str | None = None) -> pd.DataFrame:
    """Tabulate the failure-mode distribution within one capability dimension (HIL-Bench Tables 4–6).

    A run's mode is the majority of its ``failure.<dimension>`` labels; shares are over
    the runs with such a label (N), per suite, model and mode (baseline / ask_human /
    full_info; a with-tool policy other than the default is named after it). HIL-Bench
    prints SQL only: ``suite="sql"``.

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, mode, n``, then one column per failure mode (share of the N
        traces), for every benchmark with ``failure.<dimension>`` labels.
    """
    facet = f"failure.{dimension}"

    def build(sub: RunSet, conv: Conventions) -> pd.DataFrame:
        shares = _failure_shares(sub.filter(suite=suite), facet, ("suite", "model", "spec", "ask_tool", "policy"))
        if shares is None:
            return pd.DataFrame()
        wide = shares.pivot(index=["suite", "model", "mode", "n_runs"], columns="label", values="share").reset_index()
        wide.columns = [str(c) for c in wide.columns]
        return wide.rename(columns={"n_runs": "n"})

    return _per_benchmark(rs, labels_of(facet), build, columns=["suite", "model", "mode", "n"])


def _mode(spec: str, ask_tool: bool, policy: str) -> str:
    """HIL-Bench's name of a condition: baseline (ambiguous, no tool), ask_human, full_info."""
    return ({("ambiguous", False): "baseline", ("ambiguous", True): "ask_human",
             ("full", False): "full_info"}.get((spec, bool(ask_tool)), f"{spec}/{ask_tool}")
            + ("" if policy == DEFAULT_POLICY else f" ({policy})"))


def _failure_shares(sub: RunSet, facet: str, by: tuple[str, ...]) -> pd.DataFrame | None:
    """label_shares of one failure facet with a ``mode`` column (when ``by`` holds the conditions) and ties named."""
    from . import metrics

    if not (sub.labels["facet"].astype(object) == facet).any():
        return None
    shares = metrics.label_shares(sub, facet=facet, by=by)
    if "spec" in by:
        shares["mode"] = list(map(_mode, shares["spec"], shares["ask_tool"], shares["policy"]))
    shares["label"] = shares["label"].fillna("tie")
    return shares


def failure_mode_shift(rs: RunSet, *, dimension: str = "tool_use", between: str = "mode",
                       suite: str | None = None, pair: tuple[str, str] | None = None) -> pd.DataFrame:
    """Tabulate how the failure-mode distribution of one capability dimension shifts, in percentage points
    (HIL-Bench Figure 3B with ``between="mode"``, Figure 6 with ``between="suite"``).

    ``between="mode"``: per suite and model, each mode's share with the ask tool minus its share in the
    baseline (the ambiguous task without the tool): ``pair=("baseline", "ask_human")`` by default.
    ``between="suite"``: per model and condition, the second suite's share minus the first's (default: the
    benchmark's two suites in sorted order, HIL-Bench's SWE − SQL), in each condition and over all of the
    model's failure traces (``mode="all"``). Shares are of the runs labelled in that dimension (the N of
    HIL-Bench Tables 4–6); a mode absent on one side counts as 0%.

    Returns
    -------
    pandas.DataFrame
        ``between="mode"``: ``benchmark, suite, model, n_<first>, n_<second>``, then one column per
        failure mode (pp). ``between="suite"``: ``benchmark, model, mode, n_<first>, n_<second>``, then
        one column per failure mode (pp). Only groups with traces on both sides get a row.
    """
    if between not in ("mode", "suite"):
        raise ValueError(f"between must be 'mode' or 'suite' (got {between!r})")
    facet = f"failure.{dimension}"

    def build(sub: RunSet, conv: Conventions) -> pd.DataFrame:
        sub = sub.filter(suite=suite)
        shares = _failure_shares(sub, facet, ("suite", "model", "spec", "ask_tool", "policy"))
        if shares is None:
            return pd.DataFrame()
        if between == "mode":
            a, b = pair or ("baseline", "ask_human")
            return _shift(shares, ["suite", "model"], "mode", a, b)
        suites = sorted(set(shares["suite"].astype(str)))
        a, b = pair or (tuple(suites[:2]) if len(suites) >= 2 else (None, None))
        # every failure trace of the model in the suite, whatever the condition: counts pooled over conditions
        counts = shares.groupby(["suite", "model", "label"], as_index=False)["n"].sum()
        totals = shares.drop_duplicates(["suite", "model", "mode"]).groupby(["suite", "model"])["n_runs"].sum()
        pooled = counts.merge(totals.rename("n_runs").reset_index(), on=["suite", "model"]).assign(mode="all")
        pooled["share"] = pooled["n"] / pooled["n_runs"]
        both = pd.concat([shares.drop(columns=["spec", "ask_tool", "policy"]), pooled], ignore_index=True)
        return _shift(both, ["model", "mode"], "suite", a, b)

    return _per_benchmark(rs, labels_of(facet), build,
                          columns=["suite", "model"] if between == "mode" else ["model", "mode"])


def _shift(shares: pd.DataFrame, keys: list[str], side: str, a: str | None, b: str | None) -> pd.DataFrame:
    """Per ``keys``: share on side ``b`` minus share on side ``a`` of every label, in pp, with both sides' n."""
    shares = shares[shares[side].astype(str).isin([a, b])]
    if len(shares) == 0:
        return pd.DataFrame()
    wide = shares.pivot_table(index=[*keys, side], columns="label", values="share", aggfunc="first").fillna(0.0)
    n = shares.groupby([*keys, side])["n_runs"].first().unstack(side)
    diff = 100 * (wide.xs(b, level=side) - wide.xs(a, level=side)).dropna(how="all")
    out = n.rename(columns={a: f"n_{a}", b: f"n_{b}"}).join(diff, how="inner").dropna(subset=[f"n_{a}", f"n_{b}"])
    out[[f"n_{a}", f"n_{b}"]] = out[[f"n_{a}", f"n_{b}"]].astype(int)
    out.columns = [str(c) for c in out.columns]
    return out.reset_index()


def leaderboard(rs: RunSet, *, k: int = 3, conventions: ConventionsArg = None) -> pd.DataFrame:
    """Tabulate pass@k with ask_human, precision, recall and Ask-F1, pooled over SWE and SQL and per domain (HIL-Bench Table 8).

    Returns
    -------
    pandas.DataFrame
        ``benchmark, model, policy, scope`` (``combined``, then each suite), ``pass_at_k, precision,
        recall, ask_f1``, sorted by combined pass@k within each benchmark; for every benchmark with
        registered blockers and ask-tool runs.
    """
    from . import metrics

    def build(sub: RunSet, conv: Conventions) -> pd.DataFrame:
        sub = sub.filter(protocol="solve")
        tool = sub.filter(spec="ambiguous", ask_tool=True)
        rows = []
        for scope, by in (("combined", ("model", "policy")), ("per suite", ("suite", "model", "policy"))):
            p = metrics.pass_at_k(tool, k=k, by=by, estimator=conv.pass_estimator)
            f = metrics.ask_f1(sub, by=by)
            merged = p.merge(f, on=list(by))
            merged["scope"] = "combined" if scope == "combined" else merged["suite"]
            rows.append(merged[["model", "policy", "scope", "pass_at_k", "precision", "recall", "ask_f1"]])
        out = pd.concat(rows, ignore_index=True)
        rank = out[out["scope"] == "combined"].set_index(["model", "policy"])["pass_at_k"]
        out["_rank"] = -pd.Series(list(zip(out["model"], out["policy"])), index=out.index).map(rank)
        order = {"combined": 0, "swe": 1, "sql": 2}
        return out.sort_values(["_rank", "model", "policy", "scope"],
                               key=lambda s: s.map(lambda v: order.get(v, 3)) if s.name == "scope" else s) \
            .drop(columns="_rank").reset_index(drop=True)

    return _per_benchmark(rs, SHAPES["blockers_and_tool"], build, conventions=conventions,
                          columns=["model", "policy", "scope", "pass_at_k", "precision", "recall", "ask_f1"])


def personas(rs: RunSet, *, k: int = 3, paired: bool | None = None, conventions: ConventionsArg = None) -> pd.DataFrame:
    """Tabulate checkpoint score, questions and gain per question for each user persona (LHAW Table 14).

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, policy, mean_score`` (without the tool, shared by every persona),
        ``score_gain_pp, n_questions, score_gain_pp_per_question``, for every benchmark with runs
        with and without the tool on the same variants.
    """
    from . import metrics

    cols = ["suite", "model", "policy", "mean_score", "score_gain_pp", "n_questions", "score_gain_pp_per_question"]
    return _voi(rs, SHAPES["tool_pairs"],
                lambda sub, p: metrics.value_of_information(sub, by=("suite", "model", "policy"), k=k, paired=p)[cols],
                paired, conventions, cols)


# ============================================================================= beyond the papers


def convention_audit(rs: RunSet, *, harness: str | dict[str, str] | None = None,
                     summary: pd.DataFrame | None = None) -> pd.DataFrame:
    """Set each headline number under the paper's definition beside the harness's, with the difference.

    Rows: HIL-Bench precision, recall and Ask-F1 (paper: relevant questions over all valid runs;
    harness: ``summary_metrics.json`` as :func:`harness_summary` recomputes it — distinct blockers
    over trajectory questions, asking passes only, its pass filter and invalid-pass rules) and
    pass@3 (unbiased vs the harness's first 3 valid passes); LHAW Ask % (variants with an asking
    trial, as Table 3 prints, vs trials, as the text says) and the pass@3 gain with each condition
    scored over its own variants (as LHAW prints) vs over the variants with results in both
    (``paired=True``). ``anomalies`` lists what the importers flagged in that cell's harness output
    (:func:`harness_anomalies`: e.g. questions missing from the server log, one log entry pooling
    several passes).

    Rows come from the runs each harness wrote (``meta.harness``, set by the importers; a run
    log of the paper's own benchmark name counts as its harness's), or from the benchmarks
    ``harness`` maps to a harness, as in :func:`harness_summary`.

    ``summary``, when given, is ``harness_summary(rs, harness=harness)`` already computed (the
    conventions notebook shows it too): its rows are used instead of recomputing them, which on a
    large log is most of this table's time.

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, quantity, paper, harness, difference, anomalies``.
    """
    from . import metrics
    from .harness import _harness_of, _plain

    rows = []
    made_by = pd.Series(_harness_of(_plain(rs.runs[["benchmark", "meta"]]), harness), dtype=object)
    by_harness = {h: sorted(set(rs.runs["benchmark"].astype(object)[made_by.to_numpy() == h])) for h in ("hil-bench", "lhaw")}
    for bench in by_harness["hil-bench"]:
        hil = rs.filter(benchmark=bench)
        paper = metrics.ask_f1(hil).set_index(["suite", "model"])
        mine = harness_summary(hil, harness=harness) if summary is None else summary[summary["benchmark"] == bench]
        mine = mine[mine["condition"] == "ask_human"].set_index(["suite", "model", "statistic"])["value"]
        # a cell absent from the harness's summary (its pass filter left no attempt) has no harness number
        for (suite, model), p in paper.iterrows():
            for q, stat in (("precision", "ask_precision"), ("recall", "ask_recall"), ("ask_f1", "ask_f1")):
                rows.append((bench, suite, model, q, p[q], mine.get((suite, model, stat), np.nan)))
        tool = hil.filter(spec="ambiguous", ask_tool=True)
        unb = metrics.pass_at_k(tool, k=3).set_index(["suite", "model"])
        for (suite, model), r in unb.iterrows():
            rows.append((bench, suite, model, "pass@3 with ask_human", r["pass_at_k"],
                         mine.get((suite, model, "pass_at_3"), np.nan)))
    for bench in by_harness["lhaw"]:
        lhaw = rs.filter(benchmark=bench)
        voi = metrics.value_of_information(lhaw, by=("suite", "model", "policy"), paired=False)
        same = metrics.value_of_information(lhaw, by=("suite", "model", "policy"), paired=True) \
            .set_index(["suite", "model", "policy"])
        for _, r in voi.iterrows():
            persona = "" if r["policy"] == "default" else f", {r['policy']}"
            rows.append((bench, r["suite"], r["model"], f"Ask % (table: variants / text: trials){persona}",
                         r["variant_ask_rate"], r["ask_rate"]))
            rows.append((bench, r["suite"], r["model"],
                         f"pass@3 gain, pp (printed: each condition's own variants / same variants){persona}",
                         r["pass_gain_pp"], same.loc[(r["suite"], r["model"], r["policy"]), "pass_gain_pp"]))
    out = pd.DataFrame(rows, columns=["benchmark", "suite", "model", "quantity", "paper", "harness"])
    out["difference"] = out["paper"] - out["harness"]
    found = harness_anomalies(rs)
    notes = {key: "; ".join(f"{a} ×{n}" for a, n in zip(g["anomaly"], g["n_runs"]))
             for key, g in found.groupby(["benchmark", "suite", "model"])}
    out["anomalies"] = [notes.get((b, s, m), "") for b, s, m in zip(out["benchmark"], out["suite"], out["model"])]
    if len(out) == 0:
        out.attrs["note"] = "no runs written by the HIL-Bench or LHAW harness in this log"
    return out


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


def model_comparison(rs: RunSet, *, condition: tuple[str, bool] = ("ambiguous", True), n_boot: int = 10_000,
                     seed: int = 0, metric: str = "mean_score", conventions: ConventionsArg = None) -> pd.DataFrame:
    """Compare every pair of models on the tasks both ran: paired differences, CIs, Holm-adjusted p.

    Per benchmark, suite and ask policy (two policies of one model are never pooled: each is
    compared with the other models' runs under the same policy), each task's score is the
    mean of its non-error solve runs in ``condition`` (invalid and timeout at 0); the
    difference is model_a − model_b over the shared tasks. Any other metric of
    :func:`paired_comparison` with ``metric=``.

    Returns
    -------
    pandas.DataFrame
        :func:`paired_comparison` with ``between="model"``: ``benchmark, suite, policy, model_a,
        model_b, metric, n_tasks, value_a, value_b, difference, difference_ci_low,
        difference_ci_high, n_pairs, W, alternative, p_value`` (two-sided Wilcoxon), ``p_holm``
        (Holm over all pairs in the table), ``rbc, cles``.
    """
    return paired_comparison(rs, metric=metric, between="model", condition=condition, n_boot=n_boot, seed=seed,
                             conventions=conventions)


def ask_diagnostics(rs: RunSet, *, kind: str = "over_ask", conventions: ConventionsArg = None) -> pd.DataFrame:
    """Tabulate why agents over-ask on clear tasks or under-ask on ambiguous ones (Ambig-DS Tables 14 and 15).

    ``kind="over_ask"``: ask-only runs on fully specified tasks under the permissive
    policy; a run that did not ask is ``correct_silent``, an asking run takes the
    majority of its ``over_ask`` judge labels. ``kind="under_ask"``: ask-only runs on
    ambiguous tasks under the conservative policy; a run that did not ask is
    ``silently_defaulted``, an asking run takes its ``under_ask`` label. Shares are over
    all runs of the cell (the paper's rows sum to 100% over all tasks).

    Applies to every benchmark with judge labels of facet ``kind``. Under Ambig-DS's
    conventions only its ask-only runs under the named policy count; otherwise every
    protocol and policy of the ask-tool runs, each a row.

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, policy, protocol, n_runs``, then one column per label (share of runs).
    """
    if kind not in ("over_ask", "under_ask"):
        raise ValueError(f"kind must be 'over_ask' or 'under_ask' (got {kind!r})")
    spec, policy, silent = (("full", "permissive", "correct_silent") if kind == "over_ask"
                            else ("ambiguous", "conservative", "silently_defaulted"))

    def build(sub: RunSet, conv: Conventions) -> pd.DataFrame:
        paper = conv.calibration_protocol is not None
        cell = sub.filter(protocol=conv.calibration_protocol, policy=policy if paper else None, spec=spec, ask_tool=True)
        return _ask_diagnostics(cell, kind, silent)

    return _per_benchmark(rs, labels_of(kind), build, conventions=conventions,
                          columns=["suite", "model", "policy", "protocol", "n_runs", silent])


def _ask_diagnostics(cell: RunSet, kind: str, silent: str) -> pd.DataFrame:
    from .stats import majority_vote

    keys = ["suite", "model", "policy", "protocol"]
    runs = cell.runs[cell.runs["status"] != "error"]
    if len(runs) == 0:
        return pd.DataFrame()
    votes = majority_vote(cell.labels[cell.labels["facet"] == kind][["run_id", "facet", "label"]].astype(object),
                          by=("run_id",))
    label = runs["run_id"].astype(object).map(votes.set_index("run_id")["label"])
    asked = runs["n_questions"].to_numpy(dtype=int) > 0
    work = pd.DataFrame({k: runs[k].astype(str).to_numpy() for k in keys})
    judged = runs["run_id"].isin(cell.labels.loc[cell.labels["facet"] == kind, "run_id"]).to_numpy(dtype=bool)
    # an asking run without a label of this facet is "unlabeled"; with labels but no majority, a "tie"
    work["label"] = label.where(asked, silent).fillna("tie").where(~asked | judged, "unlabeled").to_numpy()
    shares = work.groupby(keys)["label"].value_counts(normalize=True).rename("share").reset_index()
    wide = shares.pivot(index=keys, columns="label", values="share").fillna(0.0)
    wide.insert(0, "n_runs", work.groupby(keys).size())
    wide[silent] = wide[silent] if silent in wide else 0.0
    first = [silent] + sorted(c for c in wide.columns if c not in (silent, "n_runs"))
    return wide[["n_runs", *first]].reset_index()


# ============================================================================= Ambig-DS construction audits and planning


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
        ``selector, n, accuracy, accuracy_ci_low, accuracy_ci_high``; chance is 0.5.
    """
    from .stats import wilson_ci

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
    low, high = wilson_ci(out["k"].to_numpy(), out["n"].to_numpy(), confidence)
    out["accuracy_ci_low"], out["accuracy_ci_high"] = low, high
    return out.drop(columns="k")


def judge_reliability(rs: RunSet, *, facet: str = "trace") -> pd.DataFrame:
    """Tabulate judge agreement for one facet: Fleiss' kappa per judge over its repeated calls,
    Cohen's kappa between two judges' majority labels, and the human override rate (Ambig-DS Table 9).

    The override rate, per judge, is the share of runs whose final ``category`` (after the human
    override) differs from that judge's majority label, when the facet's labels are categories; a
    failed run (category ``invalid`` or ``timeout``) agrees with the label ``invalid``.

    Returns
    -------
    pandas.DataFrame
        ``benchmark, diagnostic, judge, value, n`` (n: runs the value is over), for every benchmark
        with labels of ``facet``.
    """
    return _per_benchmark(rs, labels_of(facet), lambda sub, conv: _judge_reliability(sub, facet),
                          columns=["diagnostic", "judge", "value", "n"])


def _judge_reliability(rs: RunSet, facet: str) -> pd.DataFrame:
    from .metrics import FAILED
    from .stats import cohen_kappa, fleiss_kappa, majority_vote

    labels = rs.labels[rs.labels["facet"] == facet][["run_id", "judge", "call", "label"]].astype(object)
    rows = []
    for judge, group in labels.groupby("judge"):
        per_run = group.groupby("run_id").size()
        common = per_run.mode().iloc[0] if len(per_run) else 0
        full = group[group["run_id"].isin(per_run[per_run == common].index)]
        if common >= 2 and full["label"].nunique() > 1:
            rows.append({"diagnostic": f"Fleiss kappa ({common} calls)", "judge": judge,
                         "value": fleiss_kappa(full), "n": full["run_id"].nunique()})
    votes = majority_vote(labels, by=("run_id", "judge"))
    judges = sorted(votes["judge"].unique())
    if len(judges) == 2:
        pair = votes.dropna(subset=["label"])
        rows.append({"diagnostic": "Cohen kappa between judges", "judge": " vs ".join(judges),
                     "value": cohen_kappa(pair), "n": pair["run_id"].value_counts().eq(2).sum()})
    # the human override: the run's final category differs from a judge's majority label. A failed run's
    # category (invalid, timeout: from its status) is the judge's "invalid" (no scorable submission).
    runs = rs.runs[["run_id", "category"]].astype(object).dropna()
    runs["category"] = runs["category"].str.lower().replace({c: "invalid" for c in FAILED})
    for judge, group in votes.dropna(subset=["label"]).groupby("judge"):
        merged = group.merge(runs, on="run_id")
        merged = merged[merged["label"].str.lower().isin(set(merged["category"]))]
        if len(merged):
            rows.append({"diagnostic": "override rate (category differs from judge majority)", "judge": judge,
                         "value": float((merged["label"].str.lower() != merged["category"]).mean()), "n": len(merged)})
    return pd.DataFrame(rows, columns=["diagnostic", "judge", "value", "n"])


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
    return _per_benchmark(rs, SHAPES["full_and_ambiguous"],
                          lambda sub, conv: _power_analysis(sub, deltas, n_tasks, alpha, n_sim, seed),
                          columns=["delta", "sd", "n_tasks", "power"])


def _power_analysis(rs: RunSet, deltas, n_tasks, alpha: float, n_sim: int, seed: int) -> pd.DataFrame:
    from .metrics import _work
    from .stats import wilcoxon_power

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
