"""A family's scenario as facts: what it planted, written into ``grader.yaml`` under ``facts:``.

A family records, while it plants, every entity the task is about (with the aliases the world
knows), each entity's attributes and values, and the wrong readings its traps produce; its
criteria then ask ``facts`` checks for what the answer, the mail or the doc must state.  The
grading model is in ``officesim/grading/facts.py``; this is only the generators' pen.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from officesim.grading.facts import FactsCheck
from officesim.grading.pick_checks import PickedCheck
from officesim.grading.seen_checks import SeenCheck


def key_of(text: str) -> str:
    """An entity key from a name: 'Hicks, Barnett & Hardin' -> 'hicks_barnett_hardin'."""
    return re.sub(r"[^a-z0-9]+", "_", text.casefold()).strip("_") or "entity"


@dataclass
class FactSheet:
    """The facts of one task instance, in the order they were recorded."""

    sources: list[str] = field(default_factory=list)
    locale: str = "en_US"
    entities: dict[str, dict[str, Any]] = field(default_factory=dict)
    facts: list[dict[str, Any]] = field(default_factory=list)
    figures: list[float] = field(default_factory=list)

    def entity(self, name: str, *, key: str | None = None, aliases: Iterable[str] = (), person: str | None = None,
               kind: str | None = None, party: Sequence[str] | None = None, patterns: Iterable[str] = ()) -> str:
        """Record an entity; returns its key (``key`` or one derived from ``name``)."""
        key = key or key_of(name)
        item: dict[str, Any] = {"name": name}
        extra = [a for a in dict.fromkeys(aliases) if a and a != name]
        if extra:
            item["aliases"] = extra
        if patterns:
            item["patterns"] = list(patterns)
        if person is not None:
            item["person"] = person
        if kind is not None:
            item["kind"] = kind
        if party:
            item["party"] = list(party)
        self.entities[key] = item
        return key

    def fact(self, entity: str, attribute: str, value: float | str, *, wrong: Iterable[float | str] = (),
             tolerance: float | None = None, label: str | None = None, contrary: str | None = None) -> str:
        """Record ``entity.attribute = value`` and the wrong readings; returns the fact's key."""
        item: dict[str, Any] = {"entity": entity, "attribute": attribute,
                                "value": float(value) if isinstance(value, int | float) else value}
        if tolerance is not None:
            item["tolerance"] = tolerance
        if label is not None:
            item["label"] = label
        if contrary is not None:
            item["contrary"] = contrary
        right = item["value"]
        wrongs = []
        for w in wrong:
            w = float(w) if isinstance(w, int | float) else w
            if isinstance(w, float) and isinstance(right, float) and abs(w - right) <= max(
                    tolerance or 0.005, 0.001) * abs(right):
                continue
            if w != right and w not in wrongs:
                wrongs.append(w)
        if wrongs:
            item["wrong"] = wrongs
        self.facts.append(item)
        return f"{entity}.{attribute}"

    def figure(self, *values: float) -> None:
        """Other figures a correct text may state (traceable)."""
        self.figures += [float(v) for v in values if float(v) not in self.figures]

    def render(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.locale != "en_US":
            out["locale"] = self.locale
        out["entities"] = self.entities
        if self.facts:
            out["facts"] = self.facts
        if self.figures:
            out["figures"] = self.figures
        if self.sources:
            out["sources"] = self.sources
        return out


# What "the most" is said of, per question: a superlative within four words of one of these is a pick.
OVERSPEND_WORDS = (r"overspen\w*|overrun\w*|over[\s-]+(?:its\s+|their\s+|the\s+)?(?:budget|plan)|over\s+by|"
                   r"percent\w*|variance|exceed\w*|überschritt\w*|überzogen|dépass\w*")
# (upward: "Sales fell the most" may be true of another department beside the biggest rise)
CHANGE_WORDS = (r"chang\w*|increas\w*|jump\w*|ris(?:e|es|ing|en)|rose|grew|grow\w*|swing|shift\w*|mov(?:e|ed|er|ers)|"
                r"difference|delta|gain\w*|spik\w*|climb\w*|veränder\w*|anstieg|gestiegen|changement|hausse|"
                r"augment\w*|évolution")


def picked_check(check_id: str, text: str, *, name: str, options: Iterable[str], dimension: str,
                 committed: bool = False, unless: str | None = None, to: Sequence[str] | None = None,
                 description: str) -> PickedCheck:
    """A ``picked`` gate: the superlative of ``dimension`` goes to ``name`` among ``options``."""
    item: dict[str, Any] = {"id": check_id, "check": "picked", "description": description, "text": text}
    if to is not None:
        item["to"] = list(to)
    item["name"] = name
    item["options"] = [k for k in dict.fromkeys(options) if k != name]
    item["dimension"] = dimension
    if committed:
        item["committed"] = True
    if unless is not None:
        item["unless"] = unless
    return PickedCheck.model_validate(item)


def seen_gate(*, sources: Sequence[str] | None = None, figures: Iterable[float] | None = None,
              words: Iterable[str] | None = None, every: bool = False) -> SeenCheck:
    """A ``seen`` gate: a tool result of the episode showed a source's figures (the answer was read, not
    remembered from another episode of the same task)."""
    item: dict[str, Any] = {"id": "read_sources", "check": "seen",
                            "description": "The answer rests on data read in this episode: a tool result showed the "
                            "figures of " + ("every" if every else "a") + " source."}
    if sources is not None:
        item["sources"] = list(sources)
    if figures is not None:
        item["figures"] = sorted({round(float(f), 2) for f in figures})
    if words is not None:
        item["words"] = sorted(set(words))
    if every:
        item["every"] = True
    return SeenCheck.model_validate(item)


def facts_check(check_id: str, points: float | None, text: str, *, description: str | None = None,
                require: Iterable[str] = (), require_any: Iterable[Sequence[str]] = (), name: Iterable[str] = (),
                candidates: Iterable[str] = (),
                exclude: Iterable[str] = (), subject: str | None = None, to: Sequence[str] | None = None,
                channel: str | None = None, excluded_if: str | None = None, excluded_also: str | None = None,
                traceable: bool = True, trace_to: str = "sources", others_at_most: int | None = None,
                tentative_ok: bool = False, violations_only: bool = False, wrong_anywhere: bool = False,
                headings: bool = False, silent_ok: bool = False) -> FactsCheck:
    """A ``facts`` check (a gate when ``points`` is None); only the options given are written."""
    item: dict[str, Any] = {"id": check_id, "check": "facts"}
    if points is not None:
        item["points"] = points
    if description:
        item["description"] = description
    item["text"] = text
    if to is not None:
        item["to"] = list(to)
    if channel is not None:
        item["channel"] = channel
    for field_name, values in (("require", require), ("name", name), ("candidates", candidates),
                               ("exclude", exclude)):
        values = list(dict.fromkeys(values))
        if values:
            item[field_name] = values
    groups = [list(g) for g in require_any]
    if groups:
        item["require_any"] = groups
    if excluded_if is not None:
        item["excluded_if"] = excluded_if
    if excluded_also is not None:
        item["excluded_also"] = excluded_also
    if subject is not None:
        item["subject"] = subject
    if others_at_most is not None:
        item["others_at_most"] = others_at_most
    if tentative_ok:
        item["tentative_ok"] = True
    if violations_only:
        item["violations_only"] = True
    if silent_ok:
        item["silent_ok"] = True
    if not traceable:
        item["traceable"] = False
    elif trace_to != "sources":
        item["trace_to"] = trace_to
    if wrong_anywhere:
        item["wrong_anywhere"] = True
    if headings:
        item["headings"] = True
    return FactsCheck.model_validate(item)


# The values a record's state takes, as entities a fact's value may be: each written the ways people say it, so
# a state written for a record that is not its own is a misstatement in any wording ("Acme renewal: Closed Won"
# when it is in Negotiation), and the true one passes however it is put ("negotiating", "in negotiation").
# (No bare "won" or "lost": "won't", "we lost a week" would name them.)
STAGE_WORDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "prospecting": ("Prospecting", ("prospect stage",)),
    "qualification": ("Qualification", ("qualifying",)),
    "proposal": ("Proposal", ()),
    "negotiation": ("Negotiation", ("negotiating", "negotiations")),
    "closed_won": ("Closed Won", ("closed-won", "closed/won")),
    "closed_lost": ("Closed Lost", ("closed-lost", "closed/lost")),
}
INVOICE_STATUS_WORDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "open": ("open", ("unpaid", "not yet paid", "not paid", "outstanding", "overdue", "past due")),
    "paid": ("paid", ("settled", "paid in full")),
    "void": ("void", ("voided", "cancelled", "canceled")),
}


def stage_entities(sheet: FactSheet) -> dict[str, str]:
    """Record every CRM deal stage as an entity of kind ``stage``; {stage id: entity key} for a deal's
    ``stage`` fact (``sheet.fact(deal, "stage", stages[row["stage"]])``)."""
    return {stage: sheet.entity(name, key=f"stage_{stage}", aliases=aliases, kind="stage")
            for stage, (name, aliases) in STAGE_WORDS.items()}


def invoice_status_entities(sheet: FactSheet) -> dict[str, str]:
    """Record every CRM invoice status as an entity of kind ``invoice status``; {status: entity key} for an
    invoice's ``status`` fact.  Entity names are no markers of what is left out ("INV-0480 was paid" no longer
    sets INV-0480 aside by its "paid"): a family whose checks exclude paid invoices says so in their
    ``excluded_also`` (customer_brief's ``PAID_WORDS``)."""
    return {status: sheet.entity(name, key=f"status_{status}", aliases=aliases, kind="invoice status")
            for status, (name, aliases) in INVOICE_STATUS_WORDS.items()}
