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
