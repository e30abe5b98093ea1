"""Recipient addresses: what a model may write in to/cc/bcc, checked and normalised.

A recipient is any email address (customers and other outsiders have no directory row) or a
colleague's person id.  Addresses in the company's own domain must belong to an employee: a typo
there would silently lose the mail, so it is refused with a pointer to the directory.
"""

from __future__ import annotations

import re
from email.utils import parseaddr
from typing import TYPE_CHECKING

from officesim.errors import InvalidArgument, NotFound
from officesim.paging import like

if TYPE_CHECKING:
    from officesim.world import World

# A pragmatic addr-spec: no spaces or brackets, one '@', a dotted domain.
_EMAIL = re.compile(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
                    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$")
_PERSON_ID = re.compile(r"^p_\d+$")
MAX_RECIPIENTS = 200


def _suggest(w: World, text: str) -> str:
    """Up to three colleagues whose name or email contains ``text``, as a hint."""
    words = [part for part in re.split(r"[\s.@_]+", text) if len(part) >= 2][:3]
    if not words:
        return ""
    clause = " AND ".join("(name LIKE +? ESCAPE '\\' OR email LIKE +? ESCAPE '\\')" for _ in words)
    params = [p for word in words for p in (like(word), like(word))]
    rows = w.db.execute(
        f"SELECT name, email FROM directory_person WHERE {clause} ORDER BY name LIMIT 3", params
    ).fetchall()
    if not rows:
        return ""
    return " Did you mean " + " or ".join(f"{r['email']} ({r['name']})" for r in rows) + "?"


def normalize_address(w: World, ref: str, field: str) -> str:
    """One recipient as a lower-case email; a person id becomes that person's email.

    Raises:
        InvalidArgument: ``ref`` is neither an email address nor a person id.
        NotFound: a person id or company address that belongs to nobody in the directory.
    """
    text = ref.strip()
    if _PERSON_ID.match(text):
        row = w.db.execute("SELECT email FROM directory_person WHERE id = ?", (text,)).fetchone()
        if row is None:
            raise NotFound(f"{field}: no employee with id {text!r}; use directory_search_people to find people")
        return row["email"]
    _, address = parseaddr(text)  # accepts 'Name <a@b.test>' as well as a bare address
    if not _EMAIL.match(address or ""):
        raise InvalidArgument(
            f"{field}: {ref!r} is not an email address.{_suggest(w, text)} Recipients must be full email "
            "addresses like 'name@company.test' (or person ids like 'p_12'); use directory_search_people "
            "to look up a colleague's email, or crm_search_contacts for a customer's"
        )
    address = address.lower()
    domain = w.meta("domain") or ""
    if domain and address.endswith(f"@{domain}"):
        row = w.db.execute("SELECT email FROM directory_person WHERE email = ?", (address,)).fetchone()
        if row is None:
            raise NotFound(
                f"{field}: nobody at {domain} has the address {address!r}.{_suggest(w, address.split('@')[0])} "
                "Use directory_search_people to find the right email"
            )
    return address


def normalize_list(w: World, refs: list[str] | None, field: str) -> list[str]:
    """A recipient list: each address normalised, duplicates dropped, order kept."""
    out: list[str] = []
    for ref in refs or []:
        address = normalize_address(w, ref, field)
        if address not in out:
            out.append(address)
    if len(out) > MAX_RECIPIENTS:
        raise InvalidArgument(f"{field}: {len(out)} recipients is too many; the limit is {MAX_RECIPIENTS}")
    return out


def internal_people(w: World, emails: list[str]) -> dict[str, str]:
    """Email -> person id for the addresses that belong to employees (they get mailbox entries)."""
    if not emails:
        return {}
    marks = ",".join("?" * len(emails))
    rows = w.db.execute(f"SELECT id, email FROM directory_person WHERE email IN ({marks})", emails).fetchall()
    return {r["email"]: r["id"] for r in rows}
