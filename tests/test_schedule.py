"""The order the report starts its notebooks in: the longest first, by the seconds each took in the report last written
to the same --out (its manifest.json); in the order given when there is none. The manifest is anyone's to edit: read
as data, and whatever it holds, the report runs."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import nbformat
import pytest

from ambiglib.report import run_report
from ambiglib.report._runner import longest_first, recorded_seconds

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example"


def _jobs(*names: str) -> list[tuple]:
    return [(Path(f"{name}.ipynb"), "more", "arguments") for name in names]


def _manifest(folder: Path, entries: object) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / "manifest.json").write_text(json.dumps({"format": "ambiglib-report", "files": [],
                                                      "notebooks": entries}), encoding="utf-8")
    return folder


def test_with_recorded_seconds_the_longest_start_first():
    seconds = {"a": 1.0, "b": 30.0, "c": 4.5}
    order = [job[0].stem for job in longest_first(_jobs("a", "b", "c"), seconds)]
    assert order == ["b", "c", "a"]
    assert longest_first(_jobs("a", "b"), seconds)[0] == (Path("b.ipynb"), "more", "arguments")  # the job, whole


def test_with_none_recorded_they_start_in_the_order_given():
    """With nothing to go by, each worker takes the next notebook as it is free: an even split."""
    assert [job[0].stem for job in longest_first(_jobs("c", "a", "b"))] == ["c", "a", "b"]
    assert [job[0].stem for job in longest_first(_jobs("c", "a", "b"), {})] == ["c", "a", "b"]


def test_a_notebook_the_last_report_did_not_run_starts_before_the_timed_ones():
    """It may be the longest of them: started first, it cannot be the one a worker runs alone at the end."""
    order = [job[0].stem for job in longest_first(_jobs("a", "new", "b", "newer"), {"a": 2.0, "b": 9.0})]
    assert order == ["new", "newer", "b", "a"]


def test_the_seconds_are_read_from_the_last_reports_manifest(tmp_path):
    folder = _manifest(tmp_path / "out", [{"notebook": "a", "seconds": 3.5}, {"notebook": "b", "seconds": 12}])
    assert recorded_seconds(folder) == {"a": 3.5, "b": 12.0}
    assert recorded_seconds(tmp_path / "no-such-folder") == {}
    assert recorded_seconds(tmp_path) == {}  # a folder without a manifest


@pytest.mark.parametrize("seconds", ["12", "NaN", None, True, [1], {"s": 1}, -1, -0.5, 1e999, "Infinity"],
                         ids=repr)
def test_an_entry_without_a_number_of_seconds_is_left_out(tmp_path, seconds):
    entries = [{"notebook": "kept", "seconds": 2.0}, {"notebook": "odd", "seconds": seconds}]
    text = json.dumps({"notebooks": entries}, allow_nan=True).replace('"NaN"', "NaN").replace('"Infinity"', "Infinity")
    (tmp_path / "manifest.json").write_text(text, encoding="utf-8")
    assert recorded_seconds(tmp_path) == {"kept": 2.0}


@pytest.mark.parametrize("text", [
    "not json at all",
    b"\xff\xfe\x00 not text",
    "[" * 100_000 + "]" * 100_000,  # nested past the parser's recursion limit
    '{"notebooks": [{"notebook": "a", "seconds": ' + "9" * 5000 + "}]}",  # an integer of more digits than Python reads
    '{"notebooks": [{"notebook": "a", "seconds": ' + "9" * 400 + "}]}",  # an integer beyond any float
    '{"notebooks": [{"notebook": "a", "seconds": 1e400}]}',
    '{"notebooks": {"a": 1}}',
    '{"notebooks": ["a", 1, null, [], {"notebook": 5, "seconds": 1}, {"seconds": 1}]}',
    "[1, 2, 3]",
    "null",
    "",
], ids=lambda t: repr(t[:30]))
def test_a_hostile_manifest_gives_no_seconds_and_no_error(tmp_path, text):
    (tmp_path / "manifest.json").write_bytes(text if isinstance(text, bytes) else text.encode())
    assert recorded_seconds(tmp_path) == {}


def test_a_manifest_that_is_a_link_a_folder_a_fifo_or_too_large_is_not_read(tmp_path, monkeypatch):
    from ambiglib.report import _runner as runner

    elsewhere = _manifest(tmp_path / "elsewhere", [{"notebook": "a", "seconds": 1.0}])
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "manifest.json").symlink_to(elsewhere / "manifest.json")
    assert recorded_seconds(linked) == {}
    folder = tmp_path / "folder"
    (folder / "manifest.json").mkdir(parents=True)
    assert recorded_seconds(folder) == {}
    fifo = tmp_path / "fifo"
    fifo.mkdir()
    os.mkfifo(fifo / "manifest.json")
    started = time.monotonic()
    assert recorded_seconds(fifo) == {}  # never waits for a writer
    assert time.monotonic() - started < 5
    monkeypatch.setattr(runner, "MAX_TIMINGS_BYTES", 10)
    assert recorded_seconds(elsewhere) == {}


def _notebooks(folder: Path, names: list[str], record: Path) -> Path:
    """Notebooks that each append their name to ``record`` (in the order they run, with one worker); the first saves
    a table too (a report with no section page left an empty ``sections/`` the next report refused to replace)."""
    folder.mkdir()
    for name in names:
        nb = nbformat.v4.new_notebook()
        params = nbformat.v4.new_code_cell('runs: str = ""\nout_dir: str = ""')
        params.metadata["tags"] = ["parameters"]
        table = ("import pandas as pd\nfrom ambiglib.report import save_table\n"
                 "save_table(pd.DataFrame({'x': [1]}), 't', out_dir)\n") if name == names[0] else ""
        nb.cells = [params, nbformat.v4.new_code_cell(f"{table}with open({str(record)!r}, 'a') as fh:\n"
                                                      f"    fh.write({name!r} + '\\n')")]
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, folder / f"{name}.ipynb")
    return folder


def test_a_report_starts_its_notebooks_by_the_last_reports_seconds_whatever_they_hold(tmp_path):
    """The first report into --out runs its notebooks in the order given; the next, by the seconds its manifest
    records, longest first, an entry edited to hold anything but a number of seconds left out; and the manifest
    names the notebooks in the order given either way."""
    names = ["a", "b", "c", "d"]
    record = tmp_path / "ran.txt"
    nbs = _notebooks(tmp_path / "nbs", names, record)
    out = tmp_path / "out"
    run_report(EXAMPLE, out, notebooks_dir=nbs, jobs=1)
    assert record.read_text().split() == names
    manifest = json.loads((out / "manifest.json").read_text())
    assert [e["notebook"] for e in manifest["notebooks"]] == names
    hostile = {"a": "__import__('os').system('touch PWNED')", "b": 2.0, "c": 1e308, "d": -4}
    for entry in manifest["notebooks"]:
        entry["seconds"] = hostile[entry["notebook"]]
    (out / "manifest.json").write_text(json.dumps(manifest))
    record.unlink()
    run_report(EXAMPLE, out, notebooks_dir=nbs, jobs=1)
    assert record.read_text().split() == ["a", "d", "c", "b"]  # those without seconds first, then the longest
    assert [e["notebook"] for e in json.loads((out / "manifest.json").read_text())["notebooks"]] == names
    assert not Path("PWNED").exists() and not (out / "PWNED").exists()
