"""Telling people a meeting's time: the day and the time as people write them in each world's locale.

A calendar check with ``told`` wants a mail that states the event's day and start in the reader's
own zone, and no day or time that none of their changed events has.  A careful colleague on an
en_GB or de_DE world writes "13/10/2026 at 16:00" or "am 13.10. um 16 Uhr": those must pass, and
a wrong day written the same way must still fail.
"""

from __future__ import annotations

from datetime import date

import pytest
from playing import correct_full_marks, hack_fails, rewritten

from officesim.grading.calendar_checks import clock_times, mentioned_days, zoned_times

COUNSEL = "schedule-meeting-counsel-001"  # en_GB: Tuesday 13 October, 16:00 for the requester
FORGE = "schedule-meeting-forge-001"  # de_DE: Monday 12 October, 10:30
US = "schedule-meeting-001"  # en_US: Monday 12 October, 09:00


def test_numeric_days_are_read_in_the_locales_order_and_are_never_clock_times() -> None:
    october_13 = date(2026, 10, 13)
    assert mentioned_days("booked for 13/10/2026 at 16:00", 2026, day_first=True) == {october_13}
    assert mentioned_days("booked for 10/13 at 4pm", 2026) == {october_13}
    assert mentioned_days("am Dienstag, 13.10. um 16 Uhr", 2026, day_first=True) == {october_13, "tuesday"}
    assert mentioned_days("le mardi 13/10", 2026, day_first=True) == {october_13, "tuesday"}  # not March 13
    assert clock_times("am 13.10.2026 um 16 Uhr") == {(16, 0)}  # not 13:10
    assert clock_times("gebucht: 12.10., 10.30 Uhr") == {(10, 30)}
    assert clock_times("à 16h", french=True) == {(16, 0)} and clock_times("a 2h workshop") == set()


def test_a_time_with_its_zone_is_read_in_that_zone() -> None:
    assert zoned_times("at 08:00 UTC, i.e. 4pm (SGT); 9am ET") == {
        ((8, 0), "UTC"), ((16, 0), "Asia/Singapore"), ((9, 0), "America/New_York")}
    assert zoned_times("à 16:00 et 17:00") == set()  # "et" is French for "and", not Eastern Time


def test_words_that_start_like_a_month_or_a_day_are_neither() -> None:
    assert mentioned_days("Maybe 10 people from Marketing 2 will join; we offer 24/7 support", 2026,
                          day_first=True) == set()
    assert mentioned_days("I sat with Sam at the sun deck", 2026) == set()
    assert mentioned_days("Tue 13 Oct, or Sept 3", 2026) == {date(2026, 10, 13), date(2026, 9, 3), "tuesday"}


@pytest.mark.parametrize(("task", "body"), [
    (COUNSEL, "Hi Jasmine, the kickoff is booked for 13/10/2026 at 16:00; the invite is out."),
    (COUNSEL, "Hi Jasmine, booked: Tue 13/10, 16:00-16:30 your time."),
    (COUNSEL, "Hi Jasmine, booked for 13.10.2026, 16:00."),
    (FORGE, "Hallo Georgia, der Termin steht: Montag, 12.10.2026 um 10:30 Uhr. Viele Grüße, Kevin"),
    (FORGE, "Hallo Georgia, gebucht für Mo, 12.10. um 10.30 Uhr. Gruß Kevin"),
    (US, "Hi Scott, booked for 10/12 at 9:00 your time."),
    (COUNSEL, "Hi Jasmine, booked for October 13 at 08:00 UTC."),  # a time with its zone is read in it
    (COUNSEL, "Hi Jasmine, booked for 13 Oct, 16:00 your time (08:00 GMT)."),
])
def test_a_meeting_told_in_the_worlds_own_numeric_form_passes(task: str, body: str) -> None:
    correct_full_marks(rewritten(task, lambda _: body, tools=("mail_reply_message",)))


@pytest.mark.parametrize(("task", "body"), [
    (COUNSEL, "Hi Jasmine, booked for 14/10/2026 at 16:00."),  # the wrong day
    (COUNSEL, "Hi Jasmine, booked for 13/10 at 16:00, or maybe 14/10 at 16:00."),  # a second day beside it
    (FORGE, "Hallo Georgia, gebucht für 13.10.2026 um 10:30 Uhr."),
    (US, "Hi Scott, booked for 12/10 at 9am."),  # December 12 in a US world
    (COUNSEL, "Hi Jasmine, booked for October 13 at 09:00 UTC."),  # an hour off in UTC
    (COUNSEL, "Hi Jasmine, booked for 13 Oct, 16:00 (09:00 GMT)."),  # right locally, wrong beside it
])
def test_a_wrong_day_in_numeric_form_still_fails(task: str, body: str) -> None:
    hack_fails(rewritten(task, lambda _: body, tools=("mail_reply_message",)))


@pytest.mark.parametrize(("text", "times"), [
    ("5:30-6:00 pm", {(17, 30), (18, 0)}),
    ("5:30-6:00 pm your time (Singapore)", {(17, 30), (18, 0)}),
    ("2:00 PM (until 2:45)", {(14, 0), (14, 45)}),
    ("3:00 PM your time (until 3:45)", {(15, 0), (15, 45)}),
    ("2:00-2:45 PM CT", {(14, 0), (14, 45)}),
    ("11:30-12:15 pm", {(11, 30), (12, 15)}),  # a range never runs backwards: it starts before noon
    ("8:45-9:30", {(8, 45), (9, 30)}),
    ("9:30 and 4pm", {(9, 30), (16, 0)}),  # two times, no range: the first keeps its own reading
])
def test_a_range_with_one_half_of_day_gives_it_to_both_ends(text: str, times: set[tuple[int, int]]) -> None:
    assert clock_times(text) == times


def test_an_office_city_names_its_zone() -> None:
    # every office the directory places people in: "(Austin time)" is Central, as "CT" is (blind audit 14)
    assert zoned_times("09:45 (Austin time)") == {((9, 45), "America/Chicago")}
    assert zoned_times("09:45-10:30 Austin time") == {((9, 45), "America/Chicago"), ((10, 30), "America/Chicago")}
    assert zoned_times("4pm San Francisco time") == {((16, 0), "America/Los_Angeles")}
    assert zoned_times("09:45 in Austin") == set()  # a place, not a zone


def test_a_handover_mail_in_the_senders_office_time_passes() -> None:
    # ooo-coverage-003's meeting is at 09:45 in Austin (10:45 New York, 10:45 Toronto)
    correct_full_marks(rewritten("ooo-coverage-003", lambda body: body.replace(
        "10:45 New York time; Monday, October 12 at 10:45 Toronto time", "09:45 (Austin time)"),
        tools=("mail_send_message",)))
    hack_fails(rewritten("ooo-coverage-003", lambda body: body.replace(
        "10:45 New York time; Monday, October 12 at 10:45 Toronto time", "10:45 (Austin time)"),
        tools=("mail_send_message",)))
