"""Shared helpers: record factories and a writer of JSON Lines files."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
FIXTURES = SHARED / "fixtures"


def run_record(**overrides: Any) -> dict[str, Any]:
    """A valid HIL-Bench-like run record; keyword arguments replace fields (None deletes)."""
    rec: dict[str, Any] = {
        "benchmark": "hil-bench",
        "suite": "sql",
        "task_id": "public_sql_3",
        "model": "model-a",
        "spec": "ambiguous",
        "ask_tool": True,
        "trial": 1,
        "score": 0.5,
        "passed": False,
        "questions": [
            {"text": "Which years count as the modern era?", "blocker_id": "modern_era_cards",
             "response": "2019 to 2020", "step": 4},
            {"text": "What columns matter?", "blocker_id": None, "response": "irrelevant question",
             "step": 9},
        ],
        "labels": [{"facet": "trace", "label": "intended", "judge": "j1", "call": 1}],
    }
    return _with(rec, overrides)


def task_record(**overrides: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "record": "task",
        "benchmark": "hil-bench",
        "suite": "sql",
        "task_id": "public_sql_3",
        "blockers": [
            {"id": "modern_era_cards", "type": "question", "subtype": "timeframe_ambiguity"},
            {"id": "vintage_edition_printing", "type": "schema"},
            {"id": "tournament_certified_status"},
        ],
    }
    return _with(rec, overrides)


def _with(rec: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    for key, value in overrides.items():
        if value is None:
            rec.pop(key, None)
        else:
            rec[key] = value
    return rec


def write_jsonl(path: Path, lines: list[Any]) -> Path:
    """Write records (dicts are JSON-encoded, strings written as they are) one per line."""
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.name.endswith(".gz"):
        with gzip.open(path, "wt", encoding="utf-8") as fh:
            fh.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- what the passing tests are evidence of

#: Test files whose expected values come from outside the library: worked out by hand from a paper's definition on a
#: small log, or from real published runs checked against their own harness's code (issue 40). Their passing tests
#: are counted apart from the paper fixture's round trips at the end of the run.
INDEPENDENT = ("test_definitions.py", "test_library_statistics.py", "test_importers_ambigswe.py", "test_importers_taubench.py", "test_transcripts_taubench.py",
               "test_metrics_reliability.py", "test_headline_judges_and_verdicts.py", "test_harness_output.py",
               "test_ranking.py", "test_inspect_retry.py")


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """Three numbers, reported apart: independent checks, the paper fixture's round trips, its consistency checks."""
    passed = terminalreporter.stats.get("passed", [])
    independent = sum(1 for r in passed if r.nodeid.split("::")[0].rsplit("/", 1)[-1] in INDEPENDENT)
    ran_paper = any(r.nodeid.startswith("tests/test_paper.py") for r in passed)
    terminalreporter.write_sep("-", "what the passing tests are evidence of")
    terminalreporter.write_line(f"independent checks: {independent} passing tests whose expected values are worked out"
                                " by hand from a paper's definition or come from real published runs"
                                f" ({', '.join(INDEPENDENT)})")
    if ran_paper:
        from test_paper import PAPER, split

        three = split(json.loads((PAPER / "printed.json").read_text()))
        rt = three.pop("round trip")
        terminalreporter.write_line(f"round trips: {rt[1]:,} of {rt[0]:,} fitted cells of data/paper given back (the"
                                    " fixture and the definitions agree; no evidence about the papers)")
        terminalreporter.write_line("consistency checks: " + ", ".join(f"{k} {v[1]} of {v[0]}" for k, v in three.items())
                                    + " computed cells agree (docs/reproduction.md)")


# ----------------------------------------------------------------------------- the engine tests' stores


@pytest.fixture(scope="module")
def stores(tmp_path_factory) -> dict[str, Path]:
    """The example data as a store partitioned by benchmark and model, and the same with tricky model names
    partitioned by model alone (the questions' folders then name only the model): ``tests/store_fixtures.py``."""
    from store_fixtures import EXAMPLE, tricky_log

    import ambiglib

    root = tmp_path_factory.mktemp("stores")
    ambiglib.load(EXAMPLE, quiet=True).to_parquet(root / "example", partition_by=("benchmark", "model"))
    ambiglib.load(tricky_log(root / "tricky.jsonl"), quiet=True).to_parquet(root / "tricky", partition_by=("model",))
    return {"example": root / "example", "tricky": root / "tricky"}


@pytest.fixture(scope="session")
def spark():
    """A local[2] Spark session for the engine tests, one per test process; skipped where Java is not found."""
    import shutil

    if shutil.which("java") is None:
        pytest.skip("Spark needs Java: no `java` on PATH (apt-get install default-jre-headless)")
    pyspark = pytest.importorskip("pyspark.sql", reason="pyspark is not installed (pip install '.[test]')")
    session = (pyspark.SparkSession.builder.master("local[2]").appName("ambiglib-tests")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
