"""``ambiglib metrics``: one pooled metric's table, from a loaded log or computed by an engine over a store (DuckDB,
the default for a store, or Spark), with what each empty cell means."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ambiglib.cli._messages import markdown_table, say
from ambiglib.cli._stores import engine_of, on_store

#: the pooled metrics (ambiglib.engines.POOLED, here so that the parser imports no pandas; a test keeps them equal)
POOLED = ("ask_calibration", "ask_f1", "pass_at_k", "pass_hat_k", "flip_share", "rerun_sd", "value_of_information")

#: each metric's default groups: its own, with every condition it neither fixes nor pairs (a log of several
#: conditions is then split by them, where the metric's own defaults would refuse a group that mixes them)
_UNITS = "benchmark,suite,model,spec,ask_tool,policy,protocol"
DEFAULT_BY = {"ask_calibration": "suite,model,policy,protocol", "ask_f1": "suite,model,policy,protocol",
              "pass_at_k": _UNITS, "pass_hat_k": _UNITS, "flip_share": _UNITS, "rerun_sd": _UNITS,
              "value_of_information": "benchmark,suite,model,policy"}

#: why a cell of a column is empty ("–"), by metric and column
_EMPTY = {
    "ask_on_ambiguous": "the group has no run on an ambiguous task with the ask tool (n_ambiguous is 0)",
    "ask_on_full": "the group has no run on a fully specified task with the ask tool (n_full is 0)",
    "calib_score": "one of its two rates has no run (n_ambiguous or n_full is 0)",
    "precision": "no question in the group (precision is undefined; recall and Ask-F1 are then 0), or no run left"
                 " once error runs are left out",
    "recall": "no run left once error runs are left out (n_runs is 0)",
    "ask_f1": "no run left once error runs are left out (n_runs is 0)",
    "pass_at_k": "no variant of the group has k trials with a verdict (n_tasks is 0)",
    "pass_hat_k": "no variant of the group has k trials with a verdict (n_tasks is 0)",
    "flip_share": "no variant of the group has two trials with a verdict (n_tasks is 0)",
    "rerun_sd": "no variant of the group has two trials with a verdict (n_tasks is 0)",
    "rerun_sd_one_trial": "no variant of the group has two trials with a verdict (n_tasks is 0)",
    "base_pass_at_k": "no fully specified run without the tool with k trials of a variant",
    "base_mean_score": "no scored fully specified run without the tool",
    "pass_at_k_with_tool": "no variant with k trials both with and without the tool (n_variants counts the pairs)",
    "pass_gain_pp": "pass@k is empty with or without the tool",
    "mean_score": "no scored run without the tool on a variant compared",
    "mean_score_with_tool": "no scored run with the tool on a variant compared",
    "score_gain_pp": "the mean score is empty with or without the tool",
    "ask_rate": "no scored run with the tool",
    "variant_ask_rate": "no variant compared",
    "avg_per_traj": "no run with the tool asked (questions per asking run is undefined)",
    "pass_gain_pp_per_question": "no question asked, or no pass@k gain",
    "score_gain_pp_per_question": "no question asked, or no score gain",
}


def pooled(args: argparse.Namespace) -> int:
    """Print ``--metric``'s table for ``--runs``: by ``--engine`` (``auto``: DuckDB for a store, else the loaded log)."""
    options = _options(args)
    path = Path(args.runs)
    engine = engine_of(args.engine, path)
    from ambiglib.metrics import MetricError

    try:
        if engine == "pandas":
            import ambiglib

            table = getattr(ambiglib.metrics, args.metric)(ambiglib.load(path, quiet=args.quiet), **options)
        else:
            with on_store(path, engine, args.memory_limit) as store:
                table = getattr(store, args.metric)(**options)
    except MetricError as exc:  # the metric's own words name by=; here the groups are --by's
        say(f"ambiglib metrics: {exc}" + ("; from the command line, add the column to --by (now"
                                          f" {','.join(options['by'])})" if "to by=" in str(exc) else ""), sys.stderr)
        return 2
    return _print(table, args.metric, args.format, engine)


def _options(args: argparse.Namespace) -> dict[str, Any]:
    by = tuple(c.strip() for c in (args.by if args.by is not None else DEFAULT_BY[args.metric]).split(",") if c.strip())
    options: dict[str, Any] = {"by": by}
    if args.metric in ("pass_at_k", "pass_hat_k", "value_of_information"):
        options["k"] = args.k
    if args.metric != "rerun_sd":
        options["ci"] = args.ci
    if args.metric in ("pass_at_k", "pass_hat_k", "flip_share", "value_of_information"):
        options |= {"n_boot": args.n_boot, "seed": args.seed}
    return options


def _print(table: Any, metric: str, fmt: str, engine: str) -> int:

    from ambiglib.report._rendering import csv_safe

    empty = {c: why for c, why in _EMPTY.items() if c in table.columns and table[c].isna().any()}
    notes = [f"– in {c}: {why}" for c, why in empty.items()]
    # an interval empty where its estimate is not: a group with no task to resample, or no spread to measure
    for c in table.columns:
        if c.endswith("_ci_low") and c.removesuffix("_ci_low") in table.columns:
            estimate = table[c.removesuffix("_ci_low")]
            if (table[c].isna() & estimate.notna()).any():
                notes.append(f"– in {c} and {c.removesuffix('_low')}_high where {estimate.name} is not empty: the"
                             " group has no spread across its tasks to make an interval from")
    if any(c.endswith("_ci_low") for c in table.columns) and any(c in empty for c in table.columns):
        notes.append("– in an interval whose estimate is empty: for the same reason as its estimate")
    if fmt == "csv":
        sys.stdout.write(csv_safe(table).to_csv(index=False))
    elif fmt == "json":
        print(table.to_json(orient="records", indent=1))
    else:
        if fmt == "table":  # csv and json say it on standard error below
            say(f"{metric}, computed by {engine}" + (f"; intervals: {table['ci_method'].iloc[0]} at"
                                                      f" {table['ci_level'].iloc[0]:.0%}" if "ci_method" in table
                                                      and len(table) else ""))
        say(markdown_table(table.drop(columns=["ci_level", "ci_method"], errors="ignore")))
    if fmt in ("csv", "json"):
        notes.insert(0, f"{metric}, computed by {engine}")
    for line in notes:
        say(line, sys.stderr if fmt in ("csv", "json") else sys.stdout)
    return 0
