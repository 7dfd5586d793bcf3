"""Parameters that would run for hours are refused before anything runs, and a notebook that runs past its
time limit is stopped and named (issue 38 §3)."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

import ambiglib
from ambiglib import comparisons
from ambiglib.errors import ArgumentError
from ambiglib.report import ReportError, run_report
from ambiglib.report._parameters import MAX_K, MAX_N_SIM, ParameterError, check_parameters, notebook_parameters
from ambiglib.stats import MAX_N_BOOT, bootstrap_counts, cluster_bootstrap

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example"
QUICKSTART = ROOT / "notebooks" / "quickstart.ipynb"


@pytest.mark.parametrize("name, value, bound", [
    ("n_boot", 30_000_000, f"from 1 to {MAX_N_BOOT:,}"), ("n_boot", 0, f"from 1 to {MAX_N_BOOT:,}"),
    ("k", 10**9, f"from 1 to {MAX_K}"), ("n_sim", MAX_N_SIM + 1, f"from 1 to {MAX_N_SIM:,}"),
])
def test_a_count_parameter_past_its_bound_is_refused_naming_it(name, value, bound):
    declared = {"quickstart": notebook_parameters(QUICKSTART),
                "mine": {"n_sim": {"name": "n_sim", "inferred_type_name": "int", "default": "2000", "help": ""}}}
    with pytest.raises(ParameterError, match=rf"params.yaml: {name}: {value} is not a whole number .*{bound}"):
        check_parameters("params.yaml", {name: value}, {}, declared, ["quickstart", "mine"])


def test_the_report_refuses_it_before_anything_runs(tmp_path):
    out = tmp_path / "r"
    started = time.perf_counter()
    with pytest.raises(ReportError, match=r"n_boot: 30000000 .*from 1 to 100,000"):
        run_report(EXAMPLE, out, parameters={"n_boot": 30_000_000})
    assert time.perf_counter() - started < 30 and not out.exists()


def test_every_bootstrap_refuses_a_count_past_its_bound():
    with pytest.raises(ArgumentError, match=r"n_boot must be a whole number from 1 to 100,000 \(got 30000000\)"):
        bootstrap_counts(10, 30_000_000)
    import pandas as pd

    with pytest.raises(ArgumentError, match="got 0"):
        cluster_bootstrap(pd.DataFrame({"task_id": ["a"], "x": [1.0]}), lambda f, w: w @ f["x"].to_numpy(), n_boot=0)
    rs = ambiglib.load(EXAMPLE)
    with pytest.raises(ArgumentError, match="got 10000000000000"):
        comparisons.paired_comparison(rs, n_boot=10**13)
    # the bound itself is taken
    assert bootstrap_counts(3, MAX_N_BOOT).shape == (MAX_N_BOOT, 3)


def test_compare_refuses_it_in_one_line():
    proc = subprocess.run([sys.executable, "-m", "ambiglib", "compare", "--runs", str(EXAMPLE), "--n-boot",
                           "10000000000000"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert re.fullmatch(r"ambiglib compare: --k must be from 1 to 100 and --n-boot from 1 to 100,000 .*\n",
                        proc.stderr)


def test_a_notebook_past_its_time_limit_is_stopped_and_named_and_the_rest_is_written(tmp_path):
    folder = tmp_path / "nb"
    folder.mkdir()
    for name, source in {"slow": "import time\ntime.sleep(600)", "quick": "print('done')"}.items():
        nb = nbformat.v4.new_notebook()
        params = nbformat.v4.new_code_cell('runs: str = ""\nout_dir: str = ""')
        params.metadata["tags"] = ["parameters"]
        nb.cells = [params, nbformat.v4.new_code_cell("x = 1"), nbformat.v4.new_code_cell(source)]
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, folder / f"{name}.ipynb")
    out = tmp_path / "report"
    started = time.perf_counter()
    with pytest.raises(ReportError, match=r"slow.ipynb stopped after its time limit of 8 s \(raise it with report"
                                          r" --notebook-timeout SECONDS"):
        run_report(EXAMPLE, out, notebooks_dir=folder, notebook_timeout=8, jobs=1)
    assert time.perf_counter() - started < 120  # not the 600 s the notebook asked for
    assert (out / "quick.html").is_file() and (out / "slow.ipynb").is_file()
    with pytest.raises(ReportError, match="notebook_timeout must be a number of seconds above 0"):
        run_report(EXAMPLE, out, notebooks_dir=folder, notebook_timeout=0)


# ----------------------------------------------------------------------------- run-log sizes (issue 56)


def _with_long_text(path: Path, n: int) -> tuple[Path, int]:
    """A log whose second run asks a question ``n`` characters long; and that run's line length in bytes."""
    import json

    from conftest import run_record, task_record, write_jsonl

    long = run_record(trial=2)
    long["questions"][0]["text"] = "a" * n
    lines = [task_record(), run_record(trial=1), long, run_record(trial=3)]
    return write_jsonl(path, lines), len(json.dumps(long).encode())


