"""A read is of what it names (issue 71): a run's transcript, read after the load, comes from the file the load read
(its size and modification time, as recorded in the run's locator) and from the record the run was loaded from (the
line's SHA-256 and the run's id); a log rewritten since is a FormatError naming the file, from ``rs.transcript``, a
report's snapshot and the evidence pages alike. A log rewritten with its two runs swapped gave run t1 the
conversation of run t2, without a word."""

from __future__ import annotations

import gzip
import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES

import ambiglib
from ambiglib.errors import FormatError

HIL = FIXTURES / "harness-output" / "hil_cli_sql"
needs_hil = pytest.mark.skipif(not HIL.exists(), reason=f"HIL-Bench harness fixture not found at {HIL}")


def _talk(said: str) -> dict:
    return {"covers": "conversation", "turns": [
        {"role": "user", "content": said},
        {"role": "assistant", "content": None, "tool_name": "ask_user", "tool_args": {"question": "Which?"},
         "q_index": 0},
        {"role": "tool", "content": f"answer for {said}", "tool_name": "ask_user", "answers": 0}]}


def _run(task: str) -> dict:
    # both records of one length: swapped, the file keeps its size and each line its offset
    return {"benchmark": "own", "suite": "s", "task_id": task, "model": "m", "spec": "ambiguous", "ask_tool": True,
            "questions": [{"text": "Which?", "response": f"answer for {task}"}], "transcript": _talk(task)}


def _write(log: Path, records: list[dict]) -> None:
    text = "".join(json.dumps(r) + "\n" for r in records)
    if log.name.endswith(".gz"):
        with gzip.open(log, "wt", encoding="utf-8") as fh:
            fh.write(text)
    else:
        log.write_text(text, encoding="utf-8")


def _first(rs) -> str:
    return rs.runs.loc[rs.runs["task_id"] == "t1", "run_id"].iloc[0]


@pytest.mark.parametrize("engine", ["auto", "python"])
@pytest.mark.parametrize("name", ["log.jsonl", "log.jsonl.gz"])
def test_a_log_rewritten_with_its_runs_swapped_is_an_error_naming_the_file(tmp_path, name, engine):
    log = tmp_path / name
    _write(log, [_run("t1"), _run("t2")])
    rs = ambiglib.load(log, quiet=True, engine=engine)
    assert rs.transcript(_first(rs))["content"][0] == "t1"  # unchanged: read as loaded
    _write(log, [_run("t2"), _run("t1")])
    with pytest.raises(FormatError, match=rf"^{log.resolve()}:1: the file has changed since it was loaded .*;"
                                          " load it again$"):
        rs.transcript(_first(rs))
    assert ambiglib.load(log, quiet=True, engine=engine).transcript(_first(rs))["content"][0] == "t1"  # reloaded


