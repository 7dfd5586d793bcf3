"""The evidence behind a number (ambiglib.evidence._rows): the runs, questions and labels behind a row, checked against a
filter of the frames by hand; its pages escape what the log says."""

from __future__ import annotations

import pandas as pd
import pytest
from builders import q, run, task
from hypothesis import given, settings
from hypothesis import strategies as st

from ambiglib import comparisons, tables
from ambiglib.answers import _headline as headline
from ambiglib.evidence._rows import evidence, write_evidence_pages
from ambiglib.runset import RunSet


def _log() -> RunSet:
    recs = [task(f"t{i}", n_blockers=2) for i in range(4)]
    for i in range(4):
        for model in ("model-a", "model-b"):
            asked = [q("b0", f"{model} asks about b0 on t{i}?")] if model == "model-a" or i < 2 else []
            recs.append(run(task=f"t{i}", model=model, score=1.0 if asked else 0.0, questions=asked,
                            labels=[{"facet": "trace", "label": "intended", "judge": "j"}]))
            recs.append(run(task=f"t{i}", model=model, ask_tool=False, score=0.0))
            recs.append(run(task=f"t{i}", model=model, spec="full", ask_tool=False, score=1.0))
    return RunSet.from_records(recs)


def test_a_rows_evidence_is_its_runs_filtered_by_hand():
    rs = _log()
    quality = headline.question_quality(rs, n_boot=50)
    row = quality.reset_index(drop=True)
    i = int(row.index[row["agent"] == "model-b"][0])
    ev = quality.evidence(i)
    runs = rs.runs
    want = runs[(runs["model"] == "model-b") & (runs["spec"] == "ambiguous") & runs["ask_tool"]]
    assert sorted(ev.runs["task_id"]) == sorted(want["task_id"]) and len(ev.runs) == 4
    assert sorted(ev.questions["text"]) == ["model-b asks about b0 on t0?", "model-b asks about b0 on t1?"]
    assert ev.questions["relevant"].all() and set(ev.questions["blocker_id"]) == {"b0"}
    assert len(ev.labels) == 4 and set(ev.labels["label"]) == {"intended"}
    # the payoff row of model-a: its with-tool runs, and the no-tool runs it is compared against
    payoff = headline.payoff(rs, n_boot=50)
    ev = payoff.evidence(int(payoff.index[payoff["agent"] == "model-a"][0]))
    assert len(ev.runs) == 12 and set(zip(ev.runs["spec"], ev.runs["ask_tool"])) == {
        ("ambiguous", True), ("ambiguous", False), ("full", False)}


def test_a_comparison_rows_evidence_has_both_sides():
    rs = _log()
    out = comparisons.paired_comparison(rs, metric="precision", a="model-a", b="model-b", n_boot=50)
    ev = out.evidence(0)
    assert set(ev.runs["side"]) == {"a", "b"}
    assert set(ev.runs.loc[ev.runs["side"] == "a", "model"]) == {"model-a"}
    # precision: ambiguous tasks with the tool only
    assert set(zip(ev.runs["spec"], ev.runs["ask_tool"])) == {("ambiguous", True)}
    assert len(ev.questions) == 6


def test_a_frame_without_its_run_set_says_so_and_a_row_out_of_range_is_named():
    rs = _log()
    table = tables.questions_per_task(rs)
    with pytest.raises(ValueError, match="row 9 of a table of 2 rows"):
        table.evidence(9)
    with pytest.raises(ValueError, match="does not remember the run set"):
        evidence(pd.DataFrame(table), 0)
    assert len(evidence(pd.DataFrame(table), 0, rs).runs) > 0


def test_evidence_pages_escape_what_the_log_says(tmp_path):
    recs = [task("t0", n_blockers=1),
            run(task="t0", model="<img src=x onerror=alert(1)>", score=1.0,
                questions=[{"text": "<script>alert('q')</script>", "blocker_id": "b0",
                            "response": "</td><script>alert('a')</script>"}])]
    rs = RunSet.from_records(recs)
    quality = headline.question_quality(rs, n_boot=20)
    pages = write_evidence_pages(quality, "question_quality", tmp_path, title="<b>caption</b>")
    text = pages[0].read_text()
    assert "<script" not in text and "<img" not in text and "<b>caption" not in text
    assert "&lt;script&gt;alert(&#39;q&#39;)&lt;/script&gt;" in text  # a quote as markupsafe escapes it


