"""What a user who is not root sees (issue 27): files and folders this user cannot read, folders that hold
more than one log, links out of a log's folder. Each load runs as ``nobody`` when the suite runs as root
(``tests/unprivileged.py``): as root, ``chmod 000`` changes nothing."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from unprivileged import ROOT, copy, load_as_user, world_tmp

import ambiglib

EXAMPLE = ROOT / "data" / "example"
NATIVE = ROOT / "data" / "example-native"


@pytest.fixture
def tmp():
    path = world_tmp()
    yield path
    for top, dirs, _ in os.walk(path):  # give back what a test made unreadable, so that it can be removed
        for name in dirs:
            os.chmod(os.path.join(top, name), 0o755)
    shutil.rmtree(path, ignore_errors=True)


def _with_subfolder(log):
    (log / "more").mkdir()
    shutil.move(log / "lhaw.jsonl", log / "more" / "lhaw.jsonl")
    return log


def _snapshot(to):
    from ambiglib.runlog._snapshot import write_snapshot

    rs, errors = ambiglib.load(EXAMPLE, strict=False, quiet=True)
    return write_snapshot(rs, errors, str(EXAMPLE), to)


CASES = {  # name: (make the log, the path made unreadable, relative to the log)
    "an Ambig-DS task folder": (lambda t: copy(NATIVE / "ambig-ds", t / "log"),
                                "results/opencode_gpt-5.4_ambig_target/dsbench-bike-sharing"),
    "an Ambig-DS run folder": (lambda t: copy(NATIVE / "ambig-ds", t / "log"), "results/opencode_gpt-5.4_full"),
    "a HIL-Bench pass folder": (lambda t: copy(NATIVE / "hil-bench", t / "log"),
                                "results/example_baseline_sql/gpt-5.4/baseline/pass_2"),
    "a HIL-Bench metrics.json": (lambda t: copy(NATIVE / "hil-bench", t / "log"),
                                 "results/example_baseline_sql/gpt-5.4/baseline/pass_2/metrics.json"),
    "an LHAW result file": (lambda t: copy(NATIVE / "lhaw", t / "log"), "tac/gpt-5.2"),
    "a canonical .jsonl": (lambda t: copy(EXAMPLE, t / "log"), "lhaw.jsonl"),
    "a canonical subfolder": (lambda t: _with_subfolder(copy(EXAMPLE, t / "log")), "more"),
    "a Parquet file": (lambda t: ambiglib.load(EXAMPLE, quiet=True).to_parquet(t / "log"), "labels.parquet"),
    "a store partition": (lambda t: ambiglib.load(EXAMPLE, quiet=True).to_parquet(
        t / "log", partition_by=("benchmark",)), "questions/benchmark=lhaw"),
    "a snapshot file": (lambda t: _snapshot(t / "log"), "runs.arrow"),
    "an Inspect AI log": (lambda t: copy(ROOT / "tests" / "fixtures" / "inspect", t / "log"),
                          sorted(p.name for p in (ROOT / "tests" / "fixtures" / "inspect").glob("*.eval"))[0]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_what_this_user_cannot_read_is_named_never_a_raw_permission_error(tmp, case):
    """26 of 1,000 corrupted trees raised a raw PermissionError from pathlib, strict and lenient alike."""
    make, blocked = CASES[case]
    log = make(tmp)
    target = log / blocked
    os.chmod(target, 0)
    strict = load_as_user(log, strict=True)
    assert strict.get("raised", ("",))[0] in ("FormatError", "SchemaError"), strict
    assert strict["raised"][1].startswith(f"{target}: cannot be read (Permission denied)"), strict["raised"][1]
    lenient = load_as_user(log, strict=False)
    assert "raised" not in lenient or lenient["raised"][0] == "FormatError", lenient
    if "raised" not in lenient:  # the rest is read, the unreadable part named and counted
        assert any(f"{target}: cannot be read (Permission denied)" in m for m in lenient["errors"]), lenient["errors"]
        assert any("cannot read" in reason for reason in lenient["skipped"]), lenient["skipped"]


def test_a_log_inside_a_folder_this_user_may_not_enter_is_named_never_a_raw_permission_error(tmp):
    """pathlib's exists() raised PermissionError for a path under a folder without search permission."""
    log = copy(EXAMPLE, tmp / "locked" / "log")
    os.chmod(tmp / "locked", 0)
    for strict in (True, False):
        out = load_as_user(log, strict=strict)
        assert out.get("raised", ("",))[0] == "FormatError", out
        assert out["raised"][1] == (f"{log}: cannot be reached (Permission denied): a folder above it does not let"
                                    " this user in"), out["raised"][1]


