"""Two logs of one agent, paired by task (issue 57, item 3): ``load({"before": ..., "after": ...})``,
``paired_comparison(between="log")`` and ``ambiglib compare --runs before=... --runs after=... --between log``.

Expected values come from outside the engine: per-task means pivoted by hand with pandas, p-values and intervals
from scipy and statsmodels called directly on those values, run ids from the formula ``docs/runlog.md`` states."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from conftest import run_record, task_record, write_jsonl

import ambiglib
from ambiglib.cli import main
from ambiglib.comparisons import paired_comparison
from ambiglib.errors import ArgumentError, RunLogNotFoundError, SchemaError

#: each task's two trials' scores, before and after the change (tasks t0..t9); the per-task means differ by
#: +0.6, 0, 0, +0.4, 0, -0.4, +0.5, -0.1, +0.3, +0.1 (after − before)
BEFORE = [[0.1, 0.3], [0.5, 0.5], [0.9, 0.7], [0.2, 0.0], [0.4, 0.4], [0.6, 0.8], [0.3, 0.1], [0.7, 0.7], [0.0, 0.2],
          [0.5, 0.3]]
AFTER = [[0.9, 0.7], [0.4, 0.6], [0.8, 0.8], [0.6, 0.4], [0.4, 0.4], [0.2, 0.4], [0.6, 0.8], [0.7, 0.5], [0.3, 0.5],
         [0.5, 0.5]]


def _run(task: str, trial: int, score: float, **more) -> dict:
    return run_record(task_id=task, trial=trial, score=score, questions=None, labels=None, **more)


def _logs(tmp_path):
    """Two logs of model-a (the same name in both), each describing the tasks it ran. The after log also has a
    task the before log never ran and a fully specified run: neither may enter the paired comparison."""
    before = [task_record(task_id=f"t{i}") for i in range(10)]
    before += [_run(f"t{i}", t + 1, s) for i, scores in enumerate(BEFORE) for t, s in enumerate(scores)]
    # one run asked questions: its questions must follow it into its log
    before[10] = run_record(task_id="t0", trial=1, score=0.1, labels=None)
    after = [task_record(task_id=f"t{i}") for i in range(11)]
    after += [_run(f"t{i}", t + 1, s) for i, scores in enumerate(AFTER) for t, s in enumerate(scores)]
    after += [_run("t10", 1, 1.0), _run("t0", 1, 0.0, spec="full", ask_tool=False)]
    old = write_jsonl(tmp_path / "old" / "runs.jsonl", before)
    new = write_jsonl(tmp_path / "new" / "runs.jsonl", after)
    return old.parent, new.parent


def _by_hand(rs: ambiglib.RunSet) -> pd.Series:
    """after − before of each task's mean score, over the tasks both logs ran on ambiguous tasks with the tool."""
    runs = rs.runs.astype({"score": float, "log": object, "task_id": object})
    runs = runs[(runs["spec"] == "ambiguous") & runs["ask_tool"].astype(bool)]
    means = runs.pivot_table(index="task_id", columns="log", values="score", aggfunc="mean").dropna()
    return (means["after"] - means["before"]).sort_index()


# ----------------------------------------------------------------------------- loading


def test_two_logs_of_one_model_load_as_one_run_set_labelled_by_log(tmp_path):
    old, new = _logs(tmp_path)
    rs, errors = ambiglib.load({"before": old, "after": str(new)}, strict=False)
    assert errors == []
    assert len(rs.runs) == 20 + 22
    assert rs.runs["log"].value_counts().to_dict() == {"before": 20, "after": 22}
    assert set(rs.runs["model"]) == {"model-a"}
    # the benchmark's tasks once each, though both logs describe t0..t9 (alike): 11 tasks, 3 blockers each
    assert len(rs.tasks) == 11 and len(rs.blockers) == 33
    assert rs.runs["run_id"].is_unique
    # a run's id is the one a log loaded alone gives it, its log appended
    alone = ambiglib.load(old).runs
    labelled = rs.runs[rs.runs["log"] == "before"]
    assert list(labelled["run_id"]) == [f"{r}|before" for r in alone["run_id"]]
    # questions follow their run into its log
    assert len(rs.questions) == 2 and set(rs.questions["run_id"]) == {labelled["run_id"].iloc[0]}
    assert rs.questions["run_id"].isin(rs.runs["run_id"]).all()
    # strict (the default) gives the run set alone
    assert len(ambiglib.load({"before": old, "after": new}).runs) == 42


