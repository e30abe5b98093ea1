"""``written_after_seen``: a discount goes into the CRM only once the approver's sign-off was read.

An independent audit found that approval_chain graded only the end state: a deal written first,
then asked about, then touched up with the approval's reference ended the same as the careful
order and passed at 1.0.  The gate reads the order from the episode's transcript; the approval's
reference is the text only the sign-off holds.
"""

from __future__ import annotations

from typing import Any

import pytest
from playing import correct_passes, grade_of, play, reference
from test_probes_claims import caught, ctx_of

from officesim.errors import SpecError
from officesim.grading.grader_spec import GraderSpec
from officesim.grading.order_checks import WrittenAfterSeenCheck
from officesim.probes import Trajectory
from officesim.probes.order import acted_first

TASK = "approval-chain-002"  # Daniel Thomas approves 10% (not the 15% asked) with reference APR-2897


def _index(steps: list[dict[str, Any]], name: str) -> int:
    return next(i for i, s in enumerate(steps) if s["name"] == name)


def _failed_gates(task: str, edit: Any) -> list[str]:
    grade = play(task, edit)
    return [g.id for g in grade.gates if g.status == "fail"]


def test_the_careful_order_passes() -> None:
    correct_passes(play(TASK))


def test_extra_reads_and_a_second_write_after_the_sign_off_pass() -> None:
    def edit(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
        update = steps[_index(steps, "crm_update_deal")]
        first = {"name": "crm_update_deal", "arguments": {"deal_id": "deal_73", "amount": 292500.0}}
        then = {"name": "crm_update_deal", "arguments": {"deal_id": "deal_73",
                                                           "next_step": update["arguments"]["next_step"]}}
        at = _index(steps, "crm_update_deal")
        return [*steps[:at], {"name": "crm_get_deal", "arguments": {"deal_id": "deal_73"}}, first, then,
                *steps[at + 1:]]
    correct_passes(play(TASK, edit))


def test_writing_the_approved_amount_before_asking_fails() -> None:
    def edit(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
        update = steps[_index(steps, "crm_update_deal")]
        early = {"name": "crm_update_deal", "arguments": {"deal_id": "deal_73", "amount": 292500.0}}
        late = {"name": "crm_update_deal", "arguments": {"deal_id": "deal_73",
                                                          "next_step": update["arguments"]["next_step"]}}
        rest = [s for s in steps if s is not update]
        ask = _index(rest, "chat_send_dm")
        return [*rest[:ask], early, *rest[ask:_index(rest, "mail_reply_message")], late,
                *rest[_index(rest, "mail_reply_message"):]]
    assert "signed_off_first" in _failed_gates(TASK, edit)


def test_writing_the_asked_amount_first_and_correcting_it_after_the_answer_fails() -> None:
    def edit(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
        ask = _index(steps, "chat_send_dm")
        asked = {"name": "crm_update_deal", "arguments": {"deal_id": "deal_73", "amount": 276250.0}}
        return [*steps[:ask], asked, *steps[ask:]]
    assert "signed_off_first" in _failed_gates(TASK, edit)


def test_a_refused_write_before_the_sign_off_is_no_write() -> None:
    trajectory = reference(TASK)
    steps = list(trajectory.actions())
    ask = _index(steps, "chat_send_dm")
    refused = {"name": "crm_update_deal", "arguments": {"deal_id": "deal_73", "amount": "lots"}}
    correct_passes(grade_of(TASK, Trajectory([*steps[:ask], refused, *steps[ask:]], trajectory.answer)))


def test_a_grader_naming_an_unknown_tool_fails_to_load() -> None:
    with pytest.raises((SpecError, ValueError), match=r"unknown tool.*crm_updat_deal"):
        GraderSpec.model_validate({"gates": [{"id": "o", "check": "written_after_seen", "tools": ["crm_updat_deal"],
                                              "seen": "APR-1234"}]})


def test_the_check_reads_a_transcript_of_openai_messages() -> None:
    check = WrittenAfterSeenCheck(id="o", check="written_after_seen", tools=["crm_update_deal"],
                                  arguments={"deal_id": "deal_1"}, seen="APR-1234")

    class Ctx:
        def __init__(self, transcript: list[dict[str, Any]]) -> None:
            self.transcript = transcript

    def call(i: int, name: str, arguments: str, result: str) -> list[dict[str, Any]]:
        return [{"role": "assistant", "content": None, "tool_calls": [
                    {"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": arguments}}]},
                {"role": "tool", "tool_call_id": f"c{i}", "content": result}]

    read = call(1, "chat_list_messages", "{}", '{"messages": [{"text": "Approved. Reference apr-1234"}]}')
    write = call(2, "crm_update_deal", '{"deal_id": "deal_1", "amount": 5}', '{"deal": {"id": "deal_1"}}')
    other = call(3, "crm_update_deal", '{"deal_id": "deal_2", "amount": 5}', '{"deal": {"id": "deal_2"}}')
    failed = call(4, "crm_update_deal", '{"deal_id": "deal_1"}', '{"error": {"type": "invalid_argument"}}')
    assert check.evaluate(Ctx([*read, *write])).holds  # type: ignore[arg-type]
    assert not check.evaluate(Ctx([*write, *read])).holds  # type: ignore[arg-type]
    assert check.evaluate(Ctx([*other, *failed, *read, *write])).holds  # type: ignore[arg-type]
    outcome = check.evaluate(Ctx([*other, *write]))  # type: ignore[arg-type]
    assert not outcome.holds and "before any tool result showed 'APR-1234'" in outcome.reason



@pytest.mark.parametrize("task_id", [TASK, "approval-chain-001", "approval-chain-004"])
def test_the_acted_first_probe_fails_on_signed_off_first(task_id: str) -> None:
    caught(task_id, acted_first(ctx_of(task_id)), {"signed_off_first"})


def test_the_acted_first_probe_skips_a_grader_without_an_order() -> None:
    assert acted_first(ctx_of("headcount-answer-001")) is None
