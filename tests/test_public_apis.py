"""ambiglib reaches other packages through their public, documented names only: a private name of jupyter_client,
seaborn, concurrent.futures or warnings changes or goes in any release, silently. The report's kernels are prepared
with what the notebooks import, no more."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "ambiglib"

#: underscore names other packages document for use: pandas' subclassing hooks; namedtuple's methods (underscored
#: only to keep clear of field names); ``os._exit``
DOCUMENTED = {"_constructor", "_constructor_sliced", "_constructor_expanddim", "_metadata", "_replace", "_asdict",
              "_fields", "_field_defaults", "_make", "_exit"}
#: ``_name_``: IPython's display hooks (``_repr_html_``), enum's ``_missing_`` and the like, documented as such
SUNDER = re.compile(r"^_[A-Za-z0-9]+(_[A-Za-z0-9]+)*_$")
#: functions taking an attribute's name as a string
BY_NAME = {"getattr", "setattr", "hasattr", "delattr"}


def _private(name: str) -> bool:
    return (name.startswith("_") and not name.startswith("__") and name not in DOCUMENTED
            and not SUNDER.match(name))


def _bindings(tree: ast.Module) -> dict[str, tuple[str, str | None] | None]:
    """What each name a module binds by import stands for: ``(module, attribute or None)``, or None for ambiglib's
    own (a relative import, or ``ambiglib...``)."""
    bound: dict[str, tuple[str, str | None] | None] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                module = alias.name if alias.asname else alias.name.split(".")[0]
                bound[alias.asname or module] = None if module.split(".")[0] == "ambiglib" else (module, None)
        elif isinstance(node, ast.ImportFrom):
            ours = node.level > 0 or (node.module or "").split(".")[0] == "ambiglib"
            for alias in node.names:
                bound[alias.asname or alias.name] = None if ours else (node.module or "", alias.name)
    return bound


def _root(node: ast.AST) -> ast.AST:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def _resolve(expr: ast.expr, bound: dict) -> object | None:
    """The object an expression of names and attributes bound by import stands for (None: not one, or not
    importable here)."""
    import importlib

    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name) or not bound.get(expr.id):
        return None
    module, attribute = bound[expr.id]
    try:
        found = importlib.import_module(module)
        for name in ([attribute] if attribute else []) + parts[::-1]:
            found = getattr(found, name)
    except Exception:  # an optional dependency not installed here
        return None
    return found


def _foreign_bases(cls: ast.ClassDef, bound: dict) -> list[type]:
    """The classes of other packages ``cls`` derives from directly (builtins' aside: they have no private names of
    their own to collide with)."""
    found = []
    for base in cls.bases:
        resolved = _resolve(base, bound)
        if isinstance(resolved, type) and resolved.__module__.split(".")[0] not in ("ambiglib", "builtins"):
            found.append(resolved)
    return found


class _Scan(ast.NodeVisitor):
    """Underscore names of other packages a module of ambiglib uses: ``(line, what)`` each."""

    def __init__(self, own_names: set[str], bound: dict) -> None:
        self.own_names, self.bound = own_names, bound
        self.found: list[tuple[int, str]] = []
        self.bases: list[list[type]] = [[]]

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        bases = _foreign_bases(node, self.bound)
        for item in node.body:  # overriding another package's private method
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and _private(item.name) \
                    and any(hasattr(b, item.name) for b in bases):
                self.found.append((item.lineno, f"{node.name}.{item.name} overrides"))
        self.bases.append(bases)
        self.generic_visit(node)
        self.bases.pop()

    def _check(self, node: ast.AST, value: ast.expr, name: str) -> None:
        if not _private(name):
            return
        root = _root(value)
        is_super = isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super"
        if isinstance(root, ast.Name) and root.id in self.bound:
            if self.bound[root.id] is not None:  # another package's module or object
                self.found.append((node.lineno, f"{root.id}...{name}"))
        elif is_super or isinstance(root, ast.Name) and root.id in ("self", "cls"):
            if any(hasattr(b, name) for b in self.bases[-1]):  # the name of a class it derives from
                self.found.append((node.lineno, f"{ast.unparse(value)}.{name}"))
        elif name not in self.own_names:  # no module or class of ambiglib defines it
            self.found.append((node.lineno, f"{ast.unparse(value)}.{name}"))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self._check(node, node.value, node.attr)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id in BY_NAME and len(node.args) >= 2 \
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            self._check(node, node.args[0], node.args[1].value)
        self.generic_visit(node)


def _own_private_names(trees: dict[Path, ast.Module]) -> set[str]:
    """Underscore names ambiglib defines itself (functions, classes, names bound, attributes set on ``self``), but
    for those a class of another package it derives from has: those are that package's."""
    names: set[str] = set()
    theirs: set[str] = set()
    for tree in trees.values():
        bound = _bindings(tree)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                    and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                names.add(node.attr)
            if isinstance(node, ast.ClassDef):
                theirs |= {n for b in _foreign_bases(node, bound) for n in dir(b)}
    return {n for n in names - theirs if n.startswith("_")}


