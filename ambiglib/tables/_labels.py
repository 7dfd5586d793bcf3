"""What the judges said: the recognition audit and judge reliability, framing categories and the scores
within them, failure modes and their shift, LHAW's ask_user failure modes and flags (Ambig-DS Tables 5-9;
HIL-Bench Tables 4-6, Figures 3 and 6; LHAW Tables 16-17)."""

from __future__ import annotations

import pandas as pd

from ambiglib import metrics
from ambiglib.agreement import cohen_kappa, fleiss_kappa, majority_vote
from ambiglib.metrics import FAILED
from ambiglib.metrics._common import _work
from ambiglib.runset import RunSet
from ambiglib.tables._common import _mode, _per_benchmark, _policy_condition, _wide, as_table, explain_empty
from ambiglib.tables._shapes import SHAPES, Conventions, label_prefix, labels_of

__all__ = ["framing_categories", "conditional_scores", "recognition_audit", "ask_failure_modes", "ask_failure_flags",
           "failure_modes", "failure_mode_shift", "judge_reliability"]


@as_table
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


def _framing(rs: RunSet) -> pd.DataFrame:
    shares = metrics.category_shares(rs.filter(protocol="solve"), by=("suite", "model", "spec", "ask_tool", "policy"))
    shares["condition"] = list(map(_policy_condition, shares["spec"], shares["ask_tool"], shares["policy"]))
    wide = _wide(shares, ["suite", "model", "condition", "n_runs"], "category", "share",
                 list(metrics.CATEGORY_ORDER))
    return wide.sort_values(["suite", "model", "condition"]).reset_index(drop=True)


@as_table
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
    def build(sub: RunSet, conv: Conventions) -> pd.DataFrame:
        solve = sub.filter(protocol="solve")
        cond = metrics.conditional_scores(solve, by=("suite", "model", "spec", "ask_tool", "policy"))
        cond["condition"] = list(map(_policy_condition, cond["spec"], cond["ask_tool"], cond["policy"]))
        wide = _wide(cond, ["suite", "model", "condition"], "category", "mean_score", list(metrics.CATEGORY_ORDER))
        full = _work(solve.filter(spec="full", ask_tool=False))
        full = full[~full["error"]].dropna(subset=["score"])
        full_mean = full.groupby(["suite", "model", "task_id"])["score"].mean().groupby(["suite", "model"]).mean()
        wide.insert(3, "full_mean", wide.join(full_mean.rename("full_mean"), on=["suite", "model"])["full_mean"])
        wide = wide.sort_values(["suite", "model", "condition"]).reset_index(drop=True)
        explain_empty(wide, {c: "no run of this cell fell in this framing category: a mean over it needs one"
                             for c in wide.columns[4:]})
        explain_empty(wide, {"full_mean": "no scored runs of this model's tasks fully specified without the tool: add"
                                          " them"}, gap=True)
        return wide

    return _per_benchmark(rs, SHAPES["categories"], build, columns=["suite", "model", "condition", "full_mean"])


@as_table
def recognition_audit(rs: RunSet, *, facet: str = "trace") -> pd.DataFrame:
    """Tabulate the judges' majority labels of one facet per model and condition (Ambig-DS Table 10).

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, condition, n_runs``, then one column per label (share of
        judged ``ok`` runs); a ``tie`` column counts runs whose calls tied. Every benchmark
        whose solve runs have labels of ``facet`` gets rows.
    """
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


#: LHAW Table 4's categories; a trial's flag facets are named ``lhaw.<category>.<flag>`` (docs/metrics.md)
LHAW_FAILURE_CATEGORIES = ("question_quality", "question_targeting", "information_integration", "over_clarification",
                           "under_clarification", "timing_strategy", "response_misinterpretation")


@as_table
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


@as_table
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


@as_table
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


def _failure_shares(sub: RunSet, facet: str, by: tuple[str, ...]) -> pd.DataFrame | None:
    """label_shares of one failure facet with a ``mode`` column (when ``by`` holds the conditions) and ties named."""
    if not (sub.labels["facet"].astype(object) == facet).any():
        return None
    shares = metrics.label_shares(sub, facet=facet, by=by)
    if "spec" in by:
        shares["mode"] = list(map(_mode, shares["spec"], shares["ask_tool"], shares["policy"]))
    shares["label"] = shares["label"].fillna("tie")
    return shares


@as_table
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
    present = set(shares[side].astype(str))
    if a not in present or b not in present:  # nothing to subtract: say which side the log lacks
        out = pd.DataFrame()
        has = ", ".join(map(repr, sorted(present))) or "none"
        if a is None or b is None:
            out.attrs["note"] = f"needs two {side}s with failure traces to compare (the log has {has})"
        else:
            missing = " and ".join(repr(x) for x in (a, b) if x not in present)
            out.attrs["note"] = f"no {side} {missing} with failure traces to compare (the log has {has})"
        return out
    shares = shares[shares[side].astype(str).isin([a, b])]
    wide = shares.pivot_table(index=[*keys, side], columns="label", values="share", aggfunc="first").fillna(0.0)
    n = shares.groupby([*keys, side])["n_runs"].first().unstack(side)
    diff = 100 * (wide.xs(b, level=side) - wide.xs(a, level=side)).dropna(how="all")
    out = n.rename(columns={a: f"n_{a}", b: f"n_{b}"}).join(diff, how="inner").dropna(subset=[f"n_{a}", f"n_{b}"])
    out[[f"n_{a}", f"n_{b}"]] = out[[f"n_{a}", f"n_{b}"]].astype(int)
    out.columns = [str(c) for c in out.columns]
    return out.reset_index()


@as_table
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
