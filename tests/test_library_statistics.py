"""The statistics ambiglib takes from statsmodels (Benjamini–Hochberg, Wilson, Fleiss' and Cohen's kappa) and the
two it keeps (Holm's step-down, the Wilson kernel of its clustered interval), checked against their definitions
worked out here (exact fractions, the score test's roots, the step-down and step-up rules written out) and
published values; the kept two against statsmodels on many random inputs; and the correction a comparison names."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from builders import run
from scipy import optimize
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from ambiglib import agreement, comparisons, stats
from ambiglib.runset import RunSet
from ambiglib.stats import _intervals as stats_intervals
from ambiglib.stats import _tests as stats_tests

# ----------------------------------------------------------------------------- multiple comparisons, by definition


def _holm_by_definition(p: list[float]) -> list[float]:
    """Holm (1979): sort ascending; the i-th smallest (1-based) gets max over j <= i of min(1, (m - j + 1) p_(j))."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order, start=1):
        running = max(running, min(1.0, (m - rank + 1) * p[i]))
        out[i] = running
    return out


def _bh_by_definition(p: list[float]) -> list[float]:
    """Benjamini and Hochberg (1995), as adjusted p-values: the i-th smallest gets min over j >= i of
    min(1, m p_(j) / j)."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, min(1.0, m * p[i] / rank))
        out[i] = running
    return out


def test_holm_and_bh_by_hand():
    p = [0.01, 0.04, 0.03, 0.005]
    # Holm: sorted .005, .01, .03, .04 times 4, 3, 2, 1 = .02, .03, .06, .04, then the running maximum
    assert stats.holm(p) == pytest.approx([0.03, 0.06, 0.06, 0.02], abs=1e-15)
    # BH: times 4/1, 4/2, 4/3, 4/4 = .02, .02, .04, .04, then the running minimum from the largest
    assert stats_tests._adjusted(p, "fdr_bh") == pytest.approx([0.02, 0.04, 0.04, 0.02], abs=1e-15)


@pytest.mark.parametrize("seed", range(20))
def test_holm_and_bh_equal_their_definitions_on_random_families(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 60))
    p = rng.uniform(0, 1, m) ** rng.uniform(1, 6)  # many small p-values, as a table with real differences has
    p[rng.random(m) < 0.2] = p[0]  # ties
    p[rng.random(m) < 0.1] = np.nan  # rows without a p-value: left out of the family
    ok = ~np.isnan(p)
    for method, definition in (("holm", _holm_by_definition), ("fdr_bh", _bh_by_definition)):
        out = stats_tests._adjusted(p, method)
        assert np.isnan(out[~ok]).all()
        assert out[ok] == pytest.approx(definition(p[ok].tolist()), abs=1e-14), method
    assert np.array_equal(stats.holm(p), stats_tests._adjusted(p, "holm"), equal_nan=True)
    # BH never adjusts more than Holm: the reason flips_for's count serves both
    assert (stats_tests._adjusted(p, "fdr_bh")[ok] <= stats.holm(p)[ok] + 1e-15).all()


@pytest.mark.parametrize("seed", range(10))
def test_the_kept_holm_equals_statsmodels_bit_for_bit_on_many_random_families(seed):
    """``stats.holm`` stays ambiglib's (statsmodels' Holm collects garbage on every call): the same numbers."""
    rng = np.random.default_rng(100 + seed)
    for _ in range(50):
        m = int(rng.integers(1, 300))
        p = rng.uniform(0, 1, m) ** rng.uniform(0.5, 8)
        p[rng.random(m) < 0.3] = rng.choice(p)  # ties
        p[rng.random(m) < 0.05] = 1.0
        assert np.array_equal(stats.holm(p), multipletests(p, method="holm")[1])


def test_adjustment_keeps_its_guards():
    assert np.isnan(stats.holm([np.nan, np.nan])).all() and stats.holm([]).shape == (0,)
    with pytest.raises(ValueError, match=r"p-values must lie in \[0, 1\]"):
        stats.holm([0.2, 1.5])


# ----------------------------------------------------------------------------- Wilson


def _wilson_by_score_test(k: int, n: int, confidence: float) -> tuple[float, float]:
    """Wilson (1927): the proportions pi the score test does not reject, (k/n - pi)^2 <= z^2 pi (1 - pi) / n; the
    ends are the roots of the difference, found numerically on either side of k/n."""
    z = sps.norm.isf((1 - confidence) / 2)
    phat = k / n

    def f(pi: float) -> float:
        return (phat - pi) ** 2 - z * z * pi * (1 - pi) / n

    # f < 0 just inside the interval: at k/n itself, or a step from it where k/n is 0 or 1 (a root there)
    inside_low, inside_high = (phat - 1e-9 if k == n else phat), (phat + 1e-9 if k == 0 else phat)
    low = 0.0 if k == 0 else optimize.brentq(f, 0.0, inside_low, xtol=1e-15, rtol=1e-15)
    high = 1.0 if k == n else optimize.brentq(f, inside_high, 1.0, xtol=1e-15, rtol=1e-15)
    return low, high


@pytest.mark.parametrize("seed", range(10))
def test_wilson_ci_is_the_score_test_inverted(seed):
    rng = np.random.default_rng(seed)
    for _ in range(30):
        n = int(rng.integers(1, 400))
        k = int(rng.integers(0, n + 1))
        confidence = float(rng.choice([0.8, 0.9, 0.95, 0.99]))
        assert stats.wilson_ci(k, n, confidence) == pytest.approx(_wilson_by_score_test(k, n, confidence),
                                                                   abs=1e-12)


def test_wilson_ci_ends_and_arrays():
    assert stats.wilson_ci(0, 9)[0] == 0.0 and stats.wilson_ci(9, 9)[1] == 1.0  # exactly, not up to rounding
    low, high = stats.wilson_ci(np.array([0, 3, 5, 0]), np.array([5, 5, 5, 0]))
    assert low[0] == 0.0 and high[2] == 1.0 and np.isnan(low[3]) and np.isnan(high[3])
    assert (low[1], high[1]) == pytest.approx(_wilson_by_score_test(3, 5, 0.95), abs=1e-12)
    assert isinstance(stats.wilson_ci(3, 5)[0], float)


@pytest.mark.parametrize("confidence", [0.8, 0.9, 0.95, 0.99])
def test_the_kept_wilson_kernel_equals_statsmodels_on_many_random_inputs(confidence):
    """``stats._wilson`` stays for the clustered interval (t's critical value, fractional effective n): at the
    normal's critical value it gives statsmodels' interval bit for bit, the ends aside (exactly 0 and 1 here)."""
    rng = np.random.default_rng(int(confidence * 100))
    n = np.r_[rng.integers(1, 2000, 5000).astype(float), rng.uniform(0.3, 500, 5000)]  # whole and effective sizes
    k = np.floor(rng.uniform(0, 1, n.size) ** rng.uniform(0.2, 5, n.size) * (n + 1)).clip(0, n)
    k[5000:] = rng.uniform(0, 1, 5000) * n[5000:]
    z = sps.norm.isf((1 - confidence) / 2)  # statsmodels' own critical value
    low, high = stats_intervals._wilson(k, n, z)
    ref_low, ref_high = proportion_confint(k, n, alpha=1 - confidence, method="wilson")
    inside = (k > 0) & (k < n)
    assert np.array_equal(low[inside], ref_low[inside]) and np.array_equal(high[inside], ref_high[inside])
    assert np.allclose(low, ref_low, rtol=0, atol=1e-15) and np.allclose(high, ref_high, rtol=0, atol=1e-15)
    # at t's critical value: statsmodels' interval at the level whose normal critical value that is
    t = sps.t.ppf(0.5 + confidence / 2, rng.integers(3, 30, n.size))  # (t on 1 df at 99% has no normal level)
    low_t, high_t = stats_intervals._wilson(k, n, t)
    ref_low_t, ref_high_t = proportion_confint(k, n, alpha=2 * sps.norm.sf(t), method="wilson")
    assert np.allclose(low_t, ref_low_t, rtol=0, atol=1e-12) and np.allclose(high_t, ref_high_t, rtol=0, atol=1e-12)


# ----------------------------------------------------------------------------- kappas


def _ratings(counts: np.ndarray) -> pd.DataFrame:
    """One row per rating from an items x labels table of counts."""
    rows = [{"run_id": f"r{i}", "call": c, "label": f"L{j}"} for i, row in enumerate(counts)
            for j, n in enumerate(row) for c in range(int(n))]
    return pd.DataFrame(rows)


def _fleiss_exact(counts: np.ndarray) -> Fraction:
    """Fleiss (1971) in exact fractions: P_i = (sum_j n_ij^2 - n) / (n (n - 1)), P_e = sum_j p_j^2."""
    n = int(counts[0].sum())
    items = [[int(v) for v in row] for row in counts]
    total = n * len(items)
    p_bar = sum(Fraction(sum(v * v for v in row) - n, n * (n - 1)) for row in items) / len(items)
    p_e = sum(Fraction(sum(row[j] for row in items), total) ** 2 for j in range(len(items[0])))
    return (p_bar - p_e) / (1 - p_e)


def test_fleiss_kappa_reproduces_fleiss_1971s_worked_example():
    # the worked example of Fleiss' kappa (Wikipedia, "Fleiss' kappa"): 10 subjects, 14 raters, 5 categories,
    # P-bar = 0.378, P_e = 0.213, kappa = 0.210
    counts = np.array([[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
                       [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]])
    kappa = agreement.fleiss_kappa(_ratings(counts))
    assert round(kappa, 3) == 0.210
    assert kappa == pytest.approx(float(_fleiss_exact(counts)), abs=1e-15)


@pytest.mark.parametrize("seed", range(15))
def test_fleiss_kappa_equals_its_definition_in_exact_fractions(seed):
    rng = np.random.default_rng(seed)
    n_items, n_raters, n_labels = int(rng.integers(2, 30)), int(rng.integers(2, 7)), int(rng.integers(2, 5))
    skew = rng.dirichlet(np.ones(n_labels) * 0.7)
    counts = np.array([np.bincount(rng.choice(n_labels, n_raters, p=skew), minlength=n_labels)
                       for _ in range(n_items)])
    counts = counts[:, counts.sum(axis=0) > 0]  # crosstab has a column only for labels given
    if counts.shape[1] < 2:
        counts = np.c_[counts[:, :1] - np.eye(n_items, 1, dtype=int), np.eye(n_items, 1, dtype=int)]
    assert agreement.fleiss_kappa(_ratings(counts)) == pytest.approx(float(_fleiss_exact(counts)), abs=1e-12)


def test_fleiss_kappa_is_nan_with_one_label_and_keeps_its_refusals():
    with np.errstate(all="raise"):  # the 0 / 0 of one label is not left to warn
        assert np.isnan(agreement.fleiss_kappa(_ratings(np.array([[3], [3]]))))
    with pytest.raises(ValueError, match="same number of ratings"):
        agreement.fleiss_kappa(_ratings(np.array([[2, 1], [1, 1]])))
    with pytest.raises(ValueError, match="at least 2 ratings"):
        agreement.fleiss_kappa(_ratings(np.array([[1, 0], [0, 1]])))


def _two_judges(table: np.ndarray) -> pd.DataFrame:
    """Judges a and b's labels from their contingency table (rows a's label, columns b's)."""
    rows, item = [], 0
    for i, row in enumerate(table):
        for j, n in enumerate(row):
            for _ in range(int(n)):
                rows += [{"run_id": item, "judge": "a", "label": f"L{i}"}, {"run_id": item, "judge": "b",
                                                                          "label": f"L{j}"}]
                item += 1
    return pd.DataFrame(rows)


def _cohen_exact(table: np.ndarray) -> Fraction:
    """Cohen (1960) in exact fractions: (p_o - p_e) / (1 - p_e), p_e the sum of the margins' products / n^2."""
    t = [[int(v) for v in row] for row in table]
    n = sum(map(sum, t))
    p_o = Fraction(sum(t[i][i] for i in range(len(t))), n)
    p_e = Fraction(sum(sum(t[i]) * sum(row[i] for row in t) for i in range(len(t))), n * n)
    return (p_o - p_e) / (1 - p_e)


def test_cohen_kappa_by_hand():
    # 50 items: both yes 20, a yes b no 5, a no b yes 10, both no 15: p_o = 0.7, p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5
    assert agreement.cohen_kappa(_two_judges(np.array([[20, 5], [10, 15]]))) == pytest.approx(0.4, abs=1e-15)
    with np.errstate(all="raise"):
        assert np.isnan(agreement.cohen_kappa(_two_judges(np.array([[7]]))))


@pytest.mark.parametrize("seed", range(15))
def test_cohen_kappa_equals_its_definition_in_exact_fractions(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 5))
    table = rng.integers(0, 15, (k, k)) + np.diag(rng.integers(0, 20, k))
    used = (table.sum(axis=0) + table.sum(axis=1)) > 0
    table = table[np.ix_(used, used)]
    assert agreement.cohen_kappa(_two_judges(table)) == pytest.approx(float(_cohen_exact(table)), abs=1e-12)


