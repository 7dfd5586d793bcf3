"""HIL-Bench: ``run_hil_bench.py`` and ``hil sql|swe`` output, the Harbor ask-human metrics, blocker registries.

Two ways in, chosen per run folder:

- **the per-pass tree** (``<run>/<model_safe>/<mode>/[pass_<k>/]metrics.json`` + ``preds.json`` and each
  instance's ``.traj``): what the harness's own ``parse_metrics_rows`` reads, written by both
  ``run_hil_bench.py`` and the ``hil`` CLI. Questions come from the trajectories (every ``ask_human``
  action), matched to the server log's blocker attributions.
- **``public_metrics/pass_level_metrics.csv``** alone (a copied or shared CSV): questions from the exported
  public trajectories where present, else from the server logs under each instance's own id.

The mapping into the canonical run log, field by field, is in ``docs/importers.md``; the harness's
rules reproduced here (invalid passes, the pass filter) are in ``docs/metrics.md``.

One module per thing read: :mod:`.tree` (a run folder's per-pass tree), :mod:`.public_metrics` (a copied
``public_metrics/`` alone), :mod:`.trajectories` (``.traj`` files), :mod:`.logs` and :mod:`.attribution`
(the ask_human server's logs, and which entry each question is), :mod:`.registries` (blocker registries);
:mod:`.conventions` holds what the harness's own code fixes.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal, overload

from ambiglib.errors import FormatError, LoadError
from ambiglib.importers._common import Collected, finish, guard
from ambiglib.importers._hilbench.attribution import _attribute
from ambiglib.importers._hilbench.conventions import (
    CSV_COLUMNS,
    HICCUP,
    INVALID_REASONS,
    IRRELEVANT,
    MAX_ANSWERED,
    MODES,
    _run_dirs,
    ask_prf,
    is_hilbench_run,
    model_safe,
)
from ambiglib.importers._hilbench.public_metrics import _csv_passes
from ambiglib.importers._hilbench.registries import read_hilbench_registries, registry_task_records
from ambiglib.importers._hilbench.trajectories import (
    ask_human_question,
    invalid_pass_reason,
    read_transcript,
    transcript_at,
)
from ambiglib.importers._hilbench.tree import _record, _RunFolder, _tree_passes
from ambiglib.importers._reader import Reader, ReadOptions
from ambiglib.runlog._files import is_dir, subfolders
from ambiglib.runlog._jsonl import TRANSCRIPT_AT, require_exists
from ambiglib.runset import RunSet

__all__ = ["read_hilbench", "read_hilbench_registries", "is_hilbench_run", "registry_task_records",
           "ask_human_question", "invalid_pass_reason", "INVALID_REASONS", "MODES", "CSV_COLUMNS", "HICCUP",
           "IRRELEVANT", "MAX_ANSWERED", "ask_prf", "model_safe"]


# strict returns the run set alone, lenient (strict=False) the run set and its errors
@overload
def read_hilbench(path: str | os.PathLike[str], *, registries: str | os.PathLike[str] | None = None,
                  strict: Literal[True] = True, quiet: bool = False) -> RunSet: ...
@overload
def read_hilbench(path: str | os.PathLike[str], *, registries: str | os.PathLike[str] | None = None,
                  strict: Literal[False], quiet: bool = False) -> tuple[RunSet, list[LoadError]]: ...
@overload
def read_hilbench(path: str | os.PathLike[str], *, registries: str | os.PathLike[str] | None = None,
                  strict: bool, quiet: bool = False) -> RunSet | tuple[RunSet, list[LoadError]]: ...
@guard("HIL-Bench output")
def read_hilbench(path: str | os.PathLike[str], *, registries: str | os.PathLike[str] | None = None,
                  strict: bool = True, quiet: bool = False) -> RunSet | tuple[RunSet, list[LoadError]]:
    """Read HIL-Bench output (``run_hil_bench.py`` or the ``hil sql|swe`` CLI) into a RunSet.

    Parameters
    ----------
    path : path-like
        A run folder (``<out>/<run>/``), or a folder holding several (an output root, a
        ``--task-type both`` root with ``<run>_sql/``, ``<run>_swe/`` and the combined ``<run>/``).
    registries : path-like, optional
        Blocker registries (see :func:`registry_task_records`); they give every task
        its registered blockers. Without them, a task's blockers come from the ask_human
        server log of any instance that asked (the log lists every registered blocker);
        tasks nobody asked about then have no task record, and recall over all runs
        says so.
    strict : bool, default True
        Raise on the first problem; with False, return ``(runset, errors)``.

    Returns
    -------
    RunSet
        One run per instance and pass (the harness's pass-level rows, padded passes included);
        passes the harness leaves out of its statistics are ``error`` runs with
        ``meta.error_reason``. ``docs/importers.md`` gives the mapping field by field.
    """
    path = Path(path)
    require_exists(path)
    run_dirs = _run_dirs(path)
    if not run_dirs:
        raise FormatError(f"{path}: not a HIL-Bench run folder (no public_metrics/pass_level_metrics.csv or"
                          " batch_config.json here or below)")
    out = Collected("HIL-Bench run")
    task_records: list[tuple[Path, dict[str, Any]]] = []
    registry_answers: dict[str, dict[str, str]] = {}
    registered = set()
    if registries is not None:
        for file, record in registry_task_records(Path(registries)):
            task_records.append((file, record))
            registered.add((record["suite"], record["task_id"]))
            registry_answers[record["task_id"]] = (record.get("meta") or {}).get("resolutions", {})
    folders, refused = [], set()
    for run_dir in run_dirs:
        try:
            folders.append(_RunFolder(run_dir))
        except FormatError as exc:
            out.reject(run_dir, None, None, f"cannot read this run folder: {exc}")
            refused.add(run_dir)
    # the per-pass trees first: a combined --task-type both CSV leaves out the rows of each sibling run folder,
    # read or refused, and must know which
    read = {f.dir: _read_folder(f, out, registry_answers, None) for f in folders if f.has_tree()}
    trees = {d for d, got in read.items() if not isinstance(got, FormatError)}
    refused |= set(read) - trees
    blockers_seen: dict[tuple[str, str], tuple[Path, list[str]]] = {}
    for folder in folders:
        got = read[folder.dir] if folder.dir in read else _read_folder(folder, out, registry_answers, (trees, refused))
        if isinstance(got, FormatError):
            out.reject(folder.dir, None, None, f"cannot read this run folder: {got}")
            continue
        passes, registered_here = got
        for p in passes:
            record = _record(folder, p)
            if p.traj is not None:
                record[TRANSCRIPT_AT] = transcript_at(p.traj, record.get("questions") or [])
            out.add(p.source[0], p.source[1], record)
            if p.mode == "ask_human" and p.task in registered_here:
                blockers_seen.setdefault((p.suite, p.task), registered_here[p.task])
    for file, record in task_records:
        out.add(file, 1, record)
    for (suite, task), (file, ids) in sorted(blockers_seen.items()):
        if (suite, task) not in registered:
            out.add(file, 1, {"record": "task", "benchmark": "hil-bench", "suite": suite, "task_id": task,
                              "blockers": [{"id": i} for i in ids],
                              "meta": {"blockers_from": "ask_human server log"}})
    return finish(out, path, strict=strict)


def _read_folder(folder: _RunFolder, out: Collected, registry_answers: dict[str, dict[str, str]],
                 siblings: tuple[set[Path], set[Path]] | None) -> tuple[list[Any], dict[str, Any]] | FormatError:
    """A run folder's passes (its per-pass tree's when ``siblings`` is None, else its CSV's without the rows of the
    sibling run folders read and refused) and the blockers its server log registers, or the error that refuses it."""
    try:
        passes = _tree_passes(folder, out) if siblings is None else _csv_passes(folder, out, *siblings)
        _attribute(folder, passes, registry_answers)
        return passes, folder.logs.registered()
    except FormatError as exc:
        return exc


def _is_hilbench(path: Path) -> bool:
    """A HIL-Bench run folder, or an output root of them (one or two levels down)."""
    children = subfolders(path)
    return is_dir(path) and (is_hilbench_run(path) or any(is_hilbench_run(p) for p in children)
                             or any(is_hilbench_run(q) for p in children for q in subfolders(p)))


def _read(path: Path, options: ReadOptions, files: list[Path] | None = None) -> tuple[RunSet, list[LoadError]]:
    registries = path / "registries"
    return read_hilbench(path, registries=registries if registries.is_dir() else None, strict=False)


READER = Reader(
    "hil-bench", "a run_hil_bench.py or `hil sql|swe` run folder (batch_config.json, the per-pass"
    " <model>/<mode>/pass_<k>/ tree, public_metrics/pass_level_metrics.csv), or a folder of them (an output"
    " root, a --task-type both root); blocker registries in a 'registries' subfolder are read too",
    _read, claims=_is_hilbench, transcripts={"hil-bench": read_transcript})
