"""The report's folder: built aside, swapped into place in one step, and never anyone else's.

A report is built in a private work folder beside ``--out`` (``.<name>.building-*``) and put in
place of ``--out`` only when complete. What it may delete, and what it never will
(``docs/trust.md``, "What a report run guarantees"):

* **Its own files only.** A report's ``manifest.json`` carries a marker only ambiglib writes
  (``"format": "ambiglib-report"``) and the list of every file the report wrote. An existing
  ``--out`` is replaced only when it is such a report and holds nothing else: a file or folder
  the manifest does not list, a symbolic link, anything unreadable, and the report is refused
  before it runs, naming what is in the way. The old report is then removed file by file from its
  list (never a recursive delete), and a folder only once it is empty.
* **Never its input.** A run log, parameters file, notebooks folder or a path given as a parameter
  that lies inside ``--out`` is refused: it would be deleted with the old report.
* **One step.** The finished report and the old one trade places in one ``renameat2(RENAME_EXCHANGE)``
  (Linux); elsewhere, or on a file system without it, the old report is first renamed aside and a
  later run puts it back if the process died between the two renames. Every later run (under the
  lock) also clears what a killed run left: its work folder, or the old report it had swapped out.
* **One writer.** An advisory lock (``.<name>.ambiglib-lock`` beside ``--out``, released by the system
  however the process ends, the file removed by the run that held it) refuses a second report into the same
  ``--out``. It is taken only after the checks that need none: a refused ``--out`` leaves nothing behind.
* **Never inside its input.** An ``--out`` inside the ``--runs`` folder is refused: the next load of that
  folder would read the report's files (its snapshot) as a second copy of the log.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from ambiglib.errors import ReportError
from ambiglib.runlog._whole_writes import RENAME_EXCHANGE as _RENAME_EXCHANGE
from ambiglib.runlog._whole_writes import RENAME_NOREPLACE as _RENAME_NOREPLACE
from ambiglib.runlog._whole_writes import (
    exchange as _renameat2,  # the exchange of two folders in one step, as every whole write
)
from ambiglib.runlog._whole_writes import restore, swap_in

__all__ = ["ReportFolder", "OutLock", "check_out", "write_files", "is_report", "report_files", "REPORT_FORMAT"]

#: The marker of a report's ``manifest.json`` (``"format"``); with ``"files"``, what the report wrote.
REPORT_FORMAT = "ambiglib-report"
MANIFEST = "manifest.json"
#: A work folder holds this file from its creation until the finished report is swapped into place.
WORK_MARKER = ".ambiglib-building"


def _manifest(folder: Path) -> dict[str, Any] | None:
    try:
        with open(folder / MANIFEST, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return None
            manifest = json.loads(fh.read().decode("utf-8"))
    except (OSError, ValueError):
        return None
    if not (isinstance(manifest, dict) and manifest.get("format") == REPORT_FORMAT
            and isinstance(manifest.get("files"), list) and all(isinstance(f, str) for f in manifest["files"])):
        return None
    return manifest


def is_report(folder: Path) -> bool:
    """Whether ``folder`` holds an ambiglib report's manifest (its marker and its list of files)."""
    return _manifest(folder) is not None


def report_files(folder: Path) -> list[str]:
    """Every regular file under ``folder``, as relative POSIX paths (what a manifest lists)."""
    found = []
    for top, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            rel = (Path(top) / name).relative_to(folder).as_posix()
            if rel not in (MANIFEST, WORK_MARKER):
                found.append(rel)
    return found


def _walk_errors(folder: Path) -> Iterable[tuple[str, str]]:
    """(relative path, what it is) for everything under ``folder``, without following links."""
    stack = [Path("")]
    while stack:
        rel = stack.pop()
        try:
            entries = sorted(os.scandir(folder / rel), key=lambda e: e.name)
        except OSError as exc:
            yield rel.as_posix() or ".", f"unreadable ({exc.strerror})"
            continue
        for entry in entries:
            path = (rel / entry.name)
            try:
                mode = entry.stat(follow_symlinks=False).st_mode
            except OSError as exc:
                yield path.as_posix(), f"unreadable ({exc.strerror})"
                continue
            if stat.S_ISDIR(mode):
                yield path.as_posix() + "/", "folder"
                stack.append(path)
            elif stat.S_ISREG(mode):
                yield path.as_posix(), "file"
            else:
                yield path.as_posix(), "symbolic link" if stat.S_ISLNK(mode) else "special file"


