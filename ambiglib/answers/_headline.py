"""Which agent asks better, and does it pay off? The four questions a researcher brings to a log, answered per
agent with intervals: the opening of every report and of the question notebooks.

1. :func:`asking` — does each agent ask when it should? Ask rate on ambiguous and on fully specified tasks,
   CalibScore.
2. :func:`question_quality` — are its questions good? Questions per run, precision, recall, Ask-F1.
3. :func:`payoff` — does asking pay off? Mean score fully specified, ambiguous without the tool and with it,
   the gain from the tool, the gap left to full information, the gain per question.
4. :func:`agent_ranking` — is one agent better than another? Each agent ranked on CalibScore, Ask-F1, the score
   with the tool and the gain, with its rank interval and group (:mod:`ambiglib.ranking`); its pairs, each paired by
   task with a verdict in words, :func:`agent_comparison`.

Every interval says how it was made (``ci_level``, ``ci_method``): rates (ask rates, precision, recall) are
Wilson intervals over tasks (a task's trials are one cluster); CalibScore and Ask-F1, which rise with their two
rates, are bounded by the rates' intervals at half the error each; means a task bootstrap; differences of
per-task means a t-interval.

An *agent* is a model under one ask policy (``policy``; with a protocol other than ``solve`` when the log has
one, as Ambig-DS's ask-only runs). Each benchmark is one block of rows: its suites are pooled (the intervals
resample tasks of all of them together; the question notebooks and the papers' tables show each suite). A
benchmark's name is a label: every table applies to any log with the runs it needs, and a cell it cannot fill
says why and what to add (``attrs["empty"]``). Each table also carries ``attrs["answer"]``: one sentence per
benchmark saying what the rows show.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import numpy as np
import pandas as pd

from ambiglib import metrics
from ambiglib.comparisons import QUESTION_WORDS, _lacks
from ambiglib.comparisons._pairing import _benchmarks_of, _has
from ambiglib.comparisons._sums import _ask_f1_kept, _unrecorded, _value_counts, _voi_parts_of
from ambiglib.engines._answers import StoreView, viewed
from ambiglib.engines._store import NotPooled, StoreMetrics
from ambiglib.metrics._common import (
    BOUNDS_OF_TWO_RATES,
    WILSON_OVER_TASKS,
    MetricError,
    _clustered_wilson,
    _linearized_ci,
    _ratio,
    _work,
    label_intervals,
)
from ambiglib.metrics._information import _voi_task_sums, per_run_question, scores_by
from ambiglib.metrics._labels import NO_QUESTION_SCORES, _question_scores
from ambiglib.metrics._pooling import ask_f1_table
from ambiglib.ranking import PERMUTATIONS
from ambiglib.runset import RunSet
from ambiglib.stats._ratio_intervals import LINEARIZED
from ambiglib.tables._common import ConventionsArg, as_table, explain_empty
from ambiglib.tables._shapes import conventions_for

__all__ = ["asking", "question_quality", "payoff", "agent_comparison", "comparison_tasks", "answers", "QUESTIONS",
           "SHOWN"]

#: the four questions, by the function answering each
QUESTIONS = {
    "asking": "Does each agent ask when it should?",
    "question_quality": "Are its questions good?",
    "payoff": "Does asking pay off?",
    "agent_ranking": "Is one agent better than another?",
}

_AGENT = ["benchmark", "suites", "model", "policy", "protocol", "agent"]

#: What the report's opening shows of each table: (column, heading in words, format), the format one of
#: ``share`` (a percentage), ``score`` (two decimals), ``count`` (one decimal), ``pp`` (signed percentage
#: points), ``signed`` (a signed difference), ``p`` (a p-value) or ``text``; a column with ``_ci_low`` and
#: ``_ci_high`` beside it is shown with its interval.
SHOWN: dict[str, list[tuple[str, str, str]]] = {
    "asking": [("agent", "agent", "text"), ("ask_on_ambiguous", "asks on ambiguous tasks", "share"),
               ("ask_on_full", "asks on fully specified tasks", "share"), ("calib_score", "CalibScore", "score")],
    "question_quality": [("agent", "agent", "text"), ("questions_per_run", "questions per run", "count"),
                         ("precision", "precision", "score"), ("recall", "recall", "score"),
                         ("ask_f1", "Ask-F1", "score"),
                         ("judge_score", "judge score", "score")],
    "payoff": [("agent", "agent", "text"), ("score_full", "score, fully specified", "score"),
               ("score_no_tool", "ambiguous, no ask tool", "score"), ("score_with_tool", "ambiguous, with it", "score"),
               ("score_gain_pp", "gain from asking (pp)", "pp"),
               ("gain_pp_per_question_per_run", "gain ÷ questions per run (pp)", "pp")],
    "agent_ranking": [("agent", "agent", "text"), ("calib_score", "CalibScore", "ranked:score"),
                      ("ask_f1", "Ask-F1", "ranked:score"), ("mean_score", "score with the ask tool", "ranked:score"),
                      ("score_gain_pp", "gain from asking (pp)", "ranked:pp")],
    "agent_comparison": [("what", "compared", "text"), ("pair", "a − b", "text"),
                         ("difference", "difference", "unit"), ("p_holm", "Holm p", "p"),
                         ("verdict", "verdict", "text")],
}


def _agent_name(model: str, policy: str, protocol: str = "solve") -> str:
    extra = [p for p in (policy if policy != "default" else None, protocol if protocol != "solve" else None) if p]
    return f"{model} ({', '.join(extra)})" if extra else str(model)


def _suites(sub: RunSet | StoreView) -> str:
    runs = sub.cells() if isinstance(sub, StoreView) else sub.runs  # (every run's suite is among its cells')
    return ", ".join(sorted(map(str, set(runs["suite"].astype(object)))))


def _per_log(fn):
    """``fn`` on each log of a run set loaded from several (``ambiglib.load({label: path})``), its rows under their
    log: one agent before and after a change is two agents here, never their runs pooled. A run set of one log is
    ``fn``'s own."""
    import functools

    @functools.wraps(fn)
    def inner(rs: RunSet | StoreMetrics | StoreView, **options):
        rs = viewed(rs)
        if isinstance(rs, StoreView):
            _answered_on_store(rs, fn.__name__)
            return fn(rs, **options)
        logs = list(dict.fromkeys(rs.runs["log"].dropna().astype(object))) if "log" in rs.runs else []
        if not logs:
            return fn(rs, **options)
        parts = []
        for label in logs:
            part = fn(rs.filter(log=label), **options)
            part.insert(part.columns.get_loc("agent"), "log", label)
            part["agent"] = part["agent"].astype(str) + f" [{label}]"
            parts.append(part)
        out = pd.concat(parts, ignore_index=True)
        out = out.iloc[np.argsort(out["benchmark"].astype(str).to_numpy(), kind="stable")].reset_index(drop=True)
        for key in ("empty", "scope"):
            merged: dict = {}
            for part in parts:
                merged.update(part.attrs.get(key) or {})
            if merged:
                out.attrs[key] = merged
        gaps = list(dict.fromkeys(g for part in parts for g in part.attrs.get("gaps") or []))
        if gaps:
            out.attrs["gaps"] = gaps
        notes = list(dict.fromkeys(n for part in parts for n in [part.attrs.get("note")] if n))
        if notes:
            out.attrs["note"] = "; ".join(notes)
        out.attrs["answer"] = [f"log {label}: {line}" for label, part in zip(logs, parts)
                               for line in part.attrs.get("answer") or []]
        return out
    return inner


def _answered_on_store(view: StoreView, question: str) -> None:
    """Refuse, naming why, a store of several logs: which log was loaded first, the order its rows are shown in, is
    not kept in a store."""
    if view.cells()["log"].notna().any():
        raise NotPooled(f"{question} over a store of several logs loaded together is not answered over an engine"
                        " yet: which log was loaded first, the order the answers show them in, is not kept in a"
                        " store. Load the runs (ambiglib.load)")


