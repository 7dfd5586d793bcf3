"""LHAW (seed paper 003) on MCP-Atlas: variants, ambiguity classes, segments, dimensions and ask_user
trials whose tables give back Tables 2-9 and 16-17 as printed."""

from __future__ import annotations

import numpy as np

from .common import _box, _interval, passing_trials, shown, skewed

# Table 3, MCP-Atlas rows (100 tasks, 100 variants, 3 trials): baseline pass@3 %, baseline Ckpt %, Ask % (variants),
# Avg/Traj, pass@3 % without the tool, its gain, Gain/Q, Ckpt % without the tool, its gain, Gain/Q; and Table 4's N
# (trials with questions). The Table 3 text layer puts the TAC label on MCP-Atlas's fifth row (Gemini 3 Flash):
# its baseline 93 is k/100, and Table 7's classes sum to its pass@3 (4 + 20 + 20 = 44).
LHAW_TABLE3_MCP = {
    "Claude Opus 4.5": (100, 91.1, 73, 1.10, 47.0, 31.0, 0.15, 47.9, 23.1, 0.11, 188),
    "Gemini 3 Pro": (100, 90.2, 63, 1.06, 46.0, 26.0, 0.16, 46.1, 21.0, 0.13, 153),
    "GPT-5.2": (100, 84.7, 97, 1.73, 42.0, 32.0, 0.07, 39.7, 22.8, 0.05, 280),
    "Claude Sonnet 4.5": (87, 82.8, 73, 1.11, 39.0, 32.0, 0.17, 39.3, 23.3, 0.13, 167),
    "Gemini 3 Flash": (93, 85.6, 50, 1.05, 44.0, 21.0, 0.15, 44.9, 17.1, 0.12, 132),
}


LHAW_CLASSES = {"outcome-critical": 50, "divergent": 30, "benign": 20}


# Table 7: pass@3 by ambiguity class on MCP-Atlas: Base, Under. (no tool), +User
LHAW_TABLE7 = {
    "outcome-critical": {"Claude Opus 4.5": (1.00, 0.14, 0.70), "Claude Sonnet 4.5": (0.88, 0.08, 0.64),
                         "Gemini 3 Pro": (1.00, 0.08, 0.52), "Gemini 3 Flash": (0.88, 0.08, 0.52),
                         "GPT-5.2": (1.00, 0.14, 0.76)},
    "divergent": {"Claude Opus 4.5": (1.00, 0.73, 0.77), "Claude Sonnet 4.5": (0.83, 0.57, 0.70),
                  "Gemini 3 Pro": (1.00, 0.77, 0.87), "Gemini 3 Flash": (1.00, 0.67, 0.67), "GPT-5.2": (1.00, 0.53, 0.63)},
    "benign": {"Claude Opus 4.5": (1.00, 0.90, 1.00), "Claude Sonnet 4.5": (0.90, 0.90, 0.90),
               "Gemini 3 Pro": (1.00, 0.95, 1.00), "Gemini 3 Flash": (0.95, 1.00, 0.95), "GPT-5.2": (1.00, 0.95, 0.85)},
}


# Table 12: the outcome-critical MCP-Atlas rows again
LHAW_TABLE12_MCP = {"Claude Opus 4.5": (1.00, 0.14, 0.70), "Claude Sonnet 4.5": (0.87, 0.06, 0.58),
                    "Gemini 3 Pro": (1.00, 0.08, 0.62), "Gemini 3 Flash": (0.93, 0.10, 0.42), "GPT-5.2": (1.00, 0.14, 0.74)}


# Table 13: model averages on MCP-Atlas
LHAW_TABLE13_MCP = (0.96, 0.44, 0.73)


# Table 14: MCP-Atlas, Sonnet-4.5 (the "original" persona is Table 3's row): Ckpt% without the tool, gain, Qs, Gain%/Q
LHAW_TABLE14 = {"original": (39.3, 23.3, 186, 0.13), "supervisor": (39.3, 25.6, 266, 0.09),
                "standard": (39.3, 23.8, 241, 0.10), "executive": (39.3, 16.7, 124, 0.13)}


def _questions_total(n_ask: int, avg: float, gains: tuple[float, float], gpq: tuple[float, float],
                     prefer: int | None = None) -> int:
    """Total questions Q with Q / N_ask → Avg/Traj and each gain / Q → its printed Gain/Q."""
    fits = [q for q in range(n_ask, 4 * n_ask)
            if shown(q / n_ask, 2) == avg and all(shown(g / q, 2) == p for g, p in zip(gains, gpq))]
    if prefer in fits:
        return prefer
    return min(fits, key=lambda q: abs(q - n_ask * avg)) if fits else round(n_ask * avg)


