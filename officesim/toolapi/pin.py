"""A task folder's pin on its tool surface: the shape of each tool it allows, not the prose.

A task in the repository needs to know when the tools it was written against change in a way
that can break it (a parameter renamed, retyped, made required, an enum narrowed, a maximum
lowered), not when a docstring is reworded.  ``tools.pin`` holds, per tool the task is given
(``submit`` and ``wait`` included), a short hash of its parameter schema with every description
left out.  A docstring edit leaves every pin as it is; a shape change rewrites the pins of the
tasks that use that tool, and ``tasks validate`` names them until the family is regenerated.
The full ``tools.json`` (descriptions included) is derived from the registry whenever it is
needed (``Task.tools_json``) and written into deliveries, which stay self-contained.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from officesim.toolapi.surface import canonical_json, canonical_parameters

if TYPE_CHECKING:
    from officesim.task import Task

PIN_FILE = "tools.pin"


def shape(schema: Any) -> Any:
    """``schema`` without its ``description`` keywords (a property named ``description`` stays)."""
    if isinstance(schema, dict):
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key == "description":
                continue
            out[key] = {name: shape(s) for name, s in value.items()} if key == "properties" else shape(value)
        return out
    if isinstance(schema, list):
        return [shape(item) for item in schema]
    return schema


def pins_of(tools: list[dict[str, Any]]) -> dict[str, str]:
    """``{tool name: "sha256:<16 hex>"}`` of the shapes of an OpenAI-format tool list."""
    out = {}
    for item in tools:
        function = item["function"]
        body = canonical_json(shape(canonical_parameters(function["parameters"])))
        out[function["name"]] = "sha256:" + hashlib.sha256(body.encode()).hexdigest()[:16]
    return dict(sorted(out.items()))


def task_pins(task: Task) -> dict[str, str]:
    """The pins of the tools ``task`` is given today (from the registry)."""
    return pins_of(task.tools_json())


def render_pin(task: Task) -> str:
    """The text of a task's ``tools.pin``."""
    return json.dumps({"tools": task_pins(task)}, indent=2, sort_keys=True) + "\n"


def pin_problems(task: Task) -> list[str]:
    """How the task's ``tools.pin`` (when the folder has one) differs from its tools now."""
    path = Path(task.dir) / PIN_FILE
    if not path.is_file():
        return []
    try:
        pinned = json.loads(path.read_text(encoding="utf-8"))["tools"]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        return [f"{path} is not a tool pin ({type(exc).__name__}: {exc}); regenerate the task"]
    now = task_pins(task)
    changed = sorted(n for n in set(pinned) & set(now) if pinned[n] != now[n])
    problems = []
    if changed:
        problems.append(f"{path}: the parameters of {', '.join(changed)} changed shape since the task was "
                        "written; check its solution and grader still hold, then regenerate it")
    if set(pinned) != set(now):
        problems.append(f"{path}: pins {sorted(pinned)} but the task is given {sorted(now)}; regenerate it")
    return problems
