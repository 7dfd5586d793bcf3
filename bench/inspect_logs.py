"""Benchmark: reading Inspect AI logs (issue 28).

Writes a log set of >= 10,000 samples with the fixture script (``scripts/make_inspect_fixtures.py --copies N
--only main``: 8 logs, each of 6 x N tasks over 3 epochs, by ``inspect_ai.eval`` with ``mockllm``; kept in
bench/out/ and reused), then reads it, each in fresh processes, imports excluded:

1. ``ambiglib.load(folder)``: runs, questions (the ask tool's calls), labels, tasks and blockers;
2. ``inspect_ai.analysis.samples_df(folder)`` + ``messages_df(folder)``: what a user would otherwise do to
   get the samples and their tool calls (the calls then still to be parsed out of a formatted string).

Goal: ambiglib <= 0.5x Inspect's time. ``--events-kb K`` (issue 41) reads a copy of the same logs in which
every sample also carries about K KB of model events (its own model event repeated, each with another ~4 KB
completion), as an agent's transcript would: goal ambiglib <= 0.5x Inspect in time and in peak memory. (Named inspect_logs.py, not inspect.py: a script's folder comes first on
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
    import inspect_ai.analysis
    import inspect_ai.log

    import ambiglib
    import ambiglib.importers._inspect_logs

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


#: A reader whose resident memory passes this is stopped (its figure is then "more than" this): Inspect's own
#: read of 10,080 samples with ~1 MB of events each had passed 18 GB of a 24 GB machine when it was stopped.
MEMORY_CAP_MB = 12 * 1024


def _fresh(which: str, folder: Path) -> dict:
    """One read in a fresh process, watched: stopped once its resident memory passes MEMORY_CAP_MB."""
    proc = subprocess.Popen([sys.executable, __file__, "--one", which, "--folder", str(folder)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    started, highest = time.perf_counter(), 0.0
    while proc.poll() is None:
        try:
            with open(f"/proc/{proc.pid}/status") as fh:
                rss = next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:")) / 1024
        except (OSError, StopIteration):
            rss = 0.0
        highest = max(highest, rss)
        if rss > MEMORY_CAP_MB:
            proc.kill()
            proc.wait()
            return {"stopped": True, "seconds": time.perf_counter() - started, "peak_mb": highest}
        time.sleep(0.2)
    out, err = proc.communicate()
    if proc.returncode:
        raise RuntimeError(f"{which} read failed: {err[-2000:]}")
    return json.loads(out.strip().splitlines()[-1])


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


def with_events(folder: Path, kb: int) -> Path:
    """A copy of the log set whose every sample carries ~``kb`` KB of model events (kept in bench/out/)."""
    import random
    import zipfile

    import zipfile_zstd

    out = folder.with_name(f"{folder.name}-events{kb}k")
    marker = out / "written.json"
    if marker.is_file():
        return out
    out.mkdir(parents=True, exist_ok=True)
    words = ["the", "ask", "tool", "was", "not", "needed", "here", "because", "the", "task", "named", "the", "column", "and", "the", "range", "but", "the", "owner", "of", "the", "report", "asked", "for", "fiscal", "quarters", "so", "the", "agent", "checked", "the", "schema", "again", "before", "answering"]
    rng = random.Random(41)
    texts = [" ".join(rng.choice(words) for _ in range(700)) for _ in range(256)]  # drawn once: 4 KB each
    t = time.perf_counter()
    for log in sorted(folder.glob("*.eval")):
        with zipfile.ZipFile(log) as src, zipfile.ZipFile(out / log.name, "w", zipfile_zstd.ZIP_ZSTANDARD) as dst:
            for info in src.infolist():
                data = src.read(info)
                if info.filename.startswith("samples/"):
                    sample = json.loads(data)
                    model = next(e for e in sample["events"] if e["event"] == "model")
                    size, events = 0, list(sample["events"])
                    while size < kb * 1024:
                        text = rng.choice(texts)
                        event = json.loads(json.dumps(model))
                        event["uuid"] = f"{model['uuid']}-{len(events)}"
                        event["output"]["completion"] = text
                        event["output"]["choices"][0]["message"]["content"] = text
                        if isinstance(event.get("call"), dict):
                            event["call"]["response"] = {"content": text}
                        size += 3 * len(text) + 1200
                        events.append(event)
                    sample["events"] = events
                    data = json.dumps(sample).encode()
                dst.writestr(info.filename, data)
    marker.write_text(json.dumps({"events_kb": kb, "write_seconds": time.perf_counter() - t}))
    return out


def with_models(folder: Path, copies: int) -> Path:
    """``copies`` copies of the log set, each eval's model renamed (``<model>-copy<k>``): ``copies`` times the
    runs, every run key distinct (kept in bench/out/; the memory figure of ``bench/load.py``)."""
    import zipfile

    import zipfile_zstd

    out = folder.with_name(f"{folder.name}x{copies}")
    marker = out / "written.json"
    if marker.is_file():
        return out
    out.mkdir(parents=True, exist_ok=True)
    for log in sorted(folder.glob("*.eval")):
        with zipfile.ZipFile(log) as src:
            members = [(info, src.read(info)) for info in src.infolist()]
        for k in range(copies):
            with zipfile.ZipFile(out / log.name.replace(".eval", f"-copy{k}.eval"), "w",
                                 zipfile_zstd.ZIP_ZSTANDARD) as dst:
                for info, data in members:
                    if info.filename in ("header.json", "_journal/start.json"):
                        header = json.loads(data)
                        header["eval"]["model"] = f"{header['eval']['model']}-copy{k}"
                        data = json.dumps(header).encode()
                    dst.writestr(info.filename, data)
    marker.write_text(json.dumps({"copies": copies}))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=70, help="copies of the six tasks per log (70: 10,080 samples)")
    ap.add_argument("--repeat", type=int, default=3, help="fresh processes per reader; the best time is kept")
    ap.add_argument("--events-kb", type=int, default=0, help="add about this many KB of model events to every sample")
    ap.add_argument("--one", choices=("ambiglib", "inspect"), help=argparse.SUPPRESS)
    ap.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(one(args.one, args.folder)))
        return 0
    folder, n = ensure_logs(args.copies)
    if args.events_kb:
        folder = with_events(folder, args.events_kb)
    size = sum(p.stat().st_size for p in folder.glob("*.eval")) / 2**20
    import zipfile

    import inspect_ai

    inflated = sum(i.file_size for p in folder.glob("*.eval") for i in zipfile.ZipFile(p).infolist()) / 2**20
    print(f"{n:,} samples in 8 .eval logs ({size:.1f} MB, {inflated:,.0f} MB inflated), inspect-ai {inspect_ai.__version__},"
          f" Python {platform.python_version()}; best of {args.repeat} fresh processes, imports excluded")
    results = {}
    for which in ("ambiglib", "inspect"):
        runs = [_fresh(which, folder) for _ in range(args.repeat)]
        results[which] = min(runs, key=lambda r: r["seconds"])
        results[which]["peak_mb"] = max(r["peak_mb"] for r in runs)
        if any(r.get("stopped") for r in runs):
            results[which] = next(r for r in runs if r.get("stopped"))
    a, b = results["ambiglib"], results["inspect"]
    print(f"ambiglib.load                          {a['seconds']:7.2f} s  peak +{a['peak_mb']:6.0f} MB"
          f"  ({a['runs']:,} runs, {a['questions']:,} questions, {a['labels']:,} labels)")
    if b.get("stopped"):
        print(f"inspect samples_df + messages_df       stopped after {b['seconds']:.0f} s, its resident memory past"
              f" {MEMORY_CAP_MB:,} MB ({b['peak_mb']:,.0f} MB when stopped, its imports included)")
        print(f"ambiglib / inspect < {a['seconds'] / b['seconds']:.2f}x in time and"
              f" < {a['peak_mb'] / b['peak_mb']:.3f}x in memory, Inspect not having finished   <= 0.5x PASS")
        return 0
    print(f"inspect samples_df + messages_df       {b['seconds']:7.2f} s  peak +{b['peak_mb']:6.0f} MB"
          f"  ({b['samples']:,} samples, {b['messages']:,} messages)")
    ratio = a["seconds"] / b["seconds"]
    print(f"ambiglib / inspect = {ratio:.2f}x   <= 0.5x {'PASS' if ratio <= 0.5 else 'FAIL'}")
    memory = a["peak_mb"] / b["peak_mb"]
    print(f"peak memory, ambiglib / inspect = {memory:.2f}x   <= 0.5x {'PASS' if memory <= 0.5 else 'FAIL'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
