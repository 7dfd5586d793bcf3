"""A report worker keeps its kernel for its next notebook (issue 29 §3): a notebook's outputs are the same
whether it ran first in its kernel or after others, and the same as in a kernel of its own."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import nbformat
import pytest

from ambiglib.report import run_report

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example"

#: changes everything a notebook can leave behind in its kernel
POLLUTE = """\
import os, random, sys, warnings
import matplotlib, matplotlib.pyplot as plt, numpy as np, pandas as pd
pd.set_option("display.width", 33)
pd.set_option("display.max_rows", 3)
matplotlib.rcParams["lines.linewidth"] = 7
matplotlib.rcParams["figure.figsize"] = (1, 1)
np.mean([])  # a warning numpy shows once per place: after this, not again unless its registry is cleared
warnings.simplefilter("ignore")
os.environ["AMBIGLIB_LEFT_BEHIND"] = "x"
os.chdir("/")
sys.path.append("/nowhere")
np.random.seed(123)
random.seed(5)
plt.figure()
leftover = 1
"""
#: prints everything POLLUTE changes
PROBE = """\
import os, random, sys, warnings
import matplotlib, matplotlib.pyplot as plt, numpy as np, pandas as pd
np.mean([])
print("names", sorted(n for n in globals() if not n.startswith("_") and n not in ("In", "Out", "exit", "quit",
      "get_ipython", "open")))
print("pandas", pd.get_option("display.width"), pd.get_option("display.max_rows"))
print("matplotlib", matplotlib.rcParams["lines.linewidth"], list(matplotlib.rcParams["figure.figsize"]),
      matplotlib.get_backend())
