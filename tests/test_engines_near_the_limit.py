"""The two JSON Lines engines give the same rows and the same messages near the record limit (issue 71): a record
just under it, at it, and just over it (``docs/trust.md``: both engines give the same rows and messages).
``engine="arrow"`` refused a record just under 64 MiB that the default engine read, "the Arrow reader cannot take
this file", naming neither the line nor the size: Arrow's reader needs each line inside one of its blocks."""

from __future__ import annotations

import gzip
import json

import pytest
from conftest import run_record

import ambiglib
from ambiglib.errors import FormatError
from ambiglib.runlog import _jsonl as runlog

ENGINES = ("auto", "python", "arrow")


def _outcome(path, engine: str) -> tuple:
    """What a lenient load gives: the runs' trials and the errors, or the FormatError's message."""
    try:
        rs, errors = ambiglib.load(path, engine=engine, strict=False, quiet=True)
    except FormatError as exc:
        return ("refused", str(exc))
    return (sorted(rs.runs["trial"].tolist()), [e.message for e in errors])


def _line(size: int, trial: int) -> str:
    """A run record of exactly ``size`` bytes (its question's text padded)."""
    rec = run_record(trial=trial)
    rec["questions"][0]["text"] = ""
    rec["questions"][0]["text"] = "x" * (size - len(json.dumps(rec)))
    text = json.dumps(rec)
    assert len(text) == size
    return text


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
@pytest.mark.parametrize("offset", [-1, 0, 1], ids=["just-under", "at", "just-over"])
def test_both_engines_give_the_same_rows_and_messages_near_the_record_limit(tmp_path, monkeypatch, offset, suffix):
    # the limit lowered to 8 MiB, twice Arrow's block: engine="arrow" refused a record of 8 MiB, and of 64 MiB under
    # the real limit, "the Arrow reader cannot take this file", naming neither line nor size
    limit = 8 << 20
    monkeypatch.setattr(runlog, "MAX_RECORD_BYTES", limit)
    log = tmp_path / f"log{suffix}"
    text = "".join(line + "\n" for line in (_line(600, 1), _line(limit + offset, 2), _line(600, 3)))
    if suffix.endswith(".gz"):
        with gzip.open(log, "wt") as fh:
            fh.write(text)
    else:
        log.write_text(text)
    outcomes = {engine: _outcome(log, engine) for engine in ENGINES}
    assert outcomes["arrow"] == outcomes["python"] == outcomes["auto"], outcomes
    if offset <= 0:
        assert outcomes["arrow"] == ([1, 2, 3], [])
    else:
        assert outcomes["arrow"] == ([1, 3], [f"{log}:2: a record of {limit + 1:,} bytes, over the limit of"
                                               f" {limit:,} bytes for one record (one line;"
                                               " ambiglib.runlog.MAX_RECORD_BYTES)"])
