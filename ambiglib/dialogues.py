"""Each question in its dialogue: the turns around a question of a run's transcript, and a page per run.

An evidence page (:mod:`ambiglib.evidence`) shows its first questions in the conversation they were asked in:
the turns before (the earlier ones collapsed), the question, the answer, the agent's next turn and its final
answer. Every run it lists links to the run's own page: its outcome, questions, judge labels and whole
transcript. Every text is escaped and every long content cut on the page with its length shown; the
transcripts are read from the log one run at a time, a few kept (:class:`TranscriptCache`), never all at once.
"""

from __future__ import annotations

import hashlib
import html
from collections import OrderedDict
from typing import Any

import pandas as pd

from .transcripts import COVERS_TEXT, describe, locator, read_turns, why_none

__all__ = ["TranscriptCache", "dialogue_html", "excerpt", "run_page", "run_page_name", "STYLE", "CONTENT_CHARS"]

#: characters of a turn's content (or its tool arguments) a page shows; the rest is cut, its length said
CONTENT_CHARS = 2000
#: earlier turns shown before a question (the ones before them are collapsed)
BEFORE = 2
#: turns a run's page shows; a longer transcript's rest is counted, and read whole with ``rs.transcript``
RUN_PAGE_TURNS = 2000

STYLE = (".turn{border-left:4px solid #ccc;margin:0.3em 0;padding:0.2em 0.6em;background:#fafafa}"
         ".turn .who{font-size:0.8em;color:#555;font-weight:600}.turn pre{white-space:pre-wrap;word-break:break-word;"
         "margin:0.2em 0;font-family:ui-monospace,monospace;font-size:0.85em}"
         ".turn.user{border-color:#6a9fd4}.turn.assistant{border-color:#7bb274}.turn.tool{border-color:#b9a36b}"
         ".turn.system{border-color:#999}.turn.asks{border-color:#c0392b;background:#fdf0ee}"
         ".turn.answer{border-color:#e67e22;background:#fef5ec}.cut{color:#666;font-size:0.8em}"
         "details.earlier{margin:0.3em 0}details.earlier summary{color:#666;cursor:pointer}"
         ".dialogue{margin:0.6em 0 1.4em}")


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


def _cut(text: str | None, limit: int = CONTENT_CHARS) -> str:
    if text is None or text == "":
        return "<span class='cut'>(empty)</span>" if text == "" else "<span class='cut'>(no text)</span>"
    if len(text) <= limit:
        return f"<pre>{html.escape(text)}</pre>"
    return (f"<pre>{html.escape(text[:limit])}</pre><span class='cut'>… cut: {len(text):,} characters in all,"
            f" {limit:,} shown</span>")


def _args(args: Any) -> str:
    import json

    return args if isinstance(args, str) else json.dumps(args, ensure_ascii=False, sort_keys=True)


def turn_html(i: int, turn: dict[str, Any], anchor: bool = False) -> str:
    """One turn: who speaks (and the tool it calls), whether it asks or answers a question, and what it says."""
    role = str(turn.get("role") or "")
    classes = ["turn", role if role in ("user", "assistant", "tool", "system") else "other"]
    who = f"turn {i} · {html.escape(role)}"
    if turn.get("tool_name"):
        who += f" · {'calls' if role == 'assistant' else 'result of'} {html.escape(str(turn['tool_name']))}"
    if turn.get("q_index") is not None:
        classes.append("asks")
        who += f" · asks question {int(turn['q_index'])}"
    if turn.get("answers") is not None:
        classes.append("answer")
        who += f" · answers question {int(turn['answers'])}"
    body = _cut(turn.get("content")) if turn.get("content") is not None or not turn.get("tool_args") else ""
    if turn.get("tool_args") is not None:
        body += "<div class='cut'>arguments</div>" + _cut(_args(turn["tool_args"]))
    ident = f" id='turn-{i}'" if anchor else ""
    return f"<div class='{' '.join(classes)}'{ident}><div class='who'>{who}</div>{body}</div>"


def _collapsed(turns: list[tuple[int, dict[str, Any]]], what: str) -> str:
    if not turns:
        return ""
    inner = "".join(turn_html(i, t) for i, t in turns)
    noun = "turn" if len(turns) == 1 else "turns"
    return f"<details class='earlier'><summary>{len(turns)} {what.format(noun)}</summary>{inner}</details>"


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


