"""The LHAW importer: variant records, the manifest, and the three source harnesses' result files."""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from conftest import FIXTURES

import ambiglib
from ambiglib import FormatError, metrics

LHAW = Path(__file__).parent / "fixtures" / "lhaw"
TAC = FIXTURES / "theagentcompany" / "deepseek-v3.2"
SWE = FIXTURES / "swe-bench-pro" / "eval_results"
MCP = FIXTURES / "mcp-atlas" / "sample_tasks.csv"
needs_shared = pytest.mark.skipif(not SWE.is_dir(), reason="../shared/fixtures (real TAC and SWE-Bench Pro results) absent")


def one(frame, **where):
    for k, v in where.items():
        frame = frame[frame[k] == v]
    assert len(frame) == 1, where
    return frame.iloc[0]


@pytest.fixture(scope="module")
def rs():
    return ambiglib.read_lhaw(LHAW)


def test_variant_records_become_task_records(rs):
    t = rs.tasks.set_index("variant_id")
    v1 = t.loc["finance-invoice-matching_V1_input"]
    assert (v1["suite"], v1["task_id"], v1["ambiguity_class"], list(v1["dimensions"]), v1["strategy"], v1["n_blockers"]) == (
        "tac", "finance-invoice-matching", "outcome-critical", ["input"], "delete", 1)
    assert json.loads(v1["meta"])["terminal_states"] == "[ (0, 2, 1), (1, 2, 2) ]"
    seg = rs.blockers[rs.blockers["variant_id"] == "finance-invoice-matching_V2_goal_constraint"]
    assert seg[["blocker_id", "type", "subtype"]].values.tolist() == [["S1", "goal", "target"], ["S2", "constraint", "format"]]
    assert t.loc["688ba1b3e95696e72dd93e8d_V1", "suite"] == "mcp-atlas"


def test_tac_checkpoints_score_and_pass(rs):
    r = one(rs.runs, suite="tac", spec="ambiguous", ask_tool=False)
    assert [c["result"] for c in r["checkpoints"]] == [0, 2, 1]
    assert (r["score"], r["passed"], r["variant_id"]) == (3 / 5, False, "finance-invoice-matching_V1_input")
    assert r["source"].endswith("lhaw_manifest.csv:2")
    asked = one(rs.runs, suite="tac", ask_tool=True)
    assert (asked["passed"], asked["policy"], asked["n_questions"]) == (True, "supervisor", 1)
    full = one(rs.runs, suite="tac", spec="full")
    assert full["variant_id"] == full["task_id"] == "finance-invoice-matching"


def test_swe_bench_pro_and_mcp_atlas(rs):
    swe = rs.runs[rs.runs["suite"] == "swe-bench-pro"]
    assert dict(zip(swe["ask_tool"], swe["passed"])) == {False: False, True: True}
    mcp = one(rs.runs, suite="mcp-atlas", ask_tool=True)
    # coverage is the score; >= 0.75 is a pass; each ask_user call in the trajectory is a question
    assert (mcp["score"], mcp["passed"], mcp["n_questions"], mcp["variant_id"]) == (0.8, True, 2, "688ba1b3e95696e72dd93e8d_V1")
    q = rs.questions[rs.questions["run_id"] == mcp["run_id"]]
    assert q["text"].tolist() == ["Which city's museum do you mean?", "Should I include the architect's birthplace?"]
    assert json.loads(mcp["meta"])["simulator_fallback_answers"] == 1
    assert mcp["source"].endswith("mcp/scored_ask.csv:2")


def test_imported_runs_feed_value_of_information(rs):
    voi = metrics.value_of_information(rs.filter(suite=["swe-bench-pro", "mcp-atlas"]), k=1).set_index("suite")
    assert voi.loc["swe-bench-pro", "pass_gain_pp"] == 100.0
    assert voi.loc["mcp-atlas", "score_gain_pp"] == pytest.approx(30.0)


def test_load_recognises_the_manifest(rs):
    loaded = ambiglib.load(LHAW)
    pd.testing.assert_frame_equal(loaded.runs, rs.runs)


# ----------------------------------------------------------------------------- bad input


@pytest.fixture
def copy(tmp_path):
    return Path(shutil.copytree(LHAW, tmp_path / "lhaw"))


def _rewrite_manifest(root, edit):
    path = root / "lhaw_manifest.csv"
    rows = list(csv.DictReader(open(path)))
    edit(rows)
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return path


