"""``ambiglib.load``: recognise a run log's layout and read it into a RunSet."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, overload

import numpy as np
from tqdm import tqdm

from .errors import AmbiglibError, ArgumentError, FormatError, LoadError
from .files import is_dir, is_file, listdir, one_listing, subfolders, unreadable, walk
from .filters import Filters
from .log_labels import check_label, labelled
from .memory import c_allocator
from .parquet_log import is_parquet_runlog, is_parquet_store, read_parquet_tables, read_store_tables
from .runlog import (
    BATCH_BYTES,
    BATCH_FILES,
    SMALL_FILE_BYTES,
    Engine,
    FileRead,
    is_jsonl,
    jsonl_files,
    looks_canonical,
    read_file,
    read_small_files,
    require_exists,
)
from .runset import RunSet, build_runset
from .snapshot import is_snapshot, read_snapshot
from .transcripts import transcript as _transcript  # noqa: F401 - a loaded run set reads its runs' conversations
from .whole_writes import leftover

__all__ = ["load", "LAYOUTS", "Layout"]

#: Files at or above this count get a progress bar (unless ``quiet``).
PROGRESS_MIN_FILES = 20


@dataclass(frozen=True)
class Layout:
    """A run-log layout ``load`` can recognise."""

    name: str
    description: str
    detect: Callable[[Path], bool]
    read: Callable[..., tuple[RunSet, list[LoadError]]]


def _read_canonical_jsonl(path: Path, *, quiet: bool, engine: Engine) -> tuple[RunSet, list[LoadError]]:
    return _read_canonical_files(path, jsonl_files(path), quiet=quiet, engine=engine)


@c_allocator()  # the frames reuse the pages the JSON parse freed (memory.py)
def _read_canonical_files(path: Path, files: list[Path], *, quiet: bool, engine: Engine
                          ) -> tuple[RunSet, list[LoadError]]:
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


def _read_canonical_parquet(path: Path, **_: object) -> tuple[RunSet, list[LoadError]]:
    from .parquet_check import check_tables

    tables = read_parquet_tables(path)
    if tables["runs"].num_rows == 0:
        raise FormatError(f"{path}: no run records found in runs.parquet")
    return check_tables(tables, path)


def _read_parquet_store(path: Path, *, filters: object = None, **_: object) -> tuple[RunSet, list[LoadError]]:
    from .parquet_check import check_tables

    tables, origins = read_store_tables(path, filters)
    if tables["runs"].num_rows == 0 and filters is None:
        raise FormatError(f"{path}: no run records found in runs/")
    return check_tables(tables, path, origins.locate)


#: The checked Arrow tables of the last snapshot read in this process, by the SHA-256 of its content and the
#: identity of each file as it was verified (device, inode, size, modification and change times: a copy, or a
#: file truncated or replaced since, is mapped again, never read through an old mapping): the report's kernel
#: reads the same snapshot for every notebook (Arrow arrays are immutable; each load makes its own frames)
_CONFORMED: dict[tuple, dict[str, Any]] = {}


def _read_snapshot(path: Path, **_: object) -> tuple[RunSet, list[LoadError]]:
    from .frames import _frame
    from .parquet_check import _conform, _expected

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


def _detect_jsonl(path: Path) -> bool:
    if path.is_file():
        return is_jsonl(path)
    return any(is_jsonl(p) for p, _ in walk(path))


def _detect_hilbench(path: Path) -> bool:
    from .importers.hilbench import is_hilbench_run

    children = subfolders(path)
    return is_dir(path) and (is_hilbench_run(path) or any(is_hilbench_run(p) for p in children)
                             or any(is_hilbench_run(q) for p in children for q in subfolders(p)))


def _read_hilbench(path: Path, *, quiet: bool, engine: Engine) -> tuple[RunSet, list[LoadError]]:
    from .importers.hilbench import read_hilbench

    registries = path / "registries"
    return read_hilbench(path, registries=registries if registries.is_dir() else None, strict=False)


def _detect_ambigds(path: Path) -> bool:
    from .importers.ambigds import is_ambigds_layout

    return is_ambigds_layout(path)


def _claims_ambigds(path: Path) -> bool:
    """Ambig-DS run folders here, as children, or under ``results/`` (deeper, the walk goes on)."""
    from .importers.ambigds import _is_run_dir

    if _is_run_dir(path):
        return True
    return any(_is_run_dir(p) for p in (*_subdirs(path), *_subdirs(path / "results")))


def _read_ambigds(path: Path, *, quiet: bool, engine: Engine) -> tuple[RunSet, list[LoadError]]:
    from .importers.ambigds import read_ambigds

    return read_ambigds(path, strict=False)


def _detect_lhaw(path: Path) -> bool:
    from .importers.lhaw import MANIFEST

    # anything named so claims the folder, a link that leads nowhere too: read_lhaw names what is wrong with it
    # (taking the folder for MCP-Atlas results without the manifest read 63 runs another way, fuzz seed 9002)
    return os.path.lexists(path / MANIFEST) if is_dir(path) else path.name == MANIFEST


def _detect_mcp_atlas(path: Path) -> bool:
    from .importers.lhaw import is_mcp_atlas_results

    return is_mcp_atlas_results(path)


def _read_mcp_atlas(path: Path, *, quiet: bool, engine: Engine) -> tuple[RunSet, list[LoadError]]:
    from .importers.lhaw import read_mcp_atlas

    return read_mcp_atlas(path, strict=False)


def _read_lhaw(path: Path, *, quiet: bool, engine: Engine) -> tuple[RunSet, list[LoadError]]:
    from .importers.lhaw import read_lhaw

    return read_lhaw(path, strict=False)


def _detect_inspect(path: Path) -> bool:
    from .importers.inspect_logs import inspect_logs

    return bool(inspect_logs(path))


def _read_inspect(path: Path, *, quiet: bool, engine: Engine, files: list[Path] | None = None,
                  inspect: Mapping[str, Any] | None = None) -> tuple[RunSet, list[LoadError]]:
    from .importers.inspect_logs import read_inspect

    return read_inspect(path, strict=False, files=files, **(inspect or {}))


def _detect_ambigswe(path: Path) -> bool:
    from .importers.ambigswe import is_ambigswe_layout

    return is_ambigswe_layout(path)


def _read_ambigswe(path: Path, *, quiet: bool, engine: Engine) -> tuple[RunSet, list[LoadError]]:
    from .importers.ambigswe import read_ambigswe

    return read_ambigswe(path, strict=False)


def _detect_taubench(path: Path) -> bool:
    from .importers.taubench import taubench_logs

    return bool(taubench_logs(path))


def _read_taubench(path: Path, *, quiet: bool, engine: Engine, files: list[Path] | None = None
                   ) -> tuple[RunSet, list[LoadError]]:
    from .importers.taubench import read_taubench

    return read_taubench(path, strict=False, files=files)


def _is_taubench_log(path: Path) -> bool:
    from .importers.taubench import is_taubench_log

    return is_taubench_log(path)


def _is_inspect_log(path: Path) -> bool:
    from .importers.inspect_logs import is_inspect_log

    return is_inspect_log(path)


LAYOUTS: list[Layout] = [
    Layout("runlog-snapshot", "a report's snapshot of a loaded log: <frame>.arrow files and snapshot.json"
           " (written by ambiglib report for its notebooks)", is_snapshot, _read_snapshot),
    Layout("runlog-parquet-store", "a hive-partitioned Parquet store: runs/, questions/, labels/, tasks/ and"
           " blockers/ datasets (RunSet.to_parquet(partition_by=...))", is_parquet_store, _read_parquet_store),
    Layout("runlog-parquet", "a folder of runs.parquet, questions.parquet, labels.parquet, "
           "tasks.parquet and blockers.parquet (RunSet.to_parquet)",
           is_parquet_runlog, _read_canonical_parquet),
    Layout("hil-bench", "a run_hil_bench.py or `hil sql|swe` run folder (batch_config.json, the per-pass"
           " <model>/<mode>/pass_<k>/ tree, public_metrics/pass_level_metrics.csv), or a folder of them (an output"
           " root, a --task-type both root); blocker registries in a 'registries' subfolder are read too",
           _detect_hilbench, _read_hilbench),
    Layout("ambig-ds", "Ambig-DS results: opencode_<model>_<variant>[_clarify|_ask_only][_strict] run folders of"
           " task folders (_grade.json, _traj.json, _clarify.json, audits) and _runlog.jsonl",
           _detect_ambigds, _read_ambigds),
    Layout("lhaw", "LHAW trial results named by an lhaw_manifest.csv (TheAgentCompany eval_<task>.json,"
           " SWE-Bench Pro eval_results.json, MCP-Atlas scored CSVs), with variants.json beside it",
           _detect_lhaw, _read_lhaw),
    Layout("mcp-atlas", "MCP-Atlas (LHAW ask_user branch) scored_<label>.csv files, here or in evaluation_results/,"
           " without a manifest (model and trial from <model>[_ask_user]_t<trial> labels)",
           _detect_mcp_atlas, _read_mcp_atlas),
    Layout("ambig-swe", "Ambig-SWE's experiments/ folder (sani903/InteractiveSWEAgents): test_interactivity/,"
           " extracted_qa_pairs/, llm_as_judge/ and file_resolve_rates/ files named <model>_...",
           _detect_ambigswe, _read_ambigswe),
    Layout("inspect", "Inspect AI evaluation logs: .eval files, or .json logs of Inspect, here or in folders below"
           " (one run per sample and epoch; needs the inspect-ai package: pip install 'ambiglib[inspect]')",
           _detect_inspect, _read_inspect),
    Layout("tau-bench", "τ-bench results: a .json list of its run.py's EnvRunResult records (task_id, reward,"
           " info, traj, trial), as run.py writes them and historical_trajectories/ publishes them",
           _detect_taubench, _read_taubench),
    Layout("runlog-jsonl", "canonical run-log JSON Lines: a .jsonl or .jsonl.gz file, or a folder "
           "of them", _detect_jsonl, _read_canonical_jsonl),
]


def _entries(folder: Path) -> list[Path]:
    """What a folder holds, in name order (nothing when it cannot be listed: load names it beforehand)."""
    return listdir(folder)


def _subdirs(path: Path) -> list[Path]:
    """The folders in ``path`` (none when it is not a folder)."""
    return [p for p in _entries(path) if p.is_dir()] if path.is_dir() else []


#: Which layout a folder is the root of, when the walk reaches it (first match wins).
_CLAIMS: list[tuple[str, Callable[[Path], bool]]] = [
    ("runlog-snapshot", is_snapshot),
    ("runlog-parquet-store", is_parquet_store),
    ("runlog-parquet", is_parquet_runlog),
    ("lhaw", _detect_lhaw),
    ("hil-bench", _detect_hilbench),
    ("ambig-ds", _claims_ambigds),
    ("mcp-atlas", _detect_mcp_atlas),
    ("ambig-swe", _detect_ambigswe),
]


#: (outer, inner): a tree of the inner layout inside the outer one is the outer importer's to read (an LHAW
#: manifest names the MCP-Atlas scored CSVs beside it)
_CONSUMES = {("lhaw", "mcp-atlas")}


def _claim(folder: Path) -> str | None:
    try:
        return next((name for name, claims in _CLAIMS if claims(folder)), None)
    except OSError:  # a folder this user cannot look into: named by load's walk (files.unreadable)
        return None


def _units(root: Path, strays: list[Path] | None = None, repeats: list[tuple[Path, Path]] | None = None,
           writes: list[Path] | None = None) -> list[tuple[str, Path]]:
    """Every run log in a folder: ``(layout, path)`` for each native tree or Parquet folder the walk meets
    and ``("runlog-jsonl", file)`` for each canonical file outside them. Inside a log's folder, the walk
    looks on for logs of another layout (an Ambig-DS results tree inside a HIL-Bench run folder is loaded by
    its own importer, not ignored without a word; an LHAW manifest's MCP-Atlas trees are the manifest's);
    a ``.jsonl`` there is the harness's own unless its first record is a canonical one (a run log kept in
    a harness's folder is loaded too). Linked folders are followed, each once; a folder this user cannot
    list is looked past here and named by :func:`load`. A file's second names (``files.walk``) are no units:
    they are appended to ``repeats``; the folders a write of a log's folder leaves beside it while it runs or when
    killed (``whole_writes.leftover``) are none either: they are appended to ``writes``."""
    units: list[tuple[str, Path]] = []
    seen: set[str] = set()
    repeats = [] if repeats is None else repeats
    for _ in walk(root, repeats):  # each file under one name (files.walk): its second names are no units
        pass
    second = {link for link, _ in repeats}
    stack: list[tuple[Path, str | None]] = [(root, None)]  # a folder, and the layout of the log it is inside
    while stack:
        folder, inside = stack.pop()
        real = os.path.realpath(folder)
        if real in seen:
            continue
        seen.add(real)
        entries = [p for p in _entries(folder) if p not in second]
        if writes is not None:  # what a write of a log's folder leaves beside it: a copy, never a log of its own
            writes += [p for p in entries if leftover(p) and is_dir(p)]
            entries = [p for p in entries if not (leftover(p) and is_dir(p))]
        claimed = _claim(folder)
        if claimed is not None and claimed != inside and (inside, claimed) not in _CONSUMES:
            units.append((claimed, folder))
            inside = claimed
        # an Inspect log is a file of its own wherever it lies (its logs are read together, as one unit)
        # (a folder named *.eval is one too, which its reader refuses: its runs are not dropped unseen)
        inspect_logs = [p for p in entries if _is_inspect_log(p)]
        tau_logs = [p for p in entries if not is_dir(p) and _is_taubench_log(p)]
        units += [("inspect", p) for p in inspect_logs] + [("tau-bench", p) for p in tau_logs]
        if inside is None:
            # a .jsonl name that is no file (a FIFO, a link to nothing) is read too, and refused naming what it is
            units += [("runlog-jsonl", p) for p in entries
                      if is_jsonl(p) and not is_dir(p) and (not is_file(p) or os.access(p, os.R_OK))]
            if strays is not None:  # a file no layout reads, outside every harness's folder: counted, not read
                read = set(inspect_logs) | set(tau_logs)
                strays += [p for p in entries if not is_dir(p) and not is_jsonl(p) and p not in read]
        else:  # inside a harness's folder, a canonical log kept there (the harness's own .jsonl are not)
            units += [("runlog-jsonl", p) for p in entries
                      if is_jsonl(p) and is_file(p) and os.access(p, os.R_OK) and looks_canonical(p)]
        stack += [(p, inside) for p in reversed(entries) if is_dir(p) and not p.name.endswith(".eval")]
    return units


#: layouts that are copies ambiglib wrote of a log, whose ``source`` column names the file they were written from
_COPIES = {"runlog-parquet": ("runs.parquet", "tasks.parquet"), "runlog-parquet-store": ("runs/", "tasks/"),
           "runlog-snapshot": ("runs.arrow", "tasks.arrow")}


def _where(origin: tuple[str, Path] | None, source: Any, row: int, frame: int) -> tuple[str, str, int | None]:
    """Where a row was read, as an error names it, with its file and line: its ``source`` (``file:line``), or,
    for a copy ambiglib wrote (Parquet, a store, a snapshot), the copy's file and row and the file it was
    written from. Called only for the rows an error names."""
    if origin is None or origin[0] not in _COPIES:
        file, _, line = str(source).rpartition(":")
        return str(source), file, int(line) if line.isdigit() else None
    file = str(origin[1] / _COPIES[origin[0]][frame])
    return f"{file} row {row + 1} (written from {source})", file, row + 1


def _merge(parts: list[tuple[RunSet, list[LoadError]]], origins: Sequence[tuple[str, Path] | None] | None = None,
           logs: Sequence[str] | None = None) -> tuple[RunSet, list[LoadError]]:
    """One run set of several logs; a run or task met again in a later log is an error naming both (a copy
    ambiglib wrote by its own file and row: ``_where``, worked out only for the rows an error names), and the
    repeat (with its questions and labels) is not loaded.

    ``logs``: the label of each part, for logs of one benchmark loaded together (``load`` of a mapping). Their
    tasks are the benchmark's, shared by every log: a task described again in a later log is no error when the
    descriptions agree (the first is kept), and an error naming both places and what differs when they do not."""
    import pandas as pd

    errors: list[LoadError] = []
    kept: list[dict[str, pd.DataFrame]] = []
    first_run: dict[str, tuple[tuple[str, Path] | None, Any, int]] = {}
    first_task: dict[tuple, tuple[tuple[str, Path] | None, Any, int]] = {}
    first_part: dict[tuple, int] = {}  # (logs given) the part each task was first described in
    described: list[dict[tuple, dict]] = []  # (logs given) each part's task descriptions
    key = ["benchmark", "suite", "variant_id"]
    for i, ((rs, errs), origin) in enumerate(zip(parts, origins or [None] * len(parts))):
        errors += errs
        runs, tasks = rs.runs, rs.tasks
        again = runs["run_id"].isin(list(first_run)).to_numpy(dtype=bool)
        for at in np.flatnonzero(again):
            run_id = runs["run_id"].iat[at]
            where, file, line = _where(origin, runs["source"].iat[at], int(at), 0)
            errors.append(LoadError(file, line, None, f"{where}: duplicate run {run_id!r}: first seen at"
                                    f" {_where(*first_run[run_id], 0)[0]}", "schema", "run"))
        dropped = set(runs["run_id"][again])
        task_keys = list(map(tuple, tasks[key].astype(object).to_numpy()))
        t_again = [k in first_task for k in task_keys]
        if logs is not None:
            described.append(_task_descriptions(rs))
        for row, (k, is_again) in enumerate(zip(task_keys, t_again)):
            if is_again:
                where, file, line = _where(origin, tasks["source"].iat[row], row, 1)
                first = _where(*first_task[k], 1)[0]
                if logs is None:
                    errors.append(LoadError(file, line, None, f"{where}: duplicate task record"
                                            f" ({', '.join(map(str, k))}): first seen at {first}", "schema", "task"))
                    continue
                differ = _differences(described[first_part[k]][k], described[i][k])
                if differ:  # the benchmark's task, described otherwise by this log: which description is right?
                    errors.append(LoadError(file, line, None, f"{where}: duplicate task record"
                                            f" ({', '.join(map(str, k))}) in log {logs[i]!r} that differs from log"
                                            f" {logs[first_part[k]]!r}'s in {', '.join(differ)}: first seen at"
                                            f" {first}", "schema", "task"))
        t_again_arr = pd.Series(t_again, dtype=bool).to_numpy()
        b_keys = list(map(tuple, rs.blockers[key].astype(object).to_numpy()))
        kept.append({
            "runs": runs[~again], "tasks": tasks[~t_again_arr],
            "questions": rs.questions[~rs.questions["run_id"].isin(dropped).to_numpy(dtype=bool)],
            "labels": rs.labels[~rs.labels["run_id"].isin(dropped).to_numpy(dtype=bool)],
            # a boolean array, never a list: an empty list would select no columns rather than no rows
            "blockers": rs.blockers[np.array([k not in first_task for k in b_keys], dtype=bool)],
        })
        # where each was first seen, as (origin, source, row): named only if it is met again
        first_run.update((r, (origin, s, i)) for i, (r, s, a) in enumerate(zip(runs["run_id"], runs["source"], again))
                         if not a)
        first_task.update((k, (origin, s, r)) for r, (k, s, a) in enumerate(zip(task_keys, tasks["source"], t_again))
                          if not a)
        first_part.update((k, i) for k, a in zip(task_keys, t_again) if not a)
    frames = {name: pd.concat([k[name] for k in kept], ignore_index=True)
              for name in ("runs", "questions", "labels", "tasks", "blockers")}
    skipped: dict = {}
    for rs, _ in parts:
        for reason, n in rs.skipped.items():
            skipped[reason] = skipped.get(reason, 0) + n
    return RunSet(**frames, skipped=skipped), errors


#: what describes a task, compared when logs loaded together both describe it (its key and ``source`` aside)
_DESCRIPTION = ("task_id", "ambiguity_class", "dimensions", "strategy", "meta")


def _task_descriptions(rs: RunSet) -> dict[tuple, dict[str, Any]]:
    """Each task of a run set by its key: its :data:`_DESCRIPTION` fields and its blockers (as a set: their
    order in the record is not part of the task), as plain Python values."""
    import pyarrow as pa

    key = ["benchmark", "suite", "variant_id"]
    rows = pa.Table.from_pandas(rs.tasks[[*key, *_DESCRIPTION]], preserve_index=False).to_pylist()
    blockers: dict[tuple, list] = {}
    for b in pa.Table.from_pandas(rs.blockers, preserve_index=False).to_pylist():
        blockers.setdefault(tuple(b[c] for c in key), []).append((b["blocker_id"], b["type"], b["subtype"]))
    out = {}
    for row in rows:
        k = tuple(row[c] for c in key)
        out[k] = {**{c: row[c] for c in _DESCRIPTION}, "blockers": sorted(blockers.get(k, []), key=repr)}
    return out


def _differences(first: dict[str, Any], again: dict[str, Any]) -> list[str]:
    """The fields in which two descriptions of one task differ (none: the same task)."""
    return [name for name in first if first[name] != again[name]]


#: layouts whose units are files, read together (the rest are folders, each read on its own)
_FILE_UNITS = ("runlog-jsonl", "inspect", "tau-bench")


def _read_any(path: Path, *, quiet: bool, engine: Engine, inspect: Mapping[str, Any] | None = None
              ) -> tuple[RunSet, list[LoadError]]:
    """Read whatever run logs ``path`` holds, each by its layout (several in one folder are merged); ``inspect``
    is the Inspect AI reader's mapping options."""
    strays: list[Path] = []
    repeats: list[tuple[Path, Path]] = []
    writes: list[Path] = []
    units = _units(path, strays, repeats, writes) if path.is_dir() else []
    runset, errors = _read_units(path, units, quiet=quiet, engine=engine, inspect=inspect)
    skipped = dict(runset.skipped)
    if writes:
        reason = (f"folder a write of a run log's folder made beside it (running, or killed: the next write into"
                  f" that folder removes it), not read as a log (first: {_inside(writes[0], path)})")
        skipped[reason] = skipped.get(reason, 0) + len(writes)
    if strays and units and not any(name.startswith("runlog-parquet") or name == "runlog-snapshot"
                                    for name, _ in units):
        reason = (f"file in the log's folder that is no run log of any layout ambiglib reads, not read (first:"
                  f" {_inside(strays[0], path)})")
        skipped[reason] = skipped.get(reason, 0) + len(strays)
    if repeats:  # the files' second names, which no reader was given
        link, read = repeats[0]
        reason = (f"second name of a file the load read under another (a link), not read twice (first:"
                  f" {_inside(link, path)} -> {_inside(read, path)})")
        skipped[reason] = skipped.get(reason, 0) + len(repeats)
    if skipped != runset.skipped:
        object.__setattr__(runset, "skipped", skipped)  # the same run set: what the load worked out is kept
    return runset, errors


