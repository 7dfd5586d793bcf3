"""Time and memory of loading a gzip bomb: a ~490 KB ``.jsonl.gz`` of 8 runs, each asking one 60 MiB question
(issue 71). Run each load in its own process under ``/usr/bin/time -v`` to read its peak memory:

    python bench/inflation.py make /tmp/bomb.jsonl.gz
    /usr/bin/time -v python bench/inflation.py load /tmp/bomb.jsonl.gz [--engine arrow]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time

RECORDS, QUESTION = 8, 60 << 20


def make(path: str) -> None:
    """Write the bomb, one record at a time, never holding more than one question."""
    with gzip.open(path, "wb", compresslevel=9) as fh:
        for trial in range(1, RECORDS + 1):
            head = {"benchmark": "hil-bench", "suite": "sql", "task_id": "t", "model": "m", "spec": "ambiguous",
                    "ask_tool": True, "trial": trial, "score": 0.5, "passed": False}
            text = json.dumps(head)[:-1] + ', "questions": [{"text": "'
            fh.write(text.encode())
            piece = b"a" * (1 << 20)
            for _ in range(QUESTION >> 20):
                fh.write(piece)
            fh.write(b'"}]}\n')
    print(f"{path}: {os.path.getsize(path):,} bytes, inflating to {RECORDS * QUESTION:,} and more")


def load(path: str, engine: str) -> None:
    import ambiglib

    start = time.perf_counter()
    try:
        rs = ambiglib.load(path, engine=engine, quiet=True)
        print(f"loaded {len(rs.runs)} runs", end="")
    except ambiglib.AmbiglibError as exc:
        print(f"refused: {str(exc)[:300]}", end="")
    print(f" in {time.perf_counter() - start:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["make", "load"])
    parser.add_argument("path")
    parser.add_argument("--engine", default="auto", choices=["auto", "arrow", "python"])
    args = parser.parse_args()
    if args.what == "make":
        make(args.path)
    else:
        load(args.path, args.engine)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
