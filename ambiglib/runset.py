"""The five tidy frames of a run log as one object, :class:`RunSet`, and how it is built from records.

``runs`` has one row per run, ``questions`` one per clarification request,
``labels`` one per judge call, ``tasks`` one per task or variant, ``blockers`` one
per registered blocker or removed segment. Id columns come first; every column
is a nullable Arrow-backed pandas dtype.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ambiglib.errors import FormatError, LoadError
from ambiglib.runlog._frames import COLUMNS, _build_tables, _frame
from ambiglib.runlog._jsonl import FRAMES, FileRead, write_jsonl
from ambiglib.runlog._parquet import write_parquet

__all__ = ["RunSet", "COLUMNS", "run_metas", "arrow_of", "summary_table", "summary_keys", "SUMMARY_COUNTS"]

# A RunSet's methods that answer the four questions and read a run's conversation hand their work to
# ambiglib.answers._notebook and ambiglib.transcripts, imported at the call: those layers are above the run set
# (tests/test_layout.py lists these calls down as DELEGATED), and importing a run set stays as cheap as its frames.
if TYPE_CHECKING:
    from ambiglib.answers._notebook import Answer
    from ambiglib.transcripts import Transcript


def arrow_of(column: pd.Series) -> Any:
    """The Arrow array behind an Arrow-backed column (the same object while the column is unchanged), else None."""
    return column.array.__arrow_array__() if isinstance(column.dtype, pd.ArrowDtype) else None


#: Results of :meth:`RunSet.memo` shared by the run sets of one content: read from the same verified snapshot
#: (each notebook of a report loads it again in the kernel the report keeps), or filtered alike from such a run
#: set. By the log's content, then (content, key); the newest :data:`_SHARED_LOGS` logs' results are kept
_SHARED: dict[Any, dict] = {}
_SHARED_LOGS = 2


def _column_arrays(frame: pd.DataFrame) -> list:
    """Each column's array, by position (a name may repeat in a frame built by hand)."""
    return [column.array for _, column in frame.items()]


def _same(kept: tuple, now: tuple | None) -> bool:
    """Whether two :meth:`RunSet._state` tuples hold the same objects."""
    return now is not None and len(kept) == len(now) and all(a is b for a, b in zip(kept, now))


def _of_runs(frame: pd.DataFrame, runs: pd.DataFrame) -> np.ndarray:
    """Which rows of ``frame`` (questions or labels) belong to ``runs``."""
    return frame["run_id"].isin(runs["run_id"]).to_numpy(dtype=bool, na_value=False)


def _criteria(criteria: dict[str, object]) -> tuple | None:
    """``filter``'s criteria as a key: per column, its values (type and ``repr``) in one order; None when a value
    is not a plain scalar (an array's ``repr`` leaves values out: two arrays could share one)."""
    out = []
    for column, value in sorted(criteria.items()):
        if value is None:
            continue
        values = value if isinstance(value, (list, tuple, set, frozenset)) else [value]
        if not all(v is None or isinstance(v, (str, bool, int, float, np.generic)) for v in values):
            return None
        out.append((column, tuple(sorted((type(v).__module__, type(v).__qualname__, repr(v)) for v in values))))
    return tuple(out)


#: From how many rows :func:`_rows` filters through Arrow (pandas is faster on fewer: docs/performance.md)
_ARROW_ROWS = 50_000


def _rows(frame: pd.DataFrame, keep: np.ndarray) -> pd.DataFrame:
    """The rows of ``frame`` where ``keep`` (a boolean array), renumbered from 0.

    Large frames of Arrow-backed columns (what every load gives) are filtered by Arrow's filter
    kernel, faster than pandas' boolean indexing of the same columns from ~50,000 rows up (docs/performance.md); the
    result is the same frame, dtypes and ``attrs`` included. Smaller ones, where pandas is faster,
    and others are indexed by pandas.

    Rows kept in one unbroken block (one benchmark of a log written benchmark by benchmark, as the
    harnesses and importers write them) are taken as a slice: Arrow slices without copying."""
    start = int(np.argmax(keep)) if len(keep) else 0
    count = int(np.count_nonzero(keep))
    if count and keep[start:start + count].all():
        return frame.iloc[start:start + count].reset_index(drop=True)
    if len(frame) >= _ARROW_ROWS and len(frame.columns) and frame.columns.is_unique \
            and all(isinstance(t, pd.ArrowDtype) for t in frame.dtypes):
        table = pa.Table.from_pandas(frame, preserve_index=False)
        mask = pa.array(keep, type=pa.bool_())
        # column by column: Table.filter is slower on a many-chunked table (pyarrow 26; docs/performance.md)
        table = pa.Table.from_arrays([c.filter(mask) for c in table.columns], schema=table.schema)
        out = table.to_pandas(types_mapper=pd.ArrowDtype)
        out.attrs = dict(frame.attrs)
        return out
    return frame[keep].reset_index(drop=True)


