"""LHAW on TheAgentCompany and SWE-Bench Pro: the printed cells the reconstruction meets (Tables 3, 5, 6,
8-10, 13), the variant layouts and the terminal states each plan chooses from."""

from __future__ import annotations

import itertools

#
# Table 3's TAC and SWE-Bench Pro rows as the text layer prints them, with the model names set right:
# the labels there are shifted by a row (Table 6 has the same baselines Ckpt under the right names, e.g.
# TAC Gemini-3-Pro 68.1, SWE-Bench Pro GPT-5.2 79.5). Baseline pass@3 %, Ckpt %, Ask % (variants),
# Avg/Traj, pass@3 % without the tool, its gain, Gain/Q, Ckpt % without the tool, its gain, Gain/Q.
LHAW_TABLE3_MORE = {
    "tac": {  # 13 tasks, 85 variants
        "Claude Opus 4.5": (61.5, 88.3, 48, 1.30, 31.8, 7.1, 0.08, 59.7, 8.1, 0.09),
        "Gemini 3 Pro": (53.8, 68.1, 18, 1.06, 31.7, 4.8, 0.24, 51.9, 2.2, 0.11),
        "GPT-5.2": (61.5, 82.4, 87, 1.81, 33.8, 6.5, 0.04, 66.0, 2.7, 0.02),
        "Claude Sonnet 4.5": (53.8, 77.3, 79, 1.18, 29.4, 5.9, 0.04, 53.4, 6.7, 0.04),
        "Gemini 3 Flash": (69.2, 87.5, 32, 1.09, 31.8, 4.2, 0.10, 31.8, -2.8, -0.07),
    },
    "swe-bench-pro": {  # 75 tasks, 100 variants
        "Gemini 3 Pro": (93.3, 70.4, 12, 1.89, 69.0, 4.0, 0.06, 47.8, 7.5, 0.11),
        "GPT-5.2": (88.0, 79.5, 81, 1.18, 69.0, 22.0, 0.08, 62.3, 8.1, 0.03),
        "Claude Sonnet 4.5": (96.0, 87.6, 11, 1.00, 79.0, 0.0, 0.00, 63.2, 4.9, 0.15),
        "Gemini 3 Flash": (86.7, 62.6, 0, 0.00, 73.0, -1.0, 0.00, 43.5, 7.0, 0.00),
    },
}


# Table 3 prints TAC Gemini 3 Flash's pass@3 (31.8) again in the Ckpt column; Table 6 gives its Ckpt as
# 40.9 (-2.8), which the fixture follows
TAC_FLASH_CKPT = 40.9


# Tables 8 (TAC: 40 / 30 / 15 variants) and 9 (SWE-Bench Pro: 31 / 34 / 35): pass@3 by class, Base, Under.,
# +User. Table 8's values are truncated, not rounded: Table 10 prints GPT-5.2's divergent and benign
# pass@3 as 53.8 (14/26) and 90.9 (10/11) where Table 8 has 0.53 and 0.90. Table 12 repeats both tables'
# outcome-critical rows.
LHAW_MORE_CLASSES = {"tac": {"outcome-critical": 40, "divergent": 30, "benign": 15},
                     "swe-bench-pro": {"outcome-critical": 31, "divergent": 34, "benign": 35}}


LHAW_TABLE8 = {
    "outcome-critical": {"Claude Opus 4.5": (0.54, 0.07, 0.20), "Claude Sonnet 4.5": (0.45, 0.02, 0.15),
                         "Gemini 3 Pro": (0.45, 0.15, 0.18), "Gemini 3 Flash": (0.63, 0.07, 0.19),
                         "GPT-5.2": (0.54, 0.05, 0.17)},
    "divergent": {"Claude Opus 4.5": (0.70, 0.43, 0.46), "Claude Sonnet 4.5": (0.60, 0.43, 0.43),
                  "Gemini 3 Pro": (0.60, 0.36, 0.43), "Gemini 3 Flash": (0.77, 0.36, 0.27),
                  "GPT-5.2": (0.66, 0.53, 0.50)},
    "benign": {"Claude Opus 4.5": (1.00, 0.73, 0.73), "Claude Sonnet 4.5": (1.00, 0.73, 0.73),
               "Gemini 3 Pro": (0.80, 0.77, 0.73), "Gemini 3 Flash": (1.00, 0.86, 0.80), "GPT-5.2": (1.00, 0.90, 1.00)},
}


LHAW_TABLE9 = {
    "outcome-critical": {"GPT-5.2": (0.72, 0.00, 0.71), "Claude Sonnet 4.5": (0.96, 0.45, 0.48),
                         "Gemini 3 Flash": (0.80, 0.39, 0.35), "Gemini 3 Pro": (0.84, 0.26, 0.52)},
    "divergent": {"GPT-5.2": (0.84, 1.00, 1.00), "Claude Sonnet 4.5": (0.94, 0.88, 0.85),
                  "Gemini 3 Flash": (0.88, 0.82, 0.91), "Gemini 3 Pro": (0.94, 0.88, 0.74)},
    "benign": {"GPT-5.2": (1.00, 1.00, 1.00), "Claude Sonnet 4.5": (0.97, 1.00, 1.00),
               "Gemini 3 Flash": (0.91, 0.94, 0.86), "Gemini 3 Pro": (0.97, 0.89, 0.91)},
}


