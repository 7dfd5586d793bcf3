"""ambiglib.metrics._labels by hand: category shares, conditional scores, majority labels, label and flag shares."""

from __future__ import annotations

import pytest
from builders import q, run

from ambiglib import RunSet, metrics


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
    for i, labels in enumerate(votes.values()):
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
