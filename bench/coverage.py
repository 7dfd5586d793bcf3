"""Benchmark: how often ambiglib's intervals cover the truth, and how often its tests reject when nothing differs,
in the designs researchers run (few tasks, several trials), by simulation with a known truth.

1. A difference of mean scores (pass/fail, one trial and three trials a task): the t-interval of the per-task
   differences that ``comparisons`` uses against the percentile task bootstrap it used before.
2. An ask rate whose tasks differ (each task's propensity to ask drawn from Beta(0.3, 0.3), three trials a
   task): Wilson over runs (before), Wilson over tasks (``stats.wilson_ci_clustered``, now) and a percentile
   task bootstrap.
3. A difference of Ask-F1 (a pooled ratio): the percentile task bootstrap ``comparisons`` uses.
4. One agent's precision and recall (Wilson over tasks) and Ask-F1 (the bounds of the two rates' intervals, now;
   a percentile task bootstrap, before), and a perfect agent's Ask-F1.
5. The false-positive rate of exact and mid-p McNemar (one pass/fail trial a task, two equal agents), and of the
   exact sign-flip permutation test.
6. End to end: ``comparisons.paired_comparison`` on run logs for design 1 (fewer replicates), to show that the
   table gives what the functions above give.
7. Every interval the opening shows of one agent (ask rates, CalibScore, questions per run, precision, recall,
   Ask-F1, the three scores, the gain, the gap, the gain per question), as the headline tables make them, at 8,
   12, 20 and 60 tasks x 1 and 3 trials: docs/metrics.md's coverage table and ``ambiglib/coverage.py``.
8. End to end: ``headline.payoff`` on run logs at 8 and 12 tasks.
9. The rank intervals of ``ranking.rank_agents``: how often every agent's interval holds its true rank at once.

Tasks are drawn anew in every replicate, so an interval covers the population's value (what a reader takes a
benchmark to estimate), not only that of the tasks drawn. Every draw is seeded: the same figures every run.
Run ``python bench/coverage.py [--reps 2000]``; copy the figures into docs/metrics.md ("How well the intervals
cover").
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from ambiglib import stats
from ambiglib.stats import _ratio_intervals as ratio_intervals
from ambiglib.stats._significance import mcnemar_exact, mcnemar_midp, paired_permutation

LEVEL = 0.95
N_BOOT = 2000  # the report's default


def _percentile_boot(per_task: np.ndarray, stat, rng: np.random.Generator) -> tuple[float, float]:
    """The percentile task bootstrap of ``stat`` over per-task rows (n, m), as ``comparisons`` draws it."""
    totals = stats.bootstrap_totals(per_task, N_BOOT, int(rng.integers(2**31)))
    low, high = stats.percentile_ci(stat(totals), LEVEL)
    return float(low), float(high)


def scores(n_tasks: int, trials: int, reps: int, rng: np.random.Generator) -> dict[str, float]:
    """Agents A and B with per-task pass rates p_b ~ Beta(0.8, 0.8) and p_a = p_b + 0.1 (clipped); the truth is
    the population mean of p_a − p_b (from a million tasks)."""
    big = rng.beta(0.8, 0.8, 1_000_000)
    truth = float(np.mean(np.clip(big + 0.1, 0, 1) - big))
    hit = {"t-interval": 0, "percentile bootstrap": 0}
    for _ in range(reps):
        pb = rng.beta(0.8, 0.8, n_tasks)
        pa = np.clip(pb + 0.1, 0, 1)
        xa = (rng.random((n_tasks, trials)) < pa[:, None]).mean(axis=1)
        xb = (rng.random((n_tasks, trials)) < pb[:, None]).mean(axis=1)
        d = xa - xb
        low, high = stats.t_interval(d, LEVEL)
        hit["t-interval"] += low <= truth <= high
        low, high = _percentile_boot(d[:, None], lambda t: t[:, 0] / n_tasks, rng)
        hit["percentile bootstrap"] += low <= truth <= high
    return {k: v / reps for k, v in hit.items()}


def ask_rates(n_tasks: int, trials: int, reps: int, rng: np.random.Generator) -> dict[str, float]:
    """An agent whose propensity to ask differs by task (Beta(0.3, 0.3): mostly always or never); truth 0.5."""
    hit = {"Wilson over runs": 0, "Wilson over tasks": 0, "percentile bootstrap": 0}
    for _ in range(reps):
        p = rng.beta(0.3, 0.3, n_tasks)
        k = rng.binomial(trials, p).astype(float)
        n = np.full(n_tasks, float(trials))
        low, high = stats.wilson_ci(k.sum(), n.sum(), LEVEL)
        hit["Wilson over runs"] += low <= 0.5 <= high
        ci = stats.wilson_ci_clustered(k, n, confidence=LEVEL)
        hit["Wilson over tasks"] += ci.low[0] <= 0.5 <= ci.high[0]
        low, high = _percentile_boot(np.c_[k, n], lambda t: t[:, 0] / t[:, 1], rng)
        hit["percentile bootstrap"] += low <= 0.5 <= high
    return {k: v / reps for k, v in hit.items()}


def _f1_counts(n_tasks: int, trials: int, recall: float, noise: float, rng: np.random.Generator) -> np.ndarray:
    """Per task, summed over its trials: questions, relevant questions, blockers found, registered blockers. A task
    registers 1-3 blockers; a run finds each with a task-level chance around ``recall`` and asks ``noise``
    irrelevant questions on average."""
    blockers = rng.integers(1, 4, n_tasks)
    r_task = np.clip(rng.beta(2, 2, n_tasks) * 2 * recall, 0, 1)
    found = rng.binomial(blockers[:, None].repeat(trials, 1), r_task[:, None]).sum(axis=1)
    irrelevant = rng.poisson(noise * trials * rng.gamma(2, 0.5, n_tasks))
    return np.c_[found + irrelevant, found, found, blockers * trials].astype(float)


def _f1(t: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(t[..., 0] > 0, t[..., 1] / t[..., 0], np.nan)
        r = t[..., 2] / t[..., 3]
        return np.where(t[..., 0] > 0, 2 * p * r / (p + r), 0.0)


def ask_f1(n_tasks: int, trials: int, reps: int, rng: np.random.Generator) -> dict[str, float]:
    """Agents with recall 0.6 and 0.45, 0.5 and 0.8 irrelevant questions a run; truth from 200,000 tasks."""
    truth = float(_f1(_f1_counts(200_000, trials, 0.6, 0.5, rng).sum(axis=0))
                  - _f1(_f1_counts(200_000, trials, 0.45, 0.8, rng).sum(axis=0)))
    hit = 0
    for _ in range(reps):
        a, b = _f1_counts(n_tasks, trials, 0.6, 0.5, rng), _f1_counts(n_tasks, trials, 0.45, 0.8, rng)
        low, high = _percentile_boot(np.hstack([a, b]), lambda t: _f1(t[:, :4]) - _f1(t[:, 4:]), rng)
        hit += low <= truth <= high
    return {"percentile bootstrap": hit / reps}


def one_agent(n_tasks: int, trials: int, reps: int, rng: np.random.Generator) -> dict[str, float]:
    """One agent's precision, recall and Ask-F1 (recall around 0.6, 0.5 irrelevant questions a run), and a perfect
    agent's Ask-F1 (every blocker found, nothing irrelevant: the truth is 1); truth from 400,000 tasks. The
    bootstrap was the opening's interval before; Wilson over tasks and the two rates' bounds are now."""
    big = _f1_counts(400_000, trials, 0.6, 0.5, rng).sum(axis=0)
    p_true, r_true = big[1] / big[0], big[2] / big[3]
    f1_true = float(_f1(big))
    half = 1 - (1 - LEVEL) / 2
    hit = dict.fromkeys(["precision: Wilson over tasks", "recall: Wilson over tasks", "Ask-F1: bootstrap",
                         "Ask-F1: bounds of the two rates", "perfect agent's Ask-F1: bootstrap",
                         "perfect agent's Ask-F1: bounds"], 0)
    for _ in range(reps):
        c = _f1_counts(n_tasks, trials, 0.6, 0.5, rng)
        p = stats.wilson_ci_clustered(c[:, 1], c[:, 0], confidence=LEVEL)
        r = stats.wilson_ci_clustered(c[:, 2], c[:, 3], confidence=LEVEL)
        hit["precision: Wilson over tasks"] += p.low[0] <= p_true <= p.high[0]
        hit["recall: Wilson over tasks"] += r.low[0] <= r_true <= r.high[0]
        low, high = _percentile_boot(c, _f1, rng)
        hit["Ask-F1: bootstrap"] += low <= f1_true <= high
        low, high = _bounds(c, half)
        hit["Ask-F1: bounds of the two rates"] += low <= f1_true <= high
        blockers = rng.integers(1, 4, n_tasks) * trials
        perfect = np.c_[blockers, blockers, blockers, blockers].astype(float)
        low, high = _percentile_boot(perfect, _f1, rng)
        hit["perfect agent's Ask-F1: bootstrap"] += low <= 1.0 - 1e-9 and high >= 1.0 and high - low > 0
        low, high = _bounds(perfect, half)
        hit["perfect agent's Ask-F1: bounds"] += low <= 1.0 <= high and high - low > 0
    return {k: v / reps for k, v in hit.items()}


def _bounds(c: np.ndarray, half: float) -> tuple[float, float]:
    """Ask-F1's interval as the metrics make it: F1 of the two rates' ends at half the error each."""
    p = stats.wilson_ci_clustered(c[:, 1], c[:, 0], confidence=half)
    r = stats.wilson_ci_clustered(c[:, 2], c[:, 3], confidence=half)
    f = lambda a, b: 2 * a * b / (a + b) if a + b > 0 else 0.0  # noqa: E731
    return f(p.low[0], r.low[0]), f(p.high[0], r.high[0])


def false_positives(n_tasks: int, reps: int, rng: np.random.Generator) -> dict[str, float]:
    """Two equal agents, one pass/fail trial a task (per-task pass rates Beta(0.8, 0.8)): the share of replicates a
    test rejects at 0.05 (nominal 0.05)."""
    names = ["exact McNemar", "mid-p McNemar"] + (["exact sign-flip permutation"] if n_tasks <= 12 else [])
    hit = dict.fromkeys(names, 0)
    for _ in range(reps):
        p = rng.beta(0.8, 0.8, n_tasks)
        x, y = (rng.random(n_tasks) < p).astype(float), (rng.random(n_tasks) < p).astype(float)
        for name, test in (("exact McNemar", mcnemar_exact), ("mid-p McNemar", mcnemar_midp)):
            hit[name] += bool(test(x, y).p_value < 0.05)  # NaN (no discordant task) never rejects
        if n_tasks <= 12:  # 4,096 flip patterns; at 20 tasks a million a replicate
            hit["exact sign-flip permutation"] += bool(paired_permutation(x, y, lambda t: t / n_tasks).p_value < 0.05)
    return {k: v / reps for k, v in hit.items()}


def end_to_end(n_tasks: int, trials: int, reps: int, rng: np.random.Generator) -> float:
    """Design 1 through ``comparisons.paired_comparison`` on run logs: the share of rows whose interval covers."""
    from ambiglib import RunSet, comparisons

    big = rng.beta(0.8, 0.8, 1_000_000)
    truth = float(np.mean(np.clip(big + 0.1, 0, 1) - big))
    hit = 0
    for _ in range(reps):
        pb = rng.beta(0.8, 0.8, n_tasks)
        recs = []
        for model, p in (("a", np.clip(pb + 0.1, 0, 1)), ("b", pb)):
            passed = rng.random((n_tasks, trials)) < p[:, None]
            recs += [{"benchmark": "sim", "suite": "s", "task_id": f"t{t}", "model": model, "spec": "ambiguous",
                      "ask_tool": True, "trial": k + 1, "score": float(passed[t, k]), "passed": bool(passed[t, k])}
                     for t in range(n_tasks) for k in range(trials)]
        row = comparisons.paired_comparison(RunSet.from_records(recs), a="a", b="b", n_boot=N_BOOT).iloc[0]
        hit += row["difference_ci_low"] <= truth <= row["difference_ci_high"]
    return hit / reps


# ----------------------------------------------------------------------------- 7. every interval of the opening


def _tasks(n: int, trials: int, rng: np.random.Generator, agent=None, design=None) -> dict[str, np.ndarray]:
    """One agent's per-task sums over ``trials`` trials a condition, drawn as ``ambiglib.simulate._leaderboard``
    draws its records (tasks differ in difficulty and clarity on the logit scale; asking pays off through the
    blockers it resolves): what the opening's tables sum per task. ``design``: the tasks' (difficulty, clarity,
    blockers), shared by agents run on the same tasks; drawn when not given."""
    from ambiglib.simulate._leaderboard import SimAgent, _expit, _logit

    a = agent or SimAgent("a")
    difficulty, clarity, blockers = design if design is not None else _design(n, rng)
    p_full, p_none = _expit(_logit(a.pass_full) + difficulty), _expit(_logit(a.pass_no_tool) + difficulty)
    ask_amb, ask_full = _expit(_logit(a.ask_ambiguous) + clarity), _expit(_logit(a.ask_full) + clarity)
    asked = rng.random((n, trials)) < ask_amb[:, None]
    found = rng.binomial(np.repeat(blockers[:, None], trials, 1), a.recall) * asked
    extra = rng.poisson(a.irrelevant, (n, trials)) * asked
    empty = asked & (found + extra == 0)  # an asking run asks something
    questions = found + extra + empty
    p_with = p_none[:, None] + (p_full - p_none)[:, None] * found / blockers[:, None]
    return {"n": np.full(n, float(trials)), "asked_amb": asked.sum(1).astype(float),
            "asked_full": (rng.random((n, trials)) < ask_full[:, None]).sum(1).astype(float),
            "questions": questions.sum(1).astype(float), "relevant": found.sum(1).astype(float),
            "blockers": (blockers * trials).astype(float),
            "full": (rng.random((n, trials)) < p_full[:, None]).sum(1).astype(float),
            "none": (rng.random((n, trials)) < p_none[:, None]).sum(1).astype(float),
            "with": (rng.random((n, trials)) < p_with).sum(1).astype(float)}


def _f1_of(p, r):
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(p + r > 0, 2 * p * r / np.where(p + r > 0, p + r, 1), 0.0)


def _design(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return rng.normal(0, 1.0, n), rng.normal(0, 0.8, n), rng.integers(1, 4, n)


#: the opening's statistics of per-task sums (column totals -> value), as headline computes them
OPENING = {
    "ask rate, ambiguous": lambda t: t["asked_amb"] / t["n"],
    "ask rate, full": lambda t: t["asked_full"] / t["n"],
    "CalibScore": lambda t: _f1_of(t["asked_amb"] / t["n"], 1 - t["asked_full"] / t["n"]),
    "questions per run": lambda t: t["questions"] / t["n"],
    "precision": lambda t: t["relevant"] / t["questions"],
    "recall": lambda t: t["relevant"] / t["blockers"],
    "Ask-F1": lambda t: _f1_of(t["relevant"] / t["questions"], t["relevant"] / t["blockers"]),
    "score, full": lambda t: t["full"] / t["n"],
    "score, ambiguous, no tool": lambda t: t["none"] / t["n"],
    "score, ambiguous, with tool": lambda t: t["with"] / t["n"],
    "gain from asking (pp)": lambda t: 100 * (t["with"] - t["none"]) / t["n"],
    "gap to full (pp)": lambda t: 100 * (t["with"] - t["full"]) / t["n"],
    "gain ÷ questions per run (pp)": lambda t: 100 * (t["with"] - t["none"]) / t["questions"],
}


def _opening_intervals(c: dict[str, np.ndarray]) -> dict[str, tuple[float, float]]:
    """Each opening interval as the headline tables make it, from one agent's per-task sums ``c``."""
    half = 1 - (1 - LEVEL) / 2

    def wilson(k, n, level=LEVEL):
        ci = stats.wilson_ci_clustered(k, n, confidence=level)
        return float(ci.low[0]), float(ci.high[0])

    def lin(name, bounded=None):
        cols = list(c)
        sums = np.column_stack([c[k] for k in cols])
        ci = ratio_intervals.linearized_ci(sums, lambda t: OPENING[name]({k: t[..., i] for i, k in enumerate(cols)}), LEVEL,
                                 bounded=bounded)
        return ci.low, ci.high

    def bounds(first, second):
        (l1, h1), (l2, h2) = wilson(*first, level=half), wilson(*second, level=half)
        l1, h1, l2, h2 = (0.0 if np.isnan(v) else v for v in (l1, h1, l2, h2))
        return float(_f1_of(l1, l2)), float(_f1_of(h1, h2))

    return {"ask rate, ambiguous": wilson(c["asked_amb"], c["n"]), "ask rate, full": wilson(c["asked_full"], c["n"]),
            "CalibScore": bounds((c["asked_amb"], c["n"]), (c["n"] - c["asked_full"], c["n"])),
            "questions per run": lin("questions per run"), "precision": wilson(c["relevant"], c["questions"]),
            "recall": wilson(c["relevant"], c["blockers"]),
            "Ask-F1": bounds((c["relevant"], c["questions"]), (c["relevant"], c["blockers"])),
            "score, full": wilson(c["full"], c["n"]), "score, ambiguous, no tool": wilson(c["none"], c["n"]),
            "score, ambiguous, with tool": wilson(c["with"], c["n"]),
            "gain from asking (pp)": lin("gain from asking (pp)", 100.0),
            "gap to full (pp)": lin("gap to full (pp)", 100.0),
            "gain ÷ questions per run (pp)": lin("gain ÷ questions per run (pp)")}


