"""The modules of ambiglib 0.1 that moved when the package was arranged by its flow (issue 73): each old name still
imports, gives the very object the new home holds, and warns naming that home; nothing of ours uses an old name."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from ambiglib import _moved

ROOT = Path(__file__).resolve().parents[1]


def _public(module_name: str) -> list[str]:
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    return list(names) if names is not None else [n for n in vars(module) if not n.startswith("_")]


@pytest.mark.parametrize("old", sorted(_moved.MODULES))
def test_an_old_module_gives_each_name_from_its_new_home_with_a_warning_naming_it(old):
    home, code = _moved.MODULES[old]
    names = _public(code)
    assert names, f"{code} has no public names to check"
    module = importlib.import_module(old)
    public_home = set(getattr(importlib.import_module(home), "__all__", ()))
    for name in names:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = getattr(module, name)
        assert value is getattr(importlib.import_module(code), name), f"{old}.{name}"
        messages = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
        where = f"{home}.{name}" if name in public_home else f"{code}.{name}"
        assert messages and f"{old}.{name} is deprecated: it is {where}" in messages[0], (old, name, messages)
        assert caught[0].filename == __file__  # the warning points at the line that used the old name
    with pytest.raises(AttributeError):
        module.no_such_name  # noqa: B018


def test_an_old_module_named_like_a_function_of_its_package_leaves_the_function_in_place():
    code = """
import warnings
warnings.simplefilter("ignore")
import ambiglib.tables
table = ambiglib.tables.reliability
import ambiglib.tables.reliability
from ambiglib.tables.reliability import reliability
assert ambiglib.tables.reliability is table is reliability, ambiglib.tables.reliability
assert callable(ambiglib.tables.reliability)
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.strip() == "ok", done.stderr


def test_every_public_name_is_itself_after_every_old_module_is_imported():
    faces = {home for home, _ in _moved.MODULES.values()}
    before = {(face, name): getattr(importlib.import_module(face), name)
              for face in faces for name in _public(face)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for old in _moved.MODULES:
            importlib.import_module(old)
    assert [key for key, value in before.items() if getattr(importlib.import_module(key[0]), key[1]) is not value] == []


def test_the_old_names_import_in_every_way_a_user_wrote_them():
    code = """
import warnings
warnings.simplefilter("error")
import ambiglib
try:
    from ambiglib.headline import question_quality
except DeprecationWarning as e:
    assert "ambiglib.answers.question_quality" in str(e), e
else:
    raise SystemExit("no warning")
warnings.simplefilter("ignore")
from ambiglib.headline import question_quality
import ambiglib.answers
assert question_quality is ambiglib.answers.question_quality
import ambiglib.metrics
assert ambiglib.metrics.asking.ask_f1 is ambiglib.metrics.ask_f1
import ambiglib.importers.hilbench.tree as tree
assert tree.__name__ == "ambiglib.importers.hilbench.tree"
assert ambiglib.shapes.SHAPES is ambiglib.tables.SHAPES
assert ambiglib.loading.LAYOUTS is ambiglib.importers.READERS
from ambiglib import text
assert text.visible("a\\x1bb") == ambiglib._text.visible("a\\x1bb")
try:
    ambiglib.no_such_module
except AttributeError:
    pass
else:
    raise SystemExit("ambiglib.no_such_module did not raise")
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.strip() == "ok", done.stderr


def _uses_of_old_names(file: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        modules: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            modules = [node.value]
        found += [f"{file.relative_to(ROOT)}:{node.lineno}: {m}" for m in modules if m in _moved.MODULES]
    return found


def test_nothing_of_ours_uses_an_old_name():
    files = [*ROOT.joinpath("ambiglib").rglob("*.py"), *ROOT.joinpath("tests").rglob("*.py"),
             *ROOT.joinpath("bench").rglob("*.py"), *ROOT.joinpath("scripts").rglob("*.py"),
             *ROOT.joinpath("docs").rglob("*.py")]
    files = [f for f in files if f.name not in ("_moved.py", "test_moved.py")]
    assert len(files) > 100
    assert [use for f in files for use in _uses_of_old_names(f)] == []


def test_the_check_for_old_names_sees_them(tmp_path):
    (tmp_path / "x.py").write_text("from ambiglib import headline\nimport ambiglib.schema\n"
                                   "from ambiglib.metrics import asking\nname = 'ambiglib.text'\n")
    global ROOT
    root, ROOT = ROOT, tmp_path
    try:
        assert [u.split(": ")[1] for u in _uses_of_old_names(tmp_path / "x.py")] == [
            "ambiglib.headline", "ambiglib.schema", "ambiglib.metrics.asking", "ambiglib.text"]
    finally:
        ROOT = root
