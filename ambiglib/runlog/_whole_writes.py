"""Writing a run log's folder whole or not at all: a Parquet run log, a partitioned store, a JSON Lines folder.

A folder output is several files, and replacing them one at a time leaves, after a kill between two renames, a
folder holding the runs of one log with the questions of another. So the new folder is written whole beside the
old one (``.<name>.ambiglib-writing-<random>``), made durable (every file and folder fsynced), and then trades
places with it in one ``renameat2(RENAME_EXCHANGE)`` (Linux); the old copy, now under the writing name, is
removed. Where the system or the file system lacks the exchange, the old folder is first renamed aside
(``.<name>.ambiglib-old-<pid>``), and the next write puts it back if the process died between the two renames.

Every write starts by clearing what killed writes into the same folder left beside it: a writing folder no live
process holds (each writer holds a lock on its writing folder), an old copy already replaced. A folder that
holds anything but a run log's own files is never replaced (nor a leftover holding more than that: it is named).
:func:`leftover` tells a load that a folder beside a log is one of these, not a second copy of the log.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ambiglib.errors import FormatError
from ambiglib.runlog._files import fsync, temporary_of
from ambiglib.runlog._schema import FRAMES

__all__ = ["replaced_folder", "swap_in", "restore", "leftover", "leftovers", "foreign_entries", "exchange",
           "RENAME_EXCHANGE", "RENAME_NOREPLACE"]

RENAME_EXCHANGE = 2
RENAME_NOREPLACE = 1
_AT_FDCWD = -100
_WRITING = "ambiglib-writing"
_OLD = "ambiglib-old"
_LEFTOVER = re.compile(rf"^\..+\.(?:{_WRITING}|{_OLD})-[^/]+$")
#: The files a run log's folder may hold: each layout's (a folder of Parquet frames and their transcripts, a
#: store's frame folders, a JSON Lines folder's files), and the temporary files an older ambiglib wrote beside them.
_OWN = frozenset({*(f"{f}.parquet" for f in FRAMES), "transcripts.parquet", *FRAMES, "log.jsonl", "runs.jsonl",
                  "tasks.jsonl"})


def exchange(src: Path, dst: Path, flags: int) -> bool:
    """``renameat2(src, dst, flags)``; False where the system or the file system lacks it."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        call = libc.renameat2
    except (OSError, AttributeError):
        return False
    call.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if call(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), flags) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(dst))


def leftover(path: Path) -> bool:
    """Whether ``path`` is named as what a write of a run log's folder leaves beside it while it runs, or when
    killed (``.<name>.ambiglib-writing-*``, ``.<name>.ambiglib-old-*``): never a log of its own."""
    return bool(_LEFTOVER.match(path.name))


def leftovers(path: Path) -> list[Path]:
    """What writes into ``path`` left beside it (their writing folders and old copies), in name order."""
    prefixes = (f".{path.name}.{_WRITING}-", f".{path.name}.{_OLD}-")
    try:
        names = sorted(os.listdir(path.parent))
    except OSError:
        return []
    return [path.parent / n for n in names if n.startswith(prefixes)]


def foreign_entries(folder: Path) -> list[str]:
    """The names in ``folder`` that are not a run log's own files (none when it is absent or empty)."""
    try:
        names = sorted(os.listdir(folder))
    except FileNotFoundError:
        return []
    return [n for n in names if n not in _OWN and temporary_of(n) not in _OWN]


def _locked(folder: Path) -> int | None:
    """An open descriptor of ``folder`` holding an exclusive lock on it; None when a live writer holds it."""
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def restore(path: Path) -> None:
    """Put back the old copy a write into ``path`` renamed aside, when it died before putting the new one in
    place (no exchange on this system): ``path`` is then absent."""
    if os.path.lexists(path):
        return
    for left in leftovers(path):
        if f".{_OLD}-" in left.name and left.is_dir() and not left.is_symlink():
            os.rename(left, path)
            return


