"""Output written by the harnesses' own code (../shared/fixtures/harness-output): every tree loads
strictly, and ``tables.harness_summary`` reproduces every number the harness's own summary code
computed from it (each folder's ``expected.json``), to 1e-9."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest
from conftest import FIXTURES, run_record, task_record, write_jsonl

import ambiglib
from ambiglib import tables
from ambiglib.metrics import MetricError

HO = FIXTURES / "harness-output"
needs_ho = pytest.mark.skipif(not HO.is_dir(), reason="../shared/fixtures/harness-output (the harnesses' own output)"
                                                      " absent")
HIL = ["hil_both", "hil_cli_sql", "hil_sql_ask_full", "hil_sql_ask_invalid_passes", "hil_sql_model_slash",
       "hil_sql_passes1"]
TOL = 1e-9


def expected(folder: str) -> dict:
    return json.loads((HO / folder / "expected.json").read_text())


def safe(model: str) -> str:
    """run_hil_bench.py's model_safe."""
    return model.replace("/", "_").replace(":", "_")


def readme_table(folder: str, heading: str) -> list[dict[str, str]]:
    """A markdown table under a README heading, as dicts (the fixture maker's own account)."""
    text = (HO / folder / "README.md").read_text()
    block = text.split(heading, 1)[1].split("\n## ", 1)[0]
    lines = [ln for ln in block.splitlines() if ln.startswith("|")]
    if not lines:
        return []
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    return [dict(zip(head, (c.strip() for c in ln.strip("|").split("|")))) for ln in lines[2:]]


# ----------------------------------------------------------------------------- HIL-Bench


def hil_cases():
    for folder in HIL:
        if not HO.is_dir():
            continue
        for run in expected(folder)["summaries"]:
            for partial in (False, True):
                yield pytest.param(folder, run, partial, id=f"{folder}-{run}-partial={partial}")


@needs_ho
@pytest.mark.parametrize("folder,run,partial", list(hil_cases()))
def test_hil_summary_reproduces_the_harness_build_summary(folder, run, partial):
    combined = run.endswith(" (combined)")
    results = HO / folder / "results"
    # the combined --task-type both summary is the whole root's; a per-type one is its own folder's
    rs = ambiglib.load(results if combined else results / run, quiet=True)
    got = tables.harness_summary(rs, include_partial=partial)
    summary = expected(folder)["summaries"][run][f"include_partial_{str(partial).lower()}"]
    checked = 0
    for section, suite in (("SQL", "sql"), ("SWE", "swe"), ("BOTH", "both")):
        for mode, models in summary[section].items():
            for model, stats in models.items():
                cell = got[(got["suite"] == suite) & (got["condition"] == mode) & (got["model"].map(safe) == model)]
                for key, value in stats.items():
                    if key.endswith("_n"):  # pass_at_<k>_n is the n of pass_at_<k>
                        row = cell[cell["statistic"] == key[:-2]]
                        assert len(row) == 1 and int(row["n"].iloc[0]) == value, (section, mode, model, key)
                    else:
                        row = cell[cell["statistic"] == key]
                        assert len(row) == 1 and abs(float(row["value"].iloc[0]) - value) <= TOL, \
                            (section, mode, model, key, value, row["value"].tolist())
                    checked += 1
        # and nothing the harness left out (a cell with no included attempt has no statistics)
        # (consolidated.* rows are consolidated_metrics.json's, which has no pass filter: checked below)
        ours = got[(got["suite"] == suite) & ~got["statistic"].str.startswith("consolidated.")]
        assert {(m, safe(x)) for m, x in zip(ours["condition"], ours["model"])} == \
            {(mode, model) for mode, models in summary[section].items() for model in models}
    assert checked > 0 or not any(summary[s] for s in ("SQL", "SWE", "BOTH"))  # SWE half: every pass a hiccup


