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

from typing import Any, Sequence

import pyarrow.compute as pc
import pyarrow.parquet as pq

from .errors import ArgumentError

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
            terms.append((column, op, list(value) if op in ("in", "not in") else value))
        out.append(terms)
    return out


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

