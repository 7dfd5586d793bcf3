"""Read and write the canonical run log (JSON Lines, plain or gzip, and Parquet).

Reading a JSON Lines file takes one of two paths that give identical results:

* the Arrow path: ``pyarrow.json.read_json`` parses the whole file with the
  contract's schema, and :func:`ambiglib.schema.table_is_valid` checks every row
  at once. This is the path a well-formed file takes.
* the reference path: each line is parsed with :mod:`json` and checked by
  :func:`ambiglib.schema.validate_record`, which names the line, the field, what
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
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Iterable, Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj
import pyarrow.parquet as pq

from .errors import ArgumentError, FormatError, LoadError, RunLogNotFoundError
from .schema import (
    FILE_SCHEMA,
    INPUT_SCHEMA,
    MAX_DEPTH,
    RUN_FIELDS,
    RUNLOG_VERSION,
    TASK_FIELDS,
    RecordError,
    reject_duplicate_keys,
    table_is_valid,
    meta_text,
    validate_record,
)

Engine = Literal["auto", "arrow", "python"]

JSONL_SUFFIXES = (".jsonl", ".jsonl.gz")
FRAMES = ("runs", "questions", "labels", "tasks", "blockers")
_PARQUET_META_KEY = b"ambiglib.runlog_version"
_BLOCK = 1 << 24
_JSON_BLOCK = 1 << 22  # 4 MiB: measured ~15% faster than pyarrow's 1 MiB default on large logs


@dataclass
class FileRead:
    """What one JSON Lines file gave: its valid records and its rejected ones."""

    file: str
    table: pa.Table  # FILE_SCHEMA, valid records only
    errors: list[LoadError] = field(default_factory=list)
    n_run_records: int = 0
    n_task_records: int = 0
    engine: str = "arrow"

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


def jsonl_files(root: Path) -> list[Path]:
    """List the run-log files of a folder (recursively) in name order, or the file itself."""
    if root.is_file():
        return [root]
    files = [p for p in root.rglob("*") if p.is_file() and is_jsonl(p)]
    return sorted(files, key=lambda p: p.relative_to(root).as_posix())


def is_parquet_runlog(path: Path) -> bool:
    return path.is_dir() and (path / "runs.parquet").is_file()


def _open(path: Path) -> IO[bytes]:
    """Open a run-log file for reading; ``.gz`` through Python's gzip, for both engines,
    so that they take and refuse exactly the same compressed bytes."""
    return gzip.open(path, "rb") if path.name.endswith(".gz") else open(path, "rb")


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
_STRICT_RULES = {"object_pairs_hook": reject_duplicate_keys, "parse_constant": _no_constant,
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


def read_file_python(path: Path, display: str) -> FileRead:
    """Read one JSON Lines file line by line, checking each record (the reference path)."""
    rows: list[dict[str, Any]] = []
    out = FileRead(display, FILE_SCHEMA.empty_table(), engine="python")
    count, reject = out.count, out.reject
    try:
        with _open(path) as fh:
            for lineno, raw in enumerate(fh, 1):
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
                _accept(out, rows, lineno, obj)
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
    by default their 1-based positions.
    """
    rows: list[dict[str, Any]] = []
    out = FileRead(display, FILE_SCHEMA.empty_table(), engine="python")
    records = list(records)
    for lineno, obj in zip(lines if lines is not None else range(1, len(records) + 1), records):
        _accept(out, rows, lineno, obj)
    if rows:
        out.table = pa.Table.from_pylist(rows, schema=FILE_SCHEMA)
    return out


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
        self.n_lines += len(newlines)
        self.previous = int(arr[-1])
        return self.clean

    def lines(self) -> int:
        return self.n_lines + (self.previous != ord("\n"))  # a last line without its newline


class _Unclean(Exception):
    """Raised into the Arrow reader to stop it before it sees a line it must not parse."""


