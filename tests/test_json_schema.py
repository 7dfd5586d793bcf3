"""The run log's JSON Schema (``ambiglib schema``, ambiglib/runlog/_json_schema.py): a valid draft 2020-12 schema, met by
every canonical log we have, and never stricter than ``ambiglib.load``: whatever record the schema refuses, the
loader refuses too. What the loader refuses and the schema accepts is only what the schema's ``$comment`` and
docs/runlog.md say it cannot say (:data:`ambiglib.runlog._json_schema.NOT_SAID`)."""

from __future__ import annotations

import copy
import gzip
import json
import re
import subprocess
import sys
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, run_record, task_record
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_docs import _records

import ambiglib
from ambiglib.runlog import _schema as schema
from ambiglib.runlog._json_schema import NOT_SAID, runlog_schema, schema_text

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is a test dependency (pip install -e '.[test]')")

ROOT = Path(__file__).resolve().parents[1]
VALIDATOR = jsonschema.Draft202012Validator(runlog_schema())


def _refusals(obj: Any) -> list[str]:
    """What the schema says is wrong with one parsed record (empty: it is valid)."""
    return [f"{e.json_path}: {e.message}" for e in VALIDATOR.iter_errors(obj)]


def _lines(path: Path) -> list[str]:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return [line for line in fh.read().splitlines() if line.strip()]


def _load(path: Path, **kwargs: Any) -> tuple[Any, list]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ambiglib.load(path, strict=False, quiet=True, **kwargs)


# ----------------------------------------------------------------------------- the schema and the command


def test_the_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(runlog_schema())
    assert runlog_schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_ambiglib_schema_prints_it_the_same_every_time(capsys):
    from ambiglib.cli import main

    assert main(["schema"]) == 0
    first = capsys.readouterr().out
    assert main(["schema", "-q"]) == 0
    assert capsys.readouterr().out == first == schema_text()
    assert json.loads(first) == runlog_schema()
    done = subprocess.run([sys.executable, "-m", "ambiglib", "schema"], capture_output=True, text=True, cwd="/")
    assert (done.returncode, done.stdout, done.stderr) == (0, first, "")


@pytest.mark.parametrize("argv", [["schema", "extra"], ["schema", "--runs", "logs/"]])
def test_ambiglib_schema_refuses_arguments_in_one_line(argv, capsys):
    from ambiglib.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("ambiglib schema: unrecognized arguments: ") and err.count("\n") == 1, err


def test_the_schema_has_every_field_of_the_contract_and_its_required_ones():
    """Made from schema.py's definitions: each record kind and nested object has exactly their fields."""
    defs = runlog_schema()["$defs"]
    for kind, fields, foreign in (("run", schema.RUN_FIELDS, schema.TASK_ONLY),
                                  ("task", schema.TASK_FIELDS, schema.RUN_ONLY)):
        assert list(defs[kind]["properties"]) == ["record", *(f.name for f in fields), *foreign]
        assert [n for n in defs[kind]["required"] if n != "record"] == list(schema.REQUIRED[kind])
    for name, fields in schema.NESTED.items():
        assert list(defs[name]["properties"]) == [f.name for f in fields]
        assert defs[name].get("required", []) == [f.name for f in fields if f.required]
        assert defs[name]["additionalProperties"] is False


def test_not_blank_means_what_the_checker_strips_on_every_code_point():
    pattern = runlog_schema()["$defs"]["question"]["properties"]["text"]["pattern"]
    everything = "".join(map(chr, range(sys.maxunicode + 1)))
    assert re.sub(pattern, "", everything) == "".join(c for c in everything if c.isspace())


# ----------------------------------------------------------------------------- canonical logs meet it


