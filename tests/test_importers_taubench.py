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
    expected = _questions_by_hand(raw)
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



def _first_call(records):
    """The first tool call of any assistant message: (record index, the call's 'function')."""
    for r, rec in enumerate(records):
        for m in rec["traj"]:
            if m["role"] == "assistant" and m.get("tool_calls"):
                return r, m["tool_calls"][0]["function"]
    raise AssertionError("no tool call in the records")


def _with_a_lone_surrogate(records):
    r, fn = _first_call(records)
    fn["arguments"] = "\ud800"  # text that is no JSON, kept as the call's raw text: half a UTF-16 pair
    return r


def _with_number_arguments(records):
    r, fn = _first_call(records)
    fn["arguments"] = 0.0  # the OpenAI message holds JSON text here, never a number
    return r


def _with_a_lone_surrogate_in_text(records):
    r = 1
    next(m for m in records[r]["traj"] if m["role"] == "assistant")["content"] = "\ud800?"
    return r


@pytest.mark.parametrize("damage", [_with_number_arguments, _with_a_lone_surrogate, _with_a_lone_surrogate_in_text])
def test_damage_only_the_conversation_holds_is_the_load_s_error(tmp_path, raw, damage):
    # found by the fuzzer (seed 9001): such a run loaded without a word and failed only when its conversation was
    # read (convert, a run page): its load now names the record and the turn
    records = json.loads(json.dumps(raw[:3]))
    r = damage(records)
    path = tmp_path / "gpt-4o-airline.json"
    path.write_text(json.dumps(records))
    rs, errors = ambiglib.load(path, strict=False)
    assert len(rs.runs) == 2 and len(errors) == 1 and errors[0].line == r + 1, errors
    assert errors[0].file == str(path) and f"record {r + 1}" in errors[0].message
    back = rs.to_jsonl(tmp_path / "back.jsonl")  # what loaded writes whole, conversations included
    assert len(ambiglib.load(back, quiet=True).runs) == 2

# ----------------------------------------------------------------------------- issue 56: names, errored runs, files
# Expected values come from τ-bench's own code (sierra-research/tau-bench, run.py and tau_bench/agents): the
# checkpoint name is run.py's f-string, an errored run is its except branch's record, an act/react trajectory is
# what ChatReActAgent.solve appends.


def _ckpt(strategy, model, *, temperature=0.0, start=0, end=-1, user_model="gpt-4o", user_strategy="llm",
          time_str="1127165200"):
    """run.py's ``ckpt_path`` file name, written as run.py writes it."""
    return (f"{strategy}-{model.split('/')[-1]}-{temperature}_range_{start}-{end}_user-{user_model}-{user_strategy}"
            f"_{time_str}.json")


def _errored(task_id, trial, error="litellm.RateLimitError: rate limit reached"):
    """run.py's except branch: ``EnvRunResult(task_id=idx, reward=0.0, info={"error": ..., "traceback": ...},
    traj=[], trial=i).model_dump()``."""
    return {"task_id": task_id, "reward": 0.0, "info": {"error": error, "traceback": "Traceback ...\n" + error},
            "traj": [], "trial": trial}


def _as_react(record, reasoning=True):
    """A tool-calling record's trajectory as ChatReActAgent.solve writes it (``react``; ``act`` without the
    thought): the system prompt is the wiki, its tools and the instruction; every agent message is text ending in
    ``Action:`` and a JSON action, followed by a ``user`` message: the user's reply to a ``respond`` action, else
    ``"API output: "`` and the tool's output. The thoughts of tool actions hold a ``?`` (they are no questions)."""
    traj = record["traj"]
    out = [{"role": "system", "content": traj[0]["content"] + "\n#Available tools\n[]\n# Instruction\n..."}]
    i = 1
    while i < len(traj):
        m = traj[i]
        if m["role"] != "assistant":
            out.append({"role": "user", "content": m["content"]})
            i += 1
            continue
        if m.get("tool_calls"):
            call = m["tool_calls"][0]["function"]
            action = {"name": call["name"], "arguments": json.loads(call["arguments"])}
            thought, reply = "Which record do I need? I look it up.", "API output: " + traj[i + 1]["content"]
        else:
            action = {"name": "respond", "arguments": {"content": m["content"]}}
            thought, reply = "I can answer the user now.", traj[i + 1]["content"] if i + 1 < len(traj) else None
        text = (f"Thought:\n{thought}\n" if reasoning else "") + "Action:\n" + json.dumps(action)
        out.append({"role": "assistant", "content": text, "tool_calls": None, "function_call": None})
        if reply is not None:
            out.append({"role": "user", "content": reply})
        i += 2
    return dict(record, traj=out)


