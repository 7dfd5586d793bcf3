"""A bounded fuzz run (issues 11, 31): random corruptions of a canonical JSON Lines log, its
Parquet copy and partitioned store, the report's snapshot of it and the three native trees, each
loaded in a child process under a time limit (the run as a whole too).

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

import fuzzing

CASES = {"jsonl": 60, "jsonl.gz": 30, "parquet": 60, "store": 40, "snapshot": 40, "hil-bench": 25, "ambig-ds": 25,
         "lhaw": 25, "inspect": 60, "tau-bench": 30,
         "ambig-swe": 30}


@pytest.mark.parametrize("source", list(CASES))
def test_random_corruptions_end_in_a_load_or_our_error(source):
    if source == "inspect":
        import fuzzing_inspect

        if not fuzzing_inspect.available():
            pytest.skip("inspect-ai is not installed (pip install 'ambiglib[inspect]'): no Inspect logs to damage")
    report = fuzzing.run(source, seed=11, n=CASES[source], total_seconds=600)
    assert len(report.outcomes) == CASES[source]
    assert report.failures == [], "\n".join(
        f"case {o['case']}: {o['result']} after {o['mutation']} of {o['file']} ({o['detail']}): {o['message']}"
        for o in report.failures)
    # the run exercised several kinds of damage, and some were refused or reported
    assert len({o["mutation"] for o in report.outcomes}) >= 4
    assert any(o["result"] == "error" or not o["message"].endswith(" 0 errors") for o in report.outcomes)


_STUCK_WORKER = """
import json, os, signal, sys, time
case = int(sys.argv[3])
work = sys.argv[5]  # the folder its parent made: left full when the worker is killed
open(os.path.join(work, f"case-{case}"), "w").close()
with open(os.path.join(os.path.dirname(__file__), "folders"), "a") as seen:
    seen.write(work + "\\n")
if sys.argv[1] == "silent":
    time.sleep(60)
print(json.dumps({"begin": case}), flush=True)
if case == 0:  # a hang no alarm can end: the signal is blocked, as inside a C library that never returns
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    time.sleep(60)
print(json.dumps({"case": case, "mutation": "m", "detail": "", "file": "", "result": "ok", "message": "",
                  "seconds": 0}), flush=True)
"""


def test_the_parent_kills_a_case_that_hangs_where_no_alarm_reaches_and_keeps_its_budget(tmp_path):
    """A corrupted snapshot hung inside Arrow once: the worker's alarm cannot end that, its parent must, and
    then remove the folder the killed worker could not."""
    import time

    worker = tmp_path / "worker.py"
    worker.write_text(_STUCK_WORKER)
    wrapper = tmp_path / "python"
    wrapper.write_text(f"#!/bin/sh\nshift\nexec {sys.executable} {worker} \"$@\"\n")
    wrapper.chmod(0o755)
    started = time.monotonic()
    report = fuzzing.run("stuck", 0, 3, python=str(wrapper), case_limit=2, total_seconds=30)
    assert [o["result"] for o in report.outcomes] == ["hang", "ok", "ok"]
    assert time.monotonic() - started < 20
    # the killed worker's folder is gone with the others': a long fuzz run does not fill the temporary folder
    folders = (tmp_path / "folders").read_text().split()
    assert len(folders) == 3 and not any(Path(f).exists() for f in folders)
    with pytest.raises(RuntimeError, match=r"fuzz run of silent over its 3 s budget after 0 of 1 cases"):
        fuzzing.run("silent", 0, 1, python=str(wrapper), case_limit=2, total_seconds=3)


@pytest.mark.parametrize("old, new, fewer", [
    ({"a": [{"q": "x", "r": "y"}, {"q": "z", "r": "w"}]}, {"a": [{"q": "x", "r": "yw"}]}, True),  # an entry cut out
    ([[1, 2], [3]], [[1], [3]], True),                       # one item of a nested list
    ([{"q": "x"}, {"q": "z"}], [{"q": "x"}], True),
    ([{"q": "x"}, {"q": "z"}], [], False),                   # two items gone
    ([{"q": "x"}, {"q": "z"}], [{"q": "x"}, "z"], False),    # an object made a string: damage
    ({"a": [1, 2], "b": [1, 2]}, {"a": [1], "b": [1]}, False),  # two lists shorter
    ({"a": [1, 2]}, {"b": [1]}, False),                      # a key renamed as well
    ([1, 2], {"a": 1}, False),
])
def test_one_whole_item_taken_out_of_a_list_is_an_edit_anything_more_is_damage(old, new, fewer):
    assert fuzzing._one_item_fewer(old, new) is fewer
