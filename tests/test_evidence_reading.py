"""Evidence read as a reader wants it (issue 72): the rows that explain a number first (for precision the irrelevant
questions, for recall the runs that missed a registered blocker), the order said where the rows are, the questions
in their dialogue said to be some of the row's and how they were chosen, and a notebook's Evidence bounded: its first
rows and how many more, however many the row has. The expected orders and counts are worked out here from the
records the test writes, not read back from the library."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from builders import run, task
from hypothesis import given, settings
from hypothesis import strategies as st

import ambiglib
from ambiglib import comparisons
from ambiglib.answers import _headline as headline
from ambiglib.evidence._rows import NOTEBOOK_ROWS, evidence, write_evidence_pages
from ambiglib.runset import RunSet

TASKS = [f"t{i}" for i in range(6)]
BLOCKERS = ["b0", "b1"]


def _plan(models=("m",)) -> list[dict]:
    """Each run of the log (model, task, trial) and its questions (text, blocker or None): some irrelevant, some
    relevant, some runs asking about one blocker of their two, some about both, some about none."""
    plan = []
    for model in models:
        for i, t in enumerate(TASKS):
            for trial in (1, 2):
                qs = []
                for j in range((i + trial + len(model)) % 3 + 1):
                    blocker = None if (i * 3 + trial + j + len(model)) % 3 == 0 else BLOCKERS[(i + j) % 2]
                    qs.append((f"{model} on {t} trial {trial} asks question {j} about {blocker}?", blocker))
                plan.append({"model": model, "task": t, "trial": trial, "questions": qs})
    return plan


def _record(p: dict) -> dict:
    turns = [{"role": "user", "content": f"do {p['task']}"}]
    for j, (text, blocker) in enumerate(p["questions"]):
        turns += [{"role": "assistant", "content": None, "tool_name": "ask", "tool_args": {"question": text},
                   "q_index": j},
                  {"role": "tool", "content": f"answer about {blocker}", "tool_name": "ask", "answers": j}]
    turns.append({"role": "assistant", "content": "done"})
    return run(task=p["task"], model=p["model"], trial=p["trial"], score=1.0 if p["questions"] else 0.0,
               questions=[{"text": text, "blocker_id": blocker, "response": f"answer about {blocker}"}
                          for text, blocker in p["questions"]],
               transcript={"covers": "conversation", "turns": turns})


def _log(tmp_path: Path, models=("m",)) -> tuple[RunSet, list[dict]]:
    plan = _plan(models)
    records = [task(t, n_blockers=len(BLOCKERS)) for t in TASKS] + [_record(p) for p in plan]
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return ambiglib.load(path, quiet=True), plan


def _questions_by_hand(plan: list[dict], irrelevant_first: bool, sides: dict[str, str] | None = None) -> list[str]:
    """The texts of the plan's questions in the order a reader wants: (irrelevant first,) side, task, trial,
    question number; Python's sort is stable, and the plan is in the log's order."""
    rows = [(p["questions"][j][1] is not None, (sides or {}).get(p["model"], ""), p["task"], p["trial"], j,
             p["questions"][j][0]) for p in plan for j in range(len(p["questions"]))]
    key = (lambda r: r[:5]) if irrelevant_first else (lambda r: r[1:5])
    return [r[5] for r in sorted(rows, key=key)]


def _missed_by_hand(p: dict) -> list[str]:
    asked = {blocker for _, blocker in p["questions"] if blocker is not None}
    return [b for b in BLOCKERS if b not in asked]


def test_a_row_about_precision_lists_its_irrelevant_questions_first(tmp_path):
    rs, plan = _log(tmp_path)
    quality = headline.question_quality(rs, n_boot=20)
    ev = quality.evidence(0)
    n_irrelevant = sum(blocker is None for p in plan for _, blocker in p["questions"])
    assert 0 < n_irrelevant < len(ev.questions)
    # counted from rs.questions too: the rows where relevant is false
    assert int((rs.questions["relevant"] == False).sum()) == n_irrelevant  # noqa: E712
    assert list(ev.questions["text"]) == _questions_by_hand(plan, irrelevant_first=True)
    assert not ev.questions["relevant"].iloc[:n_irrelevant].any()
    assert ev.questions["relevant"].iloc[n_irrelevant:].all()
    assert f"{n_irrelevant} here" in ev.order.questions and ev.order.brief == f"the {n_irrelevant} irrelevant first"
    # the same order on every call
    pd.testing.assert_frame_equal(ev.questions, quality.evidence(0).questions)


def test_a_row_about_recall_lists_the_runs_that_missed_a_blocker_first_naming_them(tmp_path):
    rs, plan = _log(tmp_path)
    quality = headline.question_quality(rs, n_boot=20)
    ev = quality.evidence(0)
    missed = {(p["task"], p["trial"]): ", ".join(_missed_by_hand(p)) for p in plan}
    got = {(t, int(trial)): m for t, trial, m in zip(ev.runs["task_id"], ev.runs["trial"], ev.runs["missed"])}
    assert got == missed
    first = sorted((k for k in missed if missed[k]), key=lambda k: k) + sorted(k for k in missed if not missed[k])
    assert list(zip(ev.runs["task_id"], ev.runs["trial"].astype(int))) == first
    n_missing = sum(1 for k in missed if missed[k])
    assert 0 < n_missing < len(plan) and f"{n_missing} here" in ev.order.runs
    # the library's recall is what the missed blockers leave: 1 - missed / registered over the row's runs
    n_missed = sum(len(_missed_by_hand(p)) for p in plan)
    assert quality["recall"].iloc[0] == pytest.approx(1 - n_missed / (len(BLOCKERS) * len(plan)))


def test_a_comparison_row_orders_by_its_metric_and_says_its_sides(tmp_path):
    rs, plan = _log(tmp_path, models=("model-a", "model-b"))
    sides = {"model-a": "a", "model-b": "b"}
    precision = comparisons.paired_comparison(rs, metric="precision", a="model-a", b="model-b", n_boot=20)
    ev = precision.evidence(0)
    assert list(ev.questions["text"]) == _questions_by_hand(plan, True, sides)
    assert "missed" not in ev.runs  # precision only: the runs in side, task and trial order
    assert list(zip(ev.runs["side"], ev.runs["task_id"])) == sorted(zip(ev.runs["side"], ev.runs["task_id"]))
    score = comparisons.paired_comparison(rs, metric="mean_score", a="model-a", b="model-b", n_boot=20)
    ev = score.evidence(0)
    assert list(ev.questions["text"]) == _questions_by_hand(plan, False, sides)
    assert ev.order.questions == "by side (a, then b), task, trial and question"
    assert ev.order.runs == "by side (a, then b), task and trial"


def test_a_run_whose_task_has_no_record_has_no_missed_blockers_said_and_comes_with_the_rest():
    """Its blockers are unknown: ``missed`` is empty (not "none missed"), and it is not among the runs listed first."""
    rs = RunSet.from_records([task("t0", n_blockers=2),
                              run(task="t0", score=0.0, questions=[{"text": "a?", "blocker_id": "b1"}]),
                              run(task="t9", score=0.0, questions=[]),
                              run(task="t0", trial=2, score=1.0,
                                  questions=[{"text": "b?", "blocker_id": "b0"}, {"text": "c?", "blocker_id": "b1"}])])
    ev = evidence(pd.DataFrame({"model": ["m"], "recall": [0.5]}), 0, rs)
    assert list(zip(ev.runs["task_id"], ev.runs["trial"].astype(int))) == [("t0", 1), ("t0", 2), ("t9", 1)]
    assert ev.runs["missed"].iloc[0] == "b0" and ev.runs["missed"].iloc[1] == "" and pd.isna(ev.runs["missed"].iloc[2])
    assert "1 here" in ev.order.runs


def _between(page: str, start: str, end: str) -> str:
    return page[page.index(start):page.index(end, page.index(start))]


def test_a_page_says_at_its_dialogues_how_many_of_the_row_s_questions_they_are_and_how_chosen(tmp_path):
    rs, plan = _log(tmp_path)
    quality = headline.question_quality(rs, n_boot=20)
    write_evidence_pages(quality, "question_quality", tmp_path / "out")
    page = (tmp_path / "out" / "evidence" / "question_quality" / "0.html").read_text(encoding="utf-8")
    order = _questions_by_hand(plan, irrelevant_first=True)
    n_irrelevant = sum(blocker is None for p in plan for _, blocker in p["questions"])
    assert len(order) > 10
    heading = f"<h2>Questions in their dialogue (10 of {len(order)}, the {n_irrelevant} irrelevant first)</h2>"
    assert heading in page
    said = page[page.index(heading) + len(heading):].split("\n")[0]
    assert said.startswith("<p class='muted'>which: the first 10 questions of the list below (Questions) whose run"
                           " keeps a transcript, in its order: the irrelevant questions first")
    assert f"The other {len(order) - 10} are in that list" in said
    # the dialogues are the first ten of that order, and the list below is the whole of it, in it
    shown = re.findall(r"<h3>Question \d+ of task \w+, trial \d+: (.*?)</h3>", page)
    assert shown == order[:10]
    listed = _between(page, "<h2>Questions (", "<h2>Runs (")
    assert "<p class='muted'>listed the irrelevant questions first" in listed
    places = [listed.index(f">{text}<") for text in order]
    assert places == sorted(places)
    runs = _between(page, "<h2>Runs (", "<h2>Judge labels")
    assert "<p class='muted'>listed the runs that missed a registered blocker of their task first" in runs
    assert "<th>missed</th>" in runs


def _many(n_questions: int, n_runs: int = 1, chars: int = 5_000) -> RunSet:
    recs = [task("t0", n_blockers=1)]
    for r in range(n_runs):
        recs.append(run(task="t0", trial=r + 1, score=0.0,
                        questions=[{"text": f"question {r}.{j} " + "x" * chars, "blocker_id": None,
                                    "response": "y" * chars} for j in range(n_questions // n_runs)]))
    return RunSet.from_records(recs)


@pytest.mark.parametrize("n_questions, n_runs", [(300, 1), (300, 300)])
def test_a_notebook_shows_the_first_rows_and_how_many_more_however_many_there_are(n_questions, n_runs):
    """``q.evidence(1)`` in Jupyter rendered all 138 questions (51 KB): it shows the first NOTEBOOK_ROWS of each
    frame, each text cut, and the same size for ten times the questions."""
    sizes = []
    for scale in (1, 10):
        rs = _many(n_questions * scale, n_runs * scale if n_runs > 1 else 1)  # more questions a run, or more runs
        quality = headline.question_quality(rs, n_boot=20)
        ev = quality.evidence(0)
        total = n_questions * scale
        assert len(ev.questions) == total  # the attribute has every one
        html = ev._repr_html_()
        body = _between(html, "<h2>Questions (", "<h2>Runs (")
        assert body[body.index("<tbody>"):body.index("</tbody>")].count("<tr>") == NOTEBOOK_ROWS
        assert (f"… {total - NOTEBOOK_ROWS:,} more beyond the first {NOTEBOOK_ROWS} of {total:,} questions;"
                " every one: <code>.questions</code> in Python") in body
        if n_runs > 1:
            runs = n_runs * scale
            assert f"… {runs - NOTEBOOK_ROWS:,} more beyond the first {NOTEBOOK_ROWS} of {runs:,} runs;" in html
        assert "x" * 401 not in html and "… (4," in html  # each text its first 400 characters, and how many more
        text = repr(ev)
        assert f"… {total - NOTEBOOK_ROWS:,} more questions; every one: .questions" in text
        assert max(len(line) for line in text.split("\n")) < 1_000 and text.count("\n") < 4 * NOTEBOOK_ROWS
        sizes.append((len(html), len(text)))
    (html_1, text_1), (html_10, text_10) = sizes
    assert html_1 < 25_000 and abs(html_10 - html_1) < 100 and abs(text_10 - text_1) < 100


def test_a_notebook_s_evidence_is_a_plain_string_with_hidden_characters_shown():
    rs = RunSet.from_records([task("t0", n_blockers=1),
                              run(task="t0", model="gpt\u202e-5", score=1.0,
                                  questions=[{"text": "<b>bold?</b>", "blocker_id": "b0"}])])
    html = headline.question_quality(rs, n_boot=20).evidence(0)._repr_html_()
    assert type(html) is str and "\u202e" not in html and "gpt\\u202e-5" in html
    assert "&lt;b&gt;bold?&lt;/b&gt;" in html and "<b>" not in html


_TASK_IDS = ["t0", "t1", "T2", "é3", "t10"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_TASK_IDS), st.sampled_from(["m-a", "m-b"]), st.integers(1, 3),
                          st.lists(st.sampled_from(["b0", "b1", None, "unattributed"]), max_size=4)),
                min_size=1, max_size=25),
       st.sampled_from([1, 2, 3, 7, 1000]))
def test_a_page_lists_the_rows_a_reader_wants_first_as_the_whole_evidence_orders_them(runs, page_rows):
    """A page works its order out on the sort keys of the rows it lists (_page_evidence): for a row about precision,
    recall or Ask-F1, a model's and a comparison's, it says what the page of the whole evidence says: the same
    rows in the same order, the same counts, the same order in words."""
    import ambiglib.evidence._rows as ev_module

    recs = [task(t, n_blockers=2) for t in _TASK_IDS]
    for n, (t, model, trial, asked) in enumerate(runs):
        questions = [{"text": f"run {n} asks <{j}>?", "attributed": False} if b == "unattributed"
                     else {"text": f"run {n} asks <{j}>?", "blocker_id": b} for j, b in enumerate(asked)]
        recs.append(run(task=t, model=model, trial=trial, score=float(n % 3) / 2, policy=f"p{n}",
                        questions=questions))
    rs = RunSet.from_records(recs)
    made = [pd.DataFrame({"model": ["m-a", "m-b"], "precision": [0.5, 0.5]}),
            pd.DataFrame({"model": ["m-a", "m-b"], "recall": [0.5, 0.5]}),
            pd.DataFrame({"model": ["m-b"], "ask_f1": [0.5]}),
            pd.DataFrame({"model_a": ["m-a"], "model_b": ["m-b"], "metric": ["ask_f1"]}),
            pd.DataFrame({"model_a": ["m-a"], "model_b": ["m-b"], "metric": ["recall"]})]
    old = ev_module.PAGE_ROWS
    ev_module.PAGE_ROWS = page_rows
    try:
        for table in made:
            for i in range(len(table)):
                whole = evidence(table, i, rs)
                listed, cut = ev_module._page_evidence(table, i, rs)
                assert cut is not None
                assert listed.order == whole.order
                assert ev_module._page_body(listed, cut) == ev_module._page_body(whole)
    finally:
        ev_module.PAGE_ROWS = old