def _asking_trials(rng, n_variants: int, n_asking_variants: int, n_trials: int) -> list[int]:
    """Asking trials per variant (0–3): n_asking_variants variants hold n_trials asking trials."""
    per = [1] * n_asking_variants + [0] * (n_variants - n_asking_variants)
    extra = n_trials - n_asking_variants
    order = list(rng.permutation(n_asking_variants))
    while extra > 0:
        for i in order:
            if extra and per[i] < 3:
                per[i] += 1
                extra -= 1
    return [per[i] for i in rng.permutation(n_variants)]


# Table 2 (MCP-Atlas): pass@3 % without the tool and its gain with it, by the number of removed segments
# (38 one-segment and 62 two-segment variants: 60.5 = 23/38, 38.7 = 24/62, summing to Table 3's 47).
LHAW_TABLE2 = {"Claude Opus 4.5": ((60.5, 13.2), (38.7, 41.9)), "Gemini 3 Pro": ((50.0, 21.1), (43.5, 29.1)),
               "GPT-5.2": ((44.7, 23.7), (40.3, 37.1)), "Claude Sonnet 4.5": ((44.7, 31.6), (35.5, 32.2)),
               "Gemini 3 Flash": ((52.6, 10.6), (38.7, 27.4))}


MCP_SEGMENTS = {1: 38, 2: 62}


# Tables 5 and 6, MCP-Atlas rows (the text layer prints the fifth, Gemini-3-Flash, under "TAC"): per information
# dimension, pass@3 % and Ckpt % without the tool and their gains. A two-segment variant counts under both its
# segments' dimensions (Figure 3: 162 dimension instances from 100 variants): goal 52, constraint 49, input 49,
# context 12 (42.3 = 22/52, 36.7 = 18/49, 91.7 = 11/12). "All" is Table 3's row, but for Gemini-3-Pro's pass@3
# gain (+31.0 here, +26.0 in Tables 3 and 7) and Ckpt gain (+25.2 here, +21.0 in Table 3).
DIMENSIONS = ("goal", "constraint", "input", "context")


MCP_DIMENSIONS = {"goal": 52, "constraint": 49, "input": 49, "context": 12}


LHAW_TABLE5_MCP = {  # model -> (All, goal, constraint, input, context), each (pass@3 %, gain)
    "Claude Opus 4.5": ((47.0, 31.0), (42.3, 30.8), (36.7, 40.8), (40.8, 42.9), (91.7, 0.0)),
    "Gemini 3 Pro": ((46.0, 31.0), (46.2, 26.9), (30.6, 40.8), (49.0, 40.8), (83.3, 0.0)),
    "GPT-5.2": ((42.0, 32.0), (48.1, 23.1), (32.7, 44.9), (34.7, 40.8), (75.0, 8.3)),
    "Claude Sonnet 4.5": ((39.0, 32.0), (34.6, 32.7), (34.7, 36.7), (34.7, 30.6), (75.0, 16.7)),
    "Gemini 3 Flash": ((44.0, 21.0), (42.3, 23.1), (32.7, 28.6), (38.8, 26.5), (91.7, -8.3)),
}


LHAW_TABLE6_MCP = {  # model -> (All, goal, constraint, input, context), each (Ckpt %, gain)
    "Claude Opus 4.5": ((47.9, 23.1), (44.0, 20.2), (41.5, 30.9), (39.9, 32.1), (84.9, 5.4)),
    "Gemini 3 Pro": ((46.1, 25.2), (49.6, 18.0), (35.9, 30.3), (41.3, 35.3), (82.8, -0.1)),
    "GPT-5.2": ((39.7, 22.8), (44.7, 13.6), (35.8, 22.4), (31.3, 39.9), (58.0, 6.9)),
    "Claude Sonnet 4.5": ((39.3, 23.3), (38.2, 21.0), (34.8, 29.0), (30.2, 29.3), (73.2, -1.4)),
    "Gemini 3 Flash": ((44.9, 17.1), (46.3, 19.3), (37.0, 19.8), (37.1, 22.7), (81.9, -2.6)),
}


