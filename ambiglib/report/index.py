"""The report's pages about itself: what was read and rejected (``summary.md``), and the index linking every
notebook, table and figure (``index.html``, with its manifest)."""

from __future__ import annotations

import html
import json
import os
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import LoadError
from ..loading import load
from ..headline import SHOWN
from ..text import visible
from ..cards import STYLE as OPENING_STYLE, compact_table
from .opening import read_table
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
    from ..importers.inspect_logs import mapping_warnings

    runset, errors = loaded if loaded is not None else load(runs, strict=False, quiet=quiet, **mapping)
    # how the log was mapped, where the numbers depend on it (a tool that looks like asking and is not taken
    # for it): said before anything else, here and on the report's first screen
    first = mapping_warnings(runset, mapping.get("ask_tools"))
    if errors:  # records that are in no number: how many, and the first of them, before any number
        n_runs = sum(e.record == "run" for e in errors)
        first.append(f"{len(errors):,} record(s) rejected ({n_runs:,} of them runs, against {len(runset.runs):,} runs"
                     f" loaded): they are in no number of this report. The first: {errors[0].message[:400]}"
                     f"{'…' if len(errors[0].message) > 400 else ''} (every one is in rejected.csv)")
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
    if first:
        lines[2:2] = ["## Read this first", "", *(f"- {_markdown_cell(w)}" for w in first), ""]
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
    path.write_text(visible("\n".join(lines)), encoding="utf-8")
    # tasks run, as the runs name them (a log need not hold task records)
    tasks_run = len(runs_frame[["benchmark", "suite", "task_id"]].drop_duplicates())
    counts = {"runs": len(runs_frame), "tasks": tasks_run, "task_records": len(runset.tasks),
              "models": int(runs_frame["model"].nunique()),
              "benchmarks": int(runs_frame["benchmark"].nunique()), "rejected": len(errors), "first": first}
    (out / "summary.json").write_text(json.dumps(counts), encoding="utf-8")
    _summary_page(out, runs, runset, errors, summary, first)
    return path


