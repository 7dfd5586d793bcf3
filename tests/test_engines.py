"""The pooled metrics of a store computed by DuckDB and by Spark SQL (``ambiglib.engines``) equal the pandas
path's tables exactly, refuse what it refuses with the same messages, and read partition values as written.

The second implementation here is the engine: the per-task sums are SQL that DuckDB and Spark run, never our
pandas code, and the tables are compared cell for cell (``check_exact``) with ``ambiglib.metrics`` on the loaded
store, intervals included at the same seed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
from store_fixtures import ALL, EXAMPLE, TRICKY, fuzzed_stores, on_engine, outcome, simulator_store, tricky_log

import ambiglib
import ambiglib.engines as engines

CASES = [
    ("ask_calibration", {"by": ("suite", "model", "policy", "protocol"), "ci": True}),
    ("ask_calibration", {"by": ("model", "protocol", "policy", "trial")}),
    ("ask_f1", {"by": ("suite", "model", "policy", "protocol"), "ci": True}),
    ("ask_f1", {"by": ("suite", "model", "policy", "protocol"), "precision": "distinct", "recall": "asking_runs",
                "ci": True}),
    ("pass_at_k", {"k": 3, "by": ALL, "ci": True, "n_boot": 500, "seed": 3}),
    ("pass_at_k", {"k": 1, "by": ALL}),
    ("pass_hat_k", {"k": 2, "by": ALL, "ci": True, "n_boot": 400}),
    ("flip_share", {"by": ALL, "ci": True, "n_boot": 300}),
    ("rerun_sd", {"by": ALL}),
    ("value_of_information", {"by": ("benchmark", "suite", "model", "policy"), "ci": True, "n_boot": 300}),
    ("value_of_information", {"by": ("benchmark", "suite", "model", "policy"), "k": 1, "paired": False}),
]


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
@pytest.mark.parametrize("which", ["example", "tricky"])
def test_every_pooled_metric_equals_the_pandas_path(stores, which, engine, request):
    store = stores[which]
    rs = ambiglib.load(store)
    on = on_engine(store, engine, request)
    for name, options in CASES:
        ours = getattr(ambiglib.metrics, name)(rs, **options)
        theirs = getattr(on, name)(**options)
        pd.testing.assert_frame_equal(theirs, ours, check_exact=True, obj=f"{name}{options}")
        assert theirs.attrs == ours.attrs
        assert len(ours) > 0


def test_groups_with_no_tasks_are_listed_as_the_pandas_path_lists_them(stores):
    """pass^k with k = 3 has groups whose variants have fewer than 3 trials: listed with n_tasks 0, not left out
    (a plain GROUP BY of the units misses them)."""
    rs = ambiglib.load(stores["example"])
    ours = ambiglib.metrics.pass_hat_k(rs, k=3, by=ALL)
    theirs = engines.on_store(stores["example"]).pass_hat_k(k=3, by=ALL)
    assert (ours["n_tasks"] == 0).sum() > 0
    pd.testing.assert_frame_equal(theirs, ours, check_exact=True)


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_partition_values_come_back_as_written(stores, engine, request):
    on = on_engine(stores["tricky"], engine, request)
    names = on.engine.names or {"runs": "runs"}
    models = set(on.engine.query(f"SELECT DISTINCT model FROM {names['runs']}")["model"])
    assert models == set(TRICKY.values())
    table = on.pass_at_k(k=1, by=("model", "benchmark", "suite", "spec", "ask_tool", "policy", "protocol"))
    assert "007" in set(table["model"]) and "%2F" in set(table["model"]) and "a b/c%20x" in set(table["model"])


def test_the_sql_as_text_runs_in_any_engine_and_pools_to_the_same_table(stores):
    """Another engine is given the text: here plain DuckDB over the store's hive layout (partition values as
    text), its frames named as the queries name them, and :func:`ambiglib.engines.pool` on what it returns."""
    import duckdb

    store = stores["example"]
    con = duckdb.connect()
    for frame in ("runs", "questions", "tasks", "blockers"):
        con.execute(f"CREATE VIEW {frame} AS SELECT * FROM read_parquet('{store}/{frame}/**/*.parquet',"
                    " hive_partitioning = true, hive_types_autocast = false)")
    by = ("suite", "model", "policy", "protocol")
    text = engines.sums_sql("ask_calibration", by=by)
    assert set(text) == {"groups", "conditions", "per_task"}
    groups, per_task = (con.sql(text[part]).df() for part in ("groups", "per_task"))
    table = engines.pool("ask_calibration", groups, per_task, by=by, ci=True)
    pd.testing.assert_frame_equal(table, ambiglib.metrics.ask_calibration(ambiglib.load(store), by=by, ci=True),
                                  check_exact=True)


def _compared(store: Path, on: engines.StoreMetrics, cases=CASES) -> int:
    """Every case through the pandas path and the engine: the same table, or the same refusal."""
    rs = ambiglib.load(store)
    for name, options in cases:
        ours = outcome(lambda name=name, options=options: getattr(ambiglib.metrics, name)(rs, **options))
        theirs = outcome(lambda name=name, options=options: getattr(on, name)(**options))
        if isinstance(ours, Exception) or isinstance(theirs, Exception):
            assert (type(theirs), str(theirs)) == (type(ours), str(ours)), (name, options)
        else:
            pd.testing.assert_frame_equal(theirs, ours, check_exact=True, obj=f"{name}{options}")
            assert theirs.attrs == ours.attrs
    return len(rs.runs)


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_the_simulator_at_100x_gives_the_same_tables(tmp_path_factory, engine, request):
    """48,700 runs, partitioned by benchmark and model: every table through the engine equals the pandas path's."""
    store = simulator_store(tmp_path_factory)
    assert _compared(store, on_engine(store, engine, request)) == 48_700


