"""ambiglib.metrics._reliability against hand counts: pass^k (every one of k trials passes), the flip share (the
share of tasks whose identical trials disagree) and the rerun spread (how far a second run moves the pass rate),
against τ-bench's own formula, comb(c, k)/comb(n, k) averaged over tasks, and against simulated reruns."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from builders import run
from hypothesis import given, settings
from hypothesis import strategies as st

from ambiglib import RunSet, metrics
from ambiglib.metrics import MetricError


def _log(passes: dict[str, list[bool | None]], model: str = "m", **extra) -> list[dict]:
    """Runs of one model: per task, its trials' verdicts in trial order (None: no verdict)."""
    return [run(t, model=model, spec="full", ask_tool=False, trial=i + 1, passed=p, **extra)
            for t, verdicts in passes.items() for i, p in enumerate(verdicts)]


# four tasks, four trials each: 3, 4, 0 and 2 passes
TRIALS = {"a": [True, True, False, True], "b": [True] * 4, "c": [False] * 4, "d": [True, False, False, True]}


def test_pass_hat_k_by_hand():
    rs = RunSet.from_records(_log(TRIALS))
    # k = 1: the mean pass rate, (3 + 4 + 0 + 2) / 16
    assert metrics.pass_hat_k(rs, k=1).iloc[0]["pass_hat_k"] == pytest.approx(9 / 16)
    # k = 2: C(3,2)/C(4,2) = 3/6, 1, 0, C(2,2)/C(4,2) = 1/6 -> (1/2 + 1 + 0 + 1/6) / 4 = 5/12
    out = metrics.pass_hat_k(rs, k=2).iloc[0]
    assert out["pass_hat_k"] == pytest.approx(5 / 12) and out["n_tasks"] == 4 and out["n_excluded"] == 0
    # k = 4 = n: the share of tasks passed in every trial, 1/4
    assert metrics.pass_hat_k(rs, k=4).iloc[0]["pass_hat_k"] == pytest.approx(1 / 4)
    # k = 5 > n: no task has five trials
    out = metrics.pass_hat_k(rs, k=5).iloc[0]
    assert out["n_tasks"] == 0 and np.isnan(out["pass_hat_k"])


def test_pass_hat_k_never_exceeds_pass_at_k_and_equals_it_at_k_1():
    rs = RunSet.from_records(_log(TRIALS))
    for k in (1, 2, 3):
        hat, at = metrics.pass_hat_k(rs, k=k).iloc[0]["pass_hat_k"], metrics.pass_at_k(rs, k=k).iloc[0]["pass_at_k"]
        assert hat <= at + 1e-12
        if k == 1:
            assert hat == pytest.approx(at)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.booleans(), min_size=4, max_size=4), min_size=1, max_size=8), st.integers(1, 4))
def test_pass_hat_k_is_tau_benchs_own_formula(verdicts, k):
    # τ-bench's run.py: for each task, comb(successes, k) / comb(num_trials, k), averaged over tasks
    rs = RunSet.from_records(_log({f"t{i}": v for i, v in enumerate(verdicts)}))
    expected = sum(comb(sum(v), k) / comb(len(v), k) for v in verdicts) / len(verdicts)
    assert metrics.pass_hat_k(rs, k=k).iloc[0]["pass_hat_k"] == pytest.approx(expected)


def test_errors_and_missing_verdicts_are_not_trials():
    records = _log({"a": [True, True, None], "b": [True, False]})
    records.append(run("a", spec="full", ask_tool=False, trial=9, passed=False, status="error"))
    out = metrics.pass_hat_k(RunSet.from_records(records), k=2).iloc[0]
    # a: 2 trials with a verdict, both passed -> 1; b: C(1,2)/C(2,2) = 0
    assert (out["n_tasks"], out["pass_hat_k"], out["n_excluded"]) == (2, 0.5, 1)


def test_the_flip_share_by_hand():
    rs = RunSet.from_records(_log(TRIALS) + _log({"a": [True, True], "b": [False, False], "c": [True]}, model="n"))
    out = metrics.flip_share(rs).set_index("model")
    # m: a and d have both verdicts -> 2 of 4
    assert (out.loc["m", "n_tasks"], out.loc["m", "n_flipping"], out.loc["m", "flip_share"]) == (4, 2, 0.5)
    # n: c has one trial and cannot show it; a and b agree -> 0 of 2
    assert (out.loc["n", "n_tasks"], out.loc["n", "n_flipping"], out.loc["n", "flip_share"]) == (2, 0, 0.0)


def test_intervals_resample_tasks_and_hold_the_estimate():
    rs = RunSet.from_records(_log(TRIALS))
    for fn, name, kw in ((metrics.pass_hat_k, "pass_hat_k", {"k": 2}), (metrics.flip_share, "flip_share", {})):
        out = fn(rs, ci=True, n_boot=2000, **kw).iloc[0]
        assert out[f"{name}_ci_low"] <= out[name] <= out[f"{name}_ci_high"]
        assert out[f"{name}_ci_low"] >= 0 and out[f"{name}_ci_high"] <= 1


def test_a_group_that_mixes_conditions_is_refused():
    records = _log(TRIALS) + [run("a", spec="ambiguous", ask_tool=False, trial=1, passed=True)]
    with pytest.raises(MetricError, match=r"mixes spec values"):
        metrics.pass_hat_k(RunSet.from_records(records), k=2)
    with pytest.raises(MetricError, match=r"mixes spec values"):
        metrics.flip_share(RunSet.from_records(records))


