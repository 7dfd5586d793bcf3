"""Did the agent ask well: Ask-F1 and the judgment gap, pass rates, questions per task, the leaderboard,
ask calibration (CalibScore) and over- and under-asking (HIL-Bench Tables 1-2, Figures 2 and 4; Ambig-DS
Tables 13-15)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import pandas as pd

from ambiglib import metrics
from ambiglib.agreement import majority_vote
from ambiglib.metrics._asking import _unattributed, _without_unattributed
from ambiglib.runlog._schema import DEFAULT_POLICY
from ambiglib.runset import RunSet
from ambiglib.tables._common import ConventionsArg, _per_benchmark, as_table, explain_empty
from ambiglib.tables._shapes import SHAPES, Conventions, labels_of

__all__ = ["ask_calibration", "judgment_gap", "pass_rates", "questions_per_task", "leaderboard", "ask_diagnostics"]

#: pass@k's estimator (:func:`ambiglib.metrics.pass_at_k`'s ``estimator``)
_Estimator = Literal["unbiased", "first_k"]


@as_table
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
    def build(sub: RunSet, conv: Conventions) -> pd.DataFrame:
        sub = sub.filter(protocol=conv.calibration_protocol)
        out = metrics.ask_calibration(sub, by=("suite", "model", "policy", "protocol"), ci=ci, n_boot=n_boot,
                                      seed=seed).drop(columns="n_excluded")
        for spec, column in (("fully specified", "ask_on_full"), ("ambiguous", "ask_on_ambiguous")):
            why = f"this agent has no runs with the ask tool on {spec} tasks: add them"
            explain_empty(out, {column: why, f"{column}_ci_low": why, f"{column}_ci_high": why,
                                "calib_score": f"CalibScore needs runs with the ask tool on both specs: add the"
                                               f" {spec} ones"}, gap=True)
        return out

    out = _per_benchmark(rs, SHAPES["calibration"], build, conventions=conventions,
                         columns=["suite", "model", "policy", "protocol", "n_ambiguous", "n_full", "ask_on_ambiguous",
                                  "ask_on_full", "calib_score"])
    # the caption says which runs this log gave: Ambig-DS's Table 13 is of its ask-only runs, which a log of solve
    # runs does not have
    protocols = set(out["protocol"].dropna().astype(str)) if "protocol" in out.columns else set()
    runs = "the ask-only runs (Ambig-DS Table 13)" if protocols == {"ask_only"} else \
        "the runs with the ask tool, each protocol a row (the measure of Ambig-DS Table 13, which counts its ask-only" \
        " runs)" if "ask_only" in protocols else "the runs with the ask tool (the measure of Ambig-DS Table 13)"
    out.attrs["caption"] = f"Ask rates and CalibScore per model and ask policy on {runs}"
    return out


@as_table
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
    def build(sub: RunSet, conv: Conventions) -> pd.DataFrame:
        sub = sub.filter(protocol="solve")
        out = _three_pass_rates(sub, k, conv.pass_estimator, ("suite", "model"))
        f1, note = _attributed_ask_f1(sub, ("suite", "model", "policy"), ci=ci, n_boot=n_boot, seed=seed)
        out = out.merge(f1[["suite", "model", "policy"]], on=["suite", "model", "policy"], how="outer")
        out["policy"] = out["policy"].fillna("–")  # full-information runs of a model never run with the tool
        out["gap_pp"] = 100 * (out["pass_at_k_with_tool"] - out["pass_at_k_full_info"])
        keep = [c for c in f1.columns if c.startswith(("recall", "precision", "ask_f1"))]
        out = out.merge(f1[["suite", "model", "policy", *keep]], on=["suite", "model", "policy"], how="left") \
            .sort_values(["suite", "model", "policy"]).reset_index(drop=True)
        if note:
            out.attrs["note"] = note
        return out

    return _per_benchmark(rs, SHAPES["blockers_and_tool"], build, conventions=conventions,
                          columns=["suite", "model", "policy", "pass_at_k_full_info", "pass_at_k_no_tool",
                                   "pass_at_k_with_tool", "gap_pp", "recall", "precision", "ask_f1"])


def _attributed_ask_f1(sub: RunSet, by: tuple[str, ...], **kw) -> tuple[pd.DataFrame, str | None]:
    """Ask-F1 per group of ``by``; the groups holding questions the log does not attribute to a blocker get no
    row (Ask-F1 refuses them), and a note names them."""
    kept, refused = _without_unattributed(sub, by)
    if not refused:
        return metrics.ask_f1(sub, by=by, **kw), None
    f1 = metrics.ask_f1(kept, by=by, **kw) if len(kept.runs) else \
        pd.DataFrame(columns=[*by, "precision", "recall", "ask_f1"])
    return f1, _refused_note(refused)


def _refused_note(refused: list[tuple[str, ...]]) -> str:
    return (f"no Ask-F1 for {', '.join(' '.join(k) for k in refused)}: questions not attributed to a blocker (the"
            " log does not say which blocker each asked about)")


PASS_RATE_COLUMNS = ["pass_at_k_full_info", "pass_at_k_no_tool", "pass_at_k_with_tool"]


def _three_pass_rates(sub: RunSet, k: int, estimator: _Estimator, by: Sequence[str]) -> pd.DataFrame:
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


@as_table
def pass_rates(rs: RunSet, *, k: int = 3, conventions: ConventionsArg = None) -> pd.DataFrame:
    """Tabulate pass@k with full information, without the ask tool and with it, per model (HIL-Bench Figure 1A).

    ``scope="combined"`` pools every suite's tasks (HIL-Bench's SWE and SQL), then one row per
    suite (a benchmark of one suite has only its rows). Applies to every benchmark with pass/fail solve runs.

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
        per_suite = _three_pass_rates(sub, k, conv.pass_estimator, ("suite", "model"))
        parts = [per_suite.rename(columns={"suite": "scope"})]
        if sub.runs["suite"].nunique() > 1:  # one suite: its rows are the combined ones, shown once
            parts.insert(0, _three_pass_rates(sub, k, conv.pass_estimator, ("model",)).assign(scope="combined"))
        out = pd.concat(parts, ignore_index=True)
        order = {"combined": 0}
        return out[["model", "policy", "scope", *PASS_RATE_COLUMNS]].sort_values(
            ["model", "policy", "scope"], key=lambda c: c.map(lambda v: order.get(v, 1)) if c.name == "scope" else c
        ).reset_index(drop=True)

    return _per_benchmark(rs, SHAPES["pass_outcomes"], build, conventions=conventions,
                          columns=["model", "policy", "scope", *PASS_RATE_COLUMNS])


