"""ambiglib.load: layouts, error messages, lenient mode, round trips."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pandas as pd
import pytest
from conftest import run_record, task_record, write_jsonl

import ambiglib
from ambiglib import FormatError, LoadError, RunLogNotFoundError, SchemaError
from ambiglib.errors import ArgumentError

ENGINES = ["auto", "python"]


def load_one(tmp_path, lines, engine="auto", name="runs.jsonl"):
    path = write_jsonl(tmp_path / name, lines)
    return ambiglib.load(path, engine=engine, quiet=True)


def where(tmp_path, line, name="runs.jsonl"):
    return re.escape(f"{tmp_path / name}:{line}: ")


# ----------------------------------------------------------------------------- each error, pinned


@pytest.mark.parametrize("engine", ENGINES)
def test_line_that_is_not_json(tmp_path, engine):
    lines = [run_record(), '{"benchmark": "hil-bench", "suite": ', run_record(trial=2)]
    with pytest.raises(FormatError, match=where(tmp_path, 2) + r"not valid JSON \(Expecting value at column 37\)"):
        load_one(tmp_path, lines, engine)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("line, found", [("[1, 2]", "a JSON array"), ('"run"', "a JSON string"),
                                         ("3", "a JSON number"), ("null", "JSON null")])
def test_line_that_is_not_an_object(tmp_path, engine, line, found):
    with pytest.raises(FormatError, match=where(tmp_path, 2) + f"expected a JSON object, found {found}$"):
        load_one(tmp_path, [run_record(), line], engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_missing_required_field(tmp_path, engine):
    with pytest.raises(SchemaError, match=where(tmp_path, 1) + re.escape(
        "missing required field 'model' (run records need benchmark, suite, task_id, model, spec, ask_tool)"
    )):
        load_one(tmp_path, [run_record(model=None)], engine)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("field, value, message", [
    ("ask_tool", "yes", "field 'ask_tool' must be true or false (got 'yes')"),
    ("ask_tool", 1, "field 'ask_tool' must be true or false (got 1)"),
    ("trial", 1.5, "field 'trial' must be an integer >= 1 or null (got 1.5)"),
    ("trial", "2", "field 'trial' must be an integer >= 1 or null (got '2')"),
    ("trial", 0, "field 'trial' must be an integer >= 1 or null (got 0)"),
    ("model", 7, "field 'model' must be a non-empty string (got 7)"),
    ("model", "", "field 'model' must be a non-empty string (got '')"),
    ("passed", "true", "field 'passed' must be true or false or null (got 'true')"),
    ("cost_usd", -0.5, "field 'cost_usd' must be a number >= 0 or null (got -0.5)"),
    ("questions", {"text": "why?"}, "field 'questions' must be a list of question objects (got an object)"),
    ("meta", "notes", "field 'meta' must be an object (got 'notes')"),
])
def test_wrong_type(tmp_path, engine, field, value, message):
    with pytest.raises(SchemaError, match=where(tmp_path, 1) + re.escape(message)):
        load_one(tmp_path, [run_record(**{field: value})], engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_value_outside_its_enum(tmp_path, engine):
    # the issue's own example message
    lines = [run_record(), run_record(trial=2), run_record(spec="amb")]
    with pytest.raises(SchemaError, match=where(tmp_path, 3) + re.escape(
        "field 'spec' must be 'full' or 'ambiguous' (got 'amb')"
    )):
        load_one(tmp_path, lines, engine)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("field, value, message", [
    ("status", "crashed", "field 'status' must be one of 'ok', 'invalid', 'timeout', 'error' or null (got 'crashed')"),
    ("protocol", "ask", "field 'protocol' must be 'solve' or 'ask_only' or null (got 'ask')"),
    ("record", "runs", "field 'record' must be 'run' or 'task' (got 'runs')"),
])
def test_other_enums(tmp_path, engine, field, value, message):
    with pytest.raises(SchemaError, match=where(tmp_path, 1) + re.escape(message)):
        load_one(tmp_path, [run_record(**{field: value})], engine)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("score", [1.5, -0.1, 100])
def test_score_outside_unit_interval(tmp_path, engine, score):
    with pytest.raises(SchemaError, match=where(tmp_path, 1) + re.escape(
        f"field 'score' must be a number in [0, 1] or null (got {float(score)!r})"
    )):
        load_one(tmp_path, [run_record(score=score)], engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_nan_is_not_json(tmp_path, engine):
    line = '{"benchmark":"b","suite":"s","task_id":"t","model":"m","spec":"full","ask_tool":false,"score":NaN}'
    with pytest.raises(FormatError, match=where(tmp_path, 1) + re.escape("not valid JSON (NaN is not a JSON number)")):
        load_one(tmp_path, [line], engine)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("number", ["NaN", "1e400"])
def test_a_task_record_refused_for_a_number_is_counted_as_a_task(tmp_path, engine, number):
    # found by bench/fuzz.py (seed 21, case 110): counted as a rejected run, so the counts did not add up
    task = json.dumps(task_record()).replace('"hil-bench"', '"hil-bench", "x": ' + number, 1)
    runset, errors = ambiglib.load(write_jsonl(tmp_path / "runs.jsonl", [run_record(), task]), engine=engine,
                                   strict=False, quiet=True)
    assert len(runset.runs) == 1 and len(runset.tasks) == 0
    assert [(e.line, e.record, e.kind) for e in errors] == [(2, "task", "format")]
    assert f"not valid JSON ({number[:3]}" in errors[0].message or "beyond the range" in errors[0].message


@pytest.mark.parametrize("engine", ENGINES)
def test_duplicate_run_key_names_the_first_line(tmp_path, engine):
    lines = [run_record(trial=1), run_record(trial=2), run_record(trial=3), run_record(trial=2)]
    key = ("benchmark='hil-bench', suite='sql', variant_id='public_sql_3', model='model-a', "
           "spec='ambiguous', ask_tool=true, policy='default', protocol='solve', trial=2")
    with pytest.raises(SchemaError, match=where(tmp_path, 4) + re.escape(
        f"duplicate run key ({key}): first seen at {tmp_path / 'runs.jsonl'}:2"
    )):
        load_one(tmp_path, lines, engine)


def test_duplicate_run_key_across_files_and_defaults(tmp_path):
    # an explicit default and an absent field are the same key
    write_jsonl(tmp_path / "a.jsonl", [run_record(policy="default")])
    write_jsonl(tmp_path / "b.jsonl", [run_record(trial=None)])
    with pytest.raises(SchemaError, match=re.escape(
        f"{tmp_path / 'b.jsonl'}:1: duplicate run key") + ".*" + re.escape(f"first seen at {tmp_path / 'a.jsonl'}:1")):
        ambiglib.load(tmp_path, quiet=True)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_blank_question_text_is_an_error(tmp_path, engine):
    rec = run_record()
    rec["questions"][1] = {"text": "   "}
    with pytest.raises(SchemaError, match=where(tmp_path, 1) + re.escape(
            "field 'questions[1].text' must be a non-empty string or null (got '   ')")):
        load_one(tmp_path, [rec], engine)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("question", [{"blocker_id": "b1"}, {"text": None}, {"text": None, "parts": 3}])
def test_a_question_whose_text_the_log_does_not_keep_still_counts(tmp_path, engine, question):
    """Run log 1.1: a question without text is one the log says was asked without keeping its words (Ambig-SWE's
    ask-detection results); it counts as a question everywhere, its text is null."""
    rec = run_record()
    rec["questions"][1] = question
    rs = load_one(tmp_path, [rec], engine)
    assert rs.runs["n_questions"].tolist() == [2]
    q = rs.questions.set_index("q_index")
    assert pd.isna(q.loc[1, "text"]) and q.loc[0, "text"] == rec["questions"][0]["text"]
    assert (pd.isna(q.loc[1, "parts"]) if "parts" not in question else q.loc[1, "parts"] == 3)
    assert pd.isna(q.loc[0, "parts"])


@pytest.mark.parametrize("engine", ENGINES)
def test_labels_about_questions(tmp_path, engine):
    """Run log 1.1: a label may judge one question of its run (``q_index``); the same facet, judge and call about
    two questions are two labels, about one question twice an error, about a question the run lacks an error."""
    rec = run_record()
    rec["labels"] = [{"facet": "new_information", "label": "4", "judge": "gpt-4o", "q_index": 0},
                     {"facet": "new_information", "label": "2", "judge": "gpt-4o", "q_index": 1},
                     {"facet": "new_information", "label": "3", "judge": "gpt-4o"}]
    rs = load_one(tmp_path, [rec], engine)
    assert rs.labels[["q_index", "label"]].astype(object).where(rs.labels[["q_index", "label"]].notna(), None
                                                                ).values.tolist() == [[0, "4"], [1, "2"], [None, "3"]]
    assert ambiglib.load(rs.to_jsonl(tmp_path / "back.jsonl"), quiet=True).labels.equals(rs.labels)
    assert ambiglib.load(rs.to_parquet(tmp_path / "pq"), quiet=True).labels.equals(rs.labels)
    rec["labels"][1]["q_index"] = 0
    with pytest.raises(SchemaError, match=where(tmp_path, 1) + re.escape(
            "field 'labels[1]' repeats facet 'new_information', judge 'gpt-4o', call 1 about questions[0] of"
            " labels[0]")):
        load_one(tmp_path, [rec], engine)
    rec["labels"][1]["q_index"] = 2
    with pytest.raises(SchemaError, match=where(tmp_path, 1) + re.escape(
            "field 'labels[1].q_index' is 2, but the run has 2 question(s)")):
        load_one(tmp_path, [rec], engine)


def test_a_parquet_copy_written_before_run_log_1_1_still_loads(tmp_path):
    """Parquet copies written before 1.1 have no questions.parts and labels.q_index columns: they load, all null."""
    import pyarrow.parquet as pq

    rs = load_one(tmp_path, [run_record(labels=[{"facet": "trace", "label": "intended"}])])
    folder = rs.to_parquet(tmp_path / "old")
    for name, column in (("questions", "parts"), ("labels", "q_index")):
        table = pq.read_table(folder / f"{name}.parquet")
        pq.write_table(table.drop_columns([column]), folder / f"{name}.parquet")
        assert column not in pq.read_schema(folder / f"{name}.parquet").names
    back = ambiglib.load(folder, quiet=True)
    assert back.questions.equals(rs.questions) and back.labels.equals(rs.labels)
    assert back.questions["parts"].isna().all() and back.labels["q_index"].isna().all()


@pytest.mark.parametrize("engine", ENGINES)
def test_empty_input_is_an_error_not_an_empty_result(tmp_path, engine):
    path = tmp_path / "runs.jsonl"
    path.write_text("")
    with pytest.raises(FormatError, match=re.escape(f"{path}: no run records found in 1 file")):
        ambiglib.load(path, engine=engine)
    write_jsonl(path, ["", "   "])
    with pytest.raises(FormatError, match="no run records found in 1 file"):
        ambiglib.load(path, engine=engine)
    write_jsonl(path, [task_record()])
    with pytest.raises(FormatError, match=re.escape("no run records found in 1 file (only 1 task record)")):
        ambiglib.load(path, engine=engine)


def test_folder_without_run_log_files_lists_known_layouts(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    listing = "".join(f"\n  - {reader.name}: {reader.description}" for reader in ambiglib.importers.READERS)
    with pytest.raises(FormatError, match=re.escape(
            f"{tmp_path}: not a run log ambiglib recognises; the layouts it knows are:{listing}") + "$"):
        ambiglib.load(tmp_path)
    assert {"runlog-parquet", "runlog-jsonl", "hil-bench"} <= {reader.name for reader in ambiglib.importers.READERS}


def test_path_that_does_not_exist(tmp_path):
    missing = tmp_path / "nowhere" / "runs.jsonl"
    with pytest.raises(RunLogNotFoundError, match=re.escape(f"{missing}: no such file or folder")):
        ambiglib.load(missing)
    # it is also a FileNotFoundError and an AmbiglibError, so either except clause catches it
    with pytest.raises(FileNotFoundError):
        ambiglib.load(missing)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("overrides, message", [
    ({"scor": 0.5}, "unknown field 'scor' in a run record (did you mean 'score'? extra data belongs under 'meta'"),
    ({"blockers": []}, "field 'blockers' belongs to task records, not run records (add \"record\": \"task\")"),
    ({"questions": [{"text": "q", "blocker": "b1"}]},
     "unknown field 'questions[0].blocker' in a question object (did you mean 'blocker_id'?"),
    ({"ask_tool": False}, "field 'questions' holds 2 question(s) but 'ask_tool' is false"),
    ({"checkpoints": [{"result": 3, "total": 2}]},
     "field 'checkpoints[0].result' must be at most its 'total' (got result 3 > total 2)"),
    ({"labels": [{"facet": "trace", "label": "a"}, {"facet": "trace", "label": "b"}]},
     "field 'labels[1]' repeats facet 'trace', judge 'judge', call 1 of labels[0]"),
])
def test_contract_rules(tmp_path, engine, overrides, message):
    with pytest.raises(SchemaError, match=where(tmp_path, 1) + re.escape(message)):
        load_one(tmp_path, [run_record(**overrides)], engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_task_record_rules(tmp_path, engine):
    bad = task_record(blockers=[{"id": "a"}, {"id": "a"}])
    with pytest.raises(SchemaError, match=where(tmp_path, 2) + re.escape(
        "field 'blockers[1].id' repeats blocker id 'a' of blockers[0]")):
        load_one(tmp_path, [run_record(), bad], engine)
    with pytest.raises(SchemaError, match=where(tmp_path, 2) + re.escape(
        "field 'ambiguity_class' must be one of 'outcome-critical', 'divergent', 'benign', 'new-task'"
        " or null (got 'critical')")):
        load_one(tmp_path, [run_record(), task_record(ambiguity_class="critical")], engine)
    with pytest.raises(SchemaError, match=where(tmp_path, 2) + re.escape(
        "field 'model' belongs to run records, not task records")):
        load_one(tmp_path, [run_record(), task_record(model="m")], engine)


def test_duplicate_json_key_and_bad_utf8(tmp_path):
    line = '{"benchmark":"b","suite":"s","task_id":"t","model":"m","spec":"full","spec":"ambiguous","ask_tool":false}'
    with pytest.raises(SchemaError, match=where(tmp_path, 1) + re.escape("field 'spec' appears twice in one object")):
        load_one(tmp_path, [line])
    path = tmp_path / "bytes.jsonl"
    path.write_bytes(b'{"benchmark":"b","suite":"s","task_id":"t","model":"m\xff","spec":"full","ask_tool":false}\n')
    with pytest.raises(FormatError, match=re.escape(f"{path}:1: not valid UTF-8 (byte 0xff at column 54)")):
        ambiglib.load(path)


def test_strict_message_counts_the_other_problems(tmp_path):
    lines = [run_record(spec="amb"), run_record(trial=2, score=2.0), run_record(trial=3, model=None)]
    with pytest.raises(SchemaError, match=r"\(got 'amb'\) \(and 2 more problems; load with strict=False to get them all\)$"):
        load_one(tmp_path, lines)


# ----------------------------------------------------------------------------- lenient mode


@pytest.mark.parametrize("engine", ENGINES)
def test_lenient_mode_counts_every_record(tmp_path, engine):
    lines = [
        run_record(trial=1),
        "this is not json",
        run_record(trial=2, spec="amb"),
        "",
        task_record(),
        run_record(trial=3),
        run_record(trial=1),  # duplicate of line 1
        task_record(ambiguity_class="nope", task_id="other"),
        "[]",
        run_record(trial=4, score=None, status="invalid"),
    ]
    path = write_jsonl(tmp_path / "runs.jsonl", lines)
    runset, errors = ambiglib.load(path, strict=False, engine=engine)
    assert all(isinstance(e, LoadError) for e in errors)
    assert [(e.line, e.field, e.kind, e.record) for e in errors] == [
        (2, None, "format", "run"),
        (3, "spec", "schema", "run"),
        (7, None, "schema", "run"),
        (8, "ambiguity_class", "schema", "task"),
        (9, None, "format", "run"),
    ]
    assert {e.file for e in errors} == {str(path)}
    assert errors[2].message.endswith(f"first seen at {path}:1")
    n_run_records = 7  # lines 1, 2, 3, 6, 7, 9, 10: line 4 is blank, 5 and 8 are task records
    run_errors = [e for e in errors if e.record == "run"]
    assert len(runset.runs) + len(run_errors) == n_run_records
    assert list(runset.runs["trial"]) == [1, 3, 4]
    assert list(runset.runs["source"]) == [f"{path}:1", f"{path}:6", f"{path}:10"]
    assert len(runset.tasks) == 1


def test_lenient_mode_keeps_a_file_whose_every_run_is_bad(tmp_path):
    path = write_jsonl(tmp_path / "runs.jsonl", [run_record(spec="x"), run_record(spec="y", trial=2)])
    runset, errors = ambiglib.load(path, strict=False)
    assert len(runset.runs) == 0 and len(errors) == 2
    assert list(runset.runs.columns) == list(ambiglib.runset.COLUMNS["runs"])


# ----------------------------------------------------------------------------- layouts and round trips


def test_folder_is_read_recursively_in_name_order(tmp_path):
    write_jsonl(tmp_path / "b.jsonl", [run_record(trial=2)])
    write_jsonl(tmp_path / "a" / "z.jsonl.gz", [run_record(trial=1)])
    write_jsonl(tmp_path / "c.jsonl", [task_record()])
    (tmp_path / "README.txt").write_text("not a run log")
    runset = ambiglib.load(tmp_path, quiet=True)
    assert list(runset.runs["trial"]) == [1, 2]
    assert runset.runs["source"].tolist() == [f"{tmp_path / 'a' / 'z.jsonl.gz'}:1", f"{tmp_path / 'b.jsonl'}:1"]


def _two_benchmarks():
    return [
        task_record(),
        run_record(meta={"harness": "run_hil_bench.py", "pass": 1}),
        run_record(trial=2, questions=None, score=None, status="timeout"),
        run_record(ask_tool=False, questions=None, spec="full", labels=None),
        {"benchmark": "lhaw", "suite": "tac", "task_id": "finance-invoice-matching",
         "variant_id": "finance-invoice-matching__v2", "model": "opus-4.5", "spec": "ambiguous",
         "ask_tool": True, "policy": "supervisor", "trial": 3, "score": 0.8,
         "checkpoints": [{"result": 0, "total": 1}, {"result": 2, "total": 2}, {"result": 2, "total": 2}],
         "questions": [{"text": "Which invoices?", "blocker_id": "seg-1", "in_scope": True}]},
        {"record": "task", "benchmark": "lhaw", "suite": "tac", "task_id": "finance-invoice-matching",
         "variant_id": "finance-invoice-matching__v2", "ambiguity_class": "outcome-critical",
         "dimensions": ["input"], "strategy": "delete",
         "blockers": [{"id": "seg-1", "type": "input", "subtype": "file_path"}],
         "meta": {"criticality": 1.0}},
    ]


def test_gzip_input_equals_plain(tmp_path):
    plain = ambiglib.load(write_jsonl(tmp_path / "p" / "runs.jsonl", _two_benchmarks()))
    gz = ambiglib.load(write_jsonl(tmp_path / "g" / "runs.jsonl.gz", _two_benchmarks()))
    for name, frame in plain.frames().items():
        other = gz.frames()[name]
        if "source" in frame:
            assert other["source"].str.contains("runs.jsonl.gz:").all()
            frame, other = frame.drop(columns="source"), other.drop(columns="source")
        pd.testing.assert_frame_equal(frame, other)


def test_jsonl_to_parquet_to_runset_round_trip(tmp_path):
    runset = ambiglib.load(write_jsonl(tmp_path / "runs.jsonl", _two_benchmarks()))
    out = runset.to_parquet(tmp_path / "pq")
    assert sorted(p.name for p in out.iterdir()) == [
        "blockers.parquet", "labels.parquet", "questions.parquet", "runs.parquet", "tasks.parquet"]
    again = ambiglib.load(out)
    for name, frame in runset.frames().items():
        pd.testing.assert_frame_equal(frame, again.frames()[name])


@pytest.mark.parametrize("target", ["out.jsonl", "out.jsonl.gz", "folder"])
def test_jsonl_write_round_trip(tmp_path, target):
    runset = ambiglib.load(write_jsonl(tmp_path / "runs.jsonl", _two_benchmarks()))
    again = ambiglib.load(runset.to_jsonl(tmp_path / target))
    for name, frame in runset.frames().items():
        cols = [c for c in frame.columns if c != "source"]
        pd.testing.assert_frame_equal(frame[cols], again.frames()[name][cols])


def test_parquet_folder_errors(tmp_path):
    runset = ambiglib.load(write_jsonl(tmp_path / "runs.jsonl", _two_benchmarks()))
    out = runset.to_parquet(tmp_path / "pq")
    (out / "labels.parquet").unlink()
    with pytest.raises(FormatError, match=re.escape(f"{out / 'labels.parquet'}: missing; a Parquet run log is a folder of")):
        ambiglib.load(out)
    (out / "labels.parquet").write_bytes(b"not parquet")
    with pytest.raises(FormatError, match=re.escape(f"{out / 'labels.parquet'}: not a readable Parquet file")):
        ambiglib.load(out)
    pd.DataFrame({"x": [1]}).to_parquet(out / "labels.parquet")
    with pytest.raises(FormatError, match=r"run-log version must be 1 \(got none\)"):
        ambiglib.load(out)


def test_truncated_gzip_is_a_clear_error(tmp_path):
    path = write_jsonl(tmp_path / "runs.jsonl.gz", [run_record(trial=i) for i in range(1, 200)])
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(FormatError, match=re.escape(f"{path}: cannot be read")):
        ambiglib.load(path)


def test_progress_bar_for_many_files_and_quiet(tmp_path, capsys):
    for i in range(25):
        write_jsonl(tmp_path / f"r{i:02d}.jsonl", [run_record(trial=i + 1)])
    ambiglib.load(tmp_path)
    assert "reading run log" in capsys.readouterr().err
    ambiglib.load(tmp_path, quiet=True)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("layout, engine", [
    ("\n", "arrow"), ("\r\n", "arrow"),  # one record per line: the Arrow path keeps line numbers
])
def test_line_endings_keep_line_numbers_on_the_arrow_path(tmp_path, layout, engine):
    path = tmp_path / "runs.jsonl"
    path.write_bytes(layout.join(json.dumps(run_record(trial=i)) for i in (1, 2, 3)).encode())
    runset = ambiglib.load(path, engine=engine)
    assert runset.runs["source"].tolist() == [f"{path}:{i}" for i in (1, 2, 3)]


def test_blank_and_indented_lines_keep_line_numbers(tmp_path):
    path = tmp_path / "runs.jsonl"
    text = "\n".join(["", json.dumps(run_record(trial=1)), "   ", "  " + json.dumps(run_record(trial=2)),
                      "", json.dumps(run_record(trial=3, spec="bad"))])
    path.write_text(text)
    with pytest.raises(FormatError, match="the Arrow reader cannot take this file"):
        ambiglib.load(path, engine="arrow")
    runset, errors = ambiglib.load(path, strict=False)
    assert runset.runs["source"].tolist() == [f"{path}:2", f"{path}:4"]
    assert [e.line for e in errors] == [6]


def test_meta_is_kept_whole_on_both_paths(tmp_path):
    metas = [{"z": 1, "a": {"nested": [1, 2.5, None]}}, None, {"b": "x"}]
    lines = [run_record(trial=i + 1, meta=m) for i, m in enumerate(metas)]
    # a key spelled with a unicode escape still counts as meta
    lines.append(json.dumps(run_record(trial=9)).replace('"benchmark"', '"\\u006deta": {"k": 1}, "benchmark"'))
    path = write_jsonl(tmp_path / "runs.jsonl", lines)
    arrow, python = ambiglib.load(path), ambiglib.load(path, engine="python")
    pd.testing.assert_frame_equal(arrow.runs, python.runs)
    assert [None if pd.isna(m) else json.loads(m) for m in arrow.runs["meta"]] == [*metas, {"k": 1}]


_TRICKY = ['"', "\\", "{", "}", "[", "]", '"meta":', '\\"meta\\": {', "meta", ":", ",", " ", "é", "\u2028", "x"]


_KEYS = itertools.count()


def _tricky_text(rng) -> str:
    return "".join(rng.choice(_TRICKY) for _ in range(rng.randrange(0, 8)))


def _tricky_value(rng, depth=0):
    # every key is new (a counter), so that Arrow's type inference meets no key with two types
    kind = rng.randrange(5 if depth < 3 else 3)
    if kind == 0:
        return _tricky_text(rng)
    if kind == 1:
        return rng.choice([0, -1.5, 2e300, True, None])
    if kind == 2:
        return [_tricky_text(rng) for _ in range(rng.randrange(3))]
    keys = [_tricky_text(rng), "meta", "{", '"']
    return {f"{rng.choice(keys)}{next(_KEYS)}": _tricky_value(rng, depth + 1) for _ in range(rng.randrange(3))} | (
        {"meta": {f"meta{next(_KEYS)}": _tricky_text(rng)}} if rng.random() < 0.3 else {})


def test_meta_is_found_in_lines_whose_strings_look_like_json(tmp_path):
    # the Arrow path reads meta alone from each line; strings holding quotes, backslashes, brackets and
    # '"meta":', and "meta" keys of nested objects, must not mislead it: it equals the whole-line parse
    import random

    from ambiglib.runlog._jsonl import _meta_start

    rng = random.Random(14)
    lines = []
    for i in range(400):
        meta = {f"{_tricky_text(rng)}{next(_KEYS)}": _tricky_value(rng) for _ in range(rng.randrange(1, 4))}
        if i % 5 == 0:  # a "meta" key inside meta
            meta["meta"] = {f"meta{i}": _tricky_text(rng)}
        rec = run_record(trial=i + 1, task_id=_tricky_text(rng) or "t", model=_tricky_text(rng) or "m")
        rec["questions"][0]["text"] = _tricky_text(rng) + '"meta": {"no": 1}' + _tricky_text(rng)
        items = list(rec.items())
        items.insert(rng.randrange(len(items) + 1), ("meta", meta))  # meta first, last or between
        text = json.dumps(dict(items), ensure_ascii=rng.random() < 0.5,
                          separators=rng.choice([(",", ":"), (", ", ": "), (",", " : ")]))
        at = _meta_start((text + "\n").encode())
        assert at is not None and json.JSONDecoder().raw_decode((text + "\n").encode()[at:].decode())[0] == meta
        lines.append(text)
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    arrow, python = ambiglib.load(path, engine="arrow"), ambiglib.load(path, engine="python")
    pd.testing.assert_frame_equal(arrow.runs, python.runs)
    assert arrow.runs["meta"].notna().all()


def test_metas_that_differ_only_a_little_are_each_read_for_themselves(tmp_path):
    # the Arrow path reads meta alone from each line (and makes each distinct text canonical once): metas
    # that differ only in a value, a number's form, spacing or a following key must each be read as written
    pool = ['{"mode":"baseline"}', '{"mode":"baselinf"}', '{"mode": "baseline"}', '{"n":1}', '{"n":1.0}',
            '{"n":2}', '{"mode":"baseline","n":1}', '{"a":{"meta":{"x":1}}}', '{"a":{"meta":{"x":2}}}']
    followers = ["", ', "cost_usd": 0.25', ', "duration_s": 3.0']
    lines, expected = [], []
    for i in range(120):
        meta, follow = pool[i % len(pool)], followers[(i // len(pool)) % len(followers)]
        rec = json.dumps(run_record(trial=i + 1, task_id=f"t{i % 4}"))
        if follow:  # meta in the middle: its key after it replaces the record's own
            rec = json.dumps({k: v for k, v in json.loads(rec).items() if k != follow.split('"')[1]})
        lines.append(rec[:-1] + f', "meta": {meta}{follow}}}')
        expected.append(json.loads(meta))
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    arrow, python = ambiglib.load(path, engine="arrow"), ambiglib.load(path, engine="python")
    pd.testing.assert_frame_equal(arrow.runs, python.runs)
    assert [json.loads(m) for m in arrow.runs["meta"]] == expected
    assert arrow.runs["meta"].tolist() == python.runs["meta"].tolist()  # 1 and 1.0 each as written


def test_meta_key_that_cannot_be_told_from_its_text_is_parsed_whole():
    from ambiglib.runlog._jsonl import _meta_start

    # spelled with an escape, with a literal "meta" only inside it: not a top-level key
    assert _meta_start(b'{"me\\u0074a": {"meta": {"x": 1}}, "benchmark": "b"}\n') is None
    # a quote escaped inside a key that ends in meta
    assert _meta_start(b'{"x\\"meta": 1}\n') is None
    # twice at the top level (Arrow refuses such a line before this is asked)
    assert _meta_start(b'{"meta": {}, "meta": {}}\n') is None


def test_arrow_never_sees_the_meta_keys_so_varied_metas_cost_nothing_more(tmp_path):
    """Arrow inferred one struct field per distinct meta key for every row: a 4.6 MB log whose records each
    carried their own keys took 8.9 s and 2.5 GB (bench/load.py, figure 6). The reader takes each meta out
    before Arrow parses the line, so Arrow's meta column is the empty struct, whatever the keys; the loaded
    metas are those of the Python engine, byte for byte."""
    import pyarrow as pa

    from ambiglib.runlog._jsonl import _parse, read_file

    path = tmp_path / "metas.jsonl"
    metas = [{f"key_{i}_{j}": {"v": j, "text": "x é \u2028"} for j in range(3)} for i in range(300)]
    metas[5] = None
    metas[7] = {}
    write_jsonl(path, [run_record(trial=i + 1, **({"meta": m} if m is not None else {}))
                       for i, m in enumerate(metas)])
    table, lines, taken, _ = _parse(path)
    assert table.schema.field("meta").type == pa.struct([]) and lines == 300 and len(taken) == 299
    fast, slow = read_file(path, "x", engine="auto"), read_file(path, "x", engine="python")
    assert fast.engine == "arrow" and slow.engine == "python"
    assert fast.table.column("meta").to_pylist() == slow.table.column("meta").to_pylist()
    assert json.loads(fast.table.column("meta")[0].as_py()) == metas[0]


@pytest.mark.parametrize("meta_text, why", [
    ('{"a": 1, "a": 2}', "a key named twice"),
    ('{"a": NaN}', "NaN"),
    ('[1, 2]', "not an object"),
    ('{"a": ' * 70 + "1" + "}" * 70, "nested too deep"),
])
def test_a_meta_the_reader_cannot_take_out_sends_the_file_to_the_reference_path(tmp_path, meta_text, why):
    from ambiglib.runlog._jsonl import read_file

    line = json.dumps(run_record())[:-1] + f', "meta": {meta_text}}}'
    path = write_jsonl(tmp_path / "bad.jsonl", [run_record(trial=2), line])
    fast = read_file(path, "x", engine="auto")
    assert fast.engine == "python" and [e.line for e in fast.errors] == [2], why


def _system_bytes_kept(load):
    """What the C library's allocator holds for Arrow while ``load``'s result is alive, beyond before; and the
    default pool after it."""
    import pyarrow as pa

    before = pa.system_memory_pool().bytes_allocated()
    result = load()
    held = pa.system_memory_pool().bytes_allocated() - before
    return held, pa.default_memory_pool(), result


def test_a_json_load_allocates_its_frames_from_the_c_library_and_leaves_the_pool_it_found(tmp_path):
    """JSON Lines logs and native layouts (parsed as JSON by Python) become frames in memory from the C library's
    allocator (reusing what the parse freed: ambiglib.runlog._memory); a Parquet copy keeps Arrow's default. Afterwards,
    and after a load that failed, the default allocator is the one the caller had, also with loads in threads."""
    import threading
    from pathlib import Path

    import pyarrow as pa

    found = pa.default_memory_pool()
    try:  # the caller's own choice, neither Arrow's default nor ours (where this Arrow is built with jemalloc)
        pa.set_memory_pool(pa.jemalloc_memory_pool())
    except NotImplementedError:
        pa.set_memory_pool(pa.mimalloc_memory_pool())
    mine = pa.default_memory_pool().backend_name
    try:
        log = write_jsonl(tmp_path / "runs.jsonl", [run_record(trial=t) for t in range(1, 200)])
        hil = Path(__file__).parent / "fixtures" / "hilbench" / "run_gpt54"
        for path in (log, hil):
            held, pool, rs = _system_bytes_kept(lambda path=path: ambiglib.load(path, quiet=True))
            frames = sum(pa.Table.from_pandas(f, preserve_index=False).nbytes for f in rs.frames().values())
            assert held >= 0.5 * frames, (path, held, frames)
            assert pool.backend_name == mine
        rs.to_parquet(tmp_path / "copy")
        held, pool, rs = _system_bytes_kept(lambda: ambiglib.load(tmp_path / "copy", quiet=True))
        assert held == 0 and pool.backend_name == mine

        write_jsonl(tmp_path / "bad.jsonl", [run_record(spec="vague")])
        with pytest.raises(SchemaError):
            ambiglib.load(tmp_path / "bad.jsonl", quiet=True)
        assert pa.default_memory_pool().backend_name == mine

        errors = []

        def load_some():
            try:
                for _ in range(5):
                    ambiglib.load(hil if threading.current_thread().name.endswith("0") else log, quiet=True)
            except Exception as exc:  # reported below
                errors.append(exc)

        threads = [threading.Thread(target=load_some, name=f"loader-{i}") for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors and pa.default_memory_pool().backend_name == mine
    finally:
        pa.set_memory_pool(found)


def _published_taubench(dst):
    """τ-bench's published GPT-4o airline trajectories (tests/fixtures/tau-bench), unzipped to ``dst``."""
    import gzip
    import shutil
    from pathlib import Path

    published = Path(__file__).resolve().parent / "fixtures" / "tau-bench" / "gpt-4o-airline.json.gz"
    with gzip.open(published) as src, open(dst, "wb") as out:
        shutil.copyfileobj(src, out)