def foreign_entries(folder: Path, manifest: Mapping[str, Any]) -> list[str]:
    """What is in a report's folder that the report did not write: files it does not list, folders that
    hold none of its files, links, special and unreadable entries."""
    listed = set(manifest["files"]) | {MANIFEST}
    parents = {p.as_posix() + "/" for f in listed for p in Path(f).parents if p != Path(".")}
    out = []
    for rel, kind in _walk_errors(folder):
        if kind == "file" and rel in listed or kind == "folder" and rel in parents:
            continue
        out.append(rel if kind in ("file", "folder") else f"{rel} ({kind})")
    return out


def _remove_empty_folders(folder: Path) -> None:
    """Remove the folders under ``folder`` that hold nothing (a section folder of a report without sections)."""
    for top, dirs, _ in os.walk(folder, topdown=False):  # never follows a link into another folder
        for name in dirs:
            path = Path(top) / name
            if stat.S_ISDIR(os.lstat(path).st_mode) and not any(path.iterdir()):
                path.rmdir()


def _remove_listed(folder: Path) -> list[str]:
    """Delete a report's own files (those its manifest lists, regular files only), then its folders once
    empty; return what was left (nothing, unless something not the report's appeared in it)."""
    manifest = _manifest(folder)
    listed = set(manifest["files"]) | {MANIFEST} if manifest is not None else set()
    for top, dirs, files in os.walk(folder, topdown=False):  # never follows a link into another folder
        for name in files:
            path = Path(top) / name
            if path.relative_to(folder).as_posix() in listed and stat.S_ISREG(os.lstat(path).st_mode):
                path.unlink()
        for name in dirs:
            try:
                (Path(top) / name).rmdir()  # only when empty
            except OSError:
                pass
    try:
        folder.rmdir()
    except OSError:
        return [rel for rel, _ in _walk_errors(folder)]
    return []


def _remove_work(folder: Path) -> None:
    """Delete a work folder, which only this report's process writes (it holds :data:`WORK_MARKER`)."""
    import shutil

    shutil.rmtree(folder, ignore_errors=True)


# ----------------------------------------------------------------------------- the folder


def _leftovers(out: Path, kind: str) -> list[Path]:
    """The folders beside ``out`` a run of ``kind`` (building, old, writing) made: ``.<name>.<kind>-*``."""
    prefix = f".{out.name}.{kind}-"
    return sorted(p for p in out.parent.iterdir() if p.name.startswith(prefix) and p.is_dir() and not p.is_symlink())


def check_out(out: Path, inputs: Mapping[str, Path]) -> None:
    """Refuse an ``--out`` that holds an input (it would be deleted with the old output), that lies inside the
    ``--runs`` folder (the next load would read it as part of the log), or that is not a folder."""
    for flag, path in inputs.items():
        resolved = Path(path).resolve()
        if resolved == out or out in resolved.parents:
            raise ReportError(f"{flag} {path} lies inside --out {out}, which the report replaces (and would"
                              " delete it with the old report); move it or choose another --out")
        if flag == "--runs" and resolved.is_dir() and resolved in out.parents:
            raise ReportError(f"--out {out} lies inside --runs {path}: the next load of {path} would read what is"
                              " written there (a snapshot, tables) as part of the log; choose an --out outside it")
    if out.is_symlink() or out.exists() and not out.is_dir():
        raise ReportError(f"--out {out}: exists and is not a folder")


