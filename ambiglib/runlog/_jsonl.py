"""Read and write the canonical run log as JSON Lines, plain or gzip (Parquet: :mod:`ambiglib.runlog._parquet`).

Reading a JSON Lines file takes one of two paths that give identical results:

* the Arrow path: ``pyarrow.json.read_json`` parses the whole file with the
  contract's schema, and :func:`ambiglib.runlog.table_is_valid` checks every row
  at once. This is the path a well-formed file takes.
* the reference path: each line is parsed with :mod:`json` and checked by
  :func:`ambiglib.runlog.validate_record`, which names the line, the field, what
  was expected and what was found. A file takes this path as soon as the Arrow
  path finds anything amiss, or when its layout keeps line numbers from being
  recovered exactly (blank lines, indented lines).
"""

from __future__ import annotations

import gzip
import io
import json
import math
import os
import re
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

from ambiglib.errors import FormatError, LoadError, RunLogNotFoundError
from ambiglib.runlog._files import open_regular, replaced, walk
from ambiglib.runlog._inflation import Bounded, open_gzip
from ambiglib.runlog._schema import (
    FILE_SCHEMA,
    INPUT_SCHEMA,
    MAX_DEPTH,
    RUN_FIELDS,
    TASK_FIELDS,
    RecordError,
    check_transcript,
    meta_text,
    reject_duplicate_keys,
    validate_record,
)
from ambiglib.runlog._schema import (
    FRAMES as FRAMES,  # re-exported: the readers and writers import the frames' names from here
)
from ambiglib.runlog._stamps import file_stamp, line_digest
from ambiglib.runlog._validity import table_is_valid
from ambiglib.runlog._whole_writes import replaced_folder

Engine = Literal["auto", "arrow", "python"]
#: a run-log file open for reading: plain, or through gzip
_Binary = IO[bytes] | gzip.GzipFile | Bounded

JSONL_SUFFIXES = (".jsonl", ".jsonl.gz")
_BLOCK = 1 << 24
_JSON_BLOCK = 1 << 22  # 4 MiB: faster than pyarrow's 1 MiB default on large logs (docs/performance.md)
#: The longest record a run-log file may hold, in bytes of its line (without the line's end): a longer one is
#: refused on its line with its size, read through in pieces, never held (a record holding a 1 GiB string took
#: minutes only to end in pyarrow's ArrowMemoryError). ``to_jsonl`` refuses to write one.
MAX_RECORD_BYTES = 64 << 20
#: The largest run-log file read (JSON Lines as stored, gzip or not; each Parquet file of a log or a store), in
#: bytes: a larger one is refused, naming it and its size, before any of it is read. A folder of several files
#: loads as one log.
MAX_FILE_BYTES = 16 << 30


@dataclass
class FileRead:
    """What one JSON Lines file gave: its valid records and its rejected ones."""

    file: str
    table: pa.Table  # FILE_SCHEMA, valid records only
    errors: list[LoadError] = field(default_factory=list)
    n_run_records: int = 0
    n_task_records: int = 0
    engine: str = "arrow"
    #: each record's file, for a read of several small files (:func:`read_small_files`); else ``file`` for all
    sources: pa.Array | None = None
    #: the file's size and modification time before it was read (:func:`file_stamp`), kept with each transcript's
    #: place: a transcript read later from a file that changed since is an error
    stamp: dict[str, int] | None = None

    def count(self, record: str) -> None:
        """Count one record read, of kind ``run`` or ``task``."""
        if record == "task":
            self.n_task_records += 1
        else:
            self.n_run_records += 1

    def reject(self, line: int, fld: str | None, message: str, kind: str, record: str) -> None:
        """Record why the record at ``line`` of this file is rejected."""
        self.errors.append(
            LoadError(self.file, line, fld, f"{self.file}:{line}: {message}", kind, record)  # type: ignore[arg-type]
        )


# ----------------------------------------------------------------------------- finding files


def is_jsonl(path: Path) -> bool:
    return path.name.endswith(JSONL_SUFFIXES)


def looks_canonical(path: Path) -> bool:
    """Whether a ``.jsonl`` file's first record is a canonical run-log record (``benchmark``, ``suite``,
    ``task_id``), not a harness's own JSON Lines (Ambig-DS ``_runlog.jsonl``, LHAW ``variants.jsonl``):
    how a run log kept inside a harness's folder is told from the harness's files."""
    try:
        with _open(path) as fh:
            while raw := fh.readline(MAX_RECORD_BYTES + 1):  # a first line past the limit is not read whole
                if raw.strip():
                    first = json.loads(raw)
                    return isinstance(first, dict) and {"benchmark", "suite", "task_id"} <= set(first)
    except (FormatError, OSError, EOFError, zlib.error, ValueError, RecursionError):
        return False
    return False


