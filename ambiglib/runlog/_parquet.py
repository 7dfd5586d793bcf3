"""Parquet run logs and partitioned stores: writing them, and reading back exactly what was written.

A Parquet run log is a folder of five files, ``<frame>.parquet``; a partitioned store is five
hive-partitioned datasets, ``<frame>/<col>=<value>/part-N.parquet``, each with its schema in
``<frame>/_common_metadata``. Both are binary copies of a checked log, made by
``RunSet.to_parquet``; what they hold is checked again on reading
(:mod:`ambiglib.runlog._parquet_check`), and before that, here, what they are:

* pages carry checksums (a flipped bit is an error, not a value);
* each file records the run-log version and how many rows it was written with (a row deleted or
  added since is an error: such a row may carry nothing else that would show its absence);
* a store's ``_common_metadata`` lists every part file with its row count: a part missing, a file
  that is not one of the parts (a stray ``.parquet``, a folder without ``=``), a link or anything
  unreadable in the store is an error naming it, and every part must hold every column of its frame
  with the frame's type (a part missing ``score`` read as nulls before);
* every row of a store keeps its place in its frame (``_row``), so the frames come back in order and a
  row repeated or lost between parts shows.

Errors name the file, and for a store the part file and its row, never a file the store does not have.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ambiglib.errors import ArgumentError, FormatError
from ambiglib.runlog._files import kind_of, open_regular
from ambiglib.runlog._inflation import check_parquet
from ambiglib.runlog._jsonl import FRAMES, require_small
from ambiglib.runlog._schema import RUNLOG_VERSION
from ambiglib.runlog._whole_writes import replaced_folder

__all__ = ["is_parquet_runlog", "is_parquet_store", "write_parquet", "write_store", "read_parquet_tables",
           "read_store_tables", "StoreRows", "STORE_ROW"]

_VERSION_KEY = b"ambiglib.runlog_version"
#: Schema metadata: the rows a file (or a store frame) was written with.
_ROWS_KEY = b"ambiglib.rows"
#: Schema metadata of a store's frames: the partition columns, as JSON; and every part with its rows.
_PARTITION_META_KEY = b"ambiglib.partition_by"
_PARTS_KEY = b"ambiglib.parts"
#: Schema metadata of every file of one write (each frame, the transcripts, a store's schemas and parts): one id,
#: so that a folder holding files of two writes is refused, naming them.
_WRITE_KEY = b"ambiglib.write_id"
#: The column that keeps each row's place in its frame (rows come back in order after a partitioned read).
STORE_ROW = "_row"
_COMMON = "_common_metadata"
#: Columns whose values rarely repeat: PLAIN-encoded. The rest (run_id repeats per question, responses
#: repeat the blocker resolutions) decode faster from a dictionary (measured, docs/performance.md).
_PLAIN_COLUMNS = frozenset({"text", "source", "meta"})


def is_parquet_runlog(path: Path) -> bool:
    return path.is_dir() and os.path.lexists(path / "runs.parquet")


def is_parquet_store(path: Path) -> bool:
    return path.is_dir() and os.path.lexists(path / "runs" / _COMMON)


def new_write_id() -> bytes:
    """A fresh id for the files of one write."""
    import uuid

    return uuid.uuid4().hex.encode()


def versioned(table: pa.Table, **more: bytes) -> pa.Table:
    """The table with the run-log version (and ``more``) in its schema metadata."""
    return table.replace_schema_metadata(
        {**(table.schema.metadata or {}), _VERSION_KEY: str(RUNLOG_VERSION).encode(), **more})


def _require_version(schema: pa.Schema, file: Path, writer: str) -> None:
    """A frame written by ambiglib for this run-log version, else a FormatError naming the file."""
    version = (schema.metadata or {}).get(_VERSION_KEY)
    if version != str(RUNLOG_VERSION).encode():
        found = version.decode(errors="replace") if version else "none"
        raise FormatError(f"{file}: run-log version must be {RUNLOG_VERSION} (got {found}); write {writer}")


def _written_rows(schema: pa.Schema, file: Path, writer: str) -> int:
    raw = (schema.metadata or {}).get(_ROWS_KEY)
    try:
        rows = int(raw.decode("ascii")) if raw is not None else None
    except (UnicodeDecodeError, ValueError):
        rows = None
    if rows is None or rows < 0:
        raise FormatError(f"{file}: no record of the rows it was written with (an ambiglib older than this"
                          f" check, or an edited file); write {writer}")
    return rows


def _dictionary_columns(schema: pa.Schema) -> list[str]:
    return [c for c in schema.names if c not in _PLAIN_COLUMNS and pa.types.is_string(schema.field(c).type)]


# ----------------------------------------------------------------------------- a folder of five files


def write_parquet(frames: dict[str, Any], path: str | os.PathLike[str], *,
                  compression: str | None = None, partition_by: tuple[str, ...] = (),
                  transcripts: Iterable[tuple[str, dict[str, Any]]] | None = None) -> Path:
    """Write the five frames as ``<frame>.parquet`` files in a folder, or with
    ``partition_by`` as a hive-partitioned store (:func:`write_store`).

    Uncompressed by default: the Parquet copy of a run log is there to reload fast,
    and decompression costs more than reading the larger file (``docs/performance.md``).
    Pass ``compression="zstd"`` for smaller files.

    ``transcripts`` (each run's id and its run-log ``transcript``, one run at a time) go to ``transcripts.parquet``,
    one row per turn, read back one run at a time (:func:`read_transcript`); a store keeps none.
    """
    if partition_by:
        runs = frames["runs"]
        if "transcript_at" in runs:
            frames = {**frames, "runs": runs.assign(transcript_at=pd.Series(pd.NA, index=runs.index,
                                                                             dtype=runs["transcript_at"].dtype))}
        return write_store(frames, path, partition_by, compression=compression)
    write_id = new_write_id()
    with replaced_folder(path) as work:  # the folder is written whole aside, then swapped in at once
        written: set[str] = set()
        if transcripts is not None:
            written = _write_transcripts(transcripts, work / TRANSCRIPTS_FILE, compression, write_id)
        for name in FRAMES:
            frame = frames[name]
            if name == "runs" and "transcript_at" in frame:  # where the run's turns are now: this folder's file
                has = frame["run_id"].isin(written)
                frame = frame.assign(transcript_at=pd.array([_IN_FOLDER if h else None for h in has], dtype="string"))
            table = pa.Table.from_pandas(frame, preserve_index=False)
            table = versioned(table, **{_ROWS_KEY.decode(): str(table.num_rows).encode(),
                                        _WRITE_KEY.decode(): write_id})
            pq.write_table(table, work / f"{name}.parquet", compression=compression or "none",
                           use_dictionary=_dictionary_columns(table.schema), write_page_checksum=True)
    return Path(path)


#: the file of a Parquet run log that holds its runs' conversations, one row per turn
TRANSCRIPTS_FILE = "transcripts.parquet"
TRANSCRIPT_SCHEMA = pa.schema([
    ("run_id", pa.string()), ("turn", pa.int64()), ("role", pa.string()), ("content", pa.string()),
    ("tool_name", pa.string()), ("tool_args", pa.string()), ("q_index", pa.int64()), ("answers", pa.int64()),
    ("covers", pa.string()), ("note", pa.string()),
])
#: ``transcript_at`` as written: the run's turns are in the folder's own transcripts file
_IN_FOLDER = '{"reader": "parquet"}'


def _write_transcripts(transcripts: Iterable[tuple[str, dict[str, Any]]], file: Path,
                       compression: str | None, write_id: bytes) -> set[str]:
    """Write each run's turns to ``file``, a few hundred runs at a time; return the runs written."""
    written: set[str] = set()
    rows: list[dict[str, Any]] = []
    schema = versioned(TRANSCRIPT_SCHEMA.empty_table(), **{_WRITE_KEY.decode(): write_id}).schema
    with pq.ParquetWriter(file, schema, compression=compression or "none",
                          write_page_checksum=True) as writer:
        for run_id, record in transcripts:
            written.add(run_id)
            turns = record["turns"] or [{}]  # a transcript of no turns keeps one row: its covers and note
            for i, t in enumerate(turns):
                rows.append({"run_id": run_id, "turn": i if t else None, "role": t.get("role"),
                             "content": t.get("content"), "tool_name": t.get("tool_name"),
                             "tool_args": None if t.get("tool_args") is None
                             else json.dumps(t["tool_args"], ensure_ascii=False, sort_keys=True),
                             "q_index": t.get("q_index"),
                             "answers": t.get("answers"), "covers": record["covers"], "note": record.get("note")})
            if len(rows) >= 4096:
                writer.write_table(pa.Table.from_pylist(rows, schema=schema))
                rows = []
        if rows:
            writer.write_table(pa.Table.from_pylist(rows, schema=schema))
    return written


def read_transcript(at: dict[str, Any], run: dict[str, Any]) -> dict[str, Any] | None:
    """One run's ``transcript`` from a Parquet run log's transcripts file (only that run's rows are decoded)."""
    file = Path(at["file"])
    try:
        with open_regular(file) as fh:
            parquet = pq.ParquetFile(fh)
            check_parquet(parquet.metadata, file, os.fstat(fh.fileno()).st_size)  # before a page is inflated
            found = (parquet.schema_arrow.metadata or {}).get(_WRITE_KEY)
            if "write_id" in at and found != at["write_id"].encode():
                raise FormatError(f"{file}: written again since the log was loaded (write id {_shown(found)}, at the"
                                  f" load {at['write_id'][:12]}), so it may hold other runs' conversations; load the"
                                  " log again")
            table = pq.read_table(fh, filters=[("run_id", "=", run["run_id"])], schema=TRANSCRIPT_SCHEMA)
    except FormatError:
        raise
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise FormatError(f"{file}: not a readable transcripts file ({exc})") from None
    if table.num_rows == 0:
        return None
    rows = table.sort_by([("turn", "ascending")]).to_pylist()
    turns = [{k: r[k] for k in ("role", "content", "tool_name", "tool_args", "q_index", "answers")}
             for r in rows if r["turn"] is not None]
    for t in turns:
        if t["tool_args"] is not None:
            try:
                t["tool_args"] = json.loads(t["tool_args"])
            except ValueError:
                raise FormatError(f"{file}: run {run['run_id']}: tool_args is not JSON") from None
    return {"covers": rows[0]["covers"], "turns": turns, "note": rows[0]["note"]}


def _with_own_locators(runs: pa.Table, path: Path, write_id: bytes | None = None) -> pa.Table:
    """``transcript_at`` as this folder holds it: this folder's transcripts file for every run written with one,
    whatever the file says (a locator is never taken from a log's content), with the write id the load saw (a
    transcript read later checks the file is still of that write); absent in older logs: none."""
    if "transcript_at" not in runs.column_names:
        return runs.append_column("transcript_at", pa.nulls(runs.num_rows, pa.string()))
    place = {"reader": "parquet", "file": os.path.abspath(path / TRANSCRIPTS_FILE)}
    if write_id is not None:
        place["write_id"] = write_id.decode("ascii", errors="replace")
    own = json.dumps(place, sort_keys=True)
    col = runs.column("transcript_at")
    has = pc.fill_null(pc.is_valid(col), False)
    if not os.path.lexists(path / TRANSCRIPTS_FILE):
        has = pa.array([False] * runs.num_rows)
    fixed = pc.if_else(has, pa.scalar(own), pa.scalar(None, pa.string()))
    return runs.set_column(runs.column_names.index("transcript_at"), "transcript_at", fixed)


def read_parquet_tables(path: Path) -> dict[str, pa.Table]:
    """Read a Parquet run-log folder written by :func:`write_parquet`: each file regular, readable, of
    this run-log version and with the rows it was written with."""
    def read(name: str) -> pa.Table | Exception:
        try:
            with open_regular(path / f"{name}.parquet") as fh:
                size = os.fstat(fh.fileno()).st_size
                require_small(path / f"{name}.parquet", size=size)  # before a byte is read
                # page checksums (written since issue 11) turn a flipped bit into an error, not a value; a row
                # group is one chunk (read_table gives 128k-row pieces, which the checks would copy into one)
                file = pq.ParquetFile(fh, page_checksum_verification=True)
                check_parquet(file.metadata, path / f"{name}.parquet", size)  # before a page is inflated
                return _read_by_column(file)
        except FormatError as exc:
            return exc
        except (pa.ArrowException, OSError, ValueError) as exc:
            return FormatError(f"{path / f'{name}.parquet'}: not a readable Parquet file ({exc})")

    with ThreadPoolExecutor(len(FRAMES)) as pool:  # Arrow releases the GIL while decoding
        read_tables = dict(zip(FRAMES, pool.map(read, FRAMES)))
    tables = {}
    writer = "Parquet run logs with RunSet.to_parquet"
    for name, table in read_tables.items():
        file = path / f"{name}.parquet"
        if isinstance(table, Exception):  # a FormatError of the reader, raised here in the frames' order
            if str(table).endswith(": no such file"):
                raise FormatError(f"{file}: missing; a Parquet run log is a folder of"
                                  f" {', '.join(f + '.parquet' for f in FRAMES)}")
            raise table
        _require_version(table.schema, file, writer)
        rows = _written_rows(table.schema, file, writer)
        if rows != table.num_rows:
            raise FormatError(f"{file}: {table.num_rows:,} rows where RunSet.to_parquet wrote {rows:,}"
                              " (rows deleted or added since)")
        tables[name] = table
    ids = {f"{name}.parquet": table.schema.metadata for name, table in tables.items()}
    if os.path.lexists(path / TRANSCRIPTS_FILE):
        ids[TRANSCRIPTS_FILE] = _schema_of(path / TRANSCRIPTS_FILE).metadata
    write_id = _one_write(path, ids, writer)
    _one_layout(path)
    tables["runs"] = _with_own_locators(tables["runs"], path, write_id)
    return tables


def _schema_of(file: Path) -> pa.Schema:
    try:
        with open_regular(file) as fh:
            return pq.read_schema(fh)
    except FormatError:
        raise
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise FormatError(f"{file}: not a readable Parquet file ({exc})") from None


def _one_write(folder: Path, metadata: dict[str, dict[bytes, bytes] | None], writer: str) -> bytes:
    """The write id every file of a copy carries (``metadata``: each file's schema metadata, by its name in
    ``folder``); a FormatError naming the files when they were written by different writes (a write killed
    between two files, by an ambiglib that replaced them one at a time; files copied in from another log)."""
    ids = {name: (meta or {}).get(_WRITE_KEY) for name, meta in metadata.items()}
    if all(v is None for v in ids.values()):
        raise FormatError(f"{folder}: no write id in its files (an ambiglib older than this check, or edited"
                          f" files); write {writer}")
    groups: dict[bytes | None, list[str]] = {}
    for name, value in ids.items():
        groups.setdefault(value, []).append(name)
    if len(groups) > 1:
        shown = "; ".join(f"{', '.join(names)}: {_shown(v)}" for v, names in groups.items())
        raise FormatError(f"{folder}: its files were written by {len(groups)} different writes ({shown}), so they"
                          " may hold parts of different logs; write the log again into this folder")
    return next(iter(groups))  # type: ignore[return-value]


def _shown(write_id: bytes | None) -> str:
    """A write id as a message shows it: its first 12 characters, or none."""
    return "none" if write_id is None else write_id[:12].decode("ascii", errors="replace")


def _one_layout(folder: Path) -> None:
    """A folder is one layout: a Parquet folder's files beside a store's frame folders are two logs, which one
    load would pick between without a word."""
    flat = os.path.lexists(folder / "runs.parquet")
    store = os.path.lexists(folder / "runs" / _COMMON)
    if flat and store:
        raise FormatError(f"{folder}: holds a Parquet run log (runs.parquet) and a partitioned store (runs/) at"
                          " once, which may be different logs; remove one, or write the log again into this folder")


def _read_by_column(file: pq.ParquetFile) -> pa.Table:
    """The whole file, read a column at a time with the memory each column's decoding used handed back before
    the next: a whole-file read holds every column's decoding buffers at once, a higher peak for about the
    same time (docs/performance.md)."""
    pool = pa.default_memory_pool()
    names = file.schema_arrow.names
    columns = []
    for name in names:
        columns.append(file.read(columns=[name]).column(0))
        pool.release_unused()
    return pa.Table.from_arrays(columns, schema=file.schema_arrow) if names else file.read()


# ----------------------------------------------------------------------------- the partitioned store


def write_store(frames: dict[str, Any], path: str | os.PathLike[str], partition_by: tuple[str, ...], *,
                compression: str | None = None) -> Path:
    """Write the five frames as hive-partitioned Parquet datasets, ``<path>/<frame>/<col>=<value>/...``.

    Runs, tasks and blockers are partitioned by the columns of ``partition_by`` they have;
    questions and labels by their run's (the values are in the path only, as hive
    partitioning stores them). Each file keeps its rows' places in the frame
    (``_row``), and each frame folder its schema and its list of parts with their rows
    (``_common_metadata``), so that a read gives back exactly the frames written. Values are
    percent-encoded in folder names (``model=Claude%20Opus%204.5``), so no value can name another
    folder.
    """
    path = Path(path)
    runs = frames["runs"]
    text = {f.name for f in pa.Schema.from_pandas(runs, preserve_index=False) if pa.types.is_string(f.type)}
    bad = [c for c in partition_by if c not in text]
    if bad or len(set(partition_by)) != len(partition_by):
        raise ArgumentError(f"partition_by {list(partition_by)}: each column must be a text column of runs, once"
                            f" ({', '.join(sorted(text))}); got {', '.join(map(repr, bad)) or 'a repeat'}")
    _check_partition_values(frames, path, partition_by)
    write_id = new_write_id()
    with replaced_folder(path) as work:  # the store is written whole aside, then swapped in at once
        _write_store_frames(frames, work, partition_by, runs, compression, write_id)
    return path


#: The folder name pyarrow's hive partitioning writes for a missing value, and reads back as one, percent-encoded
#: or not (it decodes a name before comparing): a value equal to it cannot be stored.
HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"


def _check_partition_values(frames: dict[str, Any], path: Path, partition_by: tuple[str, ...]) -> None:
    """Every value of a partition column names a folder that hive partitioning reads back as that value: not its
    name for a missing value, no NUL (a file name ends there), and no longer than the file system's names once
    percent-encoded as pyarrow writes it (every byte but RFC 3986's unreserved ones as ``%XX``); else an
    ArgumentError naming the frame's row. Questions and labels take their run's values, checked with the runs."""
    from urllib.parse import quote

    import pandas as pd

    existing = path
    while not os.path.isdir(existing) and existing != existing.parent:
        existing = existing.parent
    try:
        name_max = os.pathconf(existing, "PC_NAME_MAX")
    except (OSError, ValueError):
        name_max = 255
    for name in ("runs", "tasks", "blockers"):
        frame = frames[name]
        for c in partition_by:
            if c not in frame.columns:
                continue
            for value in pd.unique(frame[c].dropna()):
                why = None
                if value == HIVE_NULL:
                    why = ", which hive partitioning reads back as a missing value"
                elif "\0" in value:
                    why = ", and a folder name cannot hold NUL (the file system ends the name there)"
                elif len(c) + 1 + 3 * len(value.encode("utf-8", "surrogatepass")) > name_max:
                    size = len(c) + 1 + len(quote(value, safe="", errors="surrogatepass"))
                    if size > name_max:
                        why = (f" ({len(value):,} characters), whose folder name would be {size:,} bytes"
                               f" (percent-encoded), over this file system's {name_max} for a name")
                if why is None:
                    continue
                row = int(np.flatnonzero((frame[c] == value).to_numpy(dtype=bool, na_value=False))[0])
                key = (frame["run_id"].iloc[row] if name == "runs" else
                       "|".join(str(frame[k].iloc[row]) for k in ("benchmark", "suite", "variant_id")))
                raise ArgumentError(f"{path}: partition_by '{c}': {name} row {row + 1} ({name[:-1]}"
                                    f" {_shortened(key)}) holds {_shortened(value)}{why}; partition by other columns")


def _shortened(text: str, most: int = 60) -> str:
    """``text`` quoted, its first ``most`` characters and '...' when longer (a message stays one readable line)."""
    return repr(text if len(text) <= most else text[:most] + "...")


def _write_store_frames(frames: dict[str, Any], path: Path, partition_by: tuple[str, ...], runs: Any,
                        compression: str | None, write_id: bytes) -> None:
    import pyarrow.dataset as ds

    keys = pa.Table.from_pandas(runs[["run_id", *partition_by]], preserve_index=False)
    fmt = ds.ParquetFileFormat()
    for name in FRAMES:
        table = pa.Table.from_pandas(frames[name], preserve_index=False)
        own = [c for c in partition_by if c in table.schema.names]
        n_rows = table.num_rows
        table = table.append_column(STORE_ROW, pa.array(np.arange(table.num_rows, dtype=np.int64)))
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), _WRITE_KEY: write_id})
        part = own
        if name in ("questions", "labels"):  # by their run's partition: the values live in the paths only
            joined = table.select(["run_id", STORE_ROW]).join(keys, "run_id", join_type="left outer")
            joined = joined.sort_by(STORE_ROW)
            for c in partition_by:
                table = table.append_column(c, joined.column(c))
            part = list(partition_by)
        folder = path / name
        options = fmt.make_write_options(compression=compression or "none", write_page_checksum=True,
                                         use_dictionary=_dictionary_columns(table.schema))
        partitioning = ds.partitioning(pa.schema([(c, pa.string()) for c in part]), flavor="hive") if part else None
        written: dict[str, int] = {}
        ds.write_dataset(table, folder, format=fmt, file_options=options, partitioning=partitioning,
                         basename_template="part-{i}.parquet", existing_data_behavior="error",
                         max_rows_per_file=1 << 22, max_rows_per_group=1 << 17, min_rows_per_group=1 << 14,
                         file_visitor=lambda f, written=written, folder=folder: written.__setitem__(
                             Path(f.path).relative_to(folder).as_posix(), f.metadata.num_rows))
        folder.mkdir(parents=True, exist_ok=True)  # a frame without rows (a log without labels) has no part
        schema = versioned(pa.Table.from_pandas(frames[name].head(0), preserve_index=False), **{
            _PARTITION_META_KEY.decode(): json.dumps(own).encode(), _ROWS_KEY.decode(): str(n_rows).encode(),
            _WRITE_KEY.decode(): write_id,
            _PARTS_KEY.decode(): json.dumps(dict(sorted(written.items()))).encode()}).schema
        pq.write_metadata(schema, folder / _COMMON)


