"""HIL-Bench: ``run_hil_bench.py`` and ``hil sql|swe`` output, the Harbor ask-human metrics, blocker registries.

Two ways in, chosen per run folder:

- **the per-pass tree** (``<run>/<model_safe>/<mode>/[pass_<k>/]metrics.json`` + ``preds.json`` and each
  instance's ``.traj``): what the harness's own ``parse_metrics_rows`` reads, written by both
  ``run_hil_bench.py`` and the ``hil`` CLI. Questions come from the trajectories (every ``ask_human``
  action), matched to the server log's blocker attributions.
- **``public_metrics/pass_level_metrics.csv``** alone (a copied or shared CSV): questions from the exported
  public trajectories where present, else from the server logs under each instance's own id.

The mapping into the canonical run log, field by field, is in ``docs/importers.md``; the harness's
rules reproduced here (invalid passes, the pass filter) are in ``docs/metrics.md``.
"""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any, Iterable

from ..errors import FormatError, LoadError
from ..runlog import require_exists
from ..runset import RunSet
from ._common import Collected, RowError, finish, guard, inside, present, read_csv, read_json

__all__ = ["read_hilbench", "read_hilbench_registries", "is_hilbench_run", "registry_task_records",
           "ask_human_question", "invalid_pass_reason", "INVALID_REASONS"]

#: HIL-Bench modes → (spec, ask_tool) (``batch_runner.get_modes_from_flags``)
MODES = {"baseline": ("ambiguous", False), "ask_human": ("ambiguous", True), "full_info": ("full", False)}
CSV_COLUMNS = ("task_name", "model", "mode", "pass_num", "status", "resolved", "cost", "num_steps",
               "num_questions", "num_blockers_resolved", "total_num_blockers", "precision", "recall", "f1",
               "tokens_sent", "tokens_received")
STATUSES = {"resolved": "ok", "unresolved": "ok", "infra_error": "error"}
_TASK = re.compile(r"^public_(sql|swe)_\d+$")
#: the oracle stops matching blockers after this many answered questions (``ask_human_server.py``)
MAX_ANSWERED = 3
#: the hil_metrics keys batch_runner aggregates across passes (consolidated_metrics.json)
CONSOLIDATED_HIL = ("precision", "recall", "ask_f1", "n_questions", "n_blockers_present", "n_blockers_discovered")
HICCUP = "can't answer (perhaps transient hiccup)"
IRRELEVANT = "irrelevant question"
ASK_PREFIX = "ask_human "


def model_safe(model: str) -> str:
    """The folder and instance-id form of a model name (``swe.create_mixed_mode_instances``)."""
    return model.replace("/", "_").replace(":", "_")


def ask_prf(found: float, asked: float, present: float) -> tuple[float, float, float]:
    """Ask precision, recall and F1 as ``compute_hil_metrics`` and ``summarize_rows`` compute them:
    found / asked, found / present, their harmonic mean; 0.0 for a zero denominator."""
    precision = found / asked if asked > 0 else 0.0
    recall = found / present if present > 0 else 0.0
    return precision, recall, 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0

#: Why the harness leaves a pass out of every statistic (``run_hil_bench.summarize_rows``): the CSV status,
#: a pass missing from the tree (``parse_metrics_rows`` pads it), or ``trajectory_needs_rerun``'s rules.
INVALID_REASONS = {
    "infra_error": "status infra_error (SQL not completed; SWE evaluation error)",
    "missing_pass": "no metrics.json/preds.json entry for this pass (the harness pads it as infra_error)",
    "missing_from_tree": "batch_config.json or the harness's CSV names this model and mode, but the run folder"
                         " has no files for it (the harness would leave it out without a word)",
    "timeout_obs>=3": "3 or more observations 'Command [...] timed out after N seconds'",
    "hiccup_obs": "an observation \"can't answer (perhaps transient hiccup)\" (judge or server failure)",
    "env_died_obs": "last observation holds 'Environment died unexpectedly'",
    "unknown_error": "last response holds 'Exit due to unknown error'",
    "kb_query_error": "an observation holds 'Error querying knowledge base'",
    "sql_quoting_bug_obs": "an SQL info tool answered an ANSI-C quoting artefact ('Error: table $...')",
}
_TIMEOUT_OBS = re.compile(r"Command '\[.*\]' timed out after \d+ seconds")
_QUOTING_MARKERS = (("get_database_info", "Error: database $"), ("get_table_info", "Error: table $"),
                    ("get_column_info", "Error: column $"),
                    ("get_business_info", "No business information found matching '$"))


def _suite(task_name: str, run_dir: Path, task_type: str | None = None) -> str | None:
    if task_type in ("sql", "swe"):
        return task_type
    m = _TASK.match(task_name)
    if m:
        return m.group(1)
    for suffix in ("_sql", "_swe"):  # run_hil_bench.py appends the type when --task-type both
        if run_dir.name.endswith(suffix):
            return suffix[1:]
    return None


def is_hilbench_run(path: Path) -> bool:
    """A folder ``run_hil_bench.py`` or the ``hil`` CLI wrote (its CSV, or its ``batch_config.json``)."""
    return (path / "public_metrics" / "pass_level_metrics.csv").is_file() or (path / "batch_config.json").is_file()


