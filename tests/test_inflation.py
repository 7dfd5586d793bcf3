"""Bounded inflation (issue 71): every compressed input (a ``.jsonl.gz`` log, an Inspect ``.eval`` log's members, a
Parquet file's pages) is refused once it would inflate past one bound, ``AMBIGLIB_MAX_INFLATED`` (by default 200
times the compressed size, at least 64 MiB, at most 16 GiB), naming the file, the bound and how to raise it."""

from __future__ import annotations

import gzip
import json
import re
import zipfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import run_record

import ambiglib
from ambiglib.errors import FormatError
from ambiglib.runlog import _inflation as inflation

ROOT = Path(__file__).resolve().parents[1]
ENGINES = ("auto", "python", "arrow")


def _bomb(path: Path, records: int = 2, size: int = 40 << 20) -> Path:
    """Runs each asking one question of ``size`` bytes of 'a': a few hundred KB of gzip, ``records * size`` bytes
    inflated (the issue's file was 8 records of 60 MiB, 490 KB: bench/inflation.py)."""
    with gzip.open(path, "wb", compresslevel=9) as fh:
        for trial in range(1, records + 1):
            head = json.dumps(run_record(trial=trial, questions=None))[:-1] + ', "questions": [{"text": "'
            fh.write(head.encode())
            for _ in range(size >> 20):
                fh.write(b"a" * (1 << 20))
            fh.write(b'"}]}\n')
    return path


def _outcome(path: Path, engine: str) -> tuple:
    """What a lenient load gives: the runs' trials and the errors, or the FormatError's message."""
    try:
        rs, errors = ambiglib.load(path, engine=engine, strict=False, quiet=True)
    except FormatError as exc:
        return ("refused", str(exc))
    return (sorted(rs.runs["trial"].tolist()), [e.message for e in errors])


def test_the_bound_is_relative_to_the_compressed_size_with_a_floor_and_a_ceiling(monkeypatch):
    monkeypatch.delenv(inflation.ENV, raising=False)
    assert inflation.max_inflated(490_343) == 200 * 490_343  # the file: 98 MB, not the 503 MB it holds
    assert inflation.max_inflated(1000) == 64 << 20  # a small log is never refused for compressing well
    assert inflation.max_inflated(1 << 30) == 16 << 30
    monkeypatch.setenv(inflation.ENV, "2G")
    assert inflation.max_inflated(1000) == inflation.max_inflated(1 << 30) == 2 << 30
    monkeypatch.setenv(inflation.ENV, "lots")
    with pytest.raises(FormatError, match=r"AMBIGLIB_MAX_INFLATED: expected a size such as 32G.*'lots'"):
        inflation.max_inflated(1000)


def test_real_logs_compress_well_within_the_ratio():
    # the ratio's margin, measured: the paper's logs at gzip's best compression are 36-61 times smaller
    for name in ("hil-bench", "lhaw", "ambig-ds"):
        raw = (ROOT / "data" / "paper" / f"{name}.jsonl").read_bytes()
        ratio = len(raw) / len(gzip.compress(raw, 9))
        assert 10 < ratio < inflation.RATIO / 3, (name, ratio)


def test_a_gzip_bomb_is_refused_by_every_engine_naming_the_file_and_the_bound(tmp_path, monkeypatch):
    monkeypatch.delenv(inflation.ENV, raising=False)
    log = _bomb(tmp_path / "bomb.jsonl.gz")  # 80 MiB from about 80 KB: past the 64 MiB floor
    compressed = log.stat().st_size
    assert 200 * compressed < 64 << 20
    outcomes = {engine: _outcome(log, engine) for engine in ENGINES}
    assert len(set(outcomes.values())) == 1, outcomes  # the same refusal from both engines
    kind, message = outcomes["auto"]
    assert kind == "refused"
    assert re.match(rf"{re.escape(str(log))}: inflates to more than {64 << 20:,} bytes \(its gzip trailer records"
                    rf" 83,88\d,\d\d\d; from {compressed:,} compressed\)", message)
    assert f"up to {64 << 20:,} bytes" in message and "AMBIGLIB_MAX_INFLATED=64G" in message
    monkeypatch.setenv(inflation.ENV, "1G")  # the setting raises it: the file loads, by every engine alike
    assert {engine: _outcome(log, engine) for engine in ENGINES} == {e: ([1, 2], []) for e in ENGINES}


def test_a_bomb_with_a_forged_trailer_is_refused_as_it_is_inflated(tmp_path, monkeypatch):
    monkeypatch.delenv(inflation.ENV, raising=False)
    log = _bomb(tmp_path / "bomb.jsonl.gz")
    data = bytearray(log.read_bytes())
    data[-4:] = (1000).to_bytes(4, "little")  # the trailer says 1,000 bytes: only the count can tell
    log.write_bytes(bytes(data))
    outcomes = {engine: _outcome(log, engine) for engine in ENGINES}
    assert len(set(outcomes.values())) == 1, outcomes
    assert outcomes["auto"] == ("refused", f"{log}: inflates to more than {64 << 20:,} bytes from"
                                           f" {log.stat().st_size:,} compressed; " + inflation.refusal(
                                               log.stat().st_size, 64 << 20))