def test_a_row_value_matches_the_same_runs_coded_as_compared_as_text():
    """Evidence matches a row's values on integer codes of the runs' key columns (issue 41): the same runs as
    comparing the Python values, for values present, absent, null, of another type, unhashable, and lists."""
    from pathlib import Path

    import numpy as np

    import ambiglib
    from ambiglib.evidence._rows import _Coded, _matches

    runs = ambiglib.load(Path(__file__).resolve().parents[1] / "data" / "example").runs
    for column in ("benchmark", "suite", "model", "policy", "variant_id"):
        plain = runs[column].astype(object).to_numpy()
        coded = _Coded(runs[column])
        present = sorted(set(map(str, plain)))
        for value in [*present[:3], "no such value", None, 1, 1.0, True, ("a",)]:
            assert np.array_equal(_matches(coded, value), plain == value), (column, value)
        for values in ([present[0]], present[:2], [present[0], "no such value", None], [], [["unhashable"]]):
            expected = np.isin(plain, values) if not values or not isinstance(values[0], list) else \
                np.zeros(len(plain), dtype=bool)
            assert np.array_equal(_matches(coded, values), expected), (column, values)


def test_where_names_each_inspect_sample_as_reading_every_meta_does():
    """``where`` reads a run's Inspect sample only from metas whose text can name one (issue 41): the same
    texts as parsing every run's meta, on Inspect logs and on a log mixing them with metas without it."""
    import json
    from pathlib import Path

    import ambiglib
    from ambiglib.evidence._rows import _where

    fixtures = Path(__file__).resolve().parent / "fixtures" / "inspect"
    runs = ambiglib.load(sorted(fixtures.glob("*.eval"))[0], quiet=True).runs
    example = ambiglib.load(Path(__file__).resolve().parents[1] / "data" / "example").runs
    mixed = pd.concat([runs, example], ignore_index=True)
    mixed.loc[len(runs), "meta"] = json.dumps({"\u0069nspect": {"sample_id": 7, "epoch": 2}}).replace("i", "\\u0069", 1)

    def every_meta(frame):
        out = []
        for source, meta in zip(frame["source"].astype(object), frame["meta"].astype(object)):
            info = json.loads(meta).get("inspect") if isinstance(meta, str) else None
            text = str(source)
            if isinstance(info, dict) and "sample_id" in info:
                text += f" (sample {info['sample_id']!r}, epoch {info.get('epoch')})"
            out.append(text)
        return out

    assert any("(sample " in w for w in _where(runs))
    assert _where(mixed) == every_meta(mixed)
    assert "(sample 7, epoch 2)" in _where(mixed)[len(runs)]


def test_every_table_of_an_evidence_page_scrolls_inside_the_page(tmp_path):
    """A comparison row has ~20 columns: its table ran off the right of the page (seen in a screenshot, issue 41).
    Every table of a page now sits in a block that scrolls sideways."""
    from pathlib import Path

    import ambiglib

    rs = ambiglib.load(Path(__file__).resolve().parents[1] / "data" / "example")
    table = headline.agent_comparison(rs, n_boot=200)
    pages = write_evidence_pages(table, "agent_comparison", tmp_path)
    assert pages
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert ".wide{overflow-x:auto" in text
        assert text.count("<table>") == text.count("<div class='wide'><table>") >= 2


def test_a_rows_evidence_from_the_columns_a_page_shows_is_that_from_every_column(monkeypatch):
    """A row's runs are taken from a run set of the columns a page shows, each question and label found by the
    load's links: the same frames, in the same order, as from the whole run set by pandas' join on run ids, for
    every row of the question tables and a comparison, on the bundled example."""
    import ambiglib
    import ambiglib.evidence._rows as ev_module
    from ambiglib.report import example_runs

    example = example_runs()
    if example is None:
        pytest.skip("the bundled example log is not in this tree")
    rs = ambiglib.load(example, quiet=True)
    made = [headline.question_quality(rs, n_boot=20), headline.payoff(rs, n_boot=20),
            comparisons.paired_comparison(rs.filter(benchmark="hil-bench"), metric="ask_f1", n_boot=20)]
    assert all(len(t) for t in made)

    def every_row():
        return [evidence(t, i) for t in made for i in range(len(t))]

    shown = every_row()
    monkeypatch.setattr(ev_module, "_shown_columns", lambda whole: whole)  # every column, joined by run id
    monkeypatch.setattr(RunSet, "run_positions", lambda self, name: None)
    for a, b in zip(shown, every_row(), strict=True):
        for name in ("runs", "questions", "labels"):
            pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name), check_exact=True)
        assert len(a.runs) and a.scope == b.scope


