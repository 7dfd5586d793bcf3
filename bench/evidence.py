"""Benchmark: the evidence pages of the report's opening tables at Nx, with and without transcripts (issue 58).

The simulator's log at ``--scale N`` is written twice as JSON Lines (not timed): as it is, and with a
``transcript`` in every run (``--turns`` turns: the prompt, each question asked and answered, tool calls between,
a final answer; the first ``--big`` runs with one turn of 1 MB). Each measurement runs in a fresh process: the log
is loaded and the payoff and agent-comparison tables computed (not timed), then their evidence pages written
(``write_evidence_pages``, timed, ``--repeat`` times into new folders; the median is printed), with the process's
peak memory after the load and after the pages.

    python bench/evidence.py --scale 1000
    PYTHONPATH=/tmp/old python bench/evidence.py --scale 1000 --plain-only   # another tree, without transcripts

Copy the figures into docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_CHILD = "--child"


def _with_transcript(rec: dict, turns: int, big: bool) -> dict:
    """``rec`` with a conversation of ``turns`` turns around its questions (a 1 MB turn when ``big``)."""
    out = [{"role": "system", "content": "You are an agent. Ask when the task is unclear."},
           {"role": "user", "content": f"Task {rec['task_id']}: " + "details of the task. " * 20}]
    for i, q in enumerate(rec.get("questions") or []):
        out.append({"role": "assistant", "content": "I need to know one thing.", "tool_name": "ask_user",
                    "tool_args": {"question": q.get("text") or ""}, "q_index": i})
        out.append({"role": "tool", "content": q.get("response") or "", "tool_name": "ask_user", "answers": i})
    while len(out) < turns - 1:
        n = len(out)
        out.append({"role": "assistant", "content": f"Step {n}: running a command.", "tool_name": "bash",
                    "tool_args": {"command": f"python step_{n}.py --input data.csv"}})
        out.append({"role": "tool", "content": "output line\n" * 12, "tool_name": "bash"})
    if big:
        out.append({"role": "tool", "content": "x" * 1_000_000, "tool_name": "bash"})
    out.append({"role": "assistant", "content": "Here is the result."})
    return {**rec, "transcript": {"covers": "conversation", "turns": out}}


def _write_logs(tmp: Path, scale: int, turns: int, big: int, plain_only: bool) -> tuple[Path, Path | None]:
    from ambiglib import simulate

    records = simulate.example_records(scale=scale)
    plain, talk = tmp / "plain.jsonl", tmp / "transcripts.jsonl"
    n_big = 0
    with open(plain, "w", encoding="utf-8") as a, (open(talk, "w", encoding="utf-8") if not plain_only
                                                  else open(os.devnull, "w")) as b:
        for recs in records.values():
            for rec in recs:
                a.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")
                if plain_only:
                    continue
                if rec.get("record", "run") == "run":
                    rec = _with_transcript(rec, turns, n_big < big)
                    n_big += 1
                b.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")
    return plain, None if plain_only else talk


def _child(log: str, repeat: int, out: str) -> None:
    """One measurement: load, tables, then the pages ``repeat`` times; JSON on stdout."""
    import ambiglib
    from ambiglib.answers import _headline as headline
    from ambiglib.evidence._rows import write_evidence_pages

    rs = ambiglib.load(log, quiet=True)
    tables = {"payoff": headline.payoff(rs), "agents": headline.agent_comparison(rs)}
    rss_load = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    times, pages = [], 0
    for i in range(repeat):
        t0 = time.perf_counter()
        for name, table in tables.items():
            pages += len(write_evidence_pages(table, name, Path(out) / str(i), rs=rs))
        times.append(time.perf_counter() - t0)
    runs_dir = Path(out) / "0" / "evidence" / "runs"
    run_pages = len(list(runs_dir.glob("*.html"))) if runs_dir.exists() else 0
    size = sum(p.stat().st_size for p in (Path(out) / "0").rglob("*.html"))
    print(json.dumps({"times": times, "pages": pages // repeat, "run_pages": run_pages, "mb": size / 1e6,
                      "rss_load_mb": rss_load / 1024,
                      "rss_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "runs": len(rs.runs), "questions": len(rs.questions)}))


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == _CHILD:
        _child(sys.argv[2], int(sys.argv[3]), sys.argv[4])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--turns", type=int, default=24, help="turns of each run's transcript (default 24)")
    parser.add_argument("--big", type=int, default=20, help="runs with a 1 MB turn (default 20)")
    parser.add_argument("--plain-only", action="store_true", help="only the log without transcripts")
    parser.add_argument("--logs", help="a folder to write the logs to and keep, or to read them from when there")
    args = parser.parse_args()
    print(f"machine: {platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        kept = Path(args.logs) if args.logs else None
        if kept is not None and (kept / "plain.jsonl").exists() and (args.plain_only or (kept / "transcripts.jsonl").exists()):
            plain, talk = kept / "plain.jsonl", None if args.plain_only else kept / "transcripts.jsonl"
        else:
            if kept is not None:
                kept.mkdir(parents=True, exist_ok=True)
            plain, talk = _write_logs(kept or tmp, args.scale, args.turns, args.big, args.plain_only)
        sizes = ", ".join(f"{p.name} {p.stat().st_size / 1e6:.0f} MB" for p in (plain, talk) if p)
        print(f"logs at {args.scale}x: {sizes} (written in {time.perf_counter() - t0:.0f} s, not timed)")
        for label, log in (("without transcripts", plain), ("with transcripts", talk)):
            if log is None:
                continue
            done = subprocess.run([sys.executable, __file__, _CHILD, str(log), str(args.repeat),
                                   str(tmp / f"out-{log.stem}")], capture_output=True, text=True)
            if done.returncode:
                print(done.stderr[-3000:])
                return 1
            r = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"{label:20}: {r['runs']:,} runs, {r['questions']:,} questions; {r['pages']} evidence pages and"
                  f" {r['run_pages']:,} run pages ({r['mb']:.1f} MB) in {statistics.median(r['times']):.2f} s"
                  f" (median of {args.repeat}: {', '.join(f'{t:.2f}' for t in r['times'])});"
                  f" peak memory {r['rss_load_mb']:.0f} MB after the load, {r['rss_peak_mb']:.0f} MB after the pages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
