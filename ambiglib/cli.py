"""The ``ambiglib`` command line (also ``python -m ambiglib``): ``report``, ``summary``, ``validate``, ``convert``.

Every subcommand but ``schema`` (which prints the run log's JSON Schema) takes the run log as ``--runs PATH``; each
takes ``-q`` after its name.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from difflib import get_close_matches
from pathlib import Path
from typing import Any

from . import __version__
from .errors import AmbiglibError, ArgumentError, FormatError, ReportError
from .text import visible  # re alone: the command line stays light

# Everything heavy (pandas, pyarrow, papermill) is imported inside the commands, after main() has taken
# SIGINT and SIGTERM: an interrupt at any moment is one line, never a traceback from an import.

RUNS_HELP = ("run log: canonical JSON Lines (.jsonl, .jsonl.gz) or Parquet, a folder of them, or a harness's own"
             " output folder (docs/importers.md)")


def _progress(quiet: bool):
    """One line per finished notebook ("[3/18] hilbench_judgment_gap  2.1 s"), above a tqdm bar on a terminal."""
    if quiet:
        return None, lambda: None
    bar = None
    if sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=0, unit="notebook", file=sys.stderr, leave=False)

    def report(done: int, total: int, result) -> None:
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


def _report(args: argparse.Namespace) -> int:
    progress, close = _progress(args.quiet)
    try:
        if args.program:  # this process is the command's own (main sets it): see decline_unused_imports
            from .report.runner import decline_unused_imports

            decline_unused_imports()
        from .report import run_report

        given = {"k": args.k, "models": args.models, "benchmarks": args.benchmarks, "suites": args.suites,
                 **_mapping(args)}
        index = run_report(_logs_given(args.runs) if args.runs else None, args.out, params_file=args.params, notebooks=args.notebooks or None,
                           notebooks_dir=args.notebooks_dir, jobs=args.jobs, progress=progress,
                           parameters={k: v for k, v in given.items() if v is not None},
                           keep_snapshot=args.keep_snapshot, reuse_kernels=not args.new_kernels,
                           notebook_timeout=args.notebook_timeout, all_sections=args.all_sections)
    except (ReportError, AmbiglibError) as exc:
        close()
        _say(f"ambiglib report: {exc}", sys.stderr)
        return 1
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM (main): run_report has stopped its workers and cleaned up
        _taken()
        close()
        print(f"ambiglib report: interrupted; {args.out} is as it was before this run", file=sys.stderr)
        return 130
    close()
    not_run = _not_run(index.parent / "manifest.json")
    if not_run and not args.quiet:
        _say(f"not run on this log, none of their tables having what it needs (--all-sections runs them): {not_run}")
    _say(f"wrote {index}")
    rejected = _rejected_count(index.parent / "rejected.csv")
    if isinstance(rejected, str):
        print(rejected + (" (--strict: failing)" if args.strict else ""), file=sys.stderr)
        return 1 if args.strict else 0
    if rejected:
        print(f"{rejected} record{'s' if rejected != 1 else ''} rejected: see {index.parent / 'rejected.csv'}"
              + (" (--strict: failing)" if args.strict else " (--strict makes this an error)"))
        return 1 if args.strict else 0
    return 0


def _rejected_count(path) -> int | str:
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


def _summary(args: argparse.Namespace) -> int:
    from .loading import load
    from .report import example_runs, write_summary

    runs = args.runs or example_runs()
    if runs is None:
        print("ambiglib summary: no run log: pass --runs", file=sys.stderr)
        return 2
    from .report.folder import write_files

    out = Path(args.out or "reports").resolve()
    made = not out.exists()
    try:
        loaded = load(runs, strict=False, quiet=args.quiet, **_mapping(args))
        write_files(out, lambda folder: write_summary(runs, folder, loaded=loaded), {"--runs": Path(runs)})
    except ReportError as exc:
        _say(f"ambiglib summary: {exc}", sys.stderr)
        return 1
    except OSError as exc:  # a read-only folder, a full disk: nothing was written over (files.replaced)
        _say(f"ambiglib summary: {exc.filename or out}: cannot be written ({exc.strerror or exc}); nothing was"
             " written over", sys.stderr)
        return 1
    path = out / "summary.md"
    if args.out is None:  # a folder in the current one, made or written into unasked: said, even with -q
        _say(f"no --out: {'made' if made else 'wrote into'} {out} (the default, reports/ in the current folder)",
             sys.stderr)
    _say(path.read_text(encoding="utf-8"))
    _say(f"wrote {path}")
    return 0


def _mapping(args: argparse.Namespace) -> dict:
    """The Inspect AI mapping options given on the command line (``--ask-tool``, ``--scorer``), for ``load``."""
    return {k: v for k, v in (("ask_tools", args.ask_tool), ("scorer", args.scorer)) if v}


def _say(text: str, stream=None) -> None:
    """Print text that may hold what a log holds, its control and bidi characters shown as escapes
    (``text.visible``): a terminal escape sequence in a model's name neither runs nor hides."""
    print(visible(str(text)), file=stream)


def _validate(args: argparse.Namespace) -> int:
    from .loading import load

    runset, errors = load(args.runs, strict=False, quiet=args.quiet, **_mapping(args))
    causes = _causes(errors)
    for group in ([[e] for e in errors] if args.each else causes.values()):
        _say(group[0].message if len(group) == 1 else _cause_line(group))
    for reason, n in sorted(runset.skipped.items()):
        _say(f"not a run, counted and left out: {n} x {reason}")
    from .metrics.harness import harness_anomalies
    from .shapes import metric_warnings

    for a in harness_anomalies(runset).itertuples(index=False):
        questions = f", {a.n_questions} question{'s' if a.n_questions != 1 else ''}" if a.n_questions else ""
        _say(f"harness anomaly: {a.benchmark} {a.suite} {a.model}: {a.anomaly} in {a.n_runs}"
             f" run{'s' if a.n_runs != 1 else ''}{questions}: {a.what}")
    errors_by_reason = _error_reasons(runset)
    if errors_by_reason:
        _say("error runs, kept and excluded from every metric: " + ", ".join(
            f"{n} x {reason}" for reason, n in sorted(errors_by_reason.items())))
    for (status, reason), n in sorted(_status_reasons(runset).items()):
        _say(f"{status} runs, status set from the harness's files: {n} x {reason}")
    from .importers.inspect_logs import mapping_warnings

    for warning in [*mapping_warnings(runset, args.ask_tool), *metric_warnings(runset)]:
        _say(f"warning: {warning}")
    grouped = f", for {len(causes)} cause{'s' if len(causes) != 1 else ''} (--each lists every record)" \
        if len(causes) < len(errors) and not args.each else ""
    _say(f"{args.runs}: {len(runset.runs)} runs, {len(runset.tasks)} tasks accepted;"
         f" {len(errors)} record{'s' if len(errors) != 1 else ''} rejected{grouped}")
    return 1 if errors else 0


