"""The ask_human server's logs (the whole run's, each pass's copy), and which logged entry each trajectory
question is: the blocker the server attributed it to, and the anomalies of the pooled log."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ambiglib.errors import FormatError
from ambiglib.importers._common import inside, present, read_json


@dataclass
class _Entry:
    file: Path
    iid: str
    index: int
    text: str
    response: str | None
    blocker: str | None
    used_by: str | None = None  # the instance whose question this entry is


def _log_entries(data: Any, file: Path) -> dict[str, dict[str, Any]]:
    if not isinstance(data, dict):
        raise FormatError(f"{file}: must be an object keyed by instance id (got {type(data).__name__})")
    out = {}
    for iid, entry in data.items():
        if not isinstance(entry, dict):
            raise FormatError(f"{file}: entry {iid!r} must be an object with 'questions'"
                              f" (got {type(entry).__name__})")
        items = entry.get("questions", entry.get("entries"))  # 'entries' is the older key
        if not isinstance(items, list):
            raise FormatError(f"{file}: entry {iid!r} has no 'questions' list")
        _check_questions(items, file, iid)
        out[iid] = entry
    return out


def _check_questions(items: list[Any], file: Path, iid: str) -> None:
    """Each logged question is ``{question: str, response: str, blocker_name: str|null}`` (the server's
    ``LogEntry``); an answer or blocker of another type is damage, not an answer or "no blocker"."""
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("question"), str):
            raise FormatError(f"{file}: entry {iid!r} questions[{i}] must be an object with a 'question' string")
        for key in ("response", "blocker_name"):
            if item.get(key) is not None and not isinstance(item[key], str):
                raise FormatError(f"{file}: entry {iid!r} questions[{i}].{key} must be a string or null"
                                  f" (got {type(item[key]).__name__})")


class _Logs:
    """The ask_human server logs of one run folder: the whole-run log and the per-pass copies."""

    def __init__(self, run_dir: Path):
        self.run_dir = run_dir
        self._cache: dict[Path, dict[str, Any]] = {}

    def read(self, file: Path) -> dict[str, Any]:
        if file not in self._cache:
            self._cache[file] = _log_entries(read_json(file), file) if present(file) else {}
        return self._cache[file]

    def files(self) -> list[Path]:
        top = self.run_dir / "ask_human_logs.json"
        per_pass = sorted(p for p in self.run_dir.glob("*/*/**/ask_human_logs.json") if p != top)
        return ([top] if present(top) else []) + per_pass

    def pooled(self) -> dict[str, list[_Entry]]:
        """Every logged question, by task, each once: the whole-run log, else the union of per-pass copies."""
        by_task: dict[str, list[_Entry]] = defaultdict(list)
        seen: set[str] = set()
        for file in self.files():
            for iid, entry in self.read(file).items():
                if iid in seen:  # the per-pass copies repeat the whole-run log's entries
                    continue
                seen.add(iid)
                for i, q in enumerate(entry.get("questions", entry.get("entries")) or []):
                    by_task[iid.split("__")[0]].append(
                        _Entry(file, iid, i, q["question"], q.get("response"), q.get("blocker_name") or None))
        return by_task

    def registered(self) -> dict[str, tuple[Path, list[str]]]:
        """Task → the blocker ids a log entry lists as registered (``blockers``).

        A log that cannot be read is passed over here: every run that needs it is rejected by name.
        """
        out: dict[str, tuple[Path, list[str]]] = {}
        for file in self.files():
            try:
                entries = self.read(file)
            except FormatError:
                continue
            for iid, entry in entries.items():
                if isinstance(entry.get("blockers"), dict):
                    out.setdefault(iid.split("__")[0], (file, list(entry["blockers"])))
        return out

    def find(self, model: str, mode: str, pass_num: int, task: str) -> tuple[Path, dict[str, Any]] | None:
        """The entry logged under this instance's own id (CSV mode without trajectories)."""
        ids = [f"{task}__{model}__{mode}__pass_{pass_num}", f"{task}__{model}__{mode}"]
        # the model, mode and task come from the harness's CSV: each path they make must stay in the run folder
        # (a model cell '../elsewhere' read another folder's log), else the row is an error on that field
        candidates = [inside(self.run_dir, f"{model}/{mode}/pass_{pass_num}/ask_human_logs.json", "model"),
                      inside(self.run_dir, f"{model}/{mode}/ask_human_logs.json", "model"),
                      self.run_dir / "ask_human_logs.json"]
        for file in candidates:
            logs = self.read(file)
            for iid in ids:
                if iid in logs:
                    return file, {"iid": iid, **logs[iid]}
        # the Harbor variant writes one ask_human_metrics.json per trial, in the instance's folder
        for iid in ids:
            harbor = inside(self.run_dir, f"{model}/{mode}/pass_{pass_num}/{iid}/ask_human_metrics.json", "task_name")
            if present(harbor):
                data = read_json(harbor)
                if not isinstance(data, dict) or not isinstance(data.get("questions"), list):
                    raise FormatError(f"{harbor}: must be an object with 'questions'")
                _check_questions(data["questions"], harbor, iid)
                return harbor, {"iid": iid, **data}
        return None

    def looked_in(self, model: str, mode: str, pass_num: int) -> str:
        return ", ".join(str(p) for p in (Path(model) / mode / f"pass_{pass_num}" / "ask_human_logs.json",
                                          Path(model) / mode / "ask_human_logs.json", Path("ask_human_logs.json"),
                                          Path(model) / mode / f"pass_{pass_num}" / "<instance>" / "ask_human_metrics.json"))
