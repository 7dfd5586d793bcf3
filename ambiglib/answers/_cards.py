"""An answer as a reader sees it: each quantity in words with its interval beside it ("82% (70–89%)"), a row
per agent under its benchmark, and every "–" numbered to its reason. The report's opening cards and a question's
table shown in Jupyter (:class:`ambiglib.answers.Answer`) are drawn by the same code, the HTML by the template
``card_table.html``, which escapes every text from a log."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from ambiglib._markup import Markup, render, stylesheet
from ambiglib._text import SHOWN_ROWS
from ambiglib.answers._headline import SHOWN

__all__ = ["STYLE", "number", "with_interval", "compact_table", "formatted", "table_meta", "shown_columns", "rank_span",
           "text_table", "tex_safe"]

#: the cards' look (class names of :func:`compact_table`)
STYLE = stylesheet("cards")


def number(value: float, fmt: str) -> str:
    """A value as the cards print it: ``share`` a percentage, ``count`` one decimal, ``pp`` and ``signed`` with their
    sign (``pp unit`` with " pp" after it), ``int`` a whole number, ``p`` three decimals or "<0.001", else two
    decimals."""
    if fmt == "share":
        return f"{100 * value:.0f}%"
    if fmt == "count":
        return f"{value:.1f}"
    if fmt == "int":
        return f"{value:.0f}"
    if fmt == "pp":
        return f"{value:+.1f}"
    if fmt == "pp unit":
        return f"{value:+.1f} pp"
    if fmt == "signed":
        return f"{value:+.2f}"
    if fmt == "p":
        return "<0.001" if value < 0.001 else f"{value:.3f}"
    return f"{value:.2f}"


def _cells(frame: pd.DataFrame, i: int, spec: list[tuple[str, str, str]], reasons: dict[str, int],
           link: str | None) -> list[dict[str, object]]:
    """Row ``i``'s cells for ``card_table.html``: missing (with its reason's number), text (linked to the row's
    evidence in the agent and pair columns) or a number with its interval."""
    row = frame.iloc[i]
    out: list[dict[str, object]] = []
    for column, _, fmt in spec:
        value = row.get(column)
        missing = value is None or (isinstance(value, float) and np.isnan(value)) or pd.isna(value)
        if missing:
            out.append({"kind": "missing", "cls": "text" if fmt == "text" else "num", "mark": reasons.get(column)})
            continue
        if fmt == "text":  # the agent and pair cells link to the row's evidence: its runs and questions
            out.append({"kind": "text", "text": str(value), "wrap": column in ("pair", "verdict"),
                        "link": link if column in ("agent", "pair") else None})
            continue
        if fmt == "rankspan":  # a rank interval, "rank 1–3"
            out.append({"kind": "text", "text": str(rank_span(row, column)), "wrap": False, "link": None})
            continue
        if fmt.startswith("ranked:"):  # a ranking's cell: the value and its group letters, its rank interval below
            out.append({"kind": "ranked", "text": number(float(value), fmt.split(":", 1)[1]),
                        "group": _text_or_none(row.get(f"{column}_group")), "rank": rank_span(row, column)})
            continue
        fmt = _unit_format(row, fmt)
        low, high = row.get(f"{column}_ci_low"), row.get(f"{column}_ci_high")
        has_ci = low is not None and high is not None and not (pd.isna(low) or pd.isna(high))
        out.append({"kind": "number", "text": number(float(value), fmt),
                    "ci": (number(float(low), fmt), number(float(high), fmt)) if has_ci else None})
    return out


def _text_or_none(value: object) -> str | None:
    return None if value is None or (isinstance(value, float) and np.isnan(value)) or pd.isna(value) else str(value)


def _unit_format(row: pd.Series, fmt: str) -> str:
    """``unit``: the format of the row's own unit (its ``unit`` column: "pp" for percentage points, else a signed
    difference on 0-1), so that a table mixing the two says which each is."""
    if fmt != "unit":
        return fmt
    return "pp unit" if str(row.get("unit") or "") == "pp" else "signed"


def rank_span(row: pd.Series, column: str) -> str | None:
    """A ranking cell's rank interval in words: "rank 1", "rank 1–3" (``<column>_rank_low`` and ``_rank_high``; of
    ``rank_low`` and ``rank_high`` for the column ``rank_low``); None where the row has none."""
    low, high = (row.get("rank_low"), row.get("rank_high")) if column == "rank_low" else \
        (row.get(f"{column}_rank_low"), row.get(f"{column}_rank_high"))
    if low is None or high is None or pd.isna(low) or pd.isna(high):
        return None
    return f"rank {int(low)}" if int(low) == int(high) else f"rank {int(low)}–{int(high)}"


def with_interval(value: float, low: float | None, high: float | None, fmt: str) -> str:
    """A value and its interval in one cell: "82% (70–89%)", "0.61 (0.48–0.72)", and for a signed difference
    "+0.11 (+0.07 to +0.14)" (an en dash between two signed numbers reads as a minus)."""
    text = number(value, fmt)
    if low is None or high is None or pd.isna(low) or pd.isna(high):
        return text
    if fmt in ("signed", "pp", "pp unit") or low < 0 or high < 0:
        return f"{text} ({number(low, fmt)} to {number(high, fmt)})"
    if fmt == "share":
        return f"{text} ({100 * low:.0f}–{100 * high:.0f}%)"
    return f"{text} ({number(low, fmt)}–{number(high, fmt)})"


def shown_columns(frame: pd.DataFrame, spec: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """The entries of ``spec`` (column, heading, format) whose column ``frame`` has."""
    return [c for c in spec if c[0] in frame.columns]


def _numbered_reasons(frame: pd.DataFrame, spec: list[tuple[str, str, str]], meta: dict[str, Any]
                      ) -> tuple[dict[str, int], dict[str, int]]:
    """Each distinct reason for a shown column's "–" a number (reason → number), and each such column's number."""
    empty = meta.get("empty") or {}
    numbered: dict[str, int] = {}
    reasons: dict[str, int] = {}
    for column, _, _ in spec:
        if column in empty and frame[column].isna().any():
            reasons[column] = numbered.setdefault(empty[column], len(numbered) + 1)
    return numbered, reasons


def compact_table(frame: pd.DataFrame, meta: dict[str, Any], name: str, notebook: str, evidence: str | None,
                  spec: list[tuple[str, str, str]] | None = None) -> Markup:
    """A table of :data:`ambiglib.answers.SHOWN` (or of ``spec``) as the opening shows it: the columns in words,
    each value with its interval, a row per agent under its benchmark, the agent linked to its evidence page
    (``evidence``: the path prefix of the pages), and each "–" numbered to its reason below; its first
    :data:`~ambiglib._text.SHOWN_ROWS` rows, saying how many more there are (a log of thousands of models)."""
    spec = shown_columns(frame, SHOWN[name] if spec is None else spec)
    numbered, reasons = _numbered_reasons(frame, spec, meta)
    rows: list[dict[str, object]] = []
    current = None
    for i in range(min(len(frame), SHOWN_ROWS)):
        bench = str(frame["benchmark"].iloc[i]) if "benchmark" in frame else ""
        heading, suites = None, None
        if bench != current:  # a benchmark's first row opens with its name (and suites, when they say more)
            current = heading = bench
            named = frame["suites"].iloc[i] if "suites" in frame else ""
            suites = str(named) if named and named != bench else None
        link = f"{evidence}{i}.html" if evidence is not None else None
        rows.append({"i": i, "bench": heading, "suites": suites, "cells": _cells(frame, i, spec, reasons, link)})
    return render("card_table.html", notebook=notebook, name=name, rows=rows, reasons=list(numbered),
                  total=f"{len(frame):,}" if len(frame) > len(rows) else None, head=[(label, "text" if fmt == "text" else "num") for _, label, fmt in spec])


def formatted(frame: pd.DataFrame, spec: list[tuple[str, str, str]], meta: dict[str, Any]) -> tuple[pd.DataFrame, list[str]]:
    """The shown columns as text, headed in words, each value with its interval ("82% (70–89%)"), and the notes
    its "–" cells are numbered to ("– [1]" and "[1] why"); the benchmark first when the frame has it."""
    spec = shown_columns(frame, spec)
    numbered, reasons = _numbered_reasons(frame, spec, meta)
    out = {}
    if "benchmark" in frame.columns:
        out["benchmark"] = frame["benchmark"].astype(str).tolist()
    for column, heading, fmt in spec:
        cells = []
        for i in range(len(frame)):
            value = frame[column].iloc[i]
            if value is None or pd.isna(value):
                cells.append(f"– [{reasons[column]}]" if column in reasons else "–")
            elif fmt == "text":
                cells.append(str(value))
            elif fmt == "rankspan":
                cells.append(str(rank_span(frame.iloc[i], column)))
            elif fmt.startswith("ranked:"):
                row = frame.iloc[i]
                parts = [number(float(value), fmt.split(":", 1)[1]), _text_or_none(row.get(f"{column}_group")),
                         f"({rank_span(row, column)})" if rank_span(row, column) else None]
                cells.append(" ".join(p for p in parts if p))
            else:
                fmt_i = _unit_format(frame.iloc[i], fmt)
                low = frame[f"{column}_ci_low"].iloc[i] if f"{column}_ci_low" in frame.columns else None
                high = frame[f"{column}_ci_high"].iloc[i] if f"{column}_ci_high" in frame.columns else None
                cells.append(with_interval(float(value), low, high, fmt_i))
        out[heading] = cells
    return pd.DataFrame(out), [f"[{n}] {why}" for why, n in numbered.items()]


def table_meta(table: pd.DataFrame, caption: str | None = None) -> dict[str, Any]:
    """What the report keeps of a table beside its cells: its caption, note, the reasons for its "–"
    (column → why, for the columns that have one) and its answer in words."""
    empty = {str(c): why for c, why in (table.attrs.get("empty") or {}).items()
             if c in table.columns and table[c].isna().any()}
    intervals = []
    if {"ci_level", "ci_method"} <= set(table.columns):  # each way once; which rows, where rows differ in it
        ways = table.dropna(subset=["ci_level", "ci_method"]).groupby(["ci_level", "ci_method"], sort=False)
        which = next((c for c in ("what", "metric") if c in table.columns), None)
        for (level, method), rows in ways:
            named = f" ({', '.join(dict.fromkeys(map(str, rows[which])))})" if which and ways.ngroups > 1 else ""
            intervals.append(f"{100 * float(level):g}% {method}{named}")
    return {"caption": caption or table.attrs.get("caption"), "note": table.attrs.get("note"), "empty": empty,
            "gaps": [str(c) for c in table.attrs.get("gaps") or [] if str(c) in empty],
            "answer": list(table.attrs.get("answer") or []),
            # how the intervals were made, each way once, and the tests (their counts aside): the opening says them
            "intervals": intervals,
            "tests": list(dict.fromkeys(re.sub(r" \(\d+ vs \d+ discordant\)", "", str(t))
                                        for t in table["test"].dropna())) if "test" in table.columns else [],
            # read back as text (opening.read_table): a model named NA or 1e3 stays that name, not a number or "–"
            "text_columns": [str(c) for c in table.columns
                             if not (pd.api.types.is_numeric_dtype(table[c]) or pd.api.types.is_bool_dtype(table[c]))]}


#: the fewest characters a text cell (an agent's name) keeps before it is cut with "…" to fit a terminal
NAME_CUT = 30


def text_table(frame: pd.DataFrame, width: int = 120, text: set[str] | None = None) -> str:
    """``frame``'s cells as a plain-text table at most ``width`` characters wide, for a terminal: each heading
    wrapped over lines above its column, the ``text`` columns left-aligned and the others right. No index.

    Where the columns do not fit, the headings are wrapped first, then the widest text cells cut with "…", none
    below :data:`NAME_CUT` characters or its longest heading word; where they still do not fit, the table is
    printed in blocks of columns, each under the text columns that lead it (a name cut to a few letters, or a
    heading cut inside a word, cannot be read)."""
    heads, cells, texts, least, floor = _columns(frame, text)
    gap = 2
    if sum(floor) + gap * (len(floor) - 1) > width:
        keys = next((i for i, t in enumerate(texts) if not t), len(texts))  # the text columns leading the rest
        if 0 < keys < len(heads) - 1:
            blocks: list[list[int]] = [[]]
            room = width - sum(floor[:keys]) - gap * keys
            for i in range(keys, len(heads)):
                used = sum(floor[j] + gap for j in blocks[-1])
                if blocks[-1] and used + floor[i] > room:
                    blocks.append([])
                blocks[-1].append(i)
            if len(blocks) > 1:
                return "\n\n".join(_text_block(frame.iloc[:, list(range(keys)) + block], width, text)
                                    for block in blocks)
    return _text_block(frame, width, text)


def _columns(frame: pd.DataFrame, text: set[str] | None
             ) -> tuple[list[str], list[list[str]], list[bool], list[int], list[int]]:
    """A text table's headings, cells and which columns are text; each column's least width (its widest cell, and
    its heading's longest word) and the width it is never cut below (a text column's :data:`NAME_CUT`)."""
    heads = [str(c) for c in frame.columns]
    cells = [[str(v) for v in frame[c].tolist()] for c in frame.columns]
    texts = [h in (text or set()) for h in heads]
    words = [max((len(w) for w in h.split()), default=1) for h in heads]
    least = [max([len(v) for v in col] + [words[i]]) for i, col in enumerate(cells)]
    floor = [max(min(least[i], NAME_CUT), words[i]) if texts[i] else least[i] for i in range(len(heads))]
    return heads, cells, texts, least, floor


def _text_block(frame: pd.DataFrame, width: int, text: set[str] | None) -> str:
    """One block of :func:`text_table`: its columns narrowed to ``width`` (headings wrapped, then the widest text
    cells cut, none below :data:`NAME_CUT` or its longest heading word)."""
    import textwrap

    heads, cells, texts, least, floor = _columns(frame, text)
    widths = [max(n, min(len(h), 18)) for n, h in zip(least, heads)]  # a heading on few lines, where there is room
    gap = 2
    while sum(widths) + gap * (len(widths) - 1) > width:
        slack = [i for i in range(len(widths)) if widths[i] > least[i]]
        texts_wide = slack or [i for i, t in enumerate(texts) if t and widths[i] > floor[i]]
        if not texts_wide:
            break
        i = max(texts_wide, key=lambda j: widths[j] - (least[j] if slack else floor[j]))
        widths[i] -= 1
    wrapped = [textwrap.wrap(h, widths[i]) or [""] for i, h in enumerate(heads)]
    depth = max(len(w) for w in wrapped)

    def fit(text: str, i: int) -> str:
        text = text if len(text) <= widths[i] else text[:widths[i] - 1] + "…"
        return text.ljust(widths[i]) if texts[i] else text.rjust(widths[i])

    lines = []
    for k in range(depth):
        parts = [(w[k - depth + len(w)] if k >= depth - len(w) else "") for w in wrapped]
        lines.append((" " * gap).join(fit(p, i) for i, p in enumerate(parts)).rstrip())
    lines.append((" " * gap).join("-" * w for w in widths))
    for r in range(len(frame)):
        lines.append((" " * gap).join(fit(cells[i][r], i) for i in range(len(heads))).rstrip())
    return "\n".join(lines)


#: what a TeX file says for the characters of the cards that plain pdflatex (UTF-8 input, OT1 fonts, no package)
#: does not know, or prints as another ("<" and ">" in a text font of OT1 are "¡" and "¿")
_TEX_CHARS = {"−": "$-$", "≥": r"$\geq$", "≤": r"$\leq$", "→": r"$\to$", "≈": r"$\approx$", "√": r"$\surd$",
              "Σ": r"$\Sigma$", "α": r"$\alpha$", "«": r"$\ll$", "»": r"$\gg$", "<": "$<$", ">": "$>$"}
#: the characters beyond ASCII that plain pdflatex typesets as they are: Latin-1 but the four letters OT1 lacks
#: and its guillemets, and the dashes, quotes and ellipsis of UTF-8's definitions (each compiled, tests)
_TEX_KNOWN = frozenset(chr(c) for c in range(0xA0, 0x100) if chr(c) not in "«»ÐÞðþ") | frozenset("–—…’‘“”•†‡‰€™")


def tex_safe(tex: str) -> str:
    """A TeX text plain pdflatex compiles without a package: the cards' signs it lacks (the minus "−", "≥" …, and
    "<" and ">") as TeX writes them, the characters it knows (:data:`_TEX_KNOWN`: "é", "÷", "–") as they are,
    and any other (a log's model named in another script) as its code point, "(U+4E2D)", which a reader can look
    up, rather than an error that stops the paper."""
    out = []
    for ch in tex:
        if ch in _TEX_CHARS:
            out.append(_TEX_CHARS[ch])
        elif ord(ch) < 128 or ch in _TEX_KNOWN:
            out.append(ch)
        else:
            out.append(f"(U+{ord(ch):04X})")
    return "".join(out)
