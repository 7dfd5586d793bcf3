"""Write the Inspect AI logs in ``tests/fixtures/inspect/`` with Inspect's own code (``inspect_ai.eval``).

A clarification task, ``clarify``: six small data chores, each with registered blockers (the details an
underspecified request leaves out), run fully specified and ambiguous, with and without an ``ask_user``
tool. A simulated user behind the tool answers a question about a blocker and says which blocker it
resolved. Each eval runs three epochs. The agents are Inspect's ``mockllm`` with ``custom_outputs`` (a callable deciding each turn):

* ``mockllm/careful`` asks about every blocker, asks twice about one (dedupe-customers), asks one
  question no blocker covers (summarise-tickets), over-asks on a fully specified task (rename-columns)
  and keeps asking on archive-logs until the message limit stops it;
* ``mockllm/hasty`` asks once (convert-prices, and fix-date-parser in epoch 1 only), never otherwise,
  and its API fails on summarise-tickets (an errored sample);
* ``mockllm/plain`` (one ``.json``-format log): asks like ``careful``, but its tool answers in plain
  text and its scorer records nothing, so the log does not say which blocker a question resolved;
* ``mockllm/interrupted``: an eval cancelled part-way (a ^C, SIGINT, in its fifth sample), so its
  log holds some samples and misses the rest.

Which blocker a question resolved is in the log two ways: ``careful``'s tool answers JSON with a
``blocker`` field; ``hasty``'s answers in plain text and its scorer records ``asked_blockers``, aligned
with the calls. Scorers: ``solved`` (C/P/I: all, some or none of an ambiguous task's blockers
resolved), ``trace`` (a judge's category: intended or alternative reading) and ``ask_judge`` (a dict of
categories: over_ask, under_ask).

Offline: Inspect counts tokens with tiktoken's ``o200k_base``, which it downloads at run time; this
script stubs the count (one token per four characters) before ``eval``. The logs' ``eval.task_file``
and ``eval.revision`` (this machine's path and git commit) are cleared.

    python scripts/make_inspect_fixtures.py                 # rewrite tests/fixtures/inspect/
    python scripts/make_inspect_fixtures.py --check         # regenerate elsewhere; same content as committed?
    python scripts/make_inspect_fixtures.py --out D --copies 420 --only main   # bench/inspect.py's large set

Ids, timestamps and durations differ on every run; ``--check`` compares everything else.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import inspect_ai.model._model as _model
import inspect_ai.model._tokens as _tokens
from inspect_ai import Task, task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import ChatMessageTool, ModelOutput, get_model
from inspect_ai.scorer import CORRECT, INCORRECT, PARTIAL, Score, accuracy, scorer
from inspect_ai.solver import generate, use_tools
from inspect_ai.solver._task_state import sample_state  # the running sample's id and epoch (no public accessor)
from inspect_ai.tool import tool


def _count_tokens(text: str) -> int:  # offline stand-in for tiktoken's o200k_base count
    return len(text) // 4 + 1


_tokens.count_text_tokens = _count_tokens
_model.count_text_tokens = _count_tokens  # the name imported into the model module

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "inspect"
MESSAGE_LIMIT = 12
#: three epochs: pass@3, the report's default k, needs at least three trials of a task (with two it is undefined)
EPOCHS = 3

#: task id -> (full request, ambiguous request, blockers with the keyword a question about it carries)
TASKS: dict[str, tuple[str, str, list[dict[str, str]]]] = {
    "convert-prices": ("Convert the prices in prices.csv to euros at the 2026-11-01 rate.",
                       "Convert the prices in prices.csv.",
                       [{"id": "currency", "type": "missing-parameter", "keyword": "currency"}]),
    "dedupe-customers": ("Remove duplicate customers in customers.csv, matching on email and keeping the newest row.",
                         "Remove duplicate customers in customers.csv.",
                         [{"id": "match-key", "type": "missing-parameter", "keyword": "match"},
                          {"id": "keep-which", "type": "ambiguous-goal", "keyword": "keep"}]),
    "fix-date-parser": ("Fix parse_date() so it reads day-first dates (31/12/2026).",
                        "Fix parse_date().",
                        [{"id": "date-format", "type": "missing-parameter", "keyword": "format"}]),
    "summarise-tickets": ("Summarise this week's support tickets for the engineering team.",
                          "Summarise this week's support tickets.",
                          [{"id": "audience", "type": "ambiguous-goal", "keyword": "audience"}]),
    "rename-columns": ("Rename the columns of sales.csv to snake_case.",
                       "Rename the columns of sales.csv.",
                       [{"id": "naming-style", "type": "missing-parameter", "keyword": "style"}]),
    "archive-logs": ("Archive the server logs older than 90 days.",
                     "Archive the old server logs.",
                     [{"id": "retention", "type": "missing-parameter", "keyword": "days"}]),
}
#: what a question about each blocker asks
QUESTIONS = {
    "currency": "Which currency should the prices be converted to?",
    "match-key": "Which field should two customers match on?",
    "keep-which": "Which row should I keep of each duplicate?",
    "date-format": "What date format should parse_date() read?",
    "audience": "Who is the audience of the summary?",
    "naming-style": "Which naming style should the columns follow?",
    "retention": "After how many days is a log old?",
}
ANSWERS = {
    "currency": "Euros, at the 2026-11-01 rate.", "match-key": "Match on email.", "keep-which": "Keep the newest.",
    "date-format": "Day first: 31/12/2026.", "audience": "The engineering team.", "naming-style": "snake_case.",
    "retention": "90 days.",
}
OFF_TOPIC = "Should I use British spelling?"


def _blocker_of(question: str) -> str | None:
    """The simulated user's reading of a question: the blocker whose keyword it carries, if any."""
    for _, _, blockers in TASKS.values():
        for b in blockers:
            if b["keyword"] in question.lower():
                return b["id"]
    return None


