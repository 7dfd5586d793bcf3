"""Pages are bounded as docs/trust.md says (issue 71): every text a page shows from a log is cut at 2,000 characters
with "… (n more characters)", every table at 1,000 rows with how many more there are and where; the frames and CSVs
keep every value. And a Markdown table shows a log's link and image syntax as text, read by a CommonMark renderer."""

from __future__ import annotations

import dataclasses
import gzip
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from builders import q, run, task
from hostile_html import parse

import ambiglib
from ambiglib.answers import _headline as headline
from ambiglib.evidence._dialogues import run_page_name
from ambiglib.evidence._rows import write_evidence_pages
from ambiglib.runset import RunSet
from ambiglib.tables import Table

#: what docs/trust.md promises a page shows of a text, and of a table
CHARS, ROWS = 2000, 1000


def _longest(page: str, ch: str) -> int:
    """The longest run of ``ch`` in ``page``: how much of a text of that one character the page shows."""
    return max(map(len, re.findall(re.escape(ch) + "+", page)), default=0)


def _pages(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.html"))


def _rows_of_table_after(page: str, heading: str) -> int:
    """The rows of the first table body after ``heading`` on ``page``."""
    start = page.index(heading)
    body = page[page.index("<tbody>", start):page.index("</tbody>", start)]
    return body.count("<tr")


def test_a_41_kb_log_of_a_20_mb_question_and_answer_makes_pages_under_1_mb(tmp_path):
    """The issue's log: one run whose one question is 20 MB of text and its answer 20 MB, gzipped to 41 KB. Its evidence
    page and run page were 40 MB each; each is now under 1 MB, showing 2,000 characters of each and how many more."""
    n = 20_000_000
    log = tmp_path / "log.jsonl.gz"
    with gzip.open(log, "wt", encoding="utf-8") as f:
        for record in (task("t0", n_blockers=1),
                       run(task="t0", model="m", score=1.0,
                           questions=[{"text": "Q" * n, "blocker_id": "b0", "response": "A" * n}])):
            f.write(json.dumps(record) + "\n")
    assert log.stat().st_size < 45_000
    rs = ambiglib.load(log, quiet=True)
    write_evidence_pages(headline.question_quality(rs, n_boot=20), "question_quality", tmp_path / "out")
    pages = _pages(tmp_path / "out")
    assert [p.parent.name for p in pages] == ["question_quality", "runs"]  # the row's page and its run's page
    for page in pages:
        assert page.stat().st_size < 1_000_000, (page, page.stat().st_size)
        text = page.read_text(encoding="utf-8")
        for ch in "QA":
            assert f"{ch * CHARS}… ({n - CHARS:,} more characters)" in text
            assert _longest(text, ch) == CHARS
    # the frames keep every character
    assert len(rs.questions["text"][0]) == n and len(rs.questions["response"][0]) == n


def _long_log(tmp_path: Path, n: int) -> RunSet:
    """A run whose model name, question, answer, judge label and every turn of its transcript are ``n`` characters
    (each of one letter of its own), read from a log as a report reads it."""
    turns = [{"role": "user", "content": "U" * n},
             {"role": "assistant", "content": None, "tool_name": "T" * n, "tool_args": {"question": "Q" * n},
              "q_index": 0},
             {"role": "tool", "content": "A" * n, "tool_name": "T" * n, "answers": 0},
             {"role": "assistant", "content": "F" * n}]
    record = run(task="t0", model="M" * n, score=1.0, questions=[{"text": "Q" * n, "blocker_id": "b0",
                                                                   "response": "A" * n}],
                 labels=[{"facet": "trace", "label": "L" * n, "judge": "J" * n}],
                 transcript={"covers": "conversation", "turns": turns})
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in (task("t0", n_blockers=1), record)), encoding="utf-8")
    return ambiglib.load(log, quiet=True)


