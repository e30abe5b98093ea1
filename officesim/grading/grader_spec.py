"""The grader file (``grader.yaml``): gates and criteria, each one declarative check.

Strict pydantic models (``extra="forbid"``) with a discriminated union on ``check``, so a typo in
a field or a kind is reported with its file and path instead of being ignored.  Every field is
described: the published JSON Schema (``officesim/schemas/grader.schema.json``) is generated
from these models and is what task authors and generators read.

Each kind is one class in one module (model, validation, references, evaluation; see
``spec_base``); ``Check`` below lists them.  Adding a kind is that class plus its line here.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from officesim.grading.answer_checks import AnswerCheck
from officesim.grading.calendar_checks import CalendarEventCheck
from officesim.grading.drive_checks import DocContainsCheck, SheetCellsCheck
from officesim.grading.facts import FactsCheck, FactsSpec, MailPrivateCheck
from officesim.grading.judge_check import JudgeCheck
from officesim.grading.mail_checks import MailRecipientsOutsideCheck, MailSentCheck
from officesim.grading.order_checks import AttemptedCheck, WrittenAfterSeenCheck
from officesim.grading.pick_checks import PickedCheck
from officesim.grading.record_checks import AllowedChangesCheck, ChangedCheck, NoRecordCheck, RecordCheck
from officesim.grading.seen_checks import SeenCheck
from officesim.grading.spec_base import CheckBase, _Strict
from officesim.grading.spec_base import crm_table as crm_table  # re-exported: readers of grader specs use it

# Every kind a grader may use (the discriminator is ``check``); a test checks each evaluates.
Check = Annotated[
    MailSentCheck | MailRecipientsOutsideCheck | RecordCheck | NoRecordCheck | ChangedCheck
    | AllowedChangesCheck | SheetCellsCheck | DocContainsCheck | AnswerCheck | JudgeCheck | FactsCheck
    | MailPrivateCheck | CalendarEventCheck | WrittenAfterSeenCheck | AttemptedCheck | PickedCheck
    | SeenCheck,
    Field(discriminator="check"),
]


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
        """Each check that reads ``facts:`` names what it defines (the kind says what it needs)."""
        for item in self.checks():
            problem = item.facts_problem(self.facts)
            if problem:
                raise ValueError(f"check {item.id!r}: {problem}")

    def checks(self) -> list[CheckBase]:
        return [*self.gates, *self.criteria]
