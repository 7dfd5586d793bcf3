"""Transcripts of τ-bench runs, read again from the results file: checked against τ-bench's published trajectories
(tests/fixtures/tau-bench: GPT-4o, airline, 50 tasks × 4 trials, MIT), every expected turn computed here from the
file with ``json``, never through ambiglib."""

from __future__ import annotations

import gzip
import json
import os
import re
from pathlib import Path

import pandas as pd
import pytest

import ambiglib
from ambiglib.errors import FormatError
from ambiglib.importers._taubench import read_transcript

PUBLISHED = Path(__file__).resolve().parent / "fixtures" / "tau-bench" / "gpt-4o-airline.json.gz"
pytestmark = pytest.mark.skipif(not PUBLISHED.is_file(), reason=f"τ-bench's published trajectories ({PUBLISHED})"
                                                                " are not in this checkout")


@pytest.fixture(scope="module")
def raw():
    return json.loads(gzip.decompress(PUBLISHED.read_bytes()))


@pytest.fixture(scope="module")
def published(tmp_path_factory, raw):
    """The published file as run.py writes it (indented JSON), loaded, and every run's transcript read once."""
    path = tmp_path_factory.mktemp("tau") / "gpt-4o-airline.json"
    path.write_text(json.dumps(raw, indent=2))
    rs = ambiglib.load(path, quiet=True)
    return rs, {run_id: rs.transcript(run_id) for run_id in rs.runs["run_id"]}


def _entry(rs, raw, run_id):
    """The results entry of a run, found by its task and trial (1-based in the run set, 0-based in the file)."""
    run = rs.runs.loc[rs.runs["run_id"] == run_id].iloc[0]
    return next(r for r in raw if str(r["task_id"]) == run["task_id"] and r["trial"] + 1 == run["trial"])


def _calls(message):
    """The function calls of a message, by hand: each ``tool_calls`` item whose function is not null."""
    return [c["function"] for c in message.get("tool_calls") or [] if c.get("function") is not None]


def _expected_turns(traj):
    """(role, content, tool_name, tool_args) of each turn: a message, then one turn per tool call after it."""
    out = []
    for m in traj:
        out.append((m["role"], m.get("content"), m.get("name") if m["role"] == "tool" else None, None))
        if m["role"] == "assistant":
            for fn in _calls(m):
                try:
                    args = json.loads(fn["arguments"])
                except ValueError:
                    args = None
                args = args if isinstance(args, dict) else {"raw": fn["arguments"]}
                out.append(("assistant", None, fn["name"], args))
    return out


def _rows(t):
    """(role, content, tool_name, tool_args) of each turn of a transcript frame."""
    def val(v):
        return None if v is None or v is pd.NA else v

    return [(r.role, val(r.content), val(r.tool_name), None if val(r.tool_args) is None else json.loads(r.tool_args))
            for r in t.itertuples()]


def test_every_question_is_its_turn_with_the_question_text_and_the_users_reply_answers_it(published, raw):
    rs, transcripts = published
    checked = 0
    for run_id, qs in rs.questions.groupby("run_id"):
        t = transcripts[run_id]
        traj = _entry(rs, raw, run_id)["traj"]
        assert t.attrs["covers"] == "conversation"
        # by hand: the asking messages are the agent's messages without a tool call holding a "?", in order; each
        # is one turn after the messages and the tool calls before it, and the user's next message answers it
        asking = [i for i, m in enumerate(traj)
                  if m["role"] == "assistant" and not m.get("tool_calls") and "?" in (m.get("content") or "")]
        assert len(asking) == len(qs)
        for q in qs.itertuples():
            pos = asking[q.q_index]
            turn = pos + sum(len(_calls(m)) for m in traj[:pos] if m["role"] == "assistant")
            asks = t.loc[t["q_index"] == q.q_index]
            assert list(asks["turn"]) == [turn]
            assert asks.iloc[0]["role"] == "assistant" and asks.iloc[0]["content"] == q.text == traj[pos]["content"]
            answer = t.loc[t["answers"] == q.q_index]
            assert list(answer["turn"]) == [turn + 1]
            assert answer.iloc[0]["role"] == "user" and answer.iloc[0]["content"] == traj[pos + 1]["content"]
            checked += 1
        assert t["q_index"].notna().sum() == t["answers"].notna().sum() == len(qs)
    assert checked == len(rs.questions) == 533  # the questions of the 191 runs that ask


