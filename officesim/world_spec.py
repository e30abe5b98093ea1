"""The world spec: a strict, documented description of the simulated company.

Specs live as YAML in ``worlds/``.  Every field is described so that ``officesim`` can publish a
JSON Schema and point at the field that is wrong.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import yaml
from faker.config import AVAILABLE_LOCALES
from faker.providers.currency import Provider as CurrencyProvider
from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    create_model,
    field_validator,
    model_validator,
)

import officesim.apps  # noqa: F401 - every app registers its size knobs
from officesim.apps.directory.generate import ROLES
from officesim.apps.registry import apps, size_knobs
from officesim.errors import SpecError
from officesim.industries import industries
from officesim.resources import world_spec_path

_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser: ~5x faster

# ISO 4217 codes, from faker's currency table (a dependency already, and kept current there).
CURRENCIES = frozenset(code for code, _name in CurrencyProvider.currencies)
MIN_YEAR, MAX_YEAR = 1970, 2200  # tools add and subtract years; far dates overflow datetime
_DOMAIN = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*\.test$")


def acting_user_problem(acting: str, domain: str, people: int) -> str | None:
    """Why ``acting`` cannot name an employee of a world with ``people`` employees, or ``None``.

    Role keys go to the first employees in ``ROLES`` order, so a small company lacks the later
    ones.  An email can only be checked for shape and domain before the world exists.
    """
    roles = list(ROLES)[:people]
    if acting in roles:
        return None
    if acting in ROLES:
        return (f"role {acting!r} needs at least {list(ROLES).index(acting) + 1} people (size.people is {people}); "
                f"roles in this world: {', '.join(roles)}")
    if "@" in acting:
        if not acting.lower().endswith("@" + domain.lower()):
            return f"{acting!r} is not at the company's domain {domain!r}; use an employee's email or a role key"
        return None
    close = difflib.get_close_matches(acting, roles, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return f"{acting!r} is neither a role key nor an email.{hint} Role keys: {', '.join(roles)}"


# Upper bounds keep generation within about a minute on this project's 2-core machine.  Mail
# and deals grow faster than linearly, so ROW_BUDGET also caps the knobs' combination; measured
# (CPU seconds, on a machine shared at a load average of ~7): every knob near its maximum at the budget
# (people 2,000, deals 5,000, accounts 2,000, channels 1,000, dms 2,000, docs 5,000) 37 s;
# people 2,000 with 48 mails each 20 s; people 500 with 190 mails each 17 s.
ROW_BUDGET = 100_000


class _SizeBase(BaseModel):
    """What every ``size`` section shares: strictness and the budget of records it may ask for."""

    model_config = ConfigDict(extra="forbid")

    def estimated_rows(self) -> dict[str, int]:
        """A rough count of the records each app's knobs make, for the budget and progress reports."""
        counts: dict[str, int] = {}
        for app in apps():
            if app.estimate is not None:
                counts.update(app.estimate(self))
        return counts

    @model_validator(mode="after")
    def _within_budget(self) -> _SizeBase:
        parts = self.estimated_rows()
        total = sum(parts.values())
        if total > ROW_BUDGET:
            largest = sorted(parts.items(), key=lambda kv: -kv[1])[:2]
            detail = ", ".join(f"{name} = {value:,}" for name, value in largest)
            raise ValueError(f"the world would have about {total:,} records, more than the {ROW_BUDGET:,} that "
                             f"build in about a minute; the biggest are {detail}: make them smaller")
        return self


def _size_model() -> type[_SizeBase]:
    """The ``size`` section, built from the size knobs every registered app declares."""
    fields: dict[str, Any] = {
        name: (int, Field(knob.default, ge=knob.ge, le=knob.le, description=knob.description))
        for name, knob in size_knobs().items()
    }
    return create_model("SizeSpec", __base__=_SizeBase,
                        __doc__="How big the company is; every count is exact, not an upper bound.", **fields)


if TYPE_CHECKING:

    class SizeSpec(_SizeBase):
        """How big the company is (its fields are the apps' size knobs, each an int)."""

        def __getattr__(self, name: str) -> int: ...

else:
    SizeSpec = _size_model()


