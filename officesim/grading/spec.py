"""The grader file (``grader.yaml``): gates and criteria, each one declarative check.

Strict pydantic models (``extra="forbid"``) with a discriminated union on ``check``, so a typo in
a field or a kind is reported with its file and path instead of being ignored.  Every field is
described: the published JSON Schema (``officesim/schemas/grader.schema.json``) is generated
from these models and is what task authors and generators read.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from officesim.grading.facts import FactsCheck, FactsSpec, MailPrivateCheck
from officesim.grading.spec_base import CheckBase, _check_refs, _Strict
from officesim.grading.spec_base import crm_table as crm_table  # re-exported: task.py reads it here
from officesim.people import check_ref_syntax

MATCH_OPERATORS = ("contains", "not_contains", "in", "not_in", "not", "gt", "gte", "lt", "lte", "regex")
# An answer with a ``number`` check may state the figure and a few supporting ones; more reads as
# a list of candidates (a policy that dumps every number it saw must not collect the points).
DEFAULT_MAX_NUMBERS = 4
EVIDENCE_FORM = re.compile(r"^(sent_mail|answer|chat_posts|changed_files|instruction|(doc|sheet|mail|crm):.+)$")


def _check_values(values: dict[str, Any] | None) -> dict[str, Any] | None:
    """Operator values (``{gt: 5}``) must use one known operator; refs must be well formed."""
    for field_name, value in (values or {}).items():
        if isinstance(value, dict):
            if len(value) != 1 or next(iter(value)) not in MATCH_OPERATORS:
                raise ValueError(
                    f"{field_name}: an operator value has exactly one key among {', '.join(MATCH_OPERATORS)}"
                )
            if "regex" in value:
                re.compile(str(value["regex"]))
        elif isinstance(value, str) and value.startswith("role:"):
            problem = check_ref_syntax(value)
            if problem:
                raise ValueError(f"{field_name}: {problem}")
    return values


class NumberSpec(_Strict):
    """A number that must appear, within a relative tolerance."""

    value: float = Field(description="The expected number (in base units: 4820000, not '48.2L').")
    tolerance: float = Field(0.005, ge=0, description="Relative tolerance; 0.005 accepts rounding to 3 figures.")


def _number_shorthand_schema(schema: dict[str, Any]) -> None:
    """Publish that a plain number may stand for ``{value: n}`` (the before-validator accepts it)."""
    for variant in [schema, *schema.get("anyOf", [])]:
        if variant.get("type") == "array":
            variant["items"] = {"anyOf": [{"type": "number"}, variant["items"]]}


def _numbers(values: list[Any] | None) -> list[Any] | None:
    """Accept plain numbers as shorthand for ``{value: n}``."""
    if values is None:
        return None
    return [{"value": v} if isinstance(v, int | float) and not isinstance(v, bool) else v for v in values]


class MailSentCheck(CheckBase):
    """Holds when between ``min`` and ``max`` mails the acting user sent in the episode match everything."""

    check: Literal["mail_sent"] = Field(description="The kind of check.")
    to: list[str] | None = Field(None, description="Person refs; compared as a set (see to_mode).")
    cc: list[str] | None = Field(None, description="Person refs; compared as a set (see cc_mode).")
    bcc: list[str] | None = Field(None, description="Person refs; compared as a set (see bcc_mode).")
    to_mode: Literal["exact", "includes"] = Field("exact", description="exact: same set; includes: a superset.")
    cc_mode: Literal["exact", "includes"] = Field("exact", description="exact: same set; includes: a superset.")
    bcc_mode: Literal["exact", "includes"] = Field("exact", description="exact: same set; includes: a superset.")
    subject_contains: list[str] | None = Field(None, description="Strings that must all be in the subject.")
    body_contains: list[str] | None = Field(None, description="Strings that must all be in the body.")
    body_matches: str | None = Field(None, description="A regular expression the body must match (search).")
    body_numbers: list[NumberSpec] | None = Field(
        None, description="Numbers that must be written in the body (any format), each within tolerance.",
        json_schema_extra=_number_shorthand_schema,
    )
    attachments: list[str] | None = Field(None, description="Drive file names or ids that must be attached.")
    in_reply_to: str | None = Field(
        None, description="A message id or subject from before the episode: the mail must be in its thread."
    )
    min: int = Field(1, ge=0, description="At least this many sent mails must match.")
    max: int | None = Field(None, ge=0, description="At most this many sent mails may match.")

    _refs = field_validator("to", "cc", "bcc")(_check_refs)
    _nums = field_validator("body_numbers", mode="before")(_numbers)

    @field_validator("body_matches")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        if value is not None:
            re.compile(value)
        return value


class MailRecipientsOutsideCheck(CheckBase):
    """Holds when some mail sent in the episode reaches anyone not in ``allowed``."""

    check: Literal["mail_recipients_outside"] = Field(description="The kind of check.")
    allowed: list[str] = Field(default_factory=list, description="Person refs who may receive mail.")
    domain_ok: bool = Field(False, description="When true, any address in the company's domain is allowed.")

    _refs = field_validator("allowed")(_check_refs)


class RecordCheck(CheckBase):
    """Holds when ``count`` rows (default: at least one) match ``match`` and each has ``expect``."""

    check: Literal["record"] = Field(description="The kind of check.")
    table: str = Field(description="A world table, e.g. crm_deal.")
    match: dict[str, Any] = Field(
        default_factory=dict,
        description="field: value pairs that select rows (tolerant comparison; {gt: 5}-style operators).",
    )
    expect: dict[str, Any] = Field(default_factory=dict, description="field: value pairs each selected row must have.")
    count: int | None = Field(None, ge=0, description="Exactly this many rows must match; default at least one.")
    tolerance: float = Field(1e-6, ge=0, description="Relative tolerance for numbers.")

    _values = field_validator("match", "expect")(_check_values)


class NoRecordCheck(CheckBase):
    """Holds when no row of ``table`` matches ``match``."""

    check: Literal["no_record"] = Field(description="The kind of check.")
    table: str = Field(description="A world table.")
    match: dict[str, Any] = Field(default_factory=dict, description="field: value pairs that select rows.")
    tolerance: float = Field(1e-6, ge=0, description="Relative tolerance for numbers.")

    _values = field_validator("match")(_check_values)


class ChangedCheck(CheckBase):
    """Holds when rows of ``table`` matching ``match`` were changed in the episode (as ``op``)."""

    check: Literal["changed"] = Field(description="The kind of check.")
    table: str = Field(description="A world table.")
    match: dict[str, Any] = Field(
        default_factory=dict, description="field: value pairs the row must have (after the change; deleted: before)."
    )
    op: Literal["insert", "update", "delete", "any"] = Field("any", description="Which kind of change counts.")
    fields: list[str] | None = Field(None, description="For updates: all of these fields must have changed.")
    tolerance: float = Field(1e-6, ge=0, description="Relative tolerance for numbers.")

    _values = field_validator("match")(_check_values)


class AllowedChangesCheck(CheckBase):
    """Holds when nothing changed outside the listed tables (and fields)."""

    check: Literal["allowed_changes"] = Field(description="The kind of check.")
    tables: list[str | dict[str, list[str]]] = Field(
        description="Table names, or {table: [fields]} to allow only updates of those fields (inserts and "
        "deletes of such a table are not allowed)."
    )
    max_rows: int | None = Field(None, ge=0, description="At most this many rows changed in each table.")

    def allowed(self) -> dict[str, list[str] | None]:
        """Table -> allowed fields (``None``: any change)."""
        out: dict[str, list[str] | None] = {}
        for item in self.tables:
            if isinstance(item, str):
                out[item] = None
            else:
                out.update(item)
        return out


class SheetCellsCheck(CheckBase):
    """Holds when a sheet has, for each expected row, a row with those column values."""

    check: Literal["sheet_cells"] = Field(description="The kind of check.")
    file: str = Field(description="The spreadsheet's name or id.")
    sheet: str | None = Field(None, description="The tab name; default: any tab of the file.")
    rows: list[dict[str, Any]] = Field(min_length=1, description="Expected rows as {column header: value}.")
    tolerance: float = Field(1e-6, ge=0, description="Relative tolerance for numbers.")


class DocContainsCheck(CheckBase):
    """Holds when a document contains every string and number."""

    check: Literal["doc_contains"] = Field(description="The kind of check.")
    file: str = Field(description="The document's name or id.")
    contains: list[str] = Field(default_factory=list, description="Strings that must appear (case/space-insensitive).")
    numbers: list[NumberSpec] = Field(default_factory=list, description="Numbers that must appear in any format.",
                                      json_schema_extra=_number_shorthand_schema)

    _nums = field_validator("numbers", mode="before")(_numbers)


class AnswerCheck(CheckBase):
    """Holds when the submitted answer matches every condition given."""

    check: Literal["answer"] = Field(description="The kind of check.")
    equals: str | float | None = Field(
        None, description="The whole answer, tolerant of case, spacing, number formats and comma-list order."
    )
    contains: list[str] | None = Field(None, description="Strings that must all appear in the answer.")
    number: float | None = Field(None, description="A number that must appear in the answer (any format).")
    tolerance: float = Field(0.005, ge=0, description="Relative tolerance for number and equals.")
    date: str | None = Field(None, description="A date (ISO) that must appear in the answer (any spelling).")
    none_of: list[str] | None = Field(
        None, description="Wrong alternatives (other departments, accounts, people): the answer must name none of "
        "them (whole words, case-insensitive). An answer naming every candidate is not an answer.",
    )
    wrong_numbers: list[NumberSpec] | None = Field(
        None, description="Figures a wrong reading of the data gives (a total with the paid invoices, last year's "
        "cap): the answer must state none of them, each within its tolerance.",
        json_schema_extra=_number_shorthand_schema,
    )
    max_numbers: int | None = Field(
        None, ge=1, description=f"At most this many distinct figures may be stated (dates, codes such as "
        f"INV-2026-0042, phone numbers and bare years do not count). Default: {DEFAULT_MAX_NUMBERS} when number "
        "is given (the figure and a few supporting ones), else no limit. A list of candidates fails.",
    )

    _wrong = field_validator("wrong_numbers", mode="before")(_numbers)

    @model_validator(mode="after")
    def _something(self) -> AnswerCheck:
        if self.equals is None and not self.contains and self.number is None and self.date is None:
            raise ValueError("an answer check needs equals, contains, number or date")
        for wrong in self.wrong_numbers or []:
            if self.number is not None and abs(wrong.value - self.number) <= max(wrong.tolerance, self.tolerance) \
                    * abs(self.number):
                raise ValueError(f"wrong_numbers: {wrong.value:g} is within tolerance of the expected number "
                                 f"{self.number:g}")
        named = {" ".join(c.casefold().split()) for c in self.contains or []}
        clash = sorted(n for n in self.none_of or [] if " ".join(n.casefold().split()) in named)
        if clash:
            raise ValueError(f"none_of names what contains expects: {', '.join(clash)}")
        return self

    def number_cap(self) -> int | None:
        """How many distinct figures the answer may state (``None``: any number)."""
        if self.max_numbers is not None:
            return self.max_numbers
        return DEFAULT_MAX_NUMBERS if self.number is not None else None


class JudgeCheck(CheckBase):
    """Holds when an LLM judge says the rubric holds for the evidence."""

    check: Literal["judge"] = Field(description="The kind of check.")
    rubric: str | None = Field(None, description="The name of a rubric in rubrics/.")
    prompt: str | None = Field(None, description="An inline rubric (instead of a named one).")
    evidence: list[str] = Field(
        default_factory=lambda: ["sent_mail", "answer"],
        description="What the agent produced: sent_mail, answer, chat_posts, changed_files, doc:<name>, "
        "sheet:<name>, mail:<subject>, crm:<table> (final state; crm: the rows changed in the episode).",
    )
    source: list[str] = Field(
        default_factory=list,
        description="The data the artifacts must agree with, read from the start state: doc:<name>, "
        "sheet:<name>, mail:<subject>, crm:<table>, instruction.",
    )

    @field_validator("evidence", "source")
    @classmethod
    def _forms(cls, values: list[str]) -> list[str]:
        for value in values:
            if not EVIDENCE_FORM.match(value):
                raise ValueError(
                    f"{value!r} is not an evidence form (sent_mail, answer, chat_posts, changed_files, "
                    "instruction, doc:<name>, sheet:<name>, mail:<subject>, crm:<table>)"
                )
        return values

    @model_validator(mode="after")
    def _one_rubric(self) -> JudgeCheck:
        if (self.rubric is None) == (self.prompt is None):
            raise ValueError("a judge check needs exactly one of rubric (a name in rubrics/) or prompt")
        return self


Check = Annotated[
    MailSentCheck | MailRecipientsOutsideCheck | RecordCheck | NoRecordCheck | ChangedCheck
    | AllowedChangesCheck | SheetCellsCheck | DocContainsCheck | AnswerCheck | JudgeCheck | FactsCheck
    | MailPrivateCheck,
    Field(discriminator="check"),
]
TABLE_CHECKS = (RecordCheck, NoRecordCheck, ChangedCheck)


class GraderSpec(_Strict):
    """``grader.yaml``: gates (all must hold, else the score is 0) and criteria worth points."""

    gates: list[Check] = Field(default_factory=list, description="Checks that must all hold; any failure scores 0.")
    criteria: list[Check] = Field(default_factory=list, description="Checks worth points (negative for penalties).")
    facts: FactsSpec | None = Field(None, description="The scenario's entities, facts and sources, read by facts "
                                    "and mail_private checks.")

    @model_validator(mode="after")
    def _consistent(self) -> GraderSpec:
        seen: set[str] = set()
        for item in [*self.gates, *self.criteria]:
            if item.id in seen:
                raise ValueError(f"check id {item.id!r} is used twice; ids are unique in the file")
            seen.add(item.id)
        for item in self.gates:
            if item.points is not None:
                raise ValueError(f"gate {item.id!r} has points; gates only hold or fail (move it to criteria)")
        for item in self.criteria:
            if not item.points:
                raise ValueError(f"criterion {item.id!r} needs non-zero points")
        if not self.gates and not self.criteria:
            raise ValueError("a grader needs at least one gate or criterion")
        self._facts_consistent()
        return self

    def _facts_consistent(self) -> None:
        """Facts checks name facts and entities that ``facts:`` defines."""
        for item in self.checks():
            if not isinstance(item, FactsCheck | MailPrivateCheck):
                continue
            if self.facts is None:
                raise ValueError(f"check {item.id!r} ({item.check}) needs a facts: section")
            if isinstance(item, MailPrivateCheck):
                if not any(e.party for e in self.facts.entities.values()):
                    raise ValueError(f"check {item.id!r}: mail_private needs entities with a party")
                continue
            keys = {f.key for f in self.facts.facts}
            for key in [*item.require, *(k for group in item.require_any for k in group)]:
                if key not in keys:
                    raise ValueError(f"check {item.id!r}: require names {key!r}, which facts.facts does not "
                                     f"give (known: {', '.join(sorted(keys)) or 'none'})")
            for key in [*item.name, *item.candidates, *item.exclude, *([item.subject] if item.subject else [])]:
                if key not in self.facts.entities:
                    raise ValueError(f"check {item.id!r}: {key!r} is not an entity in facts.entities")

    def checks(self) -> list[CheckBase]:
        return [*self.gates, *self.criteria]
