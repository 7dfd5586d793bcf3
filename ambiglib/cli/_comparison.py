"""``ambiglib compare``: one metric between two sides (models, ask policies, with and without the ask tool, or two
logs of one agent), paired by task; each option pairing it refuses is refused with its own message, and the
comparison is printed for reading (the tasks that moved, for two logs) or for scripts (csv, md, json)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from ambiglib._text import visible
from ambiglib.cli._arguments import CONDITION_NAMES, logs_given
from ambiglib.cli._messages import SIDE_NAMES, as_flags, did_you_mean, say, shown_empty_lines
from ambiglib.errors import AmbiglibError, ArgumentError

if TYPE_CHECKING:
    import pandas as pd

    from ambiglib.errors import LoadError
    from ambiglib.runset import RunSet


def compare(args: argparse.Namespace) -> int:
    """``ambiglib compare``, step by step: the options alone, then the logs and sides given, then what the log
    read holds, each refused with its own line (exit 2) before the comparison is made and printed."""
    from ambiglib.loading._load import load

    problem = _options_problem(args)
    if problem:
        print(f"ambiglib compare: {problem}", file=sys.stderr)
        return 2
    try:
        runs = _logs(args)
        sides = _sides(args)
    except ArgumentError as exc:
        say(f"ambiglib compare: {exc}", sys.stderr)
        return 2
    try:
        rs, errors = load(runs, strict=False, quiet=True, ask_tools=args.ask_tool or None)
    except AmbiglibError as exc:
        if isinstance(runs, str):  # one path: main says it, as for every command's log
            raise
        say(f"ambiglib compare: {exc}", sys.stderr)  # several logs, by label: a missing path is this command's line
        return 2
    _say_what_was_read(args, runs, rs, errors)
    condition = CONDITION_NAMES[args.condition or "ambiguous+tool"]
    problem = _log_problem(args, rs, condition)
    if problem:
        say(f"ambiglib compare: {problem}", sys.stderr)
        return 2
    return _compared(args, rs, condition, sides)


def _options_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the options alone (--a without --b, a bound exceeded, --condition for a metric that fixes
    its own runs), or None."""
    if (args.a is None) != (args.b is None):
        return "give both --a and --b (or neither: every pair)"
    from ambiglib.report._parameters import MAX_K
    from ambiglib.stats import MAX_N_BOOT

    if not 1 <= args.k <= MAX_K or not 1 <= args.n_boot <= MAX_N_BOOT:
        return (f"--k must be from 1 to {MAX_K} and --n-boot from 1 to {MAX_N_BOOT:,} (got --k {args.k}, --n-boot"
                f" {args.n_boot:,}): more cost hours and change nothing a reader sees")
    if args.seed < 0:
        return (f"--seed must be 0 or more (got {args.seed}): it seeds numpy's random generator, which takes no"
                " negative seed")
    if args.max_pairs < 1:
        return f"--max-pairs must be 1 or more (got {args.max_pairs})"
    from ambiglib.comparisons import CONDITIONED

    if args.condition is not None and args.metric not in CONDITIONED:
        return (f"--condition applies to {' and '.join(CONDITIONED)}; {args.metric} fixes its own runs (the condition"
                " column says which)")
    return None


def _logs(args: argparse.Namespace) -> str | dict[str, str]:
    """--runs as ``load`` takes it (one path, or logs by label), two or more of them for --between log; an
    ArgumentError says what is wrong."""
    runs = logs_given(args.runs)
    if args.between == "log" and (isinstance(runs, str) or len(runs) < 2):
        got = "one log without a label" if isinstance(runs, str) else f"one log, {next(iter(runs))!r}"
        raise ArgumentError(f"--between log compares two or more logs of one agent, each given as --runs LABEL=PATH"
                            f" (--runs before=old/ --runs after=new/); got {got}")
    return runs


def _sides(args: argparse.Namespace) -> tuple[Any, Any]:
    """--a and --b as the comparison takes them (true and false for --between ask_tool; (None, None): every pair);
    an ArgumentError for a side that is not one, or a side compared with itself."""
    if args.a is None:
        return None, None
    sides: tuple[Any, Any] = (args.a, args.b)
    if args.between == "ask_tool":
        truth = {"true": True, "false": False}
        bad = [v for v in (args.a, args.b) if v.lower() not in truth]
        if bad:
            raise ArgumentError(f"--between ask_tool takes --a and --b as true or false (got {bad[0]!r})")
        sides = (truth[args.a.lower()], truth[args.b.lower()])
    if sides[0] == sides[1]:
        both = str(sides[0]).lower() if args.between == "ask_tool" else repr(sides[0])
        raise ArgumentError(f"--a and --b are both {both}: a side compared with itself differs by 0 on every task;"
                            f" give two different {SIDE_NAMES[args.between]}")
    return sides