def _frame(rows: list[dict], columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=columns) if rows else pd.DataFrame(columns=columns)


# ============================================================================= 1. does it ask when it should


@as_table
@_per_log
def asking(rs: RunSet | StoreMetrics | StoreView, *, n_boot: int = 2000, seed: int = 0, confidence: float = 0.95,
           conventions: ConventionsArg = None) -> pd.DataFrame:
    """Does each agent ask when it should? Ask rates on ambiguous and fully specified tasks, and CalibScore.

    The runs with the ask tool (under Ambig-DS's conventions its ask-only runs, as its Table 13); a run asked
    when it has at least one question.

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suites, model, policy, protocol, agent, n_ambiguous, ask_on_ambiguous, n_full,
        ask_on_full, calib_score``, each rate and score with ``_ci_low`` and ``_ci_high`` (Wilson intervals
        over tasks for the rates: a task's trials are one cluster, :func:`ambiglib.stats.wilson_ci_clustered`;
        for CalibScore the bounds the two rates' intervals at half the error give it), and ``ci_level,
        ci_method`` saying so.
    """
    rs = viewed(rs)  # (a store's handle: _per_log has made it a view)
    cols = [*_AGENT, "n_ambiguous", "ask_on_ambiguous", "ask_on_ambiguous_ci_low", "ask_on_ambiguous_ci_high",
            "n_full", "ask_on_full", "ask_on_full_ci_low", "ask_on_full_ci_high", "calib_score", "calib_score_ci_low",
            "calib_score_ci_high"]
    parts, apart = [], []
    for bench in _benchmarks_of(rs):
        conv = conventions_for(bench, conventions)
        found = _calibration_of(rs, bench, conv.calibration_protocol, confidence)
        if found is None:
            continue
        cal, suites, disjoint = found
        if disjoint:
            apart.append(f"{bench}: no task was run with the tool both fully specified and ambiguous (the clear and"
                         " the ambiguous tasks are different tasks): CalibScore sets the ask rates of two task sets"
                         " side by side")
        cal = cal[(cal["n_ambiguous"] + cal["n_full"]) > 0]
        cal.insert(0, "benchmark", bench)
        cal.insert(1, "suites", suites)
        cal["agent"] = [_agent_name(m, p, r) for m, p, r in zip(cal["model"], cal["policy"], cal["protocol"])]
        parts.append(cal)
    out = pd.concat(parts, ignore_index=True)[cols] if parts else _frame([], cols)
    out = label_intervals(out, confidence, {"ask_on_ambiguous": WILSON_OVER_TASKS, "ask_on_full": WILSON_OVER_TASKS,
                                            "calib_score": BOUNDS_OF_TWO_RATES})
    if len(out) == 0:
        out.attrs["note"] = "no runs with the ask tool in this log: add a condition that offers it"
    elif apart:
        out.attrs["note"] = "; ".join(apart)
    full = "no runs with the ask tool on fully specified tasks: add them to measure over-asking (and CalibScore)"
    amb = "no runs with the ask tool on ambiguous tasks: add them to measure asking when it is needed"
    explain_empty(out, {"ask_on_full": full, "ask_on_full_ci_low": full, "ask_on_full_ci_high": full,
                        "ask_on_ambiguous": amb, "ask_on_ambiguous_ci_low": amb, "ask_on_ambiguous_ci_high": amb,
                        "calib_score": f"CalibScore needs both: {full.split(':')[0]}, or {amb.split(':')[0]}",
                        "calib_score_ci_low": "no CalibScore (see calib_score)",
                        "calib_score_ci_high": "no CalibScore (see calib_score)"}, gap=True)
    out.attrs["scope"] = {"ask_tool": True}
    _say_own_intervals(out)
    _coverage_notes(out, rs)
    out.attrs["answer"] = _ranked(rs, out, ("calib_score", "ask_rate"), n_boot=n_boot, seed=seed,
                                  confidence=confidence, conventions=conventions)
    return out


def _calibration_of(rs: RunSet | StoreView, bench: str, protocol: str | None, confidence: float
                    ) -> tuple[pd.DataFrame, str, bool] | None:
    """One benchmark's ask rates and CalibScore per model, policy and protocol, from its runs with the tool (of
    ``protocol``, where the conventions name one): the table, its suites in words, and whether its clear and
    ambiguous tasks are different tasks; None without a run with the tool that did not fail. Over a store, its
    engine computes them (the same sums, :meth:`ambiglib.engines.StoreMetrics.ask_calibration`)."""
    by = ("model", "policy", "protocol")
    tool = rs.filter(benchmark=bench).filter(ask_tool=True, protocol=protocol)
    if isinstance(tool, StoreView):
        cells = tool.cells()
        if not (cells["status"] != "error").to_numpy(dtype=bool, na_value=True).any():
            return None
        tasks = tool.tool_tasks()
        spec, task = tasks["spec"].astype(object).to_numpy(), tasks["task_id"]
        store = tool.store  # (one query for every benchmark)
        cal = store.memo(("asking", confidence), lambda: store.ask_calibration(by=("benchmark", *by), ci=True,
                                                                               confidence=confidence))
        keep = (cal["benchmark"] == bench).to_numpy(dtype=bool) & (
            np.ones(len(cal), bool) if protocol is None else (cal["protocol"] == protocol).to_numpy(dtype=bool))
        cal = cal[keep].drop(columns="benchmark")
    else:
        ok = tool.runs[tool.runs["status"] != "error"]
        if len(ok) == 0:
            return None
        spec, task = ok["spec"].astype(object).to_numpy(), ok["task_id"]
        cal = metrics.ask_calibration(tool, by=by, ci=True, confidence=confidence)
    amb_tasks, full_tasks = (pd.Index(task[spec == s].unique()) for s in ("ambiguous", "full"))
    disjoint = bool(len(amb_tasks) and len(full_tasks) and len(amb_tasks.intersection(full_tasks)) == 0)
    return cal, _suites(tool), disjoint


# ============================================================================= 2. are its questions good


