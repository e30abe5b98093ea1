"""Grading on facts: the scenario's facts, and the ``facts`` and ``mail_private`` check kinds.

A family's generator knows its scenario: the entities (departments, accounts, people, invoices,
options), their attributes and values, and the wrong readings each trap produces (the total with
the paid invoice, last year's cap).  It writes them into ``grader.yaml`` under ``facts:``; a
hand-written grader does the same.  A ``facts`` check reads one text the agent produced (see
``texts``) into claims (``claims``) and holds when

* every required fact is stated *with its entity* (same sentence, line, list item or table row;
  a sentence naming no entity continues the one before on its line: "Sales ... It overspent by $26,300"),
  in any spelling (number formats and words, dates in the world's locale, every alias);
* the entities the answer must name are named, and no other candidate is offered beside them
  (a list of every executive is not "who is X's manager"), unless named as excluded or compared
  with its own figure;
* no wrong reading of a required quantity is stated, and no second reading is offered beside it
  ("4, 5 or 6", "$24k-$26k");
* no figure is stated with the wrong entity (a swap: account A's renewal written next to B);
* no value is written as a known fact's that is not its value, whether or not the check asks for the fact
  and in every mode: beside the fact's label ("Fix ETA Oct 20", "renewal $15,000", "stage: Proposal") or
  straight after its entity's name (an invoice's amount, a metric's total); history, sums, ranges, other
  currencies, quotations and another fact's value are no contradiction (``_misstated``);
* every figure traces to the task's sources: a source figure, or a simple sum, difference, count
  or percentage of them (so a grid of 45 near values, or an invented figure, fails);
* nothing that must stay out is presented as part of the answer (named as excluded, as a near
  miss or as rejected, it is fine).

``mail_private`` holds when no outside recipient of a sent mail sees an entity that belongs to
another party (one chase mail to two customers, each seeing the other's invoices, fails).
"""

from __future__ import annotations

import bisect
import csv
import re
import unicodedata
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from functools import cached_property, lru_cache, partial
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

import phonenumbers
from pydantic import Field, field_validator, model_validator

from officesim.apps.people import given_name, is_title
from officesim.grading.claims import (
    EXCLUSION,
    KEPT_LENGTH,
    Figure,
    Segment,
    answered_part,
    clean,
    currency_of,
    date_spans,
    excluded,
    figure_currency,
    hedged,
    read_figures,
    segments,
    table_cells,
    without_loose_dates,
    without_possible,
)
from officesim.grading.evidence import collect
from officesim.grading.normalize import MONTH_NAMES, WEEKDAY_NAMES, compiled, read_date, weekdays_named
from officesim.grading.scope import CONDITION, WOULD_VALUE, changed_from, governed, has_marker
from officesim.grading.spec_base import CheckBase, Outcome, References, TableRef, _check_refs, _Strict, crm_table
from officesim.grading.texts import TEXT_FORMS, Text, mail_texts, texts

if TYPE_CHECKING:
    from officesim.grading.context import GradeContext

DAY_FIRST_LOCALES = ("en_GB", "en_IN", "en_AU", "en_NZ", "en_IE", "fr_", "de_", "es_", "it_", "nl_", "pt_")
MAX_DERIVED_BASE = 160  # pairwise sums/differences of at most this many source figures
MAX_COUNT = 60  # bare small integers are counts ("3 open invoices", "seven deals")
_T = TypeVar("_T")
_MISSING = object()  # (``Reader.kept``: nothing kept yet)
_TEXT_FORM = re.compile(r"^(answer|sent_mail|messages|attachments|chat_posts|doc:.+|crm:[a-z_]+\.[a-z_]+)$")


# ============================================================================== the model
class Entity(_Strict):
    """Something the scenario is about, with every way a text may name it."""

    name: str = Field(description="How the entity is usually written ('Sales', 'Harbor Hotel', 'INV-2026-0142').")
    aliases: list[str] = Field(default_factory=list, description="Other spellings: email, account name, first name.")
    patterns: list[str] = Field(
        default_factory=list, description="Regexes that also name it, tried after every alias (a phone number in "
        "any punctuation; any other phone number but this one).")
    person: str | None = Field(
        None, description="A person ref: the name, plain name, email and (when no other person entity shares it) "
        "the first name are aliases.")
    kind: str | None = Field(None, description="What it is (department, account, person, invoice, option).")
    party: list[str] | None = Field(
        None, description="Who may see it in mail (person refs or outside emails); mail_private checks that no "
        "other outside recipient does.")

    _refs = field_validator("party")(_check_refs)

    @field_validator("patterns")
    @classmethod
    def _regexes(cls, values: list[str]) -> list[str]:
        for value in values:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"{value!r} is not a regular expression: {exc}") from exc
        return values


class Fact(_Strict):
    """One attribute of one entity, and the values a wrong reading of the data gives."""

    entity: str = Field(description="The entity's key in facts.entities.")
    attribute: str = Field(pattern=r"^[a-z0-9_]+$", description="What the value is (overrun, total, manager, date).")
    value: float | str = Field(
        description="A number (base units), an ISO date, or the key of another entity (the manager, the hotel).")
    tolerance: float = Field(0.005, ge=0, description="Relative tolerance for a number.")
    wrong: list[float | str] = Field(
        default_factory=list, description="Values wrong readings give (numbers, dates or entity keys); stating one "
        "for this quantity fails.")
    wrong_tolerance: float = Field(0.001, ge=0, description="Relative tolerance for the wrong numbers.")
    label: str | None = Field(
        None, description="A regex for the words that label this attribute beside a figure ('overdue|owes', "
        "'renewal'): a figure labelled as one attribute of an entity that is its other attribute's value (the "
        "overdue total written as the renewal) is a swap; and a wrong reading of another of the entity's facts "
        "that is this one's value, written beside this label, is told as this fact, not as the other ('launch "
        "Oct 21, the beta ends Oct 8').")

    contrary: str | None = Field(
        None, description="A regex for words that, written right beside the value (within 12 characters, no "
        "clause break between), say the opposite of what it is: 'under budget' beside an overrun.")

    @field_validator("label", "contrary")
    @classmethod
    def _label(cls, value: str | None) -> str | None:
        if value is not None:
            re.compile(value)
        return value

    @property
    def key(self) -> str:
        return f"{self.entity}.{self.attribute}"

    def number(self) -> float | None:
        return float(self.value) if isinstance(self.value, int | float) else None

    def day(self) -> date | None:
        return read_date(self.value) if isinstance(self.value, str) else None


class FactsSpec(_Strict):
    """``facts:`` in grader.yaml: the scenario's entities, facts and the sources figures trace to."""

    locale: str = Field("en_US", description="How dates are read: en_US reads 10/03/2026 as October 3.")
    entities: dict[str, Entity] = Field(default_factory=dict, description="key -> entity.")
    facts: list[Fact] = Field(default_factory=list, description="The scenario's facts.")
    figures: list[float] = Field(default_factory=list, description="Other figures a text may state (traceable).")
    sources: list[str] = Field(
        default_factory=list, description="Where the task's data lives (doc:<name>, sheet:<name>, mail:<subject>, "
        "crm:<table>): their figures, read from the start state, are traceable; the instruction's always are.")

    @field_validator("sources")
    @classmethod
    def _sources(cls, values: list[str]) -> list[str]:
        for value in values:
            if not re.match(r"^(instruction|(doc|sheet|mail|crm):.+)$", value):
                raise ValueError(f"{value!r} is not a source form (instruction, doc:<name>, sheet:<name>, "
                                 "mail:<subject>, crm:<table>)")
        return values

    @model_validator(mode="after")
    def _consistent(self) -> FactsSpec:
        seen: set[str] = set()
        for fact in self.facts:
            if fact.entity not in self.entities:
                raise ValueError(f"fact {fact.key}: no entity {fact.entity!r} in facts.entities")
            if fact.key in seen:
                raise ValueError(f"fact {fact.key} is given twice")
            seen.add(fact.key)
            if isinstance(fact.value, str) and fact.day() is None and fact.value not in self.entities:
                raise ValueError(f"fact {fact.key}: {fact.value!r} is neither an ISO date nor an entity key")
            number = fact.number()
            for wrong in fact.wrong:
                if number is not None and isinstance(wrong, int | float) and abs(wrong - number) <= max(
                        fact.tolerance, fact.wrong_tolerance) * abs(number):
                    raise ValueError(f"fact {fact.key}: wrong value {wrong:g} is within tolerance of {number:g}")
                if wrong == fact.value:
                    raise ValueError(f"fact {fact.key}: {wrong!r} is both the value and a wrong reading")
        return self

    def fact(self, key: str) -> Fact:
        for fact in self.facts:
            if fact.key == key:
                return fact
        raise KeyError(key)


class FactsCheck(CheckBase):
    """Holds when a text the agent produced states the required facts, committed and traceable."""

    check: Literal["facts"] = Field(description="The kind of check.")
    text: str = Field(description=f"Which text: {TEXT_FORMS}.")
    to: list[str] | None = Field(None, description="sent_mail/attachments: only mail to all of these person refs; "
                                 "messages: the mail to all of them, or without one the direct messages to the one "
                                 "person named.")
    channel: str | None = Field(None, description="chat_posts: a channel name or id, or a person ref for a DM.")
    require: list[str] = Field(default_factory=list, description="Facts (entity.attribute) the text must state "
                               "with their entity.")
    require_any: list[list[str]] = Field(
        default_factory=list, description="Groups of facts: one of each group must be stated with its entity "
        "(the Q2 figure or the change from Q2).")
    name: list[str] = Field(default_factory=list, description="Entities the text must name (the answer).")
    candidates: list[str] = Field(
        default_factory=list, description="Entities the answer is chosen among: naming another one beside "
        "`name` (not as excluded, nor with its own figure) is a hedge.")
    exclude: list[str] = Field(default_factory=list, description="Entities that must not be presented as part of "
                               "the answer (named as excluded, a near miss or rejected is fine).")
    excluded_if: str | None = Field(
        None, description="A regex that marks a segment as naming something as left out, instead of the usual "
        "markers (not, excluded, near miss, rejected...): where the answer itself is a list of negatives "
        "('without sign-off'), what keeps an item out is said differently ('approved in chat').")
    excluded_also: str | None = Field(
        None, description="A regex of markers that also present an item as left out, beside the usual ones: "
        "what a family's own wording for 'not part of this' is ('we received payment for', 'was voided').")
    subject: str | None = Field(None, description="The entity the question is about: a figure stated with no "
                                "entity named belongs to it ('$350' for 'the hotel cap in New York').")
    traceable: bool = Field(True, description="Every figure stated must trace to the sources.")
    trace_to: Literal["sources", "facts"] = Field(
        "sources", description="What figures trace to: the task's sources (any figure of the data), or only the "
        "facts and figures of facts: (a brief or a report: a dump of the raw data fails).")
    swaps: bool = Field(True, description="A figure of one entity stated with another fails.")
    violations_only: bool = Field(
        False, description="Holds unless the text breaks a rule (a wrong reading, a hedge, a swap, an untraceable "
        "figure, an excluded item or another candidate presented): what it leaves out is left to the criteria "
        "that ask for it.  A gate that keeps partial credit for an omission and none for wrong work.")
    silent_ok: bool = Field(
        False, description="With violations_only: no text at all holds too (a post that is allowed but not asked "
        "for: a confirmation may be sent, and must then be true).")
    tentative_ok: bool = Field(
        False, description="A `name`d entity counts even when only named in a question or tentatively: a mail "
        "that asks 'Could you book the venue for the Lisbon offsite?' hands the item over.")
    others_at_most: int | None = Field(
        None, ge=0, description="A summary's limit: other candidates may be named beside the answer with their "
        "own figures (even with a subject), but naming more than this many of them (not as excluded) pastes the "
        "source instead of summarising it ('the top three deals' is fine, every row of the sheet is not).")
    headings: bool = Field(
        False, description="A fact whose value is an entity may be stated by the heading its line sits under "
        "('Missing receipts:' over a list of claims states each one's rule).")
    wrong_anywhere: bool = Field(
        False, description="A wrong reading of a required fact fails wherever it is stated, beside any entity "
        "or none (a report has one total: no line of it may offer the total a trap gives); a segment naming it "
        "as excluded is fine.")

    _refs = field_validator("to")(_check_refs)

    @field_validator("text")
    @classmethod
    def _form(cls, value: str) -> str:
        if not _TEXT_FORM.match(value):
            raise ValueError(f"{value!r} is not a text form ({TEXT_FORMS})")
        return value

    @field_validator("excluded_if", "excluded_also")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        if value is not None:
            re.compile(value)
        return value

    @model_validator(mode="after")
    def _something(self) -> FactsCheck:
        if not (self.require or self.require_any or self.name or self.exclude):
            raise ValueError("a facts check needs require, require_any, name or exclude")
        if self.silent_ok and not self.violations_only:
            raise ValueError("silent_ok needs violations_only: a check that asks for a text cannot hold without one")
        if self.text == "messages" and not self.to:
            raise ValueError("text: messages reads what was sent to someone: give them in to")
        return self

    def references(self) -> References:
        if self.text.startswith("crm:"):  # crm:<table>.<field>
            table, _, column = self.text.partition(".")
            return References(tables=(TableRef(crm_table(table), (column,), f".text: {self.text}"),))
        if self.text.startswith("doc:"):
            return References(files=(self.text.split(":", 1)[1],))
        return References()

    def facts_problem(self, facts: FactsSpec | None) -> str | None:
        if facts is None:
            return "a facts check needs a facts: section"
        keys = {f.key for f in facts.facts}
        for key in [*self.require, *(k for group in self.require_any for k in group)]:
            if key not in keys:
                return (f"require names {key!r}, which facts.facts does not give (known: "
                        f"{', '.join(sorted(keys)) or 'none'})")
        for key in [*self.name, *self.candidates, *self.exclude, *([self.subject] if self.subject else [])]:
            if key not in facts.entities:
                return f"{key!r} is not an entity in facts.entities"
        return None

    def evaluate(self, ctx: GradeContext) -> Outcome:
        return _outcome(*facts(self, ctx))


class MailPrivateCheck(CheckBase):
    """Holds when no outside recipient of a sent mail sees an entity that belongs to another party."""

    check: Literal["mail_private"] = Field(description="The kind of check.")
    colleagues: bool = Field(
        False, description="Colleagues count as recipients too, not only outside parties: each owner of an "
        "action item sees only their own (the sender is never a stranger to anything).")

    def facts_problem(self, facts: FactsSpec | None) -> str | None:
        if facts is None:
            return "mail_private needs a facts: section"
        if not any(e.party for e in facts.entities.values()):
            return "mail_private needs entities with a party"
        return None

    def evaluate(self, ctx: GradeContext) -> Outcome:
        return _outcome(*mail_private(self, ctx))


def _outcome(holds: bool | None, reason: str, evidence: Any) -> Outcome:
    """A facts evaluation as an ``Outcome``: no verdict (``None``) means the grader is broken."""
    return Outcome(holds, reason, evidence, verdict="verdict" if holds is not None else "error")


# ============================================================================== naming
# a currency written in a source: a symbol, or an ISO code as a word
_CURRENCY_SEEN = re.compile(r"[$€£₹¥]|\b(?:usd|eur|gbp|inr|jpy|cny|cad|aud|sgd|nzd|hkd|chf)\b", re.IGNORECASE)
_SYMBOL_CODES = {"$": "USD", "€": "EUR", "£": "GBP", "₹": "INR", "¥": "JPY"}


