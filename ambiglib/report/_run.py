"""``ambiglib report``: load the log once, run every notebook two at a time, and put the finished report in place."""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from ambiglib.errors import ReportError
from ambiglib.loading._load import load
from ambiglib.report._bundled import bundled_notebooks, example_runs
from ambiglib.report._folder import ReportFolder
from ambiglib.report._index import _collect, _write_index, write_summary
from ambiglib.report._parameters import SNAPSHOT_PARAMETER, check_parameters, notebook_parameters, read_params_file
from ambiglib.report._runner import (
    NOTEBOOK_TIMEOUT,
    NotebookResult,
    longest_first,
    recorded_seconds,
    run_notebook,
    shares_kernel,
    threads_per_kernel,
    warm,
    worker_started,
)

__all__ = ["bundled_notebooks", "example_runs", "run_report"]


#: The report's snapshot of the log (in its work folder; kept in ``--out`` only with ``keep_snapshot``).
SNAPSHOT_DIR = "snapshot"


def run_report(runs: str | os.PathLike[str] | Mapping[str, str | os.PathLike[str]] | None = None, out: str | os.PathLike[str] = "reports", *,
               params_file: str | os.PathLike[str] | None = None, notebooks: Sequence[str] | None = None,
               notebooks_dir: str | os.PathLike[str] | None = None, jobs: int = 2,
               parameters: Mapping[str, Any] | None = None,
               progress: Callable[[int, int, NotebookResult], None] | None = None,
               keep_snapshot: bool = False, reuse_kernels: bool = True,
               notebook_timeout: float = NOTEBOOK_TIMEOUT, all_sections: bool = False) -> Path:
    """Run every notebook with papermill and write the report folder.

    The log is loaded and checked once; every notebook reads a memory-mapped snapshot of
    it (``<out>/snapshot/``, Arrow IPC), which is removed at the end unless ``keep_snapshot``.

    Parameters
    ----------
    runs : path-like or mapping, optional
        The run log every notebook analyses (its ``runs`` parameter); by default the
        ``runs`` of the parameters file, else the bundled example data. A mapping of labels to paths
        is several logs of one agent loaded together (``ambiglib.load({"before": ..., "after": ...})``):
        their runs carry their ``log``, and the notebooks answer each log's agents apart.
    out : path-like, default "reports"
    params_file : path-like, optional
        YAML: top-level keys are parameters for every notebook that has them (one of them
        must); ``notebooks: {name: {...}}`` for one notebook. An unknown parameter or
        notebook is an error before anything runs; so is a ``runs`` that disagrees with
        ``runs=``.
    notebooks : sequence of str, optional
        Notebook names (stems) to run, whether or not they apply to the log; default every notebook in
        ``notebooks_dir`` that applies to it (:mod:`ambiglib.report._applicable`: the four questions and the log's
        sections always, a paper's where the log holds its benchmark or the data one of its tables needs; the rest
        are listed on the index, not run).
    notebooks_dir : path-like, optional
        A folder of your own notebooks (e.g. edited copies); default the ones shipped with ambiglib.
    jobs : int, default 2
        Notebooks run at once.
    parameters : mapping, optional
        More parameters for every notebook, as from the top level of a parameters file.
    progress : callable, optional
        Called as ``progress(done, total, result)`` as each notebook finishes.
    reuse_kernels : bool, default True
        Each worker keeps its kernel for its next notebook of the bundled set (byte for byte), reset to what a
        new kernel holds (namespace, matplotlib and pandas settings, NumPy's error and print state, ambiglib's
        module attributes, warnings, environment, random seeds: :mod:`ambiglib.report._isolation`), so that
        kernels start and libraries are imported once per worker, not once per notebook; any other notebook
        runs in a new kernel of its own, seeded alike. False starts a new kernel for every notebook.
    notebook_timeout : float, default 1800
        Seconds one notebook may run; one that runs longer is stopped (its kernel interrupted) and fails
        with a message naming the limit, and the rest of the report is written.
    all_sections : bool, default False
        Run every notebook, also a paper's whose tables have nothing in this log (each then says what is missing).
    keep_snapshot : bool, default False
        Keep the snapshot in ``<out>/snapshot/``: ``ambiglib.load`` opens it in milliseconds,
        with the rejected records of the original load.

    Returns
    -------
    pathlib.Path
        ``<out>/index.html``.

    Raises
    ------
    ReportError
        Bad parameters (before anything runs); after writing everything it could, a failed
        notebook (named, with its cell).
    """
    began = time.perf_counter()  # the index says how long the whole report took, the load included
    if isinstance(notebook_timeout, bool) or not isinstance(notebook_timeout, (int, float)) or not notebook_timeout > 0:
        raise ReportError(f"notebook_timeout must be a number of seconds above 0 (got {notebook_timeout!r})")
    nb_dir = Path(notebooks_dir) if notebooks_dir else bundled_notebooks()
    info = {p.stem: notebook_info(p) for p in nb_dir.glob("*.ipynb")}
    # by part (the researcher's questions, each paper's tables, the log), then each notebook's place in it
    paths = sorted(nb_dir.glob("*.ipynb"), key=lambda p: (_PART_ORDER.index(info[p.stem]["part"]),
                                                          info[p.stem]["order"], p.stem))
    if not paths:
        raise ReportError(f"{nb_dir}: no notebooks (*.ipynb) to run")
    if notebooks:
        wanted = set(notebooks)
        unknown = wanted - {p.stem for p in paths}
        if unknown:
            raise ReportError(f"no such notebook(s) {sorted(unknown)} in {nb_dir} (have {[p.stem for p in paths]})")
        paths = [p for p in paths if p.stem in wanted]
    declared = {p.stem: notebook_parameters(p) for p in sorted(nb_dir.glob("*.ipynb"))}
    common, per_notebook = read_params_file(params_file) if params_file else ({}, {})
    common.update(parameters or {})
    check_parameters(params_file, common, per_notebook, declared, [p.stem for p in paths])
    from_file = common.pop("runs", None)
    if isinstance(runs, Mapping):  # several logs of one agent, by label (ambiglib.load({label: path}))
        if from_file is not None:
            raise ReportError(f"{params_file}: runs: {from_file!r} and --runs of {len(runs)} logs: give the run logs once")
        from ambiglib.loading._labels import check_label

        logs = {check_label(label, "--runs"): Path(path).resolve() for label, path in runs.items()}
        for label, path in logs.items():
            if not path.exists():
                raise ReportError(f"--runs {label}={path}: no such file or folder")
        runs, given = logs, {f"--runs {label}": path for label, path in logs.items()}
    else:
        if from_file is not None and runs is not None and Path(from_file).resolve() != Path(runs).resolve():
            raise ReportError(f"{params_file}: runs: {from_file!r} disagrees with --runs {str(runs)!r}; give the run"
                              " log once")
        runs = runs if runs is not None else from_file if from_file is not None else example_runs()
        if runs is None:
            raise ReportError("no run log: pass --runs (no example data is bundled with this installation)")
        runs = Path(runs).resolve()
        if not runs.exists():
            raise ReportError(f"--runs {runs}: no such file or folder")
        given = {"--runs": runs}
    out = Path(out).resolve()
    inputs = {**given, **({"--params": Path(params_file)} if params_file else {}),
              **({"--notebooks-dir": nb_dir} if notebooks_dir else {}), **_paths_among(common, per_notebook)}
    try:
        with ReportFolder(out, inputs) as folder:
            assert folder.work is not None
            manifest, failed = _build_report(folder.work, runs, paths, declared, common, per_notebook, jobs,
                                             progress, nb_dir, out, keep_snapshot, reuse_kernels, params_file, info,
                                             notebook_timeout, began=began, every=all_sections or bool(notebooks))
            folder.commit(manifest)
    except OSError as exc:  # a read-only or full --out, a folder that vanished
        raise ReportError(f"{exc.filename or out}: cannot be written ({exc.strerror or exc})") from exc
    if folder.left_behind:
        import warnings

        warnings.warn(f"--out {out}: an older report's folder beside it kept what was not the report's own:"
                      f" {', '.join(folder.left_behind[:5])}", stacklevel=2)
    if failed:
        raise ReportError("; ".join(r.error or "" for r in failed) + f" (the rest of the report is in {out})")
    return out / "index.html"


