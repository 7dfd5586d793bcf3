"""Issue 56: every command ends a fault in one line; ``compare`` refuses a side compared with itself, names its own
flags, suggests the name meant and bounds its pairs; one question naming a blocker its task does not register
leaves the other agents' numbers intact and names itself; ``validate`` groups rejected records by cause;
``convert`` reads its output back before saying "wrote".

The logs are built by hand (tests/builders.py), so that each expected number is counted here, not by ambiglib.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from builders import q, run, task
from conftest import write_jsonl

import ambiglib
from ambiglib.cli import main


def ambiglib_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``ambiglib ARGS`` in a child process, as a user runs it (a traceback shows there as it would to them)."""
    return subprocess.run([sys.executable, "-m", "ambiglib", *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd)


def one_line(proc: subprocess.CompletedProcess, code: int) -> str:
    """The single line a failed ``ambiglib compare`` printed on standard error (no traceback)."""
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == code and len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert lines[0].startswith("ambiglib compare: "), lines[0]
    return lines[0]


def _trials_log(tmp_path: Path) -> Path:
    """Two models, 6 tasks, 3 pass/fail trials each: not one trial per task, so McNemar's test does not apply."""
    recs = [run(task=f"t{t}", model=m, trial=k, score=float((t + k) % 2), passed=bool((t + k) % 2))
            for t in range(6) for m in ("model-a", "model-b") for k in (1, 2, 3)]
    return write_jsonl(tmp_path / "trials.jsonl", recs)


def _stray_log(tmp_path: Path) -> Path:
    """Three models on 4 tasks registering b0, b1; model-b's question on t0 names 'b9', which t0 does not register.

    By hand (one run a task): model-a asks b0 and an off-topic question everywhere: precision 4/8 = 0.5, recall
    4/8 = 0.5; model-c asks b0 and b1 on t0-t1 and nothing on t2-t3: precision 4/4 = 1, recall 4/8 = 0.5."""
    recs = [task(f"t{t}", n_blockers=2) for t in range(4)]
    for t in range(4):
        recs.append(run(task=f"t{t}", model="model-a", score=0.8, questions=[q("b0"), q(None, "off topic?")]))
        recs.append(run(task=f"t{t}", model="model-b", score=0.5,
                        questions=[q("b9" if t == 0 else "b1")]))
        recs.append(run(task=f"t{t}", model="model-c", score=0.2, questions=[q("b0"), q("b1")] if t < 2 else []))
    return write_jsonl(tmp_path / "stray.jsonl", recs)


# ----------------------------------------------------------------------------- one line, never a traceback


def test_mcnemar_on_a_log_with_trials_is_one_line_naming_the_pair_and_the_fix(tmp_path):
    proc = ambiglib_cli("compare", "--runs", str(_trials_log(tmp_path)), "--test", "mcnemar", "--n-boot", "100")
    line = one_line(proc, 2)
    assert "--test mcnemar needs one pass/fail trial per task and side" in line
    assert "model-a vs model-b" in line and "3 trials" in line and "--test permutation" in line


def test_a_negative_seed_is_one_line(tmp_path):
    # 24 tasks: the permutation test draws random flips, which the seed seeds
    log = write_jsonl(tmp_path / "many.jsonl", [run(task=f"t{t}", model=m, score=(t * (i + 2)) % 5 / 4)
                                                for t in range(24) for i, m in enumerate(("model-a", "model-b"))])
    proc = ambiglib_cli("compare", "--runs", str(log), "--seed", "-1")
    assert "--seed must be 0 or more (got -1)" in one_line(proc, 2)
    from ambiglib import comparisons
    from ambiglib.errors import ArgumentError

    with pytest.raises(ArgumentError, match=r"seed must be an integer from 0 \(got -1\)"):
        comparisons.paired_comparison(ambiglib.load(log, quiet=True), seed=-1, n_boot=10)


def test_a_question_naming_an_unregistered_blocker_leaves_the_other_pairs_compared(tmp_path):
    log = _stray_log(tmp_path)
    proc = ambiglib_cli("compare", "--runs", str(log), "--metric", "precision", "--n-boot", "100", "--format", "csv")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    import io

    import pandas as pd

    rows = pd.read_csv(io.StringIO(proc.stdout))
    assert rows[["model_a", "model_b"]].values.tolist() == [["model-a", "model-c"]]
    assert rows[["value_a", "value_b"]].values.tolist() == [[0.5, 1.0]]
    assert "model-b" in proc.stderr and "'b9'" in proc.stderr and "does not register" in proc.stderr


def test_one_bad_question_blanks_its_own_agent_only_and_names_itself(tmp_path):
    from ambiglib.answers import _headline as headline

    out = headline.question_quality(ambiglib.load(_stray_log(tmp_path), quiet=True), n_boot=100).set_index("agent")
    assert (out.loc["model-a", "precision"], out.loc["model-a", "recall"]) == (0.5, 0.5)
    assert (out.loc["model-c", "precision"], out.loc["model-c", "recall"]) == (1.0, 0.5)
    assert out.loc["model-a", "ask_f1"] == pytest.approx(0.5)
    assert out.loc["model-c", "ask_f1"] == pytest.approx(2 * 1.0 * 0.5 / 1.5)
    assert out.loc["model-b", ["precision", "recall", "ask_f1"]].isna().all()
    assert out.loc["model-b", "questions_per_run"] == 1.0  # what does not rest on blockers is kept
    for column in ("precision", "recall", "ask_f1"):
        why = out.attrs["empty"][column]
        assert "model-b" in why and "'b9'" in why and "does not register" in why, why


# ----------------------------------------------------------------------------- compare's sides and flags


def test_a_side_compared_with_itself_is_refused(tmp_path):
    log = str(_trials_log(tmp_path))
    line = one_line(ambiglib_cli("compare", "--runs", log, "--a", "model-a", "--b", "model-a"), 2)
    assert "--a and --b are both 'model-a'" in line
    line = one_line(ambiglib_cli("compare", "--runs", log, "--between", "ask_tool", "--a", "true", "--b", "TRUE"), 2)
    assert "--a and --b are both true" in line
    from ambiglib import comparisons
    from ambiglib.errors import ArgumentError

    with pytest.raises(ArgumentError, match="a and b are both 'model-a'"):
        comparisons.paired_comparison(ambiglib.load(log, quiet=True), a="model-a", b="model-a", n_boot=10)


def test_compare_names_its_own_flags_and_the_name_meant(tmp_path, capsys):
    log = write_jsonl(tmp_path / "log.jsonl", [run(task=f"t{t}", model=m, score=0.5) for t in range(3)
                                               for m in ("asker-1", "guesser-2")])
    assert main(["compare", "--runs", str(log), "--a", "asker", "--b", "guesser-2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ambiglib compare: --a: 'asker' not in the run log"), err
    assert "did you mean 'asker-1'?" in err[0] and "--model" not in err[0]
    assert main(["compare", "--runs", str(log), "--a", "asker-1", "--b", "gueser-2"]) == 2
    assert "--b: 'gueser-2' not in the run log" in capsys.readouterr().err
    # a misspelt choice or flag: argparse's message, and the one meant
    with pytest.raises(SystemExit):
        main(["compare", "--runs", str(log), "--metric", "ask-f1"])
    assert "did you mean 'ask_f1'?" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["compare", "--runs", str(log), "--metrc", "ask_f1"])
    assert "did you mean --metric?" in capsys.readouterr().err


# ----------------------------------------------------------------------------- compare's bound on pairs


def test_every_pair_is_bounded_with_advice_and_a_flag_to_raise_it(tmp_path, capsys):
    models = [f"model-{i}" for i in range(6)]  # 15 pairs
    log = write_jsonl(tmp_path / "log.jsonl", [run(task=f"t{t}", model=m, score=(t + i) % 3 / 2)
                                               for t in range(4) for i, m in enumerate(models)])
    assert main(["compare", "--runs", str(log), "--max-pairs", "10", "--n-boot", "50"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "6 models make 15 pairs" in err[0] and "more than --max-pairs 10" in err[0], err
    assert "--a" in err[0] and "--b" in err[0]
    assert main(["compare", "--runs", str(log), "--max-pairs", "15", "--n-boot", "50", "--format", "csv"]) == 0
    assert capsys.readouterr().out.count("\n") == 16  # a header and 15 rows
    assert main(["compare", "--runs", str(log), "--max-pairs", "10", "--a", "model-0", "--b", "model-1"]) == 0


# ----------------------------------------------------------------------------- summary, validate, convert


def test_summary_without_out_says_where_it_wrote(tmp_path):
    log = write_jsonl(tmp_path / "log" / "runs.jsonl", [run(score=0.5)])
    here = tmp_path / "elsewhere"
    here.mkdir()
    proc = ambiglib_cli("summary", "-q", "--runs", str(log), cwd=here)
    assert proc.returncode == 0, proc.stderr
    assert (here / "reports" / "summary.md").exists()
    assert f"no --out: made {here / 'reports'} (the default, reports/ in the current folder)" in proc.stderr


def test_validate_says_each_cause_once_with_its_count_and_first_places(tmp_path, capsys):
    recs = [task("t1")] + [run(trial=k, extra_field=1) for k in range(1, 361)]  # 360 x one cause
    recs += [run(trial=1000 + k, score=3.0 + k) for k in range(3)]  # 3 x another, each with its own value
    recs += [run(trial=2000, spec="amb")]  # once
    log = write_jsonl(tmp_path / "bad.jsonl", recs)
    assert main(["validate", "--runs", str(log)]) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    extra = [line for line in lines if "unknown field 'extra_field'" in line]
    assert len(extra) == 1 and extra[0].startswith("360 records: unknown field 'extra_field' in a run record")
    assert extra[0].endswith(f"first at {log}:2, :3, :4, :5, :6 and 355 more")
    scores = [line for line in lines if "field 'score' must be" in line]
    assert scores == [f"3 records: field 'score' must be a number in [0, 1] or null (got 3.0 at the first):"
                      f" first at {log}:362, :363, :364"]
    assert f"{log}:365: field 'spec' must be 'full' or 'ambiguous' (got 'amb')" in lines  # alone: as it was
    assert lines[-1] == (f"{log}: 0 runs, 1 tasks accepted; 364 records rejected, for 3 causes (--each lists every"
                         " record)")
    assert len(out) < 2000
    assert main(["validate", "--each", "--runs", str(log)]) == 1
    each = capsys.readouterr().out.splitlines()
    assert sum(f"{log}:" in line and "extra_field" in line for line in each) == 360


def test_convert_reads_its_output_back_before_saying_wrote(tmp_path, capsys, monkeypatch):
    from ambiglib.runset import RunSet

    log = write_jsonl(tmp_path / "runs.jsonl", [task("t1"), run(score=0.5), run(trial=2, score=1.0)])
    original = RunSet.to_jsonl

    def loses_a_line(self, path, *args, **kwargs):  # a writer whose output does not load back as it was read
        written = original(self, path, *args, **kwargs)
        text = Path(written).read_text().splitlines()
        Path(written).write_text("\n".join(text[:-1]) + "\n")
        return written

    monkeypatch.setattr(RunSet, "to_jsonl", loses_a_line)
    assert main(["convert", "--runs", str(log), "--out", str(tmp_path / "copy.jsonl")]) == 1
    out, err = capsys.readouterr()
    assert "wrote" not in out and len(err.strip().splitlines()) == 1, (out, err)
    assert err.startswith(f"ambiglib convert: {tmp_path / 'copy.jsonl'}: does not read back as the log it was"
                          " converted from (runs: 2 read, 1 in the copy)"), err
    assert not (tmp_path / "copy.jsonl").exists()  # made by this run, and wrong: removed

    def unloadable(self, path, *args, **kwargs):
        written = original(self, path, *args, **kwargs)
        Path(written).write_text(Path(written).read_text() + "not json\n")
        return written

    monkeypatch.setattr(RunSet, "to_jsonl", unloadable)
    assert main(["convert", "--runs", str(log), "--out", str(tmp_path / "copy.jsonl")]) == 1
    out, err = capsys.readouterr()
    assert "wrote" not in out and "does not read back" in err and "not valid JSON" in err, err
    monkeypatch.setattr(RunSet, "to_jsonl", original)
    assert main(["convert", "--runs", str(log), "--out", str(tmp_path / "copy.jsonl")]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {tmp_path / 'copy.jsonl'}"
