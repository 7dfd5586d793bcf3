"""ambiglib.metrics._data against LHAW's Definition 3.1 of the ambiguity classes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ambiglib import RunSet, metrics


def test_ambiguity_classes_follow_lhaw_definition_3_1():
    def trials(variant, results, passed):
        return [{"benchmark": "lhaw", "suite": "tac", "task_id": "t", "variant_id": variant, "model": "m",
                 "spec": "ambiguous", "ask_tool": False, "trial": i + 1, "passed": p,
                 "checkpoints": [{"result": r, "total": 2} for r in res]}
                for i, (res, p) in enumerate(zip(results, passed))]
    records = (trials("oc", [(0, 1), (1, 1), (0, 1)], [False] * 3)          # c = 0, |S| = 2
               + trials("div", [(2, 2), (1, 2), (2, 2)], [True, False, True])  # c > 0, |S| = 2
               + trials("ben", [(2, 2)] * 3, [True] * 3)                      # c > 0, |S| = 1
               + trials("new", [(0, 0)] * 3, [False] * 3)                     # c = 0, |S| = 1
               + trials("judged", [(0, 0)] * 3, [False] * 3))
    # a majority of new_task labels saying "false" turns a new-task variant into outcome-critical
    for r, label in zip([r for r in records if r["variant_id"] == "judged"], ["false", "false", "true"]):
        r["labels"] = [{"facet": "new_task", "label": label}]
    records.append({"benchmark": "lhaw", "suite": "tac", "task_id": "t", "variant_id": "div", "model": "m",
                    "spec": "ambiguous", "ask_tool": True, "trial": 1, "passed": False})  # with tool: ignored
    out = metrics.ambiguity_classes(RunSet.from_records(records)).set_index("variant_id")
    assert out["ambiguity_class"].to_dict() == {"ben": "benign", "div": "divergent", "judged": "outcome-critical",
                                                "new": "new-task", "oc": "outcome-critical"}
    assert out.loc["div", ["n_trials", "n_successes", "n_terminal_states"]].tolist() == [3, 2, 2]
    # each run's checkpoints are its own whatever the runs frame's row labels and order (built by hand)
    rs = RunSet.from_records(records)
    order = np.random.default_rng(3).permutation(len(rs.runs))
    shuffled = RunSet(**{**rs.frames(), "runs": rs.runs.iloc[order].set_axis(np.arange(len(order))[::-1] * 7)})
    again = metrics.ambiguity_classes(shuffled).set_index("variant_id")
    pd.testing.assert_frame_equal(again, out)


def test_ambiguity_classes_use_passed_when_there_are_no_checkpoints():
    records = [{"benchmark": "lhaw", "suite": "swe-bench-pro", "task_id": "t", "model": "m", "spec": "ambiguous",
                "ask_tool": False, "trial": i, "passed": p} for i, p in ((1, True), (2, False), (3, False))]
    out = metrics.ambiguity_classes(RunSet.from_records(records)).iloc[0]
    assert (out["n_terminal_states"], out["ambiguity_class"]) == (2, "divergent")
