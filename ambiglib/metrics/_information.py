"""Was asking worth it: the value of information (Ask %, Avg/Traj, pass@k gains, Gain/Q) and performance
(S_full, S_ambig, S_ask and the paired deltas)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TypedDict

import numpy as np
import pandas as pd

from ambiglib.metrics._common import (
    _check_by,
    _cluster_ci,
    _excluded,
    _kept,
    _order,
    _ratio,
    _single_condition,
    _with_ci,
    _work,
)
from ambiglib.metrics._pooling import canonical, pass_at_k_of
from ambiglib.runlog._schema import DEFAULT_POLICY
from ambiglib.runset import RunSet
from ambiglib.stats import paired_bootstrap_ci, paired_wilcoxon

__all__ = ["value_of_information", "performance", "per_run_question"]


class _VoiParts(TypedDict):
    """What ``_voi_parts`` gives: ``by`` checked, its groups without ``policy``, the with-tool runs' groups, the
    per-variant sums (``pairs``, base ``b``), the excluded runs per group and the statistic of summed columns."""
    by: list[str]
    base_by: list[str]
    tool: pd.DataFrame
    pairs: pd.DataFrame
    b: pd.DataFrame
    excluded: pd.Series
    stat: Callable[[Mapping[str, np.ndarray]], dict[str, np.ndarray]]


def per_run_question(gain, questions, runs):
    """A gain (pp) per question a run asks: gain ÷ (questions / runs), null without a question.

    LHAW's Gain/Q divides the gain by *all* questions asked, so it falls as epochs are added while the gain
    does not (3 epochs of the same behaviour give a third of 1 epoch's); this divides by the questions of one
    run, so it means the same in a log of any size."""
    return _ratio(np.asarray(gain, dtype=float) * np.asarray(runs, dtype=float), questions)


def _tool_split(work: pd.DataFrame, by: list[str], fn: str) -> tuple[list[str], pd.DataFrame, pd.DataFrame]:
    """Split solve runs into no-tool and with-tool; ``policy`` in by splits only the latter, unless
    the no-tool runs carry policies of their own (then see ``_for_policies``)."""
    base_by = [c for c in by if c != "policy"]
    solve = work[work["protocol"] == "solve"]
    tool, no_tool = solve[solve["ask_tool"]], solve[~solve["ask_tool"]]
    _single_condition(tool, by, ("policy",), fn)
    if "policy" not in by:
        _single_condition(no_tool, base_by, ("policy",), fn)
    return base_by, no_tool, tool


def _for_policies(runs: pd.DataFrame, tool: pd.DataFrame, base_by: list[str]) -> pd.DataFrame:
    """The no-tool runs each with-tool policy is compared against: the runs of that policy
    where it has any (LHAW Table 10: each prompting strategy also runs without the tool),
    else the runs of the default policy, shared by every policy (LHAW Table 14: the personas)."""
    keys = [*base_by, "policy"]
    policies = tool[keys].drop_duplicates()
    own = runs.merge(policies, on=keys)
    rest = policies.merge(own[keys].drop_duplicates(), on=keys, how="left", indicator=True)
    rest = rest[rest["_merge"] == "left_only"].drop(columns="_merge")
    shared = runs[runs["policy"] == DEFAULT_POLICY].drop(columns="policy")
    shared = shared.merge(rest, on=base_by) if base_by else shared.merge(rest, how="cross")
    return pd.concat([own, shared[runs.columns]], ignore_index=True)


def value_of_information(rs: RunSet, *, by: Sequence[str] = ("suite", "model"), k: int = 3, paired: bool = True,
                         ci: bool = False, n_boot: int = 10_000, seed: int = 0,
                         confidence: float = 0.95) -> pd.DataFrame:
    """Compute what the ask tool buys: pass@k and mean score with and without it, and gain per question.

    Parameters
    ----------
    paired : bool, default True
        True: scores with and without the tool are compared on the same variants,
        those with at least one non-error trial in both conditions (at least k for
        pass@k). False: each condition is scored over the variants that have results
        in it, as LHAW's tables do (its TheAgentCompany denominators differ between
        the two conditions when runs fail: Table 10, ReAct outcome-critical 2/38
        without the tool, 7/40 with it). The two agree when no run failed.

    With ``policy`` in ``by``, a policy's no-tool runs are those carrying that
    policy (LHAW Table 10's prompting strategies each run without the tool too);
    a policy without such runs is compared against the no-tool runs that have no
    policy (Table 14's personas share them). The same holds for the fully
    specified baseline runs.

    Returns
    -------
    pandas.DataFrame
        ``by…, base_pass_at_k, base_mean_score`` (fully specified, no tool; null
        when there are no such runs), ``pass_at_k, pass_at_k_with_tool,
        pass_gain_pp`` (pass@k over variants, unbiased estimator), ``mean_score,
        mean_score_with_tool, score_gain_pp`` (mean over trials), ``ask_rate``
        (with-tool trials that asked), ``variant_ask_rate`` (variants with at least
        one asking trial, of all the variants compared: with ``paired=False`` those with
        results in either condition, so a variant whose with-tool runs all failed counts
        as not asking), ``avg_per_traj`` (questions per asking trial),
        ``n_questions`` (in with-tool trials), ``pass_gain_pp_per_question,
        score_gain_pp_per_question`` (gain in percentage points / n_questions; null
        with no questions), then ``n_variants`` (variants compared), ``n_trials,
        n_trials_with_tool, n_excluded``.

    References
    ----------
    LHAW §4.2, Table 3 (its "Ask %" is ``variant_ask_rate``: runlog-v1 B.3) and
    Table 14 (Gain%/Q = Ckpt gain / Qs: 23.3/186 → 0.13).
    """
    return voi_table(_voi_parts(rs, by, k, paired), ci=ci, n_boot=n_boot, seed=seed, confidence=confidence)


def voi_table(parts: _VoiParts, *, ci: bool, n_boot: int, seed: int, confidence: float) -> pd.DataFrame:
    """value_of_information's table from its parts (:func:`voi_parts_from`), with its task-bootstrap intervals."""
    by, base_by, tool, pairs, b = parts["by"], parts["base_by"], parts["tool"], parts["pairs"], parts["b"]
    excluded, stat = parts["excluded"], parts["stat"]
    variant_cols, base_cols = VOI_VARIANT_COLUMNS, VOI_BASE_COLUMNS
    vt = pairs.groupby(by, sort=True, dropna=False)[variant_cols].sum() if by else \
        pd.DataFrame([pairs[variant_cols].sum()])
    if by:
        groups_index = pd.concat([pairs[by], tool[by]]).drop_duplicates().sort_values(by)
        vt = vt.reindex(pd.MultiIndex.from_frame(groups_index) if len(by) > 1 else
                        pd.Index(groups_index[by[0]]), fill_value=0).reset_index()
        bt = b.groupby(by, sort=True, dropna=False)[base_cols].sum().reset_index()
        totals = vt.merge(bt, on=by, how="left")
    else:
        totals = pd.concat([vt, pd.DataFrame([b[base_cols].sum()])], axis=1)
    totals[base_cols] = totals[base_cols].fillna(0)
    values = stat({c: totals[c].to_numpy(float) for c in [*variant_cols, *base_cols]})
    out = pd.DataFrame(values)
    out["n_questions"] = totals["t_questions"].to_numpy(int)
    out["n_variants"] = totals["v"].to_numpy(int)
    out["n_trials"] = totals["a_n_scored"].to_numpy(int)
    out["n_trials_with_tool"] = totals["t_n_scored"].to_numpy(int)
    if by:
        out = pd.concat([totals[by].reset_index(drop=True), out], axis=1)
        ex = excluded.rename("n_excluded").reset_index() if base_by else None
        out = out.merge(ex, on=base_by, how="left") if base_by else out.assign(n_excluded=int(excluded.iloc[0]))
    else:
        out["n_excluded"] = int(excluded.iloc[0])
    out["n_excluded"] = out["n_excluded"].fillna(0).astype(int)
    columns = ["base_pass_at_k", "base_mean_score", "pass_at_k", "pass_at_k_with_tool", "pass_gain_pp",
               "mean_score", "mean_score_with_tool", "score_gain_pp", "ask_rate", "variant_ask_rate",
               "avg_per_traj", "n_questions", "pass_gain_pp_per_question", "score_gain_pp_per_question"]
    out = _order(out, by, columns)
    if ci:
        cis = _cluster_ci(_voi_task_sums(parts), by, "task_id", stat, n_boot, seed, confidence)
        out = _with_ci(out, by, cis, [c for c in columns if c != "n_questions"], confidence)
    return out


VOI_VARIANT_COLUMNS = ["pk_na", "pk_a", "pk_nt", "pk_t", "a_score_sum", "a_n_scored", "t_score_sum", "t_n_scored",
                       "t_asking", "t_questions", "v", "v_asked"]


VOI_BASE_COLUMNS = ["b_pk_n", "b_pk", "b_score_sum", "b_n_scored"]


def _voi_task_sums(parts: _VoiParts) -> pd.DataFrame:
    """Per (by…, task): its variants' sums under each group, and its base (full-spec) sums."""
    by, pairs, b = parts["by"], parts["pairs"], parts["b"]
    variant_cols, base_cols = VOI_VARIANT_COLUMNS, VOI_BASE_COLUMNS
    vs = pairs.groupby([*by, "task_id"], sort=True, dropna=False)[variant_cols].sum().reset_index()
    bs = b.groupby([*by, "task_id"], sort=True, dropna=False)[base_cols].sum().reset_index()
    sums = vs.merge(bs, on=[*by, "task_id"], how="outer")
    if "policy" in by:  # base tasks without any variant pair still belong to each policy group
        sums = sums.dropna(subset=["policy"])
    sums[[*variant_cols, *base_cols]] = sums[[*variant_cols, *base_cols]].fillna(0)
    return sums


def _voi_parts(rs: RunSet, by: Sequence[str], k: int, paired: bool) -> _VoiParts:
    """value_of_information's per-variant sums (``pairs``, base ``b``), its statistic and groups (once per run
    set and arguments)."""
    return _kept(rs, ("voi parts", tuple(by), k, paired), lambda: _voi_parts_of(rs, by, k, paired))


#: per variant and condition (``cond``: ``amb``, ambiguous without the tool; ``tool``, ambiguous with it;
#: ``full``, fully specified without it): trials with a verdict, passes, scored trials, asking trials, questions,
#: and the sum of its trials' scores (:func:`score_sums`: added here in one order, so that an engine's rows give the
#: same sums as a loaded run set's).
VARIANT_SUMS = ("n", "c", "n_scored", "asking", "questions", "score_sum")
_VKEY = ["benchmark", "task_id", "variant_id"]


def score_sums(segments: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """The sum of each of ``n`` segments' ``values`` (``segments[i]`` is value i's segment, in any order), added in
    ascending order of the values by one :func:`numpy.add.reduceat`: the same bits whichever engine listed them and
    in whatever order (a database's own sum of floats depends on its order of work)."""
    segments, values = np.asarray(segments, np.int64), np.asarray(values, float)
    order = np.lexsort((values, segments))
    lengths = np.bincount(segments, minlength=n)
    starts = np.cumsum(lengths) - lengths
    out = np.zeros(n)
    full = lengths > 0
    if full.any():
        out[full] = np.add.reduceat(values[order], starts[full])
    return out


def score_moments(segments: np.ndarray, values: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per segment (as :func:`score_sums`): the sum of its scores, how many, and the sum of their squared
    deviations from its mean, each added in ascending order: the per-task sums a mean score (its interval, the
    comparison of two, the rerun spread) pools, the same bits from runs or from an engine's lists of them."""
    segments, values = np.asarray(segments, np.int64), np.asarray(values, float)
    sums = score_sums(segments, values, n)
    counts = np.bincount(segments, minlength=n).astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / counts
    return sums, counts, score_sums(segments, (values - means[segments]) ** 2, n)


def scores_by(runs: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """Per (``keys``) of ``runs`` (one row per run, a ``score`` without nulls): ``score_sum, n, score_ssd``
    (:func:`score_moments`), in ``keys``' order."""
    g = runs.groupby(list(keys), sort=True)
    out = g.size().rename("n").reset_index()
    codes = g.ngroup().to_numpy()
    grouped = codes >= 0  # (a run with a null key is in no group, as a groupby leaves it out)
    sums, counts, ssd = score_moments(codes[grouped], runs["score"].to_numpy(float)[grouped], len(out))
    return out.assign(score_sum=sums, n=counts, score_ssd=ssd)


def _voi_variants(rs: RunSet, by: Sequence[str]) -> tuple[list[str], pd.Series, pd.DataFrame]:
    """``(by, excluded, variants)`` of a loaded run set: ``by`` checked, the error runs per group of ``by``
    without ``policy``, and the per-variant sums (:data:`VARIANT_SUMS`)."""
    fn = "value_of_information"
    work = _work(rs)
    by = _check_by(work, by, fn)
    base_by, no_tool, tool = _tool_split(work, by, fn)
    excluded = _excluded(pd.concat([no_tool, tool]), base_by)
    no_tool, tool = no_tool[~no_tool["error"]], tool[~tool["error"]]
    conds = {"amb": no_tool[no_tool["spec"] == "ambiguous"], "tool": tool[tool["spec"] == "ambiguous"],
             "full": no_tool[no_tool["spec"] == "full"]}
    keys = list(dict.fromkeys([*by, *_VKEY]))
    variants = []
    for cond, runs in conds.items():
        g = runs.assign(_asking=(runs["n_questions"] > 0).astype(np.int64)).groupby(keys, sort=True, dropna=False)
        sums = pd.DataFrame({
            "n": g["passed"].count(), "c": g["passed"].sum().astype(np.int64), "n_scored": g["score"].count(),
            "asking": g["_asking"].sum(), "questions": g["n_questions"].sum()}).reset_index()
        score = runs["score"].to_numpy(dtype=float, na_value=np.nan)
        scored = ~np.isnan(score)
        sums["score_sum"] = score_sums(g.ngroup().to_numpy()[scored], score[scored], len(sums))
        variants.append(sums.assign(cond=cond))
    return by, excluded, pd.concat(variants, ignore_index=True)


def _voi_parts_of(rs: RunSet, by: Sequence[str], k: int, paired: bool) -> _VoiParts:
    by, excluded, variants = _voi_variants(rs, by)
    return voi_parts_from(by, excluded, variants, k, paired)


def voi_parts_from(by: list[str], excluded: pd.Series, variants: pd.DataFrame, k: int, paired: bool) -> _VoiParts:
    """value_of_information's parts from per-variant sums (:func:`_voi_variants`, or an engine's rows with their
    score sums made by :func:`score_sums`): the pooling step of both paths."""
    base_by = [c for c in by if c != "policy"]
    keys = list(dict.fromkeys([*by, *_VKEY]))
    variants = canonical(variants, keys, ["cond"])
    variants["pass_at_k"] = pass_at_k_of(variants["n"].to_numpy(), variants["c"].to_numpy(), k)

    def per_variant(variants: pd.DataFrame, cond: str, prefix: str) -> pd.DataFrame:
        rows = variants[variants["cond"] == cond].drop(columns="cond")
        return rows.rename(columns={c: f"{prefix}{c}" for c in rows.columns if c not in keys})

    amb, tool, full = (per_variant(variants, cond, prefix) for cond, prefix in (("amb", "a_"), ("tool", "t_"),
                                                                               ("full", "b_")))
    del variants  # (each row is in one condition's frame now: not kept beside them while they are paired)
    if "policy" in by:  # each with-tool policy's no-tool variants: its own, else the default policy's
        amb = _for_policies(amb, tool, base_by).sort_values(keys, kind="stable", na_position="last")
        full = _for_policies(full, tool, base_by).sort_values(keys, kind="stable", na_position="last")
    groups = tool[list(by)]  # (the with-tool rows' groups: all of them the parts keep, below)
    pairs = tool.merge(amb, on=keys, how="inner" if paired else "outer")
    del amb, tool
    for side in ("a_", "t_"):
        pairs[f"{side}n_scored"] = pairs[f"{side}n_scored"].fillna(0)
    if paired:
        pairs = pairs[(pairs["a_n_scored"] > 0) & (pairs["t_n_scored"] > 0)].copy()
        both_k = pairs["a_pass_at_k"].notna() & pairs["t_pass_at_k"].notna()
        has_a = has_t = both_k
    else:
        has_a, has_t = pairs["a_pass_at_k"].notna(), pairs["t_pass_at_k"].notna()
    pairs["pk_na"], pairs["pk_nt"] = has_a.astype(int), has_t.astype(int)
    pairs["pk_a"] = np.where(has_a, pairs["a_pass_at_k"], 0.0)
    pairs["pk_t"] = np.where(has_t, pairs["t_pass_at_k"], 0.0)
    pairs[["a_score_sum", "t_score_sum", "t_asking", "t_questions"]] = \
        pairs[["a_score_sum", "t_score_sum", "t_asking", "t_questions"]].fillna(0)
    pairs["v"] = 1
    pairs["v_asked"] = (pairs["t_asking"] > 0).astype(int)
    b = full
    b["b_pk_n"] = b["b_pass_at_k"].notna().astype(int)
    b["b_pk"] = b["b_pass_at_k"].fillna(0.0)

    def stat(s):
        pa_, pt = _ratio(s["pk_a"], s["pk_na"]), _ratio(s["pk_t"], s["pk_nt"])
        ma, mt = _ratio(s["a_score_sum"], s["a_n_scored"]), _ratio(s["t_score_sum"], s["t_n_scored"])
        pass_gain, score_gain = 100 * (pt - pa_), 100 * (mt - ma)
        out = {
            "base_pass_at_k": _ratio(s["b_pk"], s["b_pk_n"]), "base_mean_score": _ratio(s["b_score_sum"], s["b_n_scored"]),
            "pass_at_k": pa_, "pass_at_k_with_tool": pt, "pass_gain_pp": pass_gain,
            "mean_score": ma, "mean_score_with_tool": mt, "score_gain_pp": score_gain,
            "ask_rate": _ratio(s["t_asking"], s["t_n_scored"]), "variant_ask_rate": _ratio(s["v_asked"], s["v"]),
            "avg_per_traj": _ratio(s["t_questions"], s["t_asking"]),
            "pass_gain_pp_per_question": _ratio(pass_gain, s["t_questions"]),
            "score_gain_pp_per_question": _ratio(score_gain, s["t_questions"]),
        }
        return out

    # of the with-tool runs, only their groups are read: the parts are kept with the run set (and shared)
    return {"by": by, "base_by": base_by, "tool": groups, "pairs": pairs, "b": b, "excluded": excluded,
            "stat": stat}


def performance(rs: RunSet, *, by: Sequence[str] = ("suite", "model"), n_boot: int = 10_000,
                seed: int = 0) -> pd.DataFrame:
    """Compute S_full, S_ambig, S_ask, the two deltas with paired CIs and one-sided Wilcoxon tests.

    Conditions: Full = (full, no tool), Ambig. = (ambiguous, no tool), Ask =
    (ambiguous, tool), solve runs only. Per task, a condition's score is the mean
    of its non-error runs (invalid and timeout at 0; a run with status ok and no
    score is left out). All statistics use the tasks that have a score in all
    three conditions, so Δ_ambig = S_ambig − S_full and Δ_ask = S_ask − S_ambig
    exactly.

    Returns
    -------
    pandas.DataFrame
        ``by…, n_tasks, s_full, s_ambig, s_ask, delta_ambig, delta_ambig_ci_low,
        delta_ambig_ci_high, p_full_gt_ambig, delta_ask, delta_ask_ci_low,
        delta_ask_ci_high, p_ask_gt_ambig, n_excluded`` (error runs).

    References
    ----------
    Ambig-DS §5.1, Tables 1 and 12, Appendix C.8–C.9; the target-track harness
    ``step_6_aggregate.py`` (harness-formats §4.2): the paired bootstrap uses seed
    ``seed`` for Δ_ambig and ``seed + 1`` for Δ_ask (0 and 1 in the harness).
    """
    fn = "performance"
    work = _work(rs)
    by = _check_by(work, by, fn)
    base_by, no_tool, tool = _tool_split(work, by, fn)
    excluded = _excluded(pd.concat([no_tool, tool]), base_by)
    cond = {"full": no_tool[no_tool["spec"] == "full"], "ambig": no_tool[no_tool["spec"] == "ambiguous"],
            "ask": tool[tool["spec"] == "ambiguous"]}
    per_task = {}
    for name, runs in cond.items():
        keys = by if name == "ask" else base_by
        runs = runs[~runs["error"]].dropna(subset=["score"])
        per_task[name] = runs.groupby([*keys, "task_id"], sort=True, dropna=False)["score"].mean() \
            .rename(name).reset_index()
    paired = per_task["ask"].merge(per_task["ambig"], on=[*base_by, "task_id"]) \
        .merge(per_task["full"], on=[*base_by, "task_id"]).sort_values([*by, "task_id"])
    rows = []
    groups = list(paired.groupby(by, sort=True, dropna=False)) if by else [((), paired)]
    for key, g in groups:
        full, ambig, ask = (g[c].to_numpy(float) for c in ("full", "ambig", "ask"))
        row = dict(zip(by, key if isinstance(key, tuple) else (key,)))
        row.update(n_tasks=len(g), s_full=full.mean(), s_ambig=ambig.mean(), s_ask=ask.mean(),
                   _d_ambig=ambig - full, _d_ask=ask - ambig,
                   p_full_gt_ambig=paired_wilcoxon(full, ambig).p_value,
                   p_ask_gt_ambig=paired_wilcoxon(ask, ambig).p_value)
        rows.append(row)
    # bootstrap all groups with the same task count in one pass each (identical draws per seed)
    by_n: dict[int, list[int]] = {}
    for i, row in enumerate(rows):
        by_n.setdefault(row["n_tasks"], []).append(i)
    for members in by_n.values():
        d_ambig = np.vstack([rows[i]["_d_ambig"] for i in members])
        d_ask = np.vstack([rows[i]["_d_ask"] for i in members])
        zeros = np.zeros_like(d_ambig)
        lo_a, hi_a = paired_bootstrap_ci(d_ambig, zeros, n_boot=n_boot, seed=seed)
        lo_k, hi_k = paired_bootstrap_ci(d_ask, zeros, n_boot=n_boot, seed=seed + 1)
        for j, i in enumerate(members):
            rows[i].update(delta_ambig_ci_low=lo_a[j], delta_ambig_ci_high=hi_a[j],
                           delta_ask_ci_low=lo_k[j], delta_ask_ci_high=hi_k[j])
    columns = ["n_tasks", "s_full", "s_ambig", "s_ask", "delta_ambig", "delta_ambig_ci_low", "delta_ambig_ci_high",
               "p_full_gt_ambig", "delta_ask", "delta_ask_ci_low", "delta_ask_ci_high", "p_ask_gt_ambig"]
    out = pd.DataFrame(rows, columns=[*by, *columns, "_d_ambig", "_d_ask"])
    out["delta_ambig"] = out["s_ambig"] - out["s_full"]
    out["delta_ask"] = out["s_ask"] - out["s_ambig"]
    # groups with runs but no fully paired task still get a row, with n_tasks = 0
    out = out.drop(columns=["_d_ambig", "_d_ask"])
    if by:
        all_groups = pd.concat([c[by] for c in cond.values() if set(by) <= set(c.columns)]).drop_duplicates()
        present = [g for g in all_groups.itertuples(index=False)
                   if "policy" not in by or pd.notna(getattr(g, "policy", None))]
        out = pd.DataFrame(present, columns=by).merge(out, on=by, how="left")
        out["n_tasks"] = out["n_tasks"].fillna(0).astype(int)
        ex = excluded.rename("n_excluded").reset_index() if base_by else None
        out = out.merge(ex, on=base_by, how="left") if base_by else out.assign(n_excluded=int(excluded.iloc[0]))
    else:
        out["n_excluded"] = int(excluded.iloc[0])
    out["n_excluded"] = out["n_excluded"].fillna(0).astype(int)
    return _order(out, by, columns)