@pytest.mark.parametrize("engine", ["auto", "python"])
def test_a_swap_that_keeps_the_files_size_and_time_is_told_by_the_record(tmp_path, engine):
    log = tmp_path / "log.jsonl"
    _write(log, [_run("t1"), _run("t2")])
    rs = ambiglib.load(log, quiet=True, engine=engine)
    st = log.stat()
    _write(log, [_run("t2"), _run("t1")])
    os.utime(log, ns=(st.st_atime_ns, st.st_mtime_ns))  # as a copy that keeps times would leave it
    assert (log.stat().st_size, log.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    with pytest.raises(FormatError, match=rf"^{log.resolve()}:1: the file has changed since it was loaded \(the"
                                          r" record there is not the one loaded: it is run t2 \(model m, trial 1\),"
                                          rf" not run {_first(rs).replace('|', '[|]')}\); load it again$"):
        rs.transcript(_first(rs))


def test_a_locator_without_the_records_digest_still_checks_the_run(tmp_path):
    # a locator of an older load (no digest, no stamp): the record's run id is what is checked
    log = tmp_path / "log.jsonl"
    _write(log, [_run("t1"), _run("t2")])
    rs = ambiglib.load(log, quiet=True)
    at = rs.runs["transcript_at"].map(json.loads)
    rs.runs["transcript_at"] = [json.dumps({k: v for k, v in a.items() if k not in ("sha256", "size", "mtime_ns")})
                                for a in at]
    assert rs.transcript(_first(rs))["content"][0] == "t1"
    _write(log, [_run("t2"), _run("t1")])
    with pytest.raises(FormatError, match=r"log\.jsonl:1: the file has changed since it was loaded \(the record"
                                          r" there is run t2 \(model m, trial 1\), not run own[|]s[|]t1[|]"):
        rs.transcript(_first(rs))


def test_the_locator_records_the_file_as_loaded(tmp_path):
    log = tmp_path / "log.jsonl"
    _write(log, [_run("t1"), _run("t2")])
    st = log.stat()
    for engine in ("auto", "python"):
        rs = ambiglib.load(log, quiet=True, engine=engine)
        at = json.loads(rs.runs["transcript_at"].iloc[1])
        line = log.read_bytes().splitlines()[1]
        import hashlib

        assert at == {"reader": "runlog", "file": str(log.resolve()), "line": 2, "offset": len(log.read_bytes()
                      .splitlines(keepends=True)[0]), "size": st.st_size, "mtime_ns": st.st_mtime_ns,
                      "sha256": hashlib.sha256(line).hexdigest()}


def test_a_report_snapshot_and_the_evidence_pages_surface_the_change(tmp_path):
    from ambiglib.evidence._dialogues import run_page_name
    from ambiglib.evidence._rows import write_evidence_pages
    from ambiglib.runlog._snapshot import write_snapshot

    logs = tmp_path / "logs"
    logs.mkdir()
    log = logs / "log.jsonl"
    _write(log, [_run("t1"), _run("t2")])
    rs, errors = ambiglib.load(logs, strict=False, quiet=True)
    snap = ambiglib.load(write_snapshot(rs, errors, str(logs), tmp_path / "snapshot", roots=[logs]), quiet=True)
    assert snap.transcript(_first(snap))["content"][0] == "t1"
    _write(log, [_run("t2"), _run("t1")])
    # the notebooks' run set (the snapshot's) reads through the same check
    with pytest.raises(FormatError, match=rf"^{log.resolve()}:1: the file has changed since it was loaded"):
        snap.transcript(_first(snap))
    # the run page: it says the transcript could not be read, naming the file; the other pages stand
    from ambiglib.tables import Table

    table = Table(snap.summary())  # a frame whose row names the runs' columns, remembering its run set
    table._runset = snap
    write_evidence_pages(table, "t", tmp_path / "pages")
    page = (tmp_path / "pages" / "evidence" / "runs" / run_page_name(_first(snap))).read_text(encoding="utf-8")
    assert "the transcript could not be read" in page and f"{log.resolve()}:1: the file has changed since" in page
    assert "answer for t2" not in page  # run t2's conversation is never shown as t1's
    # the evidence pages' dialogues: each transcript that could not be read says so, never "keeps no conversation"
    pages = [f.read_text(encoding="utf-8") for f in sorted((tmp_path / "pages" / "evidence" / "t").glob("*.html"))]
    asked = [page for page in pages if "Questions in their dialogue" in page or "No question shown" in page]
    assert asked and all(f"{log.resolve()}:" in page and "whose transcript could not be read" in page and "the file has changed since" in page
                         and "keeps no conversation" not in page for page in asked)


@needs_hil
def test_a_native_file_changed_since_the_load_is_an_error_naming_it(tmp_path):
    # a HIL-Bench trajectory edited where its reader's own checks (the steps, the questions) cannot see it:
    # one observation's text. The old read returned the edited turns as the run's.
    root = shutil.copytree(HIL, tmp_path / "hil")
    rs = ambiglib.load(root, quiet=True)
    run = rs.runs.loc[rs.runs["transcript_at"].notna()].iloc[0]
    file = Path(json.loads(run["transcript_at"])["file"])
    before = rs.transcript(run["run_id"])
    text = file.read_text(encoding="utf-8")
    said = next(t for t in before["content"] if isinstance(t, str) and len(t) > 20 and json.dumps(t)[1:-1] in text)
    file.write_text(text.replace(json.dumps(said)[1:-1], json.dumps(said.upper())[1:-1], 1), encoding="utf-8")
    with pytest.raises(FormatError, match=rf"^{file}: the file has changed since it was loaded .*; load it again$"):
        rs.transcript(run["run_id"])
    assert said.upper() in list(ambiglib.load(root, quiet=True).transcript(run["run_id"])["content"])
