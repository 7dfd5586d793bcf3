"""A run's conversation (issue 58): the run log's optional ``transcript``, checked like every field and read when
asked for; the same turns after ``convert`` to JSON Lines and Parquet; a HIL-Bench pass's ``.traj`` read as its
turns, each question's turn marked, checked against the file read here with ``json``; the evidence pages' dialogues
and run pages, escaped and cut."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
from conftest import FIXTURES

import ambiglib
from ambiglib.errors import FormatError, SchemaError

HIL = FIXTURES / "harness-output" / "hil_cli_sql"
needs_hil = pytest.mark.skipif(not HIL.exists(), reason=f"HIL-Bench harness fixture not found at {HIL}")

TURNS = [
    {"role": "system", "content": "You analyse data."},
    {"role": "user", "content": "Predict the <target> & report it"},
    {"role": "assistant", "content": None, "tool_name": "ask_user", "tool_args": {"question": "Which target?"},
     "q_index": 0},
    {"role": "tool", "content": "the column 'y'", "tool_name": "ask_user", "answers": 0},
    {"role": "assistant", "content": "Done: <script>alert(1)</script>"},
]


def _run(task: str, **more) -> dict:
    rec = {"benchmark": "own", "suite": "s", "task_id": task, "model": "m", "spec": "ambiguous", "ask_tool": True,
           "questions": [{"text": "Which target?", "response": "the column 'y'"}]}
    rec.update(more)
    return rec


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _turns(t: pd.DataFrame) -> list[dict]:
    """A transcript's rows as run-log turns (null fields left out), to compare with what a record holds."""
    out = []
    for row in t.to_dict("records"):
        turn = {k: v for k, v in row.items() if k != "turn" and v is not None and v is not pd.NA}
        if "tool_args" in turn:
            turn["tool_args"] = json.loads(turn["tool_args"])
        out.append({k: (int(v) if k in ("q_index", "answers") else v) for k, v in turn.items()})
    return out


def _plain(turns: list[dict]) -> list[dict]:
    return [{k: v for k, v in t.items() if v is not None} for t in turns]


# ----------------------------------------------------------------------------- the run log's field


def test_a_records_transcript_is_read_when_asked_for(tmp_path):
    log = _write(tmp_path / "a.jsonl", [_run("t1", transcript={"covers": "conversation", "turns": TURNS}),
                                        _run("t2")])
    rs = ambiglib.load(log, quiet=True)
    # the load keeps where the turns are, not the turns
    assert not rs.runs.astype(str).apply(lambda c: c.str.contains("alert(1)", regex=False)).any().any()
    t = rs.transcript(rs.runs["run_id"][0])
    assert _turns(t) == _plain(TURNS)
    assert t.attrs["covers"] == "conversation" and t.attrs["where"] == f"{log.resolve()}:1"
    assert list(t["turn"]) == [0, 1, 2, 3, 4]
    none = rs.transcript(rs.runs["run_id"][1])
    assert len(none) == 0 and none.attrs["covers"] is None
    assert "has no 'transcript' field" in none.attrs["note"] and ":2" in none.attrs["note"]
    assert "no transcript" in repr(none)
    with pytest.raises(KeyError, match="no run with run_id"):
        rs.transcript("nope")


@pytest.mark.parametrize("transcript, field, expected", [
    ([], "transcript", "must be an object"),
    ({"covers": "everything", "turns": []}, "transcript.covers", "'conversation', 'tool_calls', 'questions'"),
    ({"covers": "conversation"}, "transcript.turns", "list of turn objects"),
    ({"covers": "conversation", "turns": [{"content": "x"}]}, "transcript.turns[0].role", "missing required"),
    ({"covers": "conversation", "turns": [{"role": "tool", "q_index": 1}]}, "transcript.turns[0].q_index",
     "the run has 1 question"),
    ({"covers": "conversation", "turns": [{"role": "tool", "answers": -1}]}, "transcript.turns[0].answers",
     "an integer >= 0"),
    ({"covers": "conversation", "turns": [{"role": "tool", "tool_args": "ls -l"}]}, "transcript.turns[0].tool_args",
     "must be an object or null"),
    ({"covers": "conversation", "turns": [{"role": "tool", "said": 1}]}, "transcript.turns[0].said", "unknown field"),
    ({"covers": "conversation", "turns": [], "source": "x"}, "transcript.source", "unknown field"),
])
def test_a_bad_transcript_is_an_error_naming_the_field(tmp_path, transcript, field, expected):
    log = _write(tmp_path / "a.jsonl", [_run("t1"), _run("t2", transcript=transcript)])
    with pytest.raises(SchemaError) as exc:
        ambiglib.load(log, quiet=True)
    assert "a.jsonl:2: " in str(exc.value) and f"field '{field}'" in str(exc.value)
    assert expected in str(exc.value)
    rs, errors = ambiglib.load(log, strict=False, quiet=True)  # lenient: the other run stands, the bad one counted
    assert len(rs.runs) == 1 and len(errors) == 1 and errors[0].line == 2


