"""Resolve and normalise what a model sends to the CRM tools, or say exactly what to fix.

Models name things loosely: an account by its name instead of its id, a stage as 'Closed Won', a
date with a time attached.  Everything lenient but unambiguous is accepted here and turned into
the stored form; everything else raises a ``ToolError`` whose message names the tool that finds
the right value.  Kept apart from ``tools.py`` so the tools read as what they do.
"""

from __future__ import annotations

import difflib
import math
import re
from datetime import date
from typing import TYPE_CHECKING

from officesim.clock import OutOfRange, parse_ts
from officesim.errors import InvalidArgument, NotFound

if TYPE_CHECKING:
    import sqlite3

    from officesim.world import World

OPEN_STAGES = ("prospecting", "qualification", "proposal", "negotiation")
CLOSED_STAGES = ("closed_won", "closed_lost")
STAGES = OPEN_STAGES + CLOSED_STAGES
# Search/pipeline filters that stand for several stages at once.
STAGE_GROUPS = {"open": OPEN_STAGES, "closed": CLOSED_STAGES, "all": STAGES}
TIERS = ("strategic", "enterprise", "mid-market", "smb")
ACTIVITY_KINDS = ("call", "meeting", "email", "note", "task")
INVOICE_STATUSES = ("open", "paid", "void")

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")
_CURRENCY = re.compile(r"^[A-Za-z]{3}$")
MAX_NAME = 200
MAX_SUBJECT = 300
MAX_BODY = 20_000


def _closest(value: str, choices: list[str]) -> str:
    """' Did you mean ...?' for the nearest choice, or nothing."""
    close = difflib.get_close_matches(value.lower(), [c.lower() for c in choices], n=1, cutoff=0.6)
    if not close:
        return ""
    original = next(c for c in choices if c.lower() == close[0])
    return f" Did you mean {original!r}?"


def _key(value: str) -> str:
    return re.sub(r"[\s\-]+", "_", value.strip().lower())


def stage(value: str, *, groups: bool = False) -> tuple[str, ...]:
    """The stages ``value`` names ('Closed Won' -> ('closed_won',)); groups like 'open' when allowed."""
    key = _key(value)
    if key in STAGES:
        return (key,)
    if groups and key in STAGE_GROUPS:
        return STAGE_GROUPS[key]
    valid = [*STAGES, *(STAGE_GROUPS if groups else ())]
    raise InvalidArgument(f"unknown stage {value!r}.{_closest(key, valid)} Valid stages: {', '.join(valid)}")


def tier(value: str) -> str:
    """A tier in its stored spelling ('Mid Market' -> 'mid-market')."""
    key = _key(value).replace("_", "-")
    if key in TIERS:
        return key
    raise InvalidArgument(f"unknown tier {value!r}.{_closest(key, list(TIERS))} Valid tiers: {', '.join(TIERS)}")


def currency(w: World, value: str | None) -> str:
    """An ISO 4217 code in upper case; the world's home currency when omitted."""
    if value is None:
        return w.meta("currency") or "USD"
    if not _CURRENCY.match(value.strip()):
        raise InvalidArgument(f"currency must be a 3-letter ISO code like 'USD' or 'EUR', got {value!r}")
    return value.strip().upper()


def amount(value: float, param: str = "amount") -> float:
    """A finite, non-negative amount rounded to cents."""
    if not math.isfinite(value) or value < 0:
        raise InvalidArgument(f"{param} must be a number >= 0 (e.g. 25000), got {value!r}")
    return round(float(value), 2)


def iso_date(value: str, param: str) -> str:
    """'YYYY-MM-DD' from an ISO date, or from an ISO timestamp (its UTC date)."""
    text = value.strip()
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        pass
    try:
        return parse_ts(text).date().isoformat()
    except OutOfRange as exc:
        raise InvalidArgument(f"{param}={exc}") from None
    except ValueError:
        raise InvalidArgument(f"{param} must be an ISO date like '2026-11-30', got {value!r}") from None


