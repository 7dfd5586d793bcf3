"""The report: every notebook run with papermill, and everything it shows, written to one folder.

``ambiglib report`` (and ``make report``) runs each notebook shipped with the package
(``notebooks/`` in the source tree, ``ambiglib/notebooks`` once installed; or a folder of
your own with ``--notebooks-dir``) with papermill, two at a time, injecting the run log and
any parameters, and writes:

* ``<out>/<notebook>.ipynb`` and ``<out>/<notebook>.html`` — the executed notebooks;
* for a table or figure with nothing to show, the one line saying why (``<table>.note.txt``),
  listed in the index under its notebook;
* ``<out>/tables/<notebook>/<table>.{csv,md,tex}`` — every table the notebook saved
  with :func:`save_table` (TeX with booktabs rules);
* ``<out>/figures/<notebook>/<figure>.png`` — every figure saved with :func:`save_figure`;
* ``<out>/summary.md`` and ``<out>/rejected.csv`` — what was read, rejected and skipped;
* ``<out>/index.html`` — links to all of it, each table and figure shown inline;
* ``<out>/manifest.json`` — the same list, for tools and tests, with every file the report wrote
  (``files``) and its marker (``"format": "ambiglib-report"``): a later report replaces only a folder
  that is such a report, and deletes only the files it lists (:mod:`ambiglib.report_folder`).
"""

from __future__ import annotations

import html
import json
import os
import time
import multiprocessing
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from .errors import LoadError, ReportError
from .loading import load
from .notebook_runner import NotebookResult, longest_first, run_notebook, warm, worker_started
from .parameters import SNAPSHOT_PARAMETER, check_parameters, notebook_parameters, read_params_file
from .report_folder import ReportFolder

#: The report's snapshot of the log (in its work folder; kept in ``--out`` only with ``keep_snapshot``).
SNAPSHOT_DIR = "snapshot"

__all__ = ["save_table", "save_figure", "show_table", "show_figure", "write_summary", "run_report", "ReportError",
           "errors_frame", "render_table", "notebook_parameters", "bundled_notebooks", "example_runs"]

_HERE = Path(__file__).resolve().parent


def _bundled(installed: Path, source: Path, pattern: str) -> Path | None:
    for candidate in (installed, source):  # the wheel's copy, then the source tree's
        if candidate.is_dir() and any(candidate.glob(pattern)):
            return candidate
    return None


def bundled_notebooks() -> Path:
    """The folder of the report's notebooks: ``ambiglib/notebooks`` when installed, ``notebooks/`` in the source tree."""
    found = _bundled(_HERE / "notebooks", _HERE.parent / "notebooks", "*.ipynb")
    if found is None:
        raise ReportError(f"no notebooks shipped with ambiglib (looked in {_HERE / 'notebooks'} and"
                          f" {_HERE.parent / 'notebooks'}); pass --notebooks-dir")
    return found


def example_runs() -> Path | None:
    """The bundled example run log (``ambiglib/example`` installed, ``data/example`` in the source tree), if present."""
    return _bundled(_HERE / "example", _HERE.parent / "data" / "example", "*.jsonl")


# ----------------------------------------------------------------------------- used inside notebooks


def render_table(table: pd.DataFrame, *, float_format: str = "{:.3f}") -> str:
    """Return a deterministic plain-text rendering of a table (what nbval checks); for an empty
    table, the line saying why (its ``attrs["note"]``)."""
    if len(table) == 0:
        return table.attrs.get("note") or "(no rows)"
    return table.to_string(index=False, na_rep="–",
                           float_format=lambda x: float_format.format(x) if pd.notna(x) else "–")


