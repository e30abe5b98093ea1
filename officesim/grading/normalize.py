"""Tolerant comparison: equal meaning counts as equal, whatever the spelling.

Agents write "48.2 lakh", "$4.82M" or "4,820,000" for the same amount, "Oct 5, 2026" for
2026-10-05, and lists in any order.  A grader that compares strings would fail correct work and
teach a policy to format rather than to reason, so every check compares values through here.

Numbers: thousands separators (also Indian grouping), currency symbols and codes, suffixes
k/thousand, M/mn/million, B/bn/billion, L/lakh/lac, cr/crore, percentages, a leading minus or
accounting parentheses for negatives.  Dates: ISO dates and datetimes, "October 5, 2026",
"5 Oct 2026", "10/05/2026" (month first unless the first part exceeds 12), "2026/10/05".
"""

from __future__ import annotations

import functools
import json
import math
import operator
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any

DEFAULT_TEXT_TOLERANCE = 0.005  # numbers read out of prose: agents round ("$4.82M")
DEFAULT_VALUE_TOLERANCE = 1e-6  # typed values stored in records and sheet cells

_MULTIPLIERS = {
    "k": 1e3, "thousand": 1e3,
    "m": 1e6, "mn": 1e6, "mm": 1e6, "million": 1e6, "millions": 1e6,
    "b": 1e9, "bn": 1e9, "billion": 1e9, "billions": 1e9,
    "l": 1e5, "lakh": 1e5, "lakhs": 1e5, "lac": 1e5, "lacs": 1e5,
    "cr": 1e7, "crore": 1e7, "crores": 1e7,
}
_SUFFIX = r"%|percent\b|thousand\b|millions?\b|billions?\b|lakhs?\b|lacs?\b|crores?\b|mn\b|mm\b|bn\b|cr\b|[kmbl]\b"
_CURRENCY = r"[$€£₹¥]|(?:usd|eur|gbp|inr|jpy|cad|aud|sgd|rs\.?)(?=\s*[\d.])"
_TRAILING_CURRENCY = r"usd|eur|gbp|inr|jpy|cad|aud|sgd|dollars?|euros?|rupees?"
# A number that stands on its own: never glued to a word before it (``Q3``, ``msg_41``).  A minus
# sign touches the number (``-1,200``, ``-$1,200``): a dash between spaces separates a label from
# its value ("Total - $7,614.19", "Sales – $34,500"), it does not negate it.
_NUMBER_RE = re.compile(
    rf"(?<![\w.])(?P<open>\(\s*)?(?P<sign>[-−–])?(?:(?:{_CURRENCY})\s*)?"
    r"(?P<num>\d{1,3}(?:,\d{2,3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:e[-+]?\d+)?|\.\d+)"
    rf"(?:\s?(?P<suffix>{_SUFFIX}))?(?:\s*(?:{_TRAILING_CURRENCY})\b)?(?P<close>\s*\))?",
    re.IGNORECASE,
)

_MONTHS = {
    name: index
    for index, names in enumerate(
        [("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",),
         ("jun", "june"), ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"),
         ("oct", "october"), ("nov", "november"), ("dec", "december")],
        start=1,
    )
    for name in names
}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR_GROUP = r"(?P<year>\d{4})"
_DATE_PATTERNS = [
    re.compile(r"\b(?P<year>\d{4})-(?P<mnum>\d{1,2})-(?P<day>\d{1,2})(?![\d])"),
    re.compile(r"\b(?P<year>\d{4})/(?P<mnum>\d{1,2})/(?P<day>\d{1,2})\b"),
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR_GROUP}\b", re.IGNORECASE),
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR_GROUP}\b", re.IGNORECASE),
    re.compile(r"\b(?P<a>\d{1,2})[/.-](?P<b>\d{1,2})[/.-](?P<year>\d{4})\b"),
]
_LIST_SPLIT = re.compile(r"\s*(?:[,;\n]|\band\b)\s*", re.IGNORECASE)
_EDGE_PUNCT = "\"'`.,;:!?()[]{}*_ "


