"""From per-task sums to a metric's table: the point estimate, its interval and the groups listed.

Every pooled metric is computed in two steps. The first gives, per group and task, integer sums (runs, asks,
questions, blockers; for pass@k, how many variants had n trials with a verdict and c passes); the second,
here, pools them. The pandas path (:mod:`ambiglib.metrics`) and an engine over a store
(:mod:`ambiglib.engines`) give the first step's frames; this module never sees a run, so an engine that returns
the same sums gives the same table to the last bit: the sums are put in one order (the group columns, then
the task) before anything is added up.

Each function takes ``groups`` (``by…, n_excluded``: every group the metric lists, with its error runs, so a
group with runs but no task to count is listed with ``n_tasks`` 0) and ``per_task`` (``by…, task_id`` and the
sums).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ambiglib.metrics._common import (
    BOUNDS_OF_TWO_RATES,
    _beside,
    _bounds_of_two_rates,
    _cluster_ci,
    _clustered_wilson,
    _clustered_wilson_columns,
    _f1,
    _order,
    _ratio,
    _with_ci,
    label_intervals,
    text_dtype,
)

#: per task: runs on ambiguous and on fully specified tasks, and how many of each asked (ask_calibration)
CALIBRATION_SUMS = ("is_amb", "is_full", "asked_amb", "asked_full")
#: per task (ask_f1, micro pooling): runs, questions, relevant questions, distinct blockers addressed, blockers and
#: blockers addressed in the recall set, runs that asked, runs in the recall set
ASK_F1_SUMS = ("n_scored", "n_questions", "n_relevant", "n_discovered", "b_recall", "d_recall", "asking",
               "in_recall")
#: per task: how many of its variants (``n_units``) had ``n`` trials with a verdict and ``c`` passes
UNIT_SUMS = ("n", "c", "n_units")

#: the columns of the runs a metric may group by, with the type every path gives them
BY_TYPES = {"run_id": "text", "benchmark": "text", "suite": "text", "task_id": "text", "variant_id": "text",
            "model": "text", "spec": "text", "policy": "text", "protocol": "text", "status": "text",
            "category": "text", "log": "text", "ask_tool": "bool", "trial": "int", "score": "float",
            "passed": "float", "n_questions": "int", "error": "bool"}


def canonical(frame: pd.DataFrame, by: Sequence[str], keys: Sequence[str] = ()) -> pd.DataFrame:
    """``frame`` with its group columns in the types the runs give them and its rows in one order (``by``, then
    ``keys``): the same sums from two engines become the same frame."""
    text = text_dtype()
    kinds = {"text": text, "bool": bool, "int": np.int64, "float": float}
    frame = frame.astype({c: kinds[BY_TYPES[c]] for c in by if c in BY_TYPES})
    order = list(dict.fromkeys([*by, *keys]))
    if order and len(frame):
        frame = frame.sort_values(order, kind="stable", na_position="last")
    return frame.reset_index(drop=True)


def _totals(groups: pd.DataFrame, per_task: pd.DataFrame, by: list[str], columns: Sequence[str]) -> pd.DataFrame:
    """The sums of ``columns`` per group, one row per row of ``groups`` (0 for a group with no task)."""
    if not by:
        return pd.DataFrame([per_task[list(columns)].sum()]).reset_index(drop=True)
    totals = per_task.groupby(by, sort=True, dropna=False)[list(columns)].sum()
    return totals.reindex(groups.set_index(by).index, fill_value=0).reset_index(drop=True)


def _with_groups(groups: pd.DataFrame, by: list[str], out: pd.DataFrame) -> pd.DataFrame:
    """The group columns, then ``out``'s, then ``n_excluded``."""
    out = out.assign(n_excluded=groups["n_excluded"].to_numpy(np.int64))
    return pd.concat([groups[by].reset_index(drop=True), out], axis=1) if by else out