def test_a_log_loaded_alone_keeps_every_run_id_it_had(tmp_path):
    """The formula of docs/runlog.md (frames._run_ids before logs existed), values with '|' and '%' escaped."""
    path = write_jsonl(tmp_path / "one.jsonl", [
        _run("t1", 1, 0.5), _run("t1", 2, 0.5, model="a|b%c", policy="careful"),
        _run("t2", 1, None, spec="full", ask_tool=False, variant_id="t2-v1", protocol="ask_only")])
    rs = ambiglib.load(path)

    def old_id(r: dict) -> str:
        parts = [r["benchmark"], r["suite"], r["variant_id"], r["model"], r["spec"],
                 "tool" if r["ask_tool"] else "notool", r["policy"], r["protocol"], str(r["trial"])]
        return "|".join(p.replace("%", "%25").replace("|", "%7C") for p in parts)

    expected = [old_id(r) for r in rs.runs.astype(object).to_dict("records")]
    assert list(rs.runs["run_id"]) == expected
    assert expected[1] == "hil-bench|sql|t1|a%7Cb%25c|ambiguous|tool|careful|solve|2"
    assert rs.runs["log"].isna().all()
    # a copy written and read back keeps them
    rs.to_parquet(tmp_path / "copy")
    assert list(ambiglib.load(tmp_path / "copy").runs["run_id"]) == expected


@pytest.mark.parametrize("how", ["jsonl", "parquet", "store"])
def test_the_log_column_survives_a_round_trip(tmp_path, how):
    old, new = _logs(tmp_path)
    rs = ambiglib.load({"before": old, "after": new})
    out = tmp_path / "copy"
    if how == "jsonl":
        rs.to_jsonl(out / "all.jsonl")
        again = ambiglib.load(out / "all.jsonl")
        line = (out / "all.jsonl").read_text().splitlines()[-1]
        assert json.loads(line)["log"] == "after"  # a canonical record carries its log
    else:
        rs.to_parquet(out, partition_by=("log",) if how == "store" else ())
        again = ambiglib.load(out)
    key = ["run_id", "log", "score"]
    got = again.runs[key].astype(object).sort_values("run_id").reset_index(drop=True)
    assert got.equals(rs.runs[key].astype(object).sort_values("run_id").reset_index(drop=True))
    assert len(again.tasks) == 11


def test_a_task_the_logs_describe_differently_is_an_error_naming_both_places(tmp_path):
    old = write_jsonl(tmp_path / "old.jsonl", [task_record(task_id="t1"), _run("t1", 1, 0.2)])
    new = write_jsonl(tmp_path / "new.jsonl", [_run("t1", 1, 0.4), task_record(task_id="t1", blockers=[{"id": "x"}])])
    rs, errors = ambiglib.load({"before": old, "after": new}, strict=False)
    assert len(errors) == 1
    message = errors[0].message
    assert message.startswith(f"{new}:2: duplicate task record (hil-bench, sql, t1)")
    assert f"first seen at {old}:1" in message and "blockers" in message and "'before'" in message
    assert (errors[0].file, errors[0].line, errors[0].record) == (str(new), 2, "task")
    assert len(rs.runs) == 2 and len(rs.tasks) == 1 and len(rs.blockers) == 3  # the first description is kept
    with pytest.raises(SchemaError, match="duplicate task record"):
        ambiglib.load({"before": old, "after": new})


