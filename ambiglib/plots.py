"""The papers' figures, drawn from tidy metric frames. Each function returns the matplotlib Figure.

Like seaborn's axes-level functions, each takes ``ax=`` to draw into an existing Axes (one
panel: filter the frame to one panel first). On an empty frame a function draws nothing but
the frame's note (``attrs["note"]``: "no runs with registered blockers and the ask tool in
this log"); the figure it returns then carries that note as ``figure.ambiglib_note``, which
:func:`ambiglib.report.show_figure` shows in one line instead of an image.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from ambiglib._lazy import OnFirstUse
from ambiglib.tables._common import OWN_AGENT, _own_agents

#: pyplot and seaborn, imported at the first draw (``ambiglib._lazy``)
plt = OnFirstUse("matplotlib.pyplot")
ticker = OnFirstUse("matplotlib.ticker")
sns = OnFirstUse("seaborn")

__all__ = ["precision_recall", "ask_calibration", "performance_vs_gain", "calls_heatmap", "failure_heatmap", "pass_rates",
           "shift_heatmap", "variant_distribution", "flag_heatmap", "scores_by_condition", "differences", "intervals",
           "rank_intervals"]


def _shown_once(fn: Callable) -> Callable:
    """``fn``'s figure, closed in pyplot when ``fn`` made it: Jupyter shows the Figure a cell returns, and the inline
    backend would draw a figure still open at the cell's end a second time. A figure drawn into a given ``ax`` is
    the caller's, and stays open."""
    @functools.wraps(fn)
    def inner(*args, **kwargs):
        fig = fn(*args, **kwargs)
        if kwargs.get("ax") is None:
            plt.close(fig)
        return fig
    return inner


def _style(style: str = "whitegrid") -> None:
    # labels, models and categories come from logs: drawn as written, never parsed as mathtext ("$\\foo$" in a
    # judge label raised ParseFatalException; "$x$" would have been typeset)
    sns.set_theme(style=style, context="notebook", rc={"text.parse_math": False})


def _heatmap(wide: pd.DataFrame, *, ax, fmt: str, cmap: str, vmin: float, vmax: float, annot: bool = True,
             center: float | None = None, cbar: bool = True, cbar_kws: dict | None = None,
             annot_kws: dict | None = None) -> None:
    """``sns.heatmap(wide, ...)`` as seaborn (0.13) draws it, made here by matplotlib's public calls but for the
    whole-figure draw seaborn makes in every call so that text is laid out before it measures whether tick labels
    overlap: on an Agg canvas (the inline backend's) text measures the same without it, and a figure of N panels
    was drawn N times. The same rotations and pixels as seaborn's (tests/test_plots.py). On another canvas, or a
    frame of several index levels, seaborn draws it."""
    import matplotlib as mpl
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if not annot or not isinstance(ax.figure.canvas, FigureCanvasAgg) or wide.index.nlevels > 1 \
            or wide.columns.nlevels > 1:
        sns.heatmap(wide, annot=annot, fmt=fmt, cmap=cmap, vmin=vmin, vmax=vmax, center=center, cbar=cbar,
                    cbar_kws=cbar_kws, annot_kws=annot_kws, ax=ax)
        return
    values = np.ma.masked_where(np.asarray(wide.isnull()), wide.values)  # an empty cell drawn blank
    colors = mpl.colormaps[cmap]
    if center is not None:  # a diverging map recentred on ``center``, as seaborn recentres it
        bad = colors(np.ma.masked_invalid([np.nan]))[0]
        under, over = colors(-np.inf), colors(np.inf)
        under_set, over_set = under != colors(0), over != colors(colors.N - 1)
        vrange = max(vmax - center, center - vmin)
        low, high = np.asarray(mpl.colors.Normalize(center - vrange, center + vrange)([vmin, vmax]), dtype=float)
        colors = mpl.colors.ListedColormap(colors(np.linspace(low, high, 256)))
        colors.set_bad(bad)
        if under_set:
            colors.set_under(under)
        if over_set:
            colors.set_over(over)
    sns.despine(ax=ax, left=True, bottom=True)
    mesh = ax.pcolormesh(values, cmap=colors, linewidths=0, edgecolor="white", vmin=vmin, vmax=vmax)
    ax.set(xlim=(0, wide.shape[1]), ylim=(0, wide.shape[0]))
    ax.invert_yaxis()
    if cbar:
        bar = ax.figure.colorbar(mesh, None, ax, **(cbar_kws or {}))
        bar.outline.set_linewidth(0)
    xticks, xticklabels = _fitting_ticks(ax, wide.columns.values, 0)
    yticks, yticklabels = _fitting_ticks(ax, wide.index.values, 1)
    ax.set(xticks=xticks, yticks=yticks)
    xtl = ax.set_xticklabels(xticklabels)
    ytl = ax.set_yticklabels(yticklabels, rotation="vertical")
    plt.setp(ytl, va="center")
    renderer = ax.figure.canvas.get_renderer()
    if _overlap(xtl, renderer):  # turned where they overlap
        plt.setp(xtl, rotation="vertical")
    if _overlap(ytl, renderer):
        plt.setp(ytl, rotation="horizontal")
    ax.set(xlabel=wide.columns.name if wide.columns.name is not None else "",
           ylabel=wide.index.name if wide.index.name is not None else "")
    mesh.update_scalarmappable()
    height, width = values.shape
    xpos, ypos = np.meshgrid(np.arange(width) + .5, np.arange(height) + .5)
    for x, y, m, color, value in zip(xpos.flat, ypos.flat, mesh.get_array().flat, mesh.get_facecolors(), values.flat):
        if m is not np.ma.masked:  # each value written in its cell, dark on a light cell and white on a dark one
            shown = {"color": ".15" if _luminance(color) > .408 else "w", "ha": "center", "va": "center",
                     **(annot_kws or {})}
            ax.text(x, y, ("{:" + fmt + "}").format(value), **shown)


