"""HIL-Bench's ``run_hil_bench.summarize_rows``: its summary of the pass-level rows, as its own code computes it.

:func:`summarize_rows` is what ``summary_metrics.json`` holds: the pass filter, first-k pass@k, per-pass means
over the valid passes, and the pooled Ask-F1. :func:`ambiglib.metrics._harness.harness_summary` applies it to a
run set's runs; the simulator writes it beside the harness's other files. The rows are columns
(:data:`PassRows`): a large log's hundreds of thousands of passes are never one dict each."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ambiglib.importers._hilbench.conventions import ask_prf

__all__ = ["PassRows", "pass_columns", "summarize_rows", "TOTALLED"]


def _objects(values: Sequence[Any]) -> np.ndarray:
    """``values`` as a 1-D object array, each item as it is (``np.array`` would make lists of lists a 2-D array)."""
    return np.fromiter(values, dtype=object, count=len(values))


def _codes(values: np.ndarray | pd.Series) -> tuple[np.ndarray, list]:
    """Each value's code into the distinct values, told apart as dict keys are (pandas' hash table); missing: None."""
    codes, distinct = pd.factorize(values)
    distinct = list(distinct)
    if len(codes) and codes.min() < 0:
        codes = np.where(codes < 0, len(distinct), codes)
        distinct.append(None)
    return codes.astype(np.int64), distinct


def _ranks(values: np.ndarray) -> np.ndarray:
    """Each value's place among the distinct values in Python's sort order (equal values, equal places)."""
    codes, distinct = _codes(values)
    rank = np.empty(len(distinct), dtype=np.int64)
    rank[sorted(range(len(distinct)), key=distinct.__getitem__)] = np.arange(len(distinct))
    return rank[codes]


def _f(x: Any) -> float:
    return float(x) if x is not None and x == x else 0.0


#: the pass-level fields ``summarize_rows`` sums over a cell's passes
TOTALLED = ("cost", "num_steps", "tokens_sent", "tokens_received", "num_questions", "num_blockers_resolved",
            "total_num_blockers")


#: The harness's pass-level rows, column by column (:func:`pass_columns`; ``metrics.harness._hil_rows``): ``task``,
#: ``model``, ``mode`` (object arrays), ``pass_num`` (int), ``valid`` and ``resolved`` (bool), and ``totals``, one
#: float column per :data:`TOTALLED` field (missing: 0.0, as ``summarize_rows`` adds them); ``_hil_rows`` adds
#: ``benchmark``, ``suite`` and ``passes`` (the harness's pass count where the importer kept it, else None)
PassRows = dict[str, np.ndarray]


def pass_columns(rows: list[dict[str, Any]]) -> PassRows:
    """Pass-level rows given one dict each (``task``, ``model``, ``mode``, ``pass_num``, ``valid``, ``resolved`` and
    the :data:`TOTALLED` fields), as :func:`summarize_rows` takes them."""
    return {"task": _objects([r["task"] for r in rows]), "model": _objects([r["model"] for r in rows]),
            "mode": _objects([r["mode"] for r in rows]),
            "pass_num": np.array([int(r["pass_num"]) for r in rows], dtype=np.int64),
            "valid": np.array([bool(r["valid"]) for r in rows], dtype=bool),
            "resolved": np.array([bool(r["resolved"]) for r in rows], dtype=bool),
            "totals": np.array([[_f(r[k]) for k in TOTALLED] for r in rows], dtype=float)
            .reshape(-1, len(TOTALLED))}


def summarize_rows(rows: PassRows, include_partial: bool, expected: int
                   ) -> dict[tuple[str, str], dict[str, tuple[float, int]]]:
    """``summarize_rows``: the pass filter, first-k pass@k, and per-pass means over valid passes.

    An attempt is a (task, model, mode): its valid passes in pass order, kept when there are ``expected`` of them
    (one, ``include_partial``). A cell is a (mode, model): its kept attempts in task order. Each field is added
    with ``sum()`` over the cell's passes in that order, as the harness adds them: the same floats."""
    task, model, mode = _ranks(rows["task"]), _ranks(rows["model"]), _ranks(rows["mode"])
    # attempts numbered in the order of their (task, model, mode), as sorted() orders the tuples
    n_models, n_modes = int(model.max(initial=0)) + 1, int(mode.max(initial=0)) + 1
    key = (task * n_models + model) * n_modes + mode
    heads, attempt = np.unique(key, return_index=True, return_inverse=True)[1:]
    valid = np.flatnonzero(rows["valid"])
    passes = valid[np.lexsort((rows["pass_num"][valid], attempt[valid]))]  # by attempt, then pass (stable)
    n_valid = np.bincount(attempt[passes], minlength=len(heads))
    kept = n_valid >= 1 if include_partial else n_valid >= expected
    # each attempt's first resolved pass (its place among its valid passes), or its number of valid passes
    place = np.arange(len(passes)) - (np.cumsum(n_valid) - n_valid)[attempt[passes]]
    resolved = rows["resolved"][passes]
    first = n_valid.copy()
    solved_at, where = np.unique(attempt[passes][resolved], return_index=True)
    first[solved_at] = place[resolved][where]
    cell = mode[heads] * n_models + model[heads]  # (mode, model), sorted as the tuples are
    out = {}
    for c in np.unique(cell[kept]).tolist():
        mine = kept & (cell == c)
        head = heads[np.flatnonzero(mine)[0]]
        cell_passes = passes[mine[attempt[passes]]]
        n = len(cell_passes)
        n_cell = int(mine.sum())
        tot = {k: sum(rows["totals"][cell_passes, j].tolist()) for j, k in enumerate(TOTALLED)}
        stats: dict[str, tuple[float, int]] = {
            "num_included_attempts": (n_cell, n_cell), "num_passes": (expected, n_cell),
            "total_attempts_and_passes": (n, n),
            "avg_cost_per_pass": (tot["cost"] / n if n else 0.0, n),
            "avg_steps_per_pass": (tot["num_steps"] / n if n else 0.0, n),
            "avg_tokens_sent_per_pass": (tot["tokens_sent"] / n if n else 0.0, n),
            "avg_tokens_received_per_pass": (tot["tokens_received"] / n if n else 0.0, n),
            "avg_tokens_total_per_pass": ((tot["tokens_sent"] + tot["tokens_received"]) / n if n else 0.0, n),
        }
        # an attempt with k valid passes solves first-k pass@k when its first resolved pass is among its first k
        lengths, firsts = n_valid[mine], first[mine]
        for k in range(1, expected + 1):
            eligible = lengths >= k
            count = int(eligible.sum())
            solved = int((firsts[eligible] < k).sum())
            stats[f"pass_at_{k}"] = (solved / count if count else 0.0, count)
        cell_mode = rows["mode"][head]
        if cell_mode == "ask_human":
            q, found, present = tot["num_questions"], tot["num_blockers_resolved"], tot["total_num_blockers"]
            p, rec, f1 = ask_prf(found, q, present)
            stats["ask_precision"] = (p, n)
            stats["ask_recall"] = (rec, n)
            stats["ask_f1"] = (f1, n)
            stats["avg_num_questions_per_pass"] = (q / n if n else 0.0, n)
        out[(cell_mode, rows["model"][head])] = stats
    return out
