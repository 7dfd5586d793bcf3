"""The HIL-Bench importer on a native fixture tree, and the real public blocker registries."""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES

import ambiglib
from ambiglib import FormatError, metrics, tables
from ambiglib.importers import read_hilbench, read_hilbench_registries

RUN = Path(__file__).parent / "fixtures" / "hilbench" / "run_gpt54"
REGISTRIES = FIXTURES / "hil-bench" / "registries"
needs_shared = pytest.mark.skipif(not REGISTRIES.is_dir(), reason="../shared/fixtures (real HIL-Bench registries) absent")


@pytest.fixture
def rs():
    return read_hilbench(RUN)


def one(frame, **where):
    for k, v in where.items():
        frame = frame[frame[k] == v]
    assert len(frame) == 1, where
    return frame.iloc[0]


def test_rows_become_runs_field_by_field(rs):
    runs = rs.runs
    assert len(runs) == 18  # one run per row of pass_level_metrics.csv
    r = one(runs, task_id="public_sql_0", spec="ambiguous", ask_tool=True, trial=2)
    assert (r["benchmark"], r["suite"], r["variant_id"], r["model"], r["policy"], r["protocol"]) == (
        "hil-bench", "sql", "public_sql_0", "gpt-5.4", "default", "solve")
    assert (r["status"], r["passed"], r["score"], r["cost_usd"], r["steps"], r["tokens_in"], r["tokens_out"]) == (
        "ok", True, 1.0, 0.12, 22, 100002, 2002)
    assert r["source"] == f"{RUN / 'public_metrics' / 'pass_level_metrics.csv'}:9"
    meta = json.loads(r["meta"])
    assert meta["mode"] == "ask_human" and meta["instance_id"] == "public_sql_0__gpt-5.4__ask_human__pass_2"
    # modes: baseline → (ambiguous, no tool), ask_human → (ambiguous, tool), full_info → (full, no tool)
    modes = runs.assign(mode=[json.loads(m)["mode"] for m in runs["meta"]])
    assert modes.groupby("mode")[["spec", "ask_tool"]].first().to_dict("index") == {
        "ask_human": {"spec": "ambiguous", "ask_tool": True}, "baseline": {"spec": "ambiguous", "ask_tool": False},
        "full_info": {"spec": "full", "ask_tool": False}}


def test_infra_error_rows_are_kept_as_error_runs(rs):
    r = one(rs.runs, task_id="public_swe_0", ask_tool=False, spec="ambiguous", trial=2)
    assert r["status"] == "error" and r["passed"] is pd_na() and r["score"] is pd_na()
    assert metrics.pass_at_k(rs.filter(spec="ambiguous", ask_tool=False), k=1).set_index("suite").loc["swe", "n_excluded"] == 1


def pd_na():
    import pandas as pd

    return pd.NA


def test_silent_ask_human_run_has_no_questions_and_empty_csv_cells(rs):
    # public_sql_1 pass 2 never asked: its precision/recall/f1/total_num_blockers cells are empty
    with open(RUN / "public_metrics" / "pass_level_metrics.csv") as fh:
        row = next(r for r in csv.DictReader(fh) if r["task_name"] == "public_sql_1" and r["mode"] == "ask_human"
                   and r["pass_num"] == "2")
    assert (row["precision"], row["recall"], row["f1"], row["total_num_blockers"]) == ("", "", "", "")
    r = one(rs.runs, task_id="public_sql_1", ask_tool=True, trial=2)
    assert (r["status"], r["n_questions"]) == ("ok", 0)


def test_the_three_answer_cap_and_questions_after_it(rs):
    r = one(rs.runs, task_id="public_sql_0", ask_tool=True, trial=2)
    q = rs.questions[rs.questions["run_id"] == r["run_id"]]
    assert q["relevant"].tolist() == [True, True, True, False, False]
    assert q["response"].tolist()[3:] == ["irrelevant question"] * 2
    assert json.loads(r["meta"])["questions_after_cap"] == 2
    assert q["text"].iloc[0] == "Which clients count as senior?"


def test_without_registries_task_blockers_come_from_the_server_logs(rs):
    assert sorted(rs.tasks["task_id"]) == ["public_sql_0", "public_sql_1", "public_swe_0"]
    assert set(rs.tasks["n_blockers"]) == {5}


def _harness_pooled(csv_path: Path, suite: str) -> tuple[float, float]:
    """run_hil_bench.py:summarize_rows for mode ask_human: Σ resolved / Σ questions, Σ resolved / Σ blockers."""
    resolved = questions = blockers = 0
    with open(csv_path) as fh:
        for row in csv.DictReader(fh):
            if row["mode"] != "ask_human" or row["status"] == "infra_error" or not row["task_name"].startswith(f"public_{suite}"):
                continue
            resolved += int(row["num_blockers_resolved"] or 0)
            questions += int(row["num_questions"] or 0)
            blockers += int(row["total_num_blockers"] or 0)  # empty (never asked) counts 0
    return resolved / questions, resolved / blockers


