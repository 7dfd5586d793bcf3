"""Ambig-DS, both tracks: ``results/<run>/<slug>/`` folders and ``results/<run>/_runlog.jsonl``.

The mapping into the canonical run log is documented in ``docs/importers.md``.
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Any, Literal, overload

from ambiglib.errors import FormatError, LoadError
from ambiglib.importers._common import (
    Collected,
    RowError,
    check_loaded_transcript,
    finish,
    guard,
    present,
    read_json,
    read_jsonl,
)
from ambiglib.importers._reader import Reader, ReadOptions
from ambiglib.runlog._files import is_dir, is_file, listdir, matching, subfolders
from ambiglib.runlog._jsonl import TRANSCRIPT_AT, require_exists
from ambiglib.runset import RunSet

__all__ = ["read_ambigds", "parse_run_name", "is_ambigds_layout", "read_transcript"]

RUN_NAME = re.compile(
    r"^opencode_(?P<model>.+?)_(?P<variant>full|ambig_metric|ambig_target)"
    r"(?P<arm>_clarify|_ask_only)?(?P<strict>_strict)?$"
)
SUITES = {"ambig_metric": "objective", "ambig_target": "target"}
#: the single open point of an ambiguous task, per track: its blocker id
BLOCKER = {"target": "target", "objective": "metric"}
#: metric-track judge labels → the paper's framing categories (harness-formats §2.3; ours where it is silent)
JUDGE_CATEGORY = {"Intended": "intended", "WrongObjective": "alternative", "Abdicated": "degenerate",
                  "Invalid": "invalid", "FormBroken": "form_broken", "Other": "other"}
REFUSAL = "REFUSE:"
#: _runlog.jsonl statuses of attempts that failed in the harness, not in the agent (or never ran: a
#: ``--dry-run`` invocation); each leaves a task folder that is empty or holds only what ran before the failure
HARNESS_FAILURES = ("build_failed", "build_failed_ask", "build_failed_solve", "manifest_missing", "dry_run")
#: _runlog.jsonl statuses of invocations that left a task's existing result alone
RUNLOG_SKIPS = ("skipped_existing", "skipped")
#: files a task folder can hold
TASK_FILES = ("_grade.json", "_traj.json", "_clarify.json", "_target_audit.json")


def parse_run_name(name: str) -> dict[str, Any]:
    """Split ``opencode_<model>_<variant>[_clarify|_ask_only][_strict]`` into the run's condition."""
    m = RUN_NAME.match(name)
    if not m:
        raise FormatError(
            f"{name}: not an Ambig-DS run name; expected opencode_<model>_<full|ambig_metric|ambig_target>"
            "[_clarify|_ask_only][_strict]"
        )
    arm = m.group("arm") or ""
    ask_tool = bool(arm)
    return {
        "model": m.group("model"), "variant": m.group("variant"),
        "spec": "full" if m.group("variant") == "full" else "ambiguous", "ask_tool": ask_tool,
        "protocol": "ask_only" if arm == "_ask_only" else "solve",
        "policy": ("conservative" if m.group("strict") else "permissive") if ask_tool else "default",
        "strict": bool(m.group("strict")),
    }


def _is_task_dir(path: Path) -> bool:
    return any(is_file(path / f) for f in TASK_FILES) or bool(matching(path, "_audit.*.json"))


def _is_runlog(file: Path) -> bool:
    """An Ambig-DS ``_runlog.jsonl``: its first line is an object with ``slug`` and ``status``."""
    try:
        with open(file, encoding="utf-8") as fh:
            first = fh.readline(1 << 20)
        obj = json.loads(first)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):  # (nesting too deep for json to decode)
        return False
    return isinstance(obj, dict) and "slug" in obj and "status" in obj


def _is_run_dir(path: Path) -> bool:
    """A run folder: ``--run-name`` is free, so it is known by its contents, not its name."""
    if not is_dir(path) or path.name.startswith("_"):
        return False
    if is_file(path / "_runlog.jsonl") and _is_runlog(path / "_runlog.jsonl"):
        return True
    return any(_is_task_dir(d) for d in listdir(path) if is_dir(d) and not d.name.startswith("_"))


def _run_dirs(path: Path) -> list[Path]:
    if _is_run_dir(path) and not any(_is_run_dir(d) for d in listdir(path) if is_dir(d)):
        return [path]
    found = [p for p in sorted(path.glob("*")) if _is_run_dir(p)]
    if not found:
        found = [p for pattern in ("*/*", "*/results/*") for p in sorted(path.glob(pattern)) if _is_run_dir(p)]
    # a run folder's task folders are never run folders of their own
    return sorted(p for p in set(found) if not _is_task_dir(p))


def is_ambigds_layout(path: Path) -> bool:
    return is_dir(path) and bool(_run_dirs(path))


# ----------------------------------------------------------------------------- one task folder