@dataclass
class Reader:
    """The facts of one grading, ready to read texts: alias patterns, traceable figures."""

    spec: FactsSpec
    ctx: GradeContext
    _mentions: dict[str, tuple[tuple[int, int, str], ...]] = field(default_factory=dict, repr=False)
    _segments: dict[str, list[Segment]] = field(default_factory=dict, repr=False)
    _claims: dict[tuple[str, str | None], list[Claim]] = field(default_factory=dict, repr=False)
    _left_out: dict[tuple[str, str], bool] = field(default_factory=dict, repr=False)
    _named: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    # text -> (whether it has a negation or change marker, names blanked; the blanked text): asked for
    # every fact and claim pair by the negation scope
    _marked: dict[str, tuple[bool, str]] = field(default_factory=dict, repr=False)
    # (id of a claim, id of a fact) -> whether the claim is contested for it; both live as long as the
    # grading (the claims in ``_claims``, the facts in the spec), so their ids are not reused meanwhile
    _contested: dict[tuple[int, int], bool] = field(default_factory=dict, repr=False)
    # (text, subject) -> the swap violations of its claims: every facts check with ``swaps`` of a grader
    # asks about the same texts
    _swapped: dict[tuple[str, str | None], list[str]] = field(default_factory=dict, repr=False)
    # (text, subject, headings, wrong_anywhere, committed, tentative_ok, fact key) -> (why the text misses the
    # fact, what it states wrongly about it): gates and criteria of a grader often require the same facts of
    # the same text
    _required: dict[tuple[str, str | None, bool, bool, bool, bool, str], tuple[str | None, list[str]]] = field(
        default_factory=dict, repr=False)
    # (text, its figures as written) -> where each figure stands (``positions``)
    _placed: dict[tuple[str, tuple[str, ...]], tuple[int, ...]] = field(default_factory=dict, repr=False)
    # (what, key) -> what a reading of a segment's text gave, for this grading (``kept``)
    _kept: dict[tuple[str, Any], Any] = field(default_factory=dict, repr=False)

    def kept(self, what: str, key: Any, make: Callable[[], _T]) -> _T:
        """``make()``, worked out once per grading for ``(what, key)``: what the checks read of a segment
        depends on its text (and heading cells), not on the check or the subject asking, and every
        facts check of a grader reads the same texts.  Callers only read what it returns."""
        found = self._kept.get((what, key), _MISSING)
        if found is _MISSING:
            found = self._kept[(what, key)] = make()
        return cast(_T, found)

    @cached_property
    def values_only(self) -> frozenset[str]:
        """Entities that are only ever another's value (the rule broken, the hotel, the manager), never
        what a fact is about."""
        about = {f.entity for f in self.spec.facts}
        return frozenset(v for f in self.spec.facts if isinstance(v := f.value, str) and v in self.spec.entities
                         and v not in about)

    @cached_property
    def day_first(self) -> bool:
        return self.spec.locale.startswith(DAY_FIRST_LOCALES)

    @cached_property
    def aliases(self) -> list[tuple[re.Pattern[str], str]]:
        """(pattern, entity key), longest alias first, so 'Sales Ops' wins over 'Sales'."""
        return list(self._scan.patterns)

    @cached_property
    def _scan(self) -> AliasIndex:
        """The alias patterns, indexed by the words each needs (``AliasIndex``), kept per task:
        they depend on the spec and on the people rows its person entities name, nothing else."""
        people: dict[str, dict[str, Any]] = {}
        for key, entity in self.spec.entities.items():
            if entity.person is not None:
                people[key] = self.ctx.person(entity.person)
        identity = tuple((key, row["name"], row["email"]) for key, row in people.items())
        found = _ALIASES.get(id(self.spec))
        if found is not None and found[0] is self.spec and found[1] == identity:
            _ALIASES.move_to_end(id(self.spec))
            return found[2]
        scan = AliasIndex(_alias_scan(self.spec, people))
        _ALIASES[id(self.spec)] = (self.spec, identity, scan)
        while len(_ALIASES) > _ALIASES_KEPT:
            _ALIASES.popitem(last=False)
        return scan

    def mentions(self, text: str) -> tuple[tuple[int, int, str], ...]:
        """(start, end, entity key) of every alias in ``text``, in order; overlaps go to the longest.

        Kept per text for this grading: the checks ask about the same segments many times over (a tuple,
        so no caller can change what the next one reads).
        """
        known = self._mentions.get(text)
        if known is not None:
            return known
        taken: list[tuple[int, int, str]] = []
        for pattern, key in self._scan.candidates(text):
            for m in pattern.finditer(text):
                if not any(m.start() < end and start < m.end() for start, end, _ in taken):
                    taken.append((m.start(), m.end(), key))
        found = self._mentions[text] = tuple(sorted(taken))
        return found

    def positions(self, text: str, figures: Sequence[Figure]) -> list[tuple[Figure, int]]:
        """``_positions(text, figures)``, each text's places found once per grading: the swap, reading,
        correction and run checks all ask where the figures of the same segments stand, for every fact.
        The places depend only on the text and how the figures are written, so those are the key."""
        key = (text, tuple(f.text for f in figures))
        found = self._placed.get(key)
        if found is None:
            found = self._placed[key] = tuple(at for _, at in _positions(text, list(figures)))
        return list(zip(figures, found, strict=True))

    def segments(self, text: str) -> list[Segment]:
        """``text`` read into segments, once per grading (every facts check of a grader reads the same texts).

        A figure written in a currency that neither the world nor its sources use is marked foreign: "£136,600"
        in a dollar world states no amount of the world's, though its digits are the total's.
        """
        found = self._segments.get(text)
        if found is None:
            found = segments(text, day_first=self.day_first, year=self.ctx.now_year)
            if any(self._foreign(f) for seg in found for f in seg.figures):
                found = [replace(seg, figures=[replace(f, foreign=True) if self._foreign(f) else f
                                               for f in seg.figures]) for seg in found]
            self._segments[text] = found
        return found

    def _foreign(self, figure: Figure) -> bool:
        written = figure_currency(figure)
        if written is None or written in self.currencies:
            return False
        booked = self._per_task("booked abroad", self._booked_abroad).get(written, ())
        return not any(_close(abs(figure.value), amount, 0.0005) for amount in booked)

    @cached_property
    def currencies(self) -> frozenset[str]:
        """The currencies a text may write any amount in: the world's, and any its sources or the instruction write."""
        return self._per_task("currencies", self._currencies)

    def _currencies(self) -> frozenset[str]:
        home = self.ctx.start.meta("currency") or "USD"
        texts_ = [b.text for b in collect(self.ctx, list(self.spec.sources), source=True)] + [self.ctx.instruction]
        written = {currency_of(_SYMBOL_CODES.get(m.group(), m.group())) for text in texts_
                   for m in _CURRENCY_SEEN.finditer(text)}
        return frozenset({currency_of(home), *written})

    def _booked_abroad(self) -> dict[str, tuple[float, ...]]:
        """The amounts the world's books keep in another currency (a deal or an invoice in EUR in a pound
        world), by currency: such an amount may be written in its own currency ("€55,500"), no other may."""
        out: dict[str, list[float]] = {}
        home = currency_of(self.ctx.start.meta("currency") or "USD")
        for table in ("crm_deal", "crm_invoice"):
            if table in self.ctx.start.tables():
                for code, amount in self.ctx.start.db.execute(f"SELECT currency, amount FROM {table}"):
                    if code and amount is not None and currency_of(code) != home:
                        out.setdefault(currency_of(code), []).append(abs(float(amount)))
        return {code: tuple(amounts) for code, amounts in out.items()}

    def named(self, text: str) -> tuple[str, ...]:
        """Entity keys ``text`` names, in order of first mention (kept per text for this grading)."""
        found = self._named.get(text)
        if found is None:
            found = self._named[text] = tuple(dict.fromkeys(key for *_, key in self.mentions(text)))
        return found

    # ------------------------------------------------------------------ traceable figures
    @cached_property
    def _core(self) -> list[float]:
        core = [abs(v) for f in self.spec.facts if (v := f.number()) is not None]
        core += [abs(v) for v in self.spec.figures]
        core += [abs(f.value) for f in read_figures(self.ctx.instruction)]
        return sorted(set(core))

    def _per_task(self, what: str, build: Any) -> Any:
        """``build()``, kept for every grading of the same task: the sources are read from the start
        world, which no episode changes, so what they yield is the task's, not the episode's."""
        per_world = _PER_TASK.get(self.ctx.start)  # not setdefault: it makes a weak reference on every call
        if per_world is None:
            per_world = _PER_TASK[self.ctx.start] = {}
        key = (what, id(self.spec), self.ctx.instruction, str(self.ctx.user["id"]), self.day_first,
               self.ctx.now_year)
        found = per_world.get(key)
        if found is None or found[0] is not self.spec:
            found = per_world[key] = (self.spec, build())
        return found[1]

    @cached_property
    def _from_sources(self) -> list[float]:
        return self._per_task("figures", lambda: _derived(self.spec, self._core, collect(
            self.ctx, list(self.spec.sources), source=True)))

    @cached_property
    def _from_facts(self) -> list[float]:
        return self._per_task("facts figures", lambda: _derived(self.spec, self._core, []))

    @cached_property
    def known_dates(self) -> set[date]:
        """Dates a text may give when a date is asked: the facts', the sources', the instruction's, today."""
        return {*self._per_task("dates", self._source_dates), self.ctx.final.now().date()}

    def _source_dates(self) -> frozenset[date]:
        found = {d for f in self.spec.facts if (d := f.day()) is not None}
        texts_ = [b.text for b in collect(self.ctx, list(self.spec.sources), source=True)] + [self.ctx.instruction]
        for text in texts_:
            found.update(s for seg in segments(text, day_first=self.day_first, year=self.ctx.now_year)
                         for s in (*seg.dates, *seg.loose_dates))
        return frozenset(found)

    def traceable(self, scope: str = "sources") -> list[float]:
        """Sorted figures a text may state: sources (or only the facts), and simple derivations of them."""
        return self._from_sources if scope == "sources" else self._from_facts

    def traces(self, figure: Figure, scope: str = "sources") -> bool:
        """Whether ``figure`` traces to ``scope`` (``traceable``), once per grading and figure: every
        traceable facts check of a grader asks of every figure of the same texts."""
        return self.kept("traces", (figure, scope), lambda: self._traces(figure, scope))

    def _traces(self, figure: Figure, scope: str) -> bool:
        if figure.value == int(figure.value) and 0 <= abs(figure.value) <= MAX_COUNT and not _money(figure):
            return True
        table = self.traceable(scope)
        for reading in figure.readings():
            slack = max(min(figure.precision, 0.005 * abs(reading)), 0.0005 * abs(reading), 0.005)
            i = bisect.bisect_left(table, abs(reading) - slack)
            if i < len(table) and table[i] <= abs(reading) + slack:
                return True
        return False


# start world -> {(what, id(spec), instruction, user, locale order, year): (spec, value)}: what a
# task's sources yield (``Reader._per_task``); the spec is kept in the value so that its id cannot
# be reused by another spec while the entry lives, and the entries go with the start world.
_PER_TASK: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], tuple[FactsSpec, Any]]] = weakref.WeakKeyDictionary()

# id(spec) -> (spec, its people's (key, name, email), alias scan): ``Reader._scan`` per task, the
# spec kept so that its id cannot be reused while the entry lives; the least recently used go first.
_ALIASES: OrderedDict[int, tuple[FactsSpec, tuple[tuple[str, str, str], ...], AliasIndex]] = OrderedDict()
_ALIASES_KEPT = 2048


def _alias_scan(spec: FactsSpec, people: dict[str, dict[str, Any]]) -> list[tuple[str, str, str | None]]:
    """Every alias pattern of ``spec`` (the people rows of its person entities given), longest
    first, each with its alias; the entities' own regexes last, with none.

    A pattern is given as its source (an alias, or an entity's own regex): ``AliasIndex`` compiles
    one only when a text may match it (a library world's person entities bring thousands of
    aliases, and a grading reads texts that name a handful)."""
    firsts: dict[str, int] = {}
    formal: dict[str, int] = {}
    for person in people.values():
        first = _first(person["name"]).casefold()
        firsts[first] = firsts.get(first, 0) + 1
        title = _formal(person["name"]).casefold()
        formal[title] = formal.get(title, 0) + 1
    pairs: list[tuple[str, str]] = []
    for key, entity in spec.entities.items():
        names = [entity.name, *entity.aliases]
        row = people.get(key)
        if row is not None:
            names += [row["name"], _plain(row["name"]), row["email"]]
            if firsts.get(_first(row["name"]).casefold()) == 1:
                names.append(_first(row["name"]))
            if _formal(row["name"]) and formal.get(_formal(row["name"]).casefold()) == 1:
                names.append(_formal(row["name"]))  # "Dr Elliott", "Mr Read"
        names += [_unaccented(n) for n in names]  # "Ines Humbert" for Inès Humbert: people type without accents
        pairs += [(n, key) for n in dict.fromkeys(n.strip() for n in names) if n]
    pairs.sort(key=lambda p: -len(p[0]))
    scan: list[tuple[str, str, str | None]] = [(alias, key, alias) for alias, key in pairs]
    return scan + [(p, key, None) for key, entity in spec.entities.items() for p in entity.patterns]


_RUN = re.compile(r"[A-Za-z0-9]+")
# What ``re.IGNORECASE`` matches an ASCII letter with, as that letter in lower case: A-Z, and the
# only four other characters that match one (found by trying every code point): 'İ' and 'ı' match
# 'i', 'ſ' matches 's', the Kelvin sign matches 'k'.
_FOLD = {**{ord(c): c.lower() for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}, 0x130: "i", 0x131: "i", 0x17F: "s", 0x212A: "k"}


class AliasIndex:
    """A task's alias patterns, in their order, indexed by the ASCII words each one needs.

    Reading a text runs only the patterns that can match it: an alias matches only where every
    one of its ``_needles`` is in the text (case-folded as ``re`` does).  Each such word is
    also a whole word of the text, its ends being the alias's own separators or the pattern's
    word boundaries, except where the pattern reads 'and' and '&' alike (an alias with '&' or
    ' and ' is checked by substring).  So the words of a text pick the candidates through a
    dictionary instead of trying each of a library world's hundreds of aliases on every segment.
    """

    def __init__(self, scan: list[tuple[str, str, str | None]]) -> None:
        # (source, key, alias or None for an entity's own regex); compiled on first use
        self._sources = scan
        self._compiled: dict[int, tuple[re.Pattern[str], str]] = {}
        self.always: list[int] = []  # no needles: a regex, a non-ASCII alias
        self.by_substring: list[tuple[int, tuple[str, ...]]] = []
        self.by_word: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
        # a phone number, by its national digits: a match is those digits with at most separators
        # between them, so they are in the text once its separators are taken out
        self.by_digits: list[tuple[int, str]] = []
        worded: list[tuple[int, tuple[str, ...]]] = []
        for i, (_, _, alias) in enumerate(scan):
            needles = _needles(alias)
            digits = _phone_digits(alias) if not needles and alias is not None else None
            if digits is not None:
                self.by_digits.append((i, digits))
            elif not needles:
                self.always.append(i)
            elif alias is not None and ("&" in alias or " and " in alias):
                self.by_substring.append((i, needles))
            else:
                worded.append((i, needles))
        # An alias is filed under its rarest word (any of its words would pick the same candidates,
        # as each must be in the text): a world's emails all share the domain's word.
        counts: dict[str, int] = {}
        for _, needles in worded:
            for needle in needles:
                counts[needle] = counts.get(needle, 0) + 1
        for i, needles in worded:
            self.by_word.setdefault(min(needles, key=counts.__getitem__), []).append((i, needles))

    def candidates(self, text: str) -> list[tuple[re.Pattern[str], str]]:
        """The (pattern, key) pairs that may match ``text``, in the aliases' order."""
        folded = text.translate(_FOLD)
        words = set(_RUN.findall(folded))
        chosen = list(self.always)
        for word in words:
            chosen += [i for i, needles in self.by_word.get(word, ()) if words.issuperset(needles)]
        chosen += [i for i, needles in self.by_substring if all(n in folded for n in needles)]
        if self.by_digits:
            bare = _PHONE_SEPARATORS.sub("", text)
            chosen += [i for i, digits in self.by_digits if digits in bare]
        return [self._pattern(i) for i in sorted(chosen)]

    @property
    def patterns(self) -> list[tuple[re.Pattern[str], str]]:
        """Every (pattern, key) pair, in the aliases' order."""
        return [self._pattern(i) for i in range(len(self._sources))]

    def _pattern(self, i: int) -> tuple[re.Pattern[str], str]:
        found = self._compiled.get(i)
        if found is None:
            source, key, alias = self._sources[i]
            found = self._compiled[i] = (_alias_pattern(alias) if alias is not None else re.compile(source), key)
        return found


def _needles(alias: str | None) -> tuple[str, ...]:
    """The lower-case literals every match of ``_alias_pattern(alias)`` contains once folded with
    ``_FOLD``: the alias's runs of ASCII letters and digits (not 'and', which may be written '&'),
    longest first.  None (always scan) for a phone number, which matches in any punctuation, and
    for an alias that is not ASCII (NFKC and case folding could change its letters)."""
    if alias is None or not alias.isascii() or _phone_pattern(alias) is not None:
        return ()
    runs = {run.lower() for run in _RUN.findall(alias) if run.lower() != "and"}
    return tuple(sorted(runs, key=lambda run: (-len(run), run)))


def _derived(spec: FactsSpec, core: list[float], blocks: list[Any]) -> list[float]:
    """Core and source figures, sums and differences of two, their ratios in percent, attribute totals."""
    source = [abs(f.value) for b in blocks for f in _source_figures(b)]
    base = sorted(set(core) | set(source))
    pool = base if len(base) <= MAX_DERIVED_BASE else core
    derived: set[float] = set(base)
    for i, a in enumerate(pool):
        for b in pool[i + 1:]:
            derived.update((a + b, abs(a - b)))
            if a and b:
                derived.update((100 * a / b, 100 * b / a, 100 * abs(a - b) / b, 100 * abs(a - b) / a))
    for attribute in {f.attribute for f in spec.facts}:
        values = [v for f in spec.facts if f.attribute == attribute and (v := f.number()) is not None]
        total = abs(sum(values))
        derived.add(total)
        if total and len(values) > 1:  # each one's share of the total ("Proposal: 23.4% of the pipeline")
            derived.update(100 * abs(v) / total for v in values)
    return sorted(derived)


def _source_figures(block: Any) -> list[Figure]:
    """A source's figures; a sheet's cell by cell, so that "1,890.73" in a CSV row ("...,1,890.73,")
    reads as the cells 1 and 890.73, never as one thousands-separated number."""
    if not block.label.startswith("sheet:"):
        return read_figures(block.text)
    return [f for line in block.text.splitlines() for row in csv.reader([line]) for cell in row
            for f in read_figures(cell)]


def _money(figure: Figure) -> bool:
    return bool(re.search(r"[$€£₹¥]|usd|eur|gbp|inr|dollar|rupee|lakh|crore|[kmb]\b", figure.text, re.IGNORECASE))


def _first(name: str) -> str:
    return given_name(name)


def _formal(name: str) -> str:
    """Title and surname ('Dr Damien Elliott' -> 'Dr Elliott'), how a formal note names them; '' without a title."""
    parts = name.split()
    plain = _plain(name).split()
    if len(parts) < 3 or not is_title(parts[0]) or len(parts[0].rstrip(".")) < 2 or len(plain) < 2:
        return ""
    return f"{parts[0]} {plain[-1]}"


def _unaccented(name: str) -> str:
    """``name`` without its accents ('Inès Dupré' -> 'Ines Dupre'); letters like 'ß' or 'ø' stay."""
    if name.isascii():
        return name
    return "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))


def _plain(name: str) -> str:
    """A name without honorifics ('Mr', 'Dr', 'Mrs.') and suffixes ('PhD', 'Jr'): how colleagues write it."""
    parts = [p for p in name.split() if not is_title(p) and p.casefold().rstrip(",") not in
             ("md", "dds", "dvm", "phd", "jr", "sr", "ii", "iii", "iv")]
    return " ".join(parts) if len(parts) >= 2 else name


_PHONE_ALIAS = re.compile(r"^\+?[\d\s().-]+$")


def phone_regex(phone: str) -> str:
    """A regex for a phone number however it is punctuated and prefixed, never inside a longer number:
    '+44 20 7946 0193', '+44 (0)20 7946 0193', '0044 20 7946 0193', '020 7946 0193' (the trunk prefix
    in place of the country code), '(20) 7946-0193'.  The one phone matcher: facts aliases use it,
    and generators use it for a record's expected phone."""
    country, national, trunk = phone_parts(phone)
    sep = r"[\s().-]{0,2}"
    prefixes = []
    if country:
        after = rf"(?:{trunk}{sep})?" if trunk and trunk != country else ""  # '+44 (0)20 ...'
        prefixes.append(rf"(?:\+|00)?{country}{sep}{after}")
    if trunk:
        prefixes.append(rf"{trunk}{sep}")
    prefix = f"(?:{'|'.join(prefixes)})?" if prefixes else ""
    return rf"(?<![\d+]){prefix}{sep.join(national)}(?!\d)"


