"""Run logs reconstructed from the papers' published aggregates: ``data/paper/``, one module per paper.

Each benchmark's runs are built so that ambiglib's tables, applied to them, give back the printed numbers
wherever the papers publish enough to fix them; the printed cells are written beside the logs
(``printed.json``, each with its table). :mod:`.ambig_ds`, :mod:`.hil_bench` and :mod:`.lhaw_mcp` rebuild
one paper each (LHAW on MCP-Atlas); LHAW on TheAgentCompany and SWE-Bench Pro takes four modules
(:mod:`.lhaw_more_printed` its printed cells, :mod:`.lhaw_more_counts` the counts fitted to them,
:mod:`.lhaw_more_plans` the integer program's plans, :mod:`.lhaw_more` the runs); :mod:`.common` holds what
they share. ``scripts/make_paper_fixtures.py`` runs :func:`main`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from .ambig_ds import ambig_ds, ambig_ds_printed, inferability_audit
from .common import OUT
from .hil_bench import hil_bench, hil_printed
from .lhaw_mcp import lhaw, lhaw_printed
from .lhaw_more import lhaw_more, lhaw_more_printed
from .lhaw_more_plans import more_plan
from .lhaw_more_printed import MORE_DIMENSIONS


def main(out: Path = OUT) -> None:
    """Write ``data/paper/`` (or ``out``); with ``--solve`` on the command line, print MORE_PLANS afresh."""
    if sys.argv[1:] == ["--solve"]:  # re-derive MORE_PLANS (minutes): paste the output over it
        print("MORE_PLANS = {")
        for suite in MORE_DIMENSIONS:
            print(f"    {suite!r}: {more_plan(suite)!r},")
        print("}")
        return
    out.mkdir(parents=True, exist_ok=True)
    for i, (name, build) in enumerate((("ambig-ds", ambig_ds), ("hil-bench", hil_bench), ("lhaw", lhaw))):
        records = build(np.random.default_rng([2026, i]))
        if name == "lhaw":
            records += lhaw_more(np.random.default_rng([2026, 8]))
        records.sort(key=lambda r: r.get("record") != "task")
        with open(out / f"{name}.jsonl", "w", encoding="utf-8", newline="\n") as fh:
            for rec in records:
                fh.write(json.dumps(rec, separators=(",", ":")) + "\n")
        print(f"wrote {out / name}.jsonl ({len(records)} records)")
    (out / "inferability_audit.csv").write_text(inferability_audit(np.random.default_rng([2026, 7])), encoding="utf-8")
    cells = ambig_ds_printed() + hil_printed() + lhaw_printed() + lhaw_more_printed()
    (out / "printed.json").write_text(json.dumps(cells, indent=0) + "\n", encoding="utf-8")
    print(f"wrote {out / 'printed.json'} ({len(cells)} printed cells)")