def private_uses(package: Path) -> list[str]:
    """Every use of another package's underscore name in ``package``: ``path:line: what``."""
    trees = {path: ast.parse(path.read_text(encoding="utf-8"), str(path)) for path in sorted(package.rglob("*.py"))}
    own_names = _own_private_names(trees)
    found = []
    for path, tree in trees.items():
        scan = _Scan(own_names, _bindings(tree))
        scan.visit(tree)
        found += [f"{path.relative_to(package.parent)}:{line}: {what}" for line, what in sorted(scan.found)]
    return found


def test_ambiglib_uses_no_private_name_of_another_package():
    """Each was an extension point by accident: jupyter_client's ``_async_launch_kernel`` (now the Popen arguments
    ``start_kernel`` passes on), ``_async_interrupt_kernel`` and ``_async_cleanup_resources`` (now the report stops
    its kernels by public calls), ``ProcessPoolExecutor._processes`` (now each worker reports its pid),
    ``warnings._filters_mutated`` (now ``catch_warnings``), seaborn's ``_draw_figure`` and ``sys._getframe``."""
    assert private_uses(PACKAGE) == []


@pytest.mark.parametrize("source, expected", [
    ("import warnings\nwarnings._filters_mutated()\n", ["warnings..._filters_mutated"]),
    ("import sys\nsys._getframe(1)\n", ["sys..._getframe"]),
    ("import seaborn.matrix as matrix\nmatrix._draw_figure = None\n", ["matrix..._draw_figure"]),
    ("def f(pool):\n    return getattr(pool, '_processes', {})\n", ["pool._processes"]),
    ("from jupyter_client.manager import AsyncKernelManager\nclass M(AsyncKernelManager):\n"
     "    def __init__(self):\n        self._launch_args = {}\n        self._mine = 1\n"
     "    async def _async_launch_kernel(self, cmd):\n        await super()._async_launch_kernel(cmd)\n",
     ["self._launch_args", "M._async_launch_kernel overrides", "super()._async_launch_kernel"]),
    ("def f(km, frame):\n    return km._ipc_dir, getattr(frame, '_get_column_array', None)\n",
     ["frame._get_column_array", "km._ipc_dir"]),
    # what is allowed: pandas' subclassing hooks, IPython's display hooks, ambiglib's own names
    ("import pandas as pd\nclass F(pd.DataFrame):\n    _metadata = ['x']\n    @property\n"
     "    def _constructor(self):\n        return F\n    def _repr_html_(self):\n        return ''\n", []),
    ("from . import isolation\nclass Mine:\n    def __init__(self):\n        self._kept = 1\n"
     "    def _helper(self):\n        return self._kept, isolation._KEPT\n", []),
])
def test_the_scan_finds_what_it_should_and_nothing_else(tmp_path, source, expected):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "mod.py").write_text(source)
    assert [line.split(": ", 1)[1] for line in private_uses(package)] == expected