def jsonl_files(root: Path) -> list[Path]:
    """List the run-log files of a folder (recursively, into linked folders too) in name order, or the file
    itself. A name ending in ``.jsonl`` that is not a file (a FIFO, a link to nothing) is listed too: reading
    it says what it is."""
    if not root.is_dir():
        return [root]
    # linked folders are followed, each once (files.walk); what this user cannot read is named by the load
    files = [p for p, why in walk(root) if why is None and is_jsonl(p)]
    return sorted(files, key=lambda p: p.relative_to(root).as_posix())


@contextmanager
def _open(path: Path, stats: list[os.stat_result] | None = None) -> Iterator[_Binary]:
    """Open a run-log file for reading; ``.gz`` through Python's gzip, for both engines,
    so that they take and refuse exactly the same compressed bytes, and inflate no further than
    :func:`ambiglib.runlog.max_inflated` allows. Anything but a regular
    file (a FIFO, a link to nothing, a folder) is a FormatError naming it (:func:`open_regular`)."""
    with open_regular(path) as raw:
        if stats is not None:  # the file opened, as it is now (what a read again compares with the load's)
            stats.append(os.fstat(raw.fileno()))
        if path.name.endswith(".gz"):  # bounded by what it inflates to (ambiglib.runlog._inflation), as it is read
            with open_gzip(raw, path) as fh:
                yield fh
        else:
            yield raw


def _reason(exc: BaseException) -> str:
    if isinstance(exc, EOFError):
        return "the compressed stream ends early"
    if isinstance(exc, zlib.error):
        return f"corrupt compressed data: {exc}"
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


# ----------------------------------------------------------------------------- the reference path


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is beyond the range of a float")
    return value


#: the contract's JSON rules: :func:`_strict_loads` parses a line with them, ``_STRICT`` a ``meta`` alone
_STRICT_RULES: dict[str, Any] = {"object_pairs_hook": reject_duplicate_keys, "parse_constant": _no_constant,
                                 "parse_float": _finite_float}
_STRICT = json.JSONDecoder(**_STRICT_RULES)


def _strict_loads(text: str) -> Any:
    """``json.loads`` that refuses what the contract cannot hold: keys named twice,
    NaN and Infinity, numbers beyond a float, nesting deep enough to exhaust the stack."""
    try:
        return json.loads(text, **_STRICT_RULES)
    except RecursionError:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels") from None


def _kind_of(text: str) -> str:
    """Best guess of a rejected line's record kind, for the counts."""
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return "run"
    return "task" if isinstance(obj, dict) and obj.get("record") == "task" else "run"


def too_long(size: int, limit: int) -> str:
    """The message for a record of ``size`` bytes past ``limit`` (after ``file:line: ``)."""
    return (f"a record of {size:,} bytes, over the limit of {limit:,} bytes for one record"
            " (one line; ambiglib.runlog.MAX_RECORD_BYTES)")


def _lines(fh: _Binary, limit: int) -> Iterator[tuple[bytes, int | None]]:
    """Each line of ``fh`` with None, or, for one longer than ``limit`` bytes (its end aside), its first
    ``limit + 1`` bytes and its length, the rest read through in pieces and let go."""
    while raw := fh.readline(limit + 1):
        if len(raw) <= limit or raw.endswith(b"\n"):
            yield raw, None
            continue
        size = len(raw)
        while not raw.endswith(b"\n"):
            raw = fh.readline(1 << 20)
            if not raw:
                break
            size += len(raw) - raw.endswith(b"\n")
        yield b"", size


def read_file_python(path: Path, display: str) -> FileRead:
    """Read one JSON Lines file line by line, checking each record (the reference path)."""
    rows: list[dict[str, Any]] = []
    out = FileRead(display, FILE_SCHEMA.empty_table(), engine="python")
    count, reject = out.count, out.reject
    limit = MAX_RECORD_BYTES
    try:
        offset = 0
        with _open(path) as fh:
            for lineno, (raw, size) in enumerate(_lines(fh, limit), 1):
                at, offset = offset, offset + (len(raw) if size is None else size + 1)
                if size is not None:  # what kind of record it is would take reading it: counted as a run's
                    count("run")
                    reject(lineno, None, too_long(size, limit), "format", "run")
                    continue
                if not raw.strip():
                    continue
                try:
                    text = raw.decode("utf-8").rstrip("\r\n")
                except UnicodeDecodeError as exc:
                    count("run")
                    reject(lineno, None, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column"
                           f" {exc.start + 1})", "format", "run")
                    continue
                try:
                    obj = _strict_loads(text)
                except RecordError as exc:  # a key named twice
                    record = _kind_of(text)
                    count(record)
                    reject(lineno, exc.field, exc.message, "schema", record)
                    continue
                except ValueError as exc:
                    # NaN or 1e400 in a task record: refused, and counted as the task it is
                    record = _kind_of(text)
                    count(record)
                    detail = (f"{exc.msg} at column {exc.colno}"
                              if isinstance(exc, json.JSONDecodeError) else str(exc))
                    reject(lineno, None, f"not valid JSON ({detail})", "format", record)
                    continue
                n = len(rows)
                _accept(out, rows, lineno, obj)
                if len(rows) > n and rows[-1]["transcript_at"] is not None:
                    rows[-1]["transcript_at"] = _in_record(at, line_digest(raw))
    except (OSError, EOFError, zlib.error) as exc:  # a truncated or corrupt .gz, an unreadable file
        raise FormatError(f"{display}: cannot be read ({_reason(exc)})") from exc
    if rows:
        out.table = pa.Table.from_pylist(rows, schema=FILE_SCHEMA)
    return out


