"""ambiglib.tables._asking: pass rates share full-information runs across policies; tables display their notes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ambiglib import RunSet

ROOT = Path(__file__).resolve().parents[1]

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
    assert set(out["scope"]) == {"s"}  # one suite: its rows are the combined ones, shown once (issue 37)
    got = {(m, p): (f, n, t) for m, p, s, f, n, t in out[
        ["model", "policy", "scope", *tables.PASS_RATE_COLUMNS]].itertuples(index=False)}
    assert got[("m", "q")] == (0.5, 0.0, 0.5)  # q has no no-tool runs of its own: the default policy's
    assert got[("m", "r")] == (0.5, 1.0, 0.0)  # r has its own
    assert got[("n", "–")][0] == 1.0 and np.isnan(got[("n", "–")][1]) and np.isnan(got[("n", "–")][2])
    gap = tables.judgment_gap(RunSet.from_records(records)).set_index(["model", "policy"])
    assert gap.loc[("m", "q"), "pass_at_k_full_info"] == 0.5 and gap.loc[("m", "r"), "pass_at_k_no_tool"] == 1.0


def test_tables_show_their_caption_and_note_in_jupyter():
    # every table is a Table: a DataFrame (merge, indexing, to_csv unchanged) whose display shows caption and note
    import ambiglib
    from ambiglib import tables

    rs, _ = ambiglib.load(ROOT / "tests" / "fixtures" / "inspect", strict=False)
    empty = tables.framing_categories(rs)
    assert isinstance(empty, pd.DataFrame) and isinstance(empty, tables.Table) and len(empty) == 0
    page = empty._repr_html_()
    assert "no runs with a framing category in this log" in page and "<th>" not in page
    assert "Ambig-DS Tables 2 and 3" in page  # the caption: what the table reproduces
    gap = tables.judgment_gap(rs)
    page = gap._repr_html_()
    assert "<table" in page and "note: clarify: no Ask-F1 for data-chores mockllm/plain" in page
    assert isinstance(gap[gap["model"] == "mockllm/careful"], tables.Table)
    assert repr(gap) == repr(pd.DataFrame(gap))  # the plain-text display is the DataFrame's
    # a note or a caption is text, never markup
    hostile = tables.Table({"a": [1]})
    hostile.attrs = {"note": "<script>x</script>", "caption": "<b>c</b>"}
    assert "<script>" not in hostile._repr_html_() and "&lt;script&gt;" in hostile._repr_html_()


def test_hil_bench_tables_take_pass_at_k_from_the_first_k_valid_passes_and_others_the_unbiased_estimator():
    """HIL-Bench's summarize_rows: pass@k = any success in the first k valid passes, ordered by pass number
    (harness-formats §4.6), not the unbiased estimator. With exactly k passes the two agree, so the paper
    fixtures cannot tell them apart: five passes can. Task a succeeds only in pass 5, b in pass 2, c's first pass
    failed on an infrastructure error and it succeeds in pass 4 (its third valid pass). By hand: first-k =
    (0 + 1 + 1) / 3; unbiased = mean of 1 − C(n−c, 3)/C(n, 3) = (0.6 + 0.6 + 0.75) / 3."""
    from ambiglib import tables

    success = {"a": {5}, "b": {2}, "c": {4}}

    def records(benchmark):
        out = [{"record": "task", "benchmark": benchmark, "suite": "sql", "task_id": t, "blockers": [{"id": "b0"}]}
               for t in success]
        for t, passes in success.items():
            for trial in range(1, 6):
                status = "error" if (t, trial) == ("c", 1) else "ok"
                for spec, tool in (("full", False), ("ambiguous", True)):
                    out.append({"benchmark": benchmark, "suite": "sql", "task_id": t, "model": "m", "spec": spec,
                                "ask_tool": tool, "trial": trial, "status": status,
                                **({} if status == "error" else {"passed": trial in passes})})
        return out

    hil = tables.judgment_gap(RunSet.from_records(records("hil-bench"))).iloc[0]
    assert hil["pass_at_k_with_tool"] == hil["pass_at_k_full_info"] == 2 / 3
    mine = tables.judgment_gap(RunSet.from_records(records("mine"))).iloc[0]
    assert mine["pass_at_k_with_tool"] == pytest.approx((0.6 + 0.6 + 0.75) / 3)
    board = tables.leaderboard(RunSet.from_records(records("hil-bench")))
    assert set(board["pass_at_k"].dropna()) == {2 / 3}
