"""The contract's two validators accept exactly the same records.

The loader reads a file through Arrow and checks it with ``table_is_valid``; any
doubt sends it to the line-by-line reader, whose ``validate_record`` is the
reference. These tests generate valid records and records with one defect and
check that (1) whatever the Arrow path accepts, the reference accepts too, with an
identical table, and (2) the Arrow path accepts every valid file, so that valid
logs get the fast path.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pyarrow as pa
import pytest
from conftest import run_record, task_record
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ambiglib.runlog import _schema as schema
from ambiglib.runlog._jsonl import read_file_arrow, read_file_python

WEIRD = [None, "", "   ", "x", "ambiguous", "full", "ok", "task", "run", 0, 1, -1, 2, 0.5, 1.5, -0.5,
         True, False, [], {}, [None], ["a"], {"a": 1}, 10**30, "seg-1"]


def _paths(rec: dict) -> list[tuple]:
    """Every place a value can be changed: ("top", name), (list, index, name), ..."""
    names = [f.name for f in (schema.TASK_FIELDS if rec.get("record") == "task" else schema.RUN_FIELDS)]
    places = [("top", n) for n in ["record", *names, "unknown_field", "blockers", "model"]]
    for lst in ("questions", "labels", "checkpoints", "blockers"):
        for i in range(len(rec.get(lst) or [])):
            for n in [*schema.NESTED[lst.rstrip("s") if lst != "checkpoints" else "checkpoint"]]:
                places.append((lst, i, n.name))
            places.append((lst, i, "extra"))
            places.append((lst, i, None))
    for i, _ in enumerate(rec.get("dimensions") or []):
        places.append(("dimensions", i, None))
    return places


def _mutate(rec: dict, place: tuple, value, delete: bool) -> dict:
    rec = copy.deepcopy(rec)
    if place[0] == "top":
        if delete:
            rec.pop(place[1], None)
        else:
            rec[place[1]] = value
        return rec
    lst, i, name = place
    if name is None:
        rec[lst][i] = value
    elif delete:
        rec[lst][i].pop(name, None)
    else:
        rec[lst][i][name] = value
    return rec


@st.composite
def valid_record(draw):
    if draw(st.booleans()):
        rec = run_record(
            trial=draw(st.integers(1, 5)),
            score=draw(st.sampled_from([0.0, 0.25, 1.0, 1])),
            spec=draw(st.sampled_from(schema.SPECS)),
            policy=draw(st.sampled_from(["default", "permissive", "conservative"])),
            status=draw(st.sampled_from(schema.STATUSES)),
            checkpoints=draw(st.sampled_from([None, [], [{"result": 1, "total": 2}, {"result": 0, "total": 1}]])),
            meta=draw(st.sampled_from([None, {"harness": "x", "n": 1}])),
        )
        if draw(st.booleans()):
            rec["questions"] = []
        if draw(st.booleans()):
            rec.pop("labels")
    else:
        rec = task_record(
            task_id=draw(st.sampled_from(["t1", "t2", "t3"])),
            ambiguity_class=draw(st.sampled_from([None, *schema.AMBIGUITY_CLASSES])),
            dimensions=draw(st.sampled_from([None, [], ["goal", "input"]])),
            strategy=draw(st.sampled_from([None, "delete"])),
        )
    return rec


@st.composite
def log_file(draw):
    records = draw(st.lists(valid_record(), min_size=1, max_size=6))
    # make run and task keys unique: key clashes are checked across files, not here
    for i, rec in enumerate(records):
        rec["task_id"] = f"{rec['task_id']}-{i}"
    mutated = draw(st.booleans())
    if mutated:
        i = draw(st.integers(0, len(records) - 1))
        place = draw(st.sampled_from(_paths(records[i])))
        records[i] = _mutate(records[i], place, draw(st.sampled_from(WEIRD)), draw(st.booleans()))
    return records


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=log_file())
def test_arrow_and_reference_readers_agree(tmp_path_factory, records):
    path: Path = tmp_path_factory.mktemp("agree") / "log.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    reference = read_file_python(path, "log.jsonl")
    arrow = read_file_arrow(path, "log.jsonl")
    if arrow is not None:
        assert reference.errors == [], "the Arrow path accepted a record the reference rejects"
        assert arrow.table.equals(reference.table), (arrow.table.to_pylist(), reference.table.to_pylist())
        assert (arrow.n_run_records, arrow.n_task_records) == (reference.n_run_records, reference.n_task_records)
    else:
        assert reference.errors, "a valid file was sent to the slow path"


def test_validate_record_normalises_and_fills_absent_fields():
    out = schema.validate_record(run_record(score=1, meta={"b": 1, "a": [1, 2]}))
    assert out["score"] == 1.0 and isinstance(out["score"], float)
    assert out["meta"] == '{"a": [1, 2], "b": 1}'
    assert out["questions"][1] == {"text": "What columns matter?", "blocker_id": None,
                                   "response": "irrelevant question", "step": 9, "in_scope": None,
                                   "attributed": None, "parts": None}
    assert set(out) == set(schema.FILE_SCHEMA.names) - {"_line"}
    pa.Table.from_pylist([out], schema=schema.FILE_SCHEMA.remove(schema.FILE_SCHEMA.get_field_index("_line")))


@pytest.mark.parametrize("value, shown", [(None, "null"), (True, "true"), ("amb", "'amb'"), (1.5, "1.5"),
                                          ({"a": 1}, "an object"), ([1], "a list"), ("x" * 100, "'" + "x" * 55 + "...'")])
def test_show_renders_values_as_the_input_spelled_them(value, shown):
    assert schema.show(value) == shown


def test_explicit_null_meta_keeps_the_arrow_path(tmp_path):
    # found by the property test: a file whose every meta is null infers Arrow type null
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps(task_record(meta=None) | {"meta": None}) + "\n")
    arrow = read_file_arrow(path, "log.jsonl")
    assert arrow is not None and arrow.table.equals(read_file_python(path, "log.jsonl").table)
