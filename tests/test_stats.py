"""ambiglib.stats against scipy, statsmodels, the harness's own code and the papers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from ambiglib import stats
from ambiglib.stats import _bootstrap as stats_bootstrap

# ----------------------------------------------------------------------------- Wilson

# Ambig-DS Appendix C.2, Table 7: selectors A–E, accuracy over n = 51 tasks, 95% Wilson CIs (in %).
TABLE7 = {
    "A": (30, 58.8, 45.2, 71.2),
    "B": (25, 49.0, 35.9, 62.3),
    "C": (26, 51.0, 37.7, 64.1),
    "D": (32, 62.7, 49.0, 74.7),
    "E": (28, 54.9, 41.4, 67.7),
}


@pytest.mark.parametrize("selector", sorted(TABLE7))
def test_wilson_reproduces_ambig_ds_table7(selector):
    k, acc, low, high = TABLE7[selector]
    lo, hi = stats.wilson_ci(k, 51)
    assert round(100 * k / 51, 1) == acc
    assert (round(100 * lo, 1), round(100 * hi, 1)) == (low, high)


def test_wilson_does_not_reproduce_table7_selector_f():
    # Table 7 prints F as 56.9% [43.2%, 70.0%]. 56.9% of 51 is 29 tasks, whose Wilson
    # interval is [43.3%, 69.5%]; no k/51 has the printed interval, so F's was computed
    # some other way (the paper pools 3 seeds of two LLMs for F). Documented, not matched.
    lo, hi = stats.wilson_ci(29, 51)
    assert (round(100 * lo, 1), round(100 * hi, 1)) == (43.3, 69.5)
    printed = (43.2, 70.0)
    assert all((round(100 * a, 1), round(100 * b, 1)) != printed
               for a, b in (stats.wilson_ci(k, 51) for k in range(52)))


@pytest.mark.parametrize("k, n", [(0, 10), (10, 10), (3, 7), (1, 1), (250, 1000)])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_wilson_equals_statsmodels(k, n, confidence):
    expected = proportion_confint(k, n, alpha=1 - confidence, method="wilson")
    assert stats.wilson_ci(k, n, confidence) == pytest.approx(expected, abs=1e-12)


def test_wilson_vectorised_and_empty():
    lo, hi = stats.wilson_ci(np.array([1, 2, 0]), np.array([4, 4, 0]))
    assert lo[:2] == pytest.approx([proportion_confint(1, 4, method="wilson")[0],
                                    proportion_confint(2, 4, method="wilson")[0]])
    assert np.isnan(lo[2]) and np.isnan(hi[2])
    with pytest.raises(ValueError, match=r"0 <= k <= n \(got k=5, n=4\)"):
        stats.wilson_ci(5, 4)
    with pytest.raises(ValueError, match=r"confidence must be between 0 and 1 \(got 95\)"):
        stats.wilson_ci(1, 4, 95)


# ----------------------------------------------------------------------------- Wilcoxon


def test_paired_wilcoxon_is_the_normal_approximation_worked_out_by_hand():
    """Ambig-DS C.8's test, computed here without scipy: zero differences dropped (Wilcoxon's "wilcox"), W+ the sum
    of the ranks of the positive differences, z = (W+ − n(n+1)/4) / sqrt(n(n+1)(2n+1)/24) with no continuity
    correction (no ties here: the differences are distinct floats), p = P(Z ≥ z) = erfc(z/√2)/2, one-sided."""
    import math

    rng = np.random.default_rng(3)
    x, y = rng.random(61), rng.random(61) * 0.8
    y[:5] = x[:5]  # zero differences are dropped (zero_method="wilcox")
    d = (x - y)[x != y]
    order = np.argsort(np.abs(d))
    ranks = np.empty(len(d))
    ranks[order] = np.arange(1, len(d) + 1)
    n, w = len(d), float(ranks[d > 0].sum())
    z = (w - n * (n + 1) / 4) / math.sqrt(n * (n + 1) * (2 * n + 1) / 24)
    res = stats.paired_wilcoxon(x, y)
    assert (res.statistic, res.n) == (w, 56)
    assert res.p_value == pytest.approx(math.erfc(z / math.sqrt(2)) / 2, rel=1e-12)


def test_paired_wilcoxon_undefined_cases_are_nan():
    assert np.isnan(stats.paired_wilcoxon([], []).p_value)
    res = stats.paired_wilcoxon([0.5, 0.2], [0.5, 0.2])
    assert np.isnan(res.p_value) and res.n == 0


# ----------------------------------------------------------------------------- bootstraps


def _harness_paired_bootstrap(a, b, n_boot, seed):
    """Ambig-DS step_6_aggregate.py:_paired_bootstrap_ci, as harness-formats §4.2 gives it."""
    rng = np.random.default_rng(seed)
    d = np.asarray(a) - np.asarray(b)
    idx = rng.integers(0, len(d), size=(n_boot, len(d)))
    samples = d[idx].mean(axis=1)
    return tuple(np.quantile(samples, [0.025, 0.975]))


@pytest.mark.parametrize("seed", [0, 1])
def test_paired_bootstrap_reproduces_the_harness(seed):
    rng = np.random.default_rng(11)
    a, b = rng.random(61), rng.random(61)
    ours = stats.paired_bootstrap_ci(a, b, n_boot=4000, seed=seed)
    assert ours == pytest.approx(_harness_paired_bootstrap(a, b, 4000, seed), abs=1e-12)


def test_paired_bootstrap_cells_are_each_the_harness_result():
    rng = np.random.default_rng(5)
    a, b = rng.random((4, 30)), rng.random((4, 30))
    low, high = stats.paired_bootstrap_ci(a, b, n_boot=2000, seed=0)
    for i in range(4):
        assert (low[i], high[i]) == pytest.approx(_harness_paired_bootstrap(a[i], b[i], 2000, 0), abs=1e-12)
    assert np.isnan(stats.paired_bootstrap_ci([], [])[0])


def test_bootstrap_counts_tally_the_draws():
    counts = stats.bootstrap_counts(7, 50, seed=2)
    idx = np.random.default_rng(2).integers(0, 7, size=(50, 7))
    assert counts.shape == (50, 7) and (counts.sum(axis=1) == 7).all()
    assert (counts[13] == np.bincount(idx[13], minlength=7)).all()


@pytest.mark.parametrize("n", [stats_bootstrap._TALLY_BY_ROW - 1, stats_bootstrap._TALLY_BY_ROW, 3001])
def test_both_tallies_are_the_harness_draws_counted(n, monkeypatch):
    """Below and from ``_TALLY_BY_ROW`` units the counts are tallied differently (the whole block at
    once, each replicate alone); both are exactly the harness's draws, counted, and equal each other."""
    draws = np.random.default_rng(4).integers(0, n, size=(40, n))
    expected = np.stack([np.bincount(row, minlength=n) for row in draws]).astype(float)
    ours = stats.bootstrap_counts(n, 40, seed=4)
    assert ours.dtype == np.float64 and np.array_equal(ours, expected)
    # the other tally on the same draws: every unit count the same
    monkeypatch.setattr(stats_bootstrap, "_TALLY_BY_ROW", 1 if n < stats_bootstrap._TALLY_BY_ROW else n + 1)
    assert np.array_equal(stats.bootstrap_counts(n, 40, seed=4), expected)
    rng = np.random.default_rng(4)  # a generator carries on from block to block, whichever tally
    first = stats.bootstrap_counts(n, 25, rng)
    assert np.array_equal(np.vstack([first, stats.bootstrap_counts(n, 15, rng)]), expected)


