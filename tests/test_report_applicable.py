"""Which sections the report runs on a log: a paper's only where the log holds its benchmark or the data one of its
tables needs; the rest listed, not run, and never among what the log cannot answer.

The notebooks' declared needs (``metadata["ambiglib"]["needs"]``) are checked against what their tables do: every
table call of every paper notebook, run on logs whose benchmarks carry no paper's name, has rows only where the
notebook's needs say the section applies (so skipping a section never hides a table with rows).
"""

from __future__ import annotations

import ast
import json
import warnings
from pathlib import Path

import pandas as pd
import pytest
from conftest import write_jsonl
from test_own_benchmark import clarifybench

import ambiglib
from ambiglib import tables
from ambiglib.report._applicable import PAPERS, Applicability, applicability, need_of, papers_in
from ambiglib.report._run import notebook_info

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
PAPER_NOTEBOOKS = [p for p in NOTEBOOKS if notebook_info(p)["part"] in PAPERS]


def _renamed(folder: Path, keep: set[str] | None = None) -> Path:
    """data/example with every benchmark under a name no paper uses (only those in ``keep``, when given)."""
    lines = []
    for path in sorted((ROOT / "data" / "example").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if keep is not None and record["benchmark"] not in keep:
                continue
            record["benchmark"] = f"own-{record['benchmark']}"
            lines.append(record)
    return write_jsonl(folder / "runs.jsonl", lines)


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> dict[str, ambiglib.RunSet]:
    base = tmp_path_factory.mktemp("applicable")
    out = {"all three renamed": _renamed(base / "all")}
    for bench in ("ambig-ds", "hil-bench", "lhaw"):
        (base / bench).mkdir()
        out[f"{bench} alone, renamed"] = _renamed(base / bench, {bench})
    out["clarifybench"] = write_jsonl(base / "clarifybench.jsonl", clarifybench())
    out["inspect fixtures"] = ROOT / "tests" / "fixtures" / "inspect"
    return {name: ambiglib.load(path, quiet=True) for name, path in out.items()}


def _table_calls(path: Path) -> list[str]:
    """Every ``tables.<name>(...)`` call in a notebook's code, as source text."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    calls = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        for node in ast.walk(ast.parse("".join(cell["source"]))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "tables":
                calls.append(ast.unparse(node))
    return calls


def test_every_paper_notebook_declares_its_needs_in_the_shapes_vocabulary():
    assert len(PAPER_NOTEBOOKS) == 14
    for path in PAPER_NOTEBOOKS:
        needs = notebook_info(path).get("needs")
        assert needs, f"{path.name}: no needs in metadata['ambiglib'] (scripts/build_notebooks.py NEEDS)"
        for need in needs:
            if not need.startswith("parameter:"):
                need_of(need)  # raises on a name ambiglib.tables._shapes does not know
    with pytest.raises(ValueError, match="'framing' is not a shape"):
        need_of("tool_pairs+framing")


@pytest.mark.parametrize("path", PAPER_NOTEBOOKS, ids=lambda p: p.stem)
def test_a_skipped_section_hides_no_table_with_rows(path, logs):
    info = notebook_info(path)
    general = set(info.get("general") or [])
    calls = [c for c in _table_calls(path) if c.split("(")[0].split(".")[1] not in general]
    assert calls, path.name
    checked = 0
    for name, rs in logs.items():
        decided = applicability(info, rs, papers_in(rs), {})
        assert papers_in(rs) == set()  # no paper by name: the decision is the data's alone
        for call in calls:
            if "selector_audit" in call:  # a table from a parameter's file, not from the log
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                table = eval(call, {"tables": tables, "pd": pd},  # the bundled notebook's own call
                             {"rs": rs, "k": 3, "n_boot": 20, "seed": 0, "conventions": None, "summary": None})
            if len(table):
                assert decided.runs, f"{path.stem} skipped on {name}, but {call} has {len(table)} rows"
                checked += 1
    # some log gives each notebook's tables rows, and so runs it (the check above is not vacuous)
    assert checked or path.stem in ("ambigds_framing", "ambigds_recognition", "hilbench_failure_modes",
                                    "ambigds_construction_audits", "lhaw_ask_failures") or \
        pytest.fail(f"{path.stem}: no log gave any of its tables a row")


def test_which_sections_apply_to_each_log(logs):
    by_name = {p.stem: notebook_info(p) for p in NOTEBOOKS}

    def running(rs, papers=None, parameters=None) -> set[str]:
        papers = papers_in(rs) if papers is None else papers
        return {n for n, info in by_name.items() if applicability(info, rs, papers, parameters or {}).runs}

    # the Inspect fixtures: one benchmark, clear and ambiguous specs with and without an ask tool, blockers, and a
    # scorer's 'trace' labels (so the recognition audit applies), no framing, failure or LHAW labels, one policy
    inspect = running(logs["inspect fixtures"])
    assert {"1_does_it_ask_when_it_should", "quickstart", "conventions", "power_analysis", "ambigds_recognition",
            "hilbench_judgment_gap", "lhaw_value_of_information"} <= inspect
    assert not {"ambigds_framing", "hilbench_failure_modes", "lhaw_ask_failures", "lhaw_strategies_and_personas"} \
        & inspect
    # the example renamed: its data has every shape the papers' sections need but the selector audit's
    renamed = running(logs["all three renamed"])
    assert {p.stem for p in NOTEBOOKS} - renamed == set()
    # a paper's benchmark by name (or by the conventions it follows) gets all its paper's sections
    hil = logs["hil-bench alone, renamed"]
    assert "ambigds_framing" not in running(hil) and "ambigds_framing" in running(hil, {"ambig-ds"})
    assert papers_in(hil, {"own-hil-bench": "hil-bench"}) == {"hil-bench"}
    # a parameter that brings the data makes its section apply
    construction = by_name["ambigds_construction_audits"]
    assert not applicability(construction, hil, set(), {}).runs
    assert applicability(construction, hil, set(), {"selector_audit": "audit.csv"}) == \
        Applicability(True, "the parameter selector_audit is given")
    # a notebook of one's own, with no needs, always runs
    assert applicability({"part": "lhaw"}, hil, set(), {}).runs and applicability({}, hil, set(), {}).runs


def test_what_a_skipped_section_would_need_is_said(logs):
    info = notebook_info(ROOT / "notebooks" / "lhaw_ask_failures.ipynb")
    decided = applicability(info, logs["clarifybench"], set(), {})
    assert not decided.runs and decided.needs == "judge labels whose facet starts 'lhaw.'"