@dataclass(frozen=True)
class NumberToken:
    """A number read from text; a percentage also matches its fraction (12.5% ~ 0.125)."""

    value: float
    percent: bool = False

    def candidates(self) -> tuple[float, ...]:
        return (self.value, self.value / 100) if self.percent else (self.value,)


def normalize_text(text: Any) -> str:
    """Case-folded, NFKC-normalised text with runs of whitespace collapsed to one space."""
    cleaned = unicodedata.normalize("NFKC", str(text)).casefold()
    return " ".join(cleaned.split())


def contains_phrase(text: Any, phrase: Any) -> bool:
    """Does ``text`` contain ``phrase`` as whole words (case- and whitespace-insensitive)?

    Whole words matter for short expected values: the answer 'IT' must not be found inside
    "with" or "budget", which a plain substring test (and an echo of the question) would allow.
    """
    needle = _ampersands(normalize_text(phrase))
    if not needle:
        return True
    left = r"(?<!\w)" if needle[0].isalnum() or needle[0] == "_" else ""
    right = r"(?!\w)" if needle[-1].isalnum() or needle[-1] == "_" else ""
    return re.search(f"{left}{re.escape(needle)}{right}", _ampersands(normalize_text(text))) is not None


def _ampersands(text: str) -> str:
    """'Hicks, Barnett & Hardin' and 'Hicks, Barnett and Hardin' name the same company."""
    return " ".join(text.replace("&", " and ").split()) if "&" in text else text


def _token(match: re.Match[str]) -> NumberToken:
    raw = match.group("num").replace(",", "")
    value = float(raw)
    suffix = (match.group("suffix") or "").lower()
    percent = suffix in ("%", "percent")
    if suffix and not percent:
        value *= _MULTIPLIERS[suffix]
    negative = bool(match.group("sign")) or bool(match.group("open") and match.group("close"))
    return NumberToken(-value if negative else value, percent)


def extract_numbers(text: str) -> list[NumberToken]:
    """Every number written in free text, with its sign, scale suffix and percent flag."""
    return [_token(match) for match in _NUMBER_RE.finditer(text)]


