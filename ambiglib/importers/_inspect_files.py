"""What an Inspect AI log file holds, read without trusting it: its header, and its samples one at a time.

A ``.eval`` log is a zip. Before anything is inflated, its member list is checked: a name twice is refused (a
reader would take one of them silently), and the sizes the zip records are bounded, each sample member by
:data:`MAX_MEMBER_BYTES` and the log's members together by :func:`max_inflated` of the zip's size (the bound of
every compressed input, :mod:`ambiglib.runlog._inflation`, ``AMBIGLIB_MAX_INFLATED``).
``zipfile`` never inflates a member past its recorded size (one that holds more fails its check), so a bomb
costs no more than its recorded sizes. The header is read by Inspect (``read_eval_log(header_only=True)``) after
its members have been parsed here once with keys named twice refused.

Each sample is parsed on its own and only :data:`SAMPLE_FIELDS` (what the mapping reads) are kept. A member
larger than :data:`STREAM_ABOVE` is read streaming with ijson (Inspect's own dependency, as Inspect reads its
samples): the fields the mapping does not use (events, attachments, store, ...) are tokenised but never built,
so memory stays that of one sample's messages and scores. A ``.json`` log is streamed the same way, its header
by Inspect. Every object built refuses a key named twice.
"""

from __future__ import annotations

import io
import itertools
import json
import os
import re
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ambiglib.errors import FormatError
from ambiglib.importers._common import Collected
from ambiglib.runlog import _inflation as inflation
from ambiglib.runlog._schema import RecordError, reject_duplicate_keys

__all__ = ["read_log_file", "read_sample", "member_stamps", "file_stamp", "count_missing", "Unreadable", "why",
           "max_inflated", "SAMPLE_FIELDS", "MAX_MEMBER_BYTES", "STREAM_ABOVE", "MAX_INFLATED"]

#: the fields of a sample the mapping reads; every other one is skipped
SAMPLE_FIELDS = frozenset({"id", "epoch", "metadata", "messages", "scores", "error", "limit", "model_usage",
                           "working_time", "total_time"})
#: the fields of a sample its transcript is read from
TRANSCRIPT_FIELDS = frozenset({"id", "epoch", "messages"})
#: the largest sample member read from a .eval zip, as the zip records its size
MAX_MEMBER_BYTES = 1 << 30
#: the largest header member (header.json, the journal's start and config updates)
MAX_HEADER_BYTES = 64 << 20
#: members up to this size are parsed whole (json.loads, fast); larger ones are streamed
STREAM_ABOVE = 4 << 20
#: the largest streamed member parsed whole when the streaming parser refuses it (NaN, Infinity, a big integer)
MAX_WHOLE_BYTES = 256 << 20
#: the streaming parser's read size: a string spanning reads costs time quadratic in (its length / this)
_BUFFER = 16 << 20
#: what one log's members may unpack to together at most, unless AMBIGLIB_MAX_INFLATED says otherwise
#: (:mod:`ambiglib.runlog._inflation`: 200 times the log's size, at least 64 MiB, at most this)
MAX_INFLATED = inflation.MAX_INFLATED
_ENV = inflation.ENV
_SAMPLE_MEMBER = re.compile(r"^samples/(.+)_epoch_(\d+)\.json$")
_HEADER_MEMBERS = re.compile(r"^(header\.json|_journal/start\.json|_journal/config_updates/[^/]+\.json)$")


class Unreadable(FormatError):
    """A sample that cannot be read; ``key`` is its (id, epoch) when its member's name says it (else None)."""

    def __init__(self, message: str, key: tuple[str, int] | None = None):
        super().__init__(message)
        self.key = key


def _key(name: str) -> tuple[str, int] | None:
    m = _SAMPLE_MEMBER.match(name)
    return (m.group(1), int(m.group(2))) if m else None


