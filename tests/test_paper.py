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
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ambiglib
from ambiglib import tables

PAPER = Path(__file__).resolve().parents[1] / "data" / "paper"
CANDIDATES = PAPER.with_name("paper-candidates")  # LHAW Table 11's removal candidates, not released with the benchmark

#: why a cell differs: the paper's own printed numbers do not fit together (the reason shows the arithmetic),
#: or ambiglib presents a value otherwise than the paper does (a convention of ours, not a paper error)
INCONSISTENT = "paper inconsistency"
OURS = "our convention"
#: the printed numbers allow more than one reading, and the fixture follows one: not shown to be a paper error
UNDECIDED = "undecided"
#: the fixture's search did not reach the cell; not shown to be impossible, so neither the paper's error nor ours
UNREACHED = "not reached by the fixture"

ROUNDED_RATES = ("CalibScore was computed from the rounded percentages: from the printed rates it is exact "
                 "(tests/test_metrics_asking.py); no count out of the task total gives both printed rates and this score")
MCP_SPLIT = ("Gemini-3-Pro on MCP-Atlas: Tables 3 and 7 put its pass@3 gain at +26.0 (Table 7: 22 more of the 50"
             " outcome-critical variants, 3 of the 30 divergent, 1 of the 20 benign; its classes sum to Table 3's"
             " row), Tables 5 and 13 at +31.0: Table 5's All column prints +31.0, and Table 13's +User 0.73 is the"
             " five models' pass@3 with ask_user averaged with it ((78 + 77 + 74 + 71 + 65) / 5 = 73.0), where"
             " Table 3's +26.0 gives (78 + 72 + 74 + 71 + 65) / 5 = 72.0. Two tables against two; the fixture follows"
             " Tables 3 and 7")
T12 = ("Table 12 repeats Table 7's outcome-critical MCP-Atlas rows with other values for this model"
       " (Table 7: the fixture follows it, and it sums with the other classes to Table 3's pass@3)")
TAC_PRO_Q = ("Table 3's own row: Gain/Q 0.24 (4.8 pp) and 0.11 (2.2 pp) both need 20 questions, which at"
             " Avg/Traj 1.06 is no whole number of asking trials (20 / 1.06 = 18.9)")
TAC_BASE = ("Base per class is pass@3 over the class's distinct original tasks (outcome-critical 0.54 / 0.45 /"
            " 0.63 are 6, 5, 7 of 11 for all five models); divergent 0.70 and 0.60 need 10 tasks, 0.77 and 0.66"
            " need 9: no one count fits all five")
CODEACT_ASK = ("Table 10's CodeAct row is Table 3's GPT-5.2 row, whose Ask 87% of variants, Avg/Traj 1.81 and"
               " Gain/Q 0.04 (6.5 pp) and 0.02 (2.7 pp) put the asking trials at 80 to 99 of 231 (35% to 43%),"
               " not 73%; the classes cannot then have 74% and 73%")