#: the first places a cause of rejection names (validate)
FIRST_PLACES = 5


def _where_of(error) -> str:
    """Where an error's message says it is: the text before its cause (``runs.jsonl:3``), else the file."""
    text = error.message
    if text.startswith(error.file):
        place = re.match(r"(:\d+)?[^:]*: ", text[len(error.file):])
        if place:
            return text[:len(error.file) + place.end() - 2]
    return error.file


def _cause(error) -> tuple:
    """What a rejected record's error says, without where it is or the value found: errors alike in it have one
    cause (a field's index, a duplicate's id and "(got ...)" aside)."""
    text = error.message[len(_where_of(error)):].removeprefix(": ")
    text = re.sub(r"\(got [^()]*\)", "(got …)", text)
    text = re.sub(r"\[\d+\]", "[…]", text)
    text = re.sub(r"^(duplicate (?:run|task record)) .*?: first seen at .*$", r"\1", text)
    return error.kind, error.record, text


def _causes(errors) -> dict[tuple, list]:
    """The errors by cause (:func:`_cause`), each cause's errors in the order read."""
    groups: dict[tuple, list] = {}
    for error in errors:
        groups.setdefault(_cause(error), []).append(error)
    return groups


def _cause_line(group: list) -> str:
    """One line for the errors of one cause: their number, the cause (the first one's value found named as such),
    and the first places."""
    first = group[0]
    text = first.message[len(_where_of(first)):].removeprefix(": ")
    text = re.sub(r"\(got ([^()]*)\)", r"(got \1 at the first)", text, count=1)
    places, last_file = [], None
    for error in group[:FIRST_PLACES]:
        where = _where_of(error)
        same = last_file == error.file and error.line is not None and where == f"{error.file}:{error.line}"
        places.append(f":{error.line}" if same else where)
        last_file = error.file
    more = f" and {len(group) - FIRST_PLACES:,} more" if len(group) > FIRST_PLACES else ""
    return f"{len(group):,} records: {text}: first at {', '.join(places)}{more}"


def _status_reasons(runset) -> dict[tuple[str, str], int]:
    """(status, why) of the runs an importer gave a status other than the harness's plain reading, with why."""
    from collections import Counter

    from .runset import run_metas

    runs = runset.runs[runset.runs["status"].isin(["invalid", "timeout"]).to_numpy(dtype=bool)]
    return dict(Counter((status, meta["status_reason"]) for status, meta in zip(runs["status"], run_metas(runs))
                        if "status_reason" in meta))


def _error_reasons(runset) -> dict[str, int]:
    from collections import Counter

    from .runset import run_metas

    errors = runset.runs[runset.runs["status"] == "error"]
    return dict(Counter(m.get("error_reason", "no reason recorded") for m in run_metas(errors)))


def _convert(args: argparse.Namespace) -> int:
    from .loading import load

    partition_by = tuple(c.strip() for c in args.partition_by.split(",") if c.strip()) if args.partition_by else ()
    if partition_by and args.to == "jsonl":
        print("ambiglib: --partition-by needs --to parquet", file=sys.stderr)
        return 2
    out = Path(args.out)
    as_jsonl = out.name.endswith((".jsonl", ".jsonl.gz"))
    to = args.to or ("jsonl" if as_jsonl else "parquet")
    if as_jsonl and to != "jsonl":
        print(f"ambiglib convert: --out {args.out} names a JSON Lines file, but --to is {to}: drop --to, or give"
              " --out a folder for Parquet", file=sys.stderr)
        return 2
    problem = _convert_target(out, Path(args.runs), to, args.force)
    if problem:
        _say(f"ambiglib convert: --out {out}: {problem}", sys.stderr)
        return 1
    runset = load(args.runs, quiet=args.quiet, **_mapping(args))
    existed = out.exists()
    try:
        written = runset.to_jsonl(out) if to == "jsonl" else runset.to_parquet(out, partition_by=partition_by)
    except OSError as exc:  # a read-only folder, a full disk: each file is written aside and renamed in whole
        if not existed and out.is_dir() and not any(out.iterdir()):
            out.rmdir()  # the folder this run made, empty: nothing partial is left
        _say(f"ambiglib convert: {exc.filename or out}: cannot be written ({exc.strerror or exc}); nothing was"
             " written over", sys.stderr)
        return 1
    except FormatError as exc:  # what a killed write left beside --out, or what appeared in it while this wrote
        _say(f"ambiglib convert: {exc}", sys.stderr)
        return 1
    problem = _read_back(written, runset)
    if problem:  # never "wrote" for a copy that does not load as the log read
        if not existed:  # this run made it: nothing wrong is left under the name
            import shutil

            if Path(written).is_dir():
                shutil.rmtree(written)
            else:
                Path(written).unlink()
        _say(f"ambiglib convert: {written}: does not read back as the log it was converted from ({problem}); "
             + ("removed" if not existed else "it is left as written: do not use it"), sys.stderr)
        return 1
    _say(f"wrote {written}")
    return 0


def _read_back(written, runset) -> str | None:
    """Why the converted copy at ``written`` is not the log ``runset`` holds: it does not load (strictly), or a
    frame differs (its rows, or a value of a column the copy keeps: every one but where each row was read, which
    names the copy). None when it loads as the same log."""
    from .loading import load

    try:
        again = load(written, quiet=True)
    except AmbiglibError as exc:
        return str(exc)
    have = again.frames()
    for name, frame in runset.frames().items():
        copy = have[name]
        if len(frame) != len(copy):
            return f"{name}: {len(frame):,} read, {len(copy):,} in the copy"
        for column in frame.columns:
            if column in _WHERE_READ:
                continue
            if column not in copy.columns or not frame[column].reset_index(drop=True).equals(
                    copy[column].reset_index(drop=True)):
                return f"{name}: column {column} differs from the log read"
    return None


#: columns that say where a row was read (which a copy names afresh), not what it holds
_WHERE_READ = frozenset({"source", "transcript_at", "log"})


def _convert_target(out: Path, runs: Path, to: str, force: bool) -> str | None:
    """Why ``convert`` will not write to ``out`` (None: it may). Never into the ``--runs`` folder (the next load
    would read both); never over an existing file or run log unless ``--force`` (it may be another log); never
    into a folder holding anything but a run log's files, even with ``--force``."""
    real_out, real_runs = out.resolve(), runs.resolve()
    if runs.is_dir() and (real_out == real_runs or real_runs in real_out.parents):
        return (f"lies inside --runs {runs}: the next load of {runs} would read the converted copy as a second copy"
                " of the log; write it outside")
    if not (out.exists() or out.is_symlink()):
        return None
    again = " (it is the log being converted)" if real_out == real_runs else ""
    if to == "jsonl" and out.name.endswith((".jsonl", ".jsonl.gz")):
        if out.is_dir() or out.is_symlink() or not out.is_file():
            return "exists and is not a regular file"
        return None if force else (
            f"exists{again}: convert does not write over a file, which may be another log; choose a new name, or add"
            " --force to replace it (the new file is written whole before it replaces the old)")
    if out.is_symlink() or not out.is_dir():
        return "exists and is not a folder"
    from .whole_writes import foreign_entries

    foreign = foreign_entries(out)  # a run log's files of any layout are replaced whole, one layout by another
    if foreign:
        return (f"holds what is not a run log's ({', '.join(foreign[:5])}{', ...' if len(foreign) > 5 else ''});"
                " convert writes only into a new folder or over a run log it wrote: choose another --out")
    if any(out.iterdir()) and not force:
        return ("holds a run log already, which may be another log's; choose a new folder, or add --force to"
                " replace it (the new log is written whole beside it, then swapped in)")
    return None