@as_table
@_per_log
def question_quality(rs: RunSet | StoreMetrics | StoreView, *, n_boot: int = 2000, seed: int = 0, confidence: float = 0.95) -> pd.DataFrame:
    """Are its questions good? Questions per run, and the precision, recall and Ask-F1 of its questions.

    The solve runs on ambiguous tasks with the ask tool. Precision is relevant questions / questions, recall
    registered blockers addressed / blockers, Ask-F1 their harmonic mean, pooled over the runs (HIL-Bench
    eq. 1, Table 1): they need each task's registered blockers and each question's blocker.

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suites, model, policy, protocol, agent, n_runs, share_asking, questions_per_run,
        precision, recall, ask_f1``, each of the last four with ``_ci_low`` and ``_ci_high`` (questions per run:
        a task bootstrap; precision and recall: Wilson over tasks; Ask-F1: the bounds their intervals at half
        the error give it), and ``ci_level, ci_method`` saying so.
    """
    stats_ = ["questions_per_run", "precision", "recall", "ask_f1", "judge_score"]
    cols = [*_AGENT, "n_runs", "share_asking"] + [f"{s}{e}" for s in stats_ for e in ("", "_ci_low", "_ci_high")] \
        + ["n_judged", "judged_by"]
    parts: list = []
    why: dict = {}
    rs = viewed(rs)  # (a store's handle: _per_log has made it a view)
    for bench in _benchmarks_of(rs):
        sub = rs.filter(benchmark=bench)
        amb = sub.filter(protocol="solve", spec="ambiguous", ask_tool=True)
        by = ["model", "policy"]
        work, sums = _question_sums(amb, by)
        if len(sums) == 0:
            continue
        stat = lambda t: {"questions_per_run": _ratio(t["n_questions"], t["n"])}  # noqa: E731
        totals = sums.groupby(by, sort=True)[["n_questions", "asked", "n"]].sum().reset_index()
        out = totals[by].assign(protocol="solve", n_runs=totals["n"].astype(int),
                                share_asking=totals["asked"] / totals["n"],
                                questions_per_run=totals["n_questions"] / totals["n"])
        out = out.merge(_linearized_ci(sums, by, "task_id", stat, confidence, floor={"questions_per_run": 0.0}),
                        on=by, how="left")
        f1, reason = _ask_f1(amb, sub, by, n_boot, seed, confidence)
        if f1 is not None:
            out = out.merge(f1, on=by, how="left")
        scores, reason["judge_score"] = _judge_scores(amb, work, by, confidence)
        if scores is not None:
            out = out.merge(scores, on=by, how="left")
            if out["judge_score"].isna().any():
                reason["judge_score"] = "an agent none of whose questions a judge scored (it asked none, or none was" \
                                        " judged) has no judge score"
        for column, text in reason.items():
            if text:
                why.setdefault(column, []).append((bench, text))
        out.insert(0, "benchmark", bench)
        out.insert(1, "suites", _suites(amb))
        out["agent"] = [_agent_name(m, p) for m, p in zip(out["model"], out["policy"])]
        parts.append(out.reindex(columns=cols))
    out = pd.concat(parts, ignore_index=True)[cols] if parts else _frame([], cols)
    out = label_intervals(out, confidence, {"questions_per_run": LINEARIZED,
                                            "precision": WILSON_OVER_TASKS, "recall": WILSON_OVER_TASKS,
                                            "ask_f1": BOUNDS_OF_TWO_RATES, "judge_score": LINEARIZED})
    if len(out) == 0:
        out.attrs["note"] = "no solve runs with the ask tool on ambiguous tasks in this log: add that condition"
    silent = out["precision"].isna() & out["recall"].notna() if len(out) else pd.Series(dtype=bool)
    if silent.any():  # what the agent did, not what the log lacks: said first, with any other agent's reason
        text = (f"{', '.join(out.loc[silent, 'agent'])} asked no question with the tool: precision is undefined"
                " without a question (recall and Ask-F1 are then 0; docs/metrics.md)")
        if out["recall"].isna().any() and why.get("precision"):
            text += "; " + _per_benchmark_reasons(why["precision"])
        explain_empty(out, {c: text for c in ("precision", "precision_ci_low", "precision_ci_high")})
    columns_of = {column: (column, f"{column}_ci_low", f"{column}_ci_high",
                           *(("n_judged", "judged_by") if column == "judge_score" else ())) for column in why}
    explain_empty(out, {c: _per_benchmark_reasons(texts) for column, texts in why.items() for c in columns_of[column]},
                  gap=True, by_benchmark={c: dict(texts) for column, texts in why.items() for c in columns_of[column]})
    _no_spread(out, ["questions_per_run", "judge_score"])
    explain_empty(out, {c: "no interval: the value is missing (see the value)"
                        for c in cols if c.endswith(("_ci_low", "_ci_high"))})
    out.attrs["scope"] = {"protocol": "solve", "spec": "ambiguous", "ask_tool": True}
    _say_own_intervals(out)
    _coverage_notes(out, rs)
    out.attrs["answer"] = _ranked(rs, out, ("ask_f1", "judge_score", "questions_per_run"), n_boot=n_boot, seed=seed,
                                  confidence=confidence)
    for bench, block in out.dropna(subset=["judge_score"]).groupby("benchmark", sort=True):
        judged_by = sorted(set(block["judged_by"].astype(str)))
        if len(judged_by) > 1:  # the report says so beside the ranking: one judge's 4 is not another's
            out.attrs["answer"].append(f"{bench}: the agents' questions were scored by different judges"
                                       f" ({'; '.join(judged_by)}): their judge scores are not comparable")
    return out


def _question_sums(amb: RunSet | StoreView, by: list[str]) -> tuple[pd.DataFrame | None, pd.DataFrame]:
    """Per (``by``, task), of ``amb``'s runs without error: the questions asked (``n_questions``), the runs asking
    (``asked``) and the runs (``n``), from how many runs asked each number of questions (the comparisons' counts,
    a store's from its engine); and those runs (None over a store)."""
    counts = _value_counts(amb, by, "questions")
    value, n = counts["value"].to_numpy(np.int64), counts["n"].to_numpy(np.int64)
    sums = counts[[*by, "task_id"]].assign(n_questions=value * n, asked=np.where(value > 0, n, 0).astype(float),
                                           n=n.astype(float)) \
        .groupby([*by, "task_id"], sort=True)[["n_questions", "asked", "n"]].sum().reset_index()
    if isinstance(amb, StoreView):
        return None, sums
    work = _work(amb)
    return work[~work["error"]], sums


def _per_benchmark_reasons(texts: list[tuple[str, str]]) -> str:
    """``(benchmark, reason)`` pairs as ``"<benchmark>: <reason>"``, joined; a reason several benchmarks share is
    said once, naming them all."""
    by_reason: dict[str, list[str]] = {}
    for bench, reason in texts:
        by_reason.setdefault(reason, []).append(bench)
    return "; ".join(f"{', '.join(benches)}: {reason}" for reason, benches in by_reason.items())


def _judge_scores(amb: RunSet | StoreView, work: pd.DataFrame | None, by: list[str], confidence: float
                  ) -> tuple[pd.DataFrame | None, str]:
    """The mean of the judges' numeric scores of single questions (labels with ``q_index``, run log 1.1) per
    agent, a question's calls and judges averaged first, with its linearized interval over tasks; or why there is
    none. Over a store: none (said as a loaded log says it) where no label scores a question, else refused."""
    if isinstance(amb, StoreView):
        if amb.has_question_scores():
            raise NotPooled("question_quality over a store whose judges score single questions (labels with"
                            " 'q_index') is not answered over an engine yet: a judge score averages each question's"
                            " labels. Load the runs (ambiglib.load) and call ambiglib.answers.question_quality")
        return None, NO_QUESTION_SCORES
    assert work is not None
    sums, judged, why = _question_scores(amb.labels, work, by)
    if sums is None or judged is None:
        return None, why
    judges = judged.groupby(by, sort=True)["judge"].agg(lambda j: ", ".join(sorted(set(map(str, j)))))
    totals = sums.groupby(by, sort=True)[["judged_sum", "judged"]].sum()
    out = pd.DataFrame({"judge_score": totals["judged_sum"] / totals["judged"],
                        "n_judged": totals["judged"].astype(int), "judged_by": judges.reindex(totals.index)}
                       ).reset_index()
    stat = lambda t: {"judge_score": _ratio(t["judged_sum"], t["judged"])}  # noqa: E731
    out = out.merge(_linearized_ci(sums, by, "task_id", stat, confidence), on=by, how="left")
    return out, ""