def _called_from_outside() -> bool:
    """Whether RunSet.filter was called by a user (a notebook, a script), not by ambiglib itself: the library
    filters for conditions a log may well not have (no fully specified runs), which is no typo. The caller is
    the frame two above this one (``filter``'s caller), read through :func:`inspect.currentframe`; where the
    interpreter keeps no frames, a user is assumed."""
    import inspect

    frame = inspect.currentframe()
    try:
        for _ in range(2):
            frame = frame.f_back if frame is not None else None
        caller = frame.f_globals.get("__name__", "") if frame is not None else ""
    finally:
        del frame  # a frame held here would keep every local of the frames above it alive
    return not (caller == "ambiglib" or caller.startswith("ambiglib."))


def _warn_kept_nothing(runs: pd.DataFrame, criteria: dict) -> None:
    """``rs.filter(model="typo")`` keeps no run: warned as ``load(filters=...)`` warns, with the values the log
    has in each column filtered."""
    import warnings

    from ambiglib.runlog._filters import matched_nothing

    dnf = [[(c, "in", list(v) if isinstance(v, (list, tuple, set, frozenset)) else [v]) for c, v in criteria.items()]]
    # attributed to the line that called filter: this function, then filter, then it
    warnings.warn(matched_nothing(dnf, lambda c: list(runs[c].dropna().astype(object).unique())), UserWarning,
                  stacklevel=3)


def run_metas(runs: pd.DataFrame) -> list[dict]:
    """Each run's ``meta`` (JSON text in the frame) as a dict, ``{}`` where it is null."""
    import json

    return [json.loads(m) if isinstance(m, str) and m else {} for m in runs["meta"].astype(object)]


def shared_metas(runs: pd.DataFrame) -> list[dict]:
    """:func:`run_metas` for reading only: runs whose ``meta`` text is the same share one dict.

    A large log repeats a few metas (``{"error_reason": "build_failed"}``) across most of its runs;
    each distinct text is parsed once. Nothing may change the dicts returned."""
    codes, metas = meta_codes(runs)
    return [metas[c] for c in codes.tolist()]


def meta_codes(runs: pd.DataFrame) -> tuple[np.ndarray, list[dict]]:
    """Each run's ``meta`` as a code into one parsed dict per distinct text (a null, empty or non-text meta: ``{}``),
    the distinct texts found by pandas' hash table (an Arrow column's at C speed). Nothing may change the dicts."""
    import json

    meta = runs["meta"] if arrow_of(runs["meta"]) is not None else \
        runs["meta"].map(lambda m: m if isinstance(m, str) else None, na_action="ignore")
    codes, texts = pd.factorize(meta)
    metas = [json.loads(t) if isinstance(t, str) and t else {} for t in texts] + [{}]
    return np.where(codes < 0, len(metas) - 1, codes), metas


#: :meth:`RunSet.summary`'s counts per cell: integer sums an engine computes alike (``ambiglib.engines``)
SUMMARY_COUNTS = ("n_runs", "n_tasks", "n_ok", "n_invalid", "n_timeout", "n_error", "n_asked", "n_questions")


def summary_keys(has_log: bool) -> list[str]:
    """The cells :meth:`RunSet.summary` counts runs in (``log`` too for logs loaded together)."""
    return ["benchmark", "suite", "model", "spec", "ask_tool"] + (["log"] if has_log else [])