def test_replicates_in_blocks_are_the_harness_draws(monkeypatch):
    """With blocks of a few replicates (as a large log's tasks get), the blocks are the rows of the
    one count matrix, totals are its products, and the paired interval is still the harness's."""
    monkeypatch.setattr(stats_bootstrap, "BOOTSTRAP_BLOCK", 61 * 7)  # 7 replicates of 61 tasks per block
    rng = np.random.default_rng(11)
    a, b = rng.random(61), rng.random(61)
    blocks = list(stats.bootstrap_blocks(61, 100, seed=3))
    assert len(blocks) == 15 and [r.stop - r.start for r, _ in blocks][-1] == 2
    whole = stats.bootstrap_counts(61, 100, seed=3)
    assert np.array_equal(np.vstack([c for _, c in blocks]), whole)
    values = rng.random((61, 3))
    assert np.allclose(stats.bootstrap_totals(values, 100, seed=3), whole @ values, rtol=0, atol=1e-12)
    for seed in (0, 1):
        ours = stats.paired_bootstrap_ci(a, b, n_boot=4000, seed=seed)
        assert ours == pytest.approx(_harness_paired_bootstrap(a, b, 4000, seed), abs=1e-12)


def test_cluster_bootstrap_equals_explicit_resampling_of_tasks():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({
        "task_id": np.repeat([f"t{i}" for i in range(12)], 3),
        "num": rng.integers(0, 3, 36), "den": rng.integers(1, 4, 36),
    })

    def ratio(f, w):
        return (w @ f["num"].to_numpy(float)) / (w @ f["den"].to_numpy(float))

    out = stats.cluster_bootstrap(frame, ratio, n_boot=500, seed=4)
    # brute force: draw tasks with the same generator, stack all their rows, pool
    tasks = sorted(frame["task_id"].unique())
    idx = np.random.default_rng(4).integers(0, len(tasks), size=(500, len(tasks)))
    by_task = {t: g for t, g in frame.groupby("task_id")}
    samples = []
    for row in idx:
        rows = pd.concat([by_task[tasks[i]] for i in row])
        samples.append(rows["num"].sum() / rows["den"].sum())
    lo, hi = np.quantile(samples, [0.025, 0.975])
    assert out.loc[0, "estimate"] == frame["num"].sum() / frame["den"].sum()
    assert (out.loc[0, "ci_low"], out.loc[0, "ci_high"]) == pytest.approx((lo, hi), abs=1e-12)
    assert out.loc[0, "n_clusters"] == 12
    # row order does not matter: clusters are sorted before resampling
    shuffled = stats.cluster_bootstrap(frame.sample(frac=1, random_state=1), ratio, n_boot=500, seed=4)
    pd.testing.assert_frame_equal(out, shuffled)


