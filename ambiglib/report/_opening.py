"""The report's first screen: the four questions answered (:mod:`ambiglib.answers._headline`), each row linked to the runs
behind it, and the one list of what the log cannot answer and what to add to it. The HTML comes from the
templates ``card_answers.html`` and ``report_unanswered.html``, which escape every text from a log; every "–" has
its reason beside it."""

from __future__ import annotations

import csv as csv_module
import json
from pathlib import Path
from typing import Any, cast

import pandas as pd

from ambiglib._markup import Markup, render
from ambiglib.answers._cards import compact_table
from ambiglib.answers._headline import QUESTIONS, SHOWN
from ambiglib.errors import ReportError

__all__ = ["answer_cards", "unanswered_list", "read_meta"]

def _card(name: str, notebook: str, frame: pd.DataFrame, meta: dict[str, Any], section: str, evidence: bool
          ) -> dict[str, object]:
    """One question's card for ``card_answers.html``, from the table its notebook saved and what it said of it
    (``meta``)."""
    notes = [meta["note"]] if meta.get("note") else []
    ways, tests = meta.get("intervals") or [], meta.get("tests") or []
    if ways or tests:  # how each interval under the values was made, and the tests: "82% (70% to 89%)" can be signed
        said = [f"Intervals: {'; '.join(ways)}." if ways else "", f"Tests: {'; '.join(tests)}." if tests else ""]
        notes.insert(0, " ".join(t for t in said if t))
    table = compact_table(frame, meta, name, notebook, f"evidence/{notebook}/{name}/" if evidence else None)
    return {"name": name, "question": QUESTIONS[name], "section": section, "answer": meta.get("answer") or [],
            "table": table, "notes": notes}


def read_table(csv: Path) -> tuple[pd.DataFrame, dict[str, Any]]:
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


def read_meta(path: Path) -> dict[str, Any]:
    """What the report kept of a table beside its cells (``<table>.meta.json``: ``rendering.table_meta``); {} when
    there is none."""
    try:
        return cast("dict[str, Any]", json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return {}


def answer_cards(out: Path, results: list[Any], sections: dict[str, str]) -> tuple[Markup, list[dict[str, str]]]:
    """The four cards (HTML) from the question notebooks' tables in ``out``, and what they could not answer:
    ``{"question", "what", "why"}`` for each reason a shown column is empty, and for a question with no table."""
    cards: list[dict[str, object]] = []
    gaps: list[dict[str, str]] = []
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
    return render("card_answers.html", cards=cards), gaps


def unanswered_list(gaps: list[dict[str, str]], notes: list[tuple[str, str, dict[str, Any]]]) -> Markup:
    """The one list of what the log cannot answer: the opening's empty cells (``gaps``) and every table or
    figure a notebook left out (``notes``: section title, section page, the note), one item per reason."""
    # reason -> its places (page, title, text), each once, in order
    items: dict[str, dict[tuple[str | None, str | None, str], dict[str, str | None]]] = {}
    for gap in gaps:
        text = f"{gap['question']} ({gap['what']})"
        items.setdefault(gap["why"], {}).setdefault((None, None, text), {"page": None, "text": text})
    for title, page, note in notes:
        text = note.get("caption") or note["name"]
        items.setdefault(note["note"], {}).setdefault((page, title, text), {"page": page, "title": title,
                                                                             "text": text})
    return render("report_unanswered.html",
                  items=[(why, list(where.values())) for why, where in items.items()])  # names as written