def _did_you_mean(word: str, possible, show=repr) -> str:
    """"; did you mean 'x'?" for the one of ``possible`` most like ``word`` (difflib's ratio at least 0.6), else ""."""
    close = get_close_matches(str(word), [str(p) for p in possible], n=1)
    return f"; did you mean {show(close[0])}?" if close else ""


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose fault is one line (without the usage above it), naming the choice or option most
    like a misspelt one."""

    def error(self, message: str):
        choice = re.match(r"argument \S+: invalid choice: '(.*)' \(choose from (.*)\)$", message)
        if choice:
            message += _did_you_mean(choice.group(1), re.findall(r"'([^']*)'", choice.group(2)))
        unknown = re.match(r"unrecognized arguments: (--[^\s=]+)", message)
        if unknown:  # the options this parser's usage names
            message += _did_you_mean(unknown.group(1), set(re.findall(r"--[\w-]+", self.format_usage())), show=str)
        self.exit(2, f"{self.prog}: {message} ({self.prog} --help lists what it takes)\n")


def _parameters_help() -> str:
    """The notebooks' parameters, for ``report --help``."""
    from .report import bundled_notebooks, notebook_parameters

    try:
        folder = bundled_notebooks()
    except ReportError:
        return ""
    seen: dict[str, tuple[str, str, set[str]]] = {}
    names = sorted(p.stem for p in folder.glob("*.ipynb"))
    for path in sorted(folder.glob("*.ipynb")):
        for name, p in notebook_parameters(path).items():
            entry = seen.setdefault(name, (p["inferred_type_name"], p["help"], set()))
            entry[2].add(path.stem)
    lines = ["notebook parameters (in a --params YAML file: top level for every notebook that has it,",
             "or under 'notebooks: {name: {...}}' for one):"]
    for name, (kind, text, where) in seen.items():
        if name in ("runs", "out_dir"):
            continue
        scope = "" if len(where) == len(names) else f" [{', '.join(sorted(where))}]"
        lines.append(f"  {name} ({kind}): {text}{scope}")
    lines.append(f"notebooks: {', '.join(names)}")
    return "\n".join(lines)