@pytest.mark.parametrize("suite", ["sql", "swe"])
def test_distinct_precision_over_asking_runs_reproduces_the_harness_pooled_numbers(rs, suite):
    p, r = _harness_pooled(RUN / "public_metrics" / "pass_level_metrics.csv", suite)
    out = metrics.ask_f1(rs, precision="distinct", recall="asking_runs").set_index("suite").loc[suite]
    assert (out["precision"], out["recall"]) == pytest.approx((p, r))
    assert out["ask_f1"] == pytest.approx(2 * p * r / (p + r))
    # and the paper's definition differs where a blocker was asked about twice (SQL pass 1)
    paper = metrics.ask_f1(rs).set_index("suite").loc[suite]
    assert (paper["precision"] > out["precision"]) == (suite == "sql")


def test_load_picks_the_hil_bench_layout(tmp_path):
    shutil.copytree(RUN, tmp_path / "results" / "run_gpt54")
    rs = ambiglib.load(tmp_path / "results")
    assert len(rs.runs) == 18 and set(rs.runs["benchmark"]) == {"hil-bench"}


# ----------------------------------------------------------------------------- bad input


@pytest.fixture
def run_copy(tmp_path):
    return Path(shutil.copytree(RUN, tmp_path / "run_gpt54"))


def test_truncated_server_log_is_named(run_copy):
    log = run_copy / "gpt-5.4" / "ask_human" / "pass_1" / "ask_human_logs.json"
    log.write_text(log.read_text()[:200])
    with pytest.raises(FormatError, match=re.escape(f"cannot read this run's files: {log}:") + r"\d+: not valid JSON"):
        read_hilbench(run_copy)
    rs, errors = read_hilbench(run_copy, strict=False)
    # every ask_human pass-1 row needs that log: those runs are rejected, named, and counted
    assert len(rs.runs) + len(errors) == 18
    assert {e.line for e in errors} == {8, 10, 12} and all(str(log) in e.message for e in errors)


def test_csv_without_its_columns(run_copy):
    path = run_copy / "public_metrics" / "pass_level_metrics.csv"
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0].replace(",num_questions", "")] + lines[1:]) + "\n")
    with pytest.raises(FormatError, match=re.escape(f"{path}:1: missing column(s) num_questions; expected task_name,")):
        read_hilbench(run_copy)


def test_unknown_mode_names_file_line_and_field(run_copy):
    path = run_copy / "public_metrics" / "pass_level_metrics.csv"
    path.write_text(path.read_text().replace("public_sql_1,gpt-5.4,full_info,1", "public_sql_1,gpt-5.4,fullinfo,1"))
    with pytest.raises(FormatError, match=re.escape(
            f"{path}:16: field 'mode' must be one of 'baseline', 'ask_human', 'full_info' (got 'fullinfo')")):
        read_hilbench(run_copy)


def test_a_run_whose_server_log_is_missing_is_not_silently_emptied(run_copy):
    for log in run_copy.glob("**/ask_human_logs.json"):
        log.unlink()
    with pytest.raises(FormatError, match=r"pass_level_metrics.csv:8: the run asked 4 question\(s\) \(field 'num_questions'\)"
                                          r" but no ask_human server log holds instance public_sql_0__gpt-5.4__ask_human__pass_1"):
        read_hilbench(run_copy)


def test_a_folder_that_is_not_a_run(tmp_path):
    (tmp_path / "x").mkdir()
    with pytest.raises(FormatError, match=r"not a HIL-Bench run folder \(no public_metrics/pass_level_metrics.csv"):
        read_hilbench(tmp_path / "x")


def test_trajectory_question_count_is_kept_when_it_differs_from_the_server_log(run_copy):
    # harness-formats §5.16: the CSV counts ask_human actions in the trajectory; a client-side failure
    # leaves a trajectory action with no server entry
    path = run_copy / "public_metrics" / "pass_level_metrics.csv"
    rows = list(csv.DictReader(open(path)))
    for row in rows:
        if row["task_name"] == "public_swe_0" and row["mode"] == "ask_human" and row["pass_num"] == "2":
            row["num_questions"] = "2"
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    r = one(read_hilbench(run_copy).runs, task_id="public_swe_0", ask_tool=True, trial=2)
    assert r["n_questions"] == 1 and json.loads(r["meta"])["num_questions_trajectory"] == 2


# ----------------------------------------------------------------------------- the real registries


@needs_shared
def test_the_200_public_registries_load_as_task_records():
    rs = read_hilbench_registries(REGISTRIES)
    tasks = rs.tasks
    assert len(tasks) == 200 and len(rs.runs) == 0
    assert tasks.groupby("suite")["n_blockers"].sum().to_dict() == {"sql": 398, "swe": 353}
    assert tasks["n_blockers"].between(3, 5).all()
    # task ids come from the metadata's hf_task_id
    assert set(tasks["task_id"]) == {f"public_{s}_{i}" for s in ("sql", "swe") for i in range(100)}
    # harness-formats §3.2: blockers per task, SQL 3:35 4:32 5:33, SWE 3:61 4:25 5:14
    counts = tasks.groupby(["suite", "n_blockers"]).size().to_dict()
    assert counts == {("sql", 3): 35, ("sql", 4): 32, ("sql", 5): 33, ("swe", 3): 61, ("swe", 4): 25, ("swe", 5): 14}


