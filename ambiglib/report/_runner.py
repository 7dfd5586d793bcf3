"""Running one notebook of the report: a worker process, its kernel, papermill, and the notebook's HTML.

The report (:mod:`ambiglib.report`) runs each notebook in a worker process of its own (papermill
changes the process's working directory), started with :func:`worker_started` and warmed with
:func:`warm`; :func:`run_notebook` injects the parameters (:mod:`ambiglib.report._parameters`), executes the
notebook in a kernel of :func:`kernel_manager`'s class and writes its ``.ipynb`` and ``.html``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from ambiglib._text import visible
from ambiglib.errors import ReportError
from ambiglib.report._parameters import inject_parameters

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
    notes: list[dict[str, Any]] = field(default_factory=list)
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


def kernel_manager() -> Any:
    """The kernel manager class of the report's kernels: jupyter_client's ``AsyncKernelManager`` set up through its
    documented traits, with the kernel's folder and what it wrote (:meth:`last_words`) added.

    * IPC transport (``transport``, ``ip``, ``connection_file``): each kernel talks over Unix sockets in a private
      temporary folder (``folder``, with its connection file), so two kernels started at once cannot race for one
      TCP port, ipykernel (≥ 7) has no reason to warn that the kernel "is running over TCP without encryption",
      and one folder removed cleans up after it. Where no temporary folder is short enough for a socket's path
      (:data:`SOCKET_PATH_MAX`), the kernel talks TCP on 127.0.0.1 (:func:`_kernel_folder`).
    * The client (``client_factory``): a notebook's client (nbclient makes one per notebook) is ready as soon as the
      kernel has answered it and its output channel is connected: what has arrived on that channel is let go,
      without then listening 0.2 s for more, as jupyter_client's ``wait_for_ready`` does (at every notebook, the
      kernel idle). Output that arrives later belongs to no cell of the notebook, and nbclient takes only its
      cells' own.

    The report starts each kernel with :func:`_start_kernel` (it dies with its worker; what it writes outside a
    cell goes to ``kernel.log`` in its folder) and stops it with :func:`_stop_kernel` (no interrupt first), never
    leaving either to nbclient.
    """
    return _classes()[0]


@lru_cache(maxsize=1)
def _classes() -> tuple[type, type]:
    """The report's kernel manager and client classes, made on first use (jupyter_client is imported then)."""
    import time as clock
    from queue import Empty

    import jupyter_client
    from jupyter_client.asynchronous import AsyncKernelClient
    from jupyter_client.manager import AsyncKernelManager

    class ReportKernelClient(AsyncKernelClient):
        async def wait_for_ready(self, timeout: float | None = None) -> None:
            """jupyter_client's steps but its last: ask kernel_info until the kernel replies and a message comes
            on IOPub (else it is not connected yet: ask again); then let go what has come there."""
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
                        _adapt_protocol(self.session, reply, jupyter_client.protocol_version_info[0])
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
        def __init__(self, **kwargs: Any) -> None:
            folder, transport = _kernel_folder()
            kwargs.setdefault("transport", transport)
            kwargs.setdefault("ip", os.path.join(folder, "kernel") if transport == "ipc" else "127.0.0.1")
            kwargs.setdefault("connection_file", os.path.join(folder, "kernel.json"))
            kwargs.setdefault("client_factory", ReportKernelClient)
            super().__init__(**kwargs)
            #: the kernel's private folder: its sockets, connection file and ``kernel.log``
            self.folder = folder
            _RUNNING.add(self)

        def last_words(self, lines: int = 12) -> str:
            """The last ``lines`` lines the kernel wrote outside its cells ("" when it wrote none)."""
            try:
                with open(os.path.join(self.folder, "kernel.log"), "rb") as log:
                    log.seek(0, os.SEEK_END)
                    log.seek(max(0, log.tell() - 64 * 1024))
                    text = log.read().decode("utf-8", errors="replace")
            except OSError:  # its folder removed
                return ""
            return "\n".join(text.strip().splitlines()[-lines:])

    return ReportKernelManager, ReportKernelClient


#: The longest path a kernel's Unix socket may have here: the system's limit is 107 bytes on Linux and 103 on macOS, and
#: a socket is ``<folder>/kernel-<n>``
SOCKET_PATH_MAX = 100


