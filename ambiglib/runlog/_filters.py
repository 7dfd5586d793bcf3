"""Row filters in pyarrow's syntax, applied to the five frames of a run log.

A filter is what :func:`pyarrow.parquet.read_table` takes as ``filters``: a list of
``(column, op, value)`` tuples, all of which must hold, or a list of such lists, any of
which must hold (disjunctive normal form). ``op`` is one of ``==``, ``=``, ``!=``,
``<``, ``<=``, ``>``, ``>=``, ``in``, ``not in``. Every column must be a column of
``runs``.

What a filter keeps, for each frame (``RunSet.where``, ``load(..., filters=...)``):

- ``runs``: the rows that match;
- ``questions``, ``labels``: those of the runs kept;
- ``tasks``, ``blockers``: the rows that match the filter's terms on the task key
  (``benchmark``, ``suite``, ``task_id``, ``variant_id``); a conjunct with no such
  term keeps every row, as :meth:`RunSet.filter` does.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

import pyarrow.compute as pc
import pyarrow.parquet as pq

from ambiglib.errors import ArgumentError

__all__ = ["Filters", "normalize", "expression", "TASK_COLUMNS"]

#: A filter in pyarrow's syntax.
Filters = Sequence[Any]

#: The runs columns that tasks and blockers also have.
TASK_COLUMNS = ("benchmark", "suite", "task_id", "variant_id")

_OPS = {"==", "=", "!=", "<", "<=", ">", ">=", "in", "not in"}


def normalize(filters: Filters | None, columns: Sequence[str]) -> list[list[tuple[str, str, Any]]] | None:
    """The filter as a list of conjunctions; None for no filter.

    Raises
    ------
    ArgumentError
        Not pyarrow's filter syntax, an unknown operator, or a column that is not one of
        ``columns`` (named, with the columns there are).
    """
    if filters is None:
        return None
    if isinstance(filters, (str, bytes)) or not isinstance(filters, (list, tuple)):
        raise ArgumentError(f"filters must be a list of (column, op, value) tuples or a list of such lists"
                            f" (got {type(filters).__name__})")
    if len(filters) == 0:
        return None
    nested = all(isinstance(f, list) for f in filters)
    conjunctions = list(filters) if nested else [list(filters)]
    out = []
    for conj in conjunctions:
        terms = []
        for term in conj:
            if not isinstance(term, (list, tuple)) or len(term) != 3 or not isinstance(term[0], str):
                raise ArgumentError(f"filters: each term must be a (column, op, value) tuple (got {term!r})")
            column, op, value = term
            if op not in _OPS:
                raise ArgumentError(f"filters: {term!r}: op must be one of {sorted(_OPS)} (got {op!r})")
            if column not in columns:
                raise ArgumentError(f"filters: {term!r}: no runs column {column!r}; runs have {list(columns)}")
            if op in ("in", "not in") and (isinstance(value, (str, bytes)) or not hasattr(value, "__iter__")):
                raise ArgumentError(f"filters: {term!r}: {op!r} takes a list of values (got {value!r})")
            values = list(value) if op in ("in", "not in") else [value]
            kind = _kind(column)
            wrong = [v for v in values if kind is not None and not _fits(v, kind)]
            if wrong:
                raise ArgumentError(f"filters: {term!r}: runs column {column!r} holds {kind} values; {wrong[0]!r} is"
                                    f" {type(wrong[0]).__name__}")
            terms.append((column, op, list(value) if op in ("in", "not in") else value))
        out.append(terms)
    return out


def _kind(column: str) -> str | None:
    """What a runs column holds, in words a filter's value is checked against (None: anything)."""
    from ambiglib.runlog._schema import RUN_FIELDS

    derived = {"run_id": "str", "n_questions": "int", "n_labels": "int", "meta": "str", "source": "str",
               "transcript_at": "str", "transcript": None}
    kinds = {f.name: {"text": "str", "any_str": "str", "number": "number"}.get(f.kind, f.kind) for f in RUN_FIELDS}
    kind = {**kinds, **derived}.get(column)
    return {"str": "text", "bool": "true/false", "int": "whole-number", "number": "numeric"}.get(kind or "")


def _fits(value: Any, kind: str) -> bool:
    if kind == "text":
        return isinstance(value, str)
    if kind == "true/false":
        return isinstance(value, bool)
    if kind == "whole-number":
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def not_in_log(wanted: Sequence[Any], present: Collection[Any], column: str, *, shown: int = 30) -> str | None:
    """The sentence naming the ``wanted`` values of a runs column that the log does not have, with the values it
    has there (the first ``shown`` of them), so that a typo shows itself; None when every one is present."""
    missing = [v for v in wanted if v not in present]
    if not missing:
        return None
    values = sorted(present)
    return (f"{', '.join(map(repr, missing))} not in the run log, whose {column} values are"
            f" {', '.join(map(repr, values[:shown]))}" + (f" and {len(values) - shown} more" if len(values) > shown
                                                             else ""))


def matched_nothing(dnf: list[list[tuple[str, str, Any]]], present: Callable[[str], Iterable[object]]) -> str:
    """The sentence saying that a filter kept no run: each column it tests for equality, with the values the log
    has there (``present(column)``), so that a typo shows itself."""
    columns = sorted({c for conj in dnf for c, op, _ in conj if op in ("==", "=", "in")})
    shown = []
    for c in columns:
        values = sorted(map(str, present(c)))
        shown.append(f"{c}: {', '.join(map(repr, values[:20]))}" + (f" and {len(values) - 20} more"
                                                                       if len(values) > 20 else ""))
    return "filters " + repr(dnf) + " match no run" + ("; the log has " + "; ".join(shown) if shown else "")


def expression(dnf: list[list[tuple[str, str, Any]]] | None, columns: Sequence[str] | None = None
               ) -> pc.Expression | None:
    """The filter as an Arrow expression over ``columns`` (default: all its terms).

    A term on another column is dropped from its conjunction, and a conjunction left
    empty matches every row: the result keeps at least what the whole filter keeps,
    which is what pruning by partition and filtering tasks need. None when nothing is
    left to test.
    """
    if dnf is None:
        return None
    reduced = []
    for conj in dnf:
        kept = [t for t in conj if columns is None or t[0] in columns]
        if not kept:
            return None
        reduced.append(kept)
    return pq.filters_to_expression(reduced)