def _ask_f1(amb: RunSet | StoreView, sub: RunSet | StoreView, by: list[str], n_boot: int, seed: int,
            confidence: float) -> tuple[pd.DataFrame | None, dict[str, str]]:
    """Precision, recall and Ask-F1 per agent with intervals, or why there are none (column → why)."""
    names = ("precision", "recall", "ask_f1")
    if not (sub.has_blockers() if isinstance(sub, StoreView) else len(sub.blockers) > 0):
        why = ("no registered blockers in this benchmark's task records, so which questions were relevant is"
               " unknown: add task records with 'blockers' and each question's 'blocker_id' (docs/runlog.md)")
        return None, {n: why for n in names}
    # an agent with a question the log does not attribute, or naming a blocker its task does not register, is left
    # out alone, named (with the question)
    kept, refused, strays = _ask_f1_kept(amb, by)
    texts = []
    if refused:
        texts.append(f"questions of {', '.join(' '.join(k) for k in refused)} are not attributed to a blocker (the"
                     " log does not say which blocker each asked about): have the ask tool answer JSON with a"
                     " 'blocker' field, or a scorer record 'asked_blockers' (docs/importers.md)")
    for key, text in strays:
        texts.append(f"{_agent_name(*key)} is left out: its {text}; correct the question's 'blocker_id' or register"
                     " the blocker in the task record")
    reason = {n: "; ".join(texts) for n in names} if texts else {}
    if (int(kept.cells()["n_runs"].sum()) if isinstance(kept, StoreView) else len(kept.runs)) == 0:
        return None, reason
    try:
        if isinstance(kept, StoreView):  # the same table from the engine's sums, after the same refusal
            _unrecorded(kept, "ask_f1")
            f1 = ask_f1_table(*kept.ask_f1_sums(by), by, precision="n_relevant", ci=True, confidence=confidence)
        else:
            f1 = metrics.ask_f1(kept, by=by, ci=True, n_boot=n_boot, seed=seed, confidence=confidence)
    except MetricError as exc:
        return None, {n: f"{exc}" for n in names}
    keep = [c for c in f1.columns if c.startswith(names)]
    return f1[[*by, *keep]], reason


# ============================================================================= 3. does asking pay off


@as_table
@_per_log
def payoff(rs: RunSet | StoreMetrics | StoreView, *, k: int = 3, n_boot: int = 2000, seed: int = 0, confidence: float = 0.95,
           conventions: ConventionsArg = None) -> pd.DataFrame:
    """Does asking pay off? Mean score fully specified, ambiguous without the ask tool and with it, the gain.

    Solve runs (error runs left out, invalid and timeout scoring 0). The no-tool runs of a model are shared
    by every ask policy of its with-tool runs unless they carry the policy (LHAW's rule,
    :func:`ambiglib.metrics.value_of_information`).

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suites, model, policy, protocol, agent, score_full, score_no_tool, score_with_tool``
        (mean over runs in each condition), ``score_gain_pp`` (with − without the tool, on the ambiguous
        variants the benchmark's conventions compare: LHAW each condition over its own, otherwise those run in
        both), ``gap_to_full_pp`` (with the tool − fully specified: the judgment gap in mean score; HIL-Bench
        Table 1 prints it in pass@3), ``gain_pp_per_question_per_run`` (the gain ÷ the questions a with-tool run
        asks: the same at any number of epochs; LHAW's Gain/Q, gain ÷ all questions, is in its
        ``value_of_information`` table), each with ``_ci_low`` and
        ``_ci_high`` (task bootstrap), and ``n_questions``.
    """
    stats_ = ["score_full", "score_no_tool", "score_with_tool", "score_gain_pp", "gap_to_full_pp",
              "gain_pp_per_question_per_run"]
    cols = [*_AGENT, *[f"{s}{e}" for s in stats_ for e in ("", "_ci_low", "_ci_high")], "n_questions"]
    parts: list = []
    why: dict = {}
    design: list = []
    rs = viewed(rs)  # (a store's handle: _per_log has made it a view)
    benches = _benchmarks_of(rs)
    for bench in benches:
        sub = rs.filter(benchmark=bench).filter(protocol="solve")
        scored = _scored_tasks(sub)
        if len(scored) == 0:
            continue
        parts.append(_payoff_rows(sub, scored, bench, k, conventions_for(bench, conventions).voi_paired, n_boot,
                                  seed, confidence, why, design))
    out = pd.concat(parts, ignore_index=True).reindex(columns=cols) if parts else _frame([], cols)
    out = label_intervals(out, confidence, {s: WILSON_OVER_TASKS if s.startswith("score_") and not s.endswith("_pp")
                                            else LINEARIZED for s in stats_})
    if len(out) == 0:
        out.attrs["note"] = "no scored solve runs in this log"
    elif design:
        out.attrs["note"] = "; ".join(design)
    reasons = {
        "score_full": "no scored runs on fully specified tasks without the tool: add them to see what full"
                      " information would give",
        "score_no_tool": "no scored runs on ambiguous tasks without the ask tool: add them (a no-tool condition) to"
                         " see what asking adds",
        "score_with_tool": "no scored runs on ambiguous tasks with the ask tool: add that condition",
        "score_gain_pp": "the gain needs runs with and without the ask tool on the same ambiguous tasks: add the"
                         " missing condition",
        "gap_to_full_pp": "the gap needs runs with the ask tool on ambiguous tasks and runs on the fully specified"
                          " ones: add the missing condition",
        "gain_pp_per_question_per_run": "no gain (see score_gain_pp): a gain per question needs one",
    }
    for column, texts in why.items():
        reasons[column] = _per_benchmark_reasons(texts)
    _no_spread(out, ["gain_pp_per_question_per_run"])  # before the other causes: a column keeps its first reason
    if len(out) and out["gain_pp_per_question_per_run"].isna().any():
        # an agent that asked nothing has no gain per question: what it did, not what the log lacks
        nan = out["gain_pp_per_question_per_run"].isna()
        silent = nan & out["score_gain_pp"].notna()
        causes = ([f"{', '.join(out.loc[silent, 'agent'])} asked no question with the tool: a gain per question is"
                   " undefined"] if silent.any() else []) + ([reasons["gain_pp_per_question_per_run"]]
                                                             if (nan & ~silent).any() else [])
        explain_empty(out, {f"gain_pp_per_question_per_run{e}": "; ".join(causes) for e in ("", "_ci_low", "_ci_high")},
                      gap=bool((nan & ~silent).any()))
    explain_empty(out, {c: reasons[s] if c == s else f"no {s} (see {s})" for s in stats_
                        for c in (s, f"{s}_ci_low", f"{s}_ci_high")}, gap=True,
                  by_benchmark={s: dict(texts) for s, texts in why.items()})
    out.attrs["scope"] = {"protocol": "solve"}
    _say_own_intervals(out)
    _coverage_notes(out, rs)
    out.attrs["answer"] = _ranked(rs, out, ("score_gain_pp", "mean_score"), k=k, n_boot=n_boot, seed=seed,
                                  confidence=confidence, conventions=conventions)
    return out


