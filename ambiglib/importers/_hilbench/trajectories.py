"""SWE-agent trajectories (``.traj``) and the exported public ones: every ``ask_human`` question asked, and
the harness's rules that make a pass invalid (``trajectory_needs_rerun``)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ambiglib.errors import FormatError
from ambiglib.importers._common import read_json
from ambiglib.importers._hilbench.conventions import _QUOTING_MARKERS, _TIMEOUT_OBS, ASK_PREFIX, HICCUP

__all__ = ["ask_human_question", "invalid_pass_reason", "transcript_at", "read_transcript"]


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
    info = data.get("info")
    info = info if isinstance(info, dict) else {}
    ms = info.get("model_stats")
    ms = ms if isinstance(ms, dict) else {}
    steps = _public_steps(data.get("trajectory", []), file)
    return _Traj(file, steps, {"tokens_sent": ms.get("tokens_sent", ms.get("input_tokens")),
                               "tokens_received": ms.get("tokens_received", ms.get("output_tokens")),
                               "cost": ms.get("instance_cost"), "num_steps": len(steps),
                               "exit_status": info.get("exit_status")})


def _read_public_traj(file: Path) -> _Traj:
    data = read_json(file)
    return _Traj(file, _public_steps(data, file), {"num_steps": len(data)})


def transcript_at(traj: _Traj, questions: list[dict[str, Any]]) -> dict[str, Any]:
    """Where a pass's conversation is: its trajectory file, and the step of each of its questions (the turn that
    asks question i is step ``steps[i]``'s action; the next turn, its observation, answers it)."""
    return {"reader": "hil-bench", "file": os.path.abspath(traj.file),
            "steps": [q.get("step") for q in questions]}


def read_transcript(at: dict[str, Any], run: dict[str, Any]) -> dict[str, Any]:
    """A pass's conversation from its trajectory: a SWE-agent ``.traj`` (the first step's prompt messages, then
    each step's thought and action and the observation it got), or an exported public trajectory (actions and
    observations only: ``covers`` says so). An ``ask_human`` action's argument is unquoted as the questions are
    (:func:`ask_human_question`)."""
    file = Path(at["file"])
    data = read_json(file)
    public = isinstance(data, list)
    raw = data if public else (data.get("trajectory") if isinstance(data, dict) else None)
    steps = _public_steps(raw, file)
    turns: list[dict[str, Any]] = []
    if not public and isinstance(raw, list) and raw and isinstance(raw[0], dict):
        for m in raw[0].get("query") or []:  # the prompt the model saw before its first action
            if isinstance(m, dict) and m.get("role") in ("system", "user"):
                turns.append({"role": m["role"], "content": _text(m.get("content", ""))})
    asked = {step: i for i, step in enumerate(at.get("steps") or []) if step is not None}
    for i, s in enumerate(steps):
        act = s.get("act", "")
        question = ask_human_question(act)
        tool = act.split(None, 1)[0] if act.strip() else None
        args: dict[str, Any] = {"question": question} if question is not None else {"command": act}
        turns.append({"role": "assistant", "content": s.get("response"), "tool_name": tool,
                      "tool_args": args if tool else None, "q_index": asked.get(i)})
        turns.append({"role": "tool", "content": s.get("obs", ""), "tool_name": tool, "answers": asked.get(i)})
    return {"covers": "tool_calls" if public else "conversation", "turns": turns,
            "note": "an exported public trajectory: actions and observations, no prompt or thoughts" if public
            else None}
