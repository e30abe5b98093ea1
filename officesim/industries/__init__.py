"""Industry and locale profiles: what a company's content is about, and how it is written.

A world spec names an ``industry`` (``software``, ``manufacturing``, ``legal``, ``clinic``,
``retail``, ``nonprofit``) and a ``locale`` (``en_US``, ``en_GB``, ``en_IN``, ``de_DE``, ``fr_FR``).
The app generators read the profile instead of hard-coded lists: department names and titles,
deal products, customers' industries, document topics, channel names, mail subjects, meeting
topics, working hours (industry); holidays, phone numbers, customer cities, default offices
(locale).

A field left empty (``None`` or an empty mapping) means "the apps' own lists": those are the
B2B-software company's, so the ``software`` profile is the apps' defaults and acme builds exactly
as it did before profiles existed.  Departments keep a canonical *kind* ('Sales', 'Finance', ...);
a profile only renames them for display, and the world records the names it used in the meta
entry ``department_names`` (kind -> name).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from officesim.apps.mail.templates import Topic as MailTopic

@dataclass(frozen=True)
class Office:
    """An office: the city people's ``location`` shows, its country, IANA time zone and region."""

    city: str
    country: str
    time_zone: str
    region: str  # Americas, EMEA or APAC


@dataclass(frozen=True)
class Industry:
    """What a company of one industry talks about; empty fields keep the apps' (B2B software) lists."""

    key: str
    label: str
    summary: str
    department_names: Mapping[str, str] = field(default_factory=dict)  # kind -> display name
    role_titles: Mapping[str, str] = field(default_factory=dict)  # role key -> title
    titles: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # kind -> titles of the rank and file
    customer_industries: tuple[str, ...] | None = None  # what the CRM's accounts do
    customer_titles: tuple[str, ...] | None = None  # contacts' titles besides the finance ones
    products: tuple[str, ...] | None = None  # what deals sell (deal name: "<account> - <product>")
    doc_topics: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # kind -> meeting-note topics
    channels: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # chat topic channel -> (name, topic)
    mail_topics: tuple[MailTopic, ...] = ()  # internal conversations added to the apps' own
    projects: tuple[str, ...] | None = None  # projects mail talks about (when Drive has no briefs)
    systems: tuple[str, ...] | None = None  # internal systems (phishing alerts, access requests)
    cost_lines: tuple[str, ...] | None = None  # budget lines
    meeting_topics: tuple[str, ...] | None = None  # titles of one-off calendar meetings
    working_hours: tuple[str, str] = ("09:00", "17:30")  # calendar work_start, work_end (HH:MM)

    def department(self, kind: str) -> str:
        """The display name of a department kind in this industry."""
        return self.department_names.get(kind, kind)


@dataclass(frozen=True)
class Locale:
    """How a company in one locale writes: its holidays, phones, customers' cities, default offices."""

    key: str
    label: str
    currency: str  # the default home currency for ``officesim world new``
    offices: tuple[Office, ...]  # default offices for ``officesim world new`` (more than one region)
    holidays: tuple[str, ...] | None = None  # office closures mail announces (None: the apps' US list)
    phone: str | None = None  # faker numerify pattern for employees' phones (None: +1-555-###-####)
    # Customers' (city, country, currency, dialling code, weight); None: the apps' mostly-US list.
    customer_cities: tuple[tuple[str, str, str, str, int], ...] | None = None
    day_first: bool = False  # dates written 1/10/2026 for 1 October (en_GB, en_IN, de_DE, fr_FR)


# Amounts drawn in "dollar-sized" ranges are multiplied by this for currencies worth far less.
CURRENCY_SCALE = {"INR": 80, "JPY": 150, "KRW": 1300, "CNY": 7, "SEK": 10, "NOK": 10, "DKK": 7, "MXN": 18}


def currency_scale(currency: str) -> int:
    """How many units of ``currency`` a generated amount takes where a dollar would do (1 for most)."""
    return CURRENCY_SCALE.get(currency, 1)


def industries() -> dict[str, Industry]:
    """Every industry profile by key."""
    from officesim.industries.profiles import INDUSTRIES

    return INDUSTRIES


def locales() -> dict[str, Locale]:
    """Every locale profile by key."""
    from officesim.industries.regional import LOCALES

    return LOCALES


def industry(key: str) -> Industry:
    """The profile ``key`` names; ``KeyError`` when there is none (the spec validates keys first)."""
    return industries()[key]


def locale(key: str) -> Locale:
    """The locale profile for ``key``; a faker locale without one writes like en_US."""
    known = locales()
    return known.get(key) or Locale(key=key, label=key, currency="USD", offices=known["en_US"].offices)