def _as_retail(record):
    """A record whose trajectory opens with the retail policy (the retail wiki's first line), to stand for a run
    of the other domain."""
    traj = [dict(record["traj"][0], content="# Retail agent policy\n\nAs a retail agent, you can help users.")]
    return dict(record, traj=traj + record["traj"][1:])


def _questions_by_hand(records):
    """The agent's messages to the user that ask, and the user's replies, by the tool-calling rule."""
    out = []
    for r in records:
        msgs = r["traj"]
        for i, m in enumerate(msgs):
            if m["role"] == "assistant" and not m.get("tool_calls") and "?" in (m.get("content") or ""):
                nxt = next((n for n in msgs[i + 1:] if n["role"] in ("user", "assistant")), None)
                out.append((str(r["task_id"]), r["trial"] + 1, m["content"],
                            nxt["content"] if nxt and nxt["role"] == "user" else None))
    return sorted(out)


def _questions_loaded(rs):
    q = rs.questions.merge(rs.runs[["run_id", "task_id", "trial"]], on="run_id")
    return sorted(zip(q["task_id"], q["trial"], q["text"],
                      q["response"].astype(object).where(q["response"].notna(), None)))


@pytest.mark.parametrize("strategy", ["tool-calling", "act", "react", "few-shot"])
@pytest.mark.parametrize("model", ["gpt-4o", "openai/gpt-4o-2024-08-06", "claude-3-5-sonnet-20240620",
                                   "meta-llama/Meta-Llama-3.1-70B-Instruct"])
def test_run_py_checkpoint_names_give_the_model_and_the_strategy(tmp_path, raw, strategy, model):
    # issue 56: 'tool-calling-gpt-4o-0.0_range_...' gave the model 'calling-gpt-4o' and kept no strategy
    name = _ckpt(strategy, model, temperature=0.7, start=5, end=25, user_model="claude-3-5-sonnet-20240620",
                 user_strategy="react")
    records = raw[:8] if strategy in ("tool-calling", "few-shot") else [_as_react(r, strategy == "react")
                                                                        for r in raw[:8]]
    (tmp_path / name).write_text(json.dumps(records, indent=2))
    rs = ambiglib.load(tmp_path / name)
    assert set(rs.runs["model"]) == {model.split("/")[-1]}
    # issue 71: the strategy, the temperature and the user simulator, as the name writes them, are the agent
    assert set(rs.runs["policy"]) == {f"{strategy}, temperature 0.7, user claude-3-5-sonnet-20240620 (react)"}
    meta = json.loads(rs.runs["meta"].iloc[0])["tau_bench"]
    assert (meta["agent_strategy"], meta["temperature"], meta["user_model"], meta["user_strategy"]) == (
        strategy, 0.7, "claude-3-5-sonnet-20240620", "react")


def test_act_and_react_runs_of_one_model_are_two_agents_not_a_collision(tmp_path, raw):
    folder = tmp_path / "results"
    folder.mkdir()
    for strategy in ("act", "react"):
        records = [_as_react(r, strategy == "react") for r in raw[:20]]
        (folder / _ckpt(strategy, "gpt-4o")).write_text(json.dumps(records, indent=2))
    rs = ambiglib.load(folder)  # strict: no duplicate-run error
    assert len(rs.runs) == 40 and rs.runs["run_id"].nunique() == 40
    assert {policy: set(models) for policy, models in rs.runs.groupby("policy")["model"]} == {
        "act, temperature 0.0, user gpt-4o (llm)": {"gpt-4o"}, "react, temperature 0.0, user gpt-4o (llm)": {"gpt-4o"}}


