"""Transcripts of Inspect AI runs (issue 58): ``rs.transcript(run_id)`` reads the run's sample again from its log.

The logs are written by Inspect itself: the runnable example of docs/own-benchmark.md with its ask tool under a
name of its own (``request_clarification``, given with ``ask_tools=``), those logs rewritten as ``.json`` logs by
Inspect's ``write_eval_log``, and the bundled fixtures of tests/fixtures/inspect/ (``ask_user``: errored, limited
and interrupted samples, a ``.json`` log). Every expected turn is read here from the sample's own JSON with
``zipfile``/``json``, never through ambiglib."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

pytest.importorskip("inspect_ai", reason="Inspect AI logs need inspect-ai (pip install 'ambiglib[inspect]')")
try:  # Inspect's dependency: zipfile reads its Zstandard members with it (on its own from Python 3.14)
    import zipfile_zstd  # noqa: F401
except ImportError:
    pass

import ambiglib
from ambiglib.errors import FormatError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "ask_or_guess.py"
BUNDLED = ROOT / "tests" / "fixtures" / "inspect"
TOOL = "request_clarification"


@pytest.fixture(scope="module")
def renamed(tmp_path_factory) -> Path:
    """The example's logs (.eval), run offline by Inspect, with the ask tool named request_clarification."""
    folder = tmp_path_factory.mktemp("renamed")
    script = folder / "ask_or_guess.py"
    script.write_text(EXAMPLE.read_text().replace("ask_user", TOOL))
    done = subprocess.run([sys.executable, str(script), str(folder / "logs")], capture_output=True, text=True,
                          timeout=300, cwd=folder)
    assert done.returncode == 0, done.stderr[-3000:]
    return folder / "logs"


def _header(path: Path) -> Any:
    from inspect_ai.log import read_eval_log

    return read_eval_log(str(path), header_only=True)


def _log_of(logs: Path, model: str, spec: str, ask: bool) -> Path:
    found = [p for p in sorted(logs.glob("*.eval")) if (h := _header(p)).eval.model == model
             and h.eval.task_args.get("spec") == spec and h.eval.task_args.get("ask") == ask]
    assert len(found) == 1, found
    return found[0]


@pytest.fixture(scope="module")
def renamed_json(renamed, tmp_path_factory) -> Path:
    """The careful agent's four logs, rewritten as .json logs by Inspect's own writer."""
    from inspect_ai.log import read_eval_log, write_eval_log

    out = tmp_path_factory.mktemp("renamed_json")
    for p in sorted(renamed.glob("*.eval")):
        log = read_eval_log(str(p))
        if log.eval.model == "mockllm/careful":
            write_eval_log(log, str(out / (p.stem + ".json")), format="json")
    return out


# ----------------------------------------------------------------------------- the truth, read here