#: Rows a table shows in a notebook and writes to its Markdown and TeX files; the CSV has every row.
#: Larger than any table of the example or the papers' data, so those are shown whole; a table of one
#: row per task or variant on a large log is data, not a table to read: its first rows are shown with a
#: line saying how many more the CSV holds (rendering 18,000 rows took ~20 s and made an unreadable page).
MAX_ROWS_SHOWN = 1000


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

    Returns
    -------
    list of pathlib.Path
        The files written (empty when ``out_dir`` is not set).
    """
    if not out_dir:
        return []
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    plain = table.reset_index(drop=True)
    csv_safe(plain).to_csv(out / f"{name}.csv", index=False)
    head, cut = _shown_rows(plain, name, max_rows)
    shown = _as_text_cells(head.astype({c: "float64" for c in head.columns if _is_float(head[c])}))
    # tabulate prints its missing value only for None, not for NaN
    as_md = markdown_safe(shown).astype(object).where(shown.notna().to_numpy(), None)
    md = as_md.to_markdown(index=False, floatfmt=f".{precision}f", missingval="–") + "\n"
    if cut:
        md += f"\n*{_markdown_cell(cut)}*\n"
    (out / f"{name}.md").write_text(md, encoding="utf-8")
    styler = shown.style.format(precision=precision, na_rep="–", escape="latex").hide(axis="index")
    styler = styler.format_index(escape="latex", axis="columns")
    tex_caption = " — ".join(t for t in (caption, cut) if t)
    tex = styler.to_latex(hrules=True, caption=_latex_escape(tex_caption) if tex_caption else None,
                          label=f"tab:{name}", position="htbp")
    (out / f"{name}.tex").write_text(tex, encoding="utf-8")
    if caption:
        (out / f"{name}.caption.txt").write_text(caption, encoding="utf-8")
    return [out / f"{name}.{ext}" for ext in ("csv", "md", "tex")]


# ----------------------------------------------------------------------------- untrusted text in every rendering
#
# Model, policy, label and category names come from logs, which are untrusted: every value we
# render is escaped for its format. Cells holding lists or objects are first made text, so that
# the format's escaping applies to them too.


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


def _markdown_cell(value: Any) -> Any:
    """A text cell safe in a Markdown table: HTML escaped, pipes and line breaks neutralised."""
    if not isinstance(value, str):
        return value
    return html.escape(value, quote=False).replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def markdown_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with every text cell and column name safe in a Markdown table."""
    out = _as_text_cells(frame)
    out.columns = [_markdown_cell(str(c)) for c in out.columns]
    for c in out.columns:
        if not pd.api.types.is_numeric_dtype(out[c]):
            out[c] = out[c].astype(object).map(_markdown_cell)
    return out


_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
          "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _latex_escape(text: str) -> str:
    return "".join(_LATEX.get(ch, ch) for ch in text)


def _is_float(series: pd.Series) -> bool:
    return pd.api.types.is_float_dtype(series.dtype)


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


def _note_file(out_dir, name: str, note: str, caption: str | None, kind: str) -> None:
    if not out_dir:
        return
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.{kind}-note.txt").write_text(json.dumps({"name": name, "caption": caption or name, "note": note}),
                                                  encoding="utf-8")


def show_table(table: pd.DataFrame, name: str, out_dir: str | os.PathLike[str] | None, *,
               caption: str | None = None, precision: int = 3, max_rows: int | None = MAX_ROWS_SHOWN):
    """Save a table (:func:`save_table`) and return what a notebook shows for it.

    A table with rows is shown once, as escaped HTML that scrolls sideways when wide, counts
    as integers; beyond ``max_rows`` rows, its first ``max_rows`` and a line saying how many more
    the CSV holds. An empty table is not saved: its ``attrs["note"]`` ("no runs with registered
    blockers and the ask tool in this log") is shown in one line and recorded for the report
    index.
    """
    from IPython.display import HTML

    if len(table) == 0:
        note = table.attrs.get("note") or f"{name}: nothing to show in this log"
        _note_file(out_dir, name, note, caption, "table")
        return HTML(f"<p><em>{html.escape(note)}</em></p>")
    save_table(table, name, out_dir, caption=caption, precision=precision, max_rows=max_rows)
    head, cut = _shown_rows(_counts_as_integers(table.reset_index(drop=True)), name, max_rows)
    shown = _as_text_cells(head)
    styler = shown.style.format(precision=precision, na_rep="–", escape="html").hide(axis="index") \
        .format_index(escape="html", axis="columns")
    more = f"<p><em>{html.escape(cut)}</em></p>" if cut else ""
    return HTML(f"<div style='overflow-x:auto;max-width:100%'>{styler.to_html()}</div>{more}")