def max_inflated(compressed: int | None = None) -> int:
    """The most one log of ``compressed`` bytes may unpack to, its members together: the bound every compressed
    input has (:func:`ambiglib.runlog.max_inflated`, set by ``AMBIGLIB_MAX_INFLATED``)."""
    return inflation.max_inflated(compressed)


def read_log_file(file: Path, read_eval_log: Any) -> tuple[Any, Iterator[dict[str, Any] | FormatError]]:
    """The log's header (Inspect's ``EvalLog``, without samples) and its samples, each parsed as it is reached.

    A sample that cannot be read is a FormatError in the stream (the others still read); a log whose members
    cannot be trusted (a name twice, sizes past the caps, a header naming a key twice) raises one.
    """
    if file.name.endswith(".eval"):
        _check_zip(file)
        return read_eval_log(str(file), header_only=True), _zip_samples(file)
    return _json_header(file), _json_samples(file)


def member_stamps(file: Path) -> dict[str, tuple[int, int]]:
    """Each sample member of a .eval log: its name -> (CRC, size), as the zip's directory records them (what tells,
    when the sample is read again, that its member is the one loaded)."""
    zipfile = _zipfile()
    with zipfile.ZipFile(file) as z:
        return {i.filename: (i.CRC, i.file_size) for i in z.infolist() if i.filename.startswith("samples/")}


def file_stamp(file: Path | int) -> dict[str, int]:
    """A .json log's size and modification time (a path, or an open file's descriptor): what tells, when a sample
    is read again, that the log is the one loaded (one JSON document: its samples have no CRC of their own)."""
    st = os.fstat(file) if isinstance(file, int) else os.stat(file)
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def read_sample(file: Path, place: dict[str, Any], keep: frozenset[str] = TRANSCRIPT_FIELDS) -> dict[str, Any]:
    """One sample of a log, alone, with only ``keep``'s fields built, at the ``place`` the import recorded: a
    .eval's ``member`` (its ``crc`` and ``size`` as loaded; bounded as the import bounds it), or item ``index`` of
    a .json log's ``samples`` (the log's ``size`` and ``mtime_ns`` as loaded; the items before it skipped unbuilt).

    Anything that stops it being read as it was loaded is a FormatError naming the file and the sample's place:
    no such file, not a regular file, a member gone, named twice, or of another size or CRC, a .json log of
    another size or modification time, JSON that does not parse."""
    from ambiglib.runlog._files import open_regular

    if "member" in place:
        member = str(place["member"])
        where = f"{file}: member {member}"
        zipfile = _zipfile()
        try:
            with open_regular(file) as fh, zipfile.ZipFile(fh) as z:
                infos = [i for i in z.infolist() if i.filename == member]
                if len(infos) != 1:
                    raise FormatError("is not in the zip (the log changed since it was loaded: load it again)"
                                      if not infos else "is in the zip more than once (was it appended to?)")
                info = infos[0]
                if (info.CRC, info.file_size) != (place.get("crc"), place.get("size")):
                    raise FormatError(f"holds {info.file_size} bytes of CRC {info.CRC}, where it held"
                                      f" {place.get('size')} bytes of CRC {place.get('crc')} when the log was loaded"
                                      " (the log changed: load it again)")
                if info.file_size > MAX_MEMBER_BYTES:
                    raise FormatError(f"unpacks to {info.file_size:,} bytes; a sample is read up to"
                                      f" {MAX_MEMBER_BYTES:,}")
                sample = _member_sample(z, info, keep)
        except FormatError as exc:
            text = str(exc)  # open_regular's already names the file
            raise FormatError(text if text.startswith(f"{file}:") else f"{where}: {text}") from None
        except (zipfile.BadZipFile, EOFError, OSError, RuntimeError, ValueError, RecursionError) as exc:
            raise FormatError(f"{where}: cannot be read ({why(exc)})") from None
        if sample is None:
            raise FormatError(f"{where}: not a JSON object")
        return sample
    index = int(place["index"])
    where = f"{file}: samples[{index}]"
    with open_regular(file) as fh:
        stamp = file_stamp(fh.fileno())
        if stamp != {k: place.get(k) for k in stamp}:
            raise FormatError(f"{file}: the log changed since it was loaded (its size or modification time is not"
                              f" what it was: {stamp['size']:,} bytes now, {place.get('size')} then): load it again")
        try:
            sample = _json_item(fh, index, keep)
        except FormatError as exc:
            raise FormatError(f"{where}: {exc}") from None
        except (OSError, ValueError, RecursionError) as exc:
            raise FormatError(f"{where}: cannot be read ({why(exc)})") from None
    if sample is None:
        raise FormatError(f"{where}: not a JSON object")
    return sample