def _payoff_rows(sub: RunSet | StoreView, scored: pd.DataFrame, bench: str, k: int, paired: bool,
                 n_boot: int, seed: int, confidence: float, why: dict, design: list[str]) -> pd.DataFrame:
    """One benchmark's payoff rows, from its solve runs ``sub`` and their per-task scores (:func:`_scored_tasks`);
    ``paired``: whether its value of information is paired by variant (its conventions')."""
    by = ["model", "policy"]
    tool = scored[scored["ask_tool"].to_numpy(dtype=bool) & (scored["spec"] == "ambiguous").to_numpy(dtype=bool)]
    agents = tool[by].drop_duplicates()
    # each model once, before Python sees them: a set of every run's model boxed ~400,000 strings at 1000x
    models_without_tool = sorted(set(scored["model"].unique()) - set(agents["model"]))
    agents = pd.concat([agents, pd.DataFrame({"model": models_without_tool, "policy": "default"})],
                       ignore_index=True).sort_values(by).reset_index(drop=True)
    out = agents.copy()
    for name, spec, ask in (("score_full", "full", False), ("score_no_tool", "ambiguous", False),
                            ("score_with_tool", "ambiguous", True)):
        runs = scored[(scored["spec"] == spec).to_numpy(dtype=bool) & (scored["ask_tool"].to_numpy(dtype=bool) == ask)]
        key = by if ask else ["model"]
        if not ask:  # the no-tool runs of a model, shared by its policies unless they carry their own
            own = runs[runs["policy"] != "default"]
            if len(own):
                why.setdefault(name, []).append((bench, "no-tool runs under a policy of their own are in the papers'"
                                                 " tables (value_of_information), not here"))
            runs = runs[runs["policy"] == "default"]
        out = out.merge(_condition_mean(runs, key, name, confidence), on=key, how="left")
    full = scored[~scored["ask_tool"].to_numpy(dtype=bool) & (scored["spec"] == "full").to_numpy(dtype=bool)]
    pooled_gap = bool(_has(sub, "tool_pairs") and len(tool))
    design += _gap_task_sets(bench, tool, full, by, pooled_gap)
    if pooled_gap:
        parts = _voi_parts_of(sub, by, k, paired)

        def stat(s):
            base = parts["stat"](s)
            return {"score_gain_pp": base["score_gain_pp"],
                    "gain_pp_per_question_per_run": per_run_question(base["score_gain_pp"], s["t_questions"],
                                                                     s["t_n_scored"]),
                    "gap_to_full_pp": 100 * (base["mean_score_with_tool"] - base["base_mean_score"])}

        sums = _voi_task_sums(parts)
        cols = [c for c in sums.columns if c not in (*by, "task_id")]
        totals = sums.groupby(by, sort=True)[cols].sum()
        values = pd.DataFrame(stat({c: totals[c].to_numpy(float) for c in cols}), index=totals.index).reset_index()
        values["n_questions"] = totals["t_questions"].to_numpy(int)
        cis = _linearized_ci(sums, by, "task_id", stat, confidence,
                             {"score_gain_pp": 100.0, "gap_to_full_pp": 100.0})
        out = out.merge(values.merge(cis, on=by, how="left"), on=by, how="left")
        # a gap without a no-tool pair is still the with-tool score against the fully specified one
    else:
        out = out.merge(_gap(tool, full[(full["policy"] == "default").to_numpy(dtype=bool)], by, confidence), on=by,
                        how="left")
    asked = tool.groupby(by)["questions"].sum().rename("_asked").reset_index()  # every agent's, paired or not
    out = out.merge(asked, on=by, how="left")
    out["n_questions"] = out["_asked"].fillna(0).astype(int)
    out = out.drop(columns="_asked")
    out.insert(0, "benchmark", bench)
    out.insert(1, "suites", _suites(sub))
    out.insert(4, "protocol", "solve")
    out["agent"] = [_agent_name(m, p) for m, p in zip(out["model"], out["policy"])]
    return out


def _scored_tasks(sub: RunSet | StoreView) -> pd.DataFrame:
    """Per (model, policy, spec, ask tool, task) of ``sub``'s runs without error that have a score: the sum of
    their scores (``score``, added in ascending order), how many (``n``) and the questions they asked
    (``questions``); over a store, from its engine's lists of scores."""
    keys = ["model", "policy", "spec", "ask_tool"]
    if isinstance(sub, StoreView):
        per = sub.scores(keys)
    else:
        work = _work(sub)
        work = work[~work["error"] & work["score"].notna()]
        per = scores_by(work, [*keys, "task_id"])
        per["questions"] = work.groupby([*keys, "task_id"], sort=True)["n_questions"].sum().to_numpy(np.int64)
    return per.rename(columns={"score_sum": "score"}).assign(n=per["n"].astype(float))[
        [*keys, "task_id", "score", "n", "questions"]]


def _gap_task_sets(bench: str, tool: pd.DataFrame, full: pd.DataFrame, by: list[str], pooled: bool) -> list[str]:
    """What the reader must know of the gap to full information where an agent's ambiguous runs with the tool and
    its model's fully specified runs are on different tasks: pooled (beside the gain from the tool), the gap sets
    the two task sets side by side; else it is over the tasks run both ways alone."""
    if len(tool) == 0 or len(full) == 0:
        return []
    t = tool[[*by, "task_id"]].drop_duplicates()
    f = full[["model", "task_id"]].drop_duplicates()
    counts = t.groupby(by, sort=True).size().rename("n_tool").reset_index() \
        .merge(f.groupby("model").size().rename("n_full").reset_index(), on="model") \
        .merge(t.merge(f, on=["model", "task_id"]).groupby(by).size().rename("shared").reset_index(), on=by,
               how="left").fillna({"shared": 0})
    differ = counts[(counts["n_tool"] != counts["shared"]) | (counts["n_full"] != counts["shared"])]
    if len(differ) == 0:
        return []
    first = differ.iloc[0]
    agent, n_tool, n_full, shared = (_agent_name(first["model"], first["policy"]), int(first["n_tool"]),
                                     int(first["n_full"]), int(first["shared"]))
    what = "it compares two task sets, not the same tasks paired" if pooled else \
        "it is over the tasks run both ways alone (none: no gap)"
    return [f"{bench}: gap_to_full_pp of {len(differ)} agent(s): the ambiguous runs with the tool and the fully"
            f" specified runs are on different tasks (first: {agent}, {n_tool} and {n_full} tasks, {shared} shared);"
            f" {what}"]


def _condition_mean(per_task: pd.DataFrame, key: list[str], name: str, confidence: float) -> pd.DataFrame:
    """The mean score of runs per ``key`` from their per-task sums (``per_task``: one row per ``key`` and task, its
    ``score`` and ``n``), with its Wilson interval over tasks (scores lie in [0, 1]: a task's summed scores over its
    runs are its count, :func:`ambiglib.stats.wilson_ci_clustered`; an all-zero or all-one mean over n tasks keeps
    Wilson's width, never a point). It covers 0.93-0.98 at 8-60 tasks where the task bootstrap covered 0.87-0.93
    at 8-12 (``bench/coverage.py``)."""
    if len(per_task) == 0:
        return pd.DataFrame(columns=[*key, name, f"{name}_ci_low", f"{name}_ci_high"])
    sums = per_task[[*key, "task_id", "score", "n"]].reset_index(drop=True)
    totals = sums.groupby(key, sort=True)[["score", "n"]].sum().reset_index()
    values = totals[key].assign(**{name: totals["score"] / totals["n"]})
    low, high = _clustered_wilson(values, key, sums, "score", "n", confidence)
    return values.assign(**{f"{name}_ci_low": low, f"{name}_ci_high": high})


def _gap(tool: pd.DataFrame, full: pd.DataFrame, by: list[str], confidence: float) -> pd.DataFrame:
    """With the tool − fully specified, pp, per agent, on the tasks run in both (a task bootstrap), from their
    per-task sums (``tool``: per agent and task; ``full``: the default policy's, per model and task)."""
    if len(tool) == 0 or len(full) == 0:
        return pd.DataFrame(columns=[*by, "gap_to_full_pp", "gap_to_full_pp_ci_low", "gap_to_full_pp_ci_high"])
    t = tool[[*by, "task_id", "score", "n"]].rename(columns={"score": "t_s", "n": "t_n"})
    f = full[["model", "task_id", "score", "n"]].rename(columns={"score": "f_s", "n": "f_n"})
    sums = t.merge(f, on=["model", "task_id"])
    stat = lambda s: {"gap_to_full_pp": 100 * (_ratio(s["t_s"], s["t_n"]) - _ratio(s["f_s"], s["f_n"]))}  # noqa
    totals = sums.groupby(by)[["t_s", "t_n", "f_s", "f_n"]].sum()
    values = pd.DataFrame(stat({c: totals[c].to_numpy(float) for c in totals.columns}),
                          index=totals.index).reset_index()
    return values.merge(_linearized_ci(sums, by, "task_id", stat, confidence, {"gap_to_full_pp": 100.0}), on=by,
                        how="left")


# ============================================================================= 4. is B better than A


#: what the comparison compares: (metric, condition, what the question calls it)
COMPARED = (("calib_score", None, "CalibScore"), ("ask_f1", None, "Ask-F1"),
            ("mean_score", ("ambiguous", True), "score with the ask tool"),
            ("score_gain_pp", None, "gain from asking (pp)"))


