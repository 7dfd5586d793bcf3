"""Load as a user who is not root (issue 27): root reads a ``chmod 000`` file as easily as any other, so a
test of what a user sees must not run its load as root.

:func:`load_as_user` forks; the child imports what a load needs while it still may, drops to ``nobody``
(uid and gid 65534) when it is root, loads, and sends back what came out. :func:`world_tmp` makes a folder
that user can reach (pytest's own temporary folders are private to root).
"""

from __future__ import annotations

import importlib
import os
import pickle
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
NOBODY = 65534


def world_tmp() -> Path:
    """A new folder under the system's temporary folder that any user can reach; the caller removes it."""
    path = Path(tempfile.mkdtemp(prefix="ambiglib-user-"))
    path.chmod(0o755)
    return path


def _warm() -> None:
    """Import, as root, every module a load reaches: the interpreter's own files may be root's alone."""
    import encodings

    import ambiglib

    for module in ("frames", "parquet_check", "parquet_log", "snapshot", "validity", "importers.ambigds",
                   "importers.hilbench", "importers.lhaw", "importers.inspect_logs", "cli", "metrics.harness", "shapes"):
        importlib.import_module(f"ambiglib.{module}")
    for codec in ("utf_8", "utf_8_sig", "utf_16", "utf_16_le", "utf_16_be", "utf_32", "utf_32_le", "utf_32_be"):
        importlib.import_module(f"{encodings.__name__}.{codec}")
    for path in (ROOT / "data" / "example", ROOT / "data" / "example-native"):
        ambiglib.load(path, quiet=True)
    try:  # Inspect AI logs: what inspect_ai imports as it reads one
        ambiglib.load(ROOT / "tests" / "fixtures" / "inspect", strict=False, quiet=True)
    except ambiglib.FormatError:  # inspect-ai is not installed
        pass


def _drop() -> None:
    if os.geteuid() == 0:
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)


def as_user(work: Callable[[], dict[str, Any]], *, warm: bool = True) -> dict[str, Any]:
    """``work()`` in a forked child that has dropped to ``nobody`` when it is root (after importing what a load
    needs, with ``warm``): what it returns, or ``{"raised": (type name, message)}`` for an exception."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read)
        try:
            if warm:
                _warm()
            _drop()
            result = work()
        except BaseException as exc:  # the parent judges what came out
            result = {"raised": (type(exc).__name__, str(exc))}
        data = pickle.dumps(result)
        with os.fdopen(write, "wb") as fh:
            fh.write(data)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        data = fh.read()
    os.waitpid(pid, 0)
    return pickle.loads(data)


def load_as_user(path: Path, *, strict: bool) -> dict[str, Any]:
    """``ambiglib.load(path, strict=strict)`` as an unprivileged user: ``{"runs", "errors", "skipped",
    "benchmarks"}`` when it loads, ``{"raised": (type name, message)}`` for an exception."""
    def load() -> dict[str, Any]:
        import ambiglib

        out = ambiglib.load(path, strict=strict, quiet=True)
        rs, errors = (out, []) if strict else out
        return {"runs": len(rs.runs), "errors": [e.message for e in errors], "skipped": dict(rs.skipped),
                "benchmarks": rs.runs["benchmark"].value_counts().to_dict()}

    return as_user(load)


def copy(source: Path, to: Path) -> Path:
    shutil.copytree(source, to, symlinks=True)
    return to
