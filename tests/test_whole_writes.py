"""A write is all or nothing (issue 71): every folder output of a run log (a Parquet folder, a partitioned store, a
JSON Lines folder) is written whole aside and swapped in with one rename, so a process killed at any rename it makes
leaves a folder that loads exactly the old log or the new one, and the next write into it succeeds. The kills are
exact: strace stops the process with SIGKILL at its n-th rename, for every n until the write completes. The files
of one write carry one write id, and a folder whose files disagree is refused, naming them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import ambiglib
from ambiglib.errors import FormatError

STRACE = shutil.which("strace")
needs_strace = pytest.mark.skipif(STRACE is None, reason="strace is not installed: the kills are made with its"
                                                          " syscall injection (apt-get install strace)")
RENAMES = ("rename", "renameat", "renameat2")
_WHERE = {"source", "transcript_at", "log"}


def _log(path: Path, flavour: str) -> Path:
    """A log of 3 tasks x 2 models with blockers, questions and transcripts; the two flavours have the same rows
    and counts everywhere but different values (scores, which blocker a question resolves, the turns)."""
    records = []
    for t in range(3):
        records.append({"record": "task", "benchmark": "hil-bench", "suite": "sql", "task_id": f"t{t}",
                        "blockers": [{"id": f"b{i}"} for i in range(3)]})
    for t in range(3):
        for m in ("alpha", "beta"):
            score = (t + (m == "beta")) % 2 if flavour == "A" else 1 - (t + (m == "beta")) % 2
            blocker = "b0" if flavour == "A" else f"b{1 + t % 2}"
            records.append({
                "benchmark": "hil-bench", "suite": "sql", "task_id": f"t{t}", "model": m, "spec": "ambiguous",
                "ask_tool": True, "trial": 1, "score": float(score), "passed": bool(score),
                "questions": [{"text": f"{flavour}: which table?", "blocker_id": blocker, "response": "orders"}],
                "transcript": {"covers": "conversation", "turns": [
                    {"role": "user", "content": f"log {flavour}, task {t}"},
                    {"role": "assistant", "tool_name": "ask_human", "tool_args": {"q": "which table?"},
                     "q_index": 0},
                    {"role": "tool", "content": "orders", "answers": 0}]}})
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _same(a: ambiglib.RunSet, b: ambiglib.RunSet) -> bool:
    """Whether two run sets hold the same log: every frame's rows and values but where each row was read."""
    fa, fb = a.frames(), b.frames()
    for name, frame in fa.items():
        other = fb[name]
        if len(frame) != len(other):
            return False
        for column in frame.columns:
            if column not in _WHERE and not frame[column].reset_index(drop=True).equals(
                    other[column].reset_index(drop=True)):
                return False
    return True


def _transcripts(rs: ambiglib.RunSet) -> list[list]:
    return [rs.transcript(r)["content"].tolist() for r in rs.runs["run_id"]]


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("logs")
    a, b = _log(folder / "a.jsonl", "A"), _log(folder / "b.jsonl", "B")
    ra, rb = ambiglib.load(a), ambiglib.load(b)
    assert not _same(ra, rb)  # the two logs differ in values, not in counts
    assert {k: len(v) for k, v in ra.frames().items()} == {k: len(v) for k, v in rb.frames().items()}
    return a, b, ra, rb


def _convert(runs: Path, out: Path, *more: str) -> list[str]:
    return [sys.executable, "-m", "ambiglib", "convert", "--runs", str(runs), "--out", str(out), "--force", "-q",
            *more]


def _killed_at(call: str, n: int, cmd: list[str]) -> subprocess.CompletedProcess:
    """Run ``cmd`` under strace, killed (SIGKILL) at its ``n``-th ``call`` (a rename system call)."""
    return subprocess.run([STRACE, "-f", "-qq", "-o", os.devnull, "-e", f"trace={call}",
                           "-e", f"inject={call}:signal=SIGKILL:when={n}", *cmd], capture_output=True, text=True,
                          timeout=300)


# how the old log (A) is written into the folder first, and how the new one (B) is written over it
WRITERS = {
    "parquet over parquet": ((), ()),
    "store over store": (("--partition-by", "model"), ("--partition-by", "model")),
    "parquet over store": (("--partition-by", "model"), ()),
    "store over parquet": ((), ("--partition-by", "benchmark,model")),
    "jsonl folder over jsonl folder": (("--to", "jsonl"), ("--to", "jsonl")),
    "jsonl folder over parquet": ((), ("--to", "jsonl")),
}


