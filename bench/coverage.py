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
from ambiglib.significance import mcnemar_exact, mcnemar_midp, paired_permutation

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
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
