"""Mutate metric definitions one at a time and report which mutations the test suite catches.

Each mutation replaces one exact snippet of ``ambiglib/`` with a plausible wrong definition (the
kind of slip a reader of the papers or the harnesses could make: distinct blockers for precision,
the first judge call for the majority, a two-sided test for a one-sided one). For each, the tree is
copied to a scratch folder, the snippet is replaced there, and pytest runs on the copy (``-x``: the
first failing test is enough). A mutation is *caught* when some test fails, *survived* when all
pass. A snippet that no longer occurs exactly once is an error: the list must not rot.

Not part of ``make test`` (it runs the suite once per mutation)::

    .venv/bin/python scripts/mutation_check.py                     # every mutation, tests/ (-x)
    .venv/bin/python scripts/mutation_check.py --only precision_distinct,first_judge_call
    .venv/bin/python scripts/mutation_check.py --tests tests/test_paper.py --jobs 2
    .venv/bin/python scripts/mutation_check.py --list

Every test file that runs here is part of ``make test``, so a mutation caught here is caught by it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Mutation:
    name: str
    what: str
    path: str
    old: str
    new: str


M = Mutation
MUTATIONS = [
    # ---- the list (issue 12 §2): each survived tests/test_paper.py on the first reconstruction
    M("precision_distinct", "Ask-F1 precision from distinct blockers addressed, not relevant questions",
      "ambiglib/metrics/_asking.py", 'return "n_relevant" if precision == "relevant" else "n_discovered"',
      'return "n_discovered"'),
    M("ask_rate_counts_questions", "Ambig-DS ask rates count questions instead of asking runs",
      "ambiglib/metrics/_asking.py", 'runs["asked"] = (runs["n_questions"] > 0).astype(int)',
      'runs["asked"] = runs["n_questions"].astype(int)'),
    M("trial_ask_rate_counts_questions", "LHAW trial ask rate (%Ask) counts questions instead of asking trials",
      "ambiglib/metrics/_information.py", 'runs.assign(_asking=(runs["n_questions"] > 0).astype(np.int64))',
      'runs.assign(_asking=runs["n_questions"].astype(np.int64))'),
    M("first_k_first_trial", "HIL-Bench pass@3 (first k valid passes) taken from the first pass only",
      "ambiglib/metrics/_asking.py", "first = known.groupby(unit, sort=False, dropna=False).head(k)",
      "first = known.groupby(unit, sort=False, dropna=False).head(1)"),
    M("hilbench_unbiased", "HIL-Bench pass@3 by the unbiased estimator instead of its harness's first k valid passes "
      "(with exactly three passes per task the two agree: issue 32)",
      "ambiglib/tables/_shapes.py", '"hil-bench": Conventions("hil-bench", pass_estimator="first_k"),',
      '"hil-bench": Conventions("hil-bench"),'),
    M("unbiased_first_trial", "LHAW pass@3 (unbiased) counting only the first trial's success",
      "ambiglib/metrics/_asking.py", 'out = pd.DataFrame({"n": g["passed"].count(), "c": g["passed"].sum()})',
      'out = pd.DataFrame({"n": g["passed"].count(), "c": g["passed"].first().astype(float).fillna(0)})'),
    M("first_judge_call", "a run's label is its first judge call, not the majority of its calls",
      "ambiglib/metrics/_labels.py", 'labels = rs.labels[rs.labels["facet"].isin(list(facets))]',
      'labels = rs.labels[rs.labels["facet"].isin(list(facets)) & (rs.labels["call"] == 1)]'),
    M("first_judge_call_diagnostics", "over/under-asking diagnostics take the first judge call",
      "ambiglib/tables/_asking.py", 'votes = majority_vote(cell.labels[cell.labels["facet"] == kind]',
      'votes = majority_vote(cell.labels[(cell.labels["facet"] == kind) & (cell.labels["call"] == 1)]'),
    M("conditional_median", "conditional scores as medians instead of means", "ambiglib/metrics/_labels.py",
      'stats_ = pd.DataFrame({"n": g.size(), "mean_score": g["score"].mean()}).reset_index()',
      'stats_ = pd.DataFrame({"n": g.size(), "mean_score": g["score"].median()}).reset_index()'),
    M("ckpt_mean_of_variant_means", "checkpoint progress as the mean of per-variant means, not over trials",
      "ambiglib/metrics/_information.py", '    variants = canonical(variants, keys, ["cond"])\n',
      '    variants = canonical(variants, keys, ["cond"])\n'
      '    variants["score_sum"] = variants["score_sum"] / variants["n_scored"].clip(lower=1)\n'
      '    variants["n_scored"] = (variants["n_scored"] > 0).astype(int)\n'),
    M("wilcoxon_two_sided", "Ambig-DS Wilcoxon tests two-sided instead of one-sided (Full > Ambig.)",
      "ambiglib/metrics/_information.py", "p_full_gt_ambig=paired_wilcoxon(full, ambig).p_value",
      'p_full_gt_ambig=paired_wilcoxon(full, ambig, alternative="two-sided").p_value'),
    M("wilcoxon_wrong_side", "Ambig-DS Wilcoxon Ask > Ambig. tested the other way round",
      "ambiglib/metrics/_information.py", "p_ask_gt_ambig=paired_wilcoxon(ask, ambig).p_value",
      "p_ask_gt_ambig=paired_wilcoxon(ambig, ask).p_value"),
    M("bootstrap_90", "paired bootstrap CI at 90% instead of 95%", "ambiglib/stats/_bootstrap.py",
      "def paired_bootstrap_ci(x, y, *, n_boot: int = 10_000, seed: int = 0, confidence: float = 0.95):",
      "def paired_bootstrap_ci(x, y, *, n_boot: int = 10_000, seed: int = 0, confidence: float = 0.90):"),
    # ---- other definitions a reader could get wrong
    M("recall_asking_runs", "Ask-F1 recall over asking runs only (the harness headline) by default",
      "ambiglib/metrics/_asking.py", 'in_recall = np.ones(len(runs), bool) if recall == "all_runs" else',
      'in_recall = runs["n_questions"].to_numpy() > 0 if recall == "all_runs" else'),
    M("f1_arithmetic", "F1 as the arithmetic mean of precision and recall", "ambiglib/metrics/_common.py",
      "return np.where(p + r > 0, 2 * p * r / np.where(p + r > 0, p + r, 1),",
      "return np.where(p + r > 0, (p + r) / 2,"),
    M("calib_arithmetic", "CalibScore as the arithmetic mean", "ambiglib/metrics/_pooling.py",
      "    return _f1(ask_on_ambiguous, 1 - np.asarray(ask_on_full, dtype=float))",
      "    return (np.asarray(ask_on_ambiguous, dtype=float) + 1 - np.asarray(ask_on_full, dtype=float)) / 2"),
    M("pass_at_1", "pass@k estimated as the success rate (pass@1)", "ambiglib/metrics/_pooling.py",
      "values = np.array([np.nan if ni < k else 1.0 if ni - ci_ < k else",
      "values = np.array([np.nan if ni < k else ci_ / ni if ni else"),
    M("variant_ask_rate_of_trials", "LHAW Table 3's Ask % as the share of trials, not of variants",
      "ambiglib/metrics/_information.py", '"variant_ask_rate": _ratio(s["v_asked"], s["v"]),',
      '"variant_ask_rate": _ratio(s["t_asking"], s["t_n_scored"]),'),
    M("avg_per_traj_all_trials", "Avg/Traj over every with-tool trial, not the asking ones",
      "ambiglib/metrics/_information.py", '"avg_per_traj": _ratio(s["t_questions"], s["t_asking"]),',
      '"avg_per_traj": _ratio(s["t_questions"], s["t_n_scored"]),'),
    M("gain_per_asking_trial", "Gain/Q divided by asking trials instead of questions", "ambiglib/metrics/_information.py",
      '"pass_gain_pp_per_question": _ratio(pass_gain, s["t_questions"]),',
      '"pass_gain_pp_per_question": _ratio(pass_gain, s["t_asking"]),'),
    M("category_shares_ok_only", "framing-category shares over ok runs only (invalid and timeout left out)",
      "ambiglib/metrics/_labels.py", '    runs = scope[~scope["error"]].copy()\n    # a failed run without a category',
      '    runs = scope[scope["status"] == "ok"].copy()\n    # a failed run without a category'),
    M("label_shares_ok_only", "recognition-audit shares over ok runs only, not every substantive run (invalid too)",
      "ambiglib/metrics/_labels.py", 'runs = work[~work["status"].isin(UNSUBSTANTIVE) & _isin(work["run_id"], votes["run_id"])]',
      'runs = work[(work["status"] == "ok") & _isin(work["run_id"], votes["run_id"])]'),
    M("label_shares_with_timeouts", "recognition-audit shares count judged timeouts too",
      "ambiglib/metrics/_labels.py", 'UNSUBSTANTIVE = ("timeout", "error")', 'UNSUBSTANTIVE = ("error",)'),
    M("flags_over_all_trials", "LHAW failure-flag shares over every with-tool trial, not the asking ones",
      "ambiglib/metrics/_labels.py", 'trials = work[work["ask_tool"] & (work["n_questions"] > 0) & ~work["error"] & judged]',
      'trials = work[work["ask_tool"] & ~work["error"] & judged]'),
    M("flags_unjudged_trials", "LHAW failure-flag shares count asking trials the judge never saw as unflagged",
      "ambiglib/metrics/_labels.py", 'trials = work[work["ask_tool"] & (work["n_questions"] > 0) & ~work["error"] & judged]',
      'trials = work[work["ask_tool"] & (work["n_questions"] > 0) & ~work["error"]]'),
    M("override_pooled_judges", "the human override rate against the majority of every judge's calls pooled",
      "ambiglib/tables/_labels.py", '    for judge, group in votes.dropna(subset=["label"]).groupby("judge"):',
      '    for judge, group in majority_vote(labels, by=("run_id",)).assign(judge="all").dropna(subset=["label"])'
      '.groupby("judge"):'),
    M("shift_reversed", "failure-mode shifts as baseline minus ask_human", "ambiglib/tables/_labels.py",
      "    diff = 100 * (wide.xs(b, level=side) - wide.xs(a, level=side)).dropna(how=\"all\")",
      "    diff = 100 * (wide.xs(a, level=side) - wide.xs(b, level=side)).dropna(how=\"all\")"),
    M("questions_per_asking_run", "HIL-Bench Table 7 as questions per asking run", "ambiglib/tables/_asking.py",
      '"questions_per_run": g["q"].mean(), "relevant_per_run": g["rel"].apply(lambda s: s.mean(skipna=False)),',
      '"questions_per_run": g["q"].apply(lambda s: s[s > 0].mean() if (s > 0).any() else float("nan")),'
      ' "relevant_per_run": g["rel"].apply(lambda s: s.mean(skipna=False)),'),
    M("lhaw_paired", "LHAW tables compare only variants with results in both conditions (paired=True)",
      "ambiglib/tables/_information.py", "    return conv.voi_paired if paired is None else bool(paired)",
      "    return True if paired is None else bool(paired)"),
    M("performance_error_as_zero", "Ambig-DS S: error runs scored 0 instead of excluded", "ambiglib/metrics/_information.py",
      '        runs = runs[~runs["error"]].dropna(subset=["score"])\n        per_task[name]',
      '        runs = runs.assign(score=runs["score"].fillna(0.0))\n        per_task[name]'),
    M("holm_is_bonferroni", "Holm adjustment replaced by Bonferroni", "ambiglib/stats/_tests.py",
      "result[order] = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * q[order]))",
      "result[order] = np.minimum(1.0, m * q[order])"),
    M("wilson_is_wald", "Wilson interval replaced by the normal (Wald) interval", "ambiglib/stats/_intervals.py",
      "        half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / denom",
      "        half = z * np.sqrt(p * (1 - p) / n); centre = p"),
    M("fleiss_is_randolph", "Fleiss' kappa with another chance correction (Randolph's free-marginal)",
      "ambiglib/agreement.py", 'kappa = float(sm_fleiss_kappa(m, method="fleiss"))',
      'kappa = float(sm_fleiss_kappa(m, method="randolph"))'),
    M("wilson_ci_is_wald", "the Wilson interval asked of statsmodels as the normal (Wald) one", "ambiglib/stats/_intervals.py",
      'low, high = proportion_confint(k_arr, n_arr, alpha=1 - confidence, method="wilson")',
      'low, high = proportion_confint(k_arr, n_arr, alpha=1 - confidence, method="normal")'),
    M("class_base_over_variants", "LHAW per-class Base: pass@k over variants, not the class's original tasks",
      "ambiglib/tables/_information.py", '        keep = sorted(set(group["variant_id"]) | set(group["task_id"]))  # full runs: variant_id == task_id',
      '        keep = sorted(set(group["variant_id"]))'),
    M("generality_median", "LHAW Table 13's model average taken as a median",
      "ambiglib/tables/_information.py", '"pass_at_k": g["pass_at_k"].mean(),', '"pass_at_k": g["pass_at_k"].median(),'),
    # ---- issue 40: two mutants the audit found surviving
    M("gain_per_question_paired_questions", "LHAW Gain/Q divided by the questions of variants run in both conditions only",
      "ambiglib/metrics/_information.py", '    pairs["v"] = 1\n',
      '    pairs["t_questions"] = np.where(pairs["a_n_scored"] > 0, pairs["t_questions"], 0)\n    pairs["v"] = 1\n'),
    M("ask_f1_unattributed_irrelevant", "Ask-F1 counts questions not attributed to a blocker as irrelevant",
      "ambiglib/metrics/_asking.py", "    unattributed = _unattributed(rs, runs)\n    if len(unattributed):",
      "    unattributed = _unattributed(rs, runs)\n    if False:"),
    # ---- issue 55: the verdicts a methodologist would sign
    M("ask_rate_wilson_over_runs", "an ask rate's interval as Wilson over runs, the trials of a task as independent",
      "ambiglib/stats/_intervals.py", "    low, high = _wilson(np.where(big_n > 0, p * n_eff, 0.0), n_eff, z)",
      "    low, high = _wilson(big_k, big_n, z)"),
    M("t_interval_is_z", "the t-interval of per-task differences with the normal quantile", "ambiglib/stats/_intervals.py",
      "    half = sps.t.ppf(0.5 + confidence / 2, n - 1) * d.std(axis=-1, ddof=1) / np.sqrt(n)",
      "    half = sps.norm.ppf(0.5 + confidence / 2) * d.std(axis=-1, ddof=1) / np.sqrt(n)"),
    M("n_differing_any_column", "tasks whose sides differ counted on any column, not the metric's inputs",
      "ambiglib/stats/_significance.py",
      "    differing = int(np.count_nonzero(~(np.abs(alone - observed) <= gamma))) if np.isfinite(observed) else \\",
      "    differing = int((a2 != b2).any(axis=1).sum()) if np.isfinite(observed) else \\"),
    M("flips_ignore_the_family", "random sign flips drawn without regard to the rows Holm adjusts over",
      "ambiglib/comparisons/_tests.py", "    family = int(np.ceil(20 * m / alpha))", "    family = 0"),
    M("rerun_spread_of_one_trial", "the rerun spread of K trials a task taken as that of one trial",
      "ambiglib/metrics/_pooling.py", '    _, over_k = _over_units(groups, per_task, by, var / n)',
      '    _, over_k = _over_units(groups, per_task, by, var)'),
    M("gain_per_all_questions", "the opening's gain per question divided by all questions (LHAW's Gain/Q)",
      "ambiglib/metrics/_information.py",
      "    return _ratio(np.asarray(gain, dtype=float) * np.asarray(runs, dtype=float), questions)",
      "    return _ratio(np.asarray(gain, dtype=float), questions)"),
    M("precision_zero_without_questions", "precision 0, not undefined, for an agent that asked nothing",
      "ambiglib/metrics/_pooling.py", '    p = _ratio(t[precision_count], t["n_questions"])\n',
      '    p = _ratio(t[precision_count], t["n_questions"], 0.0)\n'),
]


def _copy_tree(dest: Path, source: Path = ROOT) -> None:
    """The project's files (tracked and untracked, not ignored) as they are now, copied to ``dest``."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                           capture_output=True).stdout.decode().split("\0")
    for rel in filter(None, files):
        src = source / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)


