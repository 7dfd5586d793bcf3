"""HIL-Bench's blocker registries (the repository's ``harbor_{sql,swe}/<name>/shared/ask-human-data`` or flat
``registries/`` + ``metadata/``) as task records."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal, overload

from ambiglib.errors import FormatError, LoadError
from ambiglib.importers._common import Collected, finish, guard, present, read_json
from ambiglib.runlog._jsonl import require_exists
from ambiglib.runset import RunSet

__all__ = ["registry_task_records", "read_hilbench_registries"]


def registry_task_records(path: Path) -> list[tuple[Path, dict[str, Any]]]:
    """Task records from HIL-Bench ``blocker_registry.json`` files under ``path``.

    Accepts the repository's layout (``harbor_{sql,swe}/<name>/shared/ask-human-data/blocker_registry.json``
    with ``shared/metadata.json`` beside it) and a flat one (``registries/<name>.json`` with
    ``metadata/<name>.json`` beside the folder). The task id is the metadata's ``hf_task_id``
    (``public_sql_3``), else ``public_<name>``. Each record's ``meta.resolutions`` maps a blocker's
    resolution (the oracle's verbatim answer) to its id.
    """
    path = Path(path)
    require_exists(path)
    files = [path] if path.is_file() else sorted(path.glob("**/blocker_registry.json"))
    flat = False
    if not files and path.is_dir():
        files = sorted(p for p in path.glob("*.json") if re.match(r"^(sql|swe)_\d+\.json$", p.name))
        flat = True
    if not files:
        raise FormatError(f"{path}: no blocker registries found (blocker_registry.json files, or"
                          " <sql|swe>_<i>.json in a registries folder)")
    out = []
    for file in files:
        if flat:
            name, meta_file = file.stem, file.parent.parent / "metadata" / file.name
        else:
            shared = file.parent.parent
            name, meta_file = shared.parent.name, shared / "metadata.json"
        m = re.match(r"^(sql|swe)_(\d+)$", name)
        metadata = read_json(meta_file) if present(meta_file) else {}
        if not isinstance(metadata, dict):
            raise FormatError(f"{meta_file}: task metadata must be an object (got {type(metadata).__name__})")
        task_id = metadata.get("hf_task_id") or (f"public_{name}" if m else None)
        suite = m.group(1) if m else metadata.get("task_type")
        if not isinstance(task_id, str) or not task_id or suite not in ("sql", "swe"):
            raise FormatError(f"{file}: cannot tell the task id and type; expected a registry named"
                              " <sql|swe>_<i> or a metadata.json with hf_task_id")
        data = read_json(file)
        if not isinstance(data, dict) or not isinstance(data.get("blockers"), list):
            raise FormatError(f"{file}: a blocker registry must be {{\"blockers\": [...]}}")
        blockers, resolutions = [], {}
        for i, b in enumerate(data["blockers"]):
            if not isinstance(b, dict) or not isinstance(b.get("id"), str) or not b["id"]:
                raise FormatError(f"{file}: blockers[{i}] must be an object with an 'id' string")
            blockers.append({"id": b["id"], "type": b.get("type") or None, "subtype": b.get("subtype") or None})
            if isinstance(b.get("resolution"), str) and b["resolution"].strip():
                resolutions[b["resolution"].strip()] = b["id"]
        meta = {k: metadata[k] for k in ("dataset_name", "database_name", "repo_name", "language", "num_blockers")
                if k in metadata}
        if resolutions:
            meta["resolutions"] = resolutions
        record = {"record": "task", "benchmark": "hil-bench", "suite": suite, "task_id": task_id,
                  "blockers": blockers}
        if meta:
            record["meta"] = meta
        out.append((file, record))
    return out


# strict returns the run set alone, lenient (strict=False) the run set and its errors
@overload
def read_hilbench_registries(path: str | os.PathLike[str], *, strict: Literal[True] = True
                             ) -> RunSet: ...
@overload
def read_hilbench_registries(path: str | os.PathLike[str], *, strict: Literal[False]
                             ) -> tuple[RunSet, list[LoadError]]: ...
@overload
def read_hilbench_registries(path: str | os.PathLike[str], *, strict: bool
                             ) -> RunSet | tuple[RunSet, list[LoadError]]: ...
@guard("HIL-Bench blocker registries")
def read_hilbench_registries(path: str | os.PathLike[str], *, strict: bool = True
                             ) -> RunSet | tuple[RunSet, list[LoadError]]:
    """Read HIL-Bench blocker registries alone, as task records (the RunSet has no runs)."""
    out = Collected("HIL-Bench registry")
    for file, record in registry_task_records(Path(path)):
        out.add(file, 1, record)
    return finish(out, Path(path), strict=strict, require_runs=False)
