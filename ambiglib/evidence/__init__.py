"""What is behind a number: the runs, questions and judge labels a row of a table was computed from
(:func:`evidence`, ``table.evidence(row)``), each question in its dialogue (:func:`dialogue_html`), and the pages
the report writes for them (:func:`write_evidence_pages`, :func:`run_page`)."""

from __future__ import annotations

from typing import Any

from ambiglib import _moved
from ambiglib.evidence._dialogues import dialogue_html, excerpt, run_page, run_page_name
from ambiglib.evidence._rows import QUESTION_COLUMNS, RUN_COLUMNS, Evidence, evidence, write_evidence_pages

__all__ = ["Evidence", "evidence", "write_evidence_pages", "RUN_COLUMNS", "QUESTION_COLUMNS", "dialogue_html",
           "excerpt", "run_page", "run_page_name"]


def __getattr__(name: str) -> Any:
    """A name ``ambiglib.evidence`` had as a module, with a warning."""
    return _moved.attribute(__name__, name, "ambiglib.evidence._rows")
