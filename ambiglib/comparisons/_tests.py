"""The test of a difference, fitted to the outcome (Dietterich 1998; Miller 2024, "Adding Error Bars to Evals").

The mid-p McNemar test for pass/fail outcomes with one trial per task and side (Fagerland et al. 2013: the exact
test, ``test="mcnemar"``, rejects far less often than its level at 10-20 tasks); otherwise a paired sign-flip
permutation test of the same difference the interval is about (each task's sides swapped), exact up to 20 tasks,
else from random flips, as many as the family's size needs for the adjustment to reach 0.05 (:func:`flips_for`),
its Monte-Carlo error in ``p_mc_se``. ``test="wilcoxon"`` gives the Wilcoxon signed-rank test on the per-task
values, as Ambig-DS reports. Each row names its test; ``n_differing`` counts the tasks whose swap moves the
statistic (the metric's own inputs differ), and below 10 the note says the test has little power.
:func:`smallest_p` is the smallest p a test could give with its tasks that differ."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np
import pandas as pd

from ambiglib.errors import ArgumentError
from ambiglib.stats._intervals import sps
from ambiglib.stats._significance import PairedTest, mcnemar_exact, mcnemar_midp, paired_permutation

#: the alternatives a test can take: ``greater`` tests side a > side b
Alternative = Literal["two-sided", "greater", "less"]
#: the tests a comparison can use: ``auto`` picks mid-p McNemar or the permutation test by the outcome
TESTS = ("auto", "mcnemar", "mcnemar-midp", "permutation", "wilcoxon")
#: below this many tasks whose sides differ, a test has little power (the note says so)
FEW_DIFFERING = 10
#: random sign flips a permutation test draws first; rows that may be significant draw more (:func:`flips_for`)
FIRST_FLIPS = 9_999
#: the most flips × tasks one test draws, to bound a test's time: past it, the note says what it limits
FLIP_BUDGET = 2_000_000_000


def flips_for(m: int, alpha: float, p: float = 0.0) -> int:
    """The random sign flips a permutation test needs in a table of ``m`` rows adjusted by Holm or
    Benjamini–Hochberg (either makes the smallest p at most ``m`` times itself): enough that the smallest p it can
    give (2 / (flips + 1), two-sided) times ``m`` is a tenth of ``alpha``, and that a p-value near ``alpha`` has a
    Monte-Carlo standard error below ``alpha`` / 20; a multiple of 10,000, less one."""
    family = int(np.ceil(20 * m / alpha))
    q = min(max(p / 2, 0.0), 0.5)
    near = int(np.ceil(4 * q * (1 - q) * (20 / alpha) ** 2))
    need = max(FIRST_FLIPS + 1, family, near)
    return int(-(-need // 10_000) * 10_000 - 1)


def smallest_p(test: str, n_differing: int, alternative: str, n_tasks: int) -> float:
    """The smallest p-value ``test`` could give with ``n_differing`` tasks (or discordant pairs) whose sides differ,
    whatever those tasks' outcomes: exact McNemar 2 · 0.5^d two-sided, its mid-p form 0.5^d; a sign-flip
    permutation test or Wilcoxon's exact test 2 / 2^d (the other tasks' flips leave the statistic where it is),
    and from random flips never below 2 / (flips + 1) with as many flips as one test may draw (:data:`FLIP_BUDGET`).
    One-sided, half of each. NaN where nothing differs (no test)."""
    if not n_differing or n_differing <= 0:
        return float("nan")
    d = int(n_differing)
    two = alternative == "two-sided"
    if test.startswith("exact McNemar"):
        p = 2.0 ** (1 - d) if two else 2.0 ** -d
    elif test.startswith("mid-p McNemar"):
        p = 2.0 ** -d if two else 2.0 ** (-d - 1)
    else:
        p = 2.0 ** (1 - d) if two else 2.0 ** -d
        if test.startswith("paired permutation") and "exact" not in test:
            flips = max(FIRST_FLIPS, FLIP_BUDGET // max(n_tasks, 1))
            p = max(p, (2.0 if two else 1.0) / (flips + 1))
    return float(min(1.0, p))


def _more_flips(out: pd.DataFrame, retests: list, size: np.ndarray, alpha: float) -> list[tuple[int, int]]:
    """Draw more random flips where a row's p-value may be significant, as many as its family's size ``size``
    needs (:func:`flips_for`) within the budget of one test (:data:`FLIP_BUDGET`), updating ``out`` in place;
    return ``(tasks, flips allowed)`` of each row the budget held below what it needed."""
    capped: list[tuple[int, int]] = []
    for i, again in enumerate(retests):
        if again is None:
            continue
        retest, flips, n = again
        p, se = out["p_value"].iat[i], out["p_mc_se"].iat[i]
        if not np.isfinite(p) or p > alpha + 3 * (se if np.isfinite(se) else 0):
            continue
        need = flips_for(int(size[i]), alpha, p)
        allowed = max(FIRST_FLIPS, FLIP_BUDGET // max(n, 1))
        if allowed < need:
            capped.append((n, allowed))
        if min(need, allowed) > flips:
            result = retest(min(need, allowed))
            out.iloc[i, [out.columns.get_loc(c) for c in ("test", "p_value", "p_mc_se")]] = \
                [result.test, result.p_value, result.mc_se]
    return capped


def _mcnemar_applies(test: str, sides: tuple, valued: np.ndarray, trials: str | None, pair: str) -> None:
    """Raise ArgumentError naming the pair and its first task that is not one pass/fail trial a side, which
    McNemar's test needs; return when every valued task is. ``sides``: (name, per-task sums, values) of a and b."""
    for side, t, values in sides:
        n = t[trials].to_numpy()[valued] if trials is not None else np.full(len(values), 2)
        many = np.flatnonzero(n != 1)
        if len(many):
            i = many[0]
            what = (f"{int(n[i])} trials on task {t.index[valued][i]} for {side} ({len(many)} of {len(values)}"
                    " tasks have more than one)" if trials is not None else
                    "a metric pooled over each task's runs and questions, not one pass/fail outcome")
            raise ArgumentError(f"paired_comparison: test={test!r} needs one pass/fail trial per task and side, and"
                                f" {pair} has {what}: use test='permutation' (or 'auto', which picks it)")
        odd = np.flatnonzero(~np.isin(values, (0, 1)))
        if len(odd):
            i = odd[0]
            raise ArgumentError(f"paired_comparison: test={test!r} needs one pass/fail trial per task and side, and"
                                f" {pair} has {values[i]:g} on task {t.index[valued][i]} for {side}, not 0 or 1"
                                f" ({len(odd)} of {len(values)} tasks): use test='permutation' (or 'auto', which"
                                " picks it)")


