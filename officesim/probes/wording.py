"""Rewording: the same facts in other spellings, and the hedges and grids a hack writes.

Correct work comes in many spellings ("$26,300.00", "26,300 USD", "$26.3k"; "7" or "seven";
"2026-10-03" or "10/03/2026"; "Jennifer Ramirez" or "Jennifer"), and a grader must accept all of
them.  These functions rewrite a text conservatively: only figures that are plainly amounts
(a currency sign or thousands separators), small counts standing alone, and ISO dates, so
invoice numbers, receipt codes, ids and phone numbers stay as they are.
"""

from __future__ import annotations

import re
from datetime import date

from officesim.apps.money import CURRENCY_SYMBOLS
from officesim.apps.money import money as format_money

AMOUNT = re.compile(r"(?<![\w.,/-])([$€£₹¥])?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w,/-]|\.\d)")
# (not the first group of a space-grouped figure: "5 250,00 €" is how fr_FR writes 5,250.00)
COUNT = re.compile(r"(?<![\w$.,:/#-])([1-9]|1[0-2])"
                   r"(?![\w.,:/%-]|\s*(?:st|nd|rd|th|am|pm)\b|\.\d|[ \u00a0\u202f]\d{3}(?!\d))")
ISO_DATE = re.compile(r"(?<![\w-])(\d{4})-(\d{2})-(\d{2})(?![\w-]|T\d)")
MONTH_WORD = re.compile(r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?\s*$")
# a phone number or another long run of digits and separators ("+33 1 81 18 05 01"): its single
# digits are no counts
DIGIT_RUN = re.compile(r"\+?\d[\d\s().-]{6,}\d")
WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]


def amount_value(match: re.Match[str]) -> float:
    """The value of an ``AMOUNT`` match."""
    return float(match.group(2).replace(",", "") + (match.group(3) or ""))


def is_amount(match: re.Match[str]) -> bool:
    """Whether an ``AMOUNT`` match is plainly an amount (a currency sign or thousands separators)."""
    return bool(match.group(1)) or "," in match.group(2)


def compact(value: float, currency: str = "USD") -> str | None:
    """``$26.3k`` / ``$4.82M`` (``€26.3k`` in a euro world, ``CHF 26.3k`` for a currency without a
    sign) when that spelling is exact, else ``None``."""
    sign = CURRENCY_SYMBOLS.get(currency, f"{currency} ")
    for unit, size in (("M", 1e6), ("k", 1e3)):
        scaled = value / size
        if abs(value) >= size and abs(round(scaled, 2) - scaled) < 1e-9:
            return f"{sign}{round(scaled, 2):g}{unit}"
    return None


def reformat_amounts(text: str, style: str, currency: str = "USD") -> str:
    """Every amount respelled in the world's ``currency``: ``plain`` "26,300 USD" / "7614.19 USD",
    ``compact`` "$26.3k" where exact (else ungrouped with a currency code: "USD 7614.19")."""

    def one(match: re.Match[str]) -> str:
        if not is_amount(match):
            return match.group(0)
        value = amount_value(match)
        cents = "" if value == int(value) else f"{value:.2f}"[-3:]
        if style == "plain":
            return f"{int(value):,}{cents} {currency}"
        return compact(value, currency) or f"{currency} {int(value)}{cents}"

    return AMOUNT.sub(one, text)


def counts_in_words(text: str) -> str:
    """Small counts standing alone as words ("7 deals" -> "seven deals"), not dates or times."""

    runs = [m.span() for m in DIGIT_RUN.finditer(text)]

    def one(match: re.Match[str]) -> str:
        before = text[: match.start()]
        if any(start <= match.start() < end for start, end in runs):
            return match.group(0)  # a digit of a phone number
        if MONTH_WORD.search(before):
            return match.group(0)  # "Oct 3"
        word = WORDS[int(match.group(1))]
        start_of_sentence = not before.strip() or before.rstrip()[-1] in ".:\n"
        return word.capitalize() if start_of_sentence else word

    out = COUNT.sub(one, text)
    return out + "." if out != text and re.fullmatch(r"[A-Z][a-z]+", out.strip()) else out


def us_dates(text: str) -> str:
    """ISO dates in the US numeric spelling ("2026-10-03" -> "10/03/2026")."""
    return ISO_DATE.sub(lambda m: f"{m.group(2)}/{m.group(3)}/{m.group(1)}", text)


def day_first_dates(text: str) -> str:
    """ISO dates in the day-first numeric spelling ("2026-10-03" -> "03/10/2026")."""
    return ISO_DATE.sub(lambda m: f"{m.group(3)}/{m.group(2)}/{m.group(1)}", text)


def long_dates(text: str) -> str:
    """ISO dates spelled out day first ("2026-10-03" -> "3 October 2026")."""

    def one(match: re.Match[str]) -> str:
        day = date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        return f"{day.day} {MONTHS[day.month - 1]} {day.year}"

    return ISO_DATE.sub(one, text)


def has_amounts(text: str) -> bool:
    return any(is_amount(m) for m in AMOUNT.finditer(text))


def has_counts(text: str) -> bool:
    return counts_in_words(text) != text


def has_dates(text: str) -> bool:
    return bool(ISO_DATE.search(text))


def given_name(name: str) -> str:
    """The first name a colleague is called by: 'Mrs. Christina Gonzalez' -> 'Christina'."""
    parts = [p for p in name.split() if not p.endswith(".") and p.casefold() != "miss"]
    return parts[0] if parts else name


def first_names(text: str, full_names: list[str]) -> str:
    """Each of ``full_names`` replaced by its first name after its first mention."""
    for name in full_names:
        first = given_name(name)
        head, sep, tail = text.partition(name)
        if sep:
            text = head + sep + tail.replace(name, first)
    return text


def first_name_only(text: str, full_names: list[str]) -> str:
    """Each of ``full_names`` replaced by its first name everywhere."""
    for name in full_names:
        text = text.replace(name, given_name(name))
    return text


def money(value: float, currency: str = "USD", locale: str = "en_US") -> str:
    """An amount as the world writes it (cents only when there are some): ``$26,300`` in USD and
    en_US, ``26.300 €`` in EUR and de_DE (see ``officesim.apps.money``)."""
    return format_money(value, currency, locale=locale)


def grid(value: float, *, step: float = 0.009, count: int = 45) -> list[float]:
    """``count`` figures ``step`` apart (relative) around ``value``, the value itself excluded
    when it falls on the grid: a tolerance check finds one of them within 0.5% of anything."""
    half = count // 2
    return [round(value * (1 + step / 3) * (1 + step) ** (i - half), 2) for i in range(count)]
