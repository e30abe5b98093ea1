"""JSON Schemas for tools, derived from typed signatures and Google docstrings.

Schemas are never written by hand: the signature says the types, the docstring says what each
parameter means.  Every schema obeys OpenAI strict mode: ``additionalProperties: false`` on every
object, every property listed in ``required``, optional parameters nullable.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

_PRIMITIVES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a Google docstring into (description, {parameter: description})."""
    if not doc:
        return "", {}
    text = inspect.cleandoc(doc)
    head, _, rest = text.partition("\nArgs:\n")
    params: dict[str, str] = {}
    current: str | None = None
    for line in rest.splitlines():
        if line and not line.startswith(" "):
            break  # the next section (Returns:, Raises:) ends Args
        match = re.match(r"^\s{2,8}(\w+)(?:\s*\([^)]*\))?:\s*(.*)$", line)
        if match and (current is None or len(line) - len(line.lstrip()) <= 8):
            current = match.group(1)
            params[current] = match.group(2).strip()
        elif current and line.strip():
            params[current] = f"{params[current]} {line.strip()}"
    description = re.split(r"\n(?:Returns|Raises|Example|Examples):\n", head)[0].strip()
    return description, params


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if isinstance(kind, str):
        out = dict(schema, type=[kind, "null"])
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
        return out
    if isinstance(kind, list):
        return schema if "null" in kind else dict(schema, type=[*kind, "null"])
    variants = schema.get("anyOf", [schema])
    if {"type": "null"} in variants:
        return schema
    return {"anyOf": [*variants, {"type": "null"}]}


def type_schema(annotation: Any) -> dict[str, Any]:
    """The strict JSON Schema of one Python type annotation."""
    origin = get_origin(annotation)
    if origin is typing.Annotated:
        return type_schema(get_args(annotation)[0])
    if annotation in _PRIMITIVES:
        return {"type": _PRIMITIVES[annotation]}
    if origin is Literal:
        values = list(get_args(annotation))
        return {"type": _PRIMITIVES[type(values[0])], "enum": values}
    if origin in (Union, types.UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        nullable = len(members) < len(get_args(annotation))
        if all(m in _PRIMITIVES for m in members):
            kinds = [_PRIMITIVES[m] for m in members]
            schema: dict[str, Any] = {"type": kinds[0] if len(kinds) == 1 else kinds}
        else:
            schema = {"anyOf": [type_schema(m) for m in members]}
        return _nullable(schema) if nullable else schema
    if origin is list:
        (item,) = get_args(annotation) or (str,)
        return {"type": "array", "items": type_schema(item)}
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return model_schema(annotation)
    raise TypeError(f"tool parameters cannot be of type {annotation!r}; use str/int/float/bool/Literal/list/model")


def model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A strict object schema for a pydantic model used as a tool parameter."""
    properties: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        prop = type_schema(info.annotation)
        if not info.is_required():
            prop = _nullable(prop)
        if not info.description:
            raise TypeError(f"{model.__name__}.{name} needs a Field(description=...) for the model")
        properties[name] = {**prop, "description": info.description}
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def parameters_schema(
    params: list[inspect.Parameter], hints: dict[str, Any], docs: dict[str, str], tool_name: str
) -> dict[str, Any]:
    """The strict ``parameters`` object for a tool; every parameter must be documented."""
    properties: dict[str, Any] = {}
    for param in params:
        description = docs.get(param.name)
        if not description:
            raise TypeError(f"tool {tool_name}: parameter {param.name!r} has no description in Args:")
        prop = type_schema(hints[param.name])
        if param.default is not inspect.Parameter.empty:
            prop = _nullable(prop)
            if param.default is not None:
                description = f"{description} Default: {param.default!r}."
        properties[param.name] = {**prop, "description": description}
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }
