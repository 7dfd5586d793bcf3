"""What a first-time user trips over (issue 30): pass@k on fewer trials than k, parameter values checked before
anything runs, a typo in a selection or a filter, rejected records on the console."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest
from conftest import run_record, write_jsonl

import ambiglib
from ambiglib import tables
from ambiglib.errors import ArgumentError, ParameterError, ReportError
from ambiglib.report import run_report

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example"


@pytest.fixture(scope="module")
def two_trials():
    """The example log with every task condition's first two trials only."""
    rs = ambiglib.load(EXAMPLE, quiet=True)
    return rs.filter(trial=[1, 2])


def test_pass_at_k_on_fewer_trials_says_why_and_k_fills_it(two_trials):
    gap = tables.judgment_gap(two_trials)
    hil = gap[gap["benchmark"] == "hil-bench"]
    assert hil["pass_at_k_with_tool"].isna().all()
    # the reason each "–" of a pass@k column is one (issue 37: every empty value says why, and the fix)
    why = gap.attrs["empty"]["pass_at_k_with_tool"]
    assert "pass@3 is empty where a task was run fewer than 3 times" in why and "set k to 1" in why
    assert "as few as 1 trial" in why  # (Ambig-DS runs each condition once)
    two = tables.judgment_gap(two_trials, k=2)
    assert two[two["benchmark"] == "hil-bench"]["pass_at_k_with_tool"].notna().all()
    # by hand, one cell: pass@2 of the first model with the tool on SQL = share of tasks solved in trial 1 or 2
    runs = two_trials.runs
    cell = two.set_index(["benchmark", "suite", "model"]).loc[("hil-bench", "sql", "gpt-5.4")]
    sel = runs[(runs["benchmark"] == "hil-bench") & (runs["suite"] == "sql") & (runs["model"] == "gpt-5.4")
               & (runs["spec"] == "ambiguous") & runs["ask_tool"] & (runs["status"] != "error")]
    # HIL-Bench's rule: a task enters with at least k non-error trials (public_sql_4's second trial errored)
    ok = sel[sel["status"] != "error"]
    enough = ok.groupby("variant_id").size() >= 2
    per_task = ok[ok["variant_id"].map(enough)].groupby("variant_id")["passed"].apply(lambda p: float(p.any()))
    assert len(per_task) == 5 and cell["pass_at_k_with_tool"] == pytest.approx(per_task.mean()) == pytest.approx(0.2)
    # the whole example: HIL-Bench's three trials fill pass@3; Ambig-DS runs each condition once, which the reason says
    full = tables.judgment_gap(ambiglib.load(EXAMPLE, quiet=True))
    assert full[full["benchmark"] == "hil-bench"]["pass_at_k_with_tool"].notna().all()
    assert full[full["benchmark"] == "ambig-ds"]["pass_at_k_with_tool"].isna().all()
    assert "as few as 1 trial" in full.attrs["empty"]["pass_at_k_with_tool"]


@pytest.mark.parametrize("yaml, message", [
    ("n_boot: many\n", "n_boot: 'many' is not an integer"),
    ("n_boot: 1.5\n", "n_boot: 1.5 is not an integer"),
    ("n_boot: -5\n", "n_boot: -5 is not a whole number of bootstrap replicates from 1 to 100,000"),
    ("k: 0\n", "k: 0 is not a whole number of attempts from 1 to 100"),
    ("n_boot: 30000000\n", "n_boot: 30000000 is not a whole number of bootstrap replicates from 1 to 100,000"),
    ("conventions: {clarifybench: hilbench}\n", "conventions: {'clarifybench': 'hilbench'} is not a mapping of"),
    ("benchmarks: [1]\n", "benchmarks: [1] is not a list of names"),
    ("notebooks:\n  ambigds_construction_audits:\n    selector_audit: no/such.csv\n",
     "selector_audit: 'no/such.csv' is not an existing file"),
])
def test_a_bad_parameter_value_is_refused_before_any_notebook_runs(tmp_path, yaml, message):
    params = tmp_path / "p.yaml"
    params.write_text(yaml)
    with pytest.raises(ParameterError, match=message.replace("[", r"\[").replace("(", r"\(")):
        run_report(EXAMPLE, tmp_path / "out", params_file=params)
    assert not (tmp_path / "out").exists()


def test_a_selection_the_log_does_not_have_is_an_error_listing_what_it_has(tmp_path):
    params = tmp_path / "p.yaml"
    params.write_text("benchmarks: [hil-bnch]\n")
    with pytest.raises(ReportError, match=r"benchmarks: 'hil-bnch' not in the run log, whose benchmark values are"
                                          r" 'ambig-ds', 'hil-bench', 'lhaw'"):
        run_report(EXAMPLE, tmp_path / "out", params_file=params, notebooks=["quickstart"])
    params.write_text("notebooks:\n  quickstart:\n    models: [gpt-5.4, gpt-54]\n")
    with pytest.raises(ReportError, match=r"notebooks: quickstart: models: 'gpt-54' not in the run log"):
        run_report(EXAMPLE, tmp_path / "out", params_file=params, notebooks=["quickstart"])


