"""The command line's arguments: the parser of every subcommand with its options and their help, the values their
choices and defaults name, and what ``--runs`` and the Inspect AI mapping options give ``load``."""

from __future__ import annotations

import argparse
import re
from typing import Any, NoReturn

from ambiglib import __version__
from ambiglib.cli._messages import did_you_mean
from ambiglib.cli._pooled import POOLED
from ambiglib.errors import ArgumentError, ReportError

RUNS_HELP = ("run log: canonical JSON Lines (.jsonl, .jsonl.gz) or Parquet, a folder of them, or a harness's own"
             " output folder (docs/importers.md)")


#: comparisons.COMPARABLE's names, here so that the command line does not import pandas to list them (a test
#: keeps the two equal)
COMPARED = ("ask_f1", "ask_rate", "calib_score", "gain_per_question", "judge_score", "mean_score", "pass_at_k",
            "pass_gain_pp", "precision", "questions_per_run", "recall", "score_gain_pp")


#: the questions ``ambiglib answers`` answers (answers.QUESTIONS' names, here so that the parser imports no pandas;
#: a test keeps them equal)
ANSWERED = ("asking", "question_quality", "payoff", "agent_ranking")


#: --condition's values: (spec, ask_tool)
CONDITION_NAMES = {"ambiguous+tool": ("ambiguous", True), "ambiguous": ("ambiguous", False),
                   "full": ("full", False), "full+tool": ("full", True)}


#: ``compare`` without --a and --b compares at most this many pairs unless --max-pairs says more: every pair runs
#: an interval and a test, so 200 models' 19,900 pairs take hours (docs/performance.md), and Holm over so many
#: rows leaves little that can be told apart
MAX_PAIRS = 500


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose fault is one line (without the usage above it), naming the choice or option most
    like a misspelt one."""

    def error(self, message: str) -> NoReturn:
        choice = re.match(r"argument \S+: invalid choice: '(.*)' \(choose from (.*)\)$", message)
        if choice:
            message += did_you_mean(choice.group(1), re.findall(r"'([^']*)'", choice.group(2)))
        unknown = re.match(r"unrecognized arguments: (--[^\s=]+)", message)
        if unknown:  # the options this parser's usage names
            message += did_you_mean(unknown.group(1), set(re.findall(r"--[\w-]+", self.format_usage())), show=str)
        self.exit(2, f"{self.prog}: {message} ({self.prog} --help lists what it takes)\n")


def _parameters_help() -> str:
    """The notebooks' parameters, for ``report --help``."""
    from ambiglib.report import bundled_notebooks, notebook_parameters

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


