"""``python -m ambiglib``: the ``ambiglib`` command line."""

import sys

from .cli import run

sys.exit(run())