def _cost(value: Any) -> tuple[float | None, bool]:
    """``_traj.json.cost`` is a string: "", "0.012345" or "~0.012345" (estimated)."""
    if value in (None, ""):
        return None, False
    text = str(value).strip()
    estimated = text.startswith("~")
    try:
        return float(text.lstrip("~")), estimated
    except ValueError:
        raise RowError("cost", f"field 'cost' must be a cost string like '0.01' or '~0.01' (got {value!r})") from None


def _track_of(run_dir: Path, variant: str, forced: str | None) -> str | None:
    if forced:
        return forced
    if variant in SUITES:
        return SUITES[variant]
    for slug_dir in [p for p in listdir(run_dir) if is_dir(p)]:
        grade = slug_dir / "_grade.json"
        if present(slug_dir / "_target_audit.json"):
            return "target"
        if list(slug_dir.glob("_audit.*.json")):
            return "objective"
        if present(grade):
            data = read_json(grade)
            if isinstance(data, dict) and ("score_rpg" in data or "rpg_gt" in data):
                return "target"
            if isinstance(data, dict) and ("competition_id" in data or "score_norm_01" in data):
                return "objective"
    return None


def _labels_from_audit(files: list[Path], meta: dict[str, Any]) -> list[dict[str, Any]]:
    labels = []
    for file in files:
        audit = read_json(file)
        if not isinstance(audit, dict):
            raise RowError("judge_parsed", f"{file}: an audit must be an object (got {type(audit).__name__})")
        judge = audit.get("judge_model") or file.name[len("_audit."):-len(".json")]
        votes = audit.get("judge_votes")
        if votes is None:  # one judge call: its parsed label is the label
            parsed = audit.get("judge_parsed")
            votes = [{"parsed": parsed}]
        unparsed = 0
        for i, vote in enumerate(votes, 1):
            parsed = vote.get("parsed") if isinstance(vote, dict) else None
            if not isinstance(parsed, dict) or not parsed.get("label"):
                unparsed += 1  # the harness drops unparseable votes from the majority too
                continue
            label = parsed["label"]
            labels.append({"facet": "objective", "label": str(label), "judge": str(judge), "call": i})
            conf = parsed.get("confidence")
            if isinstance(conf, (int, float)) and not isinstance(conf, bool):
                meta.setdefault("judge_confidence", {}).setdefault(str(judge), {})[str(i)] = float(conf)
        if unparsed:
            meta.setdefault("audit_unparsed_votes", {})[str(judge)] = unparsed
    return labels


def _category(status: str, labels: list[dict[str, Any]], target_audit: dict[str, str] | None) -> str | None:
    """The paper's five-way framing category, derived (harness-formats §2.3)."""
    if status in ("invalid", "timeout"):
        return status
    if target_audit is not None:
        return {"intended": "intended", "alternative": "alternative"}.get(target_audit["label"])
    if not labels:
        return None
    import pandas as pd

    frame = pd.DataFrame([{"run": 0, "label": lab["label"]} for lab in labels])
    from ambiglib.agreement import majority_vote  # deferred, as pandas is: only a folder that needs a vote loads it

    vote = majority_vote(frame, by=("run",))  # a tie leaves the category unset: reported, not broken
    winner = vote["label"].iloc[0]
    return JUDGE_CATEGORY.get(winner, str(winner).lower()) if winner is not None else None


def _question(clarify: dict[str, Any], cond: dict[str, Any], suite: str) -> dict[str, Any]:
    question = str(clarify.get("question") or "").strip()
    answer = clarify.get("answer")
    refused = bool(clarify.get("refused")) or str(answer or "").startswith(REFUSAL)
    return {"text": question or "(question not kept)",
            # an answered question on an ambiguous task addresses its one open point
            "blocker_id": BLOCKER[suite] if cond["spec"] == "ambiguous" and not refused else None,
            # an answer that is not text is never spelt: the load's check of the conversation refuses the run
            "response": answer,
            "in_scope": not refused}


def _target_label(slug_dir: Path, meta: dict[str, Any]) -> list[dict[str, Any]]:
    """step 7's regex audit of the task's code, as a ``target`` label."""
    file = slug_dir / "_target_audit.json"
    if not present(file):
        return []
    audit = read_json(file)
    if not isinstance(audit, dict) or not isinstance(audit.get("label"), str):
        raise RowError("label", f"{file}: missing field 'label'")
    reason = audit.get("reason")
    if reason is not None and not isinstance(reason, str):  # step 7 writes the regex that matched, as text
        raise RowError("reason", f"{file}: field 'reason' must be text (got {type(reason).__name__})")
    meta["target_audit_reason"] = reason
    return [{"facet": "target", "label": audit["label"], "judge": "regex-audit", "call": 1}]


def _read_clarify(file: Path) -> dict[str, Any]:
    """A task's ``_clarify.json``: an object with the ask decision ``asked``, true or false."""
    clarify = read_json(file)
    if not isinstance(clarify, dict) or "asked" not in clarify:
        raise RowError("asked", f"{file}: missing field 'asked' (the ask decision)")
    if not isinstance(clarify["asked"], bool):
        raise RowError("asked", f"{file}: field 'asked' must be true or false (got {clarify['asked']!r})")
    return clarify


