"""The report: papermill over every notebook, the files it writes, and the page in a real browser."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ambiglib.report import ReportError, render_table, run_report, save_table

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    index = run_report(None, out)
    return out, index, json.loads((out / "manifest.json").read_text())


def test_every_notebook_runs_and_writes_html_and_ipynb(report):
    out, index, manifest = report
    names = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert sorted(n["notebook"] for n in manifest["notebooks"]) == names
    # the example holds the three papers' benchmarks: every section runs, none is listed as not run
    assert manifest["not_run"] == [] and manifest["papers"] == ["ambig-ds", "hil-bench", "lhaw"]
    assert "Not run on this log" not in index.read_text()
    for name in names:
        assert (out / f"{name}.ipynb").is_file() and (out / f"{name}.html").stat().st_size > 10_000
        assert next(n for n in manifest["notebooks"] if n["notebook"] == name)["error"] is None
    assert (out / "summary.md").is_file() and (out / "rejected.csv").is_file()
    # every notebook got the example data as an absolute path: no notebook depends on the working folder
    assert manifest["runs"] == str(ROOT / "data" / "example")


def test_every_table_is_written_three_ways_and_every_figure_as_png(report):
    out, _, manifest = report
    tables = [t for n in manifest["notebooks"] for t in n["tables"]]
    figures = [f for n in manifest["notebooks"] for f in n["figures"]]
    # every show_table / show_figure call of every notebook is accounted for: written, or listed as empty with why
    for n in manifest["notebooks"]:
        source = "".join("".join(c["source"]) for c in json.loads((ROOT / "notebooks" / n["ipynb"]).read_text())["cells"]
                         if c["cell_type"] == "code")
        for kind, call in (("table", "show_table"), ("figure", "show_figure")):
            called = set(re.findall(call + r"\([^,]+, '([a-z0-9_]+)'", source))
            written = {t["name"] for t in n[kind + "s"]}
            empty = {e["name"] for e in n["notes"] if e["kind"] == kind}
            assert written | empty == called and not written & empty, (n["notebook"], kind, called, written, empty)
            assert all(e["note"] for e in n["notes"]), n["notebook"]
    assert tables and figures
    for t in tables:
        frame = pd.read_csv(out / t["csv"])
        assert len(frame) == t["rows"] > 0, t
        assert (out / t["md"]).read_text().startswith("|")
        tex = (out / t["tex"]).read_text()
        assert "\\toprule" in tex and "\\midrule" in tex and "\\bottomrule" in tex  # booktabs
    for f in figures:
        assert (out / f["png"]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_notebooks_start_longest_first_and_the_report_lists_them_in_order(tmp_path):
    """Notebooks start in the order given when no report was written to --out before; else by the seconds each took
    in that report (its manifest), longest first (with one worker, they finish in that order). The index and the
    manifest list them by part: the researcher's questions first, then each paper's tables, then the log."""
    import json

    names = ["1_does_it_ask_when_it_should", "ambigds_calibration", "quickstart"]
    finished = []
    run_report(None, tmp_path / "out", notebooks=names, jobs=1, progress=lambda done, total, r: finished.append(r.name))
    assert finished == names
    manifest_path = tmp_path / "out" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    assert [e["notebook"] for e in manifest["notebooks"]] == names
    for entry, seconds in zip(manifest["notebooks"], (1.5, 9.0, 4.0)):
        entry["seconds"] = seconds
    manifest_path.write_text(json.dumps(manifest))
    finished.clear()
    run_report(None, tmp_path / "out", notebooks=names, jobs=1, progress=lambda done, total, r: finished.append(r.name))
    assert finished == ["ambigds_calibration", "quickstart", "1_does_it_ask_when_it_should"]
    assert [e["notebook"] for e in json.loads(manifest_path.read_text())["notebooks"]] == names
    index = (tmp_path / "out" / "index.html").read_text()
    # the section list: questions, then Ambig-DS, then the log
    assert index.index("sections/1_does_it_ask_when_it_should.html") \
        < index.index("sections/ambigds_calibration.html") < index.index("sections/quickstart.html")


def test_the_report_regenerates_on_other_logs_with_a_params_file(tmp_path):
    params = tmp_path / "params.yaml"
    params.write_text("n_boot: 200\nnotebooks:\n  ambigds_performance:\n    seed: 7\n")
    runs = ROOT / "tests" / "fixtures" / "ambigds" / "bench_target"
    cwd = os.getcwd()
    run_report(runs, tmp_path / "out", params_file=params, notebooks=["quickstart", "ambigds_performance"])
    assert os.getcwd() == cwd
    import nbformat

    nb = nbformat.read(tmp_path / "out" / "ambigds_performance.ipynb", as_version=4)
    params_used = dict(nb.metadata["papermill"]["parameters"])
    # the report is built in a private folder beside --out and moved into place whole (issue 11); the notebook
    # ran with paths into it, and its page shows them as they are once the report is in place (issue 29): its
    # tables relative to the report, the snapshot it read (issue 14) gone, and the log itself as its runs
    assert params_used.pop("out_dir") == "tables/ambigds_performance"
    assert params_used.pop("snapshot") == ""
    assert params_used.pop("runs") == str(runs)
    assert params_used == {"n_boot": 200, "seed": 7}
    injected = next(c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", []))
    assert ".building-" not in injected.source and "out_dir = 'tables/ambigds_performance'" in injected.source
    assert not (tmp_path / "out" / "snapshot").exists()  # nothing of it outlives the report
    summary = pd.read_csv(tmp_path / "out" / "tables" / "quickstart" / "summary.csv")
    # 8 task folders, the build_failed and the --dry-run runlog entries (error runs)
    assert set(summary["benchmark"]) == {"ambig-ds"} and summary["n_runs"].sum() == 10


def test_the_report_on_the_paper_fixtures_writes_the_printed_numbers(tmp_path, monkeypatch):
    # `ambiglib report --runs data/paper --params data/paper.params.yaml` (docs/reproduction.md), from the
    # repository root: the tables it writes carry the papers' numbers
    monkeypatch.chdir(ROOT)
    run_report("data/paper", tmp_path, params_file="data/paper.params.yaml",
               notebooks=["lhaw_strategies_and_personas", "hilbench_judgment_gap", "ambigds_construction_audits"])
    selectors = pd.read_csv(tmp_path / "tables" / "ambigds_construction_audits" / "selector_accuracy.csv")
    # the selector audit, from the parameters file: Ambig-DS Table 7's accuracies (%) over the 51 target tasks
    assert dict(zip(selectors["selector"], (100 * selectors["accuracy"]).round(1))) == {
        "A_marginal_entropy": 58.8, "B_basic_cv_hgb": 49.0, "C_strong_cv_lgb": 51.0, "D_llm_schema": 62.7,
        "E_llm_noprompt": 54.9, "F_frontier_llm": 56.9}
    strategies = pd.read_csv(tmp_path / "tables" / "lhaw_strategies_and_personas" / "prompting_strategies.csv")
    react = strategies.set_index(["suite", "model", "ambiguity_class", "policy"]).loc[
        ("tac", "GPT-5.2", "outcome-critical", "react")]
    # LHAW Table 10, ReAct, outcome-critical: 5.3 (+12.2), Ckpt 53.1 (+7.4), 68% asking, 2.2 per asking trial
    assert (round(100 * react["pass_at_k"], 1), round(react["pass_gain_pp"], 1)) == (5.3, 12.2)
    assert (round(100 * react["mean_score"], 1), round(react["score_gain_pp"], 1)) == (53.1, 7.4)
    assert (round(react["trial_ask_pct"]), round(react["avg_per_traj"], 1)) == (68, 2.2)
    gap = pd.read_csv(tmp_path / "tables" / "hilbench_judgment_gap" / "judgment_gap.csv") \
        .set_index(["suite", "model"]).loc[("sql", "Claude Opus 4.6")]
    # HIL-Bench Table 1, Claude Opus 4.6 on SQL: Ask-F1 57.5%
    assert round(100 * gap["ask_f1"], 1) == 57.5


def test_a_failing_notebook_is_named_with_its_cell(tmp_path):
    import nbformat as nbf

    nb = nbf.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbf.v4.new_code_cell("out_dir = ''", metadata={"tags": ["parameters"]}),
                nbf.v4.new_code_cell("x = 1"), nbf.v4.new_code_cell("raise KeyError('no such column')")]
    (tmp_path / "nbs").mkdir()
    nbf.write(nb, tmp_path / "nbs" / "broken.ipynb")
    # cell 4 of the executed notebook: papermill adds a cell with the injected parameters
    with pytest.raises(ReportError, match=re.escape(
            f"{tmp_path / 'nbs' / 'broken.ipynb'} failed in cell 4 of {tmp_path / 'out' / 'broken.ipynb'} (execution"
            " count 4, `raise KeyError('no such column')`): KeyError: 'no such column'")):
        run_report(None, tmp_path / "out", notebooks_dir=tmp_path / "nbs")
    assert "FAILED" in (tmp_path / "out" / "index.html").read_text()


def test_save_table_and_render_table(tmp_path):
    frame = pd.DataFrame({"model": ["a_b", "c"], "share": [0.12345, float("nan")], "n": [3, 4]})
    written = save_table(frame, "t", tmp_path, caption="A & B")
    assert [p.name for p in written] == ["t.csv", "t.md", "t.tex"]
    assert "a\\_b" in (tmp_path / "t.tex").read_text() and "A \\& B" in (tmp_path / "t.tex").read_text()
    assert "0.123" in (tmp_path / "t.md").read_text() and "–" in (tmp_path / "t.md").read_text()
    assert save_table(frame, "t", "") == []
    assert render_table(frame).splitlines()[1].split() == ["a_b", "0.123", "3"]


def test_a_long_table_renders_its_first_rows_and_the_csv_keeps_all(tmp_path):
    """Past max_rows, the notebook's HTML, the .md and the .tex hold the first rows and say how many the
    CSV has; the CSV has every row. At or under max_rows nothing is cut or noted."""
    from ambiglib.report import show_table

    frame = pd.DataFrame({"task_id": [f"t_{i}" for i in range(25)], "score": np.arange(25) / 8})
    html_ = show_table(frame, "per_task", tmp_path, caption="Per task", max_rows=10).data
    assert pd.read_csv(tmp_path / "per_task.csv")["task_id"].tolist() == frame["task_id"].tolist()
    md, tex = (tmp_path / "per_task.md").read_text(), (tmp_path / "per_task.tex").read_text()
    note = "first 10 of 25 rows; every row is in per_task.csv"
    assert "t\\_9" in tex and "t\\_10" not in tex and "per\\_task.csv" in tex and "Per task" in tex
    assert "t_9" in md and "t_10" not in md and note in md
    assert "t_9" in html_ and "t_10" not in html_ and note in html_
    show_table(frame, "whole", tmp_path, max_rows=25)
    assert "t_24" in (tmp_path / "whole.md").read_text() and "rows; every row" not in (tmp_path / "whole.md").read_text()


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _dom(url: str, profile: Path) -> str:
    """The page at ``url`` as headless Chromium renders it (its DOM after scripts and images)."""
    return subprocess.run([_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=5000",
                           "--dump-dom", url], capture_output=True, text=True, timeout=120).stdout


@pytest.mark.skipif(_chromium() is None, reason="headless Chromium is not installed (Debian package 'chromium';"
                    " .ci/run installs it where apt-get can)")
def test_every_section_page_in_headless_chromium_shows_its_tables_and_figures(report, tmp_path):
    out, index, manifest = report
    dom = _dom(index.as_uri(), tmp_path / "profile")
    assert "<h1>ambiglib report</h1>" in dom
    for n in manifest["notebooks"]:
        if n["section"] is None:
            assert not (n["tables"] or n["figures"]), n["notebook"]
            continue
        assert f'href="{n["section"]}"' in dom, f"section {n['notebook']} not linked from the index"
        page = _dom((out / n["section"]).as_uri(), tmp_path / "profile")
        for t in n["tables"]:
            key = f"{n['notebook']}/{t['name']}"
            match = re.search(rf"<table [^>]*data-table=\"{re.escape(key)}\".*?</table>", page, re.S)
            assert match, f"table {key} missing from its section page"
            rows = match.group(0).count("<tr data-row=") if "class=\"compact\"" in match.group(0) \
                else match.group(0).count("<tr") - 1  # header
            assert rows == t["rows"], key
        for f in n["figures"]:
            key = f"{n['notebook']}/{f['name']}"
            img = re.search(rf"<img [^>]*data-figure=\"{re.escape(key)}\"[^>]*>", page)
            assert img and 'data-loaded="yes"' in img.group(0), f"figure {key} did not load in the browser"


@pytest.mark.skipif(_chromium() is None, reason="headless Chromium is not installed (Debian package 'chromium';"
                    " .ci/run installs it where apt-get can)")
def test_a_headline_row_links_to_the_questions_behind_it(report, tmp_path):
    """Issue 37 §4: from the opening's "are its questions good?" card, each agent links to a page listing the
    runs and questions behind its row; followed in the browser, the page holds that row's question texts (as
    ``table.evidence(row)`` gives them)."""
    import html as html_

    import ambiglib
    from ambiglib.answers import _headline as headline

    out, index, _ = report
    dom = _dom(index.as_uri(), tmp_path / "profile")
    card = re.search(r"<section class=\"card\" data-question=\"question_quality\".*?</section>", dom, re.S).group(0)
    links = re.findall(r'<a href="([^"]+)" data-evidence="(\d+)">([^<]+)</a>', card)
    assert len(links) >= 3
    rs = ambiglib.load(ROOT / "data" / "example")
    table = headline.question_quality(rs, n_boot=50)
    for href, row, agent in links:
        i = int(row)
        assert html_.unescape(agent) == table["agent"].iloc[i]
        page = _dom((out / href).as_uri(), tmp_path / "profile")
        ev = table.evidence(i)
        texts = set(ev.questions["text"].astype(str))
        assert texts, agent
        shown = {html_.unescape(t) for t in re.findall(r"<td class=\"text\">([^<]*)</td>", page)}
        assert texts <= shown, (agent, sorted(texts - shown)[:3])
        assert f"Runs ({len(ev.runs)})" in page and f"Questions ({len(ev.questions)})" in page
        # every run it lists opens its own page (issue 58), which leads back to the report
        written = (out / href).read_text(encoding="utf-8")
        run_links = set(re.findall(r"href='(\.\./runs/[0-9a-f]+\.html)'", written))
        assert len(run_links) == ev.runs["run_id"].nunique()
        for run_href in sorted(run_links)[:5]:
            run_page = ((out / href).parent / run_href).resolve()
            back = re.search(r"href='([^']+)'>← report", run_page.read_text(encoding="utf-8")).group(1)
            assert (run_page.parent / back).resolve() == index.resolve()


@pytest.mark.parametrize("yaml, message", [
    ("n_bot: 200\n", "unknown parameter 'n_bot': no notebook of the report has it; the parameters are ask_tools,"
                     " benchmarks, conventions, k, models, n_boot, runs, scorer, seed, selector_audit, suites"),
    ("notebooks:\n  hilbench_gap:\n    n_boot: 5\n", "no notebook named 'hilbench_gap'; the notebooks are"
                                                  " 1_does_it_ask_when_it_should, 2_are_its_questions_good"),
    ("notebooks:\n  quickstart:\n    selector_audit: x.csv\n", "notebooks: quickstart: unknown parameter"
                                                              " 'selector_audit'; quickstart has runs, benchmarks"),
    ("runs: /somewhere/else\n", "runs: '/somewhere/else' disagrees with --runs"),
    ("snapshot: /tmp/x\n", "unknown parameter 'snapshot': no notebook of the report has it"),
    ("notebooks:\n  quickstart:\n    snapshot: /tmp/x\n", "notebooks: quickstart: unknown parameter 'snapshot'"),
])
def test_bad_parameters_are_refused_before_anything_runs(tmp_path, yaml, message):
    params = tmp_path / "params.yaml"
    params.write_text(yaml)
    with pytest.raises(ReportError, match=re.escape(message)):
        run_report(ROOT / "data" / "example", tmp_path / "out", params_file=params)
    assert not (tmp_path / "out").exists()  # refused before a single notebook (or the summary) ran


def test_runs_from_the_params_file_and_from_the_command_line_agree(tmp_path):
    params = tmp_path / "params.yaml"
    params.write_text(f"runs: {ROOT / 'data' / 'example'}\nnotebooks:\n  ambigds_construction_audits:\n"
                      f"    selector_audit: {ROOT / 'data' / 'paper' / 'inferability_audit.csv'}\n")
    run_report(None, tmp_path / "out", params_file=params, notebooks=["ambigds_construction_audits"])
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["runs"] == str(ROOT / "data" / "example")
    # the selector audit comes from the parameter, and only then
    assert (tmp_path / "out" / "tables" / "ambigds_construction_audits" / "selector_accuracy.csv").is_file()
    # every table shown but Table 9's judge panel, which the example's Ambig-DS runs do not carry
    assert manifest["notebooks"][0]["notes"] == [
        {"name": "objective_judges", "caption": "Ambig-DS Table 9: the objective-suite judges",
         "note": "no judge labels of facet 'objective' in this log: add the judges' labels of facet 'objective' to"
                 " the runs (docs/runlog.md, labels)", "kind": "table"}]


def test_notes_for_what_a_notebook_did_not_show(report):
    out, index, manifest = report
    notes = {(n["notebook"], x["name"]): x["note"] for n in manifest["notebooks"] for x in n["notes"]}
    assert notes[("ambigds_construction_audits", "selector_accuracy")].startswith("no selector audit given")
    page = index.read_text()
    # the one list on the index, and the section's own page
    assert "What this log cannot answer, and what to add" in page and "<li>no selector audit given" in page
    section = (out / "sections" / "ambigds_construction_audits.html").read_text()
    assert "Not shown here" in section and "no selector audit given" in section
    # each table once in the notebook's HTML: the nbval text copy stays in the .ipynb only
    html = (out / "hilbench_questions.html").read_text()
    assert "render_table(questions_per_task)" not in html
    assert "render_table(questions_per_task)" in (out / "hilbench_questions.ipynb").read_text()
    assert html.count("<table") == 1  # the table, once
    import nbformat

    for name in ("hilbench_questions", "hilbench_judgment_gap", "lhaw_value_of_information"):
        nb = nbformat.read(out / f"{name}.ipynb", as_version=4)
        outputs = json.dumps([c.get("outputs", []) for c in nb.cells])
        assert str(out) not in outputs, name  # no output line points at the report's artefact folder
    assert "overflow-x:auto" in html  # a wide table scrolls


def test_installed_like_any_package_the_report_runs_from_another_folder(tmp_path):
    import sys

    target = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                           "--target", str(target), str(ROOT)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (target / "ambiglib" / "notebooks" / "hilbench_questions.ipynb").is_file()
    assert (target / "ambiglib" / "example" / "hil-bench.jsonl").is_file()
    assert (target / "ambiglib" / "py.typed").is_file()  # users' type checkers read the annotations (PEP 561)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(target)}
    where = subprocess.run([sys.executable, "-c", "import ambiglib; print(ambiglib.__file__)"], capture_output=True,
                           text=True, cwd=elsewhere, env=env)
    assert where.stdout.strip() == str(target / "ambiglib" / "__init__.py")
    # no --runs: the example data shipped inside the package
    done = subprocess.run([sys.executable, "-m", "ambiglib", "report", "--out", "rep", "--notebooks", "quickstart",
                           "hilbench_questions"], capture_output=True, text=True, cwd=elsewhere, env=env)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((elsewhere / "rep" / "manifest.json").read_text())
    assert manifest["runs"] == str(target / "ambiglib" / "example")
    assert manifest["notebooks_dir"] == str(target / "ambiglib" / "notebooks")
    assert all(n["error"] is None for n in manifest["notebooks"])
    # --notebooks-dir runs a user's own copies
    mine = elsewhere / "mine"
    mine.mkdir()
    shutil.copy(target / "ambiglib" / "notebooks" / "hilbench_questions.ipynb", mine / "my_questions.ipynb")
    done = subprocess.run([sys.executable, "-m", "ambiglib", "report", "--out", "rep2", "--notebooks-dir", "mine",
                           "-q"], capture_output=True, text=True, cwd=elsewhere, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"wrote {elsewhere / 'rep2' / 'index.html'}\n"
    assert (elsewhere / "rep2" / "tables" / "my_questions" / "questions_per_task.csv").is_file()


def test_a_notebook_run_alone_gives_the_tables_it_gives_in_the_report(report, tmp_path):
    """The report's notebooks read a snapshot; run alone with ``runs`` a notebook loads the log itself, and
    every table it writes is the same, byte for byte."""
    import papermill

    out, _, manifest = report
    name = "lhaw_dimensions"
    papermill.execute_notebook(str(ROOT / "notebooks" / f"{name}.ipynb"), str(tmp_path / f"{name}.ipynb"),
                               parameters={"runs": str(ROOT / "data" / "example"), "out_dir": str(tmp_path / "alone")},
                               cwd=str(tmp_path), kernel_name="python3", progress_bar=False)
    tables = next(n for n in manifest["notebooks"] if n["notebook"] == name)["tables"]
    assert len(tables) >= 3
    for t in tables:
        alone = tmp_path / "alone" / Path(t["csv"]).name
        assert alone.read_bytes() == (out / t["csv"]).read_bytes(), t["csv"]


def test_executed_notebooks_name_the_log_and_read_the_snapshot(report):
    """Each executed notebook's injected parameters name the user's log as ``runs``; the report's snapshot,
    which it read (test_the_snapshot_keeps_what_the_load_rejected) and which is gone afterwards, is shown empty,
    as a reader re-running the notebook would give it, and its tables' folder relative to the report."""
    import nbformat

    out, _, manifest = report
    for entry in manifest["notebooks"]:
        nb = nbformat.read(out / f"{entry['notebook']}.ipynb", as_version=4)
        injected = next(c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", []))
        values = {stmt.targets[0].id: ast.literal_eval(stmt.value) for stmt in ast.parse(injected.source).body}
        assert values["runs"] == str(ROOT / "data" / "example"), entry["notebook"]
        assert values["snapshot"] == "" and values["out_dir"] == f"tables/{entry['notebook']}"
        assert (out / values["out_dir"]).is_dir() or not entry.get("tables")


def test_the_snapshot_keeps_what_the_load_rejected(tmp_path):
    """A log with a bad record: the report loads it once, its notebooks see the same rejected record through
    the snapshot, and with keep_snapshot the snapshot stays and loads like the log."""
    import nbformat
    from conftest import run_record, task_record, write_jsonl

    import ambiglib

    log = write_jsonl(tmp_path / "log" / "runs.jsonl",
                      [task_record(), run_record(), run_record(trial=2, spec="amb"), run_record(trial=3)])
    run_report(log.parent, tmp_path / "out", notebooks=["quickstart"], keep_snapshot=True)
    nb = nbformat.read(tmp_path / "out" / "quickstart.ipynb", as_version=4)
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "2 runs, 1 task records; 1 records rejected" in text
    assert f"{log}:3: field 'spec' must be 'full' or 'ambiguous' (got 'amb')" in text
    direct, errors = ambiglib.load(log.parent, strict=False)
    kept, kept_errors = ambiglib.load(tmp_path / "out" / "snapshot", strict=False)
    assert kept_errors == errors and len(errors) == 1
    for name, frame in direct.frames().items():
        pd.testing.assert_frame_equal(frame, getattr(kept, name), check_exact=True)
    with pytest.raises(ambiglib.SchemaError, match="field 'spec' must be 'full' or 'ambiguous'"):
        ambiglib.load(tmp_path / "out" / "snapshot")  # strict, as the log itself


def test_no_page_of_the_report_names_its_work_folder(report):
    # the report is built in <out>.building-XXXX and renamed into place: a path into it is dead once it is done
    out, _, _ = report
    named = [p.relative_to(out) for p in out.rglob("*") if p.is_file() and p.suffix in (".html", ".ipynb", ".md", ".json")
             and ".building-" in p.read_text(encoding="utf-8", errors="replace")]
    assert named == []
    nb = json.loads((out / "quickstart.ipynb").read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if "injected-parameters" in c["metadata"].get("tags", []))
    assert "out_dir = 'tables/quickstart'\n" in "".join(cell["source"])
    assert "tables/quickstart" in (out / "quickstart.html").read_text(encoding="utf-8")


def test_the_report_leaves_nothing_in_the_temporary_folder(tmp_path):
    """The quickstart writes this log's trials as two Parquet logs to compare them (an A/A check): they are read
    whole, and their folder is gone when the report ends (at 1000x each report left ~225 MB behind)."""
    import sys

    temp = tmp_path / "temp"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp)}
    done = subprocess.run([sys.executable, "-m", "ambiglib", "report", "--out", str(tmp_path / "rep"), "--notebooks",
                           "quickstart", "-q"], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / "rep" / "manifest.json").read_text())
    assert [n["error"] for n in manifest["notebooks"]] == [None]
    cells = json.loads((tmp_path / "rep" / "quickstart.ipynb").read_text(encoding="utf-8"))["cells"]
    split = next(c for c in cells if c["cell_type"] == "code" and 'between="log"' in "".join(c["source"]))
    shown = "".join("".join(o["data"]["text/plain"]) for o in split["outputs"] if o["output_type"] == "execute_result")
    assert "paired by task" in shown and "again" in shown and "first" in shown  # the two logs were written and compared
    assert sorted(str(p.relative_to(temp)) for p in temp.rglob("*.parquet")) == []