class StoreRows:
    """Where each row of a store's frames came from: its part file and its row there (for messages)."""

    def __init__(self, root: Path):
        self.root = root
        self.origins: dict[str, tuple[np.ndarray, list[str], np.ndarray | None]] = {}

    def keep(self, name: str, codes: np.ndarray, files: list[str], store_rows: np.ndarray | None) -> None:
        """Row i of the frame came from ``files[codes[i]]``, where its place in the frame is ``store_rows[i]``
        (None: ``i``, every row of the frame read). Held while the load checks the frames: a byte a row for the
        part of a store of up to 256 parts, and no place for a whole frame, which lowers a large store's peak
        (docs/performance.md)."""
        self.origins[name] = (codes, files, store_rows)

    def locate(self, name: str, row: int) -> tuple[str, int | None]:
        """The part file and 1-based row there of row ``row`` (0-based) of the frame as read (None: unknown)."""
        codes, files, store_rows = self.origins[name]
        part = files[int(codes[row])]
        place = row if store_rows is None else store_rows[row]
        try:  # the row's place in its file: its _row among the file's (read only for a message)
            with open_regular(part) as fh:
                column = pq.read_table(fh, columns=[STORE_ROW]).column(STORE_ROW).to_numpy()
            return part, int(np.flatnonzero(column == place)[0]) + 1
        except (FormatError, pa.ArrowException, OSError, IndexError):
            return part, None