def _clear(path: Path) -> list[Path]:
    """Clear what killed writes into ``path`` left beside it; return what is left because it holds more than a
    run log's files. An old copy comes back when ``path`` is gone (a death between the two renames)."""
    restore(path)
    kept: list[Path] = []
    for left in leftovers(path):
        if left.is_symlink() or not left.is_dir():
            kept.append(left)
            continue
        fd = _locked(left)
        if fd is None:  # a live write's folder
            continue
        try:
            if foreign_entries(left):
                kept.append(left)
            else:
                shutil.rmtree(left, ignore_errors=True)
        finally:
            os.close(fd)
    return kept


def _durable(folder: Path) -> None:
    """fsync every file and folder under ``folder``, the folder itself last: what a rename then puts in place is
    on the disk, not only in the page cache."""
    for top, dirs, files in os.walk(folder, topdown=False):
        for name in files + dirs:
            fsync(Path(top) / name)
    fsync(folder)


@contextlib.contextmanager
def replaced_folder(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Write a run log's folder whole or not at all: yield a new folder beside ``path`` to write everything in,
    then put it in place of ``path`` in one step and remove the old copy.

    ``path`` may be absent, an empty folder, or a folder holding a run log's own files (any layout: one layout
    written over another replaces it wholly). Anything else in it is a FormatError naming it, before a byte is
    written; so is a leftover of a killed write that holds more than a run log's files. On an error or an
    interrupt, ``path`` is as it was and the new folder is removed.
    """
    path = Path(os.path.abspath(path))
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        raise FormatError(f"{path}: exists and is not a folder; a run log's folder is written in its place only"
                          " over a folder")
    _refuse_foreign(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    kept = _clear(path)
    if kept:
        raise FormatError(f"{kept[0]}: left beside {path.name} by a write that was killed, and holds more than a"
                          " run log's files; move it away (nothing was written)")
    try:
        work = Path(tempfile.mkdtemp(prefix=f".{path.name}.{_WRITING}-", dir=path.parent))
    except OSError as exc:  # named by the folder the user gave, not by the hidden name this write would have made
        raise OSError(exc.errno, exc.strerror, str(path.parent)) from None
    fd = _locked(work)
    old: Path | None = None
    try:
        yield work
        _refuse_foreign(path)  # again: something may have been put there while this wrote
        try:
            mode: int | None = stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            mode = None
        old = swap_in(work, path, mode)
    finally:
        if fd is not None:
            os.close(fd)
        for folder in (work, old):  # this write's folder (on a failure), or the old copy swapped out
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)


def swap_in(work: Path, path: Path, mode: int | None = None) -> Path | None:
    """Make the complete folder ``work`` durable, then put it in place of ``path`` in one step where the system
    allows, with ``mode`` (None: as any folder the user makes; mkdtemp's is private), and the parent made durable
    after. Return where the old folder now lies, for the caller to remove (None: there was none)."""
    _durable(work)
    if mode is None:
        mask = os.umask(0)
        os.umask(mask)
        mode = 0o777 & ~mask
    os.chmod(work, mode)
    old: Path | None = work  # where an exchange puts the old folder
    if not os.path.lexists(path):
        old = None
        if not exchange(work, path, RENAME_NOREPLACE):
            os.rename(work, path)
    elif not exchange(work, path, RENAME_EXCHANGE):
        old = path.parent / f".{path.name}.{_OLD}-{os.getpid()}"
        os.rename(path, old)
        os.rename(work, path)  # a death between the two: the next write puts the old copy back
    fsync(path.parent)
    return old


def _refuse_foreign(path: Path) -> None:
    foreign = foreign_entries(path) if path.is_dir() else []
    if foreign:
        shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
        raise FormatError(f"{path}: holds what is not a run log's ({shown}); a run log is written only into a new"
                          " folder or over a run log's folder: choose another")
