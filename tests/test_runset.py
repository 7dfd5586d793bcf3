"""The five tidy frames: columns, dtypes, ids, flattening, summary."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from conftest import run_record, task_record, write_jsonl

import ambiglib
from ambiglib.runset import COLUMNS


@pytest.fixture
def runset(tmp_path):
    lines = [
        task_record(),
        run_record(trial=1),
        run_record(trial=2, questions=[], labels=[
            {"facet": "trace", "label": "intended"}, {"facet": "trace", "label": "alternative", "call": 2},
            {"facet": "answer", "label": "ok", "judge": "j2"}]),
        run_record(trial=3, model="org/model|x", status="invalid", score=None,
                   questions=[{"text": "q0"}, {"text": "q1", "blocker_id": "modern_era_cards"},
                              {"text": "q2", "blocker_id": "modern_era_cards"}]),
    ]
    return ambiglib.load(write_jsonl(tmp_path / "runs.jsonl", lines))


def test_frames_have_the_contract_columns_and_nullable_arrow_dtypes(runset):
    for name, frame in runset.frames().items():
        assert tuple(frame.columns) == COLUMNS[name]
        assert all(isinstance(dtype, pd.ArrowDtype) for dtype in frame.dtypes), name
        assert isinstance(frame.index, pd.RangeIndex)


def test_run_ids_are_built_from_the_key_and_escaped(runset):
    ids = runset.runs["run_id"].tolist()
    assert ids[0] == "hil-bench|sql|public_sql_3|model-a|ambiguous|tool|default|solve|1"
    # a '|' inside a key value cannot make two keys collide
    assert ids[2] == "hil-bench|sql|public_sql_3|org/model%7Cx|ambiguous|tool|default|solve|3"
    assert runset.runs["run_id"].is_unique


def test_the_escape_agrees_with_escaping_each_value_in_python():
    """The escape scans a column's bytes for '%' and '|' at once; the rule is per value. Sliced chunks keep
    bytes outside their rows in their buffer: the escape must still be the rule's for the rows they hold."""
    from ambiglib.runlog._frames import _escape

    rng = np.random.default_rng(7)
    alphabet = np.array(list("ab%|c"))
    for _ in range(300):
        values = ["".join(rng.choice(alphabet, rng.integers(0, 4))) if rng.random() > 0.1 else None
                  for _ in range(int(rng.integers(1, 12)))]
        whole = pa.array(values, pa.string())
        cut = int(rng.integers(0, len(values) + 1))
        pieces = pa.chunked_array([whole.slice(0, cut), whole.slice(cut)], pa.string())
        lo, hi = sorted(rng.integers(0, len(values) + 1, 2))
        for arr, expect in ((pieces, values), (pa.chunked_array([whole.slice(lo, hi - lo)]), values[lo:hi])):
            rule = [None if v is None else v.replace("%", "%25").replace("|", "%7C") for v in expect]
            assert _escape(arr).to_pylist() == rule


def test_questions_are_flattened_in_order_with_relevance(runset):
    q = runset.questions
    assert len(q) == runset.runs["n_questions"].sum() == 5
    assert q["q_index"].tolist() == [0, 1, 0, 1, 2]
    assert q["relevant"].tolist() == [True, False, False, True, True]
    assert q["run_id"].tolist()[2:] == [runset.runs["run_id"].iloc[2]] * 3
    assert runset.runs["n_questions"].tolist() == [2, 0, 3]


def test_labels_fill_judge_and_call_defaults(runset):
    labels = runset.labels
    assert labels[["facet", "judge", "call", "label"]].values.tolist() == [
        ["trace", "j1", 1, "intended"],
        ["trace", "judge", 1, "intended"], ["trace", "judge", 2, "alternative"], ["answer", "j2", 1, "ok"],
        ["trace", "j1", 1, "intended"],
    ]
    assert runset.runs["n_labels"].tolist() == [1, 3, 1]


def test_tasks_and_blockers(runset):
    assert runset.tasks[["task_id", "variant_id", "n_blockers"]].values.tolist() == [
        ["public_sql_3", "public_sql_3", 3]]
    assert runset.blockers["blocker_id"].tolist() == [
        "modern_era_cards", "vintage_edition_printing", "tournament_certified_status"]
    assert runset.blockers["subtype"].isna().tolist() == [False, True, True]