def _store_schemas(path: Path) -> dict[str, pa.Schema]:
    schemas = {}
    for name in FRAMES:
        file = path / name / _COMMON
        try:
            with open_regular(file) as fh:
                schemas[name] = pq.read_schema(fh)
        except FormatError as exc:
            raise FormatError(f"{exc}; a Parquet store has {', '.join(f + '/' + _COMMON for f in FRAMES)}") from None
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise FormatError(f"{file}: not a readable Parquet schema ({exc})") from exc
        _require_version(schemas[name], file, "Parquet stores with RunSet.to_parquet(partition_by=...)")
    _one_write(path, {f"{name}/{_COMMON}": schema.metadata for name, schema in schemas.items()},
               "Parquet stores with RunSet.to_parquet(partition_by=...)")
    _one_layout(path)
    return schemas


def _listed_parts(schema: pa.Schema, folder: Path) -> dict[str, int]:
    """The parts ``_common_metadata`` lists; every file of the folder must be one of them, and each there."""
    try:
        parts = json.loads((schema.metadata or {})[_PARTS_KEY])
        if not (isinstance(parts, dict) and all(isinstance(k, str) and type(v) is int and v >= 0
                                                for k, v in parts.items())):
            raise ValueError
    except (KeyError, ValueError):
        raise FormatError(f"{folder / _COMMON}: no list of the store's parts (an ambiglib older than this check, or"
                          " an edited file); write Parquet stores with RunSet.to_parquet(partition_by=...)") from None
    found = set()
    for top, dirs, files in os.walk(folder, onerror=_unreadable):
        for entry in sorted(dirs + files):
            full = Path(top) / entry
            mode = os.lstat(full).st_mode
            if stat.S_ISDIR(mode):
                continue
            rel = full.relative_to(folder).as_posix()
            if rel == _COMMON:
                continue
            if not stat.S_ISREG(mode):
                raise FormatError(f"{full}: {kind_of(mode)} inside a Parquet store, which holds part files only")
            if rel not in parts:
                raise FormatError(f"{full}: not a part of this store ({folder / _COMMON} lists {len(parts)}"
                                  f" part{'s' if len(parts) != 1 else ''}); move it out of the store")
            found.add(rel)
    missing = sorted(set(parts) - found)
    if missing:
        raise FormatError(f"{folder / missing[0]}: missing; {folder / _COMMON} lists it"
                          + (f" (and {len(missing) - 1} more parts)" if len(missing) > 1 else ""))
    return parts


