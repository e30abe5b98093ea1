"""Tool lists in the shapes agent frameworks expect: OpenAI chat, OpenAI Responses, Anthropic, MCP.

All four are derived from the one registry; the canonical ``tools.json`` is the OpenAI chat
function-calling list with strict schemas.  Each format comes in two schema modes, ``strict``
and ``relaxed`` (see ``export_tools``); OpenAI's strict mode refuses string-length keywords, so
its exports carry string maxima in the descriptions (Anthropic and MCP get every ``maxLength``).
Nothing here is hand-written per tool.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, get_args

from pydantic import BaseModel

from officesim.episode_tools import SUBMIT
from officesim.tools import Tool, episode_registry, registry
from officesim.toolschema import strict_schema

ExportFormat = Literal["openai", "responses", "anthropic", "mcp"]
FORMATS: tuple[str, ...] = ("openai", "responses", "anthropic", "mcp")
SchemaMode = Literal["strict", "relaxed"]
SCHEMA_MODES: tuple[str, ...] = ("strict", "relaxed")
# OpenAI's strict function calling needs every property required (optional ones nullable); MCP
# clients, inspect_ai and Anthropic reject or mishandle that, so they get optional properties
# that are simply not required.
DEFAULT_SCHEMA: dict[str, SchemaMode] = {"openai": "strict", "responses": "strict", "anthropic": "relaxed",
                                         "mcp": "relaxed"}

# The built-in tool of tasks with colleagues or timed events (officesim.colleagues): time passes.
WAIT = "wait"
MAX_WAIT_MINUTES = 24 * 60
WAIT_DESCRIPTION = "Let time pass, e.g. to give a colleague time to answer; then check your mail or chat."
WAIT_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {"minutes": {"type": "integer", "description": f"How many minutes to wait (1-{MAX_WAIT_MINUTES})."}},
    "required": ["minutes"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class _Entry:
    """What every format needs of a tool: name, description, parameters and hints."""

    name: str
    description: str
    parameters: dict[str, Any]
    strict: bool
    read_only: bool
    destructive: bool


def _without_null(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema minus the ``null`` that strict mode adds to an optional property."""
    out = dict(schema)
    kind = out.get("type")
    if isinstance(kind, list) and "null" in kind:
        kinds = [k for k in kind if k != "null"]
        out["type"] = kinds[0] if len(kinds) == 1 else kinds
        if "enum" in out:
            out["enum"] = [v for v in out["enum"] if v is not None]
    elif "anyOf" in out:
        variants = [v for v in out["anyOf"] if v != {"type": "null"}]
        if len(variants) == 1:
            del out["anyOf"]
            out = {**variants[0], **out}
        else:
            out["anyOf"] = variants
    return out


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model inside ``Model``, ``list[Model]`` or ``Model | None``, if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def relax(schema: dict[str, Any], model: type[BaseModel]) -> dict[str, Any]:
    """The relaxed form of a strict object schema: only ``model``'s required fields are required.

    Optional properties lose the ``null`` strict mode gave them; nested model objects (inline,
    never ``$ref``) are relaxed the same way.  A required field that is nullable keeps its null.
    """
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, prop in schema["properties"].items():
        info = model.model_fields[name]
        if info.is_required():
            required.append(name)
        else:
            prop = _without_null(prop)
        nested = _model_in(info.annotation)
        if nested is not None:
            if prop.get("type") == "array":
                prop = {**prop, "items": relax(prop["items"], nested)}
            elif prop.get("type") == "object":
                prop = relax(prop, nested) | {"description": prop["description"]}
        properties[name] = prop
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def _entry(tool: Tool, schema: SchemaMode) -> _Entry:
    parameters = tool.parameters if schema == "strict" else relax(tool.parameters, tool.args_model)
    verb = tool.name.split("_")[1] if "_" in tool.name else tool.name  # episode tools are one bare verb
    return _Entry(tool.name, tool.description, parameters, schema == "strict", tool.kind == "read",
                  verb in {"delete", "move", "update"})


def _submit_entry(schema: SchemaMode) -> _Entry:
    return _entry(episode_registry()[SUBMIT], schema)


def _wait_entry(schema: SchemaMode) -> _Entry:
    return _Entry(WAIT, WAIT_DESCRIPTION, WAIT_PARAMETERS, schema == "strict", False, False)


