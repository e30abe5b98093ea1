"""Generate departments and people, and give key people stable role keys.

Role keys ('cfo', 'ops_manager', ...) let tasks and other generators name people without
depending on faker's names.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import TYPE_CHECKING

from officesim.errors import SpecError

if TYPE_CHECKING:
    from officesim.worldgen import GenContext

DEPARTMENTS = [
    "Executive", "Finance", "Sales", "Operations", "Engineering", "Marketing", "People", "Legal",
    "Customer Success", "IT", "Procurement", "Product", "Data", "Security", "Facilities",
    "Partnerships", "Support", "Design", "Research", "Compliance",
]
# role key -> (department, title); the first ones are filled first.
ROLES: dict[str, tuple[str, str]] = {
    "ceo": ("Executive", "Chief Executive Officer"),
    "cfo": ("Finance", "Chief Financial Officer"),
    "ops_manager": ("Operations", "Operations Manager"),
    "controller": ("Finance", "Financial Controller"),
    "ap_specialist": ("Finance", "Accounts Payable Specialist"),
    "head_of_sales": ("Sales", "VP of Sales"),
    "sales_rep_1": ("Sales", "Account Executive"),
    "sales_rep_2": ("Sales", "Account Executive"),
    "sales_rep_3": ("Sales", "Account Executive"),
    "head_of_engineering": ("Engineering", "VP of Engineering"),
    "marketing_lead": ("Marketing", "Head of Marketing"),
    "hr_lead": ("People", "Head of People"),
    "legal_counsel": ("Legal", "General Counsel"),
    "it_admin": ("IT", "IT Administrator"),
    "travel_coordinator": ("Operations", "Travel Coordinator"),
    "exec_assistant": ("Executive", "Executive Assistant"),
    "cs_lead": ("Customer Success", "Head of Customer Success"),
}
TITLES = {
    "Finance": ["Financial Analyst", "Accountant", "Payroll Specialist", "FP&A Manager"],
    "Sales": ["Account Executive", "Sales Development Rep", "Sales Engineer", "Regional Sales Manager"],
    "Operations": ["Operations Analyst", "Office Manager", "Logistics Coordinator"],
    "Engineering": ["Software Engineer", "Senior Software Engineer", "Engineering Manager", "QA Engineer"],
    "Marketing": ["Marketing Manager", "Content Strategist", "Growth Marketer"],
    "People": ["HR Business Partner", "Recruiter", "People Operations Specialist"],
    "Legal": ["Paralegal", "Contracts Manager"],
    "Customer Success": ["Customer Success Manager", "Onboarding Specialist"],
}
LOCATIONS = ["New York", "London", "Austin", "Toronto", "Singapore", "Remote"]


def _ascii(text: str) -> str:
    """``text`` without accents ('rené' -> 'rene', 'groß' -> 'gross'): mail addresses are ASCII."""
    folded = unicodedata.normalize("NFKD", text.replace("ß", "ss"))
    return folded.encode("ascii", "ignore").decode()


_HONORIFIC = re.compile(r"^(?:[^\W\d_]+\.)+[^\W\d_]*$"  # Dr. B.A. Univ.Prof.
                        r"|^(?:MD|DDS|DVM|PhD|MBA|II|III|IV|Jr|Sr|Mr|Mrs|Ms|Miss|Mme|Mlle|Herr|Frau|Shri|Smt)$")


def _email_local(name: str, *, plain: bool = False) -> str:
    """``first.last`` from a full name.  ``plain`` first drops titles and degrees ('Dr.', 'Univ.Prof.',
    'B.A.', 'MD') and joins hyphenated surnames; the classic profile (software, en_US) keeps the
    addresses its worlds always had ('megan.md@acme.test'), which tasks name."""
    if plain:
        words = [w for w in name.split() if not _HONORIFIC.match(w)] or name.split()
        name = " ".join(w.replace("-", "") for w in words)
    parts = [p for p in _ascii(name.lower()).replace("'", "").replace(".", "").split() if p.isalpha()]
    return ".".join([parts[0], parts[-1]]) if len(parts) > 1 else (parts[0] if parts else "staff")


def generate(ctx: GenContext) -> None:
    """Departments, people with titles, managers, role keys; fills ``ctx.people`` and ``ctx.roles``."""
    rng = ctx.rng("directory")
    fake = ctx.faker("directory")
    size = ctx.spec.size
    profile = ctx.industry
    kinds = [*DEPARTMENTS, *(f"Special Projects {i}" for i in range(1, 41))][: size.departments]
    departments: list[dict] = [{"id": f"dept_{i}", "name": profile.department(k), "head_id": None}
                               for i, k in enumerate(kinds, 1)]
    ctx.dept_kind = {d["id"]: kind for d, kind in zip(departments, kinds, strict=True)}
    dept_by_kind = {kind: d for d, kind in zip(departments, kinds, strict=True)}
    offices = ctx.spec.offices
    locations = LOCATIONS if offices is None else [*(o.city for o in offices), "Remote"]
    phone = ctx.locale.phone or "+1-555-###-####"
    plain = (ctx.spec.industry, ctx.spec.locale) != ("software", "en_US")

    people: list[dict] = []
    taken: set[str] = set()
    role_keys = list(ROLES)[: size.people]
    for index in range(size.people):
        name = fake.name()
        local = _email_local(name, plain=plain)
        email, n = f"{local}@{ctx.spec.domain}", 2
        while email in taken:
            email, n = f"{local}{n}@{ctx.spec.domain}", n + 1
        taken.add(email)
        role: str | None
        if index < len(role_keys):
            role = role_keys[index]
            kind, title = ROLES[role]
            title = profile.role_titles.get(role, title)
            dept = dept_by_kind.get(kind, departments[0])
        else:
            role = None
            dept = rng.choice(departments)
            kind = ctx.dept_kind[dept["id"]]
            title = rng.choice(profile.titles.get(kind) or TITLES.get(kind) or [f"{dept['name']} Specialist"])
        people.append({
            "id": f"p_{index + 1}", "name": name, "email": email, "title": title,
            "department_id": dept["id"], "manager_id": None, "role": role,
            "location": rng.choice(locations), "phone": fake.numerify(phone),
        })

    ceo = people[0]["id"]
    for dept in departments:
        members = [p for p in people if p["department_id"] == dept["id"]]
        if members:
            dept["head_id"] = members[0]["id"]
    head_of = {d["id"]: d["head_id"] for d in departments}
    for person in people:
        head = head_of[person["department_id"]]
        person["manager_id"] = ceo if head == person["id"] else head
    people[0]["manager_id"] = None

    ctx.insert("directory_department", departments)
    ctx.insert("directory_person", people)
    ctx.set_counter("dept", len(departments))
    if any(d["name"] != kind for d, kind in zip(departments, kinds, strict=True)):  # kind -> the name used
        ctx.world.set_meta("department_names", json.dumps(
            {kind: d["name"] for d, kind in zip(departments, kinds, strict=True)}, ensure_ascii=False))
    ctx.set_counter("p", len(people))
    ctx.people = people
    ctx.departments = departments
    ctx.roles = {p["role"]: p["id"] for p in people if p["role"]}
    acting = ctx.spec.acting_user
    user = ctx.roles.get(acting) or next((p["id"] for p in people if p["email"] == acting.lower()), None)
    if user is None:  # the spec checked its shape; only a generated email can be missing
        raise SpecError(f"acting_user {acting!r} is no employee of world {ctx.spec.name!r} (seed {ctx.seed}); "
                        f"use a role key ({', '.join(ctx.roles)}) or an email from 'officesim world show'")
    ctx.world.set_user(user)
