"""The example run log as canonical records: each benchmark simulated in its own design, each model with
the propensities the papers publish."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ambiglib.importers._hilbench import HICCUP, IRRELEVANT, MAX_ANSWERED
from ambiglib.simulate._constants import DEFAULT_SEED, HIL_MODES, HIL_PASSES, MCP_FAILED_COMPLETION, hil_resolution

__all__ = ["AmbigDSAgent", "HILAgent", "LHAWAgent", "example_records", "write_example"]


@dataclass(frozen=True)
class AmbigDSAgent:
    """An Ambig-DS model, from the paper's target-track rows."""

    name: str
    intended: tuple[float, float, float]  # P(intended framing) under Full, Ambig., Ask (Table 2; Full assumed)
    failed: tuple[float, float]  # P(invalid), P(timeout) under Ambig. (Table 2)
    ask_permissive: tuple[float, float]  # ask on ambiguous, ask on full (Table 13)
    ask_conservative: tuple[float, float]
    intended_score: float  # mean score of an intended-framing run (Table 11)
    alternative_score: float


@dataclass(frozen=True)
class HILAgent:
    """A HIL-Bench model, from the paper's SQL rows."""

    name: str
    pass_per_attempt: float  # per-pass success with full information: pass@3 = 1 − (1 − p)³ (Table 1)
    ask_rate: float  # share of ask_human runs that ask at all (not published; chosen)
    questions: float  # mean questions per ask_human run (Table 7)
    precision: float  # per-question chance of matching a blocker, before the oracle's three-answer cap


@dataclass(frozen=True)
class LHAWAgent:
    """An LHAW model, from the paper's MCP-Atlas rows."""

    name: str
    skill: float  # per-trial success on the original task
    ask_per_trial: float  # per-trial ask probability: variant Ask % = 1 − (1 − a)³ (Table 3)
    extra_questions: float  # mean questions per asking trial beyond the first: Avg/Traj − 1 (Table 3)
    precision: float  # share of questions that address a removed segment (not published; chosen)


AMBIG_DS_AGENTS = (
    # Ambig-DS Tables 2, 11, 13, target track
    AmbigDSAgent("gemini-3.1-pro", (0.90, 0.55, 0.96), (0.04, 0.02), (0.98, 0.51), (0.94, 0.00), 0.80, 0.13),
    AmbigDSAgent("gpt-5.4", (0.90, 0.27, 0.71), (0.06, 0.04), (0.94, 0.65), (0.33, 0.04), 0.85, 0.14),
)


HIL_AGENTS = (
    # HIL-Bench Tables 1 and 7, SQL: pass@3 full info 90.7 / 86.0, 4.5 / 1.7 questions per task, pooled
    # precision 54.3% for both, which the cap pulls below the per-question rate for a model asking ~5 per run
    HILAgent("claude-opus-4.6", 1 - (1 - 0.907) ** (1 / 3), 0.90, 4.5, 0.68),
    HILAgent("gpt-5.4", 1 - (1 - 0.860) ** (1 / 3), 0.60, 1.7, 0.56),
)


LHAW_AGENTS = (
    # LHAW Table 3, MCP-Atlas: Ask % 73 / 97, Avg/Traj 1.10 / 1.73
    LHAWAgent("opus-4.5", 0.80, 1 - (1 - 0.73) ** (1 / 3), 0.10, 0.80),
    LHAWAgent("gpt-5.2", 0.76, 1 - (1 - 0.97) ** (1 / 3), 0.73, 0.65),
)


_HIL_SQL_TYPES = (("question", "timeframe_ambiguity"), ("business info", "missing_information"),
                  ("schema", "confusing_column_or_column_definition"), ("question", "unclear_value"),
                  ("business info", "underspecified_concepts"))


_HIL_SWE_TYPES = ("missing parameters", "contradictory requirements", "ambiguous requirements")


_DIMENSIONS = ("goal", "constraint", "input", "context")


_HIL_FAILURES = {"tool_use": ("completion", "accuracy", "strategy"),
                 "alignment": ("accuracy", "strategy", "self_assessment", "completion"),
                 "logic": ("accuracy", "strategy", "self_assessment", "completion")}