def runs_named(runs: Path | Mapping[str, Path]) -> str:
    """The run log as a page names it: its path, or each log's ``label=path`` (logs loaded together)."""
    if isinstance(runs, Mapping):
        return ", ".join(f"{label}={Path(path).absolute()}" for label, path in runs.items())
    return str(Path(runs).absolute())


#: the report's parts in order (a notebook's ``metadata["ambiglib"]["part"]``; "other" for one without)
_PART_ORDER = ["questions", "ambig-ds", "hil-bench", "lhaw", "log", "other"]


def notebook_info(path: Path) -> dict:
    """A notebook's part of the report and place in it (its ``metadata["ambiglib"]``), its title (the first
    markdown heading; else its name) and description (the rest of that cell, as plain text)."""
    import json
    import re

    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        nb = {}
    meta = (nb.get("metadata") or {}).get("ambiglib") or {}
    part = meta.get("part") if meta.get("part") in _PART_ORDER else "other"
    first = next((c for c in nb.get("cells") or [] if c.get("cell_type") == "markdown"), None)
    text = "".join(first.get("source") or "") if first else ""
    heading = re.match(r"\s*#\s+(.+)", text)
    title = heading.group(1).strip() if heading else path.stem
    description = re.sub(r"[`*]", "", text[heading.end():] if heading else text).strip()
    order = meta.get("order")
    return {"part": part, "order": order if isinstance(order, int) else 0, "title": title,
            "description": " ".join(description.split()),
            **{key: meta[key] for key in ("needs", "general", "about") if isinstance(meta.get(key), (list, dict))}}


