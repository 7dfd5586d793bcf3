"""What every command prints: text that may hold what a log holds, shown escaped (:func:`say`); the name most like
a misspelt one; a library's message in the command's words; the footnotes of the columns a reader is shown; a table
as Markdown (:func:`markdown_table`)."""

from __future__ import annotations

import re
from difflib import get_close_matches
from typing import TYPE_CHECKING, TextIO

from ambiglib._text import visible  # re alone: the command line stays light

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    import pandas as pd

#: --between's values as the sides' plural, for messages
SIDE_NAMES = {"model": "models", "policy": "ask policies", "ask_tool": "sides of the ask tool", "log": "logs"}


def say(text: str, stream: TextIO | None = None) -> None:
    """Print text that may hold what a log holds, its control and bidi characters shown as escapes
    (``text.visible``): a terminal escape sequence in a model's name neither runs nor hides."""
    print(visible(str(text)), file=stream)


def did_you_mean(word: str, possible: Iterable[object], show: Callable[[str], str] = repr) -> str:
    """"; did you mean 'x'?" for the one of ``possible`` most like ``word`` (difflib's ratio at least 0.6), else ""."""
    close = get_close_matches(str(word), [str(p) for p in possible], n=1)
    return f"; did you mean {show(close[0])}?" if close else ""


def as_flags(text: str) -> str:
    """A message of ``comparisons`` in the command's words: ``test='mcnemar'`` is ``--test mcnemar``."""
    text = text.removeprefix("paired_comparison: ")
    return re.sub(r"\btest='([\w-]+)'", r"--test \1", text)


def shown_empty_lines(table: pd.DataFrame, shown: Iterable[str]) -> list[str]:
    """What each "–" means, for the columns a reader is shown (``shown``) alone: no footnote on a column the
    command did not print."""
    from ambiglib.tables._common import empty_lines

    return empty_lines(table[[c for c in table.columns if c in set(shown)]])


def markdown_table(table: pd.DataFrame) -> str:
    """``table`` as a Markdown table: every text cell escaped (``report._rendering.markdown_safe``), an empty cell
    (a number or a text) as "–" (its reason printed below the table), numbers to three decimals and right-aligned."""
    import pandas as pd

    from ambiglib.report._rendering import markdown_safe

    shown = markdown_safe(table)
    for c, original in zip(shown.columns, table.columns):
        if pd.api.types.is_float_dtype(shown[c]):
            shown[c] = ["–" if pd.isna(v) else f"{v:.3f}" for v in shown[c]]
        else:
            empty = table[original].isna().to_numpy(dtype=bool)
            if empty.any():
                shown[c] = ["–" if e else v for e, v in zip(empty, shown[c].astype(object))]
    numeric = [pd.api.types.is_numeric_dtype(table[c]) and not pd.api.types.is_bool_dtype(table[c])
               for c in table.columns]
    text: str = shown.to_markdown(index=False, disable_numparse=True,
                                  colalign=["right" if n else "left" for n in numeric])
    return text
