"""World pages: the acting user's mail, Drive, chat channels, CRM and directory, with search.

The calendar page is ``calendarpage`` (it goes through the calendar tools).

The viewer reads the world's tables directly (it is the operator's view, not the agent's), but
mail is shown as the acting user's mailbox, as the agent would see it.  Every list is bounded.
"""

from __future__ import annotations

import json
from typing import Any

from officesim.view.html import PAGE_LIMIT, esc, link, pre, search_form, table
from officesim.world import World

SECTIONS = (("mail", "Mail"), ("drive", "Drive"), ("chat", "Chat"), ("calendar", "Calendar"), ("crm", "CRM"),
            ("people", "People"))


def _like(query: str | None) -> str:
    return f"%{(query or '').strip()}%"


def _rows(world: World, sql: str, *params: Any) -> list[dict[str, Any]]:
    return [dict(r) for r in world.db.execute(sql, params)]


def overview(world: World, prefix: str) -> str:
    user = world.user
    counts = world.counts()
    items = "".join(f"<li>{link(f'{prefix}/{key}', name)}</li>" for key, name in SECTIONS)
    rows = [(esc(t), str(n)) for t, n in sorted(counts.items())]
    return (f"<p>Acting as <strong>{esc(user['name'])}</strong> ({esc(user['email'])}, {esc(user['title'])}); "
            f"clock {esc(world.now())}.</p><ul>{items}</ul><h2>Tables</h2>{table(['table', 'rows'], rows)}")


def mail(world: World, prefix: str, query: str | None, folder: str | None) -> str:
    sql = ("SELECT m.id, m.thread_id, m.subject, m.sender, m.sent_at, e.folder, e.labels, e.is_read "
           "FROM mail_entry e JOIN mail_message m ON m.id = e.message_id WHERE e.owner_id = ? "
           "AND (m.subject LIKE +? OR m.body LIKE +? OR m.sender LIKE +?)" + (" AND e.folder = ?" if folder else "")
           + " ORDER BY m.sent_at DESC")
    params: list[Any] = [world.user_id, _like(query), _like(query), _like(query)]
    if folder:
        params.append(folder)
    found = _rows(world, sql, *params)
    folders = [r["folder"] for r in _rows(world, "SELECT DISTINCT folder FROM mail_entry WHERE owner_id = ? "
                                                 "ORDER BY folder", world.user_id)]
    tabs = " ".join(link(f"{prefix}/mail", f, folder=f, q=query) for f in folders)
    rows = [(esc(r["sent_at"]), esc(r["folder"]), esc(r["sender"]),
             link(f"{prefix}/mail/thread/{r['thread_id']}", r["subject"] or "(no subject)"), esc(r["labels"]))
            for r in found[:PAGE_LIMIT]]
    return (f"<p>Folders: {tabs}</p>{search_form(f'{prefix}/mail', query, 'search mail')}"
            + table(["sent", "folder", "from", "subject", "labels"], rows, sortable=True, total=len(found)))


def thread(world: World, thread_id: str) -> str:
    messages = _rows(world, "SELECT * FROM mail_message WHERE thread_id = ? ORDER BY sent_at, id LIMIT ?",
                     thread_id, PAGE_LIMIT)
    if not messages:
        return f"<p>No thread {esc(thread_id)}.</p>"
    parts = []
    for m in messages:
        parts.append(f"<h3>{esc(m['subject'])}</h3><p class='muted'>{esc(m['sent_at'])} from {esc(m['sender'])} "
                     f"to {esc(m['to'])} cc {esc(m['cc'])} ({esc(m['status'])})</p>{pre(m['body'] or '')}"
                     + (f"<p>attachments: {esc(m['attachments'])}</p>" if m.get("attachments") not in (None, "[]")
                        else ""))
    return "".join(parts)


def drive(world: World, prefix: str, query: str | None, parent: str | None) -> str:
    if query:
        found = _rows(world, "SELECT id, name, kind, owner_id, modified_at, trashed FROM drive_file WHERE name LIKE +? "
                             "OR content LIKE +? ORDER BY name", _like(query), _like(query))
    else:
        found = _rows(world, "SELECT id, name, kind, owner_id, modified_at, trashed FROM drive_file WHERE "
                             + ("parent_id = ?" if parent else "parent_id IS NULL") + " ORDER BY kind DESC, name",
                      *([parent] if parent else []))
    rows = [(esc(r["kind"]), link(f"{prefix}/drive", r["name"], parent=r["id"]) if r["kind"] == "folder"
             else link(f"{prefix}/drive/{r['id']}", r["name"]), esc(r["owner_id"]), esc(r["modified_at"]),
             "trashed" if r["trashed"] else "") for r in found[:PAGE_LIMIT]]
    up = link(f"{prefix}/drive", "top") if parent else ""
    return (f"{search_form(f'{prefix}/drive', query, 'search Drive')}<p>{up}</p>"
            + table(["kind", "name", "owner", "modified", ""], rows, sortable=True, total=len(found)))