#: the notebook parameters that select runs, and the runs column each names
SELECTORS = {"benchmarks": "benchmark", "models": "model", "suites": "suite"}


def _check_selection(rs: Any, common: dict, per_notebook: dict, params_file: Any) -> None:
    """Refuse, before any notebook runs, a ``benchmarks``, ``models`` or ``suites`` value the log does not have:
    a name one letter off would otherwise empty every table, and the notes would blame the log."""
    from ambiglib.runlog._filters import not_in_log

    where = f"{params_file}: " if params_file else ""
    for scope, params in [("", common), *((f"notebooks: {n}: ", p) for n, p in per_notebook.items())]:
        for key, column in SELECTORS.items():
            wanted = params.get(key)
            if not wanted:
                continue
            absent = not_in_log(wanted, sorted(set(rs.runs[column].astype(str))), column)
            if absent:
                raise ReportError(f"{where}{scope}{key}: {absent}")


def _paths_among(common: dict, per_notebook: dict) -> dict[str, Path]:
    """Parameters whose text names an existing file or folder (e.g. ``selector_audit``): inputs too."""
    found = {}
    for where, params in [("", common), *((f"notebooks: {n}: ", p) for n, p in per_notebook.items())]:
        for key, value in params.items():
            if isinstance(value, str) and value and os.path.exists(value):
                found[f"parameter {where}{key}"] = Path(value)
    return found


def _applying(paths: list[Path], rs: Any, info: dict[str, dict], common: dict, per_notebook: dict, every: bool
              ) -> tuple[list[Path], list[dict], dict]:
    """The notebooks that run on this log (all of them when ``every``), those that do not (``{"name", "title",
    "part", "needs"}``), and what the index needs to say of the log's shape: ``papers`` (the papers whose benchmark
    it holds) and ``benchmarks`` (every benchmark it holds, as written)."""
    from ambiglib.report._applicable import applicability, papers_in

    chosen = {column: common[key] for key, column in SELECTORS.items() if common.get(key)}
    selected = rs.filter(**chosen) if chosen else rs
    papers = papers_in(selected, common.get("conventions"))
    benchmarks = sorted({str(b) for b in selected.runs["benchmark"].dropna().unique()}) if len(selected.runs) else []
    running, not_run = [], []
    for path in paths:
        meta = info.get(path.stem) or {}
        decided = applicability(meta, selected, papers, {**common, **per_notebook.get(path.stem, {})})
        if every or decided.runs:
            running.append(path)
        else:
            not_run.append({"name": path.stem, "title": meta.get("title", path.stem), "part": meta.get("part"),
                            "needs": decided.needs})
    return running, not_run, {"papers": sorted(papers), "benchmarks": benchmarks}


