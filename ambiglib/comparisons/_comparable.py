"""What a comparison can compare, and how each metric is said: the metrics (:data:`COMPARABLE`), their
names in a sentence, their units, which of the four questions each answers, and the runs each compares."""

from __future__ import annotations

from ambiglib.tables._shapes import Conventions

#: the metrics paired_comparison compares: name → what it is
COMPARABLE: dict[str, str] = {
    "mean_score": "mean score per task (solve runs in the condition; invalid and timeout score 0)",
    "pass_at_k": "pass@k per task (the benchmark's estimator: HIL-Bench first k, else unbiased)",
    "ask_rate": "share of runs with the ask tool that asked at least one question, on ambiguous tasks (condition"
                " ambiguous+tool, the default) or on fully specified ones (full+tool: over-asking); under Ambig-DS's"
                " conventions its ask-only runs, as CalibScore",
    "questions_per_run": "questions a run asks with the tool on ambiguous tasks (solve runs)",
    "judge_score": "the judges' mean numeric score of single questions (labels with q_index; a question's calls and"
                   " judges averaged first), over judged questions of solve runs with the tool on ambiguous tasks",
    "ask_f1": "Ask-F1 from pooled precision and recall (ask-tool runs on ambiguous tasks; an agent that asks"
              " nothing has recall 0 and Ask-F1 0)",
    "precision": "question precision (relevant questions / questions), over tasks where both sides asked: without"
                 " a question precision is undefined",
    "recall": "blocker recall (blockers addressed / registered blockers)",
    "calib_score": "CalibScore of the ask-tool runs on full and ambiguous tasks (from the two pooled ask rates)",
    "gain_per_question": "score gain with the tool (pp) per question a with-tool run asks (gain ÷ questions per"
                         " run), over tasks where both asked; LHAW's Gain/Q (gain ÷ all questions) is in its"
                         " value_of_information table",
    "score_gain_pp": "mean-score gain with the tool, pp",
    "pass_gain_pp": "pass@k gain with the tool, pp",
}
#: the gains from the tool: metric → the gain it is, or divides by the questions a run asks
_VOI = {"gain_per_question": "score_gain_pp", "score_gain_pp": "score_gain_pp", "pass_gain_pp": "pass_gain_pp"}
#: metrics whose runs are chosen by ``condition`` (the others fix their own); ask_rate's condition keeps the tool
CONDITIONED = ("mean_score", "pass_at_k", "ask_rate")
#: metrics compared with and without the ask tool (``between="ask_tool"``)
SCORED = ("mean_score", "pass_at_k")
#: which of the four questions each metric answers: a Holm family is one benchmark's metrics of one question
QUESTION_OF = {"ask_rate": "asking", "calib_score": "asking", "questions_per_run": "question_quality",
               "judge_score": "question_quality",
               "precision": "question_quality", "recall": "question_quality", "ask_f1": "question_quality",
               "mean_score": "payoff", "pass_at_k": "payoff", "score_gain_pp": "payoff", "pass_gain_pp": "payoff",
               "gain_per_question": "payoff"}
#: the four questions' short names, for a family's label
QUESTION_WORDS = {"asking": "does it ask when it should", "question_quality": "are its questions good",
                  "payoff": "does asking pay off"}
#: each metric's name in a sentence
METRIC_NAMES = {"mean_score": "mean score", "pass_at_k": "pass@k", "ask_rate": "ask rate", "questions_per_run":
                "questions per run", "judge_score": "judge score", "ask_f1": "Ask-F1", "precision": "precision", "recall": "recall",
                "calib_score": "CalibScore", "gain_per_question": "gain per question (pp)",
                "score_gain_pp": "gain from asking (pp)", "pass_gain_pp": "pass@k gain from asking (pp)"}


def metric_name(metric: str, condition: tuple[str, bool] | None = None) -> str:
    """A metric's name in a sentence, with its condition where the metric takes one ("ask rate on fully specified
    tasks", "mean score, ambiguous without the tool")."""
    name = METRIC_NAMES.get(metric, metric)
    if metric == "ask_rate" and condition is not None:
        return f"{name} on {'fully specified' if condition[0] == 'full' else 'ambiguous'} tasks"
    if metric in ("mean_score", "pass_at_k") and condition is not None and condition != ("ambiguous", True):
        spec = "fully specified" if condition[0] == "full" else "ambiguous"
        return f"{name}, {spec} {'with' if condition[1] else 'without'} the tool"
    return name


#: the metrics whose values are percentage points (a difference of two is too); the rest are on 0-1 or counts
IN_PP = ("score_gain_pp", "pass_gain_pp", "gain_per_question")
#: each metric's unit, as a table's ``unit`` column says it: percentage points, a share or score on 0-1, or its own
UNITS = {**{m: "pp" for m in IN_PP}, "questions_per_run": "questions", "judge_score": "the judges' scale"}


def unit_of(metric: str) -> str:
    """A metric's unit in words: "pp", "0-1", "questions" or "the judges' scale"."""
    return UNITS.get(metric, "0-1")


def describe_condition(metric: str, between: str, condition: tuple[str, bool] | None = ("ambiguous", True),
                       conv: Conventions | None = None) -> str:
    """The runs a comparison of ``metric`` uses, in words ("ambiguous tasks with the ask tool")."""
    if between == "ask_tool" or metric in _VOI:
        return "ambiguous tasks, with the ask tool (a) vs without (b)" if between == "ask_tool" else \
            "ambiguous tasks, with the ask tool vs without"
    if metric == "ask_rate":
        only = conv.calibration_protocol if conv is not None else None
        spec = "every" if condition is None else "fully specified" if condition[0] == "full" else condition[0]
        return f"{spec} tasks with the ask tool" + (f" ({only} runs)" if only else "")
    if metric in CONDITIONED:
        if condition is None:
            return "every solve run"
        spec, tool = condition
        return f"{'fully specified' if spec == 'full' else spec} tasks {'with' if tool else 'without'} the ask tool"
    if metric == "calib_score":
        only = conv.calibration_protocol if conv is not None else None
        return "runs with the ask tool on ambiguous and fully specified tasks" + (f" ({only} runs)" if only else "")
    return "ambiguous tasks with the ask tool"