def _inside(file: Path, folder: Path) -> Path:
    """``file`` as named inside ``folder`` (whole when it lies outside it)."""
    return file.relative_to(folder) if file.is_relative_to(folder) else file


def _read_units(path: Path, units: list[tuple[str, Path]], *, quiet: bool, engine: Engine,
                inspect: Mapping[str, Any] | None) -> tuple[RunSet, list[LoadError]]:
    by_name = {layout.name: layout for layout in LAYOUTS}
    kinds = {name for name, _ in units}
    # several logs in one folder, or files of one layout as the walk found them (not detecting every layout again,
    # slow on a folder of many files): each is read by its own layout, all are loaded
    folders = sum(name not in _FILE_UNITS for name, _ in units)
    several = len(kinds) > 1 or folders > 1 or (units and not folders)
    found = None if several else next((layout for layout in LAYOUTS if layout.detect(path)), None)
    if several or (units and found is None):  # (or one log below a folder that is none itself: a Parquet copy's)
        parts = []
        files = [p for name, p in units if name == "runlog-jsonl"]
        if files:
            parts.append(_read_canonical_files(path, files, quiet=quiet, engine=engine))
        logs = [p for name, p in units if name == "inspect"]
        if logs:  # one read: a task is described by every log it was run in
            parts.append(_read_inspect(path, quiet=quiet, engine=engine, files=logs, inspect=inspect))
        results = [p for name, p in units if name == "tau-bench"]
        if results:
            parts.append(_read_taubench(path, quiet=quiet, engine=engine, files=results))
        origins: list[tuple[str, Path] | None] = [None] * len(parts)
        for name, unit in units:
            if name not in _FILE_UNITS:
                parts.append(by_name[name].read(unit, quiet=quiet, engine=engine))
                origins.append((name, unit))
        return parts[0] if len(parts) == 1 else _merge(parts, origins)
    if found is not None:
        if found.name == "inspect":
            return _read_inspect(path, quiet=quiet, engine=engine, inspect=inspect)
        return found.read(path, quiet=quiet, engine=engine)
    known = "\n".join(f"  - {layout.name}: {layout.description}" for layout in LAYOUTS)
    raise FormatError(f"{path}: not a run log ambiglib recognises; the layouts it knows are:\n{known}")


