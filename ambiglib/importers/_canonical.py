"""The canonical run log's own layouts, as ``ambiglib.load`` reads them: JSON Lines files, a Parquet folder, a
partitioned Parquet store and a report's snapshot; and a JSON Lines run's conversation, read back from its line."""

from __future__ import annotations

import itertools
import os
import zlib
from datetime import UTC
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from ambiglib.errors import FormatError, LoadError
from ambiglib.importers._reader import Reader, ReadOptions
from ambiglib.runlog import _stamps as stamps
from ambiglib.runlog._files import walk
from ambiglib.runlog._frames import run_id_of
from ambiglib.runlog._jsonl import (
    BATCH_BYTES,
    BATCH_FILES,
    MAX_RECORD_BYTES,
    SMALL_FILE_BYTES,
    Engine,
    FileRead,
    _lines,
    _open,
    _strict_loads,
    is_jsonl,
    jsonl_files,
    read_file,
    read_small_files,
)
from ambiglib.runlog._memory import c_allocator
from ambiglib.runlog._parquet import is_parquet_runlog, is_parquet_store, read_parquet_tables, read_store_tables
from ambiglib.runlog._parquet import read_transcript as read_parquet_transcript
from ambiglib.runlog._schema import DEFAULT_TRIAL, RecordError
from ambiglib.runlog._snapshot import is_snapshot, read_snapshot
from ambiglib.runset import RunSet, build_runset

__all__ = ["JSONL", "PARQUET", "STORE", "SNAPSHOT", "read_jsonl_files", "changed", "store_values",
           "PROGRESS_MIN_FILES"]

#: Files at or above this count get a progress bar (unless ``quiet``).
PROGRESS_MIN_FILES = 20


def _read_jsonl(path: Path, options: ReadOptions, files: list[Path] | None = None
                ) -> tuple[RunSet, list[LoadError]]:
    return read_jsonl_files(path, jsonl_files(path) if files is None else files, quiet=options.quiet,
                            engine=options.engine)


@c_allocator()  # the frames reuse the pages the JSON parse freed (memory.py)
def read_jsonl_files(path: Path, files: list[Path], *, quiet: bool, engine: Engine) -> tuple[RunSet, list[LoadError]]:
    """Canonical JSON Lines files read into one run set, in the order of their names inside ``path``."""
    if path.is_dir():  # by the name inside the folder, as text (pathlib's relative_to is slow on many files)
        prefix = os.path.join(str(path), "")
        files = sorted(files, key=lambda p: str(p).removeprefix(prefix).replace(os.sep, "/"))
    reads: list[FileRead] = []
    bar = tqdm(total=len(files), desc="reading run log", unit="file",
               disable=quiet or len(files) < PROGRESS_MIN_FILES)
    for group in _small_runs(files) if engine != "python" else [[f] for f in files]:
        # small plain files (one run each, say) parsed together: read one by one, each costs a parse of its own
        together = read_small_files(group) if len(group) > 1 else None
        if together is not None:
            reads.append(together)
        else:
            reads += [read_file(file, str(file), engine) for file in group]
        bar.update(len(group))
    bar.close()
    n_run_records = sum(r.n_run_records for r in reads)
    if n_run_records == 0:
        what = f"{len(files)} file{'s' if len(files) != 1 else ''}"
        n_task = sum(r.n_task_records for r in reads)
        tasks = f" (only {n_task} task record{'s' if n_task != 1 else ''})" if n_task else ""
        raise FormatError(f"{path}: no run records found in {what}{tasks}")
    import pyarrow as pa

    pa.default_memory_pool().release_unused()  # the parser's freed blocks, to the system before the frames are built
    runset, dup_errors = build_runset(reads)
    order = {str(file): i for i, file in enumerate(files)}
    errors = sorted([e for r in reads for e in r.errors] + dup_errors,
                    key=lambda e: (order.get(e.file, len(order)), e.line or 0))
    return runset, errors


def _small_runs(files: list[Path]) -> list[list[Path]]:
    """The files in order, in groups: each run of consecutive small plain files (``runlog.SMALL_FILE_BYTES``,
    at most ``BATCH_BYTES`` and ``BATCH_FILES`` a group) together, any other file alone."""
    groups: list[list[Path]] = []
    small: list[Path] = []  # the group of small files being gathered
    size = 0
    for file in files:
        try:
            n = None if file.name.endswith(".gz") else os.stat(file).st_size
        except OSError:
            n = None
        if n is None or n > SMALL_FILE_BYTES:
            groups.append([file])
            small = []
            continue
        if not small or len(small) >= BATCH_FILES or size + n > BATCH_BYTES:
            small, size = [], 0
            groups.append(small)
        small.append(file)
        size += n
    return groups