def _unreadable(exc: OSError) -> None:
    raise FormatError(f"{exc.filename}: cannot be read ({exc.strerror or exc})")


def _check_part(file: Path, rows: int, columns: pa.Schema, write_id: bytes | None) -> None:
    """A part file of the store's write, with its listed rows and every column of its frame, typed as the
    frame's."""
    try:
        with open_regular(file) as fh:
            size = os.fstat(fh.fileno()).st_size
            require_small(file, size=size)  # before a byte is read
            meta = pq.ParquetFile(fh).metadata
            check_parquet(meta, file, size)  # before a page is inflated
            schema = meta.schema.to_arrow_schema()
    except FormatError:
        raise
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise FormatError(f"{file}: not a readable Parquet file ({exc})") from exc
    if meta.num_rows != rows:
        raise FormatError(f"{file}: {meta.num_rows:,} rows where RunSet.to_parquet wrote {rows:,}"
                          " (rows deleted or added since)")
    found = (schema.metadata or {}).get(_WRITE_KEY)
    if found != write_id:
        raise FormatError(f"{file}: written by another write than its store's schemas (write id {_shown(found)},"
                          f" theirs {_shown(write_id)}), so it may hold another log's rows; write the store again")
    for f in columns:
        i = schema.get_field_index(f.name)
        if i < 0:
            raise FormatError(f"{file}: column '{f.name}' missing; every part of the frame has it")
        if not schema.field(i).type.equals(f.type):
            raise FormatError(f"{file}: column '{f.name}' must be {f.type} (got {schema.field(i).type})")