# ----------------------------------------------------------------------------- the correction a comparison names


def _four_models() -> RunSet:
    """Four models on 30 tasks, three trials each, with real and absent differences: six pairs, each tested."""
    rng = np.random.default_rng(7)
    skill = {"m-a": 0.8, "m-b": 0.55, "m-c": 0.5, "m-d": 0.2}
    recs = [run(task=f"t{t}", model=m, trial=trial, score=float(rng.random() < s), passed=bool(rng.random() < s))
            for t in range(30) for m, s in skill.items() for trial in (1, 2, 3)]
    return RunSet.from_records(recs)


def test_paired_comparison_adjusts_by_holm_or_by_benjamini_hochberg_and_says_which():
    rs = _four_models()
    holm = comparisons.paired_comparison(rs, n_boot=200)
    bh = comparisons.paired_comparison(rs, n_boot=200, correction="fdr_bh")
    assert len(holm) == 6 and holm["p_value"].notna().all()
    p = holm["p_value"].tolist()
    # the same rows and tests; only the adjusted column differs, and its name says which adjustment it is
    assert bh["p_value"].tolist() == p
    assert "p_holm" in holm.columns and "p_fdr_bh" not in holm.columns
    assert "p_fdr_bh" in bh.columns and "p_holm" not in bh.columns
    assert list(bh.columns) == [c if c != "p_holm" else "p_fdr_bh" for c in holm.columns]
    assert holm["p_holm"].tolist() == pytest.approx(_holm_by_definition(p), abs=1e-14)
    assert bh["p_fdr_bh"].tolist() == pytest.approx(_bh_by_definition(p), abs=1e-14)
    assert (bh["p_fdr_bh"] < holm["p_holm"]).any()  # this family is one where the two differ
    # the note names Benjamini-Hochberg, its family and what it bounds; Holm's table says nothing new
    note = bh.attrs["note"]
    assert "p_fdr_bh: Benjamini–Hochberg within each family of rows (per benchmark and question)" in note
    assert f"{bh['family'].iloc[0]} (6)" in note  # one family here: the benchmark's rows of one question
    assert "false discovery rate" in note and "not bounded" in note
    assert "Benjamini" not in holm.attrs.get("note", "") and "false discovery" not in holm.attrs.get("note", "")