KNOWN = {
    ("Ambig-DS Table 1", "objective", "Gemini 3 Flash", None, "s_ambig"): (INCONSISTENT,
        "Table 1 prints 0.22, but Tables 3 and 11 give 46 of 61 runs intended (75%) at a mean of at least 0.295"
        " and 3 alternative (5%) at least 0.095, the rest 0: S_ambig ≥ (46 × 0.295 + 3 × 0.095) / 61 = 0.227,"
        " which prints 0.23"),
    ("Ambig-DS Table 1", "objective", "Gemini 3 Flash", None, "delta_ambig"): (INCONSISTENT,
        "follows from S_ambig above: 0.23 − 0.31 prints −0.08, the paper −0.09"),
    ("Ambig-DS Table 1", "objective", "Gemini 3 Flash", None, "delta_ask"): (INCONSISTENT,
        "follows from S_ambig above: 0.31 − 0.23 prints 0.08, the paper 0.09"),
    ("Ambig-DS Table 2", "target", "Claude Haiku 4.5", "Ambig.", "intended"): (INCONSISTENT,
        "26% is no k/51 (13/51 = 25.5%, 14/51 = 27.5%); the printed row sums to 26 + 59 + 8 + 8 = 101%"),
    ("Ambig-DS Table 3", "objective", "GPT-5.4", "Ambig.", "timeout"): (INCONSISTENT, "4% is no k/61 (2/61 = 3.3%, 3/61 = 4.9%)"),
    ("Ambig-DS Table 3", "objective", "GPT-5.4", "Ask", "timeout"): (INCONSISTENT, "4% is no k/61 (2/61 = 3.3%, 3/61 = 4.9%)"),
    ("Ambig-DS Table 13", "objective", "Gemini 3 Flash", "permissive", "calib_score"): (INCONSISTENT, ROUNDED_RATES),
    ("Ambig-DS Table 13", "objective", "Gemini 3 Flash", "conservative", "calib_score"): (INCONSISTENT, ROUNDED_RATES),
    ("Ambig-DS Table 13", "objective", "Gemini 3.1 Pro", "conservative", "calib_score"): (INCONSISTENT, ROUNDED_RATES),
    ("Ambig-DS Table 13", "target", "Claude Haiku 4.5", "conservative", "calib_score"): (INCONSISTENT, ROUNDED_RATES),
    ("Ambig-DS Table 13", "objective", "GPT-5.4 Nano", "permissive", "ask_on_full"): (INCONSISTENT,
        "Table 14's row fits only 58 judged runs (21, 0, 41, 17, 21% are 12, 0, 24, 10, 12 of 58; 17% is no k/61): 12"
        " stayed silent and 46 asked, 79% of 58 (80% of 61 even if the 3 unjudged runs asked), while 87% is 53 of 61;"
        " the fixture follows Table 14"),
    ("Ambig-DS Table 13", "objective", "GPT-5.4 Nano", "permissive", "calib_score"): (INCONSISTENT,
        "follows from ask_on_full above: with 79% asking on full tasks, 2 × 0.79 × 0.21 / (0.79 + 0.21) = 0.33; the"
        " paper's 0.22 is its 79% and 87%"),
    ("Ambig-DS Table 13", "objective", "Claude Haiku 4.5", "conservative", "ask_on_ambiguous"): (INCONSISTENT,
        "Table 13 says 5% asked (3/61), Table 15 says 3% asked (2/61); the fixture follows Table 15"),
    ("Ambig-DS Table 13", "objective", "Claude Haiku 4.5", "conservative", "calib_score"): (INCONSISTENT,
        "with Table 15's 2/61 and 3/61 on full, 2 × 0.033 × 0.951 / 0.984 = 0.06; even Table 13's own 3/61 and 3/61"
        " give 2 × 0.049 × 0.951 / 1.0 = 0.094, 0.09: the paper's 0.10 is from the rounded 5% and 5%"),
    ("LHAW Table 11", "tac-candidates", "Gemini 3 Flash", "VAGUIFY", "n_variants"): (INCONSISTENT,
        "the caption's n = 233 candidates, but VAGUIFY's classes sum to 173 + 39 + 5 + 12 = 229, and its Pass@3 19.2%"
        " is 44 of 229 (44 of 233 is 18.9%): 229 candidates were classed"),
    ("Ambig-DS Table 12", "target", "GPT-5.4 Nano", None, "delta_ask_ci_high"): (UNREACHED,
        "Δ_ask +0.06 [+0.01, +0.09]: an interval 0.05 below the estimate and 0.03 above needs a long left tail of"
        " per-task differences, with the p of 0.020 at the same time; the fixture's search (ambig_ds_statistics:"
        " 180,000 steps, and 420,000 from another seed) gets the lower bound and the p but leaves the upper at 0.10"),
    ("HIL-Bench Table 8", None, "Claude Opus 4.6", "sql", "ask_f1"): (INCONSISTENT,
        "Table 8 prints 57, but Table 1's recall 61.2% (1098 of 1794 blockers) and precision 54.3% put F1 at"
        " 57.52% or more, which rounds to 58"),
    **{("LHAW Table 12", "mcp-atlas", model, "outcome-critical", col): (INCONSISTENT, T12)
       for model, cols in (("Claude Sonnet 4.5", ("base_pass_at_k", "pass_at_k", "pass_at_k_with_tool")),
                           ("Gemini 3 Pro", ("pass_at_k_with_tool",)),
                           ("Gemini 3 Flash", ("base_pass_at_k", "pass_at_k", "pass_at_k_with_tool")),
                           ("GPT-5.2", ("pass_at_k_with_tool",)))
       for col in cols},
    ("LHAW Table 13", "mcp-atlas", None, None, "pass_at_k_with_tool"): (INCONSISTENT, MCP_SPLIT),
    ("LHAW Table 14", "mcp-atlas", "Claude Sonnet 4.5", "supervisor", "score_gain_pp_per_question"): (INCONSISTENT,
        "25.6 / 266 = 0.096, which rounds to 0.10; the other three rows are Ckpt gain / Qs exactly"),
    ("LHAW Table 3", "tac", "Gemini 3 Pro", "default", "pass_gain_pp"): (INCONSISTENT,
        "no counts of valid and passing variants per class give Table 8's row (truncated; benign 0.77 without the"
        " tool is only 7 of 9) together with Table 3's 31.7 and +4.8; the fixture keeps Table 8 and 31.7 and takes"
        " the gain (+5.1) that keeps Table 13's average of +User at 0.37"),
    ("LHAW Table 3", "tac", "Gemini 3 Pro", "default", "pass_gain_pp_per_question"): (INCONSISTENT, TAC_PRO_Q),
    ("LHAW Table 3", "tac", "Gemini 3 Pro", "default", "score_gain_pp_per_question"): (INCONSISTENT, TAC_PRO_Q),
    ("LHAW Table 3", "tac", "Gemini 3 Flash", "default", "mean_score"): (INCONSISTENT,
        "Table 3 prints the row's pass@3 (31.8) again as its Ckpt; Table 6 gives 40.9 (-2.8), which the fixture follows"),
    ("LHAW Table 3", "tac", "Gemini 3 Flash", "default", "pass_gain_pp_per_question"): (INCONSISTENT,
        "Table 3's own row: Gain/Q 0.10 (4.2 pp) and -0.07 (-2.8 pp) need 4.2 / [0.095, 0.105) and"
        " 2.8 / [0.065, 0.075), 41 to 43 questions, which at Avg/Traj 1.09 is no whole number of asking trials"
        " (41 / 1.09 = 37.6, 42 / 1.09 = 38.5, 43 / 1.09 = 39.4; 38 × 1.09 = 41.4)"),
    **{("LHAW Table 3", "swe-bench-pro", "Gemini 3 Flash", "default", col): (OURS,
       "no trial asked: the paper prints 0.00 for a ratio with nothing to divide by; ambiglib leaves it empty")
       for col in ("avg_per_traj", "pass_gain_pp_per_question", "score_gain_pp_per_question")},
    ("LHAW Table 8", "tac", "Gemini 3 Flash", "divergent", "base_pass_at_k"): (INCONSISTENT, TAC_BASE),
    ("LHAW Table 8", "tac", "GPT-5.2", "divergent", "base_pass_at_k"): (INCONSISTENT, TAC_BASE),
    ("LHAW Table 13", "tac", None, None, "base_pass_at_k"): (UNDECIDED,
        "the model average of Table 3's TAC baselines (61.5, 53.8, 61.5, 53.8, 69.2: k of 13 tasks) is 60.0, 0.60 not"
        " 0.66; weighting each original task by its variants (85 over 13 tasks) gives 0.65 on the fixture, and 0.66"
        " with other passing tasks, which nothing printed fixes; but that weighting turns SWE-Bench Pro's 0.91 into"
        " 0.90 on the fixture. ambiglib averages Table 3's baselines, as the caption says (model average)"),
    ("LHAW Table 13", "tac", None, None, "pass_at_k"): (INCONSISTENT,
        "Table 3's TAC pass@3 without the tool (31.8, 31.7, 33.8, 29.4, 31.8) average to 31.7, 0.32 not 0.30"),
    **{("LHAW Table 10", "tac", "GPT-5.2", f"default, {name}", col): (INCONSISTENT, CODEACT_ASK)
       for name, col in (("overall", "trial_ask_pct"), ("outcome-critical", "trial_ask_pct"), ("divergent", "trial_ask_pct"),
                         ("benign", "avg_per_traj"))},
    **{("LHAW Table 2", "mcp-atlas", model, segs, "pass_gain_pp"): (OURS,
       f"the paper's gain is the difference of its rounded rates ({why}); ambiglib subtracts the unrounded rates")
       for model, segs, why in (
           ("Gemini 3 Pro", "2 segments", "72.6 − 43.5 = 29.1; 45/62 − 27/62 = 18/62 = 29.03%, which prints 29.0"),
           ("Claude Sonnet 4.5", "2 segments", "67.7 − 35.5 = 32.2; 42/62 − 22/62 = 20/62 = 32.26%, which prints 32.3"),
           ("Gemini 3 Flash", "1 segments", "63.2 − 52.6 = 10.6; 24/38 − 20/38 = 4/38 = 10.53%, which prints 10.5"))},
    ("LHAW Table 5", "mcp-atlas", "Gemini 3 Pro", "all", "pass_gain_pp"): (INCONSISTENT, MCP_SPLIT),
    ("LHAW Table 5", "mcp-atlas", "Gemini 3 Pro", "input", "pass_gain_pp"): (INCONSISTENT,
        "a two-segment variant counts under both its dimensions, so the dimension gains add up to the one-segment"
        " gain plus twice the two-segment gain: Table 5's 14 + 20 + 20 + 0 = 54 variants, but Tables 2 and 3 give"
        " 8 (21.1% of 38) + 2 × 18 (26 − 8) = 44; one dimension cell must give (the fixture's input: 10 of 49)"),
    ("LHAW Table 6", "mcp-atlas", "Gemini 3 Pro", "all", "score_gain_pp"): (INCONSISTENT,
        "Table 6 prints a Ckpt gain of +25.2 over all variants, Table 3 +21.0 for the same runs (with Table 5's +31.0"
        " pass@3 gain, on the side of Tables 5 and 13: see their cells); the fixture follows Table 3"),
    ("LHAW Table 5", "tac", "Claude Opus 4.5", "all", "pass_gain_pp"): (INCONSISTENT,
        "Table 5's All is Table 3's row (the same 31.8 without the tool); Table 3 prints the gain as +7.1, Table 5"
        " as +7.0; the fixture follows Table 3 (27/85 to 33/85 = +7.06)"),
    ("LHAW Table 5", "tac", "Gemini 3 Pro", "all", "pass_gain_pp"): (INCONSISTENT,
        "Table 5's All is Table 3's row, whose +4.8 fits no counts with Table 8 (see LHAW Table 3, TAC Gemini 3 Pro);"
        " the fixture's +5.1 keeps Table 8, 31.7 and Table 13"),
    ("LHAW Table 6", "tac", "Claude Sonnet 4.5", "all", "score_gain_pp"): (INCONSISTENT,
        "Table 6's All is Table 3's row (the same Ckpt 53.4 without the tool); Table 3 prints the gain as +6.7,"
        " Table 6 as +6.6; the fixture follows Table 3"),
    ("LHAW Table 5", "tac", "Gemini 3 Pro", "goal", "pass_at_k"): (OURS,
        "rounded half up (the comparison's rule: Table 13 prints 72.5 as 0.73), 31.2% is k/n for no n below 77, and"
        " TAC has 51 goal variants (the one count that fits both Claude rows, with results on all 85 variants: 29.4"
        " (+11.8) and 29.4 (+9.8) are 15/51, +6 and +5); rounded half to even, 10/32 = 31.25 would print 31.2, but"
        " with the fixture's Gemini 3 Pro counts (results on 76 variants with the tool, so 42 to 51 goal variants)"
        " the +0.2 beside it then needs 31.40-31.50%, which no count gives; the fixture meets the gain"),
    **{("LHAW Table 5", "swe-bench-pro", model, "goal", "pass_at_k"): (INCONSISTENT,
       f"the goal shares (61.4, 64.3, 60.0, 57.1) fit one count of goal variants up to 100 only at 70 (every"
       f" variant has results under both conditions, Table 9); {value} of 70 is {k} passing, {70 - k} failing, but"
       f" the row's All ({all_}) leaves {100 - round(all_)} of the 100 variants failing, and a variant counts once"
       f" under a dimension")
       for model, value, k, all_ in (("Claude Sonnet 4.5", "64.3%", 45, 79.0), ("Gemini 3 Flash", "60.0%", 42, 73.0))},
    ("LHAW Table 6", "swe-bench-pro", "Claude Sonnet 4.5", "goal", "mean_score"): (INCONSISTENT,
        "with the tool, Table 3's 63.2 + 4.9 = 68.1 over 100 variants is 6,810 points and the goal column's"
        " 50.8 + 2.9 = 53.7 over its 70 variants 3,759 (at the ends of the rounding, 6,800 and 3,766), leaving the 30"
        " variants without a goal segment at least 3,034: 101.1% each; one of the goal Ckpt cells must give (the"
        " fixture keeps the gain)"),
    ("LHAW Table 10", "tac", "GPT-5.2", "react, overall", "avg_per_traj"): (INCONSISTENT,
        "the classes' Avg/Traj (2.2, 2.1, 1.8) over their asking trials (68%, 74%, 61% of the trials) average to"
        " at least 2.06, not 1.9"),
}