#: LHAW Table 4's categories and a flag of each, named lhaw.<category>.<flag>
_LHAW_FLAGS = (("question_quality", "compound_questions"), ("question_targeting", "off_target"),
               ("information_integration", "ignored_answer"), ("over_clarification", "unneeded_question"),
               ("under_clarification", "missed_gap"), ("timing_strategy", "premature_ask"),
               ("response_misinterpretation", "misread_answer"))


def _ambig_ds(rng: np.random.Generator, scale: int = 1) -> Iterator[dict[str, Any]]:
    names = ("bike-sharing", "house-prices", "titanic", "credit-default", "store-sales", "airline-delay",
             "wine-quality", "churn")
    tasks = [f"dsbench-{name}" + (f"-{k}" if k else "") for k in range(scale) for name in names]
    for task in tasks:
        # the one thing an ambiguous target-track task leaves open is its target column
        yield {"record": "task", "benchmark": "ambig-ds", "suite": "target", "task_id": task,
               "blockers": [{"id": "target", "type": "target"}]}
    for agent in AMBIG_DS_AGENTS:
        for task in tasks:
            for c, (spec, ask_tool) in enumerate((("full", False), ("ambiguous", False), ("ambiguous", True))):
                asked = ask_tool and rng.random() < agent.ask_permissive[0]
                p_invalid, p_timeout = agent.failed if spec == "ambiguous" else (0.02, 0.01)
                roll = rng.random()
                if roll < p_timeout:
                    status, category, score = "timeout", "timeout", 0.0  # the paper's rule: 0, kept
                elif roll < p_timeout + p_invalid:
                    status, category, score = "invalid", "invalid", 0.0
                else:
                    status = "ok"
                    # the target track's framings (harness-formats §2.3); asking mostly fixes the framing
                    p_intended = agent.intended[c] if not (ask_tool and not asked) else agent.intended[1]
                    category = "intended" if rng.random() < p_intended else "alternative"
                    mean = agent.intended_score if category == "intended" else agent.alternative_score
                    score = round(float(rng.beta(8 * mean + 0.5, 8 * (1 - mean) + 0.5)), 4)
                # the harness's own failures (docs/importers.md): one task's full prompt is missing, so
                # step 4 cannot build its full workspace; one task's ambiguous data vanished between step 5's
                # ask and solve phases. Error runs; a question asked before the failure stands
                failure = "build_failed" if spec == "full" and task.startswith("dsbench-churn") else \
                    "build_failed_solve" if ask_tool and agent is AMBIG_DS_AGENTS[-1] and \
                    task.startswith("dsbench-credit-default") else None
                if failure:
                    rec: dict[str, Any] = {
                        "benchmark": "ambig-ds", "suite": "target", "task_id": task, "model": agent.name,
                        "spec": spec, "ask_tool": ask_tool, "policy": "permissive" if ask_tool else "default",
                        "status": "error", "meta": {"error_reason": failure}}
                    if asked:
                        rec["questions"] = [{
                            "text": "Which column is the prediction target: the raw count or its log?",
                            "response": "Predict the raw count column.", "blocker_id": "target", "in_scope": True}]
                    yield rec
                    continue
                rec = {
                    "benchmark": "ambig-ds", "suite": "target", "task_id": task, "model": agent.name,
                    "spec": spec, "ask_tool": ask_tool, "policy": "permissive" if ask_tool else "default",
                    "status": status, "score": score, "category": category,
                    "cost_usd": round(float(rng.gamma(2.0, 0.4)), 4),
                    "duration_s": round(float(rng.gamma(3.0, 120.0)), 1),
                }
                if asked:
                    rec["questions"] = [{
                        "text": "Which column is the prediction target: the raw count or its log?",
                        "response": "Predict the raw count column.", "blocker_id": "target", "in_scope": True,
                    }]
                if status == "ok":
                    # five judge calls on the trace; the majority usually agrees with the framing
                    rec["labels"] = [
                        {"facet": "trace", "judge": "claude-haiku-4.6", "call": k,
                         "label": category if rng.random() < 0.8 else str(rng.choice(("intended", "alternative")))}
                        for k in range(1, 6)
                    ]
                yield rec
            for policy, rates in (("permissive", agent.ask_permissive), ("conservative", agent.ask_conservative)):
                for spec in ("full", "ambiguous"):
                    rec = {
                        "benchmark": "ambig-ds", "suite": "target", "task_id": task, "model": agent.name,
                        "spec": spec, "ask_tool": True, "policy": policy, "protocol": "ask_only",
                    }
                    if rng.random() < rates[0 if spec == "ambiguous" else 1]:
                        rec["questions"] = [{"text": "Which column should the model predict?", "in_scope": True,
                                             "response": "The count column." if spec == "ambiguous" else "As stated.",
                                             "blocker_id": "target" if spec == "ambiguous" else None}]
                    yield rec


