"""The four questions a researcher brings to a log, as notebook objects.

``rs.asking()``, ``rs.question_quality()``, ``rs.payoff()`` and ``rs.compare(a, b)`` return an :class:`Answer`:
a pandas DataFrame with every column the engine (:mod:`ambiglib.answers._headline`, :mod:`ambiglib.comparisons`) computes,
which Jupyter shows as the report's card (the answer in words, one column per quantity with its interval, every
"–" numbered to its reason), which draws itself with its intervals as error bars (:meth:`Answer.plot`), typesets
itself for a paper (:meth:`Answer.to_latex`) and, for a comparison, lists the tasks behind the difference
(:meth:`Answer.per_task`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from ambiglib._markup import Markup, render, stylesheet
from ambiglib._text import latex_escape
from ambiglib.answers._cards import STYLE, compact_table, formatted, shown_columns, table_meta, tex_safe, text_table
from ambiglib.answers._headline import QUESTIONS, SHOWN, asking, payoff, question_quality
from ambiglib.comparisons import paired_comparison
from ambiglib.ranking import rank_agents
from ambiglib.runset import RunSet
from ambiglib.tables._common import Table

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["Answer", "TaskList", "COMPARISON", "RANKING", "ranking_spec", "comparison_answer", "later_first",
           "asking_answer", "question_quality_answer", "payoff_answer", "compare_answer", "rank_answer"]

#: how wide the plain-text card (``repr``, ``print``) is, and its most columns and rows
TEXT_WIDTH, MAX_TEXT_COLUMNS, TEXT_ROWS = 120, 8, 60


def _merged(frame: pd.DataFrame, keys: set[str]) -> pd.DataFrame:
    """``frame`` with its ``keys`` columns (what names a row: the benchmark, suite, model, policy) joined into one,
    "hil-bench · sql · default", where it has more than :data:`MAX_TEXT_COLUMNS` columns: a terminal shows the
    quantities, not the keys spread over many columns."""
    named = [c for c in frame.columns if c in keys]
    if len(frame.columns) <= MAX_TEXT_COLUMNS or len(named) < 2:
        return frame
    at = list(frame.columns).index(named[0])
    joined = frame[named].astype(str).agg(" · ".join, axis=1)
    out = frame.drop(columns=named)
    out.insert(at, " · ".join(map(str, named)), joined)
    out.attrs = dict(frame.attrs)
    return out


def _wrapped(text: str, width: int) -> list[str]:
    """``text`` wrapped at ``width``, its later lines indented two spaces."""
    import textwrap

    return textwrap.wrap(text, width, subsequent_indent="  ", break_on_hyphens=False) or [""]


#: the question a comparison answers (its card's heading)
COMPARISON = "Is one side better than the other, task by task?"
#: the question a ranking answers
RANKING = "How do the agents rank?"

def comparison_spec(frame: pd.DataFrame, between: str, metric: str) -> list[tuple[str, str, str]]:
    """What a comparison's card shows: the suite and the fixed side where they vary, the two sides, the tasks
    paired, each side's value, the difference with its interval, and Holm's p."""
    from ambiglib.comparisons import IN_PP, metric_name

    fmt = "pp" if metric in IN_PP else "score"
    name = metric_name(metric)
    spec = []
    if "suite" in frame.columns and frame.groupby("benchmark")["suite"].nunique().gt(1).any():
        spec.append(("suite", "suite", "text"))
    for fixed in ("log", "model", "policy"):
        if fixed != between and fixed in frame.columns and frame[fixed].nunique() > 1:
            spec.append((fixed, fixed, "text"))
    # the p-value adjusted as the comparison was (paired_comparison's correction): Holm's, or Benjamini–Hochberg's
    adjusted = ("p_fdr_bh", "BH p (FDR)", "p") if "p_fdr_bh" in frame.columns else ("p_holm", "Holm p", "p")
    a, b = _one_pair(frame, between) or ("a", "b")  # one pair: each side's value and the difference by its name
    shown = spec + [(f"{between}_a", "a", "text"), (f"{between}_b", "b", "text"), ("n_pairs", "tasks", "int"),
                    ("value_a", f"{name}, {a}", fmt), ("value_b", f"{name}, {b}", fmt),
                    ("difference", f"{a} − {b}", "pp" if fmt == "pp" else "signed"), adjusted]
    return shown + ([("verdict", "verdict", "text")] if "verdict" in frame.columns else [])


def _one_pair(frame: pd.DataFrame, between: str) -> tuple[str, str] | None:
    """The two sides' names where every row of a comparison compares the same pair (None where rows differ)."""
    sides = frame[[f"{between}_a", f"{between}_b"]].astype(str).drop_duplicates() \
        if {f"{between}_a", f"{between}_b"} <= set(frame.columns) else None
    if sides is None or len(sides) != 1:
        return None
    return _side(sides.iloc[0, 0], between), _side(sides.iloc[0, 1], between)


