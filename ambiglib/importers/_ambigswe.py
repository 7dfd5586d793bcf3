"""Ambig-SWE (Vijayvargiya et al., ICLR 2026; ``sani903/InteractiveSWEAgents``): the per-instance files its
``experiments/`` folder publishes, as a run log.

- ``test_interactivity/<model>_interactivity_results_<level>.json``: ask-only runs, one per instance and prompt
  level (``high``/``med``/``low`` encouragement to interact), on the full issue (``gold`` 0) or its summary
  (``gold`` 1); ``output`` 1 is a question whose words the file does not keep.
- ``extracted_qa_pairs/<model>_qa_pairs.json``: the interaction-setting runs, the agent's messages to the
  simulated user and its answers;
- ``llm_as_judge/<model>_gpt4o_evaluation_results[_strict].csv``: GPT-4o's 1–5 "new information" score of
  each message and answer, a label on its question;
- ``file_resolve_rates/<model>_file_analysis.csv``: ``resolved`` in the interaction setting, and whether the
  answers named a gold file (a label of the run).

The mapping, field by field, and what the harness's files do that ours do not, are in ``docs/importers.md``
(Ambig-SWE).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Literal, overload

from ambiglib.errors import FormatError, LoadError
from ambiglib.importers._common import Collected, RowError, finish, guard, present, read_csv, read_json
from ambiglib.importers._reader import Reader, ReadOptions
from ambiglib.runlog._files import is_dir, is_file, listdir, walk
from ambiglib.runlog._jsonl import TRANSCRIPT_AT
from ambiglib.runset import RunSet

__all__ = ["read_ambigswe", "is_ambigswe_layout", "count_parts"]

BENCHMARK = "ambig-swe"
SUITE = "swe-bench-verified"
#: the prompt levels of ``test_interactivity.sh``, as the files name them, and the policy each becomes
LEVELS = {"high": "high", "med": "medium", "low": "low"}
#: the four folders read, and the pattern of the files in each (the model is the name's first part)
FOLDERS = {
    "test_interactivity": re.compile(r"^(?P<model>.+)_interactivity_results_(?P<level>high|med|low)\.json$"),
    "extracted_qa_pairs": re.compile(r"^(?P<model>.+)_qa_pairs\.json$"),
    "llm_as_judge": re.compile(r"^(?P<model>.+)_(?P<judge>gpt4o)_evaluation_results(?P<strict>_strict)?\.csv$"),
    "file_resolve_rates": re.compile(r"^(?P<model>.+)_file_analysis\.csv$"),
}
#: why a run has no transcript: the published files keep no conversation, only what each setting measured
NO_CONVERSATION_ASK = ("Ambig-SWE's test_interactivity/ files keep only whether the agent's first turn asked (output 0"
                       " or 1), none of its words or turns; the OpenHands trajectories were not published")
NO_CONVERSATION_QA = ("Ambig-SWE's extracted_qa_pairs/ keep only the agent's messages to the simulated user and its"
                      " answers (the run's questions), not the OpenHands trajectories they were extracted from, which"
                      " were not published")
#: the label facets this importer writes
NEW_INFORMATION = "ambig-swe.new_information"
NAMES_GOLD_FILES = "ambig-swe.answers_name_gold_files"
#: a question mark that ends a question: followed by a space, a line's end, or closing punctuation (not ``?a=1``)
_QUESTION_MARK = re.compile(r"\?+(?=[\s\"')\]*_`]|$)")
#: ``json.dump(indent=2)``'s line for a key of the top-level object, and a list entry's ``instance_id``
_TOP_KEY = re.compile(r'^  "((?:[^"\\]|\\.)*)": \{')
_ENTRY_ID = re.compile(r'^\s*"instance_id": "((?:[^"\\]|\\.)*)"')


def count_parts(text: str) -> int:
    """How many questions one message holds: its question marks that end a question, at least 1 (a message to
    the user with none still asks one thing: the user answered it)."""
    return max(1, len(_QUESTION_MARK.findall(text)))


def is_ambigswe_layout(path: Path) -> bool:
    """A folder holding at least one of Ambig-SWE's result files in its own sub-folder (``experiments/``)."""
    if not is_dir(path):
        return False
    for folder, pattern in FOLDERS.items():
        sub = path / folder
        if is_dir(sub) and any(pattern.match(p.name) and is_file(p) for p in listdir(sub)):
            return True
    return False


