"""Corrupt run logs at random and check what ``ambiglib.load`` makes of them.

Used by ``tests/test_fuzz.py`` (a bounded run, seconds) and ``bench/fuzz.py`` (a long
run printing its counts). Each case copies nothing: a worker process keeps its own
working copy of one source, applies one mutation, loads, checks the outcome against
the oracles below and undoes the mutation. Cases run in a child process so that a
crash (a signal) or a hang (a per-case alarm) is observed, not suffered.

Sources
    ``jsonl``, ``jsonl.gz``  canonical JSON Lines (``data/example``)
    ``parquet``             ``RunSet.to_parquet`` of the same log
    ``store``               the same log as a store partitioned by benchmark and model
    ``snapshot``            the report's snapshot of it (Arrow IPC files, verified by their SHA-256)
    ``hil-bench``, ``ambig-ds``, ``lhaw``  the native trees of ``data/example-native``
    ``inspect``             three Inspect AI logs Inspect wrote (``tests/fixtures/inspect``), damaged as a zip
                            can be (``tests/fuzzing_inspect.py``)
    ``tau-bench``           τ-bench's published GPT-4o airline trajectories (``tests/fixtures/tau-bench``), cut to
                            its first 40 records
    ``ambig-swe``           Ambig-SWE's published experiments/ files of one model, Haiku (``tests/fixtures/ambig-swe``):
                            the three ask-detection files, the qa pairs, the judge's CSV and the resolve CSV

Oracles (a case fails with the first that does not hold)
    ``escape:<Type>``   anything but an ``AmbiglibError`` came out of ``load``
    ``crash``           the process died (a signal, e.g. SIGSEGV)
    ``hang``            the case took longer than its time limit
    ``count``           canonical JSONL, lenient: runs + tasks + rejected records != records in the file
    ``engines``         canonical JSONL: the Arrow and the line-by-line engines disagree
    ``roundtrip``       what was loaded, written as JSONL, does not load back equal
    ``silent-change``   a run whose files the mutation damaged loads with other values and no error
    ``silent-drop``     runs disappear and no error or counted skip accounts for them
    ``accepted``        a mutation that makes the log invalid was loaded without an error
                        (for a snapshot, whose every byte is checked: any change of a byte)

Permissions: a worker that runs as root goes on as an unprivileged user (``as_user``) once it has made
its working copy, so that ``chmod 000`` (``mutate_permissions``) is damage it sees, as a user would.

Time limits: each case has ``CASE_SECONDS`` in its worker (an alarm, for a hang in Python) and the
parent kills a worker whose case runs ``KILL_AFTER`` seconds more (a hang inside Arrow, which no
alarm interrupts), records the hang and goes on in a new worker; the whole run has a limit too
(``run(..., total_seconds=)``), so a fuzz run never outlives its budget.

Run one worker by hand: ``python tests/fuzzing.py <source> <seed> <start> <count>`` (in a folder of
its own, removed at its end; ``run`` makes each worker's folder and removes it, killed or not).
"""

from __future__ import annotations

import gzip
import importlib
import json
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "data" / "example"
NATIVE = ROOT / "data" / "example-native"
SOURCES = ("jsonl", "jsonl.gz", "parquet", "store", "snapshot", "hil-bench", "ambig-ds", "lhaw", "inspect",
           "tau-bench", "ambig-swe")
CASE_SECONDS = 20
#: A case that runs this much longer than its alarm is killed by the parent.
KILL_AFTER = 10


# ----------------------------------------------------------------------------- random values


def deep(depth: int, rng: random.Random) -> str:
    """A JSON value nested ``depth`` deep (lists or objects)."""
    if rng.random() < 0.5:
        return "[" * depth + "1" + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


def hostile_json(rng: random.Random) -> str:
    """A JSON text likely to break a reader: deep, huge, non-finite, wrong-typed."""
    kind = rng.choice(["deep", "bigint", "bigfloat", "inf", "type", "type", "string", "neg"])
    if kind == "deep":
        return deep(rng.choice([50, 900, 1100, 5000, 20000]), rng)
    if kind == "bigint":
        return rng.choice(["1", "-1"]) + "9" * rng.choice([20, 309, 400, 4400, 5000])
    if kind == "bigfloat":
        return rng.choice(["1e400", "-1e400", "1e-400", "123456789e999"])
    if kind == "inf":
        return rng.choice(["Infinity", "-Infinity", "NaN"])
    if kind == "string":
        return json.dumps(rng.choice(["", "x", "1_0", "../../../etc/passwd", "/etc/passwd", "<b>x</b>",
                                      "=HYPERLINK(\"x\")", "\u0000", "\ud800", "a" * 5000]))
    if kind == "neg":
        return rng.choice(["-3", "-0.5", "0", "5", "1.5", "1e300"])
    return rng.choice(["null", "true", "false", "[]", "{}", "[1,2]", '{"x":1}', '"text"', "0", "1.5"])


