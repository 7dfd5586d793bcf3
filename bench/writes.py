"""Time a run log's writes, whole (issue 71): ``RunSet.to_parquet`` (a folder, a store by model) and
``RunSet.to_jsonl`` (a folder), each over a copy it wrote before, as a user re-running ``convert --force`` does.

Each write is made in a fresh process, timed from outside (its start-up included), the median of ``--repeat`` kept.
Compare two versions of ambiglib by running this with each on ``PYTHONPATH`` (``docs/performance.md`` gives the
figures of issue 71: writing aside, fsyncing and swapping the folder cost no measurable time)."""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

WRITE = """
import sys, ambiglib
rs = ambiglib.load(sys.argv[1])
kind, out = sys.argv[2], sys.argv[3]
if kind == "parquet folder":
    rs.to_parquet(out)
elif kind == "store by model":
    rs.to_parquet(out, partition_by=("model",))
else:
    rs.to_jsonl(out)
"""


def main() -> None:
    from load import generate

    import ambiglib

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--questions", type=int, default=10, help="questions per run")
    parser.add_argument("--repeat", type=int, default=5, help="fresh processes per figure (the median is kept)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "log.jsonl"
        generate(log, args.runs, args.questions)
        ambiglib.load(log).to_parquet(Path(tmp) / "source")  # read fast by every write
        print(f"{args.runs:,} runs x {args.questions} questions; median of {args.repeat} fresh processes (wall s)")
        for kind in ("parquet folder", "store by model", "jsonl folder"):
            out = Path(tmp) / kind.replace(" ", "_")
            times = []
            for _ in range(args.repeat + 1):  # the first makes the copy written over, and is not counted
                start = time.perf_counter()
                subprocess.run([sys.executable, "-c", WRITE, str(Path(tmp) / "source"), kind, str(out)], check=True)
                times.append(time.perf_counter() - start)
            print(f"  {kind:<16} {statistics.median(times[1:]):6.2f}")


if __name__ == "__main__":
    main()
