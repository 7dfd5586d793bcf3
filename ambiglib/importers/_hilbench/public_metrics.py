"""A copied ``public_metrics/`` folder alone: the rows of ``pass_level_metrics.csv``, with questions from the
exported public trajectories, else from the server log under each instance's own id."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path, PurePath

from ambiglib.importers._common import Collected, RowError, inside, present, read_csv
from ambiglib.importers._hilbench.conventions import (
    CSV_COLUMNS,
    MAX_ANSWERED,
    MODES,
    STATUSES,
    _bool,
    _float,
    _int,
    _suite,
)
from ambiglib.importers._hilbench.trajectories import _read_public_traj, invalid_pass_reason
from ambiglib.importers._hilbench.tree import _Pass, _RunFolder


def _csv_passes(folder: _RunFolder, out: Collected, also_read: set[Path], refused: set[Path]) -> list[_Pass]:
    """Rows of ``public_metrics/pass_level_metrics.csv`` when no per-pass tree is beside it, but those of a sibling
    run folder (a combined ``--task-type both`` CSV) read from its tree or refused, counted as skipped."""
    passes = []
    trajectories = folder.dir / "public_metrics" / "trajectories"
    left_out: dict[tuple[str, bool], int] = defaultdict(int)  # (sibling run folder, read from its tree): rows
    for line, row in read_csv(folder.csv, CSV_COLUMNS):
        with out.row(folder.csv, line, "this run's files"):
            other = _row_run_folder(row.get("trajectory_dir") or "", folder.dir, row)
            if other is not None and (other in also_read or other in refused):
                left_out[other.name, other in also_read] += 1
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
    for (name, was_read), n in sorted(left_out.items()):
        why = f"already read from run folder {name}" if was_read else \
            f"of run folder {name}, which is refused (its error says why)"
        out.skip(f"rows of the combined --task-type both CSV {folder.csv} {why}", n)
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
