"""One run folder and its per-pass tree (``<model_safe>/<mode>/[pass_<k>/]metrics.json``, ``preds.json``, each
instance's ``.traj``), as ``run_hil_bench.parse_metrics_rows`` reads it, written by ``run_hil_bench.py``
and the ``hil`` CLI; the passes the harness pads, and the runs of a model or mode whose files are gone."""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ambiglib.errors import FormatError
from ambiglib.importers._common import Collected, RowError, inside, present, read_csv, read_json
from ambiglib.importers._hilbench.conventions import (
    CONSOLIDATED_HIL,
    CSV_COLUMNS,
    MAX_PASSES,
    MODES,
    _float,
    _suite,
    ask_prf,
    model_safe,
)
from ambiglib.importers._hilbench.logs import _Logs
from ambiglib.importers._hilbench.trajectories import _read_traj, _Traj, invalid_pass_reason
from ambiglib.runlog._files import is_dir, listdir


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
    n_questions: int | None = n_traj if n_traj is not None else len(questions)
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
        self.config_file = run_dir / "batch_config.json"
        self.config: dict[str, Any] = {}
        if present(self.config_file):
            cfg = read_json(self.config_file)
            if not isinstance(cfg, dict):
                raise FormatError(f"{self.config_file}: must be an object (got {type(cfg).__name__})")
            self.config = cfg
        self.summary_file = run_dir / "public_metrics" / "summary_metrics.json"
        self.summary_meta: dict[str, Any] = {}
        if present(self.summary_file):
            s = read_json(self.summary_file)
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
        """The passes the batch ran (``batch_config.json`` ``passes``, else the summary's ``num_passes``, else the
        highest pass seen): every one missing is padded as an error run, so a count above :data:`MAX_PASSES`
        is refused, naming where it was read."""
        sources = ((self.config_file, "passes", self.config.get("passes")),
                   (self.summary_file, "metadata.num_passes", self.summary_meta.get("num_passes")))
        for file, name, value in sources:
            if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
                if value > MAX_PASSES:
                    raise FormatError(f"{file}: field '{name}' must be at most {MAX_PASSES:,} passes (got {value});"
                                      f" each pass missing from the run folder would be padded as an error run")
                return value
        highest = max(seen, default=1)
        if highest > MAX_PASSES:
            raise FormatError(f"{self.dir}: a pass numbered {highest} is beyond {MAX_PASSES:,} passes; each pass"
                              f" below it that is missing would be padded as an error run")
        return highest

    def pass_dirs(self) -> list[tuple[str, str, int, Path]]:
        """(model_safe, mode, pass, folder) for every pass folder holding metrics.json and preds.json."""
        out = []
        for model_dir in [p for p in listdir(self.dir) if is_dir(p) and p.name not in ("metadata", "public_metrics")]:
            for mode_dir in [p for p in listdir(model_dir) if is_dir(p)]:
                # pass folders wherever any is there (the harness looks for pass_1 only: with it gone, it read
                # no pass of the mode at all); the passes missing are padded (_pad)
                dirs = sorted((p for p in listdir(mode_dir) if is_dir(p) and re.fullmatch(r"pass_\d+", p.name)),
                              key=lambda p: int(p.name[5:])) or [mode_dir]
                for d in dirs:
                    if not os.access(d, os.R_OK | os.X_OK):  # a pass folder this user cannot read: the load names
                        continue  # it (files.unreadable), and its runs are padded as missing (_pad)
                    if present(d / "metrics.json") and present(d / "preds.json"):
                        out.append((model_dir.name, mode_dir.name, int(d.name[5:]) if d.name.startswith("pass_")
                                    else 1, d))
        return out

    def has_tree(self) -> bool:
        return bool(self.pass_dirs())


