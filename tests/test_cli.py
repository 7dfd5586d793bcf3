"""The command line and the summary report."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from conftest import run_record, task_record, write_jsonl

import ambiglib
from ambiglib.cli import main


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
    assert main(["validate", "--runs", str(good)]) == 0
    assert "1 runs, 0 tasks accepted; 0 records rejected" in capsys.readouterr().out
    bad = write_jsonl(tmp_path / "bad.jsonl", [run_record(), run_record(score=3)])
    assert main(["validate", "--runs", str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"{bad}:2: field 'score' must be a number in [0, 1] or null (got 3.0)" in out
    assert main(["validate", "--runs", str(tmp_path / "missing")]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_convert_to_parquet_and_back(tmp_path):
    log = write_jsonl(tmp_path / "runs.jsonl", [task_record(), run_record()])
    assert main(["convert", "--runs", str(log), "--out", str(tmp_path / "pq")]) == 0
    original, again = ambiglib.load(log), ambiglib.load(tmp_path / "pq")
    for name, frame in original.frames().items():
        pd.testing.assert_frame_equal(frame, again.frames()[name])


def test_convert_writes_json_lines_to_a_jsonl_out_and_refuses_the_mismatch(tmp_path, capsys):
    log = write_jsonl(tmp_path / "runs.jsonl", [task_record(), run_record()])
    assert main(["convert", "--runs", str(log), "--out", str(tmp_path / "copy.jsonl")]) == 0
    first = (tmp_path / "copy.jsonl").read_text().splitlines()[0]
    assert first.startswith("{") and len(ambiglib.load(tmp_path / "copy.jsonl").runs) == 1
    assert main(["convert", "--runs", str(log), "--to", "parquet", "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "--out " + str(tmp_path / "x.jsonl") + " names a JSON Lines file, but --to is parquet" in capsys.readouterr().err
    assert not (tmp_path / "x.jsonl").exists()


def test_report_takes_k_and_models_and_no_abbreviation(tmp_path, capsys):
    import json

    import pytest

    # --k read as --keep-snapshot was a silent surprise (issue 37 §6): abbreviations are refused
    with pytest.raises(SystemExit):
        main(["report", "--keep", "--out", str(tmp_path / "r")])
    assert "unrecognized arguments: --keep" in capsys.readouterr().err
    example = Path(__file__).resolve().parents[1] / "data" / "example"
    assert main(["report", "-q", "--runs", str(example), "--out", str(tmp_path / "r"), "--k", "2", "--models",
                 "gpt-5.4", "--notebooks", "quickstart"]) == 0
    nb = json.loads((tmp_path / "r" / "quickstart.ipynb").read_text())
    source = "".join("".join(c["source"]) for c in nb["cells"] if "injected-parameters" in c["metadata"].get("tags", []))
    assert "k = 2" in source and "models = ['gpt-5.4']" in source
    assert "pass@k with k = 2" in json.dumps(nb)
    assert main(["report", "--runs", str(example), "--out", str(tmp_path / "r2"), "--models", "gpt-54"]) == 1
    assert "models: 'gpt-54' not in the run log" in capsys.readouterr().err


def test_a_filter_that_keeps_nothing_warns_and_a_stray_file_is_counted(tmp_path):
    import pytest

    log = write_jsonl(tmp_path / "logs" / "runs.jsonl", [task_record(), run_record()])
    (tmp_path / "logs" / "notes.txt").write_text("not a log")
    rs = ambiglib.load(log.parent)
    assert rs.skipped == {"file in the log's folder that is no run log of any layout ambiglib reads, not read"
                          " (first: notes.txt)": 1}
    with pytest.warns(UserWarning, match=r"match no run; the log has model: 'model-a'"):
        assert len(rs.filter(model="model-b").runs) == 0
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rs.filter(model="model-a")  # a filter that keeps runs says nothing


def test_report_and_validate_show_what_an_importer_skipped(tmp_path, capsys):
    from pathlib import Path

    target = Path(__file__).parent / "fixtures" / "ambigds" / "bench_target"
    assert main(["summary", "--runs", str(target), "--out", str(tmp_path / "out")]) == 0
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert ("- not a run, counted and left out: 1 × _runlog.jsonl line with status 'skipped_existing' (the task's"
            " result is read from its folder)") in summary
    assert main(["validate", "--runs", str(target), "-q"]) == 0
    assert "not a run, counted and left out: 1 x _runlog.jsonl line with status 'skipped_existing'" in \
        capsys.readouterr().out


def test_python_m_ambiglib_version_and_help():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "ambiglib", "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == f"ambiglib {ambiglib.__version__}\n"
    done = subprocess.run([sys.executable, "-m", "ambiglib", "report", "--help"], capture_output=True, text=True)
    # the notebooks' parameters, as papermill reads them (none dropped for an annotation it cannot parse)
    for line in ("  models (Optional[list]): models to include; None: all",
                 "  benchmarks (Optional[list]): benchmarks to include",
                 "  conventions (Optional[dict]): benchmark -> paper whose conventions it follows",
                 "  selector_audit (str): the Ambig-DS harness's inferability_audit.csv"):
        assert line in done.stdout, line


def test_every_argument_has_help_and_every_subcommand_takes_runs_and_q():
    from ambiglib.cli import _parser

    parser = _parser(with_parameters=False)
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, p in sub.choices.items():
        dests = {a.dest: a for a in p._actions}
        assert "quiet" in dests, name
        assert ("runs" in dests) == (name != "schema"), name  # every subcommand reads a log but the schema's
        for action in p._actions:
            assert action.help, (name, action.dest)
    args = parser.parse_args(["validate", "--runs", "x", "-q"])
    assert args.quiet is True
    assert parser.parse_args(["-q", "validate", "--runs", "x"]).quiet is True
    assert parser.parse_args(["validate", "--runs", "x"]).quiet is False


def test_import_ambiglib_is_light_and_its_submodules_come_on_first_use():
    import subprocess
    import sys

    code = ("import sys, ambiglib\n"
            "heavy = [m for m in ('scipy', 'statsmodels', 'matplotlib', 'seaborn', 'papermill') if m in sys.modules]\n"
            "assert heavy == [], heavy\n"
            "print(ambiglib.tables.judgment_gap.__module__, ambiglib.metrics.ask_f1.__module__,"
            " ambiglib.plots.precision_recall.__module__, ambiglib.stats.holm.__module__)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ambiglib.tables._asking", "ambiglib.metrics._asking", "ambiglib.plots", "ambiglib.stats._tests"]


def test_the_analysis_modules_load_scipy_and_statsmodels_when_first_used():
    """``import ambiglib.metrics, .tables, .stats, .plots`` (every notebook's first cell) loads no scipy.stats,
    statsmodels, seaborn or matplotlib; the first Wilcoxon test brings scipy.stats in."""
    import subprocess
    import sys

    code = ("import sys, ambiglib, ambiglib.metrics, ambiglib.tables, ambiglib.stats, ambiglib.comparisons,"
            " ambiglib.plots, ambiglib.report\n"
            "heavy = lambda: [m for m in ('scipy.stats', 'statsmodels', 'matplotlib', 'seaborn') if m in sys.modules]\n"
            "assert heavy() == [], heavy()\n"
            "print(round(ambiglib.stats.paired_wilcoxon([1.0, 2.0, 3.0, 4.0], [0.0, 0.5, 1.0, 1.0]).p_value, 4))\n"
            "print(heavy())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    import scipy.stats

    p = scipy.stats.wilcoxon([1.0, 1.5, 2.0, 3.0], alternative="greater").pvalue
    assert done.stdout.split("\n")[:2] == [str(round(p, 4)), "['scipy.stats']"]


def test_compare_from_the_command_line(tmp_path):
    """`ambiglib compare`: is one model better than another, paired by task (issue 30 §6)."""
    import json as _json
    import subprocess
    import sys

    from ambiglib import comparisons
    from ambiglib.cli import COMPARED

    assert tuple(sorted(comparisons.COMPARABLE)) == COMPARED
    example = Path(__file__).resolve().parents[1] / "data" / "example"
    base = [sys.executable, "-m", "ambiglib", "compare", "--runs", str(example), "--n-boot", "200"]
    done = subprocess.run([*base, "--between", "model", "--a", "gpt-5.4", "--b", "claude-opus-4.6", "--format", "json"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    rows = _json.loads(done.stdout)
    assert rows and {r["model_a"] for r in rows} | {r["model_b"] for r in rows} == {"gpt-5.4", "claude-opus-4.6"}
    # the same numbers as the library's own call on the same two models
    import ambiglib

    rs = ambiglib.load(example, quiet=True)
    keep = rs.runs["model"].isin(["gpt-5.4", "claude-opus-4.6"]).to_numpy()
    lib = comparisons.paired_comparison(rs.with_runs(keep), metric="mean_score", n_boot=200)
    assert [round(r["difference"], 9) for r in rows] == [round(x, 9) for x in lib["difference"]]
    table = subprocess.run([*base, "--metric", "ask_f1"], capture_output=True, text=True)
    assert table.returncode == 0 and "difference" in table.stdout and "p_holm" in table.stdout
    typo = subprocess.run([*base, "--a", "gpt-54", "--b", "gpt-5.2"], capture_output=True, text=True)
    assert typo.returncode == 2 and "'gpt-54' not in the run log" in typo.stderr
    one = write_jsonl(tmp_path / "one.jsonl", [run_record(trial=t) for t in (1, 2, 3)])  # one model: no pair
    none = subprocess.run([sys.executable, "-m", "ambiglib", "compare", "--runs", str(one)], capture_output=True,
                          text=True)
    assert none.returncode == 1 and "nothing to compare: only one model in this log (model-a): a comparison needs two" in none.stderr
    bare = subprocess.run([sys.executable, "-m", "ambiglib"], capture_output=True, text=True)
    assert bare.returncode == 0 and "compare" in bare.stdout and "usage: ambiglib" in bare.stdout


def test_summary_prints_the_summary_with_a_logs_escape_sequences_shown_not_obeyed(tmp_path, capsys):
    """`ambiglib summary` printed only the path it wrote (issue 30 §5); a model name from the log may hold a
    terminal escape sequence, which is printed as text."""
    write_jsonl(tmp_path / "log" / "runs.jsonl", [task_record(), run_record(model="evil\x1b[2Jmodel")])
    assert main(["summary", "--runs", str(tmp_path / "log"), "--out", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    assert "- runs: 1 (0 with status `error`" in printed and "## Runs per benchmark" in printed
    assert "evil\\x1b[2Jmodel" in printed and "\x1b" not in printed
    assert printed.rstrip().endswith(f"wrote {tmp_path / 'out' / 'summary.md'}")


def test_the_rejected_count_is_said_unknown_when_rejected_csv_cannot_be_read(tmp_path):
    """`report` said nothing of rejected records when its rejected.csv could not be read (the count fell back
    to 0): a count it cannot make is said, and --strict fails on it (issue 56)."""
    from ambiglib.cli._reports import _rejected_count

    assert _rejected_count(tmp_path / "rejected.csv") == 0  # no file: nothing was rejected
    (tmp_path / "rejected.csv").write_text('file,line,message\na.jsonl,3,"two\nlines"\nb.jsonl,1,x\n', encoding="utf-8")
    assert _rejected_count(tmp_path / "rejected.csv") == 2  # a quoted line break is one record's
    folder = tmp_path / "dir"
    folder.mkdir()
    said = _rejected_count(folder)
    assert isinstance(said, str) and said.startswith(f"{folder} cannot be read") and "is unknown" in said
    (tmp_path / "bad.csv").write_bytes(b"file,line\n\xff\xfe,1\n")
    assert "cannot be read" in str(_rejected_count(tmp_path / "bad.csv"))
