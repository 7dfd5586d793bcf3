"""`ambiglib summary` over a store counted by an engine: the loaded log's table and files, byte for byte, through
DuckDB and Spark."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from builders import run, task
from store_fixtures import EXAMPLE, damaged, field_damaged, on_engine, set_value, tricky_log

import ambiglib
import ambiglib.engines as engines
from ambiglib.errors import FormatError


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
    with on_engine(stores[which], engine, request) as store:
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
    both = ambiglib.load({"before": EXAMPLE, "after": tricky_log(tmp_path / "after.jsonl")}, quiet=True)
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
    from ambiglib.cli import main

    store, _ = damaged(stores, tmp_path, "tricky", "runs", "n_questions", 99)
    with pytest.raises(FormatError) as load:
        ambiglib.load(store)
    code = main(["summary", "--runs", str(store), "--out", str(tmp_path / "out"), "--engine", "duckdb"])
    assert code != 0 and str(load.value) in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_ambiglib_summary_of_a_store_with_a_rejected_record_lists_it_as_a_lenient_load_does(stores, tmp_path,
                                                                                             capsys):
    """By default (auto) the summary of a store holding a record the contract rejects says so and loads the store
    leniently, to list the record in rejected.csv as --engine pandas does; asked for DuckDB, it is refused."""
    from ambiglib.cli import main

    store = field_damaged(stores, tmp_path, "runs", set_value("score", 7.0))
    assert main(["summary", "--runs", str(store), "--out", str(tmp_path / "auto"), "-q"]) == 0
    assert main(["summary", "--runs", str(store), "--out", str(tmp_path / "pandas"), "--engine", "pandas", "-q"]) == 0
    err = capsys.readouterr().err
    assert "the store holds a record the contract rejects, so it is loaded" in err and "(got 7.0)" in err
    for name in ("summary.md", "rejected.csv", "summary.csv"):
        assert (tmp_path / "auto" / name).read_bytes() == (tmp_path / "pandas" / name).read_bytes()
    assert "(got 7.0)" in (tmp_path / "auto" / "rejected.csv").read_text(encoding="utf-8")
    assert main(["summary", "--runs", str(store), "--out", str(tmp_path / "duckdb"), "--engine", "duckdb"]) != 0
    assert "(got 7.0)" in capsys.readouterr().err and not (tmp_path / "duckdb").exists()



def test_a_user_who_is_not_root_summarises_a_read_only_store_through_duckdb(stores, tmp_path):
    """As uid 65534, from a folder it cannot write: `ambiglib summary --engine duckdb` over a store it may only read
    writes the files a load gives (root's --engine pandas run), into a folder of its own."""
    import os

    from unprivileged import as_user, world_tmp

    from ambiglib.cli import main

    home = world_tmp()
    try:
        store = shutil.copytree(stores["tricky"], home / "store")
        for path in [store, *store.rglob("*")]:
            path.chmod(0o555 if path.is_dir() else 0o444)
        (home / "out").mkdir()
        (home / "out").chmod(0o777)  # (mkdir's mode is masked by the umask)
        cwd = home / "notebooks"
        cwd.mkdir(mode=0o555)
        assert main(["summary", "--runs", str(store), "--out", str(tmp_path / "pandas"), "--engine", "pandas",
                     "-q"]) == 0

        def summarise() -> dict:
            os.chdir(cwd)
            code = main(["summary", "--runs", str(store), "--out", str(home / "out" / "duckdb"), "--engine", "duckdb",
                         "-q"])
            return {"code": code, "uid": os.getuid(), "cwd": sorted(os.listdir("."))}

        result = as_user(summarise)
        assert "raised" not in result, result
        assert result == {"code": 0, "uid": 65534 if os.geteuid() == 0 else os.getuid(), "cwd": []}
        for name in ("summary.md", "summary.csv", "summary.html", "summary.json", "rejected.csv"):
            assert (home / "out" / "duckdb" / name).read_bytes() == (tmp_path / "pandas" / name).read_bytes(), name
    finally:
        for path in [home, *home.rglob("*")]:
            if path.is_dir():
                path.chmod(0o755)
        shutil.rmtree(home)