def _json_item(fh: Any, index: int, keep: frozenset[str]) -> dict[str, Any] | None:
    """Item ``index`` of a .json log's ``samples`` (its first, as the import reads it), ``keep``'s fields built;
    the items before it skipped unbuilt. One ijson refuses (NaN, Infinity, a big integer) is read whole, as the
    import reads it."""
    import ijson

    try:
        events = ijson.basic_parse(fh, use_float=True, buf_size=_BUFFER)
        first = next(events, None)
        if first is None or first[0] != "start_map":
            raise FormatError("not a JSON object")
        for event, key in events:
            if event == "end_map":
                break
            event, value = next(events)
            if key != "samples" or event != "start_array":
                _skip(events, event)
                continue
            for n, (event, _value) in enumerate(events):
                if event == "end_array":
                    break
                if n < index:
                    _skip(events, event)
                    continue
                return _object(events, keep) if event == "start_map" else None
            break
    except ijson.JSONError as exc:
        if not _python_json_reads(exc):
            raise FormatError(f"not valid JSON ({why(exc)})") from None
        fh.seek(0)
        data = _loads(fh.read())
        items = data.get("samples") if isinstance(data, dict) else None
        if isinstance(items, list) and index < len(items):
            item = items[index]
            return {k: v for k, v in item.items() if k in keep} if isinstance(item, dict) else None
    raise FormatError("is not in the log (it holds fewer samples than when it was loaded: load it again)")


#: the most sample × epochs one log's header is believed to claim (a .eval of that many is terabytes)
MAX_CLAIMED = 10_000_000
SHOWN_MISSING = 5


def count_missing(file: Path, log: Any, present: set[tuple[str, Any]], n_members: int, out: Collected,
                  unplaced: int = 0) -> None:
    """Compare the sample × epochs the header says the eval ran (its dataset's ids, or its config's sample_id,
    limit and epochs) with those the log holds, whatever its status: an eval that stopped part-way never ran
    the missing ones (counted in skipped); a log that says it finished and lacks some is damaged (an error).
    ``present`` holds the samples read and those whose member was named but could not be read (an error each);
    ``unplaced`` counts the unreadable ones whose id is not known, which are not counted missing again."""
    cfg, ds = log.eval.config, log.eval.dataset
    epochs = getattr(cfg, "epochs", None) or 1
    chosen = cfg.sample_id if getattr(cfg, "sample_id", None) is not None else ds.sample_ids
    if chosen is not None:
        ids = list(dict.fromkeys(str(i) for i in (chosen if isinstance(chosen, list) else [chosen])))
        limit = getattr(cfg, "limit", None)
        if isinstance(limit, int):
            ids = ids[:limit]
        elif isinstance(limit, (list, tuple)) and len(limit) == 2 and all(isinstance(v, int) for v in limit):
            ids = ids[limit[0]:limit[1]]
        claimed, source = len(ids) * epochs, f"{len(ids)} sample id(s) × {epochs} epoch(s)"
    else:
        ids = None
        claimed, source = (ds.samples or 0) * epochs, f"dataset.samples {ds.samples} × {epochs} epoch(s)"
    if not isinstance(epochs, int) or epochs < 1 or claimed > MAX_CLAIMED:
        out.reject(file, None, "eval.config", f"the header claims {source} = {claimed:,} sample × epochs, more"
                   f" than one log can hold (ambiglib believes up to {MAX_CLAIMED:,}): its missing samples are not"
                   " counted")
        return
    named: list[str] = []  # the first missing (sample id, epoch) pairs, for the message
    if ids is None:
        missing_n = max(0, claimed - n_members)
    else:
        wanted = set(ids)
        held = sum(1 for i, e in present if i in wanted and isinstance(e, int) and 1 <= e <= epochs)
        missing_n = max(0, claimed - held - unplaced)
        for e in range(1, epochs + 1):
            for i in ids:
                if len(named) == SHOWN_MISSING or len(named) == missing_n:
                    break
                if (i, e) not in present:
                    named.append(f"{i!r} epoch {e}")
    if not missing_n:
        return
    listed = f": {', '.join(named)}{', ...' if missing_n > len(named) else ''}" if named else ""
    if log.status == "success":
        out.reject(file, None, "samples", f"the header says the eval finished (status success) with {source} ="
                   f" {claimed:,} sample × epochs, but {missing_n:,} of them are not in the log{listed}. Members"
                   " were removed or the file was cut; the runs present are read")
        out.skip("sample × epoch an Inspect log says it ran but does not hold: named in the errors", missing_n)
    else:
        out.skip(f"sample × epoch an Inspect eval that stopped part-way ({log.status}) never ran", missing_n)


