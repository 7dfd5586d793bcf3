"""Is agent A better than agent B? Paired comparisons of a metric between two models, two ask policies, or
with and without the tool.

Every comparison is paired by task. A metric is computed for each side over the tasks where *both*
sides have a value of it (a task where a side asked nothing has no precision; one run fewer than k
times has no pass@k): the values, the interval and the test use those tasks and no others, and
``n_pairs`` counts them. The difference is side a − side b, in the order the sides are given.

* **Interval**: a percentile bootstrap of the difference that resamples those tasks (the same draws for
  both sides), recomputing the metric as it pools.
* **Test**, fitted to the outcome (Dietterich 1998; Miller 2024, "Adding Error Bars to Evals"): the exact
  McNemar test for pass/fail outcomes with one trial per task and side; otherwise a paired sign-flip
  permutation test of the same difference the interval is about (each task's sides swapped at random;
  :func:`scipy.stats.permutation_test`). ``test="wilcoxon"`` gives the Wilcoxon signed-rank test on the
  per-task values instead, as Ambig-DS reports. Each row names its test; below 10 tasks whose sides
  differ, the note says the test has little power.
* Holm's adjustment runs over every row of the output. Effect sizes as pingouin's ``wilcoxon`` gives
  them: the matched-pairs rank-biserial correlation (``rbc``, Kerby 2014) and the common-language effect
  size (``cles``, McGraw and Wong 1992), on the per-task values.

Nothing is pooled across a condition the comparison does not name: comparing models holds the ask policy
fixed (one comparison per policy), comparing policies holds the model fixed, and comparing with and
without the tool pairs each with-tool policy with the no-tool runs it was run against
(:func:`ambiglib.tables.value_of_information`'s rule).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Callable, Literal, Mapping

import numpy as np
import pandas as pd

from .metrics._common import CONDITIONS, _ratio, _single_condition, _work
from .metrics.asking import _ask_f1_parts, _calibration_parts, _per_unit_pass, _without_unattributed
from .metrics.information import VOI_BASE_COLUMNS, VOI_VARIANT_COLUMNS, _voi_parts, _voi_task_sums
from .runset import RunSet
from .shapes import Conventions, conventions_for
from .significance import PairedTest, mcnemar_exact, paired_permutation
from .stats import bootstrap_totals, holm, percentile_ci, sps
from .tables._common import ConventionsArg, _per_tool_policy, as_table, explain_empty

__all__ = ["paired_comparison", "model_comparison", "COMPARABLE", "TESTS", "rank_biserial", "common_language",
           "describe_condition"]

#: the metrics paired_comparison compares: name → what it is
COMPARABLE: dict[str, str] = {
    "mean_score": "mean score per task (solve runs in the condition; invalid and timeout score 0)",
    "pass_at_k": "pass@k per task (the benchmark's estimator: HIL-Bench first k, else unbiased)",
    "ask_f1": "Ask-F1 from pooled precision and recall (ask-tool runs on ambiguous tasks)",
    "precision": "question precision (relevant questions / questions), over tasks where both sides asked",
    "recall": "blocker recall (blockers addressed / registered blockers)",
    "calib_score": "CalibScore of the ask-tool runs on full and ambiguous tasks",
    "gain_per_question": "score gain with the tool per question asked, pp (LHAW Gain/Q), over tasks where both asked",
    "score_gain_pp": "mean-score gain with the tool, pp",
    "pass_gain_pp": "pass@k gain with the tool, pp",
}
#: the tests a comparison can use: ``auto`` picks McNemar or the permutation test by the outcome
TESTS = ("auto", "mcnemar", "permutation", "wilcoxon")
#: below this many tasks whose sides differ, a test has little power (the note says so)
FEW_DIFFERING = 10
_VOI = {"gain_per_question": "score_gain_pp_per_question", "score_gain_pp": "score_gain_pp",
        "pass_gain_pp": "pass_gain_pp"}
_SIDES = ("model", "policy", "ask_tool")
#: metrics whose runs are chosen by ``condition`` (the others fix their own)
CONDITIONED = ("mean_score", "pass_at_k")


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


def describe_condition(metric: str, between: str, condition: tuple[str, bool] | None = ("ambiguous", True),
                       conv: Conventions | None = None) -> str:
    """The runs a comparison of ``metric`` uses, in words ("ambiguous tasks with the ask tool")."""
    if between == "ask_tool" or metric in _VOI:
        return "ambiguous tasks, with the ask tool (a) vs without (b)" if between == "ask_tool" else \
            "ambiguous tasks, with the ask tool vs without"
    if metric in CONDITIONED:
        if condition is None:
            return "every solve run"
        spec, tool = condition
        return f"{'fully specified' if spec == 'full' else spec} tasks {'with' if tool else 'without'} the ask tool"
    if metric == "calib_score":
        only = conv.calibration_protocol if conv is not None else None
        return "runs with the ask tool on ambiguous and fully specified tasks" + (f" ({only} runs)" if only else "")
    return "ambiguous tasks with the ask tool"


# ----------------------------------------------------------------------------- per-task sums of each metric


@dataclass
class _Sums:
    """Per (keys…, task_id): the additive sums a metric pools (``cols``), the metric of summed columns
    (``stat``), which tasks have a value (``defined``, of one task's sums) and, for McNemar, the trials
    behind each task's value (``trials``)."""

    per: pd.DataFrame
    cols: list[str]
    stat: Callable[[Mapping[str, np.ndarray]], np.ndarray]
    defined: Callable[[Mapping[str, np.ndarray]], np.ndarray]
    undefined: str  # why a task has no value, for "nothing to compare"
    trials: str | None = None


def _task_sums(rs: RunSet, metric: str, keys: list[str], k: int, conv: Conventions) -> _Sums:
    if metric == "mean_score":
        work = _work(rs)
        work = work[~work["error"] & (work["protocol"] == "solve")].dropna(subset=["score"])
        g = work.groupby([*keys, "task_id"], sort=True)["score"]
        per = pd.DataFrame({"score_mean": g.mean(), "n_trials": g.size()}).reset_index()
        per["n"] = 1.0
        return _Sums(per, ["score_mean", "n"], lambda t: _ratio(t["score_mean"], t["n"]), lambda t: t["n"] > 0,
                     "no scored run", "n_trials")
    if metric == "pass_at_k":
        work = _work(rs)
        work = work[~work["error"] & (work["protocol"] == "solve")]
        _single_condition(work, keys, CONDITIONS, "paired_comparison")
        units = _per_unit_pass(work, [*keys, "task_id", "variant_id"], k, conv.pass_estimator)
        units["pk_n"] = units["pass_at_k"].notna().astype(float)
        units["pk"] = units["pass_at_k"].fillna(0.0)
        per = units.groupby([*keys, "task_id"], sort=True)[["pk", "pk_n", "n"]].sum().reset_index()
        per = per.rename(columns={"n": "n_trials"})
        return _Sums(per, ["pk", "pk_n"], lambda t: _ratio(t["pk"], t["pk_n"]), lambda t: t["pk_n"] > 0,
                     f"fewer than k = {k} trials", "n_trials")
    if metric in ("ask_f1", "precision", "recall"):
        # a group whose questions the log does not attribute to blockers has no Ask-F1: it is left out (and said)
        kept, _ = _without_unattributed(rs.filter(protocol="solve"), keys)
        runs, additive, stat, _, _ = _ask_f1_parts(kept, keys, "relevant", "all_runs", "micro")
        per = runs.groupby([*keys, "task_id"], sort=True)[additive].sum().reset_index()
        if metric == "precision":  # no question, no precision (the harness's 0 is for Ask-F1's sake)
            return _Sums(per, additive, lambda t: stat(t)[metric], lambda t: t["n_questions"] > 0, "no question asked")
        return _Sums(per, additive, lambda t: stat(t)[metric], lambda t: t["b_recall"] > 0, "no registered blocker")
    if metric == "calib_score":
        runs, additive, stat, _, _ = _calibration_parts(rs.filter(protocol=conv.calibration_protocol), keys)
        per = runs.groupby([*keys, "task_id"], sort=True)[additive].sum().reset_index()
        return _Sums(per, additive, lambda t: stat(t)["calib_score"], lambda t: (t["is_amb"] > 0) & (t["is_full"] > 0),
                     "no ask-tool run on both its fully specified and its ambiguous version")
    if metric in _VOI:
        parts = _voi_parts(rs, keys, k, True)
        per = _voi_task_sums(parts)
        cols = [*VOI_VARIANT_COLUMNS, *VOI_BASE_COLUMNS]
        if metric == "pass_gain_pp":
            defined, why = (lambda t: (t["pk_na"] > 0) & (t["pk_nt"] > 0)), f"fewer than k = {k} trials on a side"
        elif metric == "gain_per_question":
            defined, why = (lambda t: (t["a_n_scored"] > 0) & (t["t_questions"] > 0)), "no question asked"
        else:
            defined, why = (lambda t: (t["a_n_scored"] > 0) & (t["t_n_scored"] > 0)), "no scored run on a side"
        return _Sums(per, cols, lambda t: parts["stat"](t)[_VOI[metric]], defined, why)
    raise ValueError(f"paired_comparison: metric must be one of {sorted(COMPARABLE)} (got {metric!r})")


# ----------------------------------------------------------------------------- the comparison


@as_table
def paired_comparison(rs: RunSet, *, metric: str = "mean_score", between: str = "model",
                      condition: tuple[str, bool] | None = ("ambiguous", True), a: object = None, b: object = None,
                      k: int = 3, test: str = "auto",
                      alternative: Literal["two-sided", "greater", "less"] = "two-sided", n_boot: int = 10_000,
                      seed: int = 0, confidence: float = 0.95,
                      conventions: Mapping[str, str] | None = None, pool_suites: bool = False) -> pd.DataFrame:
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
        The runs ``mean_score`` and ``pass_at_k`` compare; the other metrics fix their own runs
        (the ``condition`` column says which), and giving another condition for them is an error.
    a, b : optional
        Only this pair, in this order: ``difference`` is a − b. Without them, every pair (sorted; with
        and without the tool: with first).
    k : int, default 3
    test : {"auto", "mcnemar", "permutation", "wilcoxon"}, default "auto"
        ``auto``: the exact McNemar test where every task's value on both sides is one pass/fail trial,
        else the paired permutation test. ``wilcoxon``: the Wilcoxon signed-rank test on the per-task
        values (``zero_method="wilcox"``), as Ambig-DS reports.
    alternative : {"two-sided", "greater", "less"}
        ``greater`` tests side a > side b.
    n_boot, seed, confidence
        The task bootstrap: replicate r draws the paired tasks (sorted by ``task_id``) as
        ``np.random.default_rng(seed).integers(0, n, size=(n_boot, n))[r]``, and both sides
        are recomputed on the same draw. ``seed`` also seeds a permutation test's random flips.
    conventions : mapping, optional
        Benchmark → paper whose conventions it follows (:mod:`ambiglib.shapes`); sets the
        pass@k estimator and the calibration runs.
    pool_suites : bool, default False
        One comparison per benchmark over all its suites (``suite`` then lists them): tasks are paired
        within their suite, and the bootstrap and the test run over the tasks of every suite together.

    Returns
    -------
    pandas.DataFrame
        One row per benchmark, suite, the fixed columns (``policy`` when comparing models,
        ``model`` when comparing policies or tool use) and pair with a value on both sides:
        ``<between>_a, <between>_b, metric, condition`` (the runs compared, in words), ``n_tasks``
        (tasks both sides ran), ``n_pairs`` (of those, the tasks where both sides have a value: the
        values, interval and test use these), ``value_a, value_b, difference`` (a − b),
        ``difference_ci_low, difference_ci_high``, ``test`` (its name), ``n_differing`` (tasks whose
        sides differ: discordant pairs for McNemar), ``statistic`` (McNemar's min(b, c), the
        permutation test's observed difference, Wilcoxon's W), ``alternative, p_value, p_holm``
        (Holm over every row) and the effect sizes ``rbc, cles``. A pair with no task valued on both
        sides gives no row; the note says why. ``noise_floor`` (between models or policies; filled for
        mean_score and pass_at_k): the larger of the two sides' :func:`ambiglib.metrics.noise_floor` on the runs compared; the
        note counts the differences no larger than it.

    Raises
    ------
    MetricError
        From the metric (e.g. a task without its blocker record, for Ask-F1).
    ValueError
        An unknown metric, ``between``, ``test`` or ``alternative``; a ``condition`` for a metric
        that fixes its own runs.

    References
    ----------
    Dietterich (1998); Miller (2024), arXiv 2411.00640, §paired; docs/metrics.md, "Comparing agents".
    """
    if between not in _SIDES:
        raise ValueError(f"paired_comparison: between must be one of {list(_SIDES)} (got {between!r})")
    if metric not in COMPARABLE:
        raise ValueError(f"paired_comparison: metric must be one of {sorted(COMPARABLE)} (got {metric!r})")
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(f"paired_comparison: alternative must be 'two-sided', 'greater' or 'less' (got {alternative!r})")
    if test not in TESTS:
        raise ValueError(f"paired_comparison: test must be one of {list(TESTS)} (got {test!r})")
    if between == "ask_tool" and metric not in CONDITIONED:
        raise ValueError(f"paired_comparison: with and without the tool compares mean_score or pass_at_k ({metric}"
                         " already compares the two; compare it between models or policies)")
    if metric not in CONDITIONED and condition not in (None, ("ambiguous", True)):
        raise ValueError(f"paired_comparison: {metric} compares {describe_condition(metric, between)}: it fixes its"
                         " own runs, so a condition applies only to mean_score and pass_at_k")
    if (a is None) != (b is None):
        raise ValueError("paired_comparison: give both a and b (or neither: every pair)")
    fixed = {"model": ["policy"], "policy": ["model"], "ask_tool": ["model", "policy"]}[between]
    rows: list[dict] = []
    why: list[str | tuple[str, str]] = []
    for bench in sorted(set(rs.runs["benchmark"].astype(object))):
        sub, conv = rs.filter(benchmark=bench), conventions_for(bench, conventions)
        where = describe_condition(metric, between, condition, conv)
        lacks = _lacks(sub, metric, between, condition)
        if lacks:
            why.append(f"{bench}: {lacks}" if len(set(rs.runs["benchmark"].astype(object))) > 1 else lacks)
            continue
        for label, runs in _scopes(sub, metric, between, condition):
            keys = ["suite", *[c for c in fixed if c != "policy" or between != "ask_tool"], between]
            sums = _task_sums(runs, metric, keys, k, conv)
            if len(sums.per) == 0:
                continue
            per = sums.per.assign(policy=label) if between == "ask_tool" else sums.per
            if pool_suites:  # a task is a task of its suite; the comparison spans them all
                per = per.assign(task_id=per["suite"].astype(str) + " / " + per["task_id"].astype(str),
                                 suite=", ".join(sorted(map(str, set(per["suite"])))))
            group_keys = ["suite", *fixed]
            for key, block in per.groupby(group_keys, sort=True):
                head = {"benchmark": bench, **dict(zip(group_keys, key))}
                rows += _pairs(block, between, sums, (a, b), n_boot, seed, confidence, alternative, test, head,
                               metric, where, why)
    side_a, side_b = f"{between}_a", f"{between}_b"
    out = pd.DataFrame(rows, columns=["benchmark", "suite", *fixed, side_a, side_b, "metric", "condition", "n_tasks",
                                      "n_pairs", "value_a", "value_b", "difference", "difference_ci_low",
                                      "difference_ci_high", "test", "n_differing", "statistic", "alternative",
                                      "p_value", "rbc", "cles"])
    out.insert(out.columns.get_loc("p_value") + 1, "p_holm", holm(out["p_value"].to_numpy(dtype=float)))
    notes = _collapsed(why)
    if len(out) == 0 and not notes:
        notes.append(_nothing_to_compare(rs, between))
    few = out[out["n_differing"] < FEW_DIFFERING]
    if len(few):
        notes.append(f"{len(few)} of {len(out)} comparison(s) rest on fewer than {FEW_DIFFERING} tasks whose sides"
                     f" differ (as few as {int(few['n_differing'].min())}): their tests have little power, and a"
                     " p-value above 0.05 there is no evidence that the sides are alike")
    explain_empty(out, {c: "no task's sides differ (n_differing 0): nothing to test or rank; the difference is 0"
                        for c in ("statistic", "p_value", "p_holm", "rbc")})
    if between != "ask_tool":  # with and without the tool, a model is compared with itself
        out["noise_floor"] = _noise_floors(rs, out, metric, between, condition, pool_suites)
        explain_empty(out, {"noise_floor": NOISE_FLOOR_EMPTY})
        within = int((out["difference"].abs() <= out["noise_floor"]).sum())
        if within:
            notes.append(f"{within} of {len(out)} difference(s) no larger than the noise floor ({NOISE_FLOOR_IS}):"
                         " no evidence on their own")
    if metric in ("ask_f1", "precision", "recall"):
        _, refused = _without_unattributed(rs.filter(protocol="solve"), ["benchmark", "suite", between])
        if refused:
            notes.append(f"left out: {', '.join(' '.join(k) for k in refused)} (questions not attributed to a"
                         f" blocker: no {metric})")
    if notes:
        out.attrs["note"] = "; ".join(notes)
    return out


#: what a noise floor is, in the words every note about one uses
NOISE_FLOOR_IS = "the share of tasks whose verdict flips across one side's identical trials"
#: why a comparison row has no noise floor
NOISE_FLOOR_EMPTY = ("a noise floor needs a side's identical trials: the share of tasks whose verdict flips across"
                     " them (for pass/fail and score comparisons between models or policies; a task tried once cannot"
                     " show it: run each task at least twice)")


def _noise_floors(rs: RunSet, out: pd.DataFrame, metric: str, between: str, condition, pooled: bool) -> list[float]:
    """Each row's noise floor: the larger of its two sides' ``metrics.noise_floor`` over the runs it compares
    (the solve runs of its condition), for mean_score and pass_at_k between models or policies; else null."""
    if len(out) == 0 or metric not in CONDITIONED:
        return [np.nan] * len(out)
    from .metrics.reliability import noise_floor

    spec, tool = condition or ("ambiguous", True)
    runs = rs.filter(protocol="solve", spec=spec, ask_tool=tool)
    keys = ["benchmark", *([] if pooled else ["suite"]), "model", "policy"]
    if len(runs.runs) == 0:
        return [np.nan] * len(out)
    nf = noise_floor(runs, by=keys)
    floor = {tuple(r[:-1]): r[-1] for r in nf[[*keys, "noise_floor"]].itertuples(index=False)}
    values = []
    for r in out.to_dict("records"):
        side = lambda v: floor.get(tuple(v if k == between else r[k] for k in keys), np.nan)  # noqa: E731
        a, b = side(r[f"{between}_a"]), side(r[f"{between}_b"])
        values.append(np.nan if pd.isna(a) and pd.isna(b) else float(np.nanmax([a, b])))
    return values


@as_table
def model_comparison(rs: RunSet, *, condition: tuple[str, bool] = ("ambiguous", True), n_boot: int = 10_000,
                     seed: int = 0, metric: str = "mean_score", conventions: ConventionsArg = None) -> pd.DataFrame:
    """Compare every pair of models on the tasks both ran: paired differences, CIs, tests, Holm-adjusted p.

    Per benchmark, suite and ask policy (two policies of one model are never pooled: each is
    compared with the other models' runs under the same policy), each task's score is the
    mean of its non-error solve runs in ``condition`` (invalid and timeout at 0); the
    difference is model_a − model_b over the shared tasks. Any other metric of
    :func:`paired_comparison` with ``metric=``.

    Returns
    -------
    pandas.DataFrame
        :func:`paired_comparison` with ``between="model"``.
    """
    return paired_comparison(rs, metric=metric, between="model", condition=condition if metric in CONDITIONED
                             else ("ambiguous", True), n_boot=n_boot, seed=seed, conventions=conventions)


def _scopes(rs: RunSet, metric: str, between: str, condition):
    """The runs each comparison draws from: (label, runs)."""
    if between == "ask_tool":
        amb = rs.filter(spec="ambiguous", protocol="solve")
        yield from _per_tool_policy(amb)
        return
    if metric in CONDITIONED and condition is not None:
        spec, tool = condition
        rs = rs.filter(spec=spec, ask_tool=tool)
    yield None, rs


def _ordered_pairs(values: list, wanted: tuple, between: str) -> list[tuple]:
    if wanted[0] is not None:
        a, b = wanted
        return [(a, b)] if a in values and b in values else []
    sides = sorted(values, key=lambda v: (not v) if between == "ask_tool" else str(v))
    return list(combinations(sides, 2))


def _pairs(block: pd.DataFrame, between: str, sums: _Sums, wanted: tuple, n_boot: int, seed: int,
           confidence: float, alternative: str, test: str, fixed: dict, metric: str, where: str,
           why: list[str | tuple[str, str]]) -> list[dict]:
    rows = []
    cols = sums.cols
    for a, b in _ordered_pairs(list(block[between].unique()), wanted, between):
        ta = block[block[between] == a].set_index("task_id")
        tb = block[block[between] == b].set_index("task_id")
        shared = sorted(set(ta.index) & set(tb.index))
        if not shared:
            why.append(f"{_where(fixed)}: {a} and {b} share no task")
            continue
        ta, tb = ta.loc[shared], tb.loc[shared]
        valued = np.asarray(sums.defined(ta[cols]), bool) & np.asarray(sums.defined(tb[cols]), bool)
        if not valued.any():
            hint = ""
            if sums.trials is not None and metric == "pass_at_k":
                fewest = int(min(ta[sums.trials].min(), tb[sums.trials].min()))
                hint = f"; as few as {fewest} trial{'s' if fewest != 1 else ''}: set k to {fewest} (--k {fewest})"
            why.append((f"no {metric} on both sides of any shared task ({sums.undefined} on a side{hint})",
                        f"{_where(fixed)}: {a} vs {b}, {len(shared)} shared task(s)"))
            continue
        A, B = ta[cols].to_numpy(float)[valued], tb[cols].to_numpy(float)[valued]
        va = float(sums.stat(dict(zip(cols, A.sum(axis=0)[:, None])))[0])
        vb = float(sums.stat(dict(zip(cols, B.sum(axis=0)[:, None])))[0])
        both = bootstrap_totals(np.hstack([A, B]), n_boot, seed)  # both sides under the same draws
        ra, rb = both[:, :A.shape[1]], both[:, A.shape[1]:]
        diff = np.asarray(sums.stat({c: ra[:, i] for i, c in enumerate(cols)}), float) \
            - np.asarray(sums.stat({c: rb[:, i] for i, c in enumerate(cols)}), float)
        low, high = percentile_ci(diff, confidence) if np.isfinite(diff).any() else (np.nan, np.nan)
        x = np.asarray(sums.stat({c: A[:, i] for i, c in enumerate(cols)}), float)  # per-task values
        y = np.asarray(sums.stat({c: B[:, i] for i, c in enumerate(cols)}), float)
        one_trial = sums.trials is not None and (ta[sums.trials].to_numpy()[valued] == 1).all() \
            and (tb[sums.trials].to_numpy()[valued] == 1).all()
        result = _test(A, B, x, y, sums, test, one_trial, alternative, seed)
        rows.append({**fixed, f"{between}_a": a, f"{between}_b": b, "metric": metric, "condition": where,
                     "n_tasks": len(shared), "n_pairs": int(valued.sum()), "value_a": va, "value_b": vb,
                     "difference": va - vb, "difference_ci_low": float(low), "difference_ci_high": float(high),
                     "test": result.test, "n_differing": result.n_differing, "statistic": result.statistic,
                     "alternative": alternative, "p_value": result.p_value, "rbc": rank_biserial(x, y),
                     "cles": common_language(x, y, alternative)})
    return rows


def _test(A: np.ndarray, B: np.ndarray, x: np.ndarray, y: np.ndarray, sums: _Sums, test: str, one_trial: bool,
          alternative: str, seed: int) -> PairedTest:
    binary = one_trial and np.isin(x, (0, 1)).all() and np.isin(y, (0, 1)).all()
    if test == "mcnemar" or (test == "auto" and binary):
        if not binary:
            raise ValueError("paired_comparison: test='mcnemar' needs one pass/fail trial per task and side"
                             " (use test='permutation')")
        return mcnemar_exact(x, y, alternative=alternative)
    if test == "wilcoxon":
        d = x - y
        n = int(np.count_nonzero(d))
        name = "Wilcoxon signed-rank (zero_method='wilcox')"
        if n == 0:
            return PairedTest(name, float("nan"), float("nan"), 0)
        res = sps.wilcoxon(x, y, alternative=alternative, zero_method="wilcox")
        return PairedTest(name, float(res.statistic), float(res.pvalue), n)
    cols = sums.cols
    return paired_permutation(A, B, lambda t: sums.stat({c: t[..., i] for i, c in enumerate(cols)}),
                              alternative=alternative, seed=seed)


def _collapsed(why: list[str | tuple[str, str]]) -> list[str]:
    """The reasons pairs were not compared, one note per reason: a reason shared by many pairs (every pair of
    four models under four policies) is said once, with how many pairs and the first of them."""
    notes: list[str] = []
    pairs: dict[str, list[str]] = {}
    for w in why:
        if isinstance(w, str):
            notes.append(w)
        else:
            pairs.setdefault(w[0], []).append(w[1])
    for reason, which in pairs.items():
        notes.append(f"{which[0]}: {reason}" if len(which) == 1 else
                     f"{len(which)} pairs: {reason} (first: {which[0]}; last: {which[-1]})")
    return notes


def _where(fixed: dict) -> str:
    return " ".join(str(v) for v in fixed.values())


def _lacks(rs: RunSet, metric: str, between: str, condition) -> str | None:
    """What one benchmark's runs lack for the comparison, and what to add (None when they have it)."""
    from .shapes import SHAPES, applicable

    if between == "ask_tool" or metric in _VOI:
        if not applicable(rs, SHAPES["tool_pairs"]):
            return (f"{metric} compares runs with and without the ask tool on the same ambiguous tasks, and this log"
                    " has no runs without the tool on the ambiguous tasks that have runs with it: add them (a"
                    " no-tool condition)")
    elif metric in CONDITIONED and condition is not None:
        spec, tool = condition
        ok = rs.runs[rs.runs["status"] != "error"]
        here = ok[(ok["spec"] == spec) & (ok["ask_tool"] == tool) & (ok["protocol"] == "solve")]
        if len(here) == 0:
            present = sorted({describe_condition(metric, "model", (s, bool(t)))
                              for s, t in zip(ok["spec"], ok["ask_tool"])})
            return (f"no solve runs on {describe_condition(metric, between, condition)} in this log (it has: "
                    f"{'; '.join(present) or 'none'}); choose one with --condition")
    elif metric == "calib_score" and not applicable(rs, SHAPES["calibration"]):
        return f"calib_score needs {SHAPES['calibration'].needs}: {SHAPES['calibration'].fix}"
    elif metric in ("ask_f1", "precision", "recall") and not applicable(rs, SHAPES["blockers_and_tool"]):
        return f"{metric} needs {SHAPES['blockers_and_tool'].needs}: {SHAPES['blockers_and_tool'].fix}"
    return None


def _nothing_to_compare(rs: RunSet, between: str) -> str:
    """Why a comparison has no row when no benchmark said why: too few sides."""
    if len(rs.runs) == 0:
        return "the run log has no runs"
    values = sorted(map(str, set(rs.runs[between].astype(object))))
    if len(values) < 2:
        return f"only one {between} in this log ({', '.join(values)}): a comparison needs two"
    return f"no two {between} values with runs on the same tasks in this log"