def test_cluster_bootstrap_names_a_missing_cluster_column():
    with pytest.raises(ValueError, match=r"cluster column\(s\) \['task'\] not in frame"):
        stats.cluster_bootstrap(pd.DataFrame({"x": [1]}), lambda f, w: w @ f["x"], cluster="task")


# ----------------------------------------------------------------------------- Holm


def test_holm_equals_statsmodels_and_keeps_nans():
    p = np.array([0.01, 0.04, 0.03, 0.005, np.nan, 0.2, 0.04])
    ok = ~np.isnan(p)
    expected = multipletests(p[ok], method="holm")[1]
    out = stats.holm(p)
    assert np.isnan(out[4])
    assert out[ok] == pytest.approx(expected, abs=1e-15)


def test_wilcoxon_power_grows_with_tasks_and_matches_a_brute_force_loop():
    power = stats.wilcoxon_power(0.1, 0.25, [10, 40, 120], n_sim=400, seed=3)
    assert power[0] < power[1] < power[2] and power[2] > 0.9
    rng = np.random.default_rng(3)
    hits = [sps.wilcoxon(rng.normal(0.1, 0.25, 10), alternative="greater").pvalue < 0.05 for _ in range(400)]
    assert power[0] == pytest.approx(np.mean(hits), abs=1e-12)  # same draws, one experiment at a time
    assert stats.wilcoxon_power(0.0, 0.25, 51, n_sim=2000, seed=1)[0] == pytest.approx(0.05, abs=0.015)


