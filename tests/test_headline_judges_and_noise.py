"""The opening's judge score (questions' own judge labels, run log 1.1) and noise floor, against hand counts."""

from __future__ import annotations

import pandas as pd
import pytest

from ambiglib import RunSet, headline
from builders import run


def _judged(text, *labels):
    return text, list(labels)


def _run(task, model, questions, trial=1, **extra):
    """A solve run on an ambiguous task with the tool; ``questions`` = [(text, [(label, call, judge), ...])]."""
    labels = [{"facet": "usefulness", "label": lab, "call": call, "judge": judge, "q_index": i}
              for i, (_, ls) in enumerate(questions) for lab, call, judge in ls]
    return run(task=task, model=model, trial=trial, benchmark="mine", suite="s",
               questions=[{"text": t} for t, _ in questions], labels=labels, **extra)


def test_the_judge_score_averages_a_question_s_calls_first_then_questions_over_the_agent():
    rs = RunSet.from_records([
        _run("t1", "a", [("q1?", [("4", 1, "j"), ("2", 2, "j")]), ("q2?", [("5", 1, "j")])]),  # 3 and 5
        _run("t2", "a", [("q3?", [("1", 1, "j")]), ("q4?", [])]),  # 1; q4 unjudged
        _run("t3", "a", []),  # asked nothing: no score, not a zero
        _run("t1", "b", [("q?", [("5", 1, "k")])]),
    ])
    out = headline.question_quality(rs, n_boot=200).set_index("model")
    assert out.loc["a", "judge_score"] == pytest.approx((3 + 5 + 1) / 3)
    assert out.loc["a", "n_judged"] == 3 and out.loc["b", "n_judged"] == 1
    assert out.loc["b", "judge_score"] == 5.0
    assert out.loc["a", "judge_score_ci_low"] <= out.loc["a", "judge_score"] <= out.loc["a", "judge_score_ci_high"]
    assert (out.loc["a", "judged_by"], out.loc["b", "judged_by"]) == ("j", "k")
    answer = " ".join(out.attrs["answer"])
    assert "b asks the questions its judges score highest (mean score 5.00)" in answer
    assert "scored by different judges (j; k): their judge scores are not comparable" in answer


def test_run_level_label_metrics_refuse_labels_about_single_questions():
    from ambiglib import metrics
    from ambiglib.metrics import MetricError

    rs = RunSet.from_records([_run("t1", "a", [("q1?", [("4", 1, "j")]), ("q2?", [("2", 1, "j")])])])
    with pytest.raises(MetricError, match="facet 'usefulness' judges single questions"):
        metrics.label_shares(rs, facet="usefulness", by=("model",))
    with pytest.raises(MetricError, match="facet 'usefulness' judges single questions"):
        metrics.majority_labels(rs, facet="usefulness")


def test_no_judge_score_says_why():
    rs = RunSet.from_records([_run("t1", "a", [("q?", [])]), _run("t1", "b", [("q?", [])])])
    out = headline.question_quality(rs, n_boot=100)
    assert out["judge_score"].isna().all()
    assert "no judge scores of single questions in this log: add labels with 'q_index'" in \
        out.attrs["empty"]["judge_score"]
    one = RunSet.from_records([_run("t1", "a", [("q?", [("4", 1, "j")])]), _run("t1", "b", [("q?", [])])])
    out = headline.question_quality(one, n_boot=100).set_index("model")
    assert out.loc["a", "judge_score"] == 4.0 and pd.isna(out.loc["b", "judge_score"])
    assert "none of whose questions a judge scored" in out.attrs["empty"]["judge_score"]
    words = RunSet.from_records([_run("t1", "a", [("q?", [("good", 1, "j")])])])
    out = headline.question_quality(words, n_boot=100)
    assert out["judge_score"].isna().all() and "not one numeric score (usefulness)" in out.attrs["empty"]["judge_score"]


def test_the_noise_floor_stands_beside_the_score_difference():
    """Model a flips on t1 (pass, fail) and on none of t2..t12: noise floor 1/12; b never flips: 0. The score row
    shows the larger; a difference no larger is said to be within it."""
    rows = []
    for t in range(1, 13):
        for trial in (1, 2):
            a_pass = t != 1 or trial == 1  # a passes everything but t1's second trial
            b_pass = t > 6  # b fails t1..t6 on both trials
            rows += [run(task=f"t{t}", model=m, trial=trial, benchmark="mine", suite="s", score=float(p), passed=p)
                     for m, p in (("a", a_pass), ("b", b_pass))]
    rs = RunSet.from_records(rows)
    out = headline.agent_comparison(rs, n_boot=300)
    score = out[out["metric"] == "mean_score"].iloc[0]
    assert score["noise_floor"] == pytest.approx(1 / 12)
    assert score["difference"] == pytest.approx((23 / 24) - 0.5)
    assert "within the noise floor" not in " ".join(out.attrs["answer"])
    flip = lambda r: r["task_id"] == "t2" and r["trial"] == 2  # noqa: E731  (c fails t2's second trial too)
    close = RunSet.from_records([r for r in rows if r["model"] == "a"]
                                + [dict(r, model="c", passed=not r["passed"] if flip(r) else r["passed"],
                                        score=1.0 - r["score"] if flip(r) else r["score"])
                                   for r in rows if r["model"] == "a"])
    out = headline.agent_comparison(close, n_boot=300)
    score = out[out["metric"] == "mean_score"].iloc[0]
    assert score["noise_floor"] == pytest.approx(2 / 12)  # c flips on t1 and t2
    assert abs(score["difference"]) == pytest.approx(1 / 24)
    assert "1 of the 1 differences are within the noise floor" in " ".join(out.attrs["answer"])
    assert pd.isna(headline.agent_comparison(RunSet.from_records([r for r in rows if r["trial"] == 1]), n_boot=100)
                   .query("metric == 'mean_score'")["noise_floor"]).all()