print("warnings", len(warnings.filters), "environ", os.environ.get("AMBIGLIB_LEFT_BEHIND"))
print("cwd", os.getcwd() == CWD, "path", "/nowhere" in sys.path, "figures", plt.get_fignums())
print("random", random.random(), np.random.random())
print("count", get_ipython().execution_count)
"""


def _notebooks(folder: Path, cells: dict[str, str]) -> Path:
    folder.mkdir()
    for name, source in cells.items():
        nb = nbformat.v4.new_notebook()
        params = nbformat.v4.new_code_cell('runs: str = ""\nout_dir: str = ""')
        params.metadata["tags"] = ["parameters"]
        nb.cells = [params, nbformat.v4.new_code_cell(source)]
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, folder / f"{name}.ipynb")
    return folder


def _outputs(path: Path) -> list:
    """Every code cell's outputs, as a reader sees them: text, and each image's digest."""
    nb = nbformat.read(path, as_version=4)
    seen = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for o in cell.get("outputs", []):
            if o["output_type"] == "stream":
                seen.append((o["name"], o["text"]))
            elif "data" in o:
                data = o["data"]
                seen.append({k: hashlib.sha256(v.encode()).hexdigest() if k.startswith("image/") else v
                             for k, v in data.items()})
            elif o["output_type"] == "error":
                seen.append(("error", o["ename"], o["evalue"]))
        seen.append(("count", cell.get("execution_count")))
    return seen


def test_a_notebook_after_another_in_a_kept_kernel_sees_a_new_kernel(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    probe = PROBE.replace("CWD", repr(str(tmp_path)))
    nbs = _notebooks(tmp_path / "nbs", {"a_pollute": POLLUTE, "b_probe": probe})
    # one worker: a_pollute, then b_probe in the same kernel (notebooks of no measured time start as given)
    run_report(EXAMPLE, tmp_path / "after", notebooks_dir=nbs, jobs=1)
    run_report(EXAMPLE, tmp_path / "alone", notebooks_dir=nbs, notebooks=["b_probe"], jobs=1)
    run_report(EXAMPLE, tmp_path / "fresh", notebooks_dir=nbs, notebooks=["b_probe"], jobs=1, reuse_kernels=False)
    after, alone, fresh = (_outputs(tmp_path / d / "b_probe.ipynb") for d in ("after", "alone", "fresh"))
    assert after == alone
    text = "".join(t for k, t in (o for o in after if isinstance(o, tuple) and len(o) == 2) if k == "stdout")
    # its own names and parameters only; the environment, folder, path, figures as a new kernel has them
    assert "names ['matplotlib', 'np', 'os', 'out_dir', 'pd', 'plt', 'random', 'runs', 'sys', 'warnings']" in text
    assert "environ None" in text and "cwd True path False figures []" in text
    assert "Mean of empty slice" in "".join(t for k, t in (o for o in after if isinstance(o, tuple) and len(o) == 2)
                                            if k == "stderr")
    # in a kernel of its own, everything but the seeded random numbers (a new kernel's are not seeded) is the same
    strip = [o for o in fresh if not (isinstance(o, tuple) and "random " in str(o[-1]))]
    assert [o for o in alone if not (isinstance(o, tuple) and "random " in str(o[-1]))] == strip
    assert "pandas 80 60" in text  # pandas' defaults


@pytest.mark.parametrize("first", ["hilbench_judgment_gap"])
def test_a_bundled_notebook_gives_the_same_outputs_after_another(tmp_path, first):
    # quickstart after a notebook that draws, sets seaborn's theme and pandas' display width, in one kernel
    run_report(EXAMPLE, tmp_path / "after", notebooks=[first, "quickstart"], jobs=1)
    run_report(EXAMPLE, tmp_path / "alone", notebooks=["quickstart"], jobs=1)
    manifest = json.loads((tmp_path / "after" / "manifest.json").read_text())
    assert [n["error"] for n in manifest["notebooks"]] == [None, None]
    assert _outputs(tmp_path / "after" / "quickstart.ipynb") == _outputs(tmp_path / "alone" / "quickstart.ipynb")


@pytest.mark.parametrize("reuse", [True, False])
def test_a_kernel_that_dies_is_named_with_what_it_wrote_and_writes_nothing_to_the_terminal(tmp_path, monkeypatch,
                                                                                           capfd, reuse):
    """A kernel wrote to the report's terminal: a kernel starting as the report was stopped printed ipykernel's
    start-up warnings after the report's one line (CI, stop 51). A kernel that died left its folder behind
    when it was not kept (nbclient's cleanup bypassed ours), and its error said only "Kernel died"."""
    from ambiglib.report import ReportError

    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))  # the workers' kernels make their folders here
    dying = ("import os, signal, time\nos.write(2, b'fd 2 of the kernel: last words 7f3a\\x1b[2J\\n')\ntime.sleep(1)\n"
             "os.kill(os.getpid(), signal.SIGKILL)")
    nbs = _notebooks(tmp_path / "nbs", {"dies": dying, "lives": "print('fine')"})
    capfd.readouterr()
    with pytest.raises(ReportError) as caught:
        run_report(EXAMPLE, tmp_path / "report", notebooks_dir=nbs, jobs=1, reuse_kernels=reuse)
    message = str(caught.value)
    assert "dies.ipynb failed: DeadKernelError: Kernel died" in message
    # what the kernel wrote is shown, its control characters as escapes (it could clear the reader's terminal)
    assert "what its kernel wrote last, outside its cells:\nfd 2 of the kernel: last words 7f3a\\x1b[2J" in message
    assert "\x1b" not in message
    assert "last words 7f3a" not in capfd.readouterr().err
    assert (tmp_path / "report" / "lives.html").is_file()
    assert list(temp.iterdir()) == []  # every kernel's folder removed, the dead one's too


