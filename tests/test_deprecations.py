"""A public name that moved keeps working for a minor version, with a warning naming where it went (CHANGELOG.md)."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

import ambiglib
from ambiglib import agreement, stats

ROOT = Path(__file__).resolve().parents[1]
OLD = ("fleiss_kappa", "cohen_kappa", "majority_vote")


def _minor(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


@pytest.mark.parametrize("name", OLD)
def test_an_old_name_in_stats_is_the_function_in_agreement_with_a_warning_at_the_caller(name):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = getattr(stats, name)
    assert got is getattr(agreement, name)
    (warning,) = caught
    assert warning.category is DeprecationWarning and warning.filename == __file__  # the user's line, not ours
    said = str(warning.message)
    assert f"ambiglib.stats.{name}" in said and f"ambiglib.agreement.{name}" in said
    removed = re.search(r"goes in ambiglib (\d+\.\d+\.\d+)", said)
    assert removed is not None
    # at least one minor version after this one keeps the old name
    assert _minor(removed.group(1)) >= (_minor(ambiglib.__version__)[0], _minor(ambiglib.__version__)[1] + 2)


def test_the_old_name_imports_as_it_did():
    with pytest.warns(DeprecationWarning, match="ambiglib.agreement.fleiss_kappa"):
        from ambiglib.stats import fleiss_kappa
    assert fleiss_kappa is agreement.fleiss_kappa


def test_a_name_stats_never_had_is_still_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'kappa'"):
        stats.kappa  # noqa: B018


def test_the_changelog_states_the_policy_and_lists_each_deprecated_name():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "Deprecation policy" in text and "at least one minor version" in text
    deprecated = text.split("### Deprecated", 1)[1]
    for name in OLD:
        assert f"`ambiglib.stats.{name}`" in deprecated and name in deprecated.split("use", 1)[1]
    assert "0.3.0" in deprecated


@pytest.mark.parametrize(("old", "new"), [("LAYOUTS", "READERS"), ("Layout", "Reader")])
def test_the_load_layouts_moved_to_the_importers_readers_with_a_warning(old, new):
    import ambiglib.importers
    import ambiglib.loading

    with pytest.warns(DeprecationWarning, match=f"ambiglib.importers.{new}; the old name goes in ambiglib 0.3.0"):
        got = getattr(ambiglib.loading, old)
    assert got is getattr(ambiglib.importers, new)
    assert "hil-bench" in {reader.name for reader in ambiglib.importers.READERS}
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8").split("### Deprecated", 1)[1]
    assert f"`ambiglib.loading.{old}`" in text and f"`ambiglib.importers.{new}`" in text