def test_lenient_load_returns_every_logs_errors_and_filters_apply_to_each(tmp_path):
    old, new = _logs(tmp_path)
    write_jsonl(old / "bad.jsonl", [_run("t1", 9, 0.5, spec="amb")])
    write_jsonl(new / "bad.jsonl", [_run("t1", 9, 2.0)])
    rs, errors = ambiglib.load({"before": old, "after": new}, strict=False)
    assert sorted((e.file, e.field) for e in errors) == [(str(new / "bad.jsonl"), "score"),
                                                          (str(old / "bad.jsonl"), "spec")]
    assert len(rs.runs) == 42 and rs.rejected == 2
    one = ambiglib.load({"before": old, "after": new}, strict=False, filters=[("trial", "==", 1)])[0]
    assert one.runs["log"].value_counts().to_dict() == {"before": 10, "after": 12}
    after = ambiglib.load({"before": old, "after": new}, strict=False, filters=[("log", "==", "after")])[0]
    assert set(after.runs["log"]) == {"after"} and len(after.runs) == 22


@pytest.mark.parametrize("label", ["", "  ", " before", "a|b", "a=b", "50%", "a\nb", 3])
def test_a_bad_label_is_refused_naming_it(tmp_path, label):
    old, new = _logs(tmp_path)
    with pytest.raises(ArgumentError) as info:
        ambiglib.load({label: old, "after": new})
    text = str(info.value)
    assert "\n" not in text and repr(label) in text


def test_a_missing_path_or_no_log_is_one_line_naming_the_label_and_the_path(tmp_path):
    old, _ = _logs(tmp_path)
    with pytest.raises(RunLogNotFoundError) as info:
        ambiglib.load({"before": old, "after": tmp_path / "nowhere"})
    assert str(info.value) == f"log 'after': {tmp_path / 'nowhere'}: no such file or folder"
    with pytest.raises(ArgumentError, match="at least one log"):
        ambiglib.load({})


# ----------------------------------------------------------------------------- the comparison engine


def test_between_log_pairs_by_task_as_a_hand_pivot_and_scipy_say(tmp_path):
    from scipy import stats

    old, new = _logs(tmp_path)
    rs = ambiglib.load({"before": old, "after": new})
    d = _by_hand(rs)
    assert len(d) == 10  # t10 ran in one log only; the fully specified run is another condition
    row = paired_comparison(rs, between="log", n_boot=200).iloc[0]
    assert (row["log_a"], row["log_b"], row["model"], row["n_pairs"]) == ("after", "before", "model-a", 10)
    assert row["difference"] == pytest.approx(d.mean(), abs=1e-12)
    # the test: a paired sign-flip permutation test, exact at 10 tasks (2^10 flips): scipy's exact one
    assert row["test"].startswith("paired permutation (exact")
    means = rs.runs[rs.runs["spec"] == "ambiguous"].astype({"score": float}).pivot_table(
        index="task_id", columns="log", values="score", aggfunc="mean").loc[d.index]
    exact = stats.permutation_test((means["after"].to_numpy(), means["before"].to_numpy()),
                                   lambda x, y, axis: np.mean(x - y, axis=axis), permutation_type="samples",
                                   n_resamples=np.inf, alternative="two-sided")
    assert row["p_value"] == pytest.approx(exact.pvalue, abs=1e-12)
    assert row["n_differing"] == int((d.abs() > 1e-9).sum()) == 7
    # the interval: the t-interval of the per-task differences
    low, high = stats.ttest_1samp(d.to_numpy(), 0).confidence_interval(0.95)
    assert (row["difference_ci_low"], row["difference_ci_high"]) == (pytest.approx(low), pytest.approx(high))
    # the Wilcoxon signed-rank test, asked for, is scipy's on the same per-task values
    w = paired_comparison(rs, between="log", test="wilcoxon", n_boot=200).iloc[0]
    assert w["p_value"] == pytest.approx(stats.wilcoxon(means["after"], means["before"], zero_method="wilcox").pvalue)
    # the sides given: before − after
    swapped = paired_comparison(rs, between="log", a="before", b="after", n_boot=200).iloc[0]
    assert swapped["difference"] == pytest.approx(-d.mean(), abs=1e-12)


def test_later_logs_are_side_a_in_the_order_loaded_not_by_name(tmp_path):
    old, new = _logs(tmp_path)
    d = _by_hand(ambiglib.load({"before": old, "after": new}))
    out = paired_comparison(ambiglib.load({"v2": old, "v1": new, "v0": old}), between="log", n_boot=200)
    assert list(zip(out["log_a"], out["log_b"])) == [("v1", "v2"), ("v0", "v2"), ("v0", "v1")]
    assert list(out["difference"]) == pytest.approx([d.mean(), 0.0, -d.mean()], abs=1e-12)