#: What ambiglib shows, at the printed precision, for each cell of KNOWN: the value its explanation works out (e.g.
#: 0.23 for Table 1's S_ambig, 229 for Table 11's n). A listed cell must keep this value, not merely differ from the
#: paper: a change to a definition that moves it fails here (issue 40).
KNOWN_SHOWN = {
    ('Ambig-DS Table 1', 'objective', 'Gemini 3 Flash', None, 's_ambig'): 0.23,
    ('Ambig-DS Table 1', 'objective', 'Gemini 3 Flash', None, 'delta_ambig'): -0.08,
    ('Ambig-DS Table 1', 'objective', 'Gemini 3 Flash', None, 'delta_ask'): 0.08,
    ('Ambig-DS Table 12', 'target', 'GPT-5.4 Nano', None, 'delta_ask_ci_high'): 0.1,
    ('Ambig-DS Table 2', 'target', 'Claude Haiku 4.5', 'Ambig.', 'intended'): 25.0,
    ('Ambig-DS Table 3', 'objective', 'GPT-5.4', 'Ambig.', 'timeout'): 3.0,
    ('Ambig-DS Table 3', 'objective', 'GPT-5.4', 'Ask', 'timeout'): 3.0,
    ('Ambig-DS Table 13', 'objective', 'Gemini 3 Flash', 'permissive', 'calib_score'): 0.09,
    ('Ambig-DS Table 13', 'objective', 'Gemini 3 Flash', 'conservative', 'calib_score'): 0.28,
    ('Ambig-DS Table 13', 'objective', 'GPT-5.4 Nano', 'permissive', 'ask_on_full'): 79.0,
    ('Ambig-DS Table 13', 'objective', 'GPT-5.4 Nano', 'permissive', 'calib_score'): 0.33,
    ('Ambig-DS Table 13', 'objective', 'Claude Haiku 4.5', 'conservative', 'ask_on_ambiguous'): 3.0,
    ('Ambig-DS Table 13', 'objective', 'Claude Haiku 4.5', 'conservative', 'calib_score'): 0.06,
    ('Ambig-DS Table 13', 'objective', 'Gemini 3.1 Pro', 'conservative', 'calib_score'): 0.83,
    ('Ambig-DS Table 13', 'target', 'Claude Haiku 4.5', 'conservative', 'calib_score'): 0.79,
    ('HIL-Bench Table 8', None, 'Claude Opus 4.6', 'sql', 'ask_f1'): 58.0,
    ('LHAW Table 12', 'mcp-atlas', 'Claude Sonnet 4.5', 'outcome-critical', 'base_pass_at_k'): 0.88,
    ('LHAW Table 12', 'mcp-atlas', 'Claude Sonnet 4.5', 'outcome-critical', 'pass_at_k'): 0.08,
    ('LHAW Table 12', 'mcp-atlas', 'Claude Sonnet 4.5', 'outcome-critical', 'pass_at_k_with_tool'): 0.64,
    ('LHAW Table 12', 'mcp-atlas', 'Gemini 3 Pro', 'outcome-critical', 'pass_at_k_with_tool'): 0.52,
    ('LHAW Table 12', 'mcp-atlas', 'Gemini 3 Flash', 'outcome-critical', 'base_pass_at_k'): 0.88,
    ('LHAW Table 12', 'mcp-atlas', 'Gemini 3 Flash', 'outcome-critical', 'pass_at_k'): 0.08,
    ('LHAW Table 12', 'mcp-atlas', 'Gemini 3 Flash', 'outcome-critical', 'pass_at_k_with_tool'): 0.52,
    ('LHAW Table 12', 'mcp-atlas', 'GPT-5.2', 'outcome-critical', 'pass_at_k_with_tool'): 0.76,
    ('LHAW Table 13', 'mcp-atlas', None, None, 'pass_at_k_with_tool'): 0.72,
    ('LHAW Table 2', 'mcp-atlas', 'Gemini 3 Pro', '2 segments', 'pass_gain_pp'): 29.0,
    ('LHAW Table 2', 'mcp-atlas', 'Claude Sonnet 4.5', '2 segments', 'pass_gain_pp'): 32.3,
    ('LHAW Table 2', 'mcp-atlas', 'Gemini 3 Flash', '1 segments', 'pass_gain_pp'): 10.5,
    ('LHAW Table 5', 'mcp-atlas', 'Gemini 3 Pro', 'all', 'pass_gain_pp'): 26.0,
    ('LHAW Table 5', 'mcp-atlas', 'Gemini 3 Pro', 'input', 'pass_gain_pp'): 20.4,
    ('LHAW Table 6', 'mcp-atlas', 'Gemini 3 Pro', 'all', 'score_gain_pp'): 21.0,
    ('LHAW Table 14', 'mcp-atlas', 'Claude Sonnet 4.5', 'supervisor', 'score_gain_pp_per_question'): 0.1,
    ('LHAW Table 3', 'tac', 'Gemini 3 Pro', 'default', 'pass_gain_pp'): 5.1,
    ('LHAW Table 3', 'tac', 'Gemini 3 Pro', 'default', 'pass_gain_pp_per_question'): 0.3,
    ('LHAW Table 3', 'tac', 'Gemini 3 Pro', 'default', 'score_gain_pp_per_question'): 0.13,
    ('LHAW Table 3', 'tac', 'Gemini 3 Flash', 'default', 'pass_gain_pp_per_question'): 0.11,
    ('LHAW Table 3', 'tac', 'Gemini 3 Flash', 'default', 'mean_score'): 40.9,
    ('LHAW Table 3', 'swe-bench-pro', 'Gemini 3 Flash', 'default', 'avg_per_traj'): None,
    ('LHAW Table 3', 'swe-bench-pro', 'Gemini 3 Flash', 'default', 'pass_gain_pp_per_question'): None,
    ('LHAW Table 3', 'swe-bench-pro', 'Gemini 3 Flash', 'default', 'score_gain_pp_per_question'): None,
    ('LHAW Table 8', 'tac', 'Gemini 3 Flash', 'divergent', 'base_pass_at_k'): 0.9,
    ('LHAW Table 8', 'tac', 'GPT-5.2', 'divergent', 'base_pass_at_k'): 0.8,
    ('LHAW Table 5', 'tac', 'Claude Opus 4.5', 'all', 'pass_gain_pp'): 7.1,
    ('LHAW Table 5', 'tac', 'Gemini 3 Pro', 'all', 'pass_gain_pp'): 5.1,
    ('LHAW Table 5', 'tac', 'Gemini 3 Pro', 'goal', 'pass_at_k'): 59.4,
    ('LHAW Table 5', 'swe-bench-pro', 'Claude Sonnet 4.5', 'goal', 'pass_at_k'): 71.4,
    ('LHAW Table 5', 'swe-bench-pro', 'Gemini 3 Flash', 'goal', 'pass_at_k'): 67.1,
    ('LHAW Table 6', 'tac', 'Claude Sonnet 4.5', 'all', 'score_gain_pp'): 6.7,
    ('LHAW Table 6', 'swe-bench-pro', 'Claude Sonnet 4.5', 'goal', 'mean_score'): 59.7,
    ('LHAW Table 13', 'tac', None, None, 'base_pass_at_k'): 0.6,
    ('LHAW Table 13', 'tac', None, None, 'pass_at_k'): 0.32,
    ('LHAW Table 10', 'tac', 'GPT-5.2', 'default, overall', 'trial_ask_pct'): 35.0,
    ('LHAW Table 10', 'tac', 'GPT-5.2', 'default, outcome-critical', 'trial_ask_pct'): 38.0,
    ('LHAW Table 10', 'tac', 'GPT-5.2', 'default, divergent', 'trial_ask_pct'): 21.0,
    ('LHAW Table 10', 'tac', 'GPT-5.2', 'default, benign', 'avg_per_traj'): 1.3,
    ('LHAW Table 10', 'tac', 'GPT-5.2', 'react, overall', 'avg_per_traj'): 2.1,
    ('LHAW Table 11', 'tac-candidates', 'Gemini 3 Flash', 'VAGUIFY', 'n_variants'): 229.0,
}


