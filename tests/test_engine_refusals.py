"""What an engine refuses over a store, as the pandas path refuses it, word for word: a metric's refusals (a group
mixing conditions, an unregistered blocker, a task with no record), what needs the whole runs, a store damaged in
one cell, and a record the run-log contract rejects."""

from __future__ import annotations

from pathlib import Path

import pytest
from builders import q, run, task
from store_fixtures import ALL, EXAMPLE, damaged, field_damaged, on_engine, outcome, set_value

import ambiglib
import ambiglib.engines as engines
from ambiglib.errors import ArgumentError, FormatError, SchemaError
from ambiglib.metrics import MetricError


def _refused(records: list[dict], tmp_path: Path, engine: str, request, **options) -> tuple[str, str]:
    rs = ambiglib.RunSet.from_records(records)
    rs.to_parquet(tmp_path / "store", partition_by=("benchmark", "model"))
    with pytest.raises(MetricError) as ours:
        ambiglib.metrics.ask_f1(ambiglib.load(tmp_path / "store"), **options)
    with pytest.raises(MetricError) as theirs:
        on_engine(tmp_path / "store", engine, request).ask_f1(**options)
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
    on = on_engine(stores["tricky"], engine, request)
    rs = ambiglib.load(stores["tricky"])
    for name, options in [("ask_calibration", {}), ("pass_at_k", {"k": 3, "by": ()}), ("flip_share", {})]:
        ours = outcome(lambda name=name, options=options: getattr(ambiglib.metrics, name)(rs, **options))
        theirs = outcome(lambda name=name, options=options: getattr(on, name)(**options))
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


#: one row of one part damaged (tests/fuzzing.py's rewrite): what a load refuses, and the engine must refuse alike
DAMAGE = [("runs", "run_id", "zzz"), ("runs", "n_questions", 99), ("runs", "trial", 7), ("runs", "suite", "zz"),
          ("runs", "variant_id", "t9"), ("runs", None, "over row 1"), ("runs", "n_labels", 99), ("questions", "q_index", 5),
          ("questions", "run_id", "nope"), ("questions", "relevant", None), ("labels", "run_id", "gone"),
          ("tasks", "n_blockers", 9)]


@pytest.mark.parametrize("frame, column, value", DAMAGE)
def test_a_damaged_store_is_refused_by_the_engine_in_the_load_s_words(stores, tmp_path, frame, column, value):
    store, part = damaged(stores, tmp_path, "tricky", frame, column, value)
    with pytest.raises(FormatError) as load:
        ambiglib.load(store)
    with pytest.raises(FormatError) as engine:
        engines.on_store(store)
    assert str(engine.value) == str(load.value)
    assert str(part) in str(engine.value) or f"{store / frame}:" in str(engine.value)


def test_a_damaged_store_is_refused_by_spark_in_the_load_s_words(stores, tmp_path, request):
    store, _ = damaged(stores, tmp_path, "tricky", "questions", "q_index", 5)
    with pytest.raises(FormatError) as load:
        ambiglib.load(store)
    with pytest.raises(FormatError) as engine:
        on_engine(store, "spark", request)
    assert str(engine.value) == str(load.value)


def test_a_refused_store_leaves_no_view_in_the_spark_session(stores, tmp_path, request):
    """The session is the user's: the temporary views of a store are dropped when it is refused or closed."""
    spark = request.getfixturevalue("spark")
    ours = lambda: [t.name for t in spark.catalog.listTables() if t.name.startswith("ambiglib_")]  # noqa: E731
    before = ours()
    with engines.on_store(stores["example"], "spark", spark=spark) as on:
        assert len(ours()) == len(before) + 5 and on.rerun_sd(by=ALL)["n_tasks"].sum() > 0
    assert ours() == before
    store, _ = damaged(stores, tmp_path, "example", "runs", "n_questions", 99)
    with pytest.raises(FormatError, match="column 'n_questions' is 99"):
        engines.on_store(store, "spark", spark=spark)
    assert ours() == before


def _same_run_labels(rows):  # a label repeating another of its run: same facet, judge, call and question
    first, second = next((a, b) for a, b in zip(rows, rows[1:]) if a["run_id"] == b["run_id"])
    first.update({k: second[k] for k in ("facet", "judge", "call", "q_index")})


def _same_task_blockers(rows):  # a blocker id twice in one task
    first, second = next((a, b) for a in rows for b in rows if a is not b and a["variant_id"] == b["variant_id"])
    first["blocker_id"] = second["blocker_id"]


def _questions_without_the_tool(rows):  # a run that asked, as if the ask tool had not been offered
    next(r for r in rows if r["n_questions"] > 0)["ask_tool"] = False


#: one value or rule of the contract broken in one record: (frame, edit of its first part)
FIELD_DAMAGE = [
    ("runs", set_value("score", 7.0)), ("runs", set_value("score", float("nan"))), ("runs", set_value("score", float("inf"))),
    ("runs", set_value("status", "weird")), ("runs", set_value("spec", "zz")), ("runs", set_value("protocol", "zz")),
    ("runs", set_value("trial", 0)), ("runs", set_value("cost_usd", -1.0)), ("runs", set_value("category", "")),
    ("runs", _questions_without_the_tool), ("questions", set_value("blocker_id", "")),
    ("questions", set_value("text", " \u2003\n")), ("questions", set_value("step", -1)), ("questions", set_value("parts", 0)),
    ("questions", set_value("attributed", False)), ("labels", set_value("facet", None)), ("labels", set_value("label", "")),
    ("labels", set_value("call", 0)), ("labels", set_value("q_index", 50)), ("labels", _same_run_labels),
    ("tasks", set_value("ambiguity_class", "zz")), ("tasks", set_value("strategy", "")), ("blockers", set_value("type", "")),
    ("blockers", set_value("blocker_id", "")), ("blockers", _same_task_blockers),
]


@pytest.mark.parametrize("frame, edit", FIELD_DAMAGE, ids=[f"{f}-{i}" for i, (f, _) in enumerate(FIELD_DAMAGE)])
def test_a_record_the_contract_rejects_is_refused_by_the_engine_in_the_load_s_words(stores, tmp_path, frame, edit):
    """A store whose one record breaks a rule of the contract (a value out of range or of no listed kind, NaN or
    infinity, a blank name or text, a repeated label or blocker id, questions without the ask tool) is refused by
    the engine, naming the part file, the row and the field exactly as a load does: the reference validator words
    both, and the engine's SQL finds the record without reading the rows here."""
    store = field_damaged(stores, tmp_path, frame, edit)
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
        store = field_damaged(stores, tmp_path / str(i), frame, edit)
        with pytest.raises(SchemaError) as load:
            ambiglib.load(store)
        with pytest.raises(SchemaError) as engine:
            on_engine(store, "spark", request)
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

