"""What every table shares: one table per benchmark that has the data's shape, and the names of conditions."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from ambiglib.runlog._schema import DEFAULT_POLICY
from ambiglib.runset import RunSet
from ambiglib.tables._shapes import Conventions, Shape, applicable_parts, conventions_for


class Table(pd.DataFrame):
    """What every table function returns: a pandas DataFrame in every respect, whose Jupyter display also shows
    its caption (``attrs["caption"]``: what the table is and which printed table it computes) and its note
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
        from ambiglib.evidence._rows import evidence

        return evidence(self, row)

    def _repr_html_(self) -> str | None:
        from ambiglib._markup import Markup, render

        # the caption and note can name a log's models: the template escapes them and cuts them as a page cuts a
        # text (pandas escapes and cuts the cells itself)
        caption, note = self.attrs.get("caption"), self.attrs.get("note")
        body = Markup(super()._repr_html_()) if len(self) else None
        return str(render("table_display.html", caption=str(caption) if caption else "",
                          note=str(note) if note else "", body=body))


def explain_empty(table: pd.DataFrame, reasons: Mapping[str, str], *, gap: bool = False,
                  by_benchmark: Mapping[str, Mapping[str, str]] | None = None) -> pd.DataFrame:
    """Record in ``table.attrs["empty"]`` (column → why) why each of these columns shows "–" where it does: a
    reason is kept only for a column that holds a missing value, and a column keeps its first reason.

    Every "–" a table shows carries such a reason (the cause, and the fix where there is one): the notebooks,
    the report and ``ambiglib compare`` print them under the table, and a test fails on a column with an
    empty cell and no reason (:func:`unexplained`). ``gap``: the cause is something the log lacks and could
    hold (the reason says what to add), not what the agent did (it asked nothing, so no precision): the report
    lists the columns of ``attrs["gaps"]`` among what the log cannot answer. ``by_benchmark``: where a reason joins
    several benchmarks' (column → benchmark → why), each benchmark's own, kept in ``attrs["empty_by_benchmark"]``
    with the reason it belongs to, so that a row's evidence page says its benchmark's alone. Returns the table."""
    have = dict(table.attrs.get("empty") or {})
    gaps = list(table.attrs.get("gaps") or [])
    own = dict(table.attrs.get("empty_by_benchmark") or {})
    for column, why in reasons.items():
        if column in table.columns and column not in have and table[column].isna().any():
            have[column] = why
            if by_benchmark and column in by_benchmark:
                own[column] = dict(by_benchmark[column])
            if gap:
                gaps.append(column)
    if have:
        table.attrs["empty"] = have
    if own:
        table.attrs["empty_by_benchmark"] = own
    if gaps:
        table.attrs["gaps"] = gaps
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


def as_table(fn: Callable[..., pd.DataFrame]) -> Callable[..., Table]:
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
        # a caption the function wrote for the log in hand wins over its docstring's (which may name runs, as
        # Ambig-DS's ask-only runs, that this log does not have)
        table.attrs = {**({"caption": caption} if caption else {}), **out.attrs}
        if args and isinstance(args[0], RunSet):
            object.__setattr__(table, "_runset", args[0])
            k = kwargs.get("k", k_param.default) if k_param is not None else None
            explain_empty(table, _common_reasons(args[0], table, k), gap=True)
            explain_empty(table, _behaviour_reasons(table))
        return table
    return inner


#: the columns of the papers' tables that are pass@k (or built from it)
_PASS = ("pass_at_k", "pass_gain", "base_pass_at_k", "gap_pp")


