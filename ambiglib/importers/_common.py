"""What every importer shares: reading native files with clear errors, collecting
canonical records with the native ``file:line`` they came from, and building the RunSet."""

from __future__ import annotations

import contextvars
import csv
import dataclasses
import functools
import json
import os
import re
import stat
from collections import Counter
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pyarrow as pa
import pyarrow.compute as pc

from ambiglib.errors import AmbiglibError, FormatError, LoadError
from ambiglib.runlog._files import is_file
from ambiglib.runlog._jsonl import FileRead, _finite_float, _no_constant, read_records
from ambiglib.runlog._memory import c_allocator
from ambiglib.runlog._schema import RecordError, check_transcript, reject_duplicate_keys
from ambiglib.runset import RunSet, build_runset

T = TypeVar("T")

#: The folder of the log being imported: every file read must lie inside it.
_ROOT: contextvars.ContextVar[Path | None] = contextvars.ContextVar("ambiglib_import_root", default=None)


@contextmanager
def confined(root: Path) -> Iterator[None]:
    """Keep every native file read while importing ``root`` inside it."""
    token = _ROOT.set(Path(os.path.realpath(root if root.is_dir() else root.parent)))
    try:
        yield
    finally:
        _ROOT.reset(token)


def inside(root: Path, relative: str, fld: str) -> Path:
    """``root / relative`` for a path named inside a log, which must stay inside ``root``.

    Absolute paths, ``..`` parts that leave the folder, and symlinks pointing out of it
    are a :class:`RowError` on ``fld``; nothing outside the log is opened.
    """
    text = str(relative)
    if not text or "\x00" in text:
        raise RowError(fld, f"field '{fld}' must be a path inside {root} (got {text!r})")
    if os.path.isabs(text) or re.match(r"^[A-Za-z]:[\\/]", text) or text.startswith("\\"):
        raise RowError(fld, f"field '{fld}' must be a path relative to {root} (got the absolute path {text!r})")
    target = root / text
    real_root = os.path.realpath(root)
    if os.path.commonpath([real_root, os.path.realpath(target)]) != real_root:
        raise RowError(fld, f"field '{fld}' names {text!r}, which leads out of {root}")
    return target


def present(path: Path) -> bool:
    """Whether a native file is there (False when absent); anything there that is not a regular
    file inside the log being imported (a folder, a FIFO, a socket, a symlink out of the log or in
    a loop) is a FormatError: reading it could hang, leak, or silently mean "absent"."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise FormatError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    if stat.S_ISLNK(st.st_mode):
        try:
            real = Path(os.path.realpath(path, strict=True))
        except (OSError, RuntimeError) as exc:
            raise FormatError(f"{path}: a symlink that leads nowhere or in a loop") from exc
        root = _ROOT.get()
        if root is not None and os.path.commonpath([root, real]) != str(root):
            raise FormatError(f"{path}: a symlink out of the log's folder {root} (to {real})")
        st = os.stat(real)
    if stat.S_ISREG(st.st_mode):
        return True
    kind = "a folder" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode) else "not a regular file"
    raise FormatError(f"{path}: expected a file, found {kind}")


def opens_with(path: Path, head: re.Pattern[bytes]) -> bool:
    """Whether ``path`` is a regular file this user may read whose first 256 bytes match ``head`` (how a
    log that is one file of its own, an Inspect ``.json`` log or τ-bench's results, is told from others)."""
    if not is_file(path) or not os.access(path, os.R_OK):
        return False
    try:
        with open(path, "rb") as fh:
            return bool(head.match(fh.read(256)))
    except OSError:
        return False


def _require(path: Path) -> None:
    if not present(path):
        raise FormatError(f"{path}: no such file")


def _loads(text: str, path: Path) -> Any:
    """``json.loads`` of a native file; keys named twice, NaN and Infinity (not JSON, and never
    written by the harnesses' released output), numbers beyond a float or beyond what Python
    takes, and nesting that exhausts the stack are FormatErrors naming the file (and line)."""
    try:
        return json.loads(text, object_pairs_hook=reject_duplicate_keys, parse_constant=_no_constant,
                          parse_float=_finite_float)
    except json.JSONDecodeError:
        raise
    except RecordError as exc:
        raise FormatError(f"{path}: {exc.message} (a JSON object names a key once)") from exc
    except RecursionError:
        raise FormatError(f"{path}: not valid JSON (nested too deeply to read)") from None
    except ValueError as exc:  # integers over sys.get_int_max_str_digits() digits
        raise FormatError(f"{path}: not valid JSON ({exc})") from exc


def read_json(path: Path) -> Any:
    """Parse a native JSON file; a clear FormatError names the file, line and column."""
    _require(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise FormatError(f"{path}: not valid UTF-8 (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})") from exc
    except OSError as exc:
        raise FormatError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    try:
        return _loads(text, path)
    except json.JSONDecodeError as exc:
        raise FormatError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg} at column {exc.colno})") from exc