def dialogue_html(record: dict[str, Any], q_index: int, run_href: str | None = None) -> str:
    """Question ``q_index`` of a run in its dialogue (the turns :func:`excerpt` picks; the others collapsed, to
    open on the page), with a link to the whole run."""
    turns = record["turns"]
    covers = html.escape(COVERS_TEXT[record["covers"]])
    link = f" · <a href='{html.escape(run_href)}'>the whole run</a>" if run_href else ""
    keep = excerpt(turns, q_index)
    if not keep:
        return f"<p class='cut'>The transcript ({covers}) marks no turn as this question{link}.</p>"
    answered = any(_same(turns[i].get("answers"), q_index) for i in keep)
    final = next((i for i in range(len(turns) - 1, -1, -1) if turns[i].get("role") == "assistant"), None)
    asked = next(i for i in keep if _same(turns[i].get("q_index"), q_index))
    parts, before = [], -1
    for i in keep:
        hidden = [(j, turns[j]) for j in range(before + 1, i)]
        parts.append(_collapsed(hidden, "earlier {}" if before < 0 else "{} between"))
        if i == final and i > asked:
            parts.append("<div class='cut'>the agent's final answer</div>")
        parts.append(turn_html(i, turns[i]))
        if i == asked and not answered:
            parts.append("<p class='cut'>no turn of the transcript answers this question</p>")
        before = i
    parts.append(_collapsed([(j, turns[j]) for j in range(before + 1, len(turns))], "later {}"))
    note = f" {html.escape(record['note'])}." if record.get("note") else ""
    return (f"<div class='dialogue'><p class='cut'>{len(turns)} turns: {covers}.{note}{link}</p>"
            + "".join(p for p in parts if p) + "</div>")


def _blank(v: Any) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and v != v)


def _table(rows: list[dict[str, Any]], columns: list[str]) -> str:
    """Rows (dicts) as an HTML table of ``columns``, every text escaped, each missing value a "–"."""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in columns)
    out = []
    for row in rows:
        cells = []
        for v in (row.get(c) for c in columns):
            cells.append("<td class='muted'>–</td>" if _blank(v) else f"<td class='text'>{html.escape(str(v))}</td>")
        out.append(f"<tr>{''.join(cells)}</tr>")
    return f"<div class='wide'><table><thead><tr>{head}</tr></thead><tbody>{''.join(out)}</tbody></table></div>"


#: a run's columns its page lists first, in this order
_RUN_FIELDS = ("benchmark", "suite", "task_id", "variant_id", "model", "policy", "spec", "ask_tool", "protocol",
               "trial", "log", "status", "score", "passed", "n_questions", "category", "source")


def run_page(run: dict[str, Any], questions: list[dict[str, Any]], labels: list[dict[str, Any]],
             record: dict[str, Any] | None, *, style: str, back: str) -> str:
    """The page of one run: what it is and how it ended, its questions (each with its turn), its judge labels, and
    its whole transcript (each content cut at :data:`CONTENT_CHARS`; beyond :data:`RUN_PAGE_TURNS` turns,
    counted), or why the log holds none."""
    run_id = str(run["run_id"])
    present = [f for f in _RUN_FIELDS if f in run and not _blank(run[f])]
    absent = [f for f in _RUN_FIELDS if f in run and _blank(run[f])]
    fields = [{"field": f, "value": run[f]} for f in present]
    turns = record["turns"] if record else []
    asked = {t.get("q_index"): i for i, t in enumerate(turns) if t.get("q_index") is not None}
    q_columns = [c for c in ("q_index", "text", "response", "blocker_id", "relevant") if not questions or c in questions[0]]
    unmarked = ""
    if questions and record is not None:
        q_columns.insert(1, "turn")
        questions = [{**q, "turn": asked.get(q["q_index"])} for q in questions]
        if any(q["turn"] is None for q in questions):
            unmarked = " (– where the transcript marks no turn as the question)"
    l_columns = [c for c in ("facet", "judge", "call", "label", "q_index") if not labels or c in labels[0]]
    parts = [f"<p><a href='{html.escape(back)}'>← report</a></p><h1>Run</h1><p><code>{html.escape(run_id)}</code></p>",
             _table(fields, ["field", "value"]),
             f"<p class='muted'>not in this log: {html.escape(', '.join(absent))}</p>" if absent else "",
             f"<h2>Questions ({len(questions)})</h2>",
             f"<p class='muted'>turn: where the transcript below asks it{unmarked}; blocker_id: the registered blocker"
             " the question addressed, – when it addressed none</p>" + _table(questions, q_columns) if questions
             else "<p class='muted'>this run asked nothing</p>",
             f"<h2>Judge labels ({len(labels)})</h2>",
             _table(labels, l_columns) if labels else "<p class='muted'>no judge labels on this run</p>",
             "<h2>Transcript</h2>"]
    if record is None:
        parts.append(f"<p class='muted'>No transcript: {html.escape(why_none(run))}.</p>")
    else:
        where = describe(locator(run), run)
        note = f" {html.escape(record['note'])}." if record.get("note") else ""
        parts.append(f"<p class='muted'>{len(turns)} turns: {html.escape(COVERS_TEXT[record['covers']])}.{note}"
                     f" Read from {html.escape(where)}.</p>")
        parts += [turn_html(i, t, anchor=True) for i, t in enumerate(turns[:RUN_PAGE_TURNS])]
        if len(turns) > RUN_PAGE_TURNS:
            parts.append(f"<p class='cut'>… {len(turns) - RUN_PAGE_TURNS:,} more turns; every one:"
                         f" <code>rs.transcript(run_id)</code> in Python</p>")
    return ("<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>Run {html.escape(run_id)}</title><style>{style}{STYLE}</style></head><body>"
            + "\n".join(p for p in parts if p) + "</body></html>")