def test_a_worker_starts_and_prepares_its_kernel_while_the_report_loads_the_log(tmp_path, monkeypatch):
    """The report's process loads the log (~7 s at 1000x) while its workers wait; each worker now starts and
    prepares its kernel then (warm), and its first notebook runs in it without a second reset."""
    from ambiglib.report import _runner as runner

    monkeypatch.setattr(runner, "_KERNEL", {})
    runner.warm()  # a worker that starts a new kernel for every notebook starts none here
    assert "km" not in runner._KERNEL
    runner.warm(str(tmp_path))
    try:
        km = runner._KERNEL["km"]
        kc = km.blocking_client()
        kc.start_channels()
        try:
            kc.wait_for_ready(timeout=60)
            seen = []
            kc.execute_interactive("import os, sys; print('ambiglib.tables' in sys.modules, os.getcwd())",
                                   timeout=60, output_hook=lambda m: seen.append(m["content"].get("text", "")))
        finally:
            kc.stop_channels()
        assert "".join(seen).strip() == f"True {tmp_path}"  # prepared (isolation.prepare), in the report's folder
        assert runner._reused_kernel(str(tmp_path)) is km and "restored" not in runner._KERNEL
    finally:
        runner._drop_kernel()


def test_a_kernel_that_cannot_start_while_the_log_loads_is_left_to_the_first_notebook(monkeypatch):
    from ambiglib.report import _runner as runner

    def broken(cwd):
        raise RuntimeError("no kernel")

    monkeypatch.setattr(runner, "_KERNEL", {})
    monkeypatch.setattr(runner, "_reused_kernel", broken)
    runner.warm("/")  # no error here: the first notebook starts it again and its error says why
    assert runner._KERNEL == {}


