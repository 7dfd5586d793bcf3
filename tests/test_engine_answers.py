"""The four answers (``asking``, ``question_quality``, ``payoff``, ``agent_ranking`` and ``agent_comparison``), and
the rankings and paired comparisons of every metric but the judges' scores, over a store equal the loaded log's,
cell for cell and note for note, through DuckDB and Spark; what is not computed over a store yet is refused with
why.

The second implementation here is the engine: the per-task sums and the counts of what was run are SQL that
DuckDB and Spark run, never our pandas code; the pooling, the tests and the words are shared."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from builders import q, run, task
from store_fixtures import EXAMPLE, fuzzed_stores, on_engine, outcome, simulator_store

import ambiglib
import ambiglib.engines as engines
from ambiglib.answers import agent_comparison, agent_ranking, asking, payoff, question_quality
from ambiglib.comparisons import paired_comparison, prob_improvement
from ambiglib.ranking import rank_agents, ranking_pairs

HARNESS = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "harness-output"

#: the four answers, over a store and over the loaded log: (function, options)
ANSWERS = [(asking, {}), (question_quality, {}), (payoff, {}), (agent_ranking, {}), (agent_comparison, {}),
           (asking, {"confidence": 0.9, "conventions": {"ambig-ds": "neutral"}}), (question_quality, {"confidence": 0.9}),
           (payoff, {"k": 1, "conventions": {"lhaw": "neutral"}}), (agent_ranking, {"long": True, "family": "metric"})]

#: the rankings and paired comparisons of every metric computed over a store
COMPARISONS = [
    (fn, {"metric": metric, "condition": condition, "between": between})
    for fn in (rank_agents, ranking_pairs, paired_comparison)
    for metric, condition in (("calib_score", None), ("ask_rate", ("ambiguous", True)), ("ask_rate", ("full", True)),
                              ("mean_score", ("ambiguous", True)), ("mean_score", ("full", False)))
    for between in ("model", "policy")] + [
    (fn, {"metric": metric, "between": between}) for fn in (rank_agents, paired_comparison)
    for metric in ("questions_per_run", "ask_f1", "precision", "recall", "score_gain_pp", "pass_gain_pp",
                   "gain_per_question") for between in ("model", "policy")]

CASES = ANSWERS + COMPARISONS


def _same(rs: ambiglib.RunSet, store: engines.StoreMetrics, cases=CASES) -> int:
    """Every case on the loaded log and over the store: the same table and attrs, or the same refusal."""
    for fn, options in cases:
        ours = outcome(lambda: fn(rs, **options))  # noqa: B023 (called at once)
        theirs = outcome(lambda: fn(store, **options))  # noqa: B023
        if isinstance(ours, Exception) or isinstance(theirs, Exception):
            assert (type(theirs), str(theirs)) == (type(ours), str(ours)), (fn.__name__, options)
            continue
        pd.testing.assert_frame_equal(theirs, ours, check_exact=True, obj=f"{fn.__name__}{options}")
        assert theirs.attrs == ours.attrs, (fn.__name__, options)
    return len(rs.runs)


#: fewer cases where a case costs more (48,700 runs, many stores): every answer, every fifth ranking; through Spark,
#: whose every query takes a second, every twelfth
FEWER = ANSWERS[:5] + COMPARISONS[::5]
SPARK = ANSWERS[:5] + COMPARISONS[::12]


@pytest.mark.parametrize("engine, which, cases", [("duckdb", "example", CASES), ("duckdb", "tricky", FEWER),
                                                  ("spark", "example", SPARK)])
def test_the_four_answers_and_the_rankings_equal_the_loaded_log_s(stores, which, engine, cases, request):
    rs = ambiglib.load(stores[which], quiet=True)
    with on_engine(stores[which], engine, request) as store:
        table = asking(store)
        assert _same(rs, store, cases) == len(rs.runs)
        quality, paid, ranked = question_quality(store), payoff(store), agent_ranking(store)
    assert len(paid) == 7 and paid["score_gain_pp"].notna().sum() >= 3 and len(ranked) == 9
    assert any("gain from asking" in sentence for sentence in ranked.attrs["answer"])
    # tables with something in them: the example's nine agents, Ambig-DS's four with CalibScore's interval (the
    # others have no fully specified runs with the tool), and a sentence on it; seven with questions, five with Ask-F1
    assert len(table) == 9 and table["calib_score_ci_low"].notna().sum() == 4
    assert len(quality) == 7 and quality["ask_f1_ci_low"].notna().sum() >= 5 and quality.attrs["answer"]
    assert any("CalibScore" in sentence for sentence in table.attrs["answer"])


def test_every_harness_fixture_gives_the_same_answer_over_a_store(tmp_path):
    """The harnesses' own output (HIL-Bench, Ambig-DS, MCP-Atlas), each as a store: the same asking table, rankings
    and comparisons, or the same refusal, where they have no runs for them."""
    if not HARNESS.is_dir():
        pytest.skip(f"the harness fixtures are not here ({HARNESS}): they come with the shared fixtures")
    compared = 0
    for folder in sorted(p for p in HARNESS.iterdir() if p.is_dir()):
        try:
            rs = ambiglib.load(folder, quiet=True)
        except ambiglib.errors.AmbiglibError:  # (a folder written with options a bare load does not take)
            continue
        rs.to_parquet(tmp_path / folder.name, partition_by=("benchmark", "model"))
        with engines.on_store(tmp_path / folder.name) as store:
            _same(rs, store, FEWER)
        compared += 1
    assert compared >= 8


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_the_simulator_at_100x_gives_the_same_answer(tmp_path_factory, engine, request):
    """48,700 runs, partitioned by benchmark and model."""
    store = simulator_store(tmp_path_factory)
    rs = ambiglib.load(store, quiet=True)
    with on_engine(store, engine, request) as handle:
        assert _same(rs, handle, SPARK if engine == "spark" else FEWER) == 48_700


@pytest.mark.parametrize("engine, seeds", [("duckdb", range(6)), ("spark", range(1))])
def test_the_fuzz_corpus_valid_logs_give_the_same_answer(tmp_path, engine, seeds, request):
    """The example with random byte damage (three mutations a log), loaded leniently and written as a store: the
    same answer and rankings, or the same refusal, through the engine."""
    compared = 0
    for rs, path in fuzzed_stores(tmp_path, seeds):
        if path is None:  # (refused at write: the engine tests count these)
            continue
        with on_engine(path, engine, request) as store:
            _same(rs, store, ANSWERS[:5] + COMPARISONS[::9] if engine == "duckdb" else ANSWERS[:5])
        compared += 1
    assert compared >= max(1, len(seeds) * 2 // 3)


def _hand_store(tmp_path: Path, records: list[dict]) -> tuple[ambiglib.RunSet, Path]:
    rs = ambiglib.RunSet.from_records(records)
    rs.to_parquet(tmp_path / "hand", partition_by=("benchmark", "model"))
    return ambiglib.load(tmp_path / "hand", quiet=True), tmp_path / "hand"


def _asking_runs(model: str, questions, n_tasks: int = 4) -> list[dict]:
    return [run(f"t{i}", model=model, trial=trial, status="ok", passed=bool((i + trial) % 2),
                score=float((i + trial) % 2), questions=questions(i, trial))
            for i in range(n_tasks) for trial in (1, 2)]


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_agents_left_out_of_ask_f1_are_left_out_and_named_alike_over_a_store(tmp_path, engine, request):
    """Four agents: b asks a question the log does not attribute, c one naming a blocker its task does not register;
    both are left out of precision, recall and Ask-F1 and named, a and d are ranked, over the store as over the
    loaded log (the opening's table and the rankings with their notes)."""
    records = [task(f"t{i}", 2) for i in range(4)]
    records += _asking_runs("a", lambda i, t: [q("b0"), q("b1")] if i % 2 else [q("b0")])
    records += _asking_runs("b", lambda i, t: [q("b0"), {"text": "?", "attributed": False}] if i == 2 else [q("b1")])
    records += _asking_runs("c", lambda i, t: [q("zz")] if (i, t) == (3, 2) else [q("b0")])
    records += _asking_runs("d", lambda i, t: [] if t == 1 else [q("b1")])
    rs, path = _hand_store(tmp_path, records)
    with on_engine(path, engine, request) as store:
        _same(rs, store, [(question_quality, {})] + [
            (fn, {"metric": metric, "between": "model"}) for fn in (rank_agents, ranking_pairs, paired_comparison)
            for metric in ("ask_f1", "precision", "recall", "questions_per_run")])
        table = question_quality(store)
    shown = table.set_index("model")
    assert shown.loc[["a", "d"], "ask_f1"].notna().all() and shown.loc[["b", "c"], "ask_f1"].isna().all()
    said = table.attrs["empty"]["ask_f1"]
    assert "b" in said and "not attributed to a blocker" in said and "names blocker 'zz'" in said


def test_a_task_with_no_record_is_ask_f1_s_refusal_alike_over_a_store(tmp_path):
    """A run on a task with no record: recall is unknown; the opening says so for every agent, the ranking of Ask-F1
    is refused, each in the loaded log's words."""
    records = [task(f"t{i}", 2) for i in range(3)]
    records += _asking_runs("a", lambda i, t: [q("b0")]) + _asking_runs("b", lambda i, t: [q("b1"), q("b0")])
    rs, path = _hand_store(tmp_path, records)
    with engines.on_store(path) as store:
        _same(rs, store, [(question_quality, {}), (rank_agents, {"metric": "ask_f1"}),
                          (paired_comparison, {"metric": "recall"}), (rank_agents, {"metric": "questions_per_run"})])
        assert "no task record for" in question_quality(store).attrs["empty"]["ask_f1"]


def test_what_is_not_computed_over_a_store_yet_is_refused_with_why(stores, tmp_path):
    with engines.on_store(stores["example"]) as store:
        with pytest.raises(engines.NotPooled, match="judge_score is not compared over an engine yet"):
            paired_comparison(store, metric="judge_score")
        with pytest.raises(engines.NotPooled, match="between='ask_tool' is not computed over an engine yet"):
            rank_agents(store, metric="mean_score", between="ask_tool")
        with pytest.raises(engines.NotPooled, match="between='log' is not computed over an engine yet"):
            rank_agents(store, metric="ask_rate", between="log")
    judged = [task("t1", 2), run("t1", model="a", status="ok", questions=[q("b0")],
                                 labels=[{"facet": "quality", "judge": "j", "label": "4", "q_index": 0}])]
    _, path = _hand_store(tmp_path, judged)
    with engines.on_store(path) as store, pytest.raises(engines.NotPooled, match="judges score single questions"):
        question_quality(store)
    both = ambiglib.load({"before": EXAMPLE, "after": EXAMPLE}, quiet=True)
    both.to_parquet(tmp_path / "logs", partition_by=("benchmark", "model"))
    with engines.on_store(tmp_path / "logs") as store:
        for fn in (asking, question_quality, payoff, agent_ranking, agent_comparison):
            with pytest.raises(engines.NotPooled, match="several logs loaded together"):
                fn(store)
        with pytest.raises(engines.NotPooled, match="several logs loaded together"):
            rank_agents(store, metric="calib_score")


def test_the_probability_of_improvement_from_runs_or_their_counts_is_the_definition_by_hand():
    """rliable's definition on two tasks by hand: task 1, a's runs (1, 0) against b's (0): of the 2 pairs one win
    and one tie, 0.75; task 2, a (0.5) against b (0.5, 1, 1): a tie and two losses, 1/6. Their mean: 11/24. The same
    runs given as counts a (task, value) give the same bits."""
    a = pd.DataFrame({"task_id": ["t1", "t1", "t2"], "value": [1.0, 0.0, 0.5]})
    b = pd.DataFrame({"task_id": ["t2", "t1", "t2", "t2"], "value": [1.0, 0.0, 0.5, 1.0]})
    assert prob_improvement(a, b) == pytest.approx(11 / 24, abs=1e-15)
    counted = b.groupby(["task_id", "value"], as_index=False).size().rename(columns={"size": "n"})
    assert prob_improvement(a, counted.sample(frac=1, random_state=1)) == prob_improvement(a, b)
    rng = np.random.default_rng(0)
    many = pd.DataFrame({"task_id": rng.integers(0, 40, 3000).astype(str), "value": rng.integers(0, 3, 3000) / 2})
    other = many.sample(frac=1, random_state=2).assign(value=lambda f: rng.integers(0, 3, len(f)) / 2)
    counts = other.groupby(["task_id", "value"], as_index=False).size().rename(columns={"size": "n"})
    assert prob_improvement(many, counts) == prob_improvement(many.iloc[::-1], other)


def test_the_probability_of_improvement_is_its_definition_over_every_pair_of_runs():
    """rliable's definition written out: within each task every (run of a, run of b) pair, a win 1, a tie 1/2, their
    mean; then the mean over the tasks both ran. 600 random logs of 0/1, quarter, rounded and continuous values,
    some tasks one side lacks, and b as counts a (task, value) in a fifth of them: the same value as
    ``prob_improvement``'s binary search (its sums are halves times counts, exact; the tasks averaged in order)."""
    rng = np.random.default_rng(7)

    def by_pairs(a: pd.DataFrame, b: pd.DataFrame) -> float:
        b = b.loc[b.index.repeat(b["n"])] if "n" in b.columns else b
        shares = []
        for t in sorted(set(a["task_id"]) & set(b["task_id"])):
            x, y = a.loc[a["task_id"] == t, "value"].to_numpy(), b.loc[b["task_id"] == t, "value"].to_numpy()
            shares.append(np.mean([1.0 if u > v else 0.5 if u == v else 0.0 for u in x for v in y]))
        return float(np.mean(shares)) if shares else float("nan")

    for i in range(600):
        kind = i % 4
        def draw(n: int, kind: int = kind) -> pd.DataFrame:
            tasks = np.char.add("t", rng.integers(0, 12, n).astype(str))
            values = [rng.integers(0, 2, n).astype(float), rng.integers(0, 5, n) / 4, rng.random(n).round(1),
                      rng.random(n)][kind]
            return pd.DataFrame({"task_id": tasks, "value": values})
        a, b = draw(int(rng.integers(0, 40))), draw(int(rng.integers(0, 40)))
        if i % 5 == 0:
            b = b.groupby(["task_id", "value"], as_index=False).size().rename(columns={"size": "n"})
        ours, theirs = prob_improvement(a, b), by_pairs(a, b)
        assert (np.isnan(ours) and np.isnan(theirs)) or ours == pytest.approx(theirs, abs=1e-12), (i, ours, theirs)


def test_ambiglib_rank_over_a_store_prints_the_loaded_log_s_ranking(stores, capsys):
    """``ambiglib rank --engine duckdb`` prints what the loaded store gives, word for word; ``auto`` loads the store
    for the one metric no engine ranks yet (the judges' scores), and says so; ``--engine duckdb`` refuses it, naming
    it (exit 2)."""
    from ambiglib.cli import main

    def printed(*argv: str) -> tuple[int, str, str]:
        code = main(["rank", "--runs", str(stores["example"]), *argv])
        out, err = capsys.readouterr()
        return code, out, err

    for options in (["--metric", "calib_score"], ["--metric", "ask_rate", "--condition", "full+tool"], [],
                    ["--metric", "score_gain_pp", "--between", "policy"], ["--metric", "ask_f1"],
                    ["--metric", "ask_rate", "--between", "policy", "--format", "csv", "--pairs"]):
        loaded, engine = printed(*options, "--engine", "pandas"), printed(*options, "--engine", "duckdb")
        assert engine == loaded and loaded[0] == 0 and loaded[1].count("\n") > 3, options
    code, out, err = printed("--metric", "judge_score")
    assert (code, out) == printed("--metric", "judge_score", "--engine", "pandas")[:2]
    assert "an engine does not rank judge_score yet: it is ranked from the loaded store" in err
    code, out, err = printed("--metric", "judge_score", "--engine", "duckdb")
    assert code == 2 and out == "" and "judge_score is not compared over an engine yet" in err


def test_ambiglib_answers_over_a_store_prints_the_library_s_answers_and_the_loaded_log_s(stores, tmp_path, capsys):
    """``ambiglib answers`` prints the four tables ambiglib.answers gives for the loaded log, with the options given
    (json equal to the library's own tables, value for value), word for word the same through DuckDB as from the
    loaded store; auto loads the store for the one question an engine does not answer (judges scoring single
    questions) and says so, --engine duckdb refuses it by name (exit 2) and answers the rest."""
    import json

    from ambiglib.answers import QUESTIONS
    from ambiglib.cli import main
    from ambiglib.cli._arguments import ANSWERED

    assert tuple(QUESTIONS) == ANSWERED

    def printed(runs: Path, *argv: str) -> tuple[int, str, str]:
        code = main(["answers", "--runs", str(runs), *argv])
        out, err = capsys.readouterr()
        return code, out, err

    rs = ambiglib.load(EXAMPLE, quiet=True)
    for options, asked in (([], {}), (["--k", "1", "--confidence", "0.9", "--n-boot", "300", "--seed", "4"],
                                      {"k": 1, "confidence": 0.9, "n_boot": 300, "seed": 4})):
        code, out, err = printed(stores["example"], *options, "--format", "json")
        assert code == 0 and "computed by duckdb" in err
        given = json.loads(out)
        assert list(given) == list(QUESTIONS)
        for name, fn in (("asking", asking), ("question_quality", question_quality), ("payoff", payoff),
                         ("agent_ranking", agent_ranking)):
            mine = {k: v for k, v in asked.items() if k != "k" or name in ("payoff", "agent_ranking")}
            if name == "agent_ranking" and "confidence" in mine:
                mine["alpha"] = 0.1
            expected = fn(rs, **mine)
            assert given[name]["rows"] == json.loads(expected.to_json(orient="records")), (name, options)
            assert len(given[name]["rows"]) == len(expected) > 0
            assert given[name]["answer"] == list(expected.attrs["answer"]) and given[name]["question"] == QUESTIONS[name]
        for fmt in (["--format", "table"], ["--format", "md"], ["--format", "csv", "--question", "payoff"]):
            loaded, engine = printed(stores["example"], *options, *fmt, "--engine", "pandas"), \
                printed(stores["example"], *options, *fmt, "--engine", "duckdb")
            assert engine[:2] == loaded[:2] and loaded[0] == 0, fmt
    code, out, err = printed(stores["example"])
    # each card under a rule naming its question, then its sentences, then the question over its table
    assert code == 0 and all(f"── {i}/4 {text} ({name}) ─" in out for i, (name, text) in enumerate(QUESTIONS.items(), 1))
    assert all(out.count(text) == 2 for text in QUESTIONS.values())
    code, out, err = printed(stores["example"], "--format", "md", "--question", "asking")
    assert re.search(r"\|\s+–\s+\|", out) and "– in calib_score: CalibScore needs both" in out
    assert not re.search(r"\bnan\b", out)
    assert printed(stores["example"], "--format", "csv")[0] == 2
    code, out, err = printed(stores["example"], "--memory-limit", "lots")
    assert code == 2 and out == "" and "memory_limit must be a size DuckDB reads" in err and "(got 'lots')" in err
    judged = [task("t1", 2), task("t2", 2)] + [
        run(t, model=m, status="ok", questions=[q("b0")], score=s,
            labels=[{"facet": "quality", "judge": "j", "label": str(3 + (m == "a")), "q_index": 0}])
        for t, s in (("t1", 1.0), ("t2", 0.0)) for m in ("a", "b")]
    _, path = _hand_store(tmp_path, judged)
    code, out, err = printed(path, "--question", "question_quality", "--question", "asking")
    assert code == 0 and "question_quality is not computed over an engine here" in err
    assert "it is answered from the loaded store" in err and out == printed(path, "--question", "question_quality",
                                                                            "--question", "asking", "--engine",
                                                                            "pandas")[1]
    code, out, err = printed(path, "--question", "question_quality", "--question", "asking", "--engine", "duckdb")
    assert code == 2 and "ambiglib answers: question_quality:" in err and "judges score single questions" in err
    assert QUESTIONS["asking"] in out and QUESTIONS["question_quality"] not in out


def test_benchmarks_paired_one_at_a_time_are_found_whatever_their_names(tmp_path):
    """The value of information is paired a benchmark at a time, each found by its rank among the names in the
    engine's order (no name is written into the SQL): names whose order differs by case, accent, space or quote
    give the payoff and the gains the loaded log gives."""
    names = ["b", "B", "éclair", "a b", "it's", "Z\u00e9"]
    records = []
    for j, bench in enumerate(names):
        for i in range(3):
            records.append(task(f"t{i}", 2, benchmark=bench))
            for model in ("m1", "m2"):
                for tool in (True, False):
                    for trial in (1, 2):
                        records.append(run(f"t{i}", model=model, ask_tool=tool, trial=trial, status="ok",
                                           passed=bool((i + j + trial + tool) % 2), benchmark=bench,
                                           score=((i + j + trial) % 3) / 4 + 0.25 * tool,
                                           questions=[q("b0")] if tool and (i + trial) % 2 else []))
    rs, path = _hand_store(tmp_path, records)
    with engines.on_store(path) as store:
        _same(rs, store, [(payoff, {}), (payoff, {"k": 1}), (agent_ranking, {}),
                          (rank_agents, {"metric": "score_gain_pp"}), (paired_comparison, {"metric": "pass_gain_pp"})])
        assert len(payoff(store)) == 2 * len(names)


@pytest.mark.parametrize("limit", ["10KB", "1MB"])
def test_duckdb_out_of_memory_is_said_as_the_limit_s_not_the_store_s(stores, limit):
    """Under too small a memory_limit DuckDB runs out of memory (a real limit, set by hand here): the store is
    not damaged, so the error is not "could not read the store" but names the limit given and how to raise it."""
    with pytest.raises(ambiglib.errors.AmbiglibError) as caught, \
            engines.on_store(stores["example"], memory_limit=limit) as store:
        payoff(store)
    assert not isinstance(caught.value, ambiglib.errors.FormatError)
    assert f"DuckDB ran out of memory under its memory_limit ({limit})" in str(caught.value)
    assert "--memory-limit" in str(caught.value) and "\n" not in str(caught.value)


def test_duckdb_out_of_memory_while_the_store_s_views_are_made_is_said_as_the_limit_s(stores, monkeypatch):
    """DuckDB can run out of memory before any query, while the store's files are registered as views (seen under
    memory_limit="10KB" in CI, not every time; forced here under a limit that does not run out): that too names the
    limit, and leaves no connection behind."""
    import duckdb

    from ambiglib.engines import _duckdb

    made: list = []
    real = _duckdb.DuckDBEngine._view

    def view(self, frame):
        made.append(self)
        if len(made) > 1:  # the first view is made; the second runs out
            raise duckdb.OutOfMemoryException("Out of Memory Error: could not allocate block of size 4.0 KiB")
        return real(self, frame)

    monkeypatch.setattr(_duckdb.DuckDBEngine, "_view", view)
    with pytest.raises(ambiglib.errors.AmbiglibError) as caught:
        engines.on_store(stores["example"], memory_limit="1GB")
    assert not isinstance(caught.value, ambiglib.errors.FormatError)
    assert str(caught.value).startswith("DuckDB ran out of memory under its memory_limit (1GB)")
    assert "could not allocate block" in str(caught.value) and "\n" not in str(caught.value)
    engine = made[0]
    assert not engine.spill.exists()  # closed: its spill folder removed
    with pytest.raises(duckdb.ConnectionException):
        engine.con.execute("SELECT 1")


def test_a_store_handle_keeps_its_large_frames_within_a_budget_least_recently_used_let_go_first(stores, monkeypatch):
    """``StoreMetrics.memo`` keeps large values up to ``KEPT_BYTES`` together: past it, the least recently used is let
    go (a small value is always kept), and a value let go is computed again where it is asked for."""
    from ambiglib.engines import _store

    mib = 1 << 20
    monkeypatch.setattr(_store, "KEPT_BYTES", int(2.5 * mib))
    monkeypatch.setattr(_store, "_LARGE", mib)
    calls: list[str] = []

    def frame(name: str):
        def compute() -> pd.DataFrame:
            calls.append(name)
            return pd.DataFrame({"x": np.zeros(mib // 8)})  # 1 MiB
        return compute

    with engines.on_store(stores["example"]) as m:
        m.memo("small", lambda: calls.append("small") or 1)
        for name in ("a", "b"):
            m.memo(name, frame(name))
        m.memo("a", frame("a"))  # a used again: b is now the least recently used
        m.memo("c", frame("c"))  # three MiB past 2.5: b goes
        assert set(m._memo) == {"small", "a", "c"}
        m.memo("a", frame("a"))
        m.memo("small", lambda: calls.append("small again"))  # kept: not computed again
        m.memo("b", frame("b"))  # computed again; c goes (a was used after it)
        assert calls == ["small", "a", "b", "c", "b"] and set(m._memo) == {"small", "a", "b"}


def test_the_answers_are_the_same_when_the_handle_keeps_no_frame(stores, monkeypatch):
    """With a budget of nothing (every frame computed again where asked), the answers are the same tables, notes
    and sentences as with every frame kept."""
    from ambiglib.engines import _store

    with engines.on_store(stores["example"]) as kept:
        expected = [f(kept) for f in (asking, payoff, agent_ranking)]
    monkeypatch.setattr(_store, "KEPT_BYTES", 0)
    monkeypatch.setattr(_store, "_LARGE", 1)
    with engines.on_store(stores["example"]) as bare:
        got = [f(bare) for f in (asking, payoff, agent_ranking)]
        assert all(_store._nbytes(v) == 0 for v in bare._memo.values())
    for want, have in zip(expected, got):
        pd.testing.assert_frame_equal(have, want, check_exact=True)
        assert have.attrs == want.attrs