def opening(n_tasks: int, trials: int, reps: int, rng: np.random.Generator) -> dict[str, float]:
    """The coverage of every interval the opening shows of one agent; the truth from 400,000 tasks."""
    big = _tasks(400_000, trials, rng)
    truth = {name: float(fn({k: v.sum() for k, v in big.items()})) for name, fn in OPENING.items()}
    hit = dict.fromkeys(OPENING, 0)
    seen = dict.fromkeys(OPENING, 0)
    for _ in range(reps):
        c = _tasks(n_tasks, trials, rng)
        for name, (low, high) in _opening_intervals(c).items():
            if np.isfinite(low) and np.isfinite(high):
                seen[name] += 1
                hit[name] += low <= truth[name] <= high
    return {name: hit[name] / max(seen[name], 1) for name in OPENING}


#: two agents compared, paired by task: the better asks more on ambiguous tasks, finds more blockers and passes more
PAIR = ({"ask_ambiguous": 0.75, "ask_full": 0.15, "recall": 0.6, "irrelevant": 0.4, "pass_full": 0.75,
         "pass_no_tool": 0.35},
        {"ask_ambiguous": 0.6, "ask_full": 0.25, "recall": 0.45, "irrelevant": 0.8, "pass_full": 0.7,
         "pass_no_tool": 0.3})
