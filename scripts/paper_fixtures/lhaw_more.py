"""LHAW on TheAgentCompany and SWE-Bench Pro: runs built from the plans, and the cells they reproduce."""

from __future__ import annotations

import sys

import numpy as np

from .common import _box, allocate, passing_trials, skewed
from .lhaw_mcp import _asking_trials
from .lhaw_more_counts import (
    _asking_variants,
    _more_counts,
    _questions,
    _split_questions,
    _strategy_counts,
    _strategy_means,
    _task_id,
    _variants,
)
from .lhaw_more_plans import MORE_PLANS
from .lhaw_more_printed import (
    LHAW_MORE_CLASSES,
    LHAW_TABLE3_MORE,
    LHAW_TABLE5_MORE,
    LHAW_TABLE6_MORE,
    LHAW_TABLE8,
    LHAW_TABLE9,
    LHAW_TABLE10,
    LHAW_TABLE13_MORE,
    MORE_DIMENSIONS,
    SWE_BASE_FAILING,
    SWE_LAYOUT,
    TAC_BASE_FAILING,
    TAC_FLASH_CKPT,
    TAC_LAYOUT,
)


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
    for variants in per.values():
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
            for col, v, d, pct in zip(("base_pass_at_k", "base_mean_score", "variant_ask_pct", "avg_per_traj", "pass_at_k",
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
            for col, v, d, pct in zip(("pass_at_k", "pass_gain_pp", "mean_score", "score_gain_pp", "trial_ask_pct",
                                       "avg_per_traj"), row, (1, 1, 1, 1, 0, 1), (True, False, True, False, False, False)):
                cells.append({"table": "LHAW Table 10", "suite": "tac", "model": "GPT-5.2", "policy": policy,
                              "class": name, "column": col, "value": v, "digits": d, "percent": pct})
    return cells
