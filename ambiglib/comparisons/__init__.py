"""Is agent A better than agent B? Paired comparisons of a metric between two models, two ask policies, or
with and without the tool.

Every comparison is paired by task. A metric is computed for each side over the tasks where *both*
sides have a value of it (a task where a side asked nothing has no precision; one run fewer than k
times has no pass@k): the values, the interval and the test use those tasks and no others, and
``n_pairs`` counts them. The difference is side a − side b, in the order the sides are given. Nothing is
pooled across a condition the comparison does not name.

Each concept has its module, whose docstring says the method and its sources; every name is reachable here:

* :mod:`._comparable`: the metrics a comparison takes, their names, units, questions and runs;
* :mod:`._sums`: each metric's per-task sums, from which a side's value, interval and test are computed;
* :mod:`._pairing`: the blocks and pairs of sides, the tasks both have, and why a pair gives no row;
* :mod:`._intervals`: the interval of a difference (t, linearized or bootstrap), beside the test, and the
  rerun spread;
* :mod:`._tests`: the test fitted to the outcome (McNemar, sign-flip permutation, Wilcoxon) and its flips;
* :mod:`._effect_sizes`: the rank-biserial correlation and the probability of improvement;
* :mod:`._family`: the p-values adjusted within a family (Holm or Benjamini–Hochberg), each row finished;
* :mod:`._comparison`: the table, :func:`paired_comparison` and :func:`model_comparison`;
* :mod:`._per_task`: the comparison task by task, :func:`per_task`.
"""

from __future__ import annotations

# the public API (__all__), then every other name that ambiglib's modules, scripts and tests import from here, as
# they did from comparisons.py before the split: each imported "as" itself, so a type checker sees it exported
from ambiglib.comparisons._comparable import COMPARABLE, describe_condition
from ambiglib.comparisons._comparable import CONDITIONED as CONDITIONED
from ambiglib.comparisons._comparable import IN_PP as IN_PP
from ambiglib.comparisons._comparable import METRIC_NAMES as METRIC_NAMES
from ambiglib.comparisons._comparable import QUESTION_OF as QUESTION_OF
from ambiglib.comparisons._comparable import QUESTION_WORDS as QUESTION_WORDS
from ambiglib.comparisons._comparable import SCORED as SCORED
from ambiglib.comparisons._comparable import UNITS as UNITS
from ambiglib.comparisons._comparable import metric_name as metric_name
from ambiglib.comparisons._comparable import unit_of as unit_of
from ambiglib.comparisons._comparison import compared as compared
from ambiglib.comparisons._comparison import model_comparison, paired_comparison
from ambiglib.comparisons._effect_sizes import prob_improvement, rank_biserial
from ambiglib.comparisons._family import CORRECTIONS
from ambiglib.comparisons._family import FAMILIES as FAMILIES
from ambiglib.comparisons._family import family_of as family_of
from ambiglib.comparisons._family import settle as settle
from ambiglib.comparisons._intervals import FEW_FOR_BOOTSTRAP as FEW_FOR_BOOTSTRAP
from ambiglib.comparisons._intervals import INTERVALS as INTERVALS
from ambiglib.comparisons._intervals import NO_INTERVAL as NO_INTERVAL
from ambiglib.comparisons._intervals import T_OF_DIFFERENCES as T_OF_DIFFERENCES
from ambiglib.comparisons._pairing import _fixed as _fixed
from ambiglib.comparisons._pairing import _lacks as _lacks
from ambiglib.comparisons._pairing import _side_order as _side_order
from ambiglib.comparisons._pairing import count_pairs
from ambiglib.comparisons._per_task import per_task
from ambiglib.comparisons._sums import _Sums as _Sums
from ambiglib.comparisons._tests import FEW_DIFFERING as FEW_DIFFERING
from ambiglib.comparisons._tests import FIRST_FLIPS as FIRST_FLIPS
from ambiglib.comparisons._tests import FLIP_BUDGET as FLIP_BUDGET
from ambiglib.comparisons._tests import TESTS, flips_for
from ambiglib.comparisons._tests import Alternative as Alternative
from ambiglib.comparisons._tests import smallest_p as smallest_p

__all__ = ["paired_comparison", "model_comparison", "COMPARABLE", "TESTS", "CORRECTIONS", "rank_biserial",
           "prob_improvement", "describe_condition", "flips_for", "count_pairs", "per_task"]
