"""Every figure of the example and paper reports reads at a report page's width (issue 29): drawn as the
notebooks draw it, each is checked on what it draws, not on pixels: at most 2.5:1 and 10.5 in wide (a page shows
it at its size), panel titles present and unique, every point inside its axes, no text under 9 pt, no legend over
another panel or an axis label."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest
from matplotlib.collections import PathCollection
from matplotlib.text import Text

import ambiglib
from ambiglib import plots, tables

ROOT = Path(__file__).resolve().parents[1]
N_BOOT = 200


def _judgment(rs):
    gap = tables.judgment_gap(rs, ci=True, n_boot=N_BOOT)
    return plots.precision_recall(gap.assign(panel=gap["benchmark"] + " · " + gap["suite"], agent=gap["model"] + gap[
        "policy"].map(lambda p: "" if p in ("default", "–") else f" ({p})")), col="panel", hue="agent")


def _calibration(rs):
    c = tables.ask_calibration(rs, ci=True, n_boot=N_BOOT)
    return plots.ask_calibration(c.assign(panel=c["benchmark"] + " · " + c["suite"]), col="panel")


def _logic(rs):
    logic = tables.failure_modes(rs, dimension="logic")
    return plots.failure_heatmap(logic.melt(id_vars=["benchmark", "suite", "model", "mode", "n"], var_name="label",
                                            value_name="share").assign(
        model=lambda f: f["benchmark"] + " " + f["suite"] + " · " + f["model"] + " / " + f["mode"]))


def _shift(rs):
    s = tables.failure_mode_shift(rs, dimension="tool_use")
    return plots.shift_heatmap(s.assign(model=s["benchmark"] + " " + s["suite"] + " · " + s["model"]),
                               title="Tool use: ask_human − baseline (pp)")


def _domains(rs):
    s = tables.failure_mode_shift(rs, dimension="tool_use", between="suite")
    return plots.shift_heatmap(s.assign(model=s["benchmark"] + " · " + s["model"] + " / " + s["mode"]),
                               title="Tool use: SWE − SQL (pp)")


def _pass_rates(rs):
    p = tables.pass_rates(rs)
    return plots.pass_rates(p.assign(model=p["benchmark"] + " · " + p["model"]))


def _voi(rs):
    v = tables.value_of_information(rs)
    return plots.performance_vs_gain(v.assign(mean_score_with_tool=v["mean_score"] + v["score_gain_pp"] / 100))


#: each figure of the report, drawn as its notebook draws it
FIGURES = {
    "precision_recall": _judgment,
    "ask_calibration": _calibration,
    "logic_failure_modes": _logic,
    "tool_use_shift": _shift,
    "tool_use_domains": _domains,
    "pass_rates": _pass_rates,
    "ask_failure_flags": lambda rs: plots.flag_heatmap(tables.ask_failure_flags(rs)),
    "variant_distribution": lambda rs: plots.variant_distribution(tables.variant_distribution(rs)),
    "calls_heatmap": lambda rs: plots.calls_heatmap(tables.calls_per_trial(rs)),
    "performance_vs_gain": _voi,
}


@pytest.fixture(scope="module", params=["example", "paper"])
def logs(request):
    return request.param, ambiglib.load(ROOT / "data" / request.param, quiet=True)


def _drawn_texts(fig):
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip() and t.figure is fig]


def check_figure(fig) -> list[str]:
    """What keeps a figure from reading at a page's width, as sentences (none: it reads)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    problems = []
    # (plots close the figures they make, so that Jupyter shows each once: a closed figure is drawn on a canvas of
    # its own, as Jupyter and savefig draw it)
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    box = fig.get_tightbbox(renderer)  # inches: what savefig(bbox_inches="tight") writes
    if box.width / box.height > 2.5:
        problems.append(f"aspect {box.width / box.height:.2f}:1 (at most 2.5:1)")
    if box.width > plots.MAX_WIDTH + 0.8:
        problems.append(f"{box.width:.1f} in wide: shrunk on the page")
    axes = [a for a in fig.axes if a.get_visible() and a.get_label() != "<colorbar>"]
    titles = [a.get_title() for a in axes]
    if len(axes) > 1 and (len(set(titles)) < len(titles) or not all(t.strip() for t in titles)):
        problems.append(f"panel titles not unique and complete: {titles}")
    for a in axes:
        (x0, x1), (y0, y1) = sorted(a.get_xlim()), sorted(a.get_ylim())
        for c in a.collections:
            if isinstance(c, PathCollection):
                for x, y in c.get_offsets():
                    if not (x0 <= x <= x1 and y0 <= y <= y1):
                        problems.append(f"point ({x:.3g}, {y:.3g}) outside axes {a.get_title()!r}")
    small = sorted({round(t.get_fontsize(), 1) for t in _drawn_texts(fig) if t.get_fontsize() < plots.MIN_FONT})
    if small:
        problems.append(f"text at {small} pt (at least {plots.MIN_FONT})")
    legends = [lg for lg in [*fig.legends, *(a.get_legend() for a in axes)] if lg is not None]
    for lg in legends:
        lb = lg.get_window_extent(renderer)
        for a in axes:
            if lg.axes is a:  # inside its own axes: only its axis labels and tick labels are off limits
                parts = [a.xaxis.label, a.yaxis.label]
            else:
                parts = [a]
            for part in parts:
                pb = part.get_window_extent(renderer) if part is not a else a.get_tightbbox(renderer)
                if pb is not None and lb.overlaps(pb) and (part is not a or lg.axes is not a):
                    problems.append(f"legend over {'axes' if part is a else 'a label'} of {a.get_title()!r}")
    return problems


@pytest.mark.parametrize("name", list(FIGURES))
def test_every_report_figure_reads_at_page_width(logs, name):
    which, rs = logs
    fig = FIGURES[name](rs)
    try:
        if getattr(fig, "ambiglib_note", None):
            pytest.skip(f"{which}: nothing to draw ({fig.ambiglib_note})")
        assert check_figure(fig) == []
    finally:
        plt.close(fig)


def test_the_checker_sees_what_it_checks():
    # a figure of six panels in one row, a point outside its axes, a 7 pt label and a repeated title: each is named
    fig, axes = plt.subplots(1, 6, figsize=(24, 4))
    for a in axes:
        a.set_title("same")
    axes[0].scatter([2], [0.5])
    axes[0].set(xlim=(0, 1), ylim=(0, 1))
    axes[1].text(0.5, 0.5, "tiny", fontsize=7)
    problems = " | ".join(check_figure(fig))
    plt.close(fig)
    for expected in ("aspect", "wide", "not unique", "outside axes", "[7.0] pt"):
        assert expected in problems