@pytest.mark.parametrize("engine, seeds", [("duckdb", range(24)), ("spark", range(4))])
def test_the_fuzz_corpus_valid_logs_give_the_same_tables_or_refusals(tmp_path, engine, seeds, request):
    """The example with random damage (tests/fuzzing.py's byte mutations, three a log), loaded leniently: what
    still loads is written as a store and every case gives the same table, or the same refusal, through the
    engine (Spark on the first four seeds: its start per store is slow). Damaged values reach the partition
    folders (model names), the refusals and the group columns."""
    compared, unwritable = 0, 0
    for _, store in fuzzed_stores(tmp_path, seeds):
        if store is None:  # a damaged model name no folder can hold: refused at write
            unwritable += 1
            continue
        _compared(store, on_engine(store, engine, request))
        compared += 1
    assert compared >= len(seeds) * 2 // 3, (compared, unwritable)


def test_the_command_line_lists_the_engines_metrics():
    from ambiglib.cli._pooled import POOLED

    assert POOLED == engines.POOLED


@pytest.mark.parametrize("engine", ["auto", "duckdb", "spark"])
def test_ambiglib_metrics_over_a_store_prints_the_loaded_log_s_table(stores, engine, capsys, request):
    """`ambiglib metrics --runs STORE --engine ...` prints, as CSV, the table ambiglib.metrics gives the loaded
    store (with Spark: the session SparkSession.builder.getOrCreate() gives, here the tests' local[2])."""
    import io

    from ambiglib.cli import main

    if engine == "spark":
        request.getfixturevalue("spark")
    by = "benchmark,suite,model,spec,ask_tool,policy,protocol"
    assert main(["metrics", "--runs", str(stores["tricky"]), "--metric", "pass_hat_k", "--k", "3", "--by", by,
                 "--engine", engine, "--ci", "--n-boot", "300", "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    ours = ambiglib.metrics.pass_hat_k(ambiglib.load(stores["tricky"]), k=3, by=tuple(by.split(",")), ci=True,
                                       n_boot=300)
    printed = pd.read_csv(io.StringIO(out), keep_default_na=False, na_values=[""], dtype={"model": str})
    assert printed["model"].tolist() == ours["model"].tolist()  # 007 and 2024 stay text
    assert printed["pass_hat_k"].round(12).equals(ours["pass_hat_k"].round(12))
    assert "– in pass_hat_k: no variant of the group has k trials with a verdict (n_tasks is 0)" in err


def test_ambiglib_metrics_says_why_a_cell_is_empty_and_refuses_what_the_metric_refuses(stores, capsys):
    from ambiglib.cli import main

    assert main(["metrics", "--runs", str(stores["tricky"]), "--metric", "ask_calibration",
                 "--by", "suite,model,policy,protocol"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ask_calibration, computed by duckdb\n")
    assert "| 007 " in out and "nan" not in out
    assert "– in ask_on_full: the group has no run on a fully specified task with the ask tool (n_full is 0)" in out
    assert main(["metrics", "--runs", str(stores["tricky"]), "--metric", "ask_f1"]) == 0  # by every free condition
    capsys.readouterr()
    assert main(["metrics", "--runs", str(stores["tricky"]), "--metric", "ask_f1", "--by", "suite,model"]) == 2
    err = capsys.readouterr().err
    assert "ask_f1: the group (suite='mcp-atlas', model='é ü') mixes policy values ['default', 'supervisor']" in err
    assert err.rstrip().endswith("from the command line, add the column to --by (now suite,model)")
    assert main(["metrics", "--runs", str(EXAMPLE), "--metric", "pass_at_k", "--engine", "duckdb"]) == 2
    assert "not a partitioned Parquet store" in capsys.readouterr().err


def test_a_user_who_is_not_root_computes_a_store_s_metrics_from_a_read_only_folder(stores):
    """As uid 65534, from a folder it cannot write (a notebook's, say): the store is read, DuckDB's spill folder
    is a private one under the system's temporary folder (not .tmp in the current folder), and it is removed
    when the engine is closed."""
    import os
    import tempfile

    from unprivileged import as_user, world_tmp

    home = world_tmp()
    try:
        store = shutil.copytree(stores["example"], home / "store")
        for path in [store, *store.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        cwd = home / "notebooks"
        cwd.mkdir(mode=0o555)
        expected = ambiglib.metrics.ask_calibration(ambiglib.load(store), by=("suite", "model", "policy", "protocol"))

        def compute() -> dict:
            os.chdir(cwd)
            on = engines.on_store(store, memory_limit="64MB")
            spill = on.engine.spill
            table = on.ask_calibration(by=("suite", "model", "policy", "protocol"))
            inside = spill.parent == Path(tempfile.gettempdir()) and spill.is_dir()
            on.engine.close()
            return {"table": table, "uid": os.getuid(), "spill_private": inside, "spill_gone": not spill.exists(),
                    "cwd": sorted(os.listdir("."))}

        result = as_user(compute, warm=False)
        assert "raised" not in result, result
        assert result["uid"] == (65534 if os.geteuid() == 0 else os.getuid())
        assert result["spill_private"] and result["spill_gone"] and result["cwd"] == []
        pd.testing.assert_frame_equal(result["table"], expected, check_exact=True)
    finally:
        (home / "notebooks").chmod(0o755)
        shutil.rmtree(home)


def test_a_store_of_two_logs_loaded_together_gives_the_same_tables(stores, tmp_path):
    """Two logs loaded as one (each run's id ends with its log's label): written as a store, every table by log
    through DuckDB equals the pandas path's, and the run ids the store checks rebuild carry the label."""
    both = ambiglib.load({"before": EXAMPLE, "after": tricky_log(tmp_path / "after.jsonl")}, quiet=True)
    both.to_parquet(tmp_path / "store", partition_by=("benchmark", "model"))
    _compared(tmp_path / "store", engines.on_store(tmp_path / "store"),
              [(name, {**options, "by": (*options["by"], "log")}) for name, options in CASES])


def test_ambiglib_metrics_without_duckdb_loads_the_store_and_says_so(stores, capsys, monkeypatch):
    import importlib.util

    from ambiglib.cli import main

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "duckdb" else real(name, *a))
    assert main(["metrics", "--runs", str(stores["example"]), "--metric", "rerun_sd"]) == 0
    captured = capsys.readouterr()
    assert "note: duckdb is not installed (pip install 'ambiglib[engines]'): the store is loaded whole" in captured.err
    assert captured.out.startswith("rerun_sd, computed by pandas\n")



def test_a_variant_s_score_sum_is_the_same_bits_in_any_order_and_the_exact_sum_rounded():
    """score_sums adds each variant's scores in ascending order whatever order an engine listed them in: shuffled
    lists give the same bits, and each sum is within one rounding of math.fsum's exactly rounded sum (empty
    variants sum to 0)."""
    import math

    import numpy as np

    from ambiglib.metrics._information import score_sums

    rng = np.random.default_rng(7)
    lengths = rng.integers(0, 40, size=300)
    lengths[:5] = 0
    segments = np.repeat(np.arange(len(lengths)), lengths)
    values = rng.random(len(segments)) * rng.choice([1.0, 1e-9, 0.1], size=len(segments))
    first = score_sums(segments, values, len(lengths))
    order = rng.permutation(len(values))
    assert score_sums(segments[order], values[order], len(lengths)).tobytes() == first.tobytes()
    starts = np.cumsum(lengths) - lengths
    exact = np.array([math.fsum(values[s:s + n]) for s, n in zip(starts, lengths)])
    assert (first[:5] == 0).all()
    assert np.allclose(first, exact, rtol=4e-16 * max(lengths.max(), 1), atol=0)


def test_duckdb_gives_freed_memory_back_from_its_own_thread_and_keeps_the_user_s_settings(stores):
    """The engine turns on DuckDB's allocator thread (what a query freed goes back to the system between queries:
    the peak of an answer at 10,000x, docs/performance.md) and still takes the caller's memory limit and threads."""
    with engines.on_store(stores["example"], memory_limit="512MB", threads=1) as on:
        settings = dict(on.engine.con.execute(
            "SELECT name, value FROM duckdb_settings() WHERE name IN ('allocator_background_threads', 'threads',"
            " 'memory_limit')").fetchall())
    assert settings["allocator_background_threads"] == "true"
    assert settings["threads"] == "1"
    assert settings["memory_limit"].startswith(("488", "512"))  # (DuckDB prints it in MiB or MB)
