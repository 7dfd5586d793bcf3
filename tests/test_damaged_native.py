"""Native files damaged so that the old importers read them wrong without a word (issue 56): a CSV column named
twice (the last copy won), an ask_human log answer that is an object, an MCP-Atlas tool call whose ``tool_name``
is not a name (the question vanished), an emptied Ambig-DS ``_runlog.jsonl`` (its runs lost their runlog status),
and an Ambig-SWE instance repeated (its error named the first line twice). Each must be an error naming the file,
the record and the field."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import tarfile
from pathlib import Path

import pytest
from conftest import FIXTURES

import ambiglib
from ambiglib.errors import FormatError
from ambiglib.importers._common import read_csv

ROOT = Path(__file__).resolve().parents[1]
NATIVE = ROOT / "data" / "example-native"
PUBLISHED = ROOT / "tests" / "fixtures" / "ambig-swe" / "experiments.tar.gz"
MCP_ATLAS = FIXTURES / "harness-output" / "lhaw_mcp_atlas"


def _rows(file: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(file.read_text(encoding="utf-8"), newline="")))


def _write_rows(file: Path, rows: list[list[str]]) -> None:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    file.write_text(buf.getvalue(), encoding="utf-8")


def repeat_column(file: Path, column: str, value: str) -> None:
    """Append a second column named ``column`` to a CSV, holding ``value`` in every row."""
    rows = _rows(file)
    assert column in rows[0]
    _write_rows(file, [rows[0] + [column]] + [r + [value] for r in rows[1:]])


@pytest.fixture
def experiments(tmp_path):
    folder = tmp_path / "experiments"
    with tarfile.open(PUBLISHED) as tar:
        tar.extractall(folder, members=[m for m in tar.getmembers() if m.name.split("/")[-1].startswith("haiku_")],
                       filter="data")
    return folder


# ----------------------------------------------------------------------------- a column named twice


def test_read_csv_refuses_a_column_named_twice(tmp_path):
    file = tmp_path / "t.csv"
    file.write_text("a,b,a\n1,2,3\n", encoding="utf-8")
    with pytest.raises(FormatError, match=re.escape(f"{file}:1: column 'a' is named twice in the header"
                                                    " (columns 1 and 3)")):
        list(read_csv(file, ("a", "b")))


def test_read_csv_refuses_a_column_named_twice_that_is_not_required(tmp_path):
    """Every column of the header counts, not only the columns the importer needs: the row dict loses a value."""
    file = tmp_path / "t.csv"
    file.write_text("a,,b,\n1,2,3,4\n", encoding="utf-8")
    with pytest.raises(FormatError, match=re.escape(f"{file}:1: column '' is named twice in the header"
                                                    " (columns 2 and 4)")):
        list(read_csv(file, ("a",)))


@pytest.mark.parametrize("folder, column, value", [
    ("file_resolve_rates/haiku_file_analysis.csv", "resolved", "True"),
    ("llm_as_judge/haiku_gpt4o_evaluation_results.csv", "new_information_score", "5"),
])
def test_ambig_swe_csv_with_a_column_named_twice_is_refused(experiments, folder, column, value):
    file = experiments / folder
    before = ambiglib.load(experiments, quiet=True)
    repeat_column(file, column, value)
    # the old importer took the last copy: every run resolved, every judge label "5", and no error
    for strict in (True, False):
        with pytest.raises(FormatError, match=re.escape(f"{file}:1: column '{column}' is named twice")):
            ambiglib.load(experiments, strict=strict, quiet=True)
    assert len(before.runs)  # the undamaged files load


def test_ambig_swe_published_resolved_count_is_what_the_csv_says(experiments):
    """The undamaged CSV's verdicts, counted without ambiglib, are what the runs say (the truth the damage hid)."""
    rows = list(csv.DictReader(io.StringIO((experiments / "file_resolve_rates" / "haiku_file_analysis.csv")
                                           .read_text(encoding="utf-8"), newline="")))
    resolved = sum(r["resolved"].strip() in ("True", "1") for r in rows)
    rs = ambiglib.load(experiments, quiet=True)
    interaction = rs.runs[rs.runs["meta"].str.contains("extracted_qa_pairs", regex=False)]
    assert (int((interaction["passed"] == True).sum()), len(rows)) == (resolved, 450)  # noqa: E712
    assert resolved == 125


