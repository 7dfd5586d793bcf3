"""Every answer reads alone (issue 72): in a terminal (``repr``/``str``: the sentence first, a table of at most eight
columns within 120 characters, then the notes), in a notebook (the card with the comparison's sentence), and a
comparison says what it compares, with two logs as after − before whichever order they are given in.

Expected values are worked out apart from the engine: per-task means pivoted by hand with pandas from the runs,
the sides' names from the records the test wrote."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from conftest import run_record, task_record, write_jsonl
from test_own_benchmark import clarifybench

import ambiglib
from ambiglib.cli import main
from ambiglib.comparisons import paired_comparison, per_task
from ambiglib.runset import RunSet

WIDTH = 120

#: each task's two trials before and after a change (tasks t0..t11); the per-task means move by
#: +0.5, +0.3, 0, -0.2, +0.4, 0, +0.1, +0.6, 0, -0.1, +0.2, +0.35 (after − before)
BEFORE = [[0.1, 0.1], [0.3, 0.5], [0.6, 0.6], [0.8, 0.6], [0.2, 0.0], [0.5, 0.5], [0.4, 0.2], [0.0, 0.2],
          [0.9, 0.9], [0.7, 0.5], [0.3, 0.3], [0.2, 0.4]]
AFTER = [[0.6, 0.6], [0.7, 0.7], [0.6, 0.6], [0.5, 0.5], [0.6, 0.4], [0.4, 0.6], [0.4, 0.4], [0.7, 0.7],
         [0.9, 0.9], [0.5, 0.5], [0.5, 0.5], [0.6, 0.7]]


def _logs(tmp_path, models=("model-a", "model-a")):
    """Two logs of one agent, before and after (``models``: its name in each)."""
    folders = []
    for label, scores, model in (("old", BEFORE, models[0]), ("new", AFTER, models[1])):
        records = [task_record(task_id=f"t{i}") for i in range(len(scores))]
        records += [run_record(task_id=f"t{i}", trial=t + 1, score=s, model=model, questions=None, labels=None)
                    for i, pair in enumerate(scores) for t, s in enumerate(pair)]
        folders.append(write_jsonl(tmp_path / label / "runs.jsonl", records).parent)
    return folders


def _by_hand(rs: RunSet) -> pd.Series:
    """after − before of each task's mean score (ambiguous tasks with the tool), pivoted by hand."""
    runs = rs.runs.astype({"score": float, "log": object, "task_id": object})
    runs = runs[(runs["spec"] == "ambiguous") & runs["ask_tool"].astype(bool)]
    means = runs.groupby(["task_id", "log"])["score"].mean().unstack("log").dropna()
    return (means["after"] - means["before"]).sort_index()


@pytest.fixture(scope="module")
def own() -> RunSet:
    return RunSet.from_records(clarifybench(n_tasks=30))


def _answers(rs: RunSet) -> dict:
    return {"asking": rs.asking(), "question_quality": rs.question_quality(), "payoff": rs.payoff(),
            "compare": rs.compare("agent-x", "agent-z"), "every pair": rs.compare(), "rank": rs.rank()}


def _table_columns(text: str) -> int:
    """How many columns the text table has: the groups of its rule line of dashes."""
    rule = next(line for line in text.splitlines() if re.fullmatch(r"-+( +-+)*", line))
    return len(rule.split())


def test_each_answer_prints_its_sentence_first_then_at_most_eight_columns_within_120(own):
    for name, answer in _answers(own).items():
        text = str(answer)
        assert text == repr(answer), name
        lines = text.splitlines()
        assert max(len(line) for line in lines) <= WIDTH, (name, max(lines, key=len))
        sentences = answer.attrs["answer"]
        assert sentences, name
        # the first sentence opens the text, wrapped as words (its first line is its start)
        assert sentences[0].startswith(lines[0]), (name, lines[0])
        assert _table_columns(text) <= 8, name
        # every cell the card shows with its interval ("0.61 (0.48–0.72)") is in the text, as formatted gives it
        shown = answer.formatted()
        for heading in shown.columns:
            for cell in shown[heading]:
                if re.search(r"\d", str(cell)) and "(" in str(cell):
                    assert str(cell) in text, (name, heading, cell)
        # the method of the intervals follows the table, wrapped; the frame keeps every column
        assert "Intervals: 95%" in text, name
        assert text.index("Intervals:") > text.index("---"), name
        assert list(answer.frame.columns) == list(pd.DataFrame(answer).columns)
        assert "ci_method" not in lines[0]


def test_a_terminal_shows_a_value_with_its_interval_as_the_card_does(own):
    asking = own.asking()
    row = asking.frame.iloc[0]
    low, high = row["ask_on_ambiguous_ci_low"], row["ask_on_ambiguous_ci_high"]
    expected = f"{100 * row['ask_on_ambiguous']:.0f}% ({100 * low:.0f}–{100 * high:.0f}%)"
    line = next(line for line in str(asking).splitlines() if line.startswith(str(row["agent"])))
    assert expected in line