def test_a_kept_kernels_reset_is_awaited_on_its_reply_alone_and_names_what_went_wrong(tmp_path, monkeypatch):
    """Before each notebook a kept kernel is reset by a request whose reply alone is awaited (waiting for the
    kernel to be ready again ends by listening 0.2 s on a channel that stays quiet: 0.2 s a notebook). Its
    error is raised, and a kernel that dies during it is named at once, not after the 300 s the reply may take."""
    import time

    from ambiglib.report import _runner as runner

    monkeypatch.setattr(runner, "_KERNEL", {})
    runner.warm(str(tmp_path))
    try:
        km = runner._KERNEL["km"]
        runner._in_kernel(km, "import builtins; builtins.reset_seen = 41")  # the reply of this request, awaited
        runner._in_kernel(km, "assert builtins.reset_seen == 41")  # (it ran, in that kernel)
        with pytest.raises(RuntimeError, match="could not be prepared: ValueError: reset refused 5e1"):
            runner._in_kernel(km, "raise ValueError('reset refused 5e1')")
        started = time.monotonic()
        with pytest.raises(RuntimeError, match="Kernel died before replying to the report's reset"):
            runner._in_kernel(km, "import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
        assert time.monotonic() - started < 60  # named when found dead, not when the reply's 300 s ran out
    finally:
        runner._drop_kernel()


def test_a_prepared_kernel_collects_what_notebooks_leave_and_no_longer_goes_through_its_libraries():
    """IPython's reset before every notebook collects garbage: through the ~190,000 objects the libraries' imports
    made, ~0.1 s a notebook. prepare() sets them apart (gc.freeze); a notebook's own garbage is still collected."""
    import subprocess
    import sys

    code = """
import gc, json, weakref
import matplotlib
matplotlib.use("Agg")
before = len(gc.get_objects())
from ambiglib.report._isolation import prepare
prepare()
class Frame: pass
left = Frame(); left.me = left  # what a notebook leaves: a cycle only a collection frees
gone = weakref.ref(left)
del left
gc.collect()
print(json.dumps({"frozen": gc.get_freeze_count(), "tracked": len(gc.get_objects()), "before": before,
                  "freed": gone() is None}))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["freed"]
    # the libraries' objects (hundreds of thousands) are set apart; a collection goes through the few made since
    assert seen["frozen"] > 100_000 and seen["frozen"] > seen["before"] and seen["tracked"] < 1_000, seen


class _Channel:
    """A kernel client's channel that gives ``script``'s messages in turn (Empty: none came in the time asked)
    and records each wait it was asked for."""

    def __init__(self, name: str, script: list, waits: list) -> None:
        self.name, self.script, self.waits = name, list(script), waits

    def send(self, msg: dict) -> None:
        pass

    async def get_msg(self, timeout: float | None = None) -> dict:
        from queue import Empty

        self.waits.append((self.name, timeout))
        item = self.script.pop(0) if self.script else Empty
        if item is Empty:
            raise Empty
        return item


def test_a_notebooks_client_is_ready_once_the_kernel_answered_and_then_listens_for_nothing_more(monkeypatch):
    """nbclient makes a client per notebook and waits until it is ready; jupyter_client's wait ended by listening
    0.2 s on IOPub for output that did not come: 0.2 s a notebook with the kernel idle. The report's client asks
    the kernel until it answers with its output channel connected, lets go what has arrived there, and stops."""
    import asyncio
    import shutil
    from queue import Empty

    from ambiglib.report import _runner as runner

    km = runner.kernel_manager()(kernel_name="python3")  # not started: its client's channels are replaced
    try:
        kc = km.client()
        alive = [True]

        async def is_alive() -> bool:
            return alive[0]

        monkeypatch.setattr(kc, "is_alive", is_alive)
        info = {"msg_type": "kernel_info_reply", "content": {"protocol_version": "5.3"}}
        waits: list = []
        # the first reply comes before IOPub is connected (nothing there in 0.2 s): asked again; two more
        # messages are there when it is ready, and nothing after them
        kc._shell_channel = _Channel("shell", [info, info], waits)
        kc._iopub_channel = iopub = _Channel("iopub", [Empty, {"msg_type": "status"}, {"msg_type": "status"},
                                                       {"msg_type": "stream"}], waits)
        asyncio.run(kc.wait_for_ready(timeout=60))
        assert waits == [("shell", 1), ("iopub", 0.2), ("shell", 1), ("iopub", 0.2),
                         ("iopub", 0), ("iopub", 0), ("iopub", 0)]
        assert iopub.script == []  # what had come was let go: no cell of the notebook sees it
        # a kernel that died before it answered is named
        alive[0] = False
        kc._shell_channel = _Channel("shell", [Empty], [])
        with pytest.raises(RuntimeError, match="Kernel died before replying to kernel_info"):
            asyncio.run(kc.wait_for_ready(timeout=60))
    finally:
        shutil.rmtree(km.folder, ignore_errors=True)
        runner._RUNNING.discard(km)


#: in a fresh interpreter: what ``rfc3987_syntax`` is after ``ambiglib report`` has read the notebooks' parameters
#: (papermill, nbformat and jsonschema imported; --runs names nothing, so no notebook runs), and whether nbformat
#: still refuses a notebook that breaks its schema
_DECLINED = """\
import json, sys
{call}
import nbformat
try:
    nbformat.validate({{"nbformat": 4, "nbformat_minor": 5, "metadata": {{}},
                       "cells": [{{"id": "a", "cell_type": "nonsense", "source": "", "metadata": {{}}}}]}})
    refused = False
except nbformat.ValidationError:
    refused = True
held = sys.modules.get("rfc3987_syntax", "absent")
print(json.dumps({{"rc": rc, "papermill": "papermill" in sys.modules, "refused": refused,
                  "rfc3987_syntax": "declined" if held is None else "absent" if held == "absent" else "imported"}}))
"""


@pytest.mark.parametrize("call, expected", [
    # the program (console script, python -m ambiglib): its process is its own
    ("sys.argv = ['ambiglib', 'report', '-q', '--runs', RUNS]\nfrom ambiglib.cli import run\nrc = run()", "declined"),
    # main() called from Python: the caller's process is left as it is
    ("from ambiglib.cli import main\nrc = main(['report', '-q', '--runs', RUNS])", "imported"),
    # a report worker, as the report starts it, then warmed without a kernel (it imports papermill and nbconvert)
    ("import os\nfrom ambiglib.report._runner import warm, worker_started\nworker_started(os.getppid())\n"
     "warm(None)\nrc = 0", "declined"),
], ids=["the program", "main from Python", "a worker"])
def test_the_reports_own_processes_do_not_import_what_nothing_in_them_uses(tmp_path, call, expected):
    """jsonschema imports rfc3987_syntax for its "iri" format checks, which builds its grammars at import: ~1 s
    in the report command's process and in each worker, before the first notebook (docs/performance.md)."""
    import subprocess
    import sys

    pytest.importorskip("rfc3987_syntax", reason="rfc3987_syntax is not installed here: nothing to decline")
    code = f"RUNS = {str(tmp_path / 'no-such-log')!r}\n" + _DECLINED.format(call=call)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {"rc": 0 if "worker" in call else 1, "papermill": True, "refused": True,
                    "rfc3987_syntax": expected}


#: changes what isolation.restore did not reset before issue 56: numpy's error and print state, and module
#: attributes of ambiglib (a rebound constant, a new name, a rebound module-level dict)
POLLUTE_STATE = """\
import numpy as np
import ambiglib.runset, ambiglib.stats
np.seterr(all="raise")
np.seterrcall(print)
np.set_printoptions(precision=2, linewidth=20, threshold=3)
ambiglib.stats.MAX_N_BOOT = 5
ambiglib.stats.LEFT_BEHIND = "x"
ambiglib.runset._SHARED = {"left": "behind"}
"""
#: prints what POLLUTE_STATE changes (a division by zero: a warning in a new kernel, an error after seterr)
PROBE_STATE = """\
import warnings
import numpy as np
import ambiglib.runset, ambiglib.stats
print("errors", sorted(np.geterr().items()), np.geterrcall())
print("array", np.array([1 / 3, 2 / 3, 1.0, 4 / 3, 5 / 3]))
with warnings.catch_warnings(record=True):
    warnings.simplefilter("always")
    try:
        print("divide", np.array([1.0]) / 0)
    except FloatingPointError as exc:
        print("divide raised", exc)
print("max_n_boot", ambiglib.stats.MAX_N_BOOT, "left", hasattr(ambiglib.stats, "LEFT_BEHIND"),
      "shared", "left" in ambiglib.runset._SHARED)
"""


def _printed(km, code: str) -> str:
    """What ``code`` prints in the kernel of ``km``: on stdout (its error, if it raised one), then on stderr."""
    kc = km.blocking_client()
    kc.start_channels()
    seen: dict[str, list] = {"stdout": [], "stderr": []}

    def hook(msg):
        if msg["msg_type"] == "stream":
            seen[msg["content"]["name"]].append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            seen["stdout"].append(f"{msg['content']['ename']}: {msg['content']['evalue']}")

    try:
        kc.wait_for_ready(timeout=60)
        kc.execute_interactive(code, timeout=120, output_hook=hook)
    finally:
        kc.stop_channels()
    return "".join(seen["stdout"]) + "\n-- stderr --\n" + "".join(seen["stderr"])


def test_a_kept_kernel_resets_numpys_state_and_ambiglibs_module_attributes(tmp_path, monkeypatch):
    """Issue 56: np.seterr, np.set_printoptions or ``ambiglib.stats.MAX_N_BOOT = 5`` in one notebook reached every
    later notebook of its worker. After the reset the probe prints what it prints in a new kernel nothing was
    prepared in, and everything else (POLLUTE: a kept kernel now runs bundled notebooks alone) as in the kernel's
    first notebook."""
    from ambiglib.report import _runner as runner

    fresh_km = runner.kernel_manager()(kernel_name="python3")
    runner._start_kernel(fresh_km, str(tmp_path))
    try:
        expected = _printed(fresh_km, PROBE_STATE)
    finally:
        runner._stop_kernel(fresh_km)  # the kernel, and its folder
    assert "errors [('divide', 'warn'), ('invalid', 'warn'), ('over', 'warn'), ('under', 'ignore')] None" in expected
    assert "max_n_boot 100000 left False shared False" in expected and "divide [inf]" in expected

    probe = PROBE.replace("CWD", repr(str(tmp_path))) + PROBE_STATE
    monkeypatch.setattr(runner, "_KERNEL", {})
    runner.warm(str(tmp_path))
    try:
        km = runner._KERNEL["km"]
        assert runner._reused_kernel(str(tmp_path)) is km  # as for the worker's first notebook
        first = _printed(km, probe)  # prepared and reset, nothing ran yet
        assert expected.split("\n-- stderr --\n")[0] in first and "Mean of empty slice" in first
        _printed(km, POLLUTE)
        polluted = _printed(km, POLLUTE_STATE + PROBE_STATE)
        assert "max_n_boot 5 left True shared True" in polluted and "divide raised divide by zero" in polluted
        assert runner._reused_kernel(str(tmp_path)) is km  # the same kernel, reset for its next notebook
        assert _printed(km, probe) == first
    finally:
        runner._drop_kernel()


def test_a_notebook_not_of_the_bundled_set_runs_in_a_kernel_no_other_notebook_ran_in(tmp_path, monkeypatch):
    """A user's notebook (``--notebooks-dir``) may change anything, the libraries' module attributes and module-level
    objects in place included, which no reset can know of: each runs in a new kernel of its own (seeded as a kept
    kernel is, so that its random numbers are the same in every run)."""
    monkeypatch.chdir(tmp_path)
    pollute = POLLUTE_STATE + ("import scipy.stats\nscipy.stats.LEFT_BEHIND = 'x'\n"  # a library's module attribute
                               "ambiglib.stats._bootstrap._KEPT[(0, 0, 0)] = []\n")  # a module-level dict, changed in place
    probe = PROBE_STATE + ("import scipy.stats\nprint('scipy', hasattr(scipy.stats, 'LEFT_BEHIND'),"
                           " 'kept', (0, 0, 0) in ambiglib.stats._bootstrap._KEPT)\n")
    nbs = _notebooks(tmp_path / "nbs", {"a_pollute": pollute, "b_probe": probe})
    run_report(EXAMPLE, tmp_path / "after", notebooks_dir=nbs, jobs=1)  # one worker: a_pollute, then b_probe
    run_report(EXAMPLE, tmp_path / "alone", notebooks_dir=nbs, notebooks=["b_probe"], jobs=1)
    after, alone = (_outputs(tmp_path / d / "b_probe.ipynb") for d in ("after", "alone"))
    assert after == alone
    text = "".join(o[1] for o in after if isinstance(o, tuple) and o[0] == "stdout")
    assert "errors [('divide', 'warn'), ('invalid', 'warn'), ('over', 'warn'), ('under', 'ignore')] None" in text
    assert "array [0.33333333 0.66666667 1.         1.33333333 1.66666667]" in text and "divide [inf]" in text
    assert "max_n_boot 100000 left False shared False" in text and "scipy False kept False" in text


def test_only_a_notebook_of_the_bundled_set_shares_its_kernel(tmp_path):
    """The bundled notebooks change nothing restore() cannot put back (their code is ours); a copy of one, byte for
    byte, is that notebook wherever it is; an edited copy, or a notebook of one's own, may change anything."""
    from ambiglib.report import _runner as runner
    from ambiglib.report import bundled_notebooks

    bundled = bundled_notebooks() / "quickstart.ipynb"
    copy = tmp_path / "quickstart.ipynb"
    copy.write_bytes(bundled.read_bytes())
    (tmp_path / "edited").mkdir()
    edited = tmp_path / "edited" / "quickstart.ipynb"
    edited.write_bytes(bundled.read_bytes().replace(b"import pandas as pd", b"import pandas as pd; pd.x = 1", 1))
    assert edited.read_bytes() != bundled.read_bytes()
    own = _notebooks(tmp_path / "own", {"mine": "print(1)"}) / "mine.ipynb"
    assert [runner.shares_kernel(p) for p in (bundled, copy, edited, own)] == [True, True, False, False]


def test_a_long_temporary_folder_still_runs_the_notebooks(tmp_path, monkeypatch):
    """A kernel's Unix socket is <its folder>/kernel-<n>, and a socket path is at most 107 bytes: under a long TMPDIR
    (pytest's own under pytest-xdist, 102 bytes) every notebook failed with "ZMQError: File name too long"."""
    temp = tmp_path / ("t" * max(1, 110 - len(str(tmp_path))))
    temp.mkdir()
    assert len(str(temp / "ambiglib-kernel-abcdefgh" / "kernel-4")) > 107
    monkeypatch.setenv("TMPDIR", str(temp))
    nbs = _notebooks(tmp_path / "nbs", {"one": "print('fine')"})
    for reuse in (True, False):
        run_report(EXAMPLE, tmp_path / f"report-{reuse}", notebooks_dir=nbs, jobs=1, reuse_kernels=reuse)
        manifest = json.loads((tmp_path / f"report-{reuse}" / "manifest.json").read_text())
        assert [n["error"] for n in manifest["notebooks"]] == [None]
    assert list(temp.iterdir()) == []  # every kernel's folder removed


def test_a_kernels_folder_is_where_its_sockets_fit_else_it_talks_tcp(tmp_path, monkeypatch):
    import tempfile

    from ambiglib.report import _runner as runner

    short = Path(tempfile.mkdtemp(prefix="s", dir="/tmp"))  # (a pytest tmp_path is itself too long)
    monkeypatch.setattr(tempfile, "tempdir", str(short))
    folder, transport = runner._kernel_folder()
    assert (Path(folder).parent, transport) == (short, "ipc")
    Path(folder).rmdir()
    short.rmdir()
    long = tmp_path / ("l" * 120)
    long.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(long))
    folder, transport = runner._kernel_folder()
    assert (Path(folder).parent, transport) == (Path("/tmp"), "ipc")  # /tmp is short
    Path(folder).rmdir()
    made = tempfile.mkdtemp

    def no_tmp(*args, dir=None, **kwargs):
        if dir == "/tmp":
            raise PermissionError(13, "Permission denied", "/tmp")
        return made(*args, dir=dir, **kwargs)

    monkeypatch.setattr(tempfile, "mkdtemp", no_tmp)
    folder, transport = runner._kernel_folder()
    assert (Path(folder).parent, transport) == (long, "tcp")


