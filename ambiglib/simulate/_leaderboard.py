"""A leaderboard of known truth: many agents on one benchmark of one's own, each with the propensities it is
given, for checking what the rankings and their sentences claim (``bench/ranking.py``, ``tests/test_ranking.py``).

Tasks differ, and the same for every agent: a task's difficulty shifts every agent's chance to pass it, and its
clarity every agent's chance to ask, on the logit scale. So the agents' outcomes on one task are correlated, as on
a real benchmark, and a comparison paired by task has something to gain. Trials of one task are independent given
the task. Each agent runs every task fully specified and ambiguous, with the ask tool and without.

With the tool on an ambiguous task, a run asks with the agent's chance; an asking run asks about each registered
blocker with the agent's recall and adds irrelevant questions (Poisson); its chance to pass climbs from the
no-tool chance towards the fully specified one with the share of blockers it resolved. Asking pays off only
through what it resolves, as in HIL-Bench's design.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["SimAgent", "leaderboard_records"]


@dataclass(frozen=True)
class SimAgent:
    """One agent's propensities, each a probability (``irrelevant``: a mean count) on a task of average
    difficulty and clarity."""

    name: str
    ask_ambiguous: float = 0.6  # chance a with-tool run on an ambiguous task asks at all
    ask_full: float = 0.2  # the same on a fully specified task (over-asking)
    recall: float = 0.5  # chance an asking run asks about each registered blocker
    irrelevant: float = 0.5  # mean irrelevant questions of an asking run
    pass_full: float = 0.7  # chance to pass fully specified
    pass_no_tool: float = 0.3  # chance to pass an ambiguous task without the tool


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return float(np.log(p / (1 - p)))


def _expit(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    return 1 / (1 + np.exp(-x))


def leaderboard_records(agents: Sequence[SimAgent], *, n_tasks: int = 60, trials: int = 3, seed: int = 0,
                        benchmark: str = "leaderboard", difficulty_sd: float = 1.0, clarity_sd: float = 0.8,
                        blockers: tuple[int, int] = (1, 3)) -> list[dict[str, Any]]:
    """Canonical records (task records first) of every agent on ``n_tasks`` tasks, ``trials`` trials a condition.

    ``difficulty_sd`` and ``clarity_sd``: the spread of the tasks' shifts of the chance to pass and to ask (logit
    scale; 0: every task alike); ``blockers``: the fewest and most blockers a task registers."""
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0, difficulty_sd, n_tasks)
    clarity = rng.normal(0, clarity_sd, n_tasks)
    n_blockers = rng.integers(blockers[0], blockers[1] + 1, n_tasks)
    records: list[dict[str, Any]] = []
    for t in range(n_tasks):
        records.append({"record": "task", "benchmark": benchmark, "suite": "main", "task_id": f"task{t:03d}",
                        "blockers": [{"id": f"task{t:03d}_b{j}"} for j in range(int(n_blockers[t]))]})
    for agent in agents:
        p_full = _expit(_logit(agent.pass_full) + difficulty)
        p_none = _expit(_logit(agent.pass_no_tool) + difficulty)
        ask_amb = _expit(_logit(agent.ask_ambiguous) + clarity)
        ask_full = _expit(_logit(agent.ask_full) + clarity)
        for t in range(n_tasks):
            task_id = f"task{t:03d}"
            base = {"benchmark": benchmark, "suite": "main", "task_id": task_id, "model": agent.name}
            for trial in range(1, trials + 1):
                for spec, tool in (("full", False), ("ambiguous", False), ("ambiguous", True), ("full", True)):
                    rec: dict[str, Any] = {**base, "spec": spec, "ask_tool": tool, "trial": trial}
                    questions: list[dict[str, Any]] = []
                    resolved = 0.0
                    if tool and rng.random() < (ask_amb[t] if spec == "ambiguous" else ask_full[t]):
                        if spec == "ambiguous":
                            found = [f"{task_id}_b{j}" for j in range(int(n_blockers[t])) if rng.random() < agent.recall]
                            questions += [{"text": f"What about {b}?", "blocker_id": b} for b in found]
                            resolved = len(found) / int(n_blockers[t])
                        extra = int(rng.poisson(agent.irrelevant))
                        questions += [{"text": f"Anything else ({k})?", "blocker_id": None} for k in range(extra)]
                        if not questions:  # an asking run asks something
                            questions.append({"text": "Anything else?", "blocker_id": None})
                    if spec == "full":
                        p = p_full[t]
                    else:
                        p = p_none[t] + (p_full[t] - p_none[t]) * resolved
                    passed = bool(rng.random() < p)
                    rec.update(passed=passed, score=1.0 if passed else 0.0)
                    if questions:
                        rec["questions"] = questions
                    records.append(rec)
    return records
