"""Does every record of a store meet the run-log contract? The contract's field rules (:mod:`ambiglib.runlog`'s
:class:`~ambiglib.runlog._schema.Field` data: required, non-empty, one of a list, within a range, and the rules
between fields of one record) as SQL over the store's frames, to find the first record a load would refuse; the
load's own validator (:func:`ambiglib.runlog.validate_record`) then says what is wrong with it, in its words.

A record's values are never written into a query: the record is found by its place (``_row``) and read back by
it. The rules on ``meta``, ``checkpoints`` and ``dimensions`` (JSON objects and lists, which no engine query
reads) are not checked here: :mod:`ambiglib.engines._checks` says so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ambiglib.engines._frames import COLUMNS
from ambiglib.errors import SchemaError
from ambiglib.runlog._schema import (
    DEFAULT_CALL,
    DEFAULT_JUDGE,
    NESTED,
    RUN_FIELDS,
    TASK_FIELDS,
    Field,
    RecordError,
    validate_record,
)

#: what ``str.strip()`` strips: a question's text of these alone is empty (the contract's "text" kind)
_WHITESPACE = "".join(c for c in map(chr, range(0x110000)) if c.isspace())
#: the largest finite double: a number above it is infinite or NaN (which both engines sort above every number)
_MAX = "CAST('1.7976931348623157e308' AS DOUBLE)"
#: the frames' columns that hold a contract field of another name
_STORED_AS = {"blocker": {"id": "blocker_id"}}
#: how many candidate records are read back at a time (a rule SQL flags the validator passes is looked past)
_BATCH = 20


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _breaks(column: str, f: Field) -> str | None:
    """SQL true where ``column``'s value breaks ``f`` (its type is the column's, checked by the footers)."""
    found = [f"{column} IS NULL"] if f.required else []
    if f.kind == "str":
        found.append(f"{column} = ''")
    elif f.kind == "text":  # null is allowed; blank is not
        found.append(f"length(translate({column}, {_literal(_WHITESPACE)}, '')) = 0")
    if f.enum:
        found.append(f"{column} NOT IN ({', '.join(map(_literal, f.enum))})")
    if f.kind == "int" and f.minimum is not None:
        found.append(f"{column} < {int(f.minimum)}")
    if f.kind == "number":  # NaN and infinity too: both engines sort NaN above every number
        low = f"{column} >= {f.minimum:g}" if f.minimum is not None else f"{column} >= -{_MAX}"
        high = f"{column} <= {f.maximum:g}" if f.maximum is not None else f"{column} <= {_MAX}"
        found.append(f"{column} IS NOT NULL AND NOT ({low} AND {high})")
    return " OR ".join(f"({c})" for c in found) or None


def _fields_of(frame: str) -> list[tuple[str, Field]]:
    """The contract fields a frame's queried columns hold, as ``(column, field)``."""
    fields = {"runs": RUN_FIELDS, "tasks": TASK_FIELDS, "questions": NESTED["question"], "labels": NESTED["label"],
              "blockers": NESTED["blocker"]}[frame]
    item = {"questions": "question", "labels": "label", "blockers": "blocker"}.get(frame, "")
    stored = _STORED_AS.get(item, {})
    return [(stored.get(f.name, f.name), f) for f in fields
            if stored.get(f.name, f.name) in COLUMNS[frame] and f.kind not in ("list", "object", "transcript")]


def _bad_rows(frame: str, t: Callable[[str], str], select: str) -> str:
    """SQL: ``select`` (``_row``, the key) of each row of ``frame`` one of whose own fields breaks the contract."""
    rules = [r for column, f in _fields_of(frame) if (r := _breaks(column, f))]
    return f"SELECT {select} FROM {t(frame)} WHERE " + " OR ".join(f"({r})" for r in rules)