def json_spans(text: str) -> list[tuple[int, int]]:
    """Start and end offsets of JSON scalar values in a text (a cheap scan, not a parser)."""
    spans, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            k = j + 1
            while k < n and text[k] in " \t\r\n":
                k += 1
            if k < n and text[k] != ":":  # a value, not a key
                spans.append((i, j + 1))
            i = j + 1
        elif c in "-0123456789tfn":
            j = i
            while j < n and text[j] not in ",]}\n \t\r":
                j += 1
            spans.append((i, j))
            i = j
        else:
            i += 1
    return spans


# ----------------------------------------------------------------------------- mutations


@dataclass
class Mutation:
    name: str
    file: Path | None = None
    detail: str = ""
    corrupting: bool = True   # the log is damaged: no run may change silently
    invalid: bool = False     # the log is certainly invalid: loading it without an error is a failure
    undo: Callable[[], None] = lambda: None


def _snapshot(path: Path) -> Callable[[], None]:
    """Return a function restoring ``path`` (a file) as it is now."""
    data = path.read_bytes()
    mode = path.stat().st_mode

    def undo() -> None:
        if path.is_symlink() or path.is_file() or path.is_fifo():
            path.unlink()
        elif path.is_dir():
            shutil.rmtree(path)
        path.write_bytes(data)
        os.chmod(path, stat.S_IMODE(mode))

    return undo


def mutate_bytes(rng: random.Random, file: Path) -> Mutation:
    undo = _snapshot(file)
    data = bytearray(file.read_bytes())
    kind = rng.choice(["bitflip", "truncate", "garbage", "delete-range", "dupline", "value", "value", "value"])
    if kind == "bitflip" and data:
        i = rng.randrange(len(data))
        data[i] ^= 1 << rng.randrange(8)
        detail = f"byte {i}"
    elif kind == "truncate" and data:
        i = rng.randrange(len(data))
        del data[i:]
        detail = f"at {i}"
    elif kind == "garbage":
        i = rng.randrange(len(data) + 1)
        data[i:i] = rng.choice([b"\x00", b"{", b"]", b'"', b"\n", b"\xff\xfe", b"\r\n\r\n", b",,"])
        detail = f"at {i}"
    elif kind == "delete-range" and data:
        i = rng.randrange(len(data))
        j = min(len(data), i + rng.randrange(1, 200))
        del data[i:j]
        detail = f"{i}:{j}"
    elif kind == "dupline" and b"\n" in data:
        lines = bytes(data).split(b"\n")
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
        data = bytearray(b"\n".join(lines))
        detail = f"line {i + 1}"
    else:  # replace a JSON value
        text = bytes(data).decode("utf-8", "replace")
        spans = json_spans(text)
        if not spans:
            kind, detail = "empty", ""
            data = bytearray()
        else:
            a, b = rng.choice(spans)
            new = hostile_json(rng)
            kind, detail = "value", f"{text[a:b][:30]!r} -> {new[:30]!r}"
            data = bytearray((text[:a] + new + text[b:]).encode("utf-8", "surrogatepass"))
    file.write_bytes(bytes(data))
    return Mutation(kind, file, detail, corrupting=_damaged(file, undo), undo=undo)


def _parse_native(data: bytes, suffix: str) -> Any:
    import csv
    import io

    text = data.decode("utf-8")
    if suffix == ".json":
        return json.loads(text)
    if suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    if suffix == ".csv":
        return [f"{len(row)} cells" for row in csv.reader(io.StringIO(text, newline=""))]
    return text


def _damaged(file: Path, undo: Callable[[], None]) -> bool:
    """Whether a byte change left a native file unparseable or of another shape.

    A change that still parses to the same shape (a digit flipped into another digit)
    is an edit of the data, which the importer must take as it is; only damage must
    never pass in silence.
    """
    new = file.read_bytes()
    undo()
    old = file.read_bytes()
    file.write_bytes(new)
    try:
        parsed_new = _parse_native(new, file.suffix)
    except (ValueError, RecursionError):
        return True
    try:
        parsed_old = _parse_native(old, file.suffix)
    except (ValueError, RecursionError):
        return False
    try:
        return _shape(parsed_new) != _shape(parsed_old) and not _one_item_fewer(parsed_old, parsed_new)
    except RecursionError:
        return True