# complexity over 15 (noqa: C901 below): a harness record read field by field
def _read_task(run_dir: Path, slug_dir: Path, cond: dict[str, Any], suite: str) -> tuple[Path, dict[str, Any]]:  # noqa: C901
    files = {name: slug_dir / name for name in TASK_FILES}
    rec = _base_record(run_dir, slug_dir.name, cond, suite)
    meta = rec.pop("meta")
    clarify = None
    if cond["ask_tool"]:
        if not present(files["_clarify.json"]):
            raise RowError("_clarify.json", f"{slug_dir}: a clarify run's task folder must hold _clarify.json"
                           f" (found {', '.join(sorted(p.name for p in slug_dir.iterdir())) or 'nothing'})")
        clarify = _read_clarify(files["_clarify.json"])
        if clarify["asked"]:
            rec["questions"] = [_question(clarify, cond, suite)]
            truncated = clarify.get("question_truncated")
            if truncated is not None and not isinstance(truncated, bool):  # the harness writes true or false
                raise RowError("question_truncated", f"{files['_clarify.json']}: field 'question_truncated' must be"
                                                     f" true or false (got {json.dumps(truncated)[:40]})")
            if truncated:
                meta["question_truncated"] = True
        for key in ("answerer_model", "answerer_error", "ask_timed_out", "ask_iters"):
            value = clarify.get(key)
            if isinstance(value, (dict, list)):
                raise RowError(key, f"{files['_clarify.json']}: field '{key}' must be a string, number or"
                                    f" true/false (got {type(value).__name__})")
            if value not in (None, False, ""):
                meta[key] = value
    source = files["_traj.json"] if present(files["_traj.json"]) else files["_clarify.json"]
    if cond["protocol"] == "ask_only":
        cost, estimated = _cost(clarify.get("ask_cost") if clarify else None)
        rec.update(cost_usd=cost, duration_s=clarify.get("ask_time_sec") if clarify else None)
        if estimated:
            meta["cost_estimated"] = True
        rec["meta"] = meta
        _check_transcript(None, None, clarify, files["_clarify.json"], len(rec.get("questions") or []))
        rec[TRANSCRIPT_AT] = _transcript_at(None, files["_clarify.json"])
        return files["_clarify.json"], rec

    if not present(files["_traj.json"]):
        raise RowError("_traj.json", f"{slug_dir}: the task folder must hold _traj.json (found"
                       f" {', '.join(sorted(p.name for p in slug_dir.iterdir())) or 'nothing'})")
    traj = read_json(files["_traj.json"])
    if not isinstance(traj, dict):
        raise RowError("_traj.json", f"{files['_traj.json']}: must be an object")
    if traj.get("timed_out") is not None and not isinstance(traj.get("timed_out"), bool):
        raise RowError("timed_out", f"{files['_traj.json']}: field 'timed_out' must be true or false"
                                    f" (got {traj['timed_out']!r:.60})")
    timed_out = bool(traj.get("timed_out")) or str(traj.get("summary", "")).startswith("ERROR: timeout")
    cost, estimated = _cost(traj.get("cost"))
    if clarify and clarify.get("ask_cost") not in (None, ""):
        ask_cost, ask_est = _cost(clarify["ask_cost"])
        meta["ask_cost_usd"] = ask_cost
        cost = (cost or 0.0) + (ask_cost or 0.0)  # _traj.json.cost covers the solve phase only
        estimated = estimated or ask_est
    if estimated:
        meta["cost_estimated"] = True
    rec.update(cost_usd=cost, duration_s=traj.get("elapsed_sec"), steps=traj.get("iterations"))

    grade = read_json(files["_grade.json"]) if present(files["_grade.json"]) else None
    if grade is not None and not isinstance(grade, dict):
        raise RowError("_grade.json", f"{files['_grade.json']}: must be an object")
    for key in ("score_rpg", "score_norm_01", "score"):  # kept in meta even where the run is not scored
        value = grade.get(key) if grade else None
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                  or not math.isfinite(value)):
            raise RowError(key, f"{files['_grade.json']}: field '{key}' must be a number or null"
                                f" (found {str(value)[:60]!r})")
    meta["harness_score"] = grade.get("score_rpg" if suite == "target" else "score_norm_01") if grade else None
    if suite == "target":
        score = grade.get("score_rpg") if grade else None
        scorable = bool(grade and "error" not in grade and grade.get("submission_exists", True) is not False)
        if grade and grade.get("rpg_error"):
            meta["rpg_error"] = grade["rpg_error"]
    else:
        score = grade.get("score_norm_01") if grade else None
        scorable = bool(grade and "error" not in grade and grade.get("valid_submission", False))
        if grade and scorable and score is None:  # scorable implies a grade: said for the type checker
            raise RowError("score_norm_01", f"{files['_grade.json']}: field 'score_norm_01' is missing from a valid"
                           f" submission's grade (found score {grade.get('score')!r}): these metric-track results"
                           " have not been normalised yet; run the harness's"
                           " evaluate/ambig_ds_metric/normalize_scores.py --results-root"
                           f" {run_dir.parent} on them first (it adds score_norm_01 to every _grade.json)")
        if grade and grade.get("score") is not None:
            meta["raw_score"] = grade["score"]
    if grade and grade.get("error"):
        meta["grade_error"] = grade["error"]
    if grade == {}:
        # a grade file with nothing in it: the harness's step 6 reads no score_rpg and leaves the task out of
        # every statistic (``_load_run`` "skips missing/null"); so does an error run, counted and shown
        rec["status"] = "error"
        meta.update(error_reason="grade_empty", status_reason="_grade.json is {}: the harness's step 6 leaves the"
                                                            " task out")
    elif not scorable:
        # the paper's rule: no scorable submission scores 0 and stays in the denominator
        rec["status"], rec["score"] = ("timeout" if timed_out else "invalid"), 0.0
        meta["status_reason"] = _unscorable(grade, suite, timed_out)
        if grade is None:
            meta["grade_missing"] = True
    else:
        rec["status"], rec["score"] = "ok", score
        if score is None:
            meta["unscored"] = "score_rpg is null (baselines missing or gt == baseline)"
        if timed_out:
            meta["timed_out_with_submission"] = True

    labels = _labels_from_audit(sorted(slug_dir.glob("_audit.*.json")), meta)
    target = _target_label(slug_dir, meta)
    labels += target
    target_audit = {"label": target[0]["label"]} if target else None
    if labels:
        rec["labels"] = labels
    rec["category"] = _category(rec["status"], labels, target_audit)
    rec["meta"] = meta
    _check_transcript(traj, files["_traj.json"], clarify, files["_clarify.json"], len(rec.get("questions") or []))
    rec[TRANSCRIPT_AT] = _transcript_at(files["_traj.json"], files["_clarify.json"] if clarify is not None else None)
    return source, rec


