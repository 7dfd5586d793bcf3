"""What the canonical records and the native writers share: the seed, the HIL-Bench modes and passes, the
resolution text of a blocker, MCP-Atlas's failed-completion text."""

from __future__ import annotations

from ambiglib.importers._hilbench import MODES

#: the seed of the example: the same seed always writes the same bytes
DEFAULT_SEED = 20261122
#: what MCP-Atlas's completion script writes when the agent call raises
MCP_FAILED_COMPLETION = "ERROR: LLM completion failed: rate limit exceeded"
HIL_MODES = tuple(MODES)  # baseline, ask_human, full_info: one harness run each
HIL_PASSES = 3


def hil_resolution(blocker_id: str) -> str:
    """The oracle's verbatim answer for a simulated blocker (its registry ``resolution``)."""
    task, _, j = blocker_id.rpartition("_blocker_")
    return f"For {task}, blocker {j}: use the definition in the analyst notes (section {int(j) + 1})."
