"""The ``ambiglib`` command line (also ``python -m ambiglib``): ``report``, ``summary``, ``validate``, ``convert``.

Every subcommand but ``schema`` (which prints the run log's JSON Schema) takes the run log as ``--runs PATH``; each
takes ``-q`` after its name.

The package by concept: ``_arguments`` (the parser and its options), ``_signals`` (Ctrl-C and SIGTERM),
``_messages`` (what every command prints), and one module for what each command does: ``_reports`` (report,
summary), ``_validation`` (validate, schema), ``_conversion`` (convert), ``_comparison`` (compare), ``_ranking``
(rank), ``_answers`` (answers), ``_pooled`` (metrics); ``_stores`` gives them the runs (a loaded log, or an
engine's handle over a store). This module runs them: :func:`run`, :func:`main`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from ambiglib.cli._answers import answer as _answer
from ambiglib.cli._arguments import COMPARED, CONDITION_NAMES, MAX_PAIRS, RUNS_HELP
from ambiglib.cli._arguments import build_parser as _parser
from ambiglib.cli._comparison import compare as _compare
from ambiglib.cli._conversion import convert as _convert
from ambiglib.cli._messages import say as _say
from ambiglib.cli._pooled import pooled as _pooled
from ambiglib.cli._ranking import rank as _rank
from ambiglib.cli._reports import report as _report
from ambiglib.cli._reports import summary as _summary
from ambiglib.cli._signals import INTERRUPT as _INTERRUPT
from ambiglib.cli._signals import WATCH_SECONDS
from ambiglib.cli._signals import interrupted as _interrupted
from ambiglib.cli._signals import taken as _taken
from ambiglib.cli._validation import FIRST_PLACES
from ambiglib.cli._validation import schema as _schema
from ambiglib.cli._validation import validate as _validate
from ambiglib.errors import AmbiglibError

# Everything heavy (pandas, pyarrow, papermill) is imported inside the commands, after main() has taken
# SIGINT and SIGTERM: an interrupt at any moment is one line, never a traceback from an import.

__all__ = ["run", "main", "COMPARED", "CONDITION_NAMES", "MAX_PAIRS", "RUNS_HELP", "FIRST_PLACES", "WATCH_SECONDS"]


def run() -> int:
    """The ``ambiglib`` program (its console script, and ``python -m ambiglib``): :func:`main` in a process of its
    own, which ``report`` may rid of imports nothing in it uses. :func:`main` called from Python leaves the
    caller's process as it is."""
    return main(program=True)


def main(argv: list[str] | None = None, *, program: bool = False) -> int:
    """Parse ``argv`` (default: the process's arguments) and run its command; the exit code: 0, 1 when the command
    failed, 2 for what it refuses, 130 when interrupted, 141 when the reader of its output stopped reading."""
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

        from ambiglib.errors import AskToolWarning

        with warnings.catch_warnings():
            # each command says it itself, first: validate and compare as a line, report and summary in their summary
            warnings.simplefilter("ignore", AskToolWarning)
            return _commands()[args.command](args)
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


def _commands() -> dict[str, Callable[[argparse.Namespace], int]]:
    """Each subcommand's function by its name, looked up when a command runs: the parser's module cannot name them
    (they import it), and a command stood in for here (``ambiglib.cli._report``) is the one that runs."""
    return {"report": _report, "summary": _summary, "validate": _validate, "convert": _convert, "compare": _compare,
            "rank": _rank, "answers": _answer, "metrics": _pooled, "schema": _schema}
