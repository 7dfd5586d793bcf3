"""What is paired with what: the blocks a comparison pairs sides within (per benchmark, suite and the columns
it holds fixed), the pairs of sides, the tasks both sides have, and why a benchmark or a pair gives no row.

Nothing is pooled across a condition the comparison does not name: comparing models holds the ask policy fixed
(one comparison per policy), comparing policies holds the model fixed, and comparing with and without the tool
pairs each with-tool policy with the no-tool runs it was run against (:func:`ambiglib.tables.value_of_information`'s
rule); logs loaded together pair one model and policy's runs across the logs, task by task."""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

import numpy as np
import pandas as pd

from ambiglib.comparisons._comparable import _VOI, CONDITIONED, describe_condition
from ambiglib.comparisons._sums import _not_on_store, _task_sums
from ambiglib.engines._answers import ON_STORE, StoreView, viewed
from ambiglib.engines._store import NotPooled, StoreMetrics
from ambiglib.errors import ArgumentError
from ambiglib.runset import RunSet
from ambiglib.tables._common import _per_tool_policy
from ambiglib.tables._shapes import conventions_for

_SIDES = ("model", "policy", "ask_tool", "log")
#: what each comparison holds fixed (one comparison per value), the agent keys other than its sides: ``log`` (logs
#: loaded together, :mod:`ambiglib.loading._labels`) pairs one model and policy's runs across the logs by task
_FIXED = {"model": ["policy"], "policy": ["model"], "ask_tool": ["model", "policy"], "log": ["model", "policy"]}


def _groups(rs: RunSet | StoreView, metric: str, between: str, condition, k: int, conventions, pool_suites: bool,
            fixed: list[str], why: list, design: list[str]):
    """The blocks a comparison pairs sides within: per benchmark, scope (with and without the tool: per with-tool
    policy), suite and fixed columns, ``(head, per-task sums, runs each side ran, run values, sums, condition in
    words)``; what a benchmark lacks goes to ``why``, what its design means to ``design``."""
    benches = _benchmarks_of(rs)
    for bench in benches:
        sub, conv = rs.filter(benchmark=bench), conventions_for(bench, conventions)
        where = describe_condition(metric, between, condition, conv)
        lacks = _lacks(sub, metric, between, condition)
        if lacks:
            why.append(f"{bench}: {lacks}" if len(benches) > 1 else lacks)
            continue
        for label, runs in _scopes(sub, metric, between, condition):
            keys = ["suite", *[c for c in fixed if c != "policy" or between != "ask_tool"], between]
            sums = _task_sums(runs, metric, keys, k, conv)
            if len(sums.per) == 0:
                continue
            design += [f"{bench}: {d}" if len(benches) > 1 else d for d in sums.design if d not in design]

            suites = ", ".join(sorted(map(str, sums.per["suite"].unique())))

            def as_per(frame: pd.DataFrame | None, label=label, suites: str = suites) -> pd.DataFrame | None:
                if frame is None:
                    return None
                frame = frame.assign(policy=label) if between == "ask_tool" else frame
                if pool_suites:  # a task is a task of its suite; the comparison spans them all
                    frame = frame.assign(task_id=frame["suite"].astype(str) + " / " + frame["task_id"].astype(str),
                                         suite=suites)
                return frame

            per, ran, values = as_per(sums.per), as_per(sums.ran), as_per(sums.runs)
            assert per is not None  # (sums.per is a frame)
            # what a block's comparison and ranking read of the sums is their rules, not their frames (given here a
            # block at a time): the frames are not kept beside their copies while the blocks are compared
            sums = replace(sums, per=sums.per.head(0), ran=None, runs=None)
            group_keys = ["suite", *fixed]
            for key, block in per.groupby(group_keys, sort=True):
                head = {"benchmark": bench, **dict(zip(group_keys, key))}
                yield (head, block, _of_group(ran, group_keys, key), _of_group(values, group_keys, key), sums,
                       where)


def _of_group(frame: pd.DataFrame | None, keys: list[str], key: tuple) -> pd.DataFrame | None:
    if frame is None:
        return None
    mask = np.ones(len(frame), bool)
    for column, value in zip(keys, key):
        mask &= (frame[column] == value).to_numpy()
    return frame[mask]


