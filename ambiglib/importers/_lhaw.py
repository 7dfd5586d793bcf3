"""LHAW: variant records, and trial results from TheAgentCompany, SWE-Bench Pro and MCP-Atlas.

LHAW's trials are run in each source benchmark's own harness, whose result files
do not say which model, condition or trial they belong to. A small manifest,
``lhaw_manifest.csv``, says it: one row per result file (``docs/importers.md``).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Literal, overload

from ambiglib.errors import FormatError, LoadError
from ambiglib.importers._common import (
    Collected,
    RowError,
    _loads,
    check_loaded_transcript,
    finish,
    guard,
    inside,
    present,
    read_csv,
    read_json,
    read_jsonl,
    strict_int,
)
from ambiglib.importers._reader import Reader, ReadOptions
from ambiglib.runlog._files import is_dir, matching
from ambiglib.runlog._jsonl import TRANSCRIPT_AT, require_exists
from ambiglib.runset import RunSet

__all__ = ["read_lhaw", "read_mcp_atlas", "is_mcp_atlas_results", "lhaw_task_records", "read_transcript", "MANIFEST",
           "MANIFEST_COLUMNS"]

MANIFEST = "lhaw_manifest.csv"
MANIFEST_COLUMNS = ("path", "harness", "model", "spec", "ask_tool", "trial")
OPTIONAL_COLUMNS = ("policy", "variant_id", "trajectory", "completion")
HARNESSES = ("tac", "swe-bench-pro", "mcp-atlas")
#: LHAW's ``dataset`` field → suite
DATASETS = {"theagentcompany": "tac", "tac": "tac", "swe-bench pro": "swe-bench-pro", "swe-bench-pro": "swe-bench-pro",
            "swe-bench_pro": "swe-bench-pro", "mcp-atlas": "mcp-atlas", "mcp atlas": "mcp-atlas"}
#: what the MCP-Atlas ask_user simulator answers when its LLM call fails (``user_tool.py``); it is
#: logged as an ordinary answer (harness-formats §5, item 29), so runs count such answers in meta
SIMULATOR_FALLBACK = "I'm not sure about that specific detail. Could you proceed with a reasonable default?"
#: why a manifest row of these harnesses has no transcript, unless the manifest names its tool calls ('trajectory')
NO_CONVERSATION = {
    "tac": "TheAgentCompany's result file (eval_<task>.json) holds only checkpoint scores, no conversation; name the"
           " run's tool calls in the manifest's 'trajectory' column to have them read",
    "swe-bench-pro": "SWE-Bench Pro's eval_results.json holds only whether each instance was resolved, no"
                     " conversation; name the run's tool calls in the manifest's 'trajectory' column to have them"
                     " read",
}
#: MCP-Atlas counts a task as passed at coverage >= 0.75 (``mcp_evals_scores.py --pass-threshold``)
MCP_PASS_THRESHOLD = 0.75


# ----------------------------------------------------------------------------- variants


def _variants(path: Path) -> list[tuple[int, Any]]:
    if path.name.endswith(".jsonl"):
        return list(read_jsonl(path))
    data = read_json(path)
    if not isinstance(data, list):
        raise FormatError(f"{path}: LHAW variant records must be a JSON list (or JSON Lines), got {type(data).__name__}")
    return list(enumerate(data, 1))


def lhaw_task_records(path: Path, out: Collected) -> dict[tuple[str, str], list[str]]:
    """Add one task record per LHAW variant (Appendix F.2); return (suite, original task) → variant ids."""
    by_task: dict[tuple[str, str], list[str]] = {}
    for line, v in _variants(path):
        try:
            if not isinstance(v, dict):
                raise RowError(None, f"a variant record must be an object (got {type(v).__name__})")
            for key in ("variant_id", "original_task", "dataset"):
                if not v.get(key):
                    raise RowError(key, f"missing required field '{key}' (LHAW variant records, Appendix F.2)")
            suite = DATASETS.get(str(v["dataset"]).strip().lower())
            if suite is None:
                raise RowError("dataset", f"field 'dataset' must name TheAgentCompany, SWE-Bench Pro or MCP-Atlas"
                               f" (got {v['dataset']!r})")
            segments = v.get("removed_segments") or []
            blockers = []
            for i, seg in enumerate(segments):
                if not isinstance(seg, dict) or not seg.get("id"):
                    raise RowError(f"removed_segments[{i}].id", f"removed_segments[{i}] must be an object with an 'id'")
                blockers.append({"id": str(seg["id"]), "type": seg.get("dimension"), "subtype": seg.get("subdimension")})
            dims = v.get("information_dimension")
            dims = [dims] if isinstance(dims, str) else list(dims or sorted({b["type"] for b in blockers if b["type"]}))
            severity = (v.get("criteria") or {}).get("severity") if isinstance(v.get("criteria"), dict) else None
            rec = {"record": "task", "benchmark": "lhaw", "suite": suite, "task_id": str(v["original_task"]),
                   "variant_id": str(v["variant_id"]), "blockers": blockers,
                   "ambiguity_class": v.get("ambiguity_class") or None, "dimensions": dims,
                   "strategy": str(severity).lower() if severity else None,
                   "meta": {k: v[k] for k in ("terminal_states", "expected_questions") if v.get(k) is not None} or None}
            out.add(path, line, {k: val for k, val in rec.items() if val is not None})
            by_task.setdefault((suite, str(v["original_task"])), []).append(str(v["variant_id"]))
        except RowError as exc:
            out.reject(path, line, exc.field, exc.message, record="task", kind="schema")
    return by_task


# ----------------------------------------------------------------------------- trial results


def _json_cell(value: Any, fld: str, where: str) -> Any:
    if not isinstance(value, str):
        return value
    if not value.strip():
        return None
    try:  # as a native file is read: a key named twice, NaN or Infinity is an error, not the last copy or a float
        return _loads(value, Path(where))
    except json.JSONDecodeError as exc:
        raise RowError(fld, f"{where}: field '{fld}' is not valid JSON ({exc.msg})") from None
    except FormatError as exc:
        raise RowError(fld, f"{str(exc).replace(': ', f': field {fld!r}: ', 1)}") from None


def _history_answers(history: Any, where: str) -> list[str | None]:
    """The answers to each ``ask_user`` call, in order, from ``raw_conversation_history``'s tool messages.

    MCP-Atlas's ``trajectory`` column keeps ``response: null`` for every call; only the
    conversation holds what the simulated user (or the tool's own error) answered.
    """
    history = _json_cell(history, "raw_conversation_history", where)
    if not isinstance(history, list):
        return []
    calls: list[str] = []
    replies: dict[str, str | None] = {}
    for msg in history:
        if not isinstance(msg, dict):
            continue
        for call in msg.get("tool_calls") or []:
            fn = call.get("function") if isinstance(call, dict) else None
            if isinstance(fn, dict) and fn.get("name") == "ask_user":
                calls.append(str(call.get("id")))
        if msg.get("role") == "tool" and msg.get("tool_call_id") is not None:
            content = msg.get("content")
            if isinstance(content, list):  # [{type: text, text: ...}]
                content = "".join(c.get("text", "") for c in content if isinstance(c, dict))
            replies[str(msg["tool_call_id"])] = None if content is None else str(content)
    return [replies.get(c) for c in calls]


def _ask_params(params: Any) -> Any:
    """An ``ask_user`` call's arguments as its question is read from them: a JSON string is decoded, other text
    is the question itself."""
    params = params or {}
    if isinstance(params, str):
        try:
            params = json.loads(params)
        except json.JSONDecodeError:
            params = {"question": params}
    return params


def _questions(trajectory: Any, where: str, history: Any = None) -> tuple[list[dict[str, Any]], list[int]]:
    """Each ``ask_user`` call of an MCP-style trajectory ([{tool_name, parameters, response, error}]).

    Returns the questions and the indices of malformed calls (arguments without a ``question``):
    such a call is kept as a question, its text the arguments it did send, and flagged.
    """
    trajectory = _json_cell(trajectory, "trajectory", where)
    if trajectory is None:
        return [], []
    if not isinstance(trajectory, list):
        raise RowError("trajectory", f"{where}: field 'trajectory' must be a list of tool calls")
    answers = _history_answers(history, where) if history is not None else []
    out: list[dict[str, Any]] = []
    malformed: list[int] = []
    for i, step in enumerate(trajectory):
        # every call is {tool_name, parameters, response, error}: a call without a name may have been an ask_user
        # call, and passing it over would lose the question without a word
        if not isinstance(step, dict):
            raise RowError(f"trajectory[{i}]", f"{where}: field 'trajectory[{i}]' must be a tool call object"
                                               f" (got {json.dumps(step)[:100]})")
        if not isinstance(step.get("tool_name"), str):
            raise RowError(f"trajectory[{i}].tool_name", f"{where}: field 'trajectory[{i}].tool_name' must be a"
                                                         f" tool's name (got {json.dumps(step.get('tool_name'))[:100]})")
        if step["tool_name"] != "ask_user":
            continue
        params = _ask_params(step.get("parameters"))
        text = params.get("question") if isinstance(params, dict) else None
        if not isinstance(text, str) or not text.strip():
            malformed.append(len(out))
            text = json.dumps(params, ensure_ascii=False, sort_keys=True) if params else "(no arguments)"
        response = step.get("response")
        if response is not None and not isinstance(response, str):
            raise RowError(f"trajectory[{i}].response", f"{where}: field 'trajectory[{i}].response' must be a string"
                                                        f" or null (got {json.dumps(response)[:100]})")
        if response is None and len(out) < len(answers):
            response = answers[len(out)]
        out.append({"text": str(text), "response": None if response is None else str(response), "step": i})
    return out, malformed


def _tac(file: Path, base: dict[str, Any]) -> list[dict[str, Any]]:
    data = read_json(file)
    if not isinstance(data, dict) or not isinstance(data.get("checkpoints"), list):
        raise RowError("checkpoints", f"{file}: a TheAgentCompany result must hold 'checkpoints' and 'final_score'")
    cps = []
    for i, cp in enumerate(data["checkpoints"]):
        if not isinstance(cp, dict) or not {"result", "total"} <= set(cp):
            raise RowError(f"checkpoints[{i}]", f"{file}: checkpoints[{i}] must have 'result' and 'total'")
        for key in ("result", "total"):
            if isinstance(cp[key], bool) or not isinstance(cp[key], (int, float)):
                raise RowError(f"checkpoints[{i}].{key}", f"{file}: checkpoints[{i}].{key} must be a number (got"
                                                         f" {json.dumps(cp[key])[:60]})")
        cps.append({"result": cp["result"], "total": cp["total"]})
    final = data.get("final_score") or {"result": sum(c["result"] for c in cps), "total": sum(c["total"] for c in cps)}
    if not final.get("total"):
        raise RowError("final_score", f"{file}: final_score.total must be positive (got {final.get('total')!r})")
    totals = sum(c["total"] for c in cps)
    if final["total"] != totals:
        # TheAgentCompany's final score totals its checkpoints' (every scoring strategy; its result may take a bonus):
        # a checkpoint lost or changed would go unseen in the score otherwise
        raise RowError("final_score", f"{file}: final_score.total is {final['total']!r} but the checkpoints' totals sum"
                                      f" to {totals!r}: TheAgentCompany's final score totals its checkpoints (one lost"
                                      " or changed?)")
    # the score is checkpoint progress; full task success is the full final score
    return [{**base, "checkpoints": cps, "score": final["result"] / final["total"],
             "passed": final["result"] == final["total"]}]


def _swe_bench_pro(file: Path, base: dict[str, Any], variant_of: dict[str, list[str]]) -> list[dict[str, Any]]:
    data = read_json(file)
    if not isinstance(data, dict) or not all(isinstance(v, bool) for v in data.values()):
        raise RowError("eval_results", f"{file}: SWE-Bench Pro eval_results.json must map instance ids to true/false")
    out = []
    for instance, resolved in data.items():
        rec = {**base, "task_id": instance, "passed": resolved, "score": 1.0 if resolved else 0.0}
        if base.get("variant_id"):
            if base["variant_id"] not in variant_of.get(instance, [base["variant_id"]]):
                continue  # this file's other instances belong to other manifest rows
        out.append(rec)
    if base.get("variant_id") and not out:
        raise RowError("variant_id", f"{file}: holds no result for variant {base['variant_id']!r}")
    return out


def _mcp_atlas(file: Path, base: dict[str, Any], completion: Path | None, threshold: float, out: Collected
               ) -> list[tuple[int, dict[str, Any]]]:
    """The runs of one scored CSV a manifest row names, each a row of it: a row that cannot be a run is rejected
    alone, naming its line, and the file's other rows are still read."""
    trajectories: dict[str, Any] = {}
    histories: dict[str, Any] = {}  # the completion rows' conversations, when the results rows have none
    completed: dict[str, tuple[int, bool, bool]] = {}  # task → its completion row: line, has a conversation, calls
    if completion is not None:
        need_history = not _has_column(file, "raw_conversation_history")
        for line, row in read_csv(completion, ("TASK", "trajectory")):
            trajectories[row["TASK"]] = row["trajectory"]
            completed[row["TASK"]] = (line, _filled(row.get("raw_conversation_history")),
                                      _filled(row["trajectory"]))
            if need_history:
                histories[row["TASK"]] = row.get("raw_conversation_history")
    runs = []
    for line, row in read_csv(file, ("TASK", "coverage_score")):
        if base.get("variant_id") and row["TASK"] != base["task_id"]:
            continue
        with out.row(file, line, "this row"):
            coverage = _coverage(row)
            trajectory = row.get("trajectory", trajectories.get(row["TASK"]))
            rec = {**base, "task_id": row["TASK"], "meta": dict(base.get("meta") or {})}
            _mcp_outcome(rec, row, coverage, threshold, trajectory, f"{file}:{line}", histories.get(row["TASK"]))
            rec[TRANSCRIPT_AT] = _mcp_transcript_at(file, line, row, rec, completion, completed.get(row["TASK"]))
            _check_transcript(rec, row=row, file=file)
            runs.append((line, rec))
    return runs


def _coverage(row: dict[str, str]) -> float | None:
    """A scored row's ``coverage_score``: None when empty (the harness failed), else a number."""
    if row["coverage_score"] in ("", None):
        return None
    try:
        return float(row["coverage_score"])
    except ValueError:
        raise RowError("coverage_score", f"field 'coverage_score' must be a number"
                       f" (got {row['coverage_score']!r})") from None


def _has_column(file: Path, name: str) -> bool:
    """Whether a CSV's header names a column (read from its first row, which read_csv checks)."""
    rows = read_csv(file, ())
    try:
        return name in next(rows)[1]
    finally:
        rows.close()


def _filled(cell: Any) -> bool:
    """A CSV cell that holds something: not absent, empty, or the harness's ``[]`` for no tool calls."""
    return isinstance(cell, str) and cell.strip() not in ("", "[]", "null")


def _mcp_transcript_at(file: Path, line: int, row: dict[str, str], rec: dict[str, Any], completion: Path | None = None,
                       completed: tuple[int, bool, bool] | None = None) -> dict[str, Any]:
    """Where an MCP-Atlas run's conversation is: the ``raw_conversation_history`` of its results row (or of its
    completion row), else the tool calls of its ``trajectory`` column; ``steps`` are the calls that are its
    questions (their positions among all of the run's tool calls, as ``trajectory`` lists them)."""
    steps = [q["step"] for q in rec.get("questions") or []]
    at = {"reader": "lhaw", "task": row["TASK"], "steps": steps}
    if _filled(row.get("raw_conversation_history")):
        return {**at, "file": os.path.abspath(file), "line": line, "column": "raw_conversation_history"}
    if completion is not None and completed is not None and completed[1] and "raw_conversation_history" not in row:
        return {**at, "file": os.path.abspath(completion), "line": completed[0], "column": "raw_conversation_history"}
    if _filled(row.get("trajectory")):
        return {**at, "file": os.path.abspath(file), "line": line, "column": "trajectory"}
    if completion is not None and completed is not None and completed[2] and "trajectory" not in row:
        return {**at, "file": os.path.abspath(completion), "line": completed[0], "column": "trajectory"}
    if (row.get("script_model_response") or "").startswith("ERROR:"):
        return {"none": "MCP-Atlas kept no conversation for this task: the agent call failed"
                        f" ({row['script_model_response'][:120]}), so raw_conversation_history and trajectory are"
                        " empty"}
    calls = "lists no tool call" if "trajectory" in row else "column is absent"
    if "raw_conversation_history" not in row:
        return {"none": f"this MCP-Atlas results file ({Path(file).name}) has no raw_conversation_history column"
                        f" (the harness's completion CSV has one) and its trajectory {calls}"}
    return {"none": f"MCP-Atlas wrote no raw_conversation_history for this task and its trajectory {calls}"}


def _mcp_outcome(rec: dict[str, Any], row: dict[str, str], coverage: float | None, threshold: float,
                 trajectory: Any, where: str, history: Any = None) -> None:
    """Score, status, questions and flags of one MCP-Atlas row (completion columns + claim coverage); ``history``
    is the task's completion-row conversation, read for the answers when the row has none of its own."""
    meta = rec["meta"]
    meta["coverage_score"] = coverage
    response = row.get("script_model_response") or ""
    failed = response.startswith("ERROR:")
    if failed:  # the agent call raised; the claim judge still scored the error text
        rec.update(status="error", score=None, passed=None)
        meta["error_reason"] = response[:300]
    else:
        rec.update(score=coverage, passed=None if coverage is None else coverage >= threshold,
                   status="ok" if coverage is not None else "error")
    questions, malformed = (_questions(trajectory, where, row.get("raw_conversation_history", history))
                            if rec["ask_tool"] else ([], []))
    rec["questions"] = questions
    if malformed:
        meta["malformed_questions"] = malformed
    fallback = sum(1 for q in questions if q["response"] == SIMULATOR_FALLBACK)
    if fallback:
        meta["simulator_fallback_answers"] = fallback
    if row.get("errors") and row["errors"].strip() not in ("", "[]"):
        meta["errors"] = row["errors"][:500]
    if not meta:
        del rec["meta"]


def _bool(value: str) -> bool:
    text = str(value).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    raise RowError("ask_tool", f"field 'ask_tool' must be true or false (got {value!r})")


# complexity over 15 (noqa: C901 below): a manifest row read column by column
def _read_manifest(manifest: Path, out: Collected, by_task: dict[tuple[str, str], list[str]], threshold: float) -> None:  # noqa: C901
    root = manifest.parent
    suite_of = {"tac": "tac", "swe-bench-pro": "swe-bench-pro", "mcp-atlas": "mcp-atlas"}
    for line, row in read_csv(manifest, MANIFEST_COLUMNS):
        accepted = None
        errors_before = len(out.errors)
        with out.row(manifest, line, "this row's result file"):
            harness = row["harness"].strip().lower()
            if harness not in HARNESSES:
                raise RowError("harness", f"field 'harness' must be one of {', '.join(map(repr, HARNESSES))}"
                               f" (got {row['harness']!r})")
            if row["spec"] not in ("full", "ambiguous"):
                raise RowError("spec", f"field 'spec' must be 'full' or 'ambiguous' (got {row['spec']!r})")
            trial = strict_int(row["trial"], "trial", minimum=1)
            ask_tool = _bool(row["ask_tool"])
            file = inside(root, row["path"], "path")
            if not present(file):
                raise RowError("path", f"field 'path' names a file that does not exist: {file}")
            suite = suite_of[harness]
            variant_id = (row.get("variant_id") or "").strip() or None
            variant_of = {}  # original task → its variants
            task_of = {}
            for (s, task), variants in by_task.items():
                if s == suite:
                    for v in variants:
                        task_of[v] = task
                    variant_of[task] = variants
            base: dict[str, Any] = {
                "benchmark": "lhaw", "suite": suite, "model": row["model"], "spec": row["spec"], "ask_tool": ask_tool,
                "trial": trial, "meta": {"harness": harness, "result_file": str(row["path"])}}
            if (row.get("policy") or "").strip():
                base["policy"] = row["policy"].strip()
            if variant_id:
                if task_of and variant_id not in task_of and variant_id not in variant_of:
                    raise RowError("variant_id", f"field 'variant_id' {variant_id!r} names no variant or task of"
                                   f" {suite} in the variants file ({len(task_of)} variants)")
                base["variant_id"] = variant_id
                base["task_id"] = task_of.get(variant_id, variant_id)
            if harness == "tac":
                if not variant_id:
                    raise RowError("variant_id", "a TheAgentCompany result file holds one task: give its variant_id"
                                   " (or the task name for a fully specified run)")
                records = [(1, r) for r in _tac(file, base)]
            elif harness == "swe-bench-pro":
                records = [(1, r) for r in _swe_bench_pro(file, base, variant_of)]
            else:
                completion = (row.get("completion") or "").strip()
                completion_path = None
                if completion:
                    completion_path = inside(root, completion, "completion")
                records = _mcp_atlas(file, base, completion_path, threshold, out)
            if not records and len(out.errors) == errors_before:  # (rows rejected: each is named already)
                raise RowError("variant_id" if variant_id else "path",
                               f"no result in {file} belongs to this row"
                               + (f" (variant_id {variant_id!r})" if variant_id else ""))
            trajectory = (row.get("trajectory") or "").strip()
            if harness in NO_CONVERSATION:
                for _, rec in records:
                    rec[TRANSCRIPT_AT] = {"none": NO_CONVERSATION[harness]}
            if trajectory:
                traj_file = inside(root, trajectory, "trajectory")
                calls = read_json(traj_file)
                questions, malformed = _questions(calls, str(traj_file))
                if not ask_tool:
                    questions, malformed = [], []
                for _, rec in records:
                    if ask_tool:
                        rec["questions"] = questions
                    if malformed:
                        rec["meta"] = {**rec.get("meta", {}), "malformed_questions": malformed}
                    # the tool calls the manifest names are the run's transcript, its questions among them
                    rec[TRANSCRIPT_AT] = {"reader": "lhaw", "file": os.path.abspath(traj_file),
                                          "steps": [q["step"] for q in questions]}
                    _check_transcript(rec, calls=calls)
            accepted = records  # only a row read to the end is taken
        if accepted is None:  # rejected above, with its reason
            continue
        for native_line, rec in accepted:
            fallbacks = sum(q.get("response") == SIMULATOR_FALLBACK for q in rec.get("questions", []))
            if fallbacks:
                rec["meta"] = {**rec.get("meta", {}), "simulator_fallback_answers": fallbacks}
            rec.setdefault("meta", {})["harness"] = "lhaw"
            if "variant_id" not in rec:
                # a 1:1 benchmark (MCP-Atlas) or an original task: the variant is the task, unless LHAW has one
                variants = variant_of.get(rec["task_id"], [])
                rec["variant_id"] = variants[0] if rec["spec"] == "ambiguous" and len(variants) == 1 else rec["task_id"]
            # an MCP-Atlas run is a row of its results CSV; the others are named by their manifest row
            if harness == "mcp-atlas":
                out.add(file, native_line, rec)
            else:
                out.add(manifest, line, rec)


# strict returns the run set alone, lenient (strict=False) the run set and its errors
@overload
def read_lhaw(path: str | os.PathLike[str], *, variants: str | os.PathLike[str] | None = None,
              pass_threshold: float = MCP_PASS_THRESHOLD, strict: Literal[True] = True,
              quiet: bool = False) -> RunSet: ...
@overload
def read_lhaw(path: str | os.PathLike[str], *, variants: str | os.PathLike[str] | None = None,
              pass_threshold: float = MCP_PASS_THRESHOLD, strict: Literal[False],
              quiet: bool = False) -> tuple[RunSet, list[LoadError]]: ...
@overload
def read_lhaw(path: str | os.PathLike[str], *, variants: str | os.PathLike[str] | None = None,
              pass_threshold: float = MCP_PASS_THRESHOLD, strict: bool,
              quiet: bool = False) -> RunSet | tuple[RunSet, list[LoadError]]: ...
@guard("LHAW results named by a manifest")
def read_lhaw(path: str | os.PathLike[str], *, variants: str | os.PathLike[str] | None = None,
              pass_threshold: float = MCP_PASS_THRESHOLD, strict: bool = True,
              quiet: bool = False) -> RunSet | tuple[RunSet, list[LoadError]]:
    """Read LHAW variant records and trial results into a RunSet.

    Parameters
    ----------
    path : path-like
        ``lhaw_manifest.csv``, or the folder holding it. Its rows name each result
        file and the model, condition and trial it belongs to; see ``docs/importers.md``.
    variants : path-like, optional
        LHAW variant records (JSON list or JSON Lines, Appendix F.2); default
        ``variants.json`` or ``variants.jsonl`` beside the manifest, if present.
    pass_threshold : float, default 0.75
        MCP-Atlas coverage at which a task counts as passed.

    Returns
    -------
    RunSet
        One run per trial result; one task record per variant, its removed segments
        as blockers (type = dimension, subtype = subdimension).
    """
    path = Path(path)
    require_exists(path)
    manifest = path / MANIFEST if path.is_dir() else path
    if not present(manifest):  # (a link that leads nowhere, a folder, a FIFO: a FormatError naming it)
        raise FormatError(f"{path}: no {MANIFEST} (one row per result file: {', '.join(MANIFEST_COLUMNS)}"
                          f"[, {', '.join(OPTIONAL_COLUMNS)}])")
    out = Collected("LHAW manifest")
    if variants is None:
        for name in ("variants.json", "variants.jsonl"):
            if present(manifest.parent / name):
                variants = manifest.parent / name
    by_task = lhaw_task_records(Path(variants), out) if variants is not None else {}
    _read_manifest(manifest, out, by_task, pass_threshold)
    return finish(out, path, strict=strict)


# ----------------------------------------------------------------------------- MCP-Atlas results alone

#: ``<model>[_ask_user]_t<trial>``: how a run's label (``--model-label``, ``--output``) names what the
#: harness does not record; only the label's own form is read, nothing is assumed past it
LABEL = re.compile(r"^(?P<model>.+?)(?P<ask>_ask_user)?(?:_t(?P<trial>\d+))?$")


def _mcp_atlas_run(file: Path, line: int, label: str, row: dict[str, str], threshold: float,
                   scored: bool = True) -> dict[str, Any]:
    """The run of one row of a scored CSV (or, ``scored=False``, of a completion CSV the judge never scored)."""
    where = f"{file}:{line}"
    m = LABEL.match(label)
    model, trial = (m.group("model"), int(m.group("trial"))) if m and m.group("trial") else (label, 1)
    coverage = _coverage(row) if scored else None
    tools = _json_cell(row["ENABLED_TOOLS"], "ENABLED_TOOLS", where)
    if not isinstance(tools, list):
        raise RowError("ENABLED_TOOLS", f"field 'ENABLED_TOOLS' must be a JSON list of tool names"
                       f" (got {row['ENABLED_TOOLS'][:80]!r})")
    removed = _json_cell(row.get("removed_value"), "removed_value", where)
    ambiguous = bool(removed) or (bool(row.get("original_prompt")) and row.get("original_prompt") != row["PROMPT"])
    rec: dict[str, Any] = {
        "benchmark": "lhaw", "suite": "mcp-atlas", "task_id": row["TASK"], "variant_id": row["TASK"],
        "model": model, "spec": "ambiguous" if ambiguous else "full", "ask_tool": "ask_user" in tools,
        "trial": trial, "meta": {"harness": "lhaw", "label": label, **({"removed_value": removed} if removed else {})}}
    if row.get("trajectory_time") not in (None, ""):
        try:
            rec["duration_s"] = float(row["trajectory_time"])
        except ValueError:
            raise RowError("trajectory_time", f"field 'trajectory_time' must be a number"
                                              f" (got {row['trajectory_time']!r})") from None
    if m and m.group("ask") and not rec["ask_tool"]:
        raise RowError("ENABLED_TOOLS", f"the label {label!r} says ask_user but ENABLED_TOOLS has no ask_user")
    _mcp_outcome(rec, row, coverage, threshold, row.get("trajectory"), where)
    rec[TRANSCRIPT_AT] = _mcp_transcript_at(file, line, row, rec)
    _check_transcript(rec, row=row, file=file)
    rec.setdefault("meta", {"harness": "lhaw", "label": label})
    if not scored:
        rec.update(status="error", score=None, passed=None)
        rec["meta"]["error_reason"] = "not_scored"
    return rec


def _unscored(completion: Path, label: str, scored: set[str], out: Collected, threshold: float) -> None:
    """Error runs (``not_scored``) for the rows of a completion CSV that no scored row answers."""
    if not present(completion):
        return
    for line, row in read_csv(completion, ("TASK", "ENABLED_TOOLS", "PROMPT")):
        if row["TASK"] in scored:
            continue
        with out.row(completion, line, "this row"):
            out.add(completion, line, _mcp_atlas_run(completion, line, label, row, threshold, scored=False))


def _completions_without_scores(path: Path, scored_files: list[Path]) -> list[Path]:
    """Completion CSVs whose ``scored_<label>.csv`` is not there at all."""
    roots = {f.parent.parent for f in scored_files if f.parent.name == "evaluation_results"}
    labels = {f.stem[len("scored_"):] for f in scored_files}
    return sorted(c for root in roots for c in (root / "completion_results").glob("*.csv")
                  if c.stem not in labels)


def _scored_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path] if path.name.startswith("scored_") and path.suffix == ".csv" else []
    return sorted(matching(path, "scored_*.csv") + matching(path / "evaluation_results", "scored_*.csv"))


