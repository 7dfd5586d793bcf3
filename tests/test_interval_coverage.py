"""How well each interval covers at a design (ambiglib.stats._coverage): the lookup by hand, the measured table
against a fresh run of the simulation that made it, and the warning a table carries where its design's interval
covered less than 0.93."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from ambiglib import RunSet
from ambiglib.answers import _headline as headline
from ambiglib.simulate._leaderboard import SimAgent, leaderboard_records
from ambiglib.stats._coverage import MEASURED, coverage_at, warning

ROOT = Path(__file__).resolve().parent.parent


def test_coverage_between_designs_is_interpolated_on_log_tasks():
    table = MEASURED["questions per run"]
    w = (np.log(10) - np.log(8)) / (np.log(12) - np.log(8))
    assert coverage_at("questions per run", 10, 1) == pytest.approx(table[(8, 1)] + w * (table[(12, 1)] - table[(8, 1)]))
    assert coverage_at("questions per run", 500, 3) == table[(60, 3)]  # held at 60's beyond
    assert coverage_at("questions per run", 2, 1) is None  # not measured so small
    assert coverage_at("an interval nobody measured", 20, 1) is None
    assert coverage_at("recall", 20, 2) == MEASURED["recall"][(20, 3)]  # 2 trials: the nearer of 1 and 3


def test_a_warning_is_given_below_0_93_and_below_eight_tasks_only():
    assert "covered 0.926 in simulation" in warning("questions per run", 8, 1, "b")
    assert warning("questions per run", 60, 3, "b") is None
    assert "fewer tasks than the 8" in warning("recall", 5, 3, "b")
    assert warning("nobody measured this", 5, 3) is None


def test_the_table_is_what_the_simulation_gives():
    """A fresh run of bench/coverage.py's section 7 at 8 tasks × 1 trial (600 replicates, another seed) lands within
    0.045 of every figure copied into MEASURED (3.5 standard errors at 0.95): the table was not mistyped."""
    spec = importlib.util.spec_from_file_location("ambiglib_bench_coverage", ROOT / "bench" / "coverage.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    got = bench.opening(8, 1, 600, np.random.default_rng(12345))
    for name, value in got.items():
        assert value == pytest.approx(MEASURED[name][(8, 1)], abs=0.045), name


def test_a_table_warns_where_its_design_covers_less_than_it_says():
    rs = RunSet.from_records(leaderboard_records([SimAgent("a"), SimAgent("b")], n_tasks=10, trials=1, seed=2))
    note = headline.question_quality(rs, n_boot=200).attrs["note"]
    covered = coverage_at("questions per run", 10, 1)
    assert covered < 0.93
    assert f"questions per run (leaderboard, 10 tasks × 1 trial): its 95% interval covered {covered:.3f}" in note
    small = RunSet.from_records(leaderboard_records([SimAgent("a")], n_tasks=6, trials=2, seed=2))
    assert "leaderboard (6 tasks): fewer tasks than the 8" in headline.payoff(small, n_boot=200).attrs["note"]
