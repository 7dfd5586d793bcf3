"""Benchmark: the report at 1x and Nx, beside its floor, with a breakdown per notebook and phase.

Six reports are run one after another in this process (two notebooks at a time, each worker keeping its
kernel for its next notebook, as ``ambiglib report`` runs them), ``--repeat`` times, alternately:

* the report on the example data (1x, 516 records);
* the report on the simulator at ``--scale N`` (``simulate.example_records(scale=N)``, written as
  one JSON Lines file first; the write is not timed);
* the floor: as many one-cell notebooks (``import pandas``, ``import matplotlib``, one plot) run by
  the same machinery (papermill, two at a time, exported to HTML) on the example data;
* the floor with the report's libraries: the same, each notebook also importing ambiglib, loading
  the log as the report's notebooks do, and importing what its bundled notebook loads on first use
  (scipy.stats, seaborn, statsmodels: found by running that notebook's code first). What the report
  takes beyond it is its tables and figures;
* the 1x report and the floor again with a new kernel for every notebook (``reuse_kernels=False``, how
  the report ran before issue 29);
* plain papermill, as a user runs it: for each of the floor's notebooks, the ``papermill`` command, then
  ``jupyter nbconvert --to html``, two notebooks at a time, nothing of ambiglib's (the guard of issue 59: the
  1x report no slower than this);
* plain papermill in two warm processes: the same notebooks through ``papermill.execute_notebook`` and
  nbconvert's ``HTMLExporter`` in a pool of two processes that have imported both already (recorded: a
  stricter floor than anyone running papermill by hand gets, since each command pays its imports).

Per notebook and phase, from papermill's own cell timings: kernel start, the first code cell
(imports and load), table cells, plot cells, the rest, and the HTML export (what the notebook's
process spent after papermill's last cell). Run ``python bench/report.py --scale 1000``; copy the
figures into docs/performance.md. ``--reports-only`` runs the guard's two reports alone (walls and CPU-seconds:
on a shared machine the CPU-seconds say more), ``--log FILE`` keeps the Nx log's JSON Lines between runs.
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

import nbformat
import pandas as pd

from ambiglib import simulate
from ambiglib.report import bundled_notebooks, example_runs, run_report

FLOOR_CELL = ("import pandas as pd\nimport matplotlib\nimport matplotlib.pyplot as plt\n"
              "fig, ax = plt.subplots()\nax.plot([0, 1], [0, 1])\nplt.show()")


def _one_cell_notebooks(folder: Path, cells: dict[str, str]) -> Path:
    """A notebook ``<name>.ipynb`` per entry: a parameters cell (``runs``, ``out_dir``), then the one cell."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, source in cells.items():
        nb = nbformat.v4.new_notebook()
        params = nbformat.v4.new_code_cell('runs: str = "../data/example"\nout_dir: str = "artifacts"')
        params.metadata["tags"] = ["parameters"]
        nb.cells = [params, nbformat.v4.new_code_cell(source)]
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, folder / f"{name}.ipynb")
    return folder


def _floor_notebooks(folder: Path, n: int) -> Path:
    return _one_cell_notebooks(folder, {f"floor_{i:02d}": FLOOR_CELL for i in range(n)})


#: modules a notebook loads on first use that the floor's notebooks do not (docs/performance.md)
LIBRARIES = ("scipy.stats", "seaborn", "statsmodels")


def _libraries_used(example: Path) -> dict[str, list[str]]:
    """Which of LIBRARIES each bundled notebook loads: its code cells run in order as one script (as
    bench/profile.py runs them) on the example data, in a fresh interpreter each."""
    import importlib.util
    import subprocess
    import sys

    spec = importlib.util.spec_from_file_location("ambiglib_bench_profile", Path(__file__).with_name("profile.py"))
    profile = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(profile)
    used = {}
    with tempfile.TemporaryDirectory() as tmp:
        for nb in sorted(bundled_notebooks().glob("*.ipynb")):
            script = Path(tmp) / f"{nb.stem}.py"
            script.write_text(profile._script(nb, str(example), str(Path(tmp) / nb.stem)) +
                              f"\nimport json, sys\nprint('LOADED', json.dumps([m for m in {LIBRARIES!r} if m in sys.modules]))\n")
            done = subprocess.run([sys.executable, str(script)], cwd=nb.parent, capture_output=True, text=True,
                                  check=True)
            line = [ln for ln in done.stdout.splitlines() if ln.startswith("LOADED ")][-1]
            used[nb.stem] = json.loads(line[len("LOADED "):])
    return used