class _ScanningReader(io.RawIOBase):
    """A file Arrow reads through, scanned block by block before Arrow sees each block.

    The scan runs while Arrow's threads parse earlier blocks, and a line nested deep
    enough to crash Arrow's reader stops the read before Arrow sees it.
    """

    def __init__(self, fh: IO[bytes]):
        self.fh, self.scan = fh, _Scan()

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        block = self.fh.read(size)
        if not self.scan.feed(block):
            raise _Unclean()
        return block


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
    start = None
    at = raw.find(b'"meta"')
    while at >= 0:
        colon = _AFTER_KEY.match(raw, at + 6)
        if colon is not None and _at_top_level(raw[:at]):
            if start is not None:
                return None  # twice at the top level: the whole-line parse says what is wrong
            start = colon.end()
        at = raw.find(b'"meta"', at + 6)
    return start


def _meta_column(path: Path, n_rows: int) -> pa.Array | None:
    """Read ``meta`` of every line that mentions it, as canonical JSON text (None: give up).

    Called on a file the Arrow reader has parsed, so every line is valid JSON: ``meta`` is
    parsed alone, as strictly as a whole line would be (keys named twice, NaN, numbers
    beyond a float), and each distinct text is made canonical once. A line where the key
    cannot be found that way is parsed whole, strictly."""
    values: list[str | None] = [None] * n_rows
    canonical: dict[str, str] = {}
    with _open(path) as fh:
        for i, raw in enumerate(fh):
            if b'"meta"' not in raw:
                continue
            try:
                at = _meta_start(raw)
                if at is not None:
                    text = raw[at:].decode("utf-8")
                    meta, end = _STRICT.raw_decode(text)
                    source = text[:end]
                else:
                    meta = _strict_loads(raw.decode("utf-8")).get("meta")
                    source = None
                if meta is None:
                    continue
                if not isinstance(meta, dict):
                    return None
                if source is None:
                    values[i] = meta_text(meta)
                elif (known := canonical.get(source)) is not None:
                    values[i] = known
                else:
                    values[i] = canonical[source] = meta_text(meta)
            except (ValueError, RecordError, AttributeError, RecursionError):
                return None
    return pa.array(values, pa.string())


def _parse(path: Path) -> tuple[pa.Table | None, int]:
    """Parse a file with Arrow, through the scan; (None, 0) when the reference path must take it."""
    with _open(path) as fh:
        reader = _ScanningReader(fh)
        try:
            table = pj.read_json(
                reader,
                read_options=pj.ReadOptions(block_size=_JSON_BLOCK),
                parse_options=pj.ParseOptions(explicit_schema=INPUT_SCHEMA, unexpected_field_behavior="infer"),
            )
            table.validate(full=True)  # the JSON reader does not check that strings are UTF-8
        except (_Unclean, pa.ArrowInvalid, UnicodeDecodeError):
            return None, 0
    if not reader.scan.clean:
        return None, 0
    return table, reader.scan.lines()


def read_file_arrow(path: Path, display: str) -> FileRead | None:
    """Read one JSON Lines file through Arrow; None when the file needs the reference path."""
    table, n_lines = _parse(path)
    if table is None:
        return None
    if table.num_rows != n_lines or not table_is_valid(table):
        return None
    meta = None
    if "meta" in table.schema.names and table.column("meta").null_count < table.num_rows:
        meta = _meta_column(path, table.num_rows)
        # a meta the line scan missed (a key spelled with escapes) must not pass as absent
        if meta is None or not meta.is_valid().equals(table.column("meta").is_valid().combine_chunks()):
            return None
    columns = [table.column(name) for name in INPUT_SCHEMA.names]
    columns.append(meta if meta is not None else pa.nulls(table.num_rows, pa.string()))
    columns.append(pa.array(np.arange(1, table.num_rows + 1, dtype=np.int64)))
    out = pa.Table.from_arrays(columns, schema=FILE_SCHEMA)
    n_task = int(pc.sum(pc.fill_null(pc.equal(out.column("record"), "task"), False)).as_py() or 0)
    return FileRead(display, out, [], out.num_rows - n_task, n_task, "arrow")


def read_file(path: Path, display: str, engine: Engine = "auto") -> FileRead:
    """Read one canonical JSON Lines file (plain or ``.gz``)."""
    if engine not in ("auto", "arrow", "python"):
        raise ValueError(f"engine must be 'auto', 'arrow' or 'python' (got {engine!r})")
    if engine != "python":
        try:
            fast = read_file_arrow(path, display)
        except (OSError, EOFError, zlib.error) as exc:
            raise FormatError(f"{display}: cannot be read ({_reason(exc)})") from exc
        if fast is not None:
            return fast
        if engine == "arrow":
            raise FormatError(f"{display}: the Arrow reader cannot take this file; use engine='auto'")
    return read_file_python(path, display)


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


