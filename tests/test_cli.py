"""The command line and the summary report."""

from __future__ import annotations

import pandas as pd

import ambiglib
from ambiglib.cli import main
from conftest import run_record, task_record, write_jsonl


def test_report_lists_rejected_records_and_keeps_the_rest(tmp_path, capsys):
    log = write_jsonl(tmp_path / "log" / "runs.jsonl",
                      [task_record(), run_record(), run_record(trial=2, spec="amb"), run_record(trial=3)])
    assert main(["summary", "--runs", str(tmp_path / "log"), "--out", str(tmp_path / "out")]) == 0
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "- runs: 2 (0 with status `error`" in summary
    assert "- rejected records: 1 (all listed in `rejected.csv`)" in summary
    assert f"- {log}:3: field 'spec' must be 'full' or 'ambiguous' (got 'amb')" in summary
    rejected = pd.read_csv(tmp_path / "out" / "rejected.csv")
    assert rejected[["line", "field", "record"]].values.tolist() == [[3, "spec", "run"]]
    table = pd.read_csv(tmp_path / "out" / "summary.csv")
    assert table["n_runs"].tolist() == [2]


def test_validate_exit_codes(tmp_path, capsys):
    good = write_jsonl(tmp_path / "good.jsonl", [run_record()])
    assert main(["validate", str(good)]) == 0
    assert "1 runs, 0 tasks accepted; 0 records rejected" in capsys.readouterr().out
    bad = write_jsonl(tmp_path / "bad.jsonl", [run_record(), run_record(score=3)])
    assert main(["validate", str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"{bad}:2: field 'score' must be a number in [0, 1] or null (got 3.0)" in out
    assert main(["validate", str(tmp_path / "missing")]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_convert_to_parquet_and_back(tmp_path):
    log = write_jsonl(tmp_path / "runs.jsonl", [task_record(), run_record()])
    assert main(["convert", str(log), str(tmp_path / "pq")]) == 0
    original, again = ambiglib.load(log), ambiglib.load(tmp_path / "pq")
    for name, frame in original.frames().items():
        pd.testing.assert_frame_equal(frame, again.frames()[name])


def test_report_and_validate_show_what_an_importer_skipped(tmp_path, capsys):
    from pathlib import Path

    target = Path(__file__).parent / "fixtures" / "ambigds" / "bench_target"
    assert main(["summary", "--runs", str(target), "--out", str(tmp_path / "out")]) == 0
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert ("- not a run, counted and left out: 1 × _runlog.jsonl line with status 'skipped_existing' (the task's"
            " result is read from its folder)") in summary
    assert main(["validate", str(target)]) == 0
    assert "not a run, counted and left out: 1 x _runlog.jsonl line with status 'skipped_existing'" in \
        capsys.readouterr().out