def _test(A: np.ndarray, B: np.ndarray, x: np.ndarray, y: np.ndarray, stat_of: Callable, test: str,
          one_trial: bool, alternative: Alternative, seed: int) -> PairedTest:
    binary = one_trial and np.isin(x, (0, 1)).all() and np.isin(y, (0, 1)).all()
    if test in ("mcnemar", "mcnemar-midp") or (test == "auto" and binary):
        if not binary:  # (_mcnemar_applies has named the pair and the task)
            raise ArgumentError(f"paired_comparison: test={test!r} needs one pass/fail trial per task and side"
                                " (use test='permutation')")
        # auto: the mid-p form, which holds its level far more closely than the exact test with few discordant
        # tasks (Fagerland et al. 2013; bench/coverage.py)
        return (mcnemar_exact if test == "mcnemar" else mcnemar_midp)(x, y, alternative=alternative)
    if test == "wilcoxon":
        d = x - y
        n = int(np.count_nonzero(d))
        name = "Wilcoxon signed-rank (zero_method='wilcox')"
        if n == 0:
            return PairedTest(name, float("nan"), float("nan"), 0)
        res = sps.wilcoxon(x, y, alternative=alternative, zero_method="wilcox")
        return PairedTest(name, float(res.statistic), float(res.pvalue), n)
    return paired_permutation(A, B, stat_of, alternative=alternative, n_resamples=FIRST_FLIPS, seed=seed)
