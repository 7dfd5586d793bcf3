"""The figures draw the data they are given: points, cells and filters checked on the returned Figure."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from ambiglib import plots


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


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
    with pytest.warns(UserWarning, match="match no run"):
        nothing = empty.filter(benchmark="none")
    for fig in (plots.precision_recall(gap), plots.ask_calibration(tables.ask_calibration(empty)),
                plots.performance_vs_gain(tables.value_of_information(empty)),
                plots.calls_heatmap(tables.calls_per_trial(empty)),
                plots.failure_heatmap(pd.DataFrame(columns=["model", "label", "share"])),
                plots.pass_rates(tables.pass_rates(nothing)),
                plots.shift_heatmap(tables.failure_mode_shift(empty)),
                plots.variant_distribution(tables.variant_distribution(empty)),
                plots.flag_heatmap(tables.ask_failure_flags(empty))):
        assert fig.ambiglib_note  # show_figure shows this line instead of an image
        assert len(fig.axes) == 1 and not fig.axes[0].axison
        assert [t.get_text() for t in fig.axes[0].texts] == [fig.ambiglib_note]
    assert plots.precision_recall(gap).ambiglib_note == ("no runs with registered blockers and the ask tool in this log:"
                                                         " add task records listing each task's blockers, and solve"
                                                         " runs with the ask tool on the ambiguous tasks")


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


def _bars(ax) -> list[float]:
    return [round(p.get_height(), 6) for p in ax.patches if p.get_width() > 0 and p.get_height() == p.get_height()]


def test_pass_rates_bars_are_the_three_conditions_per_model():
    # HIL-Bench Figure 1A: full information, no tool, with the tool; models by full-information pass@k
    rates = pd.DataFrame({"benchmark": "b", "model": ["a", "b", "a"], "policy": "default",
                          "scope": ["combined", "combined", "sql"],
                          "pass_at_k_full_info": [0.75, 0.875, 0.5], "pass_at_k_no_tool": [0.0, 0.125, 0.0],
                          "pass_at_k_with_tool": [0.25, 0.375, 0.1]})
    ax = plots.pass_rates(rates).axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["b", "a"]
    # seaborn draws one bar container per condition, in hue order, each over the models in x order
    heights = [[round(b.get_height(), 6) for b in c] for c in ax.containers]
    assert heights == [[87.5, 75.0], [12.5, 0.0], [37.5, 25.0]]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["Full information", "No tool", "With ask tool"]
    assert plots.pass_rates(rates, scope="sql").axes[0].get_xticklabels()[0].get_text() == "a"


def test_pass_rates_of_a_one_suite_benchmark_are_its_combined_ones():
    # tables.pass_rates names a one-suite benchmark's scope after its suite (no "combined" row): those rows are drawn
    # beside another benchmark's combined rows, never "nothing to draw" under a table with values
    rates = pd.DataFrame({"benchmark": ["own", "own", "hil", "hil"], "model": ["x", "y", "z", "z"],
                          "policy": "default", "scope": ["main", "main", "combined", "sql"],
                          "pass_at_k_full_info": [0.5, 0.25, 0.75, 0.9], "pass_at_k_no_tool": [0.0, 0.125, 0.25, 0.3],
                          "pass_at_k_with_tool": [0.5, 0.375, 0.5, 0.6]})
    fig = plots.pass_rates(rates)
    assert not hasattr(fig, "ambiglib_note")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["z", "x", "y"]
    assert [[round(b.get_height(), 6) for b in c] for c in ax.containers] == \
        [[75.0, 50.0, 25.0], [25.0, 0.0, 12.5], [50.0, 50.0, 37.5]]
    only_sql = plots.pass_rates(rates, scope="sql").axes[0]
    assert [t.get_text() for t in only_sql.get_xticklabels()] == ["z"]


def test_shift_heatmap_cells_are_the_signed_points():
    # HIL-Bench Figure 3B: ask_human minus baseline, per model and failure mode
    shift = pd.DataFrame({"benchmark": "b", "suite": "sql", "model": ["Claude", "Gemini"], "n_ask_human": [30, 17],
                          "n_baseline": [40, 50], "accuracy": [15.0, 44.4], "completion": [-12.5, -38.4]})
    ax = plots.shift_heatmap(shift).axes[0]
    assert [t.get_text() for t in ax.texts] == ["+15", "-12", "+44", "-38"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["accuracy", "completion"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["Claude", "Gemini"]
    with pytest.raises(ValueError, match="several rows per 'model'"):
        plots.shift_heatmap(pd.concat([shift, shift]))


def test_variant_distribution_panels_count_variants_classes_and_dimensions():
    # LHAW Figure 3: variants and tasks, class shares (% of variants), dimension instances
    dist = pd.DataFrame({"benchmark": "lhaw", "suite": ["mcp-atlas", "tac"], "n_variants": [100, 85],
                         "n_tasks": [100, 13], "outcome-critical": [50, 40], "divergent": [30, 30], "benign": [20, 15],
                         "new-task": [0, 0], "goal": [52, 40], "constraint": [49, 20], "input": [49, 30],
                         "context": [12, 0], "n_dimension_instances": [162, 90]})
    fig = plots.variant_distribution(dist)
    left, centre, right = fig.axes[:3]
    assert _bars(left) == [100, 85, 100, 13]
    assert _bars(centre) == pytest.approx([50, 100 * 40 / 85, 30, 100 * 30 / 85, 20, 100 * 15 / 85], abs=1e-6)
    assert _bars(right) == [52, 40, 49, 20, 49, 30, 12, 0]
    assert [t.get_text() for t in centre.get_legend().get_texts()] == ["outcome-critical", "divergent", "benign"]


def test_flag_heatmap_rows_are_flags_and_columns_classes():
    # LHAW Figure 5: one model's flags by ambiguity class, as percentages of asking trials
    flags = pd.DataFrame({"model": "GPT-5.2", "policy": "default", "category": "question_quality",
                          "flag": ["flag_compound_questions"] * 2 + ["flag_vague_questions"] * 2,
                          "ambiguity_class": ["benign", "outcome-critical"] * 2,
                          "n": [4, 9, 1, 2], "share": [0.8, 0.9, 0.2, 0.2], "n_trials": [5, 10, 5, 10]})
    ax = plots.flag_heatmap(flags).axes[0]
    assert ax.get_title() == "GPT-5.2"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["outcome-critical", "benign"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["question_quality · compound_questions",
                                                          "question_quality · vague_questions"]
    assert [t.get_text() for t in ax.texts] == ["90", "80", "20", "20"]
    # a panel per model, rows shared
    two = plots.flag_heatmap(pd.concat([flags, flags.assign(model="Other", share=flags["share"] / 2)]))
    panels = [a for a in two.axes if a.get_title()]
    assert [a.get_title() for a in panels] == ["GPT-5.2", "Other"]
    assert [t.get_text() for t in panels[1].texts] == ["45", "40", "10", "10"]


@pytest.mark.parametrize("draw", ["flags", "shift", "calls", "failures"])
def test_heatmaps_without_seaborns_layout_draw_are_the_same_pixels(draw, monkeypatch):
    """seaborn draws the whole figure in every heatmap call before it measures its tick labels; on an Agg canvas
    ambiglib draws its heatmaps itself, by matplotlib's public calls, without that draw. Each PNG equals the one
    drawn by seaborn's own heatmap, with labels long enough that seaborn rotates some (checked)."""
    import io

    long = [f"flag_{'very_long_' * 3}{i}" for i in range(6)]
    classes = ("outcome-critical, a class named at length", "divergent, also at length", "benign, named at length")
    flags = pd.DataFrame([{"model": f"model-{m}", "policy": "default", "category": "question_quality", "flag": f,
                           "ambiguity_class": c, "n": 1, "share": (i * 7 + m) % 10 / 10, "n_trials": 10}
                          for m in range(6) for i, f in enumerate(long) for c in classes])
    shift = pd.DataFrame({"model": [f"a model named at length {i}" for i in range(4)],
                          **{f"failure mode number {j}": np.arange(4.0) * (j - 2) * 7 for j in range(6)}})
    calls = pd.DataFrame([{"suite": s, "model": "m", "ambiguity_class": c, "policy": f"persona named at length {p}",
                           "calls_per_trial": (p + len(c)) / 7} for s in ("mcp-atlas", "tac") for c in classes
                          for p in range(5)])
    shares = pd.DataFrame([{"model": f"model {m}", "label": f"a failure label named at length {j}",
                            "share": (m + j) / 12} for m in range(12) for j in range(5)])
    figure = {"flags": lambda: plots.flag_heatmap(flags), "shift": lambda: plots.shift_heatmap(shift),
              "calls": lambda: plots.calls_heatmap(calls), "failures": lambda: plots.failure_heatmap(shares)}[draw]
    rotations = []

    def png() -> bytes:
        fig = figure()
        rotations.append([t.get_rotation() for ax in fig.axes for t in (*ax.get_xticklabels(), *ax.get_yticklabels())])
        out = io.BytesIO()
        fig.savefig(out, format="png", dpi=80, bbox_inches="tight")
        return out.getvalue()

    skipped = png()
    monkeypatch.setattr(plots, "_heatmap", lambda wide, **kws: plots.sns.heatmap(wide, **kws))
    assert png() == skipped
    assert rotations[0] == rotations[1] and len(set(rotations[0])) > 1  # some labels turned, some not


def test_show_figure_shows_the_saved_png_once_at_the_figures_size(tmp_path):
    """With out_dir, the notebook shows the PNG written there (drawn once, the figure closed so the inline
    backend does not draw it again), at its size in inches; without, nothing is saved and the figure itself is
    returned, closed: Jupyter shows what the cell returns, once (issue 57)."""
    import matplotlib.pyplot as plt

    from ambiglib.report import show_figure

    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1], [0, 1])
    shown = show_figure(fig, "line", tmp_path, dpi=150)
    png = (tmp_path / "line.png").read_bytes()
    assert shown.data == png and shown.format == "png"
    assert not plt.fignum_exists(fig.number)
    width_px = int.from_bytes(png[16:20], "big")
    assert 3.5 * 150 < width_px <= 4.2 * 150  # bbox "tight" trims a little, or pads
    assert shown.width == round(width_px * 96 / 150)
    other, ax = plt.subplots()
    assert show_figure(other, "kept", "") is other and not plt.fignum_exists(other.number)
    assert not (tmp_path / "kept.png").exists()
