"""Rankings of many agents (ambiglib.ranking): the letters, the rank intervals and the global test against their
definitions and a second implementation, and what the sentences claim on leaderboards of known truth
(ambiglib.simulate._leaderboard): no best among equals, the best found where one is built better."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from ambiglib import RunSet, comparisons
from ambiglib.answers import _headline as headline
from ambiglib.ranking import compact_letters, global_test, rank_agents, rank_intervals, ranking_pairs
from ambiglib.simulate._leaderboard import SimAgent, leaderboard_records

ROOT = Path(__file__).resolve().parent.parent

#: a sentence naming one agent above or below the others
NAMING = re.compile(r"\S+ (best|highest) \(|\blowest (?!group)[^\s(]+|higher than")


# ----------------------------------------------------------------------------- the pieces


def test_compact_letters_of_a_worked_example():
    """Worked by hand with Piepho's insert-and-absorb: A..D, A separated from C and D, B from D. Start {ABCD}; (A, C)
    splits it into {ABD}, {BCD}; (A, D) splits {ABD} into {AB}, {BD}, and {BD} ⊂ {BCD} is absorbed; (B, D) splits
    {BCD} into {BC}, {CD}. Letters from the top: a {AB}, b {BC}, c {CD}."""
    sep = {frozenset(p) for p in (("A", "C"), ("A", "D"), ("B", "D"))}
    assert compact_letters(list("ABCD"), sep) == {"A": "a", "B": "ab", "C": "bc", "D": "c"}
    assert compact_letters(list("ABC"), set()) == {"A": "a", "B": "a", "C": "a"}
    everyone = {frozenset(p) for p in itertools.combinations("ABC", 2)}
    assert compact_letters(list("ABC"), everyone) == {"A": "a", "B": "b", "C": "c"}


def test_compact_letters_share_a_letter_exactly_where_not_separated():
    """The display's defining property (Piepho 2004), on random decisions among up to 9 agents."""
    rng = np.random.default_rng(0)
    for _ in range(300):
        m = int(rng.integers(2, 10))
        agents = [f"x{i}" for i in range(m)]
        sep = {frozenset(p) for p in itertools.combinations(agents, 2) if rng.random() < rng.random()}
        letters = compact_letters(agents, sep)
        for a, b in itertools.combinations(agents, 2):
            share = bool(set(letters[a]) & set(letters[b]))
            assert share == (frozenset((a, b)) not in sep), (agents, sep, letters)


def test_rank_intervals_count_the_agents_separated_above_and_below():
    agents = ["a", "b", "c", "d"]
    # a above c and d; b above d: a [1, 2], b [1, 3], c [2, 4], d [3, 4]
    got = rank_intervals(agents, {("a", "c"), ("a", "d"), ("b", "d")})
    assert got == {"a": (1, 2), "b": (1, 3), "c": (2, 4), "d": (3, 4)}
    assert rank_intervals(agents, set()) == {a: (1, 4) for a in agents}


def test_global_test_on_pass_fail_is_cochrans_q_of_statsmodels():
    """One pass/fail trial a task: the statistic is statsmodels' Cochran's Q and its permutation p-value agrees with
    Q's chi-square p-value where the chi-square holds (many tasks)."""
    from statsmodels.stats.contingency_tables import cochrans_q

    rng = np.random.default_rng(3)
    n, m = 300, 4
    x = (rng.random((n, m)) < np.array([0.40, 0.45, 0.47, 0.52])).astype(float)
    got = global_test(x[:, :, None], lambda t: t[..., 0] / n, binary=True, n_perm=3999, seed=1)
    ref = cochrans_q(x)
    assert got.statistic == pytest.approx(ref.statistic)
    assert got.p_value == pytest.approx(ref.pvalue, abs=0.02)
    assert got.test.startswith("Cochran's Q") and got.n_tasks == n and got.n_agents == m


def test_global_test_holds_its_size_under_the_null():
    """Agents alike on every task (scores on tasks of different difficulty): the test rejects at 0.05 in about 5% of
    400 logs (a binomial 95% range 0.03-0.075)."""
    rng = np.random.default_rng(11)
    rejects = 0
    for _ in range(400):
        p = rng.beta(1, 1, 20)
        x = rng.binomial(3, np.repeat(p[:, None], 5, 1)).astype(float)
        cube = np.stack([x, np.full_like(x, 3.0)], axis=2)
        rejects += global_test(cube, lambda t: t[..., 0] / t[..., 1], n_perm=199,
                               seed=int(rng.integers(1 << 30))).p_value < 0.05
    assert 0.03 <= rejects / 400 <= 0.075