def test_a_comparison_names_its_condition_metric_and_pairing_and_says_its_verdict(own):
    comparison = own.compare("agent-x", "agent-z")
    row = comparison.frame.iloc[0]
    runs = own.runs
    scope = runs[(runs["spec"] == "ambiguous") & runs["ask_tool"] & (runs["policy"] == "default")
                 & (runs["protocol"] == "solve") & runs["score"].notna()]
    pivot = scope.groupby(["task_id", "model"])["score"].mean().unstack("model")[["agent-x", "agent-z"]].dropna()
    difference = float((pivot["agent-x"] - pivot["agent-z"]).mean())
    (sentence,) = comparison.attrs["answer"]
    assert "mean score (0–1) on ambiguous tasks with the ask tool" in sentence
    assert f"agent-x vs agent-z, paired by task over {len(pivot)} tasks" in sentence
    assert f"agent-x − agent-z = {difference:+.2f}" in sentence
    assert f"95% CI {row['difference_ci_low']:+.2f} to {row['difference_ci_high']:+.2f}" in sentence
    higher = "agent-x" if difference > 0 else "agent-z"
    verdict = f"{higher} is higher" if row["p_holm"] < 0.05 else "no clear difference"
    assert sentence.endswith(f": {verdict}.")
    # the card's headings name the sides, and the notes say the metric, its unit and the pairing
    headings = list(comparison.formatted().columns)
    assert "mean score, agent-x" in headings and "agent-x − agent-z" in headings
    text = str(comparison)
    assert "unit: 0-1" in text and "paired by task" in text
    assert "task by task: .per_task()" in text


def test_two_logs_read_after_minus_before_in_either_order(tmp_path):
    old, new = _logs(tmp_path)
    rs = ambiglib.load({"before": old, "after": new})
    d = _by_hand(rs)
    assert d.mean() > 0  # the change improved the agent
    for a, b in (("before", "after"), ("after", "before")):
        comparison = rs.compare(a, b, between="log")
        row = comparison.frame.iloc[0]
        assert (row["log_a"], row["log_b"]) == ("after", "before")
        assert row["difference"] == pytest.approx(d.mean(), abs=1e-12)
        (sentence,) = comparison.attrs["answer"]
        assert f"after − before = {d.mean():+.2f}" in sentence
        assert "after − before" in comparison.formatted().columns
        first = str(comparison).splitlines()[0]
        assert sentence.startswith(first)
    # a one-sided question keeps its meaning when the sides are put later first: "before > after" is "after < before"
    swapped = rs.compare("before", "after", between="log", alternative="greater").frame.iloc[0]
    engine = paired_comparison(rs, between="log", a="before", b="after", alternative="greater").iloc[0]
    assert swapped["alternative"] == "less"
    assert swapped["p_value"] == pytest.approx(engine["p_value"])


def test_task_by_task_says_once_what_every_row_shares_and_names_the_side_higher(tmp_path):
    old, new = _logs(tmp_path)
    rs = ambiglib.load({"before": old, "after": new})
    d = _by_hand(rs)
    per = rs.compare("before", "after", between="log").per_task()
    assert list(per.columns) == ["task_id", "value_a", "value_b", "difference", "changed"]
    caption = per.attrs["caption"]
    for said in ("benchmark hil-bench", "model model-a", "value_a: after", "value_b: before",
                 "difference: after − before", "mean score on ambiguous tasks with the ask tool"):
        assert said in caption, said
    got = per.set_index("task_id")
    np.testing.assert_allclose(got.loc[d.index, "difference"], d.to_numpy(), atol=1e-12)
    expected = np.where(d > 1e-12, "after higher", np.where(d < -1e-12, "before higher", "same"))
    assert list(got.loc[d.index, "changed"]) == list(expected)
    # every column is still there, as the engine computes it, in .frame
    engine = per_task(rs, between="log", a="after", b="before")
    full = per.frame
    assert list(full.columns) == list(engine.columns)
    pd.testing.assert_frame_equal(full.drop(columns="changed"), pd.DataFrame(engine).drop(columns="changed"),
                                  check_dtype=False)
    # in a terminal: the sentence, then the caption, then the rows headed by the sides' names, within 120
    text = str(per)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= WIDTH
    assert per.attrs["answer"][0].startswith(lines[0])
    assert any(line.startswith("Task by task:") for line in lines)
    assert re.search(r"task_id +after +before", text)
    # and in a notebook: the sentence, the caption, then the rows headed by the sides' names, three digits
    html = per._repr_html_()
    assert html.index(per.attrs["answer"][0][:40]) < html.index("Task by task") < html.index("<table")
    heads = re.findall(r"<th>([^<]*)</th>", html)
    assert heads[:6] == ["", "task_id", "after", "before", "after − before", "changed"]  # (the index first)
    first = d.abs().idxmax()  # the task that moved most: its row shows the difference signed, to 3 digits
    assert re.search(rf"<td>{first}</td>\s*<td>[^<]*</td>\s*<td>[^<]*</td>\s*<td>{re.escape(f'{d[first]:+.3g}')}</td>", html)


