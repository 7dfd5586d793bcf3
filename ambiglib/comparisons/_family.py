"""The p-values adjusted within a family, and each row finished (:func:`settle`).

The family (``family``, column ``family``): by default each benchmark's rows of one of the four questions, so that
a benchmark's verdict does not change with the other benchmarks in the log (``family="metric"`` narrower,
``"benchmark"`` or ``"all"`` wider). By Holm (``p_holm``, the default), which bounds the chance of any false
difference in the family (the family-wise error rate), or by Benjamini–Hochberg (``correction="fdr_bh"``,
``p_fdr_bh``), which bounds the expected share of false differences among those it finds (the false discovery
rate), and the note says so. ``p_smallest`` is the smallest p the row's test could give with its tasks that differ,
``p_smallest_adjusted`` that adjusted as its family's best case: at or above the level, the row cannot be
significant whatever the outcomes (more tasks would tell)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ambiglib.comparisons._comparable import QUESTION_OF, QUESTION_WORDS
from ambiglib.comparisons._intervals import FEW_FOR_BOOTSTRAP, NO_INTERVAL, _ci_vs_test, _coverage_warnings
from ambiglib.comparisons._tests import FEW_DIFFERING, _more_flips, smallest_p
from ambiglib.stats._tests import _adjusted
from ambiglib.tables._common import explain_empty

#: how the p-values are adjusted over a table's rows: statsmodels' ``multipletests`` method → (its name, what
#: rows whose adjusted p, column ``p_<method>``, is below a level then mean)
CORRECTIONS: dict[str, tuple[str, str]] = {
    "holm": ("Holm", "the chance that any row below a level is a false difference (the family-wise error rate) is"
                     " at most that level, however the tests depend on each other"),
    "fdr_bh": ("Benjamini–Hochberg", "the expected share of false differences among the rows below a level (the"
                                     " false discovery rate) is at most that level, for tests independent or"
                                     " positively dependent; the chance of any false difference is not bounded, as"
                                     " Holm's is (correction='holm')"),
}
#: the families a comparison's p-values can be adjusted over (``family=``), narrowest first: each benchmark's rows
#: of one metric, of one of the four questions (the default: each benchmark's conclusion on a question stands
#: alone), of the benchmark, or every row of the table
FAMILIES = ("metric", "question", "benchmark", "all")
_FAMILY_WORDS = {"metric": "benchmark and metric", "question": "benchmark and question", "benchmark": "benchmark"}


def _check_correction(correction: object) -> None:
    if correction not in CORRECTIONS:
        raise ValueError(f"paired_comparison: correction must be one of {list(CORRECTIONS)} (got {correction!r})")


def _check_family(family: object) -> None:
    if family not in FAMILIES:
        raise ValueError(f"paired_comparison: family must be one of {list(FAMILIES)} (got {family!r})")


def family_of(out: pd.DataFrame, family: str = "question") -> np.ndarray:
    """Each comparison row's family (``family``: :data:`FAMILIES`), as its label: "hil-bench · are its questions
    good" (per benchmark and question), "hil-bench · ask_f1" (per benchmark and metric), "hil-bench", or "the
    whole table". The p-values are adjusted within a family, so that a benchmark's verdict on a question does not
    change with the other benchmarks or questions a log holds."""
    _check_family(family)
    n = len(out)
    if family == "all":
        return np.full(n, "the whole table", dtype=object)
    bench = out["benchmark"].astype(str).to_numpy(dtype=object)
    if family == "benchmark":
        return bench
    metric = out["metric"].astype(str).to_numpy(dtype=object)
    part = metric if family == "metric" else \
        np.array([QUESTION_WORDS.get(QUESTION_OF.get(m, ""), m) for m in metric], dtype=object)
    return np.array([f"{b} · {p}" for b, p in zip(bench, part)], dtype=object)


def settle(out: pd.DataFrame, retests: list, alpha: float = 0.05, correction: str = "holm",
           family: str = "question") -> list[str]:
    """Finish comparison rows, their p-values adjusted within each family (``family``, :func:`family_of`: by
    default each benchmark's rows of one of the four questions): draw more random flips where a row's p-value may
    be significant (:func:`flips_for`, for its family's size), adjust within each family by ``correction``
    (:data:`CORRECTIONS`: ``p_holm`` or ``p_fdr_bh``), give each row the smallest p its test could reach
    (``p_smallest``) and that adjusted as the best case of its family (``p_smallest_adjusted``: at or above the
    level, the row cannot be significant, whatever the outcomes), set the interval beside the test
    (``ci_vs_test``) and say why each empty cell is empty. Changes ``out`` in place (adding ``family`` and
    ``family_size``); returns the notes, which name the families and a correction other than Holm."""
    _check_correction(correction)
    adjusted, (name, meaning) = f"p_{correction}", CORRECTIONS[correction]
    notes: list[str] = []
    families = family_of(out, family) if len(out) else np.empty(0, dtype=object)
    tested = out["p_value"].notna().to_numpy() if len(out) else np.empty(0, bool)
    size = pd.Series(tested).groupby(families).transform("sum").to_numpy(int) if len(out) else np.empty(0, int)
    capped = _more_flips(out, retests, size, alpha)
    p_values = out["p_value"].to_numpy(dtype=float)
    smallest = np.array([smallest_p(str(t), d, str(alt), int(n)) if np.isfinite(p) else np.nan
                         for t, d, alt, n, p in zip(out["test"], out["n_differing"], out["alternative"],
                                                    out["n_pairs"], p_values)], dtype=float)
    adj, best = np.full(len(out), np.nan), np.full(len(out), np.nan)
    for label in dict.fromkeys(families):
        rows = families == label
        adj[rows] = _adjusted(p_values[rows], correction)
        best[rows] = _adjusted(smallest[rows], correction)
    at = out.columns.get_loc("p_mc_se") + 1
    out.insert(at, adjusted, adj)
    out.insert(at + 1, "family", families)
    out.insert(at + 2, "family_size", size)
    out.insert(at + 3, "p_smallest", smallest)
    out.insert(at + 4, "p_smallest_adjusted", best)
    out.insert(out.columns.get_loc("p_smallest_adjusted") + 1, "ci_vs_test", _ci_vs_test(out, alpha))
    if len(out):
        sizes = pd.Series(size, index=families).groupby(level=0, sort=False).first()
        listed = "; ".join(f"{label} ({n})" for label, n in sizes.items())
        notes.append(f"{adjusted}: {name} within each family of rows"
                     f" ({'every row' if family == 'all' else 'per ' + _FAMILY_WORDS[family]}), its size the rows"
                     f" with a p-value: {listed}" + ("" if correction == "holm" else f"; {meaning}"))
        cannot = tested & (best >= alpha)
        if cannot.any():
            notes.append(f"{int(cannot.sum())} comparison(s) cannot reach {adjusted} < {alpha:g} whatever their"
                         " tasks' outcomes: the smallest p their test can give with the tasks that differ"
                         " (p_smallest), adjusted as the best case of their family (p_smallest_adjusted), is not"
                         " below it; more tasks would tell")
    if capped:
        n, flips = max(capped)
        notes.append(f"{len(capped)} test(s) over as many as {n:,} tasks drew {flips:,} random sign flips (the most"
                     f" one test draws in its time): the smallest two-sided p they can give is {2 / (flips + 1):.1g}"
                     " (p_smallest)")
    random_ = out["p_mc_se"].notna().to_numpy()
    near = random_ & (np.abs(out["p_value"].to_numpy(float) - alpha) <= 2 * out["p_mc_se"].to_numpy(float))
    if near.any():
        notes.append(f"{int(near.sum())} p-value(s) from random flips lie within two Monte-Carlo standard errors"
                     f" (p_mc_se) of {alpha:g}: which side of it they fall on is not settled")
    few = out[(out["n_differing"] < FEW_DIFFERING) & ~(best >= alpha)]
    if len(few):
        notes.append(f"{len(few)} of {len(out)} comparison(s) rest on fewer than {FEW_DIFFERING} tasks whose sides"
                     f" differ (as few as {int(few['n_differing'].min())}): their tests have little power, and a"
                     " p-value above 0.05 there is no evidence that the sides are alike")
    small = out[out["ci_method"].astype(str).str.startswith("task bootstrap") & (out["n_pairs"] < FEW_FOR_BOOTSTRAP)]
    if len(small):
        notes.append(f"{len(small)} interval(s) are a percentile task bootstrap over fewer than {FEW_FOR_BOOTSTRAP}"
                     f" tasks (as few as {int(small['n_pairs'].min())}): there it covers less than its level"
                     " (docs/metrics.md, 'How well the intervals cover'); the test is the firmer guide")
    warned = _coverage_warnings(out)
    if warned:
        notes.append("; ".join(warned))
    if len(out) and (out["family_size"] > 1).any():
        notes.append(f"each interval is unadjusted ({100 * (1 - alpha):g}% for its row alone); a verdict rests on"
                     f" {adjusted} within its family, and each row's own interval as well")
    left = int(out["n_tasks_left_out"].sum()) if len(out) else 0
    if left:
        notes.append(f"{left} task(s) both sides ran were left out of {int((out['n_tasks_left_out'] > 0).sum())}"
                     " comparison(s) (n_tasks_left_out): a side's runs there all errored or had no score")
    explain_empty(out, {c: "no task's sides differ (n_differing 0): nothing to test or rank; the difference is 0"
                        for c in ("statistic", "p_value", adjusted, "rbc", "p_smallest", "p_smallest_adjusted")})
    explain_empty(out, {"p_mc_se": "an exact test (every flip pattern, or McNemar's or Wilcoxon's exact p): no"
                                   " Monte-Carlo error",
                        "ci_vs_test": f"the interval and the test decide alike at the {alpha:g} level (it excludes 0"
                                      " where p is below it), or a one-sided test or a missing value leaves nothing"
                                      " to set side by side",
                        "rerun_sd": "the rerun spread is for mean_score, from tasks each side ran at least twice:"
                                    " run each task two or more times",
                        "difference_ci_low": NO_INTERVAL, "difference_ci_high": NO_INTERVAL})
    return notes