def test_turns_are_the_messages_and_one_more_per_tool_call(published, raw):
    rs, transcripts = published
    extra = 0
    for run_id, t in transcripts.items():
        traj = _entry(rs, raw, run_id)["traj"]
        n_calls = sum(len(_calls(m)) for m in traj if m["role"] == "assistant")
        assert len(t) == len(traj) + n_calls
        assert _rows(t) == _expected_turns(traj)
        extra += n_calls
    assert len(transcripts) == 200 and extra == 1164  # every published tool-calling message calls one tool


def test_a_call_with_arguments_that_are_no_json_object_and_a_second_call_are_turns(tmp_path, raw):
    records = json.loads(json.dumps(raw[:2]))
    traj = records[0]["traj"]
    first = next(i for i, m in enumerate(traj) if m["role"] == "assistant" and m.get("tool_calls"))
    second = next(i for i, m in enumerate(traj) if i > first and m["role"] == "assistant" and m.get("tool_calls"))
    traj[first]["tool_calls"].append({"id": "call_x", "type": "function",
                                      "function": {"name": "think", "arguments": '{"thought": "two calls"}'}})
    traj[second]["tool_calls"][0]["function"]["arguments"] = "[1, 2]"
    path = tmp_path / "gpt-4o-airline.json"
    path.write_text(json.dumps(records))
    rs = ambiglib.load(path, quiet=True)
    t = rs.transcript(rs.runs.loc[rs.runs["task_id"] == str(records[0]["task_id"])].iloc[0]["run_id"])
    assert len(t) == len(traj) + sum(len(m.get("tool_calls") or []) for m in traj)
    assert _rows(t) == _expected_turns(traj)
    assert {"raw": "[1, 2]"} in [r[3] for r in _rows(t)]
    assert ("assistant", None, "think", {"thought": "two calls"}) in _rows(t)


def _as_react(record):
    """A tool-calling record's trajectory as τ-bench's ChatReActAgent.solve writes it: each agent message is text
    ending in ``Action:`` and a JSON action, followed by a ``user`` message (the user's reply to ``respond``, else
    ``API output: `` and the tool's output)."""
    traj, out, i = record["traj"], [], 0
    while i < len(traj):
        m = traj[i]
        if m["role"] != "assistant":
            out.append({"role": m["role"], "content": m["content"]})
            i += 1
            continue
        if m.get("tool_calls"):
            fn = m["tool_calls"][0]["function"]
            action = {"name": fn["name"], "arguments": json.loads(fn["arguments"])}
            reply = "API output: " + traj[i + 1]["content"]
        else:
            action, reply = {"name": "respond", "arguments": {"content": m["content"]}}, traj[i + 1]["content"]
        out.append({"role": "assistant", "content": "Thought:\nWhich record? I look.\nAction:\n" + json.dumps(action),
                    "tool_calls": None, "function_call": None})
        out.append({"role": "user", "content": reply})
        i += 2
    return dict(record, traj=out)


def test_a_react_agents_actions_are_turns_and_its_respond_actions_ask(tmp_path, raw):
    records = [_as_react(r) for r in raw[:4]]
    path = tmp_path / "react-gpt-4o-0.0_range_0-4_user-gpt-4o-llm_1127165200.json"
    path.write_text(json.dumps(records))
    rs = ambiglib.load(path, quiet=True)
    assert len(rs.questions) > 0
    for run_id, qs in rs.questions.groupby("run_id"):
        t = rs.transcript(run_id)
        traj = _entry(rs, records, run_id)["traj"]
        assert len(t) == len(traj) + sum(1 for m in traj if m["role"] == "assistant")  # one action each
        for q in qs.itertuples():
            ask = t.loc[t["q_index"] == q.q_index].iloc[0]
            assert ask["tool_name"] == "respond" and json.loads(ask["tool_args"]) == {"content": q.text}
            assert t.iloc[ask["turn"] - 1]["content"].endswith(json.dumps({"name": "respond",
                                                                           "arguments": {"content": q.text}}))
            assert t.loc[t["answers"] == q.q_index].iloc[0]["turn"] == ask["turn"] + 1


