"""Modules imported when first touched.

scipy.stats, matplotlib.pyplot and seaborn (which loads scipy.stats) each cost more than
pandas and pyarrow together. A notebook that imports ``ambiglib.stats`` or ``ambiglib.plots``
but tests or draws nothing, or does so late, should not pay for them up front
(docs/performance.md, "Importing ambiglib").
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

__all__ = ["OnFirstUse"]


class OnFirstUse:
    """Stands for module ``name`` and imports it at the first attribute looked up on it:
    ``sps = OnFirstUse("scipy.stats")``, then ``sps.wilcoxon(...)`` as with the module."""

    def __init__(self, name: str):
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attr)