# ----------------------------------------------------------------------------- issue 71: which agent a file's runs are
# run.py passes its --temperature to every agent it builds (agent_factory) and its --user-model and --user-strategy to
# the user simulator (get_env); all three are in its checkpoint name, beside the task range and the start time.


def _file_of(source: str) -> str:
    return Path(source.rsplit(":", 1)[0]).name


@pytest.mark.parametrize("differ", [{"temperature": 0.7}, {"user_model": "claude-3-5-sonnet-20240620"},
                                    {"user_strategy": "react"}], ids=["temperature", "user-model", "user-strategy"])
def test_checkpoints_differing_only_in_one_setting_are_two_agents(tmp_path, raw, differ):
    # issue 71: the two files' 200 runs each made one key: strict raised, lenient kept one file's and rejected 200
    folder = tmp_path / "results"
    folder.mkdir()
    names = [_ckpt("tool-calling", "gpt-4o"), _ckpt("tool-calling", "gpt-4o", **differ)]
    assert len(set(names)) == 2
    for name in names:
        (folder / name).write_text(json.dumps(raw, indent=2))
    rs, errors = ambiglib.load(folder, strict=False)
    assert errors == [] and len(rs.runs) == 2 * len(raw) == 400
    by_policy = {policy: set(map(_file_of, sources)) for policy, sources in rs.runs.groupby("policy")["source"]}
    assert len(by_policy) == 2 and all(len(files) == 1 for files in by_policy.values())
    assert sorted(f for files in by_policy.values() for f in files) == sorted(names)
    default = "tool-calling, temperature 0.0, user gpt-4o (llm)"
    assert default in by_policy and by_policy[default] == {names[0]}
    for policy in by_policy:  # each agent is its own file, whole: run.py's pass^k of that file
        for k in (1, 4):
            out = metrics.pass_hat_k(rs.filter(policy=policy), k=k).iloc[0]
            assert out["n_tasks"] == 50 and out["pass_hat_k"] == pytest.approx(_harness_pass_hat_k(raw, k))
    assert len(ambiglib.load(folder).runs) == 400  # strict: no duplicate run


def test_shards_of_two_temperatures_over_disjoint_tasks_do_not_merge_into_one_agent(tmp_path, raw):
    # issue 71: tasks 0-24 at temperature 0.0 and 25-49 at 0.7 loaded as one agent of 50 tasks, without a word
    folder = tmp_path / "results"
    folder.mkdir()
    low = [r for r in raw if r["task_id"] < 25]
    high = [r for r in raw if r["task_id"] >= 25]
    (folder / _ckpt("tool-calling", "gpt-4o", start=0, end=25)).write_text(json.dumps(low, indent=2))
    (folder / _ckpt("tool-calling", "gpt-4o", temperature=0.7, start=25, end=50, time_str="1127180000")).write_text(
        json.dumps(high, indent=2))
    rs = ambiglib.load(folder)
    tasks = {policy: set(t) for policy, t in rs.runs.groupby("policy")["task_id"]}
    assert tasks == {"tool-calling, temperature 0.0, user gpt-4o (llm)": {str(r["task_id"]) for r in low},
                     "tool-calling, temperature 0.7, user gpt-4o (llm)": {str(r["task_id"]) for r in high}}
    with pytest.raises(AmbiglibError, match="policy"):  # pooled by model alone: refused, the policy differs
        metrics.pass_hat_k(rs, k=1)
    out = metrics.pass_hat_k(rs, k=2, by=("suite", "model", "policy")).set_index("policy")["pass_hat_k"]
    assert out.to_dict() == pytest.approx({"tool-calling, temperature 0.0, user gpt-4o (llm)":
                                           _harness_pass_hat_k(low, 2),
                                           "tool-calling, temperature 0.7, user gpt-4o (llm)":
                                           _harness_pass_hat_k(high, 2)})