@lru_cache(maxsize=16384)
def phone_parts(phone: str) -> tuple[str, str, str]:
    """(country code, national number, trunk prefix) of a phone number, digits only.

    Written with its country code ('+33 1 78 34 05 90'), the number is split by the numbering plan
    (``phonenumbers``): 33, 178340590, and '0', what a French caller dials instead of +33.  Without
    one, or where the plan does not know it, the last ten digits are the national number and the
    rest its country code, with no trunk prefix."""
    digits = re.sub(r"\D", "", phone)
    if phone.lstrip().startswith("+"):
        try:
            number = phonenumbers.parse(phone, None)
        except phonenumbers.NumberParseException:
            number = None
        if number is not None and number.country_code:
            region = phonenumbers.region_code_for_country_code(number.country_code)
            metadata = phonenumbers.PhoneMetadata.metadata_for_region(region) if region else None
            trunk = (metadata.national_prefix or "") if metadata is not None else ""
            return str(number.country_code), phonenumbers.national_significant_number(number), trunk
    return digits[:-10], digits[-10:], ""


@lru_cache(maxsize=16384)
def _phone_digits(alias: str) -> str | None:
    """The national digits a phone alias's pattern (``phone_regex``) spells out, separated only by
    ``_PHONE_SEPARATORS``; None when ``alias`` is not a phone number."""
    if _phone_pattern(alias) is None:
        return None
    return phone_parts(alias)[1]


_PHONE_SEPARATORS = re.compile(r"[\s().-]")


def _phone_pattern(alias: str) -> re.Pattern[str] | None:
    """A phone number as an alias (see ``phone_regex``); None when ``alias`` is not one."""
    if not _PHONE_ALIAS.match(alias) or len(re.sub(r"\D", "", alias)) < 10:
        return None
    return re.compile(phone_regex(alias))


@lru_cache(maxsize=16384)
def _alias_pattern(alias: str) -> re.Pattern[str]:
    """Whole words; an acronym ('IT', 'HR') only in capitals, so 'it overspent' names nothing; a
    phone number in any punctuation.

    Cached: a library's aliases are far more than ``re``'s own cache holds (512 patterns), and
    compiling them again in every grading cost more than reading the texts."""
    phone = _phone_pattern(alias)
    if phone is not None:
        return phone
    # re.escape writes '&' as '\&' (Python 3.7+): replace the escaped form, or the pattern breaks
    words = re.escape(clean(alias)).replace(r"\ ", r"\s+").replace(r"\&", "&").replace("&", r"(?:&|and)")
    words = words.replace(r"\s+and\s+", r"\s*(?:and|&)\s*")  # 'Hicks, Barnett & Hardin' is the same
    left = r"(?<![\w@.])" if alias[:1].isalnum() else ""
    right = r"(?![\w@])" if alias[-1:].isalnum() else ""
    acronym = alias.isupper() and len(alias) <= 5
    return re.compile(f"{left}{words}{right}", 0 if acronym else re.IGNORECASE)


# ============================================================================== claims
@dataclass
class Claim:
    """A segment with the entities it names (its own, or, naming none, the previous sentence's on its line)."""

    segment: Segment
    names: list[str] = field(default_factory=list)
    inherited: bool = False
    prior: list[str] = field(default_factory=list)  # the entities the sentence before it in its paragraph names


def claims(reader: Reader, text: str, subject: str | None) -> list[Claim]:
    """``text``'s claims, once per grading and subject (every facts check of a grader reads the same
    texts; callers only read them)."""
    found = reader._claims.get((text, subject))
    if found is None:
        found = reader._claims[(text, subject)] = _read_claims(reader, text, subject)
    return found


def _read_claims(reader: Reader, text: str, subject: str | None) -> list[Claim]:
    """A segment naming no entity is about what names one before it: the sentence before it on its line,
    else its heading ("## Sales" over "Q3: $3,043.23"), else a label line of its paragraph above it (a
    line of its own naming entities and no figure: "**Cochran PLC**" over "- Overdue: $27,200",
    "Department: Sales" over "Overrun: $26,300"), else the check's subject.  A line naming only what is
    another entity's value ("Rule: meal allowance" under "EC-9140") is that entity's too."""
    out: list[Claim] = []
    previous: Claim | None = None
    label: _Label | None = None
    for segment in reader.segments(text):
        names = list(dict.fromkeys([*reader.named(segment.text), *(k for *_, k in header_spots(reader, segment))]))
        claim = Claim(segment, names, prior=list(previous.names) if previous is not None and
                      previous.segment.paragraph == segment.paragraph else [])
        new_line = previous is None or previous.segment.line != segment.line
        above = label.names if label is not None and label.paragraph == segment.paragraph and (
            new_line or label.line != segment.line) else []
        if not names:
            heading = list(reader.named(segment.context)) if segment.context else []
            if not new_line and previous is not None and previous.names:
                claim.names, claim.inherited = list(previous.names), True
            elif heading or above:
                claim.names, claim.inherited = heading or list(above), True
            elif subject is not None:
                claim.names, claim.inherited = [subject], True
        elif not new_line and previous is not None and previous.names and _aside_only(reader, segment):
            # "Sales. $26,300 over (Finance is second at $5,800 over)": the aside's name is not the sentence's
            claim.names = list(dict.fromkeys([*previous.names, *names]))
        elif above and set(names) <= reader.values_only:
            claim.names = list(dict.fromkeys([*above, *names]))
            label = _Label(segment.paragraph, segment.line, claim.names)  # labels stack: "EC-9140" / "Rule: ..."
        elif new_line and not segment.next_text and not segment.figures and not segment.dates:
            label = _Label(segment.paragraph, segment.line, names)
        else:
            label = None
        out.append(claim)
        previous = claim
    return out


def _aside_only(reader: Reader, segment: Segment) -> bool:
    """Whether every entity the segment names is named inside parentheses, and a figure stands outside them
    (once per grading and text: a segment's figures are its text's)."""
    return reader.kept("aside only", segment.text, lambda: _read_aside_only(reader, segment))


def _read_aside_only(reader: Reader, segment: Segment) -> bool:
    text = segment.text
    asides = [m.span() for m in re.finditer(r"\([^()]*\)", text)]
    if not asides:
        return False
    inside = all(any(a <= start < b for a, b in asides) for start, _, _ in reader.mentions(text))
    outside = any(at >= 0 and not any(a <= at < b for a, b in asides)
                  for _, at in reader.positions(text, segment.figures))
    return inside and outside


@dataclass(frozen=True)
class _Label:
    """A line of its own that names entities and states no figure: what the lines under it are about."""

    paragraph: int
    line: int
    names: list[str]


def _left_out(reader: Reader, segment: Segment) -> bool:
    """``excluded``, read with the entities' own names blanked: 'The Old Mill' or 'No Frills Ltd'
    names an option, it does not mark one as left out.  A negation inside a condition sets nothing
    aside: "If the new joiners don't count yet, 2." offers 2."""
    key = (segment.context, segment.text)
    found = reader._left_out.get(key)
    if found is None:
        found = reader._left_out[key] = excluded(segment) and EXCLUSION.search(without_possible(
            f"{_blanked(reader, segment.context)} {CONDITION.sub(' ', _blanked(reader, segment.text))}")) \
            is not None and _ALTERNATIVE.search(segment.text) is None and WOULD_VALUE.search(segment.text) is None \
            and _TAKEN_BACK.search(segment.text) is None
    return found


# what a sentence sets aside, taken back: "not $161,650, although that one might also be right"
_TAKEN_BACK = re.compile(r"\b(?:although|though|but|yet|however)\b[^.;!?]*\b(?:might|may|could)\s+(?:also|still|"
                         r"well|equally)\s+be\b|\b(?:might|may|could)\s+(?:also|still|equally)\s+be\s+(?:right|"
                         r"correct|it|the\s+(?:one|answer|figure))\b", re.IGNORECASE)


# a sentence that offers an alternative to the one before ("Oct 21. Or maybe Oct 8, I don't know."):
# whatever negation it has, what it names is offered, not left out
_ALTERNATIVE = re.compile(r"^\W*(?:or|oder|ou)\b|\bor\s+(?:maybe|perhaps|possibly|probably)\b", re.IGNORECASE)


# a sentence of its own that ranks another candidate below the answer ("Finance was next", "Legal came in
# $30,000 under"): context a careful worker adds, not a second answer
_RANK = r"(?:next|second|third|runner[\s-]?up)"
_RANKED_BELOW = re.compile(
    rf"\b(?:was|is|were|came|comes|ranks?|ranked|placed|finished)\s+(?:(?:a|the|in|close)\s+)*{_RANK}\b"
    rf"|\b{_RANK}\s+(?:highest|largest|biggest|most|closest|in\s+line|place)\b|\b{_RANK}\s*(?:[.,;:!)]|$)"
    r"|\bcame\s+in\s+(?:\S+\s+){0,3}under\b|\bunder(?:\s+(?:budget|plan|target|forecast))?\s*(?:[.,;:!)]|$)",
    re.IGNORECASE)


def _blanked(reader: Reader, text: str) -> str:
    """``text`` with the entities' names blanked out (the same length, so positions still hold)."""
    for start, end, _ in reversed(reader.mentions(text)):
        text = text[:start] + " " * (end - start) + text[end:]
    return text


def _unnegated_mentions(reader: Reader, text: str) -> Sequence[tuple[int, int, str]]:
    """``reader.mentions(text)`` less those a negation before them sets aside: in "Sales, not Legal:
    over by $26,300" the figure is written with Sales, not with Legal.  Kept per text for the grading:
    the misstatement rule asks it for every value of a segment, and a long pasted line is costly to scope."""
    return reader.kept("unnegated mentions", text, lambda: _read_unnegated_mentions(reader, text))


def _read_unnegated_mentions(reader: Reader, text: str) -> Sequence[tuple[int, int, str]]:
    mentions = reader.mentions(text)
    if len(mentions) < 2:
        return mentions
    marked, blanked = _marked(reader, text)
    if not marked:
        return mentions
    aside = governed(blanked, [(start, end) for start, end, _ in mentions], backward="clause")
    return [m for i, m in enumerate(mentions) if i not in aside]


def _owning_mentions(reader: Reader, text: str) -> list[tuple[int, int, str]]:
    """Mentions with a figure right after them, negated or not: in "excluding the paid
    INV-0109 (€38,750) and the void INV-0313 (€18,650)" €38,750 is written with INV-0109, which the
    negation sets aside as an answer but not as the figure's owner."""
    return [m for m in reader.mentions(text) if _OWN_FIGURE.match(text, m[1])]


# right after a mention: "(€38,750", " £29,050", ": 38.750 €": a figure written straight after it is its own
_OWN_FIGURE = re.compile(r"\s*(?:[(:,–—-]\s*)?[^\s\d()]{0,3}\s?\d")


def _asserted_names(reader: Reader, claim: Claim, check: FactsCheck) -> tuple[Sequence[str], bool]:
    """(the entities the claim names, whether a negation decided them): where the claim names an
    answer and another of the candidates and has a negation of its own, those a negation before them
    sets aside are left out ("Legal, not Sales" names Legal only); elsewhere all it names, as before."""
    named = reader.named(claim.segment.text)
    # (what must stay out is a rival too, when it is another option of the same kind: "Vendor: Sparkle Pro (not
    # CleanCo)" presents Sparkle Pro; the request logged is no rival of the reason another was refused: "I've
    # logged Redwood and can't log Silverbirch: the policy doesn't allow splitting" names the splitting)
    kinds = {reader.spec.entities[k].kind for k in check.name if k in reader.spec.entities}
    rivals = [k for k in [*check.candidates, *(k for k in check.exclude if k in reader.spec.entities
                                              and reader.spec.entities[k].kind in kinds)] if k not in check.name]
    if not any(k in named for k in check.name) or not any(k in named for k in rivals):
        return named, False
    marked, text = _marked(reader, claim.segment.text)
    if not marked:
        return named, False
    mentions = reader.mentions(claim.segment.text)
    aside = governed(text, [(start, end) for start, end, _ in mentions], backward="clause")
    return list(dict.fromkeys(key for i, (*_, key) in enumerate(mentions) if i not in aside)), True


def _marked(reader: Reader, text: str) -> tuple[bool, str]:
    """(whether ``text`` has a negation or change marker outside the entities' names, ``text`` with
    the names blanked), once per text for this grading."""
    found = reader._marked.get(text)
    if found is None:
        if not has_marker(text) or _TAKEN_BACK.search(text):  # a marker taken back sets nothing aside
            found = (False, text)
        else:
            blanked = _blanked(reader, text)
            found = (has_marker(blanked), blanked)
        reader._marked[text] = found
    return found


def _contested(reader: Reader, claim: Claim, fact: Fact) -> bool:
    """Whether the claim gives the fact's value and a wrong one with a negation or change marker of its
    own (not its heading's): then which value it asserts depends on where the marker stands (``scope``)."""
    if not fact.wrong:
        return False
    key = (id(claim), id(fact))
    found = reader._contested.get(key)
    if found is None:
        found = reader._contested[key] = _is_contested(reader, claim, fact)
    return found


def _is_contested(reader: Reader, claim: Claim, fact: Fact) -> bool:
    if fact.number() is None and fact.day() is None:
        return False
    segment = claim.segment
    if not _marked(reader, segment.text)[0]:
        return False
    if segment.context and EXCLUSION.search(without_possible(_blanked(reader, segment.context))) is not None:
        return False  # under "Excluded:" everything is left out
    kinds = {kind for *_, kind, _ in _values(reader, claim, fact)}
    return {"right", "wrong"} <= kinds


def _values(reader: Reader, claim: Claim, fact: Fact) -> list[tuple[int, int, str, str]]:
    """(start, end, "right" / "wrong" / "", as written) of each figure or date of the fact's kind in the claim."""
    text = claim.segment.text
    number, day = fact.number(), fact.day()
    out: list[tuple[int, int, str, str]] = []
    if number is not None:
        wrong_numbers = [w for w in fact.wrong if isinstance(w, int | float)]
        for figure, at in reader.positions(text, claim.segment.figures):
            if at < 0:
                continue
            readings = figure.readings()
            kind = ""
            if any(_close(r, number, fact.tolerance) for r in readings):
                kind = "right"
            elif any(_close(r, w, fact.wrong_tolerance) for w in wrong_numbers for r in readings) and not _denominator(
                    claim.segment, figure) and not _theirs(reader, claim, fact, figure) and not _told_as_other(
                    reader, claim, fact, at, at + len(figure.text), _number_is(readings)):
                kind = "wrong"
            out.append((at, at + len(figure.text), kind, figure.text))
    elif day is not None:
        wrong_days = {d for w in fact.wrong if isinstance(w, str) and (d := read_date(w)) is not None}
        for start, end, found in date_spans(text, day_first=reader.day_first, year=reader.ctx.now_year):
            kind = "right" if found == day else "wrong" if found in wrong_days and not _told_as_other(
                reader, claim, fact, start, end, _day_is(found)) else ""
            out.append((start, end, kind, str(found)))
    return out


def _number_is(readings: tuple[float, ...]) -> Callable[[Fact], bool]:
    return lambda g: (v := g.number()) is not None and any(_close(r, v, min(g.tolerance, 0.001)) for r in readings)


def _day_is(day: date) -> Callable[[Fact], bool]:
    return lambda g: g.day() == day


def _told_as_other(reader: Reader, claim: Claim, fact: Fact, start: int, end: int,
                   holds: Callable[[Fact], bool]) -> bool:
    """Whether the value at ``text[start:end]``, a wrong reading of ``fact``, is told as another of its
    entity's facts: that fact has the value (``holds``) and its ``label`` is the one nearest the value
    ("the launch is Oct 21 (the beta ends Oct 8)": Oct 8 is the beta's end, told as such).  The nearest
    label decides as in ``_label_swaps``, so "launch Oct 8, beta ends Oct 21" still reads Oct 8 as the
    launch."""
    others = [g for g in reader.spec.facts if g is not fact and g.entity == fact.entity and g.label and holds(g)]
    if not others:
        return False
    text = claim.segment.text
    spans: list[tuple[int, int]] = []
    if fact.number() is not None:
        clause = text[:start].rsplit(";", 1)[-1]
        if _OFFERED_BEFORE.search(clause) or _CORRECTION.search(clause):
            return False  # "5 (or 14 in the department)", "5. If you mean the department, 14", "Correction: 14
            # in the department": a figure offered, or told anew, is no figure told apart
        placed = [(f, at) for f, at in reader.positions(text, claim.segment.figures) if at >= 0]
        number = fact.number()
        if any(at >= end and _OFFERED_BETWEEN.search(text, end, at) and any(
                _close(r, number, fact.tolerance) for r in f.readings()) for f, at in placed if number is not None):
            return False  # "$395 under the policy, or $475": the right value offered after it makes it a reading
        spans = [(at, at + len(f.text)) for f, at in placed]
    named = _nearest_label(text, start, end, [fact, *others] if fact.label else others, spans)
    return named is not None and named is not fact


# between a value and the right one after it: what offers the two as readings ("$395 under the policy, or $475")
_OFFERED_BETWEEN = re.compile(r"\b(?:or|either|alternatively|oder|ou)\b", re.IGNORECASE)
# before a value in its clause: what offers it as another reading, whatever label it has
_OFFERED_BEFORE = re.compile(r"\b(?:or|if|unless|otherwise|else|alternatively|maybe|perhaps|possibly|probably|oder|ou|"
                             r"wenn|falls|sonst|vielleicht|sinon|si|peut[\s-]être)\b", re.IGNORECASE)


