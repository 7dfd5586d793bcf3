"""The report's folder (issue 31): it replaces only a report of its own, deletes only the files that report
wrote, never its own input, and survives a kill at any point of the swap."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ambiglib.errors import ReportError
from ambiglib.report._folder import REPORT_FORMAT, ReportFolder, is_report

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example"
FILES = {"index.html": "<html>", "summary.md": "# s", "tables/quickstart/summary.csv": "a\n1\n",
         "figures/quickstart/f.png": "png"}


def write_report(out: Path, files: dict[str, str] = FILES, **inputs: Path) -> ReportFolder:
    """A report as ``run_report`` writes one, without running notebooks: files into the work folder, commit."""
    with ReportFolder(out, inputs) as folder:
        for rel, text in files.items():
            path = folder.work / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        folder.commit({"runs": "log", "notebooks": []})
    return folder


def tree(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): p.read_text() for p in sorted(folder.rglob("*")) if p.is_file()}


def siblings(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir() if p.name != out.name)


def test_a_report_lists_every_file_it_wrote_and_carries_its_marker(tmp_path):
    out = tmp_path / "report"
    write_report(out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["format"] == REPORT_FORMAT and sorted(manifest["files"]) == sorted(FILES)
    assert tree(out) == {**FILES, "manifest.json": (out / "manifest.json").read_text()}
    assert siblings(out) == []  # nothing beside it: the lock file goes with the run that held it
    # a folder made by the report reads as one the user made (mkdtemp's private 0700 is not kept)
    mask = os.umask(0)
    os.umask(mask)
    assert (out.stat().st_mode & 0o777) == 0o777 & ~mask


def test_a_report_replaces_its_older_self_and_nothing_of_it_is_left(tmp_path):
    out = tmp_path / "report"
    write_report(out)
    write_report(out, {"index.html": "new"})
    assert tree(out) == {"index.html": "new", "manifest.json": (out / "manifest.json").read_text()}
    assert siblings(out) == []


def test_a_folder_the_report_left_empty_does_not_block_the_next_report(tmp_path):
    """A report with nothing in a folder it made (no section to show: an empty ``sections/``) replaces it next time;
    the empty folder was once kept, listed by no manifest, and the next report into that --out was refused."""
    out = tmp_path / "report"
    with ReportFolder(out, {}) as folder:
        (folder.work / "index.html").write_text("<html>")
        (folder.work / "sections" / "empty").mkdir(parents=True)
        folder.commit({"runs": "log", "notebooks": []})
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "manifest.json"]
    write_report(out)
    assert tree(out) == {**FILES, "manifest.json": (out / "manifest.json").read_text()}


def test_a_manifest_with_notebooks_and_runs_keys_is_not_a_report(tmp_path):
    """Taken for an old report before: replaced, and the user's files in it deleted."""
    out = tmp_path / "thesis"
    out.mkdir()
    (out / "manifest.json").write_text(json.dumps({"notebooks": [], "runs": "x"}))
    (out / "thesis.tex").write_text("years of work")
    assert not is_report(out)
    with pytest.raises(ReportError, match="holds files that are not an ambiglib report"):
        write_report(out)
    assert (out / "thesis.tex").read_text() == "years of work"


@pytest.mark.parametrize("added, named", [
    ("notes.txt", "notes.txt"),
    ("tables/quickstart/my_edit.csv", "tables/quickstart/my_edit.csv"),
    ("mine/", "mine/"),
    ("link", "link (symbolic link)"),
])
def test_what_the_previous_report_did_not_write_is_never_deleted(tmp_path, added, named):
    out = tmp_path / "report"
    write_report(out)
    path = out / added.rstrip("/")
    if added == "link":
        (tmp_path / "elsewhere").mkdir()
        path.symlink_to(tmp_path / "elsewhere")
    elif added.endswith("/"):
        path.mkdir()
    else:
        path.write_text("mine")
    before = tree(out)
    with pytest.raises(ReportError, match=re.escape(f"holds what the previous report did not write ({named}); a report"
                                                    " deletes only its own files")):
        write_report(out, {"index.html": "new"})
    assert tree(out) == before and path.exists()
    assert siblings(out) == (["elsewhere"] if added == "link" else [])


def test_a_forged_file_list_cannot_reach_outside_the_folder(tmp_path):
    """A manifest is a file anyone can write: what it lists is deleted only as a regular file found inside."""
    out = tmp_path / "report"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "x.csv").write_text("keep")
    (out / "index.html").write_text("old")
    (out / "manifest.json").write_text(json.dumps({"format": REPORT_FORMAT, "files": [
        "index.html", "../victim.txt", str(victim), "tables/x.csv", "../dir/x.csv"]}))
    write_report(out, {"index.html": "new"})
    assert victim.read_text() == "keep" and (tmp_path / "dir" / "x.csv").read_text() == "keep"
    assert (out / "index.html").read_text() == "new"


def test_a_link_where_the_report_wrote_a_folder_is_refused(tmp_path):
    out = tmp_path / "report"
    write_report(out)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "summary.csv").write_text("precious")
    for p in sorted((out / "tables").rglob("*"), reverse=True):
        p.unlink() if p.is_file() else p.rmdir()
    (out / "tables").rmdir()
    (out / "tables").symlink_to(tmp_path / "data")  # tables/quickstart/... would now lead out of the folder
    with pytest.raises(ReportError, match=r"tables \(symbolic link\)"):
        write_report(out)
    assert (tmp_path / "data" / "summary.csv").read_text() == "precious"


