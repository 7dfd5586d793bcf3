"""Definitions checked from first principles: each expected value is worked out by hand, in the comment beside it,
from the paper's definition on a log of a few runs written here. These guard what the fitted paper fixture alone
used to guard (``tests/test_paper.py`` gives fitted cells back: a round trip, not a check of a definition), so
that ``scripts/mutation_check.py`` catches every mutation without it (issue 40)."""

from __future__ import annotations

import pytest
from builders import q, run, task

from ambiglib import RunSet, metrics, tables
from ambiglib.metrics import MetricError


def _lhaw(task_id, variant, *, spec="ambiguous", tool, trial=1, passed, score=None, n_questions=0, model="m",
          policy=None):
    rec = run(task=task_id, model=model, spec=spec, ask_tool=tool, trial=trial, benchmark="lhaw", suite="tac",
              variant_id=variant, passed=passed, score=float(passed) if score is None else score,
              questions=[q(text=f"q{i}?") for i in range(n_questions)])
    if policy:
        rec["policy"] = policy
    return rec


def test_ask_rates_count_asking_runs_not_questions():
    """Ambig-DS Table 13: the ask rate is the share of runs that asked. Ambiguous: one run asked twice, one did not:
    1/2 (counting questions would give 2/2). Full: one run asked once of two: 1/2."""
    rs = RunSet.from_records([
        run(task="t1", spec="ambiguous", questions=[q(text="a?"), q(text="b?")]), run(task="t2", spec="ambiguous"),
        run(task="t1", spec="full", questions=[q(text="c?")]), run(task="t2", spec="full")])
    out = metrics.ask_calibration(rs, by=("model",)).iloc[0]
    assert (out["ask_on_ambiguous"], out["ask_on_full"]) == (0.5, 0.5)
    assert out["calib_score"] == pytest.approx(0.5)  # harmonic mean of 0.5 and 1 − 0.5


def test_over_ask_diagnostics_take_the_majority_of_the_judge_calls():
    """Ambig-DS Table 14: an asking run's reason is the majority of its over_ask calls (x, y, y → y); a run that
    did not ask is correct_silent. Shares over the cell's two runs: correct_silent 1/2, y 1/2, no x."""
    labels = [{"facet": "over_ask", "label": lab, "call": i + 1} for i, lab in enumerate(("x", "y", "y"))]
    rs = RunSet.from_records([
        run(task="t1", spec="full", benchmark="mine", suite="s", policy="permissive", protocol="ask_only",
            questions=[q(text="really?")], labels=labels),
        run(task="t2", spec="full", benchmark="mine", suite="s", policy="permissive", protocol="ask_only")])
    out = tables.ask_diagnostics(rs, kind="over_ask").iloc[0]
    assert out["correct_silent"] == 0.5 and out["y"] == 0.5 and "x" not in out.index


def test_conditional_scores_are_means():
    """Ambig-DS Table 11: the mean score of the runs in a category: 0, 0.2, 1.0 → 0.4 (the median would be 0.2)."""
    rs = RunSet.from_records([run(task=f"t{i}", benchmark="mine", suite="s", score=s, category="intended")
                              for i, s in enumerate((0.0, 0.2, 1.0))])
    out = metrics.conditional_scores(rs, by=("model",))
    assert out.loc[out["category"] == "intended", "mean_score"].item() == pytest.approx(0.4)


def test_failure_flag_shares_leave_out_trials_the_judge_never_saw():
    """LHAW Table 4: over the asking trials the judge flagged or cleared. Three asking trials: one flagged YES, one
    NO, one never judged → 1/2 (counting the unjudged one as unflagged would give 1/3)."""
    facet = "lhaw.flag_compound_questions"
    rs = RunSet.from_records([
        _lhaw("t1", "v1", tool=True, passed=False, n_questions=1) | {"labels": [{"facet": facet, "label": "YES"}]},
        _lhaw("t2", "v2", tool=True, passed=False, n_questions=1) | {"labels": [{"facet": facet, "label": "NO"}]},
        _lhaw("t3", "v3", tool=True, passed=False, n_questions=1)])
    out = metrics.flag_shares(rs, categories={"Question Quality": [facet]}).iloc[0]
    assert (out["n"], out["n_trials"], out["share"]) == (1, 2, 0.5)


def test_failure_mode_shift_is_ask_human_minus_baseline():
    """HIL-Bench Figure 3B: per mode, the share with the ask tool minus the share in the baseline, in pp. Baseline
    (no tool): 'a' on 1 of 2 labelled runs (50%); with the tool: 'a' on 2 of 2 (100%) → +50 pp, 'b' −50 pp."""
    def labelled(t, tool, label):
        return run(task=t, ask_tool=tool, labels=[{"facet": "failure.tool_use", "label": label}])
    rs = RunSet.from_records([task("t1"), task("t2"), labelled("t1", False, "a"), labelled("t2", False, "b"),
                              labelled("t1", True, "a"), labelled("t2", True, "a")])
    out = tables.failure_mode_shift(rs).iloc[0]
    assert out["a"] == pytest.approx(50.0) and out["b"] == pytest.approx(-50.0)


