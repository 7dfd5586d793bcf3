"""Each harness's own output, written from the simulated records (``python -m ambiglib.simulate --native``).

The files are what the harnesses' own code writes, field by field, with the quirks and failures of
the pinned commits (``docs/importers.md`` names each); :func:`ambiglib.simulate.write_native` calls
the writers here. Files no metric code reads — the harness's or ours — are left out and listed in
each writer's docstring.
"""

from __future__ import annotations

import csv
import json
import shutil
from collections import defaultdict
from pathlib import Path
from typing import Any

import pandas as pd

from ambiglib.importers._hilbench import CSV_COLUMNS, HICCUP, ask_prf, model_safe
from ambiglib.simulate._constants import DEFAULT_SEED, HIL_PASSES, MCP_FAILED_COMPLETION, hil_resolution
from ambiglib.simulate._records import example_records

#: where the simulated harness ran: its CSVs, batch configs and trajectories hold absolute paths
HARNESS_HOME = "/home/researcher/hil-bench"
_HIL_CSV = (*CSV_COLUMNS, "log_dir", "trajectory_dir")  # run_hil_bench.CSV_COLUMNS
_ZERO_HIL = {"precision": 0.0, "recall": 0.0, "ask_f1": 0.0, "n_questions": 0, "n_blockers_present": 0,
             "n_blockers_discovered": 0}
_TIMEOUT_OBS = ("An unexpected error occurred while running tool 'execute_sql': Command '['python',"
                " 'SWE-agent/tools/execute_sql/bin/execute_sql']' timed out after 8 seconds")


def dump(path: Path, obj: Any, indent: int = 1) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")


def ansi_c(text: str) -> str:
    """``text`` in bash ANSI-C quoting, as SWE-agent writes an ``ask_human`` argument."""
    return "$'" + text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"


# ----------------------------------------------------------------------------- HIL-Bench


def _hil_iid(task: str, model_safe_: str, mode: str, trial: int) -> str:
    """An expanded instance's id (``create_mixed_mode_instances``, passes > 1)."""
    return f"{task}__{model_safe_}__{mode}__pass_{trial}"


def _hil_steps(r: dict[str, Any], suite: str) -> list[dict[str, Any]]:
    """The instance's SWE-agent trajectory: explore steps, its ask_human calls at their steps, submit."""
    asks = {q["step"]: q for q in r.get("questions", [])}
    reason = r.get("meta", {}).get("error_reason")
    timeouts = 3 if reason == "timeout_obs>=3" else 0
    steps = []
    for i in range(r["steps"]):
        last = i == r["steps"] - 1
        if i in asks:
            q = asks[i]
            act, obs, thought = f"ask_human {ansi_c(q['text'])}", q["response"] + "\n", "Ask about the unclear point."
        elif last and reason == "env_died_obs":
            act, obs, thought = "python -m pytest -x tests", "Environment died unexpectedly. Exited (autosubmission)", \
                "Run the tests."
        elif last:
            act = "submit" if suite == "swe" else "submit_sql <<ENDOFSQL\nSELECT segment, SUM(amount) FROM records" \
                                                   " GROUP BY segment\nENDOFSQL"
            obs, thought = ("Submission received." if suite == "sql" else "diff --git a/src/app.py b/src/app.py\n"), \
                "Submit."
        elif suite == "sql":
            act, thought = "execute_sql <<ENDOFSQL\nSELECT COUNT(*) AS n FROM records\nENDOFSQL", "Look at the data."
            obs = _TIMEOUT_OBS if timeouts else "Query executed successfully:\nn\n40\n"
            timeouts -= 1 if timeouts else 0
        else:
            act, obs, thought = "str_replace_editor view /app/src/app.py", "Here's the result of running `cat -n`", \
                "Read the code."
        steps.append({"action": act, "observation": obs, "response": thought, "thought": thought,
                      "execution_time": f"{0.05 + 0.01 * i:.2f}", "state": "{}", "extra_info": "{}"})
    return steps


def _hil_log_entry(task: dict[str, Any]) -> dict[str, Any]:
    return {"questions": [], "n_blockers": len(task["blockers"]), "blockers": {b["id"]: False for b in task["blockers"]}}


