"""Draft a world spec from an industry, a locale and a head count (``officesim world new``).

The draft is a starting point a user edits: sizes scale with the number of people the way the
shipped specs do (acme: 120 people, 40 accounts, 80 deals, 60 docs), offices come from the
locale (in more than one region), the clock starts at 09:00 in the first office, and the result
is checked against ``WorldSpec`` (and its row budget) before anyone sees it.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time
from typing import Any
from zoneinfo import ZoneInfo

import yaml

from officesim.industries import industries, locale

# The company's name when none is given: "<Name> <suffix>".
_SUFFIX = {"software": "Software", "manufacturing": "Manufacturing", "legal": "LLP", "clinic": "Clinics",
           "retail": "Stores", "nonprofit": "Foundation"}
START_DAY = date(2026, 10, 5)  # a Monday: the shipped tasks' clock


def _clamp(value: float, low: int, high: int) -> int:
    return max(low, min(high, round(value)))


def draft_size(people: int) -> dict[str, int]:
    """Size knobs for ``people`` employees, in the proportions of the shipped specs."""
    small = people < 60
    return {
        "people": people,
        "departments": _clamp(5 + people ** 0.5 / 1.5, 4, 20),
        "accounts": _clamp(people / 3, 4, 400),
        "contacts_per_account": 2 if small else 3,
        "deals": _clamp(people * 2 / 3, 6, 800),
        "activities_per_deal": 1 if small else 2,
        "mail_per_person": 12 if people <= 300 else 8,
        "docs": _clamp(people / 2, 10, 600),
        "sheets": _clamp(people / 8, 4, 150),
        "channels": _clamp(people / 10, 6, 120),
        "messages_per_channel": 12 if small else 25,
        "dms": _clamp(people / 4, 4, 300),
    }


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower()) or "company"


def draft_spec(name: str, industry: str, locale_code: str, people: int, *, company: str | None = None,
               currency: str | None = None, seed: int = 0) -> dict[str, Any]:
    """A spec (as YAML-ready data) for a company of ``people`` in ``industry`` and ``locale_code``.

    Raises ``SpecError`` (via ``WorldSpec``) naming the field when an argument is out of range.
    """
    from officesim.world_spec import WorldSpec, validate_spec_data

    profile = locale(locale_code)
    company = company or f"{name.replace('-', ' ').replace('_', ' ').title()} {_SUFFIX.get(industry, 'Group')}"
    offices = [{"city": o.city, "country": o.country, "time_zone": o.time_zone, "region": o.region}
               for o in profile.offices]
    first_zone = ZoneInfo(offices[0]["time_zone"])
    start = datetime.combine(START_DAY, time(9), first_zone).astimezone(ZoneInfo("UTC"))
    data: dict[str, Any] = {
        "name": name, "company": company, "domain": f"{_slug(company)}.test", "seed": seed,
        "start": start.strftime("%Y-%m-%dT%H:%M:%SZ"), "locale": locale_code,
        "currency": currency or profile.currency, "industry": industry, "offices": offices,
        "acting_user": "ops_manager", "size": draft_size(people),
    }
    spec: WorldSpec = validate_spec_data(data, f"the drafted spec {name!r}")
    return {**data, "size": {k: getattr(spec.size, k) for k in data["size"]}}


def spec_text(data: dict[str, Any]) -> str:
    """The drafted spec as commented YAML, in the shipped specs' field order."""
    label = industries()[data["industry"]].label
    head = (f"# {data['company']}: {label.lower()}, {data['locale']}, {data['currency']}, "
            f"{data['size']['people']:,} people.\n"
            "# Drafted by 'officesim world new'; every field is described in docs/worlds.md.\n")
    body = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False, width=110)
    return head + body
