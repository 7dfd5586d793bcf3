"""Hostile and broken input (issue 11): each class of problem has a named test here.

Every load of damaged input ends in an ``AmbiglibError`` naming file and line, a full
load, or a counted and reported skip; the two JSON Lines engines agree; what we write
we read back.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ambiglib
from ambiglib.errors import AmbiglibError, FormatError, SchemaError

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzzing

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "data" / "example"


def _run(**extra) -> dict:
    run = {"benchmark": "b", "suite": "s", "task_id": "t", "model": "m", "spec": "full",
           "ask_tool": False, "score": 0.5}
    run.update(extra)
    return run


def _both_engines(path: Path) -> tuple:
    """Lenient loads by both engines; they must agree exactly."""
    out = []
    for engine in ("auto", "python"):
        rs, errors = ambiglib.load(path, strict=False, quiet=True, engine=engine)
        out.append((rs, [e.message for e in errors]))
    (rs_a, err_a), (rs_p, err_p) = out
    assert err_a == err_p
    for name in ("runs", "questions", "labels", "tasks", "blockers"):
        assert getattr(rs_a, name).equals(getattr(rs_p, name)), name
    return rs_a, err_a


def _write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _round_trips(rs, tmp_path: Path) -> None:
    back = ambiglib.load(rs.to_jsonl(tmp_path / "back.jsonl"), quiet=True)
    for name in ("runs", "questions", "labels", "tasks", "blockers"):
        cols = [c for c in getattr(rs, name).columns if c != "source"]
        assert getattr(back, name)[cols].equals(getattr(rs, name)[cols]), name


# ----------------------------------------------------------------------------- canonical JSON Lines


@pytest.mark.parametrize("depth", [65, 1_000, 10_000, 100_000])
def test_deeply_nested_json_is_a_format_error_on_its_line(tmp_path, depth):
    """~1,000 levels raised RecursionError; ~10,000 crashed the process inside Arrow."""
    good = json.dumps(_run(trial=1))
    deep = json.dumps(_run(trial=2))[:-1] + ', "meta": {"x": ' + "[" * depth + "1" + "]" * depth + "}}"
    path = _write_lines(tmp_path / "deep.jsonl", [good, deep])
    rs, errors = _both_engines(path)
    assert len(rs.runs) == 1
    assert len(errors) == 1 and errors[0].startswith(f"{path}:2:")
    assert "nested deeper than 64 levels" in errors[0]
    with pytest.raises(AmbiglibError, match=r"deep\.jsonl:2: .*nested deeper than 64 levels"):
        ambiglib.load(path, quiet=True)


def test_meta_nesting_up_to_the_limit_loads_and_round_trips(tmp_path):
    meta = {"x": json.loads("[" * 60 + "1" + "]" * 60)}
    path = _write_lines(tmp_path / "ok.jsonl", [json.dumps(_run(meta=meta))])
    rs, errors = _both_engines(path)
    assert errors == [] and json.loads(rs.runs["meta"][0]) == meta
    _round_trips(rs, tmp_path)


@pytest.mark.parametrize("literal", ["1e400", "-1e400", "123456789e999"])
def test_a_number_beyond_a_float_is_refused_not_stored_as_infinity(tmp_path, literal):
    """A meta number like 1e400 was stored as Infinity, and the JSONL we wrote was unreadable."""
    path = tmp_path / "inf.jsonl"
    path.write_text(json.dumps(_run())[:-1] + f', "meta": {{"x": {literal}}}}}\n')
    rs, errors = _both_engines(path)
    assert len(rs.runs) == 0 and len(errors) == 1
    assert errors[0].startswith(f"{path}:1: not valid JSON (the number {literal} is beyond the range of a float")
    score = tmp_path / "score.jsonl"
    score.write_text(json.dumps(_run()).replace('"score": 0.5', f'"score": {literal}') + "\n")
    assert len(_both_engines(score)[1]) == 1


@pytest.mark.parametrize("digits", [20, 400, 5_000])
def test_huge_integer_literals_are_schema_errors(tmp_path, digits):
    """Integers too large for a float raised OverflowError; over 4,300 digits, ValueError."""
    big = "1" + "0" * digits
    path = _write_lines(tmp_path / "big.jsonl", [
        json.dumps(_run()).replace('"score": 0.5', f'"score": {big}'),
        json.dumps(_run(trial=2)).replace('"trial": 2', f'"trial": {big}'),
    ])
    rs, errors = _both_engines(path)
    assert len(rs.runs) == 0 and len(errors) == 2
    assert all(e.startswith(f"{path}:{i}: ") for i, e in enumerate(errors, 1))


def test_huge_integer_in_meta_round_trips(tmp_path):
    path = _write_lines(tmp_path / "bigmeta.jsonl", [json.dumps(_run(meta={"n": 10**400}))])
    rs, errors = _both_engines(path)
    assert errors == [] and json.loads(rs.runs["meta"][0]) == {"n": 10**400}
    _round_trips(rs, tmp_path)


def _gz_log(tmp_path: Path) -> tuple[Path, bytes]:
    raw = gzip.compress((EXAMPLE / "lhaw.jsonl").read_bytes())
    return tmp_path / "log.jsonl.gz", raw


@pytest.mark.parametrize("damage", ["flip", "truncate", "trailing-garbage", "not-gzip"])
def test_corrupt_gzip_is_a_format_error_from_both_engines(tmp_path, damage):
    """engine='python' let zlib.error out of a corrupt gzip."""
    path, raw = _gz_log(tmp_path)
    data = bytearray(raw)
    if damage == "flip":
        data[len(data) // 2] ^= 0x10
    elif damage == "truncate":
        del data[len(data) // 2:]
    elif damage == "trailing-garbage":
        data += b"\x1f\x8b\x08garbage"
    else:
        data[:3] = b"xyz"
    path.write_bytes(bytes(data))
    for engine in ("auto", "python", "arrow"):
        with pytest.raises(FormatError, match=r"log\.jsonl\.gz: cannot be read \(.+\)"):
            ambiglib.load(path, quiet=True, engine=engine)


def test_gzip_with_trailing_zero_bytes_is_read_alike_by_both_engines(tmp_path):
    """Trailing zero padding (allowed by gzip readers) was read by one engine and refused by the other."""
    path, raw = _gz_log(tmp_path)
    path.write_bytes(raw + b"\x00" * 512)
    rs, errors = _both_engines(path)
    assert errors == [] and len(rs.runs) == len(ambiglib.load(EXAMPLE / "lhaw.jsonl").runs)
    assert ambiglib.load(path, quiet=True, engine="arrow").runs.equals(rs.runs)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=30,
)


@settings(max_examples=60, deadline=None)
@given(meta=st.dictionaries(st.text(max_size=8), json_values, max_size=5))
def test_any_json_meta_loads_alike_and_round_trips(tmp_path_factory, meta):
    tmp = tmp_path_factory.mktemp("meta")
    path = _write_lines(tmp / "m.jsonl", [json.dumps(_run(meta=meta), ensure_ascii=False)])
    rs, errors = _both_engines(path)
    if errors:  # only what the contract refuses: strings that are not Unicode
        assert all("Unicode" in e for e in errors)
        return
    assert json.loads(rs.runs["meta"][0]) == meta
    _round_trips(rs, tmp)


def test_every_error_is_an_ambiglib_error_subclass():
    assert issubclass(FormatError, AmbiglibError) and issubclass(SchemaError, AmbiglibError)


# ----------------------------------------------------------------------------- Parquet run logs


def _parquet_with(tmp_path: Path, frame: str, column: str | None, value) -> Path:
    """A Parquet copy of the example with one frame rewritten (``fuzzing.rewrite_parquet``)."""
    root = ambiglib.load(EXAMPLE).to_parquet(tmp_path / "store")
    fuzzing.rewrite_parquet(root / f"{frame}.parquet", column, value)
    return root


PARQUET_ROW_ERRORS = [  # (frame, column, value, the message after "<file>:<row>: ")
    ("runs", "score", 5.0, "field 'score' must be a number in [0, 1] or null (got 5.0)"),
    ("runs", "score", float("nan"), "field 'score' must be a number in [0, 1] or null (got nan)"),
    ("runs", "score", float("-inf"), "field 'score' must be a number in [0, 1] or null (got -inf)"),
    ("runs", "spec", "amb", "field 'spec' must be 'full' or 'ambiguous' (got 'amb')"),
    ("runs", "trial", -3, "field 'trial' must be an integer >= 1 or null (got -3)"),
    ("runs", "model", None, "missing required field 'model'"),
    ("runs", "cost_usd", -1.0, "field 'cost_usd' must be a number >= 0 or null (got -1.0)"),
    ("runs", "meta", "{x", "field 'meta' is not valid JSON"),
    ("runs", "meta", "[1]", "field 'meta' must be the JSON text of an object"),
    ("runs", None, "over a childless row", "duplicate run key"),  # as many rows as written
]


@pytest.mark.parametrize("frame,column,value,message", PARQUET_ROW_ERRORS,
                         ids=[f"{c}={v!r}" if c else "duplicate" for _, c, v, _ in PARQUET_ROW_ERRORS])
def test_parquet_rows_meet_the_jsonl_contract(tmp_path, frame, column, value, message):
    """Parquet was not validated at all: these all loaded silently."""
    row = 1
    if value == "over a childless row":  # a run without questions or labels takes row 0's values (and key)
        runs = ambiglib.load(EXAMPLE).runs
        row = int(((runs["n_questions"] == 0) & (runs["n_labels"] == 0)).to_numpy().nonzero()[0][1]) + 1
        value = f"over row {row - 1}"
    root = _parquet_with(tmp_path, frame, column, value)
    n = len(ambiglib.load(EXAMPLE).runs)
    rs, errors = ambiglib.load(root, strict=False, quiet=True)
    assert len(errors) == 1
    assert errors[0].message.startswith(f"{root / 'runs.parquet'}:{row}: {message}")
    assert errors[0].line == row and errors[0].file == str(root / "runs.parquet")
    assert len(rs.runs) == n - 1  # the rejected row only
    with pytest.raises(SchemaError, match="runs.parquet"):
        ambiglib.load(root, quiet=True)


@pytest.mark.parametrize("frame,column,value,message", [
    ("runs", "run_id", "other", r"runs\.parquet:1: column 'run_id' is 'other' but the records give"),
    ("runs", "n_questions", 99, r"runs\.parquet:1: column 'n_questions' is 99 but the records give 0"),
    ("questions", "run_id", "no|run", r"questions\.parquet:1: run_id 'no\|run' names no row of .*runs\.parquet"),
    ("questions", "q_index", 7, r"questions\.parquet:1: column 'q_index' is 7"),
    ("blockers", "variant_id", "nowhere", r"blockers\.parquet:1: task .*'nowhere'\) names no row"),
    ("runs", "extra", 1, r"runs\.parquet: unknown column\(s\) extra"),
    ("runs", None, None, r"runs\.parquet: 488 rows where RunSet.to_parquet wrote 487 \(rows deleted or added"),
])
def test_parquet_frames_that_disagree_with_their_records_are_format_errors(tmp_path, frame, column, value,
                                                                           message):
    root = _parquet_with(tmp_path, frame, column, value)
    with pytest.raises(FormatError, match=message):
        ambiglib.load(root, strict=False, quiet=True)


def test_a_flipped_bit_in_a_parquet_page_is_an_error_not_a_value(tmp_path):
    """Single bit flips changed values without an error; pages now carry checksums."""
    rs = ambiglib.load(EXAMPLE)
    root = rs.to_parquet(tmp_path / "store")
    file = root / "runs.parquet"
    data = bytearray(file.read_bytes())
    outcomes = set()
    for offset in range(8, len(data) - 8, max(1, len(data) // 300)):
        data[offset] ^= 0x04
        file.write_bytes(bytes(data))
        data[offset] ^= 0x04
        try:
            back, errors = ambiglib.load(root, strict=False, quiet=True)
        except AmbiglibError:
            outcomes.add("error")
            continue
        if errors:
            outcomes.add("error")
            continue
        outcomes.add("same")  # a flip in padding or unused metadata: the values must not change
        for name in ("runs", "questions", "labels", "tasks", "blockers"):
            assert getattr(back, name).equals(getattr(rs, name)), (offset, name)
    assert "error" in outcomes


def test_parquet_written_then_read_is_identical(tmp_path):
    rs = ambiglib.load(EXAMPLE)
    back, errors = ambiglib.load(rs.to_parquet(tmp_path / "s"), strict=False, quiet=True)
    assert errors == []
    for name in ("runs", "questions", "labels", "tasks", "blockers"):
        assert getattr(back, name).equals(getattr(rs, name)), name


# ----------------------------------------------------------------------------- degenerate but valid data


def _runs(records):
    return ambiglib.RunSet.from_records(records)


def test_ask_diagnostics_when_every_run_asked_and_none_is_labelled():
    """It raised KeyError when every run in a cell asked (the Ambig-DS calibration notebook on real data)."""
    from ambiglib import tables

    recs = [{"benchmark": "ambig-ds", "suite": "target", "task_id": f"t{i}", "model": "m", "spec": "full",
             "ask_tool": True, "policy": "permissive", "protocol": "ask_only", "questions": [{"text": "which?"}],
             "labels": [{"facet": "over_ask", "label": "unnecessary", "call": c} for c in (1, 2, 3)] if i else []}
            for i in range(3)]
    out = tables.ask_diagnostics(_runs(recs))
    row = out.iloc[0]
    assert row["n_runs"] == 3 and row["correct_silent"] == 0.0
    assert row["unnecessary"] == pytest.approx(2 / 3) and row["unlabeled"] == pytest.approx(1 / 3)


def test_composition_of_an_empty_selection_is_an_empty_table_with_a_note():
    from ambiglib import tables

    with pytest.warns(UserWarning, match="match no run; the log has model"):  # a name the log lacks: a typo?
        empty = ambiglib.load(EXAMPLE).filter(model="nobody")
    out = tables.composition(empty)
    assert len(out) == 0 and "no runs" in out.attrs["note"]


def test_pass_at_k_does_not_count_an_unknown_verdict_as_a_failure():
    """A null `passed` counted as a failure: every Ambig-DS model got pass@1 = 0.0."""
    from ambiglib import metrics

    base = {"benchmark": "b", "suite": "s", "task_id": "t", "model": "m", "spec": "full", "ask_tool": False}
    rs = _runs([{**base, "trial": 1, "passed": True}, {**base, "trial": 2}, {**base, "trial": 3, "passed": False},
                {**base, "task_id": "u", "trial": 1}])
    out = metrics.pass_at_k(rs, k=1).iloc[0]
    assert out["n_tasks"] == 1 and out["pass_at_k"] == pytest.approx(0.5)  # task t: 1 of 2 known; u: no trial
    first = metrics.pass_at_k(rs, k=2, estimator="first_k").iloc[0]
    assert first["n_tasks"] == 1 and first["pass_at_k"] == 1.0
    ad = ambiglib.load(EXAMPLE / "ambig-ds.jsonl")
    by = ["suite", "model", "spec", "ask_tool", "policy", "protocol"]
    table = metrics.pass_at_k(ad, k=1, by=by)
    assert table["pass_at_k"].isna().all() and (table["n_tasks"] == 0).all()


def test_ask_f1_of_a_group_whose_every_run_errored_is_nan_not_zero():
    import dataclasses

    from ambiglib import metrics

    hb = ambiglib.load(EXAMPLE / "hil-bench.jsonl")
    errored = dataclasses.replace(hb, runs=hb.runs.assign(status="error"))
    out = metrics.ask_f1(errored)
    assert (out["n_runs"] == 0).all() and (out["n_excluded"] > 0).all()
    assert out[["precision", "recall", "ask_f1"]].isna().all().all()
    ok = metrics.ask_f1(hb)
    assert ok[["precision", "recall", "ask_f1"]].notna().all().all()


# ----------------------------------------------------------------------------- untrusted text in what we render

HOSTILE = "m<img src=x onerror=alert(1)>|$\\&_#"


def _hostile_table():
    import pandas as pd

    return pd.DataFrame({"model": [HOSTILE, "=HYPERLINK(\"http://x\")", "-2+3", "ok"],
                         "labels": [["<script>1</script>"], ["a|b"], [], ["c"]],
                         "score": [-0.5, 0.25, -1.0, 1.0], "n_runs": [1, 2, 3, 4]})


def test_show_table_escapes_every_cell_including_list_cells(tmp_path):
    """Model, policy, label and category names reached the notebooks' HTML unescaped."""
    from ambiglib.report import show_table

    shown = show_table(_hostile_table(), "t", tmp_path).data
    assert "<img" not in shown and "<script>" not in shown
    assert "&lt;img src=x onerror=alert(1)&gt;" in shown and "&lt;script&gt;" in shown