def test_a_filter_that_keeps_nothing_warns_with_the_values_present(tmp_path):
    with pytest.warns(UserWarning, match=r"match no run; the log has benchmark: 'ambig-ds', 'hil-bench', 'lhaw'"):
        rs = ambiglib.load(EXAMPLE, filters=[("benchmark", "==", "lhw")])
    assert len(rs.runs) == 0
    ambiglib.load(EXAMPLE, quiet=True).to_parquet(tmp_path / "store", partition_by=("benchmark",))
    with pytest.warns(UserWarning, match=r"the log has benchmark: 'ambig-ds', 'hil-bench', 'lhaw'"):
        ambiglib.load(tmp_path / "store", filters=[("benchmark", "==", "lhw")])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a filter that keeps runs says nothing
        assert len(ambiglib.load(tmp_path / "store", filters=[("benchmark", "==", "lhaw")]).runs) > 0
    # a value of the wrong type is the filter's fault, named as such (it was blamed on the store)
    with pytest.raises(ArgumentError, match=r"runs column 'trial' holds whole-number values; '1' is str"):
        ambiglib.load(tmp_path / "store", filters=[("trial", "==", "1")])


def test_rejected_records_are_said_on_the_console_and_strict_fails(tmp_path):
    log = write_jsonl(tmp_path / "log.jsonl", [run_record(), run_record(trial=2, spec="amb")])
    cmd = [sys.executable, "-m", "ambiglib", "-q", "report", "--runs", str(log), "--notebooks", "quickstart"]
    done = subprocess.run([*cmd, "--out", str(tmp_path / "a")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f"1 record rejected: see {tmp_path / 'a' / 'rejected.csv'}" in done.stdout
    strict = subprocess.run([*cmd, "--out", str(tmp_path / "b"), "--strict"], capture_output=True, text=True)
    assert strict.returncode == 1 and "(--strict: failing)" in strict.stdout
    assert (tmp_path / "b" / "index.html").is_file()  # the report is written either way
    assert len(pd.read_csv(tmp_path / "b" / "rejected.csv")) == 1


def test_blocker_counts_read_as_english_in_number_order():
    rs = ambiglib.load(EXAMPLE, quiet=True)
    stats = tables.blocker_stats(rs)
    labels = [s for s in stats["statistic"] if s.startswith("Tasks with ")]
    assert "Tasks with 1 blocker" in labels and "Tasks with 1 blockers" not in labels
    hil = [s for s in stats[stats["benchmark"] == "hil-bench"]["statistic"] if s.startswith("Tasks with ")]
    assert hil == sorted(hil, key=lambda s: int(s.split()[2]))


def test_the_summary_says_an_empty_cell_is_empty(tmp_path):
    from ambiglib.report import write_summary

    write_summary(EXAMPLE, tmp_path, quiet=True)
    text = (tmp_path / "summary.md").read_text(encoding="utf-8")
    import re

    assert " nan " not in text and re.search(r"\|\s+–\s+\|", text)  # ask-only runs' mean score: "empty", as said


def test_counts_in_a_table_of_statistics_read_as_counts():
    """blocker_stats printed "Tasks 8.000" and "Total blockers 40.000" (issue 30 §5): a row of whole numbers is
    shown as integers, a row of averages or shares as decimals."""
    from ambiglib.report import render_table

    rs = ambiglib.load(EXAMPLE, quiet=True)
    rows = [line.split() for line in render_table(tables.blocker_stats(rs)).splitlines()]
    hil = {" ".join(r[1:-7]): r[-7:] for r in rows if r[0] == "hil-bench"}  # statistic -> target, Total, sql, ...
    assert hil["Tasks"][:4] == ["–", "12", "6", "6"]
    assert hil["Total blockers"][:4] == ["–", "40", "21", "19"]
    assert hil["Avg. blockers / task"][:4] == ["–", "3.333", "3.500", "3.167"]


def test_the_report_files_of_a_table_of_statistics_show_counts_as_counts(tmp_path):
    """The report's .md and .tex of blocker_stats printed "Missing information 476.000" where the notebook showed
    476: the files a paper takes its tables from show whole-number rows as integers too."""
    from ambiglib.report._rendering import save_table

    save_table(tables.blocker_stats(ambiglib.load(EXAMPLE, quiet=True)), "blockers", tmp_path)
    md = {line.split("|")[2].strip(): [c.strip() for c in line.split("|")[3:-1]]
          for line in (tmp_path / "blockers.md").read_text().splitlines()[2:] if "| hil-bench" in line}
    assert md["Total blockers"][:4] == ["–", "40", "21", "19"] and md["Avg. blockers / task"][1] == "3.333"
    tex = (tmp_path / "blockers.tex").read_text()
    assert "hil-bench & Total blockers & – & 40 & 21 & 19 &" in tex and "hil-bench & Tasks & – & 12 & 6 & 6 &" in tex


def test_a_table_with_a_column_twice_is_refused_when_saved_and_when_read_back(tmp_path):
    """pandas reads a CSV header that names a column twice as ``x`` and ``x.1``: the report's opening and index,
    which read its tables back by name, would show the first copy's values under the name without a word
    (issue 56: a repeated column is an error naming the file and the column)."""
    import pandas as pd

    from ambiglib.errors import ReportError
    from ambiglib.report._opening import read_table
    from ambiglib.report._rendering import save_table

    twice = pd.DataFrame([[1, 2, 3]], columns=["model", "ask_rate", "ask_rate"])
    with pytest.raises(ReportError, match=r"table 'asking': the column 'ask_rate' appears more than once \(2 times\)"):
        save_table(twice, "asking", tmp_path)
    assert not (tmp_path / "asking.csv").exists()
    with pytest.raises(ReportError, match="'ask_rate' appears more than once"):
        save_table(twice, "asking", None)  # interactive use too: the notebook's table would not survive the report
    (tmp_path / "asking.csv").write_text("model,ask_rate,ask_rate\na,0.2,0.9\n", encoding="utf-8")
    with pytest.raises(ReportError, match=r"asking.csv: line 1: the column 'ask_rate' appears 2 times"):
        read_table(tmp_path / "asking.csv")
    (tmp_path / "once.csv").write_text("model,ask_rate\na,0.2\n", encoding="utf-8")
    frame, _ = read_table(tmp_path / "once.csv")
    assert list(frame.columns) == ["model", "ask_rate"] and frame["ask_rate"].tolist() == [0.2]


PAPER = ROOT / "data" / "paper"


@pytest.mark.skipif(not PAPER.is_dir(), reason="data/paper is made by `make example`")
def test_one_name_one_meaning_for_the_ask_share_and_the_score_with_the_tool():
    """`ask_pct` meant a share of variants in value_of_information and a share of trials in prompting_strategies;
    `mean_score` stood beside a figure of the score with the tool (issue 30 §5). Checked by hand on data/paper."""
    rs = ambiglib.load(PAPER, quiet=True)
    for name in ("value_of_information", "by_ambiguity_class", "prompting_strategies", "personas", "by_dimension"):
        assert "ask_pct" not in getattr(tables, name)(rs).columns, name
    runs = rs.runs[(rs.runs["suite"] == "mcp-atlas") & (rs.runs["model"] == "Claude Opus 4.5")
                   & (rs.runs["spec"] == "ambiguous")]
    tool = runs[runs["ask_tool"]]
    voi = tables.value_of_information(rs).set_index(["suite", "model", "policy"]).loc[
        ("mcp-atlas", "Claude Opus 4.5", "default")]
    by_variant = tool.groupby("variant_id")["n_questions"].max().gt(0)
    assert voi["variant_ask_pct"] == pytest.approx(100 * by_variant.mean())
    assert round(voi["variant_ask_pct"]) == 73  # LHAW Table 3's Ask %, while Table 4 counts 188 of 300 trials
    assert (tool["n_questions"] > 0).sum() == 188 and len(tool) == 300
    assert voi["mean_score_with_tool"] == pytest.approx(tool["score"].astype(float).mean())
    assert voi["mean_score"] == pytest.approx(runs[~runs["ask_tool"]]["score"].astype(float).mean())
    strategies = tables.prompting_strategies(rs)
    react = strategies.set_index(["suite", "model", "ambiguity_class", "policy"]).loc[
        ("tac", "GPT-5.2", "overall", "react")]
    react_runs = rs.runs[(rs.runs["suite"] == "tac") & (rs.runs["policy"] == "react") & rs.runs["ask_tool"]
                         & (rs.runs["spec"] == "ambiguous") & rs.runs["score"].notna()]  # trials with a result
    assert react["trial_ask_pct"] == pytest.approx(100 * (react_runs["n_questions"] > 0).mean())


def test_checkpoints_read_as_the_numbers_written(tmp_path):
    """Whole checkpoint points load as integers (`2`, not `2.0`); a fractional point keeps its exact value."""
    whole = run_record(checkpoints=[{"result": 0, "total": 1}, {"result": 2, "total": 2}])
    write_jsonl(tmp_path / "whole" / "runs.jsonl", [whole])
    points = ambiglib.load(tmp_path / "whole", quiet=True).runs["checkpoints"].iloc[0]
    assert [(c["result"], c["total"]) for c in points] == [(0, 1), (2, 2)]
    assert all(type(c["result"]) is int and type(c["total"]) is int for c in points)
    half = run_record(checkpoints=[{"result": 0.5, "total": 1}, {"result": 2, "total": 2}])
    write_jsonl(tmp_path / "half" / "runs.jsonl", [half])
    points = ambiglib.load(tmp_path / "half", quiet=True).runs["checkpoints"].iloc[0]
    assert [(c["result"], c["total"]) for c in points] == [(0.5, 1.0), (2.0, 2.0)]
