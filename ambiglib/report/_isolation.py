"""Inside a report kernel that runs several notebooks one after another: each starts as in a new kernel.

A report worker keeps its kernel for its next notebook of the bundled set (:mod:`ambiglib.report._runner`; any
other notebook, of which nothing can know what it changes, runs in a new kernel of its own, seeded as
:func:`seed` seeds): the kernel's start and the libraries' imports, most of what a report spends beyond its notebooks'
own work, are paid once per worker instead of once per notebook. :func:`prepare` runs once in a new kernel,
before its first notebook: it imports what the bundled notebooks import and every module of ambiglib, and keeps
what a notebook may change (matplotlib's settings, with the inline backend's, NumPy's floating-point error
handling and print options, warnings filters, environment, working folder, ``sys.path``, and what each name of
each ambiglib module is bound to); :func:`restore` runs before every notebook (the first too): it empties the
namespace and the output history, closes figures, puts back what :func:`prepare` kept (an ambiglib module's name
added since is removed), resets pandas' options, seeds Python's and NumPy's global random generators (a
notebook's output then never depends on what ran before it, or on the run), and numbers the next cell 1.
``tests/test_report_kernels.py`` runs a notebook that changes each of these before one that prints them, and
compares with that notebook run alone or in a new kernel.

What :func:`restore` cannot put back: an object changed in place rather than a name bound again (a module-level
dict or list of ambiglib's, such as the results :mod:`ambiglib.runset` and :mod:`ambiglib.stats` keep between
notebooks on purpose, or an attribute of one of its classes), and the module attributes of other libraries
(they bind their own as caches: matplotlib's backend, Pillow's plugins, ipykernel's hooks at each cell). The
bundled notebooks change none of these but through the libraries' own caches; a notebook that is not one of
them never shares its kernel.
"""

from __future__ import annotations

import copy
import gc
import os
import sys
from types import ModuleType
from typing import Any

__all__ = ["prepare", "restore", "seed", "SEED"]

#: the seed of the global random generators at the start of every notebook
SEED = 0
#: what a notebook starts with, kept by :func:`prepare`
_KEPT: dict[str, Any] = {}
#: what the bundled notebooks' import lines name (tests/test_public_apis.py reads them: these and no others)
NOTEBOOK_IMPORTS = ("ambiglib", "ambiglib.comparisons", "ambiglib.answers", "ambiglib.metrics", "ambiglib.plots",
                    "ambiglib.report", "ambiglib.tables", "pandas", "pathlib", "tempfile")
#: what ambiglib imports on first use, in the functions those notebooks call (each such an import of ambiglib's: the
#: same test); their import-time changes (pyplot's backend, statsmodels' warnings filters) are then part of what
#: :func:`restore` puts back
ON_FIRST_USE = ("scipy.stats", "matplotlib.pyplot", "matplotlib.ticker", "seaborn",
                "statsmodels.stats.contingency_tables", "statsmodels.stats.inter_rater", "statsmodels.stats.multitest",
                "statsmodels.stats.proportion", "IPython.display")
#: imported once per kernel, by :func:`prepare`
IMPORTS = NOTEBOOK_IMPORTS + ON_FIRST_USE


def prepare() -> None:
    """In a new kernel: import what the notebooks import (:data:`IMPORTS`), keep what a notebook starts with, and set
    what the imports made apart from the garbage collector's passes (``gc.freeze``): a notebook's own garbage is
    collected as before."""
    import importlib
    import pkgutil
    import warnings

    for name in IMPORTS:
        importlib.import_module(name)
    import matplotlib
    import matplotlib.pyplot  # selects the inline backend, which sets its rc parameters
    import numpy as np

    import ambiglib

    # every module of ambiglib (a little beyond IMPORTS): one a notebook imported first could not be put back
    for found in pkgutil.walk_packages(ambiglib.__path__, "ambiglib.", onerror=lambda name: None):
        if not found.name.endswith(".__main__"):
            try:
                importlib.import_module(found.name)
            except ImportError:  # an optional dependency not installed: no notebook can import it either
                pass
    _KEPT.update(rc=copy.deepcopy(dict(matplotlib.rcParams)), catch_warnings=warnings.catch_warnings, warnings=None,
                 environ=dict(os.environ), cwd=os.getcwd(), path=list(sys.path),
                 numpy=(np.geterr(), np.geterrcall(), np.getbufsize(), np.get_printoptions()),
                 modules=[(module, dict(vars(module))) for name, module in list(sys.modules.items())
                          if isinstance(module, ModuleType) and (name == "ambiglib" or name.startswith("ambiglib."))])
    # what the imports made lives as long as the kernel: collections no longer go through it. IPython's reset
    # (restore, before every notebook) collects garbage; going through all the libraries' objects slowed every
    # notebook, and each full collection while a notebook runs (docs/performance.md)
    gc.collect()
    gc.freeze()


def restore() -> None:
    """Before a notebook: the kernel as :func:`prepare` found it, the namespace empty, random generators seeded."""
    import warnings

    import matplotlib
    import matplotlib.pyplot as plt
    import numpy as np
    import pandas as pd
    from IPython import get_ipython

    shell = get_ipython()
    if shell is not None:  # the namespace, In and Out; a new history session, numbered from 1
        shell.reset(new_session=True)
    plt.close("all")
    matplotlib.rcParams.update(copy.deepcopy(_KEPT["rc"]))
    # the warnings filters and showwarning as prepare() left them: leaving the catch_warnings entered before the
    # last notebook puts back what it found (and tells the warnings machinery the filters changed); the next
    # notebook runs in a new one, on a copy of them
    if _KEPT["warnings"] is not None:
        _KEPT["warnings"].__exit__(None, None, None)
    _KEPT["warnings"] = _KEPT["catch_warnings"]()
    _KEPT["warnings"].__enter__()
    for module in list(sys.modules.values()):  # a warning shown once per place shows again, as in a new kernel
        registry = getattr(module, "__warningregistry__", None)
        if isinstance(registry, dict):
            registry.clear()
    os.environ.clear()
    os.environ.update(_KEPT["environ"])
    os.chdir(_KEPT["cwd"])
    sys.path[:] = _KEPT["path"]
    errors, call, bufsize, printing = _KEPT["numpy"]
    np.seterr(**errors)
    np.seterrcall(call)
    np.setbufsize(bufsize)
    np.set_printoptions(**printing)
    _restore_modules()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pandas warns of deprecated options it resets
        pd.reset_option("all")
    seed()


def seed() -> None:
    """Seed Python's and NumPy's global random generators with :data:`SEED`, in a kept kernel before each notebook
    (the new kernel of a notebook that shares none is seeded alike: ``runner._own_kernel``)."""
    import random

    import numpy as np

    random.seed(SEED)
    np.random.seed(SEED)


def _restore_modules() -> None:
    """Each ambiglib module's names bound as :func:`prepare` found them (``ambiglib.stats.MAX_N_BOOT = 5`` undone),
    and names added since removed, but for submodules (the import system binds them on their parent package)."""
    for module, kept in _KEPT["modules"]:
        now = vars(module)
        for name in [n for n in now if n not in kept and not isinstance(now[n], ModuleType)]:
            del now[name]
        for name, value in kept.items():
            if now.get(name, _UNBOUND) is not value:
                now[name] = value


#: stands for a name not bound in a module
_UNBOUND = object()
