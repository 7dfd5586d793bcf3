"""The run log's contract as JSON Schema (draft 2020-12), made from :mod:`ambiglib.runlog._schema`'s field definitions.

``ambiglib schema`` prints it, so that a harness can check each record it writes with any JSON Schema validator
before handing the log over. The schema is necessary, not sufficient: a record it refuses, ``ambiglib.load``
refuses too, but the loader also checks what JSON Schema cannot say (:data:`NOT_SAID`).
"""

from __future__ import annotations

import json
import sys
from functools import cache
from typing import Any

from ambiglib.runlog._schema import (
    EMPTY_WHEN,
    INT_MAX,
    NESTED,
    RECORD_KINDS,
    RUN_FIELDS,
    RUN_ONLY,
    RUNLOG_VERSION,
    TASK_FIELDS,
    TASK_ONLY,
    Field,
)

__all__ = ["DRAFT", "NOT_SAID", "runlog_schema", "schema_text"]

DRAFT = "https://json-schema.org/draft/2020-12/schema"

#: What ``ambiglib.load`` checks and JSON Schema cannot say, by the definition it applies to ("record": any record,
#: across records, or the JSON text itself). Each is in the schema's ``$comment`` and in docs/runlog.md.
NOT_SAID: tuple[tuple[str, str], ...] = (
    ("record", "no two run records of a log share a run key (benchmark, suite, variant_id, model, spec, ask_tool,"
               " policy, protocol, trial, log, after defaults), nor two task records a task key (benchmark, suite,"
               " variant_id): the first in file order is kept, each later one rejected"),
    ("record", "a log holds at least one run record; logs loaded together (ambiglib.load({label: path})) reject a"
               " record naming a log other than its label"),
    ("record", "no object names a key twice (a parser keeps the last, silently)"),
    ("record", "NaN, Infinity and numbers beyond a double (1e400) are refused everywhere, meta included: they are not"
               " JSON, though many parsers read them (this schema's bounds catch them in the run log's own number"
               " fields only)"),
    ("record", "every string is valid Unicode: no lone surrogate such as \\ud800"),
    ("record", "an integer field is written without a fraction, 4 and not 4.0 (JSON Schema counts 4.0 an integer)"),
    ("record", "meta and a turn's tool_args nest at most 64 levels of objects and lists"),
    ("checkpoint", "result is at most total"),
    ("label", "q_index names a question of the run: it is below the number of the run's questions"),
    ("label", "no two labels of a run share facet, judge, call and q_index (judge and call after their defaults,"
              " 'judge' and 1)"),
    ("turn", "q_index and answers name questions of the run: each is below the number of the run's questions"),
    ("task", "blocker ids are unique within a task"),
)

#: What each object is, for its ``description``
_WHAT = {
    "run": "A run record: one attempt of one agent at one task under one condition (\"record\": \"run\", or none).",
    "task": "A task record (\"record\": \"task\"): a task, or an LHAW variant, and its blockers.",
    "question": "One clarification request of the run, in the order asked.",
    "label": "One judge or annotator call about the run, or about one of its questions (q_index).",
    "checkpoint": "One checkpoint's outcome: result points of total.",
    "blocker": "A registered blocker (HIL-Bench) or a removed segment (LHAW).",
    "turn": "One turn of the run's conversation.",
    "transcript": "The run's conversation, or the part of it the log keeps (covers).",
}
_JSON_TYPE = {"str": "string", "text": "string", "any_str": "string", "bool": "boolean", "int": "integer",
              "number": "number", "object": "object", "list": "array"}


@cache
def _not_blank() -> str:
    """A pattern matching one character that is not whitespace as Python's ``str.isspace`` has it (what the checker
    strips), spelled as \\u escapes so that every regex dialect reads the same class. Every whitespace character is
    in the Basic Multilingual Plane (a test checks the whole range)."""
    spaces = [c for c in range(0x10000) if chr(c).isspace()]
    ranges: list[list[int]] = []
    for c in spaces:
        if ranges and ranges[-1][1] == c - 1:
            ranges[-1][1] = c
        else:
            ranges.append([c, c])
    return "[^" + "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in ranges) + "]"


def _types(kind: str, nullable: bool) -> str | list[str]:
    return [_JSON_TYPE[kind], "null"] if nullable else _JSON_TYPE[kind]