@pytest.mark.skipif(not MCP_ATLAS.is_dir(), reason="../shared/fixtures/harness-output/lhaw_mcp_atlas absent")
def test_mcp_atlas_scored_csv_with_coverage_score_named_twice_is_refused(tmp_path):
    root = Path(shutil.copytree(MCP_ATLAS, tmp_path / "mcp"))
    file = root / "evaluation_results" / "scored_gpt_5_2_ask_user_t1.csv"
    repeat_column(file, "coverage_score", "1.0")
    for strict in (True, False):
        with pytest.raises(FormatError, match=re.escape(f"{file}:1: column 'coverage_score' is named twice")):
            ambiglib.load(root, strict=strict, quiet=True)


def test_hil_bench_and_lhaw_manifest_with_a_column_named_twice_are_refused(tmp_path):
    hil = Path(shutil.copytree(NATIVE / "hil-bench", tmp_path / "hil-bench"))
    metrics = hil / "results" / "example_ask_human_sql" / "public_metrics" / "pass_level_metrics.csv"
    repeat_column(metrics, "resolved", "True")
    expected = f"{metrics}:1: column 'resolved' is named twice in the header (columns 6 and 19)"
    with pytest.raises(FormatError, match=re.escape(expected)):
        ambiglib.load(hil, quiet=True)
    # lenient: the run folder whose CSV it is is rejected by name, the other folders load
    _, errors = ambiglib.load(hil, strict=False, quiet=True)
    assert [(e.file, e.line) for e in errors] == [(str(metrics.parent.parent), None)]
    assert expected in errors[0].message
    lhaw = Path(shutil.copytree(NATIVE / "lhaw", tmp_path / "lhaw"))
    manifest = lhaw / "lhaw_manifest.csv"
    repeat_column(manifest, "spec", "full")
    with pytest.raises(FormatError, match=re.escape(f"{manifest}:1: column 'spec' is named twice")):
        ambiglib.load(lhaw, strict=False, quiet=True)


# ----------------------------------------------------------------------------- fuzz seeds 9002, 9003


def test_hil_bench_server_log_answer_that_is_an_object_is_an_error_naming_it(tmp_path):
    hil = Path(shutil.copytree(NATIVE / "hil-bench", tmp_path / "hil-bench"))
    log = hil / "results" / "example_ask_human_sql" / "ask_human_logs.json"
    data = json.loads(log.read_text(encoding="utf-8"))
    iid = next(iter(data))
    data[iid]["questions"][0]["response"] = {"x": 1}
    log.write_text(json.dumps(data, indent=2), encoding="utf-8")
    expected = re.escape(f"{log}: entry {iid!r} questions[0].response must be a string or null (got dict)")
    with pytest.raises(FormatError, match=expected):
        ambiglib.load(hil, quiet=True)
    try:
        _, errors = ambiglib.load(hil, strict=False, quiet=True)
    except FormatError as exc:
        assert re.search(expected, str(exc))
    else:
        assert errors and all(re.search(expected, e.message) for e in errors)


def test_hil_bench_server_log_blocker_name_that_is_not_a_string_is_an_error(tmp_path):
    hil = Path(shutil.copytree(NATIVE / "hil-bench", tmp_path / "hil-bench"))
    log = hil / "results" / "example_ask_human_sql" / "ask_human_logs.json"
    data = json.loads(log.read_text(encoding="utf-8"))
    iid = next(iter(data))
    data[iid]["questions"][0]["blocker_name"] = {}  # falsy: the old reader made it "no blocker"
    log.write_text(json.dumps(data, indent=2), encoding="utf-8")
    with pytest.raises(FormatError, match=re.escape(f"{log}: entry {iid!r} questions[0].blocker_name must be a"
                                                    " string or null (got dict)")):
        ambiglib.load(hil, quiet=True)