def runset_records(runset: Any) -> Iterable[dict[str, Any]]:
    """Yield the canonical JSON records of a RunSet: task records first, then runs."""
    tasks = pa.Table.from_pandas(runset.tasks, preserve_index=False).to_pylist()
    blockers: dict[tuple, list[dict[str, Any]]] = {}
    for b in pa.Table.from_pandas(runset.blockers, preserve_index=False).to_pylist():
        key = (b["benchmark"], b["suite"], b["variant_id"])
        blockers.setdefault(key, []).append({"id": b["blocker_id"], "type": b["type"], "subtype": b["subtype"]})
    task_fields = [f.name for f in TASK_FIELDS]
    for t in tasks:
        t["blockers"] = blockers.get((t["benchmark"], t["suite"], t["variant_id"]), [])
        yield {"record": "task", **_record(t, task_fields)}
    questions = _nested_by_run(
        runset.questions, ["text", "blocker_id", "response", "step", "in_scope"]
    )
    labels = _nested_by_run(runset.labels, ["facet", "label", "judge", "call"])
    run_fields = [f.name for f in RUN_FIELDS]
    for r in pa.Table.from_pandas(runset.runs, preserve_index=False).to_pylist():
        r["questions"] = questions.get(r["run_id"], [])
        r["labels"] = labels.get(r["run_id"], [])
        rec = _record(r, run_fields)
        if not rec.get("questions"):
            rec.pop("questions", None)
        if not rec.get("labels"):
            rec.pop("labels", None)
        yield rec


def write_jsonl(runset: Any, path: str | os.PathLike[str]) -> Path:
    """Write a RunSet as canonical JSON Lines.

    A path ending in ``.jsonl`` or ``.jsonl.gz`` becomes one file (task records first);
    any other path becomes a folder holding ``runs.jsonl`` and ``tasks.jsonl``.
    """
    path = Path(path)
    records = runset_records(runset)
    if is_jsonl(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_lines(path, records)
        return path
    path.mkdir(parents=True, exist_ok=True)
    tasks, runs = [], []
    for rec in records:
        (tasks if rec.get("record") == "task" else runs).append(rec)
    _write_lines(path / "runs.jsonl", runs)
    if tasks:
        _write_lines(path / "tasks.jsonl", tasks)
    return path


def _write_lines(path: Path, records: Iterable[dict[str, Any]]) -> None:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "wt", encoding="utf-8", newline="\n") as fh:
        for rec in records:
            fh.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")))
            fh.write("\n")


#: Columns whose values rarely repeat: PLAIN-encoded. The rest (run_id repeats per question, responses
#: repeat the blocker resolutions) decode faster from a dictionary (measured, docs/performance.md).
_PLAIN_COLUMNS = frozenset({"text", "source", "meta"})


def write_parquet(frames: dict[str, Any], path: str | os.PathLike[str], *,
                  compression: str | None = None, partition_by: tuple[str, ...] = ()) -> Path:
    """Write the five frames as ``<frame>.parquet`` files in a folder, or with
    ``partition_by`` as a hive-partitioned store (:func:`write_store`).

    Uncompressed by default: the Parquet copy of a run log is there to reload fast,
    and decompression costs more than reading the larger file (``docs/performance.md``).
    Pass ``compression="zstd"`` for smaller files.
    """
    if partition_by:
        return write_store(frames, path, partition_by, compression=compression)
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    for name in FRAMES:
        table = _versioned(pa.Table.from_pandas(frames[name], preserve_index=False))
        pq.write_table(table, path / f"{name}.parquet", compression=compression or "none",
                       use_dictionary=_dictionary_columns(table.schema), write_page_checksum=True)
    return path


def _versioned(table: pa.Table, **more: bytes) -> pa.Table:
    return table.replace_schema_metadata(
        {**(table.schema.metadata or {}), _PARQUET_META_KEY: str(RUNLOG_VERSION).encode(), **more})