def drive_file(world: World, file_id: str) -> str:
    found = _rows(world, "SELECT * FROM drive_file WHERE id = ?", file_id)
    if not found:
        return f"<p>No file {esc(file_id)}.</p>"
    f = found[0]
    shares = _rows(world, "SELECT principal, person_id, role FROM drive_permission WHERE file_id = ?", file_id)
    body = (f"<p>{esc(f['kind'])} owned by {esc(f['owner_id'])}, modified {esc(f['modified_at'])}</p>"
            + table(["principal", "person", "role"], [(esc(s["principal"]), esc(s["person_id"]), esc(s["role"]))
                                                      for s in shares]))
    for sheet in _rows(world, "SELECT * FROM drive_sheet WHERE file_id = ? ORDER BY position", file_id):
        columns = json.loads(sheet["columns"] or "[]")
        cells = [json.loads(r["cells"] or "[]") for r in _rows(
            world, "SELECT cells FROM drive_row WHERE sheet_id = ? ORDER BY position", sheet["id"])]
        body += f"<h3>sheet {esc(sheet['name'])}</h3>" + table(columns, cells, raw=False)
    if f.get("content"):
        body += pre(f["content"])
    return body


def chat(world: World, prefix: str, query: str | None) -> str:
    if query:
        found = _rows(world, "SELECT id, channel_id, author_id, text, posted_at FROM chat_message WHERE text LIKE +? "
                             "ORDER BY posted_at DESC", _like(query))
        rows = [(esc(r["posted_at"]), link(f"{prefix}/chat/{r['channel_id']}", r["channel_id"]), esc(r["author_id"]),
                 esc(r["text"])) for r in found[:PAGE_LIMIT]]
        return search_form(f"{prefix}/chat", query, "search messages") + table(
            ["posted", "channel", "author", "text"], rows, total=len(found))
    channels = _rows(world, "SELECT c.id, c.name, c.kind, c.topic, (SELECT COUNT(*) FROM chat_message m "
                            "WHERE m.channel_id = c.id) AS messages FROM chat_channel c ORDER BY c.name")
    rows = [(link(f"{prefix}/chat/{c['id']}", c["name"]), esc(c["kind"]), esc(c["topic"]), str(c["messages"]))
            for c in channels]
    return search_form(f"{prefix}/chat", query, "search messages") + table(
        ["channel", "kind", "topic", "messages"], rows, sortable=True)


def channel(world: World, channel_id: str) -> str:
    # Replies follow the message that started their thread.
    messages = _rows(world, "SELECT m.id, COALESCE(p.name, m.author_id) AS author, m.text, m.posted_at, m.thread_id "
                            "FROM chat_message m LEFT JOIN directory_person p ON p.id = m.author_id "
                            "WHERE m.channel_id = ? ORDER BY COALESCE((SELECT t.posted_at FROM chat_message t WHERE "
                            "t.id = m.thread_id), m.posted_at), m.thread_id IS NOT NULL, m.posted_at, m.id", channel_id)
    rows = [(esc(m["posted_at"]), esc(m["author"]), ("&nbsp;&nbsp;↳ " if m["thread_id"] else "") + esc(m["text"]))
            for m in messages[:PAGE_LIMIT]]
    return table(["posted", "author", "text"], rows, total=len(messages))


def crm(world: World, prefix: str, query: str | None) -> str:
    like = _like(query)
    accounts = _rows(world, "SELECT id, name, domain, tier, owner_id FROM crm_account WHERE name LIKE +? OR domain "
                            "LIKE +? ORDER BY name", like, like)
    deals = _rows(world, "SELECT d.id, d.name, a.name AS account, d.stage, d.amount, d.currency, d.close_date, "
                         "d.owner_id FROM crm_deal d LEFT JOIN crm_account a ON a.id = d.account_id "
                         "WHERE d.name LIKE +? OR a.name LIKE +? ORDER BY d.id", like, like)
    invoices = _rows(world, "SELECT i.id, i.number, a.name AS account, i.amount, i.currency, i.due_on, i.status "
                            "FROM crm_invoice i LEFT JOIN crm_account a ON a.id = i.account_id WHERE i.number LIKE +? "
                            "OR a.name LIKE +? ORDER BY i.id", like, like)

    def cells(rows: list[dict[str, Any]]) -> list[list[str]]:
        return [[esc(v) for v in r.values()] for r in rows[:PAGE_LIMIT]]

    return (search_form(f"{prefix}/crm", query, "search accounts, deals, invoices")
            + "<h2>Accounts</h2>" + table(["id", "name", "domain", "tier", "owner"], cells(accounts), sortable=True,
                                          total=len(accounts))
            + "<h2>Deals</h2>" + table(["id", "name", "account", "stage", "amount", "currency", "close", "owner"],
                                       cells(deals), sortable=True, total=len(deals))
            + "<h2>Invoices</h2>" + table(["id", "number", "account", "amount", "currency", "due", "status"],
                                          cells(invoices), sortable=True, total=len(invoices)))


def people(world: World, prefix: str, query: str | None) -> str:
    like = _like(query)
    found = _rows(world, "SELECT id, name, email, title, department_id, location FROM directory_person WHERE name "
                         "LIKE +? OR email LIKE +? OR title LIKE +? ORDER BY name", like, like, like)
    return search_form(f"{prefix}/people", query, "search people") + table(
        ["id", "name", "email", "title", "department", "location"], [[esc(v) for v in r.values()] for r in found],
        sortable=True, total=len(found))