def _nearest_label(text: str, start: int, end: int, facts: list[Fact],
                   figures: Sequence[tuple[int, int]] = ()) -> Fact | None:
    """The fact whose ``label`` is written nearest the value at ``text[start:end]`` (within
    ``LABEL_REACH`` characters, before or after), or ``None``.  A label across a clause break
    (", renewal", "and owes") is further than one beside the value; at equal distance the one
    before it names it.  Given the other ``figures`` of the text (their spans), a label with another
    figure between it and the value is that figure's ("$5,876.79 against $4,680.00 last quarter"), and
    so is a label after the value that opens the figure after it ("$7,614.19 (Q2: $5,740.00)") or one
    before it that closes the figure before it ("from $5,740.00 in Q2 to $7,614.19 in Q3"); labels listed
    together ("Q2 vs Q3: $5,740.00 vs $7,614.19") name no one figure."""
    found = [(m.start(), m.end(), f) for f in facts for m in compiled(str(f.label), re.IGNORECASE).finditer(text)]
    if figures:
        listed = _listed_label(text, start, sorted(found, key=lambda x: x[0]), sorted(figures))
        if listed is not None:
            return listed
    near: list[tuple[int, bool, Fact]] = []
    for at, to, f in found:
        between = text[to:start] if to <= start else text[end:at] if at >= end else None
        if between is None or len(between) > LABEL_REACH:
            continue
        if figures and (any((to <= a and b <= start) or (end <= a and b <= at) or (
                at >= end and a >= to and _OPENS.fullmatch(text, to, a)) or (
                to <= start and b <= at and _CLOSES.fullmatch(text, b, at) and not _OPENS_FIRMLY.fullmatch(text, to,
                                                                                                         start)
                and not (_OPENS_ASIDE.fullmatch(text, b, at) and ")" not in text[to:start]))
                for a, b in figures if (a, b) != (start, end)) or any(
                g is not f and (_LISTED_LABELS.fullmatch(text, e, at) if e <= at else
                                _LISTED_LABELS.fullmatch(text, to, b) if b >= to else False)
                for b, e, g in found)):
            continue
        broken = re.search(r"[,;]|\b(?:and|but|while)\b", between) is not None
        near.append((len(between) + LABEL_REACH * broken, at > start, f))
    return min(near, key=lambda n: (n[0], n[1]))[2] if near else None


def _listed_label(text: str, start: int, found: list[tuple[int, int, Fact]],
                  figures: list[tuple[int, int]]) -> Fact | None:
    """The label of the value at ``start`` where labels listed together open a list of as many figures,
    each the label of the figure in its place ("Q3 vs Q2: $7,614.19 vs $5,740.00"), else ``None``."""
    chains: list[list[tuple[int, int, Fact]]] = []
    for label in found:
        if chains and label[2] is not chains[-1][-1][2] and _LISTED_LABELS.fullmatch(text, chains[-1][-1][1],
                                                                                    label[0]):
            chains[-1].append(label)
        else:
            chains.append([label])
    for chain in chains:
        if len(chain) < 2:
            continue
        run: list[tuple[int, int]] = []
        for a, b in figures:
            if a < chain[-1][1]:
                continue
            if not run and not _OPENS.fullmatch(text, chain[-1][1], a):
                break
            if run and not _LISTED_LABELS.fullmatch(text, run[-1][1], a):
                break
            run.append((a, b))
        if len(run) == len(chain):
            for (a, _), (*_, fact) in zip(run, chain, strict=True):
                if a == start:
                    return fact
    return None


def _asserted(reader: Reader, claim: Claim, fact: Fact, *, negations: bool = True) -> tuple[bool, list[str]]:
    """In a contested claim: (whether it asserts the fact's value, the wrong values it asserts), the
    values a negation (unless not ``negations``) or a change's marker governs set aside ("closes Oct 30,
    not Oct 16" asserts Oct 30 only)."""
    values = _values(reader, claim, fact)
    aside = governed(_marked(reader, claim.segment.text)[1], [(start, end) for start, end, *_ in values],
                     negations=negations)
    kept = [v for i, v in enumerate(values) if i not in aside]
    return any(kind == "right" for *_, kind, _ in kept), [shown for *_, kind, shown in kept if kind == "wrong"][:1]


def header_spots(reader: Reader, segment: Segment) -> list[tuple[int, int, str]]:
    """In a table row under a header, the entities a column heading names ("| Total | Deals |"),
    placed at the start of the row's cells in that column that name no entity themselves: there the
    heading says whose figure the cell is (read once per grading and row: claims and swaps ask)."""
    if not segment.header:
        return []
    return reader.kept("header spots", (segment.text, segment.header), lambda: _header_spots(reader, segment))


def _header_spots(reader: Reader, segment: Segment) -> list[tuple[int, int, str]]:
    out = []
    at = 0
    text = segment.text
    cells = table_cells(text)
    for column, cell in enumerate(cells):
        start = text.find(cell, at) if cell else at
        at = start + len(cell) if start >= 0 else at
        if column >= len(segment.header) or not cell or reader.named(cell):
            continue
        out += [(max(start, 0), max(start, 0), key) for key in reader.named(segment.header[column])]
    return out


def _states(claim: Claim, fact: Fact, reader: Reader, *, headings: bool = False) -> bool:
    number, day = fact.number(), fact.day()
    if number is not None:
        return any(_close(r, number, fact.tolerance) for f in claim.segment.figures for r in f.readings())
    if day is not None:
        return day in claim.segment.dates or day in claim.segment.loose_dates
    own = reader.named(claim.segment.full if headings else claim.segment.text)
    return str(fact.value) in own


def _close(actual: float, expected: float, tolerance: float) -> bool:
    if expected == 0:
        return abs(actual) <= tolerance
    return abs(actual - expected) <= tolerance * abs(expected) + 1e-9


def _states_wrong(claim: Claim, fact: Fact, reader: Reader) -> list[str]:
    out = []
    number = fact.number()
    for wrong in fact.wrong:
        if isinstance(wrong, int | float):
            hits = [f for f in claim.segment.figures for r in f.readings() if _close(r, wrong, fact.wrong_tolerance)
                    and not (number is not None and _close(r, number, fact.tolerance))
                    and not _denominator(claim.segment, f) and not _theirs(reader, claim, fact, f)
                    and not _figure_told_as_other(reader, claim, fact, f) and not _a_months(reader, claim, fact, f)
                    and not (number is not None and f in _summands(claim.segment, number, fact.tolerance))]
            if hits and number is not None:
                parts = _parts_told(reader, claim, number, fact.tolerance)
                hits = [h for h in hits if h not in parts]
            out += [h.text for h in hits[:1]]
        elif (day := read_date(wrong)) is not None:
            if day in claim.segment.loose_dates or (day in claim.segment.dates and not _day_told_as_other(
                    reader, claim, fact, day)):
                out.append(wrong)
        elif wrong in reader.named(claim.segment.text) and not _named_for_another(reader, claim, fact, wrong):
            out.append(reader.spec.entities[wrong].name)
    return out


def _named_for_another(reader: Reader, claim: Claim, fact: Fact, value: str) -> bool:
    """Whether every place the claim names ``value`` (an entity that is a wrong reading of ``fact``) gives it
    to another entity the claim names, whose own fact it is: "EC-9140 ($90.00 over the meal allowance) and
    EC-9881 ($140.00 over the hotel cap)" names the hotel cap for EC-9881.  A value's owner is the one its
    place in a "respectively" list gives, else the entity named before it with no clause break between
    ("EC-9140 (hotel cap)"), else the one after it, else the nearer."""
    text = claim.segment.text
    index = _fact_index(reader)
    mentions = reader.mentions(text)
    spots = [(start, end, key) for start, end, key in mentions if key in index.holders]
    if len({key for *_, key in spots}) < 2:
        return False
    valued = reader.kept("value entities", None, partial(_value_entities, reader.spec))
    listed = respectively(text, [(start, key) for start, _, key in spots],
                          [start for start, _, key in mentions if key in valued]) or {}
    places = [(start, end) for start, end, key in mentions if key == value]
    for start, end in places:
        owner = listed.get(start) or _owner_of(text, start, end, spots)
        if owner is None or owner == fact.entity or not any(g.value == value for g in index.of({owner})):
            return False
    return bool(places)


def _owner_of(text: str, start: int, end: int, spots: list[tuple[int, int, str]]) -> str | None:
    """The entity (of ``spots``) a name at ``text[start:end]`` belongs to (see ``_named_for_another``)."""
    before = [s for s in spots if s[1] <= start]
    after = [s for s in spots if s[0] >= end]
    if before and not _OWNER_BREAK.search(text, before[-1][1], start):
        return before[-1][2]
    if after and not _OWNER_BREAK.search(text, end, after[0][0]):
        return after[0][2]
    near = [(start - s[1], s[2]) for s in before[-1:]] + [(s[0] - end, s[2]) for s in after[:1]]
    return min(near)[1] if near else None


_OWNER_BREAK = re.compile(r"[,;]|\b(?:and|und|et|while|but)\b", re.IGNORECASE)


def _a_months(reader: Reader, claim: Claim, fact: Fact, figure: Figure) -> bool:
    """Whether ``figure`` is told as one month's, a month the fact's entity is not about: "Its worst single
    month was August ($15,000 over), but the quarter total is $26,300" gives a month's overrun, what a
    wrong reading of the quarter's gives, as that month's.  "September: $520,000" for September's
    bookings still reads as a reading of them."""
    text = claim.segment.text
    at = _figure_at(reader, claim, figure)
    if at < 0:
        return False
    entity = reader.spec.entities[fact.entity]
    own = " ".join([entity.name, *entity.aliases, fact.label or ""]).casefold()
    before = _MONTH_BEFORE.search(text, max(0, at - 30), at)
    after = _MONTH_AFTER.match(text, at + len(figure.text))
    month = before or after
    return month is not None and month["month"].casefold() not in own


_MONTH = r"(?P<month>" + "|".join(MONTH_NAMES) + r")"
# a month right before the figure it labels: "August ($15,000 over)", "in August: $15,000", "August was $15,000"
_MONTH_BEFORE = re.compile(rf"\b{_MONTH}\b(?:\s*[(:–—-]|\s+(?:was|alone|by\s+itself|war|était))?\s*"
                           r"(?:about|around|roughly|some|only|ca\.|etwa|environ)?\s*[^\w\s]{0,2}$", re.IGNORECASE)
# a month right after it: "$15,000 in August", "15.000 € im August", "15 000 € en août"
_MONTH_AFTER = re.compile(r"[^\w\s]{0,2}\s*(?:over\s+|under\s+)?(?:in|for|during|im|in\s+the\s+month\s+of|en|pour)"
                          rf"\s+{_MONTH}\b", re.IGNORECASE)


def _parts_told(reader: Reader, claim: Claim, number: float, tolerance: float) -> list[Figure]:
    """The figures the claim tells as part of the value written before them: "14 (including the 3 who
    joined this week)", "€87,950, of which €38,750 is overdue", "6, dont 2 arrivés cette semaine",
    "$10,374.80 ($9,250.10 of it signed off)".
    A part is smaller than its whole and follows it; it is not a second reading of the value."""
    text = claim.segment.text
    placed = [(f, at) for f, at in reader.positions(text, claim.segment.figures) if at >= 0]
    whole = [at for f, at in placed if any(_close(r, number, tolerance) for r in f.readings())]
    if not whole:
        return []
    return [f for f, at in placed if at > whole[0] and 0 < f.value < number
            and (_PART_BEFORE.search(text, max(0, at - 40), at) is not None
                 or _PART_AFTER.match(text, at + len(f.text)) is not None)]


# right before a part of the value told before it: "including the", "of which", "y compris", "davon"
_PART_BEFORE = re.compile(r"\b(?:including|incl\.|inclusive\s+of|of\s+which|of\s+whom|among\s+them|y\s+compris|dont|"
                      r"davon|darunter|inklusive|einschlie(?:ß|ss)lich)\s+(?:(?:the|all|les?|la|l'|die|der|den|des|"
                      r"some|about|around)\s+)*[^\w\s]{0,2}$", re.IGNORECASE)


# right after a part of the value told before it: "$10,374.80 ($9,250.10 of it signed off)", "5, 2 of them new"
_PART_AFTER = re.compile(r"\s+(?:of\s+(?:it|that|this|them|those|these|the\s+total|which)|out\s+of\s+(?:it|that|"
                         r"the\s+total))\b", re.IGNORECASE)


def _tentative(reader: Reader, claim: Claim, fact: Fact, *, questions: bool = True) -> bool:
    """Whether every place the claim writes the fact's value asks it or guesses it: "Is it $780?",
    "£145,350? I think.", "$780, right?", "maybe 5", "Est-ce 6 ?".  A question elsewhere in the
    sentence ("Total: $780 - want me to file it?") leaves the value committed."""
    spans = [(start, end) for start, end, kind, _ in _values(reader, claim, fact) if kind == "right"]
    return bool(spans) and all(_asked(claim.segment.text, start, end, questions=questions) for start, end in spans)


def _asked(text: str, start: int, end: int, *, questions: bool = True) -> bool:
    """Whether the value at ``start:end`` is asked (with ``questions``) or guessed: a guess before it
    ("probably $780") or after it in its sentence ("$141,500, but I'm not sure", "87.950 €, glaube ich")."""
    mark = text.find("?", end) if questions else -1
    if mark >= 0 and (_CLAUSE_END.search(text, end, mark) is None or _TAG_QUESTION.fullmatch(text, end, mark)):
        return True
    return _GUESS_BEFORE.search(text[max(0, start - 60):start]) is not None or _GUESS_AFTER.match(text, end) is not None


_CLAUSE_END = re.compile(r"[.;:!()|]|,(?=\s)|\s[-–—]\s|\b(?:but|and|while|whereas)\b", re.IGNORECASE)
# ", right?", ", I think?", ", n'est-ce pas ?": the question is about the value before it
_TAG_QUESTION = re.compile(r"[\s,]*(?:right|correct|yes|no|i\s+think|i\s+guess|n'est-ce\s+pas|non|oder|nicht\s+wahr|ja)"
                           r"\s*", re.IGNORECASE)
# a guess right before the value: "maybe 5", "probably around $780", "vielleicht 6", "I think it's 5"
_GUESS_BEFORE = re.compile(r"\b(?:maybe|perhaps|possibly|probably|likely|might\s+be|could\s+be|peut[\s-]être|"
                           r"vielleicht|wahrscheinlich|vermutlich|probablement|sans\s+doute|i\s+guess|i\s+think|"
                           r"i\s+believe|i\s+suppose|i'?d\s+say|je\s+pense|je\s+crois|ich\s+glaube|ich\s+denke)\b"
                           r"(?:\s+[^\s.;:!?]+){0,3}\s*[^\w\s]{0,2}$", re.IGNORECASE)
# a guess after the value, in its sentence: "$235, I believe", "5 (not sure)", "87.950 €, vielleicht auch mehr",
# "$235 - though I didn't actually check the policy", "roughly $91,800 I think, though it might be more"
_GUESS_AFTER = re.compile(
    r"[^.;!?\n]*?(?:\b(?:i\s+think|i\s+believe|i\s+guess|i\s+suppose|(?:i'?m\s+)?not\s+(?:sure|certain|100%)|"
    r"unsure|uncertain|unverified|unconfirmed|a\s+guess|did\s*n[o']?t\s+(?:actually\s+)?(?:check|verify|confirm|open)|"
    r"(?:have\s*n[o']?t|not)\s+(?:yet\s+)?(?:checked|verified|confirmed)|double[-\s]check|"
    r"(?:maybe|perhaps|possibly|probably|vielleicht|peut[-\s]être|eventuell)\s+(?:a\s+bit\s+|auch\s+|un\s+peu\s+|"
    r"even\s+)?(?:more|less|higher|lower|mehr|weniger|plus|moins)|(?:might|may|could)\s+(?:well\s+|also\s+)?be\s+"
    r"(?:more|less|higher|lower|off|wrong|closer\s+to|nearer|around)|glaube\s+ich|denke\s+ich|nicht\s+sicher|ohne\s+gewähr|je\s+pense|je\s+crois|pas\s+s[uû]re?)\b"
    r"|\(\s*(?:probably|likely|approx\.?|est\.?|estimated|ish)\s*\))", re.IGNORECASE)


def _day_told_as_other(reader: Reader, claim: Claim, fact: Fact, day: date) -> bool:
    """Whether every place the claim writes ``day`` tells it as another of the entity's facts."""
    spans = [(start, end) for start, end, found in date_spans(claim.segment.text, day_first=reader.day_first,
                                                             year=reader.ctx.now_year) if found == day]
    return bool(spans) and all(_told_as_other(reader, claim, fact, start, end, _day_is(day)) for start, end in spans)


def _labelled_apart(reader: Reader, claim: Claim, fact: Fact, day: date) -> bool:
    """Whether every place the claim writes ``day`` has another of the entity's facts' label as its
    own nearest label, with no other date between them: "beta Oct 8 / launch Oct 21" tells Oct 8
    as the beta's, but in "Oct 8 or Oct 21 (beta Oct 8)" the first Oct 8 has no label of its own
    (the beta's stands beyond Oct 21), so it is still offered for the launch, as is a date joined
    straight to the one before it ("launch Oct 21 or Oct 8 (beta)")."""
    others = [g for g in reader.spec.facts if g is not fact and g.entity == fact.entity and g.label and g.day() == day]
    if not others:
        return False
    text = claim.segment.text
    found = date_spans(text, day_first=reader.day_first, year=reader.ctx.now_year)
    spans = [(start, end) for start, end, d in found if d == day]
    if not spans:
        return False
    for start, end in spans:
        # a label beyond a neighbouring date is that date's, not this one's
        low = max((e for s, e, _ in found if e <= start), default=0)
        high = min((s for s, _, _ in found if s >= end), default=len(text))
        if low and _JOINED.fullmatch(text, low, start):
            return False  # "Oct 21 or Oct 8 (beta)": offered as the other reading first, whatever follows
        named = _nearest_label(text[low:high], start - low, end - low, [fact, *others] if fact.label else others)
        if named is None or named is fact:
            return False
    return True


# nothing but a joining word between two dates: the second is offered with the first
_JOINED = re.compile(r"\s*(?:,|/|-|–|—|&)?\s*(?:\b(?:or|and|maybe|perhaps|possibly|probably)\b)?\s*(?:,|/)?\s*",
                     re.IGNORECASE)


def _figure_at(reader: Reader, claim: Claim, figure: Figure) -> int:
    """Where ``figure`` of the claim's segment stands: the "6" of "Engineering 6" is not the one in "60 people"."""
    text = claim.segment.text
    return next((at for f, at in reader.positions(text, claim.segment.figures) if f is figure), -1) if any(
        f is figure for f in claim.segment.figures) else text.find(figure.text)


def _figure_told_as_other(reader: Reader, claim: Claim, fact: Fact, figure: Figure) -> bool:
    at = _figure_at(reader, claim, figure)
    return at >= 0 and _told_as_other(reader, claim, fact, at, at + len(figure.text), _number_is(figure.readings()))


