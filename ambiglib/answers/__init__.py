"""Which agent asks better, and does it pay off? The four questions a researcher brings to a log, answered per
agent with their intervals (:func:`asking`, :func:`question_quality`, :func:`payoff`, :func:`agent_ranking` and the
pairs behind it), and each answer as a notebook shows it: a sentence per agent over the table it comes from
(:class:`Answer`, what ``rs.asking()`` and the other run-set methods return). The runs and questions behind each
row are :mod:`ambiglib.evidence`'s."""

from __future__ import annotations

from typing import Any

from ambiglib import _moved
from ambiglib.answers._headline import (
    QUESTIONS,
    SHOWN,
    agent_comparison,
    agent_ranking,
    answers,
    asking,
    comparison_tasks,
    payoff,
    question_quality,
)
from ambiglib.answers._notebook import (
    Answer,
    TaskList,
    asking_answer,
    compare_answer,
    payoff_answer,
    question_quality_answer,
    rank_answer,
)

__all__ = ["asking", "question_quality", "payoff", "agent_comparison", "agent_ranking", "comparison_tasks",
           "answers", "QUESTIONS", "SHOWN", "Answer", "TaskList", "asking_answer", "question_quality_answer",
           "payoff_answer", "compare_answer", "rank_answer"]


def __getattr__(name: str) -> Any:
    """``ambiglib.answers.headline`` and the other modules that moved here, as their old names."""
    return _moved.attribute(__name__, name)
