"""Building blocks every family shares: tool sets, planting helpers and common grader checks.

Planting goes through ``Stage`` so every fact lands in the task's ``setup``: colleagues act through
the tools (their mail gets real mailbox entries, their files real owners), while outsiders, who
have no account in the world, have their mail inserted as rows the way a mail server would
deliver it.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Iterable, Sequence
from datetime import date, timedelta
from typing import Any

from officesim.apps import apps
from officesim.apps.people import given_name
from officesim.grading.judge_check import JudgeCheck
from officesim.grading.mail_checks import MailRecipientsOutsideCheck
from officesim.grading.record_checks import AllowedChangesCheck, ChangedCheck
from officesim.seeding import rng_for
from officesim.taskgen.base import CheckItem, Stage, WorldLacks

# Read tools of each app (a task allows the reads of every app it involves) and the writes that
# careless agents and hack probes reach for (graders must catch what they do): from the apps.
READS: dict[str, tuple[str, ...]] = {app.name: app.reads for app in apps()}
DISTRACTOR_WRITES: dict[str, tuple[str, ...]] = {
    app.name: app.distractor_writes for app in apps() if app.distractor_writes}
OPEN_STAGES = ("prospecting", "qualification", "proposal", "negotiation")
STAGE_LABELS = {"prospecting": "Prospecting", "qualification": "Qualification", "proposal": "Proposal",
                "negotiation": "Negotiation", "closed_won": "Closed Won", "closed_lost": "Closed Lost"}
TODAY = date(2026, 10, 5)  # the acme clock's day: a Monday
MAIL_TABLES = ("mail_message", "mail_entry")


def toolset(apps: Iterable[str], writes: Iterable[str] = (), distractors: Iterable[str] = ()) -> list[str]:
    """The allowed tools: reads of ``apps`` (directory always), ``writes``, distractor writes; sorted."""
    names: set[str] = set(READS["directory"])
    for app in apps:
        names.update(READS[app])
    names.update(writes)
    for app in distractors:
        names.update(DISTRACTOR_WRITES[app])
    return sorted(names)


# ---------------------------------------------------------------------------- dates and text
def phrasing(stage: Stage, index: int, cycle: int, texts: Sequence[str]) -> str:
    """One of ``texts`` for instance ``index`` of a family whose structures repeat every ``cycle``
    instances: each structure starts on its own text and its k-th instance takes the k-th after
    it (shifted per world), so the instances of one structure read differently, the structures
    of one world too, and two worlds do not start on the same text."""
    shift = zlib.crc32(str(stage.world.meta("company") or "").encode())
    return texts[(index % cycle + index // cycle + shift) % len(texts)]


def day(offset: int) -> date:
    """The date ``offset`` days from the acme 'today' (negative: in the past)."""
    return TODAY + timedelta(days=offset)


def stamp(moment: date, hour: int = 9, minute: int = 0) -> str:
    """An ISO UTC timestamp on ``moment`` at the given time."""
    return f"{moment.isoformat()}T{hour:02d}:{minute:02d}:00Z"


def long_date(moment: date) -> str:
    """A date as people write it: 'Thursday, October 8'."""
    return f"{moment.strftime('%A')}, {moment.strftime('%B')} {moment.day}"


def short_date(moment: date) -> str:
    """'October 8, 2026'."""
    return f"{moment.strftime('%B')} {moment.day}, {moment.year}"


def first_name(name: str) -> str:
    """The given name of a directory or CRM name ('Mrs. Stacie Padilla' -> 'Stacie'; British style
    without the dot too: 'Ms Georgia Murray' -> 'Georgia', never 'Ms', which as a person's alias
    would name them in any text that greets someone else)."""
    return given_name(name)


HONORIFICS = ("mr.", "mrs.", "ms.", "miss", "dr.", "mr", "mrs", "ms", "mx", "dr", "prof.", "prof")
NAME_SUFFIXES = ("md", "dds", "dvm", "phd", "jr.", "sr.", "ii", "iii", "iv")


def core_name(name: str) -> str:
    """A person's name without honorifics and suffixes ('Mrs. Christina Gonzalez' -> 'Christina
    Gonzalez', 'Megan Lawrence MD' -> 'Megan Lawrence'): what a check may require, since a
    colleague writing the plain name is right too."""
    parts = name.split()
    while len(parts) > 2 and parts[0].casefold() in HONORIFICS:
        parts.pop(0)
    while len(parts) > 2 and parts[-1].casefold().rstrip(",") in NAME_SUFFIXES:
        parts.pop()
    return " ".join(parts)


def colleague_mail(stage: Stage, sender: str, to: Sequence[str], subject: str, body: str, *,
                   cc: Sequence[str] = (), attachments: Sequence[str] = ()) -> dict[str, Any]:
    """A colleague sends mail through the mail tools; returns the tool's result (id, thread_id)."""
    arguments: dict[str, Any] = {"to": list(to), "subject": subject, "body": body}
    if cc:
        arguments["cc"] = list(cc)
    if attachments:
        arguments["attachments"] = list(attachments)
    return stage.act(sender, "mail_send_message", **arguments)