def build_parser(with_parameters: bool) -> argparse.ArgumentParser:
    """The parser of ``ambiglib`` and its subcommands: each subcommand's parser is its ``parser`` default (whose
    ``error`` names the subcommand), and main runs the command by its name; ``with_parameters``: the notebooks'
    parameters in ``report --help``."""
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
    p.set_defaults(parser=p)
    p = sub.add_parser("summary", parents=[common], allow_abbrev=False,
                       help="write what a run log holds, rejects and skips (summary.md, rejected.csv)")
    p.add_argument("--runs", default=None, help=RUNS_HELP + " (default: the bundled example data)")
    p.add_argument("--out", default=None, help="output folder (default: reports, in the current folder; the command"
                                               " says so)")
    _engine_options(p, "what counts it")
    _mapping_options(p)
    p.set_defaults(parser=p)
    p = sub.add_parser("validate", parents=[common], allow_abbrev=False,
                       help="check a run log: list the rejected records (one line a cause), harness anomalies and"
                            " what the metrics will refuse")
    p.add_argument("--runs", required=True, help=RUNS_HELP)
    p.add_argument("--each", action="store_true",
                   help="one line for every rejected record (default: one line a cause, with its count and first"
                        " places; ambiglib summary writes every one to rejected.csv)")
    _mapping_options(p)
    p.set_defaults(parser=p)
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
    p.set_defaults(parser=p)
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
    p.set_defaults(parser=p)
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
    _engine_options(p, "what computes it (an engine ranks every metric but judge_score, between models or policies;"
                       " auto loads the store for that one, and says so)")
    p.set_defaults(parser=p)
    p = sub.add_parser("answers", parents=[common], allow_abbrev=False,
                       help="the four questions answered: does each agent ask when it should, are its questions"
                            " good, does asking pay off, is one agent better than another (from a loaded log, or"
                            " computed by DuckDB or Spark over a store)",
                       description="Print each question's answer: its sentences over its table, each value with its"
                                   " interval, and what each empty cell means (ambiglib.answers; the report's"
                                   " opening). Over a partitioned Parquet store (ambiglib convert --partition-by)"
                                   " an engine computes the sums and this machine pools them: the same tables as"
                                   " from the loaded log (docs/scaling.md).")
    p.add_argument("--runs", required=True, help=RUNS_HELP + ", or a partitioned Parquet store")
    p.add_argument("--question", action="append", choices=ANSWERED, default=None,
                   help="one question (repeat for several; default: all four, in this order)")
    _engine_options(p, "what computes them (an engine answers all four but where judges score single questions;"
                       " auto loads the store for that one, and says so)")
    p.add_argument("--k", type=int, default=3, help="pass@k's k in the payoff and the ranking (default 3; at most 100)")
    p.add_argument("--confidence", type=float, default=0.95,
                   help="the intervals' level, and 1 − the ranking's level of each decision (default 0.95)")
    p.add_argument("--n-boot", type=int, default=2000, help="task-bootstrap draws (default 2,000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstraps and the permutations (default 0)")
    _mapping_options(p)
    p.add_argument("--format", choices=["table", "csv", "md", "json"], default="table",
                   help="table (default, for reading), csv (one --question; its sentences and notes to standard"
                        " error), md or json (each question's sentences, table and notes)")
    p.set_defaults(parser=p)
    p = sub.add_parser("metrics", parents=[common], allow_abbrev=False,
                       help="one pooled metric's table (ask rates, Ask-F1, pass@k, pass^k, flip share, rerun spread),"
                            " computed by DuckDB or Spark over a partitioned store, or from a loaded log",
                       description="Print one pooled metric's table. Over a partitioned Parquet store (ambiglib"
                                   " convert --partition-by) an engine computes its per-task sums and this machine"
                                   " pools them: the same table as from the loaded log, with the same refusals"
                                   " (ambiglib.engines; docs/scaling.md).")
    p.add_argument("--runs", required=True, help=RUNS_HELP + ", or a partitioned Parquet store")
    p.add_argument("--metric", required=True, choices=POOLED, help="the metric (each is described in docs/metrics.md)")
    p.add_argument("--by", default=None, metavar="COLS",
                   help="group columns, comma-separated (default: the metric's groups with every condition it does"
                        " not fix, e.g. benchmark,suite,model,spec,ask_tool,policy,protocol for pass_at_k)")
    _engine_options(p, "what computes it")
    p.add_argument("--k", type=int, default=3,
                   help="k of pass@k and pass^k, and of the value of information's pass@k (default 3)")
    p.add_argument("--ci", action="store_true", help="add intervals (their method is printed)")
    p.add_argument("--n-boot", type=int, default=10_000, help="task-bootstrap draws (default 10,000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--format", choices=["table", "csv", "md", "json"], default="table",
                   help="table (default, for reading), csv, md or json (notes on empty cells to standard error)")
    p.set_defaults(parser=p)
    p = sub.add_parser("schema", parents=[common], allow_abbrev=False,
                       help="print the run log's contract as JSON Schema (draft 2020-12), to check records before"
                            " handing them over",
                       description="Print the JSON Schema (draft 2020-12) of one run-log record, made from"
                                   " ambiglib/runlog/_schema.py: ambiglib schema > runlog.schema.json. Necessary, not"
                                   " sufficient: what it cannot say is in its $comment and in docs/runlog.md.")
    p.set_defaults(parser=p)
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


def _engine_options(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--engine", choices=["auto", "pandas", "duckdb", "spark"], default="auto",
                   help=f"{what}: auto (default: DuckDB for a partitioned store, else the loaded log), pandas (the"
                        " loaded log), duckdb or spark (a store; spark takes SparkSession.builder.getOrCreate(),"
                        " the cluster's under spark-submit)")
    p.add_argument("--memory-limit", default=None, metavar="SIZE", help="DuckDB's memory_limit, e.g. 2GB")


def _mapping_options(p: argparse.ArgumentParser) -> None:
    """``--ask-tool`` and ``--scorer``: how Inspect AI logs map to runs (other layouts ignore them)."""
    p.add_argument("--ask-tool", action="append", metavar="NAME",
                   help="Inspect AI logs: a tool whose calls are questions to the user (repeat for several; default:"
                        " ask_user, ask_human, ask_question, clarify)")
    p.add_argument("--scorer", default=None, metavar="NAME",
                   help="Inspect AI logs: the scorer whose value is each run's score (default: each sample's first)")


def mapping(args: argparse.Namespace) -> dict[str, Any]:
    """The Inspect AI mapping options given on the command line (``--ask-tool``, ``--scorer``), for ``load``."""
    return {k: v for k, v in (("ask_tools", args.ask_tool), ("scorer", args.scorer)) if v}


def logs_given(values: list[str]) -> str | dict[str, str]:
    """``--runs`` as ``load`` takes it: one path, or several logs by label (``LABEL=PATH`` each, split at the first
    ``=``). A value that exists as a file or folder is a path, whatever it holds; an ArgumentError says what is
    wrong with the rest (a log without a label among several, a label given twice, a label a log cannot have)."""
    import os

    from ambiglib.loading._labels import check_label

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
