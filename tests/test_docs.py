"""The worked examples in docs/runlog.md are valid run-log records."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pytest

import ambiglib

DOC = Path(__file__).resolve().parents[1] / "docs" / "runlog.md"


def _records(text: str) -> list[dict]:
    records = []
    decoder = json.JSONDecoder()
    for block in re.findall(r"```json\n(.*?)```", text, re.S):
        block, i = block.strip(), 0
        while i < len(block):
            obj, i = decoder.raw_decode(block, i)
            records.append(obj)
            while i < len(block) and block[i].isspace():
                i += 1
    return records


def test_worked_examples_load_one_per_benchmark(tmp_path):
    records = _records(DOC.read_text())
    path = tmp_path / "examples.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    runset = ambiglib.load(path)
    assert sorted(runset.runs["benchmark"]) == ["ambig-ds", "hil-bench", "lhaw"]
    assert len(runset.tasks) == 2 and len(runset.blockers) == 4
    # the HIL-Bench example's stated precision (1/2) and recall (1/3)
    hil = runset.runs.loc[runset.runs["benchmark"] == "hil-bench", "run_id"].item()
    q = runset.questions[runset.questions["run_id"] == hil]
    assert q["relevant"].mean() == 0.5
    # its transcript: the turn that asks each question holds the question's text, the next one its answer
    t = runset.transcript(hil)
    for one in q.itertuples():
        asked = t.loc[t["q_index"] == one.q_index].iloc[0]
        assert json.loads(asked["tool_args"])["question"] == one.text
        assert t.loc[t["answers"] == one.q_index, "content"].item() == one.response
    assert q.loc[q["relevant"], "blocker_id"].nunique() / 3 == 1 / 3
    # the LHAW example's score is its checkpoint progress, 4 of 5 points
    lhaw = runset.runs[runset.runs["benchmark"] == "lhaw"].iloc[0]
    cps = lhaw["checkpoints"]
    assert sum(c["result"] for c in cps) / sum(c["total"] for c in cps) == lhaw["score"] == 0.8


def test_every_table_is_documented_and_shown_by_a_notebook():
    from ambiglib import tables

    doc = (DOC.parent / "tables.md").read_text()
    notebooks = [p.read_text() for p in (DOC.parent.parent / "notebooks").glob("*.ipynb")]
    for name in tables.__all__:
        assert f"`tables.{name}`" in doc, f"docs/tables.md does not list tables.{name}"
        assert any(f"tables.{name}(" in text for text in notebooks), f"no notebook shows tables.{name}"


def test_the_worked_conversion_of_a_custom_harness_log_runs(tmp_path, monkeypatch, capsys):
    import re

    doc = (DOC.parent / "own-benchmark.md").read_text()
    text = re.search(r"```text\ntrials.csv\n(.*?)tasks.json\n(.*?)```", doc, re.S)
    code = re.search(r"```python\n(.*?)```", doc, re.S).group(1)
    (tmp_path / "my_harness_output").mkdir()
    (tmp_path / "my_harness_output" / "trials.csv").write_text(text.group(1))
    (tmp_path / "my_harness_output" / "tasks.json").write_text(text.group(2))
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/own-benchmark.md", "exec"), {})
    rs = ambiglib.load(tmp_path / "clarifybench.jsonl")
    assert len(rs.runs) == 3 and len(rs.blockers) == 2
    from ambiglib import tables

    gap = tables.judgment_gap(rs, k=1).iloc[0]
    # one with-tool trial asked about both registered blockers: precision 1, recall 1
    assert (gap["benchmark"], gap["precision"], gap["recall"], gap["ask_f1"]) == ("clarifybench", 1.0, 1.0, 1.0)
    assert (gap["pass_at_k_full_info"], gap["pass_at_k_with_tool"]) == (1.0, 1.0)
    assert "clarifybench" in capsys.readouterr().out


def test_the_scaling_doc_runs_its_store_through_duckdb(tmp_path, monkeypatch):
    """docs/scaling.md's Python blocks, run in order as a user would paste them: a partitioned store of the
    example data, a filtered load equal to load-then-filter, the metrics computed by DuckDB equal to ambiglib's on
    the loaded store, the first answer and a ranking over the store equal to the loaded log's, and the SQL as text run by plain DuckDB and pooled to the same table (the Spark block, which
    needs a session, is marked as not run; tests/test_engines.py runs Spark)."""
    import pytest

    pytest.importorskip("duckdb", reason="DuckDB is a test dependency (pip install -e '.[test]')")
    root = Path(__file__).resolve().parents[1]
    blocks = [code for file, code, why_not in _blocks("python", marked=True)
              if file == "docs/scaling.md" and why_not is None]
    assert len(blocks) == 4 and "on_store" in blocks[1] and "asking" in blocks[2] and "sums_sql" in blocks[3]
    (tmp_path / "data").symlink_to(root / "data", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "docs/scaling.md", "exec"), namespace)
    assert (tmp_path / "store" / "runs" / "benchmark=lhaw").is_dir()
    assert len(namespace["calibration"]) == len(namespace["table"]) > 0
    assert len(namespace["answer"]) == 9 and len(namespace["paid"]) == 7 and len(namespace["ranked"]) == 9
    assert len(namespace["over_asking"]) > 0


def _blocks(lang: str, *, marked: bool = False) -> list[tuple[str, str]] | list[tuple[str, str, str | None]]:
    """Every fenced ``lang`` block of README.md and docs/*.md: (file, code), or with ``marked``
    (file, code, why it is not run) where a ``<!-- docs-test: not run: why -->`` line precedes it."""
    root = Path(__file__).resolve().parents[1]
    out = []
    for path in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(rf"(?:<!-- docs-test: not run: (.*?) -->\n)?```{lang}\n(.*?)```", text, re.S):
            file = str(path.relative_to(root))
            out.append((file, m.group(2), m.group(1)) if marked else (file, m.group(2)))
    return out


#: Blocks a test of their own runs with the files they need: docs/own-benchmark.md's harness output,
#: docs/scaling.md's DuckDB.
RUN_ELSEWHERE = {"docs/own-benchmark.md": "test_the_worked_conversion_of_a_custom_harness_log_runs",
                 "docs/scaling.md": "test_the_scaling_doc_runs_its_store_through_duckdb"}


def test_every_python_block_in_the_docs_runs_or_says_why_not(tmp_path, monkeypatch, capsys):
    """Each python block of README.md and docs/*.md runs, in order in one namespace per file, in a temporary
    folder holding the example data and a `my_logs/` and `logs/` with one rejected record each (issue 30
    §4); a block not meant to run says why, and a file whose blocks need more has a test of its own."""
    from conftest import run_record, task_record, write_jsonl

    root = Path(__file__).resolve().parents[1]
    (tmp_path / "data").symlink_to(root / "data", target_is_directory=True)
    for folder in ("my_logs", "logs"):
        write_jsonl(tmp_path / folder / "runs.jsonl", [task_record(), run_record(), run_record(trial=2, spec="amb")])
    monkeypatch.chdir(tmp_path)
    warnings.simplefilter("error")  # a block that filters its data away (a name reused for another log) fails
    namespaces: dict[str, dict] = {}
    ran = 0
    for file, code, why_not in _blocks("python", marked=True):
        if why_not is not None:
            assert len(why_not) > 10, f"{file}: say why a block is not run"
            continue
        if file in RUN_ELSEWHERE:
            assert RUN_ELSEWHERE[file] in globals(), f"{file}: its test {RUN_ELSEWHERE[file]} is gone"
            continue
        exec(compile(code, file, "exec"), namespaces.setdefault(file, {}))
        ran += 1
    assert ran >= 2
    # what README.md's comment says the loop prints
    assert "my_logs/runs.jsonl:3: field 'spec' must be 'full' or 'ambiguous' (got 'amb')" in capsys.readouterr().out
    cached = ambiglib.load("cache/", quiet=True).runs
    assert cached.drop(columns="source").equals(ambiglib.load("data/example", quiet=True).runs.drop(columns="source"))
    assert {p.name for p in (tmp_path / "store" / "runs").glob("benchmark=*")} == {
        "benchmark=ambig-ds", "benchmark=hil-bench", "benchmark=lhaw"}
    assert len(ambiglib.load("export.jsonl.gz", quiet=True).runs) == len(namespaces["docs/runlog.md"]["rs"].runs)


def test_every_command_line_in_the_docs_parses_with_todays_cli():
    """`ambiglib validate PATH` and `ambiglib convert PATH OUT` stayed in docs/runlog.md after the CLI took --runs and
    --out (issue 30): every `ambiglib` line of every sh block now goes through the CLI's own parser, and every
    `make` target named is one the Makefile has."""
    import shlex

    from ambiglib.cli import _parser

    root = Path(__file__).resolve().parents[1]
    targets = set(re.findall(r"^([a-z][a-z-]*):", (root / "Makefile").read_text(), re.M))
    seen = 0
    for file, code in _blocks("sh"):
        for line in code.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if not words:
                continue
            if words[0].endswith("ambiglib"):
                try:
                    _parser(False).parse_args(words[1:])
                except SystemExit:
                    raise AssertionError(f"{file}: `{line.strip()}` does not parse with today's CLI") from None
                seen += 1
            elif words[0] == "make":
                assert set(words[1:]) <= targets, f"{file}: `{line.strip()}` names no target of the Makefile"
    assert seen >= 4


def test_every_python_block_in_the_docs_compiles_and_names_what_exists():
    """`ambiglib.read_mcp_atlas` was documented but not there (issue 30): every python block compiles, and every
    `ambiglib.<name>`, `tables.<name>`, `metrics.<name>`, `plots.<name>` and `comparisons.<name>` it uses exists."""
    import importlib

    import ambiglib

    for file, code in _blocks("python"):
        compile(code, file, "exec")
        for module, name in re.findall(r"(?<![\w/.])(ambiglib|tables|metrics|plots|comparisons)\.([A-Za-z_]\w*)",
                                       code):
            owner = ambiglib if module == "ambiglib" else importlib.import_module(f"ambiglib.{module}")
            assert hasattr(owner, name), f"{file}: {module}.{name} does not exist"


def test_the_four_questions_in_a_notebook_run_as_documented(tmp_path, monkeypatch, capsys):
    """docs/own-benchmark.md's notebook section (issue 57): its block runs on the example data, and what it prints is
    the engine's numbers, formatted with their intervals."""
    import re

    import numpy as np

    root = Path(__file__).resolve().parents[1]
    doc = (DOC.parent / "own-benchmark.md").read_text()
    section = doc.split("## In a notebook: the four questions", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert blocks
    (tmp_path / "data").symlink_to(root / "data", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    space: dict = {}
    for code in blocks:
        exec(compile(code, "docs/own-benchmark.md", "exec"), space)
    printed = capsys.readouterr().out
    first = space["asking"].frame.iloc[0]
    assert f"{100 * first['ask_on_ambiguous']:.0f}% ({100 * first['ask_on_ambiguous_ci_low']:.0f}–" in printed
    assert "\\toprule" in space["tex"] and "\\label{tab:payoff}" in space["tex"]
    tasks, pair = space["tasks"], space["pair"]
    assert len(tasks) == int(pair["n_pairs"].sum())
    for (suite, part) in tasks.groupby("suite"):
        np.testing.assert_allclose(part["difference"].mean(), pair.set_index("suite").loc[suite, "difference"])
    assert len(space["runs"]) > 0 and set(space["runs"]["model"]) <= {"claude-opus-4.6", "gpt-5.4"}
    # two logs: each comparison row's tasks, and its difference their mean (the score is a mean of per-task values)
    change, moved = space["change"], space["moved"]
    assert set(change["log_a"]) == {"again"} and set(change["log_b"]) == {"first"}
    keys = ["benchmark", "suite", "model", "policy"]
    means = moved.groupby(keys)["difference"].mean()
    for row in change.itertuples(index=False):
        assert means.loc[tuple(getattr(row, k) for k in keys)] == pytest.approx(row.difference)
    assert "[first]" in printed  # each log's agents answered apart
    assert set(space["both"].asking()["log"]) == {"first", "again"}
