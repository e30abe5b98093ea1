"""The ``answer`` check kind: the submitted answer against the expected one, tolerantly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import Field, field_validator, model_validator

from officesim.grading.normalize import (
    contains_phrase,
    extract_dates,
    parse_date,
    stated_numbers,
    text_has_number,
    values_equal,
)
from officesim.grading.spec_base import CheckBase, NumberSpec, Outcome, _number_shorthand_schema, _numbers

if TYPE_CHECKING:
    from officesim.grading.context import GradeContext

# An answer with a ``number`` check may state the figure and a few supporting ones; more reads as
# a list of candidates (a policy that dumps every number it saw must not collect the points).
DEFAULT_MAX_NUMBERS = 4


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

    def evaluate(self, ctx: GradeContext) -> Outcome:
        return _answer(self, ctx)


def _answer(check: AnswerCheck, ctx: GradeContext) -> Outcome:
    given = ctx.answer
    if given is None or not given.strip():
        return Outcome(False, "no answer was submitted", {"answer": given})
    problems = []
    if check.equals is not None and not values_equal(given, check.equals, check.tolerance):
        problems.append(f"the answer is not {check.equals!r}")
    problems += [f"the answer lacks {s!r}" for s in check.contains or [] if not contains_phrase(given, s)]
    if check.number is not None and not text_has_number(given, check.number, check.tolerance):
        problems.append(f"the answer has no number within {check.tolerance:.1%} of {check.number:g}")
    problems += [f"the answer names {s!r}, which is not the answer" for s in check.none_of or []
                 if contains_phrase(given, s)]
    problems += [f"the answer states {n.value:g}, which a wrong reading gives" for n in check.wrong_numbers or []
                 if text_has_number(given, n.value, n.tolerance)]
    cap = check.number_cap()
    if cap is not None:
        figures = stated_numbers(given)
        if len(figures) > cap:
            problems.append(f"the answer states {len(figures)} different figures (at most {cap}): a list of "
                            "candidates is not an answer")
    if check.date is not None:
        wanted = parse_date(check.date)
        if wanted is None:
            return Outcome(None, f"the grader is broken: {check.date!r} is not a date", verdict="error")
        if wanted not in extract_dates(given):
            problems.append(f"the answer does not give the date {wanted.isoformat()}")
    shown = given if len(given) <= 200 else given[:197] + "..."
    if problems:
        return Outcome(False, "; ".join(problems) + f" (answer: {shown!r})", {"answer": given})
    return Outcome(True, f"the answer matches ({shown!r})", {"answer": given})