# Tables 4 and 17: the share of asking trials (N: Table 3's trials with questions) and of failed asking trials (N)
# flagged in each ask_user failure category (LHAW Appendix J.1's seven categories, three flags each).
FLAG_CATEGORIES = {
    "question_quality": ("flag_vague_questions", "flag_compound_questions", "flag_closed_questions"),
    "question_targeting": ("flag_missed_critical_segments", "flag_wrong_dimension_focus",
                           "flag_inferable_information_asked"),
    "information_integration": ("flag_ignoring_user_response", "flag_incorrect_information_application",
                                "flag_partial_information_utilization"),
    "over_clarification": ("flag_redundant_questions", "flag_unnecessary_questions", "flag_excessive_cost"),
    "under_clarification": ("flag_premature_execution", "flag_insufficient_question_depth", "flag_false_confidence"),
    "timing_strategy": ("flag_late_clarification", "flag_upfront_question_dump", "flag_inefficient_question_sequence"),
    "response_misinterpretation": ("flag_literal_misunderstanding", "flag_context_misapplication",
                                   "flag_implicit_information_missed"),
}


LHAW_TABLE4 = {"Claude Opus 4.5": (188, (0.63, 0.39, 0.07, 0.15, 0.25, 0.02, 0.13)),
               "Claude Sonnet 4.5": (167, (0.77, 0.46, 0.10, 0.22, 0.25, 0.03, 0.22)),
               "Gemini 3 Flash": (132, (0.45, 0.35, 0.12, 0.08, 0.31, 0.00, 0.08)),
               "Gemini 3 Pro": (153, (0.52, 0.36, 0.11, 0.12, 0.27, 0.00, 0.12)),
               "GPT-5.2": (280, (0.97, 0.47, 0.15, 0.38, 0.21, 0.04, 0.30))}


LHAW_TABLE17 = {"Claude Opus 4.5": (50, (0.62, 0.68, 0.12, 0.30, 0.54, 0.06, 0.26)),
                "Claude Sonnet 4.5": (53, (0.81, 0.60, 0.06, 0.26, 0.45, 0.02, 0.26)),
                "Gemini 3 Flash": (32, (0.50, 0.56, 0.41, 0.16, 0.53, 0.00, 0.13)),
                "Gemini 3 Pro": (40, (0.63, 0.53, 0.35, 0.15, 0.50, 0.00, 0.23)),
                "GPT-5.2": (134, (0.98, 0.60, 0.22, 0.46, 0.36, 0.05, 0.37))}


# Figure 6 (Sonnet-4.5 on MCP-Atlas, ask_user calls per trial by class and persona): the text quotes outcome-critical
# x Supervisor 0.99 and benign x Executive 0.22. Per class (outcome-critical, divergent, benign: 150, 90 and 60
# trials), each persona's Table 14 questions split along that gradient.
FIGURE6_QUESTIONS = {"supervisor": (149, 72, 45), "standard": (125, 70, 46), "executive": (75, 36, 13)}


FIGURE6 = {("outcome-critical", "supervisor"): 0.99, ("benign", "executive"): 0.22}


def mcp_layout(rng: np.random.Generator) -> tuple[list[int], list[tuple[str, ...]]]:
    """Segments and dimensions of MCP-Atlas's 100 variants: 38 with one segment and 62 with two of different
    dimensions, the dimensions counted per segment adding up to Figure 3's 162 (Table 5's 52 / 49 / 49 / 12)."""
    while True:
        n_seg = [1] * MCP_SEGMENTS[1] + [2] * MCP_SEGMENTS[2]
        n_seg = [n_seg[i] for i in rng.permutation(100)]
        pool = [d for d, k in MCP_DIMENSIONS.items() for _ in range(k)]
        pool = [pool[i] for i in rng.permutation(len(pool))]
        dims, ok = [], True
        for k in n_seg:
            pick = []
            for _ in range(k):
                j = next((j for j, d in enumerate(pool) if d not in pick), None)
                if j is None:
                    ok = False
                    break
                pick.append(pool.pop(j))
            dims.append(tuple(sorted(pick, key=DIMENSIONS.index)))
        if ok and not pool:
            return n_seg, dims


