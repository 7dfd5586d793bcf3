"""``ambiglib rank``: the agents ranked on one metric, per benchmark, printed for reading (what the log lets one
say, each agent's value, rank interval and group) or for scripts (csv, md, json)."""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

from ambiglib._text import visible
from ambiglib.cli._arguments import CONDITION_NAMES, mapping
from ambiglib.cli._messages import SIDE_NAMES, as_flags, say, shown_empty_lines
from ambiglib.errors import AmbiglibError, ArgumentError

if TYPE_CHECKING:
    import pandas as pd


def rank(args: argparse.Namespace) -> int:
    """``ambiglib rank``: one metric's ranking, per benchmark (ranking.rank_agents)."""
    from ambiglib.comparisons import CONDITIONED
    from ambiglib.report._parameters import MAX_K
    from ambiglib.stats import MAX_N_BOOT

    if not 1 <= args.k <= MAX_K or not 1 <= args.n_boot <= MAX_N_BOOT or not 0 < args.alpha < 1 or args.seed < 0:
        print(f"ambiglib rank: --k must be from 1 to {MAX_K}, --n-boot from 1 to {MAX_N_BOOT:,}, --alpha between 0"
              f" and 1 and --seed 0 or more (got --k {args.k}, --n-boot {args.n_boot:,}, --alpha {args.alpha:g},"
              f" --seed {args.seed})", file=sys.stderr)
        return 2
    if args.condition is not None and args.metric not in CONDITIONED:
        print(f"ambiglib rank: --condition applies to {' and '.join(CONDITIONED)}; {args.metric} fixes its own runs",
              file=sys.stderr)
        return 2
    with ExitStack() as stack:
        rs = _runs(args, stack)
        return _ranked(args, rs)


def _runs(args: argparse.Namespace, stack: ExitStack) -> Any:
    """What is ranked: an engine's handle over the store (``--engine``; ``auto`` where the engine computes the
    ranking asked for, else the store loaded, said), or the loaded log."""
    from pathlib import Path

    from ambiglib.cli._stores import engine_of, loaded, on_store
    from ambiglib.engines._answers import ON_STORE

    engine = engine_of(args.engine, Path(args.runs))
    computed = args.metric in ON_STORE and args.between in ("model", "policy")
    if engine != "pandas" and args.engine == "auto" and not computed:
        say(f"note: an engine does not rank {args.metric}" + (f" between {args.between}s" if args.metric in ON_STORE
                                                                   else "") + " yet: it is ranked from the loaded store",
            sys.stderr)
        engine = "pandas"
    if engine != "pandas":
        return stack.enter_context(on_store(Path(args.runs), engine, args.memory_limit))
    return loaded(args.runs, mapping(args))


def _ranked(args: argparse.Namespace, rs: Any) -> int:
    """``ambiglib rank``'s ranking of ``rs`` (a loaded log or a store's handle), printed."""
    from ambiglib.comparisons import count_pairs
    from ambiglib.engines import NotPooled
    from ambiglib.metrics import MetricError
    from ambiglib.ranking import rank_agents

    condition = CONDITION_NAMES[args.condition or "ambiguous+tool"]
    n_pairs, n_sides, where = count_pairs(rs, metric=args.metric, between=args.between, condition=condition)
    if n_pairs > args.max_pairs:
        say(f"ambiglib rank: {n_sides:,} {SIDE_NAMES[args.between]} make {n_pairs:,} pairs ({where}), more than"
            f" --max-pairs {args.max_pairs:,}: raise --max-pairs to rank them all", sys.stderr)
        return 2
    try:
        out = rank_agents(rs, metric=args.metric, condition=condition, between=args.between, k=args.k,
                          test=args.test, family=args.family, alpha=args.alpha, n_boot=args.n_boot, seed=args.seed)
    except (AmbiglibError, MetricError) as exc:
        say(f"ambiglib rank: {as_flags(str(exc)).replace('paired_comparison: ', '')}", sys.stderr)
        return 2 if isinstance(exc, (ArgumentError, NotPooled)) else 1
    if len(out) == 0:
        say(f"ambiglib rank: nothing to rank: {out.attrs.get('note') or 'no agents'}", sys.stderr)
        return 1
    if args.format != "table":
        if args.pairs:
            from ambiglib.ranking import ranking_pairs

            return _print_plain(ranking_pairs(rs, metric=args.metric, condition=condition, between=args.between,
                                              k=args.k, test=args.test, family=args.family, alpha=args.alpha,
                                              n_boot=args.n_boot, seed=args.seed), args.format)
        return _print_plain(out, args.format)
    return _print_ranking(out, args.between)