# ----------------------------------------------------------------------------- what a kernel is prepared with


def _notebook_imports() -> set[str]:
    """The modules the bundled notebooks' import lines name (``from ambiglib import tables`` names
    ``ambiglib.tables`` when that is a module, else ``ambiglib``)."""
    named: set[str] = set()
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, ast.Import):
                    named |= {alias.name for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module:
                    for alias in node.names:
                        sub = f"{node.module}.{alias.name}"
                        named.add(sub if _is_module(sub) else node.module)
    return named


def _is_module(name: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _imported_on_first_use() -> set[str]:
    """Modules ambiglib imports inside its functions (or by ``OnFirstUse("name")``), not as it is imported."""
    found: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(fn):
                    if isinstance(node, ast.Import):
                        found |= {alias.name for alias in node.names}
                    elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                        found.add(node.module)
            elif isinstance(fn, ast.Call) and isinstance(fn.func, ast.Name) and fn.func.id == "OnFirstUse":
                found.add(fn.args[0].value)
    return found


def test_kernels_are_prepared_with_what_the_notebooks_import_and_no_more():
    """The kept kernel imported ``statsmodels.api`` (~0.6 s of CPU a kernel), which no notebook uses. It imports what
    the notebooks' import lines name, and what ambiglib imports on first use in them."""
    from ambiglib.report import _isolation as isolation

    assert set(isolation.NOTEBOOK_IMPORTS) == _notebook_imports()
    lazy = _imported_on_first_use()
    assert [m for m in isolation.ON_FIRST_USE if m not in lazy] == []
    assert set(isolation.IMPORTS) == set(isolation.NOTEBOOK_IMPORTS) | set(isolation.ON_FIRST_USE)


#: in a fresh interpreter: prepare() as in a kernel, then a notebook that changes the warnings, then restore()
_WARNINGS = """
import json, sys, warnings
import matplotlib
matplotlib.use("Agg")
from ambiglib.report import _isolation as isolation
isolation.prepare()
kept, shown = list(warnings.filters), warnings.showwarning
isolation.restore()
first = warnings.filters == kept and warnings.showwarning is shown
warnings.simplefilter("ignore")
warnings.filterwarnings("error", message="x")
warnings.showwarning = print
isolation.restore()
second = warnings.filters == kept and warnings.showwarning is shown
warnings.filters = [("ignore", None, Warning, None, 0)]  # the list rebound
isolation.restore()
third = warnings.filters == kept and warnings.showwarning is shown
print(json.dumps({"restored": [first, second, third], "statsmodels.api": "statsmodels.api" in sys.modules,
                  "not imported": [m for m in isolation.IMPORTS if m not in sys.modules]}))
"""


def test_restore_puts_the_warnings_back_by_public_means_and_prepare_imports_no_more():
    """Before each notebook the warnings filters and ``showwarning`` are those prepare() found, however the notebook
    before changed them; a prepared process holds every module of IMPORTS, and not ``statsmodels.api``."""
    done = subprocess.run([sys.executable, "-c", _WARNINGS], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {"restored": [True, True, True], "statsmodels.api": False, "not imported": []}


def test_a_report_refused_once_its_workers_started_stops_them_and_their_kernels(tmp_path, monkeypatch):
    """The workers start (and start their kernels) while the report loads the log; a selection the log does not
    have is refused then. Each worker is stopped by the process id it reported (not by the executor's private
    list of its processes), and none is left running, nor any kernel's folder."""
    import multiprocessing
    import tempfile

    from ambiglib.errors import ReportError
    from ambiglib.report import run_report

    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", None)  # the workers' kernels' folders under it
    with pytest.raises(ReportError, match="not in the run log"):
        run_report(ROOT / "data" / "example", tmp_path / "out", parameters={"models": ["no-such-model"]},
                   notebooks=["quickstart"])
    assert multiprocessing.active_children() == []
    assert [p for p in temp.iterdir() if p.name.startswith("ambiglib-kernel-")] == []
    assert not (tmp_path / "out").exists()