def _theirs(reader: Reader, claim: Claim, fact: Fact, figure: Figure) -> bool:
    """Whether ``figure`` is another entity's own value, written with it: "Silverbirch Media (product
    video, 12.500 €): purchases over 7.500 € need approval" gives the request's amount, which is also
    what a wrong reading of the limit gives.  The figure is theirs when that entity's fact has its
    value and that entity is named nearer before the figure than the fact's own."""
    text = claim.segment.text
    at = _figure_at(reader, claim, figure)
    if at < 0:
        return False
    before = [key for start, _, key in reader.mentions(text) if start < at]
    if not before and claim.inherited and claim.names:  # "Redwood Survey Co: on hold. It's $4,550."
        before = claim.names[-1:]
    owners = [before[-1]] if before else []
    if not before and claim.prior and _PRONOUN_FIRST.match(text):
        # "Redwood Survey Co: on hold. It's $4,550, and anything over $2,500 needs ...": "it" is what the
        # sentence before named
        owners = [key for key in claim.prior if key != fact.entity]
    if not owners or owners == [fact.entity]:
        return False
    return any(f.entity in owners and (v := f.number()) is not None and any(_close(r, v, min(f.tolerance, 0.001))
                                                                           for r in figure.readings())
               for f in reader.spec.facts)


# a sentence opening on what the sentence before it named: "It's $4,550", "That one is", "Es sind", "C'est"
_PRONOUN_FIRST = re.compile(r"\W*(?:it|that(?:\s+one)?|this(?:\s+one)?|which|es|das|sie|er|c'|ce|cela|ça|elle|il)\b",
                            re.IGNORECASE)


def _summands(segment: Segment, total: float, tolerance: float) -> list[Figure]:
    """The figures of ``segment`` written as the working of ``total``: a run joined by "+" or "plus"
    (words around them allowed) that adds up to it, "£200,000 + £121,500 = £321,500", "4 (1 existing
    report + 3 new joiners)", "hotel $570 + meals $210".  Each is a part of the answer, not a reading
    of it, even where it equals a trap (the total less one deal) or another entity's figure."""
    return [f for run, added in _segment_runs(segment) if _close(added, total, tolerance) for f in run]


def _segment_runs(segment: Segment) -> tuple[tuple[tuple[Figure, ...], float], ...]:
    """``_plus_runs`` of a segment, kept when it is short."""
    figures = tuple(segment.figures)
    if len(figures) < 2:
        return ()
    return _kept_plus_runs(segment.text, figures) if len(segment.text) <= KEPT_LENGTH else _plus_runs(
        segment.text, figures)


@lru_cache(maxsize=4096)
def _kept_plus_runs(text: str, figures: tuple[Figure, ...]) -> tuple[tuple[tuple[Figure, ...], float], ...]:
    """``_plus_runs``, kept for short texts: the swap check asks of every figure against every value
    beside it (a long hostile text is not held for the life of the process)."""
    return _plus_runs(text, figures)


def _plus_runs(text: str, figures: tuple[Figure, ...]) -> tuple[tuple[tuple[Figure, ...], float], ...]:
    """The runs of two or more terms in ``text`` written as a sum, each with its figures and its sum.

    A term is a figure, or a product written out ("2 nights × $285", "3 x 70 = 210": its result, when
    written, is part of it).  Terms joined by "+" or "plus" make a run, and so do products listed one
    after another ("hotel 2 x $285 = $570, meals 3 x $70 = $210").  A count told of a term ("$570 for
    2 hotel nights plus $210") is part of that term, not a summand of its own.
    """
    placed = sorted(((at, f) for f, at in _positions(text, list(figures)) if at >= 0), key=lambda p: p[0])
    terms: list[_Term] = []
    for at, figure in placed:
        end = at + len(figure.text)
        if terms:
            last = terms[-1]
            if _TIMES.fullmatch(text, last.end, at):
                terms[-1] = _Term((*last.figures, figure), last.value * figure.value, last.start, end, True)
                continue
            if last.product and _EQUALS.fullmatch(text, last.end, at) and _close(figure.value, last.value, 0.005):
                terms[-1] = _Term((*last.figures, figure), last.value, last.start, end, True)
                continue
            units = _counted(text, end, figure)
            if units and _COUNT_OF.fullmatch(text, last.end, at):
                terms[-1] = _Term((*last.figures, figure), last.value, last.start, end + len(units), last.product)
                continue
        terms.append(_Term((figure,), figure.value, at, end, False))
    runs: list[tuple[tuple[Figure, ...], float]] = []
    run: list[_Term] = []
    for term in [*terms, None]:
        if term is not None and run and (_PLUS.fullmatch(text, run[-1].end, term.start) or (
                run[-1].product and term.product and _LISTED.fullmatch(text, run[-1].end, term.start))):
            run.append(term)
            continue
        if len(run) > 1:
            runs.append((tuple(f for t in run for f in t.figures), sum(t.value for t in run)))
        run = [term] if term is not None else []
    return tuple(runs)


@dataclass(frozen=True)
class _Term:
    """One term of a sum as written: its figures, its value, where it stands, and whether it is a product."""

    figures: tuple[Figure, ...]
    value: float
    start: int
    end: int
    product: bool


def _counted(text: str, end: int, figure: Figure) -> str:
    """The unit words after a bare count ("2 hotel nights"): what makes it a count told of its term."""
    if figure.percent or not figure.text.isdigit() or figure.value > 366:
        return ""
    m = _UNITS.match(text, end)
    return m.group() if m else ""


# between two summands: "+", "plus", "on top of", with a few words on either side ("1 existing report + 3
# new", "3 joined this week, plus the 1 he already had")
_PLUS = re.compile(r"(?:\s*[^\W\d][\w'-]*){0,4}\s*,?\s*(?:\+|\bplus\b|\bon\s+top\s+of\b|\bin\s+addition\s+to\b)\s*"
                   r"(?:[^\W\d][\w'-]*\s*){0,4}", re.IGNORECASE)
# between two factors: "2 nights × $285", "3 x 70", "2*285", "3 days at $70"
_TIMES = re.compile(r"(?:\s*[^\W\d][\w'-]*){0,2}\s*(?:×|\*|\bx\b|\btimes\b|@|\bat\b)\s*", re.IGNORECASE)
# before a product's result: "2 x $285 = $570"
_EQUALS = re.compile(r"\s*(?:=|\bis\b|\bmakes\b|→|->)\s*", re.IGNORECASE)
# before a count told of the term before it: "$570 for 2 hotel nights"
_COUNT_OF = re.compile(r"\s*(?:for|over|across|covering)\s+", re.IGNORECASE)
# a count's unit words, up to where the next term is joined: "2 hotel nights" before " plus"
_UNITS = re.compile(r"(?:\s+[^\W\d][\w'-]*){1,3}?(?=\s*(?:\+|\bplus\b|,|;|\)|$))", re.IGNORECASE)
# between two products listed one after another: "2 x $285 = $570, meals 3 x $70"
_LISTED = re.compile(r"\s*[,;]?\s*(?:\band\b)?(?:\s*[^\W\d][\w'-]*){0,3}\s*[:(]?\s*", re.IGNORECASE)


def _denominator(segment: Segment, figure: Figure) -> bool:
    """A figure written as what the answer is part of, not a reading of it: "5 out of 14", "5 of all 14",
    "one of the six",
    and the whole given first, "Digital has 6 people; 5 of them work remotely" ("5 of whom")."""
    text = segment.text
    at = text.find(figure.text)
    if at < 0:
        return False
    if at > 0 and re.search(r"\b(?:out\s+of|of\s+all|of\s+the)\s*$|\d\s*\(\s*(?:out\s+)?of\s+$", text[:at],
                            re.IGNORECASE) is not None:  # (and "4 (of 27 in the department)")
        return True
    later = f"{text[at + len(figure.text):]} {segment.next_text}"
    return any(read_figures(m.group(1)) for m in _PART_OF.finditer(later))


# a part counted from a whole written before it: "5 of them", "five of whom", "3 out of those"
_PART_OF = re.compile(r"(?<![\w.,])([\w-]+)\s+(?:out\s+)?of\s+(?:them|those|these|whom|which)\b", re.IGNORECASE)


def _offered_beside(reader: Reader, claim: Claim, fact: Fact) -> list[str]:
    """Other figures offered beside the fact's value in one run ("4, 5 or 6", "$24k-$26k", "8, 12, 5").

    A run is figures separated only by commas, *or*, *to*, *and*, a dash, a slash or *maybe*
    ("5, maybe 6"): a reader cannot tell which one is the answer.
    Table cells (``|``) and figures with words between are not runs.  Another date told with its
    own fact's label is no second reading ("beta Oct 8 / launch Oct 21", see ``_labelled_apart``).
    """
    number = fact.number()
    day = fact.day()
    dates = [*claim.segment.dates, *claim.segment.loose_dates]
    vague = _VAGUE_ALTERNATIVE.search(claim.segment.text)
    if vague and ((day is not None and day in dates) or (number is not None and any(
            _close(r, number, fact.tolerance) for f in claim.segment.figures for r in f.readings()))):
        return [repr(vague.group())]  # "Oct 21 or a week later", "5 or so": no one value
    if day is not None and day in dates and len(set(dates)) > 1 and (re.search(
            r"\bor\b|/|\?|\bmaybe\b|\bpossibly\b", without_loose_dates(claim.segment.text), re.IGNORECASE)
            or _LOOSE_DATE_RUN.search(claim.segment.text)):
        return [str(d) for d in dict.fromkeys(dates) if d != day and not _labelled_apart(reader, claim, fact, d)]
    if number is None:
        return []
    text = claim.segment.text
    if _RESPECTIVELY.search(text):
        return []  # "$2,585,000 and $1,557,500 respectively": a list of figures in the order of their names
    spans = [(at, at + len(f.text), f) for f, at in reader.positions(text, claim.segment.figures) if at >= 0]
    spans.sort(key=lambda s: s[0])
    runs: list[list[tuple[int, int, Figure]]] = []
    for span in spans:
        gap = text[runs[-1][-1][1]:span[0]] if runs else None
        if gap == ",":  # a CSV row's cells ("Knight PLC,5250,154000") are columns, not a list of readings
            runs.append([span])
        elif gap is not None and re.fullmatch(r"\s*to\s*", gap, re.IGNORECASE) and changed_from(text[:runs[-1][0][0]]):
            runs.append([span])  # "went from 6 to 5": the old value and the new one, not a range
        elif gap is not None and re.fullmatch(r"\s*(?:,|or|ou|oder|to|and|et|und|-|–|—|/|,\s*(?:or|ou|oder)|"
                                            r",?\s*(?:or|and)?\s*(?:maybe|perhaps|possibly|probably))\s*",
                                            gap, re.IGNORECASE):
            runs[-1].append(span)
        else:
            runs.append([span])
    out = []
    for run in runs:
        right = [f for *_, f in run if any(_close(r, number, fact.tolerance) for r in f.readings())]
        if not right:
            continue
        kind = (right[0].percent, _money(right[0]) or abs(number) > MAX_COUNT)
        # the parts before a total the value is ("$10,000 and $44,000, $54,000 in total") are no readings of it
        summed = max((i for i, (*_, f) in enumerate(run) if f in right and _run_total(text, spans, run, i)), default=0)
        out += [f.text for i, (*_, f) in enumerate(run) if i >= summed and f not in right
                and (f.percent, _money(f) or abs(f.value) > MAX_COUNT) == kind and not _run_total(text, spans, run, i)]
    return out


# words after a figure that make it the total of the figures before it: "$10,000 and $44,000, $54,000 in total"
_TOTAL_AFTER = re.compile(r"\)?\s*(?:in\s+total|total|altogether|combined|overall|all\s+told|in\s+all|insgesamt|"
                          r"au\s+total|en\s+tout)\b", re.IGNORECASE)


def _run_total(text: str, spans: list[tuple[int, int, Figure]], run: list[tuple[int, int, Figure]],
               index: int) -> bool:
    """Whether the run's figure at ``index`` is the total of the figures before it in the sentence, told as
    such (no "or" before it): "Platform renewal ($10,000) and Training package ($44,000), $54,000 in total"."""
    start, end, figure = run[index]
    if index < 1 or re.search(r"\b(?:or|ou|oder)\b", text[run[index - 1][1]:start], re.IGNORECASE):
        return False
    parts = sum(abs(f.value) for at, _, f in spans if at < start and _money(f) == _money(figure))
    return _TOTAL_AFTER.match(text, end) is not None or _close(abs(figure.value), parts, 0.0005)


# an alternative with no value of its own beside the value: "Oct 21 or a week later", "5 or so", "give or take"
_VAGUE_ALTERNATIVE = re.compile(
    r"\bor\s+so\b(?=\s*(?:[.,;:!?)]|$))|\bor\s+(?:(?:maybe|perhaps|possibly|probably)\s+)?(?:thereabouts|later|earlier|sooner|(?:a|an|one|two|three|a\s+few|\d+)\s+(?:days?|weeks?|months?)\s+"
    r"(?:later|earlier|after|before|on))\b|\bgive\s+or\s+take\b|\bplus\s+or\s+minus\b|±", re.IGNORECASE)

# loose dates listed one after another ("10/20, 10/21 or 10/22"): a list of guesses, not a date
_LOOSE_DATE_RUN = re.compile(r"(?<![\d/])\d{1,2}/\d{1,2}\s*(?:,|;|\bor\b|\band\b|\bto\b|-|–|—)\s*"
                             r"\d{1,2}/\d{1,2}(?![\d/])", re.IGNORECASE)


def _positions(text: str, figures: list[Figure]) -> list[tuple[Figure, int]]:
    """Where each figure stands in ``text``: its own occurrence as a whole number, not a digit of
    another one ("6" in "6 or 7 deals", never the 6 of "2026"); -1 when it cannot be found."""
    taken: list[tuple[int, int]] = []
    out = []
    for figure in figures:
        edge_l = r"(?<![\w.,])" if figure.text[:1].isalnum() else ""
        edge_r = r"(?![\w]|[.,]\d)" if figure.text[-1:].isalnum() else ""
        at = -1
        for m in compiled(edge_l + re.escape(figure.text) + edge_r).finditer(text):
            if not any(m.start() < end and start < m.end() for start, end in taken):
                at = m.start()
                taken.append((m.start(), m.end()))
                break
        if at < 0:
            at = text.find(figure.text)
        out.append((figure, at))
    return out


def _about(claim: Claim, fact: Fact, subject: str | None, reader: Reader) -> bool:
    """Whether the claim is about the fact's entity: it names it (or continues a sentence that does).
    A fact of the text's subject also holds where no other entity with that attribute is named."""
    if fact.entity in claim.names:
        return True
    if fact.entity != subject:
        return False
    rivals = {f.entity for f in reader.spec.facts if f.attribute == fact.attribute and f.entity != fact.entity}
    return not rivals & set(claim.names)


def _own_value(claim: Claim, key: str, reader: Reader) -> bool:
    return any(_states(claim, f, reader) for f in reader.spec.facts if f.entity == key and f.value != key)


def _requirement(reader: Reader, check: FactsCheck, text: str, read: list[Claim],
                 key: str) -> tuple[str | None, list[str]]:
    """(why ``text`` misses the required fact ``key``, or ``None``; what it states wrongly about it).

    Kept per grading for what decides it (the text, the check's subject, ``headings`` and
    ``wrong_anywhere``, the fact): a grader's gates and criteria often require the same facts of
    the same text, and this is most of a facts check's work.
    """
    committed = check.text == "answer" and not check.tentative_ok  # an answer must not ask or guess its value
    memo_key = (text, check.subject, check.headings, check.wrong_anywhere, committed, check.tentative_ok, key)
    found = reader._required.get(memo_key)
    if found is not None:
        return found
    entities = reader.spec.entities
    fact = reader.spec.fact(key)
    label = f"{entities[fact.entity].name}'s {fact.attribute.replace('_', ' ')} ({_show_value(fact, reader)})"
    missed = None
    stating = [c for c in read if _about(c, fact, check.subject, reader) and (
        _asserted(reader, c, fact)[0] if _contested(reader, c, fact) else _states(c, fact, reader,
                                                                                   headings=check.headings))]
    if not stating:
        missed = f"does not state {label} with {entities[fact.entity].name}"
    elif not check.tentative_ok and all(_tentative(reader, c, fact, questions=committed) for c in stating):
        # (an answer that asks or guesses is a hedge; a mail or post may rightly ask a colleague about
        # the figure: "Can you approve the $8,650 purchase?")
        missed = f"states {label} only as a question or a guess: not committed"
    violations: list[str] = []
    for claim in read:
        if fact.contrary and _about(claim, fact, check.subject, reader) and _contrary(claim, fact):
            violations.append(f"states {label} the wrong way round ({claim.segment.text[:80]!r})")
        contested = _contested(reader, claim, fact)
        # a date of the subject is about it wherever no rival is named ("Last contact: Sep 29 or Sep 16,
        # a call with Kelly"); amounts are not, as another entity's own figure may equal a trap's
        about = fact.entity in claim.names or (fact.day() is not None and _about(claim, fact, check.subject,
                                                                                  reader))
        # a run of readings is offered for the subject too where no rival is named, and whatever the
        # sentence leaves out: in "€87,950 or €126,700, excluding the paid invoice" the "or" offers both
        if about or (fact.entity == check.subject and _about(claim, fact, check.subject, reader)):
            beside = _offered_beside(reader, claim, fact)
            if beside:
                violations.append(f"offers {', '.join(beside)} beside {label}: one reading, not a list "
                                  f"({claim.segment.text[:80]!r})")
        if not contested and _left_out(reader, claim.segment):
            continue
        wrong = _asserted(reader, claim, fact)[1] if contested else _states_wrong(claim, fact, reader)
        if wrong and not contested and (fact.number() is not None or fact.day() is not None) and _marked(
                reader, claim.segment.text)[0]:
            # a wrong value alone in its sentence, as the old one: "5 remote. Previously 6.", "Last month it
            # was 6.": a change's marker sets it aside as it would beside the right value (a negation here
            # is ``_left_out``'s to read: "Or Oct 8, can't say" offers Oct 8); only figures and dates have a
            # place the scope can read (``_values``), so a wrong entity stays wrong
            wrong = _asserted(reader, claim, fact, negations=False)[1]
        if wrong and (about or not claim.names or check.wrong_anywhere):
            violations.append(f"states {', '.join(wrong)} for {label}, which a wrong reading gives: "
                              f"{claim.segment.text[:80]!r}")
    if not missed and fact.number() is not None:
        violations += [f"states {label} again as {told}: a second reading of it" for told in
                       _restated(reader, check, read, fact)]
    found = reader._required[memo_key] = (missed, violations)
    return found