def _side(value: object, between: str) -> str:
    """A side's name in words: with and without the ask tool for ``between="ask_tool"``, else its value."""
    if between == "ask_tool" and str(value) in ("True", "False"):
        return "with the tool" if str(value) == "True" else "without it"
    return str(value)


def _p(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}" if p < 0.1 else f"{p:.2f}"


def comparison_answer(frame: pd.DataFrame, between: str) -> list[str]:
    """A comparison in sentences, one per row (the first six; then how many more): what was compared (the metric
    and its unit, the runs, the two sides, paired by task and over how many), the difference as the sides' names
    say it with its interval and adjusted p, and the verdict: a side higher only where the adjusted p is below the
    level and the interval excludes 0."""
    from ambiglib.comparisons import CORRECTIONS, metric_name, unit_of

    if len(frame) == 0:
        return []
    adjusted = "p_fdr_bh" if "p_fdr_bh" in frame.columns else "p_holm"
    who = CORRECTIONS["fdr_bh" if adjusted == "p_fdr_bh" else "holm"][0]
    many_benchmarks = frame["benchmark"].nunique() > 1
    # several pairs of one metric on one condition: what was compared said once, then each pair
    once = len(frame) > 1 and len(frame[["metric", "condition"]].astype(str).drop_duplicates()) == 1
    out: list[str] = []
    for r in frame.head(6).to_dict("records"):
        a, b = _side(r[f"{between}_a"], between), _side(r[f"{between}_b"], between)
        unit = unit_of(str(r["metric"]))
        pp = unit == "pp"
        digits, tail = (1, " pp") if pp else (2, "")
        where = [str(r["benchmark"])] if many_benchmarks else []
        where += [f"{c} {r[c]}" for c in ("model", "policy", "log") if c in r and c != between
                  and not (c == "policy" and str(r[c]) == "default") and pd.notna(r[c])]
        scale = "" if pp else " (0–1)" if unit == "0-1" else f" ({unit})"
        what = f"{metric_name(str(r['metric']))}{scale} on {r['condition']}"
        low, high = r["difference_ci_low"], r["difference_ci_high"]
        ci = f", {100 * float(r['ci_level']):g}% CI {low:+.{digits}f} to {high:+.{digits}f}{tail}" \
            if pd.notna(low) and pd.notna(high) else ", no interval"
        p = r.get(adjusted)
        alpha = 1 - float(r["ci_level"])
        if not r["n_differing"]:
            verdict = "the same on every task"
        elif pd.notna(p) and p < alpha and pd.notna(low) and (low > 0 or high < 0):
            verdict = f"{a if r['difference'] > 0 else b} is higher"
        elif pd.notna(r.get("p_smallest_adjusted")) and r["p_smallest_adjusted"] >= alpha:
            n = int(r["n_differing"])
            verdict = (f"no verdict: with {n} task{'s' if n != 1 else ''} that differ{'s' if n == 1 else ''} the"
                       f" test cannot reach {alpha:g} (more tasks would tell)")
        elif isinstance(r.get("ci_vs_test"), str):
            verdict = "no verdict: the interval and the test disagree"
        else:
            verdict = "no clear difference"
        test = f", {who} p {_p(p)}" if pd.notna(p) else ""
        if once and not out:
            out.append(f"{what[:1].upper()}{what[1:]}, {len(frame)} pairs, each paired by task over the tasks both"
                       f" sides ran ({who} over the rows):")
        compared = f"{a} vs {b} over {int(r['n_pairs'])} tasks" if once else \
            f"{what}, {a} vs {b}, paired by task over {int(r['n_pairs'])} tasks"
        out.append(f"{' · '.join(where) + ': ' if where else ''}{compared}: {r['value_a']:.{digits}f} vs"
                   f" {r['value_b']:.{digits}f}{tail}, {a} − {b} = {r['difference']:+.{digits}f}{tail}{ci}{test}:"
                   f" {verdict}.")
    if len(frame) > 6:
        out.append(f"And {len(frame) - 6} more pairs (the table).")
    return out


