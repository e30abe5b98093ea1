"""``Caseless``: the grading's long word lists searched over the lowercased text, with the original's positions."""

from __future__ import annotations

import re

import pytest

from officesim.grading.caseless import Caseless
from officesim.grading.claims import EXCLUSION, POSSIBLE, without_possible

TEXTS = [
    "Sales is over by $26,300, NOT Legal; Marketing DOESN'T count.",
    "İstanbul office: Not included (the İ lowers to two characters, so the slow way reads it)",
    "Außer Marketing, letzten Monat: NICHT AUSGESCHLOSSEN",
    "If the accruals are EXCLUDED: $15,000.",
]


@pytest.mark.parametrize("text", TEXTS)
def test_spans_are_those_of_the_case_insensitive_pattern(text: str) -> None:
    slow = re.compile(EXCLUSION.pattern, re.IGNORECASE)
    assert [m.span() for m in EXCLUSION.finditer(text)] == [m.span() for m in slow.finditer(text)]
    assert [m.span() for m in EXCLUSION.finditer(text)], text  # every text has a negation


def test_blanking_keeps_the_length_and_the_other_characters() -> None:
    text = "Oct 8 ISN'T RULED OUT, and Oct 21 Is Still Possible."
    blanked = without_possible(text)
    assert len(blanked) == len(text)
    assert blanked.startswith("Oct 8 ") and "and Oct 21 " in blanked
    assert "RULED" not in blanked and "Possible" not in blanked
    assert POSSIBLE.search("nothing here") is None


def test_a_pattern_with_upper_case_letters_is_refused() -> None:
    with pytest.raises(ValueError, match="lower case; it has 'W'"):
        Caseless(r"\bletzte\s+Woche\b")
    assert Caseless(r"\bnot\S*\W").search("NOTx!") is not None  # escapes such as \S and \W are no letters