def test_hil_summary_of_a_canonical_log_counts_no_blocker_for_a_question_that_names_none(tmp_path):
    """A run not read from the harness's files gets the row the harness would write: its distinct blockers found are
    those its questions name, and a question naming none (answered "irrelevant question") finds none (a null
    blocker id once counted as one found). By hand: one task with three registered blockers, three passes with the
    tool; pass 1 asks about one blocker and about something irrelevant, pass 2 only about something irrelevant,
    pass 3 asks nothing. Questions 3; blockers found 1; present 3 + 3 (pass 3 asked nothing: 0); so precision 1/3,
    recall 1/6, F1 2/9, questions per pass 1."""
    relevant, irrelevant = run_record()["questions"]
    assert relevant["blocker_id"] and irrelevant["blocker_id"] is None
    log = write_jsonl(tmp_path / "runs.jsonl", [
        task_record(), run_record(trial=1, questions=[relevant, irrelevant]),
        run_record(trial=2, questions=[irrelevant]), run_record(trial=3, questions=[])])
    got = tables.harness_summary(ambiglib.load(log, quiet=True))
    cell = got[(got["suite"] == "sql") & (got["condition"] == "ask_human")].set_index("statistic")["value"]
    assert cell["ask_precision"] == pytest.approx(1 / 3, abs=TOL)
    assert cell["ask_recall"] == pytest.approx(1 / 6, abs=TOL)
    assert cell["ask_f1"] == pytest.approx(2 / 9, abs=TOL)
    assert cell["avg_num_questions_per_pass"] == pytest.approx(1.0, abs=TOL)
    assert cell["num_included_attempts"] == 1 and cell["total_attempts_and_passes"] == 3


def test_hil_summary_takes_an_attempts_passes_in_pass_order_whatever_order_the_log_lists_them(tmp_path):
    """``summarize_rows`` sorts an attempt's valid passes by pass number before its first-k pass@k. By hand: one
    task, passes listed 3, 1, 2, only pass 3 resolved: the first resolved pass is the third, so pass@1 and pass@2
    are 0 of 1 attempt, pass@3 is 1 of 1 (taken in the order listed, pass@1 would be 1)."""
    log = write_jsonl(tmp_path / "runs.jsonl", [task_record()] + [
        run_record(trial=t, passed=t == 3, score=1.0 if t == 3 else 0.0, questions=[]) for t in (3, 1, 2)])
    got = tables.harness_summary(ambiglib.load(log, quiet=True))
    cell = got[(got["suite"] == "sql") & (got["condition"] == "ask_human")].set_index("statistic")
    assert [cell.loc[f"pass_at_{k}", "value"] for k in (1, 2, 3)] == [0.0, 0.0, 1.0]
    assert [int(cell.loc[f"pass_at_{k}", "n"]) for k in (1, 2, 3)] == [1, 1, 1]


def test_hil_summary_with_partial_attempts_refuses_a_count_of_passes_it_cannot_list(tmp_path):
    """With ``include_partial`` the harness lists pass@k for every k up to the count of passes, each over every
    attempt: trials numbered by seed (20261128) took that many rows, minutes and gigabytes. By hand: trials 1, 2
    and 1,000 make 1,000 passes, listed; trial 1,001 makes 1,001, refused with the count and the fix."""
    def summary(trials, partial):
        log = write_jsonl(tmp_path / f"runs-{trials[-1]}.jsonl", [task_record()] + [
            run_record(trial=t, questions=[]) for t in trials])
        return tables.harness_summary(ambiglib.load(log, quiet=True), include_partial=partial)

    got = summary((1, 2, 1000), True)
    cell = got[(got["suite"] == "sql") & (got["condition"] == "ask_human")].set_index("statistic")
    assert cell.loc["num_passes", "value"] == 1000 and "pass_at_1000" in cell.index
    assert [int(cell.loc[f"pass_at_{k}", "n"]) for k in (3, 4, 1000)] == [1, 0, 0]  # its three valid passes
    with pytest.raises(MetricError, match=r"hil-bench suite 'sql' claims 1,001 passes .* more than 1,000;"
                                          r" .* Number the trials 1, 2, \.\.\. or leave include_partial=False"):
        summary((1, 2, 1001), True)
    # without partial attempts no attempt has all 1,001 passes: the harness includes none, in bounded time
    assert summary((1, 2, 1001), False).empty


