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
from ambiglib.cli._messages import markdown_table, say
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
    """The answers: for reading, each as its card in plain text under a rule naming its question (the sentences, the
    table, what each "–" means and how the intervals were made); else csv (one table; its sentences and notes on
    standard error), md (a heading a question, its sentences, its table) or json (an object by question: its
    sentences, rows, note and what each "–" means)."""
    import json
    import shutil

    from ambiglib.answers import QUESTIONS, SHOWN
    from ambiglib.answers._notebook import TEXT_WIDTH, Answer
    from ambiglib.report._rendering import _markdown_cell, csv_safe
    from ambiglib.tables._common import empty_lines

    if fmt == "table":
        width = min(max(shutil.get_terminal_size((TEXT_WIDTH, 24)).columns, 80), 200) if sys.stdout.isatty() \
            else TEXT_WIDTH
        for i, (name, table) in enumerate(tables.items()):
            text = Answer.of(table, name, SHOWN[name]).to_text(width)
            lines = text.splitlines()
            if lines and lines[-1].startswith("every column: .frame"):  # a notebook's hint; here, the options
                lines[-1] = f"every column: ambiglib answers ... --question {name} --format csv"
            # each card under a rule naming its question: its sentences come first, and would read as the end of
            # the card above
            rule = f"── {i + 1}/{len(tables)} {QUESTIONS[name]} ({name}) "
            say(("\n" if i else "") + rule + "─" * max(3, min(width, 80) - len(rule)) + "\n" + "\n".join(lines))
        return
    if fmt == "json":  # per question its sentences (the answer), its rows and what each "–" means
        print(json.dumps({name: {"question": QUESTIONS[name], "answer": list(table.attrs.get("answer") or []),
                                 "rows": json.loads(table.to_json(orient="records")),
                                 "note": table.attrs.get("note") or None, "empty": empty_lines(table)}
                          for name, table in tables.items()}, indent=1))
        return
    for name, table in tables.items():
        sentences = [str(s) for s in table.attrs.get("answer") or []]
        if fmt == "csv":  # the table alone on standard output; its sentences and notes on standard error
            sys.stdout.write(csv_safe(table).to_csv(index=False))
        else:
            say(f"## {QUESTIONS[name]} ({name})\n")
            for sentence in sentences:
                say(f"- {_markdown_cell(sentence)}")
            say(("\n" if sentences else "") + markdown_table(table) + "\n")  # each "–" said below it
        notes = ([f"answer: {s}" for s in sentences] if fmt == "csv" else []) + \
            ([f"note: {table.attrs['note']}"] if table.attrs.get("note") else []) + empty_lines(table)
        for line in notes:  # csv: on standard error, beside the table a script reads; md: under its table
            say(f"{name}: {line}" if fmt == "csv" else line, sys.stderr if fmt == "csv" else sys.stdout)
        if fmt == "md" and notes:
            say("")