def _one_item_fewer(old: Any, new: Any) -> bool:
    """Whether ``new`` is ``old`` with one whole item of one list taken out (and any scalar edited): a log of events
    one event shorter, which no file of the format can tell from a log where it never happened (a delete that
    cut one tool call, or one ask_human entry, out exactly: fuzz seeds 9002 and 9003). An edit, not damage."""
    if isinstance(old, list) and isinstance(new, list):
        shapes_old, shapes_new = list(map(_shape, old)), list(map(_shape, new))
        if len(new) == len(old) - 1:
            return any(shapes_old[:i] + shapes_old[i + 1:] == shapes_new for i in range(len(old)))
        differ = [i for i in range(len(old)) if len(new) == len(old) and shapes_old[i] != shapes_new[i]]
        return len(differ) == 1 and _one_item_fewer(old[differ[0]], new[differ[0]])
    if isinstance(old, dict) and isinstance(new, dict) and old.keys() == new.keys():
        differ = [k for k in old if _shape(old[k]) != _shape(new[k])]
        return len(differ) == 1 and _one_item_fewer(old[differ[0]], new[differ[0]])
    return False


def _shape(obj: Any) -> Any:
    """The structure of a parsed file: objects and lists and how many items each holds, with
    neither key names nor scalar values (an edit of either is a change of data, which the
    importer must take as written or refuse; damage is what breaks the structure)."""
    import hashlib

    if isinstance(obj, (dict, list)):  # a digest per level keeps the work linear in the nesting
        # an object: the kinds of value it holds (a key dropped or renamed is an edit); a list: its items
        parts = sorted(set(map(_shape, obj.values()))) if isinstance(obj, dict) else list(map(_shape, obj))
        text = ("{" if isinstance(obj, dict) else "[") + ",".join(parts)
        return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
    if isinstance(obj, float) and (obj != obj or abs(obj) == float("inf")):
        return "nonfinite"
    return "scalar"


def mutate_gzip(rng: random.Random, file: Path) -> Mutation:
    undo = _snapshot(file)
    raw = gzip.decompress(file.read_bytes())
    kind = rng.choice(["gz-flip", "gz-trailing-zeros", "gz-truncate", "gz-content"])
    if kind == "gz-flip":
        data = bytearray(file.read_bytes())
        i = rng.randrange(10, len(data))
        data[i] ^= 1 << rng.randrange(8)
        file.write_bytes(bytes(data))
        return Mutation(kind, file, f"byte {i}", undo=undo)
    if kind == "gz-trailing-zeros":
        file.write_bytes(file.read_bytes() + b"\x00" * rng.choice([1, 8, 512]))
        return Mutation(kind, file, "", undo=undo)
    if kind == "gz-truncate":
        data = file.read_bytes()
        file.write_bytes(data[: rng.randrange(len(data))])
        return Mutation(kind, file, "", undo=undo)
    tmp = file.with_name("plain.jsonl")
    tmp.write_bytes(raw)
    m = mutate_bytes(rng, tmp)
    file.write_bytes(gzip.compress(tmp.read_bytes()))
    tmp.unlink()
    return Mutation("gz-" + m.name, file, m.detail, undo=undo)


def mutate_fs(rng: random.Random, file: Path, root: Path, *, every_file_needed: bool = False) -> Mutation:
    """Replace a file by nothing, a folder, a FIFO, a link out of the log or to itself, or an empty file.
    ``every_file_needed``: the log cannot lack any of its files (a store, a snapshot): each is invalid."""
    undo = _snapshot(file)
    kind = rng.choice(["delete", "dir", "fifo", "symlink-out", "symlink-self", "empty"])
    file.unlink()
    corrupting = kind != "delete" or every_file_needed  # an optional native file may be absent
    if kind == "dir":
        file.mkdir()
    elif kind == "fifo":
        os.mkfifo(file)
    elif kind == "symlink-out":  # to a file beside the log, in the worker's own working folder
        outside = (root if root.is_dir() else root.parent).parent / "outside.json"
        outside.write_text('{"secret": 1}')
        file.symlink_to(outside)
    elif kind == "symlink-self":
        file.symlink_to(file)
    elif kind == "empty":
        file.write_bytes(b"")
    return Mutation("fs-" + kind, file, "", corrupting=corrupting, invalid=every_file_needed, undo=undo)


