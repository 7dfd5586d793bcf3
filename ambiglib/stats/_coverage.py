"""How well do the intervals cover at this size? Each interval's coverage measured by simulation at 8, 12, 20 and 60
tasks and 1 and 3 trials a task (``bench/coverage.py``, section 7: a known truth, tasks drawn anew each replicate),
and the warning a table carries where an interval of its design covers less than it says.

The figures are those of the last run of the benchmark, copied here (and into docs/metrics.md's coverage table);
a design between two measured ones takes the coverage interpolated on the logarithm of its task count, and one
below 8 tasks is below what was measured: its warning says so rather than guess.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MEASURED", "DESIGNS", "coverage_at", "warning", "SHORT_OF"]

#: the designs measured: (tasks, trials a task)
DESIGNS = ((8, 1), (12, 1), (20, 1), (60, 1), (8, 3), (12, 3), (20, 3), (60, 3))

#: measured coverage of each 95% interval, by (tasks, trials): bench/coverage.py section 7, 2,000 replicates a
#: design (a coverage of 0.95 is known to ±0.010): one agent's intervals as the opening makes them, then the
#: differences between two agents as a comparison makes them (interval="t")
MEASURED: dict[str, dict[tuple[int, int], float]] = {
    'ask rate, ambiguous': {(8, 1): 0.973, (12, 1): 0.961, (20, 1): 0.959, (60, 1): 0.954, (8, 3): 0.979, (12, 3): 0.971, (20, 3): 0.970, (60, 3): 0.948},
    'ask rate, full': {(8, 1): 0.983, (12, 1): 0.964, (20, 1): 0.972, (60, 1): 0.952, (8, 3): 0.989, (12, 3): 0.972, (20, 3): 0.966, (60, 3): 0.960},
    'CalibScore': {(8, 1): 0.998, (12, 1): 0.995, (20, 1): 0.998, (60, 1): 0.998, (8, 3): 0.999, (12, 3): 0.999, (20, 3): 0.999, (60, 3): 0.998},
    'questions per run': {(8, 1): 0.926, (12, 1): 0.932, (20, 1): 0.940, (60, 1): 0.944, (8, 3): 0.944, (12, 3): 0.935, (20, 3): 0.951, (60, 3): 0.949},
    'precision': {(8, 1): 0.993, (12, 1): 0.992, (20, 1): 0.980, (60, 1): 0.962, (8, 3): 0.987, (12, 3): 0.979, (20, 3): 0.970, (60, 3): 0.961},
    'recall': {(8, 1): 0.984, (12, 1): 0.969, (20, 1): 0.958, (60, 1): 0.955, (8, 3): 0.974, (12, 3): 0.962, (20, 3): 0.955, (60, 3): 0.950},
    'Ask-F1': {(8, 1): 0.998, (12, 1): 0.998, (20, 1): 0.989, (60, 1): 0.989, (8, 3): 0.999, (12, 3): 0.994, (20, 3): 0.990, (60, 3): 0.984},
    'score, full': {(8, 1): 0.929, (12, 1): 0.971, (20, 1): 0.948, (60, 1): 0.950, (8, 3): 0.977, (12, 3): 0.975, (20, 3): 0.959, (60, 3): 0.950},
    'score, ambiguous, no tool': {(8, 1): 0.945, (12, 1): 0.971, (20, 1): 0.948, (60, 1): 0.947, (8, 3): 0.982, (12, 3): 0.980, (20, 3): 0.956, (60, 3): 0.962},
    'score, ambiguous, with tool': {(8, 1): 0.979, (12, 1): 0.967, (20, 1): 0.933, (60, 1): 0.944, (8, 3): 0.986, (12, 3): 0.977, (20, 3): 0.961, (60, 3): 0.954},
    'gain from asking (pp)': {(8, 1): 0.967, (12, 1): 0.958, (20, 1): 0.947, (60, 1): 0.951, (8, 3): 0.950, (12, 3): 0.946, (20, 3): 0.952, (60, 3): 0.952},
    'gap to full (pp)': {(8, 1): 0.959, (12, 1): 0.944, (20, 1): 0.954, (60, 1): 0.949, (8, 3): 0.947, (12, 3): 0.950, (20, 3): 0.945, (60, 3): 0.950},
    'gain ÷ questions per run (pp)': {(8, 1): 0.980, (12, 1): 0.970, (20, 1): 0.970, (60, 1): 0.963, (8, 3): 0.962, (12, 3): 0.961, (20, 3): 0.954, (60, 3): 0.950},
    'difference of mean score (with the tool)': {(8, 1): 0.964, (12, 1): 0.945, (20, 1): 0.947, (60, 1): 0.948, (8, 3): 0.947, (12, 3): 0.956, (20, 3): 0.940, (60, 3): 0.956},
    'difference of ask rate': {(8, 1): 0.968, (12, 1): 0.961, (20, 1): 0.945, (60, 1): 0.954, (8, 3): 0.950, (12, 3): 0.948, (20, 3): 0.956, (60, 3): 0.956},
    'difference of gain from asking (pp)': {(8, 1): 0.959, (12, 1): 0.942, (20, 1): 0.953, (60, 1): 0.947, (8, 3): 0.944, (12, 3): 0.954, (20, 3): 0.947, (60, 3): 0.958},
    'difference of Ask-F1': {(8, 1): 0.922, (12, 1): 0.943, (20, 1): 0.948, (60, 1): 0.943, (8, 3): 0.938, (12, 3): 0.941, (20, 3): 0.941, (60, 3): 0.948},
    'difference of CalibScore': {(8, 1): 0.970, (12, 1): 0.969, (20, 1): 0.956, (60, 1): 0.956, (8, 3): 0.963, (12, 3): 0.957, (20, 3): 0.964, (60, 3): 0.945},
    'difference of gain ÷ questions per run (pp)': {(8, 1): 0.972, (12, 1): 0.969, (20, 1): 0.962, (60, 1): 0.949, (8, 3): 0.960, (12, 3): 0.960, (20, 3): 0.950, (60, 3): 0.963},
}

#: below this measured coverage a 95% interval carries a warning (the issue's bar: 0.93)
SHORT_OF = 0.93


def coverage_at(name: str, n_tasks: float, trials: float) -> float | None:
    """The measured coverage of interval ``name`` at ``n_tasks`` tasks and ``trials`` trials a task (the nearer of 1
    and 3), interpolated on log(tasks) between the designs measured and held at 60's beyond; None below 8 tasks
    (not measured) or for an interval not measured."""
    table = MEASURED.get(name)
    if table is None or not np.isfinite(n_tasks) or n_tasks < 8:
        return None
    k = 1 if trials < 2 else 3
    sizes = [n for n, t in DESIGNS if t == k]
    values = [table[(n, k)] for n in sizes]
    return float(np.interp(np.log(min(n_tasks, sizes[-1])), np.log(sizes), values))


def warning(name: str, n_tasks: float, trials: float, where: str = "") -> str | None:
    """The note an interval carries at this design, or None: "<name> (<where>, 8 tasks × 1 trial): its 95%
    interval covered 0.926 in simulation at this size (bench/coverage.py)", and for fewer than 8 tasks that its
    coverage was not measured so small."""
    at = f"{where}, " if where else ""
    design = f"{int(n_tasks)} task{'s' if n_tasks != 1 else ''} × {trials:g} trial{'s' if trials != 1 else ''}"
    if np.isfinite(n_tasks) and n_tasks < 8 and name in MEASURED:
        return (f"{name} ({at}{design}): fewer tasks than the 8 its interval's coverage was measured at"
                " (bench/coverage.py): read it as rough")
    covered = coverage_at(name, n_tasks, trials)
    if covered is None or covered >= SHORT_OF:
        return None
    return f"{name} ({at}{design}): its 95% interval covered {covered:.3f} in simulation at this size (bench/coverage.py)"
