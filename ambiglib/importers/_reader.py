"""What ``ambiglib.load`` needs of a layout it reads: one :class:`Reader` per layout, defined beside its importer."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ambiglib.errors import LoadError
    from ambiglib.runlog._jsonl import Engine
    from ambiglib.runset import RunSet

__all__ = ["Reader", "Read", "TranscriptRead", "ReadOptions"]

#: A layout's read of one path: its run set and, leniently, the records it rejected.
Read = Callable[..., "tuple[RunSet, list[LoadError]]"]
#: A layout's read of one run's conversation from its locator (``transcript_at``) and the run's row: the run-log
#: ``transcript`` (``covers``, ``turns``, ``note``), or None when the file holds none.
TranscriptRead = Callable[[dict[str, Any], dict[str, Any]], "dict[str, Any] | None"]


@dataclass(frozen=True)
class ReadOptions:
    """What a load passes every reader: ``quiet`` (no progress bar), the JSON Lines ``engine``, ``filters`` (the
    normalised filter, which a partitioned store reads only the partitions of) and ``inspect`` (how Inspect AI logs
    map to runs: ask_tools, scorer, label_facets, benchmark). A reader takes what concerns it."""

    quiet: bool = False
    engine: Engine = "auto"
    filters: Any = None
    inspect: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)  # each reader is itself: compared and hashed by identity
class Reader:
    """One layout ``ambiglib.load`` recognises.

    ``claims(folder)``: the folder is the root of a log of this layout, when the load's walk reaches it (a
    reader of single files has none). ``is_file(path)``: the file is one of this layout's logs wherever it lies
    (Inspect, τ-bench, canonical JSON Lines); such files are read together, as one unit. ``detect(path)``: the
    path given to ``load`` is a log of this layout (default: ``claims``). ``read(path, options, files=None)``
    reads it (``files``: the units the walk found, for readers of single files). ``transcripts``: each
    ``transcript_at`` reader name this layout writes, with the function that reads a run's conversation back.
    ``consumes``: layouts whose trees inside this one's are this reader's to read. ``copy_of``: for a copy
    ambiglib wrote, the file of its runs and of its tasks, which errors name rows by."""

    name: str
    description: str
    read: Read
    claims: Callable[[Path], bool] | None = None
    is_file: Callable[[Path], bool] | None = None
    detect: Callable[[Path], bool] | None = None
    transcripts: Mapping[str, TranscriptRead] = field(default_factory=dict)
    consumes: Sequence[str] = ()
    copy_of: tuple[str, str] | None = None

    def recognises(self, path: Path) -> bool:
        """Whether ``path``, given to ``load`` itself, is a log of this layout."""
        test = self.detect or self.claims
        return test is not None and test(path)