@tool
def ask_user(attribution: str = "tool"):
    async def execute(question: str) -> str:
        """Ask the user a clarifying question about the task.

        Args:
          question: The question to ask the user.
        """
        blocker = _blocker_of(question)
        answer = ANSWERS[blocker] if blocker else "I don't know; use your judgement."
        if attribution == "tool":
            return json.dumps({"answer": answer, "blocker": blocker})
        return answer
    return execute


def _asks(state_messages: list) -> list[tuple[str, str | None]]:
    """(question, the tool's answer) of every ask_user call, in order."""
    calls: dict[str, str] = {}
    order: list[str] = []
    answers: dict[str, str] = {}
    for m in state_messages:
        for c in getattr(m, "tool_calls", None) or []:
            if c.function == "ask_user":
                calls[c.id] = str(c.arguments.get("question", ""))
                order.append(c.id)
        if isinstance(m, ChatMessageTool) and m.tool_call_id in calls:
            answers[m.tool_call_id] = m.text
    return [(calls[i], answers.get(i)) for i in order]


@scorer(metrics=[accuracy()])
def solved(attribution: str = "tool"):
    async def score(state, target):
        meta = state.metadata
        asked = [_blocker_of(q) for q, _ in _asks(state.messages)]
        needed = {b["id"] for b in meta["blockers"]}
        resolved = needed & {b for b in asked if b}
        if meta["spec"] == "full" or resolved == needed:
            value = CORRECT
        else:
            value = PARTIAL if resolved else INCORRECT
        if state.output.completion.startswith("GUESS-WRONG"):
            value = INCORRECT
        extra = {"asked_blockers": asked} if attribution == "scorer" else {}
        return Score(value=value, answer=state.output.completion, metadata=extra)
    return score


@scorer(metrics=[])
def trace():
    """A judge's reading of the agent's answer: the intended interpretation, or another one."""
    async def score(state, target):
        meta = state.metadata
        asked = {_blocker_of(q) for q, _ in _asks(state.messages)}
        intended = meta["spec"] == "full" or {b["id"] for b in meta["blockers"]} <= asked
        return Score(value="intended" if intended else "alternative")
    return score


@scorer(metrics=[])
def ask_judge():
    """A judge's dict of categories: did the agent ask when it need not, or not ask when it should."""
    async def score(state, target):
        n = len(_asks(state.messages))
        ambiguous = state.metadata["spec"] == "ambiguous"
        return Score(value={"over_ask": "yes" if n and not ambiguous else "no",
                            "under_ask": "yes" if ambiguous and not n else "no"})
    return score


@task
def clarify(spec: str = "ambiguous", ask: bool = True, attribution: str = "tool", copies: int = 1):
    samples = []
    for copy in range(copies):
        for task_id, (full, ambiguous, blockers) in TASKS.items():
            sid = task_id if copies == 1 else f"{task_id}-{copy + 1}"
            samples.append(Sample(
                id=sid, input=full if spec == "full" else ambiguous, target="done",
                metadata={"spec": spec, "suite": "data-chores",
                          "blockers": [{"id": b["id"], "type": b["type"]} for b in blockers]}))
    return Task(dataset=samples, solver=[use_tools(ask_user(attribution)) if ask else use_tools(), generate()],
                scorer=[solved(attribution), trace(), ask_judge()], message_limit=MESSAGE_LIMIT)


