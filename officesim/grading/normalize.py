"""Tolerant comparison: equal meaning counts as equal, whatever the spelling.

Agents write "48.2 lakh", "$4.82M" or "4,820,000" for the same amount, "Oct 5, 2026" for
2026-10-05, and lists in any order.  A grader that compares strings would fail correct work and
teach a policy to format rather than to reason, so every check compares values through here.

Numbers: thousands separators (also Indian grouping), currency symbols and codes, suffixes
k/thousand, M/mn/million, B/bn/billion, L/lakh/lac, cr/crore, percentages, a leading minus or
accounting parentheses for negatives.  Dates: ISO dates and datetimes, "October 5, 2026",
"5 Oct 2026", "10/05/2026" (month first unless the first part exceeds 12), "2026/10/05".

Locales: a world's text follows its locale (``officesim.apps.money``), so the grader reads it
the same way.  ``reading_locale(locale)`` (the grader sets it from the world's ``locale`` meta
entry) or a function's ``locale=`` says which: in de_DE and fr_FR '.' or a space groups and ','
marks decimals ("1.234,56 €", "12.450 EUR", "1 234,56 €", "1,2 Mio."), and "5. Oktober 2026"
or "5 octobre 2026" are dates; in en_GB, en_IN, de_DE and fr_FR "1/10/2026" and "01.10.2026"
are day first (1 October).  In every locale a comma before a single digit and a scale ("1,2 Cr")
(or after a zero: "0,48 Cr") is a decimal comma.  en_US (the default) reads as it always has.

Space and apostrophe grouping (SI/ISO, DIN 5008, Swiss) reads in every locale: "180 000 €",
"$26 300", "1 234,50 €", "CHF 180'000", and a no-break, narrow or thin space between digits
("180\u202f000").  A plain space also separates list items, so outside fr_FR it groups only an
amount (a currency or a decimal part beside it), and never across another digit group ("rooms 101
102 103", "Q3 2026 120 000", "+49 30 1234 5678" stay apart; see ``_grouped``).  In a decimal-comma
locale "€180,000" is 180000 (an amount is not written to three decimals), "12,450" alone still 12.45.
"""

from __future__ import annotations

import functools
import json
import math
import operator
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
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
CURRENCY_CODES = ("usd", "eur", "gbp", "inr", "jpy", "cad", "aud", "sgd", "chf")  # ISO codes written beside amounts
_CODES = "|".join(CURRENCY_CODES)
_CURRENCY = rf"[$€£₹¥]|(?:{_CODES}|rs\.?)(?=\s*[\d.])"
_TRAILING_CURRENCY = rf"{_CODES}|dollars?|euros?|rupees?"
# Digit grouping by a space or an apostrophe: SI/ISO English, fr_FR, DIN 5008 ("180 000", with a plain,
# no-break, narrow no-break or thin space) and Swiss ("CHF 180'000").  A plain space also separates the
# items of a list ("rooms 101 102 103"); the others are typed (or set by CLDR) to keep a figure together.
_TYPOGRAPHIC_SPACES = "\u00a0\u202f\u2009"
_APOSTROPHES = "'\u2019"
_GROUP_MARKS = " " + _TYPOGRAPHIC_SPACES + _APOSTROPHES
_GROUP_MARK_RE = re.compile(f"[{_GROUP_MARKS}]")


def _grouped(bare_spaces: bool) -> str:
    """The pattern of a figure grouped by spaces or apostrophes ("180 000", "1 234,50", "180'000"),
    an alternative of a reader's ``num`` group.

    Conservative, so that no list of figures reads as one: groups of exactly three digits after a
    lead of one to three, the same mark throughout, no digits touching it across a mark on either
    side ("Q3 2026 120 000", "+49 30 1234 5678", "12 345 6789" stay apart), and a decimal part with
    either mark (where a space or an apostrophe groups, '.' or ',' can only be the decimal mark).
    A typographic space or an apostrophe groups wherever it stands; a plain space only in a figure
    marked as an amount (a currency before or after it, or a decimal part), or everywhere when
    ``bare_spaces`` (a locale that groups so, fr_FR "2 300").  It needs the reader's ``cur`` group.
    """
    marks = f"[{_GROUP_MARKS}]"
    plain = r"(?P<ps> )\d{3}(?:(?P=ps)\d{3})*"
    other = rf"(?P<ts>[{_TYPOGRAPHIC_SPACES}{_APOSTROPHES}])\d{{3}}(?:(?P=ts)\d{{3}})*"
    pattern = rf"(?<!\d{marks})\d{{1,3}}+(?:{plain}|{other})(?P<gfrac>[.,]\d+)?(?!\d|[.,]\d|{marks}\d)"
    if bare_spaces:
        return pattern
    trailing = rf"(?=\s*(?:[€$£₹¥]|(?:{_TRAILING_CURRENCY})\b))"
    return rf"{pattern}(?(ps)(?(cur)|(?(gfrac)|{trailing})))"