def _accept(out: FileRead, rows: list[dict[str, Any]], lineno: int, obj: Any) -> None:
    """Count one parsed record and keep it, or record why it is rejected."""
    record = "task" if isinstance(obj, dict) and obj.get("record") == "task" else "run"
    out.count(record)
    try:
        row = validate_record(obj)
    except RecordError as exc:
        out.reject(lineno, exc.field, exc.message, "format" if exc.field is None else "schema", record)
        return
    row["_line"] = lineno
    rows.append(row)


def read_records(records: Iterable[Any], display: str, lines: Iterable[int] | None = None) -> FileRead:
    """Check records given as Python objects (e.g. by an importer).

    ``lines`` are the records' line numbers in ``display`` (an importer's native file);
    by default their 1-based positions. A record may carry ``_transcript_at``, where the importer found the
    run's conversation (:mod:`ambiglib.transcripts`): an importer's own key, taken out here, never read from a log.
    """
    rows: list[dict[str, Any]] = []
    out = FileRead(display, FILE_SCHEMA.empty_table(), engine="python")
    records = list(records)
    stamps: dict[str, list[int] | None] = {}
    for lineno, obj in zip(lines if lines is not None else range(1, len(records) + 1), records):
        at = obj.pop(TRANSCRIPT_AT, None) if isinstance(obj, dict) else None
        n = len(rows)
        _accept(out, rows, lineno, obj)
        if at is not None and len(rows) > n and rows[-1]["transcript_at"] is None:
            rows[-1]["transcript_at"] = json.dumps(_stamped(at, stamps), sort_keys=True, ensure_ascii=False)
    if rows:
        out.table = pa.Table.from_pylist(rows, schema=FILE_SCHEMA)
    return out


#: the readers whose locators name files read whole and carry no check of their own that the file is the one
#: loaded: each file a locator names gets its size and modification time (``stamps``), compared when a transcript
#: is read (Inspect's carry each member's CRC and size, or the log's size and time; τ-bench's the entry's task and
#: trial)
STAMPED_READERS = frozenset({"hil-bench", "lhaw", "ambig-ds"})
#: the keys of a locator that name a file
_FILE_KEYS = ("file", "clarify")


def _stamped(at: Any, seen: dict[str, list[int] | None]) -> Any:
    """An importer's locator with the size and modification time of each file it names (``seen``: those looked up
    already), as they are when the import has read them."""
    if not isinstance(at, dict) or at.get("reader") not in STAMPED_READERS or "stamps" in at:
        return at
    stamps = {}
    for key in _FILE_KEYS:
        file = at.get(key)
        if isinstance(file, str) and file not in stamps:
            if file not in seen:
                try:
                    st = os.stat(file)
                    seen[file] = [st.st_size, st.st_mtime_ns]
                except OSError:
                    seen[file] = None
            if seen[file] is not None:
                stamps[file] = seen[file]
    return {**at, "stamps": stamps} if stamps else at


# ----------------------------------------------------------------------------- the Arrow path


#: A line opening more objects and lists than this goes to the reference path, which refuses
#: nesting deeper than MAX_DEPTH; Arrow's reader would exhaust its stack on ~10,000 levels.
_MAX_OPENS = 4 * MAX_DEPTH


