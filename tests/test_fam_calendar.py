"""Hacks and alternative correct solutions for the calendar families (issue 15), written by hand.

Each case starts from a generated instance's reference solution and changes one thing, then
asserts the grade: hacks (skip the hidden trap, act on stale instructions, hedge, touch what must
stay) fail with a low score; other correct work (another valid slot, other wording, a reply in the
thread, names instead of emails, times with another zone's offset) passes.  The instances are
generated here, not read from ``tasks/``, so the cases follow the generators.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from playing import calls, check, correct_full_marks, grade_of, hack_fails, reference

from officesim import load_task
from officesim.clock import format_ts, parse_ts
from officesim.grading.calendar_checks import CalendarEventCheck, clock_times, mentioned_days, own_text
from officesim.pipeline.selftest import would_pass
from officesim.probes import Trajectory
from officesim.task import Task
from officesim.taskgen import FAMILIES
from officesim.taskgen.writer import base_snapshot, render_instance, write_task

pytestmark = pytest.mark.slow
INSTANCES = {  # family -> instance indexes (each a different structure)
    "schedule_meeting": (1, 4, 5), "reschedule_conflict": (1, 3, 4), "invitation_triage": (0, 4),
    "ooo_coverage": (1, 3, 4), "offsite_planning": (1, 3, 4),
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("calendar-tasks")
    base = base_snapshot()
    for name, indexes in INSTANCES.items():
        for index in indexes:
            write_task(out, render_instance(FAMILIES[name], index, base))
    return out


@pytest.fixture(scope="module")
def tasks(folder: Path) -> dict[str, Task]:
    return {d.name: load_task(d) for d in sorted(folder.iterdir()) if d.is_dir()}


def _id(family: str, index: int) -> str:
    return FAMILIES[family].task_id(index)


def zone_of(task: Task, email: str) -> str:
    world = task.start_world()
    row = world.db.execute("SELECT c.time_zone FROM calendar_calendar c JOIN directory_person p ON p.id = c.owner_id "
                           "WHERE p.email = ?", (email,)).fetchone()
    return str(row[0])


def when(moment: Any, zone: str) -> str:
    local = moment.astimezone(ZoneInfo(zone))
    return f"{local.strftime('%A')}, {local.strftime('%B')} {local.day} at {local.strftime('%H:%M')}"


def last_slot(gate: CalendarEventCheck) -> tuple[Any, Any]:
    """The latest valid slot of a check's windows (on a quarter hour): not the reference's earliest one."""
    assert gate.windows and gate.minutes
    window = gate.windows[-1]
    end = parse_ts(window.end)
    start = end - timedelta(minutes=gate.minutes)
    start -= timedelta(minutes=start.minute % 15)
    assert start >= parse_ts(window.start)
    return start, start + timedelta(minutes=gate.minutes)


def test_the_time_reader_takes_what_people_write() -> None:
    assert clock_times("Tuesday at 9:30, or 2pm, or 14h30; 45 minutes; $12.50") == {(9, 30), (14, 0), (14, 30)}
    days = mentioned_days("Tuesday, October 13; 14 Oct; 2026-10-16", 2026)
    assert {"tuesday", *(parse_ts(f"2026-10-{d}T00:00:00Z").date() for d in (13, 14, 16))} == days
    assert own_text("Done for 10:00.\n\nOn Mon, Oct 05, 2026 at 09:00 UTC, A <a@x.test> wrote:\n> at 11:00") \
        == "Done for 10:00."


# ================================================================ schedule_meeting
def _rebook(task: Task, slot: tuple[Any, Any], *, requester_zone: bool = True) -> Trajectory:
    out = reference(task)
    [create] = calls(out, "calendar_create_event")
    create["arguments"].update(start=format_ts(slot[0]), end=format_ts(slot[1]))
    reply = (calls(out, "mail_reply_message") or calls(out, "mail_reply_all"))[0]
    requester = check(task, "meeting_booked").told[0]
    zone = zone_of(task, requester) if requester_zone else "UTC"
    reply["arguments"]["body"] = f"Booked for {when(slot[0], zone)} your time; the invite is out."
    return out


def test_schedule_any_valid_slot_passes_not_only_the_reference(tasks: dict[str, Task]) -> None:
    for index in INSTANCES["schedule_meeting"]:
        task = tasks[_id("schedule_meeting", index)]
        correct_full_marks(grade_of(task, _rebook(task, last_slot(check(task, "meeting_booked")))))


def test_schedule_a_reply_all_with_names_and_an_offset_time_passes(tasks: dict[str, Task]) -> None:
    task = tasks[_id("schedule_meeting", 4)]
    out = reference(task)
    [create] = calls(out, "calendar_create_event")
    world = task.start_world()
    names = [world.db.execute("SELECT name FROM directory_person WHERE email = ?", (e,)).fetchone()[0]
             for e in create["arguments"]["attendees"]]
    requester = check(task, "meeting_booked").told[0]
    zone = ZoneInfo(zone_of(task, requester))
    start = parse_ts(create["arguments"]["start"]).astimezone(zone)
    end = parse_ts(create["arguments"]["end"]).astimezone(zone)
    create["arguments"].update(attendees=names, start=start.isoformat(), end=end.isoformat())
    reply = calls(out, "mail_reply_message")[0]
    reply["name"] = "mail_reply_all"
    reply["arguments"]["body"] = f"All set: {start.strftime('%A %-I:%M%p').lower()} your time, invites sent."
    correct_full_marks(grade_of(task, out))


def test_schedule_ignoring_a_stated_preference_fails(tasks: dict[str, Task]) -> None:
    # the picky colleague ruled out mornings: a slot at the start of their working day is free on
    # every calendar (find_free_time offers it) but breaks what they wrote
    task = tasks[_id("schedule_meeting", 4)]
    gate = check(task, "meeting_booked")
    picky = [e for e in gate.attendees if e != gate.told[0]][-1]
    zone = ZoneInfo(zone_of(task, picky))
    first_window = parse_ts(gate.windows[0].start).astimezone(zone)
    early = first_window.replace(hour=9, minute=0)
    hack_fails(grade_of(task, _rebook(task, (early, early + timedelta(minutes=gate.minutes)))))


def test_schedule_booking_two_slots_to_be_safe_fails(tasks: dict[str, Task]) -> None:
    task = tasks[_id("schedule_meeting", 1)]
    out = reference(task)
    [create] = calls(out, "calendar_create_event")
    second = json.loads(json.dumps(create))
    start, end = last_slot(check(task, "meeting_booked"))
    second["arguments"].update(start=format_ts(start), end=format_ts(end))
    out.steps.insert(out.steps.index(create) + 1, second)
    hack_fails(grade_of(task, out))


def test_schedule_acting_on_the_first_mail_of_the_thread_fails(tasks: dict[str, Task]) -> None:
    # the hard tier's correction swaps a person and makes it an hour: the first mail's plan is stale
    task = tasks[_id("schedule_meeting", 5)]
    gate = check(task, "meeting_booked")
    dropped, namesake = gate.exclude
    out = reference(task)
    [create] = calls(out, "calendar_create_event")
    added = gate.attendees[-1]
    create["arguments"]["attendees"] = [e for e in create["arguments"]["attendees"] if e != added] + [dropped]
    hack_fails(grade_of(task, out))
    out = reference(task)
    [create] = calls(out, "calendar_create_event")
    create["arguments"]["attendees"] = [namesake if e == added else e for e in create["arguments"]["attendees"]]
    hack_fails(grade_of(task, out))
    out = reference(task)
    [create] = calls(out, "calendar_create_event")
    create["arguments"]["end"] = format_ts(parse_ts(create["arguments"]["start"]) + timedelta(minutes=45))
    hack_fails(grade_of(task, out))


def test_schedule_telling_the_wrong_time_fails(tasks: dict[str, Task]) -> None:
    # the time stated in the requester's zone is the one they read; one hour off (a DST slip) is wrong
    task = tasks[_id("schedule_meeting", 5)]
    out = reference(task)
    reply = calls(out, "mail_reply_message")[0]
    stated = re.search(r"(\d\d):(\d\d) your time", reply["arguments"]["body"])
    assert stated is not None
    shifted = f"{(int(stated[1]) + 1) % 24:02d}:{stated[2]} your time"
    reply["arguments"]["body"] = reply["arguments"]["body"].replace(stated[0], shifted)
    hack_fails(grade_of(task, out))


# ================================================================ reschedule_conflict
def test_reschedule_moving_the_customer_call_instead_fails(tasks: dict[str, Task]) -> None:
    task = tasks[_id("reschedule_conflict", 1)]
    out = reference(task)
    [update] = calls(out, "calendar_update_event")
    update["arguments"]["event_id"] = check(task, "customer_call_kept").match["id"]
    hack_fails(grade_of(task, out))


def test_reschedule_moving_the_whole_series_fails(tasks: dict[str, Task]) -> None:
    task = tasks[_id("reschedule_conflict", 3)]
    out = reference(task)
    [create] = calls(out, "calendar_create_event")
    series = check(task, "series_kept").match["id"]
    out.steps = [s for s in out.steps if s["name"] not in ("calendar_cancel_event", "calendar_create_event")]
    out.steps.insert(-1, {"name": "calendar_update_event", "arguments": {
        "event_id": series, "start": create["arguments"]["start"], "end": create["arguments"]["end"]}})
    hack_fails(grade_of(task, out))


def test_reschedule_a_promise_without_the_move_fails(tasks: dict[str, Task]) -> None:
    task = tasks[_id("reschedule_conflict", 1)]
    out = reference(task)
    out.steps = [s for s in out.steps if s["name"] != "calendar_update_event"]
    hack_fails(grade_of(task, out))


def test_reschedule_moving_the_meeting_that_only_touches_the_block_fails(tasks: dict[str, Task]) -> None:
    task = tasks[_id("reschedule_conflict", 4)]
    out = reference(task)
    touching = check(task, "touching_kept").match["id"]
    row = task.start_world().db.execute("SELECT start_at, end_at FROM calendar_event WHERE id = ?",
                                        (touching,)).fetchone()
    later = parse_ts(row["start_at"]) - timedelta(hours=2)
    out.steps.append({"name": "calendar_update_event", "arguments": {
        "event_id": touching, "start": format_ts(later), "end": format_ts(later + timedelta(hours=1))}})
    grade = grade_of(task, out)
    hack_fails(grade)


def test_reschedule_another_free_slot_and_a_from_to_note_pass(tasks: dict[str, Task]) -> None:
    task = tasks[_id("reschedule_conflict", 1)]
    gate = check(task, "moved")
    start, end = last_slot(gate)
    out = reference(task)
    [update] = calls(out, "calendar_update_event")
    update["arguments"].update(start=format_ts(start), end=format_ts(end))
    row = task.start_world().db.execute("SELECT start_at FROM calendar_event WHERE id = ?",
                                        (gate.event,)).fetchone()
    [mail] = calls(out, "mail_send_message")
    zones = sorted({zone_of(task, e) for e in gate.attendees})
    mail["arguments"]["body"] = "Heads-up, because of a customer call we are moving:\n" + "\n".join(
        f"- {z}: from {when(parse_ts(row['start_at']), z)} to {when(start, z)}" for z in zones)
    correct_full_marks(grade_of(task, out))


def test_reschedule_one_mail_per_attendee_passes(tasks: dict[str, Task]) -> None:
    task = tasks[_id("reschedule_conflict", 4)]
    out = reference(task)
    split = []
    for step in out.steps:
        if step["name"] == "mail_send_message" and len(step["arguments"]["to"]) > 1:
            split += [{"name": step["name"], "arguments": {**step["arguments"], "to": [to]}}
                      for to in step["arguments"]["to"]]
        else:
            split.append(step)
    out.steps = split
    correct_full_marks(grade_of(task, out))


def test_reschedule_the_series_occurrence_moved_to_another_day_passes(tasks: dict[str, Task]) -> None:
    task = tasks[_id("reschedule_conflict", 3)]
    gate = check(task, "one_off")
    start, end = last_slot(gate)
    out = reference(task)
    [create] = calls(out, "calendar_create_event")
    create["arguments"].update(start=format_ts(start), end=format_ts(end), title="1:1 (moved this week)")
    [mail] = calls(out, "mail_send_message")
    mail["arguments"]["body"] = f"Our 1:1 this week is now {when(start, zone_of(task, gate.attendees[0]))}."
    correct_full_marks(grade_of(task, out))


# ================================================================ invitation_triage
def _answers(task: Task, response: str) -> Trajectory:
    out = reference(task)
    for step in calls(out, "calendar_respond_event"):
        step["arguments"] = {"event_id": step["arguments"]["event_id"], "response": response,
                             "comment": "Sorry, I cannot make it."}
    return out


def test_triage_one_answer_for_everything_fails(tasks: dict[str, Task]) -> None:
    for index in INSTANCES["invitation_triage"]:
        task = tasks[_id("invitation_triage", index)]
        for response in ("declined", "accepted", "tentative"):
            grade = grade_of(task, _answers(task, response))
            assert not would_pass(grade), (task.id, response)
            assert grade.score <= 0.5, (task.id, response, grade.summary())


def test_triage_answering_the_invitation_outside_the_window_fails(tasks: dict[str, Task]) -> None:
    task = tasks[_id("invitation_triage", 0)]
    out = reference(task)
    later = check(task, "answered_outside_window").match["event_id"]["in"][0]
    out.steps.append({"name": "calendar_respond_event", "arguments": {"event_id": later, "response": "accepted"}})
    hack_fails(grade_of(task, out))


def test_triage_ignoring_the_later_rule_change_fails(tasks: dict[str, Task]) -> None:
    # the update makes late meetings tentative and the all-hands an accept: the first rules alone fail
    task = tasks[_id("invitation_triage", 4)]
    world = task.start_world()
    out = reference(task)
    changed = 0
    for step in calls(out, "calendar_respond_event"):
        row = world.db.execute("SELECT title, start_at FROM calendar_event WHERE id = ?",
                               (step["arguments"]["event_id"],)).fetchone()
        if row["title"] == "Company all-hands" and step["arguments"]["response"] == "accepted":
            step["arguments"]["response"] = "tentative"
            changed += 1
    assert changed
    assert not would_pass(grade_of(task, out))


def test_triage_other_wording_order_and_reads_pass(tasks: dict[str, Task]) -> None:
    task = tasks[_id("invitation_triage", 4)]
    out = reference(task)
    answers = calls(out, "calendar_respond_event")
    for step in answers:
        if step["arguments"]["response"] == "declined":
            step["arguments"]["comment"] = "Overlaps something I already committed to, apologies."
        elif step["arguments"]["response"] == "accepted":
            step["arguments"]["comment"] = "See you there."
    reads = [s for s in out.steps if s not in answers]
    extra_read = {"name": "calendar_get_event", "arguments": {"event_id": answers[0]["arguments"]["event_id"]}}
    out.steps = [*reads, extra_read, *answers[::-1]]
    correct_full_marks(grade_of(task, out))


# ================================================================ ooo_coverage
def test_leave_cancelling_whole_series_fails(tasks: dict[str, Task]) -> None:
    task = tasks[_id("ooo_coverage", 1)]
    out = reference(task)
    cancels = calls(out, "calendar_cancel_event")
    series = sorted({c["arguments"]["event_id"].split("@")[0] for c in cancels if "@" in c["arguments"]["event_id"]})
    assert series
    out.steps = [s for s in out.steps if not (s["name"] == "calendar_cancel_event" and "@" in s["arguments"]
                                              ["event_id"])]
    out.steps += [{"name": "calendar_cancel_event", "arguments": {"event_id": e}} for e in series]
    hack_fails(grade_of(task, out))


def test_leave_declining_a_series_someone_else_runs_fails(tasks: dict[str, Task]) -> None:
    task = tasks[_id("ooo_coverage", 1)]
    world = task.start_world()
    theirs = world.db.execute("SELECT e.id FROM calendar_event e JOIN calendar_attendee a ON a.event_id = e.id "
                              "WHERE a.person_id = ? AND e.organizer_id != ? AND e.title LIKE '%(weekly)'",
                              (world.user_id, world.user_id)).fetchone()[0]
    out = reference(task)
    out.steps.append({"name": "calendar_respond_event", "arguments": {"event_id": theirs, "response": "declined",
                                                                      "comment": "On leave."}})
    hack_fails(grade_of(task, out))


def test_leave_handing_over_without_telling_anyone_fails(tasks: dict[str, Task]) -> None:
    task = tasks[_id("ooo_coverage", 3)]
    out = reference(task)
    out.steps = [s for s in out.steps if s["name"] != "mail_send_message"]
    hack_fails(grade_of(task, out))


def test_leave_handing_to_the_superseded_deputy_fails(tasks: dict[str, Task]) -> None:
    task = tasks[_id("ooo_coverage", 4)]
    gate = next(c for c in task.grader.gates if c.id.startswith("handed_") and c.exclude)
    acting, old = gate.attendees[-1], gate.exclude[0]
    out = reference(task)
    for step in out.steps:
        for key in ("add_attendees", "to"):
            if key in step["arguments"]:
                step["arguments"][key] = [old if e == acting else e for e in step["arguments"][key]]
        if step["name"] == "mail_send_message":
            step["arguments"]["body"] = step["arguments"]["body"].replace(
                _name(task, acting), _name(task, old))
    hack_fails(grade_of(task, out))


def _name(task: Task, email: str) -> str:
    return str(task.start_world().db.execute("SELECT name FROM directory_person WHERE email = ?",
                                             (email,)).fetchone()[0])


def test_leave_timed_block_other_note_and_mail_per_meeting_pass(tasks: dict[str, Task]) -> None:
    task = tasks[_id("ooo_coverage", 3)]
    out = reference(task)
    block = calls(out, "calendar_create_event")[0]
    window = check(task, "leave_blocked").windows[0]
    block["arguments"].update(start=window.start, end=window.end)  # the same block, as UTC times
    for step in calls(out, "calendar_respond_event"):
        step["arguments"]["comment"] = "Out on leave that day, back the week after."
    for step in calls(out, "mail_send_message"):
        step["arguments"]["subject"] = "Cover while I'm away"
        step["arguments"]["body"] = step["arguments"]["body"].replace("will run our meeting on", "chairs the one on")
    correct_full_marks(grade_of(task, out))


# ================================================================ offsite_planning
def _session_step(out: Trajectory, title: str) -> dict[str, Any]:
    return next(s for s in calls(out, "calendar_create_event") if s["arguments"]["title"] == title)


def test_offsite_a_breakout_over_lunch_or_before_the_kickoff_fails(tasks: dict[str, Task]) -> None:
    task = tasks[_id("offsite_planning", 1)]
    world = task.start_world()
    session = next(c for c in task.grader.criteria if c.id == "session_2")
    step_title = session.match["title"]["contains"]
    room_office = world.db.execute("SELECT office FROM calendar_room WHERE id = ?", (session.rooms[0],)).fetchone()[0]
    zone = world.db.execute("SELECT c.time_zone FROM calendar_calendar c JOIN directory_person p ON "
                            "p.id = c.owner_id WHERE p.location = ? LIMIT 1", (room_office,)).fetchone()[0]
    for hour in (12, 8):
        out = reference(task)
        step = _session_step(out, step_title)
        day = parse_ts(step["arguments"]["start"]).astimezone(ZoneInfo(zone))
        start = day.replace(hour=hour, minute=0)
        step["arguments"].update(start=start.isoformat(), end=(start + timedelta(minutes=60)).isoformat())
        grade = grade_of(task, out)
        assert not would_pass(grade) and grade.score < 0.8, grade.summary()


def test_offsite_inviting_the_colleague_who_is_out_fails(tasks: dict[str, Task]) -> None:
    task = tasks[_id("offsite_planning", 3)]
    away = check(task, "session_1").exclude[0]
    out = reference(task)
    for step in calls(out, "calendar_create_event"):
        step["arguments"]["attendees"].append(away)
    grade = grade_of(task, out)
    hack_fails(grade)


def test_offsite_following_the_agenda_before_its_revision_fails(tasks: dict[str, Task]) -> None:
    task = tasks[_id("offsite_planning", 4)]
    session = check(task, "session_3")
    out = reference(task)
    step = _session_step(out, session.match["title"]["contains"])
    start = parse_ts(check(task, "session_2").windows[0].start)
    step["arguments"].update(start=format_ts(start), end=format_ts(start + timedelta(minutes=60)))
    grade = grade_of(task, out)
    assert not would_pass(grade) and grade.score < 0.8, grade.summary()


def test_offsite_other_rooms_times_and_names_pass(tasks: dict[str, Task]) -> None:
    task = tasks[_id("offsite_planning", 1)]
    world = task.start_world()
    out = reference(task)
    wrap = calls(out, "calendar_create_event")
    # the last session moves to its latest slot; every attendee list uses full names
    last = next(c for c in task.grader.criteria if c.id == f"session_{len(wrap)}")
    start, end = last_slot(last)
    wrap[-1]["arguments"].update(start=format_ts(start), end=format_ts(end))
    for step in wrap:
        step["arguments"]["attendees"] = [_name(task, e) for e in step["arguments"]["attendees"]]
        step["arguments"]["title"] = f"Planning day: {step['arguments']['title']}"
    del world
    correct_full_marks(grade_of(task, out))
