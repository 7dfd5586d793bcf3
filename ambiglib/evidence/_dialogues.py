"""Each question in its dialogue: the turns around a question of a run's transcript, and a page per run.

An evidence page (:mod:`ambiglib.evidence._rows`) shows its first questions in the conversation they were asked in:
the turns before (the earlier ones collapsed), the question, the answer, the agent's next turn and its final
answer. Every run it lists links to the run's own page: its outcome, questions, judge labels and whole
transcript. The pages are written from templates with autoescape (``dialogue_*.html``, ``run_page.html``, and
``evidence_table.html`` for their tables): every text is escaped, every long content and table cell cut on the page
with its length shown, and every table cut at :data:`ambiglib._text.SHOWN_ROWS` rows, saying how many more. The transcripts are read from the log one run at a time, a few kept (:class:`TranscriptCache`),
never all at once.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple

import pandas as pd

from ambiglib._markup import Markup, escape_each, macro, render, stylesheet
from ambiglib._text import BRIEF_CHARS, SHOWN_CHARS, SHOWN_ROWS, cut
from ambiglib.transcripts import COVERS_TEXT, describe, locator, read_turns, viewer, why_none

__all__ = ["TranscriptCache", "dialogue_html", "excerpt", "run_page", "run_page_name", "STYLE", "CONTENT_CHARS"]

#: characters of a turn's content (or its tool arguments) a page shows; the rest is cut, its length said
CONTENT_CHARS = SHOWN_CHARS
#: earlier turns shown before a question (the ones before them are collapsed)
BEFORE = 2
#: turns a run's page shows; a longer transcript's rest is counted, and read whole with ``rs.transcript``
RUN_PAGE_TURNS = 2000

STYLE = stylesheet("dialogues")  # (templates/dialogues.css)


class TranscriptCache:
    """The transcripts read for one set of pages, by run id: the newest :attr:`keep` kept (a run's questions are
    shown on several pages, and its own page reads it again), none read twice while kept."""

    def __init__(self, keep: int = 64):
        self.keep = keep
        self._kept: OrderedDict[str, dict[str, Any] | None] = OrderedDict()
        self.reads = 0

    def get(self, run: dict[str, Any]) -> dict[str, Any] | None:
        run_id = str(run["run_id"])
        if run_id in self._kept:
            self._kept.move_to_end(run_id)
            return self._kept[run_id]
        self.reads += 1
        record = read_turns(run)
        self._kept[run_id] = record
        if len(self._kept) > self.keep:
            self._kept.popitem(last=False)
        return record


def run_page_name(run_id: str) -> str:
    """The file of a run's page: a run id holds any character a log gives it, a file name only these."""
    return hashlib.sha256(run_id.encode("utf-8")).hexdigest()[:20] + ".html"


class _Part(NamedTuple):
    """A turn's content or its tool call's ``arguments`` as a page shows it: ``text`` its first ``limit``
    characters (None: no text), ``length`` its whole length where it was cut (else 0)."""

    text: str | None
    length: int
    limit: int
    arguments: bool


def _cut(text: str | None, arguments: bool = False, limit: int = CONTENT_CHARS) -> _Part:
    if text is None or len(text) <= limit:
        return _Part(text, 0, limit, arguments)
    return _Part(text[:limit], len(text), limit, arguments)


def _args(args: Any) -> str:
    return args if isinstance(args, str) else json.dumps(args, ensure_ascii=False, sort_keys=True)


class _Item(NamedTuple):
    """What dialogue_turns.html shows, in order: a turn (``kind`` "turn": its classes, who speaks, its parts, its
    anchor on a run's page, and whether it starts a line), or around turns: "open" (the turns up to "close"
    collapsed under ``text``), "close", "final" (the agent's final answer follows), "unanswered" (no turn answers
    the question). The template unpacks each item (a field read by name cost a call per field and turn)."""

    kind: str
    text: str = ""
    classes: str = ""
    anchor: str = ""
    parts: list[_Part] = []
    newline: bool = False


def _turn(i: int, turn: dict[str, Any], on_page: bool = False) -> _Item:
    """One turn: who speaks (and the tool it calls), whether it asks or answers a question, and what it says;
    ``on_page``: on a run's page (anchored, a line of its own), else in a dialogue."""
    get = turn.get
    role, content, args, asks, answers = str(get("role") or ""), get("content"), get("tool_args"), get("q_index"), \
        get("answers")
    classes = "turn " + (role if role in _ROLES else "other")
    who = f"turn {i} · {role}"
    if get("tool_name"):  # a name said in passing: cut short, so that what the turn asks or answers is still said
        who += f" · {'calls' if role == 'assistant' else 'result of'} {cut(str(turn['tool_name']), BRIEF_CHARS)}"
    if asks is not None:
        classes += " asks"
        who += f" · asks question {int(asks)}"
    if answers is not None:
        classes += " answer"
        who += f" · answers question {int(answers)}"
    parts = [_cut(content)] if content is not None or not args else []
    if args is not None:
        parts.append(_cut(_args(args), arguments=True))
    return _Item("turn", who, classes, f"turn-{i}" if on_page else "", parts, on_page)


