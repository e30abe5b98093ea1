"""What the mail generator knows about the world: people, customers and files to write about.

Read once from the rows the earlier generators wrote (directory, CRM, Drive), so mail talks about
real colleagues, real deals and invoices, and attaches files the sender can actually open.  Every
earlier table may be empty (an app not generated yet): each accessor then returns nothing and the
generator writes internal mail only.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from officesim.apps.mail.gen_mailroom import Addr

if TYPE_CHECKING:
    from officesim.worldgen import GenContext

@dataclass
class Cast:
    """People, customers and files, indexed the way the generator asks for them."""

    company: str
    currency: str
    people: dict[str, Addr]  # person id -> address
    department_of: dict[str, str]  # person id -> department name
    members: dict[str, list[str]]  # department name -> person ids
    heads: dict[str, str]  # department name -> head person id
    manager_of: dict[str, str]
    roles: dict[str, str]
    accounts: dict[str, dict[str, Any]] = field(default_factory=dict)
    contacts: dict[str, list[Addr]] = field(default_factory=dict)  # account id -> contacts, first = finance
    deals: list[dict[str, Any]] = field(default_factory=list)
    invoices: list[dict[str, Any]] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # file id -> lower-case name
    viewable: dict[str, list[str]] = field(default_factory=dict)  # person id -> owned or granted file ids
    domain_files: list[str] = field(default_factory=list)
    by_email: dict[str, str] = field(default_factory=dict)  # employee email -> person id
    locale: str = "en_US"  # how money is written (officesim.apps.money)

    def __post_init__(self) -> None:
        self.by_email = {a.email: p for p, a in self.people.items()}

    def role(self, key: str) -> str | None:
        return self.roles.get(key)

    def first_name(self, role: str, fallback: str) -> str:
        person = self.roles.get(role)
        return self.people[person].first if person else fallback

    def pick_file(
        self, rng: random.Random, person_id: str, keywords: tuple[str, ...], *, must: str = "",
        fallback: bool = True,
    ) -> str | None:
        """A file ``person_id`` can open named with one of ``keywords`` (and ``must``, when given).

        Without a match, ``fallback`` allows (sometimes) any file the person owns or was given.
        """
        def fits(file_id: str) -> bool:
            name = self.files[file_id]
            return must in name and any(k in name for k in keywords)

        own = self.viewable.get(person_id, [])
        matches = [f for f in own if fits(f)] or [f for f in self.domain_files if fits(f)]
        if matches:
            return rng.choice(matches)
        return rng.choice(own) if fallback and own and rng.random() < 0.3 else None


def load_cast(ctx: GenContext) -> Cast:
    """Read people, CRM and Drive rows from the world being generated."""
    db = ctx.world.db
    depts = {r["id"]: r["name"] for r in db.execute("SELECT id, name FROM directory_department")}
    people: dict[str, Addr] = {}
    department_of: dict[str, str] = {}
    members: dict[str, list[str]] = {}
    manager_of: dict[str, str] = {}
    for row in db.execute("SELECT * FROM directory_person ORDER BY length(id), id"):
        dept = depts.get(row["department_id"], "")
        people[row["id"]] = Addr(row["email"], row["name"], row["id"], f"{row['title']}, {ctx.spec.company}")
        department_of[row["id"]] = dept
        members.setdefault(dept, []).append(row["id"])
        if row["manager_id"]:
            manager_of[row["id"]] = row["manager_id"]
    heads = {depts[r["id"]]: r["head_id"] for r in db.execute("SELECT id, head_id FROM directory_department")
             if r["head_id"] in people}
    roles = {r["role"]: r["id"] for r in db.execute("SELECT id, role FROM directory_person WHERE role IS NOT NULL")}
    cast = Cast(ctx.spec.company, ctx.spec.currency, people, department_of, members, heads, manager_of, roles,
                locale=ctx.spec.locale)
    _load_crm(ctx, cast)
    _load_drive(ctx, cast)
    return cast


def _load_crm(ctx: GenContext, cast: Cast) -> None:
    db = ctx.world.db
    cast.accounts = {r["id"]: dict(r) for r in db.execute("SELECT * FROM crm_account ORDER BY length(id), id")
                     if r["owner_id"] in cast.people}
    for row in db.execute("SELECT * FROM crm_contact ORDER BY length(id), id"):
        account = cast.accounts.get(row["account_id"])
        if account is not None:
            signature = f"{row['title']}, {account['name']}"
            cast.contacts.setdefault(row["account_id"], []).append(Addr(row["email"].lower(), row["name"],
                                                                         None, signature))
    cast.deals = [dict(r) for r in db.execute("SELECT * FROM crm_deal ORDER BY length(id), id")
                  if r["account_id"] in cast.contacts and r["owner_id"] in cast.people]
    cast.invoices = [dict(r) for r in db.execute("SELECT * FROM crm_invoice ORDER BY length(id), id")
                     if r["account_id"] in cast.contacts]


def _load_drive(ctx: GenContext, cast: Cast) -> None:
    """Who can open which live doc or sheet: owners, plus grants on the file or a folder above it.

    The same rule as ``officesim.apps.drive.access`` (without roles), computed for everyone at once.
    """
    db = ctx.world.db
    rows = db.execute("SELECT id, name, kind, parent_id, owner_id FROM drive_file WHERE trashed = 0 "
                      "ORDER BY length(id), id").fetchall()
    children: dict[str, list[str]] = {}
    for row in rows:
        if row["parent_id"]:
            children.setdefault(row["parent_id"], []).append(row["id"])
        if row["kind"] != "folder":
            cast.files[row["id"]] = row["name"].lower()

    def documents_under(file_id: str) -> list[str]:
        found, stack, seen = [], [file_id], set()
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            if current in cast.files:
                found.append(current)
            stack.extend(reversed(children.get(current, [])))
        return found

    access: dict[str, dict[str, None]] = {}  # person -> ordered set of file ids
    for row in rows:
        access.setdefault(row["owner_id"], {}).update(dict.fromkeys(documents_under(row["id"])))
    domain: dict[str, None] = {}
    for row in db.execute("SELECT file_id, principal, person_id FROM drive_permission ORDER BY length(id), id"):
        reached = dict.fromkeys(documents_under(row["file_id"]))
        if row["principal"] == "domain":
            domain.update(reached)
        elif row["person_id"]:
            access.setdefault(row["person_id"], {}).update(reached)
    cast.viewable = {person: list(files) for person, files in access.items()}
    cast.domain_files = list(domain)
