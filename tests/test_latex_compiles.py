"""Every answer's ``to_latex()`` and the report's saved ``.tex`` tables compile with plain pdflatex (issue 72): a
minimal document with booktabs alone, ``-halt-on-error``. Two of the four answers and a before/after comparison
stopped it: the minus sign U+2212 in a heading, and a note opening "[2]" after a ``\\\\`` line break, which TeX
reads as ``\\\\[2]`` ("Illegal unit of measure"). Skipped where pdflatex is not installed."""

from __future__ import annotations

import shutil
import subprocess

import pandas as pd
import pytest
from conftest import run_record, task_record, write_jsonl
from test_own_benchmark import clarifybench

import ambiglib
from ambiglib.answers._cards import _TEX_CHARS, _TEX_KNOWN
from ambiglib.report._rendering import save_table
from ambiglib.runset import RunSet

pytestmark = pytest.mark.skipif(shutil.which("pdflatex") is None,
                                reason="pdflatex is not installed (texlive-latex-base): nothing to compile with")

DOCUMENT = "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n%s\n\\end{document}\n"


def _compiles(tex: str, folder, name: str) -> None:
    """``tex`` in a minimal document compiles with pdflatex, stopping at the first error; the error is shown."""
    (folder / f"{name}.tex").write_text(DOCUMENT % tex, encoding="utf-8")
    done = subprocess.run(["pdflatex", "-halt-on-error", "-interaction=nonstopmode", f"{name}.tex"], cwd=folder,
                          capture_output=True, text=True, timeout=120)
    errors = [line for line in done.stdout.splitlines() if line.startswith("!")]
    assert done.returncode == 0 and (folder / f"{name}.pdf").exists(), (name, errors, tex[:3000])
    log = (folder / f"{name}.log").read_text(encoding="utf-8", errors="replace")
    assert "Missing character" not in log, name  # a character the font lacks is dropped silently


def _own() -> RunSet:
    """clarifybench with model names TeX reads as markup or has no glyph for: an accent, another script, & and _."""
    records = clarifybench(n_tasks=12)
    names = {"agent-x": "x_1 & 50%", "agent-y": "modèle-ü", "agent-z": "模型"}
    for r in records:
        if r.get("model") in names:
            r["model"] = names[r["model"]]
    return RunSet.from_records(records)


def _before_after(tmp_path):
    folders = []
    for label, shift in (("old", 0.0), ("new", 0.2)):
        records = [task_record(task_id=f"t{i}") for i in range(8)]
        records += [run_record(task_id=f"t{i}", trial=t, score=min(1.0, 0.1 * i + shift * (i % 3 > 0)),
                               questions=None, labels=None) for i in range(8) for t in (1, 2)]
        folders.append(write_jsonl(tmp_path / label / "runs.jsonl", records).parent)
    return ambiglib.load({"before": folders[0], "after": folders[1]})


def test_each_answers_to_latex_compiles_with_plain_pdflatex(tmp_path):
    rs = _own()
    both = _before_after(tmp_path)
    answers = {"asking": rs.asking(), "question_quality": rs.question_quality(), "payoff": rs.payoff(),
               "compare": rs.compare("x_1 & 50%", "modèle-ü"), "every_pair": rs.compare(),
               "before_after": both.compare("before", "after", between="log"), "rank": rs.rank()}
    for name, answer in answers.items():
        tex = answer.to_latex()
        # what stopped pdflatex is gone: the minus sign, and a note opening "[" right after a line break
        assert "−" not in tex and "\\\\ [" not in tex and "\\\\[" not in tex, name
        _compiles(tex, tmp_path, name)
    # the cases the issue named are exercised: a "–" numbered to its reason, a signed difference, the sides' names
    assert "[1]" in answers["question_quality"].to_latex()
    assert "after $-$ before" in answers["before_after"].to_latex()
    assert "x\\_1 \\& 50\\%" in answers["compare"].to_latex()


def test_the_reports_saved_tex_tables_compile_with_plain_pdflatex(tmp_path):
    rs = _own()
    comparison = rs.compare().frame
    # every character beyond ASCII tex_safe lets through or rewrites, in a cell: each must compile and print
    every = "".join(sorted(_TEX_KNOWN)) + " " + "".join(_TEX_CHARS)
    odd = pd.DataFrame({"a − b": [-0.25, 0.5], "gain ÷ questions": [1.0, None], "agent": [every, "模型 ÐÞðþ"]})
    odd.attrs = {"note": "[2] a note that opens with a bracket", "empty": {"gain ÷ questions": "[1] no question"}}
    for name, table in (("comparison", comparison), ("odd", odd), ("asking", rs.asking().frame)):
        save_table(table, name, tmp_path / "tables", caption="a − b, ≥ 0")
        tex = (tmp_path / "tables" / f"{name}.tex").read_text(encoding="utf-8")
        assert "−" not in tex and "\\\\ [" not in tex, name
        _compiles(tex, tmp_path / "tables", name)