# Table 13: model averages, TAC and SWE-Bench Pro
LHAW_TABLE13_MORE = {"tac": (0.66, 0.30, 0.37), "swe-bench-pro": (0.91, 0.73, 0.79)}


# Table 10 (GPT-5.2 on TAC): per class, pass@3 % without the tool, its gain, Ckpt %, its gain, %Ask (trials),
# Avg/Traj. CodeAct is the default agent: Table 3's GPT-5.2 row.
STRATEGIES = {"CodeAct (Original)": "default", "ReAct": "react", "Reflexion": "reflexion",
              "Plan & Execute": "plan-and-execute"}


LHAW_TABLE10 = {
    "default": {"overall": (33.8, 6.5, 66.0, 2.7, 73, 1.8), "outcome-critical": (5.0, 12.5, 52.8, 6.7, 74, 1.9),
                "divergent": (53.8, -3.8, 75.5, 1.1, 73, 2.1), "benign": (90.9, 9.1, 91.2, -7.8, 58, 1.7)},
    "react": {"overall": (28.4, 10.1, 62.5, 6.8, 69, 1.9), "outcome-critical": (5.3, 12.2, 53.1, 7.4, 68, 2.2),
              "divergent": (44.0, 7.9, 71.2, 4.8, 74, 2.1), "benign": (72.7, 9.1, 74.7, 9.3, 61, 1.8)},
    "reflexion": {"overall": (31.3, 8.7, 63.8, 7.4, 68, 2.1), "outcome-critical": (0.0, 17.9, 51.1, 13.4, 68, 2.3),
                  "divergent": (50.0, 2.0, 72.3, 2.0, 72, 2.2), "benign": (100.0, -9.1, 88.9, -1.0, 55, 1.6)},
    "plan-and-execute": {"overall": (31.3, 6.0, 62.7, 6.6, 80, 2.5),
                         "outcome-critical": (0.0, 18.4, 51.1, 12.0, 77, 2.5),
                         "divergent": (48.0, -5.7, 69.0, 4.6, 79, 2.6), "benign": (100.0, -9.1, 87.7, -7.4, 88, 2.3)},
}


# TAC: Table 8's Base is pass@3 over each class's distinct original tasks (truncated): 0.54 / 0.45 / 0.63 are
# 6, 5, 7 of 11 tasks; benign 0.80 is 4 of 5. Outcome-critical variants sit on tasks 0–10, divergent on
# 3–12, benign on 8–12. The failing original tasks per model give Table 3's Baseline (k/13) and Table 8's
# Base (divergent: only 10 tasks fit 0.70 / 0.60 / 0.60; Flash's 0.77 and GPT-5.2's 0.66 fit no task count).
TAC_LAYOUT = {"outcome-critical": [(t, 4 if t < 7 else 3) for t in range(11)],
              "divergent": [(t, 3) for t in range(3, 13)], "benign": [(t, 3) for t in range(8, 13)]}


TAC_BASE_FAILING = {"Claude Opus 4.5": {0, 1, 3, 4, 5}, "Claude Sonnet 4.5": {0, 1, 3, 4, 5, 6},
                    "Gemini 3 Pro": {0, 1, 3, 4, 5, 8}, "Gemini 3 Flash": {0, 1, 2, 3}, "GPT-5.2": {0, 1, 2, 3, 4}}


# SWE-Bench Pro: Table 9's Base fits only 25 outcome-critical and 32 divergent original tasks (0.72 / 0.96 /
# 0.80 / 0.84 are 18, 24, 20, 21 of 25; 0.84 / 0.94 / 0.88 are 27, 30, 28 of 32); benign 35. Tasks 0–24,
# 20–51 and 40–74 (75 in all), the 31st to 34th variants a second one on a task. Each model's failing
# original tasks give Table 3's Baseline (k/75) and Table 9's Base per class.
SWE_LAYOUT = {"outcome-critical": [(t, 2 if t < 6 else 1) for t in range(25)],
              "divergent": [(t, 2 if t in (25, 26) else 1) for t in range(20, 52)],
              "benign": [(t, 1) for t in range(40, 75)]}


SWE_BASE_FAILING = {"GPT-5.2": {0, 1, 2, 3, 20, 21, 22, 25, 30}, "Claude Sonnet 4.5": {7, 33, 45},
                    "Gemini 3 Flash": {4, 5, 8, 9, 23, 27, 28, 41, 60, 61}, "Gemini 3 Pro": {10, 11, 23, 24, 70}}