@pytest.mark.parametrize("name", ["runs.jsonl", "runs.jsonl.gz"])
@pytest.mark.parametrize("engine", ["auto", "python"])
def test_a_record_past_its_limit_is_refused_with_its_size_and_the_rest_read(tmp_path, monkeypatch, engine, name):
    """A 1 GiB string in a record took 207 s to end in pyarrow's ArrowMemoryError. A record (one line) is bounded,
    by both engines alike: at the limit it is read; a byte over, it is refused on its line, with its size."""
    from ambiglib.errors import FormatError
    from ambiglib.runlog import _jsonl as runlog

    path, size = _with_long_text(tmp_path / name, 5000)
    monkeypatch.setattr(runlog, "MAX_RECORD_BYTES", size)
    assert sorted(ambiglib.load(path, engine=engine, quiet=True).runs["trial"]) == [1, 2, 3]
    monkeypatch.setattr(runlog, "MAX_RECORD_BYTES", size - 1)
    message = (rf"{re.escape(str(path))}:3: a record of {size:,} bytes, over the limit of {size - 1:,} bytes for one"
               r" record \(one line; ambiglib\.runlog\.MAX_RECORD_BYTES\)")
    with pytest.raises(FormatError, match=f"^{message}$"):
        ambiglib.load(path, engine=engine, quiet=True)
    rs, errors = ambiglib.load(path, engine=engine, strict=False, quiet=True)
    assert sorted(rs.runs["trial"]) == [1, 3]
    assert [(e.line, e.field, e.kind, e.record) for e in errors] == [(3, None, "format", "run")]
    assert re.fullmatch(message, errors[0].message)


def test_a_record_past_its_limit_is_not_written(tmp_path, monkeypatch):
    """Written, it could not be read back: to_jsonl refuses it, naming the line it would be, and leaves nothing."""
    from ambiglib.errors import FormatError
    from ambiglib.runlog import _jsonl as runlog

    path, size = _with_long_text(tmp_path / "in.jsonl", 5000)
    rs = ambiglib.load(path, quiet=True)
    monkeypatch.setattr(runlog, "MAX_RECORD_BYTES", 4000)
    out = tmp_path / "out.jsonl"
    with pytest.raises(FormatError, match=rf"^{re.escape(str(out))}:3: a record of \d{{1,3}}(,\d{{3}})* bytes, over"
                                          r" the limit of 4,000 bytes for one record"):
        rs.to_jsonl(out)
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]


def test_a_file_past_its_limit_is_refused_before_it_is_read(tmp_path, monkeypatch):
    """JSON Lines as stored, a Parquet folder's files and a store's parts: one over the limit is refused naming it
    and its size; at the limit the log loads."""
    from ambiglib.errors import FormatError
    from ambiglib.runlog import _jsonl as runlog

    rs = ambiglib.load(EXAMPLE, quiet=True)
    logs = {"jsonl": (rs.to_jsonl(tmp_path / "log.jsonl"), lambda p: [p]),
            "parquet": (rs.to_parquet(tmp_path / "plain"), lambda p: sorted(p.glob("*.parquet"))),
            "store": (rs.to_parquet(tmp_path / "store", partition_by=("benchmark",)),
                      lambda p: sorted(p.rglob("part-*.parquet")))}
    for kind, (path, files) in logs.items():
        sizes = {f: f.stat().st_size for f in files(path)}
        largest = max(sizes, key=sizes.get)
        assert sorted(sizes.values())[-2:-1] != [sizes[largest]], kind  # one file alone is the largest
        monkeypatch.setattr(runlog, "MAX_FILE_BYTES", sizes[largest])
        assert len(ambiglib.load(path, quiet=True).runs) == len(rs.runs), kind
        monkeypatch.setattr(runlog, "MAX_FILE_BYTES", sizes[largest] - 1)
        with pytest.raises(FormatError, match=rf"^{re.escape(str(largest))}: {sizes[largest]:,} bytes, over the limit"
                                              rf" of {sizes[largest] - 1:,} bytes for one run-log file"
                                              r" \(ambiglib\.runlog\.MAX_FILE_BYTES\); "):
            ambiglib.load(path, quiet=True)