def _kernel_folder() -> tuple[str, str]:
    """A private folder for a kernel, and the transport of its sockets: IPC where their paths fit, in the temporary
    folder (a long ``TMPDIR``, as pytest's or a cluster's, does not fit: "File name too long") or else in ``/tmp``;
    TCP on 127.0.0.1, its folder in the temporary folder, where neither fits."""
    import tempfile

    for base in (None, "/tmp"):
        try:
            folder = tempfile.mkdtemp(prefix="ambiglib-kernel-", dir=base)
        except OSError:  # /tmp not writable here
            continue
        if len(os.fsencode(os.path.join(folder, "kernel-99999"))) <= SOCKET_PATH_MAX:
            return folder, "ipc"
        os.rmdir(folder)
    return tempfile.mkdtemp(prefix="ambiglib-kernel-"), "tcp"


def _adapt_protocol(session: Any, reply: dict[str, Any], ours: int) -> None:
    """Speak the kernel's major protocol version when it is not ours, as jupyter_client's own client does on the
    kernel's first ``kernel_info_reply`` (``Session.adapt_version``)."""
    major = str((reply.get("content") or {}).get("protocol_version", "")).split(".")[0]
    if major.isdigit() and int(major) != ours:
        session.adapt_version = int(major)


def _start_kernel(km: Any, cwd: str, extra_arguments: Sequence[str] = ()) -> None:
    """Start the kernel of ``km`` in ``cwd``. ``start_kernel`` passes its keyword arguments on to ``Popen``: the kernel
    is started with ``PR_SET_PDEATHSIG`` = SIGKILL (however its worker ends, killed outright included, the kernel
    ends with it), and what it writes outside a cell (its own log, a traceback before it could start, a C library's
    message) goes to ``kernel.log`` in its folder, not to the report's terminal, where a kernel started as the report
    was stopped wrote its start-up warnings after the report's last line."""
    import signal

    from jupyter_core.utils import run_sync

    prctl = _prctl()
    launch: dict[str, Any] = {}
    if prctl is not None:
        launch["preexec_fn"] = lambda: _die_with_parent(signal.SIGKILL, prctl)
    with open(os.path.join(km.folder, "kernel.log"), "ab") as log:  # the kernel holds its own copy
        run_sync(km.start_kernel)(cwd=cwd, stdout=log, stderr=log, extra_arguments=list(extra_arguments), **launch)


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
    """Kill the kernel of ``km``, free what its manager holds and remove its folder, keeping what the kernel wrote
    outside its cells in :data:`_LAST_WORDS`."""
    import shutil

    from jupyter_core.utils import run_sync

    if os.path.isdir(km.folder):
        _LAST_WORDS[0] = km.last_words()
    try:
        run_sync(_kill)(km)
    except Exception:  # already dead: its folder is removed below either way
        pass
    shutil.rmtree(km.folder, ignore_errors=True)
    _RUNNING.discard(km)


async def _kill(km: Any) -> None:
    """SIGKILL to the kernel's process group, its end awaited, then the manager's ``cleanup_resources``. Not
    ``shutdown_kernel``: it interrupts a kernel before it stops it, in case it is busy; ours are idle (every cell has
    run, or the notebook failed), and the signal only made ipykernel log "KeyboardInterrupt caught in kernel"."""
    import signal

    if km.has_kernel:
        await km.signal_kernel(signal.SIGKILL)
        await km.finish_shutdown(pollinterval=0.01)
    await km.cleanup_resources()


def _own_kernel(cwd: str, *, seeded: bool = True) -> Any:
    """A new kernel for one notebook that shares none (:func:`shares_kernel`). ``seeded``: Python's and NumPy's global
    random generators seeded as in a kept kernel (:func:`ambiglib.report._isolation.seed`), nothing else imported in
    it (ambiglib.report would import pandas, which takes a while). Else (the report without ``reuse``) started as nbclient starts a
    kernel of its own: its IPython history in memory, and the notebook's client is the first to wait for it."""
    from ambiglib.report._isolation import SEED

    km = kernel_manager()(kernel_name="python3")
    try:
        if seeded:
            _start_kernel(km, cwd)
            _in_kernel(km, f"__import__('random').seed({SEED}); __import__('numpy').random.seed({SEED})",
                       started=False)
        else:
            _start_kernel(km, cwd, ["--HistoryManager.hist_file=:memory:"])
    except BaseException:
        _stop_kernel(km)
        raise
    return km


