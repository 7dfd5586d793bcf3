"""Benchmark: reading Inspect AI logs (issue 28).

Writes a log set of >= 10,000 samples with the fixture script (``scripts/make_inspect_fixtures.py --copies N
--only main``: 8 logs, each of 6 x N tasks over 3 epochs, by ``inspect_ai.eval`` with ``mockllm``; kept in
bench/out/ and reused), then reads it, each in fresh processes, imports excluded:

1. ``ambiglib.load(folder)``: runs, questions (the ask tool's calls), labels, tasks and blockers;
2. ``inspect_ai.analysis.samples_df(folder)`` + ``messages_df(folder)``: what a user would otherwise do to
   get the samples and their tool calls (the calls then still to be parsed out of a formatted string).

Goal: ambiglib <= 0.5x Inspect's time. (Named inspect_logs.py, not inspect.py: a script's folder comes first on
sys.path, and a bench/inspect.py shadowed the standard library's ``inspect`` for every script in bench/.) Peak memory (RSS growth over the process after its imports) is
printed beside each. Run ``python bench/inspect_logs.py`` (``--copies 5`` for a quick look); copy the figures
into docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out"


def _status_mb(field: str) -> float:
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith(field + ":")) / 1024  # kB


def _rss_mb() -> float:
    return _status_mb("VmRSS")


def _peak_mb() -> float:
    # the process's own high-water mark: ru_maxrss keeps the parent's across exec (issue 38)
    return _status_mb("VmHWM")


def one(which: str, folder: Path) -> dict:
    """Time one read in this (fresh) process, its libraries imported first."""
    import ambiglib  # noqa: F401
    import ambiglib.importers.inspect_logs  # noqa: F401
    import inspect_ai.analysis
    import inspect_ai.log  # noqa: F401

    base = _rss_mb()
    t = time.perf_counter()
    if which == "ambiglib":
        rs = ambiglib.load(folder, quiet=True)
        rows = {"runs": len(rs.runs), "questions": len(rs.questions), "labels": len(rs.labels)}
    else:
        samples = inspect_ai.analysis.samples_df(str(folder), quiet=True)
        messages = inspect_ai.analysis.messages_df(str(folder), quiet=True)
        rows = {"samples": len(samples), "messages": len(messages)}
    seconds = time.perf_counter() - t
    return {"seconds": seconds, "peak_mb": _peak_mb() - base, **rows}


def _fresh(which: str, folder: Path) -> dict:
    done = subprocess.run([sys.executable, __file__, "--one", which, "--folder", str(folder)], capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def ensure_logs(copies: int) -> tuple[Path, int]:
    folder = OUT / f"inspect-{copies}"
    marker = folder / "written.json"
    if not marker.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.eval"):
            old.unlink()
        t = time.perf_counter()
        subprocess.run([sys.executable, str(ROOT / "scripts" / "make_inspect_fixtures.py"), "--out", str(folder),
                        "--copies", str(copies), "--only", "main"], check=True, stdout=subprocess.DEVNULL)
        marker.write_text(json.dumps({"copies": copies, "write_seconds": time.perf_counter() - t}))
    n = 8 * 6 * copies * 3
    return folder, n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=70, help="copies of the six tasks per log (70: 10,080 samples)")
    ap.add_argument("--repeat", type=int, default=3, help="fresh processes per reader; the best time is kept")
    ap.add_argument("--one", choices=("ambiglib", "inspect"), help=argparse.SUPPRESS)
    ap.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(one(args.one, args.folder)))
        return 0
    folder, n = ensure_logs(args.copies)
    size = sum(p.stat().st_size for p in folder.glob("*.eval")) / 2**20
    import inspect_ai

    print(f"{n:,} samples in 8 .eval logs ({size:.1f} MB), inspect-ai {inspect_ai.__version__},"
          f" Python {platform.python_version()}; best of {args.repeat} fresh processes, imports excluded")
    results = {}
    for which in ("ambiglib", "inspect"):
        runs = [_fresh(which, folder) for _ in range(args.repeat)]
        results[which] = min(runs, key=lambda r: r["seconds"])
        results[which]["peak_mb"] = max(r["peak_mb"] for r in runs)
    a, b = results["ambiglib"], results["inspect"]
    print(f"ambiglib.load                          {a['seconds']:7.2f} s  peak +{a['peak_mb']:6.0f} MB"
          f"  ({a['runs']:,} runs, {a['questions']:,} questions, {a['labels']:,} labels)")
    print(f"inspect samples_df + messages_df       {b['seconds']:7.2f} s  peak +{b['peak_mb']:6.0f} MB"
          f"  ({b['samples']:,} samples, {b['messages']:,} messages)")
    ratio = a["seconds"] / b["seconds"]
    print(f"ambiglib / inspect = {ratio:.2f}x   <= 0.5x {'PASS' if ratio <= 0.5 else 'FAIL'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
