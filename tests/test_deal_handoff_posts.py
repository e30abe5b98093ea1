"""deal_handoff: a post in #sales may confirm the handover, but may not announce another one.

The job is the CRM side of a plan the head of sales posted.  A careful worker may confirm in the
channel ("done, all reassigned"), and that must pass; a post that gives a deal to the wrong person,
hands the kept deal on, or names the successor the thread replaced must fail, like a post elsewhere.
"""

from __future__ import annotations

import pytest
from playing import Step, call, correct_full_marks, entity_name, fact, hack_fails, play, shipped, steps_of

from officesim.env import OfficeEnv

TASKS = [f"deal-handoff-{n:03d}" for n in range(1, 6)]  # one of each structure, on acme


def _channel(task_id: str) -> str:
    return next(s["arguments"]["channel"] for s in steps_of(task_id) if s["name"] == "chat_list_messages")


def _owners(task_id: str) -> list[tuple[str, str]]:
    """(deal name, new owner's name) of every deal the plan hands on (the kept one keeps the leaver)."""
    facts = shipped(task_id).grader.facts
    assert facts is not None
    return [(entity_name(task_id, f.entity), entity_name(task_id, str(f.value)))
            for f in facts.facts if f.attribute == "owner"]


def _posting(task_id: str, text: str, channel: str | None = None) -> list[Step]:
    return [{"name": "chat_post_message", "arguments": {"channel": channel or _channel(task_id), "text": text}}]


def _after(steps: list[Step]) -> object:
    return lambda env: steps


@pytest.mark.parametrize("task_id", TASKS)
def test_a_short_confirmation_in_sales_passes(task_id: str) -> None:
    text = "Done: the deals are reassigned in the CRM as posted above."
    correct_full_marks(play(task_id, then=_after(_posting(task_id, text))))


@pytest.mark.parametrize("task_id", TASKS)
def test_a_true_list_of_the_new_owners_passes(task_id: str) -> None:
    lines = "\n".join(f"- {deal} -> {owner}" for deal, owner in _owners(task_id))
    correct_full_marks(play(task_id, then=_after(_posting(task_id, f"CRM updated:\n{lines}"))))


@pytest.mark.parametrize("task_id", TASKS)
def test_a_deal_announced_with_the_wrong_owner_fails(task_id: str) -> None:
    owners = _owners(task_id)
    people = sorted({owner for _, owner in owners} | {entity_name(task_id, k) for k in
                     shipped(task_id).grader.facts.entities if k.startswith("person_")})  # type: ignore[union-attr]
    deal, right = owners[0]
    wrong = next(p for p in people if p != right)
    lines = "\n".join(f"- {d} -> {wrong if d == deal else o}" for d, o in owners)
    hack_fails(play(task_id, then=_after(_posting(task_id, f"CRM updated:\n{lines}"))))


def test_the_replaced_successor_announced_fails() -> None:
    task_id = "deal-handoff-005"  # successor-changed: the thread reply names someone else
    book = fact(task_id, next(f"{f.entity}.{f.attribute}" for f in shipped(task_id).grader.facts.facts  # type: ignore[union-attr]
                              if f.attribute == "covered_by"))
    assert book.wrong, "the replaced successor is the covered_by fact's wrong reading"
    replaced = entity_name(task_id, str(book.wrong[0]))
    leaver = entity_name(task_id, book.entity)
    hack_fails(play(task_id, then=_after(_posting(
        task_id, f"Done: {replaced} now has all of {leaver}'s open deals in the CRM."))))


def test_a_post_in_another_channel_fails() -> None:
    task_id = "deal-handoff-001"

    def elsewhere(env: OfficeEnv) -> list[Step]:
        channels = call(env, "chat_list_channels")["channels"]
        other = next(c["id"] for c in channels if c["id"] != _channel(task_id) and not c["name"].startswith("dm"))
        return _posting(task_id, "FYI: the deals are reassigned in the CRM.", other)

    hack_fails(play(task_id, then=elsewhere))