@pytest.fixture(scope="module")
def reproduced():
    rs = ambiglib.load(PAPER, quiet=True)

    def of(table: pd.DataFrame, benchmark: str) -> pd.DataFrame:
        """The paper's own rows: a table applies to every benchmark of the right shape (LHAW's runs
        also give Ambig-DS's Table 1, Ambig-DS's solve runs HIL-Bench's Ask-F1)."""
        return table[table["benchmark"] == benchmark]

    return {
        "perf": of(tables.performance(rs, n_boot=200), "ambig-ds").set_index(["suite", "model"]),
        # Table 12: the harness's 10,000 resamples (Ambig-DS C.9), as the paper parameters file asks
        "perf_ci": of(tables.performance(rs, n_boot=10_000), "ambig-ds").set_index(["suite", "model"]),
        "framing": of(tables.framing_categories(rs), "ambig-ds").set_index(["suite", "model", "condition"]),
        "conditional": of(tables.conditional_scores(rs), "ambig-ds").set_index(["suite", "model", "condition"]),
        "trace": of(tables.recognition_audit(rs, facet="trace"), "ambig-ds").set_index(["suite", "model", "condition"]),
        "answer": of(tables.recognition_audit(rs, facet="answer"), "ambig-ds").set_index(["suite", "model", "condition"]),
        "calibration": of(tables.ask_calibration(rs), "ambig-ds").set_index(["suite", "model", "policy"]),
        "over": of(tables.ask_diagnostics(rs, kind="over_ask"), "ambig-ds").set_index(["suite", "model"]),
        "under": of(tables.ask_diagnostics(rs, kind="under_ask"), "ambig-ds").set_index(["suite", "model"]),
        "gap": of(tables.judgment_gap(rs), "hil-bench").set_index(["suite", "model"]),
        "personas": of(tables.personas(rs), "lhaw").set_index(["suite", "model", "policy"]),
        "leaderboard": of(tables.leaderboard(rs), "hil-bench").set_index(["model", "scope"]),
        "questions": of(tables.questions_per_task(rs), "hil-bench").set_index(["suite", "model"]),
        "voi": of(tables.value_of_information(rs), "lhaw").set_index(["suite", "model", "policy"]),
        "classes": of(tables.by_ambiguity_class(rs), "lhaw").set_index(["suite", "model", "policy", "ambiguity_class"]),
        "generality": of(tables.generality(rs), "lhaw").set_index("suite"),
        "strategies": of(tables.prompting_strategies(rs), "lhaw").set_index(["suite", "model", "ambiguity_class", "policy"]),
        "composition": of(tables.composition(rs), "ambig-ds").set_index("suite"),
        "segments": of(tables.segments_removed(rs), "lhaw").set_index(["suite", "model", "policy", "segments"]),
        "dimensions": of(tables.by_dimension(rs), "lhaw").set_index(["suite", "model", "policy", "dimension"]),
        "flags": of(tables.ask_failure_modes(rs), "lhaw").set_index(["model", "policy"]),
        "flags_failed": of(tables.ask_failure_modes(rs, failed_only=True), "lhaw").set_index(["model", "policy"]),
        "distribution": of(tables.variant_distribution(rs), "lhaw").set_index("suite"),
        "calls": of(tables.calls_per_trial(rs), "lhaw").set_index(["suite", "model", "ambiguity_class", "policy"]),
        "judges": of(tables.judge_reliability(rs, facet="objective"), "ambig-ds").set_index(["diagnostic", "judge"]),
        "blockers": of(tables.blocker_stats(rs), "hil-bench").set_index("statistic"),
        "removal": of(tables.removal_strategies(ambiglib.load(CANDIDATES, quiet=True)), "lhaw")
        .set_index(["suite", "model", "strategy"]),
        **{f"failure.{dim}": of(tables.failure_modes(rs, dimension=dim, suite="sql"), "hil-bench")
           .set_index(["suite", "model", "mode"]) for dim in ("tool_use", "alignment", "logic")},
        "shift.tool_use": of(tables.failure_mode_shift(rs, dimension="tool_use", suite="sql"), "hil-bench")
        .set_index(["suite", "model"]),
        "suite_shift.tool_use": of(tables.failure_mode_shift(rs, dimension="tool_use", between="suite"), "hil-bench")
        .set_index(["model", "mode"]),
    }


