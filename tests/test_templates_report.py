"""The report's pages (``report_*.html``, ``card_*.html``) keep text from a log text beyond what every template's
check says (tests/test_templates.py): a link the report URL-quotes cannot be a ``javascript:`` URL, and the pages a
report writes from hostile tables, notes and names hold no tag of them."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pandas as pd
import pytest
from hostile_html import HOSTILE, Elements, parse
from template_cases_report import CASES

from ambiglib._markup import render

#: the templates whose links the report URL-quotes (a notebook's, a table's files, a figure, a section on the index)
URL_QUOTED = {"report_index.html", "report_section.html", "report_table.html"}


def _assert_hostile_text_stays_text(page: str) -> Elements:
    parsed = parse(page)
    tags = [tag for tag, _ in parsed.starts]
    assert "script" not in tags and "textarea" not in parsed.ends
    assert not [attrs for tag, attrs in parsed.starts if tag == "img" and attrs.get("src") == "x"]
    # the only handler is the template's own, on a figure: it marks the image as drawn
    assert {name for _, attrs in parsed.starts for name in attrs if name.startswith("on")} <= {"onload"}
    return parsed


@pytest.mark.parametrize("template", sorted(URL_QUOTED))
def test_a_link_from_a_name_is_url_quoted_never_a_javascript_url(template):
    page = str(render(template, **CASES[template]))
    targets = [v for _, attrs in parse(page).starts for k, v in attrs.items() if k in ("href", "src") and v]
    assert targets and "javascript%3Aalert%281%29" in page
    assert not [t for t in targets if ":" in t.split("/")[0]]  # no scheme: each is a path in the report


def test_a_card_table_escapes_a_p_value_below_its_smallest_shown():
    """"<0.001" is text in a cell, not the start of a tag."""
    page = str(render("card_table.html", **CASES["card_table.html"]))
    assert "<td>&lt;0.001</td>" in page


def test_the_report_pages_keep_a_log_s_text_as_text(tmp_path):
    """The index, a section and the opening's cards, written from notebooks' results whose names, captions, notes
    and errors hold hostile text, as the report writes them."""
    from ambiglib.answers._headline import QUESTIONS, SHOWN
    from ambiglib.report import save_table
    from ambiglib.report._index import _write_index
    from ambiglib.report._runner import NotebookResult

    results = []
    for question in QUESTIONS:
        spec = SHOWN[question]
        frame = pd.DataFrame({"benchmark": ["b", HOSTILE],
                              **{c: [HOSTILE, "m"] if fmt == "text" else [0.5, np.nan] for c, _, fmt in spec}})
        frame.attrs = {"answer": [HOSTILE], "note": HOSTILE, "caption": HOSTILE,
                       "empty": {c: HOSTILE for c, _, fmt in spec if fmt != "text"},
                       "gaps": [c for c, _, fmt in spec if fmt != "text"]}
        save_table(frame, question, tmp_path / "tables" / f"q_{question}", caption=HOSTILE)
        (tmp_path / "evidence" / f"q_{question}" / question).mkdir(parents=True)
        results.append(NotebookResult(name=f"q_{question}", seconds=1.0, tables=[question]))
    other = pd.DataFrame({HOSTILE: [HOSTILE], "score": [np.nan]})
    other.attrs = {"note": HOSTILE, "empty": {"score": HOSTILE}, "answer": [HOSTILE]}
    save_table(other, "t", tmp_path / "tables" / "nb")
    results.append(NotebookResult(name="nb", seconds=1.0, tables=["t"], figures=["javascript:alert(1)"],
                                  error=HOSTILE, notes=[{"name": HOSTILE, "caption": HOSTILE, "note": HOSTILE,
                                                         "kind": "table"}]))
    (tmp_path / "summary.json").write_text(json.dumps({"runs": 1, "first": [HOSTILE]}), encoding="utf-8")
    info = {r.name: {"title": HOSTILE, "description": HOSTILE} for r in results}
    _write_index(tmp_path, results, Path(HOSTILE), 1.0, tmp_path, info)
    pages = [tmp_path / "index.html", *sorted((tmp_path / "sections").glob("*.html"))]
    assert len(pages) == 1 + len(results)
    for page in pages:
        text = page.read_text(encoding="utf-8")
        parsed = _assert_hostile_text_stays_text(text)
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
        figures = [attrs["src"] for tag, attrs in parsed.starts if tag == "img"]
        assert all(src.startswith("../figures/") for src in figures)
    assert "src='../figures/nb/javascript%3Aalert%281%29.png'" in (tmp_path / "sections" / "nb.html").read_text()


class _Cells(HTMLParser):
    """Each row of a page's tables as the texts of its ``th`` and ``td`` cells, as a browser reads them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in ("th", "td"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("th", "td") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _cells(page: str) -> list[list[str]]:
    parser = _Cells()
    parser.feed(page)
    parser.close()
    return parser.rows


def test_a_plain_table_reads_as_pandas_wrote_it_a_missing_value_a_dash():
    """The report's plain table (a saved table on its section's page, the runs on "What was read") is written by
    report_frame.html from the frame's values: each heading and cell reads as pandas' ``to_html`` wrote them before
    (numbers to three decimals, a text on one line, the blanks around it left out), but that every missing value
    is the "–" that pandas wrote for NaN alone (it wrote a missing count ``<NA>`` and a missing text ``None``)."""
    from ambiglib.report._index import _frame_table

    frame = pd.DataFrame({
        " score ": [0.5, np.nan, np.inf, -0.0, 1 / 3],
        "n": pd.array([1, None, 3, 40, 5], dtype="Int64"),
        "n_runs": [1, 2, 3, 4, 5],
        HOSTILE: [HOSTILE, None, " two\nlines\tand a tab ", np.nan, "  "],
        "passed": [True, False, True, True, False],
        "mixed": [1.5, 2, "x", 2.25, None],
    })
    pandas = _cells(frame.to_html(index=False, na_rep="–", float_format=lambda x: f"{x:.3f}", escape=True))
    pandas[1:] = [["–" if v in ("<NA>", "None") else v for v in row] for row in pandas[1:]]
    page = str(_frame_table(frame, "q 1", HOSTILE))
    assert _cells(page) == pandas
    assert pandas[2] == ["–", "–", "2", "–", "False", "2"] and pandas[3][3] == "two\\nlines\\tand a tab"
    table = next(attrs for tag, attrs in parse(page).starts if tag == "table")
    assert table == {"class": "dataframe report-table", "data-table": "q%201/" + quote(HOSTILE, safe="/")}
    assert page.count("<tr>") == 1 + len(frame) and "<script" not in page
    assert "data-table" not in str(_frame_table(frame))  # the runs on "What was read": no saved table
    assert _cells(str(_frame_table(frame.iloc[:0]))) == [pandas[0]]