# complexity over 15 (noqa: C901 below): one branch per file the harness writes
def _write_hil_run(recs: list[dict[str, Any]], run_dir: Path, run_name: str, suite: str, mode: str,  # noqa: C901
                   tasks: dict[str, dict[str, Any]], models: list[str], shared_log: bool) -> list[dict[str, Any]]:
    """One ``hil sql|swe`` run folder (one mode); returns ``parse_metrics_rows``'s rows for it."""
    abs_dir = f"{HARNESS_HOME}/results/{run_dir.name}"
    by_pass: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for r in recs:
        by_pass[(r["model"], r["trial"])].append(r)
    last = model_safe(models[-1])

    # the ask_human server's log, in the order the instances ran (model, pass, task)
    log: dict[str, dict[str, Any]] = {}
    if mode == "ask_human":
        for r in sorted(recs, key=lambda r: (models.index(r["model"]), r["trial"], r["task_id"])):
            unlogged = r.get("meta", {}).get("questions_not_in_log", 0)
            for q in r.get("questions", []):
                if q["response"] == HICCUP and unlogged:
                    continue  # the judge's reply had no blocker_key: HTTP 500, nothing logged
                key = _hil_iid(r["task_id"], last, mode, HIL_PASSES) if shared_log else \
                    _hil_iid(r["task_id"], model_safe(r["model"]), mode, r["trial"])
                entry = log.setdefault(key, _hil_log_entry(tasks[r["task_id"]]))
                entry["questions"].append({"question": q["text"], "response": q["response"],
                                           "blocker_name": q["blocker_id"]})
                if q["blocker_id"]:
                    entry["blockers"][q["blocker_id"]] = True
        dump(run_dir / "ask_human_logs.json", log, indent=2)
    rows = []
    for (model, trial), prs in sorted(by_pass.items()):
        ms = model_safe(model)
        pdir = run_dir / ms / mode / f"pass_{trial}"
        preds, instances, results, resolved_ids, errors = {}, {}, {}, [], []
        for r in sorted(prs, key=lambda r: r["task_id"]):
            reason = r.get("meta", {}).get("error_reason")
            if reason == "missing_pass":
                continue  # SWE-agent crashed on it: no prediction, the harness pads the pass
            i = _hil_iid(r["task_id"], ms, mode, r["trial"])
            resolved = r["passed"] if reason is None else r["meta"].get("harness_resolved")
            steps = _hil_steps(r, suite)
            patch = "diff --git a/src/app.py b/src/app.py\n+FIX" if suite == "swe" else \
                "SELECT segment, SUM(amount) FROM records GROUP BY segment"
            dump(pdir / i / f"{i}.traj", {
                "trajectory": steps, "history": [],
                "info": {"swe_agent_version": "1.1.0", "submission": patch,
                         "exit_status": "submitted (exit_environment_error)" if reason == "env_died_obs"
                         else "submitted",
                         "model_stats": {"instance_cost": r["cost_usd"], "tokens_sent": r["tokens_in"],
                                         "tokens_received": r["tokens_out"], "api_calls": r["steps"]}},
                "replay_config": "{}", "environment": "main"}, indent=2)
            preds[i] = {"model_name_or_path": run_name, "instance_id": i, "model_patch": patch}
            runtime = round(0.2 * r["steps"], 3)
            if suite == "sql":
                instances[i] = {"cost": r["cost_usd"], "runtime": runtime, "num_steps": r["steps"]}
                results[i] = {"instance_id": i, "completed": True, "resolved": bool(resolved),
                              "status": "correct" if resolved else "incorrect", "gt_rows": 4, "pred_rows": 4,
                              "gt_cols": 2, "pred_cols": 2, "num_steps": r["steps"], "cost": r["cost_usd"],
                              "runtime": runtime}
            else:
                instances[i] = {"cost": r["cost_usd"], "runtime": runtime}
                results[i] = {"completed": reason != "infra_error", "resolved": bool(resolved)}
                if reason == "infra_error":
                    errors.append(i)
            if resolved:
                resolved_ids.append(i)
        n = len(preds)
        metrics: dict[str, Any] = {
            "total_instances": n, "pass_at_1_count": len(resolved_ids),
            "pass_at_1_rate": 100.0 * len(resolved_ids) / n if n else 0.0, "resolved_instances": resolved_ids,
            "patches_generated": n, "patch_generation_rate": 100.0 if n else 0.0,
            "total_cost": round(sum(v["cost"] for v in instances.values()), 6),
            "total_runtime": round(sum(v["runtime"] for v in instances.values()), 3), "instances": instances}
        if suite == "sql":
            metrics["results"] = results
        else:
            metrics["instance_type"] = "custom"
            metrics["raw_eval_results"] = {"resolved_ids": resolved_ids, "resolved_instances": len(resolved_ids),
                                           "total_instances": n, "error_ids": errors, "results": results}
        pass_log = {k: json.loads(json.dumps(v)) for k, v in log.items() if f"__{ms}__{mode}__pass_{trial}" in k}
        if mode == "ask_human":  # batch_runner: compute_hil_metrics on this pass's entries, else zeros
            metrics["hil_metrics"] = _hil_metrics(pass_log) if pass_log else dict(_ZERO_HIL)
            if pass_log:
                dump(pdir / "ask_human_logs.json", pass_log, indent=2)
        dump(pdir / "metrics.json", metrics, indent=2)
        dump(pdir / "preds.json", preds, indent=2)
        for r in sorted(prs, key=lambda r: r["task_id"]):
            rows.append(_hil_row(r, suite, mode, ms, pass_log, metrics.get("hil_metrics", {}), pdir, abs_dir))
    dump(run_dir / "batch_config.json", {
        "timestamp": "2026-11-22T09:00:00", "instance_names": None, "model_names": models,
        "modes": [{"name": mode, "enable_ask": mode == "ask_human", "full_info": mode == "full_info"}],
        "passes": HIL_PASSES, "run_name": run_name, "num_workers": 1,
        "instances_file": f"{HARNESS_HOME}/work/{run_name}/{suite}/{suite}_tasks/instances.json",
        "task_folder": f"{HARNESS_HOME}/work/{run_name}/{suite}/{suite}_tasks", "per_instance_cost_limit": 100.0,
        "optimization": "single_batch_mixed", "task_type": suite, "dataset": suite,
        "config_mapping": f"{HARNESS_HOME}/config_mappings.yaml", "judge_config": f"{HARNESS_HOME}/judge_config.yaml"},
        indent=2)
    return rows