def _samples(file: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """Every sample of a log, read with zipfile/json: (id, epoch) -> the sample's JSON."""
    out = {}
    if file.suffix == ".eval":
        with zipfile.ZipFile(file) as z:
            for name in z.namelist():
                if name.startswith("samples/") and name.endswith(".json"):
                    s = json.loads(z.read(name))
                    out[(str(s["id"]), s["epoch"])] = s
    else:
        for s in json.loads(file.read_text())["samples"]:
            out[(str(s["id"]), s["epoch"])] = s
    return out


def _text(content: Any) -> str | None:
    """A message's content as a turn shows it: text parts one a line, other parts named by their type."""
    if content is None or isinstance(content, str):
        return content
    return "\n".join(p["text"] if p["type"] == "text" else f"[{p['type']}]" for p in content)


def _expected(messages: list[dict[str, Any]]) -> list[tuple[str, str | None, str | None, dict | None]]:
    """The turns a sample's messages make: (role, content, tool_name, tool_args)."""
    turns = []
    for m in messages:
        text = _text(m.get("content"))
        if m["role"] == "assistant":
            calls = m.get("tool_calls") or []
            if text or not calls:
                turns.append(("assistant", text, None, None))
            turns += [("assistant", None, c["function"], c["arguments"]) for c in calls]
        elif m["role"] == "tool":
            error = (m.get("error") or {}).get("message")
            if error:
                text = f"{text}\n[error: {error}]" if text else f"[error: {error}]"
            turns.append(("tool", text, m.get("function"), None))
        else:
            turns.append((m["role"], text, None, None))
    return turns


def _value(v: Any) -> Any:
    return None if v is pd.NA or (isinstance(v, float) and v != v) else v


def _check(rs, tool: str) -> tuple[int, int]:
    """Every run's transcript against its sample's messages; every question's turn and its answer's.
    Returns (runs, questions) checked."""
    truth: dict[str, dict] = {}
    questions = 0
    for run in rs.runs.itertuples():
        file = run.source.rsplit(":", 1)[0]
        sample = (truth.setdefault(file, _samples(Path(file))))[(run.task_id, int(run.trial))]
        t = rs.transcript(run.run_id)
        assert t.attrs["covers"] == "conversation"
        want = _expected(sample.get("messages") or [])
        assert len(t) == len(want), run.run_id
        for row, (role, content, name, args) in zip(t.itertuples(), want):
            assert (row.role, _value(row.content), _value(row.tool_name)) == (role, content, name), run.run_id
            assert (None if _value(row.tool_args) is None else json.loads(row.tool_args)) == args
        qs = rs.questions[rs.questions["run_id"] == run.run_id].sort_values("q_index")
        assert int(t["q_index"].notna().sum()) == len(qs) == int(run.n_questions)
        # every call of the ask tool is one of the run's questions, and no other turn is
        messages = sample.get("messages") or []
        calls = [c for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []
                 if c["function"] == tool]
        replies = {m.get("tool_call_id"): m for m in messages if m["role"] == "tool"}  # the last of an id counts
        assert int(((t["tool_name"] == tool) & (t["role"] == "assistant")).sum()) == len(calls) == len(qs)
        for q in qs.itertuples():
            asked = t[t["q_index"] == q.q_index]
            assert len(asked) == 1
            turn = int(asked["turn"].iloc[0])
            assert asked["tool_name"].iloc[0] == tool
            assert json.loads(asked["tool_args"].iloc[0])["question"] == q.text == calls[q.q_index]["arguments"][
                "question"]
            reply = replies.get(calls[q.q_index]["id"])
            if reply is None:  # a limit stopped the sample before the tool answered
                assert (t["answers"] == q.q_index).sum() == 0 and _value(q.response) is None
                questions += 1
                continue
            answer = t.iloc[turn + 1]  # one call a message here: its tool message follows it
            assert answer["role"] == "tool" and _value(answer["answers"]) == q.q_index
            if _value(q.response) is not None and not reply.get("error"):
                assert answer["content"] == q.response
            questions += 1
        assert int(t["answers"].notna().sum()) == sum(1 for c in calls if c["id"] in replies)
    return len(rs.runs), questions


# ----------------------------------------------------------------------------- the conversations


def test_an_ask_tool_of_its_own_name_in_eval_logs(renamed):
    rs = ambiglib.load(renamed, ask_tools=[TOOL])
    runs, questions = _check(rs, TOOL)
    # careful asks 11 questions on the ambiguous requests and 1 on the full ones, in each of 2 epochs
    assert runs == 2 * 4 * 8 * 2 and questions == len(rs.questions) == 2 * (11 + 1)
    first = rs.transcript(rs.questions["run_id"].iloc[0])
    assert "(sample " in first.attrs["where"] and first.attrs["where"].startswith(str(renamed.resolve()))


def test_an_ask_tool_of_its_own_name_in_json_logs(renamed_json):
    rs = ambiglib.load(renamed_json, ask_tools=[TOOL])
    runs, questions = _check(rs, TOOL)
    assert runs == 4 * 8 * 2 and questions == len(rs.questions) == 2 * (11 + 1)


def test_the_bundled_fixtures_errored_limited_and_interrupted_samples():
    rs, errors = ambiglib.load(BUNDLED, strict=False)
    runs, questions = _check(rs, "ask_user")
    assert runs == len(rs.runs) > 100 and questions == len(rs.questions) > 50
    assert set(rs.runs["status"]) >= {"ok", "error", "invalid"}
    assert rs.runs["source"].str.contains(r"\.json:").any()


def test_an_ask_tool_not_named_marks_no_question(renamed, tmp_path):
    """The ask-tool evals alone, loaded without naming the tool: its calls are turns of no question."""
    folder = tmp_path / "tool"
    folder.mkdir()
    for spec in ("full", "ambiguous"):
        log = _log_of(renamed, "mockllm/careful", spec, True)
        shutil.copy(log, folder / log.name)
    with pytest.warns(ambiglib.errors.AskToolWarning):
        rs = ambiglib.load(folder)
    assert len(rs.questions) == 0
    calls = 0
    for run_id in rs.runs["run_id"]:
        t = rs.transcript(run_id)
        assert t["q_index"].isna().all() and t["answers"].isna().all()
        calls += int((t["tool_name"] == TOOL).sum())
    assert calls == 2 * 2 * (11 + 1)  # each call and its tool message, still in the conversation


def test_content_parts_and_tool_errors_as_inspect_writes_them(renamed, tmp_path):
    """A log rewritten with Inspect's own types: a user message of text and image parts, an ask tool call that
    errored, an assistant turn with reasoning."""
    from inspect_ai.log import read_eval_log, write_eval_log
    from inspect_ai.model import ContentImage, ContentReasoning, ContentText
    from inspect_ai.tool import ToolCallError

    src = _log_of(renamed, "mockllm/careful", "ambiguous", True)
    log = read_eval_log(str(src))
    sample = next(s for s in log.samples if s.id == "chart" and s.epoch == 1)
    sample.messages[0].content = [ContentText(text=sample.messages[0].text),
                                  ContentImage(image="data:image/png;base64,iVBORw0KGgo=")]
    tool = next(m for m in sample.messages if m.role == "tool")
    tool.content, tool.error = "", ToolCallError("timeout", "Command timed out before completing.")
    last = sample.messages[-1]
    last.content = [ContentReasoning(reasoning="think"), ContentText(text=last.text)]
    out = tmp_path / "parts"
    out.mkdir()
    write_eval_log(log, str(out / (src.stem + ".json")), format="json")
    rs = ambiglib.load(out, ask_tools=[TOOL])
    _check(rs, TOOL)
    run = rs.runs[(rs.runs["task_id"] == "chart") & (rs.runs["trial"] == 1)]["run_id"].iloc[0]
    t = rs.transcript(run)
    assert t["content"].iloc[0] == "Plot revenue.\n[image]"
    answered = t[t["answers"] == 0]
    assert answered["content"].iloc[0] == "[error: Command timed out before completing.]"
    assert t["content"].iloc[-1].startswith("[reasoning]\n")


def test_a_sample_without_messages_is_a_conversation_of_no_turns(renamed, tmp_path):
    from inspect_ai.log import read_eval_log, write_eval_log

    src = _log_of(renamed, "mockllm/guesser", "ambiguous", False)
    log = read_eval_log(str(src))
    log.samples[0].messages = []
    gone = (log.samples[0].id, log.samples[0].epoch)
    out = tmp_path / "empty"
    out.mkdir()
    write_eval_log(log, str(out / (src.stem + ".json")), format="json")
    rs = ambiglib.load(out)
    run = rs.runs[(rs.runs["task_id"] == gone[0]) & (rs.runs["trial"] == gone[1])]["run_id"].iloc[0]
    t = rs.transcript(run)
    assert len(t) == 0 and t.attrs["covers"] == "conversation" and "no messages" in t.attrs["note"]
    assert _check(rs, TOOL)[0] == 16


def test_a_member_not_named_as_inspect_names_it_has_no_transcript(renamed, tmp_path):
    """A .eval rezipped (deflate) with one sample's member renamed: the run loads, but its sample cannot be found
    again by the name Inspect gives it, which the transcript says; the other runs read theirs."""
    src = _log_of(renamed, "mockllm/careful", "ambiguous", True)
    (tmp_path / "a").mkdir()
    log = tmp_path / "a" / src.name
    with zipfile.ZipFile(src) as z, zipfile.ZipFile(log, "w", zipfile.ZIP_DEFLATED) as out:
        for name in z.namelist():
            out.writestr(name.replace("samples/prices_epoch_1.json", "samples/renamed_epoch_1.json"), z.read(name))
    rs = ambiglib.load(log.parent, ask_tools=[TOOL])
    run = rs.runs[(rs.runs["task_id"] == "prices") & (rs.runs["trial"] == 1)]["run_id"].iloc[0]
    t = rs.transcript(run)
    assert len(t) == 0 and t.attrs["covers"] is None and "samples/prices_epoch_1.json" in t.attrs["note"]
    others = rs.runs[rs.runs["run_id"] != run]
    assert len(others) == 15 and all(len(rs.transcript(r)) > 0 for r in others["run_id"])


def test_streamed_members_give_the_same_turns(renamed, monkeypatch):
    """A member larger than STREAM_ABOVE is streamed (its events skipped unbuilt), as the import reads it."""
    from ambiglib.importers import _inspect_files as inspect_files

    rs = ambiglib.load(renamed, ask_tools=[TOOL])
    runs = list(rs.questions["run_id"].unique()[:6])
    whole = [rs.transcript(r) for r in runs]
    monkeypatch.setattr(inspect_files, "STREAM_ABOVE", 0)
    for r, before in zip(runs, whole):
        pd.testing.assert_frame_equal(rs.transcript(r), before)
    assert sum(len(t) for t in whole) > 6 * 4


def test_a_json_log_holding_nan_is_read_whole(renamed_json, tmp_path):
    """A .json log whose header holds NaN (which Python's JSON reads and the streaming parser refuses): read
    whole, as the import reads it, giving the same turns."""
    src = next(p for p in sorted(renamed_json.glob("*.json")) if b"Which currency do you mean?" in p.read_bytes())
    text = src.read_text()
    nan = re.sub(r'("results".*?"value":\s*)(-?[0-9][0-9.eE+-]*)', r"\1NaN", text, count=1, flags=re.S)
    assert nan != text and text.index('"results"') < nan.index("NaN") < text.index('"samples": [')
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / src.name).write_text(nan)
    clean = ambiglib.load(renamed_json / src.name, ask_tools=[TOOL])
    rs = ambiglib.load(tmp_path / "a", ask_tools=[TOOL])
    assert _check(rs, TOOL)[1] > 0
    for r in rs.questions["run_id"].unique():
        pd.testing.assert_frame_equal(rs.transcript(r).reset_index(drop=True),
                                      clean.transcript(r).reset_index(drop=True))


