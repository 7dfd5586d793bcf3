"""``ambiglib.load``: recognise a run log's layout and read it into a RunSet."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Literal, overload

from tqdm import tqdm

from .errors import FormatError, LoadError
from .runlog import (
    Engine,
    FileRead,
    is_jsonl,
    is_parquet_runlog,
    jsonl_files,
    read_file,
    read_parquet_tables,
    require_exists,
)
from .runset import RunSet, build_runset

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
    files = jsonl_files(path)
    reads: list[FileRead] = []
    bar = tqdm(files, desc="reading run log", unit="file",
               disable=quiet or len(files) < PROGRESS_MIN_FILES)
    for file in bar:
        reads.append(read_file(file, str(file), engine))
    n_run_records = sum(r.n_run_records for r in reads)
    if n_run_records == 0:
        what = f"{len(files)} file{'s' if len(files) != 1 else ''}"
        n_task = sum(r.n_task_records for r in reads)
        tasks = f" (only {n_task} task record{'s' if n_task != 1 else ''})" if n_task else ""
        raise FormatError(f"{path}: no run records found in {what}{tasks}")
    runset, dup_errors = build_runset(reads)
    order = {str(file): i for i, file in enumerate(files)}
    errors = sorted([e for r in reads for e in r.errors] + dup_errors,
                    key=lambda e: (order.get(e.file, len(order)), e.line or 0))
    return runset, errors


def _read_canonical_parquet(path: Path, **_: object) -> tuple[RunSet, list[LoadError]]:
    from .parquet_check import check_tables

    tables = read_parquet_tables(path)
    if tables["runs"].num_rows == 0:
        raise FormatError(f"{path}: no run records found in runs.parquet")
    return check_tables(tables, path)


def _detect_jsonl(path: Path) -> bool:
    if path.is_file():
        return is_jsonl(path)
    return any(is_jsonl(p) for p in path.rglob("*") if p.is_file())


def _detect_hilbench(path: Path) -> bool:
    from .importers.hilbench import is_hilbench_run

    return path.is_dir() and (is_hilbench_run(path) or any(is_hilbench_run(p) for p in path.glob("*/"))
                              or any(is_hilbench_run(p) for p in path.glob("*/*/")))


def _read_hilbench(path: Path, *, quiet: bool, engine: Engine) -> tuple[RunSet, list[LoadError]]:
    from .importers.hilbench import read_hilbench

    registries = path / "registries"
    return read_hilbench(path, registries=registries if registries.is_dir() else None, strict=False)


def _detect_ambigds(path: Path) -> bool:
    from .importers.ambigds import is_ambigds_layout

    return is_ambigds_layout(path)


def _read_ambigds(path: Path, *, quiet: bool, engine: Engine) -> tuple[RunSet, list[LoadError]]:
    from .importers.ambigds import read_ambigds

    return read_ambigds(path, strict=False)


def _detect_lhaw(path: Path) -> bool:
    from .importers.lhaw import MANIFEST

    return (path / MANIFEST).is_file() if path.is_dir() else path.name == MANIFEST


def _detect_mcp_atlas(path: Path) -> bool:
    from .importers.lhaw import is_mcp_atlas_results

    return is_mcp_atlas_results(path)


def _read_mcp_atlas(path: Path, *, quiet: bool, engine: Engine) -> tuple[RunSet, list[LoadError]]:
    from .importers.lhaw import read_mcp_atlas

    return read_mcp_atlas(path, strict=False)


def _read_lhaw(path: Path, *, quiet: bool, engine: Engine) -> tuple[RunSet, list[LoadError]]:
    from .importers.lhaw import read_lhaw

    return read_lhaw(path, strict=False)


LAYOUTS: list[Layout] = [
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
    Layout("runlog-jsonl", "canonical run-log JSON Lines: a .jsonl or .jsonl.gz file, or a folder "
           "of them", _detect_jsonl, _read_canonical_jsonl),
]


@overload
def load(path: str | os.PathLike[str], *, strict: Literal[True] = ..., quiet: bool = ...,
         engine: Engine = ...) -> RunSet: ...
@overload
def load(path: str | os.PathLike[str], *, strict: Literal[False], quiet: bool = ...,
         engine: Engine = ...) -> tuple[RunSet, list[LoadError]]: ...


def load(path: str | os.PathLike[str], *, strict: bool = True, quiet: bool = False,
         engine: Engine = "auto") -> RunSet | tuple[RunSet, list[LoadError]]:
    """Load a run log into its five tidy frames.

    Parameters
    ----------
    path : str or path-like
        A canonical run log: a ``.jsonl``/``.jsonl.gz`` file, a folder of them (read
        recursively in name order), or a folder written by :meth:`RunSet.to_parquet`.
    strict : bool, default True
        Raise on the first problem (its message names file, line and field, and how
        many more there are). With ``strict=False`` every rejected record becomes a
        :class:`~ambiglib.errors.LoadError` and the valid ones are kept.
    quiet : bool, default False
        Hide the progress bar shown when many files are read.
    engine : {"auto", "arrow", "python"}, default "auto"
        How JSON Lines are parsed: ``auto`` uses Arrow and falls back to the
        line-by-line reader for any file that needs it; the others force one path.

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

    Examples
    --------
    >>> import ambiglib
    >>> rs = ambiglib.load("data/example")  # doctest: +SKIP
    >>> rs.runs[["benchmark", "suite"]].value_counts()  # doctest: +SKIP
    """
    path = Path(path)
    require_exists(path)
    for layout in LAYOUTS:
        if layout.detect(path):
            runset, errors = layout.read(path, quiet=quiet, engine=engine)
            break
    else:
        known = "\n".join(f"  - {layout.name}: {layout.description}" for layout in LAYOUTS)
        raise FormatError(f"{path}: not a run log ambiglib recognises; the layouts it knows are:\n{known}")
    if strict and errors:
        raise errors[0].to_exception(len(errors) - 1)
    return runset if strict else (runset, errors)
