"""A paired comparison task by task (:func:`per_task`): which tasks make the difference."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ambiglib.comparisons._comparable import COMPARABLE
from ambiglib.comparisons._pairing import (
    _SIDES,
    _collapsed,
    _fixed,
    _groups,
    _nothing_to_compare,
    _ordered_pairs,
    _side_order,
    _sides,
)
from ambiglib.runset import RunSet
from ambiglib.tables._common import as_table


@as_table
def per_task(rs: RunSet, *, metric: str = "mean_score", between: str = "model",
             condition: tuple[str, bool] | None = ("ambiguous", True), a: object = None, b: object = None, k: int = 3,
             conventions: Mapping[str, str] | None = None, pool_suites: bool = False) -> pd.DataFrame:
    """Tabulate a paired comparison task by task: which tasks make the difference.

    The same pairs, blocks and per-task values as :func:`paired_comparison` (its arguments mean the same): one row
    per task valued on both sides, ``value_a, value_b, difference`` (a − b) and ``changed``: for pass/fail values
    (every value 0 or 1) ``a`` or ``b`` where only that side passed, else the side whose value is higher; ``=``
    for a tie. Sorted by the size of the difference, largest first, within each comparison. A metric that is a
    mean of its per-task values (``mean_score``) has the comparison's difference as the mean of ``difference``;
    a pooled ratio (Ask-F1, pass@k over unequal trials) weighs its tasks, so the mean of the rows differs from it.
    """
    if between not in _SIDES:
        raise ValueError(f"per_task: between must be one of {list(_SIDES)} (got {between!r})")
    if metric not in COMPARABLE:
        raise ValueError(f"per_task: metric must be one of {sorted(COMPARABLE)} (got {metric!r})")
    if (a is None) != (b is None):
        raise ValueError("per_task: give both a and b (or neither: every pair)")
    fixed, order = _fixed(rs, between), _side_order(rs, between)
    rows: list[pd.DataFrame] = []
    why: list = []
    for head, block, _, _, sums, _ in _groups(rs, metric, between, condition, k, conventions, pool_suites, fixed,
                                              why, []):
        for side_a, side_b in _ordered_pairs(list(block[between].unique()), (a, b), between, order):
            ta, tb, shared = _sides(block, between, side_a, side_b)
            ta, tb = ta.loc[shared], tb.loc[shared]
            valued = np.asarray(sums.defined(ta[sums.cols]), bool) & np.asarray(sums.defined(tb[sums.cols]), bool)
            if not valued.any():
                continue
            x = np.asarray(sums.stat({c: ta[c].to_numpy(float)[valued] for c in sums.cols}), float)
            y = np.asarray(sums.stat({c: tb[c].to_numpy(float)[valued] for c in sums.cols}), float)
            binary = np.isin(np.concatenate([x, y]), (0.0, 1.0)).all()
            changed = np.where(x > y, "a", np.where(x < y, "b", "="))
            frame = pd.DataFrame({**head, f"{between}_a": side_a, f"{between}_b": side_b, "task_id": shared[valued],
                                  "value_a": x, "value_b": y, "difference": x - y, "changed": changed,
                                  "pass_fail": binary})
            rank = np.argsort(-np.abs(frame["difference"].to_numpy()), kind="stable")
            rows.append(frame.iloc[rank])
    columns = ["benchmark", "suite", *fixed, f"{between}_a", f"{between}_b", "task_id", "value_a", "value_b",
               "difference", "changed", "pass_fail"]
    out = pd.concat(rows, ignore_index=True)[columns] if rows else pd.DataFrame(columns=columns)
    notes = _collapsed(why)
    if len(out) == 0 and not notes:
        notes.append(_nothing_to_compare(rs, between))
    if notes:
        out.attrs["note"] = "; ".join(notes)
    return out