def _doc_records() -> list[dict]:
    """The worked examples of docs/runlog.md, read as tests/test_docs.py reads them."""
    return _records((ROOT / "docs" / "runlog.md").read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", sorted((ROOT / "data" / "example").glob("*.jsonl")), ids=lambda p: p.name)
def test_the_example_logs_meet_the_schema(path):
    bad = {n: why for n, line in enumerate(_lines(path), 1) if (why := _refusals(json.loads(line)))}
    assert bad == {}


@pytest.mark.parametrize("path", sorted((ROOT / "data" / "paper").glob("*.jsonl")), ids=lambda p: p.name)
def test_the_paper_logs_meet_the_schema_every_task_and_every_tenth_run(path):
    """data/paper's 31,000 records take a minute to validate: every task record and every tenth run."""
    lines = _lines(path)
    picked = [(n, line) for n, line in enumerate(lines, 1) if n % 10 == 0 or '"record":"task"' in line.replace(" ", "")]
    assert len(picked) >= len(lines) // 10
    bad = {n: why for n, line in picked if (why := _refusals(json.loads(line)))}
    assert bad == {}


def test_the_worked_examples_of_the_docs_meet_the_schema():
    records = _doc_records()
    assert len(records) == 5
    assert {i: why for i, r in enumerate(records) if (why := _refusals(r))} == {}


def _canonical(path: Path) -> bool:
    """Whether a JSON Lines file is a canonical run log: every line an object of the contract's fields only."""
    known = {"record", *(f.name for f in schema.RUN_FIELDS), *(f.name for f in schema.TASK_FIELDS)}
    try:
        objs = [json.loads(line) for line in _lines(path)]
    except (ValueError, UnicodeDecodeError):
        return False
    return bool(objs) and all(isinstance(o, dict) and "benchmark" in o and set(o) <= known for o in objs)


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT.parent)) if path.is_relative_to(ROOT.parent) else str(path)


@pytest.mark.parametrize("root", [*sorted(ROOT.glob("tests/fixtures*")), FIXTURES], ids=_shown)
def test_every_canonical_fixture_meets_the_schema(root):
    if not root.is_dir():
        pytest.skip(f"{root} is absent (the shared public fixtures are not in a fresh clone)")
    files = sorted(p for p in root.rglob("*") if p.name.endswith((".jsonl", ".jsonl.gz")))
    canonical = [p for p in files if _canonical(p)]
    if not canonical:
        pytest.skip(f"{root}: none of its {len(files)} JSON Lines files is a canonical run log (they are harnesses'"
                    " own output; what ambiglib writes from them is checked by"
                    " test_what_ambiglib_writes_from_each_harness_fixture_meets_the_schema)")
    bad = {f"{p}:{n}": why for p in canonical for n, line in enumerate(_lines(p), 1)
           if (why := _refusals(json.loads(line)))}
    assert bad == {}


#: Harness output every importer reads (folders of tests/fixtures, ../shared/fixtures/harness-output and the
#: example's own native layouts); Ambig-SWE's tarball and tau-bench's results have readers of their own.
NATIVE = [ROOT / "tests" / "fixtures" / name for name in
          ("ambigds/bench_target", "ambigds/bench_metric", "hilbench/run_gpt54", "lhaw", "inspect")]
NATIVE += [ROOT / "data" / "example-native" / name for name in ("ambig-ds", "hil-bench", "lhaw")]
SHARED_NATIVE = ["ambigds_custom_run_name", "ambigds_metric", "ambigds_target", "hil_both", "hil_cli_sql",
                 "hil_sql_ask_full", "hil_sql_ask_invalid_passes", "hil_sql_model_slash", "hil_sql_passes1",
                 "lhaw_mcp_atlas"]


@pytest.mark.parametrize("source", [*NATIVE, *(FIXTURES / "harness-output" / n for n in SHARED_NATIVE)],
                         ids=_shown)
def test_what_ambiglib_writes_from_each_harness_fixture_meets_the_schema(source, tmp_path):
    """Every harness's output, converted to canonical JSON Lines (transcripts included), meets the schema."""
    if not source.exists():
        pytest.skip(f"{source} is absent (the shared public fixtures are not in a fresh clone)")
    if source.name == "inspect":
        pytest.importorskip("inspect_ai", reason="Inspect AI logs need the inspect extra")
    rs, _ = _load(source)
    out = rs.to_jsonl(tmp_path / "canonical.jsonl")
    lines = _lines(out)
    assert len(lines) == len(rs.runs) + len(rs.tasks) > 0
    bad = {n: why for n, line in enumerate(lines, 1) if (why := _refusals(json.loads(line)))}
    assert bad == {}


# ----------------------------------------------------------------------------- what the schema cannot say


def _line(obj: Any) -> str:
    return json.dumps(obj)


def _deep(levels: int) -> dict:
    """An object nested ``levels`` deep."""
    out: dict = {}
    for _ in range(levels - 1):
        out = {"a": out}
    return out