def test_defaults_are_filled(runset):
    runs = runset.runs
    assert (runs["variant_id"] == runs["task_id"]).all()
    assert set(runs["policy"]) == {"default"} and set(runs["protocol"]) == {"solve"}
    assert runs["status"].tolist() == ["ok", "ok", "invalid"]


def test_summary_counts_by_hand(runset):
    s = runset.summary().set_index("model")
    assert list(s.index) == ["model-a", "org/model|x"]
    cols = ["n_runs", "n_tasks", "n_ok", "n_invalid", "n_asked", "n_questions"]
    assert s.loc["model-a", cols].tolist() == [2, 1, 2, 0, 1, 2]
    assert s.loc["org/model|x", cols].tolist() == [1, 1, 0, 1, 1, 3]
    assert s.loc["model-a", "mean_score"] == pytest.approx(0.5)
    # an invalid run with no score counts as 0 (Ambig-DS §5.1), not as missing
    assert s.loc["org/model|x", "mean_score"] == 0.0


def test_repr_counts_everything(runset):
    # by hand: runs 1 and 3 ask 2 and 3 questions; runs 1 and 2 carry 2 and 3 labels; one task; two models
    assert repr(runset) == (
        "RunSet: 3 runs, 1 tasks, 5 questions, 5 labels, 1 benchmark\n"
        "  benchmark suite  runs  tasks  models  questions  labels\n"
        "  hil-bench   sql     3      1       2          5       5\n"
        "models: model-a, org/model|x\n"
        "rejected by the load: 0 records; read but not runs (skipped): 0")


def test_the_jupyter_display_counts_and_escapes(runset, tmp_path):
    page = runset._repr_html_()
    assert "<strong>RunSet</strong>: 3 runs, 1 tasks, 5 questions, 5 labels, 1 benchmark" in page
    assert "<td>hil-bench</td><td>sql</td><td>3</td><td>1</td><td>2</td><td>5</td><td>5</td>" in page
    # what a log names is text, never markup; a lenient load's rejected records and skipped rows are counted
    lines = [run_record(model="<img src=x onerror=alert(1)>"), run_record(trial=2, spec="amb")]
    rs, errors = ambiglib.load(write_jsonl(tmp_path / "bad.jsonl", lines), strict=False)
    page = rs._repr_html_()
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert len(errors) == 1 and "rejected by the load: 1 record;" in page and "rejected by the load: 1 record;" in repr(rs)
    # small for a large log: at most DISPLAY_ROWS rows and model names, then how many more
    many = ambiglib.RunSet(**{**rs.frames(), "runs": pd.concat(
        [rs.runs.assign(suite=f"s{i}", model=f"m{i}") for i in range(50)], ignore_index=True)})
    assert many._repr_html_().count("<tr>") == 1 + many.DISPLAY_ROWS and "and 30 more" in repr(many)


def test_loading_never_mutates_and_frames_are_independent(runset, tmp_path):
    before = runset.runs.copy()
    runset.to_parquet(tmp_path / "pq")
    runset.to_jsonl(tmp_path / "out.jsonl")
    pd.testing.assert_frame_equal(runset.runs, before)


@pytest.mark.parametrize("criteria", [{"benchmark": "hil-bench"}, {"model": ["m0", "nobody"]}, {"benchmark": "nobody"},
                                      {}])