def show_figure(figure: Any, name: str, out_dir: str | os.PathLike[str] | None, *, dpi: int = 150):
    """Save a figure (:func:`save_figure`) and return what a notebook shows for it: the saved PNG itself,
    at the figure's size, so that it is drawn once (the inline backend would draw it again at the cell's
    end). Without ``out_dir``, nothing is saved and the notebook shows the figure as usual. A figure
    drawn from nothing (its ``ambiglib_note``) is closed instead, and its note shown in one line and
    recorded for the report index."""
    import matplotlib.pyplot as plt

    note = getattr(figure, "ambiglib_note", None)
    if note:
        from IPython.display import HTML

        plt.close(figure)
        _note_file(out_dir, name, note, None, "figure")
        return HTML(f"<p><em>{html.escape(note)}</em></p>")
    path = save_figure(figure, name, out_dir, dpi=dpi)
    if path is None:
        return None
    from IPython.display import Image

    plt.close(figure)
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


# ----------------------------------------------------------------------------- the load summary


def errors_frame(errors: list[LoadError]) -> pd.DataFrame:
    """Return the rejected records as a frame: ``file, line, field, kind, record, message``."""
    columns = ["file", "line", "field", "kind", "record", "message"]
    return pd.DataFrame([{c: getattr(e, c) for c in columns} for e in errors], columns=columns)


def write_summary(runs: str | os.PathLike[str], out: str | os.PathLike[str], *, quiet: bool = False,
                  loaded: tuple[Any, list] | None = None) -> Path:
    """Load a run log leniently (or take ``loaded``, what such a load gave) and write ``summary.md``,
    ``summary.csv`` and ``rejected.csv``."""
    runset, errors = loaded if loaded is not None else load(runs, strict=False, quiet=quiet)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary = runset.summary()
    csv_safe(summary).to_csv(out / "summary.csv", index=False)
    csv_safe(errors_frame(errors)).to_csv(out / "rejected.csv", index=False)
    runs_frame = runset.runs
    lines = [
        "# ambiglib run-log summary",
        "",
        f"Run log: `{str(runs).replace('`', '')}`",
        "",
        f"- runs: {len(runs_frame)} ({int((runs_frame['status'] == 'error').sum())} with status `error`,"
        " kept here and excluded by the metrics)",
        f"- questions: {len(runset.questions)}; judge labels: {len(runset.labels)}",
        f"- tasks: {len(runset.tasks)}; blockers: {len(runset.blockers)}",
        f"- rejected records: {len(errors)} (all listed in `rejected.csv`)",
    ]
    for reason, n in sorted(runset.skipped.items()):
        lines.append(f"- not a run, counted and left out: {n} × {_markdown_cell(reason)}")
    lines.append("")
    if errors:
        lines += ["## Rejected records", ""]
        lines += [f"- {_markdown_cell(e.message)}" for e in errors[:20]]
        if len(errors) > 20:
            lines.append(f"- ... and {len(errors) - 20} more in `rejected.csv`")
        lines.append("")
    lines += [
        "## Runs per benchmark, suite, model and condition",
        "",
        "`n_asked`: runs with at least one question. `mean_score`: the mean over runs whose status is"
        " not `error`, with `invalid` and `timeout` runs scoring 0 (Ambig-DS §5.1); empty for ask-only runs.",
        "",
        markdown_safe(summary.astype({"mean_score": "float64"})).to_markdown(index=False, floatfmt=".3f",
                                                                            missingval="–"),
        "",
    ]
    path = out / "summary.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- running the notebooks