def _require_version(schema: pa.Schema, file: Path, writer: str) -> None:
    """A frame written by ambiglib for this run-log version, else a FormatError naming the file."""
    version = (schema.metadata or {}).get(_PARQUET_META_KEY)
    if version != str(RUNLOG_VERSION).encode():
        found = version.decode() if version else "none"
        raise FormatError(f"{file}: run-log version must be {RUNLOG_VERSION} (got {found}); write {writer}")


def _dictionary_columns(schema: pa.Schema) -> list[str]:
    return [c for c in schema.names if c not in _PLAIN_COLUMNS and pa.types.is_string(schema.field(c).type)]


# ----------------------------------------------------------------------------- the partitioned store

#: Schema metadata of a store's frames: the partition columns, as JSON.
_PARTITION_META_KEY = b"ambiglib.partition_by"
#: The column that keeps each row's place in its frame (rows come back in order after a partitioned read).
STORE_ROW = "_row"
_COMMON = "_common_metadata"


def is_parquet_store(path: Path) -> bool:
    return path.is_dir() and (path / "runs" / _COMMON).is_file()


def write_store(frames: dict[str, Any], path: str | os.PathLike[str], partition_by: tuple[str, ...], *,
                compression: str | None = None) -> Path:
    """Write the five frames as hive-partitioned Parquet datasets, ``<path>/<frame>/<col>=<value>/...``.

    Runs, tasks and blockers are partitioned by the columns of ``partition_by`` they have;
    questions and labels by their run's (the values are in the path only, as hive
    partitioning stores them). Each file keeps its rows' places in the frame
    (``_row``), and each frame folder its schema (``_common_metadata``), so that a read
    gives back exactly the frames written. Values are percent-encoded in folder names
    (``model=Claude%20Opus%204.5``), so no value can name another folder.
    """
    import pyarrow.dataset as ds

    path = Path(path)
    runs = frames["runs"]
    text = {f.name for f in pa.Schema.from_pandas(runs, preserve_index=False) if pa.types.is_string(f.type)}
    bad = [c for c in partition_by if c not in text]
    if bad or len(set(partition_by)) != len(partition_by):
        raise ArgumentError(f"partition_by {list(partition_by)}: each column must be a text column of runs, once"
                            f" ({', '.join(sorted(text))}); got {', '.join(map(repr, bad)) or 'a repeat'}")
    if path.exists() and (not path.is_dir() or (any(path.iterdir()) and not is_parquet_store(path))):
        raise FormatError(f"{path}: exists and is not an ambiglib Parquet store; write the store to a new folder")
    path.mkdir(parents=True, exist_ok=True)
    keys = pa.Table.from_pandas(runs[["run_id", *partition_by]], preserve_index=False)
    fmt = ds.ParquetFileFormat()
    for name in FRAMES:
        table = pa.Table.from_pandas(frames[name], preserve_index=False)
        own = [c for c in partition_by if c in table.schema.names]
        schema = _versioned(table, **{_PARTITION_META_KEY.decode(): json.dumps(own).encode()}).schema
        table = table.append_column(STORE_ROW, pa.array(np.arange(table.num_rows, dtype=np.int64)))
        part = own
        if name in ("questions", "labels"):  # by their run's partition: the values live in the paths only
            joined = table.select(["run_id", STORE_ROW]).join(keys, "run_id", join_type="left outer")
            joined = joined.sort_by(STORE_ROW)
            for c in partition_by:
                table = table.append_column(c, joined.column(c))
            part = list(partition_by)
        folder = path / name
        if folder.exists():  # a store written before: replace it whole
            import shutil

            shutil.rmtree(folder)
        options = fmt.make_write_options(compression=compression or "none", write_page_checksum=True,
                                         use_dictionary=_dictionary_columns(table.schema))
        partitioning = ds.partitioning(pa.schema([(c, pa.string()) for c in part]), flavor="hive") if part else None
        ds.write_dataset(table, folder, format=fmt, file_options=options, partitioning=partitioning,
                         basename_template="part-{i}.parquet", existing_data_behavior="error",
                         max_rows_per_file=1 << 22, max_rows_per_group=1 << 17, min_rows_per_group=1 << 14)
        pq.write_metadata(schema, folder / _COMMON)
    return path


