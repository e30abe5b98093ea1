"""Generate departments and people, and give key people stable role keys.

Role keys ('cfo', 'ops_manager', ...) let tasks and other generators name people without
depending on faker's names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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


def _email_local(name: str) -> str:
    parts = [p for p in name.lower().replace("'", "").replace(".", "").split() if p.isalpha()]
    return ".".join([parts[0], parts[-1]]) if len(parts) > 1 else (parts[0] if parts else "staff")


def generate(ctx: GenContext) -> None:
    """Departments, people with titles, managers, role keys; fills ``ctx.people`` and ``ctx.roles``."""
    rng = ctx.rng("directory")
    fake = ctx.faker("directory")
    size = ctx.spec.size
    names = [*DEPARTMENTS, *(f"Special Projects {i}" for i in range(1, 41))][: size.departments]
    departments: list[dict[str, Any]]
    departments = [{"id": f"dept_{i}", "name": n, "head_id": None} for i, n in enumerate(names, 1)]
    dept_by_name = {d["name"]: d for d in departments}

    people: list[dict] = []
    taken: set[str] = set()
    role_keys = list(ROLES)[: size.people]
    for index in range(size.people):
        name = fake.name()
        local = _email_local(name)
        email, n = f"{local}@{ctx.spec.domain}", 2
        while email in taken:
            email, n = f"{local}{n}@{ctx.spec.domain}", n + 1
        taken.add(email)
        if index < len(role_keys):
            key = role_keys[index]
            role: str | None = key
            dept_name, title = ROLES[key]
            dept = dept_by_name.get(dept_name, departments[0])
        else:
            role = None
            dept = rng.choice(departments)
            title = rng.choice(TITLES.get(dept["name"], [f"{dept['name']} Specialist"]))
        people.append({
            "id": f"p_{index + 1}", "name": name, "email": email, "title": title,
            "department_id": dept["id"], "manager_id": None, "role": role,
            "location": rng.choice(LOCATIONS), "phone": fake.numerify("+1-555-###-####"),
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