def _scoped(css: str, scope: str) -> str:
    """``css`` with every selector inside ``scope``: the card's look, in a notebook, touches nothing else."""
    rules = [r for r in css.split("}") if r.strip()]
    out = []
    for rule in rules:
        selectors, _, body = rule.partition("{")
        out.append(",".join(f"{scope} {s.strip()}" for s in selectors.split(",")) + "{" + body + "}")
    return "".join(out)


class Answer(Table):
    """One question's answer per agent (or one comparison per pair): a :class:`~ambiglib.tables.Table` whose
    Jupyter display is the report's card. Every column the engine computed is in the frame (``.frame`` gives
    it as a plain DataFrame); the card shows at most eight, in words, each with its interval."""

    _metadata: list[str] = ["_runset", "_question", "_spec", "_asked", "_options"]
    _question: str | None = None  # a key of headline.SHOWN, or "comparison"
    _spec: list[tuple[str, str, str]] | None = None  # (column, heading, format) of what the card shows
    _asked: dict[str, Any] | None = None  # a comparison's arguments, for per_task
    _options: dict[str, Any] | None = None  # a ranking's every argument, for its pairs

    @property
    def _constructor(self) -> type[Answer]:
        return Answer

    @classmethod
    def of(cls, table: pd.DataFrame, question: str, spec: list[tuple[str, str, str]], runset: Any = None,
           asked: dict[str, Any] | None = None) -> Answer:
        out = cls(table)
        out.attrs = dict(table.attrs)
        for name, value in (("_runset", getattr(table, "_runset", None) or runset), ("_question", question),
                            ("_spec", spec), ("_asked", asked)):
            object.__setattr__(out, name, value)
        return out

    @property
    def frame(self) -> pd.DataFrame:
        """Every column, as a plain pandas DataFrame (its ``attrs`` kept)."""
        out = pd.DataFrame(self)
        out.attrs = dict(self.attrs)
        return out

    @property
    def question(self) -> str:
        return {"comparison": COMPARISON, "ranking": RANKING}.get(self._question or "") or \
            QUESTIONS.get(self._question or "", "")

    @property
    def pairs(self) -> Answer:
        """A ranking's every pair, paired by task, with its verdict (the decisions its rank intervals and groups
        come from), as a comparison: ``.per_task()`` on it lists a pair's tasks."""
        if self._question != "ranking" or self._runset is None:
            raise AttributeError("pairs: only a ranking (RunSet.rank) has its pairs")
        from ambiglib.ranking import ranking_pairs

        options = dict(self._options or {})
        pairs = ranking_pairs(self._runset, **options)
        asked = dict(self._asked or {})
        between = str(asked.get("between", "model"))
        pairs.attrs["answer"] = pairs.attrs.get("answer") or comparison_answer(pairs, between)
        return Answer.of(pairs, "comparison", comparison_spec(pairs, between, str(asked.get("metric", ""))),
                         self._runset, {**asked, "a": None, "b": None})

    def _shown(self) -> list[tuple[str, str, str]]:
        return shown_columns(self, self._spec or SHOWN.get(self._question or "", []))

    def _notes(self, meta: dict[str, Any]) -> list[str]:
        """What a comparison compares, how the intervals were made and the tests, then the table's note: what a
        reader needs to sign a value."""
        out = []
        if self._question == "comparison" and len(self) and {"metric", "condition"} <= set(self.columns):
            from ambiglib.comparisons import COMPARABLE, unit_of

            for metric, condition in dict.fromkeys(zip(self["metric"].astype(str), self["condition"].astype(str))):
                out.append(f"Compared: {COMPARABLE.get(metric, metric)}, on {condition}; unit: {unit_of(metric)};"
                           " paired by task (each task's value on both sides; n_pairs tasks).")
        if meta.get("intervals"):
            out.append(f"Intervals: {'; '.join(meta['intervals'])}.")
        if meta.get("tests"):
            out.append(f"Tests: {'; '.join(meta['tests'])}.")
        if meta.get("note"):
            out.append(str(meta["note"]))
        return out

    def formatted(self) -> pd.DataFrame:
        """The card as text: the benchmark, then each shown quantity in words with its interval ("82% (70–89%)");
        a "–" carries the number of its reason, listed in ``attrs["notes"]`` with how the intervals were made."""
        meta = table_meta(self)
        shown, reasons = formatted(self, self._shown(), meta)
        shown.attrs["notes"] = reasons + self._notes(meta)
        return shown

    def _repr_html_(self) -> str | None:
        spec = self._shown()
        if not spec or not self._question:
            return super()._repr_html_()
        meta = table_meta(self)
        if len(self) == 0:
            return render("answer_card.html", question=self.question, why=str(self.attrs.get("note") or "no rows"))
        table = compact_table(self, meta, self._question, "", None, spec)  # markup: card_table.html's
        # in a notebook the card is as long as its rows (the report's opening scrolls a long one in its grid)
        style = Markup(_scoped(STYLE + stylesheet("answer"), ".ambiglib-answer"))
        return render("answer_card.html", question=self.question, why=None, style=style,
                      answer=meta.get("answer") or [], table=table, notes=self._notes(meta),
                      comparison=self._question == "comparison")

    def to_text(self, width: int = TEXT_WIDTH) -> str:
        """The card as plain text at most ``width`` characters wide, for a terminal: the answer in sentences
        first, then the question over a table of at most eight columns, each value with its interval (what
        :meth:`formatted` gives), then the notes (what each "–" means, how the intervals were made, the tests)."""
        spec = self._shown()
        if not spec or not self._question:
            return cast(str, pd.DataFrame.__repr__(self))
        meta = table_meta(self)
        lines = [w for s in meta.get("answer") or [] for w in _wrapped(s, width)]
        if len(self) == 0:
            return "\n".join(lines + _wrapped(f"{self.question} {self.attrs.get('note') or 'no rows'}", width))
        shown = self.formatted()
        title = [self.question]
        notes = shown.attrs.get("notes") or []
        if self._question == "comparison":  # the sides by their columns' names in .frame: log_a, model_b
            between = str((self._asked or {}).get("between", "model"))
            shown = shown.rename(columns={"a": f"{between}_a", "b": f"{between}_b"})
        # what every row shares is said once, above the table: the benchmark, the fixed columns, a pair's sides
        sides = {f"{side}_{end}" for side in ("model", "policy", "ask_tool", "log") for end in "ab"} | {"a", "b"}
        fixed = [c for c in shown.columns if (c in ("benchmark", "suite", "model", "policy", "log") or c in sides)
                 and shown[c].nunique() == 1]
        title += [str(shown[c].iloc[0]) if c == "benchmark" else f"{c}: {shown[c].iloc[0]}" for c in fixed]
        shown = _merged(shown.drop(columns=fixed), {"benchmark", "suite", "model", "policy", "log"})
        more = len(shown.columns) - MAX_TEXT_COLUMNS
        rows = len(shown) - TEXT_ROWS
        table = shown.iloc[:TEXT_ROWS, :MAX_TEXT_COLUMNS]
        text = {"benchmark", "suite", "model", "policy", "log"} | sides | \
            {heading for _, heading, fmt in spec if fmt == "text"} | {c for c in shown.columns if " · " in str(c)}
        lines += ([""] if lines else []) + _wrapped(" · ".join(title), width) + [text_table(table, width, text)]
        if rows > 0:
            lines.append(f"… {rows:,} more rows (every row: .frame)")
        if more > 0:
            lines.append(f"… {more} more columns: {', '.join(map(str, shown.columns[MAX_TEXT_COLUMNS:]))}")
        if notes:
            lines.append("")
        for note in notes:
            lines += _wrapped(note, width)
        hint = "every column: .frame" + (" · task by task: .per_task()" if self._question == "comparison" else "") \
            + " · for a paper: .to_latex()"
        return "\n".join(lines + [hint])

    def __repr__(self) -> str:
        return self.to_text()

    def __str__(self) -> str:
        return self.to_text()

    def to_latex(self, *, caption: str | None = None, label: str | None = None) -> str:
        """A booktabs table a paper can include: the card's columns in words, each value with its interval, the
        answer in sentences, the intervals' method, the tests and every "–"'s reason in notes under it, each its own
        paragraph; the caption is the question (or ``caption``). Plain pdflatex compiles it with booktabs alone
        (:func:`ambiglib.answers._cards.tex_safe`). The engine's every column: ``.frame.to_latex()``."""
        shown = self.formatted()
        notes = list(table_meta(self).get("answer") or []) + list(shown.attrs.get("notes") or [])  # the answer first
        styler = shown.style.hide(axis="index").format(escape="latex").format_index(escape="latex", axis="columns")
        text = {"benchmark"} | {heading for _, heading, fmt in self._shown() if fmt == "text"}
        tex = styler.to_latex(hrules=True, caption=latex_escape(caption or self.question or ""), label=label,
                              position_float="centering",
                              column_format="".join("l" if c in text else "r" for c in shown.columns))
        if notes:  # each note its own paragraph: a note opening "[2]" after a \\ would be read as \\[2]
            tex = tex.replace("\\end{table}", "\\par\\footnotesize " + "\\par\n".join(latex_escape(n) for n in notes)
                              + "\n\\end{table}")
        return tex_safe(tex)

    def plot(self, *args: Any, **kwargs: Any) -> Figure | Any:  # Any: what pandas' own plot gives
        """Each shown quantity a panel, each row a point with its interval as an error bar (a ranking: each agent's
        rank interval, :func:`ambiglib.plots.rank_intervals`); returns the matplotlib Figure, which Jupyter shows
        once. With arguments, pandas' own ``DataFrame.plot``."""
        if args or kwargs or not self._question:
            return super().plot(*args, **kwargs)
        if self._question == "ranking":
            from ambiglib.plots import rank_intervals

            return rank_intervals(self.frame)
        from ambiglib.plots import intervals

        spec = [c for c in self._shown() if c[2] not in ("text", "p", "int")]
        return intervals(self, spec, labels=self._row_labels(), title=self.question)

    def _row_labels(self) -> list[str]:
        """What names each row on a figure's axis: its agent (or its pair), under its benchmark when there are
        several, and with the columns that tell rows of one name apart."""
        text = [c for c, _, fmt in self._shown() if fmt == "text"]
        many = "benchmark" in self.columns and self["benchmark"].nunique() > 1
        labels = []
        for i in range(len(self)):
            parts = [str(self[c].iloc[i]) for c in text if c not in ("verdict",)]
            if self._question == "comparison":
                a, b = parts[-2:]
                parts = parts[:-2] + [f"{a} − {b}"]
            label = " · ".join(parts)
            labels.append(f"{self['benchmark'].iloc[i]}: {label}" if many else label)
        return labels

    def per_task(self) -> Table:
        """A comparison task by task (a :class:`TaskList`): one row per task paired in each row of the comparison,
        with side a's value, side b's, the difference (a − b) and ``changed`` in the sides' names ("after higher",
        "before higher", "same"), sorted by the size of the difference; what every row shares (the benchmark, the
        sides, the model) is said once in its caption, and ``.frame`` has every column. Its mean difference is the
        comparison's where the metric is a mean of per-task values."""
        if self._question != "comparison" or self._asked is None or self._runset is None:
            raise AttributeError("per_task: only a comparison (RunSet.compare) lists its tasks")
        from ambiglib.comparisons import per_task

        return TaskList.of(per_task(self._runset, **self._asked), str(self._asked.get("between", "model")),
                           self.attrs.get("answer") or [], self)


