"""Run logs reconstructed from the papers' published aggregates: ``data/paper/``, one module per paper.

Each benchmark's runs are built so that ambiglib's tables, applied to them, give back the printed numbers
wherever the papers publish enough to fix them; the printed cells are written beside the logs
(``printed.json``, each with its table). :mod:`.ambig_ds`, :mod:`.hil_bench` and :mod:`.lhaw_mcp` rebuild
one paper each (LHAW on MCP-Atlas); LHAW on TheAgentCompany and SWE-Bench Pro takes four modules
(:mod:`.lhaw_more_printed` its printed cells, :mod:`.lhaw_more_counts` the counts fitted to them,
:mod:`.lhaw_more_plans` the integer program's plans, :mod:`.lhaw_more` the runs), and :mod:`.lhaw_candidates`
Table 11's removal candidates; :mod:`.ambig_ds_statistics` fits Ambig-DS's p-values and intervals (its result kept
in :mod:`.ambig_ds_pairings`); :mod:`.common` holds what they share. Each printed cell is fitted or
:func:`computed_from` other printed numbers. ``scripts/make_paper_fixtures.py`` runs :func:`main`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from .ambig_ds import ambig_ds, ambig_ds_printed, inferability_audit
from .common import OUT
from .hil_bench import hil_bench, hil_printed, hil_table3_printed
from .lhaw_candidates import lhaw_candidates, lhaw_candidates_printed
from .lhaw_mcp import lhaw, lhaw_printed
from .lhaw_more import lhaw_more, lhaw_more_printed
from .lhaw_more_plans import more_plan
from .lhaw_more_printed import MORE_DIMENSIONS


def main(out: Path = OUT) -> None:
    """Write ``data/paper/`` (or ``out``); with ``--solve`` on the command line, print MORE_PLANS afresh, with
    ``--solve-pairings`` AMBIG_PAIRINGS."""
    if sys.argv[1:] == ["--solve"]:  # re-derive MORE_PLANS (minutes): paste the output over it
        print("MORE_PLANS = {")
        for suite in MORE_DIMENSIONS:
            print(f"    {suite!r}: {more_plan(suite)!r},")
        print("}")
        return
    if sys.argv[1:] == ["--solve-pairings"]:  # re-derive AMBIG_PAIRINGS (minutes): paste the output over it
        found: dict = {}
        ambig_ds(np.random.default_rng([2026, 0]), True, found)
        print("AMBIG_PAIRINGS = {")
        for key, (lam_a, fitted) in found.items():
            print(f"    {key!r}: ({lam_a!r}, {fitted!r}),")
        print("}")
        return
    out.mkdir(parents=True, exist_ok=True)
    for i, (name, build) in enumerate((("ambig-ds", ambig_ds), ("hil-bench", hil_bench), ("lhaw", lhaw))):
        records = build(np.random.default_rng([2026, i]))
        if name == "lhaw":
            records += lhaw_more(np.random.default_rng([2026, 8]))
        _write_log(out / f"{name}.jsonl", records)
    # LHAW Table 11's removal candidates, run while the benchmark was made and not released with it: a run folder of
    # their own beside data/paper (in it, they would be a suite of Figure 3 and of every LHAW table)
    candidates = out.with_name(f"{out.name}-candidates")
    candidates.mkdir(parents=True, exist_ok=True)
    _write_log(candidates / "lhaw.jsonl", lhaw_candidates(np.random.default_rng([2026, 10])))
    (out / "inferability_audit.csv").write_text(inferability_audit(np.random.default_rng([2026, 7])), encoding="utf-8")
    cells = [{**c, **computed_from(c)} for c in ambig_ds_printed() + hil_printed() + hil_table3_printed()
                                                 + lhaw_printed() + lhaw_more_printed() + lhaw_candidates_printed()]
    (out / "printed.json").write_text(json.dumps(cells, indent=0) + "\n", encoding="utf-8")
    print(f"wrote {out / 'printed.json'} ({len(cells)} printed cells)")


def _write_log(path: Path, records: list[dict]) -> None:
    """Write a run log: its task records first, one compact JSON object per line."""
    records.sort(key=lambda r: r.get("record") != "task")
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for rec in records:
            fh.write(json.dumps(rec, separators=(",", ":")) + "\n")
    print(f"wrote {path} ({len(records)} records)")


#: Table 1's four models, whose HIL-Bench Table 8 combined row no search looks at (the per-domain rows are Table 1's)
_HIL_TABLE1_MODELS = {"Claude Opus 4.6", "Gemini 3.1 Pro", "GPT-5.4", "GPT-5.3-Codex"}


def computed_from(c: dict) -> dict:
    """``{"computed_from": what}`` for a printed cell that the fixture never sets or searches for, so that ambiglib
    giving it back is a cross-check of the fitted cells and of the paper's own consistency; ``{}`` for a cell the
    fixture sets directly or reaches by a count search or an integer or linear program ("fitted, given back").
    A cell that repeats another table's printed number counts as computed: it is fitted only through that table."""
    t, col, cls, policy = c["table"], c["column"], c.get("class"), c.get("policy")
    why = None
    if t == "Ambig-DS Table 1" and col in ("delta_ambig", "delta_ask"):
        why = "the difference of the row's fitted means"
    elif t == "Ambig-DS Table 11" and col == "full_mean":
        why = "Table 1's S_full"
    elif t == "Ambig-DS Table 13" and col == "calib_score":
        why = "the row's two ask rates"
    elif t == "Ambig-DS Table 13" and (policy, col) in (("permissive", "ask_on_full"), ("conservative", "ask_on_ambiguous")):
        why = "Table 14's / Table 15's counts of the same runs"
    elif t == "Ambig-DS Table 5" and col == "n_instances":
        why = "two instances (full, ambiguous) per task"
    elif t == "HIL-Bench Table 1" and col == "gap_pp":
        why = "the row's two fitted pass rates"
    elif t == "HIL-Bench Table 8" and c.get("scope") == "combined" and c["model"] in _HIL_TABLE1_MODELS:
        why = "the SWE and SQL counts fitted to Tables 1 and 8"
    elif t == "HIL-Bench Table 3" and (c["column"] == "Total" or c["row"].startswith("Avg") or c["row"].endswith("(%)")):
        why = "the table's counts per suite"
    elif t == "LHAW Table 11" and col in ("n_variants", "pass_at_k"):
        why = "the row's class counts (a candidate passes in a divergent or benign class)"
    elif t == "HIL-Bench Figure 3B":
        why = "Tables 4-6's fitted failure traces"
    elif t == "LHAW Table 12":
        why = "Tables 7-9's outcome-critical rows, which the paper repeats"
    elif t == "LHAW Table 13" and not (c["suite"] == "tac" and col == "pass_at_k_with_tool"):
        why = "the average over models of Table 3's row"  # TAC +User 0.37 was one of the TAC search's targets
    elif t in ("LHAW Table 5", "LHAW Table 6") and (cls == "all" or col.startswith("base_")):
        why = "Table 3's row (the All column and the baseline)"
    elif t == "LHAW Table 10" and policy == "default" and cls == "overall":
        why = "Table 3's GPT-5.2 row (the CodeAct agent is the default one)"
    return {} if why is None else {"computed_from": why}
