"""The house a newcomer can live in (issue 26): no import circle inside the package, deferred imports
included; no module importing one above it in the pipeline; no module with more than 15 public functions and
classes. An AST walk of the source, not a timed test. (The 600-line limit is retired, issue 55: modules are
split by concept, never to fit a count.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "ambiglib"
MAX_PUBLIC = 15

#: The layers, from the bottom: a module may import its own layer and those below, never one above.
#: Data flows importers -> canonical run log -> frames -> metrics -> tables -> comparisons -> plots ->
#: report -> cli; code depends the other way, each stage on the contract and the stages before it.
LAYERS = [
    # what every module may raise, open, allocate or compute with: the statistics are on plain arrays and frames,
    # knowing nothing of run logs, so the importers may take a majority vote as the harnesses do
    {"errors", "_lazy", "_moved", "_markup", "_text", "stats", "agreement",
     "runlog._files", "runlog._memory", "runlog._inflation", "runlog._stamps"},
    {"runlog._schema", "runlog._json_schema", "runlog._validity", "runlog._filters"},  # the contract, checked
    {"runlog._jsonl", "runlog._parquet", "runlog._whole_writes"},                      # reading and writing it, whole
    {"runlog._frames", "runlog._snapshot", "runlog._parquet_check", "runlog",          # the five frames; the run set;
     "runset", "loading._labels", "loading._merging"},                                 # which log a run is of; merged
    {"importers"},                                                                     # each harness's own output
    {"loading._load", "loading._discovery", "loading", "transcripts"},                 # ambiglib.load and its walk;
                                                                                       # a run's conversation
    {"tables._shapes", "metrics", "evidence"},                                         # what a log can show; the
                                                                                       # numbers; their runs
    {"tables", "engines"},                                                             # paper-shaped tables; the
                                                                                       # metrics on an engine
    {"comparisons"},                                                                   # paired comparisons
    {"ranking"},                                                                       # many agents ranked
    {"answers._headline", "answers._cards"},                                           # the four questions; shown
    {"plots"},                                                                         # figures of tables
    {"answers._notebook", "answers"},                                                  # as notebook objects
    {"report"},                                                                        # the notebooks' report
    {"simulate"},                                                                      # example data
    {"cli", "__main__", "__init__"},                                                   # the command line; the package
]

#: The packages whose modules sit in different layers: a module of these is placed by its own name
#: (``runlog._schema``), every other module by its top-level package (``metrics``).
SPLIT = ("runlog", "loading", "answers", "tables._shapes")


#: The calls down a layer, each named with its reason: a RunSet's methods (``rs.asking()``, ``rs.transcript(id)``)
#: are defined on the class, where an editor and a type checker see them, and hand their work at the call to the
#: modules that answer them. These imports are inside the methods (or for types only), never at import time, so they
#: make no circle when the package is imported; the tests below check that they stay so.
DELEGATED = {("ambiglib.runset", "ambiglib.answers._notebook"): "the four questions and the ranking, as RunSet methods",
             ("ambiglib.runset", "ambiglib.transcripts"): "a run's turns (rs.transcript), and writing them"}


def _modules() -> dict[str, Path]:
    out = {}
    for file in sorted(PACKAGE.rglob("*.py")):
        parts = file.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = file
    return out


def _imports(name: str, file: Path, modules: dict[str, Path]) -> set[str]:
    """Every module of the package ``name`` imports, at the top or inside a function."""
    package = name if file.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:  # "from . import metrics" imports a module; "from .x import y" module x
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in modules else target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m in modules and m != name}


def _place(name: str) -> str:
    """The name a module is placed by in LAYERS: ``runlog._schema``, ``tables._shapes``, ``metrics``, ``__init__``."""
    parts = name.split(".")[1:] or ["__init__"]
    two = ".".join(parts[:2])
    return two if two in SPLIT or (parts[0] in SPLIT and len(parts) > 1) else parts[0]


def _layer(name: str) -> int:
    return next(i for i, layer in enumerate(LAYERS) if _place(name) in layer)


def test_every_module_has_a_layer():
    unplaced = [name for name in _modules() if not any(_place(name) in layer for layer in LAYERS)]
    assert unplaced == [], f"add these to LAYERS: {unplaced}"


def _at_import(file: Path) -> set[str]:
    """The modules a file imports when it is imported: at its top level, outside ``if TYPE_CHECKING:``."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return  # runs when called
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return  # for type checkers only
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "ambiglib":
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(file.read_text(encoding="utf-8")))
    return found