def _parser(with_parameters: bool) -> argparse.ArgumentParser:
    quiet_help = "no progress output (the load progress bar; the report's per-notebook lines)"
    # -q before or after the subcommand; SUPPRESS keeps the subcommand's default from undoing `ambiglib -q report`
    common = _Parser(add_help=False)
    common.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS, help=quiet_help)
    parser = _Parser(prog="ambiglib", allow_abbrev=False,
                     description="Analyse run logs of benchmarks that test whether AI agents ask when a task is"
                                 " ambiguous.")
    parser.add_argument("-q", "--quiet", action="store_true", help=quiet_help)
    parser.add_argument("--version", action="version", version=f"ambiglib {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("report", parents=[common], allow_abbrev=False,
                       help="run every notebook with papermill and write the report",
                       description="Run every notebook with papermill and write the report (index.html, tables,"
                                   " figures, executed notebooks) to --out.",
                       epilog=_parameters_help() if with_parameters else None,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", default=None, action="append", metavar="[LABEL=]PATH",
                   help=RUNS_HELP + " (default: the params file's runs, else the bundled example data); several logs"
                   " of one agent: --runs before=old/ --runs after=new/")
    p.add_argument("--out", default="reports", help="output folder (default: reports)")
    p.add_argument("--params", default=None, help="YAML file of notebook parameters (listed below)")
    p.add_argument("--notebooks", nargs="*", metavar="NAME",
                   help="only these notebooks (names without .ipynb), whether or not they apply to the log")
    p.add_argument("--all-sections", action="store_true",
                   help="run every notebook, also a paper's whose tables have nothing in this log (by default those"
                        " are listed on the index, not run: a paper's sections run where the log holds its benchmark"
                        " or the data one of its tables needs)")
    p.add_argument("--notebooks-dir", default=None,
                   help="run the notebooks in this folder (e.g. your edited copies) instead of the bundled ones")
    p.add_argument("--jobs", type=int, default=2, help="notebooks run at once (default: 2)")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 when the log has rejected records (the report is written either way)")
    p.add_argument("--new-kernels", action="store_true",
                   help="start a new kernel for every notebook (by default each worker keeps its kernel for its next"
                        " bundled notebook, reset to what a new kernel holds: faster, the same outputs; a notebook of"
                        " one's own always gets a new kernel)")
    p.add_argument("--notebook-timeout", type=float, default=1800.0, metavar="SECONDS",
                   help="stop a notebook that runs longer than this, failing it with a message (default 1800)")
    p.add_argument("--keep-snapshot", action="store_true",
                   help="keep the notebooks' snapshot of the log (Arrow IPC) in OUT/snapshot/")
    p.add_argument("--k", type=int, default=None, help="pass@k's k (the notebook parameter k; default 3)")
    for name, what in (("models", "models"), ("benchmarks", "benchmarks"), ("suites", "suites")):
        p.add_argument(f"--{name}", nargs="+", default=None, metavar="NAME",
                       help=f"only these {what}, by the names in the log (the notebook parameter {name})")
    _mapping_options(p)
    p.set_defaults(func=_report, parser=p)
    p = sub.add_parser("summary", parents=[common], allow_abbrev=False,
                       help="write what a run log holds, rejects and skips (summary.md, rejected.csv)")
    p.add_argument("--runs", default=None, help=RUNS_HELP + " (default: the bundled example data)")
    p.add_argument("--out", default=None, help="output folder (default: reports, in the current folder; the command"
                                               " says so)")
    _mapping_options(p)
    p.set_defaults(func=_summary, parser=p)
    p = sub.add_parser("validate", parents=[common], allow_abbrev=False,
                       help="check a run log: list the rejected records (one line a cause), harness anomalies and"
                            " what the metrics will refuse")
    p.add_argument("--runs", required=True, help=RUNS_HELP)
    p.add_argument("--each", action="store_true",
                   help="one line for every rejected record (default: one line a cause, with its count and first"
                        " places; ambiglib summary writes every one to rejected.csv)")
    _mapping_options(p)
    p.set_defaults(func=_validate, parser=p)
    p = sub.add_parser("convert", parents=[common], allow_abbrev=False,
                       help="rewrite a run log as canonical Parquet or JSON Lines")
    p.add_argument("--runs", required=True, help=RUNS_HELP)
    p.add_argument("--out", required=True, help="output folder (Parquet) or file (JSON Lines)")
    p.add_argument("--to", choices=["parquet", "jsonl"], default=None,
                   help="output format (default: jsonl when --out ends in .jsonl or .jsonl.gz, else parquet)")
    p.add_argument("--force", action="store_true",
                   help="replace an existing --out (a JSON Lines file, or a folder holding only a Parquet run log)")
    p.add_argument("--partition-by", default=None, metavar="COLS",
                   help="write a hive-partitioned Parquet store, e.g. benchmark,model (text columns of runs);"
                        " DuckDB, Polars, Spark and ambiglib.load(..., filters=...) read only the partitions they need")
    _mapping_options(p)
    p.set_defaults(func=_convert, parser=p)
    p = sub.add_parser("compare", parents=[common], allow_abbrev=False,
                       help="is one model (policy, the ask tool, or a log of the same agent) better than another?"
                            " paired by task, with CIs, the test fitted to the outcome, effect sizes, Holm",
                       description="Compare a metric between every pair of models, ask policies, with and without"
                                   " the ask tool, or two logs of one agent (before and after a change), paired by task"
                                   " (tables: comparisons.paired_comparison).")
    p.add_argument("--runs", required=True, action="append", metavar="[LABEL=]PATH",
                   help=RUNS_HELP + "; several logs of one agent: LABEL=PATH for each, the option repeated (--runs"
                                    " before=old/ --runs after=new/), compared with --between log (a PATH that exists"
                                    " is read as a path, '=' and all)")
    p.add_argument("--metric", choices=COMPARED, default="mean_score",
                   help="what is compared (default: mean_score; each is described in docs/metrics.md)")
    p.add_argument("--between", choices=["model", "policy", "ask_tool", "log"], default="model",
                   help="the two sides (default: model); log: the logs given as --runs LABEL=PATH, each later one"
                        " against each earlier one (after − before), one agent's runs paired by task, and the tasks"
                        " that improved and regressed listed")
    p.add_argument("--a", default=None, help="one side (e.g. a model's name); with --b, only this pair")
    p.add_argument("--b", default=None, help="the other side")
    p.add_argument("--condition", choices=list(CONDITION_NAMES), default=None,
                   help="the runs mean_score and pass_at_k compare (default: ambiguous+tool, ambiguous tasks with the"
                        " ask tool); the other metrics fix their own")
    p.add_argument("--k", type=int, default=3, help="pass@k's k (default 3; at most 100)")
    _test_option(p)
    p.add_argument("--alternative", choices=["two-sided", "greater", "less"], default="two-sided",
                   help="greater: side a > side b (default: two-sided)")
    p.add_argument("--correction", choices=["holm", "fdr_bh"], default="holm",  # comparisons.CORRECTIONS
                   help="how the p-values are adjusted within each family: holm (default) bounds the chance of any"
                        " false difference; fdr_bh (Benjamini–Hochberg) bounds the expected share of false differences")
    _family_option(p)
    p.add_argument("--interval", choices=["t", "bootstrap"], default="t",  # comparisons.INTERVALS
                   help="t (default): the t-interval of the per-task differences (linearized for a pooled ratio);"
                        " bootstrap: the percentile task bootstrap, which covers less than 95%% below ~50 tasks")
    p.add_argument("--n-boot", type=int, default=10_000,
                   help="task-bootstrap replicates (default 10,000; at most 100,000)")
    _mapping_options(p)
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--max-pairs", type=int, default=MAX_PAIRS, metavar="N",
                   help=f"without --a and --b, refuse more than N pairs (default {MAX_PAIRS}; each costs an interval"
                        " and a test)")
    p.add_argument("--format", choices=["table", "csv", "md", "json"], default="table",
                   help="table (default, for reading), csv, md or json (for scripts)")
    p.set_defaults(func=_compare, parser=p)
    p = sub.add_parser("rank", parents=[common], allow_abbrev=False,
                       help="how do the agents rank on one metric? each agent's value, rank interval, share of first"
                            " places and group, after a global test; 'best' only where the log shows it",
                       description="Rank every model (or ask policy) on one metric, per benchmark: a global test over"
                                   " tasks, every pair paired by task and adjusted within its family, and from those"
                                   " decisions each agent's rank interval and group letters (ranking.rank_agents;"
                                   " docs/metrics.md, 'Rankings').")
    p.add_argument("--runs", required=True, help=RUNS_HELP)
    p.add_argument("--metric", choices=COMPARED, default="mean_score",
                   help="what is ranked (default: mean_score; each is described in docs/metrics.md)")
    p.add_argument("--between", choices=["model", "policy"], default="model",
                   help="what is ranked: models under each ask policy (default), or ask policies of each model")
    p.add_argument("--condition", choices=list(CONDITION_NAMES), default=None,
                   help="the runs mean_score and pass_at_k rank (default: ambiguous+tool); for ask_rate, ambiguous+tool"
                        " (asking when it should) or full+tool (over-asking)")
    p.add_argument("--k", type=int, default=3, help="pass@k's k (default 3; at most 100)")
    _test_option(p)
    _family_option(p)
    p.add_argument("--alpha", type=float, default=0.05, help="the level of every decision (default 0.05)")
    p.add_argument("--n-boot", type=int, default=2000,
                   help="task-bootstrap draws for each agent's share of first places (default 2,000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and the permutations (default 0)")
    p.add_argument("--max-pairs", type=int, default=MAX_PAIRS, metavar="N",
                   help=f"refuse more than N pairs in one block (default {MAX_PAIRS}; each costs an interval and a"
                        " test)")
    _mapping_options(p)
    p.add_argument("--format", choices=["table", "csv", "md", "json"], default="table",
                   help="table (default, for reading: the sentences, the ranking, its tests), csv, md or json")
    p.add_argument("--pairs", action="store_true", help="with csv, md or json: every pair behind the ranking instead")
    p.set_defaults(func=_rank, parser=p)
    p = sub.add_parser("schema", parents=[common], allow_abbrev=False,
                       help="print the run log's contract as JSON Schema (draft 2020-12), to check records before"
                            " handing them over",
                       description="Print the JSON Schema (draft 2020-12) of one run-log record, made from"
                                   " ambiglib/schema.py: ambiglib schema > runlog.schema.json. Necessary, not"
                                   " sufficient: what it cannot say is in its $comment and in docs/runlog.md.")
    p.set_defaults(func=_schema, parser=p)
    return parser