def candidates(frame: str, t: Callable[[str], str], after: int = -1) -> list[str]:
    """SQL, one query a rule: the ``_row`` of each record of ``frame`` (``runs`` or ``tasks``) past ``after`` a load
    would refuse, for its own fields or its questions', labels' or blockers', or a rule between them, the first few
    in order (each query small: one join at most, within a tight ``memory_limit``)."""
    if frame == "tasks":
        key = "c.benchmark = p.benchmark AND c.suite = p.suite AND c.variant_id = p.variant_id"
        blockers = t("blockers")
        repeated = (f"SELECT benchmark, suite, variant_id FROM {blockers} GROUP BY benchmark, suite, variant_id,"
                    " blocker_id HAVING COUNT(*) > 1")
        through = [f"SELECT p._row FROM {t('tasks')} p JOIN ({_bad_rows('blockers', t, 'benchmark, suite, variant_id')}) c ON {key}",
                   f"SELECT p._row FROM {t('tasks')} p JOIN ({repeated}) c ON {key}"]
    else:
        questions, labels, runs = t("questions"), t("labels"), t("runs")
        counts = f"(SELECT run_id, COUNT(*) AS n FROM {questions} GROUP BY run_id)"
        repeated = (f"SELECT run_id FROM {labels} GROUP BY run_id, facet, COALESCE(judge, '{DEFAULT_JUDGE}'),"
                    f" COALESCE(call, {DEFAULT_CALL}), q_index HAVING COUNT(*) > 1")
        unattributed = f"SELECT run_id FROM {questions} WHERE attributed = false AND blocker_id IS NOT NULL"
        through = [
            f"SELECT p._row FROM {runs} p JOIN ({_bad_rows('questions', t, 'run_id')}) c ON c.run_id = p.run_id",
            f"SELECT p._row FROM {runs} p JOIN ({unattributed}) c ON c.run_id = p.run_id",  # it names no blocker
            f"SELECT p._row FROM {runs} p JOIN ({_bad_rows('labels', t, 'run_id')}) c ON c.run_id = p.run_id",
            f"SELECT p._row FROM {runs} p JOIN (SELECT l.run_id FROM {labels} l LEFT JOIN {counts} q"
            " ON q.run_id = l.run_id WHERE l.q_index >= COALESCE(q.n, 0)) c ON c.run_id = p.run_id",  # no such question
            f"SELECT p._row FROM {runs} p JOIN ({repeated}) c ON c.run_id = p.run_id",
            f"SELECT p._row FROM {runs} p JOIN {counts} q ON q.run_id = p.run_id WHERE p.ask_tool = false",
        ]
    return [f"SELECT DISTINCT _row FROM ({q}) b WHERE _row > {int(after)} ORDER BY _row LIMIT {_BATCH}"
            for q in [_bad_rows(frame, t, "_row"), *through]]


def _record(frame: str, row: int, t: Callable[[str], str], rows: Callable[[str], list[dict[str, Any]]]
            ) -> dict[str, Any]:
    """The record the row ``row`` of ``frame`` holds, as a load builds it from the store: its contract fields and
    its questions (by index) and labels, or its blockers (in their order), nulls left out."""
    own = [c for c, _ in _fields_of(frame)]
    record = {k: v for k, v in rows(f"SELECT {', '.join(own)} FROM {t(frame)} WHERE _row = {int(row)}")[0].items()
              if v is not None}
    if frame == "tasks":
        record["record"] = "task"
        key = "c.benchmark = p.benchmark AND c.suite = p.suite AND c.variant_id = p.variant_id"
        children = {"blockers": ("blockers", key, "c._row")}
    else:
        key = "c.run_id = p.run_id"
        children = {"questions": ("questions", key, "c.q_index, c._row"), "labels": ("labels", key, "c._row")}
    for field, (child, on, order) in children.items():
        columns = _fields_of(child)
        select = ", ".join(f"c.{column} AS {f.name}" for column, f in columns)
        items = rows(f"SELECT {select} FROM {t(frame)} p JOIN {t(child)} c ON {on} WHERE p._row = {int(row)}"
                     f" ORDER BY {order}")
        if items:
            record[field] = [{k: v for k, v in item.items() if v is not None} for item in items]
    return record


def check_fields(where: Callable[[str, int], str], t: Callable[[str], str],
                 rows: Callable[[str], list[dict[str, Any]]]) -> None:
    """Refuse the store at its first record the contract rejects (task records first, then runs, each in its
    place: the load's order), with the load's message (``part-file:line: field ...``)."""
    for frame in ("tasks", "runs"):
        after = -1
        while found := sorted({int(r["_row"]) for sql in candidates(frame, t, after) for r in rows(sql)})[:_BATCH]:
            for row in found:
                try:
                    validate_record(_record(frame, row, t, rows))
                except RecordError as exc:
                    raise SchemaError(f"{where(frame, row)}: {exc.message}") from None
                after = row


#: the frames and columns the rules above read (a test keeps them in the engines' columns)
READ: Mapping[str, list[str]] = {frame: [c for c, _ in _fields_of(frame)] for frame in COLUMNS}