def _say_what_was_read(args: argparse.Namespace, runs: str | dict[str, str], rs: RunSet,
                       errors: list[LoadError]) -> None:
    """The mapping's warnings and the number of records rejected, on standard error before any number."""
    from ambiglib.importers._inspect_logs import mapping_warnings

    for warning in mapping_warnings(rs, args.ask_tool or None, evals=False):
        say(f"ambiglib compare: warning: {warning}", sys.stderr)
    if errors:
        listed = f"ambiglib validate --runs {runs} lists them" if isinstance(runs, str) else \
            "ambiglib validate " + " and ".join(f"--runs {path}" for path in runs.values()) + " list them"
        say(f"{len(errors)} record{'s' if len(errors) != 1 else ''} rejected ({listed})", sys.stderr)


def _log_problem(args: argparse.Namespace, rs: RunSet, condition: tuple[str, bool]) -> str | None:
    """What the log read refuses: a side --a or --b names that it does not hold (with the name most like it), or
    more pairs than --max-pairs; None when the comparison may be made."""
    if args.between == "ask_tool":  # (with and without the tool: one pair a model and policy)
        return None
    if args.a is not None:
        from ambiglib.runlog._filters import not_in_log

        present = set(rs.runs[args.between].astype(str))
        for flag, value in (("--a", args.a), ("--b", args.b)):
            absent = not_in_log([value], present, args.between)
            if absent:
                return f"{flag}: {absent}{did_you_mean(value, present)}"
        return None
    from ambiglib.comparisons import count_pairs

    n_pairs, n_sides, where = count_pairs(rs, metric=args.metric, between=args.between, condition=condition)
    if n_pairs <= args.max_pairs:
        return None
    many = f"{n_sides:,} {SIDE_NAMES[args.between]}"
    head = f"{many} make {n_pairs:,} pairs ({where})" if n_pairs == n_sides * (n_sides - 1) // 2 else \
        f"{n_pairs:,} pairs ({many} in {where} alone)"
    return (f"{head}, more than --max-pairs {args.max_pairs:,}: each pair is an interval and a test, and Holm over them"
            " all tells few apart; compare the pair you mean with --a NAME --b NAME, or raise --max-pairs")


def _compared(args: argparse.Namespace, rs: RunSet, condition: tuple[str, bool], sides: tuple[Any, Any]) -> int:
    """The comparison made and printed; for reading, two logs are compared later first, whichever order --a and --b
    give, and the tasks that moved are listed."""
    from ambiglib.comparisons import paired_comparison
    from ambiglib.metrics import MetricError

    given, alternative = sides, args.alternative
    if args.between == "log" and args.format == "table":  # for reading, after − before whichever order --a, --b give
        from ambiglib.answers._notebook import later_first

        a, b, alternative = later_first(rs, "log", *sides, alternative)
        sides = (a, b)
    try:
        out = paired_comparison(rs, metric=args.metric, between=args.between, condition=condition, a=sides[0],
                                b=sides[1], k=args.k, test=args.test, alternative=alternative,
                                n_boot=args.n_boot, seed=args.seed, correction=args.correction,
                                family=args.family, interval=args.interval)
    except (AmbiglibError, MetricError) as exc:  # an argument the log's runs do not allow, or a metric that refuses
        say(f"ambiglib compare: {as_flags(str(exc))}", sys.stderr)
        return 2 if isinstance(exc, ArgumentError) else 1
    if len(out) == 0:
        print(f"ambiglib compare: nothing to compare: {out.attrs.get('note', 'no pairs')}", file=sys.stderr)
        return 1
    if args.between == "log" and args.format == "table":  # the difference and its test, then the tasks that moved
        from ambiglib.comparisons import per_task

        tasks = per_task(rs, metric=args.metric, between="log", condition=condition, a=sides[0], b=sides[1],
                         k=args.k)
        return _print_log_changes(out, tasks, args.correction, swapped=sides != given)
    return _print_table(out, args.format)


