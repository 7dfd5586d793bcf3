"""Write the report notebooks from one place, then run them so nbval has outputs to compare.

Every notebook is thin: a title citing the paper table, a ``parameters`` cell (papermill's
contract) whose defaults point at the bundled example data, one library call per table
or figure, and a deterministic text rendering marked ``# NBVAL_CHECK_OUTPUT`` (tagged
``nbval-text``: checked by nbval, left out of the report's HTML). A table or figure that
the run log has nothing for shows the one line saying why.

The parameter annotations are ones papermill's parser reads (``"Optional[list]"`` as a
string: ``list | None`` makes papermill drop the parameter and warn "Passed unknown
parameter" on every run).

    python scripts/build_notebooks.py            # write and execute all
    python scripts/build_notebooks.py --no-run   # write only
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import nbformat as nbf

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"

PARAMETERS = '''runs: str = "../data/example"  # run log: canonical JSONL / Parquet, or a harness's own output
benchmarks: "Optional[list]" = None  # benchmarks to include, by the names in the log; None: all
models: "Optional[list]" = None  # models to include; None: all
suites: "Optional[list]" = None  # suites to include; None: all
conventions: "Optional[dict]" = None  # benchmark -> paper whose conventions it follows, e.g. {"clarifybench": "hil-bench"}; None: each paper's own, neutral for the rest
n_boot: int = 2000  # bootstrap replicates (the papers use 10,000)
seed: int = 0  # bootstrap seed
k: int = 3  # pass@k counts a task solved in any of k attempts (the papers: 3); a task run fewer times has none
ask_tools: "Optional[list]" = None  # Inspect AI logs: the ask tool's names, e.g. ["request_clarification"]; None: ask_user, ask_human, ask_question, clarify
scorer: str = ""  # Inspect AI logs: the scorer whose value is each run's score; "": each sample's first
out_dir: str = ""  # where `ambiglib report` collects tables and figures; "": nowhere
snapshot: str = ""  # set by `ambiglib report`: its checked copy of `runs`, read instead; "": read `runs`'''

SETUP = '''import pandas as pd

import ambiglib
from ambiglib import answers, comparisons, metrics, plots, tables
from ambiglib.report import render_table, show_figure, show_table

pd.set_option("display.width", 200)
rs, rejected = ambiglib.load(snapshot or runs, strict=False, quiet=True, ask_tools=ask_tools, scorer=scorer or None)
rs = rs.filter(benchmark=benchmarks, model=models, suite=suites)'''

LOADED = '''# NBVAL_CHECK_OUTPUT
print(f"{len(rs.runs)} runs, {len(rs.tasks)} task records; {len(rejected)} records rejected; pass@k with k = {k}")'''


def check(name: str) -> nbf.NotebookNode:
    """The plain-text copy of a table that nbval compares: left out of the report's HTML, and collapsed (source
    and outputs) in JupyterLab, so that a person sees each table once; nbval still compares its outputs."""
    return nbf.v4.new_code_cell(f"# NBVAL_CHECK_OUTPUT\nprint(render_table({name}))",
                                metadata={"tags": ["nbval-text"],
                                          "jupyter": {"source_hidden": True, "outputs_hidden": True}})


def table(expr: str, name: str, caption: str, *, evidence: bool = False, tasks: str | None = None,
          check_text: bool = True) -> list:
    """A table, shown once (or the one line saying why it is empty), and its nbval copy; with ``evidence``, a
    page per row listing the runs, questions and labels behind it; with ``tasks`` (an expression of the row ``i``),
    each row's page opens on its tasks (a comparison's: which tasks make the difference)."""
    more = ", evidence=True" if evidence else ""
    if tasks:
        more += (",\n           # each row's page opens on its tasks: which tasks make the difference\n"
                 f"           tasks=lambda i: {tasks}")
    cell = nbf.v4.new_code_cell(f"{name} = {expr}\nshow_table({name}, {name!r}, out_dir, caption={caption!r}{more})")
    return [cell, check(name)] if check_text else [cell]


def code(*sources: str) -> list:
    return [nbf.v4.new_code_cell(src) for src in sources]


def figure(expr: str, name: str) -> list:
    return [nbf.v4.new_code_cell(f"fig = {expr}\nshow_figure(fig, {name!r}, out_dir)")]


def md(text: str) -> list:
    return [nbf.v4.new_markdown_cell(text)]


SPECS: dict[str, list] = {
    "1_does_it_ask_when_it_should": md(
        "# Does each agent ask when it should?\n\nAn agent that asks well asks on ambiguous tasks and not on fully "
        "specified ones. Per agent (a model under one ask policy), the share of its runs with the ask tool that asked "
        "on each, and CalibScore: their harmonic mean with 1 − asks-on-full (Ambig-DS Table 13), 1 when it asks exactly "
        "when it should. Rates with Wilson 95% intervals over tasks (a task's trials count as one cluster: an agent "
        "that always asks on some tasks and never on others is not as sure as its number of runs suggests), "
        "CalibScore between the ends of the two rates' intervals (it covers at least 95%); a benchmark's suites "
        "pooled (each suite: the papers' tables). Each row's runs and questions: its evidence page in the report "
        "(`table.evidence(row)` in Python).")
        + table("answers.asking(rs, n_boot=n_boot, seed=seed, conventions=conventions)", "asking",
                "Does each agent ask when it should?", evidence=True)
        + figure("plots.ask_calibration(asking, hue='agent', style=None, col='benchmark')", "asking"),
    "2_are_its_questions_good": md(
        "# Are its questions good?\n\nOn ambiguous tasks with the ask tool: how much each agent asks, and whether "
        "its questions address the task's registered blockers. Precision: relevant questions / questions; recall: "
        "blockers addressed / registered blockers; Ask-F1: their harmonic mean, pooled over runs (HIL-Bench eq. 1, "
        "Table 1). Without a question precision is undefined; recall and Ask-F1 are then 0. 95% intervals: Wilson "
        "over tasks for precision (a share of questions) and recall (a share of blockers), Ask-F1 between the F1 of "
        "their ends (at least 95%), a task bootstrap for questions per run; a benchmark's suites pooled.")
        + table("answers.question_quality(rs, n_boot=n_boot, seed=seed)", "question_quality",
                "Are its questions good?", evidence=True)
        + figure("plots.precision_recall(question_quality, hue='agent', col='benchmark')", "question_quality"),
    "3_does_asking_pay_off": md(
        "# Does asking pay off?\n\nEach agent's mean score fully specified, on ambiguous tasks without the ask tool, "
        "and with it; the gain from the tool (with − without, percentage points), the gap left to full information "
        "(with the tool − fully specified: the judgment gap, in mean score), and the gain per question a run asks "
        "(the gain ÷ questions per run with the tool, the same at any number of epochs; LHAW's Gain/Q, the gain ÷ "
        "all questions, is in its own table). Task-bootstrap 95% intervals; invalid and timeout runs score 0, error "
        "runs are left out.")
        + table("answers.payoff(rs, k=k, n_boot=n_boot, seed=seed, conventions=conventions)", "payoff",
                "Does asking pay off?", evidence=True)
        + figure("plots.scores_by_condition(payoff)", "payoff")
        + md("## With and without the ask tool, tested\n\nPer agent, its score on the ambiguous tasks run both "
             "ways, paired by task: the difference with its interval (a t-interval of the per-task differences) and "
             "the test fitted to the outcome (exact McNemar for one pass/fail trial per task, else a paired "
             "permutation test), Holm over the rows.")
        + table("comparisons.paired_comparison(rs, metric='mean_score', between='ask_tool', n_boot=n_boot, seed=seed,"
                " conventions=conventions, pool_suites=True)", "tool_comparison",
                "With vs without the ask tool: mean score", evidence=True),
    "4_is_one_agent_better": md(
        "# Is one agent better than another?\n\nEvery model under one ask policy, ranked on CalibScore, Ask-F1, the "
        "score with the ask tool and the gain from asking, per benchmark. First a global test over tasks (are the "
        "agents different at all? each task's agents shuffled), then every pair paired by task, the test fitted to the "
        "outcome (mid-p McNemar for one pass/fail trial a task, else a paired sign-flip permutation test), Holm's "
        "adjustment within each family (a benchmark's metrics of one question: its verdicts do not change with the "
        "other benchmarks in the log). From those decisions: each agent's **rank interval** (its rank lies in it, for "
        "every agent at once, with 95% probability), its **group letters** (agents sharing a letter are not told "
        "apart) and the sentences: an agent is called best only where it alone is in the top group. `p_first`, in the "
        "frame, is its share of first places over a task bootstrap. `ambiglib rank` gives any one metric's ranking "
        "from the command line (docs/metrics.md, \"Rankings\").")
        + table("answers.agent_ranking(rs, k=k, n_boot=n_boot, seed=seed, conventions=conventions)",
                "agent_ranking", "Is one agent better than another?", evidence=True)
        + figure("plots.rank_intervals(agent_ranking)", "agent_ranking")
        + md("## Every pair\n\nThe pairs behind the ranking, each paired by task: the difference with its 95% "
             "interval (unadjusted: the size of the difference; the verdict rests on Holm within the family), the "
             "test, the smallest p it could give with the tasks that differ (`p_smallest`, and adjusted as its "
             "family's best case: at or above 0.05 the pair *cannot* be told apart at this size), and the verdict. "
             "A difference in percentage points says so (`unit`). Each row links to its tasks and runs.")
        + table("answers.agent_comparison(rs, k=k, n_boot=n_boot, seed=seed, conventions=conventions)",
                "agent_comparison", "Every pair of agents, paired by task", evidence=True,
                tasks="answers.comparison_tasks(rs, agent_comparison.iloc[i], k=k, conventions=conventions)")
        + figure("plots.differences(agent_comparison)", "agent_comparison")
        + md("## One agent before and after a change\n\nWhen the report reads several logs of one agent (`ambiglib "
             "report --runs before=old/ --runs after=new/`), each model and policy's score with the ask tool is "
             "compared between the logs, paired by task: the later log − the earlier, with its interval and the test "
             "fitted to the outcome, Holm over the rows. Each row's page opens on the tasks that improved and those "
             "that regressed.")
        + table("comparisons.paired_comparison(rs, metric='mean_score', between='log', k=k, n_boot=n_boot, seed=seed,"
                "\n                                                  conventions=conventions)", "log_comparison",
                "One agent before and after: the score with the ask tool, later log − earlier, paired by task",
                evidence=True, check_text=False,
                tasks="answers.comparison_tasks(rs, log_comparison.iloc[i], between='log', pool_suites=False, k=k,"
                      "\n                                                     conventions=conventions)")
        + md("## How reliable is each agent?\n\nOn the tasks an agent was tried on more than once: pass@1, pass@k (a "
             "pass in any of k trials), pass^k (a pass in all k: τ-bench's reliability measure, Yao et al. 2024), "
             "the flip share (the share of tasks whose verdict flips across its identical trials: the agent's "
             "consistency, which grows with the trials) and the rerun spread (how far a second run of the agent, "
             "with as many trials, would move its pass@1; it shrinks as tasks are added, Miller 2024 §3). Neither "
             "says whether two agents differ: the paired interval and test above do.")
        + table("tables.reliability(rs, k=k, ci=True, n_boot=n_boot, seed=seed, conventions=conventions)",
                "reliability", "How reliably each agent passes: pass@k, pass^k, the flip share and the rerun spread"),
    "quickstart": md(
        "# What the log holds\n\nQuickstart: loads a run log — canonical JSON Lines or Parquet, or a harness's own "
        "output (HIL-Bench, Ambig-DS, LHAW) — into its five tidy frames, `runs`, `questions`, `labels`, `tasks`, "
        "`blockers`, and summarises it. Every rejected record is listed with its file, line and field; nothing "
        "is dropped silently. The data contract is in `docs/runlog.md`.")
        + [nbf.v4.new_code_cell("# NBVAL_CHECK_OUTPUT\nfor error in rejected:\n    print(error.message)\n"
                                "for reason, n in sorted(rs.skipped.items()):\n    print(f'not a run: {n} x {reason}')")]
        + md("## The frames\n\nOne row per run; questions and judge labels join on `run_id`.")
        + [nbf.v4.new_code_cell("rs.runs.head()"), nbf.v4.new_code_cell("rs.questions.head()"),
           nbf.v4.new_code_cell("rs.tasks.head()")]
        + md("## Runs per benchmark, suite, model and condition")
        + table("rs.summary()", "summary", "Runs, asks and mean score per cell")
        + md('## The four questions\n\n`rs.asking()`, `rs.question_quality()`, `rs.payoff()` and `rs.compare(a, b)` answer the report\'s four questions from the run set in hand (`rs.rank(metric=...)` ranks many agents: below). Each is a pandas DataFrame with every column the engine computes (`.frame`), shown as the report\'s card: the answer in words, each quantity with its interval, every "–" numbered to its reason. `.plot()` draws the intervals, `.to_latex()` typesets the card for a paper, `.evidence(i)` lists the runs behind row `i`, and a comparison\'s `.per_task()` lists the tasks behind its difference, the ones that move it most first.')
        + code('asking = rs.asking()\nasking')
        + code('asking.plot()')
        + code('# NBVAL_CHECK_OUTPUT\nprint(asking.formatted().to_string(index=False))')
        + code("pairs = rs.compare(metric='mean_score')  # every two models under one policy, paired by task, Holm over the rows\npairs")
        + code('pairs.per_task().head(10)  # which tasks make each difference: a − b per task, largest first')
        + md("### Many agents: a ranking\n\n`rs.rank(metric=...)` ranks every agent on one metric, per benchmark: a "
             "global test over tasks first, then every pair paired by task with Holm within the family, and from those "
             "decisions each agent's rank interval (its rank lies in it, every agent's at once, with 95% probability), "
             "its share of first places over a task bootstrap and its group letters (agents sharing a letter are not "
             "told apart). Its sentence calls an agent best only where it alone is in the top group. `.pairs` lists "
             "every pair behind it, `.plot()` draws the rank intervals.")
        + code("ranking = rs.rank(metric='ask_f1')\nranking", "ranking.plot()",
               "# NBVAL_CHECK_OUTPUT\nprint(ranking.formatted().to_string(index=False))\nprint(*ranking.attrs['answer'], sep='\\n')",
               "ranking.pairs  # every pair, paired by task, with its verdict")
        + code('print(rs.payoff().to_latex())  # a booktabs table for a paper: the formatted columns, the interval method in a note')
        + md('### Two logs of one agent\n\n`ambiglib.load({"before": "old/", "after": "new/"})` loads two logs of one agent (before and after a change) as one run set; `compare("after", "before", between="log")` pairs them by task. Here, this log\'s first trials and its other trials written as two logs (Parquet folders: any log `load` reads will do), as two runs of its harness would be: an A/A check, whose differences are what reruns alone make.')
        + code('import tempfile\nfrom pathlib import Path\n\ntrials = sorted(set(rs.runs["trial"]))\nif len(trials) > 1 and rs.runs["log"].isna().all():\n    with tempfile.TemporaryDirectory() as folder:  # the two logs are read whole: their folder goes after the load\n        split = Path(folder)\n        first = rs.filter(trial=trials[0]).to_parquet(split / "first")  # Parquet: the fastest log to write and read\n        again = rs.filter(trial=trials[1:]).to_parquet(split / "again")\n        both = ambiglib.load({"first": first, "again": again}, quiet=True)\n    change = both.compare("again", "first", between="log")  # each model and policy: again − first, paired by task\nelse:\n    change = None\n    print("nothing to split: this log has one trial per task, or is already several logs")\nchange')
        + code('change.per_task().head(10) if change is not None else None  # the tasks that moved most between the two logs'),
    "ambigds_performance": md(
        "# Ambig-DS: performance under ambiguity\n\nS_full, S_ambig, S_ask (macro means over the tasks with a score "
        "in all three conditions), Δ with paired bootstrap 95% CIs and one-sided Wilcoxon tests — Ambig-DS "
        "Tables 1 and 12. Invalid and timeout runs score 0; error runs are excluded and counted.")
        + table("tables.performance(rs, n_boot=n_boot, seed=seed)", "performance",
                "Ambig-DS Tables 1/12: performance under ambiguity"),
    "ambigds_framing": md(
        "# Ambig-DS: framing categories and conditional scores\n\nShare of runs per framing category (Tables 2 and "
        "3) and the mean score within each category (Table 11). Σ share × conditional mean = the cell's mean score.")
        + table("tables.framing_categories(rs)", "framing_categories", "Ambig-DS Tables 2/3: framing categories")
        + table("tables.conditional_scores(rs)", "conditional_scores", "Ambig-DS Table 11: score given the category"),
    "ambigds_recognition": md(
        "# Ambig-DS: recognition audit\n\nThe judges' majority label per run (five calls), as shares of judged runs "
        "— Ambig-DS Table 10. Ties are reported in their own column, never broken silently.")
        + table("tables.recognition_audit(rs)", "recognition_audit", "Ambig-DS Table 10: recognition audit"),
    "ambigds_calibration": md(
        "# Ambig-DS: ask calibration\n\nAsk rates on ambiguous and on fully specified tasks under each ask policy, "
        "and CalibScore (their harmonic mean with 1 − ask-on-full), from the ask-only runs — Table 13 and Figure 2.")
        + table("tables.ask_calibration(rs, ci=True, n_boot=n_boot, seed=seed, conventions=conventions)", "ask_calibration",
                "Ambig-DS Table 13: ask rates and CalibScore")
        + figure("plots.ask_calibration(ask_calibration.assign(panel=ask_calibration['benchmark'] + ' · '"
                 " + ask_calibration['suite']), col='panel')", "ask_calibration")
        + md("## Why agents over-ask and under-ask (Tables 14 and 15)\n\nOn fully specified tasks under the permissive "
             "policy, a run that did not ask is correct; an asking run takes its judges' majority label. On ambiguous "
             "tasks under the conservative policy, a run that did not ask silently defaulted.")
        + table("tables.ask_diagnostics(rs, kind='over_ask', conventions=conventions)", "over_asking", "Ambig-DS Table 14: over-asking on full tasks")
        + table("tables.ask_diagnostics(rs, kind='under_ask', conventions=conventions)", "under_asking",
                "Ambig-DS Table 15: under-asking on ambiguous tasks"),
    "hilbench_judgment_gap": md(
        "# HIL-Bench: the judgment gap\n\npass@k (k: the notebook parameter; the paper's 3, printed above) with full information and with `ask_human()`, the gap, and "
        "selective escalation: blocker recall, question precision and Ask-F1 (the paper's definitions) — "
        "HIL-Bench Table 1 and Figure 1B.")
        + table("tables.judgment_gap(rs, k=k, ci=True, n_boot=n_boot, seed=seed, conventions=conventions)", "judgment_gap",
                "HIL-Bench Table 1: the judgment gap")
        + figure("plots.precision_recall(judgment_gap.assign(panel=judgment_gap['benchmark'] + ' · ' + judgment_gap['suite'],"
                 " agent=judgment_gap['model'] + judgment_gap['policy'].map(lambda p: '' if p in ('default', '–')"
                 " else f' ({p})')), col='panel', hue='agent')", "precision_recall")
        + md("## The leaderboard (Table 8)\n\nPass@3 with `ask_human()`, precision, recall and Ask-F1, pooled over both "
             "domains and per domain, ranked by the pooled pass@k.")
        + table("tables.leaderboard(rs, k=k, conventions=conventions)", "leaderboard", "HIL-Bench Table 8: leaderboard")
        + md("## Pass rates in the three conditions (Figure 1A)\n\npass@k with full information, on the ambiguous "
             "task without the tool, and with it; `combined` pools both domains' tasks.")
        + table("tables.pass_rates(rs, k=k, conventions=conventions)", "pass_rates", "HIL-Bench Figure 1A: pass rates")
        + figure("plots.pass_rates(pass_rates.assign(model=pass_rates['benchmark'] + ' · ' + pass_rates['model']))",
                 "pass_rates"),
    "hilbench_failure_modes": md(
        "# HIL-Bench: failure modes\n\nThe distribution of failure modes within each capability dimension — tool use, "
        "alignment, logic — per model and mode, from the judges' majority label (HIL-Bench Tables 4–6, Figure 3).")
        + table("tables.failure_modes(rs, dimension='tool_use')", "tool_use", "HIL-Bench Table 4: tool-use failure modes")
        + table("tables.failure_modes(rs, dimension='alignment')", "alignment", "HIL-Bench Table 5: alignment failure modes")
        + table("tables.failure_modes(rs, dimension='logic')", "logic", "HIL-Bench Table 6: logic failure modes")
        + figure("plots.failure_heatmap(logic.melt(id_vars=['benchmark', 'suite', 'model', 'mode', 'n'], var_name='label',"
                 " value_name='share').assign(model=lambda f: f['benchmark'] + ' ' + f['suite'] + ' · ' + f['model']"
                 " + ' / ' + f['mode']))", "logic_failure_modes")
        + md("## How the failure modes shift (Figures 3B and 6)\n\nEach tool-use failure mode's share with "
             "`ask_human()` minus its share in the baseline, per domain (Figure 3B), and SWE minus SQL per condition "
             "and over all failure traces (Figure 6), in percentage points.")
        + table("tables.failure_mode_shift(rs, dimension='tool_use')", "tool_use_shift",
                "HIL-Bench Figure 3B: shift with ask_human (tool use, pp)")
        + figure("plots.shift_heatmap(tool_use_shift.assign(model=tool_use_shift['benchmark'] + ' ' + tool_use_shift['suite']"
                 " + ' · ' + tool_use_shift['model']), title='Tool use: ask_human − baseline (pp)')", "tool_use_shift")
        + table("tables.failure_mode_shift(rs, dimension='tool_use', between='suite')", "tool_use_domains",
                "HIL-Bench Figure 6: second domain − first (tool use, pp)")
        + figure("plots.shift_heatmap(tool_use_domains.assign(model=tool_use_domains['benchmark'] + ' · '"
                 " + tool_use_domains['model'] + ' / ' + tool_use_domains['mode']), title='Tool use: SWE − SQL (pp)')",
                 "tool_use_domains"),
    "hilbench_questions": md(
        "# HIL-Bench: questions per task\n\nHow often each model asks, how many questions per run, and how many "
        "are relevant — HIL-Bench Table 7.")
        + table("tables.questions_per_task(rs)", "questions_per_task", "HIL-Bench Table 7: questions per task"),
    "hilbench_dataset": md(
        "# HIL-Bench: the blockers\n\nRegistered blockers per task and by type, in the style of HIL-Bench Table 3 "
        "(point `runs` at logs read with the public registries for the full 200 tasks).")
        + table("tables.blocker_stats(rs)", "blocker_stats", "HIL-Bench Table 3: blocker statistics"),
    "lhaw_value_of_information": md(
        "# LHAW: value of information\n\nBaseline, Ask % (`variant_ask_pct`: share of variants with an asking "
        "trial, as Table 3 prints), Avg/Traj, and pass@k (the paper's pass@3 at k = 3) and checkpoint score without the tool (`mean_score`) with "
        "their gains and gains per question — LHAW Table 3; Figure 4 plots the score with the tool "
        "(`mean_score_with_tool`) against the gain per question.")
        + table("tables.value_of_information(rs, k=k, conventions=conventions)", "value_of_information", "LHAW Table 3: value of information")
        + figure("plots.performance_vs_gain(value_of_information)", "performance_vs_gain"),
    "lhaw_ambiguity_classes": md(
        "# LHAW: ambiguity classes\n\nEach variant's class from its no-tool trials' terminal states (Definition 3.1), "
        "and the value of information per class (Tables 7–9, 12).")
        + table("tables.ambiguity_classes(rs)", "ambiguity_classes",
                "LHAW Definition 3.1: classes from terminal states")
        + table("tables.by_ambiguity_class(rs, k=k, conventions=conventions)", "by_ambiguity_class", "LHAW Tables 7–9: by ambiguity class")
        + table("tables.generality(rs, k=k, conventions=conventions)", "generality", "LHAW Table 13: generality across benchmarks"),
    "lhaw_strategies_and_personas": md(
        "# LHAW: personas and strategies\n\nPer user persona: checkpoint score without the tool (shared by every "
        "persona), gain with it, questions and gain per question (Table 14); per agent prompting strategy (Table 10); "
        "per removal strategy, how variants fall into ambiguity classes (Table 11); and calls per trial by class and "
        "persona (Figure 6).")
        + table("tables.personas(rs, k=k, conventions=conventions)", "personas", "LHAW Table 14: cost of a user call by persona")
        + table("tables.prompting_strategies(rs, k=k, conventions=conventions)", "prompting_strategies", "LHAW Table 10: agentic prompting strategies")
        + table("tables.removal_strategies(rs, k=k)", "removal_strategies", "LHAW Table 11: removal strategies")
        + table("tables.calls_per_trial(rs)", "calls_per_trial", "LHAW Figure 6: ask_user calls per trial")
        + figure("plots.calls_heatmap(calls_per_trial)", "calls_heatmap"),
    "lhaw_dimensions": md(
        "# LHAW: information dimensions and segments removed\n\nPass@3 without the tool and its gain with it by "
        "number of removed segments (Table 2), and pass@k and checkpoint progress by information dimension (Tables 5 "
        "and 6); a variant counts under each of its dimensions.")
        + table("tables.segments_removed(rs, k=k, conventions=conventions)", "segments_removed", "LHAW Table 2: by number of segments removed")
        + table("tables.by_dimension(rs, k=k, conventions=conventions)", "by_dimension", "LHAW Tables 5/6: by information dimension")
        + md("## The variants (Figure 3)\n\nVariants and unique tasks per suite, ambiguity classes, and information "
             "dimensions counted per removed segment.")
        + table("tables.variant_distribution(rs)", "variant_distribution", "LHAW Figure 3: variants per suite")
        + figure("plots.variant_distribution(variant_distribution)", "variant_distribution"),
    "lhaw_ask_failures": md(
        "# LHAW: ask_user failure modes\n\nShare of trials with questions flagged in each failure category "
        "(any flag `lhaw.<category>.<flag>` judged YES): all such trials (Table 4) and those whose task failed (Table 17).")
        + table("tables.ask_failure_modes(rs)", "ask_failure_modes", "LHAW Table 4: ask_user failure modes")
        + table("tables.ask_failure_modes(rs, failed_only=True)", "ask_failure_modes_failed",
                "LHAW Table 17: failure modes of failed trials")
        + md("## Every flag by ambiguity class (Figure 5)\n\nThe share of asking trials with each of the 21 flags, "
             "per ambiguity class.")
        + table("tables.ask_failure_flags(rs)", "ask_failure_flags", "LHAW Figure 5: failure flags by class")
        + figure("plots.flag_heatmap(ask_failure_flags)", "ask_failure_flags"),
    "ambigds_construction_audits": md(
        "# Ambig-DS: construction audits\n\nCan the intended target be inferred without asking? Accuracy of each "
        "inferability selector with a Wilson 95% interval (Table 7, from the harness's `inferability_audit.csv`); "
        "how reliable the judges are (Table 9); and what the run log holds (Table 5 style).")
        + table("tables.selector_accuracy(pd.read_csv(selector_audit)) if selector_audit else "
                "tables.selector_accuracy(None)", "selector_accuracy", "Ambig-DS Table 7: inferability selectors")
        + table("tables.judge_reliability(rs)", "judge_reliability", "Judge reliability: the recognition audit's trace labels")
        + table("tables.judge_reliability(rs, facet='objective')", "objective_judges",
                "Ambig-DS Table 9: the objective-suite judges")
        + table("tables.composition(rs)", "composition", "What the run log holds"),
    "power_analysis": md(
        "# Power analysis\n\nHow many tasks a one-sided paired Wilcoxon test needs to detect a drop of Δ under "
        "ambiguity, with the spread of per-task differences taken from the run log (Ambig-DS Full vs Ambig.). "
        "Each cell is a simulation: the table's note says what the grid is and why a cell can fall as tasks are "
        "added (simulation noise; scipy's exact test up to 50 tasks, a normal approximation above).")
        + table("tables.power_analysis(rs, n_sim=1000, seed=seed)", "power", "Power to detect Δ by number of tasks"),
    "conventions": md(
        "# Conventions and coverage\n\nEach headline number under the paper's definition and the released "
        "harness's, side by side; then every cell's runs, missing tasks and excluded error runs.")
        + [nbf.v4.new_code_cell("summary = tables.harness_summary(rs)  # shown below; the audit takes its HIL-Bench"
                                " rows from it")]
        + table("tables.convention_audit(rs, summary=summary)", "convention_audit", "Paper vs harness definitions")
        + md("## The harnesses' own summaries\n\nEach harness's summary numbers recomputed from the runs, "
             "statistics named as the harness names them (HIL-Bench `summary_metrics.json` with its pass filter "
             "and invalid-pass rules, Ambig-DS step 6 / step 7 / `normalize_scores.py`, MCP-Atlas coverage), and "
             "what the importers found wrong in the harness output itself.")
        + table("summary", "harness_summary", "The harnesses' own summary statistics")
        + table("tables.harness_anomalies(rs)", "harness_anomalies", "Anomalies in the harness output")
        + table("tables.coverage(rs)", "coverage", "Coverage of every cell"),
}


#: Each notebook's part of the report, and its place in it: the researcher's questions first, then each paper's
#: reproductions, then what the log and its harness hold (``notebook.metadata["ambiglib"]``; the report reads it)
PARTS = {
    "questions": ["1_does_it_ask_when_it_should", "2_are_its_questions_good", "3_does_asking_pay_off",
                  "4_is_one_agent_better"],
    "ambig-ds": ["ambigds_performance", "ambigds_calibration", "ambigds_framing", "ambigds_recognition",
                 "ambigds_construction_audits"],
    "hil-bench": ["hilbench_judgment_gap", "hilbench_questions", "hilbench_failure_modes", "hilbench_dataset"],
    "lhaw": ["lhaw_value_of_information", "lhaw_ambiguity_classes", "lhaw_dimensions", "lhaw_strategies_and_personas",
             "lhaw_ask_failures"],
    "log": ["quickstart", "conventions", "power_analysis"],
}


#: What a paper's notebook needs from a log to run on a benchmark that is not its paper's (ambiglib.report._applicable):
#: each item a shape one of its tables needs (a key of ambiglib.tables._shapes.SHAPES, ``labels:<facet>``, ``labels:<prefix>*``,
#: several joined by ``+``) or ``parameter:<name>``; the section runs where any holds. tests/test_report_applicable.py
#: checks that no table of a notebook has rows on a log where none holds.
NEEDS = {
    "ambigds_performance": ["three_conditions"],
    "ambigds_calibration": ["calibration", "labels:over_ask", "labels:under_ask"],
    "ambigds_framing": ["categories"],
    "ambigds_recognition": ["labels:trace"],
    "ambigds_construction_audits": ["labels:trace", "labels:objective", "parameter:selector_audit"],
    "hilbench_judgment_gap": ["blockers_and_tool", "pass_outcomes"],
    "hilbench_questions": ["blockers_and_tool"],
    "hilbench_failure_modes": ["labels:failure.tool_use", "labels:failure.alignment", "labels:failure.logic"],
    "hilbench_dataset": ["blockers"],
    "lhaw_value_of_information": ["tool_pairs"],
    "lhaw_ambiguity_classes": ["terminal_states", "tool_pairs"],
    "lhaw_dimensions": ["tool_pairs+dimensions", "tool_pairs+blockers", "ambiguity_class"],
    "lhaw_strategies_and_personas": ["tool_pairs+policies", "tool_pairs+ambiguity_class", "terminal_states+strategy"],
    "lhaw_ask_failures": ["labels:lhaw.*"],
}

#: A notebook's tables that describe any log (what it holds) and so make no paper section apply by themselves
GENERAL = {"ambigds_construction_audits": ["composition"]}

#: Tables of the log's own sections that are about some papers' harness output: a note that one is empty is listed
#: among what the log cannot answer only where the log holds one of those papers' benchmarks
ABOUT = {"conventions": {"convention_audit": ["hil-bench", "lhaw"], "harness_summary": ["hil-bench", "ambig-ds", "lhaw"],
                         "harness_anomalies": ["hil-bench", "ambig-ds", "lhaw"]}}


def metadata_of(name: str) -> dict:
    """A notebook's ``metadata["ambiglib"]``: its part and place in it, and what decides whether it runs on a log."""
    part = next(p for p, names in PARTS.items() if name in names)
    meta: dict = {"part": part, "order": PARTS[part].index(name) + 1}
    for key, table in (("needs", NEEDS), ("general", GENERAL), ("about", ABOUT)):
        if name in table:
            meta[key] = table[name]
    return meta


