"""Every printed cell of the reconstructed paper tables, reproduced from data/paper at the printed precision.

data/paper/ holds run logs rebuilt from the papers' published aggregates
(scripts/make_paper_fixtures.py) and printed.json, the printed cells with their
tables. The cells that cannot be reproduced are listed in KNOWN with the reason,
each one a place where the papers' own numbers do not fit together; the test fails
if any other cell differs, and also if a KNOWN cell starts to match (the list must
not rot). docs/reproduction.md is the same list for readers.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import ambiglib
from ambiglib import tables

PAPER = Path(__file__).resolve().parents[1] / "data" / "paper"

ROUNDED_RATES = ("CalibScore was computed from the rounded percentages: from the printed rates it is exact "
                 "(tests/test_metrics.py); no count out of the task total gives both printed rates and this score")
T12 = ("Table 12 repeats Table 7's outcome-critical MCP-Atlas rows with other values for this model"
       " (Table 7: the fixture follows it, and it sums with the other classes to Table 3's pass@3)")
KNOWN = {
    ("Ambig-DS Table 1", "objective", "Gemini 3 Flash", None, "s_ambig"):
        "Table 1 prints 0.22, but Tables 3 and 11 (75% intended at 0.30, 5% alternative at 0.10, the rest 0) give"
        " at least 0.226 within rounding",
    ("Ambig-DS Table 1", "objective", "Gemini 3 Flash", None, "delta_ambig"): "follows from S_ambig above",
    ("Ambig-DS Table 1", "objective", "Gemini 3 Flash", None, "delta_ask"): "follows from S_ambig above",
    ("Ambig-DS Table 2", "target", "Claude Haiku 4.5", "Ambig.", "intended"):
        "26% is no k/51 (13/51 = 25.5%, 14/51 = 27.5%); the printed row sums to 101%",
    ("Ambig-DS Table 3", "objective", "GPT-5.4", "Ambig.", "timeout"): "4% is no k/61 (2/61 = 3.3%, 3/61 = 4.9%)",
    ("Ambig-DS Table 3", "objective", "GPT-5.4", "Ask", "timeout"): "4% is no k/61 (2/61 = 3.3%, 3/61 = 4.9%)",
    ("Ambig-DS Table 13", "objective", "Gemini 3 Flash", "permissive", "calib_score"): ROUNDED_RATES,
    ("Ambig-DS Table 13", "objective", "Gemini 3 Flash", "conservative", "calib_score"): ROUNDED_RATES,
    ("Ambig-DS Table 13", "objective", "Gemini 3.1 Pro", "conservative", "calib_score"): ROUNDED_RATES,
    ("Ambig-DS Table 13", "target", "Claude Haiku 4.5", "conservative", "calib_score"): ROUNDED_RATES,
    ("Ambig-DS Table 13", "objective", "GPT-5.4 Nano", "permissive", "ask_on_full"):
        "Table 13 says 87% asked on full tasks, Table 14 says 21% stayed silent (79% asked); the fixture follows Table 14",
    ("Ambig-DS Table 13", "objective", "GPT-5.4 Nano", "permissive", "calib_score"): "follows from ask_on_full above",
    ("Ambig-DS Table 13", "objective", "Claude Haiku 4.5", "conservative", "ask_on_ambiguous"):
        "Table 13 says 5% asked (3/61), Table 15 says 3% asked (2/61); the fixture follows Table 15",
    ("Ambig-DS Table 13", "objective", "Claude Haiku 4.5", "conservative", "calib_score"): "follows from ask_on_ambiguous above",
    ("Ambig-DS Table 14", "objective", "GPT-5.4 Nano", None, "restating_obvious"):
        "17% is no k/61 that also lets the row's other shares be k/61 (10/61 = 16.4%, 11/61 = 18.0%)",
    ("HIL-Bench Table 8", None, "Claude Opus 4.6", "sql", "ask_f1"):
        "Table 8 prints 57, but Table 1's recall 61.2% (1098 of 1794 blockers) and precision 54.3% put F1 at"
        " 57.52% or more, which rounds to 58",
    **{("LHAW Table 12", "mcp-atlas", model, "outcome-critical", col): T12
       for model, cols in (("Claude Sonnet 4.5", ("base_pass_at_k", "pass_at_k", "pass_at_k_with_tool")),
                           ("Gemini 3 Pro", ("pass_at_k_with_tool",)),
                           ("Gemini 3 Flash", ("base_pass_at_k", "pass_at_k", "pass_at_k_with_tool")),
                           ("GPT-5.2", ("pass_at_k_with_tool",)))
       for col in cols},
    ("LHAW Table 13", "mcp-atlas", None, None, "pass_at_k_with_tool"):
        "the five models' pass@3 with ask_user (Tables 3 and 7: 78, 72, 74, 71, 65) average to 0.72, not 0.73",
    ("LHAW Table 14", "mcp-atlas", "Claude Sonnet 4.5", "supervisor", "score_gain_pp_per_question"):
        "25.6 / 266 = 0.096, which rounds to 0.10; the other three rows are Ckpt gain / Qs exactly",
}


@pytest.fixture(scope="module")
def reproduced():
    rs = ambiglib.load(PAPER, quiet=True)
    return {
        "perf": tables.performance(rs, n_boot=200).set_index(["suite", "model"]),
        "framing": tables.framing_categories(rs).set_index(["suite", "model", "condition"]),
        "conditional": tables.conditional_scores(rs).set_index(["suite", "model", "condition"]),
        "trace": tables.recognition_audit(rs, facet="trace").set_index(["suite", "model", "condition"]),
        "answer": tables.recognition_audit(rs, facet="answer").set_index(["suite", "model", "condition"]),
        "calibration": tables.ask_calibration(rs).set_index(["suite", "model", "policy"]),
        "over": tables.ask_diagnostics(rs, kind="over_ask").set_index(["suite", "model"]),
        "under": tables.ask_diagnostics(rs, kind="under_ask").set_index(["suite", "model"]),
        "gap": tables.judgment_gap(rs).set_index(["suite", "model"]),
        "personas": tables.personas(rs).set_index(["suite", "model", "policy"]),
        "leaderboard": tables.leaderboard(rs).set_index(["model", "scope"]),
        "questions": tables.questions_per_task(rs).set_index(["suite", "model"]),
        "voi": tables.value_of_information(rs).set_index(["suite", "model", "policy"]),
        "classes": tables.by_ambiguity_class(rs).set_index(["suite", "model", "policy", "ambiguity_class"]),
        "generality": tables.generality(rs).set_index("suite"),
    }


def _value(t: dict, c: dict):
    table, col = c["table"], c["column"]
    c = {"suite": None, "model": None, **c}
    frame, key = {
        "Ambig-DS Table 1": ("perf", (c["suite"], c["model"])),
        "Ambig-DS Table 2": ("framing", (c["suite"], c["model"], c.get("condition"))),
        "Ambig-DS Table 3": ("framing", (c["suite"], c["model"], c.get("condition"))),
        "Ambig-DS Table 11": ("conditional", (c["suite"], c["model"], c.get("condition"))),
        "Ambig-DS Table 10": (c.get("facet"), (c["suite"], c["model"], "Ambig.")),
        "Ambig-DS Table 13": ("calibration", (c["suite"], c["model"], c.get("policy"))),
        "Ambig-DS Table 14": ("over", (c["suite"], c["model"])),
        "Ambig-DS Table 15": ("under", (c["suite"], c["model"])),
        "HIL-Bench Table 1": ("gap", (c["suite"], c["model"])),
        "LHAW Table 14": ("personas", (c["suite"], c["model"], c.get("policy"))),
        "HIL-Bench Table 8": ("leaderboard", (c["model"], c.get("scope"))),
        "HIL-Bench Table 7": ("questions", (c["suite"], c["model"])),
        "LHAW Table 3": ("voi", (c["suite"], c["model"], c.get("policy"))),
        "LHAW Table 7": ("classes", (c["suite"], c["model"], c.get("policy"), c.get("class"))),
        "LHAW Table 12": ("classes", (c["suite"], c["model"], c.get("policy"), c.get("class"))),
        "LHAW Table 13": ("generality", c["suite"]),
    }[table]
    f = t[frame]
    if col not in f.columns:  # a label nobody received: share 0
        return 0.0
    v = f.loc[key, col]
    return None if v is None or (isinstance(v, float) and np.isnan(v)) else float(v)


def _key(c: dict) -> tuple:
    return (c["table"], c.get("suite"), c.get("model"),
            c.get("condition") or c.get("class") or c.get("policy") or c.get("scope"), c["column"])


def test_every_printed_cell_is_reproduced_or_explained(reproduced):
    cells = json.loads((PAPER / "printed.json").read_text())
    assert len(cells) == 659
    mismatched = {}
    for c in cells:
        v = _value(reproduced, c)
        shown = None if v is None else round(v * (100 if c.get("percent") else 1), c["digits"])
        expected = c["value"]
        same = (shown is None) if expected is None else (shown is not None and abs(shown - expected) < 1e-9)
        if not same:
            mismatched[_key(c)] = (expected, shown)
    unexplained = {k: v for k, v in mismatched.items() if k not in KNOWN}
    assert not unexplained, f"cells that differ from the printed tables: {unexplained}"
    stale = set(KNOWN) - set(mismatched)
    assert not stale, f"KNOWN cells that now match (remove them): {stale}"
    reproduced_share = 1 - len(mismatched) / len(cells)
    assert reproduced_share > 0.95  # 633 of 659


def test_per_table_counts_match_the_reproduction_document(reproduced):
    cells = json.loads((PAPER / "printed.json").read_text())
    per_table: dict[str, list[int]] = {}
    for c in cells:
        n = per_table.setdefault(c["table"], [0, 0])
        n[0] += 1
        n[1] += _key(c) in KNOWN
    doc = (Path(__file__).resolve().parents[1] / "docs" / "reproduction.md").read_text()
    for table, (n, known) in per_table.items():
        assert f"| {table} | {n - known} of {n} |" in doc, f"docs/reproduction.md is out of date for {table}"


def test_the_paper_logs_are_what_the_script_writes(tmp_path, monkeypatch):
    import importlib.util

    spec = importlib.util.spec_from_file_location("mk", Path(__file__).resolve().parents[1] / "scripts" / "make_paper_fixtures.py")
    mk = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mk)
    monkeypatch.setattr(mk, "OUT", tmp_path)
    mk.main()
    for name in ("ambig-ds.jsonl", "hil-bench.jsonl", "lhaw.jsonl", "printed.json", "inferability_audit.csv"):
        assert (tmp_path / name).read_bytes() == (PAPER / name).read_bytes(), name


def test_selector_accuracy_reproduces_ambig_ds_table7():
    import pandas as pd

    # Ambig-DS Table 7: accuracy [95% Wilson CI] over 51 tasks; F's printed interval is no Wilson
    # interval at n = 51 (tests/test_stats.py), so only its accuracy is compared
    printed = {"A_marginal_entropy": (58.8, 45.2, 71.2), "B_basic_cv_hgb": (49.0, 35.9, 62.3),
               "C_strong_cv_lgb": (51.0, 37.7, 64.1), "D_llm_schema": (62.7, 49.0, 74.7),
               "E_llm_noprompt": (54.9, 41.4, 67.7), "F_frontier_llm": (56.9, None, None)}
    out = tables.selector_accuracy(pd.read_csv(PAPER / "inferability_audit.csv")).set_index("selector")
    for selector, (acc, low, high) in printed.items():
        row = out.loc[selector]
        assert row["n"] == 51 and round(100 * row["accuracy"], 1) == acc
        if low is not None:
            assert (round(100 * row["accuracy_ci_low"], 1), round(100 * row["accuracy_ci_high"], 1)) == (low, high)