def run_report(runs: str | os.PathLike[str] | None = None, out: str | os.PathLike[str] = "reports", *,
               params_file: str | os.PathLike[str] | None = None, notebooks: Sequence[str] | None = None,
               notebooks_dir: str | os.PathLike[str] | None = None, jobs: int = 2,
               parameters: Mapping[str, Any] | None = None,
               progress: Callable[[int, int, NotebookResult], None] | None = None,
               keep_snapshot: bool = False) -> Path:
    """Run every notebook with papermill and write the report folder.

    The log is loaded and checked once; every notebook reads a memory-mapped snapshot of
    it (``<out>/snapshot/``, Arrow IPC), which is removed at the end unless ``keep_snapshot``.

    Parameters
    ----------
    runs : path-like, optional
        The run log every notebook analyses (its ``runs`` parameter); by default the
        ``runs`` of the parameters file, else the bundled example data.
    out : path-like, default "reports"
    params_file : path-like, optional
        YAML: top-level keys are parameters for every notebook that has them (one of them
        must); ``notebooks: {name: {...}}`` for one notebook. An unknown parameter or
        notebook is an error before anything runs; so is a ``runs`` that disagrees with
        ``runs=``.
    notebooks : sequence of str, optional
        Notebook names (stems) to run; default all in ``notebooks_dir``.
    notebooks_dir : path-like, optional
        A folder of your own notebooks (e.g. edited copies); default the ones shipped with ambiglib.
    jobs : int, default 2
        Notebooks run at once.
    parameters : mapping, optional
        More parameters for every notebook, as from the top level of a parameters file.
    progress : callable, optional
        Called as ``progress(done, total, result)`` as each notebook finishes.
    keep_snapshot : bool, default False
        Keep the snapshot in ``<out>/snapshot/``: ``ambiglib.load`` opens it in milliseconds,
        with the rejected records of the original load.

    Returns
    -------
    pathlib.Path
        ``<out>/index.html``.

    Raises
    ------
    ReportError
        Bad parameters (before anything runs); after writing everything it could, a failed
        notebook (named, with its cell).
    """
    nb_dir = Path(notebooks_dir) if notebooks_dir else bundled_notebooks()
    paths = sorted(nb_dir.glob("*.ipynb"), key=lambda p: (p.stem != "quickstart", p.stem))  # quickstart first
    if not paths:
        raise ReportError(f"{nb_dir}: no notebooks (*.ipynb) to run")
    if notebooks:
        wanted = set(notebooks)
        unknown = wanted - {p.stem for p in paths}
        if unknown:
            raise ReportError(f"no such notebook(s) {sorted(unknown)} in {nb_dir} (have {[p.stem for p in paths]})")
        paths = [p for p in paths if p.stem in wanted]
    declared = {p.stem: notebook_parameters(p) for p in sorted(nb_dir.glob("*.ipynb"))}
    common, per_notebook = read_params_file(params_file) if params_file else ({}, {})
    common.update(parameters or {})
    check_parameters(params_file, common, per_notebook, declared, [p.stem for p in paths])
    from_file = common.pop("runs", None)
    if from_file is not None and runs is not None and Path(from_file).resolve() != Path(runs).resolve():
        raise ReportError(f"{params_file}: runs: {from_file!r} disagrees with --runs {str(runs)!r}; give the run log once")
    runs = runs if runs is not None else from_file if from_file is not None else example_runs()
    if runs is None:
        raise ReportError("no run log: pass --runs (no example data is bundled with this installation)")
    runs = Path(runs).resolve()
    if not runs.exists():
        raise ReportError(f"--runs {runs}: no such file or folder")
    out = Path(out).resolve()
    inputs = {"--runs": runs, **({"--params": Path(params_file)} if params_file else {}),
              **({"--notebooks-dir": nb_dir} if notebooks_dir else {}), **_paths_among(common, per_notebook)}
    try:
        with ReportFolder(out, inputs) as folder:
            assert folder.work is not None
            manifest, failed = _build_report(folder.work, runs, paths, declared, common, per_notebook, jobs,
                                             progress, nb_dir, out, keep_snapshot)
            folder.commit(manifest)
    except OSError as exc:  # a read-only or full --out, a folder that vanished
        raise ReportError(f"{exc.filename or out}: cannot be written ({exc.strerror or exc})") from exc
    if folder.left_behind:
        import warnings

        warnings.warn(f"--out {out}: an older report's folder beside it kept what was not the report's own:"
                      f" {', '.join(folder.left_behind[:5])}", stacklevel=2)
    if failed:
        raise ReportError("; ".join(r.error for r in failed) + f" (the rest of the report is in {out})")
    return out / "index.html"


def _paths_among(common: dict, per_notebook: dict) -> dict[str, Path]:
    """Parameters whose text names an existing file or folder (e.g. ``selector_audit``): inputs too."""
    found = {}
    for where, params in [("", common), *((f"notebooks: {n}: ", p) for n, p in per_notebook.items())]:
        for key, value in params.items():
            if isinstance(value, str) and value and os.path.exists(value):
                found[f"parameter {where}{key}"] = Path(value)
    return found


