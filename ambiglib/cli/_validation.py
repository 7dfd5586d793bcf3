"""Checking a run log: ``validate`` (its rejected records grouped by cause, anomalies and warnings) and ``schema``
(the run log's contract as JSON Schema, to check records before they are handed over)."""

from __future__ import annotations

import argparse
import re
import sys
from typing import TYPE_CHECKING

from ambiglib.cli._arguments import mapping
from ambiglib.cli._messages import say

if TYPE_CHECKING:
    from ambiglib.errors import LoadError
    from ambiglib.runset import RunSet

    #: what errors alike have in common: their kind, record and message without place or value
    Cause = tuple[str, str, str]


def validate(args: argparse.Namespace) -> int:
    """``ambiglib validate``: the log's rejected records, one line a cause (``--each``: a record), what was skipped,
    harness anomalies, error and status reasons and warnings, then the counts; exit 1 when a record was rejected."""
    from ambiglib.loading._load import load

    runset, errors = load(args.runs, strict=False, quiet=args.quiet, **mapping(args))
    causes = _causes(errors)
    for group in ([[e] for e in errors] if args.each else causes.values()):
        say(group[0].message if len(group) == 1 else _cause_line(group))
    for reason, n in sorted(runset.skipped.items()):
        say(f"not a run, counted and left out: {n} x {reason}")
    from ambiglib.metrics._harness import harness_anomalies
    from ambiglib.tables._shapes import metric_warnings

    for a in harness_anomalies(runset).itertuples(index=False):
        questions = f", {a.n_questions} question{'s' if a.n_questions != 1 else ''}" if a.n_questions else ""
        say(f"harness anomaly: {a.benchmark} {a.suite} {a.model}: {a.anomaly} in {a.n_runs}"
            f" run{'s' if a.n_runs != 1 else ''}{questions}: {a.what}")
    errors_by_reason = _error_reasons(runset)
    if errors_by_reason:
        say("error runs, kept and excluded from every metric: " + ", ".join(
            f"{n} x {reason}" for reason, n in sorted(errors_by_reason.items())))
    for (status, reason), n in sorted(_status_reasons(runset).items()):
        say(f"{status} runs, status set from the harness's files: {n} x {reason}")
    from ambiglib.importers._inspect_logs import mapping_warnings

    for warning in [*mapping_warnings(runset, args.ask_tool), *metric_warnings(runset)]:
        say(f"warning: {warning}")
    grouped = f", for {len(causes)} cause{'s' if len(causes) != 1 else ''} (--each lists every record)" \
        if len(causes) < len(errors) and not args.each else ""
    say(f"{args.runs}: {len(runset.runs)} runs, {len(runset.tasks)} tasks accepted;"
        f" {len(errors)} record{'s' if len(errors) != 1 else ''} rejected{grouped}")
    return 1 if errors else 0


#: the first places a cause of rejection names (validate)
FIRST_PLACES = 5


def _where_of(error: LoadError) -> str:
    """Where an error's message says it is: the text before its cause (``runs.jsonl:3``), else the file."""
    text = error.message
    if text.startswith(error.file):
        place = re.match(r"(:\d+)?[^:]*: ", text[len(error.file):])
        if place:
            return text[:len(error.file) + place.end() - 2]
    return error.file


def _cause(error: LoadError) -> Cause:
    """What a rejected record's error says, without where it is or the value found: errors alike in it have one
    cause (a field's index, a duplicate's id and "(got ...)" aside)."""
    text = error.message[len(_where_of(error)):].removeprefix(": ")
    text = re.sub(r"\(got [^()]*\)", "(got …)", text)
    text = re.sub(r"\[\d+\]", "[…]", text)
    text = re.sub(r"^(duplicate (?:run|task record)) .*?: first seen at .*$", r"\1", text)
    return error.kind, error.record, text


def _causes(errors: list[LoadError]) -> dict[Cause, list[LoadError]]:
    """The errors by cause (:func:`_cause`), each cause's errors in the order read."""
    groups: dict[Cause, list[LoadError]] = {}
    for error in errors:
        groups.setdefault(_cause(error), []).append(error)
    return groups


def _cause_line(group: list[LoadError]) -> str:
    """One line for the errors of one cause: their number, the cause (the first one's value found named as such),
    and the first places."""
    first = group[0]
    text = first.message[len(_where_of(first)):].removeprefix(": ")
    text = re.sub(r"\(got ([^()]*)\)", r"(got \1 at the first)", text, count=1)
    places, last_file = [], None
    for error in group[:FIRST_PLACES]:
        where = _where_of(error)
        same = last_file == error.file and error.line is not None and where == f"{error.file}:{error.line}"
        places.append(f":{error.line}" if same else where)
        last_file = error.file
    more = f" and {len(group) - FIRST_PLACES:,} more" if len(group) > FIRST_PLACES else ""
    return f"{len(group):,} records: {text}: first at {', '.join(places)}{more}"


def _status_reasons(runset: RunSet) -> dict[tuple[str, str], int]:
    """(status, why) of the runs an importer gave a status other than the harness's plain reading, with why."""
    from collections import Counter

    from ambiglib.runset import run_metas

    runs = runset.runs[runset.runs["status"].isin(["invalid", "timeout"]).to_numpy(dtype=bool)]
    return dict(Counter((status, meta["status_reason"]) for status, meta in zip(runs["status"], run_metas(runs))
                        if "status_reason" in meta))


def _error_reasons(runset: RunSet) -> dict[str, int]:
    """The error runs, counted by the reason their importer recorded."""
    from collections import Counter

    from ambiglib.runset import run_metas

    errors = runset.runs[runset.runs["status"] == "error"]
    return dict(Counter(m.get("error_reason", "no reason recorded") for m in run_metas(errors)))


def schema(args: argparse.Namespace) -> int:
    """``ambiglib schema``: the run log's JSON Schema on stdout (ambiglib.runlog._json_schema)."""
    from ambiglib.runlog._json_schema import schema_text

    sys.stdout.write(schema_text())
    return 0