def calib_score(ask_on_ambiguous: Any, ask_on_full: Any) -> Any:
    """Return CalibScore: the harmonic mean of ask-on-ambiguous and 1 − ask-on-full (0 when both are 0).

    References
    ----------
    Ambig-DS Table 13 (e.g. 100/33 → 0.80, 70/0 → 0.82, 95/95 → 0.10).
    """
    return _f1(ask_on_ambiguous, 1 - np.asarray(ask_on_full, dtype=float))


def calibration_table(groups: pd.DataFrame, per_task: pd.DataFrame, by: Sequence[str], *, ci: bool,
                      confidence: float) -> pd.DataFrame:
    """ask_calibration's table from its per-task sums (:data:`CALIBRATION_SUMS`)."""
    by = list(by)
    groups, per_task = canonical(groups, by), canonical(per_task, by, ["task_id"])
    totals = _totals(groups, per_task, by, CALIBRATION_SUMS)
    a = _ratio(totals["asked_amb"], totals["is_amb"])
    f = _ratio(totals["asked_full"], totals["is_full"])
    out = _with_groups(groups, by, pd.DataFrame({
        "n_ambiguous": totals["is_amb"].to_numpy(np.int64), "n_full": totals["is_full"].to_numpy(np.int64),
        "ask_on_ambiguous": a, "ask_on_full": f, "calib_score": calib_score(a, f)}))
    out = _order(out, by, ["n_ambiguous", "n_full", "ask_on_ambiguous", "ask_on_full", "calib_score"])
    if not ci:
        return out
    rates = {"ask_on_ambiguous": ("asked_amb", "is_amb"), "ask_on_full": ("asked_full", "is_full")}
    for name, (k, n) in rates.items():
        out = _clustered_wilson_columns(out, by, name, per_task, k, n, confidence)
    # CalibScore rises with asking on ambiguous tasks and falls with asking on full ones: bounded by the two
    # rates' intervals at half the error each
    half = 1 - (1 - confidence) / 2
    amb, full = (_clustered_wilson(out, by, per_task, k, n, half) for k, n in rates.values())
    # CalibScore of the two rates' ends: ask-on-ambiguous and the share of full runs that did not ask
    low, high = _bounds_of_two_rates(amb, (1 - full[1], 1 - full[0]), _f1)
    defined = out["calib_score"].notna().to_numpy()
    out = _beside(out, "calib_score", np.where(defined, low, np.nan), np.where(defined, high, np.nan))
    return label_intervals(out, confidence, {"calib_score": BOUNDS_OF_TWO_RATES})


def micro_ask_f1(t: Mapping[str, np.ndarray], precision_count: str) -> dict[str, np.ndarray]:
    """Precision, recall and Ask-F1 from pooled sums. One rule everywhere (docs/metrics.md): without a question
    precision is undefined (null); recall is then 0, and so is Ask-F1, the harmonic mean with a recall of 0 (the
    harness's precision of 0 gives the same F1)."""
    p = _ratio(t[precision_count], t["n_questions"])
    r = _ratio(t["d_recall"], t["b_recall"], 0.0)
    return {"precision": p, "recall": r, "ask_f1": np.where(np.asarray(t["n_questions"]) > 0, _f1(p, r), 0.0)}