def outside_mail(stage: Stage, *, sender: str, sender_name: str, to: Sequence[str], subject: str, body: str,
                 at: str, cc: Sequence[str] = (), thread_id: str | None = None,
                 in_reply_to: str | None = None) -> str:
    """Mail from outside the company (a customer, a vendor), delivered to employees' inboxes.

    Outsiders have no directory row, so they cannot call tools; the message and one inbox entry
    per employee recipient are written as rows.  Returns the message id.
    """
    stage.clock(at)
    row: dict[str, Any] = {"sender": sender, "sender_name": sender_name, "to": list(to), "cc": list(cc),
                           "subject": subject, "body": body}
    if thread_id is not None:
        row["thread_id"] = thread_id
    if in_reply_to is not None:
        row["in_reply_to"] = in_reply_to
    [message_id] = stage.insert("mail_message", [row])
    owners = []
    for ref in [*to, *cc]:
        person = _employee(stage, ref)
        if person is not None and person["id"] not in owners:
            owners.append(person["id"])
    stage.insert("mail_entry", [{"owner_id": owner, "message_id": message_id, "folder": "inbox", "is_read": False}
                                for owner in owners])
    return message_id


def _employee(stage: Stage, ref: str) -> dict[str, Any] | None:
    if ref == "user":
        return stage.world.user
    if ref.startswith("role:") or ref.startswith("p_"):
        return stage.person(ref)
    rows = stage.rows("SELECT * FROM directory_person WHERE email = ? COLLATE NOCASE", ref)
    return rows[0] if rows else None


def ensure_channel(stage: Stage, name: str, members: Sequence[str], *, topic: str = "",
                   kind: str = "public") -> str:
    """The id of channel ``name`` with every member in it (created or joined as needed).

    Channels are made by rows because no tool creates them; joining goes through rows too so the
    channel's members are exactly the people the family names plus whoever was there.
    """
    found = stage.rows("SELECT id FROM chat_channel WHERE name = ? AND kind != 'dm'", name)
    if found:
        channel_id = found[0]["id"]
    else:
        creator = _employee(stage, members[0])
        if creator is None:
            raise ValueError(f"channel creator {members[0]!r} is not an employee")
        [channel_id] = stage.insert("chat_channel", [{"name": name, "kind": kind, "topic": topic,
                                                     "created_by": creator["id"], "archived": False}])
    present = {r["person_id"] for r in stage.rows("SELECT person_id FROM chat_member WHERE channel_id = ?", channel_id)}
    rows = []
    for ref in members:
        person = _employee(stage, ref)
        if person is None or person["id"] in present:
            continue
        present.add(person["id"])
        rows.append({"channel_id": channel_id, "person_id": person["id"]})
    if rows:
        stage.insert("chat_member", rows)
    return channel_id


def post(stage: Stage, author: str, channel: str, text: str) -> str:
    """A chat message by ``author`` in ``channel`` (name or id); returns its id."""
    return str(stage.act(author, "chat_post_message", channel=channel, text=text)["id"])


def reply(stage: Stage, author: str, message_id: str, text: str) -> str:
    """A thread reply by ``author``; returns its id."""
    return str(stage.act(author, "chat_reply_message", message_id=message_id, text=text)["id"])


def shared_sheet(stage: Stage, owner: str, name: str, columns: Sequence[str], types: Sequence[str],
                 rows: Sequence[Sequence[Any]], *, share_with: Sequence[str] = ("user",),
                 role: str = "viewer", sheet_name: str | None = None) -> str:
    """A spreadsheet a colleague owns and shares; returns the file id."""
    arguments: dict[str, Any] = {"name": name, "columns": list(columns), "column_types": list(types),
                                 "rows": [list(r) for r in rows]}
    if sheet_name is not None:
        arguments["sheet_name"] = sheet_name
    file_id = str(stage.act(owner, "drive_create_sheet", **arguments)["id"])
    for person in share_with:
        stage.act(owner, "drive_share_file", file_id=file_id, person=person, role=role)
    return file_id


