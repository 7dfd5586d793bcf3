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


def test_every_plot_draws_only_the_note_of_an_empty_frame():
    from ambiglib import tables
    from ambiglib.runset import RunSet

    empty = RunSet.from_records([{"benchmark": "mine", "suite": "s", "task_id": "t", "model": "m", "spec": "full",
                                  "ask_tool": False, "score": 0.5}])
    gap = tables.judgment_gap(empty)
    for fig in (plots.precision_recall(gap), plots.ask_calibration(tables.ask_calibration(empty)),
                plots.performance_vs_gain(tables.value_of_information(empty)),
                plots.calls_heatmap(tables.calls_per_trial(empty)),
                plots.failure_heatmap(pd.DataFrame(columns=["model", "label", "share"]))):
        assert fig.ambiglib_note  # show_figure shows this line instead of an image
        assert len(fig.axes) == 1 and not fig.axes[0].axison
        assert [t.get_text() for t in fig.axes[0].texts] == [fig.ambiglib_note]
    assert plots.precision_recall(gap).ambiglib_note == "no runs with registered blockers and the ask tool in this log"


def test_plots_draw_into_a_given_axes_like_seaborn():
    import matplotlib.pyplot as plt

    f1 = pd.DataFrame({"suite": ["sql", "sql"], "model": ["a", "b"], "precision": [0.5, 0.8], "recall": [0.4, 0.2]})
    fig, (left, right) = plt.subplots(1, 2)
    assert plots.precision_recall(f1, ax=right) is fig
    assert len(fig.axes) == 2 and not hasattr(fig, "ambiglib_note")
    pts = np.concatenate([c.get_offsets() for c in right.collections if len(c.get_offsets())])
    assert sorted(map(tuple, pts.round(2))) == [(0.2, 0.8), (0.4, 0.5)]  # (recall, precision)
    assert len(left.collections) == 0
    calib = pd.DataFrame({"suite": ["s"], "model": ["a"], "policy": ["p"], "ask_on_full": [0.1],
                          "ask_on_ambiguous": [0.9]})
    fig, ax = plt.subplots()
    assert plots.ask_calibration(calib, ax=ax) is fig and len(fig.axes) == 1
    fig, ax = plt.subplots()
    shares = pd.DataFrame({"model": ["a", "a"], "label": ["x", "y"], "share": [0.25, 0.75]})
    assert plots.failure_heatmap(shares, ax=ax) is fig
    two = pd.concat([f1, f1.assign(suite="swe")])
    with pytest.raises(ValueError, match=r"ax= draws one panel, but the data has 2 'suite' values"):
        plots.precision_recall(two, ax=ax)
    # an empty frame drawn into a given axes: the note there, the figure itself not marked
    fig, ax = plt.subplots()
    plots.precision_recall(f1.iloc[:0], ax=ax)
    assert not hasattr(fig, "ambiglib_note") and len(ax.texts) == 1