def test_mcp_atlas_tool_call_whose_tool_name_is_not_a_name_is_an_error_naming_the_row(tmp_path):
    lhaw = Path(shutil.copytree(NATIVE / "lhaw", tmp_path / "lhaw"))
    before = ambiglib.load(lhaw, quiet=True)
    scored = lhaw / "mcp-atlas" / "gpt-5.2" / "evaluation_results" / "scored_gpt-5.2_ask_user_t1.csv"
    rows = _rows(scored)
    col = rows[0].index("trajectory")
    row, step = next((n, k) for n, r in enumerate(rows) if n and r[col]
                     for k, s in enumerate(json.loads(r[col])) if s.get("tool_name") == "ask_user")
    trajectory = json.loads(rows[row][col])
    trajectory[step]["tool_name"] = {}
    rows[row][col] = json.dumps(trajectory)
    _write_rows(scored, rows)
    reader = csv.reader(io.StringIO(scored.read_text(encoding="utf-8"), newline=""))
    for _ in range(row + 1):
        next(reader)
    line = reader.line_num  # a row's line is the file's line where the row ends (its cells span lines)
    rs, errors = ambiglib.load(lhaw, strict=False, quiet=True)
    # the scored file's row is rejected, naming the call; the old importer dropped the question (n_questions
    # 1 -> 0) and said nothing
    assert [(e.file, e.line, e.field) for e in errors] == [(str(scored), line, f"trajectory[{step}].tool_name")]
    assert f"{scored}:{line}: field 'trajectory[{step}].tool_name' must be a tool's name (got {{}})" \
        in errors[0].message
    # that row's run alone: the file's other rows, each a run, load (the whole manifest row was rejected once)
    assert len(rs.runs) == len(before.runs) - 1 and not rs.runs["source"].eq(f"{scored}:{line}").any()


def test_an_emptied_ambig_ds_runlog_is_an_error_naming_it(tmp_path):
    ds = Path(shutil.copytree(NATIVE / "ambig-ds", tmp_path / "ambig-ds"))
    run = ds / "results" / "opencode_gemini-3.1-pro_ambig_target_ask_only"
    runlog = run / "_runlog.jsonl"
    before = ambiglib.load(ds, quiet=True)
    n_lines = sum(1 for line in runlog.read_text(encoding="utf-8").splitlines() if line.strip())
    assert n_lines > 0
    runlog.write_bytes(b"")
    # the harness appends a line per task attempt, so a _runlog.jsonl that is there holds at least one
    with pytest.raises(FormatError, match=re.escape(f"{runlog}: empty")):
        ambiglib.load(ds, quiet=True)
    rs, errors = ambiglib.load(ds, strict=False, quiet=True)
    assert [(e.file, e.line) for e in errors] == [(str(runlog), None)]
    assert len(rs.runs) == len(before.runs)  # the task folders are still read: nothing more is lost


@pytest.mark.parametrize("status", [[], {"a": 1}, 3, None])
def test_an_ambig_ds_runlog_status_that_is_no_text_is_an_error_naming_its_line(tmp_path, status):
    """Fuzz seed 9001 case 242: a status ``[]`` in _runlog.jsonl was read as the status "[]" and changed its run's
    runlog status without a word. The harness writes statuses as text: anything else is the line's error."""
    ds = Path(shutil.copytree(NATIVE / "ambig-ds", tmp_path / "ambig-ds"))
    runlog = ds / "results" / "opencode_gemini-3.1-pro_ambig_target_ask_only" / "_runlog.jsonl"
    lines = runlog.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["status"] = status
    runlog.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n", encoding="utf-8")
    rs, errors = ambiglib.load(ds, strict=False, quiet=True)
    assert [(e.file, e.line, e.field) for e in errors] == [(str(runlog), 1, "status")]
    assert f"expected text, as the harness writes it, found {type(status).__name__} {json.dumps(status)}" \
        in errors[0].message
    assert str(json.dumps(status)) not in set(rs.runs["meta"].map(lambda m: str(json.loads(m).get("runlog_status"))))


