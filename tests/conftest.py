"""Shared helpers: record factories and a writer of JSON Lines files."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
FIXTURES = SHARED / "fixtures"


def run_record(**overrides: Any) -> dict[str, Any]:
    """A valid HIL-Bench-like run record; keyword arguments replace fields (None deletes)."""
    rec: dict[str, Any] = {
        "benchmark": "hil-bench",
        "suite": "sql",
        "task_id": "public_sql_3",
        "model": "model-a",
        "spec": "ambiguous",
        "ask_tool": True,
        "trial": 1,
        "score": 0.5,
        "passed": False,
        "questions": [
            {"text": "Which years count as the modern era?", "blocker_id": "modern_era_cards",
             "response": "2019 to 2020", "step": 4},
            {"text": "What columns matter?", "blocker_id": None, "response": "irrelevant question",
             "step": 9},
        ],
        "labels": [{"facet": "trace", "label": "intended", "judge": "j1", "call": 1}],
    }
    return _with(rec, overrides)


def task_record(**overrides: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "record": "task",
        "benchmark": "hil-bench",
        "suite": "sql",
        "task_id": "public_sql_3",
        "blockers": [
            {"id": "modern_era_cards", "type": "question", "subtype": "timeframe_ambiguity"},
            {"id": "vintage_edition_printing", "type": "schema"},
            {"id": "tournament_certified_status"},
        ],
    }
    return _with(rec, overrides)


def _with(rec: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    for key, value in overrides.items():
        if value is None:
            rec.pop(key, None)
        else:
            rec[key] = value
    return rec


def write_jsonl(path: Path, lines: list[Any]) -> Path:
    """Write records (dicts are JSON-encoded, strings written as they are) one per line."""
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.name.endswith(".gz"):
        with gzip.open(path, "wt", encoding="utf-8") as fh:
            fh.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path
