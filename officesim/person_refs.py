"""Person references in task files: ``role:cfo``, ``p_12``, an email address, or ``user``.

Task authors never write faker names: a role key survives regeneration of the world, an id or an
email pins one exact person, and ``user`` is whoever the agent acts as.  Setup steps and graders
resolve references through this module so that both read them the same way.  An unresolvable
reference is a broken task, so it raises ``SpecError`` (never a ``ToolError``: the model did
nothing wrong).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from officesim.apps.directory.generate import ROLES
from officesim.errors import SpecError

if TYPE_CHECKING:
    from officesim.world import World

ROLE_PREFIX = "role:"
USER_REF = "user"
_PERSON_ID = re.compile(r"^p_\d+$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
# Tool-argument fields whose values are people; refs there become email addresses in setup calls.
PERSON_FIELDS = frozenset(
    {"to", "cc", "bcc", "person", "people", "member", "members", "recipient", "recipients", "owner",
     "user", "assignee", "invitee", "invitees", "attendees", "with_person"}
)
# Table columns that hold a person id (``owner_id``, ``modified_by``); other columns hold emails.
_ID_COLUMN = re.compile(r"(^|_)(id|by)$")


def is_ref_syntax(ref: str) -> bool:
    """Whether ``ref`` has the shape of a person reference (does not look the person up)."""
    return ref == USER_REF or ref.startswith(ROLE_PREFIX) or bool(_PERSON_ID.match(ref) or _EMAIL.match(ref))


def check_ref_syntax(ref: str) -> str | None:
    """Why ``ref`` can never resolve (unknown role key, bad shape), or ``None`` when it may.

    Used when loading task files, before any world exists, so a typo like ``role:cfoo`` is reported
    with the file and field instead of at the first episode.
    """
    if ref.startswith(ROLE_PREFIX):
        key = ref[len(ROLE_PREFIX):]
        if key not in ROLES:
            return f"unknown role key {key!r} (known: {', '.join(ROLES)})"
        return None
    if not is_ref_syntax(ref):
        return f"{ref!r} is not a person reference (use role:<key>, p_<n>, an email address or 'user')"
    return None


def resolve_person(world: World, ref: str) -> dict[str, Any]:
    """The directory row of an employee named by ``ref``; ``SpecError`` when nobody matches."""
    ref = ref.strip()
    if ref == USER_REF:
        key, value = "id", world.user_id
    elif ref.startswith(ROLE_PREFIX):
        key, value = "role", ref[len(ROLE_PREFIX):]
    elif _PERSON_ID.match(ref):
        key, value = "id", ref
    else:
        key, value = "email", ref
    row = world.db.execute(
        f"SELECT * FROM directory_person WHERE {key} = ? COLLATE NOCASE ORDER BY id LIMIT 1", (value,)
    ).fetchone()
    if row is None:
        raise SpecError(f"person reference {ref!r} matches nobody in the directory of world "
                        f"{world.meta('spec')!r} (seed {world.meta('seed')})")
    return dict(row)


def person_id(world: World, ref: str) -> str:
    """The person id an employee reference stands for."""
    return str(resolve_person(world, ref)["id"])


def email_of(world: World, ref: str) -> str:
    """The lower-cased email a reference stands for; external addresses pass through unchanged.

    Emails are the one form every mail and CRM record shares, so mail checks compare emails.
    """
    ref = ref.strip()
    if _EMAIL.match(ref) and not ref.startswith(ROLE_PREFIX):
        return ref.lower()
    return str(resolve_person(world, ref)["email"]).lower()


def emails_of(world: World, refs: Iterable[str]) -> set[str]:
    """The set of emails for several references."""
    return {email_of(world, ref) for ref in refs}


def looks_like_ref(value: Any) -> bool:
    """A string that must be a reference rather than data (``role:...`` or exactly ``user``)."""
    return isinstance(value, str) and (value.startswith(ROLE_PREFIX) or value == USER_REF)


def resolve_arguments(world: World, arguments: dict[str, Any]) -> dict[str, Any]:
    """Tool arguments with person references replaced by emails.

    Values of person fields (``to``, ``cc``, ``person``, ...) are resolved in every form; elsewhere
    only unmistakable ``role:`` references are (a subject line saying "user" stays as it is).
    """
    return {key: _resolve_value(world, value, key in PERSON_FIELDS) for key, value in arguments.items()}


def _resolve_value(world: World, value: Any, person_field: bool) -> Any:
    if isinstance(value, str):
        if value.startswith(ROLE_PREFIX) or (person_field and (value == USER_REF or _PERSON_ID.match(value))):
            return email_of(world, value)
        return value
    if isinstance(value, list):
        return [_resolve_value(world, item, person_field) for item in value]
    if isinstance(value, dict):
        return {k: _resolve_value(world, v, person_field or k in PERSON_FIELDS) for k, v in value.items()}
    return value


def resolve_column_value(world: World, column: str, value: Any) -> Any:
    """A record value with references resolved for its column: ids for ``*_id``/``*_by``, else emails.

    Lists (JSON list columns like ``to``) are resolved item by item.
    """
    if isinstance(value, list):
        return [resolve_column_value(world, column, item) for item in value]
    if not looks_like_ref(value):
        return value
    if _ID_COLUMN.search(column):
        return person_id(world, value)
    return email_of(world, value)
