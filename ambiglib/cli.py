"""The ``ambiglib`` command line: ``report``, ``validate``, ``convert``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .errors import AmbiglibError
from .loading import load
from .report import ReportError, run_report, write_summary


def _report(args: argparse.Namespace) -> int:
    try:
        index = run_report(args.runs, args.out, params_file=args.params, notebooks=args.notebooks or None,
                           jobs=args.jobs)
    except ReportError as exc:
        print(f"ambiglib report: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {index}")
    return 0


def _summary(args: argparse.Namespace) -> int:
    path = write_summary(args.runs, args.out, quiet=args.quiet)
    print(f"wrote {path}")
    return 0


def _validate(args: argparse.Namespace) -> int:
    runset, errors = load(args.path, strict=False, quiet=args.quiet)
    for error in errors:
        print(error.message)
    for reason, n in sorted(runset.skipped.items()):
        print(f"not a run, counted and left out: {n} x {reason}")
    from .harness import harness_anomalies

    for a in harness_anomalies(runset).itertuples(index=False):
        questions = f", {a.n_questions} question{'s' if a.n_questions != 1 else ''}" if a.n_questions else ""
        print(f"harness anomaly: {a.benchmark} {a.suite} {a.model}: {a.anomaly} in {a.n_runs}"
              f" run{'s' if a.n_runs != 1 else ''}{questions}: {a.what}")
    errors_by_reason = _error_reasons(runset)
    if errors_by_reason:
        print("error runs, kept and excluded from every metric: " + ", ".join(
            f"{n} x {reason}" for reason, n in sorted(errors_by_reason.items())))
    print(f"{args.path}: {len(runset.runs)} runs, {len(runset.tasks)} tasks accepted;"
          f" {len(errors)} record{'s' if len(errors) != 1 else ''} rejected")
    return 1 if errors else 0


def _error_reasons(runset) -> dict[str, int]:
    from collections import Counter

    from .runset import run_metas

    errors = runset.runs[runset.runs["status"] == "error"]
    return dict(Counter(m.get("error_reason", "no reason recorded") for m in run_metas(errors)))


def _convert(args: argparse.Namespace) -> int:
    runset = load(args.path, quiet=args.quiet)
    out = Path(args.out)
    written = runset.to_jsonl(out) if args.to == "jsonl" else runset.to_parquet(out)
    print(f"wrote {written}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ambiglib", description="Analyse ask-or-guess benchmark run logs.")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("report", help="run every notebook with papermill and write the report")
    p.add_argument("--runs", default=None, help="run log to report on (default: each notebook's own, the example data)")
    p.add_argument("--out", default="reports", help="output folder (default: reports)")
    p.add_argument("--params", default=None, help="YAML file of notebook parameters")
    p.add_argument("--notebooks", nargs="*", help="only these notebooks (names without .ipynb)")
    p.add_argument("--jobs", type=int, default=2, help="notebooks run at once (default: 2)")
    p.set_defaults(func=_report)
    p = sub.add_parser("summary", help="write what a run log holds, rejects and skips (summary.md, rejected.csv)")
    p.add_argument("--runs", default="data/example")
    p.add_argument("--out", default="reports")
    p.set_defaults(func=_summary)
    p = sub.add_parser("validate", help="check a run log; list every rejected record")
    p.add_argument("path")
    p.set_defaults(func=_validate)
    p = sub.add_parser("convert", help="rewrite a run log as canonical Parquet or JSON Lines")
    p.add_argument("path")
    p.add_argument("out")
    p.add_argument("--to", choices=["parquet", "jsonl"], default="parquet")
    p.set_defaults(func=_convert)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except AmbiglibError as exc:
        print(f"ambiglib: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
