"""Alternative correct solutions, by another route: the same result reached the way others work.

Extra reads before and after the work, each record opened before it is changed, searches read page
by page or more broadly, a mail written as a draft and sent later, a reply in the requester's
thread, a CC of the requester, the answered request filed away, independent updates in another
order, colleagues named instead of addressed, sheet rows found by what they hold.  Every one must
pass.
"""

from __future__ import annotations

from typing import Any

from officesim.probes.kinds import Context, variant
from officesim.probes.probing import leaves
from officesim.probes.trajectory import Trajectory, is_read, text_field

SAFE_READS: list[tuple[str, dict[str, Any]]] = [
    ("directory_list_departments", {}),
    ("drive_search_files", {"limit": 10}),
    ("crm_search_accounts", {"limit": 10}),
    ("chat_list_channels", {"limit": 20}),
    ("directory_search_people", {"limit": 10}),
]


def _safe_reads(ctx: Context, count: int) -> list[dict[str, Any]]:
    reads = [{"name": n, "arguments": dict(a)} for n, a in SAFE_READS if n in ctx.tools]
    return reads[:max(0, min(count, ctx.ref.room()))]


@variant("extra_reads")
def extra_reads(ctx: Context) -> Trajectory | None:
    """A look around first (departments, files, accounts, channels) before the work."""
    reads = _safe_reads(ctx, 2)
    if not reads:
        return None
    out = ctx.ref.trajectory.copy()
    out.steps = [*reads, *out.steps]
    return out


@variant("verify_after")
def verify_after(ctx: Context) -> Trajectory | None:
    """The work, then its reads again to check the result (a careful worker double-checks)."""
    reads = [s for s in ctx.ref.trajectory.actions() if is_read(s["name"])]
    if not ctx.ref.trajectory.writes() or not reads:
        return None
    reads = reads[-max(0, min(2, ctx.ref.room())):] if ctx.ref.room() > 0 else []
    if not reads:
        return None
    out = ctx.ref.trajectory.copy()
    out.steps = [*out.steps, *[dict(r, arguments=dict(r["arguments"])) for r in reads]]
    return out


BROADER = {"drive_search_files": "query", "mail_search_messages": "query", "crm_search_deals": "query",
           "crm_search_accounts": "query", "chat_search_messages": "query"}


@variant("other_tool_path")
def other_tool_path(ctx: Context) -> Trajectory | None:
    """Another way to the same place: a new mail written as a draft and sent, or broader searches."""
    out = ctx.ref.trajectory.copy()
    changed = False
    steps: list[Any] = []
    drafts = {"mail_create_draft", "mail_send_draft"} <= ctx.tools
    for step in out.steps:
        if isinstance(step, dict) and step["name"] == "mail_send_message" and drafts:
            steps.append({"name": "mail_create_draft", "arguments": dict(step["arguments"])})
            steps.append(_send_last_draft)
            changed = True
            continue
        if isinstance(step, dict) and step["name"] in BROADER and isinstance(step["arguments"].get("query"), str):
            words = step["arguments"]["query"].split()
            filters = [k for k, v in step["arguments"].items() if k not in ("query", "limit", "cursor") and v]
            if filters:  # another filter narrows the search already: search by it alone
                step = {"name": step["name"], "arguments": {k: v for k, v in step["arguments"].items() if k != "query"}}
                changed = True
            elif len(words) > 1:
                step = {"name": step["name"], "arguments": {**step["arguments"], "query": max(words, key=len)}}
                changed = True
        steps.append(step)
    out.steps = steps
    return out if changed and len(steps) + 1 <= ctx.task.max_steps else None


def _send_last_draft(results: list[Any]) -> dict[str, Any] | None:
    draft = results[-1] if results else None
    draft_id = next((v for k, v in leaves(draft) if k in ("id", "draft_id") and str(v).startswith("msg_")), None)
    return {"name": "mail_send_draft", "arguments": {"draft_id": draft_id}} if draft_id else None


def _request_from(ctx: Context, emails: list[str]) -> dict[str, Any] | None:
    for email in emails:
        found = ctx.inbox_from(email)
        if found:
            return found[0]
    return None


@variant("reply_in_thread")
def reply_in_thread(ctx: Context) -> Trajectory | None:
    """A reply in the requester's thread instead of a new mail to them."""
    if "mail_reply_message" not in ctx.tools:
        return None
    out = ctx.ref.trajectory.copy()
    changed = False
    for index, step in enumerate(out.steps):
        if not isinstance(step, dict) or step["name"] != "mail_send_message":
            continue
        args = step["arguments"]
        if len(args.get("to") or []) != 1 or args.get("cc") or args.get("bcc"):
            continue
        request = _request_from(ctx, list(args["to"]))
        if request is None:
            continue
        reply = {"message_id": request["id"], "body": args["body"]}
        if args.get("attachments"):
            reply["attachments"] = list(args["attachments"])
        out.steps[index] = {"name": "mail_reply_message", "arguments": reply}
        changed = True
    return out if changed else None


