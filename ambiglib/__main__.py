"""``python -m ambiglib``: the ``ambiglib`` command line."""

import sys

from ambiglib.cli import run

sys.exit(run())