#: the differences a comparison shows, and whether its interval is the t-interval of per-task differences (a mean
#: of per-task values) or its linearized form (a pooled ratio)
DIFFERENCES = {"difference of mean score (with the tool)": ("score, ambiguous, with tool", None),
               "difference of ask rate": ("ask rate, ambiguous", None),
               "difference of gain from asking (pp)": ("gain from asking (pp)", 200.0),
               "difference of Ask-F1": ("Ask-F1", 1.0), "difference of CalibScore": ("CalibScore", 1.0),
               "difference of gain ÷ questions per run (pp)": ("gain ÷ questions per run (pp)", None)}


def differences(n_tasks: int, trials: int, reps: int, rng: np.random.Generator) -> dict[str, float]:
    """Two agents on the same tasks (:data:`PAIR`): the coverage of each difference's interval as
    ``comparisons.paired_comparison`` makes it (``interval="t"``); the truth from 400,000 shared tasks."""
    from ambiglib.simulate._leaderboard import SimAgent

    a, b = SimAgent("a", **PAIR[0]), SimAgent("b", **PAIR[1])
    design = _design(400_000, rng)
    big_a, big_b = _tasks(400_000, trials, rng, a, design), _tasks(400_000, trials, rng, b, design)
    truth = {name: float(OPENING[stat]({k: v.sum() for k, v in big_a.items()})
                         - OPENING[stat]({k: v.sum() for k, v in big_b.items()}))
             for name, (stat, _) in DIFFERENCES.items()}
    hit = dict.fromkeys(DIFFERENCES, 0)
    for _ in range(reps):
        design = _design(n_tasks, rng)
        ca, cb = _tasks(n_tasks, trials, rng, a, design), _tasks(n_tasks, trials, rng, b, design)
        cols = list(ca)
        both = np.column_stack([ca[k] for k in cols] + [cb[k] for k in cols])
        w = len(cols)
        for name, (stat, bound) in DIFFERENCES.items():
            def diff(t, stat=stat, cols=cols, w=w):
                return OPENING[stat]({k: t[..., i] for i, k in enumerate(cols)}) - \
                    OPENING[stat]({k: t[..., w + i] for i, k in enumerate(cols)})

            if stat in ("score, ambiguous, with tool", "ask rate, ambiguous", "gain from asking (pp)"):
                d = diff(both)  # each task's own difference: the statistic of its row alone
                ci = ratio_intervals.linearized_ci(np.c_[d, np.ones(n_tasks)], lambda t: t[..., 0] / t[..., 1], LEVEL,
                                         bounded=bound if bound else 1.0)
            else:
                ci = ratio_intervals.linearized_ci(both, diff, LEVEL, bounded=bound)
            if np.isfinite(ci.low):
                hit[name] += ci.low <= truth[name] <= ci.high
    return {k: v / reps for k, v in hit.items()}