def test_saved_tables_escape_markdown_and_latex_and_neutralise_csv_formulas(tmp_path):
    import csv

    from ambiglib.report import save_table

    save_table(_hostile_table(), "t", tmp_path, caption="a_b & c")
    md = (tmp_path / "t.md").read_text()
    assert "<img" not in md and "<script>" not in md and "&lt;img" in md
    body = [line for line in md.splitlines()[2:]]
    assert all(line.count(" | ") == 3 for line in body)  # a '|' in a cell does not make a column
    tex = (tmp_path / "t.tex").read_text()
    assert r"\$" in tex and r"\&" in tex and r"\_" in tex and r"\#" in tex
    rows = list(csv.DictReader(open(tmp_path / "t.csv", newline="")))
    assert rows[0]["model"] == HOSTILE
    assert rows[1]["model"] == "'=HYPERLINK(\"http://x\")" and rows[2]["model"] == "'-2+3"
    assert [r["score"] for r in rows] == ["-0.5", "0.25", "-1.0", "1.0"]  # numbers stay numbers


def test_summary_files_escape_untrusted_names(tmp_path):
    from ambiglib.report import write_summary

    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps(_run(model="=cmd|' /C calc'!A0<b>")) + "\n" + "{broken\n")
    write_summary(log, tmp_path / "out", quiet=True)
    md = (tmp_path / "out" / "summary.md").read_text()
    assert "<b>" not in md and "&lt;b&gt;" in md
    assert "'=cmd" in (tmp_path / "out" / "summary.csv").read_text()


