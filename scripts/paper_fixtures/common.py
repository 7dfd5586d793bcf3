"""What every paper's reconstruction uses: where data/paper is, numbers as the papers print them, and
allocating counts and scores to fit printed shares and means."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]  # scripts/paper_fixtures/common.py -> the repository


OUT = ROOT / "data" / "paper"


def shown(x, digits: int = 0):
    """``x`` as the papers print it: rounded half up (LHAW Table 13 prints the exact 72.5 as 0.73), with
    1e-9 of slack for binary representation error; works on scalars and numpy arrays."""
    scale = 10.0 ** digits
    out = np.floor(np.asarray(x, dtype=float) * scale + 0.5 + 1e-9) / scale
    return float(out) if out.ndim == 0 else out


def allocate(percent, n: int) -> list[int]:
    """Counts out of n for printed percentages (largest remainder, summing to n)."""
    raw = np.asarray(percent, dtype=float) / 100 * n
    counts = np.floor(raw).astype(int)
    for i in np.argsort(-(raw - counts), kind="stable")[: n - counts.sum()]:
        counts[i] += 1
    return counts.tolist()


def skewed(rng: np.random.Generator, n: int, mean: float, concentration: float = 2.5) -> list[float]:
    """n scores in [0, 1] whose mean is exactly ``mean``, drawn from a Beta distribution with that mean:
    skewed (right of the mode below 0.5, left above), so a median or a trimmed mean would differ from the
    mean, as in real score distributions (a few high scores among many low ones)."""
    if n == 0:
        return []
    if mean <= 0 or mean >= 1:
        return [float(min(max(mean, 0.0), 1.0))] * n
    x = rng.beta(mean * concentration, (1 - mean) * concentration, n)
    for _ in range(200):  # shift to the exact mean, keeping [0, 1]
        x = np.clip(x + (mean - x.mean()), 0.0, 1.0)
        if abs(x.mean() - mean) < 1e-13:
            break
    inner = (x > 1e-6) & (x < 1 - 1e-6)
    x[np.argmax(inner)] += n * mean - x.sum()  # the last rounding error, on a value inside (0, 1)
    return [float(v) for v in x]


def by_ease(rng: np.random.Generator, tasks: list[int], scores: list[float], ease: np.ndarray,
            noise: float = 0.7) -> list[tuple[int, float]]:
    """Pair scores with tasks, the higher scores with the easier tasks (``ease`` plus noise), in task order."""
    ranked = sorted(tasks, key=lambda i: -(ease[i] + noise * rng.normal()))
    pairs = dict(zip(ranked, sorted(scores, reverse=True)))
    return [(i, pairs[i]) for i in tasks]


def passing_trials(rng: np.random.Generator, units, n_trials: int = 3) -> dict[int, set[int]]:
    """The passing trials of each unit that passes at all: the first on any trial (a success on trial 2 or 3
    only is common in real runs), each later one again with probability one half."""
    out = {}
    for u in units:
        first = int(rng.integers(1, n_trials + 1))
        out[int(u)] = {first} | {t for t in range(first + 1, n_trials + 1) if rng.random() < 0.5}
    return out


def votes(rng: np.random.Generator, label: str, pool, n_calls: int = 5, unanimous: float | None = None) -> list[str]:
    """``n_calls`` judge calls whose strict majority is ``label``: a bare majority to all of them agree (all of
    them with probability ``unanimous``, if given), the others pick another label of ``pool``, and the
    agreeing calls sit anywhere (the first call is often a minority, as in a real panel)."""
    if unanimous is not None and rng.random() < unanimous:
        agree = n_calls
    else:
        agree = int(rng.integers(n_calls // 2 + 1, n_calls + (0 if unanimous is not None else 1)))
    others = [x for x in pool if x != label]
    dissent = [str(rng.choice(others)) for _ in range(n_calls - agree)] if others else []
    calls = [label] * (n_calls - len(dissent)) + dissent
    if dissent and len(set(dissent)) == 1 and len(dissent) >= n_calls - len(dissent):  # never a tie or a flip
        calls = [label] * n_calls
    return [calls[i] for i in rng.permutation(n_calls)]


def _solve_means(counts: dict[str, int], printed: dict[str, float | None], target_s: float, n: int) -> dict[str, float]:
    """Conditional means inside their rounding boxes (±0.0049) that bring the cell mean as close to
    Table 1's printed S as they can (so the deltas between conditions come out as printed too)."""
    means = {c: (printed[c] if printed.get(c) is not None else 0.0) for c in counts}
    movable = [c for c in counts if counts[c] and printed.get(c) is not None and c not in ("invalid", "timeout")
               and printed[c] > 0]
    weight = sum(counts[c] for c in movable)
    if weight:
        s = sum(counts[c] * means[c] for c in counts) / n
        step = max(-0.0049, min(0.0049, (target_s - s) * n / weight))
        for c in movable:
            means[c] = min(1.0, max(0.0, means[c] + step))
    return means


def fit_counts(percent, n: int, digits: int = 0) -> list[int] | None:
    """Counts out of n, summing to n, each of which prints (half up) as its percentage; None if none do."""
    options = [[k for k in range(n + 1) if shown(100 * k / n, digits) == p] for p in percent]
    for combo in itertools.product(*options):
        if sum(combo) == n:
            return list(combo)
    return None


def _interval(n: int, value: float, digits: int, percent: bool = True, signed: bool = False) -> tuple[int, int] | None:
    """The counts k (−n…n with ``signed``) whose share k/n prints as ``value``; None if none."""
    scale = 100 if percent else 1
    ks = [k for k in range(-n if signed else 0, n + 1) if shown(scale * k / n, digits) == value]
    return (min(ks), max(ks)) if ks else None


def _box(value: float, half_width: float = 0.045) -> tuple[float, float]:
    """The fractions that print (one decimal of a percentage) as ``value``, a little inside the rounding box."""
    return (value - half_width) / 100, (value + half_width) / 100


def floor2(x: float) -> float:
    """Truncate to two decimals, as LHAW Table 8 prints."""
    return math.floor(x * 100 + 1e-9) / 100