def _build_report(out: Path, runs: Path, paths: list[Path], declared: dict, common: dict, per_notebook: dict,
                  jobs: int, progress: Callable | None, nb_dir: Path, final: Path,
                  keep_snapshot: bool) -> tuple[dict, list[NotebookResult]]:
    """Run the notebooks into ``out`` (the report's private work folder) and write its index; return
    the manifest (which :meth:`ReportFolder.commit` writes) and the failed notebooks. Messages name the
    files where they will be, in ``final``.

    The log is loaded and checked once, here: the summary says what it held and rejected, and
    every notebook gets a snapshot of it (Arrow IPC, memory-mapped: ``write_snapshot``) as its
    ``runs``, with the same rejected records, instead of loading and checking the log again."""
    from .snapshot import write_snapshot

    # one process per running notebook: papermill's working-directory switch cannot race. The
    # workers start, and import papermill and nbconvert, while this process loads the log
    pool = ProcessPoolExecutor(max(1, jobs), mp_context=multiprocessing.get_context("spawn"),
                               initializer=worker_started, initargs=(os.getpid(),))
    results: dict[str, NotebookResult] = {}
    try:
        for _ in range(max(1, jobs)):
            pool.submit(warm)
        loaded = load(runs, strict=False, quiet=True)
        write_summary(runs, out, quiet=True, loaded=loaded)
        snapshot = write_snapshot(*loaded, str(runs), out / SNAPSHOT_DIR)
        del loaded
        started = time.perf_counter()
        jobs_args = []
        for path in paths:
            mine = declared[path.stem]
            params = {k: v for k, v in common.items() if k in mine}
            params.update(per_notebook.get(path.stem, {}))
            params.update(out_dir=str(out / "artifacts" / path.stem))
            # a notebook with a ``snapshot`` parameter reads the snapshot and shows the log it came from
            # as ``runs``; another (a user's own) gets the snapshot as its ``runs``
            params.update({"runs": str(Path(runs).absolute()), SNAPSHOT_PARAMETER: str(snapshot)}
                          if SNAPSHOT_PARAMETER in mine else {"runs": str(snapshot)})
            jobs_args.append((path, out, params, os.getcwd()))
        futures = [pool.submit(run_notebook, *a) for a in longest_first(jobs_args)]
        for future in as_completed(futures):
            result = future.result()
            results[result.name] = result
            if progress is not None:
                progress(len(results), len(paths), result)
    except BaseException:  # bad input, Ctrl-C, SIGTERM, a crash: stop every worker (and its kernel) now
        for proc in list(getattr(pool, "_processes", {}).values()):
            proc.terminate()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    ordered = [results[p.stem] for p in paths]
    for r in ordered:
        if r.error:
            r.error = r.error.replace(str(out), str(final))
    wall = time.perf_counter() - started
    _collect(out, ordered)
    if not keep_snapshot:
        import shutil

        shutil.rmtree(out / SNAPSHOT_DIR)
    manifest = _write_index(out, ordered, runs, wall, nb_dir)
    return manifest, [r for r in ordered if r.error]


def _collect(out: Path, results: list[NotebookResult]) -> None:
    """Move each notebook's artefacts into tables/<notebook>/ and figures/<notebook>/."""
    import shutil

    for r in results:
        src = out / "artifacts" / r.name
        if not src.is_dir():
            continue
        for kind, exts in (("tables", (".csv", ".md", ".tex", ".caption.txt")), ("figures", (".png",))):
            dest = out / kind / r.name
            if dest.exists():
                shutil.rmtree(dest)
            files = [p for p in src.iterdir() if p.name.endswith(exts)]
            if files:
                dest.mkdir(parents=True)
                for p in files:
                    shutil.copy2(p, dest / p.name)
    shutil.rmtree(out / "artifacts", ignore_errors=True)


def _attr(text: str) -> str:
    """Text for an HTML attribute or URL in single quotes."""
    from urllib.parse import quote

    return html.escape(quote(str(text), safe="/"), quote=True)


