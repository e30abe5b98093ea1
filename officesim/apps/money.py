"""Amounts of money as people write them, the same in every app's generated text.

A deal's amount reads the same in a customer mail, an account plan and a CRM note ('$48,200',
'€1,234.50', 'CAD 48,200'), so a model (and a grader) can match them across apps.  The world's
locale decides the conventions:

- en_US, en_GB and most others: the symbol before, ',' groups thousands, '.' the decimals
  (``£48,200``, ``€1,234.50``, ``CAD 48,200``);
- en_IN: Indian grouping by lakh and crore (``₹48,20,000``), and with ``compact`` the short form
  colleagues use in chat (``₹48.2L``, ``₹1.2Cr``);
- de_DE (and de_AT, de_CH): '.' groups, ',' the decimals, the symbol after (``1.234,56 €``);
- fr_FR (and fr_BE, fr_CA, fr_CH): a space groups, ',' the decimals, the symbol after
  (``1 234,56 €``).

The rules are written here rather than taken from CLDR (Babel): a world's bytes must not change
when a CLDR release changes a separator (CLDR's French group separator is U+202F, which nobody
types; plain spaces are what a grader and a model can both match).
"""

from __future__ import annotations

CURRENCY_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "INR": "₹"}
LAKH, CRORE = 100_000, 10_000_000


def _family(locale: str) -> str:
    """Which convention a locale writes money in: 'us', 'in', 'de' or 'fr'."""
    if locale.endswith("_IN"):  # en_IN, hi_IN, ta_IN, ...
        return "in"
    if locale.startswith("de_"):
        return "de"
    if locale.startswith("fr_"):
        return "fr"
    return "us"


def _indian_groups(digits: str) -> str:
    """'4820000' -> '48,20,000': the last three digits, then groups of two."""
    if len(digits) <= 3:
        return digits
    head, tail = digits[:-3], digits[-3:]
    pairs: list[str] = []
    while len(head) > 2:
        pairs.insert(0, head[-2:])
        head = head[:-2]
    return ",".join([head, *pairs, tail]) if head else ",".join([*pairs, tail])


def _number(amount: float, show_cents: bool, family: str) -> str:
    """The amount's digits with the family's group and decimal separators (no sign, no symbol)."""
    text = f"{abs(amount):.2f}" if show_cents else f"{abs(amount):.0f}"
    whole, _, fraction = text.partition(".")
    if family == "in":
        grouped = _indian_groups(whole)
    else:
        grouped = f"{int(whole):,}"
        if family == "de":
            grouped = grouped.replace(",", ".")
        elif family == "fr":
            grouped = grouped.replace(",", " ")
    mark = "," if family in ("de", "fr") else "."
    return grouped + (mark + fraction if fraction else "")


def _compact_indian(amount: float) -> str | None:
    """'48.2L' for 48,20,000 and '1.2Cr' for 1,20,00,000; None below a lakh."""
    size = abs(amount)
    if size < LAKH:
        return None
    value, unit = (size / CRORE, "Cr") if size >= CRORE else (size / LAKH, "L")
    text = f"{value:.2f}".rstrip("0").rstrip(".") if value < 10 else f"{value:.1f}".rstrip("0").rstrip(".")
    return text + unit


def money(amount: float, currency: str, *, locale: str = "en_US", cents: bool | None = None,
          compact: bool = False) -> str:
    """``$48,200`` (cents only when there are some), or ``CAD 48,200`` for a currency without a symbol.

    ``cents`` forces (True) or drops (False, rounding) the cents; ``None`` shows them only when there
    are some.  ``locale`` is the world's locale (number and symbol conventions follow it, see the
    module docstring).  ``compact`` writes lakh and crore amounts the short way in en_IN (``₹48.2L``);
    other locales ignore it.
    """
    family = _family(locale)
    show_cents = (not float(amount).is_integer()) if cents is None else cents
    symbol = CURRENCY_SYMBOLS.get(currency)
    if family == "us":  # unchanged since the first worlds: '$-1,200' for a negative amount
        text = f"{amount:,.2f}" if show_cents else f"{amount:,.0f}"
        return f"{symbol}{text}" if symbol else f"{currency} {text}"
    sign = "-" if amount < 0 and round(abs(amount), 2 if show_cents else 0) else ""
    short = _compact_indian(amount) if compact and family == "in" else None
    text = short or _number(amount, show_cents, family)
    if family in ("de", "fr"):
        return f"{sign}{text} {symbol or currency}"
    return f"{sign}{symbol}{text}" if symbol else f"{sign}{currency} {text}"
