"""Benchmark: loading a large canonical run log.

Generates 100,000 runs with 1,000,000 questions as canonical JSON Lines and
measures, against the baselines named in the foundation issue:

1. ``ambiglib.load`` against ``pyarrow.json.read_json`` on the same bytes (target: within 2x);
2. ``ambiglib.load`` against a naive ``json.loads`` + ``pandas.json_normalize`` loop (target: >= 5x faster);
3. reloading the ``RunSet.to_parquet`` folder against the JSONL load (target: >= 10x faster);
4. peak memory of the load (in a fresh process) against the Arrow size of the frames (target: <= 3x);
5. on the simulator's log at ``--store-scale`` (1000: 516k records), partitioned by benchmark and model
   (``RunSet.to_parquet(partition_by=...)``): ``load(store, filters=[("benchmark", "==", X)])`` against
   loading the whole store, for each benchmark X (target: <= 0.6x, with exactly X's runs); beside it the
   floor, pyarrow alone reading the same partitions of the five frames, checking nothing;
6. logs whose ``meta`` objects hold other keys in every record (issue 31: Arrow inferred one struct
   field per distinct key for every row, 8.9 s and 2.5 GB for a 4.6 MB file): time and peak memory of
   the default engine and of the Python engine, against the file's size (target: peak <= 20x the file,
   the Python engine's own ratio, and no more than the Python engine's time).

7. peak memory of a load (RSS growth in a fresh process) against the Arrow size of the frames it returns, at
   100,000 runs (10 questions each) and 1,000,000 runs (1 question each), for the JSON Lines log, its Parquet
   folder and a store partitioned by model, and for Inspect AI logs of 10,080 and 100,800 runs (1,008,000 with
   ``--inspect-copies 1,10,100``) beside the fixed cost of reading any Inspect log (issue 41: target <= 2x;
   hostile Inspect logs: ``bench/inspect_memory.py``).

8. a folder of 20,000 one-run files (issue 56: 160 s and 2.3 GB, where one file of the same runs took 0.9 s and
   146 MB): time and peak memory of the load against one file holding the same runs (target: <= 3x the time).

Run ``python bench/load.py`` (or ``make bench``); ``--runs`` scales it down for a quick look;
``--store-only``, ``--meta-only``, ``--memory-only`` and ``--small-files-only`` run one figure.
Copy the printed figures into docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

import ambiglib
from ambiglib.runlog._jsonl import read_file

OUT = Path(__file__).resolve().parent / "out"
ROOT = Path(__file__).resolve().parents[1]


def generate(path: Path, n_runs: int, questions_per_run: int, seed: int = 0) -> None:
    """Write ``n_runs`` HIL-Bench-like run records with ``questions_per_run`` questions each."""
    rng = np.random.default_rng(seed)
    models = [f"model-{i}" for i in range(8)]
    # varied wording, so that neither JSON nor Parquet gets unrealistically repetitive text
    vocab = np.array(["date", "range", "column", "customer", "senior", "threshold", "revenue", "region",
                      "era", "cutoff", "status", "account", "definition", "table", "period", "crisis",
                      "owner", "filter", "order", "limit", "unit", "currency", "fiscal", "quarter",
                      "active", "legacy", "schema", "join", "key", "format", "rounding", "timezone"])
    words = vocab[rng.integers(len(vocab), size=(n_runs, questions_per_run, 9))]
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n_runs):
            task = f"public_{'sql' if i % 2 else 'swe'}_{(i // 2) % 1000}"
            relevant = rng.random(questions_per_run) < 0.5
            rec = {
                "benchmark": "hil-bench", "suite": "sql" if i % 2 else "swe", "task_id": task,
                "model": models[(i // 2000) % 8], "spec": "ambiguous", "ask_tool": True,
                "trial": 1 + (i // 16000), "status": "ok", "score": round(float(rng.random()), 4),
                "passed": bool(rng.random() < 0.3), "cost_usd": round(float(rng.gamma(2, 0.2)), 4),
                "questions": [
                    {"text": f"Which {' '.join(words[i, k, :6])} should requirement {k} of {task} use?",
                     "blocker_id": f"{task}_blocker_{k % 5}" if relevant[k] else None,
                     "response": f"Use the {' '.join(words[i, k, 6:])} of 1996." if relevant[k]
                     else "irrelevant question",
                     "step": 3 + 4 * k}
                    for k in range(questions_per_run)
                ],
            }
            fh.write(json.dumps(rec, separators=(",", ":")) + "\n")


def fresh(statement: str, path: Path, repeat: int) -> float:
    """Best wall time of ``statement`` run once in each of ``repeat`` fresh processes.

    This is what a user sees when a new kernel loads a run log. Imports are done
    before the clock starts; in one long-lived process the timings of large loads
    swing by 2-3x with what the allocator already holds.
    """
    code = (
        "import sys, time, json, ambiglib, pandas as pd, pyarrow.json as pj, pyarrow.parquet\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})\n"
        "from load import naive\n"
        "path = sys.argv[1]\n"
        "t0 = time.perf_counter()\n"
        f"{statement}\n"
        "print(time.perf_counter() - t0)\n"
    )
    times = []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", code, str(path)], check=True, capture_output=True, text=True)
        times.append(float(out.stdout.split()[-1]))
    return min(times)


def naive(path: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    records = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            records.append(json.loads(line))
    runs = pd.json_normalize(records)
    questions = pd.json_normalize(records, record_path="questions", meta=["task_id", "model", "trial"])
    return runs, questions


def arrow_nbytes(runset: ambiglib.RunSet) -> int:
    return sum(pa.Table.from_pandas(f, preserve_index=False).nbytes for f in runset.frames().values())


def _fresh_peak(imports: str, load: str, size: str, path: Path) -> tuple[int, int]:
    """Peak RSS growth of ``load`` (a statement reading ``sys.argv[1]``) in a fresh process after ``imports``,
    and ``size`` (an expression: the Arrow size of what it read).

    After the imports, the process resets its high-water mark (``/proc/self/clear_refs``),
    so the peak is the load's own, measured from the resident size just before it.
    """
    code = (
        f"import re, sys\n{imports}\n"
        "def status(key):\n"
        "    return int(re.search(key + r':\\s+(\\d+) kB', open('/proc/self/status').read()).group(1)) * 1024\n"
        "open('/proc/self/clear_refs', 'w').write('5')\n"
        "before = status('VmRSS')\n"
        f"{load}\n"
        "peak = status('VmHWM') - before\n"
        f"print(peak, {size})\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], check=True, capture_output=True, text=True)
    peak, nbytes = out.stdout.split()
    return int(peak), int(nbytes)


def peak_memory(path: Path, engine: str = "auto") -> tuple[int, int]:
    """Peak RSS growth of ``ambiglib.load`` in a fresh process, and the Arrow size of its frames."""
    return _fresh_peak("import ambiglib, ambiglib.loading._load, pyarrow as pa",
                       f"rs = ambiglib.load(sys.argv[1], quiet=True, engine={engine!r})",
                       "sum(pa.Table.from_pandas(f, preserve_index=False).nbytes for f in rs.frames().values())",
                       path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--questions", type=int, default=10, help="questions per run")
    parser.add_argument("--repeat", type=int, default=5, help="fresh processes per figure (best is kept)")
    parser.add_argument("--store-scale", type=int, default=1000, help="simulator scale of the partitioned store")
    parser.add_argument("--store-only", action="store_true", help="only figure 5, the partitioned store")
    parser.add_argument("--meta-only", action="store_true", help="only figure 6, logs with varied meta keys")
    parser.add_argument("--memory-only", action="store_true", help="only figure 7, peak memory at 100k and 1M runs")
    parser.add_argument("--small-files-only", action="store_true", help="only figure 8, 20,000 one-run files")
    parser.add_argument("--small-files", type=int, default=20_000, help="figure 8's number of one-run files")
    parser.add_argument("--inspect-copies", type=lambda s: tuple(int(k) for k in s.split(",")), default=(1, 10),
                        help="figure 7's Inspect logs: copies of the 10,080-run set, comma-separated (1,10,100 adds"
                             " 1,008,000 runs: 2.8 GB, ~5 min a load)")
    args = parser.parse_args()
    if args.small_files_only:
        OUT.mkdir(exist_ok=True)
        _print_rows(small_files_rows(args.small_files, args.repeat))
        return
    if args.store_only or args.meta_only or args.memory_only:
        OUT.mkdir(exist_ok=True)
        _print_rows(store_rows(args.store_scale, args.repeat) if args.store_only else
                    meta_rows(args.repeat) if args.meta_only else memory_rows(args.repeat, args.inspect_copies))
        return

    OUT.mkdir(exist_ok=True)
    path = OUT / f"runs_{args.runs}x{args.questions}.jsonl"
    if not path.exists():
        t0 = time.perf_counter()
        generate(path, args.runs, args.questions)
        print(f"generated {path} in {time.perf_counter() - t0:.1f} s")
    size_mb = path.stat().st_size / 1e6
    print(f"machine: {platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()},"
          f" pandas {pd.__version__}, pyarrow {pa.__version__}")
    print(f"input: {args.runs:,} runs, {args.runs * args.questions:,} questions, {size_mb:.0f} MB of JSON Lines")
    assert read_file(path, str(path)).engine == "arrow", "the benchmark file must take the Arrow path"

    runset = ambiglib.load(path, quiet=True)
    assert len(runset.runs) == args.runs and len(runset.questions) == args.runs * args.questions
    pq_dir = OUT / "runs_parquet"
    runset.to_parquet(pq_dir)
    del runset
    t_load = fresh("ambiglib.load(path, quiet=True)", path, args.repeat)
    t_arrow = fresh("pj.read_json(path)", path, args.repeat)
    t_parquet = fresh("ambiglib.load(path, quiet=True)", pq_dir, args.repeat)
    t_parquet_raw = fresh("[pyarrow.parquet.read_table(f'{path}/{n}.parquet') for n in"
                          " ('runs', 'questions', 'labels', 'tasks', 'blockers')]", pq_dir, args.repeat)
    t_naive = fresh("naive(path)", path, 1)
    peak, size = peak_memory(path)

    rows = [
        ("ambiglib.load (JSONL)", f"{t_load:.2f} s", "", ""),
        ("pyarrow.json.read_json, same bytes", f"{t_arrow:.2f} s",
         f"load / read_json = {t_load / t_arrow:.2f}x", "<= 2x " + ("PASS" if t_load <= 2 * t_arrow else "FAIL")),
        ("naive json.loads + json_normalize", f"{t_naive:.2f} s",
         f"naive / load = {t_naive / t_load:.1f}x", ">= 5x " + ("PASS" if t_naive >= 5 * t_load else "FAIL")),
        ("ambiglib.load (Parquet folder)", f"{t_parquet:.3f} s",
         f"JSONL / Parquet = {t_load / t_parquet:.1f}x", ">= 10x " + ("PASS" if t_load >= 10 * t_parquet else "FAIL")),
        ("  of which pyarrow.parquet.read_table", f"{t_parquet_raw:.3f} s",
         f"ambiglib adds {max(t_parquet - t_parquet_raw, 0) * 1000:.0f} ms", ""),
        ("peak memory of load (fresh process)", f"{peak / 1e6:.0f} MB",
         f"peak / Arrow size of frames ({size / 1e6:.0f} MB) = {peak / size:.2f}x",
         "<= 3x " + ("PASS" if peak <= 3 * size else "FAIL")),
    ]
    rows += store_rows(args.store_scale, args.repeat)
    rows += meta_rows(args.repeat)
    rows += memory_rows(args.repeat, args.inspect_copies)
    rows += small_files_rows(args.small_files, args.repeat)
    _print_rows(rows)


def small_files_rows(n_files: int, repeat: int) -> list[tuple[str, str, str, str]]:
    """Figure 8: ``n_files`` one-run files in one folder against one file of the same runs."""
    one = OUT / f"small_{n_files}.jsonl"
    folder = OUT / f"small_{n_files}"
    if not folder.exists():
        generate(one, n_files, 3)
        folder.mkdir()
        with open(one, encoding="utf-8") as fh:
            for i, line in enumerate(fh):
                (folder / f"run_{i:06d}.jsonl").write_text(line, encoding="utf-8")
    t_folder = fresh("ambiglib.load(path, quiet=True)", folder, repeat)
    t_one = fresh("ambiglib.load(path, quiet=True)", one, repeat)
    peak_folder, _ = peak_memory(folder)
    peak_one, _ = peak_memory(one)
    return [
        (f"{n_files:,} one-run files", f"{t_folder:.2f} s", f"one file of them: {t_one:.2f} s ="
         f" {t_folder / t_one:.1f}x", "<= 3x " + ("PASS" if t_folder <= 3 * t_one else "FAIL")),
        ("  peak memory (fresh process)", f"{peak_folder / 1e6:.0f} MB", f"one file: {peak_one / 1e6:.0f} MB", ""),
    ]


def _print_rows(rows: list[tuple[str, str, str, str]]) -> None:
    width = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, width)))


def store_rows(scale: int, repeat: int) -> list[tuple[str, str, str, str]]:
    """Figure 5: a filtered load of a partitioned store against loading all of it."""
    from ambiglib import simulate

    store = OUT / f"example_x{scale}_store"
    if not store.exists():
        t0 = time.perf_counter()
        records = simulate.example_records(scale=scale)
        rs = ambiglib.RunSet.from_records(r for recs in records.values() for r in recs)
        rs.to_parquet(store, partition_by=("benchmark", "model"))
        print(f"wrote {store} ({len(rs.runs):,} runs) in {time.perf_counter() - t0:.0f} s")
    full_rs = ambiglib.load(store, quiet=True)
    counts = full_rs.runs["benchmark"].value_counts().to_dict()
    del full_rs
    t_full = fresh("ambiglib.load(path, quiet=True)", store, repeat)
    t_floor = fresh(_READ_STORE.format(bench=None), store, repeat)
    rows = [(f"ambiglib.load, partitioned store at {scale}x", f"{t_full:.3f} s", f"{sum(counts.values()):,} runs", ""),
            ("  floor: pyarrow.dataset reads all five frames", f"{t_floor:.3f} s", "nothing checked", "")]
    for bench in sorted(counts):
        flt = [("benchmark", "==", bench)]
        t = fresh(f"rs = ambiglib.load(path, quiet=True, filters={flt!r})\n"
                  f"assert len(rs.runs) == {counts[bench]} and set(rs.runs['benchmark']) == {{{bench!r}}}",
                  store, repeat)
        t_part = fresh(_READ_STORE.format(bench=repr(bench)), store, repeat)
        rows.append((f"  filters=[('benchmark', '==', {bench!r})]", f"{t:.3f} s",
                     f"filtered / full = {t / t_full:.2f}x ({counts[bench]:,} runs)",
                     "<= 0.6x " + ("PASS" if t <= 0.6 * t_full else "FAIL")))
        rows.append(("    floor: pyarrow.dataset, the same filter", f"{t_part:.3f} s",
                     f"filtered / full = {t_part / t_floor:.2f}x", ""))
    return rows


def meta_rows(repeat: int) -> list[tuple[str, str, str, str]]:
    """Figure 6: logs whose records each carry ``meta`` keys no other record has."""
    rows = []
    for n_runs, per_run in ((8_000, 3), (16_000, 3), (16_000, 1)):
        path = OUT / f"meta_{n_runs}x{per_run}.jsonl"
        if not path.exists():
            with open(path, "w", encoding="utf-8") as fh:
                for i in range(n_runs):
                    rec = {"benchmark": "b", "suite": "s", "task_id": f"t{i}", "model": "m", "spec": "ambiguous",
                           "ask_tool": True, "trial": 1, "score": 0.5,
                           "questions": [{"text": "Which one?", "response": "that one", "step": 2}],
                           "meta": {f"key_{i}_{j}": {"value": j, "note": "x" * 20} for j in range(per_run)}}
                    fh.write(json.dumps(rec, separators=(",", ":")) + "\n")
        size = path.stat().st_size
        kinds = f"{n_runs:,} records, {per_run} own key{'s' if per_run > 1 else ''} each, {size / 1e6:.1f} MB"
        figures = {}
        for engine in ("auto", "python"):
            t = fresh(f"ambiglib.load(path, quiet=True, engine={engine!r})", path, repeat)
            peak, _ = peak_memory(path, engine)
            figures[engine] = (t, peak)
        (t_auto, p_auto), (t_py, p_py) = figures["auto"], figures["python"]
        rows.append((f"varied meta: {kinds}", f"{t_auto:.2f} s", f"{p_auto / 1e6:.0f} MB = {p_auto / size:.1f}x the file",
                     "<= 20x " + ("PASS" if p_auto <= 20 * size else "FAIL")))
        rows.append(("  engine='python'", f"{t_py:.2f} s", f"{p_py / 1e6:.0f} MB = {p_py / size:.1f}x the file",
                     f"auto / python time = {t_auto / t_py:.2f}x"))
    return rows


def memory_rows(repeat: int, inspect_copies: tuple[int, ...] = (1, 10)) -> list[tuple[str, str, str, str]]:
    """Figure 7: peak RSS growth of a load in a fresh process against the Arrow size of its frames, for each
    format of two logs (the highest of ``repeat`` processes: memory is what may not be exceeded)."""
    rows = []
    for n_runs, per_run in ((100_000, 10), (1_000_000, 1)):
        path = OUT / f"runs_{n_runs}x{per_run}.jsonl"
        if not path.exists():
            generate(path, n_runs, per_run)
        copies = {"JSON Lines": path, "Parquet folder": OUT / f"runs_{n_runs}x{per_run}_parquet",
                  "store by model": OUT / f"runs_{n_runs}x{per_run}_store"}
        if not copies["store by model"].exists():
            rs = ambiglib.load(path, quiet=True)
            rs.to_parquet(copies["Parquet folder"])
            rs.to_parquet(copies["store by model"], partition_by=("model",))
            del rs
        for what, copy in copies.items():
            peaks = [peak_memory(copy) for _ in range(repeat)]
            peak, size = max(p for p, _ in peaks), peaks[0][1]
            rows.append((f"peak memory, {n_runs:,} runs x {per_run} q, {what}", f"{peak / 1e6:,.0f} MB",
                         f"peak / Arrow size of frames ({size / 1e6:,.0f} MB) = {peak / size:.2f}x",
                         "<= 2x " + ("PASS" if peak <= 2 * size else "FAIL")))
            if what == "Parquet folder":  # the floor: pyarrow alone reading the five files, checking nothing
                floor = max(_read_peak(copy) for _ in range(repeat))
                rows.append(("  floor: pyarrow reads the five files", f"{floor[0] / 1e6:,.0f} MB",
                             f"peak / Arrow size of what it read ({floor[1] / 1e6:,.0f} MB) = {floor[0] / floor[1]:.2f}x",
                             ""))
    return rows + inspect_memory_rows(repeat, inspect_copies)


def inspect_memory_rows(repeat: int, copies: tuple[int, ...]) -> list[tuple[str, str, str, str]]:
    """Figure 7 for Inspect AI logs: the 10,080-sample set of ``bench/inspect_logs.py`` and ``copies`` copies of
    it (each eval's model renamed: 10 copies, 100,800 runs; 100 copies, 1,008,000 runs, 2.8 GB written once and
    ~5 minutes a load). Reading any Inspect log has a fixed cost (inspect-ai's imports, its header reader): the
    peak of a small log (a fixture's, 18 runs) is printed, and what a load adds over it."""
    try:
        import inspect_ai  # noqa: F401
        import inspect_logs
        import zipfile_zstd  # noqa: F401
    except ImportError as exc:
        return [("peak memory, Inspect AI logs", "–", f"not measured: {exc.name} is not installed"
                 " (pip install -e '.[inspect]')", "")]
    one = sorted((ROOT / "tests" / "fixtures" / "inspect").glob("*.eval"))[0]
    fixed = max(peak_memory(one)[0] for _ in range(repeat))
    rows = [("peak memory, an 18-run Inspect log (fixed cost)", f"{fixed / 1e6:,.0f} MB", "inspect-ai's imports"
             " and its reader, whatever the log", "")]
    base, n = inspect_logs.ensure_logs(70)
    for k in copies:
        folder, runs = base if k == 1 else inspect_logs.with_models(base, k), k * n
        peaks = [peak_memory(folder) for _ in range(repeat)]
        peak, size = max(p for p, _ in peaks), peaks[0][1]
        rows.append((f"peak memory, {runs:,} runs, Inspect AI logs", f"{peak / 1e6:,.0f} MB",
                     f"peak / Arrow size of frames ({size / 1e6:,.0f} MB) = {peak / size:.2f}x;"
                     f" over the fixed cost {(peak - fixed) / size:.2f}x", "<= 2x " + ("PASS" if peak <= 2 * size
                                                                                     else "FAIL")))
    return rows


def _read_peak(folder: Path) -> tuple[int, int]:
    """Peak RSS growth of pyarrow reading a Parquet folder's five files (nothing else), and their Arrow size."""
    return _fresh_peak("import pyarrow.parquet as pq",
                       "t = [pq.ParquetFile(f'{sys.argv[1]}/{n}.parquet').read()"
                       " for n in ('runs', 'questions', 'labels', 'tasks', 'blockers')]",
                       "sum(x.nbytes for x in t)", folder)


#: The floor of a filtered load: pyarrow reading each frame of a partitioned store, the partitions the
#: filter names (``bench`` None: all), into Arrow tables, checking nothing
_READ_STORE = """
import pyarrow.dataset as ds
from pathlib import Path
for frame in sorted(p for p in Path(path).iterdir() if p.is_dir()):
    d = ds.dataset(frame, format="parquet", partitioning="hive")
    bench = {bench}
    d.to_table(filter=ds.field("benchmark") == bench if bench is not None and "benchmark" in d.schema.names else None)
"""


if __name__ == "__main__":
    main()
