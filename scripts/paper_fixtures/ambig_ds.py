"""Ambig-DS (seed paper 000): runs whose tables give back Tables 1-15 as printed, the objective judges' votes
(Table 9), and the harness's inferability audit (Table 7)."""

from __future__ import annotations

import numpy as np

from .ambig_ds_statistics import TABLE1_P, TABLE12, TABLE12_SIGN_READ, fit_statistics
from .common import _solve_means, allocate, by_ease, fit_counts, shown, skewed, votes

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


def ambig_ds(rng: np.random.Generator, solve_pairings: bool = False, found: dict | None = None) -> list[dict]:
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
                            # exactly one self-contained question under 50 words (Ambig-DS §4.4, the protocol); the
                            # draws that once made follow-ups are still taken, so every other value stays as it was
                            blocker = "target" if suite == "target" else "metric"
                            rec["questions"] = [{"text": "Which framing should the submission use?",
                                                 "blocker_id": blocker, "response": "The intended one.",
                                                 "in_scope": True}]
                            for _ in range(int(rng.integers(0, 3))):
                                rng.random()
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
                    labels, errors = None, set()
                    if spec == "full" and policy == "permissive":
                        # over the judged runs: "correct (silent)" did not ask. Every row fits all 61 or 51 runs but
                        # Objective GPT-5.4 Nano's, which fits 58 (17% is 10 of 58, no k/61): 3 runs ended in an
                        # API error, which the judge never saw (as the recognition audit drops them, C.5)
                        n_judged, (k,) = _judged(n, TABLE14[(suite, model)])
                        labels = [lab for lab, c in zip(OVER_ASK[1:], k[1:]) for _ in range(c)]
                        order = rng.permutation(n).tolist()
                        asked = set(order[: sum(k[1:])])
                        errors = set(order[sum(k[1:]): sum(k[1:]) + n - n_judged])
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
                        if i in errors:
                            rec["status"] = "error"
                        if i in asked:  # one question per asking run (Ambig-DS §4.4); the old count's draw kept
                            rng.integers(1, 4)
                            rec["questions"] = [{"text": "Could you clarify the task framing?", "in_scope": True}]
                            if labels is not None:
                                pool = OVER_ASK[1:] if facet == "over_ask" else ("correct_asked", "wrong_topic")
                                rec["labels"] = [{"facet": facet, "label": vote, "judge": "claude", "call": c}
                                                 for c, vote in enumerate(votes(rng, labels[li], pool), start=1)]
                                li += 1
                        records.append(rec)
    fit_statistics(records, solve_pairings, found)
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
    for (suite, model), printed in TABLE1_P.items():  # the Wilcoxon p-values, fitted by fit_statistics
        for col, text in zip(("p_full_gt_ambig", "p_ask_gt_ambig"), printed):
            cells.append({"table": "Ambig-DS Table 1", "suite": suite, "model": model, "column": col,
                          "value": float(text.rstrip("*")), "digits": 3, "printed_as": text,
                          **({"rounding": "p below 0.001 prints 0.001"} if text.endswith("***") else {})})
    for (suite, model), intervals in TABLE12.items():  # Table 12's intervals, fitted by fit_statistics
        for delta, (low, high) in zip(("delta_ambig", "delta_ask"), intervals):
            for col, v in ((f"{delta}_ci_low", low), (f"{delta}_ci_high", high)):
                cell = {"table": "Ambig-DS Table 12", "suite": suite, "model": model, "column": col, "value": v,
                        "digits": 2}
                if delta == "delta_ambig":
                    cell["printed_as"] = f"{abs(v):.2f} (sign lost in the text)"
                elif col.endswith("low") and (suite, model) in TABLE12_SIGN_READ:
                    cell["printed_as"] = f"{v:.2f} (no sign printed; read from the interval's symmetry)"
                cells.append(cell)
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