def _library_floor_notebooks(folder: Path, used: dict[str, list[str]]) -> Path:
    """One notebook per bundled notebook: the floor's cell after importing ambiglib, loading the log as
    the report's notebooks do, and importing the libraries that notebook loads (``_libraries_used``)."""
    setup = ("import ambiglib\nfrom ambiglib import metrics, tables, plots\nfrom ambiglib.report import show_table\n"
             "rs, rejected = ambiglib.load(runs, strict=False, quiet=True)\n")
    return _one_cell_notebooks(folder, {name: setup + "".join(f"import {m}\n" for m in libraries) + FLOOR_CELL
                                        for name, libraries in used.items()})


def _phases(out: Path, manifest: dict) -> pd.DataFrame:
    rows = []
    for entry in manifest["notebooks"]:
        nb = nbformat.read(out / f"{entry['notebook']}.ipynb", as_version=4)
        cells = [c for c in nb.cells if c.cell_type == "code"]
        kinds = {"imports + load": 0.0, "tables": 0.0, "plots": 0.0, "other cells": 0.0}
        first = True
        for c in cells:
            if "parameters" in (c.metadata.get("tags") or []) or "injected-parameters" in (c.metadata.get("tags") or []):
                continue
            d = float(c.metadata.get("papermill", {}).get("duration") or 0.0)
            src = c.source
            kind = ("imports + load" if first else "plots" if "plots." in src or "show_figure" in src
                    else "tables" if "tables." in src or "metrics." in src or "show_table" in src else "other cells")
            first = False
            kinds[kind] += d
        executed = float(nb.metadata.get("papermill", {}).get("duration") or 0.0)
        kernel = float(entry.get("kernel_start_seconds") or 0.0)
        rows.append({"notebook": entry["notebook"], "total": entry["seconds"], "kernel start": kernel, **kinds,
                     "export + papermill": max(entry["seconds"] - executed, 0.0)})
    return pd.DataFrame(rows)


def _cpu_seconds() -> float:
    """User and system time of this process and every process it has waited for (the report's workers, and
    through them their kernels, which each worker waits for when it shuts them down)."""
    mine, theirs = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + theirs.ru_utime + theirs.ru_stime


#: CPU seconds each report took (by its output folder's name): the report is CPU-bound when they come near
#: its wall time x the cores, and then only less work makes it faster
CPU: dict[str, float] = {}


def _papermill_one(job: tuple[Path, Path]) -> None:
    import papermill
    from nbconvert import HTMLExporter

    notebook, out = job
    executed = out / notebook.name
    papermill.execute_notebook(str(notebook), str(executed), parameters={"out_dir": str(out / "artifacts")},
                               kernel_name="python3", progress_bar=False, cwd=str(out))
    body, _ = HTMLExporter().from_filename(str(executed))
    executed.with_suffix(".html").write_text(body, encoding="utf-8")


def _papermill_command(job: tuple[Path, Path]) -> None:
    notebook, out = job
    executed = out / notebook.name
    bin_dir = Path(sys.executable).parent  # the commands of this environment, as its user types them
    subprocess.run([str(bin_dir / "papermill"), str(notebook), str(executed), "-p", "out_dir", str(out / "artifacts"),
                    "--cwd", str(out), "-k", "python3", "--no-progress-bar"], check=True, capture_output=True)
    subprocess.run([str(bin_dir / "jupyter"), "nbconvert", "--to", "html", str(executed)], check=True,
                   capture_output=True)


def _two_at_a_time(run_one, pool_class, notebooks: Path, out: Path) -> float:
    """Wall seconds to run ``run_one((notebook, out))`` for each of ``notebooks``, two at a time in ``pool_class``."""
    out.mkdir(parents=True)
    t0 = time.perf_counter()
    with pool_class(2) as pool:
        list(pool.map(run_one, [(nb, out) for nb in sorted(notebooks.glob("*.ipynb"))]))
    return time.perf_counter() - t0


def _plain_papermill_commands(notebooks: Path, out: Path) -> float:
    """Wall seconds to run and export ``notebooks`` with the papermill and nbconvert commands, two at a time."""
    from concurrent.futures import ThreadPoolExecutor  # each command is a process of its own

    return _two_at_a_time(_papermill_command, ThreadPoolExecutor, notebooks, out)