def test_filter_through_arrow_gives_pandas_boolean_indexing(monkeypatch, criteria):
    """Large frames are filtered by Arrow (runset._ARROW_ROWS); forced on for the example, every frame
    equals pandas' boolean indexing of the same rows: values, dtypes, order, a fresh 0..n-1 index."""

    from ambiglib import runset as rs_mod
    from ambiglib.report import example_runs

    example = example_runs()
    if example is None:
        pytest.skip("the bundled example log is not in this tree")
    rs = ambiglib.load(example, quiet=True)
    models = sorted(set(rs.runs["model"].astype(object)))
    criteria = {k: ([models[0], "nobody"] if v == ["m0", "nobody"] else v) for k, v in criteria.items()}
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "filters .* match no run", UserWarning)  # benchmark "nobody": meant
        by_pandas = rs.filter(**criteria)
        monkeypatch.setattr(rs_mod, "_ARROW_ROWS", 0)
        by_arrow = rs.filter(**criteria)
    for name in ("runs", "questions", "labels", "tasks", "blockers"):
        pd.testing.assert_frame_equal(getattr(by_arrow, name), getattr(by_pandas, name), check_exact=True)
    assert len(by_arrow.runs) == int(np.sum([all(r[k] in (v if isinstance(v, list) else [v]) for k, v in criteria.items())
                                             for _, r in rs.runs.iterrows()]))


@pytest.mark.parametrize("arrow_from", [0, 10**9])
@pytest.mark.parametrize("kept", ["all", "none", "first", "last", "middle", "one", "two blocks", "every other"])
def test_rows_equals_pandas_boolean_indexing_for_blocks_and_scatter(monkeypatch, kept, arrow_from):
    """runset._rows takes rows kept in one unbroken block as a slice, others through Arrow or pandas; every
    way gives pandas' boolean indexing of the same rows: values, dtypes, order, a fresh 0..n-1 index, attrs.
    A slice changed afterwards leaves the frame it came from as it was."""
    from ambiglib import runset as rs_mod

    monkeypatch.setattr(rs_mod, "_ARROW_ROWS", arrow_from)
    n = 12
    frame = pd.DataFrame({"run_id": [f"r{i}" for i in range(n)], "score": np.linspace(0, 1, n)},
                         index=pd.RangeIndex(5, 5 + 2 * n, 2))  # not 0..n-1: the result must be renumbered
    frame = frame.astype({"run_id": pd.ArrowDtype(pa.string()), "score": pd.ArrowDtype(pa.float64())})
    frame.attrs["note"] = "kept"
    keep = np.zeros(n, dtype=bool)
    blocks = {"all": [slice(None)], "none": [], "first": [slice(0, 4)], "last": [slice(8, None)],
              "middle": [slice(3, 9)], "one": [slice(6, 7)], "two blocks": [slice(0, 3), slice(5, 8)],
              "every other": [slice(0, None, 2)]}[kept]
    for block in blocks:
        keep[block] = True
    before = frame.copy()
    got = rs_mod._rows(frame, keep)
    want = frame[keep].reset_index(drop=True)
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert isinstance(got.index, pd.RangeIndex) and list(got.index) == list(range(int(keep.sum())))
    assert got.attrs == {"note": "kept"}
    if len(got):
        got.loc[0, "score"] = -1.0
        got.loc[0, "run_id"] = "changed"
    pd.testing.assert_frame_equal(frame, before, check_exact=True)


def test_filter_keeps_each_runs_questions_and_labels_through_filters_and_edits():
    """Questions and labels follow their runs by run_id through nested filters (the run links are worked out
    once and carried to subsets); a frame changed in place is joined afresh, never with stale links."""
    from ambiglib.report import example_runs

    example = example_runs()
    if example is None:
        pytest.skip("the bundled example log is not in this tree")
    rs = ambiglib.load(example, quiet=True)

    def by_value(parent, child):  # what filter must give, by run_id membership
        for name in ("questions", "labels"):
            frame = getattr(parent, name)
            want = frame[frame["run_id"].isin(child.runs["run_id"])].reset_index(drop=True)
            pd.testing.assert_frame_equal(getattr(child, name), want, check_exact=True)

    assert rs.filter(benchmark=None, model=None) is rs  # nothing to filter: the run set itself, as where(None)
    hil = rs.filter(benchmark="hil-bench")
    by_value(rs, hil)
    tool = hil.filter(ask_tool=True).filter(suite="sql")
    by_value(rs, tool)
    assert len(tool.questions) and len(tool.questions) < len(hil.questions)
    # questions moved in place to a run without the tool: the next filter leaves them out
    other = hil.runs.loc[~hil.runs["ask_tool"].astype(bool), "run_id"].iloc[0]  # a run without the tool
    moved = tool.questions.index[tool.questions["run_id"] != other][0]
    rs.questions.loc[rs.questions["run_id"] == tool.questions.at[moved, "run_id"], "run_id"] = other
    by_value(rs, rs.filter(benchmark="hil-bench", ask_tool=True, suite="sql"))
    # duplicate run ids (a run set built by hand) are matched by value
    twice = ambiglib.RunSet(runs=pd.concat([hil.runs, hil.runs.iloc[:1]], ignore_index=True),
                            questions=hil.questions, labels=hil.labels, tasks=hil.tasks, blockers=hil.blockers)
    by_value(twice, twice.filter(ask_tool=True))


