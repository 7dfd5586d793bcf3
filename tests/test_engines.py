"""The pooled metrics of a store computed by DuckDB and by Spark SQL (``ambiglib.engines``) equal the pandas
path's tables exactly, refuse what it refuses with the same messages, and read partition values as written.

The second implementation here is the engine: the per-task sums are SQL that DuckDB and Spark run, never our
pandas code, and the tables are compared cell for cell (``check_exact``) with ``ambiglib.metrics`` on the loaded
store, intervals included at the same seed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from builders import q, run, task

import ambiglib
import ambiglib.engines as engines
from ambiglib.errors import ArgumentError, FormatError, SchemaError
from ambiglib.metrics import MetricError

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example"
ALL = ("benchmark", "suite", "model", "spec", "ask_tool", "policy", "protocol")
#: names a folder must give back as written: numeric-looking, percent signs, a slash, spaces, non-ASCII
TRICKY = {"gpt-5.4": "007", "gemini-3.1-pro": "a b/c%20x", "claude-opus-4.6": "2024", "gpt-5.2": "%2F",
          "opus-4.5": "é ü"}

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


def _tricky_log(path: Path) -> Path:
    with open(path, "w", encoding="utf-8") as out:
        for file in sorted(EXAMPLE.glob("*.jsonl")):
            for line in file.read_text(encoding="utf-8").splitlines():
                record = json.loads(line)
                if record.get("model") in TRICKY:
                    record["model"] = TRICKY[record["model"]]
                out.write(json.dumps(record) + "\n")
    return path


@pytest.fixture(scope="module")
def stores(tmp_path_factory) -> dict[str, Path]:
    """The example data as a store partitioned by benchmark and model, and the same with tricky model names
    partitioned by model alone (the questions' folders then name only the model)."""
    root = tmp_path_factory.mktemp("stores")
    ambiglib.load(EXAMPLE, quiet=True).to_parquet(root / "example", partition_by=("benchmark", "model"))
    ambiglib.load(_tricky_log(root / "tricky.jsonl"), quiet=True).to_parquet(root / "tricky", partition_by=("model",))
    return {"example": root / "example", "tricky": root / "tricky"}


@pytest.fixture(scope="module")
def spark():
    if shutil.which("java") is None:
        pytest.skip("Spark needs Java: no `java` on PATH (apt-get install default-jre-headless)")
    pyspark = pytest.importorskip("pyspark.sql", reason="pyspark is not installed (pip install '.[test]')")
    session = (pyspark.SparkSession.builder.master("local[2]").appName("ambiglib-tests")
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _on(store: Path, engine: str, request) -> engines.StoreMetrics:
    if engine == "spark":
        return engines.on_store(store, "spark", spark=request.getfixturevalue("spark"))
    return engines.on_store(store)


def _outcome(call):
    try:
        return call()
    except MetricError as exc:
        return exc


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
@pytest.mark.parametrize("which", ["example", "tricky"])
def test_every_pooled_metric_equals_the_pandas_path(stores, which, engine, request):
    store = stores[which]
    rs = ambiglib.load(store)
    on = _on(store, engine, request)
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
    on = _on(stores["tricky"], engine, request)
    names = on.engine.names or {"runs": "runs"}
    models = set(on.engine.query(f"SELECT DISTINCT model FROM {names['runs']}")["model"])
    assert models == set(TRICKY.values())
    table = on.pass_at_k(k=1, by=("model", "benchmark", "suite", "spec", "ask_tool", "policy", "protocol"))
    assert "007" in set(table["model"]) and "%2F" in set(table["model"]) and "a b/c%20x" in set(table["model"])


def _refused(records: list[dict], tmp_path: Path, engine: str, request, **options) -> tuple[str, str]:
    rs = ambiglib.RunSet.from_records(records)
    rs.to_parquet(tmp_path / "store", partition_by=("benchmark", "model"))
    with pytest.raises(MetricError) as ours:
        ambiglib.metrics.ask_f1(ambiglib.load(tmp_path / "store"), **options)
    with pytest.raises(MetricError) as theirs:
        _on(tmp_path / "store", engine, request).ask_f1(**options)
    return str(ours.value), str(theirs.value)


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_an_unregistered_blocker_is_refused_as_the_pandas_path_refuses_it(tmp_path, engine, request):
    records = [task("t1", 2), run("t1", questions=[q("b0"), q("zz")], status="ok", passed=True),
               run("t1", trial=2, questions=[q("yy")], status="ok", passed=False)]
    ours, theirs = _refused(records, tmp_path, engine, request)
    assert theirs == ours
    assert "names blocker 'zz', which task" in theirs and "(2 such question(s))" in theirs


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_a_task_with_no_record_is_refused_as_the_pandas_path_refuses_it(tmp_path, engine, request):
    records = [task("t1", 2), run("t1", questions=[q("b0")], status="ok", passed=True),
               run("t2", questions=[q("b0")], status="ok", passed=True),
               run("t3", status="ok", passed=True, model="007")]
    ours, theirs = _refused(records, tmp_path, engine, request, by=("suite", "model"))
    assert theirs == ours
    assert "no task record for (benchmark='hil-bench', suite='sql', variant_id='t2') and 1 more task(s)" in theirs


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_a_group_mixing_conditions_is_refused_with_the_same_words(stores, engine, request):
    on = _on(stores["tricky"], engine, request)
    rs = ambiglib.load(stores["tricky"])
    for name, options in [("ask_calibration", {}), ("pass_at_k", {"k": 3, "by": ()}), ("flip_share", {})]:
        ours = _outcome(lambda name=name, options=options: getattr(ambiglib.metrics, name)(rs, **options))
        theirs = _outcome(lambda name=name, options=options: getattr(on, name)(**options))
        assert isinstance(ours, MetricError) and isinstance(theirs, MetricError)
        assert str(theirs) == str(ours)


def test_what_needs_the_whole_runs_is_refused_naming_the_metric_and_why(stores):
    on = engines.on_store(stores["example"])
    with pytest.raises(engines.NotPooled, match=r"majority_labels is not computed on an engine: a majority label"):
        on.majority_labels()
    with pytest.raises(engines.NotPooled, match=r"ask_f1 is not computed on an engine: pooling='macro'"):
        on.ask_f1(pooling="macro")
    with pytest.raises(engines.NotPooled, match=r"pass_at_k is not computed on an engine: estimator='first_k'"):
        on.pass_at_k(k=3, estimator="first_k")
    with pytest.raises(engines.NotPooled, match="paired_comparison"):
        engines.sums_sql("paired_comparison")
    with pytest.raises(MetricError, match=r"by= names unknown column\(s\) \['dimension'\]"):
        on.pass_at_k(k=1, by=("dimension",))


def test_what_is_not_a_store_or_an_engine_is_refused(tmp_path, stores):
    with pytest.raises(FormatError, match="not a partitioned Parquet store"):
        engines.on_store(EXAMPLE)
    with pytest.raises(ArgumentError, match="engine must be 'duckdb' or 'spark'"):
        engines.on_store(stores["example"], "pandas")  # type: ignore[arg-type]
    with pytest.raises(ArgumentError, match="engine='spark' takes spark="):
        engines.on_store(stores["example"], "spark")


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
        ours = _outcome(lambda name=name, options=options: getattr(ambiglib.metrics, name)(rs, **options))
        theirs = _outcome(lambda name=name, options=options: getattr(on, name)(**options))
        if isinstance(ours, Exception) or isinstance(theirs, Exception):
            assert (type(theirs), str(theirs)) == (type(ours), str(ours)), (name, options)
        else:
            pd.testing.assert_frame_equal(theirs, ours, check_exact=True, obj=f"{name}{options}")
            assert theirs.attrs == ours.attrs
    return len(rs.runs)


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_the_simulator_at_100x_gives_the_same_tables(tmp_path_factory, engine, request):
    """48,700 runs, partitioned by benchmark and model: every table through the engine equals the pandas path's."""
    from ambiglib import simulate

    store = tmp_path_factory.getbasetemp() / "x100"
    if not store.exists():
        records = simulate.example_records(scale=100)
        ambiglib.RunSet.from_records(r for recs in records.values() for r in recs).to_parquet(
            store, partition_by=("benchmark", "model"))
    assert _compared(store, _on(store, engine, request)) == 48_700


@pytest.mark.parametrize("engine, seeds", [("duckdb", range(24)), ("spark", range(4))])
def test_the_fuzz_corpus_valid_logs_give_the_same_tables_or_refusals(tmp_path, engine, seeds, request):
    """The example with random damage (tests/fuzzing.py's byte mutations, three a log), loaded leniently: what
    still loads is written as a store and every case gives the same table, or the same refusal, through the
    engine (Spark on the first four seeds: its start per store is slow). Damaged values reach the partition
    folders (model names), the refusals and the group columns."""
    import random

    from fuzzing import mutate_bytes

    compared, unwritable = 0, 0
    for seed in seeds:
        log = tmp_path / f"log{seed}"
        shutil.copytree(EXAMPLE, log)
        rng = random.Random(seed)
        for _ in range(3):
            mutate_bytes(rng, rng.choice(sorted(log.glob("*.jsonl"))))
        try:
            rs, _ = ambiglib.load(log, strict=False, quiet=True)
        except ambiglib.errors.AmbiglibError:
            continue
        try:
            rs.to_parquet(tmp_path / f"store{seed}", partition_by=("benchmark", "model"))
        except ambiglib.errors.AmbiglibError:  # a damaged model name no folder can hold: refused at write
            unwritable += 1
            continue
        _compared(tmp_path / f"store{seed}", _on(tmp_path / f"store{seed}", engine, request))
        compared += 1
    assert compared >= len(seeds) * 2 // 3, (compared, unwritable)


#: one row of one part damaged (tests/fuzzing.py's rewrite): what a load refuses, and the engine must refuse alike
DAMAGE = [("runs", "run_id", "zzz"), ("runs", "n_questions", 99), ("runs", "trial", 7), ("runs", "suite", "zz"),
          ("runs", "variant_id", "t9"), ("runs", None, "over row 1"), ("runs", "n_labels", 99), ("questions", "q_index", 5),
          ("questions", "run_id", "nope"), ("questions", "relevant", None), ("labels", "run_id", "gone"),
          ("tasks", "n_blockers", 9)]


@pytest.mark.parametrize("frame, column, value", DAMAGE)
def test_a_damaged_store_is_refused_by_the_engine_in_the_load_s_words(stores, tmp_path, frame, column, value):
    from fuzzing import rewrite_parquet

    store = tmp_path / "store"
    shutil.copytree(stores["tricky"], store)
    part = sorted((store / frame).rglob("part-*.parquet"))[0]
    rewrite_parquet(part, column, value)
    with pytest.raises(FormatError) as load:
        ambiglib.load(store)
    with pytest.raises(FormatError) as engine:
        engines.on_store(store)
    assert str(engine.value) == str(load.value)
    assert str(part) in str(engine.value) or f"{store / frame}:" in str(engine.value)


def test_a_damaged_store_is_refused_by_spark_in_the_load_s_words(stores, tmp_path, request):
    from fuzzing import rewrite_parquet

    store = tmp_path / "store"
    shutil.copytree(stores["tricky"], store)
    rewrite_parquet(sorted((store / "questions").rglob("part-*.parquet"))[0], "q_index", 5)
    with pytest.raises(FormatError) as load:
        ambiglib.load(store)
    with pytest.raises(FormatError) as engine:
        _on(store, "spark", request)
    assert str(engine.value) == str(load.value)


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
    both = ambiglib.load({"before": EXAMPLE, "after": _tricky_log(tmp_path / "after.jsonl")}, quiet=True)
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


def test_a_refused_store_leaves_no_view_in_the_spark_session(stores, tmp_path, request):
    """The session is the user's: the temporary views of a store are dropped when it is refused or closed."""
    from fuzzing import rewrite_parquet

    spark = request.getfixturevalue("spark")
    ours = lambda: [t.name for t in spark.catalog.listTables() if t.name.startswith("ambiglib_")]  # noqa: E731
    before = ours()
    with engines.on_store(stores["example"], "spark", spark=spark) as on:
        assert len(ours()) == len(before) + 5 and on.rerun_sd(by=ALL)["n_tasks"].sum() > 0
    assert ours() == before
    store = shutil.copytree(stores["example"], tmp_path / "store")
    rewrite_parquet(sorted((store / "runs").rglob("part-*.parquet"))[0], "n_questions", 99)
    with pytest.raises(FormatError, match="column 'n_questions' is 99"):
        engines.on_store(store, "spark", spark=spark)
    assert ours() == before


# ------------------------------------------------------------------ ambiglib summary: what the store holds


def _inspect_like_store(path: Path) -> Path:
    """A log whose runs carry Inspect AI's mapping notes: a tool that looks like asking and is not the ask tool
    (three runs calling it twice each, two of them sharing one meta), and an eval whose ask tool was inferred."""
    called = {"inspect": {"eval_id": "e1", "tools_called": {"ask_helper": 2}}}
    inferred = {"inspect": {"eval_id": "e2", "ask_tool_from": "the samples' calls"}}
    records = [run("t1", "m1", trial=1, meta=called), run("t1", "m1", trial=2, meta=called),
               run("t2", "007", trial=1, meta=called), run("t1", "007", trial=1, meta=inferred),
               run("t2", "007", trial=2, meta=inferred, status="error"), run("t3", "m1", spec="full", score=0.25),
               run("t3", "m1", spec="full", trial=2, status="timeout"), task("t1"), task("t2"), task("t3")]
    log = path.with_suffix(".jsonl")
    log.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    ambiglib.load(log, quiet=True).to_parquet(path, partition_by=("model",))
    return path


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
@pytest.mark.parametrize("which", ["example", "tricky"])
def test_the_summary_of_a_store_equals_the_loaded_log_s(stores, which, engine, request):
    """RunSet.summary's table from the engine's counts equals the loaded store's, cell for cell (the mean scores
    too: both add them up from counts of each score, in one order), and so do the counts a summary prints."""
    rs = ambiglib.load(stores[which], quiet=True)
    with _on(stores[which], engine, request) as store:
        table, totals = store.summary(), store.totals()
    pd.testing.assert_frame_equal(table, rs.summary(), check_exact=True)
    r = rs.runs
    assert totals == {"n_runs": len(r), "n_error": int((r["status"] == "error").sum()), "n_logged": 0,
                      "n_models": r["model"].nunique(), "n_benchmarks": r["benchmark"].nunique(),
                      "tasks_run": len(r[["benchmark", "suite", "task_id"]].drop_duplicates()),
                      "questions": len(rs.questions), "labels": len(rs.labels), "tasks": len(rs.tasks),
                      "blockers": len(rs.blockers)}


def test_the_summary_s_mean_score_is_the_mean_by_hand(tmp_path):
    """The mean score of a cell, from the store's counts, by the contract's rule: error runs out, a timeout without
    a score scores 0 (runs t3: 0.25 and a timeout: 0.125); the other counts as the records say."""
    with engines.on_store(_inspect_like_store(tmp_path / "store")) as store:
        table = store.summary()
    full = table[(table["model"] == "m1") & (table["spec"] == "full")].iloc[0]
    assert (full["n_runs"], full["n_tasks"], full["n_timeout"], full["mean_score"]) == (2, 1, 1, 0.125)
    mine = table[(table["model"] == "007")].iloc[0]
    assert (mine["n_runs"], mine["n_tasks"], mine["n_error"], mine["n_asked"]) == (3, 2, 1, 0)
    assert pd.isna(mine["mean_score"]) and "mean_score" in table.attrs["empty"]


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_ambiglib_summary_over_a_store_writes_the_files_the_loaded_log_gives(stores, tmp_path, engine, request):
    """`ambiglib summary --runs STORE --engine duckdb|spark` counts the store where it lies and writes the same
    files, byte for byte, as `--engine pandas` (a load): over numeric-looking and encoded names, two logs loaded
    together (a cell per log), and Inspect AI's mapping notes (weighted by the runs sharing a meta)."""
    from ambiglib.cli import main

    if engine == "spark":
        request.getfixturevalue("spark")
    both = ambiglib.load({"before": EXAMPLE, "after": _tricky_log(tmp_path / "after.jsonl")}, quiet=True)
    both.to_parquet(tmp_path / "two", partition_by=("log", "model"))
    for store in (stores["tricky"], tmp_path / "two", _inspect_like_store(tmp_path / "inspect")):
        written = {}
        for how in ("pandas", engine):
            out = tmp_path / f"{store.name}-{how}"
            assert main(["summary", "--runs", str(store), "--out", str(out), "--engine", how, "-q"]) == 0
            written[how] = {p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
        assert written[engine] == written["pandas"], store
        page = written[engine][Path("summary.md")].decode()
        if store.name == "inspect":
            assert "- runs: 7 (1 with status `error`" in page
            assert "tool 'ask_helper' was called 6 time(s) in 3 run(s) (007, m1)" in page
            assert "eval e2 (2 runs): the ask tool was the samples' calls (007)" in page
        if store.name == "two":
            assert "| before" in page and "| after" in page


def test_ambiglib_summary_refuses_a_damaged_store_in_the_load_s_words(stores, tmp_path, capsys):
    from fuzzing import rewrite_parquet

    from ambiglib.cli import main

    store = tmp_path / "store"
    shutil.copytree(stores["tricky"], store)
    rewrite_parquet(sorted((store / "runs").rglob("part-*.parquet"))[0], "n_questions", 99)
    with pytest.raises(FormatError) as load:
        ambiglib.load(store)
    code = main(["summary", "--runs", str(store), "--out", str(tmp_path / "out"), "--engine", "duckdb"])
    assert code != 0 and str(load.value) in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------ the contract, field by field, engine-side


def _edit_rows(part: Path, edit) -> None:
    """Rewrite one Parquet part with ``edit(rows)`` applied to its rows (a list of dicts), types kept."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(part)
    rows = table.to_pylist()
    edit(rows)
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), part)


def _same_run_labels(rows):  # a label repeating another of its run: same facet, judge, call and question
    first, second = next((a, b) for a, b in zip(rows, rows[1:]) if a["run_id"] == b["run_id"])
    first.update({k: second[k] for k in ("facet", "judge", "call", "q_index")})


def _same_task_blockers(rows):  # a blocker id twice in one task
    first, second = next((a, b) for a in rows for b in rows if a is not b and a["variant_id"] == b["variant_id"])
    first["blocker_id"] = second["blocker_id"]


def _questions_without_the_tool(rows):  # a run that asked, as if the ask tool had not been offered
    next(r for r in rows if r["n_questions"] > 0)["ask_tool"] = False


def _set(column, value):
    def edit(rows):
        rows[0][column] = value
    return edit


#: one value or rule of the contract broken in one record: (frame, edit of its first part)
FIELD_DAMAGE = [
    ("runs", _set("score", 7.0)), ("runs", _set("score", float("nan"))), ("runs", _set("score", float("inf"))),
    ("runs", _set("status", "weird")), ("runs", _set("spec", "zz")), ("runs", _set("protocol", "zz")),
    ("runs", _set("trial", 0)), ("runs", _set("cost_usd", -1.0)), ("runs", _set("category", "")),
    ("runs", _questions_without_the_tool), ("questions", _set("blocker_id", "")),
    ("questions", _set("text", " \u2003\n")), ("questions", _set("step", -1)), ("questions", _set("parts", 0)),
    ("questions", _set("attributed", False)), ("labels", _set("facet", None)), ("labels", _set("label", "")),
    ("labels", _set("call", 0)), ("labels", _set("q_index", 50)), ("labels", _same_run_labels),
    ("tasks", _set("ambiguity_class", "zz")), ("tasks", _set("strategy", "")), ("blockers", _set("type", "")),
    ("blockers", _set("blocker_id", "")), ("blockers", _same_task_blockers),
]


def _field_damaged(stores, tmp_path, frame, edit) -> Path:
    """The example store with ``edit`` made to the first part of ``frame`` it applies to (one with two blockers of a
    task, say)."""
    store = tmp_path / "store"
    shutil.copytree(stores["example"], store)
    for part in sorted((store / frame).rglob("part-*.parquet")):
        try:
            _edit_rows(part, edit)
            return store
        except StopIteration:
            continue
    raise AssertionError(f"no part of {frame} to damage")


@pytest.mark.parametrize("frame, edit", FIELD_DAMAGE, ids=[f"{f}-{i}" for i, (f, _) in enumerate(FIELD_DAMAGE)])
def test_a_record_the_contract_rejects_is_refused_by_the_engine_in_the_load_s_words(stores, tmp_path, frame, edit):
    """A store whose one record breaks a rule of the contract (a value out of range or of no listed kind, NaN or
    infinity, a blank name or text, a repeated label or blocker id, questions without the ask tool) is refused by
    the engine, naming the part file, the row and the field exactly as a load does: the reference validator words
    both, and the engine's SQL finds the record without reading the rows here."""
    store = _field_damaged(stores, tmp_path, frame, edit)
    with pytest.raises(SchemaError) as load:
        ambiglib.load(store)
    with pytest.raises(SchemaError) as engine:
        engines.on_store(store)
    assert str(engine.value) == str(load.value)
    assert ".parquet:" in str(engine.value) and "field '" in str(engine.value)


def test_records_the_contract_rejects_are_refused_by_spark_in_the_load_s_words(stores, tmp_path, request):
    """The same through Spark SQL, whose NaN, text functions and grouping differ from DuckDB's: NaN, a text of
    Unicode spaces, a repeated label, a repeated blocker id."""
    for i in (1, 11, 19, 24):
        frame, edit = FIELD_DAMAGE[i]
        store = _field_damaged(stores, tmp_path / str(i), frame, edit)
        with pytest.raises(SchemaError) as load:
            ambiglib.load(store)
        with pytest.raises(SchemaError) as engine:
            _on(store, "spark", request)
        assert str(engine.value) == str(load.value)


def test_the_engines_read_every_scalar_field_of_the_contract():
    """Every scalar field of a record (and of its questions, labels and blockers) is a column the engines read, so
    its rules are checked; what is left are the contract's objects and lists, which no query reads."""
    from ambiglib.engines._fields import READ
    from ambiglib.runlog._schema import NESTED, RUN_FIELDS, TASK_FIELDS

    kinds = {"runs": RUN_FIELDS, "tasks": TASK_FIELDS, "questions": NESTED["question"], "labels": NESTED["label"],
             "blockers": NESTED["blocker"]}
    for frame, fields in kinds.items():
        scalar = {("blocker_id" if f.name == "id" else f.name) for f in fields
                  if f.kind not in ("list", "object", "transcript")}
        assert scalar == set(READ[frame]), frame


def test_ambiglib_summary_of_a_store_with_a_rejected_record_lists_it_as_a_lenient_load_does(stores, tmp_path,
                                                                                             capsys):
    """By default (auto) the summary of a store holding a record the contract rejects says so and loads the store
    leniently, to list the record in rejected.csv as --engine pandas does; asked for DuckDB, it is refused."""
    from ambiglib.cli import main

    store = _field_damaged(stores, tmp_path, "runs", _set("score", 7.0))
    assert main(["summary", "--runs", str(store), "--out", str(tmp_path / "auto"), "-q"]) == 0
    assert main(["summary", "--runs", str(store), "--out", str(tmp_path / "pandas"), "--engine", "pandas", "-q"]) == 0
    err = capsys.readouterr().err
    assert "the store holds a record the contract rejects, so it is loaded" in err and "(got 7.0)" in err
    for name in ("summary.md", "rejected.csv", "summary.csv"):
        assert (tmp_path / "auto" / name).read_bytes() == (tmp_path / "pandas" / name).read_bytes()
    assert "(got 7.0)" in (tmp_path / "auto" / "rejected.csv").read_text(encoding="utf-8")
    assert main(["summary", "--runs", str(store), "--out", str(tmp_path / "duckdb"), "--engine", "duckdb"]) != 0
    assert "(got 7.0)" in capsys.readouterr().err and not (tmp_path / "duckdb").exists()