# ----------------------------------------------------------------------------- a run folder


# complexity over 15 (noqa: C901 below): one branch per file the harness may write
def _condition_from_files(run_dir: Path, runlog: list[tuple[int, Any]]) -> dict[str, Any]:  # noqa: C901
    """A ``--run-name`` run's condition, from what its files record (``model``, ``variant``, ask flags)."""
    models: dict[str, str] = {}
    variants: dict[str, str] = {}
    ask = ask_only = strict = False
    for slug_dir in [d for d in listdir(run_dir) if is_dir(d) and not d.name.startswith("_")]:
        for name in ("_traj.json", "_clarify.json"):
            file = slug_dir / name
            if not present(file):
                continue
            data = read_json(file)
            if not isinstance(data, dict):
                raise FormatError(f"{file}: must be an object (got {type(data).__name__})")
            if isinstance(data.get("model"), str):
                models.setdefault(data["model"], str(file))
            if isinstance(data.get("variant"), str):
                variants.setdefault(data["variant"], str(file))
            if name == "_clarify.json":
                ask = True
                ask_only = ask_only or bool(data.get("clarify_only"))
                strict = strict or bool(data.get("strict_protocol"))
    for line, entry in runlog:
        if not isinstance(entry, dict):
            continue
        where = f"{run_dir / '_runlog.jsonl'}:{line}"
        if isinstance(entry.get("model"), str):
            models.setdefault(entry["model"], where)
        if isinstance(entry.get("variant"), str):
            variants.setdefault(entry["variant"], where)
        if "asked" in entry or entry.get("status") in ("ask_only_done", "build_failed_ask", "build_failed_solve"):
            ask = True
        ask_only = ask_only or entry.get("status") == "ask_only_done"
    for what, found in (("model", models), ("variant", variants)):
        if len(found) != 1:
            seen = ", ".join(f"{v!r} ({w})" for v, w in found.items()) or "none"
            raise FormatError(f"{run_dir}: the run name does not follow opencode_<model>_<variant>[...], and its"
                              f" files must then name exactly one {what} (_traj.json, _clarify.json, _runlog.jsonl"
                              f" '{what}'); found {seen}")
    variant = next(iter(variants))
    if variant not in ("full", *SUITES):
        raise FormatError(f"{variants[variant]}: field 'variant' must be 'full', 'ambig_target' or 'ambig_metric'"
                          f" (got {variant!r})")
    return {"model": next(iter(models)), "variant": variant, "spec": "full" if variant == "full" else "ambiguous",
            "ask_tool": ask, "protocol": "ask_only" if ask_only else "solve",
            "policy": ("conservative" if strict else "permissive") if ask else "default", "strict": strict,
            "from_files": True}


def _sibling_track(run_dir: Path) -> str | None:
    """The one track of the ambiguous runs beside this one, if they all share it."""
    tracks = {SUITES[m.group("variant")] for p in run_dir.parent.glob("opencode_*")
              if (m := RUN_NAME.match(p.name)) and m.group("variant") in SUITES}
    return tracks.pop() if len(tracks) == 1 else None