@needs_ho
@pytest.mark.parametrize("folder", HIL)
def test_hil_passes_the_harness_drops_are_error_runs_with_its_reason(folder):
    rs = ambiglib.load(HO / folder / "results", quiet=True)
    runs = rs.runs.assign(meta=[json.loads(m) for m in rs.runs["meta"]])
    errors = runs[runs["status"] == "error"]
    got = sorted((m["run_dir"], r.task_id, safe(r.model), m["mode"], int(r.trial), m["error_reason"])
                 for r, m in zip(errors.itertuples(), errors["meta"]))
    want = sorted((d["run_dir"], d["task_name"], d["model"], d["mode"], d["pass_num"], d["reason"])
                  for d in expected(folder)["passes_the_harness_drops"])
    assert got == want
    # every row the harness wrote is one run, and the combined CSV's rows are counted, not read twice
    rows = expected(folder)["rows_per_run_dir"]
    assert len(runs) == sum(rows.values())
    if folder == "hil_both":  # the combined CSV repeats both halves' rows
        combined = HO / folder / "results" / "both_run" / "public_metrics" / "pass_level_metrics.csv"
        assert sum(rs.skipped.values()) == len(combined.read_text().splitlines()) - 1 == sum(rows.values())


@needs_ho
@pytest.mark.parametrize("folder", HIL)
def test_hil_questions_come_from_the_trajectories_with_what_each_call_got_back(folder):
    table = readme_table(folder, "## What each `ask_human` call got back")
    rs = ambiglib.load(HO / folder / "results", quiet=True)
    runs = rs.runs.assign(meta=[json.loads(m) for m in rs.runs["meta"]])
    runs["iid"] = [m.get("instance_id") for m in runs["meta"]]
    q = rs.questions.astype(object).merge(runs[["run_id", "iid"]])
    seen = set()
    for row in table:
        iid = row["instance"]
        mine = q[q["iid"] == iid]
        seen.add(iid)
        assert len(mine) == int(row["ask_human actions"]), iid
        assert mine["blocker_id"].notna().sum() == int(row["answered"]), iid
        assert (mine["response"] == "irrelevant question").sum() == int(row["`irrelevant question`"]), iid
        assert (mine["response"] == "can't answer (perhaps transient hiccup)").sum() == int(row["hiccup text"]), iid
    assert set(q["iid"]) == seen  # no other instance has questions


@needs_ho
def test_hil_pooled_server_log_is_attributed_back_to_its_passes_and_flagged():
    rs = ambiglib.load(HO / "hil_sql_ask_invalid_passes" / "results", quiet=True)
    runs = rs.runs.assign(meta=[json.loads(m) for m in rs.runs["meta"]]).set_index(
        [rs.runs["task_id"], rs.runs["model"], rs.runs["trial"].astype(int)])
    # every question of public_sql_18 was logged under claude's pass 3 (the task's last expanded instance)
    assert runs.loc[("public_sql_18", "gpt-5.4", 2), "meta"]["questions_logged_under"] == [
        "public_sql_18__claude-opus-4-6__ask_human__pass_3"]
    assert runs.loc[("public_sql_18", "claude-opus-4-6", 3), "meta"]["log_holds_other_passes"] == 3
    # the HTTP-500 question is in the trajectory and the CSV count, not in the server log
    assert runs.loc[("public_sql_18", "gpt-5.4", 1), "meta"]["questions_not_in_log"] == 1
    # the harness's own row for the owner of the pooled log: 3 blockers over 1 trajectory question
    owner = runs.loc[("public_sql_0", "claude-opus-4-6", 3), "meta"]
    assert owner["harness_row"]["num_blockers_resolved"] == 3 and owner["harness_row"]["num_questions"] == 1
    assert owner["harness_precision_above_1"] is True
    # claude's questions on public_sql_0 came after gpt-5.4's had used the 3-answer cap
    assert runs.loc[("public_sql_0", "claude-opus-4-6", 1), "meta"]["capped_by_other_passes"] == 3
    anomalies = tables.harness_anomalies(rs)
    assert set(anomalies["anomaly"]) >= {"questions_not_in_log", "questions_logged_under", "log_holds_other_passes",
                                         "capped_by_other_passes", "harness_precision_above_1"}
    n = anomalies.set_index(["model", "anomaly"])
    assert n.loc[("gpt-5.4", "questions_not_in_log"), "n_questions"] == 1
    # what really happened (README table): 22 ask_human actions, 6 answered with a blocker's resolution;
    # the 3 invalid passes hold 7 of them (1 answered), so the valid passes hold 15, 5 answered
    assert (len(rs.questions), int(rs.questions["blocker_id"].notna().sum())) == (22, 6)
    valid = rs.filter(status="ok")
    vq = rs.questions[rs.questions["run_id"].isin(valid.runs["run_id"])]
    assert (len(vq), int(vq["blocker_id"].notna().sum())) == (15, 5)


