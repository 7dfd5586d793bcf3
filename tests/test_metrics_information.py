"""ambiglib.metrics._information against LHAW Tables 3 and 14, hand computation, scipy and the harness's
bootstrap."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from builders import q
from scipy import stats as sps

from ambiglib import RunSet, metrics, stats
from ambiglib.metrics import MetricError


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
    """Table 14 prints Supervisor 39.3 (+25.6), 266 Qs, Gain%/Q 0.09%. Built like the other three rows, which
    give their printed Gain%/Q, the Supervisor cell gives 25.6 / 266 = 0.096, shown 0.10: the paper truncated
    or mistyped it (docs/reproduction.md lists it)."""
    records = _lhaw_cell("Claude Sonnet 4.5", 100, 0, 0, _asking(100, 100, 150), 266,
                         score_without=0.393, score_with=0.393 + 0.256, policy="supervisor")
    out = metrics.value_of_information(RunSet.from_records(records), by=("suite", "model", "policy")).iloc[0]
    assert (out["score_gain_pp"], out["n_questions"]) == (pytest.approx(25.6), 266)
    assert out["score_gain_pp_per_question"] == pytest.approx(25.6 / 266)
    assert round(out["score_gain_pp_per_question"], 2) == 0.10  # shown 0.10; the paper prints 0.09


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