def _zipfile() -> Any:
    import zipfile

    try:  # Inspect's dependency: the members are Zstandard-compressed (zip method 93), which zipfile reads
        import zipfile_zstd  # noqa: F401  from Python 3.14 on its own
    except ImportError:
        pass
    return zipfile


#: the zip compression methods a member is read with: stored, deflate (older Inspect), Zstandard (Inspect's own)
_STORED, _DEFLATED, _ZSTD = 0, 8, 93
_CHUNK = 1 << 16


class _Member(io.RawIOBase):
    """A zip member's bytes, inflated here in bounded pieces, never past the size the zip records.

    ``zipfile`` inflates a Zstandard member a whole compressed read at a time (its output unbounded: a few KB of
    a forged member can unpack to gigabytes before being cut to the recorded size); this reads the member's raw
    bytes and inflates at most a read's worth at a time. A member holding more than its recorded size, or whose
    CRC does not match, is a FormatError.
    """

    def __init__(self, z: Any, info: Any):
        super().__init__()
        zipfile = _zipfile()
        if info.flag_bits & 0x1:
            raise FormatError("is encrypted")
        raw = zipfile.ZipInfo(info.filename)  # the member's compressed bytes, as they are stored
        raw.header_offset, raw.flag_bits = info.header_offset, info.flag_bits
        raw.compress_size = raw.file_size = info.compress_size
        raw.compress_type = _STORED  # no CRC set: zipfile checks none on the raw bytes; the inflated ones are checked here
        self._raw = z.open(raw)
        self._info, self._left, self._crc = info, info.file_size, 0
        method = info.compress_type
        if method == _STORED:
            self._inflate: Any = None
        elif method == _DEFLATED:
            self._inflate = zlib.decompressobj(-15)
        elif method == _ZSTD:
            import zstandard

            self._inflate = zstandard.ZstdDecompressor().stream_reader(self._raw, read_size=_CHUNK)
        else:
            raise FormatError(f"is compressed with zip method {method}; ambiglib reads stored, deflate and"
                              " Zstandard members (what Inspect writes)")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = self._piece(len(buffer))
        buffer[:len(n)] = n
        return len(n)

    def _piece(self, size: int) -> bytes:
        if size <= 0:  # ijson reads 0 bytes first, to tell a binary file from a text one
            return b""
        out: bytes  # (the decompressors of zipfile_zstd are untyped)
        if self._inflate is None:
            out = self._raw.read(size)
        elif hasattr(self._inflate, "unconsumed_tail"):  # deflate: output bounded by max_length
            while True:
                tail = self._inflate.unconsumed_tail or self._raw.read(_CHUNK)
                out = self._inflate.decompress(tail, size) if tail else self._inflate.flush()
                if out or not tail:
                    break
        else:
            out = self._inflate.read(size)
        if len(out) > self._left:
            raise FormatError(f"holds more than the {self._info.file_size:,} bytes the zip records for it (a forged"
                              " size: not read further)")
        self._left -= len(out)
        self._crc = zlib.crc32(out, self._crc)
        if not out and (self._left or self._crc != self._info.CRC):
            raise FormatError(f"ends {self._left:,} bytes short of its recorded size, or its CRC does not match"
                              " (the file is damaged)")
        return out

    def close(self) -> None:
        self._raw.close()
        super().close()


