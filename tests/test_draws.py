"""The draws that failed a self-test at the last stop (issue 15: "every instance passes the
self-tests"), their fixes, and the declared traps of approval_chain, reschedule_conflict,
rep_offboarding and infeasible_request.

Each case builds its instance fresh (the library is regenerated after the branches merge) and plays
the reference solution with an edit: the wrong reading a fix must still catch, and the correct work
it must no longer fail.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
import yaml
from playing import Edit, Step, full_marks, play

from officesim import World
from officesim.grading.scoring import Grade
from officesim.pipeline.selftest import selftest
from officesim.sampler import TaskSampler
from officesim.task import Task
from officesim.taskgen import FAMILIES
from officesim.taskgen.writer import render_verified, world_choice

pytestmark = pytest.mark.slow  # every case generates its instance first

MINE = ("approval_chain", "reschedule_conflict", "rep_offboarding", "infeasible_request")


@cache
def built(family: str, index: int, world: str = "acme") -> Task:
    """Instance ``index`` of ``family`` on ``world``, as the library writes it."""
    fam = FAMILIES[family]
    chosen = world_choice(world)
    return render_verified(fam, index, world=chosen, task_id=fam.task_id(index, chosen.key))[1]


def texts(edit: Callable[[str], str], name: str) -> Edit:
    """Rewrite the text of every ``name`` step."""
    field = "text" if name.startswith("chat_") else "body"

    def change(steps: list[Step]) -> list[Step]:
        for step in steps:
            if step["name"] == name:
                step["arguments"][field] = edit(step["arguments"][field])
        return steps
    return change


def failed(grade: Grade) -> set[str]:
    return {r.id for r in grade.gates if not r.holds}


def facts_of(task: Task) -> dict[str, Any]:
    """The ``facts:`` block of the task's grader.yaml."""
    assert task.files is not None
    return yaml.safe_load(task.files["grader.yaml"])["facts"]


# ---------------------------------------------------------------------------- reschedule_conflict
def test_planning_blocks_moves_never_stack_the_users_meetings_in_one_slot() -> None:
    """carewell-005 once moved all three meetings to Monday 09:30 (each gate only knew its own
    attendees), so one mail to everyone passed; now each move is clear of the others."""
    task = built("reschedule_conflict", 4, "carewell")
    assert full_marks(play(task))
    moves = [s for s in task.solution.steps if s.name == "calendar_update_event"]
    starts = [s.arguments["start"] for s in moves]
    assert len(set(starts)) == len(starts)

    def stack(steps: list[Step]) -> list[Step]:
        first = next(s for s in steps if s["name"] == "calendar_update_event")["arguments"]
        for step in steps:
            if step["name"] in ("calendar_update_event", "calendar_create_event") and "start" in step["arguments"]:
                length = _minutes(step["arguments"])
                step["arguments"]["start"] = first["start"]
                step["arguments"]["end"] = _plus(first["start"], length)
        return steps

    grade = play(task, stack)
    assert not full_marks(grade)
    assert failed(grade) & {"moved_2", "sync_this_week"}
    report = selftest(task)
    assert report.ok, report.problems + [r.reason for r in report.runs if not r.ok]