def mutate_permissions(rng: random.Random, file: Path, root: Path) -> Mutation:
    """Make a file, or the folder holding it, unreadable (``chmod 000``), as a user's copy or a full disk can.

    Root reads anything: the workers drop to an unprivileged user when they run as root (:func:`worker`), so
    this is damage the load must report (strict: an error naming it; lenient: an error in the list)."""
    target = file if file.parent == root or rng.random() < 0.6 else file.parent
    mode = stat.S_IMODE(os.lstat(target).st_mode)
    os.chmod(target, 0)

    def undo() -> None:
        os.chmod(target, mode)

    return Mutation("chmod-000-" + ("dir" if target.is_dir() else "file"), target, str(target.relative_to(root.parent)),
                    corrupting=True, invalid=os.geteuid() != 0, undo=undo)


# ----------------------------------------------------------------------------- Parquet values


def _parquet_invalid(rng: random.Random, root: Path) -> Mutation:
    """Rewrite one frame with a value the run-log contract forbids."""
    changes = {  # name: (frame, column, new value of row 0)
        "score 5": ("runs", "score", 5.0), "score NaN": ("runs", "score", float("nan")),
        "score -inf": ("runs", "score", float("-inf")), "spec 'amb'": ("runs", "spec", "amb"),
        "trial -3": ("runs", "trial", -3), "model null": ("runs", "model", None),
        "cost -1": ("runs", "cost_usd", -1.0), "meta not JSON": ("runs", "meta", "{x"),
        "meta a list": ("runs", "meta", "[1]"), "run_id wrong": ("runs", "run_id", "other"),
        "n_questions wrong": ("runs", "n_questions", 99), "orphan question": ("questions", "run_id", "no|run"),
        "question text empty": ("questions", "text", " "), "q_index wrong": ("questions", "q_index", 7),
        "label call 0": ("labels", "call", 0), "blocker of no task": ("blockers", "variant_id", "nowhere"),
        "ambiguity class 'x'": ("tasks", "ambiguity_class", "x"), "duplicate run": ("runs", None, None),
        "unknown column": ("runs", "extra", 1), "missing column": ("runs", "score", "drop"),
    }
    name = rng.choice(sorted(changes))
    frame_name, column, value = changes[name]
    file = root / f"{frame_name}.parquet"
    undo = _snapshot(file)
    rewrite_parquet(file, column, value)
    return Mutation("parquet-value", file, name, invalid=True, undo=undo)