def _build_report(out: Path, runs: Path | Mapping[str, Path], paths: list[Path], declared: dict, common: dict,
                  per_notebook: dict, jobs: int, progress: Callable | None, nb_dir: Path, final: Path,
                  keep_snapshot: bool, reuse_kernels: bool = True, params_file: Any = None,
                  info: dict[str, dict] | None = None, notebook_timeout: float = NOTEBOOK_TIMEOUT,
                  *, began: float, every: bool = False) -> tuple[dict, list[NotebookResult]]:
    """Run the notebooks into ``out`` (the report's private work folder) and write its index; return
    the manifest (which :meth:`ReportFolder.commit` writes) and the failed notebooks. Messages name the
    files where they will be, in ``final``.

    The log is loaded and checked once, here: the summary says what it held and rejected, and
    every notebook gets a snapshot of it (Arrow IPC, memory-mapped: ``write_snapshot``) as its
    ``runs``, with the same rejected records, instead of loading and checking the log again. Only the notebooks
    that apply to the log run, unless ``every`` (:mod:`ambiglib.report._applicable`)."""
    from ambiglib.runlog._snapshot import write_snapshot

    # one process per running notebook: papermill's working-directory switch cannot race. The
    # workers start, import papermill and nbconvert and start their kernels while this process loads the log;
    # each puts its process id on ``pids`` (to be terminated by), and ends as it starts once ``stopping`` is set
    context = multiprocessing.get_context("spawn")
    pids, stopping = context.SimpleQueue(), context.Event()
    pool = ProcessPoolExecutor(max(1, jobs), mp_context=context, initializer=worker_started,
                               initargs=(os.getpid(), pids, stopping, threads_per_kernel(jobs)))
    results: dict[str, NotebookResult] = {}
    try:
        for _ in range(max(1, jobs)):
            # a kernel kept only when a notebook will share it (runner.shares_kernel)
            pool.submit(warm, os.getcwd() if reuse_kernels and any(map(shares_kernel, paths)) else None)
        # the Inspect AI mapping the notebooks are given (ask_tools, scorer) is the load's
        mapping = {k: common[k] for k in ("ask_tools", "scorer") if common.get(k)}
        loaded = load(runs, strict=False, quiet=True, **mapping)
        _check_selection(loaded[0], common, per_notebook, params_file)
        paths, not_run, shape = _applying(paths, loaded[0], info or {}, common, per_notebook, every)
        named = runs_named(runs)  # the log, or the logs by label, as the pages name them
        write_summary(named, out, quiet=True, loaded=loaded, **mapping)
        snapshot = write_snapshot(*loaded, named, out / SNAPSHOT_DIR,
                                  roots=list(runs.values()) if isinstance(runs, Mapping) else [runs])
        del loaded
        jobs_args = []
        for path in paths:
            mine = declared[path.stem]
            params = {k: v for k, v in common.items() if k in mine}
            params.update(per_notebook.get(path.stem, {}))
            params.update(out_dir=str(out / "artifacts" / path.stem))
            # a notebook with a ``snapshot`` parameter reads the snapshot and shows the log it came from
            # as ``runs``; another (a user's own) gets the snapshot as its ``runs``
            params.update({"runs": named, SNAPSHOT_PARAMETER: str(snapshot)}
                          if SNAPSHOT_PARAMETER in mine else {"runs": str(snapshot)})
            # what its pages show: paths as they are once the report is in place (never its work folder)
            shown = {**params, "out_dir": f"tables/{path.stem}"}
            kept = str(final / SNAPSHOT_DIR) if keep_snapshot else ""
            if SNAPSHOT_PARAMETER in mine:
                shown[SNAPSHOT_PARAMETER] = kept
            else:
                shown["runs"] = kept or named
            jobs_args.append((path, out, params, os.getcwd(), shown, reuse_kernels, notebook_timeout))
        # the longest first, by the seconds each took in the report this one replaces (an even start without one)
        futures = [pool.submit(run_notebook, *a) for a in longest_first(jobs_args, recorded_seconds(final))]
        for future in as_completed(futures):
            result = future.result()
            results[result.name] = result
            if progress is not None:
                progress(len(results), len(paths), result)
    except BaseException:  # bad input, Ctrl-C, SIGTERM, a crash: stop every worker (and its kernel) now
        stopping.set()  # a worker not started yet ends as it starts
        workers = set()
        while not pids.empty():
            workers.add(pids.get())
        for proc in multiprocessing.active_children():  # (children only: a pid reused since is no worker's)
            if proc.pid in workers:
                proc.terminate()
        pool.shutdown(wait=True, cancel_futures=True)
        pids.close()
        raise
    pool.shutdown(wait=True)
    pids.close()
    ordered = [results[p.stem] for p in paths]
    for r in ordered:
        if r.error:
            r.error = r.error.replace(str(out), str(final))
    wall = time.perf_counter() - began  # (began: when run_report was called)
    _collect(out, ordered)
    if not keep_snapshot:
        import shutil

        shutil.rmtree(out / SNAPSHOT_DIR)
    manifest = _write_index(out, ordered, named, wall, nb_dir, info, not_run, shape)  # type: ignore[arg-type]
    return manifest, [r for r in ordered if r.error]
