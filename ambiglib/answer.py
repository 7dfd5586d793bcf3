"""The four questions a researcher brings to a log, as notebook objects.

``rs.asking()``, ``rs.question_quality()``, ``rs.payoff()`` and ``rs.compare(a, b)`` return an :class:`Answer`:
a pandas DataFrame with every column the engine (:mod:`ambiglib.headline`, :mod:`ambiglib.comparisons`) computes,
which Jupyter shows as the report's card (the answer in words, one column per quantity with its interval, every
"–" numbered to its reason), which draws itself with its intervals as error bars (:meth:`Answer.plot`), typesets
itself for a paper (:meth:`Answer.to_latex`) and, for a comparison, lists the tasks behind the difference
(:meth:`Answer.per_task`).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .cards import STYLE, compact_table, formatted, shown_columns, table_meta
from .comparisons import paired_comparison
from .headline import QUESTIONS, SHOWN, asking, payoff, question_quality
from .markup import Markup, render
from .ranking import rank_agents
from .runset import RunSet
from .tables._common import Table
from .text import latex_escape

__all__ = ["Answer", "COMPARISON", "RANKING", "ranking_spec"]

#: the question a comparison answers (its card's heading)
COMPARISON = "Is one side better than the other, task by task?"
#: the question a ranking answers
RANKING = "How do the agents rank?"

def comparison_spec(frame: pd.DataFrame, between: str, metric: str) -> list[tuple[str, str, str]]:
    """What a comparison's card shows: the suite and the fixed side where they vary, the two sides, the tasks
    paired, each side's value, the difference with its interval, and Holm's p."""
    from .comparisons import IN_PP

    fmt = "pp" if metric in IN_PP else "score"
    spec = []
    if "suite" in frame.columns and frame.groupby("benchmark")["suite"].nunique().gt(1).any():
        spec.append(("suite", "suite", "text"))
    for fixed in ("log", "model", "policy"):
        if fixed != between and fixed in frame.columns and frame[fixed].nunique() > 1:
            spec.append((fixed, fixed, "text"))
    # the p-value adjusted as the comparison was (paired_comparison's correction): Holm's, or Benjamini–Hochberg's
    adjusted = ("p_fdr_bh", "BH p (FDR)", "p") if "p_fdr_bh" in frame.columns else ("p_holm", "Holm p", "p")
    shown = spec + [(f"{between}_a", "a", "text"), (f"{between}_b", "b", "text"), ("n_pairs", "tasks", "int"),
                    ("value_a", f"{metric}, a", fmt), ("value_b", f"{metric}, b", fmt),
                    ("difference", "a − b", "pp" if fmt == "pp" else "signed"), adjusted]
    return shown + ([("verdict", "verdict", "text")] if "verdict" in frame.columns else [])


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
    _spec: list | None = None  # (column, heading, format) of what the card shows
    _asked: dict | None = None  # a comparison's arguments, for per_task
    _options: dict | None = None  # a ranking's every argument, for its pairs

    @property
    def _constructor(self):
        return Answer

    @classmethod
    def of(cls, table: pd.DataFrame, question: str, spec: list[tuple[str, str, str]], runset: Any = None,
           asked: dict | None = None) -> "Answer":
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
    def pairs(self) -> "Answer":
        """A ranking's every pair, paired by task, with its verdict (the decisions its rank intervals and groups
        come from), as a comparison: ``.per_task()`` on it lists a pair's tasks."""
        if self._question != "ranking" or self._runset is None:
            raise AttributeError("pairs: only a ranking (RunSet.rank) has its pairs")
        from .ranking import ranking_pairs

        options = dict(self._options or {})
        pairs = ranking_pairs(self._runset, **options)
        asked = dict(self._asked or {})
        between = str(asked.get("between", "model"))
        return Answer.of(pairs, "comparison", comparison_spec(pairs, between, str(asked.get("metric", ""))),
                         self._runset, {**asked, "a": None, "b": None})

    def _shown(self) -> list[tuple[str, str, str]]:
        return shown_columns(self, self._spec or SHOWN.get(self._question or "", []))

    def _notes(self, meta: dict) -> list[str]:
        """How the intervals were made and the tests, then the table's note: what a reader needs to sign a value."""
        out = []
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
        style = Markup(_scoped(STYLE + ".card .rows{max-height:none}", ".ambiglib-answer"))
        return render("answer_card.html", question=self.question, why=None, style=style,
                      answer=meta.get("answer") or [], table=table, notes=self._notes(meta),
                      comparison=self._question == "comparison")

    def to_latex(self, *, caption: str | None = None, label: str | None = None) -> str:
        """A booktabs table a paper can include: the card's columns in words, each value with its interval, the
        intervals' method, the tests and every "–"'s reason in a note under it; the caption is the question (or
        ``caption``). The engine's every column: ``.frame.to_latex()``."""
        shown = self.formatted()
        notes = shown.attrs.get("notes") or []
        styler = shown.style.hide(axis="index").format(escape="latex").format_index(escape="latex", axis="columns")
        text = {"benchmark"} | {heading for _, heading, fmt in self._shown() if fmt == "text"}
        tex = styler.to_latex(hrules=True, caption=latex_escape(caption or self.question or ""), label=label,
                              position_float="centering",
                              column_format="".join("l" if c in text else "r" for c in shown.columns))
        if notes:
            tex = tex.replace("\\end{table}", "\\par\\footnotesize " + " \\\\ ".join(latex_escape(n) for n in notes)
                              + "\n\\end{table}")
        return tex

    def plot(self, *args: Any, **kwargs: Any):
        """Each shown quantity a panel, each row a point with its interval as an error bar (a ranking: each agent's
        rank interval, :func:`ambiglib.plots.rank_intervals`); returns the matplotlib Figure, which Jupyter shows
        once. With arguments, pandas' own ``DataFrame.plot``."""
        if args or kwargs or not self._question:
            return super().plot(*args, **kwargs)
        if self._question == "ranking":
            from .plots import rank_intervals

            return rank_intervals(self.frame)
        from .plots import intervals

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
        """A comparison task by task: one row per task paired in each row of the comparison, with side a's value,
        side b's, the difference (a − b) and ``changed`` (pass/fail: passed on one side only; scores: the sign of
        the difference, ``a`` or ``b`` for the side higher, ``=`` for a tie), sorted by the size of the
        difference. Its mean difference is the comparison's where the metric is a mean of per-task values."""
        if self._question != "comparison" or self._asked is None or self._runset is None:
            raise AttributeError("per_task: only a comparison (RunSet.compare) lists its tasks")
        from .comparisons import per_task

        return per_task(self._runset, **self._asked)


