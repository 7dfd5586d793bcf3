"""Every number the three papers report, defined once, one module per question a researcher asks.

Each function is pure: it takes a :class:`~ambiglib.RunSet`, returns a new tidy
DataFrame with one row per group (group columns first) and never mutates its
input. Defaults follow the papers' text, checked against their printed numbers;
named variants reproduce what the released harnesses compute instead
(``docs/metrics.md`` lists both, with sources).

The modules have the same names as :mod:`ambiglib.tables`' (a reader who found a table finds its
metric): :mod:`~ambiglib.metrics._asking` (Ask-F1, calibration, pass@k),
:mod:`~ambiglib.metrics._reliability` (pass^k, the flip share, the rerun spread),
:mod:`~ambiglib.metrics._information` (value of information, performance),
:mod:`~ambiglib.metrics._labels` (categories, majority labels, label and flag shares),
:mod:`~ambiglib.metrics._data` (ambiguity classes) and :mod:`~ambiglib.metrics._harness` (the harnesses'
own summaries recomputed, and the anomalies in their output). Every public name is reachable here as
``ambiglib.metrics.<name>``.

Conventions shared by all metrics:

* Runs with status ``error`` (harness failures) are excluded and counted in
  ``n_excluded``; ``invalid`` and ``timeout`` runs score 0 and stay in every
  denominator (Ambig-DS §5.1).
* A condition column (``spec``, ``ask_tool``, ``policy``, ``protocol``) that a
  metric does not fix and ``by`` does not name must be constant within each
  group: a group that mixes, say, two ask policies is an error that says so,
  never a silent pool. Where a metric compares runs with and without the ask tool,
  ``policy`` splits only the with-tool runs (the no-tool runs have no policy to
  vary).
* ``ci=True`` adds ``<stat>_ci_low`` and ``<stat>_ci_high``: Wilson intervals for
  simple proportions, and for pooled ratios a bootstrap that resamples tasks
  (``task_id``, all trials and variants of a task together) and recomputes the
  pooled ratio (runlog-v1 B.9).
"""

from typing import Any

from ambiglib import _moved
from ambiglib.metrics import _common, _labels
from ambiglib.metrics._asking import ask_calibration, ask_f1, calib_score, pass_at_k
from ambiglib.metrics._common import MetricError
from ambiglib.metrics._data import ambiguity_classes
from ambiglib.metrics._information import performance, value_of_information
from ambiglib.metrics._labels import (
    category_shares,
    conditional_scores,
    flag_shares,
    label_shares,
    majority_labels,
)
from ambiglib.metrics._reliability import flip_share, pass_hat_k, rerun_sd

#: shared with the tables, where they were before the metrics became a package
CONDITIONS = _common.CONDITIONS
FAILED = _common.FAILED
CATEGORY_ORDER = _labels.CATEGORY_ORDER
UNSUBSTANTIVE = _labels.UNSUBSTANTIVE

__all__ = [
    "ask_f1",
    "majority_labels",
    "ask_calibration",
    "calib_score",
    "value_of_information",
    "pass_at_k",
    "pass_hat_k",
    "flip_share",
    "rerun_sd",
    "ambiguity_classes",
    "performance",
    "category_shares",
    "conditional_scores",
    "label_shares",
    "flag_shares",
    "MetricError",
]


def __getattr__(name: str) -> Any:
    """``ambiglib.metrics.asking`` and the other modules that became private, as their old names."""
    return _moved.attribute(__name__, name)