# complexity over 15 (noqa: C901 below): a harness record read field by field
def _read_run(run_dir: Path, out: Collected, track: str | None, slugs_by_suite: dict[str, set[str]]) -> int:  # noqa: C901
    """Read one run folder into ``out``; return how many tasks it holds (task folders and runlog entries)."""
    runlog = run_dir / "_runlog.jsonl"
    entries: list[tuple[int, Any]] = list(read_jsonl(runlog)) if present(runlog) else []
    if present(runlog) and not entries:
        # the harness appends a line per task attempt, so a runlog that is there has lines: one emptied would take
        # its runs' statuses with it, and hide the tasks that ran and whose folders are gone (task_folder_missing)
        out.reject(runlog, None, None, "empty: the harness writes one line per task attempt, so the runs' statuses"
                                       " and any task whose folder is gone are lost (the task folders are still read)")
    try:
        cond = parse_run_name(run_dir.name)
    except FormatError:
        try:
            cond = _condition_from_files(run_dir, entries)
        except FormatError as exc:
            out.reject(run_dir, None, "run name", str(exc).split(": ", 1)[1])
            return 0
    # a full run says its track only through its files; an ask-only one (just _clarify.json) not even
    # there, so it takes the track of the ambiguous runs beside it when they all share one
    suite = _track_of(run_dir, cond["variant"], track) or _sibling_track(run_dir)
    if suite is None:
        out.reject(run_dir, None, "track", "cannot tell whether this run is on the target or the objective"
                   " track (a full run with no graded task, beside runs of both tracks or none); pass"
                   " track='target' or track='objective'")
        return 0
    # one line per task and invocation, appended: a task's last invocation that did something stands;
    # every other line (earlier invocations, re-invocations that skipped an existing result) is counted
    last_status: dict[str, tuple[int, str]] = {}
    for line, entry in entries:
        if not isinstance(entry, dict) or "slug" not in entry or "status" not in entry:
            out.reject(runlog, line, "slug", "each _runlog.jsonl line must be an object with 'slug' and 'status'")
            continue
        wrong = next((f for f in ("slug", "status") if not isinstance(entry[f], str)), None)
        if wrong is not None:  # the harness writes both as text: anything else would be read as another status
            out.reject(runlog, line, wrong, f"expected text, as the harness writes it, found"
                                            f" {type(entry[wrong]).__name__} {json.dumps(entry[wrong])[:60]}")
            continue
        slug, status = entry["slug"], entry["status"]
        if status in RUNLOG_SKIPS:
            out.skip(f"_runlog.jsonl line with status {status!r} (the task's result is read from its folder)")
            continue
        if slug in last_status:
            out.skip("_runlog.jsonl line of an earlier invocation (the task's last invocation stands)")
        last_status[slug] = (line, status)
    slug_dirs = {p.name: p for p in listdir(run_dir) if is_dir(p) and not p.name.startswith("_")}
    for slug, slug_dir in slug_dirs.items():
        status = last_status.get(slug, (None, None))[1]
        with out.row(slug_dir, None, "this task's files"):
            if status in HARNESS_FAILURES and not present(slug_dir / "_traj.json"):
                source, rec = _failed_task(run_dir, slug_dir, cond, suite, status)
                line = last_status[slug][0]
                out.add(runlog, line, rec)
            else:
                source, rec = _read_task(run_dir, slug_dir, cond, suite)
                if status is not None:
                    rec["meta"]["runlog_status"] = status
                out.add(source, 1, rec)
            slugs_by_suite.setdefault(suite, set()).add(slug)
    for slug, (line, status) in sorted(last_status.items()):
        if slug in slug_dirs:
            continue
        if status in HARNESS_FAILURES:
            # the harness could not start the task: an error run, kept and counted. Its folder (empty when the
            # harness left it) is not here: empty folders do not survive a copy through git or most archives
            rec = _base_record(run_dir, slug, cond, suite)
            rec["status"] = "error"
            rec["meta"].update(runlog_status=status, error_reason=status, task_folder="absent")
            rec[TRANSCRIPT_AT] = {"none": f"the Ambig-DS harness did not run the agent on this task (runlog status"
                                          f" {status!r}) and its task folder is not here"}
            out.add(runlog, line, rec)
            slugs_by_suite.setdefault(suite, set()).add(slug)
        else:
            # the task ran (the runlog says so), but its folder, and with it its result, is gone: an error run,
            # counted and shown, not a run that vanishes
            rec = _base_record(run_dir, slug, cond, suite)
            rec["status"] = "error"
            rec["meta"].update(runlog_status=status, error_reason="task_folder_missing", task_folder="absent")
            rec[TRANSCRIPT_AT] = {"none": "the Ambig-DS task folder, which held the run's _traj.json and"
                                          " _clarify.json, is gone (only its _runlog.jsonl line is here)"}
            out.add(runlog, line, rec)
            slugs_by_suite.setdefault(suite, set()).add(slug)
    return len(set(slug_dirs) | set(last_status))