# complexity over 15 (noqa: C901 below): one branch per pass layout of the harness
def _tree_passes(folder: _RunFolder, out: Collected) -> list[_Pass]:  # noqa: C901
    """What ``parse_metrics_rows`` reads from the per-pass tree, one _Pass per instance and pass."""
    csv_lines = _csv_line_index(folder)
    passes: list[_Pass] = []
    for safe_name, mode, pass_num, pdir in folder.pass_dirs():
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
            pass_hil = _numbers(_typed(metrics, "hil_metrics", dict), "hil_metrics.") if not present(own_log_file) else {}
            # a field of a type the harness never writes is an error, not an empty value ("results": true made
            # every instance not completed: infra_error)
            results = _typed(metrics, "results", dict)
            raw_eval = _typed(metrics, "raw_eval_results", dict)
            swe_results = _typed(raw_eval, "results", dict, "raw_eval_results.")
            swe_errors = set(_typed(raw_eval, "error_ids", list, "raw_eval_results."))
            swe_resolved = set(_typed(metrics, "resolved_instances", list))
            inst_metrics = _typed(metrics, "instances", dict)
            for key, value in inst_metrics.items():  # the harness writes one object an instance (its cost, runtime)
                if not isinstance(value, dict):
                    raise RowError("instances", f"field 'instances.{key}' must be an object (got"
                                                f" {json.dumps(value)[:40] if _jsonable(value) else type(value).__name__})")
            for iid in preds:
                task = iid.split("__")[0]
                suite = _suite(task, folder.dir, folder.task_type)
                line = csv_lines.get((task, safe_name, mode, pass_num))
                source = (folder.csv, line) if line else (metrics_file, 1)
                with out.row(*source, "this instance's files"):
                    if suite is None:
                        raise RowError("task_name", f"instance {iid!r} does not say whether the task is SQL or SWE"
                                       " (no task_type in batch_config.json, no public_sql_/public_swe_ name,"
                                       " no _sql/_swe run folder)")
                    # the instance id is a key of preds.json: the trajectory it names must be in this pass's folder
                    traj_file = inside(pdir, f"{iid}/{iid}.traj", "instance_id")
                    traj = _read_traj(traj_file) if present(traj_file) else None
                    ts = traj.stats if traj else {}
                    if suite == "sql":
                        r = _typed(results, iid, dict, "results.")
                        completed: bool | None = _flag(r, "completed", f"results.{iid}.")
                        resolved = _flag(r, "resolved", f"results.{iid}.") if completed else None
                        status = "infra_error" if not completed else ("resolved" if resolved else "unresolved")
                        cost = r.get("cost", ts.get("cost"))
                        steps = ts.get("num_steps") or r.get("num_steps")
                    else:
                        if "raw_eval_results" not in metrics:
                            # calculate_pass_at_1 writes it for every SWE pass; run_hil_bench.py reads its absence
                            # as every instance not completed, so a cut file would pass as infra errors
                            raise RowError("raw_eval_results", f"{metrics_file}: field 'raw_eval_results' is missing"
                                           " (the harness writes the SWE evaluation there for every SWE pass; without"
                                           " it this instance cannot be scored)")
                        r = swe_results.get(iid) or swe_results.get(task) or {}
                        completed = (_flag(r, "completed", f"raw_eval_results.results.{iid}.")
                                     if isinstance(r, dict) else None)
                        resolved = iid in swe_resolved
                        if task in swe_errors or iid in swe_errors or not completed:
                            status, resolved = "infra_error", None
                        else:
                            status = "resolved" if resolved else "unresolved"
                        im = _typed(inst_metrics, iid, dict, "instances.")
                        cost = im.get("cost", ts.get("cost"))
                        steps = ts.get("num_steps") or im.get("num_steps")
                    p = _Pass(folder.dir, source, suite, task, safe_name, mode, pass_num, status, resolved,
                              cost=_float(cost, "cost"), num_steps=_float(steps, "num_steps"),
                              tokens_sent=_float(ts.get("tokens_sent"), "tokens_sent"),
                              tokens_received=_float(ts.get("tokens_received"), "tokens_received"), iid=iid, traj=traj)
                    n_traj = len(traj.asks) if traj else None
                    h = own_log.get(iid) or {}
                    p.harness_row = _harness_hil_row(h, n_traj, pass_hil)
                    # what batch_runner's per-pass metrics (consolidated_metrics.json) are summed from
                    im = _typed(inst_metrics, iid, dict, "instances.")
                    pred = preds[iid]
                    if not isinstance(pred, dict):
                        raise RowError("preds.json", f"{preds_file}: entry {iid!r} must be an object (found"
                                                     f" {type(pred).__name__})")
                    missing = [k for k in ("instance_id", "model_patch") if k not in pred]
                    if missing:  # SWE-agent writes both for every instance (the patch null or "" when none)
                        raise RowError("preds.json", f"{preds_file}: entry {iid!r} has no field"
                                                     f" {' or '.join(map(repr, missing))}")
                    if pred["instance_id"] != iid:
                        raise RowError("preds.json", f"{preds_file}: entry {iid!r} names instance"
                                                     f" {str(pred['instance_id'])[:60]!r}")
                    if pred.get("model_patch") is not None and not isinstance(pred["model_patch"], str):
                        raise RowError("model_patch", f"{preds_file}: field '{iid}.model_patch' must be the patch"
                                                      f" text or null (found {type(pred['model_patch']).__name__})")
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


def _flag(container: dict, key: str, where: str) -> bool:
    """``container[key]``, a JSON true or false as the harness writes it (absent or null: false). Any other value
    is a RowError: read as Python reads it, a list or a string would count as true (a fuzzed ``resolved``
    made a failed run pass)."""
    value = container.get(key)
    if value is None:
        return False
    if not isinstance(value, bool):
        shown = json.dumps(value)[:40] if _jsonable(value) else type(value).__name__
        raise RowError(where + key, f"field '{where}{key}' must be true or false (got {shown})")
    return value


def _numbers(values: dict, where: str) -> dict:
    """A harness dict of counts and rates (``hil_metrics``): each value a number or null, else a RowError."""
    for key, value in values.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise RowError(where + key, f"field '{where}{key}' must be a number or null"
                                        f" (got {json.dumps(value)[:40] if _jsonable(value) else type(value).__name__})")
    return values


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
        row_suite = _suite(task, folder.dir, folder.task_type)
        if row_suite is not None and mode in MODES:
            keys.add((row_suite, task, model, mode))
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
