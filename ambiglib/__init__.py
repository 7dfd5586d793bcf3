"""ambiglib: analysis toolkit for benchmarks that test whether AI agents ask when a task is ambiguous.

Data flows one way: native harness output → importers → canonical run log →
tidy frames (:class:`RunSet`) → metrics and statistics → tables and plots →
notebooks → report.
"""

from .errors import AmbiglibError, FormatError, LoadError, RunLogNotFoundError, SchemaError
from .importers import read_ambigds, read_hilbench, read_hilbench_registries, read_lhaw
from .loading import load
from .runlog import write_jsonl
from .runset import RunSet

__version__ = "0.1.0"

#: Submodules reachable as attributes (``ambiglib.tables``), imported on first use so that
#: ``import ambiglib`` does not load scipy, statsmodels, matplotlib or seaborn.
_LAZY = ("metrics", "stats", "tables", "plots", "report", "shapes", "comparisons", "harness", "simulate", "cli")


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module 'ambiglib' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])

__all__ = [
    "load",
    "RunSet",
    "write_jsonl",
    "read_ambigds",
    "read_hilbench",
    "read_hilbench_registries",
    "read_lhaw",
    "AmbiglibError",
    "FormatError",
    "SchemaError",
    "RunLogNotFoundError",
    "LoadError",
    "__version__",
]