def _unscorable(grade: dict[str, Any] | None, suite: str, timed_out: bool) -> str:
    """Why a run scores 0 as invalid (or timeout), and where the harness's own reading of its grade differs."""
    if grade is None:
        why = "no _grade.json"
    elif grade.get("error"):
        why = f"grading error ({str(grade['error'])[:80]})"
    elif grade.get("submission_exists") is False:
        why = "no submission (submission_exists false)"
    elif suite == "objective" and not grade.get("valid_submission", False):
        why = "no valid submission (valid_submission false or absent)"
    else:
        why = "no scorable submission"
    why += " and timed out" if timed_out else ""
    harness = grade.get("score_rpg" if suite == "target" else "score_norm_01") if grade else None
    if harness is None:
        return why + "; scored 0 as the paper does (§5.1), where the harness's step 6 leaves the task out"
    if harness != 0:
        return why + f"; scored 0 as the paper does (§5.1), where the harness reads {harness!r}"
    return why


def _base_record(run_dir: Path, slug: str, cond: dict[str, Any], suite: str) -> dict[str, Any]:
    meta: dict[str, Any] = {"harness": "ambig-ds", "run_name": run_dir.name}
    if cond.get("from_files"):
        meta["condition_from"] = "task files (custom --run-name)"
    return {"benchmark": "ambig-ds", "suite": suite, "task_id": slug, "model": cond["model"], "spec": cond["spec"],
            "ask_tool": cond["ask_tool"], "policy": cond["policy"], "protocol": cond["protocol"], "meta": meta}


def _failed_task(run_dir: Path, slug_dir: Path, cond: dict[str, Any], suite: str, status: str
                 ) -> tuple[Path, dict[str, Any]]:
    """A task folder the harness left after failing to run it: an error run with what it holds."""
    rec = _base_record(run_dir, slug_dir.name, cond, suite)
    rec["status"] = "error"
    rec["meta"].update(runlog_status=status, error_reason=status,
                       task_folder="empty" if not any(slug_dir.iterdir()) else
                       ", ".join(sorted(p.name for p in slug_dir.iterdir())))
    clarify_file = slug_dir / "_clarify.json"
    rec[TRANSCRIPT_AT] = {"none": f"the Ambig-DS harness did not run the agent on this task (runlog status"
                                  f" {status!r}) and wrote no _traj.json or _clarify.json"}
    if cond["ask_tool"] and present(clarify_file):  # asked before the solve phase failed: the question stands
        clarify = _read_clarify(clarify_file)
        if clarify["asked"]:
            rec["questions"] = [_question(clarify, cond, suite)]
        _check_transcript(None, None, clarify, clarify_file, len(rec.get("questions") or []))
        rec[TRANSCRIPT_AT] = _transcript_at(None, clarify_file)
    labels = _target_label(slug_dir, rec["meta"])
    if labels:
        rec["labels"] = labels
    return slug_dir, rec


def _check_aggregates(results: Path, tasks_in: dict[Path, int], out: Collected) -> None:
    """What the harness's own summaries (``results/_aggregate/``) say was run must be here: a run folder named
    by step 7's audit (``target_audit/<run>.json``) with at least the tasks it counted as attempted, and for
    each step-6 aggregate (``<prefix>.json``) a run folder of that prefix. A run folder deleted whole takes its
    ``_runlog.jsonl`` with it: without this, its runs would vanish without a word."""
    aggregate = results / "_aggregate"
    if not aggregate.is_dir():
        return
    runs_of = {d.name: n for d, n in tasks_in.items() if d.parent == results}
    for file in sorted((aggregate / "target_audit").glob("*.json")) if (aggregate / "target_audit").is_dir() else []:
        with out.row(file, None, "the harness's step-7 summary"):
            summary = read_json(file)
            name = summary.get("run_name") if isinstance(summary, dict) else None
            attempted = summary.get("n_attempted") if isinstance(summary, dict) else None
            if not isinstance(name, str) or type(attempted) is not int:
                raise RowError("run_name", "a step-7 summary names its run ('run_name') and counts its attempted"
                                           " tasks ('n_attempted')")
            if name not in runs_of and os.path.lexists(results / name):
                continue  # there, but not read: a folder this user cannot read, which the load names
            if name not in runs_of:
                raise RowError("run_name", f"the harness audited run {name!r} ({attempted} attempted tasks), but"
                                           f" {results / name} is not here: its runs are missing")
            if runs_of[name] < attempted:
                raise RowError("n_attempted", f"the harness audited {attempted} attempted tasks of {name!r}, but"
                                              f" {results / name} holds {runs_of[name]}: task folders or runlog"
                                              " lines are missing")
    for file in sorted(aggregate.glob("*.json")):
        with out.row(file, None, "the harness's step-6 summary"):
            summary = read_json(file)
            prefix = summary.get("run_prefix") if isinstance(summary, dict) else None
            if isinstance(prefix, str) and not any(n.startswith(prefix + "_") for n in runs_of):
                raise RowError("run_prefix", f"the harness aggregated runs {prefix}_* (tasks"
                                             f" {summary.get('tasks')!r:.80}), but no such run folder is in {results}")


# strict returns the run set alone, lenient (strict=False) the run set and its errors
@overload
def read_ambigds(path: str | os.PathLike[str], *, track: Literal["target", "objective"] | None = None,
                 strict: Literal[True] = True, quiet: bool = False) -> RunSet: ...
