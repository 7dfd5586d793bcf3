"""The report's snapshot of a loaded log: Arrow IPC files every notebook maps in milliseconds, verified first.

``ambiglib report`` loads and checks the log once and writes the run set it got as ``<frame>.arrow``
files, the run each question and label row belongs to (``<frame>.links.arrow``), and
``snapshot.json``: the load's rejected records and skipped counts, the run-log version, and the size
and SHA-256 of every file, with a SHA-256 of ``snapshot.json``'s own content. A reader checks all of
it before it maps a single file (:func:`read_snapshot`): a damaged, truncated, replaced or missing
file, or a ``snapshot.json`` changed in any byte, is a :class:`~ambiglib.errors.FormatError` naming
the file, never a crash of the process (Arrow maps what it is given: a flipped bit in an IPC file
crashed it, or changed values in silence). The digests guard against damage and replacement, not
against a snapshot forged together with its digests.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ambiglib.errors import FormatError, LoadError
from ambiglib.runlog._files import open_regular
from ambiglib.runlog._jsonl import FRAMES, _strict_loads
from ambiglib.runlog._parquet import versioned
from ambiglib.runlog._schema import RUNLOG_VERSION

__all__ = ["SNAPSHOT_FILE", "is_snapshot", "write_snapshot", "read_snapshot"]

SNAPSHOT_FILE = "snapshot.json"
_LINKED = ("questions", "labels")


def is_snapshot(path: Path) -> bool:
    """A folder holding ``snapshot.json`` (whatever state its files are in: reading it says what is wrong)."""
    return path.is_dir() and os.path.lexists(path / SNAPSHOT_FILE)


#: A file's digest as this process last computed it, by the file's identity then: (device, inode, size,
#: modification and change times in ns). A file changed or replaced since has another change time
#: (the system sets it on every write, rename or truncation; no call sets it back), so a notebook kernel
#: that opens the same snapshot again hashes it once, not for every notebook (costly at 1000x: docs/performance.md)
_HASHED: dict[str, tuple[tuple[int, ...], dict[str, Any]]] = {}

#: The system stamps a change with a clock that moves in ticks (a few milliseconds): a file changed less than
#: this long before it was hashed could be changed again within the same tick, so its digest is not kept
_SETTLED_NS = 2_000_000_000


def _digest(file: Path) -> dict[str, Any]:
    """The size and SHA-256 of a regular file."""
    return _identified_digest(file, remember=False)[0]


def _identified_digest(file: Path, *, remember: bool) -> tuple[dict[str, Any], tuple[int, ...]]:
    """The size and SHA-256 of a regular file, and its identity as it was hashed (device, inode, size,
    modification and change times); with ``remember``, the digest is taken from this process's last hashing of
    the same, unchanged file (:data:`_HASHED`) when there is one."""
    with open_regular(file) as fh:
        st = os.fstat(fh.fileno())
        identity = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        key = os.path.abspath(file)
        kept = _HASHED.get(key) if remember else None
        if kept is not None and kept[0] == identity:
            return dict(kept[1]), identity
        found = {"bytes": st.st_size, "sha256": hashlib.file_digest(fh, "sha256").hexdigest()}
    if remember and time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) > _SETTLED_NS:
        _HASHED[key] = (identity, dict(found))
    return found, identity


def _meta_digest(meta: dict[str, Any]) -> str:
    text = json.dumps(meta, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _write_arrow(table: pa.Table, file: Path) -> None:
    with pa.OSFile(str(file), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)


def write_snapshot(runset: Any, errors: list[LoadError], source: str, path: str | os.PathLike[str],
                   roots: Sequence[str | os.PathLike[str]] = ()) -> Path:
    """Write a loaded run set as Arrow IPC files (``<frame>.arrow``), its run links, and ``snapshot.json``
    (what its load rejected and skipped, and every file's size and SHA-256): the report's copy of the
    log, read and checked once, that every notebook opens memory-mapped (:func:`read_snapshot`).

    ``roots`` are the loaded logs (files or folders): a run's transcript is read again from its log only when
    the file named for it lies inside one of them (:func:`confine_transcripts`)."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    names = []
    for name in FRAMES:
        _write_arrow(versioned(pa.Table.from_pandas(getattr(runset, name), preserve_index=False)),
                     path / f"{name}.arrow")
        names.append(f"{name}.arrow")
    for name in _LINKED:  # which run each row belongs to, known from the load: notebooks need not join again
        pos = runset.run_positions(name)
        if pos is not None:
            _write_arrow(pa.table({"run_row": pa.array(pos, type=pa.int64())}), path / f"{name}.links.arrow")
            names.append(f"{name}.links.arrow")
    folders = sorted({os.path.abspath(r if os.path.isdir(r) else os.path.dirname(os.path.abspath(r))) for r in roots})
    meta = {"runlog_version": RUNLOG_VERSION, "source": source, "roots": folders, "skipped": runset.skipped,
            "errors": [asdict(e) for e in errors], "files": {n: _digest(path / n) for n in names}}
    meta["sha256"] = _meta_digest(meta)
    (path / SNAPSHOT_FILE).write_text(json.dumps(meta), encoding="utf-8")
    return path


def _verified_meta(path: Path) -> dict[str, Any]:
    file = path / SNAPSHOT_FILE
    with open_regular(file) as fh:
        raw = fh.read()
    try:
        meta = _strict_loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise FormatError(f"{file}: not a readable ambiglib snapshot (not JSON: {str(exc)[:120]})") from None
    if not isinstance(meta, dict) or not isinstance(meta.get("sha256"), str):
        raise FormatError(f"{file}: not an ambiglib snapshot (no 'sha256' of its content); write snapshots with"
                          " ambiglib report --keep-snapshot")
    recorded = meta.pop("sha256")
    if _meta_digest(meta) != recorded:
        raise FormatError(f"{file}: damaged or edited since the report wrote it (its SHA-256 does not match)")
    if json.dumps({**meta, "sha256": recorded}).encode("utf-8") != raw:  # spaces, escapes, order: as written
        raise FormatError(f"{file}: damaged or edited since the report wrote it (not byte for byte what it wrote)")
    if meta.get("runlog_version") != RUNLOG_VERSION:
        raise FormatError(f"{file}: run-log version must be {RUNLOG_VERSION} (got {meta.get('runlog_version')!r})")
    files = meta.get("files")
    expected = {f"{n}.arrow" for n in FRAMES}
    if not isinstance(files, dict) or not expected <= set(files) <= expected | {f"{n}.links.arrow" for n in _LINKED}:
        raise FormatError(f"{file}: 'files' must list {', '.join(sorted(expected))} and at most the links files")
    return meta


#: the file a transcript locator names (:mod:`ambiglib.transcripts`; written with ``json.dumps``)
_LOCATOR_FILE = r'"file": "(?P<file>(?:[^"\\]|\\.)*)"'


def confine_transcripts(runs: pa.Table, roots: Sequence[str]) -> pa.Table:
    """``runs`` with every ``transcript_at`` that names a file outside ``roots`` (or a path with ``..``) taken out:
    a snapshot is the log's copy, and a run's conversation is read only from the log it was loaded from."""
    if "transcript_at" not in runs.column_names or runs.column("transcript_at").null_count == runs.num_rows:
        return runs
    at = runs.column("transcript_at")
    file = pc.struct_field(pc.extract_regex(at, _LOCATOR_FILE), "file")
    ok = pc.invert(pc.is_valid(file))  # a locator without a file (the importer's word that there is none)
    inside = pa.array([False] * runs.num_rows)
    for root in roots:
        if isinstance(root, str) and os.path.isabs(root):
            inside = pc.or_(inside, pc.starts_with(file, root.rstrip(os.sep) + os.sep))
    inside = pc.and_(inside, pc.invert(pc.match_substring(file, f"{os.sep}..")))
    keep = pc.fill_null(pc.or_kleene(ok, inside), False)
    if pc.all(keep).as_py():
        return runs
    fixed = pc.if_else(keep, at, pa.scalar(None, pa.string()))
    return runs.set_column(runs.column_names.index("transcript_at"), "transcript_at", fixed)


def read_snapshot(path: Path) -> tuple[dict[str, pa.Table], dict[str, int], list[LoadError], dict[str, np.ndarray],
                                        tuple[str | tuple[int, ...], ...]]:
    """The frames of a snapshot (memory-mapped), its ``skipped`` counts, the load errors it keeps, the run
    row of each question and label row (where the report kept them), and what was read: the SHA-256 of
    ``snapshot.json``'s content (which names every file's), then each file's identity as it was verified, after
    verifying every file.

    Every file ``snapshot.json`` lists must have the size and SHA-256 recorded there, and ``snapshot.json``
    its own SHA-256; anything else is a FormatError naming the file. Verified, the records are those the
    report checked a moment before, so they are not checked again (only each frame's schema is, by the
    caller), and the links are those its load found. A file this process hashed before is not hashed again
    while its identity and change time are those it had then (a report's kernel opens the snapshot once per
    notebook)."""
    meta = _verified_meta(path)
    read: list[str | tuple[int, ...]] = [_meta_digest(meta)]  # (verified: the digest recorded)
    for name, recorded in sorted(meta["files"].items()):
        found, identity = _identified_digest(path / name, remember=True)
        read.append(identity)
        if found != recorded:
            wrote = recorded.get("bytes")
            if found["bytes"] == wrote:
                what = "its SHA-256 does not match"
            else:
                what = f"{found['bytes']:,} bytes where the report wrote " + (
                    f"{wrote:,}" if isinstance(wrote, int) else repr(wrote))
            raise FormatError(f"{path / name}: damaged or replaced since the report wrote it ({what})")
    try:
        tables = {}
        for name in FRAMES:
            with pa.memory_map(str(path / f"{name}.arrow"), "r") as source:
                tables[name] = pa.ipc.open_file(source).read_all()
        links = {}
        for name in _LINKED:
            if f"{name}.links.arrow" in meta["files"]:
                with pa.OSFile(str(path / f"{name}.links.arrow"), "rb") as source:
                    links[name] = pa.ipc.open_file(source).read_all().column("run_row").to_numpy()
        errors = [LoadError(**e) for e in meta["errors"]]
        tables["runs"] = confine_transcripts(tables["runs"], meta.get("roots") or [])
    except (OSError, ValueError, KeyError, TypeError, pa.ArrowException) as exc:  # a file replaced since verified
        raise FormatError(f"{path}: not a readable ambiglib snapshot ({exc})") from exc
    return tables, dict(meta.get("skipped") or {}), errors, links, tuple(read)