def test_between_log_on_pass_fail_trials_is_statsmodels_exact_mcnemar(tmp_path):
    from statsmodels.stats.contingency_tables import mcnemar

    before = [1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0]
    after = [1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 0]
    old = write_jsonl(tmp_path / "old.jsonl", [_run(f"t{i}", 1, float(v)) for i, v in enumerate(before)])
    new = write_jsonl(tmp_path / "new.jsonl", [_run(f"t{i}", 1, float(v)) for i, v in enumerate(after)])
    row = paired_comparison(ambiglib.load({"before": old, "after": new}), between="log", test="mcnemar",
                            n_boot=200).iloc[0]
    b = sum(1 for x, y in zip(after, before) if x and not y)
    c = sum(1 for x, y in zip(after, before) if y and not x)
    both = sum(1 for x, y in zip(after, before) if x and y)
    table = [[both, b], [c, len(before) - both - b - c]]
    assert row["test"].startswith("exact McNemar")
    assert row["p_value"] == pytest.approx(mcnemar(table, exact=True).pvalue)
    assert row["difference"] == pytest.approx((sum(after) - sum(before)) / len(before))


def test_models_of_two_logs_are_compared_within_each_log_never_pooled(tmp_path):
    old, new = _logs(tmp_path)
    for folder, shift in ((old, 0.0), (new, 0.1)):
        write_jsonl(folder / "b.jsonl", [_run(f"t{i}", 1, min(1.0, 0.2 + shift), model="model-b") for i in range(10)])
    rs = ambiglib.load({"before": old, "after": new})
    out = paired_comparison(rs, between="model", n_boot=200)
    assert sorted(out["log"]) == ["after", "before"]
    runs = rs.runs.astype({"score": float, "log": object, "model": object})
    runs = runs[(runs["spec"] == "ambiguous") & (runs["task_id"] != "t10")]
    for _, row in out.iterrows():
        mine = runs[runs["log"] == row["log"]]
        per = mine.pivot_table(index="task_id", columns="model", values="score", aggfunc="mean").dropna()
        assert row["difference"] == pytest.approx((per["model-a"] - per["model-b"]).mean(), abs=1e-12)


def test_a_run_set_without_logs_has_no_log_comparison(tmp_path):
    old, _ = _logs(tmp_path)
    out = paired_comparison(ambiglib.load(old), between="log", n_boot=200)
    assert len(out) == 0 and "name no log" in out.attrs["note"]


# ----------------------------------------------------------------------------- the command line


