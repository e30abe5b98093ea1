"""Reusable judge criteria (``rubrics/*.yaml``): a prompt plus examples of pass and fail.

A rubric is shared by many tasks ("numbers traceable to source data"), so its wording is reviewed
once and every judge call with it is comparable.  Examples are part of the prompt: a judge that
sees one passing and one failing case is far more consistent than one that sees only a rule.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from officesim.errors import SpecError
from officesim.resources import PACKAGED_RUBRICS
from officesim.world_spec import format_validation_error

RUBRICS_DIR = PACKAGED_RUBRICS  # in a checkout: the top-level rubrics/
RUBRIC_NAME = r"^[a-z0-9][a-z0-9_]*$"


class RubricExample(BaseModel):
    """One worked example for the judge."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    evidence: str = Field(description="A short artifact (mail, answer, doc excerpt) as the judge would see it.")
    why: str = Field(description="Why it passes or fails, in one or two sentences.")


class RubricExamples(BaseModel):
    """Examples on both sides of the line."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    passing: list[RubricExample] = Field(alias="pass", min_length=1, description="Artifacts that satisfy the rubric.")
    failing: list[RubricExample] = Field(alias="fail", min_length=1, description="Artifacts that do not.")


class Rubric(BaseModel):
    """A named judge criterion."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=RUBRIC_NAME, description="Equals the file name without .yaml.")
    title: str = Field(description="A one-line summary shown in grades.")
    prompt: str = Field(min_length=20, description="The criterion, stated so that a judge can answer pass or fail.")
    evidence: list[str] = Field(
        default_factory=lambda: ["sent_mail", "answer"],
        description="The evidence this rubric usually needs (a judge check may override it).",
    )
    examples: RubricExamples = Field(description="Worked examples of pass and fail.")

    def render(self) -> str:
        """The rubric as the judge reads it: the criterion, then the examples."""
        lines = [self.prompt.strip(), "", "Examples that PASS:"]
        lines += [f"- {e.evidence.strip()}\n  Why: {e.why.strip()}" for e in self.examples.passing]
        lines += ["", "Examples that FAIL:"]
        lines += [f"- {e.evidence.strip()}\n  Why: {e.why.strip()}" for e in self.examples.failing]
        return "\n".join(lines)


def load_rubric_file(path: Path) -> Rubric:
    """Load and validate one rubric file; ``SpecError`` names the file and the field."""
    try:
        data = yaml.load(path.read_bytes(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # safe; C parser
    except (OSError, yaml.YAMLError) as exc:
        raise SpecError(f"{path} cannot be read as YAML: {exc}") from exc
    try:
        rubric = Rubric.model_validate(data)
    except ValidationError as exc:
        raise SpecError(format_validation_error(str(path), exc)) from exc
    if rubric.name != path.stem:
        raise SpecError(f"{path} is invalid:\n  name: {rubric.name!r} must equal the file name {path.stem!r}")
    return rubric


def load_rubrics(directory: Path = RUBRICS_DIR) -> dict[str, Rubric]:
    """Every rubric in ``directory`` by name."""
    return {path.stem: load_rubric_file(path) for path in sorted(directory.glob("*.yaml"))}


def load_rubric(name: str, directory: Path = RUBRICS_DIR) -> Rubric:
    """The rubric called ``name``; ``SpecError`` listing the known names when it does not exist."""
    path = directory / f"{name}.yaml"
    if not path.exists():
        known = ", ".join(sorted(p.stem for p in directory.glob("*.yaml"))) or "none"
        raise SpecError(f"there is no rubric {name!r} in {directory} (known: {known})")
    return load_rubric_file(path)
