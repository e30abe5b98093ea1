"""Alternative correct solutions: the reference, done the way another careful worker would.

Each variant changes how the work is written or reached, never what it claims: other number and
date spellings, counts in words, supporting figures from the sources, greetings and sign-offs,
extra reads before and after, another tool path (a draft sent later, a broader search), a reply
in the request's thread, a CC of the requester, an FYI about what was left out, first names.
Every one must pass: a grader that fails one teaches a policy to write like the reference.
"""

from __future__ import annotations

import re
from typing import Any

from officesim.agents.probing import leaves
from officesim.selftest_variants import wording
from officesim.selftest_variants.kinds import Context, variant
from officesim.selftest_variants.trajectory import Trajectory, is_read, text_field

SAFE_READS: list[tuple[str, dict[str, Any]]] = [
    ("directory_list_departments", {}),
    ("drive_search_files", {"limit": 10}),
    ("crm_search_accounts", {"limit": 10}),
    ("chat_list_channels", {"limit": 20}),
    ("directory_search_people", {"limit": 10}),
]


def _texts_where(ctx: Context, test: Any) -> bool:
    return any(test(t) for t in ctx.ref.trajectory.texts())


@variant("amounts_plain")
def amounts_plain(ctx: Context) -> Trajectory | None:
    """Amounts spelled without the dollar sign, with a currency code ("26,300 USD")."""
    if not _texts_where(ctx, wording.has_amounts):
        return None
    return ctx.ref.trajectory.map_texts(lambda t: wording.reformat_amounts(t, "plain"))


@variant("amounts_compact")
def amounts_compact(ctx: Context) -> Trajectory | None:
    """Amounts in short form where exact ("$26.3k", "$4.82M"), else ungrouped ("USD 7614.19")."""
    if not _texts_where(ctx, wording.has_amounts):
        return None
    return ctx.ref.trajectory.map_texts(lambda t: wording.reformat_amounts(t, "compact"))


@variant("counts_in_words")
def counts_in_words(ctx: Context) -> Trajectory | None:
    """Small counts as words ("seven deals", "Five.")."""
    if not _texts_where(ctx, wording.has_counts):
        return None
    return ctx.ref.trajectory.map_texts(wording.counts_in_words)


@variant("locale_dates")
def locale_dates(ctx: Context) -> Trajectory | None:
    """ISO dates in the US numeric spelling ("10/03/2026")."""
    if not _texts_where(ctx, wording.has_dates):
        return None
    return ctx.ref.trajectory.map_texts(wording.us_dates)


@variant("long_dates")
def long_dates(ctx: Context) -> Trajectory | None:
    """ISO dates spelled out, day first ("3 October 2026")."""
    if not _texts_where(ctx, wording.has_dates):
        return None
    return ctx.ref.trajectory.map_texts(wording.long_dates)


@variant("courtesy")
def courtesy(ctx: Context) -> Trajectory | None:
    """Other wording around the same content: a greeting, a lead-in and a sign-off."""
    if not ctx.ref.trajectory.texts():
        return None

    def wrap(text: str) -> str:
        if "\n" not in text.strip() and len(text) < 120:
            return f"Here is what I found: {text.strip()} Let me know if you need anything else."
        return f"Hello,\n\nas requested:\n\n{text.strip()}\n\nHappy to walk you through it.\nThanks!"

    return ctx.ref.trajectory.map_texts(wrap)


NOT_FIGURES = re.compile(r"size|bytes|row|count|total_rows|limit|offset|page|version|_id$|^id$", re.IGNORECASE)


def supporting_line(ctx: Context, text: str) -> str | None:
    """A sentence citing source figures that sit next to a name ``text`` states, in what was read
    (sheet rows, and the amounts of records: no file sizes or row numbers)."""
    names = [n for n in ctx.facts.names if len(n) > 2 and n.casefold() in text.casefold()]
    for result in ctx.ref.read_results():
        for row in _rows(result):
            cells = [v for k, v in row if not (k and NOT_FIGURES.search(k))]
            shown = " ".join(str(c) for c in cells if isinstance(c, str))
            name = next((n for n in names if n.casefold() in shown.casefold()), None)
            figures = [c for c in cells if isinstance(c, int | float) and not isinstance(c, bool) and abs(c) >= 10][:2]
            if name and figures:
                listed = ", ".join(wording.money(float(f)) if f >= 100 else f"{f:g}" for f in figures)
                return f"For reference, the source shows these figures for {name}: {listed}."
    return None


def _rows(result: Any) -> list[list[tuple[str, Any]]]:
    """Rows of a tool result as (key, value) pairs: records (dicts) and sheet rows (lists)."""
    found: list[list[tuple[str, Any]]] = []
    stack = [result]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            scalars = [(k, v) for k, v in node.items() if not isinstance(v, dict | list)]
            if scalars:
                found.append(scalars)
            stack.extend(v for v in node.values() if isinstance(v, dict | list))
        elif isinstance(node, list):
            if node and all(not isinstance(v, dict | list) for v in node):
                found.append([("", v) for v in node])
            else:
                stack.extend(node)
    return found


