"""What HIL-Bench's own code fixes and every reader of its output needs: modes, CSV columns, the answer
cap, the server's fixed answers, model_safe names, the harness's Ask-F1 and its invalid-pass reasons, which
folders are run folders, and its cells' types."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ambiglib.importers._common import RowError
from ambiglib.runlog._files import is_file

__all__ = ["model_safe", "ask_prf", "is_hilbench_run"]


#: HIL-Bench modes → (spec, ask_tool) (``batch_runner.get_modes_from_flags``)
MODES = {"baseline": ("ambiguous", False), "ask_human": ("ambiguous", True), "full_info": ("full", False)}


CSV_COLUMNS = ("task_name", "model", "mode", "pass_num", "status", "resolved", "cost", "num_steps",
               "num_questions", "num_blockers_resolved", "total_num_blockers", "precision", "recall", "f1",
               "tokens_sent", "tokens_received")


STATUSES = {"resolved": "ok", "unresolved": "ok", "infra_error": "error"}


_TASK = re.compile(r"^public_(sql|swe)_\d+$")


#: the oracle stops matching blockers after this many answered questions (``ask_human_server.py``)
MAX_ANSWERED = 3


#: The most passes a batch may claim. The harness pads every pass it claims and lacks as an error run and
#: lists pass@k for every k up to the count, so a count of 10^20 never ends.
MAX_PASSES = 1_000


#: the hil_metrics keys batch_runner aggregates across passes (consolidated_metrics.json)
CONSOLIDATED_HIL = ("precision", "recall", "ask_f1", "n_questions", "n_blockers_present", "n_blockers_discovered")


HICCUP = "can't answer (perhaps transient hiccup)"


IRRELEVANT = "irrelevant question"


ASK_PREFIX = "ask_human "


def model_safe(model: str) -> str:
    """The folder and instance-id form of a model name (``swe.create_mixed_mode_instances``)."""
    return model.replace("/", "_").replace(":", "_")


def ask_prf(found: float, asked: float, present: float) -> tuple[float, float, float]:
    """Ask precision, recall and F1 as ``compute_hil_metrics`` and ``summarize_rows`` compute them:
    found / asked, found / present, their harmonic mean; 0.0 for a zero denominator."""
    precision = found / asked if asked > 0 else 0.0
    recall = found / present if present > 0 else 0.0
    return precision, recall, 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


#: Why the harness leaves a pass out of every statistic (``run_hil_bench.summarize_rows``): the CSV status,
#: a pass missing from the tree (``parse_metrics_rows`` pads it), or ``trajectory_needs_rerun``'s rules.
INVALID_REASONS = {
    "infra_error": "status infra_error (SQL not completed; SWE evaluation error)",
    "missing_pass": "no metrics.json/preds.json entry for this pass (the harness pads it as infra_error)",
    "missing_from_tree": "batch_config.json or the harness's CSV names this model and mode, but the run folder"
                         " has no files for it (the harness would leave it out without a word)",
    "timeout_obs>=3": "3 or more observations 'Command [...] timed out after N seconds'",
    "hiccup_obs": "an observation \"can't answer (perhaps transient hiccup)\" (judge or server failure)",
    "env_died_obs": "last observation holds 'Environment died unexpectedly'",
    "unknown_error": "last response holds 'Exit due to unknown error'",
    "kb_query_error": "an observation holds 'Error querying knowledge base'",
    "sql_quoting_bug_obs": "an SQL info tool answered an ANSI-C quoting artefact ('Error: table $...')",
}


_TIMEOUT_OBS = re.compile(r"Command '\[.*\]' timed out after \d+ seconds")


_QUOTING_MARKERS = (("get_database_info", "Error: database $"), ("get_table_info", "Error: table $"),
                    ("get_column_info", "Error: column $"),
                    ("get_business_info", "No business information found matching '$"))


def _suite(task_name: str, run_dir: Path, task_type: str | None = None) -> str | None:
    if task_type in ("sql", "swe"):
        return task_type
    m = _TASK.match(task_name)
    if m:
        return m.group(1)
    for suffix in ("_sql", "_swe"):  # run_hil_bench.py appends the type when --task-type both
        if run_dir.name.endswith(suffix):
            return suffix[1:]
    return None


def is_hilbench_run(path: Path) -> bool:
    """A folder ``run_hil_bench.py`` or the ``hil`` CLI wrote (its CSV, or its ``batch_config.json``)."""
    return is_file(path / "public_metrics" / "pass_level_metrics.csv") or is_file(path / "batch_config.json")


def _run_dirs(path: Path) -> list[Path]:
    if is_hilbench_run(path):
        return [path]
    found = {p.parent.parent for p in path.glob("**/public_metrics/pass_level_metrics.csv")}
    found |= {p.parent for p in path.glob("**/batch_config.json")}
    # a run folder's own subfolders are never run folders of their own
    return sorted(p for p in found if not any(q != p and q in p.parents for q in found))


def _int(value: Any, fld: str, empty: int | None = None) -> int | None:
    if value in ("", None):
        return empty
    try:
        # digits, or a float with nothing after the point (pandas writes 3.0); never 1_0 or inf
        if isinstance(value, bool) or (isinstance(value, str) and not re.fullmatch(r"\s*-?[0-9]+(\.0*)?\s*", value)):
            raise ValueError
        f = float(value)
        if f != int(f):
            raise ValueError
        return int(f)
    except (ValueError, OverflowError, TypeError):
        raise RowError(fld, f"field '{fld}' must be an integer (got {value!r})") from None


def _float(value: Any, fld: str) -> float | None:
    if value in ("", None):
        return None
    try:
        f = float(value)
    except (ValueError, TypeError):
        raise RowError(fld, f"field '{fld}' must be a number (got {value!r})") from None
    if f != f or f in (float("inf"), float("-inf")):
        raise RowError(fld, f"field '{fld}' must be a finite number (got {value!r})")
    return f


def _bool(value: Any, fld: str) -> bool | None:
    if value in ("", None):
        return None
    if isinstance(value, bool):
        return value
    if str(value).strip().lower() in ("true", "1"):
        return True
    if str(value).strip().lower() in ("false", "0"):
        return False
    raise RowError(fld, f"field '{fld}' must be True or False (got {value!r})")