def test_every_text_of_an_evidence_page_and_a_run_page_is_cut_saying_how_much(tmp_path):
    """Not the question tables alone: the model's name (in the row, the scope, the runs, the title), a judge's label,
    every turn, and, said in passing (400 characters), a tool's name in a turn's heading and the question as its
    dialogue's heading."""
    n = 50_000
    rs = _long_log(tmp_path, n)
    write_evidence_pages(headline.question_quality(rs, n_boot=20), "question_quality", tmp_path / "out")
    page = (tmp_path / "out" / "evidence" / "question_quality" / "0.html").read_text(encoding="utf-8")
    runs = (tmp_path / "out" / "evidence" / "runs" / run_page_name(rs.runs["run_id"][0])).read_text(encoding="utf-8")
    more = f"… ({n - CHARS:,} more characters)"
    for text in (page, runs):
        assert len(text) < 200_000
        for ch in "MQAJLT":
            assert _longest(text, ch) <= CHARS, ch
        assert f"{'M' * CHARS}{more}" in text and f"{'L' * CHARS}{more}" in text and f"{'J' * CHARS}{more}" in text
        # a turn's heading names the tool it calls in passing (400 characters), and still says what the turn asks
        assert f"calls {'T' * 400}… ({n - 400:,} more characters) · asks question 0" in text
    assert f"Question 0 of task t0, trial 1: {'Q' * 400}… ({n - 400:,} more characters)</h3>" in page


def test_a_run_page_lists_its_first_1000_questions_and_labels_and_says_where_every_one_is(tmp_path):
    """A run of 1,500 questions and 1,200 judge labels: its page listed all 2,700 rows (20,000 questions made 3 MB)."""
    questions = [q("b0", f"question number {i}?") for i in range(1500)]
    labels = [{"facet": "trace", "label": f"label {i}", "judge": f"judge {i}"} for i in range(1200)]
    rs = RunSet.from_records([task("t0", n_blockers=1), run(task="t0", score=1.0, questions=questions, labels=labels)])
    write_evidence_pages(headline.question_quality(rs, n_boot=20), "q", tmp_path / "out")
    page = (tmp_path / "out" / "evidence" / "runs" / run_page_name(rs.runs["run_id"][0])).read_text(encoding="utf-8")
    assert _rows_of_table_after(page, "<h2>Questions (1500)</h2>") == ROWS
    assert _rows_of_table_after(page, "<h2>Judge labels (1200)</h2>") == ROWS
    assert "question number 999?" in page and "question number 1000?" not in page  # the first ones, in order
    assert ("the first 1,000 of 1,500 questions; every one: <code>rs.questions[rs.questions.run_id == run_id]</code>"
            " in Python") in page
    assert "the first 1,000 of 1,200 judge labels; every one: <code>rs.labels[rs.labels.run_id == run_id]</code>" \
        in page
    assert len(rs.questions) == 1500 and len(rs.labels) == 1200  # the frames keep every one


def test_an_evidence_page_lists_the_first_1000_columns_of_its_row(tmp_path):
    """A table can have a column per label a log holds (the failure-mode tables): a row's page listed every one."""
    rs = RunSet.from_records([task("t0", n_blockers=1), run(task="t0", model="m", score=1.0)])
    wide = pd.DataFrame({"model": ["m"], **{f"label {i}": [float(i)] for i in range(1500)}})
    table = Table(wide)
    table._runset = rs
    write_evidence_pages(table, "wide", tmp_path / "out")
    page = (tmp_path / "out" / "evidence" / "wide" / "0.html").read_text(encoding="utf-8")
    assert _rows_of_table_after(page, "row 1:") == ROWS
    assert "the first 1,000 of 1,501 columns; every one: <code>table.iloc[0]</code> in Python" in page


