"""The report's pages about itself: what was read and rejected (``summary.md``), and the index linking every
notebook, table and figure (``index.html``, with its manifest)."""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import LoadError
from ..loading import load
from .runner import NotebookResult
from .rendering import MAX_ROWS_SHOWN, _counts_as_integers, _markdown_cell, _shown_rows, csv_safe, markdown_safe

__all__ = ["errors_frame", "write_summary"]


def errors_frame(errors: list[LoadError]) -> pd.DataFrame:
    """Return the rejected records as a frame: ``file, line, field, kind, record, message``."""
    columns = ["file", "line", "field", "kind", "record", "message"]
    return pd.DataFrame([{c: getattr(e, c) for c in columns} for e in errors], columns=columns)


def write_summary(runs: str | os.PathLike[str], out: str | os.PathLike[str], *, quiet: bool = False,
                  loaded: tuple[Any, list] | None = None, **mapping: Any) -> Path:
    """Load a run log leniently (or take ``loaded``, what such a load gave) and write ``summary.md``,
    ``summary.csv`` and ``rejected.csv``; ``mapping`` is ``load``'s Inspect AI options (``ask_tools=``)."""
    runset, errors = loaded if loaded is not None else load(runs, strict=False, quiet=quiet, **mapping)
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
        _markdown_table(markdown_safe(summary.astype({"mean_score": "float64"}))),
        "",
    ]
    path = out / "summary.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _markdown_table(frame: pd.DataFrame) -> str:
    """A frame as Markdown, an empty cell as "–" (tabulate's missingval covers None, not NaN: "nan" was printed)."""
    frame = frame.astype(object).where(frame.notna(), None)
    return frame.to_markdown(index=False, floatfmt=".3f", missingval="–")


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