def test_a_params_key_that_is_not_a_declared_parameter_is_refused_before_anything_runs(tmp_path):
    """papermill writes parameter names raw into the injected cell: a key with a newline ran code."""
    from ambiglib.report import ReportError, run_report

    params = tmp_path / "p.yaml"
    params.write_text('"x = 1\\nimport os; os.system(\'touch PWNED\')\\ny": 2\n')
    with pytest.raises(ReportError, match=r"unknown parameter .x = 1\\nimport os"):
        run_report(EXAMPLE, tmp_path / "out", params_file=params)
    assert not (tmp_path / "out").exists() and not Path("PWNED").exists()


# ----------------------------------------------------------------------------- faults during a report



def _descendants(pid: int) -> set[int]:
    out = subprocess.run(["ps", "-eo", "pid=,ppid="], capture_output=True, text=True).stdout.split("\n")
    children: dict[int, list[int]] = {}
    for line in out:
        if line.strip():
            p, pp = map(int, line.split())
            children.setdefault(pp, []).append(p)
    found, stack = set(), [pid]
    while stack:
        for c in children.get(stack.pop(), []):
            found.add(c)
            stack.append(c)
    return found


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for p in pids:
        try:
            with open(f"/proc/{p}/stat") as fh:
                if fh.read().split()[2] != "Z":
                    alive.add(p)
        except OSError:
            pass
    return alive