def _hil_metrics(logs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """``compute_hil_metrics``: per-entry precision/recall/F1 (added to the entries), pooled totals."""
    tq = tb = td = 0
    for entry in logs.values():
        qs = entry["questions"]
        found = len({q["blocker_name"] for q in qs if q["blocker_name"] is not None})
        p, rc, f1 = ask_prf(found, len(qs), entry["n_blockers"])
        entry.update(precision=p, recall=rc, ask_f1=f1)
        tq, tb, td = tq + len(qs), tb + entry["n_blockers"], td + found
    p, rc, f1 = ask_prf(td, tq, tb)
    return {"instances": logs, "precision": p, "recall": rc, "ask_f1": f1,
            "n_questions": tq, "n_blockers_present": tb, "n_blockers_discovered": td}


def _hil_row(r: dict[str, Any], suite: str, mode: str, ms: str, pass_log: dict[str, Any], pass_hil: dict[str, Any],
             pdir: Path, abs_dir: str) -> dict[str, Any]:
    """``parse_metrics_rows``'s row for one instance and pass (padded when SWE-agent left no prediction)."""
    reason = r.get("meta", {}).get("error_reason")
    base = {"task_type": suite, "task_name": r["task_id"], "model": ms, "mode": mode, "pass_num": r["trial"]}
    if reason == "missing_pass":
        return {**base, "status": "infra_error", **{c: None for c in _HIL_CSV[5:16]}, "log_dir": None,
                "trajectory_dir": f"{abs_dir}/{ms}/{mode}"}
    i = _hil_iid(r["task_id"], ms, mode, r["trial"])
    resolved = r["passed"] if reason is None else r["meta"].get("harness_resolved")
    h = pass_log.get(i) or {}
    qs = h.get("questions", [])
    n_q = len(r.get("questions", []))
    found = len({q["blocker_name"] for q in qs if q["blocker_name"]})
    status = "infra_error" if reason == "infra_error" else "resolved" if resolved else "unresolved"
    return {**base, "status": status, "resolved": None if status == "infra_error" else bool(resolved),
            "cost": r["cost_usd"], "num_steps": r["steps"], "num_questions": n_q, "num_blockers_resolved": found,
            "total_num_blockers": h.get("n_blockers"),
            "precision": h.get("precision", pass_hil.get("precision")),
            "recall": h.get("recall", pass_hil.get("recall")), "f1": h.get("ask_f1", pass_hil.get("ask_f1")),
            "tokens_sent": r["tokens_in"], "tokens_received": r["tokens_out"], "log_dir": None,
            "trajectory_dir": f"{abs_dir}/{ms}/{mode}/pass_{r['trial']}/{i}",
            "_valid": reason is None}


def _write_public_metrics(rows: list[dict[str, Any]], metrics_dir: Path) -> None:
    """``write_public_outputs``: pass_level_metrics.csv (pandas, as the harness writes it) and
    summary_metrics.json (``build_summary`` with ``include_partial=False``)."""
    from ambiglib.importers._hilbench.summary import pass_columns, summarize_rows

    rows = sorted(rows, key=lambda r: (r["task_type"], r["task_name"], r["model"], r["mode"], r["pass_num"]))
    metrics_dir.mkdir(parents=True, exist_ok=True)
    pd.DataFrame([{c: r.get(c) for c in _HIL_CSV} for r in rows], columns=list(_HIL_CSV)).to_csv(
        metrics_dir / "pass_level_metrics.csv", index=False)
    summary: dict[str, Any] = {"metadata": {"include_partial": False, "num_passes": HIL_PASSES,
                                            "generated_at": "2026-11-22T09:30:00+00:00"}}
    for section, types in (("SQL", {"sql"}), ("SWE", {"swe"}), ("BOTH", {"sql", "swe"})):
        srows = [{"task": r["task_name"], "model": r["model"], "mode": r["mode"], "pass_num": r["pass_num"],
                  "valid": r.get("_valid", False), "resolved": bool(r["resolved"]), "cost": r["cost"],
                  "num_steps": r["num_steps"], "tokens_sent": r["tokens_sent"],
                  "tokens_received": r["tokens_received"], "num_questions": r["num_questions"],
                  "num_blockers_resolved": r["num_blockers_resolved"], "total_num_blockers": r["total_num_blockers"]}
                 for r in rows if r["task_type"] in types]
        out: dict[str, dict[str, Any]] = defaultdict(dict)
        for (mode, model), stats in summarize_rows(pass_columns(srows), False, HIL_PASSES).items():
            cell: dict[str, Any] = {}
            for name, (value, n) in stats.items():
                ints = ("num_included_attempts", "num_passes", "total_attempts_and_passes")
                cell[name] = int(value) if name in ints else value
                if name.startswith("pass_at_"):
                    cell[f"{name}_n"] = n
            out[mode][model] = cell
        summary[section] = dict(out)
    dump(metrics_dir / "summary_metrics.json", summary, indent=2)


def write_hilbench(records: list[dict[str, Any]], out: Path, *, shared_log: bool = True) -> None:
    """``run_hil_bench.py --task-type both``, one run per mode, under ``results/``; flat registries.

    Per mode ``results/example_<mode>_sql/`` and ``_swe/`` (the ``hil`` CLI's run folders:
    ``batch_config.json``, the whole server log ``ask_human_logs.json``, per pass ``metrics.json``,
    ``preds.json``, each instance's ``.traj`` and, where the server logged entries for the pass,
    ``ask_human_logs.json``; then ``public_metrics/``) and ``results/example_<mode>/public_metrics/``
    (both types combined). Not written: SWE-agent's ``.pred``/``.patch``/logs, ``sql_query_results.json``
    and result CSVs, ``consolidated_*.json``, ``run_batch_exit_statuses.yaml`` and the exported
    ``public_metrics/trajectories/`` (copies of the ``.traj`` steps) — no metric code reads them.
    """
    tasks = {r["task_id"]: r for r in records if r.get("record") == "task"}
    for task_id, t in tasks.items():
        name = task_id.removeprefix("public_")
        dump(out / "registries" / f"{name}.json", {"blockers": [
            {"id": b["id"], "type": b.get("type"), **({"subtype": b["subtype"]} if b.get("subtype") else {}),
             "description": "", "resolution": hil_resolution(b["id"]), "example_questions": []}
            for b in t["blockers"]]})
        dump(out / "metadata" / f"{name}.json", {"dataset_name": name, "hf_task_id": task_id,
                                                 "num_blockers": len(t["blockers"])})
    runs = [r for r in records if r.get("record") != "task"]
    models = list(dict.fromkeys(r["model"] for r in runs))
    for mode in dict.fromkeys(r["meta"]["mode"] for r in runs):
        run_name = f"example_{mode}"
        combined = []
        for suite in ("sql", "swe"):
            recs = [r for r in runs if r["meta"]["mode"] == mode and r["suite"] == suite]
            if recs:
                run_dir = out / "results" / f"{run_name}_{suite}"
                rows = _write_hil_run(recs, run_dir, run_dir.name, suite, mode, tasks, models, shared_log)
                _write_public_metrics(rows, run_dir / "public_metrics")
                combined += rows
        _write_public_metrics(combined, out / "results" / run_name / "public_metrics")


# ----------------------------------------------------------------------------- Ambig-DS


def _ads_run_name(r: dict[str, Any]) -> str:
    variant = "full" if r["spec"] == "full" else "ambig_target"
    arm = "" if not r["ask_tool"] else ("_ask_only" if r.get("protocol") == "ask_only" else "_clarify")
    return f"opencode_{r['model']}_{variant}{arm}{'_strict' if r.get('policy') == 'conservative' else ''}"


def _ads_task_files(r: dict[str, Any], slug: Path, log: dict[str, Any]) -> None:
    """One task folder of a step 4/5 run and its _runlog.jsonl line (``log`` has slug … started_at)."""
    variant, reason = log["variant"], r.get("meta", {}).get("error_reason")
    questions = r.get("questions", [])
    q = questions[0] if questions else {}
    if r["ask_tool"]:
        dump(slug / "_clarify.json", {
            "slug": r["task_id"], "variant": variant, "model": r["model"], "answerer_model": "claude-haiku-4.6",
            "asked": bool(questions), "refused": q.get("in_scope") is False, "question_truncated": False,
            "answerer_error": None, "question": q.get("text", ""), "answer": q.get("response") or "",
            "ask_iters": 3, "ask_time_sec": 30.0, "ask_cost": "0.004000", "ask_timed_out": False,
            "strict_protocol": r.get("policy") == "conservative", "clarify_only": r.get("protocol") == "ask_only"},
            indent=2)
    if r.get("protocol") == "ask_only":
        log.update(status="ask_only_done", ask_time_sec=30.0, ask_iters=3, ask_cost="0.004000", asked=bool(questions),
                   answerer_refused=False, strict_protocol=r.get("policy") == "conservative")
        return
    if reason == "build_failed":  # the full prompt is missing; step 7 then audits the empty folder
        log.update(status="build_failed", error=f"prompt missing: /home/researcher/ambig-ds/release/tasks/"
                                                f"{r['task_id']}/task.txt")
        dump(slug / "_target_audit.json", {"label": "invalid", "reason": "no workspace dir", "used": [],
                                           "dropped": []}, indent=2)
        return
    if reason == "build_failed_solve":  # asked, then the solve workspace could not be built (its data had gone)
        log.update(status="build_failed_solve", error=f"ambig_target data missing for {r['task_id']}:"
                                                      f" /home/researcher/ambig-ds/data/{r['task_id']}/ambig",
                   asked=bool(questions), ask_iters=3)
        return
    status = r["status"]
    timed_out = status == "timeout"
    dump(slug / "_traj.json", {
        "slug": r["task_id"], "variant": variant, "model": r["model"], "elapsed_sec": r.get("duration_s", 0.0),
        "iterations": 0 if timed_out else 20, "cost": "" if timed_out else f"{r.get('cost_usd', 0.0):.6f}",
        "summary": "ERROR: timeout after 3600s" if timed_out else "Wrote _submission.csv",
        "tool_uses": [{"name": "bash", "id": "tu_1", "state": "completed", "input": "python train.py"}],
        "timed_out": timed_out}, indent=2)
    if status == "ok":
        dump(slug / "_grade.json", {"score": r["score"], "score_rpg": r["score"], "rpg_baseline": 0.5, "rpg_gt": 0.9},
             indent=2)
        dump(slug / "_target_audit.json", {
            "used": ["val_1" if r["category"] == "intended" else "val_2"], "dropped": [],
            "true_target_column": "val_1", "decoy_column": "val_2", "label": r["category"],
            "reason": "y=true_col" if r["category"] == "intended" else "y=decoy_col"}, indent=2)
    else:  # no scorable submission: the harness's setdefault scores it 0; step 7 finds no target in the code
        dump(slug / "_grade.json", {"error": "no submission found", "submission_exists": False, "score": 0,
                                    "score_rpg": 0.0}, indent=2)
        dump(slug / "_target_audit.json", {"used": [], "dropped": [], "true_target_column": "val_1",
                                           "decoy_column": "val_2", "label": "invalid",
                                           "reason": "no target signal in code"}, indent=2)
    log.update(status="ok" if status == "ok" else "graded_with_error", elapsed_sec=r.get("duration_s", 0.0),
               iterations=0 if timed_out else 20, score=r["score"])
    if r["ask_tool"]:
        log.update(asked=bool(questions), answerer_refused=False)


def write_ambigds(records: list[dict[str, Any]], out: Path) -> None:
    """The target track's ``results/`` tree after steps 4–7.

    ``opencode_<model>_<variant>[_clarify|_ask_only][_strict]/``: per task ``_clarify.json`` (ask runs),
    ``_traj.json``, ``_grade.json``, ``_target_audit.json`` (step 7, solve runs); per run
    ``_runlog.jsonl`` (one line per task and invocation, a re-invocation that skipped an existing result
    included). A ``build_failed`` folder holds only step 7's audit, a ``build_failed_solve`` folder only
    ``_clarify.json``. ``_aggregate/opencode_<model>.json`` (step 6) and
    ``_aggregate/target_audit/<run>.json`` (step 7) are computed by :func:`ambiglib.metrics._harness.harness_summary`.
    Not written: ``_submission.csv``, ``_shape.json``, the ``_grade/`` grader folder and the
    ``workspaces/`` step 7 reads — no metric code reads them.
    """
    from ambiglib.importers._ambigds import read_ambigds
    from ambiglib.metrics._harness import harness_summary

    results = out / "results"
    runlogs: dict[str, list[dict[str, Any]]] = defaultdict(list)
    runs = [r for r in records if r.get("record") != "task"]
    for n, r in enumerate(runs):
        run = _ads_run_name(r)
        log = {"slug": r["task_id"], "variant": "full" if r["spec"] == "full" else "ambig_target", "model": r["model"],
               "started_at": f"2026-11-22T{10 + n // 3600:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000000"}
        slug = results / run / r["task_id"]
        slug.mkdir(parents=True, exist_ok=True)
        _ads_task_files(r, slug, log)
        runlogs[run].append(log)
    for run, lines in runlogs.items():
        if run.endswith("_full"):  # step 4 invoked again: it skips the task it already ran
            lines.append({**{k: lines[0][k] for k in ("slug", "variant", "model")},
                          "started_at": "2026-11-22T13:00:00.000000", "status": "skipped_existing"})
        (results / run / "_runlog.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines),
                                                      encoding="utf-8")
    summary = harness_summary(read_ambigds(out, quiet=True))
    for model in sorted({r["model"] for r in runs}):
        prefix = f"opencode_{model}"
        s = summary[(summary["model"] == model) & (summary["condition"] == "permissive")]
        stat = dict(zip(s["statistic"], s["value"]))
        if not stat:
            continue
        graded = {name: {r["task_id"] for r in runs if _ads_run_name(r) == prefix + name and r["status"] != "error"}
                  for name in ("_full", "_ambig_target", "_ambig_target_clarify")}
        rep: dict[str, Any] = {"run_prefix": prefix, **{k: int(stat[k]) for k in ("n_paired", "n_full", "n_ambig",
                                                                                   "n_ask")},
                               "tasks": sorted(set.intersection(*graded.values()))}
        for k in ("S_full", "S_ambig", "S_ask", "delta_ambig", "delta_ask", "wilcoxon_full_gt_ambig_p",
                  "wilcoxon_ask_gt_ambig_p"):
            rep[k] = None if pd.isna(stat[k]) else float(stat[k])
        for k in ("delta_ambig", "delta_ask"):
            rep[f"{k}_ci95"] = [float(stat[f"{k}_ci95_low"]), float(stat[f"{k}_ci95_high"])]
        dump(results / "_aggregate" / f"{prefix}.json", rep, indent=2)
        for suffix in graded:
            s7 = summary[(summary["model"] == model) & (summary["condition"] == prefix + suffix)]
            st = dict(zip(s7["statistic"], s7["value"]))
            n = int(st["n_attempted"])
            counts = {lab: round(st[f"{lab}_frac"] * n) for lab in ("intended", "alternative", "invalid")}
            dump(results / "_aggregate" / "target_audit" / f"{prefix}{suffix}.json",
                 {"run_name": prefix + suffix, "n_attempted": n, **counts,
                  **{f"{lab}_frac": counts[lab] / max(n, 1) for lab in counts}}, indent=2)


# ----------------------------------------------------------------------------- LHAW

_MCP_SCORED = ("TASK", "ENABLED_TOOLS", "PROMPT", "TRAJECTORY", "GTFA_CLAIMS", "original_prompt", "removed_value",
               "script_model_response", "raw_conversation_history", "trajectory", "errors", "trajectory_time",
               "num_retry", "coverage_score", "fully_covered_claims", "partially_covered_claims", "total_claims",
               "coverage_details_json", "evaluation_confidence")
_MCP_TOOLS = ("wikipedia_search_wikipedia", "wikipedia_get_article", "osm-mcp-server_geocode_address",
              "e2b-server_run_code")
_MCP_CLAIMS = 5


def _mcp_row(r: dict[str, Any]) -> dict[str, Any]:
    """One row of MCP-Atlas's scored CSV (the completion columns, then the claim judge's)."""
    ambiguous = r["spec"] == "ambiguous"
    original = f"Find the headquarters city of the company behind task {r['task_id']} and its population."
    prompt = original.replace("headquarters city", "city") if ambiguous else original
    questions = {q["step"]: q for q in r.get("questions", [])} if r["ask_tool"] else {}
    failed = r.get("status") == "error"
    calls, history = [], []
    n_calls = 0 if failed else max([*questions, 1]) + 2
    for i in range(n_calls):
        q = questions.get(i)
        if q is not None:
            malformed = i == min(questions) and r.get("meta", {}).get("malformed_questions")
            params = json.loads(q["text"]) if malformed else {"question": q["text"]}
            name, reply = "ask_user", q["response"]
        else:
            name, params, reply = _MCP_TOOLS[i % len(_MCP_TOOLS)], {"query": prompt[:60]}, '{"results": 3}'
        calls.append({"tool_name": name, "parameters": params, "response": None, "error": None})
        history += [{"role": "assistant", "original_message": {"role": "assistant", "content": None}, "content": None,
                     "tool_calls": [{"id": f"call_{i + 1}", "type": "function",
                                     "function": {"name": name, "arguments": json.dumps(params)}}]},
                    {"role": "tool", "tool_call_id": f"call_{i + 1}", "content": reply}]
    answer = MCP_FAILED_COMPLETION if failed else f"Answer for {r['task_id']} ({r['model']}, trial {r['trial']})."
    if not failed:
        history.append({"role": "assistant", "original_message": {"role": "assistant", "content": answer},
                        "content": answer})
    coverage = r["meta"]["coverage_score"] if failed else r["score"]
    full = int(coverage * _MCP_CLAIMS + 1e-9)
    partial = round((coverage * _MCP_CLAIMS - full) * 2)
    verdicts = [1.0] * full + [0.5] * partial + [0.0] * (_MCP_CLAIMS - full - partial)
    claims = [f"Claim {k + 1} about {r['task_id']}." for k in range(_MCP_CLAIMS)]
    return {
        "TASK": r["task_id"], "ENABLED_TOOLS": json.dumps([*_MCP_TOOLS, *(["ask_user"] if r["ask_tool"] else [])]),
        "PROMPT": prompt, "TRAJECTORY": "[]", "GTFA_CLAIMS": json.dumps(claims, indent=2),
        "original_prompt": original if ambiguous else None,
        "removed_value": json.dumps(["headquarters"]) if ambiguous else None, "script_model_response": answer,
        "raw_conversation_history": json.dumps(history) if history else None,
        "trajectory": json.dumps(calls) if calls else None, "errors": "[]",
        "trajectory_time": round(0.5 * r.get("steps", 1), 1), "num_retry": 0 if failed else 1,
        "coverage_score": coverage, "fully_covered_claims": full, "partially_covered_claims": partial,
        "total_claims": _MCP_CLAIMS,
        "coverage_details_json": json.dumps({"per_claim": [{"claim": c, "score": v, "covered": v > 0,
                                                            "reason": "judge verdict"} for c, v in zip(claims, verdicts)]}),
        "evaluation_confidence": 0.8}


def _mcp_label(model: str, spec: str, ask_tool: bool, trial: int, policy: str) -> str:
    """``--model-label``: ``<model>[_<arm>]_ask_user_t<trial>`` for ask runs, the form the branch's scripts use."""
    arm = "original" if spec == "full" else "underspecified" if not ask_tool else \
        ("ask_user" if policy == "default" else f"{policy}_ask_user")
    return f"{model}_{arm}_t{trial}"


def _write_mcp_atlas(rows: list[dict[str, Any]], folder: Path, label: str) -> Path:
    """completion_results/<label>.csv, evaluation_results/scored_<label>.csv and coverage_stats_<label>.csv."""
    df = pd.DataFrame(rows, columns=list(_MCP_SCORED))
    (folder / "completion_results").mkdir(parents=True, exist_ok=True)
    (folder / "evaluation_results").mkdir(parents=True, exist_ok=True)
    df[list(_MCP_SCORED[:13])].to_csv(folder / "completion_results" / f"{label}.csv", index=False)
    scored = folder / "evaluation_results" / f"scored_{label}.csv"
    df.to_csv(scored, index=False)
    # generate_statistics_and_plots: describe(), "mean" renamed, the pass rate (>= 0.75) after it
    stats = df["coverage_score"].describe().to_frame(name="value").reset_index().rename(columns={"index": "stat"})
    stats.loc[stats["stat"] == "mean", "stat"] = "mean coverage score"
    valid = df["coverage_score"].dropna()
    at = stats.index[stats["stat"] == "mean coverage score"][0]
    stats = pd.concat([stats.iloc[:at + 1], pd.DataFrame({"stat": ["pass rate"],
                                                          "value": [(valid >= 0.75).sum() / len(valid)]}),
                       stats.iloc[at + 1:]]).reset_index(drop=True)
    stats.to_csv(folder / "evaluation_results" / f"coverage_stats_{label}.csv", index=False)
    return scored


def write_lhaw(records: list[dict[str, Any]], out: Path) -> None:
    """variants.json, lhaw_manifest.csv and the three source harnesses' result files.

    TheAgentCompany ``eval_*.json`` and SWE-Bench Pro ``eval_results.json`` with ``ask_user`` logs in
    ``trajectories/``; MCP-Atlas as its ``lhaw/ask-user-tool`` branch writes a run: per model and label
    ``completion_results/<label>.csv``, ``evaluation_results/scored_<label>.csv`` (every column; answers
    only in ``raw_conversation_history``) and ``coverage_stats_<label>.csv`` — a failed completion and a
    malformed ``ask_user`` call included. Not written: the histogram PNGs.
    """
    variants = []
    for t in (r for r in records if r.get("record") == "task"):
        variants.append({"variant_id": t["variant_id"], "original_task": t["task_id"],
                         "dataset": {"tac": "TheAgentCompany", "swe-bench-pro": "SWE-Bench Pro",
                                     "mcp-atlas": "MCP-Atlas"}[t["suite"]],
                         "ambiguity_class": t.get("ambiguity_class"), "information_dimension": t.get("dimensions", []),
                         "removed_segments": [{"id": b["id"], "dimension": b.get("type"), "subdimension": b.get("subtype"),
                                               "value": "..."} for b in t["blockers"]],
                         "criteria": {"severity": str(t.get("strategy", "delete")).upper()}})
    dump(out / "variants.json", variants)
    manifest: list[list[Any]] = []
    mcp: dict[tuple[Any, ...], list[dict[str, Any]]] = {}  # (model, spec, ask_tool, trial, policy) → rows
    for r in (r for r in records if r.get("record") != "task"):
        cond = f"{r['spec']}_{'tool' if r['ask_tool'] else 'notool'}_{r.get('policy', 'default')}_t{r['trial']}"
        questions = r.get("questions", [])
        trajectory = [{"tool_name": "ask_user", "parameters": {"question": q["text"]}, "response": q.get("response"),
                       "error": None} for q in questions]
        traj_path = ""
        if questions and r["suite"] != "mcp-atlas":
            traj_path = f"trajectories/{r['model']}/{r['variant_id']}/{cond}.json"
            dump(out / traj_path, trajectory)
        variant = r["variant_id"] if r["spec"] == "ambiguous" else r["task_id"]
        common = [r["model"], r["spec"], str(r["ask_tool"]).lower(), r["trial"], r.get("policy", "default")]
        if r["suite"] == "tac":
            path = f"tac/{r['model']}/{variant}/eval_{cond}.json"
            total = sum(c["total"] for c in r["checkpoints"])
            dump(out / path, {"checkpoints": [{"total": c["total"], "result": c["result"]} for c in r["checkpoints"]],
                              "final_score": {"total": total, "result": sum(c["result"] for c in r["checkpoints"])}})
            manifest.append([path, "tac", *common, variant, traj_path])
        elif r["suite"] == "swe-bench-pro":
            path = f"swe-bench-pro/{r['model']}/{variant}/{cond}/eval_results.json"
            dump(out / path, {r["task_id"]: bool(r["passed"])})
            manifest.append([path, "swe-bench-pro", *common, variant if r["spec"] == "ambiguous" else "", traj_path])
        else:  # one run of the branch's scripts per (model, condition, trial), a row per task
            key = (r["model"], r["spec"], r["ask_tool"], r["trial"], r.get("policy", "default"))
            mcp.setdefault(key, []).append(_mcp_row(r))
    for (model, spec, tool, trial, policy), rows in sorted(mcp.items()):
        scored = _write_mcp_atlas(rows, out / "mcp-atlas" / model, _mcp_label(model, spec, tool, trial, policy))
        manifest.append([scored.relative_to(out).as_posix(), "mcp-atlas", model, spec, str(tool).lower(), trial,
                         policy, "", ""])
    with open(out / "lhaw_manifest.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["path", "harness", "model", "spec", "ask_tool", "trial", "policy", "variant_id", "trajectory"])
        writer.writerows(manifest)


def write_native(path: str | Path, *, seed: int = DEFAULT_SEED) -> dict[str, Path]:
    """Write the example run log in each harness's own layout, one folder per benchmark.

    ``ambiglib.load`` (or the importers) reads each folder back into the runs of
    :func:`write_example`, less what the harness cannot hold (e.g. judge labels the
    harness does not write).

    Returns
    -------
    dict
        Benchmark name → its folder.
    """
    path = Path(path)
    records = example_records(seed)
    writers = {"hil-bench": write_hilbench, "ambig-ds": write_ambigds, "lhaw": write_lhaw}
    out = {}
    for name, writer in writers.items():
        folder = path / name
        if folder.exists():
            shutil.rmtree(folder)
        writer(records[name], folder)
        out[name] = folder
    return out
