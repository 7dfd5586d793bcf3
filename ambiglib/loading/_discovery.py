"""Which run logs a folder holds: the load's walk, asking each reader (``importers.READERS``) what it claims."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ambiglib.importers import READERS, Reader
from ambiglib.importers._canonical import JSONL
from ambiglib.loading._merging import Origin
from ambiglib.runlog._files import is_dir, is_file, listdir, unreadable, walk
from ambiglib.runlog._jsonl import is_jsonl, looks_canonical
from ambiglib.runlog._whole_writes import leftover

__all__ = ["Found", "find_logs"]

#: the readers that claim folders (with how), in the order a folder's layout is decided (the first that claims it wins)
_CLAIMING = tuple((reader, reader.claims) for reader in READERS if reader.claims is not None)
#: the readers of logs that are single files wherever they lie, besides canonical JSON Lines (which the walk reads
#: by its own rule: see :func:`find_logs`)
_FILES = tuple((reader, reader.is_file) for reader in READERS if reader.is_file is not None and reader is not JSONL)


@dataclass
class Found:
    """What a folder holds: ``units``, each log as ``(reader, path)`` (a folder of a harness's tree or a copy, or
    one file of a layout whose logs are files); and what is not read, each counted by ``load``: ``strays`` (files no
    reader reads, outside every log's folder), ``repeats`` (a file's second names, ``(link, name read)``) and
    ``writes`` (folders a write of a log's folder leaves beside it while it runs or when killed); and ``blocked``,
    each file and folder this user cannot read, with why (``files.unreadable``), which ``load`` names. ``origin``:
    for a copy ambiglib wrote (a snapshot, a store, a Parquet folder), its files of runs and tasks and its folder,
    by which a merge's errors name its rows (:data:`ambiglib.loading.Origin`)."""

    units: list[tuple[Reader, Path]] = field(default_factory=list)
    strays: list[Path] = field(default_factory=list)
    repeats: list[tuple[Path, Path]] = field(default_factory=list)
    writes: list[Path] = field(default_factory=list)
    blocked: list[tuple[Path, str]] = field(default_factory=list)
    origin: Origin = None


def _claim(folder: Path) -> Reader | None:
    try:
        return next((reader for reader, claims in _CLAIMING if claims(folder)), None)
    except OSError:  # a folder this user cannot look into: named by load's walk (files.unreadable)
        return None


def find_logs(root: Path, *, logs: bool = True) -> Found:
    """What this user cannot read under ``root`` (a folder or a file) and, in a folder, every run log (unless
    ``logs`` is False: a store is read as a whole): each native tree or Parquet folder the walk meets, each file
    of a layout whose logs are files (Inspect, τ-bench), and each canonical ``.jsonl`` outside them. Inside a log's
    folder, the walk looks on for logs of another layout (an Ambig-DS results tree inside a HIL-Bench run folder is
    loaded by its own importer, not ignored without a word; an LHAW manifest's MCP-Atlas trees are the manifest's:
    ``Reader.consumes``); a ``.jsonl`` there is the harness's own unless its first record is a canonical one (a run
    log kept in a harness's folder is loaded too). Linked folders are followed, each once; a folder this user cannot list is looked past here
    and named by ``load``."""
    found = Found()
    if not root.is_dir():
        found.blocked = unreadable(root)
        return found
    # each file under one name (files.walk): its second names are no units; what cannot be read is named (the walk
    # first: the folders it lists are not listed again by the readers' claims)
    found.blocked = [(path, why) for path, why in walk(root, found.repeats if logs else []) if why is not None]
    root_claim = _claim(root)  # (asked once: the walk below starts at the root)
    found.origin = (root_claim.copy_of, root) if root_claim is not None and root_claim.copy_of else None
    if not logs:
        return found
    seen: set[str] = set()
    second = {link for link, _ in found.repeats}
    stack: list[tuple[Path, Reader | None]] = [(root, None)]  # a folder, and the reader of the log it is inside
    while stack:
        folder, inside = stack.pop()
        real = os.path.realpath(folder)
        if real in seen:
            continue
        seen.add(real)
        entries = [p for p in listdir(folder) if p not in second]
        # what a write of a log's folder leaves beside it: a copy, never a log of its own
        found.writes += [p for p in entries if leftover(p) and is_dir(p)]
        entries = [p for p in entries if not (leftover(p) and is_dir(p))]
        claimed = root_claim if folder == root else _claim(folder)
        if claimed is not None and claimed is not inside and (inside is None or claimed.name not in inside.consumes):
            found.units.append((claimed, folder))
            inside = claimed
        # a log that is a file is one wherever it lies (a folder named *.eval is one too, which its reader refuses:
        # its runs are not dropped unseen); the logs of one layout are read together, as one unit
        files = [(reader, p) for p in entries for reader, is_log in _FILES if is_log(p)]
        found.units += files
        if inside is None:
            # a .jsonl name that is no file (a FIFO, a link to nothing) is read too, and refused naming what it is
            found.units += [(JSONL, p) for p in entries
                            if is_jsonl(p) and not is_dir(p) and (not is_file(p) or os.access(p, os.R_OK))]
            read = {p for _, p in files}  # a file no layout reads, outside every harness's folder: counted, not read
            found.strays += [p for p in entries if not is_dir(p) and not is_jsonl(p) and p not in read]
        else:  # inside a harness's folder, a canonical log kept there (the harness's own .jsonl are not)
            found.units += [(JSONL, p) for p in entries
                            if is_jsonl(p) and is_file(p) and os.access(p, os.R_OK) and looks_canonical(p)]
        stack += [(p, inside) for p in reversed(entries) if is_dir(p) and not p.name.endswith(".eval")]
    return found