def count_pairs(rs: RunSet | StoreMetrics | StoreView, *, metric: str = "mean_score", between: str = "model",
                condition: tuple[str, bool] | None = ("ambiguous", True)) -> tuple[int, int, str]:
    """How many pairs :func:`paired_comparison` without ``a`` and ``b`` would compare at most, before it computes
    any: ``(pairs, sides, where)``, ``sides`` the most sides of one comparison group (a benchmark, suite and the
    fixed columns) and ``where`` that group in words. Counted from the runs in the metric's scope (not errors); a
    pair that shares no task gives no row, so the table may have fewer."""
    rs = viewed(rs)
    runs = _conditions(rs)
    runs = runs[(runs["status"] != "error").to_numpy(dtype=bool, na_value=True)]
    spec, tool = runs["spec"].astype(object).to_numpy(), runs["ask_tool"].to_numpy(dtype=bool, na_value=False)
    if between == "ask_tool":  # one pair a with-tool policy: it has no more than that
        keep = spec == "ambiguous"
    elif metric in CONDITIONED and condition is not None:
        keep = (spec == condition[0]) & (tool == condition[1])
    elif metric == "calib_score":
        keep = tool
    else:
        keep = (spec == "ambiguous") & tool
    groups = ["benchmark", "suite", *[c for c in _fixed(rs, between) if c != "policy" or between != "ask_tool"]]
    side = "policy" if between == "ask_tool" else between
    n = runs[keep][[*groups, side]].astype(str).drop_duplicates().groupby(groups, sort=True).size()
    if len(n) == 0:
        return 0, 0, "no runs"
    if between == "ask_tool":
        return int(n.sum()), 2, " ".join(n.idxmax())
    return int((n * (n - 1) // 2).sum()), int(n.max()), " ".join(n.idxmax())


def _scopes(rs: RunSet | StoreView, metric: str, between: str, condition):
    """The runs each comparison draws from: (label, runs)."""
    if between == "ask_tool":
        assert isinstance(rs, RunSet)  # (refused over a store by _on_store)
        amb = rs.filter(spec="ambiguous", protocol="solve")
        yield from _per_tool_policy(amb)
        return
    if metric in CONDITIONED and condition is not None:
        spec, tool = condition
        rs = rs.filter(spec=spec, ask_tool=tool)
    yield None, rs


def _fixed(rs: RunSet | StoreView, between: str) -> list[str]:
    """The columns a comparison ``between`` holds fixed: :data:`_FIXED`, and ``log`` too in a run set of several
    logs (two models are compared within each log, never pooled across them). A run set where some runs name a
    log and others do not is an ArgumentError: which log the others belong to cannot be told."""
    fixed = list(_FIXED[between])
    if isinstance(rs, StoreView):  # (a store of several logs is refused by _on_store)
        return fixed
    named = rs.runs["log"].notna().to_numpy(dtype=bool) if "log" in rs.runs else np.zeros(0, bool)
    if named.any() and not named.all():
        raise ArgumentError(f"paired_comparison: {int((~named).sum()):,} runs name no log and {int(named.sum()):,}"
                            f" do (logs {', '.join(map(repr, _side_order(rs, 'log') or []))}): which log the others belong"
                            f" to cannot be told; load every log by label (ambiglib.load({{label: path, ...}}))")
    if between == "log" and _one_model_a_log(rs) is not None:  # a new version of one agent: its logs are paired
        fixed.remove("model")
    return fixed + ["log"] if named.any() and between != "log" else fixed


def _one_model_a_log(rs: RunSet) -> str | None:
    """Where each log holds one model and no two logs the same (the same agent as ``mockllm/v1`` before and
    ``mockllm/v2`` after), the logs' models in words ("before: mockllm/v1; after: mockllm/v2"): a comparison of
    the logs pairs them as one agent's versions rather than finding no model in two logs. Else None."""
    if "log" not in rs.runs or not rs.runs["log"].notna().all():
        return None
    runs = _log_models(rs)
    if runs["log"].nunique() < 2 or runs["log"].duplicated().any() or runs["model"].duplicated().any():
        return None
    return "; ".join(f"{log}: {model}" for log, model in zip(runs["log"], runs["model"]))


def _log_models(rs: RunSet) -> pd.DataFrame:
    """Each (log, model) pair of the runs once, as text: kept with the run set (a comparison of logs reads it for
    each pair, and its refusal again)."""
    return rs.memo(("log-models",), lambda: rs.runs[["log", "model"]].astype(str).drop_duplicates())


def _side_order(rs: RunSet | StoreView, between: str) -> list | None:
    """The logs in the order they were loaded (each one's first run), for ``between="log"``; else None."""
    if between != "log" or isinstance(rs, StoreView) or "log" not in rs.runs:
        return None
    return list(dict.fromkeys(rs.runs["log"].dropna().astype(object)))


def _ordered_pairs(values: list, wanted: tuple, between: str, order: list | None = None) -> list[tuple]:
    """The pairs (a, b) to compare: ``wanted`` alone when given; else every two sides, sorted (with the tool
    first); logs (``order``, as loaded) each later one as a against each earlier one, so that a − b is
    after − before."""
    if wanted[0] is not None:
        a, b = wanted
        return [(a, b)] if a in values and b in values else []
    if order is not None:
        sides = [v for v in order if v in values]
        return [(later, earlier) for i, earlier in enumerate(sides) for later in sides[i + 1:]]
    sides = sorted(values, key=lambda v: (not v) if between == "ask_tool" else str(v))
    return list(combinations(sides, 2))


def _sides(block: pd.DataFrame, between: str, a, b) -> tuple[pd.DataFrame, pd.DataFrame, pd.Index]:
    """Each side's per-task sums, by task, and the tasks both sides have (sorted)."""
    ta = block[block[between] == a].set_index("task_id")
    tb = block[block[between] == b].set_index("task_id")
    return ta, tb, ta.index.intersection(tb.index).sort_values()  # index operations: no Python object per task


def _collapsed(why: list[str | tuple[str, str]]) -> list[str]:
    """The reasons pairs were not compared, one note per reason: a reason shared by many pairs (every pair of
    four models under four policies) is said once, with how many pairs and the first of them."""
    notes: list[str] = []
    pairs: dict[str, list[str]] = {}
    for w in why:
        if isinstance(w, str):
            notes.append(w)
        else:
            pairs.setdefault(w[0], []).append(w[1])
    for reason, which in pairs.items():
        notes.append(f"{which[0]}: {reason}" if len(which) == 1 else
                     f"{len(which)} pairs: {reason} (first: {which[0]}; last: {which[-1]})")
    return notes


def _where(fixed: dict) -> str:
    return " ".join(str(v) for v in fixed.values())


def _lacks(rs: RunSet | StoreView, metric: str, between: str, condition) -> str | None:
    """What one benchmark's runs lack for the comparison, and what to add (None when they have it)."""
    from ambiglib.tables._shapes import SHAPES

    runs = _conditions(rs)
    if between == "ask_tool" or metric in _VOI:
        if not _has(rs, "tool_pairs"):
            return (f"{metric} compares runs with and without the ask tool on the same ambiguous tasks, and this log"
                    " has no runs without the tool on the ambiguous tasks that have runs with it: add them (a"
                    " no-tool condition)")
    elif metric == "ask_rate":
        # masks, not frames: whether any run is in scope is all that is asked (a copy of 500,000 runs was not)
        ok = (runs["status"] != "error").to_numpy(dtype=bool, na_value=True) \
            & runs["ask_tool"].to_numpy(dtype=bool, na_value=False)
        if condition is not None:
            ok &= (runs["spec"] == condition[0]).to_numpy(dtype=bool, na_value=False)
        if not ok.any():
            return (f"ask_rate needs runs with the ask tool on {describe_condition(metric, between, condition)}: add"
                    " that condition (or choose the other with --condition full+tool or ambiguous+tool)")
    elif metric in CONDITIONED and condition is not None:
        spec, tool = condition
        # a null in a comparison keeps no run, as boolean indexing with it does
        ok = (runs["status"] != "error").to_numpy(dtype=bool, na_value=False)
        here = ok & (runs["spec"] == spec).to_numpy(dtype=bool, na_value=False) \
            & (runs["ask_tool"] == tool).to_numpy(dtype=bool, na_value=False) \
            & (runs["protocol"] == "solve").to_numpy(dtype=bool, na_value=False)
        if not here.any():
            present = sorted({describe_condition(metric, "model", (s, bool(t)))
                              for s, t in zip(runs["spec"][ok], runs["ask_tool"][ok])})
            return (f"no solve runs on {describe_condition(metric, between, condition)} in this log (it has: "
                    f"{'; '.join(present) or 'none'}); choose one with --condition")
    elif metric == "judge_score" and isinstance(rs, RunSet) and not (
            rs.labels["q_index"].notna().any() if len(rs.labels) else False):  # (not compared over a store)
        return ("judge_score needs the judges' scores of single questions: add labels with 'q_index' (a judge's"
                " score of one question, docs/runlog.md)")
    elif metric == "calib_score" and not _has(rs, "calibration"):
        return f"calib_score needs {SHAPES['calibration'].needs}: {SHAPES['calibration'].fix}"
    elif metric in ("ask_f1", "precision", "recall") and not _has(rs, "blockers_and_tool"):
        return f"{metric} needs {SHAPES['blockers_and_tool'].needs}: {SHAPES['blockers_and_tool'].fix}"
    return None


def _nothing_to_compare(rs: RunSet | StoreView, between: str) -> str:
    """Why a comparison has no row when no benchmark said why: too few sides."""
    runs = _conditions(rs)
    if len(runs) == 0:
        return "the run log has no runs"
    if between == "log" and isinstance(rs, RunSet) and rs.runs["log"].isna().all():  # (a store: refused)
        return ("its runs name no log: between='log' compares logs loaded together, ambiglib.load({'before': PATH,"
                " 'after': PATH}) (ambiglib compare --runs before=PATH --runs after=PATH --between log)")
    if between == "log" and isinstance(rs, RunSet):  # each log's agents: two logs of different models share none
        runs = _log_models(rs)
        models = runs.groupby("log", sort=False)["model"].agg(lambda m: ", ".join(sorted(m)))
        per_log = runs.groupby("model")["log"].nunique()
        if len(models) > 1 and (per_log < 2).all():
            return (f"the logs share no model ({'; '.join(f'{log}: {m}' for log, m in models.items())}):"
                    " between='log' pairs one model's runs across the logs, task by task")
    values = sorted(map(str, set(runs[between].astype(object))))
    if len(values) < 2:
        return f"only one {between} in this log ({', '.join(values)}): a comparison needs two"
    return f"no two {between} values with runs on the same tasks in this log"


def _conditions(rs: RunSet | StoreView) -> pd.DataFrame:
    """What was run, for the questions asked of it here (which conditions, sides and statuses a benchmark has):
    the runs, or a store's cells (one row per distinct condition, :meth:`StoreView.cells`)."""
    return rs.cells() if isinstance(rs, StoreView) else rs.runs


def _benchmarks_of(rs: RunSet | StoreView) -> list:
    """The benchmarks of the runs, sorted."""
    return rs.benchmarks() if isinstance(rs, StoreView) else sorted(set(rs.runs["benchmark"].astype(object)))


def _has(rs: RunSet | StoreView, shape: str) -> bool:
    """Whether one benchmark's runs have the shape :data:`ambiglib.tables._shapes.SHAPES` names (a store's: asked
    of its engine, by the same rules)."""
    from ambiglib.tables._shapes import SHAPES, applicable

    if isinstance(rs, RunSet):
        return bool(applicable(rs, SHAPES[shape]))
    cells = rs.cells()
    ok = cells[(cells["status"] != "error").to_numpy(dtype=bool, na_value=True)]
    tool = ok[ok["ask_tool"].to_numpy(dtype=bool)]
    if shape == "calibration":
        return bool((tool["spec"] == "full").any() and (tool["spec"] == "ambiguous").any())
    if shape == "blockers_and_tool":
        return rs.has_blockers() and bool(((tool["spec"] == "ambiguous") & (tool["protocol"] == "solve")).any())
    if shape == "tool_pairs":
        return rs.has_tool_pairs()
    raise ValueError(f"no store rule for the shape {shape!r}")


def _on_store(rs: RunSet | StoreView, metric: str, between: str) -> None:
    """Refuse, before any work, what a comparison over a store does not compute (yet): a metric other than
    :data:`ON_STORE`, sides other than models or policies, a store of several logs."""
    if not isinstance(rs, StoreView):
        return
    if metric not in ON_STORE:
        raise _not_on_store(metric)
    if between not in ("model", "policy"):
        raise NotPooled(f"a comparison between={between!r} is not computed over an engine yet: over a store, the"
                        " comparisons are between models or between policies. Load the runs (ambiglib.load) to"
                        f" compare between {between}")
    if rs.cells()["log"].notna().any():
        raise NotPooled("a store of several logs loaded together is not compared over an engine yet: which log was"
                        " loaded first is not kept in the store. Load the runs (ambiglib.load) to compare them")
