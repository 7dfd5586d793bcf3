"""An Inspect eval retried with ``inspect eval-retry``, both logs kept in the folder, is read as Inspect reads it: the
retry's log replaces the failed attempt's. The pair is written here by Inspect itself (``inspect_ai.eval`` and
``inspect_ai.eval_retry``, ``mockllm/model``, offline); every expected value is read from the two logs with
``inspect_ai.log``, never from the importer."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import ambiglib
from ambiglib.importers._inspect_logs import read_inspect

inspect_log = pytest.importorskip("inspect_ai.log", reason="inspect-ai is not installed (pip install 'ambiglib[inspect]')")

#: a task whose solver raises for the samples named in FLAKY_IDS (an API outage, say), then asks the model
TASK = '''
import os
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import includes
from inspect_ai.solver import generate, solver


@solver
def flaky():
    async def solve(state, generate_):
        if str(state.sample_id) in os.environ.get("FLAKY_IDS", "").split(","):
            raise RuntimeError(f"the API failed on {state.sample_id}")
        return await generate_(state)
    return solve


@task
def chores(level: int = 1):
    return Task(dataset=[Sample(id=s, input=f"Do chore {s} at level {level}.", target="Default output",
                                metadata={"spec": "ambiguous"}) for s in ("a", "b", "c", "d")],
                solver=[flaky(), generate()], scorer=includes(), epochs=2)
'''

#: the eval, failing on sample b, then ``eval_retry`` of its log with nothing failing; tiktoken's encoding (which
#: mockllm's default output counts its usage with, downloaded at run time) is stood in for, to run offline
RUN = '''
import os, sys
import tiktoken


class _Encoding:
    def encode(self, text, **kwargs):
        return [0] * (len(text) // 4 + 1)


tiktoken.get_encoding = lambda name: _Encoding()
from inspect_ai import eval, eval_retry

log_dir, fmt = sys.argv[1], sys.argv[2]
os.environ["FLAKY_IDS"] = "b"
first = eval(os.path.join(os.path.dirname(__file__), "chores.py@chores"), model="mockllm/model", log_dir=log_dir,
             log_format=fmt, task_args={"level": 2}, display="none")[0]
os.environ["FLAKY_IDS"] = ""
retry = eval_retry(first.location, log_dir=log_dir, display="none")[0]
print(first.status, retry.status)
'''


def _pair(folder: Path, fmt: str) -> tuple[Path, Path]:
    """The failed eval's log and its retry's, by what Inspect wrote in them (the retry started later)."""
    (folder / "chores.py").write_text(textwrap.dedent(TASK))
    (folder / "run.py").write_text(textwrap.dedent(RUN))
    done = subprocess.run([sys.executable, str(folder / "run.py"), str(folder / "logs"), fmt], capture_output=True,
                          text=True, timeout=300, cwd=folder)
    assert done.returncode == 0 and done.stdout.split() == ["error", "success"], done.stdout + done.stderr
    logs = sorted((folder / "logs").glob(f"*.{fmt}"), key=lambda p: inspect_log.read_eval_log(str(p)).eval.created)
    assert len(logs) == 2
    return logs[0], logs[1]


@pytest.fixture(scope="module", params=["eval", "json"])
def pair(request, tmp_path_factory):
    return _pair(tmp_path_factory.mktemp(f"retry-{request.param}"), request.param)


def _expected(log_path: Path) -> dict[tuple[str, int], tuple[str, float | None]]:
    """Each sample × epoch of a log: its status and score as the run log maps them (an errored sample is an error
    run without a score; includes() scores C, 1.0, or I, 0.0)."""
    log = inspect_log.read_eval_log(str(log_path))
    return {(str(s.id), s.epoch): ("error", None) if s.error else ("ok", {"C": 1.0, "I": 0.0}[s.scores["includes"].value])
            for s in log.samples}


def _loaded(rs) -> dict[tuple[str, int], tuple[str, float | None]]:
    scores = rs.runs["score"].astype(object).where(rs.runs["score"].notna(), None)
    return {(t, int(k)): (st, None if sc is None else float(sc))
            for t, k, st, sc in zip(rs.runs["task_id"], rs.runs["trial"], rs.runs["status"], scores)}


def test_the_pair_is_a_retry_as_inspect_records_it(pair):
    """What links the two logs, in Inspect's own records: one task (eval.task_id), two attempts (eval_id, run_id);
    the retry holds the first attempt's finished samples as they were (the same uuid), ran b again (its first
    attempt's error in error_retries) and ran what the first attempt, stopped by b's error, never reached."""
    first, retry = (inspect_log.read_eval_log(str(p)) for p in pair)
    assert first.status == "error" and retry.status == "success"
    assert first.eval.task_id == retry.eval.task_id and first.eval.task_args == retry.eval.task_args == {"level": 2}
    assert first.eval.eval_id != retry.eval.eval_id and first.eval.run_id != retry.eval.run_id
    earlier = {(s.id, s.epoch): s for s in first.samples}
    reused = 0
    for s in retry.samples:
        before = earlier.get((s.id, s.epoch))
        if before is not None and before.error is None:
            assert s.uuid == before.uuid
            reused += 1
        else:
            assert s.uuid not in {e.uuid for e in earlier.values()} and s.error is None
            assert len(s.error_retries or []) == (1 if before is not None else 0)
    assert reused > 0 and earlier[("b", 1)].error is not None and len(retry.samples) == 8


def test_a_retried_eval_reads_as_its_retry(pair):
    # issue 71: strict refused the folder (a duplicate run key per sample); lenient kept the failed attempt's runs
    first, retry = pair
    expected = _expected(retry)
    assert sorted(v[0] for v in expected.values()) == ["ok"] * 8 and _expected(first)[("b", 1)] == ("error", None)
    rs = ambiglib.load(first.parent)  # strict
    assert _loaded(rs) == expected
    assert {s.rsplit(":", 1)[0] for s in rs.runs["source"]} == {str(retry)}
    assert [n for why, n in rs.skipped.items() if "eval-retry" in why] == [1]
    lenient, errors = ambiglib.load(first.parent, strict=False)
    assert errors == [] and _loaded(lenient) == expected


def test_which_attempt_is_read_does_not_depend_on_the_order_the_logs_are_given(pair):
    first, retry = pair
    for files in ([first, retry], [retry, first]):
        rs = read_inspect(first.parent, files=files)
        assert _loaded(rs) == _expected(retry) and {s.rsplit(":", 1)[0] for s in rs.runs["source"]} == {str(retry)}


def test_the_attempt_that_started_later_is_read_whatever_the_files_times(pair, tmp_path):
    """A copied folder keeps each log's eval.created, not its file time: the later attempt is still the one read."""
    first, retry = pair
    copy = tmp_path / "copied"
    copy.mkdir()
    shutil.copy(retry, copy / retry.name)  # the retry copied first: the older file time
    shutil.copy(first, copy / first.name)
    rs = ambiglib.load(copy)
    assert _loaded(rs) == _expected(retry) and {Path(s.rsplit(":", 1)[0]).name for s in rs.runs["source"]} == {
        retry.name}


