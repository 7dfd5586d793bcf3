"""Several logs' run sets as one: a run or task met again is an error naming both places, never loaded twice."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ambiglib.errors import LoadError
from ambiglib.runset import RunSet

__all__ = ["merge", "Origin"]

#: Where a part was read, when it is a copy ambiglib wrote (Parquet, a store, a snapshot): the copy's file of runs and
#: of tasks (``Reader.copy_of``) and its folder; errors name its rows by the copy's file and row. None for any other.
Origin = tuple[tuple[str, str], Path] | None


def _where(origin: Origin, source: Any, row: int, frame: int) -> tuple[str, str, int | None]:
    """Where a row was read, as an error names it, with its file and line: its ``source`` (``file:line``), or,
    for a copy ambiglib wrote (Parquet, a store, a snapshot), the copy's file and row and the file it was
    written from. Called only for the rows an error names."""
    if origin is None:
        file, _, line = str(source).rpartition(":")
        return str(source), file, int(line) if line.isdigit() else None
    file = str(origin[1] / origin[0][frame])
    return f"{file} row {row + 1} (written from {source})", file, row + 1


def merge(parts: list[tuple[RunSet, list[LoadError]]], origins: Sequence[Origin] | None = None,
           logs: Sequence[str] | None = None) -> tuple[RunSet, list[LoadError]]:
    """One run set of several logs; a run or task met again in a later log is an error naming both (a copy
    ambiglib wrote by its own file and row: ``_where``, worked out only for the rows an error names), and the
    repeat (with its questions and labels) is not loaded.

    ``logs``: the label of each part, for logs of one benchmark loaded together (``load`` of a mapping). Their
    tasks are the benchmark's, shared by every log: a task described again in a later log is no error when the
    descriptions agree (the first is kept), and an error naming both places and what differs when they do not."""
    errors: list[LoadError] = []
    kept: list[dict[str, pd.DataFrame]] = []
    # each earlier part's kept runs, as (origin, run ids, sources, rows): where a run was first seen is worked out
    # only for a run met again (an error names it); the run ids of them all, to find those
    prior: list[tuple[Origin, np.ndarray, pd.Series, np.ndarray]] = []
    seen = pd.Index([], dtype=object)
    first_task: dict[tuple[Any, ...], tuple[Origin, Any, int]] = {}
    first_part: dict[tuple[Any, ...], int] = {}  # (logs given) the part each task was first described in
    # (logs given) each part's task descriptions, worked out only for a part whose tasks met again differ somewhere
    described: list[dict[tuple[Any, ...], dict[str, Any]] | None] = []
    last_rows: list[dict[tuple[Any, ...], int]] = []  # (logs given) each part's row of each task (its last, as there)

    def description(part: int) -> dict[tuple[Any, ...], dict[str, Any]]:
        found = described[part]
        if found is None:
            found = described[part] = _task_descriptions(parts[part][0])
        return found

    key = ["benchmark", "suite", "variant_id"]
    for i, ((rs, errs), origin) in enumerate(zip(parts, origins or [None] * len(parts))):
        errors += errs
        runs, tasks = rs.runs, rs.tasks
        ids = runs["run_id"]
        again = ids.isin(seen).to_numpy(dtype=bool)
        for at in np.flatnonzero(again):
            run_id = ids.iat[at]
            where, file, line = _where(origin, runs["source"].iat[at], int(at), 0)
            errors.append(LoadError(file, line, None, f"{where}: duplicate run {run_id!r}: first seen at"
                                    f" {_where(*_first_seen(prior, run_id), 0)[0]}", "schema", "run"))
        dropped = ids[again]
        task_keys = list(map(tuple, tasks[key].astype(object).to_numpy()))
        t_again = [k in first_task for k in task_keys]
        alike = False  # (logs given) every task met again described as where it was first: no error to look for
        if logs is not None:
            described.append(None)
            last_rows.append({k: row for row, k in enumerate(task_keys)})
            alike = _described_alike([parts[j][0] for j in range(i + 1)], last_rows, i,
                                     [k for k, a in zip(task_keys, t_again) if a], first_part)
        for row, (k, is_again) in enumerate(zip(task_keys, t_again)):
            if is_again:
                if alike:
                    continue
                differ = [] if logs is None else _differences(description(first_part[k])[k], description(i)[k])
                if logs is not None and not differ:  # the benchmark's task, described alike: loaded once
                    continue
                where, file, line = _where(origin, tasks["source"].iat[row], row, 1)  # (only for an error)
                first = _where(*first_task[k], 1)[0]
                if logs is None:
                    errors.append(LoadError(file, line, None, f"{where}: duplicate task record"
                                            f" ({', '.join(map(str, k))}): first seen at {first}", "schema", "task"))
                else:  # the benchmark's task, described otherwise by this log: which description is right?
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
        if i == len(parts) - 1:  # what the last part saw is looked up by no later part
            continue
        # where each was first seen, as (origin, source, row): named only if it is met again
        rows = np.flatnonzero(~again)
        prior.append((origin, ids.to_numpy(dtype=object)[rows], runs["source"], rows))
        seen = seen.append(pd.Index(prior[-1][1], dtype=object))
        first_task.update((k, (origin, s, r)) for r, (k, s, a) in enumerate(zip(task_keys, tasks["source"], t_again))
                          if not a)
        first_part.update((k, i) for k, a in zip(task_keys, t_again) if not a)
    frames = {name: pd.concat([k[name] for k in kept], ignore_index=True)
              for name in ("runs", "questions", "labels", "tasks", "blockers")}
    skipped: dict[str, int] = {}
    for rs, _ in parts:
        for reason, n in rs.skipped.items():
            skipped[reason] = skipped.get(reason, 0) + n
    return RunSet(**frames, skipped=skipped), errors


def _first_seen(prior: list[tuple[Origin, np.ndarray, Any, np.ndarray]], run_id: Any) -> tuple[Origin, Any, int]:
    """Where a run met again was first seen: the origin, ``source`` and row of the earliest part that kept it."""
    for origin, ids, sources, rows in prior:
        hit = np.flatnonzero(ids == run_id)
        if len(hit):
            row = int(rows[hit[0]])
            return origin, sources.iat[row], row
    raise KeyError(run_id)  # (never: a run met again was kept by an earlier part)


#: what describes a task, compared when logs loaded together both describe it (its key and ``source`` aside)
_DESCRIPTION = ("task_id", "ambiguity_class", "dimensions", "strategy", "meta")


def _task_descriptions(rs: RunSet) -> dict[tuple[Any, ...], dict[str, Any]]:
    """Each task of a run set by its key: its :data:`_DESCRIPTION` fields and its blockers (as a set: their
    order in the record is not part of the task), as plain Python values."""
    import pyarrow as pa

    key = ["benchmark", "suite", "variant_id"]
    rows = pa.Table.from_pandas(rs.tasks[[*key, *_DESCRIPTION]], preserve_index=False).to_pylist()
    blockers: dict[tuple[Any, ...], list[tuple[Any, Any, Any]]] = {}
    for b in pa.Table.from_pandas(rs.blockers, preserve_index=False).to_pylist():
        blockers.setdefault(tuple(b[c] for c in key), []).append((b["blocker_id"], b["type"], b["subtype"]))
    out = {}
    for row in rows:
        k = tuple(row[c] for c in key)
        out[k] = {**{c: row[c] for c in _DESCRIPTION}, "blockers": sorted(blockers.get(k, []), key=repr)}
    return out


def _described_alike(parts: list[RunSet], last_rows: list[dict[tuple[Any, ...], int]], part: int,
                     again: list[tuple[Any, ...]], first_part: dict[tuple[Any, ...], int]) -> bool:
    """Whether every task of ``parts[part]`` met ``again`` is described as where it was first (``first_part``), its
    fields and blockers compared in Arrow, which finds values equal only where Python's ``==`` does: True means
    :func:`_differences` would find nothing (comparing thousands of tasks as Python values took most of the merge);
    False (a difference, or types Arrow cannot compare) leaves each task to :func:`_differences`."""
    import pyarrow as pa
    import pyarrow.compute as pc

    key = ["benchmark", "suite", "variant_id"]
    by_part: dict[int, list[tuple[Any, ...]]] = {}
    for k in again:
        by_part.setdefault(first_part[k], []).append(k)

    def described(j: int, keys: list[tuple[Any, ...]]) -> pa.Table:
        tasks = pa.Table.from_pandas(parts[j].tasks[[*key, *_DESCRIPTION]], preserve_index=False)
        return tasks.take(pa.array([last_rows[j][k] for k in keys], pa.int64()))

    def blockers(j: int, variants: pa.Array) -> pa.Table:
        # the blockers of every task with one of these variant ids (of these tasks, and maybe others': the same
        # rows of both parts are compared, and each row holds its task's key, so more rows hide no difference)
        table = pa.Table.from_pandas(parts[j].blockers[[*key, "blocker_id", "type", "subtype"]], preserve_index=False)
        table = table.filter(pc.is_in(table["variant_id"], value_set=variants))
        return table.sort_by([(c, "ascending") for c in table.column_names])  # their order is not the task's

    try:
        for first, keys in by_part.items():
            theirs, mine = described(first, keys), described(part, keys)
            if not theirs.equals(mine):
                return False
            variants = theirs["variant_id"].combine_chunks()
            if not blockers(first, variants).equals(blockers(part, variants)):
                return False
    except (pa.ArrowException, TypeError, ValueError):  # a type Arrow cannot sort, match or convert: one by one
        return False
    return True


def _differences(first: dict[str, Any], again: dict[str, Any]) -> list[str]:
    """The fields in which two descriptions of one task differ (none: the same task)."""
    return [name for name in first if first[name] != again[name]]
