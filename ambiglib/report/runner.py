"""Running one notebook of the report: a worker process, its kernel, papermill, and the notebook's HTML.

The report (:mod:`ambiglib.report`) runs each notebook in a worker process of its own (papermill
changes the process's working directory), started with :func:`worker_started` and warmed with
:func:`warm`; :func:`run_notebook` injects the parameters (:mod:`ambiglib.report.parameters`), executes the
notebook in a kernel of :func:`kernel_manager`'s class and writes its ``.ipynb`` and ``.html``.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import ReportError
from ..text import visible
from .parameters import inject_parameters

__all__ = ["NOTEBOOK_TIMEOUT", "NotebookResult", "run_notebook", "longest_first", "warm", "worker_started", "kernel_manager",
           "decline_unused_imports", "shares_kernel"]


@dataclass
class NotebookResult:
    name: str
    seconds: float
    kernel_start_seconds: float | None = None
    error: str | None = None
    #: kernel starts retried: a kernel that never answered (e.g. two kernels launched at once racing for
    #: the same TCP port) is started again once; no cell has run then
    kernel_restarts: int = 0
    tables: list[str] = field(default_factory=list)
    figures: list[str] = field(default_factory=list)
    #: what the notebook did not show, and why: ``{"name", "caption", "note", "kind"}``
    notes: list[dict] = field(default_factory=list)
    #: its tables and figures in the order it saved them: ``("table" or "figure", name)``
    order: list[tuple[str, str]] = field(default_factory=list)


#: The kernels this worker has running (their managers): what :func:`_stop_now` kills on the way out.
_RUNNING: set[Any] = set()
#: what the last kernel shut down wrote outside its cells (``last_words``), kept once its folder is gone
_LAST_WORDS: list[str] = [""]


def _prctl() -> Any:
    """libc's ``prctl``, or None where there is none (not Linux)."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def _die_with_parent(signum: int, prctl: Any = None) -> None:
    """Ask the system to send this process ``signum`` when the thread that started it ends (Linux
    ``PR_SET_PDEATHSIG``; nothing elsewhere). Between fork and exec, pass ``prctl`` found before the
    fork: the child then makes one system call and imports nothing (an import could wait forever on a
    lock another thread of the parent held when it forked)."""
    prctl = prctl if prctl is not None else _prctl()
    if prctl is not None:
        prctl(1, signum)  # PR_SET_PDEATHSIG