def is_mcp_atlas_results(path: Path) -> bool:
    """MCP-Atlas ``mcp_evals_scores.py`` output: ``scored_<label>.csv`` here or in ``evaluation_results/``."""
    return bool(_scored_files(path))


# strict returns the run set alone, lenient (strict=False) the run set and its errors
@overload
def read_mcp_atlas(path: str | os.PathLike[str], *, pass_threshold: float = MCP_PASS_THRESHOLD,
                   strict: Literal[True] = True, quiet: bool = False) -> RunSet: ...
@overload
def read_mcp_atlas(path: str | os.PathLike[str], *, pass_threshold: float = MCP_PASS_THRESHOLD,
                   strict: Literal[False], quiet: bool = False) -> tuple[RunSet, list[LoadError]]: ...
@overload
def read_mcp_atlas(path: str | os.PathLike[str], *, pass_threshold: float = MCP_PASS_THRESHOLD,
                   strict: bool, quiet: bool = False) -> RunSet | tuple[RunSet, list[LoadError]]: ...
@guard("MCP-Atlas results")
def read_mcp_atlas(path: str | os.PathLike[str], *, pass_threshold: float = MCP_PASS_THRESHOLD,
                   strict: bool = True, quiet: bool = False) -> RunSet | tuple[RunSet, list[LoadError]]:
    """Read MCP-Atlas (LHAW ``ask_user`` branch) scored CSVs without a manifest.

    Each ``scored_<label>.csv`` (``mcp_evals_scores.py``; it carries every completion column) is one
    model and trial: the model and trial come from the label's own form ``<model>[_ask_user]_t<trial>``
    (else the label is the model, trial 1); whether the ask tool was on comes from the harness's own
    ``ENABLED_TOOLS`` column, the specification from ``removed_value``. A ``coverage_stats_<label>.csv``
    beside it is the harness's own summary and is not read (:func:`ambiglib.tables.harness_summary`
    recomputes it). Use an ``lhaw_manifest.csv`` (:func:`read_lhaw`) to say anything else.
    """
    path = Path(path)
    require_exists(path)
    files = _scored_files(path)
    if not files:
        raise FormatError(f"{path}: no MCP-Atlas scored_<label>.csv here or in evaluation_results/")
    out = Collected("MCP-Atlas results")
    for file in files:
        label = file.stem[len("scored_"):]
        scored: set[str] = set()
        for line, row in read_csv(file, ("TASK", "ENABLED_TOOLS", "PROMPT", "coverage_score")):
            scored.add(row["TASK"])
            with out.row(file, line, "this row"):
                out.add(file, line, _mcp_atlas_run(file, line, label, row, pass_threshold))
        # every task the agent completed (completion_results/<label>.csv) must have been scored: one that was not
        # (its scored row or the whole scored file deleted, the judge never run) is an error run, not a run lost
        if file.parent.name == "evaluation_results":
            _unscored(file.parent.parent / "completion_results" / f"{label}.csv", label, scored, out, pass_threshold)
    for completion in _completions_without_scores(path, files):
        _unscored(completion, completion.stem, set(), out, pass_threshold)
    return finish(out, path, strict=strict)