def test_task_by_task_keeps_the_pass_fail_column_only_for_pass_fail_values(own):
    records = []
    for task, (a, b) in {"t1": (1, 0), "t2": (0, 1), "t3": (1, 1)}.items():
        for model, score in (("a", a), ("b", b)):
            records.append({"benchmark": "own", "suite": "s", "task_id": task, "model": model, "spec": "ambiguous",
                            "ask_tool": True, "trial": 1, "status": "ok", "score": float(score),
                            "passed": bool(score)})
    binary = RunSet.from_records(records).compare("a", "b").per_task()
    assert "pass_fail" in binary.columns and binary["pass_fail"].all()
    scores = own.compare("agent-x", "agent-y").per_task()
    assert "pass_fail" not in scores.columns
    assert "pass_fail" in scores.frame.columns and not scores.frame["pass_fail"].any()


def test_logs_of_one_model_each_pair_as_its_versions(tmp_path):
    """Before and after as two model names (mockllm/v1, mockllm/v2), one a log: paired across the logs by task,
    not "nothing to compare"."""
    old, new = _logs(tmp_path, models=("agent/v1", "agent/v2"))
    rs = ambiglib.load({"before": old, "after": new})
    comparison = rs.compare("before", "after", between="log")
    assert len(comparison) == 1
    assert comparison["difference"].iloc[0] == pytest.approx(_by_hand(rs).mean(), abs=1e-12)
    assert "before: agent/v1; after: agent/v2" in comparison.attrs["note"]


def test_the_card_in_a_notebook_has_the_comparisons_sentence(tmp_path):
    old, new = _logs(tmp_path)
    comparison = ambiglib.load({"before": old, "after": new}).compare("before", "after", between="log")
    html = comparison._repr_html_()
    sentence = comparison.attrs["answer"][0]
    assert f"<p class='answer'>{sentence}</p>" in html
    assert "after − before" in html


def test_compare_command_says_one_difference_and_no_footnote_on_a_column_it_does_not_print(tmp_path, capsys):
    old, new = _logs(tmp_path)
    d = _by_hand(ambiglib.load({"before": old, "after": new}))
    assert main(["compare", "--runs", f"before={old}", "--runs", f"after={new}", "--between", "log",
                 "--a", "before", "--b", "after"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert "difference = the later log − the earlier (after − before)" in lines[0]
    assert "log_a − log_b" not in out
    assert f"after − before = {d.mean():+.3g}" in out
    assert not [line for line in lines if line.startswith("– in") and ("ci_vs_test" in line or "p_mc_se" in line)]
    # between models: each "–" footnote names a column the table printed
    rs_path = write_jsonl(tmp_path / "models" / "runs.jsonl", clarifybench(n_tasks=12)).parent
    assert main(["compare", "--runs", str(rs_path), "--a", "agent-x", "--b", "agent-y"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.lstrip().startswith("benchmark"))
    # 12 tasks: an exact permutation test, so the printed p_mc_se column is empty and says why
    assert "– in p_mc_se: an exact test" in out
    for line in out.splitlines():
        if line.startswith("– in "):
            for column in line[len("– in "):].split(":")[0].split(", "):
                assert column in header.split(), line
    assert "difference = model_a − model_b (agent-x − agent-y)" in out


def test_a_table_too_wide_for_the_terminal_keeps_names_and_heading_words_whole():
    """Seven columns of values with their intervals do not fit 120 characters beside two name columns: the table
    is printed in blocks of columns, each under the names, rather than cutting a name to a few letters or a heading
    inside a word (the payoff card of data/example printed "benchmar / k" and "gemini-…")."""
    from ambiglib.answers._cards import text_table

    names = ["gemini-3.1-pro (permissive)", "claude-opus-4.6", "opus-4.5 (supervisor)"]
    frame = pd.DataFrame({"benchmark": ["ambig-ds", "hil-bench", "lhaw"], "agent": names})
    headings = ["score, fully specified", "ambiguous, no ask tool", "ambiguous, with it", "gain from asking (pp)",
                "gain ÷ questions per run (pp)", "gap to full (pp)"]
    for j, heading in enumerate(headings):
        frame[heading] = [f"+{10 * j + i}.5 (-10.2 to +41.{i})" for i in range(3)]
    text = text_table(frame, WIDTH, {"benchmark", "agent"})
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= WIDTH
    blocks = text.split("\n\n")
    assert len(blocks) == 2
    for block in blocks:  # each block under the names, whole
        assert block.splitlines()[-3].startswith("ambig-ds   gemini-3.1-pro (permissive)")
        assert all(name in block for name in names)
    for heading in headings:
        for word in heading.split():
            assert re.search(rf"(^|\s){re.escape(word)}(\s|$)", text, re.M), word
        assert all(cell in text for cell in frame[heading])
    assert "…" not in text
    # a name longer than fits is cut, never below 30 characters
    long = frame.assign(agent=["x" * 200, "y", "z"])[["benchmark", "agent", headings[0]]]
    cut = text_table(long, 80, {"benchmark", "agent"})
    assert max(len(line) for line in cut.splitlines()) <= 80 and "x" * 29 + "…" in cut