def test_the_calls_down_a_layer_are_made_only_when_called():
    modules = _modules()
    for (name, target), why in DELEGATED.items():
        assert target in _imports(name, modules[name], modules), f"{name} no longer calls {target}: drop it ({why})"
        assert target not in _at_import(modules[name]), f"{name} imports {target} at import time ({why})"
    # and a run set's methods are on the class as soon as it is imported, with nothing else imported
    import subprocess
    import sys

    code = ("import sys; from ambiglib.runset import RunSet; "
            "print(all(m in dir(RunSet) for m in ('asking', 'question_quality', 'payoff', 'compare', 'rank',"
            " 'transcript')), 'ambiglib.answers' in sys.modules, 'ambiglib.transcripts' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.split() == ["True", "False", "False"], done.stderr


def test_no_class_of_ours_is_patched_from_outside():
    # no setattr on a class, no assignment to one of its attributes from another module
    patched = []
    for name, file in _modules().items():
        tree = ast.parse(file.read_text(encoding="utf-8"))
        classes = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "setattr" and node.args \
                    and isinstance(node.args[0], ast.Name) and node.args[0].id[:1].isupper():
                patched.append(f"{name}: {ast.unparse(node)}")
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                            and target.value.id[:1].isupper() and target.value.id not in classes:
                        patched.append(f"{name}: {ast.unparse(target)} =")
    assert patched == []


def test_no_import_circle_inside_the_package_deferred_imports_included():
    modules = _modules()
    graph = {name: _imports(name, file, modules) - {t for (n, t) in DELEGATED if n == name}
             for name, file in modules.items()}
    # a package's __init__ may import its own modules; a module importing its package's __init__ back is a circle
    cycles, state, stack = [], {}, []

    def visit(node: str) -> None:
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name)
    assert cycles == [], "import circles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_no_module_imports_one_above_it_in_the_pipeline():
    modules = _modules()
    upward = []
    for name, file in modules.items():
        if name == "ambiglib":
            continue  # the package re-exports on first use (__getattr__), by name, importing nothing up front
        for target in _imports(name, file, modules):
            if target != "ambiglib" and _layer(target) > _layer(name) and (name, target) not in DELEGATED:
                upward.append(f"{name} imports {target}")
    assert upward == []


def _python_files() -> list[Path]:
    return sorted([*PACKAGE.rglob("*.py"), *(ROOT / "scripts").rglob("*.py"), *(ROOT / "bench").rglob("*.py")])


@pytest.mark.parametrize("file", _python_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_has_over_15_public_names(file):
    text = file.read_text(encoding="utf-8")
    public = [node.name for node in ast.parse(text).body
              if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not node.name.startswith("_")]
    assert len(public) <= MAX_PUBLIC, f"{file.relative_to(ROOT)}: {len(public)} public names: {public}"


def test_the_checks_see_what_they_are_for(tmp_path):
    """The walk finds a deferred import and a circle through it, and counts lines and public names."""
    modules = {"ambiglib.a": tmp_path / "a.py", "ambiglib.b": tmp_path / "b.py"}
    modules["ambiglib.a"].write_text("from .b import x\n")
    modules["ambiglib.b"].write_text("def f():\n    from . import a\n    return a\n")
    assert _imports("ambiglib.a", modules["ambiglib.a"], modules) == {"ambiglib.b"}
    assert _imports("ambiglib.b", modules["ambiglib.b"], modules) == {"ambiglib.a"}
    assert _layer("ambiglib.tables._asking") > _layer("ambiglib.metrics._asking") > _layer("ambiglib.runset")


def _private_members_of_runset() -> set[str]:
    """RunSet's private methods and attributes (``_name``, not dunder), as runset.py defines and sets them."""
    tree = ast.parse((PACKAGE / "runset.py").read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "RunSet")
    names = set()
    for node in ast.walk(cls):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            names.add(node.attr)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {n for n in names if n.startswith("_") and not n.startswith("__") and not n.endswith("_")}  # (not _repr_html_)


def test_no_module_outside_runset_touches_a_private_member_of_a_run_set():
    # the caches and links are reached through RunSet's documented interface (memo, with_runs, run_positions...)
    private = _private_members_of_runset()
    assert {"_cache", "_subset"} <= private  # (the walk finds them)
    touched = []
    for name, file in _modules().items():
        if name == "ambiglib.runset":
            continue
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in private and not (
                    isinstance(node.value, ast.Name) and node.value.id == "self"):
                touched.append(f"{name}:{node.lineno}: {ast.unparse(node)}")
            if isinstance(node, ast.ImportFrom) and node.module and node.module.endswith("runset"):
                touched += [f"{name}:{node.lineno}: imports {a.name}" for a in node.names if a.name.startswith("_")]
    assert touched == []


def test_nothing_is_rewrapped_at_import_a_table_is_one_function_in_its_module_and_in_the_package():
    import importlib

    from ambiglib import tables

    checked = 0
    for name in tables.__all__:
        fn = getattr(tables, name)
        module = getattr(fn, "__module__", "")
        if callable(fn) and module.startswith("ambiglib.tables."):
            assert getattr(importlib.import_module(module), name) is fn, name
            assert fn.__wrapped__.__name__ == name  # (@as_table: every call returns a Table)
            checked += 1
    assert checked == 33


def test_every_package_folder_is_in_the_wheel():
    """setuptools installs only the packages pyproject.toml lists: a subpackage missing there is missing from an
    installed ambiglib, which a checkout (its editable install, a stale build/) does not show."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    folders = {".".join(init.parent.relative_to(ROOT).parts) for init in PACKAGE.rglob("__init__.py")}
    assert folders - listed == set(), f"add to [tool.setuptools] packages: {sorted(folders - listed)}"