def test_an_ambig_ds_runlog_nested_too_deep_is_an_error_not_a_recursion_error(tmp_path):
    """Fuzz seed 9001 case 273: a first line nested thousands deep raised Python's RecursionError while the load
    looked for the run folders; it is the file's error, as any line of it that is no JSON is."""
    ds = Path(shutil.copytree(NATIVE / "ambig-ds", tmp_path / "ambig-ds"))
    runlog = ds / "results" / "opencode_gpt-5.4_ambig_target_ask_only" / "_runlog.jsonl"
    lines = runlog.read_text(encoding="utf-8").splitlines()
    runlog.write_text("\n".join(['{"a":' * 100_000, *lines[1:]]) + "\n", encoding="utf-8")
    with pytest.raises(FormatError, match=re.escape(f"{runlog}:1: not valid JSON (nested too deeply to read)")):
        ambiglib.load(ds, strict=False, quiet=True)


def test_a_repeated_ambig_swe_instance_is_named_at_its_own_line(experiments):
    file = experiments / "extracted_qa_pairs" / "haiku_qa_pairs.json"
    entries = json.loads(file.read_text(encoding="utf-8"))
    entries.append(entries[0])
    text = json.dumps(entries, indent=2)
    file.write_text(text, encoding="utf-8")
    instance = entries[0]["instance_id"]
    lines = [n for n, line in enumerate(text.splitlines(), 1) if line.strip() == f'"instance_id": "{instance}",']
    assert len(lines) == 2 and lines[0] != lines[1]
    _, errors = ambiglib.load(experiments, strict=False, quiet=True)
    again = [e for e in errors if "again" in e.message]
    assert [(e.line, e.field) for e in again] == [(lines[1], "instance_id")]
    assert f"(first: line {lines[0]})" in again[0].message


def test_mcp_atlas_trajectory_cell_naming_a_key_twice_is_an_error_naming_the_row(tmp_path):
    """A JSON cell is read as a native JSON file is: a key named twice is refused, not read as its last copy."""
    lhaw = Path(shutil.copytree(NATIVE / "lhaw", tmp_path / "lhaw"))
    scored = lhaw / "mcp-atlas" / "gpt-5.2" / "evaluation_results" / "scored_gpt-5.2_ask_user_t1.csv"
    rows = _rows(scored)
    col = rows[0].index("trajectory")
    row = next(n for n, r in enumerate(rows) if n and '"ask_user"' in r[col])
    rows[row][col] = rows[row][col].replace('"tool_name": "ask_user"', '"tool_name": "ask_user", "tool_name": "x"', 1)
    assert '"tool_name": "x"' in rows[row][col]
    _write_rows(scored, rows)
    _, errors = ambiglib.load(lhaw, strict=False, quiet=True)
    assert [e.field for e in errors] == ["trajectory"]
    assert f"{scored}:" in errors[0].message and "'tool_name' appears twice" in errors[0].message


# ----------------------------------------------------------------------------- fuzz seeds 9002, 9003 (second run)


def _fuzzed_preds(tmp_path: Path) -> tuple[Path, Path, str]:
    hil = Path(shutil.copytree(NATIVE / "hil-bench", tmp_path / "hil-bench"))
    preds = next(hil.rglob("example_baseline_swe/*/baseline/pass_3/preds.json"))
    iid = next(iter(json.loads(preds.read_text(encoding="utf-8"))))
    return hil, preds, iid


def test_hil_bench_patch_that_is_an_object_is_an_error_naming_it(tmp_path):
    """Seed 9002, cases 196/402/443: a ``model_patch`` that became ``{}`` (falsy) made a pass with a patch one
    without (``meta.harness_row.patch`` true to false), exit 0."""
    hil, preds, iid = _fuzzed_preds(tmp_path)
    data = json.loads(preds.read_text(encoding="utf-8"))
    assert isinstance(data[iid]["model_patch"], str) and data[iid]["model_patch"].strip()
    data[iid]["model_patch"] = {}
    preds.write_text(json.dumps(data), encoding="utf-8")
    _, errors = ambiglib.load(hil, strict=False, quiet=True)
    assert len(errors) == 1
    assert f"{preds}: field '{iid}.model_patch' must be the patch text or null (found dict)" in errors[0].message