def _fitting_ticks(ax, labels, axis: int) -> tuple:
    """Ticks at the centre of every ``n``-th row or column of a heatmap, and their labels: ``n`` the least for which
    the labels, at the tick labels' font size, fit along the axes (seaborn's "auto")."""
    bbox = ax.get_window_extent().transformed(ax.figure.dpi_scale_trans.inverted())
    size = [bbox.width, bbox.height][axis]
    tick, = [ax.xaxis, ax.yaxis][axis].set_ticks([0])
    max_ticks = int(size // (tick.label1.get_size() / 72))
    if max_ticks < 1:
        return [], []
    every = len(labels) // max_ticks + 1
    if every == 1:
        return np.arange(len(labels)) + .5, labels
    return np.arange(0, len(labels), every) + .5, labels[0:len(labels):every]


def _overlap(labels: list, renderer) -> bool:
    """Whether any two of the tick ``labels`` overlap, measured by ``renderer``."""
    if not labels:
        return False
    boxes = [label.get_window_extent(renderer) for label in labels]
    return max(box.count_overlaps(boxes) for box in boxes) > 1


def _luminance(color) -> float:
    """The relative luminance of ``color`` (W3C)."""
    import matplotlib as mpl

    rgb = mpl.colors.to_rgba_array(color)[:, :3]
    rgb = np.where(rgb <= .03928, rgb / 12.92, ((rgb + .055) / 1.055) ** 2.4)
    return float(rgb.dot([.2126, .7152, .0722]).item())


def _nothing(data: pd.DataFrame, what: str, ax=None):
    """The figure of an empty frame: its note, and nothing else."""
    note = data.attrs.get("note") or f"nothing to draw: no {what}"
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.5, 0.8))
        fig.ambiglib_note = note
    ax.set_axis_off()
    ax.text(0.5, 0.5, note, ha="center", va="center", fontsize=10, color="0.35", transform=ax.transAxes)
    return ax.figure