# ----------------------------------------------------------------------------- what the ranking claims


@pytest.fixture(scope="module")
def example_rs() -> RunSet:
    import ambiglib

    return ambiglib.load(ROOT / "data" / "example", quiet=True)


def _log(agents, **options) -> RunSet:
    return RunSet.from_records(leaderboard_records(agents, **options))


@pytest.fixture(scope="module")
def equals() -> RunSet:
    return _log([SimAgent(f"m{i:02d}") for i in range(20)], n_tasks=60, trials=3, seed=1)


def test_twenty_equal_agents_no_card_names_a_best_or_a_lowest(equals):
    """The issue's first finding: 20 agents with identical propensities were called "m13 best questions ... lowest
    m16". Now no sentence of the four cards names one, and each top group holds most of them."""
    sentences = [s for fn in (headline.asking, headline.question_quality, headline.payoff, headline.agent_ranking)
                 for s in fn(equals).attrs["answer"]]
    assert sentences and not [s for s in sentences if NAMING.search(s)], sentences
    long = headline.agent_ranking(equals, long=True)
    for metric, rows in long.groupby("metric"):
        assert rows["top"].astype(bool).sum() >= 15, metric
    ask = rank_agents(equals, metric="ask_rate", condition=("full", True))
    assert not [s for s in ask.attrs["answer"] if NAMING.search(s)]


def test_one_agent_built_better_is_named_best_alone_with_rank_one():
    agents = [SimAgent(f"m{i}") for i in range(7)] + [
        SimAgent("star", ask_ambiguous=0.9, ask_full=0.05, recall=0.85, irrelevant=0.1, pass_full=0.85,
                 pass_no_tool=0.3)]
    rs = _log(agents, n_tasks=100, trials=3, seed=4)
    card = headline.agent_ranking(rs)
    long = headline.agent_ranking(rs, long=True)
    for metric, rows in long.groupby("metric"):
        star = rows[rows["agent"] == "star"].iloc[0]
        assert (star["rank_low"], star["rank_high"]) == (1, 1), metric
        assert rows["top"].astype(bool).sum() == 1 and star["group"] == "a"
        assert (rows[rows["agent"] != "star"]["group"] != "a").all()
    assert " ".join(card.attrs["answer"]).count("star best") == long["metric"].nunique()
    # each card's sentence says the same of its own metric
    assert "Ask-F1: star best" in headline.question_quality(rs).attrs["answer"][0]
    assert "CalibScore: star best" in headline.asking(rs).attrs["answer"][0]


def test_a_ranking_and_its_pairs_decide_alike():
    """Two agents are told apart in the pairs (verdict "<x> higher") exactly where the ranking's letters separate
    them; the rank intervals are those counts."""
    agents = [SimAgent("a", recall=0.8, irrelevant=0.1), SimAgent("b", recall=0.6), SimAgent("c", recall=0.3),
              SimAgent("d", recall=0.3)]
    rs = _log(agents, n_tasks=40, trials=2, seed=2)
    out = rank_agents(rs, metric="ask_f1")
    pairs = ranking_pairs(rs, metric="ask_f1")
    letters = dict(zip(out["agent"], out["group"]))
    told = set()
    for _, p in pairs.iterrows():
        apart = p["verdict"].endswith(" higher")
        assert apart == (not set(letters[p["model_a"]]) & set(letters[p["model_b"]])), p
        if apart:
            told.add((p["model_a"], p["model_b"]) if p["difference"] > 0 else (p["model_b"], p["model_a"]))
    expected = rank_intervals(list(out["agent"]), told)
    assert {a: (lo, hi) for a, lo, hi in zip(out["agent"], out["rank_low"], out["rank_high"])} == expected
    assert out["global_p"].iloc[0] < 0.05 and "d" in out[out["bottom"].astype(bool)]["agent"].tolist()