def _openai_parameters(entry: _Entry) -> dict[str, Any]:
    parameters: dict[str, Any] = strict_schema(entry.parameters) if entry.strict else entry.parameters
    return parameters


def _openai(entry: _Entry) -> dict[str, Any]:
    return {"type": "function", "function": {"name": entry.name, "description": entry.description,
                                             "parameters": _openai_parameters(entry), "strict": entry.strict}}


def _responses(entry: _Entry) -> dict[str, Any]:
    return {"type": "function", "name": entry.name, "description": entry.description,
            "parameters": _openai_parameters(entry), "strict": entry.strict}


def _anthropic(entry: _Entry) -> dict[str, Any]:
    return {"name": entry.name, "description": entry.description, "input_schema": entry.parameters}


def _mcp(entry: _Entry) -> dict[str, Any]:
    return {
        "name": entry.name,
        "title": entry.name.replace("_", " "),
        "description": entry.description,
        "inputSchema": entry.parameters,
        "annotations": {"readOnlyHint": entry.read_only, "destructiveHint": entry.destructive,
                        "idempotentHint": entry.read_only, "openWorldHint": False},
    }


_SHAPES = {"openai": _openai, "responses": _responses, "anthropic": _anthropic, "mcp": _mcp}


def as_openai(tool: Tool, schema: SchemaMode = "strict") -> dict[str, Any]:
    """OpenAI chat completions ``tools`` entry (strict function calling unless ``schema="relaxed"``)."""
    return _openai(_entry(tool, schema))


def as_responses(tool: Tool, schema: SchemaMode = "strict") -> dict[str, Any]:
    """OpenAI Responses API ``tools`` entry (flat function shape)."""
    return _responses(_entry(tool, schema))


def as_anthropic(tool: Tool, schema: SchemaMode = "relaxed") -> dict[str, Any]:
    """Anthropic Messages API ``tools`` entry."""
    return _anthropic(_entry(tool, schema))


def as_mcp(tool: Tool, schema: SchemaMode = "relaxed") -> dict[str, Any]:
    """MCP ``tools/list`` entry, with read-only and destructive hints from the tool's kind."""
    return _mcp(_entry(tool, schema))


def schema_mode(fmt: str, schema: str | None) -> SchemaMode:
    """``schema``, or the format's default; ``ValueError`` naming the choices for anything else."""
    if fmt not in _SHAPES:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if schema is None:
        return DEFAULT_SCHEMA[fmt]
    if schema not in SCHEMA_MODES:
        raise ValueError(f"unknown schema mode {schema!r}; choose one of {', '.join(SCHEMA_MODES)}")
    return schema  # type: ignore[return-value]


def export_tools(names: Iterable[str] | None = None, fmt: ExportFormat = "openai",
                 schema: SchemaMode | None = None, *, submit: bool = False,
                 wait: bool = False) -> list[dict[str, Any]]:
    """The tools (all, or ``names`` in registry order) in one of the ``FORMATS``.

    Args:
        names: the tools to export (default: every registered tool).
        fmt: the list's shape.
        schema: ``strict`` (OpenAI strict mode: every property required, optional ones nullable)
            or ``relaxed`` (optional properties not required); default: the format's own
            (``DEFAULT_SCHEMA``: strict for OpenAI's two, relaxed for Anthropic and MCP).
        submit: append the episode's ``submit`` tool, as a task's tool list has it.
        wait: append the built-in ``wait`` tool (before ``submit``), as tasks with colleagues have it.
    """
    mode = schema_mode(fmt, schema)
    tools = registry()
    wanted = set(names) if names is not None else set(tools)
    unknown = wanted - set(tools)
    if unknown:
        raise ValueError(f"unknown tools: {', '.join(sorted(unknown))}")
    entries = [_entry(tool, mode) for name, tool in tools.items() if name in wanted]
    if wait:
        entries.append(_wait_entry(mode))
    if submit:
        entries.append(_submit_entry(mode))
    return [_SHAPES[fmt](entry) for entry in entries]


def dumps(tools: list[dict[str, Any]]) -> str:
    """The canonical text of a tool list (stable key order, trailing newline)."""
    return json.dumps(tools, indent=2, ensure_ascii=False) + "\n"


def tools_version() -> str:
    """A short hash of the whole tool surface, recorded with every result."""
    return hashlib.sha256(dumps(export_tools()).encode()).hexdigest()[:16]