def _pass_by_policy(rs: RunSet, k: int, estimator: _Estimator, by: tuple[str, ...]) -> pd.DataFrame:
    if len(rs.runs) == 0:
        return pd.DataFrame(columns=[*by, "pass_at_k"])
    return metrics.pass_at_k(rs, k=k, by=by, estimator=estimator)


@as_table
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
    q = hil.questions
    rel = q[q["relevant"].to_numpy(dtype=bool, na_value=False)].groupby("run_id").size()
    unknown = set(_unattributed(hil, runs)["run_id"])  # their relevance is unknown
    n_rel = runs["run_id"].map(rel).fillna(0).astype(float)
    work = pd.DataFrame({"suite": runs["suite"].astype(str), "model": runs["model"].astype(str),
                         "policy": runs["policy"].astype(str), "q": runs["n_questions"].astype(int),
                         "rel": n_rel.where(~runs["run_id"].isin(unknown).to_numpy(dtype=bool))})
    g = work.groupby(["suite", "model", "policy"])
    out = pd.DataFrame({
        "n_runs": g.size(), "share_asking": g["q"].apply(lambda s: (s > 0).mean()),
        # a group with any run whose relevance is unknown has no value (a mean of the rest would pass for one)
        "questions_per_run": g["q"].mean(), "relevant_per_run": g["rel"].apply(lambda s: s.mean(skipna=False)),
        "questions_per_asking_run": g["q"].apply(lambda s: s[s > 0].mean() if (s > 0).any() else float("nan")),
        "max_questions": g["q"].max(),
    }).reset_index()
    return explain_empty(out, {"relevant_per_run": "questions not attributed to a blocker (the log does not say which"
                                                   " blocker each asked about): have the ask tool answer JSON with a"
                                                   " 'blocker' field, or a scorer record 'asked_blockers'"}, gap=True)