# Tables 5 and 6, TAC and SWE-Bench Pro rows: per information dimension, pass@3 % and Ckpt % without the tool, and
# their gains. The text layer prints TAC's Gemini-3-Flash and GPT-5.2 rows under "SWE-Bench Pro" (their Base and All
# are Table 3's TAC rows). "All" is Table 3's row, but for TAC Opus-4.5's pass@3 gain (+7.0 here, +7.1 in Table 3)
# and Sonnet-4.5's Ckpt gain (+6.6 here, +6.7 there).
LHAW_TABLE5_MORE = {  # suite -> model -> (All, goal, constraint, input[, context]), each (pass@3 %, gain)
    "tac": {"Claude Opus 4.5": ((31.8, 7.0), (29.4, 11.8), (50.0, 0.0), (27.9, 2.3)),
            "Claude Sonnet 4.5": ((29.4, 5.9), (29.4, 9.8), (44.4, 5.6), (25.6, 2.3)),
            "Gemini 3 Pro": ((31.7, 4.8), (31.2, 0.2), (33.3, 11.1), (32.5, 7.0)),
            "Gemini 3 Flash": ((31.8, 4.2), (33.3, 7.1), (38.9, 11.1), (32.6, -4.8)),
            "GPT-5.2": ((33.8, 6.5), (31.9, 10.6), (47.1, 0.0), (31.6, 0.0))},
    "swe-bench-pro": {"GPT-5.2": ((69.0, 22.0), (61.4, 25.7), (66.0, 26.0), (78.3, 17.4), (83.3, 16.7)),
                      "Claude Sonnet 4.5": ((79.0, 0.0), (64.3, 7.1), (82.0, -6.0), (91.3, -4.3), (91.7, 0.0)),
                      "Gemini 3 Flash": ((73.0, -1.0), (60.0, 0.0), (82.0, -8.0), (87.0, 0.0), (66.7, 16.7)),
                      "Gemini 3 Pro": ((69.0, 4.0), (57.1, 10.0), (70.0, -6.0), (78.3, 17.4), (83.3, 8.3))},
}


LHAW_TABLE6_MORE = {  # suite -> model -> (All, goal, constraint, input[, context]), each (Ckpt %, gain)
    "tac": {"Claude Opus 4.5": ((59.7, 8.1), (53.5, 11.7), (70.8, 6.4), (62.0, 4.8)),
            "Claude Sonnet 4.5": ((53.4, 6.6), (48.9, 10.0), (64.5, 7.4), (52.1, 5.1)),
            "Gemini 3 Pro": ((51.9, 2.2), (48.2, 2.2), (52.2, 1.5), (56.7, 1.3)),
            "Gemini 3 Flash": ((40.9, -2.8), (41.0, 0.8), (48.6, -7.1), (43.9, -8.0)),
            "GPT-5.2": ((66.0, 2.7), (61.9, 4.8), (72.7, -3.1), (67.0, 2.1))},
    "swe-bench-pro": {"GPT-5.2": ((62.3, 8.1), (50.0, 12.7), (65.5, 5.7), (72.5, 8.6), (75.0, 8.7)),
                      "Claude Sonnet 4.5": ((63.2, 4.9), (50.8, 2.9), (66.1, 2.9), (69.6, 13.6), (84.7, -7.6)),
                      "Gemini 3 Flash": ((43.5, 7.0), (32.9, 10.0), (49.8, 5.5), (56.4, 1.4), (41.0, 19.4)),
                      "Gemini 3 Pro": ((47.8, 7.5), (38.7, 8.7), (44.4, 11.1), (54.1, 11.5), (68.1, 6.2))},
}


# Dimension instances per suite (a two-segment variant counts under both its dimensions). SWE-Bench Pro, every
# variant with results under both conditions: goal 61.4 / 64.3 / 60.0 / 57.1 share one count <= 100 only at 70 (43,
# 45, 42, 40 passing); constraint 66.0 / 82.0 / 70.0 50; input 78.3 / 91.3 / 87.0 23; context 83.3 / 91.7 / 66.7 12
# (155 instances: 55 two-dimension variants). TAC, where both Claude rows have results on all 85 variants: goal 29.4
# (+11.8) and 29.4 (+9.8) fit 51 (15 passing, +6 and +5) and no other count; input 27.9 (+2.3) and 25.6 (+2.3) 43;
# constraint 50.0 (+0.0) and 44.4 (+5.6) 18, 36 or 54, of which 18 (112 instances: 27 two-dimension variants).
MORE_DIMENSIONS = {"tac": {"goal": 51, "constraint": 18, "input": 43},
                   "swe-bench-pro": {"goal": 70, "constraint": 50, "input": 23, "context": 12}}


# a variant's state under a condition: -1 no result (every trial failed), 0 no pass in three trials, 1 passed
STATES = tuple(itertools.product((-1, 0, 1), repeat=2))