@needs_strace
@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_kill_at_every_rename_leaves_the_old_log_or_the_new_one(logs, tmp_path, writer):
    a, b, ra, rb = logs
    first, then = WRITERS[writer]
    out = tmp_path / "out"
    kills = 0
    for call in RENAMES:
        for n in range(1, 40):  # every rename the write makes, until a run is not killed
            shutil.rmtree(out, ignore_errors=True)
            subprocess.run(_convert(a, out, *first), check=True, capture_output=True)  # the old log, whole
            killed = _killed_at(call, n, _convert(b, out, *then))
            got = ambiglib.load(out)  # never unloadable, never a mix
            assert _same(got, ra) or _same(got, rb), f"{writer}: killed at {call} #{n}: a mix of the two logs"
            if killed.returncode == 0:
                assert _same(got, rb)
                break
            kills += 1
            again = subprocess.run(_convert(b, out, *then), capture_output=True, text=True)
            assert again.returncode == 0, again.stderr  # the next write succeeds and cleans up
            got = ambiglib.load(out)
            assert _same(got, rb)
            if "--partition-by" not in then:  # a store keeps no transcripts
                assert _transcripts(got) == _transcripts(rb)
            assert sorted(os.listdir(tmp_path)) == ["out"], f"left beside it: {os.listdir(tmp_path)}"
        else:
            raise AssertionError(f"{writer}: still making {call} calls after 40")
    assert kills >= 1  # the write was killed at least once, at its swap


@needs_strace
def test_a_kill_between_the_two_renames_without_an_exchange_is_undone_by_the_next_write(logs, tmp_path):
    """Where the system has no renameat2 exchange, the old folder is renamed aside first: killed between the two
    renames (strace stops it on entering the second), the folder is absent, the old copy beside it; the next write
    puts it back, then replaces it."""
    a, b, ra, rb = logs
    out = tmp_path / "out"
    ra.to_parquet(out)
    script = ("import ambiglib, ambiglib.runlog._whole_writes as w, sys; w.exchange = lambda *a: False; "
              "ambiglib.load(sys.argv[1]).to_parquet(sys.argv[2])")
    killed = _killed_at("rename", 2, [sys.executable, "-c", script, str(b), str(out)])
    assert killed.returncode != 0
    assert not out.exists()
    left = sorted(os.listdir(tmp_path))
    assert len(left) == 2 and any(".out.ambiglib-old-" in n for n in left), left
    ra.to_parquet(tmp_path / "elsewhere")  # a write into another folder touches none of it
    shutil.rmtree(tmp_path / "elsewhere")
    rb.to_parquet(out)  # the next write into it: the old copy back, then replaced whole
    assert _same(ambiglib.load(out), rb)
    assert sorted(os.listdir(tmp_path)) == ["out"]


# ----------------------------------------------------------------------------- without a kill


