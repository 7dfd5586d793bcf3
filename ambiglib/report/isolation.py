"""Inside a report kernel that runs several notebooks one after another: each starts as in a new kernel.

A report worker keeps its kernel for its next notebook (:mod:`ambiglib.report.runner`): the kernel's start
and the libraries' imports, most of what a report spends beyond its notebooks' own work, are paid once
per worker instead of once per notebook. :func:`prepare` runs once in a new kernel, before its first
notebook: it imports what the bundled notebooks import and keeps what a notebook may change (matplotlib's
settings, with the inline backend's, warnings filters, environment, working folder, ``sys.path``);
:func:`restore` runs before every notebook (the first too): it empties the namespace and the output
history, closes figures, puts back what :func:`prepare` kept, resets pandas' options, seeds Python's and
NumPy's global random generators (a notebook's output then never depends on what ran before it, or on the
run), and numbers the next cell 1. ``tests/test_report_kernels.py`` runs a notebook that changes each of
these before one that prints them, and compares with that notebook run alone.
"""

from __future__ import annotations

import copy
import gc
import os
import sys
from typing import Any

__all__ = ["prepare", "restore", "SEED"]

#: the seed of the global random generators at the start of every notebook
SEED = 0
#: what a notebook starts with, kept by :func:`prepare`
_KEPT: dict[str, Any] = {}
#: what the bundled notebooks import (directly or on first use): imported once per kernel
IMPORTS = ("numpy", "pandas", "pyarrow", "scipy.stats", "statsmodels.api", "matplotlib.pyplot", "seaborn",
           "ambiglib", "ambiglib.tables", "ambiglib.plots", "ambiglib.metrics", "ambiglib.comparisons",
           "ambiglib.report", "ambiglib.stats", "ambiglib.loading", "ambiglib.snapshot", "IPython.display")


def prepare() -> None:
    """In a new kernel: import the libraries, keep what a notebook starts with, and set what the imports made
    apart from the garbage collector's passes (``gc.freeze``): a notebook's own garbage is collected as before."""
    import importlib
    import warnings

    for name in IMPORTS:
        importlib.import_module(name)
    import matplotlib
    import matplotlib.pyplot  # noqa: F401 — selects the inline backend, which sets its rc parameters

    _KEPT.update(rc=copy.deepcopy(dict(matplotlib.rcParams)), warnings=list(warnings.filters),
                 environ=dict(os.environ), cwd=os.getcwd(), path=list(sys.path))
    # what the imports made lives as long as the kernel: collections no longer go through it. IPython's reset
    # (restore, before every notebook) collects garbage; going through the libraries' ~190,000 objects took
    # ~0.1 s a notebook, and as long in each full collection while a notebook runs
    gc.collect()
    gc.freeze()


def restore() -> None:
    """Before a notebook: the kernel as :func:`prepare` found it, the namespace empty, random generators seeded."""
    import random
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
    warnings.filters[:] = _KEPT["warnings"]
    warnings._filters_mutated()  # (what warnings' own functions call when they change the filters)
    for module in list(sys.modules.values()):  # a warning shown once per place shows again, as in a new kernel
        registry = getattr(module, "__warningregistry__", None)
        if isinstance(registry, dict):
            registry.clear()
    os.environ.clear()
    os.environ.update(_KEPT["environ"])
    os.chdir(_KEPT["cwd"])
    sys.path[:] = _KEPT["path"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pandas warns of deprecated options it resets
        pd.reset_option("all")
    random.seed(SEED)
    np.random.seed(SEED)