def test_a_merge_of_logs_without_blockers_keeps_every_frames_columns(tmp_path):
    """Two logs in one folder, neither with blockers (a τ-bench file beside a canonical log): the merged run set
    has every frame's columns, and a Parquet copy of it loads back (it wrote a blockers file with no columns)."""
    folder = tmp_path / "logs"
    folder.mkdir()
    write_jsonl(folder / "own.jsonl", [run_record(task_id="t1"), run_record(task_id="t2")])
    _published_taubench(folder / "gpt-4o-airline.json")
    alone = ambiglib.load(folder / "own.jsonl")
    assert alone.blockers.empty
    merged = ambiglib.load(folder)
    for name in ("runs", "questions", "labels", "tasks", "blockers"):
        assert list(getattr(merged, name).columns) == list(getattr(alone, name).columns), name
    merged.to_parquet(tmp_path / "copy")
    back = ambiglib.load(tmp_path / "copy")
    assert len(back.runs) == len(merged.runs) == 202
    assert list(back.blockers.columns) == list(alone.blockers.columns)


@pytest.mark.parametrize("how", ["symlink", "hardlink"])
def test_a_file_linked_inside_its_folder_is_read_once_and_the_link_counted(tmp_path, how):
    """A second name of a file (a link beside it) is not read again: its runs would count twice, and a τ-bench
    file's model comes from its name, so a link would add a second model with the same runs (issue 56 §4)."""
    from pathlib import Path

    folder = tmp_path / "logs"
    folder.mkdir()
    write_jsonl(folder / "b_own.jsonl", [run_record(task_id="t1"), run_record(task_id="t2")])
    _published_taubench(folder / "b_gpt-4o-airline.json")
    alone = ambiglib.load(folder)
    link = (lambda src, dst: dst.symlink_to(src.name)) if how == "symlink" else (lambda src, dst: dst.hardlink_to(src))
    link(folder / "b_own.jsonl", folder / "a_copy.jsonl")  # met first, in name order
    link(folder / "b_gpt-4o-airline.json", folder / "a_gpt-4o-mini-airline.json")
    both = ambiglib.load(folder)
    assert len(both.runs) == len(alone.runs) == 202 and both.runs["model"].nunique() == 2
    (reason, n), = [(r, n) for r, n in both.skipped.items() if r.startswith("second name of a file")]
    assert n == 2
    if how == "symlink":  # the link is left out, whichever comes first: the file is read under its own name
        assert "a_copy.jsonl -> b_own.jsonl" in reason
        assert sorted(both.runs["model"].unique()) == sorted(alone.runs["model"].unique())
        assert set(both.runs["source"].astype(str).str.rsplit(":", n=1).str[0].map(lambda p: Path(p).name)) == {
            "b_own.jsonl", "b_gpt-4o-airline.json"}