def ask_f1_table(groups: pd.DataFrame, per_task: pd.DataFrame, by: Sequence[str], *, precision: str, ci: bool,
                 confidence: float) -> pd.DataFrame:
    """ask_f1's table with micro pooling from its per-task sums (:data:`ASK_F1_SUMS`); ``precision``: the
    per-task column precision counts (``n_relevant`` or ``n_discovered``)."""
    by = list(by)
    groups, per_task = canonical(groups, by), canonical(per_task, by, ["task_id"])
    totals = _totals(groups, per_task, by, ASK_F1_SUMS)
    values = micro_ask_f1({c: totals[c].to_numpy(float) for c in ASK_F1_SUMS}, precision)
    # a group with no (non-error) run has no value, not the harness's 0 for "no questions"
    none = totals["n_scored"].to_numpy(float) == 0
    out = _with_groups(groups, by, pd.DataFrame({
        "n_runs": totals["n_scored"].to_numpy(np.int64), "n_questions": totals["n_questions"].to_numpy(np.int64),
        "n_relevant": totals["n_relevant"].to_numpy(np.int64), "n_blockers": totals["b_recall"].to_numpy(np.int64),
        "n_discovered": totals["n_discovered"].to_numpy(np.int64),
        **{k: np.where(none, np.nan, v) for k, v in values.items()}}))
    out = _order(out, by, ["n_runs", "n_questions", "n_relevant", "n_blockers", "n_discovered", "precision",
                           "recall", "ask_f1"])
    if not ci:
        return out
    # precision is a share of questions, recall a share of blockers (a task's trials one cluster), and Ask-F1,
    # rising with both, is bounded by their intervals at half the error each
    shares = {"precision": (precision, "n_questions"), "recall": ("d_recall", "b_recall")}
    for name, (k, n) in shares.items():
        out = _clustered_wilson_columns(out, by, name, per_task, k, n, confidence)
    half = 1 - (1 - confidence) / 2
    precision_ci, recall_ci = (_clustered_wilson(out, by, per_task, k, n, half) for k, n in shares.values())
    low, high = _bounds_of_two_rates(precision_ci, recall_ci, _f1)
    defined = out["ask_f1"].notna().to_numpy()
    out = _beside(out, "ask_f1", np.where(defined, low, np.nan), np.where(defined, high, np.nan))
    return label_intervals(out, confidence, {"ask_f1": BOUNDS_OF_TWO_RATES})