def test_hil_bench_prediction_that_is_no_object_is_an_error_naming_it(tmp_path):
    hil, preds, iid = _fuzzed_preds(tmp_path)
    data = json.loads(preds.read_text(encoding="utf-8"))
    data[iid] = "diff --git"
    preds.write_text(json.dumps(data), encoding="utf-8")
    _, errors = ambiglib.load(hil, strict=False, quiet=True)
    assert any(f"{preds}: entry {iid!r} must be an object (found str)" in e.message for e in errors)


@pytest.mark.parametrize("entry, said", [({}, "has no field 'instance_id' or 'model_patch'"),
                                         ({"instance_id": "public_swe_9", "model_patch": ""},
                                          "names instance 'public_swe_9'")])
def test_hil_bench_prediction_without_its_fields_is_an_error_naming_it(tmp_path, entry, said):
    """Seed 9005, case 388: a cut emptied one entry of preds.json to ``{}``; the harness reads that as no patch
    (``patch`` true to false), exit 0. SWE-agent writes ``instance_id`` (the entry's key) and ``model_patch``."""
    hil, preds, iid = _fuzzed_preds(tmp_path)
    data = json.loads(preds.read_text(encoding="utf-8"))
    data[iid] = entry
    preds.write_text(json.dumps(data), encoding="utf-8")
    _, errors = ambiglib.load(hil, strict=False, quiet=True)
    assert len(errors) == 1 and f"{preds}: entry {iid!r} {said}" in errors[0].message


def _swe_metrics(tmp_path: Path) -> tuple[Path, Path]:
    hil = tmp_path / "hil-bench"
    shutil.copytree(NATIVE / "hil-bench", hil)
    return hil, hil / "results" / "example_baseline_swe" / "gpt-5.4" / "baseline" / "pass_3" / "metrics.json"


def test_hil_bench_swe_metrics_without_raw_eval_results_is_an_error_naming_it(tmp_path):
    """Seed 9004, case 140, in part: without ``raw_eval_results`` (calculate_pass_at_1 writes it for every SWE
    pass) the harness's reader takes every instance as not completed: 6 runs from ok to infra_error, exit 0."""
    hil, metrics = _swe_metrics(tmp_path)
    data = json.loads(metrics.read_text(encoding="utf-8"))
    n = len(data["instances"])
    del data["raw_eval_results"]
    metrics.write_text(json.dumps(data), encoding="utf-8")
    rs, errors = ambiglib.load(hil, strict=False, quiet=True)
    assert len(errors) == n and all(f"{metrics}: field 'raw_eval_results' is missing" in e.message for e in errors)
    assert not (rs.runs["meta"].str.contains('"infra_error"') & rs.runs["source"].astype(str).str.contains(
        "example_baseline_swe")).any()  # none of them read as the harness's infra error


def test_hil_bench_swe_instance_metrics_that_are_no_object_are_an_error_naming_them(tmp_path):
    """Seed 9004, case 140: a cut that merged the cost table with the evaluation left ``instances`` holding a
    number (and the evaluation's ``results``) and ``raw_eval_results`` gone."""
    hil, metrics = _swe_metrics(tmp_path)
    data = json.loads(metrics.read_text(encoding="utf-8"))
    data["instances"]["public_swe_5__gpt-5.4__baseline__pes"] = 6
    metrics.write_text(json.dumps(data), encoding="utf-8")
    _, errors = ambiglib.load(hil, strict=False, quiet=True)
    assert len(errors) == 1
    assert f"{metrics}: field 'instances.public_swe_5__gpt-5.4__baseline__pes' must be an object (got 6)" \
        in errors[0].message