def _grouped_digits(raw: str) -> str | None:
    """English digits of a figure grouped by spaces or apostrophes ("1 234,50" -> "1234.50"), else ``None``."""
    if _GROUP_MARK_RE.search(raw) is None:
        return None
    return _GROUP_MARK_RE.sub("", raw).replace(",", ".")


# A number that stands on its own: never glued to a word before it (``Q3``, ``msg_41``).  A minus
# sign touches the number (``-1,200``, ``-$1,200``): a dash between spaces separates a label from
# its value ("Total - $7,614.19", "Sales – $34,500"), it does not negate it.
_NUMBER_RE = re.compile(
    rf"(?<![\w.])(?P<open>\(\s*)?(?P<sign>[-−–])?(?P<cur>(?:{_CURRENCY})\s*)?"
    rf"(?P<num>{_grouped(bare_spaces=False)}"  # 180 000 €  1 234.50 $  CHF 180'000
    r"|(?:0,\d+|\d+,\d)(?=\s?(?:cr|crores?|lakhs?|l|k|m|mn|bn)\b)"  # "1,2 Cr": a decimal comma
    r"|\d{1,3}(?:,\d{2,3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:e[-+]?\d+)?|\.\d+)"
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
# Two-digit years only where nothing else reads the same: "13-Oct-26" and "01/10/26" (one
# separator used twice), never "Oct 13, 26" (26 may be a count that follows the date).
_DATE_PATTERNS = [
    re.compile(r"\b(?P<year>\d{4})-(?P<mnum>\d{1,2})-(?P<day>\d{1,2})(?![\d])"),
    re.compile(r"\b(?P<year>\d{4})/(?P<mnum>\d{1,2})/(?P<day>\d{1,2})\b"),
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR_GROUP}\b", re.IGNORECASE),
    re.compile(rf"\b{_DAY}(?:\s+(?:of\s+)?|-){_MONTH}(?:,?\s+|-){_YEAR_GROUP}\b", re.IGNORECASE),
    re.compile(rf"\b{_DAY}-{_MONTH}-(?P<year>\d{{2}})(?![\w.,/-]\w|\w)", re.IGNORECASE),
    re.compile(r"\b(?P<a>\d{1,2})[/.-](?P<b>\d{1,2})[/.-](?P<year>\d{4})\b"),
    re.compile(r"(?<![\w.,/-])(?P<a>\d{1,2})(?P<sep>[/.-])(?P<b>\d{1,2})(?P=sep)(?P<year>\d{2})(?![\w.,/-]\w|\w)"),
]
_LIST_SPLIT = re.compile(r"\s*(?:[,;\n]|\band\b)\s*", re.IGNORECASE)
_EDGE_PUNCT = "\"'`.,;:!?()[]{}*_ "


@dataclass(frozen=True)
class NumberToken:
    """A number read from text; a percentage also matches its fraction (12.5% ~ 0.125)."""

    value: float
    percent: bool = False
    # Other readings of an ambiguous figure: "12,450" in a German text is 12.45 by the locale's
    # rules, but an agent writing English means 12450.
    alternatives: tuple[float, ...] = ()

    def candidates(self) -> tuple[float, ...]:
        values = (self.value, *self.alternatives)
        return (*values, *(v / 100 for v in values)) if self.percent else values


# Graders compare a few expected values with every row of a table, and the worlds repeat the same
# short values (names, statuses, cells) episode after episode: short texts are normalised once.
_CACHED_LENGTH = 256