class OutLock:
    """The advisory lock of one ``--out`` (``.<name>.ambiglib-lock`` beside it): one writer at a time.

    The system releases it however the process ends; :meth:`release` also removes the file, so that none
    accumulate. A lock taken on a file another run removed in between (its inode no longer at the path) is
    taken again on the new one.
    """

    def __init__(self, out: Path):
        self.out = out
        self.path = out.parent / f".{out.name}.ambiglib-lock"
        self._fh: Any = None

    def acquire(self) -> None:
        import fcntl

        while True:
            fh = open(self.path, "a+")
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                fh.seek(0)
                holder = fh.read().strip() or "another process"
                fh.close()
                raise ReportError(f"--out {self.out}: another ambiglib run is writing it ({holder}); wait for it"
                                  " to finish or choose another --out") from None
            try:
                current = os.stat(self.path).st_ino == os.fstat(fh.fileno()).st_ino
            except FileNotFoundError:
                current = False
            if current:
                break
            fh.close()  # its holder removed it after this run opened it: lock the file now at the path
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()}")
        fh.flush()
        self._fh = fh

    def release(self) -> None:
        if self._fh is None:
            return
        try:
            os.unlink(self.path)  # still holding it: no other run can have taken this file
        except OSError:
            pass
        self._fh.close()
        self._fh = None


