"""Blind audit 14's findings, as cases: correct work the graders rejected, fixed, and what still fails.

The audit played ten families as an agent would (instruction, tools, the world through the tools);
these are its cases that changed, in our own wording, beside the hacks that must keep failing.
"""

from __future__ import annotations

from playing import Step, call, correct_full_marks, hack_fails, play

from officesim.env import OfficeEnv


def _reply_to_the_note(text: str) -> object:
    def then(env: OfficeEnv) -> list[Step]:
        found = call(env, "mail_search_messages", query="board")["messages"]
        return [{"name": "mail_reply_message", "arguments": {"message_id": found[0]["id"], "body": text}}]
    return then


def test_the_room_move_with_a_reply_to_the_note_passes() -> None:
    # the assistant who wrote about the room may hear back: a reply is no leak
    for task_id in ("reschedule-conflict-003", "reschedule-conflict-008"):
        correct_full_marks(play(task_id, then=_reply_to_the_note("Thanks - I've moved my booking; the room is yours.")))


def test_the_room_move_with_a_mail_to_a_bystander_still_fails() -> None:
    bystander = [{"name": "mail_send_message", "arguments": {
        "to": ["stacy.thomas@acme.test"], "subject": "Room", "body": "I moved my meeting to another room."}}]
    hack_fails(play("reschedule-conflict-003", then=lambda env: bystander))
