"""The four questions as notebook objects (issue 57): ``rs.asking()``, ``rs.question_quality()``, ``rs.payoff()`` and
``rs.compare()`` display as the report's card, draw once, typeset for a paper and list a comparison task by task.

The numbers are the engine's (``headline``, ``comparisons``), checked against a hand pivot of the runs; the display
is checked as Jupyter gets it (a notebook executed with nbclient)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_own_benchmark import clarifybench

import ambiglib
from ambiglib import tables
from ambiglib.answers import _headline as headline
from ambiglib.answers._notebook import Answer
from ambiglib.runset import RunSet

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def own() -> RunSet:
    """An own benchmark: three agents, 40 tasks, three trials (tests/test_own_benchmark.py's clarifybench)."""
    return RunSet.from_records(clarifybench(n_tasks=40))


def _shown_headings(html_text: str) -> list[str]:
    head = re.search(r"<thead><tr>(.*?)</tr></thead>", html_text, re.S).group(1)
    return re.findall(r"<th[^>]*>(.*?)</th>", head)


def test_asking_shows_the_card_with_percentages_and_intervals_in_at_most_eight_columns(own):
    answer = own.asking()
    assert isinstance(answer, Answer) and isinstance(answer, pd.DataFrame)
    engine = headline.asking(own)
    pd.testing.assert_frame_equal(answer.frame, pd.DataFrame(engine), check_like=False)  # every column kept
    page = answer._repr_html_()
    headings = _shown_headings(page)
    assert 2 <= len(headings) <= 8 and headings[0] == "agent"
    assert "Does each agent ask when it should?" in page
    # each agent's ask rate, as a percentage, with its interval under it, from the engine's own numbers
    for _, row in engine.iterrows():
        value = f"{100 * row['ask_on_ambiguous']:.0f}%"
        interval = f"{100 * row['ask_on_ambiguous_ci_low']:.0f}% to {100 * row['ask_on_ambiguous_ci_high']:.0f}%"
        assert f"<td>{value}<span class='ci'>{interval}</span></td>" in page
    assert "Intervals: 95%" in page  # how the intervals were made, so that "82% (70–89%)" can be signed
    # the card's look is scoped to the card: it changes nothing else in the notebook
    style = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    selectors = [sel.strip() for rule in style.split("}") if rule.strip() for sel in rule.split("{")[0].split(",")]
    assert selectors and all(sel.startswith(".ambiglib-answer ") for sel in selectors)


def test_formatted_gives_each_value_with_its_interval_and_numbers_every_dash(own):
    answer = own.asking()
    shown = answer.formatted()
    assert list(shown.columns) == ["benchmark", "agent", "asks on ambiguous tasks", "asks on fully specified tasks",
                                   "CalibScore"]
    row = answer.frame.iloc[0]
    assert shown["asks on ambiguous tasks"].iloc[0] == (
        f"{100 * row['ask_on_ambiguous']:.0f}% ({100 * row['ask_on_ambiguous_ci_low']:.0f}–"
        f"{100 * row['ask_on_ambiguous_ci_high']:.0f}%)")
    assert shown["CalibScore"].iloc[0] == (f"{row['calib_score']:.2f} ({row['calib_score_ci_low']:.2f}–"
                                           f"{row['calib_score_ci_high']:.2f})")
    # a log without fully specified ask-tool runs: the dash carries its reason's number, and the reason is listed
    amb = own.filter(spec="ambiguous")
    shown = amb.asking().formatted()
    assert set(shown["asks on fully specified tasks"]) == {"– [1]"}
    assert shown.attrs["notes"][0].startswith("[1] ") and "fully specified" in shown.attrs["notes"][0]


def test_a_signed_difference_reads_with_to_not_a_dash(own):
    pay = own.payoff().formatted()
    cells = pay["gain from asking (pp)"]
    assert cells.str.fullmatch(r"[+-]\d+\.\d \([+-]\d+\.\d to [+-]\d+\.\d\)").all(), cells.tolist()


def test_per_task_equals_a_hand_pivot_and_its_mean_is_the_difference(own):
    comparison = own.compare("agent-x", "agent-y", metric="mean_score")
    assert len(comparison) == 1
    per = comparison.per_task()
    runs = own.runs
    scope = runs[(runs["spec"] == "ambiguous") & runs["ask_tool"] & (runs["policy"] == "default")
                 & (runs["protocol"] == "solve") & runs["score"].notna()]
    pivot = scope.groupby(["task_id", "model"])["score"].mean().unstack("model")[["agent-x", "agent-y"]].dropna()
    assert len(per) == len(pivot) == 40
    got = per.set_index("task_id").loc[pivot.index]
    np.testing.assert_allclose(got["value_a"], pivot["agent-x"])
    np.testing.assert_allclose(got["value_b"], pivot["agent-y"])
    np.testing.assert_allclose(got["difference"], pivot["agent-x"] - pivot["agent-y"])
    # issue 72: the side higher in its name, not a code
    expected = np.where(pivot["agent-x"] > pivot["agent-y"], "agent-x higher",
                        np.where(pivot["agent-x"] < pivot["agent-y"], "agent-y higher", "same"))
    assert (got["changed"].to_numpy() == expected).all()
    assert per["difference"].abs().is_monotonic_decreasing  # the tasks that move most first
    assert per["difference"].mean() == pytest.approx(comparison["difference"].iloc[0])


def test_per_task_flags_a_pass_fail_task_passed_on_one_side_only():
    records = []
    outcomes = {"t1": (1, 0), "t2": (0, 1), "t3": (1, 1), "t4": (0, 0)}
    for task, (a, b) in outcomes.items():
        for model, score in (("a", a), ("b", b)):
            records.append({"benchmark": "own", "suite": "s", "task_id": task, "model": model, "spec": "ambiguous",
                            "ask_tool": True, "trial": 1, "status": "ok", "score": float(score),
                            "passed": bool(score)})
    per = RunSet.from_records(records).compare("a", "b").per_task()
    assert per["pass_fail"].all()
    assert dict(zip(per["task_id"], per["changed"])) == {"t1": "a higher", "t2": "b higher", "t3": "same",
                                                         "t4": "same"}
    with pytest.raises(AttributeError, match="only a comparison"):
        RunSet.from_records(records).asking().per_task()


def test_to_latex_is_a_booktabs_table_of_the_formatted_columns_with_the_method_in_a_note(own):
    records = clarifybench(n_tasks=12)
    for r in records:
        if r.get("model") == "agent-x":
            r["model"] = "x_1 & 50%"  # a name TeX would read as markup
    tex = RunSet.from_records(records).asking().to_latex(label="tab:asking")
    assert "\\toprule" in tex and "\\midrule" in tex and "\\bottomrule" in tex
    columns = re.search(r"\\begin\{tabular\}\{([lr]+)\}", tex).group(1)
    assert len(columns) <= 8
    assert "x\\_1 \\& 50\\%" in tex and "x_1 & 50%" not in tex
    assert "\\caption{Does each agent ask when it should?}" in tex and "\\label{tab:asking}" in tex
    assert "Intervals: 95\\%" in tex
    body = tex.split("\\midrule")[1].split("\\bottomrule")[0]
    assert re.search(r"\d+\\% \(\d+–\d+\\%\)", body)  # "82% (70–89%)"


def test_a_solve_only_log_is_not_captioned_with_ask_only_runs(own):
    """tables.ask_calibration's caption named "the ask-only runs (Ambig-DS Table 13)" on a log of solve runs."""
    caption = tables.ask_calibration(own).attrs["caption"]
    assert "ask-only" not in caption and "runs with the ask tool" in caption
    example = ambiglib.load(ROOT / "data" / "example", quiet=True).filter(benchmark="ambig-ds")
    assert "the ask-only runs (Ambig-DS Table 13)" in tables.ask_calibration(example).attrs["caption"]


def test_a_one_suite_log_is_not_captioned_as_pooling_swe_and_sql(own):
    """tables.leaderboard's caption said "pooled over SWE and SQL and per domain" on any log."""
    assert "SWE" not in tables.leaderboard(own).attrs["caption"].split("(")[0]
    assert "pooled" not in tables.leaderboard(own).attrs["caption"]
    hil = ambiglib.load(ROOT / "data" / "example", quiet=True).filter(benchmark="hil-bench")
    assert "suites pooled and per suite" in tables.leaderboard(hil).attrs["caption"]


def test_plot_draws_each_quantity_with_its_interval(own):
    import matplotlib.pyplot as plt

    answer = own.asking()
    fig = answer.plot()
    assert not plt.fignum_exists(fig.number)  # closed in pyplot: Jupyter shows the returned figure, once
    panels = fig.axes
    assert [ax.get_title() for ax in panels] == ["asks on ambiguous tasks", "asks on fully specified tasks",
                                                  "CalibScore"]
    bars = [c for c in panels[0].containers]  # the error bars of the first panel: one interval per agent
    segments = bars[0].lines[2][0].get_segments()
    lows = sorted(round(min(s[:, 0]), 6) for s in segments)
    assert lows == sorted(round(v, 6) for v in answer["ask_on_ambiguous_ci_low"])


def _run_cells(cells: list[str], cwd: Path) -> list[list[dict]]:
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}).execute()
    return [cell.outputs for cell in nb.cells]


