"""The report's pages about itself: what was read and rejected (``summary.md``), and the index linking every
notebook, table and figure (``index.html``, with its manifest). The pages come from the ``report_*.html``
templates, which escape every text from a log."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pandas as pd

from ambiglib._markup import Markup, render, stylesheet
from ambiglib._text import BRIEF_CHARS, SHOWN_ROWS, cut, visible
from ambiglib.answers._cards import STYLE as OPENING_STYLE
from ambiglib.answers._cards import compact_table
from ambiglib.answers._headline import SHOWN
from ambiglib.errors import LoadError
from ambiglib.loading._load import load
from ambiglib.report._applicable import PAPERS
from ambiglib.report._opening import read_table
from ambiglib.report._rendering import (
    MAX_ROWS_SHOWN,
    _counts_as_integers,
    _cut_cells,
    _markdown_cell,
    _shown_rows,
    csv_safe,
    markdown_safe,
)
from ambiglib.report._runner import NotebookResult

__all__ = ["errors_frame", "write_summary"]


def errors_frame(errors: list[LoadError]) -> pd.DataFrame:
    """Return the rejected records as a frame: ``file, line, field, kind, record, message``."""
    columns = ["file", "line", "field", "kind", "record", "message"]
    return pd.DataFrame([{c: getattr(e, c) for c in columns} for e in errors], columns=columns)


@dataclass(frozen=True)
class _Read:
    """What the summary pages say of a log: its counts, its table (:meth:`RunSet.summary`), what was skipped and
    the warnings on its mapping; from a load, or from an engine's count of a store."""

    summary: pd.DataFrame
    n_runs: int
    n_error: int
    n_questions: int
    n_labels: int
    n_task_records: int
    n_blockers: int
    tasks_run: int
    n_models: int
    n_benchmarks: int
    skipped: dict
    mapping: list[str]


def _read_of_runset(runset: Any, ask_tools: Any) -> _Read:
    from ambiglib.importers._inspect_logs import mapping_warnings

    r = runset.runs
    return _Read(runset.summary(), len(r), int((r["status"] == "error").sum()), len(runset.questions),
                 len(runset.labels), len(runset.tasks), len(runset.blockers),
                 len(r[["benchmark", "suite", "task_id"]].drop_duplicates()), int(r["model"].nunique()),
                 int(r["benchmark"].nunique()), dict(runset.skipped), mapping_warnings(runset, ask_tools))


def _read_of_store(store: Any, ask_tools: Any) -> _Read:
    """The same from an engine over a store (``ambiglib.engines.on_store``): every count a query or a footer."""
    from ambiglib.importers._inspect_logs import mapping_warnings_of

    t = store.totals()
    return _Read(store.summary(), t["n_runs"], t["n_error"], t["questions"], t["labels"], t["tasks"], t["blockers"],
                 t["tasks_run"], t["n_models"], t["n_benchmarks"], {},
                 mapping_warnings_of(store.inspect_metas(), ask_tools))