@pytest.mark.parametrize("key", ["score_rpg", "score"])
def test_an_ambig_ds_grade_score_that_is_no_number_is_an_error_naming_it(tmp_path, key):
    """Seed 9003, case 427: a grade's score that became ``{"x": 1}`` in a run graded with an error was kept in
    ``meta.harness_score`` as the object, exit 0."""
    ds = Path(shutil.copytree(NATIVE / "ambig-ds", tmp_path / "ambig-ds"))
    grade = next(g for g in sorted(ds.rglob("_grade.json"))
                 if "error" in json.loads(g.read_text(encoding="utf-8")))
    data = json.loads(grade.read_text(encoding="utf-8"))
    data[key] = {"x": 1}
    grade.write_text(json.dumps(data), encoding="utf-8")
    _, errors = ambiglib.load(ds, strict=False, quiet=True)
    assert any(f"{grade}: field '{key}' must be a number or null (found \"{{'x': 1}}\")" in e.message
               for e in errors), [e.message for e in errors]


# ----------------------------------------------------------------------------- damage only a transcript holds


def test_an_ambig_ds_tool_use_that_is_no_tool_is_an_error_of_the_load(tmp_path):
    """Seeds 9002/9003 (error-late): a transcript's damage (a tool use's ``name`` a number, a question that is no
    valid Unicode) loaded without a word, and only ``convert``'s write of the transcript then failed."""
    root = Path(shutil.copytree(NATIVE / "ambig-ds", tmp_path / "ambig-ds"))
    traj = root / "results" / "opencode_gpt-5.4_full" / "dsbench-credit-default" / "_traj.json"
    data = json.loads(traj.read_text(encoding="utf-8"))
    data["tool_uses"][0]["name"] = 5
    traj.write_text(json.dumps(data), encoding="utf-8")
    rs, errors = ambiglib.load(root, strict=False, quiet=True)
    assert len(errors) == 1 and f"{traj}: tool_uses[0].name must be a tool's name (got 5)" in errors[0].message
    assert len(rs.runs) == len(ambiglib.load(NATIVE / "ambig-ds", quiet=True).runs) - 1


FAILED_CLARIFY = ("results", "opencode_gpt-5.4_ambig_target_clarify", "dsbench-credit-default", "_clarify.json")


@pytest.mark.parametrize("edit, says", [
    (lambda d: d.update(answer=[1, 2]), "field 'answer' must be text (got list)"),
    (lambda d: d.update(question={"x": 1}), "field 'question' must be text (got dict)"),
    (lambda d: d.pop("asked"), "missing field 'asked' (the ask decision)"),
    (lambda d: d.update(asked="yes"), "field 'asked' must be true or false (got 'yes')"),
])
def test_a_failed_ambig_ds_task_s_damaged_clarify_is_an_error_of_the_load(tmp_path, edit, says):
    """Seed 9006 (error-late): a task the harness failed after its ask phase (runlog ``build_failed_solve``, only
    ``_clarify.json`` left) kept its question from a ``_clarify.json`` whose answer was a list, written as the
    list's text, and never checked; reading its transcript then failed. It is now read as any clarify run's is."""
    root = Path(shutil.copytree(NATIVE / "ambig-ds", tmp_path / "ambig-ds"))
    clarify = root.joinpath(*FAILED_CLARIFY)
    assert sorted(p.name for p in clarify.parent.iterdir()) == ["_clarify.json"]  # the harness failed the task
    before = ambiglib.load(root, quiet=True)
    failed = before.runs[before.runs["meta"].str.contains('"run_name": "opencode_gpt-5.4_ambig_target_clarify"',
                                                          regex=False)
                         & (before.runs["task_id"] == "dsbench-credit-default")]
    assert list(failed["status"]) == ["error"] and list(failed["n_questions"]) == [1]  # its question stands
    data = json.loads(clarify.read_text(encoding="utf-8"))
    edit(data)
    clarify.write_text(json.dumps(data), encoding="utf-8")
    rs, errors = ambiglib.load(root, strict=False, quiet=True)
    assert len(errors) == 1 and f"{clarify}: {says}" in errors[0].message, [e.message for e in errors]
    assert len(rs.runs) == len(before.runs) - 1
    rs.to_jsonl(tmp_path / "back.jsonl")  # every run that loaded has a conversation that reads


