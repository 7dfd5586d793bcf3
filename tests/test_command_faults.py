"""Every command under the faults a user's machine has (issue 38 §2, §4): a folder it may not write (run as an
unprivileged user, as users are), a full disk (a small tmpfs, where root may mount one), a target that is
someone else's file. Each ends in one line naming the path and the cause, exit 1, nothing partial left and
nothing written over; and no command leaves a lock file behind.

The commands run as ``python -m ambiglib`` in a child process, as a user would run them.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from unprivileged import world_tmp

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example"
LHAW = EXAMPLE / "lhaw.jsonl"


def ambiglib(*args: str, user: bool = False) -> subprocess.CompletedProcess:
    """``ambiglib ARGS`` in a child process; ``user``: as an unprivileged user (see :func:`_as_user`)."""
    if user and os.geteuid() == 0:
        return _as_user(list(args))
    return subprocess.run([sys.executable, "-m", "ambiglib", *args], capture_output=True, text=True, timeout=300)


def _as_user(argv: list[str]) -> subprocess.CompletedProcess:
    """The command as ``nobody``: a forked child imports what the command needs while it still may (the
    interpreter's own files may be root's alone), drops to uid 65534, and runs ``ambiglib.cli.main(argv)`` with
    its standard output and error on pipes; its exit status is the command's."""
    import io

    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 99
        try:
            os.close(out_r)
            os.close(err_r)
            from unprivileged import _drop, _warm

            _warm()
            import encodings.idna  # noqa: F401  (the report's notebook reader reaches it)

            import ambiglib.cli
            from ambiglib.report import bundled_notebooks, notebook_parameters

            for notebook in sorted(bundled_notebooks().glob("*.ipynb")):  # what report reads before it writes
                notebook_parameters(notebook)

            os.dup2(out_w, 1)
            os.dup2(err_w, 2)
            sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", buffering=0, closefd=False), write_through=True)
            sys.stderr = io.TextIOWrapper(os.fdopen(2, "wb", buffering=0, closefd=False), write_through=True)
            _drop()
            code = ambiglib.cli.main(argv)
        except BaseException:  # shown to the parent as the command's output
            import traceback

            traceback.print_exc()
        finally:
            os._exit(code)
    os.close(out_w)
    os.close(err_w)
    with os.fdopen(out_r, "rb") as fh:
        stdout = fh.read().decode("utf-8", "replace")
    with os.fdopen(err_r, "rb") as fh:
        stderr = fh.read().decode("utf-8", "replace")
    _, status = os.waitpid(pid, 0)
    return subprocess.CompletedProcess(argv, os.waitstatus_to_exitcode(status), stdout, stderr)


def one_line(proc: subprocess.CompletedProcess, command: str) -> str:
    """The single line a failed command printed on standard error (no traceback)."""
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"ambiglib {command}: "), proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    return lines[0]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# the commands that write, each with the --out it takes (a folder, or a JSON Lines file)
WRITERS = {
    "summary": lambda out: ("summary", "-q", "--runs", str(EXAMPLE), "--out", str(out)),
    "convert-parquet": lambda out: ("convert", "-q", "--runs", str(EXAMPLE), "--out", str(out)),
    "convert-jsonl": lambda out: ("convert", "-q", "--runs", str(EXAMPLE), "--out", str(out) + ".jsonl"),
    "convert-store": lambda out: ("convert", "-q", "--runs", str(EXAMPLE), "--out", str(out),
                                  "--partition-by", "benchmark"),
    "report": lambda out: ("report", "-q", "--runs", str(EXAMPLE), "--out", str(out), "--notebooks", "quickstart"),
}


@pytest.fixture
def shared():
    folder = world_tmp()
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="runs the command as another user, which needs root to switch to")
@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_folder_this_user_may_not_write_is_one_line(shared, writer):
    locked = shared / "locked"
    locked.mkdir()  # root's, 0755: the user may read it, not write in it
    out = locked / "out"
    proc = ambiglib(*WRITERS[writer](out), user=True)
    line = one_line(proc, WRITERS[writer](out)[0])
    assert "Permission denied" in line and str(locked) in line
    assert list(locked.iterdir()) == []  # nothing made, no lock file