@needs_shared
def test_blocker_statistics_table_in_the_style_of_hil_bench_table3():
    table = tables.blocker_stats(read_hilbench_registries(REGISTRIES))
    assert set(table.pop("benchmark")) == {"hil-bench"}
    table = table.set_index("statistic")
    assert table.loc["Tasks"].tolist() == [100, 100, 200]
    assert table.loc["Total blockers"].tolist() == [398, 353, 751]
    assert table.loc["Avg. blockers / task"].tolist() == pytest.approx([398 / 100, 353 / 100, 751 / 200])
    # the public types (harness-formats §3.2): SQL question 188 / business info 118 / schema 92;
    # SWE missing parameters 134 / contradictory requirements 111 / ambiguous requirements 108
    assert table.loc["question", "sql"] == 188 and table.loc["schema", "sql"] == 92
    assert table.loc["missing parameters", "swe"] == 134
    assert table.loc["missing parameters (%)", "swe"] == pytest.approx(100 * 134 / 353)  # 38% (§3.2, §5.24)


@needs_shared
def test_importing_a_run_with_the_registries(tmp_path):
    rs = read_hilbench(RUN, registries=REGISTRIES)
    assert len(rs.tasks) == 200
    sql0 = rs.tasks.set_index("task_id").loc["public_sql_0"]
    assert sql0["n_blockers"] == 5
    # the registries carry types the server log does not
    types = rs.blockers[rs.blockers["task_id"] == "public_sql_0"]["type"].tolist()
    assert "question" in types
    out = metrics.ask_f1(rs.filter(task_id=["public_sql_0", "public_sql_1", "public_swe_0"]))
    assert out["n_blockers"].tolist() == [20, 10]  # all runs: 4 SQL runs x 5, 2 SWE runs x 5


def test_harbor_ask_human_metrics_per_trial(run_copy):
    # The Harbor server writes one ask_human_metrics.json per trial: {total_questions, blockers_resolved,
    # n_blockers, blockers_resolved_list, precision, recall, f1, questions: [{question, response, blocker_name}]}
    for log in run_copy.glob("**/ask_human_logs.json"):
        log.unlink()
    iid = "public_swe_0__gpt-5.4__ask_human__pass_2"
    harbor = run_copy / "gpt-5.4" / "ask_human" / "pass_2" / iid / "ask_human_metrics.json"
    harbor.parent.mkdir(parents=True)
    harbor.write_text(json.dumps({
        "total_questions": 1, "blockers_resolved": 1, "n_blockers": 5,
        "blockers_resolved_list": ["non_linux_distribution_version_source"], "precision": 1.0, "recall": 0.2, "f1": 1 / 3,
        "questions": [{"question": "Where does the version come from?", "response": "From /etc/os-release.",
                       "blocker_name": "non_linux_distribution_version_source"}]}))
    rs, errors = read_hilbench(run_copy, strict=False)
    r = one(rs.runs, task_id="public_swe_0", ask_tool=True, trial=2)
    q = rs.questions[rs.questions["run_id"] == r["run_id"]]
    assert q[["text", "blocker_id"]].values.tolist() == [["Where does the version come from?",
                                                          "non_linux_distribution_version_source"]]
    assert json.loads(r["meta"])["instance_id"] == iid
    # the other asking runs have no log now: each is rejected by name, none is emptied
    assert len(errors) == 4 and all("no ask_human server log" in e.message for e in errors)


@pytest.mark.parametrize("value", [[[1]], "false", 1, {"v": True}])
def test_a_resolved_or_completed_flag_that_is_not_true_or_false_is_refused(tmp_path, value):
    """The harness writes ``completed`` and ``resolved`` of an SQL instance as JSON booleans. Read as Python reads
    them, any non-empty list or string counted as true: a fuzzed ``resolved`` (``[[...[1]]]``) made a failed run
    pass with no error (found by bench/fuzz.py, seed 4143). Now the value is refused, naming the field, and no
    run's outcome changes."""
    import json

    import ambiglib

    root = Path(shutil.copytree(Path(__file__).parents[1] / "data" / "example-native" / "hil-bench", tmp_path / "hil"))
    metrics = next(root.glob("results/*_sql/*/baseline/pass_2/metrics.json"))
    text = metrics.read_text()
    before = ambiglib.load(root, quiet=True).runs.set_index("run_id")
    for flag in ("resolved", "completed"):
        data = json.loads(text)
        iid, result = next((k, r) for k, r in data["results"].items() if r.get("completed") and r["resolved"] is False)
        result[flag] = value
        metrics.write_text(json.dumps(data))
        rs, errors = ambiglib.load(root, strict=False, quiet=True)
        assert [e.field for e in errors] == [f"results.{iid}.{flag}"]
        assert "must be true or false" in errors[0].message
        after = rs.runs.set_index("run_id")
        assert after["passed"].reindex(before.index).fillna(False).equals(before["passed"].fillna(False))
    metrics.write_text(text)
