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
from ambiglib.report.parameters import MAX_K, MAX_N_SIM, ParameterError, check_parameters, notebook_parameters
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
