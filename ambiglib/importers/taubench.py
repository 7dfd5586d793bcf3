"""τ-bench results (``sierra-research/tau-bench``): the JSON list of ``EnvRunResult`` its ``run.py`` writes,
and the ``historical_trajectories/`` it publishes, as a run log.

One run per record (a task × trial); the agent's messages to the user that ask (text, no tool call, holding
a ``?``) are questions, the user simulator's next message their answer. The mapping, field by field, is in
``docs/importers.md`` (τ-bench).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Sequence

from ..errors import FormatError, LoadError
from ..files import walk
from ..runset import RunSet
from ._common import Collected, RowError, finish, guard, opens_with, present, read_json

__all__ = ["read_taubench", "is_taubench_log", "taubench_logs"]

BENCHMARK = "tau-bench"
#: the roles of a trajectory's messages (OpenAI chat messages, as the tool-calling agent keeps them)
ROLES = ("system", "user", "assistant", "tool")
#: what ``run.py``'s ``display_metrics`` counts as a success: a reward of 1 within 1e-6
SUCCESS_TOLERANCE = 1e-6
#: the first bytes of a file ``run.py`` writes: a list of ``EnvRunResult.model_dump()``, ``task_id`` first
_HEAD = re.compile(rb'^\s*\[\s*\{\s*"task_id"\s*:\s*-?\d+\s*,\s*"reward"\s*:')
#: run.py's checkpoint name: ``{strategy}-{model}-{temperature}_range_{start}-{end}_user-{user model}-...``
_CKPT = re.compile(r"^(?P<strategy>[a-z-]+?)-(?P<model>.+)-(?P<temp>[0-9.]+)_range_-?\d+--?\d+_user-")
#: the environments' policy headings (the system message a trajectory opens with)
_DOMAINS = {"airline": re.compile(r"^#\s*airline agent policy", re.I), "retail": re.compile(r"^#\s*retail agent policy",
                                                                                          re.I)}


def is_taubench_log(path: Path) -> bool:
    """A ``.json`` file that opens as τ-bench's results do (``[{"task_id": n, "reward": ...``)."""
    return path.name.endswith(".json") and opens_with(path, _HEAD)


def taubench_logs(path: Path) -> list[Path]:
    """The τ-bench result files at ``path``: the file itself, or every one under the folder, in name order."""
    if not path.is_dir():
        return [path] if is_taubench_log(path) else []
    return [p for p, why in walk(path) if why is None and is_taubench_log(p)]


def _model_and_domain(file: Path) -> tuple[str, str | None]:
    """The model from the file's name: run.py's checkpoint name, or ``<model>-<domain>.json`` as the published
    historical trajectories are named; else the whole name."""
    stem = file.name.removesuffix(".json")
    m = _CKPT.match(stem)
    if m:
        return m.group("model"), None
    for domain in _DOMAINS:
        if stem.endswith(f"-{domain}"):
            return stem.removesuffix(f"-{domain}"), domain
    return stem, None


def _domain(traj: list, named: str | None, where: str) -> str | None:
    system = next((m.get("content") for m in traj if isinstance(m, dict) and m.get("role") == "system"), None)
    if isinstance(system, str):
        for domain, heading in _DOMAINS.items():
            if heading.match(system.lstrip()):
                if named is not None and named != domain:
                    raise RowError("traj", f"{where}: the file's name says {named}, its system message is the"
                                           f" {domain} policy")
                return domain
    return named


@guard("τ-bench results")
def read_taubench(path: str | os.PathLike[str], *, strict: bool = True, files: Sequence[Path] | None = None
                  ) -> RunSet | tuple[RunSet, list[LoadError]]:
    """Read τ-bench results: one run per task × trial (``docs/importers.md``, τ-bench).

    Parameters
    ----------
    path : a results ``.json`` file, or a folder of them (read with every folder below it)
    strict : raise the first problem (default), else return ``(runset, errors)``
    files : the files to read (default: every τ-bench result file at ``path``)
    """
    root = Path(path)
    logs = list(files) if files is not None else taubench_logs(root)
    if not logs:
        raise FormatError(f"{root}: no τ-bench results (a .json list of run.py's EnvRunResult records) found")
    out = Collected("τ-bench")
    for file in logs:
        present(file)
        records = read_json(file)
        if not isinstance(records, list):
            out.reject(file, None, None, f"expected a JSON list of run results, found {type(records).__name__}")
            continue
        model, named = _model_and_domain(file)
        seen: dict[tuple[int, int], int] = {}
        for line, rec in enumerate(records, 1):
            with out.row(file, line, f"record {line}"):
                run = _run(rec, line, model, named)
                key = (run["meta"]["tau_bench"]["task_id"], run["trial"])
                if key in seen:
                    raise RowError("trial", f"record {line}: task {key[0]} trial {key[1] - 1} again (first: record"
                                            f" {seen[key]}); which one counts is not defined")
                seen[key] = line
                out.add(file, line, run)
    return finish(out, root, strict=strict)


