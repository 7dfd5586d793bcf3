"""Benchmark: the time ``import ambiglib`` takes, against importing every submodule at once.

``ambiglib.metrics``, ``.tables``, ``.plots`` and ``.stats`` are attributes of the package but are
imported on first use, so that ``import ambiglib`` (every notebook's first line, every CLI call) does
not load scipy, statsmodels, matplotlib or seaborn. The baseline is what an eager package would cost:
the same interpreter importing ambiglib and then those four submodules. Each figure is the median of
fresh interpreters. Run ``python bench/imports.py``; copy the figures into docs/performance.md.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys

RUNS = 7


def seconds(code: str) -> float:
    timer = f"import time; t = time.perf_counter(); {code}; print(time.perf_counter() - t)"
    times = [float(subprocess.run([sys.executable, "-c", timer], capture_output=True, text=True, check=True).stdout)
             for _ in range(RUNS)]
    return statistics.median(times)


def main() -> None:
    print(f"machine: {platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    lazy = seconds("import ambiglib")
    eager = seconds("import ambiglib; ambiglib.metrics, ambiglib.tables, ambiglib.plots, ambiglib.stats")
    pandas = seconds("import pandas, pyarrow")
    print(f"import ambiglib:                        {lazy:.3f} s (median of {RUNS} interpreters)")
    print(f"  + metrics, tables, plots, stats:      {eager:.3f} s (baseline: an eager package)")
    print(f"  of which pandas and pyarrow alone:    {pandas:.3f} s")
    print(f"ratio to the baseline:                  {lazy / eager:.2f}")


if __name__ == "__main__":
    main()