def kernel_manager():
    """The kernel manager of the report's kernels.

    * IPC transport: each kernel talks over Unix sockets in a private temporary folder (with its
      connection file), so two kernels started at once cannot race for one TCP port, ipykernel (≥ 7)
      has no reason to warn that the kernel "is running over TCP without encryption", and one folder
      removed cleans up after it.
    * No interrupt on shutdown: jupyter_client sends SIGINT before every shutdown, in case the
      kernel is busy; ours are idle (every cell has run), and the signal only made ipykernel log
      "KeyboardInterrupt caught in kernel".
    * The kernel dies with its worker: it is started with ``PR_SET_PDEATHSIG`` = SIGKILL, so however
      the worker ends (killed outright included), its kernel ends with it.
    * What the kernel writes outside a cell (its own log, a traceback before it could start, a C
      library's message) goes to ``kernel.log`` in its folder, not to the report's terminal, where a
      kernel started as the report was stopped wrote its start-up warnings after the report's last line.
      ``last_words`` reads it back for the error of a kernel that died.
    * A notebook's client (nbclient makes one per notebook) is ready as soon as the kernel has answered it and
      its output channel is connected: what has arrived on that channel is let go, without then listening
      0.2 s for more, as jupyter_client's ``wait_for_ready`` does (0.2 s a notebook, the kernel idle). Output
      that arrives later belongs to no cell of the notebook, and nbclient takes only its cells' own.
    """
    import signal
    import tempfile
    import time as clock
    from queue import Empty

    from jupyter_client.asynchronous import AsyncKernelClient
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import default

    class ReportKernelClient(AsyncKernelClient):
        async def wait_for_ready(self, timeout: float | None = None) -> None:
            # jupyter_client's steps, but its last: ask kernel_info until the kernel replies and a message
            # comes on IOPub (else it is not connected yet: ask again); then let go what has come there
            deadline = clock.monotonic() + (float("inf") if timeout is None else timeout)
            while True:
                self.kernel_info()
                try:
                    reply = await self.shell_channel.get_msg(timeout=1)
                except Empty:
                    reply = None
                if reply is not None and reply["msg_type"] == "kernel_info_reply":
                    try:
                        await self.iopub_channel.get_msg(timeout=0.2)
                    except Empty:
                        pass
                    else:
                        self._handle_kernel_info_reply(reply)
                        break
                if not await self.is_alive():
                    raise RuntimeError("Kernel died before replying to kernel_info")
                if clock.monotonic() > deadline:
                    raise RuntimeError(f"Kernel didn't respond in {timeout:g} seconds")
            while True:
                try:
                    await self.iopub_channel.get_msg(timeout=0)
                except Empty:
                    return

    class ReportKernelManager(AsyncKernelManager):
        @default("client_factory")
        def _report_client(self) -> type:
            return ReportKernelClient

        def __init__(self, **kwargs: Any) -> None:
            self._ipc_dir = tempfile.mkdtemp(prefix="ambiglib-kernel-")
            kwargs.setdefault("transport", "ipc")
            kwargs.setdefault("ip", os.path.join(self._ipc_dir, "kernel"))
            kwargs.setdefault("connection_file", os.path.join(self._ipc_dir, "kernel.json"))
            super().__init__(**kwargs)
            _RUNNING.add(self)

        async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
            prctl = _prctl()
            if prctl is not None:
                kw["preexec_fn"] = lambda: _die_with_parent(signal.SIGKILL, prctl)
            with open(os.path.join(self._ipc_dir, "kernel.log"), "ab") as log:  # the kernel holds its own copy
                kw.update(stdout=log, stderr=log)
                await super()._async_launch_kernel(kernel_cmd, **kw)

        def last_words(self, lines: int = 12) -> str:
            """The last ``lines`` lines the kernel wrote outside its cells ("" when it wrote none)."""
            try:
                with open(os.path.join(self._ipc_dir, "kernel.log"), "rb") as log:
                    log.seek(0, os.SEEK_END)
                    log.seek(max(0, log.tell() - 64 * 1024))
                    text = log.read().decode("utf-8", errors="replace")
            except OSError:  # its folder removed
                return ""
            return "\n".join(text.strip().splitlines()[-lines:])

        async def _async_interrupt_kernel(self) -> None:
            if self.shutting_down:  # set by shutdown_kernel before it interrupts
                return
            await super()._async_interrupt_kernel()

        async def _async_cleanup_resources(self, restart: bool = False) -> None:
            await super()._async_cleanup_resources(restart=restart)
            if not restart:
                import shutil

                if os.path.isdir(self._ipc_dir):  # not yet removed (nbclient cleans up after a shutdown too)
                    _LAST_WORDS[0] = self.last_words()
                shutil.rmtree(self._ipc_dir, ignore_errors=True)
                _RUNNING.discard(self)

        async def cleanup_resources(self, restart: bool = False) -> None:
            # AsyncKernelManager binds its public name to the base class's function, not to the override
            # above: nbclient, cleaning up after a kernel that died, left the kernel's folder behind
            await self._async_cleanup_resources(restart=restart)

    return ReportKernelManager


#: this worker's kernel, kept for its next notebook (``reuse``): its manager and working folder
_KERNEL: dict[str, Any] = {}


