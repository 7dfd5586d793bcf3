"""The runnable Inspect AI example of docs/own-benchmark.md (docs/examples/ask_or_guess.py), run by Inspect itself
offline, and what a new user does with it: load, validate, report, compare; and the same benchmark with its ask tool
under a name ambiglib does not know (issue 37 §1, §2, §5)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("inspect_ai", reason="the Inspect AI example needs inspect-ai (pip install 'ambiglib[inspect]')")

import ambiglib
from ambiglib.answers import _headline as headline
from ambiglib.report import run_report

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "ask_or_guess.py"


def _run_example(script: Path, logs: Path) -> None:
    done = subprocess.run([sys.executable, str(script), str(logs)], capture_output=True, text=True, timeout=300,
                          cwd=logs.parent)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ask_or_guess") / "logs"
    _run_example(EXAMPLE, out)
    return out


@pytest.fixture(scope="module")
def renamed(tmp_path_factory) -> Path:
    """The example with its ask tool named request_clarification (a name ambiglib does not know)."""
    folder = tmp_path_factory.mktemp("renamed")
    script = folder / "ask_or_guess.py"
    script.write_text(EXAMPLE.read_text().replace("ask_user", "request_clarification"))
    _run_example(script, folder / "logs")
    return folder / "logs"


def test_the_example_runs_offline_and_loads_as_its_own_benchmark(logs):
    assert len(list(logs.glob("*.eval"))) == 8  # 2 agents x 4 conditions
    rs = ambiglib.load(logs)
    assert len(rs.runs) == 2 * 4 * 8 * 2 and set(rs.runs["benchmark"]) == {"ask_or_guess"}
    assert len(rs.tasks) == 8  # the same blockers under both specs: one task each
    careful = rs.runs[rs.runs["model"] == "mockllm/careful"]
    # careful asks on every ambiguous task it has the tool for, once (off topic) more on chart, and over-asks once
    amb = careful[(careful["spec"] == "ambiguous") & careful["ask_tool"]]
    assert (amb["n_questions"] > 0).all()
    assert int(careful[(careful["spec"] == "full") & careful["ask_tool"]]["n_questions"].sum()) == 2
    q = rs.questions.merge(rs.runs[["run_id", "model"]], on="run_id")
    assert set(q["model"]) == {"mockllm/careful"}
    assert q["relevant"].sum() == len(q) - 2  # "Any deadline?" twice: relevant to no blocker


def test_the_four_answers_by_hand(logs):
    rs = ambiglib.load(logs)
    asking = headline.asking(rs, n_boot=200).set_index("agent")
    # careful: 16 of 16 ambiguous, 2 of 16 fully specified runs asked; CalibScore = harmonic mean of 1 and 1 - 2/16
    assert asking.loc["mockllm/careful", "ask_on_ambiguous"] == 1.0
    assert asking.loc["mockllm/careful", "ask_on_full"] == pytest.approx(2 / 16)
    assert asking.loc["mockllm/careful", "calib_score"] == pytest.approx(2 * (14 / 16) / (1 + 14 / 16))
    assert asking.loc["mockllm/guesser", "calib_score"] == 0.0
    quality = headline.question_quality(rs, n_boot=200).set_index("agent")
    # careful asks 22 questions over 16 runs, 20 relevant, addressing all 22 blockers... of 2 x 11 registered
    assert quality.loc["mockllm/careful", "questions_per_run"] == pytest.approx(22 / 16)
    assert quality.loc["mockllm/careful", "precision"] == pytest.approx(20 / 22)
    assert quality.loc["mockllm/careful", "recall"] == 1.0
    payoff = headline.payoff(rs, n_boot=200).set_index("agent")
    # guesser's guesses are right on 4 of the 8 tasks; careful solves every ambiguous task it asks about
    assert payoff.loc["mockllm/guesser", "score_no_tool"] == 0.5 and payoff.loc["mockllm/careful", "score_with_tool"] == 1
    assert payoff.loc["mockllm/careful", "score_gain_pp"] == pytest.approx(50.0)
    # the gain per question a run asks: 50 pp ÷ (22 questions / 16 runs with the tool), not ÷ 22 (LHAW's Gain/Q)
    assert payoff.loc["mockllm/careful", "gain_pp_per_question_per_run"] == pytest.approx(50.0 / (22 / 16))
    assert pd.isna(payoff.loc["mockllm/guesser", "gain_pp_per_question_per_run"])
    assert "mockllm/guesser asked no question" in payoff.attrs["empty"]["gain_pp_per_question_per_run"]
    better = headline.agent_comparison(rs, n_boot=200)
    assert set(better["metric"]) == {"calib_score", "ask_f1", "mean_score", "score_gain_pp"}
    assert (better["model_a"] == "mockllm/careful").all()


def _unexplained(out: Path, manifest: dict) -> list[str]:
    bad = []
    for n in manifest["notebooks"]:
        for t in n["tables"]:
            frame = pd.read_csv(out / t["csv"])
            empty = json.loads((out / t["meta"]).read_text()).get("empty") or {}
            bad += [f"{n['notebook']}/{t['name']}.{c}" for c in frame.columns[frame.isna().any()] if c not in empty]
    return bad


@pytest.fixture(scope="module")
def report(logs, tmp_path_factory) -> tuple[Path, dict, str]:
    """The report on the example, as a user runs it: the sections that apply to it."""
    index = run_report(logs, tmp_path_factory.mktemp("report") / "report")
    return index.parent, json.loads((index.parent / "manifest.json").read_text()), index.read_text()


@pytest.fixture(scope="module")
def every_section(logs, tmp_path_factory) -> tuple[Path, dict]:
    """The report on the example with every section run (``--all-sections``)."""
    index = run_report(logs, tmp_path_factory.mktemp("every") / "report", all_sections=True)
    return index.parent, json.loads((index.parent / "manifest.json").read_text())


def test_the_report_on_the_example_opens_on_the_four_answers_and_explains_every_dash(report):
    out, manifest, page = report
    cards = re.findall(r"<section class='card' data-question='(\w+)'>", page)
    assert cards == list(headline.QUESTIONS)
    # each card a row per agent, every value with its interval
    for name in cards:
        card = page.split(f"data-question='{name}'")[1].split("</section>")[0]
        assert card.count("<tr data-row=") >= 2 and "<span class='ci'>" in card
    assert "Nothing to show" not in page
    assert _unexplained(out, manifest) == []
    # what the log cannot answer: one list, each item naming what to add
    gaps = page.split("id='unanswered'")[1].split("</section>")[0]
    assert "add labels with &#39;q_index&#39;" in gaps  # the judges' scores of single questions, for question 2
    # no section without anything to show is on the page
    shown = re.findall(r"href='sections/(\w+)\.html'", page)
    for n in manifest["notebooks"]:
        assert (n["notebook"] in shown) == bool(n["tables"] or n["figures"]), n["notebook"]


def test_the_report_on_an_own_benchmark_runs_only_what_applies_and_lists_the_rest(report):
    out, manifest, page = report
    ran = {n["notebook"] for n in manifest["notebooks"]}
    not_run = {n["name"] for n in manifest["not_run"]}
    assert manifest["papers"] == [] and manifest["benchmarks"] == ["ask_or_guess"]
    # no framing categories, failure or LHAW flag labels, judge traces, personas or ambiguity classes in this log
    assert not_run == {"ambigds_framing", "ambigds_recognition", "ambigds_construction_audits",
                       "hilbench_failure_modes", "lhaw_ask_failures", "lhaw_strategies_and_personas"}
    assert ran | not_run == {p.stem for p in (ROOT / "notebooks").glob("*.ipynb")} and not ran & not_run
    assert all(not (out / f"{name}.ipynb").exists() for name in not_run)
    # listed once, in one line, with what each would need
    line = page.split("<p class='not-run'>")[1].split("</p>")[0]
    assert "Not run on this log" in line and "Ambig-DS: framing categories" in line
    assert page.count("Ambig-DS: framing categories") == 2  # the line, and what it would need
    # what the log cannot answer says nothing of a benchmark the log does not hold, and names are as written
    gaps = page.split("id='unanswered'")[1].split("</section>")[0]
    for other in ("HIL-Bench", "Ambig-DS", "LHAW", "MCP-Atlas", "harness", "lhaw", "failure.", "over_ask",
                  "ambiguity class", "framing"):
        assert other not in gaps, other
    assert "<li>ask_or_guess: no judge scores" in gaps and "Ask_or_guess" not in page
    # a paper's tables drawn on this benchmark say so
    assert "<h3>HIL-Bench&#39;s tables, on ask_or_guess</h3>" in page
    assert "<h3>HIL-Bench: the paper&#39;s tables</h3>" not in page


def _saved_in_order(path: Path) -> list[tuple[str, str]]:
    """A notebook's ``show_table``/``show_figure`` calls in order: (kind, name)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    return [("table" if m.group(1) == "table" else "figure", m.group(2))
            for m in re.finditer(r"show_(table|figure)\([^,]+,\s*'(\w+)'", code)]