def test_p_first_is_the_share_of_task_draws_an_agent_ranks_first():
    """Recomputed by hand: the same draws (numpy's generator, as stats.bootstrap_counts draws them), each agent's
    pooled ask rate, the first place shared among ties."""
    agents = [SimAgent("a", ask_ambiguous=0.7), SimAgent("b", ask_ambiguous=0.6), SimAgent("c", ask_ambiguous=0.5)]
    rs = _log(agents, n_tasks=15, trials=2, seed=5)
    out = rank_agents(rs, metric="ask_rate", n_boot=300, seed=7)
    runs = rs.runs[(rs.runs["spec"] == "ambiguous") & rs.runs["ask_tool"]]
    asked = runs.assign(asked=(runs["n_questions"] > 0).astype(float), n=1.0)
    per = asked.groupby(["task_id", "model"])[["asked", "n"]].sum().unstack("model")
    tasks = sorted(per.index)
    draws = np.random.default_rng(7).integers(0, len(tasks), size=(300, len(tasks)))
    wins = dict.fromkeys("abc", 0.0)
    for row in draws:
        rate = {m: per["asked"][m].iloc[row].sum() / per["n"][m].iloc[row].sum() for m in "abc"}
        top = max(rate.values())
        first = [m for m in "abc" if rate[m] == top]
        for m in first:
            wins[m] += 1 / len(first)
    got = dict(zip(out["agent"], out["p_first"]))
    assert got == pytest.approx({m: w / 300 for m, w in wins.items()})


def test_first_places_over_many_tasks_are_the_same_drawn_fresh_or_kept():
    """Over enough tasks for the resampling counts to be kept between calls (stats.KEPT_COUNTS_BYTES) and drawn in
    several blocks: each agent's share of first places, recomputed draw by draw from numpy's generator (as
    stats.bootstrap_counts draws), is what first_shares gives, the first time and again from the kept counts, and
    after another statistic was bootstrapped over the same tasks with the same seed."""
    from ambiglib import stats
    from ambiglib.ranking import first_shares
    from ambiglib.stats import _bootstrap as stats_bootstrap

    n, m, n_boot, seed = 5_000, 3, 1_500, 11
    assert n >= stats_bootstrap._KEEP_FROM_UNITS and n_boot > stats.BOOTSTRAP_BLOCK // n  # kept, and in several blocks
    gen = np.random.default_rng(3)
    runs = gen.integers(1, 4, size=(n, m)).astype(float)
    asked = np.minimum(runs, gen.integers(0, 3, size=(n, m))).astype(float)
    runs[:, 2], asked[:, 2] = runs[:, 1], asked[:, 1]  # two agents alike on every task: they tie in every draw
    sums = np.stack([asked, runs], axis=2)  # tasks x agents x (asked, runs)

    def rate(totals: np.ndarray) -> np.ndarray:
        return totals[..., 0] / totals[..., 1]

    draws = np.random.default_rng(seed).integers(0, n, size=(n_boot, n))
    wins = np.zeros(m)
    for row in draws:
        counts = np.bincount(row, minlength=n).astype(float)
        value = (counts @ asked) / (counts @ runs)
        first = value == value.max()
        wins += first / first.sum()
    expected = wins / n_boot
    stats_bootstrap._KEPT.clear()
    fresh = first_shares(sums, rate, n_boot, seed)
    kept = first_shares(sums, rate, n_boot, seed)
    stats_bootstrap._KEPT.clear()
    stats.bootstrap_totals(runs, n_boot, seed)  # another statistic over the same tasks keeps the counts first
    after_other = first_shares(sums, rate, n_boot, seed)
    assert fresh == pytest.approx(expected, rel=1e-12)
    assert fresh[1] == fresh[2] > 0
    assert np.array_equal(fresh, kept) and np.array_equal(fresh, after_other)


# ----------------------------------------------------------------------------- families and what cannot be


def test_each_benchmarks_verdicts_stand_alone_on_the_example(example_rs):
    """The issue: HIL-Bench's Ask-F1 comparison had p_holm 0.142 over the whole table and 0.042 over HIL-Bench alone,
    its verdict changing with the other benchmarks in the log. With a family per benchmark and question, each
    benchmark's rows are the same with the others removed."""
    whole = headline.agent_comparison(example_rs)
    keys = ["pair", "what"]
    for bench in sorted(set(whole["benchmark"])):
        alone = headline.agent_comparison(example_rs.filter(benchmark=bench))
        mine = whole[whole["benchmark"] == bench]
        a, b = mine.set_index(keys), alone.set_index(keys)
        assert list(a.index) == list(b.index)
        for column in ("verdict", "p_value", "p_holm", "family_size", "p_smallest_adjusted"):
            assert a[column].tolist() == pytest.approx(b[column].tolist(), nan_ok=True) if a[column].dtype != object \
                else a[column].tolist() == b[column].tolist(), (bench, column)
    hil = whole[(whole["benchmark"] == "hil-bench") & (whole["what"] == "Ask-F1")].iloc[0]
    assert hil["family"] == "hil-bench · are its questions good" and hil["family_size"] == 1
    assert hil["p_holm"] == pytest.approx(hil["p_value"])


