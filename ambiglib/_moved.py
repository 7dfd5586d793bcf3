"""Where the modules of ambiglib 0.1 went when the package was arranged by its flow (issue 73): each old name still
imports, until ambiglib 0.3.0, and each name read through it warns with a ``DeprecationWarning`` naming its new home.

An old module is a stand-in that reads every attribute from the module its code moved to, so ``from ambiglib.schema
import validate_record`` and ``ambiglib.metrics.asking.ask_f1`` keep working and say where to go. Nothing of ambiglib
imports an old name (a test says so).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
from typing import Any

#: The first version without the old names
UNTIL = "0.3.0"

#: Each old module: where its public names are now (a package's public face), and where its code is.
MODULES: dict[str, tuple[str, str]] = {
    "ambiglib.schema": ("ambiglib.runlog", "ambiglib.runlog._schema"),
    "ambiglib.json_schema": ("ambiglib.runlog", "ambiglib.runlog._json_schema"),
    "ambiglib.validity": ("ambiglib.runlog", "ambiglib.runlog._validity"),
    "ambiglib.filters": ("ambiglib.runlog", "ambiglib.runlog._filters"),
    "ambiglib.parquet_log": ("ambiglib.runlog", "ambiglib.runlog._parquet"),
    "ambiglib.parquet_check": ("ambiglib.runlog", "ambiglib.runlog._parquet_check"),
    "ambiglib.whole_writes": ("ambiglib.runlog", "ambiglib.runlog._whole_writes"),
    "ambiglib.frames": ("ambiglib.runlog", "ambiglib.runlog._frames"),
    "ambiglib.snapshot": ("ambiglib.runlog", "ambiglib.runlog._snapshot"),
    "ambiglib.files": ("ambiglib.runlog", "ambiglib.runlog._files"),
    "ambiglib.inflation": ("ambiglib.runlog", "ambiglib.runlog._inflation"),
    "ambiglib.stamps": ("ambiglib.runlog", "ambiglib.runlog._stamps"),
    "ambiglib.memory": ("ambiglib.runlog", "ambiglib.runlog._memory"),
    "ambiglib.discovery": ("ambiglib.loading", "ambiglib.loading._discovery"),
    "ambiglib.merging": ("ambiglib.loading", "ambiglib.loading._merging"),
    "ambiglib.log_labels": ("ambiglib.loading", "ambiglib.loading._labels"),
    "ambiglib.significance": ("ambiglib.stats", "ambiglib.stats._significance"),
    "ambiglib.ratio_intervals": ("ambiglib.stats", "ambiglib.stats._ratio_intervals"),
    "ambiglib.interval_coverage": ("ambiglib.stats", "ambiglib.stats._coverage"),
    "ambiglib.headline": ("ambiglib.answers", "ambiglib.answers._headline"),
    "ambiglib.cards": ("ambiglib.answers", "ambiglib.answers._cards"),
    "ambiglib.answer": ("ambiglib.answers", "ambiglib.answers._notebook"),
    "ambiglib.dialogues": ("ambiglib.evidence", "ambiglib.evidence._dialogues"),
    "ambiglib.shapes": ("ambiglib.tables", "ambiglib.tables._shapes"),
    "ambiglib.markup": ("ambiglib.report", "ambiglib._markup"),
    "ambiglib.text": ("ambiglib.report", "ambiglib._text"),
}
for _package, _names in {"metrics": "asking data harness information labels reliability",
                         "tables": "asking data harness information labels reliability",
                         "report": "applicable bundled folder index isolation opening parameters rendering run runner",
                         "simulate": "constants leaderboard native records",
                         "importers": "ambigds ambigswe canonical inspect_files inspect_logs lhaw taubench hilbench"}.items():
    for _name in _names.split():
        MODULES[f"ambiglib.{_package}.{_name}"] = (f"ambiglib.{_package}", f"ambiglib.{_package}._{_name}")
for _name in ("attribution", "conventions", "logs", "public_metrics", "registries", "summary", "trajectories", "tree"):
    MODULES[f"ambiglib.importers.hilbench.{_name}"] = ("ambiglib.importers", f"ambiglib.importers._hilbench.{_name}")

#: Each public name that moved on its own, from a module that stayed: its old name, and its new one.
NAMES: dict[str, str] = {
    "ambiglib.stats.fleiss_kappa": "ambiglib.agreement.fleiss_kappa",
    "ambiglib.stats.cohen_kappa": "ambiglib.agreement.cohen_kappa",
    "ambiglib.stats.majority_vote": "ambiglib.agreement.majority_vote",
    "ambiglib.loading.LAYOUTS": "ambiglib.importers.READERS",
    "ambiglib.loading.Layout": "ambiglib.importers.Reader",
}


def _warn(old: str, name: str, home: str, code: str, stacklevel: int = 3) -> None:
    public = name in getattr(sys.modules.get(home) or importlib.import_module(home), "__all__", ())
    where = f"{home}.{name}" if public else f"{code}.{name} (internal: it may change without notice)"
    warnings.warn(f"{old}.{name} is deprecated: it is {where}; the old name goes in ambiglib {UNTIL}",
                  DeprecationWarning, stacklevel=stacklevel)


class _OldModule(types.ModuleType):
    """An old module's name: every attribute read from the module its code moved to, with a warning."""

    def __getattr__(self, name: str) -> Any:
        home, code = MODULES[self.__name__]
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(importlib.import_module(code), name)
        _warn(self.__name__, name, home, code)
        return value

    def __dir__(self) -> list[str]:
        return dir(importlib.import_module(MODULES[self.__name__][1]))