def test_questions_per_run_count_every_run():
    """HIL-Bench Table 7: questions per run over every ask-tool run on ambiguous tasks: 3 and 0 → 1.5 (per asking
    run it would be 3); relevant per run: 1 and 0 → 0.5."""
    rs = RunSet.from_records([task("t1"), task("t2"),
                              run(task="t1", questions=[q("b0", "x?"), q(None, "y?"), q(None, "z?")]), run(task="t2")])
    out = tables.questions_per_task(rs).iloc[0]
    assert (out["questions_per_run"], out["relevant_per_run"], out["questions_per_asking_run"]) == (1.5, 0.5, 3.0)


def _unpaired_log() -> RunSet:
    """v1 run with and without the tool; v2 with the tool only (its no-tool run failed to produce a result).
    k = 1, one trial each. v1: without fails, with passes (2 questions); v2: with passes (3 questions)."""
    return RunSet.from_records([
        _lhaw("t1", "v1", tool=False, passed=False), _lhaw("t1", "v1", tool=True, passed=True, n_questions=2),
        _lhaw("t2", "v2", tool=True, passed=True, n_questions=3)])


def test_lhaw_tables_score_each_condition_over_its_own_variants():
    """LHAW Table 3, as LHAW prints it: without the tool over v1 (0), with it over v1 and v2 (1) → +100 pp; Ask %
    over both variants (2 of 2). Paired (v1 only) would give the same gain but n_variants 1."""
    out = tables.value_of_information(_unpaired_log(), k=1).iloc[0]
    assert out["n_variants"] == 2 and out["variant_ask_pct"] == 100.0
    assert (out["pass_at_k"], out["pass_gain_pp"]) == (0.0, 100.0)


def test_gain_per_question_divides_by_every_question_asked_with_the_tool():
    """LHAW Table 14 (Gain%/Q = gain / Qs): the gain, 100 pp, over all 5 questions of the with-tool trials → 20 pp
    per question. Counting only the questions of variants run in both conditions (v1's 2) would give 50."""
    out = metrics.value_of_information(_unpaired_log(), k=1, by=("model",), paired=False).iloc[0]
    assert out["n_questions"] == 5
    assert out["pass_gain_pp_per_question"] == pytest.approx(20.0)
    assert out["avg_per_traj"] == pytest.approx(2.5)  # 5 questions / 2 asking trials


def test_class_base_is_pass_at_k_on_the_class_s_original_tasks():
    """LHAW Tables 7–9: 'Base' is pass@k of the fully specified runs of the class's original tasks. Class
    outcome-critical holds v1 (of t1); t1's full run passes, t2's (another class) fails → Base 1.0 for the class
    (over every full run it would be 0.5; over its variants' ids alone, no run: null)."""
    records = [{"record": "task", "benchmark": "lhaw", "suite": "tac", "task_id": t, "variant_id": v,
                "ambiguity_class": c} for t, v, c in (("t1", "v1", "outcome-critical"), ("t2", "v2", "benign"))]
    records += [_lhaw("t1", "t1", spec="full", tool=False, passed=True),
                _lhaw("t2", "t2", spec="full", tool=False, passed=False),
                _lhaw("t1", "v1", tool=False, passed=False), _lhaw("t1", "v1", tool=True, passed=True),
                _lhaw("t2", "v2", tool=False, passed=False), _lhaw("t2", "v2", tool=True, passed=False)]
    out = tables.by_ambiguity_class(RunSet.from_records(records), k=1).set_index("ambiguity_class")
    assert out.loc["outcome-critical", "base_pass_at_k"] == 1.0 and out.loc["benign", "base_pass_at_k"] == 0.0


def test_generality_averages_the_models():
    """LHAW Table 13: the model average is a mean. Three models' pass@1 without the tool: 0, 0, 1 → 1/3, and with
    it: 1, 0, 1 → 2/3 (medians 0 and 1)."""
    records = []
    for model, without, with_ in (("a", False, True), ("b", False, False), ("c", True, True)):
        records += [_lhaw("t1", "v1", tool=False, passed=without, model=model),
                    _lhaw("t1", "v1", tool=True, passed=with_, model=model)]
    out = tables.generality(RunSet.from_records(records), k=1).iloc[0]
    assert out["n_models"] == 3
    assert (out["pass_at_k"], out["pass_at_k_with_tool"]) == (pytest.approx(1 / 3), pytest.approx(2 / 3))


def test_ask_f1_refuses_questions_it_cannot_attribute():
    """HIL-Bench eq. 1 needs each question's blocker: a question the log does not attribute is not irrelevant, it is
    unknown, and Ask-F1 says so instead of counting it against precision (which would give 1/2 here)."""
    rs = RunSet.from_records([task("t1"), run(task="t1", questions=[q("b0", "x?"),
                                                                    {"text": "y?", "attributed": False}])])
    with pytest.raises(MetricError, match="not attributed to a blocker"):
        metrics.ask_f1(rs)
    attributed = RunSet.from_records([task("t1"), run(task="t1", questions=[q("b0", "x?"), q(None, "y?")])])
    assert metrics.ask_f1(attributed).iloc[0]["precision"] == 0.5
