"""The canonical run log, version 1: fields, types, and the rules a record must meet.

This module is the data contract (``docs/runlog.md``) in code. It holds two
validators of the same rules:

* :func:`validate_record` checks one parsed JSON object and says exactly what is
  wrong with it. It is the reference: every message a user sees comes from it.
* :func:`table_is_valid` checks a whole Arrow table at once. It only answers
  "is every row valid?"; the loader reads a file through Arrow and falls back to
  the reference validator, line by line, whenever this answer is no, so both
  validators must accept exactly the same records (``tests/test_schema.py``
  checks that they do).

The fields (names, kinds, required-ness, enums, ranges, nested objects) are data, :class:`Field` tuples, which
the validators read and from which :mod:`ambiglib.runlog._json_schema` writes the contract as JSON Schema
(``ambiglib schema``).
"""

from __future__ import annotations

import difflib
import json
import math
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

RUNLOG_VERSION = 1
#: The five frames a run log is read into, in order (and the files and folders a Parquet copy holds).
FRAMES = ("runs", "questions", "labels", "tasks", "blockers")

SPECS = ("full", "ambiguous")
PROTOCOLS = ("solve", "ask_only")
STATUSES = ("ok", "invalid", "timeout", "error")
RECORD_KINDS = ("run", "task")
AMBIGUITY_CLASSES = ("outcome-critical", "divergent", "benign", "new-task")

DEFAULT_POLICY = "default"
DEFAULT_PROTOCOL = "solve"
DEFAULT_TRIAL = 1
DEFAULT_STATUS = "ok"
DEFAULT_JUDGE = "judge"
DEFAULT_CALL = 1

#: The fields that identify a run; two run records with the same key are an error. ``log`` (since 1.2) names the
#: log a run belongs to when several logs of one agent are loaded together (``ambiglib.load({"before": ...,
#: "after": ...})``); it is null for a run of a log loaded alone, and then leaves the key, and the run id, as before.
RUN_KEY = (
    "benchmark",
    "suite",
    "variant_id",
    "model",
    "spec",
    "ask_tool",
    "policy",
    "protocol",
    "trial",
    "log",
)
#: The fields that identify a task (or LHAW variant) record.
TASK_KEY = ("benchmark", "suite", "variant_id")

#: The largest value an integer field holds (an Arrow int64).
INT_MAX = 2**63 - 1
#: How deep a ``meta`` value may nest (objects and lists); deeper is an error, not a crash.
MAX_DEPTH = 64