def test_a_correction_it_does_not_know_is_refused_before_any_work():
    with pytest.raises(ValueError, match=r"correction must be one of \['holm', 'fdr_bh'\] \(got 'bonferroni'\)"):
        comparisons.paired_comparison(RunSet.from_records([run()]), correction="bonferroni")
    frame = pd.DataFrame({"p_value": [0.01], "p_mc_se": [np.nan]})
    with pytest.raises(ValueError, match="correction must be one of"):
        comparisons.settle(frame, [None], correction="BH")


def test_the_statistics_modules_import_without_statsmodels_and_use_it_when_called():
    code = ("import sys, ambiglib.stats, ambiglib.agreement, ambiglib.stats._significance, ambiglib.comparisons\n"
            "assert 'statsmodels' not in sys.modules, 'statsmodels imported by an import'\n"
            "ambiglib.stats._tests._adjusted([0.1, 0.2], 'fdr_bh')\n"
            "assert 'statsmodels.stats.multitest' in sys.modules\n"
            "ambiglib.stats.wilson_ci(1, 2)\n"
            "assert 'statsmodels.stats.proportion' in sys.modules\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# ----------------------------------------------------------------------------- the linearized interval of a ratio


def test_linearized_interval_of_a_ratio_is_the_ratio_estimators_textbook_interval():
    """Cochran (1977) §6.4: the ratio estimator R = Σy / Σx over n clusters has variance
    Σ(y_i − R x_i)² / (n (n − 1) x̄²); the interval is R ± t(n − 1) · its square root."""
    from ambiglib.stats._ratio_intervals import linearized_ci

    rng = np.random.default_rng(4)
    y, x = rng.poisson(4, 15).astype(float), rng.integers(1, 6, 15).astype(float)
    got = linearized_ci(np.c_[y, x], lambda t: t[..., 0] / t[..., 1])
    r, n = y.sum() / x.sum(), len(x)
    se = np.sqrt(((y - r * x) ** 2).sum() / (n * (n - 1) * x.mean() ** 2))
    t = sps.t.ppf(0.975, n - 1)
    assert (got.estimate, got.low, got.high, got.se) == pytest.approx((r, r - t * se, r + t * se, se), rel=1e-6)


def test_linearized_interval_of_a_mean_is_scipys_t_interval_and_never_a_point_where_bounded():
    from ambiglib.stats._ratio_intervals import linearized_ci

    d = np.array([0.5, -0.25, 1.0, 0.0, 0.75, 0.25, -0.5, 1.0])
    got = linearized_ci(np.c_[d, np.ones(8)], lambda t: t[..., 0] / t[..., 1])
    ref = sps.ttest_1samp(d, 0).confidence_interval(0.95)
    assert (got.low, got.high) == (pytest.approx(ref.low), pytest.approx(ref.high))
    # every task alike: no spread. Unbounded, no interval; bounded (a difference of values on [0, 1]), the Wilson
    # bound of 0 of n tasks differing (t on n − 1 degrees of freedom) either side, kept within ± the bound
    same = np.c_[np.zeros(12), np.ones(12)]
    assert np.isnan(linearized_ci(same, lambda t: t[..., 0] / t[..., 1]).low)
    t = sps.t.ppf(0.975, 11)
    got = linearized_ci(same, lambda t: t[..., 0] / t[..., 1], bounded=1.0)
    assert (got.low, got.high) == pytest.approx((-t * t / (12 + t * t), t * t / (12 + t * t)))
    assert linearized_ci(same * 100, lambda t: t[..., 0] / t[..., 1] * 0 + 99.9, bounded=100).high == 100


def test_linearized_interval_of_a_difference_of_ratios_by_the_delta_method_written_out():
    """Two agents' pooled ratios on the same tasks: the variance of a_y/a_x − b_y/b_x by the delta method, its
    gradient by hand: the per-task linearized values (y_a − R_a x_a)/x̄_a − (y_b − R_b x_b)/x̄_b."""
    from ambiglib.stats._ratio_intervals import linearized_ci

    rng = np.random.default_rng(9)
    s = rng.integers(1, 7, (20, 4)).astype(float)
    got = linearized_ci(s, lambda t: t[..., 0] / t[..., 1] - t[..., 2] / t[..., 3])
    ra, rb = s[:, 0].sum() / s[:, 1].sum(), s[:, 2].sum() / s[:, 3].sum()
    z = (s[:, 0] - ra * s[:, 1]) / s[:, 1].mean() - (s[:, 2] - rb * s[:, 3]) / s[:, 3].mean()
    se = z.std(ddof=1) / np.sqrt(20)
    assert got.se == pytest.approx(se, rel=1e-6) and got.estimate == pytest.approx(ra - rb)
