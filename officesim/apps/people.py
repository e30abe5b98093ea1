"""Colleagues named in tool arguments: one way to resolve them, in every app.

A model may name an employee by person id ('p_12'), email address, or full name, with or without
the '@' chat uses.  Ids and emails are index lookups; a name is the fallback and must be
unambiguous.  Mail recipients are another matter (any address, customers included) and the mail
app checks them itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from officesim.errors import InvalidArgument, NotFound

if TYPE_CHECKING:
    from officesim.world import World

_COLUMNS = "id, name, email, title, department_id, manager_id, role, location, phone"


def employee(w: World, ref: str, param: str = "person", *, outsiders: str = "") -> dict[str, Any]:
    """The directory row of the employee ``ref`` names (id, email or exact full name).

    ``param`` names the argument in messages; ``outsiders`` is appended when ``ref`` is an email
    outside the company, to say what the model can do for such a person instead.

    Raises:
        InvalidArgument: ``ref`` is empty, or a name several employees share.
        NotFound: nobody in the directory matches.
    """
    text = ref.strip().lstrip("@").strip()
    if not text:
        raise InvalidArgument(f"{param} is empty; pass a colleague's email or person id "
                              "(directory_search_people finds them)")
    column, key = ("email", text.lower()) if "@" in text else ("id", text)
    row = w.db.execute(f"SELECT {_COLUMNS} FROM directory_person WHERE {column} = ?", (key,)).fetchone()
    if row is not None:
        return dict(row)
    rows = w.db.execute(
        f"SELECT {_COLUMNS} FROM directory_person WHERE name = ? COLLATE NOCASE ORDER BY length(id), id LIMIT 3",
        (text,),
    ).fetchall()
    if len(rows) == 1:
        return dict(rows[0])
    if rows:
        emails = ", ".join(r["email"] for r in rows)
        raise InvalidArgument(f"more than one employee is called {text[:80]!r} ({emails}); pass the email or person "
                              "id of the one you mean")
    domain = (w.meta("domain") or "").lower()
    outside = "@" in text and not text.lower().endswith(f"@{domain}")
    hint = f" {text[:80]} is outside {domain}. {outsiders}" if outside and outsiders else ""
    raise NotFound(f"{param} {ref[:80]!r} is not an employee; pass a colleague's email or person id "
                   f"(directory_search_people finds them).{hint}".rstrip())