def _reused_kernel(cwd: str) -> Any:
    """This worker's kernel, started and prepared on first use (or again, if it died or ``cwd`` changed), with
    the namespace and state a new kernel has (:func:`ambiglib.report._isolation.restore`)."""
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
        _start_kernel(km, cwd)
        _KERNEL.update(km=km, cwd=cwd)
        if not _KERNEL.get("finalizer"):
            _KERNEL["finalizer"] = multiprocessing.util.Finalize(None, _drop_kernel, exitpriority=10)
        prepare = "__import__('ambiglib.report._isolation', fromlist=['prepare']).prepare()\n"
    else:
        prepare = ""
    # one round trip: a new kernel is prepared and reset in the same request
    _in_kernel(km, prepare + "__import__('ambiglib.report._isolation', fromlist=['restore']).restore()",
               started=not prepare)
    return km


def shares_kernel(notebook: Path) -> bool:
    """Whether ``notebook`` may run in a kernel other notebooks ran in, reset between them (:mod:`.isolation`): a
    notebook of the bundled set, byte for byte, whose code changes nothing the reset cannot put back. Any other (a
    user's ``--notebooks-dir``) may change anything, e.g. a library's module attribute or a module-level dict in
    place, and runs in a kernel no other notebook ran in."""
    from ambiglib.report._bundled import bundled_notebooks

    try:
        bundled = bundled_notebooks() / notebook.name
        return bundled.is_file() and bundled.read_bytes() == notebook.read_bytes()
    except (ReportError, OSError):  # none bundled, or one unreadable: its own kernel
        return False


#: seconds one notebook may run by default (``--notebook-timeout``): the slowest bundled notebook takes about a
#: minute on a log 1,000 times the example's (docs/performance.md)
NOTEBOOK_TIMEOUT = 1800.0


# complexity over 15 (noqa: C901 below): each way a notebook run can end
def run_notebook(notebook: Path, out: Path, parameters: dict[str, Any], cwd: str,  # noqa: C901
                 shown: dict[str, Any] | None = None, reuse: bool = True,
                 timeout: float = NOTEBOOK_TIMEOUT) -> NotebookResult:
    """Run one notebook with ``parameters`` into ``out`` (the report's work folder); its pages show ``shown``
    instead (the same parameters with the paths they have once the report is in place: its work folder is
    renamed, its snapshot removed). With ``reuse``, in this worker's kernel, kept from its last notebook and
    reset to what a new kernel holds (:mod:`ambiglib.report._isolation`), if it is one of the bundled set
    (:func:`shares_kernel`); another in a new kernel of its own, its random generators seeded as in the kept one.
    Without ``reuse``, in a new kernel."""
    import nbformat
    import papermill

    name = notebook.stem
    started = time.perf_counter()
    result = NotebookResult(name, 0.0)
    executed = out / f"{name}.ipynb"
    # the parameters cell is ours, not papermill's translator's: each value a literal, proven so
    # (ambiglib.report._parameters); papermill then runs the notebook as written, with no parameters of its own
    nbformat.write(inject_parameters(nbformat.read(str(notebook), as_version=4), parameters), str(executed))
    as_given = str(executed).replace("{", "{{").replace("}", "}}")  # papermill str.format()s its paths
    deadline = time.monotonic() + timeout

    def time_left(cell: Any) -> int:  # nbclient's per-cell wait: what is left of the notebook's time
        return max(1, int(deadline - time.monotonic() + 0.999))

    shared = reuse and shares_kernel(notebook)
    own = None  # the kernel of a notebook that shares none
    for attempt in (1, 2):
        try:
            # every kernel is the report's to start and stop (nbclient's own would be interrupted before it stops)
            if shared:
                km = _reused_kernel(cwd)
            else:
                own = km = _own_kernel(cwd, seeded=reuse)
            # papermill's cwd= changes the whole process's directory: safe here, where each notebook has a
            # process of its own (run_report); a relative path in a parameter (e.g. selector_audit) resolves
            # against the folder the report was started in, as --runs does (a kept kernel was started there)
            papermill.execute_notebook(as_given, as_given, parameters=None,
                                       cwd=cwd, kernel_name="python3", progress_bar=False,
                                       log_output=False, timeout_func=time_left, interrupt_on_timeout=True,
                                       km=km)
        except Exception as exc:  # a cell's error, a kernel that died, the time limit
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
            dead = _KERNEL.get("km") if shared else own
            words = (dead.last_words() if dead is not None else "") or _LAST_WORDS[0]
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
    """The exporter of every notebook's page, made once per worker (a new one loads its templates again at every
    notebook); the nbval copy of each table (plain text, tagged "nbval-text") stays in the .ipynb, not in the HTML."""
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    config = Config()
    config.TagRemovePreprocessor.enabled = True
    config.TagRemovePreprocessor.remove_cell_tags = {"nbval-text"}
    return HTMLExporter(template_name="lab", config=config)


