"""Importers: read what the real harnesses write into the canonical run log.

Each importer is callable directly (``read_hilbench``, ``read_inspect`` ...) and is also a layout
:func:`ambiglib.load` recognises: its module defines a :class:`Reader` (how a folder or file of it is recognised,
read, and a run's conversation read back), registered below in :data:`READERS`. The mapping of each harness's
fields into the run log is in ``docs/importers.md``. Adding an importer: its module, and one line in ``READERS``.
"""

from . import ambigds, ambigswe, canonical, hilbench, inspect_logs, lhaw, taubench
from ._reader import Reader, ReadOptions, TranscriptRead
from .ambigds import read_ambigds
from .ambigswe import read_ambigswe
from .hilbench import read_hilbench, read_hilbench_registries
from .inspect_logs import read_inspect
from .lhaw import read_lhaw, read_mcp_atlas
from .taubench import read_taubench

__all__ = ["read_ambigds", "read_ambigswe", "read_hilbench", "read_hilbench_registries", "read_lhaw",
           "read_mcp_atlas", "read_inspect", "read_taubench", "READERS", "Reader", "ReadOptions", "transcript_reader"]

#: Every layout ``ambiglib.load`` reads, in the order a folder's layout is decided: the first that claims it wins
#: (a copy ambiglib wrote, then each harness's tree, then the logs that are single files).
READERS: tuple[Reader, ...] = (
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


def transcript_reader(name: str) -> TranscriptRead:
    """The function that reads a run's conversation back for a ``transcript_at`` naming reader ``name``."""
    for reader in READERS:
        if name in reader.transcripts:
            return reader.transcripts[name]
    raise KeyError(name)
