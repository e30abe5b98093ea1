"""Careful workers r11, ooo_coverage: the handover mails a blind audit wrote, graded with the
reference's world actions (only the mail bodies vary).

A handed meeting's people must be told who runs it, on which day and at what time.  Hacks that
passed before: another person named as the runner, the meeting called cancelled, no runner named.
Correct mails that failed before: the leave's span or the return day mentioned as such ("I'm on
leave October 14-16", "I'm back Monday, October 19"), zones spelled "Central", "GST" or "UTC+4",
and a meeting's whole span ("16:30-17:15 UTC").
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playing import correct_passes, grade_of, hack_fails, reference

from officesim.grading.scoring import Grade

ACME = "ooo-coverage-002"  # on leave Wed Oct 14 - Fri Oct 16; cover Erika Deleon; Chicago (CT)
CAREWELL = "ooo-coverage-carewell-001"  # day off Tue Oct 13; cover Bimala Cherian; Dubai (GST)

# event id -> (title, weekday and date, local start, local end, UTC start, UTC end)
MEETINGS = {
    ACME: {"ev_425": ("Pricing page refresh", "Wednesday, October 14", "11:30 AM", "12:15 PM", "16:30", "17:15"),
           "ev_426": ("Security questionnaire walkthrough", "Thursday, October 15", "12:45 PM", "1:30 PM",
                      "17:45", "18:30")},
    CAREWELL: {"ev_677": ("Partner programme kickoff", "Tuesday, October 13", "08:45", "09:30", "04:45", "05:30"),
               "ev_678": ("Onboarding revamp", "Tuesday, October 13", "13:15", "14:00", "09:15", "10:00")},
}
Body = Callable[[str, str, str, str, str, str], str]  # title, day, start, end, utc start, utc end -> body


def _rewritten(task_id: str, text_of: Callable[[str], str]) -> Grade:
    """The reference, each handover mail's body ``text_of`` the event it is about (the reference adds the
    cover to an event, then mails its people)."""
    out = reference(task_id)
    event = None
    for step in out.steps:
        if step["name"] == "calendar_update_event":
            event = step["arguments"]["event_id"]
        elif step["name"] == "mail_send_message":
            step["arguments"]["body"] = text_of(str(event))
    return grade_of(task_id, out)


def mailed(task_id: str, body: Body) -> Grade:
    """The reference, each handover mail's body written by ``body`` for the meeting it is about."""
    def text_of(event: str) -> str:
        assert event in MEETINGS[task_id], event
        return body(*MEETINGS[task_id][event])
    return _rewritten(task_id, text_of)


def caught_by(grade: Grade, *check_ids: str) -> None:
    hack_fails(grade)
    failed = {c.id for c in grade.results() if c.status == "fail"}
    assert set(check_ids) <= failed, (check_ids, failed, grade.summary())


# ------------------------------------------------------------------------------------ hacks
def test_another_person_named_as_the_runner_fails() -> None:
    caught_by(mailed(ACME, lambda t, d, s, *_: f"Hi all, Nicholas Nichols will run {t} on {d} at {s} CT while "
                     "I'm on leave.\n\nThanks,\nMitchell"), "handed_1", "handed_2")


def test_the_meeting_called_cancelled_fails() -> None:
    caught_by(mailed(ACME, lambda t, d, s, *_: f"Hi all, {t} on {d} at {s} CT is cancelled while I'm on leave."),
              "handed_1", "handed_2")


@pytest.mark.parametrize("said", ["is postponed until I'm back", "won't take place while I'm out",
                                  "is called off while I'm on leave"])
def test_the_meeting_called_off_in_other_words_fails(said: str) -> None:
    caught_by(mailed(ACME, lambda t, d, s, *_: f"Hi all, Erika Deleon is covering for me. {t} on {d} at {s} CT "
                     f"{said}."), "handed_1", "handed_2")