def _read_member(z: Any, info: Any) -> bytes:
    """A whole member (its recorded size bounded by the caller), inflated in bounded pieces."""
    with _Member(z, info) as fh:
        return fh.read()


def _check_zip(file: Path) -> None:
    """Refuse a zip whose member list cannot be trusted, before Inspect or this reader inflates anything."""
    zipfile = _zipfile()
    with zipfile.ZipFile(file) as z:
        infos = z.infolist()
        twice = sorted(name for name, n in Counter(i.filename for i in infos).items() if n > 1)
        if twice:
            raise FormatError(f"{file}: the zip holds member(s) {', '.join(map(repr, twice[:5]))} more than once;"
                              " which one a reader takes is not defined, so the log is not read (was it appended to?)")
        compressed = os.stat(file).st_size
        limit = max_inflated(compressed)
        total = sum(i.file_size for i in infos)
        if total > limit:  # nothing inflates past what the zip records (_Member): so this bounds the whole log
            raise FormatError(f"{file}: its members unpack to {total:,} bytes in all (as the zip records them, from"
                              f" {compressed:,} bytes of zip); " + inflation.refusal(compressed, limit))
        for info in infos:
            if _HEADER_MEMBERS.match(info.filename):
                if info.file_size > MAX_HEADER_BYTES:
                    raise FormatError(f"{file}: member {info.filename} unpacks to {info.file_size:,} bytes; a"
                                      f" header is read up to {MAX_HEADER_BYTES:,}")
                try:
                    _loads(_read_member(z, info))
                except FormatError as exc:
                    raise FormatError(f"{file}: member {info.filename}: {exc}") from None


def _loads(data: bytes) -> Any:
    """``json.loads`` refusing a key named twice; its errors as FormatError."""
    try:
        return json.loads(data, object_pairs_hook=reject_duplicate_keys)
    except RecordError as exc:
        raise FormatError(f"{exc.message} (a JSON object names a key once: which value counts is not defined)"
                          ) from None
    except RecursionError:
        raise FormatError("not valid JSON (nested too deeply to read)") from None
    except ValueError as exc:
        raise FormatError(f"not valid JSON ({' '.join(str(exc).split())[:200]})") from None


def _zip_samples(file: Path) -> Iterator[dict[str, Any] | FormatError]:
    """Each ``samples/<id>_epoch_<n>.json`` member of a ``.eval`` zip, parsed (or why it cannot be)."""
    zipfile = _zipfile()
    with zipfile.ZipFile(file) as z:
        for info in z.infolist():
            name = info.filename
            if not (name.startswith("samples/") and name.endswith(".json")):
                continue
            if info.file_size > MAX_MEMBER_BYTES:
                yield Unreadable(f"member {name} unpacks to {info.file_size:,} bytes; a sample is read up to"
                                 f" {MAX_MEMBER_BYTES:,}", _key(name))
                continue
            try:
                sample = _member_sample(z, info, SAMPLE_FIELDS)
            except FormatError as exc:
                yield Unreadable(f"member {name}: {exc}", _key(name))
                continue
            except (zipfile.BadZipFile, EOFError, OSError, RuntimeError, ValueError) as exc:
                yield Unreadable(f"member {name} cannot be read ({why(exc)})", _key(name))
                continue
            yield sample if sample is not None else Unreadable(f"member {name} is not a JSON object", _key(name))


