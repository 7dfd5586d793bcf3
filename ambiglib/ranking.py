"""How do the agents rank? Many agents on one metric, ranked with the uncertainty the log leaves: a global test
first, then every pair paired by task, adjusted within one family, and from those decisions each agent's rank
interval, its group and the sentences that may be said about it.

For each benchmark (and ask policy, and log, held fixed as :mod:`ambiglib.comparisons` holds them) and metric:

* **A global test** of whether the agents differ at all, over the tasks every agent ran: the agents' labels are
  shuffled within each task (tasks are the blocks; a task's trials stay together), the statistic is the variance
  of the agents' pooled values. With one pass/fail trial a task this is Cochran's Q in its permutation form (Q is
  an increasing function of that variance once each task's passes are fixed); for scores, a permutation
  analogue of Friedman's test on the metric itself, pooled as the metric pools (Demšar 2006). Until it rejects at
  α, no pair is called different. It is a gate, never a claim: no sentence says the agents differ on it alone, so
  it needs no adjustment (it can only remove rejections from the pairs' Holm procedure, whose family-wise error
  rate stays at most α).
* **Every pair**, paired by task (:func:`ambiglib.comparisons.compared`: the interval, the test fitted to the
  outcome), adjusted within the family (:func:`ambiglib.comparisons.settle`; by default each benchmark's metrics
  of one of the four questions). Two agents are **separated** when the global test rejects, the pair's adjusted
  p is below α and its interval excludes 0: the family-wise error rate is then at most α over every pair of
  the family (the global test can only remove rejections).
* **Rank intervals** from those decisions: an agent's rank is at least 1 + the agents separated above it and at
  most m − the agents separated below it. Where every decision is right, which happens with probability at least
  1 − α, every agent's true rank lies in its interval at once (Mogstad, Romano, Shaikh and Wilhelm 2024,
  *Inference for Ranks*, whose rank sets are built the same way from simultaneous pairwise decisions; Chatbot
  Arena's "rank (UB)" counts the models whose lower bound beats a model's upper bound). The **top group**: the
  agents whose interval holds 1, those no agent is separated above: a confidence set for the best. An agent is
  **best** only where it alone is in the top group (its interval is [1, 1]: it is separated above every other).
* **Groups** as a compact letter display (Piepho 2004, the insert-and-absorb algorithm): two agents share a letter
  exactly where they are not separated; letters run from the top.
* **Its share of first places** (``p_first``) over a task bootstrap (every agent on the same draws of tasks, a
  task's trials together; ties share a draw): how often the ranking's top moves when tasks are drawn again. It
  describes; no sentence rests on it.

Mean-rank post-hoc tests (Nemenyi) are not used: their verdict on two agents depends on the others (Benavoli,
Corani and Mangili 2016).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ambiglib.comparisons import COMPARABLE, CONDITIONED, _side_order, compared, family_of, metric_name, settle, unit_of
from ambiglib.engines._answers import StoreView, viewed
from ambiglib.engines._store import StoreMetrics
from ambiglib.errors import ArgumentError
from ambiglib.metrics._common import BOUNDS_OF_TWO_RATES, WILSON_OVER_TASKS, _bounds_of_two_rates, _f1
from ambiglib.runset import RunSet
from ambiglib.stats import BOOTSTRAP_BLOCK, bootstrap_totals, check_n_boot, wilson_ci_clustered
from ambiglib.stats._ratio_intervals import LINEARIZED, linearized_ci
from ambiglib.tables._common import as_table, explain_empty

__all__ = ["rank_agents", "ranking_pairs", "rankings", "compact_letters", "rank_intervals", "global_test", "GlobalTest",
           "PERMUTATIONS", "ranking_sentences"]

#: the metrics where a higher value is better (the sentences say "best"); of the others (ask rates, questions per
#: run) they say "highest": asking more is not better in itself
BETTER_HIGHER = ("calib_score", "ask_f1", "precision", "recall", "mean_score", "pass_at_k", "score_gain_pp",
                 "pass_gain_pp", "gain_per_question", "judge_score")
#: agents shuffled within tasks this many times for the global test: its smallest p is 1 / (draws + 1)
PERMUTATIONS = 4_999


# ----------------------------------------------------------------------------- the pieces, each testable alone


def compact_letters(order: Sequence[Any], separated: set[frozenset]) -> dict[Any, str]:
    """A compact letter display: each of ``order`` (best first) gets letters such that two share a letter exactly
    where they are not ``separated`` (a set of ``frozenset({a, b})``).

    Piepho (2004), *An algorithm for a letter-based representation of all-pairwise comparisons*, J. Comput. Graph.
    Stat. 13:456, insert-and-absorb: start with one column holding everyone; for each separated pair, every column
    holding both is split into one without the first and one without the second; a column inside another is
    absorbed. Letters are then given to the columns in order of their best member, "a" the top."""
    items = list(order)
    if not items:
        return {}
    columns: list[frozenset] = [frozenset(items)]
    position = {a: i for i, a in enumerate(items)}
    for pair in sorted(separated, key=lambda p: sorted(position[x] for x in p)):
        i, j = tuple(pair)
        split: list[frozenset] = []
        for col in columns:
            if i in col and j in col:
                split += [col - {j}, col - {i}]
            else:
                split.append(col)
        kept: list[frozenset] = []
        for n, col in enumerate(split):  # absorb: a column inside another (or an earlier twin) says nothing more
            if not col or any((col < other) or (col == other and m < n) for m, other in enumerate(split) if m != n):
                continue
            kept.append(col)
        columns = kept
    columns.sort(key=lambda col: (min(position[a] for a in col), sorted(position[a] for a in col)))
    names = [_letter(i) for i in range(len(columns))]
    return {a: "".join(name for name, col in zip(names, columns) if a in col) for a in items}


def _letter(i: int) -> str:
    """a, b, …, z, then aa, ab, …"""
    return chr(97 + i) if i < 26 else _letter(i // 26 - 1) + chr(97 + i % 26)


def rank_intervals(agents: Sequence[Any], separated_above: set[tuple[Any, Any]]) -> dict[Any, tuple[int, int]]:
    """Each agent's rank interval from the pairs decided: ``separated_above`` holds (a, b) where a is separated
    above b. The rank is at least 1 + the agents above it and at most m − the agents below it."""
    m = len(agents)
    above = {a: 0 for a in agents}
    below = {a: 0 for a in agents}
    for high, low in separated_above:
        above[low] += 1
        below[high] += 1
    return {a: (1 + above[a], m - below[a]) for a in agents}


@dataclass(frozen=True)
class GlobalTest:
    """Outcome of :func:`global_test`."""

    test: str  # its name, with its draws
    statistic: float
    p_value: float
    n_tasks: int  # tasks every agent ran: the blocks
    n_agents: int


def global_test(sums: np.ndarray, stat, *, binary: bool = False, n_perm: int = PERMUTATIONS,
                seed: int = 0, alpha: float = 0.05) -> GlobalTest:
    """Test whether agents differ at all: each task's agents shuffled (``sums``: tasks × agents × columns, the
    additive per-task sums of the metric ``stat``; every task run by every agent), the statistic the variance of
    the agents' pooled values ``stat(totals)``; p = (1 + shuffles at least as large) / (shuffles + 1).

    Shuffles are drawn in rounds of 999 up to ``n_perm``, stopping after a round once p lies more than three
    Monte-Carlo standard errors from ``alpha`` (a sequential Monte-Carlo test, Besag and Clifford 1991): the
    decision is then settled, and a log of many tasks is not shuffled 4,999 times to say p = 0.6. The name says how
    many were drawn. Two agents: a shuffle is a swap of each task's two sides or not, drawn as bits and summed as a
    matrix product.

    ``binary`` (one pass/fail trial a task and agent): named and reported as Cochran's Q, whose value
    (statsmodels' ``cochrans_q``) rises with that variance when each task's passes are fixed, as a shuffle
    within tasks keeps them: the p-value is Q's permutation p."""
    sums = np.asarray(sums, dtype=float)
    n, m = sums.shape[:2]
    if n == 0 or m < 2:
        return GlobalTest("no test: fewer than two agents or no task every agent ran", float("nan"), float("nan"), n,
                          m)

    def spread(totals: np.ndarray) -> np.ndarray:  # (..., m, c) -> (...)
        with np.errstate(invalid="ignore", divide="ignore"):
            values = np.asarray(stat(totals), dtype=float)
        ok = np.isfinite(values)
        count = ok.sum(axis=-1)
        mean = np.where(ok, values, 0).sum(axis=-1) / np.maximum(count, 1)
        return np.where(count >= 2, (np.where(ok, values - mean[..., None], 0) ** 2).sum(axis=-1) / np.maximum(
            count, 1), np.nan)

    total = sums.sum(axis=0)
    observed = float(spread(total))
    rng = np.random.default_rng(seed)
    tol = abs(observed) * 1e-12 + 1e-15
    rows = np.arange(n)[None, :, None]
    swap = sums[:, 1] - sums[:, 0]  # two agents: what a swap of a task moves from the first to the second

    def null_of(size: int) -> np.ndarray:
        if m == 2:
            bits = rng.integers(0, 2, (size, n)).astype(float)
            moved = bits @ swap
            return spread(np.stack([total[0] + moved, total[1] - moved], axis=1))
        order = np.argsort(rng.random((size, n, m)), axis=2)
        return spread(sums[rows, order].sum(axis=1))

    batch = max(1, (1 << 22) // max(1, n * m * sums.shape[2]))
    exceed = drawn = 0
    p = float("nan")
    while drawn < n_perm and np.isfinite(observed):
        goal = min(n_perm, drawn + 999)
        while drawn < goal:
            size = min(batch, goal - drawn)
            exceed += int(np.count_nonzero(null_of(size) >= observed - tol))
            drawn += size
        p = (exceed + 1) / (drawn + 1)
        if abs(p - alpha) > 3 * np.sqrt(p * (1 - p) / drawn):
            break
    shuffles = f"{drawn:,} shuffles" + (" (stopped once p was settled against α)" if drawn < n_perm else "")
    if binary:
        from statsmodels.stats.contingency_tables import cochrans_q

        table = sums[:, :, 0]
        q = float(cochrans_q(table).statistic) if np.ptp(table.sum(axis=0)) > 0 else 0.0
        return GlobalTest(f"Cochran's Q (permutation p, {shuffles} within tasks)", q, p, n, m)
    return GlobalTest(f"permutation test over tasks ({shuffles} of the agents within each task; statistic: the"
                      " variance of their values)", observed, p, n, m)


def first_shares(sums: np.ndarray, stat, n_boot: int, seed: int) -> np.ndarray:
    """Each agent's share of task-bootstrap draws in which its pooled value is the highest (``sums``: tasks ×
    agents × columns; an agent absent from a task has zeros there); agents tied at the top share the draw."""
    n, m, c = sums.shape
    # the draws of every other task bootstrap of this many tasks and this seed (kept between calls: the four
    # cards rank many metrics over the same tasks), block by block as they were drawn
    totals = bootstrap_totals(sums.reshape(n, m * c), n_boot, seed).reshape(n_boot, m, c)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.asarray(stat(totals), dtype=float)
    values = np.where(np.isfinite(values), values, -np.inf)
    top = values.max(axis=1, keepdims=True)
    tied = (values == top) & np.isfinite(top)
    shares = tied / np.maximum(tied.sum(axis=1, keepdims=True), 1)
    wins = np.zeros(m)
    block = max(1, BOOTSTRAP_BLOCK // max(n, 1))
    for start in range(0, n_boot, block):  # added up block by block, as the draws were: the same sums to the bit
        wins += shares[start:start + block].sum(axis=0)
    return wins / n_boot


def own_interval(per_task: pd.DataFrame, sums: Any, stat, confidence: float) -> tuple[float, float, str, str | None]:
    """One agent's value's interval from its per-task sums, as its metric's kind makes it (``sums.own``, the
    :class:`ambiglib.comparisons._Sums` description): the interval, how it was made, and why it is missing."""
    kind = sums.own[0]
    if kind == "share":
        k, n = per_task[sums.own[1]].to_numpy(float), per_task[sums.own[2]].to_numpy(float)
        ci = wilson_ci_clustered(k, n, confidence=confidence)
        return float(ci.low[0]), float(ci.high[0]), WILSON_OVER_TASKS, None
    if kind == "two rates":
        (k1, n1), (k2, n2) = sums.own[1](per_task)
        half = 1 - (1 - confidence) / 2
        first = wilson_ci_clustered(np.asarray(k1, float), np.asarray(n1, float), confidence=half)
        second = wilson_ci_clustered(np.asarray(k2, float), np.asarray(n2, float), confidence=half)
        ends = _bounds_of_two_rates((first.low, first.high), (second.low, second.high), _f1)
        return float(ends[0][0]), float(ends[1][0]), BOUNDS_OF_TWO_RATES, None
    lin = linearized_ci(per_task[sums.cols].to_numpy(float), stat, confidence, bounded=sums.own[1],
                        floor=sums.own[2] if len(sums.own) > 2 else None)
    why = None if np.isfinite(lin.low) else (
        "one task: no interval" if lin.n < 2 else
        f"every one of its {lin.n} tasks gives the same value: no spread between tasks to make an interval from (a"
        " task bootstrap would give a point)")
    return lin.low, lin.high, LINEARIZED, why


# ----------------------------------------------------------------------------- the ranking


#: the columns of a ranking's rows
COLUMNS = ["benchmark", "suites", "model", "policy", "log", "agent", "metric", "what", "unit", "condition", "n_agents",
           "n_tasks", "value", "value_ci_low", "value_ci_high", "ci_level", "ci_method", "rank", "rank_low",
           "rank_high", "p_first", "group", "top", "bottom", "global_test", "global_n_tasks", "global_p", "family",
           "n_pairs_separated", "n_pairs_possible"]


def rankings(rs: RunSet | StoreView, specs: Sequence[tuple[str, tuple[str, bool] | None, str]], *, between: str = "model",
             k: int = 3, test: str = "auto", family: str = "question", correction: str = "holm",
             alpha: float = 0.05, n_boot: int = 2000, n_perm: int = PERMUTATIONS, seed: int = 0,
             confidence: float = 0.95, conventions: Mapping[str, str] | None = None,
             pool_suites: bool = True) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """The ranking of every metric of ``specs`` (``(metric, condition, what it is called)``), its pairs adjusted
    within their families together: ``(agents, pairs, notes)``. :func:`rank_agents` is one metric's."""
    check_n_boot(n_boot)
    if not 1 <= n_perm <= 1_000_000 or isinstance(n_perm, bool):
        raise ArgumentError(f"rank: n_perm must be from 1 to 1,000,000 (got {n_perm!r})")
    if not 0 < alpha < 1:
        raise ArgumentError(f"rank: alpha must be between 0 and 1 (got {alpha!r})")
    pairs, retests, notes, rows = [], [], [], []
    for metric, condition, what in specs:
        if metric not in COMPARABLE:
            raise ValueError(f"rank: metric must be one of {sorted(COMPARABLE)} (got {metric!r})")
        cond = condition if metric in CONDITIONED else ("ambiguous", True)

        def rank(head: dict, block: pd.DataFrame, sums: Any, where: str, metric: str = metric, what: str = what) -> None:
            # each block ranked as soon as its pairs are compared, not after the last metric's: its per-task sums are
            # let go before the next block's are made (the four cards' blocks kept to the end were 0.8 GB at the
            # simulator's 10,000x); a block's ranking does not read the adjusted p-values the decisions below read
            rows.append(_rank_block(metric, what, head, block, sums, where, between, alpha, n_boot, n_perm, seed,
                                    confidence, rs))

        out, again, said = compared(rs, metric=metric, between=between, condition=cond, a=None, b=None, k=k,
                                    test=test, alternative="two-sided", n_boot=n_boot, seed=seed,
                                    confidence=confidence, conventions=conventions, pool_suites=pool_suites,
                                    on_block=rank)
        notes += [f"{what}: {n}" for n in said]
        pairs.append(out.assign(what=what))
        retests += again
    pair_frame = pd.concat(pairs, ignore_index=True) if pairs else pd.DataFrame()
    if len(pair_frame):
        notes = settle(pair_frame, retests, alpha, correction, family) + notes
    adjusted = f"p_{correction}"
    agents = pd.concat([r for r in rows if len(r)], ignore_index=True) if any(len(r) for r in rows) else \
        pd.DataFrame(columns=COLUMNS)
    if len(agents):
        agents["family"] = family_of(agents, family)  # as the pairs' families are labelled
        _decide(agents, pair_frame, adjusted, alpha, between)
    return agents, pair_frame, notes


def _rank_block(metric: str, what: str, head: dict, block: pd.DataFrame, sums: Any, where: str, between: str,
                alpha: float, n_boot: int, n_perm: int, seed: int, confidence: float, rs: RunSet | StoreView) -> pd.DataFrame:
    """One block's agents (values, own intervals, the global test, first places); the decisions come later."""
    cols = sums.cols
    sides = sorted(block[between].unique(), key=str) if _side_order(rs, between) is None else \
        [s for s in _side_order(rs, between) or [] if s in set(block[between])]
    tasks = pd.Index(sorted(block["task_id"].unique(), key=str))
    cube = np.zeros((len(tasks), len(sides), len(cols)))
    present = np.zeros((len(tasks), len(sides)), bool)
    records = []

    def stat_of(totals: np.ndarray) -> np.ndarray:
        return np.asarray(sums.stat({c: totals[..., i] for i, c in enumerate(cols)}), float)

    for j, side in enumerate(sides):
        mine = block[block[between] == side]
        at = tasks.get_indexer(mine["task_id"])
        cube[at, j] = mine[cols].to_numpy(float)
        present[at, j] = True
        with np.errstate(invalid="ignore", divide="ignore"):
            value = float(stat_of(mine[cols].to_numpy(float).sum(axis=0)))
        low, high, method, why = own_interval(mine, sums, lambda t: stat_of(t), confidence) if np.isfinite(value) \
            else (np.nan, np.nan, "", None)
        records.append({"side": side, "value": value, "low": low, "high": high, "method": method, "why": why,
                        "n_tasks": len(mine)})
    ranked = [j for j, r in enumerate(records) if np.isfinite(r["value"])]
    complete = present[:, ranked].all(axis=1)  # the tasks every ranked agent ran: the global test's blocks
    # the ranked agents' sums, and of the tasks they all ran: the cube itself where that is all of it (a copy of it
    # is 120 MB at the simulator's 10,000x; neither test writes to it)
    of_ranked = cube if len(ranked) == len(sides) else cube[:, ranked]
    in_every = of_ranked if complete.all() else of_ranked[complete]
    trials = block[sums.trials].to_numpy(float) if sums.trials is not None else None
    binary = bool(trials is not None and (trials == 1).all() and np.isin(
        np.asarray(stat_of(in_every), float), (0.0, 1.0)).all())
    glob = global_test(in_every, stat_of, binary=binary, n_perm=n_perm, seed=seed, alpha=alpha)
    del in_every  # (a copy where some tasks are not every agent's: not kept during the bootstrap)
    first = first_shares(of_ranked, stat_of, n_boot, seed) if len(ranked) >= 2 else np.ones(len(ranked))
    share = dict(zip(ranked, first))
    values = np.array([r["value"] for r in records])
    point = pd.Series(np.where(np.isfinite(values), values, np.nan)).rank(method="min", ascending=False)
    out = []
    for j, r in enumerate(records):
        row = {**{c: head.get(c) for c in ("benchmark", "model", "policy", "log") if c != between},
               "suites": head.get("suite"),
               "agent": r["side"], "metric": metric, "what": what, "unit": unit_of(metric),
               "condition": where, "n_agents": len(ranked), "n_tasks": r["n_tasks"], "value": r["value"],
               "value_ci_low": r["low"], "value_ci_high": r["high"], "ci_level": confidence,
               "ci_method": r["method"], "rank": point.iloc[j], "p_first": share.get(j, np.nan),
               "global_test": glob.test, "global_n_tasks": glob.n_tasks, "global_p": glob.p_value,
               "_why": r["why"]}
        out.append(row)
    return pd.DataFrame(out)


def _decide(agents: pd.DataFrame, pairs: pd.DataFrame, adjusted: str, alpha: float, between: str) -> None:
    """The decisions: which pairs are separated (the global test rejects, the pair's adjusted p is below ``alpha``
    and its interval excludes 0), and from them each agent's rank interval, group letters, top and bottom. Sets
    ``verdict`` on ``pairs`` too."""
    a_col, b_col = f"{between}_a", f"{between}_b"
    keys = [c for c in ("benchmark", "suites", "model", "policy", "log", "metric") if c in agents.columns]
    in_pairs = {"suites": "suite"}  # a pair's block names its suites "suite"
    if len(pairs):
        excludes = ((pairs["difference_ci_low"] > 0) | (pairs["difference_ci_high"] < 0)).to_numpy()
        passes = (pairs[adjusted] < alpha).to_numpy() & excludes
    for c in ("rank_low", "rank_high", "group", "top", "bottom", "n_pairs_separated", "n_pairs_possible"):
        agents[c] = pd.Series([None] * len(agents), dtype=object)
    gate_of: dict = {}
    for key, rows in agents.groupby([_text(agents[c]) for c in keys], sort=False):
        ranked = rows[np.isfinite(rows["value"].to_numpy(float))]
        names = list(ranked["agent"])
        gate = bool(len(ranked) and ranked["global_p"].iloc[0] < alpha)
        gate_of[key] = gate
        separated_above: set[tuple[Any, Any]] = set()
        if len(pairs) and gate:
            mine = np.ones(len(pairs), bool)
            for c, v in zip(keys, key):
                c = in_pairs.get(c, c)
                if c in pairs.columns:
                    mine &= (_text(pairs[c]) == v).to_numpy()
            for _, p in pairs[mine & passes].iterrows():
                if p[a_col] in names and p[b_col] in names:
                    separated_above.add((p[a_col], p[b_col]) if p["difference"] > 0 else (p[b_col], p[a_col]))
        intervals = rank_intervals(names, separated_above)
        order = list(ranked.sort_values("value", ascending=False, kind="stable")["agent"])
        letters = compact_letters(order, {frozenset(p) for p in separated_above})
        for i in ranked.index:
            low, high = intervals[agents.at[i, "agent"]]
            agents.at[i, "rank_low"], agents.at[i, "rank_high"] = low, high
            agents.at[i, "group"] = letters[agents.at[i, "agent"]]
            agents.at[i, "top"], agents.at[i, "bottom"] = low == 1, high == len(names)
            agents.at[i, "n_pairs_separated"] = len(separated_above)
            agents.at[i, "n_pairs_possible"] = len(names) * (len(names) - 1) // 2
    for c in ("rank_low", "rank_high", "n_pairs_separated", "n_pairs_possible"):
        agents[c] = pd.to_numeric(agents[c]).astype("Int64")
    if len(pairs):
        text = {c: _text(pairs[in_pairs.get(c, c)]) if in_pairs.get(c, c) in pairs.columns else
                pd.Series([""] * len(pairs), index=pairs.index) for c in keys}
        gated = np.array([gate_of.get(tuple(text[c].iat[i] for c in keys), False) for i in range(len(pairs))],
                         dtype=bool)
        pairs["verdict"] = _verdicts(pairs, passes, excludes, gated, adjusted, alpha, a_col, b_col)


def _text(column: pd.Series) -> pd.Series:
    """A key column as text, a missing value as "" (pandas' text dtype keeps None as missing, which groupby drops)."""
    return column.astype(object).map(lambda v: "" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v))


def _verdicts(pairs: pd.DataFrame, passes: np.ndarray, excludes: np.ndarray, gated: np.ndarray, adjusted: str,
              alpha: float, a_col: str, b_col: str) -> np.ndarray:
    """Each pair's verdict in words: which side is higher, or why neither is said to be (``passes``: the adjusted p
    below ``alpha`` and the interval excluding 0, ``excludes``; ``gated``: its block's global test rejected)."""
    name = "Holm" if adjusted == "p_holm" else "BH"
    higher = np.where(pairs["difference"] > 0, pairs[a_col].astype(str) + " higher", pairs[b_col].astype(str) +
                      " higher")
    p = pairs["p_value"].to_numpy(float)
    return np.select(
        [passes & gated, passes & ~gated,
         pairs["n_differing"].to_numpy() == 0,
         pairs["p_smallest_adjusted"].to_numpy(float) >= alpha,
         excludes & (p < alpha) & (pairs[adjusted].to_numpy(float) >= alpha),
         pairs["ci_vs_test"].notna().to_numpy()],
        [higher, "not after the global test",
         "same on every task",
         "cannot be significant at this size",
         f"not after {name} (family of " + pairs["family_size"].astype(str) + ")",
         "interval and test disagree"], "no clear difference")


@as_table
def rank_agents(rs: RunSet | StoreMetrics | StoreView, *, metric: str = "mean_score", condition: tuple[str, bool] | None = ("ambiguous", True),
                between: str = "model", k: int = 3, test: str = "auto", family: str = "question",
                correction: str = "holm", alpha: float = 0.05, n_boot: int = 2000, n_perm: int = PERMUTATIONS,
                seed: int = 0, confidence: float = 0.95, conventions: Mapping[str, str] | None = None,
                pool_suites: bool = True) -> pd.DataFrame:
    """How do the agents rank on one metric? Each agent's value with its interval, its rank interval, its share of
    first places and its group, per benchmark; "best" only where the log shows it.

    Parameters
    ----------
    metric, condition, between, k, test, conventions, pool_suites
        As :func:`ambiglib.comparisons.paired_comparison` takes them (every metric of :data:`COMPARABLE`, the ask
        rates included: ``metric="ask_rate"`` with ``condition=("full", True)`` ranks over-asking, where lower is
        better: the ranking still runs from the highest value).
    family, correction, alpha
        The pairs' p-values adjusted within ``family`` (:data:`ambiglib.comparisons.FAMILIES`) by ``correction``;
        ``alpha`` the level of every decision.
    n_boot, seed
        The task bootstrap of ``p_first`` (and its seed, which also seeds the permutations).
    n_perm
        Shuffles of the global test (its smallest p is 1 / (n_perm + 1)).

    Returns
    -------
    pandas.DataFrame
        One row per benchmark, fixed column (policy, log) and agent: ``value`` with ``value_ci_low,
        value_ci_high, ci_level, ci_method`` (the agent's own interval: Wilson over tasks for shares, the bounds of
        two rates for Ask-F1 and CalibScore, the linearized t-interval otherwise), ``rank`` (of its point value,
        ties sharing the best), ``rank_low, rank_high`` (its rank interval from the family's decisions),
        ``p_first``, ``group`` (letters), ``top, bottom`` (in the top group, the bottom group), the global test
        (``global_test, global_n_tasks, global_p``), ``family`` and how many pairs were
        separated of how many. ``attrs["answer"]``: one sentence per benchmark. Every pair behind it:
        :func:`ranking_pairs` with the same arguments.

    ``rs``: a loaded run set, or a store's handle (:func:`ambiglib.engines.on_store`): its engine computes the
    per-task sums of every metric but ``judge_score`` (refused over a store, :class:`NotPooled`, as are
    ``between="ask_tool"`` and ``"log"``).
    """
    rs = viewed(rs)
    agents, pairs, notes = _cached(rs, [(metric, condition, metric_name(metric, condition))], between=between, k=k, test=test, family=family,
                                   correction=correction, alpha=alpha, n_boot=n_boot, n_perm=n_perm, seed=seed,
                                   confidence=confidence, conventions=conventions, pool_suites=pool_suites)
    return finish(agents, pairs, notes, rs, between, alpha)


@as_table
def ranking_pairs(rs: RunSet | StoreMetrics | StoreView, *, metric: str = "mean_score", condition: tuple[str, bool] | None = ("ambiguous", True),
                  between: str = "model", k: int = 3, test: str = "auto", family: str = "question",
                  correction: str = "holm", alpha: float = 0.05, n_boot: int = 2000, n_perm: int = PERMUTATIONS,
                  seed: int = 0, confidence: float = 0.95, conventions: Mapping[str, str] | None = None,
                  pool_suites: bool = True) -> pd.DataFrame:
    """Every pair behind :func:`rank_agents` with the same arguments (worked out once for both): each paired by task,
    with :func:`ambiglib.comparisons.paired_comparison`'s columns and its ``verdict`` (the decision the rank
    intervals and letters come from)."""
    rs = viewed(rs)
    _, pairs, notes = _cached(rs, [(metric, condition, metric_name(metric, condition))], between=between, k=k,
                              test=test, family=family, correction=correction, alpha=alpha, n_boot=n_boot,
                              n_perm=n_perm, seed=seed, confidence=confidence, conventions=conventions,
                              pool_suites=pool_suites)
    if notes:
        pairs.attrs["note"] = "; ".join(dict.fromkeys(notes))
    return pairs


def _cached(rs: RunSet | StoreView, specs, **options) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """:func:`rankings`, worked out once per run set and arguments (the four cards ask for the same rankings)."""
    key = ("rankings", tuple((m, c, w) for m, c, w in specs),
           tuple(sorted((k, repr(v)) for k, v in options.items())))
    agents, pairs, notes = rs.memo(key, lambda: rankings(rs, specs, **options), share=True)
    return agents.copy(), pairs.copy(), list(notes)


def finish(agents: pd.DataFrame, pairs: pd.DataFrame, notes: list[str], rs: RunSet | StoreView, between: str,
           alpha: float) -> pd.DataFrame:
    """The ranking's rows in order (benchmark, fixed columns, metric, best first), its answer and note, and the
    reason for every empty cell."""
    out = agents.copy()
    if len(out):
        order = [c for c in ("benchmark", "model", "policy", "log", "metric") if c in out.columns]
        out = out.sort_values([*order, "rank"], kind="stable",
                              key=lambda c: c.astype(str) if c.name != "rank" else c).reset_index(drop=True)
    out = out.reindex(columns=[*COLUMNS, "_why"])
    if between != "model":  # the agents are the sides compared: their column is named for them
        out = out.drop(columns=[between], errors="ignore").rename(columns={"agent": between})
    whys = [w for w in out["_why"].dropna().unique()] if len(out) else []
    out = out.drop(columns=["_why"])
    for column in ("model", "policy", "log"):
        if column in out.columns and out[column].isna().all():
            out = out.drop(columns=column)
    out.attrs["answer"] = ranking_sentences(out, between, alpha)
    out.attrs["note"] = "; ".join(dict.fromkeys(notes)) if notes else None
    if len(out) == 0:
        out.attrs["note"] = out.attrs.get("note") or "fewer than two agents with runs on the same tasks: nothing to rank"
    reasons = {c: "; ".join(whys) or "the agent has no value of this metric (see value)"
               for c in ("value_ci_low", "value_ci_high")}
    no_value = ("the agent has no value of this metric on its runs (no question: no precision; fewer than k trials:"
                " no pass@k): it is not ranked")
    reasons.update({c: no_value for c in ("value", "rank", "rank_low", "rank_high", "group", "top", "bottom")})
    reasons["p_first"] = no_value
    reasons["global_p"] = "no task was run by every agent (or fewer than two agents): no global test"
    explain_empty(out, reasons)
    return out


def ranking_sentences(out: pd.DataFrame, between: str = "model", alpha: float = 0.05, *, short: bool = False,
                      metrics: Sequence[str] | None = None) -> list[str]:
    """One sentence per benchmark (and fixed column) and metric, claiming only what the ranking shows: "A best"
    only where A alone is in the top group, "lowest" only where one agent alone is in the bottom group, the top
    group named where several are, ties said as ties, and "cannot be told apart" where the global test does not
    reject. ``short``: the four cards' form, the metric's name first and one clause each."""
    side = "agent" if between == "model" else between
    sentences: list[str] = []
    if len(out) == 0:
        return sentences
    fixed = [c for c in ("model", "policy", "log") if c in out.columns and c != between]
    for key, block in out.groupby(["benchmark", *fixed], sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        where = str(key[0]) + "".join(f", {c} {v}" for c, v in zip(fixed, key[1:]) if pd.notna(v) and
                                      str(v) != "default")
        clauses = []
        names = list(dict.fromkeys(block["metric"]))
        for metric in (metrics or names):
            rows = block[(block["metric"] == metric) & block["value"].notna()].sort_values("value", ascending=False)
            if len(rows) == 0:
                continue
            clauses.append(_clause(rows, side, alpha, short))
        if clauses:
            n_tasks = int(block["global_n_tasks"].max()) if block["global_n_tasks"].notna().any() else 0
            head = f"{where} ({n_tasks} tasks)" if short else where
            ones = block[block["value"].notna()][side].nunique() == 1
            if ones and len(clauses) > 1:  # every metric of one agent: said once
                sentences.append(f"{head}: one agent ({block[side].iloc[0]}), nothing to rank")
            else:
                sentences.append(f"{head}: " + "; ".join(clauses))
    return sentences


def _names(rows: pd.DataFrame, side: str, most: int = 4) -> str:
    names = list(map(str, rows[side]))
    return ", ".join(names) if len(names) <= most else f"{', '.join(names[:most - 1])} and {len(names) - most + 1} more"


def _clause(rows: pd.DataFrame, side: str, alpha: float, short: bool) -> str:
    """What one metric's ranking in one block lets a reader say; ``short``: the fourth card's few words."""
    what = str(rows["what"].iloc[0])
    unit = " pp" if rows["unit"].iloc[0] == "pp" else ""
    m = len(rows)

    def value(r: pd.Series) -> str:
        v = float(r["value"])
        return f"{v:+.1f}{unit}" if unit else f"{v:.2f}"

    if m == 1:
        return f"{what}: one agent, nothing to rank" if short else \
            f"{what}: one agent ({rows[side].iloc[0]}, {value(rows.iloc[0])}), nothing to rank"
    values = rows["value"].to_numpy(float)
    if np.allclose(values, values[0], rtol=0, atol=1e-12):
        return f"{what}: {'both' if m == 2 else f'all {m}'} tie at {value(rows.iloc[0])}"
    p = rows["global_p"].iloc[0]
    n_tasks = int(rows["global_n_tasks"].iloc[0]) if pd.notna(rows["global_n_tasks"].iloc[0]) else 0
    top = rows[rows["top"].astype(bool)]
    bottom = rows[rows["bottom"].astype(bool)]
    test = str(rows["global_test"].iloc[0]).split(" (")[0]
    agents = "the 2 agents" if m == 2 else f"the {m} agents"
    if not (pd.notna(p) and p < alpha):
        why = f"global test p {_p(p)}" if pd.notna(p) else "no task every agent ran"
        return f"{what}: not told apart ({why})" if short else \
            f"{what}: {agents} cannot be told apart on {n_tasks} task{'s' if n_tasks != 1 else ''} ({test}, {why}): no" \
            " agent is best or lowest"
    if len(top) == m:
        return f"{what}: no two told apart" if short else \
            f"{what}: no two of {agents} are told apart on {n_tasks} tasks: no agent is best or lowest"
    best = "best" if rows["metric"].iloc[0] in BETTER_HIGHER else "highest"
    if m == 2:  # one separated from the other
        high, low = rows.iloc[0], rows.iloc[1]
        return f"{what}: {high[side]} higher than {low[side]} ({value(high)} vs {value(low)})"
    parts = []
    if len(top) == 1:
        r = top.iloc[0]
        parts.append(f"{r[side]} {best} ({value(r)})")
    else:
        tied = rows[np.isclose(values, values[0], rtol=0, atol=1e-12)]
        tie = f"; {', '.join(map(str, tied[side]))} tie at {value(tied.iloc[0])}" if len(tied) > 1 else ""
        parts.append(f"top group {_names(top, side)}{'' if short else ' (not told apart)'}{tie}")
    rest = m - len(top)
    if len(bottom) == 1:
        parts.append(f"lowest {bottom[side].iloc[0]}" + ("" if short else f" ({value(bottom.iloc[0])})"))
    elif len(top) == 1 and len(bottom) == rest and rest > 1 and not short:
        parts.append(f"the other {rest} not told apart")
    elif 1 < len(bottom) <= m // 2 and not short:  # a bottom group of most agents says nothing
        parts.append(f"lowest group {_names(bottom, side)}")
    return f"{what}: " + ", ".join(parts)


def _p(p: float) -> str:
    return "—" if not pd.notna(p) else "< 0.001" if p < 0.001 else f"{p:.3f}"
