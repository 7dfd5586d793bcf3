"""Opening a file named by a log or found in its folder, which may be anything: a FIFO, a link to
nothing, a folder, a file this user may not read.

Every such case is a :class:`~ambiglib.errors.FormatError` naming the file, raised before anything
blocks (opening a FIFO for reading waits for a writer: it used to hang a load).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from .errors import FormatError

__all__ = ["open_regular", "kind_of"]


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


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """Open ``path`` for reading in binary; anything but a regular file (a link is followed) is a
    FormatError naming it and what it is: no such file, a link to nothing or in a loop, a FIFO, a
    socket, a device, a folder, or a file that cannot be read (permissions)."""
    path = Path(path)
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