@overload
def load(path: str | os.PathLike[str] | Mapping[str, str | os.PathLike[str]], *, strict: Literal[True] = ...,
         quiet: bool = ...,
         engine: Engine = ..., filters: Filters | None = ..., ask_tools: Iterable[str] | None = ...,
         scorer: str | None = ..., label_facets: Mapping[str, str] | None = ...,
         benchmark: str | None = ...) -> RunSet: ...
@overload
def load(path: str | os.PathLike[str] | Mapping[str, str | os.PathLike[str]], *, strict: Literal[False],
         quiet: bool = ...,
         engine: Engine = ..., filters: Filters | None = ..., ask_tools: Iterable[str] | None = ...,
         scorer: str | None = ..., label_facets: Mapping[str, str] | None = ...,
         benchmark: str | None = ...) -> tuple[RunSet, list[LoadError]]: ...


def load(path: str | os.PathLike[str] | Mapping[str, str | os.PathLike[str]], *, strict: bool = True,
         quiet: bool = False,
         engine: Engine = "auto", filters: Filters | None = None, ask_tools: Iterable[str] | None = None,
         scorer: str | None = None, label_facets: Mapping[str, str] | None = None,
         benchmark: str | None = None) -> RunSet | tuple[RunSet, list[LoadError]]:
    """Load a run log into its five tidy frames.

    Parameters
    ----------
    path : str or path-like, or a mapping of labels to them
        A canonical run log: a ``.jsonl``/``.jsonl.gz`` file, a folder of them (read
        recursively in name order), or a folder written by :meth:`RunSet.to_parquet`
        (plain or partitioned), or a harness's own output folder.

        A mapping, ``{"before": "old/", "after": "new/"}``, loads several logs of one benchmark as one run set:
        each path as a path alone is loaded, every run labelled with its log (the ``log`` column, part of the run
        key and of ``run_id``), so that the same agent in both logs does not collide and
        ``comparisons.paired_comparison(rs, between="log")`` pairs its runs by task. The tasks are the
        benchmark's, shared by the logs: one described in two logs alike is loaded once, and described
        otherwise it is an error naming both places. A label is a non-empty string without ``|``, ``%``, ``=``
        or control characters (an :class:`~ambiglib.errors.ArgumentError` names a bad one); every other
        argument applies to each log, and ``strict=False`` returns the errors of every log. A path alone
        leaves ``log`` null and every run id as it always was.
    strict : bool, default True
        Raise on the first problem (its message names file, line and field, and how
        many more there are). With ``strict=False`` every rejected record becomes a
        :class:`~ambiglib.errors.LoadError` and the valid ones are kept.
    quiet : bool, default False
        Hide the progress bar shown when many files are read.
    engine : {"auto", "arrow", "python"}, default "auto"
        How JSON Lines are parsed: ``auto`` uses Arrow and falls back to the
        line-by-line reader for any file that needs it; the others force one path.
    filters : list, optional
        Keep only some runs, in pyarrow's filter syntax (``[("benchmark", "==", "lhaw")]``;
        :mod:`ambiglib.filters`). The result equals ``load(path).where(filters)``; on a
        partitioned store (``RunSet.to_parquet(partition_by=...)``) only the partitions the
        filter can match are read.
    ask_tools, scorer, label_facets, benchmark : optional
        How Inspect AI logs map to runs (:func:`ambiglib.read_inspect`; other layouts ignore them): the
        ask tool's names (default ``ask_user``, ``ask_human``, ``ask_question``, ``clarify``; a tool of
        another name, ``request_clarification`` say, must be named here or its calls are no questions), the
        scorer giving each run's score (default: each sample's first), scorer → facet of its labels, and
        the benchmark's name (default: each eval's task name).

    Returns
    -------
    RunSet or (RunSet, list of LoadError)
        The run set; with ``strict=False``, also the rejected records, so that
        ``len(runs) + number of errors about run records == run records read``.

    Raises
    ------
    RunLogNotFoundError
        The path does not exist.
    FormatError
        No layout fits, no run records were found, or (strict) a line is not a
        JSON object.
    SchemaError
        (strict) A record breaks the run-log contract.
    ArgumentError
        (a mapping) No log, a bad label, or a path that is not a string or path-like.

    Examples
    --------
    >>> import ambiglib
    >>> rs = ambiglib.load("data/example")  # doctest: +SKIP
    >>> rs.runs[["benchmark", "suite"]].value_counts()  # doctest: +SKIP
    >>> both = ambiglib.load({"before": "logs/old", "after": "logs/new"})  # doctest: +SKIP
    >>> both.runs.groupby("log")["score"].mean()  # doctest: +SKIP
    """
    from .filters import normalize
    from .frames import COLUMNS

    if isinstance(path, Mapping):  # several logs, by label
        return _load_logs(path, strict=strict, quiet=quiet, engine=engine, filters=filters, ask_tools=ask_tools,
                         scorer=scorer, label_facets=label_facets, benchmark=benchmark)
    path = Path(path)
    require_exists(path)
    dnf = normalize(filters, COLUMNS["runs"])  # a bad filter fails before anything is read
    with one_listing():  # each folder walked once, whichever layout's detection or reader looks at it
        return _load(path, strict=strict, quiet=quiet, engine=engine, dnf=dnf, ask_tools=ask_tools, scorer=scorer,
                     label_facets=label_facets, benchmark=benchmark)