@pytest.mark.parametrize("seed", range(5))
def test_probability_of_improvement_is_rliables_within_task_mann_whitney_averaged_over_tasks(seed):
    """rliable's probability of improvement: per task, scipy's Mann–Whitney U of a's runs against b's over the
    pairs (U / (n_a · n_b), ties one half), averaged over tasks: paired by task, unlike the common-language effect
    size over all pairs (issue 55: 0.58 where a beats b on 67% of tasks)."""
    from ambiglib.comparisons import prob_improvement

    rng = np.random.default_rng(seed)
    rows_a, rows_b, expected = [], [], []
    for t in range(rng.integers(1, 30)):
        xa = rng.integers(0, 4, rng.integers(1, 5)) / 3 if seed % 2 else rng.random(rng.integers(1, 5))
        xb = rng.integers(0, 4, rng.integers(1, 5)) / 3 if seed % 2 else rng.random(rng.integers(1, 5))
        rows_a += [(f"t{t}", v) for v in xa]
        rows_b += [(f"t{t}", v) for v in xb]
        expected.append(sps.mannwhitneyu(xa, xb, alternative="two-sided").statistic / (len(xa) * len(xb)))
    a = pd.DataFrame(rows_a, columns=["task_id", "value"])
    b = pd.DataFrame(rows_b, columns=["task_id", "value"])
    assert prob_improvement(a, b) == pytest.approx(np.mean(expected), abs=1e-12)
    # one value a task: the share of tasks a wins, ties one half; the unpaired effect size differs
    x = np.linspace(0, 1, 12)  # tasks of every difficulty: a is a little ahead on 8 of them
    y = x - np.where(np.arange(12) < 8, 0.01, -0.01)
    one = lambda v: pd.DataFrame({"task_id": [f"t{i}" for i in range(12)], "value": v})  # noqa: E731
    assert prob_improvement(one(x), one(y)) == pytest.approx(8 / 12)
    unpaired = sps.mannwhitneyu(x, y, alternative="two-sided").statistic / 144
    assert abs(unpaired - 8 / 12) > 0.1


def _wilson_at(count, nobs, crit):
    """statsmodels' Wilson interval with critical value ``crit`` (its alpha is the normal tail of that value)."""
    from statsmodels.stats.proportion import proportion_confint

    return proportion_confint(count, nobs, alpha=2 * sps.norm.sf(crit), method="wilson")


def test_wilson_over_tasks_is_statsmodels_wilson_at_the_cluster_robust_effective_size():
    """A second implementation: the proportion's cluster-robust variance is statsmodels' OLS of the 0/1 runs on a
    constant with cov_type='cluster' by task (its correction G/(G − 1)); the effective size is p(1 − p) / that
    variance, and the interval statsmodels' Wilson interval at that size with t's critical value on G − 1
    degrees of freedom. One run a task: plain Wilson."""
    import statsmodels.api as sm
    from statsmodels.stats.proportion import proportion_confint

    rng = np.random.default_rng(4)
    for trial in range(5):
        g = int(rng.integers(5, 40))
        n = rng.integers(1, 6, g)
        p_task = rng.beta(0.7, 0.7, g)
        k = rng.binomial(n, p_task)
        y = np.concatenate([[1.0] * ki + [0.0] * (ni - ki) for ki, ni in zip(k, n)])
        cluster = np.repeat(np.arange(g), n)
        p = y.mean()
        if p in (0, 1):
            continue
        fit = sm.OLS(y, np.ones(len(y))).fit(cov_type="cluster", cov_kwds={"groups": cluster})
        n_eff = min(len(y), p * (1 - p) / fit.bse[0] ** 2)
        low, high = _wilson_at(p * n_eff, n_eff, sps.t.ppf(0.975, g - 1))
        got = stats.wilson_ci_clustered(k, n)
        assert got.n_eff[0] == pytest.approx(n_eff, rel=1e-9), trial
        assert (got.low[0], got.high[0]) == (pytest.approx(low, abs=1e-12), pytest.approx(high, abs=1e-12))
    # one run a task: statsmodels' plain Wilson
    k1 = rng.integers(0, 2, 30)
    got = stats.wilson_ci_clustered(k1, np.ones(30))
    ref = proportion_confint(k1.sum(), 30, method="wilson")
    assert (got.low[0], got.high[0]) == (pytest.approx(ref[0], abs=1e-12), pytest.approx(ref[1], abs=1e-12))