@needs_ho
def test_hil_model_names_with_a_slash_keep_the_name_the_user_gave():
    rs = ambiglib.load(HO / "hil_sql_model_slash" / "results", quiet=True)
    assert set(rs.runs["model"]) == {"openai/gpt-4.1", "anthropic/claude-opus-4-6"}
    metas = [json.loads(m) for m in rs.runs["meta"]]
    assert {m["model_safe"] for m in metas} == {"openai_gpt-4.1", "anthropic_claude-opus-4-6"}


@needs_ho
def test_hil_passes_1_and_the_cli_layout():
    rs = ambiglib.load(HO / "hil_sql_passes1" / "results", quiet=True)
    assert set(rs.runs["trial"].astype(int)) == {1}
    assert {json.loads(m)["instance_id"] for m in rs.runs["meta"]} >= {"public_sql_10__gpt-5.4__ask_human"}
    cli = ambiglib.load(HO / "hil_cli_sql" / "results" / "hil_cli_run", quiet=True)
    metas = [json.loads(m) for m in cli.runs["meta"]]
    assert {m["writer"] for m in metas} == {"hil CLI"} and len(cli.runs) == 3
    assert cli.runs["source"].str.contains("metrics.json").all()  # no CSV: each run names its pass's file


def consolidated_cells(summary: pd.DataFrame, harness_json: dict) -> list[tuple[str, float, float]]:
    """(where, ours, the harness's) for every mean/std/min/max of a consolidated_metrics by-model-mode dict."""
    ours = summary[summary["statistic"].str.startswith("consolidated.")]
    out = []
    for model, modes in harness_json.items():
        for mode, keys in modes.items():
            for key, d in keys.items():
                if key == "per_pass":
                    continue
                for agg in ("mean", "std", "min", "max"):
                    v = ours.loc[(ours["model"] == model) & (ours["condition"] == mode)
                                 & (ours["statistic"] == f"consolidated.{key}.{agg}"), "value"]
                    assert len(v) == 1, (model, mode, key, agg)
                    out.append((f"{model}/{mode}/{key}.{agg}", float(v.iloc[0]), float(d[agg])))
    return out


@needs_ho
def test_hil_cli_consolidated_metrics_reproduced():
    # hil_cli_sql/expected.json quotes the CLI's consolidated_metrics.json by model and mode: per-pass
    # metrics.json numbers (invalid passes included) averaged over the passes, pass_at_1_rate in percent
    rs = ambiglib.load(HO / "hil_cli_sql" / "results", quiet=True)
    cells = consolidated_cells(tables.harness_summary(rs), expected("hil_cli_sql")["consolidated_metrics_by_model_mode"])
    assert len(cells) == 48
    for where, ours, theirs in cells:
        assert math.isclose(ours, theirs, rel_tol=0, abs_tol=TOL), where


@needs_ho
def test_hil_consolidated_metrics_json_of_every_run_folder_reproduced():
    # every consolidated_metrics.json batch_runner wrote (run_hil_bench.py runs the CLI too), number by number
    files = sorted(HO.glob("hil_*/results/**/consolidated_metrics.json"))
    assert len(files) == 7
    n = 0
    for file in files:
        by_model = {m: d["by_mode"] for m, d in json.loads(file.read_text())["by_model"].items()}
        for where, ours, theirs in consolidated_cells(tables.harness_summary(ambiglib.load(file.parent, quiet=True)),
                                                      by_model):
            assert math.isclose(ours, theirs, rel_tol=0, abs_tol=TOL), (file.parent.name, where)
            n += 1
    assert n == 672