@overload
def _load(path: Path, *, strict: Literal[True], quiet: bool, engine: Engine, dnf: Any,
          ask_tools: Iterable[str] | None, scorer: str | None, label_facets: Mapping[str, str] | None,
          benchmark: str | None, unmatched: list | None = None) -> RunSet: ...
@overload
def _load(path: Path, *, strict: Literal[False], quiet: bool, engine: Engine, dnf: Any,
          ask_tools: Iterable[str] | None, scorer: str | None, label_facets: Mapping[str, str] | None,
          benchmark: str | None, unmatched: list | None = None) -> tuple[RunSet, list[LoadError]]: ...
@overload
def _load(path: Path, *, strict: bool, quiet: bool, engine: Engine, dnf: Any,
          ask_tools: Iterable[str] | None, scorer: str | None, label_facets: Mapping[str, str] | None,
          benchmark: str | None, unmatched: list | None = None) -> RunSet | tuple[RunSet, list[LoadError]]: ...
def _load(path: Path, *, strict: bool, quiet: bool, engine: Engine, dnf: Any, ask_tools: Iterable[str] | None,
          scorer: str | None, label_facets: Mapping[str, str] | None, benchmark: str | None,
          unmatched: list | None = None) -> RunSet | tuple[RunSet, list[LoadError]]:
    # unmatched: where a filter that keeps none of this log's runs is noted (the values the log has, as a
    # function of the column), not warned of: one of several logs loaded together, warned of when none keeps any
    # what this user cannot read is named before anything is read: strict, the first is the error; lenient, each
    # is an error in the list and the rest is read (folders that cannot be listed are looked past, not skipped
    # without a word)
    blocked = unreadable(path)
    if strict and blocked:
        (first, why), more = blocked[0], len(blocked) - 1
        raise FormatError(f"{first}: {why}" + (f" (and {more} more file{'s' if more > 1 else ''} or folder"
                                                f"{'s' if more > 1 else ''} this user cannot read)" if more else ""))
    if is_parquet_store(path):  # only the partitions the filter can match, then exactly its rows
        runset, errors = _read_parquet_store(path, filters=dnf)
        if dnf is not None and len(runset.runs) == 0:
            _unmatched(dnf, lambda c: _store_values(path, c), unmatched)
    else:
        inspect = {k: v for k, v in (("ask_tools", ask_tools), ("scorer", scorer), ("label_facets", label_facets),
                                     ("benchmark", benchmark)) if v is not None}
        if isinstance(ask_tools, str):  # one name, not its letters
            inspect["ask_tools"] = [ask_tools]
        runset, errors = _read_any(path, quiet=quiet, engine=engine, inspect=inspect)
        if dnf is not None:
            whole, runset = runset, runset.where(dnf)
            if len(runset.runs) == 0 and len(whole.runs):
                _unmatched(dnf, lambda c: list(whole.runs[c].dropna().unique()), unmatched)
    if blocked:
        runset, errors = _with_unreadable(runset, errors, blocked)
    return _returned(runset, errors, strict)