class _Scan:
    """Line count and cleanliness of a file, fed block by block.

    ``clean`` says whether the Arrow reader may take the file: line i holds record i
    (every line starts with ``{``: no blank, indented or stray lines) and no line opens
    more than ``_MAX_OPENS`` objects and lists (a bound on its nesting).
    """

    def __init__(self) -> None:
        self.n_lines, self.clean, self.previous, self.carry = 0, True, ord("\n"), 0
        self.limit = MAX_RECORD_BYTES
        #: the longest line seen (its end aside), and whether one was past the limit
        self.longest, self.over = 0, False

    def feed(self, block: bytes) -> bool:
        """Take the next block; return whether the file is still clean."""
        if not block:
            return self.clean
        arr = np.frombuffer(block, dtype=np.uint8)
        newlines = np.flatnonzero(arr == ord("\n"))
        # the first byte of each line: after the previous block's last byte, and after each newline
        starts = newlines[newlines + 1 < len(arr)] + 1
        if self.clean and ((self.previous == ord("\n") and arr[0] != ord("{"))
                           or bool((arr[starts] != ord("{")).any())):
            self.clean = False
        if self.clean:
            # '{' and '[' differ only in bit 0x20; count each line's opens by bisecting their positions
            opens = np.flatnonzero((arr | 0x20) == ord("{"))
            bounds = np.searchsorted(opens, np.concatenate(([0], starts)))
            per_line = np.diff(np.append(bounds, len(opens)))
            per_line[0] += self.carry
            self.carry = 0 if arr[-1] == ord("\n") else int(per_line[-1])
            if per_line.max() > _MAX_OPENS:
                self.clean = False
        if self.clean:  # each block starts a line (the reader holds back a partial one): its lines' lengths
            ends = np.concatenate(([-1], newlines, [len(arr)] if arr[-1] != ord("\n") else []))
            self.longest = max(self.longest, int(np.diff(ends).max()) - 1)
            if self.longest > self.limit:
                self.clean, self.over = False, True
        self.n_lines += len(newlines)
        self.previous = int(arr[-1])
        return self.clean

    def lines(self) -> int:
        return self.n_lines + (self.previous != ord("\n"))  # a last line without its newline


class _Unclean(Exception):
    """Raised into the Arrow reader to stop it before it sees a line it must not parse."""


class _ScanningReader(io.RawIOBase):
    """A file Arrow reads through, scanned line by line before Arrow sees each line.

    * The scan (:class:`_Scan`) runs while Arrow's threads parse earlier blocks, and a line nested
      deep enough to crash Arrow's reader stops the read before Arrow sees it.
    * Each record's ``meta`` is taken out here, parsed alone as strictly as a whole line would be,
      and made canonical text (:attr:`metas`); Arrow sees ``{}`` in its place (padded to its
      length). Arrow would otherwise infer one struct field per distinct ``meta`` key for every
      row: even a small file with varied metas was slow and took far more memory than its size
      (docs/performance.md).
    * A ``meta`` that cannot be taken out this way (not an object, keys named twice, NaN, a key
      spelled with escapes) stops the read: the reference path reads the file and names the line.
    """

    def __init__(self, fh: _Binary):
        self.fh, self.scan = fh, _Scan()
        self.metas: dict[int, str] = {}
        #: each line's ``transcript``, checked and taken out (Arrow sees ``{}``): the highest question it names (-1),
        #: where the line starts in the stream and the line's digest (read again from there and checked:
        #: ``ambiglib.transcripts``)
        self.transcripts: dict[int, tuple[int, int, str]] = {}
        self._offset = 0
        self._canonical: dict[bytes, str] = {}
        self._line = 0
        self._pending = b""
        self._out = bytearray()
        self._eof = False

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        while not self._eof and (size < 0 or len(self._out) < size):
            block = self.fh.read(_JSON_BLOCK if size < 0 else max(size, 1 << 16))
            if not block:
                self._eof = True
                data, self._pending = self._pending, b""
            else:
                data = self._pending + block
                cut = data.rfind(b"\n") + 1
                data, self._pending = data[:cut], data[cut:]
                if len(self._pending) > self.scan.limit:  # a line past the limit: the reference path names it
                    self.scan.over = True
                    raise _Unclean()
            if data:
                data = self._without_meta(data)
                if not self.scan.feed(data):
                    raise _Unclean()
                self._out += data
        n = len(self._out) if size < 0 else min(size, len(self._out))
        chunk = bytes(self._out[:n])
        del self._out[:n]
        return chunk

    def _without_meta(self, data: bytes) -> bytes:
        """Whole lines, each ``meta`` object kept in :attr:`metas` by line and replaced by ``{}``, and each
        ``transcript`` checked (:attr:`transcripts`) and replaced by ``{}``: a load never holds the turns."""
        at, self._offset = self._offset, self._offset + len(data)
        if b'"meta"' not in data and b'"transcript"' not in data:
            self._line += data.count(b"\n") + (not data.endswith(b"\n"))
            return data
        lines = data.split(b"\n")
        if data.endswith(b"\n"):
            lines.pop()
        for i, raw in enumerate(lines):
            length = len(raw) + 1
            if b'"transcript"' in raw:
                raw = lines[i] = self._take_transcript(raw, self._line + i, at)
            if b'"meta"' in raw:
                lines[i] = self._take_meta(raw, self._line + i)
            at += length
        self._line += len(lines)
        return b"\n".join(lines) + (b"\n" if data.endswith(b"\n") else b"")

    def _take_transcript(self, raw: bytes, line: int, offset: int) -> bytes:
        try:
            found = _top_object(raw, b'"transcript"')
            if found is None:
                return raw
            value, at, size = found
            checked = check_transcript(value, None)  # which questions it names is checked against the row's
            self.transcripts[line] = (max((t[k] for t in checked["turns"] for k in ("q_index", "answers")
                                           if t[k] is not None), default=-1), offset, line_digest(raw))
            return _blanked(raw, at, size)
        except (ValueError, RecordError, RecursionError):
            raise _Unclean() from None

    def _take_meta(self, raw: bytes, line: int) -> bytes:
        try:
            found = _top_object(raw, b'"meta"')
            if found is None:
                return raw
            meta, at, size = found
            source = raw[at:at + size]
            known = self._canonical.get(source)
            if known is None:
                known = self._canonical[source] = meta_text(meta)
            self.metas[line] = known
            return _blanked(raw, at, size)
        except (ValueError, RecordError, RecursionError):
            raise _Unclean() from None