def rewrite_parquet(file: Path, column: str | None, value: Any) -> None:
    """Rewrite one Parquet frame: row 0's ``column`` set to ``value``; a column it lacks added with
    ``value`` in every row; ``value == "drop"`` drops the column; ``column=None`` repeats row 0 (as a
    new last row, or with ``value == "over row K"`` in place of row K)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(file)
    if column is None and isinstance(value, str) and value.startswith("over row "):
        k = int(value.removeprefix("over row "))
        table = pa.concat_tables([table.slice(0, k), table.slice(0, 1), table.slice(k + 1)])
    elif column is None:
        table = pa.concat_tables([table, table.slice(0, 1)])
    elif value == "drop":
        table = table.drop_columns([column])
    elif column not in table.schema.names:
        table = table.append_column(column, pa.array([value] * table.num_rows))
    else:
        i = table.schema.get_field_index(column)
        values = table.column(column).to_pylist()
        values[0] = value
        table = table.set_column(i, column, pa.array(values, table.schema.field(i).type))
    pq.write_table(table, file)


def _store_invalid(rng: random.Random, root: Path) -> Mutation:
    """A store damaged as a file system or a tool would: a value the contract forbids, a part rewritten with a
    row less or a column less or another type, a stray file, a folder without ``=``, a part removed."""
    import pyarrow as pa

    frame = rng.choice(["runs", "runs", "questions", "labels", "tasks", "blockers"])
    parts = sorted((root / frame).rglob("*.parquet"))
    part = rng.choice(parts)
    kind = rng.choice(["value", "value", "row-less", "column-less", "float32", "stray", "no-equals", "delete"])
    undo = _snapshot(part)
    extra: list[Path] = []
    if kind == "value":
        column, value = rng.choice({
            "runs": [("score", 5.0), ("trial", -3), ("spec", "amb"), ("meta", "{x"), ("source", None),
                     ("n_questions", 99), ("run_id", "other")],
            "questions": [("run_id", None), ("run_id", "no|run"), ("q_index", 7), ("text", " ")],
            "labels": [("call", 0), ("run_id", "no|run")], "tasks": [("ambiguity_class", "x"), ("source", None)],
            "blockers": [("variant_id", "nowhere")]}[frame])
        rewrite_parquet(part, column, value)
        detail = f"{frame}.{column} = {value!r}"
    elif kind == "row-less":
        import pyarrow.parquet as pq

        table = pq.read_table(part)
        pq.write_table(table.slice(1), part)
        detail = frame
    elif kind == "column-less":
        import pyarrow.parquet as pq

        table = pq.read_table(part)
        column = rng.choice([c for c in table.schema.names if c != "_row"])
        pq.write_table(table.drop_columns([column]), part)
        detail = f"{frame}.{column}"
    elif kind == "float32":
        import pyarrow.parquet as pq

        table = pq.read_table(part)
        floats = [f.name for f in table.schema if pa.types.is_float64(f.type)] or ["_row"]
        column = rng.choice(floats)
        i = table.schema.get_field_index(column)
        pq.write_table(table.set_column(i, column, table.column(column).cast(pa.float32())), part)
        detail = f"{frame}.{column}"
    elif kind == "stray":
        extra.append(part.parent / "stray.parquet")
        shutil.copy(part, extra[0])
        detail = str(extra[0].relative_to(root))
    elif kind == "no-equals":
        extra.append(root / frame / "junk")
        extra[0].mkdir()
        shutil.copy(part, extra[0] / "part-0.parquet")
        detail = frame
    else:
        part.unlink()
        detail = str(part.relative_to(root))

    def undo_all() -> None:
        for path in extra:
            shutil.rmtree(path) if path.is_dir() else path.unlink()
        undo()

    return Mutation("store-" + kind, part, detail, invalid=True, undo=undo_all)


# ----------------------------------------------------------------------------- sources


def prepare(source: str, work: Path) -> Path:
    """Make the working copy of one source; return the path to load."""
    if source == "jsonl":
        out = work / "log.jsonl"
        out.write_bytes((EXAMPLE / "hil-bench.jsonl").read_bytes() + (EXAMPLE / "ambig-ds.jsonl").read_bytes())
        return out
    if source == "jsonl.gz":
        out = work / "log.jsonl.gz"
        out.write_bytes(gzip.compress((EXAMPLE / "lhaw.jsonl").read_bytes()))
        return out
    if source in ("parquet", "store", "snapshot"):
        import ambiglib

        if source == "parquet":
            return ambiglib.load(EXAMPLE).to_parquet(work / "store")
        if source == "store":
            return ambiglib.load(EXAMPLE).to_parquet(work / "store", partition_by=("benchmark", "model"))
        from ambiglib.runlog._snapshot import write_snapshot

        rs, errors = ambiglib.load(EXAMPLE, strict=False, quiet=True)
        return write_snapshot(rs, errors, str(EXAMPLE), work / "snapshot")
    if source == "inspect":
        import fuzzing_inspect

        return fuzzing_inspect.prepare(work)
    if source == "tau-bench":
        records = json.loads(gzip.decompress((ROOT / "tests" / "fixtures" / "tau-bench" / "gpt-4o-airline.json.gz")
                                             .read_bytes()))
        out = work / "tau" / "gpt-4o-airline.json"
        out.parent.mkdir()
        out.write_text(json.dumps(records[:40], indent=2))  # as run.py writes it (indent 2)
        return out.parent
    if source == "ambig-swe":
        import tarfile

        out = work / "experiments"
        with tarfile.open(ROOT / "tests" / "fixtures" / "ambig-swe" / "experiments.tar.gz") as tar:
            tar.extractall(out, members=[m for m in tar.getmembers() if m.name.split("/")[-1].startswith("haiku_")],
                           filter="data")
        return out
    out = work / source
    shutil.copytree(NATIVE / source, out, symlinks=True)
    return out


def files_of(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink())


def choose(rng: random.Random, source: str, root: Path) -> Mutation:
    if rng.random() < 0.06:  # a file or folder this user may not read
        return mutate_permissions(rng, rng.choice(files_of(root)), root if root.is_dir() else root.parent)
    if source == "jsonl.gz":
        return mutate_gzip(rng, root)
    if source == "jsonl":
        return mutate_bytes(rng, root)
    files = files_of(root)
    if source == "inspect":
        import fuzzing_inspect

        file = rng.choice(files)
        if rng.random() < 0.1:
            m = mutate_fs(rng, file, root)
            # a .json log gone, or a folder in its place, is a folder with one log less: nothing says it was one
            m.corrupting = m.corrupting and not (file.suffix == ".json" and m.name in ("fs-delete", "fs-dir"))
            return m
        return fuzzing_inspect.mutate(rng, file, mutate_bytes, Mutation, _snapshot)
    if source == "snapshot":  # every byte is checked: any change must be refused
        m = (mutate_fs(rng, rng.choice(files), root, every_file_needed=True) if rng.random() < 0.15
             else mutate_bytes(rng, rng.choice(files)))
        m.name, m.invalid = "snapshot-" + m.name, m.invalid or m.file is not None and _changed(m)
        return m
    if source == "store":
        if rng.random() < 0.5:
            return _store_invalid(rng, root)
        file = rng.choice(files)
        m = (mutate_fs(rng, file, root, every_file_needed=True) if rng.random() < 0.15
             else mutate_bytes(rng, file))
        m.name = "store-" + m.name
        return m
    if source == "parquet":
        if rng.random() < 0.4:
            return _parquet_invalid(rng, root)
        m = mutate_fs(rng, rng.choice(files), root) if rng.random() < 0.1 else mutate_bytes(rng, rng.choice(files))
        m.name = "parquet-" + m.name
        return m
    # native: prefer the small, structured files over trajectories and logs
    weighted = [f for f in files if f.suffix in (".json", ".csv", ".jsonl")] or files
    file = rng.choice(weighted)
    if rng.random() < 0.15:
        return mutate_fs(rng, file, root)
    return mutate_bytes(rng, file)


def _changed(m: Mutation) -> bool:
    """Whether a byte mutation left its file with other bytes than before (a value replaced by itself
    does not)."""
    assert m.file is not None
    new = m.file.read_bytes()
    m.undo()
    old = m.file.read_bytes()
    m.file.write_bytes(new)
    return new != old


# ----------------------------------------------------------------------------- oracles


def _records(path: Path) -> tuple[int, int]:
    """Run and task records in a JSON Lines file, counted without ambiglib."""
    opener = gzip.open if path.name.endswith(".gz") else open
    n_run = n_task = 0
    with opener(path, "rb") as fh:
        for raw in fh:
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except (ValueError, RecursionError):
                obj = None
            if isinstance(obj, dict) and obj.get("record") == "task":
                n_task += 1
            else:
                n_run += 1
    return n_run, n_task


def _frames_equal(a: Any, b: Any, *, ignore: tuple[str, ...] = ()) -> bool:
    for name in ("runs", "questions", "labels", "tasks", "blockers"):
        fa, fb = getattr(a, name), getattr(b, name)
        cols = [c for c in fa.columns if c not in ignore]
        if not fa[cols].reset_index(drop=True).equals(fb[cols].reset_index(drop=True)):
            return False
    return True


def _by_id(rs: Any) -> dict[str, tuple]:
    runs = rs.runs.drop(columns=["source", "transcript_at"]).astype(object)  # where a run is read, not what
    runs = runs.where(runs.notna(), None)
    return {r[0]: tuple(map(repr, r)) for r in runs.itertuples(index=False)}


def _flagged(rs: Any) -> list[str]:
    """Runs carrying a harness anomaly (``metrics.harness.ANOMALIES``) in their meta."""
    from ambiglib.metrics._harness import ANOMALIES

    return [run_id for run_id, meta in zip(rs.runs["run_id"], rs.runs["meta"])
            if isinstance(meta, str) and any(f'"{flag}"' in meta for flag in ANOMALIES)]


@dataclass
class Outcome:
    case: int
    mutation: str
    detail: str
    result: str            # "ok" (loaded), "error" (an AmbiglibError), or a failure class
    message: str = ""
    seconds: float = 0.0


def check(source: str, path: Path, m: Mutation, baseline: Any) -> tuple[str, str]:
    """Load the mutated log and apply the oracles: (result, message)."""
    import ambiglib
    from ambiglib.errors import AmbiglibError

    try:
        rs, errors = ambiglib.load(path, strict=False, quiet=True)
    except AmbiglibError as exc:
        return "error", str(exc)[:300]
    except RecursionError as exc:
        return "escape:RecursionError", str(exc)[:300]
    except Exception as exc:  # the oracle: anything else is a failure
        return f"escape:{type(exc).__name__}", str(exc)[:300]
    skipped_before = sum(baseline.skipped.values())
    try:
        if source in ("jsonl", "jsonl.gz"):
            n_run, n_task = _records(path)
            n_run_err = sum(1 for e in errors if e.record == "run")
            n_task_err = sum(1 for e in errors if e.record == "task")
            if len(rs.runs) + n_run_err != n_run or len(rs.tasks) + n_task_err != n_task:
                return "count", (f"{len(rs.runs)} runs + {n_run_err} rejected != {n_run} run records;"
                                 f" {len(rs.tasks)} tasks + {n_task_err} rejected != {n_task}")
            try:
                rs2, errors2 = ambiglib.load(path, strict=False, quiet=True, engine="python")
            except AmbiglibError as exc:
                return "engines", f"python engine raised where auto loaded: {exc}"[:300]
            if not _frames_equal(rs, rs2) or [e.message for e in errors] != [e.message for e in errors2]:
                return "engines", "auto and python engines give different results"
        if m.invalid and not errors:
            return "accepted", f"{m.detail} loaded without an error"
        if len(rs.runs):
            with tempfile.TemporaryDirectory() as tmp:
                out = rs.to_jsonl(Path(tmp) / "back.jsonl")
                try:
                    back = ambiglib.load(out, quiet=True)
                except AmbiglibError as exc:
                    return "roundtrip", f"written log does not load: {exc}"[:300]
                if not _frames_equal(rs, back, ignore=("source", "transcript_at")):
                    return "roundtrip", "written log loads with other values"
        if m.corrupting and source not in ("jsonl", "jsonl.gz"):
            before, after = _by_id(baseline), _by_id(rs)
            mutated = str(m.file) if m.file else None
            changed = [k for k, v in after.items() if k in before and before[k] != v]
            new = [k for k in after if k not in before]
            # a harness anomaly the run now carries (an ask_user call without a question, kept as the harness
            # logged it) is reported: `ambiglib validate` and tables.harness_anomalies list it
            flagged = set(_flagged(rs)) - set(_flagged(baseline))
            changed = [k for k in changed if k not in flagged]
            binary = source in ("parquet", "store", "snapshot")
            if (changed or new) and not errors and not binary:
                return "silent-change", f"{len(changed) + len(new)} runs changed, no error: {(changed + new)[0]}"[:300]
            if binary and (changed or new):
                return "silent-change", f"{len(changed) + len(new)} runs changed: {(changed + new)[0]}"[:300]
            missing = [k for k in before if k not in after]
            accounted = len(errors) + max(0, sum(rs.skipped.values()) - skipped_before)
            if missing and accounted == 0:
                return "silent-drop", f"{len(missing)} runs gone, no error or skip: {missing[0]} ({mutated})"[:300]
    except AmbiglibError as exc:
        return "error-late", str(exc)[:300]
    except Exception as exc:
        return f"escape-late:{type(exc).__name__}", str(exc)[:300]
    return "ok", f"{len(rs.runs)} runs, {len(errors)} errors"


class Timeout(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise Timeout()


UNPRIVILEGED = 65534  # nobody


def as_user(work: Path) -> None:
    """Run on as an unprivileged user when root, owning the working copy: root reads a ``chmod 000`` file as
    easily as any other, so a load as root cannot see what a user sees (issue 27)."""
    if os.geteuid() != 0:
        return
    import encodings  # json.loads detects UTF-16 and UTF-32 by importing their codecs, which nobody may not read
    for codec in ("utf_8", "utf_8_sig", "utf_16", "utf_16_le", "utf_16_be", "utf_32", "utf_32_le", "utf_32_be",
                  "latin_1", "ascii"):
        importlib.import_module(f"{encodings.__name__}.{codec}")
    for top, dirs, files in os.walk(work):
        for name in [top, *(os.path.join(top, n) for n in dirs + files)]:
            os.lchown(name, UNPRIVILEGED, UNPRIVILEGED)
    os.setgroups([])
    os.setgid(UNPRIVILEGED)
    os.setuid(UNPRIVILEGED)


def worker(source: str, seed: int, start: int, count: int, tmp: str) -> None:
    """Run cases ``start .. start+count-1`` of one source in the empty folder ``tmp`` (its parent's, which
    removes it), one JSON line per event on stdout."""
    import ambiglib

    signal.signal(signal.SIGALRM, _alarm)
    path = prepare(source, Path(tmp))
    baseline = ambiglib.load(path, quiet=True)  # (and every module a load needs is imported, as root)
    with tempfile.TemporaryDirectory() as warm:  # and every module a check's write back needs (transcripts)
        baseline.to_jsonl(Path(warm) / "back.jsonl")
    as_user(Path(tmp))
    for case in range(start, start + count):
        rng = random.Random(f"{seed}:{source}:{case}")
        print(json.dumps({"begin": case}), flush=True)
        m = choose(rng, source, path)
        t = time.perf_counter()
        signal.alarm(CASE_SECONDS)
        try:
            result, message = check(source, path, m, baseline)
        except Timeout:
            result, message = "hang", f"over {CASE_SECONDS} s"
        finally:
            signal.alarm(0)
        seconds = time.perf_counter() - t
        m.undo()
        print(json.dumps({"case": case, "mutation": m.name, "detail": m.detail[:120],
                          "file": str(m.file.relative_to(tmp)) if m.file else "",
                          "result": result, "message": message, "seconds": round(seconds, 3)}),
              flush=True)


@dataclass
class Report:
    source: str
    outcomes: list[dict] = field(default_factory=list)

    @property
    def failures(self) -> list[dict]:
        return [o for o in self.outcomes if o["result"] not in ("ok", "error")]

    def counts(self) -> Counter:
        return Counter(o["result"] for o in self.outcomes)


def _lines(proc: subprocess.Popen, timeout: float) -> Any:
    """The worker's next stdout line (without its end), "" at its end, or None when ``timeout`` passes first."""
    import selectors

    buffer = getattr(proc, "_fuzz_buffer", b"")
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        while b"\n" not in buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                proc._fuzz_buffer = buffer  # type: ignore[attr-defined]
                return None
            chunk = os.read(proc.stdout.fileno(), 1 << 16)  # type: ignore[union-attr]
            if not chunk:
                proc._fuzz_buffer = b""  # type: ignore[attr-defined]
                return buffer.decode() if buffer else ""
            buffer += chunk
    line, _, rest = buffer.partition(b"\n")
    proc._fuzz_buffer = rest  # type: ignore[attr-defined]
    return line.decode()