def _read_parquet(path: Path, options: ReadOptions, files: list[Path] | None = None) -> tuple[RunSet, list[LoadError]]:
    from ambiglib.runlog._parquet_check import check_tables

    tables = read_parquet_tables(path)
    if tables["runs"].num_rows == 0:
        raise FormatError(f"{path}: no run records found in runs.parquet")
    return check_tables(tables, path)


def _read_store(path: Path, options: ReadOptions, files: list[Path] | None = None) -> tuple[RunSet, list[LoadError]]:
    from ambiglib.runlog._parquet_check import check_tables

    tables, origins = read_store_tables(path, options.filters)
    if tables["runs"].num_rows == 0 and options.filters is None:
        raise FormatError(f"{path}: no run records found in runs/")
    return check_tables(tables, path, origins.locate)


def store_values(path: Path, column: str) -> list[Any]:
    """The values of one runs column in a partitioned store (read for that column alone): what a filter that
    matched nothing could have named."""
    import pyarrow.dataset as ds

    try:
        values: list[Any] = ds.dataset(path / "runs", format="parquet", partitioning="hive") \
            .to_table(columns=[column]).column(column).unique().drop_null().to_pylist()
        return values
    except (OSError, ValueError, KeyError):  # (pyarrow's errors are these) the warning then names no values
        return []


#: The checked Arrow tables of the last snapshot read in this process, by the SHA-256 of its content and the
#: identity of each file as it was verified (device, inode, size, modification and change times: a copy, or a
#: file truncated or replaced since, is mapped again, never read through an old mapping): the report's kernel
#: reads the same snapshot for every notebook (Arrow arrays are immutable; each load makes its own frames)
_CONFORMED: dict[tuple[Any, ...], dict[str, Any]] = {}


def _read_snapshot(path: Path, options: ReadOptions, files: list[Path] | None = None) -> tuple[RunSet, list[LoadError]]:
    from ambiglib.runlog._frames import _frame
    from ambiglib.runlog._parquet_check import _conform, _expected

    tables, skipped, errors, links, read = read_snapshot(path)  # every file verified against its SHA-256
    conformed = _CONFORMED.get(read)
    if conformed is None:  # these files not read before in this process: their columns checked
        expected = _expected()
        conformed = {name: _conform(table, expected[name], str(path / f"{name}.arrow"))
                     for name, table in tables.items()}
        _CONFORMED.clear()
        _CONFORMED[read] = conformed
    frames = {name: _frame(table) for name, table in conformed.items()}  # new frames: a notebook's own to change
    rs = RunSet(**frames, skipped=skipped)
    for name, pos in links.items():  # the links the report's own load found, verified with the files
        rs.keep_run_positions(name, np.array(pos, dtype=np.int64))
    rs.share_as(("snapshot", read[0]))  # another load of its content in this process shares what is worked out
    return rs, errors


def _holds_jsonl(path: Path) -> bool:
    if path.is_file():
        return is_jsonl(path)
    return any(is_jsonl(p) for p, _ in walk(path))


def _from_runlog(at: dict[str, Any], run: dict[str, Any]) -> dict[str, Any] | None:
    """A canonical record's own ``transcript``: its line of the log read again, once the file is known to be the
    one loaded (its size and modification time), the line the record loaded (its SHA-256) and the record the run
    asked for (its run key); anything else is a FormatError naming the file and line."""
    path, want = Path(at["file"]), int(at["line"])
    where = f"{path}:{want}"
    try:
        stats: list[os.stat_result] = []
        with _open(path, stats) as fh:
            _same_file(where, at, stats[0])
            if at.get("offset") is not None:  # where the line starts, as the load read it: one line read
                fh.seek(int(at["offset"]))
                raw, size = next(_lines(fh, MAX_RECORD_BYTES), (b"", None))
            else:
                found = next(itertools.islice(_lines(fh, MAX_RECORD_BYTES), want - 1, None), None)
                if found is None:
                    raise FormatError(f"{where}: the file has fewer lines than when it was loaded")
                raw, size = found
            if size is not None:
                raise FormatError(f"{where}: the file has changed since it was loaded (the record there is now"
                                  f" {size:,} bytes, larger than {MAX_RECORD_BYTES:,}); load it again")
            if at.get("sha256") is not None and stamps.line_digest(raw) != at["sha256"]:
                raise FormatError(f"{where}: the file has changed since it was loaded (the record there is not the"
                                  f" one loaded{_now(raw, run)}); load it again")
            obj = _strict_loads(raw.decode("utf-8")) if raw.strip() else None
    except FormatError:
        raise
    except (OSError, EOFError, zlib.error, UnicodeDecodeError, ValueError, RecordError, RecursionError) as exc:
        raise FormatError(f"{where}: cannot read the run's transcript again ({exc})") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("transcript"), dict):
        raise FormatError(f"{where}: the file has changed since it was loaded (no run record with a transcript"
                          " where it was); load it again")
    if not _is_run(obj, run):
        raise FormatError(f"{where}: the file has changed since it was loaded (the record there is run"
                          f" {_said(obj)}, not run {run.get('run_id')}); load it again")
    transcript: dict[str, Any] = obj["transcript"]
    return transcript


