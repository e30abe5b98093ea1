"""Drive tools: find, read, create and change folders, documents and spreadsheets, and share them.

Access rules (``access.py``): you see files you own, files shared with you or with the whole
company, and everything inside a folder you can see.  Editors and owners change content and
share; only the owner moves, deletes or restores.  Trashed files are hidden everywhere except
``drive_list_folder(folder_id='trash')``, which lists your own trashed files; deleting a folder
never trashes what other people own in it (it moves to their My Drive).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any, Literal

from annotated_types import MaxLen

from officesim.apps.drive.access import (
    ROLE_RANK,
    can_edit,
    require_edit,
    require_owner,
    require_view,
    visible_files_sql,
)
from officesim.apps.drive.files import (
    FOLDER_COLUMNS,
    LIST_COLUMNS,
    ROOT_ALIASES,
    TRASH,
    check_name_free,
    clean_name,
    descendants,
    free_root_name,
    new_file,
    owned_subtree,
    person_brief,
    require_kind,
    summary,
    target_folder,
    touch,
    visible_parent,
    visible_path,
)
from officesim.apps.drive.sheet_tools import (  # the spreadsheet tools, registered with this app
    drive_append_rows,
    drive_create_sheet,
    drive_delete_rows,
    drive_read_sheet,
    drive_update_rows,
)
from officesim.apps.people import employee
from officesim.apps.search import contains_params, contains_sql, query_terms
from officesim.errors import Conflict, InvalidArgument, PermissionDenied
from officesim.paging import bounded, clip, like, paged
from officesim.tools import tool

if TYPE_CHECKING:
    from officesim.world import World

DOC_WINDOW = 4000
MAX_DOC = 200_000
DocText = Annotated[str, MaxLen(MAX_DOC)]  # checked by the registry before any work
SNIPPET = 80
MAX_GRANTS = 50  # grants listed in one result
_GRANTS_HINT = ("direct grants come first, then those inherited from folders; change one person's access "
                "with drive_share_file")

_OWNER_JOIN = "LEFT JOIN directory_person o ON o.id = f.owner_id"
# One query word: in the name, a document's text, or a spreadsheet's headers or cells.
_TERM_SQL = (
    f"(f.name LIKE +? ESCAPE '\\' OR (f.kind = 'doc' AND {contains_sql('f.content')}) "
    "OR (f.kind = 'sheet' AND EXISTS (SELECT 1 FROM drive_sheet s WHERE s.file_id = f.id AND "
    f"({contains_sql('s.columns')} OR EXISTS (SELECT 1 FROM drive_row r WHERE r.sheet_id = s.id "
    f"AND {contains_sql('r.cells')})))))"
)


# ----------------------------------------------------------------------------- finding files
@tool(app="drive", kind="read")
def drive_search_files(
    w: World,
    query: str | None = None,
    kind: Literal["folder", "doc", "sheet"] | None = None,
    owner: str | None = None,
    cursor: str | None = None,
    limit: int = 20,
) -> dict[str, Any]:
    """Search the Drive files you can open, by name and content.

    Every word of the query must appear in the file's name, a document's text, or a
    spreadsheet's headers or cells (case-insensitive); put a phrase in double quotes to match it
    as written. Files whose name contains the whole query
    come first, then the most recently modified. Trashed files are never returned.

    Args:
        query: Words to look for, e.g. 'travel policy' or 'Q3 budget'. Null lists every file you can open.
        kind: Only files of this kind: 'folder', 'doc' (document) or 'sheet' (spreadsheet).
        owner: Only files owned by this person (email or person id).
        cursor: The next_cursor of a previous result, to read the next page.
        limit: Results per page, 1 to 100.
    """
    cte, params = visible_files_sql(w)
    clauses: list[str] = []
    terms = query_terms(query)
    for term in terms:
        clauses.append(_TERM_SQL)
        params += [like(term), *contains_params(term) * 3]
    if kind is not None:
        clauses.append("f.kind = ?")
        params.append(kind)
    if owner is not None:
        clauses.append("f.owner_id = ?")
        params.append(employee(w, owner, "owner")["id"])
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    params.append(like(" ".join(terms)))
    sql = (
        f"{cte} SELECT {LIST_COLUMNS}, v.rank, f.content FROM drive_file f JOIN visible v ON v.id = f.id "
        f"{_OWNER_JOIN}{where} ORDER BY (f.name LIKE +? ESCAPE '\\') DESC, f.modified_at DESC, f.id"
    )
    folded = [t.casefold() for t in terms]

    def render(row: Any) -> dict[str, Any]:
        item = summary(row, row["rank"])
        if row["kind"] == "doc" and folded:
            item["snippet"] = _snippet(row["content"], folded)
        return item

    return paged(w.db, sql, params, cursor=cursor, limit=limit, key="files", render=render)


def _snippet(content: str, terms: list[str]) -> str | None:
    """About 160 characters of a document around the first query word it contains."""
    lowered = content.casefold()
    hits = [i for i in (lowered.find(t) for t in terms) if i >= 0]
    if not hits:
        return None
    start = max(0, min(hits) - SNIPPET)
    text = content[start : min(hits) + SNIPPET].replace("\n", " ")
    return ("..." if start else "") + text + ("..." if min(hits) + SNIPPET < len(content) else "")


@tool(app="drive", kind="read")
def drive_list_folder(
    w: World, folder_id: str | None = None, cursor: str | None = None, limit: int = 20
) -> dict[str, Any]:
    """List what is in a folder: subfolders first, then files, by name.

    With folder_id null you get your top level: "My Drive" (files you own that are not in a folder
    you can see, section 'my_drive') followed by files and folders others shared with you
    (section 'shared_with_me'). folder_id 'trash' lists your own trashed files.

    Args:
        folder_id: A folder id (e.g. 'f_3'), null for your top level, or 'trash'.
        cursor: The next_cursor of a previous result, to read the next page.
        limit: Results per page, 1 to 100.
    """
    key = (folder_id or "").strip().casefold()
    if folder_id is None or not key or key in ROOT_ALIASES:
        cte, params = visible_files_sql(w)
        sql = (
            f"{cte} SELECT {LIST_COLUMNS}, v.rank FROM drive_file f JOIN visible v ON v.id = f.id {_OWNER_JOIN} "
            "WHERE f.parent_id IS NULL OR f.parent_id NOT IN (SELECT id FROM visible) "
            "ORDER BY (f.owner_id = ?1) DESC, (f.kind = 'folder') DESC, f.name COLLATE NOCASE, f.id"
        )

        def render_top(row: Any) -> dict[str, Any]:
            section = "my_drive" if row["owner_id"] == w.user_id else "shared_with_me"
            return {**summary(row, row["rank"]), "section": section}

        page = paged(w.db, sql, params, cursor=cursor, limit=limit, key="files", render=render_top)
        return {"folder": {"id": None, "name": "My Drive"}, **page}
    if key == TRASH:
        cte, params = visible_files_sql(w)
        sql = (
            f"{cte} SELECT {LIST_COLUMNS} FROM drive_file f {_OWNER_JOIN} WHERE f.owner_id = ?1 AND f.trashed = 1 "
            "ORDER BY f.name COLLATE NOCASE, f.id"
        )
        page = paged(w.db, sql, params, cursor=cursor, limit=limit, key="files",
                     render=lambda r: {**summary(r, 3), "trashed": True})
        return {"folder": {"id": "trash", "name": "Trash"}, **page}
    folder = require_view(w, folder_id)
    require_kind(folder, "folder")
    inherited = min(ROLE_RANK[folder["role"]], ROLE_RANK["editor"])
    sql = (
        f"SELECT {FOLDER_COLUMNS}, max(?2, CASE WHEN f.owner_id = ?1 THEN 3 ELSE 0 END, "
        "coalesce((SELECT max(CASE p.role WHEN 'editor' THEN 2 ELSE 1 END) FROM drive_permission p "
        "WHERE p.file_id = f.id AND (p.principal = 'domain' OR p.person_id = ?1)), 0)) AS rank "
        f"FROM drive_file f {_OWNER_JOIN} WHERE f.parent_id = ?3 AND f.trashed = 0 "
        "ORDER BY (f.kind = 'folder') DESC, f.name COLLATE NOCASE, f.id"
    )
    params = [w.user_id, inherited, folder_id]
    page = paged(w.db, sql, params, cursor=cursor, limit=limit, key="files",
                 render=lambda r: summary(r, r["rank"]))
    return {"folder": {"id": folder["id"], "name": folder["name"], "path": visible_path(w, folder_id)}, **page}


# ----------------------------------------------------------------------------- reading
@tool(app="drive", kind="read")
def drive_get_file(w: World, file_id: str) -> dict[str, Any]:
    """Get a file's details: kind, owner, folder path, last change, who it is shared with, and
    for spreadsheets the list of sheets with their columns and row counts.

    The sharing list ('shared_with') is shown only when you may share the file (editor or owner).

    Args:
        file_id: The file id, e.g. 'f_12'.
    """
    row = require_view(w, file_id)
    owner = person_brief(w, row["owner_id"])
    editor = person_brief(w, row["modified_by"])
    can_share = ROLE_RANK[row["role"]] >= ROLE_RANK["editor"]
    out: dict[str, Any] = {
        "id": row["id"], "name": row["name"], "kind": row["kind"], "parent_id": visible_parent(w, row["parent_id"]),
        "path": visible_path(w, file_id), "owner_id": row["owner_id"], "owner_name": owner["name"],
        "owner_email": owner["email"], "created_at": row["created_at"], "modified_at": row["modified_at"],
        "modified_by_name": editor["name"], "modified_by_email": editor["email"],
        "your_role": row["role"], "can_share": can_share,
    }
    if can_share:
        bounded(out, "shared_with", _grants(w, file_id, out["path"]), MAX_GRANTS, _GRANTS_HINT)
    if row["kind"] == "doc":
        out["length"] = len(row["content"])
    elif row["kind"] == "folder":
        out["items"] = w.db.execute(
            "SELECT count(*) FROM drive_file WHERE parent_id = ? AND trashed = 0", (file_id,)
        ).fetchone()[0]
    else:
        tabs = w.db.execute(
            "SELECT s.name, s.columns, s.column_types, (SELECT count(*) FROM drive_row r WHERE r.sheet_id = s.id) "
            "AS rows FROM drive_sheet s WHERE s.file_id = ? ORDER BY s.position, s.id",
            (file_id,),
        ).fetchall()
        out["sheets"] = [
            {"name": t["name"], "columns": json.loads(t["columns"]),
             "column_types": json.loads(t["column_types"]), "rows": t["rows"]}
            for t in tabs
        ]
    return out


def _grants(w: World, file_id: str, path: list[dict[str, str]]) -> list[dict[str, Any]]:
    """Direct grants on the file, then those inherited from the visible folders above it.

    Stops after ``MAX_GRANTS + 1`` (a department folder is shared with every member), so that
    ``bounded`` can say the list was cut.
    """
    sources = [file_id, *reversed([p["id"] for p in path])]
    company = w.meta("company") or "the company"
    out: list[dict[str, Any]] = []
    for source in sources:
        rows = w.db.execute(
            "SELECT g.principal, g.person_id, g.role, p.name, p.email FROM drive_permission g "
            "LEFT JOIN directory_person p ON p.id = g.person_id WHERE g.file_id = ? "
            "ORDER BY g.principal, p.name, g.id",
            (source,),
        ).fetchall()
        for g in rows:
            item: dict[str, Any] = {"principal": g["principal"], "role": g["role"]}
            if g["principal"] == "domain":
                item["name"] = f"Everyone at {company}"
            else:
                item.update(person_id=g["person_id"], name=g["name"], email=g["email"])
            item["inherited_from"] = None if source == file_id else source
            out.append(item)
            if len(out) > MAX_GRANTS:
                return out
    return out


@tool(app="drive", kind="read")
def drive_get_doc(w: World, file_id: str, offset: int = 0) -> dict[str, Any]:
    """Read a document's text. Long documents come in windows of 4000 characters; when
    'truncated' is true, call again with offset=next_offset to read on.

    Args:
        file_id: The document's file id, e.g. 'f_12'.
        offset: Character position to start reading from (0 = the beginning).
    """
    row = require_view(w, file_id)
    require_kind(row, "doc")
    owner = person_brief(w, row["owner_id"])
    return {
        "id": row["id"], "name": row["name"], "owner_name": owner["name"], "owner_email": owner["email"],
        "modified_at": row["modified_at"], "length": len(row["content"]),
        **clip(row["content"], offset=offset, limit=DOC_WINDOW, how=f"Call drive_get_doc on {file_id}"),
    }


# ----------------------------------------------------------------------------- creating
@tool(app="drive", kind="write")
def drive_create_doc(w: World, name: str, content: DocText = "", folder_id: str | None = None) -> dict[str, Any]:
    """Create a document (plain text or markdown) that you own.

    Names are unique within a folder. You need editor access to the folder.

    Args:
        name: The document's name, e.g. 'Q3 travel expense summary'.
        content: The document's text (markdown is fine).
        folder_id: The folder to create it in; null puts it in your My Drive.
    """
    name = clean_name(name, "document")
    if len(content) > MAX_DOC:
        raise InvalidArgument(f"content is {len(content)} characters; a document holds at most {MAX_DOC}")
    parent = target_folder(w, folder_id)
    check_name_free(w, name, parent)
    w.tick()
    return {**new_file(w, name, "doc", parent, content), "length": len(content)}


@tool(app="drive", kind="write")
def drive_create_folder(w: World, name: str, folder_id: str | None = None) -> dict[str, Any]:
    """Create a folder that you own.

    Args:
        name: The folder's name, e.g. 'Q3 close'.
        folder_id: The folder to create it in (as for drive_create_doc); null puts it in your My Drive.
    """
    name = clean_name(name, "folder")
    parent = target_folder(w, folder_id)
    check_name_free(w, name, parent)
    w.tick()
    return new_file(w, name, "folder", parent)


# ----------------------------------------------------------------------------- changing content
@tool(app="drive", kind="write")
def drive_update_doc(
    w: World, file_id: str, content: DocText, mode: Literal["replace", "append"] = "replace"
) -> dict[str, Any]:
    """Change a document's text: replace all of it, or append to the end (on a new line).

    You need editor access (or ownership).

    Args:
        file_id: The document's file id, e.g. 'f_12'.
        content: The new text (replace) or the text to add at the end (append).
        mode: 'replace' overwrites the whole document; 'append' adds content after the current text.
    """
    row = require_edit(w, file_id)
    require_kind(row, "doc")
    text = content
    if mode == "append" and row["content"]:
        separator = "" if row["content"].endswith("\n") else "\n"
        text = row["content"] + separator + content
    if len(text) > MAX_DOC:
        raise InvalidArgument(f"the document would be {len(text)} characters; at most {MAX_DOC} fit")
    w.tick()
    w.db.execute("UPDATE drive_file SET content = ? WHERE id = ?", (text, file_id))
    now = touch(w, file_id)
    return {"id": file_id, "name": row["name"], "mode": mode, "length": len(text), "modified_at": now}


# ----------------------------------------------------------------------------- sharing, moving
@tool(app="drive", kind="write")
def drive_share_file(
    w: World,
    file_id: str,
    person: str | None = None,
    role: Literal["viewer", "editor", "none"] = "viewer",
    domain: bool = False,
) -> dict[str, Any]:
    """Share a file (or folder, with everything in it) with a colleague or the whole company.

    Editors and owners can share. Sharing again with the same person changes their role; role
    'none' removes their direct access. Only employees can be given access.

    Args:
        file_id: The file or folder id, e.g. 'f_12'.
        person: The colleague's email or person id. Leave null when domain is true.
        role: 'viewer' (can read), 'editor' (can change and share), or 'none' (remove access).
        domain: True to share with everyone in the company instead of one person.
    """
    row = require_view(w, file_id)
    if (person is None) == (not domain):
        raise InvalidArgument("give either person (an email or person id) or domain=true, not both or neither")
    if row["role"] == "viewer":
        raise PermissionDenied(
            f"you have view-only access to {row['name']!r} ({file_id}); only its editors and owner can share it"
        )
    who: dict[str, Any] = {"principal": "domain"}
    if person is not None:
        target = employee(w, person, "person", outsiders="Drive files can only be shared with employees; "
                          "attach the file to a mail (mail_send_message) to send it outside the company.")
        if target["id"] == row["owner_id"]:
            raise Conflict(f"{target['email']} owns {row['name']!r} and already has full access")
        if target["id"] == w.user_id:
            raise Conflict(f"{target['email']} is you; share with a colleague's email or person id instead")
        who = {"principal": "person", "person_id": target["id"], "email": target["email"],
               "person_name": target["name"]}
    if domain:
        grant = w.db.execute(
            "SELECT id, role FROM drive_permission WHERE file_id = ? AND principal = 'domain'", (file_id,)
        ).fetchone()
    else:
        grant = w.db.execute(
            "SELECT id, role FROM drive_permission WHERE file_id = ? AND principal = 'person' AND person_id = ?",
            (file_id, who["person_id"]),
        ).fetchone()
    label = "the company" if domain else who["email"]
    if role == "none":
        if grant is None:
            raise Conflict(f"{label} has no direct access to {row['name']!r} to remove; drive_get_file lists who "
                           "has access (access inherited from a folder is removed on that folder)")
        status = "removed"
    elif grant is None:
        status = "created"
    else:
        status = "unchanged" if grant["role"] == role else "updated"
    if status != "unchanged":
        w.tick()
        if status == "removed":
            w.db.execute("DELETE FROM drive_permission WHERE id = ?", (grant["id"],))
        elif status == "updated":
            w.db.execute("UPDATE drive_permission SET role = ? WHERE id = ?", (role, grant["id"]))
        else:
            w.db.execute(
                "INSERT INTO drive_permission (id, file_id, principal, person_id, role) VALUES (?, ?, ?, ?, ?)",
                (w.new_id("perm"), file_id, who["principal"], who.get("person_id"), role),
            )
    out = {"file_id": file_id, "name": row["name"], **who, "role": role, "status": status}
    bounded(out, "shared_with", _grants(w, file_id, []), MAX_GRANTS, _GRANTS_HINT)
    return out


@tool(app="drive", kind="write")
def drive_move_file(w: World, file_id: str, folder_id: str | None = None) -> dict[str, Any]:
    """Move a file or folder you own into another folder (or back to your My Drive).

    Only the owner can move a file; you need editor access to the destination folder.

    Args:
        file_id: The file or folder to move, e.g. 'f_12'.
        folder_id: The destination folder id; null moves it to your My Drive.
    """
    row = require_owner(w, file_id, "move")
    parent = target_folder(w, folder_id)
    if parent is not None and parent in descendants(w, file_id):
        raise InvalidArgument(f"cannot move {row['name']!r} into itself or one of its own subfolders")
    if parent == row["parent_id"]:
        raise Conflict(f"{row['name']!r} is already in {'your My Drive' if parent is None else parent}; "
                       "nothing to move (pass another folder_id to move it elsewhere)")
    check_name_free(w, row["name"], parent, exclude=file_id)
    w.tick()
    w.db.execute("UPDATE drive_file SET parent_id = ? WHERE id = ?", (parent, file_id))
    return {"id": file_id, "name": row["name"], "kind": row["kind"], "parent_id": parent,
            "path": visible_path(w, file_id)}


@tool(app="drive", kind="write")
def drive_delete_file(w: World, file_id: str) -> dict[str, Any]:
    """Move a file or folder you own to your trash; drive_restore_file brings it back.

    Only the owner can delete. A folder goes with everything in it that you own; files and
    folders other people own inside it are not yours to delete: they move to their owner's My
    Drive, where the owner still finds them. Trashed files disappear from search and folders for
    everyone; drive_list_folder with folder_id='trash' lists yours.

    Args:
        file_id: The file or folder id, e.g. 'f_12'.
    """
    row = require_owner(w, file_id, "delete")
    mine, others = owned_subtree(w, file_id)
    w.tick()
    marks = ",".join("?" * len(mine))
    w.db.execute(f"UPDATE drive_file SET trashed = 1 WHERE trashed = 0 AND id IN ({marks})", mine)
    for other in others:  # out of the trashed folder, into their owner's My Drive
        w.db.execute("UPDATE drive_file SET parent_id = NULL, name = ? WHERE id = ?",
                     (free_root_name(w, other["name"], other["owner_id"], other["id"]), other["id"]))
    out: dict[str, Any] = {"id": file_id, "name": row["name"], "kind": row["kind"], "trashed": True,
                           "items_trashed": len(mine)}
    if others:
        out["moved_to_their_owners"] = [{"id": o["id"], "name": o["name"], "owner_email": o["owner_email"]}
                                        for o in others[:MAX_GRANTS]]
    return out


@tool(app="drive", kind="write")
def drive_restore_file(w: World, file_id: str) -> dict[str, Any]:
    """Take a file or folder you own out of your trash, with what was trashed inside it.

    It goes back to its folder when that folder is still there and you can add files to it,
    otherwise to your My Drive. drive_list_folder with folder_id='trash' lists your trash.

    Args:
        file_id: The trashed file or folder id, e.g. 'f_12'.
    """
    row = w.db.execute("SELECT * FROM drive_file WHERE id = ?", (file_id.strip(),)).fetchone()
    if row is None or row["owner_id"] != w.user_id or not row["trashed"]:
        require_owner(w, file_id, "restore")  # the clearest error: not found, not yours, ...
        raise Conflict(f"{row['name']!r} ({row['id']}) is not in the trash; there is nothing to restore")
    parent = row["parent_id"]
    if parent is not None and not can_edit(w, parent):
        parent = None  # its folder is gone (trashed, or no longer shared with you): My Drive
    check_name_free(w, row["name"], parent, exclude=row["id"])
    mine, _ = owned_subtree(w, row["id"], trashed=True)
    w.tick()
    marks = ",".join("?" * len(mine))
    w.db.execute(f"UPDATE drive_file SET trashed = 0 WHERE id IN ({marks})", mine)
    w.db.execute("UPDATE drive_file SET parent_id = ? WHERE id = ?", (parent, row["id"]))
    return {"id": row["id"], "name": row["name"], "kind": row["kind"], "parent_id": parent,
            "path": visible_path(w, row["id"]), "items_restored": len(mine)}


__all__ = [
    "drive_append_rows",
    "drive_create_doc",
    "drive_create_folder",
    "drive_create_sheet",
    "drive_delete_file",
    "drive_delete_rows",
    "drive_get_doc",
    "drive_get_file",
    "drive_list_folder",
    "drive_move_file",
    "drive_read_sheet",
    "drive_restore_file",
    "drive_search_files",
    "drive_share_file",
    "drive_update_doc",
    "drive_update_rows",
]