@pytest.mark.parametrize("duplicate_ids", [False, True])
def test_keeping_runs_by_mask_is_filtering_by_their_run_ids(duplicate_ids):
    """RunSet.with_runs(keep) gives what filter(run_id=[ids of the runs where keep]) gives, every
    frame exactly, for masks that keep nothing, everything, blocks and scattered runs; with a run id
    repeated (a run set built by hand), both of its runs, as filter keeps them."""
    from ambiglib.report import example_runs

    example = example_runs()
    if example is None:
        pytest.skip("the bundled example log is not in this tree")
    rs = ambiglib.load(example, quiet=True)
    if duplicate_ids:
        rs = ambiglib.RunSet(runs=pd.concat([rs.runs, rs.runs.iloc[[3, 40]]], ignore_index=True),
                             questions=rs.questions, labels=rs.labels, tasks=rs.tasks, blockers=rs.blockers)
    n = len(rs.runs)
    rng = np.random.default_rng(5)
    masks = [np.zeros(n, bool), np.ones(n, bool), np.arange(n) < n // 3, rng.random(n) < 0.3,
             (rs.runs["ask_tool"].to_numpy(dtype=bool, na_value=False)), np.isin(np.arange(n), [3])]
    for keep in masks:
        got = rs.with_runs(keep)
        want = rs.filter(run_id=list(rs.runs["run_id"][keep]))
        for name in ("runs", "questions", "labels", "tasks", "blockers"):
            pd.testing.assert_frame_equal(getattr(got, name), getattr(want, name), check_exact=True)
    if duplicate_ids:
        assert len(rs.with_runs(np.isin(np.arange(n), [3])).runs) == 2


def _join_on_run_id(rs, name):
    """Which run each row belongs to, by pandas' own join on run_id: the independent truth for the links."""
    return pd.Index(rs.runs["run_id"]).get_indexer(getattr(rs, name)["run_id"])


@pytest.mark.parametrize("source", ["example", "paper", "repeated run key", "python engine"])
def test_a_load_keeps_the_run_of_each_question_and_label_as_the_join_finds_it(tmp_path, source):
    """A load knows which run each question and label came from (its record) and keeps it; it equals
    the join on run_id, also when a repeated run key was rejected (its questions go with it)."""
    from pathlib import Path

    from ambiglib.report import example_runs

    engine = "auto"
    if source == "example" or source == "python engine":
        path = example_runs()
        engine = "python" if source == "python engine" else "auto"
    elif source == "paper":
        path = Path(__file__).resolve().parent.parent / "data" / "paper"
    else:
        first = run_record(trial=1, questions=[{"text": "which table?", "blocker_id": "b1"}])
        again = run_record(trial=1, questions=[{"text": "a", "blocker_id": None}, {"text": "b", "blocker_id": None}])
        other = run_record(trial=2, questions=[{"text": "which column?", "blocker_id": None}],
                           labels=[{"facet": "trace", "label": "intended", "judge": j} for j in ("j1", "j2", "j3")])
        path = write_jsonl(tmp_path / "runs.jsonl", [first, again, other, task_record()])
    if path is None or not Path(path).exists():
        pytest.skip(f"{source}: not in this tree")
    rs, errors = ambiglib.load(path, strict=False, quiet=True, engine=engine)
    if source == "repeated run key":
        assert [e.kind for e in errors] == ["schema"] and len(rs.runs) == 2 and len(rs.questions) == 2
    for name in ("questions", "labels"):
        assert name in rs._cache  # kept by the load, not joined later
        np.testing.assert_array_equal(rs.run_positions(name), _join_on_run_id(rs, name))
        assert (rs.run_positions(name) >= 0).all()