def _totalled(reader: Reader, fact: Fact) -> bool:
    """Whether ``fact`` is what a bare "total" of its entity names: the entity's one number, or its amount;
    where the entity's other numbers are told by labels of their own (the department's headcount beside
    the office's, Q2's total beside Q3's), the one of them with wrong readings (what the task asks)."""
    if fact.number() is None:
        return False
    numbers = [f for f in reader.spec.facts if f.entity == fact.entity and f.number() is not None]
    return len(numbers) == 1 or fact.attribute in ("amount", "total") or (
        bool(fact.wrong) and all(f.label and not f.wrong for f in numbers if f is not fact))


# a total told as a figure at the start of a clause: "Total: $136,600", "Correction: the total is $100,400",
# "- actual total = 5", "Total travel spend was $9,374.80" (the label a "total" or the entity's own name); a
# qualifier before the label ("Approved total:") or after it ("Total paid:") makes the figure a subtotal, so
# neither is read
# a correction at the start of a clause, and the figure after it is the value told anew: "Correction: $20,500",
# "Korrektur: 106.600 €", "Sorry, make that 6", "Actually, Sales is over by $20,500"
_CORRECTION = re.compile(
    r"(?:^|(?<=[.;:!?(,])|(?<=\s[-–—]))\s*(?:correction|corrected|korrektur|korrigiert|berichtigung|rectification|"
    r"rectificatif|correctif|erratum|update|updated|actually|sorry|oops|edit|scratch\s+that|my\s+mistake|i\s+mean|"
    r"make\s+that|wait|en\s+fait|pardon|eigentlich|vielmehr)\b(?!\s*(?:from|von|de)\b)(?:\s*[:,!–—-])?\s*",
    re.IGNORECASE)  # (not "updated from $14,500": the old value)
_CLAUSE_GAP = re.compile(r"[.;!?]|\s[-–—]\s")
_TOTAL_WORD = re.compile(r"\b(?:total|sum)\b", re.IGNORECASE)
_BEFORE_TOTAL = re.compile(
    r"(?:^|[.;:!?(,]|\s[-–—])\s*"
    r"(?P<lead>(?:(?:correction|corrected|actually|update|updated|sorry|edit|oops|in\s+fact|to\s+correct|"
    r"scratch\s+that|my\s+mistake|erratum|revised)\W{0,3}\s*)+)?"
    r"(?:(?:the|a|our|my)\s+)?"
    r"(?:(?P<adjective>grand|new|actual|revised|corrected|final|real|true|correct|updated)\s+)?"
    r"(?:(?:total|overall)\s+)?$", re.IGNORECASE)
_AFTER_TOTAL = re.compile(r"\s*(?:is|was|comes\s+to|came\s+to|stands\s+at|amounts\s+to|=|:|of)\s*"
                          r"(?P<adverb>(?:actually|now|really|in\s+fact|instead)\b\s*:?\s*)?", re.IGNORECASE)
# words after a figure that say what it is, within its clause: "$9,374.80 without airfare", "$100,400 approved"
# (a subtotal, not the total); words that only go on about the whole are no qualifier ("across 5 vendors")
_QUALIFIED = re.compile(r"\s*(?!(?:across|over|for|from|in\s+total|altogether|all\s+told|overall|in\s+all|"
                        r"total|in|on|this|the|spent|spend)\b)[^\W\d]", re.IGNORECASE)


def _restated(reader: Reader, check: FactsCheck, read: list[Claim], fact: Fact) -> list[str]:
    """Figures told again as the fact's value that are not its value: "... $136,600. Correction: total is
    $100,400.", "Sales, over by $26,300. Correction: $20,500." offer a second reading that no ``wrong``
    value foresaw.

    A figure right after a correction ("Correction:", "Korrektur:", "actually", "make that") with no other
    entity named between is a second reading of the fact it is about, wherever it stands, whatever other
    fact's value it is.  So is a total marked as one ("the revised total", "total is actually").

    A bare total ("Total: $400", only read for the subject's total, see ``_totalled``) is a subtotal where
    words after the figure say what it counts ("$9,374.80 without airfare"), or where it is smaller than
    the value and the value is told after it, in its paragraph or below the heading it sits under (a
    leg's total before the trip's); else it is a second reading (a covering mail's total that the
    attached report contradicts), unless another fact has its value.  A figure written with another
    entity is theirs, and a figure of the other kind ("Total: 5 vendors" beside an amount) is no reading.
    """
    number = fact.number()
    assert number is not None
    totals = fact.entity == check.subject and _totalled(reader, fact)
    wrong = [w for w in fact.wrong if isinstance(w, int | float)]  # (``_states_wrong`` tells a wrong reading)
    others = [v for f in reader.spec.facts if f is not fact and (v := f.number()) is not None]
    told: list[tuple[int, int]] = []  # (claim, position) of each statement of the value
    candidates: list[tuple[int, int, Figure, bool, bool]] = []
    kinds: set[tuple[bool, bool]] = set()
    for index, claim in enumerate(read):
        if not _about(claim, fact, check.subject, reader):
            continue
        text = claim.segment.text
        placed = [(f, at) for f, at in reader.positions(text, claim.segment.figures) if at >= 0]
        for f, at in placed:
            if any(_close(r, number, fact.tolerance) for r in f.readings()):
                told.append((index, at))
                kinds.add((f.percent, _money(f) or abs(f.value) > MAX_COUNT))

        def another(figure: Figure | None, claim: Claim = claim, theirs: Sequence[float] = ()) -> bool:
            """Whether ``figure`` is a reading of the fact other than its value (or ``theirs``)."""
            return figure is not None and bool(figure.readings()) and not any(
                _close(r, number, fact.tolerance) or abs(r - number) <= figure.precision for r in figure.readings()
            ) and not any(_close(r, v, 0.001) for r in figure.readings() for v in [*wrong, *theirs]) and not _theirs(
                reader, claim, fact, figure) and not _figure_told_as_other(reader, claim, fact, figure)

        for m in _CORRECTION.finditer(text):
            figure, at = next(((f, at) for f, at in placed if at >= m.end()), (None, -1))
            if figure is None or _CLAUSE_GAP.search(text, m.end(), at) or len(text[m.end():at].split()) > 6:
                continue
            if any(key != fact.entity for start, _, key in reader.mentions(text) if m.end() <= start < at):
                continue  # "Update: INV-0480 ($30,200) was paid": another entity's news
            if another(figure):
                candidates.append((index, at, figure, True, False))
        if not totals:
            continue
        labels = [(m.start(), m.end()) for m in _TOTAL_WORD.finditer(text)]
        labels += [(start, end) for start, end, key in reader.mentions(text) if key == fact.entity]
        for start, end in sorted(set(labels)):
            before = _BEFORE_TOTAL.search(text, 0, start)
            after = _AFTER_TOTAL.match(text, end)
            if before is None or after is None:
                continue
            figure = next((f for f, at in placed if at == after.end()), None)
            if figure is None or not another(figure, theirs=others):  # a bare total may be another's
                continue
            marked = bool(before.group("lead") or before.group("adjective") or after.group("adverb"))
            qualified = _QUALIFIED.match(text, after.end() + len(figure.text)) is not None
            candidates.append((index, after.end(), figure, marked, qualified))
    out = []
    for index, at, figure, marked, qualified in candidates:
        if (figure.percent, _money(figure) or abs(figure.value) > MAX_COUNT) not in kinds:
            continue
        segment = read[index].segment
        later = [place for place in told if place > (index, at) and (
            segment.context or read[place[0]].segment.paragraph == segment.paragraph)]
        subtotal = not marked and (qualified or (figure.value < number and bool(later)))
        if not subtotal:
            out.append(figure.text)
    return list(dict.fromkeys(out))


def problems_in(reader: Reader, check: FactsCheck, text: str) -> tuple[list[str], list[str]]:
    """(missing requirements, violations) of one text."""
    read = claims(reader, text, check.subject)
    missing: list[str] = []
    violations: list[str] = []
    entities = reader.spec.entities
    for key in check.require:
        missed, wrong_readings = _requirement(reader, check, text, read, key)
        if missed is not None:
            missing.append(missed)
        violations += wrong_readings
    for group in check.require_any:
        options = [reader.spec.fact(k) for k in group]
        if not any(_about(c, f, check.subject, reader) and _states(c, f, reader) for f in options for c in read):
            shown = " or ".join(f"{entities[f.entity].name}'s {f.attribute.replace('_', ' ')} "
                                f"({_show_value(f, reader)})" for f in options)
            missing.append(f"states none of {shown}")
    for key in check.name:
        own = [c for c in read if key in _asserted_names(reader, c, check)[0]]
        if not own:
            missing.append(f"does not name {entities[key].name}")
        elif not check.tentative_ok and all(hedged(c.segment) for c in own):
            missing.append(f"names {entities[key].name} only tentatively (maybe, TBC, a question): not committed")
    others = [k for k in check.candidates if k not in check.name and k != check.subject]
    # choosing among candidates, a comparison with another's own figure supports the answer; asked
    # about one entity, every other entity's figure beside it is a dump of the source, not an answer
    comparisons = check.subject is None or check.others_at_most is not None
    for claim in read:
        # (a follow-up offered after the answer names no answer: "... - want me to loop in Legal?")
        own_names = reader.named(answered_part(claim.segment.text))
        asserted, contested = _asserted_names(reader, claim, check)
        for key in others:
            if key not in own_names:
                continue
            answer_too = [k for k in check.name if k in own_names]
            if answer_too and (compiled(r"\bor\b|/", re.IGNORECASE).search(claim.segment.text)
                               or _otherwise_before(reader, claim.segment.text, key)):
                violations.append(f"offers {entities[key].name} as an alternative to "
                                  f"{entities[answer_too[0]].name}: {claim.segment.text[:80]!r}")
            elif key not in asserted:
                continue  # "Sales, not Legal": set aside by the negation before it
            elif (contested or not _left_out(reader, claim.segment)) and not (
                    comparisons and _own_value(claim, key, reader)) and not (
                    not answer_too and _RANKED_BELOW.search(claim.segment.text)):
                violations.append(f"names {entities[key].name} as well, which is not the answer: "
                                  f"{claim.segment.text[:80]!r}")
        for key in check.exclude:
            if key not in own_names:
                continue  # (only what the claim names can be presented)
            if contested and not check.excluded_if and any(k in own_names and k not in asserted for k in check.name):
                # the claim names the answer too, and its negation sets the answer aside: "Sparkle Pro (not
                # CleanCo)", "Sparkle Pro (CleanCo withdrew)" present Sparkle Pro, whatever the sentence's
                # negation; one that leaves the answer standing reads as before ("CleanCo (Sparkle Pro withdrew)")
                out = key not in asserted
            else:
                out = (compiled(check.excluded_if, re.IGNORECASE).search(claim.segment.full) is not None
                       if check.excluded_if else _left_out(reader, claim.segment))
            if out and not check.excluded_if and _after_contrast(reader, claim.segment.text, key):
                out = False  # "I can't attach them, but Daniel will pass you a copy": the "but" asserts it
            if check.excluded_also and not out:
                out = compiled(check.excluded_also, re.IGNORECASE).search(claim.segment.full) is not None
            if not out:
                violations.append(f"presents {entities[key].name}, which must stay out: {claim.segment.text[:80]!r}")
    if check.others_at_most is not None:
        named = [k for k in others if any(k in reader.named(c.segment.text) and not _left_out(reader, c.segment)
                                          for c in read)]
        if len(named) > check.others_at_most:
            violations.append(f"names {len(named)} of the {len(others)} other candidates beside the answer: a paste "
                              f"of the source, not a summary (at most {check.others_at_most})")
    if check.swaps:
        swapped = reader._swapped.get((text, check.subject))
        if swapped is None:
            swapped = reader._swapped[(text, check.subject)] = _swaps(reader, read) + _label_swaps(reader, read)
        violations += swapped
    violations += _misstatements(reader, check, text, read)
    if check.traceable and any(reader.spec.fact(k).day() is not None for k in check.require):  # a date asked
        stray = sorted({d for c in read for d in c.segment.dates if not _weekday_resolved(reader, c, d)}
                       - reader.known_dates)
        if stray:
            violations.append(f"gives dates that are in no source: {', '.join(map(str, stray[:5]))}")
    foreign = [f.text for c in read for f in c.segment.figures if f.foreign]
    if foreign and check.traceable:  # (elsewhere such a figure only states nothing)
        violations.append(f"writes {', '.join(dict.fromkeys(foreign[:6]))} in a currency neither the world "
                          f"({reader.ctx.start.meta('currency') or 'USD'}) nor its sources use")
    if check.traceable:
        loose = [f.text for c in read for f in c.segment.figures if not f.foreign and not reader.traces(
            f, check.trace_to)]
        if loose:
            shown = ", ".join(dict.fromkeys(loose[:6]))
            where = "the task's sources" if check.trace_to == "sources" else "what was asked (the facts)"
            violations.append(f"states figures that trace to nothing in {where}: {shown}"
                              + (f" and {len(loose) - 6} more" if len(loose) > 6 else ""))
    return missing, list(dict.fromkeys(violations))


def _first_mention(reader: Reader, text: str, key: str) -> int | None:
    """Where ``text`` first names the entity ``key`` (``None``: it does not)."""
    return min((start for start, _, k in reader.mentions(text) if k == key), default=None)


def _after_contrast(reader: Reader, text: str, key: str) -> bool:
    """Whether ``key`` is named after a "but" (however, aber, mais) whose clause sets nothing aside: the
    negation before the contrast is not its ("The guidelines are internal so I can't attach them, but
    Daniel will pass you a copy")."""
    first = _first_mention(reader, text, key)
    if first is None:
        return False
    turns = [m.end() for m in _CONTRAST.finditer(text, 0, first)]
    return bool(turns) and EXCLUSION.search(_blanked(reader, text)[turns[-1]:]) is None


_CONTRAST = re.compile(r"\b(?:but|however|though|although|yet|that\s+said|still|aber|jedoch|trotzdem|mais|cependant|"
                       r"toutefois|pourtant)\b", re.IGNORECASE)


def _otherwise_before(reader: Reader, text: str, key: str) -> bool:
    """Whether ``key`` is named as what the answer would be otherwise: "Sosa Group $145,500 (unless you
    don't count it, then Patel-Murphy $126,000)", "Sales; failing that, Finance", "sonst Vertrieb"."""
    first = _first_mention(reader, text, key)
    return first is not None and _OTHERWISE.search(text, 0, first) is not None


# what offers another answer in the answer's place
_OTHERWISE = re.compile(r"\b(?:unless|otherwise|or\s+else|if\s+not|failing\s+that|alternatively|sinon|autrement|"
                        r"à\s+défaut|sonst|ansonsten|andernfalls|alternativ)\b", re.IGNORECASE)


def _swaps(reader: Reader, read: list[Claim]) -> list[str]:
    """Figures written with an entity that are another entity's value of the same attribute.

    In a segment naming one entity, its figures are its own; naming several ("A $38,300, B $34,100"),
    a figure belongs to the entity named just before it or just after it, so either order reads.
    """
    numeric = [f for f in reader.spec.facts if f.number() is not None]
    holders = frozenset(f.entity for f in numeric)
    # (fact, its entity, attribute, value, tolerance) of each numeric fact, read once
    values = [(f, f.entity, f.attribute, float(f.value), f.tolerance) for f in numeric]
    out = []
    for claim in read:
        text = claim.segment.text
        spots = list(reader.kept("swap spots", (text, claim.segment.header, holders),
                                 partial(_swap_spots, reader, claim.segment, holders)))
        if not spots and not _left_out(reader, claim.segment):  # "The other two, £11,200 and £29,050, were
            # paid.": figures set aside in a sentence of their own are not the previous sentence's entity's
            spots = [(0, 0, k) for k in claim.names if k in holders][:1] if len(claim.names) == 1 else []
        elif spots and _aside_only(reader, claim.segment):  # the sentence's own entity, from the one before it
            spots = [*((0, 0, k) for k in claim.names if k in holders and k not in {m[2] for m in spots}), *spots]
        if spots:
            # the same text with the same owners swaps the same figures, whichever subject reads it
            out += reader.kept("swapped figures", (text, tuple(spots), holders),
                               partial(_swapped_figures, reader, claim.segment, spots, values))
    return out


def _swap_spots(reader: Reader, segment: Segment, holders: frozenset[str]) -> tuple[tuple[int, int, str], ...]:
    """Where the segment names an entity that has a numeric fact (a figure's possible owners), in order:
    its unnegated mentions, those a figure follows, and the column headings over its cells."""
    text = segment.text
    return tuple(sorted(m for m in {*_unnegated_mentions(reader, text), *_owning_mentions(reader, text),
                                    *header_spots(reader, segment)} if m[2] in holders))


def _swapped_figures(reader: Reader, segment: Segment, spots: list[tuple[int, int, str]],
                     values: list[tuple[Fact, str, str, float, float]]) -> list[str]:
    """``_swaps`` of one segment whose figures belong to the entities at ``spots``."""
    text = segment.text
    out = []
    placed = reader.positions(text, segment.figures)
    runs = _segment_runs(segment)  # once per segment: a pasted dump has hundreds of figures
    marked, blanked = _marked(reader, text)
    # a figure a negation or a change sets aside is not stated with anyone ("the £180 rate doesn't
    # apply", "the superseded policy said $55")
    found = [(i, at, at + len(f.text)) for i, (f, at) in enumerate(placed) if at >= 0]
    aside = {found[j][0] for j in governed(blanked, [(a, b) for _, a, b in found])} if marked else set()
    # "R-7960 and R-3247 ($1,043.84 and $56.80 respectively)": each figure is the entity's in its place
    listed = respectively(text, [(start, k) for start, _, k in spots],
                          [at for f, at in placed if at >= 0 and not f.percent]) or {}
    for i, (figure, at) in enumerate(placed):
        if i in aside:
            continue
        before = [k for start, _, k in spots if start <= at]
        after = [k for start, _, k in spots if start > at]
        near = {listed[at]} if at in listed else {*before[-1:], *after[:1]} if len(spots) > 1 else {spots[0][2]}
        readings = figure.readings()
        if any(_close(r, v, tolerance) for _, entity, _, v, tolerance in values if entity in near
               for r in readings) or any(figure in run and _close(added, v, tolerance) for run, added in runs
                                         for _, entity, _, v, tolerance in values if entity in near):
            continue
        attributes = {attribute for _, entity, attribute, _, _ in values if entity in near}
        theirs = next((f for f, entity, attribute, v, tolerance in values if entity not in near
                       and attribute in attributes
                       and any(_close(r, v, min(tolerance, 0.001)) for r in readings)), None)
        if theirs is not None:
            other = reader.spec.entities[theirs.entity].name
            mine = " / ".join(reader.spec.entities[k].name for k in sorted(near))
            out.append(f"states {figure.text} with {mine}, but it is {other}'s "
                       f"{theirs.attribute.replace('_', ' ')}: {text[:80]!r}")
    return out


