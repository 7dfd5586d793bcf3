"""A bounded fuzz run (issue 11): random corruptions of a canonical JSON Lines log, its
Parquet copy and the three native trees, each loaded in a child process under a time limit.

Every case must end in a load or an ``AmbiglibError`` — no other exception, no crash, no
hang — and pass the oracles of ``tests/fuzzing.py`` (the lenient counting rule, the two
engines agreeing, what we write read back, no damaged run accepted with other values in
silence). ``bench/fuzz.py`` runs the same cases by the thousand and prints the counts.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fuzzing  # noqa: E402

CASES = {"jsonl": 60, "jsonl.gz": 30, "parquet": 60, "hil-bench": 25, "ambig-ds": 25, "lhaw": 25}


@pytest.mark.parametrize("source", list(CASES))
def test_random_corruptions_end_in_a_load_or_our_error(source):
    report = fuzzing.run(source, seed=11, n=CASES[source])
    assert len(report.outcomes) == CASES[source]
    assert report.failures == [], "\n".join(
        f"case {o['case']}: {o['result']} after {o['mutation']} of {o['file']} ({o['detail']}): {o['message']}"
        for o in report.failures)
    # the run exercised several kinds of damage, and some were refused or reported
    assert len({o["mutation"] for o in report.outcomes}) >= 4
    assert any(o["result"] == "error" or not o["message"].endswith(" 0 errors") for o in report.outcomes)
