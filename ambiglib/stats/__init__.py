"""Statistics on plain arrays and frames, knowing nothing of run logs: intervals, the task bootstrap, paired tests
fitted to the outcome and their families, and how well the intervals cover at a design's size (judges'
agreement: ``ambiglib.agreement``).

The metric is separate from its uncertainty: :func:`cluster_bootstrap` takes any
statistic written against bootstrap *weights*, so one matrix product evaluates it
on all replicates at once. Resampling is by cluster (task): every trial of a task
enters or leaves a replicate together.

References
----------
Ambig-DS §5.1 and Appendix C.8–C.9 (Wilcoxon, paired bootstrap); Appendix C.2,
Table 7 (Wilson intervals).
"""

from __future__ import annotations

from typing import Any

from ambiglib import _moved
from ambiglib.stats._bootstrap import (
    BOOTSTRAP_BLOCK,
    KEPT_COUNTS_BYTES,
    MAX_N_BOOT,
    bootstrap_blocks,
    bootstrap_counts,
    bootstrap_totals,
    check_n_boot,
    cluster_bootstrap,
    paired_bootstrap_ci,
    percentile_ci,
)
from ambiglib.stats._coverage import MEASURED, coverage_at
from ambiglib.stats._intervals import ClusteredWilson, t_interval, wilson_ci, wilson_ci_clustered
from ambiglib.stats._ratio_intervals import Linearized, linearized_ci
from ambiglib.stats._significance import PairedTest, mcnemar_exact, mcnemar_midp, paired_permutation
from ambiglib.stats._tests import WilcoxonResult, holm, paired_wilcoxon, wilcoxon_power

__all__ = [
    # intervals
    "wilson_ci", "wilson_ci_clustered", "ClusteredWilson", "t_interval", "linearized_ci", "Linearized",
    # the task bootstrap
    "bootstrap_counts", "bootstrap_blocks", "bootstrap_totals", "cluster_bootstrap", "paired_bootstrap_ci",
    "percentile_ci", "check_n_boot", "MAX_N_BOOT", "BOOTSTRAP_BLOCK", "KEPT_COUNTS_BYTES",
    # paired tests fitted to the outcome, their family, their power
    "paired_wilcoxon", "WilcoxonResult", "mcnemar_exact", "mcnemar_midp", "paired_permutation", "PairedTest",
    "holm", "wilcoxon_power",
    # how well the intervals cover at a design's size
    "coverage_at", "MEASURED",
]

def __getattr__(name: str) -> Any:
    """``fleiss_kappa``, ``cohen_kappa`` and ``majority_vote``, moved to ``ambiglib.agreement``, with a warning
    (``ambiglib._moved.NAMES``; CHANGELOG.md: the policy, and each name under "Deprecated")."""
    return _moved.attribute(__name__, name)
