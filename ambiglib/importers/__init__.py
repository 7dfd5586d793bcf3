"""Importers: read what the real harnesses write into the canonical run log.

Each importer is callable directly and is also a layout :func:`ambiglib.load`
recognises. The mapping of each harness's fields into the run log is in
``docs/importers.md``.
"""

from .ambigds import read_ambigds
from .hilbench import read_hilbench, read_hilbench_registries
from .inspect_logs import read_inspect
from .lhaw import read_lhaw, read_mcp_atlas
from .taubench import read_taubench

__all__ = ["read_ambigds", "read_hilbench", "read_hilbench_registries", "read_lhaw", "read_mcp_atlas", "read_inspect",
           "read_taubench"]
