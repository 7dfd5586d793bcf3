"""Paired comparisons of any metric between two models, two ask policies, or with and without the tool.

Every comparison is paired by task: a metric is computed for each side over the tasks
both sides have, its difference gets a percentile interval from a bootstrap that
resamples those tasks (the same draws for both sides), and a Wilcoxon signed-rank test
compares the sides' per-task values. Holm's adjustment runs over every pair in the
output. Like pingouin's ``wilcoxon``, the frame carries the statistic (``W``, scipy's),
``alternative``, the matched-pairs rank-biserial correlation (``rbc``, Kerby 2014) and
the common-language effect size (``cles``, McGraw and Wong 1992).

Nothing is pooled across a condition the comparison does not name: comparing models
holds the ask policy fixed (one comparison per policy), comparing policies holds the
model fixed, and comparing with and without the tool pairs each with-tool policy with the
no-tool runs it was run against (:func:`ambiglib.tables.value_of_information`'s rule).
"""

from __future__ import annotations

from itertools import combinations
from typing import Callable, Literal, Mapping

import numpy as np
import pandas as pd

from .metrics._common import CONDITIONS, _ratio, _single_condition, _work
from .metrics.asking import _ask_f1_parts, _calibration_parts, _per_unit_pass, _without_unattributed
from .metrics.information import VOI_BASE_COLUMNS, VOI_VARIANT_COLUMNS, _voi_parts, _voi_task_sums
from .runset import RunSet
from .shapes import Conventions, conventions_for
from .stats import bootstrap_totals, holm, percentile_ci, sps
from .tables._common import ConventionsArg, _per_tool_policy, as_table

__all__ = ["paired_comparison", "model_comparison", "COMPARABLE", "rank_biserial", "common_language"]

#: the metrics paired_comparison compares: name → what it is
COMPARABLE: dict[str, str] = {
    "mean_score": "mean score per task (solve runs in the condition; invalid and timeout score 0)",
    "pass_at_k": "pass@k per task (the benchmark's estimator: HIL-Bench first k, else unbiased)",
    "ask_f1": "Ask-F1 from pooled precision and recall (ask-tool runs on ambiguous tasks)",
    "precision": "question precision (relevant questions / questions)",
    "recall": "blocker recall (blockers addressed / registered blockers)",
    "calib_score": "CalibScore of the ask-tool runs on full and ambiguous tasks",
    "gain_per_question": "checkpoint-score gain with the tool per question asked, pp (LHAW Gain/Q)",
    "score_gain_pp": "mean-score gain with the tool, pp",
    "pass_gain_pp": "pass@k gain with the tool, pp",
}
_VOI = {"gain_per_question": "score_gain_pp_per_question", "score_gain_pp": "score_gain_pp",
        "pass_gain_pp": "pass_gain_pp"}
_SIDES = ("model", "policy", "ask_tool")


def rank_biserial(x, y) -> float:
    """The matched-pairs rank-biserial correlation of x − y: (R+ − R−) / (R+ + R−) over the
    non-zero differences' ranks (Kerby 2014; pingouin's ``RBC``). NaN with no non-zero difference."""
    d = np.asarray(x, dtype=float) - np.asarray(y, dtype=float)
    d = d[d != 0]
    if len(d) == 0:
        return float("nan")
    r = sps.rankdata(np.abs(d))
    return float((r[d > 0].sum() - r[d < 0].sum()) / r.sum())


