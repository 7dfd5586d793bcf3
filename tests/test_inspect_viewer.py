"""From a run read from an Inspect AI log to the same sample in Inspect's own log viewer (``inspect view``), and the
refusal of two evals that collide on one run key when the ask tool is not named, as a few readable lines with the
fix the evidence points at first (issue 72). The logs are written offline by Inspect itself (mockllm), from
docs/examples/ask_or_guess.py with its ask tool named ``consult_pm``: a name that neither is an ask tool of the
mapping nor looks like asking."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason="the Inspect AI logs need inspect-ai (pip install 'ambiglib[inspect]')")

from conftest import run_record, task_record, write_jsonl

import ambiglib
from ambiglib import transcripts
from ambiglib._markup import Markup, render
from ambiglib.evidence import _dialogues as dialogues

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "ask_or_guess.py"


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("consult_pm")
    script = folder / "ask_or_guess.py"
    script.write_text(EXAMPLE.read_text().replace("ask_user", "consult_pm"))
    done = subprocess.run([sys.executable, str(script), str(folder / "logs")], capture_output=True, text=True,
                          timeout=300, cwd=folder)
    assert done.returncode == 0, done.stderr[-3000:]
    return folder / "logs"


@pytest.fixture(scope="module")
def named(logs):
    return ambiglib.load(logs, ask_tools=["consult_pm"])


# --- the refusal -------------------------------------------------------------------------------------------------


def test_the_refusal_is_a_few_lines_with_the_offered_tool_named_first(logs, named):
    with pytest.raises(ambiglib.FormatError) as refused:
        ambiglib.load(logs)
    message = str(refused.value)
    lines = message.splitlines()
    # what: the runs of the evals offering the tool, each with a twin of the same key among the evals without it
    # (the named load tells them apart by ask_tool)
    n_tool = int(named.runs["ask_tool"].sum())
    assert n_tool == len(named.runs) // 2 == 64
    assert lines[0] == f"{logs}: {n_tool} run(s) were given by two evals whose conditions differ;"
    assert "none of these logs is loaded" in lines[1]
    assert lines[2] == ("  They differ in: task argument ask (False vs True); the tools their plans offer"
                        " (consult_pm vs none).")
    # where: the two logs and one sample, each a log of the folder holding that sample
    places = [re.fullmatch(r"    (\S+) sample '(\w+)' epoch (\d+)(?:, then by|\.)", line) for line in lines[4:6]]
    assert all(places), lines[4:6]
    files = {Path(p.group(1)) for p in places}
    assert len(files) == 2 and all(f.parent == logs and f.suffix == ".eval" for f in files)
    assert places[0].group(2) == places[1].group(2) in set(named.runs["task_id"])
    # the fix the evidence points at first, then the others
    fix = lines.index("Fix: 'consult_pm' is offered by only one of the two evals' plans and is not an ask tool of"
                      " the mapping")
    assert "--ask-tool consult_pm / ambiglib.load(..., ask_tools=['consult_pm'])" in lines[fix + 2]
    assert lines[fix + 4].startswith("Otherwise: pass ask_tool as a task argument or sample metadata")
    assert "spec, ask_tool and policy" in lines[-1]
    assert len(lines) <= 14 and all(len(line) <= 120 for line in lines if str(logs) not in line)


@pytest.mark.parametrize("command", ["summary", "validate"])
def test_the_command_line_prints_the_refusal_as_its_lines(logs, command):
    with pytest.raises(ambiglib.FormatError) as refused:
        ambiglib.load(logs)
    done = subprocess.run([sys.executable, "-m", "ambiglib", command, "--runs", str(logs)], capture_output=True,
                          text=True)
    assert done.returncode != 0
    assert done.stderr.splitlines() == ("ambiglib: " + str(refused.value)).splitlines()


# --- the way to Inspect's viewer ---------------------------------------------------------------------------------


def _viewer_route_js() -> str:
    """The installed viewer's own code that builds a sample's route and parses it back (its ``logSamplesUrl`` and
    ``parseLogRouteParams``, with the helpers they call), cut from its bundle."""
    import inspect_ai

    bundle = (Path(inspect_ai.__file__).parent / "_view" / "dist" / "assets" / "index.js").read_text()
    parts = []
    for name in ("tryDecodeURIComponent", "encodePathSegmentsIdempotent", "encodePathParts", "decodeUrlParam",
                 "logSamplesUrl", "parseLogRouteParams"):
        one = re.search(rf"^(?:\*/ )?(var {name} = [^\n]*?;|var {name} = .*?^\}};|function {name}\(.*?^\}})$",
                        bundle, re.M | re.S)
        assert one, f"the installed viewer has no {name}: its routes changed; check transcripts.viewer against it"
        parts.append(one.group(1))
    return "\n".join(parts)


def test_the_viewer_address_is_the_one_the_installed_viewer_builds_and_reads(tmp_path):
    node = shutil.which("node")
    if node is None:
        pytest.skip("node runs the viewer's own route code")
    cases = [("2026-11-29T11-28-08-00-00_etl-clarify_3PzfHPZC.eval", "t00", 1),
             ("a log+with:odd chars ä.json", "q/1 ä+%", 3), ("x.eval", 42, 2)]
    want = []
    for name, sample, epoch in cases:
        run = {"transcript_at": json.dumps({"reader": "inspect", "file": f"/some dir/{name}", "sample": sample,
                                            "epoch": epoch})}
        way = transcripts.viewer(run)
        assert way is not None and way.command == "inspect view --log-dir '/some dir'"
        assert way.url.startswith("http://127.0.0.1:7575/#/logs/")
        want.append({"route": way.url.split("#", 1)[1], "name": name, "sample": sample, "epoch": epoch})
    script = tmp_path / "route.js"
    script.write_text(_viewer_route_js() + "\nconst cases = " + json.dumps(want) + ";\n"
                      "console.log(JSON.stringify(cases.map(c => ({built: logSamplesUrl(c.name, c.sample, c.epoch),"
                      " parsed: parseLogRouteParams(c.route.slice('/logs/'.length))}))));\n")
    done = subprocess.run([node, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for case, got in zip(want, json.loads(done.stdout)):
        assert case["route"] == got["built"]  # the address the viewer itself gives this sample
        parsed = got["parsed"]  # and the viewer, reading it, opens this log, sample and epoch
        assert (parsed["logPath"], parsed["sampleId"], parsed["epoch"]) == (case["name"], str(case["sample"]),
                                                                             str(case["epoch"]))


def _inspect_sample(file: Path, sample, epoch: int):
    """The sample × epoch of an Inspect log, read by Inspect itself, and the log's model."""
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(file))
    return log.eval.model, next(s for s in log.samples or [] if s.id == sample and s.epoch == epoch)