def _print_plain(table: pd.DataFrame, fmt: str) -> int:
    """A table for scripts (csv, md, json) on standard output, its notes on standard error."""
    from ambiglib.cli._messages import markdown_table
    from ambiglib.report._rendering import csv_safe
    from ambiglib.tables._common import empty_lines

    if fmt == "csv":
        text = csv_safe(table).to_csv(index=False)
        sys.stdout.write(visible(text) if sys.stdout.isatty() else text)
    elif fmt == "md":  # (an empty number as "–", its reason below the table, as `metrics` and `answers` print it)
        say(markdown_table(table))
    else:
        print(table.to_json(orient="records", indent=1))
    for line in ([f"note: {table.attrs['note']}"] if table.attrs.get("note") else []) + empty_lines(table):
        say(line, sys.stderr)
    return 0


def _print_ranking(out: pd.DataFrame, between: str) -> int:
    """``ambiglib rank``, for reading: what the log lets one say (one sentence per benchmark), then each block's
    agents with their value and interval, rank interval, share of first places and group, its global test and
    family, and the notes."""
    import pandas as pd

    from ambiglib.answers._cards import rank_span, with_interval
    from ambiglib.report._rendering import render_table

    side = "agent" if between == "model" else between
    for line in out.attrs.get("answer") or []:
        say(line)
    keys = [c for c in ("benchmark", "model", "policy", "log") if c in out.columns and c != side]
    for key, block in out.groupby(keys, sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        first = block.iloc[0]
        fmt = "pp" if first["unit"] == "pp" else "score"
        say("")
        named = [str(k) for c, k in zip(keys, key) if pd.notna(k) and not (c == "policy" and k == "default")]
        say(f"{' · '.join(named)}: {first['what']} (runs: {first['condition']})")
        shown = pd.DataFrame({
            side: block[side].astype(str).to_numpy(),
            "value (95%)": ["–" if pd.isna(v) else with_interval(float(v), lo, hi, fmt) for v, lo, hi in
                            zip(block["value"], block["value_ci_low"], block["value_ci_high"])],
            "rank": [rank_span(r, "rank_low") or "–" for _, r in block.iterrows()],
            "first": ["–" if pd.isna(v) else f"{100 * v:.0f}%" for v in block["p_first"]],
            "group": [g if isinstance(g, str) else "–" for g in block["group"]],
            "tasks": block["n_tasks"].to_numpy()})
        say(render_table(shown))
        say(f"  global test: {first['global_test']} over {int(first['global_n_tasks'])} tasks every agent ran: p ="
            f" {first['global_p']:.3g}" if pd.notna(first["global_p"]) else "  global test: none (one agent)"
            if int(first["n_agents"]) < 2 else "  global test: none (no task every agent ran)")
        say(f"  pairs separated: {int(first['n_pairs_separated'] or 0)} of {int(first['n_pairs_possible'] or 0)}"
            f" (family: {first['family']}); the interval of each agent's value: {first['ci_method']}")
    say("")
    notes = [f"note: {out.attrs['note']}"] if out.attrs.get("note") else []
    shown = ["value", "value_ci_low", "value_ci_high", "rank", "rank_low", "rank_high", "p_first", "group", "global_p"]
    for line in notes + shown_empty_lines(out, shown):  # no footnote on a column the lines above do not print
        say(line)
    say("every pair: ambiglib rank ... --format csv --pairs")
    return 0