def _mcp_cells(model: str, klass: list[str], n_seg: list[int], dims: list[tuple[str, ...]]):
    """The printed pass@3 cells one model's pass vectors must meet: (weight on u, weight on t, lo, hi) with u the
    variants passing without the tool, t with it; each is one printed cell (Tables 2, 3, 5, 7)."""
    cells = []
    u_t7 = {c: LHAW_TABLE7[c][model] for c in LHAW_CLASSES}
    for c, n in LHAW_CLASSES.items():  # Table 7: k/n at two decimals
        members = np.array([k == c for k in klass], dtype=float)
        for j, side in ((1, "u"), (2, "t")):
            rng_ = _interval(n, u_t7[c][j], 2, percent=False)
            cells.append((members if side == "u" else 0 * members, members if side == "t" else 0 * members, *rng_,
                          f"T7 {c} {side}"))
    groups = {"all": np.ones(100)}
    groups.update({f"seg{s}": np.array([k == s for k in n_seg], dtype=float) for s in MCP_SEGMENTS})
    groups.update({d: np.array([d in ds for ds in dims], dtype=float) for d in DIMENSIONS})
    printed = {"all": LHAW_TABLE5_MCP[model][0], **dict(zip(DIMENSIONS, LHAW_TABLE5_MCP[model][1:])),
               "seg1": LHAW_TABLE2[model][0], "seg2": LHAW_TABLE2[model][1]}
    row3 = LHAW_TABLE3_MCP[model]
    table3 = [("all", (row3[4], row3[5]))]  # Table 3's row (its gain differs from Table 5's for Gemini 3 Pro)
    for g, (value, gain) in [*printed.items(), *table3]:
        w = groups[g]
        n = int(w.sum())
        for wu, wt, bounds in ((w, 0 * w, _interval(n, value, 1)), (-w, w, _interval(n, gain, 1, signed=True))):
            if bounds is not None:  # a printed value that is no k/n can be met by no counts (the test lists it)
                cells.append((wu, wt, *bounds, f"{g}"))
    return cells