@variant("supporting_figures")
def supporting_figures(ctx: Context) -> Trajectory | None:
    """The same answer plus source figures that support it and a sentence of explanation."""
    def support(text: str) -> str:
        line = supporting_line(ctx, text)
        return f"{text.rstrip()}\n\n{line}" if line else text

    out = ctx.ref.trajectory.map_texts(support)
    return out if out.texts() != ctx.ref.trajectory.texts() else None


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


@variant("near_miss_fyi")
def near_miss_fyi(ctx: Context) -> Trajectory | None:
    """An FYI naming what was checked and left out ("not included: X, it does not qualify")."""
    left_out = [n for n in ctx.facts.wrong_names if len(n) > 2][:2]
    if not left_out or not ctx.ref.trajectory.texts():
        return None
    line = f"FYI, I also checked {' and '.join(left_out)}: not included, as they do not qualify."
    return ctx.ref.trajectory.map_texts(lambda t: f"{t.rstrip()}\n\n{line}")


def _unambiguous_people(ctx: Context) -> list[str]:
    """Full names of colleagues in the texts whose first name no other colleague the solution
    came across shares."""
    texts = " ".join(ctx.ref.trajectory.texts())
    seen = " ".join(str(v) for _, v in leaves(ctx.ref.results) if isinstance(v, str))
    met = [p["name"] for p in ctx.people if p["name"] in seen or p["name"] in texts]
    named = [n for n in met if n in texts and " " in n]
    return [n for n in named if sum(m.split()[0] == n.split()[0] for m in met) == 1]


@variant("first_names")
def first_names(ctx: Context) -> Trajectory | None:
    """Colleagues named by their first name after the first mention, where that is unambiguous."""
    people = _unambiguous_people(ctx)
    if not people:
        return None
    out = ctx.ref.trajectory.map_texts(lambda t: wording.first_names(t, people))
    return out if out.texts() != ctx.ref.trajectory.texts() else None


@variant("first_name_only")
def first_name_only(ctx: Context) -> Trajectory | None:
    """Colleagues named only by first name where that is unambiguous (owners, attendees)."""
    people = _unambiguous_people(ctx)
    if not people:
        return None
    return ctx.ref.trajectory.map_texts(lambda t: wording.first_name_only(t, people))


@variant("rejected_recorded")
def rejected_recorded(ctx: Context) -> Trajectory | None:
    """The option that was turned down recorded as rejected, next to the decision."""
    names = [n for n in ctx.facts.wrong_names if len(n) > 2][:1]
    values = ctx.facts.wrong_values[:1]
    if not (names or values) or not ctx.ref.trajectory.texts():
        return None
    what = " / ".join([*names, *(wording.money(v) for v in values)])
    return ctx.ref.trajectory.map_texts(lambda t: f"{t.rstrip()}\n\nConsidered and rejected: {what}.")


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


@variant("bare_answer")
def bare_answer(ctx: Context) -> Trajectory | None:
    """The answer as nothing but its facts ("Sales, $26,300"): terse is correct where no judge grades style."""
    if not ctx.ref.trajectory.answer or ctx.facts.judged or not (ctx.facts.names or ctx.facts.values):
        return None
    out = ctx.ref.trajectory.copy()
    out.answer = ", ".join([*ctx.facts.names, *(wording.money(v) for v in ctx.facts.values)])
    return out


@variant("markdown")
def markdown(ctx: Context) -> Trajectory | None:
    """The same text with markdown emphasis on its figures and a bulleted layout."""
    if not _texts_where(ctx, lambda t: wording.has_amounts(t) or wording.has_counts(t) or t.strip().isdigit()):
        return None

    def emphasise(text: str) -> str:
        if text.strip().isdigit():
            return f"**{text.strip()}**"
        return wording.AMOUNT.sub(lambda m: f"**{m.group(0)}**" if wording._is_amount(m) else m.group(0), text)

    return ctx.ref.trajectory.map_texts(emphasise)


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


PHONE = re.compile(r"\+?1?[\s.-]?\(?(\d{3})\)?[\s.-]?(\d{3})[\s.-]?(\d{4})\b")


@variant("phone_format")
def phone_format(ctx: Context) -> Trajectory | None:
    """Phone numbers written another way ("+1 555 952 6601" -> "(555) 952-6601")."""
    out = ctx.ref.trajectory.copy()
    changed = False
    for step in out.actions():
        if is_read(step["name"]):
            continue
        for key, value in step["arguments"].items():
            if isinstance(value, str) and (key == "phone" or key == text_field(step)) and PHONE.search(value):
                step["arguments"][key] = PHONE.sub(lambda m: f"({m.group(1)}) {m.group(2)}-{m.group(3)}", value)
                changed = True
    return out if changed else None


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