def _plain_papermill(notebooks: Path, out: Path) -> float:
    """Wall seconds to run and export ``notebooks`` with papermill's and nbconvert's Python API alone, two at a
    time in processes that imported them once."""
    from concurrent.futures import ProcessPoolExecutor

    return _two_at_a_time(_papermill_one, ProcessPoolExecutor, notebooks, out)


def _report(runs: Path | None, out: Path, **kw) -> tuple[float, pd.DataFrame]:
    cpu, t0 = _cpu_seconds(), time.perf_counter()
    run_report(runs, out, jobs=2, **kw)
    wall = time.perf_counter() - t0
    CPU[out.name] = _cpu_seconds() - cpu
    return wall, _phases(out, json.loads((out / "manifest.json").read_text()))


def _write_log(big: Path, scale: int) -> None:
    """The simulator's log at ``scale`` as one JSON Lines file (not timed)."""
    t0 = time.perf_counter()
    records = simulate.example_records(scale=scale)
    big.parent.mkdir(parents=True, exist_ok=True)
    with open(big, "w", encoding="utf-8") as fh:
        for rs in records.values():
            for rec in rs:
                fh.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")
    n_records = sum(len(v) for v in records.values())
    print(f"log at {scale}x: {n_records:,} records, {big.stat().st_size / 1e6:.0f} MB of JSON Lines"
          f" (simulated and written in {time.perf_counter() - t0:.0f} s, not timed below)")


