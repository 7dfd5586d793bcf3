"""What was said in a run: its conversation, turn by turn, read from the run's log when asked for.

``rs.transcript(run_id)`` returns a :class:`Transcript`, one row per turn (``turn``, ``role``, ``content``,
``tool_name``, ``tool_args``, ``q_index``: the question of ``rs.questions`` the turn asks, ``answers``: the
question it answers). A load keeps only where each run's conversation is (the runs' ``transcript_at``, set by
the importer that read the run, never taken from a log's content); the turns are read from the log's file when
asked for, one run at a time, so that a log of long conversations costs no more memory than one without.

Where a log holds part of a conversation (Ambig-DS keeps the agent's tool uses and its one question), that part
is the transcript and its ``covers`` says which (:data:`ambiglib.runlog._schema.TRANSCRIPT_COVERS`); where it holds
none, the transcript is empty and its ``note`` says why.

A run read from an Inspect AI log is a sample × epoch of it: :func:`viewer` says how to open that sample in
Inspect's own log viewer (``inspect view``: events, timings, scorer explanations), and a transcript's display and
the run's page show it.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import quote

import pandas as pd

from ambiglib.errors import FormatError
from ambiglib.runlog import _stamps as stamps
from ambiglib.runlog._schema import RecordError, check_transcript
from ambiglib.runset import RunSet

__all__ = ["Transcript", "transcript", "read_turns", "TURN_COLUMNS", "COVERS_TEXT", "Viewer", "viewer"]

#: the columns of a transcript
TURN_COLUMNS = ("turn", "role", "content", "tool_name", "tool_args", "q_index", "answers")

#: what each ``covers`` means, in words a page can print
COVERS_TEXT = {
    "conversation": "the whole conversation",
    "tool_calls": "the agent's tool calls, and what they returned where the log keeps it (no other turns)",
    "questions": "the questions and their answers only (the log keeps no other turns)",
}

#: the port ``inspect view`` serves on unless told another (``inspect_ai._util.constants.DEFAULT_VIEW_PORT``)
VIEWER_PORT = 7575
#: the characters JavaScript's ``encodeURIComponent`` leaves as they are (besides letters and digits), as the
#: viewer encodes a route's parts
_URI_SAFE = "-_.!~*'()"


class Viewer(NamedTuple):
    """How to open a run's sample in Inspect's log viewer: the log ``file``, the ``sample`` id and ``epoch``, the
    ``command`` that serves the log's folder (``inspect view --log-dir DIR``) and the ``url`` of the sample in the
    viewer while that command runs (its hash route ``#/logs/<file>/samples/sample/<id>/<epoch>/``, the file named
    relative to the folder)."""

    file: str
    sample: str | int
    epoch: int
    command: str
    url: str

    def lines(self) -> list[str]:
        """The way to the sample in words, a line each: the command to copy, then where to go in the viewer."""
        return [f"In Inspect's log viewer: {self.command}",
                f"  then open {self.url}",
                f"  (log {Path(self.file).name}, sample {self.sample!r}, epoch {self.epoch})"]


def viewer(run: dict[str, Any]) -> Viewer | None:
    """How to open run ``run`` (a row of ``rs.runs``) in Inspect's log viewer, from where the importer placed it
    (its ``transcript_at``: the log file, sample id and epoch); None for a run not read from an Inspect AI log, or
    one whose sample the importer could not place."""
    at = locator(run)
    if (at is None or at.get("reader") != "inspect" or not isinstance(at.get("file"), str)
            or at.get("sample") is None or not isinstance(at.get("epoch"), int)):
        return None
    path, sample, epoch = Path(at["file"]), at["sample"], int(at["epoch"])
    url = (f"http://127.0.0.1:{VIEWER_PORT}/#/logs/{quote(path.name, safe=_URI_SAFE)}/samples/sample/"
           f"{quote(str(sample), safe=_URI_SAFE)}/{epoch}/")
    return Viewer(str(path), sample, epoch, f"inspect view --log-dir {shlex.quote(str(path.parent))}", url)


class Transcript(pd.DataFrame):
    """A run's turns: a pandas DataFrame whose display first says whose run it is, what part of the conversation
    the log keeps (``attrs["covers"]``) and where it was read (``attrs["where"]``), or why there is none
    (``attrs["note"]``)."""

    @property
    def _constructor(self):
        return pd.DataFrame  # a slice of a transcript is a frame of turns, no longer the whole of one

    def headline(self) -> str:
        """One line: the run, what the transcript holds and where it was read, or why it is empty."""
        a = self.attrs
        if a.get("covers") is None:
            return f"run {a.get('run_id')}: no transcript ({a.get('note')})"
        if a.get("q_index") is not None:  # an excerpt: a question in its dialogue (Evidence.dialogue)
            return (f"run {a.get('run_id')}: question {a['q_index']} in its dialogue, {len(self)} of {a.get('of')}"
                    f" turns ({COVERS_TEXT[a['covers']]}), from {a.get('where')}")
        note = f"; {a['note']}" if a.get("note") else ""
        return (f"run {a.get('run_id')}: {len(self)} turns, {COVERS_TEXT[a['covers']]}, from {a.get('where')}"
                f"{note}")

    def __repr__(self) -> str:
        way = self.attrs.get("viewer")
        head = "\n".join([self.headline(), *(way.lines() if way else [])])
        return head + ("\n" + super().__repr__() if len(self) else "")

    def _repr_html_(self) -> str | None:
        """In a notebook: the headline, the way to the sample in Inspect's viewer (the command to copy; the link
        works while it runs), then the turns (the template ``transcript.html`` escapes every text)."""
        from ambiglib._markup import Markup, render

        way: Viewer | None = self.attrs.get("viewer")
        return str(render("transcript.html", headline=self.headline(), viewer=way,
                          viewer_file=Path(way.file).name if way else "", viewer_sample=repr(way.sample) if way else "",
                          body=Markup(super()._repr_html_()) if len(self) else None))


def _empty(run_id: str, why: str) -> Transcript:
    out = Transcript({c: pd.Series([], dtype="object") for c in TURN_COLUMNS})
    out.attrs.update(run_id=run_id, covers=None, note=why, where=None)
    return out


def _frame(run_id: str, record: dict[str, Any], where: str) -> Transcript:
    turns = record["turns"]
    out = Transcript({
        "turn": pd.array(range(len(turns)), dtype="Int64"),
        "role": pd.array([t["role"] for t in turns], dtype="string"),
        "content": pd.array([t.get("content") for t in turns], dtype="string"),
        "tool_name": pd.array([t.get("tool_name") for t in turns], dtype="string"),
        "tool_args": pd.array([_args_text(t.get("tool_args")) for t in turns], dtype="string"),
        "q_index": pd.array([t.get("q_index") for t in turns], dtype="Int64"),
        "answers": pd.array([t.get("answers") for t in turns], dtype="Int64"),
    })
    out.attrs.update(run_id=run_id, covers=record["covers"], note=record.get("note"), where=where)
    return out


def _args_text(args: Any) -> str | None:
    if args is None or isinstance(args, str):
        return args
    return json.dumps(args, ensure_ascii=False, sort_keys=True)


def locator(run: dict[str, Any]) -> dict[str, Any] | None:
    """Where a run row's conversation is (its ``transcript_at``), or None when the log holds none."""
    text = run.get("transcript_at")
    if text is None or (isinstance(text, float) and text != text) or text is pd.NA:
        return None
    return json.loads(text)