def _show_parameters(nb: Any, shown: dict[str, Any]) -> None:
    """The injected parameters cell as the reader of the finished report needs it (its outputs are none)."""
    from ambiglib.report._parameters import injected_source

    for cell in nb.cells:
        if "injected-parameters" in cell.get("metadata", {}).get("tags", []):
            cell.source = injected_source(shown).replace(
                "# Parameters (injected by ambiglib report: each value a Python literal)",
                "# Parameters (injected by ambiglib report: each value a Python literal; paths as they are in the"
                " finished report,\n# out_dir relative to it: the tables are in tables/<notebook>/, the figures in"
                " figures/<notebook>/)", 1)


#: The most of a previous report's ``manifest.json`` read for its notebooks' seconds (bytes); a larger one is ignored.
MAX_TIMINGS_BYTES = 64 * 1024 * 1024


def recorded_seconds(folder: Path) -> dict[str, float]:
    """The seconds each notebook took in the report last written to ``folder``, as its ``manifest.json`` records
    them (``notebooks``: ``{"notebook", "seconds"}`` each), for the order the next report starts them in; {} when
    there is none. The file is anyone's to edit: it is only ever parsed as JSON, and anything else than a
    manifest (not a regular file, larger than :data:`MAX_TIMINGS_BYTES`, not JSON) gives {}, an entry without a
    notebook's name and a finite number of seconds ≥ 0 is left out."""
    import json
    import math
    import stat

    try:
        fd = os.open(Path(folder) / "manifest.json",
                     os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError):  # none, a link, a name the system refuses
        return {}
    try:
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):  # a FIFO or device: never waited on
                return {}
            text = fh.read(MAX_TIMINGS_BYTES + 1)
        manifest = json.loads(text) if len(text) <= MAX_TIMINGS_BYTES else None
    except (OSError, ValueError, RecursionError):  # unreadable, not JSON (or not text), nested too deep
        return {}
    entries = manifest.get("notebooks") if isinstance(manifest, dict) else None
    seconds: dict[str, float] = {}
    for entry in entries if isinstance(entries, list) else []:
        name = entry.get("notebook") if isinstance(entry, dict) else None
        value = entry.get("seconds") if isinstance(entry, dict) else None
        if not isinstance(name, str) or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        try:
            value = float(value)
        except OverflowError:  # an integer beyond any float
            continue
        if math.isfinite(value) and value >= 0:
            seconds[name] = value
    return seconds


def longest_first(jobs_args: list[tuple[Any, ...]], seconds: dict[str, float] | None = None) -> list[tuple[Any, ...]]:
    """The notebooks in the order they start (each job's first item is its path): with ``seconds`` (what each took
    in the last report, :func:`recorded_seconds`), those it did not run first, in the order given (one may be the
    longest), then the rest longest first, so that the workers finish together instead of one running the last
    long notebook alone; with none, the order given, each worker taking the next as it is free. The report lists
    them in the order given, whatever the order they ran in."""
    seconds = seconds or {}
    return sorted(jobs_args, key=lambda a: (a[0].stem in seconds, -seconds.get(a[0].stem, 0.0)))