def write_summary(runs: str | os.PathLike[str], out: str | os.PathLike[str], *, quiet: bool = False,
                  loaded: tuple[Any, list] | None = None, store: Any = None, **mapping: Any) -> Path:
    """Load a run log leniently (or take ``loaded``, what such a load gave) and write ``summary.md``,
    ``summary.csv`` and ``rejected.csv``; ``mapping`` is ``load``'s Inspect AI options (``ask_tools=``).
    ``store``: an engine's handle over the store ``runs`` (``ambiglib.engines.on_store``), which counts it in
    place of a load (a store is read whole or refused: it rejects no record)."""
    if store is not None:
        read, errors = _read_of_store(store, mapping.get("ask_tools")), []
    else:
        runset, errors = loaded if loaded is not None else load(runs, strict=False, quiet=quiet, **mapping)
        read = _read_of_runset(runset, mapping.get("ask_tools"))
    # how the log was mapped, where the numbers depend on it (a tool that looks like asking and is not taken
    # for it): said before anything else, here and on the report's first screen
    first = list(read.mapping)
    if errors:  # records that are in no number: how many, and the first of them, before any number
        n_runs = sum(e.record == "run" for e in errors)
        first.append(f"{len(errors):,} record(s) rejected ({n_runs:,} of them runs, against {read.n_runs:,} runs"
                     f" loaded): they are in no number of this report. The first: {cut(errors[0].message, BRIEF_CHARS)}"
                     " (every one is in rejected.csv)")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary = read.summary
    csv_safe(summary).to_csv(out / "summary.csv", index=False)
    # a row per benchmark, suite, model and condition: a log of many models lists its first rows, the CSV every one
    head, cut_rows = _shown_rows(summary, "summary", MAX_ROWS_SHOWN)
    csv_safe(errors_frame(errors)).to_csv(out / "rejected.csv", index=False)
    lines = [
        "# ambiglib run-log summary",
        "",
        f"Run log: `{str(runs).replace('`', '')}`",
        "",
        f"- runs: {read.n_runs} ({read.n_error} with status `error`,"
        " kept here and excluded by the metrics)",
        f"- questions: {read.n_questions}; judge labels: {read.n_labels}",
        f"- tasks: {read.n_task_records}; blockers: {read.n_blockers}",
        f"- rejected records: {len(errors)} (all listed in `rejected.csv`)",
    ]
    if first:
        lines[2:2] = ["## Read this first", "", *(f"- {_markdown_cell(w)}" for w in first), ""]
    for reason, n in _skipped(read.skipped):
        lines.append(f"- not a run, counted and left out: {n} × {_markdown_cell(reason)}" if reason is not None
                     else f"- ... and {n:,} more reasons, each with its count in `RunSet.skipped`")
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
        _markdown_table(markdown_safe(_cut_cells(head.astype({"mean_score": "float64"})))),
        "",
        *([f"*{cut_rows}*", ""] if cut_rows else []),
    ]
    path = out / "summary.md"
    path.write_text(visible("\n".join(lines)), encoding="utf-8")
    # tasks run, as the runs name them (a log need not hold task records)
    counts = {"runs": read.n_runs, "tasks": read.tasks_run, "task_records": read.n_task_records,
              "models": read.n_models, "benchmarks": read.n_benchmarks, "rejected": len(errors), "first": first}
    (out / "summary.json").write_text(json.dumps(counts), encoding="utf-8")
    _summary_page(out, runs, read, errors, head, cut_rows, first)
    return path


def _skipped(skipped: dict[str, int]) -> list[tuple[str | None, int]]:
    """The reasons rows were skipped, with their counts, as the summary lists them: the first
    :data:`~ambiglib._text.SHOWN_ROWS` (a harness's status is part of its reason, so a log can make any number),
    then ``(None, how many more)``."""
    listed: list[tuple[str | None, int]] = [*sorted(skipped.items())]
    if len(listed) <= SHOWN_ROWS:
        return listed
    return [*listed[:SHOWN_ROWS], (None, len(listed) - SHOWN_ROWS)]


def _summary_page(out: Path, runs: Any, read: _Read, errors: list, summary: pd.DataFrame, cut_rows: str | None,
                  first: list[str]) -> None:
    """``summary.html``: what was read, rejected and skipped, as a page (the report links it as "What was read");
    ``summary``: the rows it lists, ``cut_rows``: what it says of the rest (None: it lists every one)."""
    items = [f"runs: {read.n_runs:,} ({read.n_error:,} with status error, kept and excluded by the"
             " metrics)", f"questions: {read.n_questions:,}; judge labels: {read.n_labels:,}",
             f"task records: {read.n_task_records:,}; blockers: {read.n_blockers:,}",
             f"rejected records: {len(errors):,} (all listed in rejected.csv)"]
    items += [f"not a run, counted and left out: {n:,} × {reason}" if reason is not None
              else f"... and {n:,} more reasons, each with its count in RunSet.skipped"
              for reason, n in _skipped(read.skipped)]
    _write_page(out / "summary.html", "report_summary.html", title="What was read", style=Markup(_STYLE),
                runs=str(runs), first=first, items=items, rejected=[e.message for e in errors[:50]],
                more_rejected=f"{len(errors) - 50:,}" if len(errors) > 50 else None,
                table=_frame_table(_counts_as_integers(summary)), cut_rows=cut_rows)


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


#: The report's parts, in order, with their headings; a notebook names its part in its metadata
#: (``metadata["ambiglib"]["part"]``), a notebook of one's own without one is in "other"
PARTS = {"questions": "The researcher's questions", "ambig-ds": "Ambig-DS: the paper's tables",
         "hil-bench": "HIL-Bench: the paper's tables", "lhaw": "LHAW: the paper's tables",
         "log": "The log and its harness", "other": "Other notebooks"}

_STYLE = stylesheet("report")  # (templates/report.css)


