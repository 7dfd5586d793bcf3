"""What ships with ambiglib for the report: its notebooks and its example run log, installed or in the source tree."""

from __future__ import annotations

from pathlib import Path

from ambiglib.errors import ReportError

__all__ = ["bundled_notebooks", "example_runs"]


#: ambiglib/ (installed: it holds notebooks/ and example/; in the source tree they are beside it)
_HERE = Path(__file__).resolve().parent.parent


def _bundled(installed: Path, source: Path, pattern: str) -> Path | None:
    for candidate in (installed, source):  # the wheel's copy, then the source tree's
        if candidate.is_dir() and any(candidate.glob(pattern)):
            return candidate
    return None


def bundled_notebooks() -> Path:
    """The folder of the report's notebooks: ``ambiglib/notebooks`` when installed, ``notebooks/`` in the source tree."""
    found = _bundled(_HERE / "notebooks", _HERE.parent / "notebooks", "*.ipynb")
    if found is None:
        raise ReportError(f"no notebooks shipped with ambiglib (looked in {_HERE / 'notebooks'} and"
                          f" {_HERE.parent / 'notebooks'}); pass --notebooks-dir")
    return found


def example_runs() -> Path | None:
    """The bundled example run log (``ambiglib/example`` installed, ``data/example`` in the source tree), if present."""
    return _bundled(_HERE / "example", _HERE.parent / "data" / "example", "*.jsonl")