def _test_option(p: argparse.ArgumentParser) -> None:
    """``--test``: each pair's test (comparisons.TESTS)."""
    p.add_argument("--test", choices=["auto", "mcnemar", "mcnemar-midp", "permutation", "wilcoxon"], default="auto",
                   help="auto (default): mid-p McNemar for one pass/fail trial per task, else a paired permutation"
                        " test; mcnemar: the exact McNemar test, conservative with few tasks; mcnemar-midp: its"
                        " mid-p form; wilcoxon: the signed-rank test Ambig-DS reports")


def _family_option(p: argparse.ArgumentParser) -> None:
    """``--family``: the rows whose p-values are adjusted together (comparisons.FAMILIES)."""
    p.add_argument("--family", choices=["question", "metric", "benchmark", "all"], default="question",
                   help="the rows adjusted together: question (default: each benchmark's metrics of one question,"
                        " so a benchmark's verdict does not change with the others in the log), metric, benchmark,"
                        " or all (every row)")


def _mapping_options(p: argparse.ArgumentParser) -> None:
    """``--ask-tool`` and ``--scorer``: how Inspect AI logs map to runs (other layouts ignore them)."""
    p.add_argument("--ask-tool", action="append", metavar="NAME",
                   help="Inspect AI logs: a tool whose calls are questions to the user (repeat for several; default:"
                        " ask_user, ask_human, ask_question, clarify)")
    p.add_argument("--scorer", default=None, metavar="NAME",
                   help="Inspect AI logs: the scorer whose value is each run's score (default: each sample's first)")


#: The interrupt the command is unwinding with, until an ``except`` of ours has taken it (``_taken``).
_INTERRUPT: list[KeyboardInterrupt] = []
#: How often a lost interrupt is raised again, in seconds.
WATCH_SECONDS = 0.1


