"""``python -m ambiglib``: the ``ambiglib`` command line."""

import sys

from .cli import main

sys.exit(main())
