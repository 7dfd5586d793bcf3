"""HIL-Bench: ``run_hil_bench.py`` run folders, the Harbor ask-human metrics, blocker registries.

The mapping into the canonical run log is documented in ``docs/importers.md``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from ..errors import FormatError, LoadError
from ..runlog import require_exists
from ..runset import RunSet
from ._common import Collected, RowError, finish, read_csv, read_json

__all__ = ["read_hilbench", "read_hilbench_registries", "is_hilbench_run", "registry_task_records"]

#: HIL-Bench modes → (spec, ask_tool) (``batch_runner.get_modes_from_flags``)
MODES = {"baseline": ("ambiguous", False), "ask_human": ("ambiguous", True), "full_info": ("full", False)}
CSV_COLUMNS = ("task_name", "model", "mode", "pass_num", "status", "resolved", "cost", "num_steps",
               "num_questions", "num_blockers_resolved", "total_num_blockers", "precision", "recall", "f1",
               "tokens_sent", "tokens_received")
STATUSES = {"resolved": "ok", "unresolved": "ok", "infra_error": "error"}
_TASK = re.compile(r"^public_(sql|swe)_\d+$")
#: the oracle stops matching blockers after this many answered questions (``ask_human_server.py``)
MAX_ANSWERED = 3


def _suite(task_name: str, run_dir: Path) -> str | None:
    m = _TASK.match(task_name)
    if m:
        return m.group(1)
    for suffix in ("_sql", "_swe"):  # run_hil_bench.py appends the type when --task-type both
        if run_dir.name.endswith(suffix):
            return suffix[1:]
    return None


def is_hilbench_run(path: Path) -> bool:
    return (path / "public_metrics" / "pass_level_metrics.csv").is_file()


def _run_dirs(path: Path) -> list[Path]:
    if is_hilbench_run(path):
        return [path]
    return sorted(p.parent.parent for p in path.glob("**/public_metrics/pass_level_metrics.csv"))


# ----------------------------------------------------------------------------- server logs


def _log_questions(entry: Any, file: Path, iid: str) -> list[dict[str, Any]]:
    if not isinstance(entry, dict):
        raise FormatError(f"{file}: entry {iid!r} must be an object with 'questions' (got {type(entry).__name__})")
    items = entry.get("questions", entry.get("entries"))  # 'entries' is the older key
    if not isinstance(items, list):
        raise FormatError(f"{file}: entry {iid!r} has no 'questions' list")
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or "question" not in item:
            raise FormatError(f"{file}: entry {iid!r} questions[{i}] must be an object with 'question'")
        out.append({"text": item["question"], "blocker_id": item.get("blocker_name"),
                    "response": item.get("response")})
    return out


class _Logs:
    """The ask_human server logs of one run folder, per pass and whole-run, read on demand."""

    def __init__(self, run_dir: Path):
        self.run_dir = run_dir
        self._cache: dict[Path, dict[str, Any]] = {}

    def _read(self, file: Path) -> dict[str, Any]:
        if file not in self._cache:
            data = read_json(file) if file.is_file() else {}
            if not isinstance(data, dict):
                raise FormatError(f"{file}: must be an object keyed by instance id (got {type(data).__name__})")
            self._cache[file] = data
        return self._cache[file]

    def find(self, model: str, mode: str, pass_num: int, task: str) -> tuple[Path, dict[str, Any]] | None:
        ids = [f"{task}__{model}__{mode}__pass_{pass_num}", f"{task}__{model}__{mode}"]
        candidates = [self.run_dir / model / mode / f"pass_{pass_num}" / "ask_human_logs.json",
                      self.run_dir / model / mode / "ask_human_logs.json", self.run_dir / "ask_human_logs.json"]
        for file in candidates:
            logs = self._read(file)
            for iid in ids:
                if iid in logs:
                    return file, {"iid": iid, **(logs[iid] if isinstance(logs[iid], dict) else {"_bad": logs[iid]})}
        # the Harbor variant writes one ask_human_metrics.json per trial, in the instance's folder
        for iid in ids:
            harbor = self.run_dir / model / mode / f"pass_{pass_num}" / iid / "ask_human_metrics.json"
            if harbor.is_file():
                data = read_json(harbor)
                if not isinstance(data, dict):
                    raise FormatError(f"{harbor}: must be an object with 'questions'")
                return harbor, {"iid": iid, **data}
        return None

    def looked_in(self, model: str, mode: str, pass_num: int) -> str:
        return ", ".join(str(p) for p in (Path(model) / mode / f"pass_{pass_num}" / "ask_human_logs.json",
                                          Path(model) / mode / "ask_human_logs.json", Path("ask_human_logs.json"),
                                          Path(model) / mode / f"pass_{pass_num}" / "<instance>" / "ask_human_metrics.json"))


# ----------------------------------------------------------------------------- the run folder


def _int(value: str, file: Path, line: int, fld: str, empty: int | None = None) -> int | None:
    if value in ("", None):
        return empty
    try:
        return int(float(value))
    except ValueError:
        raise RowError(fld, f"field '{fld}' must be an integer (got {value!r})") from None


def _float(value: str, file: Path, line: int, fld: str) -> float | None:
    if value in ("", None):
        return None
    try:
        return float(value)
    except ValueError:
        raise RowError(fld, f"field '{fld}' must be a number (got {value!r})") from None


def _bool(value: str, file: Path, line: int, fld: str) -> bool | None:
    if value in ("", None):
        return None
    if value.strip().lower() in ("true", "1"):
        return True
    if value.strip().lower() in ("false", "0"):
        return False
    raise RowError(fld, f"field '{fld}' must be True or False (got {value!r})")


def _read_run_dir(run_dir: Path, out: Collected, blockers_seen: dict) -> None:
    csv_path = run_dir / "public_metrics" / "pass_level_metrics.csv"
    logs = _Logs(run_dir)
    for line, row in read_csv(csv_path, CSV_COLUMNS):
        with out.row(csv_path, line, "this run's files"):  # e.g. its server log is unreadable
            _read_row(run_dir, csv_path, line, row, logs, out, blockers_seen)


def _read_row(run_dir: Path, csv_path: Path, line: int, row: dict[str, str], logs: _Logs, out: Collected,
              blockers_seen: dict) -> None:
    task, model, mode = row["task_name"], row["model"], row["mode"]
    if mode not in MODES:
        raise RowError("mode", f"field 'mode' must be one of {', '.join(map(repr, MODES))} (got {mode!r})")
    if row["status"] not in STATUSES:
        raise RowError("status", f"field 'status' must be one of {', '.join(map(repr, STATUSES))}"
                                 f" (got {row['status']!r})")
    suite = _suite(task, run_dir)
    if suite is None:
        raise RowError("task_name", f"field 'task_name' {task!r} does not say whether the task is SQL or SWE"
                       " (expected public_sql_<i> / public_swe_<i>, or a run folder ending _sql / _swe)")
    spec, ask_tool = MODES[mode]
    pass_num = _int(row["pass_num"], csv_path, line, "pass_num")
    status = STATUSES[row["status"]]
    resolved = _bool(row["resolved"], csv_path, line, "resolved")
    n_traj = _int(row["num_questions"], csv_path, line, "num_questions", empty=0)
    rec: dict[str, Any] = {
        "benchmark": "hil-bench", "suite": suite, "task_id": task, "model": model, "spec": spec,
        "ask_tool": ask_tool, "trial": pass_num, "status": status,
        "passed": resolved if status == "ok" else None,
        "score": (1.0 if resolved else 0.0) if status == "ok" and resolved is not None else None,
        "cost_usd": _float(row["cost"], csv_path, line, "cost"),
        "steps": _float(row["num_steps"], csv_path, line, "num_steps"),
        "tokens_in": _float(row["tokens_sent"], csv_path, line, "tokens_sent"),
        "tokens_out": _float(row["tokens_received"], csv_path, line, "tokens_received"),
    }
    meta: dict[str, Any] = {"harness": "run_hil_bench.py", "mode": mode, "run_dir": run_dir.name,
                            "num_questions_trajectory": n_traj}
    if ask_tool:
        found = logs.find(model, mode, pass_num, task)
        if found is None:
            if n_traj:
                raise RowError("num_questions",
                               f"the run asked {n_traj} question(s) (field 'num_questions') but no ask_human server"
                               f" log holds instance {task}__{model}__{mode}__pass_{pass_num} (looked in"
                               f" {logs.looked_in(model, mode, pass_num)}); its questions would be lost")
            rec["questions"] = []
        else:
            file, entry = found
            if "_bad" in entry:
                raise FormatError(f"{file}: entry {entry['iid']!r} must be an object with 'questions'")
            rec["questions"] = _log_questions(entry, file, entry["iid"])
            meta["instance_id"] = entry["iid"]
            answered = [i for i, q in enumerate(rec["questions"]) if q["blocker_id"] is not None]
            if len(answered) >= MAX_ANSWERED and answered[MAX_ANSWERED - 1] < len(rec["questions"]) - 1:
                meta["questions_after_cap"] = len(rec["questions"]) - 1 - answered[MAX_ANSWERED - 1]
            registry = entry.get("blockers")
            if isinstance(registry, dict):  # the server logs every registered blocker id of the task
                blockers_seen.setdefault((suite, task), (file, list(registry)))
    elif n_traj:
        meta["num_questions_without_tool"] = n_traj
    rec["meta"] = meta
    out.add(csv_path, line, rec)


# ----------------------------------------------------------------------------- registries


def registry_task_records(path: Path) -> list[tuple[Path, dict[str, Any]]]:
    """Task records from HIL-Bench ``blocker_registry.json`` files under ``path``.

    Accepts the repository's layout (``harbor_{sql,swe}/<name>/shared/ask-human-data/blocker_registry.json``
    with ``shared/metadata.json`` beside it) and a flat one (``registries/<name>.json`` with
    ``metadata/<name>.json`` beside the folder). The task id is the metadata's ``hf_task_id``
    (``public_sql_3``), else ``public_<name>``.
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
        metadata = read_json(meta_file) if meta_file.is_file() else {}
        task_id = metadata.get("hf_task_id") or (f"public_{name}" if m else None)
        suite = m.group(1) if m else metadata.get("task_type")
        if not task_id or suite not in ("sql", "swe"):
            raise FormatError(f"{file}: cannot tell the task id and type; expected a registry named"
                              " <sql|swe>_<i> or a metadata.json with hf_task_id")
        data = read_json(file)
        if not isinstance(data, dict) or not isinstance(data.get("blockers"), list):
            raise FormatError(f"{file}: a blocker registry must be {{\"blockers\": [...]}}")
        blockers = []
        for i, b in enumerate(data["blockers"]):
            if not isinstance(b, dict) or not b.get("id"):
                raise FormatError(f"{file}: blockers[{i}] must be an object with an 'id'")
            blockers.append({"id": b["id"], "type": b.get("type") or None, "subtype": b.get("subtype") or None})
        record = {"record": "task", "benchmark": "hil-bench", "suite": suite, "task_id": task_id,
                  "blockers": blockers,
                  "meta": {k: metadata[k] for k in ("dataset_name", "database_name", "repo_name", "language",
                                                    "num_blockers") if k in metadata} or None}
        if record["meta"] is None:
            del record["meta"]
        out.append((file, record))
    return out