def _in_kernel(km: Any, code: str, *, started: bool = True) -> None:
    """Run ``code`` in the kernel, outside any notebook (nothing is recorded); its error is raised here.

    ``started`` False: the kernel was just started; wait until it answers, its output channel connected. Else it
    has answered before: the request goes on the shell channel alone and only its reply is awaited (the
    notebook's own client then waits until the kernel answers it). Waiting for ready here would end by listening
    0.2 s on IOPub for output that does not come (jupyter_client's ``wait_for_ready`` flushes IOPub so)."""
    import queue

    from jupyter_core.utils import run_sync

    kc = km.blocking_client()
    if not started:
        kc.start_channels()
    else:
        kc.start_channels(shell=True, iopub=False, stdin=False, hb=False, control=False)
    try:
        if not started:
            kc.wait_for_ready(timeout=120)
            reply = kc.execute_interactive(code, store_history=False, timeout=300, output_hook=lambda msg: None)
        else:
            msg_id = kc.execute(code, store_history=False, allow_stdin=False)
            deadline = time.monotonic() + 300
            while True:
                try:
                    reply = kc.get_shell_msg(timeout=1)
                except queue.Empty:
                    if not run_sync(km.is_alive)():
                        raise RuntimeError("Kernel died before replying to the report's reset") from None
                    if time.monotonic() > deadline:
                        raise RuntimeError("Kernel didn't respond to the report's reset in 300 seconds") from None
                    continue
                if reply["parent_header"].get("msg_id") == msg_id:
                    break
        content = reply["content"]
        if content.get("status") != "ok":
            raise RuntimeError(f"the report's kernel could not be prepared: {content.get('ename')}:"
                               f" {content.get('evalue')}")
    finally:
        kc.stop_channels()


def _drop_kernel() -> None:
    """Shut this worker's kept kernel down (it also dies with the worker: PR_SET_PDEATHSIG)."""
    _KERNEL.pop("restored", None)
    km = _KERNEL.pop("km", None)
    if km is not None:
        _stop_kernel(km)


def _stop_kernel(km: Any) -> None:
    """Shut the kernel of ``km`` down and remove its folder."""
    import shutil

    from jupyter_core.utils import run_sync

    try:
        run_sync(km.shutdown_kernel)(now=True)
    except Exception:  # noqa: BLE001 — already dead: its folder is removed below either way
        pass
    shutil.rmtree(km._ipc_dir, ignore_errors=True)
    _RUNNING.discard(km)


def _own_kernel(cwd: str) -> Any:
    """A new kernel for one notebook that shares none (:func:`shares_kernel`), Python's and NumPy's global random
    generators seeded as in a kept kernel (:func:`ambiglib.report.isolation.seed`), nothing else imported in it
    (ambiglib.report would import pandas: ~1 s)."""
    from jupyter_core.utils import run_sync

    from .isolation import SEED

    km = kernel_manager()(kernel_name="python3")
    try:
        run_sync(km.start_kernel)(cwd=cwd)
        _in_kernel(km, f"__import__('random').seed({SEED}); __import__('numpy').random.seed({SEED})", started=False)
    except BaseException:
        _stop_kernel(km)
        raise
    return km


def _reused_kernel(cwd: str) -> Any:
    """This worker's kernel, started and prepared on first use (or again, if it died or ``cwd`` changed), with
    the namespace and state a new kernel has (:func:`ambiglib.report.isolation.restore`)."""
    import multiprocessing.util

    from jupyter_core.utils import run_sync

    km = _KERNEL.get("km")
    if km is not None and (_KERNEL.get("cwd") != cwd or not run_sync(km.is_alive)()):
        _drop_kernel()
        km = None
    if km is not None and _KERNEL.pop("restored", False):  # prepared and reset by warm(); nothing ran since
        return km
    if km is None:
        km = kernel_manager()(kernel_name="python3")
        run_sync(km.start_kernel)(cwd=cwd)
        _KERNEL.update(km=km, cwd=cwd)
        if not _KERNEL.get("finalizer"):
            _KERNEL["finalizer"] = multiprocessing.util.Finalize(None, _drop_kernel, exitpriority=10)
        prepare = "__import__('ambiglib.report.isolation', fromlist=['prepare']).prepare()\n"
    else:
        prepare = ""
    # one round trip: a new kernel is prepared and reset in the same request
    _in_kernel(km, prepare + "__import__('ambiglib.report.isolation', fromlist=['restore']).restore()",
               started=not prepare)
    return km


def shares_kernel(notebook: Path) -> bool:
    """Whether ``notebook`` may run in a kernel other notebooks ran in, reset between them (:mod:`.isolation`): a
    notebook of the bundled set, byte for byte, whose code changes nothing the reset cannot put back. Any other (a
    user's ``--notebooks-dir``) may change anything, e.g. a library's module attribute or a module-level dict in
    place, and runs in a kernel no other notebook ran in."""
    from .bundled import bundled_notebooks

    try:
        bundled = bundled_notebooks() / notebook.name
        return bundled.is_file() and bundled.read_bytes() == notebook.read_bytes()
    except (ReportError, OSError):  # none bundled, or one unreadable: its own kernel
        return False