def test_a_log_changed_since_it_was_loaded_is_a_format_error(tmp_path):
    log = _write(tmp_path / "a.jsonl", [_run("t1", transcript={"covers": "conversation", "turns": TURNS})])
    rs = ambiglib.load(log, quiet=True)
    log.write_text("", encoding="utf-8")
    with pytest.raises(FormatError, match=r"a\.jsonl:1: the file has changed since it was loaded"):
        rs.transcript(rs.runs["run_id"][0])
    _write(log, [_run("t0"), _run("t1", transcript={"covers": "conversation", "turns": TURNS})])  # a line moved
    with pytest.raises(FormatError, match=r"a\.jsonl:1: the file has changed since it was loaded"):
        rs.transcript(rs.runs["run_id"][0])


def test_gzip_logs_keep_their_transcripts(tmp_path):
    log = tmp_path / "a.jsonl.gz"
    with gzip.open(log, "wt", encoding="utf-8") as fh:
        fh.write(json.dumps(_run("t1")) + "\n")
        fh.write(json.dumps(_run("t2", transcript={"covers": "questions", "turns": TURNS[2:4], "note": "Q&A"})) + "\n")
    rs = ambiglib.load(log, quiet=True)
    t = rs.transcript(rs.runs.loc[rs.runs["task_id"] == "t2", "run_id"].iloc[0])
    assert _turns(t) == _plain(TURNS[2:4]) and t.attrs["covers"] == "questions" and t.attrs["note"] == "Q&A"