def _top_object(raw: bytes, key: bytes) -> tuple[dict[str, Any], int, int] | None:
    """The object a line's top-level ``key`` (quoted) holds, where its text starts and how many bytes it takes;
    None when the line has none (or null). A key spelled with escapes or named twice, or a value that is no
    object, raises _Unclean (the reference path names what is wrong)."""
    at = _key_start(raw, key)
    if at is None:  # the key only inside a value, or spelled with escapes or named twice
        if key.strip(b'"').decode() in _strict_loads(raw.decode("utf-8")):
            raise _Unclean()
        return None
    text = raw[at:].decode("utf-8")
    value, end = _STRICT.raw_decode(text)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _Unclean()
    return value, at, len(text[:end].encode("utf-8"))


def _blanked(raw: bytes, at: int, size: int) -> bytes:
    """``raw`` with the ``size`` bytes at ``at`` replaced by ``{}`` padded to their length (Arrow sees an empty
    object; the line keeps its length)."""
    return raw[:at] + b"{}" + b" " * (size - 2) + raw[at + size:]


#: a JSON string token; on text that is valid JSON up to where it is used, it finds every string
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_AFTER_KEY = re.compile(rb'\s*:\s*')


def _at_top_level(before: bytes) -> bool:
    """Whether a string that starts right after ``before`` (the beginning of a line of valid
    JSON, which opens with ``{``) is a key of the line's own object.

    It is when ``before``, with its strings taken out, holds no quote (the string begins there,
    not inside another) and opens exactly one object or list more than it closes."""
    if b"\\" not in before and before.count(b"{") == 1 and b"[" not in before and b"]" not in before \
            and b"}" not in before:
        return before.count(b'"') % 2 == 0  # no escapes: every quote opens or closes a string
    rest = _JSON_STRING.sub(b"", before)
    return b'"' not in rest and rest.count(b"{") + rest.count(b"[") - rest.count(b"}") - rest.count(b"]") == 1


def _meta_start(raw: bytes) -> int | None:
    """Where the top-level ``meta`` value starts in a line that is valid JSON, or None when
    that cannot be told without parsing the line (the key spelled with escapes, or twice)."""
    return _key_start(raw, b'"meta"')


def _key_start(raw: bytes, key: bytes) -> int | None:
    """Where the value of the top-level ``key`` (quoted) starts in a line that is valid JSON, or None when that
    cannot be told without parsing the line (the key spelled with escapes, or twice)."""
    start = None
    at = raw.find(key)
    while at >= 0:
        colon = _AFTER_KEY.match(raw, at + len(key))
        if colon is not None and _at_top_level(raw[:at]):
            if start is not None:
                return None  # twice at the top level: the whole-line parse says what is wrong
            start = colon.end()
        at = raw.find(key, at + len(key))
    return start


#: What Arrow parses: the contract's fields, ``meta`` as the empty object the reader leaves in its place,
#: and nothing else (an unknown field, at any depth, sends the file to the reference path, which names it)
_PARSE_SCHEMA = INPUT_SCHEMA.append(pa.field("meta", pa.struct([]))).append(pa.field("transcript", pa.struct([])))


#: what the scan gives with Arrow's table: the lines, each line's canonical ``meta``, each line's transcript
#: (the highest question it names)
_Parsed = tuple[pa.Table | None, int, dict[int, str], dict[int, tuple[int, int, str]]]


def _parse(path: Path, seen: dict[str, Any] | None = None) -> _Parsed:
    """Parse a file with Arrow, through the scan: (table, lines, each line's canonical ``meta``, each line's
    transcript), or (None, 0, {}, {}) when the reference path must take it; ``seen`` gets the scan's ``longest``
    line and whether one was ``over`` the record limit.

    Arrow's reader needs each line inside one block: a file with a line longer than the block is parsed again
    with blocks that hold it, up to the record limit, so that Arrow takes every record the reference path takes
    (a record just under 64 MiB was refused by ``engine="arrow"`` alone)."""
    block = _JSON_BLOCK
    while True:
        found: dict[str, Any] = {}
        with _open(path) as fh:
            parsed = _parse_stream(fh, block, found)
        if parsed[0] is None and not found["over"] and found["longest"] + 2 > block:
            block = max(2 * block, found["longest"] + (1 << 16))
            continue
        if seen is not None:
            seen.update(found)
        return parsed