#: seconds one notebook may run by default (``--notebook-timeout``): the slowest bundled notebook takes about a
#: minute on a log 1,000 times the example's (docs/performance.md)
NOTEBOOK_TIMEOUT = 1800.0


def run_notebook(notebook: Path, out: Path, parameters: dict[str, Any], cwd: str,
                 shown: dict[str, Any] | None = None, reuse: bool = True,
                 timeout: float = NOTEBOOK_TIMEOUT) -> NotebookResult:
    """Run one notebook with ``parameters`` into ``out`` (the report's work folder); its pages show ``shown``
    instead (the same parameters with the paths they have once the report is in place: its work folder is
    renamed, its snapshot removed). With ``reuse``, in this worker's kernel, kept from its last notebook and
    reset to what a new kernel holds (:mod:`ambiglib.report.isolation`), if it is one of the bundled set
    (:func:`shares_kernel`); another in a new kernel of its own, its random generators seeded as in the kept one.
    Without ``reuse``, in a new kernel."""
    import nbformat
    import papermill

    name = notebook.stem
    started = time.perf_counter()
    result = NotebookResult(name, 0.0)
    executed = out / f"{name}.ipynb"
    manager = kernel_manager()
    # the parameters cell is ours, not papermill's translator's: each value a literal, proven so
    # (ambiglib.report.parameters); papermill then runs the notebook as written, with no parameters of its own
    nbformat.write(inject_parameters(nbformat.read(str(notebook), as_version=4), parameters), str(executed))
    as_given = str(executed).replace("{", "{{").replace("}", "}}")  # papermill str.format()s its paths
    deadline = time.monotonic() + timeout

    def time_left(cell: Any) -> int:  # nbclient's per-cell wait: what is left of the notebook's time
        return max(1, int(deadline - time.monotonic() + 0.999))

    shared = reuse and shares_kernel(notebook)
    own = None  # the kernel of a notebook that shares none
    for attempt in (1, 2):
        try:
            if shared:
                kernel = {"km": _reused_kernel(cwd)}
            elif reuse:
                own = _own_kernel(cwd)
                kernel = {"km": own}
            else:
                kernel = {"kernel_manager_class": manager}
            # papermill's cwd= changes the whole process's directory: safe here, where each notebook has a
            # process of its own (run_report); a relative path in a parameter (e.g. selector_audit) resolves
            # against the folder the report was started in, as --runs does (a kept kernel was started there)
            papermill.execute_notebook(as_given, as_given, parameters=None,
                                       cwd=cwd, kernel_name="python3", progress_bar=False,
                                       log_output=False, timeout_func=time_left, interrupt_on_timeout=True,
                                       **kernel)
        except Exception as exc:  # noqa: BLE001 — a cell's error, a kernel that died, the time limit
            if time.monotonic() >= deadline:  # stopped by its time limit (the kernel interrupted): not kept
                if shared:
                    _drop_kernel()
                result.error = (f"{notebook} stopped after its time limit of {timeout:g} s (raise it with report"
                                f" --notebook-timeout SECONDS, or run_report(notebook_timeout=)); see {executed}")
                break
            if isinstance(exc, papermill.PapermillExecutionError):
                first_line = next((ln for ln in str(exc.source).splitlines() if ln.strip()), "")
                result.error = (f"{notebook} failed in cell {exc.cell_index + 1} of {executed} (execution count"
                                f" {exc.exec_count}, `{first_line.strip()[:80]}`): {exc.ename}: {exc.evalue}")
                break
            if attempt == 1 and "Kernel didn't respond" in str(exc):  # kernel died, bad parameters, ...
                result.kernel_restarts += 1
                if shared:
                    _drop_kernel()
                elif own is not None:
                    _stop_kernel(own)
                    own = None
                continue
            result.error = f"{notebook} failed: {type(exc).__name__}: {exc}"
            km = _KERNEL.get("km") if shared else own
            words = (km.last_words() if km is not None else "") or _LAST_WORDS[0]
            if words:
                result.error += f"; what its kernel wrote last, outside its cells:\n{visible(words)}"
        break
    if own is not None:  # no other notebook runs in it
        _stop_kernel(own)
    result.seconds = time.perf_counter() - started
    if executed.is_file():
        nb = nbformat.read(executed, as_version=4)
        if shown is not None:
            _show_parameters(nb, shown)
            # papermill's record of the run, likewise: the notebook run, and this file, in the report
            meta = nb.metadata.setdefault("papermill", {})
            meta.update(parameters=dict(shown), input_path=str(notebook), output_path=executed.name)
            nbformat.write(nb, str(executed))
        meta = nb.metadata.get("papermill", {})
        cells = [c for c in nb.cells if c.cell_type == "code"]
        if cells and meta.get("start_time") and cells[0].metadata.get("papermill", {}).get("start_time"):
            first = pd.Timestamp(cells[0].metadata["papermill"]["start_time"])
            result.kernel_start_seconds = (first - pd.Timestamp(meta["start_time"])).total_seconds()
        body, _ = _html_exporter().from_notebook_node(nb)
        # what the notebook showed of the log, its control and bidi characters made visible (text.visible)
        (out / f"{name}.html").write_text(visible(body), encoding="utf-8")
    artifacts = Path(parameters["out_dir"])

    def in_order(pattern: str) -> list[str]:  # the order the notebook saved them in
        return [p.stem for p in sorted(artifacts.glob(pattern), key=lambda p: p.stat().st_mtime_ns)]

    result.tables = in_order("*.csv")
    result.figures = in_order("*.png")
    saved = [(p.stat().st_mtime_ns, "table" if p.suffix == ".csv" else "figure", p.stem)
             for pattern in ("*.csv", "*.png") for p in artifacts.glob(pattern)]
    result.order = [(kind, stem) for _, kind, stem in sorted(saved)]
    for kind in ("table", "figure"):
        for path in sorted(artifacts.glob(f"*.{kind}-note.txt"), key=lambda p: p.stat().st_mtime_ns):
            result.notes.append({**json.loads(path.read_text(encoding="utf-8")), "kind": kind})
    return result


