"""The ``judge`` check kind: an LLM judge's verdict on a rubric, over the evidence it names.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal

from pydantic import Field, field_validator, model_validator

from officesim.grading.evidence import collect
from officesim.grading.spec_base import CheckBase, Outcome, References, TableRef, crm_table

if TYPE_CHECKING:
    from officesim.grading.context import GradeContext

EVIDENCE_FORM = re.compile(r"^(sent_mail|answer|chat_posts|changed_files|instruction|(doc|sheet|mail|crm):.+)$")


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

    def references(self) -> References:
        forms = [*self.evidence, *self.source]
        return References(tables=tuple(TableRef(crm_table(f), (), f": {f}") for f in forms if f.startswith("crm:")),
                          files=tuple(f.split(":", 1)[1] for f in forms if f.startswith(("doc:", "sheet:"))),
                          rubrics=(self.rubric,) if self.rubric is not None else ())

    def evaluate(self, ctx: GradeContext) -> Outcome:
        return _judge(self, ctx)


def _judge(check: JudgeCheck, ctx: GradeContext) -> Outcome:
    if ctx.judge is None:
        return Outcome(None, "no judge is configured, so this criterion was not judged", verdict="unjudged")
    criterion = ctx.rubrics[check.rubric].render() if check.rubric is not None else str(check.prompt)
    artifacts = collect(ctx, check.evidence, source=False)
    sources = collect(ctx, check.source, source=True)
    try:
        verdict = ctx.judge.evaluate(criterion, artifacts, sources, instruction=ctx.instruction,
                                     penalty=(check.points or 0) < 0)
    except Exception as exc:  # whatever a judge does, grading goes on and says so
        return Outcome(None, f"the judge failed: {type(exc).__name__}: {exc}", verdict="error")
    evidence = {"artifacts": [b.label for b in artifacts], "sources": [b.label for b in sources],
                "cached": verdict.cached}
    if verdict.status == "error":
        return Outcome(None, f"the judge failed: {verdict.reason}", evidence, verdict="error")
    return Outcome(verdict.status == "pass", f"judge: {verdict.reason}", evidence)
