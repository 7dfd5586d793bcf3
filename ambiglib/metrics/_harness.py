"""The harnesses' own summary numbers and anomalies, recomputed from loaded runs.

Each harness summarises its runs by rules of its own that differ from the papers' definitions
(``docs/metrics.md``, "Harness conventions"). :func:`harness_summary` applies those rules to a
RunSet so that a user can set ambiglib's numbers beside the ones the harness printed;
:func:`harness_anomalies` lists what the importers found wrong in the harness output itself.

A run is summarised by the harness whose importer read it (``meta.harness``); runs written by
other means (the simulator, a user's converter) follow their ``benchmark``'s harness when it is
one of the three, and a ``harness`` argument names one for a benchmark of a user's own.
"""

from __future__ import annotations

import functools
import gc
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from ambiglib.importers._hilbench import ask_prf
from ambiglib.importers._hilbench.conventions import MAX_PASSES
from ambiglib.importers._hilbench.summary import TOTALLED, PassRows, _codes, _f, _objects, summarize_rows
from ambiglib.importers._lhaw import MCP_PASS_THRESHOLD
from ambiglib.metrics._common import MetricError
from ambiglib.runset import RunSet, arrow_of, meta_codes, shared_metas

__all__ = ["harness_summary", "harness_anomalies", "HARNESSES", "SUMMARY_COLUMNS"]

HARNESSES = ("hil-bench", "ambig-ds", "lhaw", "ambig-swe")
SUMMARY_COLUMNS = ["benchmark", "suite", "model", "condition", "statistic", "value", "n"]
_HIL_MODES = {("ambiguous", True): "ask_human", ("ambiguous", False): "baseline", ("full", False): "full_info"}


#: The runs columns the harness rules read (the rest are never made Python values)
_USED = ("run_id", "benchmark", "suite", "task_id", "variant_id", "model", "spec", "ask_tool", "policy", "protocol",
         "trial", "status", "score", "passed", "cost_usd", "tokens_in", "tokens_out", "steps", "n_questions")

_F = TypeVar("_F", bound=Callable[..., Any])


def _without_cyclic_gc(fn: _F) -> _F:
    """Run ``fn`` with Python's cyclic garbage collector paused: the harness rules build a plain dict
    per run, and on a large log the collector, triggered every few hundred allocations, rescanned the
    growing heap each time, for longer than building the records took (docs/performance.md). The dicts hold
    no cycles; the collector runs again, as it was, when ``fn`` returns."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        was = gc.isenabled()
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            if was:
                gc.enable()
    return wrapper  # type: ignore[return-value]


def _plain(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs columns the harness rules read, as plain Python values (no Arrow scalars), and each run's
    meta parsed (``_meta``: runs with the same meta text share one dict, which nothing changes)."""
    out = pd.DataFrame({c: pd.Series(_values(runs[c]), index=runs.index, dtype=object)
                        for c in runs.columns if c in _USED})
    out["_meta"] = shared_metas(runs)
    return out


def _values(column: pd.Series) -> list[Any]:
    """A column's values as plain Python objects, missing ones None: Arrow converts an Arrow-backed column
    at once (pandas would box each value in turn)."""
    arrow = arrow_of(column)
    if arrow is not None:
        return arrow.to_pylist()
    return column.astype(object).where(column.notna(), None).tolist()


def _records(plain: pd.DataFrame) -> list[dict[str, Any]]:
    """``plain.to_dict("records")`` for a frame from :func:`_plain` (plain values already), built column by
    column: pandas boxes each cell in turn, far slower on the million-cell frames of a large log
    (docs/performance.md)."""
    names = [str(c) for c in plain.columns]  # once: the column index may be Arrow-backed, slow to iterate
    return [dict(zip(names, values)) for values in zip(*(plain[c].tolist() for c in names))]