def test_convert_over_a_store_of_another_log_gives_the_new_log_in_each_layout(logs, tmp_path):
    a, b, ra, rb = logs
    for to in ((), ("--partition-by", "model"), ("--to", "jsonl")):
        out = tmp_path / f"out{len(to)}{'j' if 'jsonl' in to else ''}"
        subprocess.run(_convert(a, out, "--partition-by", "model"), check=True, capture_output=True)
        done = subprocess.run(_convert(b, out, *to), capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert _same(ambiglib.load(out), rb), to
        assert "runs" not in os.listdir(out) or to  # the store's folders are gone with it, for a flat layout


def test_convert_over_its_own_output_of_a_log_with_transcripts(logs, tmp_path):
    a, b, ra, rb = logs
    out = tmp_path / "out"
    subprocess.run(_convert(a, out), check=True, capture_output=True)
    assert "transcripts.parquet" in os.listdir(out)
    done = subprocess.run(_convert(b, out), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr  # it used to refuse: "holds what is not a run log's"
    assert _same(ambiglib.load(out), rb) and _transcripts(ambiglib.load(out)) == _transcripts(rb)


def test_an_older_writes_temporary_file_does_not_block_the_next_write(logs, tmp_path):
    a, b, ra, rb = logs
    out = tmp_path / "out"
    ra.to_parquet(out)
    (out / ".runs.parquet.k3j_9x1a.tmp").write_bytes(b"half a file")  # what a killed file-at-a-time write left
    done = subprocess.run(_convert(b, out), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert sorted(os.listdir(out)) == ["blockers.parquet", "labels.parquet", "questions.parquet", "runs.parquet",
                                      "tasks.parquet", "transcripts.parquet"]


def test_a_killed_writes_folder_is_cleared_by_the_next_and_passed_over_by_a_load(logs, tmp_path):
    a, b, ra, rb = logs
    out = tmp_path / "logs" / "out"
    ra.to_parquet(out)
    dead = tmp_path / "logs" / ".out.ambiglib-writing-abc123"
    rb.to_parquet(dead)  # as a killed write leaves it: a whole or partial copy beside the folder
    both = ambiglib.load(tmp_path / "logs")  # the parent folder: the copy is no second log
    assert _same(both, ra)
    assert any("a write of a run log's folder made beside it" in k for k in both.skipped)
    ra.to_parquet(out)
    assert sorted(os.listdir(tmp_path / "logs")) == ["out"]


def test_a_live_writes_folder_is_left_alone(logs, tmp_path):
    import fcntl

    a, b, ra, rb = logs
    out = tmp_path / "out"
    live = tmp_path / ".out.ambiglib-writing-live"
    live.mkdir()
    fd = os.open(live, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # as the writer that made it holds it while it writes
    try:
        holder = subprocess.run([sys.executable, "-c", "import ambiglib, sys;"
                                 " ambiglib.load(sys.argv[1]).to_parquet(sys.argv[2])", str(a), str(out)],
                                capture_output=True, text=True)
        assert holder.returncode == 0, holder.stderr
        assert live.is_dir()
    finally:
        os.close(fd)


def test_a_leftover_holding_more_than_a_log_is_named_not_removed(logs, tmp_path):
    a, b, ra, rb = logs
    out = tmp_path / "out"
    odd = tmp_path / ".out.ambiglib-writing-odd"
    odd.mkdir()
    (odd / "notes.txt").write_text("mine")
    with pytest.raises(FormatError, match=r"\.out\.ambiglib-writing-odd: left beside out .* holds more than"):
        ra.to_parquet(out)
    done = subprocess.run(_convert(a, out), capture_output=True, text=True)
    assert done.returncode == 1 and done.stderr.startswith(f"ambiglib convert: {odd}: left beside out by a write")
    assert len(done.stderr.strip().splitlines()) == 1
    assert (odd / "notes.txt").read_text() == "mine" and not out.exists()


def test_to_parquet_never_replaces_a_folder_holding_anything_else(logs, tmp_path):
    a, b, ra, rb = logs
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(FormatError, match=r"holds what is not a run log's \(notes.txt\)"):
        ra.to_parquet(tmp_path)
    with pytest.raises(FormatError, match=r"holds what is not a run log's \(notes.txt\)"):
        ra.to_jsonl(tmp_path)
    assert os.listdir(tmp_path) == ["notes.txt"]


# ----------------------------------------------------------------------------- one write id


@pytest.mark.parametrize("file", ["questions.parquet", "transcripts.parquet"])
def test_a_parquet_folder_of_two_writes_is_refused_naming_its_files(logs, tmp_path, file):
    a, b, ra, rb = logs
    ra.to_parquet(tmp_path / "a")
    rb.to_parquet(tmp_path / "b")
    shutil.copy(tmp_path / "b" / file, tmp_path / "a" / file)  # a frame, or the conversations, of another log
    with pytest.raises(FormatError, match=rf"a: its files were written by 2 different writes \(.*{file}"):
        ambiglib.load(tmp_path / "a")


def test_a_store_frame_of_another_write_is_refused(logs, tmp_path):
    a, b, ra, rb = logs
    ra.to_parquet(tmp_path / "a", partition_by=("model",))
    rb.to_parquet(tmp_path / "b", partition_by=("model",))
    shutil.rmtree(tmp_path / "a" / "questions")
    shutil.copytree(tmp_path / "b" / "questions", tmp_path / "a" / "questions")
    with pytest.raises(FormatError, match=r"2 different writes \(.*questions/_common_metadata"):
        ambiglib.load(tmp_path / "a")


def test_a_store_part_of_another_write_is_refused(logs, tmp_path):
    a, b, ra, rb = logs
    ra.to_parquet(tmp_path / "a", partition_by=("model",))
    rb.to_parquet(tmp_path / "b", partition_by=("model",))
    part = "runs/model=alpha/part-0.parquet"
    shutil.copy(tmp_path / "b" / part, tmp_path / "a" / part)  # same rows, same columns: only the write differs
    with pytest.raises(FormatError, match=r"model=alpha/part-0.parquet: written by another write"):
        ambiglib.load(tmp_path / "a")


def test_a_folder_holding_a_parquet_log_and_a_store_is_refused(logs, tmp_path):
    a, b, ra, rb = logs
    ra.to_parquet(tmp_path / "a", partition_by=("model",))
    rb.to_parquet(tmp_path / "b")
    for f in os.listdir(tmp_path / "b"):
        shutil.copy(tmp_path / "b" / f, tmp_path / "a" / f)
    with pytest.raises(FormatError, match=r"holds a Parquet run log \(runs.parquet\) and a partitioned store"):
        ambiglib.load(tmp_path / "a")


def test_a_json_lines_folder_is_one_file(logs, tmp_path):
    """A JSON Lines folder holds one file, tasks first: no kill can leave one log's runs with another's
    blocker registry (it used to be runs.jsonl and tasks.jsonl, replaced one at a time)."""
    a, b, ra, rb = logs
    rb.to_jsonl(tmp_path / "j")
    assert os.listdir(tmp_path / "j") == ["log.jsonl"]
    lines = (tmp_path / "j" / "log.jsonl").read_text().splitlines()
    assert [json.loads(x).get("record") for x in lines[:3]] == ["task"] * 3
    assert _same(ambiglib.load(tmp_path / "j"), rb)
    # an older folder of two files is replaced whole, not file by file
    old = tmp_path / "old"
    old.mkdir()
    (old / "runs.jsonl").write_text("".join(x + "\n" for x in a.read_text().splitlines() if '"record"' not in x))
    (old / "tasks.jsonl").write_text("".join(x + "\n" for x in a.read_text().splitlines() if '"record"' in x))
    rb.to_jsonl(old)
    assert os.listdir(old) == ["log.jsonl"] and _same(ambiglib.load(old), rb)


def test_parquet_written_before_write_ids_is_refused_with_how_to_write_it_again(logs, tmp_path):
    import pyarrow.parquet as pq

    a, b, ra, rb = logs
    ra.to_parquet(tmp_path / "a")
    for f in os.listdir(tmp_path / "a"):
        table = pq.read_table(tmp_path / "a" / f)
        meta = {k: v for k, v in (table.schema.metadata or {}).items() if k != b"ambiglib.write_id"}
        pq.write_table(table.replace_schema_metadata(meta), tmp_path / "a" / f, write_page_checksum=True)
    with pytest.raises(FormatError, match=r"no write id in its files .* write Parquet run logs with RunSet.to_parquet"):
        ambiglib.load(tmp_path / "a")


def test_the_frames_of_a_write_equal_what_was_written(logs, tmp_path):
    """The read-back convert makes compares values, not only counts (pandas' own equality, column by column)."""
    a, b, ra, rb = logs
    for layout in ({}, {"partition_by": ("model",)}):
        ra.to_parquet(tmp_path / "p", **layout)
        got = ambiglib.load(tmp_path / "p")
        for name, frame in ra.frames().items():
            pd.testing.assert_frame_equal(frame.drop(columns=[c for c in _WHERE if c in frame]).reset_index(drop=True),
                                          got.frames()[name].drop(columns=[c for c in _WHERE if c in frame])
                                          .reset_index(drop=True))


@needs_strace
def test_summary_killed_at_every_rename_leaves_the_old_summary_or_the_new_one(logs, tmp_path):
    """``ambiglib summary`` writes several files into a report's folder: they are swapped in together (the rest of
    the folder linked into the new one), never some of one summary with some of another."""
    a, b, ra, rb = logs

    def summary(runs: Path, out: Path) -> list[str]:
        return [sys.executable, "-m", "ambiglib", "summary", "--runs", str(runs), "--out", str(out)]

    def held(out: Path) -> dict[str, bytes]:
        return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}

    out = tmp_path / "out"
    subprocess.run(summary(b, out), check=True, capture_output=True)
    new = held(out)
    kills = 0
    for call in RENAMES:
        for n in range(1, 40):
            shutil.rmtree(out, ignore_errors=True)
            subprocess.run(summary(a, out), check=True, capture_output=True)
            (out / "extra").mkdir()  # what the folder holds besides the summary stays (a report's other files)
            (out / "extra" / "table.csv").write_text("kept")
            manifest = json.loads((out / "manifest.json").read_text())
            (out / "manifest.json").write_text(json.dumps({**manifest, "files": manifest["files"] + ["extra/table.csv"]}))
            old = held(out)
            killed = _killed_at(call, n, summary(b, out))
            got = held(out)
            assert got == old or got == {**new, "extra/table.csv": b"kept", "manifest.json": got["manifest.json"]}, (
                f"killed at {call} #{n}: a mix of two summaries")
            if killed.returncode == 0:
                assert got != old
                break
            kills += 1
            assert subprocess.run(summary(b, out), capture_output=True).returncode == 0
            assert sorted(os.listdir(tmp_path)) == ["out"], os.listdir(tmp_path)
        else:
            raise AssertionError(f"still making {call} calls after 40")
    assert kills >= 1


def test_a_transcript_of_a_parquet_copy_written_again_since_the_load_is_refused(logs, tmp_path):
    """A Parquet copy's transcripts are read when asked for; if the folder has been written again since the load
    (another log, or the same runs in another order), the file is of another write: an error naming it, not
    another run's conversation."""
    a, b, ra, rb = logs
    ra.to_parquet(tmp_path / "p")
    loaded = ambiglib.load(tmp_path / "p")
    run = loaded.runs["run_id"].iloc[0]
    assert loaded.transcript(run)["content"].iloc[0] == "log A, task 0"
    rb.to_parquet(tmp_path / "p")
    with pytest.raises(FormatError, match=r"p/transcripts.parquet: written again since the log was loaded"):
        loaded.transcript(run)
    assert ambiglib.load(tmp_path / "p").transcript(run)["content"].iloc[0] == "log B, task 0"


@needs_strace
def test_a_json_lines_file_killed_at_every_rename_is_the_old_log_or_the_new_one(logs, tmp_path):
    a, b, ra, rb = logs
    out = tmp_path / "out.jsonl"
    for call in RENAMES:
        for n in range(1, 40):
            subprocess.run(_convert(a, out), check=True, capture_output=True)
            killed = _killed_at(call, n, _convert(b, out))
            got = ambiglib.load(out)
            assert _same(got, ra) or _same(got, rb), f"killed at {call} #{n}: a mix of the two logs"
            assert sorted(os.listdir(tmp_path)) == ["out.jsonl"] or killed.returncode != 0
            if killed.returncode == 0:
                assert _same(got, rb) and _transcripts(got) == _transcripts(rb)
                break
            assert subprocess.run(_convert(b, out), capture_output=True).returncode == 0
            assert _same(ambiglib.load(out), rb)
            assert sorted(os.listdir(tmp_path)) == ["out.jsonl"]  # the killed write's temporary file removed
        else:
            raise AssertionError(f"still making {call} calls after 40")


def test_a_user_who_is_not_root_writes_over_their_own_copy_and_is_told_where_they_cannot(logs):
    """As ``nobody`` (when the suite runs as root, whose writes no permission stops): a copy written again in
    place, in each layout, and a folder whose parent this user may not write refused in one line naming it."""
    from unprivileged import world_tmp

    a, b, ra, rb = logs
    as_user = [] if os.getuid() != 0 else [shutil.which("setpriv"), "--reuid=65534", "--regid=65534",
                                            "--clear-groups"]
    if os.getuid() == 0 and as_user[0] is None:
        pytest.skip("running as root without setpriv (util-linux) to drop to nobody")
    tmp = world_tmp()
    try:
        tmp.chmod(0o777)
        for name in ("a.jsonl", "b.jsonl"):
            shutil.copy(a if name == "a.jsonl" else b, tmp / name)
            (tmp / name).chmod(0o644)
        for more in ((), ("--partition-by", "model"), ("--to", "jsonl")):
            out = tmp / f"out{len(more)}{more[-1] if more else ''}"
            for log in ("a.jsonl", "b.jsonl"):
                done = subprocess.run([*as_user, *_convert(tmp / log, out, *more)], capture_output=True, text=True)
                assert done.returncode == 0, done.stderr
            assert _same(ambiglib.load(out), rb) and os.stat(out).st_uid == (65534 if as_user else os.getuid())
        (tmp / "closed").mkdir(mode=0o755)  # root's: nobody may not write in it
        if as_user:
            done = subprocess.run([*as_user, *_convert(tmp / "a.jsonl", tmp / "closed" / "x")], capture_output=True,
                                  text=True)
            assert done.returncode == 1
            assert done.stderr == (f"ambiglib convert: {tmp / 'closed'}: cannot be written (Permission denied); nothing"
                                   " was written over\n")
            assert os.listdir(tmp / "closed") == []
        assert sorted(n for n in os.listdir(tmp) if n.startswith(".")) == []  # nothing left beside the copies
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
