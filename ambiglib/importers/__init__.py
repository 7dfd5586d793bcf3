"""Importers: read what the real harnesses write into the canonical run log.

Each importer is callable directly (``read_hilbench``, ``read_inspect`` ...) and is also a layout
:func:`ambiglib.load` recognises: its module defines a :class:`Reader` (how a folder or file of it is recognised,
read, and a run's conversation read back), registered below in :data:`READERS`. The mapping of each harness's
fields into the run log is in ``docs/importers.md``. Adding an importer: its module, and one line in ``READERS``.

The importers are imported when first named (``ambiglib.importers.read_lhaw``, ``READERS``): a module that needs
one harness's conventions (``importers.hilbench``) does not pay for every harness's reader.
"""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING, Any

from ambiglib.importers._reader import Reader, ReadOptions, TranscriptRead

if TYPE_CHECKING:
    from ambiglib.importers.ambigds import read_ambigds
    from ambiglib.importers.ambigswe import read_ambigswe
    from ambiglib.importers.hilbench import read_hilbench, read_hilbench_registries
    from ambiglib.importers.inspect_logs import read_inspect
    from ambiglib.importers.lhaw import read_lhaw, read_mcp_atlas
    from ambiglib.importers.taubench import read_taubench

__all__ = ["read_ambigds", "read_ambigswe", "read_hilbench", "read_hilbench_registries", "read_lhaw",
           "read_mcp_atlas", "read_inspect", "read_taubench", "READERS", "Reader", "ReadOptions", "transcript_reader"]

#: Every layout ``ambiglib.load`` reads, in the order a folder's layout is decided: the first that claims it wins
#: (a copy ambiglib wrote, then each harness's tree, then the logs that are single files). Built on first use.
READERS: tuple[Reader, ...]


@functools.cache
def _readers() -> tuple[Reader, ...]:
    from ambiglib.importers import ambigds, ambigswe, canonical, hilbench, inspect_logs, lhaw, taubench

    return (
        canonical.SNAPSHOT,
        canonical.STORE,
        canonical.PARQUET,
        lhaw.LHAW_READER,
        hilbench.READER,
        ambigds.READER,
        lhaw.MCP_ATLAS_READER,
        ambigswe.READER,
        inspect_logs.READER,
        taubench.READER,
        canonical.JSONL,
    )


#: each importer function, by the module that defines it
_FUNCTIONS = {"read_ambigds": "ambigds", "read_ambigswe": "ambigswe", "read_hilbench": "hilbench",
              "read_hilbench_registries": "hilbench", "read_lhaw": "lhaw", "read_mcp_atlas": "lhaw",
              "read_inspect": "inspect_logs", "read_taubench": "taubench"}


def __getattr__(name: str) -> Any:
    if name == "READERS":
        value: Any = _readers()
    elif name in _FUNCTIONS:
        value = getattr(importlib.import_module(f".{_FUNCTIONS[name]}", __name__), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def transcript_reader(name: str) -> TranscriptRead:
    """The function that reads a run's conversation back for a ``transcript_at`` naming reader ``name``."""
    for reader in _readers():
        if name in reader.transcripts:
            return reader.transcripts[name]
    raise KeyError(name)