@lru_cache(maxsize=1)
def _html_exporter() -> Any:
    """The exporter of every notebook's page, made once per worker (a new one loads its templates again: ~0.1 s a
    notebook); the nbval copy of each table (plain text, tagged "nbval-text") stays in the .ipynb, not in the HTML."""
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    config = Config()
    config.TagRemovePreprocessor.enabled = True
    config.TagRemovePreprocessor.remove_cell_tags = {"nbval-text"}
    return HTMLExporter(template_name="lab", config=config)


def _show_parameters(nb: Any, shown: dict[str, Any]) -> None:
    """The injected parameters cell as the reader of the finished report needs it (its outputs are none)."""
    from .parameters import injected_source

    for cell in nb.cells:
        if "injected-parameters" in cell.get("metadata", {}).get("tags", []):
            cell.source = injected_source(shown).replace(
                "# Parameters (injected by ambiglib report: each value a Python literal)",
                "# Parameters (injected by ambiglib report: each value a Python literal; paths as they are in the"
                " finished report,\n# out_dir relative to it: the tables are in tables/<notebook>/, the figures in"
                " figures/<notebook>/)", 1)


#: Seconds each bundled notebook took in the report on the simulator at 1000x (bench/report.py,
#: docs/performance.md). Only the order in which the notebooks start follows them: the longest first, so
#: that the workers finish together instead of one running the last long notebook alone.
_MEASURED_SECONDS = {
    "conventions": 20.4, "4_is_one_agent_better": 19.0, "3_does_asking_pay_off": 18.5, "hilbench_judgment_gap": 13.4,
    "hilbench_failure_modes": 12.4, "2_are_its_questions_good": 6.5, "1_does_it_ask_when_it_should": 4.7,
    "lhaw_strategies_and_personas": 11.3, "lhaw_ask_failures": 11.1, "lhaw_dimensions": 9.9,
    "ambigds_performance": 9.5, "lhaw_value_of_information": 7.5, "lhaw_ambiguity_classes": 7.3,
    "ambigds_calibration": 6.0, "hilbench_questions": 6.1, "power_analysis": 5.3, "ambigds_construction_audits": 5.2,
    "ambigds_recognition": 4.0, "ambigds_framing": 3.9, "quickstart": 3.4, "hilbench_dataset": 2.3,
}


