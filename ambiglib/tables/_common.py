"""What every table shares: one table per benchmark that has the data's shape, and the names of conditions."""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from ..runset import RunSet
from ..schema import DEFAULT_POLICY
from ..shapes import Conventions, Shape, applicable_parts, conventions_for


class Table(pd.DataFrame):
    """What every table function returns: a pandas DataFrame in every respect, whose Jupyter display also shows
    its caption (``attrs["caption"]``: what the table is and which printed table it reproduces) and its note
    (``attrs["note"]``: why it is empty, or which cells it could not fill), instead of an empty header row.

    A subclass, as pandas documents (``_constructor``), rather than a wrapper: indexing, ``merge``,
    ``to_csv``, ``to_latex`` and every other DataFrame method work unchanged and keep returning a Table,
    as pingouin's and statsmodels' results show themselves while remaining frames; pandas has no native
    display for ``attrs``. The plain-text ``repr`` is the DataFrame's own.
    """

    #: the run set the table was computed from (kept through slicing and copies, for :meth:`evidence`)
    _metadata: list[str] = ["_runset"]
    _runset = None

    @property
    def _constructor(self):
        return Table

    def evidence(self, row):
        """The runs, questions and judge labels behind ``row`` (a position, or the row itself): an
        :class:`ambiglib.evidence.Evidence` with ``runs``, ``questions`` and ``labels`` frames."""
        from ..evidence import evidence

        return evidence(self, row)

    def _repr_html_(self) -> str | None:
        import html

        caption, note = self.attrs.get("caption"), self.attrs.get("note")
        head = f"<p><strong>{html.escape(str(caption))}</strong></p>" if caption else ""
        if len(self) == 0:
            return f"<div>{head}<p><em>{html.escape(str(note or 'no rows'))}</em></p></div>"
        body = super()._repr_html_()  # the cells escaped, as pandas escapes them
        tail = f"<p><em>note: {html.escape(str(note))}</em></p>" if note else ""
        return f"<div>{head}{body}{tail}</div>"


def explain_empty(table: pd.DataFrame, reasons: Mapping[str, str]) -> pd.DataFrame:
    """Record in ``table.attrs["empty"]`` (column → why) why each of these columns shows "–" where it does: a
    reason is kept only for a column that holds a missing value, and a column keeps its first reason.

    Every "–" a table shows carries such a reason (the cause, and the fix where there is one): the notebooks,
    the report and ``ambiglib compare`` print them under the table, and a test fails on a column with an
    empty cell and no reason (:func:`unexplained`). Returns the table."""
    have = dict(table.attrs.get("empty") or {})
    for column, why in reasons.items():
        if column in table.columns and column not in have and table[column].isna().any():
            have[column] = why
    if have:
        table.attrs["empty"] = have
    return table


def unexplained(table: pd.DataFrame) -> list[str]:
    """The columns of ``table`` with an empty cell and no reason for it in ``attrs["empty"]``."""
    have = table.attrs.get("empty") or {}
    return [str(c) for c in table.columns if table[c].isna().any() and c not in have]


def empty_lines(table: pd.DataFrame) -> list[str]:
    """What each "–" of ``table`` means, one line per reason: "– in a, b: why"."""
    have = {c: why for c, why in (table.attrs.get("empty") or {}).items()
            if c in table.columns and table[c].isna().any()}
    by_reason: dict[str, list[str]] = {}
    for column, why in have.items():
        by_reason.setdefault(why, []).append(str(column))
    return [f"– in {', '.join(cols)}: {why}" for why, cols in by_reason.items()]


def as_table(fn: Callable[..., pd.DataFrame]) -> Callable[..., "Table"]:
    """``fn`` returning a :class:`Table`, captioned with the first line of ``fn``'s docstring."""
    import functools
    import inspect

    caption = (fn.__doc__ or "").strip().splitlines()[0] if fn.__doc__ else None
    if caption and caption.startswith("Tabulate "):  # "Tabulate the judgment gap ..." -> "The judgment gap ..."
        caption = caption[len("Tabulate "):][:1].upper() + caption[len("Tabulate "):][1:]
    k_param = inspect.signature(fn).parameters.get("k")  # read once, not at every call

    @functools.wraps(fn)
    def inner(*args, **kwargs) -> Table:
        out = fn(*args, **kwargs)
        table = Table(out)
        table.attrs = {**out.attrs, **({"caption": caption} if caption else {})}
        if args and isinstance(args[0], RunSet):
            object.__setattr__(table, "_runset", args[0])
        if k_param is not None and args and isinstance(args[0], RunSet):
            k = kwargs.get("k", k_param.default)
            few = _few_trials(args[0], table, k)
            if few:
                table.attrs["note"] = f"{table.attrs['note']}; {few}" if table.attrs.get("note") else few
        return table
    return inner