def _returned(runset: RunSet, errors: list[LoadError], strict: bool) -> RunSet | tuple[RunSet, list[LoadError]]:
    """What ``load`` gives: strict, the run set or the first error raised; lenient, the run set and its errors,
    the run set saying how many records were rejected (its display shows it)."""
    if strict and errors:
        raise errors[0].to_exception(len(errors) - 1)
    if errors:
        object.__setattr__(runset, "rejected", len(errors))
    return runset if strict else (runset, errors)


def _unmatched(dnf: list, present: Callable[[str], list], unmatched: list | None) -> None:
    """A filter kept none of a log's runs: warned of (:func:`_warn_empty`), or noted in ``unmatched``."""
    if unmatched is None:
        _warn_empty(dnf, present, stacklevel=5)
    else:
        unmatched.append(present)


def _warn_empty(dnf: list, present: Callable[[str], list], stacklevel: int = 4) -> None:
    """A filter that keeps no run is most often a typo: say so, with the values the log has."""
    import warnings

    from .filters import matched_nothing

    warnings.warn(matched_nothing(dnf, present), UserWarning, stacklevel=stacklevel)


def _store_values(path: Path, column: str) -> list:
    """The values of one runs column in a partitioned store (read for that column alone)."""
    import pyarrow.dataset as ds

    try:
        return ds.dataset(path / "runs", format="parquet", partitioning="hive").to_table(columns=[column]) \
            .column(column).unique().drop_null().to_pylist()
    except (OSError, ValueError, KeyError):  # (pyarrow's errors are these) the warning then names no values
        return []