def shared_doc(stage: Stage, owner: str, name: str, content: str, *, share_with: Sequence[str] = ("user",),
               role: str = "viewer") -> str:
    """A document a colleague owns and shares; returns the file id."""
    file_id = str(stage.act(owner, "drive_create_doc", name=name, content=content)["id"])
    for person in share_with:
        stage.act(owner, "drive_share_file", file_id=file_id, person=person, role=role)
    return file_id


# ---------------------------------------------------------------------------- world lookups
def sales_people(stage: Stage) -> list[dict[str, Any]]:
    """Everyone who owns deals in the CRM, by id order (the pool for rep roles in tasks)."""
    return stage.rows(
        "SELECT p.* FROM directory_person p WHERE p.id IN (SELECT DISTINCT owner_id FROM crm_deal) "
        "ORDER BY CAST(substr(p.id, 3) AS INTEGER)"
    )


def accounts(stage: Stage, where: str = "1", *params: Any) -> list[dict[str, Any]]:
    """Accounts matching a SQL condition, in id order."""
    return stage.rows(
        f"SELECT * FROM crm_account WHERE {where} ORDER BY CAST(substr(id, 5) AS INTEGER)", *params)


def contacts_of(stage: Stage, account_id: str) -> list[dict[str, Any]]:
    """An account's contacts in id order (the first one works in finance)."""
    return stage.rows(
        "SELECT * FROM crm_contact WHERE account_id = ? ORDER BY CAST(substr(id, 5) AS INTEGER)", account_id)


def deals_of(stage: Stage, account_id: str) -> list[dict[str, Any]]:
    """An account's deals in id order."""
    return stage.rows(
        "SELECT * FROM crm_deal WHERE account_id = ? ORDER BY CAST(substr(id, 6) AS INTEGER)", account_id)


def open_deals(stage: Stage, where: str = "1", *params: Any) -> list[dict[str, Any]]:
    """Open deals matching a SQL condition, in id order."""
    marks = ",".join(f"'{s}'" for s in OPEN_STAGES)
    return stage.rows(
        f"SELECT * FROM crm_deal WHERE stage IN ({marks}) AND {where} ORDER BY CAST(substr(id, 6) AS INTEGER)",
        *params)


def people_in(stage: Stage, department: str, *, exclude: Iterable[str] = ()) -> list[dict[str, Any]]:
    """Employees of a department (by name), without the given ids, in id order."""
    skip = set(exclude)
    rows = stage.rows(
        "SELECT p.* FROM directory_person p JOIN directory_department d ON d.id = p.department_id "
        "WHERE d.name = ? ORDER BY CAST(substr(p.id, 3) AS INTEGER)", department)
    return [r for r in rows if r["id"] not in skip]


def staff(stage: Stage, *, exclude: Iterable[str] = ()) -> list[dict[str, Any]]:
    """Employees without a role key (ordinary colleagues), in id order."""
    skip = set(exclude)
    rows = stage.rows("SELECT * FROM directory_person WHERE role IS NULL ORDER BY CAST(substr(id, 3) AS INTEGER)")
    return [r for r in rows if r["id"] not in skip]


def nth(pool: Sequence[Any], index: int, family: str, *, salt: str = "") -> Any:
    """Item ``index`` of a fixed, seeded shuffle of ``pool``: instances of a family walk through
    the pool in a random-looking order, so consecutive instances never reuse an item until every
    item has been used once."""
    if not pool:
        raise WorldLacks(f"{family}: empty pool to pick from (this world has none of what it picks)")
    order = list(pool)
    rng_for(0, family, "pool", salt).shuffle(order)
    return order[index % len(order)]


# ---------------------------------------------------------------------------- grader pieces
def answer_tolerance(value: float, wrong: Iterable[float], default: float = 0.005) -> float:
    """The usual rounding tolerance for a figure ("$142k" for 141,500), narrowed to half the gap
    to the nearest wrong reading so that rounding never turns a wrong figure into a right one."""
    gaps = [abs(w - value) / abs(value) for w in wrong if value and abs(w - value) > 1e-9]
    return float(f"{min([default, *(gap / 2 for gap in gaps)]):.2g}")


def allowed_changes(*tables: str | dict[str, list[str]], check_id: str = "no_collateral_damage",
                    max_rows: int | None = None) -> AllowedChangesCheck:
    """The gate every task has: nothing changes outside what the job needs."""
    return AllowedChangesCheck(id=check_id, check="allowed_changes",
                               description="Nothing changed outside what the task needs.", tables=list(tables),
                               max_rows=max_rows)