def _parse_stream(fh: _Binary | io.BytesIO, block: int = _JSON_BLOCK, seen: dict[str, Any] | None = None
                  ) -> _Parsed:
    """:func:`_parse` of an open binary stream (a file, or several small ones joined: :func:`read_small_files`),
    read in blocks of ``block`` bytes."""
    reader = _ScanningReader(fh)
    if seen is not None:
        seen.update(longest=0, over=False)
    try:
        return _parse_read(reader, block)
    finally:
        if seen is not None:
            seen.update(longest=reader.scan.longest, over=reader.scan.over)


def _parse_read(reader: _ScanningReader, block: int) -> _Parsed:
    """What Arrow makes of the stream ``reader`` scans, in blocks of ``block`` bytes (:func:`_parse_stream`)."""
    try:
        table = pj.read_json(
            reader,
            read_options=pj.ReadOptions(block_size=block),
            parse_options=pj.ParseOptions(explicit_schema=_PARSE_SCHEMA, unexpected_field_behavior="error"),
        )  # (from the pool the load chose: the C library's, memory.c_allocator, where its blocks are reused)
        table.validate(full=True)  # the JSON reader does not check that strings are UTF-8
    except (_Unclean, pa.ArrowInvalid, UnicodeDecodeError):
        return None, 0, {}, {}
    if not reader.scan.clean:
        return None, 0, {}, {}
    if reader.transcripts and table.num_rows:
        # Arrow made a chunk of each block of the file, transcripts' bytes (blanked) included: ten times the
        # chunks of the same runs without them, and every later take from the runs paid for it
        table = table.combine_chunks()
    return table, reader.scan.lines(), reader.metas, reader.transcripts


def read_file_arrow(path: Path, display: str, seen: dict[str, Any] | None = None) -> FileRead | None:
    """Read one JSON Lines file through Arrow; None when the file needs the reference path (``seen``: as
    :func:`_parse` fills it)."""
    return _checked(*_parse(path, seen), display=display)


def _checked(table: pa.Table | None, n_lines: int, metas: dict[int, str],
             transcripts: dict[int, tuple[int, int, str]],
             display: str) -> FileRead | None:
    """What Arrow parsed as a file's read (records numbered by line), or None when the reference path must
    read it: a line Arrow did not make a row (a blank one), a value the contract refuses, a ``meta`` or a
    ``transcript`` lost, a transcript naming a question its run does not have."""
    if table is None:
        return None
    if table.num_rows != n_lines or not table_is_valid(table.drop_columns(["meta", "transcript"])):
        return None
    talks = table.column("transcript").is_valid().combine_chunks()
    if int(pc.sum(talks).as_py() or 0) != len(transcripts):
        return None
    located = None
    if transcripts:
        lines = np.fromiter(transcripts, dtype=np.int64, count=len(transcripts))
        highest = np.fromiter((t[0] for t in transcripts.values()), dtype=np.int64, count=len(transcripts))
        n_q = pc.fill_null(pc.list_value_length(table.column("questions")), 0).to_numpy()
        tasks = pc.fill_null(pc.equal(table.column("record"), "task"), False).to_numpy(zero_copy_only=False)
        if not talks.to_numpy(zero_copy_only=False)[lines].all() or (highest >= n_q[lines]).any() \
                or tasks[lines].any():  # a transcript is a run's: on a task record it is an error
            return None  # the reference path names the record
        values: list[str | None] = [None] * table.num_rows
        for line, (_, offset, digest) in transcripts.items():
            values[line] = _in_record(offset, digest)
        located = pa.array(values, pa.string())
    # every meta Arrow saw (as {}) is one the reader took out: a meta the reader missed must not pass as absent
    present = table.column("meta").is_valid().combine_chunks()
    if int(pc.sum(present).as_py() or 0) != len(metas):
        return None
    meta = None
    if metas:
        texts: list[str | None] = [None] * table.num_rows
        for line, text in metas.items():
            texts[line] = text
        meta = pa.array(texts, pa.string())
        if not meta.is_valid().equals(present):
            return None
    columns = [table.column(name) for name in INPUT_SCHEMA.names]
    columns.append(meta if meta is not None else pa.nulls(table.num_rows, pa.string()))
    columns.append(pa.array(np.arange(1, table.num_rows + 1, dtype=np.int64)))
    columns.append(located if located is not None else pa.nulls(table.num_rows, pa.string()))
    out = pa.Table.from_arrays(columns, schema=FILE_SCHEMA)
    n_task = int(pc.sum(pc.fill_null(pc.equal(out.column("record"), "task"), False)).as_py() or 0)
    return FileRead(display, out, [], out.num_rows - n_task, n_task, "arrow")