@as_table
def leaderboard(rs: RunSet, *, k: int = 3, conventions: ConventionsArg = None) -> pd.DataFrame:
    """Tabulate pass@k with ask_human, precision, recall and Ask-F1, pooled over SWE and SQL and per domain (HIL-Bench Table 8).

    Returns
    -------
    pandas.DataFrame
        ``benchmark, model, policy, scope`` (``combined``, then each suite; a benchmark of one suite has
        only its rows), ``pass_at_k, precision, recall, ask_f1``, sorted by combined pass@k within each
        benchmark; for every benchmark with registered blockers and ask-tool runs.
    """
    def build(sub: RunSet, conv: Conventions) -> pd.DataFrame:
        sub = sub.filter(protocol="solve")
        tool = sub.filter(spec="ambiguous", ask_tool=True)
        rows: list[pd.DataFrame] = []
        notes: list[str] = []
        # one suite: its rows are the combined ones, shown once
        scopes: tuple[tuple[str, tuple[str, ...]], ...] = (("combined", ("model", "policy")), ("per suite", ("suite", "model", "policy")))
        if sub.runs["suite"].nunique() == 1:
            scopes = scopes[1:]
        for scope, by in scopes:
            p = metrics.pass_at_k(tool, k=k, by=by, estimator=conv.pass_estimator)
            f, note = _attributed_ask_f1(sub, by)
            notes += [note] if note and not notes else []
            merged = p.merge(f, on=list(by), how="left")
            merged["scope"] = "combined" if scope == "combined" else merged["suite"]
            rows.append(merged[["model", "policy", "scope", "pass_at_k", "precision", "recall", "ask_f1"]])
        out = pd.concat(rows, ignore_index=True)
        ranked = out[out["scope"] == "combined"] if (out["scope"] == "combined").any() else out
        rank = ranked.set_index(["model", "policy"])["pass_at_k"]
        out["_rank"] = -pd.Series(list(zip(out["model"], out["policy"])), index=out.index).map(rank)
        order = {"combined": 0, "swe": 1, "sql": 2}
        out = out.sort_values(["_rank", "model", "policy", "scope"],
                              key=lambda s: s.map(lambda v: order.get(v, 3)) if s.name == "scope" else s) \
            .drop(columns="_rank").reset_index(drop=True)
        if notes:
            out.attrs["note"] = notes[0]
        return out

    out = _per_benchmark(rs, SHAPES["blockers_and_tool"], build, conventions=conventions,
                         columns=["model", "policy", "scope", "pass_at_k", "precision", "recall", "ask_f1"])
    # the caption says what this log pools: HIL-Bench's Table 8 pools its SWE and SQL suites; a benchmark of one
    # suite has nothing to pool
    pooled = len(out) and (out["scope"] == "combined").any()
    out.attrs["caption"] = "pass@k with the ask tool, precision, recall and Ask-F1" + (
        ", each benchmark's suites pooled and per suite (HIL-Bench Table 8 pools SWE and SQL)" if pooled
        else " (HIL-Bench Table 8)")
    return out


@as_table
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
    wide[silent] = wide.get(silent, 0.0)
    first = [silent] + sorted(c for c in wide.columns if c not in (silent, "n_runs"))
    return wide[["n_runs", *first]].reset_index()