def _member_sample(z: Any, info: Any, keep: frozenset[str]) -> dict[str, Any] | None:
    """A sample member's ``keep`` fields (None when it is not an object): parsed whole up to STREAM_ABOVE, else
    streamed."""
    if info.file_size <= STREAM_ABOVE:
        data = _loads(_read_member(z, info))
        return {k: v for k, v in data.items() if k in keep} if isinstance(data, dict) else None
    return _streamed(z, info, keep)


def _streamed(z: Any, info: Any, keep: frozenset[str] = SAMPLE_FIELDS) -> dict[str, Any] | None:
    """A large sample member, streamed: ``keep``'s fields built, the rest skipped unbuilt. A member ijson refuses
    but Python's JSON reads (NaN, Infinity, an integer past 64 bits) is parsed whole, as Inspect does."""
    import ijson

    first = None
    try:
        with _Member(z, info) as fh:
            events = ijson.basic_parse(fh, use_float=True, buf_size=_BUFFER)
            first = next(events, None)
            if first is None or first[0] != "start_map":
                _drain(events)
                return None
            sample = _object(events, keep)
            _drain(events)  # to the member's end, where its size and CRC are checked (and nothing may follow)
            return sample
    except ijson.JSONError as exc:
        if first is None or not _python_json_reads(exc):  # not even an object's start: not JSON at all
            raise FormatError(f"not valid JSON ({why(exc)})") from None
        if info.file_size > MAX_WHOLE_BYTES:
            raise FormatError(f"not valid JSON for the streaming reader ({why(exc)}); a sample holding NaN,"
                              f" Infinity or an integer past 64 bits is read whole only up to {MAX_WHOLE_BYTES:,}"
                              " bytes") from None
    data = _loads(_read_member(z, info))
    return {k: v for k, v in data.items() if k in keep} if isinstance(data, dict) else None


def _json_header(file: Path) -> Any:
    """A ``.json`` log's header: its top-level fields but ``samples`` (skipped unbuilt) and ``reductions``, as
    Inspect's ``EvalLog``. Read here, not by Inspect's streaming header read, whose ijson ``parse`` crashed the
    process (SIGSEGV, ijson 3.6.0) on an integer past Python's 4,300 digits, which this parse refuses cleanly."""
    import ijson
    from inspect_ai.log import EvalLog

    try:
        with open(file, "rb") as fh:
            events = ijson.basic_parse(fh, use_float=True, buf_size=_BUFFER)
            first = next(events, None)
            if first is None or first[0] != "start_map":
                raise FormatError("not a JSON object")
            header = _object(events, drop=frozenset({"samples", "reductions"}))
    except ijson.JSONError as exc:
        if not _python_json_reads(exc):
            raise FormatError(f"not valid JSON ({why(exc)})") from None
        data = _loads(file.read_bytes())  # NaN, Infinity or a big integer: read whole, as Inspect does
        header = {k: v for k, v in data.items() if k not in ("samples", "reductions")} if isinstance(data, dict) else {}
    except RecursionError:
        raise FormatError("not valid JSON (nested too deeply to read)") from None
    return EvalLog.model_validate(header)


def _json_samples(file: Path) -> Iterator[dict[str, Any] | FormatError]:
    """Each item of a ``.json`` log's ``samples``, streamed; the header's objects checked for keys named twice.
    What ends the reading part-way (JSON cut short, a key twice at the top) is the stream's last item."""
    try:
        yield from _json_items(file)
    except FormatError as exc:
        yield exc