def test_a_link_of_another_kind_of_name_is_read_as_the_link(tmp_path):
    """A log's name that is a link to a file no layout reads by its own name (``x.jsonl -> raw/data.txt``) is read
    as the link: only a link to a file of the same kind of name is left to the file's own name."""
    folder = tmp_path / "logs"
    (folder / "raw").mkdir(parents=True)
    write_jsonl(folder / "raw" / "data.txt", [run_record(task_id="t1"), run_record(task_id="t2")])
    (folder / "runs.jsonl").symlink_to(folder / "raw" / "data.txt")
    rs = ambiglib.load(folder)
    assert len(rs.runs) == 2 and set(rs.runs["source"].astype(str).str.rsplit(":", n=1).str[0]) == {
        str(folder / "runs.jsonl")}


def test_many_small_files_read_together_give_what_each_read_alone_gives(tmp_path):
    """A folder of small files is parsed a group at a time (runlog.read_small_files): the frames, every record's
    file and line, and every rejection equal those of the reference engine, which reads each file alone; a
    file the group cannot take (a blank line, a bad record, gzip, CRLF) is read alone, where it is named."""
    import gzip

    folder = tmp_path / "logs"
    folder.mkdir()
    for i in range(40):
        records = [run_record(task_id=f"t{i}", trial=t) for t in (1, 2)]
        if i % 7 == 0:
            records.insert(0, task_record(task_id=f"t{i}"))
        text = "".join(json.dumps(r) + "\n" for r in records)
        if i == 11:
            text = text.replace("\n", "\n\n", 1)  # a blank line: the group parse cannot keep line numbers
        if i == 23:
            text = text.replace('"ambiguous"', '"amb"', 1)  # a record the contract refuses
        if i == 31:
            text = text.replace("\n", "\r\n")
        if i == 17:
            text = text.rstrip("\n")  # no newline at the end
        if i == 5:
            with gzip.open(folder / f"r{i:02d}.jsonl.gz", "wt") as fh:
                fh.write(text)
            continue
        (folder / f"r{i:02d}.jsonl").write_text(text)
    together, errors = ambiglib.load(folder, strict=False)
    alone, alone_errors = ambiglib.load(folder, strict=False, engine="python")
    assert len(together.runs) == 79 and len(errors) == 1 and "r23.jsonl:" in errors[0].message
    assert [e.message for e in errors] == [e.message for e in alone_errors]
    for name in ("runs", "questions", "labels", "tasks", "blockers"):
        pd.testing.assert_frame_equal(getattr(together, name), getattr(alone, name), check_dtype=False,
                                      check_categorical=False, obj=name)
    # each record's own file and line, counted here from the files
    src = together.runs.set_index("source")
    assert f"{folder / 'r00.jsonl'}:2" in src.index and f"{folder / 'r00.jsonl'}:3" in src.index
    assert f"{folder / 'r11.jsonl'}:3" in src.index  # after its blank line
    assert f"{folder / 'r17.jsonl'}:2" in src.index