def test_compare_between_log_leads_with_the_difference_and_lists_the_tasks_that_moved(tmp_path, capsys):
    old, new = _logs(tmp_path)
    d = _by_hand(ambiglib.load({"before": old, "after": new}))
    args = ["compare", "--runs", f"before={old}", "--runs", f"after={new}", "--between", "log", "--n-boot", "200"]
    assert main([*args, "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["difference"] == pytest.approx(d.mean(), abs=1e-12)
    assert row["p_value"] == pytest.approx(paired_comparison(ambiglib.load({"before": old, "after": new}),
                                                             between="log", n_boot=200)["p_value"].iloc[0])
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    lead = next(i for i, line in enumerate(lines) if "after − before = " in line)
    assert f"after − before = {d.mean():+.3g}" in lines[lead]
    assert lines[lead + 1].lstrip().startswith("test: paired permutation")
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("improved"))
    end = next(i for i, line in enumerate(lines) if line.lstrip().startswith("regressed"))
    assert lead < start < end

    def listed(block: list[str]) -> list[tuple[str, float]]:
        return [(w[0], float(w[-1])) for w in (line.split() for line in block) if w and re.fullmatch(r"t\d+", w[0])]

    improved, regressed = listed(lines[start + 2:end]), listed(lines[end + 2:])
    up = d[d > 1e-9].sort_values(ascending=False)
    down = d[d < -1e-9].sort_values()
    assert [t for t, _ in improved] == list(up.index) == ["t0", "t6", "t3", "t8", "t9"]
    assert [t for t, _ in regressed] == list(down.index) == ["t5", "t7"]
    assert [v for _, v in improved] == pytest.approx(list(up), abs=1e-3)
    assert "the same on both: 3 tasks" in "\n".join(lines)


def test_compare_runs_path_holding_an_equals_sign_is_still_a_path(tmp_path, capsys):
    folder = tmp_path / "run=1"
    write_jsonl(folder / "runs.jsonl", [_run(f"t{i}", 1, v, model=m) for i, v in enumerate([0.1, 0.5, 0.9])
                                        for m in ("model-a", "model-b")])
    assert main(["compare", "--runs", str(folder), "--n-boot", "50", "--format", "csv"]) == 0
    assert "model-a,model-b" in capsys.readouterr().out
    old, _ = _logs(tmp_path)
    # as a log's path after its label: split at the first '='
    assert main(["compare", "--runs", f"before={old}", "--runs", f"after={folder}", "--between", "log",
                 "--a", "before", "--b", "after", "--n-boot", "50", "--format", "csv"]) == 0
    assert "before,after" in capsys.readouterr().out


@pytest.mark.parametrize("runs, names", [
    (["before={old}", "after={tmp}/nowhere"], ["'after'", "{tmp}/nowhere"]),
    (["be|fore={old}", "after={new}"], ["'be|fore'"]),
    (["{old}", "after={new}"], ["{old}", "no label"]),
    (["before={old}", "before={new}"], ["'before'", "twice"]),
    (["before={old}"], ["one log", "'before'"]),
    (["{old}"], ["one log"]),
])
def test_compare_between_log_argument_errors_are_one_line_exit_2(tmp_path, capsys, runs, names):
    old, new = _logs(tmp_path)
    fill = {"old": old, "new": new, "tmp": tmp_path}
    args = ["compare", "--between", "log"]
    for value in runs:
        args += ["--runs", value.format(**fill)]
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert line.startswith("ambiglib compare: ")
    for name in names:
        assert name.format(**fill) in line


def test_the_two_logs_task_by_task_equal_the_hand_pivot(tmp_path):
    """``rs.compare("after", "before", between="log").per_task()``: one row per task both logs ran, after − before
    as pivoted by hand, the tasks that moved most first (issue 57: which tasks improved and regressed)."""
    old, new = _logs(tmp_path)
    rs = ambiglib.load({"before": old, "after": new})
    comparison = rs.compare("after", "before", between="log")
    per = comparison.per_task()
    expected = _by_hand(rs)
    got = per.set_index("task_id")["difference"].sort_index()
    assert list(got.index) == list(expected.index)
    np.testing.assert_allclose(got.to_numpy(), expected.to_numpy())
    assert per["difference"].abs().is_monotonic_decreasing
    assert per["difference"].mean() == pytest.approx(comparison["difference"].iloc[0])
    changed = dict(zip(per["task_id"], per["changed"]))
    assert changed["t0"] == "after higher" and changed["t5"] == "before higher" and changed["t1"] == "same"  # improved, regressed, tied
    assert "log" not in comparison.formatted().columns  # the logs are the sides: a and b name them
    assert list(comparison.formatted()[["a", "b"]].iloc[0]) == ["after", "before"]


def test_the_four_questions_answer_each_log_apart(tmp_path):
    """On two logs of one model, rs.asking() and the others pooled before and after into one agent; each log's
    agents are their own rows, with the numbers each log gives alone, and their runs are only their log's."""
    from ambiglib.answers import _headline as headline

    old, new = _logs(tmp_path)
    rs = ambiglib.load({"before": old, "after": new})
    for question in ("asking", "question_quality", "payoff"):
        both = getattr(rs, question)().frame
        assert list(both["log"]) == ["before", "after"], question
        assert list(both["agent"]) == ["model-a [before]", "model-a [after]"], question
        for label, path in (("before", old), ("after", new)):
            alone = pd.DataFrame(getattr(headline, question)(ambiglib.load(path)))
            row = both[both["log"] == label].drop(columns=["log", "agent"]).reset_index(drop=True)
            pd.testing.assert_frame_equal(row, alone.drop(columns="agent"), check_dtype=False)
    payoff = rs.payoff()
    for i, label in enumerate(["before", "after"]):
        runs = payoff.evidence(i).runs
        assert len(runs) and set(runs["log"]) == {label}


def test_a_report_of_two_logs_compares_them_task_by_task(tmp_path):
    """``ambiglib report --runs before=... --runs after=...``: one report of both logs, its comparison of the logs the
    engine's, each row's page opening on the tasks that moved; a bad label is one line and no report."""
    old, new = _logs(tmp_path)
    out = tmp_path / "report"
    assert main(["report", "-q", "--runs", f"before={old}", "--runs", f"after={new}", "--out", str(out),
                 "--notebooks", "4_is_one_agent_better"]) == 0
    table = pd.read_csv(out / "tables" / "4_is_one_agent_better" / "log_comparison.csv")
    engine = paired_comparison(ambiglib.load({"before": old, "after": new}), metric="mean_score", between="log")
    assert list(table["log_a"]) == ["after"] and list(table["log_b"]) == ["before"]
    assert table["difference"].iloc[0] == pytest.approx(engine["difference"].iloc[0])
    assert table["difference"].iloc[0] == pytest.approx(_by_hand(ambiglib.load({"before": old, "after": new})).mean())
    page = (out / "evidence" / "4_is_one_agent_better" / "log_comparison" / "0.html").read_text()
    assert page.index("which tasks make the difference") < page.index("<h2>Runs")
    assert f"before={old}" in (out / "index.html").read_text()
    bad = tmp_path / "bad"
    assert main(["report", "-q", "--runs", f"be|fore={old}", "--runs", f"after={new}", "--out", str(bad)]) == 1
    assert not bad.exists()


def test_tasks_described_again_are_compared_each_even_when_most_are_alike(tmp_path):
    """The merge compares the tasks of logs loaded together table by table and goes task by task only when some
    differ (``merging._described_alike``): among many tasks described alike (blockers listed in another order
    too), the one whose ambiguity class differs in the third log and the one whose blockers differ in the second
    are each an error naming what differs, against the log that first described them, and nothing else is."""
    blockers = [{"id": "b1", "type": "question"}, {"id": "b2", "type": "schema"}]
    first = [task_record(task_id=f"t{i}", blockers=blockers) for i in range(30)]
    second = [task_record(task_id=f"t{i}", blockers=blockers[::-1]) for i in range(30)]  # their order is no matter
    second[7] = task_record(task_id="t7", blockers=[{"id": "b1", "type": "question"}])
    second.append(task_record(task_id="t30", blockers=blockers))  # first described here
    third = [task_record(task_id=f"t{i}", blockers=blockers) for i in range(31)]
    third[30]["ambiguity_class"] = "benign"
    third[12]["ambiguity_class"] = "divergent"
    logs = {}
    for name, tasks in (("one", first), ("two", second), ("three", third)):
        logs[name] = write_jsonl(tmp_path / f"{name}.jsonl", [*tasks, _run("t0", 1, 0.5)])
    rs, errors = ambiglib.load(logs, strict=False)
    said = sorted((e.file, e.line, e.message.split(": duplicate task record ")[1].split(": first seen")[0])
                  for e in errors)
    assert said == [
        (str(logs["three"]), 13, "(hil-bench, sql, t12) in log 'three' that differs from log 'one''s in ambiguity_class"),
        (str(logs["three"]), 31, "(hil-bench, sql, t30) in log 'three' that differs from log 'two''s in ambiguity_class"),
        (str(logs["two"]), 8, "(hil-bench, sql, t7) in log 'two' that differs from log 'one''s in blockers"),
    ]
    assert len(rs.tasks) == 31 and len(rs.runs) == 3
    # alike everywhere: no error, and each task once
    rs, errors = ambiglib.load({"one": logs["one"], "again": write_jsonl(tmp_path / "again.jsonl",
                                                                             [*second[:7], _run("t1", 1, 0.5)])},
                               strict=False)
    assert errors == [] and len(rs.tasks) == 30
