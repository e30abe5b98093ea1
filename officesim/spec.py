"""The world spec: a strict, documented description of the simulated company.

Specs live as YAML in ``worlds/``.  Every field is described so that ``officesim`` can publish a
JSON Schema and point at the field that is wrong.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, field_validator

import officesim.apps  # noqa: F401 - every app registers its size knobs
from officesim.apps.registry import size_knobs
from officesim.errors import SpecError


def _size_model() -> type[BaseModel]:
    """The ``size`` section, built from the size knobs every registered app declares."""
    fields: dict[str, Any] = {
        name: (int, Field(knob.default, ge=knob.ge, le=knob.le, description=knob.description))
        for name, knob in size_knobs().items()
    }
    return create_model("SizeSpec", __config__=ConfigDict(extra="forbid"),
                        __doc__="How big the company is; every count is exact, not an upper bound.", **fields)


if TYPE_CHECKING:

    class SizeSpec(BaseModel):
        """How big the company is (its fields are the apps' size knobs, each an int)."""

        def __getattr__(self, name: str) -> int: ...

else:
    SizeSpec = _size_model()


class WorldSpec(BaseModel):
    """A simulated company: its name, mail domain, size, seed, clock and acting employee."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="Short name of the spec, e.g. 'acme'.")
    company: str = Field(description="The company's display name.")
    domain: str = Field(description="Mail domain; must end in '.test' so no real address is used.")
    seed: int = Field(0, description="Default seed for generation; World.generate(seed=...) overrides.")
    start: datetime = Field(description="The simulated clock at the start, with a timezone.")
    locale: str = Field("en_US", description="Faker locale for names and text.")
    currency: str = Field("USD", description="Home currency for deals and expenses.")
    acting_user: str = Field(
        "ops_manager",
        description="Who the agent acts as: a role key ('cfo', 'ops_manager', ...) or an email.",
    )
    size: SizeSpec = Field(default_factory=SizeSpec, description="Size knobs.")

    @field_validator("domain")
    @classmethod
    def _domain_is_test(cls, value: str) -> str:
        if not value.endswith(".test"):
            raise ValueError("the mail domain must end in '.test' (reserved, never a real address)")
        return value.lower()

    @field_validator("start")
    @classmethod
    def _start_is_aware(cls, value: datetime) -> datetime:
        if value.tzinfo is None:
            raise ValueError("start needs a timezone, e.g. '2026-10-05T09:00:00Z'")
        return value

    def fingerprint(self) -> str:
        """A stable hash of the spec's content (for caches and version records)."""
        text = json.dumps(self.model_dump(mode="json"), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def format_validation_error(source: str, error: ValidationError) -> str:
    """Turn a pydantic error into lines that name the file and the field to fix."""
    lines = [f"{source} is invalid:"]
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "(top level)"
        lines.append(f"  {where}: {item['msg']}")
    return "\n".join(lines)


def load_spec(spec: WorldSpec | str | Path) -> WorldSpec:
    """Accept a spec object or a path to a YAML spec; raise ``SpecError`` naming the bad field."""
    if isinstance(spec, WorldSpec):
        return spec
    path = Path(spec)
    if not path.exists():
        raise SpecError(f"world spec {path} does not exist (try worlds/acme.yaml)")
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise SpecError(f"{path} is not valid YAML: {exc}") from exc
    try:
        return WorldSpec.model_validate(data)
    except ValidationError as exc:
        raise SpecError(format_validation_error(str(path), exc)) from exc
