"""The ``ambiglib`` command line (also ``python -m ambiglib``): ``report``, ``summary``, ``validate``, ``convert``.

Every subcommand takes the run log as ``--runs PATH`` and ``-q`` after its name.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import __version__
from .errors import AmbiglibError, ReportError
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


def _report(args: argparse.Namespace) -> int:
    progress, close = _progress(args.quiet)
    try:
        if args.program:  # this process is the command's own (main sets it): see decline_unused_imports
            from .report.runner import decline_unused_imports

            decline_unused_imports()
        from .report import run_report

        given = {"k": args.k, "models": args.models, "benchmarks": args.benchmarks, "suites": args.suites,
                 **_mapping(args)}
        index = run_report(args.runs, args.out, params_file=args.params, notebooks=args.notebooks or None,
                           notebooks_dir=args.notebooks_dir, jobs=args.jobs, progress=progress,
                           parameters={k: v for k, v in given.items() if v is not None},
                           keep_snapshot=args.keep_snapshot, reuse_kernels=not args.new_kernels,
                           notebook_timeout=args.notebook_timeout)
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
    _say(f"wrote {index}")
    rejected = _rejected_count(index.parent / "rejected.csv")
    if rejected:
        print(f"{rejected} record{'s' if rejected != 1 else ''} rejected: see {index.parent / 'rejected.csv'}"
              + (" (--strict: failing)" if args.strict else " (--strict makes this an error)"))
        return 1 if args.strict else 0
    return 0


def _rejected_count(path) -> int:
    """Rows of a report's rejected.csv (0 when there is none)."""
    import csv

    try:
        with open(path, newline="", encoding="utf-8") as fh:
            return max(0, sum(1 for _ in csv.reader(fh)) - 1)
    except OSError:
        return 0


def _summary(args: argparse.Namespace) -> int:
    from .loading import load
    from .report import example_runs, write_summary

    runs = args.runs or example_runs()
    if runs is None:
        print("ambiglib summary: no run log: pass --runs", file=sys.stderr)
        return 2
    from .report.folder import write_files

    out = Path(args.out).resolve()
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
    for error in errors:
        _say(error.message)
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
    _say(f"{args.runs}: {len(runset.runs)} runs, {len(runset.tasks)} tasks accepted;"
         f" {len(errors)} record{'s' if len(errors) != 1 else ''} rejected")
    return 1 if errors else 0


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
    _say(f"wrote {written}")
    return 0