#: the columns of a comparison's task list that name what its rows compare (said once where every row shares them)
_KEYS = ("benchmark", "suite", "model", "policy", "log")


class TaskList(Table):
    """A comparison task by task, for reading: one row per task with each side's value, the difference and which
    side is higher in the sides' names; the columns every row shares (the benchmark, the suite, the fixed model or
    policy, the two sides, ``pass_fail`` where the values are not pass/fail) are said once in its caption
    (``attrs["caption"]``, shown above the rows in a notebook and a terminal) and kept in ``attrs["shared"]``.
    ``.frame`` puts them back: every column, as :func:`ambiglib.comparisons.per_task` computes them."""

    _metadata: list[str] = ["_runset", "_between"]
    _between: str = "model"

    @property
    def _constructor(self) -> type[TaskList]:
        return TaskList

    @classmethod
    def of(cls, table: pd.DataFrame, between: str, answer: list[str], comparison: Answer | None = None
           ) -> TaskList:
        """The reader's list of :func:`ambiglib.comparisons.per_task`'s ``table``, under ``comparison``'s sentences
        (``answer``)."""
        from ambiglib.comparisons import metric_name

        side_a, side_b = f"{between}_a", f"{between}_b"
        frame = pd.DataFrame(table)
        if len(frame):
            a, b = (frame[side].map(lambda v: _side(v, between)).astype(str) for side in (side_a, side_b))
            code = frame["changed"].astype(str)
            frame["changed"] = np.where(code == "a", a + " higher", np.where(code == "b", b + " higher", "same"))
        keys = [c for c in (*_KEYS, side_a, side_b) if c in frame.columns]
        shared = {c: frame[c].iloc[0] for c in keys if len(frame) and frame[c].astype(str).nunique() == 1}
        if "pass_fail" in frame.columns and len(frame) and not frame["pass_fail"].any():
            shared["pass_fail"] = False  # scores, not pass/fail: the column says nothing
        out = cls(frame.drop(columns=list(shared)))
        asked = (comparison._asked or {}) if comparison is not None else {}
        caption = [f"Task by task: {metric_name(str(asked.get('metric', 'mean_score')))}"]
        if comparison is not None and len(comparison) and "condition" in comparison.columns:
            caption[0] += f" on {comparison['condition'].iloc[0]}"
        caption += [f"{c} {v}" for c, v in shared.items() if c in _KEYS and not (c == "policy" and v == "default")
                    and not (c == "suite" and v == shared.get("benchmark"))]
        if side_a in shared and side_b in shared:
            a, b = shared[side_a], shared[side_b]
            caption.append(f"value_a: {a}, value_b: {b}, difference: {a} − {b}")
        else:
            caption.append(f"value_a: the {side_a} side, value_b: the {side_b} side, difference: a − b")
        caption.append(f"{len(frame):,} tasks, the most moved first")
        out.attrs = {**dict(table.attrs), "caption": "; ".join(caption), "shared": shared, "answer": list(answer)}
        object.__setattr__(out, "_runset", getattr(table, "_runset", None))
        object.__setattr__(out, "_between", between)
        return out

    @property
    def frame(self) -> pd.DataFrame:
        """Every column, those every row shares put back where :func:`ambiglib.comparisons.per_task` has them."""
        out = pd.DataFrame(self)
        shared = dict(self.attrs.get("shared") or {})
        for i, (column, value) in enumerate(shared.items()):
            if column == "pass_fail":
                out[column] = value
            else:
                out.insert(min(i, len(out.columns)), column, value)
        out.attrs = {k: v for k, v in self.attrs.items() if k != "shared"}
        return out

    def _readable(self, rows: pd.DataFrame) -> tuple[pd.DataFrame, set[str]]:
        """``rows`` as a reader sees them, in a terminal and a notebook alike: each side's value headed by its name,
        to three significant digits (a missing one "–"), the difference signed; and the names of those columns."""
        shared = self.attrs.get("shared") or {}
        a, b = (str(shared.get(f"{self._between}_{side}", side)) for side in ("a", "b"))
        names = {"value_a": a, "value_b": b, "difference": f"{a} − {b}"}
        shown = pd.DataFrame(rows).copy()
        for c in names:
            if c in shown.columns:
                shown[c] = ["–" if pd.isna(v) else f"{v:+.3g}" if c == "difference" and v != 0 else f"{v:.3g}"
                            for v in shown[c]]
        return shown.rename(columns=names), {names[c] for c in names if c in shown.columns}

    def to_text(self, width: int = TEXT_WIDTH) -> str:
        """The list as plain text at most ``width`` wide: the comparison's sentence, the caption, then the rows,
        each side's value headed by its name."""
        lines = [w for s in self.attrs.get("answer") or [] for w in _wrapped(s, width)]
        lines += _wrapped(str(self.attrs.get("caption") or ""), width)
        if len(self) == 0:
            return "\n".join(lines + _wrapped(str(self.attrs.get("note") or "no tasks"), width))
        shown, values = self._readable(self.head(TEXT_ROWS))
        table = _merged(shown.astype(str).reset_index(drop=True), set(_KEYS))
        lines.append(text_table(table, width, {c for c in table.columns if c not in values}))
        if len(self) > TEXT_ROWS:
            lines.append(f"… {len(self) - TEXT_ROWS:,} more tasks (every row: .frame)")
        if self.attrs.get("note"):
            lines += _wrapped(f"note: {self.attrs['note']}", width)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.to_text()

    def __str__(self) -> str:
        return self.to_text()

    def _repr_html_(self) -> str | None:
        """In a notebook as in a terminal: the comparison's sentence, the caption, then the rows with each side's
        value headed by its name, to three significant digits (``.frame``: every column, every digit)."""
        table = Table(self._readable(self)[0])
        table.attrs = {k: v for k, v in self.attrs.items() if k in ("caption", "note")}
        return str(render("task_list.html", answer=list(self.attrs.get("answer") or []),
                          table=Markup(table._repr_html_() or "")))


