"""Names and text read back as the log holds them (issue 38 §5): a model named ``NA`` or ``None`` stays that name
in the report; control and bidi characters in a name are shown, never obeyed, on a terminal, in a page and in
Markdown; a duplicate run in a Parquet copy is named by the copy's file and row; ``passed`` and ``score`` that
no benchmark's rule could make agree are said."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import ambiglib
from ambiglib._text import visible
from ambiglib.report import run_report, write_summary
from ambiglib.tables._shapes import outcome_warnings

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example"
LHAW = EXAMPLE / "lhaw.jsonl"


def _renamed(tmp_path: Path, names: dict[str, str]) -> Path:
    """The example's LHAW log with its models renamed (JSON-encoded, so any character goes)."""
    text = LHAW.read_text(encoding="utf-8")
    for old, new in names.items():
        text = text.replace(f'"model":"{old}"', f'"model":{json.dumps(new)}')
    out = tmp_path / "log.jsonl"
    out.write_text(text, encoding="utf-8")
    return out


def test_models_named_na_and_none_keep_their_names_in_the_report(tmp_path):
    log = _renamed(tmp_path, {"opus-4.5": "NA", "gpt-5.2": "None"})
    assert set(ambiglib.load(log).runs["model"]) == {"NA", "None"}
    index = run_report(log, tmp_path / "r", notebooks=["1_does_it_ask_when_it_should"])
    page = index.read_text(encoding="utf-8")
    card = page[page.index("data-question='asking'"):]
    card = card[:card.index("</section>")]
    assert ">NA<" in card and ">None<" in card  # two agents, each by its name, not "–" twice
    section = (index.parent / "1_does_it_ask_when_it_should.html").read_text(encoding="utf-8")
    assert ">NA<" in section and ">None<" in section


ESCAPE = "evil\x1b]0;pwned\x07\x1b[2J"
REVERSED = "\u202egpt-5"


def test_control_characters_in_a_name_are_shown_not_obeyed_on_the_terminal(tmp_path):
    log = _renamed(tmp_path, {"opus-4.5": ESCAPE, "gpt-5.2": REVERSED})
    for command in (["validate", "--runs", str(log)], ["summary", "-q", "--runs", str(log), "--out",
                                                        str(tmp_path / "s")],
                    ["compare", "--runs", str(log), "--metric", "mean_score"]):
        proc = subprocess.run([sys.executable, "-m", "ambiglib", *command], capture_output=True, text=True, timeout=300)
        shown = proc.stdout + proc.stderr
        assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown, command
        if command[0] != "validate":
            assert "evil\\x1b]0;pwned\\x07\\x1b[2J" in shown and "\\u202egpt-5" in shown, (command, shown[-2000:])


def test_a_bidi_override_in_a_name_is_shown_in_pages_and_markdown(tmp_path):
    log = _renamed(tmp_path, {"gpt-5.2": REVERSED})
    out = tmp_path / "s"
    write_summary(log, out)
    for name in ("summary.md", "summary.html"):
        text = (out / name).read_text(encoding="utf-8")
        assert "\u202e" not in text and "\\u202egpt-5" in text, name
    index = run_report(log, tmp_path / "r", notebooks=["1_does_it_ask_when_it_should"])
    for page in [index, *index.parent.glob("*.html"), *index.parent.glob("evidence/**/*.html"),
                 *index.parent.glob("tables/**/*.md"), *index.parent.glob("tables/**/*.tex")]:
        text = page.read_text(encoding="utf-8")
        assert "\u202e" not in text, page
    assert "\\u202egpt-5" in index.read_text(encoding="utf-8")


def test_visible_shows_each_hidden_character_and_keeps_the_rest():
    assert visible("a\tb\nc") == "a\tb\nc"
    assert visible("x\x00\x1b\x7f\x85\u200b\u2066\ufeffé中") == "x\\x00\\x1b\\x7f\\x85\\u200b\\u2066\\ufeffé中"


def test_a_duplicate_run_in_a_parquet_copy_is_named_by_its_own_file_and_row(tmp_path):
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "lhaw.jsonl").write_bytes(LHAW.read_bytes())
    ambiglib.load(LHAW).to_parquet(folder / "pq")
    rs, errors = ambiglib.load(folder, strict=False)
    assert len(rs.runs) == len(ambiglib.load(LHAW).runs)
    first = errors[0]
    assert first.file == str(folder / "pq" / "runs.parquet") and first.line == 1
    assert first.message.startswith(f"{folder / 'pq' / 'runs.parquet'} row 1 (written from {LHAW}:")
    assert f"first seen at {folder / 'lhaw.jsonl'}:" in first.message


def test_passed_and_score_that_no_threshold_reconciles_are_said(tmp_path):
    assert outcome_warnings(ambiglib.load(EXAMPLE)) == []  # the example's runs agree
    records = [json.loads(line) for line in LHAW.read_text().splitlines()]
    runs = [r for r in records if r.get("record", "run") == "run" and r.get("score") is not None
            and r.get("passed") is not None and r["suite"] == "tac"]
    win = next(r for r in runs if r["passed"])
    lose = next(r for r in runs if not r["passed"])
    win["score"], lose["score"] = 0.0, 0.9999  # passed with 0, failed with what shows as 1.000
    log = tmp_path / "edited.jsonl"
    log.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    warnings = outcome_warnings(ambiglib.load(log))
    assert any("lhaw tac: passed and score disagree" in w and "passed with score 0," in w for w in warnings)
    assert any("lhaw tac: 1 failed run(s) score just under 1" in w and "0.9999" in w for w in warnings)
    proc = subprocess.run([sys.executable, "-m", "ambiglib", "validate", "--runs", str(log)], capture_output=True,
                          text=True, timeout=120)
    assert "warning: lhaw tac: passed and score disagree" in proc.stdout