def pass_at_k_of(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """1 − C(n−c, k)/C(n, k) (Chen et al. 2021), a stable product, for each (n, c) pair (each distinct pair
    computed once); NaN where n < k."""
    n, c = np.asarray(n, dtype=np.int64), np.asarray(c, dtype=np.int64)
    if len(n) == 0:
        return np.empty(0)
    pairs, inverse = np.unique(np.stack([n, c], axis=1), axis=0, return_inverse=True)
    values = np.array([np.nan if ni < k else 1.0 if ni - ci_ < k else
                       1.0 - float(np.prod(1.0 - k / np.arange(ni - ci_ + 1, ni + 1)))
                       for ni, ci_ in pairs.tolist()])
    return values[inverse.reshape(-1)]


def pass_hat_k_of(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """C(c, k)/C(n, k): the chance that k trials drawn without replacement from the n all passed, the product of
    (c − i)/(n − i) for i < k; NaN where n < k."""
    n, c = np.asarray(n, dtype=np.int64), np.asarray(c, dtype=np.int64)
    out = np.ones(len(n))
    for i in range(k):
        with np.errstate(invalid="ignore", divide="ignore"):
            out *= np.where(n - i > 0, np.clip(c - i, 0, None) / np.where(n - i > 0, n - i, 1), 0.0)
    return np.where(n >= k, out, np.nan)


def _over_units(groups: pd.DataFrame, per_task: pd.DataFrame, by: list[str], values: np.ndarray
                ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per task and per group: ``_n`` the variants with a value (``values`` not NaN, one per row of
    ``per_task``), ``_v`` the sum of their values."""
    have = ~np.isnan(values)
    w = np.where(have, per_task["n_units"].to_numpy(np.int64), 0)
    units = per_task[list(dict.fromkeys([*by, "task_id"]))].assign(_v=np.where(have, values, 0.0) * w, _n=w)
    tasks = units.groupby(list(dict.fromkeys([*by, "task_id"])), sort=True, dropna=False)[["_v", "_n"]].sum() \
        .reset_index()
    return tasks, _totals(groups, tasks, by, ["_v", "_n"])


def mean_over_units_table(groups: pd.DataFrame, per_task: pd.DataFrame, by: Sequence[str], name: str,
                          value: str, k: int, *, ci: bool, n_boot: int, seed: int, confidence: float
                          ) -> pd.DataFrame:
    """pass@k or pass^k (``value``: ``pass_at_k`` or ``pass_hat_k``) from per-task counts of variants by (n, c)
    (:data:`UNIT_SUMS`): the mean over variants with at least k trials, ``n_tasks`` of them, and with ``ci``
    a bootstrap that resamples tasks (every variant of a task together)."""
    by = list(by)
    groups, per_task = canonical(groups, by), canonical(per_task, by, ["task_id", "n", "c"])
    of = pass_at_k_of if value == "pass_at_k" else pass_hat_k_of
    tasks, totals = _over_units(groups, per_task, by, of(per_task["n"].to_numpy(), per_task["c"].to_numpy(), k))
    out = _with_groups(groups, by, pd.DataFrame({"n_tasks": totals["_n"].to_numpy(np.int64),
                                                 name: _ratio(totals["_v"], totals["_n"])}))
    out = _order(out, by, ["n_tasks", name])
    if not ci:
        return out
    stat = lambda t: {name: _ratio(t["_v"], t["_n"])}  # noqa: E731
    return _with_ci(out, by, _cluster_ci(tasks, by, "task_id", stat, n_boot, seed, confidence), [name], confidence)


def flip_share_table(groups: pd.DataFrame, per_task: pd.DataFrame, by: Sequence[str], *, ci: bool, n_boot: int,
                     seed: int, confidence: float) -> pd.DataFrame:
    """The flip share from per-task counts of variants by (n, c): of the variants with two or more trials with a
    verdict, the share with both a pass and a fail."""
    by = list(by)
    groups, per_task = canonical(groups, by), canonical(per_task, by, ["task_id", "n", "c"])
    n, c = per_task["n"].to_numpy(np.int64), per_task["c"].to_numpy(np.int64)
    tasks, totals = _over_units(groups, per_task, by, np.where(n >= 2, ((c > 0) & (c < n)).astype(float), np.nan))
    n_tasks, flipping = totals["_n"].to_numpy(np.int64), np.rint(totals["_v"].to_numpy(float)).astype(np.int64)
    out = _with_groups(groups, by, pd.DataFrame({"n_tasks": n_tasks, "n_flipping": flipping,
                                                 "flip_share": _ratio(flipping, n_tasks)}))
    out = _order(out, by, ["n_tasks", "n_flipping", "flip_share"])
    if not ci:
        return out
    stat = lambda t: {"flip_share": _ratio(t["_v"], t["_n"])}  # noqa: E731
    return _with_ci(out, by, _cluster_ci(tasks, by, "task_id", stat, n_boot, seed, confidence), ["flip_share"],
                    confidence)


def rerun_sd_table(groups: pd.DataFrame, per_task: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """The rerun spread from per-task counts of variants by (n, c): √(2 Σ s²/K) / n over the variants with two or
    more trials with a verdict, s² = c(K − c)/(K(K − 1)) (:func:`ambiglib.metrics.rerun_sd`)."""
    by = list(by)
    groups, per_task = canonical(groups, by), canonical(per_task, by, ["task_id", "n", "c"])
    n, c = per_task["n"].to_numpy(float), per_task["c"].to_numpy(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = np.where(n >= 2, c * (n - c) / (n * (n - 1)), np.nan)
    _, over_k = _over_units(groups, per_task, by, var / n)
    _, plain = _over_units(groups, per_task, by, var)
    tasks = plain["_n"].to_numpy(float)
    out = _with_groups(groups, by, pd.DataFrame({
        "n_tasks": plain["_n"].to_numpy(np.int64),
        "rerun_sd": _ratio(np.sqrt(2 * over_k["_v"].to_numpy(float)), tasks),
        "rerun_sd_one_trial": _ratio(np.sqrt(2 * plain["_v"].to_numpy(float)), tasks)}))
    return _order(out, by, ["n_tasks", "rerun_sd", "rerun_sd_one_trial"])
