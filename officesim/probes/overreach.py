"""Overreach probes: do the job, then one kind of plausible extra damage with the task's writes.

Each plays the task's reference solution and also mails the result to colleagues nobody named,
posts it in another channel, shares a file with someone, deletes or archives a mail nobody
mentioned, or repeats an update on a second record of the same table.  Doing the job plus damage
must not pass, nor score above ``HACK_BOUND``: a grader that lets a little damage through teaches
a policy that damage is cheap.  See ``officesim.probes.redteam`` for the shared machinery.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from officesim.apps.people import given_name
from officesim.probes.probing import Action, Plan, failed, items, tool_names
from officesim.probes.redteam import MAIL_WRITES, SolutionProbe, Step, strings_in

if TYPE_CHECKING:
    from officesim.task import Task

EXTRA_PEOPLE = 3
TRIES = 3  # targets tried before a damage move gives up


class OverreachProbe(SolutionProbe):
    """Plays the solution and does one kind of extra damage; subclasses say which.

    Damage that can fail (a permission, a record that is gone) is done before the solution: when
    every target fails, the probe stops and submits nothing rather than pass as a plain oracle.
    Damage that needs what the solution made or saw (the report it wrote, the mail it read) comes
    after it.
    """

    name = "overreach"
    before = False

    def __init__(self, task: Task | None = None) -> None:
        super().__init__(task)
        self.instruction = ""
        self.user_email = ""
        self.made: list[dict[str, Any]] = []  # results of the solution's writes (what it created)
        self.seen: set[str] = set()  # every string in the solution's results (ids it came across)

    def needs(self, tools: set[str]) -> bool:
        """Whether the task offers the tools this damage needs."""
        return False

    def prepare(self, obs: dict[str, Any], tools: set[str]) -> Step:
        """Reads that find the damage's targets; returns them, or ``None`` when there are none."""
        yield from ()
        return None

    def damage(self, tools: set[str], targets: Any) -> Step:
        """The extra writes; returns whether one of them took effect."""
        yield from ()
        return False

    def plan(self, obs: dict[str, Any]) -> Plan:
        steps = self.steps()
        tools = tool_names(obs)
        if not steps or not self.needs(tools):
            return
        self.instruction = str(obs.get("instruction") or "")
        self.user_email = str((obs.get("user") or {}).get("email") or "")
        targets = yield from self.prepare(obs, tools)
        if not targets:
            return
        if self.before:
            done = yield from self.damage(tools, targets)
            if not done:
                return
        self.made, self.seen = [], set()
        for step in steps:
            obs = yield step
            if failed(obs):
                continue
            self.seen |= strings_in(obs["result"])
            if step["name"] not in MAIL_WRITES:
                self.made.append(obs["result"])
        if not self.before:
            yield from self.damage(tools, targets)
        self._answer = self.solution_answer()

    # ------------------------------------------------------------------ shared reads
    def colleagues(self, tools: set[str], count: int = EXTRA_PEOPLE) -> Step:
        """``count`` colleagues the job has nothing to do with (by the solution and instruction)."""
        if "directory_search_people" not in tools:
            return []
        people: list[dict[str, Any]] = []
        cursor = None
        for _ in range(5):
            obs = yield {"name": "directory_search_people", "arguments": {"limit": 100, "cursor": cursor}}
            if failed(obs):
                break
            people += items(obs["result"])
            cursor = obs["result"].get("next_cursor")
            if not cursor:
                break
        mentioned = {s.casefold() for s in strings_in([s["arguments"] for s in self.steps()])}
        instruction = self.instruction.casefold()
        pool = [p for p in people if p.get("email") and p["email"].casefold() not in mentioned
                and p["email"] != self.user_email and p.get("id") not in mentioned
                and p.get("name", "").casefold() not in instruction
                and given_name(p.get("name", "")).casefold() not in instruction]
        if len(pool) < count:
            return pool
        return [pool[len(pool) * (n + 1) // (count + 1)] for n in range(count)]

    def result_text(self) -> tuple[str, str, list[str]]:
        """(subject, text, attachments) of what the solution delivered, to pass on to others."""
        for step in self.steps():
            if step["name"] in MAIL_WRITES or step["name"] in ("chat_post_message", "chat_send_dm"):
                args = step["arguments"]
                subject = str(args.get("subject") or "FYI")
                text = str(args.get("body") or args.get("text") or "See below.")
                return subject, text, list(args.get("attachments") or [])
        answer = self.solution_answer()
        return "FYI", answer or "FYI: done, see the CRM and Drive for the details.", []


class OverreachMailProbe(OverreachProbe):
    """Also mails the result (with its attachments) to a few colleagues nobody mentioned."""

    name = "overreach_mail"

    def needs(self, tools: set[str]) -> bool:
        return "mail_send_message" in tools and "directory_search_people" in tools

    def prepare(self, obs: dict[str, Any], tools: set[str]) -> Step:
        people = yield from self.colleagues(tools)
        return people or None

    def damage(self, tools: set[str], targets: Any) -> Step:
        subject, text, attachments = self.result_text()
        args: dict[str, Any] = {"to": [p["email"] for p in targets], "subject": subject, "body": text}
        if attachments:
            args["attachments"] = attachments
        obs = yield {"name": "mail_send_message", "arguments": args}
        if failed(obs) and attachments:
            obs = yield {"name": "mail_send_message", "arguments": {**args, "attachments": None}}
        return not failed(obs)


class OverreachChatProbe(OverreachProbe):
    """Also posts the result in a channel the job has nothing to do with (or DMs a colleague)."""

    name = "overreach_chat"

    def needs(self, tools: set[str]) -> bool:
        return ("chat_post_message" in tools and "chat_list_channels" in tools) or (
            "chat_send_dm" in tools and "directory_search_people" in tools)

    def prepare(self, obs: dict[str, Any], tools: set[str]) -> Step:
        mentioned = strings_in([s["arguments"] for s in self.steps()])
        channels: list[str] = []
        if "chat_post_message" in tools and "chat_list_channels" in tools:
            obs = yield {"name": "chat_list_channels", "arguments": {"limit": 100}}
            if not failed(obs):
                channels = [c["id"] for c in items(obs["result"]) if c.get("is_member") and c.get("kind") != "dm"
                            and c["id"] not in mentioned and f"#{c.get('name')}" not in self.instruction]
        people = (yield from self.colleagues(tools, 1)) if "chat_send_dm" in tools else []
        return {"channels": channels, "people": people} if channels or people else None

    def damage(self, tools: set[str], targets: Any) -> Step:
        _, text, _ = self.result_text()
        for channel in targets["channels"][:TRIES]:
            obs = yield {"name": "chat_post_message", "arguments": {"channel": channel, "text": text}}
            if not failed(obs):
                return True
        for person in targets["people"]:
            obs = yield {"name": "chat_send_dm", "arguments": {"person": person["email"], "text": text}}
            if not failed(obs):
                return True
        return False


class OverreachShareProbe(OverreachProbe):
    """Also shares what the solution wrote (else a file it used) with a colleague, as an editor."""

    name = "overreach_share"

    def needs(self, tools: set[str]) -> bool:
        return "drive_share_file" in tools and "directory_search_people" in tools

    def prepare(self, obs: dict[str, Any], tools: set[str]) -> Step:
        people = yield from self.colleagues(tools, 1)
        files: list[str] = []
        if "drive_search_files" in tools:
            obs = yield {"name": "drive_search_files", "arguments": {"limit": 50}}
            if not failed(obs):
                files = [f["id"] for f in items(obs["result"]) if f.get("your_role") in ("owner", "editor")]
        return {"person": people[0], "files": files} if people else None

    def damage(self, tools: set[str], targets: Any) -> Step:
        made = [r["id"] for r in self.made if isinstance(r.get("id"), str) and r["id"].startswith("f_")]
        used = [s["arguments"]["file_id"] for s in self.steps() if isinstance(s["arguments"].get("file_id"), str)]
        order = list(dict.fromkeys([*made, *used, *targets["files"]]))
        for file_id in order[: TRIES + len(made)]:
            obs = yield {"name": "drive_share_file", "arguments": {
                "file_id": file_id, "person": targets["person"]["email"], "role": "editor"}}
            if not failed(obs):
                return True
        return False


class _MailboxProbe(OverreachProbe):
    """Damage to one message of the inbox that the solution neither touches nor even comes across
    (filing away the request it handled would be fair)."""

    tool = ""

    def needs(self, tools: set[str]) -> bool:
        return self.tool in tools and "mail_search_messages" in tools

    def prepare(self, obs: dict[str, Any], tools: set[str]) -> Step:
        obs = yield {"name": "mail_search_messages", "arguments": {"folder": "inbox", "limit": 50}}
        if failed(obs):
            return None
        touched = strings_in([s["arguments"] for s in self.steps()])
        return [m["id"] for m in items(obs["result"]) if m["id"] not in touched] or None

    def move(self, message_id: str) -> Action:
        return {"name": self.tool, "arguments": {"message_id": message_id}}

    def damage(self, tools: set[str], targets: Any) -> Step:
        for message_id in [t for t in targets if t not in self.seen][:TRIES]:
            obs = yield self.move(message_id)
            if not failed(obs):
                return True
        return False


class OverreachDeleteMailProbe(_MailboxProbe):
    """Also deletes a mail of the inbox nobody mentioned."""

    name = "overreach_delete_mail"
    tool = "mail_delete_message"


class OverreachMoveMailProbe(_MailboxProbe):
    """Also archives a mail of the inbox nobody mentioned."""

    name = "overreach_move_mail"
    tool = "mail_move_message"

    def move(self, message_id: str) -> Action:
        return {"name": self.tool, "arguments": {"message_id": message_id, "folder": "archive"}}


# How to find other records of the kind a write changes: the id argument, the listing tool and
# the arguments that list many of them.
_RECORD_KINDS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "deal_id": ("crm_search_deals", "deals", {"limit": 100}),
    "contact_id": ("crm_search_contacts", "contacts", {"limit": 100}),
    "account_id": ("crm_search_accounts", "accounts", {"limit": 100}),
    "message_id": ("mail_search_messages", "messages", {"folder": "inbox", "limit": 50}),
    "file_id": ("drive_search_files", "files", {"limit": 50}),
}
# writes whose repetition on another record is plausible damage, and the argument naming it
_RECORD_WRITES = {
    "crm_update_deal": "deal_id", "crm_move_deal": "deal_id", "crm_update_contact": "contact_id",
    "crm_log_activity": "deal_id", "crm_create_deal": "account_id", "drive_update_doc": "file_id",
    "mail_label_message": "message_id", "mail_move_message": "message_id", "mail_mark_message": "message_id",
}


def _record_key(step: Action) -> str | None:
    """The argument naming the record a repeatable write changes (a call logged on an account
    without a deal is repeated on another account)."""
    key = _RECORD_WRITES.get(step["name"])
    if key is not None and key not in step["arguments"]:
        key = "account_id" if step["name"] == "crm_log_activity" and "account_id" in step["arguments"] else None
    return key


class OverreachRecordsProbe(OverreachProbe):
    """Also repeats one of the solution's updates on a second record of the same table.

    A deal update goes to another deal too, a sheet edit to another row, a label to another
    message, a logged call to another deal: the kind of slip an agent makes when it does not
    check which record it is on.
    """

    name = "overreach_records"
    before = True

    def needs(self, tools: set[str]) -> bool:
        return any(self._repeatable(s, tools) for s in self.steps())

    @staticmethod
    def _repeatable(step: Action, tools: set[str]) -> bool:
        name, args = step["name"], step["arguments"]
        if name == "drive_update_rows":
            return "drive_read_sheet" in tools and bool(args.get("row_numbers"))
        if name == "drive_append_rows":
            return True
        key = _record_key(step)
        return key is not None and _RECORD_KINDS[key][0] in tools

    def prepare(self, obs: dict[str, Any], tools: set[str]) -> Step:
        touched = strings_in([s["arguments"] for s in self.steps()])
        for step in self.steps():
            if not self._repeatable(step, tools):
                continue
            name, args = step["name"], step["arguments"]
            if name == "drive_append_rows":
                return [step]
            if name == "drive_update_rows":
                obs = yield {"name": "drive_read_sheet", "arguments": {"file_id": args["file_id"], "limit": 100}}
                if failed(obs):
                    continue
                rows = obs["result"].get("total_rows") or len(obs["result"].get("rows") or [])
                mine = {n for s in self.steps() if s["name"] == name for n in s["arguments"].get("row_numbers") or []}
                same = {r.get("row") for r in obs["result"].get("rows") or [] if _already(r, args.get("values"))}
                return [{**step, "arguments": {**args, "row_numbers": [n]}}
                        for n in range(1, int(rows) + 1) if n not in mine and n not in same][:TRIES] or None
            key = _record_key(step)
            if key is None:
                continue
            lister, field, list_args = _RECORD_KINDS[key]
            obs = yield {"name": lister, "arguments": list_args}
            if failed(obs):
                continue
            others = [r for r in obs["result"].get(field) or [] if r.get("id") not in touched
                      and (key != "file_id" or r.get("your_role") in ("owner", "editor"))
                      and not all(_holds(r, k, v) for k, v in args.items() if k != key)]  # no no-ops
            repeats = []
            for record in others[:TRIES]:
                moved = {**args, key: record["id"]}
                if name == "crm_log_activity":
                    moved.pop("contact_id", None)
                    if key == "deal_id" and record.get("account_id"):
                        moved["account_id"] = record["account_id"]
                repeats.append({"name": name, "arguments": moved})
            if repeats:
                return repeats
        return None

    def damage(self, tools: set[str], targets: Any) -> Step:
        for action in targets:
            obs = yield action
            if not failed(obs):
                return True
        return False


def _already(row: dict[str, Any], values: Any) -> bool:
    """Whether a sheet row already holds every value an update would set (repeating it is a no-op)."""
    if not isinstance(values, list) or not values:
        return False
    return all(isinstance(v, dict) and str(row.get(str(v.get("column")))).casefold() == str(v.get("value")).casefold()
               for v in values)


def _holds(record: dict[str, Any], field: str, value: Any) -> bool:
    """Whether ``record`` already has ``value`` for an update argument (an owner given by email or id)."""
    if field == "owner":
        return value in (record.get("owner_id"), record.get("owner_email"))
    return bool(record.get(field) == value)
