"""Benchmark: the Inspect reader's memory on large and hostile logs (issue 38 §1).

Builds three logs from a sample Inspect itself wrote (tests/fixtures/inspect/), kept in bench/out/:

1. ``realistic``: 500 samples, each with ~1.2 MB of events (its transcript) beside its messages and scores;
2. ``bomb``: the fixture log plus four sample members of ~1,000 MB of zeros each (each under the per-member
   cap; 4 GB from a few MB of zip);
3. ``padded``: the fixture log plus four members of valid JSON, a sample padded with ~300 MB of whitespace
   and a 100 MB string in its events (JSON that parses, so it is read to its end).

Each is loaded by ``ambiglib.load`` in a fresh process (``strict=False``); printed: the compressed and inflated
sizes, the time, and the peak RSS growth over the process after its imports, with its ratio to the inflated
size. ``--baseline DIR`` also runs the same load with the package found in DIR (e.g. a worktree of an older
commit: ``git worktree add /tmp/old <commit>``), under a 6 GB address-space limit so that an unbounded reader
fails instead of taking the machine. Copy the figures into docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out" / "inspect-memory"
FIXTURES = ROOT / "tests" / "fixtures" / "inspect"
LIMIT = 6 << 30


def _source() -> tuple[Path, list[tuple[str, bytes]]]:
    import zipfile_zstd  # noqa: F401

    eval_log = sorted(FIXTURES.glob("*.eval"))[0]
    with zipfile.ZipFile(eval_log) as z:
        return eval_log, [(i.filename, z.read(i)) for i in z.infolist()]


def _write(path: Path, members) -> None:
    import zipfile_zstd

    tmp = path.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile_zstd.ZIP_ZSTANDARD) as z:
        for name, data in members:
            z.writestr(name, data() if callable(data) else data)
    tmp.replace(path)


def build() -> dict[str, Path]:
    eval_log, members = _source()
    header = [(n, d) for n, d in members if not n.startswith("samples/")]
    samples = [(n, d) for n, d in members if n.startswith("samples/")]
    out = {}
    # 1. 500 samples of ~1.2 MB of events each: the header claims 500 x 1 epoch
    path = OUT / "realistic" / eval_log.name
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        head = json.loads(dict(header)["header.json"])
        ids = [f"t{i:03d}" for i in range(500)]
        head["eval"]["dataset"].update(samples=500, sample_ids=ids)
        head["eval"]["config"]["epochs"] = 1
        base = json.loads(samples[0][1])
        event = {"event": "model", "output": {"completion": "x" * 1000}, "input": [{"role": "user", "content": "y" * 200}]}
        rows = []
        for sid in ids:
            s = dict(base, id=sid, epoch=1, events=[dict(event, n=j) for j in range(1000)])
            rows.append((f"samples/{sid}_epoch_1.json", json.dumps(s).encode()))
        _write(path, [("header.json", json.dumps(head).encode())] + [m for m in header if m[0] != "header.json"] + rows)
    out["realistic"] = path
    # 2. four members of ~1,000 MB of zeros
    path = OUT / "bomb" / eval_log.name
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        zeros = [(f"samples/bomb{i}_epoch_1.json", lambda: b"\0" * (1000 << 20)) for i in range(4)]
        _write(path, members + zeros)
    out["bomb"] = path
    # 3. four members of valid JSON padded with whitespace and a long string in their events
    path = OUT / "padded" / eval_log.name
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        base = samples[0][1].decode().rstrip()

        def padded(i: int):
            return lambda: (base[:-1].replace('"events":', '"events": ["' + "z" * (100 << 20) + '"], "unused":', 1)
                            + " " * (300 << 20) + "}").replace('"id":', f'"id": "pad{i}", "old_id":', 1).encode()
        _write(path, members + [(f"samples/pad{i}_epoch_1.json", padded(i)) for i in range(4)])
    out["padded"] = path
    return out


def _status(field: str) -> float:
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith(field + ":")) / 1024  # kB


def one(path: Path) -> dict:
    import inspect_ai.log  # noqa: F401

    import ambiglib
    import ambiglib.importers._inspect_logs

    base = _status("VmRSS")
    t = time.perf_counter()
    rs, errors = ambiglib.load(path, strict=False, quiet=True)
    seconds = time.perf_counter() - t
    peak = _status("VmHWM")  # the process's own high-water mark (ru_maxrss keeps the parent's across exec)
    return {"seconds": seconds, "peak_mb": peak - base, "runs": len(rs.runs), "errors": len(errors),
            "first_error": errors[0].message[-160:] if errors else ""}


def _fresh(path: Path, package: Path | None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(package or ROOT))

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))

    done = subprocess.run([sys.executable, __file__, "--one", str(path)], capture_output=True, text=True, env=env,
                          preexec_fn=limit if package else None)
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["killed"])[-1]
        return {"failed": f"exit {done.returncode}: {last[:160]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, help="a folder holding an older ambiglib package, run the same way")
    ap.add_argument("--one", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(one(args.one)))
        return 0
    logs = build()
    print("log          zip MB   inflated MB   reader      time     peak RSS   peak/inflated   runs, errors")
    for name, path in logs.items():
        with zipfile.ZipFile(path) as z:
            inflated = sum(i.file_size for i in z.infolist()) / 2**20
        packed = path.stat().st_size / 2**20
        for who, package in (("ambiglib", None), ("baseline", args.baseline)):
            if who == "baseline" and package is None:
                continue
            r = _fresh(path, package)
            if "failed" in r:
                print(f"{name:10} {packed:8.1f} {inflated:13,.0f}   {who:9}  {r['failed']}")
                continue
            print(f"{name:10} {packed:8.1f} {inflated:13,.0f}   {who:9} {r['seconds']:6.1f} s {r['peak_mb']:8,.0f} MB"
                  f"   {r['peak_mb'] / inflated:13.3f}   {r['runs']}, {r['errors']}  {r['first_error'][-90:]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
