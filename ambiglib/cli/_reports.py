"""The commands that write a report folder: ``report`` (the notebooks run, into index.html, tables and figures) and
``summary`` (summary.md and rejected.csv), and what each says when it is done."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ambiglib.cli._arguments import logs_given, mapping
from ambiglib.cli._messages import say
from ambiglib.cli._signals import taken
from ambiglib.errors import AmbiglibError, ReportError, SchemaError

if TYPE_CHECKING:
    from collections.abc import Callable

    from ambiglib.report._runner import NotebookResult


def report(args: argparse.Namespace) -> int:
    """``ambiglib report``: every notebook run on the log (report.run_report), then what was not run and how many
    records were rejected (``--strict``: exit 1 when any was)."""
    progress, close = _progress(args.quiet)
    try:
        if args.program:  # this process is the command's own (main sets it): see decline_unused_imports
            from ambiglib.report._runner import decline_unused_imports

            decline_unused_imports()
        from ambiglib.report import run_report

        given = {"k": args.k, "models": args.models, "benchmarks": args.benchmarks, "suites": args.suites,
                 **mapping(args)}
        index = run_report(logs_given(args.runs) if args.runs else None, args.out, params_file=args.params, notebooks=args.notebooks or None,
                           notebooks_dir=args.notebooks_dir, jobs=args.jobs, progress=progress,
                           parameters={k: v for k, v in given.items() if v is not None},
                           keep_snapshot=args.keep_snapshot, reuse_kernels=not args.new_kernels,
                           notebook_timeout=args.notebook_timeout, all_sections=args.all_sections)
    except (ReportError, AmbiglibError) as exc:
        close()
        say(f"ambiglib report: {exc}", sys.stderr)
        return 1
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM (main): run_report has stopped its workers and cleaned up
        taken()
        close()
        print(f"ambiglib report: interrupted; {args.out} is as it was before this run", file=sys.stderr)
        return 130
    close()
    not_run = _not_run(index.parent / "manifest.json")
    if not_run and not args.quiet:
        say(f"not run on this log, none of their tables having what it needs (--all-sections runs them): {not_run}")
    say(f"wrote {index}")
    rejected = _rejected_count(index.parent / "rejected.csv")
    if isinstance(rejected, str):
        print(rejected + (" (--strict: failing)" if args.strict else ""), file=sys.stderr)
        return 1 if args.strict else 0
    if rejected:
        print(f"{rejected} record{'s' if rejected != 1 else ''} rejected: see {index.parent / 'rejected.csv'}"
              + (" (--strict: failing)" if args.strict else " (--strict makes this an error)"))
        return 1 if args.strict else 0
    return 0


def _progress(quiet: bool) -> tuple[Callable[[int, int, NotebookResult], None] | None, Callable[[], None]]:
    """One line per finished notebook ("[3/18] hilbench_judgment_gap  2.1 s"), above a tqdm bar on a terminal."""
    if quiet:
        return None, lambda: None
    bar = None
    if sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=0, unit="notebook", file=sys.stderr, leave=False)

    def report(done: int, total: int, result: NotebookResult) -> None:
        status = "FAILED" if result.error else f"{result.seconds:.1f} s"
        line = f"[{done}/{total}] {result.name}  {status}"
        if bar is not None:
            bar.total = total
            bar.update(1)
            bar.write(line, file=sys.stdout)
        else:
            print(line, flush=True)

    return report, (bar.close if bar is not None else (lambda: None))


def _not_run(manifest: Path) -> str:
    """The report's sections not run on its log, by name, as one line ("" when every one ran)."""
    try:
        names = [str(n["name"]) for n in json.loads(manifest.read_text(encoding="utf-8")).get("not_run") or []]
    except (OSError, ValueError, TypeError, KeyError):
        return ""
    return ", ".join(names)


def _rejected_count(path: Path) -> int | str:
    """Rows of a report's rejected.csv (0 when there is none), or why it cannot be read: a count it cannot
    make is said, never given as 0."""
    import csv

    try:
        with open(path, newline="", encoding="utf-8") as fh:
            return max(0, sum(1 for _ in csv.reader(fh)) - 1)
    except FileNotFoundError:
        return 0
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        return f"{path} cannot be read ({getattr(exc, 'strerror', None) or exc}): how many records were rejected is unknown"


def summary(args: argparse.Namespace) -> int:
    """``ambiglib summary``: what the log holds, rejects and skips, written to summary.md and rejected.csv and
    printed."""
    from ambiglib.cli._stores import engine_of, on_store
    from ambiglib.loading._load import load
    from ambiglib.report import example_runs, write_summary

    runs = args.runs or example_runs()
    if runs is None:
        print("ambiglib summary: no run log: pass --runs", file=sys.stderr)
        return 2
    from ambiglib.report._folder import write_files

    out = Path(args.out or "reports").resolve()
    made = not out.exists()
    engine = engine_of(args.engine, Path(runs))
    try:
        store = None
        if engine != "pandas":  # an engine counts the store where it lies: nothing is loaded
            try:
                store = on_store(Path(runs), engine, args.memory_limit)
            except SchemaError as exc:  # an engine is strict; the summary lists what a lenient load leaves out
                if args.engine != "auto":
                    raise
                say(f"note: {exc}: the store holds a record the contract rejects, so it is loaded to list every such"
                    " record (rejected.csv), as --engine pandas does", sys.stderr)
        if store is None:
            loaded = load(runs, strict=False, quiet=args.quiet, **mapping(args))
            write_files(out, lambda folder: write_summary(runs, folder, loaded=loaded), {"--runs": Path(runs)})
        else:
            with store:
                write_files(out, lambda folder: write_summary(runs, folder, store=store, **mapping(args)),
                            {"--runs": Path(runs)})
    except ReportError as exc:
        say(f"ambiglib summary: {exc}", sys.stderr)
        return 1
    except OSError as exc:  # a read-only folder, a full disk: nothing was written over (files.replaced)
        say(f"ambiglib summary: {exc.filename or out}: cannot be written ({exc.strerror or exc}); nothing was"
            " written over", sys.stderr)
        return 1
    path = out / "summary.md"
    if args.out is None:  # a folder in the current one, made or written into unasked: said, even with -q
        say(f"no --out: {'made' if made else 'wrote into'} {out} (the default, reports/ in the current folder)",
             sys.stderr)
    say(path.read_text(encoding="utf-8"))
    say(f"wrote {path}")
    return 0