def _hil_question(rng: np.random.Generator, blocker: dict[str, Any], on_target: bool) -> str:
    if not on_target:  # off-topic questions the judge maps to no blocker
        return str(rng.choice(["Is there anything else I should know?", "What's the expected output format?",
                               "Should the result be sorted?"]))
    j = blocker["id"].rpartition("_blocker_")[2]
    what = (blocker.get("subtype") or blocker["type"]).replace("_", " ")
    return str(rng.choice([f"What's meant by the {what} in point {j}?",
                           f"How should I resolve the \"{what}\" issue (item {j})?",
                           f"Which value applies for {what} #{j}?"]))


# complexity over 15 (noqa: C901 below): one branch per harness quirk reproduced
def _hil_bench(rng: np.random.Generator, scale: int = 1, shared_log: bool = True) -> Iterator[dict[str, Any]]:  # noqa: C901
    """HIL-Bench runs as ``run_hil_bench.py`` at the pinned commit produces them.

    One harness run per mode (a run mixing ``ask_human`` with ``full_info`` gives every instance the
    last mode's agent config, so the tool disappears), each over both task types. With
    ``shared_log`` (the pinned commit's behaviour) the ask_human server logs every question of a task,
    from every model and pass, under one instance id, and its 3-answer cap counts across all of them,
    in the order the instances run (model, then pass). Passes the harness's ``build_summary`` drops
    are error runs with ``meta.error_reason``: a judge outage or an unlogged judge reply (the agent
    sees the hiccup text: ``hiccup_obs``), three SQL tool timeouts (``timeout_obs>=3``), a SWE
    container dying (``env_died_obs``), a crashed SQL instance the harness pads (``missing_pass``),
    a failed SWE evaluation (``infra_error``).
    """
    tasks = []
    for suite in ("sql", "swe"):
        for i in range(6 * scale):
            task_id = f"public_{suite}_{i}"
            n_blockers = int(rng.choice([3, 4, 5], p=[0.4, 0.35, 0.25]))
            blockers = []
            for j in range(n_blockers):
                if suite == "sql":
                    kind, subtype = _HIL_SQL_TYPES[int(rng.integers(len(_HIL_SQL_TYPES)))]
                    blockers.append({"id": f"{task_id}_blocker_{j}", "type": kind, "subtype": subtype})
                else:
                    kind = _HIL_SWE_TYPES[int(rng.integers(len(_HIL_SWE_TYPES)))]
                    blockers.append({"id": f"{task_id}_blocker_{j}", "type": kind})
            tasks.append((suite, task_id, blockers))
            yield {"record": "task", "benchmark": "hil-bench", "suite": suite, "task_id": task_id,
                   "blockers": blockers}
    runs = []
    for mode in HIL_MODES:
        for suite, task_id, blockers in tasks:
            answered_by_task = 0  # the server's cap, when every instance of the task logs under one id
            for a, agent in enumerate(HIL_AGENTS):
                for trial in range(1, HIL_PASSES + 1):
                    spec = "full" if mode == "full_info" else "ambiguous"
                    rec: dict[str, Any] = {
                        "benchmark": "hil-bench", "suite": suite, "task_id": task_id, "model": agent.name,
                        "spec": spec, "ask_tool": mode == "ask_human", "trial": trial, "meta": {"mode": mode},
                    }
                    runs.append(((a, suite, task_id, HIL_MODES.index(mode), trial), rec))
                    if suite == "sql" and trial > 1 and rng.random() < 0.03:
                        # SWE-agent crashed on the instance: no prediction, the harness pads the pass
                        rec.update(status="error", passed=None)
                        rec["meta"]["error_reason"] = "missing_pass"
                        continue
                    answered = 0 if not shared_log else answered_by_task
                    discovered: set[str] = set()
                    questions: list[dict[str, Any]] = []
                    failure, failed_at = None, -1
                    if mode == "ask_human" and rng.random() < agent.ask_rate:
                        # Table 7's mean is over all ask_human runs: the asking ones ask questions / ask_rate
                        n_q = 1 + int(rng.poisson(max(agent.questions / agent.ask_rate - 1, 0)))
                        roll = rng.random()
                        # the judge fails on one question: down (logged) or a reply without blocker_key (HTTP 500)
                        failure = "outage" if roll < 0.03 else "no_blocker_key" if roll < 0.05 else None
                        failed_at = int(rng.integers(n_q)) if failure else -1
                        for k in range(n_q):
                            open_ = [b for b in blockers if b["id"] not in discovered]
                            pool = open_ or blockers  # agents go after what is still open
                            target = pool[int(rng.integers(len(pool)))]
                            on_target = bool(rng.random() < agent.precision)
                            q: dict[str, Any] = {"text": _hil_question(rng, target, on_target), "blocker_id": None}
                            if k == failed_at:
                                q["response"] = HICCUP
                            elif answered >= MAX_ANSWERED:
                                q["response"] = IRRELEVANT  # the cap: the judge is not called
                            elif on_target:
                                answered += 1
                                discovered.add(target["id"])
                                q.update(blocker_id=target["id"], response=hil_resolution(target["id"]))
                            else:
                                q["response"] = IRRELEVANT
                            questions.append(q)
                        if shared_log:
                            answered_by_task = answered
                    # the trajectory: explore, then (ask, explore) per question, more exploring, submit
                    n_steps = 1 + 2 * len(questions) + int(rng.integers(0, 3)) + 1
                    for k, q in enumerate(questions):
                        q["step"] = 1 + 2 * k
                    if spec == "full":
                        p = agent.pass_per_attempt
                    else:  # a task passes only when every blocker is resolved
                        p = agent.pass_per_attempt * (len(discovered) / len(blockers)) ** 2
                    passed = bool(rng.random() < p)
                    reason = None
                    roll = rng.random()
                    if suite == "sql" and roll < 0.03:
                        reason = "timeout_obs>=3"  # three execute_sql calls ran past the tool timeout
                        n_steps = max(n_steps, 2 * len(questions) + 4)
                    elif failure:
                        reason = "hiccup_obs"
                    elif suite == "swe" and roll < 0.03:
                        reason = "env_died_obs"
                    elif suite == "swe" and roll < 0.05:
                        reason = "infra_error"  # the test run in the container failed
                    rec["steps"] = n_steps
                    rec["tokens_in"] = 180 * n_steps + int(rng.integers(0, 120))
                    rec["tokens_out"] = 14 * n_steps + int(rng.integers(0, 20))
                    rec["cost_usd"] = round(float(rng.gamma(2.0, 0.15)), 4)
                    if questions:
                        rec["questions"] = questions
                    if failure == "no_blocker_key":  # the server logged nothing for that question
                        rec["meta"]["questions_not_in_log"] = 1
                    if reason:
                        rec.update(status="error", passed=None)
                        rec["meta"]["error_reason"] = reason
                        if reason != "infra_error":
                            rec["meta"]["harness_resolved"] = passed
                        continue
                    rec["passed"] = passed
                    rec["score"] = 1.0 if passed else 0.0
                    if not passed:
                        # an LLM judge's failure taxonomy (HIL-Bench Appendix F): one capability dimension,
                        # one mode within it, three calls
                        dimension = str(rng.choice(list(_HIL_FAILURES), p=[0.3, 0.2, 0.5]))
                        mode_ = str(rng.choice(_HIL_FAILURES[dimension]))
                        rec["labels"] = [{"facet": f"failure.{dimension}", "label": mode_ if c < 3 else
                                          str(rng.choice(_HIL_FAILURES[dimension])), "judge": "sonnet-4", "call": c}
                                         for c in (1, 2, 3)]
    for _, rec in sorted(runs, key=lambda kv: kv[0]):
        yield rec