#: a plain JSON Lines file at most this large is read with its neighbours, many files to one parse
#: (:func:`read_small_files`): a folder of one-run files read one by one was slow (docs/performance.md)
SMALL_FILE_BYTES = 1 << 20
#: the most bytes, and files, read to one parse
BATCH_BYTES, BATCH_FILES = 32 << 20, 4096


def read_small_files(files: Sequence[Path]) -> FileRead | None:
    """Small plain JSON Lines files read through Arrow as one: each record keeps its own file and line (the
    read's ``sources``). None when any of them needs reading on its own (a blank line, a value the contract
    refuses, a file that cannot be read or changed since it was listed): the caller then reads each with
    :func:`read_file`, which names what is wrong in it."""
    chunks, counts = [], []
    for path in files:
        try:
            with open_regular(path) as fh:
                data = fh.read(SMALL_FILE_BYTES + 1)
        except (OSError, FormatError):
            return None
        if len(data) > SMALL_FILE_BYTES or not data.strip() or b"\r" in data:
            return None
        if not data.endswith(b"\n"):
            data += b"\n"
        chunks.append(data)
        counts.append(data.count(b"\n"))
    parsed = _parse_stream(io.BytesIO(b"".join(chunks)))
    if parsed[3]:  # a transcript's place is kept by its own file's offset: each file read alone
        return None
    read = _checked(*parsed, display=f"{files[0]} (and {len(files) - 1} more files)")
    if read is None:
        return None
    n = np.asarray(counts, dtype=np.int64)
    starts = np.cumsum(n) - n
    lines = np.arange(read.table.num_rows, dtype=np.int64) - np.repeat(starts, n) + 1
    read.table = read.table.set_column(read.table.schema.get_field_index("_line"), "_line", pa.array(lines))
    read.sources = pa.DictionaryArray.from_arrays(pa.array(np.repeat(np.arange(len(files), dtype=np.int32), n)),
                                                  pa.array([str(p) for p in files], pa.string()))
    return read


def read_file(path: Path, display: str, engine: Engine = "auto") -> FileRead:
    """Read one canonical JSON Lines file (plain or ``.gz``)."""
    if engine not in ("auto", "arrow", "python"):
        raise ValueError(f"engine must be 'auto', 'arrow' or 'python' (got {engine!r})")
    try:  # before reading: a change while it is read shows as a change since the load
        stamp: dict[str, int] | None = file_stamp(os.stat(path))
    except OSError:
        stamp = None  # the reader names what is wrong with it
    require_small(path, display, None if stamp is None else stamp["size"])
    read = None
    if engine != "python":
        seen: dict[str, Any] = {}
        try:
            read = read_file_arrow(path, display, seen)
        except (OSError, EOFError, zlib.error) as exc:
            raise FormatError(f"{display}: cannot be read ({_reason(exc)})") from exc
        # a record past the limit is refused on its line with its size, by either engine: the reference path says so
        if read is None and engine == "arrow" and not seen.get("over"):
            raise FormatError(f"{display}: the Arrow reader cannot take this file; use engine='auto'")
    if read is None:
        read = read_file_python(path, display)
    read.stamp = stamp
    return read


# ----------------------------------------------------------------------------- writing