def test_shards_of_one_agent_started_at_other_times_are_one_agent(tmp_path, raw):
    """The task range and the start time are no setting of the agent: run.py's shards of one configuration (two
    ``--start-index``/``--end-index`` runs) are one agent, its pass^k run.py's over the tasks of both."""
    folder = tmp_path / "results"
    folder.mkdir()
    low = [r for r in raw if r["task_id"] < 25]
    high = [r for r in raw if r["task_id"] >= 25]
    (folder / _ckpt("react", "gpt-4o", start=0, end=25)).write_text(json.dumps([_as_react(r) for r in low]))
    (folder / _ckpt("react", "gpt-4o", start=25, end=-1, time_str="1128090000")).write_text(
        json.dumps([_as_react(r) for r in high]))
    rs = ambiglib.load(folder)
    assert set(rs.runs["policy"]) == {"react, temperature 0.0, user gpt-4o (llm)"} and len(rs.runs) == len(raw)
    out = metrics.pass_hat_k(rs, k=3).iloc[0]
    assert out["n_tasks"] == 50 and out["pass_hat_k"] == pytest.approx(_harness_pass_hat_k(raw, 3))


def test_a_user_part_of_another_shape_is_the_agent_without_its_start_time(tmp_path, raw):
    """A user strategy run.py's UserStrategy does not list (a fork's): the user part is kept as written, but for the
    start time run.py appends, so that two shards of that user are still one agent."""
    folder = tmp_path / "results"
    folder.mkdir()
    for start, end, time_str in ((0, 25, "1127165200"), (25, 50, "1127170000")):
        part = [r for r in raw if start <= r["task_id"] < end]
        (folder / _ckpt("tool-calling", "gpt-4o", start=start, end=end, user_strategy="persona",
                        time_str=time_str)).write_text(json.dumps(part))
    rs = ambiglib.load(folder)
    assert set(rs.runs["policy"]) == {"tool-calling, temperature 0.0, user gpt-4o-persona"} and len(rs.runs) == 200


@pytest.mark.parametrize("reasoning", [True, False], ids=["react", "act"])
def test_an_act_or_react_agent_asks_in_its_respond_actions_only(tmp_path, raw, reasoning):
    """The same conversations written by ChatReActAgent: its questions are the ``respond`` actions' text that
    holds a ``?`` (the user saw that text, not the thought or the JSON around it), answered by the user's
    reply; a tool action (its next 'user' message is 'API output: ...') is no question, whatever its thought."""
    strategy = "react" if reasoning else "act"
    path = tmp_path / _ckpt(strategy, "gpt-4o")
    path.write_text(json.dumps([_as_react(r, reasoning) for r in raw[:40]], indent=2))
    rs = ambiglib.load(path)
    expected = _questions_by_hand(raw[:40])
    assert len(expected) > 0 and _questions_loaded(rs) == expected
    steps = {(str(r["task_id"]), r["trial"] + 1): sum(m["role"] == "assistant" for m in r["traj"]) for r in raw[:40]}
    assert {(t, k): s for t, k, s in zip(rs.runs["task_id"], rs.runs["trial"], rs.runs["steps"])} == steps


def test_errored_runs_are_in_their_files_domain(tmp_path, raw):
    # issue 56: an errored run (traj []) landed in suite 'tau-bench' while its file's runs are 'airline'
    records = raw[:20]
    records[3], records[11] = _errored(records[3]["task_id"], records[3]["trial"]), _errored(99, 0)
    path = tmp_path / _ckpt("tool-calling", "gpt-4o")
    path.write_text(json.dumps(records, indent=2))
    rs = ambiglib.load(path)
    assert len(rs.runs) == 20 and set(rs.runs["suite"]) == {"airline"}
    errored = rs.runs[rs.runs["status"] == "error"]
    assert sorted(errored["task_id"]) == sorted([str(raw[3]["task_id"]), "99"])
    assert errored["score"].isna().all()


def test_two_domains_errored_runs_do_not_collide(tmp_path, raw):
    # issue 56: an airline and a retail file, each with an errored task 0 trial 0, made one run key twice
    folder = tmp_path / "results"
    folder.mkdir()
    airline = raw[4:12] + [_errored(0, 7)]
    retail = [_as_retail(r) for r in raw[4:12]] + [_errored(0, 7)]
    (folder / _ckpt("tool-calling", "gpt-4o", time_str="1127100000")).write_text(json.dumps(airline, indent=2))
    (folder / _ckpt("tool-calling", "gpt-4o", time_str="1127110000")).write_text(json.dumps(retail, indent=2))
    rs = ambiglib.load(folder)
    errored = rs.runs[rs.runs["status"] == "error"]
    assert sorted(errored["suite"]) == ["airline", "retail"] and len(rs.runs) == 18