def _made_by(runs: pd.DataFrame, harness: str | dict[str, str] | None,
             meta: tuple[np.ndarray, list[dict]] | None = None) -> np.ndarray:
    """Which harness's rules each run follows (None: none of them): ``harness`` where it names one (for every run,
    or for the run's benchmark), else the importer's ``meta.harness``, else a benchmark named as a harness."""
    codes, metas = meta if meta is not None else meta_codes(runs)
    named = harness if isinstance(harness, dict) else {}
    bench_codes, benches = _codes(runs["benchmark"])
    pairs, which = np.unique(bench_codes * len(metas) + codes, return_inverse=True)
    made = []
    for pair in pairs.tolist():  # once per distinct benchmark and meta
        bench, h = benches[pair // len(metas)], metas[pair % len(metas)].get("harness")
        if bench in named:
            h = named[bench]
        elif isinstance(harness, str):
            h = harness
        elif h not in HARNESSES:
            h = bench if bench in HARNESSES else None
        made.append(h)
    return _objects(made)[which]


@_without_cyclic_gc
def harness_summary(rs: RunSet, *, include_partial: bool = False,
                    harness: str | dict[str, str] | None = None) -> pd.DataFrame:
    """Recompute each harness's own summary statistics from the loaded runs.

    Parameters
    ----------
    rs : RunSet
    include_partial : bool, default False
        HIL-Bench only: ``run_hil_bench.summarize_rows``'s pass filter. False (the harness's
        default) drops a (task, model, mode) unless every one of its passes is valid; True keeps
        it with its valid passes, and refuses (``MetricError``) more than 1,000 expected passes, since
        it lists pass@k for every k up to them.
    harness : str or dict, optional
        Which harness's rules to apply: one name for every run, or ``{benchmark: harness}``.
        By default each run follows ``meta.harness`` (set by the importers), else its benchmark.

    Returns
    -------
    pandas.DataFrame
        Long: ``benchmark, suite, model, condition, statistic, value, n``, statistics named as the
        harness names them.

        - HIL-Bench (``summary_metrics.json``): ``suite`` ``sql`` / ``swe`` / ``both`` (pooled over the
          loaded domains), ``condition`` the mode; ``num_included_attempts``, ``num_passes``,
          ``total_attempts_and_passes``, ``avg_cost_per_pass``, ``avg_steps_per_pass``,
          ``avg_tokens_{sent,received,total}_per_pass``, ``pass_at_<k>`` (``n`` = ``pass_at_<k>_n``), and
          for ``ask_human`` ``ask_precision``, ``ask_recall``, ``ask_f1``, ``avg_num_questions_per_pass``.
        - HIL-Bench CLI (``consolidated_metrics.json``, per run folder, model and mode, over the passes,
          invalid ones included; ``suite`` the folder's task type, ``condition`` the mode, ``n`` the
          passes): ``consolidated.<key>.<mean|std|min|max>`` for ``pass_at_1_rate`` (percent),
          ``pass_at_1_count``, ``patches_generated``, ``patch_generation_rate``, ``total_cost``,
          ``total_runtime`` and, for ``ask_human``, each pass's ``hil_metrics``: ``precision``,
          ``recall``, ``ask_f1``, ``n_questions``, ``n_blockers_present``, ``n_blockers_discovered``
          (from the pass's own server log, zeros where it has none). Only for runs read from the
          per-pass tree.
        - Ambig-DS target track, step 6 (``condition`` = the ask arm's policy: ``permissive`` is
          ``_clarify``, ``conservative`` is ``_clarify_strict``): ``S_full``, ``S_ambig``, ``S_ask``,
          ``delta_ambig``, ``delta_ask``, ``wilcoxon_full_gt_ambig_p``, ``wilcoxon_ask_gt_ambig_p``,
          ``delta_{ambig,ask}_ci95_{low,high}``, ``n_paired``, ``n_full``, ``n_ambig``, ``n_ask``;
          step 7 (``condition`` = the run name): ``intended_frac``, ``alternative_frac``,
          ``invalid_frac``, ``n_attempted`` (``n`` = task folders attempted).
        - Ambig-DS metric track, ``normalize_scores.py``'s printed means (``condition`` null):
          ``S_full``, ``S_ambig_metric``, ``S_ambig_metric_clarify``, ``delta_ambig``, ``delta_ask``
          (NaN skipped, ``n`` = values averaged).
        - LHAW on MCP-Atlas (``coverage_stats_<label>.csv``, ``condition`` = the file's label):
          ``count``, ``mean coverage score``, ``pass rate`` (coverage ≥ 0.75), ``std``, ``min``, ``25%``,
          ``50%``, ``75%``, ``max`` (pandas' ``describe()``, as the harness writes them), every row's
          coverage included (a failed completion is scored too).
        - Ambig-SWE ask detection (``interaction_stats.py``, ``condition`` = the prompt level): ``gold_1_output_1``,
          ``gold_0_output_0``, ``total_gold_1``, ``total_gold_0``, ``precision``, ``recall``, ``f1_score``,
          ``accuracy``; a run whose ask outcome the harness lost (status ``error``) counts as not asking on a
          summarised issue and as asking on a full one, as the script's rule does with ``output: null``.
          Interaction runs (``file_analysis.py``, ``condition`` ``interaction``): ``resolve_rate_file_match_1``,
          ``resolve_rate_file_match_0`` (``n`` = instances), ``total_instance_ids_analyzed``, ``total_file_matches``.

    References
    ----------
    ``docs/metrics.md``, "Harness conventions", names each rule and the harness function it
    comes from.
    """
    rows: list[tuple] = []
    if len(rs.runs):
        runs = rs.runs[[c for c in rs.runs.columns if c in _USED or c == "meta"]]  # the rest never filtered
        meta = meta_codes(runs)
        made = _made_by(runs, harness, meta)
        hil = made == "hil-bench"
        if hil.any():
            rows += _hil_summary(_hil_rows(runs[hil], (meta[0][hil], meta[1]), rs), include_partial)
            # consolidated_metrics.json: only runs read from the per-pass tree (their rows say whether a patch)
            tree = np.array([isinstance(m.get("harness_row"), dict) and "patch" in m["harness_row"]
                             for m in meta[1]])[meta[0]]
            if (hil & tree).any():
                rows += _hil_consolidated(_records(_plain(runs[hil & tree])))
        ads = made == "ambig-ds"
        if ads.any():
            rows += _ambigds_summary(_plain(runs[ads]), rs)
        # coverage_stats_<label>.csv: MCP-Atlas runs the harness scored (a large log's other LHAW runs: not read)
        scored = np.array(["coverage_score" in m for m in meta[1]])[meta[0]]
        lhaw = (made == "lhaw") & scored & (runs["suite"] == "mcp-atlas").to_numpy(dtype=bool, na_value=False)
        if lhaw.any():
            rows += _mcp_atlas_summary(_plain(runs[lhaw]))
        swe = made == "ambig-swe"
        if swe.any():
            rows += _ambigswe_summary(_records(_plain(runs[swe])), rs)
    out = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
    out["value"] = out["value"].astype(float)
    out["n"] = out["n"].astype("Int64")
    out["condition"] = out["condition"].astype(object).where(out["condition"].astype(object) != "", None)
    if len(out) == 0:
        out.attrs["note"] = "no runs written by the HIL-Bench, Ambig-DS or MCP-Atlas harness in this log"
    empty = {"condition": "the harness names no condition for these statistics (normalize_scores.py's means; an"
                          " MCP-Atlas coverage file without a label)",
             "value": "the harness computes none here: pandas' describe() has no standard deviation of one value, and"
                      " a mean over no value is none"}
    empty = {c: why for c, why in empty.items() if out[c].isna().any()}
    if empty:
        out.attrs["empty"] = empty
    return out


# ----------------------------------------------------------------------------- HIL-Bench


def _hil_rows(hil: pd.DataFrame, meta: tuple[np.ndarray, list[dict]], rs: RunSet) -> PassRows:
    """What ``parse_metrics_rows`` would have written for each run, as columns: a run read from the harness's files
    keeps its row's counts (``meta.harness_row``); another's come from its questions and its task's blockers."""
    codes, metas = meta
    n = len(hil)
    modes = [m.get("mode") for m in metas]
    mode = [modes[c] or _HIL_MODES.get((s, bool(t)), f"{s}+{t}")
            for c, s, t in zip(codes.tolist(), _values(hil["spec"]), _values(hil["ask_tool"]))]
    totals = np.zeros((n, len(TOTALLED)))
    for j, column in enumerate(("cost_usd", "steps", "tokens_in", "tokens_out")):
        v = hil[column].to_numpy(dtype=float, na_value=np.nan)
        totals[:, j] = np.where(np.isnan(v), 0.0, v)
    # a run without the harness's row: its questions, the distinct blockers they name, and (if it asked) its
    # task's registered blockers
    ids, _ = pd.factorize(pd.concat([hil["run_id"], rs.questions["run_id"]], ignore_index=True))
    mine, theirs = ids[:n], ids[n:]  # each run's and each question's run, one code per run id
    per_id = np.bincount(theirs[theirs >= 0], minlength=ids.max(initial=-1) + 1)
    named = (theirs >= 0) & rs.questions["blocker_id"].notna().to_numpy()
    blocker, _ = pd.factorize(rs.questions["blocker_id"])
    width = int(blocker.max(initial=0)) + 1
    pairs = np.unique(theirs[named].astype(np.int64) * width + blocker[named])  # (run, blocker) once each
    found_per_id = np.bincount(pairs // width, minlength=len(per_id))
    asked = np.where(mine >= 0, per_id[mine], 0).astype(float)
    found = np.where(mine >= 0, found_per_id[mine], 0).astype(float)
    key = ["benchmark", "suite", "variant_id"]
    present = np.zeros(n)
    if len(rs.blockers):
        per_task = rs.blockers.groupby(key).size().rename("n").reset_index()
        present = hil[key].merge(per_task, on=key, how="left")["n"].to_numpy(dtype=float, na_value=0.0)
    counted = (asked, found, np.where(asked > 0, present, 0.0))
    rows_of = [m.get("harness_row") for m in metas]
    given = np.array([isinstance(r, dict) for r in rows_of])[codes]
    for j, field in enumerate(("num_questions", "num_blockers_resolved", "total_num_blockers")):
        kept = np.array([_f(r.get(field)) if isinstance(r, dict) else 0.0 for r in rows_of])[codes]
        totals[:, 4 + j] = np.where(given, kept, counted[j])

    def plain(column: str) -> np.ndarray:
        return hil[column].to_numpy(dtype=object, na_value=None)

    return {"benchmark": plain("benchmark"), "suite": plain("suite"), "task": plain("task_id"),
            "model": plain("model"), "mode": _objects(mode),
            "passes": _objects([m.get("passes") for m in metas])[codes],
            "pass_num": hil["trial"].to_numpy(dtype=np.int64),
            "valid": (hil["status"] != "error").to_numpy(dtype=bool, na_value=True),
            "resolved": hil["passed"].to_numpy(dtype=bool, na_value=False), "totals": totals}


def _hil_summary(rows: PassRows, include_partial: bool) -> list[tuple]:
    out: list[tuple] = []
    for bench in sorted(set(rows["benchmark"].tolist())):
        in_bench = rows["benchmark"] == bench
        for suite in [*sorted(set(rows["suite"][in_bench].tolist())), "both"]:
            at = np.flatnonzero(in_bench if suite == "both" else in_bench & (rows["suite"] == suite))
            expected = max(p or n for p, n in zip(rows["passes"][at].tolist(), rows["pass_num"][at].tolist()))
            if include_partial and expected > MAX_PASSES:  # pass@k for every k up to it, each over every attempt
                raise MetricError(f"harness_summary: {bench} suite {suite!r} claims {expected:,} passes (its runs'"
                                  f" meta.passes, else their highest trial), more than {MAX_PASSES:,}; the harness"
                                  " lists pass@k for every k up to it. Number the trials 1, 2, ... or leave"
                                  " include_partial=False")
            srows = {k: v[at] for k, v in rows.items() if k in ("task", "model", "mode", "pass_num", "valid",
                                                               "resolved", "totals")}
            for (mode, model), stats in summarize_rows(srows, include_partial, expected).items():
                for name, (value, n) in stats.items():
                    out.append((bench, suite, model, mode, name, value, n))
    return out


def _hil_consolidated(hil: list[dict[str, Any]]) -> list[tuple]:
    """``batch_runner.collect_consolidated_metrics``: each pass's ``metrics.json`` numbers, recomputed from
    its instances, then mean / sample std / min / max over the passes of a (run folder, model, mode)."""
    import statistics

    passes: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for r in hil:
        meta = r["_meta"]
        hr = meta.get("harness_row")
        if not isinstance(hr, dict) or "patch" not in hr:
            continue  # not read from the per-pass tree (or a pass the harness padded)
        passes[(r["benchmark"], meta.get("run_dir"), r["suite"], r["model"], meta.get("mode"), int(r["trial"]))].append(
            {**hr, "resolved": r["passed"] if r["status"] != "error" else meta.get("harness_resolved")})
    cells: dict[tuple, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for (bench, run_dir, suite, model, mode, _), inst in sorted(passes.items(), key=lambda kv: str(kv[0])):
        n = len(inst)
        solved = sum(1 for i in inst if i["resolved"] is True)
        patches = sum(1 for i in inst if i["patch"])
        values = {"pass_at_1_rate": 100 * solved / n, "pass_at_1_count": solved, "patches_generated": patches,
                  "patch_generation_rate": 100 * patches / n, "total_cost": sum(_f(i["cost"]) for i in inst),
                  "total_runtime": sum(_f(i["runtime"]) for i in inst)}
        if mode == "ask_human":
            if inst[0]["pass_log"]:  # compute_hil_metrics over the pass's own log entries
                logged = [i for i in inst if i["log_questions"] is not None]
                q = sum(i["log_questions"] for i in logged)
                present = sum(_f(i["total_num_blockers"]) for i in logged)
                found = sum(_f(i["num_blockers_resolved"]) for i in logged)
                prec, rec, f1 = ask_prf(found, q, present)
                values.update(precision=prec, recall=rec, ask_f1=f1, n_questions=q, n_blockers_present=present,
                              n_blockers_discovered=found)
            else:  # no log for the pass: the zeros batch_runner stored
                values.update({k: v for k, v in (inst[0].get("pass_hil") or {}).items() if v is not None})
        for k, v in values.items():
            cells[(bench, run_dir, suite, model, mode)][k].append(float(v))
    runs_per_cell: dict[tuple, set] = defaultdict(set)
    for bench, run_dir, suite, model, mode in cells:
        runs_per_cell[(bench, suite, model, mode)].add(run_dir)
    out = []
    for (bench, run_dir, suite, model, mode), metrics in cells.items():
        condition = mode if len(runs_per_cell[(bench, suite, model, mode)]) == 1 else f"{mode} ({run_dir})"
        for k, vs in metrics.items():
            aggs = {"mean": statistics.mean(vs), "std": statistics.stdev(vs) if len(vs) > 1 else 0.0,
                    "min": min(vs), "max": max(vs)}
            for agg, v in aggs.items():
                out.append((bench, suite, model, condition, f"consolidated.{k}.{agg}", v, len(vs)))
    return out


# ----------------------------------------------------------------------------- Ambig-DS


def _ads_score(r: dict[str, Any]) -> float | None:
    """The score the harness's scripts read: ``_grade.json``'s own value where the importer kept it."""
    meta = r["_meta"]
    if "harness_score" in meta:
        v = meta["harness_score"]
        return float(v) if v is not None else None
    if r["status"] == "error":
        return None
    return float(r["score"]) if r["score"] is not None else None


def _ambigds_summary(ads: pd.DataFrame, rs: RunSet) -> list[tuple]:
    from ambiglib.stats import paired_bootstrap_ci, paired_wilcoxon

    out: list[tuple] = []
    recs = _records(ads)
    for r in recs:
        r["_score"] = _ads_score(r)
        r["_run_name"] = r["_meta"].get("run_name", "")
    solve = [r for r in recs if r["protocol"] == "solve"]
    # step 6 (target track): per model, full / ambig / each ask policy, tasks paired by slug
    for (bench, model), group in _groups(solve, ("benchmark", "model"), suite="target"):
        def scores(spec: str, tool: bool, policy: str | None = None, group: list = group) -> dict[str, float]:
            return {r["task_id"]: r["_score"] for r in group
                    if r["spec"] == spec and bool(r["ask_tool"]) == tool and r["_score"] is not None
                    and (policy is None or r["policy"] == policy)}
        full, ambig = scores("full", False), scores("ambiguous", False)
        for policy in sorted({r["policy"] for r in group if r["ask_tool"]}):
            ask = scores("ambiguous", True, policy)
            tasks = sorted(set(full) & set(ambig) & set(ask))
            f = np.array([full[t] for t in tasks])
            a = np.array([ambig[t] for t in tasks])
            k = np.array([ask[t] for t in tasks])
            n = len(tasks)
            s = {"n_paired": float(n), "n_full": float(len(full)), "n_ambig": float(len(ambig)),
                 "n_ask": float(len(ask))}
            if n:
                s.update(S_full=f.mean(), S_ambig=a.mean(), S_ask=k.mean(), delta_ambig=a.mean() - f.mean(),
                         delta_ask=k.mean() - a.mean(),
                         wilcoxon_full_gt_ambig_p=_harness_wilcoxon(f, a, paired_wilcoxon),
                         wilcoxon_ask_gt_ambig_p=_harness_wilcoxon(k, a, paired_wilcoxon))
                lo, hi = paired_bootstrap_ci(a[None, :], f[None, :], n_boot=10_000, seed=0)
                s.update(delta_ambig_ci95_low=lo[0], delta_ambig_ci95_high=hi[0])
                lo, hi = paired_bootstrap_ci(k[None, :], a[None, :], n_boot=10_000, seed=1)
                s.update(delta_ask_ci95_low=lo[0], delta_ask_ci95_high=hi[0])
            for name, value in s.items():
                out.append((bench, "target", model, policy, name, value, n))
    # step 7: per run name, over every task folder the run holds
    target = _target_labels(rs)
    for (bench, model, run_name), group in _groups(recs, ("benchmark", "model", "_run_name"), suite="target"):
        folders = [r for r in group if r["_meta"].get("task_folder", True)]
        if not folders:
            continue
        labels = {r["run_id"]: target[r["run_id"]] for r in folders if r["run_id"] in target}
        if not labels:  # step 7 was not run on this run (it writes a _target_audit.json into every folder)
            continue
        n = len(folders)
        for lab in ("intended", "alternative", "invalid"):
            count = sum(1 for r in folders if labels.get(r["run_id"], "invalid") == lab)
            out.append((bench, "target", model, run_name, f"{lab}_frac", count / n, n))
        out.append((bench, "target", model, run_name, "n_attempted", float(n), n))
    # normalize_scores.py (objective track): per model, unpaired means per variant, per-row deltas
    for (bench, model), group in _groups(solve, ("benchmark", "model"), suite="objective"):
        cols: dict[str, dict[str, float]] = {}
        for name, spec, tool in (("S_full", "full", False), ("S_ambig_metric", "ambiguous", False),
                                 ("S_ambig_metric_clarify", "ambiguous", True)):
            cols[name] = {r["task_id"]: r["_score"] for r in group if r["spec"] == spec
                          and bool(r["ask_tool"]) == tool and r["policy"] in ("default", "permissive")
                          and r["_score"] is not None}
        for name, values in cols.items():
            v = list(values.values())
            out.append((bench, "objective", model, "", name, float(np.mean(v)) if v else float("nan"), len(v)))
        for name, (hi_, lo_) in (("delta_ambig", ("S_ambig_metric", "S_full")),
                                 ("delta_ask", ("S_ambig_metric_clarify", "S_ambig_metric"))):
            d = [cols[hi_][t] - cols[lo_][t] for t in cols[hi_] if t in cols[lo_]]
            out.append((bench, "objective", model, "", name, float(np.mean(d)) if d else float("nan"), len(d)))
    return out


def _harness_wilcoxon(x: np.ndarray, y: np.ndarray, fn) -> float:
    """step 6's ``_wilcoxon_one_sided_greater``: None (NaN here) when no difference is non-zero."""
    if len(x) == 0 or np.all(x - y == 0):
        return float("nan")
    p = fn(x, y).p_value
    return float(p) if p is not None else float("nan")


def _groups(recs: list[dict[str, Any]], keys: Sequence[str], *, suite: str) -> Iterable[tuple[tuple, list]]:
    groups: dict[tuple, list] = defaultdict(list)
    for r in recs:
        if r["suite"] != suite:
            continue
        groups[tuple(r[k] for k in keys)].append(r)
    return sorted(groups.items(), key=lambda kv: tuple(str(x) for x in kv[0]))


def _target_labels(rs: RunSet) -> dict[str, str]:
    """Each run's ``target`` label (step 7's ``_target_audit.json``), the last where a run has several:
    read once for every run name, not once per run name (the labels of a large log are millions of rows)."""
    labels = rs.labels
    if not len(labels):
        return {}
    lab = labels.loc[(labels["facet"] == "target").to_numpy(dtype=bool, na_value=False), ["run_id", "label"]]
    return dict(zip(lab["run_id"].astype(object), lab["label"].astype(object)))


# ----------------------------------------------------------------------------- LHAW on MCP-Atlas


def _mcp_atlas_summary(lhaw: pd.DataFrame) -> list[tuple]:
    out = []
    recs = [r for r in _records(lhaw) if r["suite"] == "mcp-atlas" and "coverage_score" in r["_meta"]]
    groups: dict[tuple, list] = defaultdict(list)
    for r in recs:
        groups[(r["benchmark"], r["model"], r["_meta"].get("label") or "")].append(r)
    for (bench, model, label), group in sorted(groups.items()):
        cov = pd.Series([r["_meta"]["coverage_score"] for r in group], dtype=float)
        valid = cov.dropna()
        n = len(valid)
        # generate_statistics_and_plots: pandas' describe() of coverage_score, "mean" renamed, and the pass rate
        for stat, value in cov.describe().items():
            name = "mean coverage score" if stat == "mean" else str(stat)
            out.append((bench, "mcp-atlas", model, label, name, float(value), n))
            if stat == "mean":
                out.append((bench, "mcp-atlas", model, label, "pass rate",
                            float((valid >= MCP_PASS_THRESHOLD).sum() / n) if n else 0.0, n))
    return out


# ----------------------------------------------------------------------------- anomalies


#: What the importers flag in a harness's own output (run ``meta`` key → what it means)
ANOMALIES = {
    "questions_not_in_log": "questions in the trajectory (counted in the CSV) that the ask_human server never"
                            " logged (an /ask call that failed, e.g. HTTP 500)",
    "questions_logged_under": "this pass's questions are logged under another instance id (the expanded"
                              " instances of a task share one extra_fields dict)",
    "log_holds_other_passes": "this instance id's log entry holds other passes' questions too",
    "capped_by_other_passes": "questions answered 'irrelevant question' because other passes' questions had"
                              " used the task's 3-answer cap",
    "harness_precision_above_1": "the harness's CSV row has more blockers resolved than questions asked"
                                 " (precision above 1)",
    "questions_unattributed": "questions whose answer matches no server-log entry or registry resolution",
    "malformed_questions": "ask_user calls whose arguments did not hold a question (kept, flagged)",
}


_QUESTION_COUNTS = ("questions_not_in_log", "capped_by_other_passes", "questions_unattributed", "malformed_questions")


def _ambigswe_summary(recs: list[dict[str, Any]], rs: RunSet) -> list[tuple]:
    """``interaction_stats.py`` per model and prompt level; ``file_analysis.py``'s resolve rates per model."""
    rows: list[tuple] = []
    ask_only = [r for r in recs if r["protocol"] == "ask_only"]
    for suite, (model, policy), runs in ((s, k, g) for s in sorted({r["suite"] for r in ask_only})
                                         for k, g in _groups(ask_only, ("model", "policy"), suite=s)):
        gold1 = [r for r in runs if r["spec"] == "ambiguous"]
        gold0 = [r for r in runs if r["spec"] == "full"]
        tp = sum(r["status"] != "error" and r["n_questions"] > 0 for r in gold1)
        tn = sum(r["status"] != "error" and r["n_questions"] == 0 for r in gold0)
        counts = {"gold_1_output_1": tp, "gold_0_output_0": tn, "total_gold_1": len(gold1), "total_gold_0": len(gold0)}
        rows += [("ambig-swe", suite, model, policy, name, value, len(runs)) for name, value in counts.items()]
        if gold1:  # the script prints no rate without a positive case
            precision = tp / (tp + len(gold0) - tn) if tp + len(gold0) - tn else np.nan
            recall = tp / len(gold1)
            f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
            rates = {"precision": precision, "recall": recall, "f1_score": f1, "accuracy": (tp + tn) / len(runs)}
            rows += [("ambig-swe", suite, model, policy, name, value, len(runs)) for name, value in rates.items()]
    solved = {r["run_id"]: r for r in recs if r["protocol"] == "solve"}
    labels = rs.labels[(rs.labels["facet"] == "ambig-swe.answers_name_gold_files").to_numpy(dtype=bool, na_value=False)]
    matched = {run_id: label == "yes" for run_id, label in zip(labels["run_id"], labels["label"]) if run_id in solved}
    analysed = [dict(solved[run_id], _match=m) for run_id, m in matched.items()]
    for suite, (model,), runs in ((s, k, g) for s in sorted({r["suite"] for r in analysed})
                                  for k, g in _groups(analysed, ("model",), suite=s)):
        for flag in (1, 0):
            side = [bool(r["passed"]) for r in runs if r["_match"] == bool(flag)]
            rows.append(("ambig-swe", suite, model, "interaction", f"resolve_rate_file_match_{flag}",
                         float(np.mean(side)) if side else np.nan, len(side)))
        rows += [("ambig-swe", suite, model, "interaction", "total_instance_ids_analyzed", len(runs), len(runs)),
                 ("ambig-swe", suite, model, "interaction", "total_file_matches", sum(r["_match"] for r in runs),
                  len(runs))]
    return rows


@_without_cyclic_gc
def harness_anomalies(rs: RunSet) -> pd.DataFrame:
    """Count the harness anomalies the importers flagged, per benchmark, suite, model and kind.

    Returns
    -------
    pandas.DataFrame
        ``benchmark, suite, model, anomaly, n_runs, n_questions, what``; ``n_questions`` is the
        number of questions concerned where the anomaly is about questions. Empty when nothing
        was flagged.
    """
    rows: dict[tuple, list[int]] = defaultdict(lambda: [0, 0])
    # only runs whose meta text names an anomaly (or escapes a character, which could spell one) are read
    named = rs.runs["meta"].str.contains("|".join([*ANOMALIES, r"\\u"]), regex=True).fillna(False)
    flagged = rs.runs[named.to_numpy(dtype=bool)]
    if len(flagged):
        for r in _records(_plain(flagged)):
            meta = r["_meta"]
            for key in ANOMALIES:
                if key not in meta or meta[key] in (None, False, 0, [], ""):
                    continue
                v = meta[key]
                cell = rows[(r["benchmark"], r["suite"], r["model"], key)]
                cell[0] += 1
                if key in _QUESTION_COUNTS:
                    cell[1] += len(v) if isinstance(v, list) else int(v)
    out = pd.DataFrame([(*k, n, q, ANOMALIES[k[3]]) for k, (n, q) in sorted(rows.items())],
                       columns=["benchmark", "suite", "model", "anomaly", "n_runs", "n_questions", "what"])
    if len(out) == 0:
        out.attrs["note"] = "no harness anomalies flagged in this log"
        out.attrs["found_nothing"] = True  # a finding, not a gap: the report shows it
    return out
