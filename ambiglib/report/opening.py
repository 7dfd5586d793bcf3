"""The report's first screen: the four questions answered (:mod:`ambiglib.headline`), each row linked to the runs
behind it, and the one list of what the log cannot answer and what to add to it. Every text from a log is
escaped; every "–" has its reason beside it."""

from __future__ import annotations

import csv as csv_module
import html
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ReportError
from ..headline import QUESTIONS, SHOWN

__all__ = ["answer_cards", "unanswered_list", "compact_table", "read_meta", "OPENING_STYLE"]

OPENING_STYLE = (
    ".answers{display:grid;grid-template-columns:repeat(auto-fit,minmax(590px,1fr));gap:0.6em 1em;margin:0.5em 0}"
    ".card{border:1px solid #ccd;border-radius:6px;padding:0.3em 0.7em 0.4em;background:#fbfbfd;overflow-x:auto}"
    ".card h2{font-size:1.02em;margin:0.15em 0 0.2em}.card h2 a{color:inherit}"
    ".card p.answer{margin:0.1em 0;font-size:0.8em;line-height:1.25}"
    "table.compact{border-collapse:collapse;font-size:0.76em;width:100%;margin:0.25em 0}"
    "table.compact th{font-weight:600;text-align:right;border-bottom:1px solid #999;padding:0 0.3em;"
    "vertical-align:bottom;line-height:1.15}table.compact td{text-align:right;padding:0.05em 0.3em;border-bottom:1px"
    " solid #eee;white-space:nowrap;line-height:1.15}table.compact td.text,table.compact th.text{text-align:left}"
    "table.compact td.wrap{white-space:normal;min-width:9em}"
    "table.compact tr.bench td{font-weight:600;text-align:left;background:#eef;border-bottom:none}"
    ".card .rows{max-height:17.5em;overflow-y:auto}table.compact thead th{position:sticky;top:0;background:#fbfbfd}"
    ".suites{color:#777;font-weight:400;font-size:0.9em}"
    ".ci{color:#777;font-size:0.85em;display:block;white-space:normal}.why{color:#a50}"
    "ol.why{margin:0.15em 0 0;padding-left:1.4em;font-size:0.74em;line-height:1.2}"
    ".card .more{font-size:0.74em;margin:0.15em 0 0;color:#555}"
    "ul.gaps li{margin:0.25em 0}ul.gaps .in{color:#666;font-size:0.85em}")


def _number(value: float, fmt: str) -> str:
    if fmt == "share":
        return f"{100 * value:.0f}%"
    if fmt == "count":
        return f"{value:.1f}"
    if fmt == "pp":
        return f"{value:+.1f}"
    if fmt == "signed":
        return f"{value:+.2f}"
    if fmt == "p":
        return "<0.001" if value < 0.001 else f"{value:.3f}"
    return f"{value:.2f}"


def _cells(frame: pd.DataFrame, i: int, spec: list[tuple[str, str, str]], reasons: dict[str, int],
           link: str | None) -> list[str]:
    row = frame.iloc[i]
    out = []
    for column, _, fmt in spec:
        value = row.get(column)
        missing = value is None or (isinstance(value, float) and np.isnan(value)) or pd.isna(value)
        if missing:
            mark = reasons.get(column)
            note = f"<sup class='why'>{mark}</sup>" if mark else ""
            out.append(f"<td class='{'text' if fmt == 'text' else 'num'}'>–{note}</td>")
            continue
        if fmt == "text":
            text = html.escape(str(value))
            if link is not None and column in ("agent", "pair"):  # the row's evidence: its runs and questions
                text = f"<a href='{html.escape(link, quote=True)}' data-evidence='{i}'>{text}</a>"
            out.append(f"<td class='text{' wrap' if column in ('pair', 'verdict') else ''}'>{text}</td>")
            continue
        text = _number(float(value), fmt)
        low, high = row.get(f"{column}_ci_low"), row.get(f"{column}_ci_high")
        if low is not None and high is not None and not (pd.isna(low) or pd.isna(high)):
            text += f"<span class='ci'>{_number(float(low), fmt)} to {_number(float(high), fmt)}</span>"
        out.append(f"<td>{text}</td>")
    return out


def compact_table(frame: pd.DataFrame, meta: dict, name: str, notebook: str, evidence: str | None) -> str:
    """A table of :data:`ambiglib.headline.SHOWN` as the opening shows it: the columns in words, each value with
    its interval, a row per agent under its benchmark, the agent linked to its evidence page (``evidence``: the
    path prefix of the pages), and each "–" numbered to its reason below."""
    spec = [c for c in SHOWN[name] if c[0] in frame.columns]
    empty = meta.get("empty") or {}
    numbered: dict[str, int] = {}  # each distinct reason a number, for the "–" of the shown columns
    reasons: dict[str, int] = {}
    for column, _, _ in spec:
        if column in empty and frame[column].isna().any():
            reasons[column] = numbered.setdefault(empty[column], len(numbered) + 1)
    head = "".join(f"<th class='{'text' if fmt == 'text' else 'num'}'>{html.escape(label)}</th>"
                   for _, label, fmt in spec)
    rows, current = [], None
    for i in range(len(frame)):
        bench = str(frame["benchmark"].iloc[i]) if "benchmark" in frame else ""
        if bench != current:
            current = bench
            suites = frame["suites"].iloc[i] if "suites" in frame else ""
            more = f" <span class='suites'>(suites: {html.escape(str(suites))})</span>" if suites and suites != bench else ""
            rows.append(f"<tr class='bench'><td colspan='{len(spec)}'>{html.escape(bench)}{more}</td></tr>")
        link = f"{evidence}{i}.html" if evidence is not None else None
        rows.append(f"<tr data-row='{i}'>{''.join(_cells(frame, i, spec, reasons, link))}</tr>")
    why = "".join(f"<li>{html.escape(text)}</li>" for text in numbered)
    return (f"<div class='rows'><table class='compact' data-table='{html.escape(notebook)}/{html.escape(name)}'><thead>"
            f"<tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
            + (f"<ol class='why'>{why}</ol>" if why else ""))


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
