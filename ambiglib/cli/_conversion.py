"""``ambiglib convert``: a run log rewritten as canonical Parquet or JSON Lines, never over what may be another log,
and checked by reading the copy back."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ambiglib.cli._arguments import mapping
from ambiglib.cli._messages import say
from ambiglib.errors import AmbiglibError, FormatError

if TYPE_CHECKING:
    from ambiglib.runset import RunSet


def convert(args: argparse.Namespace) -> int:
    """``ambiglib convert``: the log rewritten as canonical Parquet or JSON Lines, where it may be written, and said
    written only once the copy reads back as the log read."""
    from ambiglib.loading._load import load

    partition_by = tuple(c.strip() for c in args.partition_by.split(",") if c.strip()) if args.partition_by else ()
    if partition_by and args.to == "jsonl":
        print("ambiglib: --partition-by needs --to parquet", file=sys.stderr)
        return 2
    out = Path(args.out)
    as_jsonl = out.name.endswith((".jsonl", ".jsonl.gz"))
    to = args.to or ("jsonl" if as_jsonl else "parquet")
    if as_jsonl and to != "jsonl":
        print(f"ambiglib convert: --out {args.out} names a JSON Lines file, but --to is {to}: drop --to, or give"
              " --out a folder for Parquet", file=sys.stderr)
        return 2
    problem = _convert_target(out, Path(args.runs), to, args.force)
    if problem:
        say(f"ambiglib convert: --out {out}: {problem}", sys.stderr)
        return 1
    runset = load(args.runs, quiet=args.quiet, **mapping(args))
    existed = out.exists()
    try:
        written = runset.to_jsonl(out) if to == "jsonl" else runset.to_parquet(out, partition_by=partition_by)
    except OSError as exc:  # a read-only folder, a full disk: each file is written aside and renamed in whole
        if not existed and out.is_dir() and not any(out.iterdir()):
            out.rmdir()  # the folder this run made, empty: nothing partial is left
        say(f"ambiglib convert: {exc.filename or out}: cannot be written ({exc.strerror or exc}); nothing was"
            " written over", sys.stderr)
        return 1
    except FormatError as exc:  # what a killed write left beside --out, or what appeared in it while this wrote
        say(f"ambiglib convert: {exc}", sys.stderr)
        return 1
    problem = _read_back(written, runset)
    if problem:  # never "wrote" for a copy that does not load as the log read
        if not existed:  # this run made it: nothing wrong is left under the name
            import shutil

            if Path(written).is_dir():
                shutil.rmtree(written)
            else:
                Path(written).unlink()
        say(f"ambiglib convert: {written}: does not read back as the log it was converted from ({problem}); "
            + ("removed" if not existed else "it is left as written: do not use it"), sys.stderr)
        return 1
    say(f"wrote {written}")
    return 0


def _read_back(written: Path, runset: RunSet) -> str | None:
    """Why the converted copy at ``written`` is not the log ``runset`` holds: it does not load (strictly), or a
    frame differs (its rows, or a value of a column the copy keeps: every one but where each row was read, which
    names the copy). None when it loads as the same log."""
    from ambiglib.loading._load import load

    try:
        again = load(written, quiet=True)
    except AmbiglibError as exc:
        return str(exc)
    have = again.frames()
    for name, frame in runset.frames().items():
        copy = have[name]
        if len(frame) != len(copy):
            return f"{name}: {len(frame):,} read, {len(copy):,} in the copy"
        for column in frame.columns:
            if column in _WHERE_READ:
                continue
            if column not in copy.columns or not frame[column].reset_index(drop=True).equals(
                    copy[column].reset_index(drop=True)):
                return f"{name}: column {column} differs from the log read"
    return None


#: columns that say where a row was read (which a copy names afresh), not what it holds
_WHERE_READ = frozenset({"source", "transcript_at", "log"})


def _convert_target(out: Path, runs: Path, to: str, force: bool) -> str | None:
    """Why ``convert`` will not write to ``out`` (None: it may). Never into the ``--runs`` folder (the next load
    would read both); never over an existing file or run log unless ``--force`` (it may be another log); never
    into a folder holding anything but a run log's files, even with ``--force``."""
    real_out, real_runs = out.resolve(), runs.resolve()
    if runs.is_dir() and (real_out == real_runs or real_runs in real_out.parents):
        return (f"lies inside --runs {runs}: the next load of {runs} would read the converted copy as a second copy"
                " of the log; write it outside")
    if not (out.exists() or out.is_symlink()):
        return None
    again = " (it is the log being converted)" if real_out == real_runs else ""
    if to == "jsonl" and out.name.endswith((".jsonl", ".jsonl.gz")):
        if out.is_dir() or out.is_symlink() or not out.is_file():
            return "exists and is not a regular file"
        return None if force else (
            f"exists{again}: convert does not write over a file, which may be another log; choose a new name, or add"
            " --force to replace it (the new file is written whole before it replaces the old)")
    if out.is_symlink() or not out.is_dir():
        return "exists and is not a folder"
    from ambiglib.runlog._whole_writes import foreign_entries

    foreign = foreign_entries(out)  # a run log's files of any layout are replaced whole, one layout by another
    if foreign:
        return (f"holds what is not a run log's ({', '.join(foreign[:5])}{', ...' if len(foreign) > 5 else ''});"
                " convert writes only into a new folder or over a run log it wrote: choose another --out")
    if any(out.iterdir()) and not force:
        return ("holds a run log already, which may be another log's; choose a new folder, or add --force to"
                " replace it (the new log is written whole beside it, then swapped in)")
    return None
