"""Reconstruct run logs from the papers' published aggregates: ``data/paper/``.

Each benchmark's runs are built so that ambiglib's tables, applied to them, give back
the printed numbers wherever the papers publish enough to fix them. The printed cells
are written beside the logs (``printed.json``, each with its table); ``tests/test_paper.py``
compares every reproduced cell at the printed precision, and ``docs/reproduction.md``
says what is reproduced and what cannot be.

    python scripts/make_paper_fixtures.py            # writes data/paper/ (deterministic)
    python scripts/make_paper_fixtures.py --solve    # re-derives MORE_PLANS (an integer program; minutes)
"""

from __future__ import annotations

import itertools
import json
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "data" / "paper"


def shown(x, digits: int = 0):
    """``x`` as the papers print it: rounded half up (LHAW Table 13 prints the exact 72.5 as 0.73), with
    1e-9 of slack for binary representation error; works on scalars and numpy arrays."""
    scale = 10.0 ** digits
    out = np.floor(np.asarray(x, dtype=float) * scale + 0.5 + 1e-9) / scale
    return float(out) if out.ndim == 0 else out

# ============================================================================= Ambig-DS (seed 000)

AMBIG_MODELS = ["Gemini 3 Flash", "GPT-5.4 Nano", "Claude Haiku 4.5", "Gemini 3.1 Pro", "GPT-5.4"]
N_TASKS = {"target": 51, "objective": 61}  # Ambig-DS abstract: 51 DSBench and 61 MLE-bench tasks

# Table 1: S_full, S_ambig, S_ask
TABLE1 = {
    ("objective", "Gemini 3 Flash"): (0.31, 0.22, 0.31), ("objective", "GPT-5.4 Nano"): (0.11, 0.05, 0.10),
    ("objective", "Claude Haiku 4.5"): (0.27, 0.23, 0.26), ("objective", "Gemini 3.1 Pro"): (0.27, 0.23, 0.27),
    ("objective", "GPT-5.4"): (0.26, 0.22, 0.26),
    ("target", "Gemini 3 Flash"): (0.63, 0.44, 0.61), ("target", "GPT-5.4 Nano"): (0.49, 0.39, 0.45),
    ("target", "Claude Haiku 4.5"): (0.56, 0.32, 0.52), ("target", "Gemini 3.1 Pro"): (0.64, 0.49, 0.60),
    ("target", "GPT-5.4"): (0.61, 0.32, 0.52),
}
# Tables 2 (target) and 3 (objective): category shares (%) under Ambig. and Ask
CATEGORIES = {
    "target": ("intended", "alternative", "invalid", "timeout"),
    "objective": ("intended", "alternative", "degenerate", "invalid", "timeout"),
}
TABLE2_3 = {  # model -> {condition: shares in CATEGORIES order}
    "target": {
        "Gemini 3 Flash": {"ambig": (43, 43, 6, 8), "ask": (96, 2, 0, 2)},
        "GPT-5.4 Nano": {"ambig": (47, 47, 4, 2), "ask": (78, 18, 2, 2)},
        "Claude Haiku 4.5": {"ambig": (26, 59, 8, 8), "ask": (88, 4, 4, 4)},
        "Gemini 3.1 Pro": {"ambig": (55, 39, 4, 2), "ask": (96, 4, 0, 0)},
        "GPT-5.4": {"ambig": (27, 63, 6, 4), "ask": (71, 24, 2, 4)},
    },
    "objective": {
        "Gemini 3 Flash": {"ambig": (75, 5, 11, 7, 2), "ask": (84, 0, 11, 2, 3)},
        "GPT-5.4 Nano": {"ambig": (38, 13, 49, 0, 0), "ask": (54, 0, 46, 0, 0)},
        "Claude Haiku 4.5": {"ambig": (54, 18, 21, 5, 2), "ask": (95, 0, 5, 0, 0)},
        "Gemini 3.1 Pro": {"ambig": (51, 13, 33, 2, 2), "ask": (59, 3, 33, 3, 2)},
        "GPT-5.4": {"ambig": (72, 11, 8, 5, 4), "ask": (79, 0, 11, 7, 4)},
    },
}
# Table 11: mean score given the category, (Ambig., Ask); None = no run ("–")
TABLE11 = {
    "target": {
        "Gemini 3 Flash": {"intended": (0.85, 0.63), "alternative": (0.17, 0.25)},
        "GPT-5.4 Nano": {"intended": (0.70, 0.55), "alternative": (0.13, 0.12)},
        "Claude Haiku 4.5": {"intended": (0.85, 0.58), "alternative": (0.17, 0.10)},
        "Gemini 3.1 Pro": {"intended": (0.80, 0.62), "alternative": (0.13, 0.13)},
        "GPT-5.4": {"intended": (0.85, 0.70), "alternative": (0.14, 0.15)},
    },
    "objective": {
        "Gemini 3 Flash": {"intended": (0.30, 0.37), "alternative": (0.10, None), "degenerate": (0.00, 0.00)},
        "GPT-5.4 Nano": {"intended": (0.13, 0.19), "alternative": (0.00, None), "degenerate": (0.00, 0.00)},
        "Claude Haiku 4.5": {"intended": (0.40, 0.27), "alternative": (0.10, None), "degenerate": (0.00, 0.00)},
        "Gemini 3.1 Pro": {"intended": (0.40, 0.45), "alternative": (0.20, 0.15), "degenerate": (0.00, 0.00)},
        "GPT-5.4": {"intended": (0.30, 0.33), "alternative": (0.05, None), "degenerate": (0.00, 0.00)},
    },
}
# Table 10: Trace (explicit, hedged, silent) and Answer (overridable, named, self-evident), %
TABLE10 = {
    ("target", "Gemini 3 Flash"): ((64, 25, 11), (0, 75, 25)), ("target", "GPT-5.4 Nano"): ((0, 52, 48), (0, 50, 50)),
    ("target", "Claude Haiku 4.5"): ((2, 44, 54), (0, 12, 88)), ("target", "Gemini 3.1 Pro"): ((42, 46, 12), (0, 56, 44)),
    ("target", "GPT-5.4"): ((30, 28, 41), (4, 65, 30)),
    ("objective", "Gemini 3 Flash"): ((0, 9, 91), (0, 0, 100)), ("objective", "GPT-5.4 Nano"): ((0, 0, 100), (0, 0, 100)),
    ("objective", "Claude Haiku 4.5"): ((0, 0, 100), (0, 0, 100)), ("objective", "Gemini 3.1 Pro"): ((0, 0, 100), (0, 0, 100)),
    ("objective", "GPT-5.4"): ((0, 0, 100), (0, 18, 82)),
}
TRACE = ("explicit", "hedged", "silent")
ANSWER = ("overridable", "named", "self-evident")
# Table 13: (ask on ambiguous %, ask on full %, CalibScore) per policy
TABLE13 = {
    ("objective", "Gemini 3 Flash"): ((95, 95, 0.10), (16, 5, 0.27)), ("objective", "GPT-5.4 Nano"): ((79, 87, 0.22), (0, 5, 0.00)),
    ("objective", "Claude Haiku 4.5"): ((100, 100, 0.00), (5, 5, 0.10)), ("objective", "Gemini 3.1 Pro"): ((100, 33, 0.80), (70, 0, 0.82)),
    ("objective", "GPT-5.4"): ((100, 87, 0.23), (0, 0, 0.00)),
    ("target", "Gemini 3 Flash"): ((98, 88, 0.21), (96, 2, 0.97)), ("target", "GPT-5.4 Nano"): ((100, 98, 0.04), (51, 8, 0.66)),
    ("target", "Claude Haiku 4.5"): ((100, 100, 0.00), (67, 2, 0.80)), ("target", "Gemini 3.1 Pro"): ((98, 51, 0.65), (94, 0, 0.97)),
    ("target", "GPT-5.4"): ((94, 65, 0.51), (33, 4, 0.49)),
}
# Table 14: full tasks, permissive: Correct (silent), Correct (real gap), Style fishing, Restating obvious, Out-of-scope
TABLE14 = {
    ("target", "Gemini 3 Flash"): (12, 2, 14, 6, 67), ("objective", "Gemini 3 Flash"): (5, 3, 3, 3, 85),
    ("target", "GPT-5.4 Nano"): (2, 0, 61, 10, 27), ("objective", "GPT-5.4 Nano"): (21, 0, 41, 17, 21),
    ("target", "Claude Haiku 4.5"): (0, 0, 88, 4, 8), ("objective", "Claude Haiku 4.5"): (0, 0, 62, 5, 33),
    ("target", "Gemini 3.1 Pro"): (49, 6, 10, 2, 33), ("objective", "Gemini 3.1 Pro"): (67, 0, 5, 3, 25),
    ("target", "GPT-5.4"): (35, 0, 51, 8, 6), ("objective", "GPT-5.4"): (13, 0, 62, 0, 25),
}
OVER_ASK = ("correct_silent", "real_gap", "style_fishing", "restating_obvious", "out_of_scope")
# Table 15: ambiguous tasks, conservative: Correct (asked), Silently defaulted, Asked wrong topic
TABLE15 = {
    ("target", "Gemini 3 Flash"): (96, 4, 0), ("objective", "Gemini 3 Flash"): (8, 84, 8),
    ("target", "GPT-5.4 Nano"): (49, 49, 2), ("objective", "GPT-5.4 Nano"): (0, 100, 0),
    ("target", "Claude Haiku 4.5"): (67, 33, 0), ("objective", "Claude Haiku 4.5"): (3, 97, 0),
    ("target", "Gemini 3.1 Pro"): (94, 6, 0), ("objective", "Gemini 3.1 Pro"): (70, 30, 0),
    ("target", "GPT-5.4"): (33, 67, 0), ("objective", "GPT-5.4"): (0, 100, 0),
}
UNDER_ASK = ("correct_asked", "silently_defaulted", "wrong_topic")


def allocate(percent, n: int) -> list[int]:
    """Counts out of n for printed percentages (largest remainder, summing to n)."""
    raw = np.asarray(percent, dtype=float) / 100 * n
    counts = np.floor(raw).astype(int)
    for i in np.argsort(-(raw - counts), kind="stable")[: n - counts.sum()]:
        counts[i] += 1
    return counts.tolist()


def skewed(rng: np.random.Generator, n: int, mean: float, concentration: float = 2.5) -> list[float]:
    """n scores in [0, 1] whose mean is exactly ``mean``, drawn from a Beta distribution with that mean:
    skewed (right of the mode below 0.5, left above), so a median or a trimmed mean would differ from the
    mean, as in real score distributions (a few high scores among many low ones)."""
    if n == 0:
        return []
    if mean <= 0 or mean >= 1:
        return [float(min(max(mean, 0.0), 1.0))] * n
    x = rng.beta(mean * concentration, (1 - mean) * concentration, n)
    for _ in range(200):  # shift to the exact mean, keeping [0, 1]
        x = np.clip(x + (mean - x.mean()), 0.0, 1.0)
        if abs(x.mean() - mean) < 1e-13:
            break
    inner = (x > 1e-6) & (x < 1 - 1e-6)
    x[np.argmax(inner)] += n * mean - x.sum()  # the last rounding error, on a value inside (0, 1)
    return [float(v) for v in x]


def by_ease(rng: np.random.Generator, tasks: list[int], scores: list[float], ease: np.ndarray,
            noise: float = 0.7) -> list[tuple[int, float]]:
    """Pair scores with tasks, the higher scores with the easier tasks (``ease`` plus noise), in task order."""
    ranked = sorted(tasks, key=lambda i: -(ease[i] + noise * rng.normal()))
    pairs = dict(zip(ranked, sorted(scores, reverse=True)))
    return [(i, pairs[i]) for i in tasks]


def passing_trials(rng: np.random.Generator, units, n_trials: int = 3) -> dict[int, set[int]]:
    """The passing trials of each unit that passes at all: the first on any trial (a success on trial 2 or 3
    only is common in real runs), each later one again with probability one half."""
    out = {}
    for u in units:
        first = int(rng.integers(1, n_trials + 1))
        out[int(u)] = {first} | {t for t in range(first + 1, n_trials + 1) if rng.random() < 0.5}
    return out


