"""LHAW on TheAgentCompany and SWE-Bench Pro: the plans (terminal states per variant and model) that meet
every printed cell, found by an integer program (``--solve``) and kept here so the fixtures are deterministic."""

from __future__ import annotations

import itertools
import sys

import numpy as np

from .common import _box
from .lhaw_more_counts import _more_counts
from .lhaw_more_printed import (
    LHAW_MORE_CLASSES,
    LHAW_TABLE3_MORE,
    LHAW_TABLE5_MORE,
    LHAW_TABLE6_MORE,
    MORE_DIMENSIONS,
    STATES,
)


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
                add({**{w: n for n, w in zip(ns, ws)}, **{i: -1 for i in select(model, lambda s, j=j: s[j] >= 0, d)}}, 0, 0)
                add({**dict.fromkeys(ks, 1), **{i: -1 for i in select(model, lambda s, j=j: s[j] == 1, d)}}, 0, 0)
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
