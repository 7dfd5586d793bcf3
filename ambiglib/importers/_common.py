"""What every importer shares: reading native files with clear errors, collecting
canonical records with the native ``file:line`` they came from, and building the RunSet."""

from __future__ import annotations

import csv
import dataclasses
import json
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence

from ..errors import FormatError, LoadError
from ..runlog import read_records
from ..runset import RunSet, build_runset


def read_json(path: Path) -> Any:
    """Parse a native JSON file; a clear FormatError names the file, line and column."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise FormatError(f"{path}: not valid UTF-8 (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})") from exc
    except OSError as exc:
        raise FormatError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg} at column {exc.colno})") from exc


def read_jsonl(path: Path) -> Iterator[tuple[int, Any]]:
    """Yield (line number, object) for each non-blank line of a native JSON Lines file."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise FormatError(f"{path}: cannot be read ({exc})") from exc
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield lineno, json.loads(line)
        except json.JSONDecodeError as exc:
            raise FormatError(f"{path}:{lineno}: not valid JSON ({exc.msg} at column {exc.colno})") from exc


def read_csv(path: Path, required: Sequence[str]) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield (line number, row) of a native CSV; missing columns are a FormatError naming them."""
    csv.field_size_limit(1 << 30)
    try:
        fh = open(path, newline="", encoding="utf-8")
    except OSError as exc:
        raise FormatError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    with fh:
        reader = csv.DictReader(fh)
        try:
            header = reader.fieldnames or []
        except (csv.Error, UnicodeDecodeError) as exc:
            raise FormatError(f"{path}:1: not a readable CSV header ({exc})") from exc
        missing = [c for c in required if c not in header]
        if missing:
            raise FormatError(
                f"{path}:1: missing column(s) {', '.join(missing)}; expected {', '.join(required)}"
                f" (found {', '.join(header) if header else 'no header'})"
            )
        try:
            for row in reader:
                yield reader.line_num, row
        except (csv.Error, UnicodeDecodeError) as exc:
            raise FormatError(f"{path}:{reader.line_num}: not valid CSV ({exc})") from exc


class RowError(Exception):
    """One native row (or run folder) cannot become a record: ``field`` and what is wrong."""

    def __init__(self, field: str | None, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


@dataclass
class Collected:
    """Canonical records gathered from a native layout, and what could not be taken."""

    layout: str
    records: dict[str, list[tuple[int, dict[str, Any]]]] = field(default_factory=dict)
    errors: list[LoadError] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)  # reason -> count (rows that are not runs)

    def add(self, file: Path | str, line: int, record: dict[str, Any]) -> None:
        self.records.setdefault(str(file), []).append((line, record))

    def reject(self, file: Path | str, line: int | None, fld: str | None, message: str,
               record: str = "run", kind: str = "format") -> None:
        where = f"{file}:{line}" if line is not None else str(file)
        self.errors.append(LoadError(str(file), line, fld, f"{where}: {message}", kind, record))  # type: ignore[arg-type]

    def skip(self, reason: str, n: int = 1) -> None:
        self.skipped[reason] += n

    @contextmanager
    def row(self, file: Path | str, line: int | None, reading: str) -> Iterator[None]:
        """Turn one native row's problem into a rejection naming it, and go on with the next row.

        ``reading`` says what the row needed when one of its files cannot be read
        ("this run's files", ...).
        """
        try:
            yield
        except RowError as exc:
            self.reject(file, line, exc.field, exc.message)
        except FormatError as exc:
            self.reject(file, line, None, f"cannot read {reading}: {exc}")


def finish(collected: Collected, root: Path, *, strict: bool, require_runs: bool = True
           ) -> RunSet | tuple[RunSet, list[LoadError]]:
    """Validate the records against the run-log contract and build the RunSet.

    Records keep the native ``file:line`` they came from, both in ``runs.source``
    and in any error. ``strict`` raises the first problem; otherwise the problems
    are returned. Rows that are not runs at all (e.g. a harness's own
    ``skipped_existing`` entries) are counted in ``RunSet.skipped``, never dropped unseen.
    """
    reads = []
    for file, items in collected.records.items():
        items = sorted(items, key=lambda x: x[0])
        reads.append(read_records([r for _, r in items], file, lines=[line for line, _ in items]))
    n_runs = sum(r.n_run_records for r in reads)
    if require_runs and n_runs == 0 and not collected.errors:
        raise FormatError(f"{root}: no runs found in this {collected.layout} layout"
                          + (f" ({_skips(collected.skipped)})" if collected.skipped else ""))
    runset, dup_errors = build_runset(reads)
    errors = collected.errors + [e for r in reads for e in r.errors] + dup_errors
    runset = dataclasses.replace(runset, skipped=dict(collected.skipped))
    if strict and errors:
        raise errors[0].to_exception(len(errors) - 1)
    return runset if strict else (runset, errors)


def _skips(skipped: Counter) -> str:
    return "; ".join(f"{n} skipped: {reason}" for reason, n in sorted(skipped.items()))