def votes(rng: np.random.Generator, label: str, pool, n_calls: int = 5, unanimous: float | None = None) -> list[str]:
    """``n_calls`` judge calls whose strict majority is ``label``: a bare majority to all of them agree (all of
    them with probability ``unanimous``, if given), the others pick another label of ``pool``, and the
    agreeing calls sit anywhere (the first call is often a minority, as in a real panel)."""
    if unanimous is not None and rng.random() < unanimous:
        agree = n_calls
    else:
        agree = int(rng.integers(n_calls // 2 + 1, n_calls + (0 if unanimous is not None else 1)))
    others = [x for x in pool if x != label]
    dissent = [str(rng.choice(others)) for _ in range(n_calls - agree)] if others else []
    calls = [label] * (n_calls - len(dissent)) + dissent
    if dissent and len(set(dissent)) == 1 and len(dissent) >= n_calls - len(dissent):  # never a tie or a flip
        calls = [label] * n_calls
    return [calls[i] for i in rng.permutation(n_calls)]


def _solve_means(counts: dict[str, int], printed: dict[str, float | None], target_s: float, n: int) -> dict[str, float]:
    """Conditional means inside their rounding boxes (±0.0049) that bring the cell mean as close to
    Table 1's printed S as they can (so the deltas between conditions come out as printed too)."""
    means = {c: (printed[c] if printed.get(c) is not None else 0.0) for c in counts}
    movable = [c for c in counts if counts[c] and printed.get(c) is not None and c not in ("invalid", "timeout")
               and printed[c] > 0]
    weight = sum(counts[c] for c in movable)
    if weight:
        s = sum(counts[c] * means[c] for c in counts) / n
        step = max(-0.0049, min(0.0049, (target_s - s) * n / weight))
        for c in movable:
            means[c] = min(1.0, max(0.0, means[c] + step))
    return means


def fit_counts(percent, n: int, digits: int = 0) -> list[int] | None:
    """Counts out of n, summing to n, each of which prints (half up) as its percentage; None if none do."""
    options = [[k for k in range(n + 1) if shown(100 * k / n, digits) == p] for p in percent]
    for combo in itertools.product(*options):
        if sum(combo) == n:
            return list(combo)
    return None


def _judged(n_ok: int, *shares) -> tuple[int, list[list[int]]]:
    """How many runs were judged, and each facet's counts: the largest count up to n_ok at which every
    printed share of every facet is k/n (half up).

    The recognition audit scores only substantive runs, "after dropping API errors, timeouts,
    and empty traces" (Ambig-DS C.5), so its denominator can be below the cell's non-timeout runs.
    """
    for n in range(n_ok, max(n_ok // 2, 1), -1):
        counts = [fit_counts(group, n) for group in shares]
        if all(c is not None for c in counts):
            return n, counts
    raise ValueError(f"no number of judged runs up to {n_ok} gives the printed shares {shares}")


def ambig_ds(rng: np.random.Generator) -> list[dict]:
    records = []
    for suite, n in N_TASKS.items():
        tasks = [f"{suite}-task-{i:02d}" for i in range(n)]
        for t in tasks:
            blocker = "target" if suite == "target" else "metric"
            records.append({"record": "task", "benchmark": "ambig-ds", "suite": suite, "task_id": t,
                            "blockers": [{"id": blocker, "type": blocker}]})
        ease = rng.normal(size=n)  # per task, shared by every model and condition
        for model in AMBIG_MODELS:
            s_full, s_ambig, s_ask = TABLE1[(suite, model)]
            base = {"benchmark": "ambig-ds", "suite": suite, "model": model}
            # Full: every task, scored around S_full (no category is published for Full); a task's scores
            # follow its ease in every condition, as real per-task scores do (so paired tests have power)
            for i, score in by_ease(rng, list(range(n)), skewed(rng, n, s_full), ease):
                records.append({**base, "task_id": tasks[i], "spec": "full", "ask_tool": False,
                                "score": round(score, 6)})
            for cond, s_target, idx in (("ambig", s_ambig, 0), ("ask", s_ask, 1)):
                cats = CATEGORIES[suite]
                counts = dict(zip(cats, allocate(TABLE2_3[suite][model][cond], n)))
                printed = {c: (TABLE11[suite][model].get(c, (None, None))[idx]) for c in cats}
                means = _solve_means(counts, printed, s_target, n)
                order = rng.permutation(n)
                pos = 0
                judged = None
                if cond == "ambig":  # Table 10 judges the substantive Ambig. runs: all but timeouts (C.5)
                    n_ok = n - counts["timeout"]
                    t_lab, a_lab = TABLE10[(suite, model)]
                    n_judged, (t_k, a_k) = _judged(n_ok, t_lab, a_lab)
                    trace = [lab for lab, k in zip(TRACE, t_k) for _ in range(k)]
                    answer = [lab for lab, k in zip(ANSWER, a_k) for _ in range(k)]
                    rng.shuffle(trace)
                    rng.shuffle(answer)
                    judged = list(zip(trace, answer)) + [(None, None)] * (n_ok - n_judged)  # empty traces: not judged
                    judged = [judged[i] for i in rng.permutation(len(judged))]
                ok_i = 0
                for cat in cats:
                    scores = skewed(rng, counts[cat], means[cat]) if cat not in ("invalid", "timeout") else [0.0] * counts[cat]
                    cell = [int(i) for i in order[pos:pos + len(scores)]]
                    pos += len(scores)
                    for i, score in by_ease(rng, cell, scores, ease):
                        t = tasks[i]
                        status = cat if cat in ("invalid", "timeout") else "ok"
                        rec = {**base, "task_id": t, "spec": "ambiguous", "ask_tool": cond == "ask",
                               "policy": "permissive" if cond == "ask" else "default", "status": status,
                               "score": round(score, 6), "category": cat}
                        if cond == "ask" and rng.random() < TABLE13[(suite, model)][0][0] / 100:
                            # one to three questions: the framing, then follow-ups (about it or out of scope)
                            blocker = "target" if suite == "target" else "metric"
                            rec["questions"] = [{"text": "Which framing should the submission use?",
                                                 "blocker_id": blocker, "response": "The intended one.",
                                                 "in_scope": True}]
                            for j in range(int(rng.integers(0, 3))):
                                follow = bool(rng.random() < 0.5)
                                rec["questions"].append(
                                    {"text": f"Follow-up question {j + 1}?", "blocker_id": blocker if follow else None,
                                     "response": "The intended one." if follow else "Out of scope.", "in_scope": follow})
                        if judged is not None and status != "timeout":
                            t_label, a_label = judged[ok_i]
                            ok_i += 1
                            if t_label is not None:
                                rec["labels"] = [
                                    {"facet": facet, "label": vote, "judge": "claude", "call": c}
                                    for facet, lab, pool in (("trace", t_label, TRACE), ("answer", a_label, ANSWER))
                                    for c, vote in enumerate(votes(rng, lab, pool), start=1)]
                        records.append(rec)
            # ask-only runs: Table 13's four cells; Tables 14/15 judge them
            for p_i, policy in enumerate(("permissive", "conservative")):
                amb_pct, full_pct, _ = TABLE13[(suite, model)][p_i]
                for spec, pct in (("ambiguous", amb_pct), ("full", full_pct)):
                    asked = set(rng.permutation(n)[: allocate([pct, 100 - pct], n)[0]].tolist())
                    labels = None
                    if spec == "full" and policy == "permissive":
                        shares = TABLE14[(suite, model)]
                        k = allocate(shares, n)  # over all the full tasks: "correct (silent)" did not ask
                        labels = [lab for lab, c in zip(OVER_ASK[1:], k[1:]) for _ in range(c)]
                        asked = set(rng.permutation(n)[: sum(k[1:])].tolist())
                        facet = "over_ask"
                    elif spec == "ambiguous" and policy == "conservative":
                        k = allocate(TABLE15[(suite, model)], n)
                        labels = ["correct_asked"] * k[0] + ["wrong_topic"] * k[2]
                        asked = set(rng.permutation(n)[: k[0] + k[2]].tolist())
                        facet = "under_ask"
                    if labels is not None:
                        rng.shuffle(labels)
                    li = 0
                    for i, t in enumerate(tasks):
                        rec = {**base, "task_id": t, "spec": spec, "ask_tool": True, "policy": policy,
                               "protocol": "ask_only"}
                        if i in asked:  # one to three questions in the asking run
                            rec["questions"] = [{"text": f"Could you clarify the task framing ({j + 1})?",
                                                 "in_scope": True} for j in range(int(rng.integers(1, 4)))]
                            if labels is not None:
                                pool = OVER_ASK[1:] if facet == "over_ask" else ("correct_asked", "wrong_topic")
                                rec["labels"] = [{"facet": facet, "label": vote, "judge": "claude", "call": c}
                                                 for c, vote in enumerate(votes(rng, labels[li], pool), start=1)]
                                li += 1
                        records.append(rec)
    objective_judges(rng, [r for r in records if r.get("suite") == "objective" and r.get("spec") == "ambiguous"
                           and r.get("protocol", "solve") == "solve" and "category" in r])
    return records


# Table 9 (Appendix C.4), on the Ambig-DS-Objective runs (5 models x 61 tasks x Ambig. and Ask = 610): Fleiss'
# kappa over the five Claude judge calls (four-class label space), the human override rate, and Cohen's kappa
# between the Claude-majority and GPT-5.4-majority labels. The Claude-Haiku oracle shifts are lost in the text.
TABLE9 = {"fleiss": 0.78, "override_pct": 5.9, "cohen": 0.74}
OBJECTIVE_LABELS = ("intended", "alternative", "degenerate", "invalid")


def _statsmodels_fleiss(calls: list[list[str]]) -> float:
    import warnings

    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    warnings.filterwarnings("ignore", category=RuntimeWarning, module="statsmodels")  # its kappa's variance

    table, _ = aggregate_raters(np.array(calls, dtype=object))
    return float(fleiss_kappa(table))


def _statsmodels_cohen(a: list[str], b: list[str]) -> float:
    from statsmodels.stats.inter_rater import cohens_kappa

    index = {lab: i for i, lab in enumerate(OBJECTIVE_LABELS)}
    table = np.zeros((4, 4))
    for x, y in zip(a, b):
        table[index[x], index[y]] += 1
    return float(cohens_kappa(table).kappa)


def objective_judges(rng: np.random.Generator, runs: list[dict]) -> None:
    """Table 9's judge panel on the objective runs: five Claude calls and five GPT-5.4 calls (facet
    ``objective``), fitted with statsmodels' kappas. The Claude majority is the run's final category except on
    the human overrides (5.9% of 610 = 36 runs); a failed run's category (invalid or timeout) is the judge's
    "invalid" (no score). The share of unanimous Claude panels sets Fleiss' kappa, the share of runs where GPT's
    majority differs sets Cohen's."""
    n = len(runs)
    final = ["invalid" if r["category"] in ("invalid", "timeout") else r["category"] for r in runs]
    n_over = next(k for k in range(n + 1) if shown(100 * k / n, 1) == TABLE9["override_pct"])
    claude = list(final)
    for i in rng.choice(n, n_over, replace=False):  # the judge said otherwise; the human overrode it
        claude[i] = str(rng.choice([x for x in OBJECTIVE_LABELS if x != final[i]]))
    seed = int(rng.integers(2**31))

    def panel(unanimous: float) -> list[list[str]]:
        r = np.random.default_rng(seed)
        return [votes(r, lab, OBJECTIVE_LABELS, 5, unanimous=unanimous) for lab in claude]

    lo, hi = 0.0, 1.0  # Fleiss' kappa grows with the share of unanimous panels
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _statsmodels_fleiss(panel(mid)) < TABLE9["fleiss"] else (lo, mid)
    calls = panel(hi)
    order = rng.permutation(n)
    for k in range(n + 1):  # the fewest GPT disagreements that bring Cohen's kappa down to the printed value
        gpt = list(claude)
        for i in order[:k]:
            gpt[i] = OBJECTIVE_LABELS[(OBJECTIVE_LABELS.index(claude[i]) + 1 + int(i) % 3) % 4]
        if shown(_statsmodels_cohen(claude, gpt), 2) <= TABLE9["cohen"]:
            break
    for r, mine, theirs in zip(runs, calls, gpt):
        r.setdefault("labels", [])
        r["labels"] += [{"facet": "objective", "label": v, "judge": "claude", "call": c} for c, v in enumerate(mine, 1)]
        r["labels"] += [{"facet": "objective", "label": v, "judge": "gpt-5.4", "call": c}
                        for c, v in enumerate(votes(rng, theirs, OBJECTIVE_LABELS, 5, unanimous=0.7), 1)]


def ambig_ds_printed() -> list[dict]:
    cells = []
    for (suite, model), (f, a, k) in TABLE1.items():
        for col, v in (("s_full", f), ("s_ambig", a), ("s_ask", k)):
            cells.append({"table": "Ambig-DS Table 1", "suite": suite, "model": model, "column": col, "value": v, "digits": 2})
        cells.append({"table": "Ambig-DS Table 1", "suite": suite, "model": model, "column": "delta_ambig",
                      "value": round(a - f, 2), "digits": 2, "printed_as": f"{abs(round(a - f, 2)):.2f} (sign lost in the text)"})
        cells.append({"table": "Ambig-DS Table 1", "suite": suite, "model": model, "column": "delta_ask",
                      "value": round(k - a, 2), "digits": 2})
    for suite, models in TABLE2_3.items():
        table = "Ambig-DS Table 2" if suite == "target" else "Ambig-DS Table 3"
        for model, conds in models.items():
            for cond, shares in conds.items():
                for cat, pct in zip(CATEGORIES[suite], shares):
                    cells.append({"table": table, "suite": suite, "model": model, "condition": "Ambig." if cond == "ambig" else "Ask",
                                  "column": cat, "value": pct, "digits": 0, "percent": True})
    for (suite, model), (f, _, _) in TABLE1.items():  # Table 11's "Full mean" is Table 1's S_full
        cells.append({"table": "Ambig-DS Table 11", "suite": suite, "model": model, "condition": "Ambig.",
                      "column": "full_mean", "value": f, "digits": 2})
    for suite, n in N_TASKS.items():  # Table 5: Included tasks and Total Instances (full + ambiguous)
        for col, v in (("n_tasks", n), ("n_instances", 2 * n)):
            cells.append({"table": "Ambig-DS Table 5", "suite": suite, "column": col, "value": v, "digits": 0})
    for row, judge, v, digits, pct in (("Fleiss kappa (5 calls)", "claude", TABLE9["fleiss"], 2, False),
                                       ("override rate (category differs from judge majority)", "claude",
                                        TABLE9["override_pct"], 1, True),
                                       ("Cohen kappa between judges", "claude vs gpt-5.4", TABLE9["cohen"], 2, False)):
        cells.append({"table": "Ambig-DS Table 9", "suite": "objective", "row": row, "judge": judge, "column": "value",
                      "value": v, "digits": digits, "percent": pct})
    for suite, models in TABLE11.items():
        for model, cats in models.items():
            for cat, (a, k) in cats.items():
                for cond, v in (("Ambig.", a), ("Ask", k)):
                    cells.append({"table": "Ambig-DS Table 11", "suite": suite, "model": model, "condition": cond,
                                  "column": cat, "value": v, "digits": 2})
    for (suite, model), (trace, answer) in TABLE10.items():
        for facet, labels, values in (("trace", TRACE, trace), ("answer", ANSWER, answer)):
            for lab, pct in zip(labels, values):
                cells.append({"table": "Ambig-DS Table 10", "suite": suite, "model": model, "facet": facet,
                              "column": lab, "value": pct, "digits": 0, "percent": True})
    for (suite, model), policies in TABLE13.items():
        for policy, (amb, full, calib) in zip(("permissive", "conservative"), policies):
            for col, v, d, pct in (("ask_on_ambiguous", amb, 0, True), ("ask_on_full", full, 0, True),
                                   ("calib_score", calib, 2, False)):
                cells.append({"table": "Ambig-DS Table 13", "suite": suite, "model": model, "policy": policy,
                              "column": col, "value": v, "digits": d, "percent": pct})
    for (suite, model), values in TABLE14.items():
        for lab, pct in zip(OVER_ASK, values):
            cells.append({"table": "Ambig-DS Table 14", "suite": suite, "model": model, "column": lab, "value": pct,
                          "digits": 0, "percent": True})
    for (suite, model), values in TABLE15.items():
        for lab, pct in zip(UNDER_ASK, values):
            cells.append({"table": "Ambig-DS Table 15", "suite": suite, "model": model, "column": lab, "value": pct,
                          "digits": 0, "percent": True})
    return cells


# ============================================================================= HIL-Bench (seed 001)

HIL_MODELS = ["GPT-5.3-Codex", "GPT-5.4", "Gemini 3.1 Pro", "Claude Opus 4.6"]
# Table 1: pass@3 full info %, pass@3 with ask_human %, recall %, precision %, Ask-F1 %
HIL_TABLE1 = {
    ("sql", "GPT-5.3-Codex"): (86.0, 5.3, 14.0, 55.3, 22.3), ("sql", "GPT-5.4"): (86.0, 17.3, 22.7, 54.3, 32.1),
    ("sql", "Gemini 3.1 Pro"): (88.7, 35.3, 59.2, 35.6, 44.5), ("sql", "Claude Opus 4.6"): (90.7, 39.3, 61.2, 54.3, 57.5),
    ("swe", "GPT-5.3-Codex"): (67.3, 2.0, 23.5, 56.5, 33.2), ("swe", "GPT-5.4"): (67.3, 1.3, 27.0, 52.3, 35.6),
    ("swe", "Gemini 3.1 Pro"): (84.7, 5.3, 36.2, 47.5, 41.1), ("swe", "Claude Opus 4.6"): (69.1, 9.4, 34.6, 26.3, 29.9),
}
# Table 3: 150 tasks per domain, 598 SQL and 533 SWE blockers
HIL_TASKS = {"sql": (150, 598), "swe": (150, 533)}
#: Claude Opus 4.6 on SWE: 69.1% and 9.4% fit no k/150 but 103/149 and 14/149 — one task is missing
HIL_N_TASKS = {("swe", "Claude Opus 4.6"): 149}


def _counts_for(p_pct: float, r_pct: float, f1_pct: float, blockers: int, cap: int, n_runs: int,
                per_run: float | None = None, integers: tuple[int, int, int] | None = None) -> tuple[int, int, int]:
    """(discovered, relevant, questions) pooled counts: recall = discovered / blockers, precision = relevant /
    questions and their F1 print as Table 1 (one decimal); questions / n_runs as Table 7 (``per_run``); P, R
    and F1 as Table 8's whole percentages (``integers``). Of the counts that print the most of these, those
    where some blockers are asked about twice (relevant > discovered) so that the harness's distinct
    precision (discovered / questions) prints otherwise than the paper's, with the most repeats the
    printed cells allow (Table 7 caps them near 1% of the relevant questions)."""
    best = None
    for disc in range(int(blockers * (r_pct - 0.05) / 100), int(blockers * (r_pct + 0.05) / 100) + 2):
        r = disc / blockers
        if shown(100 * r, 1) != r_pct or disc > cap:
            continue
        for rel in range(disc, disc + disc // 5 + 2):
            for q in range(int(rel / ((p_pct + 0.05) / 100)), int(rel / ((p_pct - 0.05) / 100)) + 2):
                p = rel / q
                if shown(100 * p, 1) != p_pct:
                    continue
                f = 2 * p * r / (p + r)
                hits = ((shown(100 * f, 1) == f1_pct) + (per_run is None or shown(q / n_runs, 1) == per_run)
                        + (integers is None or (shown(100 * p), shown(100 * r), shown(100 * f)) == integers))
                key = (hits, shown(100 * disc / q, 1) != p_pct, rel - disc)
                if best is None or key > best[0]:
                    best = (key, (disc, rel, q))
    return best[1]  # where the printed cells cannot all hold, the test reports the ones that do not


def _fits_table1(found, p_pct, r_pct, f1_pct, blockers) -> bool:
    disc, rel, q = found
    p, r = rel / q, disc / blockers
    return (shown(100 * p, 1), shown(100 * r, 1), shown(100 * 2 * p * r / (p + r), 1)) == (p_pct, r_pct, f1_pct)


def _ask_questions(rng, records, model, suite, per_task, tasks, disc_total, q_total, rel_total=None) -> None:
    """Give the model's ask_human runs in one domain their questions: disc_total distinct blockers
    discovered (at most 3 answered per run, the oracle's cap), rel_total relevant questions (the extra ones
    ask again about a blocker the run already asked about), the rest of q_total irrelevant."""
    rel_total = disc_total if rel_total is None else rel_total
    tool_runs = [r for r in records if r.get("model") == model and r.get("suite") == suite
                 and r.get("ask_tool") and r.get("benchmark") == "hil-bench"]
    caps = [min(3, per_task[tasks.index(r["task_id"])]) for r in tool_runs]
    disc = [0] * len(tool_runs)
    left = disc_total
    for i in rng.permutation(len(tool_runs)):
        if left == 0:
            break
        take = min(caps[i], left, int(rng.integers(1, caps[i] + 1)))
        disc[i] += take
        left -= take
    i = 0
    while left:  # fill any remainder up to each run's cap
        room = caps[i] - disc[i]
        if room:
            take = min(room, left)
            disc[i] += take
            left -= take
        i = (i + 1) % len(tool_runs)
    extra_q = np.bincount(rng.integers(0, len(tool_runs), q_total - rel_total), minlength=len(tool_runs))
    asking = [i for i, d in enumerate(disc) if d]
    repeats = np.bincount(rng.choice(asking, rel_total - disc_total), minlength=len(tool_runs)) if asking else \
        np.zeros(len(tool_runs), int)
    for r, d, e, again in zip(tool_runs, disc, extra_q, repeats):
        qs = [{"text": f"What does requirement {j} mean?", "blocker_id": f"b{j}", "response": "resolution"}
              for j in range(d)]
        qs += [{"text": f"To confirm requirement {j % d}: is that right?", "blocker_id": f"b{j % d}",
                "response": "resolution"} for j in range(int(again))]
        qs += [{"text": "Can you say more?", "blocker_id": None, "response": "irrelevant question"} for _ in range(int(e))]
        if qs:
            r["questions"] = [qs[i] for i in rng.permutation(len(qs))] if again else qs


def hil_bench(rng: np.random.Generator) -> list[dict]:
    records = []
    blockers = {suite: 3 * total for suite, (_, total) in HIL_TASKS.items()}  # three passes
    table8_only = {}
    for model, printed in HIL_TABLE8_ONLY.items():
        counts = _joint_counts(printed, blockers)
        options = [(a, b) for a in range(151) for b in range(151)
                   if shown(100 * a / 150) == printed["swe"][0] and shown(100 * b / 150) == printed["sql"][0]
                   and shown(100 * (a + b) / 300) == printed["combined"][0]]
        table8_only[model] = (counts, {"swe": options[0][0], "sql": options[0][1]})
    for suite, (n_tasks, n_blockers) in HIL_TASKS.items():
        # 3 to 5 blockers per task (here 3 or 4), summing to the published total
        base = n_blockers // n_tasks
        extra = n_blockers - base * n_tasks
        per_task = [base + (1 if i < extra else 0) for i in range(n_tasks)]
        tasks = [f"hil_{suite}_{i:03d}" for i in range(n_tasks)]
        for t, k in zip(tasks, per_task):
            records.append({"record": "task", "benchmark": "hil-bench", "suite": suite, "task_id": t,
                            "blockers": [{"id": f"b{j}"} for j in range(k)]})
        for model in HIL_MODELS:
            full_pct, tool_pct, r_pct, p_pct, f1_pct = HIL_TABLE1[(suite, model)]
            n = HIL_N_TASKS.get((suite, model), n_tasks)
            used = tasks[:n]
            blockers_total = 3 * sum(per_task[:n])  # three passes
            t8 = HIL_TABLE8.get(model, {}).get(suite)
            per_run = HIL_TABLE7[model][0 if suite == "swe" else 1]
            found = _counts_for(p_pct, r_pct, f1_pct, blockers_total, cap=3 * 3 * n, n_runs=3 * n, per_run=per_run,
                                integers=(t8[1], t8[2], t8[3]) if t8 else None)
            if t8 and not _fits_table1(found, p_pct, r_pct, f1_pct, blockers_total):  # Table 8 cannot hold too
                found = _counts_for(p_pct, r_pct, f1_pct, blockers_total, cap=3 * 3 * n, n_runs=3 * n, per_run=per_run)
            disc_total, rel_total, q_total = found
            base_rec = {"benchmark": "hil-bench", "suite": suite, "model": model}
            # the no-tool condition (Figure 1A's "No Tool" bars, "near-zero"; Tables 4-6's baseline): no task can
            # be passed without resolving its blockers (HIL-Bench §1), so none passes here
            for mode_spec, pct in (("full", full_pct), ("none", 0.0), ("tool", tool_pct)):
                n_pass = round(pct / 100 * n)
                passing = passing_trials(rng, rng.permutation(n)[:n_pass])
                for i, t in enumerate(used):
                    for p in (1, 2, 3):
                        ok = p in passing.get(i, ())  # HIL-Bench's pass@3: any of the first three passes
                        rec = {**base_rec, "task_id": t, "spec": "full" if mode_spec == "full" else "ambiguous",
                               "ask_tool": mode_spec == "tool", "trial": p, "passed": ok, "score": 1.0 if ok else 0.0}
                        records.append(rec)
            _ask_questions(rng, records, model, suite, per_task, tasks, disc_total, q_total, rel_total)
        for model, (counts, passes) in table8_only.items():  # Table 8's other models: ask_human runs only
            base_rec = {"benchmark": "hil-bench", "suite": suite, "model": model}
            passing = passing_trials(rng, rng.permutation(n_tasks)[: passes[suite]])
            for i, t in enumerate(tasks):
                for p in (1, 2, 3):
                    ok = p in passing.get(i, ())
                    records.append({**base_rec, "task_id": t, "spec": "ambiguous", "ask_tool": True, "trial": p,
                                    "passed": ok, "score": 1.0 if ok else 0.0})
            _ask_questions(rng, records, model, suite, per_task, tasks, *counts[suite])
        failures = HIL_FAILURES if suite == "sql" else _swe_failures()
        if suite == "sql":
            model, n = HIL_FULL_INFO_LOGIC  # Completion 0%; the other modes are not published: spread evenly
            failures = {**failures, "logic": {**failures["logic"], (model, "full_info"): (n, (38.5, 30.8, 30.8, 0.0))}}
        _failure_labels(rng, records, suite, failures)
    return records


# Table 8: pass@3 with ask_human, precision, recall, F1 (%), combined and per domain; the four models of Table 1
HIL_TABLE8 = {
    "Claude Opus 4.6": {"combined": (24, 40, 49, 44), "swe": (9, 26, 35, 30), "sql": (39, 54, 61, 57)},
    "Gemini 3.1 Pro": {"combined": (20, 39, 48, 43), "swe": (5, 48, 36, 41), "sql": (35, 36, 59, 44)},
    "GPT-5.4": {"combined": (9, 53, 25, 34), "swe": (1, 52, 27, 36), "sql": (17, 54, 23, 32)},
    "GPT-5.3-Codex": {"combined": (4, 56, 18, 28), "swe": (2, 57, 24, 33), "sql": (5, 55, 14, 22)},
}


# Table 8's models without a Table 1 row: pass@3 with ask_human, precision, recall, F1 (%), combined and per domain
HIL_TABLE8_ONLY = {
    "GLM-5.1": {"combined": (21, 23, 42, 30), "swe": (9, 30, 27, 29), "sql": (33, 21, 55, 31)},
    "Grok-4.20": {"combined": (8, 19, 28, 23), "swe": (7, 17, 35, 23), "sql": (9, 22, 22, 22)},
    "Minimax-M2.5": {"combined": (7, 41, 12, 19), "swe": (1, 36, 2, 3), "sql": (14, 41, 22, 28)},
}


def _joint_counts(printed: dict[str, tuple[int, int, int, int]], blockers: dict[str, int]):
    """Per-domain (discovered, questions) whose per-domain and pooled P, R, F1 round to Table 8's whole percents."""
    def pct(x):
        return shown(100 * x)

    def f1(p, r):
        return 2 * p * r / (p + r) if p + r else 0.0

    cands = {}
    for suite in ("swe", "sql"):
        _, P, R, F = printed[suite]
        B = blockers[suite]
        cands[suite] = [(d, q) for d in range(max(1, int(B * (R - 0.5) / 100)), int(B * (R + 0.5) / 100) + 2)
                        if pct(d / B) == R and d <= 3 * 450
                        for q in range(max(d, int(d / ((P + 0.5) / 100))), int(d / max((P - 0.5) / 100, 1e-3)) + 2)
                        if pct(d / q) == P and pct(f1(d / q, d / B)) == F]
    _, Pc, Rc, Fc = printed["combined"]
    Bc = blockers["swe"] + blockers["sql"]
    for d1, q1 in cands["swe"]:
        for d2, q2 in cands["sql"]:
            p, r = (d1 + d2) / (q1 + q2), (d1 + d2) / Bc
            if (pct(p), pct(r), pct(f1(p, r))) == (Pc, Rc, Fc):
                return {"swe": (d1, q1), "sql": (d2, q2)}
    return None


# Table 7: questions asked per task (per ask_human run), SWE and SQL ("GPT 5.4 Pro" there is Table 1's GPT-5.4)
HIL_TABLE7 = {"GPT-5.3-Codex": (1.5, 1.0), "GPT-5.4": (1.8, 1.7), "Gemini 3.1 Pro": (2.7, 6.6),
              "Claude Opus 4.6": (4.7, 4.5)}


# Tables 4-6 (Appendix F.2, SQL): failure traces per capability dimension, model and mode: N, then the share (%)
# of each failure mode. "GPT 5.4 Pro" there is Table 1's GPT-5.4; "baseline" is the ambiguous task without
# ask_human. F.2.3 adds one full-information cell: Gemini's logic Completion is 0% (N = 13).
HIL_MODES = {
    "tool_use": ("completion", "accuracy", "strategy"),
    "alignment": ("accuracy", "strategy", "self_assessment", "completion"),
    "logic": ("accuracy", "strategy", "self_assessment", "completion"),
}
HIL_FAILURES = {  # dimension -> (model, mode) -> (N, shares in HIL_MODES order)
    "tool_use": {
        ("Claude Opus 4.6", "baseline"): (40, (82.5, 15.0, 2.5)), ("Claude Opus 4.6", "ask_human"): (30, (70.0, 30.0, 0.0)),
        ("Gemini 3.1 Pro", "baseline"): (50, (56.0, 38.0, 6.0)), ("Gemini 3.1 Pro", "ask_human"): (17, (17.6, 82.4, 0.0)),
        ("GPT-5.3-Codex", "baseline"): (19, (5.3, 73.7, 21.1)), ("GPT-5.3-Codex", "ask_human"): (18, (16.7, 72.2, 11.1)),
        ("GPT-5.4", "baseline"): (14, (7.1, 92.9, 0.0)), ("GPT-5.4", "ask_human"): (13, (0.0, 100.0, 0.0)),
    },
    "alignment": {
        ("Claude Opus 4.6", "baseline"): (20, (5.0, 50.0, 45.0, 0.0)),
        ("Claude Opus 4.6", "ask_human"): (20, (5.0, 55.0, 40.0, 0.0)),
        ("Gemini 3.1 Pro", "baseline"): (22, (9.1, 68.2, 18.2, 4.5)),
        ("Gemini 3.1 Pro", "ask_human"): (35, (5.7, 60.0, 31.4, 2.9)),
        ("GPT-5.3-Codex", "baseline"): (25, (12.0, 60.0, 20.0, 8.0)),
        ("GPT-5.3-Codex", "ask_human"): (34, (2.9, 58.8, 35.3, 2.9)),
        ("GPT-5.4", "baseline"): (15, (0.0, 73.3, 20.0, 6.7)), ("GPT-5.4", "ask_human"): (21, (0.0, 71.4, 28.6, 0.0)),
    },
    "logic": {
        ("Claude Opus 4.6", "baseline"): (97, (41.2, 20.6, 16.5, 21.6)),
        ("Claude Opus 4.6", "ask_human"): (86, (51.2, 11.6, 12.8, 24.4)),
        ("Gemini 3.1 Pro", "baseline"): (99, (42.4, 11.1, 24.2, 22.2)),
        ("Gemini 3.1 Pro", "ask_human"): (83, (56.6, 13.3, 22.9, 7.2)),
        ("GPT-5.3-Codex", "baseline"): (96, (88.5, 8.3, 2.1, 1.0)),
        ("GPT-5.3-Codex", "ask_human"): (98, (78.6, 12.2, 0.0, 9.2)),
        ("GPT-5.4", "baseline"): (99, (75.8, 20.2, 1.0, 3.0)), ("GPT-5.4", "ask_human"): (96, (84.4, 10.4, 0.0, 5.2)),
    },
}
HIL_FULL_INFO_LOGIC = ("Gemini 3.1 Pro", 13)  # F.2.3: "and to 0% with full information, N=13"
# Figure 3B's quoted shifts with ask_human (SQL tool use, pp): Gemini -38 Completion, +44 Accuracy; Claude -12, +15
HIL_FIGURE3B = {("Gemini 3.1 Pro", "completion"): -38, ("Gemini 3.1 Pro", "accuracy"): 44,
                ("Claude Opus 4.6", "completion"): -12, ("Claude Opus 4.6", "accuracy"): 15}
# Figure 6 (SWE - SQL, pp): "33pp more of GPT 5.4's tool-use failures are Completion in SWE compared to in SQL"
HIL_FIGURE6 = ("GPT-5.4", "tool_use", "completion", 33)


def _failure_counts(n: int, shares) -> list[int]:
    counts = fit_counts(shares, n, 1)  # the printed one-decimal shares are k/N
    if counts is None:
        counts = [int(round(x * n / 100)) for x in shares]
    return counts


def _swe_failures() -> dict:
    """SWE failure traces (Figure 7 is an image, unpublished): the SQL counts, except GPT-5.4's tool use, whose
    Completion share is Figure 6's +33 pp above SQL's in each condition and pooled over both (the text does not
    name the condition): 6 of 15 baseline traces (40.0 - 7.1 = 32.9) and 5 of 15 with ask_human (33.3 - 0.0)."""
    out = {dim: dict(cells) for dim, cells in HIL_FAILURES.items()}
    out["tool_use"][("GPT-5.4", "baseline")] = (15, (40.0, 60.0, 0.0))
    out["tool_use"][("GPT-5.4", "ask_human")] = (15, (33.3, 66.7, 0.0))
    return out


def _failure_labels(rng, records: list[dict], suite: str, cells: dict) -> None:
    """Label N failing runs of each (model, mode) with a failure mode of one capability dimension (facet
    ``failure.<dimension>``), three judge calls each whose majority is the mode; a run is labelled in one
    dimension at most."""
    modes = {"baseline": ("ambiguous", False), "ask_human": ("ambiguous", True), "full_info": ("full", False)}
    taken: set[int] = set()
    for dim, by_cell in cells.items():
        for (model, mode), (n, shares) in by_cell.items():
            spec, tool = modes[mode]
            failing = [i for i, r in enumerate(records) if r.get("model") == model and r.get("suite") == suite
                       and r.get("spec") == spec and r.get("ask_tool") == tool and r.get("passed") is False
                       and i not in taken]
            chosen = rng.choice(failing, n, replace=False)
            labels = [m for m, k in zip(HIL_MODES[dim], _failure_counts(n, shares)) for _ in range(k)]
            for i, label in zip(chosen, labels):
                taken.add(int(i))
                records[i]["labels"] = [{"facet": f"failure.{dim}", "label": vote, "judge": "sonnet-4", "call": c}
                                        for c, vote in enumerate(votes(rng, label, HIL_MODES[dim], 3), start=1)]


def hil_printed() -> list[dict]:
    cells = []
    for (suite, model), (full, tool, r, p, f1) in HIL_TABLE1.items():
        for col, v in (("pass_at_k_full_info", full), ("pass_at_k_with_tool", tool), ("recall", r),
                       ("precision", p), ("ask_f1", f1)):
            cells.append({"table": "HIL-Bench Table 1", "suite": suite, "model": model, "column": col, "value": v,
                          "digits": 1, "percent": True})
        cells.append({"table": "HIL-Bench Table 1", "suite": suite, "model": model, "column": "gap_pp",
                      "value": round(tool - full), "digits": 0})
    for model, (swe, sql) in HIL_TABLE7.items():
        for suite, v in (("swe", swe), ("sql", sql)):
            cells.append({"table": "HIL-Bench Table 7", "suite": suite, "model": model, "column": "questions_per_run",
                          "value": v, "digits": 1})
    for model, scopes in {**HIL_TABLE8, **HIL_TABLE8_ONLY}.items():
        for scope, values in scopes.items():
            for col, v in zip(("pass_at_k", "precision", "recall", "ask_f1"), values):
                cells.append({"table": "HIL-Bench Table 8", "model": model, "scope": scope, "column": col,
                              "value": v, "digits": 0, "percent": True})
    for table, dim in (("HIL-Bench Table 4", "tool_use"), ("HIL-Bench Table 5", "alignment"), ("HIL-Bench Table 6", "logic")):
        for (model, mode), (n, shares) in HIL_FAILURES[dim].items():
            base = {"table": table, "suite": "sql", "model": model, "mode": mode, "dimension": dim}
            cells.append({**base, "column": "n", "value": n, "digits": 0})
            for col, v in zip(HIL_MODES[dim], shares):
                cells.append({**base, "column": col, "value": v, "digits": 1, "percent": True})
    model, n = HIL_FULL_INFO_LOGIC
    base = {"table": "HIL-Bench §F.2.3", "suite": "sql", "model": model, "mode": "full_info", "dimension": "logic"}
    cells += [{**base, "column": "n", "value": n, "digits": 0},
              {**base, "column": "completion", "value": 0.0, "digits": 1, "percent": True}]
    for (model, col), v in HIL_FIGURE3B.items():
        cells.append({"table": "HIL-Bench Figure 3B", "suite": "sql", "model": model, "dimension": "tool_use",
                      "column": col, "value": v, "digits": 0})
    model, dim, col, v = HIL_FIGURE6
    cells.append({"table": "HIL-Bench Figure 6", "model": model, "mode": "all", "dimension": dim, "column": col,
                  "value": v, "digits": 0})
    return cells


# ============================================================================= LHAW (seed 003)

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


def _interval(n: int, value: float, digits: int, percent: bool = True, signed: bool = False) -> tuple[int, int] | None:
    """The counts k (−n…n with ``signed``) whose share k/n prints as ``value``; None if none."""
    scale = 100 if percent else 1
    ks = [k for k in range(-n if signed else 0, n + 1) if shown(scale * k / n, digits) == value]
    return (min(ks), max(ks)) if ks else None


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
#                       the two the paper rules out (Gemini 3 Pro: Table 5's +31.0 against Table 3's +26.0, and a
#                       dimension gain that with Table 2 and Table 3 asks for two different two-segment gains)


def _box(value: float, half_width: float = 0.045) -> tuple[float, float]:
    """The fractions that print (one decimal of a percentage) as ``value``, a little inside the rounding box."""
    return (value - half_width) / 100, (value + half_width) / 100


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
    for persona, (ckpt, gain, n_q, _) in LHAW_TABLE14.items():
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
                               ("ask_pct", ask_pct, 0, False), ("avg_per_traj", avg, 2, False),
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


# ----------------------------------------------------------------------------- LHAW: TheAgentCompany, SWE-Bench Pro
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


def floor2(x: float) -> float:
    """Truncate to two decimals, as LHAW Table 8 prints."""
    return math.floor(x * 100 + 1e-9) / 100


def _tac_counts(printed: tuple, overall: tuple[float, float], sizes: tuple[int, ...], slack: int = 15,
                with_tool_ok=None, weights: tuple[int, ...] | None = None):
    """Per class (n without the tool, passing, n with it, passing) matching the most printed cells (Table 8's
    truncated Under. and +User per class, Table 3's pass@3 and gain), then, if given, whose pass@3 with the
    tool (%) ``with_tool_ok`` accepts (a cell of another table that depends on it), then with the most
    variants valid. ``weights``: how many printed tables show each class's cells (Table 12 repeats the
    outcome-critical ones).

    LHAW's TAC denominators are the variants with results under each condition (Table 10, ReAct
    outcome-critical: 2/38 without the tool, 7/40 with it), so the two sides are searched apart."""
    def side(j):
        states = {(0, 0): (0, ())}
        for c, n_max in enumerate(sizes):
            new = {}
            for (n_sum, k_sum), (score, path) in states.items():
                for n in range(max(1, n_max - slack), n_max + 1):
                    for k in range(n + 1):
                        s = score + (weights[c] if weights else 1) * (floor2(k / n) == printed[c][j])
                        key = (n_sum + n, k_sum + k)
                        if key not in new or s > new[key][0]:
                            new[key] = (s, path + ((n, k),))
            states = new
        top = max(v[0] for v in states.values())
        return {key: v for key, v in states.items() if v[0] >= top - 1}

    under, tool = side(0), side(1)
    t_keys = list(tool)
    nt, kt = (np.array([key[i] for key in t_keys]) for i in (0, 1))
    st = np.array([tool[key][0] for key in t_keys])
    best = None
    for (nu, ku), (su, pu) in under.items():
        under_ok = shown(100 * ku / nu, 1) == overall[0]
        score = su + st + under_ok + (shown(100 * (kt / nt - ku / nu), 1) == overall[1])
        if with_tool_ok:  # the other table's cell counts as one more
            score = score + with_tool_ok(100 * kt / nt)
        # most cells; of equal counts, the one keeping the pass@3 without the tool (a direct k/n) rather than
        # the gain (a difference); then the most variants
        rank = ((((2 * score + under_ok) * 1000 + nu + nt) * 1000 + nu) * 1000 + ku) * 1000 + kt
        i = int(np.argmax(rank))
        if best is None or rank[i] > best[0]:
            best = (rank[i], pu, tool[t_keys[i]][1])
    return [(a[0], a[1], b[0], b[1]) for a, b in zip(best[1], best[2])]


def _table13_keeps(suite: str, model: str):
    """Which pass@3 with the tool (%) of ``model`` keep Table 13's model average of +User for ``suite``, the
    other models at their Table 3 values: where Table 3's own gain is out of reach (TAC Gemini 3 Pro: +4.8
    is, +5.6 would print Table 13's 0.37 as 0.38; +4.6 or +5.0 keep it)."""
    rows = LHAW_TABLE3_MORE[suite]
    others = sum(r[4] + r[5] for m, r in rows.items() if m != model)
    target = LHAW_TABLE13_MORE[suite][2]
    return lambda with_tool: np.asarray(shown((others + with_tool) / len(rows) / 100, 2) == target, dtype=int)


def _strategy_counts(rows: dict, sizes: tuple[int, ...]):
    """Per class (n, passing) without and with the tool giving Table 10's one-decimal pass@3 and gain per
    class and overall; of the exact fits, the one with the most valid variants."""
    names = list(sizes)
    options = []
    for name in names:
        u, g = rows[name][:2]
        n_max = sizes[name]
        under = [(n, k) for n in range(1, n_max + 1) for k in range(n + 1) if shown(100 * k / n, 1) == u]
        options.append([(nu, ku, nt, kt) for nu, ku in under for nt in range(1, n_max + 1) for kt in range(nt + 1)
                        if shown(100 * (kt / nt - ku / nu), 1) == g])
    fits = []
    for combo in itertools.product(*options):
        nu, ku, nt, kt = (sum(c[i] for c in combo) for i in range(4))
        if shown(100 * ku / nu, 1) == rows["overall"][0] and shown(100 * (kt / nt - ku / nu), 1) == rows["overall"][1]:
            fits.append((nu + nt, combo))
    fits.sort(key=lambda f: -f[0])
    for _, combo in fits:  # the first whose Ckpt per class can also average to the printed overall
        try:
            _fit_means([rows[name][2] for name in names], [3 * c[0] for c in combo], rows["overall"][2])
        except ValueError:
            continue
        return list(combo)
    raise ValueError(f"no class counts fit {rows}")


def _fit_means(values: list[float], weights: list[int], overall: float, minus: float = 0.0) -> list[float]:
    """Class means (%) inside their one-decimal rounding boxes whose weighted mean, less ``minus``, rounds
    to ``overall`` (the closest to the printed values that do)."""
    grid = [d / 1000 for d in range(-45, 46, 3)]
    for offsets in sorted(itertools.product(grid, repeat=len(values)), key=lambda o: sum(abs(x) for x in o)):
        means = [v + d for v, d in zip(values, offsets)]
        if shown(float(np.dot(means, weights)) / sum(weights) - minus, 1) == overall:
            return means
    raise ValueError(f"no class means in the boxes of {values} average to {overall} (less {minus})")


def _strategy_means(rows: dict, counts: list) -> list[tuple[float, float]]:
    """Ckpt % per class without and with the tool: Table 10's class values and gains, fitted so that the
    trial-weighted means give its overall Ckpt and gain."""
    names = [name for name in rows if name != "overall"]
    w_u, w_t = [3 * c[0] for c in counts], [3 * c[2] for c in counts]
    under = _fit_means([rows[name][2] for name in names], w_u, rows["overall"][2])
    under_all = float(np.dot(under, w_u)) / sum(w_u)
    tool = _fit_means([m + rows[name][3] for m, name in zip(under, names)], w_t, rows["overall"][3], minus=under_all)
    return list(zip(under, tool))


def _variants(suite: str, layout: dict) -> dict[str, list[tuple[str, str]]]:
    """(task, variant) ids per class; a task's variants are numbered across its classes."""
    seen: dict[int, int] = {}
    out = {}
    for klass, tasks in layout.items():
        out[klass] = []
        for t, n in tasks:
            for _ in range(n):
                seen[t] = seen.get(t, 0) + 1
                out[klass].append((_task_id(suite, t), f"{_task_id(suite, t)}_V{seen[t]}"))
    return out


def _task_id(suite: str, t: int) -> str:
    return f"{'tac' if suite == 'tac' else 'swe'}-task-{t:03d}"


def _questions(n_variants: int, ask_pct: float, avg: float, gains: tuple[float, float], gpq: tuple[float, float],
               n_with_results: int):
    """(asking variants, asking trials, questions) matching Table 3's Ask % (of all n_variants: a variant whose
    with-tool runs all failed did not ask), Avg/Traj and both Gain/Q the most, then with the fewest questions.
    Only the n_with_results variants with results under the tool can ask."""
    if ask_pct == 0:
        return 0, 0, 0
    best = None
    for v in range(1, n_with_results + 1):
        for n in range(v, 3 * v + 1):
            for q in range(max(n, math.floor((avg - 0.006) * n)), math.ceil((avg + 0.006) * n) + 1):
                hits = ((shown(100 * v / n_variants) == ask_pct) + (shown(q / n, 2) == avg)
                        + sum(shown(g / q, 2) == p for g, p in zip(gains, gpq)))
                key = (hits, -abs(100 * v / n_variants - ask_pct), -q)
                if best is None or key > best[0]:
                    best = (key, (v, n, q))
    return best[1]


def _split_questions(nt: list[int], rows: list[tuple[float, float]] | None, overall: tuple[float, float] | None,
                     totals: tuple[int, int, int] | None) -> list[tuple[int, int]]:
    """Asking trials and questions per class: Table 10's %Ask (of the 3·nt trials) and Avg/Traj per class and
    overall where printed (most cells matched), within the asking variants, trials and questions that
    Table 3 fixes, if given."""
    trials = [3 * n for n in nt]

    def hits(split):
        a_tot, q_tot = sum(a for a, _ in split), sum(q for _, q in split)
        h = 0
        if rows:
            h += sum((shown(100 * a / t) == pct) + (a > 0 and shown(q / a, 1) == avg)
                     for (a, q), t, (pct, avg) in zip(split, trials, rows))
        if overall and a_tot:
            h += (shown(100 * a_tot / sum(trials)) == overall[0]) + (shown(q_tot / a_tot, 1) == overall[1])
        return h

    if totals is None:
        per_class = []
        for t, (pct, avg) in zip(trials, rows):
            cands = [(a, q) for a in range(1, t + 1) if shown(100 * a / t) == pct
                     for q in range(a, 5 * a) if shown(q / a, 1) == avg]
            per_class.append(cands)
        return list(max(itertools.product(*per_class), key=hits))
    v_ask, n_ask, n_q = totals
    best = None
    for a0 in range(0, min(trials[0], n_ask) + 1):
        for a1 in range(0, min(trials[1], n_ask - a0) + 1):
            a2 = n_ask - a0 - a1
            if a2 > trials[2]:
                continue
            q0, q1 = round(rows[0][1] * a0), round(rows[1][1] * a1)
            q2 = n_q - q0 - q1
            if q2 < a2 or (a2 == 0 and q2):
                continue
            split = [(a0, q0), (a1, q1), (a2, q2)]
            if not sum(-(-a // 3) for a, _ in split) <= v_ask <= sum(min(a, n) for (a, _), n in zip(split, nt)):
                continue
            key = (hits(split), -abs(a0 - rows[0][0] * trials[0] / 100))
            if best is None or key > best[0]:
                best = (key, split)
    return best[1]


def _asking_variants(trials: list[int], n_variants: list[int], total: int) -> list[int]:
    """Asking variants per class summing to ``total``: each class between a third of its asking trials
    (three trials per variant) and as many as it has trials or variants."""
    per = [-(-a // 3) for a in trials]
    caps = [min(a, n) for a, n in zip(trials, n_variants)]
    while sum(per) < total and any(p < c for p, c in zip(per, caps)):
        for i in range(len(per)):
            if sum(per) < total and per[i] < caps[i]:
                per[i] += 1
    return per


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


def _more_counts(suite: str) -> dict[str, tuple[list, bool]]:
    """Per model, its per-class counts (n and passing without and with the tool) and whether every variant has a
    result under some condition (``cover``; GPT-5.2 on TAC has results on 77 variants, Table 10)."""
    classes = LHAW_MORE_CLASSES[suite]
    out = {}
    for model, row in LHAW_TABLE3_MORE[suite].items():
        if suite == "swe-bench-pro":
            counts = [(n, round(LHAW_TABLE9[c][model][1] * n), n, round(LHAW_TABLE9[c][model][2] * n))
                      for c, n in classes.items()]
        elif model == "GPT-5.2":  # Table 10's CodeAct row is this row, per class at one decimal
            counts = _strategy_counts(LHAW_TABLE10["default"], classes)
        else:
            counts = _tac_counts([LHAW_TABLE8[c][model][1:] for c in classes], row[4:6], tuple(classes.values()),
                                 with_tool_ok=_table13_keeps(suite, model),
                                 # Table 8's cells pin each class's counts and outrank Table 3's overall gain,
                                 # which follows from them (Table 12 repeats outcome-critical)
                                 weights=tuple(3 if c == "outcome-critical" else 2 for c in classes))
        out[model] = (counts, not (suite == "tac" and model == "GPT-5.2"))
    return out


def more_plan(suite: str, time_limit: float = 600) -> dict:
    """The dimensions of each variant and each model's state on it, as counts: per class, per set of one or two
    dimensions, how many variants carry it and, per model, how many of those are in each state (``STATES``).

    An integer program (scipy's milp): each model's per-class counts (``_more_counts``) and the suite's dimension
    instances (``MORE_DIMENSIONS``) hold exactly, and the most of Table 5's cells are met: per model and dimension,
    pass@3 without the tool and its gain, whose denominators are the dimension's variants with results under each
    condition (one-hot over the possible counts, so that the rates are linear). A printed value met only by an
    exact tie (10/32 = 31.25 printed 31.2) counts half. Variants of one class and dimension set are alike, so the
    counts fix the fixture up to which variant is which (``_realize``). Run by ``--solve``; the result is
    ``MORE_PLANS``."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_matrix

    sizes, dims = LHAW_MORE_CLASSES[suite], MORE_DIMENSIONS[suite]
    counts = _more_counts(suite)
    options = [o for k in (1, 2) for o in itertools.combinations(dims, k)]
    n_all = sum(sizes.values())
    index: dict[tuple, int] = {}
    upper: list[float] = []
    cost: list[float] = []

    def var(key, ub, weight=0.0):
        index[key] = len(index)
        upper.append(ub)
        cost.append(-weight)
        return index[key]

    rows, lo, hi = [], [], []

    def add(coef: dict, low, high):
        rows.append(coef)
        lo.append(low)
        hi.append(high)

    def select(model, pick, dim=None, klass=None):
        return {index[("z", model, c, o, s)]: 1 for c in sizes for o in range(len(options)) for s in range(len(STATES))
                if (klass is None or c == klass) and (dim is None or dim in options[o]) and pick(STATES[s])}

    for c, size in sizes.items():
        for o in range(len(options)):
            var(("n", c, o), size)
            for model in counts:
                for s in range(len(STATES)):
                    var(("z", model, c, o, s), size)
    for c, size in sizes.items():
        add({index[("n", c, o)]: 1 for o in range(len(options))}, size, size)
        for o in range(len(options)):
            for model in counts:
                add({**{index[("z", model, c, o, s)]: 1 for s in range(len(STATES))}, index[("n", c, o)]: -1}, 0, 0)
        for model, (per_class, cover) in counts.items():
            nu, ku, nt, kt = per_class[list(sizes).index(c)]
            for pick, target in ((lambda s: s[0] >= 0, nu), (lambda s: s[0] == 1, ku),
                                 (lambda s: s[1] >= 0, nt), (lambda s: s[1] == 1, kt)):
                add(select(model, pick, klass=c), target, target)
            if cover:  # every variant has a result under some condition where the counts allow
                add(select(model, lambda s: s == (-1, -1), klass=c), 0, max(0, size - nu - nt))
            elif nu <= nt:  # the variants with results without the tool are among those with it
                add(select(model, lambda s: s[0] >= 0 > s[1], klass=c), 0, 0)
    for d, total in dims.items():
        add({index[("n", c, o)]: 1 for c in sizes for o in range(len(options)) if d in options[o]}, total, total)
    for model, (per_class, _) in counts.items():
        for d, (value, gain) in zip(dims, LHAW_TABLE5_MORE[suite][model][1:]):
            rate = {}
            for side, j in (("u", 0), ("t", 1)):
                missing = n_all - sum(c[2 * j] for c in per_class)
                ns = range(max(1, dims[d] - missing), dims[d] + 1)
                ws = [var(("w", model, d, side, n), 1) for n in ns]
                ks = [var(("k", model, d, side, n), n) for n in ns]
                add(dict.fromkeys(ws, 1), 1, 1)
                # the denominator: sum n w_n = the dimension's variants with results; the passing: sum k_n
                add({**{w: n for n, w in zip(ns, ws)}, **{i: -1 for i in select(model, lambda s: s[j] >= 0, d)}}, 0, 0)
                add({**dict.fromkeys(ks, 1), **{i: -1 for i in select(model, lambda s: s[j] == 1, d)}}, 0, 0)
                for n, w, k in zip(ns, ws, ks):
                    add({k: 1, w: -n}, -np.inf, 0)
                rate[side] = {k: 1 / n for n, k in zip(ns, ks)}
            diff = dict(rate["t"])
            for k, a in rate["u"].items():
                diff[k] = diff.get(k, 0) - a
            for coef, v, name in ((rate["u"], value, "u"), (diff, gain, "gain")):
                big = 3.0
                for strict, weight in ((True, 1.0), (False, 0.5)):  # half up; an exact tie, half credit
                    y = var(("y", model, d, name, strict), 1, weight)
                    low, high = (v - 0.05) / 100 - 1e-12, (v + 0.05) / 100 - (1e-9 if strict else -1e-12)
                    add({**coef, y: -big}, low - big, np.inf)
                    add({**coef, y: big}, -np.inf, high + big)
                add({index[("y", model, d, name, True)]: 1, index[("y", model, d, name, False)]: 1}, 0, 1)
    # Table 6 where its denominators are fixed (a model with results on every variant under both conditions):
    # each class and dimension set's Ckpt sums without and with the tool (continuous, at most one per variant) give
    # Table 3's overall Ckpt and gain exactly and the most of Table 6's dimension cells
    continuous: set[int] = set()
    for model, (per_class, _) in counts.items():
        if any((nu, nt) != (size, size) for (nu, _, nt, _), size in zip(per_class, sizes.values())):
            continue
        sums = {}
        for side in ("u", "t"):
            for c in sizes:
                for o in range(len(options)):
                    j = var(("s", model, c, o, side), sizes[c])
                    continuous.add(j)
                    add({j: 1, index[("n", c, o)]: -1}, -np.inf, 0)
                    sums[(c, o, side)] = j
        row = LHAW_TABLE3_MORE[suite][model]
        groups = [(None, (row[7], row[8]), n_all, None)]
        groups += [(d, printed, dims[d], 0.045) for d, printed in zip(dims, LHAW_TABLE6_MORE[suite][model][1:])]
        for d, (value, gain), n, half in groups:
            mean = {side: {sums[(c, o, side)]: 1 / n for c in sizes for o in range(len(options))
                           if d is None or d in options[o]} for side in ("u", "t")}
            diff = {**mean["t"], **{k: -a for k, a in mean["u"].items()}}
            for coef, v, name in ((mean["u"], value, "ckpt"), (diff, gain, "ckpt gain")):
                low, high = _box(v, 0.001 if half is None else half)
                if half is None:  # Table 3's overall, exactly
                    add(coef, low, high)
                    continue
                y = var(("y", model, d, name, True), 1, 1.0)
                add({**coef, y: -2}, low - 2, np.inf)
                add({**coef, y: 2}, -np.inf, high + 2)
    r, c_, data = [], [], []
    for i, coef in enumerate(rows):
        for j, a in coef.items():
            r.append(i)
            c_.append(j)
            data.append(a)
    a_mat = coo_matrix((data, (r, c_)), shape=(len(rows), len(index))).tocsr()
    res = milp(np.array(cost), constraints=LinearConstraint(a_mat, lo, hi), integrality=[0 if j in continuous else 1 for j in range(len(index))],
               bounds=Bounds(0, np.array(upper)), options={"time_limit": time_limit})
    if res.x is None or res.status != 0:
        raise RuntimeError(f"no plan for {suite}: {res.message}")
    x = np.round(res.x).astype(int)
    met = sum(x[j] for key, j in index.items() if key[0] == "y" and key[4])
    ties = sum(x[j] for key, j in index.items() if key[0] == "y" and not key[4])
    unmet = sorted(" ".join(key[1:4]) for key, j in index.items() if key[0] == "y" and key[4] and not x[j]
                   and not x[index.get(("y", *key[1:4], False), j)])
    print(f"{suite}: {met} of Tables 5 and 6's dimension cells met, {ties} by an exact tie; unmet: {unmet}",
          file=sys.stderr)
    plan: dict = {}
    for c in sizes:
        for o, option in enumerate(options):
            n = x[index[("n", c, o)]]
            if n:
                plan.setdefault(c, []).append((option, int(n), {
                    model: {STATES[s]: int(x[index[("z", model, c, o, s)]]) for s in range(len(STATES))
                            if x[index[("z", model, c, o, s)]]} for model in counts}))
    return plan


# more_plan's result (python scripts/make_paper_fixtures.py --solve): per suite and class, (dimensions, variants,
# per model the variants in each state). TAC meets 29 of Table 5's 30 dimension cells and all 12 of Table 6's it
# constrains (the Claude rows'); SWE-Bench Pro 30 of 32 and 31 of 32 (tests/test_paper.py's KNOWN says why not the
# others).
MORE_PLANS = {
    'tac': {
        'outcome-critical': [
            (('goal',), 15, {
                'Claude Opus 4.5': {(0, 0): 6, (0, 1): 7, (1, 0): 2},
                'Gemini 3 Pro': {(-1, 0): 5, (0, -1): 2, (0, 0): 7, (1, 0): 1},
                'GPT-5.2': {(0, 0): 10, (0, 1): 5},
                'Claude Sonnet 4.5': {(0, 0): 15},
                'Gemini 3 Flash': {(0, 0): 12, (0, 1): 2, (1, -1): 1},
            }),
            (('constraint',), 2, {
                'Claude Opus 4.5': {(0, 1): 1, (1, 0): 1},
                'Gemini 3 Pro': {(0, 0): 2},
                'GPT-5.2': {(0, 1): 2},
                'Claude Sonnet 4.5': {(0, 1): 1, (1, 1): 1},
                'Gemini 3 Flash': {(1, -1): 2},
            }),
            (('input',), 16, {
                'Claude Opus 4.5': {(0, 0): 16},
                'Gemini 3 Pro': {(0, 0): 16},
                'GPT-5.2': {(0, 0): 14, (1, 0): 2},
                'Claude Sonnet 4.5': {(0, 0): 13, (0, 1): 3},
                'Gemini 3 Flash': {(0, -1): 6, (0, 0): 6, (0, 1): 4},
            }),
            (('goal', 'input'), 7, {
                'Claude Opus 4.5': {(0, 0): 7},
                'Gemini 3 Pro': {(-1, 1): 3, (1, 1): 4},
                'GPT-5.2': {(0, 0): 7},
                'Claude Sonnet 4.5': {(0, 0): 6, (0, 1): 1},
                'Gemini 3 Flash': {(0, 0): 7},
            }),
        ],
        'divergent': [
            (('goal',), 7, {
                'Claude Opus 4.5': {(0, 0): 7},
                'Gemini 3 Pro': {(0, 0): 3, (0, 1): 1, (1, -1): 2, (1, 0): 1},
                'GPT-5.2': {(-1, -1): 1, (0, 0): 1, (1, 1): 5},
                'Claude Sonnet 4.5': {(0, 1): 3, (1, 1): 4},
                'Gemini 3 Flash': {(0, 1): 4, (1, -1): 2, (1, 0): 1},
            }),
            (('constraint',), 3, {
                'Claude Opus 4.5': {(0, 1): 2, (1, 0): 1},
                'Gemini 3 Pro': {(-1, 0): 3},
                'GPT-5.2': {(0, 1): 1, (1, 0): 2},
                'Claude Sonnet 4.5': {(0, 0): 3},
                'Gemini 3 Flash': {(0, -1): 3},
            }),
            (('input',), 8, {
                'Claude Opus 4.5': {(0, 1): 1, (1, 0): 1, (1, 1): 6},
                'Gemini 3 Pro': {(0, -1): 5, (0, 0): 3},
                'GPT-5.2': {(-1, -1): 3, (0, 0): 1, (0, 1): 1, (1, 1): 3},
                'Claude Sonnet 4.5': {(0, 0): 4, (1, 0): 3, (1, 1): 1},
                'Gemini 3 Flash': {(0, 0): 4, (1, 0): 4},
            }),
            (('goal', 'constraint'), 7, {
                'Claude Opus 4.5': {(0, 0): 3, (1, 1): 4},
                'Gemini 3 Pro': {(-1, 1): 5, (1, 1): 2},
                'GPT-5.2': {(0, 0): 6, (1, 0): 1},
                'Claude Sonnet 4.5': {(0, 0): 3, (0, 1): 2, (1, 0): 2},
                'Gemini 3 Flash': {(0, -1): 6, (0, 0): 1},
            }),
            (('goal', 'input'), 2, {
                'Claude Opus 4.5': {(0, 0): 2},
                'Gemini 3 Pro': {(1, 1): 2},
                'GPT-5.2': {(0, 0): 2},
                'Claude Sonnet 4.5': {(0, 0): 2},
                'Gemini 3 Flash': {(1, 0): 2},
            }),
            (('constraint', 'input'), 3, {
                'Claude Opus 4.5': {(0, 0): 1, (0, 1): 1, (1, 0): 1},
                'Gemini 3 Pro': {(0, 0): 2, (1, 0): 1},
                'GPT-5.2': {(1, 1): 3},
                'Claude Sonnet 4.5': {(1, 1): 3},
                'Gemini 3 Flash': {(0, 1): 1, (1, -1): 1, (1, 0): 1},
            }),
        ],
        'benign': [
            (('goal',), 6, {
                'Claude Opus 4.5': {(1, 1): 6},
                'Gemini 3 Pro': {(-1, 0): 2, (-1, 1): 3, (1, 1): 1},
                'GPT-5.2': {(-1, -1): 1, (1, 1): 5},
                'Claude Sonnet 4.5': {(1, 1): 6},
                'Gemini 3 Flash': {(0, 0): 1, (1, 1): 5},
            }),
            (('constraint',), 1, {
                'Claude Opus 4.5': {(1, 0): 1},
                'Gemini 3 Pro': {(0, 0): 1},
                'GPT-5.2': {(-1, -1): 1},
                'Claude Sonnet 4.5': {(1, 0): 1},
                'Gemini 3 Flash': {(1, 1): 1},
            }),
            (('goal', 'constraint'), 1, {
                'Claude Opus 4.5': {(0, 0): 1},
                'Gemini 3 Pro': {(-1, 1): 1},
                'GPT-5.2': {(1, 1): 1},
                'Claude Sonnet 4.5': {(0, 1): 1},
                'Gemini 3 Flash': {(1, 1): 1},
            }),
            (('goal', 'input'), 6, {
                'Claude Opus 4.5': {(0, 1): 3, (1, 0): 2, (1, 1): 1},
                'Gemini 3 Pro': {(1, 1): 6},
                'GPT-5.2': {(-1, -1): 2, (0, 1): 1, (1, 1): 3},
                'Claude Sonnet 4.5': {(0, 0): 3, (1, 1): 3},
                'Gemini 3 Flash': {(0, 1): 1, (1, 0): 1, (1, 1): 4},
            }),
            (('constraint', 'input'), 1, {
                'Claude Opus 4.5': {(1, 1): 1},
                'Gemini 3 Pro': {(0, 0): 1},
                'GPT-5.2': {(1, 1): 1},
                'Claude Sonnet 4.5': {(1, 1): 1},
                'Gemini 3 Flash': {(1, 0): 1},
            }),
        ],
    },
    'swe-bench-pro': {
        'outcome-critical': [
            (('goal',), 8, {
                'Gemini 3 Pro': {(0, 0): 4, (1, 1): 4},
                'GPT-5.2': {(0, 0): 4, (0, 1): 4},
                'Claude Sonnet 4.5': {(0, 0): 1, (0, 1): 5, (1, 0): 2},
                'Gemini 3 Flash': {(0, 0): 8},
            }),
            (('constraint',), 1, {
                'Gemini 3 Pro': {(1, 0): 1},
                'GPT-5.2': {(0, 1): 1},
                'Claude Sonnet 4.5': {(1, 0): 1},
                'Gemini 3 Flash': {(1, 0): 1},
            }),
            (('input',), 2, {
                'Gemini 3 Pro': {(1, 1): 2},
                'GPT-5.2': {(0, 1): 2},
                'Claude Sonnet 4.5': {(0, 0): 1, (1, 0): 1},
                'Gemini 3 Flash': {(1, 0): 1, (1, 1): 1},
            }),
            (('goal', 'constraint'), 15, {
                'Gemini 3 Pro': {(0, 0): 9, (0, 1): 6},
                'GPT-5.2': {(0, 0): 4, (0, 1): 11},
                'Claude Sonnet 4.5': {(0, 0): 3, (0, 1): 6, (1, 0): 6},
                'Gemini 3 Flash': {(0, 0): 1, (0, 1): 6, (1, 0): 8},
            }),
            (('goal', 'input'), 3, {
                'Gemini 3 Pro': {(0, 1): 3},
                'GPT-5.2': {(0, 0): 1, (0, 1): 2},
                'Claude Sonnet 4.5': {(1, 1): 3},
                'Gemini 3 Flash': {(0, 1): 3},
            }),
            (('goal', 'context'), 1, {
                'Gemini 3 Pro': {(0, 1): 1},
                'GPT-5.2': {(0, 1): 1},
                'Claude Sonnet 4.5': {(0, 1): 1},
                'Gemini 3 Flash': {(1, 0): 1},
            }),
            (('constraint', 'context'), 1, {
                'Gemini 3 Pro': {(1, 0): 1},
                'GPT-5.2': {(0, 1): 1},
                'Claude Sonnet 4.5': {(1, 0): 1},
                'Gemini 3 Flash': {(0, 1): 1},
            }),
        ],
        'divergent': [
            (('goal',), 6, {
                'Gemini 3 Pro': {(0, 0): 2, (1, 0): 3, (1, 1): 1},
                'GPT-5.2': {(1, 1): 6},
                'Claude Sonnet 4.5': {(0, 0): 3, (1, 1): 3},
                'Gemini 3 Flash': {(0, 0): 1, (0, 1): 2, (1, 1): 3},
            }),
            (('constraint',), 1, {
                'Gemini 3 Pro': {(1, 0): 1},
                'GPT-5.2': {(1, 1): 1},
                'Claude Sonnet 4.5': {(1, 0): 1},
                'Gemini 3 Flash': {(1, 1): 1},
            }),
            (('input',), 3, {
                'Gemini 3 Pro': {(0, 1): 1, (1, 1): 2},
                'GPT-5.2': {(1, 1): 3},
                'Claude Sonnet 4.5': {(1, 0): 1, (1, 1): 2},
                'Gemini 3 Flash': {(1, 1): 3},
            }),
            (('context',), 7, {
                'Gemini 3 Pro': {(1, 1): 7},
                'GPT-5.2': {(1, 1): 7},
                'Claude Sonnet 4.5': {(1, 1): 7},
                'Gemini 3 Flash': {(0, 1): 3, (1, 0): 1, (1, 1): 3},
            }),
            (('goal', 'constraint'), 13, {
                'Gemini 3 Pro': {(1, 0): 3, (1, 1): 10},
                'GPT-5.2': {(1, 1): 13},
                'Claude Sonnet 4.5': {(1, 1): 13},
                'Gemini 3 Flash': {(1, 1): 13},
            }),
            (('goal', 'input'), 1, {
                'Gemini 3 Pro': {(0, 1): 1},
                'GPT-5.2': {(1, 1): 1},
                'Claude Sonnet 4.5': {(0, 1): 1},
                'Gemini 3 Flash': {(1, 1): 1},
            }),
            (('constraint', 'input'), 3, {
                'Gemini 3 Pro': {(1, 1): 3},
                'GPT-5.2': {(1, 1): 3},
                'Claude Sonnet 4.5': {(1, 1): 3},
                'Gemini 3 Flash': {(1, 0): 1, (1, 1): 2},
            }),
        ],
        'benign': [
            (('goal',), 13, {
                'Gemini 3 Pro': {(0, 1): 3, (1, 1): 10},
                'GPT-5.2': {(1, 1): 13},
                'Claude Sonnet 4.5': {(1, 1): 13},
                'Gemini 3 Flash': {(0, 1): 1, (1, 0): 3, (1, 1): 9},
            }),
            (('constraint',), 4, {
                'Gemini 3 Pro': {(1, 1): 4},
                'GPT-5.2': {(1, 1): 4},
                'Claude Sonnet 4.5': {(1, 1): 4},
                'Gemini 3 Flash': {(1, 1): 4},
            }),
            (('goal', 'constraint'), 4, {
                'Gemini 3 Pro': {(1, 0): 2, (1, 1): 2},
                'GPT-5.2': {(1, 1): 4},
                'Claude Sonnet 4.5': {(1, 1): 4},
                'Gemini 3 Flash': {(0, 0): 1, (1, 1): 3},
            }),
            (('goal', 'input'), 3, {
                'Gemini 3 Pro': {(1, 1): 3},
                'GPT-5.2': {(1, 1): 3},
                'Claude Sonnet 4.5': {(1, 1): 3},
                'Gemini 3 Flash': {(1, 1): 3},
            }),
            (('goal', 'context'), 3, {
                'Gemini 3 Pro': {(0, 1): 1, (1, 1): 2},
                'GPT-5.2': {(1, 1): 3},
                'Claude Sonnet 4.5': {(1, 1): 3},
                'Gemini 3 Flash': {(1, 1): 3},
            }),
            (('constraint', 'input'), 8, {
                'Gemini 3 Pro': {(1, 0): 1, (1, 1): 7},
                'GPT-5.2': {(1, 1): 8},
                'Claude Sonnet 4.5': {(1, 1): 8},
                'Gemini 3 Flash': {(1, 0): 1, (1, 1): 7},
            }),
        ],
    },
}


def _realize(rng: np.random.Generator, suite: str, layout: dict) -> tuple[dict, dict]:
    """``MORE_PLANS[suite]`` on the suite's variants: per class, each variant's dimensions, and per model, per class,
    each variant's state (``STATES``); which variant is which is drawn at random."""
    dims: dict[str, list] = {}
    states: dict[str, dict[str, list]] = {}
    for klass, variants in _variants(suite, layout).items():
        slots = [(option, j) for j, (option, n, _) in enumerate(MORE_PLANS[suite][klass]) for _ in range(n)]
        if len(slots) != len(variants):
            raise ValueError(f"MORE_PLANS[{suite!r}][{klass!r}] has {len(slots)} variants, the layout {len(variants)}")
        order = rng.permutation(len(slots))
        dims[klass] = [slots[i][0] for i in order]
        members = {j: [v for v, i in enumerate(order) if slots[i][1] == j] for j in range(len(MORE_PLANS[suite][klass]))}
        for model in LHAW_TABLE3_MORE[suite]:
            per = [(-1, -1)] * len(variants)
            for j, (_, _, by_model) in enumerate(MORE_PLANS[suite][klass]):
                pool = [s for s, k in by_model[model].items() for _ in range(k)]
                for v, i in zip(members[j], rng.permutation(len(pool))):
                    per[v] = pool[i]
            states.setdefault(model, {})[klass] = per
    return dims, states


def more_scores(rng: np.random.Generator, suite: str, model: str, dims: list, trials: list[tuple[int, int]],
                klass: list[str], overall: tuple[float, float], by_class: dict | None = None):
    """Mean checkpoint score of each variant's scored trials without the tool and with it (``trials``: how many
    each has under each condition; a variant with no result has none, a partial one one or two, kept low: the runs
    that crashed early). The trial-weighted means give ``overall`` (Table 3's Ckpt and gain, exactly), Table 6's per
    dimension and, if given, ``by_class`` (Table 10's per class); a linear program (scipy's linprog) keeping each
    variant as close as it can be to a skewed draw around the model's mean. Where Table 6's cells cannot all hold,
    the first one (in table order) whose omission lets the rest hold is given up."""
    from scipy.optimize import linprog

    n = len(dims)
    w_u = np.array([t[0] for t in trials], dtype=float)
    w_t = np.array([t[1] for t in trials], dtype=float)
    # the overall values exactly (Gain/Q divides their difference), unless the classes' printed means fix them
    groups = [(None, np.ones(n), overall, 0.045 if by_class else 0.001)]
    groups += [(d, np.array([d in ds for ds in dims], dtype=float), printed, 0.045)
               for d, printed in zip(MORE_DIMENSIONS[suite], LHAW_TABLE6_MORE[suite][model][1:])]
    groups += [(None, np.array([k == c for k in klass], dtype=float), printed, 0.045)
               for c, printed in (by_class or {}).items()]
    rows = []  # (label, coefficients, low, high)
    for d, member, (value, gain), half in groups:
        mean_u, mean_t = member * w_u / (member * w_u).sum(), member * w_t / (member * w_t).sum()
        for name, coef, (lo, hi) in ((f"{d} ckpt", np.concatenate([mean_u, 0 * mean_t]), _box(value, half)),
                                     (f"{d} ckpt gain", np.concatenate([-mean_u, mean_t]), _box(gain, half))):
            rows.append((name if d else None, np.concatenate([coef, np.zeros(4 * n)]), lo, hi))
    full_u, full_t = (np.array([t[j] == 3 for t in trials]) for j in (0, 1))
    target = np.concatenate([np.where(full_u, skewed(rng, n, overall[0] / 100), 0.12),
                             np.where(full_t, skewed(rng, n, (overall[0] + overall[1]) / 100), 0.12)])
    ub = [1.0 if f else 0.35 for f in np.concatenate([full_u, full_t])]
    a_eq = np.hstack([np.eye(2 * n), -np.eye(2 * n), np.eye(2 * n)])
    c = np.concatenate([np.zeros(2 * n), np.ones(4 * n)])
    for drop in (None, *(r[0] for r in rows if r[0])):
        kept = [r for r in rows if drop is None or r[0] != drop]
        res = linprog(c, A_ub=np.array([r[1] for r in kept] + [-r[1] for r in kept]),
                      b_ub=np.array([r[3] for r in kept] + [-r[2] for r in kept]), A_eq=a_eq, b_eq=target,
                      bounds=[(0, u) for u in ub] + [(0, None)] * (4 * n), method="highs")
        if res.x is not None:
            if drop:
                print(f"{suite} {model}: Table 6's {drop} given up", file=sys.stderr)
            return res.x[:n], res.x[n:2 * n]
    raise RuntimeError(f"no checkpoint scores for {model} on {suite}: {res.message}")


def _random_cells(rng, n_variants: int, counts: tuple[int, int, int, int], means: tuple[float, float], cover: bool):
    """Which of a class's variants have results and pass without and with the tool, drawn at random to the counts,
    and each variant's trial scores, around the class's mean (see ``_lhaw_cells``)."""
    nu, ku, nt, kt = counts
    # every variant has a result in at least one condition where the counts allow (Table 3's Ask % is a
    # share of all the suite's variants: TAC 85)
    order_t = rng.permutation(n_variants)
    valid_t = set(order_t[:nt].tolist())
    rest = [int(i) for i in order_t[nt:]]
    if not cover and nu <= nt:
        valid_u = set(rng.permutation(sorted(valid_t))[:nu].tolist())
    elif nu >= len(rest):
        valid_u = set(rest) | set(rng.permutation(sorted(valid_t))[: nu - len(rest)].tolist())
    else:
        valid_u = set(rng.permutation(n_variants)[:nu].tolist())
    pass_u = passing_trials(rng, rng.permutation(sorted(valid_u))[:ku])
    pass_t = passing_trials(rng, rng.permutation(sorted(valid_t))[:kt])
    scores = {i: [[], []] for i in range(n_variants)}
    for valid, mean, j in ((valid_u, means[0], 0), (valid_t, means[1], 1)):
        full = iter(skewed(rng, 3 * len(valid), mean / 100))
        for i in sorted(valid):
            scores[i][j] = [next(full) for _ in range(3)]
    return valid_u, valid_t, pass_u, pass_t, {}, {}, scores


def _partial_trials(rng, without: list[bool]) -> dict[int, set[int]]:
    """Of the variants ``without`` a result, about a third with one or two scored trials (the others failed)."""
    return {i: set(rng.choice([1, 2, 3], int(rng.integers(1, 3)), replace=False).tolist())
            for i, none in enumerate(without) if none and rng.random() < 1 / 3}


def _model_plan(rng, suite: str, model: str, dims: dict, states: dict, partial: bool, overall: tuple[float, float],
                by_class: dict | None = None) -> dict:
    """One model's ``plan`` for ``_lhaw_cells``: per class, each variant's states (``_realize``), partial trials
    and mean Ckpt without and with the tool (``more_scores``); and the Ckpt gain (pp) they give."""
    per = {c: [{"u": s[0], "t": s[1]} for s in states[model][c]] for c in states[model]}
    for c, variants in per.items():
        for side in ("u", "t"):
            part = _partial_trials(rng, [p[side] < 0 for p in variants]) if partial else {}
            for i, p in enumerate(variants):
                p[f"part_{side}"] = part.get(i, set())
    flat = [(c, i, p) for c, variants in per.items() for i, p in enumerate(variants)]
    trials = [(3 if p["u"] >= 0 else len(p["part_u"]), 3 if p["t"] >= 0 else len(p["part_t"])) for _, _, p in flat]
    m_u, m_t = more_scores(rng, suite, model, [dims[c][i] for c, i, _ in flat], trials, [c for c, _, _ in flat],
                           overall, by_class)
    for (_, _, p), a, b in zip(flat, m_u, m_t):
        p["mu"], p["mt"] = float(a), float(b)
    w_u, w_t = (np.array([t[j] for t in trials]) for j in (0, 1))
    return per, 100 * (float(np.dot(w_t, m_t)) / w_t.sum() - float(np.dot(w_u, m_u)) / w_u.sum())


def _lhaw_cells(rng, suite: str, layout: dict, model: str, policy: str, counts: list, means: list | None,
                asks: list[tuple[int, int, int]], base: tuple[set, float] | None, cover: bool = True,
                plan: dict | None = None) -> list[dict]:
    """Runs of one model and agent over a suite's variants, built to per-class counts: ``counts`` (n and passing
    without and with the tool), ``means`` (Ckpt % without and with it), ``asks`` (asking variants, asking
    trials, questions); variants without a result under a condition get error runs there. With ``cover``,
    every variant has a result in at least one condition where the counts allow; without, the variants
    with results without the tool are among those with results with it. A ``plan`` fixes all of that per
    variant instead (per class: each variant's state without and with the tool, its partial trials, one or two
    scored trials where the variant has no result, and its mean Ckpt; from ``_model_plan``), and ``means`` is
    None."""
    common = {"benchmark": "lhaw", "suite": suite, "model": model}
    records = []
    for (klass, variants), count, mean, (v_ask, n_ask, n_q) in zip(
            _variants(suite, layout).items(), counts, means or [None] * len(counts), asks):
        if plan is not None:
            per = plan[klass]
            valid_u, valid_t = ({i for i, p in enumerate(per) if p[side] >= 0} for side in ("u", "t"))
            pass_u, pass_t = (passing_trials(rng, [i for i, p in enumerate(per) if p[side] == 1]) for side in ("u", "t"))
            part_u, part_t = ({i: p[key] for i, p in enumerate(per) if p[key]} for key in ("part_u", "part_t"))
            scores = {i: (skewed(rng, 3 if p["u"] >= 0 else len(p["part_u"]), p["mu"]),
                          skewed(rng, 3 if p["t"] >= 0 else len(p["part_t"]), p["mt"])) for i, p in enumerate(per)}
        else:
            valid_u, valid_t, pass_u, pass_t, part_u, part_t, scores = _random_cells(rng, len(variants), count, mean,
                                                                                     cover)
        asking_pool = sorted(valid_t)
        per_variant = _asking_trials(rng, len(asking_pool), v_ask, n_ask)
        asking = dict(zip(asking_pool, per_variant))
        q_per = [1] * n_ask
        for j in rng.integers(0, max(n_ask, 1), n_q - n_ask):
            q_per[j] += 1
        q_iter = iter(q_per)
        for i, (task, variant) in enumerate(variants):
            s_u, s_t = (iter(x) for x in scores[i])
            for trial in (1, 2, 3):
                run = {**common, "task_id": task, "variant_id": variant, "spec": "ambiguous", "trial": trial}
                if i in valid_u or trial in part_u.get(i, ()):
                    records.append({**run, "ask_tool": False, "policy": policy, "score": round(next(s_u), 6),
                                    "passed": trial in pass_u.get(i, ())})
                else:
                    records.append({**run, "ask_tool": False, "policy": policy, "status": "error"})
                if i in valid_t or trial in part_t.get(i, ()):
                    rec = {**run, "ask_tool": True, "policy": policy, "score": round(next(s_t), 6),
                           "passed": trial in pass_t.get(i, ())}
                    if i in valid_t and trial <= asking.get(i, 0):
                        rec["questions"] = [{"text": f"Question {q + 1}?", "response": "Answer."}
                                            for q in range(next(q_iter))]
                    records.append(rec)
                else:
                    records.append({**run, "ask_tool": True, "policy": policy, "status": "error"})
    if base is not None:
        failing, ckpt = base
        tasks = sorted({t for spec in layout.values() for t, _ in spec})
        scores = iter(skewed(rng, 3 * len(tasks), ckpt / 100))
        passes = passing_trials(rng, [t for t in tasks if t not in failing])
        for t in tasks:
            for trial in (1, 2, 3):
                records.append({**common, "task_id": _task_id(suite, t), "spec": "full", "ask_tool": False,
                                "trial": trial, "score": round(next(scores), 6), "passed": trial in passes.get(t, ())})
    return records


def lhaw_more(rng: np.random.Generator) -> list[dict]:
    """TheAgentCompany and SWE-Bench Pro: Tables 3, 5, 6, 8, 9, 10, 12, 13."""
    records = []
    for suite, layout in (("tac", TAC_LAYOUT), ("swe-bench-pro", SWE_LAYOUT)):
        classes = LHAW_MORE_CLASSES[suite]
        dims, states = _realize(rng, suite, layout)
        for klass, variants in _variants(suite, layout).items():
            for (task, variant), ds in zip(variants, dims[klass]):
                records.append({"record": "task", "benchmark": "lhaw", "suite": suite, "task_id": task,
                                "variant_id": variant, "blockers": [{"id": f"S{j + 1}", "type": d} for j, d in enumerate(ds)],
                                "dimensions": list(ds), "ambiguity_class": klass})
        for model, (counts, cover) in _more_counts(suite).items():
            b_pass, b_ckpt, ask_pct, avg, under, gain, gpq_p, ckpt, ckpt_gain, gpq_c = LHAW_TABLE3_MORE[suite][model]
            if suite == "tac" and model == "Gemini 3 Flash":
                ckpt = TAC_FLASH_CKPT
            failing = (SWE_BASE_FAILING if suite == "swe-bench-pro" else TAC_BASE_FAILING)[model]
            ku, nu = sum(c[1] for c in counts), sum(c[0] for c in counts)
            kt, nt = sum(c[3] for c in counts), sum(c[2] for c in counts)
            pass_gain = 100 * (kt / nt - ku / nu)
            t10 = LHAW_TABLE10["default"] if suite == "tac" and model == "GPT-5.2" else None
            # Ask % is over the variants with results in either condition: all of the suite's where the counts
            # allow; GPT-5.2 on TAC has results on 77 (Table 10), and 87% is 67/77 (the split of Table 10's
            # per-class %Ask then fits more cells than with 74/85)
            plan, score_gain = _model_plan(rng, suite, model, dims, states, partial=suite == "tac" and not t10,
                                           overall=(ckpt, ckpt_gain),
                                           by_class={c: t10[c][2:4] for c in classes} if t10 else None)
            n_all = sum(classes.values()) if cover else max(nu, nt)
            v_ask, n_ask, n_q = _questions(n_all, ask_pct, avg, (pass_gain, score_gain), (gpq_p, gpq_c), nt)
            nt_c = [c[2] for c in counts]
            if t10:
                split = _split_questions(nt_c, [t10[c][4:] for c in classes], t10["overall"][4:], (v_ask, n_ask, n_q))
            else:  # asking variants in proportion to the classes' variants, trials and questions to those
                v_c = allocate([100 * n / nt for n in nt_c], v_ask)
                a_c = allocate([100 * v / max(v_ask, 1) for v in v_c], n_ask)
                split = list(zip(a_c, allocate([100 * a / max(n_ask, 1) for a in a_c], n_q)))
            asks = [(v, a, q) for v, (a, q) in zip(_asking_variants([a for a, _ in split], nt_c, v_ask), split)]
            records += _lhaw_cells(rng, suite, layout, model, "default", counts, None, asks,
                                   (failing, b_ckpt), cover, plan=plan)
    # Table 10's other strategies: GPT-5.2 on TAC, each also run without the tool
    classes = LHAW_MORE_CLASSES["tac"]
    for policy, rows in LHAW_TABLE10.items():
        if policy == "default":
            continue
        counts = _strategy_counts(rows, classes)
        split = _split_questions([c[2] for c in counts], [rows[c][4:] for c in classes], rows["overall"][4:], None)
        asks = [(min(a, n), a, q) for (a, q), n in zip(split, [c[2] for c in counts])]
        records += _lhaw_cells(rng, "tac", TAC_LAYOUT, "GPT-5.2", policy, counts, _strategy_means(rows, counts), asks,
                               None)
    return records


def lhaw_more_printed() -> list[dict]:
    cells = []
    for suite, models in LHAW_TABLE3_MORE.items():
        for model, row in models.items():
            for col, v, d, pct in zip(("base_pass_at_k", "base_mean_score", "ask_pct", "avg_per_traj", "pass_at_k",
                                       "pass_gain_pp", "pass_gain_pp_per_question", "mean_score", "score_gain_pp",
                                       "score_gain_pp_per_question"), row, (1, 1, 0, 2, 1, 1, 2, 1, 1, 2),
                                      (True, True, False, False, True, False, False, True, False, False)):
                cells.append({"table": "LHAW Table 3", "suite": suite, "model": model, "policy": "default",
                              "column": col, "value": v, "digits": d, "percent": pct})
    for table, suite, printed in (("LHAW Table 8", "tac", LHAW_TABLE8), ("LHAW Table 9", "swe-bench-pro", LHAW_TABLE9)):
        for name, models in printed.items():
            for model, values in models.items():
                for t in ((table, "LHAW Table 12") if name == "outcome-critical" else (table,)):
                    for col, v in zip(("base_pass_at_k", "pass_at_k", "pass_at_k_with_tool"), values):
                        cell = {"table": t, "suite": suite, "model": model, "policy": "default", "class": name,
                                "column": col, "value": v, "digits": 2}
                        if suite == "tac":
                            cell["rounding"] = "floor"
                        cells.append(cell)
    for table, printed, cols, base_col in (("LHAW Table 5", LHAW_TABLE5_MORE, ("pass_at_k", "pass_gain_pp"), 0),
                                           ("LHAW Table 6", LHAW_TABLE6_MORE, ("mean_score", "score_gain_pp"), 1)):
        for suite, models in printed.items():
            for model, rows in models.items():
                cells.append({"table": table, "suite": suite, "model": model, "policy": "default", "class": "all",
                              "column": ("base_pass_at_k", "base_mean_score")[base_col],
                              "value": LHAW_TABLE3_MORE[suite][model][base_col], "digits": 1, "percent": True})
                for dim, (value, gain) in zip(("all", *MORE_DIMENSIONS[suite]), rows):
                    for col, v, pct in zip(cols, (value, gain), (True, False)):
                        cells.append({"table": table, "suite": suite, "model": model, "policy": "default",
                                      "class": dim, "column": col, "value": v, "digits": 1, "percent": pct})
    for suite, values in LHAW_TABLE13_MORE.items():
        for col, v in zip(("base_pass_at_k", "pass_at_k", "pass_at_k_with_tool"), values):
            cells.append({"table": "LHAW Table 13", "suite": suite, "column": col, "value": v, "digits": 2})
    for policy, rows in LHAW_TABLE10.items():
        for name, row in rows.items():
            for col, v, d, pct in zip(("pass_at_k", "pass_gain_pp", "mean_score", "score_gain_pp", "ask_pct",
                                       "avg_per_traj"), row, (1, 1, 1, 1, 0, 1), (True, False, True, False, False, False)):
                cells.append({"table": "LHAW Table 10", "suite": "tac", "model": "GPT-5.2", "policy": policy,
                              "class": name, "column": col, "value": v, "digits": d, "percent": pct})
    return cells


# Ambig-DS Table 7: inferability selectors' accuracy over the 51 target tasks (correct picks)
TABLE7 = {"A_marginal_entropy": 30, "B_basic_cv_hgb": 25, "C_strong_cv_lgb": 26, "D_llm_schema": 32,
          "E_llm_noprompt": 28, "F_frontier_llm": 29}


def inferability_audit(rng: np.random.Generator) -> str:
    """The harness's inferability_audit.csv: task, selector, pick, truth, correct."""
    lines = ["task,selector,pick,truth,correct"]
    for selector, k in TABLE7.items():
        right = set(rng.permutation(51)[:k].tolist())
        for i in range(51):
            truth = "val_2" if i % 2 else "val_1"
            pick = truth if i in right else ("val_1" if truth == "val_2" else "val_2")
            lines.append(f"target-task-{i:02d},{selector},{pick},{truth},{int(i in right)}")
    return "\n".join(lines) + "\n"


def main() -> None:
    if sys.argv[1:] == ["--solve"]:  # re-derive MORE_PLANS (minutes): paste the output over it
        print("MORE_PLANS = {")
        for suite in MORE_DIMENSIONS:
            print(f"    {suite!r}: {more_plan(suite)!r},")
        print("}")
        return
    OUT.mkdir(parents=True, exist_ok=True)
    for i, (name, build) in enumerate((("ambig-ds", ambig_ds), ("hil-bench", hil_bench), ("lhaw", lhaw))):
        records = build(np.random.default_rng([2026, i]))
        if name == "lhaw":
            records += lhaw_more(np.random.default_rng([2026, 8]))
        records.sort(key=lambda r: r.get("record") != "task")
        with open(OUT / f"{name}.jsonl", "w", encoding="utf-8", newline="\n") as fh:
            for rec in records:
                fh.write(json.dumps(rec, separators=(",", ":")) + "\n")
        print(f"wrote {OUT / name}.jsonl ({len(records)} records)")
    (OUT / "inferability_audit.csv").write_text(inferability_audit(np.random.default_rng([2026, 7])), encoding="utf-8")
    cells = ambig_ds_printed() + hil_printed() + lhaw_printed() + lhaw_more_printed()
    (OUT / "printed.json").write_text(json.dumps(cells, indent=0) + "\n", encoding="utf-8")
    print(f"wrote {OUT / 'printed.json'} ({len(cells)} printed cells)")


if __name__ == "__main__":
    main()
