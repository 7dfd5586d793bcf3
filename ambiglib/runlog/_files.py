"""Opening a file named by a log or found in its folder, which may be anything: a FIFO, a link to
nothing, a folder, a file this user may not read.

Every such case is a :class:`~ambiglib.errors.FormatError` naming the file, raised before anything
blocks (opening a FIFO for reading waits for a writer: it used to hang a load).
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import fnmatch
import os
import re
import stat
from collections.abc import Callable, Iterator
from io import BufferedReader
from pathlib import Path
from typing import Literal, TypedDict

from ambiglib.errors import FormatError

__all__ = ["open_regular", "replaced", "temporary_of", "fsync", "kind_of", "walk", "unreadable", "listdir", "is_file", "is_dir", "one_listing", "matching", "subfolders"]


class _Seen(TypedDict):
    """What one load has seen: each walk (by real and given root: what it gave and the second names it left),
    each folder's listing, and whether each name is a folder, a file."""
    walk: dict[tuple[str, str], tuple[list[tuple[Path, str | None]], list[tuple[Path, Path]]]]
    ls: dict[str, list[Path]]
    dir: dict[str, bool]
    file: dict[str, bool]


#: What one load has seen of its folders (walks, listings, what each name is), or None outside a load: each
#: layout's detection, the unreadable-file check and the readers look at the same folders, and a folder of
#: 20,000 small files was walked five times, each walk slow through pathlib (docs/performance.md)
_SEEN: contextvars.ContextVar[_Seen | None] = contextvars.ContextVar("ambiglib_listing", default=None)


@contextlib.contextmanager
def one_listing() -> Iterator[None]:
    """Within this block, each folder is walked and listed once, and what each name is (file, folder) is looked
    up once: the folders are taken as they were when first looked at. A load is one look at its log."""
    if _SEEN.get() is not None:  # already inside one: the outer block's look
        yield
        return
    token = _SEEN.set({"walk": {}, "ls": {}, "dir": {}, "file": {}})
    try:
        yield
    finally:
        _SEEN.reset(token)


