"""Tables and figures as a notebook shows them and the report saves them, every text escaped for its format.

Model, policy, label and category names come from logs, which are untrusted: every value rendered
is escaped for its format (HTML, by the ``report_*.html`` templates and pandas' Styler; Markdown, LaTeX, CSV); cells
holding lists or objects are first made text, so that the format's escaping applies to them too."""

from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from ambiglib._markup import Markup, render
from ambiglib._text import SHOWN_CHARS, SHOWN_ROWS, latex_escape, visible
from ambiglib._text import cut as cut_text  # ("cut" in a function below: the rows a rendering leaves out)
from ambiglib.answers._cards import table_meta, tex_safe
from ambiglib.errors import ReportError
from ambiglib.tables._common import empty_lines

if TYPE_CHECKING:
    from IPython.display import HTML, Image
    from matplotlib.figure import Figure

__all__ = ["render_table", "save_table", "csv_safe", "markdown_safe", "show_table", "show_figure", "save_figure",
           "table_meta", "empty_lines"]


def intervals_said_once(table: pd.DataFrame) -> tuple[pd.DataFrame, str | None]:
    """A table whose intervals are all made one way (one ``ci_level`` and ``ci_method`` on every row), without those
    two columns, and the line that says it ("intervals: 95% task bootstrap (percentile, 2,000 draws)"); else the
    table as it is (its rows say how each interval was made) and None. The CSV keeps the columns."""
    if len(table) == 0 or not {"ci_level", "ci_method"} <= set(table.columns):
        return table, None
    ways = table[["ci_level", "ci_method"]].drop_duplicates()
    if len(ways) != 1 or ways.isna().any(axis=None):
        return table, None
    level, method = ways.iloc[0]
    shown = table.drop(columns=["ci_level", "ci_method"])
    shown.attrs = dict(table.attrs)
    return shown, f"intervals: {100 * float(level):g}% {method}"