def test_an_errored_run_whose_domain_cannot_be_told_is_refused_saying_why(tmp_path, raw):
    only_errors = tmp_path / "a" / _ckpt("tool-calling", "gpt-4o")
    only_errors.parent.mkdir()
    only_errors.write_text(json.dumps([_errored(0, 0), _errored(1, 0)], indent=2))
    with pytest.raises(AmbiglibError, match=r":1: record 1: .*domain"):
        ambiglib.load(only_errors)
    rs, errors = ambiglib.load(only_errors, strict=False)
    assert len(rs.runs) == 0 and [(e.line, e.field) for e in errors] == [(1, "traj"), (2, "traj")]
    mixed = tmp_path / "b" / _ckpt("tool-calling", "gpt-4o")
    mixed.parent.mkdir()
    mixed.write_text(json.dumps(raw[:3] + [_as_retail(raw[3]), _errored(60, 0)], indent=2))
    rs, errors = ambiglib.load(mixed, strict=False)
    assert len(rs.runs) == 4 and [(e.line, e.field) for e in errors] == [(5, "traj")]
    assert "airline" in errors[0].message and "retail" in errors[0].message
    # the published naming says the domain: an errored run there is that domain's
    named = tmp_path / "c" / "gpt-4o-retail.json"
    named.parent.mkdir()
    named.write_text(json.dumps([_errored(0, 0)], indent=2))
    assert list(ambiglib.load(named).runs["suite"]) == ["retail"]


@pytest.mark.parametrize("dump", [lambda r: json.dumps(r, indent=2, sort_keys=True),
                                  lambda r: json.dumps(r, sort_keys=True, separators=(",", ":")),
                                  lambda r: json.dumps([{k: x[k] for k in reversed(list(x))} for x in r])],
                         ids=["sorted", "sorted-compact", "reversed"])
def test_a_results_file_with_its_keys_in_another_order_is_read(tmp_path, log, raw, dump):
    # issue 56: a file re-saved with sorted keys was "not a run log" (200 runs gone, counted only)
    other = tmp_path / "resaved" / log.name
    other.parent.mkdir()
    other.write_text(dump(raw))
    got, want = ambiglib.load(other.parent), ambiglib.load(log)
    assert len(got.runs) == 200
    for name in ("runs", "questions"):
        a, b = getattr(got, name), getattr(want, name)
        cols = [c for c in a.columns if c not in ("source", "transcript_at")]
        assert a[cols].equals(b[cols]), name
    # where each run's conversation is: the same entry and turns, in the other file
    def unfiled(at):
        return {k: v for k, v in json.loads(at).items() if k != "file"}

    assert [unfiled(x) for x in got.runs["transcript_at"]] == [unfiled(x) for x in want.runs["transcript_at"]]


