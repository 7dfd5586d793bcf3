"""Output written by the harnesses' own code (../shared/fixtures/harness-output): every tree loads
strictly, and ``tables.harness_summary`` reproduces every number the harness's own summary code
computed from it (each folder's ``expected.json``), to 1e-9."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pandas as pd
import pytest

import ambiglib
from ambiglib import tables
from conftest import FIXTURES

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
        ours = got[got["suite"] == suite]
        assert {(m, safe(x)) for m, x in zip(ours["condition"], ours["model"])} == \
            {(mode, model) for mode, models in summary[section].items() for model in models}
    assert checked > 0 or not any(summary[s] for s in ("SQL", "SWE", "BOTH"))  # SWE half: every pass a hiccup


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