def _lhaw(rng: np.random.Generator, scale: int = 1) -> Iterator[dict[str, Any]]:
    variants = []
    layout = {"tac": (("finance-invoice-matching", 2), ("hr-salary-analysis", 2)),
              "mcp-atlas": (("mcp-task-0412", 1), ("mcp-task-0977", 1), ("mcp-task-1203", 1)),
              "swe-bench-pro": (("instance_ansible__ansible-1c06c4", 1), ("instance_qutebrowser__qb-8a9f2e", 1))}
    classes = ("outcome-critical", "divergent", "benign")
    for suite, tasks in layout.items():
        for (base_id, n_variants), k in ((t, k) for k in range(scale) for t in tasks):
            task_id = base_id + (f"-{k}" if k else "")
            for v in range(1, n_variants + 1):
                variant_id = f"{task_id}__v{v}"
                dims = sorted({str(d) for d in rng.choice(_DIMENSIONS, size=int(rng.integers(1, 3)))})
                segments = [{"id": f"seg-{k}", "type": d, "subtype": None} for k, d in enumerate(dims, 1)]
                klass = str(rng.choice(classes, p=[0.5, 0.3, 0.2]))
                variants.append((suite, task_id, variant_id, klass, len(segments)))
                yield {"record": "task", "benchmark": "lhaw", "suite": suite, "task_id": task_id,
                       "variant_id": variant_id, "blockers": segments, "ambiguity_class": klass,
                       "dimensions": dims, "strategy": str(rng.choice(["delete", "vaguify", "genericize"])),
                       "meta": {"criticality": 1.0 if klass == "outcome-critical" else 0.5}}
    penalty = {"outcome-critical": 0.6, "divergent": 0.3, "benign": 0.05}
    first_mcp = next(v[2] for v in variants if v[0] == "mcp-atlas")  # where the MCP-Atlas failures happen
    malformed_done = False  # one run gets a malformed ask_user call
    for agent in LHAW_AGENTS:
        done_tasks: set[str] = set()
        for suite, task_id, variant_id, klass, n_segments in variants:
            conditions = [("ambiguous", False, "default"), ("ambiguous", True, "default")]
            if task_id not in done_tasks:  # the fully specified baseline runs on the original task, once
                conditions.insert(0, ("full", False, "default"))
                done_tasks.add(task_id)
            if agent.name == "opus-4.5" and suite == "mcp-atlas":  # the persona study (LHAW Table 14)
                conditions.append(("ambiguous", True, "supervisor"))
            for spec, ask_tool, persona in conditions:
                for trial in (1, 2, 3):
                    rec: dict[str, Any] = {
                        "benchmark": "lhaw", "suite": suite, "task_id": task_id,
                        "variant_id": variant_id if spec == "ambiguous" else task_id,
                        "model": agent.name, "spec": spec, "ask_tool": ask_tool, "trial": trial, "policy": persona,
                    }
                    p = agent.skill - (penalty[klass] if spec == "ambiguous" else 0.0)
                    # a supervisor is cheap to ask: more and longer clarification
                    eagerness = 1.15 if persona == "supervisor" else 1.0
                    if ask_tool and rng.random() < min(1.0, agent.ask_per_trial * eagerness):
                        n_q = 1 + int(rng.poisson(agent.extra_questions * eagerness))
                        rec["questions"] = [{
                            "text": f"Could you clarify the {['goal', 'input', 'constraint'][k % 3]}?",
                            "blocker_id": f"seg-{1 + k % n_segments}" if rng.random() < agent.precision else None,
                            "response": "Use the Q3 invoices folder.",
                            "step": 5 + 7 * k,
                        } for k in range(n_q)]
                        p += 0.8 * penalty[klass]
                        rates = {"question_quality": 0.5 if n_q > 1 else 0.2, "over_clarification": 0.1 * n_q}
                        rec["labels"] = [{"facet": f"lhaw.{cat}.{flag}",
                                          "label": "YES" if rng.random() < rates.get(cat, 0.12) else "NO"}
                                         for cat, flag in _LHAW_FLAGS]
                    p = float(np.clip(p, 0.02, 0.98))
                    if suite == "tac":
                        totals = (1, 2, 2)
                        results = [int(rng.binomial(t, min(1.0, p + 0.15))) for t in totals]
                        rec["checkpoints"] = [{"result": r, "total": t} for r, t in zip(results, totals)]
                        rec["score"] = round(sum(results) / sum(totals), 4)
                        rec["passed"] = results == list(totals)
                    elif suite == "mcp-atlas":
                        # the claim judge scores 5 claims 1 / 0.5 / 0: coverage is a multiple of 0.1
                        coverage = round(float(np.clip(rng.normal(p, 0.2), 0, 1)) * 10) / 10
                        rec["score"] = coverage
                        rec["passed"] = coverage >= 0.75  # MCP-Atlas pass threshold
                        if variant_id == first_mcp and agent is LHAW_AGENTS[-1] and trial == 1 and spec == "ambiguous" and not ask_tool:
                            # the agent call raised; the claim judge still scored the error text
                            rec.update(status="error", score=None, passed=None)
                            rec["meta"] = {"error_reason": MCP_FAILED_COMPLETION, "coverage_score": coverage}
                        if agent is LHAW_AGENTS[0] and not malformed_done and rec.get("questions") \
                                and persona == "default":
                            malformed_done = True
                            # an ask_user call with the wrong argument name; the tool answers with its error
                            rec["questions"][0].update(text=json.dumps({"query": "Which one do you mean?"}),
                                                       response="Error: No question provided", blocker_id=None)
                            rec["meta"] = {"malformed_questions": [0]}
                    else:
                        rec["passed"] = bool(rng.random() < p)
                        rec["score"] = 1.0 if rec["passed"] else 0.0
                    rec["steps"] = int(rng.integers(8, 60))
                    yield rec


