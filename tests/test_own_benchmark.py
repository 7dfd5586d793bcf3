"""A benchmark of one's own, end to end: tables follow the data's shape, never the benchmark's name.

``clarifybench`` is a HIL-Bench-shaped benchmark under a name no paper uses: tasks with
registered blockers, three agents, three trials, fully specified and ambiguous variants,
with and without the ask tool, and one agent also run under a deliberate no-ask ablation
policy. The report on it must succeed, show its agents in the Ask-F1 and gain tables with
exactly the numbers ``metrics`` gives on the same runs, and show nothing that is not in the log.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.stats as sps
from conftest import write_jsonl

import ambiglib
from ambiglib import comparisons, metrics, tables
from ambiglib.metrics import MetricError
from ambiglib.runset import RunSet

ROOT = Path(__file__).resolve().parents[1]
NAME = "clarifybench"
AGENTS = {"agent-x": 0.75, "agent-y": 0.5, "agent-z": 0.3}  # how often each asks about a blocker


def clarifybench(n_tasks: int = 12, seed: int = 3) -> list[dict]:
    """Task and run records of the custom benchmark (deterministic)."""
    rng = np.random.default_rng(seed)
    records: list[dict] = []
    for t in range(1, n_tasks + 1):
        task = f"cb-{t:02d}"
        blockers = [f"{task}-b{i}" for i in range(1, 1 + int(rng.integers(1, 4)))]
        records.append({"record": "task", "benchmark": NAME, "suite": "main", "task_id": task,
                        "blockers": [{"id": b, "type": "missing-parameter"} for b in blockers]})
        for model, eagerness in AGENTS.items():
            skill = {"agent-x": 0.8, "agent-y": 0.6, "agent-z": 0.5}[model]
            cells = [("full", False, "default"), ("ambiguous", False, "default"), ("ambiguous", True, "default"),
                     ("full", True, "default")]
            if model == "agent-x":
                cells.append(("ambiguous", True, "no-ask-ablation"))
            for spec, tool, policy in cells:
                for trial in (1, 2, 3):
                    questions = []
                    if tool and policy == "default":
                        if spec == "ambiguous":
                            questions = [{"text": f"What is {b}?", "blocker_id": b, "response": "this"}
                                         for b in blockers if rng.random() < eagerness]
                        if rng.random() < 0.3:
                            questions.append({"text": "Anything else I should know?", "response": "no"})
                    asked = sum(1 for q in questions if q.get("blocker_id"))
                    p = skill if spec == "full" else skill * (0.4 + 0.6 * asked / len(blockers))
                    score = float(np.clip(p + rng.normal(0, 0.15), 0, 1))
                    records.append({"benchmark": NAME, "suite": "main", "task_id": task, "model": model,
                                    "spec": spec, "ask_tool": tool, "policy": policy, "trial": trial,
                                    "score": round(score, 4), "passed": bool(score > 0.6), "questions": questions})
    records.append({"benchmark": NAME, "suite": "main", "task_id": "cb-01", "model": "agent-y", "spec": "ambiguous",
                    "ask_tool": True, "trial": 4, "status": "error", "meta": {"error_reason": "container died"}})
    return records


@pytest.fixture(scope="module")
def log(tmp_path_factory) -> Path:
    return write_jsonl(tmp_path_factory.mktemp("clarifybench") / "runs.jsonl", clarifybench())


@pytest.fixture(scope="module")
def rs(log) -> RunSet:
    return ambiglib.load(log, quiet=True)


# ----------------------------------------------------------------------------- the tables, by shape


def _by_hand(records: list[dict]) -> dict[tuple[str, str], dict[str, float]]:
    """Precision, recall, Ask-F1 (HIL-Bench eq. 1, pooled over runs) and pass@2 both ways, from the records with
    plain Python: the independent values the tables must give."""
    from math import comb

    blockers = {r["task_id"]: len(r["blockers"]) for r in records if r.get("record") == "task"}
    out: dict[tuple[str, str], dict] = {}
    for r in records:
        if r.get("record") == "task" or r.get("status") == "error" or r["spec"] != "ambiguous" or not r["ask_tool"]:
            continue
        cell = out.setdefault((r["model"], r["policy"]), {"q": 0, "rel": 0, "found": 0, "reg": 0, "trials": {}})
        named = [q["blocker_id"] for q in r["questions"] if q.get("blocker_id")]
        cell["q"] += len(r["questions"])
        cell["rel"] += len(named)
        cell["found"] += len(set(named))
        cell["reg"] += blockers[r["task_id"]]
        cell["trials"].setdefault(r["task_id"], {})[r["trial"]] = r["passed"]
    for cell in out.values():
        p = cell["rel"] / cell["q"] if cell["q"] else None  # no questions: no precision; F1 0 (docs/metrics.md)
        rec = cell["found"] / cell["reg"]
        cell.update(precision=np.nan if p is None else p, recall=rec,
                    ask_f1=2 * p * rec / (p + rec) if p is not None and p + rec else 0.0)
        per_task = [(len(t), sum(t.values()), t) for t in cell["trials"].values()]
        cell["unbiased"] = float(np.mean([1 - comb(n - c, 2) / comb(n, 2) for n, c, _ in per_task]))
        cell["first_k"] = float(np.mean([any(t[k] for k in sorted(t)[:2]) for _, _, t in per_task]))
    return out


def test_the_hil_bench_shaped_tables_apply_to_a_benchmark_of_another_name(rs):
    hand = _by_hand(clarifybench())
    gap = tables.judgment_gap(rs).set_index(["model", "policy"])
    assert set(tables.judgment_gap(rs)["benchmark"]) == {NAME}
    for key, want in hand.items():
        for col in ("precision", "recall", "ask_f1"):
            assert gap.loc[key, col] == pytest.approx(want[col], abs=1e-12, nan_ok=True), (key, col)
    # neutral conventions: the unbiased pass@k; said to follow HIL-Bench: its "any of the first k"
    # (k=2 of 3 trials: with k equal to the trials the two estimators agree)
    gap = tables.judgment_gap(rs, k=2).set_index(["model", "policy"])
    hil = tables.judgment_gap(rs, k=2, conventions={NAME: "hil-bench"}).set_index(["model", "policy"])
    for key, want in hand.items():
        assert gap.loc[key, "pass_at_k_with_tool"] == pytest.approx(want["unbiased"])
        assert hil.loc[key, "pass_at_k_with_tool"] == pytest.approx(want["first_k"])
    assert any(w["unbiased"] != w["first_k"] for w in hand.values())  # the two conventions differ on this data
    with pytest.raises(ValueError, match="not one of"):
        tables.judgment_gap(rs, conventions={NAME: "hilbench"})


def test_the_gain_table_matches_metrics_and_the_paper_only_tables_say_why_they_are_empty(rs):
    voi = tables.value_of_information(rs).set_index(["model", "policy"])
    assert sorted(voi.index) == [("agent-x", "default"), ("agent-x", "no-ask-ablation"), ("agent-y", "default"),
                                 ("agent-z", "default")]
    # by hand, from the records (neutral conventions: the variants run in both conditions, every one here; a policy
    # without no-tool runs of its own is compared with the default's): mean over trials, pass@3 of 3 trials = any
    ok = [r for r in clarifybench() if r.get("record") != "task" and r.get("status") != "error"
          and r["spec"] == "ambiguous"]
    for (model, policy), row in voi.iterrows():
        without = [r for r in ok if r["model"] == model and not r["ask_tool"] and r["policy"] == "default"]
        with_ = [r for r in ok if r["model"] == model and r["ask_tool"] and r["policy"] == policy]
        mean = lambda rs_: float(np.mean([r["score"] for r in rs_]))  # noqa: E731
        solved = lambda rs_: float(np.mean([any(r["passed"] for r in rs_ if r["task_id"] == t)  # noqa: E731
                                            for t in sorted({r["task_id"] for r in rs_})]))
        gain = 100 * (mean(with_) - mean(without))
        n_q = sum(len(r["questions"]) for r in with_)
        assert row["mean_score"] == pytest.approx(mean(without))
        assert row["score_gain_pp"] == pytest.approx(gain)
        assert row["pass_gain_pp"] == pytest.approx(100 * (solved(with_) - solved(without)))
        assert (pd.isna(row["score_gain_pp_per_question"]) if n_q == 0
                else row["score_gain_pp_per_question"] == pytest.approx(gain / n_q))
    calib = tables.ask_calibration(rs)
    assert set(calib["model"]) == set(AGENTS) and set(calib["benchmark"]) == {NAME}
    for table, note in ((tables.framing_categories(rs), "no runs with a framing category in this log"),
                        (tables.by_ambiguity_class(rs), "no runs with and without the ask tool on the same ambiguous"
                                                        " variants and task records with an ambiguity class in this log"),
                        (tables.failure_modes(rs), "no judge labels of facet 'failure.tool_use' in this log"),
                        (tables.selector_accuracy(None), "no selector audit given")):
        assert len(table) == 0 and table.attrs["note"].startswith(note)


def test_model_comparison_never_pools_two_policies_of_one_model(rs):
    out = comparisons.model_comparison(rs, n_boot=500)
    assert set(out["policy"]) == {"default"}  # the ablation has no other model to compare with
    pairs = set(zip(out["model_a"], out["model_b"]))
    assert pairs == {("agent-x", "agent-y"), ("agent-x", "agent-z"), ("agent-y", "agent-z")}
    # the default-policy comparison is the one on the default-policy runs alone: the ablation is not in it
    alone = comparisons.model_comparison(rs.filter(policy="default"), n_boot=500)
    pd.testing.assert_frame_equal(out, alone)
    # a metric asked to pool the two policies refuses, naming the fix
    with pytest.raises(MetricError, match=r"mixes policy values \['default', 'no-ask-ablation'\]; add 'policy' to by="):
        metrics.ask_f1(rs, by=("suite", "model"))


def test_paired_ask_f1_against_an_explicit_task_bootstrap_and_scipy(rs):
    out = comparisons.paired_comparison(rs, metric="ask_f1", n_boot=2000, seed=5, interval="bootstrap")
    row = out[(out["model_a"] == "agent-x") & (out["model_b"] == "agent-z")].iloc[0]
    default = comparisons.paired_comparison(rs, metric="ask_f1", n_boot=2000, seed=5)
    linear = default[(default["model_a"] == "agent-x") & (default["model_b"] == "agent-z")].iloc[0]
    # by hand: per task, the with-tool default runs' questions, relevant questions, blockers, blockers found
    q = rs.questions.merge(rs.runs[["run_id", "task_id", "model", "spec", "ask_tool", "policy", "status"]], on="run_id")
    runs = rs.runs[(rs.runs["spec"] == "ambiguous") & rs.runs["ask_tool"] & (rs.runs["policy"] == "default")
                   & (rs.runs["status"] != "error")]
    n_blockers = rs.tasks.set_index("task_id")["n_blockers"]

    def sums(model):
        r = runs[runs["model"] == model]
        qq = q[q["run_id"].isin(r["run_id"])]
        per = pd.DataFrame({"questions": qq.groupby("task_id").size(),
                            "relevant": qq[qq["blocker_id"].notna()].groupby("task_id").size(),
                            "found": qq[qq["blocker_id"].notna()].groupby(["run_id", "task_id"])["blocker_id"]
                            .nunique().groupby("task_id").sum(),
                            "blockers": r.groupby("task_id").size() * n_blockers})
        return per.reindex(sorted(r["task_id"].unique())).fillna(0)

    def f1(s):
        p = s["relevant"] / s["questions"] if s["questions"] else 0.0
        r = s["found"] / s["blockers"] if s["blockers"] else 0.0
        return 2 * p * r / (p + r) if p + r else 0.0

    a, b = sums("agent-x"), sums("agent-z")
    tasks = sorted(set(a.index) & set(b.index))
    a, b = a.loc[tasks], b.loc[tasks]
    assert row["value_a"] == pytest.approx(f1(a.sum())) and row["value_b"] == pytest.approx(f1(b.sum()))
    rng = np.random.default_rng(5)
    diffs = []
    for draw in rng.integers(0, len(tasks), size=(2000, len(tasks))):
        diffs.append(f1(a.iloc[draw].sum()) - f1(b.iloc[draw].sum()))
    low, high = np.quantile(diffs, [0.025, 0.975])
    assert (row["difference_ci_low"], row["difference_ci_high"]) == (pytest.approx(low), pytest.approx(high))
    # the default interval, by the delta method with F1's gradient worked out by hand: F1 = 2PR/(P + R) rises with
    # P by 2R²/(P + R)² and with R by 2P²/(P + R)²; P = relevant/questions, R = found/blockers; each task's
    # linearized value is the gradient (per task: n times the gradient in the totals) times its sums − their mean
    def gradient(s):
        p, r = s["relevant"] / s["questions"], s["found"] / s["blockers"]
        dp, dr = 2 * r * r / (p + r) ** 2, 2 * p * p / (p + r) ** 2
        return {"relevant": dp / s["questions"], "questions": -dp * s["relevant"] / s["questions"] ** 2,
                "found": dr / s["blockers"], "blockers": -dr * s["found"] / s["blockers"] ** 2}

    n = len(tasks)
    ga, gb = gradient(a.sum()), gradient(b.sum())
    z = sum(n * ga[c] * (a[c] - a[c].mean()) - n * gb[c] * (b[c] - b[c].mean()) for c in ga)
    se = float(np.std(z, ddof=1) / np.sqrt(n))
    half = sps.t.ppf(0.975, n - 1) * se
    diff = f1(a.sum()) - f1(b.sum())
    assert (linear["difference_ci_low"], linear["difference_ci_high"]) == (pytest.approx(max(-1, diff - half)),
                                                                           pytest.approx(min(1, diff + half)))
    assert linear["ci_method"].startswith("t-interval over tasks, linearized")
    x = np.array([f1(a.loc[t]) for t in tasks])
    y = np.array([f1(b.loc[t]) for t in tasks])
    # the test: every way of swapping each task's two sides, enumerated by hand (2^n flips), the pooled Ask-F1
    # difference of each; two-sided p as scipy.stats.permutation_test defines it for an exact null
    import itertools

    observed = f1(a.sum()) - f1(b.sum())
    null = []
    for flips in itertools.product((False, True), repeat=len(tasks)):
        swap = np.array(flips)[:, None]
        flipped_a = pd.DataFrame(np.where(swap, b.to_numpy(), a.to_numpy()), columns=a.columns)
        flipped_b = pd.DataFrame(np.where(swap, a.to_numpy(), b.to_numpy()), columns=a.columns)
        null.append(f1(flipped_a.sum()) - f1(flipped_b.sum()))
    null = np.array(null)
    eps = 1e-14 * max(abs(observed), 1)
    p = min(1.0, 2 * min((null <= observed + eps).mean(), (null >= observed - eps).mean()))
    assert row["test"] == f"paired permutation (exact, {2 ** len(tasks):,} sign flips)"
    assert (row["statistic"], row["p_value"]) == (pytest.approx(observed), pytest.approx(p))
    # the tasks whose swap moves the pooled Ask-F1: here every task whose counts differ does
    assert row["n_differing"] == int((a.to_numpy() != b.to_numpy()).any(axis=1).sum())
    # Wilcoxon on the per-task values, as Ambig-DS reports it, when asked for
    wil = comparisons.paired_comparison(rs, metric="ask_f1", test="wilcoxon", a="agent-x", b="agent-z", n_boot=200)
    ref = sps.wilcoxon(x, y, alternative="two-sided", zero_method="wilcox")
    assert (wil["statistic"].iloc[0], wil["p_value"].iloc[0]) == (pytest.approx(ref.statistic), pytest.approx(ref.pvalue))
    d = (x - y)[x != y]
    ranks = sps.rankdata(np.abs(d))
    assert row["rbc"] == pytest.approx((ranks[d > 0].sum() - ranks[d < 0].sum()) / ranks.sum())
    # paired: the share of tasks where a's Ask-F1 is higher, ties one half (rliable's probability of improvement)
    assert row["prob_improvement"] == pytest.approx(np.where(x == y, 0.5, x > y).mean())
    assert row["alternative"] == "two-sided" and row["n_tasks"] == len(tasks)
    # Holm over the three model pairs
    from statsmodels.stats.multitest import multipletests

    np.testing.assert_allclose(out["p_holm"], multipletests(out["p_value"], method="holm")[1])


def test_paired_comparisons_of_the_other_metrics_and_with_and_without_the_tool(rs):
    for metric in ("precision", "recall", "pass_at_k", "calib_score", "gain_per_question", "mean_score"):
        out = comparisons.paired_comparison(rs, metric=metric, n_boot=200)
        assert len(out) == 3 and set(out["metric"]) == {metric}, metric
    tool = comparisons.paired_comparison(rs, metric="mean_score", between="ask_tool", n_boot=200)
    assert set(zip(tool["model"], tool["policy"])) == {("agent-x", "default"), ("agent-x", "no-ask-ablation"),
                                                       ("agent-y", "default"), ("agent-z", "default")}
    gain = metrics.value_of_information(rs, by=("suite", "model", "policy"), paired=True).set_index(["model", "policy"])
    # mean score is per task here, per trial in value_of_information: equal with 3 trials everywhere but one
    row = tool.set_index(["model", "policy"]).loc[("agent-z", "default")]
    assert 100 * row["difference"] == pytest.approx(gain.loc[("agent-z", "default"), "score_gain_pp"])
    with pytest.raises(ValueError, match="between must be one of"):
        comparisons.paired_comparison(rs, between="suite")


def test_pass_at_k_has_intervals_like_the_other_metrics(rs):
    out = metrics.pass_at_k(rs.filter(spec="ambiguous", ask_tool=True, policy="default"), k=3, ci=True, n_boot=500)
    assert {"pass_at_k_ci_low", "pass_at_k_ci_high"} <= set(out.columns)
    assert (out["pass_at_k_ci_low"] <= out["pass_at_k"]).all() and (out["pass_at_k"] <= out["pass_at_k_ci_high"]).all()


def test_validate_warns_about_what_the_metrics_will_refuse(tmp_path, capsys):
    from ambiglib.cli import main

    records = clarifybench(n_tasks=3)
    records = [r for r in records if not (r.get("record") == "task" and r["task_id"] == "cb-03")]
    run = next(r for r in records if r.get("questions") and r["task_id"] == "cb-01")
    run["questions"].append({"text": "And the deadline?", "blocker_id": "cb-01-deadline"})
    log = write_jsonl(tmp_path / "runs.jsonl", records)
    assert main(["validate", "--runs", str(log)]) == 0
    out = capsys.readouterr().out
    assert "ask-tool run(s) on ambiguous tasks have no task record (first: benchmark='clarifybench'" in out
    assert "1 question(s) name a blocker their task does not register" in out and "'cb-01-deadline'" in out
    assert ("clarifybench main agent-x (ambiguous, with the ask tool, solve): runs carry 2 ask policies"
            " (default, no-ask-ablation)") in out


# ----------------------------------------------------------------------------- the report on it


@pytest.fixture(scope="module")
def report(log, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    done = subprocess.run([sys.executable, "-m", "ambiglib", "report", "--runs", str(log), "--out", str(out)],
                          capture_output=True, text=True, cwd=tmp_path_factory.mktemp("elsewhere"))
    return out, done


def test_the_report_on_a_benchmark_of_ones_own(report, rs):
    out, done = report
    assert done.returncode == 0, done.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert all(n["error"] is None for n in manifest["notebooks"])
    gap = pd.read_csv(out / "tables" / "hilbench_judgment_gap" / "judgment_gap.csv").set_index(["model", "policy"])
    f1 = metrics.ask_f1(rs, by=("suite", "model", "policy"), ci=True, n_boot=2000).set_index(["model", "policy"])
    for col in ("ask_f1", "precision", "recall", "ask_f1_ci_low", "ask_f1_ci_high"):
        np.testing.assert_allclose(gap[col], f1.loc[gap.index, col], rtol=1e-12)
    voi = pd.read_csv(out / "tables" / "lhaw_value_of_information" / "value_of_information.csv") \
        .set_index(["model", "policy"])
    want = metrics.value_of_information(rs, by=("suite", "model", "policy"), paired=True).set_index(["model", "policy"])
    np.testing.assert_allclose(voi["score_gain_pp"], want.loc[voi.index, "score_gain_pp"], rtol=1e-12)
    # nothing in the report that is not in the log: one benchmark, its agents, no paper data
    models = set(rs.runs["model"])
    for csv in (out / "tables").rglob("*.csv"):
        frame = pd.read_csv(csv)
        if "benchmark" in frame:
            assert set(frame["benchmark"]) == {NAME}, csv
        for col in ("model", "model_a", "model_b"):
            if col in frame:
                assert set(frame[col]) <= models, csv
    # the papers' sections whose tables have nothing in this log (no framing categories, judge labels or selector
    # audit) are not run: listed in one line with what each would need, and not among what the log cannot answer
    not_run = {n["name"]: n["needs"] for n in manifest["not_run"]}
    assert set(not_run) == {"ambigds_construction_audits", "ambigds_framing", "ambigds_recognition",
                            "hilbench_failure_modes", "lhaw_ask_failures"}
    assert not_run["ambigds_framing"] == "runs with a framing category"
    assert not (out / "tables" / "ambigds_construction_audits").exists()
    assert {n["notebook"] for n in manifest["notebooks"]}.isdisjoint(not_run)
    index = (out / "index.html").read_text()
    assert "Nothing to show" not in index and "sections/ambigds_framing.html" not in index
    assert "Not run on this log" in index and "What each would need" in index
    gaps = index.split("id='unanswered'")[1].split("</section>")[0]
    assert "framing" not in gaps and "Ambig-DS" not in gaps and "selector" not in gaps


def test_the_console_shows_one_line_per_notebook_and_the_path(report):
    out, done = report
    lines = done.stdout.splitlines()
    manifest = json.loads((out / "manifest.json").read_text())
    n = len(manifest["notebooks"])
    assert n + len(manifest["not_run"]) == len(list((ROOT / "notebooks").glob("*.ipynb")))
    assert len(lines) == n + 2
    for i, line in enumerate(lines[:-2], 1):
        name = line.split()[1]
        assert line.startswith(f"[{i}/{n}] ") and (ROOT / "notebooks" / f"{name}.ipynb").is_file(), line
        assert line.endswith(" s"), line
    # the sections not run, in one line, by name
    assert lines[-2] == ("not run on this log, none of their tables having what it needs (--all-sections runs them): "
                         + ", ".join(x["name"] for x in manifest["not_run"]))
    assert lines[-1] == f"wrote {out / 'index.html'}"
    assert done.stderr == ""  # no kernel warnings, no KeyboardInterrupt


def test_all_sections_runs_a_section_the_log_has_nothing_for(log, tmp_path):
    # a notebooks folder of two: the log's summary, and a paper's section (framing) this log has no data for
    folder = tmp_path / "notebooks"
    folder.mkdir()
    for name in ("quickstart", "ambigds_framing"):
        (folder / f"{name}.ipynb").write_bytes((ROOT / "notebooks" / f"{name}.ipynb").read_bytes())
    ran = {}
    for flag in ([], ["--all-sections"]):
        out = tmp_path / f"out{len(flag)}"
        done = subprocess.run([sys.executable, "-m", "ambiglib", "report", "--runs", str(log), "--out", str(out),
                               "--notebooks-dir", str(folder), *flag], capture_output=True, text=True, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        manifest = json.loads((out / "manifest.json").read_text())
        ran[bool(flag)] = ({n["notebook"] for n in manifest["notebooks"]}, [n["name"] for n in manifest["not_run"]])
    assert ran[False] == ({"quickstart"}, ["ambigds_framing"])
    assert ran[True] == ({"quickstart", "ambigds_framing"}, [])