def test_an_ambig_ds_question_that_is_no_valid_unicode_is_an_error_of_the_load(tmp_path):
    root = Path(shutil.copytree(NATIVE / "ambig-ds", tmp_path / "ambig-ds"))
    clarify = next(f for f in sorted(root.rglob("_clarify.json")) if json.loads(f.read_text())["asked"] is False)
    data = json.loads(clarify.read_text(encoding="utf-8"))
    data["question"] = "NONE"
    clarify.write_text(json.dumps(data).replace('"NONE"', '"\\ud800"'), encoding="utf-8")  # a lone surrogate
    _, errors = ambiglib.load(root, strict=False, quiet=True)
    assert len(errors) == 1 and "field 'transcript.turns" in errors[0].message
    assert "is not valid Unicode" in errors[0].message and str(clarify.parent) in errors[0].message


def test_an_mcp_atlas_conversation_that_is_no_json_is_an_error_of_the_load(tmp_path):
    root = Path(shutil.copytree(NATIVE / "lhaw", tmp_path / "lhaw"))
    scored = root / "mcp-atlas" / "gpt-5.2" / "evaluation_results" / "scored_gpt-5.2_original_t2.csv"
    rows = _rows(scored)
    column = rows[0].index("raw_conversation_history")
    line = next(i for i, r in enumerate(rows) if i and r[column].strip())
    rows[line][column] = rows[line][column][:-2]  # cut: no JSON any more
    _write_rows(scored, rows)
    _, errors = ambiglib.load(root, strict=False, quiet=True)
    assert len(errors) == 1 and "field 'raw_conversation_history' is not valid JSON" in errors[0].message
    assert str(scored) in errors[0].message


def test_an_inspect_message_whose_content_is_a_number_is_an_error_of_the_load(tmp_path):
    log = next((ROOT / "tests" / "fixtures" / "inspect").glob("*.json"))
    copy = tmp_path / log.name
    data = json.loads(log.read_text(encoding="utf-8"))
    data["samples"][0]["messages"][4]["content"] = 1e300
    copy.write_text(json.dumps(data), encoding="utf-8")
    rs, errors = ambiglib.load(copy, strict=False, quiet=True)
    assert len(errors) == 1
    assert "messages[4]: content must be a string or a list of content parts (got float)" in errors[0].message
    assert len(rs.runs) == len(data["samples"]) - 1


@pytest.mark.parametrize("value", [{"a": {"a": 1}}, "no", 1])
def test_an_ambig_ds_question_truncated_that_is_no_boolean_is_an_error_naming_it(tmp_path, value):
    """Seed 9004, case 412: ``question_truncated`` false became an object (truthy) and the run's meta said the
    question was cut, exit 0."""
    root = Path(shutil.copytree(NATIVE / "ambig-ds", tmp_path / "ambig-ds"))
    clarify = next(f for f in sorted(root.rglob("_clarify.json")) if json.loads(f.read_text())["asked"] is True)
    data = json.loads(clarify.read_text(encoding="utf-8"))
    data["question_truncated"] = value
    clarify.write_text(json.dumps(data), encoding="utf-8")
    _, errors = ambiglib.load(root, strict=False, quiet=True)
    assert len(errors) == 1
    assert f"{clarify}: field 'question_truncated' must be true or false (got {json.dumps(value)})" in errors[0].message


@pytest.mark.parametrize("file, key", [("batch_config.json", "passes"),
                                       ("public_metrics/summary_metrics.json", "metadata.num_passes")])