def test_a_run_and_a_task_repeated_in_a_later_file_leave_with_their_questions_labels_and_blockers(tmp_path):
    """Each file's records become frame rows file by file; a run or task key a later file repeats is still refused
    over all files, and its questions, labels and blockers leave with it: the frames equal those of the same
    records in one file (repeats within a file are found as they always were), apart from where each came from."""
    first = run_record(trial=1, questions=[{"text": "which table?", "blocker_id": "b1"}], labels=None)
    other = run_record(trial=2, questions=[{"text": "which column?", "blocker_id": None}],
                       labels=[{"facet": "trace", "label": "intended", "judge": j} for j in ("j1", "j2", "j3")])
    again = run_record(trial=1, questions=[{"text": "a", "blocker_id": None}, {"text": "b", "blocker_id": None}],
                       labels=[{"facet": "trace", "label": "guessed", "judge": "j9"}])
    third = run_record(trial=3, questions=[{"text": "which year?", "blocker_id": None}], labels=None)
    task_again = task_record(blockers=[{"id": "other_blocker", "type": "schema"}])
    records = [first, task_record(), other, again, task_again, third]
    write_jsonl(tmp_path / "two" / "a.jsonl", records[:2])
    write_jsonl(tmp_path / "two" / "b.jsonl", records[2:])
    one, one_errors = ambiglib.load(write_jsonl(tmp_path / "one.jsonl", records), strict=False, quiet=True)
    two, two_errors = ambiglib.load(tmp_path / "two", strict=False, quiet=True)

    assert [(e.line, e.record) for e in two_errors] == [(2, "run"), (3, "task")]
    assert [e.message.rsplit("first seen at ", 1)[1] for e in two_errors] == [
        f"{tmp_path / 'two' / 'a.jsonl'}:1", f"{tmp_path / 'two' / 'a.jsonl'}:2"]
    assert list(two.runs["trial"]) == [1, 2, 3]
    assert list(two.questions["text"]) == ["which table?", "which column?", "which year?"]
    assert list(two.labels["judge"]) == ["j1", "j2", "j3"]
    assert list(two.blockers["blocker_id"]) == [b["id"] for b in task_record()["blockers"]]
    assert len(one_errors) == len(two_errors)
    for name in ("runs", "questions", "labels", "tasks", "blockers"):
        pd.testing.assert_frame_equal(getattr(two, name).drop(columns="source", errors="ignore"),
                                      getattr(one, name).drop(columns="source", errors="ignore"), check_exact=True)
    for name in ("questions", "labels"):
        np.testing.assert_array_equal(two.run_positions(name), _join_on_run_id(two, name))