def payoff_end_to_end(n_tasks: int, trials: int, reps: int, rng: np.random.Generator) -> dict[str, float]:
    """``headline.payoff`` on run logs of one agent (``ambiglib.simulate._leaderboard``): the share of replicates
    whose interval covers the population's value, for each of its intervals; the truth from 200,000 tasks."""
    from ambiglib import RunSet
    from ambiglib.answers import _headline as headline
    from ambiglib.simulate._leaderboard import SimAgent, leaderboard_records

    big = _tasks(200_000, trials, rng)
    totals = {k: v.sum() for k, v in big.items()}
    truth = {"score_full": totals["full"] / totals["n"], "score_no_tool": totals["none"] / totals["n"],
             "score_with_tool": totals["with"] / totals["n"],
             "score_gain_pp": 100 * (totals["with"] - totals["none"]) / totals["n"],
             "gap_to_full_pp": 100 * (totals["with"] - totals["full"]) / totals["n"],
             "gain_pp_per_question_per_run": 100 * (totals["with"] - totals["none"]) / totals["questions"]}
    hit = dict.fromkeys(truth, 0)
    for _ in range(reps):
        records = leaderboard_records([SimAgent("a")], n_tasks=n_tasks, trials=trials,
                                      seed=int(rng.integers(2**31)))
        row = headline.payoff(RunSet.from_records(records)).iloc[0]
        for name, value in truth.items():
            hit[name] += bool(row[f"{name}_ci_low"] <= value <= row[f"{name}_ci_high"])
    return {k: v / reps for k, v in hit.items()}