def _convert_target(out: Path, runs: Path, to: str, force: bool) -> str | None:
    """Why ``convert`` will not write to ``out`` (None: it may). Never into the ``--runs`` folder (the next load
    would read both); never over an existing file or run log unless ``--force`` (it may be another log); never
    into a folder holding anything but a Parquet run log's files, even with ``--force``."""
    from .runlog import FRAMES

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
    # the frames' files, a store's frame folders, or a JSON Lines folder's two files
    ours = {f"{f}.parquet" for f in FRAMES} | set(FRAMES) if to == "parquet" else {"runs.jsonl", "tasks.jsonl"}
    held = sorted(p.name for p in out.iterdir())
    foreign = [n for n in held if n not in ours]
    if foreign:
        return (f"holds what is not a run log's ({', '.join(foreign[:5])}{', ...' if len(foreign) > 5 else ''});"
                " convert writes only into a new folder or over a run log it wrote: choose another --out")
    if held and not force:
        return (f"holds a {'Parquet' if to == 'parquet' else 'JSON Lines'} run log already, which may be another"
                " log's; choose a new folder, or add --force to replace it")
    return None


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
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS, help=quiet_help)
    parser = argparse.ArgumentParser(prog="ambiglib", allow_abbrev=False,
                                     description="Analyse run logs of benchmarks that test whether AI agents ask"
                                                 " when a task is ambiguous.")
    parser.add_argument("-q", "--quiet", action="store_true", help=quiet_help)
    parser.add_argument("--version", action="version", version=f"ambiglib {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("report", parents=[common], allow_abbrev=False,
                       help="run every notebook with papermill and write the report",
                       description="Run every notebook with papermill and write the report (index.html, tables,"
                                   " figures, executed notebooks) to --out.",
                       epilog=_parameters_help() if with_parameters else None,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", default=None, help=RUNS_HELP + " (default: the params file's runs, else the bundled"
                                                 " example data)")
    p.add_argument("--out", default="reports", help="output folder (default: reports)")
    p.add_argument("--params", default=None, help="YAML file of notebook parameters (listed below)")
    p.add_argument("--notebooks", nargs="*", metavar="NAME", help="only these notebooks (names without .ipynb)")
    p.add_argument("--notebooks-dir", default=None,
                   help="run the notebooks in this folder (e.g. your edited copies) instead of the bundled ones")
    p.add_argument("--jobs", type=int, default=2, help="notebooks run at once (default: 2)")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 when the log has rejected records (the report is written either way)")
    p.add_argument("--new-kernels", action="store_true",
                   help="start a new kernel for every notebook (by default each worker keeps its kernel for its next"
                        " notebook, reset to what a new kernel holds: faster, the same outputs)")
    p.add_argument("--notebook-timeout", type=float, default=1800.0, metavar="SECONDS",
                   help="stop a notebook that runs longer than this, failing it with a message (default 1800)")
    p.add_argument("--keep-snapshot", action="store_true",
                   help="keep the notebooks' snapshot of the log (Arrow IPC) in OUT/snapshot/")
    p.add_argument("--k", type=int, default=None, help="pass@k's k (the notebook parameter k; default 3)")
    for name, what in (("models", "models"), ("benchmarks", "benchmarks"), ("suites", "suites")):
        p.add_argument(f"--{name}", nargs="+", default=None, metavar="NAME",
                       help=f"only these {what}, by the names in the log (the notebook parameter {name})")
    _mapping_options(p)
    p.set_defaults(func=_report)
    p = sub.add_parser("summary", parents=[common], allow_abbrev=False,
                       help="write what a run log holds, rejects and skips (summary.md, rejected.csv)")
    p.add_argument("--runs", default=None, help=RUNS_HELP + " (default: the bundled example data)")
    p.add_argument("--out", default="reports", help="output folder (default: reports)")
    _mapping_options(p)
    p.set_defaults(func=_summary)
    p = sub.add_parser("validate", parents=[common], allow_abbrev=False,
                       help="check a run log: list every rejected record, harness anomaly and what the metrics will"
                            " refuse")
    p.add_argument("--runs", required=True, help=RUNS_HELP)
    _mapping_options(p)
    p.set_defaults(func=_validate)
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
    p.set_defaults(func=_convert)
    p = sub.add_parser("compare", parents=[common], allow_abbrev=False,
                       help="is one model (policy, or the ask tool) better than another? paired by task, with CIs,"
                            " the test fitted to the outcome, effect sizes, Holm",
                       description="Compare a metric between every pair of models, ask policies, or with and without"
                                   " the ask tool, paired by task (tables: comparisons.paired_comparison).")
    p.add_argument("--runs", required=True, help=RUNS_HELP)
    p.add_argument("--metric", choices=COMPARED, default="mean_score",
                   help="what is compared (default: mean_score; each is described in docs/metrics.md)")
    p.add_argument("--between", choices=["model", "policy", "ask_tool"], default="model",
                   help="the two sides (default: model)")
    p.add_argument("--a", default=None, help="one side (e.g. a model's name); with --b, only this pair")
    p.add_argument("--b", default=None, help="the other side")
    p.add_argument("--condition", choices=list(CONDITION_NAMES), default=None,
                   help="the runs mean_score and pass_at_k compare (default: ambiguous+tool, ambiguous tasks with the"
                        " ask tool); the other metrics fix their own")
    p.add_argument("--k", type=int, default=3, help="pass@k's k (default 3; at most 100)")
    p.add_argument("--test", choices=["auto", "mcnemar", "mcnemar-midp", "permutation", "wilcoxon"], default="auto",
                   help="auto (default): exact McNemar for one pass/fail trial per task, else a paired permutation"
                        " test; mcnemar-midp: McNemar's mid-p form, less conservative with few tasks; wilcoxon: the"
                        " signed-rank test Ambig-DS reports")
    p.add_argument("--alternative", choices=["two-sided", "greater", "less"], default="two-sided",
                   help="greater: side a > side b (default: two-sided)")
    p.add_argument("--n-boot", type=int, default=10_000,
                   help="task-bootstrap replicates (default 10,000; at most 100,000)")
    _mapping_options(p)
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--format", choices=["table", "csv", "md", "json"], default="table",
                   help="table (default, for reading), csv, md or json (for scripts)")
    p.set_defaults(func=_compare)
    return parser


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
COMPARED = ("ask_f1", "calib_score", "gain_per_question", "mean_score", "pass_at_k", "pass_gain_pp", "precision",
            "recall", "score_gain_pp")