def _same_file(where: str, at: dict[str, Any], st: os.stat_result) -> None:
    """A FormatError unless the file has the size and modification time the load saw (when it recorded them)."""
    then = {k: at.get(k) for k in ("size", "mtime_ns")}
    if then["size"] is None:
        return
    now = stamps.file_stamp(st)
    if now != then:
        raise FormatError(f"{where}: the file has changed since it was loaded ({changed(now, then)}); load it again")


def changed(now: dict[str, int], then: dict[str, Any]) -> str:
    """How a file differs from the load's view of it, in words."""
    if now["size"] != then["size"]:
        return f"{now['size']:,} bytes now, {int(then['size']):,} then"
    return (f"modified at {_when(now['mtime_ns'])}; when it was loaded, its last change was at"
            f" {_when(int(then['mtime_ns']))}")


def _when(ns: int) -> str:
    """A file's modification time (nanoseconds since the epoch) as a reader reads it: UTC, to the microsecond."""
    from datetime import datetime

    return datetime.fromtimestamp(ns / 1e9, tz=UTC).strftime("%Y-%m-%d %H:%M:%S.%f UTC")


def _is_run(rec: dict[str, Any], run: dict[str, Any]) -> bool:
    """Whether a record read again is the run asked for: its run id, as a load gives it, is the run's (which may
    end in the ``|log`` the load added: :func:`ambiglib.runlog._frames.with_log`)."""
    rid, want = run_id_of(rec), str(run.get("run_id"))
    if rid is None or rec.get("record") == "task":
        return False
    return want == rid or (want.startswith(rid + "|") and want.count("|") == rid.count("|") + 1)


def _said(rec: dict[str, Any]) -> str:
    """A record's run in a message: its task, model and trial."""
    return f"{rec.get('task_id')!s:.60} (model {rec.get('model')!s:.60}, trial {rec.get('trial', DEFAULT_TRIAL)})"


def _now(raw: bytes, run: dict[str, Any]) -> str:
    """What the changed line holds now, in a message: the run it is, if it is a run record."""
    try:
        obj = _strict_loads(raw.decode("utf-8"))
    except (ValueError, RecordError, RecursionError, UnicodeDecodeError):
        return ""
    if isinstance(obj, dict) and obj.get("record") != "task" and not _is_run(obj, run):
        return f": it is run {_said(obj)}, not run {run.get('run_id')}"
    return ""



SNAPSHOT = Reader(
    "runlog-snapshot", "a report's snapshot of a loaded log: <frame>.arrow files and snapshot.json"
    " (written by ambiglib report for its notebooks)", _read_snapshot, claims=is_snapshot,
    copy_of=("runs.arrow", "tasks.arrow"))
STORE = Reader(
    "runlog-parquet-store", "a hive-partitioned Parquet store: runs/, questions/, labels/, tasks/ and"
    " blockers/ datasets (RunSet.to_parquet(partition_by=...))", _read_store, claims=is_parquet_store,
    transcripts={"parquet": read_parquet_transcript}, copy_of=("runs/", "tasks/"))
PARQUET = Reader(
    "runlog-parquet", "a folder of runs.parquet, questions.parquet, labels.parquet, tasks.parquet and"
    " blockers.parquet (RunSet.to_parquet)", _read_parquet, claims=is_parquet_runlog,
    transcripts={"parquet": read_parquet_transcript}, copy_of=("runs.parquet", "tasks.parquet"))
JSONL = Reader(
    "runlog-jsonl", "canonical run-log JSON Lines: a .jsonl or .jsonl.gz file, or a folder of them", _read_jsonl,
    is_file=is_jsonl, detect=_holds_jsonl, transcripts={"runlog": _from_runlog})
