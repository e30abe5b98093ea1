"""What every check kind shares: ``CheckBase``, the ``Outcome`` of evaluating one, and helpers.

A check kind is one class in one module (``mail_checks``, ``record_checks``, ``drive_checks``,
``answer_checks``, ``judge_check``, ``facts``): its fields (validated when the grader loads),
``references()`` (the tables and columns, files and rubrics it names, checked against the world
schema by ``world_problems``) and ``evaluate(ctx)``.  ``evaluate`` is abstract, so a kind without
an evaluator cannot be instantiated; ``spec.Check`` lists the kinds a grader may use.
"""

from __future__ import annotations

import json
import re
from abc import abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from officesim.grading.normalize import normalize_text
from officesim.person_refs import check_ref_syntax
from officesim.task_setup import check_table_fields

if TYPE_CHECKING:
    from officesim.grading.context import GradeContext
    from officesim.grading.facts import FactsSpec

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


MATCH_OPERATORS = ("contains", "not_contains", "in", "not_in", "not", "gt", "gte", "lt", "lte", "regex")


def _check_regex(value: str, where: str = "") -> str:
    """A regular expression that compiles; ``ValueError`` (named field, the problem, where) when not.

    ``re.error`` is no ``ValueError``: left alone it escapes pydantic and stops every caller.
    """
    try:
        re.compile(value)
    except re.error as exc:
        place = f" at position {exc.pos}" if exc.pos is not None else ""
        prefix = f"{where}: " if where else ""
        raise ValueError(f"{prefix}invalid regular expression {value!r}: {exc.msg}{place}") from None
    return value


def _check_values(values: dict[str, Any] | None) -> dict[str, Any] | None:
    """Operator values (``{gt: 5}``) must use one known operator; refs must be well formed."""
    for field_name, value in (values or {}).items():
        if isinstance(value, dict):
            if len(value) != 1 or next(iter(value)) not in MATCH_OPERATORS:
                raise ValueError(
                    f"{field_name}: an operator value has exactly one key among {', '.join(MATCH_OPERATORS)}"
                )
            if "regex" in value:
                _check_regex(str(value["regex"]), f"{field_name}.regex")
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


MAX_LISTED = 5


@dataclass(frozen=True)
class Outcome:
    """The result of one check: whether it holds, why, and what it looked at.

    ``verdict`` is ``"error"`` or ``"unjudged"`` when no verdict exists (``holds`` is then None).
    """

    holds: bool | None
    reason: str
    evidence: Any = None
    verdict: Literal["verdict", "error", "unjudged"] = "verdict"


def listed(items: list[str]) -> str:
    shown = "; ".join(items[:MAX_LISTED])
    return shown + (f"; and {len(items) - MAX_LISTED} more" if len(items) > MAX_LISTED else "")


def show(value: Any) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def texts_match(actual: str, wanted: str) -> bool:
    return normalize_text(actual) == normalize_text(wanted)


@dataclass(frozen=True)
class TableRef:
    """A world table a check reads, the columns it names, and where in the check (for messages)."""

    table: str
    columns: tuple[str, ...] = ()
    at: str = ""  # appended to the check's location in an error: ".tables", ": crm:deal"


@dataclass(frozen=True)
class References:
    """What a check names outside itself: world tables and columns, Drive files, rubrics."""

    tables: tuple[TableRef, ...] = ()
    files: tuple[str, ...] = ()
    rubrics: tuple[str, ...] = ()


class CheckBase(_Strict):
    """Fields every check has, what it references and its evaluation (one of each per kind)."""

    id: str = Field(pattern=CHECK_ID, description="Unique in the grader file; reports name the check by it.")
    check: str = Field(description="The kind of check.")
    description: str | None = Field(None, description="What the check means, for people reading grades.")
    points: float | None = Field(
        None,
        description="Criteria only: points earned when the check holds (negative: the check describes bad "
        "behaviour). Gates have no points.",
    )

    def references(self) -> References:
        """The tables (and columns), files and rubrics this check names; none unless a kind says so."""
        return References()

    def world_problems(self) -> list[str]:
        """What this check names that the world schema lacks, each as ``"<where>: <problem>"``."""
        problems = []
        for ref in self.references().tables:
            problem = check_table_fields(ref.table, list(ref.columns))
            if problem:
                problems.append(f"{ref.at}: {problem}")
        return problems

    def facts_problem(self, facts: FactsSpec | None) -> str | None:
        """What this check needs of the grader's ``facts:`` section and it lacks (most kinds: nothing)."""
        return None

    @abstractmethod
    def evaluate(self, ctx: GradeContext) -> Outcome:
        """Whether the check holds for the graded episode in ``ctx``, why, and what it looked at."""
