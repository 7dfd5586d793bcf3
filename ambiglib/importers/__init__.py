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

from ambiglib import _moved
from ambiglib.importers._reader import Reader, ReadOptions, TranscriptRead

if TYPE_CHECKING:
    from ambiglib.importers._ambigds import read_ambigds
    from ambiglib.importers._ambigswe import read_ambigswe
    from ambiglib.importers._hilbench import read_hilbench, read_hilbench_registries
    from ambiglib.importers._inspect_logs import read_inspect
    from ambiglib.importers._lhaw import read_lhaw, read_mcp_atlas
    from ambiglib.importers._taubench import read_taubench

__all__ = ["read_ambigds", "read_ambigswe", "read_hilbench", "read_hilbench_registries", "read_lhaw",
           "read_mcp_atlas", "read_inspect", "read_taubench", "READERS", "Reader", "ReadOptions", "transcript_reader"]

#: Every layout ``ambiglib.load`` reads, in the order a folder's layout is decided: the first that claims it wins
#: (a copy ambiglib wrote, then each harness's tree, then the logs that are single files). Built on first use.
READERS: tuple[Reader, ...]


@functools.cache
def _readers() -> tuple[Reader, ...]:
    from ambiglib.importers import _ambigds as ambigds
    from ambiglib.importers import _ambigswe as ambigswe
    from ambiglib.importers import _canonical as canonical
    from ambiglib.importers import _hilbench as hilbench
    from ambiglib.importers import _inspect_logs as inspect_logs
    from ambiglib.importers import _lhaw as lhaw
    from ambiglib.importers import _taubench as taubench

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
_FUNCTIONS = {"read_ambigds": "_ambigds", "read_ambigswe": "_ambigswe", "read_hilbench": "_hilbench",
              "read_hilbench_registries": "_hilbench", "read_lhaw": "_lhaw", "read_mcp_atlas": "_lhaw",
              "read_inspect": "_inspect_logs", "read_taubench": "_taubench"}


def __getattr__(name: str) -> Any:
    if name == "READERS":
        value: Any = _readers()
    elif name in _FUNCTIONS:
        value = getattr(importlib.import_module(f".{_FUNCTIONS[name]}", __name__), name)
    else:
        return _moved.attribute(__name__, name)  # ``importers.lhaw`` and the other modules that became private
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