def _run_dirs(path: Path) -> list[Path]:
    if is_hilbench_run(path):
        return [path]
    found = {p.parent.parent for p in path.glob("**/public_metrics/pass_level_metrics.csv")}
    found |= {p.parent for p in path.glob("**/batch_config.json")}
    # a run folder's own subfolders are never run folders of their own
    return sorted(p for p in found if not any(q != p and q in p.parents for q in found))


# ----------------------------------------------------------------------------- trajectories


def _text(value: Any) -> str:
    """A trajectory value as the harness compares it: strings as they are, anything else as JSON."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError):
        return str(value)


_ANSI_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "0": "\0",
                 "'": "'", "\\": "\\", '"': '"'}


def ask_human_question(action: str) -> str | None:
    """The question of an ``ask_human`` action, unquoted; None when the action is not an ``ask_human`` call.

    SWE-agent writes the argument in bash ANSI-C quoting (``ask_human $'What\\'s X?'``); plain single or
    double quotes and an unquoted rest are read too.
    """
    if not isinstance(action, str) or not action.lstrip().startswith(ASK_PREFIX):
        return None
    arg = action.lstrip()[len(ASK_PREFIX):].strip()
    if arg.startswith("$'") and arg.endswith("'") and len(arg) >= 3:
        body, out, i = arg[2:-1], [], 0
        while i < len(body):
            if body[i] == "\\" and i + 1 < len(body):
                out.append(_ANSI_ESCAPES.get(body[i + 1], "\\" + body[i + 1]))
                i += 2
            else:
                out.append(body[i])
                i += 1
        return "".join(out)
    if len(arg) >= 2 and arg[0] == arg[-1] and arg[0] in "'\"":
        body = arg[1:-1]
        return body.replace("'\\''", "'") if arg[0] == "'" else body.replace('\\"', '"').replace("\\\\", "\\")
    return arg


def invalid_pass_reason(steps: list[dict[str, str]]) -> str | None:
    """The first of ``run_hil_bench.trajectory_needs_rerun``'s rules a trajectory breaks, or None.

    ``steps`` are public-trajectory steps (``act``, ``obs``, optional ``response``), as the harness
    reads them. The rules and their order are the harness's; the names are ours (:data:`INVALID_REASONS`).
    """
    obs = [s.get("obs", "") for s in steps]
    if sum(1 for o in obs if isinstance(o, str) and _TIMEOUT_OBS.search(o)) >= 3:
        return "timeout_obs>=3"
    if any(isinstance(o, str) and o.strip() == HICCUP for o in obs):
        return "hiccup_obs"
    if steps and isinstance(obs[-1], str) and "Environment died unexpectedly" in obs[-1]:
        return "env_died_obs"
    if steps and isinstance(steps[-1].get("response", ""), str) and \
            "Exit due to unknown error" in steps[-1].get("response", ""):
        return "unknown_error"
    if any(isinstance(o, str) and "Error querying knowledge base" in o for o in obs):
        return "kb_query_error"
    for s in steps:
        act, o = s.get("act", ""), s.get("obs", "")
        if isinstance(act, str) and isinstance(o, str) and act.strip():
            tool = act.split(None, 1)[0]
            if any(tool == t and o.startswith(m) for t, m in _QUOTING_MARKERS):
                return "sql_quoting_bug_obs"
    return None


@dataclass
class _Traj:
    file: Path
    steps: list[dict[str, str]]          # public form: act, obs, [response]
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def asks(self) -> list[tuple[int, str, str]]:
        """(step index, question, observation) of every ask_human action."""
        out = []
        for i, s in enumerate(self.steps):
            q = ask_human_question(s.get("act", ""))
            if q is not None:
                out.append((i, q, s.get("obs", "")))
        return out


def _public_steps(raw: Any, file: Path) -> list[dict[str, str]]:
    if not isinstance(raw, list):
        raise FormatError(f"{file}: 'trajectory' must be a list of steps (got {type(raw).__name__})")
    steps = []
    for i, step in enumerate(raw):
        if not isinstance(step, dict):
            raise FormatError(f"{file}: trajectory step {i} must be an object (got {type(step).__name__})")
        if "act" in step or "obs" in step:  # already public form (pass_<k>_trajectory.json)
            out = {"act": _text(step.get("act", "")), "obs": _text(step.get("obs", ""))}
        else:
            out = {"act": _text(step.get("action", "")), "obs": _text(step.get("observation", ""))}
        if step.get("response") not in (None, ""):
            out["response"] = _text(step["response"])
        steps.append(out)
    return steps


def _read_traj(file: Path) -> _Traj:
    data = read_json(file)
    if not isinstance(data, dict):
        raise FormatError(f"{file}: a SWE-agent trajectory must be an object with 'trajectory' and 'info'"
                          f" (got {type(data).__name__})")
    info = data.get("info") if isinstance(data.get("info"), dict) else {}
    ms = info.get("model_stats") if isinstance(info.get("model_stats"), dict) else {}
    steps = _public_steps(data.get("trajectory", []), file)
    return _Traj(file, steps, {"tokens_sent": ms.get("tokens_sent", ms.get("input_tokens")),
                               "tokens_received": ms.get("tokens_received", ms.get("output_tokens")),
                               "cost": ms.get("instance_cost"), "num_steps": len(steps),
                               "exit_status": info.get("exit_status")})


def _read_public_traj(file: Path) -> _Traj:
    data = read_json(file)
    return _Traj(file, _public_steps(data, file), {"num_steps": len(data)})


# ----------------------------------------------------------------------------- server logs


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
        for i, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("question"), str):
                raise FormatError(f"{file}: entry {iid!r} questions[{i}] must be an object with a 'question' string")
        out[iid] = entry
    return out


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
        candidates = [self.run_dir / model / mode / f"pass_{pass_num}" / "ask_human_logs.json",
                      self.run_dir / model / mode / "ask_human_logs.json", self.run_dir / "ask_human_logs.json"]
        for file in candidates:
            logs = self.read(file)
            for iid in ids:
                if iid in logs:
                    return file, {"iid": iid, **logs[iid]}
        # the Harbor variant writes one ask_human_metrics.json per trial, in the instance's folder
        for iid in ids:
            harbor = self.run_dir / model / mode / f"pass_{pass_num}" / iid / "ask_human_metrics.json"
            if present(harbor):
                data = read_json(harbor)
                if not isinstance(data, dict) or not isinstance(data.get("questions"), list):
                    raise FormatError(f"{harbor}: must be an object with 'questions'")
                return harbor, {"iid": iid, **data}
        return None

    def looked_in(self, model: str, mode: str, pass_num: int) -> str:
        return ", ".join(str(p) for p in (Path(model) / mode / f"pass_{pass_num}" / "ask_human_logs.json",
                                          Path(model) / mode / "ask_human_logs.json", Path("ask_human_logs.json"),
                                          Path(model) / mode / f"pass_{pass_num}" / "<instance>" / "ask_human_metrics.json"))


# ----------------------------------------------------------------------------- cell parsing


def _int(value: Any, fld: str, empty: int | None = None) -> int | None:
    if value in ("", None):
        return empty
    try:
        # digits, or a float with nothing after the point (pandas writes 3.0); never 1_0 or inf
        if isinstance(value, bool) or (isinstance(value, str) and not re.fullmatch(r"\s*-?[0-9]+(\.0*)?\s*", value)):
            raise ValueError
        f = float(value)
        if f != int(f):
            raise ValueError
        return int(f)
    except (ValueError, OverflowError, TypeError):
        raise RowError(fld, f"field '{fld}' must be an integer (got {value!r})") from None


def _float(value: Any, fld: str) -> float | None:
    if value in ("", None):
        return None
    try:
        f = float(value)
    except (ValueError, TypeError):
        raise RowError(fld, f"field '{fld}' must be a number (got {value!r})") from None
    if f != f or f in (float("inf"), float("-inf")):
        raise RowError(fld, f"field '{fld}' must be a finite number (got {value!r})")
    return f


def _bool(value: Any, fld: str) -> bool | None:
    if value in ("", None):
        return None
    if isinstance(value, bool):
        return value
    if str(value).strip().lower() in ("true", "1"):
        return True
    if str(value).strip().lower() in ("false", "0"):
        return False
    raise RowError(fld, f"field '{fld}' must be True or False (got {value!r})")


# ----------------------------------------------------------------------------- one pass of one instance


@dataclass
class _Pass:
    """One row of the harness's pass-level table, with what we read beside it."""

    run_dir: Path
    source: tuple[Path, int]
    suite: str
    task: str
    model_safe: str
    mode: str
    pass_num: int
    status: str                 # resolved / unresolved / infra_error
    resolved: bool | None
    cost: float | None = None
    num_steps: float | None = None
    tokens_sent: float | None = None
    tokens_received: float | None = None
    iid: str | None = None
    traj: _Traj | None = None
    reason: str | None = None   # why the harness leaves this pass out (INVALID_REASONS)
    harness_row: dict[str, Any] = field(default_factory=dict)
    questions: list[dict[str, Any]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)


def _harness_hil_row(h: dict[str, Any], n_traj: int | None, pass_hil: dict[str, Any]) -> dict[str, Any]:
    """The CSV's ask columns as ``parse_metrics_rows`` fills them from this instance's log entry ``h``."""
    questions = h.get("questions") or h.get("entries") or []
    n_questions = n_traj if n_traj is not None else len(questions)
    n_blockers = h.get("n_blockers")
    discovered = len({q.get("blocker_name") for q in questions if q.get("blocker_name")})
    if n_traj is None and not h and pass_hil:
        n_questions = pass_hil.get("n_questions")
        n_blockers = pass_hil.get("n_blockers_present")
        discovered = int(pass_hil.get("n_blockers_discovered") or 0)
    precision, recall, f1 = ask_prf(discovered, len(questions), int(n_blockers or 0) if h else 0)
    return {"num_questions": n_questions,
            "num_blockers_resolved": discovered if (n_questions is not None or n_blockers is not None) else None,
            "total_num_blockers": n_blockers,
            "precision": precision if h else pass_hil.get("precision"),
            "recall": recall if h else pass_hil.get("recall"),
            "f1": f1 if h else pass_hil.get("ask_f1")}


class _RunFolder:
    """One run folder: its configuration, its passes, its server logs."""

    def __init__(self, run_dir: Path):
        self.dir = run_dir
        self.logs = _Logs(run_dir)
        cfg_file = run_dir / "batch_config.json"
        self.config: dict[str, Any] = {}
        if present(cfg_file):
            cfg = read_json(cfg_file)
            if not isinstance(cfg, dict):
                raise FormatError(f"{cfg_file}: must be an object (got {type(cfg).__name__})")
            self.config = cfg
        summary_file = run_dir / "public_metrics" / "summary_metrics.json"
        self.summary_meta: dict[str, Any] = {}
        if present(summary_file):
            s = read_json(summary_file)
            if isinstance(s, dict) and isinstance(s.get("metadata"), dict):
                self.summary_meta = s["metadata"]
        names = self.config.get("model_names") or []
        self.model_names = {model_safe(str(m)): str(m) for m in names if isinstance(m, str)}
        self.task_type = self.config.get("task_type") if self.config.get("task_type") in ("sql", "swe") else None
        self.csv = run_dir / "public_metrics" / "pass_level_metrics.csv"
        self.writer = "run_hil_bench.py" if present(self.csv) else "hil CLI"
        #: log entries no trajectory question matched, by the instance id they are logged under
        self.unmatched_log_entries: dict[str, int] = defaultdict(int)

    def expected_passes(self, seen: Iterable[int]) -> int:
        for value in (self.config.get("passes"), self.summary_meta.get("num_passes")):
            if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
                return value
        return max(seen, default=1)

    def pass_dirs(self) -> list[tuple[str, str, int, Path]]:
        """(model_safe, mode, pass, folder) for every pass folder holding metrics.json and preds.json."""
        out = []
        for model_dir in sorted(p for p in self.dir.iterdir() if p.is_dir() and p.name not in ("metadata",
                                                                                                 "public_metrics")):
            for mode_dir in sorted(p for p in model_dir.iterdir() if p.is_dir()):
                # pass folders wherever any is there (the harness looks for pass_1 only: with it gone, it read
                # no pass of the mode at all); the passes missing are padded (_pad)
                dirs = sorted((p for p in mode_dir.iterdir() if p.is_dir() and re.fullmatch(r"pass_\d+", p.name)),
                              key=lambda p: int(p.name[5:])) or [mode_dir]
                for d in dirs:
                    if present(d / "metrics.json") and present(d / "preds.json"):
                        out.append((model_dir.name, mode_dir.name, int(d.name[5:]) if d.name.startswith("pass_")
                                    else 1, d))
        return out

    def has_tree(self) -> bool:
        return bool(self.pass_dirs())


def _tree_passes(folder: _RunFolder, out: Collected) -> list[_Pass]:
    """What ``parse_metrics_rows`` reads from the per-pass tree, one _Pass per instance and pass."""
    csv_lines = _csv_line_index(folder)
    passes: list[_Pass] = []
    for model_safe, mode, pass_num, pdir in folder.pass_dirs():
        metrics_file, preds_file = pdir / "metrics.json", pdir / "preds.json"
        with out.row(metrics_file, None, "this pass's files"):
            metrics, preds = read_json(metrics_file), read_json(preds_file)
            if not isinstance(metrics, dict):
                raise FormatError(f"{metrics_file}: must be an object (got {type(metrics).__name__})")
            if not isinstance(preds, dict):
                raise FormatError(f"{preds_file}: must be an object keyed by instance id (got {type(preds).__name__})")
            if mode not in MODES:
                raise RowError("mode", f"mode folder {mode!r} is none of {', '.join(map(repr, MODES))}")
            own_log_file = pdir / "ask_human_logs.json"
            own_log = folder.logs.read(own_log_file) if present(own_log_file) else {}
            pass_hil = (metrics.get("hil_metrics") or {}) if not present(own_log_file) else {}
            # a field of a type the harness never writes is an error, not an empty value ("results": true made
            # every instance not completed: infra_error)
            results = _typed(metrics, "results", dict)
            raw_eval = _typed(metrics, "raw_eval_results", dict)
            swe_results = _typed(raw_eval, "results", dict, "raw_eval_results.")
            swe_errors = set(_typed(raw_eval, "error_ids", list, "raw_eval_results."))
            swe_resolved = set(_typed(metrics, "resolved_instances", list))
            inst_metrics = _typed(metrics, "instances", dict)
            for iid in preds:
                task = iid.split("__")[0]
                suite = _suite(task, folder.dir, folder.task_type)
                line = csv_lines.get((task, model_safe, mode, pass_num))
                source = (folder.csv, line) if line else (metrics_file, 1)
                with out.row(*source, "this instance's files"):
                    if suite is None:
                        raise RowError("task_name", f"instance {iid!r} does not say whether the task is SQL or SWE"
                                       " (no task_type in batch_config.json, no public_sql_/public_swe_ name,"
                                       " no _sql/_swe run folder)")
                    traj_file = pdir / iid / f"{iid}.traj"
                    traj = _read_traj(traj_file) if present(traj_file) else None
                    ts = traj.stats if traj else {}
                    if suite == "sql":
                        r = _typed(results, iid, dict, "results.")
                        completed = r.get("completed", False)
                        resolved = bool(r.get("resolved", False)) if completed else None
                        status = "infra_error" if not completed else ("resolved" if resolved else "unresolved")
                        cost = r.get("cost", ts.get("cost"))
                        steps = ts.get("num_steps") or r.get("num_steps")
                    else:
                        r = swe_results.get(iid) or swe_results.get(task) or {}
                        completed = r.get("completed") if isinstance(r, dict) else None
                        resolved = iid in swe_resolved
                        if task in swe_errors or iid in swe_errors or not completed:
                            status, resolved = "infra_error", None
                        else:
                            status = "resolved" if resolved else "unresolved"
                        im = _typed(inst_metrics, iid, dict, "instances.")
                        cost = im.get("cost", ts.get("cost"))
                        steps = ts.get("num_steps") or im.get("num_steps")
                    p = _Pass(folder.dir, source, suite, task, model_safe, mode, pass_num, status, resolved,
                              cost=_float(cost, "cost"), num_steps=_float(steps, "num_steps"),
                              tokens_sent=_float(ts.get("tokens_sent"), "tokens_sent"),
                              tokens_received=_float(ts.get("tokens_received"), "tokens_received"), iid=iid, traj=traj)
                    n_traj = len(traj.asks) if traj else None
                    h = own_log.get(iid) or {}
                    p.harness_row = _harness_hil_row(h, n_traj, pass_hil)
                    # what batch_runner's per-pass metrics (consolidated_metrics.json) are summed from
                    im = _typed(inst_metrics, iid, dict, "instances.")
                    pred = preds[iid] if isinstance(preds[iid], dict) else {}
                    p.harness_row.update(
                        cost=_float(im.get("cost"), "cost"), runtime=_float(im.get("runtime"), "runtime"),
                        patch=bool(str(pred.get("model_patch") or "").strip()), pass_log=present(own_log_file),
                        log_questions=len(h.get("questions") or h.get("entries") or []) if h else None)
                    if mode == "ask_human" and not present(own_log_file):
                        p.harness_row["pass_hil"] = {k: pass_hil.get(k) for k in CONSOLIDATED_HIL}
                    if status == "infra_error":
                        p.reason = "infra_error"
                    elif traj is not None:
                        p.reason = invalid_pass_reason(traj.steps)
                    else:
                        p.meta["validity_unchecked"] = "no .traj file"
                    if traj is None and mode == "ask_human":
                        p.meta["questions_from"] = "ask_human server log (no .traj file)"
                        p.questions = [{"text": q["question"], "blocker_id": q.get("blocker_name") or None,
                                        "response": q.get("response")} for q in h.get("questions") or []]
                    passes.append(p)
    return _pad(folder, passes, csv_lines)


def _typed(container: dict, key: str, kind: type, where: str = "") -> Any:
    """``container[key]`` when it is a ``kind`` (an empty one when absent or null); any other type is a RowError."""
    value = container.get(key)
    if value is None:
        return kind()
    if not isinstance(value, kind):
        raise RowError(where + key, f"field '{where}{key}' must be {'an object' if kind is dict else 'a list'}"
                                    f" (got {json.dumps(value)[:40] if _jsonable(value) else type(value).__name__})")
    return value


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def _expected_keys(folder: _RunFolder, passes: list[_Pass], csv_lines: dict) -> set[tuple[str, str, str, str]]:
    """(suite, task, model_safe, mode) of every run the batch launched, as far as its own files say: each task
    seen for every model and mode of ``batch_config.json``, and every row of the harness's CSV."""
    keys = {(p.suite, p.task, p.model_safe, p.mode) for p in passes}
    tasks = {(suite, task) for suite, task, _, _ in keys}
    modes = [m.get("name") if isinstance(m, dict) else m for m in folder.config.get("modes") or []]
    for suite, task in tasks:
        for model in folder.model_names:
            for mode in modes:
                if mode in MODES:
                    keys.add((suite, task, model, mode))
    for task, model, mode, _ in csv_lines:
        suite = _suite(task, folder.dir, folder.task_type)
        if suite is not None and mode in MODES:
            keys.add((suite, task, model, mode))
    return keys


def _pad(folder: _RunFolder, passes: list[_Pass], csv_lines: dict) -> list[_Pass]:
    """The passes the harness pads as ``infra_error`` because the tree has no entry for them (``missing_pass``),
    and the runs of a model or mode the batch ran whose folder is gone (``missing_from_tree``): the harness
    leaves those out without a word; here they are error runs, counted and shown."""
    by_key: dict[tuple, dict[int, _Pass]] = defaultdict(dict)
    for p in passes:
        by_key[(p.suite, p.task, p.model_safe, p.mode)][p.pass_num] = p
    expected = folder.expected_passes(p.pass_num for p in passes)
    for suite, task, model, mode in sorted(_expected_keys(folder, passes, csv_lines)):
        got = by_key.get((suite, task, model, mode), {})
        for k in range(1, expected + 1):
            if k not in got:
                line = csv_lines.get((task, model, mode, k))
                src = (folder.csv, line) if line else (folder.dir / model / mode, 1)
                passes.append(_Pass(folder.dir, src, suite, task, model, mode, k, "infra_error", None,
                                    reason="missing_pass" if got else "missing_from_tree"))
    for p in passes:
        p.meta["passes"] = expected
    return passes


def _csv_line_index(folder: _RunFolder) -> dict[tuple[str, str, str, int], int]:
    if not present(folder.csv):
        return {}
    index = {}
    for line, row in read_csv(folder.csv, CSV_COLUMNS):
        try:
            index[(row["task_name"], row["model"], row["mode"], int(float(row["pass_num"])))] = line
        except (TypeError, ValueError):
            continue  # the row itself is read (and rejected, if bad) in CSV mode only
    return index


# ----------------------------------------------------------------------------- CSV mode


def _csv_passes(folder: _RunFolder, out: Collected, also_read: set[Path]) -> list[_Pass]:
    """Rows of ``public_metrics/pass_level_metrics.csv`` when no per-pass tree is beside it."""
    passes = []
    trajectories = folder.dir / "public_metrics" / "trajectories"
    duplicate_of: dict[str, int] = defaultdict(int)
    for line, row in read_csv(folder.csv, CSV_COLUMNS):
        with out.row(folder.csv, line, "this run's files"):
            other = _row_run_folder(row.get("trajectory_dir") or "", folder.dir, row)
            if other is not None and other in also_read:
                duplicate_of[other.name] += 1
                continue
            task, model, mode = row["task_name"], row["model"], row["mode"]
            if mode not in MODES:
                raise RowError("mode", f"field 'mode' must be one of {', '.join(map(repr, MODES))} (got {mode!r})")
            if row["status"] not in STATUSES:
                raise RowError("status", f"field 'status' must be one of {', '.join(map(repr, STATUSES))}"
                                         f" (got {row['status']!r})")
            task_type = other.name.rsplit("_", 1)[-1] if other is not None and other.name[-4:] in ("_sql", "_swe") \
                else folder.task_type
            suite = _suite(task, folder.dir, task_type)
            if suite is None:
                raise RowError("task_name", f"field 'task_name' {task!r} does not say whether the task is SQL or SWE"
                               " (expected public_sql_<i> / public_swe_<i>, or a run folder ending _sql / _swe)")
            pass_num = _int(row["pass_num"], "pass_num")
            if pass_num is None or pass_num < 1:
                raise RowError("pass_num", f"field 'pass_num' must be an integer >= 1 (got {row['pass_num']!r})")
            resolved = _bool(row["resolved"], "resolved")
            p = _Pass(folder.dir, (folder.csv, line), suite, task, model, mode, pass_num, row["status"], resolved,
                      cost=_float(row["cost"], "cost"), num_steps=_float(row["num_steps"], "num_steps"),
                      tokens_sent=_float(row["tokens_sent"], "tokens_sent"),
                      tokens_received=_float(row["tokens_received"], "tokens_received"))
            n_traj = _int(row["num_questions"], "num_questions")
            p.harness_row = {"num_questions": n_traj,
                             "num_blockers_resolved": _int(row["num_blockers_resolved"], "num_blockers_resolved"),
                             "total_num_blockers": _int(row["total_num_blockers"], "total_num_blockers"),
                             "precision": _float(row["precision"], "precision"),
                             "recall": _float(row["recall"], "recall"), "f1": _float(row["f1"], "f1")}
            public = inside(trajectories, f"{mode}/{model}/{task}/pass_{pass_num}_trajectory.json", "model")
            if present(public):
                p.traj = _read_public_traj(public)
            if row["status"] == "infra_error":
                p.reason = "infra_error"
            elif p.traj is not None:
                p.reason = invalid_pass_reason(p.traj.steps)
            else:
                p.meta["validity_unchecked"] = "no exported trajectory"
            if mode == "ask_human" and p.traj is None:
                _questions_from_own_log(folder, p, n_traj or 0)
            passes.append(p)
    for name, n in sorted(duplicate_of.items()):
        out.skip(f"rows of the combined --task-type both CSV {folder.csv} already read from run folder {name}", n)
    return passes


def _row_run_folder(trajectory_dir: str, run_dir: Path, row: dict[str, str]) -> Path | None:
    """The sibling run folder a combined CSV row points into (``<root>/<run>_sql/<model>/<mode>/...``)."""
    parts = PurePath(trajectory_dir.replace("\\", "/")).parts
    for i in range(1, len(parts) - 1):
        if parts[i] == row.get("model") and parts[i + 1] == row.get("mode"):
            name = parts[i - 1]
            if name != run_dir.name and "/" not in name and name not in ("", ".", ".."):
                return run_dir.parent / name
    return None


def _questions_from_own_log(folder: _RunFolder, p: _Pass, n_traj: int) -> None:
    found = folder.logs.find(p.model_safe, p.mode, p.pass_num, p.task)
    if found is None:
        if n_traj:
            raise RowError("num_questions",
                           f"the run asked {n_traj} question(s) (field 'num_questions') but no ask_human server"
                           f" log holds instance {p.task}__{p.model_safe}__{p.mode}__pass_{p.pass_num} and no"
                           f" exported trajectory holds its questions (looked in"
                           f" {folder.logs.looked_in(p.model_safe, p.mode, p.pass_num)}); its questions would be lost")
        return
    file, entry = found
    p.iid = entry["iid"]
    p.questions = [{"text": q["question"], "blocker_id": q.get("blocker_name") or None, "response": q.get("response")}
                   for q in entry["questions"]]
    p.meta["questions_from"] = f"ask_human server log {file.name} (no trajectory)"
    if n_traj != len(p.questions):
        p.meta["num_questions_trajectory"] = n_traj
    answered = [i for i, q in enumerate(p.questions) if q["blocker_id"] is not None]
    if len(answered) >= MAX_ANSWERED and answered[MAX_ANSWERED - 1] < len(p.questions) - 1:
        p.meta["questions_after_cap"] = len(p.questions) - 1 - answered[MAX_ANSWERED - 1]


# ----------------------------------------------------------------------------- attribution


def _norm(s: Any) -> str:
    return s.strip() if isinstance(s, str) else ""


def _attribute(folder: _RunFolder, passes: list[_Pass], registry_answers: dict[str, dict[str, str]]) -> None:
    """Give every trajectory question its server-log entry (blocker, response); flag what does not fit.

    The harness logs every question of a task under one instance id when the expanded instances share
    ``extra_fields`` (the pinned commit's ``create_mixed_mode_instances``), so entries are matched by
    (question text, answer) across all of the task's log entries, in log order, never by instance id alone.
    """
    by_task: dict[str, list[_Pass]] = defaultdict(list)
    for p in passes:
        if p.traj is not None and p.mode == "ask_human":
            by_task[p.task].append(p)
    pooled = folder.logs.pooled() if by_task else {}
    for task, plist in by_task.items():
        entries = pooled.get(task, [])
        answers = {_norm(e.response): e.blocker for e in entries if e.blocker}
        answers.update({k: v for k, v in registry_answers.get(task, {}).items() if k not in answers})
        for p in sorted(plist, key=lambda p: (p.model_safe, p.pass_num)):
            qs, not_logged, unattributed, elsewhere = [], 0, 0, set()
            for step, text, obs in p.traj.asks:
                entry = _match(entries, text, obs)
                q = {"text": text, "response": obs.rstrip("\n") if isinstance(obs, str) else obs, "step": step}
                if entry is not None:
                    entry.used_by = p.iid
                    q["blocker_id"] = entry.blocker
                    if entry.iid != p.iid:
                        elsewhere.add(entry.iid)
                else:
                    not_logged += 1
                    if _norm(obs) in (HICCUP, IRRELEVANT) or not _norm(obs):
                        q["blocker_id"] = None
                    elif _norm(obs) in answers:  # the answer is a blocker's resolution, verbatim
                        q["blocker_id"] = answers[_norm(obs)]
                    else:
                        q["blocker_id"] = None
                        unattributed += 1
                qs.append(q)
            p.questions = qs
            if not_logged:
                p.meta["questions_not_in_log"] = not_logged
            if unattributed:
                p.meta["questions_unattributed"] = unattributed
            if elsewhere:
                p.meta["questions_logged_under"] = sorted(elsewhere)
        for e in entries:
            if e.used_by is None:
                folder.unmatched_log_entries[e.iid] += 1
        _flag_pooling(entries, plist)


def _match(entries: list[_Entry], text: str, obs: str) -> _Entry | None:
    for same_answer in (True, False):
        for e in entries:
            if e.used_by is None and e.text == text and (not same_answer or _norm(e.response) == _norm(obs)):
                return e
    return None


def _flag_pooling(entries: list[_Entry], plist: list[_Pass]) -> None:
    """Mark one instance id holding several passes' questions, and a 3-answer cap reached across passes."""
    by_iid: dict[str, list[_Entry]] = defaultdict(list)
    for e in entries:
        by_iid[e.iid].append(e)
    owner = {p.iid: p for p in plist}
    for iid, es in by_iid.items():
        users = {e.used_by for e in es if e.used_by}
        if len(users) > 1 and iid in owner:
            owner[iid].meta["log_holds_other_passes"] = len(users - {iid})
        answered = 0
        cap_users: set[str] = set()
        for e in sorted(es, key=lambda e: e.index):
            if e.blocker:
                answered += 1
                cap_users.add(e.used_by or "")
            elif answered >= MAX_ANSWERED and _norm(e.response) == IRRELEVANT and e.used_by \
                    and cap_users - {e.used_by}:
                p = owner.get(e.used_by)
                if p is not None:
                    p.meta["capped_by_other_passes"] = p.meta.get("capped_by_other_passes", 0) + 1


# ----------------------------------------------------------------------------- records


def _record(folder: _RunFolder, p: _Pass) -> dict[str, Any]:
    spec, ask_tool = MODES[p.mode]
    ok = p.reason is None
    model = folder.model_names.get(p.model_safe, p.model_safe)
    meta: dict[str, Any] = {"harness": "hil-bench", "writer": folder.writer, "mode": p.mode,
                            "run_dir": folder.dir.name, **({"instance_id": p.iid} if p.iid else {})}
    if model != p.model_safe:
        meta["model_safe"] = p.model_safe
    if p.reason:
        meta["error_reason"] = p.reason
        if p.resolved is not None:
            meta["harness_resolved"] = p.resolved
    meta["harness_row"] = p.harness_row
    hr = p.harness_row
    if hr.get("num_questions") and hr.get("num_blockers_resolved") is not None \
            and hr["num_blockers_resolved"] > hr["num_questions"]:
        meta["harness_precision_above_1"] = True
    meta.update(p.meta)
    if not ask_tool and p.questions:
        meta["num_questions_without_tool"] = len(p.questions)
    rec: dict[str, Any] = {
        "benchmark": "hil-bench", "suite": p.suite, "task_id": p.task, "model": model, "spec": spec,
        "ask_tool": ask_tool, "trial": p.pass_num, "status": "ok" if ok else "error",
        "passed": p.resolved if ok else None,
        "score": (1.0 if p.resolved else 0.0) if ok and p.resolved is not None else None,
        "cost_usd": p.cost, "steps": p.num_steps, "tokens_in": p.tokens_sent, "tokens_out": p.tokens_received,
        "questions": p.questions if ask_tool else [], "meta": meta,
    }
    return rec


# ----------------------------------------------------------------------------- registries


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


@guard("HIL-Bench blocker registries")
def read_hilbench_registries(path: str | os.PathLike[str], *, strict: bool = True
                             ) -> RunSet | tuple[RunSet, list[LoadError]]:
    """Read HIL-Bench blocker registries alone, as task records (the RunSet has no runs)."""
    out = Collected("HIL-Bench registry")
    for file, record in registry_task_records(Path(path)):
        out.add(file, 1, record)
    return finish(out, Path(path), strict=strict, require_runs=False)


# ----------------------------------------------------------------------------- entry point


@guard("HIL-Bench output")
def read_hilbench(path: str | os.PathLike[str], *, registries: str | os.PathLike[str] | None = None,
                  strict: bool = True, quiet: bool = False) -> RunSet | tuple[RunSet, list[LoadError]]:
    """Read HIL-Bench output (``run_hil_bench.py`` or the ``hil sql|swe`` CLI) into a RunSet.

    Parameters
    ----------
    path : path-like
        A run folder (``<out>/<run>/``), or a folder holding several (an output root, a
        ``--task-type both`` root with ``<run>_sql/``, ``<run>_swe/`` and the combined ``<run>/``).
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
        One run per instance and pass (the harness's pass-level rows, padded passes included);
        passes the harness leaves out of its statistics are ``error`` runs with
        ``meta.error_reason``. ``docs/importers.md`` gives the mapping field by field.
    """
    path = Path(path)
    require_exists(path)
    run_dirs = _run_dirs(path)
    if not run_dirs:
        raise FormatError(f"{path}: not a HIL-Bench run folder (no public_metrics/pass_level_metrics.csv or"
                          " batch_config.json here or below)")
    out = Collected("HIL-Bench run")
    task_records: list[tuple[Path, dict[str, Any]]] = []
    registry_answers: dict[str, dict[str, str]] = {}
    registered = set()
    if registries is not None:
        for file, record in registry_task_records(Path(registries)):
            task_records.append((file, record))
            registered.add((record["suite"], record["task_id"]))
            registry_answers[record["task_id"]] = (record.get("meta") or {}).get("resolutions", {})
    folders = []
    for run_dir in run_dirs:
        try:
            folders.append(_RunFolder(run_dir))
        except FormatError as exc:
            out.reject(run_dir, None, None, f"cannot read this run folder: {exc}")
    tree = {f.dir for f in folders if f.has_tree()}
    blockers_seen: dict[tuple[str, str], tuple[Path, list[str]]] = {}
    for folder in folders:
        try:
            passes = _tree_passes(folder, out) if folder.dir in tree else _csv_passes(folder, out, tree)
            _attribute(folder, passes, registry_answers)
            registered_here = folder.logs.registered()
        except FormatError as exc:
            out.reject(folder.dir, None, None, f"cannot read this run folder: {exc}")
            continue
        for p in passes:
            out.add(p.source[0], p.source[1], _record(folder, p))
            if p.mode == "ask_human" and p.task in registered_here:
                blockers_seen.setdefault((p.suite, p.task), registered_here[p.task])
    for file, record in task_records:
        out.add(file, 1, record)
    for (suite, task), (file, ids) in sorted(blockers_seen.items()):
        if (suite, task) not in registered:
            out.add(file, 1, {"record": "task", "benchmark": "hil-bench", "suite": suite, "task_id": task,
                              "blockers": [{"id": i} for i in ids],
                              "meta": {"blockers_from": "ask_human server log"}})
    return finish(out, path, strict=strict)
