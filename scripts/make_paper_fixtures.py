"""Reconstruct run logs from the papers' published aggregates: ``data/paper/``.

Each benchmark's runs are built so that ambiglib's tables, applied to them, give back
the printed numbers wherever the papers publish enough to fix them. The printed cells
are written beside the logs (``printed.json``, each with its table); ``tests/test_paper.py``
compares every reproduced cell at the printed precision, and ``docs/reproduction.md``
says what is reproduced and what cannot be.

    python scripts/make_paper_fixtures.py            # writes data/paper/ (deterministic)
    python scripts/make_paper_fixtures.py --solve    # re-derives MORE_PLANS (an integer program; minutes)
    python scripts/make_paper_fixtures.py --solve-pairings   # re-derives AMBIG_PAIRINGS (a local search; minutes)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from paper_fixtures import OUT, main  # scripts/paper_fixtures/, one module per paper

__all__ = ["OUT", "main"]

if __name__ == "__main__":
    main()