def email(value: str) -> str:
    """A plausible email address, trimmed and lower-cased."""
    text = value.strip().lower()
    if not _EMAIL.match(text):
        raise InvalidArgument(f"{value!r} is not an email address; pass one like 'jane.doe@example.test'")
    return text


def text(value: str, param: str, *, limit: int, required: bool = True) -> str:
    """Trimmed text within ``limit`` characters; empty only when not ``required``."""
    cleaned = value.strip()
    if required and not cleaned:
        raise InvalidArgument(f"{param} must not be empty; pass it as text with at least one character")
    if len(cleaned) > limit:
        raise InvalidArgument(f"{param} is {len(cleaned)} characters long; keep it under {limit}")
    return cleaned


def ordered_days(after: str | None, before: str | None) -> tuple[str | None, str | None]:
    """Normalised date bounds, refusing a window that ends before it starts."""
    low = iso_date(after, "close_after") if after is not None else None
    high = iso_date(before, "close_before") if before is not None else None
    if low and high and low > high:
        raise InvalidArgument(f"close_after ({low}) is later than close_before ({high}); swap them")
    return low, high


# ------------------------------------------------------------------------------- records
# Each lookup tries the primary key first (an index hit) and only then the looser spellings.
def _by_id(w: World, table: str, ref: str) -> sqlite3.Row | None:
    return w.db.execute(f"SELECT * FROM {table} WHERE id = ?", (ref,)).fetchone()


def account(w: World, ref: str) -> sqlite3.Row:
    """An account by id, or by its exact name (case-insensitive)."""
    key = ref.strip()
    row = _by_id(w, "crm_account", key) or w.db.execute(
        "SELECT * FROM crm_account WHERE name = ? COLLATE NOCASE ORDER BY id LIMIT 1", (key,)
    ).fetchone()
    if row is None:
        names = [r[0] for r in w.db.execute("SELECT name FROM crm_account")]
        raise NotFound(f"no account {ref!r}.{_closest(key, names)} Use crm_search_accounts to find account ids")
    return row


def contact(w: World, ref: str) -> sqlite3.Row:
    """A contact by id or by email address."""
    key = ref.strip()
    row = _by_id(w, "crm_contact", key) or w.db.execute(
        "SELECT * FROM crm_contact WHERE email = ? COLLATE NOCASE ORDER BY id LIMIT 1", (key,)
    ).fetchone()
    if row is None:
        raise NotFound(f"no contact {ref!r}; use crm_search_contacts to find contact ids")
    return row


def deal(w: World, ref: str) -> sqlite3.Row:
    """A deal by id, or by its exact name when only one deal has it."""
    key = ref.strip()
    row = _by_id(w, "crm_deal", key)
    if row is not None:
        return row
    rows = w.db.execute("SELECT * FROM crm_deal WHERE name = ? COLLATE NOCASE LIMIT 3", (key,)).fetchall()
    if len(rows) == 1:
        return rows[0]
    if rows:
        ids = ", ".join(r["id"] for r in rows)
        raise InvalidArgument(f"several deals are named {ref!r} ({ids}); pass the deal id")
    raise NotFound(f"no deal {ref!r}; use crm_search_deals to find deal ids")


def invoice(w: World, ref: str) -> sqlite3.Row:
    """An invoice by id ('inv_5') or by number ('INV-2026-0042')."""
    key = ref.strip()
    row = _by_id(w, "crm_invoice", key)
    if row is not None:
        return row
    rows = w.db.execute(
        "SELECT * FROM crm_invoice WHERE number = ? COLLATE NOCASE ORDER BY id LIMIT 3", (key,)
    ).fetchall()
    if len(rows) > 1:
        ids = ", ".join(r["id"] for r in rows)
        raise InvalidArgument(f"several invoices are numbered {ref!r} ({ids}); pass the invoice id")
    if not rows:
        raise NotFound(f"no invoice {ref!r}; use crm_search_invoices to find invoice ids and numbers")
    return rows[0]


def activity(w: World, ref: str) -> sqlite3.Row:
    """A logged activity by id."""
    row = _by_id(w, "crm_activity", ref.strip())
    if row is None:
        raise NotFound(f"no activity {ref!r}; use crm_list_activities to find activity ids")
    return row
