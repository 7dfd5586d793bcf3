"""ambiglib: analysis toolkit for benchmarks that test whether AI agents ask when a task is ambiguous.

Data flows one way, and the packages follow it: logs in (``importers``: each harness's own output; ``runlog``: the
canonical run log and its files; ``loading``: :func:`load`) → the run set (``runset``: the five tidy frames,
:class:`RunSet`; ``transcripts``) → measures and statistics (``metrics``, ``stats``, ``agreement``, ``comparisons``,
``ranking``; ``engines``: the pooled metrics of a store computed by DuckDB or Spark) → the four answers and their evidence (``answers``, ``evidence``) → the outputs (``tables``, ``plots``,
``report``: the notebooks run and written to one folder). A module whose name starts with ``_`` is internal.

``import ambiglib`` is light: the names below and the submodules are imported when first used
(``ambiglib.load``, ``ambiglib.tables``), so that the command line can take Ctrl-C from its first
line and ``import ambiglib`` does not load pandas, scipy, statsmodels, matplotlib or seaborn.
"""

from ambiglib import _moved
from ambiglib.errors import AmbiglibError, FormatError, LoadError, RunLogNotFoundError, SchemaError

__version__ = "0.1.0"

_moved.install()  # the modules of 0.1 that moved (ambiglib.headline ...) still import, with a warning

#: Names of the package, from the module that defines them, imported on first use.
_NAMES = {"load": "loading", "RunSet": "runset", "write_jsonl": "runlog", "read_ambigds": "importers",
          "read_hilbench": "importers", "read_hilbench_registries": "importers", "read_lhaw": "importers",
          "read_mcp_atlas": "importers", "read_inspect": "importers", "read_taubench": "importers",
          "read_ambigswe": "importers"}
#: The package's parts, in the order data flows through them, reachable as attributes (``ambiglib.tables``) and
#: imported on first use: logs in; the run set; measures and statistics; the four answers and their evidence;
#: the outputs; the command line and the example data.
_LAZY = ("importers", "runlog", "loading", "runset", "transcripts", "metrics", "stats", "agreement", "comparisons",
         "ranking", "engines", "answers", "evidence", "tables", "plots", "report", "cli", "simulate")


def __getattr__(name: str):
    import importlib

    if name in _NAMES:
        value = getattr(importlib.import_module(f"ambiglib.{_NAMES[name]}"), name)
    elif name in _LAZY:
        value = importlib.import_module(f"ambiglib.{name}")
    else:
        return _moved.attribute(__name__, name)  # a module of 0.1 that moved (ambiglib.headline): its stand-in
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_NAMES, *_LAZY])


__all__ = [
    "load",
    "RunSet",
    "write_jsonl",
    "read_ambigds",
    "read_hilbench",
    "read_hilbench_registries",
    "read_lhaw",
    "read_mcp_atlas",
    "read_inspect",
    "read_taubench",
    "read_ambigswe",
    "AmbiglibError",
    "FormatError",
    "SchemaError",
    "RunLogNotFoundError",
    "LoadError",
    "__version__",
]
