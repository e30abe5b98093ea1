"""Drive jobs: share a doc with exactly the right people, apply requested sheet changes."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from officesim.apps.directory.generate import ROLES
from officesim.grading.drive_checks import SheetCellsCheck
from officesim.grading.record_checks import ChangedCheck, RecordCheck
from officesim.taskgen.base import CheckItem, Difficulty, Draft, Family, Solver, Stage
from officesim.taskgen.common import (
    MAIL_TABLES,
    allowed_changes,
    colleague_mail,
    day,
    first_name,
    mail_guards,
    people_in,
    phrasing,
    stamp,
    toolset,
)

# role key -> how a colleague names that person in a request
ROLE_PHRASES = {
    "cfo": "our CFO", "ops_manager": "our Operations Manager", "ceo": "the CEO",
    "controller": "the Financial Controller", "hr_lead": "the Head of People",
    "legal_counsel": "our General Counsel", "head_of_sales": "the VP of Sales", "marketing_lead": "the Head of "
    "Marketing", "it_admin": "the IT Administrator", "cs_lead": "the Head of Customer Success",
    "head_of_engineering": "the VP of Engineering", "travel_coordinator": "the Travel Coordinator",
    "exec_assistant": "the CEO's Executive Assistant", "ap_specialist": "our Accounts Payable Specialist",
}
# (owner role, doc name, first line of content, candidate audience role keys)
SHARE_DOCS = [
    ("ops_manager", "FY27 Operations Plan (draft)", "Goals, headcount and vendor changes for FY27.",
     ["cfo", "ceo", "controller", "it_admin", "hr_lead", "travel_coordinator"]),
    ("hr_lead", "2027 Hiring Plan", "Open roles per department and start dates for 2027.",
     ["cfo", "ceo", "head_of_engineering", "head_of_sales", "controller", "exec_assistant"]),
    ("marketing_lead", "Q4 Campaign Budget", "Campaigns, channels and spend for Q4.",
     ["cfo", "head_of_sales", "controller", "cs_lead", "ceo"]),
    ("controller", "Q3 Close Checklist", "Steps, owners and deadlines for the Q3 close.",
     ["cfo", "ap_specialist", "ops_manager", "legal_counsel", "ceo"]),
    ("cs_lead", "Renewal Risk Review", "Accounts at risk of churn and mitigation plans.",
     ["head_of_sales", "ceo", "cfo", "marketing_lead", "head_of_engineering"]),
]


def _look_up(s: Solver, role_key: str) -> str:
    """Find a role holder by job title in the directory, as an agent would; returns their email."""
    wanted, title = s.world.db.execute("SELECT email, title FROM directory_person WHERE role = ?",
                                       (role_key,)).fetchone()
    # the world's own title for the role (an industry profile may call the CFO 'Finance Director')
    found = s.call("directory_search_people", query=title or ROLES[role_key][1], limit=50)["people"]
    return next(p["email"] for p in found if p["email"] == wanted)


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


class ShareDocExact(Family):
    """Share a document with exactly the named people in exactly the named roles.

    Structures: a fresh doc; wrong access levels to fix; an extra person to remove; a company-wide
    link to close; and a whole department as readers beside named editors (the agent lists the
    department in the directory; the doc's owner is in it or not, and needs no share).
    """

    name = "share_doc_exact"
    skills = ("access_control",)
    category = "drive-sharing"
    difficulty = "easy"
    apps = ("drive",)
    variants = ("fresh", "fix-roles", "remove-extra", "company-wide-link", "department-readers")
    worlds = ("acme", "forge", "shopline", "tiny")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        # the doc shifts each round of structures, so no two instances of a structure share a doc
        owner_role, doc_name, summary, audience = SHARE_DOCS[(index + index // len(self.variants)) % len(SHARE_DOCS)]
        stage.act_as(f"role:{owner_role}")
        stage.clock(stamp(day(-3), 14, 0))
        file_id = str(stage.act("user", "drive_create_doc", name=doc_name,
                                content=f"# {doc_name}\n\n{summary}\n\n(draft: numbers to be confirmed)\n")["id"])
        chosen = rng.sample(audience, rng.randint(2, 3))
        roles = {key: rng.choice(["editor", "viewer"]) for key in chosen}
        if len(set(roles.values())) == 1:
            roles[chosen[0]] = "viewer" if roles[chosen[0]] == "editor" else "editor"
        outsiders = [k for k in audience if k not in chosen]
        removed: list[str] = []
        team: list[dict[str, Any]] = []
        department = ""
        if variant == "department-readers":
            # the editors stay named; the readers are a whole department, listed in the directory
            kind = rng.choice(["IT", "Finance", "Operations", "People", "Legal"])
            department = stage.department(kind)
            chosen = [k for k in chosen if roles[k] == "editor"] or chosen[:1]
            roles = {k: "editor" for k in chosen}
            holders = {stage.person(f"role:{k}")["id"] for k in chosen}  # an editor in the team stays an editor
            team = [p for p in people_in(stage, department, exclude=[stage.world.user["id"]])
                    if p["id"] not in holders]
        if variant == "fix-roles":
            wrong = chosen[rng.randrange(len(chosen))]
            stage.act("user", "drive_share_file", file_id=file_id, person=f"role:{wrong}",
                      role="viewer" if roles[wrong] == "editor" else "editor")
        elif variant == "remove-extra":
            removed = [rng.choice(outsiders)]
            stage.act("user", "drive_share_file", file_id=file_id, person=f"role:{removed[0]}", role="editor")
        elif variant == "company-wide-link":
            stage.act("user", "drive_share_file", file_id=file_id, domain=True, role="viewer")
        stage.clock(stamp(day(0), 9, 0))
        editors = [ROLE_PHRASES[k] for k in chosen if roles[k] == "editor"]
        viewers = [ROLE_PHRASES[k] for k in chosen if roles[k] == "viewer"]
        parts = [f"{_join(editors)} should be able to edit it", f"{_join(viewers)} only needs to read it"
                 if len(viewers) == 1 else f"{_join(viewers or ['nobody'])} only need to read it"]
        rng.shuffle(parts)
        closing = {
            "fresh": "Nobody else should get access.",
            "fix-roles": "Some of that may already be set up; make sure the access levels end up exactly like this.",
            "remove-extra": "Nobody else should have access, so take away anyone who shouldn't be on it.",
            "company-wide-link": "Right now it's open to the whole company, which it shouldn't be: only these "
                                 "people should have access.",
            "department-readers": "Nobody else should get access.",
        }[variant]
        instruction = f"Please sort out the sharing on my doc '{doc_name}': {parts[0]}, and {parts[1]}. {closing}"
        if variant == "department-readers":
            instruction = rng.choice([
                f"Please share my doc '{doc_name}' with everyone in {department} so they can read it, and let "
                f"{_join([ROLE_PHRASES[k] for k in chosen])} edit it. Nobody else should get access.",
                f"Could you give the whole {department} team read access to '{doc_name}'? "
                f"{_join([ROLE_PHRASES[k] for k in chosen])} should be able to edit. No one else.",
            ])

        def solve(s: Solver) -> None:
            s.call("drive_search_files", query=doc_name)
            for key in chosen:
                s.call("drive_share_file", file_id=file_id, person=_look_up(s, key), role=roles[key])
            for key in removed:
                s.call("drive_share_file", file_id=file_id, person=_look_up(s, key), role="none")
            if variant == "company-wide-link":
                s.call("drive_share_file", file_id=file_id, domain=True, role="none")
            if team:
                s.call("directory_search_people", department=department, limit=50)
                for person in team:
                    s.call("drive_share_file", file_id=file_id, person=person["email"], role="viewer")

        gates: list[CheckItem] = [
            RecordCheck(id=f"access_{key}", check="record", table="drive_permission",
                        description=f"{ROLE_PHRASES[key]} has {roles[key]} access.",
                        match={"file_id": file_id, "person_id": f"role:{key}"}, expect={"role": roles[key]},
                        count=1)
            for key in chosen
        ]
        gates += [
            RecordCheck(id=f"reader_{n}", check="record", table="drive_permission",
                        description=f"{person['name']} ({department}) can read.",
                        match={"file_id": file_id, "person_id": person["id"]}, expect={"role": "viewer"}, count=1)
            for n, person in enumerate(team, 1)
        ]
        gates += [
            RecordCheck(id="nobody_else", check="record", table="drive_permission",
                        description="Only the named people have access.", match={"file_id": file_id},
                        count=len(chosen) + len(team)),
            allowed_changes("drive_permission"),
        ]
        return Draft(
            instruction=instruction,
            tools=toolset(["drive"], writes=["drive_share_file"], distractors=["drive"]),
            gates=gates,
            criteria=[ChangedCheck(id="shared", check="changed", points=1, table="drive_permission",
                                   description="The sharing was changed.", match={"file_id": file_id}),
                      # every other file's sharing is collateral: all of it is compared, not this doc's only
                      ChangedCheck(id="shared_other_files", check="changed", points=-1,
                                   table="drive_permission", op="any",
                                   description="The sharing of another file changed although only this doc's "
                                                   "was asked for.",
                                   match={"file_id": {"not": file_id}})],
            solve=solve, variant=variant, max_steps=20 + 2 * len(team), traps={
                "fresh": ("people are named by role ('our controller'): the directory says who holds it",),
                "fix-roles": ("one of them already has the other access level: it must change, not stay",),
                "remove-extra": ("someone already on the doc was not named: their access must go",),
                "company-wide-link": ("the company-wide link stays open unless it is closed: named shares alone "
                                      "do not restrict the doc",),
                "department-readers": ("a named editor in the department stays an editor, not a reader",
                                       "the department's members come from the directory, every one of them"),
            }[variant],
        )


# sheet templates: name, owner role, columns, types, row factory
def _inventory(rng: random.Random) -> tuple[list[list[Any]], list[str]]:
    items = ["Monitor 27in", "Laptop dock", "Standing desk", "Office chair", "Projector", "Headset",
             "Webcam", "Whiteboard", "Desk phone", "Label printer"]
    places = ["New York", "London", "Austin", "Toronto", "Singapore"]
    rows = [[item, place, rng.randint(2, 40), "in use"] for item in rng.sample(items, 5) for place in
            rng.sample(places, 2)]
    rng.shuffle(rows)
    return rows, ["Item", "Location", "Quantity", "Status"]


SHEET_KINDS = {
    "inventory": ("Office Equipment Inventory", ["Item", "Location", "Quantity", "Status"],
                  ["text", "text", "number", "text"]),
    "vendors": ("Vendor Contracts", ["Vendor", "Service", "Annual cost", "Renewal date", "Status"],
                ["text", "text", "number", "date", "text"]),
    "events": ("Conference Plan 2027", ["Event", "City", "Start date", "Budget", "Owner"],
               ["text", "text", "date", "number", "text"]),
}
VENDORS = ["Northwind Cleaning", "Globex Security", "Initech Catering", "Umbrella Logistics", "Hooli Cloud",
           "Stark Facilities", "Wayne Printing", "Acme Coffee Co", "Soylent Snacks", "Vandelay Imports"]
SERVICES = ["cleaning", "security", "catering", "courier", "cloud backup", "maintenance", "printing",
            "coffee service", "snacks", "furniture"]
EVENTS = ["DataConf", "SaaS Summit", "Analytics World", "CFO Forum", "RevOps Live", "Cloud Expo", "BI Days",
          "Finance Tech Week"]
CITIES = ["Boston", "Chicago", "London", "Berlin", "Austin", "Toronto", "Paris", "Singapore"]


def _sheet_rows(kind: str, rng: random.Random, people: list[str]) -> list[list[Any]]:
    if kind == "inventory":
        return _inventory(rng)[0]
    if kind == "vendors":
        picks = rng.sample(range(len(VENDORS)), 7)
        return [[VENDORS[i], SERVICES[i], float(rng.randrange(6_000, 90_000, 500)),
                 day(rng.randint(20, 300)).isoformat(), "active"] for i in picks]
    events = rng.sample(EVENTS, 6)
    return [[event, rng.choice(CITIES), day(rng.randint(60, 330)).isoformat(), float(rng.randrange(8_000, 60_000, 500)),
             rng.choice(people)] for event in events]


class SheetUpdateFromRequest(Family):
    """Apply the row changes a colleague asks for by mail to a shared sheet, touching nothing else.

    Structures: three sheets (inventory, vendor contracts, conference plan) with an edit, a status
    change and a new row each; a follow-up mail that retracts one of the requested changes (that
    row stays as it was); and a follow-up that corrects the first change's value (the later value
    is the one to write).  The instruction mentions neither follow-up.
    """

    name = "sheet_update_from_request"
    skills = ("record_update", "reconciliation")
    category = "drive-editing"
    difficulty = "medium"
    apps = ("mail", "drive")
    variants = ("inventory", "vendors", "events", "retracted-change", "corrected-value", "big-inventory")
    worlds = ("acme", "shopline", "counsel")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        if variant == "big-inventory":
            return self._big_inventory(stage, index, rng)
        kind = variant if variant in SHEET_KINDS else list(SHEET_KINDS)[index % len(SHEET_KINDS)]
        name, columns, types = SHEET_KINDS[kind]
        requester_role = {"inventory": "role:it_admin", "vendors": "role:controller",
                          "events": "role:marketing_lead"}[kind]
        stage.act_as("role:ops_manager")
        requester = stage.person(requester_role)
        names = [p["name"] for p in stage.rows("SELECT name FROM directory_person WHERE role IS NOT NULL")]
        rows = _sheet_rows(kind, rng, names)
        stage.clock(stamp(day(-20), 10, 0))
        file_id = str(stage.act("user", "drive_create_sheet", name=name, columns=columns, column_types=types,
                                rows=rows)["id"])
        stage.act("user", "drive_share_file", file_id=file_id, person=requester_role, role="viewer")
        sheet_id = stage.one("SELECT id FROM drive_sheet WHERE file_id = ?", file_id)["id"]
        picks = rng.sample(range(len(rows)), 2)

        def whole(row: list[Any]) -> dict[str, Any]:
            """Every cell of a row: a requested edit may change only the cell it names."""
            return dict(zip(columns, row, strict=True))

        changed_row, status_row = rows[picks[0]], rows[picks[1]]
        requests: list[str] = []
        updates: list[tuple[int, list[dict[str, Any]]]] = []
        expected: list[dict[str, Any]] = []
        if kind == "inventory":
            new_qty = changed_row[2] + rng.choice([-2, 3, 4, 6])
            requests.append(f"we now have {new_qty} of the {changed_row[0]} in {changed_row[1]} (not "
                            f"{changed_row[2]})")
            updates.append((picks[0] + 1, [{"column": "Quantity", "value": new_qty}]))
            expected.append({**whole(changed_row), "Quantity": new_qty})
            requests.append(f"the {status_row[0]} in {status_row[1]} is retired, so set its status to 'retired'")
            updates.append((picks[1] + 1, [{"column": "Status", "value": "retired"}]))
            expected.append({**whole(status_row), "Status": "retired"})
            new: list[object] = ["Docking station", rng.choice(["Austin", "London", "Toronto"]), rng.randint(3, 12),
                                 "in use"]
            requests.append(f"please add a row for Docking station in {new[1]}: quantity {new[2]}, status 'in use'")
        elif kind == "vendors":
            new_cost = float(round(changed_row[2] * rng.choice([1.05, 1.1, 0.9]), -2))
            requests.append(f"{changed_row[0]}'s annual cost goes to {stage.money(new_cost, cents=False)} after the "
                            "renegotiation")
            updates.append((picks[0] + 1, [{"column": "Annual cost", "value": new_cost}]))
            expected.append({**whole(changed_row), "Annual cost": new_cost})
            requests.append(f"we're not renewing {status_row[0]}, so mark it 'cancelled'")
            updates.append((picks[1] + 1, [{"column": "Status", "value": "cancelled"}]))
            expected.append({**whole(status_row), "Status": "cancelled"})
            renewal = day(rng.randint(100, 360)).isoformat()
            cost = float(rng.randrange(2_000, 9_000, 250))
            new = ["Contoso Plants", "office plants", cost, renewal, "active"]
            requests.append(f"add Contoso Plants (office plants, {stage.money(cost, cents=False)} a year, renews "
                            f"{renewal}, active)")
        else:
            moved = day(rng.randint(60, 330)).isoformat()
            if moved == changed_row[2]:  # a move to the date it already has is no request
                moved = (date.fromisoformat(moved) + timedelta(days=7)).isoformat()
            requests.append(f"{changed_row[0]} moved to {moved}")
            updates.append((picks[0] + 1, [{"column": "Start date", "value": moved}]))
            expected.append({**whole(changed_row), "Start date": moved})
            new_budget = float(status_row[3] + rng.choice([2_500, 5_000, -1_500]))
            requests.append(f"the budget for {status_row[0]} is now {stage.money(new_budget, cents=False)}")
            updates.append((picks[1] + 1, [{"column": "Budget", "value": new_budget}]))
            expected.append({**whole(status_row), "Budget": new_budget})
            owner = requester["name"]
            city, starts = rng.choice(CITIES), day(rng.randint(90, 300)).isoformat()
            budget = float(rng.randrange(10_000, 30_000, 500))
            new = ["Growth Marketing Forum", city, starts, budget, owner]
            requests.append(f"add Growth Marketing Forum in {city} starting {starts}, budget "
                            f"{stage.money(budget, cents=False)}, "
                            f"owner {owner}")
        expected.append(dict(zip(columns, new, strict=True)))
        follow_up = ""
        kept: list[int] = []
        if variant == "retracted-change":
            # the second change is called off: its row stays exactly as it was
            follow_up = (f"Scratch the second change ({requests[1]}): we're keeping that one as it is after all. "
                         "The rest stands.")
            updates.pop(1)
            expected.pop(1)
            kept = [picks[1]]
        elif variant == "corrected-value":
            # the first change's value had a typo: the follow-up's value is the one to write
            position, values = updates[0]
            column = values[0]["column"]
            old_value = values[0]["value"]
            if isinstance(old_value, float):
                fixed: Any = float(old_value + (500 if kind == "vendors" else 1_000))
                said = stage.money(fixed, cents=False)
            elif isinstance(old_value, int):
                fixed = old_value + 1
                said = str(fixed)
            else:
                fixed = (date.fromisoformat(old_value) + timedelta(days=1)).isoformat()
                said = fixed
            updates[0] = (position, [{"column": column, "value": fixed}])
            expected[0] = {**expected[0], column: fixed}
            follow_up = f"Correction to my first point, sorry: the {column.lower()} should be {said}. Typo on my side."
        untouched = [r for i, r in enumerate(rows) if i not in picks or i in kept]
        # every row nobody asked about, not a sample: one edited row anywhere fails the task
        intact = [dict(zip(columns, r, strict=True)) for r in untouched]
        stage.clock(stamp(day(0), 8, 10))
        bullet = "\n".join(f"- {r}" for r in requests)
        subject = f"Updates for the {name} sheet"
        request = colleague_mail(stage, requester_role, ["user"], subject,
                       f"Hi,\n\nCould you make these changes in the {name} sheet?\n{bullet}\n\nThanks!\n"
                       f"{first_name(requester['name'])}\n")
        if follow_up:
            stage.clock(stamp(day(0), 8, 40))
            colleague_mail(stage, requester_role, ["user"], f"Re: {subject}",
                           f"Hi again,\n\n{follow_up}\n\n{first_name(requester['name'])}\n")
        stage.clock(stamp(day(0), 9, 0))
        instruction = phrasing(stage, index, len(self.variants), [
            f"{first_name(requester['name'])} mailed me some changes for the {name} sheet. Please apply them.",
            f"Can you make the edits {requester['name']} asked for in the {name} spreadsheet?",
            f"There's a mail from {first_name(requester['name'])} with changes to the {name} sheet. Could you put "
            "them in?",
            f"Please update the {name} sheet the way {requester['name']} asked by mail this morning.",
        ])

        def solve(s: Solver) -> None:
            found = s.call("mail_search_messages", query=name)
            for message in found["messages"][:2 if follow_up else 1]:
                s.call("mail_get_message", message_id=message["id"])
            s.call("drive_read_sheet", file_id=file_id)
            for position, values in updates:
                s.call("drive_update_rows", file_id=file_id, row_numbers=[position], values=values)
            s.call("drive_append_rows", file_id=file_id, rows=[new])

        traps = {"retracted-change": ("the 08:40 follow-up calls off the second change: that row stays as it was",),
                 "corrected-value": ("the 08:40 follow-up corrects the first change's value: the later figure is "
                                     "the one to write",)}.get(variant, ())
        return _sheet_draft(instruction, file_id, sheet_id, expected, intact, len(rows) + 1, requester_role,
                            request["id"], solve, variant, traps=(*traps, _WHOLE_ROW_TRAP))

    def _big_inventory(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        """Hard: seven changes to a 70-row inventory, one retracted and one corrected by follow-ups."""
        name, columns, types = SHEET_KINDS["inventory"]
        stage.act_as("role:ops_manager")
        requester = stage.person("role:it_admin")
        items = ["Monitor 27in", "Laptop dock", "Standing desk", "Office chair", "Projector", "Headset",
                 "Webcam", "Whiteboard", "Desk phone", "Label printer"]
        places = ["New York", "London", "Austin", "Toronto", "Singapore", "Berlin", "Paris"]
        rows: list[list[Any]] = [[item, place, rng.randint(2, 40), "in use"] for item in items for place in places]
        rng.shuffle(rows)
        stage.clock(stamp(day(-20), 10, 0))
        file_id = str(stage.act("user", "drive_create_sheet", name=name, columns=columns, column_types=types,
                                rows=rows)["id"])
        stage.act("user", "drive_share_file", file_id=file_id, person="role:it_admin", role="viewer")
        sheet_id = stage.one("SELECT id FROM drive_sheet WHERE file_id = ?", file_id)["id"]
        picks = rng.sample(range(len(rows)), 7)
        quantities = {i: rows[i][2] + rng.choice([-1, 2, 3, 5]) for i in picks[:4]}
        requests = [f"the {rows[i][0]} count in {rows[i][1]} is now {quantities[i]}" for i in picks[:4]]
        requests += [f"the {rows[i][0]} in {rows[i][1]} is retired, so set its status to 'retired'" for i in picks[4:]]
        place = rng.choice(places)
        new: list[Any] = ["Docking station", place, rng.randint(3, 12), "in use"]
        requests.append(f"please add a row for Docking station in {place}: quantity {new[2]}, status 'in use'")
        retracted, corrected = picks[3], picks[0]
        fixed = quantities[corrected] + 1
        follow_up = (f"Two fixes to my list: forget the {rows[retracted][0]} count in {rows[retracted][1]}, that "
                     f"one was right all along. And the {rows[corrected][0]} in {rows[corrected][1]} is {fixed}, "
                     f"not {quantities[corrected]} (typo).")
        quantities[corrected] = fixed
        del quantities[retracted]
        updates = [(i + 1, [{"column": "Quantity", "value": q}]) for i, q in quantities.items()]
        updates += [(i + 1, [{"column": "Status", "value": "retired"}]) for i in picks[4:]]
        row_dict = [dict(zip(columns, r, strict=True)) for r in rows]
        expected = [{**row_dict[i], "Quantity": q} for i, q in quantities.items()]
        expected += [{**row_dict[i], "Status": "retired"} for i in picks[4:]]
        expected.append(dict(zip(columns, new, strict=True)))
        changed = {i for i in picks if i != retracted}
        intact = [r for i, r in enumerate(row_dict) if i not in changed]
        stage.clock(stamp(day(0), 8, 10))
        bullet = "\n".join(f"- {r}" for r in requests)
        subject = f"Updates for the {name} sheet"
        request = colleague_mail(stage, "role:it_admin", ["user"], subject,
                                 f"Hi,\n\nAfter the stock take, could you make these changes in the {name} "
                                 f"sheet?\n{bullet}\n\nThanks!\n{first_name(requester['name'])}\n")
        stage.clock(stamp(day(0), 8, 50))
        colleague_mail(stage, "role:it_admin", ["user"], f"Re: {subject}",
                       f"Hi again,\n\n{follow_up}\n\n{first_name(requester['name'])}\n")
        stage.clock(stamp(day(0), 9, 0))
        instruction = phrasing(stage, index, len(self.variants), [
            f"{first_name(requester['name'])} sent me the stock-take changes for the {name} sheet. Could you put "
            "them in?",
            f"Please update the {name} spreadsheet with what {requester['name']} mailed me after the stock take.",
            f"The stock take is done and {first_name(requester['name'])} mailed me the changes. Can you bring the "
            f"{name} sheet up to date?",
            f"Could you apply {requester['name']}'s stock-take updates to the {name} spreadsheet?",
        ])

        def solve(s: Solver) -> None:
            found = s.call("mail_search_messages", query=name)
            for message in found["messages"][:2]:
                s.call("mail_get_message", message_id=message["id"])
            page = s.call("drive_read_sheet", file_id=file_id)
            while page.get("next_cursor"):
                page = s.call("drive_read_sheet", file_id=file_id, cursor=page["next_cursor"])
            for position, values in updates:
                s.call("drive_update_rows", file_id=file_id, row_numbers=[position], values=values)
            s.call("drive_append_rows", file_id=file_id, rows=[new])

        traps = (f"the 08:50 follow-up takes back the {rows[retracted][0]} count in {rows[retracted][1]}: that row "
                 "stays as it was",
                 f"the follow-up corrects the {rows[corrected][0]} in {rows[corrected][1]} to {fixed}: the first "
                 "figure is a typo", _WHOLE_ROW_TRAP)
        return _sheet_draft(instruction, file_id, sheet_id, expected, intact, len(rows) + 1, "role:it_admin",
                            request["id"], solve, "big-inventory", max_steps=40, difficulty="hard", traps=traps)


_WHOLE_ROW_TRAP = "a change names one cell: rewriting the whole row, or adding the new row over an old one, is wrong"


def _sheet_draft(instruction: str, file_id: str, sheet_id: str, expected: list[dict[str, Any]],
                 intact: list[dict[str, Any]], row_count: int, requester: str, request_id: str,
                 solve: Callable[[Solver], None], variant: str, *, max_steps: int = 20,
                 difficulty: Difficulty | None = None, traps: tuple[str, ...] = ()) -> Draft:
    """The draft of a sheet-update task: the requested cells hold, every other row is as it was,
    exactly one row was added, and only the requester may get mail."""
    return Draft(
        instruction=instruction,
        tools=toolset(["mail", "drive"], writes=["drive_update_rows", "drive_append_rows", "drive_delete_rows",
                                                 "mail_reply_message"], distractors=["drive", "mail"]),
        gates=[
            SheetCellsCheck(id="changes_applied", check="sheet_cells", file=file_id,
                            description="The requested values are in the sheet, and the rest of each edited row "
                                        "is as it was.",
                            rows=expected),
            SheetCellsCheck(id="others_intact", check="sheet_cells", file=file_id,
                            description="Rows nobody asked to change are as they were.", rows=intact),
            RecordCheck(id="row_count", check="record", table="drive_row", match={"sheet_id": sheet_id},
                        description="Exactly one row was added (changes edited in place).", count=row_count),
            allowed_changes("drive_row", {"drive_file": ["modified_at", "modified_by"]}, *MAIL_TABLES),
        ],
        criteria=[
            ChangedCheck(id="edited", check="changed", points=1, table="drive_row", op="update",
                         description="Existing rows were edited in place.", match={"sheet_id": sheet_id}),
            ChangedCheck(id="added", check="changed", points=1, table="drive_row", op="insert",
                         description="The new row was added.", match={"sheet_id": sheet_id}),
            *mail_guards([requester], keep=[request_id]),
        ],
        solve=solve, variant=variant, max_steps=max_steps, difficulty=difficulty, traps=traps,
    )