#: For each rule of NOT_SAID (named by words of it), lines the schema accepts one by one and ambiglib.load
#: rejects, and what the rejection says; loaded alone, or as the log labelled "after" when a label is given.
WITNESSES = {
    "share a run key": ([_line(run_record()), _line(run_record())], "duplicate run"),
    "nor two task records": ([_line(task_record()), _line(task_record()), _line(run_record())],
                             "duplicate task record"),
    "at least one run record": ([_line(task_record())], "no run records found"),
    "other than its label": ([_line(run_record(log="before"))], "but this log is loaded as 'after'"),
    "names a key twice": (['{"benchmark": "a", ' + _line(run_record())[1:]], "appears twice in one object"),
    "NaN, Infinity": ([_line(run_record(score=float("nan"))), _line(run_record(trial=2, meta={"x": float("inf")}))],
                      "not valid JSON"),
    "valid Unicode": ([_line(run_record(model="\ud800"))], "not valid Unicode"),
    "without a fraction": ([_line(run_record(trial=4.0))], "must be an integer"),
    "nest at most 64": ([_line(run_record(meta=_deep(70)))], "nested deeper than 64"),
    "result is at most total": ([_line(run_record(checkpoints=[{"result": 2, "total": 1}]))], "at most its 'total'"),
    "names a question of the run": ([_line(run_record(labels=[{"facet": "f", "label": "x", "q_index": 2}]))],
                                    "but the run has 2 question(s)"),
    "no two labels": ([_line(run_record(labels=[{"facet": "f", "label": "x"}, {"facet": "f", "label": "y",
                                                                                  "judge": "judge", "call": 1}]))],
                      "repeats facet 'f'"),
    "q_index and answers name": ([_line(run_record(transcript={"covers": "questions", "turns": [
        {"role": "tool", "answers": 2}]}))], "but the run has 2 question(s)"),
    "blocker ids are unique": ([_line(task_record(blockers=[{"id": "b"}, {"id": "b"}])), _line(run_record())],
                               "repeats blocker id 'b'"),
}


def test_every_rule_the_schema_cannot_say_has_a_witness():
    for _, rule in NOT_SAID:
        assert any(words in rule for words in WITNESSES), rule
    for words in WITNESSES:
        assert sum(words in rule for _, rule in NOT_SAID) == 1, words


@pytest.mark.parametrize("words", list(WITNESSES))
def test_what_the_schema_cannot_say_load_refuses(words, tmp_path):
    lines, said = WITNESSES[words]
    for line in lines:
        assert _refusals(json.loads(line)) == [], line
    path = tmp_path / "log.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    if words == "at least one run record":
        with pytest.raises(ambiglib.FormatError, match=said):
            _load(path)
        return
    _, errors = _load({"after": path}) if words == "other than its label" else _load(path)
    assert errors and all(said in e.message for e in errors), errors


def test_docs_say_how_to_get_the_schema_and_what_it_cannot_say():
    doc = (ROOT / "docs" / "runlog.md").read_text(encoding="utf-8")
    assert "ambiglib schema > runlog.schema.json" in doc and "Draft202012Validator" in doc
    section = doc.split("the JSON Schema\n", 1)[1].split("\n## ", 1)[0]
    for words in ("run key", "task key", "at least one run record", "other than its label", "`result` is at most its"
                  " `total`", "`answers`", "share facet, judge, call and `q_index`", "blocker ids are unique",
                  "named twice", "`NaN`, `Infinity`", "valid Unicode", "4.0", "64 levels"):
        assert words in section.replace("\n", " "), words


# ----------------------------------------------------------------------------- never stricter than the loader

#: Values put in every place a record has: wrong types, empty and blank strings, out-of-range and non-finite
#: numbers, integers written with a fraction, values of enums, a lone surrogate, nesting past the limit.
VALUES: list[Any] = [None, "", "   ", "\u2003", "x", "ambiguous", "task", "questions", 0, 1, -1, 2, 0.5, 1.5, -0.5,
                     4.0, True, False, [], {}, [None], ["a"], [{}], {"a": 1}, 10**30, 2**63 - 1, 2**63, 2**1030,
                     float("nan"), float("inf"), "\ud800", _deep(70), {"covers": "questions", "turns": []}]
DELETE = object()


def _full_run() -> dict:
    """A run with every field of the contract and of each nested object filled."""
    return run_record(
        variant_id="public_sql_3__v1", policy="permissive", protocol="solve", trial=2, log="first", status="ok",
        score=0.5, passed=False, checkpoints=[{"result": 1, "total": 2}, {"result": 0.5, "total": 1}],
        category="intended", cost_usd=0.1, tokens_in=10, tokens_out=20, steps=3, duration_s=1.5,
        meta={"harness": "x", "n": [1, {"b": None}]},
        questions=[{"text": "Which era?", "blocker_id": "modern_era_cards", "response": "", "step": 0,
                    "in_scope": True, "attributed": True, "parts": 2},
                   {"text": None, "blocker_id": None, "response": None, "step": None, "in_scope": None,
                    "attributed": False, "parts": None}],
        labels=[{"facet": "trace", "label": "intended", "judge": "j", "call": 2, "q_index": 1},
                {"facet": "trace", "label": "intended", "judge": "j", "call": 2, "q_index": None}],
        transcript={"covers": "conversation", "note": "", "turns": [
            {"role": "user", "content": "Do it."},
            {"role": "assistant", "content": None, "tool_name": "ask", "tool_args": {"q": "Which era?", "n": 1},
             "q_index": 0, "answers": None},
            {"role": "tool", "tool_name": "ask", "content": "2019", "answers": 1, "q_index": None}]})