def run(source: str, seed: int, n: int, *, python: str = sys.executable,
        total_seconds: float | None = None, case_limit: float = CASE_SECONDS + KILL_AFTER) -> Report:
    """Run ``n`` cases of one source in child processes, restarting after a crash or a hang.

    A case that outlives its alarm by ``KILL_AFTER`` seconds (a hang no alarm interrupts) has its worker
    killed (``case_limit``) and counts as ``hang``; the run stops when ``total_seconds`` (default: every case at its limit,
    plus a minute) have passed, killing its worker, and raises, so that a fuzz run never outlives its
    budget."""
    report = Report(source)
    budget = total_seconds if total_seconds is not None else 60 + n * case_limit
    deadline = time.monotonic() + budget
    case = 0
    while case < n:
        # the worker's folder is made and removed here: a worker killed mid-case cannot remove its own
        work = tempfile.TemporaryDirectory(prefix="ambiglib-fuzz-")
        proc = subprocess.Popen([python, __file__, source, str(seed), str(case), str(n - case), work.name],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
        in_flight, hung, began = None, False, time.monotonic()
        try:
            while True:
                limit = deadline - time.monotonic()
                if in_flight is not None:
                    limit = min(limit, case_limit - (time.monotonic() - began))
                line = _lines(proc, max(0.0, limit))
                if line is None:  # a case over its limit, or the run over its budget
                    proc.kill()
                    hung = in_flight is not None and time.monotonic() < deadline
                    break
                if line == "":
                    break
                event = json.loads(line)
                if "begin" in event:
                    in_flight, began = event["begin"], time.monotonic()
                else:
                    report.outcomes.append(event)
                    in_flight = None
                    case = event["case"] + 1
        finally:
            if proc.poll() is None:
                proc.kill()
            _, stderr_bytes = proc.communicate()
            work.cleanup()
        stderr = stderr_bytes.decode(errors="replace")
        if time.monotonic() >= deadline and case < n and not hung:
            raise RuntimeError(f"fuzz run of {source} over its {budget:.0f} s budget after {case} of {n} cases")
        if in_flight is not None:
            result = "hang" if hung else "crash"
            message = (f"killed after {case_limit:g} s" if hung
                       else f"exit {proc.returncode}: {stderr[-300:]}")
            report.outcomes.append({"case": in_flight, "mutation": "?", "detail": "", "file": "",
                                    "result": result, "message": message, "seconds": 0})
            case = in_flight + 1
        elif proc.returncode != 0 and case < n:
            raise RuntimeError(f"fuzz worker for {source} failed before its first case:\n{stderr}")
    return report


if __name__ == "__main__":
    if len(sys.argv) > 5:
        worker(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    else:  # by hand
        with tempfile.TemporaryDirectory(prefix="ambiglib-fuzz-") as folder:
            worker(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), folder)
