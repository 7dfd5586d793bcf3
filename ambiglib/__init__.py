"""ambiglib: analysis toolkit for benchmarks that test whether AI agents ask when a task is ambiguous.

Data flows one way: native harness output → importers → canonical run log →
tidy frames (:class:`RunSet`) → metrics and statistics → tables and plots →
notebooks → report.

``import ambiglib`` is light: the names below and the submodules are imported when first used
(``ambiglib.load``, ``ambiglib.tables``), so that the command line can take Ctrl-C from its first
line and ``import ambiglib`` does not load pandas, scipy, statsmodels, matplotlib or seaborn.
"""

from ambiglib.errors import AmbiglibError, FormatError, LoadError, RunLogNotFoundError, SchemaError

__version__ = "0.1.0"

#: Names of the package, from the module that defines them, imported on first use.
_NAMES = {"load": "loading", "RunSet": "runset", "write_jsonl": "runlog", "read_ambigds": "importers",
          "read_hilbench": "importers", "read_hilbench_registries": "importers", "read_lhaw": "importers",
          "read_mcp_atlas": "importers", "read_inspect": "importers", "read_taubench": "importers",
          "read_ambigswe": "importers"}
#: Submodules reachable as attributes (``ambiglib.tables``), imported on first use.
_LAZY = ("metrics", "stats", "agreement", "tables", "plots", "report", "shapes", "comparisons", "headline", "answer",
         "transcripts", "simulate", "cli")


def __getattr__(name: str):
    import importlib

    if name in _NAMES:
        value = getattr(importlib.import_module(f".{_NAMES[name]}", __name__), name)
        if name != "write_jsonl":  # a run set's four questions, rs.asking() and the others (ambiglib.answer),
            importlib.import_module(".answer", __name__)  # and its runs' conversations (ambiglib.transcripts)
            importlib.import_module(".transcripts", __name__)
    elif name in _LAZY:
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module 'ambiglib' has no attribute {name!r}")
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