def _plan(model: str, task_id: str, spec: str, epoch: int) -> list[str]:
    """The questions an agent means to ask, in order (the tool offered)."""
    blockers = [b["id"] for b in TASKS[task_id][2]]
    if model in ("careful", "plain", "interrupted"):
        if spec == "full":
            return [QUESTIONS["naming-style"]] if task_id == "rename-columns" else []
        if task_id == "dedupe-customers":  # asks twice about one blocker; in epoch 2 forgets the other (partial)
            twice = [QUESTIONS["match-key"], "To be sure: which field do customers match on?"]
            return twice + [QUESTIONS["keep-which"]] if epoch == 1 else twice
        if task_id == "summarise-tickets":
            return [OFF_TOPIC, QUESTIONS["audience"]]
        if task_id == "archive-logs":
            return [QUESTIONS["retention"]] * MESSAGE_LIMIT  # keeps asking until the limit stops it
        return [QUESTIONS[b] for b in blockers]
    # hasty
    if spec == "ambiguous" and (task_id == "convert-prices" or (task_id == "fix-date-parser" and epoch == 1)):
        return [QUESTIONS[blockers[0]]]
    return []


def _agent(name: str, interrupt_after: int | None = None):
    seen: set[tuple[str, int]] = set()
    interrupted: list[bool] = []

    def outputs(messages, tools, tool_choice, config) -> ModelOutput:
        state = sample_state()
        sid, epoch = str(state.sample_id), state.epoch
        task_id = re.sub(r"-\d+$", "", sid)
        spec = state.metadata["spec"]
        seen.add((sid, epoch))
        if interrupt_after is not None and len(seen) > interrupt_after and not interrupted:
            interrupted.append(True)
            os.kill(os.getpid(), signal.SIGINT)  # the user presses ^C: Inspect cancels the eval, keeps what finished
            # ... and the ^C lands before the next sample starts, however loaded the machine: the main thread
            # takes the signal while this call waits (under load, without the wait, a check run once saw every
            # sample finish before the cancel, and its log differed from the fixture)
            time.sleep(1.0)
        if name == "hasty" and task_id == "summarise-tickets" and spec == "ambiguous" and tools:
            raise RuntimeError("mock API failure: connection reset by peer")
        asked = sum(1 for m in messages if isinstance(m, ChatMessageTool))
        plan = _plan(name, task_id, spec, epoch) if any(t.name == "ask_user" for t in tools) else []
        if asked < len(plan):
            return ModelOutput.for_tool_call(f"mockllm/{name}", "ask_user", {"question": plan[asked]},
                                             tool_call_id=f"call_{asked + 1}")
        wrong = name == "hasty" and spec == "full" and task_id == "dedupe-customers"
        return ModelOutput.from_content(f"mockllm/{name}", ("GUESS-WRONG " if wrong else "") + f"Done: {task_id}")
    return outputs


def _clean(location: str) -> None:
    """Clear what names this machine (the task file's path, the git revision) and rewrite the log."""
    log = read_eval_log(location)
    log.eval.task_file = None
    log.eval.revision = None
    write_eval_log(log, location)


def write(out: Path, *, copies: int = 1, only: str = "all") -> list[str]:
    """Run the evals into ``out``; return the logs written."""
    out.mkdir(parents=True, exist_ok=True)
    runs: list[tuple[str, list, dict]] = []
    conditions = [(spec, ask) for spec in ("full", "ambiguous") for ask in (False, True)]
    for name, attribution in (("careful", "tool"), ("hasty", "scorer")):
        runs.append((name, [clarify(spec=s, ask=a, attribution=attribution, copies=copies) for s, a in conditions], {}))
    if only == "all":
        # a .json log is uncompressed (each sample's events included): one epoch of four tasks keeps it small
        runs.append(("plain", [clarify(spec="ambiguous", ask=True, attribution="none")],
                     {"log_format": "json", "epochs": 1,
                      "sample_id": ["convert-prices", "dedupe-customers", "summarise-tickets", "archive-logs"]}))
        runs.append(("interrupted", [clarify(spec="ambiguous", ask=True, attribution="tool")],
                     {"max_samples": 1, "interrupt_after": 4}))
    written = []
    # ^C as in a terminal: a process started in the background (as CI starts it) inherits it ignored, and the
    # cancelled eval then ran to its end; with Python's own handler, asyncio takes ^C as it does in a terminal
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for name, tasks, options in runs:
        interrupt = options.pop("interrupt_after", None)
        model = get_model(f"mockllm/{name}", custom_outputs=_agent(name, interrupt))
        before = set(out.iterdir())
        try:
            inspect_eval(tasks, model=model, log_dir=str(out), display="none", fail_on_error=False, max_tasks=1,
                         **{"epochs": EPOCHS, **options})
        except KeyboardInterrupt:  # (Inspect turns the ^C into a cancelled log and returns; should it re-raise)
            pass
        # the logs this eval wrote (a cancelled eval returns none of them)
        locations = [str(p) for p in sorted(set(out.iterdir()) - before)]
        for loc in locations:
            _clean(loc)
            written.append(loc)
    return written


