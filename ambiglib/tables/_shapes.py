"""What each table needs from a run log, which benchmarks in a log have it, and whose conventions they follow.

A benchmark's name is a label, never a switch: every table in :mod:`ambiglib.tables`
applies to each benchmark whose runs carry the data it needs (a :class:`Shape`), and
says which benchmark each row is from. A log with no benchmark of the right shape
gives an empty table whose ``attrs["note"]`` says what is missing, e.g. "no runs with
registered blockers and the ask tool in this log".

Where the three papers define a quantity differently (HIL-Bench's pass@k is "any of
the first k trials"; LHAW scores each condition over its own variants; Ambig-DS asks
for calibration on its ask-only runs), a benchmark gets its paper's
:class:`Conventions` when it carries that paper's name, and neutral ones otherwise.
A benchmark of your own follows a paper's conventions when you say so::

    tables.judgment_gap(rs, conventions={"clarifybench": "hil-bench"})

(in the notebooks and the report: the ``conventions`` parameter, ``conventions:
{clarifybench: hil-bench}`` in a ``--params`` file).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal, cast

import numpy as np
import pandas as pd

from ambiglib.runset import RunSet

__all__ = ["Shape", "Conventions", "CONVENTIONS", "conventions_for", "applicable", "applicable_parts", "SHAPES", "labels_of",
           "label_prefix"]


# ============================================================================= shapes


@dataclass(frozen=True)
class Shape:
    """A property of one benchmark's runs that a table needs.

    ``needs`` completes the sentence "no … in this log"; ``present`` is tested on the
    runs of one benchmark.
    """

    name: str
    needs: str
    present: Callable[[RunSet], bool]
    fix: str = ""

    def __and__(self, other: Shape) -> Shape:
        return Shape(f"{self.name}+{other.name}", f"{self.needs} and {other.needs}",
                     lambda rs: _has(rs, self) and _has(rs, other),
                     "; ".join(f for f in (self.fix, other.fix) if f))

    @property
    def note(self) -> str:
        """What an empty table says: "no <needs> in this log: <what to add>"."""
        return f"no {self.needs} in this log" + (f": {self.fix}" if self.fix else "")


#: The runs columns the shape tests read: only these are taken row by row (a log's runs have ~30 columns,
#: some of them long texts, and every test selects rows)
_READ = ("status", "spec", "ask_tool", "protocol", "task_id", "variant_id", "passed", "category", "score",
         "checkpoints")


def _equals(column: pd.Series, value: object) -> np.ndarray:
    """Which rows hold ``value`` (a null holds none): compared where the column is, in Arrow for an
    Arrow-backed one, without a Python object per row."""
    return cast(np.ndarray, (column == value).to_numpy(dtype=bool, na_value=False))


def _ok(rs: RunSet, read: tuple[str, ...] | None = _READ) -> pd.DataFrame:
    """The runs that did not fail with an error: their columns ``read`` (None: all)."""
    runs = rs.runs
    keep = ~_equals(runs["status"], "error")
    return (runs if read is None else runs[[c for c in read if c in runs.columns]])[keep]


def _cell(runs: pd.DataFrame, *, spec: str | None = None, ask_tool: bool | None = None,
          protocol: str | None = None) -> pd.DataFrame:
    keep = np.ones(len(runs), dtype=bool)
    if spec is not None:
        keep &= _equals(runs["spec"], spec)
    if ask_tool is not None:
        keep &= runs["ask_tool"].to_numpy(dtype=bool, na_value=False) == ask_tool
    if protocol is not None:
        keep &= _equals(runs["protocol"], protocol)
    return runs[keep]


def _variants(runs: pd.DataFrame) -> set[str]:
    return set(runs["variant_id"].astype(object))


def _has_blockers(rs: RunSet) -> bool:
    return len(rs.blockers) > 0


def _blockers_and_tool(rs: RunSet) -> bool:
    return _has_blockers(rs) and len(_cell(_ok(rs), spec="ambiguous", ask_tool=True, protocol="solve")) > 0


def _calibration(rs: RunSet) -> bool:
    tool = _cell(_ok(rs), ask_tool=True)
    return bool(len(_cell(tool, spec="full")) and len(_cell(tool, spec="ambiguous")))


def _tool_pairs(rs: RunSet) -> bool:
    amb = _cell(_ok(rs), spec="ambiguous", protocol="solve")
    return bool(_variants(_cell(amb, ask_tool=True)) & _variants(_cell(amb, ask_tool=False)))


def _policies(rs: RunSet) -> bool:
    tool = _cell(_ok(rs, read=None), spec="ambiguous", ask_tool=True, protocol="solve")
    return int(tool["policy"].astype(object).nunique()) > 1


def _pass_outcomes(rs: RunSet) -> bool:
    return bool(_cell(_ok(rs), protocol="solve")["passed"].notna().any())


def _categories(rs: RunSet) -> bool:
    return bool(_cell(_ok(rs), protocol="solve")["category"].notna().any())


def _scored(runs: pd.DataFrame) -> pd.DataFrame:
    status = runs["status"].astype(object)
    return runs[runs["score"].notna().to_numpy() | status.isin(("invalid", "timeout")).to_numpy()]


def _three_conditions(rs: RunSet) -> bool:
    solve = _scored(_cell(_ok(rs), protocol="solve"))
    tasks = [set(_cell(solve, spec=s, ask_tool=t)["task_id"].astype(object))
             for s, t in (("full", False), ("ambiguous", False), ("ambiguous", True))]
    return bool(tasks[0] & tasks[1] & tasks[2])


def _full_and_ambiguous(rs: RunSet) -> bool:
    solve = _scored(_cell(_ok(rs), protocol="solve", ask_tool=False))
    return bool(set(_cell(solve, spec="full")["task_id"].astype(object))
                & set(_cell(solve, spec="ambiguous")["task_id"].astype(object)))


def _terminal_states(rs: RunSet) -> bool:
    runs = _cell(_ok(rs), spec="ambiguous", ask_tool=False, protocol="solve")
    return bool(len(runs)) and bool(runs["checkpoints"].map(_nonempty).any())


def _nonempty(value: object) -> bool:
    return isinstance(value, (list, tuple, np.ndarray)) and len(value) > 0


def _task_field(column: str) -> Callable[[RunSet], bool]:
    def present(rs: RunSet) -> bool:
        values = rs.tasks[column]
        if column == "dimensions":
            return bool(values.map(_nonempty).any())
        return bool(values.notna().any())
    return present


@functools.cache  # one Shape per facet: a test of it is kept with the run set (``_has``)
def labels_of(facet: str) -> Shape:
    """Judge labels of one facet (``trace``, ``failure.logic``, ``over_ask``, ...)."""
    return Shape(f"labels:{facet}", f"judge labels of facet {facet!r}",
                 lambda rs: bool(_equals(rs.labels["facet"], facet).any()),
                 f"add the judges' labels of facet {facet!r} to the runs (docs/runlog.md, labels)")


@functools.cache
def label_prefix(prefix: str, what: str) -> Shape:
    """Judge labels whose facet starts with ``prefix``."""
    return Shape(f"labels:{prefix}*", what,
                 lambda rs: bool(rs.labels["facet"].astype(str).str.startswith(prefix).any()),
                 f"add judge labels whose facet starts {prefix!r} to the runs (docs/runlog.md, labels)")


#: The shapes the tables need, by name (``docs/own-benchmark.md`` lists which table needs which).
SHAPES: dict[str, Shape] = {s.name: s for s in (
    Shape("blockers", "task records with registered blockers", _has_blockers,
          "add task records listing each task's blockers (docs/runlog.md)"),
    Shape("blockers_and_tool", "runs with registered blockers and the ask tool", _blockers_and_tool,  # solve runs
          "add task records listing each task's blockers, and solve runs with the ask tool on the ambiguous tasks"),
    Shape("calibration", "runs with the ask tool on both fully specified and ambiguous tasks", _calibration,
          "add runs with the ask tool on the fully specified tasks as well as the ambiguous ones"),
    Shape("tool_pairs", "runs with and without the ask tool on the same ambiguous variants", _tool_pairs,
          "add runs without the ask tool on the ambiguous tasks run with it (or with it, on those run without)"),
    Shape("policies", "runs with the ask tool under more than one ask policy (LHAW's personas or prompting"
          " strategies)", _policies, "add runs of the same agents under other personas or strategies ('policy')"),
    Shape("categories", "runs with a framing category", _categories,
          "add each run's framing 'category' (a judge's reading of its answer, Ambig-DS §5.2)"),
    Shape("pass_outcomes", "solve runs with a pass/fail outcome", _pass_outcomes, "add each run's 'passed'"),
    Shape("three_conditions", "scored runs in all three conditions (full, ambiguous, ambiguous with the ask tool)"
          " on the same tasks", _three_conditions,
          "add scored runs of the same tasks fully specified, ambiguous, and ambiguous with the ask tool"),
    Shape("full_and_ambiguous", "scored runs without the ask tool on both specifications of the same tasks",
          _full_and_ambiguous, "add scored no-tool runs of the same tasks fully specified and ambiguous"),
    Shape("terminal_states", "no-tool runs on ambiguous variants with checkpoint terminal states", _terminal_states,
          "add each no-tool run's 'checkpoints' (LHAW's terminal states)"),
    Shape("ambiguity_class", "task records with an ambiguity class", _task_field("ambiguity_class"),
          "add each variant's 'ambiguity_class' to its task record"),
    Shape("dimensions", "task records with information dimensions", _task_field("dimensions"),
          "add each variant's information 'dimensions' to its task record"),
    Shape("strategy", "task records with a removal strategy", _task_field("strategy"),
          "add each variant's removal 'strategy' to its task record"),
)}


def applicable(rs: RunSet, shape: Shape) -> list[str]:
    """The benchmarks of ``rs`` (sorted) whose runs have ``shape``."""
    return [b for b, _ in applicable_parts(rs, shape)]


def applicable_parts(rs: RunSet, shape: Shape) -> list[tuple[str, RunSet]]:
    """``(benchmark, its runs)`` for each benchmark of ``rs`` (sorted) whose runs have ``shape``.

    The split by benchmark (:meth:`RunSet.by_benchmark`) and each test of a shape are kept with the run
    set while its frames are unchanged: a notebook's tables split one log, and test its parts, once."""
    return [(b, sub) for b, sub in rs.by_benchmark() if _has(sub, shape)]