def test_grouping_by_benchmark_is_allowed():
    """``by`` may name the benchmark (the report groups by it): the per-task units are keyed by it already."""
    rs = RunSet.from_records([run(task=f"t{t}", model=m, trial=k, score=float(ok), passed=ok)
                              for t, m, k, ok in [(0, "a", 1, True), (0, "a", 2, False), (1, "a", 1, True),
                                                  (1, "a", 2, True), (0, "b", 1, False), (0, "b", 2, False)]])
    nf = metrics.flip_share(rs, by=("benchmark", "model")).set_index("model")
    assert nf.loc["a", "flip_share"] == 0.5 and nf.loc["b", "flip_share"] == 0.0
    ph = metrics.pass_hat_k(rs, k=2, by=("benchmark", "model")).set_index("model")
    assert ph.loc["a", "pass_hat_k"] == 0.5 and ph.loc["b", "pass_hat_k"] == 0.0
    pk = metrics.pass_at_k(rs, k=2, by=("benchmark", "model")).set_index("model")
    assert pk.loc["a", "pass_at_k"] == 1.0 and pk.loc["b", "pass_at_k"] == 0.0


def test_the_reliability_table_by_hand():
    """Model a on t1: pass, pass, fail; t2: pass, pass, pass; t3: fail once (one trial). k = 2:
    pass@1 = mean(2/3, 1, 0) = 5/9; pass@2 (tasks with ≥ 2 trials) = mean(1 − C(1,2)/C(3,2), 1) = 1;
    pass^2 = mean(C(2,2)/C(3,2), 1) = (1/3 + 1)/2; flip share: t1 flips, t2 does not, t3 has one trial: 1/2."""
    from ambiglib import tables

    rs = RunSet.from_records([run(task=t, model="a", trial=i + 1, score=float(p), passed=p)
                              for t, outcomes in (("t1", (True, True, False)), ("t2", (True, True, True)),
                                                  ("t3", (False,)))
                              for i, p in enumerate(outcomes)])
    row = tables.reliability(rs, k=2, conventions={"hil-bench": "neutral"}).iloc[0]
    assert (row["n_tasks"], row["n_tasks_k"], row["n_tasks_repeated"]) == (3, 2, 2)
    assert row["pass_at_1"] == pytest.approx(5 / 9)
    assert row["pass_at_k"] == pytest.approx(1.0)
    assert row["pass_hat_k"] == pytest.approx((1 / 3 + 1) / 2)
    assert row["flip_share"] == pytest.approx(0.5)
    # rerun spread over t1 and t2: s² = c(K − c)/(K(K − 1)) = 2·1/6 = 1/3 and 0; √(2 · (1/3)/3) / 2
    assert row["rerun_sd"] == pytest.approx(np.sqrt(2 * (1 / 3) / 3) / 2)
    once = tables.reliability(rs.filter(trial=1), k=2, conventions={"hil-bench": "neutral"})
    assert once["pass_hat_k"].isna().all() and once["flip_share"].isna().all() and once["rerun_sd"].isna().all()
    assert "fewer than k = 2 trials" in once.attrs["empty"]["pass_hat_k"]
    assert "tried once" in once.attrs["empty"]["flip_share"]


def test_the_rerun_spread_by_hand():
    """m: a 3 of 4, b 4 of 4, c 0 of 4, d 2 of 4. s² = c(K − c)/(K(K − 1)): 3/12, 0, 0, 4/12. Between two runs of
    four trials a task: √(2 Σ s²/4)/4; of one trial a task: √(2 Σ s²)/4 (Miller 2024: √(Σ 2p(1 − p))/n)."""
    out = metrics.rerun_sd(RunSet.from_records(_log(TRIALS))).iloc[0]
    s2 = 3 / 12 + 4 / 12
    assert out["n_tasks"] == 4
    assert out["rerun_sd"] == pytest.approx(np.sqrt(2 * s2 / 4) / 4)
    assert out["rerun_sd_one_trial"] == pytest.approx(np.sqrt(2 * s2) / 4)


def test_the_rerun_spread_is_the_spread_of_simulated_reruns_and_shrinks_with_tasks_while_the_flip_share_grows():
    """Issue 55: agents whose per-task pass rates follow Beta(0.8, 0.8). Rerunning one agent many times (seeded),
    the standard deviation of the difference between two runs' pass@1 is what rerun_sd estimates from one run's
    trials; it falls as tasks are added, while the flip share does not fall, and rises with the trials."""
    rng = np.random.default_rng(0)

    def one_run(p: np.ndarray, trials: int) -> RunSet:
        passed = rng.random((len(p), trials)) < p[:, None]
        return RunSet.from_records(_log({f"t{i}": list(map(bool, row)) for i, row in enumerate(passed)}))

    spreads, flips = {}, {}
    for n in (50, 400):
        p = rng.beta(0.8, 0.8, n)
        reruns = rng.random((2000, 2, n, 3)) < p[None, None, :, None]  # 2,000 pairs of runs, 3 trials a task
        truth = np.std(reruns[:, 0].mean(axis=(1, 2)) - reruns[:, 1].mean(axis=(1, 2)))
        got = metrics.rerun_sd(one_run(p, 3)).iloc[0]["rerun_sd"]
        assert got == pytest.approx(truth, rel=0.25), n
        spreads[n] = got
        flips[n] = metrics.flip_share(one_run(p, 3)).iloc[0]["flip_share"]
    assert spreads[400] < spreads[50] / 2  # 1/√tasks: √8 ≈ 2.8 times smaller
    assert flips[400] > flips[50] - 0.1  # no shrinking with tasks
    p = rng.beta(0.8, 0.8, 200)
    by_trials = [metrics.flip_share(one_run(p, k)).iloc[0]["flip_share"] for k in (2, 5, 10)]
    assert by_trials[0] < by_trials[1] < by_trials[2]  # grows with the trials (≈0.31, 0.62, 0.77 expected)