# The four questions and the ranking as answers: what ``rs.asking()`` and the other methods of a RunSet return
# (each RunSet method is defined on the class, in runset.py, and calls its function here when it is called).


def asking_answer(self: RunSet, **options: Any) -> Answer:
    """Does each agent ask when it should? Ask rates on ambiguous and fully specified tasks, and CalibScore,
    with their intervals (:func:`ambiglib.answers.asking`, whose options these are)."""
    return Answer.of(asking(self, **options), "asking", SHOWN["asking"], self)


def question_quality_answer(self: RunSet, **options: Any) -> Answer:
    """Are its questions good? Questions per run, precision, recall, Ask-F1 and the judges' score, with their
    intervals (:func:`ambiglib.answers.question_quality`)."""
    return Answer.of(question_quality(self, **options), "question_quality", SHOWN["question_quality"], self)


def payoff_answer(self: RunSet, **options: Any) -> Answer:
    """Does asking pay off? The score fully specified, ambiguous without the ask tool and with it, the gain and
    the gain per question, with their intervals (:func:`ambiglib.answers.payoff`)."""
    return Answer.of(payoff(self, **options), "payoff", SHOWN["payoff"], self)


def compare_answer(self: RunSet, a: object = None, b: object = None, *, metric: str = "mean_score",
             between: str = "model", **options: Any) -> Answer:
    """Is ``a`` better than ``b``? A metric compared between two models (or ask policies, or with and without
    the tool, or two logs: ``between``), paired by task, with the difference's interval and test; without ``a`` and
    ``b``, every pair, Holm-adjusted (:func:`ambiglib.comparisons.paired_comparison`, whose options these are). The
    answer says in a sentence what was compared, the difference a − b by the sides' names and the verdict; two logs
    are compared the later loaded first (after − before), whichever order they are given in.
    ``.per_task()`` on the result lists the tasks behind the difference."""
    a, b, alternative = later_first(self, between, a, b, options.get("alternative"))
    if alternative is not None:
        options["alternative"] = alternative
    table = paired_comparison(self, metric=metric, between=between, a=a, b=b, **options)
    table.attrs["answer"] = comparison_answer(table, between)
    asked = {"metric": metric, "between": between, "a": a, "b": b,
             **{k: v for k, v in options.items() if k in ("condition", "k", "conventions", "pool_suites")}}
    return Answer.of(table, "comparison", comparison_spec(table, between, metric), self, asked)


