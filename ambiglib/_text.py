"""How text read from a log is shown: its control characters made visible.

A model name, an error message or a question text comes from a file ambiglib does not trust. Printed to a
terminal, ``ESC ] 0 ; ... BEL`` sets its title and ``ESC [ 2 J`` clears it; in a page, U+202E (right-to-left
override) shows ``gpt-5`` as ``5-tpg`` and can make two names look alike. :func:`visible` shows each such
character as its escape (``\\x1b``, ``\\u202e``), so that what a reader sees is what the log holds.
"""

from __future__ import annotations

import re

__all__ = ["visible", "latex_escape", "cut", "SHOWN_CHARS", "BRIEF_CHARS", "SHOWN_ROWS"]

#: The bounds of what a page (the report's HTML, a notebook's table, an evidence or run page) shows of a log; the
#: full values stay in the frames and the CSVs. A text (a question, an answer, a name, a turn) shows its first
#: ``SHOWN_CHARS`` characters and says how many more it has; a text said in passing (a question as the heading of
#: its dialogue, the first rejected record on the first screen) its first ``BRIEF_CHARS``; a table (and a
#: ``.md`` or ``.tex`` table) its first ``SHOWN_ROWS`` rows, saying how many more there are and where they are.
SHOWN_CHARS = 2000
BRIEF_CHARS = 400
SHOWN_ROWS = 1000

# C0 and C1 controls but tab and newline, DEL, and the format characters that reorder or hide text: the bidi
# embeddings, overrides and isolates, the marks, zero-width characters, the BOM
_HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def visible(text: str) -> str:
    """``text`` with every control and hidden format character shown as its escape (tab and newline kept)."""
    return _HIDDEN.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                       else f"\\u{ord(m.group()):04x}", text)


_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
          "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    """``text`` for a TeX file: its special characters escaped and its hidden ones made visible."""
    return "".join(_LATEX.get(ch, ch) for ch in visible(text))


def cut(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text`` whole when it has at most ``limit`` characters, else its first ``limit`` and "… (n more
    characters)": a page shows a bounded part of what a log holds, and says how much it left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more character{'s' if len(text) - limit != 1 else ''})"