def _pairs_log(differ: int, same: int) -> RunSet:
    """Two models on ``differ + same`` tasks, 2 trials each: a scores 1 and b 0 on the first ``differ``, alike on
    the rest."""
    recs = []
    for t in range(differ + same):
        for k in (1, 2):
            recs.append({"benchmark": "own", "suite": "s", "task_id": f"t{t}", "model": "a", "spec": "ambiguous",
                         "ask_tool": True, "trial": k, "score": 1.0})
            recs.append({"benchmark": "own", "suite": "s", "task_id": f"t{t}", "model": "b", "spec": "ambiguous",
                         "ask_tool": True, "trial": k, "score": 1.0 if t >= differ else 0.0})
    return RunSet.from_records(recs)


def test_a_comparison_that_cannot_reach_significance_says_so():
    """4 tasks differ (2 trials each: a permutation test). Its smallest two-sided p is 2 / 2^4 = 0.125, above 0.05
    whatever the outcomes: 'cannot', not 'little power'. With 6 tasks, 2 / 64 = 0.031 can."""
    row = comparisons.paired_comparison(_pairs_log(4, 6), a="a", b="b").iloc[0]
    assert row["p_smallest"] == pytest.approx(2 / 2 ** 4) and row["p_value"] == pytest.approx(2 / 2 ** 4)
    assert row["p_smallest_adjusted"] >= 0.05
    assert ranking_pairs(_pairs_log(4, 6), metric="mean_score")["verdict"].iloc[0] == \
        "cannot be significant at this size"
    row = comparisons.paired_comparison(_pairs_log(6, 4), a="a", b="b").iloc[0]
    assert row["p_smallest"] == pytest.approx(2 / 2 ** 6) and row["p_smallest_adjusted"] < 0.05
    # in a family of m rows Holm's best case multiplies the smallest by m: two families of metrics, one of 1 row
    both = comparisons.paired_comparison(_pairs_log(6, 4), family="all")
    assert both["family_size"].iloc[0] == 1


def test_families_can_be_widened_and_narrowed(example_rs):
    whole = headline.agent_comparison(example_rs, family="all")
    assert set(whole["family"]) == {"the whole table"}
    assert (whole["family_size"] == whole["p_value"].notna().sum()).all()
    per_metric = headline.agent_comparison(example_rs, family="metric")
    for label, rows in per_metric.groupby("family"):  # each benchmark's rows of one metric (its policies together)
        assert rows["benchmark"].nunique() == 1 and rows["metric"].nunique() == 1
        assert label == f"{rows['benchmark'].iloc[0]} · {rows['metric'].iloc[0]}"
        assert (rows["family_size"] == rows["p_value"].notna().sum()).all()
    calib = per_metric[per_metric["family"] == "ambig-ds · calib_score"]
    assert set(calib["policy"]) == {"conservative", "permissive"}
    with pytest.raises(ValueError, match="family must be one of"):
        comparisons.paired_comparison(example_rs, family="page")


# ----------------------------------------------------------------------------- compare --metric ask_rate


def _ask_log() -> tuple[RunSet, np.ndarray, np.ndarray]:
    """An own benchmark: 10 tasks, 3 trials with the tool on ambiguous tasks, two models asking on some."""
    rng = np.random.default_rng(12)
    a = rng.integers(0, 4, 10)
    b = rng.integers(0, 4, 10)
    recs = []
    for t in range(10):
        for k in range(3):
            for model, asks in (("a", a[t]), ("b", b[t])):
                recs.append({"benchmark": "mine", "suite": "s", "task_id": f"t{t}", "model": model,
                             "spec": "ambiguous", "ask_tool": True, "trial": k + 1, "score": 0.5,
                             "questions": [{"text": "which one?"}] if k < asks else []})
    return RunSet.from_records(recs), a / 3, b / 3