def _write_page(path: Path, template: str, **values: Any) -> None:
    """Write a report page from its template; the control and bidi characters of what it shows from the log made
    visible (text.visible): a model named with U+202E cannot display reversed, or as another model's name."""
    path.write_text(visible(render(template, **values)), encoding="utf-8")


def _frame_table(frame: pd.DataFrame, notebook: str | None = None, name: str | None = None) -> Markup:
    """A frame as the report's plain table (``report_frame.html``, which escapes every heading and cell);
    ``notebook`` and ``name``: the saved table it shows, which names it."""
    return render("report_frame.html", notebook=notebook, name=name, **_frame_cells(frame))


def _frame_cells(frame: pd.DataFrame) -> dict[str, list]:
    """A frame's ``headings`` and ``rows`` (each a list of cells: :func:`_cell_text`) as its plain table shows them,
    read a column at a time; the template cuts each text as it cuts every text (``markup``)."""
    columns = [[_cell_text(v) for v in frame.iloc[:, i].astype(object).tolist()] for i in range(frame.shape[1])]
    rows = [list(row) for row in zip(*columns)] if columns else [[] for _ in range(len(frame))]
    return {"headings": [str(c).strip() for c in frame.columns], "rows": rows}


def _cell_text(value: Any) -> str | None:
    """A cell's value as the report's plain table shows it: None for a missing value (the template's "–"), a number
    to three decimals, a text on one line (its line breaks and tabs as their escapes, as pandas' ``to_html`` wrote
    them) without the blanks around it, anything else as ``str`` writes it."""
    if value is None or value is pd.NA or value is pd.NaT or (isinstance(value, float) and value != value):
        return None
    if isinstance(value, float):  # (tolist gives Python's numbers, numpy's float32 too)
        return f"{value:.3f}"
    if isinstance(value, str):
        return value.replace("\t", "\\t").replace("\r", "\\r").replace("\n", "\\n").strip()
    return str(value)


def _table_html(out: Path, nb: str, t: str, prefix: str) -> tuple[Markup, dict]:
    """A saved table as the report shows it (``report_table.html``), and its manifest entry."""
    base = f"tables/{nb}/{t}"
    frame, meta = read_table(out / f"{base}.csv")
    frame = _counts_as_integers(frame)
    caption = meta.get("caption") or t
    entry = {"name": t, "csv": f"{base}.csv", "md": f"{base}.md", "tex": f"{base}.tex", "meta": f"{base}.meta.json",
             "rows": len(frame), "caption": caption}
    values = {"notebook": nb, "name": t, "caption": caption, "answer": meta.get("answer") or [], "prefix": prefix,
              "base": base, "compact": None, "table": None}
    head, cut = _shown_rows(frame, t, MAX_ROWS_SHOWN)
    if t in SHOWN:  # a question's table: its columns in words, each value with its interval, rows to their evidence
        evidence = out / "evidence" / nb / t
        values["compact"] = compact_table(head, meta, t, nb, f"../evidence/{quote(nb, safe='/')}/"
                                          f"{quote(t, safe='/')}/" if evidence.is_dir() else None)
        notes = [line for line in (cut, meta.get("note") and f"note: {meta['note']}") if line]
        return render("report_table.html", notes=notes, **values), entry
    values["table"] = _frame_table(head, nb, t)
    below = [cut] + ([f"note: {meta['note']}"] if meta.get("note") else [])
    empty = meta.get("empty") or {}
    by_reason: dict[str, list[str]] = {}
    for column, why in empty.items():
        by_reason.setdefault(why, []).append(column)
    below += [f"– in {', '.join(cols)}: {why}" for why, cols in by_reason.items()]
    return render("report_table.html", notes=[line for line in below if line], **values), entry


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
        items: list[dict] = []
        order = r.order or [*(("table", t) for t in r.tables), *(("figure", f) for f in r.figures)]
        for kind, item in order:  # as the notebook saved them
            if kind == "table":
                text, t_entry = _table_html(out, r.name, item, "../")
                items.append({"table": text})
                entry["tables"].append(t_entry)
                continue
            src = f"figures/{r.name}/{item}.png"
            entry["figures"].append({"name": item, "png": src})
            items.append({"table": None, "name": item, "png": src})
        shown_nothing = not (r.tables or r.figures or r.error)
        found = [n for n in r.notes if n.get("kind") == "finding"]
        if not (shown_nothing and not found):
            _write_page(out / "sections" / f"{r.name}.html", "report_section.html", title=me["title"],
                        style=Markup(_STYLE + OPENING_STYLE), notebook=r.name, description=me["description"],
                        seconds=f"{r.seconds:.1f}", error=r.error, items=items, found=found,
                        missing=[n for n in r.notes if n.get("kind") != "finding"])
            entry["section"] = f"sections/{r.name}.html"
        entries[r.name] = entry
    return entries


