"""The Ambig-DS importer on native fixture trees of both tracks."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

import ambiglib
from ambiglib import FormatError, metrics
from ambiglib.importers import read_ambigds
from ambiglib.importers._ambigds import parse_run_name

FIX = Path(__file__).parent / "fixtures" / "ambigds"
TARGET, METRIC = FIX / "bench_target", FIX / "bench_metric"


def one(frame, **where):
    for k, v in where.items():
        frame = frame[frame[k] == v]
    assert len(frame) == 1, where
    return frame.iloc[0]


@pytest.mark.parametrize("name, expected", [
    ("opencode_gpt_5_4_full", ("gpt_5_4", "full", False, "solve", "default")),
    ("opencode_gemini_3_flash_ambig_metric", ("gemini_3_flash", "ambiguous", False, "solve", "default")),
    ("opencode_gpt_5_4_ambig_target_clarify", ("gpt_5_4", "ambiguous", True, "solve", "permissive")),
    ("opencode_gpt_5_4_ambig_target_clarify_strict", ("gpt_5_4", "ambiguous", True, "solve", "conservative")),
    ("opencode_gpt_5_4_full_ask_only", ("gpt_5_4", "full", True, "ask_only", "permissive")),
    ("opencode_gpt_5_4_ambig_metric_ask_only_strict", ("gpt_5_4", "ambiguous", True, "ask_only", "conservative")),
])
def test_run_names_give_model_spec_tool_protocol_and_policy(name, expected):
    c = parse_run_name(name)
    assert (c["model"], c["spec"], c["ask_tool"], c["protocol"], c["policy"]) == expected


def test_unknown_run_name_is_an_error_naming_the_pattern():
    with pytest.raises(FormatError, match=r"opencode_gpt_ambiguous: not an Ambig-DS run name; expected "
                                          r"opencode_<model>_<full\|ambig_metric\|ambig_target>"):
        parse_run_name("opencode_gpt_ambiguous")


@pytest.fixture(scope="module")
def target():
    return read_ambigds(TARGET)


@pytest.fixture(scope="module")
def metric():
    return read_ambigds(METRIC)


def test_target_track_scores_statuses_and_categories(target):
    runs = target.runs
    assert set(runs["suite"]) == {"target"} and set(runs["benchmark"]) == {"ambig-ds"}
    full = one(runs, task_id="titanic", spec="full")
    assert (full["status"], full["score"], full["category"], full["cost_usd"], full["duration_s"], full["steps"]) == (
        "ok", 0.564, "intended", 0.41, 600.0, 20)
    # a timeout without a submission: status timeout and score 0 (the harness's setdefault, the paper's rule)
    timeout = one(runs, task_id="titanic", spec="ambiguous", ask_tool=False)
    assert (timeout["status"], timeout["score"], timeout["category"]) == ("timeout", 0.0, "timeout")
    # score_rpg null (gt == baseline): kept, unscored, reason in meta
    unscored = one(runs, task_id="bike-sharing-demand", spec="ambiguous", ask_tool=False)
    assert unscored["status"] == "ok" and unscored["score"] is pd.NA
    assert "baselines missing" in json.loads(unscored["meta"])["unscored"]
    # the regex audit's 'invalid' (no target signal) is not the paper's invalid: left unset, reported
    bike_clarify = one(runs, task_id="bike-sharing-demand", protocol="solve", ask_tool=True)
    assert bike_clarify["category"] is pd.NA


def test_clarify_questions_refusals_and_cost(target):
    runs, q = target.runs, target.questions
    titanic = one(runs, task_id="titanic", protocol="solve", ask_tool=True)
    assert (titanic["policy"], titanic["n_questions"]) == ("permissive", 1)
    asked = one(q, run_id=titanic["run_id"])
    assert (asked["text"], asked["blocker_id"], asked["in_scope"], asked["response"]) == (
        "Which of val_1 and val_2 is the target?", "target", True, "val_2 is the target (Survived).")
    # _traj.json.cost covers the solve phase; the ask phase's cost is added from _clarify.json
    assert titanic["cost_usd"] == pytest.approx(0.5 + 0.02)
    refused = one(q, run_id=one(runs, task_id="bike-sharing-demand", protocol="solve", ask_tool=True)["run_id"])
    assert (refused["in_scope"], refused["blocker_id"]) == (False, pd.NA)


def test_ask_only_strict_runs(target):
    ask_only = target.runs[target.runs["protocol"] == "ask_only"]
    assert set(ask_only["policy"]) == {"conservative"} and ask_only["score"].isna().all()
    assert dict(zip(ask_only["task_id"], ask_only["n_questions"])) == {"bike-sharing-demand": 1, "titanic": 0}
    calib = metrics.ask_calibration(target.filter(protocol="ask_only")).iloc[0]
    assert (calib["n_ambiguous"], calib["ask_on_ambiguous"]) == (2, 0.5)


def test_runlog_failures_are_error_runs_and_other_entries_are_counted(target):
    # the harness leaves a task folder (empty when nothing ran) on a failed build and on --dry-run; step 7
    # counts it. Empty folders do not survive a copy, so the runlog line alone makes the error run
    failed = one(target.runs, task_id="cat-in-the-dat")
    assert failed["status"] == "error" and json.loads(failed["meta"])["runlog_status"] == "build_failed"
    dry = one(target.runs, task_id="house-prices")
    assert dry["status"] == "error" and json.loads(dry["meta"])["error_reason"] == "dry_run"
    # a re-invocation that found titanic's result in place is a line, not a run: counted
    assert target.skipped == {"_runlog.jsonl line with status 'skipped_existing' (the task's result is read from"
                              " its folder)": 1}


def test_task_records_give_each_ambiguous_task_its_one_open_point(target, metric):
    assert set(target.blockers["blocker_id"]) == {"target"} and set(metric.blockers["blocker_id"]) == {"metric"}
    out = metrics.ask_f1(target.filter(protocol="solve"))
    assert (out["n_questions"].item(), out["n_relevant"].item(), out["recall"].item()) == (2, 1, 0.5)


def test_metric_track_null_score_is_invalid_at_zero(metric):
    r = one(metric.runs, task_id="spooky-author-identification", spec="ambiguous", ask_tool=False)
    assert (r["status"], r["score"], r["category"]) == ("invalid", 0.0, "invalid")
    assert json.loads(r["meta"])["grade_error"].startswith("ValueError")


def test_metric_track_score_is_the_normalised_score_and_estimated_cost_is_flagged(metric):
    r = one(metric.runs, task_id="leaf-classification", spec="ambiguous", ask_tool=False)
    meta = json.loads(r["meta"])
    assert (r["score"], r["cost_usd"], meta["raw_score"], meta["cost_estimated"]) == (0.2955, 0.41, 0.57341, True)


def test_every_judge_vote_is_a_label_and_ties_are_reported(metric):
    r = one(metric.runs, task_id="leaf-classification", spec="ambiguous", ask_tool=False)
    votes = metric.labels[metric.labels["run_id"] == r["run_id"]]
    # five calls; call 3 did not parse and is left out (as the harness's majority does), and noted
    assert votes["call"].tolist() == [1, 2, 4, 5]
    assert votes["label"].tolist() == ["Intended", "WrongObjective", "WrongObjective", "Intended"]
    assert set(votes["facet"]) == {"objective"} and set(votes["judge"]) == {"claude_opus_4_7"}
    assert json.loads(r["meta"])["audit_unparsed_votes"] == {"claude_opus_4_7": 1}
    assert r["category"] is pd.NA  # 2-2: a tie, not broken
    # a single-judge audit (judge_votes null) gives one label from judge_parsed
    single = one(metric.runs, task_id="spooky-author-identification", spec="ambiguous", ask_tool=False)
    assert metric.labels[metric.labels["run_id"] == single["run_id"]]["label"].tolist() == ["Invalid"]
    shares = metrics.label_shares(metric, facet="objective", by=("suite", "spec", "ask_tool"))
    tied = one(shares[shares["label"].isna()], spec="ambiguous", ask_tool=False)  # the null label counts ties
    assert tied["n"] == 1


def test_strict_clarify_runs_and_the_judges_majority_category(metric):
    r = one(metric.runs, task_id="leaf-classification", ask_tool=True)
    assert (r["policy"], r["protocol"], r["category"]) == ("conservative", "solve", "degenerate")  # 3x Abdicated


def test_load_recognises_both_tracks_together(tmp_path):
    shutil.copytree(TARGET / "results", tmp_path / "results", dirs_exist_ok=True)
    shutil.copytree(METRIC / "results", tmp_path / "results", dirs_exist_ok=True)
    rs, errors = ambiglib.load(tmp_path, strict=False)
    # 15 task folders and the dry-run error run of house-prices
    assert errors == [] and sorted(set(rs.runs["suite"])) == ["objective", "target"] and len(rs.runs) == 16


# ----------------------------------------------------------------------------- bad input


def test_a_task_folder_missing_its_files(tmp_path):
    root = Path(shutil.copytree(TARGET, tmp_path / "b"))
    slug = root / "results" / "opencode_gpt_5_4_full" / "titanic"
    (slug / "_traj.json").unlink()
    with pytest.raises(FormatError, match=re.escape(f"{slug}: {slug}: the task folder must hold _traj.json (found"
                                                    " _grade.json, _target_audit.json)")):
        read_ambigds(root)
    rs, errors = read_ambigds(root, strict=False)
    assert len(errors) == 1 and errors[0].field == "_traj.json" and len(rs.runs) == 9  # 10 runs, one rejected


def test_truncated_json_names_the_file(tmp_path):
    root = Path(shutil.copytree(METRIC, tmp_path / "b"))
    grade = root / "results" / "opencode_gemini_3_flash_full" / "leaf-classification" / "_grade.json"
    grade.write_text(grade.read_text()[:50])
    with pytest.raises(FormatError, match=re.escape(f"cannot read this task's files: {grade}:") + r"\d+: not valid JSON"):
        read_ambigds(root)


def test_a_custom_run_name_whose_files_do_not_say_the_model_is_rejected_not_skipped(tmp_path):
    # --run-name is free: a name off the opencode_<model>_<variant> pattern is read from its files; when they
    # do not name one model, the run is rejected by name
    root = Path(shutil.copytree(METRIC, tmp_path / "b"))
    run = root / "results" / "opencode_gemini_full_plus"
    shutil.copytree(root / "results" / "opencode_gemini_3_flash_full", run)
    for traj in run.glob("*/_traj.json"):
        data = json.loads(traj.read_text())
        data.pop("model", None)
        traj.write_text(json.dumps(data))
    rs, errors = read_ambigds(root, strict=False)
    assert len(errors) == 1 and "opencode_gemini_full_plus" in errors[0].message
    assert "must then name exactly one model" in errors[0].message and "found none" in errors[0].message


def test_a_custom_run_name_repeating_another_runs_condition_is_a_duplicate_not_an_overwrite(tmp_path):
    root = Path(shutil.copytree(METRIC, tmp_path / "b"))
    shutil.copytree(root / "results" / "opencode_gemini_3_flash_full", root / "results" / "gemini_rerun_full")
    rs, errors = read_ambigds(root, strict=False)
    assert errors and all("same key" in e.message or "duplicate" in e.message.lower() for e in errors)


def test_a_folder_without_runs(tmp_path):
    with pytest.raises(FormatError, match="not an Ambig-DS results folder"):
        read_ambigds(tmp_path)