def test_no_figure_says_nothing_to_draw_beside_a_table_with_rows(every_section, report, logs):
    # every bundled notebook run on an own benchmark: a figure left out (its note) never follows a table with rows
    from ambiglib.report._applicable import applicability
    from ambiglib.report._run import notebook_info

    checked = explained = 0
    for out, manifest in (every_section, report[:2]):
        for n in manifest["notebooks"]:
            rows = {t["name"]: len(pd.read_csv(out / t["csv"])) for t in n["tables"]}
            reasons = {t["name"]: set((json.loads((out / t["meta"]).read_text()).get("empty") or {}).values())
                       for t in n["tables"]}
            missing = {x["name"]: x["note"] for x in n["notes"] if x["kind"] == "figure"}
            last_table = None
            for kind, name in _saved_in_order(ROOT / "notebooks" / f"{n['notebook']}.ipynb"):
                if kind == "table":
                    last_table = name
                elif last_table is not None:
                    checked += 1
                    if name in missing and rows.get(last_table, 0) > 0:
                        # only where every value it would draw is a "–" of the table: its note is that "–"'s reason
                        assert missing[name] in reasons[last_table], \
                            f"{n['notebook']}: figure {name}: {missing[name]!r} beside {last_table}, {rows[last_table]} rows"
                        assert not missing[name].startswith("nothing to draw")
                        explained += 1
    assert checked > 20 and explained <= 2  # (the example runs 2 epochs: pass@3's figure says so, set k to 2)
    # a section the report would not run shows no table with rows when run anyway (its needs are right)
    out, manifest = every_section
    skipped = {n["name"] for n in report[1]["not_run"]}
    for n in manifest["notebooks"]:
        if n["notebook"] in skipped:
            info = notebook_info(ROOT / "notebooks" / f"{n['notebook']}.ipynb")
            general = set(info.get("general") or [])
            shown = {t["name"]: len(pd.read_csv(out / t["csv"])) for t in n["tables"] if t["name"] not in general}
            assert not any(shown.values()), (n["notebook"], shown)
            assert not applicability(info, ambiglib.load(logs, quiet=True), set(), {}).runs


