"""LHAW on TheAgentCompany and SWE-Bench Pro: counts and means fitted to the printed cells (Tables 3, 10,
13-15), and how questions split over variants."""

from __future__ import annotations

import itertools
import math

import numpy as np

from .common import floor2, shown
from .lhaw_more_printed import (
    LHAW_MORE_CLASSES,
    LHAW_TABLE3_MORE,
    LHAW_TABLE8,
    LHAW_TABLE9,
    LHAW_TABLE10,
    LHAW_TABLE13_MORE,
)


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
