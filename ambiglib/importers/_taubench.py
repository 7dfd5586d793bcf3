"""τ-bench results (``sierra-research/tau-bench``): the JSON list of ``EnvRunResult`` its ``run.py`` writes,
and the ``historical_trajectories/`` it publishes, as a run log.

One run per record (a task × trial); the agent's messages to the user that ask (text holding a ``?``: a message
without a tool call, or an act/react agent's ``respond`` action) are questions, the user simulator's next
message their answer. The mapping, field by field, is in ``docs/importers.md`` (τ-bench). A run's conversation,
its trajectory, is read from its file again when asked for (:func:`read_transcript`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Literal, overload

from ambiglib.errors import FormatError, LoadError
from ambiglib.importers._common import (
    UNEXPECTED,
    Collected,
    RowError,
    check_loaded_transcript,
    finish,
    guard,
    present,
    read_json,
)
from ambiglib.importers._reader import Reader, ReadOptions
from ambiglib.runlog._files import is_dir, open_regular, walk
from ambiglib.runlog._jsonl import TRANSCRIPT_AT
from ambiglib.runlog._schema import RecordError, meta_text
from ambiglib.runset import RunSet

__all__ = ["read_taubench", "is_taubench_log", "why_not_taubench", "taubench_logs"]

BENCHMARK = "tau-bench"
#: the roles of a trajectory's messages (OpenAI chat messages, as the tool-calling agent keeps them)
ROLES = ("system", "user", "assistant", "tool")
#: what ``run.py``'s ``display_metrics`` counts as a success: a reward of 1 within 1e-6
SUCCESS_TOLERANCE = 1e-6
#: the fields of ``tau_bench/types.py``'s ``EnvRunResult``, in the order ``model_dump`` writes them
FIELDS = ("task_id", "reward", "info", "traj", "trial")
#: run.py's agent strategies (its ``run`` asserts one of these); act and react agents write their actions as text
STRATEGIES = ("tool-calling", "act", "react", "few-shot")
_TEXT_ACTIONS = ("act", "react")
#: ``tau_bench/types.py``'s ``RESPOND_ACTION_NAME``: the action that sends its ``content`` to the user
RESPOND = "respond"
#: run.py's checkpoint name, ``f"{agent_strategy}-{model.split('/')[-1]}-{temperature}_range_{start_index}-``
#: ``{end_index}_user-{user_model}-{user_strategy}_{time_str}.json"``; the strategy and the model are told apart
#: by the strategies run.py knows
_CKPT = re.compile(r"^(?P<head>.+)-(?P<temperature>\d+(?:\.\d+)?(?:e[-+]?\d+)?)_range_(?P<start>-?\d+)-(?P<end>-?\d+)"
                   r"_user-(?P<user>.+)$")
#: the name's tail: the user simulator's model and strategy (``tau_bench/envs/user.py``'s ``UserStrategy``) and
#: the time the run started (``%m%d%H%M%S``)
_USER = re.compile(r"^(?P<user_model>.+)-(?P<user_strategy>human|llm|react|verify|reflection)_(?P<time_str>\d{10})$")
#: the environments' policy headings (the system message a trajectory opens with)
_DOMAINS = {"airline": re.compile(r"^#\s*airline agent policy", re.I), "retail": re.compile(r"^#\s*retail agent policy",
                                                                                          re.I)}
#: what is counted in ``RunSet.skipped`` for a results file that cannot be read, or is refused as a whole
UNREADABLE = "τ-bench results file that cannot be read (its records cannot be counted): named in the errors"
REFUSED = "record of a τ-bench results file refused as a whole: named in the errors"


# ----------------------------------------------------------------------------- which files are τ-bench's

#: deciding whether a file is τ-bench's reads it a chunk at a time, up to the end of its first record or this much
#: (a published record is at most 50 KB, and the keys that tell, ``task_id`` and ``reward``, or ``info`` and ``reward``
#: sorted, come before its trajectory)
_CHUNK = 1 << 16
_SCAN_LIMIT = 256 << 10
_WS = b" \t\r\n"
_STRING = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"', re.S)
#: between the first record's keys and values: whitespace and scalars
_SKIP_TOP = re.compile(rb'[^"\[\]{},:]*+')
#: inside one of its values: everything but a bracket, or a string the chunk's end cuts
_SKIP_VALUE = re.compile(rb'(?:[^"\[\]{}]++|"[^"\\]*+(?:\\.[^"\\]*+)*+")*+', re.S)
_OPENS = re.compile(rb"[\[{]++")
_CLOSES = re.compile(rb"[\]}]++")


def _end(pattern: re.Pattern[bytes], data: bytes, i: int) -> int:
    """Where a match of ``pattern`` at ``i`` ends: one of the patterns above, which match there by construction
    (the skips may match nothing; a run of brackets starts at the bracket found there)."""
    m = pattern.match(data, i)
    assert m is not None
    return m.end()


def why_not_taubench(path: Path) -> str | None:
    """Why ``path`` is not τ-bench results, in words; None when it is.

    τ-bench results are a ``.json`` file holding a JSON list whose first item is an ``EnvRunResult`` record, told by
    its keys in any order (run.py writes ``task_id`` first; a file re-saved with sorted keys opens with ``info``): four
    or five of its five fields, or two or more and no other key (a first record that lost or misspelt a field, or a
    file cut short inside it, is still τ-bench's, and its reader names the damage). Only the first record is read, a
    chunk at a time, its keys followed and its values skipped unparsed, never past 256 KiB: a large file of another
    kind costs what its first item does, and no more than those 256 KiB.
    """
    if not os.fspath(path).endswith(".json"):  # (by its text: ~20,000 names of a folder of small files)
        return "its name does not end in .json"
    path = Path(path)
    try:
        fh = open_regular(path)
    except FormatError as exc:
        return str(exc).removeprefix(f"{path}: ")
    try:
        with fh:
            keys, stopped = _first_keys(fh)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if keys is None:
        return stopped
    other = [k for k in keys if k not in FIELDS]
    ours = list(dict.fromkeys(k for k in keys if k in FIELDS))
    if len(ours) >= len(FIELDS) - 1 or (not other and len(ours) >= 2):
        return None
    if other:
        return (f"its first item has the key {other[0]!r}, which run.py's EnvRunResult records ({', '.join(FIELDS)})"
                f" do not have, and {len(ours)} of their fields")
    found = ", ".join(ours) if ours else "none"
    return (f"{stopped + ': ' if stopped else ''}its first item has {found} of the fields of run.py's EnvRunResult"
            f" records ({', '.join(FIELDS)}); two or more tell one")


# complexity over 15 (noqa: C901 below): one branch per result layout of tau-bench
def _first_keys(fh: BinaryIO) -> tuple[list[str] | None, str | None]:  # noqa: C901
    """The keys of the first item of the JSON list ``fh`` holds, as far as they go, and why the scan stopped before
    the item's end (None when it got there); ``(None, why)`` when ``fh`` holds no list opening with an object.
    Values are skipped, not parsed: a regular expression passes over each string and run of other bytes at once,
    and only brackets are counted."""
    total = 0

    def more(keep: bytes) -> bytes | None:  # what is left of the data and the next chunk (None at the end)
        nonlocal total
        chunk = fh.read(max(_CHUNK, len(keep)))  # a long string cut by a chunk's end is read on in doubling steps
        total += len(chunk)
        return keep + chunk if chunk else None

    data = more(b"") or b""
    i = 3 if data.startswith(b"\xef\xbb\xbf") else 0  # a byte-order mark: its reader names it
    for want in b"[{":
        while True:
            while i < len(data) and data[i] in _WS:
                i += 1
            if i < len(data):
                break
            nxt = more(b"")
            if nxt is None:
                return None, ("an empty file" if total == 0 else "only whitespace" if want == ord("[")
                              else "the file ends after its opening '['")
            if total > _SCAN_LIMIT:
                return None, f"over {_SCAN_LIMIT >> 10} KiB of whitespace where a JSON list belongs"
            data, i = nxt, 0
        if data[i] != want:
            shown = data[i:i + 1].decode("latin-1")
            if want == ord("["):
                return None, f"not a JSON list (it opens with {shown!r})"
            return None, ("an empty list" if shown == "]"
                          else f"its first item is not an object (it opens with {shown!r})")
        i += 1
    keys: list[str] = []
    depth, expect_key = 1, True  # depth 1: in the first item, between its keys and values
    while True:
        i = _end(_SKIP_TOP if depth == 1 else _SKIP_VALUE, data, i)
        if i < len(data):
            c = data[i]
            if c == 0x22:  # a string; inside a value, only one the chunk's end cuts is left here
                m = _STRING.match(data, i)
                if m is not None:
                    if depth == 1 and expect_key:
                        keys.append(_key(data[i + 1:m.end() - 1]))
                        expect_key = False
                    i = m.end()
                    continue
            elif c in b"[{":  # a run of brackets at once: nesting costs no step a level
                end = _end(_OPENS, data, i)
                depth, i = depth + end - i, end
                continue
            elif c in b"]}":
                end = _end(_CLOSES, data, i)
                if end - i >= depth:
                    return keys, None
                depth, i = depth - (end - i), end
                continue
            else:  # at depth 1: ',' (a key follows) or ':' (a value does)
                expect_key, i = c == 0x2C, i + 1
                continue
        if total > _SCAN_LIMIT:
            return keys, f"its first item runs over {_SCAN_LIMIT >> 10} KiB"
        nxt = more(data[i:])
        if nxt is None:
            return keys, "the file ends inside its first item"
        data, i = nxt, 0


def _key(raw: bytes) -> str:
    """A key as JSON text (its escapes read), or said in words when it is too long or not valid."""
    if len(raw) > 64:
        return f"{raw[:20].decode('utf-8', 'replace')}... (a key of over 64 bytes)"
    try:
        return json.loads(b'"' + raw + b'"')
    except ValueError:
        return raw.decode("utf-8", "replace")


def is_taubench_log(path: Path) -> bool:
    """Whether ``path`` is a τ-bench results file, by its content (:func:`why_not_taubench`)."""
    return why_not_taubench(path) is None


def taubench_logs(path: Path) -> list[Path]:
    """The τ-bench result files at ``path``: the file itself, or every one under the folder, in name order."""
    if not path.is_dir():
        return [path] if is_taubench_log(path) else []
    return [p for p, why in walk(path) if why is None and is_taubench_log(p)]


def _once(files: Sequence[Path], out: Collected) -> list[Path]:
    """Each real file once, in the given order: names of one file (a symbolic link to it, or a hard link) are read
    under one of them, its own name before a link's, and each other name is counted in ``RunSet.skipped``: a file
    linked inside its folder is not read twice, as another model."""
    names: dict[tuple[int, int], list[int]] = {}  # a file's identity: the positions of its names
    for n, file in enumerate(files):
        try:
            st = os.stat(file)
        except OSError:  # a link to nothing or in a loop, a file gone: read (and refused, named) as it is
            continue
        names.setdefault((st.st_dev, st.st_ino), []).append(n)
    dropped: set[int] = set()
    for same in names.values():
        kept = next((n for n in same if not os.path.islink(files[n])), same[0])
        for n in same:
            if n != kept:
                dropped.add(n)
                out.skip(f"another name (a link) of the τ-bench results file {files[kept]}, which is read once")
    return [file for n, file in enumerate(files) if n not in dropped]


# ----------------------------------------------------------------------------- what a file's name says


@dataclass(frozen=True)
class _Name:
    """What a results file's name says: the model, the domain, the agent strategy, run.py's other settings, and the
    run log's ``policy`` they make (None: the name says none of them)."""

    model: str
    domain: str | None = None
    strategy: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    policy: str | None = None


def _name(file: Path) -> _Name:
    """run.py's checkpoint name (the strategy, the model, the temperature, the user simulator, ...) or
    ``<model>-<domain>.json`` as the published historical trajectories are named; else the whole name is the model.
    A checkpoint name whose strategy is none of run.py's is a RowError: its model cannot be told from it.

    The settings the name gives that change what the agent does or meets (its strategy, its temperature, the user
    simulator's model and strategy) make the run's ``policy``: runs that differ in any of them are two agents, never
    one key (:func:`_policy`). The task range and the start time are not in it: shards of one run, or runs of one
    agent started at other times, are one agent."""
    stem = file.name.removesuffix(".json")
    m = _CKPT.match(stem)
    if m:
        head = m["head"]
        strategy = next((s for s in STRATEGIES if head.startswith(f"{s}-") and len(head) > len(s) + 1), None)
        if strategy is None:
            raise RowError(None, f"named as run.py names its results ({{agent_strategy}}-{{model}}-{{temperature}}"
                                 f"_range_...), but {head!r} starts with none of run.py's agent strategies"
                                 f" ({', '.join(STRATEGIES)}), so its model cannot be told; name it"
                                 " <model>-<domain>.json to read it")
        settings: dict[str, Any] = {"temperature": float(m["temperature"]), "start_index": int(m["start"]),
                                    "end_index": int(m["end"])}
        user = _USER.match(m["user"])
        settings.update(user.groupdict() if user else {"user": m["user"]})
        return _Name(head[len(strategy) + 1:], None, strategy, settings,
                     _policy(strategy, m["temperature"], user["user_model"] if user else None,
                             user["user_strategy"] if user else None, m["user"]))
    for domain in _DOMAINS:
        if stem.endswith(f"-{domain}") and len(stem) > len(domain) + 1:
            return _Name(stem.removesuffix(f"-{domain}"), domain)
    return _Name(stem)


def _policy(strategy: str, temperature: str, user_model: str | None, user_strategy: str | None, user: str) -> str:
    """A checkpoint's agent as the run log's ``policy``: run.py's agent strategy, its temperature as the name writes
    it and the user simulator (``tool-calling, temperature 0.0, user gpt-4o (llm)``), so that two temperatures or two
    user simulators are two agents on a leaderboard, as two strategies are. A user part of another shape is kept
    whole but for a start time it ends with (``user <text>``)."""
    said = (f"user {user_model} ({user_strategy})" if user_model is not None
            else f"user {re.sub(r'_[0-9]{10}$', '', user)}")
    return f"{strategy}, temperature {temperature}, {said}"


def _domain(traj: list, named: str | None, where: str) -> str | None:
    """The domain the trajectory's system message is the policy of (None when it opens with no known policy)."""
    system = traj[0].get("content") if traj and traj[0].get("role") == "system" else None
    if isinstance(system, str):
        for domain, heading in _DOMAINS.items():
            if heading.match(system.lstrip()):
                if named is not None and named != domain:
                    raise RowError("traj", f"{where}: the file's name says {named}, its system message is the"
                                           f" {domain} policy")
                return domain
    return named


# ----------------------------------------------------------------------------- reading


# strict returns the run set alone, lenient (strict=False) the run set and its errors
@overload
def read_taubench(path: str | os.PathLike[str], *, strict: Literal[True] = True, files: Sequence[Path] | None = None
                  ) -> RunSet: ...
@overload
def read_taubench(path: str | os.PathLike[str], *, strict: Literal[False], files: Sequence[Path] | None = None
                  ) -> tuple[RunSet, list[LoadError]]: ...
@overload
def read_taubench(path: str | os.PathLike[str], *, strict: bool, files: Sequence[Path] | None = None
                  ) -> RunSet | tuple[RunSet, list[LoadError]]: ...
@guard("τ-bench results")
def read_taubench(path: str | os.PathLike[str], *, strict: bool = True, files: Sequence[Path] | None = None
                  ) -> RunSet | tuple[RunSet, list[LoadError]]:
    """Read τ-bench results: one run per task × trial (``docs/importers.md``, τ-bench).

    Parameters
    ----------
    path : a results ``.json`` file, or a folder of them (read with every folder below it)
    strict : raise the first problem (default), else return ``(runset, errors)``
    files : the files to read (default: every τ-bench result file at ``path``)

    Each real file is read once (a name linked to another is counted in ``RunSet.skipped``); a file that cannot be
    read, or whose name cannot be read, is an error naming it, and the other files are read.
    """
    root = Path(path)
    logs = list(files) if files is not None else taubench_logs(root)
    if not logs:
        why = f"not τ-bench results: {why_not_taubench(root)}" if not root.is_dir() else (
            "no τ-bench results (a .json list of run.py's EnvRunResult records) found")
        raise FormatError(f"{root}: {why}")
    out = Collected("τ-bench")
    for file in _once(logs, out):
        try:
            present(file)
            records = read_json(file)
        except FormatError as exc:
            _refuse(out, file, exc)
            continue
        if not isinstance(records, list):
            out.reject(file, None, None, f"expected a JSON list of run results, found {type(records).__name__}")
            out.skip(UNREADABLE)
            continue
        try:
            name = _name(file)
        except RowError as exc:
            out.reject(file, None, None, f"{exc.message} ({len(records)} records not read)")
            out.skip(REFUSED, len(records))
            continue
        _read_file(file, records, name, out)
    return finish(out, root, strict=strict)


def _refuse(out: Collected, file: Path, exc: FormatError) -> None:
    """A results file that cannot be read, as an error naming it (and the line, when the message has one)."""
    text = str(exc)
    m = re.match(re.escape(str(file)) + r"(?::(\d+))?: ", text)
    out.reject(file, int(m[1]) if m and m[1] else None, None, text[m.end():] if m else text)
    out.skip(UNREADABLE)


def _read_file(file: Path, records: list, name: _Name, out: Collected) -> None:
    """One file's records, as runs or errors in record order. A run whose record does not say its domain (an
    errored run: run.py writes its trajectory empty) is in the file's: the name's, else the one its other runs are
    in (run.py writes one environment's runs to a file); when neither tells one, it is refused, saying so."""
    parsed: list[tuple[int, dict[str, Any] | Exception]] = []
    for line, rec in enumerate(records, 1):
        try:
            parsed.append((line, _run(rec, line, name)))
        except (RowError, FormatError, *UNEXPECTED) as exc:  # raised again in record order, below
            parsed.append((line, exc))
    domains = sorted({run["suite"] for _, run in parsed if isinstance(run, dict) and run["suite"] is not None})
    seen: dict[tuple[str, int, int], int] = {}
    for line, run in parsed:
        with out.row(file, line, f"record {line}"):
            if isinstance(run, Exception):
                raise run
            if run["suite"] is None:
                run["suite"] = _file_domain(run, domains, f"record {line}")
            key = (run["suite"], run["meta"]["tau_bench"]["task_id"], run["trial"])
            if key in seen:
                raise RowError("trial", f"record {line}: task {key[1]} trial {key[2] - 1} again (first: record"
                                        f" {seen[key]}); which one counts is not defined")
            seen[key] = line
            if "file" in run[TRANSCRIPT_AT]:  # (an errored run's locator says it has none)
                run[TRANSCRIPT_AT]["file"] = os.path.abspath(file)
            out.add(file, line, run)


def _file_domain(run: dict[str, Any], domains: list[str], where: str) -> str:
    """The domain of a run whose record does not say it: the one domain of the file's other runs, else a RowError."""
    if len(domains) == 1:
        return domains[0]
    cause = ("the run raised before its first message (info 'error'; run.py writes its trajectory empty)"
             if run.get("status") == "error" else "its trajectory opens with no policy of τ-bench's domains"
                                                  f" ({', '.join(_DOMAINS)})")
    others = f"its other runs are {' and '.join(domains)}" if domains else "no other run in it says its domain"
    raise RowError("traj", f"{where}: which domain this run is in cannot be told: {cause}, the file's name does not"
                           f" say it, and {others}; name the file <model>-<domain>.json to say it")


def _int(rec: dict, name: str, where: str) -> int:
    value = rec.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise RowError(name, f"{where}: '{name}' must be a whole number, at least 0 (got {value!r})")
    return value


def _run(rec: Any, line: int, name: _Name) -> dict[str, Any]:
    where = f"record {line}"
    if not isinstance(rec, dict):
        raise RowError(None, f"{where}: expected an object (an EnvRunResult), found {type(rec).__name__}")
    missing = [k for k in FIELDS if k not in rec]
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
    _check_messages(traj, where)
    if not traj and "error" not in info:
        raise RowError("traj", f"{where}: 'traj' is empty, but 'info' has no 'error' (run.py writes an empty"
                               " trajectory only for a run that raised)")
    text_actions = name.strategy in _TEXT_ACTIONS
    said = _said(traj, text_actions, where)
    domain = _domain(traj, name.domain, where)
    run: dict[str, Any] = {
        "record": "run", "benchmark": BENCHMARK, "suite": domain, "task_id": str(task_id),
        "model": name.model, "spec": "ambiguous", "ask_tool": True, "trial": trial + 1,
    }
    if name.policy is not None:
        run["policy"] = name.policy
    note: dict[str, Any] = {"tau_bench": {"task_id": task_id, "trial": trial}}
    cost = info.get("user_cost")
    if cost is not None:
        if isinstance(cost, bool) or not isinstance(cost, (int, float)):
            raise RowError("user_cost", f"{where}: info 'user_cost' must be a number (got {cost!r:.200})")
        note["tau_bench"]["user_cost"] = cost
    if name.strategy is not None:
        note["tau_bench"]["agent_strategy"] = name.strategy
    note["tau_bench"].update(name.settings)
    if "error" in info:  # run.py's except branch: reward 0.0 written for a run that never finished
        run["status"] = "error"
        note["error_reason"] = f"the run raised: {' '.join(str(info['error']).split())[:300]}"
    else:
        run["score"] = float(reward)
        run["passed"] = abs(float(reward) - 1.0) <= SUCCESS_TOLERANCE
    asked = _questions(traj, said)
    if asked:
        run["questions"] = [q for _, q in asked]
    run["steps"] = sum(1 for m in traj if m["role"] == "assistant")
    run["meta"] = note
    if traj:  # the file is filled in by _read_file; "traj": the position in traj of each question's message
        at = [i for i, _ in asked]
        # the conversation built and checked now, then dropped: damage it alone holds is this load's error
        check_loaded_transcript({"covers": "conversation", "turns": _turns(traj, at, text_actions, where),
                                 "note": None}, len(asked), where)
        run[TRANSCRIPT_AT] = {"reader": "tau-bench", "file": None, "index": line - 1, "task_id": task_id,
                              "trial": trial, "traj": at, "text_actions": text_actions}
    else:
        run[TRANSCRIPT_AT] = {"none": "τ-bench's run.py writes an empty trajectory for a run that raised before"
                                      " its first message"}
    return run


def _check_messages(traj: list, where: str) -> None:
    """Refuse a message the rules could misread: one that is no object, or whose role or text is of another type."""
    for i, m in enumerate(traj):
        if not isinstance(m, dict) or m.get("role") not in ROLES:
            raise RowError("traj", f"{where}: traj[{i}] must be a message whose 'role' is one of {', '.join(ROLES)}"
                                   f" (got {m!r:.200})")
        if m.get("content") is not None and not isinstance(m["content"], str):
            raise RowError("traj", f"{where}: traj[{i}] 'content' must be text or null (got {m['content']!r:.200})")


def _said(traj: list[dict[str, Any]], text_actions: bool, where: str) -> dict[int, str | None]:
    """What each agent message said to the user (None for a tool call), by position, checking the trajectory is as
    the agents write it: the system message, the user's first message, then each agent message followed by the
    tool's output (a tool-calling agent's ``tool`` message answering its call; an act/react agent's ``user`` message
    ``API output: ...``) or the user's reply. A trajectory of another shape is damaged: it is refused."""
    out: dict[int, str | None] = {}
    if not traj:
        return out
    roles = [m["role"] for m in traj]
    if roles[:2] != ["system", "user"]:
        raise RowError("traj", f"{where}: a trajectory opens with the system message and the user's first message"
                               f" (got {', '.join(map(repr, roles[:2]))}): the trajectory is damaged")
    for i in range(2, len(traj), 2):
        m = traj[i]
        if m["role"] != "assistant":
            raise RowError("traj", f"{where}: traj[{i}] is a {m['role']!r} message where the agent's next message"
                                   " belongs (each agent message is followed by one tool output or user reply): the"
                                   " trajectory is damaged")
        if text_actions:
            call, out[i] = _react_action(m, i, where)
        else:
            call = _tool_call(m, i, where)
            out[i] = m.get("content") if call is None else None
        answer = traj[i + 1] if i + 1 < len(traj) else None
        if call is not None and not text_actions:
            if (answer is None or answer["role"] != "tool" or answer.get("tool_call_id") != call.get("id")
                    or answer.get("name") != call["function"]["name"]):
                raise RowError("traj", f"{where}: traj[{i}] calls the tool {call['function']['name']!r}, but"
                                       f" traj[{i + 1}] is not the 'tool' message answering that call: the trajectory"
                                       " is damaged")
        elif answer is None or answer["role"] != "user":
            what = "the agent's message to the user" if call is None else "the agent's action"
            got = f"a {answer['role']!r} message" if answer is not None else "missing"
            raise RowError("traj", f"{where}: traj[{i}] is {what}, but traj[{i + 1}] is {got}, not the user's"
                                   " reply (the trajectory is damaged)")
    return out


def _tool_call(m: dict[str, Any], i: int, where: str) -> dict[str, Any] | None:
    """The tool call of a tool-calling (or few-shot) agent's message, None when it is a message to the user: as
    ``message_to_action`` decides, by its first tool call (the agent keeps only that one)."""
    calls = m.get("tool_calls")
    if calls is None or calls == []:
        return None
    first = calls[0] if isinstance(calls, list) else None
    if not isinstance(first, dict) or "function" not in first:
        raise RowError("traj", f"{where}: traj[{i}] 'tool_calls' must be a list of calls, each with a 'function'"
                               f" (got {calls!r:.200})")
    if first["function"] is None:
        return None
    if not isinstance(first["function"], dict) or not isinstance(first["function"].get("name"), str):
        raise RowError("traj", f"{where}: traj[{i}] 'tool_calls'[0] 'function' must be an object with a 'name'"
                               f" (got {first['function']!r:.200})")
    return first


def _react_action(m: dict[str, Any], i: int, where: str) -> tuple[dict[str, Any] | None, str | None]:
    """An act/react agent's message as ``ChatReActAgent.generate_next_step`` reads it, the JSON after its last
    ``Action:``: ``(action, None)`` for a tool's action, ``(None, text)`` for ``respond``, whose ``content`` goes to
    the user (as does text that is no JSON). An action that agent would have raised on is damage."""
    text = m.get("content")
    if not isinstance(text, str):
        raise RowError("traj", f"{where}: traj[{i}] is an act/react agent's message, which is text (got"
                               f" {text!r:.200})")
    action_str = text.split("Action:")[-1].strip()
    try:
        action = json.loads(action_str)
    except json.JSONDecodeError:
        return None, action_str
    except (ValueError, RecursionError) as exc:  # the agent's json.loads raised: the run could not have gone on
        raise RowError("traj", f"{where}: traj[{i}] holds an action the agent cannot have read"
                               f" ({type(exc).__name__})") from None
    if not isinstance(action, dict) or not isinstance(action.get("name"), str) or not isinstance(
            action.get("arguments"), dict):
        raise RowError("traj", f"{where}: traj[{i}] holds the action {action_str[:200]!r}, which is not"
                               ' {"name": <text>, "arguments": <object>} (the agent raises on it)')
    if action["name"] != RESPOND:
        return action, None
    if not isinstance(action["arguments"].get("content"), str):
        raise RowError("traj", f"{where}: traj[{i}] responds to the user without a text 'content' (got"
                               f" {action_str[:200]!r})")
    return None, action["arguments"]["content"]


def _questions(traj: list[dict[str, Any]], said: dict[int, str | None]) -> list[tuple[int, dict[str, Any]]]:
    """The agent's messages to the user that ask, each with its position in ``traj``: what it said to the user
    (:func:`_said`) holding a ``?``; the user's reply, the next message, is the answer. Not attributed to a
    blocker: τ-bench registers none."""
    out = []
    turn = -1
    for i, m in enumerate(traj):
        if m["role"] != "assistant":
            continue
        turn += 1
        text = said.get(i)
        if not isinstance(text, str) or "?" not in text:
            continue
        answer = traj[i + 1].get("content")
        out.append((i, {"text": text, "response": answer if isinstance(answer, str) else None, "step": turn,
                        "attributed": False}))
    return out


# ----------------------------------------------------------------------------- a run's conversation


def read_transcript(at: dict[str, Any], run: dict[str, Any]) -> dict[str, Any]:
    """A run's conversation: its entry's ``traj``, read from the results file again, one turn per message (its
    role and text as written, a ``tool`` message with the tool's ``name``).

    An assistant message is followed by one turn per tool call in its ``tool_calls`` (role ``assistant``, no
    text, ``tool_name`` the function's name, ``tool_args`` its ``arguments`` JSON text parsed; text that is not a
    JSON object, or an object the run log cannot hold, such as one with NaN, is kept as ``{"raw": text}``; a call
    whose ``function`` is null, which the agent reads as no call, gives no turn). An act/react agent writes its
    action as text after ``Action:``: its message is followed by one turn of that action, read as the agent reads
    it (a ``respond`` action, or text that is no JSON, is ``respond`` with ``{"content": text}``). Question i is
    asked by the message at ``at["traj"][i]`` (an act/react agent's: by its action's turn) and answered by the
    next message, the user's reply.

    A JSON list cannot be read an entry at a time: each call parses the whole file again with the importer's
    reader, a small cost for the published files such as ``gpt-4o-airline.json`` (docs/performance.md). The entry
    must still be the run loaded (its task and trial, its questions at the same places), else a FormatError says
    the file changed.
    """
    file = Path(at["file"])
    index = at["index"]
    where = f"entry {index}"
    records = read_json(file)
    if not isinstance(records, list) or not 0 <= index < len(records):
        n = f"a list of {len(records)} entries" if isinstance(records, list) else f"a {type(records).__name__}"
        raise FormatError(f"{file}: {where}: the file holds {n}, no entry {index}: it changed since it was loaded")
    rec = records[index]
    if not isinstance(rec, dict) or not (_same(rec.get("task_id"), at["task_id"])
                                         and _same(rec.get("trial"), at["trial"])):
        got = (f"task {rec.get('task_id')!r:.40} trial {rec.get('trial')!r:.40}" if isinstance(rec, dict)
               else f"a {type(rec).__name__}")
        raise FormatError(f"{file}: {where}: is {got}, not task {at['task_id']} trial {at['trial']} as when it"
                          " was loaded: the file changed")
    traj = rec.get("traj")
    if not isinstance(traj, list):
        raise FormatError(f"{file}: {where}: 'traj' must be a list of messages (got {type(traj).__name__})")
    text_actions = bool(at.get("text_actions"))
    try:
        _check_messages(traj, where)
        asked = [i for i, _ in _questions(traj, _said(traj, text_actions, where))]
        if asked != list(at["traj"]):
            raise RowError("traj", f"{where}: its questions are at traj{asked}, not at traj{list(at['traj'])} as"
                                   " when it was loaded: the file changed")
        turns = _turns(traj, asked, text_actions, where)
    except RowError as exc:
        raise FormatError(f"{file}: {exc.message}") from None
    except UNEXPECTED as exc:  # as the importer takes them: the entry cannot be read, said so, not a crash
        raise FormatError(f"{file}: {where}: cannot be read ({type(exc).__name__}: {exc!s:.200})") from None
    return {"covers": "conversation", "turns": turns, "note": None}


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b  # (True is not task 1)


def _turns(traj: list[dict[str, Any]], asked: list[int], text_actions: bool, where: str) -> list[dict[str, Any]]:
    """The turns of a checked trajectory (:func:`read_transcript`), question ``q`` asked at ``traj[asked[q]]``."""
    asks = {i: q for q, i in enumerate(asked)}
    replies = {i + 1: q for q, i in enumerate(asked)}
    turns: list[dict[str, Any]] = []
    for i, m in enumerate(traj):
        name = m.get("name") if m["role"] == "tool" and isinstance(m.get("name"), str) else None
        turn = _turn(m["role"], m.get("content"), name, None)
        turn["answers"] = replies.get(i)
        turns.append(turn)
        if m["role"] != "assistant":
            continue
        for fn in _calls(m, i, where):
            turns.append(_turn("assistant", None, fn["name"], _arguments(fn.get("arguments"), i, where)))
        if text_actions:
            action, said = _react_action(m, i, where)
            turns.append(_turn("assistant", None, RESPOND, {"content": said}) if action is None
                         else _turn("assistant", None, action["name"], action["arguments"]))
        if i in asks:
            (turns[-1] if text_actions else turn)["q_index"] = asks[i]
    return turns


def _turn(role: str, content: str | None, tool_name: str | None, tool_args: dict[str, Any] | None
          ) -> dict[str, Any]:
    return {"role": role, "content": content, "tool_name": tool_name, "tool_args": tool_args, "q_index": None,
            "answers": None}


def _calls(m: dict[str, Any], i: int, where: str) -> list[dict[str, Any]]:
    """The functions an assistant message calls, in order (a call whose ``function`` is null is none)."""
    calls = m.get("tool_calls")
    if calls is None:
        return []
    if not isinstance(calls, list):
        raise RowError("traj", f"{where}: traj[{i}] 'tool_calls' must be a list of calls (got {calls!r:.200})")
    out = []
    for k, call in enumerate(calls):
        if not isinstance(call, dict) or "function" not in call:
            raise RowError("traj", f"{where}: traj[{i}] 'tool_calls'[{k}] must be a call with a 'function' (got"
                                   f" {call!r:.200})")
        fn = call["function"]
        if fn is None:
            continue
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise RowError("traj", f"{where}: traj[{i}] 'tool_calls'[{k}] must be a call whose 'function' has a"
                                   f" text 'name' (got {call!r:.200})")
        out.append(fn)
    return out


def _arguments(text: Any, i: int, where: str) -> dict[str, Any] | None:
    """A tool call's ``arguments``: the JSON text parsed as the agent parses it (``json.loads``), or
    ``{"raw": text}`` when that is not an object the run log can hold."""
    if text is None:
        return None
    if isinstance(text, dict):  # (a log re-saved with its arguments parsed)
        return text
    if not isinstance(text, str):
        raise RowError("traj", f"{where}: traj[{i}] a tool call's 'arguments' must be JSON text (got {text!r:.200})")
    try:
        value = json.loads(text)
        if isinstance(value, dict):
            meta_text(value, "tool_args")  # NaN, nesting deeper than a record keeps, text that is not Unicode
            return value
    except (ValueError, RecursionError, RecordError):
        pass
    return {"raw": text}


def _read(path: Path, options: ReadOptions, files: list[Path] | None = None) -> tuple[RunSet, list[LoadError]]:
    return read_taubench(path, strict=False, files=files)


READER = Reader(
    "tau-bench", "τ-bench results: a .json list of its run.py's EnvRunResult records (task_id, reward,"
    " info, traj, trial), as run.py writes them and historical_trajectories/ publishes them",
    _read, is_file=lambda path: not is_dir(path) and is_taubench_log(path),
    detect=lambda path: bool(taubench_logs(path)), transcripts={"tau-bench": read_transcript})
