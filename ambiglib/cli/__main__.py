"""``python -m ambiglib.cli``, as the module cli.py ran: :func:`ambiglib.cli.main` in the caller's process as it is."""

import sys

from ambiglib.cli import main

sys.exit(main())