def test_what_is_taubench_is_told_by_content_with_the_reason(tmp_path, raw):
    from ambiglib.importers._taubench import is_taubench_log, why_not_taubench

    def verdict(name, text):
        path = tmp_path / name
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
        return why_not_taubench(path)

    first = json.dumps(raw[0], sort_keys=True)
    assert verdict("sorted.json", "[" + first + "]") is None
    assert verdict("bom.json", "\ufeff[" + first + "]") is None  # its reader names the BOM
    # a file cut short after its first record (run.py killed while writing) is τ-bench's: its reader names the damage
    assert verdict("cut.json", "[\n" + first + ",\n{\"task_id\": 3, \"rew") is None
    assert verdict("cut-early.json", '[{"task_id": 3, "reward": 1.0, "info": {"ta') is None
    assert verdict("damaged.json", "[" + first + ", \xff\xfe not json at all") is None  # not read past record 1
    assert "list" in verdict("object.json", '{"eval": {"task": "x"}, "samples": []}')
    assert "empty" in verdict("empty.json", "[]")
    assert "object" in verdict("numbers.json", "[1, 2]")
    assert "'samples'" in verdict("other.json", '[{"task_id": 1, "samples": []}]')
    assert verdict("nothing.json", "") is not None and verdict("garbage.json", b"\x00\xff") is not None
    assert "two" in verdict("one-key.json", '[{"task_id": 1}]')
    misspelt = first.replace('"traj":', '"trbj":')  # one field's key damaged: still τ-bench's, its reader says so
    assert verdict("misspelt.json", "[" + misspelt + "]") is None
    assert "'samples'" in verdict("three.json", '[{"task_id": 1, "reward": 1, "info": {}, "samples": []}]')
    assert "json" in verdict("results.txt", "[" + first + "]")
    assert is_taubench_log(tmp_path / "sorted.json") and not is_taubench_log(tmp_path / "object.json")


def test_a_file_linked_inside_its_folder_is_read_once(tmp_path, raw):
    # issue 56: a file linked inside its folder loaded twice, as another model
    import os

    folder = tmp_path / "results"
    (folder / "sub").mkdir(parents=True)
    (folder / "gpt-4o-airline.json").write_text(json.dumps(raw, indent=2))
    (folder / "zz-latest-airline.json").symlink_to("gpt-4o-airline.json")
    (folder / "sub" / "again.json").symlink_to("../gpt-4o-airline.json")
    os.link(folder / "gpt-4o-airline.json", folder / "sub" / "hard-airline.json")
    rs = ambiglib.load(folder)
    assert len(rs.runs) == 200 and set(rs.runs["model"]) == {"gpt-4o"}
    assert sum(n for reason, n in rs.skipped.items() if "(a link)" in reason) == 3  # each other name counted
    # beside a canonical log (the folder is read as several logs, each by its layout): the same
    (folder / "own.jsonl").write_text(json.dumps({"benchmark": "b", "suite": "s", "task_id": "t", "model": "m",
                                                  "spec": "full", "ask_tool": False}) + "\n")
    rs = ambiglib.load(folder)
    assert len(rs.runs) == 201 and set(rs.runs["model"]) == {"gpt-4o", "m"}


def test_files_given_to_the_reader_are_read_once_each(tmp_path, raw):
    """read_taubench(files=...) given two names of one file (a symbolic and a hard link) reads it once, under its
    own name, and counts the others."""
    import os

    from ambiglib.importers._taubench import read_taubench

    folder = tmp_path / "results"
    folder.mkdir()
    real = folder / "gpt-4o-airline.json"
    real.write_text(json.dumps(raw[:8], indent=2))
    (folder / "a-link-airline.json").symlink_to(real.name)
    os.link(real, folder / "hard-airline.json")
    rs = read_taubench(folder, files=[folder / "a-link-airline.json", real, folder / "hard-airline.json"])
    assert len(rs.runs) == 8 and set(rs.runs["model"]) == {"gpt-4o"}
    assert sum(n for reason, n in rs.skipped.items() if "(a link)" in reason) == 2


def test_a_link_to_a_file_that_is_not_read_under_its_own_name_is_read_under_the_links(tmp_path, raw):
    folder = tmp_path / "results"
    (folder / "store").mkdir(parents=True)
    (folder / "store" / "raw.data").write_text(json.dumps(raw[:8], indent=2))  # no .json: not read itself
    (folder / "gpt-4o-airline.json").symlink_to("store/raw.data")
    rs = ambiglib.load(folder / "gpt-4o-airline.json")
    assert len(rs.runs) == 8 and set(rs.runs["model"]) == {"gpt-4o"}


def test_a_checkpoint_name_of_a_strategy_run_py_does_not_have_is_refused(tmp_path, raw):
    path = tmp_path / _ckpt("my-agent", "gpt-4o")
    path.write_text(json.dumps(raw[:4], indent=2))
    with pytest.raises(AmbiglibError, match=r"strategy.*tool-calling, act, react, few-shot"):
        ambiglib.load(path)
    rs, errors = ambiglib.load(path, strict=False)
    assert len(rs.runs) == 0 and len(errors) == 1 and "4 records" in errors[0].message