class ReportFolder:
    """``with ReportFolder(out, inputs) as folder:`` build into ``folder.work``, then ``folder.commit(manifest)``.

    ``inputs`` names what the report reads (``{"--runs": path, ...}``): none may lie inside ``out``.
    On leaving without a commit (an error, Ctrl-C), the work folder is removed and ``out`` is as it was.
    """

    def __init__(self, out: Path, inputs: Mapping[str, Path] | None = None):
        self.out = out
        self.inputs = dict(inputs or {})
        self.work: Path | None = None
        #: what a commit could not remove of the old report (anything not its own that appeared in it)
        self.left_behind: list[str] = []
        self._lock: Any = None

    # -- entering: checks, the lock, what a killed run left, the work folder

    def __enter__(self) -> ReportFolder:
        import tempfile

        out = self.out
        check_out(out, self.inputs)
        self._check_replaceable()  # before the lock too: a refused --out leaves no lock file behind
        out.parent.mkdir(parents=True, exist_ok=True)
        self._lock = OutLock(out)
        self._lock.acquire()
        try:
            self._recover()
            self._check_replaceable()
            self.work = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
            (self.work / WORK_MARKER).write_text(f"pid {os.getpid()}\n", encoding="utf-8")
        except BaseException:
            self._lock.release()
            raise
        return self

    def _leftovers(self, kind: str) -> list[Path]:
        return _leftovers(self.out, kind)

    def _recover(self) -> None:
        """Under the lock: put back an old report a killed run had renamed aside, and clear what killed runs
        left (their work folders; an old report swapped out but not yet removed)."""
        for old in self._leftovers("old"):
            if not is_report(old):
                continue
            if not self.out.exists():
                os.rename(old, self.out)  # the run died between its two renames: the old report comes back
            else:
                self.left_behind += _remove_listed(old)
        for work in self._leftovers("building"):
            if (work / WORK_MARKER).is_file():
                _remove_work(work)
            elif is_report(work):  # the old report an exchange put here, or a finished report never swapped in
                self.left_behind += _remove_listed(work)

    def _check_replaceable(self) -> None:
        out = self.out
        if not out.is_dir() or not any(out.iterdir()):
            return
        manifest = _manifest(out)
        if manifest is None:
            raise ReportError(f"--out {out}: holds files that are not an ambiglib report (no manifest.json of ours,"
                              " or one from an older ambiglib that did not list its files); choose a new or empty"
                              " folder (a report replaces its --out)")
        foreign = foreign_entries(out, manifest)
        if foreign:
            shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
            raise ReportError(f"--out {out}: holds what the previous report did not write ({shown}); a report"
                              " deletes only its own files: move these out or choose another --out")

    # -- committing: the manifest, the swap, the old report's removal

    def commit(self, manifest: dict[str, Any]) -> None:
        """Write ``manifest.json`` (with the marker and every file of the work folder), then put the finished
        report in place of ``--out`` and remove the old report's own files."""
        assert self.work is not None
        work = self.work
        _remove_empty_folders(work)  # a manifest lists files: a folder left empty would be foreign to the next run
        manifest = {"format": REPORT_FORMAT, **manifest, "files": report_files(work)}
        (work / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        try:
            self._check_replaceable()  # again: something may have been put into --out while the report ran
        except ReportError as exc:  # keep what this run made: a later run clears it (it has its manifest)
            (work / WORK_MARKER).unlink()
            self.work = None
            raise ReportError(f"{exc}; this run's report is in {work}") from None
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(work, 0o777 & ~mask)  # a report folder as any folder the user makes (mkdtemp's is private)
        (work / WORK_MARKER).unlink()
        if not self.out.exists():
            if not _renameat2(work, self.out, _RENAME_NOREPLACE):
                os.rename(work, self.out)
            self.work = None
            return
        if _renameat2(work, self.out, _RENAME_EXCHANGE):
            old = work  # the old report now sits where the work folder was
        else:
            old = self.out.parent / f".{self.out.name}.old-{os.getpid()}"
            os.rename(self.out, old)
            os.rename(work, self.out)  # a death between the two: the next run puts the old report back
        self.work = None
        self.left_behind += _remove_listed(old)

    def __exit__(self, *exc: Any) -> None:
        if self.work is not None and (self.work / WORK_MARKER).is_file():
            _remove_work(self.work)
        if self._lock is not None:
            self._lock.release()
        return None


def write_files(out: Path, build: Callable[[Path], object], inputs: Mapping[str, Path]) -> None:
    """Put the files ``build(folder)`` writes into ``out`` beside what ``out`` holds, by the report's rules.

    ``out`` may be absent, empty, or an ambiglib report (or summary) folder; a folder of anything else is
    refused, and so is any file ``build`` writes whose name ``out`` already holds without its manifest listing
    it (a user's own ``summary.md``). All or nothing, under ``out``'s lock: the new files are written in a folder
    beside ``out``, every other entry of ``out`` is linked into it (a second name, no copy), and the two folders
    trade places in one step (``whole_writes.swap_in``); the manifest then lists the files written too, so a
    later report replaces them as its own. A kill at any moment leaves ``out`` as it was or as written.
    """
    import shutil
    import tempfile

    check_out(out, inputs)
    if out.is_dir() and any(out.iterdir()) and _manifest(out) is None:
        raise ReportError(f"--out {out}: holds files that are not ambiglib's (no manifest.json of ours); choose a"
                          " new or empty folder, or a report's")
    out.parent.mkdir(parents=True, exist_ok=True)
    lock = OutLock(out)
    lock.acquire()
    built: Path | None = None
    old: Path | None = None
    try:
        restore(out)  # a run killed between the two renames of a swap (no exchange on this system)
        for dead in _leftovers(out, "writing"):  # what a killed run left (under the lock: no live run's)
            if (dead / WORK_MARKER).is_file() or is_report(dead):  # a write, or the folder a swap put aside
                _remove_work(dead)
        built = Path(tempfile.mkdtemp(prefix=f".{out.name}.writing-", dir=out.parent))
        (built / WORK_MARKER).write_text(f"pid {os.getpid()}\n", encoding="utf-8")
        build(built)
        manifest = _manifest(out) or {"format": REPORT_FORMAT}
        listed = set(manifest.get("files", []))
        names = report_files(built)
        foreign = [n for n in names if (out / n).exists() and n not in listed]
        if foreign:
            raise ReportError(f"--out {out}: holds {', '.join(foreign[:5])}, which ambiglib did not write (its"
                              " manifest.json does not list it); move it or choose another --out")
        (built / MANIFEST).write_text(json.dumps({**manifest, "files": sorted(listed | set(names))}, indent=1),
                                      encoding="utf-8")
        if out.is_dir():
            _link_the_rest(out, built, {*names, MANIFEST})
        (built / WORK_MARKER).unlink()
        mode = stat.S_IMODE(os.stat(out).st_mode) if out.is_dir() else None
        old = swap_in(built, out, mode)
    finally:
        for folder in (built, old):  # this run's folder (on a failure), or the old one swapped out
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
        lock.release()


def _link_the_rest(out: Path, built: Path, written: set[str]) -> None:
    """Give every entry of ``out`` that ``built`` does not replace a second name in ``built`` (a copy where the
    file system refuses a link), folders made again: the swapped folder then holds all it held."""
    import shutil

    for top, dirs, files in os.walk(out):
        rel_top = Path(top).relative_to(out)
        for d in dirs:
            (built / rel_top / d).mkdir(exist_ok=True)
        for f in files:
            rel = (rel_top / f).as_posix()
            if rel in written:
                continue
            try:
                os.link(Path(top) / f, built / rel, follow_symlinks=False)
            except OSError:
                shutil.copy2(Path(top) / f, built / rel, follow_symlinks=False)
