"""Write a small, seeded example run log covering the three benchmarks.

The example exists so that ``make report`` and the notebooks run out of the box.
Each benchmark is simulated in its own design — Ambig-DS's Full / Ambig. / Ask
conditions and ask-only calibration runs with five judge calls per run; HIL-Bench's
``baseline`` / ``ask_human`` / ``full_info`` modes, three passes, registered blockers
and the oracle's three-answer cap; LHAW's variants with removed segments, three
trials with and without ``ask_user``, and checkpoint progress. Each model has its
own propensities — how often it asks under each policy, how precise its questions
are, how well it solves — taken from the papers' published aggregates (Ambig-DS
Tables 2, 11, 13; HIL-Bench Tables 1, 7; LHAW Table 3), so that a large simulation
lands on the printed numbers within sampling noise (``tests/test_simulate.py``).
Quantities the papers do not publish (e.g. how many HIL-Bench runs ask at all) are
chosen and marked as such.

Run ``python -m ambiglib.simulate data/example --native data/example-native`` (or
``make example``) to regenerate the canonical log and each harness's own layout;
the same seed always writes the same bytes.
"""

from __future__ import annotations

import argparse
from typing import Any

from ambiglib import _moved
from ambiglib.simulate._constants import DEFAULT_SEED
from ambiglib.simulate._native import write_native
from ambiglib.simulate._records import example_records, write_example

__all__ = ["example_records", "write_example", "write_native", "main"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m ambiglib.simulate", description=__doc__.split("\n")[0])
    parser.add_argument("out", nargs="?", default="data/example", help="folder to write (default: data/example)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--native", default=None, help="also write each harness's own layout into this folder")
    args = parser.parse_args(argv)
    for file in write_example(args.out, seed=args.seed):
        print(f"wrote {file}")
    if args.native:
        for name, folder in write_native(args.native, seed=args.seed).items():
            print(f"wrote {folder} ({name}'s own layout)")


def __getattr__(name: str) -> Any:
    """``ambiglib.simulate.leaderboard`` and the other modules that became private, as their old names."""
    return _moved.attribute(__name__, name)