def _interrupted(signum: int, frame: object) -> None:
    """SIGINT or SIGTERM: the first unwinds the command (KeyboardInterrupt), and the rest are ignored while it
    cleans up, so that the command ends with its one line, not a traceback from inside its cleanup.

    Code we do not own can lose the exception: the init of a Cython module with memoryviews (pandas' ``_libs``
    has them) registers its types with ``collections.abc.Sequence`` under a bare ``except: pass``, so Ctrl-C
    during ``import pandas`` was lost now and then and the report ran to its end. So the interrupt is watched
    (``_watch``) until one of our ``except`` clauses takes it."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    _INTERRUPT[:] = [KeyboardInterrupt()]
    signal.signal(signal.SIGALRM, _watch)
    signal.setitimer(signal.ITIMER_REAL, WATCH_SECONDS, WATCH_SECONDS)
    raise _INTERRUPT[0]


def _watch(signum: int, frame: object) -> None:
    """SIGALRM, every ``WATCH_SECONDS`` after an interrupt: raise it again unless it is being handled (it, or an
    exception raised while handling it, is the one ``sys.exc_info`` gives: a cleanup is running)."""
    if not _INTERRUPT:
        return
    handled = sys.exc_info()[1]
    while handled is not None:
        if handled is _INTERRUPT[0]:
            return
        handled = handled.__context__
    raise _INTERRUPT[0].with_traceback(None)


def _taken() -> None:
    """An ``except KeyboardInterrupt`` of ours has the interrupt: stop watching it."""
    import signal

    signal.setitimer(signal.ITIMER_REAL, 0)
    _INTERRUPT.clear()


#: comparisons.COMPARABLE's names, here so that the command line does not import pandas to list them (a test
#: keeps the two equal)
COMPARED = ("ask_f1", "ask_rate", "calib_score", "gain_per_question", "judge_score", "mean_score", "pass_at_k",
            "pass_gain_pp", "precision", "questions_per_run", "recall", "score_gain_pp")


#: --condition's values: (spec, ask_tool)
CONDITION_NAMES = {"ambiguous+tool": ("ambiguous", True), "ambiguous": ("ambiguous", False),
                   "full": ("full", False), "full+tool": ("full", True)}


#: ``compare`` without --a and --b compares at most this many pairs unless --max-pairs says more: every pair runs
#: an interval and a test, so 200 models' 19,900 pairs take hours (docs/performance.md), and Holm over so many
#: rows leaves little that can be told apart
MAX_PAIRS = 500


def _compare(args: argparse.Namespace) -> int:  # noqa: C901 - each option pairing refused with its own message
    from .comparisons import CONDITIONED, count_pairs, paired_comparison
    from .filters import not_in_log
    from .loading import load
    from .metrics import MetricError

    if (args.a is None) != (args.b is None):
        print("ambiglib compare: give both --a and --b (or neither: every pair)", file=sys.stderr)
        return 2
    from .report.parameters import MAX_K
    from .stats import MAX_N_BOOT

    if not 1 <= args.k <= MAX_K or not 1 <= args.n_boot <= MAX_N_BOOT:
        print(f"ambiglib compare: --k must be from 1 to {MAX_K} and --n-boot from 1 to {MAX_N_BOOT:,} (got --k"
              f" {args.k}, --n-boot {args.n_boot:,}): more cost hours and change nothing a reader sees",
              file=sys.stderr)
        return 2
    if args.seed < 0 or args.max_pairs < 1:
        what = f"--seed must be 0 or more (got {args.seed}): it seeds numpy's random generator, which takes no" \
               " negative seed" if args.seed < 0 else f"--max-pairs must be 1 or more (got {args.max_pairs})"
        print(f"ambiglib compare: {what}", file=sys.stderr)
        return 2
    if args.condition is not None and args.metric not in CONDITIONED:
        print(f"ambiglib compare: --condition applies to {' and '.join(CONDITIONED)}; {args.metric} fixes its own"
              " runs (the condition column says which)", file=sys.stderr)
        return 2
    try:
        runs = _logs_given(args.runs)
    except ArgumentError as exc:
        _say(f"ambiglib compare: {exc}", sys.stderr)
        return 2
    if args.between == "log" and (isinstance(runs, str) or len(runs) < 2):
        got = "one log without a label" if isinstance(runs, str) else f"one log, {next(iter(runs))!r}"
        _say(f"ambiglib compare: --between log compares two or more logs of one agent, each given as --runs"
             f" LABEL=PATH (--runs before=old/ --runs after=new/); got {got}", sys.stderr)
        return 2
    sides: tuple[Any, Any] = (None, None)
    if args.a is not None:
        if args.between == "ask_tool":
            truth = {"true": True, "false": False}
            bad = [v for v in (args.a, args.b) if v.lower() not in truth]
            if bad:
                print(f"ambiglib compare: --between ask_tool takes --a and --b as true or false (got {bad[0]!r})",
                      file=sys.stderr)
                return 2
            sides = (truth[args.a.lower()], truth[args.b.lower()])
        else:
            sides = (args.a, args.b)
        if sides[0] == sides[1]:
            both = str(sides[0]).lower() if args.between == "ask_tool" else repr(sides[0])
            _say(f"ambiglib compare: --a and --b are both {both}: a side compared with itself differs by 0 on every"
                 f" task; give two different {_SIDE_NAMES[args.between]}", sys.stderr)
            return 2
    if isinstance(runs, str):
        rs, errors = load(runs, strict=False, quiet=True, ask_tools=args.ask_tool or None)
    else:  # several logs, by label: a missing path or a log that cannot be read is this command's one line
        try:
            rs, errors = load(runs, strict=False, quiet=True, ask_tools=args.ask_tool or None)
        except AmbiglibError as exc:
            _say(f"ambiglib compare: {exc}", sys.stderr)
            return 2
    from .importers.inspect_logs import mapping_warnings

    for warning in mapping_warnings(rs, args.ask_tool or None, evals=False):  # before any number
        _say(f"ambiglib compare: warning: {warning}", sys.stderr)
    if errors:
        listed = f"ambiglib validate --runs {runs} lists them" if isinstance(runs, str) else \
            "ambiglib validate " + " and ".join(f"--runs {path}" for path in runs.values()) + " list them"
        _say(f"{len(errors)} record{'s' if len(errors) != 1 else ''} rejected ({listed})", sys.stderr)
    condition = CONDITION_NAMES[args.condition or "ambiguous+tool"]
    if args.a is not None and args.between != "ask_tool":
        present = set(rs.runs[args.between].astype(str))
        for flag, value in (("--a", args.a), ("--b", args.b)):
            absent = not_in_log([value], present, args.between)
            if absent:
                _say(f"ambiglib compare: {flag}: {absent}{_did_you_mean(value, present)}", sys.stderr)
                return 2
    elif args.a is None and args.between != "ask_tool":  # (with and without the tool: one pair a model and policy)
        n_pairs, n_sides, where = count_pairs(rs, metric=args.metric, between=args.between, condition=condition)
        if n_pairs > args.max_pairs:
            many = f"{n_sides:,} {_SIDE_NAMES[args.between]}"
            head = f"{many} make {n_pairs:,} pairs ({where})" if n_pairs == n_sides * (n_sides - 1) // 2 else \
                f"{n_pairs:,} pairs ({many} in {where} alone)"
            _say(f"ambiglib compare: {head}, more than --max-pairs {args.max_pairs:,}: each pair is an interval and a"
                 " test, and Holm over them all tells few apart; compare the pair you mean with --a NAME --b NAME, or"
                 " raise --max-pairs", sys.stderr)
            return 2
    given, alternative = sides, args.alternative
    if args.between == "log" and args.format == "table":  # for reading, after − before whichever order --a, --b give
        from .answer import later_first

        a, b, alternative = later_first(rs, "log", *sides, alternative)
        sides = (a, b)
    try:
        out = paired_comparison(rs, metric=args.metric, between=args.between, condition=condition, a=sides[0],
                                b=sides[1], k=args.k, test=args.test, alternative=alternative,
                                n_boot=args.n_boot, seed=args.seed, correction=args.correction,
                                family=args.family, interval=args.interval)
    except (AmbiglibError, MetricError) as exc:  # an argument the log's runs do not allow, or a metric that refuses
        _say(f"ambiglib compare: {_as_flags(str(exc))}", sys.stderr)
        return 2 if isinstance(exc, ArgumentError) else 1
    if len(out) == 0:
        print(f"ambiglib compare: nothing to compare: {out.attrs.get('note', 'no pairs')}", file=sys.stderr)
        return 1
    if args.between == "log" and args.format == "table":  # the difference and its test, then the tasks that moved
        from .comparisons import per_task

        tasks = per_task(rs, metric=args.metric, between="log", condition=condition, a=sides[0], b=sides[1],
                         k=args.k)
        return _print_log_changes(out, tasks, args.correction, swapped=sides != given)
    return _print_table(out, args.format)


def _rank(args: argparse.Namespace) -> int:
    """``ambiglib rank``: one metric's ranking, per benchmark (ranking.rank_agents)."""
    from .comparisons import CONDITIONED, count_pairs
    from .loading import load
    from .metrics import MetricError
    from .ranking import rank_agents
    from .report.parameters import MAX_K
    from .stats import MAX_N_BOOT

    if not 1 <= args.k <= MAX_K or not 1 <= args.n_boot <= MAX_N_BOOT or not 0 < args.alpha < 1 or args.seed < 0:
        print(f"ambiglib rank: --k must be from 1 to {MAX_K}, --n-boot from 1 to {MAX_N_BOOT:,}, --alpha between 0"
              f" and 1 and --seed 0 or more (got --k {args.k}, --n-boot {args.n_boot:,}, --alpha {args.alpha:g},"
              f" --seed {args.seed})", file=sys.stderr)
        return 2
    if args.condition is not None and args.metric not in CONDITIONED:
        print(f"ambiglib rank: --condition applies to {' and '.join(CONDITIONED)}; {args.metric} fixes its own runs",
              file=sys.stderr)
        return 2
    rs, errors = load(args.runs, strict=False, quiet=True, ask_tools=args.ask_tool or None)
    if errors:
        _say(f"{len(errors)} record{'s' if len(errors) != 1 else ''} rejected (ambiglib validate --runs {args.runs}"
             " lists them)", sys.stderr)
    condition = CONDITION_NAMES[args.condition or "ambiguous+tool"]
    n_pairs, n_sides, where = count_pairs(rs, metric=args.metric, between=args.between, condition=condition)
    if n_pairs > args.max_pairs:
        _say(f"ambiglib rank: {n_sides:,} {_SIDE_NAMES[args.between]} make {n_pairs:,} pairs ({where}), more than"
             f" --max-pairs {args.max_pairs:,}: raise --max-pairs to rank them all", sys.stderr)
        return 2
    try:
        out = rank_agents(rs, metric=args.metric, condition=condition, between=args.between, k=args.k,
                          test=args.test, family=args.family, alpha=args.alpha, n_boot=args.n_boot, seed=args.seed)
    except (AmbiglibError, MetricError) as exc:
        _say(f"ambiglib rank: {_as_flags(str(exc)).replace('paired_comparison: ', '')}", sys.stderr)
        return 2 if isinstance(exc, ArgumentError) else 1
    if len(out) == 0:
        _say(f"ambiglib rank: nothing to rank: {out.attrs.get('note') or 'no agents'}", sys.stderr)
        return 1
    if args.format != "table":
        if args.pairs:
            from .ranking import ranking_pairs

            return _print_plain(ranking_pairs(rs, metric=args.metric, condition=condition, between=args.between,
                                              k=args.k, test=args.test, family=args.family, alpha=args.alpha,
                                              n_boot=args.n_boot, seed=args.seed), args.format)
        return _print_plain(out, args.format)
    return _print_ranking(out, args.between)


