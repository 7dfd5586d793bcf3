"""The report's snapshot (issue 31): every file verified against the SHA-256 the report recorded before a
byte is mapped; damage of any kind is a FormatError naming the file, never a crash or a changed value."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import ambiglib
from ambiglib.errors import FormatError
from ambiglib.runlog._snapshot import SNAPSHOT_FILE, write_snapshot

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example"


@pytest.fixture
def snap(tmp_path):
    rs, errors = ambiglib.load(EXAMPLE, strict=False, quiet=True)
    return rs, write_snapshot(rs, errors, str(EXAMPLE), tmp_path / "snapshot")


def _join_on_run_id(rs, name):
    """Which run each row belongs to, by pandas' own join on run_id: the independent truth for the links."""
    return pd.Index(rs.runs["run_id"]).get_indexer(getattr(rs, name)["run_id"])


def test_a_snapshot_loads_as_the_run_set_it_was_written_from_with_its_links(snap):
    rs, path = snap
    loaded = ambiglib.load(path, quiet=True)
    for name in ("runs", "questions", "labels", "tasks", "blockers"):
        pd.testing.assert_frame_equal(getattr(loaded, name), getattr(rs, name), check_exact=True)
    assert {"questions", "labels"} <= set(loaded._cache)  # the report's links: no join needed
    for name in ("questions", "labels"):
        np.testing.assert_array_equal(loaded.run_positions(name), _join_on_run_id(loaded, name))
    meta = json.loads((path / SNAPSHOT_FILE).read_text())
    assert sorted(meta["files"]) == ["blockers.arrow", "labels.arrow", "labels.links.arrow", "questions.arrow",
                                     "questions.links.arrow", "runs.arrow", "tasks.arrow"]
    for name, recorded in meta["files"].items():  # the digests are of the bytes on disk (hashlib, independently)
        import hashlib

        data = (path / name).read_bytes()
        assert recorded == {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def _rewrite_arrow(file: Path, change) -> None:
    with pa.OSFile(str(file), "rb") as source:
        table = pa.ipc.open_file(source).read_all()
    table = change(table)
    with pa.OSFile(str(file), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)


def _flip(file: Path, at: float) -> None:
    data = bytearray(file.read_bytes())
    data[int(len(data) * at)] ^= 0x10
    file.write_bytes(bytes(data))


DAMAGE = {
    # name: (what is done, the file the message names, what it says)
    "runs rows reversed": (lambda p: _rewrite_arrow(p / "runs.arrow", lambda t: t.take(pa.array(
        np.arange(t.num_rows)[::-1]))), "runs.arrow", "damaged or replaced since the report wrote it"),
    "questions links rolled": (lambda p: _rewrite_arrow(p / "questions.links.arrow", lambda t: pa.table(
        {"run_row": pa.array(np.roll(t.column(0).to_numpy(), 1))})), "questions.links.arrow",
        "damaged or replaced since the report wrote it"),
    "a bit flipped in a column's data": (lambda p: _flip(p / "runs.arrow", 0.5), "runs.arrow",
                                         "its SHA-256 does not match"),
    "a bit flipped in the footer": (lambda p: _flip(p / "labels.arrow", 0.999), "labels.arrow",
                                    "its SHA-256 does not match"),
    "truncated": (lambda p: os.truncate(p / "questions.arrow", 100), "questions.arrow",
                  "100 bytes where the report wrote"),
    "removed": (lambda p: (p / "labels.links.arrow").unlink(), "labels.links.arrow", "no such file"),
    "a FIFO in its place": (lambda p: ((p / "tasks.arrow").unlink(), os.mkfifo(p / "tasks.arrow")), "tasks.arrow",
                            "expected a file, found a FIFO"),
    "a folder in its place": (lambda p: ((p / "blockers.arrow").unlink(), (p / "blockers.arrow").mkdir()),
                              "blockers.arrow", "expected a file, found a folder"),
    "a link to nothing": (lambda p: ((p / "runs.arrow").unlink(), (p / "runs.arrow").symlink_to(p / "gone")),
                          "runs.arrow", "a symbolic link to nothing"),
    "snapshot.json: a rejected record edited": (
        lambda p: (p / SNAPSHOT_FILE).write_text(json.dumps({**json.loads((p / SNAPSHOT_FILE).read_text()),
                                                              "skipped": {"x": 1}})),
        SNAPSHOT_FILE, "damaged or edited since the report wrote it"),
    "snapshot.json: a digest edited": (
        lambda p: (p / SNAPSHOT_FILE).write_text((p / SNAPSHOT_FILE).read_text().replace('"sha256": "', '"sha256": "0', 1)),
        SNAPSHOT_FILE, "damaged or edited since the report wrote it"),
    "snapshot.json: truncated": (lambda p: os.truncate(p / SNAPSHOT_FILE, 50), SNAPSHOT_FILE, "not JSON"),
    # the same content, other bytes (fuzz seed 4145, case 69: a line break between two keys loaded)
    "snapshot.json: a line break between keys": (
        lambda p: (p / SNAPSHOT_FILE).write_text((p / SNAPSHOT_FILE).read_text().replace(", ", ",\n", 1)),
        SNAPSHOT_FILE, "not byte for byte what it wrote"),
    "snapshot.json: a character escaped": (
        lambda p: (p / SNAPSHOT_FILE).write_text((p / SNAPSHOT_FILE).read_text().replace('"files"', '"fil\\u0065s"')),
        SNAPSHOT_FILE, "not byte for byte what it wrote"),
    "snapshot.json: of an older report": (
        lambda p: (p / SNAPSHOT_FILE).write_text(json.dumps({k: v for k, v in json.loads(
            (p / SNAPSHOT_FILE).read_text()).items() if k != "sha256"})), SNAPSHOT_FILE, "no 'sha256' of its content"),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_snapshot_is_refused_naming_its_file(snap, damage):
    """Of 100 bit-flipped snapshots, 4 crashed the process (SIGSEGV), 1 with SIGBUS, 12 raised a raw
    ArrowException, 1 hung and at least 9 loaded other values in silence. Each load runs in a child process:
    a crash there fails the test instead of ending the run."""
    _, path = snap
    do, file, says = DAMAGE[damage]
    do(path)
    code = ("import sys, ambiglib\n"
            "from ambiglib.errors import AmbiglibError\n"
            "try:\n    ambiglib.load(sys.argv[1], quiet=True)\n"
            "except AmbiglibError as exc:\n    print(type(exc).__name__, exc)\n")
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"the load crashed the process: {done.returncode} {done.stderr[-500:]}"
    assert re.match(rf"FormatError {re.escape(str(path / file))}: .*{re.escape(says)}", done.stdout), done.stdout


def test_strict_false_does_not_take_a_damaged_snapshot_either(snap):
    _, path = snap
    _flip(path / "runs.arrow", 0.5)
    with pytest.raises(FormatError, match="runs.arrow: damaged or replaced"):
        ambiglib.load(path, strict=False, quiet=True)


def test_a_kernel_hashes_an_unchanged_snapshot_once(snap, monkeypatch):
    """A report's kernel opens the snapshot for every notebook: a file already hashed by this process, with the
    same identity and change time, is not hashed again (hashlib is counted); a file changed since is."""
    import hashlib

    import ambiglib.runlog._snapshot as snapshot

    _, path = snap
    monkeypatch.setattr(snapshot, "_HASHED", {})
    monkeypatch.setattr(snapshot, "_SETTLED_NS", 0)  # the fixture's files were written a moment ago
    hashed = []
    real = hashlib.file_digest
    monkeypatch.setattr(hashlib, "file_digest",
                        lambda fh, name: hashed.append(os.readlink(f"/proc/self/fd/{fh.fileno()}")) or real(fh, name))
    first = ambiglib.load(path, quiet=True)
    files = len(json.loads((path / SNAPSHOT_FILE).read_text())["files"])
    assert len(hashed) == files
    again = ambiglib.load(path, quiet=True)
    assert len(hashed) == files
    pd.testing.assert_frame_equal(again.runs, first.runs, check_exact=True)
    os.utime(path / "tasks.arrow")  # the same bytes, touched: its change time moves, so it is hashed again
    ambiglib.load(path, quiet=True)
    assert [Path(h).name for h in hashed[files:]] == ["tasks.arrow"]


def test_a_file_hashed_a_moment_after_it_changed_is_hashed_again(snap, monkeypatch):
    """The system's clock for change times moves in ticks: a digest taken within the settling time of a file's
    last change is not kept, since a change in the same tick would leave the change time as it was."""
    import hashlib

    import ambiglib.runlog._snapshot as snapshot

    _, path = snap
    monkeypatch.setattr(snapshot, "_HASHED", {})
    hashed = []
    real = hashlib.file_digest
    monkeypatch.setattr(hashlib, "file_digest",
                        lambda fh, name: hashed.append(os.readlink(f"/proc/self/fd/{fh.fileno()}")) or real(fh, name))
    ambiglib.load(path, quiet=True)
    ambiglib.load(path, quiet=True)  # written by the fixture a moment ago (under the 2 s default)
    assert len(hashed) == 2 * len(json.loads((path / SNAPSHOT_FILE).read_text())["files"])


@pytest.mark.parametrize("damage", ["a bit flipped in a column's data", "runs rows reversed", "truncated",
                                    "a link to nothing", "a FIFO in its place"])
def test_damage_after_a_kept_digest_is_still_refused(snap, damage):
    """A child process loads the snapshot (keeping every digest), the file is damaged, and the same process
    loads it again: the damage is refused as on a first load, never mapped."""
    _, path = snap
    do, file, says = DAMAGE[damage]
    code = ("import sys, ambiglib, ambiglib.runlog._snapshot as s\n"
            "from ambiglib.errors import AmbiglibError\n"
            "s._SETTLED_NS = 0\n"
            "ambiglib.load(sys.argv[1], quiet=True)\n"
            "assert len(s._HASHED) == 7, s._HASHED\n"
            "print('ready', flush=True)\n"
            "sys.stdin.readline()\n"
            "try:\n    ambiglib.load(sys.argv[1], quiet=True)\n"
            "except AmbiglibError as exc:\n    print(type(exc).__name__, exc)\n")
    child = subprocess.Popen([sys.executable, "-c", code, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "ready\n", child.stderr.read()[-500:]
        do(path)
        out, err = child.communicate("go\n", timeout=60)
    finally:
        child.kill()
    assert child.returncode == 0, f"the load crashed the process: {child.returncode} {err[-500:]}"
    assert re.match(rf"FormatError {re.escape(str(path / file))}: .*{re.escape(says)}", out), out


# ------------------------------------------------------------------ what a kernel's loads of one snapshot share


@pytest.fixture
def shared(monkeypatch):
    """This process's shared results and checked tables, empty; a list of what was worked out (value of
    information's and Ask-F1's parts, and ``probe``'s frame), and ``probe``: a result kept and shared by
    ``metrics._common._kept``, built from the runs."""
    import ambiglib.importers._canonical as canonical
    import ambiglib.metrics._asking as asking
    import ambiglib.metrics._information as information
    import ambiglib.runset as runset
    from ambiglib.metrics._common import _kept

    monkeypatch.setattr(runset, "_SHARED", {})
    monkeypatch.setattr(canonical, "_CONFORMED", {})
    built = []
    for module, name in ((information, "_voi_parts_of"), (asking, "_ask_f1_parts_of")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda rs, *a, _real=real, _name=name: built.append(_name) or _real(rs, *a))

    def probe(rs):
        return _kept(rs, ("probe",), lambda: built.append("probe") or rs.runs[["run_id", "model", "score"]].copy())

    return SimpleNamespace(built=built, probe=probe)


def test_loads_of_one_snapshot_share_what_is_worked_out(snap, shared):
    """The report's kernel loads the snapshot for every notebook: the second load finds the first's results
    (value of information's and Ask-F1's parts are worked out once) and every table equals the one computed
    without sharing; the working frame, a copy of the runs, is not shared (it would stay in memory)."""
    import ambiglib.metrics._common as common
    from ambiglib.metrics import ask_f1, value_of_information

    _, path = snap
    first = ambiglib.load(path, quiet=True)
    voi = {"by": ("suite", "model", "policy")}
    expected = {"voi": value_of_information(first, **voi), "f1": ask_f1(first.filter(benchmark="hil-bench"))}
    once = list(shared.built)
    assert sorted(set(once)) == ["_ask_f1_parts_of", "_voi_parts_of"]
    again = ambiglib.load(path, quiet=True)
    assert again.runs is not first.runs  # a notebook's own frames
    pd.testing.assert_frame_equal(value_of_information(again, **voi), expected["voi"], check_exact=True)
    pd.testing.assert_frame_equal(ask_f1(again.filter(benchmark="hil-bench")), expected["f1"], check_exact=True)
    assert shared.built == once  # nothing worked out again
    other = ambiglib.load(EXAMPLE, quiet=True)  # the same runs from JSON Lines: its content is not known
    pd.testing.assert_frame_equal(value_of_information(other, **voi), expected["voi"], check_exact=True)
    assert shared.built == once + ["_voi_parts_of"]
    assert common._work(again) is not common._work(first)
    import ambiglib.runset as runset

    assert all(("work",) not in results for log in runset._SHARED.values() for results in log.values())
    assert any(key[0] == "voi parts" for log in runset._SHARED.values() for results in log.values() for key in results)


def test_a_frame_changed_in_place_is_not_given_anothers_results(snap, shared):
    from ambiglib.metrics import ask_f1

    _, path = snap
    first = ambiglib.load(path, quiet=True).filter(benchmark="hil-bench")
    before = ask_f1(first, by=("model",))
    changed = ambiglib.load(path, quiet=True).filter(benchmark="hil-bench")
    # a notebook's own change to its frames, of the same Arrow type (a column of another type is never kept)
    changed.runs["model"] = pd.Series(["one model"] * len(changed.runs), dtype=changed.runs["model"].dtype,
                                      index=changed.runs.index)
    assert changed._state() is not None
    after = ask_f1(changed, by=("model",))
    assert list(after["model"]) == ["one model"] and len(before) > 1
    assert after["n_runs"].sum() == before["n_runs"].sum()
    kept = ask_f1(ambiglib.load(path, quiet=True).filter(benchmark="hil-bench"), by=("model",))
    pd.testing.assert_frame_equal(kept, before, check_exact=True)


def test_a_caller_changing_a_kept_frame_changes_its_own_copy(snap, shared):
    _, path = snap
    rs = ambiglib.load(path, quiet=True)
    kept = shared.probe(rs)
    kept["score"] = -1.0
    kept["added"] = 1
    kept.loc[0, "model"] = "changed"
    for again in (shared.probe(rs), shared.probe(ambiglib.load(path, quiet=True))):
        assert "added" not in again.columns and (again["score"] != -1.0).any() and again.loc[0, "model"] != "changed"
    assert shared.built == ["probe"]


def test_filters_share_only_with_the_same_filter(snap, shared):
    _, path = snap
    rs = ambiglib.load(path, quiet=True)
    models = sorted(rs.runs["model"].dropna().unique())
    a, b = (shared.probe(rs.filter(model=m)) for m in models[:2])
    assert set(a["model"]) == {models[0]} and set(b["model"]) == {models[1]}
    again = ambiglib.load(path, quiet=True)
    assert set(shared.probe(again.filter(model=[models[1]]))["model"]) == {models[1]}
    assert shared.built == ["probe"] * 2  # the same filter as a list or a value: found, not built


def test_the_newest_two_logs_results_are_kept(tmp_path, shared):
    import ambiglib.runset as runset

    rs = ambiglib.load(EXAMPLE, quiet=True)
    paths = []
    for i, model in enumerate(sorted(rs.runs["model"].dropna().unique())[:3]):
        part = rs.filter(model=model)
        paths.append(write_snapshot(part, [], str(EXAMPLE), tmp_path / f"s{i}"))
        shared.probe(ambiglib.load(paths[-1], quiet=True))
    assert len(runset._SHARED) == 2 and len(shared.built) == 3
    shared.probe(ambiglib.load(paths[0], quiet=True))  # let go: built again
    shared.probe(ambiglib.load(paths[2], quiet=True))  # kept
    assert len(shared.built) == 4


def test_a_copy_of_a_snapshot_is_read_from_its_own_files(snap, tmp_path):
    """The checked tables a process keeps are those of the files they map: a copy of the snapshot (the same
    content) is mapped from its own files, so truncating the original after a load does not reach a later load
    of the copy (through the old mapping, that crashed the process with SIGBUS). In a child process."""
    _, path = snap
    copy = tmp_path / "copy"
    code = ("import os, shutil, sys, ambiglib\n"
            "first = ambiglib.load(sys.argv[1], quiet=True)\n"
            "n = len(first.runs)\n"
            "shutil.copytree(sys.argv[1], sys.argv[2])\n"
            "del first\n"
            "os.truncate(os.path.join(sys.argv[1], 'runs.arrow'), 100)\n"
            "again = ambiglib.load(sys.argv[2], quiet=True)\n"
            "print(len(again.runs) == n, int(again.runs['trial'].sum()) > 0)\n")
    done = subprocess.run([sys.executable, "-c", code, str(path), str(copy)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, f"the load crashed the process: {done.returncode} {done.stderr[-500:]}"
    assert done.stdout.split() == ["True", "True"]


def test_a_filter_by_values_without_a_plain_key_shares_nothing(snap, shared):
    """A filter's key is its values' types and reprs, for plain scalars (text, numbers, None); any other value (an
    array's repr leaves values out: two could share one) gives a run set of no known content."""
    _, path = snap
    rs = ambiglib.load(path, quiet=True)
    assert rs.filter(model="gpt-5.4")._content() is not None
    assert rs.filter(model=["gpt-5.4", None], trial=np.int64(1))._content() is not None
    assert rs.filter(model=["gpt-5.4", pd.NA])._content() is None