BASES = {"full run": _full_run(), "required only": {k: run_record()[k] for k in schema.REQUIRED["run"]},
         **{f"docs {i}": r for i, r in enumerate(_doc_records())}}


def _places(rec: dict) -> list[tuple]:
    """Every place of a record a value can be put or taken away: each field of its kind and of the other kind,
    'record' and an unknown one; inside, each field of the first and last item of every list, of a transcript and
    its turns, and the keys of meta and tool_args."""
    kind = "task" if rec.get("record") == "task" else "run"
    fields = schema.TASK_FIELDS if kind == "task" else schema.RUN_FIELDS
    foreign = schema.RUN_ONLY if kind == "task" else schema.TASK_ONLY
    out: list[tuple] = [("record",), ("unknown",), *((n,) for n in foreign)]
    for f in fields:
        out += [(f.name,), *_inside((f.name,), f, rec.get(f.name))]
    return out


def _inside(path: tuple, f: schema.Field, value: Any) -> list[tuple]:
    if f.kind in schema.NESTED and isinstance(value, dict):
        return _in_object(path, f.kind, value)
    if f.kind == "list" and isinstance(value, list) and value:
        out = []
        for i in sorted({0, len(value) - 1}):
            out.append((*path, i))
            if f.item in schema.NESTED and isinstance(value[i], dict):
                out += _in_object((*path, i), f.item, value[i])  # type: ignore[arg-type]
        return out
    if f.kind == "object" and isinstance(value, dict):
        return [*((*path, k) for k in value), (*path, "unknown")]
    return []


def _in_object(path: tuple, item: str, value: dict) -> list[tuple]:
    out = [(*path, "unknown")]
    for f in schema.NESTED[item]:
        out += [(*path, f.name), *_inside((*path, f.name), f, value.get(f.name))]
    return out


def _mutated(rec: dict, place: tuple, value: Any) -> dict:
    rec = copy.deepcopy(rec)
    parent = rec
    for key in place[:-1]:
        parent = parent[key]
    if value is not DELETE:
        parent[place[-1]] = copy.deepcopy(value)
    elif isinstance(parent, dict):
        parent.pop(place[-1], None)
    else:
        del parent[place[-1]]
    return rec


def _unique(rec: dict, n: int, place: tuple) -> dict:
    """The record with a key no other line of its file has (its suite, or its benchmark when the suite is what
    was changed): duplicates are a rule across records, kept out of a test of each record."""
    rec["benchmark" if place == ("suite",) else "suite"] = f"u{n}"
    return rec


SENTINEL = run_record(suite="sentinel")  # a log needs one run record


def _verdicts(records: list[dict], tmp_path: Path, name: str, engine: str = "python"
              ) -> list[tuple[bool, str | None]]:
    """Each record's (schema accepts, the loader's message or None), loading them as one log after a valid run.

    A file the Arrow reader finds wrong is read again line by line, so one file's records are judged by the
    reference checker (engine "python" says so); tests/test_schema.py keeps the Arrow checker equal to it."""
    lines = [_line(SENTINEL), *map(_line, records)]
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    _, errors = _load(path, engine=engine)
    by_line = {e.line: e.message for e in errors}
    assert 1 not in by_line, by_line[1]
    return [(VALIDATOR.is_valid(json.loads(line)), by_line.get(n)) for n, line in enumerate(lines[1:], 2)]


#: Each rule of NOT_SAID (words of it, as WITNESSES has them) and what the loader's message says for it.
GAPS = {
    "share a run key": r"duplicate (run|task record)",
    "names a key twice": r"appears twice in one object",
    "NaN, Infinity": r"not valid JSON|must be a finite number",
    "valid Unicode": r"not valid Unicode",
    "without a fraction": r"must be an integer.* \(got -?\d+\.0\)",
    "nest at most 64": r"nested deeper than 64",
    "result is at most total": r"at most its 'total'",
    "names a question of the run": r"'labels\[\d+\]\.q_index' is \d+, but the run has",
    "no two labels": r"repeats facet",
    "q_index and answers name": r"'transcript\.turns\[\d+\]\.(q_index|answers)' is \d+, but the run has",
    "blocker ids are unique": r"repeats blocker id",
}


