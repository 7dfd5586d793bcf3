"""Which of the report's sections apply to a log: the four questions and the log's own sections always; a paper's
section where the log holds that paper's benchmark, or the runs and records one of its tables needs.

A benchmark's name is a label, not a switch: a paper section runs on a benchmark of any name whose data has the
shape its tables need (a notebook's ``metadata["ambiglib"]["needs"]``, written by ``scripts/build_notebooks.py``),
and on a paper's benchmark (by name, or named to follow its conventions) even where it lacks them, so that the
section says what is missing. The rest are listed in one line and not run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ambiglib.tables._shapes import SHAPES, Shape, applicable, conventions_for, label_prefix, labels_of

__all__ = ["PAPERS", "papers_in", "Applicability", "applicability", "need_of"]

#: the report's parts that are a paper's tables (a notebook's ``metadata["ambiglib"]["part"]``, the name its harness
#: writes), and the paper's name as printed
PAPERS = {"ambig-ds": "Ambig-DS", "hil-bench": "HIL-Bench", "lhaw": "LHAW"}

#: a need's prefix for a notebook parameter that brings data from outside the log (e.g. Ambig-DS's selector audit)
_PARAMETER = "parameter:"


def papers_in(rs: Any, conventions: Mapping[str, str] | None = None) -> set[str]:
    """The papers whose benchmark the log holds: by the name its harness writes, or a benchmark of the log named
    to follow that paper's conventions (``conventions={"clarifybench": "hil-bench"}``)."""
    benchmarks = {str(b) for b in rs.runs["benchmark"].dropna().unique()} if len(rs.runs) else set()
    return {conventions_for(b, conventions).name for b in benchmarks} & set(PAPERS)


def need_of(text: str) -> Shape:
    """A notebook's need as the shape it names: a key of :data:`ambiglib.tables.SHAPES`, ``labels:<facet>``,
    ``labels:<prefix>*`` or several joined by ``+`` (all of them).

    Raises
    ------
    ValueError
        A name that is none of these (a notebook's metadata out of step with :mod:`ambiglib.tables._shapes`).
    """
    parts = text.split("+")
    shapes = []
    for part in parts:
        if part.startswith("labels:") and part.endswith("*"):
            prefix = part[len("labels:"):-1]
            shapes.append(label_prefix(prefix, f"judge labels whose facet starts {prefix!r}"))
        elif part.startswith("labels:"):
            shapes.append(labels_of(part[len("labels:"):]))
        elif part in SHAPES:
            shapes.append(SHAPES[part])
        else:
            raise ValueError(f"need {text!r}: {part!r} is not a shape (one of {sorted(SHAPES)}, 'labels:<facet>',"
                             " 'labels:<prefix>*')")
    whole = shapes[0]
    for shape in shapes[1:]:
        whole = whole & shape
    return whole


@dataclass(frozen=True)
class Applicability:
    """Whether a section runs on a log, and why: ``because`` says what made it apply; ``needs`` (for one that
    does not) what the log would have to hold."""

    runs: bool
    because: str
    needs: str = ""


def applicability(info: Mapping[str, Any], rs: Any, papers: set[str], parameters: Mapping[str, Any]) -> Applicability:
    """Whether a notebook (its ``metadata["ambiglib"]``: ``part``, ``needs``) runs on ``rs``.

    A notebook that is no paper's, or that declares no needs (a notebook of one's own), always runs. A paper's
    runs where the log holds that paper's benchmark (``papers``, :func:`papers_in`), where a parameter it needs is
    given (``parameter:<name>``), or where the log has the shape of one of its needs."""
    part = info.get("part")
    needs: Sequence[str] = info.get("needs") or ()
    if part not in PAPERS or not needs:
        return Applicability(True, "every log")
    if part in papers:
        return Applicability(True, f"the log holds {part}")
    wanted = []
    for need in needs:
        if need.startswith(_PARAMETER):
            name = need[len(_PARAMETER):]
            if parameters.get(name):
                return Applicability(True, f"the parameter {name} is given")
            wanted.append(f"the parameter {name}")
            continue
        shape = need_of(need)
        if applicable(rs, shape):
            return Applicability(True, f"the log has {shape.needs}")
        wanted.append(shape.needs)
    return Applicability(False, "", " or ".join(wanted))

