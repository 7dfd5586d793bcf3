"""The report: what ``make report`` and ``ambiglib report`` write.

Until the notebook report lands, the report is a summary of the run log: what
was read, what was rejected and why, and run counts, ask counts and mean scores
per benchmark, suite, model and condition.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from .errors import LoadError
from .loading import load

__all__ = ["write_report"]


def errors_frame(errors: list[LoadError]) -> pd.DataFrame:
    """Return the rejected records as a frame: ``file, line, field, kind, record, message``."""
    columns = ["file", "line", "field", "kind", "record", "message"]
    return pd.DataFrame([{c: getattr(e, c) for c in columns} for e in errors], columns=columns)


def write_report(runs: str | os.PathLike[str], out: str | os.PathLike[str], *, quiet: bool = False) -> Path:
    """Load a run log leniently and write its summary report.

    Parameters
    ----------
    runs : path-like
        The run log (any layout :func:`ambiglib.load` recognises).
    out : path-like
        Folder to write ``summary.md``, ``summary.csv`` and ``rejected.csv`` into.

    Returns
    -------
    pathlib.Path
        The path of ``summary.md``.
    """
    runset, errors = load(runs, strict=False, quiet=quiet)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary = runset.summary()
    summary.to_csv(out / "summary.csv", index=False)
    rejected = errors_frame(errors)
    rejected.to_csv(out / "rejected.csv", index=False)
    runs_frame = runset.runs
    lines = [
        "# ambiglib run-log summary",
        "",
        f"Run log: `{runs}`",
        "",
        f"- runs: {len(runs_frame)} ({int((runs_frame['status'] == 'error').sum())} with status `error`,"
        " kept here and excluded by the metrics)",
        f"- questions: {len(runset.questions)}; judge labels: {len(runset.labels)}",
        f"- tasks: {len(runset.tasks)}; blockers: {len(runset.blockers)}",
        f"- rejected records: {len(errors)} (all listed in `rejected.csv`)",
    ]
    for reason, n in sorted(runset.skipped.items()):
        lines.append(f"- not a run, counted and left out: {n} × {reason}")
    lines.append("")
    if errors:
        lines += ["## Rejected records", ""]
        lines += [f"- {e.message}" for e in errors[:20]]
        if len(errors) > 20:
            lines.append(f"- ... and {len(errors) - 20} more in `rejected.csv`")
        lines.append("")
    lines += [
        "## Runs per benchmark, suite, model and condition",
        "",
        "`n_asked`: runs with at least one question. `mean_score`: the mean over runs whose status is"
        " not `error`, with `invalid` and `timeout` runs scoring 0 (Ambig-DS §5.1); empty for ask-only runs.",
        "",
        summary.astype({"mean_score": "float64"}).to_markdown(index=False, floatfmt=".3f", missingval="–"),
        "",
    ]
    path = out / "summary.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
