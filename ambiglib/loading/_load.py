"""``ambiglib.load``: the run log's readers asked which claims the path, each log read, then merged and checked here.

The readers are the importers' (``ambiglib.importers.READERS``: one per layout, with its detection, its read and
its transcript reader); the walk of a folder is :mod:`ambiglib.loading._discovery`, the merging of several logs
:mod:`ambiglib.loading._merging`. What stays here is what every layout shares: the arguments, what this user cannot read,
filters, the files not read and counted, several logs by label, strict or lenient.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, get_args, overload

from ambiglib.errors import AmbiglibError, ArgumentError, FormatError, LoadError
from ambiglib.importers import READERS, Reader, ReadOptions
from ambiglib.importers._canonical import JSONL, STORE, store_values
from ambiglib.loading._discovery import Found, find_logs
from ambiglib.loading._labels import check_label, labelled
from ambiglib.loading._merging import Origin, merge
from ambiglib.runlog._files import one_listing
from ambiglib.runlog._filters import Filters
from ambiglib.runlog._jsonl import Engine, require_exists
from ambiglib.runset import RunSet

__all__ = ["load"]


def _read_found(path: Path, found: Found, options: ReadOptions) -> tuple[RunSet, list[LoadError]]:
    """Read the run logs the walk found in ``path`` (or ``path`` itself), each by its reader (several are merged),
    and count what the walk found but did not read."""
    runset, errors = _read_units(path, found.units, options)
    skipped = dict(runset.skipped)
    if found.writes:
        reason = (f"folder a write of a run log's folder made beside it (running, or killed: the next write into"
                  f" that folder removes it), not read as a log (first: {_inside(found.writes[0], path)})")
        skipped[reason] = skipped.get(reason, 0) + len(found.writes)
    if found.strays and found.units and not any(reader.copy_of for reader, _ in found.units):
        reason = (f"file in the log's folder that is no run log of any layout ambiglib reads, not read (first:"
                  f" {_inside(found.strays[0], path)})")
        skipped[reason] = skipped.get(reason, 0) + len(found.strays)
    if found.repeats:  # the files' second names, which no reader was given
        link, read = found.repeats[0]
        reason = (f"second name of a file the load read under another (a link), not read twice (first:"
                  f" {_inside(link, path)} -> {_inside(read, path)})")
        skipped[reason] = skipped.get(reason, 0) + len(found.repeats)
    if skipped != runset.skipped:
        object.__setattr__(runset, "skipped", skipped)  # the same run set: what the load worked out is kept
    return runset, errors


def _inside(file: Path, folder: Path) -> Path:
    """``file`` as named inside ``folder`` (whole when it lies outside it)."""
    return file.relative_to(folder) if file.is_relative_to(folder) else file


def _read_units(path: Path, units: list[tuple[Reader, Path]], options: ReadOptions) -> tuple[RunSet, list[LoadError]]:
    """The logs the walk found, each read by its reader and merged; or ``path`` read by the reader that recognises
    it; else a FormatError listing every layout."""
    options = replace(options, filters=None)  # (a store in a folder is read whole, and filtered with the rest)
    kinds = {reader.name for reader, _ in units}
    # several logs in one folder, or files of one layout as the walk found them (not detecting every layout again,
    # slow on a folder of many files): each is read by its own reader, all are loaded
    folders = sum(reader.is_file is None for reader, _ in units)
    several = len(kinds) > 1 or folders > 1 or (units and not folders)
    found = None if several else next((reader for reader in READERS if reader.recognises(path)), None)
    if several or (units and found is None):  # (or one log below a folder that is none itself: a Parquet copy's)
        parts: list[tuple[RunSet, list[LoadError]]] = []
        origins: list[Origin] = []
        # the logs that are files, each layout's read together (a task is described by every log it was run in),
        # canonical JSON Lines first; then each folder's log
        for reader in sorted({r for r, _ in units if r.is_file is not None}, key=lambda r: (r is not JSONL,
                                                                                              READERS.index(r))):
            parts.append(reader.read(path, options, files=[p for r, p in units if r is reader]))
            origins.append(None)
        for reader, unit in units:
            if reader.is_file is None:
                parts.append(reader.read(unit, options))
                origins.append((reader.copy_of, unit) if reader.copy_of else None)
        return parts[0] if len(parts) == 1 else merge(parts, origins)
    if found is not None:
        return found.read(path, options)
    known = "\n".join(f"  - {reader.name}: {reader.description}" for reader in READERS)
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
        :mod:`ambiglib.runlog._filters`). The result equals ``load(path).where(filters)``; on a
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
    from ambiglib.runlog._filters import normalize
    from ambiglib.runlog._frames import COLUMNS

    if not isinstance(engine, str) or engine not in get_args(Engine):  # ("duckdb" read the log as "auto" did)
        raise ArgumentError(f"load: engine is how JSON Lines are parsed, one of {', '.join(map(repr, get_args(Engine)))}"
                            f" (got {engine!r})")
    logs = _logs_of(path)  # every label and path checked before anything is read
    dnf = normalize(filters, COLUMNS["runs"])  # a bad filter fails before anything is read
    return _load_logs(logs, strict=strict, quiet=quiet, engine=engine, dnf=dnf, ask_tools=ask_tools, scorer=scorer,
                      label_facets=label_facets, benchmark=benchmark)


def _load(path: Path, *, strict: bool, options: ReadOptions, unmatched: list[RunSet | Path],
          origins: list[Origin]) -> tuple[RunSet, list[LoadError]]:
    """One log read: its run set and the records it rejected (``strict`` only refuses, before anything is read, a
    file or folder this user cannot read)."""
    # origins: where the log's origin is noted, for a merge with others (merging.Origin). unmatched: where a filter
    # that keeps none of this log's runs is noted (the log whose values it names: the run set read, or a store's
    # path, whose partitions are listed only then); the caller warns of it once the logs are merged (for several
    # logs loaded together, when none keeps any). What this user cannot read is named
    # before anything is read: strict, the first is the error; lenient, each is an error in the list and the rest is
    # read (folders that cannot be listed are looked past, not skipped without a word)
    dnf = options.filters
    store = STORE.recognises(path)  # only the partitions the filter can match are read, then exactly its rows
    found = find_logs(path, logs=not store)
    origins.append(found.origin)
    if strict and found.blocked:
        (first, why), more = found.blocked[0], len(found.blocked) - 1
        raise FormatError(f"{first}: {why}" + (f" (and {more} more file{'s' if more > 1 else ''} or folder"
                                                f"{'s' if more > 1 else ''} this user cannot read)" if more else ""))
    runset, errors = STORE.read(path, options) if store else _read_found(path, found, options)
    if dnf is not None and not store:
        whole, runset = runset, runset.where(dnf)
        if len(runset.runs) == 0 and len(whole.runs):
            unmatched.append(whole)
    elif dnf is not None and len(runset.runs) == 0:
        unmatched.append(path)
    if found.blocked:
        runset, errors = _with_unreadable(runset, errors, found.blocked)
    return runset, errors


def _returned(runset: RunSet, errors: list[LoadError], strict: bool) -> RunSet | tuple[RunSet, list[LoadError]]:
    """What ``load`` gives: strict, the run set or the first error raised; lenient, the run set and its errors,
    the run set saying how many records were rejected (its display shows it)."""
    if strict and errors:
        raise errors[0].to_exception(len(errors) - 1)
    if errors:
        object.__setattr__(runset, "rejected", len(errors))
    return runset if strict else (runset, errors)


def _warn_empty(dnf: list[list[tuple[str, str, Any]]], present: Callable[[str], list[Any]], stacklevel: int = 4
                ) -> None:
    """A filter that keeps no run is most often a typo: say so, with the values the log has."""
    import warnings

    from ambiglib.runlog._filters import matched_nothing

    warnings.warn(matched_nothing(dnf, present), UserWarning, stacklevel=stacklevel)


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


def _in_log(exc: AmbiglibError, label: str) -> AmbiglibError:
    """The same error, its message naming the log it is about."""
    again = type(exc)(f"log {label!r}: {exc}")
    again.error = exc.error
    return again


def _logs_of(path: str | os.PathLike[str] | Mapping[Any, Any]) -> dict[str | None, Path]:
    """The logs ``load`` was given, by label (None for a path alone), each checked: a label (``check_label``), a
    path that is a string or path-like and exists."""
    if not isinstance(path, Mapping):
        require_exists(Path(path))
        return {None: Path(path)}
    if len(path) == 0:
        raise ArgumentError("load: a mapping of log labels to paths needs at least one log (got an empty mapping;"
                            " for one log, give its path)")
    paths: dict[str | None, Path] = {}
    for label, given in path.items():
        check_label(label)
        if not isinstance(given, (str, os.PathLike)):
            raise ArgumentError(f"load: log {label!r}: the path must be a string or path-like (got"
                                f" {type(given).__name__} {given!r})")
        paths[label] = Path(given)
    for label, one in paths.items():  # every path before any is read: a missing one is said at once
        try:
            require_exists(one)
        except AmbiglibError as exc:
            raise _in_log(exc, str(label)) from None
    return paths


def _load_logs(logs: dict[str | None, Path], *, strict: bool, quiet: bool, engine: Engine, dnf: Any,
               ask_tools: Iterable[str] | None, scorer: str | None, label_facets: Mapping[str, str] | None,
               benchmark: str | None) -> RunSet | tuple[RunSet, list[LoadError]]:
    """The logs read, each as a path alone is (:func:`_load`), and, when several are given by label, merged
    (:func:`ambiglib.loading.merge`: their shared tasks once), each log's runs labelled with it
    (:func:`ambiglib.loading._labels.labelled`). A filter on ``log`` is applied to the logs merged; any other is given
    to each log (a partitioned store reads only the partitions it can match), and a filter that keeps no run of
    any log is warned of once. Strict, the first error is raised; lenient, the run set and every error are
    returned."""
    alone = list(logs) == [None]
    on_log = not alone and dnf is not None and any(term[0] == "log" for conj in dnf for term in conj)
    parts: list[tuple[RunSet, list[LoadError]]] = []
    origins: list[Origin] = []
    unmatched: list[RunSet | Path] = []
    inspect = {k: v for k, v in (("ask_tools", ask_tools), ("scorer", scorer), ("label_facets", label_facets),
                                 ("benchmark", benchmark)) if v is not None}
    if isinstance(ask_tools, str):  # one name, not its letters
        inspect["ask_tools"] = [ask_tools]
    options = ReadOptions(quiet=quiet, engine=engine, filters=None if on_log else dnf, inspect=inspect)
    with one_listing():  # each folder walked once, whichever layout's detection or reader looks at it
        for label, path in logs.items():
            try:
                rs, errors = _load(path, strict=strict and alone, options=options, unmatched=unmatched,
                                   origins=origins)
            except AmbiglibError as exc:
                if label is None:  # a path alone: its error as it is
                    raise
                raise _in_log(exc, label) from None
            if label is not None:  # each log's runs in it: the same agent in two logs is two runs
                rs, rejected = labelled(rs, label)
                errors = errors + rejected
            parts.append((rs, errors))
    runset, errors = parts[0] if alone else merge(parts, origins, logs=[str(label) for label in logs])
    if on_log and dnf is not None:
        whole, runset = runset, runset.where(dnf)
        if len(runset.runs) == 0 and len(whole.runs):
            _warn_empty(dnf, lambda c: list(whole.runs[c].dropna().unique()))
    elif dnf is not None and len(runset.runs) == 0 and unmatched:
        _warn_empty(dnf, lambda c: sorted({v for log in unmatched for v in _values(log, c)}, key=str))
    return _returned(runset, errors, strict)


def _values(log: RunSet | Path, column: str) -> list[Any]:
    """The values a log a filter kept nothing of holds in ``column``: its runs', or a store's partitions' (listed
    only now, when a warning names them)."""
    if isinstance(log, Path):
        return store_values(log, column)
    return list(log.runs[column].dropna().unique())