#: parameters of one notebook: data that is not in the run log comes only from a parameter
EXTRA_PARAMETERS = {
    "ambigds_construction_audits": '\nselector_audit: str = ""  # the Ambig-DS harness\'s inferability_audit.csv'
                                   ' (Table 7; data/paper/ has the published one); "": skip the table',
}


def build(name: str, body: list) -> nbf.NotebookNode:
    nb = nbf.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    title, rest = body[0], body[1:]
    parameters = PARAMETERS + EXTRA_PARAMETERS.get(name, "")
    nb.metadata["ambiglib"] = metadata_of(name)
    nb.cells = [title, nbf.v4.new_code_cell(parameters, metadata={"tags": ["parameters"]}),
                nbf.v4.new_code_cell(SETUP), nbf.v4.new_code_cell(LOADED), *rest]
    return nb


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-run", action="store_true")
    parser.add_argument("--metadata-only", action="store_true",
                        help="write only each notebook's metadata['ambiglib'] into the notebook as it is")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    names = args.names or list(SPECS)
    for name in names:
        path = NOTEBOOKS / f"{name}.ipynb"
        if args.metadata_only:
            nb = nbf.read(path, as_version=4)
            nb.metadata["ambiglib"] = metadata_of(name)
            nbf.write(nb, path)
            print(f"wrote {path} (metadata)")
            continue
        nbf.write(build(name, SPECS[name]), path)
        print(f"wrote {path}")
        if not args.no_run:
            subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
                            "--inplace", str(path)], check=True, capture_output=True)


if __name__ == "__main__":
    main()