def _json_items(file: Path) -> Iterator[dict[str, Any] | FormatError]:
    import ijson

    done = 0  # the samples given so far (a whole read after a NaN goes on after them)
    with open(file, "rb") as fh:
        events = ijson.basic_parse(fh, use_float=True, buf_size=_BUFFER)
        try:
            first = next(events, None)
            if first is None or first[0] != "start_map":
                raise FormatError("not a JSON object")
            keys: set[str] = set()
            for event, key in events:
                if event == "end_map":
                    break
                if key in keys:
                    raise FormatError(f"field '{key}' appears twice in the log's top-level object")
                keys.add(key)
                event, value = next(events)
                if key != "samples" or event != "start_array":
                    _value(events, event, value)  # built (and dropped) so that a key twice is refused
                    continue
                for event, value in events:
                    if event == "end_array":
                        break
                    item: dict[str, Any] | FormatError = FormatError("a sample is not a JSON object")
                    try:
                        if event == "start_map":
                            item = _object(events, SAMPLE_FIELDS)
                        else:
                            _value(events, event, value)
                    except _Twice as exc:  # the sample was read to its end: the next one follows
                        item = exc
                    done += 1
                    yield item
        except ijson.JSONError as exc:
            if _python_json_reads(exc):  # NaN, Infinity or a big integer: read whole, as Inspect does
                yield from itertools.islice(_json_samples_whole(file), done, None)
                return
            raise FormatError(f"not valid JSON ({why(exc)})") from None
        except RecursionError:
            raise FormatError("not valid JSON (nested too deeply to read)") from None


def _json_samples_whole(file: Path) -> Iterator[dict[str, Any] | FormatError]:
    data = _loads(file.read_bytes())
    for s in (data.get("samples") or []) if isinstance(data, dict) else []:
        yield {k: v for k, v in s.items() if k in SAMPLE_FIELDS} if isinstance(s, dict) else FormatError(
            "a sample is not a JSON object")


def _python_json_reads(exc: BaseException) -> bool:
    text = str(exc).lower()
    return any(w in text for w in ("invalid char in json text", "integer overflow", "floating point) overflow",
                                   "a digit is required after the minus sign"))


class _Twice(FormatError):
    """A key named twice, raised once the object holding it has been read to its end (the stream goes on)."""


def _object(events: Iterator[tuple[str, Any]], keep: frozenset[str] | None = None,
            drop: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The object whose ``start_map`` was just read: its keys (only ``keep``'s, when given; never ``drop``'s)
    built, the values of the others consumed unbuilt. A key named twice (here or in an object within) is a _Twice raised at the
    object's end, so that a stream of objects goes on with the next."""
    out: dict[str, Any] = {}
    twice: _Twice | None = None
    for event, key in events:
        if event == "end_map":
            if twice is not None:
                raise twice
            return out
        if key in out and twice is None:
            twice = _Twice(f"field '{key}' appears twice in one object (a JSON object names a key once: which"
                           " value counts is not defined)")
        event, value = next(events)
        if (keep is None or key in keep) and key not in drop:
            try:
                out[key] = _value(events, event, value)
            except _Twice as exc:
                twice = twice or exc
        else:
            _skip(events, event)
    raise FormatError("not valid JSON (it ends inside an object)")


def _value(events: Iterator[tuple[str, Any]], event: str, value: Any) -> Any:
    if event == "start_map":
        return _object(events)
    if event == "start_array":
        items: list[Any] = []
        twice: _Twice | None = None
        for ev, val in events:
            if ev == "end_array":
                if twice is not None:
                    raise twice
                return items
            try:
                items.append(_value(events, ev, val))
            except _Twice as exc:
                twice = twice or exc
        raise FormatError("not valid JSON (it ends inside an array)")
    return value


def _skip(events: Iterator[tuple[str, Any]], event: str) -> None:
    if event not in ("start_map", "start_array"):
        return
    depth = 1
    for ev, _ in events:
        if ev in ("start_map", "start_array"):
            depth += 1
        elif ev in ("end_map", "end_array"):
            depth -= 1
            if not depth:
                return


def _drain(events: Iterator[tuple[str, Any]]) -> None:
    for _ in events:
        pass


def why(exc: BaseException) -> str:
    """An exception in one line: its type and message (cut at 300 characters)."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:300]}" if text else type(exc).__name__