def test_a_results_file_that_cannot_be_read_does_not_stop_the_others(tmp_path, raw):
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "gpt-4o-airline.json").write_text(json.dumps(raw[:10], indent=2))
    text = json.dumps(raw[10:20], indent=2)
    (folder / _ckpt("act", "gpt-4o")).write_text(text[: len(text) // 2])  # run.py killed while writing
    with pytest.raises(AmbiglibError, match=r"_range_0--1_user-gpt-4o-llm_1127165200.json:\d+: not valid JSON"):
        ambiglib.load(folder)
    rs, errors = ambiglib.load(folder, strict=False)
    assert len(rs.runs) == 10 and len(errors) == 1 and errors[0].line is not None


def _merge_into_user(traj):
    """The fuzzer's case (seed 9002, case 549): a deleted range joined a user message to the next agent message's
    tool call; that agent message is gone, and the user's message holds its ``tool_calls``."""
    i = next(i for i, m in enumerate(traj[:-1]) if m["role"] == "user" and traj[i + 1].get("tool_calls"))
    return traj[:i] + [dict(traj[i], tool_calls=traj[i + 1]["tool_calls"])] + traj[i + 2:]


def _drop_tool_output(traj):
    i = next(i for i, m in enumerate(traj) if m["role"] == "tool")
    return traj[:i] + traj[i + 1:]


def _answer_another_call(traj):
    i = next(i for i, m in enumerate(traj) if m["role"] == "tool")
    return traj[:i] + [dict(traj[i], tool_call_id="call_someone_else")] + traj[i + 1:]


@pytest.mark.parametrize("damage", [_merge_into_user, _drop_tool_output, _answer_another_call, lambda t: t[1:],
                                    lambda t: []],
                         ids=["user-message-holds-the-call", "tool-output-gone", "output-of-another-call",
                              "no-system-message", "emptied"])
def test_a_trajectory_not_as_the_agent_writes_it_is_refused(tmp_path, raw, damage):
    """run.py's tool-calling agent writes the system message, the user's first message, then each agent message
    followed by the tool message answering its call (same ``tool_call_id``) or by the user's reply; all 200
    published trajectories are so. A trajectory of another shape is damaged: it used to load with other steps
    and questions, without a word (found by the fuzzer: seed 9002, case 549)."""
    records = json.loads(json.dumps(raw[:3]))
    assert any(m["role"] == "tool" for m in records[0]["traj"])
    records[0]["traj"] = damage(records[0]["traj"])
    path = tmp_path / "gpt-4o-airline.json"
    path.write_text(json.dumps(records, indent=2))
    rs, errors = ambiglib.load(path, strict=False)
    assert len(rs.runs) == 2 and [(e.line, e.field) for e in errors] == [(1, "traj")]
    assert "record 1" in errors[0].message


def test_telling_a_file_reads_its_first_record_only(tmp_path, raw, monkeypatch):
    """Every .json file in a log's folder is looked at: a large one costs what its first item does, never more
    than 256 KiB and a chunk."""
    from ambiglib.importers import _taubench as taubench

    read = []

    class Counting:
        def __init__(self, fh):
            self.fh = fh

        def read(self, n=-1):
            data = self.fh.read(n)
            read.append(len(data))
            return data

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

    opener = taubench.open_regular
    monkeypatch.setattr(taubench, "open_regular", lambda path: Counting(opener(path)))
    published = tmp_path / "gpt-4o-airline.json"
    published.write_text(json.dumps(raw, indent=2, sort_keys=True))
    assert taubench.why_not_taubench(published) is None
    assert sum(read) <= len(json.dumps(raw[0], indent=2, sort_keys=True)) + (64 << 10) < published.stat().st_size / 20
    read.clear()
    other = tmp_path / "other.json"
    other.write_text(json.dumps([{"info": ["x" * 100] * 100_000, "samples": []}]))  # 10 MB in its first item
    assert "first item" in taubench.why_not_taubench(other)
    assert sum(read) <= (256 << 10) + (256 << 10)