def _check(mutations: list[Mutation]) -> None:
    for m in mutations:
        text = (ROOT / m.path).read_text(encoding="utf-8")
        n = text.count(m.old)
        if n != 1:
            raise SystemExit(f"mutation {m.name}: its snippet occurs {n} times in {m.path} (expected once);"
                             f" update scripts/mutation_check.py")


def _run(m: Mutation, tests: list[str], timeout: float, snapshot: Path) -> tuple[Mutation, str, str, float]:
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"mutant-{m.name}-") as tmp:
        work = Path(tmp)
        _copy_tree(work, snapshot)
        target = work / m.path
        target.write_text(target.read_text(encoding="utf-8").replace(m.old, m.new), encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(work), "PYTHONDONTWRITEBYTECODE": "1"}
        cmd = [sys.executable, "-m", "pytest", *tests, "-x", "-q", "-p", "no:cacheprovider", "--no-header",
               "-o", "addopts=", "--tb=line"]
        try:
            proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return m, "timeout", f"no verdict in {timeout:.0f} s", time.monotonic() - t0
        check = subprocess.run([sys.executable, "-c", "import ambiglib, sys; sys.stdout.write(ambiglib.__file__)"],
                               cwd=work, env=env, capture_output=True, text=True)
        if not check.stdout.startswith(str(work)):
            raise SystemExit(f"the mutant imported ambiglib from {check.stdout!r}, not the copy in {work}")
    out = proc.stdout.strip().splitlines()
    if proc.returncode == 0:
        return m, "survived", out[-1] if out else "", time.monotonic() - t0
    if proc.returncode == 1:
        failed = [line for line in out if line.startswith("FAILED") or line.startswith("ERROR")]
        return m, "caught", (failed[0] if failed else out[-1]), time.monotonic() - t0
    return m, "broken", (out[-1] if out else proc.stderr.strip().splitlines()[-1]), time.monotonic() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tests", default="tests", help="comma-separated pytest paths (default: tests)")
    ap.add_argument("--only", default=None, help="comma-separated mutation names")
    ap.add_argument("--jobs", type=int, default=1, help="mutants tested at once (default 1)")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per mutant (default 1800)")
    ap.add_argument("--list", action="store_true", help="list the mutations and exit")
    args = ap.parse_args(argv)
    chosen = MUTATIONS
    if args.only:
        names = args.only.split(",")
        unknown = sorted(set(names) - {m.name for m in MUTATIONS})
        if unknown:
            raise SystemExit(f"unknown mutation(s): {', '.join(unknown)}")
        chosen = [m for m in MUTATIONS if m.name in names]
    _check(chosen)  # against the tree now; the snapshot below is taken from it
    if args.list:
        for m in chosen:
            print(f"{m.name:34} {m.path:22} {m.what}")
        return 0
    tests = args.tests.split(",")
    print(f"{len(chosen)} mutations, pytest {' '.join(tests)} -x, {args.jobs} at a time", flush=True)
    with tempfile.TemporaryDirectory(prefix="mutation-snapshot-") as snap:
        snapshot = Path(snap)
        _copy_tree(snapshot)  # one snapshot: editing the tree while this runs changes nothing here
        # the unmutated tree must pass, or every mutant would count as caught
        _, verdict, detail, seconds = _run(Mutation("none", "no change", chosen[0].path, "", ""), tests, args.timeout,
                                           snapshot)
        print(f"{'baseline':9} {'(no mutation)':34} {seconds:6.0f} s  {detail[:160]}", flush=True)
        if verdict != "survived":
            raise SystemExit(f"the tests fail without any mutation ({verdict}: {detail}); fix them first")
        results = []
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for m, verdict, detail, seconds in pool.map(lambda m: _run(m, tests, args.timeout, snapshot), chosen):
                results.append((m, verdict))
                print(f"{verdict:9} {m.name:34} {seconds:6.0f} s  {detail[:160]}", flush=True)
    caught = sum(v == "caught" for _, v in results)
    print(f"\n{caught} of {len(results)} mutations caught")
    for m, v in results:
        if v != "caught":
            print(f"  {v}: {m.name} — {m.what}")
    return 0 if caught == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