def test_the_example_report_has_no_persona_table_and_one_leaderboard_row_per_agent(logs):
    from ambiglib import tables

    rs = ambiglib.load(logs)
    personas = tables.personas(rs)
    assert len(personas) == 0 and personas.attrs["note"].startswith(
        "no runs with and without the ask tool on the same ambiguous variants and runs with the ask tool under more"
        " than one ask policy")
    board = tables.leaderboard(rs)
    assert len(board) == 2 and set(board["scope"]) == {"ask_or_guess"}


def _ordered(renamed: Path, folder: Path, tool_first: bool) -> Path:
    """The logs with names that make the load read the tool evals first (or last)."""
    from inspect_ai.log import read_eval_log

    folder.mkdir()
    for log in renamed.glob("*.eval"):
        ask = read_eval_log(str(log), header_only=True).eval.task_args.get("ask")
        (folder / f"{0 if ask == tool_first else 1}_{log.name}").write_bytes(log.read_bytes())
    return folder


def test_an_ask_tool_of_another_name_is_named_everywhere(renamed, tmp_path):
    # what the tool was called, by hand: the same logs read with the tool named
    named = ambiglib.load(renamed, ask_tools=["request_clarification"])
    calls, calling = len(named.questions), int((named.runs["n_questions"] > 0).sum())
    assert (calls, calling) == (24, 18)
    # not named: the two tool conditions give the same keys. The whole read is refused, strict or not, whichever
    # conditions' logs come first (it kept the half read first, by the logs' random names), naming the tool with
    # every call of it (validate counted only the half it kept) and how to map it
    messages = set()
    for tool_first in (True, False):
        ordered = _ordered(renamed, tmp_path / f"tool_first_{tool_first}", tool_first)
        for strict in (True, False):
            with pytest.raises(ambiglib.FormatError) as refused:
                ambiglib.load(ordered, strict=strict)
            message = str(refused.value)
            assert (f"'request_clarification' called {calls} time(s) in {calling} run(s), offered in the plans of 4"
                    " eval(s)") in message
            assert "64 run(s) were given by two evals whose conditions differ" in message
            assert "They differ in: task argument ask (False vs True)" in message
            # a few readable lines, the fix the evidence points at first: every line but those naming the folder
            # (whose length is the test's) within 120 characters
            lines = message.splitlines()
            assert 8 <= len(lines) <= 16 and all(len(line) <= 120 for line in lines if str(ordered) not in line)
            fix = next(i for i, line in enumerate(lines) if line.startswith("Fix: "))
            assert lines[fix].startswith("Fix: 'request_clarification' looks like asking")
            assert "--ask-tool request_clarification" in lines[fix + 2]
            assert lines[fix + 4].startswith("Otherwise: pass ask_tool as a task argument")
            messages.add("\n".join(line for line in message.split(": ", 1)[1].splitlines() if str(ordered) not in line))
        validate = subprocess.run([sys.executable, "-m", "ambiglib", "validate", "--runs", str(ordered)],
                                  capture_output=True, text=True)
        # printed as its lines, not one mangled line
        assert validate.returncode != 0 and validate.stderr.startswith("ambiglib: ")
        assert validate.stderr.strip().splitlines()[-4:] == message.splitlines()[-4:]
        assert "--ask-tool request_clarification" in validate.stderr
    assert len(messages) == 1  # the same cause and counts, whichever order
    # named: from Python, the command line and the report's parameters
    named = ambiglib.load(renamed, ask_tools=["request_clarification"])
    assert len(named.runs) == 128 and len(named.questions) == 24
    ok = subprocess.run([sys.executable, "-m", "ambiglib", "validate", "--runs", str(renamed), "--ask-tool",
                         "request_clarification"], capture_output=True, text=True)
    assert ok.returncode == 0 and "0 records rejected" in ok.stdout and "request_clarification" not in ok.stdout
    params = tmp_path / "params.yaml"
    params.write_text("ask_tools: [request_clarification]\n")
    index = run_report(renamed, tmp_path / "report", params_file=params,
                       notebooks=["2_are_its_questions_good", "quickstart"])
    quality = pd.read_csv(index.parent / "tables" / "2_are_its_questions_good" / "question_quality.csv")
    assert quality.set_index("agent").loc["mockllm/careful", "questions_per_run"] == pytest.approx(22 / 16)