def warm(cwd: str | None = None) -> None:
    """In a report worker, before its first notebook: import what running one needs and, given the folder its
    notebooks run in (``cwd``, when the worker keeps its kernel), start and prepare the kernel, while the
    report's process is still loading the log (at 1000x the example, long enough to leave a core partly idle).
    A kernel that cannot start here is left to the first notebook, whose error then says why."""
    import importlib

    for name in ("nbformat", "papermill", "nbconvert"):
        importlib.import_module(name)
    if cwd is not None:
        try:
            _reused_kernel(cwd)
            _KERNEL["restored"] = True  # as a new kernel: the first notebook need not reset it again
        except Exception:  # the first notebook starts it again, and fails with the reason
            _drop_kernel()


#: Modules the report's own processes (its command's, and its workers) decline to import: libraries import them
#: when installed for something nothing in those processes uses, and they cost more CPU than anything else at
#: a worker's start, on the path to its first notebook. jsonschema (under nbformat, under papermill) imports
#: ``rfc3987_syntax`` for its "iri" format checks, and it builds dozens of Earley parsers as it is imported
#: (python-jsonschema/jsonschema#1428). No notebook schema, and no schema installed beside ours,
#: has an "iri" format; jsonschema imports it under ``suppress(ImportError)`` and then checks no "iri".
UNUSED_IMPORTS = ("rfc3987_syntax",)


def decline_unused_imports() -> None:
    """In a process that is the report's own (never a user's: a notebook's kernel is not), make importing each of
    :data:`UNUSED_IMPORTS` an ImportError, as when it is not installed; one already imported stays."""
    import sys
    from typing import cast

    modules = cast("dict[str, Any]", sys.modules)
    for name in UNUSED_IMPORTS:
        modules.setdefault(name, None)  # (None in sys.modules: ``import`` raises ModuleNotFoundError)


#: The variables by which the numerical libraries a kernel loads (OpenBLAS, MKL, OpenMP, Accelerate, numexpr) take
#: their number of threads, as joblib's loky sets them in its workers
#: (https://joblib.readthedocs.io/en/stable/parallel.html#avoiding-over-subscription-of-cpu-resources)
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS",
                    "NUMEXPR_NUM_THREADS")


def threads_per_kernel(jobs: int, cores: int | None = None) -> int:
    """The threads each of ``jobs`` kernels may give its matrix products: this process's cores shared among them
    (at least 1). With a thread per core in every kernel, two kernels on two cores ran four BLAS threads that spin
    while they wait: the 1000x report took 118-125 CPU-s instead of 100 (``docs/performance.md``)."""
    if cores is None:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, cores // max(1, jobs))


def worker_started(parent: int, started: Any = None, stopping: Any = None, threads: int | None = None) -> None:
    """In a report worker, first: end when the report's process ends, however it ends, and leave Ctrl-C
    to the report.

    * Its process id is put on ``started`` (a multiprocessing queue), by which the report terminates it; when the
      report is stopping already (``stopping``, a multiprocessing event, is set), it ends at once.
    * On Linux the system sends this process SIGTERM when the report's process dies (even by SIGKILL);
      elsewhere the report's own handler terminates the workers. Either way SIGTERM kills this worker's
      kernels, removes their folders and ends the process at once (:func:`_stop_now`): raising
      SystemExit instead let ``concurrent.futures`` catch it and wait forever for the next notebook.
    * SIGINT (Ctrl-C reaches every process of the terminal's group) is ignored: the report stops the
      workers itself and prints one line; a worker's traceback would come before it.
    * Imports nothing in it uses are declined (:func:`decline_unused_imports`).
    * Its kernels give their matrix products ``threads`` threads (:func:`threads_per_kernel`), through each of
      :data:`THREAD_VARIABLES` the user has not set: a variable set in the environment is kept as it is.
    """
    import signal

    if threads is not None:
        for variable in THREAD_VARIABLES:
            os.environ.setdefault(variable, str(threads))  # (the kernels inherit this process's environment)
    decline_unused_imports()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _stop_now)
    _die_with_parent(signal.SIGTERM)
    if started is not None:
        started.put(os.getpid())
    if os.getppid() != parent or stopping is not None and stopping.is_set():  # the report died, or is stopping
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
        shutil.rmtree(manager.folder, ignore_errors=True)
    os._exit(128 + signum)