def _property(f: Field) -> dict[str, Any]:
    """One field as JSON Schema: null stands for absent unless the field is required."""
    nullable = not f.required
    if f.kind in NESTED:  # a nested object of its own kind (a run's transcript)
        ref = {"$ref": f"#/$defs/{f.kind}"}
        return {"anyOf": [ref, {"type": "null"}]} if nullable else ref
    out: dict[str, Any] = {"type": _types(f.kind, nullable)}
    if f.kind == "list":
        out["items"] = ({"type": "string", "minLength": 1} if f.item == "str" else {"$ref": f"#/$defs/{f.item}"})
    elif f.enum:
        out["enum"] = [*f.enum, *([None] if nullable else [])]
    elif f.kind == "str":
        out["minLength"] = 1
    elif f.kind == "text":
        out["pattern"] = _not_blank()
    elif f.kind in ("int", "number"):
        if f.minimum is not None:
            out["minimum"] = f.minimum
        # the checker holds integers in an int64 and numbers in a finite double
        out["maximum"] = f.maximum if f.maximum is not None else INT_MAX if f.kind == "int" else sys.float_info.max
    return out


def _object(name: str, fields: tuple[Field, ...], head: dict[str, Any] | None = None,
            foreign: tuple[str, ...] = (), required: tuple[str, ...] = ()) -> dict[str, Any]:
    """An object with exactly ``fields`` (and ``head`` first; ``foreign``: the other record kind's fields, null
    here), its :data:`EMPTY_WHEN` rules as if/then, and what it cannot say in ``$comment``."""
    kind = {f.name: f.kind for f in fields}
    properties = dict(head or {})
    properties.update((f.name, _property(f)) for f in fields)
    other = "task" if name == "run" else "run"
    properties.update((n, {"type": "null", "description": f"a field of {other} records: null, or absent, here"})
                      for n in foreign)
    out: dict[str, Any] = {"description": _WHAT[name], "type": "object", "properties": properties}
    required = (*required, *(f.name for f in fields if f.required))
    if required:
        out["required"] = list(required)
    out["additionalProperties"] = False
    rules = [{"if": {"properties": {r.when: {"const": r.value}}, "required": [r.when]},
              "then": {"properties": {r.field: {"maxItems": 0} if kind[r.field] == "list" else {"type": "null"}}},
              "description": f"'{r.field}' is empty while '{r.when}' is {json.dumps(r.value)}: {r.why}"}
             for r in EMPTY_WHEN.get(name, ())]
    if rules:
        out["allOf"] = rules
    said = [rule for where, rule in NOT_SAID if where == name]
    if said:
        out["$comment"] = "Not said by this schema; ambiglib.load checks it: " + "; ".join(said) + "."
    return out


def runlog_schema() -> dict[str, Any]:
    """The JSON Schema of one run-log record (one line of a canonical ``.jsonl`` file), as a dict in a fixed order."""
    run_kind, task_kind = RECORD_KINDS
    defs = {
        run_kind: _object(run_kind, RUN_FIELDS, {"record": {"enum": [run_kind, None]}}, TASK_ONLY),
        task_kind: _object(task_kind, TASK_FIELDS, {"record": {"const": task_kind}}, RUN_ONLY, ("record",)),
    }
    defs.update((name, _object(name, fields)) for name, fields in NESTED.items())
    return {
        "$schema": DRAFT,
        "title": f"ambiglib run log, version {RUNLOG_VERSION}: one record",
        "description": "One line of an ambiglib run log in canonical JSON Lines (docs/runlog.md): a run record, or a"
                       " task record when \"record\" is \"task\". Written by `ambiglib schema` from ambiglib/runlog/_schema.py."
                       " Necessary, not sufficient: a record this schema refuses, ambiglib.load refuses too, but the"
                       " loader also checks the rules listed in $comment, here and in $defs.",
        "$comment": "Not said by this schema; ambiglib.load checks it: "
                    + "; ".join(rule if where == "record" else f"{where}: {rule}" for where, rule in NOT_SAID) + ".",
        "type": "object",
        "if": {"properties": {"record": {"const": task_kind}}, "required": ["record"]},
        "then": {"$ref": f"#/$defs/{task_kind}"},
        "else": {"$ref": f"#/$defs/{run_kind}"},
        "$defs": defs,
    }


def schema_text() -> str:
    """:func:`runlog_schema` as JSON text, two-space indented, ending in a newline: what ``ambiglib schema`` prints."""
    return json.dumps(runlog_schema(), indent=2) + "\n"
