"""Run, task and question records built by hand for the metric and table tests, and a row picker."""

from __future__ import annotations

import numpy as np
import pandas as pd


def run(task="t1", model="m", spec="ambiguous", ask_tool=True, trial=1, **extra):
    rec = {"benchmark": "hil-bench", "suite": "sql", "task_id": task, "model": model, "spec": spec,
           "ask_tool": ask_tool, "trial": trial}
    rec.update(extra)
    return rec


def task(task_id="t1", n_blockers=3, benchmark="hil-bench", suite="sql", variant_id=None):
    rec = {"record": "task", "benchmark": benchmark, "suite": suite, "task_id": task_id,
           "blockers": [{"id": f"b{i}"} for i in range(n_blockers)]}
    if variant_id:
        rec["variant_id"] = variant_id
    return rec


def q(blocker=None, text="q?"):
    return {"text": text, "blocker_id": blocker}


def row(frame: pd.DataFrame, **where) -> pd.Series:
    mask = np.ones(len(frame), bool)
    for k, v in where.items():
        mask &= (frame[k] == v).to_numpy()
    assert mask.sum() == 1, (where, frame)
    return frame[mask].iloc[0]