def requester(ctx: Context) -> str | None:
    """The colleague whose inbox mail asked for the work (the sender the solution replies to or
    reads), when it is not the acting user."""
    for step, result in zip(ctx.ref.trajectory.actions(), ctx.ref.results, strict=False):
        if step["name"] == "mail_get_message" and isinstance(result, dict):
            sender = result.get("sender") or result.get("from")
            if isinstance(sender, dict):
                sender = sender.get("email")
            if isinstance(sender, str) and sender.endswith("@acme.test") and sender != ctx.user_email:
                return sender
    return None


@variant("cc_requester")
def cc_requester(ctx: Context) -> Trajectory | None:
    """The mail also copies the colleague who asked for it."""
    asker = requester(ctx)
    if asker is None:
        return None
    out = ctx.ref.trajectory.copy()
    changed = False
    for step in out.actions():
        if step["name"] == "mail_send_message" and asker not in (step["arguments"].get("to") or []):
            step["arguments"]["cc"] = [*(step["arguments"].get("cc") or []), asker]
            changed = True
    return out if changed else None


@variant("reordered_writes")
def reordered_writes(ctx: Context) -> Trajectory | None:
    """Independent updates of several records done in the other order (each with its lookups)."""
    segments: list[list[Any]] = [[]]
    for step in ctx.ref.trajectory.copy().steps:
        segments[-1].append(step)
        if isinstance(step, dict) and not is_read(step["name"]):
            segments.append([])
    head, tail = segments[0], segments[-1]
    body = segments[:-1]
    writes = [seg[-1] for seg in body]
    # the reads before the first write stay first; text-free writes of distinct records are reversed
    targets = [next((v for k, v in w["arguments"].items() if k.endswith("_id")), None) for w in writes]
    same_tool = len({w["name"] for w in writes}) == 1
    if len(body) < 2 or any(text_field(w) for w in writes) or not (
            same_tool or (None not in targets and len(set(targets)) == len(targets))):
        return None
    lookups = [s for s in head[:-1] if not _is_lookup_for(s, head[-1])]
    body[0] = head[len(lookups):]
    flat = [*lookups, *(s for seg in reversed(body) for s in seg), *tail]
    return Trajectory(flat, ctx.ref.trajectory.answer)


def _is_lookup_for(read: Any, write: Any) -> bool:
    """Whether ``read`` (just before ``write``) looks up the one record ``write`` changes."""
    return isinstance(read, dict) and read["name"] in ("directory_search_people", "crm_search_deals",
                                                       "crm_search_contacts", "directory_get_person")


@variant("person_by_name")
def person_by_name(ctx: Context) -> Trajectory | None:
    """Colleagues passed to tools by their name instead of their email (tools accept both)."""
    by_email = {p["email"].casefold(): p["name"] for p in ctx.people}
    names = [p["name"] for p in ctx.people]
    out = ctx.ref.trajectory.copy()
    changed = False
    for step in out.actions():
        for key in ("person", "owner"):
            value = step["arguments"].get(key)
            name = by_email.get(str(value).casefold()) if isinstance(value, str) else None
            if name and names.count(name) == 1:
                step["arguments"][key] = name
                changed = True
    return out if changed else None



GETTERS = {"file_id": "drive_get_file", "deal_id": "crm_get_deal", "contact_id": "crm_get_contact",
           "account_id": "crm_get_account", "message_id": "mail_get_message"}


@variant("check_before_write")
def check_before_write(ctx: Context) -> Trajectory | None:
    """Each record opened before it is changed (the file, deal, contact or account)."""
    out = ctx.ref.trajectory.copy()
    steps: list[Any] = []
    added = 0
    for step in out.steps:
        if isinstance(step, dict) and not is_read(step["name"]) and added < ctx.ref.room():
            key = next((k for k, getter in GETTERS.items()
                        if isinstance(step["arguments"].get(k), str) and getter in ctx.tools), None)
            if key is not None:
                steps.append({"name": GETTERS[key], "arguments": {key: step["arguments"][key]}})
                added += 1
        steps.append(step)
    out.steps = steps
    return out if added else None


def _handled_request(ctx: Context) -> str | None:
    """The inbox message the solution answers: replied to or forwarded, or opened and then
    answered with a new mail to its sender (a mail that only informed the work is not one)."""
    steps = list(ctx.ref.trajectory.actions())
    for step in steps:
        if step["name"] in ("mail_reply_message", "mail_reply_all", "mail_forward_message"):
            return str(step["arguments"]["message_id"])
    sent_to = {r.casefold() for s in steps if s["name"] == "mail_send_message" for r in s["arguments"].get("to") or []}
    for step, result in zip(steps, ctx.ref.results, strict=False):
        sender = str(result.get("from") or result.get("sender") or "") if isinstance(result, dict) else ""
        if step["name"] == "mail_get_message" and sender.casefold() in sent_to:
            return str(step["arguments"]["message_id"])
    return None