def _value(t: dict, c: dict):
    table, col = c["table"], c["column"]
    c = {"suite": None, "model": None, **c}
    frame, key = {
        "Ambig-DS Table 1": ("perf", (c["suite"], c["model"])),
        "Ambig-DS Table 12": ("perf_ci", (c["suite"], c["model"])),
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
        "LHAW Table 8": ("classes", (c["suite"], c["model"], c.get("policy"), c.get("class"))),
        "LHAW Table 9": ("classes", (c["suite"], c["model"], c.get("policy"), c.get("class"))),
        "LHAW Table 12": ("classes", (c["suite"], c["model"], c.get("policy"), c.get("class"))),
        "LHAW Table 10": ("strategies", (c["suite"], c["model"], c.get("class"), c.get("policy"))),
        "LHAW Table 13": ("generality", c["suite"]),
        "Ambig-DS Table 5": ("composition", c["suite"]),
        "LHAW Table 2": ("segments", (c["suite"], c["model"], c.get("policy"), c.get("segments"))),
        "LHAW Table 4": ("flags", (c["model"], c.get("policy"))),
        "LHAW Table 17": ("flags_failed", (c["model"], c.get("policy"))),
        "LHAW Table 5": ("dimensions", (c["suite"], c["model"], c.get("policy"), c.get("class"))),
        "LHAW Table 6": ("dimensions", (c["suite"], c["model"], c.get("policy"), c.get("class"))),
        "LHAW Figure 3": ("distribution", c["suite"]),
        "LHAW Figure 6": ("calls", (c["suite"], c["model"], c.get("class"), c.get("policy"))),
        "Ambig-DS Table 9": ("judges", (c.get("row"), c.get("judge"))),
        "HIL-Bench Table 3": ("blockers", c.get("row")),
        "LHAW Table 11": ("removal", (c["suite"], c["model"], c.get("strategy"))),
        "HIL-Bench Table 4": (f"failure.{c.get('dimension')}", (c["suite"], c["model"], c.get("mode"))),
        "HIL-Bench Table 5": (f"failure.{c.get('dimension')}", (c["suite"], c["model"], c.get("mode"))),
        "HIL-Bench Table 6": (f"failure.{c.get('dimension')}", (c["suite"], c["model"], c.get("mode"))),
        "HIL-Bench §F.2.3": (f"failure.{c.get('dimension')}", (c["suite"], c["model"], c.get("mode"))),
        "HIL-Bench Figure 3B": (f"shift.{c.get('dimension')}", (c["suite"], c["model"])),
        "HIL-Bench Figure 6": (f"suite_shift.{c.get('dimension')}", (c["model"], c.get("mode"))),
    }[table]
    f = t[frame]
    if col not in f.columns:  # a label nobody received: share 0
        return 0.0
    v = f.loc[key, col]
    return None if v is None or (isinstance(v, float) and np.isnan(v)) else float(v)


