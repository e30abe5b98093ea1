"""Directory tools: find colleagues and their emails, titles, departments and managers."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any

from officesim.apps.people import employee
from officesim.apps.search import match_all, query_terms
from officesim.errors import NotFound
from officesim.paging import bounded, paged
from officesim.tools import tool

if TYPE_CHECKING:
    import sqlite3

    from officesim.world import World

MAX_REPORTS = 50  # direct reports listed with a person (a CEO's can be a whole company)
_PERSON_SQL = (
    "SELECT p.id, p.name, p.email, p.title, p.location, p.phone, p.manager_id, d.name AS department "
    "FROM directory_person p JOIN directory_department d ON d.id = p.department_id"
)


def _person(row: sqlite3.Row) -> dict[str, Any]:
    return dict(row)


def _department_name(w: World, name: str) -> str:
    """An existing department's name (case-insensitive), or NotFound suggesting the closest one."""
    names = [r[0] for r in w.db.execute("SELECT name FROM directory_department ORDER BY name")]
    for known in names:
        if known.casefold() == name.strip().casefold():
            return known
    close = difflib.get_close_matches(name.strip(), names, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise NotFound(f"no department named {name!r}; {hint}directory_list_departments lists them all")


@tool(app="directory", kind="read")
def directory_search_people(
    w: World,
    query: str | None = None,
    department: str | None = None,
    manager: str | None = None,
    cursor: str | None = None,
    limit: int = 20,
) -> dict[str, Any]:
    """Search the company directory for employees (name, email, title, department).

    Use this to find a colleague's email address before mailing, sharing or messaging them.

    Args:
        query: Words to find in the name, email, job title or department (case-insensitive; every word must
            match), e.g. 'finance' or 'Chief Financial Officer'. Null lists everyone.
        department: Only people in this department (exact name, e.g. 'Finance').
        manager: Only the direct reports of this person (id, email or full name).
        cursor: The next_cursor of a previous result, to read the next page.
        limit: Results per page, 1 to 100.
    """
    clauses, params = match_all(query_terms(query), ("p.name", "p.email", "p.title", "d.name", "p.role"))
    if department:
        clauses.append("d.name = ? COLLATE NOCASE")
        params.append(_department_name(w, department))
    if manager:
        clauses.append("p.manager_id = ?")
        params.append(employee(w, manager, "manager")["id"])
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    return paged(w.db, f"{_PERSON_SQL}{where} ORDER BY p.name, p.id", params,
                 cursor=cursor, limit=limit, key="people", render=_person)


@tool(app="directory", kind="read")
def directory_get_person(w: World, person: str) -> dict[str, Any]:
    """Get one employee's full directory entry, including their manager and direct reports.

    Args:
        person: The person's id (e.g. 'p_12'), email address or full name.
    """
    found = employee(w, person)
    entry = dict(w.db.execute(f"{_PERSON_SQL} WHERE p.id = ?", (found["id"],)).fetchone())
    reports = w.db.execute(
        "SELECT id, name, email FROM directory_person WHERE manager_id = ? ORDER BY name, id LIMIT ?",
        (entry["id"], MAX_REPORTS + 1),
    ).fetchall()
    bounded(entry, "direct_reports", [dict(r) for r in reports], MAX_REPORTS,
            f"use directory_search_people with manager='{entry['id']}' to list them all")
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