@variant("file_request")
def file_request(ctx: Context) -> Trajectory | None:
    """The handled request filed away in the archive at the end (fair housekeeping)."""
    request = _handled_request(ctx)
    moved = {s["arguments"].get("message_id") for s in ctx.ref.trajectory.actions() if s["name"] == "mail_move_message"}
    if request is None or request in moved or "mail_move_message" not in ctx.tools or ctx.ref.room() < 1:
        return None
    out = ctx.ref.trajectory.copy()
    out.steps.append({"name": "mail_move_message", "arguments": {"message_id": request, "folder": "archive"}})
    return out


@variant("open_inbox_mail")
def open_inbox_mail(ctx: Context) -> Trajectory | None:
    """The mail the work starts from read in full first (opening a mail marks it read, no more)."""
    opened = next((str(s["arguments"]["message_id"]) for s in ctx.ref.trajectory.actions()
                   if s["name"] in ("mail_get_message", "mail_reply_message", "mail_forward_message")), None)
    if opened is None or "mail_get_message" not in ctx.tools or ctx.ref.room() < 1:
        return None
    out = ctx.ref.trajectory.copy()
    out.steps.insert(0, {"name": "mail_get_message", "arguments": {"message_id": opened}})
    return out



@variant("grouped_writes")
def grouped_writes(ctx: Context) -> Trajectory | None:
    """Interleaved independent writes done kind by kind (every label first, then every move)."""
    steps = ctx.ref.trajectory.copy().steps
    writes = [s for s in steps if isinstance(s, dict) and not is_read(s["name"])]
    if len({w["name"] for w in writes}) < 2 or any(text_field(w) for w in writes):
        return None
    first = steps.index(writes[0])
    rest = [s for s in steps[first:] if s not in writes]
    order = list(dict.fromkeys(w["name"] for w in writes))
    grouped = sorted(writes, key=lambda w: order.index(w["name"]))
    if grouped == writes:
        return None
    return Trajectory([*steps[:first], *rest, *grouped], ctx.ref.trajectory.answer)


PAGED = ("crm_search_deals", "crm_search_accounts", "crm_search_contacts", "crm_search_invoices",
         "directory_search_people", "drive_search_files", "mail_search_messages", "chat_list_messages")


@variant("paged_reads")
def paged_reads(ctx: Context) -> Trajectory | None:
    """A search read in small pages, following its cursor to the end, instead of at once."""
    for index, (step, result) in enumerate(zip(ctx.ref.trajectory.steps, ctx.ref.results, strict=False)):
        if not isinstance(step, dict) or step["name"] not in PAGED or not isinstance(result, dict):
            continue
        found = next((v for v in result.values() if isinstance(v, list)), [])
        if len(found) < 2 or result.get("next_cursor") or ctx.ref.room() < 1:
            continue
        size = -(-len(found) // min(len(found), ctx.ref.room() + 1))
        pages = -(-len(found) // size)
        out = ctx.ref.trajectory.copy()
        first = {"name": step["name"], "arguments": {**step["arguments"], "limit": size}}
        out.steps[index: index + 1] = [first, *(_next_page(first) for _ in range(pages - 1))]
        return out
    return None


def _next_page(first: dict[str, Any]) -> Any:
    def build(results: list[Any]) -> dict[str, Any] | None:
        cursor = results[-1].get("next_cursor") if results and isinstance(results[-1], dict) else None
        return {"name": first["name"], "arguments": {**first["arguments"], "cursor": cursor}} if cursor else None
    return build


@variant("rows_by_filter")
def rows_by_filter(ctx: Context) -> Trajectory | None:
    """Sheet rows updated by what they hold (filters on their text cells) instead of row numbers."""
    sheets = {s["arguments"].get("file_id"): r for s, r in zip(ctx.ref.trajectory.actions(), ctx.ref.results,
                                                               strict=False)
              if s["name"] == "drive_read_sheet" and isinstance(r, dict) and r.get("rows")}
    out = ctx.ref.trajectory.copy()
    changed = False
    for step in out.actions():
        args = step["arguments"]
        read = sheets.get(args.get("file_id"))
        if step["name"] != "drive_update_rows" or read is None or len(args.get("row_numbers") or []) != 1:
            continue
        rows = read["rows"]
        row = next((r for r in rows if r.get("row") == args["row_numbers"][0]), None)
        edited = {v["column"] for v in args.get("values") or []}
        keys = [c for c, kind in zip(read.get("columns") or [], read.get("column_types") or [], strict=False)
                if kind == "text" and c not in edited]
        if row is None or not keys or sum(all(r.get(k) == row.get(k) for k in keys) for r in rows) != 1:
            continue
        step["arguments"] = {"file_id": args["file_id"], "values": args["values"],
                             "filters": [{"column": k, "op": "eq", "value": row[k]} for k in keys]}
        changed = True
    return out if changed else None