class OfficeSpec(BaseModel):
    """One office: where people with that ``location`` sit, and their time zone."""

    model_config = ConfigDict(extra="forbid")

    city: str = Field(min_length=1, max_length=60, description="The city, as people's location shows it "
                      "(1-60 characters; not 'Remote', which every world has).")
    country: str = Field(min_length=1, max_length=60, description="The country (1-60 characters).")
    time_zone: str = Field(description="The office's IANA time zone, e.g. 'Europe/London', 'Asia/Kolkata'.")
    region: Literal["Americas", "EMEA", "APAC"] = Field(description="The region: Americas, EMEA or APAC.")

    @field_validator("city")
    @classmethod
    def _not_remote(cls, value: str) -> str:
        if value.strip().lower() == "remote":
            raise ValueError("'Remote' is not an office (every world has remote people); name a city")
        return value.strip()

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"{value!r} is not an IANA time zone; use e.g. 'Europe/London', 'America/New_York', "
                             "'Asia/Kolkata'") from None
        return value


# Fields added after specs were first published: left out of the fingerprint at their default,
# so a spec that does not use them keeps its fingerprint (and its world its state hash).
_LATER_FIELDS = {"industry": "software", "offices": None}


class WorldSpec(BaseModel):
    """A simulated company: its name, mail domain, size, seed, clock and acting employee."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=64, description="Short name of the spec, e.g. 'acme'.")
    company: str = Field(min_length=1, max_length=120, description="The company's display name.")
    domain: str = Field(description="Mail domain; must end in '.test' so no real address is used.")
    seed: int = Field(0, ge=0, lt=2**63, description="Default seed for generation (0 to 2**63-1); "
                      "World.generate(seed=...) overrides.")
    start: AwareDatetime = Field(description="The simulated clock at the start, with a timezone, e.g. "
                                             "2026-10-05T09:00:00Z (years 1970-2200).")
    locale: str = Field("en_US", description="Faker locale for names and text, e.g. en_US, de_DE, ja_JP.")
    currency: str = Field("USD", description="Home currency for deals and expenses: an ISO 4217 code (USD, EUR).")
    industry: str = Field("software", description="The industry profile that shapes the content: software "
                          "(B2B software, the default), manufacturing, legal, clinic, retail or nonprofit.",
                          json_schema_extra={"enum": list(industries())})
    offices: list[OfficeSpec] | None = Field(
        None, min_length=1, max_length=20,
        description="The offices (1-20, distinct cities) with their time zones; people are spread over them "
        "and 'Remote'.  Omitted: New York, London, Austin, Toronto and Singapore.")
    size: SizeSpec = Field(default_factory=SizeSpec, description="Size knobs.")
    # After size and domain: its check reads them.
    acting_user: str = Field(
        "ops_manager",
        description="Who the agent acts as: a role key ('cfo', 'ops_manager', ...) among the first `people` "
        "roles, or the email of an employee at the spec's domain.",
    )

    @field_validator("domain")
    @classmethod
    def _domain_is_test(cls, value: str) -> str:
        if not value.endswith(".test"):
            raise ValueError("the mail domain must end in '.test' (reserved, never a real address)")
        if not _DOMAIN.match(value.lower()):
            raise ValueError(f"{value!r} is not a mail domain (letters, digits and hyphens between dots, "
                             "e.g. acme.test)")
        return value.lower()

    @field_validator("start")
    @classmethod
    def _start_in_range(cls, value: datetime) -> datetime:
        if not MIN_YEAR <= value.year <= MAX_YEAR:
            raise ValueError(f"start must fall in the years {MIN_YEAR}-{MAX_YEAR}, not {value.year}")
        return value

    @field_validator("locale")
    @classmethod
    def _known_locale(cls, value: str) -> str:
        if value not in AVAILABLE_LOCALES:
            close = difflib.get_close_matches(value, AVAILABLE_LOCALES, n=3) or ["en_US", "de_DE", "ja_JP"]
            raise ValueError(f"{value!r} is not one of the {len(AVAILABLE_LOCALES)} locales faker knows "
                             f"(faker.config.AVAILABLE_LOCALES), e.g. {', '.join(close)}")
        return value

    @field_validator("currency")
    @classmethod
    def _iso_currency(cls, value: str) -> str:
        code = value.strip().upper()
        if code not in CURRENCIES:
            raise ValueError(f"{value!r} is not an ISO 4217 currency code (e.g. USD, EUR, GBP, INR, JPY)")
        return code

    @field_validator("industry")
    @classmethod
    def _known_industry(cls, value: str) -> str:
        known = industries()
        if value not in known:
            close = difflib.get_close_matches(value, known, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise ValueError(f"{value!r} is not an industry profile.{hint} Known: {', '.join(known)}")
        return value

    @field_validator("offices")
    @classmethod
    def _distinct_cities(cls, value: list[OfficeSpec] | None) -> list[OfficeSpec] | None:
        if value is not None:
            cities = [office.city.lower() for office in value]
            twice = sorted({city for city in cities if cities.count(city) > 1})
            if twice:
                raise ValueError(f"offices name the same city more than once ({', '.join(twice)}); "
                                 "list each office once")
        return value

    @field_validator("acting_user")
    @classmethod
    def _acting_user_exists(cls, value: str, info: ValidationInfo) -> str:
        size, domain = info.data.get("size"), info.data.get("domain")
        if size is None or domain is None:
            return value  # size or domain is wrong already, and reported
        problem = acting_user_problem(value, domain, size.people)
        if problem:
            raise ValueError(problem)
        return value

    def seed_for(self, override: int | None = None) -> int:
        """The generation seed: ``override`` (a task's or a caller's own) when given, else the spec's."""
        return self.seed if override is None else override

    def fingerprint(self) -> str:
        """A stable hash of the spec's content (for caches and version records)."""
        data = self.model_dump(mode="json")
        for key, default in _LATER_FIELDS.items():
            if data.get(key) == default:
                del data[key]
        text = json.dumps(data, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def format_validation_error(source: str, error: ValidationError, model: type[BaseModel] | None = None) -> str:
    """Turn a pydantic error into lines that name the file and the field to fix.

    With ``model``, a range or type error also quotes the field's description (which states its
    allowed range), so the line says the field, the value given and what is allowed.
    """
    lines = [f"{source} is invalid:"]
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "(top level)"
        given = item.get("input")
        # Value errors quote the value themselves; for the others (ranges, types) say what was given.
        shown = "" if item["type"] == "value_error" or isinstance(given, dict | list) else f" (got {given!r:.80})"
        about = _field_description(model, item["loc"]) if model and item["type"] != "value_error" else None
        lines.append(f"  {where}: {item['msg']}{shown}" + (f"; {about}" if about else ""))
    return "\n".join(lines)


def _field_description(model: type[BaseModel], loc: tuple[int | str, ...]) -> str | None:
    """The description of the field at ``loc`` in ``model`` (nested models followed), if any."""
    description = None
    current: type[BaseModel] | None = model
    for part in loc:
        info = current.model_fields.get(str(part)) if current is not None else None
        if info is None:
            return None
        description = info.description
        annotation = info.annotation
        current = annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None
    return description


def validate_spec_data(data: Any, source: str) -> WorldSpec:
    """``data`` (a parsed YAML mapping) as a ``WorldSpec``; ``SpecError`` naming ``source`` and the field."""
    try:
        return WorldSpec.model_validate(data)
    except ValidationError as exc:
        raise SpecError(format_validation_error(source, exc, WorldSpec)) from exc


def load_spec(spec: WorldSpec | str | Path) -> WorldSpec:
    """Accept a spec object or a path to a YAML spec; raise ``SpecError`` naming the bad field."""
    if isinstance(spec, WorldSpec):
        return spec
    path = Path(spec)
    if not path.exists():
        if len(path.parts) != 1 or path.suffix:
            raise SpecError(f"world spec {path} does not exist; pass a spec YAML path or a shipped name "
                            "(acme, forge, counsel, ...: see docs/worlds.md)")
        path = world_spec_path(spec)  # a name: acme, forge, ... (or one in $OFFICESIM_WORLDS)
    try:
        data = yaml.load(path.read_bytes(), Loader=_YAML_LOADER)  # a safe loader; the C one when present
    except yaml.YAMLError as exc:
        raise SpecError(f"{path} is not valid YAML: {exc}") from exc
    return validate_spec_data(data, str(path))
