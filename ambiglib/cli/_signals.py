"""Ctrl-C and SIGTERM while a command runs: :func:`main` sets :func:`interrupted` as their handler on its first line,
so that an interrupt at any moment, an import's included, ends the command with its one line."""

from __future__ import annotations

import sys

#: The interrupt the command is unwinding with, until an ``except`` of ours has taken it (``taken``).
INTERRUPT: list[KeyboardInterrupt] = []
#: How often a lost interrupt is raised again, in seconds.
WATCH_SECONDS = 0.1


def interrupted(signum: int, frame: object) -> None:
    """SIGINT or SIGTERM: the first unwinds the command (KeyboardInterrupt), and the rest are ignored while it
    cleans up, so that the command ends with its one line, not a traceback from inside its cleanup.

    Code we do not own can lose the exception: the init of a Cython module with memoryviews (pandas' ``_libs``
    has them) registers its types with ``collections.abc.Sequence`` under a bare ``except: pass``, so Ctrl-C
    during ``import pandas`` was lost now and then and the report ran to its end. So the interrupt is watched
    (``_watch``) until one of our ``except`` clauses takes it."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    INTERRUPT[:] = [KeyboardInterrupt()]
    signal.signal(signal.SIGALRM, _watch)
    signal.setitimer(signal.ITIMER_REAL, WATCH_SECONDS, WATCH_SECONDS)
    raise INTERRUPT[0]


def _watch(signum: int, frame: object) -> None:
    """SIGALRM, every ``WATCH_SECONDS`` after an interrupt: raise it again unless it is being handled (it, or an
    exception raised while handling it, is the one ``sys.exc_info`` gives: a cleanup is running)."""
    if not INTERRUPT:
        return
    handled = sys.exc_info()[1]
    while handled is not None:
        if handled is INTERRUPT[0]:
            return
        handled = handled.__context__
    raise INTERRUPT[0].with_traceback(None)


def taken() -> None:
    """An ``except KeyboardInterrupt`` of ours has the interrupt: stop watching it."""
    import signal

    signal.setitimer(signal.ITIMER_REAL, 0)
    INTERRUPT.clear()