def normalize_text(text: Any) -> str:
    """Case-folded, NFKC-normalised text with runs of whitespace collapsed to one space."""
    text = text if type(text) is str else str(text)
    return _normalized(text) if len(text) <= _CACHED_LENGTH else _normalize(text)


def _normalize(text: str) -> str:
    cleaned = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(cleaned.split())


_normalized = functools.lru_cache(maxsize=1 << 16)(_normalize)


@functools.lru_cache(maxsize=1 << 16)
def _trimmed(text: str) -> str:
    """``normalize_text`` without surrounding punctuation, of a short text (cached)."""
    return _normalize(text).strip(_EDGE_PUNCT)


def _trim(value: Any) -> str:
    text = value if type(value) is str else str(value)
    return _trimmed(text) if len(text) <= _CACHED_LENGTH else _normalize(text).strip(_EDGE_PUNCT)


_EXACTLY_AS_WRITTEN = re.compile(r"\bexactly\s+as\s+(?:it\s+is\s+|they\s+are\s+)?written\b", re.IGNORECASE)


def asks_exact_values(instruction: str) -> bool:
    """Whether an instruction asks for values exactly as a source writes them ("use it exactly as written"):
    then another format of the same value (a phone in E.164) is not what was asked.  One reading for the
    family that grades it and the variant that must not offer another format as correct work."""
    return _EXACTLY_AS_WRITTEN.search(instruction) is not None


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
    return compiled(f"{left}{re.escape(needle)}{right}").search(_ampersands(normalize_text(text))) is not None


