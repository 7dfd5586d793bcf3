"""Benchmark: what a notebook's imports cost, against ``import pandas, pyarrow``.

``import ambiglib, ambiglib.metrics, ambiglib.tables, ambiglib.stats`` loads scipy.stats, statsmodels,
seaborn and matplotlib only when a function first needs them, so a kernel that loads a log and builds
tables pays little more than pandas and pyarrow. Each figure is the median of fresh interpreters.
Run ``python bench/imports.py``; copy the figures into docs/performance.md.
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
    floor = seconds("import pandas, pyarrow")
    lazy = seconds("import ambiglib")
    analysis = seconds("import ambiglib, ambiglib.metrics, ambiglib.tables, ambiglib.stats")
    eager = seconds("import ambiglib, ambiglib.metrics, ambiglib.tables, ambiglib.stats, scipy.stats, statsmodels.api,"
                    " seaborn, matplotlib.pyplot")
    ratio = analysis / floor
    print(f"import pandas, pyarrow (the floor):                      {floor:.3f} s (median of {RUNS} interpreters)")
    print(f"import ambiglib:                                         {lazy:.3f} s")
    print(f"import ambiglib, .metrics, .tables, .stats:              {analysis:.3f} s   / floor = {ratio:.2f}x"
          f"   (goal <= 1.5x: {'PASS' if ratio <= 1.5 else 'FAIL'})")
    print(f"  the same with scipy.stats, statsmodels, seaborn, pyplot: {eager:.3f} s   (what an eager package costs)")


if __name__ == "__main__":
    main()
