"""Inspect AI logs: the fixtures in tests/fixtures/inspect/ were written by ``inspect_ai.eval`` itself
(scripts/make_inspect_fixtures.py); every expected value here is read from them with ``inspect_ai.log``
directly, or computed by hand from the script's agents, never from the importer."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

import ambiglib
from ambiglib import metrics, tables
from ambiglib.errors import AmbiglibError, FormatError
from ambiglib.importers._inspect_logs import read_inspect
from ambiglib.metrics import MetricError

inspect_log = pytest.importorskip("inspect_ai.log", reason="inspect-ai is not installed (pip install 'ambiglib[inspect]')")

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "inspect"
LOGS = sorted(p for p in FIXTURES.iterdir() if p.suffix in (".eval", ".json"))
SCORE = {"C": (1.0, True), "I": (0.0, False), "P": (0.5, False), "N": (0.0, False)}


def _read(path: Path):
    return inspect_log.read_eval_log(str(path))


@pytest.fixture(scope="module")
def loaded():
    return ambiglib.load(FIXTURES, strict=False)


@pytest.fixture(scope="module")
def truth():
    """Each sample's run as Inspect's own reader gives it, keyed like the run log."""
    runs, tasks, missing = {}, {}, 0
    for path in LOGS:
        log = _read(path)
        args = log.eval.task_args
        for s in log.samples:
            calls = [c for m in s.messages if m.role == "assistant" for c in (m.tool_calls or [])
                     if c.function == "ask_user"]
            answers = {m.tool_call_id: m.text for m in s.messages if m.role == "tool"}
            listed = s.scores["solved"].metadata.get("asked_blockers") if s.scores else None
            blockers = []
            for i, c in enumerate(calls):
                text = answers.get(c.id)
                said = json.loads(text) if text and text.startswith("{") else None
                blockers.append(said["blocker"] if said else listed[i] if listed else None)
            key = (log.eval.model, s.metadata["spec"], bool(args["ask"]), str(s.id), s.epoch)
            runs[key] = {
                "status": "error" if s.error else "invalid" if s.limit else "ok",
                "score": SCORE[s.scores["solved"].value] if s.scores else None,
                "questions": [c.arguments["question"] for c in calls],
                "responses": [answers.get(c.id) for c in calls],
                "blockers": blockers,
                "attributed": bool(listed is not None or any(a and a.startswith("{") for a in answers.values())),
                "trace": s.scores["trace"].value if s.scores else None,
                "ask_judge": s.scores["ask_judge"].value if s.scores else None,
                "tokens": sum(u.input_tokens for u in s.model_usage.values()) if s.model_usage else None,
            }
            tasks[str(s.id)] = [b["id"] for b in s.metadata["blockers"]]
        if log.status != "success":
            missing += len(log.eval.dataset.sample_ids) * log.eval.config.epochs - len(log.samples)
    return runs, tasks, missing


def _key(row) -> tuple:
    return (row["model"], row["spec"], bool(row["ask_tool"]), row["task_id"], int(row["trial"]))


def test_the_fixtures_hold_what_the_script_says():
    statuses = {_read(p).eval.model: _read(p).status for p in LOGS}
    assert statuses["mockllm/interrupted"] == "cancelled" and statuses["mockllm/careful"] == "success"
    assert sorted(p.suffix for p in LOGS).count(".json") == 1 and len(LOGS) == 10


def test_runs_match_inspects_own_reading(loaded, truth):
    rs, errors = loaded
    runs, _, missing = truth
    assert errors == []
    assert len(rs.runs) == len(runs) == 153  # 8 logs x 6 tasks x 3 epochs + 4 (.json) + 5 (cancelled)
    assert set(rs.runs["benchmark"]) == {"clarify"} and set(rs.runs["suite"]) == {"data-chores"}
    got = {_key(r): r for _, r in rs.runs.iterrows()}
    assert set(got) == set(runs)
    for key, want in runs.items():
        r = got[key]
        assert r["status"] == want["status"], key
        if want["score"] is None:
            assert pd.isna(r["score"]) and pd.isna(r["passed"]), key
        else:
            assert (r["score"], bool(r["passed"])) == want["score"], key
        assert r["n_questions"] == len(want["questions"]), key
        assert (pd.isna(r["tokens_in"]) if want["tokens"] is None else r["tokens_in"] == want["tokens"]), key
    # the cancelled eval's samples that never ran are counted, not lost
    assert rs.skipped == {"sample × epoch an Inspect eval that stopped part-way (cancelled) never ran": missing}
    assert missing == 13  # 6 tasks x 3 epochs, 5 samples logged


def test_questions_match_the_tool_calls(loaded, truth):
    rs, _ = loaded
    runs, _, _ = truth
    q = rs.questions.merge(rs.runs, on="run_id")
    for key, want in runs.items():
        mine = q[[_key(r) == key for _, r in q.iterrows()]].sort_values("q_index") if want["questions"] else None
        if mine is None:
            continue
        assert list(mine["text"]) == want["questions"], key
        assert [None if pd.isna(r) else r for r in mine["response"]] == want["responses"], key
        assert list(mine["attributed"]) == [want["attributed"]] * len(mine), key
        if want["attributed"]:
            assert [None if pd.isna(b) else b for b in mine["blocker_id"]] == want["blockers"], key
        else:
            assert mine["relevant"].isna().all() and mine["blocker_id"].isna().all(), key


def test_labels_and_tasks(loaded, truth):
    rs, _ = loaded
    runs, tasks, _ = truth
    lab = rs.labels.merge(rs.runs, on="run_id")
    want = Counter()
    for w in runs.values():
        if w["trace"] is not None:
            want[("trace", w["trace"])] += 1
            for k, v in w["ask_judge"].items():
                want[(f"ask_judge.{k}", v)] += 1
    assert Counter(zip(lab["facet"], lab["label"])) == want
    assert set(lab.loc[lab["facet"] == "trace", "judge"]) == {"trace"}
    assert dict(zip(rs.tasks["variant_id"], rs.tasks["n_blockers"])) == {t: len(b) for t, b in tasks.items()}
    got = rs.blockers.groupby("variant_id")["blocker_id"].apply(list).to_dict()
    assert got == tasks


def test_ask_f1_by_hand(loaded):
    rs, _ = loaded
    # mockllm/hasty, ambiguous with the tool: 18 samples, 3 errored (summarise-tickets); it asks about the
    # currency in all 3 epochs of convert-prices and the date format in epoch 1 of fix-date-parser: 4 relevant
    # questions of 4; the 15 scored runs register 3 x (1 + 2 + 1 + 1 + 1) = 18 blockers, 4 found
    f1 = metrics.ask_f1(rs.filter(model="mockllm/hasty"), by=("model",)).iloc[0]
    assert (f1["n_runs"], f1["n_questions"], f1["n_relevant"], f1["n_blockers"], f1["n_discovered"]) == (15, 4, 4, 18, 4)
    assert f1["recall"] == pytest.approx(4 / 18) and f1["ask_f1"] == pytest.approx(2 * (4 / 18) / (1 + 4 / 18))
    # mockllm/careful asks twice about match-key: the harness's distinct precision is lower than the paper's
    careful = rs.filter(model="mockllm/careful")
    rel = metrics.ask_f1(careful, by=("model",)).iloc[0]
    dis = metrics.ask_f1(careful, by=("model",), precision="distinct").iloc[0]
    assert dis["precision"] < rel["precision"]


def test_unattributed_questions_make_ask_f1_refuse_and_the_tables_say_so(loaded):
    rs, _ = loaded
    plain = rs.filter(model="mockllm/plain")
    with pytest.raises(MetricError, match="not attributed to a blocker.*asked_blockers"):
        metrics.ask_f1(plain)
    gap = tables.judgment_gap(rs)
    row = gap.set_index("model").loc["mockllm/plain"]
    assert pd.isna(row["ask_f1"]) and pd.isna(row["precision"])
    assert gap.set_index("model").loc["mockllm/careful", "ask_f1"] > 0
    assert "mockllm/plain" in gap.attrs["note"] and "not attributed" in gap.attrs["note"]
    per_task = tables.questions_per_task(rs).set_index("model")
    assert pd.isna(per_task.loc["mockllm/plain", "relevant_per_run"])
    assert any("not attributed to a blocker" in w for w in ambiglib.tables._shapes.metric_warnings(rs))


def _same_runset(a, b):
    for name in ("runs", "questions", "labels", "tasks", "blockers"):
        x = getattr(a, name).drop(columns="source", errors="ignore")
        y = getattr(b, name).drop(columns="source", errors="ignore")
        key = [c for c in ("run_id", "q_index", "facet", "variant_id", "blocker_id") if c in x.columns]
        pd.testing.assert_frame_equal(x.sort_values(key).reset_index(drop=True), y.sort_values(key).reset_index(drop=True))
    assert a.skipped == b.skipped


def test_the_members_read_as_inspects_own_full_read_whole_or_streamed(monkeypatch):
    # a log's samples are parsed from its zip members (small ones whole, large ones streamed with their events
    # skipped unbuilt) or streamed from a .json log; Inspect's full read (read_eval_log, every sample validated
    # into its models) gives the same run log, record for record, and so does streaming every member
    from ambiglib.importers import _inspect_files as inspect_files
    from ambiglib.importers import _inspect_logs as inspect_logs

    fast = read_inspect(FIXTURES, strict=False)
    calls = []

    def whole(file, reader):
        calls.append(file)
        log = reader(str(file), exclude_fields={"events", "store", "attachments", "events_data"})
        return log, iter([s.model_dump(mode="json") for s in log.samples or []])

    monkeypatch.setattr(inspect_logs, "read_log_file", whole)
    slow = read_inspect(FIXTURES, strict=False)
    assert len(calls) == len(LOGS) and fast[1] == slow[1] == []
    _same_runset(fast[0], slow[0])
    monkeypatch.undo()
    monkeypatch.setattr(inspect_files, "STREAM_ABOVE", 0)
    streamed = read_inspect(FIXTURES, strict=False)
    assert streamed[1] == []
    _same_runset(fast[0], streamed[0])


def test_options_scorer_facets_and_ask_tools():
    rs = read_inspect(FIXTURES, files=[p for p in LOGS if _read(p).eval.model == "mockllm/careful"],
                      benchmark="mine", scorer="solved", label_facets={"ask_judge": "asking", "trace": "recognition"})
    assert set(rs.runs["benchmark"]) == {"mine"}
    assert {"recognition", "asking.over_ask", "asking.under_ask"} == set(rs.labels["facet"])
    with pytest.raises(FormatError, match="scorer 'trace' value must be C, I, P, N"):
        read_inspect(FIXTURES, files=LOGS[:1], scorer="trace")
    asking = [p for p in LOGS if _read(p).eval.model == "mockllm/careful" and _read(p).eval.task_args["ask"]]
    none = read_inspect(FIXTURES, files=asking, ask_tools=("ask_someone",))
    assert len(none.questions) == 0 and not none.runs["ask_tool"].any()


def test_without_inspect_installed_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)  # import inspect_ai.log raises ImportError
    with pytest.raises(FormatError, match=r"pip install 'ambiglib\[inspect\]'"):
        ambiglib.load(FIXTURES)


# ----------------------------------------------------------------------------- bad input


def _copy(tmp_path: Path, which: str = "mockllm/careful") -> list[Path]:
    out = []
    for p in LOGS:
        if _read(p).eval.model == which:
            out.append(Path(shutil.copy(p, tmp_path / p.name)))
    return out


def test_a_truncated_eval_file_is_named(tmp_path):
    logs = _copy(tmp_path)
    data = logs[0].read_bytes()
    logs[0].write_bytes(data[: len(data) // 2])
    with pytest.raises(AmbiglibError, match=rf"{logs[0].name}.*not a readable Inspect AI log"):
        ambiglib.load(tmp_path)
    rs, errors = ambiglib.load(tmp_path, strict=False)
    assert len(errors) == 1 and errors[0].file == str(logs[0])
    assert len(rs.runs) == 3 * 18  # the other three logs load
    assert sum(rs.skipped.values()) == 1


def test_an_unknown_format_version_is_named(tmp_path):
    # Inspect's writer always writes its own version: the version is changed in the files themselves
    import zipfile

    import zipfile_zstd  # noqa: F401 — Inspect's zstd support for zipfile (its members are zstd-compressed)

    logs = _copy(tmp_path)
    with zipfile.ZipFile(logs[0]) as z:
        members = {name: z.read(name) for name in z.namelist()}
    with zipfile.ZipFile(logs[0], "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            if name in ("header.json", "_journal/start.json"):
                data = data.replace(b'{"version":2,', b'{"version":99,', 1)
            z.writestr(name, data)
    with pytest.raises(AmbiglibError, match=rf"{logs[0].name}.*version 99"):
        ambiglib.load(tmp_path)
    rs, errors = ambiglib.load(tmp_path, strict=False)
    assert len(errors) == 1 and len(rs.runs) == 3 * 18
    # a .json log of a newer format: Inspect's reader refuses it, and the error names the file
    json_log = next(p for p in LOGS if p.suffix == ".json")
    newer = tmp_path / json_log.name
    newer.write_text(json_log.read_text().replace('"version": 2,', '"version": 3,', 1))
    rs, errors = ambiglib.load(tmp_path, strict=False)
    assert any(e.file == str(newer) and "version 3" in e.message for e in errors)


def test_a_sample_without_the_metadata_the_mapping_needs_is_named(tmp_path):
    logs = _copy(tmp_path)
    log = _read(logs[0])
    sample = log.samples[2]
    del sample.metadata["spec"]
    log.eval.task_args.pop("spec", None)  # nowhere to take the spec from
    inspect_log.write_eval_log(log, str(logs[0]))
    with pytest.raises(AmbiglibError, match=rf"{logs[0].name}.*sample '{sample.id}' epoch {sample.epoch}: no 'spec'"):
        ambiglib.load(tmp_path)
    rs, errors = ambiglib.load(tmp_path, strict=False)
    assert len(errors) == 1 and errors[0].field == "spec"
    assert len(rs.runs) == 4 * 18 - 1



@pytest.mark.parametrize("name", ["suite", "variant_id", "policy"])
@pytest.mark.parametrize("value", [{"x": 1}, float("-inf"), 3, True, ["a"]])
def test_a_name_in_the_metadata_that_is_not_a_text_is_named_not_spelt_as_python(tmp_path, name, value):
    """A sample whose metadata 'suite', 'variant_id' or 'policy' is not a text (fuzz seed 9004: a suite of
    {"x": 1} became the suite "{'x': 1}", and the run moved to it without a word) is an error naming the field."""
    logs = _copy(tmp_path)
    log = _read(logs[0])
    sample = log.samples[2]
    sample.metadata[name] = value
    inspect_log.write_eval_log(log, str(logs[0]))
    rs, errors = ambiglib.load(tmp_path, strict=False)
    assert [(e.field, e.record) for e in errors] == [(name, "run")]
    assert f"sample '{sample.id}' epoch {sample.epoch}: metadata '{name}' must be a text (got {value!r})" \
        in errors[0].message
    assert len(rs.runs) == 4 * 18 - 1 and not rs.runs[name].astype(str).str.contains(repr(value), regex=False).any()

@pytest.mark.parametrize("value", [float("-inf"), 5, None, {"x": 1}])
def test_a_tool_of_the_plan_whose_name_is_not_a_text_is_named(tmp_path, value):
    """Fuzz seed 9006 (silent change): the plan's ask tool renamed -1e400 was skipped as no tool, and the eval's
    runs were loaded as offered the tool for another reason (their calls), saying so in their meta. Which tools
    the eval offered cannot be told from such a plan: the log is an error naming it."""
    logs = _copy(tmp_path)
    log, file = next((_read(p), p) for p in logs if '"type": "tool"' in _read(p).plan.model_dump_json(indent=1))
    tool = next(t for step in log.plan.steps for t in step.params.get("tools") or [] if isinstance(t, dict))
    tool["name"] = value
    inspect_log.write_eval_log(log, str(file))
    rs, errors = ambiglib.load(tmp_path, strict=False)
    assert [e.file for e in errors] == [str(file)]
    assert f"its plan names a tool whose 'name' is not a text (got {value!r})" in errors[0].message
    assert len(rs.runs) == (len(logs) - 1) * 18


def test_a_sample_whose_blockers_disagree_with_another_is_named(tmp_path):
    logs = _copy(tmp_path)
    log = _read(logs[0])
    log.samples[0].metadata["blockers"] = ["something-else"]
    inspect_log.write_eval_log(log, str(logs[0]))
    rs, errors = ambiglib.load(tmp_path, strict=False)
    error = next(e for e in errors if "describes task" in e.message and e.field == "blockers")
    # the fix, when each spec registers blockers of its own (issue 37 §5)
    assert "give each its own metadata 'variant_id'" in error.message


# ----------------------------------------------------------------------------- folders and the report


def test_a_folder_mixing_inspect_logs_with_other_layouts(tmp_path):
    shutil.copytree(FIXTURES, tmp_path / "inspect")
    shutil.copytree(ROOT / "tests" / "fixtures" / "hilbench", tmp_path / "hil")
    shutil.copy(ROOT / "data" / "example" / "ambig-ds.jsonl", tmp_path / "ambig-ds.jsonl")
    rs, errors = ambiglib.load(tmp_path, strict=False)
    assert {"clarify", "hil-bench", "ambig-ds"} <= set(rs.runs["benchmark"])
    alone, _ = ambiglib.load(FIXTURES, strict=False)
    assert (rs.runs["benchmark"] == "clarify").sum() == len(alone.runs)
    # the same log twice: each run is an error naming both files, once
    (tmp_path / "again").mkdir()
    shutil.copy(LOGS[0], tmp_path / "again" / LOGS[0].name)
    rs2, errors2 = ambiglib.load(tmp_path, strict=False)
    dup = [e for e in errors2 if "duplicate run" in e.message]
    assert len(dup) == 18 and all(LOGS[0].name in e.message for e in dup)
    assert len(rs2.runs) == len(rs.runs)
    done = subprocess.run([sys.executable, "-m", "ambiglib", "validate", "--runs", str(tmp_path)], capture_output=True,
                          text=True)
    assert done.returncode == 1 and "duplicate run" in done.stdout + done.stderr


def test_the_report_on_inspect_logs_fills_the_headline_tables(tmp_path):
    done = subprocess.run([sys.executable, "-m", "ambiglib", "report", "--runs", str(FIXTURES), "--out",
                           str(tmp_path / "rep")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    t = tmp_path / "rep" / "tables"
    gap = pd.read_csv(t / "hilbench_judgment_gap" / "judgment_gap.csv").set_index("model")
    # careful: passes every full task and every ambiguous one it asks about; never passes without the tool
    assert gap.loc["mockllm/careful", ["pass_at_k_full_info", "pass_at_k_no_tool", "pass_at_k_with_tool"]].tolist() \
        == [1.0, 0.0, 1.0]
    assert gap.loc["mockllm/hasty", "ask_f1"] == pytest.approx(2 * (4 / 18) / (1 + 4 / 18))
    calib = pd.read_csv(t / "ambigds_calibration" / "ask_calibration.csv").set_index("model")
    # careful asks on every ambiguous task, and on rename-columns of the six full ones: 1 and 1/6
    assert calib.loc["mockllm/careful", ["ask_on_ambiguous", "ask_on_full"]].tolist() == pytest.approx([1.0, 1 / 6])
    voi = pd.read_csv(t / "lhaw_value_of_information" / "value_of_information.csv").set_index("model")
    assert voi.loc["mockllm/careful", "score_gain_pp"] > 0
    audit = pd.read_csv(t / "ambigds_recognition" / "recognition_audit.csv")
    assert set(audit["benchmark"]) == {"clarify"} and audit["intended"].notna().all()


def test_the_fixture_script_regenerates_the_same_content():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_inspect_fixtures.py"), "--check"],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0 and "same content" in done.stdout, done.stdout + done.stderr[-2000:]


def test_unattributed_questions_survive_jsonl_and_parquet(loaded, tmp_path):
    rs, _ = loaded
    ambiglib.write_jsonl(rs, tmp_path / "log.jsonl")
    lines = [json.loads(x) for x in (tmp_path / "log.jsonl").read_text().splitlines()]
    said = [q for rec in lines for q in rec.get("questions", []) if "attributed" in q]
    assert len(said) == 12 and all(q["attributed"] is False for q in said)  # written only where false
    rs.to_parquet(tmp_path / "pq")
    for again in (ambiglib.load(tmp_path / "log.jsonl"), ambiglib.load(tmp_path / "pq")):
        a = again.questions.sort_values(["run_id", "q_index"]).reset_index(drop=True)
        b = rs.questions.sort_values(["run_id", "q_index"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("every", [1, 3, 10 ** 6])
def test_records_checked_in_parts_as_they_come_give_what_checking_them_at_once_gives(tmp_path, monkeypatch, every):
    """An importer's records are checked every ``CHECK_EVERY`` records of a file and when it has read a file
    (issue 41: Inspect's runs were all held as dicts until the end, ~3.5 KB a run). Records added out of line
    order, some rejected, one line given twice: the same frames, errors and counts as one check in line order."""
    from conftest import run_record, task_record

    from ambiglib.importers import _common

    monkeypatch.setattr(_common, "CHECK_EVERY", every)
    lines = [7, 2, 9, 2, 4, 1, 8, 3, 6, 5]
    out = _common.Collected("test")
    for i, line in enumerate(lines):
        record = run_record(task_id=f"t{i}", trial=1) if i % 4 else run_record(task_id=f"t{i}", score="bad")
        out.add("a.log", line, record)
        if i == 6:
            out.check("a.log")
    out.add("b.log", 2, run_record(task_id="t0", model="m2"))
    out.add("b.log", 1, task_record(task_id="t0"))
    runset, errors = _common.finish(out, tmp_path, strict=False)
    # the reference: each file's records sorted by line (ties in the order added), checked at once
    order = sorted(range(len(lines)), key=lambda i: lines[i])
    assert runset.runs["source"].tolist() == [f"a.log:{lines[i]}" for i in order if i % 4] + ["b.log:2"]
    assert runset.runs["task_id"].tolist() == [f"t{i}" for i in order if i % 4] + ["t0"]
    assert [e.line for e in errors] == sorted(lines[i] for i in range(len(lines)) if not i % 4)
    assert all(e.field == "score" and e.file == "a.log" for e in errors)
    assert runset.tasks["source"].tolist() == ["b.log:1"]


@pytest.mark.parametrize("command", [["rank", "--metric", "mean_score"], ["answers", "--question", "asking"]])
def test_rank_and_answers_read_the_log_with_the_scorer_given(command, capsys):
    """``--scorer`` reaches the load of ``ambiglib rank`` and ``ambiglib answers`` (rank parsed it and read each
    sample's first scorer): the trace scorer's values are not C, I, P or N, so every sample it scores is rejected,
    as many as ambiglib.load with scorer="trace" rejects."""
    from ambiglib.cli import main

    _, errors = ambiglib.load(FIXTURES, strict=False, quiet=True, scorer="trace")
    assert errors
    main([command[0], "--runs", str(FIXTURES), *command[1:], "--scorer", "trace"])
    assert f"{len(errors)} records rejected" in capsys.readouterr().err
    main([command[0], "--runs", str(FIXTURES), *command[1:]])
    assert "rejected" not in capsys.readouterr().err