def read_store_tables(path: Path, filters: Any = None) -> dict[str, pa.Table]:
    """Read a store written by :func:`write_store`: only the partitions ``filters`` (in
    :mod:`ambiglib.filters`' normal form) can match, then exactly the rows it keeps of
    runs, their questions and labels, and the tasks and blockers it keeps."""
    import pyarrow.dataset as ds

    from . import filters as flt

    fmt = ds.ParquetFileFormat(default_fragment_scan_options=ds.ParquetFragmentScanOptions(
        page_checksum_verification=True))
    schemas = {}
    for name in FRAMES:
        try:
            schemas[name] = pq.read_schema(path / name / _COMMON)
        except (pa.ArrowException, OSError) as exc:
            raise FormatError(f"{path / name / _COMMON}: missing or unreadable; a Parquet store has"
                              f" {', '.join(f + '/' + _COMMON for f in FRAMES)} ({exc})") from exc
        _require_version(schemas[name], path / name / _COMMON,
                         "Parquet stores with RunSet.to_parquet(partition_by=...)")
    runs_part = json.loads((schemas["runs"].metadata or {}).get(_PARTITION_META_KEY, b"[]"))
    out: dict[str, pa.Table] = {}
    for name, schema in schemas.items():
        folder = path / name
        # questions and labels are partitioned by their run's columns
        part = runs_part if name in ("questions", "labels") else json.loads(
            (schema.metadata or {}).get(_PARTITION_META_KEY, b"[]"))
        if name == "runs":
            expr = flt.expression(filters)
        elif name in ("questions", "labels"):
            expr = flt.expression(filters, part)  # prune by the run's partition; run_id decides below
        else:
            expr = flt.expression(filters, flt.TASK_COLUMNS)
        try:
            dataset = ds.dataset(folder, format=fmt, partitioning=ds.partitioning(
                pa.schema([(c, pa.string()) for c in part]), flavor="hive") if part else None)
            table = dataset.to_table(filter=expr) if expr is not None else dataset.to_table()
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise FormatError(f"{folder}: not a readable Parquet dataset ({exc})") from exc
        if STORE_ROW not in table.schema.names:
            raise FormatError(f"{folder}: column '{STORE_ROW}' missing; write Parquet stores with RunSet.to_parquet")
        # rows back in their order; the columns are checked and typed with the contract's, as a Parquet
        # folder's are (parquet_check.check_tables)
        paths_only = [c for c in part if c not in schema.names]  # a question's run partition
        out[name] = table.sort_by(STORE_ROW).drop_columns([STORE_ROW, *paths_only])
    if filters is not None:  # exactly the questions and labels of the runs kept
        ids = out["runs"].column("run_id")
        for name in ("questions", "labels"):
            out[name] = out[name].filter(pc.is_in(out[name].column("run_id"), value_set=ids.combine_chunks()))
    return out


def read_parquet_tables(path: Path) -> dict[str, pa.Table]:
    """Read a Parquet run-log folder written by :func:`write_parquet`."""
    for name in FRAMES:
        file = path / f"{name}.parquet"
        if not file.is_file():
            raise FormatError(
                f"{file}: missing; a Parquet run log is a folder of {', '.join(f + '.parquet' for f in FRAMES)}"
            )

    def read(name: str) -> pa.Table | Exception:
        try:
            # page checksums (written since issue 11) turn a flipped bit into an error, not a value
            return pq.read_table(path / f"{name}.parquet", page_checksum_verification=True)
        except (pa.ArrowException, OSError, ValueError) as exc:
            return exc

    with ThreadPoolExecutor(len(FRAMES)) as pool:  # Arrow releases the GIL while decoding
        read_tables = dict(zip(FRAMES, pool.map(read, FRAMES)))
    tables = {}
    for name, table in read_tables.items():
        file = path / f"{name}.parquet"
        if isinstance(table, Exception):
            raise FormatError(f"{file}: not a readable Parquet file ({table})") from table
        _require_version(table.schema, file, "Parquet run logs with RunSet.to_parquet")
        tables[name] = table
    return tables


def require_exists(path: Path) -> None:
    if not path.exists():
        raise RunLogNotFoundError(f"{path}: no such file or folder")