@dataclass(frozen=True)
class Field:
    """One field of a record or of a nested object."""

    name: str
    kind: str  # "str", "text", "any_str", "bool", "int", "number", "list", "object", "transcript"
    required: bool = False
    enum: tuple[str, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    item: str | None = None  # for lists: name of the nested object spec, or "str"


QUESTION_FIELDS = (
    Field("text", "text"),  # null: the agent asked, the log does not keep what (v1.1)
    Field("blocker_id", "str"),
    Field("response", "any_str"),
    Field("step", "int", minimum=0),
    Field("in_scope", "bool"),
    Field("attributed", "bool"),
    Field("parts", "int", minimum=1),  # how many questions the message holds, as counted (v1.1)
)
LABEL_FIELDS = (
    Field("facet", "str", required=True),
    Field("label", "str", required=True),
    Field("judge", "str"),
    Field("call", "int", minimum=1),
    Field("q_index", "int", minimum=0),  # the question of the run it judges; null: the run (v1.1)
)
CHECKPOINT_FIELDS = (
    Field("result", "number", required=True, minimum=0),
    Field("total", "number", required=True, minimum=0),
)
#: What part of the conversation a run's ``transcript`` holds: all of it, only the agent's tool calls (and what
#: they returned), or only the questions and their answers (v1.3)
TRANSCRIPT_COVERS = ("conversation", "tool_calls", "questions")
TURN_FIELDS = (
    Field("role", "str", required=True),  # system, user, assistant, tool, or a harness's own name
    Field("content", "any_str"),
    Field("tool_name", "str"),
    Field("tool_args", "object"),
    Field("q_index", "int", minimum=0),  # the run's question this turn asks (its position in ``questions``)
    Field("answers", "int", minimum=0),  # the run's question this turn answers
)
#: A run's ``transcript`` object (v1.3), checked by :func:`check_transcript` (its turns one by one)
TRANSCRIPT_FIELDS = (
    Field("covers", "str", required=True, enum=TRANSCRIPT_COVERS),
    Field("turns", "list", required=True, item="turn"),
    Field("note", "any_str"),  # why the log keeps no more of the conversation
)
BLOCKER_FIELDS = (
    Field("id", "str", required=True),
    Field("type", "str"),
    Field("subtype", "str"),
)
NESTED = {
    "question": QUESTION_FIELDS,
    "label": LABEL_FIELDS,
    "checkpoint": CHECKPOINT_FIELDS,
    "blocker": BLOCKER_FIELDS,
    "turn": TURN_FIELDS,
    "transcript": TRANSCRIPT_FIELDS,
}


@dataclass(frozen=True)
class EmptyWhen:
    """A rule between two fields of one object: ``field`` is empty (null, absent or ``[]``) while ``when`` is
    ``value``; ``why`` ends the checker's message."""

    field: str
    when: str
    value: Any
    why: str


#: The rules between two fields of one object that the checker enforces and JSON Schema can state too (as
#: if/then), by the object they apply to: a record kind or a :data:`NESTED` name.
EMPTY_WHEN = {
    "run": (EmptyWhen("questions", "ask_tool", False, "a run without the ask tool cannot ask; set ask_tool to true"),),
    "question": (EmptyWhen("blocker_id", "attributed", False,
                           "a question whose blocker the log does not know names none"),),
}

RUN_FIELDS = (
    Field("benchmark", "str", required=True),
    Field("suite", "str", required=True),
    Field("task_id", "str", required=True),
    Field("variant_id", "str"),
    Field("model", "str", required=True),
    Field("spec", "str", required=True, enum=SPECS),
    Field("ask_tool", "bool", required=True),
    Field("policy", "str"),
    Field("protocol", "str", enum=PROTOCOLS),
    Field("trial", "int", minimum=1),
    Field("log", "str"),  # the log the run belongs to, of several loaded together (v1.2)
    Field("status", "str", enum=STATUSES),
    Field("score", "number", minimum=0, maximum=1),
    Field("passed", "bool"),
    Field("checkpoints", "list", item="checkpoint"),
    Field("category", "str"),
    Field("questions", "list", item="question"),
    Field("labels", "list", item="label"),
    Field("cost_usd", "number", minimum=0),
    Field("tokens_in", "number", minimum=0),
    Field("tokens_out", "number", minimum=0),
    Field("steps", "number", minimum=0),
    Field("duration_s", "number", minimum=0),
    Field("meta", "object"),
    Field("transcript", "transcript"),  # the run's conversation, read when asked for, never into the frames (v1.3)
)
TASK_FIELDS = (
    Field("benchmark", "str", required=True),
    Field("suite", "str", required=True),
    Field("task_id", "str", required=True),
    Field("variant_id", "str"),
    Field("blockers", "list", item="blocker"),
    Field("ambiguity_class", "str", enum=AMBIGUITY_CLASSES),
    Field("dimensions", "list", item="str"),
    Field("strategy", "str"),
    Field("meta", "object"),
)
_RUN_BY_NAME = {f.name: f for f in RUN_FIELDS}
_TASK_BY_NAME = {f.name: f for f in TASK_FIELDS}
RUN_ONLY = tuple(n for n in _RUN_BY_NAME if n not in _TASK_BY_NAME)
TASK_ONLY = tuple(n for n in _TASK_BY_NAME if n not in _RUN_BY_NAME)
REQUIRED = {
    "run": tuple(f.name for f in RUN_FIELDS if f.required),
    "task": tuple(f.name for f in TASK_FIELDS if f.required),
}

# ----------------------------------------------------------------------------- Arrow types

QUESTION_TYPE = pa.struct(
    [
        ("text", pa.string()),
        ("blocker_id", pa.string()),
        ("response", pa.string()),
        ("step", pa.int64()),
        ("in_scope", pa.bool_()),
        ("attributed", pa.bool_()),
        ("parts", pa.int64()),
    ]
)
LABEL_TYPE = pa.struct(
    [("facet", pa.string()), ("label", pa.string()), ("judge", pa.string()), ("call", pa.int64()),
     ("q_index", pa.int64())]
)
CHECKPOINT_TYPE = pa.struct([("result", pa.float64()), ("total", pa.float64())])
BLOCKER_TYPE = pa.struct([("id", pa.string()), ("type", pa.string()), ("subtype", pa.string())])

_ARROW_KIND = {
    "str": pa.string(),
    "text": pa.string(),
    "any_str": pa.string(),
    "bool": pa.bool_(),
    "int": pa.int64(),
    "number": pa.float64(),
}
_ARROW_ITEM = {
    "question": QUESTION_TYPE,
    "label": LABEL_TYPE,
    "checkpoint": CHECKPOINT_TYPE,
    "blocker": BLOCKER_TYPE,
    "str": pa.string(),
}


def _arrow_type(f: Field) -> pa.DataType:
    if f.kind == "list":
        return pa.list_(_ARROW_ITEM[f.item])  # type: ignore[index]
    return _ARROW_KIND[f.kind]


#: What the JSON reader is told to expect: every field of both record kinds but ``meta``,
#: whose contents are free-form (it is read separately and kept as JSON text).
INPUT_SCHEMA = pa.schema(
    [pa.field("record", pa.string())]
    + [pa.field(f.name, _arrow_type(f)) for f in RUN_FIELDS if f.name not in ("meta", "transcript")]
    + [pa.field(n, _arrow_type(_TASK_BY_NAME[n])) for n in TASK_ONLY]
)
#: One file's records after reading, whichever path read them.
FILE_SCHEMA = INPUT_SCHEMA.append(pa.field("meta", pa.string())).append(
    pa.field("_line", pa.int64())
).append(pa.field("transcript_at", pa.string()))
#: ``transcript_at`` of a canonical record that holds its ``transcript``: read again from the record's line
IN_RECORD = '{"reader": "runlog"}'

# ----------------------------------------------------------------------------- the reference validator


class RecordError(Exception):
    """A record breaks the contract; ``field`` is the path to the offending value."""

    def __init__(self, field: str | None, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


def show(value: Any) -> str:
    """Render a found value for an error message, the way the input spelled it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = repr(value)
        return text if len(text) <= 60 else text[:56] + "...'"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return repr(value)


def _or_list(values: tuple[str, ...]) -> str:
    quoted = [f"'{v}'" for v in values]
    if len(quoted) == 2:
        return " or ".join(quoted)
    return "one of " + ", ".join(quoted)


def _expectation(f: Field) -> str:
    if f.enum:
        return _or_list(f.enum)
    if f.kind == "bool":
        return "true or false"
    if f.kind in ("str", "text"):
        return "a non-empty string"
    if f.kind == "any_str":
        return "a string"
    if f.kind == "int":
        return f"an integer >= {f.minimum:g}" if f.minimum is not None else "an integer"
    if f.kind == "number":
        if f.minimum is not None and f.maximum is not None:
            return f"a number in [{f.minimum:g}, {f.maximum:g}]"
        if f.minimum is not None:
            return f"a number >= {f.minimum:g}"
        return "a number"
    if f.kind == "object":
        return "an object"
    if f.kind == "list":
        return "a list of strings" if f.item == "str" else f"a list of {f.item} objects"
    raise AssertionError(f.kind)


def _bad(path: str, f: Field, value: Any) -> RecordError:
    nullable = "" if f.required or f.kind in ("list", "object") else " or null"
    return RecordError(path, f"field '{path}' must be {_expectation(f)}{nullable} (got {show(value)})")


def _check_str(path: str, value: str) -> None:
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise RecordError(path, f"field '{path}' is not valid Unicode (got {show(value)})") from None


def _scalar(path: str, f: Field, value: Any) -> Any:
    """Check a non-null scalar value against its field; return it normalised."""
    kind = f.kind
    if kind in ("str", "text", "any_str"):
        if not isinstance(value, str):
            raise _bad(path, f, value)
        if (kind == "str" and value == "") or (kind == "text" and not value.strip()):
            raise _bad(path, f, value)
        if f.enum and value not in f.enum:
            raise _bad(path, f, value)
        _check_str(path, value)
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise _bad(path, f, value)
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise _bad(path, f, value)
        if (f.minimum is not None and value < f.minimum) or value > INT_MAX:
            raise _bad(path, f, value)
        return value
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _bad(path, f, value)
        try:
            value = float(value)
        except OverflowError:  # an integer literal beyond any float
            raise _bad(path, f, value) from None
        if not math.isfinite(value):
            raise _bad(path, f, value)
        if (f.minimum is not None and value < f.minimum) or (
            f.maximum is not None and value > f.maximum
        ):
            raise _bad(path, f, value)
        return value
    raise AssertionError(kind)


def _unknown(path: str, name: str, known: list[str], where: str) -> RecordError:
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"did you mean '{close[0]}'? " if close else ""
    return RecordError(
        path,
        f"unknown field '{path}' in {where} ({hint}extra data belongs under 'meta';"
        f" known fields: {', '.join(known)})",
    )


def _nested(path: str, item: str, value: Any) -> dict[str, Any]:
    fields = NESTED[item]
    if not isinstance(value, dict):
        raise RecordError(path, f"field '{path}' must be a {item} object (got {show(value)})")
    known = [f.name for f in fields]
    for name in value:
        if name not in known:
            raise _unknown(f"{path}.{name}", name, known, f"a {item} object")
    out: dict[str, Any] = {}
    for f in fields:
        v = value.get(f.name)
        sub = f"{path}.{f.name}"
        if v is None:
            if f.required:
                raise RecordError(sub, f"missing required field '{sub}' (every {item} needs one)")
            out[f.name] = None
        else:
            out[f.name] = _scalar(sub, f, v)
    return out


def _list(f: Field, value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise _bad(f.name, f, value)
    if f.item != "str":
        return [_nested(f"{f.name}[{i}]", f.item, v) for i, v in enumerate(value)]  # type: ignore[arg-type]
    item_field = Field(f.name, "str", required=True)
    out = []
    for i, v in enumerate(value):
        if v is None:
            raise _bad(f"{f.name}[{i}]", item_field, v)
        out.append(_scalar(f"{f.name}[{i}]", item_field, v))
    return out


#: the two rules of :data:`EMPTY_WHEN`, each checked with a message of its own
(_NO_TOOL,), (_UNATTRIBUTED,) = EMPTY_WHEN["run"], EMPTY_WHEN["question"]


def _cross_checks(kind: str, out: dict[str, Any]) -> None:
    """Rules that relate several values of one record."""
    if kind == "run":
        for i, c in enumerate(out["checkpoints"] or ()):
            if c["result"] > c["total"]:
                raise RecordError(
                    f"checkpoints[{i}].result",
                    f"field 'checkpoints[{i}].result' must be at most its 'total'"
                    f" (got result {c['result']:g} > total {c['total']:g})",
                )
        questions = out["questions"] or ()
        rule = _NO_TOOL  # questions need the ask tool
        if out[rule.field] and out[rule.when] is rule.value:
            raise RecordError(
                rule.field,
                f"field '{rule.field}' holds {len(questions)} question(s) but '{rule.when}' is {show(rule.value)}"
                f" ({rule.why})",
            )
        rule = _UNATTRIBUTED  # a question whose blocker is unknown names none
        when, value, field = rule.when, rule.value, rule.field  # (locals: the loop costs what constants did)
        for i, q in enumerate(questions):
            if q[when] is value and q[field] is not None:
                raise RecordError(
                    f"questions[{i}].{field}",
                    f"field 'questions[{i}].{field}' is {q[field]!r} but '{when}' is {show(value)} ({rule.why})",
                )
        seen: dict[tuple[str, str, int, int | None], int] = {}  # (facet, judge, call, q_index) -> label
        for i, lab in enumerate(out["labels"] or ()):
            if lab["q_index"] is not None and lab["q_index"] >= len(questions):
                raise RecordError(
                    f"labels[{i}].q_index",
                    f"field 'labels[{i}].q_index' is {lab['q_index']}, but the run has {len(questions)} question(s)"
                    " (q_index is the 0-based position of the judged question in 'questions')",
                )
            key = (lab["facet"], lab["judge"] or DEFAULT_JUDGE, lab["call"] or DEFAULT_CALL, lab["q_index"])
            if key in seen:
                of = "" if key[3] is None else f" about questions[{key[3]}]"
                raise RecordError(
                    f"labels[{i}]",
                    f"field 'labels[{i}]' repeats facet '{key[0]}', judge '{key[1]}', call {key[2]}{of}"
                    f" of labels[{seen[key]}] (number repeated judge calls with 'call')",
                )
            seen[key] = i
    else:
        seen_ids: dict[str, int] = {}
        for i, b in enumerate(out["blockers"] or ()):
            if b["id"] in seen_ids:
                raise RecordError(
                    f"blockers[{i}].id",
                    f"field 'blockers[{i}].id' repeats blocker id '{b['id']}'"
                    f" of blockers[{seen_ids[b['id']]}] (blocker ids are unique within a task)",
                )
            seen_ids[b["id"]] = i


def validate_record(obj: Any) -> dict[str, Any]:  # noqa: C901 - one check per field of a record
    """Check one parsed JSON line against the contract.

    Parameters
    ----------
    obj : Any
        What ``json.loads`` gave for the line.

    Returns
    -------
    dict
        Every field of :data:`FILE_SCHEMA` but ``_line`` (absent ones as None,
        ``meta`` as JSON text), ready for Arrow.

    Raises
    ------
    RecordError
        With the field path and the message (without the ``file:line:`` prefix).
    """
    if not isinstance(obj, dict):
        raise RecordError(None, f"expected a JSON object, found {_json_kind(obj)}")
    kind = obj.get("record")
    if kind is None:
        kind = "run"
    elif kind not in RECORD_KINDS:
        raise RecordError("record", f"field 'record' must be 'run' or 'task' (got {show(kind)})")
    own, other = (_RUN_BY_NAME, _TASK_BY_NAME) if kind == "run" else (_TASK_BY_NAME, _RUN_BY_NAME)
    for name, value in obj.items():
        if name == "record" or name in own:
            continue
        if name in other:
            if value is None:
                continue
            fix = 'add "record": "task"' if kind == "run" else 'drop "record": "task"'
            raise RecordError(
                name, f"field '{name}' belongs to {'task' if kind == 'run' else 'run'} records,"
                f" not {kind} records ({fix})",
            )
        raise _unknown(name, name, ["record", *own], f"a {kind} record")
    missing = [n for n in REQUIRED[kind] if obj.get(n) is None]
    if missing:
        raise RecordError(
            missing[0],
            f"missing required field '{missing[0]}' ({kind} records need"
            f" {', '.join(REQUIRED[kind])})",
        )
    out: dict[str, Any] = {name: None for name in FILE_SCHEMA.names if name != "_line"}
    out["record"] = obj.get("record")
    for name, f in own.items():
        value = obj.get(name)
        if value is None:
            continue
        if f.kind == "transcript":
            continue  # checked below, against the questions
        if f.kind == "list":
            out[name] = _list(f, value)
        elif f.kind == "object":
            if not isinstance(value, dict):
                raise _bad(name, f, value)
            out[name] = meta_text(value, name)
        else:
            out[name] = _scalar(name, f, value)
    _cross_checks(kind, out)
    if kind == "run" and obj.get("transcript") is not None:
        check_transcript(obj["transcript"], len(out["questions"] or ()))
        out["transcript_at"] = IN_RECORD
    return out


#: a turn's fields, for the quick check (:func:`_plain_turn`)
_TURN_KEYS = frozenset(f.name for f in TURN_FIELDS)
#: a transcript's fields, in order (named by the unknown-field message), and its ``covers``
_TRANSCRIPT_KEYS = [f.name for f in TRANSCRIPT_FIELDS]
_COVERS: tuple[str, ...] = next(f.enum or () for f in TRANSCRIPT_FIELDS if f.name == "covers")


def _plain_turn(turn: Any) -> bool:
    """Whether a turn is plainly valid: known keys, a role, text or null contents, whole-number indexes, and
    arguments of flat strings, numbers and booleans; anything else goes through the field-by-field check, which
    names what is wrong (a log of long conversations is checked in a fraction of its time)."""
    if type(turn) is not dict or not _TURN_KEYS.issuperset(turn):
        return False
    role, content, tool = turn.get("role"), turn.get("content"), turn.get("tool_name")
    if type(role) is not str or not role or (content is not None and type(content) is not str) or (
            tool is not None and (type(tool) is not str or not tool)):
        return False
    for name in ("q_index", "answers"):
        v = turn.get(name)
        if v is not None and (type(v) is not int or v < 0 or v > INT_MAX):
            return False
    args = turn.get("tool_args")
    if args is not None:
        if type(args) is not dict:
            return False
        for k, v in args.items():
            if not (type(v) in (str, int, bool) or v is None) or not k.isascii():
                return False
            if type(v) is str and not _encodes(v):
                return False
    return all(text is None or _encodes(text) for text in (role, content, tool))


def _encodes(text: str) -> bool:
    """Whether a string is valid Unicode (a lone surrogate, from a JSON escape, is not)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_transcript(value: Any, n_questions: int | None) -> dict[str, Any]:
    """Check a run's ``transcript`` (``covers``, ``turns``, ``note``); return it with every turn's fields.

    A turn's ``q_index`` and ``answers`` must name one of the run's ``n_questions`` questions (None: not checked
    here; the caller compares the highest named with the run's questions)."""
    if not isinstance(value, dict):
        raise RecordError("transcript", f"field 'transcript' must be an object with 'covers' and 'turns'"
                                        f" (got {show(value)})")
    for name in value:
        if name not in _TRANSCRIPT_KEYS:
            raise _unknown(f"transcript.{name}", name, _TRANSCRIPT_KEYS, "a transcript")
    covers = value.get("covers")
    if covers not in _COVERS:
        raise RecordError("transcript.covers", f"field 'transcript.covers' must be {_or_list(_COVERS)}"
                                               f" (got {show(covers)})")
    note = value.get("note")
    if note is not None and not isinstance(note, str):
        raise RecordError("transcript.note", f"field 'transcript.note' must be a string or null (got {show(note)})")
    turns = value.get("turns")
    if not isinstance(turns, list):
        raise RecordError("transcript.turns", f"field 'transcript.turns' must be a list of turn objects"
                                              f" (got {show(turns)})")
    out = []
    for i, turn in enumerate(turns):
        path = f"transcript.turns[{i}]"
        if _plain_turn(turn):
            checked = {f: turn.get(f) for f in _TURN_KEYS}
        elif isinstance(turn, dict) and isinstance(turn.get("tool_args"), dict):
            meta_text(turn["tool_args"], f"{path}.tool_args")  # checked as meta is: depth, numbers, Unicode
            checked = _nested(path, "turn", {**turn, "tool_args": None})
            checked["tool_args"] = turn["tool_args"]
        else:
            if isinstance(turn, dict) and turn.get("tool_args") is not None:
                raise RecordError(f"{path}.tool_args", f"field '{path}.tool_args' must be an object or null"
                                                       f" (got {show(turn['tool_args'])})")
            checked = _nested(path, "turn", turn)
        for name in ("q_index", "answers"):
            if n_questions is not None and checked[name] is not None and checked[name] >= n_questions:
                raise RecordError(f"{path}.{name}", f"field '{path}.{name}' is {checked[name]}, but the run has"
                                                    f" {n_questions} question(s) (the 0-based position of a"
                                                    " question in 'questions')")
        out.append(checked)
    return {"covers": covers, "turns": out, "note": note}


def meta_text(value: dict[str, Any], path: str = "meta") -> str:
    """Return ``meta`` as canonical JSON text, after checking that it can be written and read back.

    Refused (a :class:`RecordError` naming the path inside ``meta``): nesting deeper
    than :data:`MAX_DEPTH`, a number that is not finite (``1e400`` parses as infinity,
    which JSON cannot hold), a string that is not valid Unicode.
    """
    stack: list[tuple[str, Any, int]] = [(path, value, 1)]
    while stack:
        where, v, depth = stack.pop()
        if isinstance(v, (dict, list)):
            if depth > MAX_DEPTH:
                raise RecordError(path, f"field '{path}' is nested deeper than {MAX_DEPTH} levels")
            items = v.items() if isinstance(v, dict) else enumerate(v)
            for k, item in items:
                if isinstance(k, str):
                    _check_str(where, k)
                stack.append((f"{where}.{k}" if isinstance(v, dict) else f"{where}[{k}]", item, depth + 1))
        elif isinstance(v, float) and not math.isfinite(v):
            raise RecordError(where, f"field '{where}' must be a finite number (got {show(v)})")
        elif isinstance(v, str):
            _check_str(where, v)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _json_kind(obj: Any) -> str:
    if isinstance(obj, list):
        return "a JSON array"
    if isinstance(obj, str):
        return "a JSON string"
    if isinstance(obj, bool):
        return "a JSON boolean"
    if obj is None:
        return "JSON null"
    return "a JSON number"


def reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` that refuses an object naming one key twice."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise RecordError(key, f"field '{key}' appears twice in one object")
        out[key] = value
    return out