def _full_disk(tmp_path: Path, free: int) -> Path:
    """A 1 MiB tmpfs holding a ``filler`` file that leaves ``free`` bytes (the caller unmounts it)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(disk)], capture_output=True).returncode:
        pytest.skip("this machine cannot mount a tmpfs (a container without CAP_SYS_ADMIN)")
    st = os.statvfs(disk)
    (disk / "filler").write_bytes(b"\0" * (st.f_bavail * st.f_frsize - free))
    return disk


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small tmpfs (a full disk) needs root")
@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_full_disk_is_one_line_and_leaves_nothing_partial(tmp_path, writer):
    disk = _full_disk(tmp_path, free=8 << 10)
    try:
        out = disk / "out"
        proc = ambiglib(*WRITERS[writer](out))
        line = one_line(proc, WRITERS[writer](out)[0])
        assert "No space left on device" in line
        assert sorted(p.name for p in disk.iterdir()) == ["filler"]  # no 0-byte file, no temporary, no lock file
    finally:
        subprocess.run(["umount", str(disk)], check=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small tmpfs (a full disk) needs root")
def test_convert_over_its_own_input_on_a_full_disk_never_cuts_the_input(tmp_path):
    disk = _full_disk(tmp_path, free=LHAW.stat().st_size + (8 << 10))
    try:
        log = disk / "mylog.jsonl"
        shutil.copy(LHAW, log)  # the disk now has 8 KiB left: less than the new copy needs
        before = digest(log)
        proc = ambiglib("convert", "-q", "--runs", str(log), "--out", str(log), "--force")
        assert "No space left on device" in one_line(proc, "convert")
        assert digest(log) == before  # the input whole, byte for byte
        assert sorted(p.name for p in disk.iterdir()) == ["filler", "mylog.jsonl"]
    finally:
        subprocess.run(["umount", str(disk)], check=True)


def test_convert_never_writes_over_another_log(tmp_path):
    other = tmp_path / "other-run.jsonl"
    shutil.copy(EXAMPLE / "ambig-ds.jsonl", other)
    before = digest(other)
    proc = ambiglib("convert", "--runs", str(LHAW), "--to", "jsonl", "--out", str(other))
    assert "exists: convert does not write over a file" in one_line(proc, "convert") and "--force" in proc.stderr
    assert digest(other) == before
    # with --force it is replaced, whole
    proc = ambiglib("convert", "-q", "--runs", str(LHAW), "--out", str(other), "--force")
    assert proc.returncode == 0, proc.stderr
    assert other.read_bytes().count(b"\n") == LHAW.read_bytes().count(b"\n")
    # a file that exists where a JSON Lines folder would go (--to jsonl, a name without .jsonl)
    (tmp_path / "f.txt").write_text("notes")
    proc = ambiglib("convert", "--runs", str(LHAW), "--to", "jsonl", "--out", str(tmp_path / "f.txt"), "--force")
    assert "exists and is not a folder" in one_line(proc, "convert")
    # a folder of the user's files, even with --force
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.md").write_text("mine")
    proc = ambiglib("convert", "--runs", str(LHAW), "--out", str(docs), "--force")
    assert "holds what is not a run log's (notes.md)" in one_line(proc, "convert")
    assert sorted(p.name for p in docs.iterdir()) == ["notes.md"]
    # a Parquet run log converted before: refused without --force, replaced with it
    pq = tmp_path / "pq"
    assert ambiglib("convert", "-q", "--runs", str(LHAW), "--out", str(pq)).returncode == 0
    assert "holds a run log already" in one_line(ambiglib("convert", "--runs", str(LHAW), "--out", str(pq)),
                                                         "convert")
    assert ambiglib("convert", "-q", "--runs", str(EXAMPLE), "--out", str(pq), "--force").returncode == 0
    assert not [p for p in tmp_path.iterdir() if "lock" in p.name or p.name.startswith(".")]


def test_summary_never_writes_over_a_users_files(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "summary.md").write_text("my own summary")
    proc = ambiglib("summary", "--runs", str(EXAMPLE), "--out", str(docs))
    assert "not ambiglib's" in one_line(proc, "summary")
    assert (docs / "summary.md").read_text() == "my own summary" and sorted(p.name for p in docs.iterdir()) == [
        "summary.md"]
    # into a report's folder: its summary files are replaced, the report's other files kept, nothing else made
    out = tmp_path / "reports"
    assert ambiglib(*WRITERS["report"](out)).returncode == 0
    kept = {p.name: digest(p) for p in out.iterdir() if not p.name.startswith("summary") and p.is_file()
            and p.name not in ("manifest.json", "rejected.csv")}
    proc = ambiglib("summary", "-q", "--runs", str(LHAW), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "lhaw.jsonl" in (out / "summary.md").read_text()
    assert {n: digest(out / n) for n in kept} == kept
    # a file of the user's put into a summary folder is never replaced
    fresh = tmp_path / "fresh"
    assert ambiglib("summary", "-q", "--runs", str(LHAW), "--out", str(fresh)).returncode == 0
    (fresh / "summary.csv").unlink()
    (fresh / "summary.csv").write_text("mine")
    assert ambiglib("summary", "-q", "--runs", str(LHAW), "--out", str(fresh)).returncode == 0  # listed: ours
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs", "fresh", "reports"]  # no lock file, no temporary


@pytest.mark.parametrize("writer", ["summary", "convert-parquet", "report"])
def test_an_out_inside_the_runs_folder_is_refused(tmp_path, writer):
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(LHAW, runs / "lhaw.jsonl")
    args = [a.replace(str(EXAMPLE), str(runs)) for a in WRITERS[writer](runs / "out")]
    proc = ambiglib(*args)
    assert "lies inside --runs" in one_line(proc, args[0])
    assert sorted(p.name for p in runs.iterdir()) == ["lhaw.jsonl"]


def test_a_refused_out_leaves_no_lock_file(tmp_path):
    (tmp_path / "thesis.tex").write_text("years of work")
    proc = ambiglib(*WRITERS["report"](tmp_path))
    assert "not an ambiglib report" in one_line(proc, "report")
    assert sorted(p.name for p in tmp_path.parent.iterdir() if p.name.startswith(f".{tmp_path.name}")) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["thesis.tex"]


@pytest.mark.parametrize("command", [["validate", "--runs", str(EXAMPLE)], ["compare", "--runs", str(EXAMPLE)],
                                     ["summary", "--runs", str(EXAMPLE)]])
def test_output_that_cannot_be_written_is_one_line_or_silence(tmp_path, command):
    if command[0] == "summary":
        command = [*command, "--out", str(tmp_path / "s")]
    # a reader that stops reading (`| head -1`): no traceback, the exit status of a broken pipe
    proc = subprocess.Popen([sys.executable, "-m", "ambiglib", *command], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline()
    proc.stdout.close()
    _, err = proc.communicate(timeout=300)
    assert proc.returncode in (0, 141) and err.decode() == "", err.decode()[-2000:]
    # standard output on a full disk (/dev/full): one line naming the cause
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "ambiglib", *command], stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=300)
    assert done.returncode == 1 and done.stderr.strip() == f"ambiglib {command[0]}: output: No space left on device"