def _common_reasons(rs: RunSet, table: pd.DataFrame, k: int | None) -> dict[str, str]:
    """Why the column families every table shares are empty where they are, for what the log lacks: pass@k (too
    few trials for k, or no runs in the condition), the baseline (no fully specified runs), the scores of a
    condition (no runs in it), precision, recall and Ask-F1 (questions not attributed to a blocker)."""
    out: dict[str, str] = {}
    nan = [c for c in table.columns if table[c].isna().any()]
    if not nan:
        return out
    pass_cols = [c for c in nan if str(c).startswith(_PASS)]
    if pass_cols and k is not None:
        few = _few_trials(rs, table, k)
        none = "or where the log has no runs of that task in the condition (add them)"
        out.update({c: f"{few}, {none}" if few else f"pass@{k} is empty where the log has no runs of the tasks in the"
                    " condition: add them" for c in pass_cols})
        if "gap_pp" in pass_cols:
            out["gap_pp"] = "a pass@k it subtracts is empty (see pass_at_k_full_info and pass_at_k_with_tool)"
    for c in nan:
        name = str(c)
        if name.startswith(("base_mean_score", "base_pass_at_k")):
            out.setdefault(c, "no runs of these tasks fully specified and without the tool: add them for a baseline")
        elif name in ("mean_score", "mean_score_with_tool", "score_gain_pp", "variant_ask_pct", "trial_ask_pct",
                      "s_full", "s_ambig", "s_ask"):
            out.setdefault(c, "no scored runs of this agent's variants in the condition (with the ask tool, or without"
                              " it, or fully specified): add that condition's runs")
    note = str(table.attrs.get("note") or "")
    if "not attributed to a blocker" in note:
        for c in nan:
            if str(c).startswith(("precision", "recall", "ask_f1", "relevant_per_run")):
                out.setdefault(c, "questions not attributed to a blocker (the log does not say which blocker each"
                                  " asked about): have the ask tool answer JSON with a 'blocker' field, or a scorer"
                                  " record 'asked_blockers' (docs/importers.md)")
    return out


def _behaviour_reasons(table: pd.DataFrame) -> dict[str, str]:
    """Why a column is empty where that is what the agents did, not what the log lacks: no question asked, so no
    precision, no questions per asking run or gain per question; no interval where there is no value."""
    out: dict[str, str] = {}
    for c in table.columns:
        name = str(c)
        if not table[c].isna().any():
            continue
        if name in ("avg_per_traj", "questions_per_asking_run"):
            out[c] = "no run with the ask tool asked a question: there is no asking run to average over"
        elif name == "precision" or name.startswith("precision_"):
            out[c] = ("no question asked: precision is undefined without a question (recall and Ask-F1 are then 0;"
                      " docs/metrics.md), or no run to score")
        elif name.endswith("_per_question") or name.endswith("_per_question_ci_low") \
                or name.endswith("_per_question_ci_high"):
            out[c] = "no question asked with the tool, or no gain (see the gain's column): a gain per question needs both"
        elif name.endswith(("_ci_low", "_ci_high")):
            base = name.rsplit("_ci_", 1)[0]
            same = base in table.columns and table.loc[table[c].isna(), base].isna().all()
            out[c] = f"no {base}, so no interval (see {base})" if same else \
                "no bootstrap resample of the tasks gave a value"
    return out


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
            f" as {fewest} trial{'s' if fewest != 1 else ''} (set k to {fewest}: the k parameter, --k; the papers use"
            " 3)")


#: ``conventions=`` of every table: benchmark name → the paper whose conventions it follows
#: (``"hil-bench"``, ``"ambig-ds"``, ``"lhaw"`` or ``"neutral"``); see :mod:`ambiglib.tables._shapes`.
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
        _merge_reasons(table, [(p["benchmark"].iloc[0], p.attrs) for p in parts])
        return table
    out = pd.DataFrame(columns=["benchmark", *[c for c in columns if c != "benchmark"]])
    out.attrs["note"] = "; ".join(notes) if notes else shape.note
    return out


def _merge_reasons(table: pd.DataFrame, parts: list[tuple[str, dict]]) -> None:
    """The reasons for the "–" of the benchmarks' parts of a table, kept in the whole (a column whose reasons
    differ between benchmarks says each, naming the benchmark)."""
    reasons: dict[str, dict[str, list[str]]] = {}
    gaps: set[str] = set()
    for bench, attrs in parts:
        for column, why in (attrs.get("empty") or {}).items():
            reasons.setdefault(column, {}).setdefault(why, []).append(str(bench))
        gaps.update(attrs.get("gaps") or [])
    joined = {c: next(iter(w)) if len(w) == 1 else "; ".join(f"{', '.join(b)}: {why}" for why, b in w.items())
              for c, w in reasons.items()}
    explain_empty(table, {c: why for c, why in joined.items() if c in gaps}, gap=True)
    explain_empty(table, joined)


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
        yield p, rs.with_runs(keep)


def _policy_condition(spec: str, ask_tool: bool, policy: str) -> str:
    return _condition(spec, ask_tool) + ("" if policy in ("default", "permissive") else f" ({policy})")


OWN_AGENT = ("default", "original")  # each model's own agent: no persona or strategy (LHAW's "Original")


def _own_agents(frame: pd.DataFrame, policies: tuple[str, ...] | None = OWN_AGENT) -> pd.DataFrame:
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