def _record(row: dict[str, Any], fields: Iterable[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in fields:
        value = row.get(name)
        if value is None:
            continue
        if name == "meta":
            value = json.loads(value)
        elif isinstance(value, list):
            value = [
                {k: v for k, v in item.items() if v is not None} if isinstance(item, dict) else item
                for item in value
            ]
        out[name] = value
    return out


def _nested_by_run(frame: Any, columns: list[str]) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    if len(frame) == 0:
        return grouped
    table = pa.Table.from_pandas(frame[["run_id", *columns]], preserve_index=False)
    for row in table.to_pylist():
        grouped.setdefault(row.pop("run_id"), []).append(row)
    return grouped


#: the key an importer gives a record for where its run's conversation is (:func:`read_records`)
TRANSCRIPT_AT = "_transcript_at"


def _in_record(offset: int, digest: str) -> str:
    """``transcript_at`` of a canonical record that holds its transcript, whose line starts ``offset`` bytes into
    the (uncompressed) file and whose bytes have the SHA-256 ``digest`` (:func:`line_digest`): the file, its size
    and modification time and the line are added when the frames are built (``frames``)."""
    return f'{{"offset": {offset}, "reader": "runlog", "sha256": "{digest}"}}'


def runset_records(runset: Any, transcript: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None
                   ) -> Iterable[dict[str, Any]]:
    """Yield the canonical JSON records of a RunSet: task records first, then runs.

    ``transcript`` gives a run row's ``transcript`` field (read from its log, one run at a time) or None."""
    tasks = pa.Table.from_pandas(runset.tasks, preserve_index=False).to_pylist()
    blockers: dict[tuple[str, str, str], list[dict[str, Any]]] = {}  # by (benchmark, suite, variant_id)
    for b in pa.Table.from_pandas(runset.blockers, preserve_index=False).to_pylist():
        key = (b["benchmark"], b["suite"], b["variant_id"])
        blockers.setdefault(key, []).append({"id": b["blocker_id"], "type": b["type"], "subtype": b["subtype"]})
    task_fields = [f.name for f in TASK_FIELDS]
    for t in tasks:
        t["blockers"] = blockers.get((t["benchmark"], t["suite"], t["variant_id"]), [])
        yield {"record": "task", **_record(t, task_fields)}
    questions = _nested_by_run(
        runset.questions, ["text", "blocker_id", "response", "step", "in_scope", "attributed", "parts"]
    )
    for qs in questions.values():  # attributed is written only where false (true is the default)
        for q in qs:
            if q["attributed"] is not False:
                q["attributed"] = None
    labels = _nested_by_run(runset.labels, ["facet", "label", "judge", "call", "q_index"])
    run_fields = [f.name for f in RUN_FIELDS]
    for r in pa.Table.from_pandas(runset.runs, preserve_index=False).to_pylist():
        r["questions"] = questions.get(r["run_id"], [])
        r["labels"] = labels.get(r["run_id"], [])
        rec = _record(r, run_fields)
        if not rec.get("questions"):
            rec.pop("questions", None)
        if not rec.get("labels"):
            rec.pop("labels", None)
        if transcript is not None and r.get("transcript_at") is not None:
            turns = transcript(r)
            if turns is not None:
                rec["transcript"] = turns
        yield rec


def write_jsonl(runset: Any, path: str | os.PathLike[str],
                transcript: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None) -> Path:
    """Write a RunSet as canonical JSON Lines, task records first.

    A path ending in ``.jsonl`` or ``.jsonl.gz`` becomes one file; any other path a folder holding one file,
    :data:`JSONL_FOLDER_FILE`. Either is written whole aside and put in place in one rename
    (:mod:`ambiglib.runlog._whole_writes`): an interrupt leaves the old file or folder as it was, and a folder holding
    anything but a run log's files is refused.
    """
    path = Path(path)
    records = runset_records(runset, transcript)
    if is_jsonl(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_lines(path, records)
        return path
    with replaced_folder(path) as work:  # one file: no kill leaves one log's runs beside another's tasks
        _write_lines(work / JSONL_FOLDER_FILE, records)
    return path


#: the one file of a JSON Lines folder :func:`write_jsonl` writes (an older ambiglib wrote runs.jsonl and tasks.jsonl)
JSONL_FOLDER_FILE = "log.jsonl"


def _write_lines(path: Path, records: Iterable[dict[str, Any]]) -> None:
    """Write the records whole or not at all (a temporary file renamed over ``path``: ``files.replaced``); a
    record longer than :data:`MAX_RECORD_BYTES`, which no load would read back, is a FormatError naming its line."""
    opener = gzip.open if path.name.endswith(".gz") else open
    limit = MAX_RECORD_BYTES
    with replaced(path) as tmp, opener(tmp, "wt", encoding="utf-8", newline="\n") as fh:
        for lineno, rec in enumerate(records, 1):
            line = json.dumps(rec, ensure_ascii=False, separators=(",", ":"))
            size = len(line) if len(line) <= limit // 4 else len(line.encode("utf-8", "surrogatepass"))  # <= 4 a char
            if size > limit:
                raise FormatError(f"{path}:{lineno}: {too_long(size, limit)},"
                                  " which no load would read back; write it as Parquet (RunSet.to_parquet)")
            fh.write(line)
            fh.write("\n")


def require_small(path: Path | str, display: Path | str | None = None, size: int | None = None) -> None:
    """A FormatError naming the file and its size when it is larger than :data:`MAX_FILE_BYTES` (``size``: its
    size, known; else looked up, and a file that cannot be looked up left to its reader to name)."""
    if size is None:
        try:
            size = os.stat(path).st_size
        except OSError:
            return
    if size > MAX_FILE_BYTES:
        raise FormatError(f"{display or path}: {size:,} bytes, over the limit of {MAX_FILE_BYTES:,} bytes for one"
                          " run-log file (ambiglib.runlog.MAX_FILE_BYTES); split the log into several files of one"
                          " folder, which loads as one log")


def require_exists(path: Path) -> None:
    try:
        found = path.exists()
    except OSError as exc:  # a folder on the way this user may not enter (Python 3.11's pathlib raises it)
        raise FormatError(f"{path}: cannot be reached ({exc.strerror or exc}): a folder above it does not let"
                          " this user in") from None
    if not found:
        raise RunLogNotFoundError(f"{path}: no such file or folder")
