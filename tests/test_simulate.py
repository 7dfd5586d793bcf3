"""The example run log: deterministic, valid, and shaped like each benchmark's design."""

from __future__ import annotations

from pathlib import Path

import ambiglib
from ambiglib.simulate import DEFAULT_SEED, example_records, write_example

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example"


def test_committed_example_is_what_the_simulator_writes(tmp_path):
    # data/example must be regenerated (make example) whenever the simulator changes
    written = write_example(tmp_path, seed=DEFAULT_SEED)
    assert sorted(p.name for p in written) == sorted(p.name for p in EXAMPLE.glob("*.jsonl"))
    for file in written:
        assert file.read_bytes() == (EXAMPLE / file.name).read_bytes(), file.name


def test_same_seed_same_records_other_seed_other_records():
    assert example_records(7) == example_records(7)
    assert example_records(7) != example_records(8)


def test_example_loads_cleanly_with_each_benchmarks_design():
    runset = ambiglib.load(EXAMPLE, quiet=True)
    runs = runset.runs
    counts = runs.groupby("benchmark").size().to_dict()
    # Ambig-DS: 2 models x 8 tasks x (3 solve conditions + 2 policies x 2 specs ask-only)
    # HIL-Bench: 2 models x 12 tasks x 3 modes x 3 passes; LHAW: 2 models x 9 variants x 3 conditions x 3 trials,
    # plus opus-4.5's supervisor-persona arm on the 3 MCP-Atlas variants
    assert counts == {"ambig-ds": 2 * 8 * 7, "hil-bench": 2 * 12 * 3 * 3, "lhaw": 2 * 9 * 3 * 3 + 3 * 3}
    assert set(runs["suite"]) == {"target", "sql", "swe", "tac", "mcp-atlas", "swe-bench-pro"}
    # no run without the ask tool asks
    assert (runs.loc[~runs["ask_tool"].astype(bool), "n_questions"] == 0).all()
    # HIL-Bench's oracle answers at most three questions per run
    hil = runset.questions.merge(runs[["run_id", "benchmark"]], on="run_id")
    hil = hil[hil["benchmark"] == "hil-bench"]
    assert hil.groupby("run_id")["relevant"].sum().max() <= 3
    # every HIL-Bench blocker a question names is registered for that task
    named = hil[hil["relevant"]].merge(runs[["run_id", "variant_id"]], on="run_id")
    registered = set(zip(runset.blockers["variant_id"], runset.blockers["blocker_id"]))
    assert set(zip(named["variant_id"], named["blocker_id"])) <= registered
    # HIL-Bench tasks carry 3 to 5 blockers, as the real registries do
    hil_tasks = runset.tasks[runset.tasks["benchmark"] == "hil-bench"]
    assert hil_tasks["n_blockers"].between(3, 5).all()