def rank_sets(n_tasks: int, trials: int, reps: int, rng: np.random.Generator) -> dict[str, float]:
    """8 agents, two pairs of them equal and the rest spread: the share of replicates in which every agent's rank
    interval holds a rank it truly has (tied agents may take either), through ``ranking.rank_agents``."""
    from ambiglib import RunSet
    from ambiglib.ranking import rank_agents
    from ambiglib.simulate._leaderboard import SimAgent, leaderboard_records

    passes = [0.3, 0.3, 0.4, 0.5, 0.5, 0.6, 0.7, 0.8]
    agents = [SimAgent(f"m{i}", pass_no_tool=p, pass_full=min(p + 0.2, 0.95)) for i, p in enumerate(passes)]
    truth = {f"m{i}": (1 + sum(q > p for q in passes), sum(q >= p for q in passes)) for i, p in enumerate(passes)}
    hit = 0
    for _ in range(reps):
        records = leaderboard_records(agents, n_tasks=n_tasks, trials=trials, seed=int(rng.integers(2**31)))
        out = rank_agents(RunSet.from_records(records), metric="mean_score", condition=("ambiguous", False),
                          n_boot=200, n_perm=999)
        hit += all(r["rank_low"] <= truth[r["agent"]][1] and r["rank_high"] >= truth[r["agent"]][0]
                   for _, r in out.iterrows())
    return {"every rank interval holds": hit / reps}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000, help="replicates per design (default 2,000)")
    args = parser.parse_args()
    reps = args.reps
    se = np.sqrt(0.95 * 0.05 / reps)
    print(f"{reps:,} replicates a design; a coverage of 0.95 is known to ±{2 * se:.3f} (two standard errors)\n")
    t0 = time.perf_counter()
    print("1. difference of mean scores, A = B + 0.1 (coverage of a 95% interval)")
    for trials in (1, 3):
        for n in (12, 20, 50):
            got = scores(n, trials, reps, np.random.default_rng(100 + n + trials))
            print(f"   {n:>3} tasks x {trials} trial(s): " + ", ".join(f"{k} {v:.3f}" for k, v in got.items()))
    print("2. ask rate, task propensities Beta(0.3, 0.3), 3 trials (coverage of a 95% interval)")
    for n in (12, 20, 50):
        got = ask_rates(n, 3, reps, np.random.default_rng(200 + n))
        print(f"   {n:>3} tasks: " + ", ".join(f"{k} {v:.3f}" for k, v in got.items()))
    print("3. difference of Ask-F1, 3 trials (coverage of a 95% interval)")
    for n in (12, 20, 50, 100):
        got = ask_f1(n, 3, reps, np.random.default_rng(300 + n))
        print(f"   {n:>3} tasks: " + ", ".join(f"{k} {v:.3f}" for k, v in got.items()))
    print("4. one agent's precision, recall and Ask-F1, 3 trials (coverage of a 95% interval; for the perfect agent,"
          " an interval that is not a point and holds 1)")
    for n in (8, 12, 20, 50):
        got = one_agent(n, 3, reps, np.random.default_rng(500 + n))
        print(f"   {n:>3} tasks: " + ", ".join(f"{k} {v:.3f}" for k, v in got.items()))
    print("5. false-positive rate at 0.05, two equal agents, one pass/fail trial a task")
    for n in (12, 20, 50):
        got = false_positives(n, reps, np.random.default_rng(400 + n))
        print(f"   {n:>3} tasks: " + ", ".join(f"{k} {v:.3f}" for k, v in got.items()))
    e2e = max(200, reps // 10)
    print(f"6. end to end, paired_comparison on run logs, design 1 at 12 tasks x 3 trials ({e2e} replicates): "
          f"coverage {end_to_end(12, 3, e2e, np.random.default_rng(512)):.3f}")
    print("7. every interval of the opening, one agent (coverage of a 95% interval)")
    table = {}
    for trials in (1, 3):
        for n in (8, 12, 20, 60):
            table[n, trials] = opening(n, trials, reps, np.random.default_rng(700 + n + trials))
    names = list(OPENING)
    print("   | interval | " + " | ".join(f"{n}x{t}" for n, t in table) + " |")
    for name in names:
        print(f"   | {name} | " + " | ".join(f"{table[d][name]:.3f}" for d in table) + " |")
    print("   and the differences between two agents, paired by task")
    for trials in (1, 3):
        for n in (8, 12, 20, 60):
            table[n, trials].update(differences(n, trials, reps, np.random.default_rng(750 + n + trials)))
    names = list(OPENING) + list(DIFFERENCES)
    print("   | interval | " + " | ".join(f"{n}x{t}" for n, t in table) + " |")
    for name in names[len(OPENING):]:
        print(f"   | {name} | " + " | ".join(f"{table[d][name]:.3f}" for d in table) + " |")
    print("   as a dict (ambiglib/stats/_coverage.py, MEASURED):")
    for name in names:
        print(f"   {name!r}: {{" + ", ".join(f"({n}, {t}): {table[n, t][name]:.3f}" for n, t in table) + "},")
    few = max(1000, reps // 2)
    _by_design(f"8. end to end, headline.payoff on run logs of one agent ({few} replicates)", payoff_end_to_end,
               (8, 12), few, 800)
    sets = max(100, reps // 20)
    _by_design(f"9. rank intervals, 8 agents (two ties), mean score without the tool ({sets} replicates)", rank_sets,
               (12, 60), sets, 900)
    print(f"\n{time.perf_counter() - t0:.0f} s")


def _by_design(title: str, fn, sizes: tuple[int, ...], reps: int, seed: int) -> None:
    """Print ``fn(n, trials, reps, rng)`` for each task count of ``sizes`` at 1 and 3 trials, each seeded apart."""
    print(title)
    for trials in (1, 3):
        for n in sizes:
            got = fn(n, trials, reps, np.random.default_rng(seed + n + trials))
            print(f"   {n:>3} tasks x {trials}: " + ", ".join(f"{k} {v:.3f}" for k, v in got.items()))


if __name__ == "__main__":
    main()