def _kernels(pids: set[int]) -> set[int]:
    found = set()
    for p in pids:
        try:
            with open(f"/proc/{p}/cmdline", "rb") as fh:
                if b"ipykernel" in fh.read():
                    found.add(p)
        except OSError:
            pass
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and relies on PR_SET_PDEATHSIG")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL, signal.SIGINT])
def test_a_killed_report_leaves_no_workers_or_kernels_and_no_partial_output(tmp_path, sig):
    """SIGTERM or SIGKILL orphaned the workers, which kept writing into --out; after the first fix, a SIGKILLed
    report's workers stayed alive under init for 30 s and more (concurrent.futures caught their SystemExit
    and waited for the next notebook), and in one trial four kernels did. Ctrl-C reaches the whole process
    group: the workers' tracebacks came before the report's one line."""
    out = tmp_path / "report"
    proc = subprocess.Popen([sys.executable, "-m", "ambiglib", "report", "-q", "--runs", str(EXAMPLE), "--out",
                             str(out), "--notebooks", "conventions", "4_is_one_agent_better", "hilbench_judgment_gap"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.time() + 60
    workers: set[int] = set()
    while time.time() < deadline and not _kernels(workers):  # the workers, and a kernel running a notebook
        time.sleep(0.2)
        workers |= _descendants(proc.pid)
    assert _kernels(workers), "the report started no kernel"
    workers |= _descendants(proc.pid)
    os.killpg(proc.pid, sig) if sig == signal.SIGINT else proc.send_signal(sig)  # Ctrl-C: the terminal's group
    _, stderr = proc.communicate(timeout=60)
    if sig != signal.SIGKILL:
        assert proc.returncode == 130
        assert stderr.strip().splitlines() == [f"ambiglib report: interrupted; {out} is as it was before this run"]
    gone = time.time() + 5
    while _alive(workers) and time.time() < gone:
        time.sleep(0.1)
    assert not _alive(workers), f"still running 5 s after the report died: {_alive(workers)}"
    assert not out.exists()
    if sig != signal.SIGKILL:  # a SIGKILLed run cannot clean up its private work folder; the next run does
        assert not [p for p in tmp_path.iterdir() if p.name.startswith(".report.building-")]


def _maps(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/maps") as fh:
            return fh.read()
    except OSError:
        return ""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_while_the_command_imports_its_libraries_is_one_line(tmp_path, sig):
    """Ctrl-C while `ambiglib report` imported pandas printed a 20-line traceback from inside the import;
    SIGTERM then killed it without a word."""
    out = tmp_path / "report"
    proc = subprocess.Popen([sys.executable, "-m", "ambiglib", "report", "-q", "--runs", str(EXAMPLE), "--out",
                             str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.time() + 30
    while "pandas/_libs" not in _maps(proc.pid) and proc.poll() is None and time.time() < deadline:
        time.sleep(0.005)
    assert "pandas/_libs" in _maps(proc.pid), "never saw the command import pandas"
    os.killpg(proc.pid, sig)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert stderr.strip().splitlines() == [f"ambiglib report: interrupted; {out} is as it was before this run"]
    assert not out.exists()


_SWALLOWING_COMMAND = """
import os, signal, sys, time
from pathlib import Path
import ambiglib.cli as cli

marks = Path(sys.argv[1])

def command(args):  # stands in for `report`: the interrupt lands in code that drops it, as a Cython module's init
    try:                                       # drops one from registering its memoryview with collections.abc
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(1)
    except KeyboardInterrupt:
        marks.joinpath("lost").touch()
    try:
        for _ in range(300):                   # the rest of the command: 3 s
            time.sleep(0.01)
        marks.joinpath("finished").touch()
    except BaseException:                      # a cleanup that takes 10 watch periods; it must run to its end
        for _ in range(100):
            time.sleep(0.01)
        marks.joinpath("cleaned").touch()
        raise
    return 0

cli._report = command
sys.exit(cli.main(["report", "--runs", "x", "--out", "y"]))
"""


def test_an_interrupt_that_code_we_do_not_own_drops_is_raised_again_and_spares_the_cleanup(tmp_path):
    """Ctrl-C while `ambiglib report` imported pandas was lost now and then (1 run in 6-20): a Cython module's
    init registers its memoryview types with collections.abc.Sequence under a bare `except: pass`, our handler
    had already ignored every later signal, and the report ran to its end with exit 0."""
    proc = subprocess.run([sys.executable, "-c", _SWALLOWING_COMMAND, str(tmp_path)], capture_output=True,
                          text=True, timeout=60)
    assert (tmp_path / "lost").exists(), "the interrupt was not dropped: this test tests nothing"
    assert not (tmp_path / "finished").exists(), "the command ran to its end after Ctrl-C"
    assert (tmp_path / "cleaned").exists(), "the cleanup was cut short by the interrupt raised again"
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.strip().splitlines() == ["ambiglib report: interrupted"]


def test_a_second_report_into_a_folder_in_use_is_refused(tmp_path):
    import fcntl

    from ambiglib.report import ReportError, run_report

    out = tmp_path / "report"
    with open(tmp_path / ".report.ambiglib-lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        lock.write("pid 4242")
        lock.flush()
        with pytest.raises(ReportError, match=r"another ambiglib run is writing it \(pid 4242\)"):
            run_report(EXAMPLE, out, notebooks=["quickstart"])
    assert not out.exists()


def test_a_folder_that_is_not_a_report_is_never_replaced(tmp_path):
    from ambiglib.report import ReportError, run_report

    (tmp_path / "thesis.tex").write_text("years of work")
    with pytest.raises(ReportError, match="holds files that are not an ambiglib report"):
        run_report(EXAMPLE, tmp_path, notebooks=["quickstart"])
    assert (tmp_path / "thesis.tex").read_text() == "years of work"


def test_an_unwritable_out_is_one_line_and_a_nonzero_exit(tmp_path):
    (tmp_path / "file").write_text("x")
    proc = subprocess.run([sys.executable, "-m", "ambiglib", "report", "-q", "--runs", str(EXAMPLE), "--out",
                           str(tmp_path / "file" / "report"), "--notebooks", "quickstart"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ambiglib report: ") and "cannot be written" in lines[0]


def test_a_report_replaces_an_older_report_whole(tmp_path):
    from ambiglib.report import run_report

    out = tmp_path / "report"
    run_report(EXAMPLE, out, notebooks=["quickstart", "hilbench_dataset"])
    assert (out / "hilbench_dataset.html").is_file()
    run_report(EXAMPLE, out, notebooks=["quickstart"])
    assert not (out / "hilbench_dataset.html").exists()  # nothing of the older run is left beside the new one
    assert [n["notebook"] for n in json.loads((out / "manifest.json").read_text())["notebooks"]] == ["quickstart"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]  # and no lock file left beside it


# ----------------------------------------------------------------------------- native harness output

NATIVE = ROOT / "data" / "example-native"


@pytest.fixture
def native(tmp_path):
    import shutil

    root = tmp_path / "native"
    shutil.copytree(NATIVE, root)
    return root


def _lenient(path):
    rs, errors = ambiglib.load(path, strict=False, quiet=True)
    return rs, [e.message for e in errors]


def test_a_folder_holding_several_layouts_loads_all_of_them(native, tmp_path):
    """`ambiglib validate data/example-native` reported 112 runs: the HIL-Bench and LHAW runs were gone."""
    rs, errors = _lenient(native)
    assert errors == []
    parts = {b: len(ambiglib.load(native / b, quiet=True).runs) for b in ("hil-bench", "ambig-ds", "lhaw")}
    assert rs.runs["benchmark"].value_counts().to_dict() == parts
    # a canonical file beside native trees is loaded too; a run met twice is an error naming both places
    (native / "extra.jsonl").write_text(json.dumps(_run()) + "\n")
    rs, errors = _lenient(native)
    assert len(rs.runs) == sum(parts.values()) + 1 and errors == []
    ambiglib.load(EXAMPLE / "lhaw.jsonl").to_jsonl(native / "again.jsonl")
    rs, errors = _lenient(native)
    assert len(errors) == parts["lhaw"] + len(ambiglib.load(EXAMPLE / "lhaw.jsonl").tasks)
    assert "duplicate run" in errors[-1] or "duplicate" in errors[0]


@pytest.mark.parametrize("kind", ["fifo", "symlink-out", "symlink-loop", "folder"])
def test_a_native_file_that_is_not_a_regular_file_inside_the_log_is_an_error(native, kind, tmp_path):
    """A FIFO named like a registry hung the load forever; symlinks and folders read as 'absent'."""
    registry = native / "hil-bench" / "registries" / "sql_0.json"
    registry.unlink()
    if kind == "fifo":
        os.mkfifo(registry)
    elif kind == "symlink-out":
        (tmp_path / "outside.json").write_text("{}")
        registry.symlink_to(tmp_path / "outside.json")
    elif kind == "symlink-loop":
        registry.symlink_to(registry)
    else:
        registry.mkdir()
    expected = {"fifo": "expected a file, found a FIFO", "symlink-out": "a symlink out of the log's folder",
                "symlink-loop": "a symlink that leads nowhere or in a loop", "folder": "expected a file, found a folder"}
    with pytest.raises(FormatError, match=re.escape(f"{registry}: {expected[kind]}")):
        ambiglib.load(native / "hil-bench", quiet=True)




@pytest.mark.parametrize("content, message", [
    ('{"a": 1, "a": 2}', "field 'a' appears twice in one object"),
    ('{"a": NaN}', "NaN is not a JSON number"),
    ('{"a": 1e400}', "beyond the range of a float"),
    ('{"a": 1' + "0" * 5000 + "}", "Exceeds the limit"),
    ('{"a": ' + "[" * 50_000 + "]" * 50_000 + "}", "nested too deeply"),
])
def test_native_json_that_cannot_be_read_faithfully_is_an_error(native, content, message):
    from ambiglib.importers._common import read_json

    file = native / "x.json"
    file.write_text(content)
    with pytest.raises(FormatError, match=re.escape(str(file)) + ".*" + re.escape(message)):
        read_json(file)


def test_a_broken_or_empty_grade_file_is_an_error_not_an_invalid_run(native):
    """A broken `_grade.json` turned an ok run into `invalid` with score 0."""
    root = native / "ambig-ds"
    baseline = ambiglib.load(root, quiet=True)
    grade = next(root.rglob("_grade.json"))
    for content in ("", "{broken"):
        grade.write_text(content)
        rs, errors = _lenient(root)
        assert len(errors) == 1 and str(grade) in errors[0]
        assert len(rs.runs) == len(baseline.runs) - 1


def test_wrong_native_types_reject_their_row_with_our_error(native):
    """A TAC final_score that is a string or number raised TypeError or AttributeError."""
    root = native / "lhaw"
    evals = sorted((root / "tac").rglob("eval_*.json"))
    for bad in ("7", '"high"', "[1, 2]"):
        data = json.loads(evals[0].read_text())
        text = json.dumps(data).replace(json.dumps(data["final_score"]), bad, 1)
        evals[0].write_text(text)
        rs, errors = _lenient(root)
        assert len(errors) == 1 and "lhaw_manifest.csv:" in errors[0]


def test_metadata_that_is_a_list_is_our_error(native):
    meta = native / "hil-bench" / "metadata" / "sql_0.json"
    meta.write_text("[1, 2, 3]")
    with pytest.raises(AmbiglibError):
        rs, errors = ambiglib.load(native / "hil-bench", strict=False, quiet=True)
        assert errors


def test_manifest_rows_that_do_not_fit_are_errors(native):
    """A trial `1_0` (read as 10), a short row, a variant_id matching nothing and a header-only CSV passed."""
    root = native / "lhaw"
    manifest = root / "lhaw_manifest.csv"
    lines = manifest.read_text().splitlines()
    header, first = lines[0], lines[1].split(",")
    trial = first.copy()
    trial[5] = "1_0"
    variant = first.copy()
    variant[7] = "no-such-variant"
    manifest.write_text("\n".join([header, ",".join(trial), ",".join(variant), ",".join(first[:4])]) + "\n")
    with pytest.raises(FormatError, match=r"lhaw_manifest\.csv:4: a row of 4 cells; the header has 9"):
        ambiglib.load(root, quiet=True)
    manifest.write_text("\n".join([header, ",".join(trial), ",".join(variant)]) + "\n")
    rs, errors = _lenient(root)
    assert len(rs.runs) == 0 and len(errors) == 2
    assert "field 'trial' must be an integer written in digits (got '1_0')" in errors[0]
    assert "'no-such-variant' names no variant or task" in errors[1]
    manifest.write_text(header + "\n")
    with pytest.raises(FormatError, match="a header and no rows"):
        ambiglib.load(root, quiet=True)


def test_paths_named_in_a_log_stay_inside_its_folder(native, tmp_path):
    """LHAW manifest paths (`../..`, absolute) were read and echoed into the report."""
    root = native / "lhaw"
    manifest = root / "lhaw_manifest.csv"
    lines = manifest.read_text().splitlines()
    secret = tmp_path / "secret.json"
    secret.write_text('{"final_score": {"result": 1, "total": 1}, "checkpoints": []}')
    for path in (str(secret), "../../secret.json", "tac/../../../secret.json"):
        row = lines[1].split(",")
        row[0] = path
        manifest.write_text("\n".join([lines[0], ",".join(row)]) + "\n")
        rs, errors = _lenient(root)
        assert len(rs.runs) == 0 and len(errors) == 1
        assert "field 'path'" in errors[0] and ("absolute path" in errors[0] or "leads out of" in errors[0])


@pytest.mark.parametrize("relative", ["../x.json", "/etc/passwd", "a/../../x.json", "C:\\x.json", ""])
def test_inside_refuses_a_path_that_leaves_the_log(tmp_path, relative):
    """A HIL-Bench CSV `model` value was used as a path part (`trajectories/<mode>/<model>/...`)."""
    from ambiglib.importers._common import RowError, inside

    with pytest.raises(RowError):
        inside(tmp_path, relative, "model")
    assert inside(tmp_path, "a/b.json", "model") == tmp_path / "a" / "b.json"


@pytest.mark.parametrize("kind", ["fifo", "broken symlink", "symlink loop"])
def test_a_canonical_jsonl_that_is_not_a_regular_file_is_named_not_skipped(tmp_path, kind):
    """A folder of .jsonl files where one was a FIFO or a broken symlink loaded the rest without a word."""
    import shutil

    folder = tmp_path / "logs"
    shutil.copytree(EXAMPLE, folder)
    odd = folder / "more.jsonl"
    if kind == "fifo":
        os.mkfifo(odd)
    elif kind == "broken symlink":
        odd.symlink_to(tmp_path / "gone.jsonl")
    else:
        odd.symlink_to(odd)
    said = {"fifo": "expected a file, found a FIFO",
            "broken symlink": f"a symbolic link to nothing ({tmp_path / 'gone.jsonl'})",
            "symlink loop": "cannot be read (Too many levels of symbolic links)"}[kind]
    code = ("import sys, ambiglib\nfrom ambiglib.errors import FormatError\n"
            "for strict in (True, False):\n"
            "    try:\n        ambiglib.load(sys.argv[1], strict=strict, quiet=True)\n"
            "    except FormatError as exc:\n        print(exc)\n")
    done = subprocess.run([sys.executable, "-c", code, str(folder)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"{odd}: {said}"] * 2


def test_csv_headers_made_from_log_values_are_neutralised_too(tmp_path):
    """The failure-mode, framing and conditional-score tables make a column of each label a log holds:
    formula neutralisation covered their cells, not their headers."""
    import csv

    from ambiglib import tables
    from ambiglib.report import save_table

    hostile = ['=HYPERLINK("http://x")', "@SUM(A1)", "+1", "-1+2", "plain"]
    from conftest import run_record

    records = [run_record(trial=i + 1, labels=[{"facet": "failure.logic", "label": label, "judge": "j", "call": 1}])
               for i, label in enumerate(hostile)]
    table = tables.failure_modes(ambiglib.RunSet.from_records(records), dimension="logic")
    assert set(hostile) <= set(table.columns)
    save_table(table, "logic", tmp_path)
    header = next(csv.reader(open(tmp_path / "logic.csv", newline="")))
    assert {h for h in header if h[:1] in "=+-@'"} == {"'" + h for h in hostile[:4]}
    assert "plain" in header and "benchmark" in header


def test_text_from_a_log_is_drawn_as_written_never_as_mathtext(tmp_path):
    """A judge label `$\\foo$` crashed the failure-modes notebook (matplotlib's mathtext ParseFatalException)."""
    import matplotlib

    matplotlib.use("Agg")
    import pandas as pd

    from ambiglib import plots

    shares = pd.DataFrame({"model": ["m $\\foo$", "m $x^2$"], "label": ["$\\foo$ bar", "$x^2$"], "share": [0.5, 0.2]})
    fig = plots.failure_heatmap(shares)
    fig.savefig(tmp_path / "f.png")
    ax = fig.axes[0]
    assert sorted(t.get_text() for t in ax.get_xticklabels()) == ["$\\foo$ bar", "$x^2$"]
    assert all(not t._parse_math for t in ax.get_xticklabels() + ax.get_yticklabels())


# ----------------------------------------------------------------------------- runs that vanish (issue 31)


def _reasons(rs) -> dict:
    from collections import Counter

    return dict(Counter(json.loads(m).get("error_reason") for m in rs.runs["meta"] if m) - Counter())


@pytest.mark.parametrize("deleted, reason", [
    ("gpt-5.4/baseline/pass_2", "missing_pass"),
    ("gpt-5.4/baseline/pass_1", "missing_pass"),  # the harness then read no pass of the mode at all
    ("gpt-5.4/baseline", "missing_from_tree"),    # batch_config.json names the model and the mode
    ("gpt-5.4", "missing_from_tree"),
])
def test_a_hil_bench_pass_mode_or_model_folder_deleted_leaves_error_runs_not_a_gap(native, deleted, reason):
    run = native / "hil-bench" / "results" / "example_baseline_sql"
    before, _ = _lenient(run)
    import shutil

    n_gone = sum(1 for _ in (run / deleted).rglob("*.traj")) or None
    shutil.rmtree(run / deleted)
    after, errors = _lenient(run)
    assert errors == [] and len(after.runs) == len(before.runs)
    gone = _reasons(after).get(reason, 0) - _reasons(before).get(reason, 0)
    assert gone > 0 and (n_gone is None or gone == n_gone), (gone, n_gone)
    assert set(after.runs.loc[after.runs["status"] == "error", "model"]) >= {"gpt-5.4"}


def test_a_hil_bench_metrics_field_of_the_wrong_type_is_an_error_not_an_infra_error(native):
    """`"results": true` made every instance of the pass not completed: infra_error runs, no word."""
    run = native / "hil-bench" / "results" / "example_baseline_sql"
    metrics = run / "gpt-5.4" / "baseline" / "pass_1" / "metrics.json"
    data = json.loads(metrics.read_text())
    data["results"] = True
    metrics.write_text(json.dumps(data))
    rs, errors = _lenient(run)
    assert errors == [f"{metrics}: field 'results' must be an object (got true)"]
    assert "infra_error" not in _reasons(rs)


def test_ambig_ds_runs_named_by_the_runlog_or_the_harness_summaries_do_not_vanish(native):
    import shutil

    results = native / "ambig-ds" / "results"
    before, _ = _lenient(results)
    task = results / "opencode_gpt-5.4_ambig_target" / "dsbench-bike-sharing"
    shutil.rmtree(task)  # its runlog line stays: an error run
    rs, errors = _lenient(results)
    assert errors == [] and len(rs.runs) == len(before.runs) and _reasons(rs)["task_folder_missing"] == 1
    shutil.rmtree(results / "opencode_gpt-5.4_ambig_target")  # with its runlog: step 7's audit still names it
    rs, errors = _lenient(results)
    audit = results / "_aggregate" / "target_audit" / "opencode_gpt-5.4_ambig_target.json"
    assert errors == [
        f"{audit}: the harness audited run 'opencode_gpt-5.4_ambig_target' (8 attempted tasks), but"
        f" {results / 'opencode_gpt-5.4_ambig_target'} is not here: its runs are missing"]


def test_ambig_ds_timed_out_of_another_type_is_an_error(native):
    """`timed_out: "<text>"` read as true."""
    results = native / "ambig-ds" / "results"
    traj = next((results / "opencode_gpt-5.4_ambig_target").glob("*/_traj.json"))
    data = json.loads(traj.read_text())
    data["timed_out"] = "after 3600 s"
    traj.write_text(json.dumps(data))
    _, errors = _lenient(results)
    assert len(errors) == 1 and "field 'timed_out' must be true or false (got 'after 3600 s')" in errors[0]


@pytest.mark.parametrize("damage", ["scored file deleted", "scored row deleted"])
def test_mcp_atlas_completions_the_judge_never_scored_are_error_runs(native, damage):
    import csv

    root = native / "lhaw" / "mcp-atlas" / "opus-4.5"
    before, _ = _lenient(root)
    scored = sorted((root / "evaluation_results").glob("scored_*.csv"))[0]
    csv.field_size_limit(1 << 30)
    rows = list(csv.reader(open(scored, newline="", encoding="utf-8")))
    if damage == "scored file deleted":
        scored.unlink()
        n = len(rows) - 1
    else:
        with open(scored, "w", newline="", encoding="utf-8") as fh:
            csv.writer(fh).writerows(rows[:-1])
        n = 1
    rs, errors = _lenient(root)
    assert errors == [] and len(rs.runs) == len(before.runs) and _reasons(rs).get("not_scored") == n


def test_a_harness_log_nested_in_another_layout_s_folder_is_loaded_too(native):
    """An Ambig-DS results tree inside a HIL-Bench run folder was ignored without a word."""
    import shutil

    run = native / "hil-bench" / "results" / "example_baseline_sql"
    alone, _ = _lenient(run)
    ambig, _ = _lenient(native / "ambig-ds" / "results")
    shutil.move(str(native / "ambig-ds" / "results"), str(run / "extra" / "results"))
    both, errors = _lenient(run)
    assert errors == [] and len(both.runs) == len(alone.runs) + len(ambig.runs)


def test_every_table_on_a_log_missing_one_condition_gives_a_frame_or_a_metric_error():
    """failure_mode_shift raised KeyError on HIL-Bench runs that all had the ask tool. Every table, on each
    benchmark of the example with only one side of the ask tool or of the specification, gives a DataFrame
    (empty ones with a note) or a MetricError, never an exception from inside pandas."""
    import pandas as pd

    from ambiglib import comparisons, tables
    from ambiglib.answers import _headline as headline
    from ambiglib.metrics import MetricError
    from ambiglib.tables._common import unexplained

    rs = ambiglib.load(EXAMPLE, quiet=True)
    slices = [rs.filter(benchmark=b, **{col: v}) for b in sorted(set(rs.runs["benchmark"]))
              for col, values in (("ask_tool", (True, False)), ("spec", ("full", "ambiguous"))) for v in values]
    fns = {n: getattr(tables, n) for n in tables.__all__ if n != "selector_accuracy"}  # that one reads a CSV
    fns["model_comparison"] = comparisons.model_comparison
    fns.update({name: getattr(headline, name) for name in headline.QUESTIONS})  # the report's opening too
    quick = {"performance": {"n_boot": 50}, "model_comparison": {"n_boot": 50}, "power_analysis": {"n_sim": 20},
             **{name: {"n_boot": 50} for name in headline.QUESTIONS}}
    for sub in slices:
        for name, fn in fns.items():
            try:
                out = fn(sub, **quick.get(name, {}))
            except MetricError:
                continue
            assert isinstance(out, pd.DataFrame), name
            assert len(out) or out.attrs.get("note"), f"{name}: an empty table without a note"
            assert unexplained(out) == [], f"{name}: a '–' without a reason"


def test_a_path_made_from_a_harness_csv_cell_never_leaves_the_run_folder(native, tmp_path):
    """A pass_level_metrics.csv whose model cell was ../<folder outside> made the importer read that folder's
    ask_human/pass_1/ask_human_logs.json, and its question appeared in the run set (issue 27 §3)."""
    import csv
    import shutil

    run = tmp_path / "copied_run"
    shutil.copytree(native / "hil-bench" / "results" / "example_ask_human_sql" / "public_metrics",
                    run / "public_metrics")  # a copied public_metrics/ alone: questions from the server logs
    outside = tmp_path / "outside"
    task = "public_sql_0"
    entry = {f"{task}__../outside__ask_human__pass_1": {"questions": [
        {"question": "SECRET QUESTION FROM OUTSIDE", "response": "x", "blocker_name": None}]}}
    (outside / "ask_human" / "pass_1").mkdir(parents=True)
    (outside / "ask_human" / "pass_1" / "ask_human_logs.json").write_text(json.dumps(entry))
    table = run / "public_metrics" / "pass_level_metrics.csv"
    rows = list(csv.DictReader(open(table, newline="")))
    rows[0]["model"] = "../outside"
    with open(table, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    rs, errors = _lenient(run)
    assert not (rs.questions["text"].astype(str) == "SECRET QUESTION FROM OUTSIDE").any()
    assert [e for e in errors if "../outside" in e] == [
        f"{table}:2: field 'model' names '../outside/ask_human/pass_1/ask_human_logs.json', which leads out of {run}"]


def test_an_instance_id_that_names_a_path_out_of_the_pass_folder_is_an_error(native, tmp_path):
    """The per-pass tree's .traj path is made from preds.json's keys: a key '../../x' must not reach out."""
    run = native / "hil-bench" / "results" / "example_baseline_sql"
    pass_dir = run / "gpt-5.4" / "baseline" / "pass_1"
    preds = json.loads((pass_dir / "preds.json").read_text())
    preds["../../../../../outside"] = {"model_patch": ""}
    (pass_dir / "preds.json").write_text(json.dumps(preds))
    (tmp_path / "outside.traj").write_text("{}")
    _, errors = _lenient(run)
    assert any("field 'instance_id' names '../../../../../outside/../../../../../outside.traj', which leads out of"
               in e for e in errors), errors


def test_a_bad_meta_shared_by_several_rows_is_refused_in_every_row(tmp_path):
    """Each distinct ``meta`` text is checked once (issue 41); its verdict must reach every row holding it,
    and rows holding a good text beside them must load."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    root = ambiglib.load(EXAMPLE).to_parquet(tmp_path / "store")
    file = root / "runs.parquet"
    table = pq.read_table(file)
    metas = table.column("meta").to_pylist()
    bad_rows = [0, 3, 7, len(metas) - 1]
    for i in bad_rows:
        metas[i] = '{"a": 1, "a": 2}'
    metas[5] = '{"a": 1}'  # a good text, written as another row's bad one is not
    i = table.schema.get_field_index("meta")
    pq.write_table(table.set_column(i, "meta", pa.array(metas, pa.string())), file)
    rs, errors = ambiglib.load(root, strict=False, quiet=True)
    assert [e.line for e in errors] == [r + 1 for r in bad_rows]
    assert all("field 'a' appears twice in one object" in e.message for e in errors)
    assert len(rs.runs) == len(metas) - len(bad_rows)
    kept = [m for i, m in enumerate(metas) if i not in bad_rows]
    assert [None if pd.isna(m) else json.loads(m) for m in rs.runs["meta"].tolist()] == \
        [None if m is None else json.loads(m) for m in kept]


def test_list_items_given_flat_are_judged_as_the_nested_lists_are():
    """A Parquet copy's questions, labels and blockers are validated flat, as frames, not nested back into
    records (issue 41): for records with each kind of bad item, both forms get the same verdict."""
    import random

    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    from conftest import run_record, task_record

    from ambiglib.runlog._schema import INPUT_SCHEMA
    from ambiglib.runlog._validity import table_is_valid

    bad_items = {
        "questions": [{"text": ""}, {"text": "  "}, {"text": "q", "attributed": False, "blocker_id": "b"},
                      {"text": "q", "step": -1}],
        "labels": [{"facet": "", "label": "x"}, {"facet": "f", "label": "x", "q_index": 7},
                   {"facet": "f", "label": "x", "call": 0}, {"facet": "trace", "label": "intended", "judge": "j1"}],
        "blockers": [{"id": "modern_era_cards"}, {"id": ""}],
    }
    rng = random.Random(4141)
    verdicts = set()
    for _ in range(300):
        runs = [run_record(trial=t, questions=[{"text": f"q{i}?"} for i in range(rng.randrange(3))])
                for t in range(1, 5)]
        tasks = [task_record(task_id=f"t{i}") for i in range(3)]
        for _ in range(rng.randrange(3)):  # a bad item put somewhere
            list_name = rng.choice(list(bad_items))
            record = rng.choice(tasks if list_name == "blockers" else runs)
            record.setdefault(list_name, []).append(dict(rng.choice(bad_items[list_name])))
        if rng.random() < 0.2:
            rng.choice(runs)["ask_tool"] = False  # asked without the tool, where it asked
        table = pa.Table.from_pylist(runs + tasks, schema=INPUT_SCHEMA)
        children = {}
        for name in ("questions", "labels", "blockers"):
            lists = table.column(name)
            lengths = pc.fill_null(pc.list_value_length(lists), 0).to_numpy()
            flat = pc.list_flatten(lists)
            items = pa.table({f.name: pc.struct_field(flat, f.name) for f in lists.type.value_type})
            children[name] = (items, np.repeat(np.arange(len(lengths)), lengths))
        placeholders = table
        for name in children:
            i = table.schema.get_field_index(name)
            placeholders = placeholders.set_column(i, name, pa.nulls(len(table), table.schema.field(name).type))
        verdict = table_is_valid(table)
        assert table_is_valid(placeholders, children) == verdict
        verdicts.add(verdict)
    assert verdicts == {True, False}


def test_taking_rising_rows_chunk_by_chunk_is_taking_them():
    """``validity.take_rising`` takes a chunked column's rows chunk by chunk (Arrow's take joins the
    chunks into a copy first): the same values as Python indexing, for chunk layouts with empty chunks."""
    import random

    import numpy as np
    import pyarrow as pa

    from ambiglib.runlog._validity import take_rising

    rng = random.Random(41)
    for _ in range(2000):
        values = [rng.choice(["a", "bb", None, "c"]) for _ in range(rng.randrange(30))]
        cuts = sorted(rng.randrange(len(values) + 1) for _ in range(rng.randrange(4)))
        col = pa.chunked_array([pa.array(values[a:b], pa.string()) for a, b in zip([0, *cuts], [*cuts, len(values)])],
                               pa.string())
        rows = np.array(sorted(rng.sample(range(len(values)), rng.randrange(len(values) + 1))), dtype=np.int64)
        assert take_rising(col, rows).to_pylist() == [values[i] for i in rows]


def test_repeated_label_and_blocker_keys_are_found_as_pandas_finds_them():
    """``validity._no_repeats`` codes each column and compares one integer per row (issue 41): the same
    answer as pandas' ``duplicated`` on the columns themselves, nulls alike, over chunked columns of
    three types; and for keys too wide for one integer, where pandas answers."""
    import random

    import numpy as np
    import pandas as pd
    import pyarrow as pa

    from ambiglib.runlog._validity import _no_repeats

    def pandas_says(parents, *columns):
        frame = {"p": parents, **{f"c{i}": c.to_numpy(zero_copy_only=False) for i, c in enumerate(columns)}}
        return len(parents) < 2 or not pd.DataFrame(frame).duplicated().any()

    rng = random.Random(41)
    answers = set()
    for _ in range(2000):
        n = rng.randrange(12)
        parents = np.sort(np.array([rng.randrange(4) for _ in range(n)], dtype=np.int64))
        columns = []
        for _ in range(rng.randrange(1, 4)):
            kind = rng.choice([pa.string(), pa.int64(), pa.int32()])
            values = [None if rng.random() < 0.2 else (str(rng.randrange(3)) if kind == pa.string()
                                                        else rng.randrange(-1, 3)) for _ in range(n)]
            cut = rng.randrange(n + 1)
            columns.append(pa.chunked_array([pa.array(values[:cut], kind), pa.array(values[cut:], kind)]))
        expected = pandas_says(parents, *columns)
        assert _no_repeats(parents, *columns) == expected
        answers.add(expected)
    assert answers == {True, False}
    wide = [pa.chunked_array([pa.array([f"{i}-{j}" for i in range(3000)] + [f"0-{j}"])]) for j in range(6)]
    parents = np.zeros(3001, dtype=np.int64)
    assert _no_repeats(parents, *wide) is False and pandas_says(parents, *wide) is False
    assert _no_repeats(parents[:3000], *(c[:3000] for c in wide)) is True


DERIVED_CHANGES = [  # (frame, column, value): a derived column of row 0 as loading would not derive it
    ("runs", "variant_id", None), ("runs", "policy", None), ("runs", "protocol", None), ("runs", "trial", None),
    ("runs", "trial", 2), ("runs", "status", None), ("runs", "n_labels", 7), ("runs", "run_id", None),
    ("questions", "relevant", None), ("questions", "relevant", False), ("questions", "attributed", None),
    ("questions", "q_index", 1), ("questions", "q_index", None), ("labels", "judge", None), ("labels", "call", None),
    ("tasks", "variant_id", None), ("tasks", "n_blockers", 0), ("blockers", "task_id", "elsewhere"),
    ("runs", None, None), ("tasks", None, None), ("questions", "shuffled", None), ("labels", "shuffled", None),
]


@pytest.mark.parametrize("frame,column,value", DERIVED_CHANGES, ids=[f"{f}.{c}={v!r}" for f, c, v in DERIVED_CHANGES])
def test_a_parquet_log_checked_from_its_columns_loads_as_rebuilding_it_does(tmp_path, frame, column, value,
                                                                          monkeypatch):
    """A valid Parquet log's derived columns are checked from the stored columns (issue 41), not by building the
    frames again from its records. Both ways must give the same run set, or the same error, for each derived
    column changed, a row repeated and rows stored out of order."""
    import pyarrow.parquet as pq

    import ambiglib.runlog._parquet_check as check

    root = ambiglib.load(EXAMPLE).to_parquet(tmp_path / "store")
    file = root / f"{frame}.parquet"
    if column == "shuffled":  # rows in another order than their runs' (the rows-written count still holds)
        table = pq.read_table(file)
        pq.write_table(table.take(list(range(table.num_rows))[::-1]), file)
    elif column is not None or value is not None or frame in ("runs", "tasks"):
        if column is None:  # a repeated row: the run (task) key of row 0 twice; the count is off too
            fuzzing.rewrite_parquet(file, None, "over row 1")
        else:
            fuzzing.rewrite_parquet(file, column, value)

    def outcome():
        try:
            rs, errors = ambiglib.load(root, strict=False, quiet=True)
        except FormatError as exc:
            return str(exc)
        return {n: getattr(rs, n) for n in ("runs", "questions", "labels", "tasks", "blockers")}, \
            [e.message for e in errors]

    fast = outcome()
    monkeypatch.setattr(check, "_derived_agree", lambda *a: False)
    full = outcome()
    if isinstance(full, str):
        assert fast == full
    else:
        assert not isinstance(fast, str), fast
        assert fast[1] == full[1]
        for name, frame_ in full[0].items():
            assert fast[0][name].equals(frame_), name
    if column not in ("shuffled",):
        assert isinstance(full, str) or full[1], "the change must be refused"


def test_a_valid_parquet_log_and_store_take_the_column_check(tmp_path, monkeypatch):
    """The column check above answers yes on valid copies (else the comparison would be of one path with itself):
    the example as a Parquet folder and as a store partitioned by benchmark and model."""
    import ambiglib.runlog._parquet_check as check

    answers = []
    real = check._derived_agree
    monkeypatch.setattr(check, "_derived_agree", lambda *a: answers.append(real(*a)) or answers[-1])
    rs = ambiglib.load(EXAMPLE)
    for copy in (rs.to_parquet(tmp_path / "folder"), rs.to_parquet(tmp_path / "store", partition_by=("benchmark", "model"))):
        back = ambiglib.load(copy, quiet=True)
        for name in ("runs", "questions", "labels", "tasks", "blockers"):
            cols = [c for c in getattr(rs, name).columns]
            assert getattr(back, name)[cols].equals(getattr(rs, name)[cols]), name
    assert answers == [True, True]
