"""Generate chat: #general and #random, a channel per department, topic channels and DMs.

Channels follow the company: department channels hold the department (plus a few others),
``#leadership`` is private to the execs, ``#deal-desk`` holds Sales with Finance and Legal.
Messages come from the conversation templates in ``content``, filled with the company's own
data: Drive files by name and id, CRM deals with their accounts, amounts and stages, colleagues.
Approval requests are approved by someone with the standing to approve.

Sizes (``ctx.spec.size``): ``channels`` channels besides the department ones (#general and
#random included), exactly ``messages_per_channel`` messages in each of them (thread replies
included), and ``dms`` DM conversations of 2-6 messages each.  Everything happens in the
``WINDOW_DAYS`` before the spec's start.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from officesim.apps.chat import content
from officesim.apps.chat.models import dm_channel_name
from officesim.clock import format_ts
from officesim.industries import currency_scale

if TYPE_CHECKING:

    from officesim.worldgen import GenContext

WINDOW_DAYS = 120
_SLOT = re.compile(r"{(\w+)}")
_DEAL_SLOTS = frozenset({"deal", "deal_money", "stage", "close"})
EXECS = ("ceo", "cfo", "head_of_sales", "head_of_engineering", "marketing_lead", "hr_lead", "legal_counsel",
         "cs_lead", "exec_assistant")


@dataclass(frozen=True)
class Topic:
    """A topic channel and who is in it: role keys, whole departments, a few random others."""

    name: str
    kind: str
    topic: str
    theme: str
    roles: tuple[str, ...] = ()
    departments: tuple[str, ...] = ()
    extra: int = 0


# In order of importance: a world with few channels gets the first ones.
TOPICS = (
    Topic("leadership", "private", "Exec team: priorities, pipeline, board prep", "leadership", EXECS),
    Topic("travel-approvals", "private", "Travel requests and approvals", "travel",
          ("ops_manager", "travel_coordinator", "cfo", "controller", "ap_specialist", "exec_assistant"), (), 3),
    Topic("{quarter}-close", "public", "{QUARTER} close: accruals, reconciliations, deadlines", "close",
          ("cfo", "controller", "ap_specialist", "ops_manager", "ceo"), ("Finance",), 2),
    Topic("deal-desk", "public", "Discounts, payment terms and contract approvals", "deal",
          ("head_of_sales", "cfo", "legal_counsel", "controller", "sales_rep_1", "sales_rep_2", "sales_rep_3"),
          ("Sales",), 2),
    Topic("launch-{product}", "public", "Launch coordination for {Product}", "launch",
          ("marketing_lead", "head_of_engineering", "head_of_sales", "cs_lead"), ("Marketing", "Product"), 4),
    Topic("it-helpdesk", "public", "Ask IT: access, laptops, VPN, accounts", "helpdesk", ("it_admin",), ("IT",), 12),
    Topic("customer-escalations", "public", "Customer issues that need several teams", "escalations",
          ("cs_lead", "head_of_sales", "head_of_engineering"), ("Customer Success", "Support"), 3),
    Topic("vendor-reviews", "public", "Vendor renewals, quotes and spend", "vendors",
          ("ops_manager", "cfo", "legal_counsel", "controller", "it_admin"), ("Procurement",), 2),
    Topic("hiring", "private", "Hiring pipeline and offers", "hiring",
          ("hr_lead", "ceo", "cfo", "head_of_engineering", "head_of_sales"), ("People",)),
    Topic("offsite-planning", "public", "Planning the company offsite", "offsite",
          ("ops_manager", "exec_assistant", "travel_coordinator", "hr_lead"), (), 6),
    Topic("sales-wins", "public", "Celebrate closed deals", "wins",
          ("head_of_sales", "sales_rep_1", "sales_rep_2", "sales_rep_3", "ceo", "cs_lead"), ("Sales",), 10),
    Topic("board-prep", "private", "Board meeting preparation", "leadership",
          ("ceo", "cfo", "exec_assistant", "legal_counsel")),
    Topic("budget-{year}", "private", "FY{year} budget planning", "budget",
          ("cfo", "controller", "ceo", "ops_manager", "head_of_sales", "head_of_engineering")),
    Topic("eng-oncall", "public", "On-call handovers and incidents", "oncall",
          ("head_of_engineering", "it_admin"), ("Engineering",), 1),
    Topic("security-incidents", "private", "Security reports and access reviews", "security",
          ("it_admin", "head_of_engineering", "legal_counsel"), ("Security",)),
    Topic("kudos", "public", "Shout-outs for great work", "kudos", (), (), 25),
)


@dataclass
class _Channel:
    id: str
    name: str
    kind: str
    topic: str
    theme: str
    members: list[str]
    created_by: str
    created_at: datetime
    product: str = ""  # launch channels: the product being launched
    department: str = ""  # department channels: the department's name
    keywords: tuple[str, ...] = ()  # words in the names of Drive files this channel talks about


@dataclass
class _Message:
    seq: int
    channel_id: str
    author_id: str
    text: str
    at: datetime
    root: int | None = None  # seq of the thread's root
    reactions: list[tuple[str, str]] = field(default_factory=list)  # (person id, emoji)


def slug(name: str) -> str:
    """A channel name from a department name: 'Customer Success' -> 'customer-success'."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "team"