def _print_plain(table, fmt: str) -> int:
    """A table for scripts (csv, md, json) on standard output, its notes on standard error."""
    from .report.rendering import csv_safe, markdown_safe
    from .tables._common import empty_lines

    if fmt == "csv":
        text = csv_safe(table).to_csv(index=False)
        sys.stdout.write(visible(text) if sys.stdout.isatty() else text)
    elif fmt == "md":
        _say(markdown_safe(table).to_markdown(index=False, floatfmt=".3f"))
    else:
        print(table.to_json(orient="records", indent=1))
    for line in ([f"note: {table.attrs['note']}"] if table.attrs.get("note") else []) + empty_lines(table):
        _say(line, sys.stderr)
    return 0


def _print_ranking(out, between: str) -> int:
    """``ambiglib rank``, for reading: what the log lets one say (one sentence per benchmark), then each block's
    agents with their value and interval, rank interval, share of first places and group, its global test and
    family, and the notes."""
    import pandas as pd

    from .cards import rank_span, with_interval
    from .report.rendering import render_table

    side = "agent" if between == "model" else between
    for line in out.attrs.get("answer") or []:
        _say(line)
    keys = [c for c in ("benchmark", "model", "policy", "log") if c in out.columns and c != side]
    for key, block in out.groupby(keys, sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        first = block.iloc[0]
        fmt = "pp" if first["unit"] == "pp" else "score"
        _say("")
        named = [str(k) for c, k in zip(keys, key) if pd.notna(k) and not (c == "policy" and k == "default")]
        _say(f"{' · '.join(named)}: {first['what']} (runs: {first['condition']})")
        shown = pd.DataFrame({
            side: block[side].astype(str).to_numpy(),
            "value (95%)": ["–" if pd.isna(v) else with_interval(float(v), lo, hi, fmt) for v, lo, hi in
                            zip(block["value"], block["value_ci_low"], block["value_ci_high"])],
            "rank": [rank_span(r, "rank_low") or "–" for _, r in block.iterrows()],
            "first": ["–" if pd.isna(v) else f"{100 * v:.0f}%" for v in block["p_first"]],
            "group": [g if isinstance(g, str) else "–" for g in block["group"]],
            "tasks": block["n_tasks"].to_numpy()})
        _say(render_table(shown))
        _say(f"  global test: {first['global_test']} over {int(first['global_n_tasks'])} tasks every agent ran: p ="
             f" {first['global_p']:.3g}" if pd.notna(first["global_p"]) else "  global test: none (one agent)"
             if int(first["n_agents"]) < 2 else "  global test: none (no task every agent ran)")
        _say(f"  pairs separated: {int(first['n_pairs_separated'] or 0)} of {int(first['n_pairs_possible'] or 0)}"
             f" (family: {first['family']}); the interval of each agent's value: {first['ci_method']}")
    _say("")
    notes = [f"note: {out.attrs['note']}"] if out.attrs.get("note") else []
    shown = ["value", "value_ci_low", "value_ci_high", "rank", "rank_low", "rank_high", "p_first", "group", "global_p"]
    for line in notes + _shown_empty_lines(out, shown):  # no footnote on a column the lines above do not print
        _say(line)
    _say("every pair: ambiglib rank ... --format csv --pairs")
    return 0


def _logs_given(values: list[str]) -> str | dict[str, str]:
    """``--runs`` as ``load`` takes it: one path, or several logs by label (``LABEL=PATH`` each, split at the first
    ``=``). A value that exists as a file or folder is a path, whatever it holds; an ArgumentError says what is
    wrong with the rest (a log without a label among several, a label given twice, a label a log cannot have)."""
    import os

    from .log_labels import check_label

    given = [(None, v) if os.path.lexists(v) or "=" not in v else tuple(v.split("=", 1)) for v in values]
    if len(given) == 1 and given[0][0] is None:
        return values[0]
    logs: dict[str, str] = {}
    for label, path in given:
        if label is None:
            raise ArgumentError(f"--runs {path}: no label; with several --runs give each log one, LABEL=PATH"
                                f" (--runs before={path})")
        check_label(label, "--runs")
        if label in logs:
            raise ArgumentError(f"--runs: the label {label!r} is given twice ({logs[label]} and {path}): each log"
                                " needs a label of its own")
        if not path:
            raise ArgumentError(f"--runs {label}=: no path after the label")
        logs[label] = path
    return logs


def _shown_empty_lines(table, shown) -> list[str]:
    """What each "–" means, for the columns a reader is shown (``shown``) alone: no footnote on a column the
    command did not print."""
    from .tables._common import empty_lines

    return empty_lines(table[[c for c in table.columns if c in set(shown)]])


def _print_log_changes(out, tasks, correction: str, swapped: bool = False) -> int:
    """``compare --between log``, for reading: per comparison, the paired difference (later log − earlier, named)
    and its test first, then the tasks that improved and those that regressed (each side's value and the
    difference), the most moved first; the notes last. ``swapped``: --a and --b were given earlier first, and the
    comparison was made later first (said in the heading)."""
    import numpy as np
    import pandas as pd

    from .comparisons import CORRECTIONS, metric_name

    keys = [c for c in ("benchmark", "suite", "model", "policy", "log_a", "log_b") if c in out.columns]
    for (metric, condition), rows in out.groupby(["metric", "condition"], sort=False):
        pairs = ", ".join(dict.fromkeys(f"{a} − {b}" for a, b in zip(rows["log_a"], rows["log_b"])))
        _say(f"{metric_name(str(metric))} on {condition}, paired by task; difference = the later log − the earlier"
             f" ({pairs})" + (", whichever order --a and --b give" if swapped else ""))
    for r in out.itertuples(index=False):
        a, b = str(r.log_a), str(r.log_b)
        policy = "" if str(r.policy) == "default" else f" (policy {r.policy})"
        interval = "no interval" if not (np.isfinite(r.difference_ci_low) and np.isfinite(r.difference_ci_high)) \
            else f"{100 * r.ci_level:g}% interval {r.difference_ci_low:+.3g} to {r.difference_ci_high:+.3g}" \
                 f" ({r.ci_method})"
        model = f" {r.model}" if "model" in out.columns else ""  # (logs of one model each: paired as versions)
        _say(f"{r.benchmark} {r.suite}{model}{policy}: {a} − {b} = {r.difference:+.3g} ({r.value_a:.3g} vs"
             f" {r.value_b:.3g} over {r.n_pairs} tasks), {interval}")
        p = "no p-value (no task's sides differ)" if not np.isfinite(r.p_value) else \
            f"p = {r.p_value:.3g} ({r.alternative}; {CORRECTIONS[correction][0]} over {len(out)}" \
            f" row{'s' if len(out) != 1 else ''}: {getattr(r, 'p_' + correction):.3g})"
        _say(f"  test: {r.test}: {p}; {r.n_differing} task{'s' if r.n_differing != 1 else ''} differ")
        if isinstance(r.ci_vs_test, str):
            _say(f"  {r.ci_vs_test}")
        mine = tasks
        for column in keys:
            mine = mine[(mine[column].astype(str) == str(getattr(r, column))).to_numpy(dtype=bool)]
        for title, rows in ((f"improved ({a} above {b})", mine[mine["difference"] > 0]),
                            (f"regressed ({a} below {b})", mine[mine["difference"] < 0])):
            _say(f"  {title}: {len(rows)} task{'s' if len(rows) != 1 else ''}" + (", most moved first" if len(rows)
                                                                                   else ""))
            if len(rows):
                shown = pd.DataFrame({"task_id": rows["task_id"].astype(str).to_numpy(),
                                      b: [f"{v:.3g}" for v in rows["value_b"]],
                                      a: [f"{v:.3g}" for v in rows["value_a"]],
                                      "difference": [f"{v:+.3g}" for v in rows["difference"]]})
                _say("\n".join("    " + line for line in shown.to_string(index=False).splitlines()))
        same = int((mine["difference"] == 0).sum())
        if same:
            _say(f"  the same on both: {same} task{'s' if same != 1 else ''}")
    notes = [f"note: {out.attrs['note']}"] if out.attrs.get("note") else []
    shown = ["difference_ci_low", "difference_ci_high", "p_value", f"p_{correction}"]  # what the lines above say
    for line in notes + _shown_empty_lines(out, shown):
        _say(line)
    return 0


#: --between's values as the sides' plural, for messages
_SIDE_NAMES = {"model": "models", "policy": "ask policies", "ask_tool": "sides of the ask tool", "log": "logs"}


def _as_flags(text: str) -> str:
    """A message of ``comparisons`` in the command's words: ``test='mcnemar'`` is ``--test mcnemar``."""
    text = text.removeprefix("paired_comparison: ")
    return re.sub(r"\btest='([\w-]+)'", r"--test \1", text)


def _print_table(table, fmt: str) -> int:
    """A comparison on standard output; for reading (``table``), what it compares above it and its notes below
    (for scripts, csv, md and json hold the table alone, and the notes go to standard error)."""
    from .report.rendering import csv_safe, markdown_safe, render_table
    from .tables._common import empty_lines

    notes = [f"note: {table.attrs['note']}"] if table.attrs.get("note") else []
    shown = table.drop(columns=["alternative", "metric", "condition", "ci_level", "ci_method", "ci_vs_test"])
    if fmt == "table":  # the reasons for the columns printed; csv, md and json hold every column
        notes += _shown_empty_lines(table, shown.columns)
    else:
        notes += empty_lines(table)
    if fmt == "csv":  # exact for a script; on a terminal, its control characters shown (text.visible)
        text = csv_safe(table).to_csv(index=False)
        sys.stdout.write(visible(text) if sys.stdout.isatty() else text)
    elif fmt == "md":
        _say(markdown_safe(table).to_markdown(index=False, floatfmt=".3f"))
    elif fmt == "json":
        print(table.to_json(orient="records", indent=1))
    else:
        side = next(c for c in table.columns if c.endswith("_a")).removesuffix("_a")
        from .comparisons import metric_name

        for (metric, condition), rows in table.groupby(["metric", "condition"], sort=False):
            pairs = list(dict.fromkeys(f"{a} − {b}" for a, b in zip(rows[f"{side}_a"], rows[f"{side}_b"])))
            named = f" ({pairs[0]})" if len(pairs) == 1 else ""
            _say(f"{metric_name(str(metric))} on {condition}, paired by task; difference = {side}_a − {side}_b"
                 f"{named}")
        for (level, method), _ in table.groupby(["ci_level", "ci_method"], sort=False):
            _say(f"interval: {100 * level:g}% {method}")
        shown.attrs = {}
        _say(render_table(shown, float_format="{:.3g}"))
        for i, text in zip(table.index, table["ci_vs_test"]):
            if isinstance(text, str):
                _say(f"row {i} ({table[f'{side}_a'][i]} − {table[f'{side}_b'][i]}): {text}")
        for line in notes:
            _say(line)
        sides = len(set(table[f"{side}_a"].astype(str)) | set(table[f"{side}_b"].astype(str)))
        if sides > 2 and side in ("model", "policy"):  # many agents: which is best is a ranking's question
            _say(f"{sides} {_SIDE_NAMES[side]}: `ambiglib rank --runs ... --metric {table['metric'].iloc[0]}` ranks"
                 " them, with rank intervals and groups (docs/metrics.md, 'Rankings')")
        return 0
    for line in notes:
        _say(line, sys.stderr)
    return 0


def _schema(args: argparse.Namespace) -> int:
    """``ambiglib schema``: the run log's JSON Schema on stdout (ambiglib.json_schema)."""
    from .json_schema import schema_text

    sys.stdout.write(schema_text())
    return 0


def run() -> int:
    """The ``ambiglib`` program (its console script, and ``python -m ambiglib``): :func:`main` in a process of its
    own, which ``report`` may rid of imports nothing in it uses. :func:`main` called from Python leaves the
    caller's process as it is."""
    return main(program=True)


def main(argv: list[str] | None = None, *, program: bool = False) -> int:
    import signal

    previous = {signal.SIGALRM: signal.getsignal(signal.SIGALRM),
                **{s: signal.signal(s, _interrupted) for s in (signal.SIGINT, signal.SIGTERM)}}
    command = "ambiglib"
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        if not argv:  # bare `ambiglib`: what it does and its commands, not an error
            _parser(False).print_help()
            return 0
        # the notebook parameters are read only when report's help is asked for
        parser = _parser(with_parameters="report" in argv and any(a in ("-h", "--help") for a in argv))
        args, extra = parser.parse_known_args(argv)
        if extra:  # said by the command's own parser, which knows the options meant
            args.parser.error(f"unrecognized arguments: {' '.join(extra)}")
        args.program = program
        command = f"ambiglib {args.command}"
        import warnings

        from .errors import AskToolWarning

        with warnings.catch_warnings():
            # each command says it itself, first: validate and compare as a line, report and summary in their summary
            warnings.simplefilter("ignore", AskToolWarning)
            return args.func(args)
    except AmbiglibError as exc:
        _say(f"ambiglib: {exc}", sys.stderr)
        return 2
    except KeyboardInterrupt:
        _taken()
        print(f"{command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `ambiglib validate ... | head`: the reader stopped reading; nothing more to say
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the interpreter's last flush too
        return 141
    except OSError as exc:  # the output itself cannot be written (stdout on a full disk), or what a command missed
        try:
            _say(f"{command}: {exc.filename or 'output'}: {exc.strerror or exc}", sys.stderr)
        except OSError:
            pass
        return 1
    finally:
        if _INTERRUPT:  # the command ended before the interrupt could be raised again
            _taken()
        for sig, handler in previous.items():
            if handler is not None:  # (None: set outside Python; it cannot be put back from here)
                signal.signal(sig, handler)


if __name__ == "__main__":
    sys.exit(main())
