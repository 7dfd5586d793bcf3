"""``ambiglib answers``: the four questions a researcher brings to a log (does each agent ask when it should, are its
questions good, does asking pay off, is one agent better than another), answered from a loaded log or computed by
an engine over a store, printed for reading (each answer's sentences over its card) or for scripts (csv, md, json)."""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ambiglib.cli._arguments import ANSWERED, mapping
from ambiglib.cli._messages import say
from ambiglib.cli._stores import engine_of, loaded, on_store
from ambiglib.errors import AmbiglibError, ArgumentError

if TYPE_CHECKING:
    import pandas as pd

def answer(args: argparse.Namespace) -> int:
    """Print the answer to each ``--question`` (default: all four) for ``--runs``; the exit code is 0, or 2 where a
    question is refused (an engine that does not compute it, with ``--engine`` named) and 1 where one fails."""
    from ambiglib.report._parameters import MAX_K
    from ambiglib.stats import MAX_N_BOOT

    if not 1 <= args.k <= MAX_K or not 1 <= args.n_boot <= MAX_N_BOOT or not 0 < args.confidence < 1 \
            or args.seed < 0:
        say(f"ambiglib answers: --k must be from 1 to {MAX_K}, --n-boot from 1 to {MAX_N_BOOT:,}, --confidence"
            f" between 0 and 1 and --seed 0 or more (got --k {args.k}, --n-boot {args.n_boot:,}, --confidence"
            f" {args.confidence:g}, --seed {args.seed})", sys.stderr)
        return 2
    questions = list(dict.fromkeys(args.question or ANSWERED))
    if args.format == "csv" and len(questions) > 1:
        say(f"ambiglib answers: --format csv prints one table: name one --question (of {', '.join(questions)})",
            sys.stderr)
        return 2
    path = Path(args.runs)
    engine = engine_of(args.engine, path)
    tables: dict[str, pd.DataFrame] = {}
    code = 0
    with ExitStack() as stack:
        source: Any = stack.enter_context(on_store(path, engine, args.memory_limit)) if engine != "pandas" \
            else loaded(args.runs, mapping(args))
        whole = source if engine == "pandas" else None  # the store loaded, once, for what an engine does not answer
        for name in questions:
            try:
                tables[name] = _answered(name, source, args)
            except AmbiglibError as exc:
                from ambiglib.engines import NotPooled

                if isinstance(exc, NotPooled) and args.engine == "auto":
                    say(f"note: {name} is not computed over an engine here ({exc}): it is answered from the loaded"
                        " store", sys.stderr)
                    whole = whole if whole is not None else loaded(args.runs, mapping(args))
                    tables[name] = _answered(name, whole, args)
                    continue
                say(f"ambiglib answers: {name}: {exc}", sys.stderr)
                code = max(code, 2 if isinstance(exc, (ArgumentError, NotPooled)) else 1)
    if engine != "pandas":
        say(f"computed by {engine} over the store {args.runs}", sys.stderr)
    _print(tables, args.format)
    return code


def _answered(name: str, rs: Any, args: argparse.Namespace) -> pd.DataFrame:
    """One question's table (ambiglib.answers) for ``rs``, a loaded log or a store's handle, with the options given."""
    import ambiglib.answers

    options: dict[str, Any] = {"n_boot": args.n_boot, "seed": args.seed, "confidence": args.confidence}
    if name in ("payoff", "agent_ranking"):
        options["k"] = args.k
    if name == "agent_ranking":  # each decision at the level of the intervals beside it
        options["alpha"] = round(1 - args.confidence, 10)
    return getattr(ambiglib.answers, name)(rs, **options)


def _print(tables: dict[str, pd.DataFrame], fmt: str) -> None:
    """The answers: for reading, each as its card in plain text (the sentences, the table, what each "–" means and
    how the intervals were made); else csv (one table), md (a heading a question) or json (an object by question),
    with what each "–" means on standard error."""
    import json
    import shutil

    from ambiglib.answers import SHOWN
    from ambiglib.answers._notebook import TEXT_WIDTH, Answer
    from ambiglib.report._rendering import csv_safe, markdown_safe
    from ambiglib.tables._common import empty_lines

    if fmt == "table":
        width = min(max(shutil.get_terminal_size((TEXT_WIDTH, 24)).columns, 80), 200) if sys.stdout.isatty() \
            else TEXT_WIDTH
        for i, (name, table) in enumerate(tables.items()):
            text = Answer.of(table, name, SHOWN[name]).to_text(width)
            lines = text.splitlines()
            if lines and lines[-1].startswith("every column: .frame"):  # a notebook's hint; here, the options
                lines[-1] = f"every column: ambiglib answers ... --question {name} --format csv"
            say(("\n" if i else "") + "\n".join(lines))
        return
    if fmt == "json":
        print(json.dumps({name: json.loads(table.to_json(orient="records")) for name, table in tables.items()},
                         indent=1))
    for name, table in tables.items():
        if fmt == "csv":
            sys.stdout.write(csv_safe(table).to_csv(index=False))
        elif fmt == "md":
            say(f"## {name}\n\n{markdown_safe(table).to_markdown(index=False, floatfmt='.3f')}\n")
        notes = [f"note: {table.attrs['note']}"] if table.attrs.get("note") else []
        for line in notes + empty_lines(table):
            say(f"{name}: {line}", sys.stderr)