def _rows(data: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """The rows with every one of ``columns`` set (none when a column is missing: an empty table's). Where a table
    with rows has none with them all, the figure's note is why those columns are empty (``attrs["empty"]``), not
    the table's own note, which is about its rows."""
    if any(c not in data for c in columns):
        return data.iloc[:0]
    kept = data.dropna(subset=list(columns))
    if len(kept) == 0 and len(data):
        reasons = data.attrs.get("empty") or {}
        why = next((reasons[c] for c in columns if c in reasons and data[c].isna().all()), None)
        kept.attrs = {k: v for k, v in data.attrs.items() if k != "note"} | ({"note": why} if why else {})
    return kept


def _panels(data: pd.DataFrame, col: str | None, ax, fn: str) -> list:
    panels = list(dict.fromkeys(data[col])) if col and col in data else [None]
    if ax is not None and len(panels) > 1:
        raise ValueError(f"{fn}: ax= draws one panel, but the data has {len(panels)} {col!r} values {panels};"
                         f" filter it to one, or pass col=None")
    return panels


#: The widest a figure is drawn (inches): a report page shows it at its size, so its fonts keep their size; at
#: most this many panels a row (facets wrap into rows beyond, as seaborn's col_wrap does)
MAX_WIDTH = 10.5
MAX_COLS = 3
#: The smallest font drawn (points)
MIN_FONT = 9


def _axes(panels: list, ax, width: float, height: float, extra_width: float = 0.0, **kwargs):
    """A given axes, or a new figure with one axes per panel (``width`` × ``height`` each, plus ``extra_width`` for
    a legend), wrapped into rows so that the figure is at most :data:`MAX_WIDTH` wide."""
    if ax is not None:
        return ax.figure, [ax]
    n = len(panels)
    ncols = max(1, min(n, MAX_COLS, int((MAX_WIDTH - extra_width) // width)))
    nrows = -(-n // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols + extra_width, height * nrows), squeeze=False,
                             **kwargs)
    axes = list(axes.flat)
    for spare in axes[n:]:
        spare.remove()
    return fig, axes[:n]


def _below(fig, handles: list, **kwargs) -> None:
    """A figure's legend under its panels, clear of their axis labels (the saved figure's bounding box holds it)."""
    fig.tight_layout()
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0), ncol=min(4, len(handles)), frameon=False,
               fontsize=MIN_FONT + 1, **kwargs)


def _legend(fig, axes: list, own: bool, handles: list, title: str):
    """Finish a figure: drawn into a given axes, its legend in that one panel; else a title, the legend under."""
    if not own:
        axes[0].legend(handles=handles, frameon=False, fontsize=MIN_FONT)
        return fig
    fig.suptitle(title)
    _below(fig, handles)
    return fig


@_shown_once
def precision_recall(ask_f1: pd.DataFrame, *, hue: str = "model", col: str | None = "suite",
                     iso_f1: Sequence[float] = (0.2, 0.4, 0.6, 0.8), ax=None):
    """Plot question precision against blocker recall, one point per model, with iso-F1 curves.

    Parameters
    ----------
    ask_f1 : pandas.DataFrame
        :func:`ambiglib.metrics.ask_f1` output (``precision``, ``recall``; optional CIs).

    References
    ----------
    HIL-Bench Figure 1B.
    """
    _style()
    ask_f1 = _rows(ask_f1, ["precision", "recall"])
    if len(ask_f1) == 0:
        return _nothing(ask_f1, "precision and recall to draw", ax)
    panels = _panels(ask_f1, col, ax, "precision_recall")
    own = ax is None
    fig, axes = _axes(panels, ax, 3.4, 3.4)
    palette = dict(zip(sorted(ask_f1[hue].unique()), sns.color_palette("deep", ask_f1[hue].nunique())))
    r = np.linspace(0.01, 1, 200)
    for ax, panel in zip(axes, panels):
        data = ask_f1 if panel is None else ask_f1[ask_f1[col] == panel]
        for f in iso_f1:
            p = f * r / (2 * r - f)
            ok = (p > 0) & (p <= 1)
            ax.plot(r[ok], p[ok], color="0.75", lw=0.8, ls="--", zorder=0)
            i = np.argmin(np.abs(r[ok] - 0.93)) if ok.any() else None
            if i is not None:
                ax.text(r[ok][i], p[ok][i], f"F1={f:.1f}", fontsize=MIN_FONT, color="0.5", va="bottom", ha="right")
        for _, row in data.iterrows():
            color = palette[row[hue]]
            if "recall_ci_low" in row and pd.notna(row.get("recall_ci_low")):
                ax.errorbar(row["recall"], row["precision"],
                            xerr=[[row["recall"] - row["recall_ci_low"]], [row["recall_ci_high"] - row["recall"]]],
                            yerr=[[row["precision"] - row["precision_ci_low"]], [row["precision_ci_high"] - row["precision"]]],
                            color=color, alpha=0.5, lw=1, capsize=2)
            ax.scatter(row["recall"], row["precision"], s=70, color=color, edgecolor="white", zorder=3, label=row[hue])
        # a margin round [0, 1]: a model at precision or recall 1 is drawn inside the axes, whole
        ax.set(xlim=(-0.03, 1.03), ylim=(-0.03, 1.03), xlabel="blocker recall", ylabel="question precision",
               title=str(panel) if panel is not None else "")
        ax.title.set_fontsize(MIN_FONT + 2)
    handles = [plt.Line2D([], [], marker="o", ls="", color=c, label=m) for m, c in palette.items()]
    return _legend(fig, axes, own, handles, "Question precision vs blocker recall (iso-F1 curves dashed)")


@_shown_once
def ask_calibration(calibration: pd.DataFrame, *, hue: str = "model", style: str = "policy", col: str | None = "suite",
                    ax=None):
    """Plot ask-on-ambiguous against ask-on-full per model and policy; the ideal corner is (0, 1).

    Parameters
    ----------
    calibration : pandas.DataFrame
        :func:`ambiglib.metrics.ask_calibration` output.

    References
    ----------
    Ambig-DS Figure 2.
    """
    _style()
    calibration = _rows(calibration, ["ask_on_full", "ask_on_ambiguous"])
    if len(calibration) == 0:
        return _nothing(calibration, "ask rates to draw", ax)
    panels = _panels(calibration, col, ax, "ask_calibration")
    own = ax is None
    longest = max(len(str(v)) for v in calibration[hue]) if hue in calibration else 10
    fig, axes = _axes(panels, ax, 4.0, 4.2, extra_width=max(2.0, 0.6 + 0.085 * longest))  # the legend's room
    for ax, panel in zip(axes, panels):
        data = calibration if panel is None else calibration[calibration[col] == panel]
        ax.plot([0, 1], [0, 1], color="0.7", ls=":", lw=1, zorder=0)  # asks regardless of ambiguity
        # the ideal corner, drawn beneath the data so that a model sitting on it stays visible
        ax.scatter([0], [1], marker="*", s=420, color="gold", alpha=0.5, edgecolor="0.5", zorder=1, label="perfect")
        sns.scatterplot(data=data, x="ask_on_full", y="ask_on_ambiguous", hue=hue, style=style if style in data else None,
                        s=90, ax=ax, legend=ax is axes[-1], zorder=3)
        ax.set(xlim=(-0.03, 1.03), ylim=(-0.03, 1.03), xlabel="asks on fully specified tasks",
               ylabel="asks on ambiguous tasks", title=str(panel) if panel is not None else "")
        ax.title.set_fontsize(MIN_FONT + 2)
    if not own:
        return fig
    if axes[-1].get_legend():
        sns.move_legend(axes[-1], "upper left", bbox_to_anchor=(1, 1), frameon=False)
    fig.suptitle("Ask calibration (ideal: top left)", y=1.0)
    fig.tight_layout()
    return fig


@_shown_once
def performance_vs_gain(voi: pd.DataFrame, *, score: str = "mean_score_with_tool",
                        gain: str = "score_gain_pp_per_question", hue: str = "model", style: str = "suite",
                        policies: Sequence[str] | None = OWN_AGENT, ax=None):
    """Plot performance with the ask tool against gain per question (LHAW's Gain/Q: the gain ÷ all questions, which
    falls as epochs are added; compare logs of one size).

    Parameters
    ----------
    voi : pandas.DataFrame
        :func:`ambiglib.metrics.value_of_information` output.
    policies : sequence of str or None, default ("default", "original")
        The agents shown, as in LHAW Figure 4 (each model's own agent and persona); when
        ``voi`` has none of them, or with None, every row is shown.

    References
    ----------
    LHAW Figure 4.
    """
    _style()
    voi = _rows(_own_agents(voi, None if policies is None else tuple(policies)), [gain, score])
    if len(voi) == 0:
        return _nothing(voi, "gain per question to draw (no with-tool run asked)", ax)
    own = ax is None
    fig, ax = plt.subplots(figsize=(6.5, 4.6)) if own else (ax.figure, ax)
    sns.scatterplot(data=voi, x=gain, y=score, hue=hue, style=style if style in voi else None, s=100, ax=ax)
    ax.set(xlabel="Gain/Q: gain ÷ all questions asked (pp, LHAW)" if gain == "score_gain_pp_per_question"
           else gain, ylabel="score with ask_user", ylim=(0, 1.02))
    ax.axvline(0, color="0.6", lw=0.8)
    sns.move_legend(ax, "upper left", bbox_to_anchor=(1, 1), frameon=False)
    ax.set_title("Performance vs value per question")
    if own:
        fig.tight_layout()
    return fig


@_shown_once
def calls_heatmap(calls: pd.DataFrame, *, row: str = "ambiguity_class", col: str = "policy",
                  value: str = "calls_per_trial", panel: Sequence[str] = ("suite", "model"), ax=None):
    """Plot heatmaps of ask_user calls per trial, e.g. by ambiguity class × persona.

    One panel per ``panel`` group (a model on a benchmark) that has more than one
    ``col`` value, as LHAW Figure 6 compares Sonnet-4.5's personas on MCP-Atlas; when
    no group has, one panel per group.

    Parameters
    ----------
    calls : pandas.DataFrame
        One row per (panel…, row, col) with ``value``: :func:`ambiglib.tables.calls_per_trial`.

    References
    ----------
    LHAW Figure 6.
    """
    _style("white")  # an empty cell (no trials) stays blank
    if len(calls) == 0:
        return _nothing(calls, "ask_user calls to draw", ax)
    panel = [p for p in panel if p in calls]
    groups = list(calls.groupby(panel, sort=True)) if panel else [((), calls)]
    several = [(k, g) for k, g in groups if g[col].nunique() > 1]
    groups = several or groups
    order = ("outcome-critical", "divergent", "benign", "new-task")
    wides = []
    for key, g in groups:
        wide = g.pivot(index=row, columns=col, values=value)
        wides.append((key, wide.reindex([c for c in order if c in wide.index]
                                        + [i for i in wide.index if i not in order])))
    if ax is not None and len(wides) > 1:
        raise ValueError(f"calls_heatmap: ax= draws one panel, but the data has {len(wides)} {list(panel)} groups;"
                         " filter it to one")
    width = max(w.shape[1] for _, w in wides)
    heights = [0.7 * w.shape[0] + 0.9 for _, w in wides]
    own = ax is None
    if own:
        fig, axes = plt.subplots(len(wides), 1, figsize=(3.6 + 1.3 * width, 0.6 + sum(heights)), squeeze=False,
                                 gridspec_kw={"height_ratios": heights})
        axes = list(axes[:, 0])
    else:
        fig, axes = ax.figure, [ax]
    vmax = max((float(np.nanmax(w.to_numpy(dtype=float))) for _, w in wides if w.size), default=1.0)
    for ax, (key, wide) in zip(axes, wides):
        _heatmap(wide.astype(float), annot=True, fmt=".2f", cmap="rocket_r", vmin=0, vmax=vmax,
                 cbar_kws={"label": value}, ax=ax)
        key = key if isinstance(key, tuple) else (key,)
        ax.set(xlabel=col, ylabel=row, title=" · ".join(map(str, key)) or "ask_user calls per trial")
        ax.tick_params(axis="y", rotation=0)
    if own:
        fig.suptitle("ask_user calls per trial")
        fig.tight_layout()
    return fig


@_shown_once
def failure_heatmap(shares: pd.DataFrame, *, row: str = "model", col: str = "label", value: str = "share", ax=None):
    """Plot failure-mode shares per model as a heatmap (percent).

    Parameters
    ----------
    shares : pandas.DataFrame
        :func:`ambiglib.metrics.label_shares` or :func:`~ambiglib.metrics.flag_shares` output.

    References
    ----------
    HIL-Bench Figure 3.
    """
    _style("white")
    shares = _rows(shares, [value])
    if len(shares) == 0:
        return _nothing(shares, "failure-mode shares to draw", ax)
    wide = shares.pivot_table(index=row, columns=col, values=value, aggfunc="first") * 100
    own = ax is None
    fig, ax = plt.subplots(figsize=(1.8 + 1.2 * wide.shape[1], 1.2 + 0.6 * wide.shape[0])) if own else (ax.figure, ax)
    _heatmap(wide, annot=True, fmt=".0f", cmap="mako_r", vmin=0, vmax=100, cbar_kws={"label": "% of runs"}, ax=ax)
    ax.set(xlabel="", ylabel="", title="Failure modes (% of runs)")
    plt.setp(ax.get_xticklabels(), rotation=35, ha="right", rotation_mode="anchor")  # long names, narrow columns
    if own:
        fig.tight_layout()
    return fig


def _in_scope(rates: pd.DataFrame, scope: str) -> np.ndarray:
    """Which rows of a pass-rate table are ``scope``'s. A benchmark of one suite has no ``combined`` rows
    (:func:`ambiglib.tables.pass_rates` names the suite instead): its suite's rows are its combined ones."""
    chosen = (rates["scope"] == scope).to_numpy(dtype=bool)
    if scope != "combined":
        return chosen
    benchmark = rates["benchmark"] if "benchmark" in rates else pd.Series("", index=rates.index)
    pooled = pd.Series(chosen, index=rates.index).groupby(benchmark.to_numpy()).transform("any").to_numpy(dtype=bool)
    return chosen | ~pooled


@_shown_once
def pass_rates(rates: pd.DataFrame, *, scope: str = "combined", ax=None):
    """Plot pass@k with full information, without the ask tool and with it, as grouped bars per model.

    Parameters
    ----------
    rates : pandas.DataFrame
        :func:`ambiglib.tables.pass_rates` output; the rows of one ``scope`` are drawn (``combined``:
        every suite's tasks pooled; a benchmark of one suite, its suite's rows). Models are ordered by pass@k with
        full information.

    References
    ----------
    HIL-Bench Figure 1A.
    """
    _style()
    columns = {"pass_at_k_full_info": "Full information", "pass_at_k_no_tool": "No tool",
               "pass_at_k_with_tool": "With ask tool"}
    if "scope" in rates:
        rates = rates[_in_scope(rates, scope)]
    if not set(columns) <= set(rates):
        rates = rates.iloc[:0]
    elif len(rates) and rates[list(columns)].isna().all(axis=None):  # rows, every pass@k "–": the figure says why
        reasons = rates.attrs.get("empty") or {}
        why = next((reasons[c] for c in columns if c in reasons), None)
        rates = rates.iloc[:0]
        rates.attrs = {k: v for k, v in rates.attrs.items() if k != "note"} | ({"note": why} if why else {})
    else:
        rates = rates.dropna(subset=list(columns), how="all")
    if len(rates) == 0:
        return _nothing(rates, "pass rates to draw", ax)
    label = rates["model"].astype(str) + np.where(rates["policy"].isin(["default", "–"]), "",
                                                  " (" + rates["policy"].astype(str) + ")")
    long = rates.assign(label=label).melt(id_vars=["label"], value_vars=list(columns), var_name="condition",
                                          value_name="pass_at_k").dropna(subset=["pass_at_k"])
    long["condition"] = long["condition"].map(columns)
    long["pass_at_k"] = 100 * long["pass_at_k"]
    order = list(rates.assign(label=label).sort_values("pass_at_k_full_info", ascending=False)["label"])
    own = ax is None
    across = len(order) <= 7  # more models than fit across the page: one bar group per line, down the page
    size = (3.4 + 1.1 * len(order), 4.0) if across else (7.5, 1.0 + 0.5 * len(order))  # (+ the legend's 2 in)
    fig, ax = plt.subplots(figsize=size) if own else (ax.figure, ax)
    sns.barplot(long, x="label" if across else "pass_at_k", y="pass_at_k" if across else "label", hue="condition",
                order=order, hue_order=list(columns.values()), palette=["0.55", "#d95f02", "#1b9e77"], ax=ax,
                orient="v" if across else "h")
    if across:
        ax.set(xlabel="", ylabel="pass@k (%)", ylim=(0, 100))
        ax.tick_params(axis="x", rotation=30)
    else:
        ax.set(ylabel="", xlabel="pass@k (%)", xlim=(0, 100))
    ax.set_title(f"Pass rates ({scope})")
    if own:
        sns.move_legend(ax, "upper left", bbox_to_anchor=(1, 1), frameon=False, title="", fontsize=MIN_FONT + 1)
        fig.tight_layout()
    else:
        ax.legend(title="", fontsize=MIN_FONT)
    return fig


@_shown_once
def shift_heatmap(shift: pd.DataFrame, *, row: str = "model", title: str = "Shift in failure modes (pp)", ax=None):
    """Plot shifts of failure-mode shares in percentage points as a diverging heatmap (rows × failure modes).

    Parameters
    ----------
    shift : pandas.DataFrame
        :func:`ambiglib.tables.failure_mode_shift` output (filter it to one suite or condition first):
        one row per ``row`` value, a column per failure mode; the ``n_*`` and key columns are not drawn.

    References
    ----------
    HIL-Bench Figure 3B (``between="mode"``) and Figure 6 (``between="suite"``).
    """
    _style("white")
    keys = {"benchmark", "suite", "model", "mode", "policy"}
    modes = [c for c in shift.columns if c not in keys and not c.startswith("n_")]
    if len(shift) == 0 or not modes:
        return _nothing(shift, "failure-mode shifts to draw", ax)
    if shift[row].duplicated().any():
        raise ValueError(f"shift_heatmap: several rows per {row!r}; filter the frame to one suite or condition")
    wide = shift.set_index(row)[modes].astype(float)
    own = ax is None
    fig, ax = plt.subplots(figsize=(1.8 + 1.3 * wide.shape[1], 1.2 + 0.6 * wide.shape[0])) if own else (ax.figure, ax)
    limit = max(10.0, float(np.nanmax(np.abs(wide.to_numpy()))))
    _heatmap(wide, annot=True, fmt="+.0f", cmap="vlag", center=0, vmin=-limit, vmax=limit,
             cbar_kws={"label": "percentage points"}, ax=ax)
    ax.set(xlabel="", ylabel="", title=title)
    plt.setp(ax.get_xticklabels(), rotation=35, ha="right", rotation_mode="anchor")  # long names, narrow columns
    ax.tick_params(axis="y", rotation=0)
    if own:
        fig.tight_layout()
    return fig


@_shown_once
def variant_distribution(dist: pd.DataFrame):
    """Plot a benchmark's variants per suite: variants and unique tasks, ambiguity classes, dimensions (three panels).

    Parameters
    ----------
    dist : pandas.DataFrame
        :func:`ambiglib.tables.variant_distribution` output.

    References
    ----------
    LHAW Figure 3.
    """
    _style()
    if len(dist) == 0:
        return _nothing(dist, "variants to draw")
    classes = [c for c in ("outcome-critical", "divergent", "benign", "new-task") if c in dist and dist[c].any()]
    skip = {"benchmark", "suite", "n_variants", "n_tasks", "n_dimension_instances", "outcome-critical", "divergent",
            "benign", "new-task"}
    dims = [c for c in dist.columns if c not in skip and dist[c].any()]
    fig, axes = _axes([0, 1, 2], None, 5.0, 3.8)  # two a row: three in one row would shrink to the page
    panels = ((["n_variants", "n_tasks"], {"n_variants": "variants", "n_tasks": "unique tasks"}, "count",
               "Variants and tasks"),
              (classes, None, "% of variants", "Ambiguity class"),
              (dims, None, "dimension instances", "Information dimension"))
    for ax, (cols, names, ylabel, title) in zip(axes, panels):
        if not cols:
            ax.set_axis_off()
            ax.text(0.5, 0.5, f"no {title.lower()} in the task records", ha="center", va="center", color="0.35")
            continue
        long = dist.melt(id_vars=["suite"], value_vars=cols, var_name="what", value_name="value")
        if title == "Ambiguity class":
            long["value"] = 100 * long["value"] / long["suite"].map(dist.set_index("suite")["n_variants"])
        if names:
            long["what"] = long["what"].map(names)
        sns.barplot(long, x="suite", y="value", hue="what", ax=ax)
        for container in ax.containers:
            ax.bar_label(container, fmt="%.0f", fontsize=MIN_FONT)
        ax.set(xlabel="", ylabel=ylabel, title=title)
        ax.set_ylim(top=ax.get_ylim()[1] * 1.3)  # headroom: the legend above the tallest bars and their labels
        ax.legend(title="", fontsize=MIN_FONT, ncols=2, loc="upper center")
    fig.suptitle("Variants per suite")
    fig.tight_layout()
    return fig


@_shown_once
def flag_heatmap(flags: pd.DataFrame, *, col: str = "ambiguity_class", ax=None):
    """Plot the share of asking trials with each ask_user failure flag, flags × ``col`` (percent).

    Parameters
    ----------
    flags : pandas.DataFrame
        :func:`ambiglib.tables.ask_failure_flags` output: one panel per suite, model and policy.

    References
    ----------
    LHAW Figure 5 (GPT-5.2 by ambiguity class).
    """
    _style("white")
    flags = _rows(flags, ["share"])
    if len(flags) == 0:
        return _nothing(flags, "failure flags to draw", ax)
    order = ("outcome-critical", "divergent", "benign", "new-task", "all")
    flags = flags.assign(label=flags["category"].astype(str) + " · " + flags["flag"].astype(str).str.removeprefix("flag_"))
    rows = sorted(set(flags["label"]))
    keys = [k for k in ("benchmark", "suite", "model", "policy") if k in flags]
    groups = list(flags.groupby(keys, sort=True))
    if ax is not None and len(groups) > 1:
        raise ValueError(f"flag_heatmap: ax= draws one panel, but the data has {len(groups)} {keys} groups;"
                         " filter it to one")
    own = ax is None
    if own:  # the flags' names once a row, on its first panel; panels wrap into rows of three
        n_cols = max(g[col].nunique() for _, g in groups)
        fig, axes = _axes(groups, None, 0.9 * n_cols + 0.6, 1.4 + 0.32 * len(rows), extra_width=4.2)
    else:
        fig, axes = ax.figure, [ax]
    ncols = len({round(a.get_position().x0, 3) for a in axes})
    for i, (ax, (key, g)) in enumerate(zip(axes, groups)):
        wide = g.pivot(index="label", columns=col, values="share").reindex(rows) * 100
        wide = wide.reindex(columns=[c for c in order if c in wide.columns] + [c for c in wide.columns if c not in order])
        _heatmap(wide, annot=True, fmt=".0f", cmap="mako_r", vmin=0, vmax=100, cbar=False, ax=ax,
                 annot_kws={"fontsize": MIN_FONT})
        key = key if isinstance(key, tuple) else (key,)
        name = dict(zip(keys, key))
        policy = "" if name.get("policy", "default") in ("default", "original") else f" ({name['policy']})"
        # every key that tells one panel from another: the suite, then the model and its policy
        where = " · ".join(str(name[k]) for k in ("benchmark", "suite") if k in name
                           and (k != "benchmark" or flags["benchmark"].nunique() > 1))
        ax.set(xlabel="", ylabel="", title=f"{where}\n{name.get('model', '')}{policy}".strip())
        ax.title.set_fontsize(MIN_FONT + 1)
        ax.tick_params(axis="y", labelsize=MIN_FONT, rotation=0, labelleft=i % ncols == 0)
        ax.tick_params(axis="x", labelsize=MIN_FONT, rotation=30)
    if own:
        fig.suptitle("ask_user failure flags (% of asking trials)")
        fig.tight_layout()
        fig.colorbar(axes[0].collections[0], ax=axes, label="% of asking trials", shrink=0.5, pad=0.02)
    return fig


@_shown_once
def scores_by_condition(payoff: pd.DataFrame, *, col: str | None = "benchmark", ax=None):
    """Plot each agent's mean score fully specified, on ambiguous tasks without the ask tool and with it, with
    their intervals: how much asking recovers of what ambiguity costs.

    Parameters
    ----------
    payoff : pandas.DataFrame
        :func:`ambiglib.answers.payoff` output (``agent``, ``score_full``, ``score_no_tool``,
        ``score_with_tool`` and their ``_ci_low``/``_ci_high``).
    """
    _style()
    conditions = [("score_full", "fully specified", "#4c72b0", "s"), ("score_no_tool", "ambiguous, no ask tool",
                  "#c44e52", "X"), ("score_with_tool", "ambiguous, with the ask tool", "#55a868", "o")]
    shown = [c for c in conditions if c[0] in payoff and payoff[c[0]].notna().any()]
    data = payoff[payoff[[c[0] for c in shown]].notna().any(axis=1)] if shown else payoff.iloc[:0]
    if len(data) == 0:
        return _nothing(payoff, "scores to draw", ax)
    panels = _panels(data, col, ax, "scores_by_condition")
    own = ax is None
    rows = max(len(data[data[col] == p]) if p is not None else len(data) for p in panels)
    fig, axes = _axes(panels, ax, 4.6, max(2.4, 1.0 + 0.6 * rows))
    for ax, panel in zip(axes, panels):
        block = data if panel is None else data[data[col] == panel]
        agents = list(block["agent"])
        y = np.arange(len(agents))
        for i, (name, label, color, marker) in enumerate(shown):
            offset = (i - (len(shown) - 1) / 2) * 0.18
            v = block[name].to_numpy(float)
            ok = ~np.isnan(v)
            lo, hi = block.get(f"{name}_ci_low"), block.get(f"{name}_ci_high")
            if lo is not None and hi is not None:
                err = np.vstack([v - lo.to_numpy(float), hi.to_numpy(float) - v])[:, ok]
                ax.errorbar(v[ok], y[ok] + offset, xerr=err, fmt="none", ecolor=color, alpha=0.6, lw=1.2, capsize=2)
            ax.scatter(v[ok], y[ok] + offset, color=color, marker=marker, s=55, zorder=3, label=label,
                       edgecolor="white")
        ax.set_yticks(y, agents)
        ax.set(xlim=(-0.03, 1.03), ylim=(len(agents) - 0.5, -0.5), xlabel="mean score",
               title=str(panel) if panel is not None else "")
        ax.title.set_fontsize(MIN_FONT + 2)
    handles = [plt.Line2D([], [], marker=m, ls="", color=c, label=lab) for _, lab, c, m in shown]
    return _legend(fig, axes, own, handles, "Mean score by condition (95% intervals)")


@_shown_once
def differences(comparison: pd.DataFrame, *, col: str = "what", ax=None):
    """Plot paired differences between agents with their intervals (a forest plot), one panel per metric.

    Parameters
    ----------
    comparison : pandas.DataFrame
        :func:`ambiglib.answers.agent_comparison` (or :func:`ambiglib.comparisons.paired_comparison`) output:
        ``difference``, ``difference_ci_low``, ``difference_ci_high``, ``model_a``, ``model_b``; a ``verdict``
        colours the clear differences.
    """
    _style()
    data = _rows(comparison, ["difference", "difference_ci_low", "difference_ci_high"])
    if len(data) == 0:
        return _nothing(comparison, "differences to draw", ax)
    if col not in data:
        data, col = data.assign(_panel=data.get("metric", "difference")), "_panel"
    panels = _panels(data, col, ax, "differences")
    own = ax is None
    rows = max(len(data[data[col] == p]) for p in panels)
    # one panel a row, as wide as a page: the labels (benchmark, the two agents) need the room
    fig, axes = _axes(panels, ax, 9.5, max(1.6, 0.8 + 0.42 * rows))
    several = "benchmark" in data and data["benchmark"].nunique() > 1
    for ax, panel in zip(axes, panels):
        block = data[data[col] == panel]
        labels = [(f"{b}: " if several else "") + f"{a} − {m}" + (f" ({p})" if p not in (None, "default") else "")
                  for b, a, m, p in zip(block.get("benchmark", [""] * len(block)), block["model_a"], block["model_b"],
                                        block.get("policy", [None] * len(block)))]
        y = np.arange(len(block))
        clear = block["verdict"].str.endswith(" higher").to_numpy() if "verdict" in block else np.zeros(len(block), bool)
        v = block["difference"].to_numpy(float)
        err = np.vstack([v - block["difference_ci_low"].to_numpy(float), block["difference_ci_high"].to_numpy(float) - v])
        for i in range(len(block)):
            color = "#c44e52" if clear[i] else "0.35"
            ax.errorbar(v[i], y[i], xerr=err[:, [i]], fmt="o", color=color, ecolor=color, capsize=3, ms=6)
        ax.axvline(0, color="0.6", lw=0.9, ls="--")
        ax.set_yticks(y, labels)
        ax.set(ylim=(len(labels) - 0.5, -0.5), xlabel="difference (a − b)", title=str(panel))
        ax.title.set_fontsize(MIN_FONT + 2)
    if not own:
        return fig
    fig.suptitle("Paired differences between agents (95% intervals; red: a clear difference after Holm)")
    fig.tight_layout()
    return fig


@_shown_once
def intervals(frame: pd.DataFrame, columns: Sequence[tuple[str, str, str]], *, labels: Sequence[str],
              title: str = "", ax=None):
    """Plot each quantity a panel, each row a point with its interval (``<column>_ci_low``, ``_ci_high``) as an error
    bar: what :meth:`ambiglib.answers.Answer.plot` draws.

    Parameters
    ----------
    frame : pandas.DataFrame
    columns : sequence of (column, heading, format)
        The quantities, each drawn in its own panel headed in words; the rows share one axis of ``labels``.
        The format (:func:`ambiglib.answers._cards.number`'s) sets the axis: ``share`` and ``score`` on 0 to 1 in every
        panel (so that panels compare), a share in percent; ``pp`` and ``signed`` with a line at 0.
    labels : sequence of str
        One name per row of ``frame``.

    A row without a value in a panel is marked "–" there, and the figure says why under its panels (the frame's
    ``attrs["empty"]``)."""
    _style()
    if len(frame) == 0 or not columns:
        return _nothing(frame, "values to draw", ax)
    panels = list(columns)
    fig, axes = _axes(panels, ax, 3.4, max(1.6, 0.9 + 0.36 * len(frame)), sharey=True) if ax is None \
        else _axes(panels[:1], ax, 3.4, 1.6)
    y = np.arange(len(frame))
    empty = frame.attrs.get("empty") or {}
    said: list[str] = []
    for axis, (column, heading, fmt) in zip(axes, panels):
        v = pd.to_numeric(frame[column], errors="coerce").to_numpy(float)
        low = pd.to_numeric(frame.get(f"{column}_ci_low", pd.Series(np.nan, index=frame.index)),
                            errors="coerce").to_numpy(float)
        high = pd.to_numeric(frame.get(f"{column}_ci_high", pd.Series(np.nan, index=frame.index)),
                             errors="coerce").to_numpy(float)
        has = ~np.isnan(v)
        bar = has & ~np.isnan(low) & ~np.isnan(high)
        axis.errorbar(v[bar], y[bar], xerr=np.vstack([v[bar] - low[bar], high[bar] - v[bar]]), fmt="o",
                      color="0.25", ecolor="0.45", capsize=3, ms=5)
        axis.plot(v[has & ~bar], y[has & ~bar], "o", color="0.25", ms=5)
        for i in np.flatnonzero(~has):  # a missing value is marked where its point would be, and said below
            axis.text(0.02, y[i], "–", transform=axis.get_yaxis_transform(), va="center", color="#a50")
        if (~has).any() and column in empty and empty[column] not in said:
            said.append(f"– in {heading}: {empty[column]}")
        if fmt in ("pp", "signed"):
            axis.axvline(0, color="0.6", lw=0.9, ls="--")
        elif fmt in ("share", "score"):
            axis.set_xlim(-0.04, 1.04)
            if fmt == "share":
                axis.xaxis.set_major_formatter(ticker.PercentFormatter(1.0, decimals=0))
        axis.set_title(heading, fontsize=MIN_FONT + 1)
        axis.set_yticks(y, labels)
        axis.set_ylim(len(frame) - 0.5, -0.5)
    if ax is None:
        if title:
            fig.suptitle(title)
        fig.tight_layout()
        if said:
            fig.text(0.01, 0, "\n".join(said), ha="left", va="top", fontsize=MIN_FONT, color="#a50", wrap=True)
    return fig


@_shown_once
def rank_intervals(ranking: pd.DataFrame, *, ax=None):
    """Plot each agent's rank interval, one panel per benchmark and metric: a bar from the best rank the log allows
    it to the worst, its point rank marked, its group letters beside it; the agents in the top group in colour.

    Parameters
    ----------
    ranking : pandas.DataFrame
        :func:`ambiglib.ranking.rank_agents` output (``rank``, ``rank_low``, ``rank_high``, ``group``, ``top``,
        ``agent``, ``what``), or :func:`ambiglib.answers.agent_ranking`'s (``<metric>_rank_low`` and the
        others for each metric of its ``attrs["ranked"]``).
    """
    _style()
    long = ranking if "rank_low" in ranking.columns else _long_ranking(ranking)
    if len(long) == 0:
        return _nothing(ranking, "rankings to draw", ax)
    side = "agent" if "agent" in long.columns else next(c for c in ("policy", "ask_tool", "log") if c in long.columns)
    data = long[long["rank_low"].notna()].copy()
    if len(data) == 0:
        return _nothing(ranking, "rankings to draw (no agent has a value to rank)", ax)
    several = data["benchmark"].nunique() > 1
    data["_panel"] = (data["benchmark"].astype(str) + ": " if several else "") + data["what"].astype(str)
    if "policy" in data and data["policy"].astype(str).ne("default").any():
        data["_panel"] = data["_panel"] + " (policy " + data["policy"].astype(str) + ")"
    counts = data["_panel"].value_counts()
    data = data[data["_panel"].map(counts) >= 2]  # one agent: nothing to rank, no panel
    if len(data) == 0:
        return _nothing(ranking, "rankings to draw (one agent in each block: nothing to rank)", ax)
    panels = list(dict.fromkeys(data["_panel"]))
    rows = max(int((data["_panel"] == p).sum()) for p in panels)
    fig, axes = _axes(panels, ax, max(4.6, 2.6 + 0.25 * rows), max(2.0, 1.0 + 0.34 * rows))
    for axis, panel in zip(axes, panels):
        block = data[data["_panel"] == panel].sort_values(["rank", "rank_low"], kind="stable")
        y = np.arange(len(block))
        low, high = block["rank_low"].to_numpy(float), block["rank_high"].to_numpy(float)
        top = block["top"].astype(bool).to_numpy()
        colors = np.where(top, "#4c72b0", "0.55")
        axis.hlines(y, low - 0.3, high + 0.3, colors=colors, lw=6, alpha=0.45)
        axis.scatter(block["rank"].to_numpy(float), y, color=colors, s=36, zorder=3, edgecolor="white")
        m = int(block["n_agents"].max())
        for i, (g, h) in enumerate(zip(block["group"], high)):
            axis.text(min(h + 0.5, m + 0.4), y[i], str(g), va="center", fontsize=MIN_FONT, color="0.2")
        axis.set_yticks(y, [str(a) for a in block[side]])
        axis.set(xlim=(0.4, m + 1.2), ylim=(len(block) - 0.5, -0.5), xlabel="rank (1 = highest)", title=panel)
        axis.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
        axis.title.set_fontsize(MIN_FONT + 2)
    if ax is not None:
        return fig
    fig.suptitle("Rank intervals, 95% (blue: the top group;\nagents sharing a letter are not told apart)",
                 fontsize=MIN_FONT + 2)
    fig.tight_layout()
    return fig


def _long_ranking(wide: pd.DataFrame) -> pd.DataFrame:
    """:func:`ambiglib.answers.agent_ranking`'s rows, one per agent and metric, as :func:`rank_intervals` draws
    them."""
    parts = []
    keys = [c for c in ("benchmark", "policy", "log") if c in wide.columns]
    for metric, what in (wide.attrs.get("ranked") or {}).items():
        if f"{metric}_rank_low" not in wide.columns:
            continue
        part = wide[[*keys, "agent"]].assign(
            what=what, rank=wide[f"{metric}_rank"], rank_low=wide[f"{metric}_rank_low"],
            rank_high=wide[f"{metric}_rank_high"], group=wide[f"{metric}_group"])
        part = part[part["rank_low"].notna()].copy()
        part["top"] = part["rank_low"] == 1
        block = [*keys, "what"]
        part["n_agents"] = part.groupby(block, dropna=False)["agent"].transform("size") if len(part) else 0
        parts.append(part)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["rank_low"])