def test_wilson_over_tasks_is_as_wide_as_a_task_bootstrap_where_tasks_always_or_never_ask():
    """Issue 55: asking on every trial of 10 tasks and on none of 10 others (3 trials): Wilson over runs gives
    [0.38, 0.62]; resampling tasks gives about [0.30, 0.70], and the interval over tasks [0.28, 0.72]."""
    k, n = np.r_[np.full(10, 3), np.zeros(10)], np.full(20, 3)
    over_runs = stats.wilson_ci(30, 60)
    got = stats.wilson_ci_clustered(k, n)
    draws = np.random.default_rng(0).integers(0, 20, size=(20_000, 20))
    boot = np.quantile(k[draws].sum(axis=1) / 60, [0.025, 0.975])
    assert over_runs[1] - over_runs[0] < 0.25
    assert got.high[0] - got.low[0] == pytest.approx(boot[1] - boot[0], abs=0.04)
    assert got.high[0] - got.low[0] > 0.4
    # no spread seen (every run asked): each task counts once, Wilson at 20 tasks (t's critical value), not 60 runs
    every = stats.wilson_ci_clustered(np.full(20, 3), n)
    assert (every.low[0], every.high[0]) == pytest.approx(_wilson_at(20, 20, sps.t.ppf(0.975, 19)))
    assert every.high[0] == 1.0 and stats.wilson_ci(0, 9)[0] == 0.0  # the ends exactly, not up to rounding
    # several groups at once equal each alone
    both = stats.wilson_ci_clustered(np.r_[k, np.full(20, 3)], np.r_[n, n], np.r_[np.zeros(20), np.ones(20)])
    assert both.low.tolist() == pytest.approx([got.low[0], every.low[0]])


def test_the_t_interval_is_scipys():
    d = np.random.default_rng(2).normal(0.1, 1, size=(4, 12))
    low, high = stats.t_interval(d, 0.9)
    ref = sps.ttest_1samp(d, 0, axis=-1).confidence_interval(0.9)
    assert low == pytest.approx(ref.low) and high == pytest.approx(ref.high)
    flat = stats.t_interval(np.full(8, 0.25))
    assert (float(flat[0]), float(flat[1])) == (0.25, 0.25)
    assert np.isnan(stats.t_interval([0.3])[0])


def test_mid_p_mcnemar_by_hand():
    """Fagerland et al. (2013): two-sided mid-p = 2 (P(X ≤ min) − P(X = min) / 2), X ~ Bin(b + c, 1/2), counted
    here with math.comb; the exact test's p is 2 P(X ≤ min) and is larger."""
    from math import comb

    from ambiglib.stats._significance import mcnemar_exact, mcnemar_midp

    for b, c in ((7, 1), (3, 3), (0, 5), (9, 2)):
        x = np.r_[np.ones(b), np.zeros(c), np.ones(4)]
        y = np.r_[np.zeros(b), np.ones(c), np.ones(4)]
        n, low = b + c, min(b, c)
        pmf = lambda i, n=n: comb(n, i) / 2 ** n  # noqa: E731
        midp = min(1.0, 2 * (sum(pmf(i) for i in range(low + 1)) - pmf(low) / 2))
        got = mcnemar_midp(x, y)
        assert got.p_value == pytest.approx(midp) and got.n_differing == n
        assert got.p_value <= mcnemar_exact(x, y).p_value
        greater = sum(pmf(i) for i in range(b, n + 1)) - pmf(b) / 2
        assert mcnemar_midp(x, y, alternative="greater").p_value == pytest.approx(greater)


