"""The report's folder: built aside, moved into place whole, and never anyone else's.

See :class:`ReportFolder` and ``docs/trust.md`` ("What a report run guarantees").
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .errors import ReportError

__all__ = ["ReportFolder", "is_report"]


class ReportFolder:
    """A report is built in a private folder beside ``--out`` and moved into place whole.

    * Only one report writes a given ``--out`` at a time: a second one is refused (an
      advisory lock held for the whole run, released by the system even if the process
      is killed).
    * Until the report is complete, ``--out`` keeps what it held (an older report, or
      nothing); an interrupted or failed run leaves no trace.
    * An existing ``--out`` that is not an ambiglib report (no ``manifest.json`` of ours)
      is never replaced.
    """

    def __init__(self, out: Path):
        self.out = out
        self.work: Path | None = None
        self._lock: Any = None

    def __enter__(self) -> "ReportFolder":
        import fcntl
        import tempfile

        out = self.out
        if out.exists() and not out.is_dir():
            raise ReportError(f"--out {out}: exists and is not a folder")
        if out.is_dir() and any(out.iterdir()) and not is_report(out):
            raise ReportError(f"--out {out}: holds files that are not an ambiglib report; choose a new or empty"
                              " folder (a report replaces its --out whole)")
        out.parent.mkdir(parents=True, exist_ok=True)
        lock_path = out.parent / f".{out.name}.ambiglib-lock"
        self._lock = open(lock_path, "a+")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock.seek(0)
            holder = self._lock.read().strip() or "another process"
            self._lock.close()
            raise ReportError(f"--out {out}: another ambiglib report is writing it ({holder});"
                              " wait for it to finish or choose another --out") from None
        self._lock.seek(0)
        self._lock.truncate()
        self._lock.write(f"pid {os.getpid()}")
        self._lock.flush()
        self.work = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
        return self

    def commit(self) -> None:
        """Put the finished report in place of ``--out``."""
        import shutil

        assert self.work is not None
        old = None
        if self.out.exists():
            old = self.out.parent / f".{self.out.name}.old-{os.getpid()}"
            os.replace(self.out, old)
        os.replace(self.work, self.out)
        self.work = None
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)

    def __exit__(self, *exc: Any) -> None:
        import shutil

        if self.work is not None:
            shutil.rmtree(self.work, ignore_errors=True)
        if self._lock is not None and not self._lock.closed:
            self._lock.close()  # releases the lock; the empty lock file stays, harmless
        return None


def is_report(folder: Path) -> bool:
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and "notebooks" in manifest and "runs" in manifest
