"""Fuzz: corrupt canonical JSON Lines, Parquet run logs and native harness trees at
random, load each, and count what came out (``tests/fuzzing.py`` says how).

    python bench/fuzz.py                 # 1,000 cases per source, two sources at a time
    python bench/fuzz.py --cases 200 --sources jsonl parquet --seed 7

Prints, per source, the cases run, the outcome classes (``ok`` loaded, ``error`` refused
with an AmbiglibError, anything else a failure) and each failing case with its mutation,
so that it can be replayed (``python tests/fuzzing.py <source> <seed> <case> 1``).
Exit status 1 when any case failed. ``make test`` runs a bounded version
(``tests/test_fuzz.py``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import fuzzing


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=1000, help="cases per source (default 1000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random mutations (default 1)")
    parser.add_argument("--sources", nargs="+", default=list(fuzzing.SOURCES), choices=fuzzing.SOURCES)
    parser.add_argument("--jobs", type=int, default=2, help="sources fuzzed at a time (default 2)")
    parser.add_argument("--show", type=int, default=20, help="failing cases listed per source (default 20)")
    args = parser.parse_args()

    start = time.perf_counter()
    with ThreadPoolExecutor(args.jobs) as pool:
        reports = list(pool.map(lambda s: fuzzing.run(s, args.seed, args.cases), args.sources))
    total: Counter = Counter()
    print(f"fuzz: seed {args.seed}, {args.cases} cases per source, {time.perf_counter() - start:.0f} s")
    for report in reports:
        counts = report.counts()
        total.update(counts)
        failed = len(report.failures)
        mutations = len({o["mutation"] for o in report.outcomes})
        shown = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        print(f"  {report.source:9} {len(report.outcomes):5} cases, {mutations:2} mutation kinds,"
              f" {failed:4} failed   ({shown})")
        for o in report.failures[: args.show]:
            print(f"      case {o['case']:5} {o['result']:22} {o['mutation']:14} {o['file'][:50]:50}"
                  f" {o['message'][:140]}")
    failures = sum(v for k, v in total.items() if k not in ("ok", "error"))
    classes = sorted(k for k in total if k not in ("ok", "error"))
    print(f"total: {sum(total.values())} cases, {failures} failed"
          + (f" (classes: {', '.join(classes)})" if classes else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
