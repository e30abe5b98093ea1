"""``text: messages``: "let them know" is done by a mail or by a direct message; "by mail" needs the mail.

A blind audit told the requester by chat DM where the instruction named no channel
(approval-chain-002: "... let them know"; conflicting-instructions-001: "Update the CRM and let
them know") and failed ``told_requester`` / ``told`` ("there is no sent mail to ..."), though the
requester already had a DM thread with the user.  The colleague families now read such answers
from ``messages`` (the mail to them, or without one the direct messages to them), and keep
``sent_mail`` where the instruction asks for a mail ("confirm to them by mail").
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from playing import correct_passes, grade_of, hack_fails, reference

from officesim import load_task
from officesim.probes import Trajectory
from officesim.taskgen.colleague_kit import told_form


def _by_dm(task_id: str, edit: Any = None) -> Trajectory:
    """The reference, with its last mail to the requester sent as a direct message instead."""
    trajectory = reference(task_id)
    steps = [copy.deepcopy(s) for s in trajectory.actions()]
    at = max(i for i, s in enumerate(steps) if s["name"] in ("mail_reply_message", "mail_send_message"))
    arguments = steps[at]["arguments"]
    if "message_id" in arguments:
        world = load_task(f"tasks/{task_id}").start_world()
        to = world.db.execute("SELECT sender FROM mail_message WHERE id = ?", (arguments["message_id"],)).fetchone()[0]
    else:
        to = arguments["to"][0]
    text = edit(arguments["body"]) if edit else arguments["body"]
    steps[at] = {"name": "chat_send_dm", "arguments": {"person": to, "text": text}}
    return Trajectory(steps, trajectory.answer)


@pytest.mark.parametrize("task_id", ["approval-chain-002", "conflicting-instructions-001"])
def test_a_direct_message_tells_the_requester_where_no_channel_is_named(task_id: str) -> None:
    correct_passes(grade_of(task_id, _by_dm(task_id)))


def test_a_direct_message_with_the_wrong_amount_fails() -> None:
    grade = grade_of("approval-chain-002", _by_dm("approval-chain-002", lambda body: body.replace("292,500",
                                                                                                   "276,250")))
    hack_fails(grade)
    assert "told_requester" in [g.id for g in grade.gates if g.status == "fail"]


def test_an_instruction_asking_for_a_mail_still_needs_the_mail() -> None:
    task_id = "conflicting-instructions-003"
    assert told_form(load_task(f"tasks/{task_id}").instruction) == "sent_mail"
    grade = grade_of(task_id, _by_dm(task_id))
    assert "told" in [g.id for g in grade.gates if g.status == "fail"]


@pytest.mark.parametrize(("instruction", "form"), [
    ("Please do it and confirm to them by mail.", "sent_mail"),
    ("Please update the deal as Ann asked and reply to their mail.", "sent_mail"),
    ("ask them first, then mail them back to confirm.", "sent_mail"),
    ("Update the CRM and let them know.", "messages"),
    ("Sophie mailed me about the deal amount; please sort it out in the CRM and confirm to them.", "messages"),
    ("It has to be signed off first. Keep them posted.", "messages"),
])
def test_the_form_follows_what_the_instruction_asks(instruction: str, form: str) -> None:
    assert told_form(instruction) == form