def test_a_failed_eval_alone_still_reads_its_errors(pair, tmp_path):
    """Without its retry, the failed attempt is the task's log: its errored samples are error runs."""
    first, _ = pair
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(first, alone / first.name)
    rs = ambiglib.load(alone)
    assert _loaded(rs) == _expected(first) and _loaded(rs)[("b", 1)] == ("error", None)


def test_a_copy_of_one_attempt_is_no_retry(pair, tmp_path):
    """Two files of one attempt (the same eval_id) replace nothing: their runs are duplicates, named as before."""
    _, retry = pair
    twice = tmp_path / "twice"
    twice.mkdir()
    shutil.copy(retry, twice / retry.name)
    shutil.copy(retry, twice / f"copy-{retry.name}")
    rs, errors = ambiglib.load(twice, strict=False)
    assert len(rs.runs) == 8 and len(errors) == 8 and all("duplicate run key" in e.message for e in errors)
    assert json.dumps(rs.skipped).count("eval-retry") == 0


def test_a_log_of_the_same_task_id_for_another_model_replaces_nothing(pair, tmp_path):
    """A retry keeps the task, the model and the task arguments: a log that shares the task id and names another
    model (edited, here with Inspect's own writer) is no attempt of the same task, and hides no run of the retry."""
    first, retry = pair
    folder = tmp_path / "other"
    folder.mkdir()
    shutil.copy(retry, folder / retry.name)
    edited = inspect_log.read_eval_log(str(first))
    edited.eval.model = "mockllm/other"
    later = folder / f"9999-{first.name}"
    inspect_log.write_eval_log(edited, str(later))
    assert inspect_log.read_eval_log(str(later), header_only=True).eval.task_id == edited.eval.task_id
    rs = ambiglib.load(folder)
    assert _loaded(rs.filter(model="mockllm/model")) == _expected(retry)
    assert _loaded(rs.filter(model="mockllm/other")) == _expected(first)


def test_two_attempts_of_one_time_are_both_read_and_named(pair, tmp_path):
    """Attempts whose start and file time are the same cannot be ordered: neither replaces the other (which is read
    is never the order of the files), and their runs are duplicates, each named."""
    first, retry = pair
    folder = tmp_path / "tied"
    folder.mkdir()
    shutil.copy(retry, folder / retry.name)
    edited = inspect_log.read_eval_log(str(first))
    edited.eval.created = inspect_log.read_eval_log(str(retry), header_only=True).eval.created
    inspect_log.write_eval_log(edited, str(folder / first.name))
    stamp = (retry.stat().st_atime_ns, retry.stat().st_mtime_ns)
    for p in folder.iterdir():
        os.utime(p, ns=stamp)
    rs, errors = ambiglib.load(folder, strict=False)
    assert len(errors) == len(_expected(first)) and all("duplicate run key" in e.message for e in errors)
    assert json.dumps(rs.skipped).count("eval-retry") == 0
