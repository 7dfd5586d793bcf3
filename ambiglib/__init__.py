"""ambiglib: analysis toolkit for benchmarks that test whether AI agents ask when a task is ambiguous.

Data flows one way: native harness output → importers → canonical run log →
tidy frames (:class:`RunSet`) → metrics and statistics → tables and plots →
notebooks → report.
"""

from .errors import AmbiglibError, FormatError, LoadError, RunLogNotFoundError, SchemaError
from .loading import load
from .runlog import write_jsonl
from .runset import RunSet

__version__ = "0.1.0"

__all__ = [
    "load",
    "RunSet",
    "write_jsonl",
    "AmbiglibError",
    "FormatError",
    "SchemaError",
    "RunLogNotFoundError",
    "LoadError",
    "__version__",
]