#: a benchmark's simulation: (random generator, scale) -> its canonical records
_Simulator = Callable[[np.random.Generator, int], Iterator[dict[str, Any]]]


def example_records(seed: int = DEFAULT_SEED, *, scale: int = 1,
                    hil_shared_log: bool = True) -> dict[str, list[dict[str, Any]]]:
    """Simulate the example run log.

    Parameters
    ----------
    seed : int
        Seed of the random generator; the same seed gives the same records.
    scale : int, default 1
        Multiplies the number of tasks (the example uses 1; calibration checks use more).
    hil_shared_log : bool, default True
        Simulate HIL-Bench's ask_human server as the pinned commit runs it: one log and one
        3-answer cap per task across every model and pass (see :func:`_hil_bench`). False gives
        each instance its own log and cap, the conditions the paper's Tables 1 and 7 need.

    Returns
    -------
    dict
        Benchmark name → its canonical records (task records first).
    """
    out = {}
    simulators: tuple[tuple[str, _Simulator], ...] = (
        ("ambig-ds", _ambig_ds), ("hil-bench", lambda rng, scale: _hil_bench(rng, scale, hil_shared_log)),
        ("lhaw", _lhaw))
    for i, (name, simulate) in enumerate(simulators):
        rng = np.random.default_rng([seed, i])
        records = list(simulate(rng, scale))
        out[name] = sorted(records, key=lambda r: r.get("record") != "task")
    return out


def write_example(path: str | Path, *, seed: int = DEFAULT_SEED) -> list[Path]:
    """Write the example run log, one ``<benchmark>.jsonl`` per benchmark, into ``path``."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    written = []
    for name, records in example_records(seed).items():
        file = path / f"{name}.jsonl"
        with open(file, "w", encoding="utf-8", newline="\n") as fh:
            for rec in records:
                fh.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")
        written.append(file)
    return written