def longest_first(jobs_args: list[tuple]) -> list[tuple]:
    """The notebooks in the order they start: bundled ones by their measured time, longest first, then the
    others (a user's own) in the order given. The report lists them in the order given, whatever the order
    they ran in."""
    return sorted(jobs_args, key=lambda a: -_MEASURED_SECONDS.get(a[0].stem, 0.0))


def warm(cwd: str | None = None) -> None:
    """In a report worker, before its first notebook: import what running one needs and, given the folder its
    notebooks run in (``cwd``, when the worker keeps its kernel), start and prepare the kernel, while the
    report's process is still loading the log (at 1000x the example, ~7 s with one core idle for part of it).
    A kernel that cannot start here is left to the first notebook, whose error then says why."""
    import importlib

    for name in ("nbformat", "papermill", "nbconvert"):
        importlib.import_module(name)
    if cwd is not None:
        try:
            _reused_kernel(cwd)
            _KERNEL["restored"] = True  # as a new kernel: the first notebook need not reset it again
        except Exception:  # noqa: BLE001 — the first notebook starts it again, and fails with the reason
            _drop_kernel()


#: Modules the report's own processes (its command's, and its workers) decline to import: libraries import them
#: when installed for something nothing in those processes uses, and they cost more CPU than anything else at
#: a worker's start, on the path to its first notebook. jsonschema (under nbformat, under papermill) imports
#: ``rfc3987_syntax`` for its "iri" format checks, and it builds ~35 Earley parsers as it is imported: ~1 s a
#: process here (python-jsonschema/jsonschema#1428). No notebook schema, and no schema installed beside ours,
#: has an "iri" format; jsonschema imports it under ``suppress(ImportError)`` and then checks no "iri".
UNUSED_IMPORTS = ("rfc3987_syntax",)


def decline_unused_imports() -> None:
    """In a process that is the report's own (never a user's: a notebook's kernel is not), make importing each of
    :data:`UNUSED_IMPORTS` an ImportError, as when it is not installed; one already imported stays."""
    import sys

    for name in UNUSED_IMPORTS:
        sys.modules.setdefault(name, None)  # (None in sys.modules: ``import`` raises ModuleNotFoundError)


def worker_started(parent: int) -> None:
    """In a report worker, first: end when the report's process ends, however it ends, and leave Ctrl-C
    to the report.

    * On Linux the system sends this process SIGTERM when the report's process dies (even by SIGKILL);
      elsewhere the report's own handler terminates the workers. Either way SIGTERM kills this worker's
      kernels, removes their folders and ends the process at once (:func:`_stop_now`): raising
      SystemExit instead let ``concurrent.futures`` catch it and wait forever for the next notebook.
    * SIGINT (Ctrl-C reaches every process of the terminal's group) is ignored: the report stops the
      workers itself and prints one line; a worker's traceback would come before it.
    * Imports nothing in it uses are declined (:func:`decline_unused_imports`).
    """
    import signal

    decline_unused_imports()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _stop_now)
    _die_with_parent(signal.SIGTERM)
    if os.getppid() != parent:  # the report died before the signal was asked for
        _stop_now(signal.SIGTERM, None)


def _stop_now(signum: int, frame: Any) -> None:
    """Kill this worker's kernels (their process groups: a kernel's own children too), remove their
    folders, and end the process without unwinding (no cleanup that waits on a dead report)."""
    import shutil
    import signal

    for manager in list(_RUNNING):
        process = getattr(getattr(manager, "provisioner", None), "process", None)
        if process is not None:
            try:
                os.killpg(process.pid, signal.SIGKILL)  # started in a session of its own: pgid == pid
            except OSError:
                pass
        shutil.rmtree(manager._ipc_dir, ignore_errors=True)
    os._exit(128 + signum)