#: --condition's values: (spec, ask_tool)
CONDITION_NAMES = {"ambiguous+tool": ("ambiguous", True), "ambiguous": ("ambiguous", False),
                   "full": ("full", False), "full+tool": ("full", True)}


def _compare(args: argparse.Namespace) -> int:
    from .comparisons import CONDITIONED, paired_comparison
    from .filters import not_in_log
    from .loading import load

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
    if args.condition is not None and args.metric not in CONDITIONED:
        print(f"ambiglib compare: --condition applies to {' and '.join(CONDITIONED)}; {args.metric} fixes its own"
              " runs (the condition column says which)", file=sys.stderr)
        return 2
    rs, errors = load(args.runs, strict=False, quiet=True, ask_tools=args.ask_tool or None)
    if errors:
        print(f"{len(errors)} record{'s' if len(errors) != 1 else ''} rejected (ambiglib validate --runs"
              f" {args.runs} lists them)", file=sys.stderr)
    sides = (None, None)
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
            absent = not_in_log([args.a, args.b], set(rs.runs[args.between].astype(str)), args.between)
            if absent:
                print(f"ambiglib compare: --{args.between}: {absent}", file=sys.stderr)
                return 2
            sides = (args.a, args.b)
    condition = CONDITION_NAMES[args.condition or "ambiguous+tool"]
    out = paired_comparison(rs, metric=args.metric, between=args.between, condition=condition, a=sides[0],
                            b=sides[1], k=args.k, test=args.test, alternative=args.alternative, n_boot=args.n_boot,
                            seed=args.seed)
    if len(out) == 0:
        print(f"ambiglib compare: nothing to compare: {out.attrs.get('note', 'no pairs')}", file=sys.stderr)
        return 1
    return _print_table(out, args.format)


def _print_table(table, fmt: str) -> int:
    """A comparison on standard output; for reading (``table``), what it compares above it and its notes below
    (for scripts, csv, md and json hold the table alone, and the notes go to standard error)."""
    from .report.rendering import csv_safe, markdown_safe, render_table
    from .tables._common import empty_lines

    notes = [f"note: {table.attrs['note']}"] if table.attrs.get("note") else []
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
        for (metric, condition), _ in table.groupby(["metric", "condition"], sort=False):
            _say(f"{metric} on {condition}; difference = {side}_a − {side}_b")
        for (level, method), _ in table.groupby(["ci_level", "ci_method"], sort=False):
            _say(f"interval: {100 * level:g}% {method}")
        shown = table.drop(columns=["alternative", "metric", "condition", "ci_level", "ci_method", "ci_vs_test"])
        shown.attrs = {}
        _say(render_table(shown, float_format="{:.3g}"))
        for i, text in zip(table.index, table["ci_vs_test"]):
            if isinstance(text, str):
                _say(f"row {i} ({table[f'{side}_a'][i]} − {table[f'{side}_b'][i]}): {text}")
        for line in notes:
            _say(line)
        return 0
    for line in notes:
        _say(line, sys.stderr)
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
        args = parser.parse_args(argv)
        args.program = program
        command = f"ambiglib {args.command}"
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
