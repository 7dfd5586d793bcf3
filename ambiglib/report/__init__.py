"""The report: every notebook run with papermill, and everything it shows, written to one folder.

``ambiglib report`` (and ``make report``) runs each notebook shipped with the package
(``notebooks/`` in the source tree, ``ambiglib/notebooks`` once installed; or a folder of
your own with ``--notebooks-dir``) with papermill, two at a time, injecting the run log and
any parameters, and writes:

* ``<out>/<notebook>.ipynb`` and ``<out>/<notebook>.html`` — the executed notebooks;
* for a table or figure with nothing to show, the one line saying why (``<table>.note.txt``),
  listed in the index under its notebook;
* ``<out>/tables/<notebook>/<table>.{csv,md,tex}`` — every table the notebook saved
  with :func:`save_table` (TeX with booktabs rules);
* ``<out>/figures/<notebook>/<figure>.png`` — every figure saved with :func:`save_figure`;
* ``<out>/summary.md`` and ``<out>/rejected.csv`` — what was read, rejected and skipped;
* ``<out>/index.html`` — links to all of it, each table and figure shown inline;
* ``<out>/manifest.json`` — the same list, for tools and tests, with every file the report wrote
  (``files``) and its marker (``"format": "ambiglib-report"``): a later report replaces only a folder
  that is such a report, and deletes only the files it lists (:mod:`ambiglib.report._folder`).

One module per part: :mod:`~ambiglib.report._run` (loading once, the workers, the swap into place),
:mod:`~ambiglib.report._runner` (one notebook in its kernel), :mod:`~ambiglib.report._parameters` (what a
parameters file may say, and the cell that says it), :mod:`~ambiglib.report._folder` (the output folder,
built aside and never anyone else's), :mod:`~ambiglib.report._rendering` (tables and figures, escaped) and
:mod:`~ambiglib.report._index` (the summary and index pages), :mod:`~ambiglib.report._bundled` (the notebooks and
example log that ship with ambiglib). Notebooks import what they use from here.
"""

from typing import Any

from ambiglib import _moved
from ambiglib.errors import ReportError
from ambiglib.report._index import errors_frame, write_summary
from ambiglib.report._parameters import notebook_parameters
from ambiglib.report._rendering import (
           MAX_ROWS_SHOWN,
           csv_safe,
           markdown_safe,
           render_table,
           save_figure,
           save_table,
           show_figure,
           show_table,
)
from ambiglib.report._run import SNAPSHOT_DIR, bundled_notebooks, example_runs, run_report

__all__ = ["save_table", "save_figure", "show_table", "show_figure", "write_summary", "run_report", "ReportError",
           "errors_frame", "render_table", "notebook_parameters", "bundled_notebooks", "example_runs", "csv_safe",
           "markdown_safe", "MAX_ROWS_SHOWN", "SNAPSHOT_DIR"]


def __getattr__(name: str) -> Any:
    """``ambiglib.report.run`` and the other modules that became private, as their old names."""
    return _moved.attribute(__name__, name)
