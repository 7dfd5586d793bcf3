"""Benchmark: the pooled metrics of a store through DuckDB (``ambiglib.engines``) beside the pandas path.

For each simulator scale (``--scales``, default 100 and 1000: 48,700 and 487,000 runs), a store of the
simulated example partitioned by benchmark and model is written once into ``bench/out`` and then, each in a
fresh process, timed with its peak resident memory (the whole process, DuckDB's threads included):

* the pandas path: ``ambiglib.load(store)`` and the tables below from ``ambiglib.metrics``;
* the engine path: ``ambiglib.engines.on_store(store)`` and the same tables (``--memory-limit`` is DuckDB's).

The tables: ask_calibration (by suite, model, policy, protocol, with intervals), ask_f1 (the same, with
intervals), pass@3, pass^3 and the flip share (by every condition, task bootstrap of 2,000 draws);
``--tables value_of_information`` measures the payoff's table (by benchmark, suite, model, policy, with its task
bootstrap) alone, its pooling holding one row per variant; ``--tables asking,question_quality,payoff,agent_ranking``
the four answers (``ambiglib.answers``) over the store, and ``rank_calib_score,rank_ask_rate`` two rankings
(``ambiglib.ranking.rank_agents``). At every
scale the pandas path also runs, both results are compared cell for cell, and the benchmark fails on a
difference. ``--scales 10000`` (4.87 M runs) writes its store one benchmark at a time as JSON Lines, then
converts it; the pandas path runs there too unless ``--no-pandas`` (on a 24 GB machine it may not fit:
what happens is printed). Copy the printed figures into docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

OUT = Path(__file__).resolve().parent / "out"

TABLES = """
ALL = ("benchmark", "suite", "model", "spec", "ask_tool", "policy", "protocol")
FOUR = ("suite", "model", "policy", "protocol")
VOI = ("benchmark", "suite", "model", "policy")
tables = {
    "ask_calibration": lambda m, *a: m.ask_calibration(*a, by=FOUR, ci=True),
    "ask_f1": lambda m, *a: m.ask_f1(*a, by=FOUR, ci=True),
    "pass_at_k": lambda m, *a: m.pass_at_k(*a, k=3, by=ALL, ci=True, n_boot=2000),
    "pass_hat_k": lambda m, *a: m.pass_hat_k(*a, k=3, by=ALL, ci=True, n_boot=2000),
    "flip_share": lambda m, *a: m.flip_share(*a, by=ALL, ci=True, n_boot=2000),
    "value_of_information": lambda m, *a: m.value_of_information(*a, by=VOI, ci=True, n_boot=2000),
    "asking": lambda m, *a: ambiglib.answers.asking(a[0] if a else m),
    "question_quality": lambda m, *a: ambiglib.answers.question_quality(a[0] if a else m),
    "payoff": lambda m, *a: ambiglib.answers.payoff(a[0] if a else m),
    "agent_ranking": lambda m, *a: ambiglib.answers.agent_ranking(a[0] if a else m),
    "rank_calib_score": lambda m, *a: ambiglib.ranking.rank_agents(a[0] if a else m, metric="calib_score"),
    "rank_ask_rate": lambda m, *a: ambiglib.ranking.rank_agents(a[0] if a else m, metric="ask_rate"),
}
tables = {name: f for name, f in tables.items() if name in WANTED}
"""

RUN = """
import re, sys, time, pickle
WANTED = sys.argv[5].split(",")
def status(key):
    return int(re.search(key + r':\\s+(\\d+) kB', open('/proc/self/status').read()).group(1)) * 1024
import ambiglib, ambiglib.answers, ambiglib.engines, ambiglib.metrics, ambiglib.ranking
{tables}
store, engine, out, limit = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] or None
t0 = time.perf_counter()
if engine == "pandas":
    rs = ambiglib.load(store, quiet=True)
    loaded = time.perf_counter() - t0
    result = {{name: f(ambiglib.metrics, rs) for name, f in tables.items()}}