def _with_unreadable(runset: RunSet, errors: list[LoadError], blocked: list[tuple[Path, str]]
                     ) -> tuple[RunSet, list[LoadError]]:
    """A lenient load's errors and skipped counts with every file and folder this user cannot read, each once
    (a reader that tried a file and said so already names it)."""
    import dataclasses

    said = " ".join(e.message for e in errors)  # a reader that tried the file says "<file>: cannot be read (...)"
    extra = [LoadError(str(p), None, None, f"{p}: {why}", "format", "run") for p, why in blocked
             if f"{p}: {why}" not in said]
    skipped = dict(runset.skipped)
    reason = "file or folder this user cannot read (its runs, if any, cannot be counted): named in the errors"
    skipped[reason] = skipped.get(reason, 0) + len(blocked)
    return dataclasses.replace(runset, skipped=skipped), extra + errors


def _origin(path: Path) -> tuple[str, Path] | None:
    """The layout of a copy ambiglib wrote (:data:`_COPIES`), whose rows an error names by the copy's file and row
    (:func:`_where`); None for any other log."""
    return next(((layout.name, path) for layout in LAYOUTS if layout.name in _COPIES and layout.detect(path)), None)


def _in_log(exc: AmbiglibError, label: str) -> AmbiglibError:
    """The same error, its message naming the log it is about."""
    again = type(exc)(f"log {label!r}: {exc}")
    again.error = exc.error
    return again


