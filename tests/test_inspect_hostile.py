"""Inspect AI logs that lie or inflate (issue 38 §1): each log here is one of the fixtures that Inspect itself
wrote (tests/fixtures/inspect/), with its zip members or JSON edited the way a damaged or forged log would be.
What each should give is said by the edit: the members removed, the key written twice, the size recorded."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

import ambiglib
from ambiglib.errors import AmbiglibError

inspect_log = pytest.importorskip("inspect_ai.log", reason="inspect-ai is not installed (pip install 'ambiglib[inspect]')")
import zipfile_zstd  # noqa: E402,F401 — the fixtures' members are zstd-compressed

from ambiglib.importers import _inspect_files as inspect_files  # noqa: E402

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "inspect"
# one finished eval (6 tasks x 3 epochs) and the one .json log (4 tasks x 1 epoch)
EVAL = next(p for p in sorted(FIXTURES.glob("*.eval"))
            if inspect_log.read_eval_log(str(p), header_only=True).status == "success")
JSON = next(FIXTURES.glob("*.json"))


def _members(path: Path) -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(path) as z:
        return [(i.filename, z.read(i)) for i in z.infolist()]


def _write(path: Path, members: list[tuple[str, bytes]]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            z.writestr(name, data)
    return path


def _samples(members):
    return [(n, d) for n, d in members if n.startswith("samples/")]


def test_a_finished_log_missing_samples_names_them_and_counts_them(tmp_path):
    members = _members(EVAL)
    kept = [m for m in members if not m[0].startswith("samples/")] + _samples(members)[:2]
    log = _write(tmp_path / EVAL.name, kept)
    with pytest.raises(AmbiglibError, match=r"status success.*18 sample × epochs, but 16 of them are not in the log"):
        ambiglib.load(log)
    rs, errors = ambiglib.load(log, strict=False)
    assert len(rs.runs) == 2
    assert [e.field for e in errors] == ["samples"]
    assert "epoch 1" in errors[0].message and ", ..." in errors[0].message  # the first five are named
    assert sum(rs.skipped.values()) == 16


def test_a_cancelled_header_claiming_absurd_counts_is_not_believed(tmp_path):
    members = _members(EVAL)
    header = json.loads(dict(members)["header.json"])
    header["status"] = "cancelled"
    header["eval"]["dataset"]["sample_ids"] = None
    header["eval"]["dataset"]["samples"] = 10**15
    edited = [(n, json.dumps(header).encode() if n == "header.json" else d) for n, d in members]
    rs, errors = ambiglib.load(_write(tmp_path / EVAL.name, edited), strict=False)
    assert len(rs.runs) == 18  # the samples present are read
    assert sum(rs.skipped.values()) == 0
    assert [e.field for e in errors] == ["eval.config"] and "10,000,000" in errors[0].message


@pytest.mark.parametrize("streamed", [False, True], ids=["parsed-whole", "streamed"])
def test_a_sample_naming_a_key_twice_is_refused(tmp_path, monkeypatch, streamed):
    if streamed:
        monkeypatch.setattr(inspect_files, "STREAM_ABOVE", 0)
    members = _members(EVAL)
    name, data = _samples(members)[0]
    text = data.decode().rstrip()
    # the scores again, at the end of the sample, with the run scored incorrect: a last-wins reader takes them
    edited = text[:-1] + ', "scores": {"solved": {"value": "I"}}}'
    assert json.loads(text)["scores"]["solved"]["value"] == "C" and json.loads(edited)["scores"]["solved"]["value"] == "I"
    log = _write(tmp_path / EVAL.name, [(n, edited.encode() if n == name else d) for n, d in members])
    rs, errors = ambiglib.load(log, strict=False)
    assert len(rs.runs) == 17
    assert len(errors) == 1 and name in errors[0].message and "field 'scores' appears twice" in errors[0].message


def test_a_zip_holding_a_member_twice_is_refused(tmp_path):
    members = _members(EVAL)
    header = json.loads(dict(members)["header.json"])
    header["eval"]["model"] = "evil/model"
    with pytest.warns(UserWarning, match="Duplicate name"):
        log = _write(tmp_path / EVAL.name, members + [("header.json", json.dumps(header).encode())])
    with pytest.raises(AmbiglibError, match=r"'header.json' more than once"):
        ambiglib.load(log)
    rs, errors = ambiglib.load(tmp_path, strict=False)
    assert rs.runs.empty and len(errors) == 1


def test_a_header_naming_a_key_twice_is_refused(tmp_path):
    members = _members(EVAL)
    text = dict(members)["header.json"].decode()
    edited = text.replace('"status":"success"', '"status":"success","status":"cancelled"', 1)
    assert edited != text
    log = _write(tmp_path / EVAL.name, [(n, edited.encode() if n == "header.json" else d) for n, d in members])
    with pytest.raises(AmbiglibError, match=r"header.json: field 'status' appears twice"):
        ambiglib.load(log)


def test_the_total_inflated_size_is_capped_and_the_error_says_how_to_raise_it(tmp_path, monkeypatch):
    log = shutil.copy(EVAL, tmp_path / EVAL.name)
    total = sum(i.file_size for i in zipfile.ZipFile(log).infolist())
    monkeypatch.setenv("AMBIGLIB_MAX_INFLATED", str(total - 1))
    with pytest.raises(AmbiglibError, match=rf"unpack to {total:,} bytes.*up to {total - 1:,}.*AMBIGLIB_MAX_INFLATED=64G"):
        ambiglib.load(log)
    monkeypatch.setenv("AMBIGLIB_MAX_INFLATED", "1K")
    with pytest.raises(AmbiglibError, match=r"up to 1,024 bytes"):
        ambiglib.load(log)
    monkeypatch.setenv("AMBIGLIB_MAX_INFLATED", "lots")
    with pytest.raises(AmbiglibError, match=r"AMBIGLIB_MAX_INFLATED: expected a size such as 32G.*'lots'"):
        ambiglib.load(log)
    monkeypatch.setenv("AMBIGLIB_MAX_INFLATED", str(total))
    assert len(ambiglib.load(log).runs) == 18


def test_a_bomb_member_is_refused_by_its_recorded_size_without_inflating_it(tmp_path, monkeypatch):
    # a member recording 2 GiB of zeros (zipfile never inflates past what the zip records, so the record is
    # what is checked): written with a small recorded size, then the record patched
    monkeypatch.setattr(inspect_files, "MAX_MEMBER_BYTES", 1 << 20)
    members = _members(EVAL)
    bomb = b"\0" * ((1 << 20) + 1)
    log = _write(tmp_path / EVAL.name, members + [("samples/bomb_epoch_1.json", bomb)])
    rs, errors = ambiglib.load(log, strict=False)
    assert len(rs.runs) == 18
    assert len(errors) == 1 and "samples/bomb_epoch_1.json unpacks to 1,048,577 bytes" in errors[0].message


def test_events_are_skipped_unbuilt_when_streamed(tmp_path, monkeypatch):
    # a sample whose events nest 100,000 levels deep: building them would exhaust the stack; streamed, they are
    # skipped and the run reads as the untouched sample does
    monkeypatch.setattr(inspect_files, "STREAM_ABOVE", 1 << 10)
    members = _members(EVAL)
    name, data = _samples(members)[0]
    sample = json.loads(data)
    deep = "[" * 100_000 + "]" * 100_000
    text = json.dumps(sample)
    edited = text.replace('"events": [', f'"events": [{deep}, ', 1)
    assert edited != text and len(edited) > (1 << 10)
    log = _write(tmp_path / EVAL.name, [(n, edited.encode() if n == name else d) for n, d in members])
    (tmp_path / "plain").mkdir()
    plain = _write(tmp_path / "plain" / EVAL.name, members)
    rs = ambiglib.load(log)
    base = ambiglib.load(plain)
    cols = [c for c in rs.runs.columns if c not in ("source", "run_id", "transcript_at")]  # what, not where
    assert rs.runs[cols].sort_values(["task_id", "trial"]).reset_index(drop=True).equals(
        base.runs[cols].sort_values(["task_id", "trial"]).reset_index(drop=True))
    # parsed whole, the same member is a clear error (too deep), not a crash
    monkeypatch.setattr(inspect_files, "STREAM_ABOVE", 1 << 30)
    rs, errors = ambiglib.load(log, strict=False)
    assert len(rs.runs) == 17 and "nested too deeply" in errors[0].message


def test_a_json_log_with_a_key_twice_or_a_sample_twice(tmp_path):
    data = json.loads(JSON.read_text())
    sample = data["samples"][0]
    # a sample x epoch written twice: refused, the first kept
    twice = dict(data, samples=data["samples"] + [sample])
    log = tmp_path / JSON.name
    log.write_text(json.dumps(twice))
    rs, errors = ambiglib.load(log, strict=False)
    assert len(rs.runs) == len(data["samples"])
    assert len(errors) == 1 and errors[0].field == "id" and "twice" in errors[0].message
    # a key twice in a sample
    text = JSON.read_text()
    edited = text.replace('"scores": {', '"scores": {}, "scores": {', 1)
    assert edited != text
    log.write_text(edited)
    rs, errors = ambiglib.load(log, strict=False)
    assert len(errors) == 1 and "field 'scores' appears twice" in errors[0].message
    # a key twice in the header
    edited = text.replace('"status": "success",', '"status": "success", "status": "success",', 1)
    assert edited != text
    log.write_text(edited)
    rs, errors = ambiglib.load(log, strict=False)
    assert any("field 'status' appears twice" in e.message for e in errors)


def test_nan_which_the_streaming_parser_refuses_is_read_as_inspect_reads_it(tmp_path, monkeypatch):
    # Python's JSON (and Inspect) read NaN; ijson does not: such a sample is parsed whole, once, in its place
    data = json.loads(JSON.read_text())
    data["samples"][2]["metadata"]["x"] = float("nan")
    log = tmp_path / JSON.name
    log.write_text(json.dumps(data))
    rs, errors = ambiglib.load(log, strict=False)
    assert errors == [] and len(rs.runs) == len(data["samples"]) == rs.runs["task_id"].nunique()
    monkeypatch.setattr(inspect_files, "STREAM_ABOVE", 0)
    members = _members(EVAL)
    name, raw = _samples(members)[0]
    sample = json.loads(raw)
    sample["metadata"]["x"] = float("nan")
    (tmp_path / "eval").mkdir()
    log = _write(tmp_path / "eval" / EVAL.name, [(n, json.dumps(sample).encode() if n == name else d) for n, d in members])
    rs, errors = ambiglib.load(log, strict=False)
    assert errors == [] and len(rs.runs) == 18


@pytest.mark.parametrize("method", ["deflate", "zstd"])
def test_a_member_holding_more_than_its_recorded_size_is_refused_unread(tmp_path, method):
    # 64 MB of zeros recorded as 1,000 bytes: zipfile would inflate a Zstandard member's whole compressed read
    # before cutting it to the record; the reader inflates in bounded pieces and stops at the record
    import struct

    import zipfile_zstd as zz

    members = _members(EVAL)
    log = tmp_path / EVAL.name
    kind = zipfile.ZIP_DEFLATED if method == "deflate" else zz.ZIP_ZSTANDARD
    with zipfile.ZipFile(log, "w", kind) as z:
        for name, data in members:
            z.writestr(name, data)
        z.writestr("samples/forged_epoch_1.json", b"\0" * (64 << 20))
    with zipfile.ZipFile(log) as z:
        info = z.getinfo("samples/forged_epoch_1.json")
    raw = bytearray(log.read_bytes())
    assert struct.unpack_from("<I", raw, info.header_offset + 22)[0] == 64 << 20
    struct.pack_into("<I", raw, info.header_offset + 22, 1000)  # the local header's size
    name = info.filename.encode()
    entry = next(i for i in range(raw.index(b"PK\x01\x02"), len(raw)) if raw[i:i + 4] == b"PK\x01\x02"
                 and raw[i + 46:i + 46 + len(name)] == name)
    struct.pack_into("<I", raw, entry + 24, 1000)  # the central directory's size
    log.write_bytes(bytes(raw))
    rs, errors = ambiglib.load(log, strict=False)
    assert len(rs.runs) == 18
    assert len(errors) == 1 and "samples/forged_epoch_1.json" in errors[0].message
    assert "holds more than the 1,000 bytes the zip records" in errors[0].message


def test_a_json_log_that_crashed_inspects_header_read_is_an_error_not_a_crash(tmp_path):
    # found by the fuzzer: a message's text replaced by an integer of 5,000 digits (past Python's 4,300-digit
    # limit) made Inspect's streaming header read (ijson 3.6.0's C parse) crash the process with SIGSEGV; the
    # header is read here, and the load ends in an error naming the file
    import subprocess
    import sys

    text = JSON.read_text()
    edited = text.replace('"tool call for tool ask_user"', "-1" + "9" * 5000, 1)
    assert edited != text
    (tmp_path / JSON.name).write_text(edited)
    code = ("import ambiglib, sys; rs, errors = ambiglib.load(sys.argv[1], strict=False, quiet=True);"
            " print(len(rs.runs), len(errors))")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    runs, errors = map(int, done.stdout.split())
    assert (runs, errors) == (0, 1)  # Python's JSON refuses the number too: the log is named, not read


@pytest.mark.parametrize("edit, field", [
    # found by the fuzzer: a tool call whose function is not a name (its question would vanish unsaid), and a
    # token count that is an object (it counted as 0)
    (lambda s: s["messages"][1]["tool_calls"][0].update(function=[]), "tool_calls"),
    (lambda s: next(iter(s["model_usage"].values())).update(output_tokens={}), "output_tokens"),
    (lambda s: s.update(working_time="fast"), "working_time"),
    # fuzz seed 9001 case 244: an assistant message's role made -Infinity, its tool calls (questions) unseen
    (lambda s: s["messages"][1].update(role=float("-inf")), "messages[1].role"),
    (lambda s: s["messages"].__setitem__(1, "assistant"), "messages[1].role"),
])
def test_a_sample_field_of_the_wrong_type_is_an_error_not_a_silent_zero(tmp_path, edit, field):
    data = json.loads(JSON.read_text())
    sample = next(s for s in data["samples"] if any(m.get("tool_calls") for m in s["messages"][1:2]))
    edit(sample)
    log = tmp_path / JSON.name
    log.write_text(json.dumps(data))
    rs, errors = ambiglib.load(log, strict=False)
    assert len(rs.runs) == len(data["samples"]) - 1
    assert [e.field for e in errors] == [field]
