"""τ-bench's published trajectories (tests/fixtures/tau-bench: GPT-4o, airline, 50 tasks × 4 trials, MIT):
every expected value is computed here from the file with τ-bench's own rules (run.py's ``display_metrics``:
success is a reward of 1 within 1e-6, pass^k = comb(c, k) / comb(num_trials, k) averaged over tasks), never
from the importer."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from math import comb
from pathlib import Path

import pytest

import ambiglib
from ambiglib import metrics
from ambiglib.errors import AmbiglibError

PUBLISHED = Path(__file__).resolve().parent / "fixtures" / "tau-bench" / "gpt-4o-airline.json.gz"


@pytest.fixture(scope="module")
def raw():
    return json.loads(gzip.decompress(PUBLISHED.read_bytes()))


@pytest.fixture
def log(tmp_path, raw):
    path = tmp_path / "gpt-4o-airline.json"
    path.write_text(json.dumps(raw, indent=2))
    return path


def _harness_pass_hat_k(raw, k):
    """run.py's display_metrics, as written there."""
    num_trials = len({r["trial"] for r in raw})
    c: Counter = Counter()
    for r in raw:
        c[r["task_id"]] += 1 if (1 - 1e-6) <= r["reward"] <= (1 + 1e-6) else 0
    return sum(comb(v, k) / comb(num_trials, k) for v in c.values()) / len(c)


def test_the_published_file_loads_strictly_as_one_run_per_task_and_trial(log, raw):
    rs = ambiglib.load(log)
    assert len(rs.runs) == len(raw) == 200
    assert set(rs.runs["benchmark"]) == {"tau-bench"} and set(rs.runs["suite"]) == {"airline"}
    assert set(rs.runs["model"]) == {"gpt-4o"}
    assert sorted(set(rs.runs["trial"])) == [1, 2, 3, 4]  # 1-based; the original 0-based kept in meta
    assert rs.runs["task_id"].nunique() == 50
    rewards = {(str(r["task_id"]), r["trial"] + 1): r["reward"] for r in raw}
    for task, trial, score in zip(rs.runs["task_id"], rs.runs["trial"], rs.runs["score"]):
        assert score == rewards[(task, trial)]


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_pass_hat_k_equals_the_harness_own_computation(log, raw, k):
    out = metrics.pass_hat_k(ambiglib.load(log), k=k).iloc[0]
    assert out["n_tasks"] == 50
    assert out["pass_hat_k"] == pytest.approx(_harness_pass_hat_k(raw, k))


def test_questions_are_the_agents_asking_messages_with_the_users_replies(log, raw):
    rs = ambiglib.load(log)
    expected = []
    for r in raw:
        msgs = r["traj"]
        for i, m in enumerate(msgs):
            if m["role"] == "assistant" and not m.get("tool_calls") and "?" in (m.get("content") or ""):
                nxt = next((n for n in msgs[i + 1:] if n["role"] in ("user", "assistant")), None)
                expected.append((str(r["task_id"]), r["trial"] + 1, m["content"],
                                 nxt["content"] if nxt and nxt["role"] == "user" else None))
    q = rs.questions.merge(rs.runs[["run_id", "task_id", "trial"]], on="run_id")
    got = sorted(zip(q["task_id"], q["trial"], q["text"], q["response"].astype(object).where(q["response"].notna(), None)))
    assert got == sorted(expected) and len(got) > 0
    assert not q["attributed"].any()  # τ-bench registers no blockers


def test_the_flip_share_and_the_rerun_spread_by_hand_from_the_file(log, raw):
    """Issue 55: the flip share (26 of 50 tasks flip) is the agent's consistency; how far a rerun moves its pass
    rate is a few points, from each task's own trials: √(2 Σ s²/K)/n with s² = c(K − c)/(K(K − 1)), as the four
    published trials' pass rates (0.42, 0.44, 0.40, 0.42) show."""
    verdicts: dict = {}
    for r in raw:
        verdicts.setdefault(r["task_id"], []).append((1 - 1e-6) <= r["reward"] <= (1 + 1e-6))
    flipping = sum(1 for v in verdicts.values() if len(set(v)) == 2)
    rs = ambiglib.load(log)
    out = metrics.flip_share(rs).iloc[0]
    assert (out["n_tasks"], out["n_flipping"]) == (50, flipping) and out["flip_share"] == pytest.approx(0.52)
    s2 = [sum(v) * (len(v) - sum(v)) / (len(v) * (len(v) - 1)) for v in verdicts.values()]
    spread = metrics.rerun_sd(rs).iloc[0]
    assert spread["rerun_sd"] == pytest.approx((2 * sum(x / 4 for x in s2)) ** 0.5 / 50)
    assert spread["rerun_sd_one_trial"] == pytest.approx((2 * sum(s2)) ** 0.5 / 50)
    assert spread["rerun_sd_one_trial"] < 0.1 < out["flip_share"]
    per_trial = Counter()
    for r in raw:
        per_trial[r["trial"]] += (1 - 1e-6) <= r["reward"] <= (1 + 1e-6)
    assert sorted(v / 50 for v in per_trial.values()) == [0.40, 0.42, 0.42, 0.44]


def test_bad_records_are_named_and_nothing_is_dropped_unseen(tmp_path, raw):
    bad = [dict(raw[0], reward="1"), dict(raw[1], trial=-1), raw[2], raw[2], {"task_id": 3}]
    path = tmp_path / "gpt-4o-airline.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(AmbiglibError, match=r"gpt-4o-airline.json:1: record 1: 'reward' must be a number"):
        ambiglib.load(path)
    rs, errors = ambiglib.load(path, strict=False)
    assert len(rs.runs) == 1
    assert [e.field for e in errors] == ["reward", "trial", "trial", "reward"]
    assert "again" in errors[2].message


@pytest.mark.parametrize("edit", [lambda m: m.update(role={"x": 1}), lambda m: m.update(content={"x": 1})])
def test_a_message_of_another_shape_is_refused_not_misread(tmp_path, raw, edit):
    # found by the fuzzer: an assistant message whose role or text was an object changed the run's questions
    # and steps without a word
    records = json.loads(json.dumps(raw[:3]))
    edit(next(m for m in records[1]["traj"] if m["role"] == "assistant"))
    path = tmp_path / "gpt-4o-airline.json"
    path.write_text(json.dumps(records))
    rs, errors = ambiglib.load(path, strict=False)
    assert len(rs.runs) == 2 and [e.field for e in errors] == ["traj"] and errors[0].line == 2