# The four questions as RunSet methods: ``rs.asking()`` and the others. They are attached here, not written in
# runset.py, because a RunSet is below the headline and the comparisons in the pipeline (tests/test_layout.py): the
# layer that answers the questions adds them to the class it reads, as pandas' accessors add to a DataFrame.


def _asking(self: RunSet, **options: Any) -> Answer:
    """Does each agent ask when it should? Ask rates on ambiguous and fully specified tasks, and CalibScore,
    with their intervals (:func:`ambiglib.headline.asking`, whose options these are)."""
    return Answer.of(asking(self, **options), "asking", SHOWN["asking"], self)


def _question_quality(self: RunSet, **options: Any) -> Answer:
    """Are its questions good? Questions per run, precision, recall, Ask-F1 and the judges' score, with their
    intervals (:func:`ambiglib.headline.question_quality`)."""
    return Answer.of(question_quality(self, **options), "question_quality", SHOWN["question_quality"], self)


def _payoff(self: RunSet, **options: Any) -> Answer:
    """Does asking pay off? The score fully specified, ambiguous without the ask tool and with it, the gain and
    the gain per question, with their intervals (:func:`ambiglib.headline.payoff`)."""
    return Answer.of(payoff(self, **options), "payoff", SHOWN["payoff"], self)


def _compare(self: RunSet, a: object = None, b: object = None, *, metric: str = "mean_score",
             between: str = "model", **options: Any) -> Answer:
    """Is ``a`` better than ``b``? A metric compared between two models (or ask policies, or with and without
    the tool: ``between``), paired by task, with the difference's interval and test; without ``a`` and ``b``,
    every pair, Holm-adjusted (:func:`ambiglib.comparisons.paired_comparison`, whose options these are).
    ``.per_task()`` on the result lists the tasks behind the difference."""
    table = paired_comparison(self, metric=metric, between=between, a=a, b=b, **options)
    asked = {"metric": metric, "between": between, "a": a, "b": b,
             **{k: v for k, v in options.items() if k in ("condition", "k", "conventions", "pool_suites")}}
    return Answer.of(table, "comparison", comparison_spec(table, between, metric), self, asked)


def _rank(self: RunSet, metric: str = "mean_score", **options: Any) -> Answer:
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
    from .comparisons import IN_PP, metric_name

    spec = [(c, c, "text") for c in ("policy", "log") if c in frame.columns and frame[c].nunique() > 1]
    side = "agent" if between == "model" else between
    fmt = "pp" if metric in IN_PP else "count" if metric == "questions_per_run" else "score"
    return spec + [(side, side, "text"), ("value", metric_name(metric), fmt), ("rank_low", "rank (95%)", "rankspan"),
                   ("p_first", "first in draws", "share"), ("group", "group", "text")]


for _name, _method in (("asking", _asking), ("question_quality", _question_quality), ("payoff", _payoff),
                       ("compare", _compare), ("rank", _rank)):
    _method.__name__, _method.__qualname__ = _name, f"RunSet.{_name}"
    setattr(RunSet, _name, _method)