def _has(rs: RunSet, shape: Shape) -> bool:
    """Whether ``rs`` has ``shape`` (kept with the run set while its frames are unchanged)."""
    has: bool = rs.memo(("shape", shape), lambda: bool(shape.present(rs)), share=True)  # RunSet.memo gives Any
    return has


# ============================================================================= conventions


@dataclass(frozen=True)
class Conventions:
    """How a benchmark's paper computes what several papers define differently.

    Attributes
    ----------
    name : str
        ``hil-bench``, ``ambig-ds``, ``lhaw`` or ``neutral``.
    pass_estimator : {"unbiased", "first_k"}
        pass@k: ``first_k`` is HIL-Bench's "any of the first k trials"; ``unbiased`` is
        Chen et al.'s estimator.
    voi_paired : bool
        With/without-tool comparisons over the variants with results in both conditions
        (True), or each condition over its own variants (False, as LHAW prints).
    calibration_protocol : str or None
        Ask calibration from the runs of this protocol only (Ambig-DS: ``ask_only``); None:
        every protocol, split by protocol.
    """

    name: str
    pass_estimator: Literal["unbiased", "first_k"] = "unbiased"
    voi_paired: bool = True
    calibration_protocol: str | None = None


#: Each paper's conventions, by the benchmark name its harness writes; any other name gets ``neutral``.
CONVENTIONS: dict[str, Conventions] = {
    "hil-bench": Conventions("hil-bench", pass_estimator="first_k"),
    "ambig-ds": Conventions("ambig-ds", calibration_protocol="ask_only"),
    "lhaw": Conventions("lhaw", voi_paired=False),
    "neutral": Conventions("neutral"),
}