def _write_index(out: Path, results: list[NotebookResult], runs: Path, wall: float, nb_dir: Path,
                 info: dict[str, dict] | None = None, not_run: list[dict] | None = None,
                 shape: dict | None = None) -> dict:
    """Write ``index.html`` (the four questions answered, what the log cannot answer, the sections by part, the
    sections not run on this log) and each section's page; return the manifest: the same, for tools and tests.

    ``shape``: the papers whose benchmark the log holds and its benchmarks (``report.run._applying``); a paper's
    section lists what its empty tables lack among what the log cannot answer only where the log holds that paper's
    benchmark, and a table of the log's sections about some papers' harnesses (``about``) likewise."""
    from ambiglib.report._opening import answer_cards, unanswered_list

    info = _info(results, info or {})
    not_run = not_run or []
    papers = set(shape.get("papers") or ()) if shape is not None else set(PAPERS)  # (none given: every paper's)
    benchmarks = list((shape or {}).get("benchmarks") or [])
    entries = _write_sections(out, results, info)
    sections = {name: e["section"] for name, e in entries.items() if e["section"]}
    cards, gaps = answer_cards(out, results, sections)
    notes = [(info[r.name]["title"], sections.get(r.name) or f"{r.name}.html", n)
             for r in results for n in r.notes
             if n.get("kind") != "finding" and _about_the_log(info[r.name], n, papers)]
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
    shown_parts = []
    for part, heading in PARTS.items():
        mine = sorted((r for r in results if info[r.name]["part"] == part), key=lambda r: info[r.name]["order"])
        shown = [{"page": sections[r.name], "title": info[r.name]["title"],
                  "what": _tables_and_figures(entries[r.name])} for r in mine if sections.get(r.name)]
        if shown:
            shown_parts.append({"heading": _part_heading(part, heading, papers, benchmarks), "sections": shown})
    _write_page(out / "index.html", "report_index.html", title="ambiglib report", style=Markup(_STYLE + OPENING_STYLE),
                runs=str(runs), lead=", ".join(parts), rejected=f"{counts.get('rejected', 0):,}",
                failed=[r.error for r in failed], first=counts.get("first") or [], cards=cards,
                unanswered=unanswered_list(gaps, notes), parts=shown_parts, notebooks=len(results), wall=f"{wall:.1f}",
                not_run=not_run)
    return {"runs": str(runs), "notebooks_dir": str(Path(nb_dir).resolve()), "wall_seconds": round(wall, 2),
            "notebooks": [entries[r.name] for r in results], "not_run": not_run,
            "papers": sorted(papers), "benchmarks": benchmarks}


def _about_the_log(info: dict, note: dict, papers: set[str]) -> bool:
    """Whether a section's note (a table or figure it left out, and why) is about a benchmark the log holds: a
    paper's section's only where the log holds that paper's benchmark, and a table ``about`` some papers' harness
    output only where it holds one of theirs."""
    if info.get("part") in PAPERS and info["part"] not in papers:
        return False
    about = (info.get("about") or {}).get(note.get("name"))
    return about is None or bool(set(about) & papers)


def _part_heading(part: str, heading: str, papers: set[str], benchmarks: list[str]) -> str:
    """A part's heading: a paper's tables on a log without its benchmark say which benchmarks they are drawn on."""
    if part not in PAPERS or part in papers:
        return heading
    others = [b for b in benchmarks if b not in PAPERS]
    on = ", ".join(others[:5]) + (f" and {len(others) - 5} more" if len(others) > 5 else "")
    return f"{PAPERS[part]}'s tables, on {on}" if on else heading


def _tables_and_figures(entry: dict) -> str:
    """What a section shows, as the index says it beside its link: "3 tables, 1 figure"."""
    n_tables, n_figures = len(entry["tables"]), len(entry["figures"])
    return f"{n_tables} table{'s' if n_tables != 1 else ''}, {n_figures} figure{'s' if n_figures != 1 else ''}"