# ----------------------------------------------------------------------------- a log that changed after the load


def _loaded_copy(src: Path, folder: Path):
    folder.mkdir()
    log = folder / src.name
    shutil.copy(src, log)
    rs = ambiglib.load(folder, ask_tools=[TOOL])
    run = rs.questions["run_id"].iloc[0]
    rs.transcript(run)  # readable as loaded
    return rs, run, log


def test_a_log_removed_after_the_load(renamed, tmp_path):
    rs, run, log = _loaded_copy(_log_of(renamed, "mockllm/careful", "ambiguous", True), tmp_path / "a")
    log.unlink()
    with pytest.raises(FormatError, match=f"{log}: no such file"):
        rs.transcript(run)


def test_a_log_replaced_by_another_after_the_load(renamed, tmp_path):
    """Same task, same sample ids and epochs, another agent's conversations: the member's CRC tells."""
    rs, run, log = _loaded_copy(_log_of(renamed, "mockllm/careful", "ambiguous", True), tmp_path / "a")
    shutil.copy(_log_of(renamed, "mockllm/guesser", "ambiguous", True), log)
    with pytest.raises(FormatError, match=f"{log}: member samples/.*the log changed"):
        rs.transcript(run)
    log.write_bytes(b"not a zip")
    with pytest.raises(FormatError, match=f"{log}: member samples/.*cannot be read .*BadZipFile"):
        rs.transcript(run)
    log.unlink()
    log.mkdir()
    with pytest.raises(FormatError, match=f"{log}: expected a file, found a folder"):
        rs.transcript(run)


def test_a_json_log_edited_after_the_load(renamed_json, tmp_path):
    src = next(p for p in sorted(renamed_json.glob("*.json")) if b"Which currency do you mean?" in p.read_bytes())
    rs, run, log = _loaded_copy(src, tmp_path / "a")
    st = log.stat()
    log.write_bytes(log.read_bytes().replace(b"Which currency do you mean?", b"Which currencY do you mean?"))
    assert log.stat().st_size == st.st_size
    os.utime(log, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # a coarse clock may keep the old time
    with pytest.raises(FormatError, match=f"{log}: the log changed since it was loaded"):
        rs.transcript(run)
    log.write_bytes(log.read_bytes()[: st.st_size // 2])
    with pytest.raises(FormatError, match=f"{log}: the log changed"):
        rs.transcript(run)