def test_a_transcript_names_its_sample_in_the_viewer(named, logs):
    asked = named.runs[named.runs["n_questions"] > 0].iloc[0]
    shown = named.transcript(asked["run_id"])
    way = shown.attrs["viewer"]
    # the place is that of the run: Inspect reads, at that log's sample and epoch, the run's model and question
    model, sample = _inspect_sample(Path(way.file), way.sample, way.epoch)
    assert model == asked["model"] and way.sample == asked["task_id"] and way.epoch == asked["trial"]
    first = named.questions[named.questions["run_id"] == asked["run_id"]].iloc[0]["text"]
    assert any(first in json.dumps(c.arguments) for m in sample.messages for c in (getattr(m, "tool_calls", None)
                                                                                  or []))
    assert Path(way.file).parent == logs
    command = f"inspect view --log-dir {logs}"
    text = repr(shown)
    assert f"In Inspect's log viewer: {command}" in text and way.url in text
    assert f"(log {Path(way.file).name}, sample {way.sample!r}, epoch {way.epoch})" in text
    html = shown._repr_html_()
    assert f"<code>{command}</code>" in html and f'<a href="{way.url}"' in html
    assert f"sample <code>&#39;{way.sample}&#39;</code>, epoch {way.epoch}" in html  # (markupsafe's escape of ')


def _run_page(run: dict, record) -> str:
    """The run's page as :func:`ambiglib.evidence._dialogues.run_page` renders it, with the run's viewer among its values
    (those run_page passes, the viewer added where it does not pass it itself)."""
    seen: dict = {}
    real = dialogues.render

    def capture(template, **values):
        seen.update(values)
        return real(template, **values)

    dialogues.render = capture
    try:
        dialogues.run_page(run, [], [], record, style=Markup(""), back="index.html")
    finally:
        dialogues.render = real
    return str(render("run_page.html", **{**seen, "viewer": transcripts.viewer(run)}))


def test_a_run_page_of_an_inspect_run_names_its_sample_and_the_command(named, logs):
    row = named.runs.iloc[3]
    run = transcripts._row(row)
    way = transcripts.viewer(run)
    page = _run_page(run, transcripts.read_turns(run))
    assert "<h2>In Inspect's log viewer</h2>" in page
    assert f"<code>inspect view --log-dir {logs}</code>" in page
    assert f"sample <code>{way.sample}</code>, epoch {way.epoch} of the log <code>{way.file}</code>" in page
    assert f"<a href='{way.url}'>{way.url}</a>" in page
    assert way.sample == row["task_id"] and way.epoch == row["trial"]


def test_the_viewer_text_is_escaped(tmp_path):
    run = {"transcript_at": json.dumps({"reader": "inspect", "file": str(tmp_path / "<b>x</b>'.eval"),
                                        "sample": "<i>s</i>", "epoch": 1})}
    page = _run_page({"run_id": "r", "model": "<b>m</b>", **run}, None)
    assert "<b>" not in page and "<i>" not in page and "&lt;i&gt;s&lt;/i&gt;" in page
    assert "href='http://127.0.0.1:7575/#/logs/%3Cb%3Ex%3C%2Fb%3E'.eval" not in page  # the quote is escaped too


def test_a_run_of_another_harness_shows_no_viewer(tmp_path):
    write_jsonl(tmp_path / "runs.jsonl", [task_record(), run_record()])
    rs = ambiglib.load(tmp_path / "runs.jsonl")
    run = transcripts._row(rs.runs.iloc[0])
    assert transcripts.viewer(run) is None
    shown = rs.transcript(run["run_id"])
    assert shown.attrs["viewer"] is None
    assert "inspect view" not in repr(shown) and "inspect view" not in shown._repr_html_()
    page = _run_page(run, transcripts.read_turns(run))
    assert "inspect view" not in page and "Inspect's log viewer" not in page