# ----------------------------------------------------------------------------- transcripts

HISTORY_NOTE = ("MCP-Atlas's raw_conversation_history keeps the agent's messages and each tool's reply; the system"
                " prompt the harness sent is not kept (the user turn is the row's PROMPT)")
TRAJECTORY_NOTE = ("MCP-Atlas's trajectory column: the agent's tool calls, no messages (and no responses: the harness"
                   " writes them as null; a response the column does hold is shown); the row has no"
                   " raw_conversation_history")
CALLS_NOTE = "the tool calls the manifest's trajectory file lists, with their responses; no messages, no prompt"


def _text(content: Any) -> str | None:
    """A message's content as text: a string, or the text parts of ``[{type: text, text}]``."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(c.get("text", "") for c in content if isinstance(c, dict))
    return json.dumps(content, ensure_ascii=False)


def _call_args(name: str, params: Any) -> dict[str, Any] | None:
    """A tool call's arguments as a dict: an ``ask_user`` call's as its question is read (:func:`_ask_params`), a
    JSON object string decoded, anything else kept whole under ``arguments``."""
    if name == "ask_user":
        params = _ask_params(params)
    elif isinstance(params, str):
        try:
            params = json.loads(params)
        except json.JSONDecodeError:
            pass
    if params is None or isinstance(params, dict):
        return params
    return {"arguments": params}


def _row(at: dict[str, Any]) -> dict[str, str]:
    """The results row a locator names: its line of the CSV, checked to be the task it was loaded as."""
    file, line = Path(at["file"]), int(at["line"])
    rows = read_csv(file, ("TASK", at["column"]))
    try:
        for n, row in rows:
            if n == line:
                if row["TASK"] != at["task"]:
                    raise FormatError(f"{file}:{line}: holds task {row['TASK']!r}, not {at['task']!r}: the file"
                                      " changed since it was loaded")
                return row
    finally:
        rows.close()
    raise FormatError(f"{file}: has no row ending at line {line} any more: the file changed since it was loaded")


def _call_turns(calls: Any, where: str, asked: dict[int, int]) -> list[dict[str, Any]]:
    """MCP-style tool calls ``[{tool_name, parameters, response, error}]``: each call, then its response (or error)
    when the list holds one."""
    if not isinstance(calls, list):
        raise FormatError(f"{where}: must be a list of tool calls (got {type(calls).__name__})")
    turns: list[dict[str, Any]] = []
    for i, call in enumerate(calls):
        if not isinstance(call, dict) or not isinstance(call.get("tool_name"), str):
            raise FormatError(f"{where}: tool call {i} must be an object with a 'tool_name'")
        name = call["tool_name"]
        if asked.get(i) is not None and name != "ask_user":
            raise FormatError(f"{where}: tool call {i} is {name!r}, but the run was loaded with an ask_user call"
                              " there: the file changed since it was loaded")
        turns.append({"role": "assistant", "content": None, "tool_name": name,
                      "tool_args": _call_args(name, call.get("parameters")), "q_index": asked.get(i)})
        reply = call.get("response") if call.get("response") is not None else call.get("error")
        if reply is not None:
            turns.append({"role": "tool", "content": _text(reply), "tool_name": name, "answers": asked.get(i)})
    if any(step >= len(calls) for step in asked):
        raise FormatError(f"{where}: lists {len(calls)} tool call(s), fewer than when the run was loaded (its"
                          f" questions are at calls {sorted(asked)})")
    return turns


def _history_turns(history: Any, prompt: str | None, where: str, asked: dict[int, int]) -> list[dict[str, Any]]:
    """``raw_conversation_history`` (the agent service's messages, OpenAI form) as turns: the task's prompt, then
    one turn per assistant tool call (the message's text on its first), and each tool message, named by its
    call."""
    if not isinstance(history, list):
        raise FormatError(f"{where}: field 'raw_conversation_history' must be a list of messages"
                          f" (got {type(history).__name__})")
    turns: list[dict[str, Any]] = [{"role": "user", "content": prompt}] if prompt is not None else []
    n_calls = 0
    call_of: dict[str, tuple[str, int | None]] = {}  # call id → its tool, and the question it asks
    for m, msg in enumerate(history):
        if not isinstance(msg, dict) or not isinstance(msg.get("role"), str):
            raise FormatError(f"{where}: raw_conversation_history[{m}] must be a message with a 'role'")
        content = _text(msg.get("content"))
        if msg["role"] == "tool":
            name, q = call_of.get(str(msg.get("tool_call_id")), (None, None))
            turns.append({"role": "tool", "content": content, "tool_name": name, "answers": q})
            continue
        calls = msg.get("tool_calls") or []
        if not isinstance(calls, list):
            raise FormatError(f"{where}: raw_conversation_history[{m}].tool_calls must be a list")
        if not calls:
            turns.append({"role": msg["role"], "content": content})
        for c, call in enumerate(calls):
            fn = call.get("function") if isinstance(call, dict) else None
            if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
                raise FormatError(f"{where}: raw_conversation_history[{m}].tool_calls[{c}] must have a function"
                                  " with a 'name'")
            q = asked.get(n_calls)
            if q is not None and fn["name"] != "ask_user":
                raise FormatError(f"{where}: tool call {n_calls} of the conversation is {fn['name']!r}, but the"
                                  " trajectory column the questions were read from has an ask_user call there")
            call_of[str(call.get("id"))] = (fn["name"], q)
            turns.append({"role": msg["role"], "content": content if c == 0 else None, "tool_name": fn["name"],
                          "tool_args": _call_args(fn["name"], fn.get("arguments")), "q_index": q})
            n_calls += 1
    missing = [q for step, q in asked.items() if step >= n_calls]
    if missing:
        raise FormatError(f"{where}: the conversation has {n_calls} tool call(s), fewer than the trajectory column the"
                          f" run's questions were read from (question {missing[0]} is at call"
                          f" {next(s for s, q in asked.items() if q == missing[0])})")
    return turns


def read_transcript(at: dict[str, Any], run: dict[str, Any]) -> dict[str, Any]:
    """An LHAW run's transcript: an MCP-Atlas results row's ``raw_conversation_history`` (the conversation) or,
    without one, its ``trajectory`` column (tool calls); or the tool-call file a manifest row names. The calls at
    the locator's ``steps`` are the run's questions; the tool's reply to each answers it."""
    if "column" not in at:  # a manifest's trajectory file: [{tool_name, parameters, response, error}]
        return _transcript(at, calls=read_json(Path(at["file"])))
    return _transcript(at, row=_row(at))


def _transcript(at: dict[str, Any], *, row: dict[str, str] | None = None, calls: Any = None) -> dict[str, Any]:
    """The transcript a locator names, from what it names in hand: the results ``row`` (its ``column``) or a
    manifest's tool ``calls``."""
    asked = {step: q for q, step in enumerate(at.get("steps") or []) if step is not None}
    if "column" not in at:
        return {"covers": "tool_calls", "turns": _call_turns(calls, str(at["file"]), asked), "note": CALLS_NOTE}
    assert row is not None
    where = f"{at['file']}:{at['line']}"
    try:
        value = _json_cell(row[at["column"]], at["column"], where)
        if at["column"] == "raw_conversation_history":
            turns = _history_turns(value, row.get("PROMPT"), where, asked)
            return {"covers": "conversation", "turns": turns, "note": HISTORY_NOTE}
        return {"covers": "tool_calls", "turns": _call_turns(value, where, asked), "note": TRAJECTORY_NOTE}
    except RowError as exc:
        raise FormatError(exc.message) from None


def _check_transcript(rec: dict[str, Any], *, row: dict[str, str] | None = None, file: Path | None = None,
                      calls: Any = None) -> None:
    """Build a run's transcript from what the load holds (its results ``row`` of ``file``, or its manifest's tool
    ``calls``) and check it as a run log's, then drop it (it is read again when asked for): damage only the
    transcript holds is then an error of the load, naming its file. One in another file (a completion CSV's
    conversation) is checked when read."""
    at = rec[TRANSCRIPT_AT]
    if "none" in at or ("column" in at and (file is None or at["file"] != os.path.abspath(file))):
        return
    check_loaded_transcript(_transcript(at, row=row, calls=calls), len(rec.get("questions") or []), str(at["file"]))


def _is_lhaw(path: Path) -> bool:
    # anything named so claims the folder, a link that leads nowhere too: read_lhaw names what is wrong with it
    # (taking the folder for MCP-Atlas results without the manifest read 63 runs another way, fuzz seed 9002)
    return os.path.lexists(path / MANIFEST) if is_dir(path) else path.name == MANIFEST


def _read_lhaw(path: Path, options: ReadOptions, files: list[Path] | None = None) -> tuple[RunSet, list[LoadError]]:
    return read_lhaw(path, strict=False)


def _read_mcp_atlas(path: Path, options: ReadOptions, files: list[Path] | None = None
                    ) -> tuple[RunSet, list[LoadError]]:
    return read_mcp_atlas(path, strict=False)


LHAW_READER = Reader(
    "lhaw", "LHAW trial results named by an lhaw_manifest.csv (TheAgentCompany eval_<task>.json,"
    " SWE-Bench Pro eval_results.json, MCP-Atlas scored CSVs), with variants.json beside it",
    _read_lhaw, claims=_is_lhaw, transcripts={"lhaw": read_transcript}, consumes=("mcp-atlas",))
MCP_ATLAS_READER = Reader(
    "mcp-atlas", "MCP-Atlas (LHAW ask_user branch) scored_<label>.csv files, here or in evaluation_results/,"
    " without a manifest (model and trial from <model>[_ask_user]_t<trial> labels)",
    _read_mcp_atlas, claims=is_mcp_atlas_results)
