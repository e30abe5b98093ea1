"""Probes for graders that read the transcript: the write done before the go-ahead, the answer never read.

``acted_first`` plays the reference with its first write of the record moved to the very start, before
any read (so before the approval was seen), and the reference's later steps unchanged: the end state is
the reference's, only the order differs.  It applies wherever a ``written_after_seen`` gate is.

``remembered`` plays the reference's own writes and answer with every read dropped: what a policy that
met the task in earlier episodes can hand in without reading anything.  It applies wherever a ``seen``
gate is.
"""

from __future__ import annotations

from officesim.grading.order_checks import WrittenAfterSeenCheck
from officesim.grading.seen_checks import SeenCheck
from officesim.probes.kinds import Context, probe
from officesim.probes.trajectory import Trajectory, is_read


@probe("acted_first")
def acted_first(ctx: Context) -> Trajectory | None:
    """The reference, its first write of the guarded record moved before everything else (the end state
    is the same; the write came before the go-ahead was read)."""
    gate = next((g for g in ctx.task.grader.gates if isinstance(g, WrittenAfterSeenCheck)), None)
    if gate is None:
        return None
    out = ctx.ref.trajectory.copy()
    writes = [(i, s) for i, s in enumerate(out.steps) if isinstance(s, dict) and s["name"] in gate.tools
              and all(s["arguments"].get(k) == v for k, v in gate.arguments.items())]
    if not writes or writes[0][0] == 0:
        return None
    out.steps = [dict(writes[0][1]), *out.steps]  # written first, and again where the reference writes it
    return out


@probe("remembered")
def remembered(ctx: Context) -> Trajectory | None:
    """The reference's writes and answer with no read before them: the answer remembered from an earlier
    episode of the same task, not read in this one."""
    if not any(isinstance(g, SeenCheck) for g in ctx.task.grader.gates):
        return None
    out = ctx.ref.trajectory.copy()
    out.steps = [s for s in out.steps if not isinstance(s, dict) or not is_read(s["name"])]
    return out