@functools.lru_cache(maxsize=1 << 16)
def compiled(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile``, kept: the patterns graders build (from phrases, figures and a grader's own
    regexes) are more than ``re``'s cache holds (512), and compiling them again in every grading
    costs more than matching."""
    return re.compile(pattern, flags)


def _ampersands(text: str) -> str:
    """'Hicks, Barnett & Hardin' and 'Hicks, Barnett and Hardin' name the same company."""
    return " ".join(text.replace("&", " and ").split()) if "&" in text else text


def _token(match: re.Match[str]) -> NumberToken:
    raw = match.group("num")
    decimal_comma = re.fullmatch(r"0,\d+|\d+,\d", raw) and match.group("suffix")
    grouped = _grouped_digits(raw)  # 180 000  1 234.50  180'000
    if grouped is None:
        grouped = raw.replace(",", ".") if decimal_comma else raw.replace(",", "")
    value = float(grouped)
    suffix = (match.group("suffix") or "").lower()
    percent = suffix in ("%", "percent")
    if suffix and not percent:
        value *= _MULTIPLIERS[suffix]
    negative = bool(match.group("sign")) or bool(match.group("open") and match.group("close"))
    return NumberToken(-value if negative else value, percent)


def extract_numbers(text: str, locale: str | None = None) -> list[NumberToken]:
    """Every number written in free text, with its sign, scale suffix and percent flag."""
    pattern, token = _reader(locale)
    return [token(match) for match in pattern.finditer(text)]


def parse_number(value: Any, locale: str | None = None) -> NumberToken | None:
    """The number a whole value stands for ("48.2L", "(1,200)", 7), or ``None`` if it is not one."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return None if math.isnan(value) else NumberToken(float(value))
    text = str(value).strip()
    pattern, token = _reader(locale)
    match = pattern.fullmatch(text)
    if match is None:
        return None
    return token(match)


def close(actual: float, expected: float, tolerance: float) -> bool:
    """Whether ``actual`` is within relative ``tolerance`` of ``expected`` (exact at zero)."""
    if expected == 0:
        return abs(actual) <= tolerance
    return abs(actual - expected) <= tolerance * abs(expected) + 1e-12


def number_matches(token: NumberToken, expected: float, tolerance: float) -> bool:
    return any(close(candidate, expected, tolerance) for candidate in token.candidates())


def text_has_number(text: str, expected: float, tolerance: float = DEFAULT_TEXT_TOLERANCE,
                    locale: str | None = None) -> bool:
    """Whether some number written in ``text`` is within ``tolerance`` of ``expected``."""
    return any(number_matches(token, expected, tolerance) for token in extract_numbers(text, locale))


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


def stated_numbers(text: str, tolerance: float = DEFAULT_TEXT_TOLERANCE, locale: str | None = None) -> list[float]:
    """The distinct figures a text states, for judging whether it commits to an answer.

    Dates, codes such as ``INV-2026-0042``, phone numbers and bare years are not figures; the same
    amount written twice ("$34,500 ($34.5k)") counts once.  An answer that states many figures is
    a list of candidates, which ``answer`` checks refuse (see ``max_numbers``).
    """
    for pattern in (*_date_patterns(locale), *_DAY_MONTH_PATTERNS):
        text = pattern.sub(" ", text)
    text = _CODE_RE.sub(" ", text)
    figures: list[float] = []
    number_re, token = _reader(locale)
    for match in number_re.finditer(text):
        bare = not (match.group("suffix") or match.group("sign") or match.group("open"))
        if bare and _BARE_YEAR_RE.match(match.group("num")) and match.group(0).strip() == match.group("num"):
            continue
        value = abs(token(match).value)  # "(34.5k)" after an amount is an aside, not a negative
        if not any(close(value, seen, tolerance) for seen in figures):
            figures.append(value)
    return figures


def full_year(year: str) -> int:
    """A written year as a number: two digits are this century's up to 69, the last one's after
    (the POSIX rule ``strptime`` follows), so "01/10/26" is in 2026."""
    value = int(year)
    if len(year) == 2:
        return value + (2000 if value <= 69 else 1900)
    return value


def _make_date(year: str, month: int, day: str) -> date | None:
    try:
        return date(full_year(year), month, int(day))
    except ValueError:
        return None


def _date_from(match: re.Match[str], day_first: bool = False) -> date | None:
    groups = match.groupdict()
    if groups.get("month"):
        return _make_date(groups["year"], _MONTHS[groups["month"].lower().rstrip(".")], groups["day"])
    if groups.get("lmonth"):
        return _make_date(groups["year"], _LOCAL_MONTHS[groups["lmonth"].lower().rstrip(".")], groups["day"])
    if groups.get("mnum"):
        return _make_date(groups["year"], int(groups["mnum"]), groups["day"])
    first, second = int(groups["a"]), int(groups["b"])
    if day_first:
        month, day = (first, second) if second > 12 else (second, first)
    else:
        month, day = (second, first) if first > 12 else (first, second)
    return _make_date(groups["year"], month, str(day))


def extract_dates(text: str, locale: str | None = None) -> list[date]:
    """Every calendar date written in ``text``, in order of appearance."""
    found: list[tuple[int, date]] = []
    taken: list[range] = []
    day_first = _convention(locale).day_first
    for pattern in _date_patterns(locale):
        for match in pattern.finditer(text):
            span = range(match.start(), match.end())
            if any(span.start in t or t.start in span for t in taken):
                continue
            day = _date_from(match, day_first)
            if day is not None:
                found.append((match.start(), day))
                taken.append(span)
    return [d for _, d in sorted(found)]


def parse_date(value: Any, locale: str | None = None) -> date | None:
    """The one date a value stands for (a ``date``, ISO text, "Oct 5, 2026"), else ``None``."""
    if isinstance(value, date):
        return value
    if not isinstance(value, str):
        return None
    text = value.strip()
    dates = extract_dates(text, locale)
    if len(dates) != 1:
        return None
    leftover = text
    for pattern in _date_patterns(locale):
        leftover = pattern.sub("", leftover)
    leftover = re.sub(r"T[\d:.]+(Z|[+-]\d{2}:?\d{2})?", "", leftover).strip(_EDGE_PUNCT)
    return dates[0] if not leftover or leftover.lower() in _WEEKDAYS else None


WEEKDAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAYS = {*WEEKDAY_NAMES, *(day[:3] for day in WEEKDAY_NAMES)}
# the weekday names people write: English (abbreviated only when capitalised: "sat" is a verb),
# German and French, each as the English day
_WEEKDAY_WORDS = tuple(
    (re.compile(pattern), day) for day, pattern in zip(WEEKDAY_NAMES, (
        r"(?i:\bmonday\b|\bmontag\b|\blundi\b)|\bMon\b\.?", r"(?i:\btuesday\b|\bdienstag\b|\bmardi\b)|\bTues?\b\.?",
        r"(?i:\bwednesday\b|\bmittwoch\b|\bmercredi\b)|\bWed\b\.?",
        r"(?i:\bthursday\b|\bdonnerstag\b|\bjeudi\b)|\bThu(?:rs?)?\b\.?",
        r"(?i:\bfriday\b|\bfreitag\b|\bvendredi\b)|\bFri\b\.?", r"(?i:\bsaturday\b|\bsamstag\b|\bsamedi\b)",
        r"(?i:\bsunday\b|\bsonntag\b|\bdimanche\b)"), strict=True))


def weekdays_named(text: str) -> set[str]:
    """The weekdays ``text`` names, as English day names ("Friday", "Fri", "vendredi": "friday")."""
    return {day for pattern, day in _WEEKDAY_WORDS if pattern.search(text)}


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
    return _trim(actual) == _trim(expected)


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


@functools.lru_cache(maxsize=1 << 16)
def _cached_number(text: str, locale: str = "en_US") -> NumberToken | None:
    """``parse_number`` of an expected value: graders compare one expected value with many rows."""
    return parse_number(text, locale)


@functools.lru_cache(maxsize=1 << 16)
def _cached_date(text: str, locale: str = "en_US") -> date | None:
    return parse_date(text, locale)


def _number_of(value: Any, locale: str) -> NumberToken | None:
    """``parse_number(value)`` in ``locale``, cached for short texts (stored values repeat)."""
    if type(value) is str and len(value) <= _CACHED_LENGTH:
        return _cached_number(value, locale)
    return parse_number(value, locale)


def _date_of(value: Any, locale: str) -> date | None:
    """``parse_date(value)`` in ``locale``, cached for short texts."""
    if type(value) is str and len(value) <= _CACHED_LENGTH:
        return _cached_date(value, locale)
    return parse_date(value, locale)


def read_date(value: Any) -> date | None:
    """``parse_date(value)`` in the reading locale, kept for short texts (a grader's dates are read
    against every claim)."""
    return _date_of(value, _LOCALE.get())


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
        token = _number_of(actual, _LOCALE.get())
        return token is not None and number_matches(token, float(expected), tolerance)
    if isinstance(expected, date):
        return _date_of(actual, _LOCALE.get()) == expected
    if texts_equal(actual, expected):
        return True
    locale = _LOCALE.get()
    expected_number = _cached_number(str(expected), locale)
    if expected_number is not None:
        actual_number = _number_of(actual, locale)
        return actual_number is not None and any(
            number_matches(actual_number, c, tolerance) for c in expected_number.candidates()
        )
    expected_date = _cached_date(str(expected), locale)
    if expected_date is not None:
        return _date_of(actual, locale) == expected_date
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
        return actual is not None and compiled(str(arg)).search(str(actual)) is not None
    return _compare(actual, op, arg)


def matcher(expected: Any, tolerance: float = DEFAULT_VALUE_TOLERANCE) -> Callable[[Any], bool]:
    """``lambda actual: matches(actual, expected, tolerance)``, prepared once for many values.

    A check compares one expected value with every row of a table: a plain text (no number,
    date or list reading; call it in the reading locale of the grading) is then one normalised
    comparison per row instead of the whole ladder of ``values_equal``.
    """
    wanted = plain_text(expected)
    if wanted is not None:
        return lambda actual: actual is not None and (actual == expected or _trim(actual) == wanted)
    options = _plain_options(expected)
    if options is not None:  # {in: [...]} / {not_in: [...]} of plain texts: one set lookup per row
        inside, among = options
        return lambda actual: (actual is not None and _trim(actual) in among) is inside
    return lambda actual: matches(actual, expected, tolerance)


def _plain_options(expected: Any) -> tuple[bool, frozenset[str]] | None:
    """For ``{in: [...]}`` or ``{not_in: [...]}`` whose options are all plain texts: (whether a match
    must be among them, their trimmed texts); ``None`` otherwise.  ``values_equal`` of a plain text
    is a comparison of trimmed texts, so "equal to one option" is "its trimmed text is in the set"."""
    if not isinstance(expected, dict) or len(expected) != 1:
        return None
    ((op, arg),) = expected.items()
    if op not in ("in", "not_in") or not isinstance(arg, list | tuple) or not arg:
        return None
    texts = [plain_text(option) for option in arg]
    if any(text is None for text in texts):
        return None
    return op == "in", frozenset(t for t in texts if t is not None)


def plain_text(expected: Any) -> str | None:
    """The trimmed text a plain text ``expected`` (no number, date or list reading, in the reading
    locale) matches: ``matcher(expected)(actual)`` is then ``actual is not None and _trim(actual) ==
    plain_text(expected)``, so rows can be looked up by it.  ``None`` for any other value."""
    if isinstance(expected, str) and not expected.startswith("[") and "," not in expected and ";" not in expected:
        locale = _LOCALE.get()
        if _cached_number(expected, locale) is None and _cached_date(expected, locale) is None:
            return _trim(expected)
    return None


def trimmed(value: Any) -> str:
    """``value`` normalised and without surrounding punctuation, as plain text comparisons read it."""
    return _trim(value)


# ----------------------------------------------------------------- locales
_LOCALE: ContextVar[str] = ContextVar("officesim_reading_locale", default="en_US")


@contextmanager
def reading_locale(locale: str | None) -> Iterator[None]:
    """Read numbers and dates the way ``locale`` writes them until the block ends (``None``: en_US).

    The grader wraps one grading in it with the world's locale, so every check reads "12.450 €"
    in a German world as 12450 without each check passing the locale along.
    """
    token = _LOCALE.set(locale or "en_US")
    try:
        yield
    finally:
        _LOCALE.reset(token)


@dataclass(frozen=True)
class _Convention:
    """How a locale writes figures: its decimal mark, digit grouping and date order."""

    decimal_comma: bool = False
    space_groups: bool = False  # fr: "1 234,56"
    day_first: bool = False


_CONVENTIONS = {
    "us": _Convention(),
    "gb": _Convention(day_first=True),  # en_GB, en_IN, en_AU...: 1/10/2026 is 1 October
    "de": _Convention(decimal_comma=True, day_first=True),
    "fr": _Convention(decimal_comma=True, space_groups=True, day_first=True),
}
_DAY_FIRST_ENGLISH = ("en_GB", "en_IN", "en_IE", "en_AU", "en_NZ")


def _convention(locale: str | None) -> _Convention:
    code = locale or _LOCALE.get()
    if code.startswith(("de_", "nl_", "it_", "es_", "pt_", "da_", "id_")):
        return _CONVENTIONS["de"]
    if code.startswith(("fr_", "sv_", "nb_", "no_", "fi_", "pl_", "cs_", "ru_")):
        return _CONVENTIONS["fr"]
    if code in _DAY_FIRST_ENGLISH or code.endswith("_IN"):
        return _CONVENTIONS["gb"]
    return _CONVENTIONS["us"]


_COMMA_SUFFIX = (r"%|percent\b|thousand\b|millions?\b|billions?\b|lakhs?\b|lacs?\b|crores?\b"
                 r"|mio\.?(?!\w)|mrd\.?(?!\w)|tsd\.?(?!\w)|md\b|mn\b|mm\b|bn\b|cr\b|[kmbl]\b")
_COMMA_MULTIPLIERS = {"mio": 1e6, "mio.": 1e6, "mrd": 1e9, "mrd.": 1e9, "md": 1e9, "tsd": 1e3, "tsd.": 1e3}


def _comma_number_re(space_groups: bool) -> re.Pattern[str]:
    """Figures written with a decimal comma ("1.234,56", "12.450", "1 234,56" bare when ``space_groups``)."""
    return re.compile(
        rf"(?<![\w.,])(?P<open>\(\s*)?(?P<sign>[-−–])?(?P<cur>(?:{_CURRENCY})\s*)?"
        rf"(?P<num>{_grouped(space_groups)}"  # 1 234,56  180 000 €  180'000
        r"|\d{1,3}(?:\.\d{3})+(?:,\d+)?(?![\d.])"  # 1.234,56  12.450
        r"|\d{1,3}(?:,\d{3})+\.\d+|\d{1,3}(?:,\d{3}){2,}(?![\d,])"  # English: 1,234.56  1,234,567
        r"|\d+,\d+|\d+(?:\.\d+)?|\.\d+)"  # 1,2 (or the ambiguous 12,450)  48.2  .5
        rf"(?:\s?(?P<suffix>{_COMMA_SUFFIX}))?(?:\s*(?P<tcur>[€$£₹¥](?!\w)|(?:{_TRAILING_CURRENCY})\b))?"
        r"(?P<close>\s*\))?",
        re.IGNORECASE,
    )


_COMMA_NUMBER_RES = {False: _comma_number_re(False), True: _comma_number_re(True)}


def _comma_token(match: re.Match[str]) -> NumberToken:
    """A figure of a decimal-comma locale; "12,450" also reads as 12450 (written the English way), and
    in an amount ("€180,000", "180,000 €") that is the reading: nobody writes money to three decimals."""
    raw = match.group("num")
    suffix = (match.group("suffix") or "").lower()
    alternatives: tuple[float, ...] = ()
    grouped = _grouped_digits(raw)
    if grouped is not None:  # 1 234,56  180'000
        value = float(grouped)
    elif "," in raw and ("." in raw.split(",")[0] or (raw.count(",") == 1 and "." not in raw)):
        whole, _, fraction = raw.rpartition(",")
        value = float(whole.replace(".", "") + "." + fraction)
        if re.fullmatch(r"\d{1,3},\d{3}", raw):
            alternatives = (float(raw.replace(",", "")),)
            if not suffix and (match.group("cur") or match.group("tcur")):
                value, alternatives = alternatives[0], (value,)
    elif "," in raw:  # 1,234.56 or 1,234,567: English grouping
        value = float(raw.replace(",", ""))
    elif re.fullmatch(r"\d{1,3}(?:\.\d{3})+", raw):
        value = float(raw.replace(".", ""))
        if suffix and raw.count(".") == 1:  # "€2.014M": 2.014 million written the English way, too
            alternatives = (float(raw),)
    else:
        value = float(raw)
    percent = suffix in ("%", "percent")
    if suffix and not percent:
        factor = _COMMA_MULTIPLIERS.get(suffix) or _MULTIPLIERS[suffix]
        value *= factor
        alternatives = tuple(a * factor for a in alternatives)
    negative = bool(match.group("sign")) or bool(match.group("open") and match.group("close"))
    if negative:
        value, alternatives = -value, tuple(-a for a in alternatives)
    return NumberToken(value, percent, alternatives)


def _reader(locale: str | None) -> tuple[re.Pattern[str], Any]:
    """The number pattern and token reader for ``locale`` (the reading locale when ``None``)."""
    convention = _convention(locale)
    if convention.decimal_comma:
        return _COMMA_NUMBER_RES[convention.space_groups], _comma_token
    return _NUMBER_RE, _token


_LOCAL_MONTHS = {
    name: index
    for index, names in enumerate(
        [("januar", "jänner", "janvier", "janv"), ("februar", "février", "fevrier", "févr"), ("märz", "maerz", "mars"),
         ("avril", "avr"), ("mai",), ("juni", "juin"), ("juli", "juillet", "juil"), ("august", "août", "aout"),
         ("september", "septembre"), ("oktober", "okt", "octobre"), ("november", "novembre"),
         ("dezember", "dez", "décembre", "decembre", "déc")],
        start=1,
    )
    for name in names
}
# the months' names people write as a label ("worst month was August ($15,000 over)"), in English, German
# and French: not the three-letter abbreviations, nor "May"/"Mai" and "Mars", more often words than months
MONTH_NAMES = tuple(sorted({name for name in (*_MONTHS, *_LOCAL_MONTHS) if len(name) >= 4} - {"mars"},
                           key=len, reverse=True))
_LOCAL_MONTH = r"(?P<lmonth>" + "|".join(sorted(_LOCAL_MONTHS, key=len, reverse=True)) + r")\.?"
# "5. Oktober 2026", "5 octobre 2026", "1er octobre 2026".
_LOCAL_DATE = re.compile(rf"\b(?P<day>\d{{1,2}})(?:\.|er)?\s+{_LOCAL_MONTH}\s+(?P<year>\d{{4}})\b", re.IGNORECASE)


def _date_patterns(locale: str | None) -> list[re.Pattern[str]]:
    """The date patterns of ``locale``: everyone's, and month names of German and French texts."""
    return [_LOCAL_DATE, *_DATE_PATTERNS] if _convention(locale).decimal_comma else _DATE_PATTERNS