def read_jsonl(path: Path) -> Iterator[tuple[int, Any]]:
    """Yield (line number, object) for each non-blank line of a native JSON Lines file."""
    _require(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise FormatError(f"{path}: cannot be read ({exc})") from exc
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = _loads(line, path)
        except json.JSONDecodeError as exc:
            raise FormatError(f"{path}:{lineno}: not valid JSON ({exc.msg} at column {exc.colno})") from exc
        except FormatError as exc:
            raise FormatError(str(exc).replace(f"{path}:", f"{path}:{lineno}:", 1)) from exc
        yield lineno, obj


def read_csv(path: Path, required: Sequence[str]) -> Generator[tuple[int, dict[str, str]], None, None]:
    """Yield (line number, row) of a native CSV.

    A FormatError names the file and line of: a column named twice in the header (a row
    would keep only its last copy's value), missing columns, a row with more or fewer
    cells than the header (a short row is not a row with empty cells), and a CSV with a
    header and no rows.
    """
    csv.field_size_limit(1 << 30)
    _require(path)
    try:
        fh = open(path, newline="", encoding="utf-8")
    except OSError as exc:
        raise FormatError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    with fh:
        reader = csv.DictReader(fh)
        try:
            header = reader.fieldnames or []
        except (csv.Error, UnicodeDecodeError) as exc:
            raise FormatError(f"{path}:1: not a readable CSV header ({exc})") from exc
        _unique_columns(path, header)
        missing = [c for c in required if c not in header]
        if missing:
            raise FormatError(
                f"{path}:1: missing column(s) {', '.join(missing)}; expected {', '.join(required)}"
                f" (found {', '.join(header) if header else 'no header'})"
            )
        n_rows = 0
        try:
            for row in reader:
                if None in row or None in row.values():
                    found = len(header) + len(row.get(None) or ()) - sum(v is None for v in row.values())
                    raise FormatError(f"{path}:{reader.line_num}: a row of {found} cell{'s' if found != 1 else ''};"
                                      f" the header has {len(header)}")
                n_rows += 1
                yield reader.line_num, row
        except (csv.Error, UnicodeDecodeError) as exc:
            raise FormatError(f"{path}:{reader.line_num}: not valid CSV ({exc})") from exc
        if n_rows == 0:
            raise FormatError(f"{path}: a header and no rows")


def _unique_columns(path: Path, header: Sequence[str]) -> None:
    """A FormatError naming the first column the header names more than once: ``csv.DictReader`` keeps the
    last copy's cell and drops the others, so which value a row holds would not be the file's to say."""
    first: dict[str, int] = {}
    for i, name in enumerate(header, 1):
        if name in first:
            raise FormatError(f"{path}:1: column {name!r} is named twice in the header (columns {first[name]} and"
                              f" {i}); which copy holds the values is not defined")
        first[name] = i


#: What Python raises when a native file holds a value of a type or shape its harness never
#: writes (a list where an object belongs, a string where a number does, a key that is
#: missing, a number beyond range). An importer turns each into an error of ours.
UNEXPECTED = (TypeError, KeyError, AttributeError, ValueError, OverflowError, IndexError, RecursionError,
              UnicodeError)


def unexpected(exc: BaseException) -> str:
    """Describe a Python error raised by an unexpected native value, for a message."""
    if isinstance(exc, KeyError):
        return f"a required entry {exc.args[0]!r} is missing"
    return f"a value of an unexpected type or shape ({type(exc).__name__}: {exc})"


def guard(layout: str) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Decorate an importer whose first argument is the path it reads: while it runs, files
    are confined to that path, Arrow allocates from the C library (:mod:`ambiglib.runlog._memory`), and nothing but
    our errors comes out of it."""
    def wrap(fn: Callable[..., T]) -> Callable[..., T]:
        @functools.wraps(fn)
        def inner(path: Any, *args: Any, **kwargs: Any) -> T:
            root = Path(path)
            try:
                with confined(root), c_allocator():  # Arrow reuses what Python's parse freed
                    return fn(path, *args, **kwargs)
            except AmbiglibError:
                raise
            except OSError as exc:  # an unreadable folder, a file that vanished while being read
                raise FormatError(f"{exc.filename or root}: cannot be read ({exc.strerror or exc})") from exc
            except UNEXPECTED as exc:
                raise FormatError(f"{root}: cannot be read as {layout}: {unexpected(exc)}") from exc
        return inner
    return wrap


def strict_int(value: Any, fld: str, minimum: int | None = None) -> int:
    """An integer cell written as digits only: ``1_0``, `` 3``, ``3.0``, ``inf`` are RowErrors."""
    text = value.strip() if isinstance(value, str) else value
    if isinstance(text, bool) or not (isinstance(text, int) or (isinstance(text, str) and re.fullmatch(r"-?[0-9]+", text))):
        raise RowError(fld, f"field '{fld}' must be an integer written in digits (got {value!r})")
    number = int(text)
    if minimum is not None and number < minimum:
        raise RowError(fld, f"field '{fld}' must be an integer >= {minimum} (got {value!r})")
    return number


class RowError(Exception):
    """One native row (or run folder) cannot become a record: ``field`` and what is wrong."""

    def __init__(self, field: str | None, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


def check_loaded_transcript(record: dict[str, Any], n_questions: int, where: str) -> None:
    """A transcript an importer built at load from what it holds, checked as a run log's (then dropped by the
    caller: it is read again when asked for), so that damage only the transcript holds is the load's error, a row
    error naming ``where``, not a later read's."""
    try:
        check_transcript(record, n_questions)
    except RecordError as exc:
        raise RowError(exc.field, f"{where}: {exc.message}") from None