def _key(c: dict) -> tuple:
    if c["table"] == "LHAW Table 10":  # a strategy and a class
        return c["table"], c.get("suite"), c.get("model"), f"{c['policy']}, {c['class']}", c["column"]
    if "segments" in c:  # LHAW Table 2
        return c["table"], c.get("suite"), c.get("model"), f"{c['segments']} segments", c["column"]
    if "row" in c:  # a diagnostic of Ambig-DS Table 9
        return c["table"], c.get("suite"), c.get("judge"), c["row"], c["column"]
    if "dimension" in c:  # a HIL-Bench capability dimension and condition
        return c["table"], c.get("suite"), c.get("model"), f"{c['dimension']}, {c.get('mode')}", c["column"]
    return (c["table"], c.get("suite"), c.get("model"),
            c.get("condition") or c.get("class") or c.get("policy") or c.get("scope") or c.get("strategy"), c["column"])


def _shown(v: float | None, c: dict) -> float | None:
    """The value as the paper would print it: rounded half up (LHAW Table 13: 69, 69, 79, 73 average to
    exactly 72.5 and print as 0.73), or truncated where the table truncates (LHAW Table 8: Table 10 prints
    the same GPT-5.2 cells 14/26 and 10/11 as 53.8 and 90.9, Table 8 as 0.53 and 0.90). The 1e-9 absorbs
    binary representation error (0.725 is stored as 0.72499999...)."""
    if v is None:
        return None
    v *= 100 if c.get("percent") else 1
    scale = 10 ** c["digits"]
    if c.get("rounding") == "floor":
        return math.floor(v * scale + 1e-9) / scale
    if c.get("rounding") == "p below 0.001 prints 0.001":  # Ambig-DS Table 1's 0.001*** (ambig_ds_statistics)
        return max(math.floor(v * scale + 0.5 + 1e-9) / scale, 0.001)
    return math.floor(v * scale + 0.5 + 1e-9) / scale


