"""An ask-or-guess benchmark of your own as an Inspect AI task, run offline with two scripted agents.

    pip install 'ambiglib[inspect]'
    python docs/examples/ask_or_guess.py logs/        # 2 agents x 4 conditions x 2 epochs, offline
    ambiglib report --runs logs/ --out my_report     # then open my_report/index.html

Each request comes fully specified or ambiguous (task argument ``spec``), with or without the ask tool
(``ask``). The same blockers are registered under both specs, so the two are one task (else give each
spec's sample its own metadata ``variant_id``). The tool answers JSON naming the blocker a question
resolved, which is how ambiglib tells a relevant question from an irrelevant one (docs/importers.md).
"""
import json
import sys

from inspect_ai import Task, eval, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageTool, ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import CORRECT, INCORRECT, Score, accuracy, scorer
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import tool

# task id: (fully specified request, ambiguous request, {blocker: the user's answer})
TASKS = {
    "prices": ("Convert prices.csv to euros.", "Convert prices.csv.", {"currency": "euros"}),
    "dedupe": ("Dedupe customers.csv on email.", "Dedupe customers.csv.", {"match": "email"}),
    "dates": ("Parse orders.csv dates day-first.", "Parse orders.csv dates.", {"format": "day-first"}),
    "tickets": ("Summarise the tickets for engineers in 5 bullets.", "Summarise the tickets.",
                {"audience": "engineers", "length": "5 bullets"}),
    "rename": ("Rename sales.csv columns to snake_case.", "Rename sales.csv columns.", {"style": "snake_case"}),
    "archive": ("Archive logs older than 90 days.", "Archive the old logs.", {"days": "90"}),
    "chart": ("Plot monthly revenue as bars.", "Plot revenue.", {"period": "monthly", "kind": "bars"}),
    "email": ("Email the report to sales.", "Email the report.", {"recipient": "sales"}),
}
ANSWERS = {b: a for _, _, blockers in TASKS.values() for b, a in blockers.items()}
GUESSES = {**ANSWERS, "match": "name", "audience": "managers", "days": "30", "kind": "lines"}  # 4 wrong guesses


@tool
def ask_user():
    async def execute(question: str) -> str:
        """Ask the user a clarifying question about the task.

        Args:
          question: The question to ask.
        """
        blocker = next((b for b in ANSWERS if b in question.lower()), None)
        return json.dumps({"answer": ANSWERS.get(blocker, "Use your judgement."), "blocker": blocker})
    return execute


@scorer(metrics=[accuracy()])
def solved():
    async def score(state, target):  # solved when every blocker's answer is in the agent's result
        done = all(a in state.output.completion for a in state.metadata["answers"])
        return Score(value=CORRECT if done else INCORRECT)
    return score


@task
def ask_or_guess(spec: str = "ambiguous", ask: bool = True):
    samples = [Sample(id=t, input=full if spec == "full" else vague, target="",
                      metadata={"spec": spec, "blockers": list(b), "answers": list(b.values())})
               for t, (full, vague, b) in TASKS.items()]
    return Task(dataset=samples, solver=[use_tools([ask_user()] if ask else []), generate()], scorer=solved(),
                message_limit=10)


def agent(name: str):
    """A scripted agent: `careful` asks about every blocker it is not told (and once off topic), `guesser` guesses."""
    def outputs(messages, tools, tool_choice, config) -> ModelOutput:
        request = messages[0].text
        task_id, (full, _, blockers) = next((t, v) for t, v in TASKS.items() if request in v[:2])
        asked = [m for m in messages if isinstance(m, ChatMessageTool)]
        if not tools or name == "guesser":
            plan = []
        elif request == full:  # over-asks once on a fully specified request
            plan = ["Which length do you mean?"] if task_id == "tickets" else []
        else:
            plan = [f"Which {b} do you mean?" for b in blockers] + (["Any deadline?"] if task_id == "chart" else [])
        usage = ModelUsage(input_tokens=100, output_tokens=20, total_tokens=120)  # set: no tokenizer download
        if len(asked) < len(plan):
            out = ModelOutput.for_tool_call(f"mockllm/{name}", "ask_user", {"question": plan[len(asked)]})
        else:
            told = {b: a for b, a in blockers.items() if request == full or any(b in m.text for m in asked)}
            out = ModelOutput.from_content(f"mockllm/{name}", " ".join(told.get(b, GUESSES[b]) for b in blockers))
        out.usage = usage
        return out
    return outputs


if __name__ == "__main__":
    log_dir = sys.argv[1] if len(sys.argv) > 1 else "logs"
    conditions = [ask_or_guess(spec=spec, ask=ask) for spec in ("full", "ambiguous") for ask in (False, True)]
    for name in ("careful", "guesser"):
        eval(conditions, model=get_model(f"mockllm/{name}", custom_outputs=agent(name)), epochs=2, log_dir=log_dir,
             display="none")
