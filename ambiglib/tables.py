"""Paper-shaped tables, built only from the frames, ``metrics`` and ``stats``.

Each function returns a DataFrame laid out like the printed table it reproduces;
the table is named in the docstring.
"""

from __future__ import annotations

import pandas as pd

from .runset import RunSet

__all__ = ["blocker_stats"]


def blocker_stats(rs: RunSet, *, benchmark: str = "hil-bench") -> pd.DataFrame:
    """Tabulate the registered blockers per suite, in the style of HIL-Bench Table 3.

    Returns
    -------
    pandas.DataFrame
        One row per statistic (``statistic``): tasks, average and total blockers,
        tasks with each number of blockers, then for each blocker ``type`` its count
        and its share of the suite's blockers (%); one column per suite and ``Total``.
        Values are unrounded; rounding is for rendering.

    References
    ----------
    HIL-Bench Appendix E, Table 3 (dataset statistics). The public registries use
    their own type names (SQL: question / business info / schema; SWE: missing
    parameters / contradictory requirements / ambiguous requirements), not the
    paper's three categories (harness-formats §5, item 24).
    """
    tasks = rs.tasks[rs.tasks["benchmark"] == benchmark]
    blockers = rs.blockers[rs.blockers["benchmark"] == benchmark]
    suites = sorted(tasks["suite"].astype(str).unique())
    columns = {}
    for suite in [*suites, "Total"]:
        t = tasks if suite == "Total" else tasks[tasks["suite"] == suite]
        b = blockers if suite == "Total" else blockers[blockers["suite"] == suite]
        col: dict[str, float] = {
            "Tasks": len(t),
            "Avg. blockers / task": float(t["n_blockers"].mean()) if len(t) else float("nan"),
            "Total blockers": int(t["n_blockers"].sum()),
        }
        for n, count in t["n_blockers"].value_counts().sort_index().items():
            col[f"Tasks with {n} blockers"] = int(count)
        types = b["type"].astype(object).fillna("(no type)").value_counts()
        for name, count in types.sort_index().items():
            col[f"{name}"] = int(count)
            col[f"{name} (%)"] = 100 * count / len(b)
        columns[suite] = col
    order = list(dict.fromkeys(k for col in columns.values() for k in col))
    head = ["Tasks", "Avg. blockers / task", "Total blockers"]
    counts = sorted(k for k in order if k.startswith("Tasks with "))
    types = sorted(k for k in order if k not in head and k not in counts)
    out = pd.DataFrame(columns).reindex([*head, *counts, *types])
    return out.rename_axis("statistic").reset_index()