def test_every_printed_cell_is_reproduced_or_explained(reproduced):
    cells = json.loads((PAPER / "printed.json").read_text())
    assert len(cells) == 1599
    mismatched = {}
    for c in cells:
        v = _value(reproduced, c)
        shown = _shown(v, c)
        expected = c["value"]
        same = (shown is None) if expected is None else (shown is not None and abs(shown - expected) < 1e-9)
        if not same:
            mismatched[_key(c)] = (expected, shown)
    assert {kind for kind, _ in KNOWN.values()} <= {INCONSISTENT, OURS, UNDECIDED, UNREACHED}
    unexplained = {k: v for k, v in mismatched.items() if k not in KNOWN}
    assert not unexplained, f"cells that differ from the printed tables: {unexplained}"
    stale = set(KNOWN) - set(mismatched)
    assert not stale, f"KNOWN cells that now match (remove them): {stale}"
    assert set(KNOWN_SHOWN) == set(KNOWN)
    moved = {k: (KNOWN_SHOWN[k], shown) for k, (_, shown) in mismatched.items()
             if not (shown is None and KNOWN_SHOWN[k] is None)
             and (shown is None or KNOWN_SHOWN[k] is None or abs(shown - KNOWN_SHOWN[k]) > 1e-9)}
    assert not moved, f"listed cells whose value moved from what their explanation works out: {moved}"
    assert len(mismatched) < 0.05 * len(cells)


def _counts(cells: list[dict]) -> dict[str, dict[str, list[int]]]:
    """Per table, per kind ("fitted": the fixture sets or searches for the cell; "computed": it follows from other
    printed numbers, ``computed_from`` in printed.json): [cells, cells given back]."""
    out: dict[str, dict[str, list[int]]] = {}
    for c in cells:
        n = out.setdefault(c["table"], {"fitted": [0, 0], "computed": [0, 0]})["computed" if "computed_from" in c
                                                                                else "fitted"]
        n[0] += 1
        n[1] += _key(c) not in KNOWN
    return out


#: What each ``computed_from`` of printed.json exercises (issue 40): a **repeat** gives back a fitted cell of another
#: table the paper prints again; **arithmetic** is a sum, difference or average of fitted cells; a **formula** cell
#: follows from others by a metric's definition (CalibScore from the two ask rates, the pooled HIL-Bench Ask-F1 from
#: the per-domain counts): only these check a definition against the paper.
CONSISTENCY = {
    "Table 3's row (the All column and the baseline)": "repeat",
    "Tables 7-9's outcome-critical rows, which the paper repeats": "repeat",
    "Table 14's / Table 15's counts of the same runs": "repeat",
    "Table 1's S_full": "repeat",
    "Table 3's GPT-5.2 row (the CodeAct agent is the default one)": "repeat",
    "the difference of the row's fitted means": "arithmetic",
    "the table's counts per suite": "arithmetic",
    "the row's two fitted pass rates": "arithmetic",
    "the average over models of Table 3's row": "arithmetic",
    "the row's class counts (a candidate passes in a divergent or benign class)": "arithmetic",
    "Tables 4-6's fitted failure traces": "arithmetic",
    "two instances (full, ambiguous) per task": "arithmetic",
    "the row's two ask rates": "formula",
    "the SWE and SQL counts fitted to Tables 1 and 8": "formula",
}


def split(cells: list[dict]) -> dict[str, list[int]]:
    """Round trips (fitted cells) and the three kinds of consistency check: [cells, cells that agree] each."""
    out = {k: [0, 0] for k in ("round trip", "repeat", "arithmetic", "formula")}
    for c in cells:
        n = out[CONSISTENCY[c["computed_from"]] if "computed_from" in c else "round trip"]
        n[0] += 1
        n[1] += _key(c) not in KNOWN
    return out


