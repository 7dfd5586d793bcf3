"""The exceptions ambiglib raises, and the error records of a lenient load.

One small hierarchy: every problem with input data is an :class:`AmbiglibError`.
:class:`FormatError` is about the bytes (not JSON, not an object, no run records,
no such path, a layout nobody recognises); :class:`SchemaError` is about a
well-formed record that breaks the run-log contract (a missing field, a wrong type,
a value outside its enum or range, a duplicate run key).

Every message says where (``file:line``, the field), what was expected and what
was found, for example ``runs.jsonl:3: field 'spec' must be 'full' or 'ambiguous'
(got 'amb')``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = [
    "AmbiglibError",
    "FormatError",
    "SchemaError",
    "RunLogNotFoundError",
    "ArgumentError",
    "ReportError",
    "ParameterError",
    "LoadError",
    "AskToolWarning",
]


class AmbiglibError(Exception):
    """Base class of every error ambiglib raises about its input."""

    #: the rejected record behind a strict load's exception (:meth:`LoadError.to_exception`), else None
    error: LoadError | None = None


class AskToolWarning(UserWarning):
    """A tool the runs called that looks like asking but is not one of the mapping's ask tools: its calls were not
    read as questions (the warning names it, its calls and how to name it)."""


class FormatError(AmbiglibError):
    """Input that cannot be read as a run log at all (bytes, layout, emptiness)."""


class SchemaError(AmbiglibError):
    """A readable record that breaks the run-log contract."""


class RunLogNotFoundError(FormatError, FileNotFoundError):
    """The path given to a loader does not exist."""


class ArgumentError(AmbiglibError, ValueError):
    """An argument that names something a run log does not have (a filter's column, a partition column)."""


class ReportError(AmbiglibError):
    """The report cannot run or a notebook of it failed; the message names the notebook and the cell,
    or the folder, file or parameter at fault."""


class ParameterError(ReportError):
    """A parameters file or value that cannot be given to a notebook; the message names the file, the
    parameter, the value and what is expected."""


@dataclass(frozen=True)
class LoadError:
    """One rejected record (or unreadable line) of a lenient load.

    Attributes
    ----------
    file : str
        The file the record came from, as the loader was given it.
    line : int or None
        1-based line number in that file (None for problems that are not about a line).
    field : str or None
        The offending field, as a path (``questions[2].text``); None when the whole
        line is at fault (not JSON, not an object).
    message : str
        The full message, starting with ``file:line:``.
    kind : {"format", "schema"}
        Whether the bytes or the contract were at fault.
    record : {"run", "task"}
        What kind of record was rejected. A line that is not a JSON object counts as
        a run record, the default record kind, so that ``len(runs) + len(run errors)``
        equals the number of run records read.
    """

    file: str
    line: int | None
    field: str | None
    message: str
    kind: Literal["format", "schema"] = "schema"
    record: Literal["run", "task"] = "run"

    def __str__(self) -> str:
        return self.message

    def to_exception(self, n_more: int = 0) -> AmbiglibError:
        """Return the exception a strict load raises for this error."""
        text = self.message
        if n_more:
            text += (
                f" (and {n_more} more problem{'s' if n_more > 1 else ''};"
                " load with strict=False to get them all)"
            )
        exc_type = FormatError if self.kind == "format" else SchemaError
        exc = exc_type(text)
        exc.error = self
        return exc