# ----------------------------------------------------------------------------- Ambig-DS


ADS_TARGET = ["ambigds_target", "ambigds_custom_run_name"]


@needs_ho
@pytest.mark.parametrize("folder", ADS_TARGET)
def test_ambigds_step6_and_step7_reproduced(folder):
    exp = expected(folder)
    rs = ambiglib.load(HO / folder / "results", quiet=True)
    got = tables.harness_summary(rs)
    # which model each step-6 prefix is: its runs' files say it (custom --run-name prefixes say nothing)
    runs = rs.runs.assign(run_name=[json.loads(m)["run_name"] for m in rs.runs["meta"]])
    model_of = {name: m for name, m in zip(runs["run_name"], runs["model"])}
    checked = 0
    for key, policy in (("step_6_aggregate", "permissive"), ("step_6_aggregate_strict_in_process", "conservative")):
        for prefix, agg in exp.get(key, {}).items():
            model = next(m for name, m in model_of.items() if name.startswith(prefix))
            cell = got[(got["model"] == model) & (got["condition"] == policy)].set_index("statistic")
            for stat in ("S_full", "S_ambig", "S_ask", "delta_ambig", "delta_ask", "wilcoxon_full_gt_ambig_p",
                         "wilcoxon_ask_gt_ambig_p", "n_paired", "n_full", "n_ambig", "n_ask"):
                want = agg[stat]
                value = cell.loc[stat, "value"]
                assert (math.isnan(value) if want is None else abs(value - want) <= TOL), (prefix, key, stat)
                checked += 1
            for delta in ("delta_ambig", "delta_ask"):
                lo, hi = agg[f"{delta}_ci95"]
                assert abs(cell.loc[f"{delta}_ci95_low", "value"] - lo) <= TOL
                assert abs(cell.loc[f"{delta}_ci95_high", "value"] - hi) <= TOL
                checked += 2
            assert sorted(agg["tasks"]) == sorted(
                set(runs[(runs["model"] == model) & (runs["status"] != "error")]["task_id"]) & set(agg["tasks"]))
    for run_name, audit in exp["step_7_target_audit"].items():
        cell = got[got["condition"] == run_name].set_index("statistic")
        for stat in ("intended_frac", "alternative_frac", "invalid_frac", "n_attempted"):
            assert abs(cell.loc[stat, "value"] - audit[stat]) <= TOL, (run_name, stat)
            checked += 1
    assert checked > 40


@needs_ho
@pytest.mark.parametrize("folder", ADS_TARGET)
def test_ambigds_failure_folders_are_error_runs_with_the_runlog_status(folder):
    exp = expected(folder)
    rs = ambiglib.load(HO / folder / "results", quiet=True)
    runs = rs.runs.assign(meta=[json.loads(m) for m in rs.runs["meta"]])
    got = {(m["run_name"], t): m.get("runlog_status") for m, t in zip(runs["meta"], runs["task_id"])}
    for run_name, entries in exp["runlog_statuses"].items():
        last = {e["slug"]: e["status"] for e in entries}  # appended per invocation: the last one stands
        for slug, status in last.items():
            assert got[(run_name, slug)] == status, (run_name, slug)
            r = runs[(runs["meta"].map(lambda m: m["run_name"]) == run_name) & (runs["task_id"] == slug)].iloc[0]
            failed = status in ("build_failed", "build_failed_ask", "build_failed_solve", "manifest_missing",
                                "dry_run")
            assert (r["status"] == "error") == failed, (run_name, slug, status)
            if failed:
                assert r["meta"]["error_reason"] == status
    # a solve phase that failed after the agent asked keeps its question
    if folder == "ambigds_target":
        r = runs[(runs["task_id"] == "playground-series-s3e24") & (runs["meta"].map(
            lambda m: m["run_name"]) == "opencode_gpt_5_4_ambig_target_clarify")].iloc[0]
        assert r["status"] == "error" and r["n_questions"] == 1


