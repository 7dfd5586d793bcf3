"""ambiglib.agreement: judges' majority votes (ties reported) and agreement, against statsmodels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from ambiglib import agreement


def _ratings(seed=0, n_items=40, n_calls=5, labels=("intended", "alternative", "degenerate")):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, len(labels), n_items)
    rows = []
    for i in range(n_items):
        for c in range(1, n_calls + 1):
            lab = truth[i] if rng.random() < 0.7 else rng.integers(0, len(labels))
            rows.append({"run_id": f"r{i}", "call": c, "label": labels[lab]})
    return pd.DataFrame(rows)


def test_fleiss_kappa_equals_statsmodels():
    frame = _ratings()
    wide = frame.pivot(index="run_id", columns="call", values="label").to_numpy()
    table, _ = aggregate_raters(wide)
    assert agreement.fleiss_kappa(frame) == pytest.approx(sm_fleiss(table, method="fleiss"), abs=1e-12)


def test_fleiss_kappa_needs_equal_ratings_per_item():
    frame = _ratings().iloc[:-1]
    with pytest.raises(ValueError, match=r"same number of ratings per run_id; found 1 items with 4, 39 items with 5"):
        agreement.fleiss_kappa(frame)


def test_cohen_kappa_equals_statsmodels():
    a, b = _ratings(1, n_calls=1), _ratings(1, n_calls=1)
    b["label"] = np.where(np.random.default_rng(9).random(len(b)) < 0.3, "degenerate", b["label"])
    frame = pd.concat([a.assign(judge="claude"), b.assign(judge="gpt")])
    cats = sorted(set(frame["label"]))
    table = pd.crosstab(pd.Categorical(a["label"], cats), pd.Categorical(b["label"], cats), dropna=False)
    assert agreement.cohen_kappa(frame) == pytest.approx(cohens_kappa(table.to_numpy()).kappa, abs=1e-12)
    with pytest.raises(ValueError, match=r"exactly two judges \(got 1: \['claude'\]\)"):
        agreement.cohen_kappa(a.assign(judge="claude"))


def test_majority_vote_reports_ties():
    frame = pd.DataFrame({
        "run_id": ["r1"] * 5 + ["r2"] * 4 + ["r3"],
        "facet": "trace",
        "label": ["a", "a", "b", "a", "c", "b", "a", "a", "b", "c"],
    })
    out = agreement.majority_vote(frame)
    assert out[["run_id", "label", "n_votes", "n_top", "is_tie"]].values.tolist() == [
        ["r1", "a", 5, 3, False], ["r2", None, 4, 2, True], ["r3", "c", 1, 1, False]]
    broken = agreement.majority_vote(frame, ties="alphabetical")
    assert broken["label"].tolist() == ["a", "a", "c"]