def _four(rs: RunSet | StoreView, *, k: int, n_boot: int, seed: int, confidence: float, alpha: float, conventions,
          family: str, specs=COMPARED) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """The rankings of ``specs`` and their pairs: one call per question where the families are per question or
    per metric (so that the first three cards' sentences, asking one question each, find them worked out), one
    call over them all where a family spans questions."""
    from ambiglib.comparisons import QUESTION_OF
    from ambiglib.ranking import _cached

    groups: dict[str, list] = {}
    for spec in specs:
        groups.setdefault(QUESTION_OF[spec[0]] if family in ("question", "metric") else "all", []).append(spec)
    agents, pairs, notes = [], [], []
    for group in groups.values():
        a, p, n = _cached(rs, group, between="model", k=k, test="auto", family=family, correction="holm",
                          alpha=alpha, n_boot=n_boot, n_perm=PERMUTATIONS, seed=seed, confidence=confidence,
                          conventions=conventions, pool_suites=True)
        agents.append(a)
        pairs.append(p)
        notes += n
    agents_ = pd.concat([a for a in agents if len(a)], ignore_index=True) if any(len(a) for a in agents) else \
        agents[0]
    pairs_ = pd.concat([p for p in pairs if len(p)], ignore_index=True) if any(len(p) for p in pairs) else pairs[0]
    return agents_, pairs_, list(dict.fromkeys(notes))


def _ranked(rs: RunSet | StoreView, table: pd.DataFrame, metrics_: tuple[str, ...], *, k: int = 3, n_boot: int = 2000,
            seed: int = 0, confidence: float = 0.95, conventions: ConventionsArg = None) -> list[str]:
    """A card's sentences: the ranking of the first of ``metrics_`` the log has (the fourth card's ranking of it,
    worked out once), claiming only what it shows: "best" only where one agent alone is in the top group."""
    if len(table) == 0:
        return []
    from ambiglib.comparisons import metric_name
    from ambiglib.ranking import ranking_sentences

    for metric in metrics_:
        spec = next((s for s in COMPARED if s[0] == metric), None) or \
            (metric, ("ambiguous", True), metric_name(metric, ("ambiguous", True)))
        specs = COMPARED[2:] if metric in ("mean_score", "score_gain_pp") else (spec,)
        try:
            agents, _, _ = _four(rs, k=k, n_boot=n_boot, seed=seed, confidence=confidence,
                                 alpha=round(1 - confidence, 10),
                                 conventions=conventions, family="question", specs=specs)
        except MetricError:
            continue
        mine = agents[agents["metric"] == metric] if len(agents) else agents
        if len(mine) and mine["value"].notna().any():
            return ranking_sentences(mine, "model", round(1 - confidence, 10))
    return []


@as_table
def agent_comparison(rs: RunSet | StoreMetrics | StoreView, *, k: int = 3, n_boot: int = 2000, seed: int = 0, confidence: float = 0.95,
                     alpha: float = 0.05, conventions: ConventionsArg = None, family: str = "question"
                     ) -> pd.DataFrame:
    """Is one agent better than another? Every pair of models, paired by task, adjusted within each family.

    CalibScore, Ask-F1, the score with the tool and the gain from asking, between every two models under one
    policy: the pairs behind :func:`agent_ranking` (the same decisions). Each row is
    :func:`ambiglib.comparisons.paired_comparison` with the benchmark's suites pooled; the p-values are adjusted
    by Holm within each family (``family``: by default each benchmark's metrics of one question, so that a
    benchmark's verdict does not change with the other benchmarks in the log), and the global test of the row's
    benchmark and metric (:mod:`ambiglib.ranking`) must reject first. ``verdict`` says it in words: "<a>
    higher" or "<b> higher" where the global test rejects, ``p_holm`` < ``alpha`` and the interval excludes 0;
    "not after the global test"; "cannot be significant at this size" (the smallest p the test could give, adjusted
    as its family's best case, is not below ``alpha``); "not after Holm (family of m)"; "interval and test
    disagree" (``ci_vs_test`` says why); "same on every task"; or "no clear difference".

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suites, policy, model_a, model_b, pair`` (a − b, in words), ``metric, what, unit`` ("pp" for
        percentage points, "0-1" for a share or score), ``condition, n_tasks, n_tasks_left_out, n_pairs, value_a,
        value_b, difference, difference_ci_low, difference_ci_high, ci_level, ci_method, test, n_differing,
        p_value, p_mc_se, p_holm, family, family_size, p_smallest, p_smallest_adjusted, ci_vs_test, verdict,
        rerun_sd``.
    """
    rs = viewed(rs)
    if isinstance(rs, StoreView):
        _answered_on_store(rs, "agent_comparison")
    from ambiglib.comparisons import NO_INTERVAL, unit_of

    _, out, notes = _four(rs, k=k, n_boot=n_boot, seed=seed, confidence=confidence, alpha=alpha,
                          conventions=conventions, family=family)
    cols = ["benchmark", "suites", "policy", "model_a", "model_b", "metric", "what", "unit", "condition", "n_tasks",
            "n_tasks_left_out", "n_pairs", "value_a", "value_b", "difference", "difference_ci_low",
            "difference_ci_high", "ci_level", "ci_method", "test", "n_differing", "p_value", "p_mc_se", "p_holm",
            "family", "family_size", "p_smallest", "p_smallest_adjusted", "ci_vs_test", "verdict", "rerun_sd"]
    if len(out) == 0:
        empty = _frame([], [*cols[:5], "pair", *cols[5:]])
        empty.attrs["note"] = "; ".join(notes) if notes else "fewer than two models in this log: nothing to compare"
        return empty
    out = out.rename(columns={"suite": "suites"})
    out["unit"] = [unit_of(m) for m in out["metric"]]
    rank = np.argsort(out["benchmark"].astype(str).to_numpy(), kind="stable")
    out = out.iloc[rank].reset_index(drop=True)
    out["pair"] = out["model_a"].astype(str) + " − " + out["model_b"].astype(str) + np.where(
        out["policy"].astype(str) == "default", "", " (both " + out["policy"].astype(str) + ")")
    if "log" in out.columns:  # several logs loaded together: two models are compared within each (comparisons._fixed)
        out["pair"] = out["pair"] + " in log " + out["log"].astype(str)
        cols = [*cols[:3], "log", *cols[3:]]
        out = out[[*cols[:6], "pair", *cols[6:]]]
    else:
        out = out[[*cols[:5], "pair", *cols[5:]]]
    out.attrs["note"] = "; ".join(notes + [f"a verdict needs the global test of its benchmark and metric to reject,"
                                           f" p_holm < {alpha} within its family and an interval that excludes 0"])
    explain_empty(out, {c: "no task's sides differ (n_differing 0): nothing to test" for c in
                        ("p_value", "p_holm", "p_smallest", "p_smallest_adjusted")})
    explain_empty(out, {"p_mc_se": "an exact test (every flip pattern, or McNemar's exact or mid-p p): no"
                                   " Monte-Carlo error",
                        "ci_vs_test": f"the interval and the test decide alike at the {alpha:g} level",
                        "rerun_sd": "the rerun spread is for the score, from tasks each side ran at least twice",
                        "difference_ci_low": NO_INTERVAL, "difference_ci_high": NO_INTERVAL})
    out.attrs["answer"] = _pairs_answer(out, alpha)
    return out