def conventions_for(benchmark: str, conventions: Mapping[str, str] | None = None) -> Conventions:
    """The conventions a benchmark follows: ``conventions[benchmark]`` when given, else its paper's
    (by name), else neutral.

    Raises
    ------
    ValueError
        ``conventions`` names a convention set that does not exist.
    """
    chosen = (conventions or {}).get(benchmark)
    if chosen is None:
        return CONVENTIONS.get(benchmark, CONVENTIONS["neutral"])
    if chosen not in CONVENTIONS:
        raise ValueError(f"conventions: benchmark {benchmark!r} is to follow {chosen!r}, which is not one of"
                         f" {sorted(CONVENTIONS)}")
    return CONVENTIONS[chosen]


# ============================================================================= what the metrics will refuse


def metric_warnings(rs: RunSet) -> list[str]:
    """What the metrics will later refuse, found while validating a run log (``ambiglib validate``).

    * ask-tool runs on ambiguous tasks whose task has no record, in a benchmark that registers
      blockers (Ask-F1 needs each task's blockers);
    * questions naming a blocker their task does not register;
    * questions the log does not attribute to a blocker at all (Ask-F1 refuses them);
    * runs of one benchmark, suite, model and condition that carry several ask policies (every
      metric refuses to pool them; the tables split by policy).
    """
    out: list[str] = []
    runs = _ok(rs, read=None)
    with_blockers = set(rs.blockers["benchmark"].astype(object))
    keyed = rs.tasks[["benchmark", "suite", "variant_id"]].astype(object)
    known = set(map(tuple, keyed.to_numpy()))
    tool = _cell(runs, spec="ambiguous", ask_tool=True)
    tool = tool[tool["benchmark"].astype(object).isin(with_blockers)]
    keys = tool[["benchmark", "suite", "variant_id"]].astype(object)
    missing = [k for k in map(tuple, keys.to_numpy()) if k not in known]
    if missing:
        first = missing[0]
        out.append(f"{len(missing)} ask-tool run(s) on ambiguous tasks have no task record (first: benchmark={first[0]!r},"
                   f" suite={first[1]!r}, variant_id={first[2]!r}, in {len(set(missing))} task(s)); Ask-F1 needs each"
                   " task's registered blockers and will refuse them: load the task records or filter those runs out")
    q = rs.questions
    named = q[q["blocker_id"].notna()][["run_id", "q_index", "blocker_id"]].astype(object)
    if len(named):
        where = rs.runs[["run_id", "benchmark", "suite", "variant_id"]].astype(object)
        named = named.merge(where, on="run_id")
        named = named[[k in known for k in map(tuple, named[["benchmark", "suite", "variant_id"]].to_numpy())]]
        registered = rs.blockers[["benchmark", "suite", "variant_id", "blocker_id"]].astype(object).assign(_ok=True)
        check = named.merge(registered, on=["benchmark", "suite", "variant_id", "blocker_id"], how="left")
        stray = check[check["_ok"].isna()]
        if len(stray):
            s = stray.iloc[0]
            out.append(f"{len(stray)} question(s) name a blocker their task does not register (first: run {s['run_id']!r}"
                       f" question {s['q_index']} names {s['blocker_id']!r}, task benchmark={s['benchmark']!r},"
                       f" suite={s['suite']!r}, variant_id={s['variant_id']!r}); Ask-F1 will refuse them")
    unattributed = q[~q["attributed"].to_numpy(dtype=bool, na_value=True)]
    if len(unattributed):
        first = unattributed.iloc[0]
        who = rs.runs[["run_id", "benchmark", "model"]].astype(object).merge(
            unattributed[["run_id"]].astype(object).drop_duplicates(), on="run_id")
        groups = sorted(set(map(tuple, who[["benchmark", "model"]].to_numpy())))
        out.append(f"{len(unattributed)} question(s) of {len(who)} run(s) are not attributed to a blocker ("
                   + ", ".join(" ".join(map(str, g)) for g in groups[:5]) + (" ..." if len(groups) > 5 else "")
                   + f"; first: run {first['run_id']!r} question {first['q_index']}): the log does not say which blocker"
                   " each asked about (an Inspect log: the ask tool's JSON answer field 'blocker', or a scorer's"
                   " metadata 'asked_blockers'); Ask-F1 will refuse them and the tables leave their precision and"
                   " recall empty")
    cell = ["benchmark", "suite", "model", "spec", "ask_tool", "protocol"]
    plain = runs[[*cell, "policy"]].astype(object)
    policies = plain.groupby(cell, sort=True)["policy"].agg(lambda p: sorted(set(map(str, p))))
    for key, values in policies.items():
        if len(values) > 1:
            where = " ".join(str(v) for v in key[:3])
            condition = f"{key[3]}, {'with' if key[4] else 'without'} the ask tool, {key[5]}"
            out.append(f"{where} ({condition}): runs carry {len(values)} ask policies ({', '.join(values)}); every"
                       " metric refuses to pool them (group by 'policy' or filter one; the tables split by policy)")
    return out + outcome_warnings(rs)