def summary_table(cells: pd.DataFrame, scores: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """:meth:`RunSet.summary` from its integer counts per cell (``cells``: ``by`` and :data:`SUMMARY_COUNTS`) and,
    per cell and score, how many runs not in error scored it (``scores``: ``by, score, count``): the cells in one
    order and each mean score added up here in one order, so that a store's counts from any engine give this table
    to the last bit."""
    if len(cells) == 0:
        return pd.DataFrame(columns=[*by, "n_runs"])
    text = pd.StringDtype("pyarrow")
    types = {c: pd.ArrowDtype(pa.bool_()) if c == "ask_tool" else text for c in by}
    cells = cells.astype(types).astype({c: np.int64 for c in SUMMARY_COUNTS})
    cells = cells.sort_values(by, kind="stable", na_position="last").reset_index(drop=True)
    scores = scores.astype(types).astype({"score": np.float64, "count": np.int64})
    scores = scores.sort_values([*by, "score"], kind="stable", na_position="last")
    total = scores.assign(_sum=scores["score"].to_numpy() * scores["count"].to_numpy()) \
        .groupby(by, sort=False, observed=True, dropna=False)[["_sum", "count"]].sum()
    total = total.reindex(pd.MultiIndex.from_frame(cells[by]) if len(by) > 1 else cells[by[0]])
    n = total["count"].to_numpy(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n > 0, total["_sum"].to_numpy(float) / np.where(n > 0, n, 1.0), np.nan)
    out = cells[[*by, *SUMMARY_COUNTS]].assign(mean_score=mean)
    if out["mean_score"].isna().any():
        out.attrs["empty"] = {"mean_score": "no run of this cell has a score (ask-only runs record whether the"
                                            " agent asked, not a result; error runs are left out)"}
    return out


@dataclass(frozen=True, repr=False)
class RunSet:
    """A loaded run log: five tidy frames that join on ``run_id`` and the task key.

    The four questions are methods too: ``rs.asking()``, ``rs.question_quality()``, ``rs.payoff()`` and
    ``rs.compare(a, b)``, each an :class:`ambiglib.answers.Answer`, and ``rs.rank(metric)``; ``rs.transcript(id)``
    reads a run's turns. Each calls the module that answers it (:mod:`ambiglib.answers._notebook`, :mod:`ambiglib.transcripts`)
    when called.

    What is worked out from a run set is kept with it while its frames are unchanged, through a small interface the
    metrics, tables and evidence use (and a metric of one's own may): :meth:`memo` (a result by key),
    :meth:`by_benchmark` (the split by benchmark), :meth:`with_runs` (the run set of some runs, its row links
    kept), :meth:`rows_of_runs` (those runs' question and label rows), :meth:`run_positions` and
    :meth:`keep_run_positions` (which run each question and label row is of) and :meth:`share_as` (results shared
    with a run set of the same content loaded later).

    Attributes
    ----------
    runs : pandas.DataFrame
        One row per run: ``run_id``, the key columns (``benchmark``, ``suite``,
        ``task_id``, ``variant_id``, ``model``, ``spec``, ``ask_tool``, ``policy``,
        ``protocol``, ``trial``), the outcome (``status``, ``score``, ``passed``,
        ``checkpoints``, ``category``), ``n_questions``, ``n_labels``, the resources
        (``cost_usd``, ``tokens_in``, ``tokens_out``, ``steps``, ``duration_s``),
        ``meta`` (JSON text) and ``source`` (``file:line``).
    questions : pandas.DataFrame
        ``run_id, q_index`` (0-based position in the run), ``text``, ``blocker_id``,
        ``relevant`` (``blocker_id`` is not null; null where ``attributed`` is false), ``response``, ``step``,
        ``in_scope``, ``attributed`` (false: the log does not say which blocker the question asked about).
    labels : pandas.DataFrame
        ``run_id, facet, judge, call, label``: one row per judge call.
    tasks : pandas.DataFrame
        ``benchmark, suite, task_id, variant_id, n_blockers, ambiguity_class,
        dimensions, strategy, meta, source``.
    blockers : pandas.DataFrame
        ``benchmark, suite, task_id, variant_id, blocker_id, type, subtype``.
    skipped : dict
        What an importer read but did not take as a run, with counts (empty for
        canonical logs).
    rejected : int
        How many records the lenient load that made this run set rejected (its errors).

    In Jupyter a run set shows itself as a short summary (``_repr_html_``; ``repr`` as text): the
    totals, a row per benchmark and suite, the models, the rejected and skipped counts.
    """

    runs: pd.DataFrame
    questions: pd.DataFrame
    labels: pd.DataFrame
    tasks: pd.DataFrame
    blockers: pd.DataFrame
    #: rows of a native log that are not runs (e.g. a harness's ``skipped_existing`` entries): reason → count
    skipped: dict = field(default_factory=dict, compare=False)
    #: records the load that made this run set rejected (``load(strict=False)``'s errors; 0 otherwise)
    rejected: int = field(default=0, compare=False)
    #: what has been worked out about the frames, each entry kept with the Arrow arrays it came from:
    #: which run each question and label row belongs to (:meth:`run_positions`), that run ids are unique, and
    #: results kept by :meth:`memo` (the split by benchmark, each shape test, the metrics' per-run parts), and
    #: what the run set holds when that is known (:meth:`share_as`: read from a verified snapshot)
    _cache: dict = field(default_factory=dict, init=False, compare=False, repr=False)

    def frames(self) -> dict[str, pd.DataFrame]:
        """Return the five frames by name."""
        return {name: getattr(self, name) for name in FRAMES}

    def filter(self, **criteria: object) -> RunSet:
        """Return the runs whose columns match, with their questions and labels.

        Each keyword names a ``runs`` column and gives a value or a list of values:
        ``rs.filter(benchmark="hil-bench", suite=["sql", "swe"])``; a value of None
        (a notebook parameter left unset) does not filter, and with nothing to filter
        the run set itself is returned, as :meth:`where` does. Tasks and
        blockers are filtered by the criteria on the columns they share with runs
        (``benchmark``, ``suite``, ``task_id``, ``variant_id``).
        """
        if all(value is None for value in criteria.values()):
            return self

        def mask(frame: pd.DataFrame, only_shared: bool) -> np.ndarray:
            keep = np.ones(len(frame), dtype=bool)
            for column, value in criteria.items():
                if value is None:
                    continue
                if column not in frame.columns:
                    if only_shared:
                        continue
                    raise ValueError(f"filter: unknown runs column {column!r}; runs have {list(frame.columns)}")
                values = list(value) if isinstance(value, (list, tuple, set, frozenset)) else [value]
                keep &= frame[column].isin(values).to_numpy(dtype=bool, na_value=False)
            return keep

        keep = mask(self.runs, False)
        asked_for_none = any(isinstance(v, (list, tuple, set, frozenset)) and not v for v in criteria.values())
        if not keep.any() and len(self.runs) and not asked_for_none and _called_from_outside():
            _warn_kept_nothing(self.runs, {c: v for c, v in criteria.items() if v is not None})
        content, key = self._content(), _criteria(criteria)
        out = self._subset(keep, _rows(self.tasks, mask(self.tasks, True)),
                           _rows(self.blockers, mask(self.blockers, True)), {})
        if content is not None and key is not None:  # the same filter of the same content holds the same
            out.share_as((*content, ("filter", key)))
        return out

    def with_runs(self, keep: np.ndarray) -> RunSet:
        """``filter(run_id=<the run ids of the runs where keep>)``, without listing the ids in Python (on a
        large log, boxing each id cost more than the filter)."""
        ids = self.runs["run_id"]
        # with every id once (as a load leaves them), the runs sharing a kept run's id are the kept runs
        if self.memo(("run-ids-unique",), lambda: bool(ids.notna().all() and ids.is_unique), share=True):
            mask = np.asarray(keep, dtype=bool)
        else:
            mask = ids.isin(ids[keep]).to_numpy(dtype=bool, na_value=False)
        return self._subset(mask, _rows(self.tasks, np.ones(len(self.tasks), dtype=bool)),
                            _rows(self.blockers, np.ones(len(self.blockers), dtype=bool)), {})

    def _subset(self, keep: np.ndarray, tasks: pd.DataFrame, blockers: pd.DataFrame, skipped: dict) -> RunSet:
        """The runs where ``keep``, their questions and labels, and the tasks and blockers given.

        Which question and label rows belong to which run is worked out once per run set (a join on
        ``run_id``, :meth:`run_positions`) and carried to every subset, so that filtering a filtered log
        does not hash every ``run_id`` again."""
        runs, kept = self.rows_of_runs(keep)
        frames, links = {}, {}
        for name, found in kept.items():
            frame = getattr(self, name)
            if found is None:  # duplicate or null run ids (a run set built by hand): match by value
                frames[name] = _rows(frame, _of_runs(frame, runs))
                continue
            mine, links[name] = found
            frames[name] = _rows(frame, mine)
        out = RunSet(runs=runs, tasks=tasks, blockers=blockers, skipped=skipped, rejected=self.rejected, **frames)
        for name, pos in links.items():
            out.keep_run_positions(name, pos)
        return out

    def rows_of_runs(self, keep: np.ndarray) -> tuple[pd.DataFrame, dict[str, tuple[np.ndarray, np.ndarray] | None]]:
        """The runs where ``keep`` (renumbered from 0), and for ``questions`` and ``labels`` which of their rows
        belong to a kept run (a boolean array) with each such row's run among the runs returned, or None where
        the load's links are not known (:meth:`run_positions`). What :meth:`_subset` and an evidence page (which copies
        only the rows it lists) build a subset's rows from."""
        runs = _rows(self.runs, keep)
        renumber = np.cumsum(keep, dtype=np.int64) - 1  # a kept run's row among the runs returned
        kept: dict[str, tuple[np.ndarray, np.ndarray] | None] = {}
        for name in ("questions", "labels"):
            pos = self.run_positions(name)
            if pos is None:
                kept[name] = None
                continue
            mine = pos >= 0
            mine[mine] = keep[pos[mine]]
            kept[name] = (mine, renumber[pos[mine]])
        return runs, kept

    def run_positions(self, name: str) -> np.ndarray | None:
        """For each row of ``questions`` or ``labels``: the row of its run in ``runs`` (−1: none), or None
        where run ids are not unique and present. Kept with the Arrow arrays of both ``run_id`` columns it
        was computed from, and recomputed when either is not the same object any more: Arrow arrays are
        immutable, so a frame changed in place holds a new one."""
        ids, run_ids = arrow_of(getattr(self, name)["run_id"]), arrow_of(self.runs["run_id"])
        cached = self._cache.get(name)
        if cached is not None and ids is not None and cached[0] is ids and cached[1] is run_ids:
            return cached[2]
        index = pd.Index(self.runs["run_id"])
        if not index.is_unique or index.hasnans or getattr(self, name)["run_id"].hasnans:
            return None
        pos = index.get_indexer(getattr(self, name)["run_id"]).astype(np.int64)
        if ids is not None and run_ids is not None:
            self._cache[name] = (ids, run_ids, pos)
        return pos

    def _state(self) -> tuple | None:
        """What the frames are made of now: each frame, its index, its columns and each column's Arrow
        array. A result kept by :meth:`memo` is used while every one of these is the same object (Arrow
        arrays are immutable, so a frame changed in place holds a new one); None where a column is not
        Arrow-backed (a run set built by hand), which is then never kept."""
        state: list = []
        for name in FRAMES:
            frame = getattr(self, name)
            state += (frame, frame.index, frame.columns)
            for values in _column_arrays(frame):  # by position: a name may repeat in a frame built by hand
                if not isinstance(values, pd.arrays.ArrowExtensionArray):
                    return None
                state.append(values.__arrow_array__())
        return tuple(state)

    def memo(self, key: Any, compute: Callable[[], Any], still: Callable[[Any], bool] | None = None, *,
              share: bool = False) -> Any:
        """``compute()``, kept with the run set's :meth:`_state` and given again while that holds (and
        ``still(value)``, when given); recomputed once anything changed. With ``share``, a run set of known
        content (:meth:`share_as`) also finds and leaves the result among those of its content
        (:data:`_SHARED`), for a run set of the same content loaded later in the process (the report's next
        notebook in this kernel): for results small beside the time they take (a copy of the runs is not
        shared: it would stay in memory for every notebook). What is kept is never changed by those who read it."""
        state = self._state()
        shared = None
        if state is not None:
            hit = self._cache.get(key)
            if hit is not None and _same(hit[0], state) and (still is None or still(hit[1])):
                return hit[1]
            shared = self._shared(state) if share else None
            if shared is not None and key in shared and (still is None or still(shared[key])):
                self._cache[key] = (state, shared[key])
                return shared[key]
        value = compute()
        if state is not None:
            self._cache[key] = (state, value)
            if shared is not None:
                shared[key] = value
        return value

    def share_as(self, content: tuple) -> None:
        """Say what this run set holds, as it is now: ``("snapshot", <its SHA-256>)`` for one read from a verified
        snapshot, that followed by each filter for one filtered from such a run set. While its frames stay as
        they are, :meth:`memo` shares results with other run sets known as the same."""
        state = self._state()
        if state is not None:
            self._cache[("content",)] = (content, state)

    def _content(self, state: tuple | None = None) -> tuple | None:
        """What :meth:`share_as` said this run set holds, while its frames are unchanged since; else None."""
        kept = self._cache.get(("content",))
        state = self._state() if state is None and kept is not None else state
        return kept[0] if kept is not None and _same(kept[1], state) else None

    def _shared(self, state: tuple) -> dict | None:
        """The results kept for this run set's content (:data:`_SHARED`), or None when its content is not known."""
        content = self._content(state)
        if content is None:
            return None
        root = content[:2]  # the log: ("snapshot", its SHA-256)
        log = _SHARED.pop(root, None)
        if log is None:
            while len(_SHARED) >= _SHARED_LOGS:  # the oldest log's results are let go
                del _SHARED[next(iter(_SHARED))]
            log = {}
        _SHARED[root] = log  # the newest last
        return log.setdefault(content, {})

    def by_benchmark(self) -> list[tuple[Any, RunSet]]:
        """``(benchmark, rs.filter(benchmark=benchmark))`` for each benchmark of the runs and the tasks,
        sorted.

        Worked out once and kept while neither this run set nor any part has changed: the tables
        split a log by benchmark at every call."""
        def split() -> list[tuple[Any, RunSet, tuple | None]]:
            names = set(self.runs["benchmark"].drop_duplicates().astype(object)) \
                | set(self.tasks["benchmark"].drop_duplicates().astype(object))  # Python values of the few names
            out = []
            for name in sorted(names):
                part = self.filter(benchmark=name)
                out.append((name, part, part._state()))
            return out

        def unchanged(kept: list[tuple[Any, RunSet, tuple | None]]) -> bool:
            return all(state is not None and _same(state, part._state()) for _, part, state in kept)

        return [(name, part) for name, part, _ in self.memo("parts by benchmark", split, unchanged)]

    def keep_run_positions(self, name: str, pos: np.ndarray) -> None:
        ids, run_ids = arrow_of(getattr(self, name)["run_id"]), arrow_of(self.runs["run_id"])
        if ids is not None and run_ids is not None:
            self._cache[name] = (ids, run_ids, pos)

    def where(self, filters: Sequence[Any] | None) -> RunSet:
        """Return the runs a filter in pyarrow's syntax keeps, with their questions and labels.

        ``filters`` is what :func:`pyarrow.parquet.read_table` takes: a list of
        ``(column, op, value)`` tuples on ``runs`` columns, all of which must hold
        (``[("benchmark", "==", "lhaw"), ("trial", "<=", 2)]``), or a list of such lists, any
        of which must hold. Tasks and blockers are kept by the terms on the task key
        (``benchmark``, ``suite``, ``task_id``, ``variant_id``), as :meth:`filter` keeps them.
        ``ambiglib.load(path, filters=...)`` gives the same run set, reading only the
        matching partitions of a partitioned store.

        Raises
        ------
        ArgumentError
            A term on a column ``runs`` does not have, or not pyarrow's syntax.
        """
        from ambiglib.runlog import _filters as flt

        dnf = flt.normalize(filters, list(self.runs.columns))
        if dnf is None:
            return self

        def keep(frame: pd.DataFrame, expr: pc.Expression | None) -> np.ndarray:
            if expr is None:
                return np.ones(len(frame), dtype=bool)
            out = np.zeros(len(frame), dtype=bool)
            names = sorted({t[0] for conj in dnf for t in conj if t[0] in frame.columns})
            table = pa.Table.from_pandas(frame[names], preserve_index=False)
            table = table.append_column("__row", pa.array(np.arange(len(frame), dtype=np.int64)))
            out[table.filter(expr).column("__row").to_numpy()] = True
            return out

        tasks_expr = flt.expression(dnf, flt.TASK_COLUMNS)
        return self._subset(keep(self.runs, flt.expression(dnf)), _rows(self.tasks, keep(self.tasks, tasks_expr)),
                            _rows(self.blockers, keep(self.blockers, tasks_expr)), dict(self.skipped))

    def to_parquet(self, path: str | os.PathLike[str], *, compression: str | None = None,
                   partition_by: Sequence[str] = ()) -> Path:
        """Write the five frames as Parquet in folder ``path``; ``load`` reads it back.

        Without ``partition_by``, one ``<frame>.parquet`` file per frame. With it (e.g.
        ``("benchmark", "model")``), each frame is a hive-partitioned Parquet dataset
        (``<path>/runs/benchmark=lhaw/model=GPT-5.2/part-0.parquet``) that
        ``pyarrow.dataset``, DuckDB, Polars and Spark read as it is: runs, tasks and
        blockers are partitioned by the columns they have, questions and labels by their
        run's (``docs/scaling.md``). ``load(path, filters=...)`` then reads only the
        partitions a filter can match.

        Uncompressed by default, for the fastest reload; ``compression="zstd"`` gives
        smaller files.

        Raises
        ------
        ArgumentError
            A partition column that is not a text column of ``runs``, or a partition value hive partitioning
            cannot give back (its name for a missing value, ``__HIVE_DEFAULT_PARTITION__``; NUL; a folder name
            too long for the file system).
        FormatError
            ``path`` holds something other than an ambiglib run log.
        """
        from ambiglib.transcripts import read_turns as read

        turns = None
        if read is not None and not partition_by and self.runs["transcript_at"].notna().any():
            turns = ((r["run_id"], t) for r in self._transcribed() if (t := read(r)) is not None)
        return write_parquet(self.frames(), path, compression=compression, partition_by=tuple(partition_by),
                             transcripts=turns)

    def to_jsonl(self, path: str | os.PathLike[str]) -> Path:
        """Write the run log as canonical JSON Lines, each run with its ``transcript`` where its log holds one
        (read from the log one run at a time): a ``.jsonl``/``.jsonl.gz`` file, or a folder holding one file,
        ``log.jsonl`` (task records first). Either is written whole aside and put in place in one rename: an
        interrupt leaves the old file or folder as it was (a folder holding anything but a run log's files is
        refused)."""
        from ambiglib.transcripts import read_turns

        return write_jsonl(self, path, read_turns)

    def _transcribed(self) -> Iterator[dict[str, Any]]:
        """The rows of the runs whose log holds a conversation: what a transcript reader takes."""
        runs = self.runs.loc[self.runs["transcript_at"].notna()]
        yield from pa.Table.from_pandas(runs[["run_id", "n_questions", "source", "transcript_at"]],
                                        preserve_index=False).to_pylist()

    def summary(self) -> pd.DataFrame:
        """Count runs per benchmark, suite, model and condition.

        Returns
        -------
        pandas.DataFrame
            ``benchmark, suite, model, spec, ask_tool`` (and ``log``, for logs loaded together), ``n_runs, n_tasks, n_ok,
            n_invalid, n_timeout, n_error, n_asked, n_questions, mean_score``;
            ``n_asked`` counts runs with at least one question; ``mean_score`` is
            over runs whose status is not ``error``, with ``invalid`` and ``timeout``
            runs scoring 0 (Ambig-DS §5.1), and null where no run has a score
            (ask-only runs).
        """
        runs = self.runs
        by = summary_keys(bool(runs["log"].notna().any()))
        status = runs["status"].astype(str)
        failed = status.isin(["invalid", "timeout"])
        scored = runs["score"].mask(failed & runs["score"].isna(), 0.0).where(status != "error")
        work = runs[by].assign(
            _ok=(status == "ok"), _invalid=(status == "invalid"), _timeout=(status == "timeout"),
            _error=(status == "error"), _asked=runs["n_questions"] > 0, _q=runs["n_questions"],
            _task=runs["variant_id"],
        )
        cells = work.groupby(by, sort=False, observed=True, dropna=False).agg(
            n_runs=("_ok", "size"), n_tasks=("_task", "nunique"), n_ok=("_ok", "sum"),
            n_invalid=("_invalid", "sum"), n_timeout=("_timeout", "sum"), n_error=("_error", "sum"),
            n_asked=("_asked", "sum"), n_questions=("_q", "sum"),
        ).reset_index()
        scores = runs[by].assign(score=scored).dropna(subset=["score"]) \
            .groupby([*by, "score"], sort=False, observed=True, dropna=False).size().rename("count").reset_index()
        return summary_table(cells, scores, by)

    #: at most this many (benchmark, suite) rows and model names in the display
    DISPLAY_ROWS = 20

    def _display(self) -> tuple[list[str], pd.DataFrame, list[str]]:
        """What the display shows: the totals, a row per benchmark and suite, and the models (a few, then how
        many more); counts only, so that it is small and quick for a million runs."""
        runs, n_b = self.runs, self.runs["benchmark"].nunique() if len(self.runs) else 0
        totals = [f"{len(runs):,} runs", f"{len(self.tasks):,} tasks", f"{len(self.questions):,} questions",
                  f"{len(self.labels):,} labels", f"{n_b} benchmark{'s' if n_b != 1 else ''}"]
        keys = ["benchmark", "suite"]
        if len(runs):
            g = runs.groupby(keys, sort=True, observed=True)
            table = pd.DataFrame({"runs": g.size(), "models": g["model"].nunique(),
                                  "questions": g["n_questions"].sum(), "labels": g["n_labels"].sum()})
            tasks = self.tasks.groupby(keys, sort=True, observed=True).size() if len(self.tasks) else None
            table.insert(1, "tasks", 0 if tasks is None else tasks.reindex(table.index, fill_value=0))
            table = table.reset_index().astype({c: object for c in keys})
        else:
            table = pd.DataFrame(columns=[*keys, "runs", "tasks", "models", "questions", "labels"])
        models = sorted(map(str, runs["model"].unique())) if len(runs) else []
        return totals, table, models

    def _counts_line(self) -> str:
        skipped = sum(self.skipped.values())
        return (f"rejected by the load: {self.rejected:,} record{'s' if self.rejected != 1 else ''};"
                f" read but not runs (skipped): {skipped:,}")

    # ------------------------------------------------------------------ the four questions, and a run's turns

    def asking(self, **options: Any) -> Answer:
        """Does each agent ask when it should? Ask rates on ambiguous and fully specified tasks, and CalibScore,
        with their intervals (:func:`ambiglib.answers.asking`, whose options these are)."""
        from ambiglib.answers._notebook import asking_answer

        return asking_answer(self, **options)

    def question_quality(self, **options: Any) -> Answer:
        """Are its questions good? Questions per run, precision, recall, Ask-F1 and the judges' score, with their
        intervals (:func:`ambiglib.answers.question_quality`)."""
        from ambiglib.answers._notebook import question_quality_answer

        return question_quality_answer(self, **options)

    def payoff(self, **options: Any) -> Answer:
        """Does asking pay off? The score fully specified, ambiguous without the ask tool and with it, the gain and
        the gain per question, with their intervals (:func:`ambiglib.answers.payoff`)."""
        from ambiglib.answers._notebook import payoff_answer

        return payoff_answer(self, **options)

    def compare(self, a: object = None, b: object = None, *, metric: str = "mean_score", between: str = "model",
                **options: Any) -> Answer:
        """Is ``a`` better than ``b``? A metric compared between two models (or ask policies, or with and without
        the tool, or two logs: ``between``), paired by task, with the difference's interval and test; without ``a``
        and ``b``, every pair, Holm-adjusted (:func:`ambiglib.comparisons.paired_comparison`, whose options these
        are). The answer says in a sentence what was compared, the difference a − b by the sides' names and the
        verdict; two logs are compared the later loaded first (after − before), whichever order they are given in.
        ``.per_task()`` on the result lists the tasks behind the difference."""
        from ambiglib.answers._notebook import compare_answer

        return compare_answer(self, a, b, metric=metric, between=between, **options)

    def rank(self, metric: str = "mean_score", **options: Any) -> Answer:
        """How do the agents rank on ``metric``? Each agent's value with its interval, its rank interval, its share
        of first places and its group, per benchmark, after a global test; "best" only where one agent alone is in
        the top group (:func:`ambiglib.ranking.rank_agents`, whose options these are). ``.pairs`` gives every pair
        behind it, ``.plot()`` the rank intervals."""
        from ambiglib.answers._notebook import rank_answer

        return rank_answer(self, metric, **options)

    def transcript(self, run_id: str) -> Transcript:
        """Return the turns of run ``run_id``, read from its log now (:func:`ambiglib.transcripts.transcript`).

        Raises
        ------
        KeyError
            No run of this run set has this id.
        FormatError
            The file that holds the conversation cannot be read as its harness writes it.
        """
        from ambiglib.transcripts import transcript

        return transcript(self, run_id)

    def __repr__(self) -> str:
        totals, table, models = self._display()
        shown = table.head(self.DISPLAY_ROWS)
        lines = [f"RunSet: {', '.join(totals)}"]
        if len(table):
            lines += ["  " + line for line in shown.to_string(index=False).splitlines()]
            if len(table) > len(shown):
                lines.append(f"  ... and {len(table) - len(shown)} more benchmark and suite rows")
        more = len(models) - self.DISPLAY_ROWS
        lines.append(f"models: {', '.join(models[:self.DISPLAY_ROWS])}" + (f" and {more} more" if more > 0 else ""))
        lines.append(self._counts_line())
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """Jupyter's display: the totals, a row per benchmark and suite, the models, rejected and skipped
        counts (the template ``runset.html`` escapes every value from the log)."""
        from ambiglib._markup import render

        totals, table, models = self._display()
        shown = table.head(self.DISPLAY_ROWS)
        rows = [[v if isinstance(v, str) else f"{int(v):,}" for v in row] for row in shown.itertuples(index=False)]
        return str(render("runset.html", totals=", ".join(totals), columns=[str(c) for c in shown.columns],
                          rows=rows, more=len(table) - len(shown), models=", ".join(models[:self.DISPLAY_ROWS]),
                          extra=len(models) - self.DISPLAY_ROWS, counts=self._counts_line()))

    # ------------------------------------------------------------------------- construction

    @classmethod
    def from_records(cls, records: Iterable[dict], *, source: str = "<records>") -> RunSet:
        """Build a RunSet from canonical records given as dicts, checked as a file would be.

        Raises the first problem, as :func:`ambiglib.load` does; messages name the
        record by its 1-based position (``<records>:3: field 'spec' ...``).
        """
        from ambiglib.runlog._jsonl import read_records

        read = read_records(records, source)
        if read.n_run_records == 0:
            raise FormatError(f"{source}: no run records found")
        runset, dup_errors = build_runset([read])
        errors = sorted(read.errors + dup_errors, key=lambda e: e.line or 0)
        if errors:
            raise errors[0].to_exception(len(errors) - 1)
        return runset

    @classmethod
    def from_tables(cls, tables: dict[str, pa.Table]) -> RunSet:
        """Build a RunSet from Arrow tables of the five frames (e.g. read from Parquet)."""
        frames = {}
        for name in FRAMES:
            table = tables[name]
            missing = [c for c in COLUMNS[name] if c not in table.schema.names]
            if missing:
                raise FormatError(
                    f"{name}.parquet: missing column(s) {', '.join(missing)};"
                    f" a {name} frame has {', '.join(COLUMNS[name])}"
                )
            frames[name] = _frame(table.select(list(COLUMNS[name])))
        return cls(**frames)


def build_runset(reads: list[FileRead]) -> tuple[RunSet, list[LoadError]]:
    """Turn the records read from files into a RunSet, rejecting repeated keys; each read's table is let go.

    Each question and label comes from its run's record, so which run it belongs to is known here
    and kept (:meth:`RunSet.run_positions`), where every run has an id: run ids are unique once repeated
    keys are rejected, the key's parts being escaped before they are joined (:func:`_run_ids`)."""
    tables, links, errors = _build_tables(reads, let_go=True)
    rs = RunSet(**{name: _frame(table) for name, table in tables.items()})
    if tables["runs"].column("run_id").null_count == 0:
        for name, pos in links.items():
            rs.keep_run_positions(name, pos)
    return rs, errors