def _pairs_answer(out: pd.DataFrame, alpha: float) -> list[str]:
    """One sentence per benchmark: each pair told apart, naming both agents, with the difference in its unit, its
    interval and Holm p (the first six; then how many more); or that none is, with how many cannot be at this size
    and how many exclude 0 before Holm's adjustment and not after."""
    sentences, alike = [], []
    for bench, block in out.groupby("benchmark", sort=True):
        found = []
        for r in block.itertuples():
            if not str(r.verdict).endswith(" higher"):
                continue
            high, low = (r.model_a, r.model_b) if r.difference > 0 else (r.model_b, r.model_a)
            policy = f" (policy {r.policy})" if str(r.policy) != "default" else ""
            policy += f" in log {r.log}" if "log" in out.columns else ""
            unit = " pp" if r.unit == "pp" else ""
            digits = 1 if unit else 2
            found.append(f"{high} has a higher {r.what} than {low}{policy} ({r.difference:+.{digits}f}{unit} as"
                         f" {r.model_a} − {r.model_b}, 95% CI {r.difference_ci_low:+.{digits}f} to"
                         f" {r.difference_ci_high:+.{digits}f}{unit}, Holm p {_p_text(r.p_holm)} in its family)")
        if found:
            more = f"; and {len(found) - 6} more pairs (the table)" if len(found) > 6 else ""
            sentences.append(f"{bench}: " + "; ".join(found[:6]) + more)
        else:
            alike.append(bench)
    if alike:
        rows = out["benchmark"].isin(alike)
        n = int(rows.sum())
        cannot = int((rows & (out["verdict"] == "cannot be significant at this size")).sum())
        held = int((rows & out["verdict"].str.startswith("not after Holm")).sum())
        sentences.append(f"{', '.join(alike)}: no two models told apart"
                         + (f" ({cannot} of the {n} comparisons cannot be at this size, whatever their tasks'"
                            " outcomes: more tasks would tell)" if cannot else "")
                         + (f"; {held} of the {n} exclude 0 before Holm's adjustment and not after" if held else ""))
    return sentences


@as_table
def agent_ranking(rs: RunSet | StoreMetrics | StoreView, *, k: int = 3, n_boot: int = 2000, seed: int = 0, confidence: float = 0.95,
                  alpha: float = 0.05, conventions: ConventionsArg = None, family: str = "question",
                  long: bool = False) -> pd.DataFrame:
    """Is one agent better than another? Each agent ranked on CalibScore, Ask-F1, the score with the tool and the
    gain from asking, with its group letters and rank interval.

    The fourth card: :func:`ambiglib.ranking.rankings` of :data:`COMPARED` (a global test, every pair paired by
    task and adjusted within each family, rank intervals and a compact letter display; agents sharing a letter
    are not separated). One row per benchmark, policy and agent; per metric ``<metric>`` (its value),
    ``<metric>_ci_low, <metric>_ci_high`` (the agent's own interval), ``<metric>_rank_low, <metric>_rank_high``,
    ``<metric>_group``, ``<metric>_p_first``, ``<metric>_rank`` (of its point value). ``attrs["answer"]``: per
    benchmark, one clause per metric. ``long=True``: the ranking in long form instead, one row per agent and metric
    (:func:`ambiglib.ranking.rank_agents`' columns). The pairs: :func:`agent_comparison`. Rows are ordered by the
    score with the tool, best first."""
    rs = viewed(rs)
    if isinstance(rs, StoreView):
        _answered_on_store(rs, "agent_ranking")
    from ambiglib.ranking import ranking_sentences

    agents, pairs, notes = _four(rs, k=k, n_boot=n_boot, seed=seed, confidence=confidence, alpha=alpha,
                                 conventions=conventions, family=family)
    if long:
        from ambiglib.ranking import finish

        return finish(agents, pairs, notes, rs, "model", alpha)
    keys = [c for c in ("benchmark", "suites", "policy", "log") if c in agents.columns and agents[c].notna().any()]
    names = [m for m, _, _ in COMPARED]
    if len(agents) == 0:
        out = _frame([], [*keys, "model", "agent", *names])
        out.attrs["note"] = "; ".join(notes) if notes else "fewer than two models in this log: nothing to rank"
        return out
    wide = agents[[*keys, "agent"]].drop_duplicates().reset_index(drop=True)
    for metric in names:
        mine = agents[agents["metric"] == metric]
        part = mine[[*keys, "agent", "value", "value_ci_low", "value_ci_high", "rank", "rank_low", "rank_high",
                     "group", "p_first"]].rename(columns={"value": metric, "value_ci_low": f"{metric}_ci_low",
                                                          "value_ci_high": f"{metric}_ci_high", "rank": f"{metric}_rank",
                                                          "rank_low": f"{metric}_rank_low",
                                                          "rank_high": f"{metric}_rank_high",
                                                          "group": f"{metric}_group", "p_first": f"{metric}_p_first"})
        wide = wide.merge(part, on=[*keys, "agent"], how="left")
    order = wide["mean_score"].fillna(-np.inf).to_numpy() if "mean_score" in wide else np.zeros(len(wide))
    policy = wide["policy"].astype(str).to_numpy() if "policy" in wide else np.full(len(wide), "")
    wide = wide.iloc[np.lexsort((-order, policy != "default", policy, wide["benchmark"].astype(str).to_numpy()))] \
        .reset_index(drop=True)
    wide.insert(wide.columns.get_loc("agent"), "model", wide["agent"])
    wide["agent"] = [_agent_name(m, p) for m, p in zip(wide["model"], wide["policy"] if "policy" in wide else
                                                       ["default"] * len(wide))]
    if "log" in wide.columns:
        wide["agent"] = wide["agent"].astype(str) + " [" + wide["log"].astype(str) + "]"
    wide.attrs["answer"] = ranking_sentences(agents, "model", alpha, short=True, metrics=names)
    wide.attrs["note"] = _decisions_note(pairs, alpha)
    wide.attrs["scope"] = {"protocol": "solve"}
    for metric, condition, _ in COMPARED:
        lacking = {}
        for bench in sorted(set(wide["benchmark"].astype(str))):
            if metric not in wide or not wide.loc[wide["benchmark"].astype(str) == bench, metric].isna().any():
                continue
            mine = agents[(agents["benchmark"].astype(str) == bench) & (agents["metric"] == metric)]
            if len(mine) == 0:
                lacking[bench] = _lacks(rs.filter(benchmark=bench), metric, "model", condition or ("ambiguous", True)) \
                    or "fewer than two models with runs the metric needs on the same tasks"
            else:
                lacking[bench] = ("an agent without a value has none of the runs the metric needs under its policy"
                                  " (only ask-only runs, or none in its condition), or no value of it on its runs"
                                  " (no question asked: no precision): it is not ranked on it")
        if lacking:  # (a reason naming no metric is shared by every column it explains: one footnote)
            text = "; ".join(f"{bench}: {why}" for bench, why in lacking.items())
            columns = [c for c in wide.columns if c == metric or c.startswith(f"{metric}_")]
            explain_empty(wide, {c: text for c in columns},
                          by_benchmark={c: dict(lacking) for c in columns})
    wide.attrs["ranked"] = {metric: what for metric, _, what in COMPARED}
    return wide


def _p_text(p: float) -> str:
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def _decisions_note(pairs: pd.DataFrame, alpha: float) -> str:
    """What the fourth card's reader needs to sign it, in few words: what a letter and a rank interval mean, when two
    agents are told apart, the families, and how many pairs cannot be told apart at this size."""
    said = [f"Agents sharing a letter are not told apart; the rank intervals hold every agent's rank at once with"
            f" probability ≥ {1 - alpha:g}. Told apart: the benchmark's global test rejects, Holm p < {alpha:g}"
            " within the family and the 95% interval (unadjusted) excludes 0"]
    if len(pairs):
        kinds = {str(f).split(" · ")[-1] for f in pairs["family"]}
        words = "each benchmark's" + (" metrics of one question" if kinds <= set(QUESTION_WORDS.values()) else "")
        said.append(f"families: {words} ({len(pairs)} pairs in {pairs['family'].nunique()})")
        cannot = int((pairs["p_smallest_adjusted"] >= alpha).sum())
        if cannot:
            said.append(f"{cannot} pair(s) cannot be told apart at this size, whatever their tasks' outcomes")
        said.append("every pair, with its tasks and runs: the table 'every pair' in the section")
    return "; ".join(said)