def _summary_page(out: Path, runs: Any, runset: Any, errors: list, summary: pd.DataFrame, first: list[str]) -> None:
    """``summary.html``: what was read, rejected and skipped, as a page (the report links it as "What was read")."""
    r = runset.runs
    items = [f"runs: {len(r):,} ({int((r['status'] == 'error').sum()):,} with status error, kept and excluded by the"
             " metrics)", f"questions: {len(runset.questions):,}; judge labels: {len(runset.labels):,}",
             f"task records: {len(runset.tasks):,}; blockers: {len(runset.blockers):,}",
             f"rejected records: {len(errors):,} (all listed in rejected.csv)"]
    items += [f"not a run, counted and left out: {n:,} × {reason}" for reason, n in sorted(runset.skipped.items())]
    body = ["<p><a href='index.html'>← report</a></p><h1>What was read</h1>",
            f"<p>Run log <code>{html.escape(str(runs))}</code></p>", _first_box(first),
            "<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in items) + "</ul>"]
    if errors:
        body.append("<h2>Rejected records</h2><ul>" + "".join(f"<li>{html.escape(e.message)}</li>" for e in errors[:50])
                    + (f"<li>... and {len(errors) - 50:,} more in <a href='rejected.csv'>rejected.csv</a></li>"
                       if len(errors) > 50 else "") + "</ul>")
    body.append("<h2>Runs per benchmark, suite, model and condition</h2><p class='muted'>n_asked: runs with at least"
                " one question. mean_score: over runs whose status is not error, invalid and timeout scoring 0"
                " (Ambig-DS §5.1); – for ask-only runs, which have no score.</p>")
    table = _counts_as_integers(summary).to_html(index=False, na_rep="–", float_format=lambda x: f"{x:.3f}",
                                                 classes="report-table", border=0)
    body.append(f"<div class='scroll'>{table}</div>")
    (out / "summary.html").write_text(_page("What was read", body), encoding="utf-8")


def _first_box(first: list[str]) -> str:
    """What a reader must know before any number: how the log was mapped, where the numbers depend on it."""
    if not first:
        return ""
    return ("<div class='first' role='alert'><h2>Read this first</h2><ul>"
            + "".join(f"<li>{html.escape(w)}</li>" for w in first) + "</ul></div>")


def _markdown_table(frame: pd.DataFrame) -> str:
    """A frame as Markdown, an empty cell as "–" (tabulate's missingval covers None, not NaN: "nan" was printed)."""
    frame = frame.astype(object).where(frame.notna(), None)
    return frame.to_markdown(index=False, floatfmt=".3f", missingval="–")


def _collect(out: Path, results: list[NotebookResult]) -> None:
    """Move each notebook's artefacts into tables/<notebook>/, figures/<notebook>/ and evidence/<notebook>/."""
    import shutil

    for r in results:
        src = out / "artifacts" / r.name
        if not src.is_dir():
            continue
        for kind, exts in (("tables", (".csv", ".md", ".tex", ".meta.json")), ("figures", (".png",))):
            dest = out / kind / r.name
            if dest.exists():
                shutil.rmtree(dest)
            files = [p for p in src.iterdir() if p.name.endswith(exts)]
            if files:
                dest.mkdir(parents=True)
                for p in files:
                    shutil.copy2(p, dest / p.name)
        if (src / "evidence").is_dir():
            shutil.copytree(src / "evidence", out / "evidence" / r.name, dirs_exist_ok=True)
    shutil.rmtree(out / "artifacts", ignore_errors=True)


def _attr(text: str) -> str:
    """Text for an HTML attribute or URL in single quotes."""
    from urllib.parse import quote

    return html.escape(quote(str(text), safe="/"), quote=True)


#: The report's parts, in order, with their headings; a notebook names its part in its metadata
#: (``metadata["ambiglib"]["part"]``), a notebook of one's own without one is in "other"
PARTS = {"questions": "The researcher's questions", "ambig-ds": "Ambig-DS: the paper's tables",
         "hil-bench": "HIL-Bench: the paper's tables", "lhaw": "LHAW: the paper's tables",
         "log": "The log and its harness", "other": "Other notebooks"}

_STYLE = ("body{font-family:system-ui,sans-serif;max-width:1280px;margin:0.8em auto;padding:0 1em;color:#222}"
          "h1{font-size:1.4em;margin:0.2em 0}p.lead{margin:0.2em 0 0.4em;font-size:0.9em}"
          ".scroll{overflow-x:auto;margin:0.5em 0 1em}"
          "table.report-table{border-collapse:collapse;font-size:0.8em}table.report-table th,table.report-table td{"
          "border-bottom:1px solid #ddd;white-space:nowrap;padding:0.2em 0.6em;text-align:right}"
          "table.report-table th{background:#f4f4f4}table.report-table td:first-child,table.report-table th:first-child"
          "{text-align:left}img{max-width:min(100%,820px);border:1px solid #eee}.fail{color:#a00;white-space:pre-wrap}"
          ".first{border:2px solid #b60;background:#fff8ec;border-radius:6px;padding:0.2em 0.9em;margin:0.6em 0}"
          ".first h2{font-size:1.05em;margin:0.3em 0;color:#850}.first li{margin:0.2em 0}"
          "ul.notes,p.notes{color:#555;font-size:0.9em}section.part{border-top:2px solid #333;margin-top:1.5em}"
          "ul.sections li{margin:0.3em 0}.muted{color:#666;font-size:0.9em}")


def _page(title: str, body: list[str], extra_style: str = "") -> str:
    """A report page; the control and bidi characters of what it shows from the log made visible (text.visible):
    a model named with U+202E cannot display reversed, or as another model's name."""
    return visible("<!doctype html><html lang='en'><head><meta charset='utf-8'>"
                   f"<title>{html.escape(title)}</title><style>{_STYLE}{extra_style}</style></head><body>"
                   + "\n".join(body) + "</body></html>")


def _table_html(out: Path, nb: str, t: str, prefix: str) -> tuple[str, dict]:
    """A saved table as the report shows it, and its manifest entry."""
    base = f"tables/{nb}/{t}"
    frame, meta = read_table(out / f"{base}.csv")
    frame = _counts_as_integers(frame)
    caption = meta.get("caption") or t
    entry = {"name": t, "csv": f"{base}.csv", "md": f"{base}.md", "tex": f"{base}.tex", "meta": f"{base}.meta.json",
             "rows": len(frame), "caption": caption}
    parts = [f"<h3 class='table-title' data-table='{_attr(nb)}/{_attr(t)}'>{html.escape(caption)}</h3>"]
    parts += [f"<p>{html.escape(line)}</p>" for line in meta.get("answer") or []]
    parts.append(f"<p><a href='{prefix}{_attr(base)}.csv'>csv</a> · <a href='{prefix}{_attr(base)}.md'>md</a> ·"
                 f" <a href='{prefix}{_attr(base)}.tex'>tex</a></p>")
    head, cut = _shown_rows(frame, t, MAX_ROWS_SHOWN)
    if t in SHOWN:  # a question's table: its columns in words, each value with its interval, rows to their evidence
        evidence = out / "evidence" / nb / t
        parts.append(compact_table(frame, meta, t, nb, f"../evidence/{_attr(nb)}/{_attr(t)}/" if evidence.is_dir()
                                   else None))
        parts.append("<p class='notes'>Every column, the intervals' bounds included: the csv above.</p>")
        return "\n".join(parts + ([f"<p class='notes'>note: {html.escape(meta['note'])}</p>"] if meta.get("note")
                                   else [])), entry
    parts.append("<div class='scroll'>" + head.to_html(index=False, na_rep="–", float_format=lambda x: f"{x:.3f}",
                                                     classes="report-table", border=0)
                 .replace("<table ", f"<table data-table='{_attr(nb)}/{_attr(t)}' ", 1) + "</div>")
    below = [cut] + ([f"note: {meta['note']}"] if meta.get("note") else [])
    empty = meta.get("empty") or {}
    by_reason: dict[str, list[str]] = {}
    for column, why in empty.items():
        by_reason.setdefault(why, []).append(column)
    below += [f"– in {', '.join(cols)}: {why}" for why, cols in by_reason.items()]
    parts += [f"<p class='notes'>{html.escape(line)}</p>" for line in below if line]
    return "\n".join(parts), entry


def _info(results: list[NotebookResult], info: dict[str, dict]) -> dict[str, dict]:
    return {r.name: {"part": "other", "order": 0, "title": r.name, "description": "", **info.get(r.name, {})}
            for r in results}


def _write_sections(out: Path, results: list[NotebookResult], info: dict[str, dict]) -> dict[str, dict]:
    """Write ``sections/<notebook>.html`` for each notebook with something to show; return the manifest
    entries (every notebook's)."""
    entries = {}
    (out / "sections").mkdir(exist_ok=True)
    for r in results:
        me = info[r.name]
        entry = {"notebook": r.name, "title": me["title"], "part": me["part"], "html": f"{r.name}.html",
                 "ipynb": f"{r.name}.ipynb", "section": None, "seconds": round(r.seconds, 2),
                 "kernel_start_seconds": r.kernel_start_seconds, "kernel_restarts": r.kernel_restarts,
                 "error": r.error, "tables": [], "figures": [], "notes": r.notes}
        body = [f"<p><a href='../index.html'>← report</a></p><h1>{html.escape(me['title'])}</h1>",
                f"<p class='lead'>{html.escape(me['description'])}</p>" if me["description"] else "",
                f"<p class='muted'><a href='../{_attr(r.name)}.html'>the notebook (HTML)</a> · <a"
                f" href='../{_attr(r.name)}.ipynb'>.ipynb</a> · {r.seconds:.1f} s</p>"]
        if r.error:
            body.append(f"<p class='fail'>FAILED: {html.escape(r.error)}</p>")
        order = r.order or [*(("table", t) for t in r.tables), *(("figure", f) for f in r.figures)]
        for kind, item in order:  # as the notebook saved them
            if kind == "table":
                text, t_entry = _table_html(out, r.name, item, "../")
                body.append(text)
                entry["tables"].append(t_entry)
                continue
            src = f"figures/{r.name}/{item}.png"
            entry["figures"].append({"name": item, "png": src})
            # onload marks the image as drawn, so a browser test can tell a broken image from a loaded one
            body.append(f"<figure><img src='../{_attr(src)}' alt='{_attr(item)}' data-figure='{_attr(r.name)}/"
                        f"{_attr(item)}' onload=\"this.setAttribute('data-loaded','yes')\"></figure>")
        shown_nothing = not (r.tables or r.figures or r.error)
        found = [n for n in r.notes if n.get("kind") == "finding"]
        body += [f"<p class='notes'>{html.escape(n['caption'])}: {html.escape(n['note'])}</p>" for n in found]
        missing = [n for n in r.notes if n.get("kind") != "finding"]
        if missing:
            body.append("<p class='notes'>Not shown here (each is in the report's list of what the log cannot"
                        " answer):</p><ul class='notes'>" + "".join(
                            f"<li data-note='{html.escape(r.name)}/{html.escape(n['name'])}'>{html.escape(n['caption'])}:"
                            f" {html.escape(n['note'])}</li>" for n in missing) + "</ul>")
        if not (shown_nothing and not found):
            page = out / "sections" / f"{r.name}.html"
            page.write_text(_page(me["title"], body, OPENING_STYLE), encoding="utf-8")
            entry["section"] = f"sections/{r.name}.html"
        entries[r.name] = entry
    return entries


def _write_index(out: Path, results: list[NotebookResult], runs: Path, wall: float, nb_dir: Path,
                 info: dict[str, dict] | None = None) -> dict:
    """Write ``index.html`` (the four questions answered, what the log cannot answer, the sections by part) and
    each section's page; return the manifest: the same, for tools and tests."""
    from .opening import answer_cards, unanswered_list

    info = _info(results, info or {})
    entries = _write_sections(out, results, info)
    sections = {name: e["section"] for name, e in entries.items() if e["section"]}
    cards, gaps = answer_cards(out, results, sections)
    notes = [(info[r.name]["title"], sections.get(r.name) or f"{r.name}.html", n)
             for r in results for n in r.notes if n.get("kind") != "finding"]
    failed = [r for r in results if r.error]
    try:
        counts = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        counts = {}
    parts = []
    for k in ("runs", "tasks", "models", "benchmarks"):
        if k in counts:
            parts.append(f"{counts[k]:,} {k if counts[k] != 1 else k[:-1]}")
            if k == "tasks" and counts.get("task_records", counts[k]) != counts[k]:  # the runs' tasks, and the records'
                parts[-1] += f" run ({counts['task_records']:,} task records)"
    lead = ", ".join(parts)
    body = ["<h1>ambiglib report</h1>",
            f"<p class='lead'>Run log <code>{html.escape(str(runs))}</code>: {html.escape(lead)};"
            f" {counts.get('rejected', 0):,} records rejected. <a href='summary.html'>What was read</a> ·"
            " <a href='rejected.csv'>rejected records</a> · <a href='#unanswered'>what this log cannot answer</a> ·"
            " <a href='#sections'>every section</a></p>"]
    body += [f"<p class='fail'>FAILED: {html.escape(r.error)}</p>" for r in failed]
    body.append(_first_box(counts.get("first") or []))
    body.append(cards)
    body.append("<section class='part' id='unanswered'><h2>What this log cannot answer, and what to add</h2>"
                + unanswered_list(gaps, notes) + "</section>")
    body.append("<section class='part' id='sections'><h2>Every section</h2>")
    for part, heading in PARTS.items():
        mine = sorted((r for r in results if info[r.name]["part"] == part), key=lambda r: info[r.name]["order"])
        shown = [r for r in mine if sections.get(r.name)]
        if not shown:
            continue
        body.append(f"<h3>{html.escape(heading)}</h3><ul class='sections'>")
        for r in shown:
            e = entries[r.name]
            what = ", ".join(x for x in (f"{len(e['tables'])} table{'s' if len(e['tables']) != 1 else ''}",
                                         f"{len(e['figures'])} figure{'s' if len(e['figures']) != 1 else ''}") if x)
            body.append(f"<li><a href='{_attr(sections[r.name])}'>{html.escape(info[r.name]['title'])}</a>"
                        f" <span class='muted'>{what}</span></li>")
        body.append("</ul>")
    body.append(f"<p class='muted'>{len(results)} notebooks in {wall:.1f} s.</p></section>")
    (out / "index.html").write_text(_page("ambiglib report", body, OPENING_STYLE), encoding="utf-8")
    return {"runs": str(runs), "notebooks_dir": str(Path(nb_dir).resolve()), "wall_seconds": round(wall, 2),
            "notebooks": [entries[r.name] for r in results]}
