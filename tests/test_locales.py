"""Money in the world's locale, and the grader reading it back the same way.

A German world writes "12.450 €" and a rupee world "₹48,20,000" or "₹48.2L"; an agent that
copies those, or writes them its own way, must be graded on the value, in the world's locale.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
import yaml

from officesim import World, load_task
from officesim.apps.money import money
from officesim.grading import grade
from officesim.grading.normalize import (
    extract_dates,
    number_matches,
    parse_date,
    parse_number,
    reading_locale,
    stated_numbers,
    text_has_number,
    values_equal,
)
from officesim.resources import PACKAGED_WORLDS


@pytest.mark.parametrize(("amount", "currency", "locale", "text"), [
    (48200, "USD", "en_US", "$48,200"),
    (1234.5, "EUR", "en_US", "€1,234.50"),
    (48200, "GBP", "en_GB", "£48,200"),
    (12450, "CAD", "en_GB", "CAD 12,450"),
    (4820000, "INR", "en_IN", "₹48,20,000"),
    (125000000.5, "INR", "en_IN", "₹12,50,00,000.50"),
    (999, "INR", "en_IN", "₹999"),
    (1234.56, "EUR", "de_DE", "1.234,56 €"),
    (12450, "EUR", "de_DE", "12.450 €"),
    (12450, "CHF", "de_DE", "12.450 CHF"),
    (1234.56, "EUR", "fr_FR", "1 234,56 €"),
    (-300.5, "EUR", "fr_FR", "-300,50 €"),
    (-300.5, "USD", "en_US", "$-300.50"),  # as the first worlds wrote it
])
def test_money_follows_the_locale(amount: float, currency: str, locale: str, text: str) -> None:
    assert money(amount, currency, locale=locale) == text


def test_compact_rupees_are_lakh_and_crore_only_in_india() -> None:
    assert money(4820000, "INR", locale="en_IN", compact=True) == "₹48.2L"
    assert money(12000000, "INR", locale="en_IN", compact=True) == "₹1.2Cr"
    assert money(95000, "INR", locale="en_IN", compact=True) == "₹95,000"  # below a lakh: written out
    assert money(4820000, "INR", locale="en_US", compact=True) == "₹4,820,000"


@pytest.mark.parametrize(("locale", "text", "value"), [
    ("en_IN", "48.2L", 4.82e6),
    ("en_IN", "₹48,20,000", 4.82e6),
    ("en_IN", "1,2 Cr", 1.2e7),
    ("en_IN", "₹1.2Cr", 1.2e7),
    ("en_US", "1,2 Cr", 1.2e7),  # a comma before one digit and a scale is a decimal comma anywhere
    ("de_DE", "1.234,56 €", 1234.56),
    ("de_DE", "12.450 EUR", 12450),
    ("de_DE", "1,2 Mio. €", 1.2e6),
    ("de_DE", "48,2", 48.2),
    ("de_DE", "€48.2k", 48200),  # written the English way: still read
    ("de_DE", "$1,234.56", 1234.56),
    ("fr_FR", "1 234,56 €", 1234.56),
    ("fr_FR", "1\u202f234,56\u00a0€", 1234.56),  # CLDR's narrow no-break spaces
    ("fr_FR", "-1 200,50 €", -1200.5),
    ("en_GB", "£1.2k", 1200),
])
def test_locale_numbers_parse(locale: str, text: str, value: float) -> None:
    token = parse_number(text, locale)
    assert token is not None and number_matches(token, value, 1e-9), token


def test_locale_changes_the_reading_only_where_it_must() -> None:
    # en_US reads a dot as the decimal mark, as it always has; German reads it as grouping.
    assert parse_number("12.450 EUR", "en_US").value == 12.45
    assert parse_number("12.450 EUR", "de_DE").value == 12450
    # "12,450" in a German text is 12,45 by the rules, but an agent writing English means 12450.
    assert {12.45, 12450} <= set(parse_number("12,450 €", "de_DE").candidates())
    with reading_locale("de_DE"):
        assert values_equal("12.450 €", 12450) and values_equal("12.450 €", "12450")
        assert text_has_number("Der Betrag ist 1.234,56 € netto.", 1234.56)
        assert stated_numbers("Summe 12.450 € am 01.10.2026") == [12450]
    assert not values_equal("12.450 €", 12450)  # the block ended: en_US again


@pytest.mark.parametrize(("locale", "text", "day"), [
    ("de_DE", "01.10.2026", date(2026, 10, 1)),
    ("de_DE", "5. Oktober 2026", date(2026, 10, 5)),
    ("fr_FR", "1er octobre 2026", date(2026, 10, 1)),
    ("fr_FR", "12 décembre 2026", date(2026, 12, 12)),
    ("en_GB", "1/10/2026", date(2026, 10, 1)),
    ("en_IN", "1/10/2026", date(2026, 10, 1)),
    ("en_GB", "10/13/2026", date(2026, 10, 13)),  # 13 cannot be a month: read month first
    ("en_US", "1/10/2026", date(2026, 1, 10)),
])
def test_locale_dates(locale: str, text: str, day: date) -> None:
    assert parse_date(text, locale) == day
    assert extract_dates(f"due on {text}.", locale) == [day]


# ----------------------------------------------------------------- grades
def _world_spec(tmp_path: Path, locale: str, currency: str) -> Path:
    """The tiny company in ``locale`` (fast to build; the grader reads its locale meta entry)."""
    spec = yaml.safe_load((PACKAGED_WORLDS / "tiny.yaml").read_text())
    spec.update(name=f"tiny-{locale}", locale=locale, currency=currency)
    path = tmp_path / f"tiny-{locale}.yaml"
    path.write_text(yaml.safe_dump(spec, allow_unicode=True))
    return path


def _task(tmp_path: Path, spec: Path, criteria: list[dict]) -> object:
    task_id = f"probe-{spec.stem.lower().replace('_', '-')}"
    folder = tmp_path / task_id
    folder.mkdir()
    (folder / "task.yaml").write_text(yaml.safe_dump({
        "id": task_id, "instruction": "Say the total.", "world": {"spec": str(spec)},
        "tools": ["mail_search_messages"], "max_steps": 5, "category": "test", "difficulty": "easy",
        "family": "locale_probe",
    }))
    (folder / "grader.yaml").write_text(yaml.safe_dump({"gates": [], "criteria": criteria}))
    return load_task(folder)


def _statuses(task: object, answer: str) -> list[str]:
    start = task.start_world()  # type: ignore[attr-defined]
    return [c.status for c in grade(task, start, World.restore(start.snapshot()), answer, [], None).criteria]


CRITERIA = [{"id": "total", "points": 1, "check": "answer", "number": 12450},
            {"id": "due", "points": 1, "check": "answer", "date": "2026-10-01"}]


@pytest.mark.parametrize(("locale", "currency", "answer", "statuses"), [
    ("de_DE", "EUR", "Die Summe ist 12.450 €, fällig am 01.10.2026.", ["pass", "pass"]),
    ("de_DE", "EUR", "Total 12.450 EUR, due 5. Oktober 2026.", ["pass", "fail"]),
    ("fr_FR", "EUR", "Total : 12 450,00 €, échéance le 1er octobre 2026.", ["pass", "pass"]),
    ("en_GB", "GBP", "Total £12.45k, due 1/10/2026.", ["pass", "pass"]),
    ("en_US", "USD", "Total 12.450 EUR, due 1/10/2026.", ["fail", "fail"]),  # 12.45, January 10
    ("en_US", "USD", "Total $12,450, due 10/1/2026.", ["pass", "pass"]),
])
def test_grades_read_the_worlds_locale(tmp_path: Path, locale: str, currency: str, answer: str,
                                       statuses: list[str]) -> None:
    task = _task(tmp_path, _world_spec(tmp_path, locale, currency), CRITERIA)
    assert _statuses(task, answer) == statuses


@pytest.mark.parametrize("answer", ["The total is 48.2L.", "₹48,20,000 in all", "about 0,482 Cr", "48.2 lakh"])
def test_rupee_grades(tmp_path: Path, answer: str) -> None:
    task = _task(tmp_path, _world_spec(tmp_path, "en_IN", "INR"),
                 [{"id": "total", "points": 1, "check": "answer", "number": 4820000}])
    assert _statuses(task, answer) == ["pass"]
    assert _statuses(task, "₹4,82,000") == ["fail"]  # a tenth of it


def test_facts_claims_read_figures_the_way_the_world_writes_them() -> None:
    """A French or German world's '31 400,00 €' is 31400 in the facts engine too (not 31 and 40000)."""
    from officesim.apps.money import money
    from officesim.grading.claims import read_figures
    from officesim.grading.normalize import reading_locale

    for locale in ("fr_FR", "de_DE"):
        text = f"Executive, over by {money(31400.0, 'EUR', locale=locale, cents=True)}"
        with reading_locale(locale):
            assert [f.readings() for f in read_figures(text)] == [(31400.0,)], (locale, text)
    with reading_locale("de_DE"):  # '12,450' is 12.45 by the locale, 12450 written the English way
        assert [f.readings() for f in read_figures("12,450 and $1,234.56")] == [(12.45, 12450.0), (1234.56,)]
    with reading_locale("en_US"):
        assert [f.readings() for f in read_figures("$31,400.00")] == [(31400.0,)]