def read_turns(run: dict[str, Any]) -> dict[str, Any] | None:
    """The run-log ``transcript`` of a run row (``covers``, ``turns``, ``note``), read from its log; None when the
    log holds no conversation for it. A file that cannot be read as its harness writes it is a FormatError."""
    at = locator(run)
    if at is None:
        return None
    if "none" in at:  # an importer's word that its format keeps no conversation
        return None
    from ambiglib.importers import transcript_reader

    record = transcript_reader(at["reader"])(at, run)
    # the files an importer named must be as they were at the load: checked after its reader, whose own checks
    # (the entry, the steps, the questions) name what changed more exactly when they see it
    _check_stamps(at, run)
    if record is None:
        return None
    n_questions = int(run.get("n_questions") or 0)
    try:
        return check_transcript(record, n_questions)
    except RecordError as exc:
        raise FormatError(f"{describe(at, run)}: {exc.message}") from None


def describe(at: dict[str, Any] | None, run: dict[str, Any]) -> str:
    """Where a transcript is read from, in words: the file, and the sample or line in it."""
    if at is None:
        return str(run.get("source"))
    where = str(at.get("file", run.get("source")))
    if at.get("line") is not None:
        where += f":{at['line']}"
    if at.get("sample") is not None:
        where += f" (sample {at['sample']!r}, epoch {at.get('epoch')})"
    elif at.get("index") is not None:
        where += f" (entry {at['index']})"
    return where


def why_none(run: dict[str, Any]) -> str:
    """Why a run has no transcript, and what would give it one."""
    at = locator(run)
    if at is not None and "none" in at:
        return str(at["none"])
    if at is None and str(run.get("source", "")).split(":")[0].endswith((".jsonl", ".jsonl.gz")):
        return (f"the run record at {run.get('source')} has no 'transcript' field (`ambiglib convert` writes one"
                " from a harness's own output where that output keeps the conversation)")
    if at is None:
        return f"the log of this run ({run.get('source')}) keeps no conversation"
    return "the file named for it holds no conversation for this run"


def transcript(rs: RunSet, run_id: str) -> Transcript:
    """Return the turns of run ``run_id``, read from its log now.

    Raises
    ------
    KeyError
        No run of ``rs`` has this id.
    FormatError
        The file that holds the conversation cannot be read as its harness writes it.
    """
    rows = rs.runs.loc[rs.runs["run_id"] == run_id]
    if rows.empty:
        raise KeyError(f"no run with run_id {run_id!r} in this run set ({len(rs.runs)} runs)")
    run = _row(rows.iloc[0])
    record = read_turns(run)
    out = _empty(run_id, why_none(run)) if record is None else _frame(run_id, record, describe(locator(run), run))
    out.attrs["viewer"] = viewer(run)
    return out


def _row(series: pd.Series) -> dict[str, Any]:
    return {k: (None if v is pd.NA or (isinstance(v, float) and v != v) else v) for k, v in series.items()}


def _check_stamps(at: dict[str, Any], run: dict[str, Any]) -> None:
    """The files an importer's locator names (``stamps``, :func:`ambiglib.runlog._jsonl.read_records`) must be as the
    load saw them: else a FormatError naming the file."""
    from ambiglib.importers._canonical import changed

    for file, (size, mtime_ns) in (at.get("stamps") or {}).items():
        try:
            st = os.stat(file)
        except OSError as exc:
            raise FormatError(f"{file}: cannot read the run's transcript again ({exc.strerror or exc}): the file"
                              " has changed since it was loaded; load it again") from None
        now = stamps.file_stamp(st)
        if (now["size"], now["mtime_ns"]) != (size, mtime_ns):
            raise FormatError(f"{file}: the file has changed since it was loaded"
                              f" ({changed(now, {'size': size, 'mtime_ns': mtime_ns})}); load it again")
