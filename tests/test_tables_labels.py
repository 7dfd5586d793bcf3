"""ambiglib.tables._labels by hand: judge reliability."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from builders import run

from ambiglib import RunSet, agreement


def test_judge_reliability_by_hand():
    from statsmodels.stats.inter_rater import cohens_kappa

    from ambiglib import tables

    gpt = ["y", "x", "y", "x", "x", "y"]
    records = []
    for i in range(6):
        a = ["x", "x", "x"] if i % 2 else ["y", "y", "x"]
        labels = [{"facet": "trace", "label": lab, "judge": "claude", "call": c + 1} for c, lab in enumerate(a)]
        labels.append({"facet": "trace", "label": gpt[i], "judge": "gpt", "call": 1})
        records.append(run(f"t{i}", labels=labels, category="x" if i else "y"))
    out = tables.judge_reliability(RunSet.from_records(records)).set_index("diagnostic")
    claude = pd.DataFrame([{"run_id": f"r{i}", "call": c, "label": lab} for i in range(6)
                           for c, lab in enumerate(["x", "x", "x"] if i % 2 else ["y", "y", "x"])])
    assert out.loc["Fleiss kappa (3 calls)", "value"] == pytest.approx(agreement.fleiss_kappa(claude))
    # majority labels: claude y,x,y,x,y,x; gpt y,x,y,x,x,y → rows claude x/y, columns gpt x/y: [[2, 1], [1, 2]]
    assert out.loc["Cohen kappa between judges", "value"] == pytest.approx(cohens_kappa([[2, 1], [1, 2]]).kappa)
    assert out.loc["Cohen kappa between judges", "value"] == pytest.approx(1 / 3)
    # each judge's majority vs the final category (y, x, x, x, x, x): claude y, x, y, x, y, x overridden on
    # r2 and r4, 2 of 6; gpt y, x, y, x, x, y on r2 and r5, 2 of 6 (Ambig-DS Table 9: the Claude panel's rate)
    rows = out.loc["override rate (category differs from judge majority)"].set_index("judge")
    assert (rows.loc["claude", "value"], rows.loc["claude", "n"]) == (pytest.approx(2 / 6), 6)
    assert (rows.loc["gpt", "value"], rows.loc["gpt", "n"]) == (pytest.approx(2 / 6), 6)
    # a failed run's category (timeout) agrees with the judges' "invalid"
    failed = [run("tf", status="timeout", category="timeout",
                  labels=[{"facet": "trace", "label": "invalid", "judge": "claude", "call": c} for c in (1, 2, 3)])]
    out = tables.judge_reliability(RunSet.from_records(records + failed)).set_index("diagnostic")
    rows = out.loc["override rate (category differs from judge majority)"].set_index("judge")
    assert (rows.loc["claude", "value"], rows.loc["claude", "n"]) == (pytest.approx(2 / 7), 7)


def test_failure_mode_shift_without_one_side_is_an_empty_table_saying_which():
    """On HIL-Bench runs with the ask tool only, failure_mode_shift raised KeyError: 'baseline'."""
    from pathlib import Path

    import ambiglib
    from ambiglib import tables

    rs = ambiglib.load(Path(__file__).resolve().parents[1] / "data" / "example", quiet=True)
    asking = tables.failure_mode_shift(rs.filter(benchmark="hil-bench", ask_tool=True))
    assert len(asking) == 0 and asking.attrs["note"] == (
        "hil-bench: no mode 'baseline' with failure traces to compare (the log has 'ask_human')")
    one_suite = tables.failure_mode_shift(rs.filter(benchmark="hil-bench", suite="sql"), between="suite")
    assert len(one_suite) == 0 and one_suite.attrs["note"] == (
        "hil-bench: needs two suites with failure traces to compare (the log has 'sql')")
    # both sides present: one row per suite and model with labelled traces in both modes, and each row's shifts sum
    # to 0 pp (each side's shares of the same labelled runs sum to 100%)
    shift = tables.failure_mode_shift(rs)
    labelled = rs.labels[rs.labels["facet"] == "failure.tool_use"].merge(
        rs.runs[["run_id", "suite", "model", "ask_tool", "spec", "benchmark"]], on="run_id")
    labelled = labelled[(labelled["spec"] == "ambiguous") & (labelled["benchmark"] == "hil-bench")]  # the two modes
    both = labelled.groupby(["suite", "model"])["ask_tool"].nunique()
    assert sorted(map(tuple, shift[["suite", "model"]].astype(str).to_numpy())) == \
        sorted(map(tuple, both[both == 2].index.to_frame().astype(str).to_numpy()))
    modes = [c for c in shift.columns if c not in ("benchmark", "suite", "model") and not c.startswith("n_")]
    np.testing.assert_allclose(shift[modes].fillna(0).sum(axis=1).to_numpy(float), 0.0, atol=1e-9)
