"""Transcripts of Ambig-DS, LHAW (MCP-Atlas, TheAgentCompany, SWE-Bench Pro) and Ambig-SWE runs, read from the
harnesses' own output (../shared/fixtures/harness-output) and real published files: every expected turn is counted
here from the files themselves, read with json and csv, never through ambiglib."""

from __future__ import annotations

import csv
import json
import shutil
import tarfile
from pathlib import Path

import pandas as pd
import pytest
from conftest import FIXTURES

import ambiglib
from ambiglib import FormatError

HO = FIXTURES / "harness-output"
TAC = FIXTURES / "theagentcompany" / "deepseek-v3.2"
SWE = FIXTURES / "swe-bench-pro" / "eval_results"
MCP = HO / "lhaw_mcp_atlas"
AMBIG_SWE = Path(__file__).resolve().parent / "fixtures" / "ambig-swe" / "experiments.tar.gz"
LHAW = Path(__file__).resolve().parent / "fixtures" / "lhaw"
needs_ho = pytest.mark.skipif(not HO.is_dir(), reason="../shared/fixtures/harness-output (the harnesses' own output)"
                                                      " absent")
needs_shared = pytest.mark.skipif(not SWE.is_dir() or not TAC.is_dir(),
                                  reason="../shared/fixtures (real TAC and SWE-Bench Pro results) absent")
AMBIGDS = ("ambigds_target", "ambigds_metric/after_normalize", "ambigds_custom_run_name")

csv.field_size_limit(1 << 30)