def test_hil_bench_passes_beyond_the_limit_are_an_error_naming_the_file(tmp_path, file, key):
    """Seed 9010, case 663: ``passes`` 3 made 199999999999999999999; every missing pass up to it is padded as an
    error run, so the load ran until its alarm (and would have filled the memory)."""
    hil = Path(shutil.copytree(NATIVE / "hil-bench", tmp_path / "hil-bench"))
    run = hil / "results" / "example_ask_human_swe"
    config = json.loads((run / "batch_config.json").read_text(encoding="utf-8"))
    summary = json.loads((run / "public_metrics" / "summary_metrics.json").read_text(encoding="utf-8"))
    assert config["passes"] == 3 and summary["metadata"]["num_passes"] == 3
    huge = 199999999999999999999
    if key == "passes":
        config["passes"] = huge
    else:
        del config["passes"]  # the summary's count is read when the configuration has none
        summary["metadata"]["num_passes"] = huge
    (run / "batch_config.json").write_text(json.dumps(config), encoding="utf-8")
    (run / "public_metrics" / "summary_metrics.json").write_text(json.dumps(summary), encoding="utf-8")
    said = f"{run / file}: field '{key}' must be at most 1,000 passes (got {huge})"
    with pytest.raises(FormatError, match=re.escape(said)):
        ambiglib.load(hil, quiet=True)
    rs, errors = ambiglib.load(hil, strict=False, quiet=True)
    assert len(errors) == 1 and said in errors[0].message
    assert len(rs.runs) == 216 - 36  # the other run folders load; this folder's 36 runs are its one error


def test_hil_bench_highest_pass_beyond_the_limit_is_an_error_naming_the_folder(tmp_path, monkeypatch):
    """Without a count of passes anywhere, the highest pass folder is the count: it is bounded too."""
    from ambiglib.importers._hilbench import tree

    hil = Path(shutil.copytree(NATIVE / "hil-bench", tmp_path / "hil-bench"))
    run = hil / "results" / "example_ask_human_swe"
    config = json.loads((run / "batch_config.json").read_text(encoding="utf-8"))
    del config["passes"]
    (run / "batch_config.json").write_text(json.dumps(config), encoding="utf-8")
    summary = json.loads((run / "public_metrics" / "summary_metrics.json").read_text(encoding="utf-8"))
    del summary["metadata"]["num_passes"]
    (run / "public_metrics" / "summary_metrics.json").write_text(json.dumps(summary), encoding="utf-8")
    monkeypatch.setattr(tree, "MAX_PASSES", 3)
    assert len(ambiglib.load(hil, quiet=True).runs) == 216  # passes 1-3: at the limit
    monkeypatch.setattr(tree, "MAX_PASSES", 2)  # the other run folders, which say 3 passes, are refused too
    _, errors = ambiglib.load(hil, strict=False, quiet=True)
    assert sum(f"{run}: a pass numbered 3 is beyond 2 passes" in e.message for e in errors) == 1


@pytest.mark.parametrize("damage", ["passes beyond the limit", "configuration no object"])
def test_hil_bench_combined_csv_rows_of_a_refused_run_folder_are_skipped_naming_it(tmp_path, damage):
    """A --task-type both root holds ``<run>_sql/``, ``<run>_swe/`` and the combined ``<run>/`` whose CSV repeats
    their rows. With ``<run>_swe`` refused, its rows were said "already read" from it (refused while its tree was
    read), or read from the combined CSV, 8 runs kept and 28 rejected for questions only the tree holds (refused
    at its configuration). Either way now: the folder is one error, its 36 rows in the CSV are skipped, naming
    it, and the other folders' 180 runs load."""
    hil = Path(shutil.copytree(NATIVE / "hil-bench", tmp_path / "hil-bench"))
    run = hil / "results" / "example_ask_human_swe"
    combined = hil / "results" / "example_ask_human" / "public_metrics" / "pass_level_metrics.csv"
    if damage == "configuration no object":
        (run / "batch_config.json").write_text("[1]", encoding="utf-8")
    else:
        config = json.loads((run / "batch_config.json").read_text(encoding="utf-8"))
        (run / "batch_config.json").write_text(json.dumps({**config, "passes": 10 ** 20}), encoding="utf-8")
    rs, errors = ambiglib.load(hil, strict=False, quiet=True)
    assert len(rs.runs) == 180
    assert len(errors) == 1 and errors[0].message.startswith(f"{run}: cannot read this run folder: {run}/batch_config.json")
    assert rs.skipped[f"rows of the combined --task-type both CSV {combined} of run folder example_ask_human_swe,"
                      " which is refused (its error says why)"] == 36
    assert not any("from run folder example_ask_human_swe" in reason for reason in rs.skipped)