#: the roles a turn's class names (any other: "other")
_ROLES = frozenset(("user", "assistant", "tool", "system"))


def _collapsed(turns: list[tuple[int, dict[str, Any]]], what: str) -> list[_Item]:
    if not turns:
        return []
    noun = "turn" if len(turns) == 1 else "turns"
    return [_Item("open", f"{len(turns)} {what.format(noun)}"), *(_turn(i, t) for i, t in turns), _Item("close")]


def excerpt(turns: Any, q_index: int) -> list[int]:
    """The positions of the turns that show question ``q_index`` in its dialogue (``turns``: a transcript's rows
    or its run-log turns): the :data:`BEFORE` turns before it, the question, its answer, the agent's next turn,
    and its final answer; none when no turn is the question."""
    rows = turns.to_dict("records") if isinstance(turns, pd.DataFrame) else turns
    at = next((i for i, t in enumerate(rows) if _same(t.get("q_index"), q_index)), None)
    if at is None:
        return []
    answer = next((i for i in range(at + 1, len(rows)) if _same(rows[i].get("answers"), q_index)), None)
    end = answer if answer is not None else at
    nxt = next((i for i in range(end + 1, len(rows)) if rows[i].get("role") == "assistant"), None)
    final = next((i for i in range(len(rows) - 1, -1, -1) if rows[i].get("role") == "assistant"), None)
    keep = set(range(max(0, at - BEFORE), end + 1)) | {i for i in (nxt, final) if i is not None and i > end}
    return sorted(keep)


def _same(value: Any, q_index: int) -> bool:
    return value is not None and value is not pd.NA and int(value) == q_index


def dialogue_html(record: dict[str, Any], q_index: int, run_href: str | None = None) -> Markup:
    """Question ``q_index`` of a run in its dialogue (the turns :func:`excerpt` picks; the others collapsed, to
    open on the page), with a link to the whole run."""
    turns = record["turns"]
    keep = excerpt(turns, q_index)
    parts: list[_Item] = []
    if keep:
        answered = any(_same(turns[i].get("answers"), q_index) for i in keep)
        final = next((i for i in range(len(turns) - 1, -1, -1) if turns[i].get("role") == "assistant"), None)
        asked = next(i for i in keep if _same(turns[i].get("q_index"), q_index))
        before = -1
        for i in keep:
            hidden = [(j, turns[j]) for j in range(before + 1, i)]
            parts += _collapsed(hidden, "earlier {}" if before < 0 else "{} between")
            if i == final and i > asked:
                parts.append(_Item("final"))
            parts.append(_turn(i, turns[i]))
            if i == asked and not answered:
                parts.append(_Item("unanswered"))
            before = i
        parts += _collapsed([(j, turns[j]) for j in range(before + 1, len(turns))], "later {}")
    return render("dialogue_excerpt.html", parts=parts, n_turns=len(turns), covers=COVERS_TEXT[record["covers"]],
                  note=record.get("note") or None, href=run_href or None)


def _blank(v: Any) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and v != v)


@dataclass(frozen=True)
class _Table:
    """A table as evidence_table.html writes it (the one table of the evidence pages and the run pages): its
    ``headings``, each column's ``kind`` ("text": wrapped as text, "link": each value the address of a page of the
    report, linked as "open", "": as it is) and its ``values`` (None where a value is missing, else a
    text); ``blank_td``: a missing value's cell muted whole; ``n``: the rows, for a table of no column; ``limit``: the
    characters of a cell shown (a notebook's Evidence shows :data:`~ambiglib._text.BRIEF_CHARS`, a page more)."""

    headings: list[str]
    kinds: list[str]
    values: list[list[str | None]]
    n: int
    blank_td: bool = False
    limit: int = SHOWN_CHARS

    @property
    def rows(self) -> list[Markup]:
        """The rows' cells, a row's joined (the template writes each row around them): each cell as the template's
        ``cell`` macro writes it, its text escaped with the rest of its column (:func:`markup.escape_each`)."""
        if not self.values:
            return [Markup()] * self.n
        columns = []
        for kind, values in zip(self.kinds, self.values):
            before, after, missing = _cell_form(kind, self.blank_td)
            # a link is the report's own address; any other text from the log, cut as a template cuts it
            texts = escape_each(["" if v is None else v if kind == "link" or len(v) <= self.limit
                                 else cut(v, self.limit) for v in values])
            columns.append([missing if v is None else before + t + after for v, t in zip(values, texts)])
        return [Markup("".join(cells)) for cells in zip(*columns)]