def _listed_frames(path: Path) -> Iterator[tuple[str, pa.Schema, list[str], dict[str, int], int, pa.Schema]]:
    """Each frame of a store with what a load checks before it reads a row: ``(name, schema, partition columns,
    listed parts and their rows, the frame's rows, the parts' own schema)``, the schemas of one write and version
    (:func:`_store_schemas`), the parts ``_common_metadata`` lists each there and no other file, their rows adding
    up to the frame's."""
    schemas = _store_schemas(path)
    runs_part = json.loads((schemas["runs"].metadata or {}).get(_PARTITION_META_KEY, b"[]"))
    for name, schema in schemas.items():
        folder = path / name
        # questions and labels are partitioned by their run's columns
        part = runs_part if name in ("questions", "labels") else json.loads(
            (schema.metadata or {}).get(_PARTITION_META_KEY, b"[]"))
        parts = _listed_parts(schema, folder)
        total = _written_rows(schema, folder / _COMMON, "Parquet stores with RunSet.to_parquet(partition_by=...)")
        if sum(parts.values()) != total:
            raise FormatError(f"{folder / _COMMON}: its parts hold {sum(parts.values()):,} rows, the frame {total:,}")
        stored = pa.schema([f for f in schema if f.name not in part] + [pa.field(STORE_ROW, pa.int64())])
        yield name, schema, part, parts, total, stored