@overload
def read_ambigds(path: str | os.PathLike[str], *, track: Literal["target", "objective"] | None = None,
                 strict: Literal[False], quiet: bool = False) -> tuple[RunSet, list[LoadError]]: ...
@overload
def read_ambigds(path: str | os.PathLike[str], *, track: Literal["target", "objective"] | None = None,
                 strict: bool, quiet: bool = False) -> RunSet | tuple[RunSet, list[LoadError]]: ...
@guard("Ambig-DS results")
def read_ambigds(path: str | os.PathLike[str], *, track: Literal["target", "objective"] | None = None,
                 strict: bool = True, quiet: bool = False) -> RunSet | tuple[RunSet, list[LoadError]]:
    """Read Ambig-DS results (metric and target tracks) into a RunSet.

    Parameters
    ----------
    path : path-like
        A run folder ``results/opencode_<model>_<variant>[...]``, a ``results``
        folder of them, or a benchmark folder holding ``results/``.
    track : {"target", "objective"}, optional
        The suite of runs whose name does not say it (``..._full``); by default it
        is read from the task files (``score_rpg`` / ``_target_audit.json`` mean
        target, ``score_norm_01`` / ``_audit.*.json`` mean objective).
    strict : bool, default True

    Returns
    -------
    RunSet
        One run per task folder (and per harness failure in ``_runlog.jsonl``), with
        a task record per ambiguous task whose one blocker is its open point
        (``target`` or ``metric``). ``docs/importers.md`` gives the mapping.
    """
    path = Path(path)
    require_exists(path)
    run_dirs = _run_dirs(path)
    if not run_dirs:
        raise FormatError(f"{path}: not an Ambig-DS results folder (no opencode_<model>_<variant> run folder"
                          " with task folders or _runlog.jsonl here, in results/, or one level down)")
    out = Collected("Ambig-DS results")
    slugs: dict[str, set[str]] = {}
    tasks_in = {run_dir: _read_run(run_dir, out, track, slugs) for run_dir in run_dirs}
    for results in sorted({d.parent for d in run_dirs}):
        _check_aggregates(results, tasks_in, out)
    for suite, names in sorted(slugs.items()):
        for slug in sorted(names):
            out.add(f"<ambig-ds {suite} tasks>", out.added[f"<ambig-ds {suite} tasks>"] + 1, {
                "record": "task", "benchmark": "ambig-ds", "suite": suite, "task_id": slug,
                "blockers": [{"id": BLOCKER[suite], "type": BLOCKER[suite]}]})
    return finish(out, path, strict=strict)


# ----------------------------------------------------------------------------- transcripts

#: what an Ambig-DS transcript never holds: opencode's event stream is reduced by ``agents.run_opencode`` to the
#: tool calls and the agent's text joined, and the prompts and the tools' output are not written at all
TRAJ_NOTE = ("Ambig-DS's _traj.json keeps each phase's tool calls (the bash command on the target track; only the"
             " tool's name on the metric track, whose agents.py does not record it) and the agent's text of the phase"
             " joined into one message, placed here after the phase's calls; it keeps no prompt, no tool output")
CLARIFY_NOTE = ("only the question and its answer: Ambig-DS writes _clarify.json alone when it stops after the"
                " ask phase (--clarify-only, or the solve workspace could not be built), and keeps none of that"
                " phase's tool calls")


def _transcript_at(traj: Path | None, clarify: Path | None) -> dict[str, Any]:
    """Where a task's transcript is: ``file`` its ``_traj.json`` (its ``_clarify.json`` when the harness wrote only
    that one) and ``clarify`` its ``_clarify.json`` (null on a run without the ask tool)."""
    read = traj if traj is not None else clarify
    assert read is not None
    return {"reader": "ambig-ds", "file": os.path.abspath(read),
            "clarify": os.path.abspath(clarify) if clarify is not None else None}


def _tool_turns(uses: Any, file: Path, where: str) -> list[dict[str, Any]]:
    """One assistant turn per ``run_opencode`` tool use ``{name, id, state[, input]}``: ``input`` is the bash
    command (target track), absent on the metric track."""
    if not isinstance(uses, list):
        raise FormatError(f"{file}: field '{where}' must be a list of tool uses (got {type(uses).__name__})")
    turns = []
    for i, use in enumerate(uses):
        if not isinstance(use, dict):
            raise FormatError(f"{file}: {where}[{i}] must be a tool use object (got {type(use).__name__})")
        name, command = use.get("name"), use.get("input")
        if name is not None and not isinstance(name, str):
            raise FormatError(f"{file}: {where}[{i}].name must be a tool's name (got {json.dumps(name)[:60]})")
        if command is not None and not isinstance(command, str):
            raise FormatError(f"{file}: {where}[{i}].input must be the command's text (got"
                              f" {type(command).__name__})")
        turns.append({"role": "assistant", "content": None, "tool_name": name,
                      "tool_args": {"command": command} if command is not None else None})
    return turns


