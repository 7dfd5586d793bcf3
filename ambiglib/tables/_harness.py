"""What the harness said: its own summary numbers recomputed, the anomalies its output shows, and each
headline number under the paper's definition beside the harness's."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ambiglib import metrics
from ambiglib.metrics._harness import _made_by, harness_anomalies, harness_summary
from ambiglib.runset import RunSet
from ambiglib.tables._common import as_table

__all__ = ["harness_summary", "harness_anomalies", "convention_audit"]


@as_table
def convention_audit(rs: RunSet, *, harness: str | dict[str, str] | None = None,
                     summary: pd.DataFrame | None = None) -> pd.DataFrame:
    """Set each headline number under the paper's definition beside the harness's, with the difference.

    Rows: HIL-Bench precision, recall and Ask-F1 (paper: relevant questions over all valid runs;
    harness: ``summary_metrics.json`` as :func:`harness_summary` recomputes it — distinct blockers
    over trajectory questions, asking passes only, its pass filter and invalid-pass rules) and
    pass@3 (unbiased vs the harness's first 3 valid passes); LHAW Ask % (variants with an asking
    trial, as Table 3 prints, vs trials, as the text says) and the pass@3 gain with each condition
    scored over its own variants (as LHAW prints) vs over the variants with results in both
    (``paired=True``). ``anomalies`` lists what the importers flagged in that cell's harness output
    (:func:`harness_anomalies`: e.g. questions missing from the server log, one log entry pooling
    several passes).

    Rows come from the runs each harness wrote (``meta.harness``, set by the importers; a run
    log of the paper's own benchmark name counts as its harness's), or from the benchmarks
    ``harness`` maps to a harness, as in :func:`harness_summary`.

    ``summary``, when given, is ``harness_summary(rs, harness=harness)`` already computed (the
    conventions notebook shows it too): its rows are used instead of recomputing them, which on a
    large log is most of this table's time.

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, quantity, paper, harness, difference, anomalies``.
    """
    rows = []
    made_by = _made_by(rs.runs, harness)
    by_harness = {h: sorted(set(rs.runs["benchmark"].astype(object)[made_by == h])) for h in ("hil-bench", "lhaw")}
    for bench in by_harness["hil-bench"]:
        hil = rs.filter(benchmark=bench)
        paper = metrics.ask_f1(hil).set_index(["suite", "model"])
        mine = harness_summary(hil, harness=harness) if summary is None else summary[summary["benchmark"] == bench]
        mine = mine[mine["condition"] == "ask_human"].set_index(["suite", "model", "statistic"])["value"]
        # a cell absent from the harness's summary (its pass filter left no attempt) has no harness number
        for (suite, model), p in paper.iterrows():
            for q, stat in (("precision", "ask_precision"), ("recall", "ask_recall"), ("ask_f1", "ask_f1")):
                rows.append((bench, suite, model, q, p[q], mine.get((suite, model, stat), np.nan)))
        tool = hil.filter(spec="ambiguous", ask_tool=True)
        unb = metrics.pass_at_k(tool, k=3).set_index(["suite", "model"])
        for (suite, model), r in unb.iterrows():
            rows.append((bench, suite, model, "pass@3 with ask_human", r["pass_at_k"],
                         mine.get((suite, model, "pass_at_3"), np.nan)))
    for bench in by_harness["lhaw"]:
        lhaw = rs.filter(benchmark=bench)
        voi = metrics.value_of_information(lhaw, by=("suite", "model", "policy"), paired=False)
        same = metrics.value_of_information(lhaw, by=("suite", "model", "policy"), paired=True) \
            .set_index(["suite", "model", "policy"])
        for _, r in voi.iterrows():
            persona = "" if r["policy"] == "default" else f", {r['policy']}"
            rows.append((bench, r["suite"], r["model"], f"Ask % (table: variants / text: trials){persona}",
                         r["variant_ask_rate"], r["ask_rate"]))
            rows.append((bench, r["suite"], r["model"],
                         f"pass@3 gain, pp (printed: each condition's own variants / same variants){persona}",
                         r["pass_gain_pp"], same.loc[(r["suite"], r["model"], r["policy"]), "pass_gain_pp"]))
    out = pd.DataFrame(rows, columns=["benchmark", "suite", "model", "quantity", "paper", "harness"])
    out["difference"] = out["paper"] - out["harness"]
    empty = {}
    if out["paper"].isna().any():  # e.g. LHAW's gains without the no-tool runs they compare against
        empty["paper"] = ("the paper's definition has no value here: the log has no runs in a condition it compares"
                          " (with or without the tool): add them")
    if out["harness"].isna().any():
        empty["harness"] = "the harness's summary has no such cell (its pass filter left no attempt of it)"
    if out["difference"].isna().any():
        empty["difference"] = "one of the two numbers is empty (see paper and harness)"
    if empty:
        out.attrs["empty"] = empty
    found = harness_anomalies(rs)
    notes = {key: "; ".join(f"{a} ×{n}" for a, n in zip(g["anomaly"], g["n_runs"]))
             for key, g in found.groupby(["benchmark", "suite", "model"])}
    out["anomalies"] = [notes.get((b, s, m), "none") for b, s, m in zip(out["benchmark"], out["suite"], out["model"])]
    if len(out) == 0:
        out.attrs["note"] = "no runs written by the HIL-Bench or LHAW harness in this log"
    return out
