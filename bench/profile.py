"""Profile: where each report notebook spends its time, function by function (pyinstrument).

The report's phase table (``bench/report.py``) says which notebook and which kind of cell is slow;
this says which functions. For each bundled notebook, a fresh Python process runs the notebook's
code cells in order (its parameters cell, then ``runs`` and ``out_dir`` as the report injects them,
``display`` as a no-op) under pyinstrument's statistical profiler, and prints:

* the notebook's wall time;
* the ambiglib functions (and the library calls they make) with the most time, inclusive of what
  they call, each counted once per stack (recursion is not double-counted).

The log is loaded and written as the report's snapshot first (not timed), so every notebook opens it
as it does inside ``ambiglib report``; the process first imports what the report's kept kernels import
(``report.isolation.prepare``), so imports are not profiled unless ``--cold`` is given. Run ``python bench/profile.py --scale 1000`` (needs the ``dev``
extra: ``pip install -e '.[dev]'``); ``--notebooks conventions,4_is_one_agent_better`` limits the run,
``--top`` sets the number of functions shown. ``--one-kernel`` runs the notebooks one after another in
one process instead, as one of the report's kept kernels does, and prints each one's time and the peak RSS
(``--no-sharing``: without the results run sets of one snapshot share).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

RUNNER = r'''
import json, sys, time
from pathlib import Path
from pyinstrument import Profiler

source, top, out_json, warm = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4] == "warm"
code = Path(source).read_text()
if warm:  # as a kept kernel holds them when a notebook starts: the imports are not what is profiled
    import matplotlib
    matplotlib.use("Agg")
    from ambiglib.report._isolation import prepare
    prepare()
scope = {"__name__": "__main__", "display": lambda *a, **k: None}
profiler = Profiler(interval=0.005)
started = time.perf_counter()
profiler.start()
exec(compile(code, source, "exec"), scope)
profiler.stop()
wall = time.perf_counter() - started

# inclusive time per function, once per stack
totals = {}
def walk(frame, seen):
    key = (frame.function, frame.file_path_short or frame.file_path or "", frame.line_no)
    if key not in seen:
        totals[key] = totals.get(key, 0.0) + frame.time
        seen = seen | {key}
    for child in frame.children:
        walk(child, seen)
root = profiler.last_session.root_frame()
if root is not None:
    walk(root, frozenset())
rows = []
for (fn, path, line), t in totals.items():
    if "ambiglib" in path and "/bench/" not in path and not fn.startswith("<"):
        rows.append({"function": fn, "where": f"{path.split('ambiglib/', 1)[-1]}:{line}", "seconds": round(t, 3)})
rows.sort(key=lambda r: -r["seconds"])
Path(out_json).write_text(json.dumps({"wall": wall, "top": rows[:top]}))
'''


def _script(nb_path: Path, runs: str, out_dir: str) -> str:
    nb = nbformat.read(nb_path, as_version=4)
    parts = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        parts.append(cell.source)
        if "parameters" in (cell.metadata.get("tags") or []):
            parts.append(f"runs = {runs!r}\nout_dir = {out_dir!r}")
    # pyplot without a display: the report's kernels draw with the inline backend, which renders PNGs
    return "import matplotlib\nmatplotlib.use('Agg')\n" + "\n\n".join(parts) + "\n"


ONE_KERNEL = r'''
import contextlib, json, os, resource, sys, time
from pathlib import Path
import matplotlib
matplotlib.use("Agg")
from ambiglib.report._isolation import prepare
prepare()
import matplotlib.pyplot as plt
scripts, sharing, output = json.loads(sys.argv[1]), sys.argv[2] == "sharing", open(sys.argv[3], "w")
if not sharing:  # each run set keeps its own results; none is found among another's
    from ambiglib.runset import RunSet
    RunSet._shared = lambda self, state: None
total = 0.0
for name, script, cwd in scripts:
    code = Path(script).read_text()
    os.chdir(cwd)
    started = time.perf_counter()
    with contextlib.redirect_stdout(output):
        exec(compile(code, script, "exec"), {"__name__": "__main__", "display": lambda *a, **k: None})
    took = time.perf_counter() - started
    plt.close("all")
    total += took
    print(f"  {name:<32} {took:6.2f} s", flush=True)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
print(f"  {'total':<32} {total:6.2f} s; peak RSS {peak:.2f} GiB ({'with' if sharing else 'without'} sharing)")
'''


def one_kernel(snapshot: Path, work: Path, wanted: set[str], *, sharing: bool) -> None:
    """Run the notebooks' code one after another in one fresh process, in the order a first report starts them
    (the order given: no earlier report's times), as one kept kernel would: what a kernel works out once (its snapshot's digests, the results
    its run sets share) counts once. Their output goes to a file, not the terminal."""
    from ambiglib.report import bundled_notebooks
    from ambiglib.report._runner import longest_first

    scripts = []
    for (nb_path,) in longest_first([(p,) for p in sorted(bundled_notebooks().glob("*.ipynb"))]):
        if wanted and nb_path.stem not in wanted:
            continue
        script = work / f"{nb_path.stem}.py"
        script.write_text(_script(nb_path, str(snapshot), str(work / "artifacts" / nb_path.stem)))
        scripts.append((nb_path.stem, str(script), str(nb_path.parent)))
    output = work / "output.txt"
    print(f"one process, {len(scripts)} notebooks (what they print: {output}):", flush=True)
    proc = subprocess.run([sys.executable, "-c", ONE_KERNEL, json.dumps(scripts), "sharing" if sharing else "none",
                           str(output)], stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        print(f"failed:\n{proc.stderr[-2000:]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=1000)
    parser.add_argument("--notebooks", default="", help="comma-separated notebook names (default: all)")
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--cold", action="store_true",
                        help="profile the imports too (default: import first what the report's kept kernels import)")
    parser.add_argument("--one-kernel", action="store_true",
                        help="no profile: run the notebooks one after another in one process, as one kept kernel"
                             " runs them, and print each one's time, the total and the peak RSS")
    parser.add_argument("--no-sharing", action="store_true",
                        help="with --one-kernel: each notebook's run set shares no result with the others'")
    args = parser.parse_args()

    from ambiglib import load, simulate
    from ambiglib.report import bundled_notebooks
    from ambiglib.runlog._snapshot import write_snapshot

    work = Path(tempfile.mkdtemp(prefix="ambiglib-profile-"))
    # the snapshot is kept between runs (bench/out/, not tracked): writing it is not what is profiled
    snapshot = HERE / "out" / f"snapshot_x{args.scale}"
    if not (snapshot / "snapshot.json").is_file():
        log = work / "runs.jsonl"
        with log.open("w", encoding="utf-8") as fh:
            for records in simulate.example_records(scale=args.scale).values():
                for rec in records:
                    fh.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")
        loaded = load(log, strict=False, quiet=True)
        write_snapshot(*loaded, f"simulator at {args.scale}x", snapshot)
        del loaded
        log.unlink()
    print(f"log: simulator at {args.scale}x, snapshot {snapshot}")

    wanted = {n for n in args.notebooks.split(",") if n}
    if args.one_kernel:
        one_kernel(snapshot, work, wanted, sharing=not args.no_sharing)
        return
    for nb_path in sorted(bundled_notebooks().glob("*.ipynb")):
        if wanted and nb_path.stem not in wanted:
            continue
        script = work / f"{nb_path.stem}.py"
        script.write_text(_script(nb_path, str(snapshot), str(work / "artifacts" / nb_path.stem)))
        result = work / f"{nb_path.stem}.json"
        started = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", RUNNER, str(script), str(args.top), str(result),
                               "cold" if args.cold else "warm"],
                              cwd=nb_path.parent, capture_output=True, text=True)
        took = time.perf_counter() - started
        if proc.returncode != 0:
            print(f"\n{nb_path.stem}: failed\n{proc.stderr[-2000:]}")
            continue
        data = json.loads(result.read_text())
        print(f"\n{nb_path.stem}: {data['wall']:.1f} s in its cells ({took:.1f} s with the interpreter's start)")
        for row in data["top"]:
            print(f"  {row['seconds']:7.2f} s  {row['function']:<34} {row['where']}")


if __name__ == "__main__":
    main()