def test_an_errored_run_has_no_transcript_and_says_why(tmp_path, raw):
    errored = {"task_id": 99, "reward": 0.0, "info": {"error": "RateLimitError", "traceback": "..."}, "traj": [],
               "trial": 0}
    path = tmp_path / "gpt-4o-airline.json"
    path.write_text(json.dumps(raw[:1] + [errored]))
    rs = ambiglib.load(path, quiet=True)
    t = rs.transcript(rs.runs.loc[rs.runs["task_id"] == "99"].iloc[0]["run_id"])
    assert len(t) == 0 and "run.py writes an empty trajectory" in t.attrs["note"]


@pytest.mark.parametrize("traj, got", [({"role": "system", "content": "not a list"}, "dict"), ("[]", "str"),
                                       (None, "NoneType")])
def test_an_entry_whose_traj_is_no_list_is_a_format_error_naming_the_file_and_entry(tmp_path, raw, traj, got):
    path = tmp_path / "gpt-4o-airline.json"
    records = json.loads(json.dumps(raw[:3]))
    path.write_text(json.dumps(records))
    rs = ambiglib.load(path, quiet=True)
    run_id = rs.runs.loc[rs.runs["task_id"] == str(records[1]["task_id"])].iloc[0]["run_id"]
    at = json.loads(rs.runs.loc[rs.runs["run_id"] == run_id].iloc[0]["transcript_at"])
    assert (at["reader"], at["file"], at["index"]) == ("tau-bench", os.path.abspath(path), 1)
    records[1]["traj"] = traj  # the file rewritten after the load
    path.write_text(json.dumps(records))
    where = re.escape(f"{os.path.abspath(path)}: entry 1: ")
    with pytest.raises(FormatError, match=rf"^{where}'traj' must be a list of messages \(got {got}\)$"):
        rs.transcript(run_id)
    with pytest.raises(FormatError, match=rf"^{where}'traj' must be a list"):
        read_transcript(at, {"run_id": run_id})
    other = rs.runs.loc[rs.runs["task_id"] == str(records[0]["task_id"])].iloc[0]["run_id"]
    assert len(rs.transcript(other)) > 0  # the other entries are read as before


def test_a_damaged_message_or_an_entry_gone_is_a_format_error_naming_the_entry(tmp_path, raw):
    path = tmp_path / "gpt-4o-airline.json"
    records = json.loads(json.dumps(raw[:3]))
    path.write_text(json.dumps(records))
    rs = ambiglib.load(path, quiet=True)
    run_id = rs.runs.loc[rs.runs["task_id"] == str(records[2]["task_id"])].iloc[0]["run_id"]
    where = re.escape(f"{os.path.abspath(path)}: entry 2: ")
    records[2]["traj"][3]["role"] = {"x": 1}
    path.write_text(json.dumps(records))
    with pytest.raises(FormatError, match=rf"^{where}traj\[3\] must be a message whose 'role' is one of"):
        rs.transcript(run_id)
    call = next(m for m in records[2]["traj"] if m.get("tool_calls"))
    records[2]["traj"][3]["role"] = raw[2]["traj"][3]["role"]
    call["tool_calls"].append("not a call")
    path.write_text(json.dumps(records))
    with pytest.raises(FormatError, match=rf"^{where}traj\[\d+\] 'tool_calls'\[1\] must be a call"):
        rs.transcript(run_id)
    path.write_text(json.dumps(records[:2]))
    with pytest.raises(FormatError, match=rf"^{where}the file holds a list of 2 entries, no entry 2: it changed"):
        rs.transcript(run_id)
    path.write_text(json.dumps(records[:1] + records[2:] + records[1:2]))  # entries reordered
    with pytest.raises(FormatError, match=rf"^{where}is task {records[1]['task_id']} trial 0, not task"
                                          rf" {records[2]['task_id']} trial 0 as when it was loaded"):
        rs.transcript(run_id)
