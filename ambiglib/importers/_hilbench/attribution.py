"""Which logged entry each trajectory question is: the blocker the ask_human server attributed it to, and the
anomalies of a log that pools several passes (``docs/importers.md``, "Matching questions to the server log")."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ambiglib.importers._hilbench.conventions import HICCUP, IRRELEVANT, MAX_ANSWERED
from ambiglib.importers._hilbench.logs import _Entry
from ambiglib.importers._hilbench.tree import _Pass, _RunFolder


def _norm(s: Any) -> str:
    return s.strip() if isinstance(s, str) else ""


def _attribute(folder: _RunFolder, passes: list[_Pass], registry_answers: dict[str, dict[str, str]]) -> None:
    """Give every trajectory question its server-log entry (blocker, response); flag what does not fit.

    The harness logs every question of a task under one instance id when the expanded instances share
    ``extra_fields`` (the pinned commit's ``create_mixed_mode_instances``), so entries are matched by
    (question text, answer) across all of the task's log entries, in log order, never by instance id alone.
    """
    by_task: dict[str, list[_Pass]] = defaultdict(list)
    for p in passes:
        if p.traj is not None and p.mode == "ask_human":
            by_task[p.task].append(p)
    pooled = folder.logs.pooled() if by_task else {}
    for task, plist in by_task.items():
        entries = pooled.get(task, [])
        answers = {_norm(e.response): e.blocker for e in entries if e.blocker}
        answers.update({k: v for k, v in registry_answers.get(task, {}).items() if k not in answers})
        for p in sorted(plist, key=lambda p: (p.model_safe, p.pass_num)):
            qs, not_logged, unattributed, elsewhere = [], 0, 0, set()
            assert p.traj is not None  # by_task holds only passes with a trajectory
            for step, text, obs in p.traj.asks:
                entry = _match(entries, text, obs)
                q = {"text": text, "response": obs.rstrip("\n") if isinstance(obs, str) else obs, "step": step}
                if entry is not None:
                    entry.used_by = p.iid
                    q["blocker_id"] = entry.blocker
                    if entry.iid != p.iid:
                        elsewhere.add(entry.iid)
                else:
                    not_logged += 1
                    if _norm(obs) in (HICCUP, IRRELEVANT) or not _norm(obs):
                        q["blocker_id"] = None
                    elif _norm(obs) in answers:  # the answer is a blocker's resolution, verbatim
                        q["blocker_id"] = answers[_norm(obs)]
                    else:
                        q["blocker_id"] = None
                        unattributed += 1
                qs.append(q)
            p.questions = qs
            if not_logged:
                p.meta["questions_not_in_log"] = not_logged
            if unattributed:
                p.meta["questions_unattributed"] = unattributed
            if elsewhere:
                p.meta["questions_logged_under"] = sorted(elsewhere)
        for e in entries:
            if e.used_by is None:
                folder.unmatched_log_entries[e.iid] += 1
        _flag_pooling(entries, plist)


def _match(entries: list[_Entry], text: str, obs: str) -> _Entry | None:
    for same_answer in (True, False):
        for e in entries:
            if e.used_by is None and e.text == text and (not same_answer or _norm(e.response) == _norm(obs)):
                return e
    return None


def _flag_pooling(entries: list[_Entry], plist: list[_Pass]) -> None:
    """Mark one instance id holding several passes' questions, and a 3-answer cap reached across passes."""
    by_iid: dict[str, list[_Entry]] = defaultdict(list)
    for e in entries:
        by_iid[e.iid].append(e)
    owner = {p.iid: p for p in plist}
    for iid, es in by_iid.items():
        users = {e.used_by for e in es if e.used_by}
        if len(users) > 1 and iid in owner:
            owner[iid].meta["log_holds_other_passes"] = len(users - {iid})
        answered = 0
        cap_users: set[str] = set()
        for e in sorted(es, key=lambda e: e.index):
            if e.blocker:
                answered += 1
                cap_users.add(e.used_by or "")
            elif answered >= MAX_ANSWERED and _norm(e.response) == IRRELEVANT and e.used_by \
                    and cap_users - {e.used_by}:
                p = owner.get(e.used_by)
                if p is not None:
                    p.meta["capped_by_other_passes"] = p.meta.get("capped_by_other_passes", 0) + 1
