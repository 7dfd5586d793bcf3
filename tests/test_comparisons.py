"""Is agent A better than agent B: paired comparisons (ambiglib.comparisons, ``ambiglib compare``) on logs built by
hand, checked against statsmodels and scipy on the same pairs and against counts by hand."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import scipy.stats as sps
from builders import q, run, task
from conftest import write_jsonl
from statsmodels.stats.contingency_tables import mcnemar

from ambiglib import comparisons
from ambiglib.runset import RunSet

# one pass/fail trial per task and model: A passes 0-8, B passes 0-1 and 9: b = 7 discordant for A, c = 1 for B
A_PASS = set(range(9))
B_PASS = {0, 1, 9}
N = 12


def _pass_fail() -> list[dict]:
    recs = []
    for t in range(N):
        for model, passes in (("model-a", A_PASS), ("model-b", B_PASS)):
            ok = t in passes
            recs.append(run(task=f"t{t}", model=model, score=float(ok), passed=ok))
    return recs


def test_the_sides_keep_the_order_given_and_difference_is_a_minus_b():
    rs = RunSet.from_records(_pass_fail())
    ab = comparisons.paired_comparison(rs, a="model-a", b="model-b", n_boot=200)
    ba = comparisons.paired_comparison(rs, a="model-b", b="model-a", n_boot=200)
    assert (ab["model_a"].item(), ab["model_b"].item()) == ("model-a", "model-b")
    assert (ba["model_a"].item(), ba["model_b"].item()) == ("model-b", "model-a")
    assert ab["difference"].item() == pytest.approx((len(A_PASS) - len(B_PASS)) / N)
    assert ba["difference"].item() == pytest.approx(-ab["difference"].item())
    assert ba["difference_ci_low"].item() == pytest.approx(-ab["difference_ci_high"].item())
    # with and without the tool: the order given, not True first
    tool = [run(task=f"t{t}", model="m", ask_tool=tool_, score=float(tool_ or t < 3), passed=tool_ or t < 3)
            for t in range(N) for tool_ in (True, False)]
    rs = RunSet.from_records(tool)
    out = comparisons.paired_comparison(rs, between="ask_tool", a=False, b=True, n_boot=200)
    assert (out["ask_tool_a"].item(), out["ask_tool_b"].item()) == (False, True)
    assert out["difference"].item() == pytest.approx(3 / N - 1)


def test_pass_fail_with_one_trial_gets_the_exact_mcnemar_test_of_statsmodels():
    rs = RunSet.from_records(_pass_fail())
    row = comparisons.paired_comparison(rs, metric="mean_score", a="model-a", b="model-b", test="mcnemar",
                                        n_boot=200).iloc[0]
    b = len(A_PASS - B_PASS)
    c = len(B_PASS - A_PASS)
    both, neither = len(A_PASS & B_PASS), N - len(A_PASS | B_PASS)
    ref = mcnemar([[both, b], [c, neither]], exact=True)
    assert row["test"] == f"exact McNemar ({b} vs {c} discordant)"
    assert (row["statistic"], row["p_value"]) == (pytest.approx(ref.statistic), pytest.approx(ref.pvalue))
    assert row["n_differing"] == b + c == 8
    # its smallest attainable p with 8 discordant tasks: both on one side, 2 · 0.5^8
    assert row["p_smallest"] == pytest.approx(2 * 0.5 ** 8)
    # pass@1 of one trial is the same outcome: the same test
    pk = comparisons.paired_comparison(rs, metric="pass_at_k", k=1, a="model-a", b="model-b", test="mcnemar",
                                       n_boot=200).iloc[0]
    assert pk["test"] == row["test"] and pk["p_value"] == pytest.approx(ref.pvalue)
    # one-sided: the binomial test of b in b + c
    one = comparisons.paired_comparison(rs, a="model-a", b="model-b", alternative="greater", test="mcnemar",
                                        n_boot=200).iloc[0]
    assert one["p_value"] == pytest.approx(sps.binomtest(b, b + c, 0.5, alternative="greater").pvalue)
    # the default for one pass/fail trial a task is McNemar's mid-p form: 2 · (P(X ≤ 1) − P(X = 1) / 2), X ~ B(8, ½)
    auto = comparisons.paired_comparison(rs, a="model-a", b="model-b", n_boot=200).iloc[0]
    assert auto["test"] == f"mid-p McNemar ({b} vs {c} discordant)"
    assert auto["p_value"] == pytest.approx(2 * (sps.binom.cdf(1, 8, 0.5) - sps.binom.pmf(1, 8, 0.5) / 2))
    assert auto["p_smallest"] == pytest.approx(0.5 ** 8)
    # fewer than 10 discordant pairs: the note says the test has little power
    out = comparisons.paired_comparison(rs, a="model-a", b="model-b", n_boot=200)
    assert "fewer than 10 tasks whose sides differ (as few as 8)" in out.attrs["note"]


def test_scores_get_the_paired_permutation_test_of_scipy():
    rng = np.random.default_rng(7)
    scores = {m: rng.uniform(0, 1, size=(N, 3)) for m in ("model-a", "model-b")}
    recs = [run(task=f"t{t}", model=m, trial=k + 1, score=float(scores[m][t, k]))
            for m in scores for t in range(N) for k in range(3)]
    rs = RunSet.from_records(recs)
    row = comparisons.paired_comparison(rs, a="model-a", b="model-b", n_boot=200, seed=4).iloc[0]
    x, y = scores["model-a"].mean(axis=1), scores["model-b"].mean(axis=1)  # each task's mean over its trials
    ref = sps.permutation_test((x, y), lambda u, v, axis: u.mean(axis=axis) - v.mean(axis=axis),
                               permutation_type="samples", vectorized=True, n_resamples=9999, rng=4)
    assert row["test"] == "paired permutation (exact, 4,096 sign flips)"
    assert (row["statistic"], row["p_value"]) == (pytest.approx(ref.statistic), pytest.approx(ref.pvalue))
    assert row["difference"] == pytest.approx(x.mean() - y.mean())
    # a mean of per-task values: the t-interval of the per-task differences, labelled
    ci = sps.ttest_1samp(x - y, 0).confidence_interval(0.95)
    assert (row["difference_ci_low"], row["difference_ci_high"]) == (pytest.approx(ci.low), pytest.approx(ci.high))
    assert (row["ci_level"], row["ci_method"]) == (0.95, "t-interval of the per-task differences")
    # the probability of improvement compares the runs within each task (rliable), averaged over the tasks
    wins = [sps.mannwhitneyu(scores["model-a"][t], scores["model-b"][t]).statistic / 9 for t in range(N)]
    assert row["prob_improvement"] == pytest.approx(np.mean(wins))
    # the rerun spread: √(2 (Σ var_a/3 + Σ var_b/3))/12, each task's variance over its 3 trials
    var = sum(np.var(scores[m], axis=1, ddof=1) / 3 for m in scores)
    assert row["rerun_sd"] == pytest.approx(np.sqrt(2 * var.sum()) / N)
    # by hand: all 2^12 sign patterns of the per-task differences
    d = x - y
    null = np.array([np.mean(np.where(s, -d, d)) for s in itertools.product((False, True), repeat=N)])
    eps = 1e-12
    p = min(1.0, 2 * min((null <= d.mean() + eps).mean(), (null >= d.mean() - eps).mean()))
    assert row["p_value"] == pytest.approx(p)
    # Wilcoxon when asked for, on the same per-task values
    wil = comparisons.paired_comparison(rs, a="model-a", b="model-b", test="wilcoxon", n_boot=200).iloc[0]
    ref = sps.wilcoxon(x, y, zero_method="wilcox")
    assert wil["test"].startswith("Wilcoxon") and wil["p_value"] == pytest.approx(ref.pvalue)
    with pytest.raises(ValueError, match="needs one pass/fail trial per task and side"):
        comparisons.paired_comparison(rs, a="model-a", b="model-b", test="mcnemar", n_boot=200)


def test_a_task_where_a_side_asked_nothing_is_left_out_of_precision_values_interval_and_test():
    recs = [task(f"t{t}", n_blockers=2) for t in range(6)]
    for t in range(6):
        # A asks on every task: one relevant, one irrelevant question (precision 0.5); B asks only on t0-t2,
        # one relevant question each (precision 1); on t3-t5 B asks nothing: no precision there
        recs.append(run(task=f"t{t}", model="model-a", score=1.0, questions=[q("b0"), q(None, "off topic?")]))
        recs.append(run(task=f"t{t}", model="model-b", score=1.0, questions=[q("b1")] if t < 3 else []))
    rs = RunSet.from_records(recs)
    row = comparisons.paired_comparison(rs, metric="precision", a="model-a", b="model-b", n_boot=500).iloc[0]
    assert row["n_tasks"] == 6 and row["n_pairs"] == 3
    assert (row["value_a"], row["value_b"], row["difference"]) == (0.5, 1.0, -0.5)
    # the interval is over the 3 tasks where both asked, each giving the same difference: never a point, but the
    # difference ± the share of tasks that could differ unseen (Wilson's bound for 0 of 3, t on 2 degrees of
    # freedom), within the range a difference of two shares has
    t = sps.t.ppf(0.975, 2)
    half = t * t / (3 + t * t)
    assert (row["difference_ci_low"], row["difference_ci_high"]) == (max(-1.0, -0.5 - half), pytest.approx(-0.5 + half))
    assert "every task alike" in row["ci_method"]
    # the test uses the same 3 tasks: 2^3 flips, the observed difference is the most extreme
    assert row["test"] == "paired permutation (exact, 8 sign flips)" and row["n_differing"] == 3
    assert row["p_value"] == pytest.approx(2 / 8)
    assert row["statistic"] == pytest.approx(-0.5)
    # recall is defined on every task (each registers blockers): all 6 pairs
    rec = comparisons.paired_comparison(rs, metric="recall", a="model-a", b="model-b", n_boot=200).iloc[0]
    assert rec["n_pairs"] == 6 and rec["value_b"] == pytest.approx(3 / 12)


def test_the_condition_is_printed_and_can_be_chosen():
    recs = []
    for t in range(N):
        for m, shift in (("model-a", 0.2), ("model-b", 0.0)):
            recs.append(run(task=f"t{t}", model=m, spec="full", ask_tool=False, score=0.5 + shift))
            recs.append(run(task=f"t{t}", model=m, score=0.3 + (t % 3) / 10))
    rs = RunSet.from_records(recs)
    default = comparisons.paired_comparison(rs, n_boot=200)
    assert default["condition"].item() == "ambiguous tasks with the ask tool" and default["difference"].item() == 0
    full = comparisons.paired_comparison(rs, condition=("full", False), n_boot=200)
    assert full["condition"].item() == "fully specified tasks without the ask tool"
    assert full["difference"].item() == pytest.approx(0.2)
    with pytest.raises(ValueError, match="precision compares ambiguous tasks with the ask tool: it fixes its own runs"):
        comparisons.paired_comparison(rs, metric="precision", condition=("full", False))
    # a condition the log does not have: nothing to compare, naming what it has
    none = comparisons.paired_comparison(rs, condition=("ambiguous", False), n_boot=200)
    assert len(none) == 0
    assert none.attrs["note"] == ("no solve runs on ambiguous tasks without the ask tool in this log (it has:"
                                  " ambiguous tasks with the ask tool; fully specified tasks without the ask tool);"
                                  " choose one with --condition")


def test_nothing_to_compare_names_what_is_missing():
    only_tool = RunSet.from_records([run(task=f"t{t}", model=m, score=1.0) for t in range(3)
                                     for m in ("model-a", "model-b")])
    out = comparisons.paired_comparison(only_tool, metric="gain_per_question", n_boot=100)
    assert len(out) == 0 and out.attrs["note"].startswith(
        "gain_per_question compares runs with and without the ask tool on the same ambiguous tasks, and this log has"
        " no runs without the tool")
    out = comparisons.paired_comparison(only_tool, metric="calib_score", n_boot=100)
    assert out.attrs["note"].startswith("calib_score needs runs with the ask tool on both fully specified and"
                                        " ambiguous tasks")
    two = RunSet.from_records([run(task=f"t{t}", model=m, trial=k, score=1.0, passed=True) for t in range(3)
                               for m in ("model-a", "model-b") for k in (1, 2)])
    out = comparisons.paired_comparison(two, metric="pass_at_k", k=3, n_boot=100)
    assert len(out) == 0 and out.attrs["note"].endswith(
        "model-a vs model-b, 3 shared task(s): no pass_at_k on both sides of any shared task (fewer than k = 3 trials"
        " on a side; as few as 2 trials: set k to 2 (--k 2))")
    three = RunSet.from_records([run(task=f"t{t}", model=m, trial=k, score=1.0, passed=True) for t in range(3)
                                 for m in ("model-a", "model-b", "model-c") for k in (1, 2)])
    out = comparisons.paired_comparison(three, metric="pass_at_k", k=3, n_boot=100)  # one reason, said once
    assert len(out) == 0 and out.attrs["note"].startswith("3 pairs: no pass_at_k on both sides of any shared task")
    assert out.attrs["note"].count("no pass_at_k") == 1 and "(first: " in out.attrs["note"]
    assert "model-a vs model-b" in out.attrs["note"] and "model-b vs model-c" in out.attrs["note"]


def test_compare_from_the_command_line_keeps_the_order_in_every_format(tmp_path):
    log = write_jsonl(tmp_path / "log.jsonl", _pass_fail())
    base = [sys.executable, "-m", "ambiglib", "compare", "--runs", str(log), "--n-boot", "200", "--a", "model-b",
            "--b", "model-a"]
    for fmt in ("table", "csv", "md", "json"):
        done = subprocess.run([*base, "--format", fmt], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        if fmt == "json":
            rows = json.loads(done.stdout)
            assert (rows[0]["model_a"], rows[0]["model_b"]) == ("model-b", "model-a")
            assert rows[0]["difference"] == pytest.approx(-0.5)
        elif fmt == "csv":
            from io import StringIO

            frame = pd.read_csv(StringIO(done.stdout))
            assert frame.loc[0, ["model_a", "model_b"]].tolist() == ["model-b", "model-a"]
        else:
            first = next(line for line in done.stdout.splitlines() if "model-b" in line)
            assert first.index("model-b") < first.index("model-a")
        if fmt == "table":
            # issue 72: the metric in words, and the difference by the sides' names as the rows below give it
            assert done.stdout.startswith("mean score on ambiguous tasks with the ask tool, paired by task;"
                                          " difference = model_a − model_b (model-b − model-a)")
            assert "mid-p McNemar (1 vs 7 discordant)" in done.stdout
            assert "1 of 1 comparison(s) rest on fewer than 10 tasks" in done.stdout
        else:
            assert "1 of 1 comparison(s) rest on fewer than 10 tasks" in done.stderr
    full = subprocess.run([*base, "--condition", "full"], capture_output=True, text=True)
    assert full.returncode == 1 and "no solve runs on fully specified tasks without the ask tool in this log" \
        in full.stderr and "choose one with --condition" in full.stderr
    bad = subprocess.run([*base, "--metric", "precision", "--condition", "full"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--condition applies to mean_score and pass_at_k" in bad.stderr
    tool = subprocess.run([sys.executable, "-m", "ambiglib", "compare", "--runs", str(log), "--between", "ask_tool",
                           "--a", "maybe", "--b", "true"], capture_output=True, text=True)
    assert tool.returncode == 2 and "takes --a and --b as true or false (got 'maybe')" in tool.stderr


def test_a_permutation_test_of_random_flips_agrees_with_scipys_within_its_noise():
    """Above 2^20 flip patterns (20 tasks) the test draws 9,999 random ones (a coin per task) instead of scipy's
    permutations: the p-value counted as scipy counts it, so the two differ only by Monte Carlo noise, whose
    standard error the test gives (2 √(q(1 − q)/R) two-sided, q the smaller tail)."""
    from ambiglib.stats._significance import paired_permutation

    rng = np.random.default_rng(11)
    for n, shift in ((40, 0.05), (300, 0.03)):
        x, y = rng.random(n), rng.random(n) + shift
        mine = paired_permutation(x, y, lambda t, n=n: t / n, seed=3)
        ref = sps.permutation_test((x, y), lambda u, v, axis: u.mean(axis=axis) - v.mean(axis=axis),
                                   permutation_type="samples", vectorized=True, rng=5)
        noise = 2 * np.sqrt(2 * ref.pvalue * (1 - ref.pvalue) / 9999) + 1e-3
        assert mine.test == "paired permutation (9,999 sign flips)" and mine.n_flips == 9999
        assert mine.statistic == pytest.approx(ref.statistic) and abs(mine.p_value - ref.pvalue) < 2 * noise, n
        q = mine.p_value / 2
        assert mine.mc_se == pytest.approx(2 * np.sqrt(q * (1 - q) / 9999))


def _beta_log(n_tasks: int, trials: int, shifts: dict[str, float], seed: int = 1) -> RunSet:
    """Pass/fail agents whose per-task pass rates are Beta(0.8, 0.8) draws shifted per agent (seeded)."""
    rng = np.random.default_rng(seed)
    base = rng.beta(0.8, 0.8, n_tasks)
    recs = []
    for model, shift in shifts.items():
        p = np.clip(base + shift, 0, 1)
        for t in range(n_tasks):
            for k in range(trials):
                ok = bool(rng.random() < p[t])
                recs.append(run(task=f"t{t:03d}", model=model, trial=k + 1, benchmark="own", suite="s",
                                score=float(ok), passed=ok))
    return RunSet.from_records(recs)


def test_a_strong_difference_over_many_trials_is_never_called_noise():
    """Issue 55: 200 tasks × 5 trials, A − B ≈ +0.07 with a task-clustered interval far from 0. The flip share of
    these agents is ~0.65; the difference is well below it and is a clear difference, which nothing calls noise.
    The rerun spread beside it is a few points, and the interval is computed independently here (scipy's t)."""
    rs = _beta_log(200, 5, {"A": 0.12, "B": 0.0, "C": -0.05})
    out = comparisons.paired_comparison(rs, n_boot=200)
    runs = rs.runs
    per = runs.groupby(["model", "task_id"])["score"].mean().unstack(0)
    for r in out.itertuples():
        d = (per[r.model_a] - per[r.model_b]).to_numpy()
        ci = sps.ttest_1samp(d, 0).confidence_interval()
        assert (r.difference_ci_low, r.difference_ci_high) == (pytest.approx(ci.low), pytest.approx(ci.high))
        assert r.difference_ci_low > 0 and r.p_holm < 0.01 and r.rerun_sd < 0.03
    assert "noise" not in out.attrs.get("note", "") and "noise_floor" not in out.columns
    from ambiglib import metrics

    assert metrics.flip_share(rs, by=("model",))["flip_share"].min() > out["difference"].abs().max()


def test_holm_over_hundreds_of_rows_can_still_find_a_model_better_on_every_task():
    """Issue 55: with 60 tasks 2^60 flip patterns cannot be enumerated, and 9,999 random flips give p ≥ 2/10,000,
    which Holm over 300 rows (25 models) makes ≥ 0.05 for every row. The test draws enough flips for the table's
    size: the model better than every other on every task is significant against each of them."""
    rng = np.random.default_rng(0)
    recs = [run(task=f"t{t}", model=f"m{m:02d}", score=1.0 if m == 0 else float(rng.uniform(0, 0.9)))
            for m in range(25) for t in range(60)]
    out = comparisons.paired_comparison(RunSet.from_records(recs), n_boot=50)
    assert len(out) == 300
    best = out[out["model_a"] == "m00"]
    assert len(best) == 24 and (best["p_holm"] < 0.05).all()
    flips = int(best["test"].iloc[0].split("(")[1].split()[0].replace(",", ""))
    assert 2 * 300 / (flips + 1) < 0.05  # the floor of Holm's p, below the threshold
    assert best["p_value"].to_numpy() == pytest.approx(2 / (flips + 1))  # nothing of the other flips as extreme


def test_counts_that_drive_verdicts_use_the_metrics_inputs_and_tasks_left_out_are_counted():
    """n_differing counts the tasks whose swap moves the statistic: mean scores equal on a task count as alike
    even where the two sides ran a different number of trials there. n_tasks counts tasks with a usable run on
    both sides; a task both ran whose runs on one side all errored is counted in n_tasks_left_out."""
    recs = []
    for t in range(12):
        a_scores = [1.0] if t < 8 else [0.0, 0.0]
        b_scores = [1.0, 1.0, 1.0] if t < 4 else [0.0]
        recs += [run(task=f"t{t}", model="a", trial=k + 1, score=v) for k, v in enumerate(a_scores)]
        recs += [run(task=f"t{t}", model="b", trial=k + 1, score=v) for k, v in enumerate(b_scores)]
    recs += [run(task="t12", model="a", score=1.0), run(task="t12", model="b", status="error")]
    row = comparisons.paired_comparison(RunSet.from_records(recs), a="a", b="b", n_boot=100).iloc[0]
    assert row["n_differing"] == 4  # t4..t7: a 1, b 0; every other task scores alike on both sides
    assert (row["n_tasks"], row["n_tasks_left_out"], row["n_pairs"]) == (12, 1, 12)


def test_mid_p_mcnemar_is_offered_and_an_interval_that_disagrees_with_the_test_says_why():
    """8 discordant tasks, 7 to 1: exact McNemar gives p = 0.070 while the t-interval of the 12 differences
    excludes 0; the row says they disagree and why. The mid-p form (Fagerland et al. 2013) rejects."""
    rs = RunSet.from_records(_pass_fail())
    row = comparisons.paired_comparison(rs, a="model-a", b="model-b", test="mcnemar", n_boot=200).iloc[0]
    d = np.array([float(t in A_PASS) - float(t in B_PASS) for t in range(N)])
    ci = sps.ttest_1samp(d, 0).confidence_interval()
    assert (row["difference_ci_low"], row["difference_ci_high"]) == (pytest.approx(ci.low), pytest.approx(ci.high))
    assert ci.low > 0 and row["p_value"] > 0.05
    assert "excludes 0 but the test does not reject" in row["ci_vs_test"]
    assert "exact McNemar is conservative with 8 discordant tasks" in row["ci_vs_test"]
    mid = comparisons.paired_comparison(rs, a="model-a", b="model-b", test="mcnemar-midp", n_boot=200).iloc[0]
    from math import comb

    midp = 2 * (sum(comb(8, i) for i in range(2)) - comb(8, 1) / 2) / 2 ** 8
    assert mid["test"] == "mid-p McNemar (7 vs 1 discordant)" and mid["p_value"] == pytest.approx(midp)
    assert mid["p_value"] < 0.05 and pd.isna(mid["ci_vs_test"])
    assert "decide alike" in mid.attrs["empty"]["ci_vs_test"]


def test_calib_score_compares_when_clear_and_ambiguous_tasks_are_different_tasks():
    """Issue 55: half the tasks are fully specified, the other half ambiguous (different task ids). CalibScore
    comes from the two pooled ask rates, so it compares; the note says the specs are unpaired."""
    recs = []
    for t in range(20):
        spec = "ambiguous" if t < 10 else "full"
        for model, asks in (("asker", spec == "ambiguous"), ("pester", True)):
            recs.append(run(task=f"t{t}", model=model, spec=spec, score=1.0,
                            questions=[q(None, "which one?")] if asks else []))
    out = comparisons.paired_comparison(RunSet.from_records(recs), metric="calib_score", n_boot=300)
    row = out.iloc[0]
    # asker: asks on all ambiguous, none of the full -> 1.0; pester: asks on all -> harmonic mean of 1 and 0 = 0
    assert (row["value_a"], row["value_b"]) == (pytest.approx(1.0), pytest.approx(0.0))
    assert row["n_pairs"] == 20 and "different tasks" in out.attrs["note"]


def test_gain_per_question_is_per_run_and_means_the_same_at_any_number_of_epochs():
    """Issue 55: LHAW's Gain/Q divides the gain by all questions, so it falls with the epochs while the gain does
    not; per run (gain ÷ questions per with-tool run) it changes by less than a third between 1 and 3 epochs."""
    def log(epochs: int) -> RunSet:
        rng = np.random.default_rng(0)
        recs = []
        for model, asks in (("a", 2), ("b", 1)):
            for t in range(40):
                for e in range(epochs):
                    for tool in (False, True):
                        ok = bool(rng.random() < (0.85 if tool else 0.2) - (0.1 if model == "b" else 0))
                        recs.append(run(task=f"t{t}", model=model, ask_tool=tool, trial=e + 1, score=float(ok),
                                        passed=ok, questions=[q(None, f"q{i}?") for i in range(asks)] if tool else []))
        return RunSet.from_records(recs)

    values = {}
    for epochs in (1, 3):
        rs = log(epochs)
        row = comparisons.paired_comparison(rs, metric="gain_per_question", a="a", b="b", n_boot=100).iloc[0]
        from ambiglib import metrics

        voi = metrics.value_of_information(rs, by=("model",), k=1).set_index("model")
        for side, model in (("value_a", "a"), ("value_b", "b")):
            per_run = voi.loc[model, "n_questions"] / voi.loc[model, "n_trials_with_tool"]
            assert row[side] == pytest.approx(voi.loc[model, "score_gain_pp"] / per_run)
        values[epochs] = (row["value_a"], voi.loc["a", "score_gain_pp_per_question"])
    assert abs(values[3][0] - values[1][0]) < values[1][0] / 3
    assert values[3][1] < values[1][1] / 2  # LHAW's Gain/Q, kept in its own table, falls with the epochs


def test_n_differing_of_a_gain_counts_tasks_whose_gain_differs_not_any_bookkeeping_column():
    """Issue 55: pass_gain_pp with k = 1 over 12 tasks. a gains 100 pp on every task (asking once); b gains 100
    pp on t0-t2 and nothing elsewhere (asking twice everywhere). The question counts differ on all 12 tasks, the
    gain on 9: n_differing is 9, so the "fewer than 10 tasks differ" note applies."""
    recs = []
    for t in range(12):
        for model, with_tool_passes, asks in (("a", True, 1), ("b", t < 3, 2)):
            recs.append(run(task=f"t{t}", model=model, ask_tool=False, score=0.0, passed=False))
            recs.append(run(task=f"t{t}", model=model, ask_tool=True, score=float(with_tool_passes),
                            passed=with_tool_passes, questions=[q(None, f"q{i}?") for i in range(asks)]))
    out = comparisons.paired_comparison(RunSet.from_records(recs), metric="pass_gain_pp", k=1, a="a", b="b",
                                        n_boot=100)
    gains = {m: np.array([100.0 * (m == "a" or t < 3) for t in range(12)]) for m in "ab"}
    assert out["n_differing"].item() == int((gains["a"] != gains["b"]).sum()) == 9
    assert "fewer than 10 tasks whose sides differ (as few as 9)" in out.attrs["note"]


@pytest.mark.parametrize("argv", [["compare", "--metric", "ask_f1"], ["rank", "--metric", "ask_f1"],
                                  ["rank", "--metric", "calib_score", "--pairs"]])
def test_compare_and_rank_in_markdown_show_an_empty_cell_as_a_dash_with_its_reason(argv, capsys):
    """``--format md`` of ``compare`` and ``rank`` prints an empty cell, number or text, as "–" (never "nan"), and
    names each column that has one on standard error with why, as ``metrics`` and ``answers`` do."""
    from pathlib import Path

    from ambiglib.cli import main

    example = Path(__file__).resolve().parents[1] / "data" / "example"
    assert main([argv[0], "--runs", str(example), *argv[1:], "--format", "md"]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]
    assert all(len(row) == len(header) for row in cells)
    assert not any(c in ("nan", "None", "<NA>") for row in cells for c in row), out
    dashed = {header[i] for row in cells for i, c in enumerate(row) if c == "–"}
    assert dashed, "the example has an empty cell in each of these tables"
    explained = {c.strip() for line in err.splitlines() if line.startswith("– in ")
                 for c in line.removeprefix("– in ").split(":")[0].split(",")}
    assert dashed <= explained, (dashed - explained, err)
