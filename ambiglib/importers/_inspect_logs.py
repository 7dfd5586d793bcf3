"""Inspect AI evaluation logs (``.eval`` and ``.json``) as a run log.

One run per sample and epoch; every call of the ask tool is a question; a judge scorer's categories are
labels; each sample's metadata gives its task record. The mapping, and how to change it, is in
``docs/importers.md`` (Inspect AI). Logs are read with Inspect's own reader (``inspect_ai.log``), an
optional dependency: ``pip install 'ambiglib[inspect]'``.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, overload

from ambiglib.errors import AskToolWarning, FormatError, LoadError
from ambiglib.importers._common import Collected, RowError, check_loaded_transcript, finish, guard, opens_with, present
from ambiglib.importers._inspect_files import count_missing, file_stamp, member_stamps, read_log_file, read_sample, why
from ambiglib.importers._reader import Reader, ReadOptions
from ambiglib.runlog._files import walk
from ambiglib.runlog._jsonl import TRANSCRIPT_AT
from ambiglib.runlog._schema import SPECS
from ambiglib.runset import RunSet

__all__ = ["read_inspect", "is_inspect_log", "inspect_logs", "mapping_warnings", "read_transcript", "ASK_TOOLS",
           "INSPECT_EXTRA"]

INSPECT_EXTRA = "pip install 'ambiglib[inspect]'"
#: the names an ask tool goes by, recognised unless ``ask_tools`` says otherwise
ASK_TOOLS = ("ask_user", "ask_human", "ask_question", "clarify")
#: a tool whose name holds one of these may be an ask tool (validate asks whether it is)
ASK_LIKE = ("ask", "clarif", "question", "user", "human")
#: Inspect's categorical score values (``inspect_ai.scorer``: CORRECT, INCORRECT, PARTIAL, NOANSWER) as
#: (score, passed), as ``value_to_float`` reads them
SCORE_VALUES = {"C": (1.0, True), "I": (0.0, False), "P": (0.5, False), "N": (0.0, False)}
#: the arguments a question's text is looked for in, before any other string argument
TEXT_ARGUMENTS = ("question", "message", "prompt", "text", "query")
#: the sample metadata fields a task record takes as they are (runlog-v1 §A.3)
TASK_FIELDS = ("ambiguity_class", "dimensions", "strategy")
#: the newest log format this importer has been checked against (Inspect's LOG_SCHEMA_VERSION)
FORMAT_VERSIONS = (1, 2)
_JSON_HEAD = re.compile(rb'^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')


def is_inspect_log(path: Path) -> bool:
    """An Inspect log: a ``.eval`` file, or a ``.json`` file that opens as one (``{"version": n, "status": ...``)."""
    name = path.name
    if name.endswith(".eval"):
        return True  # whatever it is (a folder, a FIFO, a link to nothing): named by the reader, not passed over
    return name.endswith(".json") and opens_with(path, _JSON_HEAD)


def inspect_logs(path: Path) -> list[Path]:
    """The Inspect logs at ``path``: the file itself, or every one under the folder, in name order."""
    if not path.is_dir() or path.name.endswith(".eval"):
        return [path] if is_inspect_log(path) else []
    files = [p for p, why in walk(path) if why is None and is_inspect_log(p)]
    # a folder named *.eval where a log would be is named by the reader (it holds no runs it could give)
    folders = [p for p in path.rglob("*.eval") if p.is_dir() and not p.is_symlink()]
    return sorted(set(files) | set(folders))


@dataclass
class Options:
    """How a log maps to the run log (each defaults to the documented mapping)."""

    benchmark: str | None = None
    scorer: str | None = None
    ask_tools: tuple[str, ...] = ASK_TOOLS
    label_facets: Mapping[str, str] = field(default_factory=dict)


# strict returns the run set alone, lenient (strict=False) the run set and its errors
@overload
def read_inspect(path: str | os.PathLike[str], *, strict: Literal[True] = True, files: Sequence[Path] | None = None,
                 benchmark: str | None = None, scorer: str | None = None, ask_tools: Iterable[str] | None = None,
                 label_facets: Mapping[str, str] | None = None) -> RunSet: ...
@overload
def read_inspect(path: str | os.PathLike[str], *, strict: Literal[False], files: Sequence[Path] | None = None,
                 benchmark: str | None = None, scorer: str | None = None, ask_tools: Iterable[str] | None = None,
                 label_facets: Mapping[str, str] | None = None) -> tuple[RunSet, list[LoadError]]: ...
@overload
def read_inspect(path: str | os.PathLike[str], *, strict: bool, files: Sequence[Path] | None = None,
                 benchmark: str | None = None, scorer: str | None = None, ask_tools: Iterable[str] | None = None,
                 label_facets: Mapping[str, str] | None = None) -> RunSet | tuple[RunSet, list[LoadError]]: ...
@guard("Inspect AI logs")
def read_inspect(path: str | os.PathLike[str], *, strict: bool = True, files: Sequence[Path] | None = None,
                 benchmark: str | None = None, scorer: str | None = None, ask_tools: Iterable[str] | None = None,
                 label_facets: Mapping[str, str] | None = None) -> RunSet | tuple[RunSet, list[LoadError]]:
    """Read Inspect AI logs: one run per sample × epoch (``docs/importers.md``, Inspect AI).

    Parameters
    ----------
    path : a ``.eval`` or ``.json`` log, or a folder of them (read with every folder below it)
    strict : raise the first problem (default), else return ``(runset, errors)``
    files : the logs to read (default: every Inspect log at ``path``)
    benchmark : the benchmark's name (default: each eval's task name)
    scorer : the scorer whose value is the run's score (default: each sample's first)
    ask_tools : the ask tool's names (default: ``ask_user``, ``ask_human``, ``ask_question``, ``clarify``)
    label_facets : scorer name → the facet of its labels (default: the scorer's name)

    A sample that errored is an ``error`` run with its message; one stopped by a message, token or time
    limit is ``invalid``, naming the limit. Samples an eval that stopped part-way (``cancelled``) never ran
    are counted in ``RunSet.skipped``.
    """
    root = Path(path)
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise FormatError(f"{root}: Inspect AI logs need the inspect-ai package, which is not installed:"
                          f" {INSPECT_EXTRA}") from None
    opts = Options(benchmark, scorer, tuple(ask_tools) if ask_tools is not None else ASK_TOOLS,
                   dict(label_facets or {}))
    logs = list(files) if files is not None else inspect_logs(root)
    if not logs:
        raise FormatError(f"{root}: no Inspect AI logs (.eval, or .json logs of Inspect) found")
    out = Collected("Inspect AI")
    tasks: dict[tuple[str, str, str], tuple[dict[str, Any], str]] = {}
    seen = _Seen()  # each run's key: its first sample, that eval's arguments and tools
    opened: list[Any] = [_open(file, read_eval_log) for file in logs]  # headers: which attempts a retry replaces
    replaced = _replaced(logs, opened)
    for n, file in enumerate(logs):
        got, opened[n] = opened[n], None  # each header let go once its log is read
        if file in replaced:
            out.skip(RETRIED)
            continue
        try:
            if isinstance(got, Exception):
                raise got
            header, samples = got
            if header.version in FORMAT_VERSIONS:
                _read_log(file, header, samples, opts, out, tasks, seen)
                out.check(file)  # its runs become Arrow rows before the next log's are read
                continue
        except FormatError as exc:
            out.reject(file, None, None, str(exc).removeprefix(f"{file}: "))
            out.skip(UNREADABLE)
            continue
        except OSError as exc:  # this user may not read it: said as load says it (which also counts it)
            out.reject(file, None, None, f"cannot be read ({exc.strerror or exc})")
            continue
        except Exception as exc:  # Inspect's reader raises zip, JSON, pydantic and OS errors
            out.reject(file, None, None, f"not a readable Inspect AI log ({_why(exc)})")
            out.skip(UNREADABLE)
            continue
        out.reject(file, None, "version", f"Inspect log format version {header.version!r}; ambiglib reads versions"
                   f" {', '.join(map(str, FORMAT_VERSIONS))} (a newer Inspect wrote it?)")
        out.skip(UNREADABLE)
    if seen.clash is not None:
        raise _clash_error(root, seen, opts.ask_tools)
    read = finish(out, root, strict=strict)
    for said in mapping_warnings(read if isinstance(read, RunSet) else read[0], opts.ask_tools, evals=False):
        warnings.warn(said, AskToolWarning, stacklevel=2)  # the commands say it themselves, first
    return read


UNREADABLE = "Inspect AI log that cannot be read (its samples cannot be counted): named in the errors"
RETRIED = ("Inspect AI log of an eval attempt that a later attempt of the same task replaces (eval-retry, or an eval"
           " set's retry: the same eval.task_id), not read: the later log holds its finished samples and runs its"
           " failed ones again")


def _open(file: Path, read_eval_log: Any) -> tuple[Any, Iterator[dict[str, Any] | FormatError]] | Exception:
    """A log's header and its samples, not yet read (:func:`read_log_file`), or what stopped its header being read,
    raised again, in its turn, where the log is read."""
    try:
        present(file)  # a FIFO, a folder, a link out of the folder: refused before Inspect opens it
        return read_log_file(file, read_eval_log)
    except Exception as exc:  # Inspect's reader raises zip, JSON, pydantic and OS errors
        return exc


def _replaced(logs: Sequence[Path], opened: Sequence[Any]) -> dict[Path, Path]:
    """Each log that a later attempt of its task replaces -> that attempt's log, as Inspect reads a folder of
    retries: ``eval-retry`` (and an eval set's retry) runs a task again under the same ``eval.task_id`` with a new
    ``eval_id``, and its log takes the earlier log's finished samples as they are and runs the failed ones again, so
    the latest attempt is the task's log. Latest is by ``eval.created`` (the attempt's start, which a copy keeps),
    then by the file's modification time, which is all Inspect's ``eval_set`` goes by. Copies of one log (the same
    ``eval_id``) replace nothing: their runs are duplicates, named by the duplicate check. Nor do logs of one task id
    whose task, model or task arguments differ, which a retry keeps: both are read, and their runs told apart or
    refused as any two evals' are."""
    attempts: dict[tuple[str, str, str, str], list[tuple[tuple[datetime, int], str, Path]]] = {}
    for file, got in zip(logs, opened):
        if isinstance(got, Exception) or got[0].version not in FORMAT_VERSIONS:
            continue
        ev = got[0].eval
        task_id = getattr(ev, "task_id", None)
        if not isinstance(task_id, str) or not task_id:
            continue
        args = json.dumps(getattr(ev, "task_args", None), sort_keys=True, default=repr)
        task = (task_id, str(getattr(ev, "task", "")), str(getattr(ev, "model", "")), args)
        attempts.setdefault(task, []).append(((_started(getattr(ev, "created", None)), _mtime(file)),
                                              str(getattr(ev, "eval_id", "")), file))
    out: dict[Path, Path] = {}
    for group in attempts.values():
        latest = max(group, key=lambda a: a[0])
        if any(when == latest[0] and eval_id != latest[1] for when, eval_id, _ in group):
            continue  # two attempts of one time: which is later cannot be told, so both are read (duplicates, named)
        for _, eval_id, file in group:
            if eval_id != latest[1]:
                out[file] = latest[2]
    return out


def _started(created: Any) -> datetime:
    """An eval's ``created`` time, comparable across time zones (the earliest time when it is not one)."""
    try:
        when = datetime.fromisoformat(str(created))
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def _mtime(file: Path) -> int:
    try:
        return os.stat(file).st_mtime_ns
    except OSError:
        return 0


def _why(exc: BaseException) -> str:
    """The exception and what caused it (Inspect's header read wraps its reason: "Unable to read log file")."""
    cause = exc.__cause__
    return f"{why(exc)}, because {_why(cause)}" if cause is not None and cause is not exc else why(exc)


@dataclass
class _Sampled:
    """One sample's run, read before the eval's last sample says whether the eval offered the ask tool."""

    line: int
    where: str
    run: dict[str, Any]
    task: dict[str, Any] | None
    inferred: bool  # ask_tool from the plan or the sample's own calls, not from metadata or task arguments


def _read_log(file: Path, log: Any, samples: Iterator[dict[str, Any] | FormatError], opts: Options, out: Collected,
              tasks: dict[tuple[str, str, str], tuple[dict[str, Any], str]],
              seen: _Seen) -> None:
    """The eval's runs, one sample at a time: each sample is parsed, mapped and dropped before the next."""
    ev = log.eval
    task_args = ev.task_args if isinstance(ev.task_args, dict) else {}
    args = dict(task_args)  # what its runs' keys were first given with (_distinct): one copy per log
    offered = _offered_tools(log.plan, opts.ask_tools)
    tools = set(_plan_tools(log.plan))
    seen.offered(tools, opts.ask_tools, str(ev.eval_id), str(ev.model))
    present_ids: dict[tuple[str, Any], int] = {}
    # what tells, when a run's transcript is read, that its sample is still the one loaded
    stamps = member_stamps(file) if file.name.endswith(".eval") else file_stamp(file)
    read: list[_Sampled] = []
    n_samples = calling = unplaced = 0
    for line, sample in enumerate(samples, 1):
        n_samples += 1
        if isinstance(sample, FormatError):
            out.reject(file, line, None, str(sample))
            key = getattr(sample, "key", None)
            if key is not None:
                present_ids.setdefault(key, line)
            else:
                unplaced += 1
            continue
        where = f"sample {sample.get('id')!r} epoch {sample.get('epoch')}"
        key = (str(sample.get("id")), sample.get("epoch"))
        if key in present_ids:
            out.reject(file, line, "id", f"{where}: the log holds this sample × epoch twice (also member"
                       f" {present_ids[key]}); which one counts is not defined")
            continue
        present_ids[key] = line
        given = sample.get("messages")
        messages = given if isinstance(given, list) else []
        called = _tools_called([m for m in messages if isinstance(m, dict)])  # (a message that is none: _run says so)
        seen.called(called, opts.ask_tools, str(ev.model))
        calling += _calls(sample, opts.ask_tools)
        with out.row(file, line, f"{where}'s fields"):
            if given is not None and not isinstance(given, list):
                raise RowError("messages", f"{where}: 'messages' must be a list of chat messages (got"
                                           f" {type(given).__name__})")
            run, task, inferred = _run(sample, messages, called, where, ev, task_args, offered, opts)
            place = _place(file, sample, line, stamps)
            run[TRANSCRIPT_AT] = place if "none" in place else {**run[TRANSCRIPT_AT], **place}
            if "none" not in place:  # damage only the conversation holds: an error of the load, not of a later read
                check_loaded_transcript(_conversation(messages, run[TRANSCRIPT_AT], where),
                                        len(run.get("questions") or []), where)
            read.append(_Sampled(line, where, run, task, inferred))
    if not n_samples and log.status == "success":
        out.reject(file, None, "samples", "holds no samples (was it written with log_samples=False?)")
        return
    if offered is None and calling:
        # a tool a custom solver offers (state.tools) is not in the plan: the eval's calls show it was offered,
        # to every sample of the eval (one solver), not only to those that called it
        said = (f"called in {calling} of {n_samples} samples of this eval, not named in its plan: taken as offered"
                " to every sample (give a task argument ask_tool to say so)")
        for s in read:
            if s.inferred:
                s.run["ask_tool"] = True
                s.run["meta"]["inspect"]["ask_tool_from"] = said
    for s in read:
        with out.row(file, s.line, f"{s.where}'s fields"):
            if _distinct(s.run, args, file, s.where, seen, tools):
                out.add(file, s.line, s.run)
            if s.task is not None:
                _add_task(s.task, file, s.line, s.where, out, tasks)
    count_missing(file, log, set(present_ids), n_samples, out, unplaced)


def _place(file: Path, sample: Mapping[str, Any], line: int, stamps: Mapping[str, Any]) -> dict[str, Any]:
    """Where a sample is, for reading it again alone (:func:`read_transcript`): a .eval's member, as Inspect names
    it (``samples/<id>_epoch_<n>.json``), with its CRC and size; a .json log's item (its position in ``samples``:
    the samples are read in order, one a line), with the log's size and modification time."""
    if not file.name.endswith(".eval"):
        return {"file": os.path.abspath(file), "index": line - 1, **stamps}
    member = f"samples/{sample['id']}_epoch_{sample['epoch']}.json"
    if member not in stamps:
        return {"none": f"Inspect AI log {file}: sample {sample['id']!r} epoch {sample['epoch']} is not in a member"
                        f" named {member}, as Inspect names it, so its conversation cannot be found again"}
    crc, size = stamps[member]
    return {"file": os.path.abspath(file), "member": member, "crc": crc, "size": size}


def _calls(sample: Mapping[str, Any], names: tuple[str, ...]) -> bool:
    """Whether a sample's messages call one of the ask tools."""
    messages = sample.get("messages")
    for m in messages if isinstance(messages, list) else []:
        calls = m.get("tool_calls") if isinstance(m, dict) else None
        if isinstance(calls, list) and any(isinstance(c, dict) and c.get("function") in names for c in calls):
            return True
    return False


@dataclass
class _Seen:
    """Every run key read so far, and where it was first given: (log, its sample × epoch, the eval's task
    arguments, its tools). Held for the whole load, so kept small: the eval's arguments and tools are one object
    per log, not a copy per run, and a key's texts one object per distinct text (each sample's JSON gives
    its own copy), which lowers a large load's peak (docs/performance.md)."""

    first: dict[tuple, tuple[Path, str, dict, set[str]]] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    #: run keys two evals of different conditions both gave: (the first collision's two places, the arguments
    #: or tools that differ, the tools only one of the two plans offers), and how many keys collide
    clash: tuple[str, str, str, tuple[str, ...]] | None = None
    n_clashes: int = 0
    #: tools the mapping does not take for asking whose names look like asking, over every log read:
    #: name -> [calls, runs calling it, evals offering it in their plans, models calling or offering it]
    looks: dict[str, list] = field(default_factory=dict)

    def looked(self, name: str, names: tuple[str, ...]) -> list | None:
        """The counts of a tool that looks like asking and is not one of ``names``; None for any other tool."""
        if name in names or not any(w in name.lower() for w in ASK_LIKE):
            return None
        return self.looks.setdefault(name, [0, 0, set(), set()])

    def called(self, called: Mapping[str, int], names: tuple[str, ...], model: str) -> None:
        """Count a sample's calls of such tools (the runs a collision then refuses are counted too)."""
        for name, n in called.items():
            entry = self.looked(name, names)
            if entry is not None:
                entry[0] += n
                entry[1] += 1
                entry[3].add(model)

    def offered(self, tools: Iterable[str], names: tuple[str, ...], eval_id: str, model: str) -> None:
        """Count an eval whose plan offers such a tool."""
        for name in tools:
            entry = self.looked(name, names)
            if entry is not None:
                entry[2].add(eval_id)
                entry[3].add(model)

    def ranked(self) -> list[str]:
        """Each such tool's name, most called first."""
        return sorted(self.looks, key=lambda name: (-self.looks[name][0], name))

    def tools_said(self) -> list[str]:
        """Each such tool, most called first: a line of its counts, then one of its models."""
        said = []
        for name in self.ranked():
            calls, runs, evals, models = self.looks[name]
            shown = ", ".join(sorted(models)[:3]) + (", ..." if len(models) > 3 else "")
            said += [f"{name!r} called {calls} time(s) in {runs} run(s), offered in the plans of {len(evals)}"
                     " eval(s),", f"  by {shown}"]
        return said

    def key(self, run: dict[str, Any]) -> tuple:
        values = (run.get(c) for c in ("benchmark", "suite", "variant_id", "model", "spec", "ask_tool", "policy",
                                       "trial"))
        return tuple(self.texts.setdefault(v, v) if type(v) is str else v for v in values)


def _distinct(run: dict[str, Any], args: dict[str, Any], file: Path, where: str, seen: _Seen,
              tools: set[str]) -> bool:
    """Whether a run's key is new. A key another eval already gave, when the two evals differ in their task
    arguments or their plans' tools, is a condition the mapping does not read (an ask tool of another name):
    it is recorded (:func:`_clash_error` refuses the whole read), never settled by which log was read first.
    A key repeated by evals of the same conditions is left to the duplicate check, which names both places."""
    key = seen.key(run)
    if key not in seen.first:
        seen.first[key] = (file, where, args, tools)
        return True
    first_file, first_where, first_args, first_tools = seen.first[key]
    # each difference said the same whichever eval was read first
    differ = [f"task argument {k} ({' vs '.join(sorted((repr(first_args.get(k)), repr(args.get(k)))))})"
              for k in sorted(set(args) | set(first_args)) if args.get(k) != first_args.get(k)]
    if first_tools != tools:
        offers = sorted(", ".join(sorted(t)) or "none" for t in (first_tools, tools))
        differ.append(f"the tools their plans offer ({offers[0]} vs {offers[1]})")
    if not differ:
        return True
    seen.n_clashes += 1
    if seen.clash is None:
        seen.clash = (f"{first_file} {first_where}", f"{file} {where}", "; ".join(differ),
                      tuple(sorted(first_tools ^ tools)))
    return False


def _clash_error(root: Path, seen: _Seen, names: tuple[str, ...]) -> FormatError:
    """The read refused as a whole: evals of different conditions gave the same runs, so any half kept would
    depend on the order the logs were read in. A few lines: what collides and how often, where (the first
    collision's two places), the tools that look like asking (counted over every log read), then the fixes, the
    one the evidence points at first: a tool that looks like asking, else a tool only one of the two plans offers."""
    first, second, differ, only_one = seen.clash  # type: ignore[misc]
    lines = [f"{root}: {seen.n_clashes} run(s) were given by two evals whose conditions differ;",
             "  none of these logs is loaded (keeping either eval's runs would depend on the order they were read in).",
             f"  They differ in: {differ}.",
             "  One key (benchmark, suite, variant, model, spec, ask_tool, policy, trial) was given first by",
             f"    {first}, then by", f"    {second}."]
    said = seen.tools_said()
    if said:
        lines.append(f"  Tool(s) that look like asking but are not the mapping's ask tools ({', '.join(names)}):")
        lines += [f"    {s}" for s in said]
    top = seen.ranked()[0] if said else next(iter(only_one), None)
    if top is not None:
        others = [t for t in only_one if t != top] if not said else []
        why = "looks like asking" if said else "is offered by only one of the two evals' plans" + (
            f" (so are {', '.join(map(repr, others))})" if others else "")
        lines += [f"Fix: {top!r} {why} and is not an ask tool of the mapping",
                  f"  ({', '.join(names)}). If it asks the user, name it:",
                  f"  --ask-tool {top} / ambiglib.load(..., ask_tools=[{top!r}])",
                  f"  (in a report's parameters: ask_tools: [{top}]).",
                  "Otherwise: pass ask_tool as a task argument or sample metadata, or the argument that differs as"
                  " 'policy'."]
    else:
        lines += ["Fix: if one of the evals offers an ask tool, name it (--ask-tool NAME, ask_tools=[...]);",
                  "  otherwise pass ask_tool as a task argument or sample metadata, or the argument that differs as"
                  " 'policy'."]
    lines.append("  (The run log tells conditions apart by spec, ask_tool and policy only.)")
    return FormatError("\n".join(lines))


def _plan_tools(plan: Any) -> list[str]:
    """The tools an eval's plan names in its steps' parameters (``use_tools``, an agent's tools), in order."""
    found: list[str] = []

    def visit(value: Any) -> None:
        if isinstance(value, dict):
            if isinstance(value.get("name"), str) and value.get("type", "tool") == "tool":
                found.append(value["name"])
            elif value.get("type") == "tool":  # which tools the eval offered cannot be told: never guessed
                raise FormatError(f"its plan names a tool whose 'name' is not a text (got {value.get('name')!r:.60});"
                                  " which tools the eval offered cannot be told")
            for v in value.values():
                visit(v)
        elif isinstance(value, list):
            for v in value:
                visit(v)

    for step in getattr(plan, "steps", None) or []:
        visit(step.params)
    return found


def _offered_tools(plan: Any, names: tuple[str, ...]) -> str | None:
    """The ask tool the eval's plan offers."""
    return next((t for t in _plan_tools(plan) if t in names), None)


def _text(value: Any) -> str | None:
    """A message's text: a string, or the text parts of a list of content, one a line (as Inspect's
    ``ChatMessage.text`` joins them)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(str(c.get("text") or "") for c in value if isinstance(c, dict) and c.get("type") == "text")
    return str(value)


def _field(name: str, meta: Mapping[str, Any], task_args: Mapping[str, Any]) -> Any:
    return meta[name] if meta.get(name) is not None else task_args.get(name)


def _text_field(name: str, meta: Mapping[str, Any], task_args: Mapping[str, Any], where: str) -> str | None:
    """:func:`_field` for a name the run log holds as text (suite, variant, policy): a value of another kind (an
    object, a number) is an error naming it, never its Python spelling taken for a name."""
    value = _field(name, meta, task_args)
    if value is not None and not isinstance(value, str):
        raise RowError(name, f"{where}: metadata '{name}' must be a text (got {value!r})")
    return value


# complexity over 15 (noqa: C901 below): a sample read field by field
def _run(sample: Any, messages: list[dict[str, Any]], called: Mapping[str, int], where: str, ev: Any,  # noqa: C901
         task_args: Mapping[str, Any], offered: str | None,
         opts: Options) -> tuple[dict[str, Any], dict[str, Any] | None, bool]:
    """The sample's run, its task record, and whether ask_tool was inferred (from the plan or the calls)."""
    meta = sample.get("metadata") if isinstance(sample.get("metadata"), dict) else {}
    spec = _field("spec", meta, task_args)
    if spec is None:
        raise RowError("spec", f"{where}: no 'spec' (full or ambiguous) in the sample's metadata or the task's"
                       " arguments (docs/importers.md, Inspect AI)")
    if spec not in SPECS:
        raise RowError("spec", f"{where}: metadata 'spec' must be 'full' or 'ambiguous' (got {spec!r})")
    benchmark = opts.benchmark or str(ev.task)
    suite = _text_field("suite", meta, task_args, where) or str(ev.task)
    if sample.get("id") is None or not isinstance(sample.get("epoch"), int):
        raise RowError("id", f"{where}: a sample needs an 'id' and an integer 'epoch'")
    task_id = str(sample["id"])
    variant_id = _text_field("variant_id", meta, {}, where)
    variant_id = task_id if variant_id is None else variant_id
    _check_calls(messages, where)
    calls, responses, turns, asks = _ask_calls(messages, opts.ask_tools)
    ask_tool = _field("ask_tool", meta, task_args)
    inferred = ask_tool is None
    if inferred:
        ask_tool = offered is not None or bool(calls)
    elif not isinstance(ask_tool, bool):
        raise RowError("ask_tool", f"{where}: metadata 'ask_tool' must be true or false (got {ask_tool!r})")
    scores = {k: v for k, v in (sample.get("scores") or {}).items() if isinstance(v, dict)}
    chosen = opts.scorer or next(iter(scores), None)
    run: dict[str, Any] = {
        "record": "run", "benchmark": benchmark, "suite": suite, "task_id": task_id, "variant_id": variant_id,
        "model": str(ev.model), "spec": spec, "ask_tool": ask_tool, "trial": sample["epoch"],
    }
    policy = _text_field("policy", meta, task_args, where)
    if policy is not None:
        run["policy"] = policy
    note: dict[str, Any] = {"inspect": {"sample_id": sample["id"], "epoch": sample["epoch"], "eval_id": ev.eval_id}}
    others = {name: n for name, n in called.items() if name not in opts.ask_tools}
    if others:  # what validate checks for an ask tool the mapping does not know
        note["inspect"]["tools_called"] = others
    error, limit = sample.get("error"), sample.get("limit")
    if error is not None:
        run["status"] = "error"
        message = error.get("message") if isinstance(error, dict) else error
        note["error_reason"] = f"the sample errored: {' '.join(str(message).split())[:300]}"
    elif limit is not None:
        run["status"] = "invalid"
        what = f"{limit.get('type')} limit ({limit.get('limit'):g})" if isinstance(limit, dict) else f"limit {limit}"
        note["status_reason"] = f"the sample hit its {what}"
    if scores and chosen is not None:
        if chosen not in scores:
            raise RowError("scores", f"{where}: no score of scorer {chosen!r} (the sample has {', '.join(scores)})")
        run["score"], run["passed"] = _score(scores[chosen].get("value"), chosen, where)
    labels, other = _labels(scores, chosen, opts.label_facets)
    if labels:
        run["labels"] = labels
    if other:
        note["scores"] = other
    blockers = _attribution(calls, responses, scores, chosen, where)
    if calls:
        if not ask_tool:
            raise RowError("ask_tool", f"{where}: {len(calls)} call(s) of the ask tool, but metadata 'ask_tool' is false")
        run["questions"] = [
            {"text": text, "response": responses[i], "step": turns[i],
             **({"blocker_id": blockers[i]} if blockers is not None and blockers[i] is not None else {}),
             **({} if blockers is not None else {"attributed": False})}
            for i, text in enumerate(calls)]
    _usage(sample, run, note)
    run["steps"] = sum(1 for m in messages if m.get("role") == "assistant")
    run["meta"] = note
    run[TRANSCRIPT_AT] = {"reader": "inspect", "sample": sample["id"], "epoch": sample["epoch"],
                          "messages": len(messages), "asks": asks}
    return run, _task(meta, where, benchmark, suite, task_id, variant_id), inferred


def _tools_called(messages: list) -> dict[str, int]:
    """Every tool the assistant's messages called (the ask tools too), with how often."""
    counts: dict[str, int] = {}
    for m in messages:
        for call in m.get("tool_calls") or [] if m.get("role") == "assistant" else []:
            name = call.get("function") if isinstance(call, dict) else None
            if isinstance(name, str):
                counts[name] = counts.get(name, 0) + 1
    return counts


#: the roles of Inspect's chat messages (``ChatMessageSystem``, ``User``, ``Assistant``, ``Tool``)
ROLES = ("system", "user", "assistant", "tool")


def _check_calls(messages: list, where: str) -> None:
    """Every message is one of Inspect's chat messages, and every tool call of the assistant's messages names its
    function (a message of another role, or a call that names nothing, could hide a question the mapping would
    not see: refused, not passed over)."""
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or m.get("role") not in ROLES:
            got = m.get("role") if isinstance(m, dict) else m
            raise RowError(f"messages[{i}].role", f"{where}: messages[{i}] must be a chat message whose role is one of"
                                                  f" {', '.join(ROLES)} (got {json.dumps(got, default=str)[:80]})")
    for m in messages:
        calls = m.get("tool_calls") if m.get("role") == "assistant" else None
        if calls is None:
            continue
        if not isinstance(calls, list):
            raise RowError("tool_calls", f"{where}: an assistant message's tool_calls must be a list (got {calls!r})")
        for call in calls:
            if not isinstance(call, dict) or not isinstance(call.get("function"), str) or not call["function"]:
                raise RowError("tool_calls", f"{where}: a tool call must name its function (got {call!r:.200})")


def _ask_calls(messages: list, names: tuple[str, ...]
               ) -> tuple[list[str], list[str | None], list[int], list[list[int | None]]]:
    """Each call of the ask tool: its text, the tool's answer, the model's turn (0-based) that made it, and where
    it is in ``messages`` (the message, the call in its ``tool_calls``, the tool message whose answer it got)."""
    ids: list[str] = []
    texts: list[str] = []
    turns: list[int] = []
    places: list[tuple[int, int]] = []
    answers: dict[str, tuple[str | None, int]] = {}
    turn = -1
    for k, m in enumerate(messages):
        role = m.get("role")
        if role == "assistant":
            turn += 1
            for j, call in enumerate(m.get("tool_calls") or []):
                if isinstance(call, dict) and call.get("function") in names:
                    ids.append(str(call.get("id")))
                    texts.append(_question_text(call.get("arguments")))
                    turns.append(turn)
                    places.append((k, j))
        elif role == "tool" and m.get("tool_call_id") is not None:
            answers[str(m["tool_call_id"])] = (_text(m.get("content")), k)  # the last answer of an id counts
    got = [answers.get(i, (None, None)) for i in ids]
    return texts, [a for a, _ in got], turns, [[k, j, at] for (k, j), (_, at) in zip(places, got)]


def _question_text(arguments: Any) -> str:
    """The question a call asks: its first string argument (``question``, ``message``, ... first)."""
    if isinstance(arguments, dict):
        for key in (*TEXT_ARGUMENTS, *arguments):
            value = arguments.get(key)
            if isinstance(value, str) and value.strip():
                return value
        return json.dumps(arguments, ensure_ascii=False, sort_keys=True, default=str) if arguments else "(no arguments)"
    return str(arguments)


def _attribution(calls: list[str], responses: list[str | None], scores: Mapping[str, Any], chosen: str | None,
                 where: str) -> list[str | None] | None:
    """The blocker each question resolved: the tool result's JSON ``blocker`` field, else a scorer's metadata
    list ``asked_blockers`` aligned with the calls; None when the log says neither."""
    if not calls:
        return []
    listed = None
    for name in sorted(scores, key=lambda n: n != chosen):  # the chosen scorer's list first
        md = scores[name].get("metadata")
        if isinstance(md, dict) and "asked_blockers" in md:
            listed = md["asked_blockers"]
            if not isinstance(listed, list) or len(listed) != len(calls):
                n = len(listed) if isinstance(listed, list) else type(listed).__name__
                raise RowError("asked_blockers", f"{where}: scorer {name!r} metadata 'asked_blockers' must list one"
                               f" blocker (or null) per call of the ask tool: {len(calls)} call(s), found {n}")
            break
    out: list[str | None] = []
    said_any = listed is not None
    for i, response in enumerate(responses):
        from_tool = _tool_blocker(response)
        if from_tool is not _UNSAID:
            said_any = True
            out.append(from_tool)
        else:  # a call the tool answered without JSON, or never answered (a limit stopped the sample)
            out.append(None if listed is None or listed[i] is None else str(listed[i]))
    # where the tool's answers name blockers, a call whose answer names none resolved none
    return out if said_any else None


_UNSAID: Any = object()


def _tool_blocker(response: str | None) -> Any:
    """The ``blocker`` field of a tool result that is a JSON object, else _UNSAID."""
    if not response or not response.lstrip().startswith("{"):
        return _UNSAID
    try:
        value = json.loads(response)
    except ValueError:
        return _UNSAID
    if not isinstance(value, dict) or "blocker" not in value:
        return _UNSAID
    b = value["blocker"]
    return None if b is None or b == "" else str(b)


def _score(value: Any, name: str, where: str) -> tuple[float, bool]:
    if isinstance(value, str) and value in SCORE_VALUES:
        return SCORE_VALUES[value]
    if isinstance(value, bool):
        return float(value), value
    if isinstance(value, (int, float)) and 0 <= value <= 1:
        return float(value), value == 1
    raise RowError("score", f"{where}: scorer {name!r} value must be C, I, P, N, true/false or a number in [0, 1]"
                   f" (got {value!r}); choose the scorer with scorer=")


def _labels(scores: Mapping[str, Any], chosen: str | None, facets: Mapping[str, str]
            ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Judge labels from every other scorer whose value is a category (or a dict of them); the rest's values."""
    labels: list[dict[str, Any]] = []
    other: dict[str, Any] = {}
    for name, s in scores.items():
        if name == chosen:
            continue
        facet, value = facets.get(name, name), s.get("value")
        if isinstance(value, str) and value:
            labels.append({"facet": facet, "label": value, "judge": name})
        elif isinstance(value, dict) and value and all(isinstance(v, str) and v for v in value.values()):
            labels += [{"facet": f"{facet}.{k}", "label": v, "judge": name} for k, v in value.items()]
        else:
            other[name] = value
    return labels, other


def _number(value: Any, name: str, where: str) -> float | int:
    """A count or time the log gives: a number (not a boolean, not text, not an object), else a RowError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RowError(name, f"{where}: {name} must be a number (got {value!r})")
    return value


def _usage(sample: Mapping[str, Any], run: dict[str, Any], note: dict[str, Any]) -> None:
    where = f"sample {sample.get('id')!r} epoch {sample.get('epoch')}"
    model_usage = sample.get("model_usage") or {}
    if not isinstance(model_usage, dict):
        raise RowError("model_usage", f"{where}: model_usage must be an object per model (got {model_usage!r})")
    usage = [(m, u) for m, u in model_usage.items() if u is not None]
    for model, u in usage:
        if not isinstance(u, dict):
            raise RowError("model_usage", f"{where}: model_usage[{model!r}] must be an object (got {u!r})")
    if usage:
        for field in ("input_tokens", "output_tokens"):
            total = sum(_number(u[field], field, where) for _, u in usage if u.get(field) is not None)
            run["tokens_in" if field == "input_tokens" else "tokens_out"] = total
        costs = [_number(u["total_cost"], "total_cost", where) for _, u in usage if u.get("total_cost") is not None]
        if costs:
            run["cost_usd"] = sum(costs)
    if sample.get("working_time") is not None:
        run["duration_s"] = float(_number(sample["working_time"], "working_time", where))
    if sample.get("total_time") is not None:
        note["inspect"]["total_time"] = float(_number(sample["total_time"], "total_time", where))


def _task(meta: Mapping[str, Any], where: str, benchmark: str, suite: str, task_id: str, variant_id: str
          ) -> dict[str, Any] | None:
    """The sample's task record (None when its metadata names no blockers: they are unknown)."""
    if "blockers" not in meta:
        return None
    raw = meta["blockers"]
    if not isinstance(raw, list):
        raise RowError("blockers", f"{where}: metadata 'blockers' must be a list of ids or of {{id, type, subtype}}"
                       f" (got {type(raw).__name__})")
    blockers = []
    for i, b in enumerate(raw):
        if isinstance(b, str) and b:
            blockers.append({"id": b})
        elif isinstance(b, dict) and isinstance(b.get("id"), str) and b["id"]:
            blockers.append({k: b[k] for k in ("id", "type", "subtype") if b.get(k) is not None})
        else:
            raise RowError(f"blockers[{i}]", f"{where}: metadata blockers[{i}] must be an id or an object with an"
                           f" 'id' (got {b!r})")
    task = {"record": "task", "benchmark": benchmark, "suite": suite, "task_id": task_id, "variant_id": variant_id,
            "blockers": blockers}
    task.update({k: meta[k] for k in TASK_FIELDS if meta.get(k) is not None})
    return task


def _add_task(task: dict[str, Any], file: Path, line: int, where: str, out: Collected,
              tasks: dict[tuple[str, str, str], tuple[dict[str, Any], str]]) -> None:
    """One task record per task: the first sample's; a later sample that describes it otherwise is an error."""
    key = (task["benchmark"], task["suite"], task["variant_id"])
    if key not in tasks:
        tasks[key] = (task, f"{file} {where}")
        out.add(file, line, task)
    elif tasks[key][0] != task:
        raise RowError("blockers", f"{where}: metadata describes task {task['variant_id']!r} otherwise than"
                       f" {tasks[key][1]} does (blockers {task['blockers']} vs {tasks[key][0]['blockers']}). If the"
                       " two are different versions of the task (each spec registering its own blockers), give each"
                       " its own metadata 'variant_id'; if they are one task, register the same blockers in both")


def mapping_warnings(rs: RunSet, ask_tools: Iterable[str] | None = None, *, evals: bool = True) -> list[str]:
    """What ``ambiglib validate`` says about how Inspect logs were mapped (:func:`mapping_warnings_of` of each run's
    meta and model)."""
    from ambiglib.runset import shared_metas

    runs = rs.runs
    return mapping_warnings_of(zip(shared_metas(runs), runs["model"].astype(object), itertools.repeat(1)), ask_tools,
                               evals=evals)


def mapping_warnings_of(metas: Iterable[tuple[Any, Any, int]], ask_tools: Iterable[str] | None = None, *,
                        evals: bool = True) -> list[str]:
    """What ``ambiglib validate`` says about how Inspect logs were mapped, from ``(meta, model, runs)``: each
    distinct run meta and model with how many runs have it (an engine's count of a store, or 1 a run).

    * a tool the samples called whose name looks like asking (ask, clarif, question, user, human) but is not
      one of the ask tools: its calls are no questions;
    * an eval whose plan does not name the ask tool but whose samples called it (a custom solver's
      ``state.tools``): every sample of it counted as run with the tool (unless ``evals`` is False).
    """
    names = tuple(ask_tools) if ask_tools is not None else ASK_TOOLS
    out: list[str] = []
    looks: dict[str, list] = {}
    inferred: dict[str, tuple[str, int]] = {}
    for meta, model, runs in metas:
        info = meta.get("inspect") if isinstance(meta, dict) else None
        if not isinstance(info, dict):
            continue
        for name, n in (info.get("tools_called") or {}).items():
            if name not in names and any(w in name.lower() for w in ASK_LIKE):
                entry = looks.setdefault(name, [0, 0, set()])
                entry[0] += runs
                entry[1] += int(n) * runs
                entry[2].add(str(model))
        if info.get("ask_tool_from"):
            eval_id = str(info.get("eval_id"))
            inferred[eval_id] = (f"{model}: {info['ask_tool_from']}", inferred.get(eval_id, ("", 0))[1] + runs)
    for name, (n_runs, n_calls, models) in sorted(looks.items()):
        out.append(f"tool {name!r} was called {n_calls} time(s) in {n_runs} run(s) ({', '.join(sorted(models)[:3])})"
                   f" and looks like an ask tool, but the mapping's ask tools are {', '.join(names)}: its calls are"
                   f" not questions. If it asks the user, name it: ambiglib.load(..., ask_tools=[{name!r}]),"
                   f" --ask-tool {name}, or the report parameter ask_tools")
    for eval_id, (what, n) in sorted(inferred.items()) if evals else ():
        out.append(f"eval {eval_id} ({n} runs): the ask tool was {what.split(': ', 1)[1]} ({what.split(': ', 1)[0]})")
    return out


def read_transcript(at: dict[str, Any], run: dict[str, Any]) -> dict[str, Any]:
    """A run's conversation: its sample's ``messages``, read again alone from the log (:func:`read_sample`).

    Each system, user and tool message is a turn; an assistant message is a turn of its text (unless it only
    calls tools), then one turn per tool call (``tool_name`` its function, ``tool_args`` its arguments). Content
    given as parts keeps its text parts, one a line, and names the others (``[image]``, ``[reasoning]``, ...); a
    tool message's error is said after its text. The ask tool's calls are marked ``q_index`` and the tool
    messages that answered them ``answers``, at the places the import found them (the locator's ``asks``). A
    sample whose log holds no messages gives no turns, and a note that says so. A log that no longer holds the
    sample as it was loaded is a FormatError."""
    file = Path(at["file"])
    where = f"{file} (sample {at.get('sample')!r}, epoch {at.get('epoch')})"
    sample = read_sample(file, at)
    if str(sample.get("id")) != str(at.get("sample")) or sample.get("epoch") != at.get("epoch"):
        raise FormatError(f"{where}: the log's sample there is now {sample.get('id')!r} epoch {sample.get('epoch')!r}"
                          " (the log changed since it was loaded: load it again)")
    messages = sample.get("messages")
    messages = [] if messages is None else messages
    if not isinstance(messages, list) or len(messages) != at.get("messages"):
        got = len(messages) if isinstance(messages, list) else type(messages).__name__
        raise FormatError(f"{where}: the sample holds {got} messages, not the {at.get('messages')} it held when the"
                          " log was loaded (it changed: load it again)")
    return _conversation(messages, at, where)


def _conversation(messages: list, at: dict[str, Any], where: str) -> dict[str, Any]:
    """The transcript of a sample's ``messages`` (:func:`read_transcript`), the ask tool's calls at the locator's
    ``asks``: what a read of the transcript returns, and what the load builds, checks and drops."""
    asks: dict[tuple[int, int], int] = {}
    answered: dict[int, int] = {}
    for i, (k, j, answer) in enumerate(at.get("asks") or []):
        asks[(k, j)] = i
        if answer is not None:
            answered.setdefault(answer, i)  # a tool message two calls of one id got: the first question's
    turns: list[dict[str, Any]] = []
    for k, m in enumerate(messages):
        said = f"{where}: messages[{k}]"
        if not isinstance(m, dict) or m.get("role") not in ROLES:
            raise FormatError(f"{said} is not one of Inspect's chat messages ({', '.join(ROLES)})")
        role, text = m["role"], _content(m.get("content"), said)
        if role == "assistant":
            calls = m.get("tool_calls") or []
            if not isinstance(calls, list):
                raise FormatError(f"{said}: tool_calls must be a list")
            if text or not calls:
                turns.append({"role": role, "content": text})
            for j, call in enumerate(calls):
                args = call.get("arguments") if isinstance(call, dict) else None
                if not isinstance(call, dict) or not isinstance(call.get("function"), str) or not call["function"] \
                        or not isinstance(args, dict):
                    raise FormatError(f"{said}.tool_calls[{j}] must name its function and give its arguments as an"
                                      f" object (got {json.dumps(call, default=str)[:120]})")
                turns.append({"role": role, "content": None, "tool_name": call["function"], "tool_args": args,
                              "q_index": asks.pop((k, j), None)})
        elif role == "tool":
            error = m.get("error")
            if isinstance(error, dict) and error.get("message"):
                text = f"{text}\n[error: {error['message']}]" if text else f"[error: {error['message']}]"
            name = m.get("function")
            turns.append({"role": role, "content": text, "tool_name": name if isinstance(name, str) and name else None,
                          "answers": answered.get(k)})
        else:
            turns.append({"role": role, "content": text})
    if asks:  # a question the import found at a place that holds no tool call now
        raise FormatError(f"{where}: messages[{min(asks)[0]}] no longer holds the ask tool call the log was loaded"
                          " with (it changed: load it again)")
    # an empty conversation the log says it had, not a log that keeps none: a transcript of no turns, and why
    note = None if messages else "the sample's log holds no messages"
    return {"covers": "conversation", "turns": turns, "note": note}


def _content(value: Any, said: str) -> str | None:
    """A message's content as text: a string as it is; of a list of parts, the text parts one a line (as
    ``_text`` gives the questions' responses) and every other part named by its type (``[image]``)."""
    if value is None or isinstance(value, str):
        return value
    if not isinstance(value, list):
        raise FormatError(f"{said}: content must be a string or a list of content parts (got"
                          f" {type(value).__name__})")
    out = []
    for part in value:
        kind = part.get("type") if isinstance(part, dict) else None
        if not isinstance(kind, str) or not kind:
            raise FormatError(f"{said}: a content part must be an object with a 'type' (got"
                              f" {json.dumps(part, default=str)[:80]})")
        out.append(str(part.get("text") or "") if kind == "text" else f"[{kind}]")
    return "\n".join(out)


def _read(path: Path, options: ReadOptions, files: list[Path] | None = None) -> tuple[RunSet, list[LoadError]]:
    return read_inspect(path, strict=False, files=files, **options.inspect)


READER = Reader(
    "inspect", "Inspect AI evaluation logs: .eval files, or .json logs of Inspect, here or in folders below"
    " (one run per sample and epoch; needs the inspect-ai package: pip install 'ambiglib[inspect]')",
    _read, is_file=is_inspect_log, detect=lambda path: bool(inspect_logs(path)),
    transcripts={"inspect": read_transcript})