def comparison_tasks(rs: RunSet, row: Mapping | pd.Series, *, between: str = "model", pool_suites: bool = True,
                     k: int = 3, conventions: ConventionsArg = None) -> pd.DataFrame:
    """The tasks behind one comparison row, the tasks that move its difference most first
    (:func:`ambiglib.comparisons.per_task`): a row of :func:`agent_comparison` (two models, the benchmark's suites
    pooled), or of ``paired_comparison(rs, between=..., pool_suites=...)`` with the same ``between`` and
    ``pool_suites``; the metric and its runs are the row's."""
    from ambiglib.comparisons import per_task

    condition = next((c for metric, c, _ in COMPARED if metric == row["metric"]), None) or ("ambiguous", True)
    out = per_task(rs.filter(benchmark=row["benchmark"]), metric=row["metric"], between=between,
                   condition=condition, a=row[f"{between}_a"], b=row[f"{between}_b"], k=k, conventions=conventions,
                   pool_suites=pool_suites)
    keep = np.ones(len(out), dtype=bool)
    for column in ("suite", "model", "policy", "log"):  # the row's own block: its fixed columns
        if column in out.columns and column in row and not (column == "suite" and pool_suites):
            keep &= (out[column] == row[column]).to_numpy(dtype=bool)
    return out[keep].reset_index(drop=True)


def answers(rs: RunSet, *, k: int = 3, n_boot: int = 2000, seed: int = 0,
            conventions: Mapping[str, str] | None = None) -> dict[str, pd.DataFrame]:
    """The four tables, by the name of the function answering each question (:data:`QUESTIONS`)."""
    return {"asking": asking(rs, n_boot=n_boot, seed=seed, conventions=conventions),
            "question_quality": question_quality(rs, n_boot=n_boot, seed=seed),
            "payoff": payoff(rs, k=k, n_boot=n_boot, seed=seed, conventions=conventions),
            "agent_ranking": agent_ranking(rs, k=k, n_boot=n_boot, seed=seed, conventions=conventions)}


# ============================================================================= in words


#: each opening column's interval as ambiglib.stats._coverage names it, and the runs it is made from (spec,
#: with the tool)
_COVERAGE_OF = {"ask_on_ambiguous": ("ask rate, ambiguous", "ambiguous", True),
                "ask_on_full": ("ask rate, full", "full", True), "calib_score": ("CalibScore", None, True),
                "questions_per_run": ("questions per run", "ambiguous", True),
                "precision": ("precision", "ambiguous", True), "recall": ("recall", "ambiguous", True),
                "ask_f1": ("Ask-F1", "ambiguous", True), "score_full": ("score, full", "full", False),
                "score_no_tool": ("score, ambiguous, no tool", "ambiguous", False),
                "score_with_tool": ("score, ambiguous, with tool", "ambiguous", True),
                "score_gain_pp": ("gain from asking (pp)", "ambiguous", True),
                "gap_to_full_pp": ("gap to full (pp)", "ambiguous", True),
                "gain_pp_per_question_per_run": ("gain ÷ questions per run (pp)", "ambiguous", True)}


def _coverage_notes(out: pd.DataFrame, rs: RunSet | StoreView) -> None:
    """Add to the note where an interval of the table covers less than 95% at its design (the fewest tasks an
    agent of the benchmark has, and its trials a task), as measured by simulation
    (:mod:`ambiglib.stats._coverage`); a benchmark below the 8 tasks measured is said once."""
    from ambiglib.stats._coverage import warning

    if len(out) == 0:
        return
    said: list[str] = []
    for bench, block in out.groupby("benchmark", sort=True):
        few = []
        for column, (name, spec, tool) in _COVERAGE_OF.items():
            if column not in block or f"{column}_ci_low" not in block or block[f"{column}_ci_low"].isna().all():
                continue  # no interval shown: nothing to warn of
            # per benchmark, once for the three tables that call this: their ~13 columns read 5 designs
            designs = rs.memo(("coverage designs", bench), partial(_designs, rs, bench), share=True)
            design = designs[(spec, tool)]
            if design is None:
                continue
            n, trials = design
            if n < 8:
                few.append(n)
                continue
            text = warning(name, n, round(trials), str(bench))
            if text:
                said.append(text)
        if few:
            said.append(f"{bench} ({min(few)} tasks): fewer tasks than the 8 at which the intervals' coverage was"
                        " measured (bench/coverage.py): read its intervals as rough")
    if said:
        out.attrs["note"] = "; ".join(n for n in (out.attrs.get("note"), *said) if n)


def _designs(rs: RunSet | StoreView, bench: object) -> dict[tuple[str | None, bool], tuple[int, float] | None]:
    """Per (spec, tool) of :data:`_COVERAGE_OF`, among the runs without error of ``bench`` of that spec (None:
    either) with or without the tool: the fewest tasks an agent (model and policy) has and the median of its trials
    a task; None where there is no such run. From each agent's tasks and runs per spec and tool (a store's counted
    by its engine, :meth:`StoreView.designs`)."""
    if isinstance(rs, StoreView):
        designs = rs.designs()
        mine = designs[(designs["benchmark"] == bench).to_numpy(dtype=bool)]
    else:
        # the columns read below, before any rows are taken: every other column of the runs was copied for nothing
        runs = _work(rs)[["error", "benchmark", "spec", "ask_tool", "model", "policy", "task_id"]]
        runs = runs[~runs["error"] & (runs["benchmark"] == bench)]
        counted = {"tasks": ("task_id", "nunique"), "runs": ("task_id", "size")}
        mine = pd.concat([
            runs.groupby(["ask_tool", "model", "policy", "spec"], sort=False).agg(**counted).reset_index()
            .assign(any_spec=False),
            runs.groupby(["ask_tool", "model", "policy"], sort=False).agg(**counted).reset_index()
            .assign(spec="", any_spec=True)], ignore_index=True)
    out: dict[tuple[str | None, bool], tuple[int, float] | None] = {}
    for spec, tool in dict.fromkeys((spec, tool) for _, spec, tool in _COVERAGE_OF.values()):
        keep = (mine["ask_tool"] == tool).to_numpy(dtype=bool) & (
            mine["any_spec"].to_numpy(dtype=bool) if spec is None else
            (~mine["any_spec"].to_numpy(dtype=bool)) & (mine["spec"] == spec).to_numpy(dtype=bool))
        per = mine[keep]
        out[(spec, tool)] = None if len(per) == 0 else (int(per["tasks"].min()), float(np.median(
            per["runs"].to_numpy(np.int64) / per["tasks"].to_numpy(np.int64))))
    return out


def _no_spread(out: pd.DataFrame, stats_: list[str]) -> None:
    """Say why an unbounded statistic with a value has no interval: every task gave the same value (each run asked
    one question), so there is no spread between tasks to make one from; a task bootstrap's interval would be a point
    ("1.0 to 1.0"), claiming more than the tasks show. Where some rows lack the value itself, both causes are said."""
    for name in stats_:
        if name not in out or f"{name}_ci_low" not in out:
            continue
        flat = out[name].notna() & out[f"{name}_ci_low"].isna()
        if not flat.any():
            continue
        text = (f"{', '.join(map(str, out.loc[flat, 'agent']))}: every task gave the same {name} (no spread between"
                " tasks to make an interval from; a task bootstrap would claim a point)")
        if (out[name].isna()).any():
            text += f"; elsewhere no {name} (see {name})"
        explain_empty(out, {f"{name}_ci_low": text, f"{name}_ci_high": text})


def _say_own_intervals(out: pd.DataFrame) -> None:
    """Add to the note what a reader must not take from two agents' own intervals, where a benchmark has more
    than one agent."""
    if len(out) == 0 or not (out.groupby("benchmark")["agent"].nunique() > 1).any():
        return
    said = ("each interval is one agent's own: whether two agents differ is the fourth question, paired by task"
            " (overlapping intervals are no evidence that they do not)")
    out.attrs["note"] = "; ".join(n for n in (out.attrs.get("note"), said) if n)