def read_hilbench_registries(path: str | os.PathLike[str], *, strict: bool = True
                             ) -> RunSet | tuple[RunSet, list[LoadError]]:
    """Read HIL-Bench blocker registries alone, as task records (the RunSet has no runs)."""
    out = Collected("HIL-Bench registry")
    for file, record in registry_task_records(Path(path)):
        out.add(file, 1, record)
    return finish(out, Path(path), strict=strict, require_runs=False)


# ----------------------------------------------------------------------------- entry point


def read_hilbench(path: str | os.PathLike[str], *, registries: str | os.PathLike[str] | None = None,
                  strict: bool = True, quiet: bool = False) -> RunSet | tuple[RunSet, list[LoadError]]:
    """Read ``run_hil_bench.py`` output into a RunSet.

    Parameters
    ----------
    path : path-like
        A run folder (``<out>/<run>/`` with ``public_metrics/pass_level_metrics.csv``),
        or a folder holding several.
    registries : path-like, optional
        Blocker registries (see :func:`registry_task_records`); they give every task
        its registered blockers. Without them, a task's blockers come from the ask_human
        server log of any instance that asked (the log lists every registered blocker);
        tasks nobody asked about then have no task record, and recall over all runs
        says so.
    strict : bool, default True
        Raise on the first problem; with False, return ``(runset, errors)``.

    Returns
    -------
    RunSet
        One run per row of ``pass_level_metrics.csv``; questions from the ask_human
        server logs. ``docs/importers.md`` gives the mapping field by field.
    """
    path = Path(path)
    require_exists(path)
    run_dirs = _run_dirs(path)
    if not run_dirs:
        raise FormatError(f"{path}: not a HIL-Bench run folder (no public_metrics/pass_level_metrics.csv here"
                          " or below)")
    out = Collected("HIL-Bench run")
    blockers_seen: dict[tuple[str, str], tuple[Path, list[str]]] = {}
    for run_dir in run_dirs:
        _read_run_dir(run_dir, out, blockers_seen)
    registered = set()
    if registries is not None:
        for file, record in registry_task_records(Path(registries)):
            out.add(file, 1, record)
            registered.add((record["suite"], record["task_id"]))
    for (suite, task), (file, ids) in sorted(blockers_seen.items()):
        if (suite, task) not in registered:
            out.add(file, 1, {"record": "task", "benchmark": "hil-bench", "suite": suite, "task_id": task,
                              "blockers": [{"id": i} for i in ids],
                              "meta": {"blockers_from": "ask_human server log"}})
    return finish(out, path, strict=strict)