def test_an_exact_permutation_test_up_to_20_tasks_is_scipys_and_counts_only_tasks_whose_inputs_differ():
    """Up to 2^20 flip patterns the test enumerates them (scipy's exact null, at 16 tasks here); n_differing counts
    the tasks whose swap moves the statistic: a column the statistic does not read can differ without counting."""
    from ambiglib.stats._significance import paired_permutation

    rng = np.random.default_rng(8)
    x, y = rng.integers(0, 3, 16).astype(float), rng.integers(0, 3, 16).astype(float)
    mine = paired_permutation(x, y, lambda t: t / 16)
    ref = sps.permutation_test((x, y), lambda u, v, axis: u.mean(axis=axis) - v.mean(axis=axis),
                               permutation_type="samples", vectorized=True, n_resamples=np.inf)
    assert mine.test == "paired permutation (exact, 65,536 sign flips)" and mine.n_flips == 0
    assert mine.p_value == pytest.approx(ref.pvalue) and np.isnan(mine.mc_se)
    bookkeeping = np.c_[x, np.arange(16)], np.c_[y, np.arange(16) + 1]  # a second column, unread, differs everywhere
    kept = paired_permutation(*bookkeeping, lambda t: t[..., 0] / 16)
    assert kept.n_differing == int((x != y).sum()) < 16 and kept.p_value == pytest.approx(ref.pvalue)


def test_kept_bootstrap_counts_give_the_same_totals_as_drawing_them_again(monkeypatch):
    """``bootstrap_totals`` keeps large resamplings' counts between calls (issue 41): a second call with the same
    units, replicates and seed gives exactly the totals of drawing again; a Generator seed, another seed or
    another count of units is drawn anew; a count over 255 is not kept; what is kept stays under its bound."""
    import numpy as np

    from ambiglib import stats
    from ambiglib.stats import _bootstrap as stats_bootstrap

    monkeypatch.setattr(stats_bootstrap, "_KEPT", {})
    values = np.random.default_rng(5).random((3000, 2))

    def drawn(v, seed):
        kept = stats.KEPT_COUNTS_BYTES
        monkeypatch.setattr(stats_bootstrap, "KEPT_COUNTS_BYTES", 0)
        try:
            return stats.bootstrap_totals(v, 500, seed)
        finally:
            monkeypatch.setattr(stats_bootstrap, "KEPT_COUNTS_BYTES", kept)

    first = stats.bootstrap_totals(values, 500, 7)
    assert list(stats_bootstrap._KEPT) == [(3000, 500, 7)]
    again = stats.bootstrap_totals(values[:, ::-1].copy(), 500, 7)  # other values, the same draws
    assert np.array_equal(first, drawn(values, 7)) and np.array_equal(again, drawn(values[:, ::-1].copy(), 7))
    assert np.array_equal(stats.bootstrap_totals(values[:, 0], 500, np.int64(7)), drawn(values[:, 0], 7))
    assert not np.array_equal(stats.bootstrap_totals(values, 500, 8), first)
    stats.bootstrap_totals(values, 500, np.random.default_rng(7))
    stats.bootstrap_totals(values[:1000], 500, 7)  # 1,000 units: cheaper to draw again
    assert sorted(stats_bootstrap._KEPT) == [(3000, 500, 7), (3000, 500, 8)]
    big = list(stats_bootstrap._kept(4000, 1, 9, iter([(slice(0, 1), np.full((1, 4000), 256.0))])))
    assert big[0][1][0, 0] == 256.0 and (4000, 1, 9) not in stats_bootstrap._KEPT
    monkeypatch.setattr(stats_bootstrap, "KEPT_COUNTS_BYTES", 2 * 3000 * 500)
    stats.bootstrap_totals(values, 500, 10)
    assert list(stats_bootstrap._KEPT) == [(3000, 500, 8), (3000, 500, 10)]  # the oldest let go
    assert sum(c.nbytes for blocks in stats_bootstrap._KEPT.values() for _, c in blocks) <= stats.KEPT_COUNTS_BYTES