def _gap(message: str) -> str | None:
    return next((words for words, pattern in GAPS.items() if re.search(pattern, message)), None)


def test_a_record_the_schema_refuses_load_refuses_every_place_every_value(tmp_path, capsys):
    """Every place of each base record (each field, each nested field, the items themselves, unknown fields,
    the other kind's fields) set to each of VALUES or taken away: whenever the schema refuses the result, the
    loader does too. The other way round, each record the loader refuses and the schema accepts breaks one of the
    rules the schema says it cannot say; their counts are printed (pytest -s)."""
    counts: Counter = Counter()
    stricter, unexplained, gaps = [], [], Counter()
    for name, base in BASES.items():
        assert VALIDATOR.is_valid(base), name
        cases = [(place, value) for place in _places(base) for value in [*VALUES, DELETE]]
        records = [_unique(_mutated(base, place, value), n, place) for n, (place, value) in enumerate(cases)]
        for (place, value), (accepted, refused) in zip(cases, _verdicts(records, tmp_path, name.replace(" ", "_"))):
            counts["mutations"] += 1
            counts["schema refuses"] += not accepted
            counts["load refuses"] += refused is not None
            shown = f"{name}: {'.'.join(map(str, place))} = {'(deleted)' if value is DELETE else repr(value)[:40]}"
            if not accepted and refused is None:
                stricter.append(shown)
            elif accepted and refused is not None:
                gap = _gap(refused)
                gaps[gap] += 1
                if gap is None:
                    unexplained.append(f"{shown}: {refused}")
    with capsys.disabled():
        print(f"\n{counts['mutations']} mutations of {len(BASES)} records: schema refuses {counts['schema refuses']},"
              f" load refuses {counts['load refuses']}; schema refuses and load accepts: {len(stricter)};"
              f" load refuses and schema accepts: {sum(gaps.values())}, by rule: {dict(gaps)}")
    assert stricter == [], "the schema refuses what ambiglib.load accepts:\n" + "\n".join(stricter[:30])
    assert unexplained == [], "ambiglib.load refuses, for a reason the schema does not say it leaves out:\n" + \
        "\n".join(unexplained[:30])
    assert counts["schema refuses"] > counts["mutations"] // 2


@st.composite
def _mutant(draw) -> tuple[dict, tuple]:
    """A base record with one to three places changed one after the other, and the last place changed."""
    rec = copy.deepcopy(BASES[draw(st.sampled_from(sorted(BASES)))])
    place: tuple = ()
    for _ in range(draw(st.integers(1, 3))):
        place = draw(st.sampled_from(_places(rec)))
        rec = _mutated(rec, place, draw(st.sampled_from([*VALUES, DELETE])))
    return rec, place


def _transcript_on_a_task(rec: dict) -> bool:
    return rec.get("record") == "task" and rec.get("transcript") is not None


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(mutant=_mutant())
def test_a_record_the_schema_refuses_load_refuses_several_changes_at_once(tmp_path_factory, mutant):
    """Several changes to one record, in a file of its own, loaded by the default engine (the Arrow reader, and
    the reference checker when it finds the file wrong): the schema never refuses what the loader keeps, and what
    the loader alone refuses breaks a rule the schema says it cannot say."""
    rec, place = mutant
    rec = _unique(rec, 0, place)
    [(accepted, refused)] = _verdicts([rec], tmp_path_factory.mktemp("mutant"), "log", engine="auto")
    if not accepted and not _transcript_on_a_task(rec):  # (that one: the next test)
        assert refused is not None, ("the schema refuses what ambiglib.load accepts", rec, _refusals(rec))
    elif accepted and refused is not None:
        assert _gap(refused) is not None, (refused, rec)


def test_a_task_record_with_a_transcript_is_refused_by_the_default_engine_too(tmp_path):
    rec = task_record(transcript={"covers": "questions", "turns": []})
    assert not VALIDATOR.is_valid(rec)
    [(_, by_python)] = _verdicts([rec], tmp_path, "python", engine="python")
    assert by_python is not None and "belongs to run records" in by_python
    [(_, by_default)] = _verdicts([rec], tmp_path, "auto", engine="auto")
    assert by_default is not None