def _reports_only(big: Path, tmp: Path, scale: int, repeat: int) -> None:
    """The guard's two reports alone, alternately ``repeat`` times: walls, CPU-seconds, the ratio of the medians,
    and the Nx report's table seconds per notebook (of its first run)."""
    ones, manys, many_phases = [], [], None
    for i in range(repeat):
        ones.append(_report(None, tmp / f"r1-{i}")[0])
        many, phases = _report(big, tmp / f"rN-{i}")
        manys.append(many)
        many_phases = phases if many_phases is None else many_phases
    one, many = statistics.median(ones), statistics.median(manys)
    assert many_phases is not None
    print(many_phases.round(2).to_string(index=False))

    def listed(times: list[float], prefix: str) -> str:
        cpu = ", ".join(f"{CPU[f'{prefix}-{i}']:.1f}" for i in range(repeat))
        return f"{', '.join(f'{t:.1f}' for t in times)} s ({cpu} CPU-s)"

    print(f"runs: 1x {listed(ones, 'r1')}; {scale}x {listed(manys, 'rN')}")
    print(f"report at 1x: {one:.1f} s; at {scale}x: {many:.1f} s; {scale}x / 1x = {many / one:.2f}"
          f" (guard <= 3.3, issue 73: {'PASS' if many / one <= 3.3 else 'FAIL'})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=1000, help="simulator scale of the large log (default 1000)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="run the 1x and Nx reports and the floors this many times, alternately, and compare their"
                             " medians"
                             " (on a shared machine the floor alone has ranged 24-30 s between runs)")
    parser.add_argument("--reports-only", action="store_true",
                        help="run only the 1x and Nx reports (the guard's ratio; no floors, no plain papermill)")
    parser.add_argument("--log", type=Path, default=None,
                        help="the Nx log's JSON Lines file: read when it exists, else written there (and kept)")
    args = parser.parse_args()
    print(f"machine: {platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    n_notebooks = len(list(bundled_notebooks().glob("*.ipynb")))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        big = args.log or tmp / f"example-x{args.scale}.jsonl"
        if not big.is_file():
            _write_log(big, args.scale)
        if args.reports_only:
            _reports_only(big, tmp, args.scale, args.repeat)
            return
        floor_nbs = _floor_notebooks(tmp / "floor-nbs", n_notebooks)
        used = _libraries_used(example_runs())
        library_nbs = _library_floor_notebooks(tmp / "library-floor-nbs", used)
        ones, manys, floors, library_floors, fresh_ones, fresh_floors, plains, commands = [], [], [], [], [], [], [], []
        many_phases = one_phases = None
        for i in range(args.repeat):  # alternately, so that a slow spell of the machine touches each alike
            one, phases = _report(None, tmp / f"r1-{i}")
            ones.append(one)
            one_phases = one_phases if one_phases is not None else phases
            many, phases = _report(big, tmp / f"rN-{i}")
            manys.append(many)
            many_phases = many_phases if many_phases is not None else phases
            floors.append(_report(None, tmp / f"floor-{i}", notebooks_dir=floor_nbs)[0])
            library_floors.append(_report(None, tmp / f"library-floor-{i}", notebooks_dir=library_nbs)[0])
            # the same two with a new kernel for every notebook, as the report ran before issue 29
            fresh_ones.append(_report(None, tmp / f"r1-fresh-{i}", reuse_kernels=False)[0])
            fresh_floors.append(_report(None, tmp / f"floor-fresh-{i}", notebooks_dir=floor_nbs,
                                        reuse_kernels=False)[0])
            plains.append(_plain_papermill(floor_nbs, tmp / f"plain-{i}"))
            commands.append(_plain_papermill_commands(floor_nbs, tmp / f"commands-{i}"))
        one, many = statistics.median(ones), statistics.median(manys)
        floor, library_floor = statistics.median(floors), statistics.median(library_floors)
        fresh_one, fresh_floor = statistics.median(fresh_ones), statistics.median(fresh_floors)
        plain, command = statistics.median(plains), statistics.median(commands)
        cores = os.cpu_count() or 1
        busy = {what: (statistics.median(CPU[f"{prefix}-{i}"] for i in range(args.repeat)),
                       statistics.median(CPU[f"{prefix}-{i}"] / (t * cores) for i, t in enumerate(times)))
                for what, prefix, times in (("report at 1x", "r1", ones), (f"report at {args.scale}x", "rN", manys),
                                            ("floor", "floor", floors))}
    pd.set_option("display.width", 200)
    for label, phases in (("1x", one_phases), (f"{args.scale}x", many_phases)):
        print(f"\nper notebook and phase, report at {label} (seconds):")
        print(phases.round(2).to_string(index=False))
        print("sum:", phases.drop(columns="notebook").sum().round(1).to_dict())
    print("\nlibraries each notebook loads on first use (the floor's notebooks load none of them):")
    for name, libraries in used.items():
        print(f"  {name:<30} {', '.join(libraries) or '-'}")
    if args.repeat > 1:
        def runs_of(times: list[float]) -> str:
            return ", ".join(f"{t:.1f}" for t in times)

        print(f"\nruns (medians below): 1x {runs_of(ones)} s; {args.scale}x {runs_of(manys)} s; floor {runs_of(floors)} s;"
              f" floor with the report's libraries {runs_of(library_floors)} s; new kernels: 1x {runs_of(fresh_ones)} s,"
              f" floor {runs_of(fresh_floors)} s; plain papermill: commands {runs_of(commands)} s,"
              f" warm processes {runs_of(plains)} s")
    print(f"\nreport at 1x:              {one:6.1f} s wall ({n_notebooks} notebooks, two at a time)")
    print(f"report at {args.scale}x:{'':{max(0, 12 - len(str(args.scale)))}}{many:6.1f} s wall"
          f"   {args.scale}x / 1x = {many / one:.2f}   (guard <= 4, issue 59: {'PASS' if many / one <= 4 else 'FAIL'})")
    print(f"floor ({n_notebooks} one-cell notebooks): {floor:6.1f} s wall"
          f"   1x / floor = {one / floor:.2f}   (recorded, not a gate: issue 59)")
    print(f"floor with the report's libraries: {library_floor:6.1f} s wall   1x / it = {one / library_floor:.2f}"
          f"   (each one-cell notebook also imports ambiglib, loads the log and imports what its notebook loads)")
    for what, (cpu, share) in busy.items():
        print(f"{what}: {cpu:6.1f} CPU-seconds (this process and its workers and kernels), {share:.0%} of its wall"
              f" x {cores} cores: {'CPU-bound: only less work makes it faster' if share >= 0.8 else 'partly waiting'}")
    print("(above: each worker keeps its kernel for its next notebook; below: a new kernel for every notebook)")
    print(f"report at 1x, new kernels: {fresh_one:6.1f} s wall   / floor with new kernels ({fresh_floor:.1f} s) ="
          f" {fresh_one / fresh_floor:.2f}   kept-kernel report / this floor = {one / fresh_floor:.2f}")
    print(f"plain papermill ({n_notebooks} one-cell notebooks, the papermill and jupyter nbconvert commands, two at a"
          f" time): {command:6.1f} s wall   1x / it = {one / command:.2f}"
          f"   (guard <= 1, issue 59: {'PASS' if one <= command else 'FAIL'})")
    print(f"plain papermill in two warm processes (its Python API, imports paid once): {plain:6.1f} s wall"
          f"   1x / it = {one / plain:.2f}   (recorded, stricter than the guard)")


if __name__ == "__main__":
    main()
