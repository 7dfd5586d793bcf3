"""``python -m ambiglib.simulate``: write the example run log (and each harness's own layout)."""

from ambiglib.simulate import main

main()
