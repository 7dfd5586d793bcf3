"""The evidence pages' and run pages' templates, and a notebook's answer card (``evidence_*.html``,
``dialogue_*.html``, ``run_*.html``, ``answer_*.html``; tests/test_templates.py checks each keeps a log's text
text): what the pages say around it: a long content cut with its length, a missing value a "–", the parts of a
page one a line, a page's hidden characters shown."""

from __future__ import annotations

from hostile_html import ESCAPED, HOSTILE, parse
from markupsafe import escape
from template_cases_evidence import _TURNS, CASES

from ambiglib._markup import render
from ambiglib.evidence._dialogues import _turn


def _page(template: str) -> str:
    return str(render(template, **CASES[template]))


def test_a_long_content_is_cut_with_its_length_shown_and_short_ones_are_whole():
    page = _page("dialogue_turns.html")
    content = _TURNS[1]["content"]
    assert len(content) > 2_000
    assert f"<pre>{escape(content[:2_000])}</pre><span class='cut'>… cut: {len(content):,} characters in all, 2,000" \
           " shown</span>" in page
    assert page.count("… cut:") == 1  # the question's arguments, the answer and the prompt are short: whole
    # a call with no text shows its arguments alone; a turn with neither says it has no text
    assert "turn 3 · assistant</div><div class='cut'>arguments</div><pre>arguments as text: &lt;script&gt;" in page
    assert "turn 4 · assistant</div><span class='cut'>(empty)</span></div>" in page
    silent = str(render("dialogue_turns.html", items=[_turn(7, {"role": "system"})]))
    assert silent == ("<div class='turn system'><div class='who'>turn 7 · system</div>"
                      "<span class='cut'>(no text)</span></div>")


def test_a_turn_says_who_speaks_what_it_asks_and_answers_and_a_run_page_anchors_each():
    page = _page("dialogue_turns.html")
    assert "<div class='turn other asks' id='turn-1'><div class='who'>turn 1 · role: &lt;script&gt;" in page
    assert "· asks question 0</div>" in page and "turn 2 · tool · result of tool: " in page
    assert " · answers question 0</div>" in page
    assert page.count("</div>\n<div class='turn") == len(_TURNS) - 1  # on a run's page, one a line
    run = _page("run_page.html")
    assert [f"turn-{i}" for i in range(5)] == [attrs["id"] for _, attrs in parse(run).starts if "id" in attrs]


def test_one_table_writes_a_missing_value_as_each_page_did():
    """An evidence page's table mutes the "–" in its cell; a run page's mutes the cell; a score shows to three
    decimals; the run column links to the run's page."""
    table = _page("evidence_table.html")
    assert table.startswith("<div class='wide'><table><thead><tr><th>run</th><th>column: &lt;script&gt;")
    assert "<td class='text'><span class='muted'>–</span></td><td><span class='muted'>–</span></td></tr>" in table
    assert "<td>0.500</td>" in table and "<td><a href='../runs/" in table and ".html'>open</a></td>" in table
    run = _page("run_page.html")
    assert "<tr><td class='text'>score</td><td class='muted'>–</td></tr>" in run


def test_a_page_says_how_many_rows_it_leaves_out():
    listed = _page("evidence_listed.html")
    assert "</table></div><p class='muted'>… 4,000 more beyond the first 1,000 of 5,000 what: &lt;script&gt;" in listed
    assert "the first 1,000 of 5,000 what: " in listed and "<code>table.evidence(row)</code> in Python</p>" in listed
    few = str(render("evidence_listed.html", listed=CASES["evidence_listed.html"]["listed"]._replace(total=2)))
    assert "the first" not in few and few.endswith("</table></div>")


