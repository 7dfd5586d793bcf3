"""Paper-shaped tables, one module per question a researcher asks of a log.

Each function returns a DataFrame laid out like the printed table it computes (the table is named in
its docstring), built only from the frames, :mod:`ambiglib.metrics` and :mod:`ambiglib.stats`. The
modules have the same names as :mod:`ambiglib.metrics`' (a reader who found a table finds its metric):

* :mod:`~ambiglib.tables._asking` — did the agent ask well (Ask-F1, judgment gap, pass rates, questions,
  leaderboard, calibration, over- and under-asking);
* :mod:`~ambiglib.tables._information` — was asking worth it (value of information, performance, the gain
  by segment, dimension, class, persona, strategy and benchmark);
* :mod:`~ambiglib.tables._labels` — what the judges said (recognition, reliability, framing, failure modes);
* :mod:`~ambiglib.tables._data` — what the log holds (composition, coverage, blockers, variants, classes,
  calls, power, selector accuracy);
* :mod:`~ambiglib.tables._reliability` — is the agent reliable (pass@1, pass@k, pass^k, the noise floor);
* :mod:`~ambiglib.tables._harness` — what the harness said (its summary recomputed, anomalies, conventions).

The cut follows what each table is *about*, not which paper prints it: LHAW's ambiguity classes are data
(a label per variant), the gain per class is information. Paired comparisons between models, policies or
conditions build on these tables and live above them, in :mod:`ambiglib.comparisons`.

Every public name is reachable here as ``ambiglib.tables.<name>``; each returns a :class:`Table` (a DataFrame
whose Jupyter display shows its caption and note).
"""

from typing import Any

from ambiglib import _moved
from ambiglib.tables import _asking, _common, _labels, _shapes
from ambiglib.tables._asking import (
    ask_calibration,
    ask_diagnostics,
    judgment_gap,
    leaderboard,
    pass_rates,
    questions_per_task,
)
from ambiglib.tables._data import (
    ambiguity_classes,
    blocker_stats,
    calls_per_trial,
    composition,
    coverage,
    power_analysis,
    selector_accuracy,
    variant_distribution,
)
from ambiglib.tables._harness import convention_audit, harness_anomalies, harness_summary
from ambiglib.tables._information import (
    by_ambiguity_class,
    by_dimension,
    generality,
    performance,
    personas,
    prompting_strategies,
    removal_strategies,
    segments_removed,
    value_of_information,
)
from ambiglib.tables._labels import (
    ask_failure_flags,
    ask_failure_modes,
    conditional_scores,
    failure_mode_shift,
    failure_modes,
    framing_categories,
    judge_reliability,
    recognition_audit,
)
from ambiglib.tables._reliability import reliability

# every table is returned as a Table (a DataFrame whose Jupyter display shows its caption and note): each function
# is defined so in its module (``@as_table``), the same object here and there
Table = _common.Table

#: constants the tables are built with, where they were before the tables became a package
ConventionsArg = _common.ConventionsArg
PASS_RATE_COLUMNS = _asking.PASS_RATE_COLUMNS
LHAW_FAILURE_CATEGORIES = _labels.LHAW_FAILURE_CATEGORIES
LHAW_FLAGS = _labels.LHAW_FLAGS
#: what each table needs from a log (``docs/own-benchmark.md``), and the conventions each benchmark's tables follow
SHAPES = _shapes.SHAPES
CONVENTIONS = _shapes.CONVENTIONS

__all__ = [
    # asking
    "judgment_gap", "pass_rates", "questions_per_task", "leaderboard",
    "ask_calibration", "ask_diagnostics",
    # information
    "value_of_information", "performance", "segments_removed", "by_dimension", "by_ambiguity_class", "personas",
    "prompting_strategies", "removal_strategies", "generality",
    # labels
    "recognition_audit", "judge_reliability", "framing_categories", "conditional_scores", "failure_modes",
    "failure_mode_shift", "ask_failure_modes", "ask_failure_flags",
    # data
    "composition", "coverage", "blocker_stats", "variant_distribution", "ambiguity_classes", "calls_per_trial",
    "power_analysis", "selector_accuracy",
    # reliability
    "reliability",
    # harness
    "harness_summary", "harness_anomalies", "convention_audit",
]  # (and ``Table``, the class every one of them returns)


def __getattr__(name: str) -> Any:
    """``ambiglib.tables.asking`` and the other modules that became private (``ambiglib.shapes`` too), as their old
    names."""
    return _moved.attribute(__name__, name)