def _summary_turn(value: Any, file: Path, where: str) -> list[dict[str, Any]]:
    if value is None or value == "":
        return []
    if not isinstance(value, str):
        raise FormatError(f"{file}: field '{where}' must be the agent's text (got {type(value).__name__})")
    return [{"role": "assistant", "content": value}]


def _transcript(traj: dict[str, Any] | None, traj_file: Path | None, clarify: dict[str, Any] | None,
                clarify_file: Path | None) -> dict[str, Any]:
    """The run-log transcript from the parsed ``_traj.json`` and ``_clarify.json`` (``asked`` checked): what
    :func:`read_transcript` returns, and what the load builds, checks and drops (:func:`_check_transcript`)."""
    turns: list[dict[str, Any]] = []
    ask = traj.get("ask_phase") if traj is not None else None
    if ask is not None:
        if not isinstance(ask, dict):
            raise FormatError(f"{traj_file}: field 'ask_phase' must be an object (got {type(ask).__name__})")
        assert traj_file is not None  # the phase was read from it
        turns += _tool_turns(ask.get("tool_uses") or [], traj_file, "ask_phase.tool_uses")
        turns += _summary_turn(ask.get("summary"), traj_file, "ask_phase.summary")
    if clarify is not None:
        for key in ("question", "answer"):
            if clarify.get(key) is not None and not isinstance(clarify[key], str):
                raise FormatError(f"{clarify_file}: field '{key}' must be text (got {type(clarify[key]).__name__})")
        question = clarify.get("question") or ""
        if clarify["asked"]:
            # the importer's question text: the harness's own (stripped, cut to 50 words), or a placeholder
            turns.append({"role": "assistant", "content": question.strip() or "(question not kept)", "q_index": 0})
            turns.append({"role": "user", "content": clarify.get("answer"), "answers": 0})
        elif question:  # the agent's NONE: it chose not to ask, and the harness told it to go on
            turns.append({"role": "assistant", "content": question})
    if traj is not None:
        assert traj_file is not None  # traj was read from it
        turns += _tool_turns(traj.get("tool_uses") or [], traj_file, "tool_uses")
        turns += _summary_turn(traj.get("summary"), traj_file, "summary")
    return {"covers": "tool_calls" if traj is not None else "questions", "turns": turns,
            "note": TRAJ_NOTE if traj is not None else CLARIFY_NOTE}


def _check_transcript(traj: dict[str, Any] | None, traj_file: Path | None, clarify: dict[str, Any] | None,
                      clarify_file: Path, n_questions: int) -> None:
    """Build the task's transcript and check it as a run log's (then drop it: it is read again when asked for), so
    that damage only the transcript holds is an error of the load, naming its file, not of a later read."""
    check_loaded_transcript(_transcript(traj, traj_file, clarify, clarify_file), n_questions,
                            str(traj_file or clarify_file))


def read_transcript(at: dict[str, Any], run: dict[str, Any]) -> dict[str, Any]:
    """A task's transcript from ``_traj.json`` and ``_clarify.json``, in the order the harness ran them (step 5 /
    step 3 clarify runs): the ask phase's tool calls and text, the question the agent wrote to ``_question.txt``
    (``q_index`` 0; or its ``NONE``), the answerer's reply (``answers`` 0), then the solve phase's tool calls and
    text. Only ``_clarify.json`` (an ask-only run): the question and its answer."""
    clarify_file = Path(at["clarify"]) if at.get("clarify") else None
    traj_file = Path(at["file"]) if at["file"] != at.get("clarify") else None
    traj = read_json(traj_file) if traj_file is not None else None
    if traj_file is not None and not isinstance(traj, dict):
        raise FormatError(f"{traj_file}: must be an object (got {type(traj).__name__})")
    clarify = read_json(clarify_file) if clarify_file is not None else None
    if clarify_file is not None:
        if not isinstance(clarify, dict) or not isinstance(clarify.get("asked"), bool):
            raise FormatError(f"{clarify_file}: must be an object whose 'asked' is true or false")
        if int(run.get("n_questions") or 0) != int(clarify["asked"]):
            raise FormatError(f"{clarify_file}: 'asked' is {json.dumps(clarify['asked'])} but the run was loaded"
                              f" with {run.get('n_questions') or 0} question(s): the file changed since it was"
                              " loaded")
    return _transcript(traj, traj_file, clarify, clarify_file)


def _claims(path: Path) -> bool:
    """Ambig-DS run folders here, as children, or under ``results/`` (deeper, the walk goes on)."""
    if _is_run_dir(path):
        return True
    return any(_is_run_dir(p) for p in (*subfolders(path), *subfolders(path / "results")))


def _read(path: Path, options: ReadOptions, files: list[Path] | None = None) -> tuple[RunSet, list[LoadError]]:
    return read_ambigds(path, strict=False)


READER = Reader(
    "ambig-ds", "Ambig-DS results: opencode_<model>_<variant>[_clarify|_ask_only][_strict] run folders of"
    " task folders (_grade.json, _traj.json, _clarify.json, audits) and _runlog.jsonl",
    _read, claims=_claims, detect=is_ambigds_layout, transcripts={"ambig-ds": read_transcript})