def _load_logs(logs: Mapping[Any, Any], *, strict: bool = True, quiet: bool = False, engine: Engine = "auto",
              filters: Filters | None = None, ask_tools: Iterable[str] | None = None, scorer: str | None = None,
              label_facets: Mapping[str, str] | None = None, benchmark: str | None = None
              ) -> RunSet | tuple[RunSet, list[LoadError]]:
    """``ambiglib.load`` of a mapping of labels to paths: each path loaded as ``load`` loads it alone, with the
    same arguments, its runs labelled (:func:`labelled`), and the logs merged, their shared tasks once
    (:func:`_merge`). Every label and path is checked before anything is read. A filter on
    ``log`` is applied to the logs merged; any other is given to each log (a partitioned store reads only the
    partitions it can match), and a filter that keeps no run of any log is warned of once."""
    from .filters import normalize
    from .frames import COLUMNS

    if not isinstance(logs, Mapping) or len(logs) == 0:
        raise ArgumentError("load: a mapping of log labels to paths needs at least one log (got an empty mapping;"
                            " for one log, give its path)")
    paths: dict[str, Path] = {}
    for label, path in logs.items():
        check_label(label)
        if not isinstance(path, (str, os.PathLike)):
            raise ArgumentError(f"load: log {label!r}: the path must be a string or path-like (got"
                                f" {type(path).__name__} {path!r})")
        paths[label] = Path(path)
    for label, path in paths.items():  # every path before any is read: a missing one is said at once
        try:
            require_exists(path)
        except AmbiglibError as exc:
            raise _in_log(exc, label) from None
    dnf = normalize(filters, COLUMNS["runs"])  # a bad filter fails before anything is read
    on_log = dnf is not None and any(term[0] == "log" for conj in dnf for term in conj)
    parts: list[tuple[RunSet, list[LoadError]]] = []
    origins: list[tuple[str, Path] | None] = []
    unmatched: list = []
    with one_listing():
        for label, path in paths.items():
            try:
                rs, errors = _load(path, strict=False, quiet=quiet, engine=engine,
                                   dnf=None if on_log else dnf, ask_tools=ask_tools, scorer=scorer,
                                   label_facets=label_facets, benchmark=benchmark, unmatched=unmatched)
            except AmbiglibError as exc:
                raise _in_log(exc, label) from None
            rs, rejected = labelled(rs, label)
            parts.append((rs, errors + rejected))
            origins.append(_origin(path))
    runset, errors = _merge(parts, origins, logs=list(paths))
    if on_log and dnf is not None:
        whole, runset = runset, runset.where(dnf)
        if len(runset.runs) == 0 and len(whole.runs):
            _warn_empty(dnf, lambda c: list(whole.runs[c].dropna().unique()))
    elif dnf is not None and len(runset.runs) == 0 and unmatched:
        _warn_empty(dnf, lambda c: sorted({v for present in unmatched for v in present(c)}, key=str))
    return _returned(runset, errors, strict)