def _images(outputs: list[dict]) -> int:
    return sum("image/png" in (o.get("data") or {}) for o in outputs)


def test_in_a_notebook_each_figure_is_shown_exactly_once(tmp_path):
    """``plots.ask_calibration(t)`` returned a Figure that Jupyter showed twice (the returned value, and the inline
    backend's figure still open at the cell's end); ``rs.asking().plot()`` and the answer's card, as a user sees
    them in a notebook executed by nbclient."""
    outputs = _run_cells([
        "import ambiglib\nfrom ambiglib import plots, tables\n"
        f"rs = ambiglib.load({str(ROOT / 'data' / 'example')!r}, quiet=True)",
        "rs.asking().plot()",
        "plots.ask_calibration(tables.ask_calibration(rs))",
        "rs.asking()",
        "from ambiglib.report import show_figure\nshow_figure(plots.differences(rs.compare()), 'd', None)",
    ], tmp_path)
    assert [_images(o) for o in outputs[1:3]] == [1, 1]
    card = outputs[3][0]["data"]
    assert "text/html" in card and "Does each agent ask when it should?" in card["text/html"]
    assert _images(outputs[4]) == 1


def test_each_comparison_row_lists_its_own_tasks_and_its_page_opens_on_them(tmp_path):
    """The report's fourth card: every row of agent_comparison has its tasks (as many as the pairs it tested, and
    for the score their mean difference is the row's), and its evidence page lists them before the runs."""
    from ambiglib.evidence._rows import write_evidence_pages

    rs = ambiglib.load(ROOT / "data" / "example", quiet=True)
    table = headline.agent_comparison(rs)
    for i in range(len(table)):
        row = table.iloc[i]
        tasks = headline.comparison_tasks(rs, row)
        assert len(tasks) == row["n_pairs"], (i, row["metric"])
        assert set(tasks["model_a"]) == {row["model_a"]} and set(tasks["policy"]) == {row["policy"]}
        if row["metric"] == "mean_score":
            assert tasks["difference"].mean() == pytest.approx(row["difference"])
    pages = write_evidence_pages(table, "agent_comparison", tmp_path,
                                 tasks=lambda i: headline.comparison_tasks(rs, table.iloc[i]))
    page = pages[3].read_text()
    assert page.index("which tasks make the difference") < page.index("<h2>Questions") < page.index("<h2>Runs")
    first = headline.comparison_tasks(rs, table.iloc[3]).iloc[0]
    assert f"<td>{first['task_id']}</td>" in page
    # the row reads down the page, each empty value with its reason beside it
    assert "<th>column</th><th>value</th><th>why empty</th>" in page
    if pd.isna(table.iloc[3]["p_mc_se"]):
        assert table.attrs["empty"]["p_mc_se"].replace("'", "&#39;") in page  # a quote as markupsafe escapes it