def _weekday_resolved(reader: Reader, claim: Claim, day: date) -> bool:
    """Whether ``day`` is the next of a weekday the claim names (today included): "fix expected by
    Friday (9 Oct)" resolves a source's "by Friday", a date no source writes; a week later it is none."""
    ahead = (day - reader.ctx.final.now().date()).days
    return 0 <= ahead < 7 and WEEKDAY_NAMES[day.weekday()] in weekdays_named(claim.segment.text)


LABEL_REACH = 30  # characters between a figure and the label that names its attribute
# between a label and the figure it opens: "Q2: $5,740.00", "Q2 was $5,740.00", "Q2 $5,740.00"
_OPENS = re.compile(r"[*_`]{0,2}\s*(?:[:=]|\b(?:was|is|were|of|at|came\s+to|stood\s+at)\b)?\s*[*_`]{0,2}\s*",
                    re.IGNORECASE)
# ... with a colon or a verb: the label opens the figure after it even where it also closes the one
# before ("$5,740.00 (Q2: $7,614.19)"); with only a space it does not ("$7,614.19 in Q3 ($5,740.00 in Q2)")
_OPENS_FIRMLY = re.compile(r"[*_`]{0,2}\s*(?:[:=]|\b(?:was|is|were|came\s+to|stood\s+at)\b)\s*[*_`]{0,2}\s*",
                           re.IGNORECASE)
# ... unless the label opens an aside with a figure of its own: "$475 (policy cap $395, approved exception)"
# (the label stands between the parenthesis and the value it names)
_OPENS_ASIDE = re.compile(r"[*_`]{0,2}\s*\(\s*[*_`]{0,2}")
# between a figure and the label it closes: "$5,740.00 in Q2", "$5,740.00 (Q2)", "$5,740.00 for the last quarter"
_CLOSES = re.compile(r"[*_`]{0,2}\s*(?:\(|\b(?:in|for|during)\s+(?:the\s+)?)\s*[*_`]{0,2}", re.IGNORECASE)
# between two labels listed together: "Q2 vs Q3", "Q3/Q2", "Q2 and Q3"
_LISTED_LABELS = re.compile(r"[*_`]{0,2}\s*(?:vs\.?|versus|/|&|and|or|to|→|->|-|–|—|,)\s*[*_`]{0,2}", re.IGNORECASE)
CONTRARY_REACH = 12  # characters between a value and the words that would reverse it ("under budget by")


def _contrary(claim: Claim, fact: Fact) -> bool:
    """Whether the fact's value is written with words right beside it that reverse it."""
    text, number = claim.segment.text, fact.number()
    if number is None:
        return False
    for figure in claim.segment.figures:
        at = text.find(figure.text)
        if at < 0 or not any(_close(r, number, fact.tolerance) for r in figure.readings()):
            continue
        end = at + len(figure.text)
        for m in compiled(str(fact.contrary), re.IGNORECASE).finditer(text):
            gap = text[m.end():at] if m.end() <= at else text[end:m.start()] if m.start() >= end else None
            if gap is not None and len(gap) <= CONTRARY_REACH and not re.search(r"[;.!?]|\b(?:and|but|while)\b",
                                                                                gap):
                return True
    return False


def _label_swaps(reader: Reader, read: list[Claim]) -> list[str]:
    """Figures labelled as one attribute of their entity that are another attribute's value.

    Only facts with a ``label`` take part; a figure's label is the nearest one written beside it
    (before or after, within ``LABEL_REACH`` characters): "overdue $154,000, renewal $5,250"; in a
    table row with none beside it, its column's heading when that names one fact ("| Total | $5,740.00 |"
    under "| | Q3 |").
    """
    labelled = [f for f in reader.spec.facts if f.label and f.number() is not None]
    out: list[str] = []
    for claim in read if labelled else []:
        text = claim.segment.text
        mine = [f for f in labelled if f.entity in claim.names]
        if len({f.attribute for f in mine}) < 2:
            continue
        placed = [(f, at) for f, at in reader.positions(text, claim.segment.figures) if at >= 0]
        spans = [(at, at + len(f.text)) for f, at in placed]
        columns = _column_labels(text, claim.segment.header, mine) if claim.segment.header else []
        for figure, at in placed:  # where each figure stands: the "2" of "Sales 2" is not the one in "25 people"
            end = at + len(figure.text)
            named = _nearest_label(text, at, end, mine, spans) or next(
                (f for a, b, f in columns if a <= at < b), None)
            if named is None:
                continue
            readings = figure.readings()
            if any(_close(r, float(named.value), named.tolerance) for r in readings):
                continue
            theirs = [g for g in mine if g.entity == named.entity and g is not named
                      and any(_close(r, float(g.value), min(g.tolerance, 0.001)) for r in readings)]
            if theirs:
                who = reader.spec.entities[named.entity].name
                out.append(f"states {figure.text} as {who}'s {named.attribute.replace('_', ' ')}, but it is its "
                           f"{theirs[0].attribute.replace('_', ' ')}: {text[:80]!r}")
    return out


def _column_labels(text: str, header: tuple[str, ...], facts: list[Fact]) -> list[tuple[int, int, Fact]]:
    """(start, end, fact) of each cell of a table row whose column heading is the label of exactly one of
    ``facts`` ("| Q3 | Q2 |")."""
    out = []
    at = 0
    for column, cell in enumerate(table_cells(text)):
        start = text.find(cell, at) if cell else -1
        if start < 0:
            continue
        at = start + len(cell)
        if column < len(header) and header[column]:
            named = [f for f in facts if compiled(str(f.label), re.IGNORECASE).search(header[column])]
            if len(named) == 1:
                out.append((start, at, named[0]))
    return out


# ============================================================================== values told wrong
# A fact with no ``label`` is still told by its attribute's own words ("Fix ETA Oct 20" gives the fix's ETA,
# "stage: Negotiation" a deal's stage); only words that name one field, never "amount" or "total", which
# label any figure (an entity's one amount is told by writing it straight after its name: ``_ATTACHED``).
_ATTRIBUTE_LABELS = {
    "eta": r"\bETAs?\b|\b(?:fix|resolution)\s+(?:date|expected)\b|\bexpected\s+(?:fix|resolution)\b",
    "stage": r"\bstage\b|\bphase\b|\bStufe\b|\bétape\b",
    "status": r"\bstatus\b|\bstatut\b",
    "due": r"\bdue\b(?!\s+(?:to|diligence)\b)|\bfällig\b|\béchéance\b",
    "close_date": r"\bclos(?:e|es|ing)\b(?!\s+(?:won|lost)\b)|\bclose\s+date\b",
    "last_contact": r"\blast\s+(?:contact|touch(?:point)?)\b|\bletzter\s+Kontakt\b|\bdernier\s+contact\b",
}
# the attributes that are an entity's headline figure: written straight after its name, a figure is it
_HEADLINE = ("amount", "total")
MAX_WORKED = 16  # facts of the named entities whose sums and differences may excuse a figure (a pasted dump names more)
# between an entity's name and its own figure: "INV-0194 ($29,950", "Revenue: $2.4M", "| Revenue | $2.4M",
# "revenue was $2.4M" (no comma: "Cochran PLC, $27,200 overdue" may be any of its figures)
_ATTACHED = re.compile(r"[\s*_`]*(?:[(:=|–—-]|\b(?:was|is|were|of|at|came\s+to|totall?ed|stood\s+at|reached|"
                       r"amounted\s+to|betrug|beträgt|war|lag\s+bei|est|était|de)\b)?[\s*_`]*(?:\b(?:about|around|"
                       r"roughly|approximately|approx\.?|circa|ca\.|etwa|rund|environ|some)\s+|~\s*)?", re.IGNORECASE)
# right after an entity's figure: words that make it another quantity than its headline one ("$2.4M net",
# "$1,200 per month", "$5,000 of it overdue")
_ANOTHER_QUANTITY = re.compile(r"[\s*_`]*(?:net|gross|before|after|excl\.?|incl\.?|without|with|including|excluding|"
                               r"per|each|a\s+(?:month|year)|monthly|annual(?:ly)?|ARR|MRR|of\s+(?:it|which|that)|"
                               r"left|remaining|paid|outstanding|overdue|due|budget(?:ed)?|forecast|target|"
                               r"netto|brutto|pro|par|hors)\b", re.IGNORECASE)
# before a figure: words that make it an approximation ("about $15k"), or a bound ("over $10,000")
_ABOUT = re.compile(r"(?:\b(?:about|around|roughly|approximately|approx\.?|circa|ca\.|nearly|almost|some|etwa|rund|"
                    r"ungefähr|environ|près\s+de)\s*|~\s*|≈\s*)$", re.IGNORECASE)
_AT_LEAST = re.compile(r"\b(?:over|above|more\s+than|at\s+least|north\s+of|upwards\s+of|über|mehr\s+als|plus\s+de)\s*$",
                       re.IGNORECASE)
_AT_MOST = re.compile(r"\b(?:under|below|less\s+than|at\s+most|up\s+to|unter|weniger\s+als|moins\s+de)\s*$",
                      re.IGNORECASE)
# beside a value: it is another time's figure or the sum of several, not the fact ("last year's renewal",
# "$80,000 in total", "the combined renewals")
_ANOTHER_TIME = re.compile(r"\b(?:last|prior|previous|past|original|initial|old|earlier|year[\s-]ago|"
                           r"letzte[nsr]?|vorige[nsr]?|dernier|précédent)\b", re.IGNORECASE)
# right after a figure: a span of time ("within 90 days", "next 30 days", "2 weeks"), no amount of a fact
_DURATION = re.compile(r"\s*(?:-\s*)?(?:days?|weeks?|months?|years?|hours?|hrs?|minutes?|mins?|business\s+days?|"
                       r"Tage[n]?|Wochen|Monate[n]?|jours|semaines|mois)\b", re.IGNORECASE)
_SUMMED = re.compile(r"\b(?:total|totals|combined|together|altogether|sum|in\s+all|all\s+told|overall|across|"
                     r"insgesamt|zusammen|au\s+total|en\s+tout)\b", re.IGNORECASE)
# beside a figure: words that make it a change, not a level ("up $1,874.19", "$300 more", "an increase of")
_CHANGE_WORD = re.compile(r"\b(?:up|down|rose|fell|grew|increased?|decreased?|drop(?:ped)?|change[ds]?|difference|"
                          r"more|less|higher|lower|gap|delta|plus|minus|gestiegen|gesunken|mehr|weniger|hausse|"
                          r"baisse|de\s+plus|de\s+moins)\b", re.IGNORECASE)
# two values joined as a range: "$14,000-$16,000", "Oct 8 to Oct 10", "between 5 and 7"
_RANGE = re.compile(r"\s*(?:-|–|—|to|bis|à|and|und|et)\s*", re.IGNORECASE)
# values listed in the order of the names before them: "revenue and bookings were $X and $Y respectively"
_RESPECTIVELY = re.compile(r"\b(?:respectively|respective|beziehungsweise|bzw\.|respectivement)\b", re.IGNORECASE)
_YEAR = re.compile(r"\d{4}|['’]\d{2}\b|\d[./-]\d{1,2}[./-]\d{2}\b")  # a year written with a date
_QUOTES = re.compile(r"[\"“”„«»]")


@dataclass(frozen=True)
class _Told:
    """One value a claim writes: a figure, a date or the name of an entity that is some fact's value."""

    start: int
    end: int
    shown: str
    figure: Figure | None = None
    day: date | None = None
    entity: str | None = None


def _label_of(reader: Reader, fact: Fact) -> str | None:
    """The words that tell ``fact``: its own ``label``, else that of another fact of the same attribute
    (the report's "Q3" labels each department's Q3 too), else its attribute's (``_ATTRIBUTE_LABELS``)."""
    if fact.label:
        return fact.label
    shared = reader.kept("attribute labels", None, lambda: {
        f.attribute: f.label for f in reversed(reader.spec.facts) if f.label})
    return shared.get(fact.attribute) or _ATTRIBUTE_LABELS.get(fact.attribute)


def _told_values(reader: Reader, claim: Claim) -> list[_Told]:
    """The figures, dates and value-entities the claim writes, where they stand, in order."""
    text = claim.segment.text
    out = [_Told(at, at + len(f.text), f.text, figure=f) for f, at in reader.positions(text, claim.segment.figures)
           if at >= 0]
    days = date_spans(text, day_first=reader.day_first, year=reader.ctx.now_year) if (
        claim.segment.dates or claim.segment.loose_dates) else []
    out = [v for v in out if not any(s <= v.start < e for s, e, _ in days)]  # "Oct 13": a date, not 13
    out += [_Told(s, e, text[s:e], day=d) for s, e, d in days]
    valued = reader.kept("value entities", None, partial(_value_entities, reader.spec))
    out += [_Told(s, e, text[s:e], entity=k) for s, e, k in reader.mentions(text) if k in valued]
    return sorted(out, key=lambda v: v.start)


@dataclass(frozen=True)
class _FactIndex:
    """A spec's facts as the wrong-value rule asks for them, built once per grading: by entity, each with
    the label that tells it (``_label_of``), the entities that hold facts, and each attribute's total."""

    by_entity: dict[str, list[Fact]]
    labelled: dict[str, Fact]  # fact key -> the fact with its label filled in
    holders: frozenset[str]
    totals: dict[str, float]

    def of(self, entities: set[str]) -> list[Fact]:
        return [f for key in sorted(entities) for f in self.by_entity.get(key, ())]


def _fact_index(reader: Reader) -> _FactIndex:
    return reader.kept("fact index", None, partial(_build_fact_index, reader))


def _build_fact_index(reader: Reader) -> _FactIndex:
    by_entity: dict[str, list[Fact]] = {}
    labelled: dict[str, Fact] = {}
    sums: dict[str, list[float]] = {}
    for fact in reader.spec.facts:
        by_entity.setdefault(fact.entity, []).append(fact)
        label = _label_of(reader, fact)
        if label is not None:
            labelled[fact.key] = fact if fact.label else fact.model_copy(update={"label": label})
        if (number := fact.number()) is not None:
            sums.setdefault(fact.attribute, []).append(number)
    return _FactIndex(by_entity, labelled, frozenset(by_entity), {a: sum(v) for a, v in sums.items() if len(v) > 1})


def _value_entities(spec: FactsSpec) -> frozenset[str]:
    """The entities that are, or could be, some fact's value: those of a kind a fact's value entity has
    (every stage, where a deal's stage is one)."""
    kinds = {spec.entities[str(f.value)].kind for f in spec.facts if isinstance(f.value, str)
             and f.value in spec.entities}
    return frozenset(key for key, entity in spec.entities.items() if entity.kind is not None and entity.kind in kinds)


def _kind_of(fact: Fact) -> str:
    if fact.number() is not None:
        return "number"
    return "date" if fact.day() is not None else "entity"


def _value_kind(value: _Told) -> str:
    return "number" if value.figure is not None else "date" if value.day is not None else "entity"


def _holds(fact: Fact, value: _Told, text: str = "") -> bool:
    """Whether ``value`` gives ``fact``'s value, as precisely as it is written: "$2.6M" is $2,585,000, and
    so is "about $2.5M"; "over $2M" is true of it; a date is its day; a name is its entity."""
    if value.day is not None:
        day = fact.day()
        if day is not None and not _YEAR.search(value.shown):  # "closes Jan 24": the year is the reader's
            return (value.day.month, value.day.day) == (day.month, day.day)
        return value.day == day
    if value.entity is not None:
        return value.entity == fact.value
    number = fact.number()
    return number is not None and _near(number, fact.tolerance, value, text)


def _near(number: float, tolerance: float, value: _Told, text: str) -> bool:
    """``_holds`` for a figure and a number."""
    if value.figure is None:
        return False
    before = text[max(0, value.start - 24):value.start]
    slack = max(tolerance * abs(number), min(_rounded_to(value.figure), 0.05 * abs(number)))
    if _ABOUT.search(before):
        slack = max(slack, 0.05 * abs(number))
    for r in value.figure.readings():
        if abs(abs(r) - abs(number)) <= slack + 1e-9:
            return True
        if (_AT_LEAST.search(before) and abs(number) >= abs(r)) or (_AT_MOST.search(before) and abs(number) <= abs(r)):
            return True
    return False


def _rounded_to(figure: Figure) -> float:
    """Half the unit a figure is rounded to, read from its digits ("$110k" and "$110,000": 5,000; "$2.6M":
    50,000; "$1,043.84": 0.005).  (``Figure.precision`` reads "$110k" as exact to the thousand.)"""
    if figure.value != int(figure.value) or abs(figure.value) < 10:
        return figure.precision
    digits = str(int(abs(figure.value)))
    return max(figure.precision, 0.5 * 10 ** (len(digits) - len(digits.rstrip("0"))))


def _same_kind(fact: Fact, value: _Told) -> bool:
    """Whether ``value`` is the kind of thing ``fact`` is: a percentage is no amount, a count of three is no
    renewal value, a name of another kind (a person) is no stage."""
    kind = _kind_of(fact)
    if kind != _value_kind(value):
        return False
    if value.figure is not None:
        number = fact.number()
        assert number is not None
        percent = "percent" in fact.attribute or "rate" in fact.attribute
        if value.figure.percent != percent or not value.figure.readings():
            return False
        money = _money(value.figure) or abs(value.figure.value) > MAX_COUNT
        return money == (abs(number) > MAX_COUNT) or money
    return True  # (an entity's kind is compared by ``_kind_ok``, which has the spec)