def later_first(rs: RunSet, between: str, a: object, b: object, alternative: str | None = None
                ) -> tuple[object, object, str | None]:
    """Two logs (``between="log"``) as side a the later loaded, side b the earlier, in whichever order they were
    given: the difference a − b then reads as after − before, as the comparison of every pair orders them
    (:func:`ambiglib.comparisons.paired_comparison`), and the sentence and the headings name each side. Other
    sides, or a log not in the run set, as given. A one-sided ``alternative`` ("a > b" of the sides as given) is
    turned with them ("greater" is "less" of the sides swapped)."""
    if between != "log" or a is None or b is None or "log" not in rs.runs:
        return a, b, alternative
    order = list(dict.fromkeys(rs.runs["log"].dropna().astype(object)))
    if a in order and b in order and order.index(a) < order.index(b):
        return b, a, {"greater": "less", "less": "greater"}.get(alternative or "", alternative)
    return a, b, alternative


def rank_answer(self: RunSet, metric: str = "mean_score", **options: Any) -> Answer:
    """How do the agents rank on ``metric``? Each agent's value with its interval, its rank interval, its share of
    first places and its group, per benchmark, after a global test; "best" only where one agent alone is in the top
    group (:func:`ambiglib.ranking.rank_agents`, whose options these are). ``.pairs`` gives every pair behind it,
    ``.plot()`` the rank intervals."""
    table = rank_agents(self, metric=metric, **options)
    between = options.get("between", "model")
    asked = {"metric": metric, "between": between,
             **{k: v for k, v in options.items() if k in ("condition", "k", "conventions", "pool_suites")}}
    out = Answer.of(table, "ranking", ranking_spec(table, metric, between), self, asked)
    object.__setattr__(out, "_options", {"metric": metric, **options})
    return out


def ranking_spec(frame: pd.DataFrame, metric: str, between: str = "model") -> list[tuple[str, str, str]]:
    """What a ranking's card shows: the policy and log where they vary, the agent, its value with its interval, its
    rank interval, its share of first places and its group letters."""
    from ambiglib.comparisons import IN_PP, metric_name

    spec = [(c, c, "text") for c in ("policy", "log") if c in frame.columns and frame[c].nunique() > 1]
    side = "agent" if between == "model" else between
    fmt = "pp" if metric in IN_PP else "count" if metric == "questions_per_run" else "score"
    return spec + [(side, side, "text"), ("value", metric_name(metric), fmt), ("rank_low", "rank (95%)", "rankspan"),
                   ("p_first", "first in draws", "share"), ("group", "group", "text")]