def parse_number(value: Any) -> NumberToken | None:
    """The number a whole value stands for ("48.2L", "(1,200)", 7), or ``None`` if it is not one."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return None if math.isnan(value) else NumberToken(float(value))
    text = str(value).strip()
    match = _NUMBER_RE.fullmatch(text)
    if match is None:
        return None
    return _token(match)


def close(actual: float, expected: float, tolerance: float) -> bool:
    """Whether ``actual`` is within relative ``tolerance`` of ``expected`` (exact at zero)."""
    if expected == 0:
        return abs(actual) <= tolerance
    return abs(actual - expected) <= tolerance * abs(expected) + 1e-12


def number_matches(token: NumberToken, expected: float, tolerance: float) -> bool:
    return any(close(candidate, expected, tolerance) for candidate in token.candidates())


def text_has_number(text: str, expected: float, tolerance: float = DEFAULT_TEXT_TOLERANCE) -> bool:
    """Whether some number written in ``text`` is within ``tolerance`` of ``expected``."""
    return any(number_matches(token, expected, tolerance) for token in extract_numbers(text))


# Figures that are not amounts: codes (INV-2026-0042, R-1234, EC-4417), digit groups joined by
# hyphens or slashes (555-123-4567), international phone numbers, compounds (12-month) and bare
# years.
_CODE_RE = re.compile(
    r"\b[A-Za-z][A-Za-z0-9]*[-_#]\d[\w-]*"
    r"|(?<![\w.])\d+(?:[-/]\d+){2,}(?![\w])"
    r"|\+\d[\d\s().-]{6,}\d"
    r"|(?<![\w.])\d+-[A-Za-z]+\b"  # compounds: a 12-month lock, a 30-day term
)
_BARE_YEAR_RE = re.compile(r"^(19|20)\d\d$")
# A day of a month without its year ("October 26", "26th of Oct") is a date, not a figure.
_DAY_MONTH_PATTERNS = (
    re.compile(rf"\b{_MONTH}\s+{_DAY}\b", re.IGNORECASE),
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}(?![a-z])", re.IGNORECASE),
)


def stated_numbers(text: str, tolerance: float = DEFAULT_TEXT_TOLERANCE) -> list[float]:
    """The distinct figures a text states, for judging whether it commits to an answer.

    Dates, codes such as ``INV-2026-0042``, phone numbers and bare years are not figures; the same
    amount written twice ("$34,500 ($34.5k)") counts once.  An answer that states many figures is
    a list of candidates, which ``answer`` checks refuse (see ``max_numbers``).
    """
    for pattern in (*_DATE_PATTERNS, *_DAY_MONTH_PATTERNS):
        text = pattern.sub(" ", text)
    text = _CODE_RE.sub(" ", text)
    figures: list[float] = []
    for match in _NUMBER_RE.finditer(text):
        bare = not (match.group("suffix") or match.group("sign") or match.group("open"))
        if bare and _BARE_YEAR_RE.match(match.group("num")) and match.group(0).strip() == match.group("num"):
            continue
        value = abs(_token(match).value)  # "(34.5k)" after an amount is an aside, not a negative
        if not any(close(value, seen, tolerance) for seen in figures):
            figures.append(value)
    return figures


def _make_date(year: str, month: int, day: str) -> date | None:
    try:
        return date(int(year), month, int(day))
    except ValueError:
        return None


def _date_from(match: re.Match[str]) -> date | None:
    groups = match.groupdict()
    if groups.get("month"):
        return _make_date(groups["year"], _MONTHS[groups["month"].lower().rstrip(".")], groups["day"])
    if groups.get("mnum"):
        return _make_date(groups["year"], int(groups["mnum"]), groups["day"])
    first, second = int(groups["a"]), int(groups["b"])
    month, day = (second, first) if first > 12 else (first, second)
    return _make_date(groups["year"], month, str(day))


def extract_dates(text: str) -> list[date]:
    """Every calendar date written in ``text``, in order of appearance."""
    found: list[tuple[int, date]] = []
    taken: list[range] = []
    for pattern in _DATE_PATTERNS:
        for match in pattern.finditer(text):
            span = range(match.start(), match.end())
            if any(span.start in t or t.start in span for t in taken):
                continue
            day = _date_from(match)
            if day is not None:
                found.append((match.start(), day))
                taken.append(span)
    return [d for _, d in sorted(found)]


def parse_date(value: Any) -> date | None:
    """The one date a value stands for (a ``date``, ISO text, "Oct 5, 2026"), else ``None``."""
    if isinstance(value, date):
        return value
    if not isinstance(value, str):
        return None
    text = value.strip()
    dates = extract_dates(text)
    if len(dates) != 1:
        return None
    leftover = text
    for pattern in _DATE_PATTERNS:
        leftover = pattern.sub("", leftover)
    leftover = re.sub(r"T[\d:.]+(Z|[+-]\d{2}:?\d{2})?", "", leftover).strip(_EDGE_PUNCT)
    return dates[0] if not leftover or leftover.lower() in _WEEKDAYS else None


_WEEKDAYS = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
             "mon", "tue", "wed", "thu", "fri", "sat", "sun"}


def split_list(text: str) -> list[str]:
    """Items of a comma/semicolon/newline/"and" separated list, normalised, empties dropped."""
    return [item for item in (normalize_text(p).strip(_EDGE_PUNCT) for p in _LIST_SPLIT.split(text)) if item]


def as_list(value: Any) -> list[Any] | None:
    """A list value: a Python list, or a JSON list stored as text (``'["a", "b"]'``)."""
    if isinstance(value, list | tuple):
        return list(value)
    if isinstance(value, str) and value.startswith("["):
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:
            return None
        return parsed if isinstance(parsed, list) else None
    return None


def texts_equal(actual: Any, expected: Any) -> bool:
    """Equal after case/whitespace normalisation and trimming of surrounding punctuation."""
    return normalize_text(actual).strip(_EDGE_PUNCT) == normalize_text(expected).strip(_EDGE_PUNCT)


def lists_equal(actual: Iterable[Any], expected: Iterable[Any], tolerance: float = DEFAULT_VALUE_TOLERANCE) -> bool:
    """Same items in any order (a multiset match, each item compared tolerantly)."""
    remaining = list(actual)
    wanted = list(expected)
    if len(remaining) != len(wanted):
        return False
    for item in wanted:
        for index, candidate in enumerate(remaining):
            if values_equal(candidate, item, tolerance):
                del remaining[index]
                break
        else:
            return False
    return True


@functools.lru_cache(maxsize=4096)
def _cached_number(text: str) -> NumberToken | None:
    """``parse_number`` of an expected value: graders compare one expected value with many rows."""
    return parse_number(text)


@functools.lru_cache(maxsize=4096)
def _cached_date(text: str) -> date | None:
    return parse_date(text)


def _bool_of(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and normalize_text(value) in ("true", "yes", "1", "false", "no", "0"):
        return normalize_text(value) in ("true", "yes", "1")
    return None


def values_equal(actual: Any, expected: Any, tolerance: float = DEFAULT_VALUE_TOLERANCE) -> bool:
    """Tolerant equality of a stored or written value with an expected one.

    Numbers compare within relative ``tolerance`` whatever their format; dates compare as dates;
    lists (also JSON lists stored as text) compare as multisets; text ignores case and spacing.
    """
    if expected is None:
        return actual is None or (isinstance(actual, str) and not actual.strip())
    if actual is None:
        return False
    if isinstance(expected, bool):
        return _bool_of(actual) is expected
    if actual == expected and type(actual) is type(expected):
        return True
    expected_list = as_list(expected)
    if expected_list is not None:
        actual_list = as_list(actual)
        if actual_list is None and isinstance(actual, str):
            actual_list = split_list(actual)
        if actual_list is None:
            return False
        return lists_equal(actual_list, expected_list, tolerance)
    if isinstance(expected, int | float):
        token = parse_number(actual)
        return token is not None and number_matches(token, float(expected), tolerance)
    if isinstance(expected, date):
        return parse_date(actual) == expected
    if texts_equal(actual, expected):
        return True
    expected_number = _cached_number(str(expected))
    if expected_number is not None:
        actual_number = parse_number(actual)
        return actual_number is not None and any(
            number_matches(actual_number, c, tolerance) for c in expected_number.candidates()
        )
    expected_date = _cached_date(str(expected))
    if expected_date is not None:
        return parse_date(actual) == expected_date
    if isinstance(actual, str) and isinstance(expected, str) and ("," in expected or ";" in expected):
        return lists_equal(split_list(actual), split_list(expected), tolerance)
    return False


def _ordered(value: Any) -> float | date | None:
    """A value that can be ordered: a number, else a date."""
    token = parse_number(value) if not isinstance(value, date) else None
    if token is not None:
        return token.value
    return parse_date(value)


_ORDER = {"gt": operator.gt, "gte": operator.ge, "lt": operator.lt, "lte": operator.le}


def _compare(actual: Any, op: str, bound: Any) -> bool:
    left, right = _ordered(actual), _ordered(bound)
    if left is None or right is None or type(left) is not type(right):
        return False
    return bool(_ORDER[op](left, right))


def _contains(actual: Any, needle: Any, tolerance: float) -> bool:
    items = as_list(actual)
    if items is not None:
        return any(values_equal(item, needle, tolerance) for item in items)
    return actual is not None and contains_phrase(actual, needle)


def matches(actual: Any, expected: Any, tolerance: float = DEFAULT_VALUE_TOLERANCE) -> bool:
    """``values_equal``, or an operator value: ``{contains|not_contains|in|not_in|not|gt|gte|lt|lte|regex: x}``.

    ``contains`` on a list value (a JSON list column such as labels) means "has this item";
    on text it means "has this substring".
    """
    if not isinstance(expected, dict):
        return values_equal(actual, expected, tolerance)
    ((op, arg),) = expected.items()
    if op == "contains":
        return _contains(actual, arg, tolerance)
    if op == "not_contains":
        return not _contains(actual, arg, tolerance)
    if op == "in":
        return any(values_equal(actual, option, tolerance) for option in (arg or []))
    if op == "not_in":
        return not any(values_equal(actual, option, tolerance) for option in (arg or []))
    if op == "not":
        return not values_equal(actual, arg, tolerance)
    if op == "regex":
        return actual is not None and re.search(str(arg), str(actual)) is not None
    return _compare(actual, op, arg)