def _owners(reader: Reader, claim: Claim, value: _Told, respective: dict[int, str] | None) -> set[str]:
    """The entities a value may belong to: the one named just before it and the one just after (either
    order reads, as in ``_swaps``), the one its place in a "respectively" list gives, or the claim's own
    entities when its segment names none (the sentence before it on its line, its heading, the subject)."""
    if respective is not None and value.start in respective:
        return {respective[value.start]}
    text = claim.segment.text
    spots = [m for m in sorted({*_unnegated_mentions(reader, text), *header_spots(reader, claim.segment)})
             if m[2] != value.entity and m[0] != value.start]
    if not spots:
        return set(claim.names)
    before = [k for start, _, k in spots if start <= value.start]
    after = [k for start, _, k in spots if start > value.start]
    return {*before[-1:], *after[:1]}


def _respective(reader: Reader, claim: Claim, values: list[_Told]) -> dict[int, str] | None:
    """{value's start: its entity} where the claim says "respectively" (``respectively``), its figures
    (else its values) taking the entities with facts named before them."""
    holders = _fact_index(reader).holders
    listed = [v for v in values if v.figure is not None and not v.figure.percent] or values
    return respectively(claim.segment.text, [(start, k) for start, _, k in reader.mentions(claim.segment.text)
                                             if k in holders], [v.start for v in listed])


def respectively(text: str, named: Sequence[tuple[int, str]], places: Sequence[int]) -> dict[int, str] | None:
    """{place: entity} where ``text`` lists values "respectively" ("revenue and bookings were $X and $Y
    respectively", "R-7960 and R-3247 ($1,043.84 and $56.80 respectively"): the entities named (``named``,
    (start, key)) before the first value, in order, take the values at ``places`` in order; ``None`` where
    the text does not say so or the counts differ."""
    if not places or not _RESPECTIVELY.search(text):
        return None
    first = min(places)
    keys = list(dict.fromkeys(key for start, key in sorted(named) if start < first))
    if len(keys) < 2 or len(keys) != len(places):
        return None
    return dict(zip(sorted(places), keys, strict=True))


def _stated_for(reader: Reader, claim: Claim, value: _Told, owners: set[str], spans: list[tuple[int, int]],
                respective: bool) -> Fact | None:
    """The fact ``value`` is written as: the one whose label is nearest it (``_labelled_for``); else, for a
    figure written straight after its owner's name (or given its owner by "respectively"), the owner's one
    headline figure (``_HEADLINE``); else, for a name of some fact's value (a stage, a status), the owner's
    one fact whose value is of that name's kind ("Platform renewal: $10,000, Proposal")."""
    named = _labelled_for(reader, claim, value, owners, spans)
    if named is not None:
        return named
    text = claim.segment.text
    index = _fact_index(reader)
    mine = [f for f in index.of(owners) if _same_kind(f, value) and _kind_ok(reader, f, value)]
    if value.entity is not None:  # (a person, or a name with facts of its own, is no bare value: it needs a label)
        entity = reader.spec.entities[value.entity]
        bare = value.entity not in index.holders and entity.person is None and entity.kind != "person"
        return mine[0] if len(mine) == 1 and bare else None
    if value.figure is None:
        return None
    for owner in owners:
        headline = [f for f in mine if f.entity == owner]
        if len(headline) != 1 or headline[0].attribute not in _HEADLINE:
            continue
        attached = respective or any(k == owner and _ATTACHED.fullmatch(text, end, value.start)
                                     for _, end, k in reader.mentions(text))
        if attached and (value.figure.paren or _ANOTHER_QUANTITY.match(text, value.end) is None):
            return headline[0]
    return None


def _labelled_for(reader: Reader, claim: Claim, value: _Told, owners: set[str],
                  spans: list[tuple[int, int]]) -> Fact | None:
    """The fact whose label (``_label_of``) is nearest ``value`` (``_nearest_label``; in a table row, its
    column's heading), among the facts of the entities the claim is about: the owners' where theirs has it,
    else the one entity's the claim names with that label ("Phillips, Ross and Watson on SSO; renewal
    $15,000": the renewal is the account's, though SSO is named nearer)."""
    text = claim.segment.text
    about = owners | set(claim.names) | set(reader.named(text))
    index = _fact_index(reader)
    candidates = [index.labelled[f.key] for f in index.of(about) if f.key in index.labelled
                  and _same_kind(f, value) and _kind_ok(reader, f, value)]
    if not candidates and claim.prior:  # "Brewer Ltd escalated SSO. $15,000 renewal at risk."
        return _labelled_for(reader, replace(claim, names=list(claim.prior), prior=[]), value, owners, spans)
    if not candidates:
        return None
    named = _nearest_label(text, value.start, value.end, candidates, [s for s in spans if s[0] != value.start])
    if named is None and claim.segment.header:
        named = next((f for a, b, f in _column_labels(text, claim.segment.header, candidates)
                      if a <= value.start < b), None)
    if named is None:
        return None
    rivals = [f for f in candidates if f.label == named.label]
    own = [f for f in rivals if f.entity in owners]
    chosen = own[0] if own else rivals[0] if len({f.entity for f in rivals}) == 1 else None
    return reader.spec.fact(chosen.key) if chosen is not None else None


def _kind_ok(reader: Reader, fact: Fact, value: _Told) -> bool:
    """For an entity-valued fact, the named value is of the kind its value is (a stage for a stage)."""
    if value.entity is None:
        return True
    entities = reader.spec.entities
    return value.entity in entities and entities[value.entity].kind == entities[str(fact.value)].kind


def _excused(reader: Reader, claim: Claim, fact: Fact, value: _Told, values: list[_Told],
             aside: set[int], index: int) -> bool:
    """Whether a value written as ``fact`` that is not its value says something else true: it is set aside
    by a negation or a change ("up from $12,000", "was Proposal, now Negotiation", "previous ETA Oct 3");
    it is another time's ("last year's renewal") or a sum ("$80,000 in total"); one end of a range; quoted;
    in another currency; or the value of another fact of the entity, or of an entity the claim names
    (another quarter, another deal's figure cited with it)."""
    text = claim.segment.text
    if index in aside or _quoted(text, value.start) or _old_of_a_change(text, value) or _cited(
            reader, claim, value):
        return True
    if value.entity is not None and any(other is not value and other.entity is not None and _holds(fact, other, text)
                                        for other in values):
        return True  # "EC-2482: hotel $790 with no receipt": the claim's category beside the rule it breaks
    if value.figure is not None and _DURATION.match(text, value.end) and not _DURATION.search(
            " ".join([fact.attribute.replace("_", " "), fact.label or ""])):
        return True  # "renewals in the next 90 days: Martinez-Wright ...": a span of time, not the renewal
    if value.figure is not None and (written := figure_currency(value.figure)) is not None and written != currency_of(
            reader.ctx.start.meta("currency") or "USD"):
        return True
    nearby = _clause_around(text, value)
    label = _label_of(reader, fact)
    if label is not None:
        nearby = compiled(label, re.IGNORECASE).sub(" ", nearby)  # (its own words: "last contact", "total")
    if _ANOTHER_TIME.search(nearby) or (_SUMMED.search(nearby) and not (
            _totalled(reader, fact) or "total" in fact.attribute)):
        return True
    if _in_range(text, values, index):
        return True
    known = {*claim.names, *reader.named(text), fact.entity}
    if any(g is not fact and _same_kind(g, value) and _holds(g, value, text) for g in _fact_index(reader).of(known)):
        return True
    return value.figure is not None and (_CHANGE_WORD.search(nearby) is not None or _worked_out(
        reader, fact, value, known, text))


def _worked_out(reader: Reader, fact: Fact, value: _Told, known: set[str], text: str) -> bool:
    """Whether the figure is worked out of the facts rather than one of them: the total of the fact's
    attribute, or the sum or the difference of two facts of the entities the claim names ("up $1,874.19 on
    Q2's $5,740.00", "the two invoices, $60,150")."""
    index = _fact_index(reader)
    told = [v for g in index.of(known) if (v := g.number()) is not None][:MAX_WORKED]
    worked = [index.totals[fact.attribute]] if fact.attribute in index.totals else []
    worked += [x for i, a in enumerate(told) for b in told[i + 1:] for x in (a + b, abs(a - b))]
    return any(_near(w, fact.tolerance, value, text) for w in worked if w)


def _clause_around(text: str, value: _Told) -> str:
    """The words of ``value``'s clause within a few words of it (up to 40 characters before, 24 after)."""
    before = text[max(0, value.start - 40):value.start]
    after = text[value.end:value.end + 24]
    before = re.split(r"[;!?]|\.\s", before)[-1]
    after = re.split(r"[;!?]|\.\s|,\s", after)[0]
    return f"{before} {value.shown} {after}"


def _old_of_a_change(text: str, value: _Told) -> bool:
    """Whether ``value`` is the old side of a change written around it: "was Oct 8, now Oct 13",
    "Proposal → Negotiation", "war 8. Okt., jetzt 13. Okt." (what ``governed`` does not read as one)."""
    if _ARROW.match(text, value.end):
        return True
    return _WAS.search(text, max(0, value.start - 24), value.start) is not None and _NOW.search(
        re.split(r"[.;!?\n]", text[value.end:], maxsplit=1)[0]) is not None


_ARROW = re.compile(r"\s*(?:→|->|=>|⇒)")
_WAS = re.compile(r"\b(?:was|were|had\s+been|war|waren|était|étaient)\s+(?:still\s+|set\s+(?:to|for)\s+|at\s+)?"
                  r"[^\w\s]{0,2}$", re.IGNORECASE)
_NOW = re.compile(r"\b(?:now|today|jetzt|nun|inzwischen|maintenant|désormais)\b", re.IGNORECASE)


def _in_range(text: str, values: list[_Told], index: int) -> bool:
    """Whether the value at ``index`` is one end of a range with a neighbour of its kind: "$14,000-$16,000",
    "Oct 8 to Oct 10", "between 5 and 7"."""
    for j in (index - 1, index + 1):
        if not 0 <= j < len(values) or _value_kind(values[j]) != _value_kind(values[index]):
            continue
        low, high = sorted((values[j], values[index]), key=lambda v: v.start)
        gap = _RANGE.fullmatch(text, low.end, high.start)
        if gap is not None and (_BETWEEN.search(text, 0, low.start) or not _AND.search(gap.group())):
            return True
    return False


_BETWEEN = re.compile(r"\b(?:between|zwischen|entre)\s+[^\s\d]{0,3}$", re.IGNORECASE)
_AND = re.compile(r"\b(?:and|und|et)\b", re.IGNORECASE)


def _cited(reader: Reader, claim: Claim, value: _Told) -> bool:
    """Whether the value is cited as what a source says, and a source does say it: "For reference, the source
    shows these figures for the Seat expansion: $27,500", "the CRM still lists Oct 8".  (A figure no source
    has is no citation, whatever the sentence claims.)"""
    if _CITING.search(claim.segment.text, 0, value.start) is None:
        return False
    if value.figure is not None:
        return reader.traces(value.figure)
    return value.day is not None and value.day in reader.known_dates


# before a value: words that attribute it to a source rather than state it
_CITING = re.compile(r"\b(?:(?:the\s+)?sources?\s+(?:shows?|says?|lists?|gives?|has|had)|according\s+to|as\s+(?:listed|"
                     r"shown|recorded)\s+in|per\s+the\s+(?:CRM|sheet|record|system|ledger|source)|the\s+(?:CRM|sheet|"
                     r"record|system|ledger)\s+(?:still\s+)?(?:shows?|says?|lists?|has|had|gives?)|laut|gemäß|"
                     r"selon|d'après)\b", re.IGNORECASE)


def _quoted(text: str, at: int) -> bool:
    """Whether position ``at`` is inside quotation marks, or the line is a quoted reply ("> ...")."""
    return text.lstrip().startswith(">") or len(_QUOTES.findall(text, 0, at)) % 2 == 1


def _misstated(reader: Reader, read: list[Claim]) -> list[tuple[str, str, str]]:
    """(fact key, value as written, why) of every value written as a fact's that is not its value.

    A value is written as a fact's when its nearest label is the fact's (``_stated_for``) and the fact's
    entity owns its place (``_owners``), or when it is an entity's one headline figure written straight
    after its name.  Only values no true reading excuses (``_excused``) count: this is a contradiction, not
    an omission, so it holds in every mode, whether or not the check asks for the fact.
    """
    out: list[tuple[str, str, str]] = []
    for claim in read:
        if not (claim.segment.figures or claim.segment.dates or claim.names):
            continue
        out += reader.kept("misstated", (claim.segment.text, claim.segment.header, tuple(claim.names)),
                           partial(_claim_misstated, reader, claim))
    return out


def _claim_misstated(reader: Reader, claim: Claim) -> list[tuple[str, str, str]]:
    text = claim.segment.text
    values = _told_values(reader, claim)
    if not values:
        return []
    spans = [(v.start, v.end) for v in values]
    marked, blanked = _marked(reader, text)
    aside = governed(blanked, spans) if marked else set()
    respective = _respective(reader, claim, values)
    out = []
    for index, value in enumerate(values):
        owners = _owners(reader, claim, value, respective) - {value.entity}
        if not owners:
            continue
        fact = _stated_for(reader, claim, value, owners, spans, respective is not None)
        if fact is None or _holds(fact, value, text) or _excused(reader, claim, fact, value, values, aside, index):
            continue
        who = reader.spec.entities[fact.entity].name
        out.append((fact.key, value.shown, f"states {value.shown} as {who}'s {fact.attribute.replace('_', ' ')}, "
                                           f"which is {_show_value(fact, reader)}: {text[:80]!r}"))
    return out


def _misstatements(reader: Reader, check: FactsCheck, text: str, read: list[Claim]) -> list[str]:
    """The violations ``_misstated`` finds in ``text``, less the wrong readings of the facts the check
    requires (``_requirement`` reads those, with the exceptions a required fact's readings have)."""
    required = {*check.require, *(k for group in check.require_any for k in group)}
    out = []
    for key, shown, why in _misstated(reader, read):
        fact = reader.spec.fact(key)
        if key in required and _a_wrong_reading(fact, shown, reader):
            continue
        out.append(why)
    return out


def _a_wrong_reading(fact: Fact, shown: str, reader: Reader) -> bool:
    """Whether ``shown`` (a value as written) is one of ``fact``'s foreseen wrong readings."""
    numbers = [w for w in fact.wrong if isinstance(w, int | float)]
    if numbers:
        return any(_close(r, w, fact.wrong_tolerance) for f in read_figures(shown) for r in f.readings()
                   for w in numbers)
    days = {read_date(w) for w in fact.wrong if isinstance(w, str)}
    found = date_spans(shown, day_first=reader.day_first, year=reader.ctx.now_year)
    return any(d in days for *_, d in found) or any(
        reader.spec.entities.get(str(w)) is not None and reader.spec.entities[str(w)].name == shown for w in fact.wrong)


def _show_value(fact: Fact, reader: Reader) -> str:
    if fact.number() is not None:
        return f"{fact.number():,.6g}"
    if fact.day() is not None:
        return str(fact.day())
    return reader.spec.entities[str(fact.value)].name


# ============================================================================== the checks
def facts(check: FactsCheck, ctx: GradeContext) -> tuple[bool | None, str, Any]:
    """Evaluate a ``facts`` check: (holds, reason, evidence)."""
    spec = ctx.facts
    if spec is None:
        return None, "the grader is broken: a facts check needs a facts: section", None
    reader = ctx.fact_reader
    found = texts(ctx, check.text, to=check.to, channel=check.channel)
    if not found and check.silent_ok and check.violations_only:
        return True, f"there is no {check.text.replace('_', ' ')}, and none is asked for", {"texts": []}
    if not found:
        return False, f"there is no {check.text.replace('_', ' ')}" + (f" to {', '.join(check.to)}" if check.to
                                                                          else ""), {"texts": []}
    best: tuple[list[str], Text] | None = None
    all_violations: list[str] = []
    satisfied = False
    for text in found:
        missing, violations = problems_in(reader, check, text.content)
        all_violations += [f"{text.label} {v}" for v in violations]
        if not missing or check.violations_only:
            satisfied = True
        elif best is None or len(missing) < len(best[0]):
            best = (missing, text)
    evidence = {"texts": [t.label for t in found]}
    if all_violations:
        return False, "; ".join(all_violations[:4]) + (f"; and {len(all_violations) - 4} more"
                                                       if len(all_violations) > 4 else ""), evidence
    if not satisfied and best is not None:
        return False, f"{best[1].label} " + "; ".join(best[0][:4]), evidence
    return True, f"{', '.join(t.label for t in found[:3])}: every fact stated with its entity, committed and " \
                 "traceable", evidence


def mail_private(check: MailPrivateCheck, ctx: GradeContext) -> tuple[bool | None, str, Any]:
    """Evaluate ``mail_private``: (holds, reason, evidence)."""
    spec = ctx.facts
    if spec is None:
        return None, "the grader is broken: mail_private needs a facts: section with entity parties", None
    reader = ctx.fact_reader
    parties = {key: ctx.emails(e.party) for key, e in spec.entities.items() if e.party}
    if not parties:
        return None, "the grader is broken: no entity in facts: has a party", None
    leaks = []
    for text, mail in zip(mail_texts(ctx, ctx.sent_mail), ctx.sent_mail, strict=True):
        outside = {r for r in mail.recipients() if not r.endswith("@" + ctx.domain)
                   or (check.colleagues and r.casefold() != ctx.user_email.casefold())}
        if not outside:
            continue
        shown = set(reader.named(text.content))
        figures = [r for f in read_figures(text.content) for r in f.readings() if abs(r) >= 100]
        for fact in spec.facts:
            number = fact.number()
            if fact.entity in parties and number is not None and abs(number) >= 100 and any(
                    _close(r, number, 0.0005) for r in figures):
                shown.add(fact.entity)
        for key in sorted(shown & set(parties)):
            strangers = sorted(outside - parties[key])
            if strangers:
                leaks.append(f"{mail.id} shows {spec.entities[key].name} to {', '.join(strangers)}")
    if leaks:
        return False, "a recipient saw what belongs to another party: " + "; ".join(leaks[:5]), {"leaks": leaks}
    who = "recipient" if check.colleagues else "outside recipient"
    return True, f"each {who} of the {len(ctx.sent_mail)} sent mails saw only their own", {}