class _Guarded(types.ModuleType):
    """A package one of whose old modules has the name of a function it declares (``ambiglib.tables.reliability``,
    the module and the table): importing the old module must not put the stand-in in the function's place, as the
    import system does with every submodule it imports."""

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, _OldModule) and name in self.__dict__ and not isinstance(self.__dict__[name],
                                                                                        types.ModuleType):
            return
        super().__setattr__(name, value)


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the old modules' names (after every other finder has had its turn)."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        return importlib.machinery.ModuleSpec(fullname, self) if fullname in MODULES else None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        parent, _, child = spec.name.rpartition(".")
        package = sys.modules.get(parent)
        if package is not None and type(package) is types.ModuleType and child in vars(package):
            package.__class__ = _Guarded  # (the documented way to customise a module's attributes)
        module = _OldModule(spec.name)
        if any(old.startswith(f"{spec.name}.") for old in MODULES):
            module.__path__ = []  # an old package (importers.hilbench): its old modules are found here too
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run: the stand-in reads from the new module when asked."""


def install() -> None:
    """Put the finder of old names on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.append(_Finder())


def attribute(package: str, name: str, code: str | None = None) -> Any:
    """What a package's ``__getattr__`` gives for a name it no longer holds, with a warning naming the new home: a
    public name that moved on its own (:data:`NAMES`), a module that moved (its stand-in, :data:`MODULES`), or a
    name the module ``package`` had before it became a package, read from ``code`` (where it is now). Anything else
    is an AttributeError, as for any attribute a module lacks."""
    old = f"{package}.{name}"
    if old in NAMES:
        home, _, new = NAMES[old].rpartition(".")
        value = getattr(importlib.import_module(home), new)
        warnings.warn(f"{old} is deprecated: it is {NAMES[old]}; the old name goes in ambiglib {UNTIL}",
                      DeprecationWarning, stacklevel=3)
        return value
    if old in MODULES:
        return importlib.import_module(old)
    if code is not None and not name.startswith("_"):
        try:
            value = getattr(importlib.import_module(code), name)
        except AttributeError:
            pass
        else:
            _warn(package, name, package, code, stacklevel=4)
            return value
    raise AttributeError(f"module {package!r} has no attribute {name!r}")