READ_MARKS = {"mail_entry": ["is_read"]}  # reading mail flips the read flag: never collateral damage


def mails_outside(allowed: Sequence[str], points: float = -2, *, check_id: str = "mails_others",
                  domain_ok: bool = False) -> MailRecipientsOutsideCheck:
    """A penalty for mail reaching anyone not in ``allowed``."""
    return MailRecipientsOutsideCheck(id=check_id, check="mail_recipients_outside", points=points,
                                      description="Mail went to someone who should not get it.",
                                      allowed=list(allowed))


def deleted_mail(points: float = -2) -> ChangedCheck:
    """A penalty for deleting mail from the user's mailbox (collateral damage the job never needs)."""
    return ChangedCheck(id="deleted_mail", check="changed", points=points, table="mail_entry", op="any",
                        description="Mail in the user's mailbox was deleted.",
                        match={"owner_id": "user", "folder": "trash"})


def moved_mail(points: float = -2, *, keep: Sequence[str] = ()) -> ChangedCheck:
    """A penalty for filing away mail of the user's (other than ``keep``, the messages the job
    files): archiving or foldering what nobody mentioned hides it from its owner."""
    match: dict[str, Any] = {"owner_id": "user", "folder": {"not": "trash"}}
    if keep:
        match["message_id"] = {"not_in": list(keep)}
    return ChangedCheck(id="moved_mail", check="changed", points=points, table="mail_entry", op="update",
                        description="Mail in the user's mailbox was moved to another folder although nobody asked.",
                        fields=["folder"], match=match)


def mail_guards(allowed: Sequence[str], *, domain_ok: bool = False,
                keep: Sequence[str] = ()) -> list[CheckItem]:
    """The penalties of every task that lets the agent send mail: wrong recipients, deleted or
    moved mail (``keep``: the messages the job itself files away)."""
    return [mails_outside(allowed, domain_ok=domain_ok), deleted_mail(), moved_mail(keep=keep)]


def shared_outside(allowed: Sequence[str], points: float = -2, *, file: str | None = None) -> ChangedCheck:
    """A penalty for granting Drive access to anyone but ``allowed`` (person refs), or to the whole
    company; ``file`` (an id) limits it to one file."""
    match: dict[str, Any] = {"person_id": {"not_in": list(allowed)}}
    if file is not None:
        match = {"file_id": file, **match}
    return ChangedCheck(id="shared_outside", check="changed", points=points, table="drive_permission", op="any",
                        description="A file was shared with someone who should not have access.", match=match)


def weigh_penalties(criteria: list[dict[str, Any]], *, keep: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Every penalty (a judge's aside) made worth all the positive points, so it zeroes the score.

    A penalty describes what the instruction rules out (mail to the wrong people, deleted mail,
    an edit to a record nobody mentioned, a compliant claim reported): doing the rest of the job
    must not outweigh it, or a policy learns that a little damage is cheap.  The writer applies
    this to every family's criteria, except to the penalties named in ``keep``, whose weight a
    specification fixes.
    """
    worth = sum(float(c["points"]) for c in criteria if float(c.get("points") or 0) > 0)
    out = []
    for item in criteria:
        points = float(item.get("points") or 0)
        if points < 0 and item.get("check") != "judge" and -points < worth and item.get("id") not in keep:
            item = {**item, "points": -worth}
        out.append(item)
    return out


def deleted_files(points: float = -2) -> ChangedCheck:
    """A penalty for trashing Drive files (when a task may create or share files, it never needs this)."""
    return ChangedCheck(id="deleted_files", check="changed", points=points, table="drive_file", op="update",
                        description="A Drive file was deleted.", match={"trashed": True})


def judge(check_id: str, points: float, rubric: str, evidence: Sequence[str], source: Sequence[str] = (),
          description: str | None = None) -> JudgeCheck:
    """A judge criterion with a named rubric (additional points only, never the only check)."""
    return JudgeCheck(id=check_id, check="judge", points=points, description=description or None, rubric=rubric,
                      evidence=list(evidence), **({"source": list(source)} if source else {}))


def invoice_numbers(rng: random.Random, n: int) -> list[str]:
    """``n`` distinct planted invoice numbers, sorted; below the generated world's INV-2026-1001 on,
    so a task's invoices never collide with the CRM's own."""
    return [f"INV-2026-{number:04d}" for number in sorted(rng.sample(range(100, 990), n))]
