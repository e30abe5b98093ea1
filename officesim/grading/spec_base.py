"""What every grader model shares: strict models and the fields every check has.

Kept apart from ``spec`` so a check kind that lives in its own module (model, validation and
evaluation together, like ``facts``) can build on it while ``spec`` collects every kind.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from officesim.people import check_ref_syntax

CHECK_ID = r"^[a-z0-9][a-z0-9_-]*$"


def crm_table(form: str) -> str:
    """``crm:deal`` and ``crm:crm_deal`` both name the ``crm_deal`` table."""
    name = form.split(":", 1)[1]
    return name if name.startswith("crm_") else f"crm_{name}"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _check_refs(refs: list[str] | None) -> list[str] | None:
    for ref in refs or []:
        problem = check_ref_syntax(ref)
        if problem:
            raise ValueError(problem)
    return refs


class CheckBase(_Strict):
    """Fields every check has."""

    id: str = Field(pattern=CHECK_ID, description="Unique in the grader file; reports name the check by it.")
    check: str = Field(description="The kind of check.")
    description: str | None = Field(None, description="What the check means, for people reading grades.")
    points: float | None = Field(
        None,
        description="Criteria only: points earned when the check holds (negative: the check describes bad "
        "behaviour). Gates have no points.",
    )