@needs_ho
def test_ambigds_custom_run_names_take_model_and_condition_from_the_files():
    rs = ambiglib.load(HO / "ambigds_custom_run_name" / "results", quiet=True)
    runs = rs.runs.assign(run_name=[json.loads(m)["run_name"] for m in rs.runs["meta"]])
    cond = runs.groupby("run_name")[["model", "spec", "ask_tool"]].first().to_dict("index")
    assert cond["gem3f_rerun2_full"] == {"model": "gemini_3_flash", "spec": "full", "ask_tool": False}
    assert cond["gpt54-seed7_ask"] == {"model": "gpt_5_4", "spec": "ambiguous", "ask_tool": True}
    assert cond["gpt54-seed7_ambig"] == {"model": "gpt_5_4", "spec": "ambiguous", "ask_tool": False}


@needs_ho
def test_ambigds_metric_track_before_and_after_normalize_scores():
    before = HO / "ambigds_metric" / "before_normalize" / "results"
    with pytest.raises(ambiglib.FormatError, match=r"normalize_scores.py --results-root .*score_norm_01"):
        ambiglib.load(before, quiet=True)
    rs = ambiglib.load(HO / "ambigds_metric" / "after_normalize" / "results", quiet=True)
    got = tables.harness_summary(rs)
    exp = expected("ambigds_metric")
    for model, means in exp["normalize_scores_means"].items():
        cell = got[got["model"] == model].set_index("statistic")
        for stat, v in means.items():
            assert abs(cell.loc[stat, "value"] - v["mean"]) <= TOL and cell.loc[stat, "n"] == v["n"], (model, stat)


@needs_ho
def test_ambigds_judge_majority_with_the_harness_tie_rule_and_ours():
    from ambiglib import metrics

    rs = ambiglib.load(HO / "ambigds_metric" / "after_normalize" / "results", quiet=True)
    key = {r: f"{json.loads(m)['run_name']}/{t}" for r, m, t in zip(rs.runs["run_id"], rs.runs["meta"],
                                                                  rs.runs["task_id"])}
    exp = expected("ambigds_metric")["judge_majority"]
    harness = metrics.majority_labels(rs, facet="objective", ties="confidence")
    got = {key[r]: lab for r, lab in zip(harness["run_id"], harness["label"])}
    assert {k: got.get(k) for k in exp} == {k: v["label"] for k, v in exp.items()}
    ours = metrics.majority_labels(rs, facet="objective").assign(key=lambda f: f["run_id"].map(key)).set_index("key")
    tie = "opencode_gemini_3_flash_ambig_metric/spaceship-titanic"  # 2-2: the harness picks WrongObjective
    assert bool(ours.loc[tie, "is_tie"]) and pd.isna(ours.loc[tie, "label"])
    assert exp[tie]["vote_counts"] == {"Intended": 2, "WrongObjective": 2}


# ----------------------------------------------------------------------------- LHAW on MCP-Atlas


@needs_ho
def test_mcp_atlas_scored_csvs_load_with_answers_flags_and_the_harness_statistics():
    exp = expected("lhaw_mcp_atlas")
    rs = ambiglib.load(HO / "lhaw_mcp_atlas", quiet=True)
    runs = rs.runs.assign(meta=[json.loads(m) for m in rs.runs["meta"]])
    got = tables.harness_summary(rs)
    for file, info in exp["files"].items():
        label = Path(file).stem[len("scored_"):]
        mine = runs[runs["meta"].map(lambda m: m["label"]) == label]
        assert set(mine["model"]) == {info["model"]} and set(mine["trial"].astype(int)) == {info["trial"]}
        for task, t in info["per_task"].items():
            r = mine[mine["task_id"] == task].iloc[0]
            assert r["meta"]["coverage_score"] == t["coverage_score"]
            assert r["n_questions"] == t["ask_user_calls_in_trajectory"]
            assert (r["status"] == "error") == t["script_model_response_is_error"]
            if r["status"] == "ok":
                assert bool(r["passed"]) == t["passed_at_0.75"]
        cell = got[got["condition"] == label].set_index("statistic")
        for stat, value in info["coverage_stats_csv"].items():
            assert abs(cell.loc[stat, "value"] - value) <= TOL, (label, stat)
    # answers come from raw_conversation_history; the malformed call is kept and flagged
    q = rs.questions.astype(object).merge(runs[["run_id", "model", "trial"]].astype(object))
    assert q["response"].notna().all()
    malformed = runs[runs["meta"].map(lambda m: "malformed_questions" in m)]
    assert len(malformed) == 1 and (malformed["model"].iloc[0], int(malformed["trial"].iloc[0])) == ("opus_4_5", 2)
    mq = q[q["run_id"] == malformed["run_id"].iloc[0]]
    assert mq["response"].iloc[malformed["meta"].iloc[0]["malformed_questions"][0]] == "Error: No question provided"
    assert (q["response"] == "I'm not sure about that specific detail. Could you proceed with a reasonable default?"
            ).sum() == 1
    assert "malformed_questions" in set(tables.harness_anomalies(rs)["anomaly"])