#: stands for a cell's text in the form of its cell (``_cell_form``); what is put in its place is escaped apart
_TEXT = "\x00"


@cache
def _cell_form(kind: str, blank_td: bool) -> tuple[str, str, str]:
    """(before, after, missing): what evidence_table.html's ``cell`` writes before and after the (escaped) text of a
    cell of ``kind``, and its cell of a missing value."""
    cell = macro("evidence_table.html", "cell")
    before, after = str(cell(kind, _TEXT, blank_td)).split(_TEXT)
    return before, after, str(cell(kind, None, blank_td))


class _Listed(NamedTuple):
    """A frame as a page lists it (evidence_listed.html): its first ``shown`` rows (``table``), of ``total``
    ``what``; ``every``: where every one of them is (Python code, or a file of the report); ``order``: how its rows
    are ordered, in words (said above the table; empty: not said)."""

    table: _Table
    what: str
    total: int
    shown: int
    every: str = "table.evidence(row)"
    order: str = ""


def _table(rows: list[dict[str, Any]], columns: list[str]) -> _Table:
    """Rows (dicts) as a table of ``columns``, each missing value a "–"."""
    values = [[None if _blank(v) else str(v) for v in (row.get(c) for row in rows)] for c in columns]
    return _Table([str(c) for c in columns], ["text"] * len(columns), values, len(rows), blank_td=True)


#: a run's columns its page lists first, in this order
_RUN_FIELDS = ("benchmark", "suite", "task_id", "variant_id", "model", "policy", "spec", "ask_tool", "protocol",
               "trial", "log", "status", "score", "passed", "n_questions", "category", "source")


class _Transcript(NamedTuple):
    """What a run page says of the transcript it shows."""

    n_turns: int
    covers: str
    note: str | None
    where: str
    turns: list[_Item]
    more: int


def run_page(run: dict[str, Any], questions: list[dict[str, Any]], labels: list[dict[str, Any]],
             record: dict[str, Any] | None, *, style: Markup, back: str, n_questions: int | None = None,
             n_labels: int | None = None) -> Markup:
    """The page of one run: what it is and how it ended, its questions (each with its turn), its judge labels, and
    its whole transcript (each content cut at :data:`CONTENT_CHARS`; beyond :data:`RUN_PAGE_TURNS` turns,
    counted), or why the log holds none. ``style``: the page's style sheet (markup), before that of the turns.
    Of ``questions`` and ``labels`` the first :data:`~ambiglib._text.SHOWN_ROWS` are listed; ``n_questions`` and
    ``n_labels``: how many the run has, where the caller passed only the first ones (default: as many as given)."""
    run_id = str(run["run_id"])
    n_questions = len(questions) if n_questions is None else n_questions
    n_labels = len(labels) if n_labels is None else n_labels
    questions, labels = questions[:SHOWN_ROWS], labels[:SHOWN_ROWS]
    present = [f for f in _RUN_FIELDS if f in run and not _blank(run[f])]
    absent = [f for f in _RUN_FIELDS if f in run and _blank(run[f])]
    fields = [{"field": f, "value": run[f]} for f in present]
    turns = record["turns"] if record else []
    asked = {t.get("q_index"): i for i, t in enumerate(turns) if t.get("q_index") is not None}
    q_columns = [c for c in ("q_index", "text", "response", "blocker_id", "relevant") if not questions or c in questions[0]]
    unmarked = False
    if questions and record is not None:
        q_columns.insert(1, "turn")
        questions = [{**q, "turn": asked.get(q["q_index"])} for q in questions]
        unmarked = any(q["turn"] is None for q in questions)
    l_columns = [c for c in ("facet", "judge", "call", "label", "q_index") if not labels or c in labels[0]]
    transcript = None
    if record is not None:
        transcript = _Transcript(len(turns), COVERS_TEXT[record["covers"]], record.get("note") or None,
                                 describe(locator(run), run),
                                 [_turn(i, t, on_page=True) for i, t in enumerate(turns[:RUN_PAGE_TURNS])],
                                 max(0, len(turns) - RUN_PAGE_TURNS))
    every = "rs.{0}[rs.{0}.run_id == run_id]"  # where a run's every question (label) is
    return render("run_page.html", run_id=run_id, style=style + Markup(STYLE), back=back,
                  fields=_table(fields, ["field", "value"]), absent=", ".join(absent), n_questions=n_questions,
                  unmarked=unmarked,
                  questions=_Listed(_table(questions, q_columns), "questions", n_questions, len(questions),
                                    every.format("questions")) if questions else None,
                  n_labels=n_labels, labels=_Listed(_table(labels, l_columns), "judge labels", n_labels, len(labels),
                                                    every.format("labels")) if labels else None,
                  transcript=transcript, why_none=why_none(run) if record is None else "",
                  viewer=viewer(run))
