"""Every package ambiglib imports is declared in pyproject.toml with a lower and an upper bound (issue 59), so
that ``pip install .`` on a fresh machine resolves them from pyproject.toml alone: an AST walk of the package's
imports (deferred ones included) against the declared requirements, mapped by the installed distributions."""

from __future__ import annotations

import ast
import importlib.metadata
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "ambiglib"

#: modules that belong to an optional feature: the packages of that extra may be imported there and only there
EXTRA_MODULES = {"inspect": {"ambiglib/importers/_inspect_files.py", "ambiglib/importers/_inspect_logs.py"},
                 "engines": {"ambiglib/engines/_duckdb.py"}, "spark": {"ambiglib/engines/_spark.py"}}


def _imports(file: Path) -> set[str]:
    """The top-level names of the packages ``file`` imports, at the top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
    return found - set(sys.stdlib_module_names) - {"ambiglib", "__future__"}


def _declared() -> dict[str | None, dict[str, Requirement]]:
    """The requirements of pyproject.toml by extra (``None``: the required ones), keyed by canonical name."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    out: dict[str | None, dict[str, Requirement]] = {None: {}}
    for extra, lines in [(None, project["dependencies"]), *project["optional-dependencies"].items()]:
        out.setdefault(extra, {})
        for line in lines:
            req = Requirement(line)
            out[extra][canonicalize_name(req.name)] = req
    return out


def _distributions(name: str) -> list[str]:
    return [canonicalize_name(d) for d in importlib.metadata.packages_distributions().get(name, [])]


def _imported() -> dict[str, set[str]]:
    """Each imported top-level package name, with the package files that import it."""
    out: dict[str, set[str]] = {}
    for file in sorted(PACKAGE.rglob("*.py")):
        for name in _imports(file):
            out.setdefault(name, set()).add(str(file.relative_to(ROOT)))
    return out


def _bounded(req: Requirement) -> bool:
    """A lower bound (``>=``) and an upper bound on the major version (``<``)."""
    ops = {spec.operator for spec in req.specifier}
    return ">=" in ops and "<" in ops


def test_every_imported_package_is_declared_where_its_feature_is():
    declared = _declared()
    problems = []
    for name, files in sorted(_imported().items()):
        dists = _distributions(name)
        if not dists:
            problems.append(f"{name} (imported by {sorted(files)}) is not installed: no distribution provides it")
            continue
        dist = dists[0]
        if dist in declared[None]:
            continue
        extras = [extra for extra, reqs in declared.items() if extra and dist in reqs and extra in EXTRA_MODULES]
        if not extras:
            problems.append(f"{name} ({dist}) is imported by {sorted(files)} but not declared in pyproject.toml")
            continue
        outside = sorted(files - set().union(*(EXTRA_MODULES[e] for e in extras)))
        if outside:
            problems.append(f"{name} belongs to the extra {extras} but is imported by {outside}")
    assert not problems, "\n".join(problems)


def test_every_declared_package_has_a_lower_and_an_upper_bound():
    unbounded = [f"{extra or 'required'}: {req}" for extra, reqs in _declared().items() for req in reqs.values()
                 if canonicalize_name(req.name) not in {"setuptools", "wheel", "ambiglib"} and not _bounded(req)]
    assert not unbounded, unbounded


@pytest.mark.parametrize("dist", sorted(_declared()[None]))
def test_the_installed_version_of_each_requirement_is_inside_its_bounds(dist):
    """The bounds admit what the tests run with, so they are bounds that have been tried."""
    req = _declared()[None][dist]
    version = importlib.metadata.version(req.name)
    assert req.specifier.contains(version, prereleases=True), f"{req} excludes the installed {version}"


def test_environment_yml_names_every_required_package():
    """Conda users get the same required set, and the test extra `make test` runs with (environment.yml names
    conda-forge packages; inspect-ai and zipfile-zstd come from pip)."""
    text = (ROOT / "environment.yml").read_text(encoding="utf-8").lower()
    conda = {"pyyaml": "pyyaml", "jupyter-client": "jupyter_client", "jupyter-core": "jupyter_core",
             "duckdb": "python-duckdb"}
    declared = _declared()
    wanted = [*declared[None], *(d for d in declared["test"] if d != "ambiglib")]
    missing = [d for d in wanted if f"- {conda.get(d, d)}" not in text.replace("_", "-")
               and f"- {conda.get(d, d)}" not in text]
    assert not missing, missing


def test_the_scan_sees_deferred_imports_and_the_missing_declaration(tmp_path):
    """The walk finds an import inside a function, and an undeclared package is named."""
    file = tmp_path / "m.py"
    file.write_text("import os\n\ndef f():\n    from jinja2 import Template\n    import numpy.linalg\n")
    assert _imports(file) == {"jinja2", "numpy"}
    assert _distributions("jinja2") == ["jinja2"]
    assert not _bounded(Requirement("numpy>=1.26")) and _bounded(Requirement("numpy>=1.26,<3"))
