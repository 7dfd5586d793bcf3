"""Benchmark: the report at 1x and Nx, beside its floor, with a breakdown per notebook and phase.

Three reports are run one after another in this process (each notebook in a fresh kernel, two at a
time, as ``ambiglib report`` runs them):

* the report on the example data (1x, 516 records);
* the report on the simulator at ``--scale N`` (``simulate.example_records(scale=N)``, written as
  one JSON Lines file first; the write is not timed);
* the floor: as many one-cell notebooks (``import pandas``, ``import matplotlib``, one plot) run by
  the same machinery (papermill, two at a time, exported to HTML) on the example data.

Per notebook and phase, from papermill's own cell timings: kernel start, the first code cell
(imports and load), table cells, plot cells, the rest, and the HTML export (what the notebook's
process spent after papermill's last cell). Run ``python bench/report.py --scale 1000``; copy the
figures into docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

import nbformat
import pandas as pd

from ambiglib import simulate
from ambiglib.report import bundled_notebooks, run_report

FLOOR_CELL = ("import pandas as pd\nimport matplotlib\nimport matplotlib.pyplot as plt\n"
              "fig, ax = plt.subplots()\nax.plot([0, 1], [0, 1])\nplt.show()")


def _floor_notebooks(folder: Path, n: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        nb = nbformat.v4.new_notebook()
        params = nbformat.v4.new_code_cell('runs: str = "../data/example"\nout_dir: str = "artifacts"')
        params.metadata["tags"] = ["parameters"]
        nb.cells = [params, nbformat.v4.new_code_cell(FLOOR_CELL)]
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, folder / f"floor_{i:02d}.ipynb")
    return folder


def _phases(out: Path, manifest: dict) -> pd.DataFrame:
    rows = []
    for entry in manifest["notebooks"]:
        nb = nbformat.read(out / f"{entry['notebook']}.ipynb", as_version=4)
        cells = [c for c in nb.cells if c.cell_type == "code"]
        kinds = {"imports + load": 0.0, "tables": 0.0, "plots": 0.0, "other cells": 0.0}
        first = True
        for c in cells:
            if "parameters" in (c.metadata.get("tags") or []) or "injected-parameters" in (c.metadata.get("tags") or []):
                continue
            d = float(c.metadata.get("papermill", {}).get("duration") or 0.0)
            src = c.source
            kind = ("imports + load" if first else "plots" if "plots." in src or "show_figure" in src
                    else "tables" if "tables." in src or "metrics." in src or "show_table" in src else "other cells")
            first = False
            kinds[kind] += d
        executed = float(nb.metadata.get("papermill", {}).get("duration") or 0.0)
        kernel = float(entry.get("kernel_start_seconds") or 0.0)
        rows.append({"notebook": entry["notebook"], "total": entry["seconds"], "kernel start": kernel, **kinds,
                     "export + papermill": max(entry["seconds"] - executed, 0.0)})
    return pd.DataFrame(rows)


def _report(runs: Path | None, out: Path, **kw) -> tuple[float, pd.DataFrame]:
    t0 = time.perf_counter()
    run_report(runs, out, jobs=2, **kw)
    wall = time.perf_counter() - t0
    return wall, _phases(out, json.loads((out / "manifest.json").read_text()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=1000, help="simulator scale of the large log (default 1000)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="run the 1x report and the floor this many times, alternately, and compare their medians"
                             " (on a shared machine the floor alone has ranged 24-30 s between runs)")
    args = parser.parse_args()
    print(f"machine: {platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    n_notebooks = len(list(bundled_notebooks().glob("*.ipynb")))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        records = simulate.example_records(scale=args.scale)
        big = tmp / f"example-x{args.scale}.jsonl"
        with open(big, "w", encoding="utf-8") as fh:
            for rs in records.values():
                for rec in rs:
                    fh.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")
        n_records = sum(len(v) for v in records.values())
        del records
        print(f"log at {args.scale}x: {n_records:,} records, {big.stat().st_size / 1e6:.0f} MB of JSON Lines"
              f" (simulated and written in {time.perf_counter() - t0:.0f} s, not timed below)")
        floor_nbs = _floor_notebooks(tmp / "floor-nbs", n_notebooks)
        ones, floors = [], []
        one, one_phases = _report(None, tmp / "r1")
        ones.append(one)
        many, many_phases = _report(big, tmp / "rN")
        floors.append(_report(None, tmp / "floor", notebooks_dir=floor_nbs)[0])
        for i in range(1, args.repeat):
            ones.append(_report(None, tmp / f"r1-{i}")[0])
            floors.append(_report(None, tmp / f"floor-{i}", notebooks_dir=floor_nbs)[0])
        one, floor = statistics.median(ones), statistics.median(floors)
    pd.set_option("display.width", 200)
    for label, phases in (("1x", one_phases), (f"{args.scale}x", many_phases)):
        print(f"\nper notebook and phase, report at {label} (seconds):")
        print(phases.round(2).to_string(index=False))
        print("sum:", phases.drop(columns="notebook").sum().round(1).to_dict())
    if args.repeat > 1:
        print(f"\n1x runs: {', '.join(f'{t:.1f}' for t in ones)} s; floor runs: {', '.join(f'{t:.1f}' for t in floors)} s"
              f" (medians below)")
    print(f"\nreport at 1x:              {one:6.1f} s wall ({n_notebooks} notebooks, two at a time)")
    print(f"report at {args.scale}x:{'':{max(0, 12 - len(str(args.scale)))}}{many:6.1f} s wall"
          f"   {args.scale}x / 1x = {many / one:.2f}   (goal <= 2.0: {'PASS' if many / one <= 2.0 else 'FAIL'})")
    print(f"floor ({n_notebooks} one-cell notebooks): {floor:6.1f} s wall"
          f"   1x / floor = {one / floor:.2f}   (goal <= 1.5: {'PASS' if one / floor <= 1.5 else 'FAIL'})")


if __name__ == "__main__":
    main()