def _of(n: list[int]) -> str:
    return f"{n[1]} of {n[0]}" if n[0] else "–"


def test_per_table_counts_match_the_reproduction_document(reproduced):
    """docs/reproduction.md counts the two kinds of cell apart, per table and in its headline (issue 32 §1):
    a fitted cell given back shows the arithmetic of the fit holds, a computed one that the paper's numbers and
    ambiglib's definitions agree."""
    cells = json.loads((PAPER / "printed.json").read_text())
    per_table = _counts(cells)
    doc = (Path(__file__).resolve().parents[1] / "docs" / "reproduction.md").read_text()
    for table, kinds in per_table.items():
        row = f"| {table} | {_of(kinds['fitted'])} | {_of(kinds['computed'])} |"
        assert row in doc, f"docs/reproduction.md is out of date for {table}: {row}"
    for kind in (INCONSISTENT, OURS, UNDECIDED, UNREACHED):
        n = sum(k == kind for k, _ in KNOWN.values())
        assert f"- **{kind}** ({n} cell{'s' if n != 1 else ''})" in doc, (kind, n)
    assert set(CONSISTENCY) == {c["computed_from"] for c in cells if "computed_from" in c}
    three = split(cells)
    line = (f"**Round trips: {three['round trip'][1]:,} of {three['round trip'][0]:,} fitted cells given back.**"
            f" **Consistency checks: {sum(v[1] for k, v in three.items() if k != 'round trip')} of"
            f" {sum(v[0] for k, v in three.items() if k != 'round trip')} computed cells agree: repeats"
            f" {_of(three['repeat'])}, arithmetic {_of(three['arithmetic'])}, formula cells {_of(three['formula'])}.**")
    assert line in doc, line


def test_the_paper_logs_are_what_the_script_writes(tmp_path, monkeypatch):
    import importlib.util

    spec = importlib.util.spec_from_file_location("mk", Path(__file__).resolve().parents[1] / "scripts" / "make_paper_fixtures.py")
    mk = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mk)
    assert mk.OUT == PAPER  # the script writes data/paper by default; here it writes tmp_path
    mk.main(tmp_path / "paper")
    for name in ("ambig-ds.jsonl", "hil-bench.jsonl", "lhaw.jsonl", "printed.json", "inferability_audit.csv"):
        assert (tmp_path / "paper" / name).read_bytes() == (PAPER / name).read_bytes(), name
    assert (tmp_path / "paper-candidates" / "lhaw.jsonl").read_bytes() == (CANDIDATES / "lhaw.jsonl").read_bytes()


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


def test_ambig_ds_tests_and_intervals_match_scipy_and_the_harness_resampling(reproduced):
    """Table 1's p-values and Table 12's intervals on data/paper, recomputed independently of ambiglib: one-sided
    scipy.stats.wilcoxon (Ambig-DS C.8: alternative="greater", zero_method="wilcox") and the harness's percentile
    bootstrap, (a − b)[rng.integers(0, n, (n_boot, n))].mean(axis=1) with seed 0 for Δ_ambig and 1 for Δ_ask,
    2.5th and 97.5th percentiles (C.9). The printed values themselves are cells of printed.json (compared in
    test_every_printed_cell_is_reproduced_or_explained); here, what the text says of all of them: every one of
    the 20 tests is significant at 0.05 (Table 1's stars, §5.2, §5.4) and every Δ_ambig interval, Target and
    Objective, excludes zero (§5.2, §5.3), at the paper's 10,000 resamples."""
    import scipy.stats as sps

    runs = ambiglib.load(PAPER, quiet=True).filter(benchmark="ambig-ds", protocol="solve").runs
    runs = runs[runs["status"] != "error"].astype({"suite": object, "model": object, "task_id": object})
    cond = np.where(runs["ask_tool"], "ask", np.where(runs["spec"] == "full", "full", "ambig"))
    per_task = runs.assign(cond=cond).pivot_table(index=["suite", "model", "task_id"], columns="cond",
                                                  values="score", aggfunc="mean").dropna()
    perf = reproduced["perf"]
    for (suite, model), g in per_task.groupby(level=["suite", "model"]):
        row = perf.loc[(suite, model)]
        full, ambig, ask = (g[c].to_numpy() for c in ("full", "ambig", "ask"))
        assert row["p_full_gt_ambig"] == pytest.approx(
            sps.wilcoxon(full - ambig, alternative="greater", zero_method="wilcox").pvalue, rel=1e-12)
        assert row["p_ask_gt_ambig"] == pytest.approx(
            sps.wilcoxon(ask - ambig, alternative="greater", zero_method="wilcox").pvalue, rel=1e-12)
        for (a, b), seed, col in (((ambig, full), 0, "delta_ambig"), ((ask, ambig), 1, "delta_ask")):
            idx = np.random.default_rng(seed).integers(0, len(a), size=(200, len(a)))
            low, high = np.quantile((a - b)[idx].mean(axis=1), [0.025, 0.975])
            assert (row[f"{col}_ci_low"], row[f"{col}_ci_high"]) == pytest.approx((low, high), abs=1e-12)
        paper = reproduced["perf_ci"].loc[(suite, model)]
        assert paper["delta_ambig_ci_high"] < 0, (suite, model)
        assert row["p_full_gt_ambig"] < 0.05 and row["p_ask_gt_ambig"] < 0.05, (suite, model)