def test_summary_pages_cut_a_long_name_and_list_the_first_1000_rows(tmp_path):
    """summary.html and summary.md: a row per model (1,200 models), one named with 50,000 characters."""
    from ambiglib.report import write_summary

    n = 50_000
    records = [run(task="t0", model="N" * n, score=1.0), *(run(task="t0", model=f"m{i:04d}", score=0.5)
                                                             for i in range(1199))]
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    write_summary(log, tmp_path / "out", quiet=True)
    page = (tmp_path / "out" / "summary.html").read_text(encoding="utf-8")
    md = (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")
    assert _longest(page, "N") == CHARS and f"{'N' * CHARS}… ({n - CHARS:,} more characters)" in page
    assert _rows_of_table_after(page, "Runs per benchmark") == ROWS
    assert "first 1,000 of 1,200 rows; every row is in summary.csv" in page
    table = [line for line in md.splitlines() if line.startswith("| ")]
    assert len(table) == 1 + ROWS and "first 1,000 of 1,200 rows; every row is in summary.csv" in md
    # the name cut there too: tabulate pads every row to the widest, and 1,000 rows of 50,000 made 50 MB
    assert _longest(md, "N") == CHARS and f"{'N' * CHARS}… ({n - CHARS:,} more characters)" in md
    assert len(md) < 3_000_000
    assert len(pd.read_csv(tmp_path / "out" / "summary.csv")) == 1200  # the CSV has every row


def test_the_summary_lists_the_first_1000_reasons_rows_were_skipped_for(tmp_path):
    """A harness's status is part of its reason for skipping a row (Ambig-DS: "_runlog.jsonl line with status ..."),
    so a log can make any number of reasons: summary.html and summary.md list 1,000 of 1,500, and say so."""
    from ambiglib.report import write_summary

    rs = dataclasses.replace(RunSet.from_records([run(task="t0", score=1.0)]),
                             skipped={f"_runlog.jsonl line with status 'status {i:04d}'": 1 for i in range(1500)})
    write_summary("log.jsonl", tmp_path, quiet=True, loaded=(rs, []))
    for name in ("summary.html", "summary.md"):
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert text.count("not a run, counted and left out: 1 ×") == ROWS, name
        assert "status 0999" in text and "status 1000" not in text
        assert "... and 500 more reasons, each with its count in" in text


def test_the_opening_s_cards_and_section_pages_cut_long_texts_and_list_the_first_1000_rows(tmp_path):
    """The index's four cards and each section page, from saved tables of 1,200 agents (one named with 50,000
    characters), and a plain table with a 50,000-character cell and column name, as the report writes them."""
    from ambiglib.answers._headline import QUESTIONS, SHOWN
    from ambiglib.report import save_table
    from ambiglib.report._index import _write_index
    from ambiglib.report._runner import NotebookResult

    n, agents = 50_000, 1200
    results = []
    for question in QUESTIONS:
        spec = SHOWN[question]
        names = ["G" * n, *(f"agent {i:04d}" for i in range(1, agents))]
        frame = pd.DataFrame({"benchmark": ["b"] * agents,
                              **{c: names if fmt == "text" else np.linspace(0, 1, agents) for c, _, fmt in spec}})
        save_table(frame, question, tmp_path / "tables" / f"q_{question}", max_rows=None)
        results.append(NotebookResult(name=f"q_{question}", seconds=1.0, tables=[question]))
    plain = pd.DataFrame({"H" * n: ["C" * n, "short"]})
    save_table(plain, "t", tmp_path / "tables" / "nb")
    results.append(NotebookResult(name="nb", seconds=1.0, tables=["t"]))
    (tmp_path / "summary.json").write_text(json.dumps({"runs": 1}), encoding="utf-8")
    _write_index(tmp_path, results, tmp_path / "log.jsonl", 1.0, tmp_path, {})
    more = f"… ({n - CHARS:,} more characters)"
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    cards = re.findall(r"<table class='compact'.*?</table>", index)
    assert len(cards) == len(QUESTIONS)
    for card in cards:
        assert card.count("<tr data-row=") == ROWS and f"{'G' * CHARS}{more}" in card
    assert index.count("the first 1,000 of 1,200 rows; every one: the table's csv") == len(QUESTIONS)
    assert _longest(index, "G") == CHARS
    for question in QUESTIONS:
        section = (tmp_path / "sections" / f"q_{question}.html").read_text(encoding="utf-8")
        assert section.count("<tr data-row=") == ROWS and _longest(section, "G") == CHARS
        assert f"first 1,000 of 1,200 rows; every row is in {question}.csv" in section
        assert len(pd.read_csv(tmp_path / "tables" / f"q_{question}" / f"{question}.csv")) == agents
    section = (tmp_path / "sections" / "nb.html").read_text(encoding="utf-8")
    assert f"{'C' * CHARS}{more}" in section and f"{'H' * CHARS}{more}" in section
    assert _longest(section, "C") == CHARS and _longest(section, "H") == CHARS


def test_a_saved_table_s_markdown_and_tex_cut_a_long_text(tmp_path):
    """The .md and .tex renderings of a table, as its page: the .csv keeps the whole text."""
    from ambiglib.report import save_table

    n = 50_000
    save_table(pd.DataFrame({"model": ["Z" * n, "short"], "score": [0.5, 1.0]}), "t", tmp_path)
    more = f"… ({n - CHARS:,} more characters)"
    for ext in ("md", "tex"):
        text = (tmp_path / f"t.{ext}").read_text(encoding="utf-8")
        assert f"{'Z' * CHARS}{more}" in text and _longest(text, "Z") == CHARS, ext
    assert pd.read_csv(tmp_path / "t.csv")["model"][0] == "Z" * n


def test_a_notebook_s_table_cuts_a_long_text():
    """What show_table gives a notebook (its HTML page): a cell and a column name of 50,000 characters, cut."""
    from ambiglib.report import show_table

    n = 50_000
    shown = show_table(pd.DataFrame({"X" * n: ["Y" * n], "score": [0.5]}), "t", None).data
    more = f"… ({n - CHARS:,} more characters)"
    assert f"{'Y' * CHARS}{more}" in shown and f"{'X' * CHARS}{more}" in shown
    assert _longest(shown, "X") == CHARS and _longest(shown, "Y") == CHARS


def test_a_table_in_a_notebook_cuts_a_long_caption_and_note():
    """A table's own display (Table._repr_html_): its note names a log's models ("model-a vs model-b")."""
    n = 50_000
    empty, full = Table(pd.DataFrame({"model": []})), Table(pd.DataFrame({"model": ["m"]}))
    for table in (empty, full):
        table.attrs = {"caption": "K" * n, "note": "W" * n}
        shown = table._repr_html_()
        more = f"… ({n - CHARS:,} more characters)"
        assert f"{'K' * CHARS}{more}" in shown and f"{'W' * CHARS}{more}" in shown
        assert _longest(shown, "K") == CHARS and _longest(shown, "W") == CHARS


# ----------------------------------------------------------------------------- Markdown

#: what a log can name a model, a label or a task to make a Markdown table show a link or an image
LINKS = ["[click](javascript:alert(1))", "![](http://host/img.png)", "<http://host/auto>", "[ref]", "[ref]: http://host",
         "\\[escaped](javascript:alert(2))", "![x](javascript:alert(3) \"t\")", "<javascript:alert(4)>"]


def _inline_tokens(md: str) -> list:
    """Every inline token a CommonMark renderer with GFM tables (markdown-it-py) reads in ``md``, every link target
    allowed (markdown-it refuses ``javascript:`` ones itself; a renderer need not)."""
    markdown_it = pytest.importorskip("markdown_it")
    renderer = markdown_it.MarkdownIt("commonmark").enable("table")
    renderer.validateLink = lambda url: True
    tokens = renderer.parse(md)
    return [child for token in tokens for child in (token.children or [])]


def _rendered_text(md: str) -> str:
    return "".join(t.content for t in _inline_tokens(md) if t.type in ("text", "text_special"))


def test_a_markdown_table_shows_link_and_image_syntax_as_text(tmp_path):
    """A saved table's .md, read by a CommonMark renderer: no link, image or HTML, and each cell's text as written."""
    from ambiglib.report import save_table

    frame = pd.DataFrame({"model": LINKS, "score": np.linspace(0, 1, len(LINKS))})
    frame.attrs["note"] = LINKS[0]
    save_table(frame, "t", tmp_path)
    md = (tmp_path / "t.md").read_text(encoding="utf-8")
    tokens = _inline_tokens(md)
    assert [t.type for t in tokens if t.type in ("link_open", "image", "html_inline")] == []
    text = _rendered_text(md)
    for cell in LINKS:
        assert cell in text


def test_summary_md_shows_a_model_named_as_a_link_as_text(tmp_path):
    from ambiglib.report import write_summary

    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(run(task="t0", model=m, score=1.0)) + "\n" for m in LINKS), encoding="utf-8")
    write_summary(log, tmp_path / "out", quiet=True)
    md = (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")
    assert [t.type for t in _inline_tokens(md) if t.type in ("link_open", "image", "html_inline")] == []
    text = _rendered_text(md)
    for cell in LINKS:
        assert cell in text


def test_a_markdown_list_item_cannot_define_a_link_for_a_bracketed_name():
    """summary.md lists rejected records and skipped rows, each a text of the log's: one opening ``[x]: url`` defined
    the link that ``[x]`` elsewhere then was."""
    from ambiglib.report._rendering import _markdown_cell

    md = "".join(f"- {_markdown_cell(t)}\n" for t in ("[x]: javascript:alert(1)", "  [y]: http://host", "[x] [y]"))
    assert [t.type for t in _inline_tokens(md) if t.type in ("link_open", "image", "html_inline")] == []
    text = _rendered_text(md)
    assert "[x]: javascript:alert(1)" in text and "[y]: http://host" in text and "[x] [y]" in text


def test_a_markdown_cell_escapes_what_makes_a_link_and_nothing_else():
    """The exact escaping, for a renderer this test cannot run: CommonMark's backslash escape of the ``](`` that closes
    a link's text and of a ``[`` opening the text, after each backslash (``\\[a](b)`` was no link, and would be one
    with its ``]`` escaped alone); HTML's of ``<``, ``>`` and ``&`` (``<http://…>`` is no autolink once ``&lt;``).
    Other brackets are kept: a terminal shows a name as it is."""
    from ambiglib.report._rendering import _markdown_cell

    assert _markdown_cell("![a](javascript:x)") == "![a\\](javascript:x)"
    assert _markdown_cell("[a](b)") == "\\[a\\](b)"
    assert _markdown_cell("\\[a](b)") == "\\\\[a\\](b)"
    assert _markdown_cell("<http://h> & |") == "&lt;http://h&gt; &amp; \\|"
    assert _markdown_cell("x[2J ]0; [a] b") == "x[2J ]0; [a] b"


def test_pages_stay_tag_free_when_a_cut_falls_inside_an_escape(tmp_path):
    """A cut counts the log's characters before escaping: 1,999 letters then ``<script>`` is cut inside the tag's
    text, which is escaped whole, never half a tag."""
    text = "x" * (CHARS - 1) + "<script>alert(1)</script>"
    rs = RunSet.from_records([task("t0", n_blockers=1),
                              run(task="t0", model=text, score=1.0, questions=[q("b0", text)])])
    write_evidence_pages(headline.question_quality(rs, n_boot=20), "q", tmp_path / "out")
    for page in _pages(tmp_path / "out"):
        content = page.read_text(encoding="utf-8")
        assert "script" not in [tag for tag, _ in parse(content).starts]
        assert "x" * (CHARS - 1) + "&lt;… (24 more characters)" in content