def test_a_transcript_is_read_again_within_the_bound(tmp_path, monkeypatch):
    log = tmp_path / "a.jsonl.gz"
    turns = [{"role": "user", "content": "x" * 2000}]
    with gzip.open(log, "wt") as fh:
        fh.write(json.dumps(run_record(trial=1, transcript={"covers": "conversation", "turns": turns})) + "\n")
    rs = ambiglib.load(log, quiet=True)
    monkeypatch.setenv(inflation.ENV, "100")  # a bound the file is past: its transcript is not inflated past it
    with pytest.raises(FormatError, match=rf"^{log}: inflates to more than 100 bytes .*up to 100 bytes"):
        rs.transcript(rs.runs["run_id"][0])


def test_an_inspect_log_is_bounded_by_its_own_size(tmp_path, monkeypatch):
    pytest.importorskip("inspect_ai.log", reason="inspect-ai is not installed (pip install 'ambiglib[inspect]')")
    import zipfile_zstd  # noqa: F401  the fixtures' members are zstd-compressed

    monkeypatch.delenv(inflation.ENV, raising=False)
    fixtures = ROOT / "tests" / "fixtures" / "inspect"
    source = fixtures / "2026-11-25T11-53-21-00-00_clarify_6NVxxZYkT2kNeMFXgqpsq4.eval"
    with zipfile.ZipFile(source) as z:
        members = [(i.filename, z.read(i)) for i in z.infolist()]
    # 70 MB of zeros deflate to about 70 KB: a member under the 1 GiB a sample may hold, the log far past 200x
    bomb = tmp_path / source.name
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            z.writestr(name, data)
        z.writestr("samples/bomb_epoch_1.json", b"\0" * (70 << 20))
    total = sum(i.file_size for i in zipfile.ZipFile(bomb).infolist())
    with pytest.raises(FormatError) as exc:
        ambiglib.load(bomb, quiet=True)
    assert str(exc.value).startswith(f"{bomb}: its members unpack to {total:,} bytes in all")
    assert f"up to {max(64 << 20, 200 * bomb.stat().st_size):,} bytes" in str(exc.value)
    rs, errors = ambiglib.load(bomb, strict=False, quiet=True)  # lenient: the whole log, not one sample, refused
    assert len(rs.runs) == 0 and [e.message for e in errors] == [str(exc.value)]
    monkeypatch.setenv(inflation.ENV, "1G")
    rs, errors = ambiglib.load(bomb, strict=False, quiet=True)  # raised: the bomb member is the sample's error
    assert len(rs.runs) > 0 and any("bomb_epoch_1" in e.message for e in errors)


def test_a_parquet_file_is_bounded_from_its_footer(tmp_path, monkeypatch):
    monkeypatch.delenv(inflation.ENV, raising=False)
    # 20 million equal integers: a few KB of pages, 160 MB as values
    bomb = tmp_path / "runs.parquet"
    pq.write_table(pa.table({"x": pa.array([0] * 20_000_000, pa.int64())}), bomb, compression="zstd")
    size = bomb.stat().st_size
    with pytest.raises(FormatError, match=rf"^{bomb}: its pages decode to at least [\d,]+ bytes .*up to"
                                          rf" {64 << 20:,} bytes .*AMBIGLIB_MAX_INFLATED=64G"):
        inflation.check_parquet(pq.ParquetFile(bomb).metadata, bomb, size)
    monkeypatch.setenv(inflation.ENV, "1G")
    inflation.check_parquet(pq.ParquetFile(bomb).metadata, bomb, size)
    monkeypatch.delenv(inflation.ENV)
    rs = ambiglib.load(ROOT / "data" / "example" / "lhaw.jsonl", quiet=True)  # ambiglib's own copies pass
    rs.to_parquet(tmp_path / "copy", compression="zstd")
    for file in sorted((tmp_path / "copy").glob("*.parquet")):
        inflation.check_parquet(pq.ParquetFile(file).metadata, file, file.stat().st_size)


def test_a_parquet_copy_is_bounded_when_loaded_flat_store_and_transcripts(tmp_path, monkeypatch):
    """The footer check runs on every Parquet file a load or a transcript read opens: each frame of a folder, each
    part of a store, the transcripts file (a bound of 1 KB refuses ambiglib's own copies, naming the file)."""
    monkeypatch.delenv(inflation.ENV, raising=False)
    rs = ambiglib.load(ROOT / "data" / "example" / "lhaw.jsonl", quiet=True)
    rs.to_parquet(tmp_path / "flat")
    rs.to_parquet(tmp_path / "store", partition_by=("model",))
    log = tmp_path / "talk.jsonl"
    log.write_text(json.dumps(run_record(transcript={"covers": "conversation", "turns": [
        {"role": "user", "content": "x" * 4000}]})) + "\n")
    ambiglib.load(log).to_parquet(tmp_path / "talk")
    talk = ambiglib.load(tmp_path / "talk")
    monkeypatch.setenv(inflation.ENV, "1K")
    with pytest.raises(FormatError, match=r"flat/\w+\.parquet: its pages decode to at least .*1,024 bytes"):
        ambiglib.load(tmp_path / "flat")
    with pytest.raises(FormatError, match=r"store/\w+/model=[^/]+/part-0\.parquet: its pages decode to at least"):
        ambiglib.load(tmp_path / "store")
    with pytest.raises(FormatError, match=r"talk/transcripts\.parquet: its pages decode to at least"):
        talk.transcript(talk.runs["run_id"].iloc[0])
    monkeypatch.setenv(inflation.ENV, "1G")
    assert len(ambiglib.load(tmp_path / "flat").runs) == len(ambiglib.load(tmp_path / "store").runs) == len(rs.runs)