def store_parts(path: Path) -> dict[str, tuple[list[Path], tuple[str, ...], int]]:
    """Each frame's part files, partition columns and rows, after every check a load makes before it reads a row
    (:func:`_listed_frames`, then each part's footer: its rows as written, its write id, its columns and their
    types). What an engine reads of a store is then exactly what ``ambiglib.load`` would read."""
    out = {}
    for name, schema, part, parts, total, stored in _listed_frames(path):
        for rel, rows in parts.items():
            _check_part(path / name / rel, rows, stored, (schema.metadata or {}).get(_WRITE_KEY))
        out[name] = ([path / name / rel for rel in sorted(parts)], tuple(part), total)
    return out


def read_store_tables(path: Path, filters: Any = None) -> tuple[dict[str, pa.Table], StoreRows]:
    """Read a store written by :func:`write_store`: only the partitions ``filters`` (in
    :mod:`ambiglib.runlog._filters`' normal form) can match, then exactly the rows it keeps of
    runs, their questions and labels, and the tasks and blockers it keeps; and where each row came from."""
    import pyarrow.dataset as ds

    from ambiglib.runlog import _filters as flt

    fmt = ds.ParquetFileFormat(default_fragment_scan_options=ds.ParquetFragmentScanOptions(
        page_checksum_verification=True))
    out: dict[str, pa.Table] = {}
    origins = StoreRows(path)
    runs_part: list[str] = []  # the runs' partition columns (runs come first)
    for name, schema, part, parts, total, stored in _listed_frames(path):
        folder = path / name
        if name == "runs":
            runs_part = part
            expr = flt.expression(filters)
        elif name in ("questions", "labels"):
            expr = flt.expression(filters, part)  # prune by the run's partition; run_id decides below
        else:
            expr = flt.expression(filters, flt.TASK_COLUMNS)
        partitioning = ds.partitioning(pa.schema([(c, pa.string()) for c in part]), flavor="hive") if part else None
        # with the schema given, making the dataset opens no file; a filter's partitions are chosen by path
        full = pa.schema([*stored, *(pa.field(c, pa.string()) for c in part)])
        try:
            dataset = ds.dataset([str(folder / rel) for rel in parts], format=fmt, partition_base_dir=str(folder),
                                 partitioning=partitioning, schema=full)
            fragments = list(dataset.get_fragments(filter=expr) if expr is not None else dataset.get_fragments())
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise FormatError(f"{folder}: not a readable Parquet dataset ({exc})") from exc
        chosen = {f.path for f in fragments}
        for rel, rows in parts.items():  # footers first: rows and columns as written; other partitions unopened
            if str(folder / rel) in chosen:
                _check_part(folder / rel, rows, stored, (schema.metadata or {}).get(_WRITE_KEY))
        # a question's run partition is in its path, not its frame: a filter reads it, the frame does not
        wanted = [c for c in full.names if c in stored.names or c in schema.names]
        try:  # part by part: each row's file is its part's, with no file-name column a row long
            read = []
            for fragment in fragments:  # the decoding's freed pages back to the system after each part
                read.append(fragment.to_table(schema=full, columns=wanted, filter=expr))
                pa.default_memory_pool().release_unused()
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise FormatError(f"{folder}: not a readable Parquet dataset ({exc})") from exc
        kind = np.min_scalar_type(max(len(read) - 1, 0))  # each row's part: one byte for up to 256 parts
        codes = np.concatenate([np.full(t.num_rows, i, dtype=kind) for i, t in enumerate(read)] or
                               [np.zeros(0, dtype=kind)])
        holder = [pa.concat_tables(read) if read else full.empty_table().select(wanted)]
        del read
        table, order = _sorted_by_row(holder)
        if order is not None:
            codes = codes[order]
        _check_places(table.column(STORE_ROW), total, expr is None, folder)
        # read whole, the places are 0..total-1 once each, in order (checked): row i's place is i
        origins.keep(name, codes, [f.path for f in fragments],
                     None if expr is None else table.column(STORE_ROW).to_numpy())
        # the columns are checked and typed with the contract's, as a Parquet folder's are (parquet_check)
        out[name] = table.drop_columns([STORE_ROW])
        del table
        pa.default_memory_pool().release_unused()  # what reading and sorting this frame let go, to the system
    if filters is not None and any(term[0] not in runs_part for conj in filters for term in conj):
        # exactly the questions and labels of the runs kept (a filter on partitions alone chose exactly them)
        ids = out["runs"].column("run_id")
        for name in ("questions", "labels"):
            keep = pc.is_in(out[name].column("run_id"), value_set=ids.combine_chunks())
            out[name] = out[name].filter(keep)
            codes, files, store_rows = origins.origins[name]
            mask = keep.to_numpy(zero_copy_only=False)
            origins.origins[name] = (codes[mask], files, np.flatnonzero(mask) if store_rows is None
                                     else store_rows[mask])
    out["runs"] = _with_own_locators(out["runs"], path)  # a store keeps no transcripts
    return out, origins


