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
# Honorifics written without a dot (en_GB directories: "Mr Edward Read", "Dr Damien Elliott"); a
# word ending in a dot ("Mrs.", "Prof.", "Univ.Prof.") is a title or an initial either way.
TITLES = frozenset({"mr", "mrs", "ms", "miss", "mx", "dr", "prof", "sir", "dame", "herr", "frau", "mme", "mlle"})


def is_title(word: str) -> bool:
    """Whether ``word`` of a name is an honorific or title (or an initial): not what people call them by."""
    return word.endswith(".") or word.casefold() in TITLES


def given_name(name: str) -> str:
    """The first name people write ('Mr Edward Read' -> 'Edward', 'Prof. Dr. Karl Weiss' -> 'Karl')."""
    parts = [p for p in name.split() if not is_title(p)]
    return parts[0] if parts else name


def employee(w: World, ref: str, param: str = "person", *, outsiders: str = "") -> dict[str, Any]:
    """The directory row of the employee ``ref`` names (id, email or full name, with or without the
    honorific the directory writes: 'Edward Read' finds 'Mr Edward Read').

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
    if not rows:
        rows = _without_titles(w, text)
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


def _without_titles(w: World, text: str) -> list[Any]:
    """Employees whose name is ``text`` once honorifics are left off ('Edward Read' is 'Mr Edward Read'):
    a colleague is named without them, and the directory's form must not make that a miss."""
    wanted = [p.casefold() for p in text.split() if not is_title(p)]
    if len(wanted) < 2:
        return []
    rows = w.db.execute(f"SELECT {_COLUMNS} FROM directory_person WHERE name LIKE +? ORDER BY length(id), id",
                        (f"%{' '.join(text.split()[-1:])}%",)).fetchall()
    return [r for r in rows if [p.casefold() for p in str(r["name"]).split() if not is_title(p)] == wanted][:3]
