"""The Inspect AI source of the fuzzer (``tests/fuzzing.py``): logs Inspect itself wrote, damaged at the
level a ``.eval`` zip can be: a member's JSON, a member dropped or written twice, a key written twice, a size the
zip records falsely, a header's counts, the zip's own bytes.

Each mutation says whether the log is certainly invalid afterwards (``invalid``: loading it without an error is
a failure) and whether it damaged the data (``corrupting``: no run may change in silence).
"""

from __future__ import annotations

import json
import random
import shutil
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "inspect"
#: the fields of a sample the importer reads (a key twice among them must be refused)
READ = ("id", "epoch", "metadata", "messages", "scores", "model_usage", "working_time", "total_time")


def available() -> bool:
    try:
        import inspect_ai.log  # noqa: F401
        import zipfile_zstd  # noqa: F401
    except ImportError:
        return False
    return FIXTURES.is_dir()


def prepare(work: Path) -> Path:
    """Three logs: a finished ``.eval``, the cancelled one (its missing samples are counted), the ``.json`` log."""
    from inspect_ai.log import read_eval_log

    out = work / "inspect"
    out.mkdir()
    logs = sorted(p for p in FIXTURES.iterdir() if p.suffix in (".eval", ".json"))
    status = {p: read_eval_log(str(p), header_only=True).status for p in logs}
    chosen = [next(p for p in logs if p.suffix == ".eval" and status[p] == "success"),
              next(p for p in logs if status[p] == "cancelled"),
              next(p for p in logs if p.suffix == ".json")]
    for p in chosen:
        shutil.copy(p, out / p.name)
    return out


def _members(file: Path) -> list[tuple[str, bytes]]:
    import zipfile_zstd  # noqa: F401

    with zipfile.ZipFile(file) as z:
        return [(i.filename, z.read(i)) for i in z.infolist()]


def _write(file: Path, members: list[tuple[str, bytes]]) -> None:
    import warnings

    import zipfile_zstd

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Duplicate name": the point of one mutation
        with zipfile.ZipFile(file, "w", zipfile_zstd.ZIP_ZSTANDARD) as z:
            for name, data in members:
                z.writestr(name, data)


def mutate(rng: random.Random, file: Path, mutate_bytes: Callable[..., Any], mutation: Any,
           snapshot: Callable[[Path], Callable[[], None]]) -> Any:
    """One mutation of an Inspect log (``file``: a ``.eval`` zip; a ``.json`` log takes ``mutate_bytes``)."""
    if file.suffix != ".eval":
        return mutate_bytes(rng, file)
    undo = snapshot(file)
    members = _members(file)
    header = json.loads(dict(members)["header.json"])
    finished = header["status"] == "success"
    samples = [i for i, (n, _) in enumerate(members) if n.startswith("samples/")]
    kind = rng.choice(["member-bytes", "member-bytes", "member-bytes", "member-drop", "member-dup", "key-dup",
                       "size-lie", "header-counts", "zip-bytes"])
    if kind == "member-bytes":
        i = rng.choice(samples + [i for i, (n, _) in enumerate(members) if n == "header.json"])
        name, data = members[i]
        scratch = file.with_name("member.json")
        scratch.write_bytes(data)
        m = mutate_bytes(rng, scratch)
        members[i] = (name, scratch.read_bytes())
        scratch.unlink()
        _write(file, members)
        return mutation(f"inspect-member-{m.name}", file, f"{name}: {m.detail}", corrupting=m.corrupting, undo=undo)
    if kind == "member-drop":
        i = rng.choice(samples)
        name = members.pop(i)[0]
        _write(file, members)
        # a finished log lacking a sample is damaged (an error); a cancelled one never ran it (counted)
        return mutation("inspect-member-drop", file, name, invalid=finished, undo=undo)
    if kind == "member-dup":
        i = rng.choice(samples + [len(members) - 1])
        name, data = members[i]
        _write(file, members + [(name, data)])
        return mutation("inspect-member-dup", file, name, invalid=True, undo=undo)
    if kind == "key-dup":
        i = rng.choice(samples)
        name, data = members[i]
        sample = json.loads(data)
        key = rng.choice([k for k in READ if k in sample])
        other = rng.choice([None, 0, "x", [], {}, {"solved": {"value": "I"}}])
        text = data.decode().rstrip()
        members[i] = (name, (text[:-1] + f", {json.dumps(key)}: {json.dumps(other)}}}").encode())
        _write(file, members)
        return mutation("inspect-key-dup", file, f"{name}: {key}", invalid=True, undo=undo)
    if kind == "size-lie":
        i = rng.choice(samples)
        name = members[i][0]
        with zipfile.ZipFile(file) as z:
            info = z.getinfo(name)
        size = rng.choice([0, 1, info.file_size // 2, info.file_size + 1, info.file_size * 1000])
        raw = bytearray(file.read_bytes())
        struct.pack_into("<I", raw, info.header_offset + 22, size)
        encoded = name.encode()
        entry = next(j for j in range(raw.index(b"PK\x01\x02"), len(raw))
                     if raw[j:j + 4] == b"PK\x01\x02" and raw[j + 46:j + 46 + len(encoded)] == encoded)
        struct.pack_into("<I", raw, entry + 24, size)
        file.write_bytes(bytes(raw))
        return mutation("inspect-size-lie", file, f"{name}: {info.file_size} -> {size}", invalid=True, undo=undo)
    if kind == "header-counts":
        what = rng.choice(["epochs", "samples", "limit"])
        if what == "epochs":
            header["eval"]["config"]["epochs"] = rng.choice([4, 10**6, 10**15])
        elif what == "samples":
            header["eval"]["dataset"].update(sample_ids=None, samples=rng.choice([7, 10**15]))
        else:
            header["eval"]["config"]["limit"] = rng.choice([1, 3])
        members = [(n, json.dumps(header).encode() if n == "header.json" else d) for n, d in members]
        _write(file, members)
        # more claimed than held (epochs, samples): an error when finished, a count when cancelled; a limit
        # below what is held claims fewer (the extra runs are read as they are)
        invalid = finished and what != "limit"
        return mutation("inspect-header-counts", file, what, invalid=invalid, undo=undo)
    m = mutate_bytes(rng, file)
    m.name = "inspect-zip-" + m.name
    m.undo = undo
    return m