def _p_as_text(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with its p-values (``p_value``, ``p_holm``, any ``p_…`` but a standard error) as text: "<0.001"
    below it, else three decimals, as the opening prints them (a p of 0.0006 rounded to "0.001" reads as a p at
    0.001). The CSV keeps the numbers."""
    columns = [c for c in frame.columns if str(c).startswith("p_") and not str(c).endswith("_se")
               and pd.api.types.is_numeric_dtype(frame[c])]
    if not columns:
        return frame
    out = frame.copy()
    for c in columns:
        values = out[c].to_numpy(dtype=float, na_value=np.nan)
        out[c] = pd.Series([np.nan if np.isnan(v) else "<0.001" if v < 0.001 else f"{v:.3f}" for v in values],
                           index=out.index, dtype=object)
    return out


def render_table(table: pd.DataFrame, *, float_format: str = "{:.3f}") -> str:
    """Return a deterministic plain-text rendering of a table (what nbval checks); for an empty
    table, the line saying why (its ``attrs["note"]``)."""
    if len(table) == 0:
        return table.attrs.get("note") or "(no rows)"
    table, intervals = intervals_said_once(table)
    text = _p_as_text(_whole_rows_as_integers(table)).to_string(index=False, na_rep="–",
                           float_format=lambda x: float_format.format(x) if pd.notna(x) else "–")
    lines = [text] + ([intervals] if intervals else []) \
        + ([f"note: {table.attrs['note']}"] if table.attrs.get("note") else []) + empty_lines(table)
    return "\n".join(lines)


#: Rows a table shows in a notebook and writes to its Markdown and TeX files; the CSV has every row.
#: Larger than any table of the example or the papers' data, so those are shown whole; a table of one
#: row per task or variant on a large log is data, not a table to read: its first rows are shown with a
#: line saying how many more the CSV holds (rendering all of them is slow and makes an unreadable page).
MAX_ROWS_SHOWN = SHOWN_ROWS


def _shown_rows(table: pd.DataFrame, name: str, max_rows: int | None) -> tuple[pd.DataFrame, str | None]:
    """The rows to render, and the note saying what was left to the CSV (None when nothing was)."""
    if max_rows is None or len(table) <= max_rows:
        return table, None
    return table.head(max_rows), f"first {max_rows:,} of {len(table):,} rows; every row is in {name}.csv"


def save_table(table: pd.DataFrame, name: str, out_dir: str | os.PathLike[str] | None, *,
               caption: str | None = None, precision: int = 3, max_rows: int | None = MAX_ROWS_SHOWN) -> list[Path]:
    """Write a table as ``<name>.csv``, ``.md`` and ``.tex`` (booktabs) into ``out_dir``.

    Parameters
    ----------
    table : pandas.DataFrame
    name : str
        File stem, e.g. ``"ask_f1"``.
    out_dir : path-like or None
        The notebook's ``out_dir`` parameter; None or "" writes nothing (interactive use).
    caption : str, optional
        Goes into the TeX table and the report index.
    precision : int, default 3
        Decimals in the Markdown and TeX renderings; the CSV keeps full precision.
    max_rows : int or None, default :data:`MAX_ROWS_SHOWN`
        Rows in the Markdown and TeX renderings; a longer table renders its first ``max_rows`` and
        says so (after the Markdown table, in the TeX caption). The CSV has every row. None: all.
        Their texts are cut at :data:`ambiglib._text.SHOWN_CHARS` characters, as on a page.

    Returns
    -------
    list of pathlib.Path
        The files written (empty when ``out_dir`` is not set).
    """
    repeated = list(dict.fromkeys(table.columns[table.columns.duplicated()]))
    if repeated:  # read back by name (the opening, the index), a second copy would come back renamed
        raise ReportError(f"table {name!r}: the column {repeated[0]!r} appears more than once"
                          f" ({list(table.columns).count(repeated[0])} times); rename the copies before saving it")
    if not out_dir:
        return []
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    plain = table.reset_index(drop=True)
    csv_safe(plain).to_csv(out / f"{name}.csv", index=False)
    plain, intervals = intervals_said_once(plain)  # the CSV has the columns; the renderings say it once
    head, cut = _shown_rows(plain, name, max_rows)
    # each text cut as a page cuts it: a 50,000-character name made every row of the .md as wide (tabulate pads)
    shown = _cut_cells(_p_as_text(_as_text_cells(head.astype({c: "float64" for c in head.columns
                                                               if _is_float(head[c])}))))
    numparse = {}
    if "statistic" in shown.columns:  # a row of counts as integers, of averages and shares as decimals, as text
        shown, numparse = _statistic_cells(shown, precision), {
            "disable_numparse": True, "colalign": ["left" if c == "statistic" or not _is_float(head[c]) else "right"
                                                   for c in shown.columns]}
    # tabulate prints its missing value only for None, not for NaN
    as_md = markdown_safe(shown).astype(object).where(shown.notna().to_numpy(), None)
    md = as_md.to_markdown(index=False, floatfmt=f".{precision}f", missingval="–", **numparse) + "\n"
    meta = table_meta(table, caption)
    below = [cut, intervals] + ([f"note: {meta['note']}"] if meta["note"] else []) + empty_lines(plain)
    for line in below:
        if line:
            md += f"\n*{_markdown_cell(line)}*\n"
    (out / f"{name}.md").write_text(md, encoding="utf-8")
    styler = shown.style.format(precision=precision, na_rep="–", escape="latex").hide(axis="index")
    styler = styler.format_index(escape="latex", axis="columns")
    tex_caption = " — ".join(t for t in (caption, cut) if t)
    tex = styler.to_latex(hrules=True, caption=latex_escape(tex_caption) if tex_caption else None,
                          label=f"tab:{name}", position="htbp")
    notes = [line for line in below[1:] if line]
    if notes:  # under the tabular, in the table float: what each "–" means, each its own paragraph (a note
        # opening "[" after a \\ would be read as the \\[length] of a line break)
        tex = tex.replace("\\end{table}", "\\par\\footnotesize " + "\\par\n".join(latex_escape(n) for n in notes)
                          + "\n\\end{table}", 1)
    # what plain pdflatex cannot typeset (the minus sign "−", "÷", a name in another script) as TeX writes it
    (out / f"{name}.tex").write_text(tex_safe(visible(tex)), encoding="utf-8")
    (out / f"{name}.meta.json").write_text(json.dumps(meta, ensure_ascii=False, default=str), encoding="utf-8")
    return [out / f"{name}.{ext}" for ext in ("csv", "md", "tex")]


def _as_text_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with list, tuple, array and dict cells turned into their JSON text."""
    out = frame.copy()
    for c in out.columns:
        col = out[c]
        if col.dtype == object or isinstance(col.dtype, pd.ArrowDtype) and not pd.api.types.is_numeric_dtype(col):
            values = col.astype(object)
            nested = values.map(lambda v: isinstance(v, (list, tuple, dict, np.ndarray)))
            if nested.any():
                out[c] = values.map(lambda v: json.dumps(v.tolist() if isinstance(v, np.ndarray) else v,
                                                         ensure_ascii=False, default=str)
                                    if isinstance(v, (list, tuple, dict, np.ndarray)) else v)
    return out


#: What a spreadsheet reads as the start of a formula (OWASP "CSV injection").
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with text cells and column names that a spreadsheet would run as a formula prefixed by ``'``.

    Only text: numbers, negative ones included, stay numbers. Column names count: the failure-mode,
    framing and conditional-score tables make a column of each label a log holds.
    """
    out = _as_text_cells(frame)
    out.columns = ["'" + c if isinstance(c, str) and c.startswith(_FORMULA_START) else c for c in out.columns]
    for c in out.columns:
        col = out[c]
        if pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            continue
        values = col.astype(object)
        risky = values.map(lambda v: isinstance(v, str) and v.startswith(_FORMULA_START))
        if risky.any():
            out[c] = values.where(~risky, "'" + values.astype(str))
    return out


def _cut_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with each text cell and column name longer than :data:`~ambiglib._text.SHOWN_CHARS` cut, saying how
    many more characters it has (:func:`ambiglib._text.cut`): what an HTML table pandas writes shows of a log's text.
    The frame itself, when nothing is that long."""
    def long(v: Any) -> bool:
        return isinstance(v, str) and len(v) > SHOWN_CHARS

    columns = [i for i in range(frame.shape[1]) if not pd.api.types.is_numeric_dtype(frame.iloc[:, i])
               and frame.iloc[:, i].map(long).any()]
    named = any(map(long, frame.columns))
    if not columns and not named:
        return frame
    out = frame.copy()
    for i in columns:
        out.isetitem(i, out.iloc[:, i].astype(object).map(lambda v: cut_text(v) if long(v) else v))
    if named:
        out.columns = [cut_text(c) if long(c) else c for c in out.columns]
    return out


_OPENING_BRACKET = re.compile(r"^([ \t]*)\[")


def _markdown_cell(value: Any) -> Any:
    """A text cell safe in a Markdown table or list item: HTML escaped (so ``<http://…>`` is no autolink and ``<img>``
    no tag), pipes and line breaks neutralised, and no link or image: CommonMark makes one of ``[x](url)`` and
    ``![x](url)`` only where ``](`` is written, and of ``[x]`` only with a ``[x]: url`` that opens a line, so those
    two are backslash-escaped, after each backslash that could escape the escape. Other brackets stay as written
    (a name ``evil\\x1b[2J`` reads as it is, on a terminal too)."""
    if not isinstance(value, str):
        return value
    text = html.escape(value, quote=False).replace("\\", "\\\\").replace("](", "\\](")
    # a list item's text: "[x]: url" (after up to three spaces) would define a link
    text = _OPENING_BRACKET.sub("\\1\\\\[", text, count=1)
    return visible(text.replace("|", "\\|").replace("\r", " ").replace("\n", " "))


def markdown_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with every text cell and column name safe in a Markdown table."""
    out = _as_text_cells(frame)
    out.columns = [_markdown_cell(str(c)) for c in out.columns]
    for c in out.columns:
        if not pd.api.types.is_numeric_dtype(out[c]):
            out[c] = out[c].astype(object).map(_markdown_cell)
    return out


def _is_float(series: pd.Series) -> bool:
    return cast(bool, pd.api.types.is_float_dtype(series.dtype))


def _whole_rows_as_integers(table: pd.DataFrame) -> pd.DataFrame:
    """In a table of one statistic per row (a ``statistic`` column: counts beside averages and shares), the rows
    whose values are all whole numbers shown as integers ("Tasks 8", not "Tasks 8.000")."""
    if "statistic" not in table.columns:
        return table
    numeric = [c for c in table.columns if c != "statistic" and pd.api.types.is_float_dtype(table[c])]
    if not numeric:
        return table
    out = table.astype({c: object for c in numeric})
    values = table[numeric].to_numpy(dtype=float, na_value=np.nan)
    with np.errstate(invalid="ignore"):
        whole = np.where(np.isnan(values), True, values == np.round(values)).all(axis=1)
    for i in np.flatnonzero(whole):
        for j, c in enumerate(numeric):
            if not np.isnan(values[i, j]):
                out.iat[i, out.columns.get_loc(c)] = int(values[i, j])
    return out


def _statistic_cells(table: pd.DataFrame, precision: int) -> pd.DataFrame:
    """A table of one statistic per row with its numbers as text: whole-number rows as integers
    (:func:`_whole_rows_as_integers`), the others with ``precision`` decimals; a missing value stays missing."""
    out = _whole_rows_as_integers(table)
    for c in out.columns:
        if c != "statistic" and _is_float(table[c]):
            out[c] = [None if v is None or (isinstance(v, float) and np.isnan(v))
                      else str(v) if isinstance(v, (int, np.integer)) else f"{v:.{precision}f}" for v in out[c]]
    return out


def _counts_as_integers(table: pd.DataFrame) -> pd.DataFrame:
    """Count columns (``n``, ``n_*``) that became float (a merge, a missing cell) shown as integers."""
    out = table.copy()
    for c in out.columns:
        s = out[c]
        if (str(c) == "n" or str(c).startswith("n_")) and _is_float(s):
            v = s.dropna()
            if (v == v.round()).all():
                out[c] = s.astype("Int64")
    return out


def _note_file(out_dir: str | os.PathLike[str] | None, name: str, note: str, caption: str | None, kind: str) -> None:
    """Record for the report index what a notebook did not show and why (``kind``: ``table``, ``figure``, or
    ``finding``: a table with nothing in it because nothing was found, which is shown, not listed as missing)."""
    if not out_dir:
        return
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.{kind}-note.txt").write_text(json.dumps({"name": name, "caption": caption or name, "note": note}),
                                                  encoding="utf-8")


def show_table(table: pd.DataFrame, name: str, out_dir: str | os.PathLike[str] | None, *,
               caption: str | None = None, precision: int = 3, max_rows: int | None = MAX_ROWS_SHOWN,
               evidence: bool = False, tasks: Any = None) -> HTML:
    """Save a table (:func:`save_table`) and return what a notebook shows for it.

    A table with rows is shown once, as escaped HTML that scrolls sideways when wide, counts
    as integers, its answer in words above it (``attrs["answer"]``), its note and what each "–" means
    below it; beyond ``max_rows`` rows, its first ``max_rows`` and a line saying how many more
    the CSV holds. An empty table is not saved: its ``attrs["note"]`` ("no runs with registered
    blockers and the ask tool in this log: add ...") is shown in one line and recorded for the report
    index. With ``evidence``, a page per row lists the runs, questions and labels behind it
    (:func:`ambiglib.evidence.write_evidence_pages`); a comparison's pages open on its tasks, ``tasks(i)`` for row
    ``i`` (:func:`ambiglib.answers.comparison_tasks`).
    """
    from IPython.display import HTML

    if len(table) == 0:
        note = table.attrs.get("note") or f"{name}: nothing to show in this log"
        _note_file(out_dir, name, note, caption, "finding" if table.attrs.get("found_nothing") else "table")
        return HTML(str(render("report_note.html", note=note)))
    save_table(table, name, out_dir, caption=caption, precision=precision, max_rows=max_rows)
    if evidence and out_dir:
        from ambiglib.evidence._rows import write_evidence_pages

        write_evidence_pages(table, name, out_dir, title=caption, tasks=tasks)
    plain, intervals = intervals_said_once(table.reset_index(drop=True))
    head, cut = _shown_rows(_whole_rows_as_integers(_counts_as_integers(plain)), name, max_rows)
    shown = _cut_cells(_p_as_text(_as_text_cells(head)))
    # the element ids from the table's name, not pandas' random ones: the same table renders to the same page
    uid = re.sub(r"[^0-9A-Za-z_-]", "_", name)
    styler = shown.style.set_uuid(uid).format(precision=precision, na_rep="–", escape="html").hide(axis="index") \
        .format_index(escape="html", axis="columns")
    below = [line for line in (intervals, table.attrs.get("note") and f"note: {table.attrs['note']}",
                               *empty_lines(plain), cut) if line]
    # the Styler's markup, every cell and header escaped by it (escape="html" above)
    return HTML(str(render("report_shown_table.html", answer=table.attrs.get("answer") or [], below=below,
                           table=Markup(styler.to_html()))))


def show_figure(figure: Figure, name: str, out_dir: str | os.PathLike[str] | None, *, dpi: int = 150
                ) -> HTML | Image | Figure:
    """Save a figure (:func:`save_figure`) and return what a notebook shows for it: the saved PNG itself,
    at the figure's size, so that it is drawn once (the inline backend would draw it again at the cell's
    end). Without ``out_dir``, nothing is saved and the figure itself is returned, closed in pyplot: Jupyter
    shows it once. A figure drawn from nothing (its ``ambiglib_note``) is closed instead, and its note shown
    in one line and recorded for the report index."""
    import matplotlib.pyplot as plt

    note = getattr(figure, "ambiglib_note", None)
    if note:
        from IPython.display import HTML

        plt.close(figure)
        _note_file(out_dir, name, note, None, "figure")
        return HTML(str(render("report_note.html", note=note)))
    path = save_figure(figure, name, out_dir, dpi=dpi)
    plt.close(figure)
    if path is None:
        return figure
    from IPython.display import Image

    image = path.read_bytes()
    width = int.from_bytes(image[16:20], "big")  # the PNG's IHDR width, in pixels at ``dpi``
    return Image(data=image, format="png", width=round(width * 96 / dpi))  # shown at its size in inches


def save_figure(figure: Any, name: str, out_dir: str | os.PathLike[str] | None, *, dpi: int = 150) -> Path | None:
    """Write a matplotlib figure as ``<name>.png`` into ``out_dir`` (nothing when it is not set)."""
    if not out_dir:
        return None
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.png"
    figure.savefig(path, dpi=dpi, bbox_inches="tight")
    return path