def test_a_tool_a_solver_offers_counts_for_every_sample_of_the_eval(tmp_path):
    """A custom solver that sets state.tools: the plan names no tool, so only the calls show it was offered; every
    sample of the eval is then a run with the tool (not only those that called it), and validate says so."""
    script = tmp_path / "solver_tools.py"
    text = EXAMPLE.read_text()
    text = text.replace("from inspect_ai.solver import generate, use_tools",
                        "from inspect_ai.solver import generate, solver, use_tools")
    text = text.replace('''    return Task(dataset=samples, solver=[use_tools([ask_user()] if ask else []), generate()], scorer=solved(),''',
                        '''    @solver
    def offer():
        async def solve(state, generate_):
            state.tools = [ask_user()] if ask else []
            return state
        return solve

    return Task(dataset=samples, solver=[offer(), generate()], scorer=solved(),''')
    assert "state.tools" in text
    script.write_text(text)
    _run_example(script, tmp_path / "logs")
    # the guesser never calls the tool: nothing in its log says it was offered, and its two conditions give the
    # same runs; the read is refused, naming the task argument that tells them apart and the fix
    with pytest.raises(ambiglib.FormatError, match=r"(?s)32 run\(s\) were given by two evals whose conditions differ"
                       r".*They differ in: task argument ask \(False vs True\)\.\n.*"
                       r"Fix: if one of the evals offers an ask tool.*pass ask_tool as a task argument"):
        ambiglib.load(tmp_path / "logs", strict=False)
    from inspect_ai.log import read_eval_log

    careful_logs = tmp_path / "careful"
    careful_logs.mkdir()
    for log in (tmp_path / "logs").glob("*.eval"):
        if read_eval_log(str(log), header_only=True).eval.model == "mockllm/careful":
            (careful_logs / log.name).write_bytes(log.read_bytes())
    rs, errors = ambiglib.load(careful_logs, strict=False)
    assert not errors
    tool = rs.runs[rs.runs["ask_tool"]]
    # the careful agent's tool evals are recognised by their calls, every sample of them, including the fully
    # specified ones it did not ask on
    careful = tool[tool["model"] == "mockllm/careful"]
    assert len(careful) == 32 and (careful["n_questions"] == 0).sum() == 14
    assert len(rs.runs) == 64
    validate = subprocess.run([sys.executable, "-m", "ambiglib", "validate", "--runs", str(careful_logs)],
                              capture_output=True, text=True)
    assert "not named in its plan: taken as offered to every sample" in validate.stdout