def test_the_cores_are_shared_among_the_workers_kernels():
    from ambiglib.report._runner import threads_per_kernel

    assert [threads_per_kernel(2, cores=2), threads_per_kernel(2, cores=8), threads_per_kernel(3, cores=8),
            threads_per_kernel(4, cores=2), threads_per_kernel(0, cores=4)] == [1, 4, 2, 1, 4]


def test_a_kernel_gives_its_matrix_products_its_share_of_the_cores_unless_the_user_said(tmp_path, monkeypatch):
    """Two kernels on the machine's cores, each with BLAS threads for every core, spin while they wait for each other:
    each report kernel takes its share (``threads_per_kernel``), and a variable the user set is theirs."""
    from ambiglib.report._runner import THREAD_VARIABLES, threads_per_kernel

    for variable in THREAD_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("MKL_NUM_THREADS", "7")
    probe = f"import json, os\nprint(json.dumps({{v: os.environ.get(v) for v in {list(THREAD_VARIABLES)!r}}}))"
    nbs = _notebooks(tmp_path / "nbs", {"threads": probe})
    run_report(EXAMPLE, tmp_path / "out", notebooks_dir=nbs, jobs=2)
    printed = [o[1] for o in _outputs(tmp_path / "out" / "threads.ipynb") if o[0] == "stdout"]
    seen = json.loads(printed[0])
    share = str(threads_per_kernel(2))
    assert seen == {**{v: share for v in THREAD_VARIABLES}, "MKL_NUM_THREADS": "7"}