def outcome_warnings(rs: RunSet) -> list[str]:
    """Runs whose ``passed`` and ``score`` disagree under any rule a benchmark could pass by.

    A benchmark passes a run by a threshold on its score (HIL-Bench and Ambig-DS: a score of 1; MCP-Atlas:
    coverage >= 0.75), so within one benchmark and suite no failed run may score as high as a passed one; and a
    run that failed must not show a score of 1.000 (it rounds to a pass in every table). Each is named, with
    its runs, and left as the log says (pass rates read ``passed``, mean scores ``score``).
    """
    runs = rs.runs
    both = runs[runs["passed"].notna().to_numpy(dtype=bool) & runs["score"].notna().to_numpy(dtype=bool)]
    if both.empty:
        return []
    out: list[str] = []
    work = both[["run_id", "benchmark", "suite", "score", "passed"]].astype(
        {"score": "float64", "passed": bool, "benchmark": object, "suite": object})
    for (bench, suite), g in work.groupby(["benchmark", "suite"], sort=True):
        passed, failed = g[g["passed"]], g[~g["passed"]]
        if len(passed) and len(failed) and failed["score"].max() >= passed["score"].min():
            low, high = passed.loc[passed["score"].idxmin()], failed.loc[failed["score"].idxmax()]
            crossing = int((failed["score"] >= passed["score"].min()).sum() + (passed["score"] <= failed["score"].max()).sum())
            out.append(f"{bench} {suite}: passed and score disagree in {crossing} run(s): run {low['run_id']!r} passed"
                       f" with score {low['score']:g}, run {high['run_id']!r} failed with score {high['score']:g};"
                       " no threshold on the score passes the one and fails the other (pass rates read passed, mean"
                       " scores read score: check the harness's output or the importer's mapping)")
        shown_one = failed[(failed["score"] < 1) & (failed["score"].round(3) >= 1)]
        if len(shown_one):
            r = shown_one.iloc[0]
            out.append(f"{bench} {suite}: {len(shown_one)} failed run(s) score just under 1 (run {r['run_id']!r}:"
                       f" {float(r['score'])!r}), shown as 1.000 in every table beside passed runs: the tables round to 3"
                       " decimals")
    return out