@dataclass
class Collected:
    """Canonical records gathered from a native layout, and what could not be taken."""

    layout: str
    records: dict[str, list[tuple[int, dict[str, Any]]]] = field(default_factory=dict)  # not yet checked
    errors: list[LoadError] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)  # reason -> count (rows that are not runs)
    checked: dict[str, list[FileRead]] = field(default_factory=dict)  # each file's records checked so far
    added: Counter = field(default_factory=Counter)  # file -> records added

    def add(self, file: Path | str, line: int, record: dict[str, Any]) -> None:
        """Keep a record read from ``line`` of a native ``file``. Every :data:`CHECK_EVERY` records of a file
        are checked and made Arrow rows at once, and the Python objects let go: a log's records are not all
        held as dicts, which take far more memory than their Arrow rows (docs/performance.md)."""
        items = self.records.setdefault(str(file), [])
        items.append((line, record))
        self.added[str(file)] += 1
        if len(items) >= CHECK_EVERY:
            self.check(file)

    def check(self, file: Path | str) -> None:
        """Check the records of ``file`` added so far now (an importer says so when it has read the file)."""
        items = self.records.get(str(file))
        if items:
            self.checked.setdefault(str(file), []).append(
                read_records([r for _, r in items], str(file), lines=[n for n, _ in items]))
            self.records[str(file)] = []

    def reject(self, file: Path | str, line: int | None, fld: str | None, message: str,
               record: str = "run", kind: str = "format") -> None:
        where = f"{file}:{line}" if line is not None else str(file)
        self.errors.append(LoadError(str(file), line, fld, f"{where}: {message}", kind, record))  # type: ignore[arg-type]

    def skip(self, reason: str, n: int = 1) -> None:
        self.skipped[reason] += n

    @contextmanager
    def row(self, file: Path | str, line: int | None, reading: str) -> Iterator[None]:
        """Turn one native row's problem into a rejection naming it, and go on with the next row.

        ``reading`` says what the row needed when one of its files cannot be read
        ("this run's files", ...).
        """
        try:
            yield
        except RowError as exc:
            self.reject(file, line, exc.field, exc.message)
        except FormatError as exc:
            self.reject(file, line, None, f"cannot read {reading}: {exc}")
        except UNEXPECTED as exc:  # a native value of a type or shape the harness never writes
            self.reject(file, line, None, f"cannot read {reading}: {unexpected(exc)}")