def test_unknown_harness_and_missing_file_name_manifest_line_and_field(copy):
    path = _rewrite_manifest(copy, lambda rows: rows[1].update(harness="openhands"))
    with pytest.raises(FormatError, match=re.escape(f"{path}:3: field 'harness' must be one of 'tac', 'swe-bench-pro',"
                                                    " 'mcp-atlas' (got 'openhands')")):
        ambiglib.read_lhaw(copy)
    path = _rewrite_manifest(copy, lambda rows: rows[1].update(harness="tac", path="tac/nowhere.json"))
    rs, errors = ambiglib.read_lhaw(copy, strict=False)
    assert [(e.line, e.field) for e in errors] == [(3, "path")] and len(rs.runs) == 6


def test_truncated_result_json_is_named(copy):
    f = copy / "tac" / "eval_v1_noask_t1.json"
    f.write_text(f.read_text()[:30])
    with pytest.raises(FormatError, match=re.escape(f"lhaw_manifest.csv:2: cannot read this row's result file: {f}:1: not valid JSON")):
        ambiglib.read_lhaw(copy)


def test_a_manifest_without_its_columns(copy):
    path = copy / "lhaw_manifest.csv"
    path.write_text(path.read_text().replace("path,harness,model,spec,ask_tool,trial", "file,harness,model,spec,ask_tool,trial"))
    with pytest.raises(FormatError, match=re.escape(f"{path}:1: missing column(s) path; expected path, harness, model, spec, ask_tool, trial")):
        ambiglib.read_lhaw(copy)


def test_a_variant_record_without_its_dataset(copy):
    variants = json.loads((copy / "variants.json").read_text())
    del variants[2]["dataset"]
    (copy / "variants.json").write_text(json.dumps(variants))
    rs, errors = ambiglib.read_lhaw(copy, strict=False)
    assert [(e.line, e.field, e.record) for e in errors] == [(3, "dataset", "task")]
    assert "missing required field 'dataset'" in errors[0].message


def test_no_manifest():
    with pytest.raises(FormatError, match=r"no lhaw_manifest.csv \(one row per result file: path, harness"):
        ambiglib.read_lhaw(LHAW / "tac")


@needs_shared
def test_an_mcp_atlas_input_csv_is_not_a_results_csv(copy):
    shutil.copy(MCP, copy / MCP.name)
    _rewrite_manifest(copy, lambda rows: rows[6].update(path=MCP.name))
    with pytest.raises(FormatError, match=re.escape(f"{copy / MCP.name}:1: missing column(s) coverage_score;"
                                                    " expected TASK, coverage_score")):
        ambiglib.read_lhaw(copy)


# ----------------------------------------------------------------------------- the real result files