def _few_trials(rs: RunSet, table: pd.DataFrame, k: int) -> str | None:
    """Why a pass@k column is empty where a task condition has fewer than ``k`` trials (None when none has)."""
    columns = [c for c in table.columns if str(c).startswith(("pass_at_k", "pass_gain"))]
    if not columns or not table[columns].isna().any().any() or len(rs.runs) == 0:
        return None
    runs = rs.runs
    trials = runs.groupby(["benchmark", "suite", "model", "spec", "ask_tool", "policy", "protocol", "variant_id"],
                          observed=True, sort=False)["trial"].nunique()
    fewest = int(trials.min())
    if fewest >= k:
        return None
    share = float((trials < k).mean())
    return (f"pass@{k} is empty where a task was run fewer than {k} times: {share:.0%} of task conditions, as few"
            f" as {fewest} trial{'s' if fewest != 1 else ''} (the k parameter; the papers use 3)")


#: ``conventions=`` of every table: benchmark name → the paper whose conventions it follows
#: (``"hil-bench"``, ``"ambig-ds"``, ``"lhaw"`` or ``"neutral"``); see :mod:`ambiglib.shapes`.
ConventionsArg = Mapping[str, str] | None


def _per_benchmark(rs: RunSet, shape: Shape, build: Callable[[RunSet, Conventions], pd.DataFrame], *,
                   conventions: ConventionsArg = None, columns: Sequence[str] = ()) -> pd.DataFrame:
    """``build`` on each benchmark of ``rs`` that has ``shape``, with a leading ``benchmark`` column.

    With no such benchmark the table is empty (``columns``) and ``attrs["note"]`` says what the
    log lacks ("no runs with registered blockers and the ask tool in this log"); where benchmarks have the
    shape but ``build`` finds nothing to show, the notes ``build`` set on its empty frames say why. A table with
    rows keeps the notes ``build`` set on frames with rows (a column it could not fill for some rows, and why).
    """
    parts, notes, caveats = [], [], []
    for bench, sub in applicable_parts(rs, shape):
        out = build(sub, conventions_for(bench, conventions))
        if len(out):
            if out.attrs.get("note"):  # rows, and a cell ``build`` could not fill: say why
                caveats.append(f"{bench}: {out.attrs['note']}")
            out = out.drop(columns="benchmark", errors="ignore")
            out.insert(0, "benchmark", bench)
            parts.append(out)
        elif out.attrs.get("note"):  # the shape is there, but not what this table compares: say what is missing
            notes.append(f"{bench}: {out.attrs['note']}")
    if parts:
        table = pd.concat(parts, ignore_index=True)
        table.attrs = {"note": "; ".join(caveats)} if caveats else {}
        return table
    out = pd.DataFrame(columns=["benchmark", *[c for c in columns if c != "benchmark"]])
    out.attrs["note"] = "; ".join(notes) if notes else shape.note
    return out


def _condition(spec: str, ask_tool: bool) -> str:
    return {("full", False): "Full", ("ambiguous", False): "Ambig.", ("ambiguous", True): "Ask",
            ("full", True): "Full + ask"}[(spec, bool(ask_tool))]


def _wide(frame: pd.DataFrame, index: list[str], column: str, value: str, order: list | None = None) -> pd.DataFrame:
    wide = frame.pivot(index=index, columns=column, values=value)
    if order:
        wide = wide.reindex(columns=[c for c in order if c in wide.columns] +
                            [c for c in wide.columns if c not in order])
    wide.columns = [str(c) for c in wide.columns]
    return wide.reset_index()


def _per_tool_policy(rs: RunSet):
    """(policy, runs) per ask policy of the with-tool runs: that policy's with-tool runs with the
    no-tool runs of the same policy where there are any (LHAW's prompting strategies also run
    without the tool), else with the no-tool runs of the default policy (LHAW's personas share
    them; HIL-Bench and Ambig-DS have only those)."""
    runs = rs.runs
    tool = runs["ask_tool"].to_numpy(dtype=bool, na_value=False)
    policy = runs["policy"].astype(object).to_numpy()
    model = runs["model"].astype(object).to_numpy()
    no_tool_policies = set(policy[~tool])
    for p in sorted(set(policy[tool])):
        base = p if p in no_tool_policies else DEFAULT_POLICY
        ran = np.isin(model, sorted(set(model[tool & (policy == p)])))  # only the models run with this policy
        keep = ran & ((tool & (policy == p)) | (~tool & (policy == base)))
        yield p, rs._with_run_ids_of(keep)


def _policy_condition(spec: str, ask_tool: bool, policy: str) -> str:
    return _condition(spec, ask_tool) + ("" if policy in ("default", "permissive") else f" ({policy})")


OWN_AGENT = ("default", "original")  # each model's own agent: no persona or strategy (LHAW's "Original")


def _own_agents(frame: pd.DataFrame, policies: "tuple[str, ...] | None" = OWN_AGENT) -> pd.DataFrame:
    """The rows of each model's own agent, as LHAW's cross-model tables and figures show (Table 13,
    Figure 4); all rows when there are none of them, or with ``policies=None``."""
    if policies is None or "policy" not in frame or not frame["policy"].isin(policies).any():
        return frame
    return frame[frame["policy"].isin(policies)]


def _mode(spec: str, ask_tool: bool, policy: str) -> str:
    """HIL-Bench's name of a condition: baseline (ambiguous, no tool), ask_human, full_info."""
    return ({("ambiguous", False): "baseline", ("ambiguous", True): "ask_human",
             ("full", False): "full_info"}.get((spec, bool(ask_tool)), f"{spec}/{ask_tool}")
            + ("" if policy == DEFAULT_POLICY else f" ({policy})"))