@pytest.mark.parametrize("to", ["jsonl", "parquet"])
def test_convert_round_trips_the_transcripts(tmp_path, to):
    log = _write(tmp_path / "a.jsonl", [_run("t1", transcript={"covers": "conversation", "turns": TURNS}),
                                        _run("t2"),
                                        _run("t3", transcript={"covers": "tool_calls", "turns": [], "note": "none"})])
    out = tmp_path / ("copy.jsonl" if to == "jsonl" else "copy")
    done = subprocess.run([sys.executable, "-m", "ambiglib", "convert", "--runs", str(log), "--out", str(out),
                           "--to", to], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    if to == "jsonl":  # the file itself holds each transcript as the log gave it
        written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        by_task = {r["task_id"]: r for r in written}
        assert _plain(by_task["t1"]["transcript"]["turns"]) == _plain(TURNS)
        assert "transcript" not in by_task["t2"]
        assert by_task["t3"]["transcript"] == {"covers": "tool_calls", "turns": [], "note": "none"}
    else:
        assert (out / "transcripts.parquet").exists()
    before, after = ambiglib.load(log, quiet=True), ambiglib.load(out, quiet=True)
    for run_id in before.runs["run_id"]:
        a, b = before.transcript(run_id), after.transcript(run_id)
        pd.testing.assert_frame_equal(pd.DataFrame(a), pd.DataFrame(b))
        assert (a.attrs["covers"], a.attrs["note"] is None) == (b.attrs["covers"], b.attrs["note"] is None)


def test_a_parquet_log_reads_turns_only_from_its_own_file(tmp_path):
    """A ``transcript_at`` in runs.parquet is never followed: the folder's own transcripts file is."""
    from ambiglib.runlog._parquet import _with_own_locators

    runs = pa.table({"run_id": ["a", "b"], "transcript_at": ['{"reader": "hil-bench", "file": "/etc/passwd"}', None]})
    (tmp_path / "transcripts.parquet").write_bytes(b"")
    fixed = _with_own_locators(runs, tmp_path).column("transcript_at").to_pylist()
    assert json.loads(fixed[0]) == {"reader": "parquet", "file": str((tmp_path / "transcripts.parquet").resolve())}
    assert fixed[1] is None
    (tmp_path / "transcripts.parquet").unlink()
    assert _with_own_locators(runs, tmp_path).column("transcript_at").to_pylist() == [None, None]


def test_a_snapshot_reads_turns_only_inside_the_logs_it_was_made_of():
    from ambiglib.runlog._snapshot import confine_transcripts

    values = [json.dumps({"reader": "hil-bench", "file": "/logs/a/p.traj", "steps": [1]}, sort_keys=True),
              json.dumps({"reader": "hil-bench", "file": "/etc/passwd"}, sort_keys=True),
              json.dumps({"reader": "hil-bench", "file": "/logs/a/../../etc/passwd"}, sort_keys=True),
              json.dumps({"reader": "hil-bench", "file": "/logs/ab/p.traj"}, sort_keys=True),
              json.dumps({"none": "TheAgentCompany keeps no conversation"}), None]
    kept = confine_transcripts(pa.table({"transcript_at": values}), ["/logs/a"]).column(0).to_pylist()
    assert kept == [values[0], None, None, None, values[4], None]


def test_an_importer_key_in_a_canonical_log_is_an_unknown_field(tmp_path):
    """Only an importer gives a run its locator; a log that spells the key is refused, not followed."""
    log = _write(tmp_path / "a.jsonl", [_run("t1", _transcript_at={"reader": "hil-bench", "file": "/etc/passwd"})])
    with pytest.raises(SchemaError, match="unknown field '_transcript_at'"):
        ambiglib.load(log, quiet=True)


# ----------------------------------------------------------------------------- a harness's own output


def _traj_of(source_file: str) -> dict:
    return json.loads(Path(source_file).read_text(encoding="utf-8"))


@needs_hil
def test_hil_bench_trajectories_are_the_turns_and_mark_each_question():
    rs = ambiglib.load(HIL, quiet=True)
    assert len(rs.questions) > 0
    for run_id, qs in rs.questions.groupby("run_id", observed=True):
        t = rs.transcript(run_id)
        assert t.attrs["covers"] == "conversation"
        traj = _traj_of(t.attrs["where"])
        steps = traj["trajectory"]
        prompt = [m for m in steps[0]["query"] if m["role"] in ("system", "user")]
        assert len(t) == len(prompt) + 2 * len(steps)  # the prompt, then each step's action and observation
        for q in qs.itertuples():
            asked = t.loc[t["q_index"] == q.q_index]
            assert len(asked) == 1
            row = asked.iloc[0]
            step = steps[(int(row["turn"]) - len(prompt)) // 2]
            assert step["action"].startswith("ask_human")
            # the question as the importer gives it: the action's argument, ANSI-C quoting undone
            assert json.loads(row["tool_args"])["question"] == q.text
            assert q.text.replace("'", "\\'") in step["action"]
            answer = t.loc[t["answers"] == q.q_index]
            assert len(answer) == 1 and int(answer.iloc[0]["turn"]) == int(row["turn"]) + 1
            assert answer.iloc[0]["content"] == step["observation"]
        assert t["q_index"].notna().sum() == len(qs)


@needs_hil
def test_hil_bench_transcripts_round_trip_through_convert(tmp_path):
    rs = ambiglib.load(HIL, quiet=True)
    rs.to_jsonl(tmp_path / "h.jsonl")
    rs.to_parquet(tmp_path / "pq")
    for copy in (ambiglib.load(tmp_path / "h.jsonl", quiet=True), ambiglib.load(tmp_path / "pq", quiet=True)):
        for run_id in rs.runs["run_id"]:
            pd.testing.assert_frame_equal(pd.DataFrame(rs.transcript(run_id)), pd.DataFrame(copy.transcript(run_id)))


# ----------------------------------------------------------------------------- pages


@needs_hil
def test_evidence_pages_show_each_question_in_its_dialogue_and_link_every_run(tmp_path):
    rs = ambiglib.load(HIL, quiet=True)
    from ambiglib.evidence._rows import write_evidence_pages

    table = ambiglib.tables.leaderboard(rs)
    page = write_evidence_pages(table, "t", tmp_path)[0].read_text(encoding="utf-8")
    ev = table.evidence(0)
    assert f"Questions in their dialogue ({min(10, len(ev.questions))})" in page
    for q in ev.questions.itertuples():
        t = rs.transcript(q.run_id)
        at = int(t.index[t["q_index"] == q.q_index][0])
        # the turn before, the question, and its answer are on the page, in order
        marks = [f"turn {at - 1} · ", f"turn {at} · assistant · calls ask_human · asks question {q.q_index}",
                 f"turn {at + 1} · tool · result of ask_human · answers question {q.q_index}"]
        head = page.index(f"Question {q.q_index} of task {q.task_id}, trial {q.trial}:")
        places = [page.index(m, head) for m in marks]
        assert places == sorted(places)
    runs = sorted((tmp_path / "evidence" / "runs").iterdir())
    assert len(runs) == len(rs.runs)
    links = set(re.findall(r"href='\.\./runs/([0-9a-f]+\.html)", page))
    assert links == {p.name for p in runs}
    from ambiglib.evidence._dialogues import run_page_name

    for run_id in rs.runs["run_id"]:
        text = (tmp_path / "evidence" / "runs" / run_page_name(run_id)).read_text(encoding="utf-8")
        assert run_id in text
        assert text.count("<div class='turn") == len(rs.transcript(run_id))


def test_pages_escape_the_log_and_cut_long_turns(tmp_path):
    from ambiglib.evidence._dialogues import CONTENT_CHARS, run_page_name
    from ambiglib.evidence._rows import write_evidence_pages

    long = "x" * 1_000_000
    turns = [*TURNS[:3], {**TURNS[3], "content": long}, TURNS[4]]
    log = _write(tmp_path / "a.jsonl", [_run("t1", transcript={"covers": "conversation", "turns": turns})])
    rs = ambiglib.load(log, quiet=True)
    from ambiglib.tables import Table

    table = Table(rs.summary())  # a frame whose row names the run's columns, remembering its run set
    table._runset = rs
    write_evidence_pages(table, "t", tmp_path / "out")
    page = (tmp_path / "out" / "evidence" / "t" / "0.html").read_text(encoding="utf-8")
    run = (tmp_path / "out" / "evidence" / "runs" / run_page_name(rs.runs["run_id"][0])).read_text(encoding="utf-8")
    for text in (page, run):
        assert "<script>alert" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
        assert "&lt;target&gt; &amp; report" in text  # the prompt: two turns before the question
        assert f"cut: {len(long):,} characters in all, {CONTENT_CHARS:,} shown" in text
        assert long not in text and len(text) < 100_000