#: keys whose values differ on every run (ids, clocks) and are left out of --check's comparison
VOLATILE = re.compile(r"^(id|uuid|run_id|eval_id|eval_set_id|task_id|created|started_at|completed_at|timestamp|"
                      r"working_start|working_time|total_time|time|location|etag|event_id|span_id|parent_id|"
                      r"pending|model_usage|role_usage|usage|tool_call_id|invalidation|packages|traceback|traceback_ansi)$")


def _content(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _content(v) for k, v in sorted(value.items()) if not VOLATILE.match(k)}
    if isinstance(value, list):
        return [_content(v) for v in value]
    if isinstance(value, str):  # an object's address, an installation's path in a message
        value = re.sub(r"\b(0x)?[0-9a-f]{12}\b", "<address>", value)
        return re.sub(r"[^\s'\"<>]*/site-packages/", "<site-packages>/", value)
    return value


def _first_difference(a: Any, b: Any, where: str = "") -> str | None:
    if type(a) is not type(b):
        return f"{where or '/'}: {a!r:.80} vs {b!r:.80}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{where}/{k}: only in {'the committed log' if k in b else 'the fresh run'}"
            found = _first_difference(a[k], b[k], f"{where}/{k}")
            if found:
                return found
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} vs {len(b)} items"
        return next((d for d in (_first_difference(x, y, f"{where}/{i}") for i, (x, y) in enumerate(zip(a, b))) if d),
                    None)
    return None if a == b else f"{where}: {a!r:.80} vs {b!r:.80}"


def _log_content(path: Path) -> dict[str, Any]:
    log = read_eval_log(str(path), exclude_fields={"events", "attachments", "store"})
    data = json.loads(log.model_dump_json(exclude={"location", "stats", "etag"}))
    samples = [{k: v for k, v in s.items() if k not in ("events", "timelines")} for s in data.get("samples") or []]
    data["samples"] = sorted(samples, key=lambda s: (str(s["id"]), s["epoch"]))  # (a .json log keeps its events)
    return _content(data)


def _key(path: Path) -> tuple[str, str, str]:
    log = read_eval_log(str(path), header_only=True)
    return log.eval.model, json.dumps(log.eval.task_args, sort_keys=True), path.suffix


def check(committed: Path) -> list[str]:
    """Regenerate into a temporary folder and compare with ``committed``; return the differences."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh = {}
        for loc in write(Path(tmp)):
            p = Path(loc)
            fresh[_key(p)] = p
        old = {_key(p): p for p in sorted(committed.glob("*")) if p.suffix in (".eval", ".json")}
        problems = [f"missing from {committed}: {k}" for k in fresh if k not in old]
        problems += [f"not written by this script: {old[k].name}" for k in old if k not in fresh]
        for k in fresh.keys() & old.keys():
            diff = _first_difference(_log_content(fresh[k]), _log_content(old[k]))
            if diff:
                problems.append(f"{old[k].name}: content differs from a fresh run (first at {diff})")
        return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=FIXTURES)
    ap.add_argument("--copies", type=int, default=1, help="copies of the six tasks in each log (bench: 420)")
    ap.add_argument("--only", choices=("all", "main"), default="all",
                    help="main: only the careful and hasty logs (no .json log, no cancelled eval)")
    ap.add_argument("--check", action="store_true", help="regenerate elsewhere and compare with --out")
    args = ap.parse_args(argv)
    if args.check:
        problems = check(args.out)
        for p in problems:
            print(p, file=sys.stderr)
        print("same content" if not problems else f"{len(problems)} difference(s)")
        return 1 if problems else 0
    if args.out == FIXTURES:
        for old in FIXTURES.glob("*"):
            if old.suffix in (".eval", ".json"):
                old.unlink()
    for loc in write(args.out, copies=args.copies, only=args.only):
        print(loc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
