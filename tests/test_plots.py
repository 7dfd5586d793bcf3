"""The figures draw the data they are given: points, cells and filters checked on the returned Figure."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from ambiglib import plots


def _points(fig) -> np.ndarray:
    offsets = [c.get_offsets() for c in fig.axes[0].collections if len(c.get_offsets())]
    return np.concatenate(offsets) if offsets else np.empty((0, 2))


@pytest.fixture()
def voi():
    # LHAW Table 3 / 14 style rows: two default agents and two Sonnet personas besides the original
    return pd.DataFrame({
        "suite": ["mcp-atlas"] * 5, "model": ["A", "B", "S", "S", "S"],
        "policy": ["default", "default", "original", "supervisor", "executive"],
        "mean_score_with_tool": [0.71, 0.67, 0.63, 0.65, 0.56],
        "score_gain_pp_per_question": [0.11, 0.13, 0.13, 0.09, 0.13],
    })


def test_performance_vs_gain_shows_each_models_own_agent(voi):
    # LHAW Figure 4: one point per model and benchmark; the personas of Table 14 are left out
    pts = _points(plots.performance_vs_gain(voi))
    assert sorted(map(tuple, pts.round(2))) == [(0.11, 0.71), (0.13, 0.63), (0.13, 0.67)]
    assert len(_points(plots.performance_vs_gain(voi, policies=None))) == 5
    only_personas = voi[voi["policy"].isin(["supervisor", "executive"])]
    assert len(_points(plots.performance_vs_gain(only_personas))) == 2  # nothing to filter to: all shown


def test_calls_heatmap_cells_are_the_values_in_class_order():
    # LHAW Figure 6 style: one model's personas; a second model with one policy gets no panel
    calls = pd.DataFrame({"suite": "mcp-atlas", "model": ["S"] * 4 + ["O"],
                          "ambiguity_class": ["benign", "outcome-critical", "benign", "outcome-critical", "benign"],
                          "policy": ["executive", "executive", "supervisor", "supervisor", "default"],
                          "calls_per_trial": [0.22, 0.71, 0.45, 0.99, 0.30]})
    fig = plots.calls_heatmap(calls)
    ax = fig.axes[0]
    assert ax.get_title() == "mcp-atlas · S"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["outcome-critical", "benign"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["executive", "supervisor"]
    assert [t.get_text() for t in ax.texts] == ["0.71", "0.99", "0.22", "0.45"]
    assert [a.get_title() for a in fig.axes if a.get_title()] == ["mcp-atlas · S"]
    # no model with several policies: a panel each
    fig = plots.calls_heatmap(calls[calls["policy"].isin(["executive", "default"])])
    assert sorted(a.get_title() for a in fig.axes if a.get_title()) == ["mcp-atlas · O", "mcp-atlas · S"]