def _int(rec: dict, name: str, where: str) -> int:
    value = rec.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise RowError(name, f"{where}: '{name}' must be a whole number, at least 0 (got {value!r})")
    return value


def _run(rec: Any, line: int, model: str, named: str | None) -> dict[str, Any]:
    where = f"record {line}"
    if not isinstance(rec, dict):
        raise RowError(None, f"{where}: expected an object (an EnvRunResult), found {type(rec).__name__}")
    missing = [k for k in ("task_id", "reward", "info", "traj", "trial") if k not in rec]
    if missing:
        raise RowError(missing[0], f"{where}: no '{missing[0]}' (an EnvRunResult has task_id, reward, info, traj,"
                                   " trial)")
    task_id, trial = _int(rec, "task_id", where), _int(rec, "trial", where)
    reward = rec["reward"]
    if isinstance(reward, bool) or not isinstance(reward, (int, float)) or not 0 <= reward <= 1:
        raise RowError("reward", f"{where}: 'reward' must be a number in [0, 1] (got {reward!r})")
    info, traj = rec["info"], rec["traj"]
    if not isinstance(info, dict) or not isinstance(traj, list):
        raise RowError("info" if not isinstance(info, dict) else "traj",
                       f"{where}: 'info' must be an object and 'traj' a list of messages")
    for i, m in enumerate(traj):  # a message the rule could misread (a role or text of another type) is refused
        if not isinstance(m, dict) or m.get("role") not in ROLES:
            raise RowError("traj", f"{where}: traj[{i}] must be a message whose 'role' is one of {', '.join(ROLES)}"
                                   f" (got {m!r:.200})")
        if m.get("content") is not None and not isinstance(m["content"], str):
            raise RowError("traj", f"{where}: traj[{i}] 'content' must be text or null (got {m['content']!r:.200})")
    for i, (m, after) in enumerate(zip(traj, traj[1:])):  # run.py writes the user's reply after each message to
        if m["role"] == "assistant" and not m.get("tool_calls") and after["role"] != "user":  # the user
            raise RowError("traj", f"{where}: traj[{i}] is the agent's message to the user, but traj[{i + 1}] is a"
                                   f" {after['role']!r} message, not the user's reply (the trajectory is damaged)")
    domain = _domain(traj, named, where)
    run: dict[str, Any] = {
        "record": "run", "benchmark": BENCHMARK, "suite": domain or "tau-bench", "task_id": str(task_id),
        "model": model, "spec": "ambiguous", "ask_tool": True, "trial": trial + 1,
    }
    note: dict[str, Any] = {"tau_bench": {"task_id": task_id, "trial": trial}}
    cost = info.get("user_cost")
    if cost is not None:
        if isinstance(cost, bool) or not isinstance(cost, (int, float)):
            raise RowError("user_cost", f"{where}: info 'user_cost' must be a number (got {cost!r:.200})")
        note["tau_bench"]["user_cost"] = cost
    if "error" in info:  # run.py's except branch: reward 0.0 written for a run that never finished
        run["status"] = "error"
        note["error_reason"] = f"the run raised: {' '.join(str(info['error']).split())[:300]}"
    else:
        run["score"] = float(reward)
        run["passed"] = abs(float(reward) - 1.0) <= SUCCESS_TOLERANCE
    messages = [m for m in traj if isinstance(m, dict)]
    questions = _questions(messages)
    if questions:
        run["questions"] = questions
    run["steps"] = sum(1 for m in messages if m.get("role") == "assistant")
    run["meta"] = note
    return run


def _questions(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The agent's messages to the user that ask: assistant text without a tool call, holding a ``?``; the
    user's next message is the answer. Not attributed to a blocker: τ-bench registers none."""
    out = []
    turn = -1
    for i, m in enumerate(messages):
        if m.get("role") != "assistant":
            continue
        turn += 1
        text = m.get("content")
        if m.get("tool_calls") or not isinstance(text, str) or "?" not in text:
            continue
        reply = next((n for n in messages[i + 1:] if n.get("role") in ("user", "assistant")), None)
        answer = reply.get("content") if reply is not None and reply.get("role") == "user" else None
        out.append({"text": text, "response": answer if isinstance(answer, str) else None, "step": turn,
                    "attributed": False})
    return out