def test_no_runner_named_fails() -> None:
    caught_by(mailed(ACME, lambda t, d, s, *_: f"Hi all, {t} on {d} at {s} CT goes ahead while I'm on leave."),
              "handed_1", "handed_2")


def test_the_cover_named_only_in_the_greeting_fails() -> None:
    caught_by(mailed(ACME, lambda t, d, s, *_: f"Hi Erika and all, {t} on {d} at {s} CT goes ahead while I'm on "
                     "leave."), "handed_1", "handed_2")


@pytest.mark.parametrize("body", [
    # a wrong time, a wrong day, several times for one meeting, a leave label on a day that is no leave day
    lambda t, d, s, *_: f"Hi all, Erika Deleon will run {t} on {d} at 9:00 AM CT while I'm on leave.",
    lambda t, d, s, *_: f"Hi all, Erika Deleon will run {t} on Monday, October 19 at {s} CT.",
    lambda t, d, s, *_: f"Hi all, Erika Deleon will run {t} on {d} at {s}, 2:00 PM or 3:00 PM CT.",
    lambda t, d, s, *_: f"Hi all, Erika Deleon will run {t} on {d} at {s} CT, and again on Tuesday, "
                        "October 20 while I'm back.",
    lambda t, d, s, *_: f"Hi all, I'm back Thursday, October 22, so Erika Deleon will run {t} at {s} CT.",
    lambda t, d, s, e, us, ue: f"Hi all, Erika Deleon will run {t} on {d} at 10:00-10:45 UTC.",
    lambda t, d, s, *_: f"Hi all, Erika Deleon will run {t} on {d} at {s} Eastern.",
])
def test_wrong_days_and_times_still_fail(body: Body) -> None:
    hack_fails(mailed(ACME, body))


def test_wrong_cover_in_carewell_fails() -> None:
    caught_by(mailed(CAREWELL, lambda t, d, s, *_: f"Hi all, Saanvi will run {t} on {d} at {s} GST while I'm "
                     "out."), "handed_1", "handed_2")


# ------------------------------------------------------------------------------------ correct mails
@pytest.mark.parametrize("body", [
    lambda t, d, s, e, us, ue: f"Hi all - I'm on leave October 14-16, so Erika Deleon will run {t} on {d}, {s} CT "
                               f"({us} UTC). Thanks, Mitchell",
    lambda t, d, s, *_: f"Hi all, Erika Deleon will run {t} on {d} at {s} CT. I'm back Monday, October 19.",
    lambda t, d, s, *_: f"Hi all, while I'm out (Wednesday, October 14 to Friday, October 16) Erika Deleon will "
                        f"run {t} on {d} at {s} CT.",
    lambda t, d, s, *_: f"Hi all, Erika Deleon will run {t} on {d}, {s} Central.",
    lambda t, d, s, *_: f"Hi all, Erika Deleon will run {t} on {d}, {s} Central Time.",
    lambda t, d, s, e, us, ue: f"Hi all, Erika Deleon will run {t} on {d}, {us}-{ue} UTC.",
    lambda t, d, s, e, us, ue: f"Hi all, Erika Deleon will run {t} on {d} ({s}-{e} CT / {us}-{ue} UTC).",
    lambda t, d, s, *_: f"Hi all, {t} on {d} at {s} CT goes ahead as planned: Erika is running it while I'm away.",
    lambda t, d, s, *_: f"Hi all, {t} ({d}, {s} CT) will be chaired by Erika Deleon while I'm on leave; it is not "
                        "cancelled.",
])
def test_acme_handover_mails_pass(body: Body) -> None:
    correct_passes(mailed(ACME, body))


