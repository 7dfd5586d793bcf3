"""ambiglib.metrics against the papers' printed numbers, hand computation, scipy and brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from ambiglib import RunSet, metrics, stats
from ambiglib.metrics import MetricError
from ambiglib.metrics._common import _isin


def run(task="t1", model="m", spec="ambiguous", ask_tool=True, trial=1, **extra):
    rec = {"benchmark": "hil-bench", "suite": "sql", "task_id": task, "model": model, "spec": spec,
           "ask_tool": ask_tool, "trial": trial}
    rec.update(extra)
    return rec


def task(task_id="t1", n_blockers=3, benchmark="hil-bench", suite="sql", variant_id=None):
    rec = {"record": "task", "benchmark": benchmark, "suite": suite, "task_id": task_id,
           "blockers": [{"id": f"b{i}"} for i in range(n_blockers)]}
    if variant_id:
        rec["variant_id"] = variant_id
    return rec


def q(blocker=None, text="q?"):
    return {"text": text, "blocker_id": blocker}


def row(frame: pd.DataFrame, **where) -> pd.Series:
    mask = np.ones(len(frame), bool)
    for k, v in where.items():
        mask &= (frame[k] == v).to_numpy()
    assert mask.sum() == 1, (where, frame)
    return frame[mask].iloc[0]


# ============================================================================= Ask-F1

# HIL-Bench Table 1: pooled recall and precision (%) and the printed Ask-F1 (%).
TABLE1 = [
    ("sql", "GPT-5.3-Codex", 14.0, 55.3, 22.3), ("sql", "GPT-5.4", 22.7, 54.3, 32.1),
    ("sql", "Gemini 3.1 Pro", 59.2, 35.6, 44.5), ("sql", "Claude Opus 4.6", 61.2, 54.3, 57.5),
    ("swe", "GPT-5.3-Codex", 23.5, 56.5, 33.2), ("swe", "GPT-5.4", 27.0, 52.3, 35.6),
    ("swe", "Gemini 3.1 Pro", 36.2, 47.5, 41.1), ("swe", "Claude Opus 4.6", 34.6, 26.3, 29.9),
]


@pytest.mark.parametrize("suite, model, recall, precision, f1", TABLE1)
def test_ask_f1_reproduces_hil_bench_table1(suite, model, recall, precision, f1):
    # HIL-Bench Table 1: Ask-F1 is the harmonic mean of the pooled precision and recall (runlog-v1 B.1).
    # The printed P and R are rounded to 0.1 pp, so look inside their rounding boxes (at 0.01 pp)
    # for pooled values that give all three printed numbers, then build a log with exactly those
    # pooled counts and run it through ask_f1 end to end.
    def f1_of(p, r):
        return 2 * p * r / (p + r)

    grid = np.arange(-4, 5) / 100  # offsets in pp: x - 0.04 ... x + 0.04
    found = [(precision + dp, recall + dr) for dp in grid for dr in grid
             if round(100 * f1_of((precision + dp) / 100, (recall + dr) / 100), 1) == f1]
    assert found, "no P and R that round to the printed values give the printed F1"
    p_pct, r_pct = min(found, key=lambda pr: abs(pr[0] - precision) + abs(pr[1] - recall))
    n_rel, n_disc, n_q, n_b = round(p_pct * 100), round(r_pct * 100), 10_000, 10_000
    if n_disc > n_rel:  # one distinct blocker per relevant question at most: ask twice as many
        n_q, n_rel = 2 * n_q, 2 * n_rel
    questions = [q(f"b{i % n_disc}") for i in range(n_rel)] + [q(None)] * (n_q - n_rel)
    rs = RunSet.from_records([task("t", n_b, suite=suite), run("t", model=model, suite=suite, questions=questions)])
    out = metrics.ask_f1(rs).iloc[0]
    assert round(100 * out["precision"], 1) == precision
    assert round(100 * out["recall"], 1) == recall
    assert round(100 * out["ask_f1"], 1) == f1


def test_hil_bench_table1_f1_is_not_the_mean_or_product_of_p_and_r():
    # the printed F1 rules out the other plausible poolings of the printed P and R (Claude Opus 4.6, SQL)
    p, r = 0.543, 0.612
    assert round(100 * 2 * p * r / (p + r), 1) == 57.5
    assert round(100 * (p + r) / 2, 1) != 57.5 and round(100 * p * r, 1) != 57.5


def _duplicate_question_fixture():
    # one task with 4 blockers; run 1 asks twice about b0, once about b1, once irrelevantly;
    # run 2 never asks (silent guessing); run 3 asks one irrelevant question.
    return RunSet.from_records([
        task("t1", 4),
        run("t1", trial=1, questions=[q("b0"), q("b0"), q("b1"), q(None)]),
        run("t1", trial=2),
        run("t1", trial=3, questions=[q(None)]),
    ])


def test_relevant_versus_distinct_precision_by_hand():
    rs = _duplicate_question_fixture()
    relevant = metrics.ask_f1(rs).iloc[0]
    distinct = metrics.ask_f1(rs, precision="distinct").iloc[0]
    # 5 questions; 3 relevant (b0, b0, b1); 2 distinct blockers addressed
    assert (relevant["n_questions"], relevant["n_relevant"], relevant["n_discovered"]) == (5, 3, 2)
    assert relevant["precision"] == 3 / 5
    assert distinct["precision"] == 2 / 5


def test_all_runs_versus_asking_runs_recall_by_hand():
    rs = _duplicate_question_fixture()
    all_runs = metrics.ask_f1(rs).iloc[0]
    asking = metrics.ask_f1(rs, recall="asking_runs").iloc[0]
    # all runs: 2 discovered of 3 runs x 4 blockers; asking runs (1 and 3): 2 of 8
    assert (all_runs["n_blockers"], all_runs["recall"]) == (12, 2 / 12)
    assert (asking["n_blockers"], asking["recall"]) == (8, 2 / 8)
    p, r = 3 / 5, 2 / 12
    assert all_runs["ask_f1"] == pytest.approx(2 * p * r / (p + r))


def test_macro_pooling_by_hand():
    rs = _duplicate_question_fixture()
    out = metrics.ask_f1(rs, pooling="macro").iloc[0]
    p1, r1 = 3 / 4, 2 / 4
    f1 = 2 * p1 * r1 / (p1 + r1)
    assert out["precision"] == pytest.approx((p1 + 0) / 2)  # over asking runs 1 and 3
    assert out["recall"] == pytest.approx((r1 + 0 + 0) / 3)  # over all runs
    assert out["ask_f1"] == pytest.approx((f1 + 0 + 0) / 3)  # a silent run counts F1 = 0


def test_ask_f1_only_counts_ambiguous_runs_with_the_tool_and_excludes_errors():
    rs = RunSet.from_records([
        task("t1", 2),
        run("t1", trial=1, questions=[q("b0")]),
        run("t1", trial=2, status="error", questions=[q("b1")]),
        run("t1", ask_tool=False),
        run("t1", spec="full", questions=[q("b1")]),
    ])
    out = metrics.ask_f1(rs).iloc[0]
    assert (out["n_runs"], out["n_questions"], out["n_excluded"]) == (1, 1, 1)
    assert (out["precision"], out["recall"]) == (1.0, 0.5)


def test_ask_f1_precision_is_zero_without_questions():
    rs = RunSet.from_records([task("t1", 3), run("t1")])
    out = metrics.ask_f1(rs).iloc[0]
    assert (out["n_questions"], out["precision"], out["recall"], out["ask_f1"]) == (0, 0.0, 0.0, 0.0)


def test_ask_f1_names_a_task_without_blocker_record():
    rs = RunSet.from_records([task("t1", 3), run("t1"), run("t9", questions=[q("b0")])])
    with pytest.raises(MetricError, match=r"no task record for \(benchmark='hil-bench', suite='sql', variant_id='t9'\)"):
        metrics.ask_f1(rs)
    # asking_runs recall needs blockers only for runs that asked
    rs = RunSet.from_records([task("t1", 3), run("t1", questions=[q("b0")]), run("t9")])
    assert metrics.ask_f1(rs, recall="asking_runs").iloc[0]["recall"] == 1 / 3
    with pytest.raises(MetricError, match="no task record"):
        metrics.ask_f1(rs)


def test_ask_f1_refuses_a_blocker_the_task_does_not_register():
    rs = RunSet.from_records([task("t1", 2), run("t1", questions=[q("b0"), q("b7")])])
    with pytest.raises(MetricError, match=r"question 1 names blocker 'b7', which task .* does not register"):
        metrics.ask_f1(rs)


def test_ask_f1_refuses_groups_that_mix_policies():
    rs = RunSet.from_records([task("t1", 2), run("t1", policy="supervisor"), run("t1", policy="executive")])
    with pytest.raises(MetricError, match=r"mixes policy values \['executive', 'supervisor'\]; add 'policy' to by="):
        metrics.ask_f1(rs)
    assert len(metrics.ask_f1(rs, by=("suite", "model", "policy"))) == 2


def test_ask_f1_ci_equals_the_generic_cluster_bootstrap():
    rng = np.random.default_rng(1)
    records = []
    for t in range(15):
        records.append(task(f"t{t}", 3))
        for trial in (1, 2, 3):
            asks = [q(f"b{rng.integers(3)}" if rng.random() < 0.6 else None) for _ in range(rng.integers(0, 4))]
            records.append(run(f"t{t}", trial=trial, questions=asks))
    rs = RunSet.from_records(records)
    out = metrics.ask_f1(rs, ci=True, n_boot=800, seed=3).iloc[0]
    # the same statistic through stats.cluster_bootstrap on per-run rows
    per_run = rs.runs[["run_id", "task_id", "n_questions"]].astype({"task_id": object}).copy()
    rel = rs.questions[rs.questions["relevant"].astype(bool)]
    per_run["rel"] = per_run["run_id"].map(rel.groupby("run_id").size()).fillna(0)
    per_run["disc"] = per_run["run_id"].map(rel.groupby("run_id")["blocker_id"].nunique()).fillna(0)
    per_run["b"] = 3.0

    def f1(f, w):
        p = (w @ f["rel"].to_numpy(float)) / (w @ f["n_questions"].to_numpy(float))
        r = (w @ f["disc"].to_numpy(float)) / (w @ f["b"].to_numpy(float))
        return np.column_stack([p, r, 2 * p * r / (p + r)])

    generic = stats.cluster_bootstrap(per_run, f1, n_boot=800, seed=3)
    for i, name in enumerate(["precision", "recall", "ask_f1"]):
        assert out[name] == pytest.approx(generic.loc[i, "estimate"])
        assert (out[f"{name}_ci_low"], out[f"{name}_ci_high"]) == pytest.approx(
            (generic.loc[i, "ci_low"], generic.loc[i, "ci_high"]), abs=1e-12)
        assert out[f"{name}_ci_low"] <= out[name] <= out[f"{name}_ci_high"]


# ============================================================================= ask calibration

# Ambig-DS Table 13: (axis, model, ask on ambiguous %, ask on full %, CalibScore) per policy.
TABLE13 = [
    ("objective", "Gemini 3 Flash", "permissive", 95, 95, 0.10), ("objective", "Gemini 3 Flash", "conservative", 16, 5, 0.27),
    ("objective", "GPT-5.4 Nano", "permissive", 79, 87, 0.22), ("objective", "GPT-5.4 Nano", "conservative", 0, 5, 0.00),
    ("objective", "Claude Haiku 4.5", "permissive", 100, 100, 0.00), ("objective", "Claude Haiku 4.5", "conservative", 5, 5, 0.10),
    ("objective", "Gemini 3.1 Pro", "permissive", 100, 33, 0.80), ("objective", "Gemini 3.1 Pro", "conservative", 70, 0, 0.82),
    ("objective", "GPT-5.4", "permissive", 100, 87, 0.23), ("objective", "GPT-5.4", "conservative", 0, 0, 0.00),
    ("target", "Gemini 3 Flash", "permissive", 98, 88, 0.21), ("target", "Gemini 3 Flash", "conservative", 96, 2, 0.97),
    ("target", "GPT-5.4 Nano", "permissive", 100, 98, 0.04), ("target", "GPT-5.4 Nano", "conservative", 51, 8, 0.66),
    ("target", "Claude Haiku 4.5", "permissive", 100, 100, 0.00), ("target", "Claude Haiku 4.5", "conservative", 67, 2, 0.80),
    ("target", "Gemini 3.1 Pro", "permissive", 98, 51, 0.65), ("target", "Gemini 3.1 Pro", "conservative", 94, 0, 0.97),
    ("target", "GPT-5.4", "permissive", 94, 65, 0.51), ("target", "GPT-5.4", "conservative", 33, 4, 0.49),
]


def test_ask_calibration_reproduces_all_20_rows_of_ambig_ds_table13():
    # 100 ask-only runs per spec, so the printed percentages are exact counts
    records = []
    for suite, model, policy, amb, full, _ in TABLE13:
        for spec, pct in (("ambiguous", amb), ("full", full)):
            for i in range(100):
                records.append({"benchmark": "ambig-ds", "suite": suite, "task_id": f"task{i}", "model": model,
                                "spec": spec, "ask_tool": True, "policy": policy, "protocol": "ask_only",
                                "questions": [q()] if i < pct else []})
    out = metrics.ask_calibration(RunSet.from_records(records))
    assert len(out) == 20
    for suite, model, policy, amb, full, calib in TABLE13:
        r = row(out, suite=suite, model=model, policy=policy)
        assert (r["n_ambiguous"], r["n_full"]) == (100, 100)
        assert (r["ask_on_ambiguous"], r["ask_on_full"]) == (amb / 100, full / 100)
        assert round(r["calib_score"], 2) == calib, (suite, model, policy)


def test_calib_score_is_zero_when_both_terms_are_zero():
    assert metrics.calib_score(0.0, 1.0) == 0.0
    assert metrics.calib_score(1.0, 0.0) == 1.0


def test_ask_calibration_cis_are_wilson_and_task_bootstrap():
    records = [run(f"t{i}", spec=s, policy="p", protocol="ask_only", questions=[q()] if (i + (s == "full")) % 3 == 0 else [])
               for i in range(20) for s in ("ambiguous", "full")]
    out = metrics.ask_calibration(RunSet.from_records(records), ci=True, n_boot=500).iloc[0]
    k = round(out["ask_on_ambiguous"] * out["n_ambiguous"])
    assert (out["ask_on_ambiguous_ci_low"], out["ask_on_ambiguous_ci_high"]) == pytest.approx(stats.wilson_ci(k, 20))
    assert out["calib_score_ci_low"] <= out["calib_score"] <= out["calib_score_ci_high"]


# ============================================================================= pass@k


@pytest.mark.parametrize("n", [3, 4, 5, 7])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_unbiased_pass_at_k_equals_brute_force_over_all_k_subsets(n, k):
    for c in range(n + 1):
        outcomes = [1] * c + [0] * (n - c)
        subsets = list(itertools.combinations(range(n), k))
        brute = np.mean([any(outcomes[i] for i in s) for s in subsets])
        records = [run("t", spec="full", ask_tool=False, trial=i + 1, passed=bool(o)) for i, o in enumerate(outcomes)]
        out = metrics.pass_at_k(RunSet.from_records(records), k=k).iloc[0]
        assert out["pass_at_k"] == pytest.approx(brute, abs=1e-12), (n, k, c)


def test_first_k_pass_at_k_is_the_harness_rule():
    # task a: successes only after the first 3 valid passes; task b: one in pass 2; an error pass is skipped
    records = [run("a", spec="full", ask_tool=False, trial=t, passed=t == 4) for t in (1, 2, 3, 4)]
    records += [run("b", spec="full", ask_tool=False, trial=1, status="error"),
                run("b", spec="full", ask_tool=False, trial=2, passed=True),
                run("b", spec="full", ask_tool=False, trial=3, passed=False),
                run("b", spec="full", ask_tool=False, trial=4, passed=False)]
    rs = RunSet.from_records(records)
    first = metrics.pass_at_k(rs, k=3, estimator="first_k").iloc[0]
    unbiased = metrics.pass_at_k(rs, k=3).iloc[0]
    assert (first["n_tasks"], first["pass_at_k"], first["n_excluded"]) == (2, 0.5, 1)
    # unbiased: a has n=4, c=1 → 1 − C(3,3)/C(4,3) = 0.75; b has n=3, c=1 → 1
    assert unbiased["pass_at_k"] == pytest.approx((0.75 + 1) / 2)


def test_pass_at_k_leaves_out_tasks_with_fewer_than_k_trials_and_refuses_mixed_conditions():
    records = [run("a", spec="full", ask_tool=False, trial=t, passed=True) for t in (1, 2)]
    records += [run("b", spec="full", ask_tool=False, trial=t, passed=False) for t in (1, 2, 3)]
    out = metrics.pass_at_k(RunSet.from_records(records), k=3).iloc[0]
    assert (out["n_tasks"], out["pass_at_k"]) == (1, 0.0)
    mixed = RunSet.from_records(records + [run("a", trial=9)])
    with pytest.raises(MetricError, match=r"mixes spec values \['ambiguous', 'full'\]"):
        metrics.pass_at_k(mixed, k=3)


# ============================================================================= value of information


def _lhaw_cell(model, n_variants, pass_without, pass_with, asking_per_variant, questions_total,
               score_without=0.0, score_with=0.0, policy="default", suite="mcp-atlas"):
    """Three trials per variant with and without ask_user, built to given aggregate counts."""
    records = []
    n_asking = sum(asking_per_variant)
    per_trial_q = [1] * n_asking
    for i in range(questions_total - n_asking):
        per_trial_q[i % n_asking] += 1
    qi = iter(per_trial_q)
    for v in range(n_variants):
        vid = f"task{v}__v1"
        for trial in (1, 2, 3):
            base = {"benchmark": "lhaw", "suite": suite, "task_id": f"task{v}", "variant_id": vid, "model": model,
                    "spec": "ambiguous", "trial": trial}
            records.append({**base, "ask_tool": False, "passed": v < pass_without and trial == 1,
                            "score": score_without})
            asks = [q(text=f"q{j}") for j in range(next(qi))] if trial <= asking_per_variant[v] else []
            records.append({**base, "ask_tool": True, "policy": policy, "passed": v < pass_with and trial == 1,
                            "score": score_with, "questions": asks})
    return records


def _asking(n_variants, n_variants_asking, n_trials_asking):
    """Spread n_trials_asking over n_variants_asking variants, at most 3 each."""
    per = [0] * n_variants
    for i in range(n_trials_asking):
        per[i % n_variants_asking] += 1
    assert max(per) <= 3
    return per


@pytest.mark.parametrize("model, ask_pct, trials_asking, avg_per_traj, pass3, gain, gain_per_q", [
    # LHAW Table 3, MCP-Atlas (100 variants, 300 trials); trials asking N from Table 4
    ("Claude Opus 4.5", 73, 188, 1.10, 47.0, 31.0, 0.15),
    ("GPT-5.2", 97, 280, 1.73, 42.0, 32.0, 0.07),
    ("Claude Sonnet 4.5", 73, 167, 1.11, 39.0, 32.0, 0.17),
])
def test_value_of_information_reproduces_lhaw_table3_gain_per_question(model, ask_pct, trials_asking, avg_per_traj,
                                                                       pass3, gain, gain_per_q):
    # runlog-v1 B.3: Table 3's Gain/Q = gain / (trials with questions × Avg/Traj), and its "Ask %"
    # is the share of variants with an asking trial (always >= the trial share of Table 4's N).
    # The printed score is without the tool, the gain in parentheses (LHAW §4.2: Opus-4.5 "recovers
    # to 78% pass@3 with ask_user (from 47% without)").
    n_questions = round(trials_asking * avg_per_traj)
    records = _lhaw_cell(model, 100, int(pass3), int(pass3 + gain), _asking(100, ask_pct, trials_asking), n_questions)
    out = metrics.value_of_information(RunSet.from_records(records), k=3).iloc[0]
    assert round(100 * out["variant_ask_rate"]) == ask_pct
    assert out["ask_rate"] == trials_asking / 300
    assert round(out["avg_per_traj"], 2) == avg_per_traj
    assert round(100 * out["pass_at_k"], 1) == pass3
    assert round(out["pass_gain_pp"], 1) == gain
    assert round(out["pass_gain_pp_per_question"], 2) == gain_per_q


@pytest.mark.parametrize("persona, gain, questions, printed", [
    # LHAW Table 14 (MCP-Atlas, n=300, Sonnet-4.5): Gain%/Q = Ckpt gain / Qs
    ("original", 23.3, 186, 0.13),
    ("standard", 23.8, 241, 0.10),
    ("executive", 16.7, 124, 0.13),
])
def test_value_of_information_reproduces_lhaw_table14(persona, gain, questions, printed):
    # 39.3 is the Ckpt% without the tool, the same for every persona: the no-tool runs are shared
    records = _lhaw_cell("Claude Sonnet 4.5", 100, 0, 0, _asking(100, 100, min(150, questions)), questions,
                         score_without=0.393, score_with=0.393 + gain / 100, policy=persona)
    out = metrics.value_of_information(RunSet.from_records(records), by=("suite", "model", "policy")).iloc[0]
    assert round(100 * out["mean_score"], 1) == 39.3
    assert out["score_gain_pp"] == pytest.approx(gain)
    assert out["n_questions"] == questions
    assert round(out["score_gain_pp_per_question"], 2) == printed


def test_lhaw_table14_supervisor_row_disagrees_with_its_own_columns():
    # Table 14 prints Supervisor 39.3 (+25.6), 266 Qs, Gain%/Q 0.09%; but 25.6/266 = 0.0962, which
    # rounds to 0.10. The other three rows match Ckpt gain / Qs exactly, so the paper truncated
    # or mistyped this cell; docs/reproduction.md lists it.
    assert round(25.6 / 266, 2) == 0.10 != 0.09


def test_value_of_information_personas_share_the_no_tool_runs():
    records = _lhaw_cell("m", 10, 2, 5, _asking(10, 10, 10), 10, policy="supervisor")
    records += [r | {"policy": "executive", "passed": r["passed"]} for r in
                _lhaw_cell("m", 10, 2, 7, _asking(10, 10, 10), 20, policy="executive") if r["ask_tool"]]
    out = metrics.value_of_information(RunSet.from_records(records), by=("suite", "model", "policy"))
    assert out["policy"].tolist() == ["executive", "supervisor"]
    assert out["pass_at_k"].tolist() == [0.2, 0.2]  # the same no-tool runs under both personas
    assert out["pass_gain_pp"].tolist() == pytest.approx([50.0, 30.0])
    with pytest.raises(MetricError, match=r"mixes policy values \['executive', 'supervisor'\]"):
        metrics.value_of_information(RunSet.from_records(records))


def test_value_of_information_base_and_nulls():
    records = _lhaw_cell("m", 4, 1, 2, [0, 0, 0, 0], 0)
    records += [{"benchmark": "lhaw", "suite": "mcp-atlas", "task_id": f"task{v}", "model": "m", "spec": "full",
                 "ask_tool": False, "trial": t, "passed": v < 3 and t == 2, "score": 0.5} for v in range(4) for t in (1, 2, 3)]
    out = metrics.value_of_information(RunSet.from_records(records)).iloc[0]
    assert (out["base_pass_at_k"], out["base_mean_score"]) == (0.75, 0.5)
    assert out["n_questions"] == 0 and out["ask_rate"] == 0
    assert np.isnan(out["pass_gain_pp_per_question"]) and np.isnan(out["avg_per_traj"])
    no_base = metrics.value_of_information(RunSet.from_records(_lhaw_cell("m", 4, 1, 2, [1, 0, 0, 0], 1))).iloc[0]
    assert np.isnan(no_base["base_pass_at_k"])


def test_value_of_information_ci_brackets_the_estimates():
    rs = RunSet.from_records(_lhaw_cell("m", 30, 10, 20, _asking(30, 20, 40), 60, 0.2, 0.5))
    out = metrics.value_of_information(rs, ci=True, n_boot=500).iloc[0]
    for name in ("pass_at_k", "pass_gain_pp", "ask_rate", "pass_gain_pp_per_question"):
        assert out[f"{name}_ci_low"] <= out[name] <= out[f"{name}_ci_high"], name


# ============================================================================= ambiguity classes


def test_ambiguity_classes_follow_lhaw_definition_3_1():
    def trials(variant, results, passed):
        return [{"benchmark": "lhaw", "suite": "tac", "task_id": "t", "variant_id": variant, "model": "m",
                 "spec": "ambiguous", "ask_tool": False, "trial": i + 1, "passed": p,
                 "checkpoints": [{"result": r, "total": 2} for r in res]}
                for i, (res, p) in enumerate(zip(results, passed))]
    records = (trials("oc", [(0, 1), (1, 1), (0, 1)], [False] * 3)          # c = 0, |S| = 2
               + trials("div", [(2, 2), (1, 2), (2, 2)], [True, False, True])  # c > 0, |S| = 2
               + trials("ben", [(2, 2)] * 3, [True] * 3)                      # c > 0, |S| = 1
               + trials("new", [(0, 0)] * 3, [False] * 3)                     # c = 0, |S| = 1
               + trials("judged", [(0, 0)] * 3, [False] * 3))
    # a majority of new_task labels saying "false" turns a new-task variant into outcome-critical
    for r, label in zip([r for r in records if r["variant_id"] == "judged"], ["false", "false", "true"]):
        r["labels"] = [{"facet": "new_task", "label": label}]
    records.append({"benchmark": "lhaw", "suite": "tac", "task_id": "t", "variant_id": "div", "model": "m",
                    "spec": "ambiguous", "ask_tool": True, "trial": 1, "passed": False})  # with tool: ignored
    out = metrics.ambiguity_classes(RunSet.from_records(records)).set_index("variant_id")
    assert out["ambiguity_class"].to_dict() == {"ben": "benign", "div": "divergent", "judged": "outcome-critical",
                                                "new": "new-task", "oc": "outcome-critical"}
    assert out.loc["div", ["n_trials", "n_successes", "n_terminal_states"]].tolist() == [3, 2, 2]
    # each run's checkpoints are its own whatever the runs frame's row labels and order (built by hand)
    rs = RunSet.from_records(records)
    order = np.random.default_rng(3).permutation(len(rs.runs))
    shuffled = RunSet(**{**rs.frames(), "runs": rs.runs.iloc[order].set_axis(np.arange(len(order))[::-1] * 7)})
    again = metrics.ambiguity_classes(shuffled).set_index("variant_id")
    pd.testing.assert_frame_equal(again, out)


def test_ambiguity_classes_use_passed_when_there_are_no_checkpoints():
    records = [{"benchmark": "lhaw", "suite": "swe-bench-pro", "task_id": "t", "model": "m", "spec": "ambiguous",
                "ask_tool": False, "trial": i, "passed": p} for i, p in ((1, True), (2, False), (3, False))]
    out = metrics.ambiguity_classes(RunSet.from_records(records)).iloc[0]
    assert (out["n_terminal_states"], out["ambiguity_class"]) == (2, "divergent")


# ============================================================================= Ambig-DS performance


def _ambig_ds_cell(scores, model="m", status=None):
    """scores: {task: (full, ambig, ask)}; status: {(task, condition): status} overrides."""
    records = []
    status = status or {}
    for t, triple in scores.items():
        for cond, value in zip(("full", "ambig", "ask"), triple):
            spec, tool = {"full": ("full", False), "ambig": ("ambiguous", False), "ask": ("ambiguous", True)}[cond]
            st_ = status.get((t, cond), "ok")
            rec = {"benchmark": "ambig-ds", "suite": "target", "task_id": t, "model": model, "spec": spec,
                   "ask_tool": tool, "status": st_, "score": None if st_ != "ok" else value}
            records.append(rec)
    return records


def test_performance_by_hand_scipy_and_the_harness_bootstrap():
    rng = np.random.default_rng(7)
    scores = {f"task{i:02d}": tuple(np.round(rng.random(3), 3)) for i in range(25)}
    records = _ambig_ds_cell(scores, status={("task03", "ambig"): "invalid", ("task04", "ask"): "timeout",
                                             ("task05", "full"): "error"})
    out = metrics.performance(RunSet.from_records(records), n_boot=3000, seed=0).iloc[0]
    tasks = sorted(t for t in scores if t != "task05")  # the error run's task leaves the pairing
    full = np.array([scores[t][0] for t in tasks])
    ambig = np.array([0.0 if t == "task03" else scores[t][1] for t in tasks])  # invalid scores 0, stays in
    ask = np.array([0.0 if t == "task04" else scores[t][2] for t in tasks])
    assert (out["n_tasks"], out["n_excluded"]) == (24, 1)
    assert (out["s_full"], out["s_ambig"], out["s_ask"]) == pytest.approx((full.mean(), ambig.mean(), ask.mean()))
    assert out["delta_ambig"] == pytest.approx(ambig.mean() - full.mean())
    assert out["delta_ask"] == pytest.approx(ask.mean() - ambig.mean())
    assert out["p_full_gt_ambig"] == sps.wilcoxon(full - ambig, alternative="greater", zero_method="wilcox").pvalue
    assert out["p_ask_gt_ambig"] == sps.wilcoxon(ask - ambig, alternative="greater", zero_method="wilcox").pvalue

    def harness(a, b, seed):  # Ambig-DS step_6_aggregate.py:_paired_bootstrap_ci
        d = a - b
        idx = np.random.default_rng(seed).integers(0, len(d), size=(3000, len(d)))
        return np.quantile(d[idx].mean(axis=1), [0.025, 0.975])

    assert (out["delta_ambig_ci_low"], out["delta_ambig_ci_high"]) == pytest.approx(harness(ambig, full, 0), abs=1e-12)
    assert (out["delta_ask_ci_low"], out["delta_ask_ci_high"]) == pytest.approx(harness(ask, ambig, 1), abs=1e-12)


def test_performance_groups_are_independent_of_each_other_and_of_row_order():
    rng = np.random.default_rng(2)
    a = _ambig_ds_cell({f"t{i}": tuple(rng.random(3)) for i in range(12)}, model="a")
    b = _ambig_ds_cell({f"t{i}": tuple(rng.random(3)) for i in range(12)}, model="b")
    both = metrics.performance(RunSet.from_records(a + b), n_boot=500)
    alone = metrics.performance(RunSet.from_records(b), n_boot=500)
    pd.testing.assert_frame_equal(both.iloc[[1]].reset_index(drop=True), alone)
    shuffled = [r for _, r in sorted(zip(rng.random(len(a + b)), a + b), key=lambda x: x[0])]
    pd.testing.assert_frame_equal(metrics.performance(RunSet.from_records(shuffled), n_boot=500), both)


# ============================================================================= categories and labels


def _framed_runs():
    cats = ["intended", "intended", "alternative", "degenerate", None, None, "intended", None]
    status = ["ok", "ok", "ok", "ok", "invalid", "timeout", "ok", "error"]
    score = [0.9, 0.7, 0.3, 0.1, None, None, 0.8, None]
    return [{"benchmark": "ambig-ds", "suite": "objective", "task_id": f"t{i}", "model": "m", "spec": "ambiguous",
             "ask_tool": False, "status": s, "score": sc, **({"category": c} if c else {})}
            for i, (c, s, sc) in enumerate(zip(cats, status, score))]


def test_category_shares_by_hand():
    out = metrics.category_shares(RunSet.from_records(_framed_runs()))
    got = dict(zip(out["category"], zip(out["n"], out["share"])))
    # 7 non-error runs; invalid and timeout runs without a category take their status
    assert got == {"intended": (3, 3 / 7), "alternative": (1, 1 / 7), "degenerate": (1, 1 / 7),
                   "invalid": (1, 1 / 7), "timeout": (1, 1 / 7)}
    assert set(out["n_runs"]) == {7}


def test_conditional_scores_weighted_by_shares_give_the_cell_mean():
    rs = RunSet.from_records(_framed_runs())
    shares = metrics.category_shares(rs).set_index("category")["share"]
    cond = metrics.conditional_scores(rs).set_index("category")
    assert cond.loc["intended", "mean_score"] == pytest.approx((0.9 + 0.7 + 0.8) / 3)
    assert cond.loc["invalid", "mean_score"] == 0.0
    cell_mean = (0.9 + 0.7 + 0.3 + 0.1 + 0 + 0 + 0.8) / 7  # invalid and timeout at 0 (Ambig-DS §5.1)
    assert (shares * cond["mean_score"]).sum() == pytest.approx(cell_mean)


def test_label_shares_majority_and_reported_ties():
    records = []
    votes = {"r1": ["a", "a", "b"], "r2": ["b", "b", "a"], "r3": ["a", "b"], "r4": ["a"]}
    for i, (name, labels) in enumerate(votes.items()):
        records.append(run(f"t{i}", labels=[{"facet": "recognition", "label": lab, "call": c + 1}
                                            for c, lab in enumerate(labels)]))
    # Ambig-DS C.5 scores substantive runs: an invalid submission has a trace and is in; a timeout is out
    records.append(run("t8", status="invalid", labels=[{"facet": "recognition", "label": "b"}]))
    records.append(run("t9", status="timeout", labels=[{"facet": "recognition", "label": "a"}]))
    out = metrics.label_shares(RunSet.from_records(records), facet="recognition")
    got = {lab: (n, share) for lab, n, share in zip(out["label"], out["n"], out["share"])}
    assert got == {"a": (2, 0.4), "b": (2, 0.4), None: (1, 0.2)}
    broken = metrics.label_shares(RunSet.from_records(records), facet="recognition", ties="alphabetical")
    assert dict(zip(broken["label"], broken["n"])) == {"a": 3, "b": 2}


def test_flag_shares_count_any_flag_over_asking_trials():
    records = [
        run("t1", questions=[q()], labels=[{"facet": "f.compound", "label": "YES"}, {"facet": "f.vague", "label": "NO"}]),
        run("t2", questions=[q()], labels=[{"facet": "f.vague", "label": "YES"}]),
        run("t3", questions=[q()], labels=[{"facet": "f.timing", "label": "YES"}]),
        run("t4", labels=[{"facet": "f.compound", "label": "YES"}]),  # never asked: not in the denominator
    ]
    out = metrics.flag_shares(RunSet.from_records(records),
                              categories={"Question Quality": ["f.compound", "f.vague"], "Timing": ["f.timing"]})
    assert out[["category", "n", "n_trials"]].values.tolist() == [["Question Quality", 2, 3], ["Timing", 1, 3]]


# ============================================================================= properties


@st.composite
def ask_logs(draw):
    n_tasks = draw(st.integers(1, 4))
    records = []
    for t in range(n_tasks):
        n_b = draw(st.integers(0, 4))
        records.append(task(f"t{t}", n_b))
        for trial in range(1, draw(st.integers(1, 3)) + 1):
            asks = draw(st.lists(st.one_of(st.none(), st.integers(0, max(n_b - 1, 0))), max_size=5))
            questions = [q(None if a is None or n_b == 0 else f"b{a}") for a in asks]
            records.append(run(f"t{t}", trial=trial, questions=questions,
                               status=draw(st.sampled_from(["ok", "ok", "invalid", "error"]))))
    return records


VARIANTS = [dict(precision=p, recall=r, pooling=m) for p in ("relevant", "distinct")
            for r in ("all_runs", "asking_runs") for m in ("micro", "macro")]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=ask_logs(), variant=st.sampled_from(VARIANTS))
def test_every_rate_lies_in_the_unit_interval(records, variant):
    out = metrics.ask_f1(RunSet.from_records(records), **variant)
    empty = out["n_runs"] == 0  # every run of the group errored: no value (issue 11), never a silent 0
    for c in ("precision", "recall", "ask_f1"):
        assert out.loc[empty, c].isna().all()
        assert ((out.loc[~empty, c] >= 0) & (out.loc[~empty, c] <= 1)).all()


@settings(max_examples=150, deadline=None)
@given(records=ask_logs())
def test_ask_f1_is_zero_when_nothing_relevant_is_asked(records):
    for r in records:
        for question in r.get("questions", []):
            question["blocker_id"] = None
    out = metrics.ask_f1(RunSet.from_records(records)).iloc[0]
    if out["n_runs"] == 0:  # every run errored: nothing to score (issue 11)
        assert pd.isna(out["ask_f1"]) and pd.isna(out["precision"]) and pd.isna(out["recall"])
    else:
        assert out["ask_f1"] == 0 and out["precision"] == 0 and out["recall"] == 0


def _first_ok_run(records):
    return next(i for i, r in enumerate(records) if r.get("record") != "task" and r["status"] != "error")


@settings(max_examples=150, deadline=None)
@given(records=ask_logs(), precision=st.sampled_from(["relevant", "distinct"]))
def test_an_extra_irrelevant_question_never_raises_precision(records, precision):
    if not any(r.get("record") != "task" and r["status"] != "error" for r in records):
        return
    before = metrics.ask_f1(RunSet.from_records(records), precision=precision).iloc[0]["precision"]
    i = _first_ok_run(records)
    records[i] = {**records[i], "questions": [*records[i]["questions"], q(None, "irrelevant?")]}
    after = metrics.ask_f1(RunSet.from_records(records), precision=precision).iloc[0]["precision"]
    assert after <= before + 1e-12


@settings(max_examples=150, deadline=None)
@given(records=ask_logs())
def test_a_repeated_relevant_question_never_lowers_relevant_precision_and_never_raises_distinct(records):
    ok = [i for i, r in enumerate(records) if r.get("record") != "task" and r["status"] != "error"
          and any(x["blocker_id"] for x in r["questions"])]
    if not ok:
        return
    rs = RunSet.from_records(records)
    rel0 = metrics.ask_f1(rs).iloc[0]["precision"]
    dis0 = metrics.ask_f1(rs, precision="distinct").iloc[0]["precision"]
    i = ok[0]
    dup = next(x for x in records[i]["questions"] if x["blocker_id"])
    records[i] = {**records[i], "questions": [*records[i]["questions"], dict(dup)]}
    rs = RunSet.from_records(records)
    assert metrics.ask_f1(rs).iloc[0]["precision"] >= rel0 - 1e-12
    assert metrics.ask_f1(rs, precision="distinct").iloc[0]["precision"] <= dis0 + 1e-12


@settings(max_examples=60, deadline=None)
@given(records=ask_logs(), seed=st.integers(0, 2**16))
def test_row_order_never_changes_a_result(records, seed):
    order = np.random.default_rng(seed).permutation(len(records))
    shuffled = [records[i] for i in order]
    a, b = RunSet.from_records(records), RunSet.from_records(shuffled)
    pd.testing.assert_frame_equal(metrics.ask_f1(a, ci=True, n_boot=50), metrics.ask_f1(b, ci=True, n_boot=50))
    pd.testing.assert_frame_equal(metrics.ask_calibration(a.filter(ask_tool=True)),
                                  metrics.ask_calibration(b.filter(ask_tool=True)))


def test_value_of_information_ci_equals_the_generic_cluster_bootstrap():
    rng = np.random.default_rng(4)
    records = _lhaw_cell("m", 12, 4, 8, _asking(12, 10, 20), 30)
    for r in records:  # varied scores, so the interval is not degenerate
        r["score"] = round(float(rng.random()), 3)
    rs = RunSet.from_records(records)
    out = metrics.value_of_information(rs, ci=True, n_boot=700, seed=5).iloc[0]
    runs = rs.runs.astype({"task_id": object})
    no_tool = runs[~runs["ask_tool"].astype(bool)].assign(s=lambda f: f["score"].astype(float))
    generic = stats.cluster_bootstrap(no_tool, lambda f, w: (w @ f["s"].to_numpy()) / w.sum(axis=1),
                                      n_boot=700, seed=5).iloc[0]
    assert out["mean_score"] == pytest.approx(generic["estimate"])
    assert (out["mean_score_ci_low"], out["mean_score_ci_high"]) == pytest.approx(
        (generic["ci_low"], generic["ci_high"]), abs=1e-12)


def test_judge_reliability_by_hand():
    from statsmodels.stats.inter_rater import cohens_kappa

    from ambiglib import tables

    gpt = ["y", "x", "y", "x", "x", "y"]
    records = []
    for i in range(6):
        a = ["x", "x", "x"] if i % 2 else ["y", "y", "x"]
        labels = [{"facet": "trace", "label": lab, "judge": "claude", "call": c + 1} for c, lab in enumerate(a)]
        labels.append({"facet": "trace", "label": gpt[i], "judge": "gpt", "call": 1})
        records.append(run(f"t{i}", labels=labels, category="x" if i else "y"))
    out = tables.judge_reliability(RunSet.from_records(records)).set_index("diagnostic")
    claude = pd.DataFrame([{"run_id": f"r{i}", "call": c, "label": lab} for i in range(6)
                           for c, lab in enumerate(["x", "x", "x"] if i % 2 else ["y", "y", "x"])])
    assert out.loc["Fleiss kappa (3 calls)", "value"] == pytest.approx(stats.fleiss_kappa(claude))
    # majority labels: claude y,x,y,x,y,x; gpt y,x,y,x,x,y → rows claude x/y, columns gpt x/y: [[2, 1], [1, 2]]
    assert out.loc["Cohen kappa between judges", "value"] == pytest.approx(cohens_kappa([[2, 1], [1, 2]]).kappa)
    assert out.loc["Cohen kappa between judges", "value"] == pytest.approx(1 / 3)
    # each judge's majority vs the final category (y, x, x, x, x, x): claude y, x, y, x, y, x overridden on
    # r2 and r4, 2 of 6; gpt y, x, y, x, x, y on r2 and r5, 2 of 6 (Ambig-DS Table 9: the Claude panel's rate)
    rows = out.loc["override rate (category differs from judge majority)"].set_index("judge")
    assert (rows.loc["claude", "value"], rows.loc["claude", "n"]) == (pytest.approx(2 / 6), 6)
    assert (rows.loc["gpt", "value"], rows.loc["gpt", "n"]) == (pytest.approx(2 / 6), 6)
    # a failed run's category (timeout) agrees with the judges' "invalid"
    failed = [run("tf", status="timeout", category="timeout",
                  labels=[{"facet": "trace", "label": "invalid", "judge": "claude", "call": c} for c in (1, 2, 3)])]
    out = tables.judge_reliability(RunSet.from_records(records + failed)).set_index("diagnostic")
    rows = out.loc["override rate (category differs from judge majority)"].set_index("judge")
    assert (rows.loc["claude", "value"], rows.loc["claude", "n"]) == (pytest.approx(2 / 7), 7)


def _strategy_runs(policy, n_variants, passing_without, passing_with, failed_without=(), failed_with=(),
                   own_no_tool=True):
    """TAC-like cells: three trials per variant; variants in failed_* have only error runs in that condition."""
    records = []
    for v in range(n_variants):
        for trial in (1, 2, 3):
            base = {"benchmark": "lhaw", "suite": "tac", "task_id": f"t{v % 13}", "variant_id": f"t{v % 13}_v{v}",
                    "model": "GPT-5.2", "spec": "ambiguous", "trial": trial}
            if own_no_tool:
                records.append({**base, "ask_tool": False, "policy": policy, "score": 0.5,
                                "passed": v in passing_without and trial == 1,
                                **({"status": "error", "score": None, "passed": None} if v in failed_without else {})})
            records.append({**base, "ask_tool": True, "policy": policy, "score": 0.6,
                            "passed": v in passing_with and trial == 1,
                            **({"status": "error", "score": None, "passed": None} if v in failed_with else {})})
    return records


def test_value_of_information_unpaired_scores_each_condition_over_its_own_variants():
    # LHAW Table 10, ReAct, outcome-critical (n=40): 5.3 (+12.2) is 2/38 without the tool and 7/40
    # with it; two variants have no valid run without the tool
    records = _strategy_runs("react", 40, passing_without={0, 1}, passing_with=set(range(7)), failed_without={38, 39})
    rs = RunSet.from_records(records)
    unpaired = metrics.value_of_information(rs, by=("suite", "model", "policy"), paired=False).iloc[0]
    assert (round(100 * unpaired["pass_at_k"], 1), round(100 * unpaired["pass_at_k_with_tool"], 1)) == (5.3, 17.5)
    assert round(unpaired["pass_gain_pp"], 1) == 12.2
    assert unpaired["n_variants"] == 40 and unpaired["n_excluded"] == 6
    # paired: the two variants without a no-tool result leave both sides (7/38 with the tool)
    paired = metrics.value_of_information(rs, by=("suite", "model", "policy")).iloc[0]
    assert paired["pass_at_k"] == pytest.approx(2 / 38) and paired["pass_at_k_with_tool"] == pytest.approx(7 / 38)
    assert paired["n_variants"] == 38


def test_value_of_information_compares_each_strategy_with_its_own_no_tool_runs():
    # LHAW Table 10: every prompting strategy also runs without the tool; a persona without
    # no-tool runs of its own (Table 14) is compared with the default policy's
    records = (_strategy_runs("default", 20, passing_without={0, 1, 2, 3}, passing_with={0, 1, 2, 3, 4, 5})
               + _strategy_runs("react", 20, passing_without={0}, passing_with={0, 1, 2})
               + _strategy_runs("executive", 20, set(), passing_with={0, 1, 2, 3, 4}, own_no_tool=False))
    out = metrics.value_of_information(RunSet.from_records(records), by=("suite", "model", "policy")) \
        .set_index("policy")
    assert out.loc["default", "pass_at_k"] == pytest.approx(4 / 20)
    assert out.loc["react", "pass_at_k"] == pytest.approx(1 / 20)
    assert out.loc["react", "pass_gain_pp"] == pytest.approx(100 * 2 / 20)
    assert out.loc["executive", "pass_at_k"] == pytest.approx(4 / 20)  # the default policy's no-tool runs
    assert out.loc["executive", "pass_gain_pp"] == pytest.approx(100 * 1 / 20)
    # without policy in by, no-tool runs of several strategies are a mixed group
    with pytest.raises(MetricError, match="mixes policy"):
        metrics.value_of_information(RunSet.from_records(records), by=("suite", "model"))


def test_pass_rates_share_full_information_with_every_policy_and_no_tool_runs_by_policy():
    # HIL-Bench Figure 1A / Table 1: full-information runs are shared by every with-tool policy (whatever
    # policy they carry); no-tool runs of the policy itself where there are any (LHAW Table 10), else the
    # default policy's; a model never run with the tool gets one row, policy "–"
    from ambiglib import tables

    records = [{"record": "task", "benchmark": "mine", "suite": "s", "task_id": f"t{i}", "blockers": [{"id": "b"}]}
               for i in range(2)]
    for i in range(2):
        for trial in (1, 2, 3):
            common = {"benchmark": "mine", "suite": "s", "task_id": f"t{i}", "trial": trial}
            records += [
                {**common, "model": "m", "spec": "full", "ask_tool": False, "policy": "p", "passed": i == 0},
                {**common, "model": "m", "spec": "ambiguous", "ask_tool": False, "passed": False},
                {**common, "model": "m", "spec": "ambiguous", "ask_tool": False, "policy": "r", "passed": True},
                {**common, "model": "m", "spec": "ambiguous", "ask_tool": True, "policy": "q", "passed": i == 1},
                {**common, "model": "m", "spec": "ambiguous", "ask_tool": True, "policy": "r", "passed": False},
                {**common, "model": "n", "spec": "full", "ask_tool": False, "passed": True},
            ]
    out = tables.pass_rates(RunSet.from_records(records), k=3)
    got = {(m, p): (f, n, t) for m, p, s, f, n, t in out[out["scope"] == "combined"][
        ["model", "policy", "scope", *tables.PASS_RATE_COLUMNS]].itertuples(index=False)}
    assert got[("m", "q")] == (0.5, 0.0, 0.5)  # q has no no-tool runs of its own: the default policy's
    assert got[("m", "r")] == (0.5, 1.0, 0.0)  # r has its own
    assert got[("n", "–")][0] == 1.0 and np.isnan(got[("n", "–")][1]) and np.isnan(got[("n", "–")][2])
    gap = tables.judgment_gap(RunSet.from_records(records)).set_index(["model", "policy"])
    assert gap.loc[("m", "q"), "pass_at_k_full_info"] == 0.5 and gap.loc[("m", "r"), "pass_at_k_no_tool"] == 1.0


_TEXT_DTYPES = {"str": "str", "arrow string": pd.ArrowDtype(pa.string()),
                "arrow large_string": pd.ArrowDtype(pa.large_string()), "object": object}


@pytest.mark.parametrize("column_dtype", list(_TEXT_DTYPES))
@pytest.mark.parametrize("values", [
    ["r1", None], [np.nan], [1, "r2"], set(), {"r3"}, ["r9"],
    pd.Series(["r2", None], dtype=object), pd.Series(["r2", "r1"], dtype="str"),
    pd.Series(["r3", None], dtype=pd.ArrowDtype(pa.string())),
    pd.Series(["r3"], dtype=pd.ArrowDtype(pa.large_string())),
], ids=lambda v: repr(list(v)) + (f" {v.dtype}" if isinstance(v, pd.Series) else ""))
def test_isin_is_pandas_isin(column_dtype, values):
    """The metrics match run ids in Arrow where both sides are text (``metrics._isin``): the same answer as
    pandas' ``isin`` for every dtype and kind of value, nulls included, on the column's own index."""
    column = pd.Series(["r1", None, "r2", "r3", "r1"], dtype=_TEXT_DTYPES[column_dtype], index=[5, 3, 9, 0, 2])
    try:
        theirs = column.isin(values)
    except pa.ArrowInvalid:  # numbers against an Arrow string column: refused alike
        with pytest.raises(pa.ArrowInvalid):
            _isin(column, values)
        return
    except pa.ArrowTypeError:  # pandas cannot match only nulls against an Arrow string column; null matches null
        assert column_dtype.startswith("arrow") and list(pd.Series(list(values), dtype=object).dropna()) == []
        assert _isin(column, values).tolist() == column.isna().tolist()
        return
    ours = _isin(column, values)
    assert ours.dtype == bool and ours.index.equals(column.index)
    assert ours.tolist() == theirs.tolist()