def finish(collected: Collected, root: Path, *, strict: bool, require_runs: bool = True
           ) -> RunSet | tuple[RunSet, list[LoadError]]:
    """Validate the records against the run-log contract and build the RunSet.

    Records keep the native ``file:line`` they came from, both in ``runs.source``
    and in any error. ``strict`` raises the first problem; otherwise the problems
    are returned. Rows that are not runs at all (e.g. a harness's own
    ``skipped_existing`` entries) are counted in ``RunSet.skipped``, never dropped unseen.
    """
    reads = []
    for file, items in collected.records.items():
        parts = collected.checked.pop(file, [])
        if items or not parts:
            parts.append(read_records([r for _, r in items], file, lines=[line for line, _ in items]))
        reads.append(_in_line_order(parts))
    n_runs = sum(r.n_run_records for r in reads)
    if require_runs and n_runs == 0 and not collected.errors:
        raise FormatError(f"{root}: no runs found in this {collected.layout} layout"
                          + (f" ({_skips(collected.skipped)})" if collected.skipped else ""))
    runset, dup_errors = build_runset(reads)
    errors = collected.errors + [e for r in reads for e in r.errors] + dup_errors
    runset = dataclasses.replace(runset, skipped=dict(collected.skipped))
    if strict and errors:
        raise errors[0].to_exception(len(errors) - 1)
    return runset if strict else (runset, errors)


#: Records of one file checked together (:meth:`Collected.add`)
CHECK_EVERY = 2048


def _in_line_order(parts: list[FileRead]) -> FileRead:
    """One file's records, checked in parts in the order they were added, as one read in line order (records
    of one line in the order added): what checking them all at once, sorted by line, gives."""
    if len(parts) == 1 and _rising(parts[0].table.column("_line").to_numpy()):
        parts[0].errors.sort(key=lambda e: e.line or 0)  # stable: a line's in the order added
        return parts[0]
    tables = [p.table for p in parts if p.table.num_rows]
    table = pa.concat_tables(tables) if tables else parts[0].table
    if not _rising(table.column("_line").to_numpy()):
        table = table.take(pc.sort_indices(table, [("_line", "ascending")]))  # a stable sort
    out = FileRead(parts[0].file, table, engine="python", n_run_records=sum(p.n_run_records for p in parts),
                   n_task_records=sum(p.n_task_records for p in parts))
    out.errors = sorted((e for p in parts for e in p.errors), key=lambda e: e.line or 0)
    return out


def _rising(lines: Any) -> bool:
    return bool((lines[1:] >= lines[:-1]).all())


def _skips(skipped: Counter) -> str:
    return "; ".join(f"{n} skipped: {reason}" for reason, n in sorted(skipped.items()))