def test_a_folder_of_two_hil_bench_runs_with_the_second_unreadable_names_it(tmp):
    """18 of 36 runs loaded with no error, no warning and no count of what was left out."""
    root = tmp / "runs"
    root.mkdir()
    for name in ("example_baseline_sql", "example_full_info_sql"):
        copy(NATIVE / "hil-bench" / "results" / name, root / name)
    both = load_as_user(root, strict=False)
    os.chmod(root / "example_full_info_sql", 0)
    one = load_as_user(root, strict=False)
    assert both["errors"] == [] and one["runs"] < both["runs"]
    assert one["errors"] == [f"{root / 'example_full_info_sql'}: cannot be read (Permission denied)"]
    assert load_as_user(root, strict=True)["raised"] == (
        "FormatError", f"{root / 'example_full_info_sql'}: cannot be read (Permission denied)")


def test_a_canonical_log_and_an_mcp_atlas_tree_in_one_folder_load_whole(tmp):
    """7 of 223 runs loaded: the folder was taken for an MCP-Atlas tree and the .jsonl beside it ignored."""
    folder = copy(NATIVE / "lhaw" / "mcp-atlas" / "opus-4.5", tmp / "mixed")
    for file in EXAMPLE.glob("*.jsonl"):
        shutil.copy(file, folder / file.name)
    mixed = load_as_user(folder, strict=False)
    canonical = len(ambiglib.load(EXAMPLE, quiet=True).runs)
    mcp = len(ambiglib.load(NATIVE / "lhaw" / "mcp-atlas" / "opus-4.5", quiet=True).runs)
    assert mixed["errors"] == [] and mixed["runs"] == canonical + mcp


def test_a_linked_folder_in_a_canonical_log_is_followed(tmp):
    """51 of 159 runs loaded when a subfolder was a link to a folder outside: links are followed, once each."""
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(EXAMPLE / "lhaw.jsonl", elsewhere / "lhaw.jsonl")
    log = tmp / "log"
    log.mkdir()
    shutil.copy(EXAMPLE / "hil-bench.jsonl", log / "hil-bench.jsonl")
    (log / "linked").symlink_to(elsewhere, target_is_directory=True)
    (log / "again").symlink_to(elsewhere, target_is_directory=True)  # the same folder twice is read once
    out = load_as_user(log, strict=False)
    direct = ambiglib.load(EXAMPLE / "hil-bench.jsonl", quiet=True)
    assert out["errors"] == [] and out["runs"] == len(direct.runs) + len(ambiglib.load(elsewhere, quiet=True).runs)


@pytest.mark.parametrize("grade, status, says", [
    ({}, "error", "_grade.json is {}: the harness's step 6 leaves the task out"),
    ({"error": "no submission found", "submission_exists": False, "score": 0, "score_rpg": 0.0}, "invalid",
     "grading error (no submission found)"),
    ({"submission_exists": False, "score_rpg": 0.45}, "invalid",
     "no submission (submission_exists false); scored 0 as the paper does (§5.1), where the harness reads 0.45"),
])
def test_an_ambig_ds_grade_that_is_empty_or_unscorable_says_what_set_the_status(tmp, grade, status, says, capsys):
    """An empty _grade.json or one without a valid submission turned an ok run invalid without a word: an empty
    one is now what the harness's step 6 makes of it (the task left out: an error run), and ambiglib validate
    says why each status was set."""
    from ambiglib.cli import main

    results = copy(NATIVE / "ambig-ds" / "results", tmp / "results")
    task = results / "opencode_gpt-5.4_ambig_target" / "dsbench-bike-sharing"
    (task / "_grade.json").write_text(json.dumps(grade))
    rs = ambiglib.load(results, quiet=True)
    run = rs.runs[rs.runs["source"].astype(str).str.contains("opencode_gpt-5.4_ambig_target/dsbench-bike-sharing/")]
    assert list(run["status"]) == [status]
    assert json.loads(run["meta"].iloc[0])["status_reason"].startswith(says)
    main(["validate", "--runs", str(results), "-q"])
    printed = capsys.readouterr().out
    if status == "error":
        assert "1 x grade_empty" in printed
    else:
        assert "invalid runs, status set from the harness's files: " in printed and says in printed
