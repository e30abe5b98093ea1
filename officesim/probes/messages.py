"""A variant for graders that read "let them know" from ``text: messages``: the answer sent as a direct message.

``told_by_dm`` plays the reference with each mail to the person a ``messages`` gate reads sent as a
direct message to them instead (same words): the gate takes the mail or, without one, the messages,
so a worker who answers in chat did the job.  It applies wherever such a gate names one person.
"""

from __future__ import annotations

from officesim.grading.facts import FactsCheck
from officesim.probes.claims import recipients
from officesim.probes.kinds import Context, variant
from officesim.probes.trajectory import MAIL_WRITES, Trajectory


@variant("told_by_dm")
def told_by_dm(ctx: Context) -> Trajectory | None:
    """The reference, its mail to the person told sent as a direct message to them instead."""
    gate = next((g for g in ctx.task.grader.gates
                 if isinstance(g, FactsCheck) and g.text == "messages" and g.to and len(g.to) == 1), None)
    if gate is None or not gate.to:
        return None
    ref = gate.to[0]
    person = ctx.task.start_world().db.execute(
        "SELECT email FROM directory_person WHERE id = ? OR email = ?", (ref, ref)).fetchone()
    if person is None:
        return None
    email = str(person[0]).lower()
    out = ctx.ref.trajectory.copy()
    changed = False
    for i, step in enumerate(out.steps):
        if isinstance(step, dict) and step["name"] in MAIL_WRITES and step["name"] != "mail_forward_message" \
                and email in recipients(ctx, step) and isinstance(step["arguments"].get("body"), str):
            out.steps[i] = {"name": "chat_send_dm", "arguments": {"person": email, "text": step["arguments"]["body"]}}
            changed = True
    return out if changed else None