def _manifest(tmp_path, rows):
    with open(tmp_path / "lhaw_manifest.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["path", "harness", "model", "spec", "ask_tool", "trial", "variant_id"])
        w.writerows(rows)
    return tmp_path


@needs_shared
def test_real_theagentcompany_results_load(tmp_path):
    files = sorted(TAC.glob("eval_*.json"))
    for f in files:  # a manifest names files inside its folder
        shutil.copy(f, tmp_path / f.name)
    root = _manifest(tmp_path, [[f.name, "tac", "deepseek-v3.2", "full", "false", "1", f.stem[len("eval_"):]] for f in files])
    rs = ambiglib.read_lhaw(root)
    assert len(rs.runs) == len(files) == 4
    invoice = one(rs.runs, task_id="finance-invoice-matching")
    raw = json.loads((TAC / "eval_finance-invoice-matching.json").read_text())
    assert [c["result"] for c in invoice["checkpoints"]] == [c["result"] for c in raw["checkpoints"]]
    assert invoice["score"] == raw["final_score"]["result"] / raw["final_score"]["total"]


@needs_shared
def test_real_swe_bench_pro_results_load_for_all_nine_models(tmp_path, capsys):
    files = sorted(SWE.glob("*.json"))
    for f in files:
        shutil.copy(f, tmp_path / f.name)
    root = _manifest(tmp_path, [[f.name, "swe-bench-pro", f.stem, "full", "false", "1", ""] for f in files])
    rs = ambiglib.read_lhaw(root)
    resolved = rs.runs.groupby("model")["passed"].agg(["sum", "count"])
    with capsys.disabled():
        print("\nSWE-Bench Pro resolved / evaluated per model (real released results):")
        print(resolved.rename(columns={"sum": "resolved", "count": "instances"}).to_string())
    assert len(resolved) == 9
    for f in files:  # every instance of every file, with its own verdict
        raw = json.loads(f.read_text())
        assert (resolved.loc[f.stem, "count"], resolved.loc[f.stem, "sum"]) == (len(raw), sum(raw.values()))
    # harness-formats §7: gpt-4o-paper 619 ids, 36 resolved; claude-45sonnet-10132025 730 ids, 319 resolved
    assert tuple(resolved.loc["gpt-4o-paper"]) == (36, 619)
    assert tuple(resolved.loc["claude-45sonnet-10132025"]) == (319, 730)


def test_a_row_whose_trajectory_cannot_be_read_is_rejected_whole(copy):
    (copy / "tac" / "trajectory_v1_ask_t1.json").write_text("[{")
    rs, errors = ambiglib.read_lhaw(copy, strict=False)
    assert [(e.line, e.record) for e in errors] == [(3, "run")]
    assert "cannot read this row's result file" in errors[0].message
    assert len(rs.runs) == 6 and not (rs.runs["policy"] == "supervisor").any()


@needs_shared
def test_a_theagentcompany_result_that_lost_a_checkpoint_is_refused(tmp_path):
    """Fuzz seed 9001 case 347: a checkpoint cut out of a result left valid JSON and a changed run, with no error.
    TheAgentCompany's final score totals its checkpoints' totals (as every real result here does; its result may
    take a completion bonus), so a lost or changed checkpoint is named; the real results still load."""
    names = sorted(f.name for f in TAC.glob("eval_*.json"))
    for f in names:
        raw = json.loads((TAC / f).read_text())
        assert sum(c["total"] for c in raw["checkpoints"]) == raw["final_score"]["total"], f
    damaged = json.loads((TAC / "eval_finance-invoice-matching.json").read_text())
    del damaged["checkpoints"][1]
    (tmp_path / "eval_finance-invoice-matching.json").write_text(json.dumps(damaged))
    shutil.copy(TAC / "eval_admin-make-spreadsheet.json", tmp_path)
    texts = {"eval_admin-make-spreadsheet.json": "1", "eval_finance-invoice-matching.json": "1"}
    root = _manifest(tmp_path, [[name, "tac", "deepseek-v3.2", "full", "false", trial, name[5:-5]]
                                for name, trial in texts.items()])
    rs, errors = ambiglib.read_lhaw(root, strict=False)
    assert list(rs.runs["task_id"]) == ["admin-make-spreadsheet"]
    assert len(errors) == 1 and "final_score.total is 5 but the checkpoints' totals sum to 3" in errors[0].message
    damaged = json.loads((TAC / "eval_finance-invoice-matching.json").read_text())
    damaged["checkpoints"][0]["total"] = "1"
    (tmp_path / "eval_finance-invoice-matching.json").write_text(json.dumps(damaged))
    _, errors = ambiglib.read_lhaw(root, strict=False)
    assert len(errors) == 1 and "checkpoints[0].total must be a number (got \"1\")" in errors[0].message


def _scored_rows(copy, name, coverages):
    """``mcp/<name>`` rewritten with one row per coverage, the fixture's row with another task each."""
    path = copy / "mcp" / name
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        fields, row = reader.fieldnames, next(reader)
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fields)
        w.writeheader()
        w.writerows({**row, "TASK": f"{row['TASK']}{i or ''}", "coverage_score": c} for i, c in enumerate(coverages))
    return path


def test_a_bad_row_of_a_manifest_s_mcp_atlas_file_is_rejected_alone(copy):
    """A manifest row names a whole MCP-Atlas results CSV: a row of it that cannot be a run is rejected naming its
    line, and the file's other rows are its runs (one bad row lost the file's every run without a count of them)."""
    before = ambiglib.read_lhaw(copy)
    path = _scored_rows(copy, "scored_noask.csv", ["0.5", "not a number", "0.7"])
    rs, errors = ambiglib.read_lhaw(copy, strict=False)
    assert [(e.file, e.line, e.field) for e in errors] == [(str(path), 3, "coverage_score")]
    assert errors[0].message == f"{path}:3: field 'coverage_score' must be a number (got 'not a number')"
    mine = rs.runs[rs.runs["source"].str.startswith(str(path))].sort_values("source")
    assert list(mine["source"]) == [f"{path}:2", f"{path}:4"] and list(mine["score"]) == [0.5, 0.7]
    assert len(rs.runs) == len(before.runs) + 1  # the fixture's row, and the third


def test_a_manifest_s_mcp_atlas_file_of_bad_rows_names_each_row_and_nothing_else(copy):
    path = _scored_rows(copy, "scored_noask.csv", ["x", "y"])
    rs, errors = ambiglib.read_lhaw(copy, strict=False)
    assert [(e.file, e.line, e.field) for e in errors] == [(str(path), 2, "coverage_score"), (str(path), 3, "coverage_score")]
    assert not rs.runs["source"].str.startswith(str(path)).any()