@pytest.mark.parametrize("flag", ["--runs", "--params", "--notebooks-dir"])
def test_an_input_inside_out_is_refused(tmp_path, flag):
    """A --runs log kept in the previous report's folder was read, then deleted with the old report."""
    out = tmp_path / "report"
    write_report(out)
    inside = out / "tables" / "quickstart" / "summary.csv"
    with pytest.raises(ReportError, match=rf"{flag} {inside} lies inside --out {out}, which the report replaces"):
        write_report(out, **{flag: inside})
    assert inside.read_text() == FILES["tables/quickstart/summary.csv"]


def test_run_report_refuses_a_log_or_a_parameter_path_inside_out(tmp_path):
    from ambiglib.report import run_report

    out = tmp_path / "report"
    write_report(out)
    log = out / "tables" / "quickstart" / "summary.csv"
    with pytest.raises(ReportError, match=r"--runs .* lies inside --out"):
        run_report(log, out, notebooks=["quickstart"])
    params = tmp_path / "p.yaml"
    params.write_text(f"notebooks:\n  ambigds_construction_audits:\n    selector_audit: {log}\n")
    with pytest.raises(ReportError, match=r"parameter notebooks: ambigds_construction_audits: selector_audit .*"
                                          r" lies inside --out"):
        run_report(EXAMPLE, out, params_file=params, notebooks=["ambigds_construction_audits"])
    assert log.is_file() and siblings(out) == ["p.yaml"]


# ----------------------------------------------------------------------------- killed at any point

_KILLED = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    sys.path.insert(0, {tests!r})
    from ambiglib.report import _folder as report_folder
    from test_report_folder import write_report
    where = sys.argv[2]
    if where == "between-renames":  # no renameat2: two renames, killed between them
        report_folder._renameat2 = lambda *a: False
        real, calls = os.rename, []
        def rename(a, b):
            calls.append(a)
            if len(calls) == 2:
                os.kill(os.getpid(), signal.SIGKILL)
            real(a, b)
        report_folder.os.rename = rename
    elif where == "after-exchange":  # the old report swapped out, not yet removed
        report_folder._remove_listed = lambda folder: os.kill(os.getpid(), signal.SIGKILL)
    elif where == "while-building":
        real_commit = report_folder.ReportFolder.commit
        report_folder.ReportFolder.commit = lambda self, m: os.kill(os.getpid(), signal.SIGKILL)
    write_report(Path(sys.argv[1]), {{"index.html": "new"}})
""")


@pytest.mark.parametrize("where, after_kill", [
    ("between-renames", "no --out: the old report hidden aside"),
    ("after-exchange", "the new report in place, the old one beside it"),
    ("while-building", "the old report in place, the work folder beside it"),
])
def test_a_kill_during_the_swap_loses_nothing_and_the_next_run_clears_it(tmp_path, where, after_kill):
    out = tmp_path / "reports" / "report"
    write_report(out, {"index.html": "old"})
    script = tmp_path / "killed.py"
    script.write_text(_KILLED.format(tests=str(Path(__file__).parent)))
    done = subprocess.run([sys.executable, str(script), str(out), where], capture_output=True, text=True, timeout=60)
    assert done.returncode == -signal.SIGKILL, done.stderr
    left = siblings(out)
    if where == "between-renames":
        assert not out.exists() and any(n.startswith(".report.old-") for n in left)
    else:
        assert (out / "index.html").read_text() == ("new" if where == "after-exchange" else "old")
        assert any(n.startswith(".report.building-") for n in left)
    # the next run first puts back or clears what the killed one left, then replaces the report as usual
    with ReportFolder(out) as folder:
        assert siblings(out) == sorted([".report.ambiglib-lock", folder.work.name])  # held while the run builds
        if where == "between-renames":  # the old report came back
            assert (out / "index.html").read_text() == "old"
    write_report(out, {"index.html": "latest"})
    assert (out / "index.html").read_text() == "latest" and siblings(out) == []


def test_a_file_put_into_out_while_the_report_runs_is_kept_and_so_is_the_new_report(tmp_path):
    out = tmp_path / "report"
    write_report(out)
    with pytest.raises(ReportError, match=r"holds what the previous report did not write \(late\.txt\).*; this"
                                          r" run's report is in .*\.report\.building-"), ReportFolder(out) as folder:
        (folder.work / "index.html").write_text("new")
        (out / "late.txt").write_text("mine")  # while the notebooks ran
        folder.commit({"runs": "log", "notebooks": []})
    assert (out / "late.txt").read_text() == "mine" and (out / "index.html").read_text() == "<html>"
    kept = [tmp_path / n for n in siblings(out) if n.startswith(".report.building-")]
    assert len(kept) == 1 and (kept[0] / "index.html").read_text() == "new" and is_report(kept[0])


def test_removing_an_old_report_deletes_its_listed_files_only(tmp_path):
    from ambiglib.report._folder import _remove_listed

    old = tmp_path / "old"
    write_report(old)
    (old / "tables" / "quickstart" / "late.csv").write_text("mine")  # appeared after the last check
    assert _remove_listed(old) == ["tables/", "tables/quickstart/", "tables/quickstart/late.csv"]
    assert tree(old) == {"tables/quickstart/late.csv": "mine"}