def test_a_load_lists_each_folder_of_a_log_once(tmp_path, monkeypatch):
    """The unreadable-file check, each layout's detection and the reader walked a folder of small files again and
    again (five walks of 20,000 names, about 0.5 s each): within a load each folder is listed once, and a second
    load looks again (a file added between them is read)."""
    import collections
    import os

    folder = tmp_path / "logs"
    for i in range(12):
        write_jsonl(folder / ("deeper" if i % 3 else "") / f"r{i:02d}.jsonl", [run_record(task_id=f"t{i}")])
    listed: collections.Counter = collections.Counter()
    scandir, listdir = os.scandir, os.listdir

    def counting(real):
        def look(path="."):
            if os.path.realpath(path).startswith(str(tmp_path.resolve())):  # (not Python's own look at its modules)
                listed[os.path.realpath(path)] += 1
            return real(path)
        return look

    monkeypatch.setattr(os, "scandir", counting(scandir))
    monkeypatch.setattr(os, "listdir", counting(listdir))
    assert len(ambiglib.load(folder).runs) == 12
    assert listed[str(folder.resolve())] == listed[str((folder / "deeper").resolve())] == 1
    assert max(listed.values()) == 1, listed  # (and a name a detection looks for in each, absent, once)
    write_jsonl(folder / "r99.jsonl", [run_record(task_id="t99")])
    assert len(ambiglib.load(folder).runs) == 13 and listed[str(folder.resolve())] == 2