def common_language(x, y, alternative: str = "two-sided") -> float:
    """The common-language effect size: the share of all (x_i, y_j) pairs with x_i > y_j, ties
    counting one half (McGraw and Wong 1992; pingouin's ``CLES``); 1 − that for ``less``."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) == 0 or len(y) == 0:
        return float("nan")
    # counted by sorting (n log n), not over the len(x) × len(y) pairs: how many y lie below each x, and
    # how many equal it. The sum of ones and halves is exact in float64, so this is the pairs' mean exactly.
    # a NaN compares false with everything: its pairs count as neither greater nor tied
    ys, xs = np.sort(y[~np.isnan(y)]), x[~np.isnan(x)]
    below = np.searchsorted(ys, xs, side="left")
    ties = np.searchsorted(ys, xs, side="right") - below
    cles = float((below.sum() + 0.5 * ties.sum()) / (len(x) * len(y)))
    return 1 - cles if alternative == "less" else cles


# ----------------------------------------------------------------------------- per-task sums of each metric


def _task_sums(rs: RunSet, metric: str, keys: list[str], k: int, conv: Conventions
               ) -> tuple[pd.DataFrame, list[str], Callable[[Mapping[str, np.ndarray]], np.ndarray]]:
    """Per (keys…, task_id): the additive sums the metric pools, their columns, and the metric of summed columns."""
    if metric == "mean_score":
        work = _work(rs)
        work = work[~work["error"] & (work["protocol"] == "solve")].dropna(subset=["score"])
        per = work.groupby([*keys, "task_id"], sort=True)["score"].mean().rename("score_mean").reset_index()
        per["n"] = 1.0
        return per, ["score_mean", "n"], lambda t: _ratio(t["score_mean"], t["n"])
    if metric == "pass_at_k":
        work = _work(rs)
        work = work[~work["error"] & (work["protocol"] == "solve")]
        _single_condition(work, keys, CONDITIONS, "paired_comparison")
        units = _per_unit_pass(work, [*keys, "task_id", "variant_id"], k, conv.pass_estimator)
        units["pk_n"] = units["pass_at_k"].notna().astype(float)
        units["pk"] = units["pass_at_k"].fillna(0.0)
        per = units.groupby([*keys, "task_id"], sort=True)[["pk", "pk_n"]].sum().reset_index()
        return per, ["pk", "pk_n"], lambda t: _ratio(t["pk"], t["pk_n"])
    if metric in ("ask_f1", "precision", "recall"):
        # a group whose questions the log does not attribute to blockers has no Ask-F1: it is left out (and said)
        kept, _ = _without_unattributed(rs.filter(protocol="solve"), keys)
        runs, additive, stat, _, _ = _ask_f1_parts(kept, keys, "relevant", "all_runs", "micro")
        per = runs.groupby([*keys, "task_id"], sort=True)[additive].sum().reset_index()
        return per, additive, lambda t: stat(t)[metric]
    if metric == "calib_score":
        runs, additive, stat, _, _ = _calibration_parts(rs.filter(protocol=conv.calibration_protocol), keys)
        per = runs.groupby([*keys, "task_id"], sort=True)[additive].sum().reset_index()
        return per, additive, lambda t: stat(t)["calib_score"]
    if metric in _VOI:
        parts = _voi_parts(rs, keys, k, True)
        per = _voi_task_sums(parts)
        cols = [*VOI_VARIANT_COLUMNS, *VOI_BASE_COLUMNS]
        return per, cols, lambda t: parts["stat"](t)[_VOI[metric]]
    raise ValueError(f"paired_comparison: metric must be one of {sorted(COMPARABLE)} (got {metric!r})")


# ----------------------------------------------------------------------------- the comparison


@as_table
def paired_comparison(rs: RunSet, *, metric: str = "mean_score", between: str = "model",
                      condition: tuple[str, bool] | None = ("ambiguous", True), k: int = 3,
                      alternative: Literal["two-sided", "greater", "less"] = "two-sided", n_boot: int = 10_000,
                      seed: int = 0, confidence: float = 0.95,
                      conventions: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Compare a metric between every pair of models, of ask policies, or with and without the tool, paired by task.

    Parameters
    ----------
    rs : RunSet
    metric : str, default "mean_score"
        One of :data:`COMPARABLE`: ``mean_score``, ``pass_at_k``, ``ask_f1``, ``precision``,
        ``recall``, ``calib_score``, ``gain_per_question``, ``score_gain_pp``, ``pass_gain_pp``.
    between : {"model", "policy", "ask_tool"}, default "model"
        What differs between the two sides. ``ask_tool`` compares runs with the tool (side a)
        against runs without it (side b) on the same ambiguous tasks (``mean_score`` and
        ``pass_at_k`` only), one comparison per with-tool policy.
    condition : (spec, ask_tool) or None, default ("ambiguous", True)
        The runs ``mean_score`` and ``pass_at_k`` compare (ignored for the other metrics, which
        fix their own runs, and for ``between="ask_tool"``).
    k : int, default 3
    alternative : {"two-sided", "greater", "less"}
        Of the Wilcoxon test: ``greater`` tests side a > side b.
    n_boot, seed, confidence
        The task bootstrap: replicate b draws the shared tasks (sorted by ``task_id``) as
        ``np.random.default_rng(seed).integers(0, n, size=(n_boot, n))[b]``, and both sides
        are recomputed on the same draw.
    conventions : mapping, optional
        Benchmark → paper whose conventions it follows (:mod:`ambiglib.shapes`); sets the
        pass@k estimator.

    Returns
    -------
    pandas.DataFrame
        One row per benchmark, suite, the fixed columns (``policy`` when comparing models,
        ``model`` when comparing policies or tool use) and pair: ``<between>_a, <between>_b,
        metric, n_tasks`` (tasks both sides have), ``value_a, value_b, difference,
        difference_ci_low, difference_ci_high`` (the metric over the shared tasks, pooled as the
        metric pools), then the Wilcoxon test on the per-task values — ``n_pairs`` (tasks with a
        value on both sides), ``W, alternative, p_value, p_holm`` (Holm over every row) — and the
        effect sizes ``rbc, cles``.

    Raises
    ------
    MetricError
        From the metric (e.g. a task without its blocker record, for Ask-F1).
    ValueError
        An unknown metric, ``between``, or ``alternative``.
    """
    if between not in _SIDES:
        raise ValueError(f"paired_comparison: between must be one of {list(_SIDES)} (got {between!r})")
    if metric not in COMPARABLE:
        raise ValueError(f"paired_comparison: metric must be one of {sorted(COMPARABLE)} (got {metric!r})")
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(f"paired_comparison: alternative must be 'two-sided', 'greater' or 'less' (got {alternative!r})")
    if between == "ask_tool" and metric not in ("mean_score", "pass_at_k"):
        raise ValueError(f"paired_comparison: with and without the tool compares mean_score or pass_at_k ({metric}"
                         " already compares the two; compare it between models or policies)")
    fixed = {"model": ["policy"], "policy": ["model"], "ask_tool": ["model", "policy"]}[between]
    side_a, side_b = f"{between}_a", f"{between}_b"
    rows: list[dict] = []
    for bench in sorted(set(rs.runs["benchmark"].astype(object))):
        sub, conv = rs.filter(benchmark=bench), conventions_for(bench, conventions)
        for label, runs in _scopes(sub, metric, between, condition):
            keys = ["suite", *[c for c in fixed if c != "policy" or between != "ask_tool"], between]
            per, cols, stat = _task_sums(runs, metric, keys, k, conv)
            if len(per) == 0:
                continue
            if between == "ask_tool":
                per = per.assign(policy=label)
            group_keys = ["suite", *fixed]
            for key, block in per.groupby(group_keys, sort=True):
                rows += _pairs(block, between, cols, stat, n_boot, seed, confidence, alternative,
                               {"benchmark": bench, **dict(zip(group_keys, key))}, metric)
    out = pd.DataFrame(rows, columns=["benchmark", "suite", *fixed, side_a, side_b, "metric", "n_tasks", "value_a",
                                      "value_b", "difference", "difference_ci_low", "difference_ci_high", "n_pairs",
                                      "W", "alternative", "p_value", "rbc", "cles"])
    p = out["p_value"].to_numpy(dtype=float)
    holm_p = np.full(len(p), np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        holm_p[ok] = holm(p[ok])
    out.insert(out.columns.get_loc("p_value") + 1, "p_holm", holm_p)
    if len(out) == 0:
        out.attrs["note"] = f"no two {between} values to compare on shared tasks in this log"
    if metric in ("ask_f1", "precision", "recall"):
        _, refused = _without_unattributed(rs.filter(protocol="solve"), ["benchmark", "suite", between])
        if refused:
            left = (f"left out: {', '.join(' '.join(k) for k in refused)} (questions not attributed to a blocker:"
                    f" no {metric})")
            out.attrs["note"] = f"{out.attrs['note']}; {left}" if out.attrs.get("note") else left
    return out


@as_table
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


def _scopes(rs: RunSet, metric: str, between: str, condition):
    """The runs each comparison draws from: (label, runs)."""
    if between == "ask_tool":
        amb = rs.filter(spec="ambiguous", protocol="solve")
        yield from _per_tool_policy(amb)
        return
    if metric in ("mean_score", "pass_at_k") and condition is not None:
        spec, tool = condition
        rs = rs.filter(spec=spec, ask_tool=tool)
    yield None, rs


def _pairs(block: pd.DataFrame, between: str, cols: list[str], stat, n_boot: int, seed: int, confidence: float,
           alternative: str, fixed: dict, metric: str) -> list[dict]:
    rows = []
    sides = sorted(block[between].unique(), key=lambda v: (not v) if between == "ask_tool" else str(v))
    for a, b in combinations(sides, 2):
        ta = block[block[between] == a].set_index("task_id")[cols]
        tb = block[block[between] == b].set_index("task_id")[cols]
        shared = sorted(set(ta.index) & set(tb.index))
        if not shared:
            continue
        A, B = ta.loc[shared].to_numpy(float), tb.loc[shared].to_numpy(float)
        va = float(stat(dict(zip(cols, A.sum(axis=0)[:, None])))[0])
        vb = float(stat(dict(zip(cols, B.sum(axis=0)[:, None])))[0])
        both = bootstrap_totals(np.hstack([A, B]), n_boot, seed)  # both sides under the same draws
        ra, rb = both[:, :A.shape[1]], both[:, A.shape[1]:]
        diff = np.asarray(stat({c: ra[:, i] for i, c in enumerate(cols)}), float) \
            - np.asarray(stat({c: rb[:, i] for i, c in enumerate(cols)}), float)
        low, high = percentile_ci(diff, confidence) if np.isfinite(diff).any() else (np.nan, np.nan)
        x = np.asarray(stat({c: A[:, i] for i, c in enumerate(cols)}), float)  # per-task values
        y = np.asarray(stat({c: B[:, i] for i, c in enumerate(cols)}), float)
        both = ~np.isnan(x) & ~np.isnan(y)
        x, y = x[both], y[both]
        if len(x) and np.any(x != y):
            res = sps.wilcoxon(x, y, alternative=alternative, zero_method="wilcox")
            w, p = float(res.statistic), float(res.pvalue)
        else:
            w = p = float("nan")
        rows.append({**fixed, f"{between}_a": a, f"{between}_b": b, "metric": metric, "n_tasks": len(shared),
                     "value_a": va, "value_b": vb, "difference": va - vb, "difference_ci_low": float(low),
                     "difference_ci_high": float(high), "n_pairs": int(len(x)), "W": w, "alternative": alternative,
                     "p_value": p, "rbc": rank_biserial(x, y), "cles": common_language(x, y, alternative)})
    return rows