def _write_index(out: Path, results: list[NotebookResult], runs: Path, wall: float, nb_dir: Path) -> dict:
    """Write ``index.html``; return the manifest: the same list, for tools and tests."""
    manifest = {"runs": str(runs), "notebooks_dir": str(Path(nb_dir).resolve()), "wall_seconds": round(wall, 2),
                "notebooks": []}
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>ambiglib report</title>",
        "<style>body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}"
        ".scroll{overflow-x:auto;margin:0.5em 0 1.5em}"
        "table{border-collapse:collapse;font-size:0.8em}th,td{border-bottom:1px solid #ddd;white-space:nowrap;"
        "padding:0.2em 0.6em;text-align:right}th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}"
        "img{max-width:min(100%,820px);border:1px solid #eee}.fail{color:#a00}ul.notes,p.notes{color:#555;font-size:0.9em}"
        "nav{display:flex;flex-wrap:wrap;gap:0.3em 1em}nav a{white-space:nowrap}section{border-top:2px solid #333;margin-top:2em}</style></head><body>",
        "<h1>ambiglib report</h1>",
        f"<p>Run log: <code>{html.escape(str(runs))}</code>."
        f" {len(results)} notebooks in {wall:.1f} s. <a href='summary.md'>What was read</a> ·"
        " <a href='rejected.csv'>rejected records</a></p>",
        "<nav>" + "".join(f"<a href='#{_attr(r.name)}'>{html.escape(r.name)}</a>" for r in results) + "</nav>",
    ]
    for r in results:
        entry = {"notebook": r.name, "html": f"{r.name}.html", "ipynb": f"{r.name}.ipynb", "seconds": round(r.seconds, 2),
                 "kernel_start_seconds": r.kernel_start_seconds, "kernel_restarts": r.kernel_restarts, "error": r.error, "tables": [], "figures": [],
                 "notes": r.notes}
        parts.append(f"<section id='{_attr(r.name)}'><h2>{html.escape(r.name)}</h2>")
        parts.append(f"<p><a href='{_attr(r.name)}.html'>notebook (HTML)</a> · <a href='{_attr(r.name)}.ipynb'>notebook (.ipynb)</a>"
                     f" · {r.seconds:.1f} s</p>")
        if r.error:
            parts.append(f"<p class='fail'>FAILED: {html.escape(r.error)}</p>")
        if r.notes:
            shown_nothing = not (r.tables or r.figures or r.error)
            parts.append(f"<p class='notes'>{'Nothing to show' if shown_nothing else 'Not shown'}:</p><ul class='notes'>"
                         + "".join(f"<li data-note='{html.escape(r.name)}/{html.escape(n['name'])}'>"
                                   f"{html.escape(n['caption'])}: {html.escape(n['note'])}</li>" for n in r.notes)
                         + "</ul>")
        for t in r.tables:
            base = f"tables/{r.name}/{t}"
            frame = _counts_as_integers(pd.read_csv(out / f"{base}.csv"))
            caption_file = out / f"{base}.caption.txt"
            caption = caption_file.read_text(encoding="utf-8") if caption_file.is_file() else t
            entry["tables"].append({"name": t, "csv": f"{base}.csv", "md": f"{base}.md", "tex": f"{base}.tex",
                                    "rows": len(frame), "caption": caption})
            parts.append(f"<h3 class='table-title' data-table='{_attr(r.name)}/{_attr(t)}'>{html.escape(caption)}</h3>")
            parts.append(f"<p><a href='{_attr(base)}.csv'>csv</a> · <a href='{_attr(base)}.md'>md</a> ·"
                         f" <a href='{_attr(base)}.tex'>tex</a></p>")
            head, cut = _shown_rows(frame, t, MAX_ROWS_SHOWN)
            parts.append("<div class='scroll'>" + head.to_html(index=False, na_rep="–", float_format=lambda x: f"{x:.3f}",
                                                             classes="report-table", border=0)
                         .replace("<table ", f"<table data-table='{_attr(r.name)}/{_attr(t)}' ", 1) + "</div>")
            if cut:
                parts.append(f"<p class='notes'>{html.escape(cut)}</p>")
        for fname in r.figures:
            src = f"figures/{r.name}/{fname}.png"
            entry["figures"].append({"name": fname, "png": src})
            # onload marks the image as drawn, so a browser test can tell a broken image from a loaded one
            parts.append(f"<figure><img src='{_attr(src)}' alt='{_attr(fname)}' data-figure='{_attr(r.name)}/{_attr(fname)}'"
                         " onload=\"this.setAttribute('data-loaded','yes')\">"
                         f"<figcaption>{html.escape(fname)}</figcaption></figure>")
        parts.append("</section>")
        manifest["notebooks"].append(entry)
    parts.append("</body></html>")
    index = out / "index.html"
    index.write_text("\n".join(parts), encoding="utf-8")
    return manifest
