"""Benchmark: ambiglib's bootstraps against scipy.stats.bootstrap doing the same work.

1. A paired bootstrap of the mean difference, 10,000 replicates, for 20 cells x 61
   tasks (Ambig-DS's Δ CIs): ``stats.paired_bootstrap_ci`` on a 20 x 61 array, against
   ``scipy.stats.bootstrap`` (vectorised, percentile) once per cell.
2. A task-level cluster bootstrap of Ask-F1 (precision, recall and F1 intervals),
   10,000 replicates, for 300 tasks x 3 trials x 8 models: ``metrics.ask_f1(ci=True)``
   end to end, and its bootstrap step alone, against ``scipy.stats.bootstrap``
   (paired over the per-task sums, vectorised, percentile) once per model and statistic.

Target: at least 10x faster. Run ``python bench/stats.py``; copy the figures into
docs/performance.md.
"""

from __future__ import annotations

import platform
import time

import numpy as np
import pandas as pd
import scipy
from scipy import stats as sps

from ambiglib import RunSet, metrics, stats
from ambiglib.metrics._common import _cluster_ci

N_BOOT = 10_000


def best_of(fn, repeat=3):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def paired() -> tuple[float, float]:
    rng = np.random.default_rng(0)
    a, b = rng.random((20, 61)), rng.random((20, 61))
    t_ours, (low, high) = best_of(lambda: stats.paired_bootstrap_ci(a, b, n_boot=N_BOOT, seed=0))

    def scipy_cells():
        out = []
        for i in range(20):
            res = sps.bootstrap((a[i] - b[i],), np.mean, n_resamples=N_BOOT, method="percentile",
                                vectorized=True, random_state=np.random.default_rng(0))
            out.append((res.confidence_interval.low, res.confidence_interval.high))
        return out

    t_scipy, theirs = best_of(scipy_cells)
    # same statistic, different draws: the intervals agree to Monte-Carlo error
    assert np.allclose(low, [t[0] for t in theirs], atol=0.02) and np.allclose(high, [t[1] for t in theirs], atol=0.02)
    return t_ours, t_scipy


def ask_f1_log(n_tasks=300, n_trials=3, n_models=8, seed=0) -> RunSet:
    rng = np.random.default_rng(seed)
    records = []
    for t in range(n_tasks):
        n_b = int(rng.integers(3, 6))
        records.append({"record": "task", "benchmark": "hil-bench", "suite": "sql", "task_id": f"t{t}",
                        "blockers": [{"id": f"b{i}"} for i in range(n_b)]})
        for m in range(n_models):
            for trial in range(1, n_trials + 1):
                asks = [{"text": "q?", "blocker_id": f"b{rng.integers(n_b)}" if rng.random() < 0.5 else None}
                        for _ in range(rng.poisson(1.5))]
                records.append({"benchmark": "hil-bench", "suite": "sql", "task_id": f"t{t}", "model": f"m{m}",
                                "spec": "ambiguous", "ask_tool": True, "trial": trial, "questions": asks})
    return RunSet.from_records(records)


def cluster() -> tuple[float, float, float]:
    rs = ask_f1_log()
    t_end, out = best_of(lambda: metrics.ask_f1(rs, ci=True, n_boot=N_BOOT))
    assert len(out) == 8

    # the per-task sums both bootstraps start from
    runs = rs.runs[["run_id", "task_id", "model", "n_questions"]].astype({"task_id": object, "model": object})
    q = rs.questions[rs.questions["relevant"].astype(bool)]
    runs["rel"] = runs["run_id"].map(q.groupby("run_id").size()).fillna(0)
    runs["disc"] = runs["run_id"].map(q.groupby("run_id")["blocker_id"].nunique()).fillna(0)
    runs["b"] = runs["task_id"].map(rs.tasks.astype({"task_id": object}).set_index("task_id")["n_blockers"]).astype(float)
    sums = runs.groupby(["model", "task_id"])[["n_questions", "rel", "disc", "b"]].sum().reset_index()

    def f1_stats(t):
        p, r = t["rel"] / t["n_questions"], t["disc"] / t["b"]
        return {"precision": p, "recall": r, "ask_f1": 2 * p * r / (p + r)}

    t_ours, _ = best_of(lambda: _cluster_ci(sums, ["model"], "task_id", f1_stats, N_BOOT, 0, 0.95))

    def scipy_models():
        out = []
        for _, g in sums.groupby("model"):
            data = tuple(g[c].to_numpy(float) for c in ("n_questions", "rel", "disc", "b"))

            def precision(nq, rel, disc, b, axis=-1):
                return rel.sum(axis) / nq.sum(axis)

            def recall(nq, rel, disc, b, axis=-1):
                return disc.sum(axis) / b.sum(axis)

            def f1(nq, rel, disc, b, axis=-1):
                p, r = precision(nq, rel, disc, b, axis), recall(nq, rel, disc, b, axis)
                return 2 * p * r / (p + r)

            for fn in (precision, recall, f1):
                res = sps.bootstrap(data, fn, paired=True, vectorized=True, n_resamples=N_BOOT,
                                    method="percentile", random_state=np.random.default_rng(0))
                out.append(res.confidence_interval)
        return out

    t_scipy, _ = best_of(scipy_models)
    return t_end, t_ours, t_scipy


def main() -> None:
    print(f"machine: {platform.platform()}, Python {platform.python_version()}, numpy {np.__version__},"
          f" scipy {scipy.__version__}, pandas {pd.__version__}; best of 3, {N_BOOT:,} replicates")
    t_ours, t_scipy = paired()
    ratio = t_scipy / t_ours
    print(f"paired bootstrap, 20 cells x 61 tasks:     ambiglib {t_ours * 1000:7.1f} ms   scipy.stats.bootstrap"
          f" {t_scipy * 1000:7.1f} ms   {ratio:5.1f}x faster  (target >= 10x: {'PASS' if ratio >= 10 else 'FAIL'})")
    t_end, t_ours, t_scipy = cluster()
    ratio, ratio_end = t_scipy / t_ours, t_scipy / t_end
    print(f"Ask-F1 task bootstrap, 300 x 3 x 8 models: ambiglib {t_ours * 1000:7.1f} ms   scipy.stats.bootstrap"
          f" {t_scipy * 1000:7.1f} ms   {ratio:5.1f}x faster  (target >= 10x: {'PASS' if ratio >= 10 else 'FAIL'})")
    print(f"  metrics.ask_f1(ci=True) end to end, from the RunSet: {t_end * 1000:7.1f} ms"
          f"   {ratio_end:5.1f}x faster than scipy's bootstrap step alone")


if __name__ == "__main__":
    main()
