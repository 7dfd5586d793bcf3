"""Benchmark: wall time of the full report on the example data, and the share spent starting kernels.

Runs ``ambiglib.report.run_report`` (every notebook, two at a time) into a temporary
folder and prints, per notebook, its time and its kernel start-up (papermill's start
of the notebook to the start of its first cell). Run ``python bench/report.py``;
copy the figures into docs/performance.md.
"""

from __future__ import annotations

import json
import os
import platform
import tempfile
import time
from pathlib import Path

from ambiglib.report import run_report


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        run_report(None, Path(tmp) / "reports", jobs=2)
        wall = time.perf_counter() - t0
        manifest = json.loads((Path(tmp) / "reports" / "manifest.json").read_text())
    nbs = manifest["notebooks"]
    total = sum(n["seconds"] for n in nbs)
    kernel = sum(n["kernel_start_seconds"] or 0 for n in nbs)
    print(f"machine: {platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"{'notebook':28s} {'seconds':>8s} {'kernel start':>13s}")
    for n in nbs:
        print(f"{n['notebook']:28s} {n['seconds']:8.2f} {n['kernel_start_seconds'] or 0:13.2f}")
    print(f"full report: {wall:.1f} s wall for {len(nbs)} notebooks (two at a time; {total:.1f} s of notebook time)")
    print(f"kernel start-up: {kernel:.1f} s = {100 * kernel / total:.0f}% of notebook time")


if __name__ == "__main__":
    main()
