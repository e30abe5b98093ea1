"""Dates and phone numbers as careful people write them are read as what they are.

Each of these forms used to be marked wrong: a date's full stop cut it into two sentences ("Oct. 21,
2026", "5. Oktober 2026"), "21-Oct-2026" read as the figure -2026, "10/21" and "01/10/26" were not
dates at all, and a phone number in its national form ("020 7946 0193", with the trunk prefix in
place of the country code) did not match the number.  Wrong dates and other numbers still fail.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pytest
from test_facts_grading import fails, passes, replay, task

from officesim.grading.claims import read_dates, read_loose_dates, segments
from officesim.grading.facts import phone_parts, phone_regex
from officesim.grading.normalize import extract_dates, full_year


@pytest.mark.parametrize(("text", "day_first", "expected"), [
    ("Due 1-Oct-2026.", False, date(2026, 10, 1)),
    ("Due 01-Oct-26, thanks", True, date(2026, 10, 1)),
    ("Due 01/10/26", True, date(2026, 10, 1)),
    ("Due 01/10/26", False, date(2026, 1, 10)),
    ("Fällig am 01.10.26.", True, date(2026, 10, 1)),
    ("Due 13 Oct. 2026.", True, date(2026, 10, 13)),
    ("schließt am 30. Oktober.", True, date(2026, 10, 30)),  # German and French day and month, no year
    ("am Freitag, 30. Oktober", True, date(2026, 10, 30)),
    ("le 1er mars", True, date(2026, 3, 1)),
])
def test_dates_with_hyphens_and_two_digit_years_are_read(text: str, day_first: bool, expected: date) -> None:
    assert read_dates(text, day_first=day_first) == [expected]
    assert [f.text for s in segments(text, day_first=day_first) for f in s.figures] == []  # no "-2026"


def test_two_digit_years_follow_the_posix_rule_and_only_where_unambiguous() -> None:
    assert (full_year("26"), full_year("69"), full_year("70"), full_year("2026")) == (2026, 2069, 1970, 2026)
    assert extract_dates("Oct 13, 26 deals closed") == []  # 26 is a count here, not a year
    assert read_dates("version 1.10.26.3") == []
    assert read_dates("ref 12-10-26a") == []


@pytest.mark.parametrize(("text", "expected"), [
    ("The renewal is due Oct. 13, 2026, per the contract.", date(2026, 10, 13)),
    ("Due Sept. 3.", date(2026, 9, 3)),
    ("Met Mon. Oct. 5 at noon.", date(2026, 10, 5)),
    ("Fällig am 5. Oktober 2026.", date(2026, 10, 5)),
    ("Seit 3. Okt. 2026 offen.", date(2026, 10, 3)),
    ("Le 5 oct. 2026 au plus tard.", date(2026, 10, 5)),
])
def test_a_full_stop_inside_a_date_does_not_end_the_sentence(text: str, expected: date) -> None:
    read = segments(text, day_first=True)
    assert [s.text for s in read] == [text]
    assert read[0].dates == [expected]


def test_sentences_still_end_after_a_figure_or_a_month_before_another_word() -> None:
    assert [s.text for s in segments("Total is 5. Next item.")] == ["Total is 5.", "Next item."]
    assert [s.text for s in segments("We closed in Jan. The rest waits.")] == ["We closed in Jan.", "The rest waits."]


def test_day_and_month_without_a_year_are_loose_dates_in_the_locale_order() -> None:
    assert read_loose_dates("due 8/10", day_first=True) == [date(2026, 10, 8)]
    assert read_loose_dates("due 8/10") == [date(2026, 8, 10)]
    assert read_loose_dates("due 13/10") == [date(2026, 10, 13)]  # over 12: the day, in any locale
    assert read_loose_dates("13/10/2026") == []  # a full date, read as one
    segment = segments("3/4 of the team is ready; due Oct 13")[0]
    assert segment.dates == [date(2026, 10, 13)] and segment.loose_dates == [date(2026, 3, 4)]


LAUNCH = "dm-answer-question-004"  # Project Lantern launches on 2026-10-21 (en_US); 2026-10-08 is the wrong reading


@pytest.mark.parametrize("text", [
    "Hi Alexis, the launch is Oct. 21, 2026.",
    "Hi Alexis, it's 10/21.",
    "Hi Alexis, it's 21-Oct-2026.",
    "Hi Alexis, it's 10/21/26.",
    "Hi Alexis, it's Wed. Oct. 21.",
    "Hi Alexis, it's 10/21, and about 3/4 of the prep is done.",  # a ratio is no stray date
])
def test_the_launch_date_written_in_other_forms_passes(text: str) -> None:
    assert passes(replay(task(LAUNCH), text=text))


@pytest.mark.parametrize("text", [
    "Hi Alexis, it's 10/8.",
    "Hi Alexis, 10/21 or 10/8?",
    "Hi Alexis, it's Oct. 8, 2026.",
    "Hi Alexis, it's 10/21 or 10/22.",
    "Hi Alexis, it's 10/20, 10/21, 10/22.",  # a list of guesses, none of them the wrong reading
    "Hi Alexis, it's 10/21-10/23.",
])
def test_the_wrong_or_a_hedged_launch_date_fails(text: str) -> None:
    assert fails(replay(task(LAUNCH), text=text))


@pytest.mark.parametrize(("phone", "parts"), [
    ("+33 1 78 34 05 90", ("33", "178340590", "0")),
    ("+49 30 9609791", ("49", "309609791", "0")),
    ("+44 20 7946 0193", ("44", "2079460193", "0")),
    ("+1-555-710-5729", ("1", "5557105729", "1")),
    ("+91 98813 30393", ("91", "9881330393", "0")),
    ("555-710-5729", ("", "5557105729", "")),  # no country code: the last ten digits, as before
])
def test_a_phone_number_is_split_by_its_countrys_numbering_plan(phone: str, parts: tuple[str, str, str]) -> None:
    assert phone_parts(phone) == parts


@pytest.mark.parametrize(("phone", "same", "other"), [
    ("+33 1 78 34 05 90", ["01 78 34 05 90", "+33 (0)1 78 34 05 90", "0033 1 78 34 05 90", "+33178340590"],
     ["+33 1 78 34 05 91", "201 78 34 05 90"]),
    ("+49 30 9609791", ["030 9609791", "+49 (0)30 9609791", "+49-30-9609791"], ["1030 9609791", "030 9609792"]),
    ("+44 20 7946 0193", ["020 7946 0193", "+44 (0) 20 7946 0193", "(020) 7946-0193", "0044 20 7946 0193"],
     ["120 7946 0193", "+44 20 7946 01934"]),
    ("+1-555-710-5729", ["(555) 710-5729", "555.710.5729", "+1 555 710 5729", "1-555-710-5729"],
     ["2555-710-5729"]),
])
def test_a_phone_number_matches_in_its_national_and_international_forms(phone: str, same: list[str],
                                                                        other: list[str]) -> None:
    pattern = re.compile(phone_regex(phone))
    assert [t for t in same if not pattern.search(t)] == []
    assert [t for t in other if pattern.search(t)] == []


PHONE = "inbox-triage-lantern-002"  # Nathalie Turpin asks for Adrien-Hugues Diaz's number: +33 1 81 52 74 22 (fr_FR)


def _reply_with(number: str) -> dict[str, Any]:
    def edit(arguments: dict[str, Any]) -> dict[str, Any]:
        body = arguments.get("body", "")
        return {**arguments, "body": body.replace("+33 1 81 52 74 22", number)} if "81 52" in body else arguments
    return {name: edit for name in ("mail_reply_message", "mail_send_message")}


@pytest.mark.parametrize("number", ["01 81 52 74 22", "+33 (0)1 81 52 74 22", "0181527422"])
def test_the_phone_number_in_its_french_national_form_passes(number: str) -> None:
    assert passes(replay(task(PHONE), edit=_reply_with(number)))


def test_another_phone_number_fails() -> None:
    grade = replay(task(PHONE), edit=_reply_with("01 81 52 74 23"))
    assert not passes(grade)
    assert "does not state" in next(r.reason for r in grade.results() if r.id == "answered_2")


SIGNATURE = "contact-from-signature-forge-003"  # the signature gives +49 88 9463 7898 (de_DE)
EXACT = "contact-from-signature-forge-001"  # +49 83 6640 9169, and the instruction says "use it exactly as written"


def _contact_phone(number: str) -> dict[str, Any]:
    return {"crm_create_contact": lambda arguments: {**arguments, "phone": number}}


@pytest.mark.parametrize("number", ["088 9463 7898", "+49 (0)88 9463 7898", "+498894637898", "0049 88 9463 7898"])
def test_a_contacts_phone_stored_in_its_german_national_form_passes(number: str) -> None:
    assert passes(replay(task(SIGNATURE), edit=_contact_phone(number)))


@pytest.mark.parametrize("number", ["088 9463 7899", "+49 88 9463 7898 ext. 12", "188 9463 7898"])
def test_a_contacts_phone_that_is_another_number_fails(number: str) -> None:
    assert not passes(replay(task(SIGNATURE), edit=_contact_phone(number)))


@pytest.mark.parametrize("number", ["083 6640 9169", "+498366409169", "0049 83 6640 9169"])
def test_asked_for_exactly_as_written_another_form_of_the_number_fails(number: str) -> None:
    assert not passes(replay(task(EXACT), edit=_contact_phone(number)))
    assert passes(replay(task(EXACT), edit=_contact_phone("+49 83 6640 9169")))


@pytest.mark.parametrize(("text", "expected"), [
    ("Der Launch ist am 21.10.", [date(2026, 10, 21)]),
    ("Mi., 21.10. um 10 Uhr", [date(2026, 10, 21)]),
    ("Termin: 21.10., danach die Abnahme", [date(2026, 10, 21)]),
    ("The price is 21.10.", []),  # an amount, in any world
])
def test_a_german_day_and_month_after_a_date_word_is_a_loose_date(text: str, expected: list[date]) -> None:
    from officesim.grading.claims import read_figures
    from officesim.grading.normalize import reading_locale

    with reading_locale("de_DE"):
        assert [d for s in segments(text, day_first=True) for d in s.loose_dates] == expected
        assert any(f.value == 21.1 for f in read_figures(text)) == (not expected)
    with reading_locale("en_US"):  # a dot there is a decimal point
        assert [d for s in segments(text, day_first=True) for d in s.loose_dates] == []


CLOSE = "late-change-forge-004"  # Kitzmann - Tooling order now closes 2026-10-30 (de_DE); 10-16 was the old date


def mailed(body: str) -> dict[str, Any]:
    """An edit for ``replay``: the reference's mail sent with ``body`` instead."""
    return {"mail_send_message": lambda arguments: {**arguments, "body": body}}


@pytest.mark.parametrize("body", [
    "Hallo Georgia,\n\nerledigt: Kitzmann - Tooling order hat jetzt den 30.10. als Abschlussdatum.\n\nViele Grüße",
    "Hallo Georgia,\n\nerledigt: Kitzmann - Tooling order schließt am 30. Okt. 2026.\n\nViele Grüße",
    "Hallo Georgia,\n\nerledigt: Kitzmann - Tooling order schließt am Freitag, 30. Oktober.\n\nViele Grüße",
    "Hi Georgia, done: Kitzmann - Tooling order now closes on 30/10.",
    "Hi Georgia, done: Kitzmann - Tooling order now closes Fri. Oct. 30, 2026.",
])
def test_the_close_date_told_the_german_or_the_english_way_passes(body: str) -> None:
    assert passes(replay(task(CLOSE), edit=mailed(body)))


def test_the_old_close_date_told_the_german_way_fails() -> None:
    grade = replay(task(CLOSE), edit=mailed("Hallo Georgia,\n\nKitzmann - Tooling order schließt am 16.10.\n\nGrüße"))
    assert fails(grade)
    assert "2026-10-16" in next(r.reason for r in grade.results() if r.id == "told")
