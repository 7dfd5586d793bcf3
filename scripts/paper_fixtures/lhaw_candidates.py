"""LHAW Table 11 (pipeline validation): the candidate variants each removal strategy made of TheAgentCompany's
tasks, with Gemini-3-Flash's three no-tool trials each, whose terminal states put every candidate in the class
the table counts (Definition 3.1). The candidates are not the released variants (the benchmark keeps only the
retained ones): they are a run folder of their own, ``data/paper-candidates/``, and a suite of their own,
``tac-candidates``."""

from __future__ import annotations

import numpy as np

#: Table 11: Pass@3 (%), then candidates per class: outcome-critical, divergent, benign, new task. The caption says
#: n = 233 candidates; VAGUIFY's classes sum to 229 (173 + 39 + 5 + 12), and its 19.2% is 44 of 229 (of 233: 18.9%)
LHAW_TABLE11 = {"DELETE": (29.6, 146, 54, 15, 18), "VAGUIFY": (19.2, 173, 39, 5, 12),
                "GENERICIZE": (27.5, 151, 54, 10, 18)}

CLASSES = ("outcome-critical", "divergent", "benign", "new-task")

#: three checkpoints of one point each: a passing trial gets them all; failing trials end in one of these states
_PASS, _FAILED = (1, 1, 1), ((1, 0, 0), (1, 1, 0), (0, 0, 0))


def _trials(klass: str, rng: np.random.Generator) -> list[tuple[int, ...]]:
    """Three terminal states giving ``klass``: c successes and |S| distinct states (Definition 3.1)."""
    if klass == "benign":  # c > 0, one state: every trial passes
        return [_PASS] * 3
    if klass == "new-task":  # c = 0, one state: every trial fails the same way
        return [_FAILED[int(rng.integers(3))]] * 3
    if klass == "outcome-critical":  # c = 0, several states
        a, b = rng.choice(3, 2, replace=False)
        states = [_FAILED[a], _FAILED[b], _FAILED[int(rng.choice([a, b]))]]
    else:  # divergent: c > 0, several states
        states = [_PASS, _FAILED[int(rng.integers(3))], _PASS if rng.random() < 0.5 else _FAILED[int(rng.integers(3))]]
    return [states[i] for i in rng.permutation(3)]


def lhaw_candidates(rng: np.random.Generator) -> list[dict]:
    records = []
    for strategy, (_, *counts) in LHAW_TABLE11.items():
        classes = [k for k, n in zip(CLASSES, counts) for _ in range(n)]
        for j, i in enumerate(rng.permutation(len(classes))):
            task, variant = f"tac-task-{j % 13:03d}", f"{strategy.lower()}-{j:03d}"
            # a candidate removes at least one segment; which dimension, Table 11 does not say
            records.append({"record": "task", "benchmark": "lhaw", "suite": "tac-candidates", "task_id": task,
                            "variant_id": variant, "strategy": strategy, "blockers": [{"id": "S1"}]})
            for trial, state in enumerate(_trials(classes[i], rng), start=1):
                records.append({"benchmark": "lhaw", "suite": "tac-candidates", "model": "Gemini 3 Flash",
                                "task_id": task, "variant_id": variant, "spec": "ambiguous", "ask_tool": False,
                                "trial": trial, "passed": state == _PASS, "score": round(sum(state) / 3, 6),
                                "checkpoints": [{"result": r, "total": 1} for r in state]})
    return records


def lhaw_candidates_printed() -> list[dict]:
    cells = []
    for strategy, (pass3, *counts) in LHAW_TABLE11.items():
        base = {"table": "LHAW Table 11", "suite": "tac-candidates", "model": "Gemini 3 Flash", "strategy": strategy}
        cells.append({**base, "column": "n_variants", "value": 233, "digits": 0})
        cells.append({**base, "column": "pass_at_k", "value": pass3, "digits": 1, "percent": True})
        cells += [{**base, "column": k, "value": n, "digits": 0} for k, n in zip(CLASSES, counts)]
    return cells