def test_compare_ask_rate_is_the_hand_paired_computation():
    rs, x, y = _ask_log()
    row = comparisons.paired_comparison(rs, metric="ask_rate", a="a", b="b").iloc[0]
    d = x - y
    assert row["value_a"] == pytest.approx(x.mean()) and row["value_b"] == pytest.approx(y.mean())
    ci = sps.ttest_1samp(d, 0).confidence_interval(0.95)
    assert (row["difference_ci_low"], row["difference_ci_high"]) == (pytest.approx(ci.low), pytest.approx(ci.high))
    null = np.array([np.mean(np.where(s, -d, d)) for s in itertools.product((False, True), repeat=10)])
    p = min(1.0, 2 * min((null <= d.mean() + 1e-12).mean(), (null >= d.mean() - 1e-12).mean()))
    assert row["p_value"] == pytest.approx(p)
    assert row["condition"] == "ambiguous tasks with the ask tool"
    with pytest.raises(Exception, match="keeps the tool"):
        comparisons.paired_comparison(rs, metric="ask_rate", condition=("ambiguous", False))


def test_compare_ask_rate_from_the_command_line(tmp_path):
    import json
    import subprocess
    import sys

    _, x, y = _ask_log()
    path = tmp_path / "log.jsonl"
    with open(path, "w") as fh:
        for rec in _ask_records():
            fh.write(json.dumps(rec) + "\n")
    done = subprocess.run([sys.executable, "-m", "ambiglib", "compare", "--runs", str(path), "--metric", "ask_rate",
                           "--a", "a", "--b", "b", "--format", "json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    row = json.loads(done.stdout)[0]
    assert row["difference"] == pytest.approx((x - y).mean())
    full = subprocess.run([sys.executable, "-m", "ambiglib", "compare", "--runs", str(path), "--metric", "ask_rate",
                           "--condition", "full+tool"], capture_output=True, text=True)
    assert full.returncode == 1 and "ask_rate needs runs with the ask tool on fully specified tasks" in full.stderr


def _ask_records() -> list[dict]:
    rng = np.random.default_rng(12)
    a, b = rng.integers(0, 4, 10), rng.integers(0, 4, 10)
    return [{"benchmark": "mine", "suite": "s", "task_id": f"t{t}", "model": model, "spec": "ambiguous",
             "ask_tool": True, "trial": k + 1, "score": 0.5, "questions": [{"text": "which one?"}] if k < asks else []}
            for t in range(10) for k in range(3) for model, asks in (("a", a[t]), ("b", b[t]))]


def test_rank_from_the_command_line_names_no_best_among_equals(tmp_path):
    import json
    import subprocess
    import sys

    path = tmp_path / "log.jsonl"
    with open(path, "w") as fh:
        for rec in leaderboard_records([SimAgent(f"m{i}") for i in range(6)], n_tasks=30, trials=2, seed=3):
            fh.write(json.dumps(rec) + "\n")
    done = subprocess.run([sys.executable, "-m", "ambiglib", "rank", "--runs", str(path), "--metric", "ask_f1"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0]
    assert first.startswith("leaderboard: Ask-F1: ") and not NAMING.search(first), first
    assert "global test: permutation test over tasks" in done.stdout and "rank 1–6" in done.stdout
    csv = subprocess.run([sys.executable, "-m", "ambiglib", "rank", "--runs", str(path), "--metric", "ask_f1",
                          "--format", "csv", "--pairs"], capture_output=True, text=True)
    assert csv.returncode == 0 and len(pd.read_csv(__import__("io").StringIO(csv.stdout))) == 15


# ----------------------------------------------------------------------------- intervals and units


def test_no_interval_of_the_opening_is_a_point_on_the_example(example_rs):
    """The issue saw "0.00 to 0.00" (HIL-Bench's no-tool score, 12 tasks) and "1.0 to 1.0" (Ambig-DS questions per
    run). An all-zero score over n tasks now gets Wilson's width; a count with no spread gets no interval, and says
    why."""
    for fn in (headline.asking, headline.question_quality, headline.payoff):
        out = fn(example_rs)
        for column in [c for c in out.columns if c.endswith("_ci_low")]:
            name = column.removesuffix("_ci_low")
            low, high = out[column].to_numpy(float), out[f"{name}_ci_high"].to_numpy(float)
            ok = np.isfinite(low) & np.isfinite(high)
            assert (high[ok] > low[ok]).all(), (fn.__name__, name, out.loc[ok & (high <= low), name])
            if (~ok & out[name].notna().to_numpy()).any():
                assert column in out.attrs["empty"], (fn.__name__, name)
    pay = headline.payoff(example_rs)
    hil = pay[pay["benchmark"] == "hil-bench"].iloc[0]
    n = 12
    t = sps.t.ppf(0.975, n - 1)
    assert hil["score_no_tool"] == 0 and hil["score_no_tool_ci_high"] >= t * t / (n + t * t) - 1e-9


def test_a_difference_carries_its_unit(example_rs):
    out = headline.agent_comparison(example_rs)
    assert set(out.loc[out["metric"] == "score_gain_pp", "unit"]) == {"pp"}
    assert set(out.loc[out["metric"] != "score_gain_pp", "unit"]) == {"0-1"}
    from ambiglib.answers._cards import formatted

    shown, _ = formatted(out, headline.SHOWN["agent_comparison"], {})
    gains = shown["difference"][out["metric"].eq("score_gain_pp").to_numpy()]
    assert all(text.split(" (")[0].endswith(" pp") for text in gains)


def test_the_fourth_card_is_a_ranking_in_few_words():
    """A 4-agent log: one sentence per benchmark of at most ~60 words, then agents as rows, at most 8 columns."""
    agents = [SimAgent("mockllm/diligent", recall=0.8), SimAgent("mockllm/coinflip", ask_ambiguous=0.5),
              SimAgent("mockllm/nervous", ask_full=0.8), SimAgent("mockllm/stoic", ask_ambiguous=0.1)]
    card = headline.agent_ranking(_log(agents, n_tasks=20, trials=2, seed=9))
    assert len(card.attrs["answer"]) == 1 and len(card.attrs["answer"][0].split()) <= 60, card.attrs["answer"]
    shown = [c for c in headline.SHOWN["agent_ranking"] if c[0] in card.columns]
    assert len(shown) <= 8 and len(card) == 4
    from ambiglib.answers._cards import formatted

    text, _ = formatted(card, shown, {})
    assert all(re.fullmatch(r"[+-]?\d+\.\d+ [a-z]+ \(rank \d(–\d)?\)", cell) for cell in text["Ask-F1"])


def test_ranking_ask_policies_ranks_them_within_each_model():
    """between="policy": each model's policies are ranked among themselves, never pooled with another model's."""
    rng = np.random.default_rng(8)
    recs = []
    for model, rates in (("x", (0.9, 0.5, 0.1)), ("y", (0.2, 0.5, 0.8))):
        for policy, rate in zip(("p1", "p2", "p3"), rates):
            for t in range(30):
                asks = rng.random() < rate
                recs.append({"benchmark": "own", "suite": "s", "task_id": f"t{t}", "model": model, "policy": policy,
                             "spec": "ambiguous", "ask_tool": True, "score": 0.5,
                             "questions": [{"text": "which?"}] if asks else []})
    out = rank_agents(RunSet.from_records(recs), metric="ask_rate", between="policy")
    assert set(out.columns) >= {"model", "policy", "rank_low", "group"} and "agent" not in out.columns
    for _, rows in out.groupby("model"):
        assert sorted(rows["policy"]) == ["p1", "p2", "p3"] and set(rows["n_agents"]) == {3}
    x = out[out["model"] == "x"].set_index("policy")
    assert (x.loc["p1", "rank_low"], x.loc["p1", "rank_high"]) == (1, 1)  # 0.9 against 0.5 and 0.1 on 30 tasks
    assert "own, model x: ask rate on ambiguous tasks: p1 highest" in " ".join(out.attrs["answer"])


def test_a_judge_score_comparison_pools_as_the_opening_does():
    """a's questions were scored 3 (calls 4 and 2), 5 and 1; b's 5 and 2 (by another judge): 3.0 against 3.5, the
    same numbers the opening's judge score gives, and the note says the judges differ."""
    from builders import run

    def judged(task, model, scores, judge):
        labels = [{"facet": "usefulness", "label": str(v), "call": c + 1, "judge": judge, "q_index": i}
                  for i, calls in enumerate(scores) for c, v in enumerate(calls)]
        return run(task=task, model=model, benchmark="mine", suite="s", questions=[{"text": "?"} for _ in scores],
                   labels=labels)

    rs = RunSet.from_records([judged("t1", "a", [(4, 2), (5,)], "j"), judged("t2", "a", [(1,)], "j"),
                              judged("t1", "b", [(5,)], "k"), judged("t2", "b", [(2,)], "k")])
    row = comparisons.paired_comparison(rs, metric="judge_score", a="a", b="b").iloc[0]
    assert (row["value_a"], row["value_b"]) == (pytest.approx(3.0), pytest.approx(3.5))
    opening = headline.question_quality(rs).set_index("model")["judge_score"]
    assert (opening["a"], opening["b"]) == (row["value_a"], row["value_b"])
    assert "scored by different judges (j; k)" in comparisons.paired_comparison(rs, metric="judge_score").attrs["note"]
