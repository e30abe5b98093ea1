"""Amounts written the way careful people write them, on every locale we ship, and lists that stay lists.

Space grouping (plain, no-break, narrow no-break or thin space) is the standard form in fr_FR and
allowed in German (DIN 5008) and in SI/ISO English; Swiss texts group with an apostrophe.  The two
figure readers (``claims.read_figures`` for facts, ``normalize.stated_numbers`` for answers) must
read such an amount as one figure, and agree.  The other side: a text listing figures (ids, rooms,
years, phone numbers, IBANs) must not merge them into one big figure that could satisfy a fact.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from test_facts_grading import fails, passes, replay, task

from officesim.grading.claims import read_figures
from officesim.grading.normalize import extract_numbers, reading_locale, stated_numbers, text_has_number

WORLDS = Path(__file__).resolve().parent.parent / "worlds"
SHIPPED = sorted({yaml.safe_load(p.read_text()).get("locale") or "en_US" for p in WORLDS.glob("*.yaml")})
NNBSP, NBSP, THIN = "\u202f", "\u00a0", "\u2009"


def figures(text: str, locale: str) -> list[float]:
    """The values ``read_figures`` reads in ``text`` in ``locale`` (the facts' reader)."""
    with reading_locale(locale):
        return [f.value for f in read_figures(text)]


def stated(text: str, locale: str) -> list[float]:
    """The figures ``stated_numbers`` reads (the answers' reader)."""
    with reading_locale(locale):
        return stated_numbers(text)


def test_the_shipped_locales_are_the_ones_tested() -> None:
    assert {"en_US", "en_GB", "en_IN", "de_DE", "fr_FR"} <= set(SHIPPED)


# ------------------------------------------------------------------------------ amounts read right
AMOUNTS = [
    ("Total: 180 000 €", 180_000),
    (f"Total: 180{NBSP}000 €", 180_000),
    (f"Total: 180{NNBSP}000 €", 180_000),
    (f"Total: 180{THIN}000 €", 180_000),
    ("Total 1 234,50 €", 1234.5),
    (f"Total 1{NNBSP}234,50{NBSP}€", 1234.5),
    ("EUR 1 234 567,89", 1_234_567.89),
    ("€ 2 500", 2500),
    ("$26 300", 26_300),
    ("£1 234.50", 1234.5),
    ("180 000 EUR", 180_000),
    ("CHF 180'000", 180_000),
    ("CHF 1'234.50", 1234.5),
    ("180\u2019000 CHF", 180_000),
    (f"Headcount 2{NNBSP}300", 2300),  # a typographic space groups even without a currency
    ("1'250 units", 1250),
]


@pytest.mark.parametrize("locale", SHIPPED)
@pytest.mark.parametrize(("text", "value"), AMOUNTS)
def test_space_and_apostrophe_grouped_amounts_are_one_figure(locale: str, text: str, value: float) -> None:
    assert figures(text, locale) == [value]
    assert stated(text, locale) == [value]
    with reading_locale(locale):
        assert text_has_number(text, value)
        assert [t.value for t in extract_numbers(text)] == [value]


@pytest.mark.parametrize("locale", ["de_DE", "fr_FR"])
@pytest.mark.parametrize("text", ["€180,000", "180,000 €", "EUR 180,000", "Total: 180,000 EUR"])
def test_an_english_amount_on_a_comma_decimal_world_is_grouping(locale: str, text: str) -> None:
    # a comma before exactly three digits in an amount: nobody writes money to three decimals
    assert figures(text, locale) == [180_000] and stated(text, locale) == [180_000]
    with reading_locale(locale):
        (figure,) = read_figures(text)
        assert 180.0 in figure.readings()  # the other reading stays for the facts (a 1,859 € litre)


@pytest.mark.parametrize("locale", ["de_DE", "fr_FR"])
def test_a_bare_comma_before_three_digits_stays_ambiguous_on_a_comma_decimal_world(locale: str) -> None:
    # no currency: the locale's reading first (12,45), the English one as the alternative
    with reading_locale(locale):
        (figure,) = read_figures("ratio 12,450")
        assert figure.value == 12.45 and 12450 in figure.readings()
    assert stated("ratio 12,450", locale) == [12.45]
    assert figures("1,5 Mio. €", locale) == [1_500_000]  # a scale: still a decimal comma


def test_the_locales_own_forms_still_read() -> None:
    assert figures("Summe 12.450 €", "de_DE") == [12_450]
    assert figures("1.234,56 €", "de_DE") == [1234.56]
    assert figures("2 300 employés", "fr_FR") == [2300]  # fr_FR groups bare figures with a plain space
    assert figures("₹48,20,000", "en_IN") == [4_820_000]
    assert figures("$1,234.56", "en_US") == [1234.56]


@pytest.mark.parametrize("locale", SHIPPED)
def test_the_two_readers_agree_on_typographic_spaces(locale: str) -> None:
    # read_figures normalises its text (NFKC), stated_numbers reads it as written: same figures
    for text in (f"180{NNBSP}000 €", f"Total: 12{NBSP}450", f"1{THIN}234{THIN}567,5 €", "Total: 180 000 €"):
        assert figures(text, locale) == stated(text, locale), text


# ------------------------------------------------------------------------------ lists stay lists
NOT_AMOUNTS = [
    ("Q3 2026 120 000", [120]),  # a year before the groups: which digits group is unclear ("000": see below)
    ("+49 30 1234 5678", []),  # a phone number
    ("Call 555 123 4567", [555, 123, 4567]),
    # a number written with a leading zero and three digits or more is a reference, no amount ("0044", "0523")
    ("IBAN DE89 3704 0044 0532 0130 00", [3704, 0]),
    ("ref INV-2026 0042", []),
    ("due 1 December 2026", []),
    ("12 2026", [12]),
    ("12 345 6789", [12, 345, 6789]),  # a four-digit group: not grouping at all
    (f"12{NBSP}345{NBSP}6789", [12, 345, 6789]),
    ("1 234 56 €", [1, 234, 56]),  # a two-digit group breaks it
    ("1'23", [1, 23]),
    ("€12 345 678 9", [12, 345, 678, 9]),
]


@pytest.mark.parametrize("locale", SHIPPED)
@pytest.mark.parametrize(("text", "values"), NOT_AMOUNTS)
def test_lists_of_figures_do_not_merge(locale: str, text: str, values: list[float]) -> None:
    assert figures(text, locale) == values


BARE_LISTS = [
    ("invoices 12 345 and 678", [12, 345, 678]),
    ("rooms 101 102 103", [101, 102, 103]),
    ("Headcount 2 300", [2, 300]),
    ("3 500 and 4 200", [3, 500, 4, 200]),
]


@pytest.mark.parametrize("locale", [loc for loc in SHIPPED if not loc.startswith("fr_")])
@pytest.mark.parametrize(("text", "values"), BARE_LISTS)
def test_a_plain_space_groups_only_an_amount_outside_fr(locale: str, text: str, values: list[float]) -> None:
    # a plain space also separates list items: without a currency or a decimal part it does not group
    assert figures(text, locale) == values
    assert stated(text, locale) == values


def test_fr_groups_bare_figures_but_not_across_other_digits() -> None:
    # fr_FR writes "12 345" for twelve thousand...; a digit group before or after still keeps them apart
    assert figures("factures 12 345 et 678", "fr_FR") == [12_345, 678]
    assert figures("Q3 2026 120 000", "fr_FR") == [120]
    assert figures("appelez le 01 23 45 67 89", "fr_FR") == [1, 23, 45, 67, 89]


def test_a_currency_does_not_glue_two_amounts() -> None:
    for locale in SHIPPED:
        assert figures("€12 345 and €678", locale) == [12_345, 678]
        assert figures("180 000 € and 2 500 €", locale) == [180_000, 2500]
        assert stated("180 000 € and 2 500 €", locale) == [180_000, 2500]


# ------------------------------------------------------------------------------ facts checks
@pytest.mark.parametrize("answer", ["87 950,00 € (3 invoices)", f"87{NNBSP}950 €", f"87{NBSP}950,00{NBSP}€",
                                    "€87,950 (3 invoices)", "EUR 87 950"])
def test_a_total_written_space_grouped_passes_on_a_german_world(answer: str) -> None:
    t = task("invoice-total-answer-forge-001")  # 87.950,00 € in the reference answer
    assert t.solution.answer == "87.950,00 € (3 invoices)"
    assert passes(replay(t, answer=answer)), answer


@pytest.mark.parametrize("answer", ["87 590,00 € (3 invoices)", f"88{NNBSP}950 €", "€87,590",
                                    "87 950 € or 57 200 €"])
def test_a_wrong_total_written_space_grouped_still_fails(answer: str) -> None:
    t = task("invoice-total-answer-forge-001")
    assert fails(replay(t, answer=answer)), answer


def test_an_overrun_written_the_si_way_passes_and_a_wrong_one_fails() -> None:
    t = task("budget-variance-answer-001")  # Sales, over by $26,300 (en_US)
    assert passes(replay(t, answer="Sales, over by $26 300"))
    assert passes(replay(t, answer=f"Sales, over by $26{THIN}300"))
    assert fails(replay(t, answer="Sales, over by $27 300"))  # ($26 400 is within the text tolerance, as $26,400 is)
    assert fails(replay(t, answer="Sales, over by $26 300 or $27 300"))
    # a bare plain-space figure in English is two figures (it may be a list): conservative, not credited
    assert fails(replay(t, answer="Sales, over by 26 300"))