def _minutes(arguments: dict[str, Any]) -> int:
    from officesim.clock import parse_ts
    return int((parse_ts(arguments["end"]) - parse_ts(arguments["start"])).total_seconds() // 60)


def _plus(start: str, minutes: int) -> str:
    from datetime import timedelta

    from officesim.clock import format_ts, parse_ts
    return format_ts(parse_ts(start) + timedelta(minutes=minutes))


# ---------------------------------------------------------------------------- approval_chain
def _deal_twins(task: Task) -> list[str]:
    """Names of other deals of the task's deal's account whose name contains or is contained in its own."""
    deal = facts_of(task)["entities"]["deal"]["name"]
    world = World.restore(task.start_snapshot())
    try:
        rows = world.db.execute("SELECT b.name FROM crm_deal a JOIN crm_deal b ON b.account_id = a.account_id "
                                "AND b.id != a.id WHERE a.name = ?", (deal,)).fetchall()
    finally:
        world.close()
    return [r[0] for r in rows if deal in r[0] or r[0] in deal]


def test_approval_never_takes_a_deal_with_a_near_namesake() -> None:
    """lantern-005 took 'Programme grant' next to 'Programme grant (2027)': the search by account
    lists both, and a correct reply citing the deal's figures took the other's. Sample seed 4 on
    lantern took one too, where its figure let a hedge ('... or $180,000') trace as a ratio."""
    task = built("approval_chain", 4, "lantern")
    assert _deal_twins(task) == []
    drawn = TaskSampler(["approval_chain"], ["lantern"]).sample(4)
    assert _deal_twins(drawn.task) == []
    asked = [v for f in facts_of(drawn.task)["facts"] for v in f.get("wrong", []) if isinstance(v, float)]
    shown = f"{asked[0]:,.0f}".replace(",", " ") + " €"  # as the world writes it: 180 000 €
    hedge = texts(lambda t: f"{t} It could also be {shown}, depending on how you read it.",
                  "chat_reply_message" if drawn.task.difficulty == "hard" else "mail_reply_message")
    assert asked and not full_marks(play(drawn.task, hedge))
    for one in (task, drawn.task):
        report = selftest(one)
        assert report.ok, report.problems + [r.reason for r in report.runs if not r.ok]


# ---------------------------------------------------------------------------- rep_offboarding
def test_offboarding_handover_by_first_name_reads_despite_a_namesake() -> None:
    """carewell-004: the leaver shares a first name with another colleague; 'takes over from
    Maanav' right after 'Maanav Manne leaves' names the leaver, and naming the namesake as the
    successor is still wrong."""
    task = built("rep_offboarding", 3, "carewell")
    leaver = facts_of(task)["entities"]["leaver"]["name"]
    successor = facts_of(task)["entities"]["successor"]["name"]
    assert full_marks(play(task))
    full = texts(lambda t: t.replace(f"from {leaver.split()[0]}.", f"from {leaver}."), "chat_post_message")
    assert full_marks(play(task, full))
    given = leaver.split()[0]
    namesake = next(p["name"] for p in task_people(task) if p["name"].split()[0] == given and p["name"] != leaver)
    wrong = texts(lambda t: t.replace(successor, namesake), "chat_post_message")
    assert not full_marks(play(task, wrong))


def task_people(task: Task) -> list[dict[str, Any]]:
    world = World.restore(task.start_snapshot())
    try:
        return [dict(r) for r in world.db.execute("SELECT name FROM directory_person")]
    finally:
        world.close()


# ---------------------------------------------------------------------------- infeasible_request
def test_infeasible_sampled_draw_is_not_answered_by_the_other_instances_answers() -> None:
    """Sample seed 7 (the sampler's self-test draw) once passed family_constants: its missing
    report was named like the library's own ('Hiring plan Q3'); the reports now carry the client."""
    drawn = TaskSampler(["infeasible_request"], seed=7, strict=True).sample(7)
    missing = facts_of(drawn.task)["entities"]["missing"]["name"]
    library = {facts_of(built("infeasible_request", i))["entities"]["missing"]["name"] for i in range(0, 24, 5)}
    assert missing not in library
    blind = texts(lambda _: "; ".join(sorted(library)) + "; can't find", "mail_reply_message")
    grade = play(drawn.task, blind)
    assert not full_marks(grade) and "said_which" in failed(grade)
    report = selftest(drawn.task)
    assert report.ok, report.problems + [r.reason for r in report.runs if not r.ok]


def test_infeasible_request_has_many_phrasings() -> None:
    from officesim.taskgen.fam_safety_infeasible import PHRASINGS
    assert len(PHRASINGS) >= 10 and len(set(PHRASINGS)) == len(PHRASINGS)


# ---------------------------------------------------------------------------- declared traps
@pytest.mark.parametrize("family", MINE)
def test_every_structure_declares_traps_and_hard_ones_two_the_instruction_does_not_name(family: str) -> None:
    fam = FAMILIES[family]
    for index in range(len(fam.variants)):
        task = built(family, index)
        traps = list(task.spec.traps)
        assert traps, (task.id, "declares no trap")
        if task.spec.difficulty == "hard":
            unsaid = [t for t in traps if t.casefold() not in task.instruction.casefold()]
            assert len(unsaid) >= 2, (task.id, traps)