@pytest.mark.parametrize("body", [
    lambda t, d, s, *_: f"Hi all, Bimala Cherian will conduct the {t} on {d} at {s} GST in my absence.",
    lambda t, d, s, *_: f"Hi all, Bimala Cherian will run {t} on {d} at {s} GST while I'm out; I'm back on "
                        "Wednesday, October 14.",
    lambda t, d, s, e, *_: f"Hi all, Bimala Cherian will lead the {t} (Tue Oct 13, {s}-{e} GST) while I'm off.",
    lambda t, d, s, *_: f"Hi all, Bimala Cherian will run {t} on {d} at {s} (UTC+4).",
    lambda t, d, s, *_: f"Hi all, Bimala Cherian will run {t} on {d} at {s} Gulf Standard Time.",
    lambda t, d, s, e, us, ue: f"Hi all, Bimala Cherian will run {t} on {d} at {s} Dubai time ({us}-{ue} UTC).",
])
def test_carewell_handover_mails_pass(body: Body) -> None:
    correct_passes(mailed(CAREWELL, body))


def test_a_mail_to_the_cover_alone_may_say_you() -> None:
    """The attendees hear who runs it; the cover, in a mail of their own, is asked to run it ("you")."""
    out = reference(ACME)
    steps = []
    for step in out.steps:
        if step["name"] == "calendar_update_event":
            event = step["arguments"]["event_id"]
        if step["name"] != "mail_send_message":
            steps.append(step)
            continue
        t, d, s, *_ = MEETINGS[ACME][event]
        others = [e for e in step["arguments"]["to"] if e != "erika.deleon@acme.test"]
        steps += [{"name": "mail_send_message", "arguments": {
                      "to": others, "subject": "While I am on leave",
                      "body": f"Hi both, Erika Deleon will run {t} on {d} at {s} CT while I'm away."}},
                  {"name": "mail_send_message", "arguments": {
                      "to": ["erika.deleon@acme.test"], "subject": f"Could you run {t}?",
                      "body": f"Hi Erika, could you run {t} on {d} at {s} CT while I'm on leave? I've added you "
                              "to the invite. Thanks!"}}]
    out.steps = steps
    correct_passes(grade_of(ACME, out))


def test_a_possible_reschedule_is_no_cancellation() -> None:
    correct_passes(mailed(ACME, lambda t, d, s, *_: f"Hi all, Erika Deleon will run {t} on {d} at {s} CT while I'm "
                          "away. If the time doesn't suit, she may reschedule it."))


@pytest.mark.parametrize("body", [
    lambda t, d, s, *_: f"Hi all,\n\nWhile I'm out of office (Oct 14-16), Erika Deleon is covering {t} on {d} at {s} "
                        "CT.\n\nBest,\nMitchell",
    lambda t, d, s, e, *_: f"Hi all, quick heads-up: I'm on PTO Wednesday through Friday. {t} ({d}, {s}–{e} CT) is "
                           "still on; Erika Deleon will chair it.",
    lambda t, d, s, *_: f"Hello, I'm away from Oct 14 to Oct 16. Erika Deleon has kindly agreed to run {t} ({d} at "
                        f"{s} CT) in my place.",
    lambda t, d, s, *_: f"Hi all, I've handed {t} ({d}, {s} CT) over to Erika Deleon while I'm on leave.",
    lambda t, d, s, *_: f"Hi all, {t} on {d} at {s} CT: Erika Deleon will take over as host. Nothing is cancelled.",
    lambda t, d, s, *_: f"Hi all, Erika Deleon will be taking {t} on {d} at {s} CT; Laura will take the notes.",
    lambda t, d, s, *_: f"Hi all, {t} is still on for {d} at {s} CT. Erika Deleon has it covered.",
])
def test_more_handover_wordings_pass(body: Body) -> None:
    correct_passes(mailed(ACME, body))


@pytest.mark.parametrize("body", [
    lambda t, d, s, *_: f"Hi all, Erika Deleon and Nicholas Nichols will run {t} on {d} at {s} CT.",
    lambda t, d, s, *_: f"Hi all, Erika Deleon will run {t} on {d} at {s} CT or Brian Gonzalez will.",
    lambda t, d, s, *_: f"Hi all, {t} on {d} at {s} CT is postponed; Erika Deleon will run it when it happens.",
    lambda t, d, s, *_: f"Hi all, Erika Deleon will run {t} on {d} at {s} CT. Actually, it's cancelled.",
    lambda t, d, s, *_: f"Hi all, Melinda Bell will run {t} on {d} at {s} CT.",  # the manager, not the cover
])
def test_a_second_runner_or_a_cancellation_beside_the_cover_fails(body: Body) -> None:
    caught_by(mailed(ACME, body), "handed_1")


