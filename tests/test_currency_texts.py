"""Generated texts write amounts in the world's own currency: the travel policy doc, the probes' figures."""

from __future__ import annotations

from functools import partial

import pytest

from officesim.apps.money import money
from officesim.probes import wording
from officesim.taskgen.policy import policy_text

HOTEL, MEALS = {"London": 390, "Berlin": 1200}, {"London": 75}


def test_policy_text_in_dollars_by_default() -> None:
    """Without the world's formatter the doc reads as it always did on a USD world."""
    text = policy_text("2026", HOTEL, MEALS, 0.67)
    for line in ("- London: $390 per night", "- Berlin: $1,200 per night", "- Anywhere else: $180 per night",
                 "- London: $75 per day", "- Anywhere else: $60 per day", "Personal car: $0.67 per mile.",
                 "every expense above $75.", "Trips over $2,500 need approval"):
        assert line in text
    assert policy_text("2026", HOTEL, MEALS, 0.67, partial(money, currency="USD", locale="en_US")) == text


@pytest.mark.parametrize(("currency", "locale", "lines"), [
    ("GBP", "en_GB", ["- London: £390 per night", "Personal car: £0.67 per mile.", "Trips over £2,500 need"]),
    ("INR", "en_IN", ["- Berlin: ₹1,200 per night", "every expense above ₹75.", "Anywhere else: ₹60 per day"]),
    ("EUR", "de_DE", ["- Berlin: 1.200 € per night", "Personal car: 0,67 € per mile.", "Trips over 2.500 € need"]),
    ("EUR", "fr_FR", ["- Berlin: 1 200 € per night", "Personal car: 0,67 € per mile.", "Trips over 2 500 € need"]),
])
def test_policy_text_money_in_the_worlds_currency(currency: str, locale: str, lines: list[str]) -> None:
    text = policy_text("2026", HOTEL, MEALS, 0.67, partial(money, currency=currency, locale=locale))
    assert "$" not in text
    for line in lines:
        assert line in text


def test_probe_money_unchanged_in_dollars_and_local_elsewhere() -> None:
    """The probes' figures: byte-identical on USD worlds, the world's own spelling on the others."""
    for value in (26300.0, 7614.19, 0.5, -1200.0, 1234567.0):
        old = f"${value:,.2f}" if value != int(value) else f"${int(value):,}"
        assert wording.money(value) == old
    assert wording.money(26300.0, "EUR", "de_DE") == "26.300 €"
    assert wording.money(7614.19, "EUR", "fr_FR") == "7 614,19 €"
    assert wording.money(4820000.0, "INR", "en_IN") == "₹48,20,000"
    assert wording.money(31100.0, "GBP", "en_GB") == "£31,100"


def test_the_supporting_figures_variant_cites_a_name_only_as_a_whole_word() -> None:
    """'Ann' is not in a row about "Annette": citing that row's figures would make the variant a
    different answer (and blame the grader for rejecting it)."""
    from types import SimpleNamespace

    from officesim.probes.variants import supporting_line

    rows = [{"rows": [["Annette Ray", 4200], ["Ann Lee", 3100]]}]
    ctx = SimpleNamespace(facts=SimpleNamespace(names=["Ann"]), ref=SimpleNamespace(read_results=lambda: rows),
                          money=lambda v: f"${v:,.0f}")
    assert supporting_line(ctx, "The top seller is Ann.") == \
        "For reference, the source shows these figures for Ann: $3,100."  # type: ignore[arg-type]
    assert supporting_line(ctx, "The top seller is Annette.") is None  # type: ignore[arg-type]
