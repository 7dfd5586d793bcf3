"""What is behind a number: the runs, questions and judge labels a row of a table was computed from.

``table.evidence(row)`` (any table a function of :mod:`ambiglib.tables`, :mod:`ambiglib.answers._headline` or
:mod:`ambiglib.comparisons` returned) gives an :class:`Evidence`: the row's runs (each with where the log
holds it: ``source``, and for an Inspect AI log its sample and epoch), their questions (text, the answer,
the blocker it addressed, relevant or not) and their judge labels. The report writes one page of it for
every row of its opening tables (:func:`write_evidence_pages`) from templates with autoescape
(``evidence_*.html``), every text escaped.

Which runs are behind a row is read from the row itself: its columns that are columns of the runs
(``benchmark``, ``suite``, ``model``, ``policy``, ``spec``, ``ask_tool``, ``protocol``, ``task_id``, ...)
must match, and the table's scope (``attrs["scope"]``: the conditions its function fixes, e.g. ambiguous
tasks with the ask tool for Ask-F1) narrows them. A row's ``policy`` is that of its with-tool runs: the
runs without the tool it was compared against are those of the default policy (the library's rule,
:func:`ambiglib.metrics.value_of_information`). A comparison row (``model_a``, ``model_b``) has the runs of
both sides, ``side`` saying which. Error runs are listed too (the metrics leave them out: ``status``).

The rows a reader wants come first: for a row about precision (its columns, or a comparison's ``metric``) the
irrelevant questions, for one about recall the runs that missed a registered blocker (``missed`` names which),
Ask-F1 both; else by task, trial and question. Ties keep that order, so the order is the same on every call;
the page and the notebook say it. In a notebook an :class:`Evidence` shows each frame's first
:data:`NOTEBOOK_ROWS` rows and how many more (the attribute, ``.questions``, has every one), as pandas shows a
long frame.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ambiglib._markup import Markup, render, stylesheet
from ambiglib._text import BRIEF_CHARS, SHOWN_CHARS, SHOWN_ROWS, visible
from ambiglib._text import cut as cut_text  # (a page's "cut" is the rows it leaves out: _Cut)
from ambiglib.errors import FormatError
from ambiglib.evidence._dialogues import STYLE as DIALOGUE_STYLE
from ambiglib.evidence._dialogues import TranscriptCache, _Listed, _Table, dialogue_html, run_page, run_page_name
from ambiglib.runset import RunSet, arrow_of, shared_metas

__all__ = ["Evidence", "evidence", "write_evidence_pages", "RUN_COLUMNS", "QUESTION_COLUMNS"]

#: the columns of a row that select runs
_KEYS = ("benchmark", "suite", "task_id", "variant_id", "model", "policy", "spec", "ask_tool", "protocol", "trial", "log")
#: what an evidence page shows of each run, question and label
RUN_COLUMNS = ["side", "run_id", "suite", "task_id", "variant_id", "model", "policy", "spec", "ask_tool", "protocol",
               "trial", "log", "status", "score", "passed", "n_questions", "where"]
QUESTION_COLUMNS = ["side", "run_id", "task_id", "trial", "q_index", "text", "response", "blocker_id", "relevant"]
LABEL_COLUMNS = ["side", "run_id", "task_id", "facet", "label", "judge"]
#: rows a notebook shows of each frame of an Evidence: the first ones, then how many more (as pandas does)
NOTEBOOK_ROWS = 10
#: characters of a cell a text repr shows (pandas' ``display.max_colwidth`` is 50)
REPR_CHARS = 60


@dataclass
class Evidence:
    """The runs, questions and judge labels behind one row of a table."""

    row: dict
    runs: pd.DataFrame
    questions: pd.DataFrame
    labels: pd.DataFrame
    scope: str
    #: the run set the runs are of (to read their transcripts)
    rs: RunSet | None = field(default=None, repr=False, compare=False)
    #: how :attr:`questions` and :attr:`runs` are ordered, in words (:class:`_Order`)
    order: _Order = field(default_factory=lambda: _order_of(False, False, False), repr=False, compare=False)

    def transcript(self, run: int | str) -> Any:
        """The whole transcript of a run of :attr:`runs` (its position, or its run id):
        :meth:`ambiglib.RunSet.transcript`."""
        from ambiglib.transcripts import transcript

        run_id = str(self.runs["run_id"].iloc[run]) if isinstance(run, (int, np.integer)) else run
        if self.rs is None:
            raise ValueError("this Evidence keeps no run set to read transcripts from")
        return transcript(self.rs, run_id)

    def dialogue(self, i: int) -> Any:
        """Question ``i`` of :attr:`questions` in its dialogue: the turns of its run's transcript from the two
        before the question to the agent's next turn after the answer, and the final answer (a
        :class:`ambiglib.transcripts.Transcript` of those rows; ``attrs["q_index"]`` the question)."""
        from ambiglib.evidence._dialogues import excerpt

        q = self.questions.iloc[i]
        whole = self.transcript(str(q["run_id"]))
        rows = excerpt(whole, int(q["q_index"]))
        out = whole.iloc[rows] if rows else whole.iloc[:0]
        out = type(whole)(out)
        out.attrs.update(whole.attrs, q_index=int(q["q_index"]), of=len(whole))
        if not rows and whole.attrs.get("covers") is not None:
            out.attrs["note"] = "the transcript marks no turn as this question"
        return out

    def __repr__(self) -> str:
        """The counts, then each frame's first :data:`NOTEBOOK_ROWS` rows (each cell its first
        :data:`REPR_CHARS` characters) and how many more: bounded, however many rows the evidence has."""
        head = (f"Evidence({cut_text(visible(self.scope), BRIEF_CHARS)}: {len(self.runs)} runs,"
                f" {len(self.questions)} questions, {len(self.labels)} labels)")
        parts = [head]
        for name, frame, order in (("questions", self.questions, self.order.questions),
                                   ("runs", self.runs, self.order.runs), ("labels", self.labels, "")):
            if len(frame):
                parts.append(_text_rows(frame.drop(columns="run_id"), name, order))
        return "\n".join(parts)

    def _repr_html_(self) -> str:
        """In a notebook: each frame's first :data:`NOTEBOOK_ROWS` rows, each text cell its first
        :data:`~ambiglib._text.BRIEF_CHARS` characters, then how many more rows and where every one is."""
        # a plain str (added to another, it is not escaped), a log's hidden characters shown as on a page
        return visible(str(_page_body(self, notebook=True)))


def evidence(table: pd.DataFrame, row: int | Mapping[str, Any] | pd.Series, rs: RunSet | None = None) -> Evidence:
    """Return the runs, questions and judge labels behind ``row`` of ``table``.

    Parameters
    ----------
    table : DataFrame
        A table of ambiglib's (it remembers the run set it was computed from), or any frame whose rows name
        run columns (then pass ``rs``).
    row : int, mapping or Series
        A row position (``table.iloc[row]``) or the row itself.
    rs : RunSet, optional
        The run set, for a frame that does not remember one.

    Raises
    ------
    ValueError
        The table remembers no run set and none is given, or ``row`` is out of range.
    """
    rs, values, scope, parts = _row_parts(table, row, rs)
    precision, recall = _focus(values)
    missed = _missed_first(rs) if recall else None
    frames: dict[str, list[pd.DataFrame]] = {"runs": [], "questions": [], "labels": []}
    shown = rs.memo(("evidence-columns",), lambda: _shown_columns(rs))  # a row's runs copy these columns alone
    for side, keep in parts:
        sub = shown.with_runs(keep)
        r = sub.runs.assign(side=side)
        if missed is not None:  # each run's missed blockers, by its row in the run set (else of its runs alone)
            at = r["_at"].to_numpy() if "_at" in r else None
            r = r.assign(missed=_missed_names(rs, at) if at is not None else _missed_names(sub, np.arange(len(r))),
                         _first=missed[at] if at is not None else _missed_first(sub))
        frames["runs"].append(r)
        ids = None
        for name in ("questions", "labels"):
            frame = getattr(sub, name)
            at = sub.run_positions(name)  # each question's run, by position: known from the load, carried to the subset
            if at is None:
                ids = pd.Index(r["run_id"].astype(object)) if ids is None else ids
                at = ids.get_indexer(frame["run_id"].astype(object))
            frame = frame.assign(task_id=r["task_id"].astype(object).to_numpy()[at], side=side)
            if name == "questions":
                frame = frame.assign(trial=r["trial"].to_numpy()[at])
            frames[name].append(frame)
    runs_out = pd.concat(frames["runs"], ignore_index=True)
    runs_out["where"] = _where(runs_out)
    questions = pd.concat(frames["questions"], ignore_index=True)
    if precision:
        questions["_first"] = _relevance_rank(questions["relevant"])
    # a stable sort: ties keep the log's order (pandas sorts on several keys with numpy's stable lexsort)
    return _evidence_of(values, scope,
                        runs_out.sort_values(["_first", *_RUN_ORDER] if recall else _RUN_ORDER)
                        .reindex(columns=_run_columns(recall)),
                        questions.sort_values(["_first", *_QUESTION_ORDER] if precision else _QUESTION_ORDER)
                        .reindex(columns=QUESTION_COLUMNS),
                        pd.concat(frames["labels"], ignore_index=True).reindex(columns=LABEL_COLUMNS), rs,
                        _order_of(precision, recall, len(parts) > 1,
                                  int((questions["_first"] == 0).sum()) if precision else 0,
                                  int((runs_out["_first"] == 0).sum()) if recall else 0))


#: the order of an evidence page's runs and questions (after the rows a reader wants first: :func:`_focus`)
_RUN_ORDER = ["side", "task_id", "trial"]
_QUESTION_ORDER = ["side", "task_id", "trial", "q_index"]


def _run_columns(recall: bool) -> list[str]:
    """The columns a row's runs have: :data:`RUN_COLUMNS`, and for a row about recall ``missed`` after the
    questions."""
    if not recall:
        return RUN_COLUMNS
    at = RUN_COLUMNS.index("n_questions") + 1
    return [*RUN_COLUMNS[:at], "missed", *RUN_COLUMNS[at:]]


class _Order(NamedTuple):
    """How an Evidence's questions and runs are ordered, in words: ``questions`` and ``runs`` as said above each
    list ("listed ..."), ``brief`` the questions' order in a few words (the heading of the questions in their
    dialogue)."""

    questions: str
    runs: str
    brief: str


def _focus(values: Mapping[str, Any]) -> tuple[bool, bool]:
    """Whether a row is about precision (its irrelevant questions come first) and about recall (its runs that
    missed a registered blocker come first): a comparison row's ``metric``, else the row's own columns (a row of
    ``question_quality`` is about both); Ask-F1 is made of both."""
    metric = values.get("metric")
    names = {metric} if isinstance(metric, str) and metric else set(values)
    both = "ask_f1" in names
    return both or "precision" in names, both or "recall" in names


def _order_of(precision: bool, recall: bool, sides: bool, irrelevant: int = 0, missed: int = 0) -> _Order:
    """The order :func:`evidence` gives a row's questions and runs, in words (``sides``: a comparison's two;
    ``irrelevant``, ``missed``: how many questions, runs come first)."""
    each = "by side (a, then b)," if sides else "by"
    by_question, by_run = f"{each} task, trial and question", f"{each} task and trial"
    questions, brief = by_question, by_question
    if precision:
        questions = ("the irrelevant questions first (relevant false, the ones that lower precision:"
                     f" {irrelevant:,} here), then those the log does not judge (relevant empty), then the relevant"
                     f" ones; each part {by_question}")
        brief = f"the {irrelevant:,} irrelevant first" if irrelevant else "none of them irrelevant"
    runs = by_run
    if recall:
        runs = ("the runs that missed a registered blocker of their task first (missed: which; the runs that lower"
                f" recall: {missed:,} here), then the rest; each part {by_run}")
    return _Order(questions, runs, brief)


def _relevance_rank(relevant: pd.Series) -> np.ndarray:
    """Each question's place in a row about precision: 0 irrelevant (relevant false), 1 not judged (empty),
    2 relevant."""
    known = relevant.notna().to_numpy(dtype=bool)
    true = relevant.to_numpy(dtype=bool, na_value=False)
    return np.where(known, np.where(true, 2, 0), 1).astype(np.int64)


#: the columns naming a run's task, whose registered blockers recall counts
_TASK_KEY = ["benchmark", "suite", "variant_id"]


def _null_free(value: Any) -> Any:
    """A task key's value as a dict key: every kind of null as None."""
    return None if value is None or value is pd.NA or (isinstance(value, float) and value != value) else value