def kind_of(mode: int) -> str:
    """What a file of this ``st_mode`` is, in words."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"


def open_regular(path: str | os.PathLike[str]) -> BufferedReader:
    """Open ``path`` for reading in binary; anything but a regular file (a link is followed) is a
    FormatError naming it and what it is: no such file, a link to nothing or in a loop, a FIFO, a
    socket, a device, a folder, or a file that cannot be read (permissions)."""
    path = path if isinstance(path, Path) else Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        if os.path.lexists(path):
            raise FormatError(f"{path}: a symbolic link to nothing ({os.readlink(path)})") from None
        raise FormatError(f"{path}: no such file") from None
    except OSError as exc:
        raise FormatError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise FormatError(f"{path}: expected a file, found {kind_of(mode)}")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def walk(root: str | os.PathLike[str], repeats: list[tuple[Path, Path]] | None = None
         ) -> Iterator[tuple[Path, str | None]]:
    """Every file under ``root`` in name order, each with ``None``, or with why it cannot be read; a folder
    this user cannot list comes with why too, and is not gone into. Folders linked from inside ``root`` are
    walked like the rest, each once (a loop is walked once); a link to nothing or in a loop is given as a
    file, which the reader that opens it names.

    Each file is given once, under one name: a symbolic link to a file inside ``root`` (met under its own
    name) and a second name of a file met already (a hard link, a second link to one file outside) are not
    given, and are appended to ``repeats`` as (the name left out, the file's name read) when it is a list: a
    run log's files read twice would count their runs twice, under another model where the name gives it."""
    seen = _SEEN.get()
    if seen is None:
        yield from _walk(Path(root), repeats, None)
        return
    key = os.path.realpath(root), str(root)
    if key not in seen["walk"]:
        second: list[tuple[Path, Path]] = []
        seen["walk"][key] = (list(_walk(Path(root), second, seen)), second)
    given, second = seen["walk"][key]
    if repeats is not None:
        repeats += second
    yield from given


def _walk(root: Path, repeats: list[tuple[Path, Path]] | None, memo: _Seen | None
          ) -> Iterator[tuple[Path, str | None]]:
    """:func:`walk`'s work; what it learns of each name is kept in ``memo`` (``one_listing``) when given."""
    real_root = os.path.realpath(root)
    files: dict[tuple[int, int], Path] = {}  # each file given, by (device, inode)
    seen: set[str] = set()
    stack = [root]
    while stack:
        folder = stack.pop()
        real = os.path.realpath(folder)
        if real in seen:
            continue
        seen.add(real)
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            yield folder, f"cannot be read ({exc.strerror or exc})"
            continue
        paths = [folder / e.name for e in entries]  # each name made a Path once (not free, in folders of 20,000 files)
        if memo is not None:
            memo["ls"][str(folder)] = paths
        folders = []
        for entry, path in zip(entries, paths):
            try:
                is_folder = entry.is_dir()  # follows a link
                if memo is not None:
                    memo["dir"][str(path)] = is_folder
                    memo["file"][str(path)] = not is_folder and entry.is_file()
            except OSError as exc:
                if exc.errno == errno.ELOOP:  # a link in a loop: left, like a link to nothing, to its reader
                    yield path, None
                else:
                    yield path, f"cannot be read ({exc.strerror or exc})"
                continue
            if is_folder:
                folders.append(path)
            elif entry.is_file() and not os.access(entry.path, os.R_OK):
                yield path, "cannot be read (Permission denied)"
            elif entry.is_file() and (first := _given(entry, real_root, files)) is not None:
                if repeats is not None:
                    repeats.append((path, first))
            else:
                yield path, None
        stack += reversed(folders)


def _given(entry: os.DirEntry[str], real_root: str, files: dict[tuple[int, int], Path]) -> Path | None:
    """The name a file is read under when ``entry`` is not it (None when ``entry`` is to be read): a link to a
    file inside the walk's root with a name of the same kind (suffix) is read under the file's own name; a
    link to a file of another kind of name (``run.json -> raw.data``) or outside, and a hard link, under the
    first of its names met."""
    link = entry.is_symlink()
    if link:
        target = os.path.realpath(entry.path)
        if os.path.commonpath([target, real_root]) == real_root and Path(target).suffix == Path(entry.name).suffix:
            return Path(target)
    try:
        st = entry.stat()
    except OSError:
        return None
    if not link and st.st_nlink == 1:  # a file's only name (a link to it, of another kind, is read as the link)
        return None
    key = (st.st_dev, st.st_ino)
    if key in files:
        return files[key]
    files[key] = Path(entry.path)
    return None


def unreadable(root: str | os.PathLike[str]) -> list[tuple[Path, str]]:
    """Every folder under ``root`` this user cannot list and every file it cannot read, with why, in walk order.

    A load reads a log as the user running it: root reads a ``chmod 000`` file as easily as any other, a
    user does not, and pathlib's globs skip an unreadable folder without a word."""
    root = Path(root)
    if not root.is_dir():
        return [(root, "cannot be read (Permission denied)")] if root.exists() and not os.access(root, os.R_OK) else []
    return [(path, why) for path, why in walk(root) if why is not None]


# A folder this user cannot list, or a file in one, is one :func:`unreadable` names before a load reads
# anything; the readers look past it with these, so that what can be read still is (a lenient load).


def listdir(folder: Path) -> list[Path]:
    """What ``folder`` holds, in name order; nothing when it cannot be listed."""
    seen = _SEEN.get()
    if seen is not None and (known := seen["ls"].get(str(folder))) is not None:
        return list(known)
    try:  # by name: the same order as Path's for one folder's entries, without its slow comparisons
        entries = sorted(folder.iterdir(), key=lambda p: p.name)
    except OSError:
        entries = []  # (looked at once too: a layout's detection asks for evaluation_results/ in every folder)
    if seen is not None:
        seen["ls"][str(folder)] = entries
    return list(entries)


def matching(folder: Path, pattern: str) -> list[Path]:
    """What ``folder`` holds whose name matches ``pattern`` (as ``folder.glob(pattern)`` for one name, case
    and all), in name order, through :func:`listdir`: within a load, the listing it already has."""
    return [p for p in listdir(folder) if fnmatch.fnmatchcase(p.name, pattern)]


def subfolders(folder: Path) -> list[Path]:
    """The folders in ``folder`` (links followed), in name order; none when it is not a folder."""
    return [p for p in listdir(folder) if is_dir(p)]


def _looked_up(kind: Literal["dir", "file"], path: Path, look: Callable[[], bool]) -> bool:
    """``look()``, or what it gave for ``path`` before in this ``one_listing`` block; False when it cannot be
    looked at."""
    seen = _SEEN.get()
    if seen is not None and (known := seen[kind].get(str(path))) is not None:
        return known
    try:
        answer = look()
    except OSError:
        answer = False
    if seen is not None:
        seen[kind][str(path)] = answer
    return answer


def is_file(path: Path) -> bool:
    """Whether ``path`` is a file (a link followed); False when it cannot be looked at."""
    return _looked_up("file", path, path.is_file)


def is_dir(path: Path) -> bool:
    """Whether ``path`` is a folder (a link followed); False when it cannot be looked at."""
    return _looked_up("dir", path, path.is_dir)


@contextlib.contextmanager
def replaced(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Write a file whole or not at all: yield a temporary path beside ``path`` to write, then rename it over
    ``path`` (one step: a reader sees the old file or the new one). When writing fails (a full disk, an
    interrupt), the temporary file is removed and ``path`` is as it was: an input is never cut short. The file,
    then its folder, are fsynced around the rename."""
    import fcntl
    import tempfile

    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    fcntl.flock(fd, fcntl.LOCK_EX)  # held while this writes: a later write removes only a killed write's file
    _clear_dead(path, Path(tmp))
    try:
        yield Path(tmp)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # as any file the user writes (mkstemp's is private)
        fsync(tmp)  # on the disk before it is named: a crash after the rename cannot leave an empty file
        os.replace(tmp, path)
        fsync(path.parent)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    finally:
        os.close(fd)


def _clear_dead(path: Path, own: Path) -> None:
    """Remove the temporary files killed writes of ``path`` left beside it (``.<name>.<8 characters>.tmp``, as
    :func:`replaced` names them, which no live write holds locked): they would pile up beside a log written again
    and again, or stand in the way of a folder's next write."""
    import fcntl

    try:
        names = os.listdir(path.parent)
    except OSError:
        return
    for name in names:
        left = path.parent / name
        if left == own or temporary_of(name) != path.name:
            continue
        try:
            fd = os.open(left, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0) | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                continue
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.unlink(left)
        except OSError:  # a live write holds it (or it went meanwhile)
            continue
        finally:
            os.close(fd)


#: a temporary file :func:`replaced` makes beside its target: ``.<target's name>.<mkstemp's 8 characters>.tmp``
_TEMPORARY = re.compile(r"^\.(.+)\.[a-z0-9_]{8}\.tmp$")


def temporary_of(name: str) -> str | None:
    """The name of the file whose temporary file (:func:`replaced`) ``name`` is, or None when it is none."""
    m = _TEMPORARY.match(name)
    return m.group(1) if m else None


def fsync(path: str | os.PathLike[str]) -> None:
    """Flush ``path`` (a file or a folder) to the disk; a folder some file systems cannot fsync is left."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.EBADF):
            raise
    finally:
        os.close(fd)