def _lines(file: Path, pattern: re.Pattern[str]) -> dict[str, list[int]]:
    """The lines of each instance id as the harness's ``json.dump(indent=2)`` wrote it, in file order (an id
    written twice has two: each occurrence is named at its own line)."""
    out: dict[str, list[int]] = {}
    with open(file, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            m = pattern.match(line)
            if m:
                out.setdefault(json.loads(f'"{m.group(1)}"'), []).append(n)
    return out


def _files(root: Path, folder: str) -> list[tuple[Path, re.Match[str]]]:
    sub = root / folder
    if not is_dir(sub):
        return []
    return [(p, m) for p in listdir(sub) if (m := FOLDERS[folder].match(p.name)) and present(p)]


# strict returns the run set alone, lenient (strict=False) the run set and its errors
@overload
def read_ambigswe(path: str | os.PathLike[str], *, strict: Literal[True] = True) -> RunSet: ...
@overload
def read_ambigswe(path: str | os.PathLike[str], *, strict: Literal[False]) -> tuple[RunSet, list[LoadError]]: ...
@overload
def read_ambigswe(path: str | os.PathLike[str], *, strict: bool) -> RunSet | tuple[RunSet, list[LoadError]]: ...
@guard("Ambig-SWE results")
def read_ambigswe(path: str | os.PathLike[str], *, strict: bool = True) -> RunSet | tuple[RunSet, list[LoadError]]:
    """Read Ambig-SWE's ``experiments/`` folder: ask-only runs per model and prompt level, and the interaction
    setting's runs with their questions, answers, judge scores and ``resolved`` (``docs/importers.md``).

    Parameters
    ----------
    path : the ``experiments/`` folder (or a copy holding any of its four result folders)
    strict : raise the first problem (default), else return ``(runset, errors)``
    """
    root = Path(path)
    if not is_ambigswe_layout(root):
        raise FormatError(f"{root}: no Ambig-SWE results (test_interactivity/, extracted_qa_pairs/, llm_as_judge/ or"
                          " file_resolve_rates/ holding <model>_... files) found")
    out = Collected("Ambig-SWE")
    found = {folder: _files(root, folder) for folder in FOLDERS}
    for file, m in found["test_interactivity"]:
        _ask_detection(out, file, m.group("model"), LEVELS[m.group("level")])
    judged: dict[str, list[tuple[Path, re.Match[str]]]] = {}
    for file, m in found["llm_as_judge"]:  # a model's plain and _strict files are two judges: both are read
        judged.setdefault(m.group("model"), []).append((file, m))
    resolved = {m.group("model"): file for file, m in found["file_resolve_rates"]}
    interaction = {m.group("model"): file for file, m in found["extracted_qa_pairs"]}
    orphans = [(m, f) for m, files in judged.items() for f, _ in files if m not in interaction] + \
        [(m, f) for m, f in resolved.items() if m not in interaction]
    for model, file in sorted(orphans):
        out.reject(file, None, None, f"results for model {model!r} but no extracted_qa_pairs/{model}_qa_pairs.json:"
                                     " the interaction runs they are about are not there")
    for model, file in sorted(interaction.items()):
        _interaction(out, file, model, judged.get(model, []), resolved.get(model))
    read = {p for files in found.values() for p, _ in files}
    strays = [p for p, why in walk(root) if why is None and p not in read]
    if strays:
        out.skip(f"file of Ambig-SWE's experiments/ no result file the importer reads (scripts, cosine_distance/"
                 f" embedding distances, figures; first: {strays[0].relative_to(root)})", len(strays))
    return finish(out, root, strict=strict)


def _ask_detection(out: Collected, file: Path, model: str, policy: str) -> None:
    """``update_instance_results``' file: ``{instance: {"output": 0|1|null, "gold": 0|1|null}}``."""
    data = read_json(file)
    if not isinstance(data, dict):
        out.reject(file, 1, None, f"expected an object of instances, found {type(data).__name__}")
        return
    lines = _lines(file, _TOP_KEY)
    for i, (instance, values) in enumerate(data.items(), 1):
        line = lines.get(instance, [i])[0]  # an object names each instance once (read_json refuses a key twice)
        with out.row(file, line, f"instance {instance!r}"):
            if not isinstance(values, dict) or set(values) != {"output", "gold"}:
                raise RowError(None, f"instance {instance!r}: expected {{\"output\": 0|1|null, \"gold\": 0|1|null}}"
                                     f" (got {values!r:.200})")
            for name in ("output", "gold"):
                if values[name] not in (0, 1, None) or isinstance(values[name], bool):
                    raise RowError(name, f"instance {instance!r}: '{name}' must be 0, 1 or null (got {values[name]!r})")
            if values["gold"] is None:  # the harness lost which issue it gave: no condition, no run
                out.skip("ask-detection instance whose 'gold' the harness lost (null: parallel workers rewrote"
                         " interactivity_results.json), so whether it saw the full issue or the summary is unknown")
                continue
            run: dict[str, Any] = {
                "record": "run", "benchmark": BENCHMARK, "suite": SUITE, "task_id": instance, "model": model,
                "spec": "ambiguous" if values["gold"] == 1 else "full", "ask_tool": True, "policy": policy,
                "protocol": "ask_only",
                "meta": {"ambig_swe": {"file": f"test_interactivity/{file.name}", "output": values["output"],
                                       "gold": values["gold"]}},
            }
            if values["output"] is None:
                run["status"] = "error"
                run["meta"]["error_reason"] = ("the harness lost this run's ask outcome ('output': null: parallel"
                                               " workers rewrote interactivity_results.json)")
            elif values["output"] == 1:
                run["questions"] = [{"text": None}]  # fake_user_response saw a message; the file keeps no words
            run[TRANSCRIPT_AT] = {"none": NO_CONVERSATION_ASK}
            out.add(file, line, run)


def _interaction(out: Collected, file: Path, model: str, judged: list[tuple[Path, re.Match[str]]],
                 resolved_file: Path | None) -> None:
    entries = read_json(file)
    if not isinstance(entries, list):
        out.reject(file, 1, None, f"expected a list of {{instance_id, qa_pairs}}, found {type(entries).__name__}")
        return
    lines = _lines(file, _ENTRY_ID)
    runs: dict[str, tuple[int, dict[str, Any]]] = {}
    occurrences: dict[str, int] = {}  # entries of each instance id seen so far: the next one is at its next line
    for i, entry in enumerate(entries, 1):
        instance = entry.get("instance_id") if isinstance(entry, dict) else None
        line = i
        if isinstance(instance, str):
            k = occurrences[instance] = occurrences.get(instance, 0) + 1
            at = lines.get(instance, [])
            line = at[k - 1] if k <= len(at) else i
        with out.row(file, line, f"entry {i}"):
            run = _interaction_run(entry, i, model, file)
            if run["task_id"] in runs:
                raise RowError("instance_id", f"entry {i}: instance {run['task_id']!r} again (first: line"
                                              f" {runs[run['task_id']][0]}); which one counts is not defined")
            runs[run["task_id"]] = (line, run)
    for judge_file in judged:
        _judge_labels(out, judge_file, model, runs)
    if resolved_file is not None:
        _resolved(out, resolved_file, runs)
    for line, run in runs.values():
        out.add(file, line, run)


def _interaction_run(entry: Any, i: int, model: str, file: Path) -> dict[str, Any]:
    if not isinstance(entry, dict) or set(entry) != {"instance_id", "qa_pairs"}:
        raise RowError(None, f"entry {i}: expected {{\"instance_id\", \"qa_pairs\"}} (got {entry!r:.200})")
    instance, pairs = entry["instance_id"], entry["qa_pairs"]
    if not isinstance(instance, str) or not instance:
        raise RowError("instance_id", f"entry {i}: 'instance_id' must be a non-empty string (got {instance!r:.100})")
    if not isinstance(pairs, list):
        raise RowError("qa_pairs", f"entry {i}: 'qa_pairs' must be a list of [question, answer] (got {pairs!r:.100})")
    questions = []
    for j, pair in enumerate(pairs):
        if (not isinstance(pair, list) or len(pair) != 2 or not all(isinstance(x, str) for x in pair)
                or not pair[0].strip()):
            raise RowError("qa_pairs", f"entry {i}: qa_pairs[{j}] must be [the agent's message, the answer], the"
                                       f" message not blank (got {pair!r:.200})")
        questions.append({"text": pair[0], "response": pair[1], "step": None, "attributed": False,
                          "parts": count_parts(pair[0])})
    return {"record": "run", "benchmark": BENCHMARK, "suite": SUITE, "task_id": instance, "model": model,
            "spec": "ambiguous", "ask_tool": True, "questions": questions, "labels": [],
            "meta": {"ambig_swe": {"file": f"extracted_qa_pairs/{file.name}"}},
            TRANSCRIPT_AT: {"none": NO_CONVERSATION_QA}}


def _score(cell: str, where: str) -> str | None:
    """The judge's 1–5 score as written: ``4`` or pandas' ``4.0`` (a column with an empty cell is float); empty
    when ``evaluate_answer`` found no score in the reply (it returned None)."""
    text = cell.strip()
    if text == "":
        return None
    m = re.fullmatch(r"([1-5])(?:\.0)?", text)
    if not m:
        raise RowError("new_information_score", f"{where}: 'new_information_score' must be 1 to 5 or empty (got"
                                                f" {cell!r})")
    return m.group(1)


def _newlines(text: str) -> str:
    """Text with ``\\n`` line ends: the published CSVs hold ``\\r\\n`` where the qa_pairs JSON has ``\\n`` (and
    once the other way round); the pairs are matched on this, nothing else may differ."""
    return text.replace("\r\n", "\n")


def _judge_labels(out: Collected, judged: tuple[Path, re.Match[str]], model: str,
                  runs: dict[str, tuple[int, dict[str, Any]]]) -> None:
    """Each row judges one (message, answer) of an instance: its label goes on that question, found by its words
    (rows repeat the pair's text, ``\\r\\n`` for ``\\n``; a pair asked twice is matched in order)."""
    file, m = judged
    judge = "gpt-4o" + ("-strict" if m.group("strict") else "")
    taken: dict[str, set[int]] = {}
    for line, row in read_csv(file, ("instance_id", "question", "answer", "new_information_score")):
        with out.row(file, line, "this judge row"):
            where = f"instance {row['instance_id']!r}"
            if row["instance_id"] not in runs:
                raise RowError("instance_id", f"{where}: judged, but extracted_qa_pairs has no such instance")
            run = runs[row["instance_id"]][1]
            used = taken.setdefault(row["instance_id"], set())
            text, answer = _newlines(row["question"]), _newlines(row["answer"])
            q = next((j for j, q in enumerate(run["questions"])
                      if j not in used and _newlines(q["text"]) == text and _newlines(q["response"]) == answer), None)
            if q is None:
                raise RowError("question", f"{where}: this row's question and answer are not among the instance's"
                                           " qa_pairs (or were judged already)")
            used.add(q)
            score = _score(row["new_information_score"], where)
            if score is None:
                out.skip(f"judge row with no score (llm_judge.py found no <score> in GPT-4o's reply and wrote an"
                         f" empty cell): its question is unjudged ({file.name})")
                continue
            run["labels"].append({"facet": NEW_INFORMATION, "label": score, "judge": judge, "q_index": q})


def _resolved(out: Collected, file: Path, runs: dict[str, tuple[int, dict[str, Any]]]) -> None:
    """``file_analysis.py``'s CSV: ``resolved`` is the SWE-bench report's ``True`` or the script's default ``0``
    (``resolved_map.get(id, 0)``), written as text; ``file_match_count`` 1 when an answer named a gold file;
    ``merged_answer`` the instance's answers joined by spaces, checked against the qa pairs (a row that is
    not its instance's is refused, not read as its verdict)."""
    seen: dict[str, int] = {}
    for line, row in read_csv(file, ("instance_id", "merged_answer", "file_match_count", "resolved")):
        with out.row(file, line, "this row"):
            instance = row["instance_id"]
            if instance not in runs:
                raise RowError("instance_id", f"instance {instance!r}: analysed, but extracted_qa_pairs has no such"
                                              " instance")
            if instance in seen:
                raise RowError("instance_id", f"instance {instance!r} again (first: line {seen[instance]})")
            seen[instance] = line
            run = runs[instance][1]
            if _newlines(row["merged_answer"]) != _newlines(" ".join(q["response"] for q in run["questions"])):
                raise RowError("merged_answer", f"instance {instance!r}: 'merged_answer' is not the instance's answers"
                                                " joined (file_analysis.py writes ' '.join of them): the row is"
                                                " damaged or belongs to other qa_pairs")
            verdict = {"True": True, "1": True, "False": False, "0": False}.get(row["resolved"].strip())
            if verdict is None:
                raise RowError("resolved", f"instance {instance!r}: 'resolved' must be True, False, 1 or 0 (got"
                                           f" {row['resolved']!r})")
            match = row["file_match_count"].strip()
            if match not in ("0", "1"):
                raise RowError("file_match_count", f"instance {instance!r}: 'file_match_count' must be 0 or 1 (got"
                                                   f" {row['file_match_count']!r})")
            run["passed"], run["score"] = verdict, 1.0 if verdict else 0.0
            run["labels"].append({"facet": NAMES_GOLD_FILES, "label": "yes" if match == "1" else "no",
                                  "judge": "file_analysis.py"})
            run["meta"]["ambig_swe"]["resolved_written"] = row["resolved"]
    for _line, run in runs.values():
        if run["task_id"] not in seen:
            run["meta"]["why_no_verdict"] = (f"not in {file.name}: file_analysis.py analyses only instances whose gold"
                                             " files full_summaries_verified.xlsx lists")



def _read(path: Path, options: ReadOptions, files: list[Path] | None = None) -> tuple[RunSet, list[LoadError]]:
    return read_ambigswe(path, strict=False)


READER = Reader(
    "ambig-swe", "Ambig-SWE's experiments/ folder (sani903/InteractiveSWEAgents): test_interactivity/,"
    " extracted_qa_pairs/, llm_as_judge/ and file_resolve_rates/ files named <model>_...",
    _read, claims=is_ambigswe_layout)
