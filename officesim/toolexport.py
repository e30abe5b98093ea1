"""Tool lists in the shapes agent frameworks expect: OpenAI chat, OpenAI Responses, Anthropic, MCP.

All four are derived from the one registry; the canonical ``tools.json`` is the OpenAI chat
function-calling list with strict schemas (string maxima in descriptions, as strict mode wants;
Anthropic and MCP get every ``maxLength`` as well).  Nothing here is hand-written per tool.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any, Literal

from officesim.tools import Tool, registry
from officesim.toolschema import strict_schema

ExportFormat = Literal["openai", "responses", "anthropic", "mcp"]
FORMATS: tuple[str, ...] = ("openai", "responses", "anthropic", "mcp")


def as_openai(tool: Tool) -> dict[str, Any]:
    """OpenAI chat completions ``tools`` entry (strict function calling)."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": strict_schema(tool.parameters),
            "strict": True,
        },
    }


def as_responses(tool: Tool) -> dict[str, Any]:
    """OpenAI Responses API ``tools`` entry (flat function shape)."""
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": strict_schema(tool.parameters),
        "strict": True,
    }


def as_anthropic(tool: Tool) -> dict[str, Any]:
    """Anthropic Messages API ``tools`` entry."""
    return {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}


def as_mcp(tool: Tool) -> dict[str, Any]:
    """MCP ``tools/list`` entry, with read-only and destructive hints from the tool's kind."""
    return {
        "name": tool.name,
        "title": tool.name.replace("_", " "),
        "description": tool.description,
        "inputSchema": tool.parameters,
        "annotations": {
            "readOnlyHint": tool.kind == "read",
            "destructiveHint": tool.name.split("_")[1] in {"delete", "move", "update"},
            "idempotentHint": tool.kind == "read",
            "openWorldHint": False,
        },
    }


_SHAPES = {"openai": as_openai, "responses": as_responses, "anthropic": as_anthropic, "mcp": as_mcp}


def export_tools(names: Iterable[str] | None = None, fmt: ExportFormat = "openai") -> list[dict[str, Any]]:
    """The tools (all, or ``names`` in registry order) in one of the ``FORMATS``."""
    if fmt not in _SHAPES:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    tools = registry()
    wanted = set(names) if names is not None else set(tools)
    unknown = wanted - set(tools)
    if unknown:
        raise ValueError(f"unknown tools: {', '.join(sorted(unknown))}")
    return [_SHAPES[fmt](tool) for name, tool in tools.items() if name in wanted]


def dumps(tools: list[dict[str, Any]]) -> str:
    """The canonical text of a tool list (stable key order, trailing newline)."""
    return json.dumps(tools, indent=2, ensure_ascii=False) + "\n"


def tools_version() -> str:
    """A short hash of the whole tool surface, recorded with every result."""
    return hashlib.sha256(dumps(export_tools()).encode()).hexdigest()[:16]
