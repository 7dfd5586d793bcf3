"""scripts/mutation_check.py patches metric definitions by exact text; after a refactoring its snippets no longer
matched and the check could not run at all (issue 30). This fast test keeps every mutation applicable: each
snippet occurs exactly once in the file it names (the check itself runs the suite once per mutation and is not
part of `make test`; docs/reproduction.md gives its last result)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_mutation_still_applies_to_the_code():
    spec = importlib.util.spec_from_file_location("mutation_check", ROOT / "scripts" / "mutation_check.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutation_check"] = module  # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    assert len(module.MUTATIONS) >= 35
    for m in module.MUTATIONS:
        text = (ROOT / m.path).read_text(encoding="utf-8")
        assert text.count(m.old) == 1, f"mutation {m.name}: its snippet occurs {text.count(m.old)} times in {m.path}"
        assert m.new != m.old
