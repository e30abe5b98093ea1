"""Directory tools: find colleagues and their emails, titles, departments and managers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from officesim.errors import NotFound
from officesim.results import like, paged
from officesim.tools import tool

if TYPE_CHECKING:
    import sqlite3

    from officesim.world import World

_PERSON_SQL = (
    "SELECT p.id, p.name, p.email, p.title, p.location, p.phone, p.manager_id, d.name AS department "
    "FROM directory_person p JOIN directory_department d ON d.id = p.department_id"
)


def _person(row: sqlite3.Row) -> dict[str, Any]:
    return dict(row)


@tool(app="directory", kind="read")
def directory_search_people(
    w: World,
    query: str | None = None,
    department: str | None = None,
    cursor: str | None = None,
    limit: int = 20,
) -> dict[str, Any]:
    """Search the company directory for employees (name, email, title, department).

    Use this to find a colleague's email address before mailing, sharing or messaging them.

    Args:
        query: Text to find in the name, email, job title or department (case-insensitive), e.g. 'finance'
            or 'Chief Financial Officer'. Null lists everyone.
        department: Only people in this department (exact name, e.g. 'Finance').
        cursor: The next_cursor of a previous result, to read the next page.
        limit: Results per page, 1 to 100.
    """
    clauses, params = [], []
    if query:
        fields = ("p.name", "p.email", "p.title", "d.name", "p.role")
        clauses.append("(" + " OR ".join(f"{f} LIKE ? ESCAPE '\\'" for f in fields) + ")")
        params += [like(query)] * len(fields)
    if department:
        clauses.append("d.name = ? COLLATE NOCASE")
        params.append(department)
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    return paged(w.db, f"{_PERSON_SQL}{where} ORDER BY p.name, p.id", params,
                 cursor=cursor, limit=limit, key="people", render=_person)


@tool(app="directory", kind="read")
def directory_get_person(w: World, person: str) -> dict[str, Any]:
    """Get one employee's full directory entry, including their manager and direct reports.

    Args:
        person: The person's id (e.g. 'p_12') or email address.
    """
    column = "p.email" if "@" in person else "p.id"
    row = w.db.execute(f"{_PERSON_SQL} WHERE {column} = ?", (person.strip().lower() if "@" in person else person,)).fetchone()
    if row is None:
        raise NotFound(f"no employee with id or email {person!r}; use directory_search_people to look them up")
    entry = dict(row)
    reports = w.db.execute(
        "SELECT id, name, email FROM directory_person WHERE manager_id = ? ORDER BY name", (entry["id"],)
    ).fetchall()
    entry["direct_reports"] = [dict(r) for r in reports]
    return entry


@tool(app="directory", kind="read")
def directory_list_departments(w: World) -> dict[str, Any]:
    """List the company's departments with their heads and headcount.

    Args:
    """
    rows = w.db.execute(
        "SELECT d.id, d.name, d.head_id, h.name AS head_name, h.email AS head_email, "
        "(SELECT count(*) FROM directory_person p WHERE p.department_id = d.id) AS headcount "
        "FROM directory_department d LEFT JOIN directory_person h ON h.id = d.head_id ORDER BY d.name"
    ).fetchall()
    return {"departments": [dict(r) for r in rows]}