def mcp_passes(model: str, klass, n_seg, dims) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Which variants pass@3 without the tool (u) and with it (t): the most printed cells met, an integer program
    (scipy's milp). Returns u, t, the cells met and the cells in all."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    cells = _mcp_cells(model, klass, n_seg, dims)
    n, m = len(klass), len(cells)
    big = 2 * n + 1
    w = np.array([np.concatenate([c[0], c[1]]) for c in cells])
    lo = np.array([c[2] for c in cells], dtype=float)
    hi = np.array([c[3] for c in cells], dtype=float)
    eye = big * np.eye(m)
    # cell j met (y_j = 1) forces lo_j <= w_j . x <= hi_j; unmet, the bounds are out of reach
    cons = [LinearConstraint(np.hstack([w, -eye]), lo - big, np.inf),
            LinearConstraint(np.hstack([w, eye]), -np.inf, hi + big)]
    c = np.concatenate([np.zeros(2 * n), -np.ones(m)])
    res = milp(c, constraints=cons, integrality=np.ones(2 * n + m), bounds=Bounds(0, 1), options={"time_limit": 120})
    if res.x is None:
        raise RuntimeError(f"no pass vectors for {model}: {res.message}")
    x = np.round(res.x).astype(int)
    unmet = [c[4] for c, y in zip(cells, x[2 * n:]) if not y]
    return x[:n], x[n:2 * n], unmet, m


MCP_LAYOUT_SEED = 29  # of layout seeds 0-59, the first whose every model meets all Tables 2, 3, 5 and 7 cells but


def mcp_scores(rng: np.random.Generator, model: str, dims: list[tuple[str, ...]]) -> tuple[np.ndarray, np.ndarray]:
    """Per-variant mean checkpoint score without the tool and with it: Table 3's Ckpt and gain over all variants and
    Table 6's per dimension (a linear program, scipy's linprog), each variant as close as it can be to a skewed
    draw around the model's mean."""
    from scipy.optimize import linprog

    row3 = LHAW_TABLE3_MCP[model]
    n = len(dims)
    groups = [np.ones(n)] + [np.array([d in ds for ds in dims], dtype=float) for d in DIMENSIONS]
    printed = [(row3[7], row3[8]), *LHAW_TABLE6_MCP[model][1:]]  # Table 3's "All" (Table 6's differs for Gemini 3 Pro)
    a_ub, b_ub = [], []
    for g, (w, (value, gain)) in enumerate(zip(groups, printed)):
        w = w / w.sum()
        zero = np.zeros(n)
        # the overall values exactly: Table 14's Gain%/Q divide differences of them (0.56 - 0.393 = 16.7 pp)
        half = 0.001 if g == 0 else 0.045
        for coef, (lo, hi) in ((np.concatenate([w, zero]), _box(value, half)),
                               (np.concatenate([-w, w]), _box(gain, half))):
            a_ub += [np.concatenate([coef, np.zeros(4 * n)]), np.concatenate([-coef, np.zeros(4 * n)])]
            b_ub += [hi, -lo]
    target = np.concatenate([skewed(rng, n, row3[7] / 100), skewed(rng, n, (row3[7] + row3[8]) / 100)])
    # |m - target| through e+ and e-: m - target = e+ - e-
    a_eq = np.hstack([np.eye(2 * n), -np.eye(2 * n), np.eye(2 * n)])
    c = np.concatenate([np.zeros(2 * n), np.ones(4 * n)])
    res = linprog(c, A_ub=np.array(a_ub), b_ub=np.array(b_ub), A_eq=a_eq, b_eq=target,
                  bounds=[(0, 1)] * (2 * n) + [(0, None)] * (4 * n), method="highs")
    if res.x is None:
        raise RuntimeError(f"no checkpoint scores for {model}: {res.message}")
    return res.x[:n], res.x[n:2 * n]


def asking_and_passes(rng: np.random.Generator, asking: list[int], passes: np.ndarray, n_failed: int):
    """Which trials of each variant ask and which pass: ``asking[i]`` asking trials on variant i, variant i passing
    on some trial iff ``passes[i]``, and ``n_failed`` asking trials that fail (LHAW Table 17's N). Asking counts
    move between variants (the number of asking variants and trials kept) until the failed asking trials can be
    ``n_failed``."""
    asking = list(asking)
    n = len(asking)

    def forced() -> int:
        return sum(a for a, p in zip(asking, passes) if not p)

    def room() -> int:
        return sum((a if a < 3 else 2) for a, p in zip(asking, passes) if p)

    for _ in range(10_000):
        if forced() > n_failed:  # an asking failing variant trades its count with a passing one that asks less
            i = next(i for i in rng.permutation(n) if not passes[i] and asking[i])
            j = next((j for j in rng.permutation(n) if passes[j] and asking[j] < asking[i]), None)
        elif forced() + room() < n_failed:  # the other way round
            i = next(i for i in rng.permutation(n) if passes[i] and asking[i])
            j = next((j for j in rng.permutation(n) if not passes[j] and asking[j] < asking[i]), None)
        else:
            break
        if j is None:
            raise RuntimeError("asking trials cannot give the printed failed-trial count")
        asking[i], asking[j] = asking[j], asking[i]
    need = n_failed - forced()
    fail = [0] * n
    for i in rng.permutation(n):  # failing asking trials on passing variants, to make up the count
        if passes[i] and need:
            take = min(need, asking[i] if asking[i] < 3 else 2, int(rng.integers(0, 3)))
            fail[i], need = take, need - take
    for i in range(n):
        if passes[i] and need:
            take = min(need, (asking[i] if asking[i] < 3 else 2) - fail[i])
            fail[i], need = fail[i] + take, need - take
    ask_trials, pass_trials = {}, {}
    for i in range(n):
        trials = [int(t) for t in rng.permutation([1, 2, 3])]
        ask_trials[i] = set(trials[:asking[i]])
        if passes[i]:
            asked, quiet = trials[:asking[i]], trials[asking[i]:]
            ok = set(asked[fail[i]:])  # the asking trials that did not fail
            if not ok:  # some quiet trial passes, and maybe more
                ok = {quiet[0]} | {t for t in quiet[1:] if rng.random() < 0.5}
            else:
                ok |= {t for t in quiet if rng.random() < 0.5}
            pass_trials[i] = ok
    return ask_trials, pass_trials


def flag_labels(rng: np.random.Generator, model: str, asking: list[tuple[int, bool]]) -> dict[int, list[dict]]:
    """LHAW Tables 4 and 17's judge flags on the asking trials (index, failed): per category, as many flagged
    trials as the printed shares of all N asking trials and of the failed ones give, each through one to two of
    the category's flags (YES; its other flags NO). Compound questions and missed critical segments lead their
    categories (LHAW J.3)."""
    n4, shares4 = LHAW_TABLE4[model]
    n17, shares17 = LHAW_TABLE17[model]
    failed = [i for i, f in asking if f]
    passed = [i for i, f in asking if not f]
    assert len(asking) == n4 and len(failed) == n17, (model, len(asking), n4, len(failed), n17)
    out: dict[int, list[dict]] = {i: [] for i, _ in asking}
    for (category, flags), s4, s17 in zip(FLAG_CATEGORIES.items(), shares4, shares17):
        k4s = [k for k in range(n4 + 1) if shown(k / n4, 2) == s4]
        k17s = [k for k in range(n17 + 1) if shown(k / n17, 2) == s17]
        k4, k17 = next(((a, b) for a in k4s for b in k17s if 0 <= a - b <= len(passed)), (k4s[0], min(k17s[0], k4s[0])))
        hit = set(rng.choice(failed, k17, replace=False).tolist()) | \
            set(rng.choice(passed, k4 - k17, replace=False).tolist())
        lead = {"question_quality": "flag_compound_questions", "question_targeting": "flag_missed_critical_segments"}
        for i, _ in asking:
            yes = set()
            if i in hit:
                first = lead.get(category) if category in lead and rng.random() < 0.75 else str(rng.choice(flags))
                yes = {first} | ({str(rng.choice(flags))} if rng.random() < 0.3 else set())
            out[i] += [{"facet": f"lhaw.{category}.{flag}", "label": "YES" if flag in yes else "NO",
                        "judge": "lhaw-judge", "call": 1} for flag in flags]
    return out


def quiet_flags(rng: np.random.Generator) -> list[dict]:
    """The judge's flags on a trial that asked nothing: question-quality and most other flags are N/A (their
    prerequisite, a question, is not met), but it can have missed critical segments or executed prematurely.
    Tables 4 and 17 count only trials with questions."""
    out = []
    for category in ("question_targeting", "under_clarification"):
        for flag in FLAG_CATEGORIES[category]:
            label = ("YES" if rng.random() < 0.6 else "NO") if flag in ("flag_missed_critical_segments",
                                                                     "flag_premature_execution") else "N/A"
            out.append({"facet": f"lhaw.{category}.{flag}", "label": label, "judge": "lhaw-judge", "call": 1})
    return out


def lhaw(rng: np.random.Generator) -> list[dict]:
    """MCP-Atlas: Tables 2-7, 12-14 and 17, Figures 3 and 6 (the other suites are lhaw_more's)."""
    records = []
    klass = [name for name, n in LHAW_CLASSES.items() for _ in range(n)]
    variants = [(f"mcp-task-{i:03d}", f"mcp-task-{i:03d}_V1") for i in range(len(klass))]
    n_seg, dims = mcp_layout(np.random.default_rng([2026, 3, MCP_LAYOUT_SEED]))
    for (task, variant), k, ds in zip(variants, klass, dims):
        records.append({"record": "task", "benchmark": "lhaw", "suite": "mcp-atlas", "task_id": task,
                        "variant_id": variant, "blockers": [{"id": f"S{j + 1}", "type": d} for j, d in enumerate(ds)],
                        "dimensions": list(ds), "ambiguity_class": k})
    base = {"benchmark": "lhaw", "suite": "mcp-atlas"}

    def base_passing(values_by_class: dict[str, float]) -> list[int]:
        out, start = [], 0
        for name, n in LHAW_CLASSES.items():
            out += [start + int(j) for j in rng.permutation(n)[: round(values_by_class[name] * n)]]
            start += n
        return out

    sonnet_user_pass: dict[int, set[int]] = {}
    for model, row in LHAW_TABLE3_MCP.items():
        b_pass, b_ckpt, ask_pct, avg, under, gain, gpq_p, ckpt, ckpt_gain, gpq_c, n_ask = row
        base_pass = passing_trials(rng, base_passing({c: LHAW_TABLE7[c][model][0] for c in LHAW_CLASSES}))
        u, t, _, _ = mcp_passes(model, klass, n_seg, dims)
        under_pass = passing_trials(rng, np.flatnonzero(u))
        asking, user_pass = asking_and_passes(rng, _asking_trials(rng, 100, ask_pct, n_ask), t,
                                              LHAW_TABLE17[model][0])
        persona = "original" if model == "Claude Sonnet 4.5" else "default"
        if persona == "original":
            sonnet_user_pass = user_pass
        q_total = _questions_total(n_ask, avg, (gain, ckpt_gain), (gpq_p, gpq_c),
                                   prefer=LHAW_TABLE14["original"][2] if persona == "original" else None)
        q_per = [1] * n_ask
        for j in rng.integers(0, n_ask, q_total - n_ask):
            q_per[j] += 1
        q_iter = iter(q_per)
        m_u, m_t = mcp_scores(rng, model, dims)
        full = skewed(rng, 300, b_ckpt / 100)
        asking_trials = [(3 * i + trial - 1, trial not in user_pass.get(i, ())) for i in range(100)
                         for trial in (1, 2, 3) if trial in asking[i]]
        flags = flag_labels(rng, model, asking_trials)
        for i, (task, variant) in enumerate(variants):
            s_u, s_t = skewed(rng, 3, m_u[i]), skewed(rng, 3, m_t[i])
            for trial in (1, 2, 3):
                k = 3 * i + trial - 1
                records.append({**base, "task_id": task, "model": model, "spec": "full", "ask_tool": False,
                                "trial": trial, "score": round(full[k], 6), "passed": trial in base_pass.get(i, ())})
                records.append({**base, "task_id": task, "variant_id": variant, "model": model, "spec": "ambiguous",
                                "ask_tool": False, "trial": trial, "score": round(s_u[trial - 1], 6),
                                "passed": trial in under_pass.get(i, ())})
                rec = {**base, "task_id": task, "variant_id": variant, "model": model, "spec": "ambiguous",
                       "ask_tool": True, "policy": persona, "trial": trial, "score": round(s_t[trial - 1], 6),
                       "passed": trial in user_pass.get(i, ())}
                if trial in asking[i]:
                    rec["questions"] = [{"text": f"Question {q + 1}?", "response": "Answer."} for q in range(next(q_iter))]
                    rec["labels"] = flags[k]
                else:  # the judge sees quiet trials too: it can flag them for what they did not ask (J.1)
                    rec["labels"] = quiet_flags(rng)
                records.append(rec)
    # Table 14: the other personas of Sonnet-4.5, against the same no-tool runs. Table 14 gives only their
    # Ckpt and questions; their pass outcomes, unpublished, are taken to be the original persona's. Their
    # questions per class follow Figure 6's gradient (FIGURE6_QUESTIONS).
    for persona, (ckpt, gain, _n_q, _) in LHAW_TABLE14.items():
        if persona == "original":
            continue
        scores = skewed(rng, 300, (ckpt + gain) / 100)
        per_trial = np.zeros(300, int)
        for name, q in zip(LHAW_CLASSES, FIGURE6_QUESTIONS[persona]):
            trials = [3 * i + j for i in range(100) if klass[i] == name for j in range(3)]
            np.add.at(per_trial, rng.choice(trials, q, replace=True), 1)
        for i, (task, variant) in enumerate(variants):
            for trial in (1, 2, 3):
                k = 3 * i + trial - 1
                rec = {**base, "task_id": task, "variant_id": variant, "model": "Claude Sonnet 4.5",
                       "spec": "ambiguous", "ask_tool": True, "policy": persona, "trial": trial,
                       "score": round(scores[k], 6), "passed": trial in sonnet_user_pass.get(i, ())}
                if per_trial[k]:
                    rec["questions"] = [{"text": f"Question {q + 1}?", "response": "Answer."} for q in range(per_trial[k])]
                records.append(rec)
    return records


def lhaw_printed() -> list[dict]:
    cells = []
    for model, row in LHAW_TABLE3_MCP.items():
        b_pass, b_ckpt, ask_pct, avg, under, gain, gpq_p, ckpt, ckpt_gain, gpq_c, _ = row
        policy = "original" if model == "Claude Sonnet 4.5" else "default"
        for col, v, d, pct in (("base_pass_at_k", b_pass, 0, True), ("base_mean_score", b_ckpt, 1, True),
                               ("variant_ask_pct", ask_pct, 0, False), ("avg_per_traj", avg, 2, False),
                               ("pass_at_k", under, 1, True), ("pass_gain_pp", gain, 1, False),
                               ("pass_gain_pp_per_question", gpq_p, 2, False), ("mean_score", ckpt, 1, True),
                               ("score_gain_pp", ckpt_gain, 1, False), ("score_gain_pp_per_question", gpq_c, 2, False)):
            cells.append({"table": "LHAW Table 3", "suite": "mcp-atlas", "model": model, "policy": policy,
                          "column": col, "value": v, "digits": d, "percent": pct})
    for name, models in LHAW_TABLE7.items():
        for model, values in models.items():
            policy = "original" if model == "Claude Sonnet 4.5" else "default"
            for col, v in zip(("base_pass_at_k", "pass_at_k", "pass_at_k_with_tool"), values):
                cells.append({"table": "LHAW Table 7", "suite": "mcp-atlas", "model": model, "policy": policy,
                              "class": name, "column": col, "value": v, "digits": 2})
    for model, values in LHAW_TABLE12_MCP.items():
        policy = "original" if model == "Claude Sonnet 4.5" else "default"
        for col, v in zip(("base_pass_at_k", "pass_at_k", "pass_at_k_with_tool"), values):
            cells.append({"table": "LHAW Table 12", "suite": "mcp-atlas", "model": model, "policy": policy,
                          "class": "outcome-critical", "column": col, "value": v, "digits": 2})
    for col, v in zip(("base_pass_at_k", "pass_at_k", "pass_at_k_with_tool"), LHAW_TABLE13_MCP):
        cells.append({"table": "LHAW Table 13", "suite": "mcp-atlas", "column": col, "value": v, "digits": 2})
    for model, segs in LHAW_TABLE2.items():
        policy = "original" if model == "Claude Sonnet 4.5" else "default"
        for n_seg, (value, gain) in zip(MCP_SEGMENTS, segs):
            for col, v, pct in (("pass_at_k", value, True), ("pass_gain_pp", gain, False)):
                cells.append({"table": "LHAW Table 2", "suite": "mcp-atlas", "model": model, "policy": policy,
                              "segments": n_seg, "column": col, "value": v, "digits": 1, "percent": pct})
    for table, printed, cols in (("LHAW Table 5", LHAW_TABLE5_MCP, ("pass_at_k", "pass_gain_pp")),
                                 ("LHAW Table 6", LHAW_TABLE6_MCP, ("mean_score", "score_gain_pp"))):
        for model, rows in printed.items():
            policy = "original" if model == "Claude Sonnet 4.5" else "default"
            base = LHAW_TABLE3_MCP[model][0 if table == "LHAW Table 5" else 1]
            cells.append({"table": table, "suite": "mcp-atlas", "model": model, "policy": policy, "class": "all",
                          "column": "base_pass_at_k" if table == "LHAW Table 5" else "base_mean_score", "value": base,
                          "digits": 0 if table == "LHAW Table 5" else 1, "percent": True})
            for dim, (value, gain) in zip(("all", *DIMENSIONS), rows):
                for col, v, pct in zip(cols, (value, gain), (True, False)):
                    cells.append({"table": table, "suite": "mcp-atlas", "model": model, "policy": policy, "class": dim,
                                  "column": col, "value": v, "digits": 1, "percent": pct})
    for table, printed in (("LHAW Table 4", LHAW_TABLE4), ("LHAW Table 17", LHAW_TABLE17)):
        for model, (n, shares) in printed.items():
            policy = "original" if model == "Claude Sonnet 4.5" else "default"
            cells.append({"table": table, "model": model, "policy": policy, "column": "n_trials", "value": n,
                          "digits": 0})
            for category, v in zip(FLAG_CATEGORIES, shares):
                cells.append({"table": table, "model": model, "policy": policy, "column": category, "value": v,
                              "digits": 2})
    for (name, persona), v in FIGURE6.items():
        cells.append({"table": "LHAW Figure 6", "suite": "mcp-atlas", "model": "Claude Sonnet 4.5", "policy": persona,
                      "class": name, "column": "calls_per_trial", "value": v, "digits": 2})
    # Figure 3 as its text gives it (§3.4): variants and unique tasks per dataset, MCP-Atlas's share of
    # outcome-critical variants and its 162 dimension instances, and no context-type underspecification in TAC
    for suite, n_var, n_tasks in (("mcp-atlas", 100, 100), ("tac", 85, 13), ("swe-bench-pro", 100, 75)):
        for col, v in (("n_variants", n_var), ("n_tasks", n_tasks)):
            cells.append({"table": "LHAW Figure 3", "suite": suite, "column": col, "value": v, "digits": 0})
    cells += [{"table": "LHAW Figure 3", "suite": "mcp-atlas", "column": "outcome-critical", "value": 50, "digits": 0,
               "printed_as": "50% (of 100 variants)"},
              {"table": "LHAW Figure 3", "suite": "mcp-atlas", "column": "n_dimension_instances", "value": 162,
               "digits": 0},
              {"table": "LHAW Figure 3", "suite": "tac", "column": "context", "value": 0, "digits": 0}]
    for persona, (ckpt, gain, n_q, gpq) in LHAW_TABLE14.items():
        for col, v, d in (("mean_score", ckpt, 1), ("score_gain_pp", gain, 1), ("n_questions", n_q, 0),
                          ("score_gain_pp_per_question", gpq, 2)):
            cells.append({"table": "LHAW Table 14", "suite": "mcp-atlas", "model": "Claude Sonnet 4.5", "policy": persona,
                          "column": col, "value": v, "digits": d, "percent": col == "mean_score"})
    return cells
