"""What the log holds: LHAW's ambiguity class of each variant, from the terminal states of its trials."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ambiglib.metrics._common import _work
from ambiglib.runset import RunSet, arrow_of

__all__ = ["ambiguity_classes"]


def _as_bool(label: object) -> bool | None:
    text = str(label).strip().lower()
    if text in ("true", "yes", "1"):
        return True
    if text in ("false", "no", "0"):
        return False
    return None


def ambiguity_classes(rs: RunSet) -> pd.DataFrame:
    """Classify each variant by its trials without the ask tool (LHAW Definition 3.1).

    Per (suite, model, variant): c = successful trials, S = distinct terminal
    states (the tuple of checkpoint results; ``passed`` when a run has no
    checkpoints). c = 0 and |S| > 1 → outcome-critical; c > 0 and |S| > 1 →
    divergent; c > 0 and |S| = 1 → benign; c = 0 and |S| = 1 → new-task, unless the
    majority of the variant's ``new_task`` judge labels is false, which makes it
    outcome-critical.

    Returns
    -------
    pandas.DataFrame
        ``suite, model, variant_id, n_trials, n_successes, n_terminal_states,
        ambiguity_class``.

    References
    ----------
    LHAW Definition 3.1; runlog-v1 B.5.
    """
    work = _work(rs)
    runs = work[(work["spec"] == "ambiguous") & ~work["ask_tool"] & ~work["error"]
                & (work["protocol"] == "solve")]
    # each run's checkpoints, by its row in rs.runs (``_work`` keeps the rows in order, numbered from 0),
    # made Python values in one conversion rather than one lookup and one conversion per run
    checkpoints = rs.runs["checkpoints"].iloc[runs.index.to_numpy()]
    arrow = arrow_of(checkpoints)
    cps = arrow.to_pylist() if arrow is not None else checkpoints.tolist()
    states: list[tuple[object, ...]] = []  # checkpoint results, or ("passed", verdict) without them
    for cp, passed in zip(cps, runs["passed"]):
        if isinstance(cp, (list, np.ndarray)) and len(cp):
            states.append(tuple(float(c["result"]) for c in cp))
        else:
            states.append(("passed", None if passed != passed else bool(passed)))
    runs = runs.assign(_state=states)
    keys = ["suite", "model", "variant_id"]
    g = runs.groupby(keys, sort=True)
    out = pd.DataFrame({"n_trials": g.size(), "n_successes": g["passed"].sum().astype(int),
                        "n_terminal_states": g["_state"].nunique()}).reset_index()
    c, s = out["n_successes"].to_numpy(), out["n_terminal_states"].to_numpy()
    klass = np.select([(c == 0) & (s > 1), (c > 0) & (s > 1), (c > 0) & (s == 1)],
                      ["outcome-critical", "divergent", "benign"], "new-task").astype(object)
    labels = rs.labels[rs.labels["facet"] == "new_task"]
    if len(labels):
        lab = labels[["run_id", "label"]].astype(object).merge(work[["run_id", *keys]], on="run_id")
        lab["_bool"] = lab["label"].map(_as_bool)
        votes = lab.dropna(subset=["_bool"]).groupby(keys)["_bool"].agg(["sum", "count"])
        not_new = votes[votes["sum"] * 2 < votes["count"]].index  # a strict majority says "not a new task"
        is_not_new = pd.MultiIndex.from_frame(out[keys]).isin(not_new)
        klass = np.where((klass == "new-task") & is_not_new, "outcome-critical", klass)
    out["ambiguity_class"] = klass
    return out