def test_the_parts_of_a_page_are_one_a_line_and_no_template_adds_a_line_at_its_end():
    body = _page("evidence_body.html")
    lines = body.split("\n")
    assert lines[0].startswith("<p>scope: ") and lines[1].startswith(
        "<h2>Questions in their dialogue (1; 1 whose transcript could not be read)</h2>")
    assert [line for line in lines if line.startswith("<h2>") and "dialogue" not in line] == [
        "<h2>Questions (5000)</h2>", "<h2>Runs (5000)</h2>", "<h2>Judge labels (5000)</h2>"]
    assert "; – where this report wrote none: it writes 500 run pages a table at most" in body
    for template in CASES:
        assert not _page(template).endswith("\n"), template
    run = _page("run_page.html")
    assert run.endswith("<p class='cut'>… 3 more turns; every one: <code>rs.transcript(run_id)</code> in Python</p>"
                        "</body></html>")


def test_a_card_without_rows_says_why():
    page = str(render("answer_card.html", question=HOSTILE, why=HOSTILE))
    assert page.startswith("<div class='ambiglib-answer card'><h2>&lt;script&gt;") and ESCAPED in page
    assert "<style>" not in page and "<img" not in page


def test_an_evidence_page_shows_a_hidden_character_of_a_log_as_its_escape(tmp_path):
    """The page is written through ``ambiglib._text.visible``: a right-to-left override in a model's name shows as
    its escape, and the text around it stays escaped."""
    from builders import q, run, task

    from ambiglib.answers import _headline as headline
    from ambiglib.evidence._rows import write_evidence_pages
    from ambiglib.runset import RunSet

    rs = RunSet.from_records([task("t0", n_blockers=1),
                              run(task="t0", model="gpt\u202e-5" + HOSTILE, score=1.0, questions=[q("b0", HOSTILE)])])
    pages = write_evidence_pages(headline.question_quality(rs, n_boot=20), "q", tmp_path, title=HOSTILE)
    text = pages[0].read_text(encoding="utf-8")
    assert "\u202e" not in text and "gpt\\u202e-5&lt;script&gt;" in text
    assert ESCAPED in text and "<script" not in text
    runs = list((tmp_path / "evidence" / "runs").glob("*.html"))
    assert runs and all("\u202e" not in p.read_text(encoding="utf-8") for p in runs)


def test_a_column_s_texts_are_escaped_as_the_template_escapes_each_even_one_holding_the_joining_character():
    """``escape_each`` joins a column's texts to escape them in one call: each comes back as markupsafe escapes it
    alone, also when a text holds the joining character (then one at a time) or is empty."""
    from ambiglib._markup import escape_each

    texts = [HOSTILE, "", "a & b", "'\"<>", "plain", "é — ✓", "\n\t"]
    assert escape_each(texts) == [str(escape(t)) for t in texts]
    with_joiner = [*texts, "x\x00<y>"]
    assert escape_each(with_joiner) == [str(escape(t)) for t in with_joiner]
    assert escape_each([]) == [] and escape_each([""]) == [""]


def test_a_table_s_cells_are_the_cell_macro_s_around_each_escaped_text():
    """A table's body is what the template's ``cell`` macro writes for each value, row by row, each row in its
    ``<tr>``; a table of no column still has its rows."""
    from ambiglib._markup import macro
    from ambiglib.evidence._dialogues import _Table

    cell = macro("evidence_table.html", "cell")
    kinds, values = ["text", "link", ""], [[HOSTILE, None], ["../runs/a.html", None], [None, "0.500"]]
    for blank_td in (False, True):
        table = _Table(["a", "b", "c"], kinds, values, 2, blank_td=blank_td)
        rows = ["<tr>" + "".join(str(cell(k, column[r], blank_td)) for k, column in zip(kinds, values)) + "</tr>"
                for r in range(2)]
        assert _body(render("evidence_table.html", table=table)) == "".join(rows)
    assert _body(render("evidence_table.html", table=_Table([], [], [], 3))) == "<tr></tr>" * 3


def _body(page: str) -> str:
    """What a rendered table holds between ``<tbody>`` and ``</tbody>``."""
    return page.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