def test_the_report_leads_with_an_unnamed_ask_tool_or_refuses(renamed, tmp_path):
    """With only the tool's logs the report's first screen names the tool, its calls and the fix before any
    number; with both conditions' logs the report refuses naming it, the refusal's lines as load gives them (issue
    56 §1, issue 72)."""
    from inspect_ai.log import read_eval_log

    tool_only = tmp_path / "tool_only"
    tool_only.mkdir()
    for log in renamed.glob("*.eval"):
        if read_eval_log(str(log), header_only=True).eval.task_args.get("ask"):
            (tool_only / log.name).write_bytes(log.read_bytes())
    named = ambiglib.load(tool_only, ask_tools=["request_clarification"])
    calls, calling = len(named.questions), int((named.runs["n_questions"] > 0).sum())
    # load says so (a warning of its own class), compare before its table
    with pytest.warns(ambiglib.errors.AskToolWarning, match=f"'request_clarification' was called {calls} time"):
        ambiglib.load(tool_only)
    compared = subprocess.run([sys.executable, "-m", "ambiglib", "compare", "--runs", str(tool_only), "--metric",
                               "mean_score", "--between", "model", "--condition", "ambiguous"],
                              capture_output=True, text=True)
    assert compared.stderr.startswith("ambiglib compare: warning: tool 'request_clarification' was called"), \
        compared.stderr
    assert "AskToolWarning" not in compared.stderr + compared.stdout
    index = run_report(tool_only, tmp_path / "report", notebooks=["quickstart"])
    first = json.loads((index.parent / "summary.json").read_text())["first"]
    assert len(first) == 1 and f"'request_clarification' was called {calls} time(s) in {calling} run(s)" in first[0]
    page = index.read_text()
    assert "Read this first" in page and "--ask-tool request_clarification" in page
    assert page.index("Read this first") < page.index("class='answers'")
    assert "Read this first" in (index.parent / "summary.md").read_text()
    done = subprocess.run([sys.executable, "-m", "ambiglib", "report", "--runs", str(renamed), "--out",
                           str(tmp_path / "refused")], capture_output=True, text=True)
    with pytest.raises(ambiglib.FormatError) as refused:
        ambiglib.load(renamed)
    assert done.returncode != 0 and done.stderr.splitlines() == f"ambiglib report: {refused.value}".splitlines()
    assert "--ask-tool request_clarification" in done.stderr and not (tmp_path / "refused").exists()
