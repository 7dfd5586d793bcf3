"""ambiglib.tables.asking: pass rates share full-information runs across policies."""

from __future__ import annotations

import numpy as np

from ambiglib import RunSet

def test_pass_rates_share_full_information_with_every_policy_and_no_tool_runs_by_policy():
    # HIL-Bench Figure 1A / Table 1: full-information runs are shared by every with-tool policy (whatever
    # policy they carry); no-tool runs of the policy itself where there are any (LHAW Table 10), else the
    # default policy's; a model never run with the tool gets one row, policy "–"
    from ambiglib import tables

    records = [{"record": "task", "benchmark": "mine", "suite": "s", "task_id": f"t{i}", "blockers": [{"id": "b"}]}
               for i in range(2)]
    for i in range(2):
        for trial in (1, 2, 3):
            common = {"benchmark": "mine", "suite": "s", "task_id": f"t{i}", "trial": trial}
            records += [
                {**common, "model": "m", "spec": "full", "ask_tool": False, "policy": "p", "passed": i == 0},
                {**common, "model": "m", "spec": "ambiguous", "ask_tool": False, "passed": False},
                {**common, "model": "m", "spec": "ambiguous", "ask_tool": False, "policy": "r", "passed": True},
                {**common, "model": "m", "spec": "ambiguous", "ask_tool": True, "policy": "q", "passed": i == 1},
                {**common, "model": "m", "spec": "ambiguous", "ask_tool": True, "policy": "r", "passed": False},
                {**common, "model": "n", "spec": "full", "ask_tool": False, "passed": True},
            ]
    out = tables.pass_rates(RunSet.from_records(records), k=3)
    got = {(m, p): (f, n, t) for m, p, s, f, n, t in out[out["scope"] == "combined"][
        ["model", "policy", "scope", *tables.PASS_RATE_COLUMNS]].itertuples(index=False)}
    assert got[("m", "q")] == (0.5, 0.0, 0.5)  # q has no no-tool runs of its own: the default policy's
    assert got[("m", "r")] == (0.5, 1.0, 0.0)  # r has its own
    assert got[("n", "–")][0] == 1.0 and np.isnan(got[("n", "–")][1]) and np.isnan(got[("n", "–")][2])
    gap = tables.judgment_gap(RunSet.from_records(records)).set_index(["model", "policy"])
    assert gap.loc[("m", "q"), "pass_at_k_full_info"] == 0.5 and gap.loc[("m", "r"), "pass_at_k_no_tool"] == 1.0
