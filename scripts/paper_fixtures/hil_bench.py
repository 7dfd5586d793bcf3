"""HIL-Bench (seed paper 001): runs whose Ask-F1, pass@3 and failure-mode tables give back Tables 1-7 and
Figures 2-6 as printed."""

from __future__ import annotations

import numpy as np

from .common import fit_counts, passing_trials, shown, votes

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
        types = iter(_blocker_types(suite))
        for t, k in zip(tasks, per_task):
            records.append({"record": "task", "benchmark": "hil-bench", "suite": suite, "task_id": t,
                            "blockers": [{"id": f"b{j}", "type": next(types)} for j in range(k)]})
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


# Table 3 (Appendix E): blockers per type, SWE and SQL. Its totals (150 tasks each; 533 and 598 blockers) are
# HIL_TASKS; the shares are printed beside the counts (205 of 533 is 38.5%), and Total is the two suites' sum
HIL_TABLE3_TYPES = {"Missing information": (205, 271), "Ambiguous requests": (161, 247),
                    "Contradictory information": (167, 80)}


def _blocker_types(suite: str) -> list[str]:
    """Each registered blocker's type, Table 3's counts in an order of their own (a seeded generator of this
    function's, so the rest of the fixture is as it was)."""
    i = 0 if suite == "swe" else 1
    types = [name for name, counts in HIL_TABLE3_TYPES.items() for _ in range(counts[i])]
    assert len(types) == HIL_TASKS[suite][1], (suite, len(types))
    return [types[j] for j in np.random.default_rng([2026, 9, i]).permutation(len(types))]


def hil_table3_printed() -> list[dict]:
    """Table 3's cells: tasks, average and total blockers, each type's count and share, per suite and in total."""
    cells = []
    for column in ("swe", "sql", "Total"):
        suites = ("swe", "sql") if column == "Total" else (column,)
        tasks, total = sum(HIL_TASKS[s][0] for s in suites), sum(HIL_TASKS[s][1] for s in suites)
        rows = [("Tasks", tasks, 0), ("Avg. blockers / task", {"swe": 3.55, "sql": 3.99, "Total": 3.77}[column], 2),
                ("Total blockers", total, 0)]
        shares = {"swe": (38.5, 30.2, 31.3), "sql": (45.3, 41.3, 13.4), "Total": (42.1, 36.1, 21.8)}[column]
        for (name, counts), share in zip(HIL_TABLE3_TYPES.items(), shares):
            rows += [(name, sum(counts[0 if s == "swe" else 1] for s in suites), 0), (f"{name} (%)", share, 1)]
        cells += [{"table": "HIL-Bench Table 3", "row": row, "column": column, "value": v, "digits": d}
                  for row, v, d in rows]
    return cells


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