def _previous_quarter(start: datetime) -> str:
    quarter = (start.month - 1) // 3 + 1
    return f"Q{quarter - 1 if quarter > 1 else 4}"


class _Builder:
    """Builds channels, memberships, messages and reactions in memory, then inserts them in bulk."""

    def __init__(self, ctx: GenContext) -> None:
        self.ctx = ctx
        self.rng = ctx.rng("chat")
        self.start = ctx.spec.start
        self.currency = ctx.spec.currency
        self.user = ctx.world.meta("user_id") or ""
        self.people = {p["id"]: p for p in ctx.people}
        self.quarter = _previous_quarter(self.start)
        self.channels: list[_Channel] = []
        self.messages: list[_Message] = []
        db = ctx.world.db
        self.files = [dict(r) for r in db.execute(
            "SELECT id, name, owner_id FROM drive_file WHERE kind IN ('doc', 'sheet') AND NOT trashed ORDER BY rowid"
        )]
        self.deals = [dict(r) for r in db.execute(
            "SELECT d.id, d.name, d.stage, d.amount, d.currency, d.close_date, d.owner_id, a.name AS account "
            "FROM crm_deal d JOIN crm_account a ON a.id = d.account_id ORDER BY d.rowid"
        )]
        self.accounts = [r[0] for r in db.execute("SELECT name FROM crm_account ORDER BY rowid")]
        fake = ctx.faker("chat", "vendors")
        self.vendors = list(dict.fromkeys([*(fake.company() for _ in range(12)), "Initech", "Globex"]))
        self.dept_names = {d["id"]: d["name"] for d in ctx.departments}
        self.cities = ctx.cities(content.CITIES)
        # The industry renames some topic channels (a law firm's #deal-desk is #matter-intake).
        renamed = ctx.industry.channels
        self.topics = tuple(replace(t, name=renamed[t.name][0], topic=renamed[t.name][1]) if t.name in renamed else t
                            for t in TOPICS)
        self._account_files: dict[str, list[dict[str, Any]]] = {}
        self._channel_files: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {}
        # Projects that have Drive files ('Project Willow: brief') get the project channels first.
        projects = [m.group(1).lower() for f in self.files if (m := re.match(r"Project (\w+)", f["name"]))]
        self.codenames = list(dict.fromkeys([*projects, *content.CODENAMES]))

    # ------------------------------------------------------------------ channels
    def _new_channel(self, name: str, kind: str, topic: str, theme: str, members: list[str], **extra: Any) -> None:
        rng = self.rng
        words = [w.format(quarter=self.quarter) for w in content.THEME_KEYWORDS.get(theme, ())]
        extra["keywords"] = (*extra.get("keywords", ()), *words)
        people = list(self.people)
        members = list(dict.fromkeys(members))
        while len(members) < min(2, len(people)):  # a channel needs someone to talk to
            members = list(dict.fromkeys([*members, rng.choice(people)]))
        created = self.start - timedelta(days=WINDOW_DAYS) + timedelta(minutes=rng.randint(0, 48 * 60))
        self.channels.append(_Channel(
            id=f"ch_{len(self.channels) + 1}", name=name, kind=kind, topic=topic, theme=theme, members=members,
            created_by=members[0], created_at=created, **extra,
        ))

    def _sample(self, pool: list[str], k: int) -> list[str]:
        return self.rng.sample(pool, min(k, len(pool)))

    def build_channels(self) -> None:
        ctx, rng = self.ctx, self.rng
        everyone = list(self.people)
        roles = ctx.roles
        by_dept: dict[str, list[str]] = {}
        for person in ctx.people:
            by_dept.setdefault(person["department_id"], []).append(person["id"])
        dept_ids = {ctx.department_kind(d): d["id"] for d in ctx.departments}  # topics name kinds
        ceo = roles.get("ceo", everyone[0])
        self._new_channel("general", "public", "Company-wide announcements", "general", [ceo, *everyone])
        self._new_channel("random", "public", "Lunch, photos and everything else", "random", [ceo, *everyone])
        taken = {"general", "random"}
        product = rng.choice(self.codenames[:8])
        year = str(self.start.year + 1)
        topic_names = [t.name.format(quarter=self.quarter.lower(), product=product, year=year) for t in self.topics]
        taken.update(topic_names)
        for dept in ctx.departments:
            name = slug(dept["name"])
            name = f"{name}-team" if name in taken else name
            taken.add(name)
            members = by_dept.get(dept["id"], [])
            head = [dept["head_id"]] if dept.get("head_id") else []
            inside = set(members)
            others = [p for p in everyone if p not in inside]
            self._new_channel(name, "public", f"{dept['name']} team channel", "dept",
                              [*head, *members, *self._sample(others, 3)], department=dept["name"],
                              keywords=(dept["name"],))

        wanted = max(0, ctx.spec.size.channels - 2)
        for topic, name in list(zip(self.topics, topic_names, strict=True))[:wanted]:
            members = [roles[r] for r in topic.roles if r in roles]
            for dept_name in topic.departments:
                members += by_dept.get(dept_ids.get(dept_name, ""), [])
            inside = set(members)
            members += self._sample([p for p in everyone if p not in inside], topic.extra)
            text = topic.topic.format(QUARTER=self.quarter, year=year, Product=product.title())
            launch = topic.theme == "launch"
            self._new_channel(name, topic.kind, text, topic.theme, members, product=product.title() if launch else "",
                              keywords=(product.title(),) if launch else ())
        codenames = [c for c in self.codenames if c != product]
        for index in range(max(0, wanted - len(self.topics))):
            code = codenames[index % len(codenames)]
            name = f"proj-{code}" if index < len(codenames) else f"proj-{code}-{index // len(codenames) + 1}"
            kind = "private" if rng.random() < 0.3 else "public"
            self._new_channel(name, kind, f"Project {code.title()}", "project",
                              self._sample(everyone, rng.randint(4, 12)), keywords=(f"Project {code.title()}",))

        # The acting employee: their department channel (above), #general, #random and a few topics.
        if self.user:
            outside = [c for c in self.channels[2 + len(ctx.departments):]
                       if c.kind == "public" and self.user not in c.members]
            for channel in self._sample_channels(outside, 2):
                channel.members.append(self.user)

    def _sample_channels(self, pool: list[_Channel], k: int) -> list[_Channel]:
        return self.rng.sample(pool, min(k, len(pool)))

    # ------------------------------------------------------------------ conversations
    def _available(self, template: content.Conversation) -> bool:
        needed = set(_SLOT.findall(" ".join(template)))
        if not self.files and needed & {"doc", "doc_id"}:
            return False
        if not self.deals and needed & _DEAL_SLOTS:
            return False
        return not ("account" in needed and not self.deals and not self.accounts)

    def _slots(self, template: content.Conversation, channel: _Channel, when: datetime,
               partner: str | None) -> tuple[dict[str, str], list[str]]:
        """Values for the template's slots, and the people it is naturally from (file or deal owner)."""
        rng = self.rng
        needed = set(_SLOT.findall(" ".join(template)))
        slots: dict[str, str] = {
            "quarter": self.quarter, "year": str(self.start.year + 1), "product": channel.product or "Nova",
            "date": _day_label(when + timedelta(days=rng.randint(2, 20))),
            "day": _weekday(when + timedelta(days=rng.randint(1, 5))).strftime("%A"),
            "money": self.ctx.money(round(rng.uniform(150, 9500), -1) * currency_scale(self.currency)),
            "pct": str(rng.choice((5, 8, 10, 12, 15, 20))), "city": rng.choice(self.cities),
            "place": rng.choice(content.PLACES), "tool": rng.choice(content.TOOLS),
            "item": rng.choice(content.ITEMS), "title": rng.choice(content.JOB_TITLES),
            "done": rng.choice(content.DONE), "todo": rng.choice(content.TODO), "blocker": rng.choice(content.BLOCKERS),
        }
        owners: list[str] = []
        vendor, vendor2 = rng.sample(self.vendors, 2)
        person = self.people[partner] if partner else self.people[rng.choice(list(self.people))]
        slots.update(vendor=vendor, vendor2=vendor2, person=person["name"], first=person["name"].split()[0],
                     dept=channel.department or self.dept_names.get(person["department_id"], "Operations"))
        account = ""
        if needed & (_DEAL_SLOTS | {"account"}):
            if self.deals:
                deal = rng.choice(self._deal_pool(channel.theme))
                account = deal["account"]
                name = deal["name"] if account in deal["name"] else f"{deal['name']} ({account})"
                slots.update(deal=name, account=account, stage=deal["stage"].replace("_", " "),
                             deal_money=self.ctx.money(deal["amount"], deal["currency"] or self.currency, compact=True),
                             close=deal["close_date"])
                owners.append(deal["owner_id"])
            else:
                slots["account"] = account = rng.choice(self.accounts)
        if needed & {"doc", "doc_id"}:
            chosen = self._file(channel, account)
            slots.update(doc=chosen["name"], doc_id=chosen["id"])
            owners.insert(0, chosen["owner_id"])
        return slots, [o for o in owners if o in channel.members]

    def _deal_pool(self, theme: str) -> list[dict[str, Any]]:
        """Won deals to celebrate; open deals (usually) to discuss and approve."""
        won = [d for d in self.deals if d["stage"] == "closed_won"]
        if theme in ("wins", "general"):
            return won or self.deals
        open_deals = [d for d in self.deals if not d["stage"].startswith("closed")]
        return open_deals if open_deals and self.rng.random() < 0.85 else self.deals

    def _file(self, channel: _Channel, account: str) -> dict[str, Any]:
        """A Drive file that fits: about the account, matching the channel's keywords, or a member's."""
        rng = self.rng
        if account not in self._account_files:
            self._account_files[account] = [f for f in self.files if account and account in f["name"]]
        if channel.id not in self._channel_files:
            words = [k.lower() for k in channel.keywords]
            members = set(channel.members)
            self._channel_files[channel.id] = (
                [f for f in self.files if any(k in f["name"].lower() for k in words)],
                [f for f in self.files if f["owner_id"] in members],
            )
        for tier in (self._account_files[account], *self._channel_files[channel.id]):
            if tier and rng.random() < 0.8:
                return rng.choice(tier)
        return rng.choice(self.files)

    def _approver(self, channel: _Channel, exclude: str) -> str:
        roles = self.ctx.roles
        pool = [roles[r] for r in content.APPROVER_ROLES if roles.get(r) in channel.members]
        pool = [p for p in dict.fromkeys([*pool, channel.created_by]) if p != exclude]
        others = [p for p in channel.members if p != exclude] or channel.members
        return self.rng.choice(pool or others)

    def _plan(self, theme: str, total: int) -> list[content.Conversation]:
        """Conversations of ``theme`` adding up to exactly ``total`` messages."""
        templates = [t for t in content.THEMES[theme] if self._available(t)]
        plan: list[content.Conversation] = []
        while total > 0:
            plan.append(self.rng.choice(templates)[:total])
            total -= len(plan[-1])
        return plan

    def _conversation(self, channel: _Channel, template: content.Conversation, when: datetime,
                      partner: tuple[str, str] | None = None) -> None:
        """Add one conversation (root, then replies a few minutes to hours apart) starting at ``when``."""
        rng = self.rng
        slots, owners = self._slots(template, channel, when, partner[1] if partner else None)
        if partner:
            author = partner[0]
        elif owners and rng.random() < 0.7:
            author = owners[0]
        else:
            author = rng.choice(channel.members)
        root = _Message(len(self.messages), channel.id, author, template[0].format(**slots), when)
        self.messages.append(root)
        at, previous = when, author
        for line in template[1:]:
            at = min(at + timedelta(minutes=rng.randint(2, 180)), self.start - timedelta(minutes=1))
            if partner:
                writer = partner[1] if previous == partner[0] else partner[0]
            elif line.startswith("!"):
                writer = self._approver(channel, root.author_id)
                root.reactions.append((writer, "white_check_mark"))
            else:
                writer = rng.choice([m for m in channel.members if m != previous] or channel.members)
            reply = _Message(len(self.messages), channel.id, writer, line.lstrip("!").format(**slots), at,
                             root=None if partner else root.seq)
            self.messages.append(reply)
            previous = writer
        for message in self.messages[root.seq:]:
            self._react(channel, message)

    def _react(self, channel: _Channel, message: _Message) -> None:
        rng = self.rng
        if "🎉" in message.text or "🚀" in message.text:
            for person in self._sample(channel.members, rng.randint(1, 4)):
                message.reactions.append((person, "tada"))
        elif rng.random() < 0.2:
            emoji = rng.choice(content.EMOJIS)
            for person in self._sample(channel.members, rng.randint(1, 2)):
                message.reactions.append((person, emoji))

    def _times(self, since: datetime, count: int) -> list[datetime]:
        """``count`` working-hours moments between a day after ``since`` and the start, in order."""
        lo = since + timedelta(days=1)
        hi = self.start - timedelta(hours=2)
        span = (hi - lo).total_seconds()
        moments = []
        for _ in range(count):
            moment = lo + timedelta(seconds=self.rng.random() * span)
            if moment.weekday() >= 5:
                moment -= timedelta(days=moment.weekday() - 4)
            moment = moment.replace(hour=self.rng.randint(8, 18), minute=self.rng.randint(0, 59), second=0)
            moments.append(min(max(moment, lo), hi))
        return sorted(moments)

    def build_messages(self) -> None:
        for channel in self.channels:
            # Draw the conversations' moments first, then fill them in time order.
            plan = self._plan(channel.theme, self.ctx.spec.size.messages_per_channel)
            for template, when in zip(plan, self._times(channel.created_at, len(plan)), strict=True):
                self._conversation(channel, template, when)

    # ------------------------------------------------------------------ DMs
    def _pairs(self, count: int) -> list[tuple[str, str]]:
        rng = self.rng
        people = list(self.people)
        count = min(count, len(people) * (len(people) - 1) // 2)
        same_dept: dict[str, list[str]] = {}
        for person in self.ctx.people:
            same_dept.setdefault(person["department_id"], []).append(person["id"])
        chosen: dict[frozenset[str], tuple[str, str]] = {}
        mine = max(1, count // 3) if self.user else 0
        attempts = 0
        while len(chosen) < count and attempts < count * 50:
            attempts += 1
            first = self.user if len(chosen) < mine else rng.choice(people)
            colleagues = same_dept[self.people[first]["department_id"]]
            second = rng.choice(colleagues if rng.random() < 0.5 and len(colleagues) > 1 else people)
            if second != first:
                chosen.setdefault(frozenset((first, second)), (first, second))
        if len(chosen) < count:  # a small world nearly full of DMs: take the remaining pairs in order
            for a_index, a in enumerate(people):
                for b in people[a_index + 1:]:
                    if len(chosen) < count:
                        chosen.setdefault(frozenset((a, b)), (a, b))
        return list(chosen.values())

    def build_dms(self) -> None:
        rng = self.rng
        for first, second in self._pairs(self.ctx.spec.size.dms):
            channel = _Channel(
                id=f"ch_{len(self.channels) + 1}", name=dm_channel_name(first, second), kind="dm", topic="",
                theme="dm", members=[first, second], created_by=first, created_at=self.start,
            )
            plan = self._plan("dm", rng.randint(2, 6))
            moments = self._times(self.start - timedelta(days=WINDOW_DAYS), len(plan))
            channel.created_at = moments[0] - timedelta(minutes=1)
            for template, when in zip(plan, moments, strict=True):
                opener = (first, second) if rng.random() < 0.6 else (second, first)
                self._conversation(channel, template, when, partner=opener)
            self.channels.append(channel)

    # ------------------------------------------------------------------ write
    def write(self) -> None:
        ctx = self.ctx
        ctx.insert("chat_channel", [
            {"id": c.id, "name": c.name, "kind": c.kind, "topic": c.topic, "created_by": c.created_by,
             "created_at": format_ts(c.created_at), "archived": False}
            for c in self.channels
        ])
        members = [
            {"id": "", "channel_id": c.id, "person_id": p, "joined_at": format_ts(c.created_at)}
            for c in self.channels for p in c.members
        ]
        for number, row in enumerate(members, 1):
            row["id"] = f"mem_{number}"
        ctx.insert("chat_member", members)
        ordered = sorted(self.messages, key=lambda m: (m.at, m.seq))
        ids = {m.seq: f"cm_{n}" for n, m in enumerate(ordered, 1)}
        ctx.insert("chat_message", [
            {"id": ids[m.seq], "channel_id": m.channel_id, "author_id": m.author_id, "text": m.text,
             "posted_at": format_ts(m.at), "thread_id": None if m.root is None else ids[m.root]}
            for m in ordered
        ])
        reactions: list[dict[str, Any]] = []
        for message in ordered:
            for person, emoji in dict.fromkeys(message.reactions):
                reactions.append({"id": f"rx_{len(reactions) + 1}", "message_id": ids[message.seq],
                                  "person_id": person, "emoji": emoji})
        ctx.insert("chat_reaction", reactions)
        ctx.set_counter("ch", len(self.channels))
        ctx.set_counter("mem", len(members))
        ctx.set_counter("cm", len(ordered))
        ctx.set_counter("rx", len(reactions))


def _weekday(moment: datetime) -> datetime:
    """The same moment, or the Monday after when it falls on a weekend."""
    return moment + timedelta(days=(7 - moment.weekday()) % 7) if moment.weekday() >= 5 else moment


def _day_label(moment: datetime) -> str:
    return f"{moment.strftime('%b')} {moment.day}"


def generate(ctx: GenContext) -> None:
    """Channels, memberships, messages, threads, reactions and DMs for the whole company."""
    if not ctx.people:
        return
    builder = _Builder(ctx)
    builder.build_channels()
    builder.build_messages()
    builder.build_dms()
    builder.write()