else:
    m = ambiglib.engines.on_store(store, memory_limit=limit)
    loaded = time.perf_counter() - t0
    result = {{name: f(m) for name, f in tables.items()}}
seconds = time.perf_counter() - t0
pickle.dump(result, open(out, "wb"))
print(seconds, loaded, status("VmHWM"))
"""


def write_store(scale: int) -> Path:
    """The simulated example at ``scale`` as a store partitioned by benchmark and model (written once)."""
    import ambiglib
    from ambiglib import simulate

    store = OUT / f"engines_x{scale}_store"
    if store.exists():
        return store
    t0 = time.perf_counter()
    if scale <= 1000:
        records = simulate.example_records(scale=scale)
        rs = ambiglib.RunSet.from_records(r for recs in records.values() for r in recs)
        rs.to_parquet(store, partition_by=("benchmark", "model"))
        n = len(rs.runs)
    else:  # one benchmark's records at a time, as JSON Lines, then one conversion
        import numpy as np

        from ambiglib.simulate import _records

        logs = OUT / f"engines_x{scale}_jsonl"
        logs.mkdir(exist_ok=True)
        simulators = (("ambig-ds", _records._ambig_ds), ("hil-bench", lambda rng, s: _records._hil_bench(rng, s, True)),
                      ("lhaw", _records._lhaw))
        for i, (name, simulator) in enumerate(simulators):
            with open(logs / f"{name}.jsonl", "w", encoding="utf-8") as fh:
                for record in simulator(np.random.default_rng([_records.DEFAULT_SEED, i]), scale):
                    fh.write(json.dumps(record) + "\n")
        subprocess.run([sys.executable, "-m", "ambiglib", "convert", "--runs", str(logs), "--out", str(store),
                        "--partition-by", "benchmark,model", "-q"], check=True)
        n = -1
    print(f"wrote {store} ({n:,} runs) in {time.perf_counter() - t0:.0f} s", flush=True)
    return store


def measure(store: Path, engine: str, limit: str | None, wanted: list[str]) -> tuple[float, float, int, Path] | str:
    out = OUT / f"engines_{store.name}_{engine}.pickle"
    code = RUN.format(tables=TABLES)
    done = subprocess.run([sys.executable, "-c", code, str(store), engine, str(out), limit or "", ",".join(wanted)],
                          capture_output=True, text=True)
    if done.returncode:
        return (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
    seconds, loaded, peak = done.stdout.split()
    return float(seconds), float(loaded), int(peak), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scales", default="100,1000", help="simulator scales, comma-separated")
    parser.add_argument("--memory-limit", default=None, help="DuckDB's memory_limit, e.g. 1GB")
    parser.add_argument("--no-pandas", action="store_true", help="only the engine path")
    parser.add_argument("--tables", default="ask_calibration,ask_f1,pass_at_k,pass_hat_k,flip_share",
                        help="which tables, comma-separated (value_of_information is measured on its own: its pooling"
                             " holds per-variant rows)")
    args = parser.parse_args()
    import pickle

    import pandas as pd

    OUT.mkdir(exist_ok=True)
    for scale in (int(s) for s in args.scales.split(",")):
        store = write_store(scale)
        results = {}
        for engine in (("duckdb",) if args.no_pandas else ("duckdb", "pandas")):
            got = measure(store, engine, args.memory_limit, args.tables.split(","))
            if isinstance(got, str):
                print(f"{scale}x {engine}: failed: {got}", flush=True)
                continue
            seconds, loaded, peak, out = got
            results[engine] = pickle.load(open(out, "rb"))
            print(f"{scale}x {engine} ({args.tables}): {seconds:.1f} s ({loaded:.1f} s to load or open), peak RSS"
                  f" {peak / 2**30:.2f} GiB", flush=True)
        if len(results) == 2:
            for name in results["duckdb"]:
                pd.testing.assert_frame_equal(results["duckdb"][name], results["pandas"][name], check_exact=True)
            print(f"{scale}x: every table equal cell for cell ({', '.join(results['duckdb'])})", flush=True)


if __name__ == "__main__":
    main()