def test_a_duplicate_across_small_files_names_both(tmp_path):
    folder = tmp_path / "logs"
    folder.mkdir()
    for i in range(5):
        write_jsonl(folder / f"r{i}.jsonl", [run_record(task_id=f"t{i}")])
    write_jsonl(folder / "r5.jsonl", [run_record(task_id="t2")])
    _, errors = ambiglib.load(folder, strict=False)
    assert len(errors) == 1
    assert errors[0].message.startswith(f"{folder / 'r5.jsonl'}:1: duplicate run key")
    assert errors[0].message.endswith(f"first seen at {folder / 'r2.jsonl'}:1")


@pytest.mark.parametrize("engine", ["duckdb", "nonsense", "Arrow", None, 1])
def test_an_engine_that_is_no_json_lines_parser_is_refused_before_anything_is_read(engine):
    # "duckdb" and "nonsense" loaded data/example as "auto" did (issue 74): the argument was never looked at there
    example = Path(__file__).resolve().parents[1] / "data" / "example"
    with pytest.raises(ArgumentError, match=r"load: engine is how JSON Lines are parsed, one of 'auto', 'arrow',"
                                            rf" 'python' \(got {re.escape(repr(engine))}\)"):
        ambiglib.load(example, engine=engine)
    with pytest.raises(ArgumentError, match="load: engine is how JSON Lines are parsed"):
        ambiglib.load({"a": example}, engine=engine)
    assert len(ambiglib.load(example, engine="python").runs) == len(ambiglib.load(example, engine="arrow").runs) > 0