def _rows(file: Path) -> list[dict[str, str]]:
    with open(file, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _question_turns(rs) -> int:
    """Check that each question of ``rs`` has exactly one turn asking it, whose text is the question's, and at most
    one answering it, after it, whose text is its response; return how many questions were checked."""
    checked = 0
    for q in rs.questions.itertuples():
        t = rs.transcript(q.run_id)
        asking = t[t["q_index"] == q.q_index]
        assert len(asking) == 1, (q.run_id, q.q_index)
        turn = asking.iloc[0]
        if pd.isna(turn["tool_args"]):
            text = turn["content"]
        else:  # an ask tool's call: its question argument, or (a malformed call) its arguments as JSON
            args = json.loads(turn["tool_args"])
            text = args["question"] if isinstance(args.get("question"), str) and args["question"].strip() else \
                json.dumps(args, ensure_ascii=False, sort_keys=True)
        assert text == q.text, (q.run_id, q.q_index)
        answering = t[t["answers"] == q.q_index]
        assert len(answering) <= 1
        if len(answering):
            assert answering.iloc[0]["content"] == q.response, (q.run_id, q.q_index)
            assert answering.index[0] > asking.index[0]
        checked += 1
    return checked


# ----------------------------------------------------------------------------- Ambig-DS


def _ambigds_folders(root: Path):
    """(run folder name, task slug, task folder) of every task folder holding _traj.json or _clarify.json."""
    for folder in sorted(root.glob("results/*/*")):
        if folder.is_dir() and ((folder / "_traj.json").is_file() or (folder / "_clarify.json").is_file()):
            yield folder.parent.name, folder.name, folder


def _ambigds_expected(folder: Path) -> tuple[str, list[tuple[str, str | None, str | None]]]:
    """What the task folder's files say the transcript is: its cover, and (role, tool command, text) per turn in the
    order step 5 / step 3 ran them (ask phase, question, answer, solve phase)."""
    traj = json.loads((folder / "_traj.json").read_text()) if (folder / "_traj.json").is_file() else None
    clarify = json.loads((folder / "_clarify.json").read_text()) if (folder / "_clarify.json").is_file() else None
    turns = []

    def phase(p):
        turns.extend(("assistant", u.get("input"), None) for u in p.get("tool_uses") or [])
        if p.get("summary"):
            turns.append(("assistant", None, p["summary"]))

    if traj is not None and "ask_phase" in traj:
        phase(traj["ask_phase"])
    if clarify is not None and clarify["asked"]:
        turns += [("assistant", None, clarify["question"]), ("user", None, clarify["answer"])]
    elif clarify is not None and clarify["question"]:
        turns.append(("assistant", None, clarify["question"]))
    if traj is not None:
        phase(traj)
    return ("tool_calls" if traj is not None else "questions"), turns


@pytest.fixture(scope="module", params=AMBIGDS)
def ambigds(request):
    if not HO.is_dir():
        pytest.skip("../shared/fixtures/harness-output (the harnesses' own output) absent")
    root = HO / request.param
    return root, ambiglib.load(root, quiet=True)


def _run_of(rs, run_name: str, slug: str):
    meta = rs.runs["meta"].map(json.loads)
    hit = rs.runs[(meta.map(lambda m: m.get("run_name")) == run_name) & (rs.runs["task_id"] == slug)]
    assert len(hit) == 1, (run_name, slug)
    return hit.iloc[0]


def test_ambigds_each_question_has_its_turn_with_the_clarify_files_words(ambigds):
    root, rs = ambigds
    n = _question_turns(rs)
    asked = [f for _, _, f in _ambigds_folders(root)
             if (f / "_clarify.json").is_file() and json.loads((f / "_clarify.json").read_text())["asked"]]
    assert n == len(rs.questions) == len(asked) > 0
    for run_name, slug, folder in _ambigds_folders(root):
        clarify = folder / "_clarify.json"
        if clarify.is_file() and json.loads(clarify.read_text())["asked"]:
            t = rs.transcript(_run_of(rs, run_name, slug)["run_id"])
            raw = json.loads(clarify.read_text())
            assert t.loc[t["q_index"] == 0, "content"].item() == raw["question"]
            assert t.loc[t["answers"] == 0, "content"].item() == raw["answer"]


def test_ambigds_turns_are_the_files_tool_uses_and_question_in_the_harness_order(ambigds):
    root, rs = ambigds
    seen = 0
    for run_name, slug, folder in _ambigds_folders(root):
        t = rs.transcript(_run_of(rs, run_name, slug)["run_id"])
        covers, expected = _ambigds_expected(folder)
        assert t.attrs["covers"] == covers
        got = [(r.role, None if pd.isna(r.tool_args) else json.loads(r.tool_args)["command"],
                r.content if pd.isna(r.tool_name) else None) for r in t.itertuples()]
        assert got == expected, folder
        # the metric track's adapter records no command: its calls are named, their arguments unknown
        assert set(t["tool_name"].dropna()) <= {"bash"}
        if "metric" in str(root):
            assert t["tool_args"].isna().all()
        # the note says what the files leave out
        assert ("no prompt" if covers == "tool_calls" else "only the question and its answer") in t.attrs["note"]
        seen += 1
    assert seen > 0


def test_ambigds_tasks_the_harness_never_ran_have_no_transcript_and_say_why(ambigds):
    root, rs = ambigds
    have = {(n, s) for n, s, _ in _ambigds_folders(root)}
    meta = rs.runs["meta"].map(json.loads)
    empty = 0
    for run, m in zip(rs.runs.itertuples(), meta):
        if (m["run_name"], run.task_id) in have:
            continue
        t = rs.transcript(run.run_id)
        assert len(t) == 0 and t.attrs["covers"] is None
        assert "Ambig-DS" in t.attrs["note"] and (m.get("runlog_status") or "") in t.attrs["note"]
        empty += 1
    if root.name == "ambigds_target":  # empty folders: dry_run, build_failed (x2), manifest_missing (x6)
        assert empty == 9


@needs_ho
def test_ambigds_a_traj_file_damaged_after_the_load_is_a_format_error_naming_it(tmp_path):
    root = Path(shutil.copytree(HO / "ambigds_target", tmp_path / "t"))
    rs = ambiglib.load(root, quiet=True)
    run = rs.questions.run_id[rs.questions["run_id"].map(
        lambda r: rs.runs.set_index("run_id").loc[r, "source"].endswith("_traj.json:1"))].iloc[0]
    traj = Path(rs.runs.set_index("run_id").loc[run, "source"].rsplit(":", 1)[0])
    data = json.loads(traj.read_text())
    data["tool_uses"] = [{"name": "bash", "input": ["not", "text"]}]
    traj.write_text(json.dumps(data))
    with pytest.raises(FormatError, match=r"_traj\.json: tool_uses\[0\]\.input must be the command's text"):
        rs.transcript(run)


# ----------------------------------------------------------------------------- LHAW on MCP-Atlas


@pytest.fixture(scope="module")
def mcp():
    if not HO.is_dir():
        pytest.skip("../shared/fixtures/harness-output (the harnesses' own output) absent")
    return ambiglib.load(MCP, quiet=True)


def _history_turns(row: dict[str, str]) -> int:
    """Turns of a completion row's conversation: the prompt, one per assistant tool call (or message), one per
    tool reply."""
    history = json.loads(row["raw_conversation_history"])
    return 1 + sum(1 if m["role"] == "tool" else max(1, len(m.get("tool_calls") or [])) for m in history)


def test_mcp_atlas_each_ask_user_call_is_its_questions_turn(mcp):
    n = _question_turns(mcp)
    calls = sum(1 for f in sorted((MCP / "evaluation_results").glob("scored_*.csv")) for row in _rows(f)
                if row["trajectory"] for c in json.loads(row["trajectory"]) if c["tool_name"] == "ask_user")
    assert n == len(mcp.questions) == calls > 0
    for run_id in mcp.questions.run_id.unique():
        t = mcp.transcript(run_id)
        assert set(t.loc[t["q_index"].notna(), "tool_name"]) == {"ask_user"}
        assert t.loc[t["answers"].notna(), "role"].eq("tool").all()


def test_mcp_atlas_turns_are_the_rows_conversation(mcp):
    seen = failed = 0
    for file in sorted((MCP / "evaluation_results").glob("scored_*.csv")):
        for row in _rows(file):
            run = mcp.runs[mcp.runs["source"].str.startswith(str(file) + ":") & (mcp.runs["task_id"] == row["TASK"])]
            assert len(run) == 1
            t = mcp.transcript(run["run_id"].iloc[0])
            if not row["raw_conversation_history"]:  # the failed completion
                assert len(t) == 0 and t.attrs["covers"] is None
                assert "MCP-Atlas" in t.attrs["note"] and "failed" in t.attrs["note"]
                failed += 1
                continue
            history = json.loads(row["raw_conversation_history"])
            assert t.attrs["covers"] == "conversation" and len(t) == _history_turns(row)
            assert t["content"].iloc[0] == row["PROMPT"] and t["role"].iloc[0] == "user"
            calls = [c["function"] for m in history for c in (m.get("tool_calls") or [])]
            assert t["tool_name"].dropna().loc[t["role"] == "assistant"].tolist() == [c["name"] for c in calls]
            replies = [m["content"] for m in history if m["role"] == "tool"]
            assert t.loc[t["role"] == "tool", "content"].tolist() == replies
            assert "system prompt" in t.attrs["note"]
            seen += 1
    assert (seen, failed) == (17, 1)


@needs_ho
def test_mcp_atlas_manifest_without_the_conversation_columns_reads_the_completion_row(tmp_path):
    """A scored CSV cut to its score columns: the manifest's completion CSV holds the conversation."""
    label = "opus_4_5_ask_user_t2"
    rows = _rows(MCP / "evaluation_results" / f"scored_{label}.csv")
    keep = ["TASK", "PROMPT", "coverage_score"]
    with open(tmp_path / "scored.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, keep, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    shutil.copy(MCP / "completion_results" / f"{label}.csv", tmp_path / "completion.csv")
    with open(tmp_path / "lhaw_manifest.csv", "w", newline="") as fh:
        csv.writer(fh).writerows([["path", "harness", "model", "spec", "ask_tool", "trial", "completion"],
                                  ["scored.csv", "mcp-atlas", "opus_4_5", "ambiguous", "true", "2", "completion.csv"]])
    rs = ambiglib.load(tmp_path, quiet=True)
    completion = {r["TASK"]: r for r in _rows(tmp_path / "completion.csv")}
    for run in rs.runs.itertuples():
        t = rs.transcript(run.run_id)
        assert t.attrs["covers"] == "conversation" and len(t) == _history_turns(completion[run.task_id])
        assert str(tmp_path / "completion.csv") in t.attrs["where"]
    assert _question_turns(rs) == len(rs.questions) == 4


@needs_ho
def test_mcp_atlas_a_row_changed_after_the_load_is_a_format_error(tmp_path):
    root = Path(shutil.copytree(MCP, tmp_path / "m"))
    rs = ambiglib.load(root, quiet=True)
    file = root / "evaluation_results" / "scored_opus_4_5_ask_user_t2.csv"
    run = rs.runs[rs.runs["source"].str.startswith(str(file)) & (rs.runs["n_questions"] == 3)]["run_id"].item()
    rows = _rows(file)
    history = json.loads(rows[1]["raw_conversation_history"])
    history[0]["tool_calls"][0]["function"]["name"] = "search"  # question 0 is no longer an ask_user call
    rows[1]["raw_conversation_history"] = json.dumps(history)
    with open(file, "w", newline="") as fh:
        w = csv.DictWriter(fh, list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    with pytest.raises(FormatError, match="tool call 0 of the conversation is 'search'"):
        rs.transcript(run)


# ----------------------------------------------------------------------------- LHAW manifests: TAC, SWE-Bench Pro


def _write_manifest(root: Path, rows: list[list[str]]) -> Path:
    with open(root / "lhaw_manifest.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["path", "harness", "model", "spec", "ask_tool", "trial", "variant_id", "trajectory"])
        w.writerows(rows)
    return root


@needs_shared
def test_theagentcompany_and_swe_bench_pro_results_hold_no_conversation(tmp_path):
    tac = sorted(TAC.glob("eval_*.json"))
    for f in tac + [SWE / "gpt-4o-paper.json"]:
        shutil.copy(f, tmp_path / f.name)
    rows = [[f.name, "tac", "deepseek-v3.2", "full", "false", "1", f.stem[len("eval_"):], ""] for f in tac]
    rows.append(["gpt-4o-paper.json", "swe-bench-pro", "gpt-4o", "full", "false", "1", "", ""])
    rs = ambiglib.load(_write_manifest(tmp_path, rows), quiet=True)
    assert len(rs.runs) == len(tac) + len(json.loads((SWE / "gpt-4o-paper.json").read_text()))
    for suite, harness in (("tac", "TheAgentCompany"), ("swe-bench-pro", "SWE-Bench Pro")):
        some = rs.runs[rs.runs["suite"] == suite]["run_id"].head(5)
        for run in some:
            t = rs.transcript(run)
            assert len(t) == 0 and t.attrs["covers"] is None and harness in t.attrs["note"]
            assert "trajectory" in t.attrs["note"]  # what would give it one


@needs_shared
def test_tool_calls_a_manifest_names_are_the_transcript(tmp_path):
    """The trajectory file: the tool calls of a real MCP-Atlas harness row (its ``trajectory`` column), here with a
    response to each call, given for a TheAgentCompany run and a SWE-Bench Pro run."""
    row = _rows(MCP / "evaluation_results" / "scored_opus_4_5_ask_user_t2.csv")[1]
    calls = json.loads(row["trajectory"])
    replies = iter(m["content"] for m in json.loads(row["raw_conversation_history"]) if m["role"] == "tool")
    for c in calls:
        c["response"] = next(replies)
    (tmp_path / "calls.json").write_text(json.dumps(calls))
    tac = TAC / "eval_finance-invoice-matching.json"
    shutil.copy(tac, tmp_path / tac.name)
    shutil.copy(SWE / "gpt-4o-paper.json", tmp_path / "swe.json")
    rs = ambiglib.load(_write_manifest(tmp_path, [
        [tac.name, "tac", "m", "ambiguous", "true", "1", "finance-invoice-matching", "calls.json"],
        [tac.name, "tac", "m", "ambiguous", "false", "2", "finance-invoice-matching", "calls.json"],
        ["swe.json", "swe-bench-pro", "m", "ambiguous", "true", "1", "", "calls.json"]]), quiet=True)
    asks = [c for c in calls if c["tool_name"] == "ask_user"]
    # every instance of the SWE-Bench Pro file is a run of this manifest row, each given the row's tool calls
    assert len(rs.runs) == 2 + len(json.loads((SWE / "gpt-4o-paper.json").read_text()))
    for run in pd.concat([rs.runs[rs.runs["suite"] == "tac"], rs.runs[rs.runs["suite"] != "tac"].head(3)]).itertuples():
        t = rs.transcript(run.run_id)
        assert t.attrs["covers"] == "tool_calls" and len(t) == 2 * len(calls)
        assert t.loc[t["role"] == "assistant", "tool_name"].tolist() == [c["tool_name"] for c in calls]
        assert t.loc[t["role"] == "tool", "content"].tolist() == [c["response"] for c in calls]
        assert run.n_questions == (len(asks) if run.ask_tool else 0)
        assert t["q_index"].notna().sum() == run.n_questions
    assert len(rs.questions) == (1 + len(rs.runs) - 2) * len(asks)
    assert _question_turns(rs.filter(suite="tac")) == len(asks) == 3


def test_an_mcp_atlas_trajectory_column_without_a_conversation_is_read_as_tool_calls():
    rs = ambiglib.load(LHAW, quiet=True)
    row = _rows(LHAW / "mcp" / "scored_ask.csv")[0]
    calls = json.loads(row["trajectory"])
    run = rs.runs[(rs.runs["suite"] == "mcp-atlas") & rs.runs["ask_tool"]]["run_id"].item()
    t = rs.transcript(run)
    assert t.attrs["covers"] == "tool_calls"
    assert len(t) == len(calls) + sum(c["response"] is not None or c["error"] is not None for c in calls)
    assert _question_turns(rs) == len(rs.questions) == 3
    noask = rs.runs[(rs.runs["suite"] == "mcp-atlas") & ~rs.runs["ask_tool"]]["run_id"].item()
    t = rs.transcript(noask)
    assert len(t) == 0 and "raw_conversation_history" in t.attrs["note"] and "MCP-Atlas" in t.attrs["note"]


# ----------------------------------------------------------------------------- Ambig-SWE


def test_ambig_swe_published_files_hold_no_conversation(tmp_path):
    folder = tmp_path / "experiments"
    with tarfile.open(AMBIG_SWE) as tar:
        tar.extractall(folder, filter="data")
    rs = ambiglib.load(folder, quiet=True)
    kinds = rs.runs["meta"].map(lambda m: json.loads(m)["ambig_swe"]["file"].split("/")[0])
    expected = {"test_interactivity": sum(
        1 for f in (folder / "test_interactivity").glob("*.json") for v in json.loads(f.read_text()).values()
        if v["gold"] is not None),
        "extracted_qa_pairs": sum(len(json.loads(f.read_text()))
                                  for f in (folder / "extracted_qa_pairs").glob("*.json"))}
    assert kinds.value_counts().to_dict() == expected
    for kind in expected:
        for run in rs.runs.loc[kinds == kind, "run_id"].head(20):
            t = rs.transcript(run)
            assert len(t) == 0 and t.attrs["covers"] is None
            assert "Ambig-SWE" in t.attrs["note"] and f"{kind}/" in t.attrs["note"]


def test_a_manifest_trajectory_file_changed_after_the_load_is_a_format_error(tmp_path):
    root = Path(shutil.copytree(LHAW, tmp_path / "lhaw"))
    rs = ambiglib.load(root, quiet=True)
    run = rs.runs[(rs.runs["suite"] == "tac") & rs.runs["ask_tool"]]["run_id"].item()
    file = root / "tac" / "trajectory_v1_ask_t1.json"
    calls = json.loads(file.read_text())
    assert [c["tool_name"] for c in calls] == ["browser", "ask_user"]
    file.write_text(json.dumps(calls[:1]))  # the question's call is gone
    with pytest.raises(FormatError, match=r"trajectory_v1_ask_t1\.json: lists 1 tool call\(s\), fewer than when"):
        rs.transcript(run)


@needs_ho
def test_ambigds_a_clarify_file_changed_after_the_load_is_a_format_error(tmp_path):
    root = Path(shutil.copytree(HO / "ambigds_target", tmp_path / "t"))
    rs = ambiglib.load(root, quiet=True)
    run = rs.runs.set_index("run_id").loc[rs.questions.run_id.iloc[0]]
    clarify = Path(json.loads(run["transcript_at"])["clarify"])
    data = json.loads(clarify.read_text())
    data["asked"] = False
    clarify.write_text(json.dumps(data))
    with pytest.raises(FormatError, match=r"_clarify\.json: 'asked' is false but the run was loaded with 1 question"):
        rs.transcript(rs.questions.run_id.iloc[0])
