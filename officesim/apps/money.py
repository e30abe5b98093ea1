"""Amounts of money as people write them, the same in every app's generated text.

A deal's amount reads the same in a chat post, a customer mail, an account plan and a CRM note
('$48,200', '€1,234.50', 'CAD 48,200'), so a model (and a grader) can match them across apps.
"""

from __future__ import annotations

_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "INR": "₹"}


def money(amount: float, currency: str, *, locale: str = "en_US", cents: bool | None = None) -> str:
    """``$48,200`` (cents only when there are some), or ``CAD 48,200`` for a currency without a symbol.

    ``cents`` forces (True) or drops (False, rounding) the cents; ``None`` shows them only when there
    are some.  ``locale`` is the world's locale (number and symbol conventions follow it).
    """
    show_cents = (not float(amount).is_integer()) if cents is None else cents
    text = f"{amount:,.2f}" if show_cents else f"{amount:,.0f}"
    symbol = _SYMBOLS.get(currency)
    return f"{symbol}{text}" if symbol else f"{currency} {text}"
