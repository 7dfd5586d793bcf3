"""The report's first screen: the four questions answered (:mod:`ambiglib.headline`), each row linked to the runs
behind it, and the one list of what the log cannot answer and what to add to it. Every text from a log is
escaped; every "–" has its reason beside it."""

from __future__ import annotations

import csv as csv_module
import html
import json
from pathlib import Path
from typing import Any

import pandas as pd

from ..cards import compact_table
from ..errors import ReportError
from ..headline import QUESTIONS, SHOWN

__all__ = ["answer_cards", "unanswered_list", "read_meta"]

def _card(name: str, notebook: str, frame: pd.DataFrame, meta: dict, section: str, evidence: bool) -> str:
    """One question's card, from the table its notebook saved and what it said of it (``meta``)."""
    answer = "".join(f"<p class='answer'>{html.escape(s)}</p>" for s in meta.get("answer") or [])
    note = f"<p class='more'>{html.escape(meta['note'])}</p>" if meta.get("note") else ""
    ways, tests = meta.get("intervals") or [], meta.get("tests") or []
    if ways or tests:  # how each interval under the values was made, and the tests: "82% (70% to 89%)" can be signed
        said = [f"Intervals: {'; '.join(ways)}." if ways else "", f"Tests: {'; '.join(tests)}." if tests else ""]
        note = f"<p class='more'>{html.escape(' '.join(t for t in said if t))}</p>" + note
    table = compact_table(frame, meta, name, notebook, f"evidence/{notebook}/{name}/" if evidence else None)
    return (f"<section class='card' data-question='{html.escape(name)}'><h2><a href='{html.escape(section)}'>"
            f"{html.escape(QUESTIONS[name])}</a></h2>{answer}{table}{note}"
            f"<p class='more'><a href='{html.escape(section)}'>more: the figure, the table's every column, the"
            " notebook</a> · each agent links to the runs and questions behind its row</p></section>")


def read_table(csv: Path) -> tuple[pd.DataFrame, dict]:
    """A saved table (``<name>.csv``) and its meta (``<name>.meta.json``), its text columns read as text: a cell
    is missing only when empty (``NA``, ``None``, ``nan`` are names a log may hold, which pandas' defaults would
    read as missing), and a text column of digits stays text."""
    meta = read_meta(csv.with_name(csv.name.removesuffix(".csv") + ".meta.json"))
    text = {c: str for c in meta.get("text_columns") or []}
    with open(csv, encoding="utf-8", newline="") as fh:  # pandas renames a repeated column (x, x.1): not read so
        names = next(csv_module.reader(fh), [])
    repeated = [n for i, n in enumerate(names) if n in names[:i]]
    if repeated:
        raise ReportError(f"{csv}: line 1: the column {repeated[0]!r} appears {names.count(repeated[0])} times;"
                          " a saved table names each column once (rerun the report to write it again)")
    return pd.read_csv(csv, keep_default_na=False, na_values=[""], dtype=text), meta


def read_meta(path: Path) -> dict:
    """What the report kept of a table beside its cells (``<table>.meta.json``: ``rendering.table_meta``); {} when
    there is none."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def answer_cards(out: Path, results: list[Any], sections: dict[str, str]) -> tuple[str, list[dict]]:
    """The four cards (HTML) from the question notebooks' tables in ``out``, and what they could not answer:
    ``{"question", "what", "why"}`` for each reason a shown column is empty, and for a question with no table."""
    cards, gaps = [], []
    for name, question in QUESTIONS.items():
        owner = next((r for r in results if name in r.tables), None)
        if owner is None:
            note = next((n["note"] for r in results for n in r.notes if n["name"] == name), None)
            if note is not None:
                gaps.append({"question": question, "what": question, "why": note})
            continue
        base = out / "tables" / owner.name
        frame, meta = read_table(base / f"{name}.csv")
        cards.append(_card(name, owner.name, frame, meta, sections.get(owner.name, f"{owner.name}.html"),
                           (out / "evidence" / owner.name / name).is_dir()))
        for column, label, _ in SHOWN[name]:
            why = (meta.get("empty") or {}).get(column)
            if why and column in (meta.get("gaps") or []) and frame[column].isna().any():
                gaps.append({"question": question, "what": label, "why": why})
    return "<div class='answers'>" + "".join(cards) + "</div>", gaps


def unanswered_list(gaps: list[dict], notes: list[tuple[str, str, dict]]) -> str:
    """The one list of what the log cannot answer: the opening's empty cells (``gaps``) and every table or
    figure a notebook left out (``notes``: section title, section page, the note), one item per reason."""
    items: dict[str, list[str]] = {}
    for gap in gaps:
        items.setdefault(gap["why"], []).append(f"{gap['question']} ({gap['what']})")
    for title, page, note in notes:
        items.setdefault(note["note"], []).append(f"<a href='{html.escape(page)}'>{html.escape(title)}</a>"
                                                  f" › {html.escape(note.get('caption') or note['name'])}")
    if not items:
        return "<p>Nothing: every question and every table of the report has the runs it needs.</p>"
    lines = []
    for why, where in items.items():
        shown = ", ".join(w if w.startswith("<a ") else html.escape(w) for w in dict.fromkeys(where))
        lines.append(f"<li>{html.escape(why[:1].upper() + why[1:])} <span class='in'>— for: {shown}</span></li>")
    return "<ul class='gaps'>" + "".join(lines) + "</ul>"