@needs_ho
def test_validate_prints_the_anomalies_and_the_excluded_error_runs(capsys):
    from ambiglib.cli import main

    assert main(["validate", "--runs", str(HO / "hil_sql_ask_invalid_passes" / "results")]) == 0
    out = capsys.readouterr().out
    assert "harness anomaly: hil-bench sql gpt-5.4: questions_not_in_log in 1 run, 1 question" in out
    assert "harness_precision_above_1 in 1 run" in out
    assert "error runs, kept and excluded from every metric: 2 x hiccup_obs, 1 x timeout_obs>=3" in out


@needs_ho
def test_convention_audit_sets_paper_numbers_beside_the_harness_summary_with_its_anomalies():
    rs = ambiglib.load(HO / "hil_sql_ask_invalid_passes" / "results", quiet=True)
    audit = tables.convention_audit(rs).set_index(["model", "quantity"])
    summary = tables.harness_summary(rs)
    claude = summary[(summary["model"] == "claude-opus-4-6") & (summary["suite"] == "sql")].set_index("statistic")
    assert audit.loc[("claude-opus-4-6", "precision"), "harness"] == claude.loc["ask_precision", "value"] == 0.5
    assert audit.loc[("claude-opus-4-6", "ask_f1"), "harness"] == claude.loc["ask_f1", "value"]
    # the harness's pass filter leaves gpt-5.4 out of summary_metrics.json (a hiccup pass on both tasks)
    assert math.isnan(audit.loc[("gpt-5.4", "precision"), "harness"])
    assert not math.isnan(audit.loc[("gpt-5.4", "precision"), "paper"])
    assert "harness_precision_above_1 ×1" in audit.loc[("claude-opus-4-6", "precision"), "anomalies"]
    assert "questions_not_in_log ×1" in audit.loc[("gpt-5.4", "recall"), "anomalies"]


def test_convention_audit_follows_a_harness_named_for_a_benchmark_of_ones_own():
    """Under another name with ``harness={name: "hil-bench"}``, the audit sets the same harness numbers beside
    the paper's as under the paper's own name (it once recomputed them without the mapping: all NaN); and a
    summary passed in gives the audit it would compute itself."""
    from ambiglib.report import example_runs

    rs = ambiglib.load(example_runs(), quiet=True)

    def renamed(frame: pd.DataFrame) -> pd.DataFrame:
        if "benchmark" not in frame:
            return frame
        return frame.assign(benchmark=frame["benchmark"].replace({"hil-bench": "clarifybench"}))

    own = ambiglib.RunSet(**{n: renamed(getattr(rs, n)) for n in ("runs", "questions", "labels", "tasks", "blockers")})
    audit = tables.convention_audit(rs)
    theirs = audit[audit["benchmark"] == "hil-bench"].drop(columns="benchmark").reset_index(drop=True)
    mapped = tables.convention_audit(own, harness={"clarifybench": "hil-bench"})
    mine = mapped[mapped["benchmark"] == "clarifybench"].drop(columns="benchmark").reset_index(drop=True)
    assert len(theirs) and theirs["harness"].notna().any()
    pd.testing.assert_frame_equal(mine, theirs, check_exact=True)
    pd.testing.assert_frame_equal(tables.convention_audit(rs, summary=tables.harness_summary(rs)), audit,
                                  check_exact=True)
