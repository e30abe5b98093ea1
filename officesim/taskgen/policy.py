"""The company travel policy as tasks need it: figures planted per instance in the one policy doc.

The acme world already has a 'Travel & Expense Policy' doc.  A second, planted policy beside it
would leave an agent two contradicting sources, so tasks rewrite the existing doc (as its owner
would) with the figures the instance needs; a world without the doc gets one created.
"""

from __future__ import annotations

from collections.abc import Callable

from officesim.apps.money import money as format_money
from officesim.taskgen.base import Stage

POLICY_NAME = "Travel & Expense Policy"
RECEIPT_LIMIT = 75


def policy_text(year: str, hotel: dict[str, int], meals: dict[str, int], mileage: float,
                money: Callable[..., str] | None = None) -> str:
    """The policy document: nightly hotel caps and daily meal allowances per city, mileage, approvals.

    ``money`` writes an amount the way the world writes its currency (``Stage.money``, called with
    ``cents=``); without it, US dollars (``$180``).
    """
    amount = money or (lambda value, cents=True: format_money(value, "USD", cents=cents))

    def whole(value: float) -> str:
        return amount(value, cents=False)

    lines = [f"# {POLICY_NAME} {year}", "", f"Applies to all employees from January 1, {year}.", "",
             "## Hotels", "Nightly caps (taxes included):"]
    lines += [f"- {city}: {whole(cap)} per night" for city, cap in hotel.items()]
    lines += [f"- Anywhere else: {whole(180)} per night", "", "## Meals",
              "Daily allowance for every day of a trip, the days you leave and return included:"]
    lines += [f"- {city}: {whole(cap)} per day" for city, cap in meals.items()]
    lines += [f"- Anywhere else: {whole(60)} per day", "", "## Mileage",
              f"Personal car: {amount(mileage, cents=True)} per mile.", "",
              "## Receipts", f"An itemised receipt is required for every expense above {whole(RECEIPT_LIMIT)}.", "",
              "## Approvals", f"Trips over {whole(2500)} need approval in #travel-approvals before booking."]
    return "\n".join(lines) + "\n"


def set_travel_policy(stage: Stage, hotel: dict[str, int], meals: dict[str, int], mileage: float) -> str:
    """Make the company policy doc say these figures; returns its file id."""
    text = policy_text("2026", hotel, meals, mileage, stage.money)
    found = stage.rows("SELECT id, owner_id FROM drive_file WHERE name = ? AND kind = 'doc' AND trashed = 0 "
                       "ORDER BY id", POLICY_NAME)
    if found:
        stage.act(found[0]["owner_id"], "drive_update_doc", file_id=found[0]["id"], content=text)
        return str(found[0]["id"])
    file_id = str(stage.act("role:travel_coordinator", "drive_create_doc", name=POLICY_NAME, content=text)["id"])
    stage.act("role:travel_coordinator", "drive_share_file", file_id=file_id, domain=True, role="viewer")
    return file_id