FORGE = "ooo-coverage-forge-001"  # de_DE; day off Tue 13.10.; cover Damian Wähner B.Eng.
COUNSEL = "ooo-coverage-counsel-001"  # en_GB; day off Thu 15 October; cover Beth Rose


def mailed_each(task_id: str, bodies: dict[str, str]) -> Grade:
    """The reference, each handover mail's body the one ``bodies`` gives for its meeting."""
    return _rewritten(task_id, bodies.__getitem__)


def test_a_german_handover_passes_and_a_german_cancellation_fails() -> None:
    correct_passes(mailed_each(FORGE, {
        "ev_997": "Hallo zusammen, Damian Wähner wird das Vendor shortlist review am Dienstag, 13.10., um 14:45 Uhr "
                  "(08:45 ET) leiten, während ich im Urlaub bin. Viele Grüße, Kevin",
        "ev_998": "Hallo zusammen, das Partner programme kickoff am Dienstag, 13.10., um 08:15 Uhr übernimmt Damian "
                  "Wähner. Viele Grüße, Kevin"}))
    caught_by(mailed_each(FORGE, {
        "ev_997": "Hallo zusammen, das Vendor shortlist review am Dienstag, 13.10., um 14:45 Uhr (08:45 ET) fällt aus.",
        "ev_998": "Hallo zusammen, das Partner programme kickoff am Dienstag, 13.10., um 08:15 Uhr wird abgesagt."}),
        "handed_1", "handed_2")


def test_a_british_handover_with_the_day_off_and_the_return_passes() -> None:
    correct_passes(mailed_each(COUNSEL, {
        "ev_306": "Hi all, I'm off on Thursday 15 October (back Friday 16 October), so Beth Rose will chair Support "
                  "tooling review on 15/10 at 10:30 UK time.",
        "ev_307": "Hi all, I'm on leave on 15 October. Beth Rose will run Budget reforecast on Thursday 15 October, "
                  "14:30-15:15 London time (17:30 GST)."}))


def test_zones_as_words_offsets_and_ranges_are_read() -> None:
    from officesim.grading.calendar_checks import zoned_times

    assert zoned_times("11:30 AM Central") == {((11, 30), "America/Chicago")}
    assert zoned_times("at 08:45 (UTC+4)") == {((8, 45), "UTC+04:00")}
    assert zoned_times("16:30-17:15 UTC") == {((16, 30), "UTC"), ((17, 15), "UTC")}
    assert zoned_times("(Tue Oct 13, 08:45-09:30 GST)") == {((8, 45), "Asia/Dubai"), ((9, 30), "Asia/Dubai")}
    assert zoned_times("1:00-1:45 PM CT") == {((13, 0), "America/Chicago"), ((13, 45), "America/Chicago")}
    assert zoned_times("11:30 Chicago time; 12:30 Toronto time") == {((11, 30), "America/Chicago"),
                                                                      ((12, 30), "America/Toronto")}
    assert zoned_times("16:30 UTC - 17:15 UTC") == {((16, 30), "UTC"), ((17, 15), "UTC")}  # no UTC-17:15 offset
    assert zoned_times("Oct 14 - 16:30 UTC") == {((16, 30), "UTC")}  # the day is no range's start
    assert zoned_times("à 16:00 et 17:00") == set()


def test_a_mail_in_capitals_names_the_cover_and_a_will_is_no_will() -> None:
    correct_passes(mailed(ACME, lambda t, d, s, *_: f"HI ALL, ERIKA DELEON WILL RUN {t.upper()} ON {d.upper()} AT "
                          f"{s} CT WHILE I'M ON LEAVE."))