def _print_log_changes(out: pd.DataFrame, tasks: pd.DataFrame, correction: str, swapped: bool = False) -> int:
    """``compare --between log``, for reading: per comparison, the paired difference (later log − earlier, named)
    and its test first, then the tasks that improved and those that regressed (each side's value and the
    difference), the most moved first; the notes last. ``swapped``: --a and --b were given earlier first, and the
    comparison was made later first (said in the heading)."""
    import numpy as np
    import pandas as pd

    from ambiglib.comparisons import CORRECTIONS, metric_name

    keys = [c for c in ("benchmark", "suite", "model", "policy", "log_a", "log_b") if c in out.columns]
    for (metric, condition), rows in out.groupby(["metric", "condition"], sort=False):
        pairs = ", ".join(dict.fromkeys(f"{a} − {b}" for a, b in zip(rows["log_a"], rows["log_b"])))
        say(f"{metric_name(str(metric))} on {condition}, paired by task; difference = the later log − the earlier"
            f" ({pairs})" + (", whichever order --a and --b give" if swapped else ""))
    for r in out.itertuples(index=False):
        a, b = str(r.log_a), str(r.log_b)
        policy = "" if str(r.policy) == "default" else f" (policy {r.policy})"
        interval = "no interval" if not (np.isfinite(r.difference_ci_low) and np.isfinite(r.difference_ci_high)) \
            else f"{100 * r.ci_level:g}% interval {r.difference_ci_low:+.3g} to {r.difference_ci_high:+.3g}" \
                 f" ({r.ci_method})"
        model = f" {r.model}" if "model" in out.columns else ""  # (logs of one model each: paired as versions)
        say(f"{r.benchmark} {r.suite}{model}{policy}: {a} − {b} = {r.difference:+.3g} ({r.value_a:.3g} vs"
            f" {r.value_b:.3g} over {r.n_pairs} tasks), {interval}")
        p = "no p-value (no task's sides differ)" if not np.isfinite(r.p_value) else \
            f"p = {r.p_value:.3g} ({r.alternative}; {CORRECTIONS[correction][0]} over {len(out)}" \
            f" row{'s' if len(out) != 1 else ''}: {getattr(r, 'p_' + correction):.3g})"
        say(f"  test: {r.test}: {p}; {r.n_differing} task{'s' if r.n_differing != 1 else ''} differ")
        if isinstance(r.ci_vs_test, str):
            say(f"  {r.ci_vs_test}")
        mine = tasks
        for column in keys:
            mine = mine[(mine[column].astype(str) == str(getattr(r, column))).to_numpy(dtype=bool)]
        for title, rows in ((f"improved ({a} above {b})", mine[mine["difference"] > 0]),
                            (f"regressed ({a} below {b})", mine[mine["difference"] < 0])):
            say(f"  {title}: {len(rows)} task{'s' if len(rows) != 1 else ''}" + (", most moved first" if len(rows)
                                                                                   else ""))
            if len(rows):
                shown = pd.DataFrame({"task_id": rows["task_id"].astype(str).to_numpy(),
                                      b: [f"{v:.3g}" for v in rows["value_b"]],
                                      a: [f"{v:.3g}" for v in rows["value_a"]],
                                      "difference": [f"{v:+.3g}" for v in rows["difference"]]})
                say("\n".join("    " + line for line in shown.to_string(index=False).splitlines()))
        same = int((mine["difference"] == 0).sum())
        if same:
            say(f"  the same on both: {same} task{'s' if same != 1 else ''}")
    notes = [f"note: {out.attrs['note']}"] if out.attrs.get("note") else []
    shown = ["difference_ci_low", "difference_ci_high", "p_value", f"p_{correction}"]  # what the lines above say
    for line in notes + shown_empty_lines(out, shown):
        say(line)
    return 0


def _print_table(table: pd.DataFrame, fmt: str) -> int:
    """A comparison on standard output; for reading (``table``), what it compares above it and its notes below
    (for scripts, csv, md and json hold the table alone, and the notes go to standard error)."""
    from ambiglib.cli._messages import markdown_table
    from ambiglib.report._rendering import csv_safe, render_table
    from ambiglib.tables._common import empty_lines

    notes = [f"note: {table.attrs['note']}"] if table.attrs.get("note") else []
    shown = table.drop(columns=["alternative", "metric", "condition", "ci_level", "ci_method", "ci_vs_test"])
    if fmt == "table":  # the reasons for the columns printed; csv, md and json hold every column
        notes += shown_empty_lines(table, shown.columns)
    else:
        notes += empty_lines(table)
    if fmt == "csv":  # exact for a script; on a terminal, its control characters shown (text.visible)
        text = csv_safe(table).to_csv(index=False)
        sys.stdout.write(visible(text) if sys.stdout.isatty() else text)
    elif fmt == "md":  # (an empty number as "–", its reason on standard error)
        say(markdown_table(table))
    elif fmt == "json":
        print(table.to_json(orient="records", indent=1))
    else:
        side = next(c for c in table.columns if c.endswith("_a")).removesuffix("_a")
        from ambiglib.comparisons import metric_name

        for (metric, condition), rows in table.groupby(["metric", "condition"], sort=False):
            pairs = list(dict.fromkeys(f"{a} − {b}" for a, b in zip(rows[f"{side}_a"], rows[f"{side}_b"])))
            named = f" ({pairs[0]})" if len(pairs) == 1 else ""
            say(f"{metric_name(str(metric))} on {condition}, paired by task; difference = {side}_a − {side}_b"
                f"{named}")
        for (level, method), _ in table.groupby(["ci_level", "ci_method"], sort=False):
            say(f"interval: {100 * level:g}% {method}")
        shown.attrs = {}
        say(render_table(shown, float_format="{:.3g}"))
        for i, text in zip(table.index, table["ci_vs_test"]):
            if isinstance(text, str):
                say(f"row {i} ({table[f'{side}_a'][i]} − {table[f'{side}_b'][i]}): {text}")
        for line in notes:
            say(line)
        sides = len(set(table[f"{side}_a"].astype(str)) | set(table[f"{side}_b"].astype(str)))
        if sides > 2 and side in ("model", "policy"):  # many agents: which is best is a ranking's question
            say(f"{sides} {SIDE_NAMES[side]}: `ambiglib rank --runs ... --metric {table['metric'].iloc[0]}` ranks"
                " them, with rank intervals and groups (docs/metrics.md, 'Rankings')")
        return 0
    for line in notes:
        say(line, sys.stderr)
    return 0
