"""Values for every ``report_*.html`` and ``card_*.html`` template (ambiglib/templates) with hostile text wherever a
value from a log can appear: ``CASES[template]`` is the keyword values for ``ambiglib._markup.render(template, ...)``.

A value that is markup already (a frame's table, a card table, a style sheet) is given as :class:`Markup` made
the way the report makes it, from the same hostile text. The links the report URL-quotes (a notebook's, a table's, a
figure's, a section's on the index) are given ``javascript:`` text too; the links it writes as they are (a card's
section, an evidence page, a page in the list of what the log cannot answer) are built by the report from notebook
file names, never from a log, and are given paths.
"""

from __future__ import annotations

import pandas as pd
from hostile_html import HOSTILE
from hostile_html import text as _text

from ambiglib._markup import Markup, render
from ambiglib.report._index import _frame_cells

#: a link target from a log: the report URL-quotes it, so that it cannot be a javascript: URL
URL = "javascript:alert(1)//" + HOSTILE


_FRAME = pd.DataFrame({_text("column"): [_text("cell"), None], "score": [0.5, 1.0]})
#: a saved table's plain table as the report writes it (report_frame.html), named by a notebook and table from a log
_PLAIN = {"notebook": URL, "name": URL, **_frame_cells(_FRAME)}

_CARD_TABLE = {
    "notebook": _text("notebook"), "name": _text("table"),
    "head": [(_text("heading"), "text"), (_text("heading 2"), "num"), (_text("heading 3"), "num")],
    "rows": [
        {"i": 0, "bench": _text("benchmark"), "suites": _text("suites"), "cells": [
            {"kind": "text", "text": _text("agent"), "wrap": False, "link": "evidence/nb/asking/0.html"},
            {"kind": "number", "text": "82%", "ci": ("70%", "89%")},
            {"kind": "missing", "cls": "num", "mark": 1}]},
        {"i": 1, "bench": None, "suites": None, "cells": [
            {"kind": "text", "text": _text("pair"), "wrap": True, "link": None},
            {"kind": "number", "text": "<0.001", "ci": None},
            {"kind": "missing", "cls": "text", "mark": None}]},
    ],
    "reasons": [_text("reason"), _text("reason 2")],
    "total": "5,000",
}
_COMPACT = render("card_table.html", **_CARD_TABLE)

_CARD_ANSWERS = {"cards": [{"name": _text("question name"), "question": _text("question"),
                            "section": "sections/1_does_it_ask_when_it_should.html",
                            "answer": [_text("answer"), _text("answer 2")], "table": _COMPACT,
                            "notes": [_text("intervals and tests"), _text("note")]}]}

_UNANSWERED = {"items": [
    (_text("why"), [{"page": None, "text": _text("question (what)")},
                    {"page": "sections/lhaw_dimensions.html", "title": _text("section title"),
                     "text": _text("caption")}]),
    (_text("why 2"), [{"page": "lhaw_dimensions.html", "title": _text("title"), "text": _text("name")}]),
]}
_UNANSWERED_LIST = render("report_unanswered.html", **_UNANSWERED)

_FIRST = [_text("mapping warning"), _text("rejected")]

_STYLE = Markup("body{color:#222}.card{border:1px solid #ccd}")

_TABLE_PLAIN = {"notebook": URL, "name": URL, "caption": _text("caption"), "answer": [_text("answer")],
                "prefix": "../", "base": f"tables/{URL}/{URL}", "compact": None,
                "table": render("report_frame.html", **_PLAIN),
                "notes": [_text("cut"), _text("note"), _text("empty reason")]}

CASES: dict[str, dict] = {
    "card_table.html": _CARD_TABLE,
    "card_answers.html": _CARD_ANSWERS,
    "report_unanswered.html": _UNANSWERED,
    "report_first.html": {"first": _FIRST},
    "report_page.html": {"title": _text("title"), "style": _STYLE},
    "report_note.html": {"note": _text("note")},
    "report_shown_table.html": {
        "answer": [_text("answer")], "below": [_text("intervals"), _text("note")],
        "table": Markup(_FRAME.style.format(escape="html").format_index(escape="html", axis="columns").to_html())},
    "report_table.html": _TABLE_PLAIN,
    "report_frame.html": _PLAIN,
    "report_summary.html": {
        "title": _text("title"), "style": _STYLE, "runs": _text("run log"), "first": _FIRST,
        "items": [_text("count"), _text("skipped")], "rejected": [_text("rejected"), _text("rejected 2")],
        "more_rejected": "1,234", "table": render("report_frame.html", **{**_PLAIN, "notebook": None}),
        "cut_rows": _text("cut")},
    "report_section.html": {
        "title": _text("title"), "style": _STYLE, "notebook": URL, "description": _text("description"),
        "seconds": "1.5", "error": _text("error"),
        "items": [{"table": render("report_table.html", **_TABLE_PLAIN)},
                  {"table": render("report_table.html", **{**_TABLE_PLAIN, "compact": _COMPACT, "table": None})},
                  {"table": None, "name": URL, "png": f"figures/{URL}/{URL}.png"}],
        "found": [{"caption": _text("found caption"), "note": _text("found note")}],
        "missing": [{"name": _text("missing name"), "caption": _text("missing caption"),
                     "note": _text("missing note")}]},
    "report_index.html": {
        "title": _text("title"), "style": _STYLE, "runs": _text("run log"), "lead": _text("lead"), "rejected": "3",
        "failed": [_text("failure")], "first": _FIRST, "cards": render("card_answers.html", **_CARD_ANSWERS),
        "unanswered": _UNANSWERED_LIST, "notebooks": 2, "wall": "1.0",
        "not_run": [{"name": _text("notebook"), "title": _text("not run"), "part": "lhaw", "needs": _text("needs")}],
        "parts": [{"heading": _text("part"), "sections": [{"page": URL, "title": _text("section title"),
                                                           "what": _text("what")}]}]},
}