#: Under this many stretches of consecutive rows, a store's frame is put back in order by slicing, not copying:
#: a log's runs are mostly written model by model, so a partition's rows are long stretches of the frame.
_FEW_PIECES = 64


def _sorted_by_row(holder: list[pa.Table]) -> tuple[pa.Table, np.ndarray | None]:
    """The table ``holder`` holds (taken out of it), its rows in their frame's order, and the order taken (None:
    already in order). Rows that follow each other in both orders stay together: with few such stretches the
    frame is their slices, sharing the memory read. Else a column at a time: each column read is let go once
    its sorted copy is made, so a load holds one extra column, not a second copy of the frame."""
    table = holder.pop()
    order = pc.sort_indices(table.column(STORE_ROW)).to_numpy()
    breaks = np.flatnonzero(np.diff(order) != 1) + 1  # where the next row in order is not the next row read
    if len(order) < 2 or (not len(breaks) and order[0] == 0):
        return table, None
    if len(breaks) < _FEW_PIECES:  # the frame's rows are a few stretches of the rows read: no copy
        starts = np.concatenate([[0], breaks])
        ends = np.concatenate([breaks, [len(order)]])
        return pa.concat_tables([table.slice(int(order[a]), int(b - a)) for a, b in zip(starts, ends)]), order
    names, columns = table.column_names, []
    pool = pa.default_memory_pool()
    for name in names:
        columns.append(table.column(name).take(order))
        table = table.drop_columns([name])
        pool.release_unused()  # the column let go, to the system before the next is copied
    return pa.Table.from_arrays(columns, names=names), order


def _check_places(places: pa.ChunkedArray, total: int, whole: bool, folder: Path) -> None:
    """Each row's place in its frame (sorted): 0..total-1 once each, read whole; else each once, in range."""
    values = places.to_numpy()
    if len(values) and (values[0] < 0 or values[-1] >= total):
        raise FormatError(f"{folder}: column '{STORE_ROW}' holds {values[0] if values[0] < 0 else values[-1]}, outside"
                          f" the frame's {total:,} rows")
    if len(values) > 1 and not bool((values[1:] != values[:-1]).all()):
        raise FormatError(f"{folder}: a row is in the store twice (column '{STORE_ROW}' repeats)")
    if whole and len(values) != total:
        raise FormatError(f"{folder}: {len(values):,} rows read where the store holds {total:,}")

