"""Who may see and change which Drive file: the one place the sharing rules live.

The rules (the tool docstrings repeat them for the model):

* A user **owns** the files whose ``owner_id`` is theirs.
* A grant (``drive_permission``) gives a person, or the whole company (``principal='domain'``),
  the role ``viewer`` or ``editor`` on a file.
* Grants are **inherited**: whoever can see a folder can see everything inside it, at least with
  the role they hold on the folder.  Owning a folder makes you an *editor* (not the owner) of the
  other people's files inside it.
* Effective role = the strongest of: owner (own file), editor (inherited from an owned folder),
  and every grant on the file or one of its ancestor folders.
* **Trashed** files (``trashed=1``) are visible to nobody through the normal tools; trashing a
  folder trashes everything inside it that its owner owns and moves other people's files out to
  their owners' My Drive, so a trashed ancestor never hides a live file and nobody loses a file
  to someone else's delete.  Owners restore their own trash.
* Viewing needs any role; editing content needs editor or owner; sharing needs editor or owner;
  moving and deleting need the owner.

Other apps (mail attachments, chat links) use ``can_view`` / ``require_view`` so that they never
hand out a file the acting user cannot open.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from officesim.errors import NotFound, PermissionDenied

if TYPE_CHECKING:
    from officesim.world import World

ROLE_RANK: dict[str, int] = {"viewer": 1, "editor": 2, "owner": 3}
RANK_ROLE: dict[int, str] = {rank: role for role, rank in ROLE_RANK.items()}
MAX_DEPTH = 64  # folder nesting bound; a guard against a cycle someone inserted by hand

# The strongest rank the acting user holds on one file, over its ancestor chain.
_RANK_SQL = f"""
WITH RECURSIVE anc(id, parent_id, owner_id, depth) AS (
    SELECT id, parent_id, owner_id, 0 FROM drive_file WHERE id = :file
    UNION ALL
    SELECT f.id, f.parent_id, f.owner_id, a.depth + 1
    FROM drive_file f JOIN anc a ON f.id = a.parent_id
    WHERE a.depth < {MAX_DEPTH}
)
SELECT max(rank) FROM (
    SELECT max(
        CASE WHEN a.owner_id = :user THEN (CASE WHEN a.depth = 0 THEN 3 ELSE 2 END) ELSE 0 END,
        coalesce((SELECT max(CASE p.role WHEN 'editor' THEN 2 ELSE 1 END) FROM drive_permission p
                  WHERE p.file_id = a.id AND (p.principal = 'domain' OR p.person_id = :user)), 0)
    ) AS rank FROM anc a
)
"""

# Every live file the acting user can see, with their rank: a CTE named ``visible(id, rank)``.
_VISIBLE_CTE = """
WITH RECURSIVE _reach(id, rank) AS (
    SELECT id, 3 FROM drive_file WHERE owner_id = ?1 AND trashed = 0
    UNION
    SELECT p.file_id, CASE p.role WHEN 'editor' THEN 2 ELSE 1 END
    FROM drive_permission p JOIN drive_file f ON f.id = p.file_id
    WHERE (p.principal = 'domain' OR p.person_id = ?1) AND f.trashed = 0
    UNION
    SELECT c.id, min(r.rank, 2) FROM drive_file c JOIN _reach r ON c.parent_id = r.id
    WHERE c.trashed = 0
),
visible(id, rank) AS (SELECT id, max(rank) FROM _reach GROUP BY id)
"""


def visible_files_sql(w: World) -> tuple[str, list[Any]]:
    """A ``WITH`` clause defining ``visible(id, rank)`` for the acting user, and its parameters.

    The clause binds parameter ``?1`` (the acting user); callers append their query with plain
    ``?`` placeholders and extend the list, so it also works with ``results.paged``::

        cte, params = visible_files_sql(w)
        sql = cte + "SELECT f.* FROM drive_file f JOIN visible v ON v.id = f.id WHERE f.kind = ?"
        w.db.execute(sql, [*params, "doc"])

    ``rank`` is 1 (viewer), 2 (editor) or 3 (owner).  Trashed files are never in ``visible``.
    """
    return _VISIBLE_CTE, [w.user_id]


def file_rank(w: World, file_id: str) -> int:
    """The acting user's rank on a file (0 = no access), ignoring whether it is trashed."""
    row = w.db.execute(_RANK_SQL, {"file": file_id, "user": w.user_id}).fetchone()
    return int(row[0] or 0)


def access_role(w: World, file_id: str) -> str | None:
    """'owner', 'editor', 'viewer', or None when the user cannot open the file (or it is trashed)."""
    row = w.db.execute("SELECT trashed FROM drive_file WHERE id = ?", (file_id,)).fetchone()
    if row is None or row[0]:
        return None
    return RANK_ROLE.get(file_rank(w, file_id))


def can_view(w: World, file_id: str) -> bool:
    """Whether the acting user can open the file (exists, not trashed, shared with them)."""
    return access_role(w, file_id) is not None


def can_edit(w: World, file_id: str) -> bool:
    """Whether the acting user can change the file's content (editor or owner)."""
    role = access_role(w, file_id)
    return role is not None and ROLE_RANK[role] >= ROLE_RANK["editor"]


def require_view(w: World, file_id: str) -> dict[str, Any]:
    """The file row (plus ``role``) if the acting user can open it.

    Raises:
        NotFound: no such file, or it is in the trash.
        PermissionDenied: the file exists but is not shared with the acting user (nothing about
            it is revealed beyond its existence).
    """
    row = w.db.execute("SELECT * FROM drive_file WHERE id = ?", (file_id,)).fetchone()
    if row is None:
        raise NotFound(
            f"no Drive file with id {file_id!r}; use drive_search_files or drive_list_folder to find file ids"
        )
    rank = file_rank(w, file_id)
    if row["trashed"]:
        where = " (drive_list_folder with folder_id='trash' lists your trash)" if rank == 3 else ""
        raise NotFound(f"Drive file {file_id!r} is in the trash{where}; it can no longer be opened")
    if rank == 0:
        raise PermissionDenied(
            f"Drive file {file_id!r} is not shared with you; ask its owner to share it, "
            "or use drive_search_files to find files you can open"
        )
    return {**dict(row), "role": RANK_ROLE[rank]}


def require_edit(w: World, file_id: str) -> dict[str, Any]:
    """The file row (plus ``role``) if the acting user can change its content (editor or owner)."""
    row = require_view(w, file_id)
    if ROLE_RANK[row["role"]] < ROLE_RANK["editor"]:
        raise PermissionDenied(
            f"you have view-only access to {row['name']!r} ({file_id}); ask its owner for editor access"
        )
    return row


def require_owner(w: World, file_id: str, action: str) -> dict[str, Any]:
    """The file row (plus ``role``) if the acting user owns it; ``action`` names what was refused."""
    row = require_view(w, file_id)
    if row["role"] != "owner":
        owner = w.db.execute("SELECT email FROM directory_person WHERE id = ?", (row["owner_id"],)).fetchone()
        who = owner[0] if owner else row["owner_id"]
        raise PermissionDenied(
            f"only the owner of {row['name']!r} ({file_id}) can {action} it; its owner is {who}"
        )
    return row