def _relevant_asks(rs: RunSet) -> tuple[np.ndarray, np.ndarray]:
    """The relevant questions of ``rs`` as (the row of each one's run, its blocker id); a question whose run id is
    held by several runs (a run set built by hand) once for each."""
    q = rs.questions
    relevant = q["relevant"].to_numpy(dtype=bool, na_value=False)
    blockers = q["blocker_id"].astype(object).to_numpy()[relevant]
    pos = rs.run_positions("questions")
    if pos is not None:
        keep = pos[relevant] >= 0
        return pos[relevant][keep].astype(np.int64), blockers[keep]
    ids = rs.runs[["run_id"]].astype(object).assign(_at=np.arange(len(rs.runs)))
    asked = pd.DataFrame({"run_id": q["run_id"].astype(object).to_numpy()[relevant], "blocker_id": blockers})
    asked = asked.merge(ids, on="run_id")
    return asked["_at"].to_numpy(dtype=np.int64), asked["blocker_id"].to_numpy(dtype=object)


def _missed_first(rs: RunSet) -> np.ndarray:
    """Each run's place in a row about recall, kept with ``rs`` (every row of a table reads it): 0 where its
    relevant questions addressed fewer distinct blockers than its task registers (it missed one), else 1, as
    recall counts them (a blocker its task does not register counts as addressed: recall refuses such a group).
    Worked out on integer codes: at 1000x the example a table's runs are half a million."""
    def compute() -> np.ndarray:
        registered = rs.blockers[[*_TASK_KEY, "blocker_id"]].astype(object).drop_duplicates()
        counts = registered.groupby(_TASK_KEY, dropna=False).size().rename("_n").reset_index()
        n = rs.runs[_TASK_KEY].astype(object).merge(counts, how="left", on=_TASK_KEY)["_n"]
        pos, blockers = rs.memo(("evidence-asks",), lambda: _relevant_asks(rs))
        codes, uniques = pd.factorize(blockers)  # a missing blocker id is -1: it addressed none
        named = codes >= 0
        pairs = np.unique(pos[named] * max(len(uniques), 1) + codes[named])
        found = np.bincount(pairs // max(len(uniques), 1), minlength=len(rs.runs))
        return np.where(n.fillna(0).to_numpy(dtype=np.int64) > found, 0, 1).astype(np.int64)

    return rs.memo(("evidence-missed-first",), compute)


def _missed_names(rs: RunSet, at: np.ndarray) -> np.ndarray:
    """For the runs at rows ``at`` of ``rs``: the registered blockers of each one's task (benchmark, suite, variant)
    none of its relevant questions addressed (what recall counts against it), in the registry's order, joined by
    ", "; "" where it missed none; None where the log has no record of its task (its blockers are unknown). Only
    for the runs a page lists: a table's runs are half a million at 1000x the example."""
    def registry() -> tuple[set, dict]:
        known = {tuple(map(_null_free, k)) for k in rs.tasks[_TASK_KEY].astype(object).itertuples(index=False)}
        out: dict[tuple, list] = {}
        for *key, blocker in rs.blockers[[*_TASK_KEY, "blocker_id"]].astype(object).itertuples(index=False):
            listed = out.setdefault(tuple(map(_null_free, key)), [])
            if blocker not in listed:
                listed.append(blocker)
        return known, out

    known, registered = rs.memo(("evidence-registry",), registry)
    pos, blockers = rs.memo(("evidence-asks",), lambda: _relevant_asks(rs))
    wanted = np.isin(pos, at)
    asked: dict[int, set] = {}
    for p, b in zip(pos[wanted].tolist(), blockers[wanted].tolist()):
        asked.setdefault(p, set()).add(b)
    keys = zip(*(rs.runs[c].take(at).astype(object).tolist() for c in _TASK_KEY))
    out = np.full(len(at), None, dtype=object)
    for i, (p, key) in enumerate(zip(at.tolist(), keys)):
        key = tuple(map(_null_free, key))
        if key in known:
            mine = asked.get(p, set())
            out[i] = ", ".join(str(b) for b in registered.get(key, []) if b not in mine)
    return out


def _evidence_of(values: dict, scope: dict, runs: pd.DataFrame, questions: pd.DataFrame,
                 labels: pd.DataFrame, rs: RunSet | None = None, order: _Order | None = None) -> Evidence:
    """The Evidence of a row's frames, each without ``side`` where no row has one, numbered from 0."""
    out = Evidence(values, runs, questions, labels, _describe(values, scope), rs,
                   order if order is not None else _order_of(False, False, False))
    for name in ("runs", "questions", "labels"):
        frame = getattr(out, name)
        if (frame["side"] == "").all():
            setattr(out, name, frame.drop(columns="side").reset_index(drop=True))
        else:
            setattr(out, name, frame.reset_index(drop=True))
    return out


@dataclass
class _Cut:
    """What a page says of a row's frames beyond the rows it lists: how many rows each has, the runs' columns
    that hold one value over all of them, and how many sides asked questions."""

    runs: int
    questions: int
    labels: int
    same: dict
    question_sides: int


def _page_evidence(table: pd.DataFrame, i: int, rs: RunSet | None) -> tuple[Evidence, _Cut | None]:
    """``evidence(table, i, rs)`` as its page lists it: each frame's first :data:`PAGE_ROWS` rows in the same
    order, and the :class:`_Cut` of the rest. Only the listed questions and labels are copied, and only the
    listed runs' places in the log worked out: at 1000x the example a row has tens of thousands of runs and
    ten times as many questions, and building them all was most of a page's time. The order is worked out
    on the sort keys alone, as integers where they are text (a side's task ids ranked as their texts sort),
    with the stable sort pandas gives ``evidence``. A run set whose run ids do not link each question to
    its run (built by hand) gets ``evidence`` whole, and no cut."""
    rs, values, scope, parts = _row_parts(table, i, rs)
    precision, recall = _focus(values)
    missed = _missed_first(rs) if recall else None
    rank = rs.memo(("evidence-relevance",), lambda: _relevance_rank(rs.questions["relevant"])) if precision else None
    shown = rs.memo(("evidence-columns",), lambda: _shown_columns(rs))
    runs, keys, rows, labels, order = [], [], [], [], []
    for code, (side, keep) in enumerate(parts):
        r, kept = shown.rows_of_runs(keep)  # as evidence(): unique run ids, so keep is the subset
        if any(found is None for found in kept.values()):
            return evidence(table, i, rs), None
        r = r.assign(side=side)
        first = np.zeros(len(r), dtype=np.int64)
        if missed is not None:  # (the names of the missed blockers: of the listed runs alone, below)
            first = missed[r["_at"].to_numpy()]
        runs.append(r)
        picked = {name: (np.flatnonzero(link[0]), link[1]) for name, link in kept.items() if link is not None}
        found, at = picked["questions"]
        task, uniques = pd.factorize(r["task_id"], sort=True)
        task[task < 0] = len(uniques)  # a missing task id sorts last, as pandas sorts it
        trial, uniques = pd.factorize(r["trial"], sort=True)
        trial[trial < 0] = len(uniques)
        order.append((first, np.full(len(r), code), task, trial))  # the runs' sort keys, as evidence() sorts
        sort_keys = {"_first": rank[found]} if rank is not None else {}
        keys.append(pd.DataFrame({**sort_keys, "side": np.full(len(found), code), "task_id": task[at],
                                  "trial": r["trial"].to_numpy()[at],
                                  "q_index": shown.questions["q_index"].to_numpy()[found]}))
        rows += [(code, found, at)]
        labels.append((code, *picked["labels"]))
    questions = _listed_rows(shown.questions, parts, runs, rows, pd.concat(keys, ignore_index=True))
    n_labels = sum(len(found) for _, found, _ in labels)
    label_rows = _listed_rows(shown.labels, parts, runs, labels, None)
    every_run = pd.concat(runs, ignore_index=True)
    # the first runs of every_run sorted as evidence() sorts them, a stable sort of the keys' codes, copying those alone
    by_first, by_side, by_task, by_trial = (np.concatenate(k) for k in zip(*order))
    head = every_run.take(np.lexsort((by_trial, by_task, by_side, by_first))[:PAGE_ROWS])
    head["where"] = _where(head)
    if recall:
        head["missed"] = _missed_names(rs, head["_at"].to_numpy())
    irrelevant = sum(int((k["_first"] == 0).sum()) for k in keys) if precision else 0
    ev = _evidence_of(values, scope, head.reindex(columns=_run_columns(recall)),
                      questions.reindex(columns=QUESTION_COLUMNS), label_rows.reindex(columns=LABEL_COLUMNS), rs,
                      _order_of(precision, recall, len(parts) > 1, irrelevant, int((by_first == 0).sum())
                                if recall else 0))
    # in the log's order: which columns hold one value is the same in any order
    every_run = every_run.reindex(columns=[c for c in RUN_COLUMNS if c in ev.runs and c != "run_id"])  # (missed:
    # listed always)
    _, same = _varying(every_run, _ALWAYS)
    return ev, _Cut(len(every_run), sum(len(k) for k in keys), n_labels, same,
                    sum(1 for k in keys if len(k)))


def _listed_rows(frame: pd.DataFrame, parts: list, runs: list[pd.DataFrame], rows: list, keys: pd.DataFrame | None
                 ) -> pd.DataFrame:
    """The first :data:`PAGE_ROWS` of a row's questions (ordered by ``keys``) or labels (in the log's order):
    ``rows`` holds, side by side, each one's row in ``frame`` and its run's row in that side's ``runs``."""
    part = np.concatenate([np.full(len(found), code) for code, found, _ in rows]).astype(np.int64)
    found = np.concatenate([found for _, found, _ in rows]).astype(np.int64)
    at = np.concatenate([at for _, _, at in rows]).astype(np.int64)
    order = (keys.sort_values(list(keys.columns)).index.to_numpy() if keys is not None
             else np.arange(len(found)))[:PAGE_ROWS]
    picked = found[order]
    # Arrow takes rows from a many-chunked column by joining its chunks first: only those the rows are in
    low = int(picked.min()) if len(picked) else 0
    out = frame.iloc[low:int(picked.max(initial=low)) + 1].iloc[picked - low].reset_index(drop=True)
    task = np.empty(len(order), dtype=object)
    side = np.empty(len(order), dtype=object)
    for code, (name, _) in enumerate(parts):
        mine = np.flatnonzero(part[order] == code)
        task[mine] = runs[code]["task_id"].iloc[at[order][mine]].astype(object).to_numpy()
        side[mine] = name
    out = out.assign(task_id=task, side=side)
    if keys is not None:  # the column evidence() sorts: each side's runs' trials, side after side
        out = out.assign(trial=keys["trial"].to_numpy()[order])
    return out


def _row_parts(table: pd.DataFrame, row: Any, rs: RunSet | None) -> tuple[RunSet, dict, dict, list]:
    """The run set, the row's values, its scope, and ``(side, runs of that side)`` for each side of the row."""
    rs = rs if rs is not None else getattr(table, "_runset", None)
    if rs is None:
        raise ValueError("evidence: this table does not remember the run set it was computed from; pass rs=")
    if isinstance(row, (int, np.integer)):
        if not -len(table) <= row < len(table):
            raise ValueError(f"evidence: row {row} of a table of {len(table)} rows")
        values = table.iloc[int(row)].to_dict()
    else:
        values = dict(row)
    scope = dict(table.attrs.get("scope") or {})
    scope.update(_metric_scope(values))
    keys = rs.memo(("evidence-keys",), lambda: _plain_keys(rs.runs), share=True)  # once, not once per row
    parts = []
    for side, fixed in _sides(values):
        keep = np.ones(len(rs.runs), dtype=bool)
        for column, value in {**{k: v for k, v in values.items() if k in _KEYS}, **fixed}.items():
            if _blank(value) or (column == "suite" and isinstance(value, str) and ", " in value):
                continue
            if column == "policy":  # the row's policy is its with-tool runs'; no-tool runs are the default's
                pol = _matches(keys["policy"], value)
                keep &= np.where(keys["ask_tool"], pol, pol | _matches(keys["policy"], "default"))
                continue
            keep &= _matches(keys[column], value)
        for column, value in scope.items():
            keep &= _matches(keys[column], value)
        parts.append((side, keep))
    return rs, values, scope, parts


def _shown_columns(rs: RunSet) -> RunSet:
    """The run set with only the columns a page shows (and ``meta``, ``source`` for where a run is), and no tasks
    or blockers, each question and label still linked to its run."""
    def only(frame: pd.DataFrame, wanted: list[str]) -> pd.DataFrame:
        return frame[[c for c in frame.columns if c in wanted]]

    # _at: each run's row in rs, which its subsets keep (a row's runs look up what is worked out for every run)
    out = RunSet(runs=only(rs.runs, [*RUN_COLUMNS, "meta", "source"]).assign(_at=np.arange(len(rs.runs))),
                 questions=only(rs.questions, QUESTION_COLUMNS),
                 labels=only(rs.labels, LABEL_COLUMNS), tasks=rs.tasks.iloc[:0], blockers=rs.blockers.iloc[:0])
    for name in ("questions", "labels"):
        pos = rs.run_positions(name)
        if pos is not None:
            out.keep_run_positions(name, pos)
    return out


def _blank(value: Any) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return (isinstance(value, float) and np.isnan(value)) or (isinstance(value, str) and value in ("–", ""))


class _Coded:
    """A text key column as integer codes and the values they stand for: a row's value is matched by comparing
    integers, not the runs' Python strings (a large log's evidence pages matched hundreds of thousands a row)."""

    def __init__(self, column: pd.Series):
        codes, uniques = pd.factorize(column.astype(object), use_na_sentinel=True)
        self.codes = codes
        self.index = {v: i for i, v in enumerate(uniques.tolist())}

    def __eq__(self, value: Any) -> np.ndarray:  # type: ignore[override]
        try:
            code = self.index.get(value)
        except TypeError:  # an unhashable value equals no text
            code = None
        return self.codes == code if code is not None else np.zeros(len(self.codes), dtype=bool)

    def isin(self, values: Any) -> np.ndarray:
        wanted = [c for c in (self.index.get(v) if _hashable(v) else None for v in values) if c is not None]
        return np.isin(self.codes, wanted)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _plain_keys(runs: pd.DataFrame) -> dict[str, Any]:
    """The runs' key columns: text as :class:`_Coded`, ask_tool as bools, trial as floats."""
    out: dict[str, Any] = {c: _Coded(runs[c]) for c in _KEYS if c not in ("ask_tool", "trial")}
    out["ask_tool"] = runs["ask_tool"].to_numpy(dtype=bool, na_value=False)
    out["trial"] = runs["trial"].to_numpy(dtype=float)
    return out


def _matches(column: np.ndarray | _Coded, value: Any) -> np.ndarray:
    if isinstance(value, (list, tuple, set)):
        return column.isin(list(value)) if isinstance(column, _Coded) else np.isin(column, list(value))
    if isinstance(column, _Coded):
        return column == value
    if column.dtype == bool:
        value = value if isinstance(value, (bool, np.bool_)) else str(value).lower() == "true"
        return column == bool(value)
    if column.dtype.kind == "f":
        return column == float(value)
    return column == value


def _sides(values: Mapping[str, Any]) -> list[tuple[str, dict]]:
    """(side, fixed columns) for each side of a comparison row; one side, unnamed, for any other row."""
    for key in ("model", "policy", "ask_tool", "log"):
        if f"{key}_a" in values and f"{key}_b" in values:
            return [("a", {key: values[f"{key}_a"]}), ("b", {key: values[f"{key}_b"]})]
    return [("", {})]


def _metric_scope(values: Mapping[str, Any]) -> dict:
    """The runs a comparison row's metric uses (:mod:`ambiglib.comparisons`), from its ``metric`` and
    ``condition``."""
    metric, condition = values.get("metric"), str(values.get("condition") or "")
    if metric in ("ask_f1", "precision", "recall"):
        return {"spec": "ambiguous", "ask_tool": True, "protocol": "solve"}
    if metric == "calib_score":
        return {"ask_tool": True, **({"protocol": "ask_only"} if "ask_only" in condition else {})}
    if metric in ("gain_per_question", "score_gain_pp", "pass_gain_pp") or "with the ask tool (a) vs" in condition:
        return {"spec": "ambiguous", "protocol": "solve"}
    if metric in ("mean_score", "pass_at_k") and condition:
        spec = "full" if condition.startswith("fully specified") else "ambiguous"
        return {"spec": spec, "ask_tool": "without the ask tool" not in condition, "protocol": "solve"}
    return {}


def _describe(values: Mapping[str, Any], scope: Mapping[str, Any]) -> str:
    shown = {k: v for k, v in values.items() if k in (*_KEYS, "model_a", "model_b", "policy_a", "policy_b",
                                                        "metric", "agent") and not _blank(v)}
    where = ", ".join(f"{k} {v}" for k, v in shown.items())
    if scope:
        where += " — runs with " + ", ".join(f"{k} = {v}" for k, v in scope.items())
    return where


def _where(runs: pd.DataFrame) -> list[str]:
    """Where the log holds each run: its source (file:line), and an Inspect AI log's sample and epoch."""
    out = []
    # only a meta whose text holds ``inspect`` (or an escape that could spell it) can name a sample
    text = runs["meta"].astype("string[pyarrow]")
    maybe = (text.str.contains("inspect", regex=False) | text.str.contains("\\", regex=False)).fillna(False)
    maybe = maybe.to_numpy(dtype=bool)
    if not maybe.any():
        return [str(source) if source is not None else "" for source in runs["source"].astype(object)]
    metas = iter(shared_metas(runs[maybe]))
    for source, parse in zip(runs["source"].astype(object), maybe):
        meta = next(metas) if parse else None
        info = meta.get("inspect") if isinstance(meta, dict) else None
        text = str(source) if source is not None else ""
        if isinstance(info, dict) and "sample_id" in info:
            text += f" (sample {info['sample_id']!r}, epoch {info.get('epoch')})"
        out.append(text)
    return out


# ----------------------------------------------------------------------------- pages


_STYLE = stylesheet("evidence")  # (templates/evidence.css)


@dataclass(frozen=True)
class _Link:
    """A cell of the column ``run`` that links to the run's page (its address escaped as every cell's)."""

    href: str


def _cell(value: Any) -> str | None:
    """A cell's text (a score to three decimals), or None for a missing value."""
    if value is None or value is pd.NA:
        return None
    if isinstance(value, float):
        return None if value != value else f"{value:.3f}"  # NaN is the one float unequal to itself
    return str(value)


def _python_values(column: pd.Series) -> list[Any]:
    """``column.astype(object).tolist()`` as a cell shows it (a null None where pandas gives NA): a text, number or
    bool Arrow column's by Arrow, which makes the Python values several times faster than pandas."""
    arrow = arrow_of(column)
    if arrow is not None:
        import pyarrow as pa

        kind = arrow.type
        if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_integer(kind) \
                or pa.types.is_floating(kind) or pa.types.is_boolean(kind):
            return arrow.to_pylist()
    return column.astype(object).tolist()


def _html_table(frame: pd.DataFrame, text_columns: tuple[str, ...] = (), limit: int = SHOWN_CHARS) -> _Table:
    """``frame`` as evidence_table.html writes it, the cells of ``text_columns`` wrapped as text, those of the
    column ``run`` links to the run pages (:func:`_page_body`), each cell's first ``limit`` characters. A wide
    table (a comparison's ~20 columns) scrolls inside the page instead of running off it."""
    kinds, values = [], []
    for i, c in enumerate(frame.columns):  # a column at a time: one conversion per column, not a boxed row
        column = _python_values(frame.iloc[:, i])
        if c == "run" and all(v is None or isinstance(v, _Link) for v in column):
            kinds.append("link")
            values.append([None if v is None else v.href for v in column])
        else:
            kinds.append("text" if c in text_columns else "")
            values.append([v if type(v) is str else _cell(v) for v in column])
    return _Table([str(c) for c in frame.columns], kinds, values, len(frame), limit=limit)


def _varying(frame: pd.DataFrame, always: tuple[str, ...]) -> tuple[pd.DataFrame, dict]:
    """``frame`` without the columns that hold one value throughout (returned apart), but ``always``."""
    same = {c: frame[c].iloc[0] for c in frame.columns if c not in always and len(frame) and _one_value(frame[c])}
    return frame.drop(columns=list(same)), same


#: rows whose values are compared first: two values differing among them settle that a column varies
_FIRST_ROWS = 64


def _one_value(column: pd.Series) -> bool:
    """Whether every value of ``column`` is the same as Python compares them (nulls alike), as
    ``column.astype(object).nunique(dropna=False) == 1`` says; a large row's runs (tens of thousands) made
    that boxing most of its page's time. Two values differing among the first rows settle it (any more rows
    only add values); an Arrow column whose values are bit for bit one value (or all null) is one value;
    anything else (0.0 beside -0.0, NaN beside null) is left to pandas."""
    if column.iloc[:_FIRST_ROWS].astype(object).nunique(dropna=False) > 1:
        return False
    values = column.array
    if isinstance(values, pd.arrays.ArrowExtensionArray):
        import pyarrow.compute as pc

        if pc.count_distinct(values.__arrow_array__(), mode="all").as_py() == 1:
            return True
    return column.astype(object).nunique(dropna=False) == 1


#: rows an evidence page lists of each of its tables (a large log's agent has tens of thousands of runs);
#: ``table.evidence(row)`` in Python has them all
PAGE_ROWS = SHOWN_ROWS


def _listed(frame: pd.DataFrame, what: str, text_columns: tuple[str, ...], total: int,
            every: str = "table.evidence(row)", order: str = "", rows: int | None = None,
            limit: int = SHOWN_CHARS) -> _Listed:
    """The first ``rows`` (default :data:`PAGE_ROWS`) rows of ``frame``, each cell's first ``limit`` characters,
    of ``total`` in all (every one: ``every``), listed in ``order`` (words; empty: not said)."""
    rows = PAGE_ROWS if rows is None else rows
    return _Listed(_html_table(frame.head(rows), text_columns, limit), what, total, rows, every, order)


def _brief(text: str, tail: bool = False) -> str:
    """A cell of a text repr: ``text`` whole, or its first :data:`REPR_CHARS` characters and how many more; ``tail``:
    "…" and its last ones (where a run is: the file's name and the sample, not the folders before them)."""
    if len(text) <= REPR_CHARS or not tail:
        return cut_text(text, REPR_CHARS)
    return f"…{text[-REPR_CHARS:]}"


def _text_rows(frame: pd.DataFrame, what: str, order: str) -> str:
    """A frame of an Evidence as its text repr shows it: what it is and its order, its first :data:`NOTEBOOK_ROWS`
    rows (each cell its first :data:`REPR_CHARS` characters, on one line), then how many more; a runs frame
    without the columns that hold one value over every run (said first)."""
    lines = [f"{what}" + (f", listed {order}" if order else "") + ":"]
    if what == "runs":
        frame, same = _varying(frame, _ALWAYS)
        common = ", ".join(f"{k} {cut_text(visible(str(v)), REPR_CHARS)}" for k, v in same.items() if not _blank(v))
        if common:
            lines.append(f"every run: {common}")
    head = frame.head(NOTEBOOK_ROWS)
    cells = {}
    for i, column in enumerate(head.columns):
        values = (_cell(v) for v in head.iloc[:, i].astype(object).tolist())
        cells[str(column)] = ["–" if v is None else _brief(visible(v).replace("\n", "\\n"), column == "where")
                              for v in values]
    lines.append(pd.DataFrame(cells).to_string(index=False))
    if len(frame) > NOTEBOOK_ROWS:
        lines.append(f"… {len(frame) - NOTEBOOK_ROWS:,} more {what}; every one: .{what}")
    return "\n".join(lines)


#: the run columns a page always lists, even where every run holds one value
_ALWAYS = ("task_id", "trial", "status", "score", "missed", "where")


def _page_body(ev: Evidence, cut: _Cut | None = None, pages: dict[str, str] | None = None,
               dialogues: Markup | None = None, notebook: bool = False) -> Markup:
    """A page's body: ``ev`` whole, or the rows of it a page lists and their ``cut`` (:func:`_page_evidence`);
    ``pages``: each run's page, by run id, linked from its rows; ``dialogues``: the questions in their dialogue.
    ``notebook``: as a notebook shows ``ev``: each frame's first :data:`NOTEBOOK_ROWS` rows, each text its first
    :data:`~ambiglib._text.BRIEF_CHARS` characters, then how many more (every one: ``.questions``, ...)."""
    rows, limit = (NOTEBOOK_ROWS, BRIEF_CHARS) if notebook else (None, SHOWN_CHARS)

    def listed(frame: pd.DataFrame, what: str, attribute: str, text: tuple[str, ...], total: int,
               order: str = "") -> _Listed:
        every = f".{attribute}" if notebook else f"table.evidence(row).{attribute}"
        return _listed(frame, what, text, total, every, order, rows, limit)

    if cut is None:
        runs, same = _varying(ev.runs.drop(columns="run_id"), _ALWAYS)
        n_runs, n_questions, n_labels = len(ev.runs), len(ev.questions), len(ev.labels)
        sides = ev.questions["side"].nunique() if "side" in ev.questions else 0
    else:
        same = cut.same
        runs = ev.runs.drop(columns=["run_id", *same])
        n_runs, n_questions, n_labels, sides = cut.runs, cut.questions, cut.labels, cut.question_sides
    common = ", ".join(f"{k} {cut_text(str(v), BRIEF_CHARS)}" for k, v in same.items() if not _blank(v))
    questions = ev.questions.drop(columns=[c for c in ("run_id", "side") if c in ev.questions and
                                           (c == "run_id" or sides <= 1)])
    labels = ev.labels.drop(columns="run_id")
    linked = None
    if pages is not None:
        runs.insert(0, "run", _links(ev.runs["run_id"], pages))
        questions.insert(0, "run", _links(ev.questions["run_id"], pages))
        linked = {"all": all(r in pages for r in ev.runs["run_id"]) and all(r in pages for r in ev.questions["run_id"]),
                  "most": RUN_PAGES}
    return render("evidence_body.html", scope=cut_text(ev.scope, limit), dialogues=dialogues or "", linked=linked,
                  common=common, n_questions=n_questions, n_runs=n_runs, n_labels=n_labels,
                  questions=listed(questions, "questions", "questions", ("text", "response"), n_questions,
                                   ev.order.questions) if n_questions else None,
                  runs=listed(runs, "runs", "runs", ("missed", "where"), n_runs, ev.order.runs) if n_runs else None,
                  labels=listed(labels, "judge labels", "labels", (), n_labels) if n_labels else None)


def _tasks_section(tasks: pd.DataFrame) -> dict[str, Any]:
    """A comparison's tasks, the ones that move the difference most first: what a reader checks before its runs."""
    shown = tasks.drop(columns=[c for c in ("benchmark", "suite", "policy", "model", "log", "model_a", "model_b",
                                            "policy_a", "policy_b", "log_a", "log_b", "pass_fail")
                                if c in tasks and tasks[c].nunique(dropna=False) <= 1])
    moved = int((tasks["changed"] != "=").sum()) if "changed" in tasks else 0
    return {"n": len(tasks), "moved": moved, "listed": _listed(shown, "tasks", (), len(tasks))}


def write_evidence_pages(table: pd.DataFrame, name: str, out_dir: str | os.PathLike[str] | None, *,
                         title: str | None = None, rs: RunSet | None = None,
                         tasks: Callable[[int], pd.DataFrame] | None = None) -> list[Path]:
    """Write ``evidence/<name>/<i>.html`` in ``out_dir``, one page per row of ``table`` (nothing without
    ``out_dir``); return the pages. Every text is escaped: a log's names and questions are untrusted. ``tasks``:
    a comparison row's tasks (:func:`ambiglib.answers.comparison_tasks`), which its page opens on, before the
    runs and questions."""
    if not out_dir or len(table) == 0:
        return []
    folder = Path(out_dir) / "evidence" / name
    folder.mkdir(parents=True, exist_ok=True)
    pages = []
    caption = title or table.attrs.get("caption") or name
    # beside the evidence pages (the report moves evidence/ whole): evidence/runs/<hash>.html
    runs_pages = _RunPages(rs if rs is not None else getattr(table, "_runset", None), Path(out_dir) / "evidence" / "runs")
    for i in range(len(table)):
        ev, cut = _page_evidence(table, i, rs)
        linked = runs_pages.write(ev)
        row = {k: v for k, v in table.iloc[i].to_dict().items() if not str(k).endswith(("_ci_low", "_ci_high"))}
        # the row as a list of its columns and values: a comparison's ~25 columns read down the page, not across it
        empty = _reasons_of_row(table, row)
        shown = pd.DataFrame({"column": [str(k) for k in row], "value": list(row.values()),
                              "why empty": [empty.get(k, "") if _blank(v) else "" for k, v in row.items()]})
        if not shown["why empty"].astype(bool).any():
            shown = shown.drop(columns="why empty")
        # a table with a column per label of the log can have thousands of columns: its first rows, as any table
        page = render("evidence_page.html", caption=str(caption), row=i + 1, style=Markup(_STYLE + DIALOGUE_STYLE),
                      table=_listed(shown, "columns", ("value", "why empty"), len(shown), f"table.iloc[{i}]"),
                      tasks=_tasks_section(tasks(i)) if tasks is not None else None,
                      body=_page_body(ev, cut, linked,
                                      runs_pages.dialogues(ev, cut.questions if cut else len(ev.questions))))
        path = folder / f"{i}.html"
        path.write_text(visible(page), encoding="utf-8")  # a name's bidi override shown, not obeyed
        pages.append(path)
    (folder / "rows.json").write_text(json.dumps({"rows": len(table)}), encoding="utf-8")
    return pages


def _reasons_of_row(table: pd.DataFrame, row: Mapping[Any, Any]) -> dict:
    """Why each empty column of ``table`` is empty (``attrs["empty"]``), for one row: its benchmark's own reason
    where the table keeps one (``attrs["empty_by_benchmark"]``), not those of every benchmark in the log."""
    empty = dict(table.attrs.get("empty") or {})
    bench = row.get("benchmark")
    for column, own in (table.attrs.get("empty_by_benchmark") or {}).items():
        if isinstance(bench, str) and bench in own and column in empty:
            empty[column] = f"{bench}: {own[bench]}"
    return empty


#: run pages one call of :func:`write_evidence_pages` writes at most (a large log's rows list thousands of runs)
RUN_PAGES = 500
#: what a run page shows of a run (and reads its transcript with)
RUN_PAGE_COLUMNS = ("run_id", "benchmark", "suite", "task_id", "variant_id", "model", "policy", "spec", "ask_tool",
                    "protocol", "trial", "log", "status", "score", "passed", "n_questions", "category", "source",
                    "transcript_at")


def _arrow(frame: pd.DataFrame, columns: Any) -> Any:
    import pyarrow as pa

    return pa.Table.from_pandas(frame[[c for c in columns if c in frame]], preserve_index=False)


def _by_run(rs: RunSet, name: str, rows: dict[str, int], columns: list[str]) -> tuple[Any, np.ndarray, np.ndarray]:
    """A frame's rows grouped by run: the Arrow table (stable-sorted by the run's row), and where each run's rows
    start and end in it. Each row's run is the load's link where it kept one (no run id looked up)."""
    import pyarrow as pa

    frame = getattr(rs, name)
    table = pa.Table.from_pandas(frame[[c for c in columns if c in frame]], preserve_index=False)
    pos = rs.run_positions(name)
    if pos is None:
        pos = np.array([rows.get(r, -1) for r in frame["run_id"].tolist()], dtype=np.int64)
    pos = np.asarray(pos, dtype=np.int64)
    order = np.argsort(pos, kind="stable")
    sorted_pos = pos[order]
    n = len(rows)
    starts = np.searchsorted(sorted_pos, np.arange(n), side="left")
    ends = np.searchsorted(sorted_pos, np.arange(n), side="right")
    # one copy in run order, a run's rows then a slice (a take per run joins every chunk of a column first)
    return table.drop_columns(["run_id"]).take(pa.array(order)), starts, ends


def _rows_of(grouped: tuple[Any, np.ndarray, np.ndarray], run_row: int) -> tuple[list[dict[str, Any]], int]:
    """The first :data:`~ambiglib._text.SHOWN_ROWS` rows of a run (as a page lists them), and how many it has."""
    table, starts, ends = grouped
    n = int(ends[run_row] - starts[run_row])
    return table.slice(int(starts[run_row]), min(n, SHOWN_ROWS)).to_pylist(), n
#: questions an evidence page shows in their dialogue
DIALOGUES = 10


def _links(run_ids: pd.Series, pages: dict[str, str]) -> list[Any]:
    return [_Link(pages[r]) if r in pages else None for r in run_ids.astype(object)]


class _RunPages:
    """The run pages of a table's evidence pages (``<out_dir>/evidence/runs/<hash>.html``), each written once, at most
    :data:`RUN_PAGES`; and the transcripts they and the dialogues read, a few kept."""

    def __init__(self, rs: RunSet | None, folder: Path):
        self.rs, self.folder = rs, folder
        self.cache = TranscriptCache()
        self.written: dict[str, str] = {}
        self._rows: dict[str, int] | None = None
        self._seen: dict[str, dict[str, Any]] = {}  # the runs read, each once (a page and its dialogues)

    def _index(self) -> None:
        """Once per run set: each run's row, and its questions' and labels' rows, as Arrow tables a page takes its
        rows from (at 1000x an Arrow slice costs a page far less than a pandas row or subframe: docs/performance.md)."""
        if self._rows is None and self.rs is not None:
            rs = self.rs
            rows = self._rows = rs.memo(("run-rows",),
                                         lambda: dict(zip(rs.runs["run_id"].tolist(), range(len(rs.runs)))))
            self._runs = rs.memo(("run-page-runs",), lambda: _arrow(rs.runs, [*RUN_PAGE_COLUMNS]))
            self._talks = self._runs.column("transcript_at").is_valid().to_numpy(zero_copy_only=False)
            self._q = rs.memo(("run-page-questions",), lambda: _by_run(rs, "questions", rows, QUESTION_COLUMNS))
            self._l = rs.memo(("run-page-labels",), lambda: _by_run(rs, "labels", rows, LABEL_COLUMNS))

    def run(self, run_id: str) -> dict[str, Any] | None:
        self._index()
        if self._rows is None or run_id not in self._rows:
            return None
        if run_id not in self._seen:
            self._read([run_id])
        return self._seen[run_id]

    def _read(self, run_ids: list[str]) -> None:
        """Read the rows of ``run_ids`` (each in the run set) into :attr:`_seen` at once: a row read alone from a
        large log's many-chunked table cost several times its share of one read of many."""
        import pyarrow as pa

        at = pa.array([self._rows[r] for r in run_ids], type=pa.int64())  # type: ignore[index]
        self._seen.update(zip(run_ids, self._runs.take(at).to_pylist()))

    def write(self, ev: Evidence) -> dict[str, str] | None:
        """Write the pages of the runs ``ev`` lists (runs, then the questions' runs) not written yet; return
        every listed run's page address (relative to an evidence page) that exists."""
        if self.rs is None:
            return None
        self.folder.mkdir(parents=True, exist_ok=True)
        listed = [*ev.runs["run_id"].astype(object), *ev.questions["run_id"].astype(object)]
        self._index()
        unread = dict.fromkeys(r for r in listed if r not in self.written and r not in self._seen
                               and self._rows is not None and r in self._rows)
        if unread:
            self._read(list(unread)[:max(0, RUN_PAGES - len(self.written))])
        for run_id in listed:
            if run_id in self.written or len(self.written) >= RUN_PAGES:
                continue
            run = self.run(run_id)
            if run is None:
                continue
            name = run_page_name(run_id)
            at = self._rows[run_id]  # type: ignore[index]
            # a page lists a run's first questions and labels (SHOWN_ROWS), saying how many it has
            (questions, n_questions), (labels, n_labels) = _rows_of(self._q, at), _rows_of(self._l, at)
            try:
                record = self.cache.get(run)
            except FormatError as exc:  # the log changed since it was loaded: the page says so, the others stand
                record = {"covers": "conversation", "turns": [], "note": f"the transcript could not be read: {exc}"}
            page = run_page(run, questions, labels, record, style=Markup(_STYLE), back="../../../index.html",
                            n_questions=n_questions, n_labels=n_labels)
            (self.folder / name).write_text(visible(page), encoding="utf-8")
            self.written[run_id] = name
        return {r: f"../runs/{n}" for r, n in self.written.items()}

    def dialogues(self, ev: Evidence, total: int) -> Markup | None:
        """The page's first :data:`DIALOGUES` questions whose run keeps a transcript, each in its dialogue (or why
        none is shown), saying at the heading how many of the row's ``total`` questions they are and how they were
        chosen (its questions' order); None for a page without questions."""
        if self.rs is None or not len(ev.questions):
            return None
        self._index()
        if not self._talks.any():  # a log that keeps no conversation: no question to look up
            return render("evidence_dialogues.html", shown=0, items=[], total=total)
        items: list[_Dialogue] = []
        shown = 0
        for q in ev.questions.itertuples(index=False):
            if len(items) >= DIALOGUES:  # (a transcript that could not be read counts: its error is shown)
                break
            at = self._rows.get(q.run_id) if self._rows is not None else None
            if at is None or not self._talks[at]:  # (a log without conversations: no row read)
                continue
            run = self.run(q.run_id)
            if run is None:  # (its row was found: never)
                continue
            try:
                record = self.cache.get(run)
            except FormatError as exc:
                items.append(_Dialogue(error=str(exc)))
                continue
            if record is None:
                continue
            href = f"../runs/{self.written[q.run_id]}" if q.run_id in self.written else None
            at = next((i for i, t in enumerate(record["turns"]) if t.get("q_index") == q.q_index), None)
            if href is not None and at is not None:
                href += f"#turn-{at}"
            text = q.text if isinstance(q.text, str) else "(the log keeps no text)"
            items.append(_Dialogue(None, int(q.q_index), str(q.task_id), str(q.trial), cut_text(text, BRIEF_CHARS),
                                   dialogue_html(record, int(q.q_index), href)))
            shown += 1
        return render("evidence_dialogues.html", shown=shown, items=items, total=total, order=ev.order.questions,
                      brief=ev.order.brief)


class _Dialogue(NamedTuple):
    """A question an evidence page shows in its dialogue (evidence_dialogues.html), or the error that kept its
    transcript from being read."""

    error: str | None
    q_index: int = 0
    task_id: str = ""
    trial: str = ""
    text: str = ""
    dialogue: Markup = Markup()
