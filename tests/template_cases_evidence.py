"""Values for every ``evidence_*.html``, ``dialogue_*.html``, ``run_*.html`` and ``answer_*.html`` template
(ambiglib/templates) with hostile text wherever a value from a log can appear: ``CASES[template]`` is the keyword
values for ``ambiglib._markup.render(template, ...)``.

The values are made by the same code that makes them for the report (a frame's table by
``ambiglib.evidence._rows._html_table``, a turn by ``ambiglib.evidence._dialogues._turn``, ...) from hostile text, and a value that is
markup already (a dialogue, a page's body, a card's table) is the output of ``render`` from such values. The links
these templates write (a run's page, a turn on it, the report's index) are built by the report from a hash of the
run id and a turn's number, never from a log's text: they are given as the report builds them, from a hostile run id.
"""

from __future__ import annotations

import pandas as pd
from hostile_html import text as _text

from ambiglib._markup import Markup, render
from ambiglib.evidence._dialogues import _collapsed, _Item, _Listed, _table, _Transcript, _turn, run_page_name
from ambiglib.evidence._rows import _Dialogue, _html_table, _Link, _listed
from ambiglib.transcripts import Viewer

#: a run's page as the report names it: a hash of its (hostile) run id
_RUN_PAGE = "../runs/" + run_page_name(_text("run_id"))

_FRAME = pd.DataFrame({
    "run": [_Link(_RUN_PAGE), None],
    _text("column"): [_text("cell"), None],
    "text": [_text("question"), float("nan")],
    "score": [0.5, None],
})
_TABLE = _html_table(_FRAME, ("text",))
_RUN_TABLE = _table([{"field": _text("field"), "value": _text("value")}, {"field": "score", "value": None}],
                    ["field", "value"])
_LISTED = _listed(_FRAME, _text("what"), ("text",), 5_000)
#: a run page's questions (labels) as it lists them: the first of many, and where every one is
_RUN_LISTED = _Listed(_RUN_TABLE, _text("what"), 5_000, 2, "rs.questions[rs.questions.run_id == run_id]")

_TURNS = [
    {"role": "user", "content": _text("prompt")},
    {"role": _text("role"), "content": _text("content") + "x" * 2_500, "tool_name": _text("tool"),
     "tool_args": {"question": _text("argument")}, "q_index": 0},
    {"role": "tool", "content": _text("answer"), "tool_name": _text("tool"), "answers": 0},
    {"role": "assistant", "content": None, "tool_args": _text("arguments as text")},
    {"role": "assistant", "content": ""},
]
_VIEWS = [_turn(i, t) for i, t in enumerate(_TURNS)]

_EXCERPT = {
    "parts": [*_collapsed(list(enumerate(_TURNS[:1])), "earlier {}"), _VIEWS[1], _Item("unanswered"),
              *_collapsed([(2, _TURNS[2]), (3, _TURNS[3])], "{} between"), _Item("final"), _VIEWS[4]],
    "n_turns": len(_TURNS), "covers": _text("covers"), "note": _text("note"), "href": _RUN_PAGE + "#turn-1",
}
_DIALOGUE = render("dialogue_excerpt.html", **_EXCERPT)

_DIALOGUES = {
    "shown": 1, "more": True,
    "items": [_Dialogue(None, 0, _text("task_id"), _text("trial"), _text("question"), _DIALOGUE),
              _Dialogue(_text("error reading a transcript"))],
}

_BODY = {
    "scope": _text("scope"), "dialogues": render("evidence_dialogues.html", **_DIALOGUES),
    "linked": {"all": False, "most": 500}, "common": _text("common"),
    "n_questions": 5_000, "n_runs": 5_000, "n_labels": 5_000,
    "questions": _LISTED, "runs": _LISTED, "labels": _LISTED,
}

#: a card's table as cards.compact_table writes it (markup); here a frame's table from the same hostile text
_CARD_TABLE = render("evidence_table.html", table=_TABLE)

# the way to a sample in Inspect's viewer: the log's names in it (its URL is ambiglib's own, the names in it quoted;
# here without a scheme, as every link a case checks)
_VIEWER = Viewer(_text("file"), _text("sample"), 2, _text("command"), "logs/x/samples/sample/1/2/")

CASES: dict[str, dict] = {
    "evidence_table.html": {"table": _TABLE},
    "evidence_listed.html": {"listed": _LISTED},
    "evidence_body.html": _BODY,
    "evidence_page.html": {
        "caption": _text("caption"), "row": 1, "style": Markup("body{color:#222}"), "table": _LISTED,
        "tasks": {"n": 3, "moved": 2, "listed": _LISTED}, "body": render("evidence_body.html", **_BODY)},
    "evidence_dialogues.html": _DIALOGUES,
    "dialogue_turns.html": {"items": [_turn(i, t, on_page=True) for i, t in enumerate(_TURNS)]},
    "dialogue_excerpt.html": _EXCERPT,
    "run_page.html": {
        "run_id": _text("run_id"), "style": Markup("body{color:#222}"), "back": "../../../index.html",
        "fields": _RUN_TABLE, "absent": _text("absent"), "n_questions": 5_000, "unmarked": True,
        "questions": _RUN_LISTED, "n_labels": 5_000, "labels": _RUN_LISTED, "why_none": _text("why none"),
        "transcript": _Transcript(len(_TURNS), _text("covers"), _text("note"), _text("where"),
                                  [_turn(i, t, on_page=True) for i, t in enumerate(_TURNS)], 3),
        "viewer": _VIEWER},
    "answer_card.html": {
        "question": _text("question"), "why": None, "style": Markup(".ambiglib-answer .card{margin:0}"),
        "answer": [_text("answer"), _text("answer 2")], "table": _CARD_TABLE,
        "notes": [_text("intervals"), _text("note")], "comparison": True},
    # what a notebook shows of a run set, a table and a comparison task by task
    "runset.html": {"totals": _text("totals"), "columns": [_text("column")], "rows": [[_text("cell"), "12"]],
                    "more": 3, "models": _text("models"), "extra": 2, "counts": _text("counts")},
    "table_display.html": {"caption": _text("caption"), "note": _text("note"), "body": _TABLE},
    "transcript.html": {"headline": _text("headline"), "viewer_file": _text("file"), "viewer_sample": _text("sample"),
                        "viewer": _VIEWER,
                        "body": _TABLE},
    "task_list.html": {"answer": [_text("answer")], "table": render("table_display.html", caption=_text("caption"),
                                                                     note="", body=None)},
}