_VALUES = [0.0, -0.0, float("nan"), None, 1.0, 2.5]


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(_VALUES), st.integers(0, 100), st.lists(st.sampled_from(_VALUES), max_size=4),
       st.sampled_from(["float64", "float64[pyarrow]", "object", "string[pyarrow]", "bool[pyarrow]",
                        "int64[pyarrow]"]))
def test_a_column_is_one_value_exactly_when_pandas_counts_one(first, repeated, rest, dtype):
    """An evidence page leaves out the columns that hold one value: `astype(object).nunique(dropna=False) == 1`
    on every run of the row was most of a large log's page time. The faster test must agree with it on every
    column, including 0.0 beside -0.0 and NaN beside null, and values that differ only past the first rows."""
    from ambiglib.evidence._rows import _one_value

    values = [first] * repeated + rest or [first]
    if dtype in ("string[pyarrow]", "object"):
        values = [None if v is None else f"{v}" for v in values]
    elif dtype == "bool[pyarrow]":
        values = [None if v is None else bool(v == v and v) for v in values]
    elif dtype == "int64[pyarrow]":
        values = [None if v is None or v != v else int(v) for v in values]
    column = pd.Series(values, dtype=dtype)
    assert _one_value(column) == (column.astype(object).nunique(dropna=False) == 1)


_TASKS = ["t0", "t1", "T2", "é3", "t10"]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_TASKS), st.sampled_from(["m-a", "m-b"]), st.integers(1, 3),
                          st.integers(0, 4), st.integers(0, 2), st.booleans()), min_size=1, max_size=25),
       st.sampled_from([1, 2, 3, 7, 1000]))
def test_a_page_built_from_the_rows_it_lists_is_the_page_of_the_whole_evidence(runs, page_rows):
    """A page copies only the questions and labels it lists and works out where only its listed runs are
    (_page_evidence); it must say what the page of the whole evidence says: the same rows in the same order
    (ties in task and trial kept in the log's order, task ids ordered as their texts sort), the same counts,
    the same columns left out as holding one value, for a model's row and a comparison's two sides."""
    import ambiglib.evidence._rows as ev_module

    recs = [task(t, n_blockers=2) for t in _TASKS]
    for n, (t, model, trial, n_q, n_labels, ask_tool) in enumerate(runs):
        recs.append(run(task=t, model=model, trial=trial, ask_tool=ask_tool, score=float(n % 3) / 2, policy=f"p{n}",
                        questions=[q("b0" if (n + j) % 2 else None, f"run {n} asks <{j}>?") for j in range(n_q * ask_tool)],
                        labels=[{"facet": "trace", "label": f"l{j}", "judge": f"j{j}"} for j in range(n_labels)]))
    rs = RunSet.from_records(recs)
    made = [pd.DataFrame({"model": ["m-a", "m-b"]}), pd.DataFrame({"model_a": ["m-a"], "model_b": ["m-b"]}),
            pd.DataFrame({"task_id": ["t0"], "ask_tool": [True]}), pd.DataFrame({"model": ["nobody"]})]
    old = ev_module.PAGE_ROWS
    ev_module.PAGE_ROWS = page_rows
    try:
        for table in made:
            for i in range(len(table)):
                whole = ev_module.evidence(table, i, rs)
                listed, cut = ev_module._page_evidence(table, i, rs)
                assert cut is not None  # the run set links each question to its run: the cut path ran
                assert ev_module._page_body(listed, cut) == ev_module._page_body(whole)
    finally:
        ev_module.PAGE_ROWS = old