def test_tables_split_a_log_once_and_again_after_an_edit():
    """The split by benchmark and each shape test are kept with the run set (a notebook's tables reuse
    them), and worked out again when the run set or a part of it is changed in place: a table is always
    the table of the frames as they are now."""
    from ambiglib import tables
    from ambiglib.report import example_runs
    from ambiglib.tables._shapes import SHAPES, applicable, applicable_parts

    example = example_runs()
    if example is None:
        pytest.skip("the bundled example log is not in this tree")
    rs = ambiglib.load(example, quiet=True)

    def fresh(frames):  # the same frames in a run set that has kept nothing
        return ambiglib.RunSet(**{k: v.copy() for k, v in frames.items()})

    first = applicable_parts(rs, SHAPES["blockers"])
    again = applicable_parts(rs, SHAPES["blockers"])
    assert [b for b, _ in first] == ["ambig-ds", "hil-bench", "lhaw"] and all(a is b for (_, a), (_, b) in zip(first, again))
    for bench, part in first:
        for name, frame in part.frames().items():
            pd.testing.assert_frame_equal(frame, getattr(rs.filter(benchmark=bench), name), check_exact=True)

    # the log edited in place: LHAW's ambiguity classes cleared, some HIL-Bench questions no longer about a blocker
    assert "lhaw" in applicable(rs, SHAPES["ambiguity_class"])
    rs.tasks.loc[rs.tasks["benchmark"].astype(object) == "lhaw", "ambiguity_class"] = None
    assert "lhaw" not in applicable(rs, SHAPES["ambiguity_class"])
    before = tables.leaderboard(rs)
    about = rs.questions["blocker_id"].notna()
    rs.questions.loc[about & (np.arange(len(about)) % 2 == 0), ["blocker_id", "relevant"]] = [None, False]
    pd.testing.assert_frame_equal(tables.leaderboard(rs), tables.leaderboard(fresh(rs.frames())), check_exact=True)
    assert not tables.leaderboard(rs).equals(before)

    # a part edited in place (as a table's own code might): the next table does not see the edit
    hil = dict(applicable_parts(rs, SHAPES["blockers"]))["hil-bench"]
    hil.questions.loc[:, ["blocker_id", "relevant"]] = [None, False]
    pd.testing.assert_frame_equal(tables.leaderboard(rs), tables.leaderboard(fresh(rs.frames())), check_exact=True)
    # a run set built by hand (columns not Arrow-backed) keeps nothing and is split at each call
    plain = ambiglib.RunSet(**{k: v.astype(object) for k, v in rs.frames().items()})
    assert applicable(plain, SHAPES["blockers"]) == applicable(rs, SHAPES["blockers"]) and not plain._cache
    # a frame with a column name twice (built by hand) is kept and compared column by column
    twice = ambiglib.RunSet(**{**rs.frames(), "tasks": pd.concat([rs.tasks, rs.tasks[["meta"]]], axis=1)})
    assert applicable(twice, SHAPES["blockers"]) == applicable(rs, SHAPES["blockers"])


@pytest.mark.parametrize("pandas_accessor", [True, False])
def test_the_state_reads_each_columns_arrow_array_as_items_does(runset, monkeypatch, pandas_accessor):
    """RunSet._state takes each column's array through pandas' own accessor (or, without it, through items()):
    the same Arrow arrays, by position, as each column's Series holds, a repeated name included."""
    from ambiglib.runset import _column_arrays, arrow_of

    if not pandas_accessor:
        monkeypatch.delattr(pd.DataFrame, "_get_column_array", raising=False)
    twice = pd.concat([runset.tasks, runset.tasks[["meta"]]], axis=1)
    for frame in (*runset.frames().values(), twice):
        via_items = [arrow_of(column) for _, column in frame.items()]
        assert [a.__arrow_array__() for a in _column_arrays(frame)] == via_items
        assert all(a.__arrow_array__() is b for a, b in zip(_column_arrays(frame), via_items))
    before = runset._state()
    runset.runs.loc[0, "score"] = 0.5  # an edit in place: a new Arrow array, so a new state
    after = runset._state()
    assert len(before) == len(after) and sum(a is not b for a, b in zip(before, after)) == 1


@pytest.mark.parametrize("dtype", ["str", "arrow", "object", "category"])
def test_shape_tests_compare_as_python_compares(dtype):
    """The shape tests compare a column with a value where the column is (in Arrow for an Arrow-backed one):
    the same rows as comparing each value as a Python object, a null holding no value, so a run whose status
    is null is not an error run."""
    from ambiglib.tables import _shapes as shapes

    values = ["error", None, "ok", "invalid", "error", None, "timeout"]
    column = pd.Series(values, dtype={"arrow": pd.ArrowDtype(pa.string())}.get(dtype, dtype), index=range(10, 17))
    for value in ("error", "ok", "missing"):
        assert shapes._equals(column, value).tolist() == [v == value for v in values]
    runs = pd.DataFrame({"status": column, "spec": column, "protocol": column, "ask_tool": [True] * 7})
    rs = SimpleNamespace(runs=runs)  # _ok reads the runs only
    kept_status = [None if pd.isna(v) else v for v in shapes._ok(rs, read=None)["status"]]
    assert kept_status == [v for v in values if v != "error"]
    kept = shapes._cell(runs, spec="ok", protocol="ok", ask_tool=True)
    assert kept.index.tolist() == [12]
