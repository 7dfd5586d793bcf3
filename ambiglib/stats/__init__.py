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

import warnings
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

#: Public names that moved out of this module, and their new home. Each still works for at least one minor version,
#: with a DeprecationWarning naming where it went (CHANGELOG.md: the policy, and each name under "Deprecated").
_MOVED = {"fleiss_kappa": "ambiglib.agreement", "cohen_kappa": "ambiglib.agreement",
         "majority_vote": "ambiglib.agreement"}
#: The first version without the old names
_MOVED_UNTIL = _moved.UNTIL


def __getattr__(name: str) -> Any:
    """An old name of ``_MOVED``: the function from its new home, with a DeprecationWarning that names it."""
    if name in _MOVED:
        from ambiglib import agreement

        warnings.warn(f"ambiglib.stats.{name} is deprecated: it is {_MOVED[name]}.{name}; the old name goes in"
                      f" ambiglib {_MOVED_UNTIL}", DeprecationWarning, stacklevel=2)
        return getattr(agreement, name)
    raise AttributeError(f"module 'ambiglib.stats' has no attribute {name!r}")
